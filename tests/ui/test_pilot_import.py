"""Tools → Import pilot run… / Forget calibration: a real pilot file calibrates the plan (real widgets, offscreen)."""

from __future__ import annotations

import json

import pytest

from tuneplan.core.estimate import estimate, plan_stack_key
from tuneplan.storage.calibrations import CalibrationBook


def _trainer_state(path, runtime=40.0, steps=20):
    """``trainer_state.json`` as HF Trainer writes it: log entries every 10 steps, then the run's summary."""
    state = {
        "best_metric": None,
        "best_model_checkpoint": None,
        "epoch": 0.2,
        "eval_steps": 500,
        "global_step": steps,
        "is_hyper_param_search": False,
        "is_local_process_zero": True,
        "is_world_process_zero": True,
        "log_history": [
            {"loss": 1.2, "grad_norm": 0.9, "learning_rate": 2e-4, "epoch": 0.1, "step": 10},
            {"loss": 1.0, "grad_norm": 0.7, "learning_rate": 1e-4, "epoch": 0.2, "step": 20},
            {"train_runtime": runtime, "train_samples_per_second": 1.0, "train_steps_per_second": 0.5,
             "total_flos": 1e15, "train_loss": 1.1, "epoch": 0.2, "step": steps},
        ],
        "logging_steps": 10,
        "max_steps": steps,
        "num_input_tokens_seen": 0,
        "num_train_epochs": 1,
        "save_steps": 500,
        "stateful_callbacks": {},
        "total_flos": 1e15,
        "train_batch_size": 1,
        "trial_name": None,
        "trial_params": None,
    }
    path.write_text(json.dumps(state, indent=2) + "\n", encoding="utf-8")
    return path


def test_importing_a_trainer_state_calibrates_the_plan(window, tmp_path):
    store = window.store
    assert not store.result.time.calibrated
    assert not window.forget_calibration_action.isEnabled()
    path = _trainer_state(tmp_path / "trainer_state.json")
    assert window.import_pilot(path)
    assert window.shown_errors == []
    t = store.result.time
    assert t.calibrated
    assert t.step_seconds == pytest.approx(40.0 / 20)
    assert sum(term.value for term in t.step_terms) == pytest.approx(t.step_seconds)
    assert any(note.startswith("calibrated from your run of") for note in t.notes)
    assert "calibrated from your run of" in window.summary.text()
    # saved in the (test's own) data folder, under the plan's hardware-and-stack key
    saved = CalibrationBook().find(plan_stack_key(store.scenario))
    assert saved is not None and saved.pilot.step_seconds == pytest.approx(2.0)
    assert window.forget_calibration_action.isEnabled()
    # a second import does not compound: the factor is taken against the uncalibrated prediction
    assert window.import_pilot(path)
    assert store.result.time.step_seconds == pytest.approx(2.0)


def test_plans_on_the_same_stack_share_the_calibration_and_forget_drops_it(window, tmp_path):
    store = window.store
    assert window.import_pilot(_trainer_state(tmp_path / "trainer_state.json"))
    assert store.set_field("training.seq_len", store.scenario.training.seq_len * 2)  # same GPU and stack
    assert store.result.time.calibrated
    store.set_field("training.num_gpus", 2)  # other hardware: not calibrated
    assert not store.result.time.calibrated
    store.set_field("training.num_gpus", 1)
    assert store.result.time.calibrated
    assert window.forget_calibration()
    assert not store.result.time.calibrated
    assert store.result.time.step_seconds == pytest.approx(estimate(store.scenario).time.step_seconds)
    assert CalibrationBook().load() == []
    assert not window.forget_calibration_action.isEnabled()


def test_a_broken_file_shows_a_message_and_changes_nothing(window, tmp_path):
    store = window.store
    before = store.result
    bad = tmp_path / "trainer_state.json"
    bad.write_text("{ this is not JSON", encoding="utf-8")
    emitted = []
    store.result_changed.connect(emitted.append)
    assert not window.import_pilot(bad)
    assert len(window.shown_errors) == 1
    title, text = window.shown_errors[0]
    assert title == "Cannot import pilot run" and "\n" not in text and text
    assert store.result == before and not store.result.time.calibrated
    assert emitted == []
    assert CalibrationBook().load() == []


def test_a_json_file_without_a_run_says_what_is_missing(window, tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"global_step": 20, "log_history": [{"loss": 1.0, "step": 10}]}), encoding="utf-8")
    before = window.store.result
    assert not window.import_pilot(path)
    assert "train_runtime" in window.shown_errors[0][1]
    assert window.store.result == before


def test_cancelling_the_dialog_does_nothing(window, monkeypatch):
    monkeypatch.setattr(type(window), "ask_pilot_path", lambda self: None)
    before = window.store.result
    assert not window.import_pilot()
    assert window.shown_errors == [] and window.store.result == before
