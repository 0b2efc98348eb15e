"""The scenario library on real files: conflicts, locks, quarantine, trash, recent, autosave, sharing."""

from __future__ import annotations

import errno
import json
import os
import re
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import filelock
import pydantic
import pytest

from tuneplan.catalog import default_scenario, get_gpu, get_model
from tuneplan.core.estimate import estimate
from tuneplan.core.scenario import SCHEMA_VERSION, Scenario
from tuneplan.storage.files import (
    FORMAT,
    NewerSchemaError,
    ScenarioFileError,
    ScenarioSaveError,
    read_scenario_file,
    read_scenarios_file,
    write_scenario_file,
)
from tuneplan.storage.library import (
    ConflictError,
    CorruptScenarioError,
    FileStamp,
    LockedError,
    ScenarioLibrary,
    slugify,
)


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "data"
    monkeypatch.setenv("TUNEPLAN_DATA_DIR", str(root))
    return root


@pytest.fixture
def lib(data: Path) -> ScenarioLibrary:
    return ScenarioLibrary(lock_timeout=0.3)


def named(name: str) -> Scenario:
    s = default_scenario()
    s.name = name
    return s


def names(lib: ScenarioLibrary) -> list[str]:
    return [i.name for i in lib.list()]


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def lock_is_free(lock: Path) -> bool:
    """Whether nobody holds the OS lock on ``lock`` (the file itself stays after release)."""
    probe = filelock.FileLock(str(lock), timeout=0)
    try:
        probe.acquire()
    except filelock.Timeout:
        return False
    probe.release()
    return True


# --- save / list / load -----------------------------------------------------------------------


def test_save_list_load_round_trip(lib: ScenarioLibrary, data: Path) -> None:
    scenario = named("My Plan: 8B on a 4090!")
    path = lib.save(scenario)
    assert path.parent == data / "scenarios"
    assert re.fullmatch(r"my-plan-8b-on-a-4090-[0-9a-f]{6}\.json", path.name)
    [info] = lib.list()
    assert (info.name, info.path, info.schema_version, info.ok, info.problem) == (
        scenario.name,
        path,
        SCHEMA_VERSION,
        True,
        None,
    )
    loaded = lib.load(path)
    assert loaded == scenario
    assert estimate(loaded) == estimate(scenario)


def test_same_name_twice_gives_two_files(lib: ScenarioLibrary) -> None:
    a = lib.save(named("Plan"))
    b = lib.save(named("Plan"))
    assert a != b
    assert names(lib) == ["Plan", "Plan"]


def test_slugify() -> None:
    assert slugify("Ünïcode — Plan / 70B") == "unicode-plan-70b"
    assert slugify("???") == "scenario"
    assert slugify("../../etc/passwd") == "etc-passwd"
    assert len(slugify("x" * 300)) == 40


def test_save_as_validates_the_name(lib: ScenarioLibrary) -> None:
    path = lib.save_as(named("Base"), "Variant")
    assert read_scenario_file(path).name == "Variant"
    with pytest.raises(pydantic.ValidationError):
        lib.save_as(named("Base"), "")
    assert names(lib) == ["Variant"]


# --- modification check -----------------------------------------------------------------------


def test_concurrent_modification_raises_conflict(lib: ScenarioLibrary, data: Path) -> None:
    path = lib.save(named("Shared"))
    mine, stamp = lib.load_with_stamp(path)

    # another running instance saves the same file
    other = ScenarioLibrary(data, lock_timeout=0.3)
    theirs, their_stamp = other.load_with_stamp(path)
    theirs.training.lora_rank = 64
    other.save(theirs, path, expected_mtime=their_stamp)
    their_bytes = path.read_bytes()

    mine.training.lora_rank = 8
    with pytest.raises(ConflictError) as info:
        lib.save(mine, path, expected_mtime=stamp)
    assert "changed by another program" in str(info.value)
    assert "nothing was written" in str(info.value)
    assert path.read_bytes() == their_bytes
    assert read_scenario_file(path).training.lora_rank == 64
    assert lock_is_free(lib.lock_path(path))


