"""The cost chart's likely range: a translucent band between the plan finishing fast and slow, read from its data."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QPointF

from tuneplan import catalog
from tuneplan.core.estimate import estimate
from tuneplan.ui import i18n
from tuneplan.ui.charts import CostChart, likely_band, likely_curves


@pytest.fixture(scope="module")
def result():
    return estimate(catalog.default_scenario())  # Llama 3.1 8B QLoRA on an RTX 4090, about 2.4 h


@pytest.fixture
def chart(qtbot):
    c = CostChart()
    qtbot.addWidget(c)
    c.resize(700, 300)
    c.show()
    qtbot.waitExposed(c)
    return c


def _legend(chart):
    return {label.text: label.isVisible() for _sample, label in chart.legend.items}


def test_the_band_ends_at_the_likely_range_of_time_and_cost(chart, result):
    t, c = result.time, result.cost
    assert t.low_seconds < t.seconds < t.high_seconds and c.low_usd < c.total_usd < c.high_usd
    chart.set_cost(c, t)
    (low_h, low_usd), (high_h, high_usd) = chart.likely_range()
    assert (low_h, low_usd) == pytest.approx((t.low_seconds / 3600, c.low_usd))
    assert (high_h, high_usd) == pytest.approx((t.high_seconds / 3600, c.high_usd))
    hours, lower, upper = chart.band_series()
    # the finish window: from the fast end to the slow end, shaded from the axis up to the cost at each end
    assert hours == pytest.approx([low_h, high_h]) and lower == [0.0, 0.0]
    assert upper == pytest.approx([low_usd, high_usd])
    # the plan's own end lies inside the window, on (or within a thousandth of) its top edge
    end_h, end_usd = c.curve[-1].hours, c.curve[-1].usd
    assert low_h < end_h < high_h
    assert end_usd == pytest.approx(np.interp(end_h, hours, upper), rel=0.02)
    # what is drawn: the two edges of the FillBetweenItem, on the axis in hours
    xs, ys = chart.band_upper.getData()
    assert list(xs) == pytest.approx(hours) and list(ys) == pytest.approx(upper)
    assert list(chart.band_lower.getData()[1]) == pytest.approx(lower)
    assert chart.band.isVisible() and not chart.band.path().isEmpty()
    assert chart.band.brush().color().alpha() < 80  # translucent, like the VRAM bar's range
    # the axes reach the slow end
    (_x0, x1), (_y0, y1) = chart.getPlotItem().vb.viewRange()
    assert x1 >= high_h and y1 >= high_usd


def test_setup_is_not_scaled_and_the_curves_scale_after_it(result):
    t, c = result.time, result.cost
    fast, slow = likely_curves(c, t)
    setup = [(p.hours, p.usd) for p in c.curve if p.phase == "setup"]
    assert fast[:len(setup)] == setup and slow[:len(setup)] == setup
    s_h, s_usd = setup[-1]
    f = (t.low_seconds / 3600 - s_h) / (c.curve[-1].hours - s_h)
    p = c.curve[len(setup) + 3]
    assert fast[len(setup) + 3][0] == pytest.approx(s_h + (p.hours - s_h) * f)
    assert fast[-1] == pytest.approx((t.low_seconds / 3600, c.low_usd))
    assert slow[-1] == pytest.approx((t.high_seconds / 3600, c.high_usd))
    hours, lower, upper = likely_band(fast, slow)
    assert (hours, lower, upper) == ([fast[-1][0], slow[-1][0]], [0.0, 0.0], [fast[-1][1], slow[-1][1]])


def test_legend_and_hover_name_both_ends(chart, result, qtbot):
    t, c = result.time, result.cost
    chart.set_cost(c, t)
    assert _legend(chart)["Likely range"]
    low, high = i18n.fmt_usd(c.low_usd), i18n.fmt_usd(c.high_usd)
    hours = f"{i18n.fmt_number(t.low_seconds / 3600, 1)}–{i18n.fmt_number(t.high_seconds / 3600, 1)} h"
    assert chart.band_text == f"likely {hours}, {low}–{high}"  # "likely 1.9–4.5 h, $1.45–$3.33"
    assert chart.band_text in chart.band.toolTip()
    # hovering the plot between the two ends shows the range
    vb = chart.getPlotItem().vb
    x = (t.low_seconds + t.high_seconds) / 2 / 3600
    chart._on_hover(vb.mapViewToScene(QPointF(x, c.total_usd)))
    assert chart.band_text in chart.hover_text
    # and inside the training phase before the fast end, the phase and not the range
    chart._on_hover(vb.mapViewToScene(QPointF(t.low_seconds / 3600 * 0.6, c.total_usd / 2)))
    assert "Training" in chart.hover_text and chart.band_text not in chart.hover_text


def test_no_time_or_no_range_draws_no_band(chart, result):
    chart.set_cost(result.cost, result.time)
    chart.set_cost(result.cost)  # e.g. the report's chart: no time estimate
    assert chart.likely_range() is None and chart.band_series() == ([], [], [])
    assert not chart.band.isVisible() and "Likely range" not in _legend(chart)  # no entry, not a hidden one
    assert chart.band_text == "" and len(chart.band_upper.getData()[0]) == 0
    flat = result.time.model_copy(update={"low_seconds": 0.0, "high_seconds": 0.0})
    chart.set_cost(result.cost, flat)
    assert chart.likely_range() is None and not chart.band.isVisible()


def test_short_runs_give_the_range_in_minutes(chart):
    s = catalog.default_scenario()
    s = s.model_copy(update={"dataset": s.dataset.model_copy(update={"examples": 200})})
    r = estimate(s)
    assert r.time.high_seconds < 3600
    chart.set_cost(r.cost, r.time)
    assert "minutes" in chart.getPlotItem().getAxis("bottom").labelText
    assert " min, $" in chart.band_text
    xs, _ys = chart.band_upper.getData()
    assert xs[-1] == pytest.approx(r.time.high_seconds / 60)  # drawn in minutes
    assert chart.band_series()[0][-1] == pytest.approx(r.time.high_seconds / 3600)  # data in hours


def test_overlays_keep_the_band(chart, result):
    chart.set_cost(result.cost, result.time)
    xs = [p.hours for p in result.cost.curve]
    chart.set_overlays([("Other GPU", [x * 0.5 for x in xs], [p.usd for p in result.cost.curve])])
    assert chart.likely_range() is not None and chart.band.isVisible()


def test_cost_legend_has_no_gap_for_a_hidden_phase_and_packs_its_rows(window, qtbot):
    # issue #21: a phase with no time kept an empty row, and the column spread its rows over the chart's height
    window.resize(1366, 768)
    chart = window.cost_chart
    qtbot.waitUntil(lambda: chart.legend.sceneBoundingRect().height() > 0)
    qtbot.wait(50)
    labels = [label for _sample, label in chart.legend.items]
    assert all(label.isVisible() for label in labels)
    tops = sorted(label.sceneBoundingRect().top() for label in labels)
    height = labels[0].sceneBoundingRect().height()
    assert all(b - a <= height + 2 for a, b in zip(tops, tops[1:], strict=False)), (tops, height)
    drawn = {p for p, item in chart.phase_items.items() if item.getData()[0] is not None and len(item.getData()[0])}
    assert {label.text for label in labels} == {chart.phase_items[p].name() for p in drawn} | {"Likely range"}
