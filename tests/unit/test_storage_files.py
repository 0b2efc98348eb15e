"""Scenario files on real disk: round trip, atomic writes, migrations, refusals, hostile input."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tuneplan.catalog import default_scenario
from tuneplan.core.estimate import estimate
from tuneplan.core.scenario import SCHEMA_VERSION, Scenario
from tuneplan.storage import paths
from tuneplan.storage.files import (
    BUNDLE_FORMAT,
    FORMAT,
    MIGRATIONS,
    NewerSchemaError,
    ScenarioFileError,
    ScenarioSaveError,
    read_scenario_document,
    read_scenario_file,
    read_scenarios_file,
    write_scenario_bundle,
    write_scenario_file,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    monkeypatch.setenv("TUNEPLAN_DATA_DIR", str(data))
    return data


@pytest.fixture
def scenario() -> Scenario:
    return default_scenario()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# --- paths ------------------------------------------------------------------------------------


def test_paths_follow_the_override_and_are_created(_data_dir: Path) -> None:
    assert paths.data_dir() == _data_dir and _data_dir.is_dir()
    assert paths.scenarios_dir() == _data_dir / "scenarios" and paths.scenarios_dir().is_dir()
    assert paths.trash_dir() == _data_dir / "trash" and paths.trash_dir().is_dir()
    assert paths.log_dir() == _data_dir / "logs" and paths.log_dir().is_dir()
    assert paths.settings_path() == _data_dir / "settings.json"
    assert paths.autosave_path() == _data_dir / "autosave.json"


def test_paths_without_override_use_platformdirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("TUNEPLAN_DATA_DIR")
    monkeypatch.setattr(
        paths.platformdirs, "user_data_dir", lambda app, author: str(tmp_path / f"d-{app}-{author}")
    )
    monkeypatch.setattr(paths.platformdirs, "user_log_dir", lambda app, author: str(tmp_path / f"l-{app}"))
    assert paths.data_dir() == tmp_path / "d-Tuneplan-Tuneplan"
    assert paths.log_dir() == tmp_path / "l-Tuneplan"


# --- round trip -------------------------------------------------------------------------------


def test_round_trip_gives_identical_numbers(tmp_path: Path, scenario: Scenario) -> None:
    edited = scenario.model_copy(deep=True)
    edited.name = "Ünïcode plan — 8B"
    edited.training.lora_rank = 64
    edited.training.seq_len = 4096
    edited.dataset.total_tokens = 123_456_789.5
    edited.pricing.price_per_gpu_hour = 0.1 + 0.2  # 0.30000000000000004 must survive exactly
    target = tmp_path / "plan.json"
    write_scenario_file(target, edited)
    loaded = read_scenario_file(target)
    assert loaded == edited
    assert loaded.pricing.price_per_gpu_hour == 0.1 + 0.2
    assert estimate(loaded) == estimate(edited)
    assert estimate(loaded).memory.total_bytes == estimate(edited).memory.total_bytes


def test_envelope_fields(tmp_path: Path, scenario: Scenario) -> None:
    target = write_scenario_file(tmp_path / "plan.json", scenario)
    doc = json.loads(target.read_text("utf-8"))
    assert doc["format"] == "tuneplan-scenario"
    assert doc["schema_version"] == SCHEMA_VERSION == 10
    assert doc["app_version"] == "0.1.0"
    assert doc["saved_at"].endswith("+00:00")
    assert doc["scenario"]["name"] == scenario.name
    assert doc["scenario"]["training"]["num_gpus"] == 1
    assert read_scenario_document(target).migrated is False


# --- atomic write -----------------------------------------------------------------------------


def test_crash_at_replace_keeps_old_file_and_leaves_no_temp(
    tmp_path: Path, scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = write_scenario_file(tmp_path / "plan.json", scenario)
    before = target.read_bytes()
    changed = scenario.model_copy(update={"name": "changed"})

    def boom(src: object, dst: object) -> None:
        raise OSError(errno.EIO, "simulated crash")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(ScenarioSaveError) as info:
        write_scenario_file(target, changed)
    assert "previous file was left unchanged" in str(info.value)
    assert target.read_bytes() == before
    assert _leftovers(tmp_path) == []


def test_killed_between_fsync_and_replace(tmp_path: Path, scenario: Scenario) -> None:
    """A process killed after fsync but before os.replace: old file intact; next save cleans up."""
    target = write_scenario_file(tmp_path / "plan.json", scenario)
    before = target.read_bytes()
    child = textwrap.dedent(
        f"""
        import os, sys, time
        from tuneplan.catalog import default_scenario
        from tuneplan.storage.files import write_scenario_file
        def stall(src, dst):
            print("READY", flush=True)
            time.sleep(60)
        os.replace = stall
        write_scenario_file({str(target)!r}, default_scenario().model_copy(update={{"name": "half-written"}}))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "READY"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    temps = _leftovers(tmp_path)
    assert len(temps) == 1 and temps[0].startswith(f".plan.json.{proc.pid}.")
    assert target.read_bytes() == before
    assert read_scenario_file(target).name == scenario.name
    write_scenario_file(target, scenario.model_copy(update={"name": "next save"}))
    assert _leftovers(tmp_path) == []
    assert read_scenario_file(target).name == "next save"


