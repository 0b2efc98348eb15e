"""Low-level file helpers for the storage layer: atomic writes, directory fsync, pid liveness,
bounded reads of untrusted files.

Private to :mod:`tuneplan.storage`; no Qt, no pydantic.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

__all__ = [
    "STALE_TEMP_SECONDS",
    "UnsafeFileError",
    "atomic_write_bytes",
    "clean_abandoned_temps",
    "clean_stale_temps",
    "describe_os_error",
    "fsync_dir",
    "loads_untrusted_json",
    "move_file",
    "quarantine_file",
    "open_regular_file",
    "pid_alive",
    "read_regular_file",
    "temp_prefix",
]

TEMP_SUFFIX = ".tmp"
#: a temp file of ours older than this (seconds) is abandoned even if its pid is alive (a reused pid)
STALE_TEMP_SECONDS = 3600.0
# what atomic_write_bytes names its temp files: ".<target name>.<pid>.<mkstemp random part>.tmp"
_TEMP_NAME_RE = re.compile(r"^\.(?P<target>.+)\.(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")


class UnsafeFileError(ValueError):
    """A file that was not read because reading it could hang or exhaust memory.

    Attributes:
        path: the file.
        reason: ``"not-regular"`` (a FIFO, device, socket or folder, possibly behind a symlink) or
            ``"too-large"``.
        size: the size in bytes (``None`` when not a regular file).
        limit: the limit in bytes that was applied.
    """

    def __init__(self, path: Path, reason: str, size: int | None, limit: int) -> None:
        what = "not a regular file" if reason == "not-regular" else f"too large ({size} bytes; the limit is {limit})"
        super().__init__(f"{path}: {what}")
        self.path = path
        self.reason = reason
        self.size = size
        self.limit = limit


def open_regular_file(path: Path, limit: int) -> BinaryIO:
    """``path`` (symlinks followed) opened for binary reading if it is a regular file of at most ``limit`` bytes.

    For files read in a stream (a dataset of many lines): the same checks as :func:`read_regular_file`, on the
    path and again on the opened descriptor (``O_NONBLOCK``, so a FIFO swapped in between cannot block the open).
    The caller reads at most what it needs and closes the file.

    Raises:
        UnsafeFileError: not a regular file, or larger than ``limit``.
        FileNotFoundError, PermissionError, OSError: from the file system, unchanged.
    """
    info = os.stat(path)
    if not stat.S_ISREG(info.st_mode):  # a FIFO would block, a device never end
        raise UnsafeFileError(path, "not-regular", None, limit)
    if info.st_size > limit:
        raise UnsafeFileError(path, "too-large", info.st_size, limit)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    fh = os.fdopen(os.open(path, flags), "rb")
    try:
        opened = os.fstat(fh.fileno())
        if not stat.S_ISREG(opened.st_mode):
            raise UnsafeFileError(path, "not-regular", None, limit)
        if opened.st_size > limit:
            raise UnsafeFileError(path, "too-large", opened.st_size, limit)
    except BaseException:
        fh.close()
        raise
    return fh


def read_regular_file(path: Path, limit: int) -> bytes:
    """The bytes of ``path`` (symlinks followed) if it is a regular file of at most ``limit`` bytes.

    A FIFO, device (``/dev/zero``), socket or folder is refused before it is opened for reading,
    and again on the opened descriptor (``O_NONBLOCK``, so a FIFO swapped in between cannot block
    the open). At most ``limit + 1`` bytes are ever read, so a file that grows meanwhile is caught.

    Args:
        path: the file.
        limit: the largest size accepted, in bytes.

    Raises:
        UnsafeFileError: not a regular file, or larger than ``limit``.
        FileNotFoundError, PermissionError, OSError: from the file system, unchanged.
    """
    with open_regular_file(path, limit) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:  # grew since fstat
        raise UnsafeFileError(path, "too-large", len(data), limit)
    return data


def loads_untrusted_json(raw: bytes) -> Any:
    """Parse UTF-8 (optionally BOM-prefixed) JSON from an untrusted file.

    Everything the decoder and parser can raise on hostile input — bad UTF-8, bad JSON, nesting
    deep enough to exhaust the parser's recursion (``[`` x 5,000), input too big for memory — comes
    out as one ``ValueError`` with a short reason, so a caller needs one ``except``.

    Raises:
        ValueError: not UTF-8, not JSON, nested too deeply, or too large to parse.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise ValueError("nested too deeply") from None
    except MemoryError:
        raise ValueError("too large to read") from None
    except ValueError as exc:  # e.g. an integer too long to convert
        raise ValueError(f"not valid JSON ({str(exc).splitlines()[0][:80]})") from None


def temp_prefix(target: Path) -> str:
    """Prefix of the temp files written next to ``target``: hidden, and tagged with our pid.

    ``.<name>.<pid>.`` lets a later save tell an abandoned temp file (its writer is dead) from one
    another process is writing right now.
    """
    return f".{target.name}.{os.getpid()}."


def fsync_dir(folder: Path) -> None:
    """Make a rename inside ``folder`` durable (POSIX). A no-op on Windows and where unsupported."""
    if os.name == "nt":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems (and /proc-like mounts) refuse fsync on directories
    finally:
        os.close(fd)


