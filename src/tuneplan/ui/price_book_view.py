"""The price book in the GUI: one controller that owns it, a table to edit it, and a "Prices…" window.

* :class:`PriceBookController` holds the user's :class:`~tuneplan.storage.price_book.PriceBook`,
  saves every change at once (atomic write) and emits ``changed``. It is also where the store and
  the hardware panel get their offers (``prices_for_gpu``, ``default_price``) and where the GPU
  comparison gets its prices (``comparison_prices``): everything uses the effective prices.
* :class:`PriceTableModel` / :class:`PriceBookView`: every price with provider, GPU, kind, GPUs per
  node and interconnect, USD per GPU-hour, billing, date seen (older than 90 days on the day the app
  runs is marked "old"), where it comes from, and its source. Price, billing and date edit inline;
  "Add price…", "Reset to bundled" (selected rows) and "Reset all…".
* "Refresh prices" fetches the public catalogs (:mod:`tuneplan.storage.price_refresh`) in a worker
  thread (:class:`PriceRefreshWorker`, a QThread): the window stays usable, a status line says what is
  happening, Cancel stops it, and the result (added / updated / kept, the catalogs that failed) is
  shown in the dialog; the table, the offers and the plan's price follow. Your edits stay on top.
* :func:`install_price_book` wires it into the main window: Tools → Prices…, the plan's price
  follows an edit of the offer it uses, and a damaged price book file is reported once.
"""

from __future__ import annotations

import html
import logging
import threading
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QDate,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QThread,
    QTimer,
    Signal,
)
from PySide6.QtGui import QAction, QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from tuneplan import catalog
from tuneplan.catalog.prices import OLD_PRICE_DAYS, PriceEntry, is_old_price, price_age_days
from tuneplan.storage.price_book import (
    MAX_USD_PER_GPU_HOUR,
    EffectivePrice,
    PriceBook,
    PriceBookError,
    load_price_book,
    price_book_path,
    save_price_book,
)
from tuneplan.storage.price_snapshot import PriceSnapshot, price_snapshot_path
from tuneplan.ui.i18n import OFFER_KIND_LABELS, TranslatedLabels, plain_message_box, plain_tooltip, plain_usd
from tuneplan.ui.menus import tools_menu

__all__ = [
    "AddPriceDialog",
    "PriceBookController",
    "PriceBookDialog",
    "PriceBookView",
    "PriceRefreshWorker",
    "PriceTableModel",
    "app_today",
    "install_price_book",
    "node_text",
    "offer_text",
    "refilter",
]

log = logging.getLogger(__name__)

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

PROVIDER, GPU, KIND, NODE, PRICE, BILLING, DATE, STATUS, SOURCE = range(9)
COLUMNS = [QT_TRANSLATE_NOOP("PriceTableModel", "Provider"), "GPU", QT_TRANSLATE_NOOP("PriceTableModel", "Kind"),
           QT_TRANSLATE_NOOP("PriceTableModel", "Node"),
           QT_TRANSLATE_NOOP("PriceTableModel", "USD / GPU-hour"), QT_TRANSLATE_NOOP("PriceTableModel", "Billing"),
           QT_TRANSLATE_NOOP("PriceTableModel", "Date seen"), QT_TRANSLATE_NOOP("PriceTableModel", "Origin"),
           QT_TRANSLATE_NOOP("PriceTableModel", "Source")]
_HEADER_TIPS = [
    QT_TRANSLATE_NOOP("PriceTableModel", "Cloud or marketplace"),
    QT_TRANSLATE_NOOP("PriceTableModel", "The provider's name for the GPU (catalog GPU in the tooltip)"),
    QT_TRANSLATE_NOOP("PriceTableModel",
                      "on-demand: dependable; community/spot: can be reclaimed mid-run; serverless: per request"),
    QT_TRANSLATE_NOOP("PriceTableModel",
                      "GPUs in the instance or node this price is for, and how they are linked, where the source says"),
    QT_TRANSLATE_NOOP("PriceTableModel", "Price per GPU per hour (USD); double-click to edit"),
    QT_TRANSLATE_NOOP("PriceTableModel", "How the provider rounds GPU time up; double-click to edit"),
    QT_TRANSLATE_NOOP("PriceTableModel", "When the price was seen (older than 90 days: marked old); your edits "
                      "carry the date you give them. Double-click to edit"),
    QT_TRANSLATE_NOOP("PriceTableModel", "edited: you changed a price · added: a price you added · refreshed: from "
                      "the last “Refresh prices” · empty: as bundled"),
    QT_TRANSLATE_NOOP("PriceTableModel", "Where the price came from"),
]
#: Billing granularity by value, in the UI language when looked up.
BILLING_LABELS = TranslatedLabels("PriceTableModel", {
    "second": QT_TRANSLATE_NOOP("PriceTableModel", "per second"),
    "minute": QT_TRANSLATE_NOOP("PriceTableModel", "per minute"),
    "hour": QT_TRANSLATE_NOOP("PriceTableModel", "per hour"),
})
#: Where a price comes from (``EffectivePrice.origin``) as the "Yours" column says it.
ORIGIN_LABELS = TranslatedLabels("PriceTableModel", {
    "bundled": "",
    "refreshed": QT_TRANSLATE_NOOP("PriceTableModel", "refreshed"),
    "edited": QT_TRANSLATE_NOOP("PriceTableModel", "edited"),
    "added": QT_TRANSLATE_NOOP("PriceTableModel", "added"),
})
KINDS = ["on-demand", "community", "spot", "serverless"]
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
KEY_ROLE = Qt.ItemDataRole.UserRole + 2
#: Starting column widths (px); the source column takes the rest and long text is elided.
_WIDTHS = {PROVIDER: 150, GPU: 230, KIND: 92, NODE: 150, PRICE: 104, BILLING: 92, DATE: 150, STATUS: 72}
EDITED_BG = QColor("#fff4d6")
ADDED_BG = QColor("#e6f4ea")
#: The date of a price older than OLD_PRICE_DAYS (dark amber: readable on the light and the dark theme's base).
OLD_FG = QColor("#b35c00")


