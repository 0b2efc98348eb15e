"""The "Compare GPUs" tab: the current plan on every catalog GPU, and chosen GPUs on the cost chart.

Data flow (one way, as everywhere in the GUI):

* :class:`GpuCompareController` listens to the store (``scenario_changed``) and to the price book
  (``changed``); a 0 ms single-shot timer folds a burst of edits into one computation. It calls
  :func:`tuneplan.core.compare.compare_gpus` with the **effective** prices of the price book and
  hands the rows to :class:`GpuComparisonModel`. For GPUs ticked "On chart" it also runs
  :func:`tuneplan.core.estimate.estimate` on a copy of the plan on that GPU (the micro-batch and
  price of its table row) and gives the cost curves to ``CostChart.set_overlays``.
* :class:`GpuCompareView` shows the table (sortable, numeric sort on numbers, "only GPUs that
  fit" filter), a budget box and a one-line answer; double-click (or Enter, or "Use for plan")
  makes a GPU the plan's GPU through ``store.set_gpu``.

While the tab is hidden and nothing is on the chart, the comparison is not recomputed; it catches
up when the tab is shown.
"""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass
from datetime import date
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDoubleSpinBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from tuneplan import catalog
from tuneplan.catalog.prices import PriceEntry, billed_gpus, plan_usd_per_gpu_hour
from tuneplan.core.compare import DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR, GpuComparisonRow, compare_gpus
from tuneplan.core.scenario import GpuSpec
from tuneplan.ui.charts import short_gpu_name
from tuneplan.ui.flow_layout import FlowLayout
from tuneplan.ui.i18n import OFFER_KIND_LABELS, core_note_text, fmt_number, plain_usd
from tuneplan.ui.price_book_view import PriceBookController, date_text, install_price_book, refilter

__all__ = [
    "COLUMNS",
    "SORT_ROLE",
    "ComparisonItem",
    "GpuCompareController",
    "GpuCompareView",
    "GpuComparisonModel",
    "GpuComparisonProxy",
    "install_gpu_compare",
]

log = logging.getLogger(__name__)

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

#: Role holding a column's numeric (or lower-case text) sort key; ``None`` sorts last.
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
#: Role holding the row's catalog GPU id.
GPU_ID_ROLE = Qt.ItemDataRole.UserRole + 2

CHART, RANK, GPU, MEMORY, FITS, PEAK, HOURS, ON_DEMAND, SPOT, DATE = range(10)
COLUMNS = ["Chart", "#", "GPU", "Memory", "Fits", "Peak", "Hours", "On demand", "Spot", "Price date"]
#: Header text: units on a second line keep the numeric columns narrow (translated when shown).
_HEADERS = [QT_TRANSLATE_NOOP("GpuComparisonModel", "Chart"), "#", "GPU",
            QT_TRANSLATE_NOOP("GpuComparisonModel", "Memory\n(GiB)"),
            QT_TRANSLATE_NOOP("GpuComparisonModel", "Fits at\nmicro-batch"),
            QT_TRANSLATE_NOOP("GpuComparisonModel", "Peak\n(GiB)"),
            QT_TRANSLATE_NOOP("GpuComparisonModel", "Time\n(hours)"),
            QT_TRANSLATE_NOOP("GpuComparisonModel", "On demand\n($ per run)"),
            QT_TRANSLATE_NOOP("GpuComparisonModel", "Spot\n($ per run)"),
            QT_TRANSLATE_NOOP("GpuComparisonModel", "Prices\nseen")]
_HEADER_TIPS = [
    QT_TRANSLATE_NOOP("GpuComparisonModel", "Tick to draw this GPU's cost over the run on the Plan tab's cost chart"),
    QT_TRANSLATE_NOOP("GpuComparisonModel", "Rank: GPUs that fit first, cheapest per run (lower of on-demand and spot) first"),
    QT_TRANSLATE_NOOP("GpuComparisonModel", "Catalog GPU; double-click to plan on it"),
    QT_TRANSLATE_NOOP("GpuComparisonModel", "Memory per GPU (GiB): the device total that must fit"),
    QT_TRANSLATE_NOOP("GpuComparisonModel",
                      "Whether the plan fits, and the micro-batch it runs at (the effective batch stays the same); "
                      "'tight': the upper end of the likely range (measured error) does not fit, 'unlikely': not "
                      "even its lower end, 'may fit': the estimate does not fit but the lower end does"),
    QT_TRANSLATE_NOOP("GpuComparisonModel", "Peak device memory per GPU at that micro-batch (GiB)"),
    QT_TRANSLATE_NOOP("GpuComparisonModel", "Wall-clock hours for one run (setup, training, evaluation, checkpoints)"),
    QT_TRANSLATE_NOOP("GpuComparisonModel",
                      "USD per completed run at the cheapest on-demand price (billed by that offer's provider; the plan's storage and overheads)"),
    QT_TRANSLATE_NOOP("GpuComparisonModel",
                      "USD per completed run at the cheapest spot/community price, expected interruptions included"),
    QT_TRANSLATE_NOOP("GpuComparisonModel",
                      "When the prices used were seen (the older of the two; yours: the date you entered)"),
]

