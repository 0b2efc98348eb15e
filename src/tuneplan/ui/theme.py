"""Light and dark themes that follow the system, with a View → Theme override.

The app runs the Fusion style everywhere, so a theme is three things:

* a :class:`QPalette` for the whole application (:func:`light_palette`, :func:`dark_palette`);
* the hard-coded light colours in style sheets and rich text (the main window's cards, captions,
  the verdict, the summary, field errors, the advice panel) rewritten through one table,
  :data:`DARK_COLORS`, and rewritten back on the way to light;
* pyqtgraph charts, which paint their own background, axes, legends and labels: every
  ``PlotWidget`` in the window is re-coloured by :func:`style_chart` (originals are remembered on
  each item, so switching back restores exactly what the chart drew).

"System" reads ``QStyleHints.colorScheme()`` (Qt 6.5+) and follows its changes live. The choice is
stored in ``<data dir>/ui.ini`` (a ``QSettings`` INI file next to the scenario library, so a test's
``TUNEPLAN_DATA_DIR`` isolates it). Views written for both themes re-read :func:`is_dark` when they
receive ``QEvent.PaletteChange``.

:func:`install_theme` also adds the View menu's tab shortcuts (Ctrl+1 … Ctrl+9).
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

import pyqtgraph as pg  # noqa: E402
from PySide6.QtCore import QCoreApplication, QObject, QSettings, Qt, QTimer, Signal  # noqa: E402
from PySide6.QtGui import QAction, QActionGroup, QColor, QGuiApplication, QKeySequence, QPalette  # noqa: E402
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QMenu, QWidget  # noqa: E402

from tuneplan.ui.menus import view_menu  # noqa: E402
from tuneplan.ui.settings import ui_settings  # noqa: E402

__all__ = [
    "DARK_COLORS",
    "MODES",
    "ChartColors",
    "ThemeController",
    "chart_colors",
    "dark_palette",
    "install_theme",
    "is_dark",
    "light_palette",
    "map_colors",
    "mark_self_themed",
    "style_chart",
    "system_is_dark",
    "themed",
]

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

log = logging.getLogger(__name__)

#: The theme choices, as stored in the settings file.
MODES = ("system", "light", "dark")
SETTINGS_KEY = "view/theme"

#: Light colour (as written in style sheets and rich text across the UI) -> its dark counterpart.
#: Greys invert their lightness; the semantic colours (good, bad, warning) get brighter variants
#: that keep at least 4.5:1 contrast on the dark card and window backgrounds.
DARK_COLORS: dict[str, str] = {
    "#ffffff": "#2f3237",  # cards and summary frame
    "#f7f7f7": "#2a2d31",
    "#dcdcdc": "#474b52",  # card borders
    "#d0d0d0": "#4d5158",  # group box borders
    "#888888": "#9da2a9",
    "#666666": "#aeb3ba",  # muted text
    "#555555": "#b9bdc4",  # captions
    "#333333": "#dfe1e5",
    "#202020": "#e8e8e8",
    "#000000": "#e8e8e8",
    "#2e7d32": "#73c77a",  # fits
    "#c62828": "#f07b7b",  # does not fit, errors, capacity
    "#8a5a00": "#e3b55a",  # warnings
    "#fff4f4": "#3a2a2b",  # advice panel: does not fit
    "#e8b4b4": "#7d4747",
    "#fff8e6": "#38321f",  # advice panel: tight
    "#e6cf99": "#7a6a3a",
    "#1565c0": "#7fb0ff",  # the user's own GPU (VRAM and limits charts)
}

_HEX = re.compile(r"#[0-9a-fA-F]{6}\b")


def map_colors(text: str, table: dict[str, str] | None = None) -> str:
    """``text`` with every ``#rrggbb`` found in ``table`` (default: light -> dark) replaced."""
    table = DARK_COLORS if table is None else table
    return _HEX.sub(lambda m: table.get(m.group(0).lower(), m.group(0)), text)


def themed(text: str) -> str:
    """A style sheet or rich text written in light colours, in the colours of the theme in effect.

    Views that redraw often write through this, so the theme never has to re-colour them.
    """
    return map_colors(text) if is_dark() else text


SELF_THEMED = "tuneplanSelfThemed"


