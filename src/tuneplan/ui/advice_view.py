"""What would make it fit: ranked suggestions with their effect, one click to apply (issue #8).

:class:`AdviceController` listens to the store's ``result_changed`` and, on a 0 ms timer (so a
burst of edits costs one run), asks :func:`tuneplan.core.advice.suggest` for the single changes
that save memory, with the catalog GPUs as "larger GPU" candidates. Each suggestion was
evaluated by the full estimate; a "use a larger GPU" suggestion is re-priced the way
:meth:`AppStore.set_gpu` will price it (the GPU's default offer unless the price is the user's
own), so the cost change shown is the one the click produces. It emits an :class:`AdviceState`.

:class:`AdviceView` (in the Plan tab, under the headline cards) shows it when the plan does not
fit, fits with less than :data:`TIGHT_SHARE` of the GPU spare, or fits while its likely range (the
measured error, ``MemoryEstimate.band_risk``) reaches past the card: per suggestion the new device
total (and what it saves), fits ✓/✗ with the range's word when it disagrees (tight, unlikely, may fit),
the change in time and cost, and an Apply button that goes through the store (``set_fields`` for
dotted paths, ``set_gpu`` for a GPU). Suggestions whose whole range fits rank first.
"""

from __future__ import annotations

import html
import logging
import time
from dataclasses import dataclass, field

from pydantic import ValidationError
from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from tuneplan import catalog
from tuneplan.core.advice import Suggestion, apply_changes, rank_key, suggest
from tuneplan.core.estimate import estimate
from tuneplan.core.result import GIB, Estimate
from tuneplan.core.scenario import GpuSpec, Scenario
from tuneplan.core.terms import Note, render_note
from tuneplan.ui.i18n import plain_tooltip, plain_usd, suggestion_detail, suggestion_title
from tuneplan.ui.store import AppStore
from tuneplan.ui.theme import mark_self_themed, themed

__all__ = ["TIGHT_SHARE", "AdviceController", "AdviceState", "AdviceView", "install_advice"]

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

log = logging.getLogger(__name__)

#: Below this share of the GPU's memory spare, a fitting plan is "tight" and advice is shown too:
#: the estimate's measured error is of this order (docs/accuracy.md).
TIGHT_SHARE = 0.10

#: Suggestions shown before "Show all".
SHOWN = 4

GOOD = "#2e7d32"
WARN = "#8a5a00"  # fits by the estimate, the likely range reaches past the card (as the verdict)
BAD = "#c62828"
MUTED = "#666666"


@dataclass(frozen=True)
class AdviceState:
    """What the advice view shows for one plan.

    Attributes:
        scenario, result: the plan and its estimate.
        suggestions: ranked, best first (fits, then cheapest, then most memory saved).
        show: whether the plan needs advice (does not fit, or under :data:`TIGHT_SHARE` spare).
        elapsed_ms: how long computing the suggestions took.
    """

    scenario: Scenario
    result: Estimate
    suggestions: list[Suggestion] = field(default_factory=list)
    show: bool = False
    elapsed_ms: float = 0.0

    @property
    def tight(self) -> bool:
        """Fits, but with less than :data:`TIGHT_SHARE` of the GPU spare."""
        return self.show and self.result.memory.fits


def needs_advice(result: Estimate) -> bool:
    """Whether a plan with this estimate gets suggestions: it does not fit, it is tight (under
    :data:`TIGHT_SHARE` spare), or its likely range reaches past the card."""
    mem = result.memory
    return (not mem.fits or mem.headroom_bytes < TIGHT_SHARE * mem.capacity_bytes
            or mem.band_risk in {"tight", "unlikely"})


