"""The main window: the plan's form on the left, what it costs on the right.

Left: a scrollable column of form panels (model, method, batch, dataset, hardware & pricing,
your GPUs). Right: a headline strip (peak memory, verdict, time, cost), the VRAM bar, the
cumulative cost chart and a text summary. Every control writes to the :class:`AppStore`; every
view redraws from the store's ``result_changed``.
"""

from __future__ import annotations

import html
import logging
import math
import re
import threading
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QGridLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from tuneplan.core import stacks
from tuneplan.core.calibration import CalibrationError
from tuneplan.core.estimate import blocking_notes
from tuneplan.core.result import GIB, Estimate
from tuneplan.core.scenario import Scenario
from tuneplan.core.terms import NOTES
from tuneplan.hw.probe import ProbeResult, probe_with_timeout
from tuneplan.storage import ScenarioFileError, paths, read_scenario_file, write_scenario_file
from tuneplan.storage.calibrations import PilotFileError, read_pilot
from tuneplan.ui import menus
from tuneplan.ui.charts import CostChart, VramChart, short_gpu_name
from tuneplan.ui.gpu_compare import install_gpu_compare
from tuneplan.ui.i18n import (
    BOUND_LABELS,
    COST_LABELS,
    PHASE_LABELS,
    SETTING_LABELS,
    VERDICT_COLORS,
    core_note_text,
    fmt_gib,
    fmt_number,
    fmt_usd,
    format_hours,
    install_language_menu,
    peak_phase_text,
    plain_message_box,
    plain_text,
    verdict_color,
    verdict_text,
)
from tuneplan.ui.local_gpus import LocalGpuPanel, LocalVerdictView
from tuneplan.ui.panels import BatchPanel, DatasetPanel, HardwarePanel, MethodPanel, ModelPanel
from tuneplan.ui.store import AppStore

__all__ = ["MainWindow", "cannot_run_reason"]

log = logging.getLogger(__name__)

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

APP_TITLE = "Tuneplan"

_STYLE = """
QWidget[invalid="true"] { border: 2px solid #c62828; border-radius: 3px; }
QAbstractSpinBox[invalid="true"] { padding-right: 18px; }
QAbstractSpinBox[invalid="true"]::up-button { subcontrol-origin: border; subcontrol-position: top right; width: 16px; }
QAbstractSpinBox[invalid="true"]::down-button { subcontrol-origin: border; subcontrol-position: bottom right; width: 16px; }
QFrame#card { background: #ffffff; border: 1px solid #dcdcdc; border-radius: 6px; }
QLabel#cardTitle { color: #666666; font-size: 9pt; }
QLabel#cardValue { font-size: 17pt; font-weight: 600; }
QLabel#cardDetail { color: #555555; font-size: 9pt; }
QFrame#summary { background: #ffffff; border: 1px solid #dcdcdc; border-radius: 6px; }
QGroupBox { font-weight: 600; margin-top: 12px; padding-top: 8px; border: 1px solid #d0d0d0; border-radius: 6px; }
QGroupBox::title { subcontrol-origin: margin; left: 10px; padding: 0 4px; }
QGroupBox > QWidget { font-weight: 400; }
"""


def _tokens(n: float) -> str:
    for suffix, scale in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            return f"{fmt_number(n / scale, 2)} {suffix}"
    return fmt_number(n, 0, group=False)




def cannot_run_reason(result: Estimate) -> str:
    """Why the plan cannot run as it is, in the UI language: it does not fit the GPU, or a plan warning names a
    combination the frameworks refuse; empty when it can run."""
    mem = result.memory
    if not mem.fits:
        return translate("MainWindow", "the GPU is short by {short}").format(
            short=fmt_gib(-mem.headroom_bytes / GIB))
    for note in blocking_notes(result):
        return core_note_text(note)
    return ""


def _slug(name: str) -> str:
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")
    return (slug or "plan")[:80]


def _export_svg(chart: QWidget, path: Path) -> None:
    """Render a chart into an SVG file with QSvgGenerator.

    pyqtgraph 0.14's ``SVGExporter`` fails on the closed paths (``... Z``) that Qt 6.12 writes,
    so the chart's scene is painted straight into an SVG generator instead (vector output).
    """
    from PySide6.QtCore import QRect
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    size = chart.size()
    gen = QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(size)
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    gen.setTitle(translate("MainWindow", "Tuneplan chart"))
    painter = QPainter()
    if not painter.begin(gen):
        raise OSError(translate("MainWindow", "cannot write the SVG file"))
    try:
        chart.render(painter)
    finally:
        painter.end()
    if not path.exists() or path.stat().st_size == 0:
        raise OSError(translate("MainWindow", "the SVG file was not written"))


class _Card(QFrame):
    """One headline number: a caption, a big value and a detail line."""

    def __init__(self, title: str) -> None:
        super().__init__()
        self.setObjectName("card")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        col = QVBoxLayout(self)
        col.setContentsMargins(12, 8, 12, 8)
        col.setSpacing(1)
        self.title = QLabel(title)
        self.title.setObjectName("cardTitle")
        self.value = QLabel("–")
        self.value.setObjectName("cardValue")
        self.value.setAccessibleName(title)
        self.detail = QLabel("")
        self.detail.setObjectName("cardDetail")
        self.detail.setWordWrap(True)
        # why the value is greyed (a plan that cannot run); hidden otherwise
        self.reason = QLabel("")
        self.reason.setObjectName("cardReason")
        self.reason.setStyleSheet("color: #c62828; font-size: 9pt; font-weight: 600;")
        self.reason.hide()
        for w in (self.title, self.value, self.detail, self.reason):
            w.setTextFormat(Qt.TextFormat.PlainText)  # the detail names the plan's GPU (untrusted)
            col.addWidget(w)
        col.addStretch(1)  # a card made taller to match its row keeps its lines together at the top
        self.strip: _CardStrip | None = None

    def needed_height(self) -> int:
        """The height its wrapped lines take at its present width (a fixed-height card would clip them)."""
        return self.layout().totalHeightForWidth(self.width())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """A new width wraps the detail into more or fewer lines: the strip sets the row's height again."""
        super().resizeEvent(event)
        if self.strip is not None and event.size().width() != event.oldSize().width():
            self.strip.fit_heights()


