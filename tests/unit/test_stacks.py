"""Training-stack profiles (core/stacks.py, issue #17): each profile's defaults as read from the stack's source.

Expected values are written from the source lines quoted in each test (commits as in core/stacks.py), not from
running the code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from tuneplan.catalog import default_scenario
from tuneplan.core import stacks
from tuneplan.core.scenario import StackKey, TrainingSetup
from tuneplan.core.terms import NOTES
from tuneplan.storage.files import MIGRATIONS, read_scenario_document


def _applied(key: str, **setup: object) -> TrainingSetup:
    return stacks.apply_stack(TrainingSetup(**setup), key)  # type: ignore[arg-type]


def test_keys_match_the_scenario_literal_and_every_reason_is_a_note() -> None:
    assert typing.get_args(StackKey) == stacks.STACK_KEYS
    assert len(stacks.STACK_KEYS) == 9
    for profile in stacks.STACKS:
        for d in profile.defaults:
            assert d.field in TrainingSetup.model_fields
            TrainingSetup.model_validate({d.field: d.value})  # a value the field accepts
            assert NOTES[d.code] == d.reason
            assert d.source.path and d.source.repo.count("/") == 1
        for field in profile.left_to_user:
            assert field in TrainingSetup.model_fields


def test_hf_peft() -> None:
    # transformers training_args.py: default_optim = "adamw_torch_fused" with torch >= 2.8; gradient_checkpointing
    # default=False; use_liger_kernel default=False. PEFT get_peft_model(autocast_adapter_dtype=True).
    lora = _applied("hf-peft", method="lora")
    assert (lora.optimizer, lora.grad_checkpointing, lora.fused_cross_entropy) == ("adamw-fused", False, False)
    assert lora.adapter_precision == "fp32-autocast" and lora.framework == "hf"
    # accelerate GradientAccumulationPlugin: sync_each_batch default=False (no_sync until the step)
    assert (lora.grad_sync, lora.fsdp_wrap) == ("step", "layers")
    # PEFT other.py prepare_model_for_kbit_training: "cast all non INT8 parameters to fp32" and
    # use_gradient_checkpointing=True
    qlora = _applied("hf-peft", method="qlora")
    assert qlora.kbit_fp32_upcast is True and qlora.grad_checkpointing is True


def test_trl() -> None:
    # trl base_config.py: gradient_checkpointing default=True; sft_config.py __post_init__: loss_type =
    # "nll" if use_liger_kernel else "chunked_nll"; packing=False, padding_free=False
    lora = _applied("trl", method="lora")
    assert lora.grad_checkpointing is True and lora.fused_cross_entropy is True
    assert lora.sequence_mode == "dynamic" and lora.adapter_precision == "fp32-autocast"
    # sft_trainer.py: "if _is_quantized_model: ... param.data = param.data.to(torch.bfloat16)"
    qlora = _applied("trl", method="qlora")
    assert qlora.adapter_precision == "model-dtype" and qlora.kbit_fp32_upcast is False
    # sft_trainer.py: deepspeed zero_stage == 3 and not quantised -> get_peft_model_kwargs["autocast_adapter_dtype"]
    # = False
    assert _applied("trl", method="lora", num_gpus=8, sharding="zero3").adapter_precision == "model-dtype"
    assert _applied("trl", method="lora", num_gpus=8, sharding="zero2").adapter_precision == "fp32-autocast"


def test_llama_factory() -> None:
    # adapter.py init_adapter: "cast trainable parameters to float32 if ... not pure_bf16"; _setup_full_tuning:
    # param.data = param.data.to(torch.float32)
    assert _applied("llama-factory", method="lora").adapter_precision == "fp32-autocast"
    full = _applied("llama-factory", method="full", precision="bf16")
    assert full.master_weights == "fp32"
    # model_args.py: disable_gradient_checkpointing default=False, enable_liger_kernel default=False,
    # upcast_layernorm default=False; parser.py: packing = stage == "pt"; attention.py: AUTO -> return (SDPA)
    assert (full.grad_checkpointing, full.fused_cross_entropy, full.sequence_mode, full.attention) == (
        True, False, "dynamic", "sdpa")
    assert _applied("llama-factory", method="qlora", kbit_fp32_upcast=True).kbit_fp32_upcast is False


def test_axolotl() -> None:
    # schemas/training.py: optimizer default="adamw_torch_fused"; schemas/config.py: gradient_checkpointing
    # default=False, sample_packing default=None; loaders/model.py: embeddings converted back to torch_dtype
    t = _applied("axolotl", method="qlora", kbit_fp32_upcast=True, grad_checkpointing=True)
    assert (t.optimizer, t.grad_checkpointing, t.sequence_mode, t.kbit_fp32_upcast) == (
        "adamw-fused", False, "dynamic", False)
    assert t.fused_cross_entropy is False and t.adapter_precision == "fp32-autocast"


def test_ms_swift() -> None:
    # trainers/arguments.py: gradient_checkpointing: bool = True; use_liger_kernel: bool = False;
    # base_args.py: packing: bool = False; tuner_args.py: lora_dtype = None (PEFT's upcast kept, tuners/peft.py)
    t = _applied("ms-swift", method="lora", grad_checkpointing=False)
    assert (t.grad_checkpointing, t.fused_cross_entropy, t.sequence_mode, t.adapter_precision) == (
        True, False, "dynamic", "fp32-autocast")


def test_unsloth() -> None:
    # models/llama.py get_peft_model(use_gradient_checkpointing = "unsloth"); CausalLM forward ->
    # unsloth_fused_ce_loss unless UNSLOTH_RETURN_LOGITS=1; its own Triton kernels (unsloth/kernels)
    t = _applied("unsloth", method="qlora")
    assert (t.grad_checkpointing, t.activation_offload, t.fused_cross_entropy, t.framework) == (
        True, True, True, "optimized")
    assert t.kbit_fp32_upcast is False and t.adapter_precision == "fp32-autocast"


def test_torchtune() -> None:
    # lora_finetune_single_device.py: with training.set_default_dtype(self._dtype) (dtype: bf16 in the configs);
    # configs/llama3_1/8B_lora.yaml: loss LinearCrossEntropyLoss, optimizer AdamW fused: True, packed: False
    lora = _applied("torchtune", method="lora", num_gpus=4, sharding="fsdp")
    assert (lora.adapter_precision, lora.fused_cross_entropy, lora.optimizer, lora.sequence_mode) == (
        "model-dtype", True, "adamw-fused", "dynamic")
    # distributed recipes never call no_sync: reduce-scatter every micro-batch
    assert lora.grad_sync == "micro-batch" and lora.fsdp_wrap == "layers"
    # configs/llama3_1/8B_full.yaml: custom_sharded_layers: ['tok_embeddings', 'output']; bf16 weights, no FP32 copy
    full = _applied("torchtune", method="full", master_weights="fp32")
    assert full.fsdp_wrap == "separate-embeddings" and full.master_weights == "none"


def test_litgpt() -> None:
    # utils.py get_default_supported_precision(training=True) -> "bf16-mixed": FP32 weights under autocast
    one = _applied("litgpt", method="lora")
    assert one.master_weights == "fp32" and one.grad_checkpointing is False  # strategy "auto" on one GPU
    assert (one.fused_cross_entropy, one.optimizer, one.sequence_mode) == (False, "adamw", "dynamic")
    # finetune/lora.py: devices > 1 -> ModelParallelStrategy(parallelize_fn) with fully_shard and
    # checkpoint_wrapper; fit: fabric.no_backward_sync(model, enabled=is_accumulating)
    many = _applied("litgpt", method="lora", num_gpus=4)
    assert (many.sharding, many.grad_checkpointing, many.grad_sync, many.fsdp_wrap) == (
        "fsdp", True, "step", "layers")
    # "Quantization and mixed precision is not supported": QLoRA runs bf16-true
    qlora = _applied("litgpt", method="qlora", master_weights="none")
    assert qlora.adapter_precision == "model-dtype" and qlora.master_weights == "none"


def test_plain_pytorch_sets_only_the_fsdp_sync_and_leaves_the_rest() -> None:
    before = TrainingSetup(method="lora", adapter_precision="fp32", optimizer="sgd", grad_checkpointing=False)
    after = stacks.apply_stack(before, "pytorch")
    assert after.grad_sync == "micro-batch"
    assert after.model_dump(exclude={"grad_sync", "stack"}) == before.model_dump(exclude={"grad_sync", "stack"})
    assert "adapter_precision" in stacks.get_stack("pytorch").left_to_user


def test_apply_keeps_explicit_fields_and_overridden_names_the_changes() -> None:
    t = stacks.apply_stack(TrainingSetup(method="qlora", grad_checkpointing=True), "axolotl",
                           keep={"grad_checkpointing"})
    assert t.stack == "axolotl" and t.grad_checkpointing is True  # kept: axolotl's default is False
    assert stacks.overridden(t) == ["grad_checkpointing"]
    edited = t.model_copy(update={"fused_cross_entropy": True})
    assert stacks.overridden(edited) == ["grad_checkpointing", "fused_cross_entropy"]
    assert stacks.overridden(TrainingSetup()) == []  # no stack chosen
    cleared = stacks.apply_stack(edited, None)
    assert cleared.stack is None and cleared.fused_cross_entropy is True
    with pytest.raises(KeyError):
        stacks.apply_stack(TrainingSetup(), "megatron")


def test_a_schema_4_plan_without_the_field_loads(tmp_path: Path) -> None:
    data = default_scenario().model_dump(mode="json")
    del data["training"]["stack"]
    target = tmp_path / "v4.json"
    target.write_text(json.dumps({"format": "tuneplan-scenario", "schema_version": 4, "scenario": data}), "utf-8")
    doc = read_scenario_document(target)
    assert doc.schema_version == 4 and doc.migrated and doc.scenario.training.stack is None
    assert MIGRATIONS[4]({"training": {}}) == {"training": {"stack": None}}
    assert MIGRATIONS[4]({"training": {"stack": "trl"}})["training"]["stack"] == "trl"


def test_importer_names_the_stack_and_fills_its_defaults() -> None:
    from tuneplan.storage.training_config import read_training_config

    data = Path(__file__).resolve().parents[1] / "data" / "training_configs"
    lf = read_training_config(data / "llamafactory_llama3_lora_sft.yaml")
    assert lf.updates["training.stack"] == "llama-factory"
    # not in the file: LLaMA-Factory's adapters are FP32 under autocast (adapter.py), Trainer's fused AdamW
    assert lf.updates["training.adapter_precision"] == "fp32-autocast"
    assert lf.updates["training.optimizer"] == "adamw-fused"
    filled = {i.key for i in lf.items if i.note.code == "config.stack_default"}
    assert {"adapter_precision", "optimizer", "grad_sync"} <= filled
    assert "grad_checkpointing" not in filled  # the importer already took it from the file's defaults
    ax = read_training_config(data / "axolotl_llama3_qlora_fsdp_70b.yaml")
    assert ax.updates["training.stack"] == "axolotl" and ax.updates["training.kbit_fp32_upcast"] is False
    # HF TrainingArguments could be plain Trainer or TRL: no stack is named
    assert "training.stack" not in read_training_config(data / "hf_training_args.json").updates


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tuneplan", *argv], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})


def test_cli_stack_flag_in_a_real_process() -> None:
    base = ["estimate", "--model", "llama-3.1-8b", "--method", "qlora", "--json"]
    plain = json.loads(_cli(*base).stdout)[0]
    peft = _cli(*base, "--stack", "hf-peft")
    assert peft.returncode == 0, peft.stderr
    doc = json.loads(peft.stdout)[0]
    assert plain["stack"] is None and doc["stack"]["key"] == "hf-peft" and doc["stack"]["overridden"] == []
    # prepare_model_for_kbit_training's FP32 upcast: more memory than the plan's default (no upcast)
    assert doc["stack"]["defaults"]["kbit_fp32_upcast"]["value"] is True
    assert "huggingface/peft src/peft/utils/other.py" in doc["stack"]["defaults"]["kbit_fp32_upcast"]["source"]
    assert doc["memory"]["peak_reserved_bytes"] > plain["memory"]["peak_reserved_bytes"]
    # an explicit flag wins over the stack's default, and the output says it is overridden
    kept = json.loads(_cli(*base, "--stack", "hf-peft", "--no-kbit-fp32-upcast").stdout)[0]
    assert kept["stack"]["overridden"] == ["kbit_fp32_upcast"]
    text = _cli("estimate", "--model", "llama-3.1-8b", "--method", "qlora", "--stack", "trl",
                "--no-grad-checkpointing").stdout
    assert "stack: TRL (SFTTrainer) defaults; overridden: --grad-checkpointing" in text
    assert "fused CE" in text  # TRL's chunked_nll loss
    compare = _cli("compare-gpus", "--model", "llama-3.1-8b", "--method", "qlora", "--stack", "unsloth", "--json")
    assert compare.returncode == 0 and json.loads(compare.stdout)
    bad = _cli("estimate", "--stack", "megatron")
    assert bad.returncode == 2 and "invalid choice: 'megatron'" in bad.stderr


def test_cli_stack_choices_are_the_catalogue() -> None:
    from tuneplan.__main__ import build_parser

    est = build_parser()._subparsers._group_actions[0].choices["estimate"]  # type: ignore[union-attr]
    action = next(a for a in est._actions if a.dest == "stack")
    assert tuple(action.choices) == stacks.STACK_KEYS


def test_follow_defaults_applies_what_an_edit_brings_into_force_and_keeps_the_users_values():
    from tuneplan.core.stacks import follow_defaults

    base = stacks.apply_stack(TrainingSetup(num_gpus=2, sharding="zero2"), "llama-factory")
    z3 = base.model_copy(update={"sharding": "zero3"})
    # LF's ds_z3_config.json: "auto" buckets, a default only at ZeRO-3 (TrainingSetup's default False below it)
    assert follow_defaults(base, z3, {"sharding"}) == {"deepspeed_auto_buckets": True}
    assert follow_defaults(base, z3, {"sharding", "deepspeed_auto_buckets"}) == {}  # the user set it too
    mine = z3.model_copy(update={"deepspeed_auto_buckets": False})  # then chose otherwise
    back = mine.model_copy(update={"sharding": "zero2"})
    assert follow_defaults(mine, back, {"sharding"}) == {}
    on = z3.model_copy(update={"deepspeed_auto_buckets": True})
    assert follow_defaults(on, on.model_copy(update={"sharding": "zero2"}), {"sharding"}) == {
        "deepspeed_auto_buckets": False}
    assert follow_defaults(base.model_copy(update={"stack": None}), z3.model_copy(update={"stack": None}),
                           {"sharding"}) == {}
