"""Limits: the largest micro-batch and the longest sequence that fit, and memory against length.

:class:`LimitsController` computes, after each estimate (on a 0 ms timer, and only while the tab
is shown), :func:`tuneplan.core.advice.max_micro_batch` and :func:`~tuneplan.core.advice.max_seq_len`
on the plan's GPU and on the user's own GPU when one is known, plus
:func:`~tuneplan.core.advice.memory_curve`, the device total against sequence length. "Fits"
means exactly what the verdict means: the limit fits and one more does not.

:class:`LimitsView` (the "Limits" tab) shows the numbers with buttons that apply them, and a
pyqtgraph chart of peak device memory (GiB) against sequence length (tokens, log scale with
power-of-two ticks): the GPU's capacity as a red line, the local GPU's as a blue one, a marker at
the current sequence length and one at the limit.
"""

from __future__ import annotations

import html
import logging
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import pyqtgraph as pg  # noqa: E402
from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSize, Qt, QTimer, Signal  # noqa: E402
from PySide6.QtWidgets import (  # noqa: E402
    QFrame,
    QGridLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from tuneplan.core.advice import SEQ_LEN_SEARCH_CAP, max_micro_batch, max_seq_len, memory_curve  # noqa: E402
from tuneplan.core.memory import estimate_memory, likely_range  # noqa: E402
from tuneplan.core.result import GIB  # noqa: E402
from tuneplan.core.scenario import GpuSpec, Scenario  # noqa: E402
from tuneplan.ui.charts import CAPACITY_COLOR, TEXT_COLOR, nice_ceiling, short_gpu_name  # noqa: E402
from tuneplan.ui.i18n import fmt_capacity  # noqa: E402
from tuneplan.ui.store import AppStore  # noqa: E402
from tuneplan.ui.theme import mark_self_themed, themed  # noqa: E402

__all__ = [
    "GpuLimits",
    "LimitsChart",
    "LimitsController",
    "LimitsState",
    "LimitsView",
    "install_limits",
    "token_label",
]

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

log = logging.getLogger(__name__)

#: The largest micro-batch searched (core.advice.max_micro_batch's default upper bound).
MICRO_BATCH_SEARCH = 256
#: Sequence-length schema limit (TrainingSetup.seq_len).
SEQ_LEN_MAX = 10_000_000
CURVE_COLOR = "#3b6fb6"
LOCAL_COLOR = "#1565c0"
MARKER_COLOR = "#202020"
GOOD = "#2e7d32"
BAD = "#c62828"
WARN = "#8a5a00"  # the theme's warning colour (the amber verdict): limits of the whole likely range


def token_label(tokens: float) -> str:
    """``256`` -> ``256``; ``2048`` -> ``2k``; ``131072`` -> ``128k``; ``1048576`` -> ``1M`` (binary steps)."""
    t = round(tokens)
    if t >= 1 << 20 and t % (1 << 20) == 0:
        return f"{t >> 20}M"
    if t >= 1024 and t % 1024 == 0:
        return f"{t >> 10}k"
    if t >= 10_000:
        return f"{t / 1000:.0f}k"
    return f"{t:,}"


def _labelled_line(angle: float, pen: Any, color: str, position: float, anchor: tuple[float, float]) -> pg.InfiniteLine:
    """A fixed (not movable) horizontal or vertical line with a label on a translucent white fill."""
    return pg.InfiniteLine(angle=angle, pen=pen, label="", labelOpts={
        "color": color, "position": position, "anchors": [anchor, anchor], "movable": False,
        "fill": pg.mkBrush(255, 255, 255, 220)})


@dataclass(frozen=True)
class GpuLimits:
    """The plan's limits on one GPU.

    Attributes:
        gpu: the card.
        label: how to name it (``RTX 4090``, ``Your RTX 4090``).
        micro_batch: largest micro-batch that fits at the plan's sequence length (0: not even 1).
        seq_len: longest sequence that fits at the plan's micro-batch (0: not even 1 token).
        seq_capped: ``seq_len`` is the model's maximum (or the search cap), not a memory limit.
        batch_capped: ``micro_batch`` reached the search bound (:data:`MICRO_BATCH_SEARCH`).
        total_bytes: the plan's device total on this GPU.
        fits: whether the plan as it is fits this GPU.
        micro_batch_cautious, seq_len_cautious: the same limits for the whole likely range (the estimate's
            measured error on published runs), never above the limits by the estimate.
    """

    gpu: GpuSpec
    label: str
    micro_batch: int
    seq_len: int
    seq_capped: bool
    batch_capped: bool
    total_bytes: float
    fits: bool
    micro_batch_cautious: int = 0
    seq_len_cautious: int = 0

    @property
    def capacity_gib(self) -> float:
        """The GPU's memory in GiB."""
        return self.gpu.memory_gib


@dataclass(frozen=True)
class LimitsState:
    """What the Limits tab shows: limits on the plan's GPU (and the local one) and the memory curve."""

    scenario: Scenario
    selected: GpuLimits
    local: GpuLimits | None = None
    curve: list[tuple[int, float]] = field(default_factory=list)
    elapsed_ms: float = 0.0


def gpu_limits(s: Scenario, gpu: GpuSpec, label: str) -> GpuLimits:
    """Limits of plan ``s`` on ``gpu`` (bisection over the same ledger as the verdict)."""
    mem, _ = estimate_memory(s.model, s.training, gpu, s.dataset)
    seq = max_seq_len(s, gpu)
    cap = s.model.max_position_embeddings or SEQ_LEN_SEARCH_CAP
    mb = max_micro_batch(s, gpu, upper=MICRO_BATCH_SEARCH)
    return GpuLimits(
        gpu=gpu,
        label=label,
        micro_batch=mb,
        seq_len=seq,
        seq_capped=seq >= cap,
        batch_capped=mb >= MICRO_BATCH_SEARCH,
        total_bytes=mem.total_bytes,
        fits=mem.fits,
        micro_batch_cautious=max_micro_batch(s, gpu, upper=max(mb, 1), cautious=True) if mb > 0 else 0,
        seq_len_cautious=max_seq_len(s, gpu, cautious=True) if seq > 0 else 0,
    )


def curve_span(s: Scenario, limit: int) -> int:
    """Longest sequence the curve shows: a few times the current length and the limit, within the model."""
    t = s.training
    want = max(8192, 3 * t.seq_len, 3 * limit)
    model_max = s.model.max_position_embeddings or SEQ_LEN_SEARCH_CAP
    span = min(want, max(model_max, 8192))
    return int(min(SEQ_LEN_MAX, max(span, math.ceil(t.seq_len * 1.25), math.ceil(limit * 1.25), 512)))


class LimitsController(QObject):
    """Computes the plan's limits and memory curve after each estimate, while the view is active.

    Signals:
        limits_changed(LimitsState): new limits.
    """

    limits_changed = Signal(object)

    def __init__(self, store: AppStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.state: LimitsState | None = None
        self.local_gpu: GpuSpec | None = None
        self.local_label = ""
        self._active = False
        self._stale = True
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.compute_now)
        store.result_changed.connect(self.schedule)

    def set_active(self, active: bool) -> None:
        """The view is shown (compute on changes) or hidden (only remember that it is stale)."""
        self._active = active
        if active and self._stale:
            self._timer.start()

    def schedule(self, *_args: object) -> None:
        """Recompute after the current burst of edits, if the view is shown."""
        self._stale = True
        if self._active:
            self._timer.start()

    def set_local_gpu(self, gpu: GpuSpec | None, label: str = "") -> None:
        """The user's own GPU (``None``: none known); its limits are shown next to the plan's GPU."""
        self.local_gpu = gpu
        self.local_label = label or (
            translate("Limits", "Your {gpu}").format(gpu=short_gpu_name(gpu.name)) if gpu else ""
        )
        self.schedule()

    def compute_now(self) -> LimitsState:
        """Compute the limits for the store's plan now and emit :attr:`limits_changed`."""
        self._timer.stop()
        s = self.store.scenario
        started = time.perf_counter()
        selected = gpu_limits(s, s.gpu, short_gpu_name(s.gpu.name))
        local = gpu_limits(s, self.local_gpu, self.local_label) if self.local_gpu is not None else None
        curve = memory_curve(s, points=28, max_len=curve_span(s, selected.seq_len))
        elapsed = (time.perf_counter() - started) * 1000
        log.debug("limits in %.1f ms", elapsed)
        self._stale = False
        self.state = LimitsState(s, selected, local, curve, elapsed)
        self.limits_changed.emit(self.state)
        return self.state


# ---------------------------------------------------------------------------------------- chart
class TokenAxis(pg.AxisItem):
    """A log-scale axis of token counts with ticks at powers of two (256, 512, 1k, 2k, …)."""

    def logTickValues(self, minVal: float, maxVal: float, size: float, stdTicks: Any) -> list:  # noqa: N802, N803
        """Major ticks at powers of two, thinned so labels never collide."""
        lo, hi = sorted((minVal, maxVal))
        k0, k1 = math.floor(lo / math.log10(2)), math.ceil(hi / math.log10(2))
        values = [k * math.log10(2) for k in range(k0, k1 + 1) if lo <= k * math.log10(2) <= hi and k >= 0]
        step = 1
        while len(values) / step > max(2, size / 55):
            step *= 2
        major = [v for v in values if round(v / math.log10(2)) % step == 0]
        return [(None, major)]

    def logTickStrings(self, values: list[float], scale: float, spacing: float) -> list[str]:  # noqa: N802
        """``2k``, ``32k``, ``1M``."""
        return [token_label(10**v) for v in values]


class LimitsChart(pg.PlotWidget):
    """Peak device memory (GiB) against sequence length (tokens, log x) with capacity and markers."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent=parent, background="w", axisItems={"bottom": TokenAxis("bottom")})
        self.setAccessibleName(translate("Limits", "Memory against sequence length chart"))
        # tall enough for the y-axis title beside its axis (it was cut at 260 px); the tab scrolls below that
        self.setMinimumHeight(330)
        plot = self.getPlotItem()
        plot.setMenuEnabled(False)
        plot.hideButtons()
        plot.getViewBox().setMouseEnabled(x=False, y=False)
        plot.setLogMode(x=True, y=False)
        plot.showGrid(x=True, y=True, alpha=0.15)
        for name in ("left", "bottom"):
            axis = plot.getAxis(name)
            axis.setPen(pg.mkPen("#888888"))
            axis.setTextPen(pg.mkPen(TEXT_COLOR))
            axis.enableAutoSIPrefix(False)
        plot.setLabel("bottom", translate("Limits", "Sequence length (tokens, log scale)"), color=TEXT_COLOR)
        plot.setLabel("left", translate("Limits", "Peak device memory per GPU (GiB)"), color=TEXT_COLOR)
        # The legend has its own row under the axis (as on the Plan tab's VRAM chart): in the plot's top left
        # corner it covered the "now" and "limit" markers' labels of a plan whose limit is a short sequence.
        self.legend = pg.LegendItem(colCount=2, labelTextColor=TEXT_COLOR, frame=False, verSpacing=-4)
        plot.legend = self.legend
        plot.layout.addItem(self.legend, 4, 1)
        self.over = pg.LinearRegionItem(
            values=(0, 1e6),
            orientation="horizontal",
            movable=False,
            brush=pg.mkBrush(198, 40, 40, 22),
            pen=pg.mkPen(None),
        )
        self.over.setZValue(-30)
        plot.addItem(self.over, ignoreBounds=True)
        self.curve = pg.PlotDataItem(
            [], [], pen=pg.mkPen(CURVE_COLOR, width=2.5), name=translate("Limits", "Device total")
        )
        # the likely range of the total at each length (measured error of the estimator), shaded behind the curve
        self.band_low = pg.PlotDataItem([], [], pen=pg.mkPen(None))
        self.band_high = pg.PlotDataItem([], [], pen=pg.mkPen(None))
        self.band = pg.FillBetweenItem(self.band_low, self.band_high, brush=pg.mkBrush(120, 120, 120, 45))
        self.band.setZValue(-20)
        for item in (self.band_low, self.band_high, self.band):
            plot.addItem(item)
        self.legend.addItem(pg.BarGraphItem(x=[0.0], height=[1.0], width=1.0, brush=pg.mkBrush(120, 120, 120, 70),
                                            pen=pg.mkPen(None)), translate("Limits", "Likely range (measured error)"))
        plot.addItem(self.curve)
        self.capacity_line = _labelled_line(0, pg.mkPen(CAPACITY_COLOR, width=2), CAPACITY_COLOR, 0.02, (0, 1))
        self.local_line = _labelled_line(0, pg.mkPen(LOCAL_COLOR, width=2, style=Qt.PenStyle.DashDotLine),
                                         LOCAL_COLOR, 0.02, (0, 0))
        self.local_line.setVisible(False)
        self.current_line = _labelled_line(90, pg.mkPen(MARKER_COLOR, width=1.5, style=Qt.PenStyle.DashLine),
                                           MARKER_COLOR, 0.93, (1, 0.5))
        self.limit_line = _labelled_line(90, pg.mkPen(CAPACITY_COLOR, width=1.5, style=Qt.PenStyle.DotLine),
                                         CAPACITY_COLOR, 0.80, (0, 0.5))
        for line in (self.capacity_line, self.local_line, self.current_line, self.limit_line):
            line.setZValue(10)
            plot.addItem(line, ignoreBounds=True)
        self.current_point = pg.ScatterPlotItem(
            size=10, symbol="o", brush=pg.mkBrush(MARKER_COLOR), pen=pg.mkPen("w")
        )
        self.limit_point = pg.ScatterPlotItem(
            size=11, symbol="d", brush=pg.mkBrush(CAPACITY_COLOR), pen=pg.mkPen("w")
        )
        for item in (self.current_point, self.limit_point):
            item.setZValue(12)
            plot.addItem(item)
        self.state: LimitsState | None = None

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        """A comfortable default size."""
        return QSize(640, 360)

    def set_state(self, state: LimitsState) -> None:
        """Redraw from the controller's state (item data only)."""
        self.state = state
        sel = state.selected
        xs = [float(x) for x, _ in state.curve]
        ys = [b / GIB for _, b in state.curve]
        self.curve.setData(xs, ys)
        mode = state.scenario.training.sequence_mode
        ranges = [likely_range(b, mode) for _, b in state.curve]
        self.band_low.setData(xs, [lo / GIB for lo, _ in ranges])
        self.band_high.setData(xs, [hi / GIB for _, hi in ranges])
        cap = sel.capacity_gib
        self.capacity_line.setPos(cap)
        self.capacity_line.label.setFormat(f"{sel.label}: {fmt_capacity(cap)}")
        self.over.setRegion((cap, max(cap * 100, 1e5)))
        local = state.local
        self.local_line.setVisible(local is not None)
        if local is not None:
            self.local_line.setPos(local.capacity_gib)
            self.local_line.label.setFormat(f"{local.label}: {fmt_capacity(local.capacity_gib)}")
        seq = state.scenario.training.seq_len
        total = sel.total_bytes / GIB
        self.current_line.setPos(math.log10(seq))
        self.current_line.label.setFormat(
            translate("Limits", "now {tokens}: {gib} GiB").format(tokens=token_label(seq), gib=f"{total:.1f}")
        )
        # scatter items are not log-mapped by the plot (only PlotDataItem is): place them in log10 x
        self.current_point.setData([math.log10(seq)], [total])
        show_limit = sel.seq_len > 0
        self.limit_line.setVisible(show_limit)
        self.limit_point.setVisible(show_limit)
        if show_limit:
            limit_total = self._total_at(state, sel.seq_len)
            self.limit_line.setPos(math.log10(sel.seq_len))
            self.limit_line.label.setFormat(
                (
                    translate("Limits", "model max {tokens}")
                    if sel.seq_capped
                    else translate("Limits", "limit {tokens}")
                ).format(tokens=f"{sel.seq_len:,}")
            )
            self.limit_point.setData([math.log10(sel.seq_len)], [limit_total])
        # labels on the side with room: the current marker's label goes left unless near the left edge
        x_lo = math.log10(min([*xs, seq, sel.seq_len or seq]) / 1.15)
        x_hi = math.log10(max([*xs, seq, sel.seq_len or seq]) * 1.15)
        left_room = (math.log10(seq) - x_lo) / max(x_hi - x_lo, 1e-9) > 0.3
        side = (1, 0.5) if left_room else (0, 0.5)
        self.current_line.label.anchors = [side, side]
        limit_right = show_limit and (math.log10(sel.seq_len) - x_lo) / max(x_hi - x_lo, 1e-9) < 0.7
        lside = (0, 0.5) if limit_right else (1, 0.5)
        self.limit_line.label.anchors = [lside, lside]
        for line in (self.current_line, self.limit_line):
            line.label.updatePosition()
        y_top = nice_ceiling(max([*ys, cap, local.capacity_gib if local else 0.0, total]) * 1.06)
        vb = self.getPlotItem().getViewBox()
        vb.setXRange(x_lo, x_hi, padding=0)
        vb.setYRange(0, y_top, padding=0)

    @staticmethod
    def _total_at(state: LimitsState, seq: int) -> float:
        """Device total (GiB) at ``seq`` tokens, read off the curve (log-linear between its points)."""
        pts = state.curve
        if not pts:
            return 0.0
        if seq <= pts[0][0]:
            return pts[0][1] / GIB
        for (x0, y0), (x1, y1) in zip(pts, pts[1:], strict=False):
            if x0 <= seq <= x1:
                f = (math.log(seq) - math.log(x0)) / max(math.log(x1) - math.log(x0), 1e-12)
                return (y0 + f * (y1 - y0)) / GIB
        return pts[-1][1] / GIB

    @property
    def capacity_gib(self) -> float:
        """Where the capacity line is, in GiB."""
        return float(self.capacity_line.value())


# ---------------------------------------------------------------------------------------- view
class LimitsView(QWidget):
    """The Limits tab: the largest micro-batch and longest sequence per GPU, and the memory curve."""

    def __init__(
        self, store: AppStore, controller: LimitsController | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.controller = controller or LimitsController(store, self)
        self.setAccessibleName(translate("Limits", "Limits"))
        # The tab scrolls as the Plan tab does: on a 1024x640 screen the numbers and a readable chart are taller
        # than the tab, and a squeezed chart cut its axis title and legend off (issue #21).
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll = QScrollArea()
        self.scroll.setWidgetResizable(True)
        self.scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        outer.addWidget(self.scroll)
        body = QWidget()
        self.scroll.setWidget(body)
        col = QVBoxLayout(body)
        col.setContentsMargins(12, 10, 12, 12)
        col.setSpacing(8)
        intro = QLabel(
            translate(
                "Limits",
                "How far this plan can go before it runs out of memory. "
                "“Fits” means what the verdict means: the limit fits, one more does not.",
            )
        )
        intro.setWordWrap(True)
        intro.setStyleSheet("color: #555555;")
        col.addWidget(intro)
        box = QFrame()
        box.setObjectName("card")
        # One row per limit (its name, the number with what it means, a Use button) under the GPU it is for: the
        # five columns side by side squeezed each text into a column a word wide on a 1024 px screen (issue #21).
        self.grid = QGridLayout(box)
        self.grid.setContentsMargins(12, 8, 12, 8)
        self.grid.setHorizontalSpacing(14)
        self.grid.setVerticalSpacing(6)
        self.grid.setColumnStretch(1, 1)
        self.gpu_label = QLabel()
        self.batch_label = QLabel()
        self.batch_label.setAccessibleName(translate("Limits", "Largest micro-batch"))
        self.seq_label = QLabel()
        self.seq_label.setAccessibleName(translate("Limits", "Longest sequence"))
        self.use_batch = QPushButton(translate("Limits", "Use"))
        self.use_batch.setAccessibleName(translate("Limits", "Use the largest micro-batch"))
        self.use_batch.clicked.connect(self._use_batch)
        self.use_seq = QPushButton(translate("Limits", "Use"))
        self.use_seq.setAccessibleName(translate("Limits", "Use the longest sequence"))
        self.use_seq.clicked.connect(self._use_seq)
        self.local_labels = [QLabel(), QLabel(), QLabel()]
        self.local_labels[1].setAccessibleName(translate("Limits", "Largest micro-batch on your GPU"))
        self.local_labels[2].setAccessibleName(translate("Limits", "Longest sequence on your GPU"))
        self.row_names: list[QLabel] = []
        self._local_names: list[QLabel] = []
        for gpu, batch, seq, buttons in ((self.gpu_label, self.batch_label, self.seq_label,
                                          (self.use_batch, self.use_seq)),
                                         (*self.local_labels, (None, None))):
            row = self.grid.rowCount() if self.grid.count() else 0
            self.grid.addWidget(gpu, row, 0, 1, 3)
            for r, (name, value, button) in enumerate(
                    ((translate("Limits", "Largest micro-batch"), batch, buttons[0]),
                     (translate("Limits", "Longest sequence"), seq, buttons[1])), start=row + 1):
                h = QLabel(name)
                h.setStyleSheet("color: #666666;")
                h.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
                self.row_names.append(h)
                if button is None:
                    self._local_names.append(h)
                self.grid.addWidget(h, r, 0, Qt.AlignmentFlag.AlignTop)
                self.grid.addWidget(value, r, 1)
                if button is not None:
                    self.grid.addWidget(button, r, 2, Qt.AlignmentFlag.AlignTop)
        for w in (*self.local_labels, *self._local_names):
            w.hide()
        mark_self_themed(self.batch_label, self.seq_label, *self.local_labels)
        self.gpu_label.setWordWrap(True)
        for w in (self.batch_label, self.seq_label, *self.local_labels):
            w.setTextFormat(Qt.TextFormat.RichText)
            w.setWordWrap(True)
            w.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        col.addWidget(box)
        caption = QLabel(
            translate("Limits", "Peak device memory against sequence length, at micro-batch {mb}").format(
                mb=1
            )
        )
        caption.setStyleSheet("color: #555555; font-weight: 600;")
        caption.setWordWrap(True)
        self.caption = caption
        col.addWidget(caption)
        self.chart = LimitsChart()
        col.addWidget(self.chart, 1)
        self.controller.limits_changed.connect(self.show_state)
        self.state: LimitsState | None = None

    # ------------------------------------------------------------------ local GPU hook
    def set_local_gpu(self, gpu: GpuSpec | None, label: str = "") -> None:
        """Show the limits on the user's own GPU too (``None``: none known)."""
        self.controller.set_local_gpu(gpu, label)

    # ------------------------------------------------------------------ visibility
    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt naming
        """Compute when shown (the controller idles while the tab is hidden)."""
        super().showEvent(event)
        self.controller.set_active(True)

    def hideEvent(self, event: Any) -> None:  # noqa: N802 - Qt naming
        """Stop computing while hidden."""
        super().hideEvent(event)
        self.controller.set_active(False)

    # ------------------------------------------------------------------ rendering
    def show_state(self, state: LimitsState) -> None:
        """Redraw the numbers and the chart."""
        self.state = state
        t = state.scenario.training
        sel = state.selected
        self.gpu_label.setText(f"<b>{html.escape(sel.label)}</b> · {fmt_capacity(sel.capacity_gib)}")
        self.gpu_label.setTextFormat(Qt.TextFormat.RichText)
        self.batch_label.setText(themed(self._batch_text(sel, t.seq_len, t.micro_batch)))
        self.seq_label.setText(themed(self._seq_text(sel, t.micro_batch, t.seq_len)))
        self.use_batch.setEnabled(sel.micro_batch > 0 and sel.micro_batch != t.micro_batch)
        self.use_batch.setToolTip(translate("Limits", "Set the micro-batch to {n}").format(n=sel.micro_batch))
        self.use_seq.setEnabled(sel.seq_len > 0 and sel.seq_len != t.seq_len)
        self.use_seq.setToolTip(
            translate("Limits", "Set the sequence length to {n} tokens").format(n=f"{sel.seq_len:,}")
        )
        local = state.local
        for w in (*self.local_labels, *self._local_names):
            w.setVisible(local is not None)
        if local is not None:
            self.local_labels[0].setText(f"<b>{html.escape(local.label)}</b> · {fmt_capacity(local.capacity_gib)}")
            self.local_labels[1].setText(themed(self._batch_text(local, t.seq_len, t.micro_batch)))
            self.local_labels[2].setText(themed(self._seq_text(local, t.micro_batch, t.seq_len)))
        self.caption.setText(
            translate(
                "Limits",
                "Peak device memory against sequence length, at micro-batch {mb} "
                "(hover the markers for values)",
            ).format(mb=t.micro_batch)
        )
        self.chart.set_state(state)
        self.chart.current_line.setToolTip(
            translate("Limits", "This plan: {tokens} tokens, {gib} GiB").format(
                tokens=f"{t.seq_len:,}", gib=f"{sel.total_bytes / GIB:.2f}"
            )
        )
        self.chart.limit_line.setToolTip(self._seq_plain(sel))

    @staticmethod
    def _batch_text(g: GpuLimits, seq_len: int, current: int) -> str:
        if g.micro_batch <= 0:
            return (
                f"<span style='color:{BAD}'>"
                + translate("Limits", "not even 1 sequence of {seq} tokens").format(seq=f"{seq_len:,}")
                + "</span>"
            )
        more = "+" if g.batch_capped else ""
        color = GOOD if g.micro_batch >= current else BAD
        return f"<span style='color:{color}; font-weight:600'>{g.micro_batch}{more}</span> " + (
            translate("Limits", "sequence of {seq} tokens (now {now})")
            if g.micro_batch == 1
            else translate("Limits", "sequences of {seq} tokens (now {now})")
        ).format(seq=f"{seq_len:,}", now=current) + LimitsView._cautious(g.micro_batch_cautious, g.micro_batch)

    @staticmethod
    def _cautious(cautious: int, limit: int) -> str:
        """`` · n with the whole likely range`` in the warning colour, when that is below the limit."""
        if limit <= 0 or cautious >= limit:
            return ""
        if cautious <= 0:
            return f" · <span style='color:{WARN}'>" + translate(
                "Limits", "the whole likely range does not fit") + "</span>"
        return f" · <span style='color:{WARN}'>" + translate(
            "Limits", "{n} with the whole likely range").format(n=f"{cautious:,}") + "</span>"

    @staticmethod
    def _seq_plain(g: GpuLimits) -> str:
        if g.seq_len <= 0:
            return translate("Limits", "Not even 1 token fits: the weights and states alone exceed the GPU")
        if g.seq_capped:
            return translate("Limits", "{n} tokens: the model's maximum; memory would allow more").format(
                n=f"{g.seq_len:,}"
            )
        return translate("Limits", "{n} tokens fit; {m} do not").format(
            n=f"{g.seq_len:,}", m=f"{g.seq_len + 1:,}"
        )

    @staticmethod
    def _seq_text(g: GpuLimits, micro_batch: int, current: int) -> str:
        if g.seq_len <= 0:
            return (
                f"<span style='color:{BAD}'>"
                + translate(
                    "Limits",
                    "not even 1 token: the weights and states alone exceed it. "
                    "See the advice in the Plan tab",
                )
                + "</span>"
            )
        color = GOOD if g.seq_len >= current else BAD
        note = (
            translate("Limits", "the model's maximum")
            if g.seq_capped
            else translate("Limits", "at micro-batch {mb}").format(mb=micro_batch)
        )
        return f"<span style='color:{color}; font-weight:600'>{g.seq_len:,}</span> " + translate(
            "Limits", "tokens ({note}; now {now})"
        ).format(note=note, now=f"{current:,}") + LimitsView._cautious(g.seq_len_cautious, g.seq_len)

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt naming
        """Redraw the coloured text in the new theme."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.state is not None:
            self.show_state(self.state)

    # ------------------------------------------------------------------ actions
    def _use_batch(self) -> None:
        if self.state is not None and self.state.selected.micro_batch > 0:
            self.store.set_field("training.micro_batch", self.state.selected.micro_batch)

    def _use_seq(self) -> None:
        if self.state is not None and self.state.selected.seq_len > 0:
            self.store.set_field("training.seq_len", self.state.selected.seq_len)


def _follow_local_gpus(window: QMainWindow, view: LimitsView) -> None:
    """Feed the view the user's own GPU from the "Your GPUs" controller, when the window has one."""
    controller = getattr(getattr(window, "local_gpu_panel", None), "controller", None)
    signal = getattr(controller, "plan_changed", None)
    if signal is None:
        return

    def show(plan: Any) -> None:
        card = getattr(plan, "card", None)
        spec = getattr(card, "spec", None)
        if isinstance(spec, GpuSpec):
            name = str(getattr(card.gpu, "name", spec.name)).removeprefix("NVIDIA ")
            view.set_local_gpu(spec, translate("Limits", "Your {gpu}").format(gpu=short_gpu_name(name)))
        else:
            view.set_local_gpu(None)

    signal.connect(show)
    show(getattr(controller, "plan", None))


def install_limits(store: AppStore, tabs: QTabWidget, window: QMainWindow) -> LimitsView:
    """Add the "Limits" tab to ``tabs`` and follow the user's own GPU when ``window`` knows one. Returns the view."""
    view = LimitsView(store)
    index = tabs.addTab(view, translate("Limits", "Limits"))
    tabs.setTabToolTip(
        index, translate("Limits", "The largest micro-batch and the longest sequence that fit")
    )
    _follow_local_gpus(window, view)
    return view