def app_today() -> date:
    """The day the app runs (the price book's ``today`` unless one is passed in)."""
    return date.today()


def _sizes(sizes: tuple[int, ...]) -> str:
    if len(sizes) >= 3 and list(sizes) == list(range(sizes[0], sizes[-1] + 1)):
        return f"{sizes[0]}-{sizes[-1]}"
    return "/".join(str(n) for n in sizes)


def node_text(entry: PriceEntry) -> str:
    """GPUs per node and interconnect as the table shows them: ``8 GPUs · NVLink (SXM)``, ``1-8 GPUs``, ``""``."""
    if len(entry.node_sizes) > 1:
        gpus = translate("PriceTableModel", "{n} GPUs").format(n=_sizes(entry.node_sizes))
    elif entry.gpus_per_node == 1:
        gpus = translate("PriceTableModel", "1 GPU")
    elif entry.gpus_per_node:
        gpus = translate("PriceTableModel", "{n} GPUs").format(n=entry.gpus_per_node)
    else:
        gpus = ""
    return " · ".join(x for x in (gpus, entry.interconnect) if x)


def date_text(date_seen: str, today: date) -> str:
    """A price's date as shown: the date, ``undated`` (also for a note in place of a date, such as the bundled
    catalog's "undated (crawled copy, <=2026-11)": the price book's date column shows the note), or the date marked
    ``old`` (more than 90 days before today)."""
    if not date_seen or price_age_days(date_seen, today) is None:
        return translate("PriceTableModel", "undated")
    if is_old_price(date_seen, today):
        return translate("PriceTableModel", "{date} · old").format(date=date_seen)
    return date_seen


def offer_text(entry: PriceEntry, today: date) -> str:
    """One offer in a list (the hardware panel's offer picker): provider, kind, price and its date, old ones marked:
    ``RunPod · on-demand · $0.69/h · 2026-12-01``, ``Vast.ai · community · $0.40/h · 2026-03-10 · old``; an offer
    rented only as whole nodes says so (``AWS · on-demand · $6.88/h per GPU, 8-GPU nodes only · 2026-08-26``): a
    smaller plan pays for the whole node (:func:`tuneplan.catalog.billed_gpus`)."""
    kind = OFFER_KIND_LABELS.get(entry.kind, entry.kind)
    price, seen = f"{entry.usd_per_gpu_hour:.2f}", date_text(entry.date_seen, today)
    smallest = min(entry.node_sizes) if entry.node_sizes else entry.gpus_per_node
    if smallest > 1:
        return translate("PriceBookView", "{provider} · {kind} · ${price}/h per GPU, {n}-GPU nodes only · {date}").format(
            provider=entry.provider, kind=kind, price=price, n=smallest, date=seen)
    return translate("PriceBookView", "{provider} · {kind} · ${price}/h · {date}").format(
        provider=entry.provider, kind=kind, price=price, date=seen)