def test_conflict_from_another_process(lib: ScenarioLibrary, data: Path) -> None:
    path = lib.save(named("Shared"))
    mine, stamp = lib.load_with_stamp(path)
    script = textwrap.dedent(
        f"""
        from tuneplan.storage.library import ScenarioLibrary
        lib = ScenarioLibrary({str(data)!r})
        s, stamp = lib.load_with_stamp({str(path)!r})
        s.notes = "edited elsewhere"
        lib.save(s, {str(path)!r}, expected_mtime=stamp)
        """
    )
    subprocess.run([sys.executable, "-c", script], check=True, timeout=60)
    with pytest.raises(ConflictError):
        lib.save(mine, path, expected_mtime=stamp)
    assert read_scenario_file(path).notes == "edited elsewhere"


def test_unchanged_file_saves_and_mtime_variant(lib: ScenarioLibrary) -> None:
    path = lib.save(named("Mine"))
    scenario, stamp = lib.load_with_stamp(path)
    scenario.notes = "first edit"
    lib.save(scenario, path, expected_mtime=stamp)
    assert read_scenario_file(path).notes == "first edit"

    # a touch without a content change is not a conflict for a content stamp ...
    scenario, stamp = lib.load_with_stamp(path)
    mtime_ns = path.stat().st_mtime_ns
    os.utime(path, ns=(mtime_ns + 5_000_000_000, mtime_ns + 5_000_000_000))
    scenario.notes = "second edit"
    lib.save(scenario, path, expected_mtime=stamp)
    assert read_scenario_file(path).notes == "second edit"

    # ... but it is for a bare mtime_ns
    mtime_ns = path.stat().st_mtime_ns
    os.utime(path, ns=(mtime_ns + 5_000_000_000, mtime_ns + 5_000_000_000))
    with pytest.raises(ConflictError):
        lib.save(scenario, path, expected_mtime=mtime_ns)


def test_file_deleted_since_load_is_a_conflict(lib: ScenarioLibrary) -> None:
    path = lib.save(named("Gone"))
    scenario, stamp = lib.load_with_stamp(path)
    path.unlink()
    with pytest.raises(ConflictError, match="moved or deleted"):
        lib.save(scenario, path, expected_mtime=stamp)
    assert not path.exists()


def test_file_stamp() -> None:
    assert FileStamp.of("/nonexistent/file.json") is None


# --- locks ------------------------------------------------------------------------------------


def test_leftover_lock_files_do_not_block_a_save(lib: ScenarioLibrary) -> None:
    """Only a held OS lock blocks: a lock file an old Tuneplan left (live pid, other host, empty) does not.

    ``lock_timeout=0`` makes filelock try the OS lock once: a save that had to wait raises
    :class:`LockedError` at once, so the check needs no clock (a timed assertion failed on a
    loaded CI machine).
    """
    lib = ScenarioLibrary(lib.root, lock_timeout=0)
    path = lib.save(named("Locked"))
    lock = lib.lock_path(path)
    assert lock.name == path.stem + ".lock"
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        for content in (
            json.dumps({"pid": holder.pid, "host": socket.gethostname(), "created": time.time()}),
            json.dumps({"pid": 1, "host": "some-other-machine", "created": time.time()}),
            "",
        ):
            lock.write_text(content)
            lib.save(named(f"Locked {len(content)}"), path)  # LockedError if it had to wait
            assert read_scenario_file(path).name == f"Locked {len(content)}"
        held = filelock.FileLock(str(lock), timeout=0)
        held.acquire()  # a held OS lock does block: the same call now refuses
        try:
            with pytest.raises(LockedError):
                lib.save(named("Blocked"), path)
        finally:
            held.release()
        assert read_scenario_file(path).name == "Locked 0"
    finally:
        holder.kill()
        holder.wait(timeout=10)


