"""Form plumbing: widgets bound to scenario fields by dotted path, with inline error display.

A :class:`FieldPanel` is a ``QGroupBox`` with a ``QFormLayout``. Each ``add_*`` helper creates a
control, labels it (units in the label or suffix), gives it an accessible name, and wires it one
way: user edit -> ``store.set_field(path, value)``. When the store emits ``scenario_changed`` the
panel writes the scenario's values back into the controls with their signals blocked. When the
store emits ``error(path, message)`` the control gets a red border and a message under it; the
rest of the form keeps working and the last good scenario stays.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from tuneplan.core.scenario import Scenario
from tuneplan.ui.i18n import plain_tooltip
from tuneplan.ui.store import AppStore

__all__ = ["FieldPanel", "format_count", "get_path", "parse_count"]

ERROR_COLOR = "#c62828"
_SUFFIX = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
#: A count: digits with commas only between groups of three (``1,000,000``; ``1,5`` is not a count: a decimal comma
#: would be read as 15), an optional fraction and exponent, and a k/M/B/G/T suffix.
_COUNT_RE = re.compile(r"^\s*((?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9][0-9_]*)(?:\.[0-9]*)?(?:e[+-]?\d+)?)\s*([kmbgt]?)\s*$",
                       re.I)


def get_path(scenario: Scenario, path: str) -> Any:
    """The value at a dotted path, e.g. ``get_path(s, "training.seq_len")``."""
    node: Any = scenario
    for part in path.split("."):
        node = getattr(node, part)
    return node


def parse_count(text: str) -> float | None:
    """Parse a token count as people write it: ``50M``, ``1.5B``, ``2e9``, ``1,000,000``.

    Returns None for empty text. Raises ValueError for anything else that is not a number, and for a comma that does
    not separate thousands (``1,5M``: a decimal comma, which would otherwise silently read as 15M).
    """
    text = text.strip()
    if not text:
        return None
    m = _COUNT_RE.match(text)
    if not m:
        raise ValueError(text)
    value = float(m.group(1).replace(",", "").replace("_", "")) * _SUFFIX.get(m.group(2).lower(), 1.0)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _show_value(w: QSpinBox | QDoubleSpinBox, value: float) -> None:
    """Show the store's value in a spin box, leaving it alone when it already holds that value: the store echoes
    every keystroke back (keyboard tracking), and re-setting the same value re-renders the text with its group
    separators mid-typing, which moves the cursor (typing 12345 gave 12,354)."""
    if w.value() != value:
        w.setValue(value)


class _PlanUndoFilter(QObject):
    """Lets Ctrl+Z / Ctrl+Shift+Z reach Edit → Undo / Redo while a spin box has the focus. Its line edit would take
    them for its own text undo (accepting the ShortcutOverride), but every keystroke in a spin box is already an edit
    of the plan (keyboard tracking), which the plan's undo stack takes back whole."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt naming
        if event.type() == QEvent.Type.ShortcutOverride and isinstance(event, QKeyEvent) and (
                event.matches(QKeySequence.StandardKey.Undo) or event.matches(QKeySequence.StandardKey.Redo)):
            spin = watched.parent() if isinstance(watched, QLineEdit) else watched
            if isinstance(spin, QAbstractSpinBox):
                spin.interpretText()  # the typed value is in the plan before it is undone
            event.ignore()  # not the field's: the window's shortcut runs
            return True
        return False


_UNDO_FILTER: _PlanUndoFilter | None = None


def _plan_undo_filter() -> _PlanUndoFilter:
    global _UNDO_FILTER
    if _UNDO_FILTER is None:
        _UNDO_FILTER = _PlanUndoFilter()
    return _UNDO_FILTER


class _NoWheelMixin:
    """Ignore the mouse wheel unless focused, so scrolling the form never edits a value."""

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt naming
        if self.hasFocus():  # type: ignore[attr-defined]
            super().wheelEvent(event)  # type: ignore[misc]
        else:
            event.ignore()


class SpinBox(_NoWheelMixin, QSpinBox):
    """QSpinBox that does not steal wheel events from the scroll area."""


class DoubleSpinBox(_NoWheelMixin, QDoubleSpinBox):
    """QDoubleSpinBox that does not steal wheel events from the scroll area."""