def mark_self_themed(*widgets: QWidget) -> None:
    """Tell the theme these widgets write their colours through :func:`themed` (never re-coloured)."""
    for w in widgets:
        w.setProperty(SELF_THEMED, True)


def system_is_dark() -> bool:
    """Whether the desktop asks for a dark colour scheme (False where Qt cannot tell)."""
    hints = QGuiApplication.styleHints()
    scheme = getattr(hints, "colorScheme", None)  # Qt >= 6.5
    return bool(scheme and scheme() == Qt.ColorScheme.Dark)


def is_dark(widget: QWidget | None = None) -> bool:
    """Whether the palette in effect (the widget's, else the application's) is a dark one."""
    pal = widget.palette() if widget is not None else QGuiApplication.palette()
    return pal.color(QPalette.ColorRole.Window).lightness() < 128


def _palette(colors: dict[QPalette.ColorRole, str], disabled: dict[QPalette.ColorRole, str]) -> QPalette:
    pal = QPalette()
    for role, color in colors.items():
        pal.setColor(QPalette.ColorGroup.All, role, QColor(color))
    for role, color in disabled.items():
        pal.setColor(QPalette.ColorGroup.Disabled, role, QColor(color))
    return pal


R = QPalette.ColorRole


def light_palette() -> QPalette:
    """Fusion's light palette, spelled out so "Light" stays light on a dark desktop."""
    return _palette(
        {
            R.Window: "#efefef",
            R.WindowText: "#000000",
            R.Base: "#ffffff",
            R.AlternateBase: "#f7f7f7",
            R.ToolTipBase: "#ffffdc",
            R.ToolTipText: "#000000",
            R.PlaceholderText: "#7f7f7f",
            R.Text: "#000000",
            R.Button: "#efefef",
            R.ButtonText: "#000000",
            R.BrightText: "#ffffff",
            R.Light: "#ffffff",
            R.Midlight: "#cacaca",
            R.Mid: "#b8b8b8",
            R.Dark: "#9f9f9f",
            R.Shadow: "#767676",
            R.Highlight: "#308cc6",
            R.HighlightedText: "#ffffff",
            R.Link: "#0000ff",
            R.LinkVisited: "#ff00ff",
        },
        {
            R.WindowText: "#bebebe",
            R.Text: "#bebebe",
            R.ButtonText: "#bebebe",
            R.Base: "#efefef",
            R.Highlight: "#919191",
        },
    )


def dark_palette() -> QPalette:
    """A dark palette for Fusion: light text on dark greys, readable links and a blue selection."""
    return _palette(
        {
            R.Window: "#26282c",
            R.WindowText: "#e4e6ea",
            R.Base: "#1d1f22",
            R.AlternateBase: "#2a2d31",
            R.ToolTipBase: "#33363c",
            R.ToolTipText: "#e4e6ea",
            R.PlaceholderText: "#8d9299",
            R.Text: "#e4e6ea",
            R.Button: "#303338",
            R.ButtonText: "#e4e6ea",
            R.BrightText: "#ff7070",
            R.Light: "#43474d",
            R.Midlight: "#383b41",
            R.Mid: "#2b2e33",
            R.Dark: "#18191c",
            R.Shadow: "#0c0d0e",
            R.Highlight: "#3d7bd9",
            R.HighlightedText: "#ffffff",
            R.Link: "#7fb3ff",
            R.LinkVisited: "#c39bff",
        },
        {
            R.WindowText: "#7a7f87",
            R.Text: "#7a7f87",
            R.ButtonText: "#7a7f87",
            R.Base: "#26282c",
            R.Highlight: "#4a4e55",
        },
    )


# ---------------------------------------------------------------------------------------- charts
@dataclass(frozen=True)
class ChartColors:
    """Colours a pyqtgraph chart needs in one theme."""

    background: str
    text: str
    axis: str
    label_fill: QColor
    legend_fill: QColor
    legend_border: str


LIGHT_CHART = ChartColors(
    "#ffffff", "#333333", "#888888", QColor(255, 255, 255, 210), QColor(255, 255, 255, 230), "#dddddd"
)
DARK_CHART = ChartColors(
    "#1d1f22", "#dfe1e5", "#8d9299", QColor(29, 31, 34, 215), QColor(38, 40, 44, 235), "#474b52"
)


