"""Low-level file helpers for the storage layer: atomic writes, directory fsync, pid liveness.

Private to :mod:`tuneplan.storage`; no Qt, no pydantic.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sys
import tempfile
from pathlib import Path

__all__ = [
    "atomic_write_bytes",
    "clean_stale_temps",
    "describe_os_error",
    "fsync_dir",
    "move_file",
    "pid_alive",
    "temp_prefix",
]

TEMP_SUFFIX = ".tmp"


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