def pid_alive(pid: int) -> bool:
    """Whether a process with this id exists on this machine (conservative: unknown -> alive)."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # os.kill(pid, 0) would send CTRL_C_EVENT on Windows
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:
            return bool(ctypes.get_last_error() == 5)  # ERROR_ACCESS_DENIED: exists, not ours
        try:
            code = ctypes.c_ulong()
            kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
            return bool(code.value == 259)  # STILL_ACTIVE
        finally:
            kernel32.CloseHandle(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # exists, owned by someone else
    except OSError:
        return True
    return True


def clean_stale_temps(target: Path) -> list[Path]:
    """Remove temp files next to ``target`` left by writers that died mid-save; returns them."""
    removed: list[Path] = []
    try:
        candidates = list(target.parent.glob(f".{target.name}.*{TEMP_SUFFIX}"))
    except OSError:
        return removed
    for temp in candidates:
        middle = temp.name[len(target.name) + 2 : -len(TEMP_SUFFIX)]
        pid_text = middle.split(".", 1)[0]
        if not pid_text.isdigit():
            continue
        pid = int(pid_text)
        if pid == os.getpid() or not pid_alive(pid):
            # our own leftovers are always abandoned: a live write of ours holds no stale name
            with contextlib.suppress(OSError):
                temp.unlink()
                removed.append(temp)
    return removed


def clean_abandoned_temps(folder: Path, now: float | None = None) -> list[Path]:
    """Remove the temp files :func:`atomic_write_bytes` left in ``folder`` when its writer died.

    Only our own naming (``.<name>.<pid>.<random>.tmp``) is touched, never other ``.tmp`` files.
    One is abandoned when its pid is gone, or when it is older than :data:`STALE_TEMP_SECONDS`
    (seconds; a save takes milliseconds, so an old one is left over whatever its pid says).

    Returns:
        The files removed. File-system errors are ignored (the folder is tidied best-effort).
    """
    removed: list[Path] = []
    now = time.time() if now is None else now
    try:
        candidates = [p for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX)]
    except OSError:
        return removed
    for temp in candidates:
        match = _TEMP_NAME_RE.match(temp.name)
        if match is None:
            continue
        try:
            info = temp.lstat()
        except OSError:
            continue
        if not stat.S_ISREG(info.st_mode):
            continue
        pid = int(match.group("pid"))
        if now - info.st_mtime > STALE_TEMP_SECONDS or (pid != os.getpid() and not pid_alive(pid)):
            with contextlib.suppress(OSError):
                temp.unlink()
                removed.append(temp)
    return removed


def atomic_write_bytes(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` so that readers see the old file or the new one, never a mix.

    Temp file in the same folder -> write -> flush -> ``os.fsync`` -> ``os.replace`` -> fsync the
    folder. The temp file is removed on any failure, including ``KeyboardInterrupt``; temps left by
    a killed process are removed by the next save of the same target.

    Raises:
        OSError: from the file system, unchanged (the caller maps it to a user message). The
            previous ``target``, if any, is untouched when this raises.
    """
    folder = target.parent
    clean_stale_temps(target)
    try:
        mode = os.stat(target).st_mode & 0o777
    except OSError:
        mode = 0o644
    fd, temp_name = tempfile.mkstemp(prefix=temp_prefix(target), suffix=TEMP_SUFFIX, dir=folder)
    temp = Path(temp_name)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if hasattr(os, "chmod") and os.name != "nt":
            with contextlib.suppress(OSError):
                os.chmod(temp, mode)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    fsync_dir(folder)


def move_file(source: Path, dest: Path) -> None:
    """Rename ``source`` to ``dest`` (which must not exist), copying across file systems if needed.

    Raises:
        FileExistsError: ``dest`` exists (never overwritten).
        OSError: the move failed; ``source`` is then still in place.
    """
    if dest.exists():
        raise FileExistsError(errno.EEXIST, "destination exists", str(dest))
    try:
        os.rename(source, dest)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        shutil.copy2(source, dest)
        os.unlink(source)
    fsync_dir(dest.parent)
    if source.parent != dest.parent:
        fsync_dir(source.parent)


def quarantine_file(path: Path, folder: Path) -> Path:
    """Move an unreadable file aside into ``folder`` (``<data>/quarantine``,
    :func:`tuneplan.storage.paths.quarantine_dir`) as ``<UTC timestamp to the microsecond>-<name>`` (``-2``, ``-3``
    ... when that exists), never overwriting, so it can be inspected and nothing is lost; returns where it is now.

    Raises:
        OSError: the move failed; the file is then still in place.
    """
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")  # to the microsecond
    dest = folder / f"{stamp}-{path.name}"
    n = 2
    while dest.exists():
        dest = folder / f"{stamp}-{n}-{path.name}"
        n += 1
    move_file(path, dest)
    return dest


def describe_os_error(exc: OSError) -> str:
    """A short human phrase for a save/move failure ("the disk is full", "permission denied")."""
    phrases = {
        errno.ENOSPC: "the disk is full",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
        errno.EROFS: "the file system is read-only",
        errno.ENOENT: "the folder does not exist",
        errno.ENAMETOOLONG: "the file name is too long",
        errno.EISDIR: "it is a folder",
    }
    edquot = getattr(errno, "EDQUOT", None)
    if edquot is not None:
        phrases[edquot] = "the disk quota is exceeded"
    if exc.errno in phrases:
        return phrases[exc.errno]
    return (exc.strerror or str(exc) or type(exc).__name__).rstrip(".").lower()
