"""Export the other way (issue #17 part 5): a plan written as each stack's config.

The expected documents are written out by hand from each project's own key names (the sources the module docstring
of ``tuneplan.core.config_export`` cites): a renamed or dropped key, a value written from the wrong field or a
missed note fails here. The round trips write the file as the CLI and the GUI do (``storage.config_export``) and read
it back with the importer (``storage.training_config``): every plan field the file states comes back unchanged, and
over a grid of plans every relevant field that comes back different is named by one of the export's notes.
"""

from __future__ import annotations

import itertools
import json

import pytest
import yaml

from tuneplan import catalog
from tuneplan.core.config_export import (
    EXPORT_FORMATS,
    deepspeed_config,
    default_format,
    export_config,
    relevant_fields,
)
from tuneplan.core.scenario import TrainingSetup
from tuneplan.core.stacks import apply_stack
from tuneplan.core.terms import NOTES, render_note
from tuneplan.storage.config_export import header_lines, model_ref_for, render_config, write_config
from tuneplan.storage.training_config import read_training_config

REF = "meta-llama/Llama-3.1-8B"
#: training-config importer format of each export format that it reads
IMPORTABLE = {"llama-factory": "llamafactory", "axolotl": "axolotl", "trl": "hf", "deepspeed": "deepspeed"}


def plan(epochs: float = 3, with_stack_defaults: bool = False, **training):
    """The catalog's default plan with these training fields (and, asked, the named stack's defaults for the rest)."""
    base = catalog.default_scenario()
    t = TrainingSetup.model_validate({**TrainingSetup().model_dump(), **training})
    if with_stack_defaults:
        t = apply_stack(t, t.stack, keep=set(training) - {"stack"})
    return base.model_copy(update={"name": "Plan A", "training": t,
                                   "dataset": base.dataset.model_copy(update={"epochs": epochs})})


AUTO_DS = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
           "gradient_clipping": "auto", "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"},
           "zero_allow_untested_optimizer": True}
CPU = {"device": "cpu", "pin_memory": True}


# ------------------------------------------------------------------------------------------ expected documents


def test_llamafactory_qlora_on_one_gpu():
    s = plan(method="qlora", lora_rank=16, lora_alpha=32, lora_dropout=0.05, lora_targets="all-linear", micro_batch=2,
             grad_accumulation=8, seq_len=4096, sequence_mode="packed", attention="flash", optimizer="paged-adamw-8bit",
             stack="llama-factory")
    e = export_config(s, "llama-factory", model_ref=REF)
    assert e.document == {
        "model_name_or_path": REF, "quantization_bit": 4, "quantization_method": "bnb", "double_quantization": True,
        "flash_attn": "fa2", "enable_liger_kernel": False, "disable_gradient_checkpointing": False, "stage": "sft",
        "do_train": True, "finetuning_type": "lora", "lora_rank": 16, "lora_alpha": 32, "lora_dropout": 0.05,
        "lora_target": "all", "dataset": None, "template": None, "cutoff_len": 4096, "packing": True,
        "output_dir": "saves/plan-a", "per_device_train_batch_size": 2, "gradient_accumulation_steps": 8,
        "num_train_epochs": 3, "bf16": True, "fp16": False, "optim": "paged_adamw_8bit",
    }
    assert e.notes == ()  # everything the plan says is in the file, the rest is LLaMA-Factory's default
    assert e.to_fill == ("dataset", "template")
    assert e.command == "llamafactory-cli train {file}"
    assert e.syntax == "yaml"


def test_llamafactory_full_zero3_offload_says_what_deepspeed_keeps_in_fp32():
    s = plan(method="full", precision="bf16", master_weights="none", num_gpus=4, sharding="zero3", cpu_offload=True,
             lora_targets="q_v", sequence_mode="fixed", attention="eager", grad_checkpointing=False)
    e = export_config(s, "llama-factory", model_ref=REF)
    d = e.document
    assert "lora_rank" not in d and "lora_target" not in d and "quantization_bit" not in d
    # no pure_bf16: LLaMA-Factory refuses it with ZeRO-3 ("`pure_bf16` is incompatible with DeepSpeed ZeRO-3.")
    assert (d["finetuning_type"], d.get("pure_bf16"), d["flash_attn"], d["disable_gradient_checkpointing"]) == \
        ("full", None, "disabled", True)
    assert d["deepspeed"] == {**AUTO_DS, "zero_optimization": {"stage": 3, "offload_optimizer": CPU,
                                                               "offload_param": CPU,
                                                               "stage3_gather_16bit_weights_on_model_save": True}}
    assert d["packing"] is False
    assert e.command == "FORCE_TORCHRUN=1 NPROC_PER_NODE=4 llamafactory-cli train {file}"
    notes = {(n.code, n.params.get("field")) for n in e.notes}
    assert notes == {("export.not_expressible", "training.sequence_mode"),  # SFT pads to the batch's longest
                     ("export.deepspeed_master", "training.master_weights")}


