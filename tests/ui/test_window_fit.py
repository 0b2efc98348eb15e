"""The Plan tab on a 1366x768 laptop screen, through the real window (issue #21, new-user trial under Xvfb):
no headline card cuts a line off, no chart label is cut at the plot's edge, no legend sits on the data."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint

from tuneplan.hw.probe import ProbeResult
from tuneplan.ui import i18n

PROBE = ProbeResult(status="no_driver", message="NVML library not found", gpus=[])


def _cannot_run_plan(window) -> None:
    """The trial's plan: Llama 3.1 70B QLoRA on an RTX 3060 12GB, 20,000 examples (short by 34.7 GiB, 216 h)."""
    store = window.store
    store.set_model("llama-3.1-70b")
    store.set_field("training.method", "qlora")
    store.set_gpu("rtx3060_12gb")
    store.set_field("dataset.examples", 20000)
    assert not store.result.memory.fits


def _clipped(window) -> list[str]:
    """Every visible card line that has less room than its text needs."""
    cut = []
    for card in window.card_strip.cards:
        for label in (card.value, card.detail, card.reason):
            if not label.isVisibleTo(window):
                continue
            if label.wordWrap():
                if label.height() < label.heightForWidth(label.width()):
                    cut.append(f"{card.title.text()}: {label.text()!r} {label.height()} < "
                               f"{label.heightForWidth(label.width())} px high")
            elif label.width() < label.sizeHint().width() or label.height() < label.sizeHint().height():
                cut.append(f"{card.title.text()}: {label.text()!r} {label.size().toTuple()} < "
                           f"{label.sizeHint().toTuple()}")
    return cut


def _laptop(window, qtbot) -> None:
    window.resize(1366, 768)
    qtbot.wait(50)


def test_cards_of_a_plan_that_cannot_run_show_every_line_at_1366x768(window, qtbot):
    _laptop(window, qtbot)
    _cannot_run_plan(window)
    qtbot.wait(50)
    assert not _clipped(window), _clipped(window)
    # the cards of one row line up: same top, same height
    rows: dict[int, set[tuple[int, int]]] = {}
    for card in window.card_strip.cards:
        top = card.mapTo(window, QPoint(0, 0)).y()
        rows.setdefault(top, set()).add(card.height())
    assert all(len(heights) == 1 for heights in rows.values()), rows
    # and the default plan again: the cards shrink back (no leftover height)
    window.store.undo_stack.undo()
    window.store.undo_stack.undo()
    window.store.undo_stack.undo()
    window.store.undo_stack.undo()
    qtbot.wait(50)
    assert not _clipped(window), _clipped(window)
    card = window.memory_card
    assert card.height() == card.layout().totalHeightForWidth(card.width())


@pytest.fixture
def chinese(qapp):
    """The zh_CN translator for one test (installed before the window is built)."""
    assert i18n.install_translator(qapp, "zh_CN") == "zh_CN"
    yield
    i18n.remove_translators(qapp)


def test_chinese_verdict_of_a_plan_that_cannot_run_is_not_cut_off(chinese, show_window, qtbot):
    # "放不下，还差 34.7 GiB" is wider than a quarter of the strip: the cards go to two rows instead of cutting it
    window = show_window(PROBE)
    _laptop(window, qtbot)
    _cannot_run_plan(window)
    qtbot.wait(50)
    assert not _clipped(window), _clipped(window)


def _inside_plot(chart, line) -> bool:
    view = chart.getPlotItem().getViewBox().sceneBoundingRect()
    label = line.label.sceneBoundingRect()
    return view.left() - 1 <= label.left() and label.right() <= view.right() + 1


def test_capacity_label_of_a_small_card_is_not_cut_at_the_plots_left_edge(window, qtbot):
    _laptop(window, qtbot)
    chart = window.vram_chart
    assert _inside_plot(chart, chart.capacity_line)  # the default plan: left of the line, as before
    assert chart.capacity_line.label.anchors[0][0] == 1
    _cannot_run_plan(window)  # a 12 GiB line near the left of a 0-80 GiB axis
    qtbot.wait(50)
    assert "RTX 3060 12GB: 12.00 GiB" in chart.capacity_line.label.toPlainText()
    assert _inside_plot(chart, chart.capacity_line)
    assert chart.capacity_line.label.anchors[0][0] == 0  # right of its line


