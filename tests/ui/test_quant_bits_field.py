"""#17: the Method panel's "Quantised base" choice (bitsandbytes NF4 or LLM.int8), through the real widgets."""

from __future__ import annotations

import pytest


def test_the_quantised_base_choice_moves_the_weights_and_greys_double_quant(window, qtbot):
    panel = window.method_panel
    combo = panel.fields["training.quant_bits"].widget
    double = panel.fields["training.double_quant"].widget
    assert window.store.scenario.training.method == "qlora"  # the default plan
    assert combo.isEnabled() and combo.currentData() == 4 and double.isEnabled()
    before = window.store.result.memory.total_bytes
    combo.setCurrentIndex(combo.findData(8))
    assert window.store.scenario.training.quant_bits == 8
    # Llama 3.1 8B: 6.98e9 layer weights go from ~0.516 B to ~1 B each, ~3.4e9 B more
    qtbot.waitUntil(lambda: window.store.result.memory.total_bytes > before + 3e9, timeout=20_000)
    assert not double.isEnabled()  # double quantisation is an NF4 setting
    method = panel.fields["training.method"].widget
    method.setCurrentIndex(method.findData("lora"))
    qtbot.waitUntil(lambda: not combo.isEnabled(), timeout=20_000)


def test_the_hqq_library_choice_moves_the_weights_and_enables_its_group_size(window, qtbot):
    panel = window.method_panel
    library = panel.fields["training.quant_method"].widget
    group = panel.fields["training.quant_group_size"].widget
    double = panel.fields["training.double_quant"].widget
    assert library.isEnabled() and library.currentData() == "bnb" and not group.isEnabled()
    before = window.store.result.memory.components
    library.setCurrentIndex(library.findData("hqq"))
    assert window.store.scenario.training.quant_method == "hqq"
    qtbot.waitUntil(group.isEnabled, timeout=20_000)
    assert not double.isEnabled()  # double quantisation is bitsandbytes' NF4 setting
    bits = panel.fields["training.quant_bits"].widget
    assert bits.currentText() == "4-bit (HQQ)"  # the bits say whose format they are
    # Llama 3.1 8B: 6.98e9 layer weights at 0.5625 B (HQQ, groups of 64) instead of 0.5159 B (NF4 + double quant)
    weights = lambda comps: next(c.bytes for c in comps if c.key == "weights")  # noqa: E731
    qtbot.waitUntil(lambda: weights(window.store.result.memory.components) - weights(before)
                    == pytest.approx(6_979_321_856 * (0.5625 - (4 + 8 / 64 + 32 / 16384) / 8)),
                    timeout=20_000)
    group.setValue(128)
    assert window.store.scenario.training.quant_group_size == 128
