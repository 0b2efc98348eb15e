"""The prepared GPU measurement grid (issue #3): every case is a plan Tuneplan can estimate, the comparison
puts the device's numbers next to the estimate correctly, and (with torch) the measuring script runs."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "gpu_grid"))

import gpu_report  # noqa: E402
import measure  # noqa: E402

GIB = 2**30


def test_every_case_is_a_plan_tuneplan_estimates():
    ids = [c.id for c in measure.GRID]
    assert len(ids) == len(set(ids))
    for case in measure.GRID:
        s = gpu_report.scenario_for(asdict(case), "h200")
        assert s.model_id == case.model and s.gpu.id == "h200"
        assert s.training.sequence_mode == case.sequence_mode
        lengths = case.step_lengths()
        assert len(lengths) == case.steps * case.grad_accumulation
        assert all(32 <= n <= case.seq_len for n in lengths)


def test_measure_imports_no_torch():
    # The grid must be readable where torch is not installed (this venv, CI).
    out = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, 'tools/gpu_grid'); import measure;"
                          "print('torch' in sys.modules)"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "False", out.stderr


def test_swift_like_lengths_drop_samples_over_the_cap():
    lengths = measure.swift_like_lengths(200, 2048)
    assert len(lengths) == 200 and min(lengths) >= 32 and max(lengths) <= 2048
    assert lengths == measure.swift_like_lengths(200, 2048)  # seeded: the same on every machine


def _record(case: measure.Case) -> dict:
    # A device record as measure.py writes it, with hand-picked numbers: 10 GiB allocated, 12 GiB reserved,
    # NVML 1 GiB in use before the process and 14 GiB at the highest -> 13 GiB for this process.
    return {"case": asdict(case), "sequence_mode": case.sequence_mode, "wall_seconds": 20.0,
            "result": {"max_allocated": 10 * GIB, "max_reserved": 12 * GIB, "tokens_per_second": 5000.0,
                       "nvml_used_before": 1 * GIB, "nvml_used_peak": 14 * GIB, "steps": []}}


def test_compare_puts_measurements_next_to_the_estimate():
    case = measure.GRID[0]
    row = gpu_report.compare_record(_record(case), "h200")
    assert row["meas"] == {"allocated": 10.0, "reserved": 12.0, "total": 13.0, "tokens_per_second": 5000.0}
    assert row["err"]["allocated"] == pytest.approx(row["est"]["allocated"] / 10 - 1)
    assert row["err"]["total"] == pytest.approx(row["est"]["total"] / 13 - 1)
    failed = gpu_report.compare_record({"case": asdict(case), "error": "CUDA out of memory"}, "h200")
    assert "meas" not in failed and failed["error"] == "CUDA out of memory"


def test_compare_command_writes_the_data_and_the_report(tmp_path):
    results, out = tmp_path / "run", tmp_path / "docs"
    results.mkdir()
    (results / "env.json").write_text(json.dumps({"gpu": "NVIDIA H200", "torch": "2.11.0"}), "utf-8")
    lines = [_record(measure.GRID[0]), {"case": asdict(measure.GRID[1]), "error": "timed out"}]
    (results / measure.RESULTS).write_text("".join(json.dumps(r) + "\n" for r in lines), "utf-8")
    proc = subprocess.run([sys.executable, "tools/gpu_grid/gpu_report.py", str(results), "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["h200-env.json", "h200-grid.jsonl", "h200-grid.md"]
    md = (out / "h200-grid.md").read_text("utf-8")
    assert md.startswith("# Real training steps on NVIDIA H200")
    assert f"| {measure.GRID[0].id} | 10.00 / " in md and "13.00 / " in md
    assert f"| {measure.GRID[1].id} | timed out |" in md


def test_measure_runs_one_case_on_the_cpu(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("peft")
    proc = subprocess.run([sys.executable, "tools/gpu_grid/measure.py", "--out", str(tmp_path), "--device", "cpu",
                           "--tiny", "--only", "llama8b-lora-all-gc-2k"], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    (record,) = [json.loads(ln) for ln in (tmp_path / measure.RESULTS).read_text("utf-8").splitlines()]
    assert "error" not in record, record.get("error")
    assert len(record["result"]["steps"]) == 3 and record["result"]["tokens_per_second"] > 0


def test_a_results_file_cut_off_mid_line_keeps_the_complete_cases(tmp_path):
    # a run killed at its time limit can leave half a line: the report keeps every complete case
    results, out = tmp_path / "run", tmp_path / "docs"
    results.mkdir()
    (results / "env.json").write_text(json.dumps({"gpu": "NVIDIA H200"}), "utf-8")
    (results / measure.RESULTS).write_text(json.dumps(_record(measure.GRID[0])) + '\n{"case": {"id": "cut', "utf-8")
    proc = subprocess.run([sys.executable, "tools/gpu_grid/gpu_report.py", str(results), "--out", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "line 2: not JSON" in proc.stderr
    assert f"| {measure.GRID[0].id} | 10.00 / " in (out / "h200-grid.md").read_text("utf-8")


def test_unknown_case_ids_are_refused_in_one_line():
    proc = subprocess.run([sys.executable, "tools/gpu_grid/measure.py", "--out", "/tmp/unused", "--only", "nope"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 2 and "unknown case id(s): nope" in proc.stderr


def test_each_case_is_estimated_with_the_adapters_it_ran():
    # PEFT's fp32 adapters in a plain bf16 loop (the grid's default), under autocast, or bf16 adapters
    by_id = {c.id: asdict(c) for c in measure.GRID}
    assert gpu_report.setup_for(by_id["llama8b-lora-all-gc-2k"]).adapter_precision == "fp32"
    assert gpu_report.setup_for(by_id["llama8b-lora-all-gc-2k-autocast"]).adapter_precision == "fp32-autocast"
    bf16 = gpu_report.setup_for(by_id["llama8b-lora-all-gc-2k-bf16adapters"])
    assert bf16.adapter_precision == "model-dtype" and bf16.lora_dropout == 0.0


def test_compiled_cases_are_estimated_compiled():
    by_id = {c.id: asdict(c) for c in measure.GRID}
    assert gpu_report.setup_for(by_id["llama8b-lora-all-nogc-2k-compile"]).torch_compile
    assert not gpu_report.setup_for(by_id["llama8b-lora-all-gc-2k"]).torch_compile