def _off_the_plot(chart) -> bool:
    """The legend lies outside the plot's data area (it may touch its edge)."""
    view = chart.getPlotItem().getViewBox().sceneBoundingRect().adjusted(1, 1, -1, -1)
    return not chart.legend.sceneBoundingRect().intersects(view)


def test_cost_legend_is_beside_the_plot_not_over_the_start_of_the_curve(window, qtbot):
    _laptop(window, qtbot)
    chart = window.cost_chart
    qtbot.waitUntil(lambda: chart.legend.sceneBoundingRect().width() > 0)
    assert _off_the_plot(chart)
    # the trial's plan whose curve rose through the old top-left legend: Llama 3.1 70B QLoRA on an A100 80GB
    window.store.set_model("llama-3.1-70b")
    window.store.set_field("training.method", "qlora")
    window.store.set_gpu("a100_80gb_sxm")
    qtbot.wait(50)
    assert _off_the_plot(chart)
    assert {label.text for _s, label in chart.legend.items if label.isVisible()} >= {"Training", "Likely range"}


def test_limits_legend_is_under_the_axis_not_over_the_now_and_limit_markers(window, qtbot):
    _laptop(window, qtbot)
    window.tabs.setCurrentWidget(window.limits_view)
    chart = window.limits_view.chart
    qtbot.waitUntil(lambda: chart.state is not None, timeout=10000)
    qtbot.wait(50)
    assert _off_the_plot(chart)
    for line in (chart.current_line, chart.limit_line, chart.capacity_line):
        assert not chart.legend.sceneBoundingRect().intersects(line.label.sceneBoundingRect())


# -- a 1024x640 screen (issue #21): the window fits it, Compare GPUs' rows wrap instead of widening it ----------

def _inside(widget, parent) -> bool:
    """``widget`` lies wholly inside ``parent`` and has at least the room it asks for."""
    top_left = widget.mapTo(parent, QPoint(0, 0))
    return (top_left.x() >= 0 and top_left.x() + widget.width() <= parent.width()
            and widget.width() >= widget.minimumSizeHint().width())


def test_window_opens_at_the_size_of_a_1024x640_screen_and_compare_gpus_rows_wrap(window, qtbot):
    from tuneplan.ui.app import initial_size

    # the form (483 px) beside Compare GPUs' one-row toolbar (725 px) and legend row (779 px) made it 1286 px
    assert window.minimumSizeHint().width() <= 1024, window.minimumSizeHint()
    window.resize(*initial_size(1024, 640))
    window.tabs.setCurrentWidget(window.gpu_compare)
    qtbot.wait(50)
    assert window.width() == 1024
    view = window.gpu_compare
    top = [view.budget, view.fits_only, view.chart_cheapest, view.clear_chart, view.edit_prices]
    bottom = [*view.legend, view.use_button, view.find_setup]
    for w in top + bottom:
        assert _inside(w, view), (w, w.mapTo(view, QPoint(0, 0)), w.width(), view.width())
    # the rows went to two lines each rather than run off the window's right edge
    assert len(view.top_row.lines(view.top_row.geometry().width())) == 2
    assert len(view.bottom_row.lines(view.bottom_row.geometry().width())) == 2
    assert view.find_setup.geometry().bottom() < view.note.geometry().top()  # the wrapped row pushes the note down
    # the GPU column keeps a readable width (the squeezed table left it 16 px: '…' for every name)
    from tuneplan.ui.gpu_compare import GPU, GPU_COLUMN_MIN

    assert view.table.columnWidth(GPU) >= GPU_COLUMN_MIN
    # on a wide window they are one line again, the buttons right-aligned
    window.resize(1400, 900)
    qtbot.wait(50)
    assert len(view.top_row.lines(view.top_row.geometry().width())) == 1
    assert view.edit_prices.mapTo(view, QPoint(0, 0)).x() + view.edit_prices.width() >= view.width() - 12