def chart_colors(dark: bool | None = None) -> ChartColors:
    """The chart colours of the theme in effect (or of ``dark`` when given)."""
    return DARK_CHART if (is_dark() if dark is None else dark) else LIGHT_CHART


def _dark_qcolor(c: QColor) -> QColor:
    mapped = DARK_COLORS.get(c.name().lower())
    if mapped:
        out = QColor(mapped)
    elif c.hslSaturation() < 40 and c.lightness() < 110:  # dark greys and black: text-like, invert
        out = QColor.fromHsl(c.hslHue(), c.hslSaturation(), 255 - c.lightness())
    else:
        return QColor(c)
    out.setAlpha(c.alpha())
    return out


def _remember(item: Any, key: str, value: Any) -> Any:
    """The item's light original for ``key`` (recorded on first sight)."""
    store = item.__dict__.setdefault("_tuneplan_light", {})
    return store.setdefault(key, value)


def _same_pen(a: Any, b: Any) -> bool:
    return a.color() == b.color() and a.style() == b.style() and a.widthF() == b.widthF()


def style_chart(chart: pg.PlotWidget, dark: bool) -> None:
    """Re-colour one pyqtgraph chart for the theme: background, axes, legends, markers and labels.

    Light colours are remembered on each item the first time it is seen, so the light theme
    restores exactly what the chart's own code drew. Coloured data (bars, curves) keeps its
    colours; near-black lines and text become light, white label fills become dark. Only what
    differs is set: an unchanged axis label costs no re-layout.
    """
    colors = chart_colors(dark)
    bg = _remember(chart, "background", QColor(chart.backgroundBrush().color()))
    want_bg = QColor(colors.background) if dark else bg
    if chart.backgroundBrush().color() != want_bg:
        chart.setBackground(want_bg)
    plot = chart.getPlotItem()
    for name in ("left", "bottom", "right", "top"):
        axis = plot.getAxis(name)
        pen = _remember(axis, "pen", QColor(axis.pen().color()))
        text = _remember(axis, "text", QColor(axis.textPen().color()))
        want_pen = QColor(colors.axis) if dark else pen
        if axis.pen().color() != want_pen:
            axis.setPen(pg.mkPen(want_pen))
        want_text = QColor(colors.text) if dark else text
        if axis.textPen().color() != want_text:
            axis.setTextPen(pg.mkPen(want_text))
        if axis.labelText:
            label_color = _remember(axis, "label", str(axis.labelStyle.get("color", LIGHT_CHART.text)))
            want = colors.text if dark else label_color
            if str(axis.labelStyle.get("color")) != want:
                axis.setLabel(
                    axis.labelText,
                    axis.labelUnits or None,
                    axis.labelUnitPrefix or None,
                    **{**axis.labelStyle, "color": want},
                )
    scene = chart.scene()
    if scene is None:
        return
    for item in scene.items():
        if isinstance(item, pg.LegendItem):
            _style_legend(item, colors, dark)
        elif isinstance(item, pg.TextItem):  # includes InfiniteLine labels
            color = _remember(item, "color", QColor(item.color))
            fill = _remember(item, "fill", pg.mkBrush(item.fill))
            want = _dark_qcolor(color) if dark else color
            if item.color != want:
                item.setColor(want)
            if fill.style() != Qt.BrushStyle.NoBrush and fill.color().lightness() > 200:
                dark_fill = QColor(colors.label_fill)
                dark_fill.setAlpha(fill.color().alpha())
                want_fill = dark_fill if dark else fill.color()
                if item.fill.color() != want_fill:
                    item.fill = pg.mkBrush(want_fill)
                    item.update()
        elif isinstance(item, pg.InfiniteLine):
            pen = _remember(item, "pen", pg.mkPen(item.pen))
            new = pg.mkPen(pen)
            if dark:
                new.setColor(_dark_qcolor(pen.color()))
            if not _same_pen(item.pen, new):
                item.setPen(new)
        elif isinstance(item, pg.ScatterPlotItem):
            brush = _remember(item, "brush", pg.mkBrush(item.opts["brush"]))
            pen = _remember(item, "pen", pg.mkPen(item.opts["pen"]))
            want_brush, want_pen = brush, pen
            if dark:
                want_pen = pg.mkPen(pen)
                want_pen.setColor(
                    _dark_qcolor(pen.color()) if pen.color().lightness() < 110 else QColor(colors.background)
                )
                want_brush = pg.mkBrush(_dark_qcolor(brush.color()))
            if item.opts["brush"].color() != want_brush.color():
                item.setBrush(want_brush)
            if not _same_pen(item.opts["pen"], want_pen):
                item.setPen(want_pen)