def test_axolotl_lora_zero2_with_optimizer_offload_only():
    s = plan(method="lora", lora_rank=8, lora_alpha=16, lora_dropout=0.0, lora_targets="q_v", trainable_embeddings=True,
             micro_batch=1, grad_accumulation=4, seq_len=2048, sequence_mode="fixed", grad_checkpointing=True,
             attention="sdpa", fused_cross_entropy=True, optimizer="adamw-fused", num_gpus=2, sharding="zero2",
             cpu_offload=True, stack="axolotl", epochs=1)
    e = export_config(s, "axolotl", model_ref=REF)
    assert e.document == {
        "base_model": REF, "adapter": "lora", "lora_r": 8, "lora_alpha": 16, "lora_dropout": 0.0,
        "lora_target_modules": ["q_proj", "v_proj"], "lora_modules_to_save": ["embed_tokens", "lm_head"],
        "datasets": None, "output_dir": "./outputs/plan-a", "sequence_len": 2048, "sample_packing": False,
        "pad_to_sequence_len": True, "micro_batch_size": 1, "gradient_accumulation_steps": 4, "num_epochs": 1,
        "optimizer": "adamw_torch_fused", "bf16": True, "fp16": False, "gradient_checkpointing": True,
        "attn_implementation": "sdpa",
        "plugins": ["axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin"], "cut_cross_entropy": True,
        # ZeRO-2: offload_optimizer only; offload_param is "Valid only with stage 3"
        "deepspeed": {**AUTO_DS, "zero_optimization": {"stage": 2, "offload_optimizer": CPU}},
    }
    assert e.codes == ["export.deepspeed_master"]
    assert e.command == "axolotl train {file} --launcher torchrun -- --nproc_per_node=2"


def test_axolotl_fsdp2_and_qlora_without_double_quant():
    s = plan(method="qlora", double_quant=False, num_gpus=8, sharding="fsdp", cpu_offload=True, grad_checkpointing=True,
             activation_offload=True, stack="axolotl")
    d = export_config(s, "axolotl", model_ref=REF).document
    assert (d["load_in_4bit"], d["adapter"], d["lora_target_linear"]) == (True, "qlora", True)
    assert d["bnb_config_kwargs"] == {"bnb_4bit_use_double_quant": False}
    assert (d["gradient_checkpointing"], d["activation_offloading"]) == (False, True)
    assert d["fsdp_version"] == 2
    assert d["fsdp_config"] == {"offload_params": True, "cpu_ram_efficient_loading": True,
                                "auto_wrap_policy": "TRANSFORMER_BASED_WRAP", "state_dict_type": "FULL_STATE_DICT",
                                "reshard_after_forward": True, "activation_checkpointing": True}
    assert "deepspeed" not in d


def test_trl_full_fsdp_with_fp32_master_weights():
    s = plan(method="full", precision="bf16", master_weights="fp32", num_gpus=4, sharding="fsdp", cpu_offload=True,
             micro_batch=1, grad_accumulation=16, seq_len=8192, sequence_mode="dynamic", optimizer="adamw",
             grad_sync="micro-batch", stack="trl", epochs=2)
    e = export_config(s, "trl", model_ref=REF)
    assert e.document == {
        "model_name_or_path": REF, "dtype": "float32", "attn_implementation": "flash_attention_2", "use_peft": False,
        "dataset_name": None, "output_dir": "outputs/plan-a", "per_device_train_batch_size": 1,
        "gradient_accumulation_steps": 16, "num_train_epochs": 2, "max_length": 8192, "packing": False, "bf16": True,
        "fp16": False, "optim": "adamw_torch", "loss_type": "nll", "activation_offloading": False,
        "gradient_checkpointing": False, "fsdp": "full_shard auto_wrap offload",
        "fsdp_config": {"activation_checkpointing": True}, "num_processes": 4,
    }
    # accelerate syncs FSDP gradients at the step (sync_each_batch=False): the plan's every-micro-batch sync is not
    # a TrainingArguments setting
    assert [(n.code, n.params["field"], n.params["default"]) for n in e.notes] == [
        ("export.stack_default", "training.grad_sync", "step")]
    assert e.command == "trl sft --config {file}" and e.extras == {}


