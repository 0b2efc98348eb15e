"""The charts: the per-GPU VRAM bar and the cumulative cost over wall-clock time, and their comparison
twins (:class:`CompareVramChart`, :class:`CompareCostChart`: one bar and one curve per scenario).

Each widget is built once and only updates its items' data when a new estimate arrives
(``BarGraphItem.setOpts``, ``PlotDataItem.setData``): no item is created per edit. Tests read the
numbers back from :meth:`VramChart.current_series` and :meth:`CostChart.current_series`, or from
the items' ``opts``, never from pixels.
"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Sequence

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import numpy as np  # noqa: E402
import pyqtgraph as pg  # noqa: E402
from PySide6.QtCore import QCoreApplication, QRectF, QSize, Qt, Signal  # noqa: E402
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetrics  # noqa: E402
from PySide6.QtWidgets import QSizePolicy, QWidget  # noqa: E402

from tuneplan.core.estimate import blocking_notes  # noqa: E402
from tuneplan.core.result import GIB, CostEstimate, Estimate, MemoryComponent, TimeEstimate  # noqa: E402
from tuneplan.ui import i18n  # noqa: E402

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

__all__ = [
    "COMPONENT_COLORS",
    "COMPONENT_ORDER",
    "PHASE_COLORS",
    "SCENARIO_COLORS",
    "CompareCostChart",
    "CompareVramChart",
    "CostChart",
    "VramChart",
    "component_tooltip",
    "label_goes_left",
    "likely_curves",
    "phase_spans",
    "phase_tooltip",
    "short_gpu_name",
]

#: Pixels between legend entries (pyqtgraph's column spacing and the sample's padding) and around the legend (the
#: axis' offset on the left, the widget's frame): what :meth:`VramChart._fit_legend` adds to the entries' widths.
LEGEND_GAP_PX = 14
LEGEND_MARGIN_PX = 60

#: Text of figures a plan that cannot run would reach (the Plan tab's greyed cards use the same grey).
BLOCKED_TEXT_COLOR = "#888888"

#: Pixels of the cost comparison's width its legend texts leave to the sample line, the left axis and the margins.
COST_LEGEND_MARGIN_PX = 110

# One colour per ledger key, fixed so the legend means the same thing in every plan.
COMPONENT_ORDER = [
    "weights", "adapters", "gradients", "optimizer", "activations",
    "logits", "temporaries", "allocator", "cuda_context",
]
COMPONENT_COLORS: dict[str, str] = {
    "weights": "#3b6fb6",
    "adapters": "#7fb3e6",
    "gradients": "#e07b39",
    "optimizer": "#c0504d",
    "activations": "#4e9a52",
    "logits": "#9bc47a",
    "temporaries": "#8e6bb8",
    "allocator": "#b8b8b8",
    "cuda_context": "#6d6d6d",
    "reference": "#c9a227",
    "generation": "#2a9d8f",
}
#: Labels by ledger key, in the UI language when looked up (the legend and the tooltips).
COMPONENT_LABELS = i18n.COMPONENT_LABELS
_FALLBACK_COLORS = ["#d4a017", "#17a2b8", "#e83e8c", "#20c997"]

PHASE_COLORS: dict[str, str] = {
    "setup": "#8c8c8c",
    "training": "#3b6fb6",
    "evaluation": "#8e6bb8",
    "checkpoints": "#e07b39",
    "reference_logps": "#c9a227",
}
PHASE_LABELS = i18n.PHASE_LABELS

CAPACITY_COLOR = "#c62828"
#: One colour per compared scenario (cost curves, column swatches); distinct from the red capacity.
SCENARIO_COLORS = ["#1f5fa8", "#e08a00", "#2e8b57", "#8e44ad"]
#: Colours of other GPUs' cost curves on the cost chart (none of them a phase colour).
OVERLAY_COLORS = ["#c2185b", "#00897b", "#6d4c41", "#f9a825", "#5e35b1", "#1e88e5", "#43a047", "#e65100"]
LOCAL_COLOR = "#1565c0"  # the user's own GPU, never confused with the rented GPU's red line
TEXT_COLOR = "#333333"
BAR_Y, BAR_H = 0.0, 1.0
BASE_Y_RANGE = (-0.25, 1.75)
LOCAL_Y_RANGE = (-0.62, 1.75)  # room for the local card's two label rows under the bar


def nice_ceiling(value: float) -> float:
    """The next "nice" axis limit at or above ``value`` (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k).

    Axis ranges snap to these so that small edits keep the same axes: the plot looks steadier and
    pyqtgraph skips re-laying out the tick labels, the most expensive part of a redraw.
    """
    if value <= 0 or not math.isfinite(value):
        return 1.0
    exp = math.floor(math.log10(value))
    base = 10.0**exp
    for step in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if value <= step * base * (1 + 1e-12):
            return step * base
    return 10 * base


def short_gpu_name(name: str) -> str:
    """``GeForce RTX 4090`` -> ``RTX 4090`` (the vendor brand adds nothing on a chart)."""
    return name.removeprefix("GeForce ").strip()


def component_tooltip(c: MemoryComponent) -> str:
    """Rich-text tooltip of a VRAM segment: label, GiB, formula and source.

    The label is in the UI language; the formula and the source stay in English (code-like, and
    they cite English papers), which the tooltip says when the UI is not English.
    """
    lines = [f"<b>{html.escape(i18n.component_label(c.key, c.label))}</b>: {i18n.fmt_gib(c.gib, 2)}"]
    formula = i18n.component_formula(c)
    if formula:
        lines.append(f"<span style='font-family:monospace'>{html.escape(formula)}</span>")
    if c.source:
        lines.append(translate("Charts", "<i>Source:</i> {source}").format(source=html.escape(c.source)))
    if (c.formula or c.source) and i18n.current_language() != "en":
        lines.append(translate("Charts", "<i>Formulas and sources are technical and stay in English.</i>"))
    return "<br>".join(lines)


def phase_spans(cost: CostEstimate) -> list[tuple[str, float, float, float, float]]:
    """The cost curve cut into phases: ``(phase, start h, end h, USD at start, USD at end)``."""
    spans: list[list] = []
    prev = (0.0, cost.curve[0].usd) if cost.curve else (0.0, 0.0)
    for p in cost.curve:
        if p.phase == "done":
            break
        if not spans or spans[-1][0] != p.phase:
            spans.append([p.phase, prev[0], p.hours, prev[1], p.usd])
        spans[-1][2], spans[-1][4] = p.hours, p.usd
        prev = (p.hours, p.usd)
    return [(str(a), float(b), float(c), float(d), float(e)) for a, b, c, d, e in spans if c > b]


def phase_tooltip(span: tuple[str, float, float, float, float], total_usd: float) -> str:
    """Rich-text tooltip of a cost phase: phase, hours, USD and the formula with its numbers."""
    from PySide6.QtCore import QCoreApplication

    translate = QCoreApplication.translate
    phase, h0, h1, usd0, usd1 = span
    hours, usd = h1 - h0, usd1 - usd0
    rate = usd / hours if hours > 0 else 0.0
    when = (translate("Units", "{n} min").format(n=f"{hours * 60:.0f}") if hours < 1
            else translate("Units", "{n} h").format(n=f"{hours:.2f}"))
    lines = [
        f"<b>{html.escape(PHASE_LABELS.get(phase, phase.title()))}</b>: {when} · {i18n.plain_usd(usd)}",
        translate("CostChart", "(price per GPU-hour × GPUs + storage per hour) × hours = ${rate}/h × {hours} h")
        .format(rate=f"{rate:,.3f}", hours=f"{hours:.3f}"),
        translate("CostChart", "{start} → {end} h on the clock; the run ends at ${total} (billing rounding, "
                  "egress, other costs and repeats are added at the end)")
        .format(start=f"{h0:.2f}", end=f"{h1:.2f}", total=f"{total_usd:,.2f}"),
    ]
    return "<br>".join(lines)


def likely_curves(cost: CostEstimate, time: TimeEstimate) -> tuple[list[tuple[float, float]], list[tuple[float, float]]] | None:
    """The cost curve of the same plan finishing fast and slow: ``(fast, slow)``, each ``[(hours, USD), ...]``.

    Each is ``cost.curve`` with every point after the setup phase scaled about the end of setup, hours and USD
    each by its own factor, so that the run's ``done`` point lands on the likely range's end:
    ``(low_seconds / 3600, low_usd)`` for the fast one, ``(high_seconds / 3600, high_usd)`` for the slow one
    (plus the curve's expected interruption time, which the time range leaves out). Setup is not scaled: the range
    comes from the training phase (``TimeEstimate.low_seconds``). ``None`` when there is no range to draw (an
    estimate without one, or no time after setup).
    """
    curve = cost.curve
    if len(curve) < 2 or time.high_seconds <= time.low_seconds or time.low_seconds <= 0:
        return None
    setup = [p for p in curve if p.phase == "setup"]
    s_h, s_usd = (setup[-1].hours, setup[-1].usd) if setup else (0.0, curve[0].usd)
    end_h, end_usd = curve[-1].hours, curve[-1].usd
    lost_h = max(end_h - time.seconds / 3600.0, 0.0)  # expected interruptions: on the curve, not in the time range
    if end_h - s_h <= 0:
        return None
    out = []
    for seconds, usd in ((time.low_seconds, cost.low_usd), (time.high_seconds, cost.high_usd)):
        fh = (seconds / 3600.0 + lost_h - s_h) / (end_h - s_h)
        fu = (usd - s_usd) / (end_usd - s_usd) if end_usd > s_usd else 1.0
        out.append([(p.hours, p.usd) if p.phase == "setup" else
                    (s_h + (p.hours - s_h) * max(fh, 0.0), s_usd + (p.usd - s_usd) * max(fu, 0.0)) for p in curve])
    return out[0], out[1]


def _cumulative(points: list[tuple[float, float]], x: float) -> float:
    """USD spent after ``x`` hours on a curve whose last point is the run's end (flat after it: nothing more is spent)."""
    if x >= points[-1][0]:
        return points[-1][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:], strict=False):
        if x0 <= x < x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return points[0][1]


