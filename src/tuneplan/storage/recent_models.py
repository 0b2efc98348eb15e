"""Models the user imported or fetched, kept across restarts: ``<data>/recent_models.json``.

A small list (newest first, at most :data:`MAX_RECENT_MODELS`): a Hub id or a ``config.json`` path, the name it
was planned as, the commit it came from and the checkpoint's counts (so a fetched model plans offline with its
exact counts). Writes hold the scenario library's lock on the file and replace it atomically (temp file +
``os.replace``); reading never raises (a missing or damaged file is an empty list, logged), and a write moves a
damaged file to ``<data>/quarantine`` before replacing it. No Qt.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tuneplan.core.checkpoint import CheckpointWeights
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

__all__ = ["MAX_RECENT_MODELS", "RecentModel", "RecentModelsError", "known_checkpoint", "load_recent_models",
           "recent_models_path", "remember_model"]

log = logging.getLogger(__name__)

#: Entries kept; older ones drop off.
MAX_RECENT_MODELS = 30
_FILE = "recent_models.json"


class RecentModelsError(OSError):
    """The list could not be written; ``str(err)`` is one sentence for the user."""


class RecentModel(BaseModel):
    """One remembered model.

    Attributes:
        kind: ``hub`` (``ref`` is ``org/name`` or ``org/name@revision``) or ``file`` (``ref`` is a path).
        ref: what to load it from again.
        name: the name it was planned as.
        commit: the Hub commit the files came from, if any.
        checkpoint: the safetensors counts read then (exact parameters, stored quantisation).
        used: when it was last loaded (ISO 8601, UTC).
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: Literal["hub", "file"]
    ref: str = Field(min_length=1, max_length=4096)
    name: str = Field(default="", max_length=200)
    commit: str | None = Field(default=None, max_length=64)
    checkpoint: CheckpointWeights | None = None
    used: str = ""


def recent_models_path(root: Path | None = None) -> Path:
    """``<data>/recent_models.json`` (``root``: the data folder, default :func:`tuneplan.storage.paths.data_dir`)."""
    base = root if root is not None else paths.data_dir()
    return base / _FILE


def _read(path: Path, *, set_aside: bool = False) -> list[RecentModel]:
    """The list in ``path``; a damaged file reads as empty, and with ``set_aside`` (a write is about to replace it) is
    moved to the quarantine folder first, so that a file someone can still repair by hand is never overwritten; with
    ``set_aside`` a file that cannot be read at all (permissions) raises ``OSError`` rather than being replaced."""
    try:
        data: Any = loads_untrusted_json(read_regular_file(path, MAX_STATE_FILE_BYTES))
    except FileNotFoundError:
        return []
    except OSError as exc:  # not readable (permissions, I/O): a write must not replace what it cannot read
        log.warning("recent models list %s cannot be read: %s", path, exc)
        if set_aside:
            raise
        return []
    except ValueError as exc:  # damaged: not JSON, too deep, too big
        log.warning("recent models list %s is unusable: %s", path, exc)
        if set_aside and path.is_file():
            try:
                log.warning("moved the unusable recent models list to %s",
                            quarantine_file(path, paths.quarantine_dir(path.parent)))
            except OSError as move:
                raise OSError(f"the unusable list could not be moved aside ({describe_os_error(move)})") from move
        return []
    entries = data.get("models") if isinstance(data, dict) else None
    out: list[RecentModel] = []
    for item in entries if isinstance(entries, list) else []:
        try:
            out.append(RecentModel.model_validate(item))
        except ValidationError:
            continue  # one bad entry does not lose the others
    return out[:MAX_RECENT_MODELS]


def load_recent_models(root: Path | None = None) -> list[RecentModel]:
    """The remembered models, newest first. Never raises (a missing or damaged file: an empty list)."""
    try:
        return _read(recent_models_path(root))
    except OSError as exc:  # the data folder itself is unavailable
        log.warning("cannot read the recent models: %s", exc)
        return []


def known_checkpoint(repo_id: str, commit: str, root: Path | None = None) -> CheckpointWeights | None:
    """The checkpoint counts remembered for ``repo_id`` at ``commit``, if any (for planning offline)."""
    for entry in load_recent_models(root):
        if entry.kind == "hub" and entry.commit == commit and entry.ref.split("@", 1)[0] == repo_id:
            return entry.checkpoint
    return None


def remember_model(entry: RecentModel, root: Path | None = None) -> Path:
    """Put ``entry`` first in the list (replacing one of the same kind and ref), stamped now; returns the path.

    Raises:
        RecentModelsError: the folder, the lock or the write failed (the old file is intact).
    """
    entry = entry.model_copy(update={"used": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")})
    try:
        base = root if root is not None else paths.data_dir()
        base.mkdir(parents=True, exist_ok=True)
        path = recent_models_path(base)
        with ScenarioLibrary(base).locked(path):
            kept = [e for e in _read(path, set_aside=True) if (e.kind, e.ref) != (entry.kind, entry.ref)]
            models = [entry, *kept][:MAX_RECENT_MODELS]
            text = json.dumps({"version": 1, "models": [m.model_dump(mode="json") for m in models]},
                              indent=2, ensure_ascii=False) + "\n"
            atomic_write_bytes(path, text.encode("utf-8"))
    except ScenarioFileError as exc:
        raise RecentModelsError(f"the model list was not saved: {exc}") from exc
    except OSError as exc:
        raise RecentModelsError(f"the model list was not saved: {describe_os_error(exc)}.") from exc
    return path