# --- save errors ------------------------------------------------------------------------------


def test_disk_full_keeps_original_and_leaves_nothing(
    lib: ScenarioLibrary, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = lib.save(named("Full disk"))
    before = path.read_bytes()
    folder_before = files_in(path.parent)

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(ScenarioSaveError) as info:
        lib.save(named("Full disk v2"), path)
    assert str(info.value) == f"could not save {path}: the disk is full; the previous file was left unchanged"
    assert path.read_bytes() == before
    assert files_in(path.parent) == folder_before  # no temp file, no lock file


def test_read_only_library_folder(lib: ScenarioLibrary, monkeypatch: pytest.MonkeyPatch) -> None:
    # As root, chmod 0o500 would not stop us; raise what the kernel raises for a non-root user.
    lib.scenarios_dir  # noqa: B018 - create the folder first
    real_open = os.open

    def read_only(path: str, flags: int, mode: int = 0o777, *, dir_fd: int | None = None) -> int:
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, mode, dir_fd=dir_fd)

    with monkeypatch.context() as patch:  # only os.open: TUNEPLAN_DATA_DIR stays on the test's folder
        patch.setattr(os, "open", read_only)
        with pytest.raises(ScenarioSaveError, match="the file system is read-only; nothing was written"):
            lib.save(named("Nowhere"))
    assert lib.list() == []


# --- broken files -----------------------------------------------------------------------------


def test_corrupt_file_is_listed_then_quarantined_on_load(lib: ScenarioLibrary, data: Path) -> None:
    good = lib.save(named("Good"))
    broken = data / "scenarios" / "broken.json"
    broken.write_text("not json at all", "utf-8")
    infos = {i.path.name: i for i in lib.list()}
    assert infos[good.name].ok
    bad = infos["broken.json"]
    assert (bad.name, bad.ok, bad.schema_version) == ("broken", False, None)
    assert bad.problem == "not valid JSON (line 1, column 1: Expecting value)"
    assert broken.exists()  # listing never moves anything

    with pytest.raises(CorruptScenarioError) as info:
        lib.load(broken)
    moved = info.value.quarantined_path
    assert moved is not None and moved.parent == data / "quarantine"
    assert re.fullmatch(r"\d{8}T\d{12}Z-broken\.json", moved.name)
    assert moved.read_text("utf-8") == "not json at all"
    assert not broken.exists()
    assert str(moved) in str(info.value)
    assert str(info.value) == (
        f"broken.json could not be read (not valid JSON (line 1, column 1: Expecting value)); it was moved to {moved}"
    )
    assert names(lib) == ["Good"]


def test_invalid_values_are_quarantined_too(lib: ScenarioLibrary, data: Path) -> None:
    path = lib.save(named("Soon invalid"))
    doc = json.loads(path.read_text("utf-8"))
    doc["scenario"]["training"]["num_gpus"] = 0
    path.write_text(json.dumps(doc), "utf-8")
    with pytest.raises(CorruptScenarioError, match="invalid value for training.num_gpus") as info:
        lib.load(path)
    assert info.value.reason == "invalid"
    assert files_in(data / "quarantine") == [info.value.quarantined_path.name]  # type: ignore[union-attr]


def test_newer_file_in_library_stays_put(lib: ScenarioLibrary, data: Path) -> None:
    path = lib.scenarios_dir / "future-abc123.json"
    path.write_text(json.dumps({"format": FORMAT, "schema_version": SCHEMA_VERSION + 1, "scenario": {}}), "utf-8")
    before = path.read_bytes()
    [info] = lib.list()
    assert (info.ok, info.schema_version) == (False, SCHEMA_VERSION + 1)
    assert (
        info.problem
        == f"saved by a newer Tuneplan (schema {SCHEMA_VERSION + 1}); this version reads up to {SCHEMA_VERSION} "
        "— the file was left untouched"
    )
    with pytest.raises(NewerSchemaError):
        lib.load(path)
    assert path.read_bytes() == before
    assert not (data / "quarantine").exists() or files_in(data / "quarantine") == []


