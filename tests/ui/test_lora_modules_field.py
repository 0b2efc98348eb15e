"""#17 item 4: arbitrary LoRA target lists through the real widgets: the LoRA modules field, its validation at the
field, and the targets choice it replaces."""

from __future__ import annotations

from PySide6.QtCore import Qt


def test_a_module_list_typed_at_the_field_replaces_the_preset(window, qtbot):
    panel = window.method_panel
    edit = panel.fields["training.lora_modules"].widget
    targets = panel.fields["training.lora_targets"].widget
    store = window.store
    assert targets.isEnabled() and edit.text() == ""
    # a space inside a name is refused at the field; the plan is kept
    before = store.scenario
    edit.setFocus()
    qtbot.keyClicks(edit, "gate proj")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert store.scenario == before and panel.fields["training.lora_modules"].message.isVisible()
    edit.clear()
    qtbot.keyClicks(edit, "gate_proj, up_proj, down_proj")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert store.scenario.training.lora_modules == ("gate_proj", "up_proj", "down_proj")
    qtbot.waitUntil(lambda: not targets.isEnabled(), timeout=20_000)
    # Llama 3.1 8B, r = 16, MLP only: 32 layers x 16 x 3 x (4096 + 14336)
    qtbot.waitUntil(lambda: store.result.trainable_parameters == 32 * 16 * 3 * (4096 + 14336), timeout=20_000)
    edit.clear()
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert store.scenario.training.lora_modules == ()
    qtbot.waitUntil(targets.isEnabled, timeout=20_000)