@pytest.mark.parametrize(
    ("code", "phrase"),
    [
        (errno.ENOSPC, "the disk is full"),
        (errno.EACCES, "permission denied"),
        (errno.EROFS, "the file system is read-only"),
    ],
)
def test_save_errors_are_clear_and_keep_the_original(
    tmp_path: Path, scenario: Scenario, monkeypatch: pytest.MonkeyPatch, code: int, phrase: str
) -> None:
    # Tests run as root, which ignores chmod 0o500, so the OS error is injected where the
    # kernel would raise it: on the write to the temp file.
    target = write_scenario_file(tmp_path / "plan.json", scenario)
    before = target.read_bytes()
    real_fsync = os.fsync

    def failing_fsync(fd: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(ScenarioSaveError) as info:
        write_scenario_file(target, scenario.model_copy(update={"name": "new"}))
    monkeypatch.setattr(os, "fsync", real_fsync)
    message = str(info.value)
    assert message == f"could not save {target}: {phrase}; the previous file was left unchanged"
    assert "\n" not in message
    assert info.value.errno == code
    assert target.read_bytes() == before
    assert _leftovers(tmp_path) == []


def test_save_into_unwritable_folder_writes_nothing(
    tmp_path: Path, scenario: Scenario, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tempfile

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(ScenarioSaveError, match="permission denied; nothing was written"):
        write_scenario_file(tmp_path / "new.json", scenario)
    assert list(tmp_path.iterdir()) == []


# --- schema versions --------------------------------------------------------------------------


def test_newer_schema_is_refused_and_file_untouched(tmp_path: Path, scenario: Scenario) -> None:
    target = tmp_path / "future.json"
    doc = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION + 1,
        "app_version": "9.0",
        "saved_at": "2030-01-01T00:00:00+00:00",
        "scenario": {"whatever": "shape a newer schema has", "gpus": [1, 2]},
        "new_top_level": True,
    }
    target.write_text(json.dumps(doc), "utf-8")
    before = target.read_bytes()
    stat_before = target.stat()
    with pytest.raises(NewerSchemaError) as info:
        read_scenario_file(target)
    assert str(info.value) == (
        f"{target}: saved by a newer Tuneplan (schema {SCHEMA_VERSION + 1}); this version reads up to {SCHEMA_VERSION} "
        "— the file was left untouched"
    )
    assert info.value.file_version == SCHEMA_VERSION + 1
    assert isinstance(info.value, ScenarioFileError)
    assert target.read_bytes() == before
    assert target.stat().st_mtime_ns == stat_before.st_mtime_ns


def test_v0_file_is_migrated(tmp_path: Path, scenario: Scenario) -> None:
    # Schema 0: no envelope, "gpus" instead of "num_gpus".
    data = scenario.model_dump(mode="json")
    data.pop("schema_version")
    data["training"]["gpus"] = data["training"].pop("num_gpus")
    data["training"]["gpus"] = 4
    data["training"]["sharding"] = "ddp"
    target = tmp_path / "old.json"
    target.write_text(json.dumps(data), "utf-8")
    before = target.read_bytes()
    doc = read_scenario_document(target)
    assert doc.schema_version == 0 and doc.migrated
    assert doc.scenario.training.num_gpus == 4
    assert doc.scenario.schema_version == SCHEMA_VERSION
    expected = scenario.model_copy(deep=True)
    expected.training.num_gpus = 4
    expected.training.sharding = "ddp"
    assert doc.scenario == expected
    assert target.read_bytes() == before  # migration happens in memory only
    assert 0 in MIGRATIONS


def test_v1_file_is_migrated_to_v2(tmp_path: Path, scenario: Scenario) -> None:
    # Schema 1 had no training.kbit_fp32_upcast; such plans were estimated with PEFT's fp32 upcast.
    data = scenario.model_dump(mode="json")
    data["schema_version"] = 1
    del data["training"]["kbit_fp32_upcast"]
    target = tmp_path / "v1.json"
    target.write_text(json.dumps({"format": "tuneplan-scenario", "schema_version": 1, "scenario": data}), "utf-8")
    doc = read_scenario_document(target)
    assert doc.schema_version == 1 and doc.migrated
    assert doc.scenario.training.kbit_fp32_upcast is True  # not the current default (false)
    expected = scenario.model_copy(deep=True)
    expected.training.kbit_fp32_upcast = True
    assert doc.scenario == expected
    assert 1 in MIGRATIONS


def test_v2_file_is_migrated_to_v3(tmp_path: Path, scenario: Scenario) -> None:
    # Schema 2 had no training.adapter_precision; such plans were estimated with PEFT's FP32 adapters under autocast.
    scenario = scenario.model_copy(deep=True)
    scenario.training.method = "lora"
    data = scenario.model_dump(mode="json")
    data["schema_version"] = 2
    del data["training"]["adapter_precision"]
    target = tmp_path / "v2.json"
    target.write_text(json.dumps({"format": "tuneplan-scenario", "schema_version": 2, "scenario": data}), "utf-8")
    doc = read_scenario_document(target)
    assert doc.schema_version == 2 and doc.migrated
    assert doc.scenario.training.adapter_precision == "fp32-autocast"
    assert doc.scenario == scenario
    # the step itself writes the value schema-2 plans were estimated with (the field's default could hide a no-op)
    assert MIGRATIONS[2]({"training": {}}) == {"training": {"adapter_precision": "fp32-autocast", "torch_compile": False}}
    assert MIGRATIONS[2]({"training": {"adapter_precision": "fp32"}})["training"]["adapter_precision"] == "fp32"


def test_v3_file_is_migrated_to_v4(tmp_path: Path, scenario: Scenario) -> None:
    # Schema 3 had no training.grad_sync / fsdp_wrap; FSDP plans were estimated with sharded accumulation and every
    # unit resharded after use (as "separate-embeddings" wrapping gives).
    scenario = scenario.model_copy(deep=True)
    scenario.training.method = "lora"
    scenario.training.num_gpus = 4
    scenario.training.sharding = "fsdp"
    scenario.training.grad_accumulation = 8
    data = scenario.model_dump(mode="json")
    del data["training"]["grad_sync"], data["training"]["fsdp_wrap"]
    target = tmp_path / "v3.json"
    target.write_text(json.dumps({"format": "tuneplan-scenario", "schema_version": 3, "scenario": data}), "utf-8")
    doc = read_scenario_document(target)
    assert doc.schema_version == 3 and doc.migrated
    assert doc.scenario.training.grad_sync == "micro-batch"  # not the current default ("step")
    assert doc.scenario.training.fsdp_wrap == "separate-embeddings"  # not the current default ("layers")
    assert MIGRATIONS[3]({"training": {}}) == {"training": {"grad_sync": "micro-batch",
                                                            "fsdp_wrap": "separate-embeddings"}}
    assert MIGRATIONS[3]({"training": {"grad_sync": "step"}})["training"]["grad_sync"] == "step"


def test_bare_v1_dump_is_accepted(tmp_path: Path, scenario: Scenario) -> None:
    target = tmp_path / "bare.json"
    target.write_text(scenario.model_dump_json(), "utf-8")
    assert read_scenario_file(target) == scenario


# --- errors: one line, naming the problem -----------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioFileError) as info:
        read_scenario_file(tmp_path / "nope.json")
    assert str(info.value) == f"{tmp_path / 'nope.json'}: no such file"
    assert info.value.reason == "missing"


def test_unreadable_file(tmp_path: Path, scenario: Scenario, monkeypatch: pytest.MonkeyPatch) -> None:
    target = write_scenario_file(tmp_path / "plan.json", scenario)
    real_open = os.open

    def guarded_open(file: object, *args: object, **kwargs: object) -> int:
        if str(file) == str(target):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", guarded_open)
    with pytest.raises(ScenarioFileError) as info:
        read_scenario_file(target)
    assert str(info.value) == f"{target}: cannot read the file (permission denied)"
    assert info.value.reason == "unreadable"


def test_not_json_reports_line_and_column(tmp_path: Path) -> None:
    target = tmp_path / "bad.json"
    target.write_text(
        '{\n  "format": "tuneplan-scenario",\n  "schema_version": 1\n  "scenario": {}\n}\n', "utf-8"
    )
    with pytest.raises(ScenarioFileError) as info:
        read_scenario_file(target)
    # the missing comma is noticed at the start of line 4 (column 3, after two spaces)
    assert str(info.value) == f"{target}: not valid JSON (line 4, column 3: Expecting ',' delimiter)"
    assert info.value.reason == "not-json"


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("[1, 2]", "not a Tuneplan scenario file (expected a JSON object, found list)"),
        ('{"hello": 1}', 'not a Tuneplan scenario file (no "format": "tuneplan-scenario")'),
        (
            '{"format": "vorta-profile", "schema_version": 1}',
            "not a Tuneplan scenario file (format 'vorta-profile')",
        ),
        (
            '{"format": "tuneplan-scenario", "schema_version": "1", "scenario": {}}',
            "schema_version must be a whole number >= 0",
        ),
        (
            '{"format": "tuneplan-scenarios", "schema_version": 1, "scenarios": []}',
            "a bundle of several scenarios; import it with 'tuneplan scenarios import'",
        ),
        ("", "the file is empty"),
    ],
)
def test_wrong_format(tmp_path: Path, content: str, expected: str) -> None:
    target = tmp_path / "x.json"
    target.write_text(content, "utf-8")
    with pytest.raises(ScenarioFileError) as info:
        read_scenario_file(target)
    assert str(info.value) == f"{target}: {expected}"


