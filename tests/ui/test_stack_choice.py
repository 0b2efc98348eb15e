"""The "I train with" combo (issue #17) through the real window: one undoable step, overrides kept and shown."""

from __future__ import annotations


def _choose(combo, key):
    index = combo.findData(key)
    assert index >= 0
    combo.setCurrentIndex(index)
    combo.activated.emit(index)  # what a click in the popup sends


def test_choosing_a_stack_applies_its_defaults_in_one_undoable_step(window):
    store, panel = window.store, window.method_panel
    choice = panel.stack_choice
    assert store.set_field("training.method", "qlora")
    assert store.set_field("training.kbit_fp32_upcast", False)
    assert store.set_field("training.grad_checkpointing", False)
    before, steps = store.scenario, store.undo_stack.count()
    assert store.scenario.training.stack is None and choice.combo.currentData() is None
    assert choice.note.isHidden()

    _choose(choice.combo, "hf-peft")
    t = store.scenario.training
    # PEFT's prepare_model_for_kbit_training: 16-bit weights to FP32, gradient checkpointing on
    assert t.stack == "hf-peft" and t.kbit_fp32_upcast is True and t.grad_checkpointing is True
    assert panel.fields["training.kbit_fp32_upcast"].widget.isChecked()
    assert window.batch_panel.fields["training.grad_checkpointing"].widget.isChecked()
    assert store.undo_stack.count() == steps + 1
    assert window.undo_action.text() == "&Undo train with Hugging Face Trainer + PEFT"
    assert not choice.note.isHidden() and "FP32 unquantised weights (PEFT)" in choice.note.text()
    # the note says what each field was set to, not only its name (new-user trial)
    assert "FP32 unquantised weights (PEFT): on" in choice.note.text()
    assert "Gradient checkpointing: on" in choice.note.text()
    assert "You changed" not in choice.note.text()
    assert "huggingface/peft src/peft/utils/other.py" in choice.note.toolTip()

    # overriding an expert field keeps the stack and the value the user set, and the note says so
    panel.fields["training.kbit_fp32_upcast"].widget.click()
    assert store.scenario.training.kbit_fp32_upcast is False and store.scenario.training.stack == "hf-peft"
    assert choice.combo.currentData() == "hf-peft"
    assert "You changed: FP32 unquantised weights (PEFT)." in choice.note.text()

    window.undo_action.trigger()
    window.undo_action.trigger()
    assert store.scenario == before and choice.combo.currentData() is None and choice.note.isHidden()
    window.redo_action.trigger()
    assert store.scenario.training.stack == "hf-peft" and choice.combo.currentData() == "hf-peft"


def test_the_stack_note_is_as_tall_as_its_wrapped_text(window, qtbot):
    # the new-user check: after choosing or opening a plan with a stack the note kept the row's earlier height,
    # and its first and last lines were cut at 1366x768
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    window.store.set_field("training.stack", "llama-factory")
    note = next(p.stack_choice for p in window.panels if hasattr(p, "stack_choice")).note
    qtbot.waitUntil(lambda: note.height() >= note.heightForWidth(note.width()), timeout=5000)
    assert note.heightForWidth(note.width()) > note.fontMetrics().lineSpacing() * 3  # a long, wrapped note


def test_picking_zero3_under_a_stack_brings_its_zero3_defaults_in_the_same_undo_step(window):
    # new-user trial (issue #21): under LLaMA-Factory, choosing ZeRO-3 made the note say "You changed: DeepSpeed
    # buckets 'auto'", a field the user never touched: LF's ds_z3_config.json leaves both buckets "auto"
    # (core/stacks.py), a default that holds only at ZeRO-3 and was never applied
    store, choice = window.store, window.method_panel.stack_choice
    assert store.set_field("training.num_gpus", 2)
    _choose(choice.combo, "llama-factory")
    assert store.scenario.training.deepspeed_auto_buckets is False  # TrainingSetup's own default, below ZeRO-3
    steps = store.undo_stack.count()
    assert store.set_field("training.sharding", "zero3")
    t = store.scenario.training
    assert t.sharding == "zero3" and t.deepspeed_auto_buckets is True
    assert "You changed" not in choice.note.text()
    assert store.undo_stack.count() == steps + 1
    store.undo_stack.undo()
    assert store.scenario.training.sharding != "zero3" and store.scenario.training.deepspeed_auto_buckets is False
    store.undo_stack.redo()
    # a value the user sets is theirs: leaving ZeRO-3 then keeps it, and the note names it
    assert store.set_field("training.deepspeed_auto_buckets", False)
    assert "You changed" in choice.note.text()
    assert store.set_field("training.sharding", "zero2")
    assert store.scenario.training.deepspeed_auto_buckets is False


