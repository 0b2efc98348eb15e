"""The UI's own settings file: ``<data dir>/ui.ini``, a ``QSettings`` INI file next to the scenario library (so a
test's ``TUNEPLAN_DATA_DIR`` isolates it as well). The language (``ui.i18n``), the theme (``ui.theme``) and the last
export folder (``ui.export_folder``) are kept there.
"""

from __future__ import annotations

from PySide6.QtCore import QSettings

__all__ = ["SETTINGS_FILE", "ui_settings"]

#: The file's name in the data folder.
SETTINGS_FILE = "ui.ini"


def ui_settings() -> QSettings:
    """The settings file, opened fresh (``QSettings`` reads and writes it through; call ``sync()`` to flush now)."""
    from tuneplan.storage import paths

    return QSettings(str(paths.data_dir() / SETTINGS_FILE), QSettings.Format.IniFormat)
