"""Pilot-run calibration: trainer_state.json as HF Trainer writes it, CSV step times, typed numbers, the CLI.

HF Trainer (``Trainer._inner_training_loop``) logs ``{"loss", "grad_norm", "learning_rate", "epoch", "step"}`` every
``logging_steps`` and, at the end, ``{"train_runtime", "train_samples_per_second", "train_steps_per_second",
"total_flos", "train_loss", "epoch", "step"}``; ``TrainerState.save_to_json`` writes ``global_step``,
``log_history``, ``train_batch_size`` and the rest.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tuneplan.core.calibration import (
    CALIBRATED_SPREAD,
    CalibrationError,
    calibrate,
    pilot_from_numbers,
    pilot_from_rows,
    pilot_from_trainer_state,
    stack_key,
)
from tuneplan.storage.calibrations import CalibrationBook, CalibrationBookError, PilotFileError, read_pilot


def trainer_state(steps: int = 50, runtime: float = 125.0, tokens_per_second: float | None = None) -> dict:
    history = [{"loss": 2.0 - 0.01 * s, "grad_norm": 1.1, "learning_rate": 2e-4, "epoch": s / 500, "step": s}
               for s in range(10, steps + 1, 10)]
    summary = {"train_runtime": runtime, "train_samples_per_second": steps * 4 / runtime,
               "train_steps_per_second": steps / runtime, "total_flos": 3.2e16, "train_loss": 1.7,
               "epoch": steps / 500, "step": steps}
    if tokens_per_second is not None:
        summary["train_tokens_per_second"] = tokens_per_second
    return {"best_metric": None, "best_model_checkpoint": None, "epoch": steps / 500, "eval_steps": 500,
            "global_step": steps, "is_hyper_param_search": False, "is_local_process_zero": True,
            "is_world_process_zero": True, "log_history": [*history, summary], "logging_steps": 10,
            "max_steps": steps, "num_input_tokens_seen": 0, "num_train_epochs": 1, "save_steps": 500,
            "stateful_callbacks": {}, "total_flos": 3.2e16, "train_batch_size": 4, "trial_name": None,
            "trial_params": None}


def test_trainer_state_gives_runtime_per_step():
    pilot = pilot_from_trainer_state(trainer_state(50, 125.0, tokens_per_second=3300.0))
    assert pilot.step_seconds == pytest.approx(125.0 / 50)  # 2.5 s
    assert pilot.steps == 50 and pilot.micro_batch == 4 and pilot.tokens_per_second == 3300.0


@pytest.mark.parametrize(("state", "code"), [
    ([1, 2], "calibration.not_object"),
    ({"log_history": []}, "calibration.no_steps"),
    ({"global_step": 10, "log_history": [{"loss": 1.0, "step": 10}]}, "calibration.no_runtime"),
    ({"global_step": 10, "log_history": [{"train_runtime": "fast", "step": 10}]}, "calibration.bad_number"),
    ({"global_step": 10, "log_history": [{"train_runtime": -3, "step": 10}]}, "calibration.bad_number"),
])
def test_bad_trainer_states_are_named(state, code):
    with pytest.raises(CalibrationError) as err:
        pilot_from_trainer_state(state)
    assert err.value.code == code


def test_csv_runtime_readings_give_step_times_without_warm_up():
    # W&B export: _step/_runtime every 10 steps; the first interval (compile, allocator) is dropped.
    rows = [{"_step": str(s), "_runtime": str(t)} for s, t in
            [(0, 0.0), (10, 40.0), (20, 60.0), (30, 80.5), (40, 100.0), (50, 121.0)]]
    pilot = pilot_from_rows(rows)
    # intervals: 4.0 (dropped), 2.0, 2.05, 1.95, 2.1 s per step -> median 2.025
    assert pilot.step_seconds == pytest.approx(2.025)
    assert (pilot.step_seconds_low, pilot.step_seconds_high) == (pytest.approx(1.95), pytest.approx(2.1))


def test_csv_without_usable_columns_is_named():
    with pytest.raises(CalibrationError) as err:
        pilot_from_rows([{"loss": "1.0"}])
    assert err.value.code == "calibration.no_columns"


def test_calibration_factor_and_band():
    pilot = pilot_from_numbers(step_seconds=3.0)
    cal = calibrate(pilot, predicted_step_seconds=2.0, key="k")
    assert cal.factor == pytest.approx(1.5)
    # no spread of its own: the within-stack spread of the evidence
    assert cal.band == (pytest.approx(CALIBRATED_SPREAD[0]), pytest.approx(CALIBRATED_SPREAD[1]))
    with pytest.raises(CalibrationError):
        pilot_from_numbers(step_seconds=0.0)
    # tokens/s with the plan's tokens per step: 8192 / 4096 = 2 s
    assert pilot_from_numbers(tokens_per_second=4096, tokens_per_step=8192).step_seconds == 2.0


def test_calibration_applies_to_plans_on_the_same_stack_only():
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate, plan_stack_key

    s = catalog.default_scenario()
    base = estimate(s)
    cal = calibrate(pilot_from_numbers(step_seconds=base.time.step_seconds * 1.2, date="2026-11-30"),
                    base.time.step_seconds, plan_stack_key(s))
    cal_r = estimate(s, calibration=cal)
    assert cal_r.time.step_seconds == pytest.approx(base.time.step_seconds * 1.2)
    assert cal_r.time.calibrated and any(n.code == "time.calibrated" and n.params["date"] == "2026-11-30"
                                         for n in cal_r.time.messages)
    # the band narrows to the within-stack spread: 1/1.13 .. 1/0.84 of the calibrated training time
    assert cal_r.time.tokens_per_second_high / cal_r.time.tokens_per_second == pytest.approx(CALIBRATED_SPREAD[1])
    # a longer sequence on the same GPU and stack keeps the calibration; another GPU does not
    longer = s.model_copy(update={"training": s.training.model_copy(update={"seq_len": 4096})})
    assert estimate(longer, calibration=cal).time.calibrated
    other = s.model_copy(update={"gpu": catalog.get_gpu("h100_sxm")})
    assert not estimate(other, calibration=cal).time.calibrated
    assert stack_key("rtx4090", 2, "hf", "lora", "ddp") != stack_key("rtx4090", 2, "hf", "qlora", "ddp")


def test_read_pilot_files_and_the_book(tmp_path):
    state = tmp_path / "trainer_state.json"
    state.write_text(json.dumps(trainer_state(20, 40.0), indent=2), encoding="utf-8")
    assert read_pilot(state).step_seconds == pytest.approx(2.0)
    bad = tmp_path / "broken.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(PilotFileError, match="not valid JSON"):
        read_pilot(bad)
    with pytest.raises(PilotFileError, match="no such file"):
        read_pilot(tmp_path / "missing.json")
    csv_file = tmp_path / "steps.csv"
    csv_file.write_text("step,step_time\n1,2.5\n2,2.0\n3,2.1\n4,1.9\n5,2.0\n", encoding="utf-8")
    assert read_pilot(csv_file).step_seconds == pytest.approx(2.0)  # median of 2.0, 2.1, 1.9, 2.0 (first dropped)
    book = CalibrationBook(tmp_path / "data")
    cal = calibrate(read_pilot(state), 1.6, "gpu x1/hf/lora/none", label="pilot")
    book.save(cal)
    book.save(cal.model_copy(update={"factor": 1.4}))  # same key: replaced
    assert [c.factor for c in book.load()] == [1.4]
    assert book.find("gpu x1/hf/lora/none").label == "pilot"
    # an entry this version cannot read (a hand edit, a newer Tuneplan) is skipped, and kept when saving
    entries = json.loads((tmp_path / "data" / "calibrations.json").read_text(encoding="utf-8"))
    entries.append({**entries[0], "key": "other", "factor": -1})
    (tmp_path / "data" / "calibrations.json").write_text(json.dumps(entries), encoding="utf-8")
    assert [c.key for c in book.load()] == ["gpu x1/hf/lora/none"]
    book.save(cal.model_copy(update={"key": "third"}))
    kept = json.loads((tmp_path / "data" / "calibrations.json").read_text(encoding="utf-8"))
    assert [e["key"] for e in kept] == ["gpu x1/hf/lora/none", "other", "third"] and kept[1]["factor"] == -1
    # an unreadable book is ignored when reading, and never overwritten
    (tmp_path / "data" / "calibrations.json").write_text("garbage", encoding="utf-8")
    assert book.load() == []
    with pytest.raises(CalibrationBookError, match="not valid JSON"):
        book.save(cal)
    assert (tmp_path / "data" / "calibrations.json").read_text(encoding="utf-8") == "garbage"


def test_cli_calibrates_from_a_trainer_state_file(tmp_path):
    state = tmp_path / "trainer_state.json"
    state.write_text(json.dumps(trainer_state(20, 40.0)), encoding="utf-8")
    # the pilot ran micro-batch 4 (train_batch_size), as the plan does
    cmd = [sys.executable, "-m", "tuneplan", "estimate", "--model", "llama-3.1-8b", "--method", "qlora",
           "--gpu", "RTX 4090", "--micro-batch", "4", "--json"]
    env = {"TUNEPLAN_DATA_DIR": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    plain = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout)[0]
    cal = json.loads(subprocess.run([*cmd, "--calibration", str(state), "--save-calibration"], capture_output=True,
                                    text=True, check=True, env=env).stdout)[0]
    assert not plain["time"]["calibrated"] and cal["time"]["calibrated"]
    assert cal["time"]["step_seconds"]["total"] == pytest.approx(2.0)  # 40 s / 20 steps
    assert sum(cal["time"]["step_seconds"]["parts"].values()) == pytest.approx(2.0)
    assert set(plain["time"]["step_seconds"]["parts"]) == {"matmul", "attention", "other_kernels", "optimizer",
                                                           "communication", "offload", "fixed"}
    # saved: a later run on the same stack can use it
    again = json.loads(subprocess.run([*cmd, "--use-saved-calibration"], capture_output=True, text=True, check=True,
                                      env=env).stdout)[0]
    assert again["time"]["step_seconds"]["total"] == pytest.approx(2.0)
    broken = tmp_path / "b.json"
    broken.write_text("[1, 2]", encoding="utf-8")
    res = subprocess.run([*cmd, "--calibration", str(broken)], capture_output=True, text=True, env=env)
    assert res.returncode == 2 and "not a JSON object" in res.stderr


def test_impossible_or_mismatched_pilots_are_refused():
    pilot = pilot_from_numbers(step_seconds=0.1)
    # predicted 1.0 s at MFU 0.4: 0.1 s would be MFU 4.0, faster than the card's peak
    with pytest.raises(CalibrationError) as err:
        calibrate(pilot, 1.0, "k", predicted_mfu=0.4)
    assert err.value.code == "calibration.faster_than_hardware" and err.value.params["mfu"] == "400"
    with pytest.raises(CalibrationError) as err:
        calibrate(pilot_from_numbers(step_seconds=1e300), 1.0, "k", predicted_mfu=0.4)
    assert err.value.code == "calibration.too_slow"
    four = pilot_from_trainer_state(trainer_state(20, 40.0))  # train_batch_size 4
    with pytest.raises(CalibrationError) as err:
        calibrate(four, 1.0, "k", plan_micro_batch=1)
    assert err.value.code == "calibration.micro_batch_differs"
    assert calibrate(four, 1.0, "k", predicted_mfu=0.4, plan_micro_batch=4).factor == pytest.approx(2.0)


def test_spreadsheet_csvs_with_semicolons_and_decimal_commas(tmp_path):
    f = tmp_path / "steps.csv"
    f.write_text("step;step_time\n1;2,5\n2;1,7\n3;1,8\n4;1,7\n5;1,75\n", encoding="utf-8")
    # first interval dropped (warm-up): median of 1.7, 1.8, 1.7, 1.75
    assert read_pilot(f).step_seconds == pytest.approx(1.725)
    bad = tmp_path / "bad.csv"
    bad.write_text("step,step_time\n1,-3\n2,abc\n", encoding="utf-8")
    with pytest.raises(CalibrationError) as err:
        read_pilot(bad)
    assert err.value.code == "calibration.no_usable_rows" and err.value.params["rows"] == 2


def test_an_output_dir_reads_its_trainer_state(tmp_path):
    out = tmp_path / "out"
    (out / "checkpoint-20").mkdir(parents=True)
    (out / "checkpoint-100").mkdir()
    (out / "checkpoint-20" / "trainer_state.json").write_text(json.dumps(trainer_state(20, 40.0)), encoding="utf-8")
    (out / "checkpoint-100" / "trainer_state.json").write_text(json.dumps(trainer_state(100, 150.0)),
                                                               encoding="utf-8")
    assert read_pilot(out).step_seconds == pytest.approx(1.5)  # the newest checkpoint: 150 s / 100 steps
    (out / "trainer_state.json").write_text(json.dumps(trainer_state(50, 125.0)), encoding="utf-8")
    assert read_pilot(out).step_seconds == pytest.approx(2.5)  # the run's own, written at the end
    with pytest.raises(PilotFileError, match="no trainer_state.json"):
        read_pilot(tmp_path)


def test_cli_refuses_two_pilot_sources(tmp_path):
    cmd = [sys.executable, "-m", "tuneplan", "estimate", "--model", "llama-3.1-8b", "--method", "qlora",
           "--gpu", "RTX 4090", "--pilot-step-seconds", "1.2", "--pilot-tokens-per-second", "900"]
    res = subprocess.run(cmd, capture_output=True, text=True, env={"TUNEPLAN_DATA_DIR": str(tmp_path),
                                                                    "PATH": "/usr/bin:/bin"})
    assert res.returncode == 2 and "not several" in res.stderr


def test_a_calibration_of_another_model_version_is_not_applied():
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate, plan_stack_key
    from tuneplan.core.steptime import STEP_MODEL_VERSION

    s = catalog.default_scenario()
    base = estimate(s)
    cal = calibrate(pilot_from_numbers(step_seconds=base.time.step_seconds * 1.3, date="2026-11-02"),
                    base.time.step_seconds, plan_stack_key(s))
    assert cal.model_version == STEP_MODEL_VERSION
    old = cal.model_copy(update={"model_version": STEP_MODEL_VERSION - 1})
    r = estimate(s, calibration=old)
    assert not r.time.calibrated and r.time.step_seconds == pytest.approx(base.time.step_seconds)
    assert any(n.code == "time.calibration_stale" and n.params["date"] == "2026-11-02" for n in r.time.messages)
    # an MFU override replaces the step model: a calibration has nothing to scale
    over = s.model_copy(update={"training": s.training.model_copy(update={"mfu_override": 0.3})})
    assert not estimate(over, calibration=cal).time.calibrated


def test_hostile_saved_calibrations_and_pilot_files(tmp_path):
    import os

    from tuneplan.core.calibration import Calibration

    good = calibrate(pilot_from_numbers(step_seconds=2.0), 1.6, "k")
    # entries a hand edit could write: infinite factor, zero or inverted band -> not valid, never applied
    for bad in ({"factor": float("inf")}, {"band": (0.0, 0.0)}, {"band": (10.0, 0.1)}, {"factor": 1e308}):
        with pytest.raises(ValueError):
            Calibration.model_validate({**good.model_dump(), **bad})
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "calibrations.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    book = CalibrationBook(folder)
    assert book.load() == []  # too deep: unreadable, not a crash
    with pytest.raises(CalibrationBookError):
        book.save(good)
    os.remove(folder / "calibrations.json")
    os.mkfifo(folder / "calibrations.json")
    assert book.load() == []  # a FIFO is not read (it would block)
    fifo = tmp_path / "steps.csv"
    os.mkfifo(fifo)
    with pytest.raises(PilotFileError, match="not a regular file"):
        read_pilot(fifo)
    # trainer_state numbers of the wrong kind
    with pytest.raises(CalibrationError):
        pilot_from_trainer_state({"global_step": True, "log_history": [{"train_runtime": 10.0}]})
    with pytest.raises(CalibrationError):
        pilot_from_trainer_state({"global_step": 10, "log_history": [{"train_runtime": 10**400}]})
    assert pilot_from_trainer_state({"global_step": 10, "train_batch_size": True,
                                     "log_history": [{"train_runtime": 10.0}]}).micro_batch is None


def test_an_unknown_model_name_suggests_the_closest_catalog_ids(tmp_path):
    cmd = [sys.executable, "-m", "tuneplan", "estimate", "--model", "Qwen2.5-7B-Instruct", "--gpu", "RTX 4090"]
    res = subprocess.run(cmd, capture_output=True, text=True, env={"TUNEPLAN_DATA_DIR": str(tmp_path),
                                                                    "PATH": "/usr/bin:/bin"})
    assert res.returncode == 2 and "did you mean qwen2.5-7b" in res.stderr  # its Hugging Face name, Instruct
