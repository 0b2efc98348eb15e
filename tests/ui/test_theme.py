"""Input that guides (real widgets, offscreen): themes, presets, form units and ranges, keyboard."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QCheckBox, QComboBox, QLineEdit

from tuneplan.core.estimate import estimate
from tuneplan.ui import theme
from tuneplan.ui.fields import get_path
from tuneplan.ui.presets import PRESETS, apply_preset


@pytest.fixture
def themed_window(window):
    """The window, put back to the light theme afterwards (the palette is application-wide)."""
    yield window
    window.theme.set_mode("light")


def _window_color() -> QColor:
    return QApplication.palette().color(QPalette.ColorRole.Window)


def _charts(window):
    return [window.vram_chart, window.cost_chart, window.limits_view.chart]


# ---------------------------------------------------------------------------------------- theme
def test_theme_switch_changes_palette_and_chart_backgrounds(themed_window, qtbot):
    w = themed_window
    assert w.theme.mode == "system" and not w.theme.dark  # offscreen has no dark preference
    assert _window_color().lightness() > 200
    assert all(c.backgroundBrush().color() == QColor("#ffffff") for c in _charts(w))
    w.theme.actions["dark"].trigger()
    assert w.theme.mode == "dark" and theme.is_dark()
    assert _window_color().lightness() < 60
    for chart in _charts(w):
        assert chart.backgroundBrush().color() == QColor(theme.DARK_CHART.background)
        axis = chart.getPlotItem().getAxis("bottom")
        assert axis.textPen().color() == QColor(theme.DARK_CHART.text)
    # the window's hard-coded light colours are rewritten: cards, verdict
    assert "#2f3237" in w.styleSheet() and "#ffffff" not in w.styleSheet()
    w.store.set_field("training.method", "full")  # redraws after the switch are re-coloured too
    qtbot.waitUntil(lambda: "#c62828" not in w.verdict_label.styleSheet(), timeout=20_000)
    assert "#f07b7b" in w.verdict_label.styleSheet()
    w.theme.set_mode("light")
    assert _window_color().lightness() > 200
    assert all(c.backgroundBrush().color() == QColor("#ffffff") for c in _charts(w))
    assert w.vram_chart.getPlotItem().getAxis("bottom").textPen().color() == QColor("#333333")
    assert "#ffffff" in w.styleSheet()


def test_theme_choice_is_persisted_and_follows_the_system(themed_window, monkeypatch):
    w = themed_window
    w.theme.set_mode("dark")
    assert theme.ThemeController._read_mode() == "dark"
    w.theme.set_mode("system")
    assert theme.ThemeController._read_mode() == "system" and not theme.is_dark()
    monkeypatch.setattr(theme, "system_is_dark", lambda: True)
    w.theme._on_system_changed()
    assert theme.is_dark()
    w.theme.set_mode("light")  # an explicit choice wins over the system
    assert not theme.is_dark()
    with pytest.raises(ValueError):
        w.theme.set_mode("sepia")


def test_view_menu_has_theme_choices_and_tab_shortcuts(themed_window, qtbot):
    w = themed_window
    assert set(w.theme.actions) == {"system", "light", "dark"}
    assert w.theme.actions["system"].isChecked()
    shortcuts = [a.shortcut().toString() for a in w.theme.tab_actions]
    assert shortcuts[:3] == ["Ctrl+1", "Ctrl+2", "Ctrl+3"]
    index = w.tabs.indexOf(w.limits_view)
    w.theme.tab_actions[index].trigger()
    assert w.tabs.currentWidget() is w.limits_view
    w.theme.tab_actions[0].trigger()
    assert w.tabs.currentIndex() == 0


def test_map_colors_round_trip_table():
    assert theme.map_colors("color: #C62828; background: #ffffff") == "color: #f07b7b; background: #2f3237"
    assert theme.map_colors("#123456") == "#123456"


# ---------------------------------------------------------------------------------------- presets
@pytest.mark.parametrize("preset", PRESETS, ids=[p.key for p in PRESETS])
def test_presets_apply_and_the_estimate_updates(window, preset):
    store = window.store
    model_before = store.scenario.model
    before = store.result
    assert apply_preset(store, preset)
    s = store.scenario
    for path, value in preset.fields.items():
        assert get_path(s, path) == value, path
    if preset.gpu_id:
        assert s.gpu.id == preset.gpu_id
    assert s.model == model_before  # a preset keeps the model and the dataset
    assert store.result == estimate(s)
    assert store.result != before
    # the form shows the preset's values
    assert window.batch_panel.fields["training.seq_len"].widget.value() == s.training.seq_len


def test_preset_combo_applies_and_resets(window, qtbot):
    combo = window.preset_combo
    index = combo.findData("full_fsdp_8xh100")
    combo.activated.emit(index)
    s = window.store.scenario
    assert (s.training.method, s.training.num_gpus, s.training.sharding, s.gpu.id) == (
        "full",
        8,
        "fsdp",
        "h100_sxm",
    )
    assert combo.currentIndex() == 0
    assert "Preset applied" in window.statusBar().currentMessage()
    assert combo.accessibleName() == "Preset"


def test_presets_are_sensible(window):
    """Every preset fits its GPU except none: a preset that cannot run is a bad starting point."""
    for preset in PRESETS:
        assert apply_preset(window.store, preset)
        assert window.store.result.memory.fits, preset.key


# ---------------------------------------------------------------------------------------- the form
#: Dimensionless fields (a ratio, a rank, a scale): no unit to show.
DIMENSIONLESS = {
    "training.lora_rank",
    "training.lora_alpha",
    "training.lora_dropout",
    "dataset.padding_efficiency",
    "dataset.rank_padding_efficiency",
    "dataset.packing_efficiency",
}


def _fields(window):
    for panel in window.panels:
        yield from panel.fields.items()


def test_every_field_has_an_accessible_name_and_a_unit(window):
    for path, field in _fields(window):
        w = field.widget
        assert w.accessibleName(), path
        if isinstance(w, QAbstractSpinBox) and path not in DIMENSIONLESS:
            unit_in_label = "(" in field.label or "GPUs" in field.label
            assert w.suffix().strip() or w.prefix().strip() or unit_in_label, path
        if isinstance(w, QLineEdit) and path.startswith("dataset."):
            assert "tokens" in (w.placeholderText() + w.toolTip()), path


def test_every_spin_box_range_is_accepted_by_the_model(window):
    store = window.store
    for path, field in _fields(window):
        w = field.widget
        if not isinstance(w, QAbstractSpinBox) or not w.isEnabled():
            continue
        for value in (w.minimum(), w.maximum()):
            w.setValue(value)
            assert path not in store.errors, (path, value, store.errors.get(path))
        window.store.new_scenario()


def test_keyboard_tab_order_follows_the_form_and_ctrl_l_focuses_it(window, qtbot):
    window.activateWindow()
    focus_action = next(a for a in window.actions() if a.shortcut().toString() == "Ctrl+L")
    focus_action.trigger()
    first = window.model_panel.fields["name"].widget
    qtbot.waitUntil(lambda: QApplication.focusWidget() is first, timeout=20_000)
    order = [
        f.widget
        for _p, f in _fields(window)
        if f.widget.isEnabled() and isinstance(f.widget, (QAbstractSpinBox, QComboBox, QCheckBox, QLineEdit))
    ]
    seen = []
    widget = first
    for _ in range(60):
        seen.append(widget)
        widget = widget.nextInFocusChain()
        while (
            not (widget.focusPolicy() & Qt.FocusPolicy.TabFocus)
            or not widget.isEnabled()
            or not widget.isVisible()
            or widget.focusProxy() is not None
        ):
            widget = widget.nextInFocusChain()
    positions = [seen.index(w) for w in order if w in seen]
    assert len(positions) >= 20
    assert positions == sorted(positions)  # Tab visits the fields top to bottom