def _doc(scenario: Scenario) -> dict[str, object]:
    return {"format": FORMAT, "schema_version": 1, "scenario": scenario.model_dump(mode="json")}


def test_invalid_value_names_the_field(tmp_path: Path, scenario: Scenario) -> None:
    doc = _doc(scenario)
    doc["scenario"]["training"]["seq_len"] = 0  # type: ignore[index]
    target = tmp_path / "x.json"
    target.write_text(json.dumps(doc), "utf-8")
    with pytest.raises(ScenarioFileError) as info:
        read_scenario_file(target)
    assert (
        str(info.value)
        == f"{target}: invalid value for training.seq_len: Input should be greater than or equal to 1"
    )
    assert info.value.reason == "invalid"


# --- hostile input ----------------------------------------------------------------------------


def test_ten_megabyte_file_is_rejected_without_reading_it(tmp_path: Path) -> None:
    target = tmp_path / "huge.json"
    with open(target, "wb") as fh:
        fh.write(b'{"format": "tuneplan-scenario", "pad": "' + b"x" * (10 * 1024 * 1024) + b'"}')
    with pytest.raises(ScenarioFileError) as info:
        read_scenario_file(target)
    assert str(info.value) == f"{target}: too large (10.0 MiB; the limit is 1.0 MiB)"
    assert info.value.reason == "too-large"
    with pytest.raises(ScenarioFileError, match="too large"):
        read_scenarios_file(target)


