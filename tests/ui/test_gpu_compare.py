"""The "Compare GPUs" tab with real widgets: numbers from core.compare_gpus, sorting, highlights, the plan's GPU."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QModelIndex, Qt

from tuneplan import catalog
from tuneplan.core.cost import billed_hours, storage_cost
from tuneplan.storage.price_book import bundled_key, load_price_book
from tuneplan.ui import gpu_compare as gc
from tuneplan.ui.gpu_compare import CHEAPEST_BG, FASTEST_BG, GPU_ID_ROLE


@pytest.fixture
def compare(window, qtbot):
    """The comparison tab, shown and computed."""
    view = window.gpu_compare
    window.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.model.rowCount() > 0 and not view.controller.stale)
    return view


def _cell(view, row: int, col: int, role=Qt.ItemDataRole.DisplayRole):
    return view.proxy.index(row, col).data(role)


def _rows(view):
    return {r.gpu_id: r for r in view.controller.rows}


def _settle(view, qtbot):
    qtbot.waitUntil(lambda: not view.controller.stale)


def test_table_lists_every_catalog_gpu_with_units(compare):
    assert compare.model.rowCount() >= 30
    assert compare.model.rowCount() == len(catalog.list_gpus())
    assert compare.proxy.rowCount() == compare.model.rowCount()
    headers = [compare.model.headerData(c, Qt.Orientation.Horizontal) for c in range(compare.model.columnCount())]
    assert "Memory\n(GiB)" in headers and "On demand\n($ per run)" in headers and "Spot\n($ per run)" in headers
    assert "Time\n(hours)" in headers and "Peak\n(GiB)" in headers and "Prices\nseen" in headers
    # the rows are core.compare_gpus' rows
    h100 = _rows(compare)["h100_sxm"]
    r = compare.proxy_row_of("h100_sxm")
    assert _cell(compare, r, gc.ON_DEMAND) == f"${h100.on_demand_usd:,.2f}"
    assert _cell(compare, r, gc.FITS) == f"✓ {h100.micro_batch}"
    assert _cell(compare, r, gc.MEMORY) == "79.65"
    assert _cell(compare, r, gc.DATE)  # every priced row shows when its price was seen
    assert "RunPod" in _cell(compare, r, gc.ON_DEMAND, Qt.ItemDataRole.ToolTipRole) or \
        catalog.default_price("h100_sxm").provider in _cell(compare, r, gc.ON_DEMAND, Qt.ItemDataRole.ToolTipRole)
    # the default order is the ranking: cheapest fitting GPU first
    assert _cell(compare, 0, gc.GPU, GPU_ID_ROLE) == next(x.gpu_id for x in compare.controller.rows if x.cheapest)


def test_sorting_by_cost_puts_the_cheapest_first_and_empty_cells_last(compare):
    rows = compare.controller.rows
    priced = [r.on_demand_usd for r in rows if r.on_demand_usd is not None]
    compare.table.sortByColumn(gc.ON_DEMAND, Qt.SortOrder.AscendingOrder)
    assert _cell(compare, 0, gc.ON_DEMAND, gc.SORT_ROLE) == min(priced)
    shown = [_cell(compare, i, gc.ON_DEMAND, gc.SORT_ROLE) for i in range(compare.proxy.rowCount())]
    assert shown[:len(priced)] == sorted(priced)
    assert all(v is None for v in shown[len(priced):])
    compare.table.sortByColumn(gc.ON_DEMAND, Qt.SortOrder.DescendingOrder)
    shown = [_cell(compare, i, gc.ON_DEMAND, gc.SORT_ROLE) for i in range(compare.proxy.rowCount())]
    assert shown[:len(priced)] == sorted(priced, reverse=True)  # numeric, not "$9" > "$10"
    assert all(v is None for v in shown[len(priced):])  # still last
    compare.table.sortByColumn(gc.MEMORY, Qt.SortOrder.AscendingOrder)
    mems = [_cell(compare, i, gc.MEMORY, gc.SORT_ROLE) for i in range(compare.proxy.rowCount())]
    assert mems == sorted(mems)


def test_cheapest_fitting_gpu_is_highlighted(compare):
    rows = compare.controller.rows
    # GPUs that cannot run the plan's BF16/FlashAttention 2 (T4, V100) are never marked
    fitting = [r for r in rows if r.fits and r.compatible and r.best_usd is not None]
    assert any(not r.compatible for r in rows if r.fits)  # the V100s fit in memory but lack BF16
    marked = [r for r in rows if r.cheapest]
    assert len(marked) == 1
    cheapest = marked[0]
    assert cheapest.fits and cheapest.compatible
    assert cheapest.best_usd == min(r.best_usd for r in fitting)
    assert cheapest.best_usd == min(min(x for x in (r.on_demand_usd, r.spot_usd) if x is not None) for r in fitting)
    row = compare.proxy_row_of(cheapest.gpu_id)
    assert _cell(compare, row, gc.ON_DEMAND, Qt.ItemDataRole.BackgroundRole).color() == CHEAPEST_BG
    assert "★ cheapest" in _cell(compare, row, gc.GPU)
    assert "cheapest GPU this plan fits on" in _cell(compare, row, gc.GPU, Qt.ItemDataRole.ToolTipRole)
    others = [i for i in range(compare.proxy.rowCount()) if i != row]
    assert all("★" not in _cell(compare, i, gc.GPU) for i in others)
    assert "Cheapest:" in compare.answer.text()


def test_double_click_makes_it_the_plans_gpu(window, compare, qtbot):
    target = "a100_80gb_sxm"
    gpu = catalog.get_gpu(target)
    row = compare.proxy_row_of(target)
    compare.table.scrollTo(compare.proxy.index(row, gc.GPU))
    rect = compare.table.visualRect(compare.proxy.index(row, gc.GPU))
    qtbot.mouseClick(compare.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert compare.selected_gpu_id() == target and compare.use_button.isEnabled()
    qtbot.mouseDClick(compare.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert window.store.scenario.gpu.id == target
    assert window.vram_chart.capacity_gib == pytest.approx(gpu.memory_gib)
    assert "A100" in window.vram_chart.capacity_line.label.format
    _settle(compare, qtbot)
    row = compare.proxy_row_of(target)
    assert "● plan" in _cell(compare, row, gc.GPU)
    assert _cell(compare, row, gc.GPU, Qt.ItemDataRole.FontRole).bold()
    assert compare.selected_gpu_id() == target  # the selection survives the recompute
    assert not compare.use_button.isEnabled()
    # "Use for plan" on another row does the same
    compare.table.selectRow(compare.proxy_row_of("h100_sxm"))
    compare.use_button.click()
    assert window.store.scenario.gpu.id == "h100_sxm"
    assert window.vram_chart.capacity_gib == pytest.approx(catalog.get_gpu("h100_sxm").memory_gib)


def test_budget_highlights_the_fastest_gpu_within_it(compare, qtbot):
    rows = compare.controller.rows
    fitting = sorted((r for r in rows if r.fits and r.best_usd is not None), key=lambda r: r.hours)
    fastest_overall = fitting[0]
    budget = round(sorted(r.best_usd for r in fitting)[len(fitting) // 3], 2)  # rules out some GPUs
    compare.budget.setValue(budget)
    _settle(compare, qtbot)
    by_hand = min((r for r in compare.controller.rows if r.fits and r.best_usd is not None and r.best_usd <= budget),
                  key=lambda r: r.hours)
    assert by_hand.best_usd <= budget
    if fastest_overall.best_usd > budget:
        assert by_hand.gpu_id != fastest_overall.gpu_id
    marked = [r for r in compare.controller.rows if r.fastest_in_budget]
    assert [r.gpu_id for r in marked] == [by_hand.gpu_id]
    row = compare.proxy_row_of(by_hand.gpu_id)
    assert "⚡ fastest" in _cell(compare, row, gc.GPU)
    if not by_hand.cheapest:
        assert _cell(compare, row, gc.HOURS, Qt.ItemDataRole.BackgroundRole).color() == FASTEST_BG
    assert f"at most ${budget:,.2f} per run" in _cell(compare, row, gc.GPU, Qt.ItemDataRole.ToolTipRole)
    assert f"Fastest within ${budget:,.2f}" in compare.answer.text()
    # a budget nobody meets: no mark, and the answer says so
    compare.budget.setValue(0.01)
    _settle(compare, qtbot)
    assert not any(r.fastest_in_budget for r in compare.controller.rows)
    assert "No GPU runs it for $0.01 or less" in compare.answer.text()
    compare.budget.setValue(0)  # "No limit"
    _settle(compare, qtbot)
    assert compare.budget.text() == "No limit"
    assert [r.gpu_id for r in compare.controller.rows if r.fastest_in_budget] == [fastest_overall.gpu_id]


def test_only_gpus_that_fit(window, compare, qtbot):
    window.store.set_field("training.method", "full")  # 8B full fine-tune: only big cards
    _settle(compare, qtbot)
    fitting = [r for r in compare.controller.rows if r.fits]
    assert 0 < len(fitting) < len(compare.controller.rows)
    compare.fits_only.setChecked(True)
    assert compare.proxy.rowCount() == len(fitting)
    assert all(_cell(compare, i, gc.FITS).startswith("✓") for i in range(compare.proxy.rowCount()))
    compare.fits_only.setChecked(False)
    assert compare.proxy.rowCount() == len(compare.controller.rows)
    no = next(r for r in compare.controller.rows if not r.fits)
    row = compare.proxy_row_of(no.gpu_id)
    assert _cell(compare, row, gc.FITS) == "✗ no"
    assert _cell(compare, row, gc.ON_DEMAND) == "—"


def test_a_burst_of_edits_computes_once(window, compare, qtbot):
    before = compare.controller.computations
    store = window.store
    store.set_field("training.seq_len", 4096)
    store.set_field("training.lora_rank", 32)
    store.set_field("dataset.epochs", 4.0)
    assert compare.controller.computations == before  # nothing yet: the 0 ms timer is pending
    _settle(compare, qtbot)
    assert compare.controller.computations == before + 1
    h100 = _rows(compare)["h100_sxm"]
    assert h100.peak_gib > 13  # 4096 tokens now


def test_hidden_tab_does_not_recompute_until_shown(window, compare, qtbot):
    window.tabs.setCurrentIndex(0)
    before = compare.controller.computations
    window.store.set_field("training.seq_len", 4096)
    qtbot.wait(20)
    assert compare.controller.computations == before and compare.controller.stale
    window.tabs.setCurrentWidget(compare)
    _settle(compare, qtbot)
    assert compare.controller.computations == before + 1


def test_price_edit_changes_the_comparison_cost_by_hand_and_survives_reload(window, compare, qtbot):
    s = window.store.scenario
    gpu_id = "h100_sxm"
    old_row = _rows(compare)[gpu_id]
    entry = window.price_book.default_price(gpu_id)
    assert entry is not None and old_row.on_demand_usd is not None
    new_price = round(entry.usd_per_gpu_hour / 2, 2)  # stays the cheapest on-demand offer
    assert window.price_book.edit(bundled_key(entry), usd_per_gpu_hour=new_price)
    _settle(compare, qtbot)
    row = _rows(compare)[gpu_id]
    # by hand: price x billed hours x GPUs + storage (+ egress, other), over (1 - failure probability);
    # the offer is billed by its own provider's granularity
    p = s.pricing
    billed = billed_hours(row.hours * 3600, entry.billing, p.minimum_billed_minutes)
    storage, _ = storage_cost(p, row.hours)
    n = s.training.num_gpus
    by_hand = (new_price * billed * n + storage + p.egress_gb * p.egress_usd_per_gb + p.other_usd) / (
        1 - p.failure_probability)
    assert row.on_demand_usd == pytest.approx(by_hand, rel=1e-9)
    assert row.on_demand_usd - old_row.on_demand_usd == pytest.approx(
        (new_price - entry.usd_per_gpu_hour) * billed * n, rel=1e-9)
    r = compare.proxy_row_of(gpu_id)
    assert _cell(compare, r, gc.ON_DEMAND) == f"${row.on_demand_usd:,.2f}"
    assert _cell(compare, r, gc.DATE).endswith("✎")
    assert f"${new_price:.2f} per GPU-hour" in _cell(compare, r, gc.ON_DEMAND, Qt.ItemDataRole.ToolTipRole)
    # on disk: a fresh load sees the edit
    reloaded = load_price_book()
    assert reloaded.default_price(gpu_id).usd_per_gpu_hour == new_price
    assert reloaded.comparison_prices([gpu_id])[gpu_id][0] == new_price
    # reset restores the bundled price and the cost
    assert window.price_book.reset(bundled_key(entry)) == 1
    _settle(compare, qtbot)
    assert window.price_book.default_price(gpu_id) == catalog.default_price(gpu_id)
    assert _rows(compare)[gpu_id].on_demand_usd == pytest.approx(old_row.on_demand_usd)
    assert load_price_book().default_price(gpu_id) == catalog.default_price(gpu_id)


def test_overlays_end_at_each_gpus_total_cost(window, compare, qtbot):
    chart = window.cost_chart
    ids = compare.controller.cheapest_ids(3)
    assert len(ids) == 3
    compare.chart_cheapest.click()
    _settle(compare, qtbot)
    assert compare.model.overlay_ids == ids
    checked = [compare.model.index(compare.model.row_of(g), gc.CHART).data(Qt.ItemDataRole.CheckStateRole)
               for g in ids]
    assert all(c == Qt.CheckState.Checked for c in checked)
    series = chart.overlay_series()
    assert len(series) == 3
    rows = _rows(compare)
    for gpu_id, (label, hours, usd) in zip(ids, series, strict=True):
        row = rows[gpu_id]
        assert usd[-1] == pytest.approx(row.best_usd, rel=1e-9)  # 'done' = the table's cost per run
        if "spot" in label:  # expected time lost to interruptions makes a spot run longer
            assert hours[-1] > row.hours
        else:
            assert hours[-1] == pytest.approx(row.hours, rel=1e-6)
        assert usd == sorted(usd)  # cumulative
        assert f"${row.best_usd:,.2f}" in label
    legend = [label.text for _sample, label in chart.overlay_legend.items]
    assert legend[0].startswith("This plan: $") and len(legend) == 4
    assert not chart.legend.isVisible()  # the phase legend steps aside
    # the axes show every run
    (x0, x1), (y0, y1) = chart.getPlotItem().getViewBox().viewRange()
    scale = 60 if chart._minutes else 1
    assert x1 >= max(h[-1] for _l, h, _u in series) * scale
    assert y1 >= max(u[-1] for _l, _h, u in series)
    # the curves follow the plan: more epochs cost more on every GPU, and still end at the rows' costs
    before = [u[-1] for _l, _h, u in series]
    assert window.store.set_field("dataset.epochs", 6.0)
    _settle(compare, qtbot)
    after = [u[-1] for _l, _h, u in chart.overlay_series()]
    assert all(a > b for a, b in zip(after, before, strict=True))
    assert after == pytest.approx([_rows(compare)[g].best_usd for g in ids], rel=1e-9)
    # unticking one by its checkbox, then clearing
    first = compare.model.index(compare.model.row_of(ids[0]), gc.CHART)
    assert compare.model.setData(first, Qt.CheckState.Unchecked.value, Qt.ItemDataRole.CheckStateRole)
    _settle(compare, qtbot)
    assert len(chart.overlay_series()) == 2
    compare.clear_chart.click()
    _settle(compare, qtbot)
    assert chart.overlay_series() == [] and chart.overlay_items == []
    assert chart.legend.isVisible()


def test_unfit_or_unpriced_rows_draw_nothing(window, compare, qtbot):
    unpriced = next(r for r in compare.controller.rows if r.fits and r.best_usd is None)
    compare.model.set_overlays([unpriced.gpu_id])
    _settle(compare, qtbot)
    assert window.cost_chart.overlay_series() == []
    assert compare.controller.overlay_curve(unpriced) is None
    assert compare.model.data(QModelIndex()) is None


def test_gpus_that_cannot_run_bf16_are_flagged(compare):
    # the default plan trains in BF16 with FlashAttention 2: the V100 and T4 lack both
    v100 = next(r for r in compare.controller.rows if r.gpu_id == "v100_16gb")
    assert not v100.compatible and not v100.cheapest
    row = compare.proxy_row_of("v100_16gb")
    assert "⚠" in _cell(compare, row, gc.GPU)
    assert "FP16" in _cell(compare, row, gc.GPU, Qt.ItemDataRole.ToolTipRole)


def test_fits_column_says_when_the_likely_range_disagrees(window, compare, qtbot):
    # LoRA of Llama 3.1 8B at 1,024 tokens: some cards are tight against the likely range, some short but within it
    window.store.set_field("training.method", "lora")
    window.store.set_field("training.seq_len", 1024)
    _settle(compare, qtbot)
    col = gc.FITS
    for row in range(compare.proxy.rowCount()):
        gpu = _rows(compare)[compare.proxy.index(row, 0).data(GPU_ID_ROLE)]
        text = _cell(compare, row, col)
        expected = {"tight": " · tight", "unlikely": " · unlikely", "possible": " · may fit"}.get(gpu.band_risk, "")
        assert text.endswith(expected) if expected else "·" not in text
    risks = {r.band_risk for r in compare.controller.rows}
    assert risks & {"tight", "unlikely", "possible"}, risks  # the plan exercises at least one warning


def test_hours_and_on_demand_cells_show_the_likely_range(compare):
    h100 = _rows(compare)["h100_sxm"]
    assert h100.hours_low < h100.hours < h100.hours_high and h100.usd_low < h100.on_demand_usd < h100.usd_high
    r = compare.proxy_row_of("h100_sxm")
    hours_tip = _cell(compare, r, gc.HOURS, Qt.ItemDataRole.ToolTipRole)
    assert f"Likely between {gc._duration(h100.hours_low)} and {gc._duration(h100.hours_high)}" in hours_tip
    cost_tip = _cell(compare, r, gc.ON_DEMAND, Qt.ItemDataRole.ToolTipRole)
    assert f"Likely {gc._usd(h100.usd_low)}–{gc._usd(h100.usd_high)} per run" in cost_tip
    assert f"({gc._hours(h100.hours_low)}–{gc._hours(h100.hours_high)} h)" in cost_tip
    # the cells themselves keep the central value, and sort by it
    assert _cell(compare, r, gc.HOURS) == gc._hours(h100.hours)
    assert _cell(compare, r, gc.ON_DEMAND) == gc._usd(h100.on_demand_usd)
    assert _cell(compare, r, gc.HOURS, gc.SORT_ROLE) == h100.hours
    assert _cell(compare, r, gc.ON_DEMAND, gc.SORT_ROLE) == h100.on_demand_usd
    # no on-demand price or no fit: no cost range in the tooltip
    for row in compare.controller.rows:
        if row.on_demand_usd is None:
            tip = _cell(compare, compare.proxy_row_of(row.gpu_id), gc.ON_DEMAND, Qt.ItemDataRole.ToolTipRole)
            assert "Likely" not in tip


def test_a_one_gpu_plan_is_not_priced_at_an_8_gpu_spot_nodes_per_gpu_rate(compare):
    # New-user trial (issue #21): B200 showed spot $4.27 above on demand $3.60 per run, from CoreWeave's
    # "HGX B200 (8x node)" spot row: $4.26 per GPU-hour, but only rented as a whole $34.11/h node (and billed
    # by the hour). A 1-GPU plan's cheapest spot B200 is a single GPU (Vast.ai community, $4.71/h, per second).
    r = compare.proxy_row_of("b200")
    b200 = _rows(compare)["b200"]
    assert b200.fits and b200.spot_usd is not None and b200.on_demand_usd is not None
    tip = _cell(compare, r, gc.SPOT, Qt.ItemDataRole.ToolTipRole)
    assert "CoreWeave" not in tip and "Vast.ai" in tip
    assert b200.spot_usd < b200.on_demand_usd
    assert _cell(compare, r, gc.SPOT) == f"${b200.spot_usd:,.2f}"  # no "↑" mark


def test_spot_above_on_demand_is_marked_and_explained(window, compare, qtbot):
    # on 8 H100 SXM the run is minutes long: Mithril's $1.00 spot GPU is billed by the whole hour (its terms are
    # unverified), Hyperstack's on-demand one per minute, so spot costs more per run; the cell says so
    assert window.store.set_fields({"training.num_gpus": 8, "training.sharding": "fsdp"})
    _settle(compare, qtbot)
    h100 = _rows(compare)["h100_sxm"]
    assert h100.spot_usd > h100.on_demand_usd
    r = compare.proxy_row_of("h100_sxm")
    assert _cell(compare, r, gc.SPOT) == f"${h100.spot_usd:,.2f} ↑"
    tip = _cell(compare, r, gc.SPOT, Qt.ItemDataRole.ToolTipRole)
    assert f"More than on demand (${h100.on_demand_usd:,.2f}) for this run" in tip
    assert "Mithril is billed by the whole hour" in tip and "Hyperstack bills per minute" in tip
    assert "↑: spot costs more than on demand" in compare.note.text()


def test_a_node_only_offer_bills_its_whole_node():
    from tuneplan.catalog.prices import billed_gpus, plan_usd_per_gpu_hour

    node = next(p for p in catalog.prices_for_gpu("b200") if p.provider == "CoreWeave" and p.kind == "spot")
    assert node.gpus_per_node == 8 and not node.node_sizes
    assert billed_gpus(node, 1) == 8 and billed_gpus(node, 8) == 8 and billed_gpus(node, 12) == 16
    assert plan_usd_per_gpu_hour(node, 1) == pytest.approx(8 * node.usd_per_gpu_hour)  # $34.11 per node-hour
    assert plan_usd_per_gpu_hour(node, 8) == node.usd_per_gpu_hour
    single = next(p for p in catalog.prices_for_gpu("b200") if p.provider == "Vast.ai")
    assert billed_gpus(single, 3) == 3
    runpod = single.model_copy(update={"gpus_per_node": 8, "node_sizes": (1, 2, 4, 8)})
    assert billed_gpus(runpod, 3) == 4 and billed_gpus(runpod, 1) == 1


def test_prices_older_than_90_days_are_marked_old_as_in_the_price_book(compare):
    """#19/#21: the "Prices seen" cell marks a date more than 90 days before today "· old", as the price book and
    the plan's offer picker do (a new user saw 2026-08-26 unmarked here and marked in the Hardware panel)."""
    from datetime import date

    from tuneplan.catalog.prices import is_old_price

    today, marked = date.today(), 0
    for item in compare.model.items:
        dates = [d for d in (gc._date(item.on_demand), gc._date(item.spot)) if d and d != gc.UNDATED]
        if not dates:
            continue
        cell = _cell(compare, compare.proxy_row_of(item.row.gpu_id), gc.DATE)
        old = is_old_price(min(dates), today)
        assert cell.rstrip(" ✎").endswith("· old") == old, (item.row.gpu_id, cell)
        marked += old
    assert marked  # the bundled catalog has prices seen more than 90 days ago


