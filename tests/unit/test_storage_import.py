"""Import is all or nothing, also when it fails between plans or the process is killed (real SIGKILL)."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import filelock
import pytest

import tuneplan.storage.library as library_mod
from tuneplan.catalog import default_scenario
from tuneplan.core.scenario import Scenario
from tuneplan.storage.files import (
    MAX_BUNDLE_SCENARIOS,
    ScenarioSaveError,
    ScenarioTooLargeError,
    read_scenario_file,
    write_scenario_bundle,
)
from tuneplan.storage.library import ScenarioLibrary

PLANS = 20


def _bundle(path: Path, n: int = PLANS) -> Path:
    plans = []
    for i in range(n):
        s = default_scenario()
        s.name = f"Shared {i:02d}"
        plans.append(s)
    return write_scenario_bundle(path, plans)


def _names(lib: ScenarioLibrary) -> list[str]:
    return [i.name for i in lib.list()]


def _leftovers(lib: ScenarioLibrary) -> list[str]:
    return sorted(p.name for p in lib.scenarios_dir.iterdir() if p.name.startswith(".import-"))


@pytest.mark.parametrize("fail_at", [1, 7, PLANS])
def test_a_failure_between_plans_imports_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int
) -> None:
    lib = ScenarioLibrary(tmp_path / "data")
    lib.save(default_scenario())
    before = _names(lib)
    bundle = _bundle(tmp_path / "bundle.json")
    real = library_mod.write_scenario_file
    calls = {"n": 0}

    def flaky(path: Path, scenario: Scenario) -> Path:
        calls["n"] += 1
        if calls["n"] == fail_at:
            raise ScenarioSaveError(f"could not save {path}: the disk is full; nothing was written", path,
                                    errno.ENOSPC) from OSError(errno.ENOSPC, "No space left on device")
        return real(path, scenario)

    monkeypatch.setattr(library_mod, "write_scenario_file", flaky)
    with pytest.raises(ScenarioSaveError, match="the disk is full; nothing was imported"):
        lib.import_scenarios(bundle)
    assert _names(lib) == before
    assert _leftovers(lib) == []


def test_a_failure_while_committing_imports_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = ScenarioLibrary(tmp_path / "data")
    bundle = _bundle(tmp_path / "bundle.json")
    real = library_mod.move_file
    calls = {"n": 0}

    def flaky(source: Path, dest: Path) -> None:
        calls["n"] += 1
        if calls["n"] == 6:  # five plans are in the library by now
            raise OSError(errno.EIO, "Input/output error")
        real(source, dest)

    monkeypatch.setattr(library_mod, "move_file", flaky)
    with pytest.raises(ScenarioSaveError, match="nothing was imported"):
        lib.import_scenarios(bundle)
    assert _names(lib) == []
    assert _leftovers(lib) == []


_KILLED_IMPORT = textwrap.dedent(
    """
    import os, signal, sys
    import tuneplan.storage.library as library_mod
    from tuneplan.storage.library import ScenarioLibrary

    root, bundle, hook, after = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    real = getattr(library_mod, hook)
    calls = [0]

    def then_die(*args):
        if calls[0] == after:
            os.kill(os.getpid(), signal.SIGKILL)  # no cleanup code runs: as a power cut or kill -9
        calls[0] += 1
        return real(*args)

    setattr(library_mod, hook, then_die)
    ScenarioLibrary(root).import_scenarios(bundle)
    """
)


def _killed_import(root: Path, bundle: Path, hook: str, after: int) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2] / "src") + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", _KILLED_IMPORT, str(root), str(bundle), hook, str(after)], env=env, timeout=60
    )
    assert done.returncode == -signal.SIGKILL


def test_killed_while_staging_leaves_none_of_the_plans(tmp_path: Path) -> None:
    root = tmp_path / "data"
    bundle = _bundle(tmp_path / "bundle.json")
    _killed_import(root, bundle, "write_scenario_file", after=10)  # 10 of 20 plans staged
    lib = ScenarioLibrary(root)
    assert _names(lib) == []
    assert _leftovers(lib) == []  # the next open rolled it back


def test_killed_while_committing_leaves_all_of_the_plans(tmp_path: Path) -> None:
    root = tmp_path / "data"
    bundle = _bundle(tmp_path / "bundle.json")
    _killed_import(root, bundle, "move_file", after=5)  # 5 of 20 plans renamed into the library
    on_disk = [p for p in (root / "scenarios").glob("*.json")]
    assert len(on_disk) == 5  # what the kill left, before anything opened the library again
    lib = ScenarioLibrary(root)
    assert _names(lib) == [f"Shared {i:02d}" for i in range(PLANS)]  # finished by the next open
    assert _leftovers(lib) == []
    assert all(read_scenario_file(i.path).name == i.name for i in lib.list())


def test_a_running_import_is_not_rolled_back_by_another_library(tmp_path: Path) -> None:
    lib = ScenarioLibrary(tmp_path)
    staging = lib.scenarios_dir / ".import-0123456789ab"
    staging.mkdir()
    (staging / "plan-abcdef.json").write_text("{}")
    held = filelock.FileLock(str(staging.with_name(staging.name + ".lock")), timeout=0)
    held.acquire()
    try:
        assert ScenarioLibrary(tmp_path).tidy() == []
        assert (staging / "plan-abcdef.json").exists()
    finally:
        held.release()
    assert staging in ScenarioLibrary(tmp_path).tidy()  # its importer is gone: rolled back
    assert not staging.exists()


def test_a_bundle_that_import_would_refuse_is_not_exported(tmp_path: Path) -> None:
    target = tmp_path / "many.json"
    with pytest.raises(ScenarioTooLargeError, match="too many scenarios"):
        write_scenario_bundle(target, [default_scenario()] * (MAX_BUNDLE_SCENARIOS + 1))
    assert not target.exists()