def likely_band(fast: list[tuple[float, float]], slow: list[tuple[float, float]]) -> tuple[list[float], list[float], list[float]]:
    """Where the run is likely to end: ``(hours, lower USD, upper USD)`` from the fast run's end to the slow run's.

    Cost grows with time at one rate, so every likely run ends on the line from the fast end ``(low h, low USD)`` to
    the slow end ``(high h, high USD)``; the band shades the window under that line, from the axis up: "it finishes
    somewhere in these hours, and costs what the top edge says then". (Between two cost curves of the same rate the
    region is only a sliver, and a flat edge after the fast end would suggest a long run can cost as little as a
    short one.)
    """
    (h0, u0), (h1, u1) = fast[-1], slow[-1]
    return [h0, h1], [0.0, 0.0], [u0, u1]


def hours_range_text(low_h: float, high_h: float) -> str:
    """``1.9–4.5 h`` (``25–48 min`` under an hour) in the number locale."""
    if high_h < 1.0:
        return translate("Units", "{n} min").format(n=f"{i18n.fmt_number(low_h * 60)}–{i18n.fmt_number(high_h * 60)}")
    decimals = 1 if high_h < 100 else 0
    return translate("Units", "{n} h").format(
        n=f"{i18n.fmt_number(low_h, decimals)}–{i18n.fmt_number(high_h, decimals)}")


def _style_plot(plot: pg.PlotItem) -> None:
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.getViewBox().setMouseEnabled(x=False, y=False)
    font = QFont()
    font.setPointSizeF(9)
    for name in ("left", "bottom"):
        axis = plot.getAxis(name)
        axis.setPen(pg.mkPen("#888888"))
        axis.setTextPen(pg.mkPen(TEXT_COLOR))
        axis.setStyle(tickFont=font)
        axis.enableAutoSIPrefix(False)


def _set_range(plot_widget: pg.PlotWidget, x: tuple[float, float] | None = None,
               y: tuple[float, float] | None = None) -> None:
    """Set the view range only when it differs (an unchanged range costs no axis re-layout)."""
    vb = plot_widget.getPlotItem().getViewBox()
    (x0, x1), (y0, y1) = vb.viewRange()
    if x is not None and (abs(x0 - x[0]) > 1e-9 or abs(x1 - x[1]) > 1e-9 * max(1.0, abs(x[1]))):
        vb.setXRange(*x, padding=0)
    if y is not None and (abs(y0 - y[0]) > 1e-9 or abs(y1 - y[1]) > 1e-9 * max(1.0, abs(y[1]))):
        vb.setYRange(*y, padding=0)


class _Segment(pg.BarGraphItem):
    """One component of the stacked VRAM bar; shows its formula on hover."""

    def __init__(self, key: str, label: str, color: str) -> None:
        super().__init__(x0=[0.0], width=[0.0], y=[BAR_Y + BAR_H / 2], height=[BAR_H],
                         brush=pg.mkBrush(color), pen=pg.mkPen("w", width=1), name=label)
        self.key = key
        self.color = color
        self.setAcceptHoverEvents(True)

    def hoverEnterEvent(self, ev) -> None:  # noqa: N802 - Qt naming
        self.setOpts(pen=pg.mkPen("#202020", width=2))
        super().hoverEnterEvent(ev)

    def hoverLeaveEvent(self, ev) -> None:  # noqa: N802 - Qt naming
        self.setOpts(pen=pg.mkPen("w", width=1))
        super().hoverLeaveEvent(ev)


def label_goes_left(view: pg.ViewBox, x: float, label_px: float) -> bool:
    """Whether a label ``label_px`` wide goes left of a vertical line at ``x`` (view units): left when it fits
    between the plot's left edge and the line, else right when it fits there, else on the roomier side. Capacity
    labels are never cut at the plot's left edge (the plan's VRAM bar and the scenario comparison's rows share this
    rule)."""
    (x0, x1), _ = view.viewRange()
    if view.width() <= 0 or x1 <= x0:
        return x >= 0.35 * (x1 or 1.0)  # not laid out yet: the old rule of thumb
    left_px = (x - x0) / (x1 - x0) * view.width()
    right_px = view.width() - left_px
    if left_px >= label_px + 4:
        return True
    return right_px < label_px + 4 and left_px > right_px


