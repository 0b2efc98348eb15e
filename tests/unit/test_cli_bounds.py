"""Issue #22, fuzzing findings: every numeric field has a physical range, checked in the one pydantic model
that both the CLI and scenario files go through; out of range is one ``tuneplan: error:`` line (exit 2) naming
the flag or field and its range, never a traceback, and a saved plan holding such a value is refused on reading.

The CLI cases run the real CLI in a subprocess (the findings were tracebacks of the real CLI).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from tuneplan.catalog import default_scenario, get_model
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.scenario import (
    Dataset,
    GpuSpec,
    Pricing,
    Scenario,
    TrainingSetup,
    explain_validation_error,
)
from tuneplan.storage.files import ScenarioFileError, dumps_scenario, read_scenario_file

ROOT = Path(__file__).resolve().parents[2]
BIG = "9" * 5000


def tuneplan(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tuneplan", *args], capture_output=True, text=True, timeout=60,
                          cwd=cwd, env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **env})


def one_line_error(proc: subprocess.CompletedProcess[str], *texts: str) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stderr.startswith("tuneplan: error: ") and proc.stderr.count("\n") == 1, proc.stderr
    for text in texts:
        assert text in proc.stderr, proc.stderr


# --- the three tracebacks of the issue, through the real CLI ---------------------------------------------------

@pytest.mark.parametrize(("args", "texts"), [
    (("estimate", "--mfu", "5e-324"), ("--mfu", "between 0.001 and 1", "5e-324")),  # was ZeroDivisionError
    (("estimate", "--checkpoint-every-min", "5e-324"),  # was OverflowError
     ("--checkpoint-every-min", "between 0.1 and 100000")),
    (("compare-gpus", "--mfu", "1e-300"), ("--mfu", "between 0.001 and 1", "1e-300")),  # was "float NaN" ValueError
    (("estimate", "--dataset-examples", "0.5"), ("--dataset-examples", "whole number", "0.5")),  # was silently 0
    (("estimate", "--seq-len", BIG), ("--seq-len", "whole number", "5000 characters")),  # was 5,000 digits echoed
    (("estimate", "--download-gbps", "1e-300"), ("--download-gbps", "between 0.001 and 1000")),  # was 10^297 h
])
def test_out_of_range_flags_are_one_line_errors(args: tuple[str, ...], texts: tuple[str, ...]) -> None:
    proc = tuneplan(*args)
    one_line_error(proc, *texts)
    assert len(proc.stderr) < 300  # the 5,000-digit argument is not echoed whole


def test_a_whole_number_written_as_1e6_is_still_taken() -> None:
    proc = tuneplan("estimate", "--dataset-examples", "1e6", "--json")
    assert proc.returncode == 0, proc.stderr
    # 1e6 examples x 512 tokens x 3 epochs (the default plan's tokens per example and epochs)
    assert json.loads(proc.stdout)[0]["time"]["tokens_total"] == pytest.approx(1e6 * 512 * 3, rel=0.01)


def test_a_5000_digit_number_in_a_training_config_or_model_config_gets_no_python_advice(tmp_path: Path) -> None:
    (tmp_path / "ax.yaml").write_text(f"base_model: x\nmicro_batch_size: {BIG}\n", "utf-8")
    (tmp_path / "args.json").write_text(f'{{"per_device_train_batch_size": {BIG}}}', "utf-8")
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text(
        f'{{"model_type": "llama", "hidden_size": {BIG}, "num_hidden_layers": 2, "num_attention_heads": 2, '
        '"intermediate_size": 8, "vocab_size": 10}', "utf-8")
    for args in (("--training-config", "ax.yaml"), ("--training-config", "args.json"), ("--config", "model")):
        proc = tuneplan("estimate", *args, cwd=tmp_path)
        one_line_error(proc, "out of range")
        assert "set_int_max_str_digits" not in proc.stderr


# --- the same bounds for files: a saved plan with such a value is refused when read ----------------------------

def _plan_file(tmp_path: Path, section: str, key: str, value: object) -> Path:
    doc = json.loads(dumps_scenario(default_scenario()))
    doc["scenario"][section][key] = value
    path = tmp_path / "hostile plan.json"
    path.write_text(json.dumps(doc), "utf-8")
    return path


@pytest.mark.parametrize(("section", "key", "value"), [
    ("training", "mfu_override", 5e-324), ("pricing", "checkpoint_every_min", 5e-324),
    ("pricing", "disk_write_gbps", 1e-300), ("gpu", "memory_bandwidth_gbps", 5e-324),
    ("gpu", "measured_bf16_tflops", 1e-300), ("dataset", "examples", 0.5),
])
def test_a_saved_plan_with_an_out_of_range_value_is_refused_with_the_field(
        tmp_path: Path, section: str, key: str, value: object) -> None:
    path = _plan_file(tmp_path, section, key, value)
    with pytest.raises(ScenarioFileError) as info:
        read_scenario_file(path)
    assert f"{section}.{key}" in str(info.value) and info.value.reason == "invalid"


def test_estimate_and_show_refuse_a_saved_plan_with_a_denormal_mfu(tmp_path: Path) -> None:
    path = _plan_file(tmp_path, "training", "mfu_override", 5e-324)
    one_line_error(tuneplan("estimate", "--scenario", str(path)), "training.mfu_override")  # was a traceback
    one_line_error(tuneplan("scenarios", "show", str(path)), "training.mfu_override")


@pytest.mark.parametrize("key", ["num_experts", "moe_intermediate_size", "shared_expert_intermediate_size"])
def test_moe_fields_of_10_to_300_are_refused(key: str) -> None:
    arch = get_model("mixtral-8x7b").architecture.model_dump()
    arch[key] = 10**300  # was ZeroDivisionError / OverflowError in the estimate
    with pytest.raises(ValidationError) as info:
        ModelArchitecture.model_validate(arch)
    where, msg = explain_validation_error(info.value, ModelArchitecture)
    assert where == key and msg.startswith("must be between 0 and ") and "(got 1e+300)" in msg


# --- the bounds themselves (hand-chosen ranges, not read back from the code) -------------------------------------

@pytest.mark.parametrize(("model", "field", "bad", "good"), [
    (TrainingSetup, "mfu_override", 0.0009, 0.001),
    (Pricing, "checkpoint_every_min", 0.09, 0.1),
    (Pricing, "download_gbps", 0.0009, 0.001),
    (Pricing, "disk_write_gbps", 0.0009, 0.001),
    (Pricing, "monthly_price_usd", 1.1e7, 1e7),
    (Dataset, "padding_efficiency", 0.009, 0.01),
])
def test_lower_and_upper_bounds(model: type, field: str, bad: float, good: float) -> None:
    assert getattr(model(**{field: good}), field) == good
    with pytest.raises(ValidationError):
        model(**{field: bad})


def test_gpu_rates_are_zero_for_unknown_or_in_range() -> None:
    gpu = default_scenario().gpu.model_dump()
    for value in (0.0, 0.01, 100_000.0):
        assert GpuSpec.model_validate({**gpu, "p2p_link_gbps": value}).p2p_link_gbps == value
    for value in (5e-324, 0.009, 100_001.0, -1.0, float("nan")):
        with pytest.raises(ValidationError) as info:
            GpuSpec.model_validate({**gpu, "bf16_tflops": value})
        assert explain_validation_error(info.value, GpuSpec)[1].startswith(
            "must be 0 (unknown) or between 0.01 and 100000")


def test_the_dataset_may_not_train_more_than_10_to_15_tokens() -> None:
    assert Dataset(examples=10**9, tokens_per_example=10**5, epochs=10).tokens_per_epoch == 1e14  # 1e15 trained
    with pytest.raises(ValidationError, match="at most 1e\\+15"):
        Dataset(examples=10**9, tokens_per_example=10**5, epochs=10.1)
    with pytest.raises(ValidationError):
        Dataset(total_tokens=10**12, epochs=1001)


def test_text_fields_are_bounded() -> None:
    s = default_scenario()
    with pytest.raises(ValidationError):
        GpuSpec.model_validate({**s.gpu.model_dump(), "name": "x" * 201})
    with pytest.raises(ValidationError):
        Scenario.model_validate({**s.model_dump(), "model_id": "x" * 201})