class ComboBox(_NoWheelMixin, QComboBox):
    """QComboBox that does not steal wheel events and does not widen the form to its longest item."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(14)
        self.view().setTextElideMode(Qt.TextElideMode.ElideNone)

    def showPopup(self) -> None:  # noqa: N802 - Qt naming
        """Open the list at least as wide as its longest item."""
        view = self.view()
        view.setMinimumWidth(max(self.width(), view.sizeHintForColumn(0) + 24))
        super().showPopup()


class _Field:
    def __init__(self, path: str, widget: QWidget, label: str, write: Callable[[Any], None],
                 message: QLabel, container: QWidget) -> None:
        self.path, self.widget, self.label, self.write = path, widget, label, write
        self.message, self.container = message, container
        self.base_tooltip = widget.toolTip()
        self.form: QFormLayout | None = None


class FieldPanel(QGroupBox):
    """A titled group of bound controls (see the module docstring)."""

    def __init__(self, title: str, store: AppStore, parent: QWidget | None = None) -> None:
        super().__init__(title, parent)
        self.store = store
        self.setAccessibleName(title)
        self.form = QFormLayout(self)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.DontWrapRows)
        self.form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.form.setHorizontalSpacing(10)
        self.form.setVerticalSpacing(6)
        self.fields: dict[str, _Field] = {}
        #: paths of the fields inside the collapsed "Advanced" section (:meth:`begin_advanced`)
        self.advanced_paths: set[str] = set()
        self.advanced_toggle: QToolButton | None = None
        self.advanced_body: QWidget | None = None
        self._main_form: QFormLayout | None = None
        store.scenario_changed.connect(self.refresh)
        store.error.connect(self._on_error)

    # ------------------------------------------------------------------ the Advanced section
    def begin_advanced(self, note: str) -> None:
        """Put the fields added from here on into a collapsed "Advanced" section under the others, with ``note``
        (what the defaults assume) at its top; :meth:`end_advanced` goes back to the main form. The section opens
        by itself when one of its fields is rejected, so no error stays hidden."""
        toggle = QToolButton()
        toggle.setText(self.tr("Advanced"))
        toggle.setCheckable(True)
        toggle.setChecked(False)
        toggle.setArrowType(Qt.ArrowType.RightArrow)
        toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        toggle.setAutoRaise(True)
        toggle.setAccessibleName(self.tr("{title}: advanced settings").format(title=self.title().replace("&&", "&")))
        body = QWidget()
        form = QFormLayout(body)
        form.setContentsMargins(0, 0, 0, 0)
        for name in ("setFieldGrowthPolicy", "setRowWrapPolicy", "setLabelAlignment", "setHorizontalSpacing",
                     "setVerticalSpacing"):
            getter = name[3].lower() + name[4:]
            getattr(form, name)(getattr(self.form, getter)())
        hint = QLabel(note)
        hint.setWordWrap(True)
        hint.setTextFormat(Qt.TextFormat.PlainText)
        hint.setObjectName("advancedNote")
        form.addRow(hint)
        body.setVisible(False)

        def show(open_: bool) -> None:
            body.setVisible(open_)
            toggle.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)

        toggle.toggled.connect(show)
        self.form.addRow(toggle)
        self.form.addRow(body)
        self.advanced_toggle, self.advanced_body = toggle, body
        self._main_form, self.form = self.form, form

    def end_advanced(self) -> None:
        """Back to the main form after :meth:`begin_advanced`."""
        if self._main_form is not None:
            self.form, self._main_form = self._main_form, None

    def open_advanced(self, open_: bool = True) -> None:
        """Open (or close) the Advanced section, if the panel has one."""
        if self.advanced_toggle is not None:
            self.advanced_toggle.setChecked(open_)

    # ------------------------------------------------------------------ building
    def _add(self, path: str, label: str, widget: QWidget, write: Callable[[Any], None], tip: str = "") -> QWidget:
        if tip:
            widget.setToolTip(tip)
        if isinstance(widget, QAbstractSpinBox):  # Ctrl+Z undoes the plan's edit, not the box's text
            widget.installEventFilter(_plan_undo_filter())
            widget.findChild(QLineEdit).installEventFilter(_plan_undo_filter())
        widget.setAccessibleName(label)
        if tip:
            widget.setAccessibleDescription(tip)
        container = QWidget()
        box = QVBoxLayout(container)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        box.addWidget(widget)
        message = QLabel()
        message.setTextFormat(Qt.TextFormat.PlainText)  # validation messages may quote what was typed
        message.setWordWrap(True)
        message.setStyleSheet(f"color: {ERROR_COLOR};")
        message.setAccessibleName(self.tr("{label} error").format(label=label))
        message.hide()
        box.addWidget(message)
        if isinstance(widget, QCheckBox):
            self.form.addRow("", container)
        else:
            text = QLabel(self.tr("{label}:").format(label=label))
            text.setBuddy(widget)
            self.form.addRow(text, container)
        self.fields[path] = _Field(path, widget, label, write, message, container)
        self.fields[path].form = self.form
        if self._main_form is not None:
            self.advanced_paths.add(path)
        return widget

    def add_int(self, path: str, label: str, lo: int, hi: int, *, suffix: str = "", step: int = 1,
                tip: str = "") -> QSpinBox:
        """An integer spin box bound to ``path``."""
        w = SpinBox()
        w.setRange(lo, hi)
        w.setSingleStep(step)
        w.setGroupSeparatorShown(True)
        w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        w.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType if step == 1 and hi > 1000 else
                      QAbstractSpinBox.StepType.DefaultStepType)
        if suffix:
            w.setSuffix(" " + suffix)
        self._add(path, label, w, lambda v: _show_value(w, int(v)), tip)
        w.valueChanged.connect(lambda v, p=path: self.store.set_field(p, int(v)))
        return w

    def add_float(self, path: str, label: str, lo: float, hi: float, *, decimals: int = 2, step: float = 1.0,
                  suffix: str = "", prefix: str = "", tip: str = "") -> QDoubleSpinBox:
        """A decimal spin box bound to ``path``."""
        w = DoubleSpinBox()
        w.setDecimals(decimals)
        w.setRange(lo, hi)
        w.setSingleStep(step)
        w.setGroupSeparatorShown(True)
        w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        if suffix:
            w.setSuffix(" " + suffix)
        if prefix:
            w.setPrefix(prefix)
        self._add(path, label, w, lambda v: _show_value(w, float(v)), tip)
        w.valueChanged.connect(lambda v, p=path: self.store.set_field(p, float(v)))
        return w

    def add_choice(self, path: str, label: str, choices: Sequence[tuple[Any, str]], *, tip: str = "") -> QComboBox:
        """A combo box of ``(value, label)`` pairs bound to ``path``."""
        w = ComboBox()
        w.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        for value, text in choices:
            w.addItem(text, value)

        def write(value: Any) -> None:
            i = w.findData(value)
            if i >= 0:
                w.setCurrentIndex(i)

        self._add(path, label, w, write, tip)
        w.currentIndexChanged.connect(lambda i, p=path: self.store.set_field(p, w.itemData(i)))
        return w

    def add_check(self, path: str, label: str, *, on: Any = True, off: Any = False, tip: str = "") -> QCheckBox:
        """A check box bound to ``path`` (``on``/``off`` map it to non-boolean fields)."""
        w = QCheckBox(label)
        self._add(path, label, w, lambda v: w.setChecked(v == on), tip)
        w.toggled.connect(lambda checked, p=path: self.store.set_field(p, on if checked else off))
        return w

    def add_text(self, path: str, label: str, *, max_length: int = 200, tip: str = "") -> QLineEdit:
        """A one-line text field bound to ``path`` (committed on Enter or when focus leaves)."""
        w = QLineEdit()
        w.setMaxLength(max_length)

        def write(value: Any) -> None:
            if w.text() != value:
                w.setText(str(value))

        def commit() -> None:
            if w.text() != get_path(self.store.scenario, path) or path in self.store.errors:
                self.store.set_field(path, w.text().strip())

        self._add(path, label, w, write, tip)
        w.editingFinished.connect(commit)
        return w

    def add_names(self, path: str, label: str, *, placeholder: str = "", tip: str = "") -> QLineEdit:
        """A line edit for a list of names, comma-separated (empty = none), bound to a tuple field (committed on
        Enter or when focus leaves; the store's validation names a bad entry)."""
        w = QLineEdit()
        w.setMaxLength(4200)
        w.setPlaceholderText(placeholder)
        w.setClearButtonEnabled(True)

        def write(value: Any) -> None:
            text = ", ".join(value or ())
            if w.text() != text:
                w.setText(text)

        def commit() -> None:
            current = ", ".join(get_path(self.store.scenario, path) or ())
            if w.text().strip() != current or path in self.store.errors:
                self.store.set_field(path, w.text().strip())

        self._add(path, label, w, write, tip)
        w.editingFinished.connect(commit)
        return w

    def add_count(self, path: str, label: str, *, placeholder: str = "", tip: str = "") -> QLineEdit:
        """A line edit for an optional, possibly huge count (``50M``, ``1.5B``; empty = not set)."""
        w = QLineEdit()
        w.setPlaceholderText(placeholder)
        w.setClearButtonEnabled(True)

        def write(value: Any) -> None:
            w.setText("" if value is None else format_count(float(value)))

        def commit() -> None:
            current = get_path(self.store.scenario, path)
            if path not in self.store.errors and w.text() == ("" if current is None else format_count(float(current))):
                return  # the text shows the value as it is (rounded): leaving the field changes nothing
            try:
                value: Any = parse_count(w.text())
            except ValueError:
                value = w.text()  # the store's validation names the problem
            self.store.set_field(path, value)

        self._add(path, label, w, write, tip)
        w.editingFinished.connect(commit)
        return w

    def add_hint(self, path: str, hint: QLabel) -> QLabel:
        """Show ``hint`` (e.g. where a price comes from) right under the control bound to ``path``."""
        container = self.fields[path].container
        layout = container.layout()
        layout.insertWidget(1, hint)
        return hint

    def add_widget_row(self, label: str, widget: QWidget) -> None:
        """A row that is not bound to a field (info text, buttons)."""
        if label:
            self.form.addRow(QLabel(self.tr("{label}:").format(label=label)), widget)
        else:
            self.form.addRow(widget)

    # ------------------------------------------------------------------ store -> widgets
    def refresh(self, scenario: Scenario) -> None:
        """Write the scenario's values into the controls (signals blocked, rejected fields left alone)."""
        errors = self.store.errors
        for path, field in self.fields.items():
            if path in errors:
                continue
            field.widget.blockSignals(True)
            try:
                field.write(get_path(scenario, path))
            finally:
                field.widget.blockSignals(False)
        self.update_enabled(scenario)

    def update_enabled(self, scenario: Scenario) -> None:
        """Enable or disable controls that only apply to some scenarios (override in panels)."""

    def set_row_visible(self, path: str, visible: bool) -> None:
        """Show or hide a bound control's whole row (label and field): rows that only one kind of plan uses
        (GRPO's generation settings) stay out of the way of every other plan."""
        field = self.fields[path]
        field.form.setRowVisible(field.container, visible)

    def set_enabled(self, path: str, enabled: bool, why: str = "") -> None:
        """Enable a bound control; when disabled, its tooltip says why."""
        field = self.fields[path]
        field.widget.setEnabled(enabled)
        field.widget.setToolTip(field.base_tooltip if enabled or not why else f"{why}")

    def _on_error(self, path: str, message: str) -> None:
        field = self.fields.get(path)
        if field is None:
            return
        w = field.widget
        invalid = bool(message)
        w.setProperty("invalid", invalid)
        w.setToolTip(plain_tooltip(self.tr("{label}: {message}").format(label=field.label, message=message))
                     if invalid else field.base_tooltip)
        w.style().unpolish(w)
        w.style().polish(w)
        field.message.setText(self.tr("{label} {message}. The plan still uses the last valid value.").format(
            label=field.label, message=message) if invalid else "")
        field.message.setVisible(invalid)
        if invalid and path in self.advanced_paths:
            self.open_advanced()  # a rejected value is shown where it was typed, never hidden
        field.container.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        if not invalid:
            field.widget.blockSignals(True)
            try:
                field.write(get_path(self.store.scenario, path))
            finally:
                field.widget.blockSignals(False)


def format_count(value: float) -> str:
    """A count as the count fields show it: ``500M``, ``1.5B``, else with thousands separators."""
    for suffix, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if value >= scale and (value / scale) * 1000 == int((value / scale) * 1000):
            return f"{value / scale:g}{suffix}"
    return f"{value:,.0f}"
