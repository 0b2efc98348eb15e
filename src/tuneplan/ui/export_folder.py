"""Where export dialogs open: the user's documents folder, not the app's data folder (issue #21).

Charts, reports and comparison tables are for people to find, attach and share; the data folder
(``storage.paths.data_dir``) is the app's own and hidden on most systems.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths

__all__ = ["export_folder"]


def export_folder() -> Path:
    """The documents folder (``QStandardPaths.DocumentsLocation``) when it exists, else the home folder."""
    docs = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    if docs and Path(docs).is_dir():
        return Path(docs)
    return Path.home()
