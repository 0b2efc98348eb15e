"""The scenario library: one JSON file per saved scenario, and nothing is ever lost.

Layout (see :mod:`tuneplan.storage.paths`): ``<data>/scenarios/<slug>-<6 hex>.json`` per
scenario (the slug comes from the name, the suffix keeps two "My plan"s apart), deleted files in
``<data>/trash/`` with a ``.trashinfo`` sidecar to restore them, unreadable files moved to
``<data>/quarantine/<UTC timestamp>-<file name>``, the recent list in ``<data>/settings.json``
and the working copy in ``<data>/autosave.json``. Every write is atomic
(:func:`tuneplan.storage.files.write_scenario_file`).

Guarantees:

* **No silent overwrite between two running instances.** :meth:`ScenarioLibrary.save` takes the
  :class:`FileStamp` (or ``mtime_ns``) the caller got when it loaded the file and raises
  :class:`ConflictError` when the file on disk has changed since. While writing it holds an OS
  lock (``flock`` / ``LockFileEx`` through :mod:`filelock`) on ``<file stem>.lock``: exclusive
  between processes and between library objects, and released by the OS when its holder exits
  or is killed, so there is no stale lock to guess about.
* **All or nothing on import**, even across a kill: :meth:`~ScenarioLibrary.import_scenarios`
  stages every plan in a hidden folder, marks the import committed, then renames; the next
  :meth:`~ScenarioLibrary.tidy` rolls an interrupted import back (not committed) or forward.
* **Nothing abandoned piles up**: :meth:`~ScenarioLibrary.tidy` (run on first use) removes the temp
  files of killed saves and lock files unused for :data:`STALE_LOCK_SECONDS` that nobody holds.
* **Broken files are never dropped.** :meth:`~ScenarioLibrary.list` reports them with
  ``ok=False`` and the problem; :meth:`~ScenarioLibrary.load` moves them to quarantine and raises
  :class:`CorruptScenarioError` naming the new location. Files from a newer Tuneplan are
  neither: they stay where they are and raise :class:`~tuneplan.storage.files.NewerSchemaError`.
* **Delete is undoable** until :meth:`~ScenarioLibrary.empty_trash`.

All errors derive from :class:`~tuneplan.storage.files.ScenarioFileError` (a ``ValueError``) with
a one-line message; invalid new names raise :class:`pydantic.ValidationError` (also a
``ValueError``). No Qt.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import stat
import time
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import filelock

from tuneplan.core.scenario import Scenario
from tuneplan.storage import paths
from tuneplan.storage._fs import (
    UnsafeFileError,
    atomic_write_bytes,
    clean_abandoned_temps,
    describe_os_error,
    fsync_dir,
    loads_untrusted_json,
    move_file,
    quarantine_file,
    read_regular_file,
)
from tuneplan.storage.files import (
    CORRUPT_REASONS,
    MAX_BUNDLE_BYTES,
    NewerSchemaError,
    ScenarioFileError,
    ScenarioSaveError,
    read_scenario_document,
    read_scenarios_file,
    write_scenario_bundle,
    write_scenario_file,
)

__all__ = [
    "MAX_STATE_FILE_BYTES",
    "STALE_LOCK_SECONDS",
    "ConflictError",
    "CorruptScenarioError",
    "FileStamp",
    "LockedError",
    "ScenarioInfo",
    "ScenarioLibrary",
    "TrashEntry",
    "slugify",
]

log = logging.getLogger(__name__)

#: seconds a lock file may go unused before :meth:`ScenarioLibrary.tidy` removes it (if nobody holds it)
STALE_LOCK_SECONDS = 600.0
#: the largest small JSON state file read (settings.json, autosave.owner.json, .trashinfo), bytes
MAX_STATE_FILE_BYTES = 1024 * 1024
_STAGING_PREFIX = ".import-"  # hidden staging folders in scenarios/: "*.json" never lists them
_COMMITTED = "COMMITTED"  # in a staging folder: the import is decided, finish it
_MAX_RECENT = 20
_TRASHINFO = ".trashinfo"
_SUFFIX_RE = re.compile(r"^(?P<stem>.*) \((?P<n>\d+)\)$")


class ConflictError(ScenarioFileError):
    """The file changed (or vanished) on disk since it was loaded; nothing was written."""

    def __init__(self, message: str, path: Path) -> None:
        super().__init__(message, path, "conflict")


class LockedError(ScenarioFileError):
    """Another live process holds the file's lock (it is saving right now); nothing was written.

    Attributes:
        pid: the lock holder's process id, if known (``None``: OS locks do not record it).
    """

    def __init__(self, message: str, path: Path, pid: int | None) -> None:
        super().__init__(message, path, "locked")
        self.pid = pid


class CorruptScenarioError(ScenarioFileError):
    """A library file could not be read and was moved aside to quarantine (not deleted).

    ``reason`` is the underlying one (``not-json``, ``invalid``...).

    Attributes:
        original_path: where the file was.
        quarantined_path: where it is now (``None`` if moving it failed; it is then still in place).
    """

    def __init__(self, message: str, original_path: Path, quarantined_path: Path | None, reason: str) -> None:
        super().__init__(message, original_path, reason)
        self.original_path = original_path
        self.quarantined_path = quarantined_path


@dataclass(frozen=True)
class FileStamp:
    """What a file looked like when it was read: compare two stamps to detect outside changes.

    Attributes:
        mtime_ns: modification time in nanoseconds.
        size: size in bytes.
        sha256: hex digest of the content.
    """

    mtime_ns: int
    size: int
    sha256: str

    @classmethod
    def of(cls, path: str | os.PathLike[str]) -> FileStamp | None:
        """The stamp of ``path`` now, or ``None`` when it does not exist, cannot be read, or is not a
        regular file (a FIFO would block the read, ``/dev/zero`` never end it).

        At most :data:`~tuneplan.storage.files.MAX_BUNDLE_BYTES` + 1 bytes are hashed; ``size`` is
        the whole size, so a larger file still compares as changed.
        """
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):
                return None
            flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
            with os.fdopen(os.open(path, flags), "rb") as fh:
                info = os.fstat(fh.fileno())
                if not stat.S_ISREG(info.st_mode):
                    return None
                digest = hashlib.sha256()
                left = MAX_BUNDLE_BYTES + 1
                while left > 0:
                    block = fh.read(min(1 << 16, left))
                    if not block:
                        break
                    digest.update(block)
                    left -= len(block)
        except OSError:
            return None
        return cls(info.st_mtime_ns, info.st_size, digest.hexdigest())


@dataclass(frozen=True)
class ScenarioInfo:
    """One entry of :meth:`ScenarioLibrary.list`.

    Attributes:
        name: the scenario's name (the file stem when the file cannot be read).
        path: the file.
        modified: last modification time (UTC).
        schema_version: the schema the file was saved with (``None`` when unreadable).
        ok: whether the file loads.
        problem: why it does not (one line), else ``None``.
    """

    name: str
    path: Path
    modified: datetime
    schema_version: int | None
    ok: bool
    problem: str | None = None


@dataclass(frozen=True)
class TrashEntry:
    """A deleted scenario in the trash.

    Attributes:
        name: the scenario's name when deleted.
        trash_path: the file in the trash (pass it to :meth:`ScenarioLibrary.restore`).
        original_path: where it was (``None`` if the restore metadata is missing).
        deleted_at: when it was deleted (UTC).
    """

    name: str
    trash_path: Path
    original_path: Path | None
    deleted_at: datetime


def slugify(name: str, max_length: int = 40) -> str:
    """A file-name-safe, lower-case ASCII slug of ``name`` (``"scenario"`` when nothing is left)."""
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return slug[:max_length].rstrip("-") or "scenario"


def _utc_stamp() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")


def _mtime(path: Path) -> datetime:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC)


class ScenarioLibrary:
    """Saved scenarios in a folder, with locking, conflict detection, trash, quarantine and autosave.

    Args:
        root: the data folder; ``None`` means :func:`tuneplan.storage.paths.data_dir`
            (``$TUNEPLAN_DATA_DIR`` or the platform's user data folder).
        lock_timeout: seconds to wait for another process's lock before :class:`LockedError`.
    """

    def __init__(self, root: str | os.PathLike[str] | None = None, lock_timeout: float = 2.0) -> None:
        self._root = Path(root) if root is not None else None
        self.lock_timeout = lock_timeout
        self._tidied = False

    # -- locations (created on demand) ---------------------------------------------------------

    @property
    def root(self) -> Path:
        """The data folder."""
        if self._root is None:
            return paths.data_dir()
        self._root.mkdir(parents=True, exist_ok=True)
        return self._root

    @property
    def scenarios_dir(self) -> Path:
        """Where the library's scenario files live (the first use also runs :meth:`tidy`)."""
        folder = paths.scenarios_dir(self.root)
        if not self._tidied:
            self._tidied = True
            self.tidy(folder)
        return folder

    @property
    def trash_dir(self) -> Path:
        """Deleted scenarios and their restore metadata."""
        return paths.trash_dir(self.root)

    @property
    def quarantine_dir(self) -> Path:
        """Unreadable files moved aside."""
        return paths.quarantine_dir(self.root)

    @property
    def settings_path(self) -> Path:
        """The settings JSON (recent list)."""
        return paths.settings_path(self.root)

    @property
    def autosave_path(self) -> Path:
        """The autosave file."""
        return paths.autosave_path(self.root)

    # -- listing -------------------------------------------------------------------------------

    def _scan(self) -> list[tuple[ScenarioInfo, Scenario | None]]:
        entries: list[tuple[ScenarioInfo, Scenario | None]] = []
        for path in self.scenarios_dir.glob("*.json"):
            try:
                modified = _mtime(path)
            except OSError:
                continue  # deleted between glob and stat
            try:
                doc = read_scenario_document(path)
            except NewerSchemaError as exc:
                info = ScenarioInfo(path.stem, path, modified, exc.file_version, False, exc.detail)
                entries.append((info, None))
            except ScenarioFileError as exc:
                if exc.reason == "missing":
                    continue
                entries.append((ScenarioInfo(path.stem, path, modified, None, False, exc.detail), None))
            else:
                info = ScenarioInfo(doc.scenario.name, path, modified, doc.schema_version, True, None)
                entries.append((info, doc.scenario))
        entries.sort(key=lambda e: (e[0].name.casefold(), e[0].path.name))
        return entries

    def list(self) -> list[ScenarioInfo]:
        """Every ``*.json`` in the library, sorted by name; unreadable ones with ``ok=False``.

        Reads files but never moves or changes them.
        """
        return [info for info, _ in self._scan()]

    def search(self, text: str) -> builtins.list[ScenarioInfo]:
        """Entries whose name, model, GPU, method or notes contain every word of ``text``.

        Case-insensitive; an empty ``text`` returns everything. Unreadable files match on name.
        """
        terms = text.casefold().split()
        found: list[ScenarioInfo] = []
        for info, scenario in self._scan():
            parts = [info.name, info.path.name]
            if scenario is not None:
                parts += [
                    scenario.model.name,
                    scenario.model_id,
                    scenario.gpu.name,
                    scenario.gpu.id,
                    scenario.training.method,
                    scenario.pricing.provider,
                    scenario.notes,
                ]
            haystack = "\n".join(parts).casefold()
            if all(term in haystack for term in terms):
                found.append(info)
        return found

    def find(self, name: str) -> builtins.list[ScenarioInfo]:
        """Readable entries whose name equals ``name`` (case-insensitive)."""
        key = name.casefold()
        return [info for info in self.list() if info.ok and info.name.casefold() == key]

    # -- locking -------------------------------------------------------------------------------

    @staticmethod
    def lock_path(path: Path) -> Path:
        """The lock file guarding ``path``: ``<stem>.lock`` next to it."""
        return path.with_name(path.stem + ".lock")

    @contextlib.contextmanager
    def locked(self, path: str | os.PathLike[str]) -> Iterator[None]:
        """Hold ``path``'s lock for the duration of the block.

        An OS lock (``flock`` / ``LockFileEx``, through :class:`filelock.FileLock`) on
        :meth:`lock_path`: exclusive between processes and between library objects of one process
        (not re-entrant), and released by the OS when the holder exits or is killed. The lock file
        stays after release (waiters must share its inode); :meth:`tidy` removes unused ones.

        Raises:
            LockedError: another holder kept it for longer than ``lock_timeout`` seconds.
            ScenarioSaveError: the lock file could not be created (read-only folder, disk full).
        """
        target = Path(path)
        lock = self.lock_path(target)
        file_lock = filelock.FileLock(str(lock), timeout=max(0.0, self.lock_timeout))
        try:
            file_lock.acquire()
        except filelock.Timeout:  # before OSError: Timeout is a TimeoutError
            raise LockedError(
                f"{target}: being saved by another Tuneplan; try again in a moment", target, None
            ) from None
        except OSError as exc:
            raise ScenarioSaveError(
                f"could not save {target}: {describe_os_error(exc)}; nothing was written",
                target,
                exc.errno,
            ) from exc
        try:
            with contextlib.suppress(OSError):
                os.utime(lock)  # "last used": tidy() never removes a lock in recent use
            yield
        finally:
            file_lock.release()

    # -- tidying what killed processes left ----------------------------------------------------

    def tidy(self, folder: Path | None = None) -> builtins.list[Path]:
        """Clear what killed processes left behind; returns the paths removed or completed.

        * interrupted imports (hidden ``.import-*`` folders whose importer is gone): rolled back
          when they had not committed, finished when they had (see :meth:`import_scenarios`);
        * temp files of our atomic saves whose writer died (or older than an hour), in the data
          folder and the scenario folder — never other programs' ``.tmp`` files;
        * ``*.lock`` files there unused for :data:`STALE_LOCK_SECONDS` seconds: each is taken
          without waiting and removed while held, so a lock in use is never touched.

        Runs once per library object on first use of :attr:`scenarios_dir`. Best effort: never
        raises (file-system errors are logged).

        Args:
            folder: the scenario folder (default :attr:`scenarios_dir`).
        """
        done: list[Path] = []
        try:
            self._tidied = True
            root = self.root
            scenarios = folder if folder is not None else paths.scenarios_dir(root)
            for staging in sorted(scenarios.glob(f"{_STAGING_PREFIX}*")):
                if staging.is_dir() and not staging.is_symlink():
                    done += self._recover_import(staging)
            for where in (scenarios, root):
                done += clean_abandoned_temps(where)
                done += self._remove_unused_locks(where)
        except OSError as exc:
            log.warning("could not tidy the library: %s", exc)
        if done:
            log.info("tidied the library: %s", ", ".join(p.name for p in done))
        return done

    @staticmethod
    def _remove_unused_locks(folder: Path) -> builtins.list[Path]:
        removed: list[Path] = []
        now = time.time()
        for lock in folder.glob("*.lock"):
            try:
                info = lock.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or now - info.st_mtime <= STALE_LOCK_SECONDS:
                continue
            file_lock = filelock.FileLock(str(lock), timeout=0)
            try:
                file_lock.acquire()
            except OSError:  # held (filelock.Timeout) or unreadable: leave it
                continue
            try:
                lock.unlink()  # while held: a waiter on this inode sees it unlinked and retries
                removed.append(lock)
            except OSError:
                pass
            finally:
                file_lock.release()
        return removed

    def _recover_import(self, staging: Path) -> builtins.list[Path]:
        """Roll an import whose process died back (not committed) or forward (committed)."""
        lock_file = staging.with_name(staging.name + ".lock")
        file_lock = filelock.FileLock(str(lock_file), timeout=0)
        try:
            file_lock.acquire()
        except OSError:  # its importer is still running (or the lock cannot be taken): leave it
            return []
        done: list[Path] = []
        try:
            if (staging / _COMMITTED).is_file():
                for staged in sorted(staging.glob("*.json")):
                    target = staging.parent / staged.name
                    if not target.exists():
                        move_file(staged, target)
                        done.append(target)
                log.warning("finished an interrupted import: %d scenario(s) added", len(done))
            else:
                log.warning("rolled back an interrupted import in %s", staging)
            shutil.rmtree(staging, ignore_errors=True)
            fsync_dir(staging.parent)
            done.append(staging)
            with contextlib.suppress(OSError):
                lock_file.unlink()
        finally:
            file_lock.release()
        return done

    # -- save / load ---------------------------------------------------------------------------

    def _new_path(self, name: str, avoid: Iterable[str] = ()) -> Path:
        folder = self.scenarios_dir
        slug = slugify(name)
        taken = set(avoid)
        while True:
            candidate = folder / f"{slug}-{secrets.token_hex(3)}.json"
            if candidate.name not in taken and not candidate.exists() and not self.lock_path(candidate).exists():
                return candidate

    def _check_unchanged(self, path: Path, expected: FileStamp | int) -> None:
        current = FileStamp.of(path)
        if current is None:
            raise ConflictError(
                f"{path}: was moved or deleted by another program since it was opened; nothing was "
                "written (use Save As to keep your changes)",
                path,
            )
        if isinstance(expected, FileStamp):
            changed = (current.size, current.sha256) != (expected.size, expected.sha256)
        else:
            changed = current.mtime_ns != expected
        if changed:
            raise ConflictError(
                f"{path}: was changed by another program (or another Tuneplan window) since it was "
                "opened; nothing was written (reload it, or use Save As to keep your changes)",
                path,
            )

    def save(
        self,
        scenario: Scenario,
        path: str | os.PathLike[str] | None = None,
        expected_mtime: FileStamp | int | None = None,
    ) -> Path:
        """Save ``scenario`` atomically and return its file.

        Args:
            scenario: what to save.
            path: the file to overwrite; ``None`` creates a new file in the library.
            expected_mtime: the :class:`FileStamp` from :meth:`load_with_stamp` (content is
                compared) or the ``st_mtime_ns`` seen at load time. When given and the file on disk
                differs, or is gone, nothing is written.

        Raises:
            ConflictError: the file changed on disk since ``expected_mtime``.
            LockedError: another process is saving the same file.
            ScenarioSaveError: disk full, permission denied, read-only (old file intact).
        """
        target = Path(path) if path is not None else self._new_path(scenario.name)
        with self.locked(target):
            if expected_mtime is not None:
                self._check_unchanged(target, expected_mtime)
            write_scenario_file(target, scenario)
        self._remember(target)
        return target

    def save_as(self, scenario: Scenario, new_name: str) -> Path:
        """Save a copy of ``scenario`` named ``new_name`` as a new library file; returns it.

        Raises:
            pydantic.ValidationError: ``new_name`` is empty or longer than 200 characters.
            LockedError, ScenarioSaveError: as :meth:`save`.
        """
        copy = scenario.model_copy(deep=True)
        copy.name = new_name  # validate_assignment checks the name
        return self.save(copy)

    def stamp(self, path: str | os.PathLike[str]) -> FileStamp | None:
        """The file's :class:`FileStamp` now (``None`` if missing)."""
        return FileStamp.of(path)

    def _owns(self, path: Path) -> bool:
        try:
            resolved = path.resolve()
            return resolved.parent == self.scenarios_dir.resolve() or resolved == self.autosave_path.resolve()
        except OSError:
            return False

    def _quarantine(self, path: Path) -> Path:
        return quarantine_file(path, self.quarantine_dir)

    def _load(self, path: Path, remember: bool) -> Scenario:
        try:
            doc = read_scenario_document(path)
        except NewerSchemaError:
            raise
        except ScenarioFileError as exc:
            if exc.reason not in CORRUPT_REASONS or not self._owns(path):
                raise
            try:
                dest: Path | None = self._quarantine(path)
            except OSError as move_exc:
                log.error("could not quarantine %s: %s", path, move_exc)
                dest = None
            where = (
                f"it was moved to {dest}"
                if dest is not None
                else "it could not be moved aside and is still in place"
            )
            raise CorruptScenarioError(
                f"{path.name} could not be read ({exc.detail}); {where}", path, dest, exc.reason
            ) from None
        if remember:
            self._remember(path)
        return doc.scenario

    def load(self, path: str | os.PathLike[str], *, remember: bool = True) -> Scenario:
        """Load a scenario file (migrating older schemas in memory) and add it to the recent list.

        ``remember=False`` leaves the recent list alone (command-line tools, previews).

        Raises:
            CorruptScenarioError: a library file that is not JSON, not a scenario or invalid;
                it was moved to the quarantine folder (named in the message). Files outside the
                library are never moved; they raise the plain :class:`ScenarioFileError`.
            NewerSchemaError: saved by a newer Tuneplan; the file is left where it is, untouched.
            ScenarioFileError: missing or unreadable.
        """
        return self._load(Path(path), remember=remember)

    def load_with_stamp(self, path: str | os.PathLike[str]) -> tuple[Scenario, FileStamp]:
        """:meth:`load`, plus the :class:`FileStamp` of exactly the content loaded (for :meth:`save`).

        Raises:
            ConflictError: the file kept changing while being read.
            and everything :meth:`load` raises.
        """
        p = Path(path)
        for _ in range(3):
            before = FileStamp.of(p)
            scenario = self.load(p)
            after = FileStamp.of(p)
            if before is not None and before == after:
                return scenario, after
        raise ConflictError(f"{p}: kept changing while being read; try again", p)

    # -- rename / duplicate --------------------------------------------------------------------

    def _taken_names(self) -> set[str]:
        return {info.name.casefold() for info in self.list()}

    @staticmethod
    def unique_name(base: str, taken: Iterable[str]) -> str:
        """``base``, or ``base (2)``, ``base (3)``... whichever is not in ``taken`` (case-insensitive)."""
        used = {t.casefold() for t in taken}
        if base.casefold() not in used:
            return base
        match = _SUFFIX_RE.match(base)
        stem = match.group("stem") if match else base
        n = int(match.group("n")) + 1 if match else 2
        while True:
            suffix = f" ({n})"
            candidate = stem[: 200 - len(suffix)] + suffix
            if candidate.casefold() not in used:
                return candidate
            n += 1

    def rename(self, path: str | os.PathLike[str], new_name: str) -> Path:
        """Give the scenario in ``path`` a new name; its file is renamed to match. Returns the new file.

        The new file is written before the old one is removed, so a crash leaves two copies,
        never none.

        Raises:
            pydantic.ValidationError: invalid name.
            LockedError, ScenarioSaveError: as :meth:`save`; and everything :meth:`load` raises.
        """
        old = Path(path)
        with self.locked(old):
            scenario = self._load(old, remember=False)
            scenario.name = new_name
            new = self._new_path(new_name)
            write_scenario_file(new, scenario)
            try:
                os.unlink(old)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(new)
                raise ScenarioSaveError(
                    f"could not rename {old}: {describe_os_error(exc)}; nothing was changed", old, exc.errno
                ) from exc
            fsync_dir(old.parent)
        self._replace_recent(old, new)
        return new

    def duplicate(self, path: str | os.PathLike[str]) -> Path:
        """Copy a scenario under a free name (``Plan`` -> ``Plan (2)``); returns the new file.

        Raises:
            everything :meth:`load` and :meth:`save` raise.
        """
        scenario = self._load(Path(path), remember=False)
        scenario.name = self.unique_name(scenario.name, self._taken_names())
        return self.save(scenario)

    # -- trash ---------------------------------------------------------------------------------

    @staticmethod
    def _trashinfo(trash_path: Path) -> Path:
        return trash_path.with_name(trash_path.name + _TRASHINFO)

    def delete(self, path: str | os.PathLike[str]) -> Path:
        """Move a scenario file into the trash (restorable); returns its path in the trash.

        Works for unreadable files too. Raises:
            ScenarioFileError: the file does not exist (``missing``).
            LockedError: another process is saving it.
            ScenarioSaveError: the move failed; the file is still in place.
        """
        src = Path(path)
        if not src.is_file():
            raise ScenarioFileError(f"{src}: no such file", src, "missing")
        with self.locked(src):
            try:
                name = read_scenario_document(src).scenario.name
            except ScenarioFileError:
                name = src.stem
            dest = self.trash_dir / f"{_utc_stamp()}-{src.name}"
            info = {
                "name": name,
                "original_path": str(src.resolve()),
                "deleted_at": datetime.now(UTC).isoformat(timespec="seconds"),
            }
            sidecar = self._trashinfo(dest)
            try:
                atomic_write_bytes(sidecar, json.dumps(info, ensure_ascii=False).encode("utf-8"))
                move_file(src, dest)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(sidecar)
                raise ScenarioSaveError(
                    f"could not delete {src}: {describe_os_error(exc)}; the file is still in place",
                    src,
                    exc.errno,
                ) from exc
        self._replace_recent(src, None)
        return dest

    def list_trash(self) -> builtins.list[TrashEntry]:
        """Deleted scenarios, newest first."""
        entries: list[TrashEntry] = []
        for trash_path in self.trash_dir.glob("*.json"):
            info: dict[str, Any] = {}
            try:
                raw = loads_untrusted_json(read_regular_file(self._trashinfo(trash_path), MAX_STATE_FILE_BYTES))
                if isinstance(raw, dict):
                    info = raw
            except (OSError, ValueError):  # UnsafeFileError is a ValueError
                pass
            try:
                deleted_at = datetime.fromisoformat(str(info["deleted_at"]))
            except (KeyError, ValueError):
                try:
                    deleted_at = _mtime(trash_path)
                except OSError:
                    continue
            original = info.get("original_path")
            name = info.get("name")
            entries.append(
                TrashEntry(
                    name if isinstance(name, str) else trash_path.stem,
                    trash_path,
                    Path(original) if isinstance(original, str) else None,
                    deleted_at,
                )
            )
        entries.sort(key=lambda e: (e.deleted_at, e.trash_path.name), reverse=True)
        return entries

    def restore(self, trash_path: str | os.PathLike[str]) -> Path:
        """Move a trashed scenario back: to where it was if that is free, else to a new library file.

        Raises:
            ScenarioFileError: not in the trash (``missing``).
            ScenarioSaveError: the move failed; it stays in the trash.
        """
        src = Path(trash_path)
        if not src.is_file():
            raise ScenarioFileError(f"{src}: not in the trash", src, "missing")
        entry = next((e for e in self.list_trash() if e.trash_path == src), None)
        original = entry.original_path if entry is not None else None
        if original is not None and not original.exists() and original.parent.is_dir():
            target = original
        else:
            target = self._new_path(entry.name if entry is not None else src.stem)
        try:
            move_file(src, target)
        except OSError as exc:
            raise ScenarioSaveError(
                f"could not restore {src}: {describe_os_error(exc)}; it is still in the trash", src, exc.errno
            ) from exc
        with contextlib.suppress(OSError):
            os.unlink(self._trashinfo(src))
        return target

    def empty_trash(self) -> int:
        """Delete everything in the trash for good; returns how many scenarios were removed."""
        count = 0
        for item in self.trash_dir.iterdir():
            if not item.is_file():
                continue
            with contextlib.suppress(FileNotFoundError):
                item.unlink()
                if item.suffix == ".json":
                    count += 1
        return count

    # -- recent files (settings.json) ----------------------------------------------------------

    def read_state_file(self, path: str | os.PathLike[str]) -> dict[str, Any]:
        """A small JSON object the app keeps in the data folder (``settings.json``,
        ``autosave.owner.json``); ``{}`` when there is none or it cannot be used. Never raises.

        A file that is not a JSON object — not UTF-8, not JSON, nested too deeply for the parser,
        larger than :data:`MAX_STATE_FILE_BYTES` bytes, or not a regular file (a FIFO, a link to
        ``/dev/zero``: refused without reading) — is moved to quarantine (kept for inspection,
        never overwritten) and ``{}`` returned. A file that cannot be read (permissions) is left
        in place and ``{}`` returned; both are logged.
        """
        p = Path(path)
        try:
            data = loads_untrusted_json(read_regular_file(p, MAX_STATE_FILE_BYTES))
        except FileNotFoundError:
            return {}
        except ValueError as exc:  # UnsafeFileError too
            problem = str(exc) if isinstance(exc, UnsafeFileError) else f"{p}: {exc}"
        except OSError as exc:
            log.warning("cannot read %s: %s", p, describe_os_error(exc))
            return {}
        else:
            if isinstance(data, dict):
                return data
            problem = f"{p}: not a JSON object"
        try:  # keep the broken file for inspection rather than overwrite it
            dest = self._quarantine(p)
            log.warning("%s; moved to %s", problem, dest)
        except OSError as exc:
            log.warning("%s; could not be moved aside: %s", problem, describe_os_error(exc))
        return {}

    def _read_settings(self) -> dict[str, Any]:
        return self.read_state_file(self.settings_path)

    def _update_recent(self, change: Any) -> None:
        try:
            with self.locked(self.settings_path):
                settings = self._read_settings()
                recent = [p for p in settings.get("recent", []) if isinstance(p, str)]
                settings["recent"] = change(recent)[:_MAX_RECENT]
                text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
                atomic_write_bytes(self.settings_path, text.encode("utf-8"))
        except (OSError, ScenarioFileError) as exc:
            # the recent list is a convenience: never fail a save or load because of it
            log.warning("could not update the recent list: %s", exc)

    def _remember(self, path: Path) -> None:
        key = str(path.resolve())
        self._update_recent(lambda recent: [key] + [p for p in recent if p != key])

    def _replace_recent(self, old: Path, new: Path | None) -> None:
        old_key = str(old.resolve())
        new_key = str(new.resolve()) if new is not None else None

        def change(recent: builtins.list[str]) -> builtins.list[str]:
            updated: builtins.list[str] = []
            for item in recent:
                if item == old_key:
                    item = new_key or ""
                if item and item not in updated:
                    updated.append(item)
            return updated

        self._update_recent(change)

    def recent(self, n: int = 10) -> builtins.list[Path]:
        """Up to ``n`` recently saved or opened files that still exist, most recent first."""
        recent = self._read_settings().get("recent", [])
        found: list[Path] = []
        for item in recent if isinstance(recent, list) else []:
            if isinstance(item, str) and Path(item).is_file():
                found.append(Path(item))
                if len(found) >= n:
                    break
        return found

    # -- autosave ------------------------------------------------------------------------------

    def autosave(self, scenario: Scenario) -> Path:
        """Write the working scenario to the autosave file (atomically); returns its path.

        Raises:
            ScenarioSaveError: as :meth:`save` (the previous autosave is intact).
        """
        return write_scenario_file(self.autosave_path, scenario)

    def load_autosave(self) -> Scenario | None:
        """The autosaved scenario, or ``None`` when there is none.

        Raises:
            CorruptScenarioError: the autosave was unreadable and has been moved to quarantine.
            NewerSchemaError: written by a newer Tuneplan (left in place).
        """
        path = self.autosave_path
        if not path.exists():
            return None
        try:
            return self._load(path, remember=False)
        except ScenarioFileError as exc:
            if exc.reason == "missing":  # cleared between exists() and the read
                return None
            raise

    def clear_autosave(self) -> None:
        """Remove the autosave file (after a successful save or a clean exit)."""
        with contextlib.suppress(FileNotFoundError):
            self.autosave_path.unlink()

    # -- sharing -------------------------------------------------------------------------------

    def export_scenarios(
        self,
        paths_: Iterable[str | os.PathLike[str]],
        dest: str | os.PathLike[str],
        bundle: bool | None = None,
    ) -> Path:
        """Write scenarios to ``dest`` for sharing: one scenario file, or a ``tuneplan-scenarios`` bundle.

        Args:
            paths_: library (or other) scenario files.
            dest: the file to write (overwritten atomically).
            bundle: ``None`` writes a single-scenario file for one path and a bundle otherwise.

        Raises:
            ScenarioFileError: nothing to export, or a source cannot be read (see :meth:`load`).
            ScenarioSaveError: ``dest`` could not be written.
        """
        scenarios = [self._load(Path(p), remember=False) for p in paths_]
        target = Path(dest)
        if not scenarios:
            raise ScenarioFileError(f"{target}: nothing to export", target, "missing")
        if bundle is False and len(scenarios) > 1:
            raise ScenarioFileError(
                f"{target}: {len(scenarios)} scenarios need a bundle", target, "wrong-format"
            )
        if len(scenarios) == 1 and not bundle:
            return write_scenario_file(target, scenarios[0])
        return write_scenario_bundle(target, scenarios)

    def import_scenarios(self, file: str | os.PathLike[str]) -> builtins.list[Path]:
        """Validate and add the scenarios of a shared file (single or bundle); returns the new files.

        The file is untrusted: it is fully validated before anything is written. A name already in
        the library gets `` (2)``, `` (3)``... The source file is not changed.

        All or nothing, even if the process is killed: every plan is first written to a hidden
        staging folder ``scenarios/.import-<hex>/`` (held under its own OS lock), then a
        ``COMMITTED`` marker is written, then the plans are renamed into the library. A kill before
        the marker leaves nothing in the library; a kill after it leaves an import that
        :meth:`tidy` (the next library opened on this folder) finishes. Imported plans are not
        added to the recent list.

        Raises:
            NewerSchemaError: the file comes from a newer Tuneplan.
            ScenarioFileError: the file is missing, too large, not JSON or invalid.
            ScenarioSaveError: writing failed; nothing was added to the library.
        """
        scenarios = read_scenarios_file(file)
        taken = self._taken_names()
        folder = self.scenarios_dir
        staging = folder / f"{_STAGING_PREFIX}{secrets.token_hex(6)}"
        staging_lock = filelock.FileLock(str(staging.with_name(staging.name + ".lock")), timeout=0)
        try:
            staging_lock.acquire()
            staging.mkdir()
        except OSError as exc:
            with contextlib.suppress(OSError):
                staging_lock.release()
            raise ScenarioSaveError(
                f"could not import {file}: {describe_os_error(exc)}; nothing was imported", Path(file),
                exc.errno,
            ) from exc
        try:
            return self._stage_and_commit(Path(file), scenarios, taken, staging)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(staging_lock.lock_file)  # while held: see _remove_unused_locks
            staging_lock.release()

    def _stage_and_commit(
        self, source: Path, scenarios: builtins.list[Scenario], taken: set[str], staging: Path
    ) -> builtins.list[Path]:
        targets: list[Path] = []
        try:
            for scenario in scenarios:
                scenario.name = self.unique_name(scenario.name, taken)
                taken.add(scenario.name.casefold())
                target = self._new_path(scenario.name, avoid=(t.name for t in targets))
                write_scenario_file(staging / target.name, scenario)
                targets.append(target)
            # the decision point: from here on the import completes, now or at the next tidy()
            atomic_write_bytes(staging / _COMMITTED, f"{len(targets)}\n".encode("ascii"))
        except BaseException as exc:
            shutil.rmtree(staging, ignore_errors=True)
            cause = exc.__cause__ if isinstance(exc, ScenarioSaveError) else exc
            if isinstance(cause, OSError):
                raise ScenarioSaveError(
                    f"could not import {source}: {describe_os_error(cause)}; nothing was imported", source,
                    cause.errno,
                ) from exc
            raise
        moved: list[Path] = []
        try:
            for target in targets:
                move_file(staging / target.name, target)
                moved.append(target)
        except OSError as exc:
            undone = self._undo_commit(staging, moved)
            outcome = "nothing was imported" if undone else "the rest is added when the library is next opened"
            raise ScenarioSaveError(
                f"could not import {source}: {describe_os_error(exc)}; {outcome}", source, exc.errno
            ) from exc
        shutil.rmtree(staging, ignore_errors=True)
        fsync_dir(staging.parent)
        return targets

    @staticmethod
    def _undo_commit(staging: Path, moved: builtins.list[Path]) -> bool:
        """Put committed plans back into staging, then drop the marker and the folder.

        Killed part-way, the marker is still there and :meth:`tidy` finishes the import instead,
        so the library never keeps only some of the plans. Returns whether it was undone.
        """
        try:
            for target in reversed(moved):
                move_file(target, staging / target.name)
            os.unlink(staging / _COMMITTED)
        except OSError as exc:
            log.error("could not undo a failed import (it is finished at the next start): %s", exc)
            return False
        shutil.rmtree(staging, ignore_errors=True)
        return True
