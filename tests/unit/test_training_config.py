"""Import the training config a user already has (issue #17): LLaMA-Factory, axolotl, HF/TRL and DeepSpeed files
(tests/data/training_configs/, copied from each project's published examples) mapped onto the plan, hostile files
refused with one clear error, and ``tuneplan estimate --training-config`` in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tuneplan.core.scenario import TrainingSetup
from tuneplan.core.terms import NOTES, render_note
from tuneplan.core.training_config import TrainingConfigError, detect_format, map_training_config
from tuneplan.storage.training_config import MAX_CONFIG_BYTES, read_training_config

DATA = Path(__file__).resolve().parents[1] / "data" / "training_configs"
ROOT = Path(__file__).resolve().parents[2]


def _read(name: str):
    return read_training_config(DATA / name)


def _training(result) -> dict:
    return {k.removeprefix("training."): v for k, v in result.updates.items() if k.startswith("training.")}


# ------------------------------------------------------------------------------------------ the published examples


def test_llamafactory_lora_sft():
    r = _read("llamafactory_llama3_lora_sft.yaml")
    assert r.format == "llamafactory"
    t = _training(r)
    # finetuning_type: lora, lora_rank: 8, lora_target: all, cutoff_len: 2048, per_device_train_batch_size: 1,
    # gradient_accumulation_steps: 8, bf16: true, num_train_epochs: 3.0
    assert t["method"] == "lora" and t["lora_rank"] == 8 and t["lora_targets"] == "all-linear"
    assert t["seq_len"] == 2048 and t["micro_batch"] == 1 and t["grad_accumulation"] == 8
    assert t["precision"] == "bf16" and r.updates["dataset.epochs"] == 3.0
    # LLaMA-Factory's defaults for what the file leaves out: alpha = 2 x rank, dropout 0, checkpointing on,
    # padding to the longest in the batch, transformers' SDPA
    assert t["lora_alpha"] == 16 and t["lora_dropout"] == 0 and t["grad_checkpointing"] is True
    assert t["sequence_mode"] == "dynamic" and t["attention"] == "sdpa" and t["framework"] == "hf"
    defaults = {i.key for i in r.items if i.note.code == "config.default"}
    assert {"lora_alpha", "lora_dropout", "packing", "disable_gradient_checkpointing", "flash_attn"} <= defaults
    ignored = {i.key for i in r.with_status("ignored")}
    assert {"learning_rate", "output_dir", "dataset", "template", "logging_steps"} <= ignored
    assert [i.key for i in r.with_status("unsupported")] == ["model_name_or_path"]
    TrainingSetup(**t)  # every value is one the plan takes


def test_llamafactory_qlora_on_the_fly_quantisation():
    r = _read("llamafactory_llama3_lora_sft_otfq.yaml")
    t = _training(r)
    assert t["method"] == "qlora"  # quantization_bit: 4, quantization_method: bnb
    assert t["lora_rank"] == 8 and t["micro_batch"] == 1 and t["grad_accumulation"] == 8
    assert "quantization_method" not in {i.key for i in r.items}  # bnb is what the plan models


def test_llamafactory_full_upcasts_and_points_at_its_deepspeed_file():
    r = _read("llamafactory_llama3_full_sft.yaml")
    t = _training(r)
    assert t["method"] == "full" and t["precision"] == "bf16" and t["master_weights"] == "fp32"
    assert t["micro_batch"] == 1 and t["grad_accumulation"] == 2
    ds = next(i for i in r.items if i.key == "deepspeed")
    assert ds.note.code == "config.deepspeed_file" and "ds_z3_config.json" in ds.note.params["value"]
    assert "training.sharding" not in r.updates


def test_axolotl_lora_1b():
    r = _read("axolotl_llama3_lora_1b.yml")
    assert r.format == "axolotl"
    t = _training(r)
    # adapter: lora, lora_r: 16, lora_alpha: 32, lora_dropout: 0.05, all seven projections, sequence_len: 2048,
    # sample_packing: true, micro_batch_size: 2, gradient_accumulation_steps: 2, optimizer: adamw_8bit,
    # bf16: auto, gradient_checkpointing: true, flash_attention: true, num_epochs: 1
    assert t == {**t, "method": "lora", "lora_rank": 16, "lora_alpha": 32, "lora_dropout": 0.05,
                 "lora_targets": "all-linear", "seq_len": 2048, "sequence_mode": "packed", "micro_batch": 2,
                 "grad_accumulation": 2, "optimizer": "adamw-8bit", "precision": "bf16",
                 "grad_checkpointing": True, "attention": "flash"}
    assert r.updates["dataset.epochs"] == 1
    # empty keys (lora_model_dir:, wandb_project:, deepspeed:, fsdp:) are not settings
    assert not {"lora_model_dir", "wandb_project", "deepspeed", "fsdp"} & {i.key for i in r.items}
    assert "pad_to_sequence_len" in {i.key for i in r.with_status("ignored")}  # packing wins


def test_axolotl_qlora_fsdp_70b():
    r = _read("axolotl_llama3_qlora_fsdp_70b.yaml")
    t = _training(r)
    assert t["method"] == "qlora" and t["lora_rank"] == 8 and t["lora_alpha"] == 16
    assert t["lora_targets"] == "all-linear"  # lora_target_linear: true
    assert t["seq_len"] == 512 and t["sequence_mode"] == "fixed"  # sample_packing false, pad_to_sequence_len true
    assert t["micro_batch"] == 1 and t["grad_accumulation"] == 4 and t["optimizer"] == "adamw-fused"
    assert t["sharding"] == "fsdp" and t["cpu_offload"] is True  # fsdp: [full_shard, auto_wrap], offload_params
    assert "config.no_gpu_count" in r.codes


def test_deepspeed_z3_offload_leaves_auto_to_the_other_file():
    r = _read("ds_z3_offload_config.json")
    assert r.format == "deepspeed"
    assert r.updates == {"training.sharding": "zero3", "training.cpu_offload": True,
                         "training.master_weights": "fp32", "training.deepspeed_auto_buckets": True,
                         "training.deepspeed_sub_group": 1e9, "training.deepspeed_max_reuse_distance": 1e9}
    autos = {i.key for i in r.items if i.note.code == "config.auto"}
    assert {"train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "train_batch_size",
            "bf16.enabled"} <= autos


def test_deepspeed_buffers_go_into_the_plan():
    # LLaMA-Factory's ZeRO-3 file leaves the buckets "auto": Hugging Face fills them from the hidden size (reduce h^2,
    # prefetch 0.9 h^2), which the plan's deepspeed_auto_buckets counts; its sub_group_size 1e9 and
    # stage3_max_reuse_distance 1e9 are taken as they are
    r = _read("ds_z3_offload_config.json")
    assert r.updates["training.deepspeed_auto_buckets"] is True
    taken = {i.key: i.fields for i in r.items if i.status == "taken"}
    assert taken["zero_optimization.reduce_bucket_size"] == ("training.deepspeed_auto_buckets",)
    assert taken["zero_optimization.stage3_prefetch_bucket_size"] == ("training.deepspeed_auto_buckets",)
    assert r.updates["training.deepspeed_sub_group"] == 1e9
    same = {i.key for i in r.items if i.note.code == "config.deepspeed_as_planned"}
    assert "zero_optimization.contiguous_gradients" in same
    # explicit sizes, with and without the stage3_ prefix DeepSpeed accepts as an alias
    r = map_training_config({"zero_optimization": {"stage": 3, "reduce_bucket_size": 2e8, "prefetch_bucket_size": 0,
                                                   "max_reuse_distance": "1e8", "sub_group_size": 2e8}})
    assert {k: v for k, v in r.updates.items() if "deepspeed" in k} == {
        "training.deepspeed_reduce_bucket": 2e8, "training.deepspeed_prefetch_bucket": 0.0,
        "training.deepspeed_max_reuse_distance": 1e8, "training.deepspeed_sub_group": 2e8}
    # contiguous_gradients off is a setting the plan cannot express: said, not taken
    r = map_training_config({"zero_optimization": {"stage": 2, "contiguous_gradients": False}})
    note = next(i.note for i in r.items if i.key == "zero_optimization.contiguous_gradients")
    assert note.code == "config.deepspeed_default_counted"
    # a negative size is refused at the field, nothing else changes
    with pytest.raises(TrainingConfigError):
        map_training_config({"zero_optimization": {"stage": 2, "reduce_bucket_size": -1}})


def test_deepspeed_explicit_batch_gives_the_gpu_count():
    r = _read("ds_zero2_explicit.json")
    t = _training(r)
    assert t["sharding"] == "zero2" and t["precision"] == "bf16" and t["micro_batch"] == 4
    assert t["grad_accumulation"] == 2 and t["num_gpus"] == 8  # 64 = 4 x 2 x 8


def test_hf_training_arguments_json():
    r = _read("hf_training_args.json")
    assert r.format == "hf"
    t = _training(r)
    assert t["micro_batch"] == 4 and t["grad_accumulation"] == 4 and t["precision"] == "bf16"
    assert t["grad_checkpointing"] is True and t["optimizer"] == "adamw" and t["seq_len"] == 1024
    assert t["sequence_mode"] == "packed" and t["attention"] == "flash" and t["master_weights"] == "none"
    assert t["torch_compile"] is False
    assert "max_steps" not in {i.key for i in r.items}  # -1: train by epochs
    assert "method" not in t  # TrainingArguments do not say


def test_every_note_has_a_template_and_renders():
    for name in sorted(p.name for p in DATA.iterdir()):
        for item in _read(name).items:
            assert item.note.code in NOTES
            text = render_note(item.note)
            assert "{" not in text, text


def test_small_mappings():
    r = map_training_config({"adapter": "lora", "lora_target_modules": ["q_proj", "v_proj"], "base_model": "x",
                             "fsdp": "shard_grad_op", "gradient_checkpointing": "offload"})
    assert r.updates["training.lora_targets"] == "q_v" and r.updates["training.sharding"] == "zero2"
    assert r.updates["training.activation_offload"] is True
    r = map_training_config({"finetuning_type": "lora", "quantization_bit": 8, "lora_target": "q_proj,k_proj,v_proj"})
    # LLaMA-Factory quantization_bit 8 (bnb): LoRA on an LLM.int8 base
    assert r.updates["training.method"] == "qlora" and r.updates["training.quant_bits"] == 8
    # q, k and v without o: no preset, planned as listed
    assert r.updates["training.lora_modules"] == ("q_proj", "k_proj", "v_proj")
    assert next(i for i in r.items if i.key == "lora_target").note.code == "config.taken"
    # ZeRO-1/2: the plan's CPU offload is offload_optimizer; under ZeRO-3 it moves the parameters too
    r = map_training_config({"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}})
    assert r.updates["training.cpu_offload"] is True and r.updates["training.sharding"] == "zero2"
    r = map_training_config({"zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}}})
    assert "config.optimizer_offload_only" in r.codes and "training.cpu_offload" not in r.updates
    assert detect_format({"per_device_train_batch_size": 2, "optim": "paged_adamw_8bit"}) == "hf"


# ------------------------------------------------------------------------------------------ hostile input


@pytest.mark.parametrize(("content", "code"), [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00IHDR", "config.not_text"),
    (b"\xff\xfe\xfa not utf-8", "config.not_text"),
    (b"", "config.empty"),
    (b"- a\n- b\n", "config.not_mapping"),
    (b"just a string\n", "config.not_mapping"),
    (b"micro_batch_size: [\n", "config.syntax"),
    (b"foo: 1\nbar: 2\n", "config.unknown_format"),
    (b"adapter: lora\nmicro_batch_size: abc\n", "config.not_integer"),
    (b"adapter: lora\nmicro_batch_size: 0\n", "config.out_of_range"),
    (b"adapter: lora\nflash_attention: maybe\n", "config.not_boolean"),
    (b"adapter: lora\nlora_dropout: .nan\n", "config.syntax"),
    (b"!!python/object/apply:os.system ['echo hacked']\n", "config.syntax"),
])
def test_bad_files_give_one_clear_error(tmp_path, content, code):
    path = tmp_path / "train.yaml"
    path.write_bytes(content)
    with pytest.raises(TrainingConfigError) as info:
        read_training_config(path)
    assert info.value.code == code
    message = str(info.value)
    assert message.startswith("train.yaml: ") and "\n" not in message


def test_wrong_type_names_the_key(tmp_path):
    path = tmp_path / "axolotl.yml"
    path.write_text("adapter: lora\nmicro_batch_size: abc\n", encoding="utf-8")
    with pytest.raises(TrainingConfigError, match=r"^axolotl.yml: micro_batch_size must be a whole number, got abc$"):
        read_training_config(path)


def test_a_yaml_alias_bomb_is_refused_quickly(tmp_path):
    lines = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for n in range(1, 12):
        lines.append(f"{chr(97 + n)}: &{chr(97 + n)} [{', '.join(['*' + chr(96 + n)] * 9)}]")
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    start = time.monotonic()
    with pytest.raises(TrainingConfigError) as info:
        read_training_config(path)
    # 9**12 leaves if expanded: refusing it at all shows it was not expanded; the bound only catches a hang.
    assert info.value.code == "config.alias" and time.monotonic() - start < 60


@pytest.mark.parametrize("name", ["deep.yaml", "deep.json"])
def test_deep_nesting_is_refused(tmp_path, name):
    path = tmp_path / name
    path.write_text("[" * 50_000 + "]" * 50_000, encoding="utf-8")
    start = time.monotonic()
    with pytest.raises(TrainingConfigError) as info:
        read_training_config(path)
    assert info.value.code == "config.too_deep" and time.monotonic() - start < 60  # catches a hang only


def test_a_huge_file_is_refused_unread(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_bytes(b"# padding\n" * (MAX_CONFIG_BYTES // 10 + 10))
    with pytest.raises(TrainingConfigError) as info:
        read_training_config(path)
    assert info.value.code == "config.too_large"


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(TrainingConfigError) as info:
        read_training_config(tmp_path / "nope.yaml")
    assert info.value.code == "config.missing"
    with pytest.raises(TrainingConfigError) as info:
        read_training_config(tmp_path)
    assert info.value.code == "config.not_file"


def test_the_core_module_reads_no_files_and_imports_no_qt():
    source = (ROOT / "src" / "tuneplan" / "core" / "training_config.py").read_text(encoding="utf-8")
    for word in ("import yaml", "PySide6", "open(", "import json", "Path("):
        assert word not in source


# ------------------------------------------------------------------------------------------ the command line


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--model", "llama-3.1-8b", "--gpu", "h100_sxm",
                           *args], capture_output=True, text=True, timeout=120, cwd=ROOT)


def test_cli_imports_files_in_order_and_flags_win():
    out = _cli("--training-config", str(DATA / "axolotl_llama3_qlora_fsdp_70b.yaml"),
               "--training-config", str(DATA / "ds_zero2_explicit.json"), "--micro-batch", "2", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert len(doc) == 8  # the DeepSpeed file's 64 = 4 x 2 x 8 GPUs
    imported = doc[0]["imported"]
    codes = {e["code"] for e in imported}
    assert {"config.taken", "config.gpus_from_batch", "config.model_not_set", "config.ignored"} <= codes
    by = {(Path(e["file"]).name, e["key"]): e for e in imported}
    assert by[("axolotl_llama3_qlora_fsdp_70b.yaml", "fsdp")]["overridden_by"] == "a later --training-config"
    assert by[("ds_zero2_explicit.json", "train_micro_batch_size_per_gpu")]["overridden_by"] == "--micro-batch"
    assert all(e["status"] in {"taken", "ignored", "unsupported"} for e in imported)


def test_cli_text_says_what_it_took_and_ignored():
    out = _cli("--training-config", str(DATA / "llamafactory_llama3_lora_sft.yaml"))
    assert out.returncode == 0, out.stderr
    assert "Imported" in out.stdout and "(LLaMA-Factory)" in out.stdout
    assert "taken: lora_rank = 8: --lora-rank set to 8" in out.stdout
    assert "not expressible: model_name_or_path" in out.stdout
    assert "ignored (no effect on memory or time" in out.stdout
    assert "micro-batch 1 x 2048 tokens (dynamic), grad accumulation 8" in out.stdout


def test_cli_without_the_flag_has_no_imported_list():
    out = _cli("--json")
    assert out.returncode == 0 and "imported" not in json.loads(out.stdout)[0]


def test_cli_bad_file_is_one_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("adapter: lora\nmicro_batch_size: abc\n", encoding="utf-8")
    out = _cli("--training-config", str(bad))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == ("tuneplan: error: --training-config bad.yaml: micro_batch_size must be a whole number, "
                          "got abc\n")


def test_control_characters_huge_numbers_and_foreign_digits_are_clear_errors(tmp_path):
    CoreError = TrainingConfigError  # noqa: N806
    map_file = read_training_config
    f = tmp_path / "ctrl.yaml"
    f.write_text("micro_batch_size: 2\x0c\n", encoding="utf-8")  # a form feed: PyYAML refuses the character
    with pytest.raises(CoreError):
        read_training_config(f)
    g = tmp_path / "huge.yaml"
    g.write_text("adapter: lora\nlora_alpha: " + "9" * 400 + "\n", encoding="utf-8")
    with pytest.raises(CoreError):
        map_file(g)
    h = tmp_path / "digits.yaml"
    h.write_text('micro_batch_size: "²"\n', encoding="utf-8")
    with pytest.raises(CoreError):
        map_file(h)


# ------------------------------------------------------------------------------------------ what the export writes


def test_axolotl_fsdp2_is_fsdp():
    # docs/multi-gpu.qmd (axolotl @ 067b021c8b): FSDP2 is fsdp_version: 2 with fsdp_config; `fsdp` is deprecated
    r = map_training_config({"base_model": "x/y", "adapter": "lora", "fsdp_version": 2, "fsdp_config": {
        "offload_params": True, "cpu_ram_efficient_loading": True, "auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
        "state_dict_type": "FULL_STATE_DICT", "reshard_after_forward": True, "activation_checkpointing": True}})
    t = _training(r)
    assert (t["sharding"], t["cpu_offload"], t["grad_checkpointing"]) == ("fsdp", True, True)
    no_config = _training(map_training_config({"base_model": "x/y", "adapter": "lora", "fsdp_version": 2}, "axolotl"))
    assert "sharding" not in no_config  # a version without a config shards nothing


@pytest.mark.parametrize(("loss_type", "fused"), [("chunked_nll", True), ("nll", False), ("dft", False)])
def test_trl_loss_type_says_whether_the_logits_are_chunked(loss_type, fused):
    r = map_training_config({"max_length": 1024, "loss_type": loss_type, "per_device_train_batch_size": 1}, "hf")
    assert _training(r)["fused_cross_entropy"] is fused
    unknown = map_training_config({"max_length": 1024, "loss_type": "focal"}, "hf")
    assert "fused_cross_entropy" not in _training(unknown)
    assert [i.note.code for i in unknown.with_status("unsupported") if i.key == "loss_type"] == ["config.unknown_value"]


def test_trl_padding_to_max_length_is_fixed_length():
    fixed = map_training_config({"max_length": 1024, "packing": False, "pad_to_multiple_of": 1024}, "hf")
    assert _training(fixed)["sequence_mode"] == "fixed"
    small = map_training_config({"max_length": 1024, "packing": False, "pad_to_multiple_of": 8}, "hf")
    assert _training(small)["sequence_mode"] == "dynamic"
    assert "pad_to_multiple_of" in [i.key for i in small.with_status("ignored")]
    # a multiple above max_length pads every (truncated) row up to it: 4096 tokens a row, not 2048
    wide = _training(map_training_config({"max_length": 2048, "packing": False, "pad_to_multiple_of": 4096}, "hf"))
    assert (wide["sequence_mode"], wide["seq_len"]) == ("fixed", 4096)
    assert _training(fixed)["seq_len"] == 1024


def test_llamafactory_stage_sets_the_workload():
    # LLaMA-Factory's example files: stage dpo + pref_loss sigmoid (DPO) / orpo; kto; rm (reward model)
    for stage, loss, workload in (("dpo", "sigmoid", "dpo"), ("dpo", "orpo", "orpo"), ("dpo", "simpo", "orpo"),
                                  ("kto", None, "kto"), ("rm", None, "reward"), ("sft", None, "sft")):
        data = {"model_name_or_path": "m", "stage": stage, "finetuning_type": "lora"}
        if loss:
            data["pref_loss"] = loss
        assert map_training_config(data).updates["training.workload"] == workload, (stage, loss)
    r = map_training_config({"model_name_or_path": "m", "stage": "ppo", "finetuning_type": "lora"})
    assert "training.workload" not in r.updates
    assert any(i.key == "stage" and i.status == "unsupported" for i in r.items)


def test_deepspeed_auto_fills_only_the_keys_that_say_auto():
    # transformers' trainer_config_finalize fills a bucket only when its key is "auto" (fill_only): a file with only
    # reduce_bucket_size "auto" keeps DeepSpeed's 5e7 prefetch bucket, one with only the prefetch "auto" keeps 5e8
    r = map_training_config({"zero_optimization": {"stage": 3, "reduce_bucket_size": "auto"}})
    assert r.updates["training.deepspeed_auto_buckets"] is True
    assert r.updates["training.deepspeed_prefetch_bucket"] == 5e7 and "training.deepspeed_reduce_bucket" not in r.updates
    r = map_training_config({"zero_optimization": {"stage": 3, "stage3_prefetch_bucket_size": "auto"}})
    assert r.updates["training.deepspeed_reduce_bucket"] == 5e8 and "training.deepspeed_prefetch_bucket" not in r.updates
    # the persistence threshold alone changes no bucket
    r = map_training_config({"zero_optimization": {"stage": 2, "stage3_param_persistence_threshold": "auto"}})
    assert "training.deepspeed_auto_buckets" not in r.updates and "training.deepspeed_reduce_bucket" not in r.updates


def test_llamafactory_ref_model_is_a_reference_copy():
    # LLaMA-Factory's ref_model names a model its create_ref_model loads whole: a frozen copy next to the policy
    r = map_training_config({"model_name_or_path": "m", "stage": "dpo", "finetuning_type": "lora", "ref_model": "m"})
    assert (r.updates["training.workload"], r.updates["training.reference_model"]) == ("dpo", "copy")
    assert "training.reference_model" not in map_training_config(
        {"model_name_or_path": "m", "stage": "dpo", "finetuning_type": "lora"}).updates
    # a pref_loss that is not a name is said, not silently read as DPO
    r = map_training_config({"model_name_or_path": "m", "stage": "dpo", "finetuning_type": "lora",
                             "pref_loss": ["orpo"]})
    assert any(i.key == "pref_loss" and i.status == "unsupported" for i in r.items)


@pytest.mark.parametrize(("targets", "preset", "code"), [
    # DeepSeek-V2-Lite's q_proj (no q_lora_rank) and the projection the values come from: the q_v preset exactly
    ("q_proj,kv_b_proj", "q_v", "config.taken"),
    (["q_a_proj", "q_b_proj", "kv_b_proj"], "q_v", "config.taken"),  # V2/V3's low-rank query path
    (["kv_b_proj"], "q_v", "config.approx"),  # covered by q_v, not all of it
    ("q_a_proj,q_b_proj,kv_a_proj_with_mqa,kv_b_proj,o_proj", "qkvo", "config.taken"),  # every attention projection
    ("kv_a_proj_with_mqa,o_proj", "qkvo", "config.approx"),
    ("q_proj,kv_a_proj_with_mqa,kv_b_proj,o_proj,gate_proj,up_proj,down_proj", "all-linear", "config.taken"),
    ("kv_b_proj,down_proj", "all-linear", "config.approx"),
])
def test_lora_targets_naming_multi_head_latent_attention(targets, preset, code):
    """#23/#17: a LoRA target list of an MLA model (DeepSeek-V2/V3 module names, as core/memory/adapters.py MLA_TARGETS
    defines the presets) maps onto the preset, exactly or as the nearest one that covers it; before, it was
    reported as unsupported."""
    r = map_training_config({"finetuning_type": "lora", "lora_target": targets, "stage": "sft"}, "llamafactory")
    item = next(i for i in r.items if i.key == "lora_target")
    assert r.updates["training.lora_targets"] == preset
    assert item.status == "taken" and item.note.code == code