def test_files_outside_the_library_are_never_moved(lib: ScenarioLibrary, tmp_path: Path) -> None:
    outside = tmp_path / "downloaded.json"
    outside.write_text("{oops", "utf-8")
    with pytest.raises(ScenarioFileError) as info:
        lib.load(outside)
    assert not isinstance(info.value, CorruptScenarioError)
    assert outside.read_text("utf-8") == "{oops"


def test_v0_file_in_library_loads(lib: ScenarioLibrary, data: Path) -> None:
    v0 = default_scenario().model_dump(mode="json")
    del v0["schema_version"]
    v0["name"] = "Old plan"
    v0["training"]["gpus"] = v0["training"].pop("num_gpus") + 1  # 2 GPUs
    v0["training"]["sharding"] = "ddp"
    path = data / "scenarios" / "old.json"
    lib.scenarios_dir  # noqa: B018
    path.write_text(json.dumps(v0), "utf-8")
    [info] = lib.list()
    assert (info.name, info.schema_version, info.ok) == ("Old plan", 0, True)
    assert lib.load(path).training.num_gpus == 2


# --- rename / duplicate -----------------------------------------------------------------------


def test_rename_renames_the_file(lib: ScenarioLibrary) -> None:
    old = lib.save(named("Draft"))
    new = lib.rename(old, "Final plan")
    assert not old.exists()
    assert new.name.startswith("final-plan-")
    assert read_scenario_file(new).name == "Final plan"
    assert names(lib) == ["Final plan"]
    assert lib.recent() == [new.resolve()]


def test_duplicate_numbers_names(lib: ScenarioLibrary) -> None:
    first = lib.save(named("Plan"))
    second = lib.duplicate(first)
    third = lib.duplicate(second)
    assert names(lib) == ["Plan", "Plan (2)", "Plan (3)"]
    assert read_scenario_file(third).name == "Plan (3)"
    assert ScenarioLibrary.unique_name("plan", ["Plan", "PLAN (2)"]) == "plan (3)"


# --- trash ------------------------------------------------------------------------------------


def test_delete_and_restore(lib: ScenarioLibrary, data: Path) -> None:
    keep = lib.save(named("Keep"))
    path = lib.save(named("Oops"))
    content = path.read_bytes()
    trashed = lib.delete(path)
    assert not path.exists()
    assert trashed.parent == data / "trash"
    assert names(lib) == ["Keep"]
    [entry] = lib.list_trash()
    assert (entry.name, entry.trash_path, entry.original_path) == ("Oops", trashed, path.resolve())
    assert lib.recent() == [keep.resolve()]

    restored = lib.restore(trashed)
    assert restored == path.resolve()
    assert restored.read_bytes() == content
    assert lib.list_trash() == []
    assert files_in(data / "trash") == []
    assert names(lib) == ["Keep", "Oops"]


def test_restore_when_original_is_taken(lib: ScenarioLibrary) -> None:
    path = lib.save(named("Twice"))
    trashed = lib.delete(path)
    write_scenario_file(path, named("Squatter"))
    restored = lib.restore(trashed)
    assert restored != path
    assert sorted(names(lib)) == ["Squatter", "Twice"]


def test_delete_broken_file_and_empty_trash(lib: ScenarioLibrary, data: Path) -> None:
    lib.scenarios_dir  # noqa: B018
    broken = data / "scenarios" / "junk.json"
    broken.write_bytes(b"\x00\x01")
    lib.delete(broken)
    lib.delete(lib.save(named("Two")))
    assert sorted(e.name for e in lib.list_trash()) == ["Two", "junk"]
    assert lib.empty_trash() == 2
    assert files_in(data / "trash") == []
    with pytest.raises(ScenarioFileError, match="no such file"):
        lib.delete(broken)