def _style_legend(item: pg.LegendItem, colors: ChartColors, dark: bool) -> None:
    brush = _remember(item, "brush", pg.mkBrush(item.opts["brush"]))
    border = _remember(item, "pen", pg.mkPen(item.opts["pen"]))
    label = _remember(item, "label", pg.mkColor(item.opts["labelTextColor"] or LIGHT_CHART.text))
    has_fill = brush.style() != Qt.BrushStyle.NoBrush
    has_border = border.style() != Qt.PenStyle.NoPen
    item.setBrush(pg.mkBrush(colors.legend_fill) if dark and has_fill else brush)
    item.setPen(pg.mkPen(colors.legend_border) if dark and has_border else border)
    want = QColor(colors.text) if dark else label
    if pg.mkColor(item.opts["labelTextColor"] or LIGHT_CHART.text) != want or any(
        pg.mkColor(lab.opts.get("color") or LIGHT_CHART.text) != want for _s, lab in item.items
    ):
        item.setLabelTextColor(want)
        for _sample, lab in item.items:  # LabelItem.setAttr alone does not re-render the text
            lab.setText(lab.text, color=want)


# ------------------------------------------------------------------------------------ controller


def _settings() -> QSettings:
    return ui_settings()


class ThemeController(QObject):
    """Applies the chosen theme to the application and one main window, and remembers the choice.

    Signals:
        changed(bool): the effective theme changed; ``True`` means dark.
    """

    changed = Signal(bool)

    def __init__(self, window: QMainWindow) -> None:
        super().__init__(window)
        self.window = window
        #: View → Theme's actions by mode, and the tab shortcuts (install_theme fills them)
        self.actions: dict[str, QAction] = {}
        self.tab_actions: list[QAction] = []
        self._mode = self._read_mode()
        self._dark: bool | None = None
        self._base_sheet = window.styleSheet()
        # After every redraw (including views that redraw on a 0 ms timer) new light colours may
        # have been written; one queued pass per burst of edits re-colours them.
        self._recolor_timer = QTimer(self)
        self._recolor_timer.setSingleShot(True)
        self._recolor_timer.setInterval(0)
        self._recolor_timer.timeout.connect(self._recolor_dynamic)

    # ------------------------------------------------------------------ state
    @property
    def mode(self) -> str:
        """``system``, ``light`` or ``dark``."""
        return self._mode

    @property
    def dark(self) -> bool:
        """Whether the effective theme is dark."""
        return self._mode == "dark" or (self._mode == "system" and system_is_dark())

    @staticmethod
    def _read_mode() -> str:
        try:
            value = str(_settings().value(SETTINGS_KEY, "system"))
        except OSError:
            return "system"
        return value if value in MODES else "system"

    def set_mode(self, mode: str) -> None:
        """Choose ``system``, ``light`` or ``dark``; applies it and stores it in the settings file."""
        if mode not in MODES:
            raise ValueError(f"unknown theme {mode!r}")
        self._mode = mode
        try:
            settings = _settings()
            settings.setValue(SETTINGS_KEY, mode)
            settings.sync()
        except OSError as exc:  # an unwritable data folder must not break the menu
            log.warning("cannot store the theme: %s", exc)
        self.apply()

    # ------------------------------------------------------------------ applying
    def apply(self) -> None:
        """Apply the effective theme: palette, style sheets, rich text and charts."""
        dark = self.dark
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setPalette(dark_palette() if dark else light_palette())
        self.window.setStyleSheet(map_colors(self._base_sheet) if dark else self._base_sheet)
        self._recolor_widgets(dark)
        self._style_charts(dark)
        if dark != self._dark:
            self._dark = dark
            self.changed.emit(dark)

    def _on_system_changed(self, *_args: Any) -> None:
        if self._mode == "system":
            self.apply()

    def schedule_recolor(self, *_args: Any) -> None:
        """Re-colour what the views redrew since the last pass (one queued pass; dark theme only)."""
        if self._dark:
            self._recolor_timer.start()

    def _recolor_dynamic(self) -> None:
        if self._dark:
            self._recolor_dynamic_now()

    def _recolor_dynamic_now(self) -> None:
        self._recolor_widgets(True)
        self._style_charts(True)

    def _style_charts(self, dark: bool) -> None:
        for chart in self.window.findChildren(pg.PlotWidget):
            style_chart(chart, dark)

    def _recolor_widgets(self, dark: bool) -> None:
        for w in self.window.findChildren(QWidget):
            if w.property(SELF_THEMED):
                continue
            sheet = w.styleSheet()
            if sheet and "#" in sheet:
                self._swap(w, "Sheet", sheet, dark, w.setStyleSheet)
            if isinstance(w, QLabel):
                text = w.text()
                if "#" in text and "color" in text:
                    self._swap(w, "Text", text, dark, w.setText)

    @staticmethod
    def _swap(w: QWidget, what: str, current: str, dark: bool, setter: Any) -> None:
        light_key, dark_key = f"tuneplanLight{what}", f"tuneplanDark{what}"
        if current == w.property(dark_key):  # showing our dark version
            if not dark:
                setter(w.property(light_key))
            return
        # the view wrote (light) content since the last pass
        if dark:
            mapped = map_colors(current)
            w.setProperty(light_key, current)
            w.setProperty(dark_key, mapped)
            if mapped != current:
                setter(mapped)