class _CardStrip(QWidget):
    """The headline cards: one row when there is room, two rows of two when the window is narrow.

    Each row is as tall as its card with the most wrapped lines, so no detail line is cut off; the cards
    of a row share that height, so their tops and bottoms line up.
    """

    WIDE = 780

    def __init__(self, cards: list[_Card]) -> None:
        super().__init__()
        self.cards = cards
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(8)
        self.columns = 0
        self._place(4)
        for card in cards:
            card.strip = self

    def _one_row_fits(self, width: int) -> bool:
        """Four cards side by side only when each gets its unwrapped value (e.g. "放不下，还差 34.7 GiB")."""
        needed = sum(card.minimumSizeHint().width() for card in self.cards) + 3 * self.grid.spacing()
        return width >= max(self.WIDE, needed)

    def refit(self) -> None:
        """After the cards' texts change: the row count for the new values, then the heights."""
        self._place(4 if self._one_row_fits(self.width()) else 2)
        self.grid.activate()
        self.fit_heights()

    def fit_heights(self) -> None:
        """Give each row the height its tallest card needs at the width it has now."""
        for row in range(0, len(self.cards), self.columns):
            cards = self.cards[row:row + self.columns]
            height = max(card.needed_height() for card in cards)
            for card in cards:
                if card.height() != height or card.minimumHeight() != height:
                    card.setFixedHeight(height)

    def _place(self, columns: int) -> None:
        if columns == self.columns:
            return
        self.columns = columns
        for card in self.cards:
            self.grid.removeWidget(card)
        for c in range(4):
            self.grid.setColumnStretch(c, 0)
        for i, card in enumerate(self.cards):
            self.grid.addWidget(card, i // columns, i % columns)
        for c in range(columns):
            self.grid.setColumnStretch(c, 3 if c < 2 and columns == 4 else 2)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """Switch between one and two rows."""
        self._place(4 if self._one_row_fits(event.size().width()) else 2)
        super().resizeEvent(event)

    def minimumSizeHint(self):  # noqa: N802 - Qt naming
        """Narrow enough for two columns; the height follows the layout."""
        hint = super().minimumSizeHint()
        widest = max(card.minimumSizeHint().width() for card in self.cards)
        hint.setWidth(min(hint.width(), 2 * widest + self.grid.spacing()))
        return hint


class MainWindow(QMainWindow):
    """Tuneplan's main window.

    Args:
        store: the app's :class:`AppStore`; a new one on the default scenario if omitted.
        probe: the local-GPU probe to run off the GUI thread (``probe_with_timeout`` by default).
    """

    probe_finished = Signal(object)

    def __init__(self, store: AppStore | None = None, probe: Callable[[], ProbeResult] | None = None) -> None:
        super().__init__()
        self.store = store if store is not None else AppStore(parent=self)
        self.probe = probe if probe is not None else probe_with_timeout
        self.path: Path | None = None
        self.documents = None  # the LibraryController (ui.library_view) once installed
        self._probe_running = False
        self.setStyleSheet(_STYLE)

        # ---------------------------------------------------------------- left: the form
        self.model_panel = ModelPanel(self.store)
        self.method_panel = MethodPanel(self.store)
        self.batch_panel = BatchPanel(self.store)
        self.dataset_panel = DatasetPanel(self.store)
        self.hardware_panel = HardwarePanel(self.store)
        self.local_gpu_panel = LocalGpuPanel(self.store)
        self.panels = [self.model_panel, self.method_panel, self.batch_panel, self.dataset_panel,
                       self.hardware_panel, self.local_gpu_panel]
        column = QWidget()
        col = QVBoxLayout(column)
        col.setContentsMargins(8, 4, 8, 8)
        for panel in self.panels:
            col.addWidget(panel)
        col.addStretch(1)
        self.form_scroll = QScrollArea()
        self.form_scroll.setWidget(column)
        self.form_scroll.setWidgetResizable(True)
        self.form_scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        # Never narrower than the form itself: fields must not slide under the scroll bar.
        self.form_scroll.setMinimumWidth(
            column.minimumSizeHint().width() + self.form_scroll.verticalScrollBar().sizeHint().width() + 6
        )
        self.form_scroll.setAccessibleName(self.tr("Plan settings"))

        # ---------------------------------------------------------------- right: the answer
        self.memory_card = _Card(self.tr("Peak GPU memory"))
        self.verdict_card = _Card(self.tr("Verdict"))
        self.time_card = _Card(self.tr("Time"))
        self.cost_card = _Card(self.tr("Cost"))
        self.verdict_label = self.verdict_card.value
        self.card_strip = _CardStrip([self.memory_card, self.verdict_card, self.time_card, self.cost_card])
        self.memory_card.setToolTip(self.tr(
            "Device total per GPU: what must fit, PyTorch's reserved memory that cannot be given back plus the "
            "CUDA context, cuBLAS workspace and memory outside PyTorch's allocator. This is what runs out, and what "
            "nvidia-smi shows unless a cache of earlier, shorter batches (dynamic padding) sits beside it."
        ))
        self.vram_chart = VramChart()
        self.cost_chart = CostChart()
        self.summary = QLabel()
        self.summary.setAccessibleName(self.tr("Summary"))
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        summary_frame = QFrame()
        summary_frame.setObjectName("summary")
        sf = QVBoxLayout(summary_frame)
        sf.setContentsMargins(12, 8, 12, 8)
        sf.addWidget(self.summary)
        right = QWidget()
        rc = QVBoxLayout(right)
        rc.setContentsMargins(8, 8, 8, 8)
        rc.setSpacing(8)
        rc.addWidget(self.card_strip)
        # The plan's warnings (a sequence past the model's context, a combination a framework refuses) sit
        # under the verdict, where they are read, not below the charts (issue #21). Plain text: they quote names.
        self.plan_warnings = QLabel()
        self.plan_warnings.setObjectName("planWarnings")
        self.plan_warnings.setTextFormat(Qt.TextFormat.PlainText)
        self.plan_warnings.setWordWrap(True)
        self.plan_warnings.setStyleSheet("color: #8a5a00; font-weight: 600;")
        self.plan_warnings.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.plan_warnings.setAccessibleName(self.tr("Warnings"))
        self.plan_warnings.hide()
        rc.addWidget(self.plan_warnings)
        rc.addWidget(self._caption(self.tr("Memory per GPU at its peak — hover a segment for its formula")))
        rc.addWidget(self.vram_chart, 5)
        # "Is my own GPU enough?": the local verdict right under the chart, its lines on the chart.
        self.local_verdict = LocalVerdictView(self.local_gpu_panel.controller)
        rc.addWidget(self.local_verdict, 0)
        self.local_gpu_panel.controller.bind_chart(self.vram_chart)
        rc.addWidget(self._caption(self.tr("Cost over the run")))
        rc.addWidget(self.cost_chart, 5)
        rc.addWidget(summary_frame, 0)

        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(self.form_scroll)
        self.result_scroll = QScrollArea()
        self.result_scroll.setWidget(right)
        self.result_scroll.setWidgetResizable(True)
        self.result_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.result_scroll.setAccessibleName(self.tr("Estimate"))
        right.setMinimumHeight(620)
        # The answer area is a set of tabs: the plan itself first; other views (GPU comparison,
        # scenario comparison, advice and limits) add their own tab through add_tab().
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        self.tabs.setAccessibleName(self.tr("Views"))
        self.tabs.addTab(self.result_scroll, self.tr("Plan"))
        splitter.addWidget(self.tabs)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([500, 900])
        splitter.setChildrenCollapsible(False)
        self.setCentralWidget(splitter)

        self._build_actions()
        self.gpu_compare = install_gpu_compare(self)  # "Compare GPUs" tab and the price book (Tools → Prices…)
        # Scenario library (File → Open/Save go through it; autosave, crash recovery), the
        # "Compare scenarios" tab and File → Export report…
        from tuneplan.ui.library_view import install_library
        from tuneplan.ui.report import export_report, install_report
        from tuneplan.ui.scenario_compare import install_scenario_compare

        library = install_library(self)
        self.documents = library.controller
        self.library_panel, self.library_dock, self.recent_menu = library.panel, library.dock, library.recent_menu
        self.library_action, self.import_action = library.library_action, library.import_action
        self.export_scenarios_action, self.library_toolbar_action = library.export_action, library.toolbar_action
        self.compare_view = install_scenario_compare(
            self, lambda path, comparison: export_report(self, path, comparison=comparison))
        self.comparison = self.compare_view.comparison
        self.export_report_action = install_report(self)
        self.statusBar().showMessage(self.tr("Ready"))

        # ---------------------------------------------------------------- wiring
        self.store.result_changed.connect(self.show_result)
        self.store.dirty_changed.connect(lambda _d: self._update_title())
        self.store.scenario_changed.connect(lambda _s: self._update_title())
        self.store.error.connect(self._on_error)
        self.local_gpu_panel.refresh_requested.connect(self.start_probe)
        self.probe_finished.connect(self._on_probe_finished)
        self._sync()
        # Issue #8: "Why this much?" and "Limits" tabs, advice in the Plan tab, presets, and the
        # theme last (it re-colours every view after show_result has drawn).
        from tuneplan.ui import advice_view, explain_view, limits_view, presets, theme

        self.explain_view = explain_view.install_explain(self.store, self.tabs)
        self.advice_controller, self.advice_view = advice_view.install_advice(
            self.store, self.result_scroll.widget(), self.card_strip, self)
        # the advice panel goes under the cards; the plan's warnings stay right under the verdict, above it
        rc.removeWidget(self.plan_warnings)
        rc.insertWidget(rc.indexOf(self.card_strip) + 1, self.plan_warnings)
        self.limits_view = limits_view.install_limits(self.store, self.tabs, self)
        self.preset_combo, self.preset_actions = presets.install_presets(self, self.store)
        self.theme = theme.install_theme(self)
        from tuneplan.ui.help_view import install_help

        self.help = install_help(self)  # Help → What's This?, Glossary…, About (issue #21); the last menu
        self.store.clear_history()  # what the views adjusted while starting up is no edit to undo

    # ------------------------------------------------------------------ building
    def add_tab(self, widget: QWidget, title: str) -> int:
        """Add a view next to the plan (e.g. a comparison); returns its tab index."""
        widget.setAccessibleName(widget.accessibleName() or title)
        return self.tabs.addTab(widget, title)

    @staticmethod
    def _caption(text: str) -> QLabel:
        label = QLabel(text)
        label.setStyleSheet("color: #555555; font-weight: 600;")
        return label

    def _build_actions(self) -> None:
        menu = self.menuBar().addMenu(self.tr("&File"))
        menu.setObjectName(menus.FILE_MENU)  # other views find their menus by these names (tuneplan.ui.menus)
        self.new_action = QAction(self.tr("&New"), self, shortcut=QKeySequence.StandardKey.New, triggered=lambda: self.new_plan())
        self.open_action = QAction(self.tr("&Open…"), self, shortcut=QKeySequence.StandardKey.Open, triggered=lambda: self.open_plan())
        self.save_action = QAction(self.tr("&Save"), self, shortcut=QKeySequence.StandardKey.Save, triggered=lambda: self.save_plan())
        self.save_as_action = QAction(self.tr("Save &As…"), self, shortcut=QKeySequence.StandardKey.SaveAs,
                                      triggered=lambda: self.save_plan_as())
        self.export_vram_action = QAction(self.tr("Export &memory chart…"), self,
                                          triggered=lambda: self.export_chart(self.vram_chart, "memory"))
        self.export_cost_action = QAction(self.tr("Export &cost chart…"), self,
                                          triggered=lambda: self.export_chart(self.cost_chart, "cost"))
        self.quit_action = QAction(self.tr("&Quit"), self, shortcut=QKeySequence.StandardKey.Quit, triggered=self.close)
        for a in (self.new_action, self.open_action, self.save_action, self.save_as_action):
            menu.addAction(a)
        menu.addSeparator()
        export = menu.addMenu(self.tr("&Export chart (PNG/SVG)"))
        export.setObjectName(menus.EXPORT_CHART_MENU)
        export.addAction(self.export_vram_action)
        export.addAction(self.export_cost_action)
        # File → Import training config… (issue #17): LLaMA-Factory / axolotl / HF / DeepSpeed files, one edit
        from tuneplan.ui.config_import import import_training_config

        self.import_config_action = QAction(self.tr("&Import training config…"), self,
                                            triggered=lambda: import_training_config(self))
        menu.addAction(self.import_config_action)
        # File → Export training config… (issue #17): the plan as a starting config for the chosen stack
        from tuneplan.ui.config_export import export_training_config

        self.export_config_action = QAction(self.tr("Export &training config…"), self,
                                            triggered=lambda: export_training_config(self))
        self.export_config_action.setToolTip(self.tr(
            "Write the plan as a LLaMA-Factory, axolotl, TRL, torchtune, ms-swift or DeepSpeed config"))
        menu.addAction(self.export_config_action)
        menu.addSeparator()
        menu.addAction(self.quit_action)
        toolbar = self.addToolBar(self.tr("File"))
        toolbar.setObjectName("fileToolbar")
        toolbar.setMovable(False)
        toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        for a in (self.new_action, self.open_action, self.save_action, self.save_as_action,
                  self.export_vram_action, self.export_cost_action):
            a.setIconText(plain_text(a.text()))  # "新建(&N)" would show as "新建(N)" on a tool button
        for a in (self.new_action, self.open_action, self.save_action, self.save_as_action):
            toolbar.addAction(a)
        toolbar.addSeparator()
        toolbar.addAction(self.export_vram_action)
        toolbar.addAction(self.export_cost_action)
        # Edit → Undo / Redo (issue #21): the store's undo stack; the texts say what they undo
        edit = self.menuBar().addMenu(self.tr("&Edit"))
        edit.setObjectName(menus.EDIT_MENU)
        self.store.field_label = self._field_label
        stack = self.store.undo_stack
        self.undo_action = stack.createUndoAction(self, self.tr("&Undo"))
        self.undo_action.setShortcuts(QKeySequence.keyBindings(QKeySequence.StandardKey.Undo))
        self.redo_action = stack.createRedoAction(self, self.tr("&Redo"))
        redo_keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)
        shift_z = QKeySequence(Qt.Modifier.CTRL | Qt.Modifier.SHIFT | Qt.Key.Key_Z)
        # Ctrl+Shift+Z first (the one the menu shows) on every platform; Ctrl+Y etc. still work
        self.redo_action.setShortcuts([shift_z] + [k for k in redo_keys if k != shift_z])
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        # View → Language (the theme adds View → Theme to the same menu)
        self.language_menu, self.language_actions = install_language_menu(self)
        # Tools → Import pilot run… / Forget calibration (the price book adds Tools → Prices… to the same menu)
        tools = self.menuBar().addMenu(self.tr("&Tools"))
        tools.setObjectName(menus.TOOLS_MENU)
        self.import_pilot_action = QAction(self.tr("&Import pilot run…"), self, triggered=lambda: self.import_pilot())
        self.import_pilot_action.setToolTip(self.tr(
            "Calibrate the time of plans on this GPU and stack from a short real run: HF Trainer's "
            "trainer_state.json or a CSV of step times"))
        self.forget_calibration_action = QAction(self.tr("&Forget calibration"), self,
                                                 triggered=lambda: self.forget_calibration())
        self.forget_calibration_action.setToolTip(self.tr(
            "Drop the pilot-run calibration of this plan's GPU and stack"))
        tools.addAction(self.import_pilot_action)
        tools.addAction(self.forget_calibration_action)
        tools.addSeparator()

    # ------------------------------------------------------------------ store -> views
    def _sync(self) -> None:
        for panel in self.panels:
            panel.refresh(self.store.scenario)
        self.show_result(self.store.result)
        self._update_title()

    def show_result(self, result: Estimate) -> None:
        """Redraw the headline, both charts and the summary from one estimate."""
        s = self.store.scenario
        mem = result.memory
        total, cap = mem.total_bytes / GIB, mem.capacity_bytes / GIB
        self.memory_card.value.setText(fmt_gib(total))
        self.memory_card.detail.setText(
            (self.tr("of {capacity} on {gpu} · device total (what must fit; nvidia-smi adds the cache)")
             if mem.cache_bytes else self.tr("of {capacity} on {gpu} · device total (nvidia-smi)")).format(
                capacity=fmt_gib(cap, 2), gpu=short_gpu_name(s.gpu.name))
        )
        verdict = verdict_text(mem)
        color = verdict_color(mem)  # the one rule every view colours the verdict by
        detail = (
            (self.tr("likely {low}–{high}").format(low=fmt_number(mem.low_bytes / GIB, 1, group=False),
                                                   high=fmt_gib(mem.high_bytes / GIB))
             if mem.low_bytes != mem.high_bytes else peak_phase_text(mem.peak_phase))
            + {"none": "", "tight": self.tr(" · tight: the upper bound does not fit"),
               "unlikely": self.tr(" · unlikely to fit: even the lower bound does not"),
               "possible": self.tr(" · may fit: the lower bound does")}[mem.band_risk]
        )
        if mem.fits and blocking_notes(result):
            # the memory fits, but the stack refuses the combination: the run stops at once whatever its memory
            # (the time and cost cards say the same; the warning says why)
            detail = self.tr("memory {verdict}, but a warning stops the run").format(verdict=verdict)
            verdict, color = self.tr("cannot run as planned"), VERDICT_COLORS["short"]
        self.verdict_label.setText(verdict)
        self.verdict_label.setStyleSheet(f"color: {color};")
        self.verdict_card.detail.setText(detail)
        t, c = result.time, result.cost
        self.time_card.value.setText(format_hours(t.hours))
        # U+2060 WORD JOINER after each slash: the card wraps between words, never inside "tok/s"
        # two short lines per card: the likely range first; steps and billed hours in the tooltips
        from tuneplan.ui.charts import hours_range_text

        span = hours_range_text(t.low_seconds / 3600, t.high_seconds / 3600)
        lead = self.tr("calibrated: {range}") if t.calibrated else self.tr("likely {range}")
        self.time_card.detail.setText((lead.format(range=span) + " · " + self.tr("{tps} tok/s per GPU").format(
            tps=fmt_number(t.tokens_per_second))).replace("/", "/\u2060"))
        why = (self.tr("calibrated from your pilot run; the range is its own spread and how the model's error varies "
                       "within one stack") if t.calibrated else
               self.tr("likely range from the time model's measured error on published runs (docs/time-accuracy.md)"))
        self.time_card.setToolTip(self.tr("{steps} optimizer steps of {step} s; {why}").format(
            steps=fmt_number(t.steps), step=fmt_number(t.step_seconds, 3), why=why))
        self.cost_card.value.setText(fmt_usd(c.total_usd))
        if c.billing == "electricity" and not s.pricing.electricity_usd_per_kwh:
            # your own GPUs with no tariff yet: not "$0.00", which reads as a free run
            self.cost_card.value.setText("—")
            self.cost_card.detail.setText(self.tr("set your electricity price ($/kWh) in Your GPUs · {kwh} kWh").format(
                kwh=fmt_number(c.kwh, 1)))
            self.cost_card.setToolTip(self.tr("your own GPUs: {kwh} kWh over {hours} h; the same run rented at "
                                              "{provider} {usd}").format(
                kwh=fmt_number(c.kwh, 2), hours=fmt_number(c.billed_hours, 2), provider=s.pricing.provider,
                usd=fmt_usd(c.rental_usd or 0.0)))
        elif c.billing == "electricity":  # your own GPUs (issue #19)
            self.cost_card.detail.setText(self.tr("electricity · {kwh} kWh · rented {usd}").format(
                kwh=fmt_number(c.kwh, 1), usd=fmt_usd(c.rental_usd or 0.0)))
            self.cost_card.setToolTip(self.tr("your own GPUs: {kwh} kWh over {hours} h; likely {low}–{high}; the same "
                                              "run rented at {provider} {usd}").format(
                kwh=fmt_number(c.kwh, 2), hours=fmt_number(c.billed_hours, 2), low=fmt_usd(c.low_usd),
                high=fmt_usd(c.high_usd), provider=s.pricing.provider, usd=fmt_usd(c.rental_usd or 0.0)))
        else:
            self.cost_card.detail.setText(self.tr("likely {low}–{high} · pessimistic {usd}").format(
                low=fmt_usd(c.low_usd), high=fmt_usd(c.high_usd), usd=fmt_usd(c.pessimistic_usd)))
            self.cost_card.setToolTip(self.tr("{hours} billed hours; likely range: the same run finishing faster or "
                                              "slower").format(hours=fmt_number(c.billed_hours, 2)))
        warnings = [core_note_text(n) for n in result.messages]
        self.plan_warnings.setText("\n".join(f"⚠ {w}" for w in warnings))
        self.plan_warnings.setVisible(bool(warnings))
        self._show_runnable(result)
        self.card_strip.refit()
        self.vram_chart.set_estimate(result, s.gpu.name)
        self.cost_chart.set_cost(c, t, blocked=bool(blocking_notes(result)))
        self.summary.setText(self._summary_html(s, result))
        self.forget_calibration_action.setEnabled(self.store.calibration is not None)

    @staticmethod
    def _summary_html(s: Scenario, r: Estimate) -> str:
        t, c, p = r.time, r.cost, s.pricing
        n = s.training.num_gpus
        trainable = r.trainable_parameters / r.parameters * 100 if r.parameters else 0.0
        phases = " · ".join(f"{PHASE_LABELS.get(name, name)} {format_hours(sec / 3600)}"
                            for name, sec in t.phases.items() if sec > 0)
        breakdown = " · ".join(f"{html.escape(COST_LABELS.get(k, k))} {fmt_usd(v)}" for k, v in c.breakdown.items())
        if c.interruption_usd > 0:
            breakdown += translate("MainWindow", " · interruptions {usd}").format(usd=fmt_usd(c.interruption_usd))
        rows = [
            (translate("MainWindow", "Tokens"),
             translate("MainWindow", "{tokens} tokens in total (all epochs, padding included)").format(
                 tokens=_tokens(t.tokens_total))),
            (translate("MainWindow", "Throughput"),
             translate("MainWindow", "{tps} tokens/s per GPU × {n} · MFU {mfu}% · {bound}").format(
                 tps=fmt_number(t.tokens_per_second), n=n, mfu=fmt_number(t.mfu * 100),
                 bound=BOUND_LABELS.get(t.bound, t.bound))),
            (translate("MainWindow", "Steps"),
             translate("MainWindow", "{steps} optimizer steps · {phases}").format(steps=fmt_number(t.steps), phases=phases)),
            (translate("MainWindow", "Billed"),
             translate("MainWindow", "{hours} h × {n} GPU × {price}/GPU-hour = {usd}").format(
                 hours=fmt_number(c.billed_hours, 2), n=n, price=fmt_usd(p.price_per_gpu_hour), usd=fmt_usd(c.gpu_usd))),
            (translate("MainWindow", "Breakdown"), breakdown),
            (translate("MainWindow", "Parameters"),
             translate("MainWindow", "{total} B total · {trainable} trainable ({share}%)").format(
                 total=fmt_number(r.parameters / 1e9, 2),
                 trainable=(f"{fmt_number(r.trainable_parameters / 1e9, 2)} B" if r.trainable_parameters >= 1e9
                            else f"{fmt_number(r.trainable_parameters / 1e6, 1)} M"),
                 share=fmt_number(trainable, 2))),
        ]
        out = ["<table cellspacing='0' cellpadding='2'>"]
        for k, v in rows:
            out.append(f"<tr><td style='color:#666666; padding-right:10px'>{k}</td><td>{v}</td></tr>")
        out.append("</table>")
        # the plan's own warnings (r.messages) are shown at the top, under the verdict
        notes = [core_note_text(n) for n in (*t.messages, *c.messages)]
        for w in notes:
            out.append(f"<div style='color:#8a5a00'>⚠ {html.escape(w)}</div>")
        return "".join(out)

    def _show_runnable(self, result: Estimate) -> None:
        """Grey the time and cost when the plan cannot run, with a two-line reason on the card and the whole
        reason in its tooltip."""
        reason = cannot_run_reason(result)
        # short, unwrapped lines: the narrow cards keep their height and width
        short = (verdict_text(result.memory) if not result.memory.fits
                 else self.tr("see the warning below"))
        for card in (self.time_card, self.cost_card):
            card.value.setStyleSheet("color: #888888;" if reason else "")
            card.reason.setText(self.tr("Cannot run:\n{reason}").format(reason=short) if reason else "")
            card.reason.setVisible(bool(reason))
            if reason:
                card.setToolTip(self.tr("This plan cannot run as it is: {reason}. The time and cost are what it "
                                        "would take if it could; apply a suggestion below to make it run.").format(
                    reason=reason))

    def _update_title(self) -> None:
        star = "*" if self.store.dirty else ""
        where = f" — {self.path.name}" if self.path else ""
        self.setWindowTitle(f"{self.store.scenario.name}{star}{where} — {APP_TITLE}")

    def field_setting_text(self, path: str, value: Any) -> str:
        """One setting as the form shows it, ``label: value`` (``vLLM share of the card (0-1): 0.3``, ``Generation:
        vLLM on the training GPUs (colocate)``, ``vLLM sleeps while training: on``, ``I train with: LLaMA-Factory``);
        settings without a form field are named from :data:`~tuneplan.ui.i18n.SETTING_LABELS`; ``""`` for a path
        neither names."""
        label = self._field_label(path)
        field = next((panel.fields[path] for panel in self.panels if path in panel.fields), None)
        if not label:
            return ""
        if path == "training.stack":  # the "I train with" combo, not a form field
            names = {p.key: p.name for p in stacks.STACKS} | {"pytorch": self.tr("Plain PyTorch loop")}
            chosen = names.get(value, str(value)) if value else self.tr("not chosen")  # (lupdate skips f-strings)
            return f"{label}: {chosen}"
        widget = field.widget if field is not None else None
        if isinstance(widget, QCheckBox) or isinstance(value, bool):
            state = self.tr("on") if value is True else self.tr("off") if value is False else str(value)
            return f"{label}: {state}"
        if isinstance(widget, QComboBox):
            index = widget.findData(value)
            if index >= 0:
                return f"{label}: {widget.itemText(index).strip()}"
        if value is None and widget is None:  # a setting left unset in the plan file
            return f"{label}: —"
        if isinstance(value, float) and math.isfinite(value):
            # digits as written, never e-notation (1e-05 is 0.00001), as the comparison writes its figures
            value = f"{value:,.0f}" if value.is_integer() else format(Decimal(repr(value)), "f")
        elif isinstance(value, int) and not isinstance(value, bool):
            value = f"{value:,}"
        return f"{label}: {value}"

    def _field_label(self, path: str) -> str:
        for panel in self.panels:
            if path in panel.fields:
                return panel.fields[path].label
        if path in SETTING_LABELS:  # set by a plan file, an imported config or the CLI
            return SETTING_LABELS[path]
        return {"model": self.tr("Model"), "gpu": self.tr("GPU")}.get(path, "")

    def _on_error(self, field: str, message: str) -> None:
        if message:
            label = self._field_label(field)
            self.statusBar().showMessage(
                self.tr("Not applied — {label} {message}").format(label=label, message=message) if label
                else self.tr("Not applied — {message}").format(message=message), 8000)
            if not field:
                self.show_error(self.tr("Cannot use this plan"), message)
        else:
            self.statusBar().clearMessage()

    # ------------------------------------------------------------------ dialogs (patchable in tests)
    def show_error(self, title: str, text: str) -> None:
        """Tell the user something failed (a modal message box; the text, often naming a file, is plain)."""
        plain_message_box(self, QMessageBox.Icon.Warning, title, text).exec()

    def ask_open_path(self) -> str | None:
        """Ask which scenario file to open."""
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open plan"), str(paths.scenarios_dir()),
                                              self.tr("Tuneplan plans (*.json);;All files (*)"))
        return path or None

    def ask_save_path(self) -> str | None:
        """Ask where to save the scenario (defaults to the scenarios folder)."""
        suggestion = paths.scenarios_dir() / f"{_slug(self.store.scenario.name)}.json"
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save plan"), str(self.path or suggestion),
                                              self.tr("Tuneplan plans (*.json)"))
        if path and not path.lower().endswith(".json"):
            path += ".json"
        return path or None

    def ask_export_path(self, what: str) -> str | None:
        """Ask where to export a chart; the extension (.png or .svg) picks the format."""
        from tuneplan.ui.export_folder import export_folder, remember_export

        suggestion = export_folder() / f"{_slug(self.store.scenario.name)}-{what}.png"
        title = self.tr("Export memory chart") if "memory" in what else self.tr("Export cost chart")
        path, chosen = QFileDialog.getSaveFileName(self, title, str(suggestion),
                                                   self.tr("PNG image (*.png);;SVG drawing (*.svg)"))
        if path and not path.lower().endswith((".png", ".svg")):
            path += ".svg" if "svg" in chosen.lower() else ".png"
        remember_export(path)
        return path or None

    def ask_pilot_path(self) -> str | None:
        """Ask which pilot-run file to import (trainer_state.json or a CSV of step times)."""
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Import pilot run"), str(Path.home()),
            self.tr("Pilot runs (*.json *.csv *.tsv);;HF Trainer state (trainer_state.json *.json);;"
                    "Step times (*.csv *.tsv);;All files (*)"))
        return path or None

    def unsaved_question(self) -> tuple[str, str]:
        """The unsaved-changes question and its detail, naming the file Save will write (plain text)."""
        name = self.store.scenario.name
        docs = self.documents
        held = docs.file_plan_name() if docs is not None else None
        if self.path is None:
            return (self.tr("Save the plan “{name}”?").format(name=name),
                    self.tr("It has not been saved yet; Save puts it in your library."))
        if held is not None and held != name:
            name = docs.new_plan_name() if docs is not None else name  # a free name when the library has this one
            return (self.tr("Save the changes as a new plan “{name}”?").format(name=name),
                    self.tr("The plan was renamed from “{old}”: Save keeps “{old}” ({file}) as it is and saves "
                            "this one beside it.").format(old=held, file=self.path.name))
        return (self.tr("Save the changes to “{name}”?").format(name=name),
                self.tr("Save writes {file}.").format(file=self.path.name))

    def ask_unsaved(self) -> QMessageBox.StandardButton:
        """Save, Discard or Cancel for unsaved changes; the question names the file Save will write."""
        text, detail = self.unsaved_question()
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("Unsaved changes"), text,
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                          | QMessageBox.StandardButton.Cancel, self)
        box.setTextFormat(Qt.TextFormat.PlainText)
        box.setInformativeText(detail)
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        return QMessageBox.StandardButton(box.exec())

    # ------------------------------------------------------------------ file actions
    def _may_discard(self) -> bool:
        if not self.store.dirty:
            return True
        answer = self.ask_unsaved()
        if answer == QMessageBox.StandardButton.Save:
            return self.save_plan()
        return answer == QMessageBox.StandardButton.Discard

    def new_plan(self) -> None:
        """File → New: the default scenario."""
        if not self._may_discard():
            return
        self.path = None
        self.store.new_scenario()
        self._update_title()

    def open_plan(self, path: str | Path | None = None) -> bool:
        """File → Open…: load a scenario file (asks for one when ``path`` is None)."""
        if self.documents is not None:  # the library: stamps for conflict checks, quarantine
            return self.documents.open_plan(path)
        if path is None:
            if not self._may_discard():
                return False
            path = self.ask_open_path()
            if not path:
                return False
        try:
            scenario = read_scenario_file(path)
        except ScenarioFileError as exc:
            self.show_error(self.tr("Cannot open plan"), str(exc))
            return False
        if not self.store.load_scenario(scenario):
            return False
        self.path = Path(path)
        self._update_title()
        log.info("opened %s", self.path)
        self.statusBar().showMessage(self.tr("Opened {path}").format(path=self.path), 5000)
        return True

    def save_plan(self) -> bool:
        """File → Save (Save As… when the plan has no file yet)."""
        if self.documents is not None:  # the library: refuses to overwrite another window's save
            return self.documents.save_plan()
        if self.path is None:
            return self.save_plan_as()
        return self._write(self.path)

    def save_plan_as(self, path: str | Path | None = None) -> bool:
        """File → Save As…: choose a file (in the scenarios folder by default) and write it."""
        if self.documents is not None:  # the library: asks for a name, saves in the data folder
            return self.documents.save_plan_as(path)
        if path is None:
            path = self.ask_save_path()
            if not path:
                return False
        return self._write(Path(path))

    def _write(self, path: Path) -> bool:
        try:
            write_scenario_file(path, self.store.scenario)
        except ScenarioFileError as exc:
            self.show_error(self.tr("Cannot save plan"), str(exc))
            return False
        self.path = path
        self.store.mark_saved()
        log.info("saved %s", path)
        self._update_title()
        self.statusBar().showMessage(self.tr("Saved {path}").format(path=path), 5000)
        return True

    # ------------------------------------------------------------------ calibration
    def import_pilot(self, path: str | Path | None = None) -> bool:
        """Tools → Import pilot run…: calibrate the current plan's hardware and stack from a real run's file.

        Reads ``path`` (asks for one when None), fits its step time onto the current plan, saves the calibration
        and recomputes. A file that cannot be used shows a one-line message and changes nothing.
        """
        if path is None:
            path = self.ask_pilot_path()
            if not path:
                return False
        try:
            pilot = read_pilot(path, tokens_per_step=self.store.result.time.tokens_per_step)
            cal = self.store.apply_pilot(pilot)
        except CalibrationError as exc:
            template = NOTES.get(exc.code)
            text = translate("Terms", template).format(**exc.params) if template else str(exc)
            self.show_error(self.tr("Cannot import pilot run"), f"{Path(path).name}: {text}")
            return False
        except (PilotFileError, OSError) as exc:
            self.show_error(self.tr("Cannot import pilot run"), str(exc))
            return False
        log.info("calibrated %s from %s: factor %.3f", cal.key, path, cal.factor)
        self.statusBar().showMessage(self.tr("Calibrated from {name}: time × {factor}").format(
            name=Path(path).name, factor=fmt_number(cal.factor, 3)), 8000)
        return True

    def forget_calibration(self) -> bool:
        """Tools → Forget calibration: drop the saved calibration of the current plan's hardware and stack."""
        try:
            forgotten = self.store.forget_calibration()
        except OSError as exc:
            self.show_error(self.tr("Cannot forget calibration"), str(exc))
            return False
        if forgotten:
            self.statusBar().showMessage(self.tr("Calibration forgotten"), 5000)
        return forgotten

    def export_chart(self, chart, what: str, path: str | Path | None = None) -> bool:
        """Export a chart as PNG (2x resolution) or SVG, picked by the file extension."""
        if path is None:
            path = self.ask_export_path(what)
            if not path:
                return False
        import pyqtgraph.exporters as exporters

        path = Path(path)
        try:
            if path.suffix.lower() == ".svg":
                _export_svg(chart, path)
            else:
                exp = exporters.ImageExporter(chart.getPlotItem())
                exp.parameters()["width"] = max(1200, int(chart.width() * 2))
                exp.export(str(path))
        except Exception as exc:  # exporter failures are I/O for the user
            log.exception("chart export failed")
            self.show_error(self.tr("Cannot export chart"), f"{path}: {exc}")
            return False
        self.statusBar().showMessage(self.tr("Exported {path}").format(path=path), 5000)
        return True

    # ------------------------------------------------------------------ local GPUs
    def start_probe(self) -> None:
        """Read the local GPUs in a worker thread; the result arrives via ``probe_finished``."""
        if self._probe_running:
            return
        self._probe_running = True
        self.local_gpu_panel.set_busy()
        probe, done = self.probe, self.probe_finished

        def work() -> None:
            try:
                result = probe()
            except Exception as exc:  # the probe promises not to raise; be safe anyway
                log.exception("GPU probe failed")
                result = ProbeResult(status="error", message=translate("MainWindow", "GPU detection failed: {error}")
                                     .format(error=exc))
            try:
                done.emit(result)
            except RuntimeError:  # the window is gone
                pass

        threading.Thread(target=work, name="tuneplan-gpu-probe", daemon=True).start()

    def _on_probe_finished(self, result: ProbeResult) -> None:
        self._probe_running = False
        log.info("GPU probe: %s (%s)", result.status, result.message)
        self.local_gpu_panel.show_result(result)

    # ------------------------------------------------------------------ closing
    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt naming
        """Ask about unsaved changes before closing."""
        if self._may_discard():
            if self.documents is not None:
                self.documents.clean_exit()  # a normal exit: the autosave is not needed any more
            event.accept()
        else:
            event.ignore()