def test_trl_qlora_gives_the_same_adapter_for_a_plain_trainer_script():
    s = plan(method="qlora", lora_rank=32, lora_alpha=16, lora_dropout=0.1, lora_targets="qkvo", double_quant=True,
             sequence_mode="fixed", seq_len=1024, fused_cross_entropy=True, stack="hf-peft", with_stack_defaults=True)
    assert s.training.kbit_fp32_upcast  # PEFT's prepare_model_for_kbit_training
    e = export_config(s, "trl", model_ref=REF)
    d = e.document
    assert (d["use_peft"], d["load_in_4bit"], d["bnb_4bit_quant_type"], d["use_bnb_nested_quant"]) == \
        (True, True, "nf4", True)
    assert (d["dtype"], d["lora_target_modules"], d["loss_type"]) == \
        ("bfloat16", ["q_proj", "k_proj", "v_proj", "o_proj"], "chunked_nll")
    assert (d["packing"], d["pad_to_multiple_of"]) == (False, 1024)  # padded to max_length: the fixed length
    assert e.extras == {
        "peft.LoraConfig": {"r": 32, "lora_alpha": 16, "lora_dropout": 0.1,
                            "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj"], "task_type": "CAUSAL_LM"},
        "transformers.BitsAndBytesConfig": {"load_in_4bit": True, "bnb_4bit_quant_type": "nf4",
                                            "bnb_4bit_use_double_quant": True, "bnb_4bit_compute_dtype": "bfloat16"}}
    # hf-peft's QLoRA recipe upcasts the unquantised weights; TRL's SFTTrainer does not: said, not hidden
    fields = {n.params.get("field") for n in e.notes}
    assert "training.kbit_fp32_upcast" in fields and "export.other_stack" not in e.codes


def test_torchtune_lora_distributed_overrides():
    s = plan(method="lora", lora_rank=8, lora_alpha=16, lora_dropout=0.0, lora_targets="all-linear", micro_batch=2,
             grad_accumulation=8, seq_len=4096, sequence_mode="packed", grad_checkpointing=True, torch_compile=True,
             optimizer="adamw-fused", fused_cross_entropy=True, adapter_precision="model-dtype", attention="sdpa",
             num_gpus=2, sharding="fsdp", grad_sync="micro-batch", stack="torchtune", epochs=1)
    e = export_config(s, "torchtune", model_ref=REF)
    assert e.document == {
        "model.lora_rank": 8, "model.lora_alpha": 16, "model.lora_dropout": 0.0,
        "model.lora_attn_modules": ["q_proj", "k_proj", "v_proj", "output_proj"], "model.apply_lora_to_mlp": True,
        "model.apply_lora_to_output": False, "tokenizer.max_seq_len": 4096, "dataset.packed": True, "batch_size": 2,
        "gradient_accumulation_steps": 8, "epochs": 1, "dtype": "bf16", "enable_activation_checkpointing": True,
        "enable_activation_offloading": False, "compile": True, "optimizer._component_": "torch.optim.AdamW",
        "optimizer.fused": True, "loss._component_": "torchtune.modules.loss.LinearCrossEntropyLoss",
        "fsdp_cpu_offload": False,
    }
    assert e.codes == ["export.torchtune_config"]
    assert e.notes[0].params["recipe"] == "lora_finetune_distributed"
    assert e.command.startswith("tune run --nproc_per_node 2 lora_finetune_distributed --config <config> "
                                "model.lora_rank=8 model.lora_alpha=16 model.lora_dropout=0.0 "
                                "\"model.lora_attn_modules=['q_proj','k_proj','v_proj','output_proj']\" ")
    assert e.command.endswith(" fsdp_cpu_offload=False")