def _install_tab_shortcuts(window: QMainWindow, menu: QMenu) -> list[QAction]:
    tabs = getattr(window, "tabs", None)
    if tabs is None:
        return []
    go = menu.addMenu(translate("Theme", "&Go to view"))
    actions = []
    for n in range(1, 10):
        action = QAction(translate("Theme", "View {n}").format(n=n), window)
        action.setShortcut(QKeySequence(f"Ctrl+{n}"))
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(
            lambda _c=False, i=n - 1: tabs.setCurrentIndex(i) if i < tabs.count() else None
        )
        window.addAction(action)
        go.addAction(action)
        actions.append(action)

    def rename() -> None:  # the menu shows the tabs' current titles
        for i, action in enumerate(actions):
            action.setText(
                tabs.tabText(i).replace("&", "&&")
                if i < tabs.count()
                else translate("Theme", "View {n}").format(n=i + 1)
            )
            action.setVisible(i < tabs.count())

    go.aboutToShow.connect(rename)
    rename()
    return actions


def install_theme(window: QMainWindow) -> ThemeController:
    """Add View → Theme (System / Light / Dark) and tab shortcuts to ``window`` and apply the stored theme.

    Returns the :class:`ThemeController`.
    """
    controller = ThemeController(window)
    menu = view_menu(window)
    sub = menu.addMenu(translate("Theme", "&Theme"))
    group = QActionGroup(window)
    group.setExclusive(True)
    labels = {
        "system": translate("Theme", "Follow the &system"),
        "light": translate("Theme", "&Light"),
        "dark": translate("Theme", "&Dark"),
    }
    controller.actions = {}
    for mode in MODES:
        action = QAction(labels[mode], window, checkable=True)
        action.setChecked(mode == controller.mode)
        action.triggered.connect(lambda _c=False, m=mode: controller.set_mode(m))
        group.addAction(action)
        sub.addAction(action)
        controller.actions[mode] = action
    menu.addSeparator()
    controller.tab_actions = _install_tab_shortcuts(window, menu)
    hints = QGuiApplication.styleHints()
    if hasattr(hints, "colorSchemeChanged"):
        hints.colorSchemeChanged.connect(controller._on_system_changed)
    store = getattr(window, "store", None)
    if store is not None:
        store.result_changed.connect(controller.schedule_recolor)
    tabs = getattr(window, "tabs", None)
    if tabs is not None:  # views fill their tab lazily; colour what they drew
        tabs.currentChanged.connect(controller.schedule_recolor)
    controller.apply()
    return controller