@pytest.mark.parametrize("depth", [17, 100_000])
def test_deep_nesting_is_rejected(tmp_path: Path, depth: int) -> None:
    target = tmp_path / "deep.json"
    target.write_text("[" * depth + "]" * depth, "utf-8")
    with pytest.raises(ScenarioFileError) as info:
        read_scenario_file(target)
    assert str(info.value) == f"{target}: nested too deeply (more than 16 levels)"


def test_deep_nesting_inside_a_field(tmp_path: Path, scenario: Scenario) -> None:
    doc = _doc(scenario)
    doc["scenario"]["notes"] = json.loads("[" * 20 + "]" * 20)  # type: ignore[index]
    target = tmp_path / "x.json"
    target.write_text(json.dumps(doc), "utf-8")
    with pytest.raises(ScenarioFileError, match="nested too deeply"):
        read_scenario_file(target)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda d: d["training"].__setitem__("num_gpus", "4"),
            "invalid value for training.num_gpus: Input should be a valid integer",
        ),
        (
            lambda d: d["training"].__setitem__("grad_checkpointing", 1),
            "invalid value for training.grad_checkpointing: Input should be a valid boolean",
        ),
        (
            lambda d: d["training"].__setitem__("method", "magic"),
            "invalid value for training.method: Input should be 'full', 'lora' or 'qlora'",
        ),
        (lambda d: d.__setitem__("name", ["a"]), "invalid value for name: Input should be a valid string"),
        (lambda d: d["training"].__setitem__("rm_rf", True), "unknown field training.rm_rf"),
        (lambda d: d.__setitem__("__class__", "os.system"), "unknown field __class__"),
        (lambda d: d.pop("gpu"), "missing field gpu"),
    ],
)
def test_wrong_types_and_extra_fields_are_rejected(
    tmp_path: Path, scenario: Scenario, edit: Callable[[dict[str, Any]], object], expected: str
) -> None:
    doc = _doc(scenario)
    edit(doc["scenario"])
    target = tmp_path / "x.json"
    target.write_text(json.dumps(doc), "utf-8")
    with pytest.raises(ScenarioFileError) as info:
        read_scenario_file(target)
    assert str(info.value) == f"{target}: {expected}"