def _message(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        err = exc.errors()[0]
        field = str(err.get("loc", ("value",))[-1]).replace("usd_per_gpu_hour", "price").replace("_", " ")
        return f"{field} {str(err.get('msg', 'is invalid')).lower()}"
    if isinstance(exc, KeyError):
        return translate("PriceBookController", "that price no longer exists")
    return str(exc)


class PriceBookController(QObject):
    """Owns the price book; every change is saved to disk at once and announced.

    Args:
        book: a loaded book (default: :func:`~tuneplan.storage.price_book.load_price_book`).
        path: the file (default ``<data>/price_book.json``; the refreshed prices live beside it).
        today: the day the app runs, for marking old prices (default :func:`app_today`; tests fix it).
        source_url: where "Refresh prices" fetches from (default: ``$TUNEPLAN_PRICES_URL``, else gpuhunt's bucket).

    Signals:
        changed(): the effective prices changed (``previous`` holds the prices before).
        failed(str): a change was refused or could not be saved (a sentence for the user).
    """

    changed = Signal()
    failed = Signal(str)

    def __init__(self, book: PriceBook | None = None, path: Path | None = None,
                 parent: QObject | None = None, today: Callable[[], date] | None = None,
                 source_url: str | None = None) -> None:
        super().__init__(parent)
        self.path = path
        self.book = book if book is not None else load_price_book(path)
        self.previous: list[EffectivePrice] = self.book.effective_prices()
        self.last_error = ""
        self._today = today
        self.source_url = source_url
        #: Keyword arguments for :func:`~tuneplan.storage.price_refresh.refresh_prices` (``timeout``, ``providers``).
        self.refresh_options: dict[str, Any] = {}

    def today(self) -> date:
        """The day the app runs."""
        return self._today() if self._today is not None else app_today()

    def snapshot_path(self) -> Path:
        """Where the refreshed prices are kept (beside the price book)."""
        return price_snapshot_path(self.path.parent) if self.path is not None else price_snapshot_path()

    def apply_snapshot(self, snapshot: PriceSnapshot | None) -> None:
        """Use freshly refreshed prices (already saved by the refresh); the user's edits stay on top."""
        before = self.book.effective_prices()
        self.book.set_snapshot(snapshot)
        self.previous = before
        self.changed.emit()

    # ------------------------------------------------------------------ the store's price source
    def effective_prices(self) -> list[EffectivePrice]:
        """Every price as plans use it, with its origin."""
        return self.book.effective_prices()

    def find(self, key: str) -> EffectivePrice | None:
        """The effective price with this key."""
        return self.book.find(key)

    def prices_for_gpu(self, gpu_id: str) -> list[PriceEntry]:
        """Offers for one GPU, cheapest first (the hardware panel's offer picker)."""
        return self.book.prices_for_gpu(gpu_id)

    def default_price(self, gpu_id: str, num_gpus: int = 1) -> PriceEntry | None:
        """The price a GPU switch applies: cheapest on-demand, else cheapest of any kind."""
        return self.book.default_price(gpu_id, num_gpus)

    def on_demand_price(self, gpu_id: str, num_gpus: int = 1) -> PriceEntry | None:
        """Cheapest on-demand price for a plan on ``num_gpus`` (whole nodes billed)."""
        return self.book.on_demand_price(gpu_id, num_gpus)

    def spot_price(self, gpu_id: str, num_gpus: int = 1) -> PriceEntry | None:
        """Cheapest community/spot price for a plan on ``num_gpus`` (whole nodes billed)."""
        return self.book.spot_price(gpu_id, num_gpus)

    def comparison_prices(self, gpu_ids: list[str], num_gpus: int = 1) -> dict[str, tuple[float | None, float | None]]:
        """``gpu_id -> (on-demand, spot)`` USD per plan GPU-hour for ``compare_gpus``."""
        return self.book.comparison_prices(gpu_ids, num_gpus)

    def comparison_billing(self, gpu_ids: list[str], num_gpus: int = 1) -> dict[str, tuple[str | None, str | None]]:
        """Billing granularity of each comparison price (see :meth:`PriceBook.comparison_billing`)."""
        return self.book.comparison_billing(gpu_ids, num_gpus)

    def changed_keys_by_gpu(self) -> dict[str, set[PriceEntry]]:
        """The user's (edited or added) price points, by GPU id."""
        out: dict[str, set[PriceEntry]] = {}
        for p in self.book.effective_prices():
            if p.is_yours:
                out.setdefault(p.entry.gpu_id, set()).add(p.entry)
        return out

    # ------------------------------------------------------------------ changes
    def edit(self, key: str, **values: Any) -> bool:
        """Change a price's ``usd_per_gpu_hour``, ``billing`` and/or ``date``; False (and ``failed``) if refused."""
        before = self.book.effective_prices()
        try:
            self.book.edit(key, **values)
        except (KeyError, ValueError) as exc:
            self.failed.emit(self.tr("Price not changed: {reason}.").format(reason=_message(exc)))
            return False
        self._commit(before)
        return True

    def add(self, **values: Any) -> EffectivePrice | None:
        """Add a price (see :meth:`PriceBook.add`); ``None`` (and ``failed``) if refused."""
        before = self.book.effective_prices()
        try:
            added = self.book.add(**values)
        except ValueError as exc:
            self.failed.emit(self.tr("Price not added: {reason}.").format(reason=_message(exc)))
            return None
        self._commit(before)
        return added

    def reset(self, target: str | EffectivePrice | PriceEntry) -> int:
        """Back to bundled for one price key, entry or GPU id (added prices are removed)."""
        before = self.book.effective_prices()
        n = self.book.reset(target)
        if n:
            self._commit(before)
        return n

    def reset_all(self) -> int:
        """Drop every edit and addition."""
        before = self.book.effective_prices()
        n = self.book.reset_all()
        if n:
            self._commit(before)
        return n

    def _commit(self, before: list[EffectivePrice]) -> None:
        self.previous = before
        try:
            save_price_book(self.book, self.path)
            self.last_error = ""
        except PriceBookError as exc:
            log.error("%s", exc)
            self.last_error = self.tr("{error} The change applies until you close Tuneplan.").format(error=exc)
            self.failed.emit(self.last_error)
        self.changed.emit()


class PriceTableModel(QAbstractTableModel):
    """Every effective price as a row; price, billing and date are editable."""

    def __init__(self, controller: PriceBookController, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.prices: list[EffectivePrice] = controller.effective_prices()
        controller.changed.connect(self.reload)

    def reload(self) -> None:
        """Re-read the effective prices (cells change in place when the rows are the same prices)."""
        prices = self.controller.effective_prices()
        if [p.key for p in prices] == [p.key for p in self.prices] and prices:
            self.prices = prices
            self.dataChanged.emit(self.index(0, 0), self.index(len(prices) - 1, len(COLUMNS) - 1))
        else:
            self.beginResetModel()
            self.prices = prices
            self.endResetModel()

    def price(self, row: int) -> EffectivePrice:
        """The effective price of a source row."""
        return self.prices[row]

    def row_of(self, key: str) -> int:
        """Source row of a price key, or -1."""
        return next((n for n, p in enumerate(self.prices) if p.key == key), -1)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        """Number of prices."""
        return 0 if parent.isValid() else len(self.prices)

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008, N802
        """Number of columns."""
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt naming
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Column titles and their tooltips."""
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return self.tr(COLUMNS[section])
        if role == Qt.ItemDataRole.ToolTipRole:
            return self.tr(_HEADER_TIPS[section])
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        """Price, billing and date are editable."""
        f = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() in (PRICE, BILLING, DATE):
            f |= Qt.ItemFlag.ItemIsEditable
        return f

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Text, edit value, sort key, tooltip and the colour of your prices."""
        if not index.isValid():
            return None
        p = self.prices[index.row()]
        e, col = p.entry, index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                PROVIDER: e.provider, GPU: e.gpu_label, KIND: OFFER_KIND_LABELS.get(e.kind, e.kind),
                NODE: node_text(e), PRICE: plain_usd(e.usd_per_gpu_hour),
                BILLING: BILLING_LABELS.get(e.billing, e.billing),
                DATE: date_text(e.date_seen, self.controller.today()), STATUS: ORIGIN_LABELS.get(p.origin, p.origin),
                SOURCE: e.source,
            }.get(col)
        if role == Qt.ItemDataRole.EditRole:
            return {PRICE: e.usd_per_gpu_hour, BILLING: e.billing, DATE: e.date_seen}.get(col)
        if role == SORT_ROLE:
            if col == PRICE:
                return e.usd_per_gpu_hour
            if col == NODE:
                return f"{e.gpus_per_node:04d} {e.interconnect}".lower()
            return str(self.data(index, Qt.ItemDataRole.DisplayRole) or "").lower()
        if role == KEY_ROLE:
            return p.key
        if role == Qt.ItemDataRole.TextAlignmentRole and col == PRICE:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole:
            return QBrush(EDITED_BG) if p.origin == "edited" else QBrush(ADDED_BG) if p.origin == "added" else None
        if role == Qt.ItemDataRole.ForegroundRole and col == DATE and is_old_price(e.date_seen, self.controller.today()):
            return QBrush(OLD_FG)
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tooltip(p, col, self.controller.today())
        return None

    @staticmethod
    def _tooltip(p: EffectivePrice, col: int, today: date) -> str:
        e = p.entry
        if col == GPU:
            gpu = e.gpu_id or translate("PriceTableModel", "not in the catalog")
            return translate("PriceTableModel", "{label} — catalog GPU: {gpu}").format(
                label=html.escape(e.gpu_label), gpu=html.escape(gpu))
        if col == STATUS or (p.origin == "edited" and col in (PRICE, BILLING, DATE)):
            if p.origin == "edited" and p.base is not None:
                b = p.base
                template = (translate("PriceTableModel", "You edited this price. Refreshed: {price} per GPU-hour, "
                                      "{billing}, seen {date}") if p.refreshed is not None else
                            translate("PriceTableModel", "You edited this price. Bundled: {price} per GPU-hour, "
                                      "{billing}, seen {date}"))
                return template.format(
                    price=f"${b.usd_per_gpu_hour:.2f}", billing=BILLING_LABELS.get(b.billing, b.billing),
                    date=html.escape(b.date_seen or translate("PriceTableModel", "undated")))
            if p.origin == "added":
                return translate("PriceTableModel", "A price you added")
            if p.origin == "refreshed":
                return translate("PriceTableModel", "From the last “Refresh prices”")
            return translate("PriceTableModel", "As bundled with Tuneplan")
        if col == BILLING:
            return plain_tooltip(e.billing_text or BILLING_LABELS.get(e.billing, e.billing))
        if col == NODE:
            return plain_tooltip(" · ".join(x for x in (node_text(e), e.notes) if x))
        if col == DATE:
            age = price_age_days(e.date_seen, today)
            if age is None:
                seen = translate("PriceTableModel", "Undated: its age is not known")
            elif age > OLD_PRICE_DAYS:
                seen = translate("PriceTableModel", "Seen %n day(s) before today: older than {days} days, so it has "
                                 "probably moved. Check the provider's page or refresh the prices.", "", age).format(
                    days=OLD_PRICE_DAYS)
            else:
                seen = translate("PriceTableModel", "Seen %n day(s) before today", "", age)
            return (html.escape(e.date_seen or "") + ("<br>" if e.date_seen else "") + seen + "<br>"
                    + translate("PriceTableModel", "Double-click to change (your date)"))
        if col == PRICE:
            return translate("PriceTableModel", "USD per GPU per hour; double-click to change")
        if col in (SOURCE, PROVIDER, KIND):
            return plain_tooltip(" · ".join(x for x in (e.source, e.notes) if x))
        return ""

    def setData(self, index: QModelIndex | QPersistentModelIndex, value: Any,  # noqa: N802 - Qt naming
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        """Edit a price, billing or date through the controller (which saves the book)."""
        if not index.isValid() or role != Qt.ItemDataRole.EditRole:
            return False
        key, col = self.prices[index.row()].key, index.column()
        if col == PRICE:
            try:
                usd = float(value)
            except (TypeError, ValueError):
                self.controller.failed.emit(self.tr("Price not changed: the price must be a number."))
                return False
            return self.controller.edit(key, usd_per_gpu_hour=usd)
        if col == BILLING:
            return self.controller.edit(key, billing=str(value))
        if col == DATE:
            text = value.toString("yyyy-MM-dd") if isinstance(value, QDate) else str(value).strip()
            return self.controller.edit(key, date=text)
        return False


def refilter(proxy: QSortFilterProxyModel, change: Callable[[], None]) -> None:
    """Change a proxy's row filter: ``beginFilterChange``/``endFilterChange`` where Qt has them (6.10+;
    ``invalidateRowsFilter`` is deprecated there), ``invalidateRowsFilter`` on older Qt."""
    if hasattr(proxy, "endFilterChange"):
        proxy.beginFilterChange()
        change()
        proxy.endFilterChange(QSortFilterProxyModel.Direction.Rows)
    else:
        change()
        proxy.invalidateRowsFilter()


class PriceFilterProxy(QSortFilterProxyModel):
    """Text filter over provider, GPU (label and catalog id), kind and status; optionally only your prices."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.only_yours = False
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def set_text(self, text: str) -> None:
        """Show rows whose provider, GPU, kind or status contain every word of ``text``."""
        refilter(self, lambda: setattr(self, "text", text.strip().lower()))

    def set_only_yours(self, on: bool) -> None:
        """Show only edited and added prices."""
        refilter(self, lambda: setattr(self, "only_yours", on))

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:  # noqa: N802
        """Apply the text and "only yours" filters."""
        model = self.sourceModel()
        if not isinstance(model, PriceTableModel):
            return True
        p = model.price(source_row)
        if self.only_yours and not p.is_yours:
            return False
        if not self.text:
            return True
        e = p.entry
        hay = " ".join((e.provider, e.gpu_label, e.gpu_id, e.kind, p.origin, OFFER_KIND_LABELS.get(e.kind, e.kind),
                        ORIGIN_LABELS.get(p.origin, p.origin))).lower()
        return all(word in hay for word in self.text.split())


class PriceDelegate(QStyledItemDelegate):
    """Editors: a dollar spin box for the price, a list for billing, a calendar for the date."""

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem,  # noqa: N802 - Qt naming
                     index: QModelIndex | QPersistentModelIndex) -> QWidget:
        """The editor of a price, billing or date cell."""
        col = index.column()
        if col == PRICE:
            spin = QDoubleSpinBox(parent)
            spin.setRange(0, MAX_USD_PER_GPU_HOUR)
            spin.setDecimals(3)
            spin.setSingleStep(0.05)
            spin.setPrefix("$ ")
            spin.setAccessibleName(self.tr("USD per GPU-hour"))
            return spin
        if col == BILLING:
            combo = QComboBox(parent)
            for value, label in BILLING_LABELS.items():
                combo.addItem(label, value)
            combo.setAccessibleName(self.tr("Billing"))
            return combo
        if col == DATE:
            edit = QDateEdit(parent)
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setAccessibleName(self.tr("Date seen"))
            return edit
        return super().createEditor(parent, option, index)

    def setEditorData(self, editor: QWidget, index: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802
        """Start from the cell's value (today for an undated price)."""
        value = index.data(Qt.ItemDataRole.EditRole)
        if isinstance(editor, QDoubleSpinBox):
            editor.setValue(float(value or 0.0))
        elif isinstance(editor, QComboBox):
            editor.setCurrentIndex(max(0, editor.findData(value)))
        elif isinstance(editor, QDateEdit):
            d = QDate.fromString(str(value or "")[:10], "yyyy-MM-dd")
            editor.setDate(d if d.isValid() else QDate.currentDate())
        else:
            super().setEditorData(editor, index)

    def setModelData(self, editor: QWidget, model: Any, index: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802
        """Write the editor's value back (the controller saves it)."""
        if isinstance(editor, QDoubleSpinBox):
            editor.interpretText()
            model.setData(index, editor.value(), Qt.ItemDataRole.EditRole)
        elif isinstance(editor, QComboBox):
            model.setData(index, editor.currentData(), Qt.ItemDataRole.EditRole)
        elif isinstance(editor, QDateEdit):
            model.setData(index, editor.date(), Qt.ItemDataRole.EditRole)
        else:
            super().setModelData(editor, model, index)


class AddPriceDialog(QDialog):
    """Ask for a new price: provider, GPU, kind, USD per GPU-hour, billing and the date it was seen."""

    def __init__(self, gpu_id: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Add a price"))
        form = QFormLayout()
        self.provider = QComboBox()
        self.provider.setEditable(True)
        self.provider.addItems(sorted({p.provider for p in catalog.list_prices()}))
        self.provider.setCurrentText("")
        self.provider.lineEdit().setPlaceholderText(self.tr("e.g. RunPod, or your own cluster"))
        self.provider.setAccessibleName(self.tr("Provider"))
        self.gpu = QComboBox()
        self.gpu.setAccessibleName("GPU")
        for g in catalog.list_gpus():
            self.gpu.addItem(f"{g.name}  ·  {g.memory_gib:g} GiB", g.id)
        if gpu_id:
            self.gpu.setCurrentIndex(max(0, self.gpu.findData(gpu_id)))
        self.kind = QComboBox()
        self.kind.setAccessibleName(self.tr("Kind"))
        for k in KINDS:
            self.kind.addItem(OFFER_KIND_LABELS.get(k, k), k)
        self.price = QDoubleSpinBox()
        self.price.setAccessibleName(self.tr("USD per GPU-hour"))
        self.price.setRange(0, MAX_USD_PER_GPU_HOUR)
        self.price.setDecimals(3)
        self.price.setSingleStep(0.05)
        self.price.setPrefix("$ ")
        self.price.setSuffix(self.tr(" per GPU-hour"))
        self.price.setValue(1.0)
        self.billing = QComboBox()
        self.billing.setAccessibleName(self.tr("Billing"))
        for value, label in BILLING_LABELS.items():
            self.billing.addItem(label, value)
        self.billing.setCurrentIndex(self.billing.findData("hour"))
        self.date = QDateEdit(QDate.currentDate())
        self.date.setCalendarPopup(True)
        self.date.setDisplayFormat("yyyy-MM-dd")
        self.date.setAccessibleName(self.tr("Date seen"))
        form.addRow(self.tr("Provider:"), self.provider)
        form.addRow(self.tr("GPU:"), self.gpu)
        form.addRow(self.tr("Kind:"), self.kind)
        form.addRow(self.tr("Price:"), self.price)
        form.addRow(self.tr("Billing:"), self.billing)
        form.addRow(self.tr("Seen on:"), self.date)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText(self.tr("Add"))
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.provider.currentTextChanged.connect(self._update_ok)
        col = QVBoxLayout(self)
        col.addLayout(form)
        col.addWidget(self.buttons)
        self._update_ok()

    def _update_ok(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(bool(self.provider.currentText().strip()))

    def values(self) -> dict[str, Any]:
        """Keyword arguments for :meth:`PriceBookController.add`."""
        return {
            "provider": self.provider.currentText().strip(),
            "gpu_id": self.gpu.currentData(),
            "kind": self.kind.currentData(),
            "usd_per_gpu_hour": self.price.value(),
            "billing": self.billing.currentData(),
            "date": self.date.date().toString("yyyy-MM-dd"),
        }


class PriceBookView(QWidget):
    """Every price, editable inline, with add / reset buttons and a line saying what is yours."""

    def __init__(self, controller: PriceBookController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.model = PriceTableModel(controller, self)
        self.proxy = PriceFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.setAccessibleName(self.tr("Price book"))

        self.banner = QLabel()
        self.banner.setTextFormat(Qt.TextFormat.PlainText)  # errors quote file paths
        self.banner.setWordWrap(True)
        self.banner.setAccessibleName(self.tr("Price book message"))
        self.banner.setStyleSheet("background: #fff4d6; border: 1px solid #e0c070; border-radius: 4px; padding: 6px;")
        self.banner.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner.setVisible(False)

        self.filter = QLineEdit()
        self.filter.setPlaceholderText(self.tr("Filter: provider, GPU or kind (e.g. “4090 runpod”)"))
        self.filter.setAccessibleName(self.tr("Filter prices"))
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self.proxy.set_text)
        self.only_yours = QCheckBox(self.tr("Only your prices"))
        self.only_yours.setToolTip(self.tr("Show only the prices you edited or added"))
        self.only_yours.toggled.connect(self.proxy.set_only_yours)
        hint = QLabel(self.tr("Double-click a price, billing or date to change it"))
        hint.setStyleSheet("color: #555555;")
        top = QHBoxLayout()
        top.addWidget(self.filter, 1)
        top.addWidget(self.only_yours)
        top.addSpacing(12)
        top.addWidget(hint)

        self.table = QTableView()
        self.table.setAccessibleName(self.tr("Prices"))
        self.table.setModel(self.proxy)
        self.table.setItemDelegate(PriceDelegate(self.table))
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(GPU, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.AnyKeyPressed)
        self.table.setWordWrap(False)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.table.fontMetrics().height() + 10)
        header = self.table.horizontalHeader()
        header.setHighlightSections(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        for c, width in _WIDTHS.items():
            header.resizeSection(c, width)
        header.setSectionResizeMode(SOURCE, QHeaderView.ResizeMode.Stretch)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update_buttons())

        self.add_button = QPushButton(self.tr("Add price…"))
        self.add_button.setToolTip(self.tr("Add a quote or your own rate for a GPU"))
        self.add_button.clicked.connect(lambda: self.add_price())
        self.reset_button = QPushButton(self.tr("Reset to bundled"))
        self.reset_button.setToolTip(self.tr("Selected rows: edited prices go back to the bundled ones, "
                                             "added prices are removed"))
        self.reset_button.clicked.connect(lambda: self.reset_selected())
        self.reset_all_button = QPushButton(self.tr("Reset all…"))
        self.reset_all_button.setToolTip(self.tr("Forget every edit and every added price"))
        self.reset_all_button.clicked.connect(lambda: self.reset_all())
        self.counts = QLabel()
        self.counts.setTextFormat(Qt.TextFormat.PlainText)  # names the price book's path
        self.counts.setStyleSheet("color: #555555;")
        self.counts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bottom = QHBoxLayout()
        bottom.addWidget(self.counts, 1)
        bottom.addWidget(self.add_button)
        bottom.addWidget(self.reset_button)
        bottom.addWidget(self.reset_all_button)

        self.refresh_worker: PriceRefreshWorker | None = None
        self.refresh_button = QPushButton(self.tr("Refresh prices"))
        self.refresh_button.setToolTip(self.tr(
            "Fetch today's prices from public catalogs (dstack's gpuhunt: AWS, Azure, GCP, Lambda, Nebius, OCI, "
            "RunPod, Verda, CloudRift). Your edits and the prices you added are kept"))
        self.refresh_button.clicked.connect(lambda: self.refresh_prices())
        self.cancel_refresh_button = QPushButton(self.tr("Cancel"))
        self.cancel_refresh_button.setToolTip(self.tr("Stop the refresh; nothing changes"))
        self.cancel_refresh_button.setEnabled(False)
        self.cancel_refresh_button.clicked.connect(lambda: self.cancel_refresh())
        self.refresh_status = QLabel()
        self.refresh_status.setTextFormat(Qt.TextFormat.PlainText)  # names a URL and catalog versions
        self.refresh_status.setWordWrap(True)
        self.refresh_status.setAccessibleName(self.tr("Price refresh status"))
        self.refresh_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        refresh_row = QHBoxLayout()
        refresh_row.addWidget(self.refresh_status, 1)
        refresh_row.addWidget(self.refresh_button)
        refresh_row.addWidget(self.cancel_refresh_button)

        col = QVBoxLayout(self)
        col.setContentsMargins(8, 8, 8, 8)
        col.addWidget(self.banner)
        col.addLayout(top)
        col.addWidget(self.table, 1)
        col.addLayout(refresh_row)
        col.addLayout(bottom)

        controller.changed.connect(self._on_changed)
        controller.failed.connect(self.show_message)
        notices = [n for n in (controller.book.notice, controller.book.snapshot_notice) if n]
        if notices:
            self.show_message("\n".join(notices))
        self.refresh_status.setText(self._snapshot_status())
        self._on_changed()

    # ------------------------------------------------------------------ dialogs (patchable in tests)
    def ask_new_price(self) -> dict[str, Any] | None:
        """Show :class:`AddPriceDialog`; the values, or ``None`` when cancelled."""
        dialog = AddPriceDialog(self._selected_gpu_id(), self)
        return dialog.values() if dialog.exec() == QDialog.DialogCode.Accepted else None

    def confirm(self, question: str) -> bool:
        """Ask a yes/no question."""
        box = plain_message_box(self, QMessageBox.Icon.Question, self.tr("Prices"), question,
                                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                                QMessageBox.StandardButton.No)
        return box.exec() == QMessageBox.StandardButton.Yes

    # ------------------------------------------------------------------ actions
    def proxy_row_of(self, key: str) -> int:
        """Row in the (sorted, filtered) table of a price key, or -1."""
        src = self.model.row_of(key)
        return -1 if src < 0 else self.proxy.mapFromSource(self.model.index(src, 0)).row()

    def selected_keys(self) -> list[str]:
        """Keys of the selected prices."""
        return [i.data(KEY_ROLE) for i in self.table.selectionModel().selectedRows()]

    def _selected_gpu_id(self) -> str:
        keys = self.selected_keys()
        found = self.controller.find(keys[0]) if keys else None
        return found.entry.gpu_id if found else ""

    def add_price(self, values: dict[str, Any] | None = None) -> EffectivePrice | None:
        """Add a price (asks for it when ``values`` is None); selects the new row."""
        if values is None:
            values = self.ask_new_price()
            if values is None:
                return None
        added = self.controller.add(**values)
        if added is not None:
            self.filter.clear()
            row = self.proxy_row_of(added.key)
            if row >= 0:
                self.table.selectRow(row)
                self.table.scrollTo(self.proxy.index(row, 0))
            self.show_message("")
        return added

    def reset_selected(self) -> int:
        """Reset the selected prices to bundled (added ones are removed)."""
        n = 0
        for key in self.selected_keys():
            n += self.controller.reset(key)
        return n

    def reset_all(self, confirmed: bool = False) -> int:
        """Forget every edit and addition (asks first)."""
        mine = sum(1 for p in self.controller.effective_prices() if p.is_yours)
        if not mine:
            return 0
        if not confirmed and not self.confirm(
                self.tr("Forget your {n} price change(s) and use the bundled prices?").format(n=mine)):
            return 0
        return self.controller.reset_all()

    def show_message(self, text: str) -> None:
        """Show (or, with ``""``, hide) the message above the table."""
        self.banner.setText(text)
        self.banner.setVisible(bool(text))

    # ------------------------------------------------------------------ redraw
    def _on_changed(self) -> None:
        prices = self.controller.effective_prices()
        edited = sum(1 for p in prices if p.origin == "edited")
        added = sum(1 for p in prices if p.origin == "added")
        try:
            where = str(self.controller.path or price_book_path())
        except OSError:
            where = self.tr("your data folder")
        yours = (self.tr("{edited} edited, {added} added").format(edited=edited, added=added) if edited or added
                 else self.tr("none of them changed by you"))
        today = self.controller.today()
        old = sum(1 for p in prices if is_old_price(p.entry.date_seen, today))
        refreshed = sum(1 for p in prices if p.refreshed is not None)
        parts = [yours]
        snapshot = self.controller.book.snapshot
        if refreshed and snapshot is not None:
            parts.append(self.tr("{n} refreshed on {date}").format(n=refreshed, date=snapshot.date))
        if old:
            parts.append(self.tr("{n} older than {days} days").format(n=old, days=OLD_PRICE_DAYS))
        self.counts.setText(self.tr("{n} prices (USD per GPU per hour) · {yours} · saved in {where}").format(
            n=len(prices), yours=" · ".join(parts), where=where))
        self._update_buttons()

    # ------------------------------------------------------------------ refresh
    @property
    def refreshing(self) -> bool:
        """A refresh is running."""
        return self.refresh_worker is not None

    def _snapshot_status(self) -> str:
        snapshot = self.controller.book.snapshot
        if snapshot is None:
            last = catalog.price_dates().last
            return self.tr("Bundled prices, seen up to {date}. “Refresh prices” fetches today's.").format(date=last)
        reached = [s.name for s in snapshot.providers if not s.error]
        return self.tr("Prices last refreshed on {date} from {providers}.").format(
            date=snapshot.date, providers=", ".join(reached) or "-")

    def refresh_prices(self) -> PriceRefreshWorker | None:
        """Start a refresh in a worker thread (returns it; ``None`` when one is already running)."""
        if self.refresh_worker is not None:
            return None
        c = self.controller
        worker = PriceRefreshWorker({
            "source_url": c.source_url, "book": c.book.model_copy(deep=True), "book_path": c.path,
            "snapshot_path": c.snapshot_path(), **c.refresh_options})
        worker.progress.connect(self._on_refresh_progress)
        worker.done.connect(self._on_refresh_done)
        self.refresh_worker = worker
        self.refresh_button.setEnabled(False)
        self.cancel_refresh_button.setEnabled(True)
        self.refresh_status.setText(self.tr("Fetching today's prices…"))
        worker.start()
        return worker

    def cancel_refresh(self) -> None:
        """Stop the running refresh (it ends within a fraction of a second; nothing changes)."""
        if self.refresh_worker is not None:
            self.refresh_worker.cancel.set()
            self.cancel_refresh_button.setEnabled(False)
            self.refresh_status.setText(self.tr("Cancelling…"))

    def _on_refresh_progress(self, done: int, total: int) -> None:
        if self.refresh_worker is not None and not self.refresh_worker.cancel.is_set():
            self.refresh_status.setText(self.tr("Fetching today's prices… {done} of {total} catalogs").format(
                done=done, total=total))

    def _on_refresh_done(self, result: Any) -> None:
        self.refresh_worker = None
        self.refresh_button.setEnabled(True)
        self.cancel_refresh_button.setEnabled(False)
        if isinstance(result, BaseException):
            self.refresh_status.setText(self.tr("The refresh failed: {error}").format(error=str(result)[:300]))
            return
        if result.cancelled:
            self.refresh_status.setText(self.tr("Refresh cancelled: nothing changed."))
            return
        snapshot = result.snapshot
        if not result.ok:
            kept = (self.tr("The prices refreshed on {date} stay in use.").format(date=snapshot.date)
                    if snapshot is not None else self.tr("The bundled prices stay in use."))
            self.refresh_status.setText(self.tr("Could not refresh the prices: no catalog answered. {kept}").format(
                kept=kept))
            self.show_message("\n".join(result.errors))
            return
        self.controller.apply_snapshot(snapshot)
        c = result.changes
        text = self.tr("Refreshed on {date}: {added} added, {updated} updated, {kept} kept, {removed} removed.").format(
            date=snapshot.date if snapshot else "?", added=len(c.added), updated=len(c.updated), kept=c.kept,
            removed=len(c.removed))
        if c.kept_yours:
            text += " " + self.tr("%n of your edits kept over the refreshed price.", "", c.kept_yours)
        if result.skipped:
            text += " " + self.tr("%n malformed row(s) skipped.", "", result.skipped)
        self.refresh_status.setText(text)
        problems = [*result.errors]
        if result.save_error:
            problems.append(result.save_error + " " + self.tr("The refreshed prices apply until you close Tuneplan."))
        self.show_message("\n".join(problems))

    def _update_buttons(self) -> None:
        keys = self.selected_keys()
        mine = {p.key for p in self.controller.effective_prices() if p.is_yours}
        self.reset_button.setEnabled(any(k in mine for k in keys))
        self.reset_all_button.setEnabled(bool(mine))


#: Refresh threads still running (a QThread must outlive its run, whatever happens to the view that started it).
_WORKERS: set[PriceRefreshWorker] = set()


class PriceRefreshWorker(QThread):
    """Runs :func:`~tuneplan.storage.price_refresh.refresh_prices` off the GUI thread.

    Args:
        options: keyword arguments for ``refresh_prices`` (``cancel`` and ``progress`` are the worker's).

    Signals:
        progress(int, int): catalogs done so far, of how many.
        done(object): the :class:`~tuneplan.storage.price_refresh.RefreshResult`, or the exception that escaped.
    """

    progress = Signal(int, int)
    done = Signal(object)

    def __init__(self, options: dict[str, Any]) -> None:
        super().__init__()
        self.options = options
        self.cancel = threading.Event()
        self.result: Any = None
        _WORKERS.add(self)
        self.finished.connect(self._forget)
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.stop)

    def run(self) -> None:  # the worker thread
        """Fetch, parse and save; emit ``done``."""
        from tuneplan.storage.price_refresh import PROVIDERS, refresh_prices

        total = len(self.options.get("providers") or PROVIDERS)
        count = [0]

        def step(_line: str) -> None:
            count[0] += 1
            self.progress.emit(count[0], total)

        try:
            self.result = refresh_prices(cancel=self.cancel, progress=step, **self.options)
        except Exception as exc:  # noqa: BLE001 - shown in the dialog, never a dead thread
            log.exception("price refresh failed")
            self.result = exc
        self.done.emit(self.result)

    def stop(self, wait_ms: int = 3000) -> None:
        """Cancel and wait for the thread (the app is quitting)."""
        self.cancel.set()
        self.wait(wait_ms)

    def _forget(self) -> None:
        _WORKERS.discard(self)
        self.deleteLater()


class PriceBookDialog(QDialog):
    """The "Prices" window (not modal: the plan stays usable while it is open)."""

    def __init__(self, controller: PriceBookController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Prices — Tuneplan"))
        self.setModal(False)
        self.view = PriceBookView(controller, self)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        col = QVBoxLayout(self)
        col.setContentsMargins(4, 4, 4, 8)
        col.addWidget(self.view, 1)
        col.addWidget(buttons)
        self.resize(1180, 640)


# ---------------------------------------------------------------------------------------------
# the main window


def _matching(prices: list[EffectivePrice], gpu_id: str, pricing: Any) -> EffectivePrice | None:
    for p in prices:
        e = p.entry
        if e.gpu_id == gpu_id and (e.provider, e.kind, e.usd_per_gpu_hour) == (
                pricing.provider, pricing.offer_kind, pricing.price_per_gpu_hour):
            return p
    return None


def _follow_prices(window: Any, controller: PriceBookController) -> None:
    """After a price book change: refresh the offer list; if the plan used a changed offer, use its new price."""
    store = window.store
    s = store.scenario
    panel = getattr(window, "hardware_panel", None)
    if panel is not None and hasattr(panel, "reload_offers"):
        panel.reload_offers()
    old = _matching(controller.previous, s.gpu.id, s.pricing)
    if old is None:
        return
    new = controller.find(old.key)
    entry = new.entry if new is not None else controller.default_price(s.gpu.id)
    if entry is not None and entry != old.entry:
        store.set_price_offer(entry)


def _apply_to_fresh_plan(window: Any, controller: PriceBookController) -> None:
    """A new, untouched plan starts from the effective default price, not the bundled one."""
    store = window.store
    if store.dirty or getattr(window, "path", None) is not None:
        return
    s = store.scenario
    bundled = catalog.default_price(s.gpu.id)
    effective = controller.default_price(s.gpu.id)
    if bundled is None or effective is None or bundled == effective:
        return
    if _matching([EffectivePrice(key="", entry=bundled, origin="bundled")], s.gpu.id, s.pricing) is None:
        return
    if store.set_price_offer(effective):
        store.mark_saved()  # still an untouched new plan: nothing to save


def install_price_book(window: Any) -> PriceBookController:
    """Load the price book and make the window use it.

    The store and the hardware panel take their offers from it (``store.prices``), Tools → Prices…
    opens :class:`PriceBookDialog` (``window.prices_action``), an untouched new plan starts from the
    effective default price, and a price book that had to be moved aside is reported once after
    the window appears. Returns the controller (also ``window.price_book``).
    """
    controller = PriceBookController(parent=window)
    window.price_book = controller
    window.price_book_dialog = None
    window.store.prices = controller
    _apply_to_fresh_plan(window, controller)

    def show_dialog() -> PriceBookDialog:
        if window.price_book_dialog is None:
            window.price_book_dialog = PriceBookDialog(controller, window)
        dialog = window.price_book_dialog
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    window.prices_action = QAction(translate("PriceBookView", "&Prices…"), window)
    window.prices_action.setToolTip(translate("PriceBookView", "Your price book: edit a price, add a quote, "
                                                               "reset to the bundled prices"))
    window.prices_action.triggered.connect(show_dialog)
    tools_menu(window).addAction(window.prices_action)

    controller.changed.connect(lambda: _follow_prices(window, controller))
    new_action = getattr(window, "new_action", None)
    if new_action is not None:
        new_action.triggered.connect(lambda: _apply_to_fresh_plan(window, controller))
    notice = controller.book.notice
    if notice:
        log.warning("%s", notice)

        def report() -> None:
            window.statusBar().showMessage(notice, 15000)
            window.show_error(translate("PriceBookView", "Your price book could not be used"), notice)

        QTimer.singleShot(0, report)
    return controller