def test_a_plan_its_stack_refuses_everywhere_says_why_not_that_no_gpu_has_a_price(window, qtbot):
    # new-user trial (issue #21): LLaMA-Factory refuses predict_with_generate under ZeRO-3 on every card; the answer
    # said "None of the GPUs it fits on has a price", and the badge's ⛔ was a box (no installed font has it)
    store = window.store
    assert store.set_field("training.stack", "llama-factory")
    for path, value in (("training.method", "lora"), ("training.num_gpus", 2), ("training.sharding", "zero3"),
                        ("training.eval_micro_batch", 2), ("training.eval_generate_tokens", 64)):
        assert store.set_field(path, value), path
    view = window.gpu_compare
    window.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.model.rowCount() > 0 and not view.controller.stale)
    rows = view.controller.rows
    assert any(r.fits for r in rows) and all(not r.compatible for r in rows if r.fits)
    answer = view.answer.text()
    assert "has a price" not in answer
    assert "cannot run as planned on any of them" in answer and "ZeRO-3" in answer
    h100 = view.proxy_row_of("h100_sxm")
    # the Fits column says it (it read "✓ 1" beside the badge, which cut the GPU's name in half)
    assert _cell(view, h100, gc.FITS) == "✖ cannot run"
    assert _cell(view, h100, gc.RANK) == ""  # no rank among setups that cannot run
    assert _cell(view, h100, gc.GPU).startswith("H100 SXM5") and "cannot run" not in _cell(view, h100, gc.GPU)
    tip = _cell(view, h100, gc.FITS, Qt.ItemDataRole.ToolTipRole)
    assert tip.startswith("Fits in memory at micro-batch 1") and "ZeRO-3" in tip


def test_a_plan_that_runs_on_some_fitting_gpus_says_on_how_many(compare):
    # the default plan fits on the V100s too, which lack BF16: the answer counts the GPUs it can run on
    rows = compare.controller.rows
    runnable = sum(1 for r in rows if r.fits and r.compatible)
    assert runnable < sum(1 for r in rows if r.fits)
    assert f"It can run as planned on {runnable} of them." in compare.answer.text()
    assert "c62828" not in compare.answer.text()  # good news, not in red (new-user trial)


def test_every_badge_glyph_is_in_the_default_font():
    from PySide6.QtGui import QFont, QRawFont

    raw = QRawFont.fromFont(QFont())
    if not raw.isValid() or "DejaVu" not in raw.familyName():
        pytest.skip(f"the check is about the bundled Linux font (DejaVu Sans), not {raw.familyName()!r}")
    for ch in "✖⚠⚡✓✗●★":
        assert raw.supportsCharacter(ord(ch)), ch  # (the str overload answers False for any character)
