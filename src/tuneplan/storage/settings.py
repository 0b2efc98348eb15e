"""The "Your GPUs" settings: a card entered by hand and which detected cards don't count.

They live under the ``"local_gpu"`` key of the same ``<data>/settings.json`` that
:class:`~tuneplan.storage.library.ScenarioLibrary` keeps its recent list in, and follow its rules:
every write holds the library's lock on that file, rewrites it atomically (temp file +
``os.replace``) and keeps every other key as it was; a file that is not JSON is moved to
``<data>/quarantine`` rather than overwritten.

Reading never raises: a missing, unreadable or corrupt file, or a ``"local_gpu"`` entry that
doesn't validate, gives the defaults plus a sentence for the user (:class:`SettingsLoad`).
Writing raises :class:`SettingsSaveError` with a sentence for the user. No Qt.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tuneplan.storage import paths
from tuneplan.storage._fs import (
    atomic_write_bytes,
    describe_os_error,
    loads_untrusted_json,
    quarantine_file,
    read_regular_file,
)
from tuneplan.storage.files import ScenarioFileError
from tuneplan.storage.library import MAX_STATE_FILE_BYTES, ScenarioLibrary

__all__ = [
    "SETTINGS_KEY",
    "LocalGpuSettings",
    "ManualGpu",
    "SettingsLoad",
    "SettingsSaveError",
    "load_local_gpu_settings",
    "save_local_gpu_settings",
]

log = logging.getLogger(__name__)

#: The key of these settings inside settings.json.
SETTINGS_KEY = "local_gpu"


class ManualGpu(BaseModel):
    """A GPU the user typed in, for machines NVML can't read (Apple, AMD, a remote box).

    ``memory_gib`` is the memory a job can fill, in GiB; ``bf16_tflops`` the dense BF16 tensor
    throughput if known (``None``: unknown); ``catalog_id`` the catalog card it was copied from,
    whose throughput and bandwidth then stand in for anything not typed.
    """

    model_config = ConfigDict(frozen=True, extra="ignore", str_strip_whitespace=True)

    name: str = Field(min_length=1, max_length=100)
    memory_gib: float = Field(gt=0, le=100_000)
    bf16_tflops: float | None = Field(default=None, gt=0, le=100_000)
    catalog_id: str | None = None


class LocalGpuSettings(BaseModel):
    """Everything the "Your GPUs" panel remembers between sessions.

    ``manual`` is the hand-entered card (``None``: none). It stands in when the probe finds no
    GPU; with ``manual_alongside`` it also counts next to the detected ones. ``ignored_uuids``
    are the detected cards (by NVML UUID) the user unticked, so a display card stays out of the
    verdict across restarts.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    manual: ManualGpu | None = None
    manual_alongside: bool = False
    ignored_uuids: list[str] = Field(default_factory=list)


@dataclass(frozen=True)
class SettingsLoad:
    """What :func:`load_local_gpu_settings` found: the settings, and a message when it fell back."""

    settings: LocalGpuSettings
    message: str | None = None


class SettingsSaveError(ValueError):
    """The settings could not be written; ``str()`` is a sentence for the user."""


def _settings_path(root: Path | None) -> Path:
    if root is not None:
        root.mkdir(parents=True, exist_ok=True)
    return paths.settings_path(root)


def _quarantine(path: Path, root: Path | None) -> Path:
    """Move an unreadable settings file aside (as the scenario library does), never delete it."""
    return quarantine_file(path, paths.quarantine_dir(root if root is not None else path.parent))


def _read_document(path: Path, root: Path | None) -> tuple[dict[str, Any], str | None]:
    """The whole settings.json as a dict, and a message if it had to be replaced by ``{}``.

    Hostile content never raises: bad UTF-8 or JSON, nesting that exhausts the parser, a file
    over :data:`~tuneplan.storage.library.MAX_STATE_FILE_BYTES` bytes, or a FIFO / device (also
    behind a symlink, refused unread) are all moved to quarantine.
    """
    try:
        data: Any = loads_untrusted_json(read_regular_file(path, MAX_STATE_FILE_BYTES))
    except FileNotFoundError:
        return {}, None
    except ValueError as exc:  # not UTF-8, not JSON, too deep, too large, not a regular file
        log.warning("settings file %s is unusable: %s", path, exc)
        data = None
    except OSError as exc:
        log.warning("cannot read %s: %s", path, exc)
        return {}, f"Your settings could not be read ({describe_os_error(exc)}), so the defaults are used."
    if isinstance(data, dict):
        return data, None
    try:
        dest = _quarantine(path, root)
    except OSError as exc:
        log.warning("settings file %s is unreadable and could not be moved: %s", path, exc)
        return {}, "Your settings file is damaged, so the defaults are used."
    log.warning("settings file %s was unreadable; moved to %s", path, dest)
    return {}, f"Your settings file was damaged, so the defaults are used (the old file is kept as {dest})."


def load_local_gpu_settings(root: Path | None = None) -> SettingsLoad:
    """Read the "Your GPUs" settings from ``<root>/settings.json`` (root: the data folder).

    Never raises. Falls back to the defaults with a message when the file can't be read, is not
    JSON (it is then moved to quarantine), or holds a ``"local_gpu"`` entry that doesn't validate
    (left in place; the next save replaces it).
    """
    try:
        path = _settings_path(root)
    except OSError as exc:
        return SettingsLoad(
            LocalGpuSettings(), f"Your settings folder is not available ({describe_os_error(exc)})."
        )
    document, message = _read_document(path, root)
    entry = document.get(SETTINGS_KEY)
    if entry is None:
        return SettingsLoad(LocalGpuSettings(), message)
    try:
        return SettingsLoad(LocalGpuSettings.model_validate(entry), message)
    except ValidationError as exc:
        log.warning("invalid %r entry in %s: %s", SETTINGS_KEY, path, exc)
        return SettingsLoad(
            LocalGpuSettings(), "Your saved GPU settings were not valid, so the defaults are used."
        )


def save_local_gpu_settings(settings: LocalGpuSettings, root: Path | None = None) -> Path:
    """Write ``settings`` into ``<root>/settings.json``, keeping every other key; returns the path.

    Holds the scenario library's lock on the file (the same one its recent list takes) and
    writes atomically.

    Raises:
        SettingsSaveError: the folder, the lock or the write failed (the old file is intact).
    """
    try:
        path = _settings_path(root)
        with ScenarioLibrary(root).locked(path):
            document, _ = _read_document(path, root)
            document[SETTINGS_KEY] = settings.model_dump(mode="json")
            text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
            atomic_write_bytes(path, text.encode("utf-8"))
    except ScenarioFileError as exc:  # LockedError, or the lock file could not be created
        raise SettingsSaveError(f"Your GPU settings were not saved: {exc}") from exc
    except OSError as exc:
        raise SettingsSaveError(f"Your GPU settings were not saved: {describe_os_error(exc)}.") from exc
    return path
