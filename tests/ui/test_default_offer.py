"""The offer a plan takes when a GPU is picked is node-aware (issue #21): the cheapest for the plan's GPU count,
a whole node billed whole, as Compare GPUs and the price book choose it."""

from __future__ import annotations


def _choose(combo, data) -> None:
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)


def _gpus_field(window):
    return next(panel.fields["training.num_gpus"].widget for panel in (window.batch_panel, window.hardware_panel)
                if "training.num_gpus" in panel.fields)


def test_picking_a_gpu_takes_the_cheapest_offer_for_the_plans_gpu_count(window, qtbot):
    store, combo = window.store, window.hardware_panel.gpu_combo
    assert store.scenario.training.num_gpus == 1
    # Lambda sells V100s at $0.79 a GPU-hour only as 8-GPU nodes ($6.32 an hour for each GPU a 1-GPU plan uses):
    # the cheapest offer for one GPU is Paperspace's $2.29
    _choose(combo, "v100_16gb")
    pricing = store.scenario.pricing
    assert (pricing.provider, pricing.offer_kind, pricing.price_per_gpu_hour) == (
        "Paperspace (DigitalOcean)", "on-demand", 2.29)
    # an 8-GPU plan fills Lambda's node, so its per-GPU rate is the cheapest
    _choose(combo, "rtx4090")
    field = _gpus_field(window)
    field.setValue(8)
    field.editingFinished.emit()
    qtbot.waitUntil(lambda: store.scenario.training.num_gpus == 8)
    _choose(combo, "v100_16gb")
    pricing = store.scenario.pricing
    assert (pricing.provider, pricing.price_per_gpu_hour) == ("Lambda", 0.79)