def test_torchtune_says_what_its_recipes_cannot_run():
    s = plan(method="qlora", precision="fp16", optimizer="paged-adamw-8bit", adapter_precision="fp32-autocast",
             attention="flash", epochs=2.5, stack="torchtune")
    e = export_config(s, "torchtune", model_ref=REF)
    d = e.document
    assert "dtype" not in d  # the recipes refuse fp16
    assert (d["optimizer._component_"], d["epochs"]) == ("bitsandbytes.optim.PagedAdamW8bit", 3)
    assert "optimizer.fused" not in d
    codes = {(n.code, n.params.get("field")) for n in e.notes}
    assert {("export.torchtune_qlora", "training.method"), ("export.not_expressible", "training.precision"),
            ("export.torchtune_optimizer", "training.optimizer"), ("export.approx", "dataset.epochs"),
            ("export.stack_default", "training.attention")} <= codes
    assert e.command.startswith("tune run lora_finetune_single_device --config <config> ")


def test_ms_swift_qlora():
    s = plan(method="qlora", lora_rank=64, lora_alpha=128, lora_dropout=0.05, lora_targets="qkvo", micro_batch=4,
             grad_accumulation=4, seq_len=2048, sequence_mode="packed", attention="flash", fused_cross_entropy=True,
             optimizer="adamw-8bit", double_quant=False, adapter_precision="model-dtype", stack="ms-swift")
    e = export_config(s, "ms-swift", model_ref=REF)
    assert e.document == {
        "model": REF, "tuner_type": "lora", "torch_dtype": "bfloat16", "bf16": True, "fp16": False,
        "quant_method": "bnb", "quant_bits": 4, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": False,
        "lora_rank": 64, "lora_alpha": 128, "lora_dropout": 0.05, "target_modules": ["q_proj", "k_proj", "v_proj",
                                                                                      "o_proj"],
        "lora_dtype": "bfloat16", "attn_impl": "flash_attn", "dataset": None, "output_dir": "output/plan-a",
        "max_length": 2048, "packing": True, "per_device_train_batch_size": 4, "gradient_accumulation_steps": 4,
        "num_train_epochs": 3, "optim": "adamw_bnb_8bit", "use_liger_kernel": True, "gradient_checkpointing": True,
    }
    assert e.notes == ()
    assert e.command == "swift sft {file}"


def test_ms_swift_full_fsdp_on_several_gpus_and_packing_without_flash_attention():
    s = plan(method="full", master_weights="fp32", num_gpus=2, sharding="fsdp", activation_offload=True,
             sequence_mode="packed", attention="sdpa")
    e = export_config(s, "ms-swift", model_ref=REF)
    d = e.document
    assert (d["tuner_type"], d["torch_dtype"], d["bf16"], d["gradient_checkpointing"]) == \
        ("full", "float32", True, False)
    assert d["fsdp"] == {"fsdp": "full_shard auto_wrap", "fsdp_config": {
        "fsdp_version": 2, "reshard_after_forward": True, "auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
        "cpu_ram_efficient_loading": True, "state_dict_type": "SHARDED_STATE_DICT", "activation_checkpointing": True,
        "activation_cpu_offload": True}}
    assert "export.packing_flash" in e.codes
    assert e.command == "NPROC_PER_NODE=2 swift sft {file}"


def test_deepspeed_explicit_for_plain_pytorch():
    s = plan(method="full", precision="bf16", num_gpus=8, sharding="zero3", cpu_offload=True, micro_batch=2,
             grad_accumulation=4, stack="pytorch")
    e = export_config(s, "deepspeed")
    assert e.syntax == "json" and default_format(s.training) == "deepspeed"
    assert e.document == {
        "train_batch_size": 64, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4,
        "gradient_clipping": 1.0, "bf16": {"enabled": True}, "fp16": {"enabled": False},
        "zero_allow_untested_optimizer": True,
        "zero_optimization": {"stage": 3, "offload_optimizer": CPU, "offload_param": CPU,
                              "stage3_gather_16bit_weights_on_model_save": True},
    }
    assert e.command.startswith("deepspeed --num_gpus 8 ")


@pytest.mark.parametrize(("sharding", "offload", "zero"), [
    ("zero1", False, {"stage": 1}),
    ("zero1", True, {"stage": 1, "offload_optimizer": CPU}),
    ("zero2", True, {"stage": 2, "offload_optimizer": CPU}),
    ("zero3", False, {"stage": 3, "stage3_gather_16bit_weights_on_model_save": True}),
])
def test_deepspeed_offloads_parameters_only_at_stage_3(sharding, offload, zero):
    s = plan(method="lora", num_gpus=2, sharding=sharding, cpu_offload=offload, stack="trl")
    ds = deepspeed_config(s)
    assert ds["zero_optimization"] == zero
    assert ds["train_micro_batch_size_per_gpu"] == "auto"  # HF Trainer fills it from the TrainingArguments