class AdviceController(QObject):
    """Computes suggestions after each estimate (debounced) and applies one through the store.

    Signals:
        advice_changed(AdviceState): new suggestions (or ``show`` False when none are needed).

    Args:
        store: the app's store.
        gpus: candidate GPUs for "use a larger GPU" (default: the catalog).
    """

    advice_changed = Signal(object)

    def __init__(
        self, store: AppStore, gpus: list[GpuSpec] | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.store = store
        self.gpus = list(gpus) if gpus is not None else catalog.list_gpus()
        self.state: AdviceState | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(0)
        self._timer.timeout.connect(self.compute_now)
        store.result_changed.connect(self.schedule)

    def schedule(self, *_args: object) -> None:
        """Recompute once the current burst of edits is over (0 ms timer)."""
        self._timer.start()

    def compute_now(self) -> AdviceState:
        """Compute the suggestions for the store's plan now and emit :attr:`advice_changed`."""
        self._timer.stop()
        s, r = self.store.scenario, self.store.result
        started = time.perf_counter()
        show = needs_advice(r)
        suggestions: list[Suggestion] = []
        if show:
            try:
                suggestions = [self._as_applied(g, s, r) for g in suggest(s, self.gpus, r)]
            except ValueError:  # a plan the estimator cannot time (e.g. GPU without TFLOPS)
                log.exception("advice failed")
            suggestions.sort(key=rank_key)
        elapsed = (time.perf_counter() - started) * 1000
        log.debug("advice: %d suggestions in %.1f ms", len(suggestions), elapsed)
        self.state = AdviceState(s, r, suggestions, show, elapsed)
        self.advice_changed.emit(self.state)
        return self.state

    def _as_applied(self, g: Suggestion, s: Scenario, base: Estimate) -> Suggestion:
        """The suggestion with time and cost as applying it through the store will give them."""
        gpu = g.changes.get("gpu")
        if not isinstance(gpu, dict) or "id" not in gpu:
            return g
        try:
            update = self.store.gpu_update(str(gpu["id"]))
        except KeyError:
            return g
        changes = {"gpu": update["gpu"].model_dump()}
        if "pricing" in update:
            changes["pricing"] = update["pricing"]
        try:
            changed = apply_changes(s, changes)
            after = estimate(changed)
        except (ValidationError, ValueError):
            return g
        price = Note(code="advice.priced_at", params={"price": changed.pricing.price_per_gpu_hour,
                                                      "provider": changed.pricing.provider})
        return g.model_copy(
            update={
                "detail": f"{g.detail} {render_note(price)}",
                "reasons": [*g.reasons, price],
                "hours_delta": after.time.hours - base.time.hours,
                "usd_delta": after.cost.total_usd - base.cost.total_usd,
                "fits": after.memory.fits,
                "band_risk": after.memory.band_risk,
            }
        )

    def apply(self, suggestion: Suggestion) -> bool:
        """Apply a suggestion through the store; returns whether the store accepted it."""
        changes = dict(suggestion.changes)
        gpu = changes.pop("gpu", None)
        ok = True
        if isinstance(gpu, dict) and "id" in gpu:
            ok = self.store.set_gpu(str(gpu["id"]))
        if ok and changes:
            ok = self.store.set_fields(changes)
        return ok


# ---------------------------------------------------------------------------------------- formatting
def _signed_hours(hours: float) -> str:
    if abs(hours) < 1 / 120:  # under 30 s
        return translate("Advice", "same time")
    sign = "+" if hours > 0 else "−"
    h = abs(hours)
    if h < 1:
        return sign + translate("Units", "{n} min").format(n=f"{h * 60:.0f}")
    return sign + translate("Units", "{n} h").format(n=f"{h:.1f}")


def _signed_usd(usd: float) -> str:
    if abs(usd) < 0.005:
        return translate("Advice", "same cost")
    return ("+" if usd > 0 else "−") + plain_usd(abs(usd))


# ---------------------------------------------------------------------------------------- widgets
class _Row:
    """The widgets of one suggestion: its title on one line, its effect in aligned columns below.

    Rows are reused from plan to plan (only their texts change), so an edit costs no re-layout.
    """

    def __init__(self, view: AdviceView) -> None:
        self.suggestion: Suggestion | None = None
        self.rank = QLabel()
        self.title = QLabel()
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.title.setWordWrap(True)
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.total = QLabel()
        self.total.setToolTip(translate("Advice", "Device total per GPU after this change (what must fit)"))
        self.saved = QLabel()
        self.saved.setStyleSheet(f"color: {MUTED};")
        self.fits = QLabel()
        self.time = QLabel()
        self.time.setToolTip(translate("Advice", "Change of the run's wall-clock time"))
        self.cost = QLabel()
        self.cost.setToolTip(translate("Advice", "Change of the expected cost of one completed run"))
        self.button = QPushButton(translate("Advice", "Apply"))
        self.button.clicked.connect(
            lambda _c=False: self.suggestion is not None and view.apply(self.suggestion)
        )
        for w in (self.total, self.saved, self.time, self.cost):
            w.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        # on a narrow window ("saves 0.5 GiB", "✓ fits · tight", "same time" side by side need 546 px; the Plan tab
        # has 506 at 1024x640) a cell goes to two lines instead of the whole tab scrolling sideways (issue #21);
        # the signed time and cost stay whole ("−$0.04", not "−" over "$0.04")
        for w in (self.saved, self.fits):
            w.setWordWrap(True)
        mark_self_themed(self.fits)

    def set(self, rank: int, g: Suggestion) -> None:
        """Show suggestion ``g`` as number ``rank``."""
        self.suggestion = g
        self.rank.setText(f"{rank}.")
        self.title.setText(suggestion_title(g))
        why = translate("Advice", "Why: {detail}").format(detail=suggestion_detail(g))
        self.title.setToolTip(plain_tooltip(why))  # may name a GPU
        self.title.setAccessibleDescription(why)
        saved = g.saved_bytes / GIB
        self.total.setText(translate("Advice", "→ {gib} GiB").format(gib=f"{g.total_bytes / GIB:.1f}"))
        if saved >= 0.05:  # the figure and its unit never apart ("saves" over "2.7 GiB" on a narrow window)
            self.saved.setText(translate("Advice", "saves {gib} GiB").format(gib=f"{saved:.1f}").replace(" GiB", "\u00a0GiB"))
        elif saved <= -0.05:
            self.saved.setText(translate("Advice", "adds {gib} GiB").format(gib=f"{-saved:.1f}").replace(" GiB", "\u00a0GiB"))
        else:
            self.saved.setText("")
        # the same words and colours as the verdict: the estimate, and where the likely range disagrees
        risk = {"tight": translate("Advice", " · tight"), "unlikely": translate("Advice", " · unlikely"),
                "possible": translate("Advice", " · may fit")}.get(g.band_risk, "")
        # wrapped on a narrow window, then only between "✓ fits" and "· tight"
        self.fits.setText(
            ("✓\u00a0" + translate("Advice", "fits") if g.fits else "✗\u00a0" + translate("Advice", "short"))
            + risk.replace("· ", "·\u00a0")
        )
        color = BAD if not g.fits else WARN if g.band_risk in {"tight", "unlikely"} else GOOD
        sheet = themed(f"color: {color}; font-weight: 600;")
        if self.fits.styleSheet() != sheet:
            self.fits.setStyleSheet(sheet)
        self.fits.setAccessibleName(
            (translate("Advice", "fits") if g.fits else translate("Advice", "does not fit")) + risk
        )
        self.fits.setToolTip(translate(
            "Advice", "tight: the upper end of the likely range (measured error) does not fit; unlikely: not even "
            "its lower end; may fit: the estimate does not fit but the lower end does") if risk else "")
        self.time.setText(_signed_hours(g.hours_delta))
        self.cost.setText(_signed_usd(g.usd_delta))
        self.button.setAccessibleName(translate("Advice", "Apply: {title}").format(title=suggestion_title(g)))
        self.button.setToolTip(plain_tooltip(translate("Advice", "Change the plan: {title}").format(
            title=suggestion_title(g))))

    def place(self, grid: QGridLayout, index: int) -> None:
        """Put the row's widgets in ``grid``: two grid rows per suggestion."""
        top = 1 + 2 * index
        grid.addWidget(self.rank, top, 0, Qt.AlignmentFlag.AlignTop)
        grid.addWidget(self.title, top, 1, 1, 6)
        for c, w in enumerate((self.total, self.saved, self.fits, self.time, self.cost), start=1):
            grid.addWidget(w, top + 1, c)
        grid.addWidget(self.button, top, 7, 2, 1, Qt.AlignmentFlag.AlignVCenter)

    def widgets(self) -> list[QWidget]:
        """The row's widgets."""
        return [self.rank, self.title, self.total, self.saved, self.fits, self.time, self.cost, self.button]

    def set_visible(self, visible: bool) -> None:
        """Show or hide the whole row."""
        for w in self.widgets():
            w.setVisible(visible)


class AdviceView(QFrame):
    """The ranked suggestions with an Apply button each; hidden while the plan fits comfortably."""

    applied = Signal(object)

    def __init__(self, controller: AdviceController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setObjectName("advicePanel")
        self.setAccessibleName(translate("Advice", "Advice"))
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum)
        col = QVBoxLayout(self)
        col.setContentsMargins(12, 8, 12, 8)
        col.setSpacing(6)
        head = QHBoxLayout()
        self.heading = QLabel()
        self.heading.setObjectName("adviceHeading")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.heading.setAccessibleName(translate("Advice", "Advice heading"))
        head.addWidget(self.heading, 1)
        self.more = QPushButton()
        self.more.setFlat(True)
        self.more.setCheckable(True)
        self.more.toggled.connect(lambda _on: self._render())
        head.addWidget(self.more, 0, Qt.AlignmentFlag.AlignTop)
        col.addLayout(head)
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(10)  # 14 px made the rows 4 px too wide for the Plan tab at 1024x640
        self.grid.setVerticalSpacing(2)
        self.grid.setColumnStretch(6, 1)
        col.addWidget(self.grid_host)
        self.headers: list[QLabel] = []
        titles = [
            "",
            translate("Advice", "New total"),
            "",
            translate("Advice", "Fits"),
            translate("Advice", "Time"),
            translate("Advice", "Cost"),
        ]
        for c, text in enumerate(titles):
            h = QLabel(text)
            h.setStyleSheet(f"color: {MUTED}; font-size: 9pt;")
            h.setAlignment(Qt.AlignmentFlag.AlignRight if c in (1, 4, 5) else Qt.AlignmentFlag.AlignLeft)
            self.grid.addWidget(h, 0, c)
            self.headers.append(h)
        self.rows: list[_Row] = []
        self.state: AdviceState | None = None
        mark_self_themed(self, self.heading)
        controller.advice_changed.connect(self.show_state)
        self.hide()

    # ------------------------------------------------------------------ rendering
    def show_state(self, state: AdviceState) -> None:
        """Show (or hide) the suggestions for a new plan."""
        self.state = state
        if not state.show:
            self.hide()
            return
        self._render()
        self.show()

    def _render(self) -> None:
        state = self.state
        if state is None:
            return
        mem, gpu = state.result.memory, state.scenario.gpu.name.removeprefix("GeForce ").strip()
        spare = mem.headroom_bytes / GIB
        if not mem.fits:
            self._set_tone("#fff4f4", "#e8b4b4")
            lead = translate(
                "Advice", "Does not fit: {need} GiB needed on the {gpu} ({cap} GiB), short by {short} GiB."
            ).format(
                need=f"{mem.total_bytes / GIB:.1f}",
                gpu=html.escape(gpu),
                cap=f"{mem.capacity_bytes / GIB:.2f}",
                short=f"{-spare:.1f}",
            )
            ask = translate("Advice", "What would make it fit, best first:")
            color = BAD
        else:
            self._set_tone("#fff8e6", "#e6cf99")
            # a fitting plan gets advice only when its likely range reaches past the card (under TIGHT_SHARE
            # spare the upper end always does: the band reaches total / 0.597)
            lead = translate(
                "Advice",
                "Tight: {spare} GiB spare on the {gpu} by the estimate, but the likely range reaches {high} GiB "
                "({cap} GiB on the card).",
            ).format(spare=f"{spare:.1f}", gpu=html.escape(gpu), high=f"{mem.high_bytes / GIB:.1f}",
                     cap=f"{mem.capacity_bytes / GIB:.2f}")
            ask = translate("Advice", "Changes that give headroom:")
            color = WARN
        if not state.suggestions:
            ask = translate("Advice", "No single change helps: try a smaller model or several GPUs.")
        self.heading.setText(themed(f"<span style='color:{color}; font-weight:600'>{lead}</span> {ask}"))
        n = len(state.suggestions)
        self.more.setVisible(n > SHOWN)
        self.more.setText(
            translate("Advice", "Show fewer")
            if self.more.isChecked()
            else translate("Advice", "Show all {n}").format(n=n)
        )
        shown = state.suggestions if self.more.isChecked() else state.suggestions[:SHOWN]
        self._fill(shown)

    def _set_tone(self, background: str, border: str) -> None:
        sheet = themed(
            f"QFrame#advicePanel {{ background: {background}; border: 1px solid {border}; "
            "border-radius: 6px; }"
        )
        if self.styleSheet() != sheet:
            self.setStyleSheet(sheet)

    def _fill(self, suggestions: list[Suggestion]) -> None:
        while len(self.rows) < len(suggestions):
            row = _Row(self)
            row.place(self.grid, len(self.rows))
            self.rows.append(row)
        for i, row in enumerate(self.rows):
            if i < len(suggestions):
                row.set(i + 1, suggestions[i])
            row.set_visible(i < len(suggestions))
        for h in self.headers:
            h.setVisible(bool(suggestions))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt naming
        """Redraw in the new theme's colours."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._render()

    # ------------------------------------------------------------------ actions
    def apply(self, suggestion: Suggestion) -> bool:
        """Apply one suggestion (the Apply buttons call this)."""
        ok = self.controller.apply(suggestion)
        if ok:
            self.applied.emit(suggestion)
        return ok


def install_advice(store: AppStore, page: QWidget, after: QWidget | None,
                   window: QMainWindow) -> tuple[AdviceController, AdviceView]:
    """Put the advice panel in the Plan tab's scrolling ``page``, right under ``after`` (the headline cards), and
    start its controller (a child of ``window``, whose status bar says what was applied). Returns
    ``(controller, view)``."""
    controller = AdviceController(store, parent=window)
    view = AdviceView(controller)
    column = page.layout()
    index = column.indexOf(after) + 1 if after is not None else 0
    column.insertWidget(index, view, 0)
    # The Plan column scrolls instead of squeezing the charts while advice is shown.
    base_height = page.minimumHeight()

    def fit_page(_state: object = None) -> None:
        # With advice shown, every chart keeps its preferred height and the page scrolls.
        page.setMinimumHeight(
            base_height if view.isHidden() else max(base_height, column.sizeHint().height())
        )

    controller.advice_changed.connect(fit_page)

    def applied(g: Suggestion) -> None:
        window.statusBar().showMessage(translate("Advice", "Applied: {title}").format(title=suggestion_title(g)), 5000)

    view.applied.connect(applied)
    controller.compute_now()
    return controller, view
