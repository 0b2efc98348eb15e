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
  mean over the steps. A GPU's row is the longest of its B examples, and the longest of many draws follows
  Gumbel's law (Fisher-Tippett; E. J. Gumbel, *Statistics of Extremes*, 1958, ch. 5-6): scale
  ``beta = sigma sqrt(6) / pi`` and ``E[max of k] = E[one] + beta ln k``, so the longest of 4 is
  ``mean + beta ln 4``, capped at 512;
* **tokens_per_s_per_gpu**: ``sum of increments / sum of step_time_sec / 4``, the callback's own average.

``--chart`` prints instead the padded rows of the README chart rows (``frameworks.csv`` fw-15..27), whose micro-batch
the logs ran for Llama-3-8B (B32, B48) but not for Llama B64, Qwen2 or gemma-7b at B32-B64. The same law carries a
model's rows from the batch B0 its logs ran (all its logs pooled; for Llama the logged batch nearest below) to B:
the longest of B examples is the longest of B0 plus ``beta ln(B / B0)``, with the mean row
and ``beta`` averaged over the model's logs at B0 (``beta`` from each run's own step-to-step spread). Checked on the one model logged at two
batches: Llama's B32 logs predict the B48 mean row within a few percent of the B48 logs (``--chart`` prints it).

No step time enters the row lengths. Usage: ``python tools/evidence/liger_logs.py [--chart] LIGER_KERNEL_CLONE``.
"""

from __future__ import annotations

import ast
import csv
import math
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
#: Gumbel scale per unit standard deviation, sqrt(6) / pi (variance of Gumbel(mu, beta) is pi^2 beta^2 / 6)
GUMBEL_BETA_PER_SD = math.sqrt(6.0) / math.pi
#: (model kind, micro-batch, frameworks.csv ids) of the README chart rows (fw-15..27)
CHART = [("llama", 32, "fw-15 fw-16"), ("llama", 48, "fw-17 fw-18"), ("llama", 64, "fw-19"),
         ("qwen2", 32, "fw-20 fw-21"), ("qwen2", 48, "fw-22"), ("qwen2", 64, "fw-23"),
         ("gemma", 32, "fw-24 fw-25"), ("gemma", 48, "fw-26"), ("gemma", 64, "fw-27")]
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


def _logs(repo: str):  # noqa: ANN202 - yields (commit, path, name, kind, liger, batch, steps)
    seen: set[str] = set()
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
            yield commit, path, name, kind, liger, batch, steps


def _rows(steps: list[tuple[int, float]], batch: int) -> tuple[float, float]:
    """(mean padded row, Gumbel scale beta of one GPU's row) in tokens, from a run's (or runs') step increments."""
    rows = [x / (GPUS * batch) for x, _ in steps]
    return statistics.mean(rows), GUMBEL_BETA_PER_SD * 2.0 * statistics.stdev(rows)


def carry(mean: float, beta: float, from_batch: int, batch: int, gpus: int = GPUS) -> tuple[float, float]:
    """(mean padded row, slowest of ``gpus`` GPUs' rows) in tokens at micro-batch ``batch``, from a mean row and
    Gumbel scale ``beta`` at ``from_batch``: ``E[max of n]`` grows by ``beta ln(n / n0)`` (Gumbel 1958), so the row
    is ``mean + beta ln(batch / from_batch)`` and the slowest of ``gpus`` (the longest of ``gpus x batch``) adds
    ``beta ln gpus``; both capped at ``MAX_SEQ``."""
    row = mean + beta * math.log(batch / from_batch)
    return min(row, MAX_SEQ), min(row + beta * math.log(gpus), MAX_SEQ)


def chart(repo: str) -> int:
    """Print the extrapolated padded rows of the chart rows (module docstring, ``--chart``)."""
    runs: dict[tuple[str, int], list[tuple[float, float]]] = {}
    for *_, kind, _liger, batch, steps in _logs(repo):
        runs.setdefault((kind, batch), []).append(_rows(steps, batch))
    fitted = {key: (statistics.mean(m for m, _ in v), statistics.mean(b for _, b in v)) for key, v in runs.items()}

    def rows_at(kind: str, batch: int, exclude: int | None = None) -> tuple[int, float, float]:
        logged = sorted(b for k, b in fitted if k == kind and b != exclude)
        b0 = max((b for b in logged if b <= batch), default=logged[0])
        return (b0, *carry(*fitted[(kind, b0)], b0, batch))

    b0, check, _ = rows_at("llama", 48, exclude=48)
    print(f"# check: Llama B48 mean row from the B{b0} logs {check:.1f}, B48 logs {fitted[('llama', 48)][0]:.1f}")
    print("ids,model,micro_batch,from_batch,avg_tokens,slowest_rank_tokens")
    for kind, batch, ids in CHART:
        b0, mean, slowest = rows_at(kind, batch)
        print(f"{ids},{MODELS[kind][1]},{batch},{b0},{mean:.1f},{slowest:.1f}")
    return 0


def main(repo: str) -> int:
    """Print the CSV (module docstring) for the logs of a Liger-Kernel clone at ``repo``."""
    out = csv.DictWriter(sys.stdout, COLUMNS, lineterminator="\n")
    out.writeheader()
    n = 0
    for commit, path, name, kind, liger, batch, steps in _logs(repo):
        mean, slowest = carry(*_rows(steps, batch), batch, batch)
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
    if sys.argv[1] == "--chart":
        raise SystemExit(chart(sys.argv[2]))
    raise SystemExit(main(sys.argv[1]))