def test_deepspeed_for_a_plan_without_zero_writes_stage_0_and_says_so():
    s = plan(method="lora", num_gpus=2, sharding="fsdp", cpu_offload=True)
    e = export_config(s, "deepspeed", deepspeed_auto=False)
    assert e.document["zero_optimization"] == {"stage": 0}
    assert {"export.deepspeed_stage0", "export.offload_needs_sharding"} <= set(e.codes)


def test_offload_without_sharding_and_naive_splits_are_said():
    s = plan(method="lora", num_gpus=2, sharding="none", cpu_offload=True, optimizer_in_backward=True)
    for fmt in ("llama-factory", "axolotl", "trl", "ms-swift"):
        e = export_config(s, fmt, model_ref=REF)
        assert {"export.naive_split", "export.offload_needs_sharding", "export.not_expressible"} <= set(e.codes), fmt
        assert "NPROC" not in e.command and "nproc" not in e.command and "num_processes" not in e.document


def test_a_plan_of_another_stack_says_whose_defaults_apply():
    s = plan(method="lora", stack="unsloth", with_stack_defaults=True)  # Unsloth's kernels, offloaded checkpointing
    e = export_config(s, "axolotl", model_ref=REF)
    assert "export.other_stack" in e.codes
    assert "training.framework" in e.noted_fields()  # Unsloth is timed as an optimized stack, axolotl as HF
    assert "export.other_stack" not in export_config(s, "trl", model_ref=REF).codes  # Unsloth runs TRL's trainer


def test_a_model_without_hub_id_is_left_to_fill_in():
    e = export_config(plan(), "axolotl")
    assert e.document["base_model"] is None and "base_model" in e.to_fill
    assert e.notes[0].code == "export.model_placeholder" and e.notes[0].params["key"] == "base_model"
    assert model_ref_for(plan()) == "meta-llama/Llama-3.1-8B"  # the catalog's hf_id


def test_every_note_is_registered_and_renders_completely():
    plans = [plan(method="qlora", precision="fp16", num_gpus=2, sharding="none", cpu_offload=True, stack="unsloth",
                  optimizer="sgd", sequence_mode="fixed", epochs=1.5, optimizer_in_backward=True,
                  trainable_embeddings=True),
             plan(method="full", num_gpus=2, sharding="fsdp", master_weights="none", precision="fp16")]
    for s, fmt in itertools.product(plans, EXPORT_FORMATS):
        for note in export_config(s, fmt).notes:
            assert note.code in NOTES, note.code
            text = render_note(note)
            assert "{" not in text and "}" not in text, text


def test_the_header_names_tuneplan_the_plan_and_the_verdict():
    s = plan(method="qlora")
    e = export_config(s, "llama-factory")
    lines = header_lines(e, "run.yaml")
    assert lines[0].startswith("LLaMA-Factory config written by Tuneplan ") and '"Plan A"' in lines[0]
    assert lines[1].startswith(f"Estimate: {e.verdict} on a ") and e.verdict.startswith("fits, ")
    assert "How to use it: llamafactory-cli train run.yaml" in lines
    assert any("model_name_or_path" in line for line in lines)  # the placeholder note
    text = render_config(e, "run.yaml")
    assert text.startswith("# LLaMA-Factory config written by Tuneplan")
    assert yaml.safe_load(text) == e.document


def test_a_hostile_plan_name_stays_inside_its_comment():
    s = plan(method="qlora").model_copy(update={"name": "evil\ndeepspeed: {stage: 3}\x1b[2J\u202e"})
    for fmt in ("axolotl", "deepspeed"):
        e = export_config(s, fmt)
        text = render_config(e)
        doc = json.loads(text) if e.syntax == "json" else yaml.safe_load(text)
        assert {k: v for k, v in doc.items() if k != "_comment"} == e.document  # no key added by the name
        first = doc["_comment"][0] if e.syntax == "json" else text.splitlines()[0]
        assert "evil\\ndeepspeed: {stage: 3}\\x1b[2J\\u202e" in first


def test_model_ids_from_the_hub_and_none_for_a_local_name():
    hub = plan().model_copy(update={"model_id": ""})
    hub = hub.model_copy(update={"model": hub.model.model_copy(update={"name": "Qwen/Qwen2.5-0.5B"})})
    assert model_ref_for(hub) == "Qwen/Qwen2.5-0.5B"
    local = hub.model_copy(update={"model": hub.model.model_copy(update={"name": "my merged model"})})
    assert model_ref_for(local) is None


