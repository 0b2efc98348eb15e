""""Find the cheapest setup…": the best setups that run the plan, with one click to apply (issue #19, part 4).

:class:`SetupSearchDialog` asks :func:`tuneplan.core.search.search_setups` for the cheapest (or fastest) combined
changes — GPU type and count, sharding, method, memory savers — within the user's limits (keep the method, most
GPUs, budget per run, hours), each priced as choosing its GPU prices it (:meth:`AppStore.gpu_update`: the GPU's
default offer from the price book, unless the plan's price is the user's own), so the cost shown is the one the
click gives. Each row's Apply button applies the whole change through the store as one undo step
(``set_gpu`` for the GPU, ``set_fields`` for the training fields, inside ``undo_group``).

The search runs on a 0 ms timer after a limit changes (a fraction of a second; ``make bench``).
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from tuneplan import catalog
from tuneplan.core.scenario import Pricing
from tuneplan.core.search import DEFAULT_MAX_GPUS, SearchOutcome, Setup, search_setups
from tuneplan.ui.i18n import (
    OFFER_KIND_LABELS,
    SHARDING_LABELS,
    core_note_text,
    fmt_number,
    fmt_usd,
    plain_tooltip,
)
from tuneplan.ui.store import CUSTOM_OFFER

__all__ = ["SetupSearchDialog", "describe", "open_setup_search", "search_pricing"]

log = logging.getLogger(__name__)

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

RANK_COL, SETUP_COL, USD_COL, HOURS_COL, MEMORY_COL, APPLY_COL = range(6)


def search_pricing(store: Any, gpu_ids: list[str]) -> dict[str, Pricing]:
    """The plan's pricing on each GPU as :meth:`AppStore.set_gpu` would give it; GPUs without a price are left out
    (unless the plan's price is the user's own, which every GPU keeps)."""
    own = store.scenario.pricing.offer_kind == CUSTOM_OFFER
    out: dict[str, Pricing] = {}
    for gpu_id in gpu_ids:
        if store.scenario.pricing.own_gpu and gpu_id == store.scenario.gpu.id:
            out[gpu_id] = store.scenario.pricing  # the card you own stays billed as electricity
            continue
        try:
            update = store.gpu_update(gpu_id)
        except KeyError:
            continue
        if "pricing" in update:
            out[gpu_id] = Pricing.model_validate(update["pricing"])
        elif own:
            out[gpu_id] = store.scenario.pricing
    return out


def describe(setup: Setup) -> str:
    """A setup in the UI language: ``16× H100 SXM5 80GB with FSDP · LoRA · micro-batch 2 × accumulation 4`` (the
    GPUs always, the rest where it differs from the plan)."""
    ch = setup.changes
    if setup.num_gpus > 1:
        head = translate("SetupSearch", "{n}× {gpu} with {sharding}").format(
            n=setup.num_gpus, gpu=setup.gpu_name, sharding=SHARDING_LABELS.get(setup.sharding, setup.sharding))
    else:
        head = translate("SetupSearch", "1× {gpu}").format(gpu=setup.gpu_name)
    parts = [head]
    methods = {"full": translate("SetupSearch", "full fine-tuning"), "lora": "LoRA", "qlora": "QLoRA"}
    if "training.method" in ch:
        parts.append(methods.get(setup.method, setup.method))
    if "training.micro_batch" in ch or "training.grad_accumulation" in ch:
        parts.append(translate("SetupSearch", "micro-batch {mb} × accumulation {ga}").format(
            mb=setup.micro_batch, ga=setup.grad_accumulation))
    if "training.grad_checkpointing" in ch:
        parts.append(translate("SetupSearch", "gradient checkpointing") if setup.grad_checkpointing
                     else translate("SetupSearch", "no gradient checkpointing"))
    if ch.get("training.fused_cross_entropy"):
        parts.append(translate("SetupSearch", "fused cross-entropy"))
    if ch.get("training.optimizer") == "adamw-8bit":
        parts.append(translate("SetupSearch", "8-bit AdamW"))
    if ch.get("training.grad_sync") == "micro-batch":
        parts.append(translate("SetupSearch", "gradients synced every micro-batch"))
    return " · ".join(parts)


class SetupSearchDialog(QDialog):
    """The limits, the ranked setups and an Apply button per row.

    Args:
        store: the app's :class:`~tuneplan.ui.store.AppStore`.
        gpus: GPU types to search (default: the catalog).
    """

    def __init__(self, store: Any, gpus: list[Any] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.gpus = list(gpus) if gpus is not None else catalog.list_gpus()
        self.outcome: SearchOutcome | None = None
        self.setWindowTitle(self.tr("Find the cheapest setup"))
        self.setAccessibleName(self.tr("Find the cheapest setup"))
        self.resize(980, 520)

        self.rank = QComboBox()
        self.rank.addItem(self.tr("Cheapest per completed run"), "cost")
        self.rank.addItem(self.tr("Fastest"), "time")
        self.keep_method = QCheckBox(self.tr("Keep the method"))
        self.keep_method.setToolTip(self.tr("Keep full fine-tuning, LoRA or QLoRA as the plan has it; otherwise a "
                                            "full fine-tune may become LoRA or QLoRA, and LoRA and QLoRA may swap"))
        self.max_gpus = QSpinBox()
        self.max_gpus.setRange(1, DEFAULT_MAX_GPUS)
        self.max_gpus.setValue(DEFAULT_MAX_GPUS)
        self.max_gpus.setAccessibleName(self.tr("Most GPUs"))
        self.budget = QDoubleSpinBox()
        self.budget.setRange(0, 10_000_000)
        self.budget.setDecimals(2)
        self.budget.setPrefix("$ ")
        self.budget.setSpecialValueText(self.tr("No limit"))
        self.budget.setAccessibleName(self.tr("Budget per run"))
        self.max_hours = QDoubleSpinBox()
        self.max_hours.setRange(0, 100_000)
        self.max_hours.setDecimals(1)
        self.max_hours.setSuffix(self.tr(" h"))
        self.max_hours.setSpecialValueText(self.tr("No limit"))
        self.max_hours.setAccessibleName(self.tr("Done within"))
        for spin in (self.max_gpus, self.budget, self.max_hours):
            spin.setKeyboardTracking(False)
        form = QFormLayout()
        form.addRow(self.tr("Rank by:"), self.rank)
        form.addRow(self.tr("Most GPUs:"), self.max_gpus)
        form.addRow(self.tr("Budget per run:"), self.budget)
        form.addRow(self.tr("Done within:"), self.max_hours)
        form.addRow("", self.keep_method)

        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setAccessibleName(self.tr("Search summary"))

        self.table = QTableWidget(0, 6)
        self.table.setAccessibleName(self.tr("Setups that fit"))
        self.table.setHorizontalHeaderLabels(
            ["#", self.tr("Setup"), self.tr("$ per run"), self.tr("Hours"), self.tr("GiB per GPU\n(high / card)"), ""])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.verticalHeader().setVisible(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(SETUP_COL, QHeaderView.ResizeMode.Stretch)
        for col in (RANK_COL, USD_COL, HOURS_COL, MEMORY_COL, APPLY_COL):
            header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)

        self.note = QLabel(self.tr(
            "Setups whose whole likely range of memory (the estimate plus its measured error) fits the card, one per "
            "GPU type and method. Costs are per completed run at each GPU's price in your price book, with this "
            "plan's storage and overheads. Apply changes the plan in one step (Edit → Undo takes it back)."))
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #555555;")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)

        top = QHBoxLayout()
        top.addLayout(form)
        top.addStretch(1)
        col = QVBoxLayout(self)
        col.addLayout(top)
        col.addWidget(self.summary)
        col.addWidget(self.table, 1)
        col.addWidget(self.note)
        col.addWidget(buttons)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.search_now)
        self.rank.currentIndexChanged.connect(lambda _i: self._timer.start())
        self.keep_method.toggled.connect(lambda _on: self._timer.start())
        for spin in (self.max_gpus, self.budget, self.max_hours):
            spin.valueChanged.connect(lambda _v: self._timer.start())
        # a bound slot, disconnected when the dialog closes: the store outlives the dialog (a lambda kept calling
        # the deleted dialog's timer after it was closed)
        store.scenario_changed.connect(self._plan_changed)
        self.finished.connect(self._detach)
        self._timer.start()

    def _plan_changed(self, _scenario: Any = None) -> None:
        self._timer.start()

    def _detach(self, _result: int = 0) -> None:
        """Stop following the store's plan (the dialog is closing)."""
        try:
            self.store.scenario_changed.disconnect(self._plan_changed)
        except (RuntimeError, TypeError):  # already disconnected
            pass
        self._timer.stop()

    def search_now(self) -> SearchOutcome | None:
        """Run the search for the store's plan with the limits shown, and fill the table."""
        self._timer.stop()
        s = self.store.scenario
        self._pricing = search_pricing(self.store, [g.id for g in self.gpus])
        try:
            self.outcome = search_setups(
                s, self.gpus, self._pricing,
                rank=self.rank.currentData(), max_gpus=self.max_gpus.value(),
                budget_usd=self.budget.value() or None, max_hours=self.max_hours.value() or None,
                keep_method=self.keep_method.isChecked(), calibrations=self.store.calibrations)
        except ValueError as exc:
            log.warning("setup search failed: %s", exc)
            self.outcome = None
            self.table.setRowCount(0)
            self.summary.setText(self.tr("The search cannot be run for this plan: {error}").format(error=exc))
            return None
        self._fill(self.outcome)
        return self.outcome

    def _offer_kind(self, gpu_id: str) -> str:
        """`` · spot`` / `` · community`` when the row is priced on an offer the provider may interrupt, else ``""``
        (a user must see that the cheapest setup relies on such a price)."""
        pricing = getattr(self, "_pricing", {}).get(gpu_id)
        if pricing is None or pricing.offer_kind not in {"spot", "community"}:
            return ""
        return " · " + OFFER_KIND_LABELS[pricing.offer_kind]

    def _fill(self, outcome: SearchOutcome) -> None:
        self.table.setRowCount(len(outcome.setups))
        for row, setup in enumerate(outcome.setups):
            cells = {
                RANK_COL: str(row + 1),
                SETUP_COL: describe(setup) + (self.tr("  (the plan as it is)") if setup.is_plan else ""),
                USD_COL: (fmt_usd(setup.usd) + self._offer_kind(setup.gpu_id)) if setup.usd is not None
                else self.tr("no price"),
                HOURS_COL: fmt_number(setup.hours, 2),
                MEMORY_COL: f"{fmt_number(setup.high_gib, 1)} / {fmt_number(setup.capacity_gib, 1)}",
            }
            tip = "\n".join([describe(setup), *(core_note_text(n) for n in setup.notes)])
            for col, text in cells.items():
                item = QTableWidgetItem(text)
                item.setToolTip(plain_tooltip(tip))
                if col != SETUP_COL:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(row, col, item)
            button = QPushButton(self.tr("Apply"))
            button.setAccessibleName(self.tr("Apply setup {n}").format(n=row + 1))
            button.setEnabled(not setup.is_plan)
            button.clicked.connect(lambda _c=False, x=setup: self.apply(x))
            self.table.setCellWidget(row, APPLY_COL, button)
        parts = [self.tr("{count} setups fit with their whole likely range; the best {shown} are shown.").format(
            count=outcome.working, shown=len(outcome.setups))]
        parts.extend(core_note_text(n) for n in outcome.notes)
        self.summary.setText(" ".join(parts))

    def apply(self, setup: Setup) -> bool:
        """Apply ``setup`` to the plan through the store, as one undo step; returns whether the store took it."""
        ok = gpu_set = True
        with self.store.undo_group(self.tr("Apply setup: {setup}").format(setup=describe(setup))):
            if setup.gpu_changed:
                ok = gpu_set = bool(self.store.set_gpu(setup.gpu_id))
            if ok and setup.changes:
                ok = bool(self.store.set_fields(dict(setup.changes)))
        if not ok and setup.gpu_changed and gpu_set:
            self.store.undo()  # all or nothing: not the GPU without the rest
        return ok


def open_setup_search(store: Any, parent: QWidget | None = None) -> SetupSearchDialog:
    """Show a (non-modal) :class:`SetupSearchDialog` for ``store``'s plan and return it."""
    dialog = SetupSearchDialog(store, parent=parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.show()
    return dialog
