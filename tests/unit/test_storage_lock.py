"""The library lock between real processes: mutual exclusion, release on kill, the lock files it leaves.

The stress test is the issue's reproduction: with the old ``O_EXCL`` lock files a counter incremented
under :meth:`ScenarioLibrary.locked` by 4 processes lost most of its increments.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import filelock
import pytest

from tuneplan.catalog import default_scenario
from tuneplan.storage.library import STALE_LOCK_SECONDS, LockedError, ScenarioLibrary

PROCESSES = 4
INCREMENTS = 300

_COUNTER_CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from tuneplan.storage.library import ScenarioLibrary

    root, counter, go, n = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])
    lib = ScenarioLibrary(root, lock_timeout=60)
    while not go.exists():  # start together, after every interpreter is up
        time.sleep(0.005)
    for _ in range(n):
        with lib.locked(counter):
            value = int(counter.read_text() or "0")
            counter.write_text(str(value + 1))  # read-modify-write: only a real lock keeps it exact
    """
)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(Path(__file__).resolve().parents[2] / "src")
    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_lock_is_mutually_exclusive_between_processes(tmp_path: Path) -> None:
    root = tmp_path / "data"
    root.mkdir()
    counter = root / "counter.json"
    counter.write_text("0")
    go = tmp_path / "go"
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _COUNTER_CHILD, str(root), str(counter), str(go), str(INCREMENTS)],
            env=_env(),
        )
        for _ in range(PROCESSES)
    ]
    try:
        time.sleep(0.5)
        go.touch()
        codes = [child.wait(timeout=60) for child in children]
    finally:
        for child in children:
            child.kill()
    assert codes == [0] * PROCESSES
    assert int(counter.read_text()) == PROCESSES * INCREMENTS


def test_lock_of_a_killed_holder_is_free_at_once(tmp_path: Path) -> None:
    lib = ScenarioLibrary(tmp_path, lock_timeout=0.3)
    path = lib.save(default_scenario())
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from tuneplan.storage.library import ScenarioLibrary\n"
            f"lib = ScenarioLibrary({str(tmp_path)!r})\n"
            f"with lib.locked({str(path)!r}):\n"
            "    print('held', flush=True)\n"
            "    time.sleep(120)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        before = path.read_bytes()
        with pytest.raises(LockedError, match="being saved by another Tuneplan"):
            lib.save(default_scenario(), path)
        assert path.read_bytes() == before  # nothing written while another process holds the lock
        assert lib.lock_path(path).exists()  # a held lock is never removed, even when old
        old = time.time() - STALE_LOCK_SECONDS - 60
        os.utime(lib.lock_path(path), (old, old))
        assert lib.lock_path(path) not in ScenarioLibrary(tmp_path).tidy()
        assert lib.lock_path(path).exists()
    finally:
        holder.kill()  # SIGKILL: no cleanup code runs in the holder
        holder.wait(timeout=10)
    # The OS released the dead holder's lock: a library that never waits (lock_timeout=0) saves at once, where a
    # lock still held would raise LockedError (shown above). No clock: a timed bound fails on a loaded CI machine.
    ScenarioLibrary(lib.root, lock_timeout=0).save(default_scenario(), path)


def test_lock_excludes_a_second_library_object_in_the_same_process(tmp_path: Path) -> None:
    one, two = ScenarioLibrary(tmp_path, lock_timeout=0.2), ScenarioLibrary(tmp_path, lock_timeout=0.2)
    target = tmp_path / "x.json"
    with one.locked(target), pytest.raises(LockedError) as info:
        with two.locked(target):
            pass
    assert info.value.reason == "locked"
    with two.locked(target):  # released by the first
        pass


def test_a_vanished_or_legacy_lock_file_does_not_break_exclusion(tmp_path: Path) -> None:
    """The old protocol took a missing or JSON lock file as free or stale; neither says anything now."""
    lib = ScenarioLibrary(tmp_path, lock_timeout=0.2)
    target = tmp_path / "x.json"
    lock = lib.lock_path(target)
    lock.write_text('{"pid": 1, "host": "elsewhere", "created": 0}')  # an old Tuneplan's leftover
    with lib.locked(target):
        other = filelock.FileLock(str(lock), timeout=0)
        with pytest.raises(filelock.Timeout):
            other.acquire()


def test_tidy_removes_unused_locks_and_abandoned_temps_only(tmp_path: Path) -> None:
    lib = ScenarioLibrary(tmp_path)
    folder = lib.scenarios_dir
    old = time.time() - STALE_LOCK_SECONDS - 60
    unused = folder / "old-plan-abcdef.lock"
    unused.write_text("")
    os.utime(unused, (old, old))
    recent = folder / "recent-plan-abcdef.lock"
    recent.write_text("")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead_pid = int(dead.stdout)
    abandoned = folder / f".plan-abcdef.json.{dead_pid}.k2j4h_x1.tmp"
    abandoned.write_text("half a plan")
    live = folder / f".plan-abcdef.json.{os.getpid()}.a1b2c3d4.tmp"  # a save of ours in progress
    live.write_text("being written")
    stale_live = tmp_path / f".settings.json.{os.getpid()}.q1w2e3r4.tmp"
    stale_live.write_text("{}")
    os.utime(stale_live, (time.time() - 7200, time.time() - 7200))
    foreign = folder / "notes.tmp"  # not ours: never touched
    foreign.write_text("mine")
    settings_lock = tmp_path / "settings.lock"
    settings_lock.write_text("")
    os.utime(settings_lock, (old, old))

    removed = set(ScenarioLibrary(tmp_path).tidy())
    assert removed == {unused, abandoned, stale_live, settings_lock}
    assert recent.exists() and live.exists() and foreign.exists()


def test_first_use_of_the_library_tidies(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    abandoned = folder / f".plan-abcdef.json.{int(dead.stdout)}.zz99yy88.tmp"
    abandoned.write_text("half")
    assert ScenarioLibrary(tmp_path).list() == []
    assert not abandoned.exists()