def _four_plans(window):
    """The trial's four saved plans, compared: an 8B and two 70B QLoRA plans on 24 and 12 GiB cards beside a
    70B LoRA on an H200, so the 24 GiB line sits near the left of a 0-250 GiB axis."""
    from tuneplan.storage import ScenarioLibrary
    from tuneplan.ui.scenario_compare import CURRENT

    lib, files = ScenarioLibrary(), []
    for name, model, method, gpu in [("8B QLoRA on 4090", "llama-3.1-8b", "qlora", "rtx4090"),
                                     ("70B QLoRA on 4090", "llama-3.1-70b", "qlora", "rtx4090"),
                                     ("70B QLoRA on 3060", "llama-3.1-70b", "qlora", "rtx3060_12gb"),
                                     ("70B LoRA on H200", "llama-3.1-70b", "lora", "h200")]:
        window.store.set_model(model)
        window.store.set_field("training.method", method)
        assert window.store.set_gpu(gpu)
        s = window.store.scenario.model_copy(deep=True)
        s.name = name
        files.append(lib.save(s))
    view = window.compare_view
    window.tabs.setCurrentWidget(view)
    view.refresh_picker()
    view.pick(CURRENT, False)
    for f in files:
        assert view.pick(str(f))
    return view


def test_compare_memory_chart_capacity_labels_stay_in_the_plot_and_off_other_rows_at_1024x640(window, qtbot):
    from PySide6.QtCore import QRectF

    from tuneplan.ui.charts import COMPARE_BAR_H

    window.resize(1024, 640)
    view = _four_plans(window)
    qtbot.wait(100)
    chart = view.vram_chart
    vb = chart.getPlotItem().getViewBox()
    plot = vb.sceneBoundingRect()
    labels = chart.cap_labels[:4]
    assert [label.toPlainText() for label in labels][:2] == ["RTX 4090: 23.99 GiB"] * 2
    bars = []
    for i, total in enumerate(chart.bar_totals()):
        y = chart.row_y(i)
        bars.append(vb.mapViewToScene(QRectF(0, y - COMPARE_BAR_H / 2, total, COMPARE_BAR_H)).boundingRect())
    for i, label in enumerate(labels):
        rect = label.sceneBoundingRect()
        # not cut at the plot's left (or right) edge: the 24 GiB line is too far left for a label left of it
        assert plot.left() - 1 <= rect.left() and rect.right() <= plot.right() + 1, (label.toPlainText(), rect, plot)
        # not over the row above (its bar or its capacity label)
        for j, bar in enumerate(bars):
            if j != i:
                assert not rect.adjusted(1, 1, -1, -1).intersects(bar), (label.toPlainText(), j)
        for other in labels[:i]:
            assert not rect.adjusted(1, 1, -1, -1).intersects(other.sceneBoundingRect())
    assert labels[0].anchor.x() == 0  # right of its line: the shared rule of the plan's VRAM bar
    # the tab's export buttons are on screen, not past the window's right edge
    for button in (view.csv_button, view.charts_button, view.report_button):
        right = button.mapTo(window, QPoint(button.width(), 0)).x()
        assert right <= window.width(), (button.text(), right)


def test_limits_tab_at_1024x640_keeps_its_texts_to_a_few_lines_and_its_axis_title_whole(window, qtbot):
    # new-user trial (issue #21): five columns side by side wrapped "4 sequences of 2,048 tokens (now 1) · 1 with the
    # whole likely range" onto 7 lines, and the squeezed chart cut "Peak device memory per GPU (GiB)"
    from tuneplan.ui.app import initial_size

    window.resize(*initial_size(1024, 640))
    view = window.limits_view
    window.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.chart.state is not None, timeout=10000)
    qtbot.wait(50)
    line = view.batch_label.fontMetrics().lineSpacing()
    for label in (view.batch_label, view.seq_label):
        assert label.height() >= label.heightForWidth(label.width())  # nothing cut
        assert label.heightForWidth(label.width()) <= 3 * line + 4, (label.text(), label.width())
    for name in view.row_names[:2]:  # "Largest micro-batch" on one line
        assert name.height() <= name.fontMetrics().lineSpacing() + 4, name.text()
    axis = view.chart.getPlotItem().getAxis("left")
    # the rotated title is no longer than the axis it stands beside
    assert axis.label.boundingRect().width() <= axis.geometry().height(), (
        axis.label.boundingRect().width(), axis.geometry().height())
    # the chart keeps its height and the tab scrolls to its legend instead of squeezing it
    assert view.chart.height() >= view.chart.minimumHeight()
    assert view.scroll.verticalScrollBar().maximum() > 0


def _cells_in_view(table, column) -> bool:
    header = table.horizontalHeader()
    left = header.sectionViewportPosition(column)
    return left >= 0 and left + header.sectionSize(column) <= table.viewport().width()