CHEAPEST_BG = QColor("#d9f2dd")
FASTEST_BG = QColor("#dde8fa")
MUTED_FG = QColor("#8a8a8a")
CHEAPEST_BADGE = QT_TRANSLATE_NOOP("GpuComparisonModel", "★ cheapest")  # shown translated
#: Widths (px) the columns start at; the GPU column takes what is left.
_WIDTHS = {CHART: 46, RANK: 34, MEMORY: 64, FITS: 104, PEAK: 56, HOURS: 60, ON_DEMAND: 84, SPOT: 76, DATE: 100}
#: The GPU column stretches over what the others leave, but never below this: on a 1024-pixel screen the rest left
#: it 16 px ("…" for every name); the table scrolls sideways instead.
GPU_COLUMN_MIN = 150
# The columns' order when the tab is too narrow for them all: what a run takes and costs before what fits how.
NARROW_ORDER = [CHART, RANK, GPU, HOURS, ON_DEMAND, SPOT, FITS, PEAK, MEMORY, DATE]


def _usd(x: float) -> str:
    return plain_usd(x, 2 if x < 10_000 else 0)  # whole dollars from $10,000: the columns are narrow


def _hours(h: float) -> str:
    if h < 10:
        return f"{h:.2f}"
    if h < 1000:
        return f"{h:.1f}"
    return f"{h:,.0f}"


def _duration(h: float) -> str:
    if h < 1:
        return translate("Units", "{n} min").format(n=f"{h * 60:.0f}")
    if h < 48:
        whole = int(h)
        return translate("Units", "{h} h {min} min").format(h=whole, min=f"{round((h - whole) * 60):.0f}")
    return translate("Units", "{n} h ({days} days)").format(n=f"{h:,.0f}", days=f"{h / 24:.1f}")


#: The date cell of a price without a date (compared as text, so kept in English until shown).
UNDATED = "undated"


def _date(entry: PriceEntry | None) -> str:
    if entry is None:
        return ""
    d = entry.date_seen.strip()
    return UNDATED if not d or d.startswith("undated") else d


@dataclass(frozen=True)
class ComparisonItem:
    """What one table row shows: the core's row plus the GPU's memory and the price points used.

    Attributes:
        row: :class:`~tuneplan.core.compare.GpuComparisonRow` from ``compare_gpus``.
        rank: its place in ``compare_gpus``' ranking (1 = cheapest fitting GPU).
        memory_gib: the GPU's memory (GiB).
        on_demand: the price point behind ``row.on_demand_usd`` (``None``: no price).
        spot: the price point behind ``row.spot_usd``.
        in_plan: this GPU is the plan's GPU.
        edited: a price used comes from the user's price book (edited or added).
        num_gpus: the plan's GPU count the prices were chosen for (a node-only offer bills its whole node).
    """

    row: GpuComparisonRow
    rank: int
    memory_gib: float
    on_demand: PriceEntry | None
    spot: PriceEntry | None
    in_plan: bool = False
    edited: bool = False
    num_gpus: int = 1


