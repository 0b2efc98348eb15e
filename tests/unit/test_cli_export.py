"""``tuneplan export-config`` (issue #17 part 5) in a subprocess: the file written with ``-o`` (atomically, its header
first), standard output without it, the plan's stack choosing the format, and bad input as one line with status 2.
The exported file fed back to ``tuneplan estimate --training-config`` plans the same memory as the flags it came from.
"""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from tuneplan.cli_export import FORMATS
from tuneplan.core.config_export import EXPORT_FORMATS


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tuneplan", *args], capture_output=True, text=True, timeout=60)


PLAN = ["--model", "llama-3.1-8b", "--gpu", "RTX 4090", "--method", "qlora", "--micro-batch", "2", "--seq-len", "4096",
        "--sequence-mode", "packed", "--attention", "sdpa", "--grad-accumulation", "4"]


def test_axolotl_file_written_and_read_back_plans_the_same_memory(tmp_path):
    target = tmp_path / "run.yaml"
    out = run("export-config", "--format", "axolotl", *PLAN, "-o", str(target))
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"wrote {target} (axolotl) for Llama 3.1 8B QLoRA on RTX 4090: fits, ")
    assert out.stdout.count("\n") == 1 and out.stderr == ""
    text = target.read_text(encoding="utf-8")
    assert text.startswith('# axolotl config written by Tuneplan ')
    assert "# How to use it: axolotl train run.yaml\n" in text
    doc = yaml.safe_load(text)
    assert (doc["base_model"], doc["adapter"], doc["micro_batch_size"], doc["sequence_len"], doc["sample_packing"]) == \
        ("meta-llama/Llama-3.1-8B", "qlora", 2, 4096, True)
    assert [p.name for p in tmp_path.iterdir()] == ["run.yaml"]  # no temp file left beside it

    flags = run("estimate", *PLAN, "--json")
    back = run("estimate", "--model", "llama-3.1-8b", "--gpu", "RTX 4090", "--training-config", str(target), "--json")
    assert flags.returncode == back.returncode == 0, back.stderr
    a, b = json.loads(flags.stdout)[0]["memory"], json.loads(back.stdout)[0]["memory"]
    assert a["total_bytes"] == b["total_bytes"] and a["total_bytes"] > 0


def test_deepspeed_json_on_stdout_for_plain_pytorch():
    out = run("export-config", "--format", "deepspeed", "--model", "llama-3.1-8b", "--gpu", "H100 SXM", "--method",
              "full", "--gpus", "4", "--sharding", "zero3", "--cpu-offload", "--micro-batch", "2", "--grad-accumulation",
              "8", "--stack", "pytorch")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["_comment"][0].startswith("DeepSpeed config written by Tuneplan ")
    assert doc["_comment"][1].startswith("Estimate: ")
    assert (doc["train_batch_size"], doc["train_micro_batch_size_per_gpu"], doc["gradient_accumulation_steps"]) == \
        (64, 2, 8)
    z = doc["zero_optimization"]
    assert z["stage"] == 3 and z["offload_param"]["device"] == z["offload_optimizer"]["device"] == "cpu"


def test_the_plans_stack_chooses_the_format_and_auto_can_be_turned_off(capsys):
    from tuneplan.__main__ import main  # in-process: the subprocess tests above cover the entry point

    assert main(["export-config", *PLAN, "--stack", "torchtune"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("# torchtune config written by Tuneplan ")
    assert "# How to use it: tune run lora_finetune_single_device --config <config> " in text
    assert yaml.safe_load(text)["batch_size"] == 2
    assert main(["export-config", *PLAN, "--format", "deepspeed", "--gpus", "2", "--sharding", "zero2", "--stack",
                 "trl", "--deepspeed-values", "explicit"]) == 0
    assert json.loads(capsys.readouterr().out)["train_micro_batch_size_per_gpu"] == 2  # not "auto"


def test_bad_input_is_one_line_and_writes_nothing(tmp_path):
    out = run("export-config", *PLAN)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == ("tuneplan: error: --format is needed: the plan names no training stack whose file it would "
                          "be (--stack)\n")
    out = run("export-config", *PLAN, "--stack", "litgpt")
    assert out.returncode == 2 and out.stderr.startswith("tuneplan: error: --format is needed: LitGPT has no file ")
    missing = tmp_path / "missing" / "run.yaml"
    out = run("export-config", "--format", "trl", *PLAN, "-o", str(missing))
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == f"tuneplan: error: cannot write {missing}: the folder does not exist\n"
    assert not missing.parent.exists()


def test_the_flag_offers_every_format_the_core_writes():
    assert FORMATS == EXPORT_FORMATS
