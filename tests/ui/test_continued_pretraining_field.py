"""#18: continued pretraining picked at the Workload field starts from packed rows, in one undo step."""

from __future__ import annotations


def _field(window, path):
    return next(panel.fields[path] for panel in window.panels if path in panel.fields)


def test_picking_continued_pretraining_packs_the_rows_in_one_undo_step(window, qtbot):
    store = window.store
    store.set_field("training.sequence_mode", "dynamic")
    workload = _field(window, "training.workload").widget
    before = store.undo_stack.count()
    workload.setCurrentIndex(workload.findData("pt"))
    assert store.scenario.training.workload == "pt"
    assert store.scenario.training.sequence_mode == "packed"
    assert store.undo_stack.count() == before + 1
    qtbot.waitUntil(lambda: store.result is not None and store.result.memory is not None, timeout=20_000)
    store.undo_stack.undo()
    assert store.scenario.training.workload == "sft" and store.scenario.training.sequence_mode == "dynamic"
    # a plan already packed is left as it is
    store.set_field("training.sequence_mode", "fixed")
    store.set_field("training.workload", "pt")
    assert store.scenario.training.sequence_mode == "packed"
