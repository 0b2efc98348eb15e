"""Hostile files where Tuneplan keeps its own: nesting deep enough to exhaust the JSON parser, FIFOs
and links to ``/dev/zero``, plans too large to read back. Every reader refuses without hanging,
quarantines what it cannot use, and the app goes on with defaults.

FIFO and ``/dev/zero`` reads run in one child process, each in a thread joined with a timeout and
under a memory limit, so a regression fails the test instead of hanging the suite or the machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import tuneplan.storage.files as files_mod
from tuneplan.catalog import default_scenario
from tuneplan.storage.calibrations import CalibrationBook
from tuneplan.storage.files import ScenarioTooLargeError, dumps_scenario, read_scenario_file
from tuneplan.storage.library import CorruptScenarioError, ScenarioLibrary
from tuneplan.storage.price_book import load_price_book
from tuneplan.storage.settings import load_local_gpu_settings

DEEP = "[" * 5000  # RecursionError in json.loads: what the trial put in each file

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs os.mkfifo and /dev/zero")


def _quarantined(root: Path) -> list[str]:
    folder = root / "quarantine"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


# --- nesting that exhausts the parser ---------------------------------------------------------


def test_deep_settings_json_is_quarantined_and_defaults_used(tmp_path: Path) -> None:
    (tmp_path / "settings.json").write_text(DEEP)
    loaded = load_local_gpu_settings(tmp_path)
    assert loaded.settings.manual is None
    assert loaded.message is not None and "damaged" in loaded.message
    assert [n.endswith("-settings.json") for n in _quarantined(tmp_path)] == [True]

    (tmp_path / "settings.json").write_text(DEEP)
    lib = ScenarioLibrary(tmp_path)
    assert lib.recent() == []  # the library's own reader of the same file
    assert len(_quarantined(tmp_path)) == 2
    lib.save(default_scenario())  # and saving (which updates the recent list) works
    assert len(lib.recent()) == 1


def test_deep_price_book_is_quarantined_and_bundled_prices_used(tmp_path: Path) -> None:
    path = tmp_path / "price_book.json"
    path.write_text(DEEP)
    book = load_price_book(path)
    assert book.edits == [] and book.additions == []
    assert book.notice is not None and "nested too deeply" in book.notice
    assert not path.exists() and len(_quarantined(tmp_path)) == 1


def test_deep_autosave_owner_is_quarantined(tmp_path: Path) -> None:
    lib = ScenarioLibrary(tmp_path)
    owner = tmp_path / "autosave.owner.json"
    owner.write_text(DEEP)
    assert lib.read_state_file(owner) == {}
    assert not owner.exists() and len(_quarantined(tmp_path)) == 1
    owner.write_text('["not", "an", "object"]')
    assert lib.read_state_file(owner) == {}
    owner.write_text('{"pid": 1}')
    assert lib.read_state_file(owner) == {"pid": 1}
    assert lib.read_state_file(tmp_path / "missing.json") == {}


def test_deep_calibrations_give_none_and_are_left_alone(tmp_path: Path) -> None:
    (tmp_path / "calibrations.json").write_text(DEEP)
    assert CalibrationBook(tmp_path).load() == []
    assert (tmp_path / "calibrations.json").read_text() == DEEP  # never overwritten (see CalibrationBook)


def test_deep_plan_and_trashinfo(tmp_path: Path) -> None:
    lib = ScenarioLibrary(tmp_path)
    plan = lib.scenarios_dir / "deep-abcdef.json"
    plan.write_text(DEEP)
    [info] = lib.list()
    assert not info.ok and info.problem is not None and "nested too deeply" in info.problem
    with pytest.raises(CorruptScenarioError):
        lib.load(plan)
    assert not plan.exists()
    trashed = lib.delete(lib.save(default_scenario()))
    trashed.with_name(trashed.name + ".trashinfo").write_text(DEEP)
    [entry] = lib.list_trash()  # the metadata is optional: the entry is still listed
    assert entry.trash_path == trashed and entry.original_path is None


# --- a plan that could be saved but not read back -----------------------------------------------


def test_a_plan_larger_than_the_read_limit_is_refused_at_save(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lib = ScenarioLibrary(tmp_path)
    plan = default_scenario()
    plan.notes = "\x01" * 100_000  # written as \\u0001: 6 bytes a character
    size = len(dumps_scenario(plan))
    monkeypatch.setattr(files_mod, "MAX_FILE_BYTES", size)  # the one limit, for reads and writes
    path = lib.save(plan)
    assert read_scenario_file(path) == plan  # at the limit: saved and read back
    before = path.read_bytes()

    monkeypatch.setattr(files_mod, "MAX_FILE_BYTES", size - 1)
    with pytest.raises(ScenarioTooLargeError) as info:
        lib.save(plan, path)
    assert info.value.reason == "too-large" and info.value.limit == size - 1
    assert "too large" in str(info.value) and "previous file was left unchanged" in str(info.value)
    assert path.read_bytes() == before
    with pytest.raises(ScenarioTooLargeError, match="nothing was written"):
        lib.save(plan)
    assert len(lib.list()) == 1
    assert not [p for p in lib.scenarios_dir.iterdir() if p.name.endswith(".tmp")]


# --- FIFOs and /dev/zero ----------------------------------------------------------------------

_SPECIAL_READS = textwrap.dedent(
    """
    import json, os, resource, sys, threading
    from pathlib import Path

    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # /dev/zero read whole: MemoryError, not swap
    from tuneplan.storage.calibrations import CalibrationBook, read_pilot
    from tuneplan.storage.library import FileStamp, ScenarioLibrary
    from tuneplan.storage.price_book import load_price_book
    from tuneplan.storage.settings import load_local_gpu_settings

    base = Path(sys.argv[1])

    def special(folder, name, kind):
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if kind == "fifo":
            os.mkfifo(path)
        else:
            os.symlink("/dev/zero", path)
        return path

    def case_plan(root, kind):
        lib = ScenarioLibrary(root)
        path = special(lib.scenarios_dir, "plan.json", kind)
        listed = [(i.ok, i.problem) for i in lib.list()]
        try:
            lib.load_with_stamp(path)  # what File > Open does
        except Exception as exc:
            return [type(exc).__name__, exc.reason, listed[0][0], listed[0][1]]
        return ["no error"]

    def case_import(root, kind):
        path = special(root / "elsewhere", "shared.json", kind)
        try:
            ScenarioLibrary(root).import_scenarios(path)
        except Exception as exc:
            return [type(exc).__name__, str(exc).endswith("not a regular file")]
        return ["no error"]

    def case_settings(root, kind):
        special(root, "settings.json", kind)
        loaded = load_local_gpu_settings(root)
        special(root, "settings.json", kind)
        return [loaded.settings.manual is None, loaded.message is not None, ScenarioLibrary(root).recent(),
                len(os.listdir(root / "quarantine"))]

    def case_price_book(root, kind):
        book = load_price_book(special(root, "price_book.json", kind))
        return [book.notice is not None and "not a regular file" in book.notice, len(os.listdir(root / "quarantine"))]

    def case_calibrations(root, kind):
        special(root, "calibrations.json", kind)
        return [CalibrationBook(root).load()]

    def case_owner(root, kind):
        return [ScenarioLibrary(root).read_state_file(special(root, "autosave.owner.json", kind))]

    def case_stamp(root, kind):
        return [FileStamp.of(special(root, "plan.json", kind))]

    def case_pilot(root, kind):
        try:
            read_pilot(special(root, "steps.csv", kind))
        except Exception as exc:
            return [type(exc).__name__, str(exc).endswith("not a regular file")]
        return ["no error"]

    results = {}
    for name, func in sorted(globals().items()):
        if not name.startswith("case_"):
            continue
        for kind in ("fifo", "zero"):
            key = f"{name[5:]}-{kind}"
            box = {}
            def run():
                try:
                    box["result"] = func(base / key, kind)
                except BaseException as exc:
                    box["result"] = ["raised " + type(exc).__name__, str(exc)[:200]]
            worker = threading.Thread(target=run, daemon=True)
            worker.start()
            worker.join(5)
            results[key] = box.get("result", ["hang"])
    print(json.dumps(results))
    sys.stdout.flush()
    os._exit(0)  # a hung reader thread must not keep the process alive
    """
)


@pytest.fixture(scope="module")
def special_reads(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[object]]:
    base = tmp_path_factory.mktemp("special")
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2] / "src") + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run(
        [sys.executable, "-c", _SPECIAL_READS, str(base)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    results: dict[str, list[object]] = json.loads(done.stdout.strip().splitlines()[-1])
    return results


EXPECTED: dict[str, list[object]] = {
    "plan": ["CorruptScenarioError", "wrong-format", False, "not a regular file"],
    "import": ["ScenarioFileError", True],
    "settings": [True, True, [], 2],
    "price_book": [True, 1],
    "calibrations": [[]],
    "owner": [{}],
    "stamp": [None],
    "pilot": ["PilotFileError", True],
}


@posix_only
@pytest.mark.parametrize("kind", ["fifo", "zero"])
@pytest.mark.parametrize("reader", sorted(EXPECTED))
def test_fifo_and_dev_zero_are_refused_without_hanging(
    special_reads: dict[str, list[object]], reader: str, kind: str
) -> None:
    expected = list(EXPECTED[reader])
    if reader == "plan" and kind == "zero":  # a link out of the library is refused, not moved (not ours)
        expected[0] = "ScenarioFileError"
    assert special_reads[f"{reader}-{kind}"] == expected
