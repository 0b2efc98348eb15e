"""A row of widgets that wraps onto more lines when it is narrower than its items (Qt's flow layout example).

A toolbar-like row in a tab (Compare GPUs' budget, filter and buttons) otherwise makes the whole window as wide
as the sum of its widgets: 725 px for one row kept the window 262 px wider than a 1024-pixel screen (issue #21).
An expanding spacer (:meth:`FlowLayout.addStretch`) takes its line's leftover width, so buttons after it stay
right-aligned while the row fits on one line.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLabel, QLayout, QLayoutItem, QSizePolicy, QSpacerItem, QWidget, QWidgetItem

__all__ = ["FlowLayout"]


class FlowLayout(QLayout):
    """Items left to right, a new line when the next one does not fit; height for width."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6, line_spacing: int = 4) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self._line_spacing = line_spacing
        self.setContentsMargins(0, 0, 0, 0)

    # -- building ----------------------------------------------------------------------------
    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt naming
        self._items.append(item)
        self.invalidate()

    def addWidget(self, widget: QWidget) -> None:  # noqa: N802 - Qt naming
        self.addChildWidget(widget)
        self.addItem(QWidgetItem(widget))

    def addSpacing(self, size: int) -> None:  # noqa: N802 - Qt naming
        self.addItem(QSpacerItem(size, 0, QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Minimum))

    def addStretch(self) -> None:  # noqa: N802 - Qt naming
        self.addItem(QSpacerItem(0, 0, QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Minimum))

    # -- QLayout -------------------------------------------------------------------------------
    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt naming
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt naming
        if 0 <= index < len(self._items):
            item = self._items.pop(index)
            self.invalidate()
            return item
        return None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt naming
        return Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt naming
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt naming
        return self._do_layout(QRect(0, 0, width, 0), apply=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt naming
        super().setGeometry(rect)
        self._do_layout(rect, apply=True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt naming
        """Everything on one line."""
        hints = [i.sizeHint() for i in self._visible()]
        m = self.contentsMargins()
        width = sum(h.width() for h in hints) + self._spacing * max(0, len(hints) - 1)
        height = max((h.height() for h in hints), default=0)
        return QSize(width + m.left() + m.right(), height + m.top() + m.bottom())

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt naming
        """The widest single item: the row wraps down to one item a line."""
        size = QSize()
        for item in self._visible():
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    # -- layout ----------------------------------------------------------------------------------
    @staticmethod
    def _hint(item: QLayoutItem) -> QSize:
        """A word-wrapped label asks for its text's whole width (QLabel's own hint wraps it early)."""
        hint = item.sizeHint()
        label = item.widget()
        if isinstance(label, QLabel) and label.wordWrap() and label.textFormat() != Qt.TextFormat.RichText:
            m = label.contentsMargins()
            width = label.fontMetrics().horizontalAdvance(label.text()) + m.left() + m.right() + 2 * label.margin() + 2
            hint = QSize(max(hint.width(), width), hint.height())
        return hint

    def _visible(self) -> list[QLayoutItem]:
        return [i for i in self._items if not (i.widget() is not None and i.widget().isHidden())]

    def lines(self, width: int) -> list[list[QLayoutItem]]:
        """The items on each line at ``width`` (stretches included): what a test checks the wrapping by."""
        m = self.contentsMargins()
        room = max(1, width - m.left() - m.right())
        lines: list[list[QLayoutItem]] = [[]]
        used = 0
        for item in self._visible():
            w = self._hint(item).width()
            spacer = item.spacerItem() is not None
            if lines[-1] and not spacer and used + self._spacing + w > room:
                lines.append([])
                used = 0
            if not lines[-1] and spacer:
                continue  # a spacer never starts a line
            used += (self._spacing if lines[-1] else 0) + w
            lines[-1].append(item)
        return [line for line in lines if line]

    def _do_layout(self, rect: QRect, apply: bool) -> int:
        m = self.contentsMargins()
        inner = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        y = inner.y()
        lines = self.lines(rect.width())
        for n, line in enumerate(lines):
            hints = [self._hint(i) for i in line]
            used = sum(h.width() for h in hints) + self._spacing * (len(line) - 1)
            stretches = [i for i in line if i.spacerItem() is not None and i.sizeHint().width() == 0]
            extra = max(0, inner.width() - used)
            sizes = []
            for item, hint in zip(line, hints, strict=True):
                w = hint.width() + (extra // len(stretches) if item in stretches else 0)
                if item.spacerItem() is None:
                    w = min(w, inner.width())  # an item wider than the whole row (a long label) shrinks to it
                # a word-wrapped label narrowed to the row grows to the lines it wraps into
                h = item.heightForWidth(w) if item.hasHeightForWidth() else hint.height()
                sizes.append(QSize(w, h))
            height = max(size.height() for size in sizes)
            x = inner.x()
            for item, size in zip(line, sizes, strict=True):
                if apply:
                    h = height if item.expandingDirections() & Qt.Orientation.Vertical else size.height()
                    item.setGeometry(QRect(QPoint(x, y + (height - h) // 2), QSize(size.width(), h)))
                x += size.width() + self._spacing
            y += height + (self._line_spacing if n < len(lines) - 1 else 0)
        return y - inner.y() + m.top() + m.bottom() if lines else m.top() + m.bottom()