class VramChart(pg.PlotWidget):
    """Per-GPU memory at the step's peak as one horizontal stacked bar, in GiB.

    Shows one segment per ledger component (fixed colours, legend below the bar), the GPU's
    capacity as a red line (``RTX 4090: 23.99 GiB``), markers at peak allocated
    (``torch.cuda.max_memory_allocated``) and reserved, and the estimator's uncertainty band
    (``low_bytes``..``high_bytes``) as a translucent region. Hovering a segment shows its formula.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent=parent, background="w")
        self.setAccessibleName(self.tr("VRAM chart"))
        self.setMinimumHeight(200)
        plot = self.getPlotItem()
        _style_plot(plot)
        plot.hideAxis("left")
        plot.setLabel("bottom", self.tr("GPU memory per GPU (GiB)"), color=TEXT_COLOR)
        # The legend lives in its own row under the axis (not over the data); PlotItem.addItem
        # still feeds it every named item because it is the plot's ``legend``.
        self.legend = pg.LegendItem(colCount=5, labelTextColor=TEXT_COLOR, frame=False, verSpacing=-4)
        plot.legend = self.legend
        plot.layout.addItem(self.legend, 4, 1)
        self.band = pg.LinearRegionItem(values=(0, 0), orientation="vertical", movable=False, span=(0.04, 0.72),
                                        brush=pg.mkBrush(120, 120, 120, 40), pen=pg.mkPen(None))
        self.band.setZValue(-20)
        self.band.setToolTip(self.tr("Uncertainty of the estimate (measured error of the estimator)"))
        plot.addItem(self.band)
        self.over_capacity = pg.LinearRegionItem(values=(0, 1e7), orientation="vertical", movable=False,
                                                 brush=pg.mkBrush(198, 40, 40, 22), pen=pg.mkPen(None))
        self.over_capacity.setZValue(-30)
        self.over_capacity.setToolTip(self.tr("Beyond this GPU's memory"))
        plot.addItem(self.over_capacity, ignoreBounds=True)
        self.segments: dict[str, _Segment] = {}
        self._extra_in_legend: set[str] = set()  # workload segments whose legend entry is shown
        for key in COMPONENT_ORDER:
            self._segment(key, COMPONENT_LABELS[key])
        # the band's legend entry (a sample swatch, not drawn on the plot)
        self.band_sample = pg.BarGraphItem(x=[0.0], height=[1.0], width=1.0, brush=pg.mkBrush(120, 120, 120, 70),
                                           pen=pg.mkPen(None))
        self.legend.addItem(self.band_sample, self.tr("Likely range (measured error)"))
        # Paged optimizer states (unified memory) sit after the device total, outlined, not filled:
        # nvidia-smi shows them while there is room, but they are not part of what must fit.
        paged_color = QColor(COMPONENT_COLORS["optimizer"])
        paged_color.setAlpha(70)
        self.paged = pg.BarGraphItem(x0=[0.0], width=[0.0], y=[BAR_Y + BAR_H / 2], height=[BAR_H],
                                     brush=pg.mkBrush(paged_color),
                                     pen=pg.mkPen(COMPONENT_COLORS["optimizer"], width=1.5, style=Qt.PenStyle.DashLine))
        plot.addItem(self.paged)
        self._paged_in_legend = False
        # With dynamic padding, the blocks the allocator keeps cached from earlier, shorter batches: peak reserved
        # shows them on a card with room, but they are given back before an out-of-memory error (not in the total).
        # hatched, so it does not read as the likely range's plain grey behind it
        cache_brush = QBrush(QColor(COMPONENT_COLORS["cuda_context"]), Qt.BrushStyle.BDiagPattern)
        self.cache = pg.BarGraphItem(x0=[0.0], width=[0.0], y=[BAR_Y + BAR_H / 2], height=[BAR_H],
                                     brush=cache_brush,
                                     pen=pg.mkPen(COMPONENT_COLORS["cuda_context"], width=1.5, style=Qt.PenStyle.DotLine))
        plot.addItem(self.cache)
        self._cache_in_legend = False
        marker_pen = pg.mkPen("#202020", width=1.5, style=Qt.PenStyle.DashLine)
        label_opts = {"color": TEXT_COLOR, "movable": False, "fill": pg.mkBrush(255, 255, 255, 200)}
        self.allocated_line = pg.InfiniteLine(angle=90, pen=marker_pen, span=(0.06, 0.80), label=self.tr("allocated"),
                                              labelOpts={**label_opts, "position": 0.86, "anchors": [(1, 0.5), (1, 0.5)]})
        self.reserved_line = pg.InfiniteLine(angle=90, pen=marker_pen, span=(0.06, 0.80), label=self.tr("reserved"),
                                             labelOpts={**label_opts, "position": 0.86, "anchors": [(0, 0.5), (0, 0.5)]})
        self.capacity_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(CAPACITY_COLOR, width=2.5), label="",
                                             labelOpts={"color": CAPACITY_COLOR, "position": 0.97, "movable": False,
                                                        "anchors": [(1, 0), (1, 0)],
                                                        "fill": pg.mkBrush(255, 255, 255, 220)})
        self.allocated_line.setToolTip(self.tr("Peak allocated: torch.cuda.max_memory_allocated()"))
        self.reserved_line.setToolTip(self.tr("Peak reserved: torch.cuda.max_memory_reserved() (allocator segments)"))
        for line in (self.allocated_line, self.reserved_line, self.capacity_line):
            line.setZValue(10)
            plot.addItem(line)
        plot.setYRange(-0.25, 1.75, padding=0)
        self._series: dict[str, tuple[float, float]] = {}
        self._capacity_gib = 0.0
        self._extent_gib = 0.0  # rightmost thing the rented-GPU view needs to show
        self._local: tuple[float | None, float | None] = (None, None)
        self._build_local_lines()
        # the line labels pick their side again when the plot's width changes
        plot.getViewBox().sigResized.connect(self._place_line_labels)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        """Modest preferred size: the results column scrolls by preferred heights."""
        return QSize(640, 230)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """Fewer legend columns on a narrow chart, so no entry is cut off."""
        # Columns first: the plot is laid out in super().resizeEvent, and a legend that is still
        # wide from an earlier, wider size would keep it wider than the widget (cut off on the right).
        if getattr(self, "legend", None) is not None:  # pyqtgraph calls this during construction, with None
            self._fit_legend(event.size().width())
        super().resizeEvent(event)

    def _fit_legend(self, width: int | None = None) -> None:
        """As many legend columns as the widest entries of each column leave room for in ``width`` pixels (the
        chart's width by default), at most 5: entries are placed row by row, and their texts differ by language and
        by plan (a stack's or a workload's extra entries), so fixed breakpoints cut the last column off."""
        width = self.width() if width is None else width
        entries = [sample.boundingRect().width() + label.item.boundingRect().width() + LEGEND_GAP_PX
                   for sample, label in self.legend.items]
        columns = 1
        for n in range(min(5, max(len(entries), 1)), 1, -1):
            need = sum(max(entries[j::n]) for j in range(n)) + LEGEND_MARGIN_PX
            if need <= width:
                columns = n
                break
        if self.legend.columnCount != columns:
            self.legend.setColumnCount(columns)

    def _segment(self, key: str, label: str) -> _Segment:
        if key not in self.segments:
            color = COMPONENT_COLORS.get(key) or _FALLBACK_COLORS[len(self.segments) % len(_FALLBACK_COLORS)]
            item = _Segment(key, label, color)
            self.segments[key] = item
            self.getPlotItem().addItem(item)  # (a named item: the plot puts it in the legend)
            if key not in COMPONENT_ORDER:
                self._extra_in_legend.add(key)
        return self.segments[key]

    def set_estimate(self, result: Estimate, gpu_name: str) -> None:
        """Redraw from an estimate (updates item data only)."""
        mem = result.memory
        left = 0.0
        series: dict[str, tuple[float, float]] = {}
        seen = set()
        for comp in mem.components:
            seg = self._segment(comp.key, i18n.component_label(comp.key, comp.label))
            gib = max(0.0, comp.bytes / GIB)
            seg.setOpts(x0=[left], width=[gib])
            seg.setToolTip(component_tooltip(comp))
            seg.setVisible(True)
            series[comp.key] = (left, gib)
            left += gib
            seen.add(comp.key)
        for key, seg in self.segments.items():
            if key not in seen:
                seg.setOpts(x0=[left], width=[0.0])
                seg.setToolTip("")
            if key not in COMPONENT_ORDER:  # a workload's own part (reference model, generation): in the legend
                shown = series.get(key, (0.0, 0.0))[1] > 0  # only while the plan has it
                if shown != (key in self._extra_in_legend):
                    if shown:
                        self.legend.addItem(seg, seg.name())
                        self._extra_in_legend.add(key)
                    else:
                        self.legend.removeItem(seg)
                        self._extra_in_legend.discard(key)
        paged = mem.paged_bytes / GIB
        self.paged.setOpts(x0=[left], width=[paged])
        self.paged.setToolTip(self.tr(
            "Paged optimizer states: {size} in CUDA unified memory, not counted in the device total; on Linux the "
            "driver moves them to CPU RAM when the GPU is full (not on Windows or WSL2)").format(
                size=i18n.fmt_gib(paged)) if paged else "")
        if paged:
            series["paged"] = (left, paged)
        if bool(paged) != self._paged_in_legend:  # a legend entry only while there is something to show
            if paged:
                self.legend.addItem(self.paged, self.tr("Paged optimizer states (outside the total)"))
            else:
                self.legend.removeItem(self.paged)
            self._paged_in_legend = bool(paged)
        cache = mem.cache_bytes / GIB
        self.cache.setOpts(x0=[left + paged], width=[cache])
        self.cache.setToolTip(self.tr(
            "Cached blocks of earlier, shorter batches: {size}. With dynamic padding a longer batch cannot reuse the "
            "blocks of shorter ones, so on a card with room PyTorch keeps them and max_memory_reserved and nvidia-smi "
            "show them; it gives them back before running out of memory, so they are not part of what must fit "
            "(docs/validation-allocator.md).").format(size=i18n.fmt_gib(cache)) if cache else "")
        if cache:
            series["cache"] = (left + paged, cache)
        if bool(cache) != self._cache_in_legend:
            if cache:
                self.legend.addItem(self.cache, self.tr("Cached blocks (not in total)"))
            else:
                self.legend.removeItem(self.cache)
            self._cache_in_legend = bool(cache)
        self._fit_legend()
        self._series = series
        cap = mem.capacity_bytes / GIB
        self._capacity_gib = cap
        self.capacity_line.setPos(cap)
        self.over_capacity.setRegion((cap, max(cap * 100, 1e4)))
        self.capacity_line.label.setFormat(f"{short_gpu_name(gpu_name)}: {i18n.fmt_gib(cap, 2)}")
        self.capacity_line.setToolTip(i18n.plain_tooltip(
            self.tr("{gpu}: {capacity} usable (what nvidia-smi reports as total)").format(
                gpu=gpu_name, capacity=i18n.fmt_gib(cap, 2))))
        self.allocated_line.setPos(mem.peak_allocated_bytes / GIB)
        self.reserved_line.setPos(mem.peak_reserved_bytes / GIB)
        self.reserved_line.setToolTip(self.tr("Peak reserved: torch.cuda.max_memory_reserved() (allocator segments)") + (
            " " + self.tr("It includes {cache} of cached blocks of earlier, shorter batches (dynamic padding), given "
                          "back before out of memory: not part of what must fit.").format(cache=i18n.fmt_gib(mem.cache_bytes / GIB))
            if mem.cache_bytes else ""))
        self.band.setRegion((mem.low_bytes / GIB, mem.high_bytes / GIB))
        self.band.setToolTip(self.tr("Likely range of the total: {low}–{high} (measured error of the estimator)").format(
            low=i18n.fmt_number(mem.low_bytes / GIB, 1, group=False), high=i18n.fmt_gib(mem.high_bytes / GIB)))
        self._extent_gib = max(cap, mem.high_bytes / GIB, left + paged + cache)
        self._fit_x()

    def _set_range(self, x=None, y=None) -> None:
        _set_range(self, x, y)

    # -- the user's own GPU (issue #5): its total and what is free on it right now ------------
    def _build_local_lines(self) -> None:
        label_opts = {"color": LOCAL_COLOR, "movable": False, "fill": pg.mkBrush(255, 255, 255, 220)}
        # While a local card is shown the view reaches lower (LOCAL_Y_RANGE): two label rows under
        # the bar, the total's above the "free now" one, so the labels never cover the bar, the
        # rented GPU's labels or each other, however close the two lines are.
        self.local_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(LOCAL_COLOR, width=2.5, style=Qt.PenStyle.DashDotLine),
                                          label="", labelOpts={**label_opts, "position": 0.17, "anchors": [(1, 0.5), (1, 0.5)]})
        self.local_free_line = pg.InfiniteLine(angle=90, pen=pg.mkPen(LOCAL_COLOR, width=2, style=Qt.PenStyle.DotLine),
                                               label="", labelOpts={**label_opts, "position": 0.055, "anchors": [(1, 0.5), (1, 0.5)]})
        for line in (self.local_line, self.local_free_line):
            line.setZValue(11)
            line.setVisible(False)
            self.getPlotItem().addItem(line, ignoreBounds=True)

    def set_local_capacity(self, total_gib: float | None, free_gib: float | None = None, label: str = "",
                           free_label: str = "") -> None:
        """Show the user's own card next to the rented one: its total and what is free on it now.

        ``total_gib`` None hides both lines; ``free_gib`` None hides the "free now" marker. ``label``
        names the card (``Your RTX 4090``); ``free_label`` the card the free memory is on when that is
        another one (several selected cards: the one with the least free). Drawn in blue (dash-dot for the total, dotted for free
        memory) so it never reads as the rented GPU's red capacity line.
        """
        show_total = total_gib is not None and total_gib > 0
        show_free = show_total and free_gib is not None and free_gib >= 0
        self._local = (total_gib if show_total else None, free_gib if show_free else None)
        plot = self.getPlotItem()
        plot.setYRange(*(LOCAL_Y_RANGE if show_total else BASE_Y_RANGE), padding=0)
        self.local_line.setVisible(show_total)
        self.local_free_line.setVisible(show_free)
        if show_total:
            self.local_line.setPos(total_gib)
            name = label or self.tr("Your GPU")
            self.local_line.label.setFormat(f"{name}: {i18n.fmt_gib(total_gib)}")
            self.local_line.setToolTip(i18n.plain_tooltip(
                self.tr("{name}: {total} total").format(name=name, total=i18n.fmt_gib(total_gib, 2))))
        if show_free:
            self.local_free_line.setPos(free_gib)
            self.local_free_line.label.setFormat(self.tr("free now: {free}").format(free=i18n.fmt_gib(free_gib)))
            self.local_free_line.setToolTip(i18n.plain_tooltip(
                self.tr("Free on {name} right now: {free} (other programs hold the rest)").format(
                    name=free_label or label or self.tr("your GPU"), free=i18n.fmt_gib(free_gib, 2))))
        self._fit_x()

    @property
    def local_capacity_gib(self) -> float | None:
        """Where the local card's total line is, in GiB (None when hidden)."""
        return self._local[0]

    @property
    def local_free_gib(self) -> float | None:
        """Where the local card's "free now" marker is, in GiB (None when hidden)."""
        return self._local[1]

    def _fit_x(self) -> None:
        extent = max(self._extent_gib, self._local[0] or 0.0)
        right = nice_ceiling(extent * 1.04)
        self._set_range(x=(0, right))
        self._place_line_labels()

    def _place_line_labels(self, *_args: object) -> None:
        """A line's label goes left of its line, unless the room left of the line is narrower than the label
        (a 12 GiB card beside a 47 GiB plan): then it goes right of it, never cut off at the plot's edge."""
        view = self.getPlotItem().getViewBox()
        lines = ((self.capacity_line, self._capacity_gib), (self.local_line, self._local[0]),
                 (self.local_free_line, self._local[1]))
        for line, value in lines:
            if value is None or line.label is None:
                continue
            left = label_goes_left(view, value, line.label.boundingRect().width())
            y = line.label.anchors[0][1]
            side = (1, y) if left else (0, y)
            line.label.anchors = [side, side]
            line.label.updatePosition()

    def current_series(self) -> dict[str, tuple[float, float]]:
        """What the bar shows: ``{component key: (start GiB, size GiB)}`` in stacking order."""
        return dict(self._series)

    @property
    def capacity_gib(self) -> float:
        """Where the capacity line is, in GiB."""
        return float(self.capacity_line.value())

    def segment_at(self, gib: float) -> str | None:
        """The component key under ``gib`` on the bar, or None (used for hover and tests)."""
        for key, (start, size) in self._series.items():
            if size > 0 and start <= gib <= start + size:
                return key
        return None


# Fill of the cost chart's likely range: the VRAM bar's neutral grey, as translucent.
BAND_RGBA = (120, 120, 120, 45)


class CostChart(pg.PlotWidget):
    """Cumulative cost (USD) over wall-clock hours, shaded by phase, with a marker where the run is done.

    With the time estimate (``set_cost(cost, time)``) it also shades the likely range of the run: the region
    between the same plan finishing fast and slow (:func:`likely_curves`, :func:`likely_band`), in the VRAM
    bar's translucent grey, ending at ``(low_seconds / 3600, low_usd)`` and ``(high_seconds / 3600, high_usd)``.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent=parent, background="w")
        self.setAccessibleName(self.tr("Cost over time chart"))
        self.setMinimumHeight(200)
        plot = self.getPlotItem()
        _style_plot(plot)
        plot.setLabel("bottom", self.tr("Wall-clock time (hours)"), color=TEXT_COLOR)
        plot.setLabel("left", self.tr("Cumulative cost (USD)"), color=TEXT_COLOR)
        plot.showGrid(x=True, y=True, alpha=0.15)
        # The legend has its own column right of the plot: in the plot's top left corner it sat on the start of
        # the curve (a steep one rises through it) and on the pessimistic line's label; under the axis it would
        # push the chart's bottom off the first screen at 1366x768.
        self.legend = pg.LegendItem(colCount=1, labelTextColor=TEXT_COLOR, frame=False, verSpacing=-4)
        plot.legend = self.legend
        plot.layout.addItem(self.legend, 2, 3)
        plot.layout.setAlignment(self.legend, Qt.AlignmentFlag.AlignTop)  # rows packed, not spread over the height
        self.legend.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.phase_items: dict[str, pg.PlotDataItem] = {}
        self.phase_fills: dict[str, pg.PlotDataItem] = {}
        for phase in PHASE_COLORS:
            self._phase_item(phase)
        # The likely range: the region between a fast and a slow run (two invisible curves, filled between).
        self.band_lower = pg.PlotCurveItem([], [], pen=pg.mkPen(None))
        self.band_upper = pg.PlotCurveItem([], [], pen=pg.mkPen(None))
        self.band = pg.FillBetweenItem(self.band_lower, self.band_upper, brush=pg.mkBrush(*BAND_RGBA))
        self.band.setZValue(-20)
        plot.addItem(self.band)
        self.band.setVisible(False)
        # its legend entry (a swatch, not drawn on the plot), as on the VRAM chart
        self.band_sample = pg.BarGraphItem(x=[0.0], height=[1.0], width=1.0, brush=pg.mkBrush(*BAND_RGBA[:3], 70),
                                           pen=pg.mkPen(None))
        self.legend.addItem(self.band_sample, self.tr("Likely range"))
        self._likely: tuple[tuple[float, float], tuple[float, float]] | None = None
        self._band: tuple[list[float], list[float], list[float]] = ([], [], [])
        self.band_text = ""
        self.pessimistic_line = pg.InfiniteLine(angle=0, pen=pg.mkPen(CAPACITY_COLOR, width=1.2, style=Qt.PenStyle.DashLine),
                                                label="", labelOpts={"color": CAPACITY_COLOR, "position": 0.02,
                                                                     "anchors": [(0, 1), (0, 1)], "movable": False})
        plot.addItem(self.pessimistic_line)
        self.done_marker = pg.ScatterPlotItem(size=10, symbol="o", brush=pg.mkBrush("#202020"), pen=pg.mkPen("w"))
        plot.addItem(self.done_marker)
        self.done_label = pg.TextItem("", color=TEXT_COLOR, anchor=(1, 1.15), fill=pg.mkBrush(255, 255, 255, 200))
        font = QFont()
        font.setBold(True)
        self.done_label.setFont(font)
        plot.addItem(self.done_label)
        self._curve: tuple[list[float], list[float]] = ([], [])
        self._minutes = False
        # Hovering a phase shows its hours, USD and formula (phase_tooltip).
        self._spans: list[tuple[str, float, float, float, float]] = []
        self._hover_total = 0.0
        self.hover_text = ""
        self.scene().sigMouseMoved.connect(self._on_hover)
        self._last_cost: CostEstimate | None = None
        self._last_time: TimeEstimate | None = None
        self._overlays: list[tuple[str, list[float], list[float]]] = []
        self.overlay_items: list[tuple[pg.PlotDataItem, pg.ScatterPlotItem]] = []
        self.overlay_legend: pg.LegendItem | None = None

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        """Modest preferred size: the results column scrolls by preferred heights."""
        return QSize(640, 250)

    def _phase_item(self, phase: str) -> pg.PlotDataItem:
        if phase not in self.phase_items:
            color = QColor(PHASE_COLORS.get(phase, _FALLBACK_COLORS[len(self.phase_items) % len(_FALLBACK_COLORS)]))
            fill = QColor(color)
            fill.setAlpha(60)
            under = pg.PlotDataItem([], [], pen=None, fillLevel=0, fillBrush=pg.mkBrush(fill))
            under.setZValue(-5)
            item = pg.PlotDataItem([], [], pen=pg.mkPen(color, width=2.5), name=PHASE_LABELS.get(phase, phase.title()))
            self.phase_fills[phase] = under
            self.phase_items[phase] = item
            self.getPlotItem().addItem(under)
            self.getPlotItem().addItem(item)
        return self.phase_items[phase]

    def set_cost(self, cost: CostEstimate, time: TimeEstimate | None = None, blocked: bool = False) -> None:
        """Redraw from a cost estimate (updates item data only); with ``time``, its likely range as a band.
        ``blocked``: the plan cannot run as it is (its stack refuses it), so the end of the curve reads "if it could
        run", greyed as the Plan tab's time and cost cards are."""
        points = cost.curve
        xs = [p.hours for p in points]
        ys = [p.usd for p in points]
        self._curve = (xs, ys)
        self._spans, self._hover_total = phase_spans(cost), cost.total_usd
        electric = cost.billing == "electricity"  # your own GPUs (issue #19)
        self.getPlotItem().setLabel("left", self.tr("Cumulative electricity cost (USD)") if electric
                                    else self.tr("Cumulative cost (USD)"), color=TEXT_COLOR)
        # Short runs read better in minutes; the data stays in hours (current_series).
        self._last_cost, self._last_time = cost, time
        curves = likely_curves(cost, time) if time is not None else None
        self._likely = (curves[0][-1], curves[1][-1]) if curves else None
        self._band = likely_band(*curves) if curves else ([], [], [])
        band_h = [self._likely[1][0]] if self._likely else []
        total_h = max([xs[-1] if xs else 0.0] + band_h + [o[1][-1] for o in self._overlays if o[1]])
        minutes = total_h < 1.0
        scale = 60.0 if minutes else 1.0
        if minutes != self._minutes:
            self._minutes = minutes
            self.getPlotItem().setLabel(
                "bottom", self.tr("Wall-clock time (minutes)") if minutes else self.tr("Wall-clock time (hours)"),
                color=TEXT_COLOR)
        by_phase: dict[str, tuple[list[float], list[float]]] = {}
        prev: tuple[float, float] | None = None
        for p in points:
            phase = p.phase if p.phase != "done" else None
            if phase is None:
                continue
            xs_p, ys_p = by_phase.setdefault(phase, ([], []))
            if not xs_p and prev is not None:
                xs_p.append(prev[0])
                ys_p.append(prev[1])
            xs_p.append(p.hours * scale)
            ys_p.append(p.usd)
            prev = (p.hours * scale, p.usd)
        # the bill rounds up at the end: a vertical step to the final total belongs to the last phase
        if points and prev is not None and points[-1].phase == "done" and by_phase:
            last_phase = next(reversed(by_phase))
            by_phase[last_phase][0].append(points[-1].hours * scale)
            by_phase[last_phase][1].append(points[-1].usd)
        for phase in by_phase:
            self._phase_item(phase)
        for phase, item in self.phase_items.items():
            data = by_phase.get(phase, ([], []))
            item.setData(data[0], data[1])
            self.phase_fills[phase].setData(data[0], data[1])
        if points:
            end = points[-1]
            when = (self.tr("{n} min").format(n=f"{end.hours * 60:.0f}") if minutes
                    else self.tr("{n} h").format(n=f"{end.hours:.1f}"))
            self.done_marker.setData([end.hours * scale], [end.usd])
            done = (self.tr("if it could run: {when} · {usd}") if blocked else self.tr("done · {when} · {usd}")).format(
                when=when, usd=i18n.plain_usd(end.usd))
            if electric:
                done += self.tr(" · electricity {kwh} kWh").format(kwh=i18n.fmt_number(cost.kwh, 1))
            self.done_label.setColor(BLOCKED_TEXT_COLOR if blocked else TEXT_COLOR)
            self.done_label.setText(done)
            self.done_label.setPos(end.hours * scale, end.usd)
        else:
            self.done_marker.setData([], [])
            self.done_label.setText("")
        self._draw_band(scale)
        self._fill_legend([p for p in self.phase_items if by_phase.get(p, ([], []))[0]])
        pess = cost.pessimistic_usd
        show_pess = pess > cost.total_usd * 1.005
        self.pessimistic_line.setVisible(show_pess)
        if show_pess:
            self.pessimistic_line.setPos(pess)
            self.pessimistic_line.label.setFormat(self.tr("pessimistic {usd}").format(usd=i18n.plain_usd(pess)))
        top = max([*ys, *self._band[2], pess if show_pess else 0.0, 0.01] + [o[2][-1] for o in self._overlays if o[2]])
        right = max([x * scale for x in xs + band_h] + [0.01] + [o[1][-1] * scale for o in self._overlays if o[1]])
        self._draw_overlays(scale)
        self._set_range(x=(0, nice_ceiling(right * 1.02)), y=(0, nice_ceiling(top * 1.12)))

    def _draw_band(self, scale: float) -> None:
        hours, lower, upper = self._band
        shown = bool(hours)
        self.band_lower.setData([h * scale for h in hours], lower)
        self.band_upper.setData([h * scale for h in hours], upper)
        self.band.setVisible(shown)
        if self._likely is None:
            self.band_text = ""
            self.band.setToolTip("")
            return
        (low_h, low_usd), (high_h, high_usd) = self._likely
        self.band_text = self.tr("likely {hours}, {low}–{high}").format(
            hours=hours_range_text(low_h, high_h), low=i18n.fmt_usd(low_usd), high=i18n.fmt_usd(high_usd))
        self.band.setToolTip("<br>".join((
            "<b>{}</b>: {}".format(html.escape(self.tr("Likely range")), html.escape(self.band_text)),
            self.tr("The same plan finishing faster or slower: the training phase scaled by the measured error of "
                    "the time estimate (or by a pilot run's spread when calibrated)"))))

    def _fill_legend(self, phases: list[str]) -> None:
        """The legend lists the phases drawn and the band when there is one, packed at the top of its column: a
        hidden entry left its row empty, and the column spread its rows over the chart's height."""
        entries = [(self.phase_items[p], self.phase_items[p].name()) for p in phases]
        if self.band.isVisible():
            entries.append((self.band_sample, self.tr("Likely range")))
        if [(s.item, lab.text) for s, lab in self.legend.items] == entries:
            return
        self.legend.clear()
        for item, name in entries:
            self.legend.addItem(item, name)
        self.legend.updateSize()

    def likely_range(self) -> tuple[tuple[float, float], tuple[float, float]] | None:
        """The band's two ends as drawn: ``((low hours, low USD), (high hours, high USD))``, or None without one."""
        return self._likely

    def band_series(self) -> tuple[list[float], list[float], list[float]]:
        """The band as drawn, in hours: ``(hours, lower cumulative USD, upper cumulative USD)``."""
        return tuple(list(v) for v in self._band)  # type: ignore[return-value]

    def _set_range(self, x=None, y=None) -> None:
        _set_range(self, x, y)

    def phase_at(self, hours: float) -> tuple[str, float, float, float, float] | None:
        """The phase drawn at ``hours`` of wall clock: ``(phase, start h, end h, USD at start, USD at end)``."""
        for span in self._spans:
            if span[1] <= hours <= span[2]:
                return span
        return None

    def _on_hover(self, pos) -> None:
        from PySide6.QtWidgets import QToolTip

        plot = self.getPlotItem()
        text = ""
        if plot.vb.sceneBoundingRect().contains(pos):
            hours = plot.vb.mapSceneToView(pos).x() / (60.0 if self._minutes else 1.0)
            span = self.phase_at(hours)
            if span is not None:
                text = phase_tooltip(span, self._hover_total)
            if self._likely is not None and self._likely[0][0] <= hours <= self._likely[1][0]:
                text = "<br>".join(t for t in (text, self.band.toolTip()) if t)
        if text != self.hover_text:
            self.hover_text = text
            self.setToolTip(text)
            if QToolTip.isVisible():
                QToolTip.showText(self.mapToGlobal(self.mapFromScene(pos)), text, self)

    def current_series(self) -> tuple[list[float], list[float]]:
        """The whole curve as drawn: ``(hours, cumulative USD)``; the last point is the run's total."""
        return list(self._curve[0]), list(self._curve[1])

    # -- other GPUs' runs drawn over this plan's (the GPU comparison's "On chart") -----------------
    def set_overlays(self, overlays: list[tuple[str, list[float], list[float]]]) -> None:
        """Draw other runs' cumulative cost: ``[(legend label, hours, USD), ...]``, each with a 'done' marker.

        Dashed, one colour each (:data:`OVERLAY_COLORS`), listed in a legend under the axis; the
        axes grow to show every run. An empty list removes them.
        """
        self._overlays = [(label, list(xs), list(ys)) for label, xs, ys in overlays]
        if self._last_cost is not None:
            self.set_cost(self._last_cost, self._last_time)
        else:
            self._draw_overlays(60.0 if self._minutes else 1.0)

    def overlay_series(self) -> list[tuple[str, list[float], list[float]]]:
        """The overlays as drawn: ``[(label, hours, cumulative USD)]``; each ends at that run's total."""
        return [(label, list(xs), list(ys)) for label, xs, ys in self._overlays]

    def _draw_overlays(self, scale: float) -> None:
        plot = self.getPlotItem()
        if self.overlay_legend is None and self._overlays:
            # Their own legend, in a row under the axis: over the data it would hide the curves.
            self.overlay_legend = pg.LegendItem(colCount=2, labelTextColor=TEXT_COLOR, frame=False, verSpacing=-4)
            plot.layout.addItem(self.overlay_legend, 4, 1)
        while len(self.overlay_items) > len(self._overlays):
            curve, marker = self.overlay_items.pop()
            plot.removeItem(curve)
            plot.removeItem(marker)
        for i, (label, xs, ys) in enumerate(self._overlays):
            color = OVERLAY_COLORS[i % len(OVERLAY_COLORS)]
            if i >= len(self.overlay_items):
                curve = pg.PlotDataItem([], [], pen=pg.mkPen(color, width=2, style=Qt.PenStyle.DashLine))
                marker = pg.ScatterPlotItem(size=9, symbol="d", brush=pg.mkBrush(color), pen=pg.mkPen("w"))
                plot.addItem(curve)
                plot.addItem(marker)
                self.overlay_items.append((curve, marker))
            curve, marker = self.overlay_items[i]
            curve.setData([x * scale for x in xs], ys)
            if xs:
                when = (self.tr("{n} min").format(n=f"{xs[-1] * 60:.0f}") if self._minutes
                        else self.tr("{n} h").format(n=f"{xs[-1]:.1f}"))
                marker.setData([xs[-1] * scale], [ys[-1]])
                marker.setToolTip(i18n.plain_tooltip(self.tr("{label}: done after {when}, {usd}").format(
                    label=label, when=when, usd=i18n.plain_usd(ys[-1]))))
            else:
                marker.setData([], [])
        if self.overlay_legend is not None:
            # While other runs are drawn, one legend under the axis names every run (this plan's
            # first); the phase legend would sit on the steep curves of fast GPUs.
            self.overlay_legend.clear()
            if self._overlays and self._last_cost is not None:
                self.overlay_legend.addItem(self.phase_items["training"], self.tr("This plan: {usd}").format(
                    usd=i18n.plain_usd(self._last_cost.total_usd)))
            for (curve, _marker), (label, _xs, _ys) in zip(self.overlay_items, self._overlays, strict=True):
                self.overlay_legend.addItem(curve, html.escape(label))  # pyqtgraph legends are HTML
            self.overlay_legend.setVisible(bool(self._overlays))
        if self.legend is not None:
            self.legend.setVisible(not self._overlays)


# ---------------------------------------------------------------------------------------------
# the scenario comparison's charts (the "Compare scenarios" tab and the report's images)

#: Height of a scenario's bar and half the height of its capacity line, in rows.
COMPARE_BAR_H = 0.46
COMPARE_CAP_HALF = 0.36
#: The least height of a row in pixels: its name and verdict (two lines) and, in the 0.41 of a row between its
#: capacity line's top and the bar above, the capacity label; and the bottom axis with its title.
COMPARE_ROW_PX = 52
COMPARE_AXIS_PX = 56


class CompareVramChart(pg.PlotWidget):
    """One stacked memory bar per scenario, one row each, all on the same GiB axis.

    Rows read like the plan's VRAM bar: the same component colours (legend below the axis), the
    scenario's name and verdict on the left, its total (in the verdict's colour: green, amber when
    tight, red when short) after the bar, a whisker for the likely range, and that scenario's GPU capacity as a red line
    across its own row, labelled ``RTX 4090: 23.99 GiB``.
    """

    #: its minimum height changed (more rows, a taller legend): a scrolling parent makes room for it
    height_needed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent, background="w")
        self.setAccessibleName(self.tr("Memory comparison chart"))
        self.setMinimumHeight(240)
        plot = self.getPlotItem()
        _style_plot(plot)
        plot.setLabel("bottom", self.tr("GPU memory per GPU (GiB)"), color=TEXT_COLOR)
        plot.showGrid(x=True, alpha=0.12)
        left = plot.getAxis("left")
        self._names_width = 150
        left.setWidth(self._names_width)
        left.setTickPen(pg.mkPen(None))
        self.legend = pg.LegendItem(colCount=5, labelTextColor=TEXT_COLOR, frame=False, verSpacing=-4)
        plot.legend = self.legend
        plot.layout.addItem(self.legend, 4, 1)
        self.bars: dict[str, pg.BarGraphItem] = {}
        for key in COMPONENT_ORDER:
            self._bar(key, COMPONENT_LABELS[key])
        self.capacity = pg.PlotDataItem([], [], connect="pairs", pen=pg.mkPen(CAPACITY_COLOR, width=2.5))
        self.capacity.setZValue(10)
        plot.addItem(self.capacity)
        self.ranges = pg.ErrorBarItem(x=np.zeros(0), y=np.zeros(0), left=np.zeros(0), right=np.zeros(0),
                                      beam=0.14, pen=pg.mkPen("#202020", width=1.2))
        self.ranges.setZValue(9)
        self.ranges.setToolTip(self.tr("Likely range of the total (measured error of the estimator)"))
        plot.addItem(self.ranges)
        self.cap_labels: list[pg.TextItem] = []
        self.total_labels: list[pg.TextItem] = []
        self._series: list[dict[str, tuple[float, float]]] = []
        self._names: list[str] = []
        self._verdicts: list[str] = []
        self._capacities: list[float] = []
        self._totals: list[float] = []
        self._highs: list[float] = []

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        """A comfortable default; the tab scrolls when the window is small."""
        return QSize(640, 300)

    def _bar(self, key: str, label: str) -> pg.BarGraphItem:
        if key not in self.bars:
            color = COMPONENT_COLORS.get(key, "#999999")
            item = pg.BarGraphItem(x0=[], width=[], y=[], height=COMPARE_BAR_H, brush=pg.mkBrush(color),
                                   pen=pg.mkPen("w", width=1), name=label)
            self.bars[key] = item
            self.getPlotItem().addItem(item)
        return self.bars[key]

    def _label(self, items: list[pg.TextItem], i: int, color: str, bold: bool) -> pg.TextItem:
        while len(items) <= i:
            t = pg.TextItem("", color=color, anchor=(0, 0.5), fill=pg.mkBrush(255, 255, 255, 215))
            if bold:
                f = QFont()
                f.setBold(True)
                t.setFont(f)
            t.setZValue(20)
            self.getPlotItem().addItem(t)
            items.append(t)
        return items[i]

    def row_y(self, i: int) -> float:
        """The y of scenario ``i``'s row (the first scenario is the top row)."""
        return float(len(self._names) - 1 - i)

    def set_entries(self, entries: Sequence[tuple[str, Estimate, str]]) -> None:
        """Redraw from ``(scenario name, estimate, GPU name)`` per row, top to bottom."""
        n = len(entries)
        self._names = [name for name, _r, _g in entries]
        ys = [self.row_y(i) for i in range(n)]
        series: list[dict[str, tuple[float, float]]] = [{} for _ in entries]
        totals = [0.0] * n
        keys = list(COMPONENT_ORDER)
        for _name, result, _gpu in entries:
            for comp in result.memory.components:
                if comp.key not in keys:
                    keys.append(comp.key)
        for key in keys:
            lefts, widths = [], []
            for i, (_name, result, _gpu) in enumerate(entries):
                comp = result.memory.component(key)
                gib = max(0.0, comp.bytes / GIB) if comp is not None else 0.0
                lefts.append(totals[i])
                widths.append(gib)
                if comp is not None:
                    series[i][key] = (totals[i], gib)
                totals[i] += gib
            if key not in self.bars:
                label = next((i18n.component_label(c.key, c.label) for _n, r, _g in entries
                              for c in r.memory.components if c.key == key), key)
                self._bar(key, label)
            self.bars[key].setOpts(x0=lefts, width=widths, y=ys, height=COMPARE_BAR_H)
        self._series = series
        self._totals = totals
        caps = [r.memory.capacity_bytes / GIB for _n, r, _g in entries]
        lows = [r.memory.low_bytes / GIB for _n, r, _g in entries]
        highs = [r.memory.high_bytes / GIB for _n, r, _g in entries]
        self._capacities, self._highs = caps, highs
        cx: list[float] = []
        cy: list[float] = []
        for y, cap in zip(ys, caps, strict=True):
            cx += [cap, cap]
            cy += [y - COMPARE_CAP_HALF, y + COMPARE_CAP_HALF]
        self.capacity.setData(cx, cy)
        # ErrorBarItem does arithmetic on its arrays: numpy, not lists.
        t = np.array(totals, dtype=float)
        self.ranges.setData(x=t, y=np.array(ys, dtype=float), left=t - np.array(lows, dtype=float),
                            right=np.array(highs, dtype=float) - t)
        self.ranges.setVisible(bool(n))
        for i, (_name, result, gpu) in enumerate(entries):
            cap_label = self._label(self.cap_labels, i, CAPACITY_COLOR, False)
            cap_label.setText(f"{short_gpu_name(gpu)}: {i18n.fmt_capacity(caps[i])}")
            cap_label.setPos(caps[i], ys[i] + COMPARE_CAP_HALF)  # above the row; its side in _layout_text
            cap_label.setVisible(True)
            total_label = self._label(self.total_labels, i, i18n.verdict_color(result.memory), True)
            total_label.setColor(i18n.verdict_color(result.memory))
            total_label.setText(f"{totals[i]:.1f} GiB")
            total_label.setVisible(True)
        for items in (self.cap_labels, self.total_labels):
            for item in items[n:]:
                item.setVisible(False)
        self._verdicts = [i18n.plan_verdict(r) for _n, r, _g in entries]
        right = nice_ceiling(max([*caps, *highs, *totals, 1.0]) * 1.06)
        # room above the top row for its capacity label, below the last row for the whisker caps
        _set_range(self, x=(0, right), y=(-0.6, max(n, 1) - 0.15))
        self._fit_height()
        self._layout_text()

    def _fit_height(self) -> None:
        """Tall enough for every row's two-line name and its capacity label above the bar, plus the legend
        under the axis: at 1024x640 a 240-pixel chart gave four rows 20 px each, and the labels ran over the
        rows above them."""
        legend = self.legend.layout.effectiveSizeHint(Qt.SizeHint.PreferredSize).height()
        rows = max(len(self._names), 1) + 0.45  # the view's extra room above and below the rows
        need = int(rows * COMPARE_ROW_PX + legend + COMPARE_AXIS_PX)
        if self.minimumHeight() != max(240, need):
            self.setMinimumHeight(max(240, need))
            self.height_needed.emit()

    def _layout_text(self) -> None:
        """Elide the row names to the axis and keep each total label inside the plot."""
        axis = self.getPlotItem().getAxis("left")
        fm = QFontMetrics(axis.style.get("tickFont") or QFont())
        width = max(60, self._names_width - 14)
        ticks = []
        for i, (name, verdict) in enumerate(zip(self._names, self._verdicts, strict=True)):
            line1 = fm.elidedText(name, Qt.TextElideMode.ElideRight, width)
            line2 = fm.elidedText(verdict, Qt.TextElideMode.ElideRight, width)
            ticks.append((self.row_y(i), f"{line1}\n{line2}"))
        axis.setTicks([ticks] if ticks else [[]])
        vb = self.getPlotItem().getViewBox()
        (x0, x1), _ = vb.viewRange()
        px = vb.width() or self.width()
        gib_per_px = (x1 - x0) / px if px > 0 else 0.0
        bold = QFont()
        bold.setBold(True)
        bfm = QFontMetrics(bold)
        for i, label in enumerate(self.cap_labels[: len(self._names)]):
            # left of its line, unless the plot's left edge would cut it ("4090: 23.99 GiB" beside a 140 GiB row)
            left = label_goes_left(vb, self._capacities[i], label.boundingRect().width())
            label.setAnchor((1, 1) if left else (0, 1))
        for i, label in enumerate(self.total_labels[: len(self._names)]):
            start = max(self._totals[i], self._highs[i]) + 6 * gib_per_px
            need = (bfm.horizontalAdvance(label.toPlainText()) + 10) * gib_per_px
            if start + need <= x1:
                label.setAnchor((0, 0.5))  # after the bar and its whisker
                label.setPos(start, self.row_y(i))
            else:  # no room on the right: inside the bar's end
                label.setAnchor((1, 0.5))
                label.setPos(self._totals[i] - 4 * gib_per_px, self.row_y(i))

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """Reflow the legend and the labels for the new width."""
        super().resizeEvent(event)
        if getattr(self, "legend", None) is None:  # pyqtgraph resizes during construction
            return
        names_width = int(min(280, max(130, self.width() * 0.22)))  # room for names when there is room
        if names_width != self._names_width:
            self._names_width = names_width
            self.getPlotItem().getAxis("left").setWidth(names_width)
        self._fit_legend(self.width() - names_width - 16)
        self._fit_height()
        self._layout_text()

    def _fit_legend(self, available: float) -> None:
        """As many legend columns as fit under the plot: a wider legend would widen the whole scene
        beyond the widget and cut off the right end of the bars and their labels."""
        before = self.legend.columnCount
        for columns in (5, 4, 3, 2, 1):
            if self.legend.columnCount != columns:
                self.legend.setColumnCount(columns)
            if self.legend.layout.effectiveSizeHint(Qt.SizeHint.PreferredSize).width() <= available:
                break
        if self.legend.columnCount != before:
            # pyqtgraph keeps the old legend width until the next resize: re-lay out the plot now
            self.legend.updateSize()
            self.legend.updateGeometry()
            plot = self.getPlotItem()
            plot.layout.invalidate()
            plot.setGeometry(QRectF(0, 0, self.width(), self.height()))

    def current_series(self) -> list[dict[str, tuple[float, float]]]:
        """Per scenario, top to bottom: ``{component key: (start GiB, size GiB)}``."""
        return [dict(s) for s in self._series]

    def bar_totals(self) -> list[float]:
        """The length of each scenario's bar (GiB): the sum of its segments."""
        return [sum(h for _b, h in s.values()) for s in self._series]

    def capacities(self) -> list[float]:
        """Where each row's capacity line is (GiB)."""
        return list(self._capacities)