def test_compare_gpus_shows_time_and_cost_without_scrolling_sideways_at_1024x640(window, qtbot):
    # new-user trial (issue #21): at 1024 px the hours and both cost columns lay past the table's right edge
    from tuneplan.ui import gpu_compare as gc
    from tuneplan.ui.app import initial_size

    window.resize(*initial_size(1024, 640))
    view = window.gpu_compare
    window.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.model.rowCount() > 0, timeout=10000)
    qtbot.wait(50)
    table = view.table
    for column in (gc.GPU, gc.HOURS, gc.ON_DEMAND, gc.SPOT):
        assert _cells_in_view(table, column), (gc.COLUMNS[column], table.horizontalHeader().sectionViewportPosition(column))
    # on a wide window every column is in view again, in the model's order
    window.resize(1400, 900)
    qtbot.wait(50)
    header = table.horizontalHeader()
    assert [header.logicalIndex(v) for v in range(header.count())] == list(range(len(gc.COLUMNS)))
    assert all(_cells_in_view(table, c) for c in range(len(gc.COLUMNS)))


def test_compare_gpus_cells_are_not_cut_at_1366x768(window, qtbot):
    # the trial's clipped cells: "2026-08-26 ·…" (the "· old" mark cut off) and "RTX 6000 Ada Generation ★ c…"
    from PySide6.QtCore import Qt

    from tuneplan.ui import gpu_compare as gc

    _laptop(window, qtbot)
    view = window.gpu_compare
    window.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.model.rowCount() > 0, timeout=10000)
    qtbot.wait(50)
    table, model = view.table, view.table.model()
    for column in (gc.DATE, gc.FITS):
        assert table.columnWidth(column) >= table.sizeHintForColumn(column), gc.COLUMNS[column]
    # a name too long for its column is cut in the middle: its start and its badges stay readable
    assert table.textElideMode() == Qt.TextElideMode.ElideMiddle
    cheapest = next(r for r in range(model.rowCount()) if "★" in model.index(r, gc.GPU).data())
    text = model.index(cheapest, gc.GPU).data()
    shown = table.fontMetrics().elidedText(text, Qt.TextElideMode.ElideMiddle, table.columnWidth(gc.GPU) - 8)
    assert shown.endswith("★ cheapest") and shown[:3] == text[:3], (text, shown)


def test_plan_tab_with_advice_does_not_scroll_sideways_at_1024x640(window, qtbot):
    # new-user trial (issue #21): a tight V100 plan's advice rows ("→ 10.0 GiB  saves 0.5 GiB  ✓ fits · tight  same
    # time  same cost  Apply") needed 546 px where the Plan tab has about 506: the whole tab scrolled sideways and
    # cut the verdict card
    from tuneplan.ui.app import initial_size

    window.resize(*initial_size(1024, 640))
    window.store.set_gpu("v100_16gb")
    qtbot.waitUntil(lambda: window.advice_view.isVisible(), timeout=10000)
    qtbot.wait(50)
    scroll = window.result_scroll
    assert scroll.widget().minimumSizeHint().width() <= scroll.viewport().width()
    assert scroll.horizontalScrollBar().maximum() == 0
    assert not _clipped(window), _clipped(window)


def test_memory_legend_keeps_every_entry_inside_the_chart_at_1024x640_with_a_stack(window, qtbot):
    # new-user trial (issue #21): at 1024x640 with LLaMA-Factory and ZeRO-3 (its dynamic rows add "Cached blocks (not
    # in total)") the legend kept 3 columns by a fixed breakpoint and cut "Gradients" and "CUDA context" at the right
    from tuneplan.ui.app import initial_size

    window.resize(*initial_size(1024, 640))
    store, choice = window.store, window.method_panel.stack_choice
    assert store.set_field("training.num_gpus", 2)
    index = choice.combo.findData("llama-factory")
    choice.combo.setCurrentIndex(index)
    choice.combo.activated.emit(index)
    assert store.set_field("training.sharding", "zero3")
    qtbot.wait(100)
    chart = window.vram_chart
    assert chart._cache_in_legend  # the longest entry is there
    right = chart.width()
    for _sample, label in chart.legend.items:
        if not label.isVisible():
            continue
        edge = label.mapToScene(label.boundingRect().topRight())
        assert chart.mapFromScene(edge).x() <= right, (label.text, chart.mapFromScene(edge).x(), right)
    assert chart.legend.columnCount >= 2  # not one long column either
    window.resize(1366, 768)
    qtbot.wait(100)
    assert chart.legend.columnCount > 2  # a wide chart uses its width
