"""The Limits tab (real widgets, offscreen): limits that fit exactly, the memory curve and its lines."""

from __future__ import annotations

import math
import re

import pytest
from PySide6.QtCore import Qt

from tuneplan import catalog
from tuneplan.core.result import GIB
from tuneplan.ui.limits_view import TokenAxis, token_label


def _show_limits(window, qtbot):
    window.tabs.setCurrentWidget(window.limits_view)
    ctl, store = window.limits_view.controller, window.store
    qtbot.waitUntil(lambda: ctl.state is not None and ctl.state.scenario == store.scenario, timeout=20_000)
    return ctl.state


def _first_int(text: str) -> int:
    plain = re.sub(r"<[^>]+>", "", text)
    return int(re.search(r"\d[\d,]*", plain).group().replace(",", ""))


def test_longest_sequence_shown_fits_and_one_more_token_does_not(window, qtbot):
    state = _show_limits(window, qtbot)
    view, store = window.limits_view, window.store
    shown = _first_int(view.seq_label.text())
    assert shown == state.selected.seq_len and not state.selected.seq_capped
    assert 2048 < shown < 131072
    assert store.set_field("training.seq_len", shown)
    assert store.result.memory.fits
    assert store.set_field("training.seq_len", shown + 1)
    assert not store.result.memory.fits


def test_largest_micro_batch_shown_fits_and_one_more_does_not(window, qtbot):
    state = _show_limits(window, qtbot)
    store = window.store
    shown = _first_int(window.limits_view.batch_label.text())
    assert shown == state.selected.micro_batch >= 1
    assert store.set_field("training.micro_batch", shown)
    assert store.result.memory.fits
    assert store.set_field("training.micro_batch", shown + 1)
    assert not store.result.memory.fits


def test_curve_rises_and_capacity_line_is_at_the_gpus_memory(window, qtbot):
    state = _show_limits(window, qtbot)
    chart = window.limits_view.chart
    xs, ys = chart.curve.getData()
    assert len(xs) >= 10
    # getData() gives the drawn (log10) x in log mode; the state keeps tokens
    tokens = [x for x, _ in state.curve]
    assert tokens == sorted(tokens) and tokens[0] == 256
    assert ys[-1] >= ys[0]
    assert list(ys) == pytest.approx([b / GIB for _, b in state.curve])
    assert chart.capacity_gib == pytest.approx(window.store.scenario.gpu.memory_gib)
    assert chart.capacity_gib == pytest.approx(23.99)
    assert chart.getPlotItem().getAxis("bottom").logMode
    # markers: the current length and the limit, in log10 x
    assert chart.current_line.value() == pytest.approx(math.log10(2048))
    assert chart.limit_line.value() == pytest.approx(math.log10(state.selected.seq_len))
    assert chart.limit_line.isVisible()
    # the curve covers both markers
    assert tokens[-1] >= max(2048, state.selected.seq_len)


def test_axis_units_and_power_of_two_ticks(window, qtbot):
    _show_limits(window, qtbot)
    plot = window.limits_view.chart.getPlotItem()
    assert "tokens" in plot.getAxis("bottom").labelText
    assert "GiB" in plot.getAxis("left").labelText
    axis = plot.getAxis("bottom")
    assert isinstance(axis, TokenAxis)
    ((_, ticks),) = axis.logTickValues(math.log10(256), math.log10(131072), 800, [])
    assert [token_label(10**v) for v in ticks][:3] == ["256", "512", "1k"]
    assert token_label(131072) == "128k" and token_label(1 << 20) == "1M" and token_label(5597) == "5,597"


def test_use_buttons_apply_the_limits(window, qtbot):
    state = _show_limits(window, qtbot)
    view, store = window.limits_view, window.store
    qtbot.mouseClick(view.use_seq, Qt.MouseButton.LeftButton)
    assert store.scenario.training.seq_len == state.selected.seq_len
    assert store.result.memory.fits


def test_local_gpu_hook_shows_its_limits_and_capacity_line(window, qtbot):
    _show_limits(window, qtbot)
    view = window.limits_view
    a100 = catalog.get_gpu("a100_80gb_sxm")
    view.set_local_gpu(a100, "Your A100")
    qtbot.waitUntil(lambda: view.controller.state.local is not None, timeout=20_000)
    local = view.controller.state.local
    assert local.gpu == a100 and local.seq_len > view.controller.state.selected.seq_len
    assert view.local_labels[0].isVisible() and "Your A100" in view.local_labels[0].text()
    assert view.chart.local_line.isVisible()
    assert view.chart.local_line.value() == pytest.approx(a100.memory_gib)
    view.set_local_gpu(None)
    qtbot.waitUntil(lambda: view.controller.state.local is None, timeout=20_000)
    assert not view.chart.local_line.isVisible()


def test_nothing_is_computed_while_the_tab_is_hidden(window, qtbot):
    state = _show_limits(window, qtbot)
    window.tabs.setCurrentIndex(0)
    window.store.set_field("training.seq_len", 1024)
    qtbot.wait(20)
    assert window.limits_view.controller.state is state  # stale, not recomputed
    state = _show_limits(window, qtbot)
    assert state.scenario.training.seq_len == 1024


def test_not_even_one_token_fits_says_so(window, qtbot):
    window.store.set_field("training.method", "full")
    state = _show_limits(window, qtbot)
    assert state.selected.seq_len == 0 and state.selected.micro_batch == 0
    assert "not even" in window.limits_view.seq_label.text()
    assert not window.limits_view.chart.limit_line.isVisible()


def test_the_likely_range_is_shaded_around_the_curve(window, qtbot):
    # total / (1 + 0.161) .. total / (1 - 0.403) at every point of the curve (MEASURED_ERROR, docs/accuracy.md)
    state = _show_limits(window, qtbot)
    chart = window.limits_view.chart
    totals = [b / GIB for _, b in state.curve]
    assert list(chart.band_low.getData()[1]) == pytest.approx([t / 1.161 for t in totals])
    assert list(chart.band_high.getData()[1]) == pytest.approx([t / 0.597 for t in totals])


def test_limits_also_say_how_far_the_whole_likely_range_fits(window, qtbot):
    sel = _show_limits(window, qtbot).selected
    assert 0 < sel.seq_len_cautious < sel.seq_len and 0 < sel.micro_batch_cautious <= sel.micro_batch
    text = window.limits_view.seq_label.text()
    assert f"{sel.seq_len_cautious:,} with the whole likely range" in text
    assert "#8a5a00" in text or "#e3b55a" in text  # the verdict's warning colour (light or dark theme)
    store = window.store
    assert store.set_field("training.seq_len", sel.seq_len_cautious)
    mem = store.result.memory
    assert mem.fits and mem.band_risk == "none"  # the whole range fits there
