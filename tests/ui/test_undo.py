"""Undo/redo (issue #21) through the real window: Edit → Undo / Redo, Ctrl+Z, one step per change."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence

from tuneplan import catalog
from tuneplan.core.estimate import estimate
from tuneplan.storage import write_scenario_file
from tuneplan.ui.store import AppStore


def _field(window, path):
    for panel in window.panels:
        if path in panel.fields:
            return panel.fields[path]
    raise KeyError(path)


def _edit_menu(window):
    return next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")


def _current_advice(window, qtbot):
    store, ctl = window.store, window.advice_controller
    qtbot.waitUntil(lambda: ctl.state is not None and ctl.state.scenario == store.scenario, timeout=20_000)
    return ctl.state


def test_edit_menu_has_undo_and_redo_with_standard_shortcuts(window):
    assert [a.text() for a in window.menuBar().actions()][:3] == ["&File", "&Edit", "&View"]
    actions = _edit_menu(window).actions()
    assert window.undo_action in actions and window.redo_action in actions
    assert window.undo_action.shortcut() == QKeySequence("Ctrl+Z")
    assert window.redo_action.shortcut() == QKeySequence("Ctrl+Shift+Z")  # the one the menu shows
    assert QKeySequence("Ctrl+Y") in window.redo_action.shortcuts() or not any(
        k == QKeySequence("Ctrl+Y") for k in QKeySequence.keyBindings(QKeySequence.StandardKey.Redo))
    # a fresh window has nothing to undo (start-up adjustments such as the price book's are no edit)
    assert window.store.undo_stack.count() == 0
    assert not window.undo_action.isEnabled() and not window.redo_action.isEnabled()


def test_undo_twice_restores_both_edits_and_recomputes_then_redo(window, qtbot):
    store = window.store
    first, first_result = store.scenario, store.result
    assert store.set_field("training.seq_len", 4096)
    after_seq = store.scenario
    assert store.set_field("training.method", "lora")
    after_both, both_result = store.scenario, store.result
    assert store.undo_stack.count() == 2 and store.dirty
    assert window.undo_action.isEnabled()
    assert window.undo_action.text() == "&Undo change Method"

    window.undo_action.trigger()
    assert store.scenario == after_seq
    assert store.result == estimate(after_seq)
    assert window.method_panel.fields["training.method"].widget.currentData() == "qlora"
    assert window.redo_action.isEnabled() and window.redo_action.text() == "&Redo change Method"
    assert window.undo_action.text() == "&Undo change Sequence length"
    assert store.dirty  # seq_len still differs from the plan as it started

    window.undo_action.trigger()
    assert store.scenario == first and store.result == first_result
    assert _field(window, "training.seq_len").widget.value() == first.training.seq_len
    assert window.memory_card.value.text().startswith(f"{first_result.memory.total_bytes / 2**30:.1f}")
    assert not store.dirty and "*" not in window.windowTitle()  # back where it started: clean
    assert not window.undo_action.isEnabled()

    window.redo_action.trigger()
    window.redo_action.trigger()
    assert store.scenario == after_both and store.result == both_result
    assert store.dirty and window.windowTitle().count("*") == 1
    assert not window.redo_action.isEnabled()


def test_a_rejected_value_pushes_nothing(window, qtbot):
    store = window.store
    assert store.set_field("training.seq_len", 4096)
    count = store.undo_stack.count()
    with qtbot.waitSignal(store.error, check_params_cb=lambda f, m: f == "training.micro_batch" and bool(m)):
        assert store.set_field("training.micro_batch", 0) is False
    assert store.set_fields({"training.micro_batch": -3, "training.seq_len": 512}) is False
    assert store.set_field("no.such.field", 1) is False
    assert store.undo_stack.count() == count
    # a value that changes nothing pushes nothing either
    assert store.set_field("training.seq_len", 4096)
    assert store.undo_stack.count() == count
    store.undo()
    assert store.scenario.training.seq_len == catalog.default_scenario().training.seq_len
    assert store.errors == {}  # the field shows the restored, valid value


def test_an_applied_advice_suggestion_undoes_in_one_step(window, qtbot):
    store = window.store
    assert store.set_field("training.method", "full")
    before = store.scenario
    state = _current_advice(window, qtbot)
    suggestion = next(g for g in state.suggestions if len(g.changes) > 1 and "gpu" not in g.changes)
    count = store.undo_stack.count()
    assert window.advice_view.apply(suggestion)
    assert store.scenario != before
    assert store.undo_stack.count() == count + 1
    window.undo_action.trigger()
    assert store.scenario == before and store.result == estimate(before)
    window.redo_action.trigger()
    for path, value in suggestion.changes.items():
        node = store.scenario
        for part in path.split("."):
            node = getattr(node, part)
        assert node == value


def test_an_applied_gpu_suggestion_undoes_in_one_step(window, qtbot):
    store = window.store
    assert store.set_field("training.method", "full")
    before = store.scenario
    state = _current_advice(window, qtbot)
    gpu = next(g for g in state.suggestions if "gpu" in g.changes)
    count = store.undo_stack.count()
    assert window.advice_controller.apply(gpu)
    assert store.scenario.gpu.id == gpu.changes["gpu"]["id"]
    assert store.undo_stack.count() == count + 1
    store.undo()
    assert store.scenario == before
    assert window.hardware_panel.gpu_combo.currentData() == before.gpu.id


def test_undo_group_makes_several_setters_one_step(window):
    store = window.store
    before = store.scenario
    with store.undo_group("apply suggestion"):
        assert store.set_gpu("l40s")
        assert store.set_fields({"training.seq_len": 4096})
    assert store.undo_stack.count() == 1
    assert window.undo_action.text() == "&Undo apply suggestion"
    store.undo()
    assert store.scenario == before and not store.dirty
    store.redo()
    assert store.scenario.gpu.id == "l40s" and store.scenario.training.seq_len == 4096
    # a group in which nothing was accepted leaves no step
    with store.undo_group("nothing"):
        assert store.set_field("training.micro_batch", 0) is False
    assert store.undo_stack.count() == 1 and store.undo_stack.undoText() == "apply suggestion"


def test_new_clears_the_history(window):
    store = window.store
    assert store.set_field("training.seq_len", 4096)
    window.undo_action.trigger()
    assert window.redo_action.isEnabled()
    window.new_plan()
    assert store.undo_stack.count() == 0
    assert not window.undo_action.isEnabled() and not window.redo_action.isEnabled()


def test_open_clears_the_history_and_undo_goes_back_to_the_saved_plan(window, tmp_path):
    store = window.store
    other = catalog.default_scenario().model_copy(update={"name": "Other plan"})
    path = tmp_path / "other.json"
    write_scenario_file(path, other)
    assert store.set_field("training.seq_len", 4096)
    assert window.open_plan(path)
    assert store.undo_stack.count() == 0 and not window.undo_action.isEnabled()
    assert store.scenario.name == "Other plan" and not store.dirty
    assert store.set_field("dataset.epochs", 2.0)
    assert store.dirty
    store.undo()
    assert store.scenario.name == "Other plan" and store.scenario.training.seq_len != 4096
    assert not store.dirty  # undone back to the file's plan: clean again


def test_undo_after_save_makes_the_plan_dirty_and_redo_clean(window):
    store = window.store
    assert store.set_field("training.seq_len", 4096)
    store.mark_saved()
    assert not store.dirty
    store.undo()
    assert store.dirty  # the saved file holds 4096
    store.redo()
    assert not store.dirty


def test_ctrl_z_and_ctrl_shift_z_undo_and_redo(window, qtbot):
    store = window.store
    start = store.scenario.training.seq_len
    assert store.set_field("training.seq_len", 4096)
    window.activateWindow()
    window.tabs.setFocus()  # not a text field: those keep Ctrl+Z for their own text
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=20_000)
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert store.scenario.training.seq_len == start
    assert _field(window, "training.seq_len").widget.value() == start
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert store.scenario.training.seq_len == 4096


def test_typing_a_number_is_one_undo_step(window, qtbot):
    store = window.store
    start = store.scenario.training.seq_len
    spin = _field(window, "training.seq_len").widget
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, "8192")
    assert store.scenario.training.seq_len == 8192
    assert store.undo_stack.count() == 1
    store.undo()
    assert store.scenario.training.seq_len == start
    assert spin.value() == start


def test_edits_of_the_same_field_far_apart_stay_separate(qapp, monkeypatch):
    import tuneplan.ui.store as store_module

    clock = [100.0]
    monkeypatch.setattr(store_module.time, "monotonic", lambda: clock[0])
    store = AppStore()
    assert store.set_field("training.seq_len", 1024)
    clock[0] += 0.5
    assert store.set_field("training.seq_len", 4096)  # soon after: merges
    assert store.undo_stack.count() == 1
    clock[0] += store_module.MERGE_SECONDS + 1
    assert store.set_field("training.seq_len", 512)  # later: its own step
    assert store.undo_stack.count() == 2
    store.undo()
    assert store.scenario.training.seq_len == 4096
    store.undo()
    assert store.scenario == catalog.default_scenario()
    # typed back to where it was: the merged step has nothing left to undo and goes away
    clock[0] += 10
    assert store.set_field("training.seq_len", 3000)
    clock[0] += 0.1
    assert store.set_field("training.seq_len", catalog.default_scenario().training.seq_len)
    assert store.undo_stack.count() == 0


def test_undoing_a_rename_lets_the_name_follow_the_plan_again(window):
    store = window.store
    assert store.set_field("name", "My plan")
    store.undo()
    assert store.set_field("training.method", "lora")
    assert "LoRA" in store.scenario.name and store.scenario.name != "My plan"


@pytest.mark.parametrize("method", ["lora", "full"])
def test_undo_through_the_form_combo(window, method):
    store = window.store
    before = store.scenario
    combo = window.method_panel.fields["training.method"].widget
    combo.setCurrentIndex(combo.findData(method))
    assert store.scenario.training.method == method
    window.undo_action.trigger()
    assert store.scenario == before
    assert combo.currentData() == before.training.method
    assert store.undo_stack.count() == 1 and store.undo_stack.index() == 0
