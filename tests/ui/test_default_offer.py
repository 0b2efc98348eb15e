"""The offer a plan takes when a GPU is picked is node-aware (issue #21): the cheapest for the plan's GPU count,
a whole node billed whole, as Compare GPUs and the price book choose it."""

from __future__ import annotations

import pytest


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


def _set_gpus(window, qtbot, n: int) -> None:
    field = _gpus_field(window)
    field.setValue(n)
    field.editingFinished.emit()
    qtbot.waitUntil(lambda: window.store.scenario.training.num_gpus == n)


def _shown_offer(window) -> str:
    combo = window.hardware_panel.offer_combo
    return combo.currentText()


def test_a_new_gpu_count_picks_the_default_offer_for_that_count(window, qtbot):
    # issue #21: the count changed, the price stayed the old count's. V100 prices in the bundled book:
    # Lambda on-demand $0.79 per GPU-hour sold only as 8-GPU nodes, Paperspace on-demand $2.29, AWS $3.06.
    store = window.store
    _choose(window.hardware_panel.gpu_combo, "v100_16gb")
    assert (store.scenario.pricing.provider, store.scenario.pricing.price_per_gpu_hour) == (
        "Paperspace (DigitalOcean)", 2.29)
    # 8 GPUs fill Lambda's node: $0.79 < $2.29 a GPU-hour
    _set_gpus(window, qtbot, 8)
    assert (store.scenario.pricing.provider, store.scenario.pricing.price_per_gpu_hour) == ("Lambda", 0.79)
    assert _shown_offer(window).startswith("Lambda · "), _shown_offer(window)
    # 4 GPUs still pay for Lambda's whole node: 8 x $0.79 / 4 = $1.58 a GPU-hour, still below Paperspace's $2.29
    _set_gpus(window, qtbot, 4)
    assert store.scenario.pricing.provider == "Lambda"
    assert store.scenario.pricing.price_per_gpu_hour == pytest.approx(8 * 0.79 / 4)
    assert _shown_offer(window).startswith("Lambda · "), _shown_offer(window)
    # 1 GPU would pay 8 x $0.79 = $6.32 an hour at Lambda: Paperspace's $2.29 again
    _set_gpus(window, qtbot, 1)
    assert (store.scenario.pricing.provider, store.scenario.pricing.price_per_gpu_hour) == (
        "Paperspace (DigitalOcean)", 2.29)
    # the price is part of the count's edit: undo and redo take them together (the quick edits of one field merge
    # into one step, so undo goes back to before the first, redo to after the last)
    store.set_field("training.num_gpus", 4)
    store.undo_stack.undo()
    assert store.current_offer() is not None  # whatever count undo restored, its price is an offer's for that count
    store.undo_stack.redo()
    assert (store.scenario.training.num_gpus, store.scenario.pricing.provider) == (4, "Lambda")
    assert store.scenario.pricing.price_per_gpu_hour == pytest.approx(1.58)


def test_an_offer_the_user_picked_stays_and_bills_its_whole_node_for_the_new_count(window, qtbot):
    store, offers = window.store, window.hardware_panel.offer_combo
    _choose(window.hardware_panel.gpu_combo, "v100_16gb")
    lambda_row = next(i for i in range(offers.count()) if offers.itemText(i).startswith("Lambda · "))
    offers.setCurrentIndex(lambda_row)
    # picked for a 1-GPU plan, Lambda's 8-GPU node is billed whole: 8 x $0.79 = $6.32 for the plan's one GPU
    assert store.scenario.pricing.provider == "Lambda"
    assert store.scenario.pricing.price_per_gpu_hour == pytest.approx(6.32)
    assert offers.currentIndex() == lambda_row  # the picker still shows the offer, not "Your own price"
    # the user's choice stays at 2 GPUs, its node shared by two: 8 x $0.79 / 2 = $3.16 (Paperspace would be $2.29)
    _set_gpus(window, qtbot, 2)
    assert store.scenario.pricing.provider == "Lambda"
    assert store.scenario.pricing.price_per_gpu_hour == pytest.approx(3.16)
    assert offers.currentIndex() == lambda_row


def test_the_users_own_price_stays_when_the_gpu_count_changes(window, qtbot):
    store = window.store
    store.set_field("pricing.price_per_gpu_hour", 1.23)
    _set_gpus(window, qtbot, 8)
    pricing = store.scenario.pricing
    assert (pricing.offer_kind, pricing.price_per_gpu_hour) == ("custom", 1.23)


def test_an_offer_too_long_for_the_form_is_whole_in_its_tooltip(window, qtbot):
    # new-user trial at 1366x768 (issue #21): "Paperspace (DigitalOcean) · on-demand · $2.29/h · undated" was cut
    from PySide6.QtCore import Qt

    offers = window.hardware_panel.offer_combo
    _choose(window.hardware_panel.gpu_combo, "v100_16gb")
    text = offers.currentText()
    assert text.startswith("Paperspace (DigitalOcean) · on-demand · $2.29/h")
    assert offers.fontMetrics().horizontalAdvance(text) > offers.width()  # wider than the field: cut on screen
    assert text in offers.toolTip()
    for i in range(1, offers.count()):  # each offer of the list too
        assert offers.itemData(i, Qt.ItemDataRole.ToolTipRole) == offers.itemText(i)


def test_a_node_only_offer_says_so_in_the_picker_and_the_price_line_shows_the_whole_node(window, qtbot):
    # new-user trial (issue #21): AWS p5 (8x) on a 2-GPU plan set the price to $27.52 per GPU-hour while the offer
    # read "$6.88/h"; two "Lambda · on-demand" rows ($3.99 for 8-GPU nodes, $4.29 for one GPU) looked alike
    from tuneplan import catalog

    store, panel = window.store, window.hardware_panel
    _choose(panel.gpu_combo, "h100_sxm")
    _set_gpus(window, qtbot, 2)
    aws = next(e for e in catalog.prices_for_gpu("h100_sxm") if e.provider == "AWS" and e.kind == "on-demand")
    assert aws.gpus_per_node == 8 and not aws.node_sizes
    texts = [panel.offer_combo.itemText(i) for i in range(panel.offer_combo.count())]
    assert any(t.startswith(f"AWS · on-demand · ${aws.usd_per_gpu_hour:.2f}/h per GPU, 8-GPU nodes only") for t in texts)
    lambdas = [t for t in texts if t.startswith("Lambda · on-demand")]
    assert len(lambdas) == 2 and len(set(lambdas)) == 2 and sum("8-GPU nodes only" in t for t in lambdas) == 1
    assert store.set_price_offer(aws)
    # the 2-GPU plan pays for the 8-GPU node: 6.88 x 8 / 2 = 27.52 per GPU-hour (catalog.billed_gpus)
    assert store.scenario.pricing.price_per_gpu_hour == pytest.approx(aws.usd_per_gpu_hour * 8 / 2)
    line = panel.price_source.text()
    assert line.startswith(f"8 GPUs billed (whole nodes): ${aws.usd_per_gpu_hour:.2f}/h × 8 ÷ 2 · AWS"), line
