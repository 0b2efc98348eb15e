"""#17: padding-free batches through the real widgets: the Sequence mode choice, the Length spread field it enables,
and the Why view's line for the largest micro-batch."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt


def _field(window, path):
    return next(panel.fields[path] for panel in window.panels if path in panel.fields)


def test_padding_free_is_sized_by_the_spread_typed_at_the_field(window, qtbot):
    store = window.store
    store.set_field("training.micro_batch", 4)
    store.set_field("dataset.tokens_per_example", 600)
    mode = _field(window, "training.sequence_mode").widget
    spread = _field(window, "dataset.tokens_std").widget
    assert not spread.isEnabled()  # packed, the default: nothing to size
    mode.setCurrentIndex(mode.findData("padding-free"))
    assert store.scenario.training.sequence_mode == "padding-free"
    qtbot.waitUntil(spread.isEnabled, timeout=20_000)
    qtbot.waitUntil(lambda: store.result.memory.batch_term is not None, timeout=20_000)
    bound = store.result.memory
    assert (bound.batch_term.key, bound.batch_term.value) == ("padding_free_bound", 4 * 2048)
    # a word is refused at the field and the plan is kept
    before = store.scenario
    spread.setFocus()
    qtbot.keyClicks(spread, "wide")
    qtbot.keyClick(spread, Qt.Key.Key_Return)
    assert store.scenario == before and _field(window, "dataset.tokens_std").message.isVisible()
    spread.clear()
    qtbot.keyClicks(spread, "300")
    qtbot.keyClick(spread, Qt.Key.Key_Return)
    assert store.scenario.dataset.tokens_std == pytest.approx(300)
    qtbot.waitUntil(lambda: store.result.memory.batch_term.key == "padding_free_batch", timeout=20_000)
    # default dataset: 10,000 examples x 3 epochs / 4 = 7,500 micro-batches; 4 x 600 + e_7500 x 2 x 300 tokens, with
    # e_7500 between e_1000 = 3.24 and e_10000 = 3.85 (Harter 1961)
    assert 2400 + 3.24 * 600 < store.result.memory.batch_term.value < 2400 + 3.85 * 600
    assert store.result.memory.total_bytes < bound.total_bytes
    # the Why view names the largest micro-batch
    window.tabs.setCurrentWidget(window.explain_view)
    qtbot.waitUntil(lambda: any("Largest micro-batch" in line.name for line in window.explain_view.totals_model.lines),
                    timeout=20_000)


def test_leaving_the_spread_field_keeps_a_value_it_shows_rounded(window, qtbot):
    store = window.store
    store.set_field("training.sequence_mode", "padding-free")
    store.set_field("dataset.tokens_std", 300.57)  # as a counted file sets it
    spread = _field(window, "dataset.tokens_std").widget
    assert spread.text() == "301"
    before = store.scenario
    spread.setFocus()
    qtbot.keyClick(spread, Qt.Key.Key_Tab)
    assert store.scenario == before and store.scenario.dataset.tokens_std == pytest.approx(300.57)


def test_retyping_the_mean_drops_the_longest_example_a_file_counted(window, qtbot):
    store = window.store
    # as Dataset -> From a file... applies a counted file: mean, spread and longest together
    store.set_fields({"dataset.tokens_per_example": 600.0, "dataset.tokens_std": 300.0,
                      "dataset.longest_tokens": 1800})
    field = _field(window, "dataset.tokens_per_example").widget
    field.setFocus()
    field.selectAll()
    qtbot.keyClicks(field, "2000")
    qtbot.keyClick(field, Qt.Key.Key_Return)
    d = store.scenario.dataset
    assert d.tokens_per_example == 2000 and d.longest_tokens is None  # 1,800 was shorter than the new mean
    assert d.tokens_std == 300  # typed or counted, the spread is the user's to keep (core caps it)
    store.undo_stack.undo()
    assert store.scenario.dataset.longest_tokens == 1800 and store.scenario.dataset.tokens_per_example == 600
