"""Where export dialogs open: the folder the user last exported to, else their documents folder, never the app's
data folder (issue #21).

Charts, reports, comparison tables and training configs are for people to find, attach and share; the data folder
(``storage.paths.data_dir``) is the app's own and hidden on most systems. The last export folder is kept in the
app's ``ui.ini`` (``QSettings``, next to the language choice), so a second export lands beside the first.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths

from tuneplan.ui.settings import ui_settings

__all__ = ["export_folder", "remember_export"]

#: The ``QSettings`` key of the folder of the last file exported.
LAST_FOLDER_KEY = "export/last_folder"


def _settings() -> QSettings:
    return ui_settings()


def export_folder() -> Path:
    """The folder of the last export when it still exists; else the documents folder
    (``QStandardPaths.DocumentsLocation``) when it exists, else the home folder."""
    last = _settings().value(LAST_FOLDER_KEY, "")
    if isinstance(last, str) and last and Path(last).is_dir():
        return Path(last)
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    if docs and Path(docs).is_dir():
        return Path(docs)
    return Path.home()


def remember_export(path: str | Path | None) -> None:
    """Remember the folder of a file just exported (nothing for ``None``, a cancelled dialog)."""
    if not path:
        return
    settings = _settings()
    settings.setValue(LAST_FOLDER_KEY, str(Path(path).resolve().parent))
    settings.sync()