class GpuComparisonModel(QAbstractTableModel):
    """One row per catalog GPU (catalog order; the proxy sorts); the "On chart" column is checkable.

    Signals:
        overlays_changed(list): GPU ids ticked "On chart", in the order they were ticked.
    """

    overlays_changed = Signal(list)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.items: list[ComparisonItem] = []
        self.budget_usd: float | None = None
        self.overlay_ids: list[str] = []

    # ------------------------------------------------------------------ contents
    def set_items(self, items: list[ComparisonItem], budget_usd: float | None = None) -> None:
        """Show new rows; when the GPUs are the same, only the cells change (selection and sort stay)."""
        same = [i.row.gpu_id for i in items] == [i.row.gpu_id for i in self.items]
        self.budget_usd = budget_usd
        if same and items:
            self.items = list(items)
            self.dataChanged.emit(self.index(0, 0), self.index(len(items) - 1, len(COLUMNS) - 1))
        else:
            self.beginResetModel()
            self.items = list(items)
            self.endResetModel()

    def item(self, row: int) -> ComparisonItem:
        """The item of a source row."""
        return self.items[row]

    def row_of(self, gpu_id: str) -> int:
        """Source row of a GPU id, or -1."""
        return next((n for n, i in enumerate(self.items) if i.row.gpu_id == gpu_id), -1)

    def set_overlays(self, gpu_ids: list[str]) -> None:
        """Tick exactly these GPUs "On chart"."""
        if gpu_ids == self.overlay_ids:
            return
        self.overlay_ids = list(dict.fromkeys(gpu_ids))
        if self.items:
            self.dataChanged.emit(self.index(0, CHART), self.index(len(self.items) - 1, CHART),
                                  [Qt.ItemDataRole.CheckStateRole])
        self.overlays_changed.emit(list(self.overlay_ids))

    # ------------------------------------------------------------------ Qt model API
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        """Number of GPUs."""
        return 0 if parent.isValid() else len(self.items)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        """Number of columns (:data:`COLUMNS`)."""
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt naming
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Column titles with units, and a tooltip explaining each."""
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.tr(_HEADERS[section])
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tr(_HEADER_TIPS[section])
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        """Rows are selectable; the chart column is a checkbox."""
        f = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == CHART:
            f |= Qt.ItemFlag.ItemIsUserCheckable
        return f

    def setData(self, index: QModelIndex | QPersistentModelIndex, value: Any,  # noqa: N802 - Qt naming
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Tick or untick "On chart"."""
        if not index.isValid() or index.column() != CHART or role != Qt.ItemDataRole.CheckStateRole:
            return False
        gpu_id = self.items[index.row()].row.gpu_id
        checked = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
        ids = [g for g in self.overlay_ids if g != gpu_id] + ([gpu_id] if checked else [])
        self.set_overlays(ids)
        return True

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Cell text, tooltip, sort key, highlight colours, alignment and font."""
        if not index.isValid():
            return None
        item = self.items[index.row()]
        r, col = item.row, index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(item, col)
        if role == SORT_ROLE:
            return self._sort_key(item, col)
        if role == GPU_ID_ROLE:
            return r.gpu_id
        if role == Qt.ItemDataRole.CheckStateRole and col == CHART:
            return Qt.CheckState.Checked if r.gpu_id in self.overlay_ids else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(item, col)
        if role == Qt.ItemDataRole.BackgroundRole:
            if r.cheapest:
                return QBrush(CHEAPEST_BG)
            if r.fastest_in_budget:
                return QBrush(FASTEST_BG)
            return None
        if role == Qt.ItemDataRole.ForegroundRole and not (r.fits and r.compatible):
            return QBrush(MUTED_FG)
        if role == Qt.ItemDataRole.FontRole and item.in_plan and col == GPU:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.TextAlignmentRole and col in (RANK, MEMORY, PEAK, HOURS, ON_DEMAND, SPOT):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return self._text(item, col) or self._tooltip(item, col)
        return None

    # ------------------------------------------------------------------ cells
    def fastest_badge(self) -> str:
        """``⚡ fastest`` (the tooltip and the legend say "within the budget")."""
        return self.tr("⚡ fastest")

    def badges(self, r: GpuComparisonRow) -> list[str]:
        """The highlight badges of a row."""
        out = []
        if r.blocked is None and not r.compatible:  # a refused plan says so in the Fits column
            out.append(self.tr("⚠ needs FP16/SDPA"))
        if r.cheapest:
            out.append(self.tr(CHEAPEST_BADGE))
        if r.fastest_in_budget:
            out.append(self.fastest_badge())
        return out

    def _text(self, item: ComparisonItem, col: int) -> str:
        r = item.row
        if col == GPU:
            parts = [short_gpu_name(r.gpu_name), *self.badges(r)]
            if item.in_plan:
                parts.append(self.tr("● plan"))
            return "  ".join(parts)
        if col == RANK:
            return str(item.rank) if r.fits and r.blocked is None else ""  # no rank for a plan it cannot run
        if col == MEMORY:
            return fmt_number(item.memory_gib, 2, group=False)  # as fmt_capacity, the unit in the header
        if col == FITS:
            if not r.fits:
                return self.tr("✗ no") + (self.tr(" · may fit") if r.band_risk == "possible" else "")
            if r.blocked is not None:  # fits in memory, but its stack refuses the plan (the tooltip says why)
                return self.tr("✖ cannot run")
            return f"✓ {r.micro_batch}" + {"tight": self.tr(" · tight"), "unlikely": self.tr(" · unlikely")}.get(
                r.band_risk, "")
        if col == PEAK:
            return f"{r.peak_gib:.1f}"
        if col == HOURS:
            return _hours(r.hours)
        if col == ON_DEMAND:
            return _usd(r.on_demand_usd) if r.on_demand_usd is not None else "—"
        if col == SPOT:
            if r.spot_usd is None:
                return "—"
            # marked where spot costs more per run than on demand: the tooltip says why (whole hours, a node)
            above = r.on_demand_usd is not None and r.spot_usd > r.on_demand_usd
            return _usd(r.spot_usd) + (" ↑" if above else "")
        if col == DATE:
            dates = [d for d in (_date(item.on_demand), _date(item.spot)) if d]
            text = min(dates) if dates else ""  # ISO dates sort by time; "undated" after any date
            if text == UNDATED:
                text = self.tr("undated")
            elif text:  # more than 90 days old: marked as the price book and the offer picker mark it
                text = date_text(text, date.today())
            return f"{text} ✎" if text and item.edited else text
        return ""

    @staticmethod
    def _sort_key(item: ComparisonItem, col: int) -> Any:
        r = item.row
        return {
            CHART: None,
            RANK: item.rank,
            GPU: short_gpu_name(r.gpu_name).lower(),
            MEMORY: item.memory_gib,
            FITS: -0.5 if r.fits and r.blocked is not None else (r.micro_batch or 0) if r.fits else -1,
            PEAK: r.peak_gib,
            HOURS: r.hours,
            ON_DEMAND: r.on_demand_usd,
            SPOT: r.spot_usd,
            DATE: GpuComparisonModel._text_date(item),
        }.get(col)

    @staticmethod
    def _text_date(item: ComparisonItem) -> str | None:
        dates = [d for d in (_date(item.on_demand), _date(item.spot)) if d and d != "undated"]
        return min(dates) if dates else None

    def _price_tip(self, entry: PriceEntry | None, kind: str, usd: float | None, r: GpuComparisonRow,
                   num_gpus: int = 1, other: PriceEntry | None = None, other_usd: float | None = None) -> str:
        """The price behind one cost cell: provider, kind, price, date, billing; a whole node billed for fewer
        GPUs; and why spot costs more per run than on demand when it does (``other``: the on-demand offer)."""
        if not r.fits:
            return self.tr("The plan does not fit on this GPU, even at micro-batch 1")
        if entry is None or usd is None:
            if kind == "spot":
                return self.tr("No spot price for this GPU in your price book (Prices… to add one)")
            return self.tr("No on-demand price for this GPU in your price book (Prices… to add one)")
        seen = entry.date_seen or self.tr("undated")
        per = {"second": self.tr("billed per second"), "minute": self.tr("billed per minute"),
               "hour": self.tr("billed per hour")}.get(entry.billing, entry.billing)
        text = self.tr("{usd} per completed run: {provider} {kind} at {price} per GPU-hour (seen {seen}, {billed}), "
                       "plus the plan's storage, egress and other costs").format(
            usd=_usd(usd), provider=html.escape(entry.provider), kind=OFFER_KIND_LABELS.get(entry.kind, entry.kind),
            price=f"${entry.usd_per_gpu_hour:.2f}", seen=html.escape(seen), billed=per)
        if kind == "spot":
            text += self.tr("; expected interruptions included")
        billed = billed_gpus(entry, num_gpus)
        if billed > num_gpus:
            text += "<br>" + self.tr("{provider} rents this GPU only as a {node}-GPU node: this {n}-GPU plan pays for "
                                     "{node} GPUs, {price} per hour for each GPU it uses").format(
                provider=html.escape(entry.provider), node=billed, n=num_gpus,
                price=f"${plan_usd_per_gpu_hour(entry, num_gpus):.2f}")
        elif entry.gpus_per_node > 1:
            text += "<br>" + self.tr("{provider} rents it as {node}-GPU nodes; the price is per GPU").format(
                provider=html.escape(entry.provider), node=entry.gpus_per_node)
        if kind == "spot" and other is not None and other_usd is not None and usd > other_usd:
            why = []
            if entry.billing == "hour" and other.billing != "hour":
                why.append(self.tr("{provider} is billed by the whole hour (its terms say \"{terms}\") while "
                                   "{other} bills {billed}, so this {duration} run pays for hours it does not use")
                           .format(provider=html.escape(entry.provider),
                                   terms=html.escape(entry.billing_text or "unverified"),
                                   other=html.escape(other.provider),
                                   billed={"second": self.tr("per second"),
                                           "minute": self.tr("per minute")}.get(other.billing, other.billing),
                                   duration=_duration(r.hours)))
            if billed > num_gpus:
                why.append(self.tr("a whole node is billed"))
            why.append(self.tr("expected interruptions redo work"))
            text += "<br>" + self.tr("More than on demand ({od}) for this run: {why}").format(
                od=_usd(other_usd), why="; ".join(why))
        return text

    def _tooltip(self, item: ComparisonItem, col: int) -> str:
        r = item.row
        if col == CHART:
            return self.tr("Draw this GPU's cost over the run on the Plan tab's cost chart")
        if col == GPU:
            lines = [f"<b>{html.escape(r.gpu_name)}</b>"]
            if r.cheapest:
                lines.append(self.tr("★ The cheapest GPU this plan fits on (lower of on-demand and spot cost per run)"))
            if r.fastest_in_budget:
                lines.append(self.tr("⚡ The fastest GPU that fits") if self.budget_usd is None else
                             self.tr("⚡ The fastest GPU that fits and costs at most {usd} per run").format(
                                 usd=_usd(self.budget_usd)))
            if r.blocked is not None:
                lines.append("✖ " + core_note_text(r.blocked))
            elif not r.compatible:
                lines.append(self.tr("⚠ This GPU has no BF16 tensor cores and cannot run FlashAttention 2: "
                                     "train in FP16 with SDPA attention to use it"))
            if item.in_plan:
                lines.append(self.tr("● The GPU your plan uses"))
            lines.append(self.tr("Double-click to plan on this GPU"))
            return "<br>".join(lines)
        if col == FITS:
            if r.fits and r.blocked is not None:
                return self.tr("Fits in memory at micro-batch {mb} ({peak} of {memory} GiB), but cannot run as "
                               "planned: {why}").format(mb=r.micro_batch, peak=f"{r.peak_gib:.1f}",
                                                        memory=fmt_number(item.memory_gib, 2, group=False),
                                                        why=html.escape(core_note_text(r.blocked)))
            if r.fits:
                return self.tr("Fits at micro-batch {mb}, the largest that divides the plan's effective batch "
                               "({peak} of {memory} GiB)").format(
                    mb=r.micro_batch, peak=f"{r.peak_gib:.1f}", memory=fmt_number(item.memory_gib, 2, group=False))
            return self.tr("Needs {peak} GiB at micro-batch 1; this GPU has {memory} GiB").format(
                peak=f"{r.peak_gib:.1f}", memory=fmt_number(item.memory_gib, 2, group=False))
        if col == HOURS:
            text = self.tr("{duration} per run, without interruptions").format(duration=_duration(r.hours))
            if 0 < r.hours_low < r.hours_high:
                text += "<br>" + self.tr("Likely between {low} and {high} (the training phase scaled by the measured "
                                         "error of the time estimate)").format(
                    low=_duration(r.hours_low), high=_duration(r.hours_high))
            return text
        if col == ON_DEMAND:
            text = self._price_tip(item.on_demand, "on-demand", r.on_demand_usd, r, item.num_gpus)
            if r.on_demand_usd is not None and r.usd_low is not None and r.usd_high is not None and r.usd_low < r.usd_high:
                text += "<br>" + self.tr("Likely {low}–{high} per run: the same run finishing faster or slower "
                                         "({hours} h)").format(low=_usd(r.usd_low), high=_usd(r.usd_high),
                                                               hours=f"{_hours(r.hours_low)}–{_hours(r.hours_high)}")
            return text
        if col == SPOT:
            return self._price_tip(item.spot, "spot", r.spot_usd, r, item.num_gpus, item.on_demand, r.on_demand_usd)
        if col == DATE:
            parts = []
            for label, e in ((self.tr("On demand"), item.on_demand), (self.tr("Spot"), item.spot)):
                if e is not None:
                    parts.append(self.tr("{label}: {provider}, seen {date} ({source})").format(
                        label=label, provider=html.escape(e.provider),
                        date=html.escape(e.date_seen or self.tr("undated")), source=html.escape(e.source)))
            if item.edited:
                parts.append(self.tr("✎ includes a price from your price book"))
            return "<br>".join(parts) or self.tr("No price for this GPU")
        return ""


class GpuComparisonProxy(QSortFilterProxyModel):
    """Sorts by each column's numeric key (empty cells last in both directions); can hide GPUs that do not fit."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._fits_only = False
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    @property
    def fits_only(self) -> bool:
        """Whether GPUs the plan does not fit on are hidden."""
        return self._fits_only

    def set_fits_only(self, on: bool) -> None:
        """Hide (or show again) the GPUs that do not fit."""
        if on != self._fits_only:
            refilter(self, lambda: setattr(self, "_fits_only", on))

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        """Every row, or only the fitting ones."""
        model = self.sourceModel()
        if not self._fits_only or not isinstance(model, GpuComparisonModel):
            return True
        return model.item(source_row).row.fits

    def lessThan(self, left: QModelIndex | QPersistentModelIndex,  # noqa: N802 - Qt naming
                 right: QModelIndex | QPersistentModelIndex) -> bool:
        """Numeric comparison; a missing value (no price, does not fit) always sorts after the others."""
        a, b = left.data(SORT_ROLE), right.data(SORT_ROLE)
        if a is None or b is None:
            if a is None and b is None:
                return str(left.siblingAtColumn(GPU).data(SORT_ROLE)) < str(right.siblingAtColumn(GPU).data(SORT_ROLE))
            # Qt inverts the result for a descending sort; invert first so "None" stays last.
            return (a is None) == (self.sortOrder() == Qt.SortOrder.DescendingOrder)
        if a == b:
            return str(left.siblingAtColumn(GPU).data(SORT_ROLE)) < str(right.siblingAtColumn(GPU).data(SORT_ROLE))
        return bool(a < b)


