"""``tuneplan scenarios ...`` and ``tuneplan estimate --scenario`` as real subprocesses on a temp data dir."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tuneplan.catalog import default_scenario, get_gpu
from tuneplan.core.estimate import estimate
from tuneplan.core.scenario import SCHEMA_VERSION, Scenario
from tuneplan.storage.files import read_scenario_file
from tuneplan.storage.library import ScenarioLibrary

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "data"
    monkeypatch.setenv("TUNEPLAN_DATA_DIR", str(root))
    return root


def tuneplan(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run(
        [sys.executable, "-m", "tuneplan", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env=env,
    )


def named(name: str) -> Scenario:
    s = default_scenario()
    s.name = name
    return s


def assert_one_line_error(proc: subprocess.CompletedProcess[str], text: str) -> None:
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("tuneplan: error: ")
    assert proc.stderr.count("\n") == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert text in proc.stderr


def test_list_empty_and_populated(data: Path) -> None:
    proc = tuneplan("scenarios", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []

    lib = ScenarioLibrary()
    a = lib.save(named("Beta plan"))
    b = lib.save(named("alpha plan"))
    (lib.scenarios_dir / "broken.json").write_text("{", "utf-8")

    rows = json.loads(tuneplan("scenarios", "list", "--json").stdout)
    assert [(r["name"], r["ok"]) for r in rows] == [
        ("alpha plan", True),
        ("Beta plan", True),
        ("broken", False),
    ]
    assert rows[0]["path"] == str(b) and rows[1]["path"] == str(a)
    assert rows[0]["schema_version"] == SCHEMA_VERSION == 10
    assert rows[2]["problem"].startswith("not valid JSON (line 1, column 2")

    text = tuneplan("scenarios", "list")
    assert text.returncode == 0
    lines = text.stdout.splitlines()
    assert lines[0].split() == ["NAME", "MODIFIED", "(UTC)", "SCHEMA", "STATUS"]
    assert len(lines) == 4
    assert "BROKEN: not valid JSON" in lines[3]
    assert (lib.scenarios_dir / "broken.json").exists()  # listing moves nothing


def test_show_gives_the_scenario_and_the_same_numbers(data: Path) -> None:
    scenario = named("Show me")
    scenario.gpu = get_gpu("rtx3090")
    ScenarioLibrary().save(scenario)
    (data / "settings.json").unlink()  # forget the save in the recent list
    proc = tuneplan("scenarios", "show", "show ME", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert Scenario.model_validate(doc["scenario"]) == scenario
    expected = estimate(scenario)
    assert doc["estimate"]["total_bytes"] == expected.memory.total_bytes
    assert doc["estimate"]["total_usd"] == expected.cost.total_usd
    assert doc["estimate"]["paged_bytes"] == expected.memory.paged_bytes == 0  # default plan: AdamW, nothing paged

    assert ScenarioLibrary().recent() == []  # the CLI does not touch the GUI's recent list

    text = tuneplan("scenarios", "show", "Show me")
    assert text.returncode == 0
    assert '"name": "Show me"' in text.stdout
    assert "Estimate: " in text.stdout and "GiB per GPU" in text.stdout


def test_show_errors(data: Path) -> None:
    assert_one_line_error(tuneplan("scenarios", "show", "nope"), "no scenario named 'nope'")
    assert_one_line_error(tuneplan("scenarios", "show"), "give a scenario name")
    lib = ScenarioLibrary()
    lib.save(named("Twin"))
    lib.save(named("Twin"))
    assert_one_line_error(tuneplan("scenarios", "show", "Twin"), "2 scenarios are named 'Twin'")


def test_export_then_estimate_from_the_file(data: Path, tmp_path: Path) -> None:
    scenario = named("Exported")
    scenario.training.seq_len = 4096
    ScenarioLibrary().save(scenario)
    out_file = tmp_path / "shared.json"
    proc = tuneplan("scenarios", "export", "Exported", "-o", str(out_file))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"exported 1 scenario to {out_file}"
    assert read_scenario_file(out_file) == scenario

    est = tuneplan("estimate", "--scenario", str(out_file), "--json")
    assert est.returncode == 0, est.stderr
    rows = json.loads(est.stdout)
    assert rows[0]["memory"]["total_bytes"] == estimate(scenario).memory.total_bytes

    assert_one_line_error(tuneplan("scenarios", "export", "Exported"), "export needs -o FILE")


def test_export_all_and_import(data: Path, tmp_path: Path) -> None:
    lib = ScenarioLibrary()
    lib.save(named("One"))
    lib.save(named("Two"))
    bundle = tmp_path / "all.json"
    assert (
        tuneplan("scenarios", "export", "-o", str(bundle)).stdout.strip()
        == f"exported 2 scenarios to {bundle}"
    )
    assert json.loads(bundle.read_text("utf-8"))["format"] == "tuneplan-scenarios"

    proc = tuneplan("scenarios", "import", str(bundle), "--json")
    assert proc.returncode == 0, proc.stderr
    assert [r["name"] for r in json.loads(proc.stdout)] == ["One (2)", "Two (2)"]
    assert [i.name for i in lib.list()] == ["One", "One (2)", "Two", "Two (2)"]


def test_import_hostile_file(data: Path, tmp_path: Path) -> None:
    hostile = tmp_path / "hostile.json"
    hostile.write_text(
        '{"format": "tuneplan-scenario", "schema_version": 1, "scenario": {"name": {"$gt": ""}}}'
    )
    assert_one_line_error(tuneplan("scenarios", "import", str(hostile)), "invalid value for name")
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"format": "tuneplan-scenario", "schema_version": SCHEMA_VERSION + 1, "scenario": {}}))
    assert_one_line_error(tuneplan("scenarios", "import", str(newer)),
                          f"saved by a newer Tuneplan (schema {SCHEMA_VERSION + 1})")
    assert_one_line_error(tuneplan("scenarios", "import", str(tmp_path / "missing.json")), "no such file")
    assert ScenarioLibrary().list() == []


def test_estimate_with_a_bad_scenario_file(data: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  oops\n}")
    assert_one_line_error(tuneplan("estimate", "--scenario", str(bad)), "not valid JSON (line 2, column 3")


def test_estimate_takes_a_saved_scenario_by_its_library_name(data: Path) -> None:
    lib = ScenarioLibrary()
    s = named("Team 70B plan")
    s.training.num_gpus = 8
    s.training.sharding = "fsdp"
    s.training.grad_accumulation = 4
    lib.save(s)
    proc = tuneplan("estimate", "--scenario", "team 70b plan", "--json")  # names match case-insensitively
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)[0]["memory"]["total_bytes"] == estimate(s).memory.total_bytes
    missing = tuneplan("estimate", "--scenario", "No such plan")
    assert_one_line_error(missing, "nor a saved scenario of that name")
    lib.save(named("Team 70B plan"))  # a second plan of the same name: the path must be given
    twice = tuneplan("estimate", "--scenario", "Team 70B plan")
    assert_one_line_error(twice, "2 saved scenarios are named")
