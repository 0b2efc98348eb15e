"""The collapsed "Advanced" sections of the Method and Batch panels, the DeepSpeed buffer fields and FlashAttention 1
(issues #21, #17, #16), through the real widgets."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

LEFT = Qt.MouseButton.LeftButton


def test_expert_fields_start_collapsed_and_open_on_click(window, qtbot):
    method, batch = window.method_panel, window.batch_panel
    for panel, expert in ((method, "training.adapter_precision"), (batch, "training.fsdp_wrap")):
        assert expert in panel.advanced_paths
        assert not panel.fields[expert].widget.isVisible()
        assert panel.fields["training.method" if panel is method else "training.micro_batch"].widget.isVisible()
        qtbot.mouseClick(panel.advanced_toggle, LEFT)
        assert panel.fields[expert].widget.isVisible()
        qtbot.mouseClick(panel.advanced_toggle, LEFT)
        assert not panel.fields[expert].widget.isVisible()
    # what a new user sees stays simple: the everyday fields are not in the sections
    assert {"training.method", "training.precision", "training.optimizer", "training.lora_rank"}.isdisjoint(
        method.advanced_paths)
    assert {"training.micro_batch", "training.seq_len", "training.num_gpus", "training.sharding"}.isdisjoint(
        batch.advanced_paths)


def test_a_rejected_value_in_a_closed_section_opens_it(window, qtbot):
    batch = window.batch_panel
    assert not batch.advanced_body.isVisible()
    field = batch.fields["training.deepspeed_reduce_bucket"]
    assert not window.store.set_field("training.deepspeed_reduce_bucket", -5)  # below 0: refused by the plan
    assert batch.advanced_body.isVisible() and field.message.isVisible()
    assert window.store.scenario.training.deepspeed_reduce_bucket is None  # the last good value stays


def test_deepspeed_bucket_fields_write_the_plan_and_change_the_memory(window, qtbot):
    store = window.store
    assert store.set_fields({"training.method": "lora", "training.num_gpus": 4, "training.sharding": "zero2"})
    batch = window.batch_panel
    batch.open_advanced()
    edit = batch.fields["training.deepspeed_reduce_bucket"].widget
    assert edit.isEnabled() and "500M" in edit.placeholderText()
    before = store.result.memory.component("gradients").bytes
    edit.setText("200M")
    edit.editingFinished.emit()
    assert store.scenario.training.deepspeed_reduce_bucket == 200e6
    # ZeRO-2's reduce bucket in the 16-bit dtype: (5e8 - 2e8) x 2 B fewer at the loss's backward
    assert before - store.result.memory.component("gradients").bytes == 600_000_000
    # ZeRO-3-only fields are off below stage 3
    assert not batch.fields["training.deepspeed_prefetch_bucket"].widget.isEnabled()
    auto = batch.fields["training.deepspeed_auto_buckets"].widget
    edit.setText("")
    edit.editingFinished.emit()
    assert store.scenario.training.deepspeed_reduce_bucket is None
    auto.click()
    assert store.scenario.training.deepspeed_auto_buckets is True


def test_flash_attention_1_is_a_kernel_choice(window):
    combo = window.batch_panel.fields["training.attention"].widget
    combo.setCurrentIndex(combo.findData("flash1"))
    assert window.store.scenario.training.attention == "flash1"
    assert window.store.result.time.term("attention").detail == "flash1"


def test_workload_and_reference_model_choices(window):
    """#18 in the GUI: a DPO plan with a frozen copy as reference shows the reference model as its own bar segment
    and the reference forward as a step term; the reference choice only applies to DPO and KTO."""
    from tuneplan.ui.i18n import component_label

    panel = window.method_panel
    ref = panel.fields["training.reference_model"].widget
    assert not ref.isEnabled()  # SFT has no reference
    work = panel.fields["training.workload"].widget
    assert window.store.set_field("training.method", "full")
    work.setCurrentIndex(work.findData("dpo"))
    assert window.store.scenario.training.workload == "dpo" and ref.isEnabled()
    ref.setCurrentIndex(ref.findData("copy"))
    result = window.store.result
    assert window.store.scenario.training.reference_model == "copy"
    assert result.memory.component("reference").bytes > 0
    assert "reference" in window.vram_chart.segments
    assert component_label("reference", "") == "Reference model"
    assert result.time.term("reference").value > 0
    ref.setCurrentIndex(ref.findData(None))
    assert window.store.scenario.training.reference_model is None


def test_auto_buckets_show_what_they_resolve_to(window):
    # Llama 3.1 8B, hidden 4096: "auto" fills reduce 4096^2 = 16,777,216 and prefetch 0.9 x that = 15,099,494
    store = window.store
    assert store.set_fields({"training.num_gpus": 4, "training.sharding": "zero3"})
    reduce = window.batch_panel.fields["training.deepspeed_reduce_bucket"].widget
    prefetch = window.batch_panel.fields["training.deepspeed_prefetch_bucket"].widget
    assert reduce.placeholderText().startswith("500M")
    assert store.set_field("training.deepspeed_auto_buckets", True)
    assert reduce.placeholderText().startswith("16,777,216") and prefetch.placeholderText().startswith("15,099,494")


def test_grpo_rows_appear_for_grpo_and_follow_the_engine(window, qtbot):
    """#18 GRPO in the GUI: its rows are hidden for every other workload; choosing GRPO shows completions per prompt,
    completion length, generation and beta; the vLLM share and sleep only for a colocated engine, the server's GPUs
    only for a server; a colocated engine puts its share of the card in the bar and a generation term in the step."""
    panel = window.method_panel
    window.show()
    qtbot.waitExposed(window)
    grpo_rows = ("training.num_generations", "training.completion_tokens", "training.generation_engine",
                 "training.kl_beta")
    for path in (*grpo_rows, "training.vllm_memory_share", "training.vllm_server_gpus"):
        assert not panel.fields[path].widget.isVisible()
    assert panel.fields["training.reference_model"].widget.isVisible()
    work = panel.fields["training.workload"].widget
    work.setCurrentIndex(work.findData("grpo"))
    t = window.store.scenario.training
    assert t.workload == "grpo"
    for path in grpo_rows:
        assert panel.fields[path].widget.isVisible()
    assert not panel.fields["training.reference_model"].widget.isVisible()
    assert not panel.fields["training.vllm_memory_share"].widget.isVisible()
    engine = panel.fields["training.generation_engine"].widget
    engine.setCurrentIndex(engine.findData("vllm-colocate"))
    assert panel.fields["training.vllm_memory_share"].widget.isVisible()
    assert not panel.fields["training.vllm_server_gpus"].widget.isVisible()
    share = panel.fields["training.vllm_memory_share"].widget
    share.setValue(0.4)
    share.editingFinished.emit()
    result = window.store.result
    # the default card (RTX 4090, 23.99 GiB) x 0.4
    assert result.memory.component("generation").bytes == pytest.approx(0.4 * window.store.scenario.gpu.memory_gib
                                                                        * 2**30)
    assert "generation" in window.vram_chart.segments
    assert result.time.term("generation").value > 0
    engine.setCurrentIndex(engine.findData("vllm-server"))
    assert panel.fields["training.vllm_server_gpus"].widget.isVisible()
    assert not panel.fields["training.vllm_memory_share"].widget.isVisible()
    # a completion as long as the row is refused at the field; the last good plan stays
    assert not window.store.set_field("training.completion_tokens", window.store.scenario.training.seq_len)
    assert panel.fields["training.completion_tokens"].message.isVisible()
    assert window.store.scenario.training.completion_tokens == 512


def test_choosing_grpo_on_short_rows_gives_the_completion_half_the_row(window, qtbot):
    """#18: a plan of 256-token rows is shorter than TRL's default completion (512); choosing GRPO in the Workload
    combo used to be refused at that field ("completion_tokens (512) must be shorter than seq_len (256)") while the
    completion length it names stayed hidden. Now the plan becomes GRPO with a 256 // 2 = 128-token completion and a
    128-token prompt, and the completion row shows it."""
    store, panel = window.store, window.method_panel
    window.show()
    qtbot.waitExposed(window)
    assert store.set_field("training.seq_len", 256)
    work = panel.fields["training.workload"].widget
    work.setCurrentIndex(work.findData("grpo"))
    t = store.scenario.training
    assert (t.workload, t.completion_tokens, t.seq_len) == ("grpo", 128, 256)
    assert not panel.fields["training.workload"].message.isVisible()
    completion = panel.fields["training.completion_tokens"].widget
    assert completion.isVisible() and completion.value() == 128
    # rows that hold the default completion keep it
    assert store.set_field("training.workload", "sft") and store.set_field("training.seq_len", 2048)
    assert store.set_field("training.workload", "grpo")
    assert store.scenario.training.completion_tokens == 128  # the plan's own value, not reset


def test_workload_segments_leave_the_legend_with_the_workload(window):
    """A GRPO plan's "Generation" legend entry goes when the plan no longer has that part (vLLM server mode, or back
    to SFT) and comes back with it (new-user trial: it stayed, at 0 GiB)."""
    store, chart = window.store, window.vram_chart

    def in_legend(key: str) -> bool:
        return any(getattr(sample, "item", None) is chart.segments.get(key) for sample, _label in chart.legend.items)

    assert store.set_fields({"training.workload": "grpo", "training.seq_len": 1024, "training.completion_tokens": 512,
                             "training.generation_engine": "vllm-colocate"})
    assert in_legend("generation")
    assert store.set_field("training.generation_engine", "vllm-server")
    assert not in_legend("generation")
    assert store.set_field("training.generation_engine", "vllm-colocate")
    assert in_legend("generation")
    assert store.set_field("training.workload", "sft")
    assert not in_legend("generation")