@pytest.mark.parametrize(
    ("literal", "phrase"),
    [
        ("NaN", "NaN is not allowed"),
        ("Infinity", "Infinity is not allowed"),
        ("1e999", "number 1e999 is out of range"),
        ("1" * 5000, "a 5000-digit number is out of range"),
    ],
)
def test_non_finite_and_huge_numbers(tmp_path: Path, literal: str, phrase: str) -> None:
    target = tmp_path / "x.json"
    target.write_text(
        '{"format": "tuneplan-scenario", "schema_version": 1, "scenario": {"x": ' + literal + "}}", "utf-8"
    )
    with pytest.raises(ScenarioFileError) as info:
        read_scenario_file(target)
    assert str(info.value) == f"{target}: not valid JSON ({phrase})"


def test_duplicate_keys_are_rejected(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    target.write_text('{"format": "tuneplan-scenario", "format": "tuneplan-scenario"}', "utf-8")
    with pytest.raises(ScenarioFileError, match="duplicate key 'format'"):
        read_scenario_file(target)


def test_binary_garbage(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    target.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(ScenarioFileError, match=r"not a JSON file \(not UTF-8 text\)"):
        read_scenario_file(target)


# --- bundles ----------------------------------------------------------------------------------


def test_bundle_round_trip_and_bad_member(tmp_path: Path, scenario: Scenario) -> None:
    second = scenario.model_copy(update={"name": "second"})
    bundle = write_scenario_bundle(tmp_path / "b.json", [scenario, second])
    assert json.loads(bundle.read_text("utf-8"))["format"] == BUNDLE_FORMAT
    assert read_scenarios_file(bundle) == [scenario, second]
    doc = json.loads(bundle.read_text("utf-8"))
    doc["scenarios"][1]["training"]["micro_batch"] = -1
    bundle.write_text(json.dumps(doc), "utf-8")
    with pytest.raises(ScenarioFileError) as info:
        read_scenarios_file(bundle)
    assert str(info.value) == (
        f"{bundle}: scenario 2: invalid value for training.micro_batch: Input should be greater than or equal to 1"
    )


def test_cli_estimate_reads_the_file(tmp_path: Path, scenario: Scenario) -> None:
    target = write_scenario_file(tmp_path / "plan.json", scenario)
    proc = subprocess.run(
        [sys.executable, "-m", "tuneplan", "estimate", "--scenario", str(target), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert rows[0]["memory"]["total_bytes"] == estimate(scenario).memory.total_bytes
    assert rows[0]["scenario"] == scenario.name


def test_storage_imports_no_qt() -> None:
    code = (
        "import sys, tuneplan.storage, tuneplan.storage.cli, tuneplan.storage.library, tuneplan.storage.paths\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'PySide6', 'PyQt6', 'pyqtgraph', 'shiboken6'})\n"
        "print(bad)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "[]"


def test_v5_file_is_migrated_to_v6_unchanged(tmp_path: Path, scenario: Scenario) -> None:
    # Schema 6 only adds an allowed value (training.attention "flash1"): a schema-5 plan reads back as it was, and
    # is marked migrated so that saving writes schema 6
    data = scenario.model_dump(mode="json")
    data["schema_version"] = 5
    target = tmp_path / "v5.json"
    target.write_text(json.dumps({"format": "tuneplan-scenario", "schema_version": 5, "scenario": data}), "utf-8")
    doc = read_scenario_document(target)
    assert doc.schema_version == 5 and doc.migrated
    assert doc.scenario == scenario
    assert MIGRATIONS[5]({"training": {"attention": "sdpa"}}) == {"training": {"attention": "sdpa"}}


def test_a_flash1_plan_round_trips(tmp_path: Path, scenario: Scenario) -> None:
    plan = scenario.model_copy(deep=True)
    plan.training.attention = "flash1"
    target = tmp_path / "fa1.json"
    write_scenario_file(target, plan)
    assert read_scenario_document(target).scenario.training.attention == "flash1"


def test_v6_file_is_migrated_to_v7_with_deepspeeds_defaults(tmp_path: Path, scenario: Scenario) -> None:
    # Schema 7 adds the DeepSpeed buffer sizes; schema-6 plans were estimated with DeepSpeed's defaults
    data = scenario.model_dump(mode="json")
    for key in ("deepspeed_reduce_bucket", "deepspeed_prefetch_bucket", "deepspeed_sub_group",
                "deepspeed_max_reuse_distance", "deepspeed_auto_buckets"):
        del data["training"][key]
    data["schema_version"] = 6
    target = tmp_path / "v6.json"
    target.write_text(json.dumps({"format": "tuneplan-scenario", "schema_version": 6, "scenario": data}), "utf-8")
    doc = read_scenario_document(target)
    assert doc.schema_version == 6 and doc.migrated and doc.scenario == scenario
    # the step writes the values (the fields' defaults could hide a no-op)
    assert MIGRATIONS[6]({"training": {}}) == {"training": {
        "deepspeed_reduce_bucket": None, "deepspeed_prefetch_bucket": None, "deepspeed_sub_group": None,
        "deepspeed_max_reuse_distance": None, "deepspeed_auto_buckets": False}}


def test_v7_file_is_migrated_to_v8_as_supervised_fine_tuning(tmp_path: Path, scenario: Scenario) -> None:
    # Schema 8 adds the workload (issue #18); schema-7 plans were SFT without a reference model
    data = scenario.model_dump(mode="json")
    del data["training"]["workload"]
    del data["training"]["reference_model"]
    data["schema_version"] = 7
    target = tmp_path / "v7.json"
    target.write_text(json.dumps({"format": "tuneplan-scenario", "schema_version": 7, "scenario": data}), "utf-8")
    doc = read_scenario_document(target)
    assert doc.schema_version == 7 and doc.migrated and doc.scenario == scenario
    assert doc.scenario.training.workload == "sft" and doc.scenario.training.reference_model is None
    # the step writes the values (the fields' defaults could hide a no-op)
    assert MIGRATIONS[7]({"training": {}}) == {"training": {"workload": "sft", "reference_model": None}}


def test_v8_file_is_migrated_to_v9_with_trls_grpo_defaults(tmp_path: Path, scenario: Scenario) -> None:
    # Schema 9 adds GRPO's fields (issue #18) at TRL's GRPOConfig defaults; no schema-8 workload reads them
    data = scenario.model_dump(mode="json")
    for key in ("num_generations", "completion_tokens", "kl_beta", "generation_engine", "vllm_memory_share",
                "vllm_sleep", "vllm_server_gpus"):
        del data["training"][key]
    data["schema_version"] = 8
    target = tmp_path / "v8.json"
    target.write_text(json.dumps({"format": "tuneplan-scenario", "schema_version": 8, "scenario": data}), "utf-8")
    doc = read_scenario_document(target)
    assert doc.schema_version == 8 and doc.migrated and doc.scenario == scenario
    assert MIGRATIONS[8]({"training": {}}) == {"training": {
        "num_generations": 8, "completion_tokens": 512, "kl_beta": 0.0, "generation_engine": "transformers",
        "vllm_memory_share": 0.3, "vllm_sleep": False, "vllm_server_gpus": 1}}


def test_v9_file_is_migrated_to_v10_with_no_length_spread(tmp_path: Path, scenario: Scenario) -> None:
    # Schema 10 adds dataset.rank_padding_efficiency (the slowest GPU's padded row, issue #16); schema-9 plans knew
    # no spread: 1.0, which leaves their time estimate as it was
    data = scenario.model_dump(mode="json")
    del data["dataset"]["rank_padding_efficiency"]
    target = tmp_path / "v9.json"
    target.write_text(json.dumps({"format": "tuneplan-scenario", "schema_version": 9, "scenario": data}), "utf-8")
    doc = read_scenario_document(target)
    assert doc.schema_version == 9 and doc.migrated and doc.scenario == scenario
    assert MIGRATIONS[9]({"dataset": {}}) == {"dataset": {"rank_padding_efficiency": 1.0}}
    assert MIGRATIONS[9]({"dataset": {"rank_padding_efficiency": 0.5}}) == {"dataset": {"rank_padding_efficiency": 0.5}}


def test_a_dpo_plan_round_trips(tmp_path: Path, scenario: Scenario) -> None:
    plan = scenario.model_copy(deep=True)
    plan.training.workload = "dpo"
    plan.training.reference_model = "precomputed"
    target = tmp_path / "dpo.json"
    write_scenario_file(target, plan)
    back = read_scenario_document(target).scenario.training
    assert (back.workload, back.reference_model) == ("dpo", "precomputed")