_COMPARE_DASHES = [Qt.PenStyle.SolidLine, Qt.PenStyle.DashLine, Qt.PenStyle.DotLine, Qt.PenStyle.DashDotLine]


class CompareCostChart(pg.PlotWidget):
    """Cumulative cost over wall-clock time, one curve per scenario in its colour, with a legend."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent, background="w")
        self.setAccessibleName(self.tr("Cost comparison chart"))
        self.setMinimumHeight(220)
        plot = self.getPlotItem()
        _style_plot(plot)
        plot.setLabel("bottom", self.tr("Wall-clock time (hours)"), color=TEXT_COLOR)
        plot.setLabel("left", self.tr("Cost so far (USD)"), color=TEXT_COLOR)
        plot.showGrid(x=True, y=True, alpha=0.15)
        # Legend in its own row under the axis: long scenario names never cover a curve.
        self.legend = pg.LegendItem(colCount=1, labelTextColor=TEXT_COLOR, frame=False, verSpacing=-4)
        plot.legend = self.legend
        plot.layout.addItem(self.legend, 4, 1)
        self.curves: list[pg.PlotDataItem] = []
        self.ends = pg.ScatterPlotItem(size=9, symbol="o", pen=pg.mkPen("w"))
        self.ends.setZValue(10)
        plot.addItem(self.ends)
        self._series: list[tuple[list[float], list[float]]] = []
        self._minutes = False
        self._legend_texts: list[tuple[str, str]] = []  # per entry: its name and " — $cost · time"

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        """A comfortable default; the tab scrolls when the window is small."""
        return QSize(640, 280)

    def set_entries(self, entries: Sequence[tuple[str, Estimate, str]]) -> None:
        """Redraw from ``(scenario name, estimate, colour)`` per curve."""
        plot = self.getPlotItem()
        while len(self.curves) < len(entries):
            item = pg.PlotDataItem([], [])
            plot.addItem(item)
            self.curves.append(item)
        self.legend.clear()
        self._legend_texts = []
        hours_max = max([r.cost.curve[-1].hours for _n, r, _c in entries if r.cost.curve] + [0.0])
        minutes = 0 < hours_max < 1
        scale = 60.0 if minutes else 1.0
        if minutes != self._minutes:
            self._minutes = minutes
            plot.setLabel("bottom", self.tr("Wall-clock time (minutes)") if minutes else self.tr("Wall-clock time (hours)"),
                          color=TEXT_COLOR)
        series = []
        ex, ey, brushes = [], [], []
        top = 0.01
        for i, (name, result, color) in enumerate(entries):
            xs = [p.hours for p in result.cost.curve]
            ys = [p.usd for p in result.cost.curve]
            series.append((xs, ys))
            item = self.curves[i]
            item.setData([x * scale for x in xs], ys)
            # a dash per scenario too: equal curves (same GPU and price) stay distinguishable
            item.setPen(pg.mkPen(color, width=2.5, style=_COMPARE_DASHES[i % len(_COMPARE_DASHES)]))
            item.setVisible(True)
            when = (translate("Units", "{n} min").format(n=f"{xs[-1] * 60:.0f}") if minutes and xs
                    else i18n.format_hours(xs[-1], plain=True) if xs else "")
            figures = f"{i18n.plain_usd(result.cost.total_usd)} · {when}"
            if blocking_notes(result):  # a plan its stack refuses: what it would take (the Plan tab says the same)
                figures = self.tr("if it could run: {figures}").format(figures=figures)
            self._legend_texts.append((name, f" — {figures}"))
            self.legend.addItem(item, "")  # its text: _elide_legend
            if xs:
                ex.append(xs[-1] * scale)
                ey.append(ys[-1])
                brushes.append(pg.mkBrush(color))
                top = max(top, max(ys))
        for item in self.curves[len(entries):]:
            item.setData([], [])
            item.setVisible(False)
        self.ends.setData(ex, ey, brush=brushes)
        self._series = series
        self._elide_legend()
        right = max([*ex, 0.01])
        _set_range(self, x=(0, nice_ceiling(right * 1.02)), y=(0, nice_ceiling(top * 1.15)))

    def _elide_legend(self) -> None:
        """Each legend entry, ``name — $cost · time``, with the name shortened in its middle to the chart's width so
        that the cost and the time stay whole (a long current-plan name cut "· 2.5 h" off at 1024x640)."""
        for (_sample, label), (name, tail) in zip(self.legend.items, self._legend_texts, strict=False):
            metrics = QFontMetrics(label.item.font())
            room = self.width() - COST_LEGEND_MARGIN_PX - metrics.horizontalAdvance(tail)
            shown = metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, max(room, 40))
            label.setText(html.escape(shown + tail))  # legends are HTML

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        if getattr(self, "_legend_texts", None):  # (pyqtgraph resizes during construction)
            self._elide_legend()

    def current_series(self) -> list[tuple[list[float], list[float]]]:
        """Per scenario: ``(hours, cumulative USD)``; each curve ends at that scenario's total."""
        return [(list(x), list(y)) for x, y in self._series]