def test_relevant_fields_follow_the_method_and_the_sharding():
    assert {"lora_rank", "double_quant", "kbit_fp32_upcast"} <= relevant_fields(TrainingSetup(method="qlora"))
    full = relevant_fields(TrainingSetup(method="full", num_gpus=1, sharding="ddp"))
    assert not {"lora_rank", "double_quant", "adapter_precision", "sharding", "grad_sync"} & full
    fsdp = relevant_fields(TrainingSetup(method="lora", num_gpus=2, sharding="fsdp", grad_accumulation=4))
    assert {"fsdp_wrap", "grad_sync", "sharding"} <= fsdp


# ------------------------------------------------------------------------------------------ round trips


def _round_trip(tmp_path, s, fmt, **kwargs):
    e = export_config(s, fmt, model_ref=REF, **kwargs)
    path = write_config(tmp_path / ("plan.json" if e.syntax == "json" else "plan.yaml"), render_config(e))
    return e, read_training_config(path, IMPORTABLE[fmt])


def _assert_back(s, imported, fields):
    for field in fields:
        section, _, name = field.partition(".")
        assert field in imported.updates, f"{field} not read back"
        assert imported.updates[field] == getattr(getattr(s, section), name), field


COMMON = ["training.method", "training.micro_batch", "training.grad_accumulation", "training.seq_len",
          "training.sequence_mode", "training.grad_checkpointing", "training.attention", "training.optimizer",
          "training.precision", "dataset.epochs"]
LORA = ["training.lora_rank", "training.lora_alpha", "training.lora_dropout", "training.lora_targets"]


def test_llamafactory_round_trip(tmp_path):
    s = plan(method="qlora", lora_rank=32, lora_alpha=64, lora_dropout=0.1, lora_targets="qkvo", micro_batch=4,
             grad_accumulation=2, seq_len=1024, sequence_mode="dynamic", attention="sdpa", grad_checkpointing=False,
             optimizer="paged-adamw-32bit", double_quant=False, fused_cross_entropy=True, trainable_embeddings=True,
             activation_offload=True, num_gpus=2, sharding="zero2", cpu_offload=True, epochs=2)
    e, back = _round_trip(tmp_path, s, "llama-factory")
    _assert_back(s, back, [*COMMON, *LORA, "training.double_quant", "training.fused_cross_entropy",
                           "training.trainable_embeddings", "training.activation_offload", "training.sharding",
                           "training.cpu_offload"])
    assert back.updates["training.stack"] == "llama-factory"


def test_axolotl_round_trip_fsdp2(tmp_path):
    s = plan(method="lora", lora_targets="q_v", sequence_mode="fixed", grad_checkpointing=True, num_gpus=4,
             sharding="fsdp", cpu_offload=True, attention="eager", fused_cross_entropy=True, torch_compile=True,
             optimizer="adamw", epochs=1)
    e, back = _round_trip(tmp_path, s, "axolotl")
    _assert_back(s, back, [*COMMON, *LORA, "training.sharding", "training.cpu_offload", "training.fused_cross_entropy",
                           "training.torch_compile"])


def test_trl_round_trip_with_inline_deepspeed(tmp_path):
    s = plan(method="full", precision="bf16", master_weights="fp32", num_gpus=2, sharding="zero3", cpu_offload=True,
             sequence_mode="fixed", fused_cross_entropy=False, activation_offload=True, optimizer="adafactor")
    e, back = _round_trip(tmp_path, s, "trl")
    _assert_back(s, back, [*COMMON, "training.sharding", "training.cpu_offload", "training.fused_cross_entropy",
                           "training.activation_offload", "training.master_weights"])


def test_trl_round_trip_qlora(tmp_path):
    s = plan(method="qlora", lora_targets="all-linear", double_quant=True, sequence_mode="packed",
             fused_cross_entropy=True, trainable_embeddings=True)
    e, back = _round_trip(tmp_path, s, "trl")
    _assert_back(s, back, [*COMMON, *LORA, "training.double_quant", "training.fused_cross_entropy",
                           "training.trainable_embeddings"])