def test_without_a_stack_an_edit_changes_only_its_field(window):
    store = window.store
    assert store.set_field("training.num_gpus", 2)
    before = store.scenario.training
    assert store.set_field("training.sharding", "zero3")
    after = store.scenario.training
    assert {k for k in type(before).model_fields if getattr(before, k) != getattr(after, k)} == {"sharding"}


def test_packing_efficiency_is_a_field_only_where_the_stack_pads_its_packs(window):
    store = window.store
    widget = window.dataset_panel.fields["dataset.packing_efficiency"].widget
    assert store.set_field("training.sequence_mode", "packed")
    assert not widget.isEnabled()  # no stack: packed rows without gaps
    _choose(window.method_panel.stack_choice.combo, "llama-factory")
    assert store.set_field("training.sequence_mode", "packed")
    assert widget.isEnabled()
    before = store.result.time.seconds
    assert store.set_field("dataset.packing_efficiency", 0.8)
    assert store.result.time.seconds > before  # the gaps of the packs are computed
    assert store.set_field("training.sequence_mode", "dynamic")
    assert not widget.isEnabled()


def test_a_new_sequence_length_or_mean_forgets_the_counted_packing(window):
    # attack review: a packing fill counted at one sequence length stayed after the length changed (37x the tokens)
    store = window.store
    assert store.set_fields({"dataset.packing_efficiency": 0.84})
    steps = store.undo_stack.count()
    assert store.set_field("training.seq_len", 4096)
    assert store.scenario.dataset.packing_efficiency == 1.0 and store.undo_stack.count() == steps + 1
    store.undo_stack.undo()
    assert store.scenario.dataset.packing_efficiency == 0.84
    assert store.set_field("dataset.tokens_per_example", 700)
    assert store.scenario.dataset.packing_efficiency == 1.0
    assert store.set_fields({"dataset.packing_efficiency": 0.84})
    assert store.set_field("dataset.epochs", 2)  # other fields keep it
    assert store.scenario.dataset.packing_efficiency == 0.84


def test_several_fields_at_once_bring_the_stack_defaults_too_and_advice_shows_what_apply_sets(window):
    # attack review: set_fields (advice, presets, the dataset dialog) skipped the stack's follow-ups: LF + ZeRO-3 and
    # 8 GPUs at once left the buckets off and the note said "You changed: DeepSpeed buckets"; under Hugging Face +
    # PEFT "Use QLoRA" changed the method alone
    store, choice = window.store, window.method_panel.stack_choice
    assert store.set_field("training.num_gpus", 4)
    _choose(choice.combo, "llama-factory")
    assert store.set_fields({"training.sharding": "zero3", "training.num_gpus": 8})
    assert store.scenario.training.deepspeed_auto_buckets is True and "You changed" not in choice.note.text()
    from tuneplan.core import stacks
    from tuneplan.core.advice import _candidates

    assert store.set_fields({"training.sharding": "none", "training.num_gpus": 1, "training.method": "full"})
    _choose(choice.combo, "hf-peft")
    assert store.scenario.training.method == "full" and not stacks.overridden(store.scenario.training)
    qlora = next(ch for key, _t, _r, ch in _candidates(store.scenario, []) if key == "qlora")
    # PEFT's prepare_model_for_kbit_training: the unquantised weights in FP32 and checkpointing on (core/stacks.py)
    assert qlora["training.kbit_fp32_upcast"] is True and qlora["training.grad_checkpointing"] is True
    assert store.set_fields(qlora)
    assert not stacks.overridden(store.scenario.training) and "You changed" not in choice.note.text()
