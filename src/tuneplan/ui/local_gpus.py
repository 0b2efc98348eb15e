"""Is my own GPU enough? The "Your GPUs" panel, the local verdict and their controller (issue #5).

* :func:`local_verdict` turns the plan's memory estimate on the user's card into one sentence
  ("fits on your RTX 4090 with 2.3 GiB spare; not with what is free now — 6.1 GiB in use by 2
  processes"). Pure: no widgets (only Qt's ``translate`` for the UI language).
* :func:`probed_gpu_spec` / :func:`manual_gpu_spec` build the :class:`GpuSpec` the estimate runs
  on: the catalog card with the memory the driver really reports, or a custom spec.
* :class:`LocalGpuController` holds the probe result, the hand-entered card (saved in the user's
  settings) and which cards count; it recomputes the local estimate with
  :func:`tuneplan.core.memory.estimate_memory` whenever the plan, the probe or the selection
  changes, and emits a :class:`LocalPlan`.
* :class:`LocalGpuPanel` (the form panel) and :class:`LocalVerdictView` (under the VRAM chart)
  only display what the controller emits; the VRAM chart gets the card's total and "free now"
  lines through :meth:`LocalGpuController.bind_chart`.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from tuneplan import catalog
from tuneplan.catalog.own_gpu import own_gpu_spec
from tuneplan.core.advice import max_micro_batch, max_seq_len
from tuneplan.core.memory import estimate_memory
from tuneplan.core.result import GIB, MemoryEstimate
from tuneplan.core.scenario import GpuSpec, Scenario
from tuneplan.hw.probe import LocalGpu, ProbeResult, probe_message
from tuneplan.storage.settings import (
    LocalGpuSettings,
    ManualGpu,
    SettingsSaveError,
    load_local_gpu_settings,
    save_local_gpu_settings,
)
from tuneplan.ui.fields import ERROR_COLOR, ComboBox, DoubleSpinBox, FieldPanel
from tuneplan.ui.i18n import core_note_text, fmt_capacity, fmt_number, plain_tooltip
from tuneplan.ui.store import AppStore

if TYPE_CHECKING:
    from tuneplan.ui.charts import VramChart

__all__ = [
    "MANUAL_KEY",
    "LocalCard",
    "LocalGpuController",
    "LocalGpuPanel",
    "LocalPlan",
    "LocalVerdictView",
    "card_details",
    "local_verdict",
    "manual_gpu_spec",
    "manual_as_local",
    "probed_gpu_spec",
    "short_name",
]

log = logging.getLogger(__name__)

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

GOOD = "#2e7d32"
BAD = "#c62828"
WARN = "#8a5a00"
MUTED = "color: #666666;"
MANUAL_KEY = "manual"
READING = QT_TRANSLATE_NOOP("LocalGpus", "Reading GPUs…")  # shown through translate("LocalGpus", READING)


# ---------------------------------------------------------------------------------------- pure helpers


def short_name(name: str) -> str:
    """``NVIDIA GeForce RTX 4090`` -> ``RTX 4090``: the brand words add nothing in a sentence."""
    short = name.strip()
    for prefix in ("NVIDIA ", "GeForce "):
        short = short.removeprefix(prefix)
    return short.strip() or name


def _size(gib: float) -> str:
    """A card's memory as every view prints it (:func:`~tuneplan.ui.i18n.fmt_capacity`): ``23.99 GiB``,
    ``79.65 GiB`` - not a rounded ``24 GiB`` that disagrees with the GPU list and the Limits tab."""
    return fmt_capacity(gib)


def _by(processes: int) -> str:
    if processes <= 0:
        return ""
    if processes == 1:
        return translate("LocalGpus", " by 1 process")
    return translate("LocalGpus", " by {n} processes").format(n=processes)


def local_verdict(
    memory: MemoryEstimate,
    gpu: LocalGpu,
    *,
    count: int = 1,
    busiest: LocalGpu | None = None,
    micro_batch_limit: int | None = None,
    seq_len_limit: int | None = None,
    plan_gpus: int = 1,
    bf16_wanted: bool = False,
) -> str:
    """One sentence: does the plan fit on the user's own card, in total and with what is free now?

    Args:
        memory: the plan's per-GPU memory estimate on ``gpu`` (its ``capacity_bytes`` is the
            card's total, as computed by :class:`LocalGpuController`).
        gpu: the card compared against: with several selected cards, the smallest one.
        count: how many cards are selected (said in the sentence when more than one).
        busiest: the selected card with the least free memory, for the "free now" part
            (default ``gpu``). Its in-use memory is ``total - free``: what a new job cannot have.
        micro_batch_limit, seq_len_limit: the largest micro-batch and the longest sequence that
            would fit on ``gpu`` (:func:`tuneplan.core.advice.max_micro_batch` /
            :func:`~tuneplan.core.advice.max_seq_len`); said when it does not fit.
        plan_gpus: the plan's number of GPUs; a note is added when more than ``count``.
        bf16_wanted: the plan trains in BF16; a note is added when the card has none.

    Examples: ``fits on your RTX 4090 with 2.3 GiB spare; not with what is free now — 6.1 GiB in
    use by 2 processes``; ``does not fit on your RTX 3060 (12 GiB): short by 3.4 GiB — largest
    micro-batch that would fit: 0; longest sequence: 1,024 tokens``.
    """
    name = short_name(gpu.name)
    cap_gib = memory.capacity_bytes / GIB
    if count > 1:
        where = translate("LocalGpus", "your {name} (the smallest of your {count} selected GPUs, {size})").format(
            name=name, count=count, size=_size(cap_gib))
    else:
        where = translate("LocalGpus", "your {name}").format(name=name)
    if memory.fits:
        text = translate("LocalGpus", "fits on {where} with {spare} GiB spare").format(
            where=where, spare=f"{memory.headroom_bytes / GIB:.1f}")
        card = busiest or gpu
        total, free = card.memory_total_bytes, card.memory_free_bytes
        if total and free is not None:
            in_use = max(0.0, (total - free) / GIB)
            on = translate("LocalGpus", " on the {name}").format(name=short_name(card.name)) if count > 1 else ""
            if memory.total_bytes > free:
                text += translate("LocalGpus", "; not with what is free now — {in_use} GiB in use{by}{on}").format(
                    in_use=f"{in_use:.1f}", by=_by(len(card.processes)), on=on)
            elif in_use >= 0.05:
                text += translate("LocalGpus", ", also with what is free now ({free} GiB)").format(free=f"{free / GIB:.1f}")
    else:
        at = translate("LocalGpus", " ({size})").format(size=_size(cap_gib)) if count == 1 else ""
        text = translate("LocalGpus", "does not fit on {where}{at}: short by {short} GiB").format(
            where=where, at=at, short=f"{-memory.headroom_bytes / GIB:.1f}")
        limits = []
        if micro_batch_limit is not None:
            limits.append(translate("LocalGpus", "largest micro-batch that would fit: {n}").format(n=micro_batch_limit))
        if seq_len_limit is not None:
            limits.append(
                translate("LocalGpus", "longest sequence: {n} tokens").format(n=f"{seq_len_limit:,}")
                if seq_len_limit > 0
                else translate("LocalGpus", "no sequence length fits at this micro-batch")
            )
        if limits:
            text += translate("LocalGpus", " — ") + translate("LocalGpus", "; ").join(limits)
    if plan_gpus > count:
        text += translate("LocalGpus", " · the plan needs {n} GPUs, {count} selected").format(n=plan_gpus, count=count)
    if bf16_wanted and gpu.bf16_supported is False:
        text += translate("LocalGpus", " · the {name} has no BF16: train in FP16").format(name=name)
    return text


def probed_gpu_spec(gpu: LocalGpu) -> GpuSpec | None:
    """The spec to estimate on for a detected card; ``None`` when its memory is unknown.

    :func:`tuneplan.catalog.own_gpu.own_gpu_spec`: a catalog match keeps the catalog's physics (measured matmul
    ceiling, SMs, bandwidth, power) and takes the memory the driver reports for this very card; when that memory
    is the catalog's (the catalog stores nvidia-smi's total / 1024 to two decimals: 24564 MiB is the RTX 4090's
    23.99 GiB), the catalog spec is used as it is, so the card and the plan's GPU are one capacity and give one set
    of limits (issue #21). An unknown card becomes a custom spec with that memory and no throughput.
    """
    if not gpu.memory_total_bytes:
        return None
    return own_gpu_spec(gpu.name, gpu.memory_total_bytes / GIB, catalog_id=gpu.catalog_id,
                        bf16_supported=gpu.bf16_supported, custom_id=f"local-{gpu.index}")


def manual_gpu_spec(manual: ManualGpu) -> GpuSpec:
    """The spec of a hand-entered card: its catalog card (the one copied from, or the one its name matches) with the
    typed memory, and the typed TFLOPS only where they differ from the catalog's; else a custom spec."""
    return own_gpu_spec(manual.name, manual.memory_gib, catalog_id=manual.catalog_id, bf16_tflops=manual.bf16_tflops,
                        typed=True)


def manual_as_local(manual: ManualGpu) -> LocalGpu:
    """The hand-entered card as a :class:`LocalGpu` (index -1; nothing known about free memory); its catalog id is
    the card it was copied from, or the catalog card its name matches."""
    spec = manual_gpu_spec(manual)
    listed = spec.segment != "local"
    return LocalGpu(
        index=-1,
        name=manual.name,
        memory_total_bytes=int(manual.memory_gib * GIB),
        bf16_supported=spec.bf16_supported if listed else None,
        catalog_id=spec.id if listed else None,
    )


def _yes_no(value: bool | None) -> str:
    return "?" if value is None else (translate("LocalGpus", "yes") if value else translate("LocalGpus", "no"))


def card_details(card: LocalCard) -> str:
    """Two lines about a card for the panel: memory now, then driver/CUDA/BF16/catalog."""
    g = card.gpu
    if card.manual is not None:
        m = card.manual
        tflops = (translate("LocalGpus", "{n} BF16 TFLOPS").format(n=f"{m.bf16_tflops:g}") if m.bf16_tflops
                  else translate("LocalGpus", "BF16 TFLOPS unknown"))
        source = (translate("LocalGpus", " · copied from {name}").format(name=html.escape(card.spec.name))
                  if card.spec and m.catalog_id else "")
        return translate("LocalGpus", "{n} GiB total · {tflops}{source}").format(
            n=fmt_number(m.memory_gib, 2, group=False), tflops=tflops, source=source)
    total = (translate("LocalGpus", "{n} GiB total").format(n=fmt_number(g.memory_total_bytes / GIB, 2, group=False))
             if g.memory_total_bytes
             else translate("LocalGpus", "memory unknown"))
    parts = [total]
    if g.memory_free_bytes is not None:
        parts.append(translate("LocalGpus", "{n} GiB free now").format(n=f"{g.memory_free_bytes / GIB:.1f}"))
    if g.processes:
        parts.append(translate("LocalGpus", "used{by}").format(by=_by(len(g.processes))))
    first = " · ".join(parts)
    cuda = (translate("LocalGpus", "CUDA {version} (driver max)").format(version=g.cuda_driver_version)
            if g.cuda_driver_version else "CUDA ?")
    match = html.escape(card.spec.name) if card.spec and g.catalog_id else translate("LocalGpus", "not in the catalog")
    second = translate("LocalGpus", "Driver {driver} · {cuda} · BF16 {bf16} · catalog: {match}").format(
        driver=html.escape(g.driver_version or "?"), cuda=cuda, bf16=_yes_no(g.bf16_supported), match=match)
    return f"{first}<br>{second}"


def _processes_tooltip(g: LocalGpu) -> str:
    if not g.processes:
        return ""
    rows = []
    for p in g.processes:
        used = (f"{p.used_bytes / 2**20:,.0f} MiB" if p.used_bytes is not None
                else translate("LocalGpus", "memory not reported"))
        name = p.name or translate("LocalGpus", "(name not readable)")
        rows.append(translate("LocalGpus", "{name} — pid {pid}, {used}").format(name=html.escape(name), pid=p.pid, used=used))
    return translate("LocalGpus", "Processes on this GPU:") + "<br>" + "<br>".join(rows)


# ---------------------------------------------------------------------------------------- controller


@dataclass(frozen=True)
class LocalCard:
    """One card in the "Your GPUs" list: a detected one, or the hand-entered one (``manual`` set)."""

    key: str
    gpu: LocalGpu
    spec: GpuSpec | None
    manual: ManualGpu | None = None

    @property
    def title(self) -> str:
        """``RTX 4090`` (with ``GPU 0:`` for detected cards)."""
        prefix = "" if self.manual is not None else f"GPU {self.gpu.index}: "
        return prefix + short_name(self.gpu.name)


@dataclass(frozen=True)
class LocalPlan:
    """The current plan on the selected local card(s), as the views need it.

    ``memory`` is the estimate on ``card`` (the smallest selected card); ``free_gib`` is the least
    free memory among the selected cards, on ``free_card`` (``None`` when not known, e.g. a
    hand-entered card);
    ``can_use`` whether "Use this card for the plan" can build a GPU the estimator can time.
    """

    card: LocalCard
    count: int
    memory: MemoryEstimate
    verdict: str
    fits: bool
    fits_free_now: bool | None
    total_gib: float
    free_gib: float | None
    can_use: bool
    free_card: LocalCard | None = None


def _card_key(gpu: LocalGpu) -> str:
    return gpu.uuid or f"index:{gpu.index}"


class LocalGpuController(QObject):
    """State of "Your GPUs": probe result, hand-entered card, selection, and the local estimate.

    Signals:
        cards_changed(): the card list, the probe status or the settings message changed.
        plan_changed(object): a new :class:`LocalPlan`, or ``None`` when no card counts.

    Args:
        store: the app's store; the local estimate follows its scenario.
        settings_root: data folder holding settings.json (``None``: the user data folder).
    """

    cards_changed = Signal()
    plan_changed = Signal(object)

    def __init__(
        self, store: AppStore, settings_root: Path | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.settings_root = settings_root
        loaded = load_local_gpu_settings(settings_root)
        self.settings: LocalGpuSettings = loaded.settings
        self.settings_message: str | None = loaded.message
        self.probe_result: ProbeResult | None = None
        self.reading = False
        self._cards: list[LocalCard] = []
        self._deselected: set[str] = set(self.settings.ignored_uuids)
        self._plan: LocalPlan | None = None
        self._rebuild_cards()
        store.result_changed.connect(lambda _r: self.recompute())
        self.recompute()

    # ------------------------------------------------------------------ state
    @property
    def cards(self) -> list[LocalCard]:
        """Detected cards (in NVML order), then the hand-entered one when it is listed."""
        return list(self._cards)

    @property
    def plan(self) -> LocalPlan | None:
        """The local estimate and verdict, or None when no card counts."""
        return self._plan

    def is_selected(self, key: str) -> bool:
        """Whether the card with this key counts for the local verdict."""
        return key not in self._deselected

    def selected_cards(self) -> list[LocalCard]:
        """The listed cards that count and whose memory is known."""
        return [c for c in self._cards if c.spec is not None and self.is_selected(c.key)]

    @property
    def detected(self) -> bool:
        """Whether the probe found at least one GPU."""
        return bool(self.probe_result and self.probe_result.status == "ok" and self.probe_result.gpus)

    # ------------------------------------------------------------------ inputs
    def set_reading(self) -> None:
        """A probe has started."""
        self.reading = True
        self.cards_changed.emit()

    def set_probe_result(self, result: ProbeResult) -> None:
        """A probe finished: list its cards (keeping the user's ticks) and recompute."""
        self.reading = False
        self.probe_result = result
        self._rebuild_cards()
        self.recompute()

    def set_selected(self, key: str, selected: bool) -> None:
        """Tick or untick a card; unticked detected cards are remembered by UUID across restarts."""
        if selected == self.is_selected(key):
            return
        if selected:
            self._deselected.discard(key)
        else:
            self._deselected.add(key)
        uuids = sorted(k for k in self._deselected if k != MANUAL_KEY and not k.startswith("index:"))
        if uuids != sorted(self.settings.ignored_uuids):
            self._save(self.settings.model_copy(update={"ignored_uuids": uuids}))
        self.recompute()  # the list itself is unchanged: rebuilding it would take the focus away

    def save_manual(self, manual: ManualGpu | None, alongside: bool | None = None) -> str | None:
        """Save (or with ``None`` remove) the hand-entered card; returns an error sentence or None."""
        update: dict[str, object] = {"manual": manual}
        if alongside is not None:
            update["manual_alongside"] = alongside
        error = self._save(self.settings.model_copy(update=update))
        self._deselected.discard(MANUAL_KEY)
        self._rebuild_cards()
        self.recompute()
        return error

    def _save(self, settings: LocalGpuSettings) -> str | None:
        # The change applies for this session even when the file can't be written.
        self.settings = settings
        try:
            save_local_gpu_settings(settings, self.settings_root)
        except SettingsSaveError as exc:
            log.warning("%s", exc)
            self.settings_message = str(exc)
            self.cards_changed.emit()
            return str(exc)
        self.settings_message = None
        return None

    # ------------------------------------------------------------------ derived
    def _rebuild_cards(self) -> None:
        cards: list[LocalCard] = []
        if self.probe_result is not None:
            for g in self.probe_result.gpus:
                cards.append(LocalCard(_card_key(g), g, probed_gpu_spec(g)))
        manual = self.settings.manual
        if manual is not None and (not cards or self.settings.manual_alongside):
            cards.append(LocalCard(MANUAL_KEY, manual_as_local(manual), manual_gpu_spec(manual), manual))
        self._cards = cards
        self.cards_changed.emit()

    def recompute(self) -> None:
        """Estimate the plan on the smallest selected card and emit :attr:`plan_changed`."""
        selected = self.selected_cards()
        if not selected:
            self._set_plan(None)
            return
        card = min(selected, key=lambda c: c.spec.memory_gib if c.spec else 0.0)
        assert card.spec is not None
        with_free = [c for c in selected if c.gpu.memory_free_bytes is not None and c.gpu.memory_total_bytes]
        busiest = min(with_free, key=lambda c: c.gpu.memory_free_bytes or 0) if with_free else None
        s = self.store.scenario
        try:
            memory, _ = estimate_memory(s.model, s.training, card.spec, s.dataset)
            mb = seq = None
            if not memory.fits:
                mb = max_micro_batch(s, card.spec)
                seq = max_seq_len(s, card.spec)
        except ValueError:
            log.exception("local estimate failed")
            self._set_plan(None)
            return
        verdict = local_verdict(
            memory,
            card.gpu,
            count=len(selected),
            busiest=busiest.gpu if busiest else None,
            micro_batch_limit=mb,
            seq_len_limit=seq,
            plan_gpus=s.training.num_gpus,
            bf16_wanted=s.training.precision == "bf16",
        )
        free = busiest.gpu.memory_free_bytes if busiest else None
        can_use = bool(card.spec.peak_tflops > 0)
        self._set_plan(
            LocalPlan(
                card=card,
                count=len(selected),
                memory=memory,
                verdict=verdict,
                fits=memory.fits,
                fits_free_now=None if free is None else memory.total_bytes <= free,
                total_gib=card.spec.memory_gib,
                free_gib=None if free is None else free / GIB,
                can_use=can_use,
                free_card=busiest,
            )
        )

    def _set_plan(self, plan: LocalPlan | None) -> None:
        self._plan = plan
        self.plan_changed.emit(plan)

    # ------------------------------------------------------------------ actions
    def use_for_plan(self) -> bool:
        """Make the plan's GPU the local card: its catalog GPU with the card's real memory, or its custom spec."""
        plan = self._plan
        if plan is None or not plan.can_use or plan.card.spec is None:
            return False
        spec = plan.card.spec
        catalog_id = plan.card.gpu.catalog_id
        # your own card is billed as electricity at its power limit (the catalog's board power when NVML gave none)
        own: dict[str, object] = {"pricing.own_gpu": True, "pricing.gpu_power_w": plan.card.gpu.power_limit_w}
        if catalog_id:
            if not self.store.set_gpu(catalog_id):
                return False
            current = self.store.scenario.gpu
            updates = {f"gpu.{k}": v for k, v in spec.model_dump().items() if getattr(current, k) != v}
            offers = self.store.prices.prices_for_gpu(catalog_id)
            if offers:  # the same run rented on the cheapest offer for this card, for comparison
                rented = catalog.pricing_from_entry(offers[0])
                for key in ("provider", "offer_kind", "price_per_gpu_hour", "price_date", "billing",
                            "minimum_billed_minutes", "storage_kind", "storage_usd_per_gb_month", "egress_usd_per_gb"):
                    own[f"pricing.{key}"] = getattr(rented, key)
            return self.store.set_fields({**updates, **own}, error_field="gpu")
        return self.store.set_fields({**{f"gpu.{k}": v for k, v in spec.model_dump().items()}, **own},
                                     error_field="gpu")

    def bind_chart(self, chart: VramChart) -> None:
        """Keep ``chart`` (a :class:`~tuneplan.ui.charts.VramChart`) showing the local card's lines."""

        def show(plan: LocalPlan | None) -> None:
            if plan is None:
                chart.set_local_capacity(None, None)
                return
            free_on = plan.free_card.gpu.name if plan.free_card and plan.free_card is not plan.card else ""
            chart.set_local_capacity(
                plan.total_gib,
                plan.free_gib,
                self.tr("Your {name}").format(name=short_name(plan.card.gpu.name)),
                free_label=self.tr("your {name}").format(name=short_name(free_on)) if free_on else "",
            )

        self.plan_changed.connect(show)
        show(self._plan)


# ---------------------------------------------------------------------------------------- widgets


def _muted_label(text: str = "") -> QLabel:
    label = QLabel(text)
    label.setStyleSheet(MUTED)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class _CardRow(QWidget):
    """A card in the list: a "counts" check box with the card's name, and its details below."""

    def __init__(self, card: LocalCard, selected: bool, on_toggle: Callable[[str, bool], None]) -> None:
        super().__init__()
        col = QVBoxLayout(self)
        col.setContentsMargins(0, 2, 0, 2)
        col.setSpacing(0)
        self.key = card.key
        self.check = QCheckBox(card.title + (self.tr("  (entered by hand)") if card.manual is not None else ""))
        font = self.check.font()
        font.setBold(True)
        self.check.setFont(font)
        self.check.setChecked(selected and card.spec is not None)
        self.check.setEnabled(card.spec is not None)
        self.check.setAccessibleName(self.tr("Count {card}").format(card=card.title))
        self.check.setToolTip(
            self.tr("Counts for “Your GPU” verdict: with several ticked, the smallest one decides")
            if card.spec is not None
            else self.tr("Its memory could not be read, so it cannot count")
        )
        self.check.toggled.connect(lambda on: on_toggle(card.key, on))
        self.details = _muted_label(card_details(card))
        self.details.setContentsMargins(22, 0, 0, 0)
        self.details.setAccessibleName(self.tr("{card} details").format(card=card.title))
        self.details.setToolTip(_processes_tooltip(card.gpu))
        col.addWidget(self.check)
        col.addWidget(self.details)


class LocalGpuPanel(FieldPanel):
    """The "Your GPUs" panel: detected cards with a "counts" tick each, Refresh, and a card entered by hand.

    Display and input only: the :attr:`controller` (a :class:`LocalGpuController`) holds the state.
    The main window runs the probe and calls :meth:`set_busy` / :meth:`show_result`; Refresh
    emits :attr:`refresh_requested`.
    """

    refresh_requested = Signal()

    def __init__(
        self, store: AppStore, parent: QWidget | None = None, *, controller: LocalGpuController | None = None
    ) -> None:
        super().__init__(self.tr("Your GPUs"), store, parent)
        self.controller = controller if controller is not None else LocalGpuController(store, parent=self)
        body = QWidget()
        col = QVBoxLayout(body)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(4)
        self.status = _muted_label(translate("LocalGpus", READING))
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # the driver's words, which may quote GPU names
        self.status.setAccessibleName(self.tr("Local GPUs"))
        col.addWidget(self.status)
        self.cards_box = QWidget()
        self.cards_layout = QVBoxLayout(self.cards_box)
        self.cards_layout.setContentsMargins(0, 0, 0, 0)
        self.cards_layout.setSpacing(2)
        col.addWidget(self.cards_box)
        self.rows: dict[str, _CardRow] = {}
        self.settings_message = QLabel()
        self.settings_message.setTextFormat(Qt.TextFormat.PlainText)  # quotes the settings file's path
        self.settings_message.setWordWrap(True)
        self.settings_message.setStyleSheet(f"color: {WARN};")
        self.settings_message.setAccessibleName(self.tr("Settings problem"))
        self.settings_message.hide()
        col.addWidget(self.settings_message)

        buttons = QHBoxLayout()
        self.manual_toggle = QPushButton(self.tr("Enter a card by hand…"))
        self.manual_toggle.setCheckable(True)
        self.manual_toggle.setAccessibleName(self.tr("Enter a card by hand"))
        self.manual_toggle.setToolTip(self.tr("For GPUs the NVIDIA driver can't report: Apple, AMD, a remote machine"))
        self.manual_toggle.toggled.connect(self._show_manual_form)
        buttons.addWidget(self.manual_toggle)
        buttons.addStretch(1)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.setAccessibleName(self.tr("Refresh local GPUs"))
        self.refresh_button.setToolTip(self.tr("Ask the NVIDIA driver again (free memory changes as programs run)"))
        self.refresh_button.clicked.connect(self.refresh_requested)
        buttons.addWidget(self.refresh_button)
        col.addLayout(buttons)

        self.manual_form = self._build_manual_form()
        self.manual_form.hide()
        col.addWidget(self.manual_form)
        self.form.addRow(body)
        self._build_electricity_fields()

        self.controller.cards_changed.connect(self._redraw)
        self._redraw()
        self._fill_manual_form(self.controller.settings.manual)

    # ------------------------------------------------------------------ electricity (issue #19)
    def _build_electricity_fields(self) -> None:
        """Own GPUs are billed as electricity: the switch, the tariff (USD/kWh) and the rest of the machine (W)."""
        self.own_gpu_check = self.add_check(
            "pricing.own_gpu", self.tr("My own GPUs: bill the plan as electricity"),
            tip=self.tr("Board power × hours × your electricity price, with no rental, storage or egress; the cost "
                        "shows what the same run would cost rented"))
        tariff = DoubleSpinBox()
        tariff.setDecimals(3)
        tariff.setRange(0, 100)
        tariff.setSingleStep(0.01)
        tariff.setPrefix("$ ")
        tariff.setSuffix(" " + self.tr("per kWh"))
        tariff.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.tariff_spin = tariff
        self._add("pricing.electricity_usd_per_kwh", self.tr("Electricity price"), tariff,
                  lambda v: tariff.setValue(0.0 if v is None else float(v)),
                  tip=self.tr("What you pay per kWh (your bill's energy rate, USD)"))
        tariff.valueChanged.connect(lambda v: self.store.set_field("pricing.electricity_usd_per_kwh", float(v)))
        self.host_watts_spin = self.add_float(
            "pricing.host_power_w", self.tr("Rest of the machine"), 0, 1_000_000, decimals=0, step=10, suffix="W",
            tip=self.tr("Optional: what the CPU, memory, drives and fans draw while training (0 leaves it out)"))

    def update_enabled(self, scenario: Scenario) -> None:
        """The tariff and the machine's watts only count for own GPUs."""
        own = scenario.pricing.own_gpu
        self.set_enabled("pricing.electricity_usd_per_kwh", own, self.tr("Only for your own GPUs"))
        self.set_enabled("pricing.host_power_w", own, self.tr("Only for your own GPUs"))

    # ------------------------------------------------------------------ the hand-entry form
    def _build_manual_form(self) -> QFrame:
        frame = QFrame()
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        form = QFormLayout(frame)
        form.setContentsMargins(8, 6, 8, 6)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.copy_combo = ComboBox()
        self.copy_combo.setAccessibleName(self.tr("Copy from catalog card"))
        self.copy_combo.setToolTip(self.tr("Start from a catalog card: its memory and throughput fill the fields"))
        self.copy_combo.addItem(self.tr("(none — type it in)"), "")
        for g in catalog.list_gpus():
            self.copy_combo.addItem(f"{g.name}  ·  {fmt_capacity(g.memory_gib)}", g.id)
        self.copy_combo.activated.connect(self._on_copy)
        form.addRow(self.tr("Copy from:"), self.copy_combo)
        self.manual_name = QLineEdit()
        self.manual_name.setMaxLength(100)
        self.manual_name.setPlaceholderText(self.tr("e.g. Apple M3 Max, Radeon RX 7900 XTX"))
        self.manual_name.setAccessibleName(self.tr("Card name"))
        form.addRow(self.tr("Name:"), self.manual_name)
        self.manual_memory = DoubleSpinBox()
        self.manual_memory.setRange(0, 100_000)
        self.manual_memory.setDecimals(1)
        self.manual_memory.setSuffix(" GiB")
        self.manual_memory.setAccessibleName(self.tr("Card memory in GiB"))
        self.manual_memory.setToolTip(self.tr(
            "Memory a training job can fill (on Apple silicon: what the GPU may use of the unified memory)"
        ))
        form.addRow(self.tr("Memory:"), self.manual_memory)
        self.manual_tflops = DoubleSpinBox()
        self.manual_tflops.setRange(0, 100_000)
        self.manual_tflops.setDecimals(1)
        self.manual_tflops.setSpecialValueText(self.tr("unknown"))
        self.manual_tflops.setSuffix(" TFLOPS")
        self.manual_tflops.setAccessibleName(self.tr("Dense BF16 TFLOPS (optional)"))
        self.manual_tflops.setToolTip(self.tr(
            "Optional: dense BF16 tensor throughput (no sparsity); needed to plan time on a card not in the catalog"
        ))
        form.addRow(self.tr("BF16 (dense):"), self.manual_tflops)
        self.manual_alongside = QCheckBox(self.tr("Also list it next to detected GPUs"))
        self.manual_alongside.setAccessibleName(self.tr("List the hand-entered card next to detected GPUs"))
        form.addRow("", self.manual_alongside)
        row = QHBoxLayout()
        self.manual_save = QPushButton(self.tr("Save card"))
        self.manual_save.setAccessibleName(self.tr("Save the hand-entered card"))
        self.manual_save.clicked.connect(self.save_manual)
        self.manual_remove = QPushButton(self.tr("Remove"))
        self.manual_remove.setAccessibleName(self.tr("Remove the hand-entered card"))
        self.manual_remove.clicked.connect(self.remove_manual)
        row.addStretch(1)
        row.addWidget(self.manual_remove)
        row.addWidget(self.manual_save)
        form.addRow(row)
        self.manual_error = QLabel()
        self.manual_error.setTextFormat(Qt.TextFormat.PlainText)  # quotes OS errors and file paths
        self.manual_error.setWordWrap(True)
        self.manual_error.setStyleSheet(f"color: {ERROR_COLOR};")
        self.manual_error.setAccessibleName(self.tr("Hand-entered card error"))
        self.manual_error.hide()
        form.addRow(self.manual_error)
        return frame

    def _show_manual_form(self, on: bool) -> None:
        self.manual_form.setVisible(on)
        self.manual_toggle.setText(self.tr("Hide hand entry") if on else self.tr("Enter a card by hand…"))

    def _on_copy(self, index: int) -> None:
        gpu_id = self.copy_combo.itemData(index)
        if not gpu_id:
            return
        g = catalog.get_gpu(gpu_id)
        self.manual_name.setText(g.name)
        self.manual_memory.setValue(g.memory_gib)
        self.manual_tflops.setValue(g.bf16_tflops if g.bf16_supported else g.fp16_tflops)

    def _fill_manual_form(self, manual: ManualGpu | None) -> None:
        self.manual_remove.setEnabled(manual is not None)
        self.manual_alongside.setChecked(self.controller.settings.manual_alongside)
        if manual is None:
            return
        self.manual_name.setText(manual.name)
        self.manual_memory.setValue(manual.memory_gib)
        self.manual_tflops.setValue(manual.bf16_tflops or 0.0)
        index = self.copy_combo.findData(manual.catalog_id or "")
        self.copy_combo.setCurrentIndex(max(0, index))

    def save_manual(self) -> bool:
        """Validate the hand-entry form and save the card in the settings; errors show under the form."""
        catalog_id = self.copy_combo.currentData() or None
        try:
            manual = ManualGpu(
                name=self.manual_name.text(),
                memory_gib=self.manual_memory.value(),
                bf16_tflops=self.manual_tflops.value() or None,
                catalog_id=catalog_id,
            )
        except ValidationError as exc:
            where = {"name": self.tr("Name"), "memory_gib": self.tr("Memory"), "bf16_tflops": "BF16 TFLOPS"}
            err = exc.errors()[0]
            field = where.get(str(err["loc"][0]) if err.get("loc") else "", "")
            why = {"string_too_short": self.tr("is needed"), "greater_than": self.tr("must be more than 0")}.get(
                err["type"], err["msg"]
            )
            self.manual_error.setText(self.tr("Not saved — {field} {why}").format(field=field, why=why).strip())
            self.manual_error.show()
            return False
        error = self.controller.save_manual(manual, self.manual_alongside.isChecked())
        self.manual_remove.setEnabled(True)
        if error:
            self.manual_error.setText(self.tr("{error} It is used until you close Tuneplan.").format(error=error))
            self.manual_error.show()
            return False
        self.manual_error.hide()
        return True

    def remove_manual(self) -> None:
        """Forget the hand-entered card."""
        self.controller.save_manual(None)
        self.manual_name.clear()
        self.manual_memory.setValue(0)
        self.manual_tflops.setValue(0)
        self.copy_combo.setCurrentIndex(0)
        self.manual_remove.setEnabled(False)
        self.manual_error.hide()

    # ------------------------------------------------------------------ main window interface
    def set_busy(self) -> None:
        """A probe is running: say so and disable Refresh."""
        self.controller.set_reading()

    def show_result(self, result: ProbeResult) -> None:
        """A probe finished: list its cards, or say in plain words why there are none."""
        self.controller.set_probe_result(result)
        if not self.controller.detected and self.controller.settings.manual is None:
            self.manual_toggle.setChecked(True)  # nothing to compare with yet: offer the form

    def text(self) -> str:
        """Everything the panel says, as plain text (for tests and screen readers)."""
        parts = [self.status.text()]
        for row in self.rows.values():
            parts += [row.check.text(), row.details.text().replace("<br>", "\n")]
        if self.settings_message.isVisible() or self.settings_message.text():
            parts.append(self.settings_message.text())
        return "\n".join(p for p in parts if p)

    # ------------------------------------------------------------------ drawing
    def _redraw(self) -> None:
        c = self.controller
        self.refresh_button.setEnabled(not c.reading)
        result = c.probe_result
        if c.reading or result is None:
            self.status.setText(translate("LocalGpus", READING))
            self.status.setToolTip("")
        elif result.status == "ok" and result.gpus:
            tick = self.tr(" — tick the ones that count") if len(c.cards) > 1 else ""
            self.status.setText(probe_message(result, core_note_text) + tick)
        else:  # with a hand-entered card, it stands in
            self.status.setText(probe_message(result, core_note_text, by_hand=bool(c.cards)))
        if result is not None and not c.reading:
            tips = [*result.notes, result.detail or ""]
            self.status.setToolTip(plain_tooltip("\n".join(t for t in tips if t)))
        for row in self.rows.values():
            self.cards_layout.removeWidget(row)
            row.deleteLater()
        self.rows = {}
        for card in c.cards:
            row = _CardRow(card, c.is_selected(card.key), c.set_selected)
            self.rows[card.key] = row
            self.cards_layout.addWidget(row)
        self.cards_box.setVisible(bool(self.rows))
        self.settings_message.setText(c.settings_message or "")
        self.settings_message.setVisible(bool(c.settings_message))
        self.manual_alongside.setVisible(c.detected)


class LocalVerdictView(QFrame):
    """The local verdict under the VRAM chart, with "Use this card for the plan".

    One row when there is room; on a narrow window the button moves under the sentence, so the
    sentence is not squeezed into a tall column.
    """

    WIDE = 760

    def __init__(self, controller: LocalGpuController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setObjectName("summary")
        self.setAccessibleName(self.tr("Your GPU verdict"))
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(12, 6, 8, 6)
        self.grid.setHorizontalSpacing(10)
        self.grid.setVerticalSpacing(4)
        self.title = QLabel(self.tr("Your GPU"))
        self.title.setStyleSheet("color: #555555; font-weight: 600;")
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # names the driver's or the user's card
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setAccessibleName(self.tr("Your GPU verdict text"))
        self.use_button = QPushButton(self.tr("Use this card for the plan"))
        self.use_button.setAccessibleName(self.tr("Use this card for the plan"))
        self.use_button.clicked.connect(controller.use_for_plan)
        self.grid.addWidget(self.title, 0, 0, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.grid.addWidget(self.label, 0, 1)
        self.grid.setColumnStretch(1, 1)
        self._wide: bool | None = None
        self._place(True)
        controller.plan_changed.connect(self.show_plan)
        controller.cards_changed.connect(lambda: self.show_plan(controller.plan))
        self.show_plan(controller.plan)

    def _place(self, wide: bool) -> None:
        if wide == self._wide:
            return
        self._wide = wide
        self.grid.removeWidget(self.use_button)
        if wide:
            self.grid.addWidget(self.use_button, 0, 2, Qt.AlignmentFlag.AlignVCenter)
        else:
            self.grid.addWidget(self.use_button, 1, 1, Qt.AlignmentFlag.AlignRight)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """Button beside the sentence, or under it when narrow."""
        self._place(event.size().width() >= self.WIDE)
        super().resizeEvent(event)

    def show_plan(self, plan: LocalPlan | None) -> None:
        """Show the sentence (green: fits now; amber: fits but not with what is free; red: too small)."""
        c = self.controller
        if plan is None:
            if c.reading or c.probe_result is None:
                text = translate("LocalGpus", READING)
            elif c.cards:
                text = self.tr("No card counts — tick one under “Your GPUs”.")
            else:
                text = self.tr("No local GPU to compare with — enter your card by hand under “Your GPUs”.")
            self.label.setText(text)
            self.label.setStyleSheet(MUTED)
            self.use_button.hide()
            return
        color = GOOD if plan.fits and plan.fits_free_now is not False else WARN if plan.fits else BAD
        sentence = plan.verdict[:1].upper() + plan.verdict[1:]
        self.label.setText(sentence)
        self.label.setStyleSheet(f"color: {color}; font-weight: 600;")
        self.use_button.show()
        self.use_button.setEnabled(plan.can_use)
        self.use_button.setToolTip(
            plain_tooltip(self.tr("Plan on the {name} with its {memory} GiB").format(
                name=short_name(plan.card.gpu.name), memory=fmt_number(plan.total_gib, 2, group=False)))
            if plan.can_use
            else self.tr("Not in the catalog and no BF16 TFLOPS known: enter the card by hand with its TFLOPS "
                         "to time the plan on it")
        )