class GpuCompareController(QObject):
    """Recomputes the comparison and the chart overlays when the plan or the prices change.

    Args:
        store: the app's :class:`~tuneplan.ui.store.AppStore`.
        prices: the price book controller (effective prices).
        cost_chart: the Plan tab's ``CostChart`` (``set_overlays``), or ``None``.

    Signals:
        computed(): new rows are in :attr:`model`.
        failed(str): the comparison could not be computed (the message is for the user).
    """

    computed = Signal()
    failed = Signal(str)

    def __init__(self, store: Any, prices: PriceBookController, cost_chart: Any = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.prices = prices
        self.cost_chart = cost_chart
        self.gpus: list[GpuSpec] = catalog.list_gpus()
        self.model = GpuComparisonModel(self)
        self.budget_usd: float | None = None
        self.rows: list[GpuComparisonRow] = []
        self.overlays: list[tuple[str, list[float], list[float]]] = []
        self.active = True  # the tab is visible (the view keeps this up to date)
        self.stale = True
        self.computations = 0
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.refresh_now)
        store.scenario_changed.connect(lambda _s: self.schedule())
        prices.changed.connect(self.schedule)
        self.model.overlays_changed.connect(lambda _ids: self.schedule())

    def schedule(self) -> None:
        """Recompute on the next turn of the event loop (a burst of edits computes once)."""
        self.stale = True
        if self.active or self.model.overlay_ids:
            self._timer.start()

    def set_active(self, active: bool) -> None:
        """The tab became visible (catch up if needed) or hidden."""
        self.active = active
        if active and self.stale:
            self._timer.start()

    def set_budget(self, usd: float | None) -> None:
        """Budget per completed run (USD) for the "fastest within budget" mark; ``None``: no limit."""
        if usd is not None and usd <= 0:
            usd = None
        if usd != self.budget_usd:
            self.budget_usd = usd
            self.schedule()

    def refresh_now(self) -> None:
        """Compute the comparison and the overlays now."""
        self._timer.stop()
        s = self.store.scenario
        ids = [g.id for g in self.gpus]
        n = s.training.num_gpus
        try:
            rows = compare_gpus(s, self.gpus, self.prices.comparison_prices(ids, n), self.budget_usd,
                                billing=self.prices.comparison_billing(ids, n), calibrations=self.store.calibrations)
        except ValueError as exc:
            log.warning("GPU comparison failed: %s", exc)
            self.failed.emit(self.tr("The comparison cannot be computed for this plan: {error}").format(error=exc))
            return
        self.computations += 1
        self.stale = False
        by_id = {r.gpu_id: r for r in rows}
        changed = self.prices.changed_keys_by_gpu()
        rank = {r.gpu_id: n for n, r in enumerate(rows, 1)}
        items = []
        for g in self.gpus:
            r = by_id[g.id]
            od = self.prices.on_demand_price(g.id, n) if r.on_demand_usd is not None else None
            spot = self.prices.spot_price(g.id, n) if r.spot_usd is not None else None
            used = {e for e in (od, spot) if e is not None}
            items.append(ComparisonItem(row=r, rank=rank[g.id], memory_gib=g.memory_gib, on_demand=od, spot=spot,
                                        in_plan=g.id == s.gpu.id and s.gpu == g,
                                        edited=any(e in changed.get(g.id, ()) for e in used), num_gpus=n))
        self.rows = rows
        self.model.set_items(items, self.budget_usd)
        self._update_overlays(by_id)
        self.computed.emit()

    def overlay_curve(self, row: GpuComparisonRow) -> tuple[str, list[float], list[float]] | None:
        """The cost curve of one row's run at its cheaper price (on demand or spot); ``None`` if unpriced.

        The curve ends at ``row.best_usd``: same GPU, micro-batch and price as the table's row.
        """
        if not row.fits or row.micro_batch is None:
            return None
        s = self.store.scenario
        gpu = next(g for g in self.gpus if g.id == row.gpu_id)
        n = s.training.num_gpus
        od_entry, spot_entry = self.prices.on_demand_price(gpu.id, n), self.prices.spot_price(gpu.id, n)
        effective = s.training.micro_batch * s.training.grad_accumulation
        training = s.training.model_copy(update={"micro_batch": row.micro_batch,
                                                 "grad_accumulation": effective // row.micro_batch})
        spot_is_cheaper = row.spot_usd is not None and (row.on_demand_usd is None or row.spot_usd < row.on_demand_usd)
        # the table's price and billing: whole nodes for a node-only offer, the provider's granularity
        if row.on_demand_usd is not None and od_entry is not None and not spot_is_cheaper:
            pricing = s.pricing.model_copy(update={"price_per_gpu_hour": plan_usd_per_gpu_hour(od_entry, n),
                                                   "billing": od_entry.billing})
            kind = self.tr("on demand")
        elif row.spot_usd is not None and spot_entry is not None:
            lam = s.pricing.interruptions_per_hour or DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR
            pricing = s.pricing.model_copy(update={"price_per_gpu_hour": plan_usd_per_gpu_hour(spot_entry, n),
                                                   "interruptions_per_hour": lam, "billing": spot_entry.billing})
            kind = self.tr("spot")
        else:
            return None
        result = self.store.estimate_for(s.model_copy(update={"gpu": gpu, "training": training, "pricing": pricing}))
        xs = [p.hours for p in result.cost.curve]
        ys = [p.usd for p in result.cost.curve]
        return f"{short_gpu_name(gpu.name)}, {kind}: {_usd(ys[-1])}", xs, ys

    def _update_overlays(self, by_id: dict[str, GpuComparisonRow]) -> None:
        overlays = []
        for gpu_id in self.model.overlay_ids:
            row = by_id.get(gpu_id)
            curve = self.overlay_curve(row) if row is not None else None
            if curve is not None:
                overlays.append(curve)
        self.overlays = overlays
        if self.cost_chart is not None and hasattr(self.cost_chart, "set_overlays"):
            self.cost_chart.set_overlays(overlays)

    def cheapest_ids(self, n: int = 3) -> list[str]:
        """The ``n`` fitting GPUs with the lowest cost per run (on demand or spot)."""
        priced = [r for r in self.rows if r.fits and r.best_usd is not None]
        return [r.gpu_id for r in sorted(priced, key=lambda r: (r.best_usd, r.hours))[:n]]


class GpuCompareView(QWidget):
    """The "Compare GPUs" tab: budget, filter, chart controls, the table and a one-line answer.

    Signals:
        edit_prices_requested(): the user asked for the price book.
    """

    edit_prices_requested = Signal()

    def __init__(self, controller: GpuCompareController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.store = controller.store
        self.model = controller.model
        self.proxy = GpuComparisonProxy(self)
        self.proxy.setSourceModel(self.model)
        self.setAccessibleName(self.tr("Compare GPUs"))

        self.budget = QDoubleSpinBox()
        self.budget.setAccessibleName(self.tr("Budget per run"))
        self.budget.setRange(0, 10_000_000)
        self.budget.setDecimals(2)
        self.budget.setSingleStep(5)
        self.budget.setPrefix("$ ")
        self.budget.setSpecialValueText(self.tr("No limit"))
        self.budget.setToolTip(self.tr("Most you want to pay for one completed run (USD). "
                                       "The fastest GPU that fits within it is highlighted. 0 = no limit"))
        self.budget.setKeyboardTracking(False)
        self.budget.setMinimumWidth(110)
        self.budget.valueChanged.connect(lambda v: controller.set_budget(v if v > 0 else None))
        budget_label = QLabel(self.tr("Budget per run:"))
        budget_label.setBuddy(self.budget)

        self.fits_only = QCheckBox(self.tr("Show only GPUs that fit"))
        self.fits_only.setAccessibleName(self.tr("Show only GPUs that fit"))
        self.fits_only.toggled.connect(self.proxy.set_fits_only)
        self.chart_cheapest = QPushButton(self.tr("Chart the 3 cheapest"))
        self.chart_cheapest.setToolTip(self.tr("Draw the cost over the run of the three cheapest GPUs on the Plan tab's cost chart"))
        self.chart_cheapest.clicked.connect(lambda: self.model.set_overlays(controller.cheapest_ids(3)))
        self.clear_chart = QPushButton(self.tr("Clear chart"))
        self.clear_chart.setToolTip(self.tr("Remove the compared GPUs from the cost chart"))
        self.clear_chart.clicked.connect(lambda: self.model.set_overlays([]))
        self.edit_prices = QPushButton(self.tr("Edit prices…"))
        self.edit_prices.setToolTip(self.tr("Your price book: edit a price, add a quote, reset to the bundled prices"))
        self.edit_prices.clicked.connect(self.edit_prices_requested)
        self.find_setup = QPushButton(self.tr("Find the cheapest setup…"))
        self.find_setup.setToolTip(self.tr("Search GPU types and counts, sharding, method and memory savers for the "
                                           "cheapest (or fastest) setups that fit, and apply one in a click"))
        self.find_setup.clicked.connect(self.open_setup_search)
        self.setup_search: Any = None

        # The budget, the filter and the buttons wrap onto a second line on a narrow window: in one row they
        # needed 725 px and kept the window wider than a 1024-pixel screen (issue #21).
        budget_box = QWidget()
        budget_row = QHBoxLayout(budget_box)
        budget_row.setContentsMargins(0, 0, 0, 0)
        budget_row.addWidget(budget_label)
        budget_row.addWidget(self.budget)
        self.top_row = top = FlowLayout()
        top.addWidget(budget_box)
        top.addSpacing(12)
        top.addWidget(self.fits_only)
        top.addStretch()
        top.addWidget(self.chart_cheapest)
        top.addWidget(self.clear_chart)
        top.addWidget(self.edit_prices)

        self.answer = QLabel()
        self.answer.setAccessibleName(self.tr("Comparison summary"))
        self.answer.setWordWrap(True)
        self.answer.setTextFormat(Qt.TextFormat.RichText)
        self.answer.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.table = QTableView()
        self.table.setAccessibleName(self.tr("GPU comparison table"))
        self.table.setModel(self.proxy)
        self.table.setSortingEnabled(True)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setAlternatingRowColors(False)
        self.table.setWordWrap(False)
        # a long name keeps its start and its badges ("RTX 6000 Ada…★ cheapest"); the tooltip has it whole
        self.table.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 10)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        header.setHighlightSections(False)
        self.table.sortByColumn(RANK, Qt.SortOrder.AscendingOrder)
        for c, width in _WIDTHS.items():
            header.resizeSection(c, width)
        header.setSectionResizeMode(GPU, QHeaderView.ResizeMode.Stretch)
        # "✓ 1 · tight" and "2026-08-26 · old" were cut at their fixed widths
        for c in (FITS, DATE):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionsMovable(True)  # the user may order the columns; a narrow tab moves time and cost forward
        self._narrow = False
        header.setStretchLastSection(False)
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignCenter)
        self.table.activated.connect(self._on_activated)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())

        self.use_button = QPushButton(self.tr("Use for plan"))
        self.use_button.setToolTip(self.tr("Plan on the selected GPU (same as double-clicking it)"))
        self.use_button.clicked.connect(self.use_selected)
        cheapest, fastest = self.tr("★ cheapest that fits"), self.tr("⚡ fastest within the budget")
        plan_gpu, yours = self.tr("your plan's GPU"), self.tr("your price")
        # one label per entry, so a narrow row wraps between entries (the four in one label needed 509 px)
        self.legend = [QLabel(text) for text in (
            f"<span style='background:{CHEAPEST_BG.name()}'>&nbsp;{cheapest}&nbsp;</span>",
            f"<span style='background:{FASTEST_BG.name()}'>&nbsp;{fastest}&nbsp;</span>",
            f"<b>●</b> {plan_gpu}", f"✎ {yours}")]
        for label in self.legend:
            label.setTextFormat(Qt.TextFormat.RichText)
        self.note = QLabel(self.tr(
            "Costs are per completed run at the cheapest on-demand and spot prices of your price book for the plan's "
            "GPU count (an offer sold only as whole nodes bills the whole node), each billed by its provider's "
            "granularity (whole hours where its terms are unverified), with this plan's storage and overheads; spot "
            "includes expected interruptions ({rate} per hour unless the plan sets a rate). ↑: spot costs more than on "
            "demand for this run (hover it for why). Double-click a GPU to plan on it."
        ).format(rate=f"{DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR:g}"))
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #555555;")
        self.bottom_row = bottom = FlowLayout(spacing=10)  # the legend and the buttons wrap too (779 px in one row)
        for label in self.legend:
            bottom.addWidget(label)
        bottom.addStretch()
        bottom.addWidget(self.use_button)
        # (beside "Use for plan", not in the top row: there it made the window wider than a 1366-pixel screen)
        bottom.addWidget(self.find_setup)

        col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        col.setSpacing(6)
        col.addLayout(top)
        col.addWidget(self.answer)
        col.addWidget(self.table, 1)
        col.addLayout(bottom)
        col.addWidget(self.note)

        controller.computed.connect(self._on_computed)
        controller.failed.connect(self._on_failed)
        self._update_buttons()

    # ------------------------------------------------------------------ visibility drives computing
    def showEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """Catch up with edits made while the tab was hidden."""
        super().showEvent(event)
        self.controller.set_active(True)
        self._fit_gpu_column()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """The GPU column keeps a readable width on a narrow window."""
        super().resizeEvent(event)
        self._fit_gpu_column()

    def _fit_gpu_column(self) -> None:
        header = self.table.horizontalHeader()
        others = sum(header.sectionSize(c) for c in range(header.count()) if c != GPU)
        stretch = self.table.viewport().width() - others >= GPU_COLUMN_MIN
        if self._narrow == stretch:  # too narrow for every column (a 1024 px screen): time and cost after the GPU
            self._narrow = not stretch
            for visual, logical in enumerate(NARROW_ORDER if self._narrow else range(len(COLUMNS))):
                header.moveSection(header.visualIndex(logical), visual)
        mode = QHeaderView.ResizeMode.Stretch if stretch else QHeaderView.ResizeMode.Interactive
        if header.sectionResizeMode(GPU) != mode:
            header.setSectionResizeMode(GPU, mode)
            if not stretch:
                header.resizeSection(GPU, GPU_COLUMN_MIN)

    def hideEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """Stop recomputing on every edit while hidden (unless GPUs are on the chart)."""
        super().hideEvent(event)
        self.controller.set_active(False)

    # ------------------------------------------------------------------ actions
    def open_setup_search(self) -> Any:
        """Show the cheapest-setup search for the plan (:mod:`tuneplan.ui.setup_search`) and return its dialog."""
        from tuneplan.ui.setup_search import open_setup_search

        self.setup_search = open_setup_search(self.store, parent=self.window())
        return self.setup_search

    def proxy_row_of(self, gpu_id: str) -> int:
        """Row in the (sorted, filtered) table of a GPU id, or -1 when hidden."""
        src = self.model.row_of(gpu_id)
        if src < 0:
            return -1
        return self.proxy.mapFromSource(self.model.index(src, 0)).row()

    def selected_gpu_id(self) -> str | None:
        """The selected row's GPU id."""
        rows = self.table.selectionModel().selectedRows()
        return rows[0].data(GPU_ID_ROLE) if rows else None

    def use_gpu(self, gpu_id: str) -> bool:
        """Make ``gpu_id`` the plan's GPU (through the store)."""
        return bool(self.store.set_gpu(gpu_id))

    def use_selected(self) -> bool:
        """Plan on the selected GPU."""
        gpu_id = self.selected_gpu_id()
        return self.use_gpu(gpu_id) if gpu_id else False

    def _on_activated(self, index: QModelIndex) -> None:
        if index.column() == CHART:
            return  # double-clicking the checkbox ticks it; it does not switch the plan
        gpu_id = index.data(GPU_ID_ROLE)
        if gpu_id:
            self.use_gpu(gpu_id)

    def _update_buttons(self) -> None:
        gpu_id = self.selected_gpu_id()
        self.use_button.setEnabled(bool(gpu_id) and gpu_id != self.store.scenario.gpu.id)

    # ------------------------------------------------------------------ redraw
    def _on_failed(self, message: str) -> None:
        self.answer.setText(f"<span style='color:#c62828'>{html.escape(message)}</span>")

    def _on_computed(self) -> None:
        rows = self.controller.rows
        fitting = [r for r in rows if r.fits]
        runnable = [r for r in fitting if r.compatible]
        cheapest = next((r for r in rows if r.cheapest), None)
        fastest = next((r for r in rows if r.fastest_in_budget), None)
        s = self.store.scenario
        parts = [self.tr("<b>{plan}</b> fits on {n} of {total} GPUs.").format(
            plan=html.escape(s.name), n=len(fitting), total=len(rows))]
        if cheapest is not None and cheapest.best_usd is not None:
            how = self.tr("spot") if cheapest.best_usd == cheapest.spot_usd and cheapest.spot_usd != cheapest.on_demand_usd \
                else self.tr("on demand")
            parts.append(self.tr("Cheapest: <b>{gpu}</b>, {usd} per run ({how}), {duration}.").format(
                gpu=html.escape(short_gpu_name(cheapest.gpu_name)), usd=_usd(cheapest.best_usd), how=how,
                duration=_duration(cheapest.hours)))
        elif runnable:
            parts.append(self.tr("None of the GPUs it fits on has a price."))
        if len(runnable) < len(fitting):
            # fits in memory but its stack refuses it (or the card lacks BF16/FlashAttention): no price is its cost
            blocked = next((r for r in fitting if r.blocked is not None), None)
            why = core_note_text(blocked.blocked) if blocked is not None else next(
                (r.note for r in fitting if not r.compatible and r.note), "")
            if runnable:
                parts.append(html.escape(self.tr("It can run as planned on {n} of them.").format(n=len(runnable))))
            else:
                text = self.tr("It cannot run as planned on any of them: {why}").format(why=why)
                parts.append(f"<span style='color:#c62828'>{html.escape(text)}</span>")
        budget = self.controller.budget_usd
        if fastest is not None:
            cost = f", {_usd(fastest.best_usd)}" if fastest.best_usd is not None else ""
            gpu = html.escape(short_gpu_name(fastest.gpu_name))
            if budget is not None:
                parts.append(self.tr("Fastest within {budget}: <b>{gpu}</b>, {duration}{cost}.").format(
                    budget=_usd(budget), gpu=gpu, duration=_duration(fastest.hours), cost=cost))
            else:
                parts.append(self.tr("Fastest: <b>{gpu}</b>, {duration}{cost}.").format(
                    gpu=gpu, duration=_duration(fastest.hours), cost=cost))
        elif budget is not None:
            parts.append("<span style='color:#c62828'>{}</span>".format(
                self.tr("No GPU runs it for {usd} or less.").format(usd=_usd(budget))))
        self.answer.setText(" ".join(parts))
        self._update_buttons()


def install_gpu_compare(window: Any) -> GpuCompareView:
    """Add the "Compare GPUs" tab to a :class:`~tuneplan.ui.main_window.MainWindow`.

    Installs the price book first (:func:`~tuneplan.ui.price_book_view.install_price_book`) when
    the window has none, and connects the comparison to the Plan tab's cost chart. Returns the view (its
    controller is ``view.controller``), which the window keeps as ``gpu_compare``.
    """
    prices = getattr(window, "price_book", None) or install_price_book(window)
    controller = GpuCompareController(window.store, prices, getattr(window, "cost_chart", None), parent=window)
    view = GpuCompareView(controller)
    view.edit_prices_requested.connect(window.prices_action.trigger)
    controller.active = False  # until the tab is shown
    window.add_tab(view, translate("GpuCompareView", "Compare GPUs"))
    return view
