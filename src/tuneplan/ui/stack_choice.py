"""The "I train with" choice at the top of the Method panel (issue #17).

Choosing a stack applies its defaults (``tuneplan.core.stacks``) through the store as one undoable step; the expert
fields stay editable, and a note under the combo says what the stack set and which of its settings the plan
overrides (the tooltip gives each setting's reason and source).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from tuneplan.core import stacks
from tuneplan.core.scenario import Scenario
from tuneplan.core.terms import Note
from tuneplan.ui.fields import ComboBox
from tuneplan.ui.i18n import OPTIMIZER_LABELS, core_note_text, plain_tooltip
from tuneplan.ui.store import AppStore

__all__ = ["StackChoice"]


class StackChoice(QWidget):
    """A combo of the training stacks (first entry: none chosen) and a note on what the chosen one set."""

    def __init__(self, store: AppStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        box = QVBoxLayout(self)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(2)
        self.combo = ComboBox()
        self.combo.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.combo.setAccessibleName(self.tr("I train with"))
        self.combo.setToolTip(self.tr("The framework you fine-tune with: sets the defaults it really uses (adapter "
                                      "precision, FP32 upcast, loss, checkpointing, FSDP sync...), each read from its "
                                      "source. Every field stays editable"))
        self.combo.addItem(self.tr("Not chosen (set every field yourself)"), None)
        for profile in stacks.STACKS:  # proper names, not translated; the plain loop is words
            self.combo.addItem(self.tr("Plain PyTorch loop") if profile.key == "pytorch" else profile.name, profile.key)
        self.combo.activated.connect(self._on_activated)
        box.addWidget(self.combo)
        self.note = QLabel()
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setWordWrap(True)
        self.note.setStyleSheet("color: #666666;")
        self.note.setAccessibleName(self.tr("What the stack set"))
        box.addWidget(self.note)
        store.scenario_changed.connect(self.refresh)
        self.refresh(store.scenario)

    def _label(self, field: str) -> str:
        path = f"training.{field}"
        label = self.store.field_label(path) if self.store.field_label is not None else ""
        if not label and field == "framework":
            label = self.tr("Speed tier")  # no form field of its own: the stack's kernels (HF eager or optimized)
        return label or field.replace("_", " ").capitalize()

    def _value(self, field: str, value: Any) -> str:
        """A stack default as the note shows it: on/off, the optimizer's name, else the value itself."""
        if isinstance(value, bool):
            return self.tr("on") if value else self.tr("off")
        if field == "optimizer":
            try:
                return OPTIMIZER_LABELS[str(value)]
            except KeyError:
                return str(value)
        return str(value)

    def _on_activated(self, index: int) -> None:
        key = self.combo.itemData(index)
        t = self.store.scenario.training
        if key == t.stack:
            return
        new = stacks.apply_stack(t, key)
        updates: dict[str, Any] = {f"training.{f}": v for f, v in new.model_dump().items() if getattr(t, f) != v}
        name = self.combo.itemText(index)
        with self.store.undo_group(self.tr("train with {stack}").format(stack=name)):
            self.store.set_fields(updates, error_field="training.stack")

    def _fit_note(self) -> None:
        """Give the word-wrapped note the height its text needs at its width: the form row keeps the height of the
        first text it laid out otherwise, which clipped a longer note's first and last lines."""
        width = self.note.width()
        if width > 0 and self.note.isVisibleTo(self):
            self.note.setMinimumHeight(self.note.heightForWidth(width))

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt naming
        super().resizeEvent(event)
        self._fit_note()

    def refresh(self, scenario: Scenario) -> None:
        """Show the plan's stack and what it set (called on every scenario change)."""
        t = scenario.training
        self.combo.blockSignals(True)
        try:
            self.combo.setCurrentIndex(max(self.combo.findData(t.stack), 0))
        finally:
            self.combo.blockSignals(False)
        if t.stack is None:
            self.note.setText("")
            self.note.setToolTip("")
            self.note.hide()
            return
        defaults = stacks.resolved_defaults(t.stack, t)
        changed = stacks.overridden(t)
        text = self.tr("Sets {fields}.").format(fields=", ".join(
            f"{self._label(f)}: {self._value(f, d.value)}" for f, d in defaults.items()))
        if changed:
            text += " " + self.tr("You changed: {fields}.").format(fields=", ".join(self._label(f) for f in changed))
        self.note.setText(text)
        self._fit_note()
        lines = []
        for field, d in defaults.items():
            reason = core_note_text(Note(code=d.code, params={}))
            lines.append(f"{self._label(field)} = {d.value}: {reason} [{d.source.text()}]")
        left = stacks.get_stack(t.stack).left_to_user
        if left:
            lines.append(self.tr("Left to you: {fields}").format(fields=", ".join(self._label(f) for f in left)))
        self.note.setToolTip(plain_tooltip("\n".join(lines)))
        self.note.show()
