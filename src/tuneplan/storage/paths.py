"""Where Tuneplan keeps user data: platformdirs locations, overridable with ``TUNEPLAN_DATA_DIR``.

With ``TUNEPLAN_DATA_DIR`` set (tests, portable installs, ``--data-dir``), *everything* lives below
it, logs included (``<data>/logs``); otherwise the data folder is
``platformdirs.user_data_dir("Tuneplan", "Tuneplan")`` and logs go to ``user_log_dir``.

Layout below the data folder::

    scenarios/        one ``<slug>-<suffix>.json`` per saved scenario (plus transient ``.lock`` files)
    trash/            deleted scenarios and their ``.trashinfo.json`` restore metadata
    quarantine/       files that could not be read, moved aside with a timestamp (never deleted)
    settings.json     small app settings (the recent-files list), written atomically
    autosave.json     the working scenario, written atomically while editing
    price_book.json   the user's price edits and additions (storage/price_book.py)
    price_snapshot.json  the last refreshed public GPU prices, dated (storage/price_snapshot.py)

Every function resolves the environment at call time (so a test's ``monkeypatch.setenv`` works)
and creates the folder on demand.

Raises:
    OSError: when a folder cannot be created (read-only location, permission denied).
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = [
    "APP_AUTHOR",
    "APP_NAME",
    "DATA_DIR_ENV",
    "autosave_path",
    "data_dir",
    "log_dir",
    "quarantine_dir",
    "scenarios_dir",
    "settings_path",
    "trash_dir",
]

APP_NAME = "Tuneplan"
APP_AUTHOR = "Tuneplan"
DATA_DIR_ENV = "TUNEPLAN_DATA_DIR"


def _override() -> Path | None:
    value = os.environ.get(DATA_DIR_ENV, "").strip()
    return Path(value).expanduser() if value else None


def _ensure(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir() -> Path:
    """The root of all user data: ``$TUNEPLAN_DATA_DIR`` if set, else the platform's user data dir."""
    base = _override()
    if base is None:
        base = Path(platformdirs.user_data_dir(APP_NAME, APP_AUTHOR))
    return _ensure(base)


def scenarios_dir(base: Path | None = None) -> Path:
    """The scenario library folder (``<data>/scenarios``)."""
    return _ensure((base if base is not None else data_dir()) / "scenarios")


def trash_dir(base: Path | None = None) -> Path:
    """Deleted scenarios waiting to be restored or emptied (``<data>/trash``)."""
    return _ensure((base if base is not None else data_dir()) / "trash")


def quarantine_dir(base: Path | None = None) -> Path:
    """Unreadable files moved aside for inspection (``<data>/quarantine``)."""
    return _ensure((base if base is not None else data_dir()) / "quarantine")


def settings_path(base: Path | None = None) -> Path:
    """The settings JSON file (``<data>/settings.json``); its folder exists, the file may not."""
    return (base if base is not None else data_dir()) / "settings.json"


def autosave_path(base: Path | None = None) -> Path:
    """The autosave of the scenario being edited (``<data>/autosave.json``); may not exist."""
    return (base if base is not None else data_dir()) / "autosave.json"


def log_dir() -> Path:
    """Log folder: ``<data>/logs`` under the override, else ``platformdirs.user_log_dir``."""
    base = _override()
    if base is not None:
        return _ensure(base / "logs")
    return _ensure(Path(platformdirs.user_log_dir(APP_NAME, APP_AUTHOR)))