def test_deepspeed_round_trip_explicit(tmp_path):
    s = plan(method="full", precision="fp16", num_gpus=4, sharding="zero2", cpu_offload=True, micro_batch=3,
             grad_accumulation=5, stack="pytorch")
    e, back = _round_trip(tmp_path, s, "deepspeed")
    _assert_back(s, back, ["training.sharding", "training.cpu_offload", "training.precision", "training.micro_batch",
                           "training.grad_accumulation", "training.num_gpus"])
    raw = json.loads((tmp_path / "plan.json").read_text(encoding="utf-8"))
    assert raw["_comment"][0].startswith("DeepSpeed config written by Tuneplan")


def test_stack_file_and_its_deepspeed_file_together(tmp_path):
    """A LLaMA-Factory file naming its DeepSpeed JSON by path and that JSON, imported one after the other as
    ``--training-config`` takes them, give the plan's sharding and offload."""
    s = plan(method="lora", num_gpus=2, sharding="zero3", cpu_offload=True, stack="llama-factory")
    ds = write_config(tmp_path / "ds.json", render_config(export_config(s, "deepspeed")))
    back = read_training_config(ds, "deepspeed")
    assert (back.updates["training.sharding"], back.updates["training.cpu_offload"]) == ("zero3", True)


GRID = {
    "method": ["full", "lora", "qlora"],
    "sharding_gpus": [("none", 1), ("ddp", 2), ("zero2", 2), ("zero3", 4), ("fsdp", 2), ("none", 2)],
    "precision_master": [("bf16", "none"), ("bf16", "fp32"), ("fp16", "none"), ("fp32", "none")],
}


def test_what_comes_back_different_is_named_by_a_note():
    """Over a grid of plans (and stacks, offload, sequence modes, kernels): export, render, read back, and every relevant
    plan field the importer returns with another value is one a note names."""
    from tuneplan.core.estimate import estimate
    from tuneplan.core.training_config import map_training_config
    from tuneplan.storage.training_config import load_config_data

    variants = itertools.cycle([
        dict(stack=None, cpu_offload=False, sequence_mode="fixed", attention="flash"),
        dict(stack="axolotl", cpu_offload=True, sequence_mode="packed", fused_cross_entropy=True, grad_sync="micro-batch"),
        dict(stack="unsloth", sequence_mode="dynamic", attention="eager", kbit_fp32_upcast=True, torch_compile=True),
        dict(stack="torchtune", adapter_precision="model-dtype", activation_offload=True, optimizer_in_backward=True,
             fsdp_wrap="separate-embeddings", grad_accumulation=1),
        dict(stack="pytorch", adapter_precision="fp32", trainable_embeddings=True, optimizer="sgd", framework="optimized",
             grad_accumulation=4, lora_alpha=24.5),
    ])
    checked = 0
    for (method, (sharding, gpus), (precision, master)), extra in zip(
            itertools.product(*GRID.values()), variants, strict=False):
        s = plan(method=method, sharding=sharding, num_gpus=gpus, precision=precision, master_weights=master,
                 epochs=1.5, **extra)
        result = estimate(s)
        relevant = relevant_fields(s.training) - {"stack"}
        for fmt, importer_format in IMPORTABLE.items():
            e = export_config(s, fmt, estimate=result, model_ref=REF)
            back = map_training_config(load_config_data(render_config(e), e.syntax == "json"), importer_format)
            noted = e.noted_fields()
            for path, value in back.updates.items():
                section, _, name = path.partition(".")
                if section == "training" and name not in relevant:
                    continue
                before = getattr(getattr(s, section), name)
                assert value == before or path in noted, f"{fmt}: {path} {before!r} -> {value!r} is not noted"
            checked += 1
    assert checked == 72 * len(IMPORTABLE)


def test_deepspeed_buffer_sizes_and_flash1_are_exported():
    """The plan's DeepSpeed buffers: "auto" for HF Trainer stacks, the filled numbers otherwise (Llama 3.1 8B: hidden
    4096 -> 4096^2 = 16,777,216; 0.9 x that = 15,099,494; 10 x 4096 = 40,960); explicit sizes as numbers.
    FlashAttention 1 has no setting in the HF stacks: FlashAttention 2 is written, with a note."""
    from tuneplan import catalog
    from tuneplan.core.config_export import export_config

    s = catalog.default_scenario()
    s.training.method, s.training.num_gpus, s.training.sharding = "lora", 4, "zero3"
    s.training.deepspeed_auto_buckets, s.training.deepspeed_sub_group = True, 2e8
    zero = export_config(s, "deepspeed", deepspeed_auto=True).document["zero_optimization"]
    assert (zero["reduce_bucket_size"], zero["stage3_prefetch_bucket_size"], zero["sub_group_size"]) == (
        "auto", "auto", 200_000_000)
    zero = export_config(s, "deepspeed", deepspeed_auto=False).document["zero_optimization"]
    assert (zero["reduce_bucket_size"], zero["stage3_prefetch_bucket_size"],
            zero["stage3_param_persistence_threshold"]) == (16_777_216, 15_099_494, 40_960)
    s.training.attention = "flash1"
    out = export_config(s, "trl")
    assert out.document["attn_implementation"] == "flash_attention_2"
    assert any(n.code == "export.approx" and n.params["key"] == "attn_implementation" for n in out.notes)


