#!/usr/bin/env python3
"""Rows of ``docs/evidence/throughput/lg.csv`` from the run logs the Liger-Kernel HF Trainer example committed.

Each log is one 4 x A100 80GB FSDP run of ``examples/huggingface/training.py`` (TRL SFTTrainer on Alpaca,
``max_seq_length`` 512, ``DataCollatorForCompletionOnlyLM(pad_to_multiple_of=16)``, HF ``EfficiencyCallback``
logging every step). From the per-step log lines this derives, for every log with at least four timed steps:

* **micro-batch**: the run script's ``per_device_train_batch_size`` (``run_patching_methods.sh`` at 4581599f:
  24 for Qwen2; the ``llama_B_48_*`` logs say 48 in their names), else the largest ``B`` that divides every
  step's token increment by ``16 B`` (each GPU adds ``B x`` its own padded length, a multiple of 16);
* **avg_tokens**: the mean padded row, ``sum of increments / (4 GPUs x B x steps)``; the increments are HF
  Trainer's ``num_input_tokens_seen`` (padded input ids, summed over the 4 GPUs);
* **slowest_rank_tokens**: the expected longest of the 4 GPUs' padded rows in a step. A step's increment / (4 B)
  is the mean of 4 independent per-GPU rows, so their spread is ``sigma = 2 x`` the standard deviation of that
  mean over the steps, and the longest of 4 is ``mean + 1.0294 sigma`` (the expected maximum of 4 standard
  normal draws; Harter 1961, "Expected values of normal order statistics", Biometrika 48), capped at 512;
* **tokens_per_s_per_gpu**: ``sum of increments / sum of step_time_sec / 4``, the callback's own average.

No step time enters the row lengths. Usage: ``python tools/evidence/liger_logs.py LIGER_KERNEL_CLONE > lg.csv``.
"""

from __future__ import annotations

import ast
import csv
import statistics
import subprocess
import sys

COMMITS = {"38411af3": "38411af3094021440808cb64a178fd5369b0ef36",
           "4581599f": "4581599f9d907cc25adddab6db016542af03ccc5"}
MODELS = {"llama": ("configs/llama-3-8b.json", "meta-llama/Meta-Llama-3-8B"),
          "mistral": ("mistral-7b-v0.1", "mistralai/Mistral-7B-v0.1"),
          "gemma": ("configs/gemma-7b.json", "google/gemma-7b-it"),
          "gemma2": ("gemma-2-2b", "google/gemma-2-2b-it"),
          "qwen2": ("configs/qwen2-7b.json", "Qwen/Qwen2-7B-Instruct")}
SCRIPT_BATCH = {"qwen2": 24}
#: E[max of 4 independent standard normal draws] (Harter 1961, Table of expected normal order statistics)
MAX_OF_4 = 1.0294
GPUS = 4
MAX_SEQ = 512
COLUMNS = ["id", "source", "source_url", "published", "model", "method", "precision", "optimizer", "lora_rank",
           "lora_targets", "micro_batch", "grad_accum", "seq_len", "seq_kind", "avg_tokens", "slowest_rank_tokens",
           "grad_checkpointing", "attention", "num_gpus", "gpu", "nodes", "sharding", "cpu_offload", "fused_ce",
           "framework", "compiled", "tokens_per_s_per_gpu", "throughput_basis", "usable", "notes"]


def _git(repo: str, *args: str) -> str:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, text=True, check=True).stdout


def _steps(text: str) -> list[tuple[int, float]]:
    logged = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{'loss'"):
            try:
                logged.append(ast.literal_eval(line))
            except (ValueError, SyntaxError):  # a line with nan/inf
                continue
    return [(b["num_input_tokens_seen"] - a["num_input_tokens_seen"], float(b["step_time_sec"]))
            for a, b in zip(logged, logged[1:], strict=False) if "step_time_sec" in b]


def main(repo: str) -> int:
    """Print the CSV (module docstring) for the logs of a Liger-Kernel clone at ``repo``."""
    out = csv.DictWriter(sys.stdout, COLUMNS, lineterminator="\n")
    out.writeheader()
    seen: set[str] = set()
    n = 0
    for commit in COMMITS.values():
        for path in _git(repo, "ls-tree", "-r", "--name-only", commit, "examples/huggingface/").split():
            name = path.rsplit("/", 1)[-1]
            if not name.endswith(".log") or name in seen:
                continue
            steps = _steps(_git(repo, "show", f"{commit}:{path}"))
            if len(steps) < 4:
                continue
            seen.add(name)
            kind = "llama" if name.startswith("llama_B_48") else name.split("_use_liger")[0]
            liger = "no_patching" not in name and "use_liger_False" not in name
            batch = 48 if name.startswith("llama_B_48") else SCRIPT_BATCH.get(kind) or max(
                b for b in range(1, 257) if all(x % (16 * b) == 0 for x, _ in steps))
            rows = [x / (GPUS * batch) for x, _ in steps]
            mean = statistics.mean(rows)
            slowest = min(mean + MAX_OF_4 * 2.0 * statistics.stdev(rows), MAX_SEQ)
            tps = sum(x for x, _ in steps) / sum(t for _, t in steps) / GPUS
            model, hub = MODELS[kind]
            n += 1
            out.writerow({
                "id": f"lg-{n}", "source": "Liger-Kernel HF Trainer example run logs",
                "source_url": f"https://github.com/linkedin/Liger-Kernel/blob/{commit}/{path}",
                "published": "2024-09", "model": model, "method": "full", "precision": "bf16", "optimizer": "adamw",
                "lora_rank": "", "lora_targets": "", "micro_batch": batch, "grad_accum": 1, "seq_len": MAX_SEQ,
                "seq_kind": "dynamic", "avg_tokens": round(mean, 1), "slowest_rank_tokens": round(slowest, 1),
                "grad_checkpointing": "true", "attention": "sdpa", "num_gpus": GPUS, "gpu": "A100 80GB SXM4",
                "nodes": 1, "sharding": "fsdp", "cpu_offload": "false", "fused_ce": str(liger).lower(),
                "framework": "trl", "compiled": str(liger).lower(), "tokens_per_s_per_gpu": round(tps, 1),
                "throughput_basis": "sum of per-step num_input_tokens_seen increments / sum of step_time_sec / 4 GPUs",
                "usable": "true",
                "notes": (f"{hub}, {'with' if liger else 'without'} Liger kernels ({name}); {len(steps)} timed steps; "
                          "micro-batch from the run script or the 16 x B divisibility of every step's token increment; "
                          "avg_tokens and slowest_rank_tokens from the per-step token increments only "
                          "(tools/evidence/liger_logs.py); FSDP full_shard + activation checkpointing "
                          "(config/fsdp_config.json), bf16 weights, HF default attention (sdpa) assumed."),
            })
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