# --- search -----------------------------------------------------------------------------------


def test_search(lib: ScenarioLibrary) -> None:
    base = named("Llama QLoRA baseline")
    notes = named("Customer run")
    notes.notes = "for ACME, budget 200 USD"
    other = named("Big model")
    other.model = get_model("llama-3.1-70b").architecture
    other.gpu = get_gpu("rtx3090")
    for s in (base, notes, other):
        lib.save(s)
    assert [i.name for i in lib.search("acme")] == ["Customer run"]
    assert [i.name for i in lib.search("70B 3090")] == ["Big model"]
    assert [i.name for i in lib.search("QLORA baseline")] == ["Llama QLoRA baseline"]
    assert len(lib.search("")) == 3
    assert lib.search("nothing-matches-this") == []


# --- recent -----------------------------------------------------------------------------------


def test_recent_list(lib: ScenarioLibrary, data: Path) -> None:
    (data).mkdir(parents=True, exist_ok=True)
    (data / "settings.json").write_text(json.dumps({"theme": "dark"}), "utf-8")
    a = lib.save(named("A"))
    b = lib.save(named("B"))
    c = lib.save(named("C"))
    lib.load(a)
    assert lib.recent() == [a.resolve(), c.resolve(), b.resolve()]
    assert lib.recent(1) == [a.resolve()]
    lib.delete(c)
    assert lib.recent() == [a.resolve(), b.resolve()]
    settings = json.loads((data / "settings.json").read_text("utf-8"))
    assert settings["theme"] == "dark"  # other settings survive
    assert not [p for p in data.iterdir() if p.name.endswith(".tmp")]
    assert all(lock_is_free(p) for p in data.glob("*.lock"))


def test_corrupt_settings_are_kept_aside(lib: ScenarioLibrary, data: Path) -> None:
    data.mkdir(parents=True, exist_ok=True)
    (data / "settings.json").write_text("{broken", "utf-8")
    a = lib.save(named("A"))
    assert lib.recent() == [a.resolve()]
    [kept] = list((data / "quarantine").iterdir())
    assert kept.read_text("utf-8") == "{broken"


# --- autosave ---------------------------------------------------------------------------------


def test_autosave(lib: ScenarioLibrary, data: Path) -> None:
    assert lib.load_autosave() is None
    working = named("Unsaved work")
    working.training.seq_len = 8192
    assert lib.autosave(working) == data / "autosave.json"
    assert lib.load_autosave() == working
    lib.clear_autosave()
    assert lib.load_autosave() is None
    lib.clear_autosave()  # twice is fine


def test_corrupt_autosave_is_quarantined(lib: ScenarioLibrary, data: Path) -> None:
    lib.autosave(named("x"))
    (data / "autosave.json").write_text('{"format": "tuneplan-scenario"', "utf-8")
    with pytest.raises(CorruptScenarioError):
        lib.load_autosave()
    assert not (data / "autosave.json").exists()
    assert len(list((data / "quarantine").iterdir())) == 1
    assert lib.load_autosave() is None


# --- export / import --------------------------------------------------------------------------


def test_export_single_and_bundle(lib: ScenarioLibrary, tmp_path: Path) -> None:
    a = lib.save(named("Alpha"))
    b = lib.save(named("Beta"))
    single = lib.export_scenarios([a], tmp_path / "alpha.json")
    assert json.loads(single.read_text("utf-8"))["format"] == "tuneplan-scenario"
    assert read_scenario_file(single) == read_scenario_file(a)
    bundle = lib.export_scenarios([a, b], tmp_path / "both.json")
    doc = json.loads(bundle.read_text("utf-8"))
    assert doc["format"] == "tuneplan-scenarios"
    assert [s["name"] for s in doc["scenarios"]] == ["Alpha", "Beta"]
    assert [s.name for s in read_scenarios_file(bundle)] == ["Alpha", "Beta"]


