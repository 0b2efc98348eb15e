"""The session's log file: one rotating file in the user log folder, named by the error dialog and the About box.

A module of its own (no Qt) so that the About box (:mod:`tuneplan.ui.help_view`) can name the file
without importing :mod:`tuneplan.ui.app`, which imports the main window, which installs the help view.
"""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

__all__ = ["log_file", "setup_logging"]

log = logging.getLogger("tuneplan")

_log_path: Path | None = None


def log_file() -> Path | None:
    """The log file this session writes (set by :func:`setup_logging`), or None when there is none."""
    return _log_path


def setup_logging(level: int = logging.INFO) -> Path | None:
    """Log to ``<user log dir>/tuneplan.log`` (rotating, 1 MiB x 3) and warnings to stderr.

    Returns the log file's path, or None when the folder cannot be written (logging then goes to
    stderr only; the app still starts).
    """
    global _log_path
    from tuneplan.storage import paths

    root = logging.getLogger()
    root.setLevel(level)
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not any(isinstance(h, logging.StreamHandler) and getattr(h, "_tuneplan", False) for h in root.handlers):
        console = logging.StreamHandler()
        console.setLevel(logging.WARNING)
        console.setFormatter(fmt)
        console._tuneplan = True  # type: ignore[attr-defined]
        root.addHandler(console)
    try:
        path = paths.log_dir() / "tuneplan.log"
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=1024 * 1024, backupCount=3, encoding="utf-8")
    except OSError as exc:
        log.warning("cannot write the log file: %s", exc)
        return None
    handler.setFormatter(fmt)
    for old in [h for h in root.handlers if isinstance(h, logging.handlers.RotatingFileHandler)]:
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    _log_path = path
    return path