def test_preference_workloads_export_as_llamafactory_stages_and_are_flagged_elsewhere():
    """LLaMA-Factory runs DPO as ``stage: dpo`` + ``pref_loss: sigmoid``, ORPO as ``pref_loss: orpo``, KTO as
    ``stage: kto`` and a reward model as ``stage: rm`` (its examples/train_lora/llama3_lora_{dpo,kto,reward}.yaml);
    the other formats write an SFT file, so they say so instead of exporting a DPO plan as SFT silently."""
    from tuneplan import catalog
    from tuneplan.core.config_export import export_config

    s = catalog.default_scenario()
    expected = {"dpo": ("dpo", "sigmoid"), "orpo": ("dpo", "orpo"), "kto": ("kto", None), "reward": ("rm", None),
                "sft": ("sft", None)}
    for workload, (stage, loss) in expected.items():
        s.training.workload = workload
        doc = export_config(s, "llama-factory").document
        assert (doc["stage"], doc.get("pref_loss")) == (stage, loss), workload
    s.training.workload = "dpo"
    for fmt in ("axolotl", "trl", "torchtune", "ms-swift"):
        assert [n.params["workload"] for n in export_config(s, fmt).notes if n.code == "export.sft_only"] == ["DPO"]
    s.training.workload = "sft"
    assert not any(n.code == "export.sft_only" for n in export_config(s, "trl").notes)


@pytest.mark.parametrize("engine", ["transformers", "vllm-colocate", "vllm-server"])
def test_grpo_exports_as_trls_grpo_config_and_is_flagged_elsewhere(engine):
    # GRPOConfig's own keys (trl/trainer/grpo_config.py @f2cd577): num_generations, max_completion_length, beta,
    # use_vllm, vllm_mode, vllm_gpu_memory_utilization, vllm_enable_sleep_mode; the launcher is `trl grpo` (and
    # `trl vllm-serve --data_parallel_size N` for server mode)
    s = plan(workload="grpo", method="lora", micro_batch=8, num_generations=8, completion_tokens=1024, seq_len=1536,
             kl_beta=0.04, generation_engine=engine, vllm_memory_share=0.4, vllm_sleep=True, vllm_server_gpus=2)
    e = export_config(s, "trl", model_ref=REF)
    doc = e.document
    assert (doc["num_generations"], doc["max_completion_length"], doc["beta"]) == (8, 1024, 0.04)
    assert doc["use_vllm"] is (engine != "transformers")
    assert doc.get("vllm_mode") == {"transformers": None, "vllm-colocate": "colocate", "vllm-server": "server"}[engine]
    if engine == "vllm-colocate":
        assert (doc["vllm_gpu_memory_utilization"], doc["vllm_enable_sleep_mode"]) == (0.4, True)
    else:
        assert "vllm_gpu_memory_utilization" not in doc
    # SFT's keys are not written into a GRPO config; the reward functions are the user's to fill in
    assert not {"packing", "loss_type", "max_length"} & set(doc)
    assert "reward_funcs" in e.to_fill
    assert e.command.endswith("trl grpo --config {file}")
    assert ("trl vllm-serve" in e.command and "--data_parallel_size 2" in e.command) is (engine == "vllm-server")
    assert "export.sft_only" not in e.codes
    # LLaMA-Factory has no GRPO stage: an SFT file that says so (no crash); axolotl, ms-swift, torchtune: SFT only
    lf = export_config(s, "llama-factory", model_ref=REF)
    assert lf.document["stage"] == "sft" and "export.workload_unsupported" in lf.codes
    for fmt in ("axolotl", "ms-swift", "torchtune"):
        assert "export.sft_only" in export_config(s, fmt, model_ref=REF).codes, fmt
    assert "zero_optimization" in export_config(s, "deepspeed").document  # (a DeepSpeed JSON has no workload)