def test_import_renames_clashes(lib: ScenarioLibrary, tmp_path: Path) -> None:
    a = lib.save(named("Alpha"))
    b = lib.save(named("Beta"))
    bundle = lib.export_scenarios([a, b], tmp_path / "both.json")
    new = lib.import_scenarios(bundle)
    assert [read_scenario_file(p).name for p in new] == ["Alpha (2)", "Beta (2)"]
    assert names(lib) == ["Alpha", "Alpha (2)", "Beta", "Beta (2)"]
    again = lib.import_scenarios(bundle)
    assert [read_scenario_file(p).name for p in again] == ["Alpha (3)", "Beta (3)"]
    assert estimate(read_scenario_file(new[0])) == estimate(read_scenario_file(a))


def _hostile_files(tmp_path: Path) -> dict[str, Path]:
    good = default_scenario().model_dump(mode="json")
    files: dict[str, Path] = {}

    huge = tmp_path / "huge.json"
    with open(huge, "wb") as fh:
        fh.write(b'{"format": "tuneplan-scenarios", "schema_version": 1, "scenarios": [')
        fh.write(b"[" * (10 * 1024 * 1024))
    files["huge"] = huge

    deep = tmp_path / "deep.json"
    deep.write_text(
        '{"format": "tuneplan-scenario", "schema_version": 1, "scenario": '
        + "[" * 50_000
        + "]" * 50_000
        + "}"
    )
    files["deep"] = deep

    wrong = json.loads(json.dumps(good))
    wrong["training"]["micro_batch"] = "1; rm -rf /"
    files["wrong types"] = tmp_path / "wrong.json"
    files["wrong types"].write_text(json.dumps({"format": FORMAT, "schema_version": 1, "scenario": wrong}))

    extra = json.loads(json.dumps(good))
    extra["__import__"] = "os"
    files["extra fields"] = tmp_path / "extra.json"
    files["extra fields"].write_text(json.dumps({"format": FORMAT, "schema_version": 1, "scenario": extra}))

    mixed = json.loads(json.dumps(good))
    mixed["gpu"]["memory_gib"] = -80
    files["one bad in bundle"] = tmp_path / "mixed.json"
    files["one bad in bundle"].write_text(
        json.dumps({"format": "tuneplan-scenarios", "schema_version": 1, "scenarios": [good, mixed]})
    )

    pickle_like = tmp_path / "pickle.json"
    pickle_like.write_bytes(b"\x80\x04\x95cos\nsystem\n")
    files["pickle"] = pickle_like
    return files


@pytest.mark.parametrize(
    ("case", "phrase"),
    [
        ("huge", "too large (10.0 MiB; the limit is 8.0 MiB)"),
        ("deep", "nested too deeply (more than 16 levels)"),
        ("wrong types", "invalid value for training.micro_batch: Input should be a valid integer"),
        ("extra fields", "unknown field __import__"),
        ("one bad in bundle", "scenario 2: invalid value for gpu.memory_gib: Input should be greater than or equal to 0.01"),
        ("pickle", "not a JSON file (not UTF-8 text)"),
    ],
)
def test_hostile_imports_are_rejected_cleanly(
    lib: ScenarioLibrary, tmp_path: Path, case: str, phrase: str
) -> None:
    lib.save(named("Existing"))
    source = _hostile_files(tmp_path)[case]
    before = source.read_bytes()
    with pytest.raises(ScenarioFileError) as info:
        lib.import_scenarios(source)
    assert str(info.value) == f"{source}: {phrase}"
    assert "\n" not in str(info.value)
    assert names(lib) == ["Existing"]  # all or nothing
    assert source.read_bytes() == before  # the source is never touched or moved
