"""#17: the Batch panel's evaluation-batch field, through the real widget."""

from __future__ import annotations


def test_the_evaluation_batch_field_starts_off_and_moves_the_peak(window, qtbot):
    field = window.batch_panel.fields["training.eval_micro_batch"].widget
    assert field.value() == 0 and field.text() == field.specialValueText() != ""  # "off" (translated)
    assert window.store.result.memory.peak_phase != "evaluation"
    field.setValue(8)  # HF's per_device_eval_batch_size default on the default plan (Llama 3.1 8B, 2,048 tokens)
    assert window.store.scenario.training.eval_micro_batch == 8
    qtbot.waitUntil(lambda: window.store.result.memory.peak_phase == "evaluation", timeout=5000)
    assert not window.store.result.memory.fits  # 8 x 2,048 x 128,256 x 10 B of logits: 19.6 GiB on a 24 GB card
