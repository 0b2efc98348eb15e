"""#17: the Method panel's "Quantised base" choice (bitsandbytes NF4 or LLM.int8), through the real widgets."""

from __future__ import annotations


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
