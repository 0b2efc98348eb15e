"""The main window with real widgets (offscreen): form edits flow through the store to the charts."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QLineEdit

from tuneplan import catalog
from tuneplan.core.estimate import estimate
from tuneplan.core.result import GIB
from tuneplan.storage import read_scenario_file
from tuneplan.ui.fields import get_path


def _field(window, path):
    for panel in window.panels:
        if path in panel.fields:
            return panel.fields[path]
    raise KeyError(path)


def _choose(combo, data):
    index = combo.findData(data)
    assert index >= 0, data
    combo.setCurrentIndex(index)


def _bars(window):
    return {key: seg for key, seg in window.vram_chart.segments.items()}


def test_opens_on_default_plan_and_bar_matches_ledger(window):
    s = window.store.scenario
    assert (s.model_id, s.training.method, s.gpu.id) == ("llama-3.1-8b", "qlora", "rtx4090")
    result = window.store.result
    assert result == estimate(catalog.default_scenario())
    bars = _bars(window)
    left = 0.0
    for comp in result.memory.components:
        seg = bars[comp.key]
        assert seg.opts["width"][0] == pytest.approx(comp.bytes / GIB)
        assert seg.opts["x0"][0] == pytest.approx(left)
        assert seg.name() == comp.label  # English: the core's label
        left += comp.bytes / GIB
    assert left == pytest.approx(result.memory.total_bytes / GIB)
    assert window.vram_chart.capacity_gib == pytest.approx(23.99)
    assert window.vram_chart.capacity_line.label.format == "RTX 4090: 23.99 GiB"
    assert window.verdict_label.text() == result.memory.verdict()
    assert "Llama 3.1 8B" in window.windowTitle()
    assert "*" not in window.windowTitle()
    legend_names = [label.text for _sample, label in window.vram_chart.legend.items]
    assert "Weights" in legend_names and "CUDA context" in legend_names


def test_segment_tooltip_names_formula_and_source(window):
    comp = window.store.result.memory.component("activations")
    tip = window.vram_chart.segments["activations"].toolTip()
    assert "Activations" in tip and "GiB" in tip
    assert "Source:" in tip and comp.source.split()[0] in tip
    start, size = window.vram_chart.current_series()["weights"]
    assert window.vram_chart.segment_at(start + size / 2) == "weights"


def test_sequence_length_spinbox_raises_activations_and_peak(window, qtbot):
    spin = _field(window, "training.seq_len").widget
    before_act = window.vram_chart.current_series()["activations"][1]
    before_peak = window.store.result.memory.total_bytes
    spin.setFocus()
    spin.selectAll()
    qtbot.keyClicks(spin, "8192")
    assert window.store.scenario.training.seq_len == 8192
    after_act = window.vram_chart.current_series()["activations"][1]
    assert after_act > before_act
    assert window.store.result.memory.total_bytes > before_peak
    assert window.memory_card.value.text() == f"{window.store.result.memory.total_bytes / GIB:.1f} GiB"
    assert window.windowTitle().count("*") == 1


def test_full_fine_tuning_on_4090_is_short(window):
    # By hand: 8.03e9 params x (2 B weights + 2 B grads + 4 B AdamW bf16 states) = 64 GB >> 24 GiB.
    _choose(_field(window, "training.method").widget, "full")
    assert window.store.scenario.training.method == "full"
    mem = window.store.result.memory
    assert mem.total_bytes > 8.03e9 * 8
    assert not mem.fits
    assert window.verdict_label.text().startswith("short by")
    assert "c62828" in window.verdict_label.styleSheet()
    assert not _field(window, "training.lora_rank").widget.isEnabled()
    assert _field(window, "training.master_weights").widget.isEnabled()


def test_lora_fields_follow_the_method(window):
    assert _field(window, "training.lora_rank").widget.isEnabled()
    assert _field(window, "training.double_quant").widget.isEnabled()
    _choose(_field(window, "training.method").widget, "lora")
    assert _field(window, "training.lora_rank").widget.isEnabled()
    assert not _field(window, "training.double_quant").widget.isEnabled()


def test_adapter_precision_choice_reaches_the_estimate(window):
    # default plan: QLoRA r=16 all-linear on Llama 3.1 8B, 41,943,040 adapter parameters: FP32 (4 B) by default,
    # 2 B each when the adapters are held in the training precision
    combo = _field(window, "training.adapter_precision").widget
    assert combo.isEnabled()
    assert window.store.result.memory.component("adapters").bytes == 41_943_040 * 4
    _choose(combo, "model-dtype")
    assert window.store.scenario.training.adapter_precision == "model-dtype"
    assert window.store.result.memory.component("adapters").bytes == 41_943_040 * 2
    _choose(_field(window, "training.method").widget, "full")
    assert not combo.isEnabled()


def test_torch_compile_box_lowers_the_saved_activations(window):
    box = _field(window, "training.torch_compile").widget
    assert not box.isChecked()
    before = window.store.result.memory.peak_allocated_bytes
    box.click()
    assert window.store.scenario.training.torch_compile is True
    assert window.store.result.memory.peak_allocated_bytes <= before


def test_fsdp_gradient_sync_and_unit_fields_follow_the_plan_and_reach_the_estimate(window):
    sync = _field(window, "training.grad_sync").widget
    wrap = _field(window, "training.fsdp_wrap").widget
    assert not sync.isEnabled() and not wrap.isEnabled()  # one GPU
    _choose(_field(window, "training.method").widget, "full")
    _field(window, "training.num_gpus").widget.setValue(8)
    _choose(_field(window, "training.sharding").widget, "fsdp")
    assert not sync.isEnabled()  # no accumulation yet
    assert wrap.isEnabled() and wrap.currentData() == "layers"
    _choose(wrap, "separate-embeddings")  # (no root-unit gradients at the end of the backward)
    _field(window, "training.grad_accumulation").widget.setValue(4)
    assert sync.isEnabled() and sync.currentData() == "step"
    # Llama 3.1 8B full fine-tuning in bf16 under no_sync: 8,030,261,248 x 2 B unsharded gradients at the backward;
    # synced every micro-batch, the 1/8 shard
    assert window.store.result.memory.component("gradients").bytes == 8_030_261_248 * 2
    _choose(sync, "micro-batch")
    assert window.store.scenario.training.grad_sync == "micro-batch"
    assert window.store.result.memory.component("gradients").bytes == 8_030_261_248 * 2 / 8
    _choose(_field(window, "training.method").widget, "lora")
    _choose(wrap, "blocks-with-adapters")
    assert window.store.scenario.training.fsdp_wrap == "blocks-with-adapters"
    # every frozen layer weight gets a gradient shard, 32 x 218,103,808 x 2 B / 8 = 1,744,830,464 B, next to the
    # adapters' (41,943,040 x 2 B / 8 = 10,485,760 B: in the unit's FlatParameter they take the weights' dtype),
    # kept from the earlier micro-batches at the loss's backward
    mem = window.store.result.memory
    assert mem.peak_phase == "backward"
    assert mem.component("gradients").bytes == 1_744_830_464 + 10_485_760


def test_choosing_a100_80gb_moves_capacity_line(window):
    gpu = catalog.match_gpu("A100 80GB")
    assert gpu is not None
    _choose(window.hardware_panel.gpu_combo, gpu.id)
    assert window.store.scenario.gpu.id == gpu.id
    assert window.vram_chart.capacity_gib == pytest.approx(80.0)
    assert "80.00 GiB" in window.vram_chart.capacity_line.label.format
    entry = catalog.default_price(gpu.id)
    p = window.store.scenario.pricing
    assert (p.provider, p.price_per_gpu_hour, p.price_date) == (entry.provider, entry.usd_per_gpu_hour, entry.date_seen)
    assert entry.provider in window.hardware_panel.price_source.text()


def test_typed_price_survives_gpu_change(window):
    price = _field(window, "pricing.price_per_gpu_hour").widget
    price.setValue(1.23)
    assert window.store.scenario.pricing.price_per_gpu_hour == pytest.approx(1.23)
    assert window.hardware_panel.price_source.text() == "Your price"
    _choose(window.hardware_panel.gpu_combo, "h100_sxm")
    assert window.store.scenario.pricing.price_per_gpu_hour == pytest.approx(1.23)


def test_invalid_store_value_shows_message_and_keeps_last_good(window, qtbot):
    store = window.store
    good, good_result = store.scenario, store.result
    with qtbot.waitSignal(store.error, check_params_cb=lambda f, m: f == "training.micro_batch" and bool(m)):
        assert store.set_field("training.micro_batch", 0) is False
    assert store.scenario == good and store.result == good_result
    field = _field(window, "training.micro_batch")
    assert field.message.isVisible()
    assert "must be at least 1" in field.message.text()
    assert field.widget.property("invalid") is True
    assert "must be at least 1" in field.widget.toolTip()
    # a valid value clears the message
    assert store.set_field("training.micro_batch", 2)
    assert not field.message.isVisible()
    assert field.widget.property("invalid") is False
    assert field.widget.value() == 2


def test_invalid_typed_total_tokens_is_rejected_inline(window, qtbot):
    edit = _field(window, "dataset.total_tokens").widget
    before = window.store.scenario
    edit.setFocus()
    qtbot.keyClicks(edit, "lots")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert window.store.scenario == before
    msg = _field(window, "dataset.total_tokens").message
    assert msg.isVisible() and "must be a number" in msg.text()
    # a decimal comma is refused, not read as 15M; commas between thousands are fine
    edit.clear()
    qtbot.keyClicks(edit, "1,5M")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert window.store.scenario == before and msg.isVisible()
    edit.clear()
    qtbot.keyClicks(edit, "1,500,000")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert window.store.scenario.dataset.total_tokens == 1_500_000
    edit.clear()
    qtbot.keyClicks(edit, "50M")
    qtbot.keyClick(edit, Qt.Key.Key_Return)
    assert window.store.scenario.dataset.total_tokens == pytest.approx(5e7)
    assert not msg.isVisible()
    assert not _field(window, "dataset.examples").widget.isEnabled()


def test_save_and_reopen_round_trips(window, tmp_path, monkeypatch):
    store = window.store
    store.set_field("training.seq_len", 4096)
    store.set_field("dataset.epochs", 2.5)
    store.set_gpu("l40s")
    assert window.windowTitle().count("*") == 1
    # A new plan is saved into the library under the name the user confirms (ui.library_view).
    from tuneplan.ui.library_view import LibraryController

    monkeypatch.setattr(LibraryController, "ask_scenario_name", lambda self, title, suggestion: suggestion)
    window.save_action.trigger()
    target = window.path
    assert target is not None and target.exists() and "*" not in window.windowTitle()
    saved, saved_result = store.scenario, store.result
    assert read_scenario_file(target) == saved
    window.new_plan()
    assert store.scenario.gpu.id == "rtx4090"
    monkeypatch.setattr(type(window), "ask_open_path", lambda self: str(target))
    window.open_action.trigger()
    assert store.scenario == saved
    assert store.result == saved_result
    assert window.store.dirty is False
    assert _field(window, "training.seq_len").widget.value() == 4096
    assert window.hardware_panel.gpu_combo.currentData() == "l40s"
    assert window.shown_errors == []


def test_opening_a_broken_file_keeps_the_plan(window, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    before = window.store.scenario
    assert window.open_plan(bad) is False
    assert window.store.scenario == before
    assert window.shown_errors and "bad.json" in window.shown_errors[0][1]


def test_importing_a_broken_config_shows_error_and_keeps_model(window, tmp_path, qtbot):
    broken = tmp_path / "config.json"
    broken.write_text('{"model_type": "llama", "hidden_size": ', encoding="utf-8")
    panel = window.model_panel
    panel.pick_config = lambda: str(broken)
    qtbot.mouseClick(panel.import_button, Qt.MouseButton.LeftButton)
    assert window.store.scenario.model_id == "llama-3.1-8b"
    assert panel.import_error.isVisible()
    assert "not valid JSON" in panel.import_error.text()


def test_importing_a_config_uses_it(window, tmp_path):
    cfg = {
        "model_type": "llama", "_name_or_path": "acme/tiny-llama", "hidden_size": 1024,
        "num_hidden_layers": 8, "num_attention_heads": 16, "num_key_value_heads": 4,
        "intermediate_size": 2816, "vocab_size": 32000,
    }
    folder = tmp_path / "tiny"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    assert window.model_panel.import_config(str(folder))
    s = window.store.scenario
    assert s.model_id == "" and s.model.hidden_size == 1024
    assert window.model_panel.combo.currentText().startswith("Imported: acme/tiny-llama")
    assert "8 layers" in window.model_panel.info.text()
    # back to a catalog model removes the imported entry
    _choose(window.model_panel.combo, "qwen2.5-7b")
    assert window.store.scenario.model_id == "qwen2.5-7b"
    assert window.model_panel.combo.findData(window.model_panel.IMPORTED) == -1


def test_cost_curve_ends_at_total(window):
    xs, ys = window.cost_chart.current_series()
    cost = window.store.result.cost
    assert ys[-1] == pytest.approx(cost.total_usd)
    assert xs[-1] == pytest.approx(cost.curve[-1].hours)
    training = window.cost_chart.phase_items["training"]
    assert len(training.xData) > 2
    assert window.cost_chart.done_label.toPlainText().endswith(f"${cost.total_usd:,.2f}")
    window.store.set_field("dataset.epochs", 6)
    assert window.cost_chart.current_series()[1][-1] == pytest.approx(window.store.result.cost.total_usd)


def test_charts_export_png_and_svg(window, tmp_path):
    png, svg = tmp_path / "m.png", tmp_path / "c.svg"
    assert window.export_chart(window.vram_chart, "memory", png)
    assert window.export_chart(window.cost_chart, "cost", svg)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in svg.read_bytes()[:2000]


def test_local_gpu_panel_shows_probe_result(window, qtbot):
    window.start_probe()
    qtbot.waitUntil(lambda: "RTX 4090" in window.local_gpu_panel.text(), timeout=20_000)
    assert "22.5 GiB free" in window.local_gpu_panel.text()
    assert window.local_gpu_panel.refresh_button.isEnabled()


def test_every_control_has_an_accessible_name(window):
    for panel in window.panels:
        for path, field in panel.fields.items():
            assert field.widget.accessibleName(), path


def test_plan_with_a_non_catalog_gpu_shows_it_as_custom(window):
    s = catalog.default_scenario()
    custom = s.model_copy(update={"gpu": s.gpu.model_copy(update={"memory_gib": 20.0})})
    assert window.store.load_scenario(custom)
    combo = window.hardware_panel.gpu_combo
    assert combo.currentText().startswith("Custom: GeForce RTX 4090")
    assert window.vram_chart.capacity_gib == pytest.approx(20.0)
    _choose(combo, "rtx4090")
    assert window.store.scenario.gpu.memory_gib == pytest.approx(23.99)
    assert combo.findData(window.hardware_panel.CUSTOM_GPU) == -1


def test_short_runs_are_drawn_in_minutes(window):
    window.store.set_field("dataset.examples", 200)
    cost = window.store.result.cost
    assert cost.curve[-1].hours < 1
    chart = window.cost_chart
    assert "minutes" in chart.getPlotItem().getAxis("bottom").labelText
    last_phase_x = max(max(item.xData) for item in chart.phase_items.values() if item.xData is not None and len(item.xData))
    assert last_phase_x == pytest.approx(cost.curve[-1].hours * 60)
    assert chart.current_series()[0][-1] == pytest.approx(cost.curve[-1].hours)  # data stays in hours
    assert " min · $" in chart.done_label.toPlainText()


def test_plan_name_follows_choices_until_renamed(window, qtbot):
    name = _field(window, "name").widget
    window.store.set_field("training.method", "lora")
    assert window.store.scenario.name == "Llama 3.1 8B LoRA on RTX 4090"
    assert name.text() == window.store.scenario.name
    assert window.windowTitle().startswith("Llama 3.1 8B LoRA on RTX 4090*")
    name.setFocus()
    name.selectAll()
    qtbot.keyClicks(name, "Support bot v2")
    qtbot.keyClick(name, Qt.Key.Key_Return)
    assert window.store.scenario.name == "Support bot v2"
    window.store.set_gpu("l40s")
    assert window.store.scenario.name == "Support bot v2"
    name.selectAll()
    qtbot.keyClick(name, Qt.Key.Key_Delete)
    qtbot.keyClick(name, Qt.Key.Key_Return)
    assert window.store.scenario.name == "Support bot v2"
    assert "must not be empty" in _field(window, "name").message.text()


@pytest.mark.parametrize("bad", [float("nan"), float("inf")])
def test_non_finite_value_is_reported_as_not_a_number(window, bad):
    store = window.store
    before = store.scenario
    assert not store.set_field("pricing.price_per_gpu_hour", bad)
    assert store.scenario == before  # the last good plan is kept
    msg = _field(window, "pricing.price_per_gpu_hour").message
    assert msg.isVisible() and "must be a number" in msg.text()
    assert "at most" not in msg.text()


def test_cached_earlier_batches_drawn_after_the_device_total(window):
    # dynamic padding under LoRA: the allocator's cache of earlier batch shapes (docs/validation-allocator.md)
    store = window.store
    assert store.set_fields({"training.sequence_mode": "dynamic", "training.micro_batch": 2})
    mem = store.result.memory
    assert mem.cache_bytes > 0
    start, size = window.vram_chart.current_series()["cache"]
    assert start == pytest.approx(mem.total_bytes / 2**30)  # after the stacked total: not part of what must fit
    assert size == pytest.approx(mem.cache_bytes / 2**30)
    assert "shorter batches" in window.vram_chart.cache.toolTip()
    labels = lambda: [label.text for _sample, label in window.vram_chart.legend.items]  # noqa: E731
    assert any("Cached blocks" in t for t in labels())
    assert store.set_field("training.sequence_mode", "packed")
    assert "cache" not in window.vram_chart.current_series()
    assert not any("Cached blocks" in t for t in labels())


def test_paged_optimizer_states_drawn_after_the_device_total(window):
    store = window.store
    assert store.set_fields({"training.method": "full", "training.optimizer": "paged-adamw-8bit",
                             "training.optimizer_in_backward": True})
    mem = store.result.memory
    series = window.vram_chart.current_series()
    start, size = series["paged"]
    # outside the stacked total (components sum to the device total), same size as the ledger's paged states
    assert start == pytest.approx(mem.total_bytes / 2**30)
    assert size == pytest.approx(mem.paged_bytes / 2**30)
    assert "unified memory" in window.vram_chart.paged.toolTip()
    labels = lambda: [label.text for _sample, label in window.vram_chart.legend.items]  # noqa: E731
    assert any("Paged optimizer states" in t for t in labels())
    assert store.set_field("training.optimizer", "adamw-8bit")
    assert "paged" not in window.vram_chart.current_series()
    assert not any("Paged optimizer states" in t for t in labels())


def test_verdict_card_says_when_a_plan_that_does_not_fit_may_fit(window):
    # The likely range (docs/accuracy.md) reaches below the estimate: total / (1 + p90). A plan just over the card
    # by the estimate whose lower end fits gets "may fit"; found through the form.
    _choose(_field(window, "training.sequence_mode").widget, "dynamic")
    for seq in range(5000, 20000, 100):
        window.store.set_field("training.seq_len", seq)
        mem = window.store.result.memory
        if not mem.fits and mem.low_bytes <= mem.capacity_bytes:
            break
    else:
        pytest.fail("no length found where the estimate does not fit and the lower end of the range does")
    assert window.verdict_label.text().startswith("short by")
    assert window.verdict_card.detail.text().endswith("may fit: the lower bound does")
    assert window.store.result.memory.cache_bytes == 0  # a card that is full keeps no cache of earlier batches
    assert "(nvidia-smi)" in window.memory_card.detail.text()
    window.store.set_field("training.seq_len", 2048)  # plenty of room: no warning
    assert "fit" not in window.verdict_card.detail.text()
    assert "2e7d32" in window.verdict_label.styleSheet()
    # with room to spare, QLoRA with dynamic padding keeps a cache beside what must fit, and the headline says so
    assert window.store.result.memory.cache_bytes > 0
    assert "what must fit" in window.memory_card.detail.text()


def test_typing_long_numbers_keeps_their_digits(window, qtbot):
    # the store echoes each keystroke back to the spin box; re-rendering "1,234" mid-typing moved the cursor, so
    # 12345 became 12,354 and 32768 became 32,786
    store = window.store
    for path, text, value in (("training.seq_len", "12345", 12345), ("dataset.examples", "32768", 32768),
                              ("dataset.tokens_per_example", "12345", 12345.0)):
        w = _field(window, path).widget
        w.setFocus()
        w.selectAll()
        qtbot.keyClicks(w, text)
        qtbot.keyClick(w, Qt.Key.Key_Return)
        assert get_path(store.scenario, path) == value, path
        assert w.value() == value


def test_ctrl_z_in_a_focused_field_reaches_the_plans_undo(window):
    # a spin box's line edit accepts the ShortcutOverride of Ctrl+Z / Ctrl+Shift+Z for its own text undo
    # (QWidgetLineControl::processShortcutOverrideEvent), so with a field focused Edit -> Undo never ran; the
    # field's filter leaves both to the window
    w = _field(window, "training.seq_len").widget
    for mods in (Qt.KeyboardModifier.ControlModifier,
                 Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier):
        event = QKeyEvent(QEvent.Type.ShortcutOverride, Qt.Key.Key_Z, mods)
        QApplication.sendEvent(w.lineEdit(), event)
        assert not event.isAccepted()
    # other keys stay the field's
    copy = QKeyEvent(QEvent.Type.ShortcutOverride, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    QApplication.sendEvent(w.lineEdit(), copy)
    assert copy.isAccepted()
    # and a plain line edit without the filter keeps Ctrl+Z, as the reason for it says
    plain = QLineEdit()
    own = QKeyEvent(QEvent.Type.ShortcutOverride, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    QApplication.sendEvent(plain, own)
    assert own.isAccepted()


def test_a_plan_its_stack_refuses_is_not_called_a_fit(window, qtbot):
    # the new-user check: LLaMA-Factory refuses predict_with_generate under ZeRO-3; the memory fits, yet the run
    # stops at once, so the verdict says so (red), with the memory verdict kept in its detail
    store = window.store
    assert store.set_fields({"training.stack": "llama-factory", "training.method": "lora", "training.num_gpus": 2,
                             "training.sharding": "zero3", "training.eval_micro_batch": 2,
                             "training.eval_generate_tokens": 64})
    qtbot.waitUntil(lambda: window.verdict_label.text() == "cannot run as planned", timeout=20_000)
    assert store.result.memory.fits
    assert window.verdict_card.detail.text().startswith("memory fits")
    assert "#c62828" in window.verdict_label.styleSheet()
    # the cost chart's end says what it would be, greyed (new-user trial: "done · 1.0 h · $55.17" in full colour)
    from tuneplan.ui.charts import BLOCKED_TEXT_COLOR, TEXT_COLOR

    label = window.cost_chart.done_label
    assert label.toPlainText().startswith("if it could run: ")
    assert label.color.name() == BLOCKED_TEXT_COLOR
    store.set_field("training.sharding", "zero2")  # LLaMA-Factory runs it under ZeRO-2
    qtbot.waitUntil(lambda: window.verdict_label.text() != "cannot run as planned", timeout=20_000)
    assert label.toPlainText().startswith("done · ") and label.color.name() == TEXT_COLOR.lower()
