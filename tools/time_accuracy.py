#!/usr/bin/env python3
"""Predicted vs published training throughput (tokens/s per GPU) for the measurement rows.

Reads ``shared/reference/measurements/scenarios.csv`` and keeps every row with a
``tokens_per_s`` value. Each row becomes a scenario with the same settings the memory scorer
(``shared/reference/score_accuracy.py``) passes to ``tuneplan estimate``: model config, method,
precision (``mixed-*`` -> fp32 master weights), optimizer, LoRA rank/targets, micro-batch,
sequence length, gradient checkpointing, attention, GPUs, sharding, CPU/activation offload,
fused cross-entropy. Two inputs the memory scorer does not need are also passed, because they are
real settings of the run:

* ``sequence_mode`` from ``seq_kind`` (packed / fixed / dynamic);
* the framework tier from the ``framework`` column (the CLI's ``--framework``):
  :data:`FRAMEWORK_TIER` (torchtune with ``torch.compile`` and xtuner are optimised stacks;
  LLaMA-Factory and axolotl default to plain HF Trainer + PEFT).

No per-row factor is applied: predictions use the defaults of ``tuneplan.core.throughput``
(reference throughput.md §6). The only per-source rule is a unit conversion: torchtune's README
tables print tokens/s summed over all GPUs of a multi-GPU run (read per GPU, its 8 x A100 rows
would run at 200-300 % of the A100's peak), so those values are divided by ``num_gpus``.

Usage:
    python tools/time_accuracy.py [--csv PATH] [--markdown]
Prints one line per row and the median absolute error over the rows that can be scored
(``usable=true`` and a micro-batch given).
"""

from __future__ import annotations

import argparse
import csv
import statistics
from pathlib import Path

from tuneplan import catalog
from tuneplan.core.estimate import estimate
from tuneplan.core.scenario import Dataset, Scenario, TrainingSetup

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CSV = ROOT.parent / "shared" / "reference" / "measurements" / "scenarios.csv"

FRAMEWORK_TIER = {"torchtune": "optimized", "other": "optimized", "llama-factory": "hf", "axolotl": "hf"}
#: GPU names in the CSV that ``match_gpu`` refuses as ambiguous; the rows' sources settle them.
GPU_FALLBACK = {
    "A100 (40/80 unstated)": "a100_40gb",  # throughput.md §3b: the LLaMA-Factory page's table is A100 40GB (same 312 TFLOPS)
    "H100 80GB": "h100_sxm",  # the 80 GB HBM3 part; the PCIe card is named "H100 PCIe"
}
#: sources whose multi-GPU tokens/s are totals over all GPUs (see module docstring)
TOTAL_TOKENS_SOURCES = ("torchtune README",)

OPTIMIZERS = {"adamw": "adamw", "adamw_8bit": "adamw-8bit", "paged_adamw_8bit": "paged-adamw-8bit",
              "paged_adamw_32bit": "paged-adamw-32bit", "sgd": "sgd", "adafactor": "adafactor"}
TARGETS = {"q_v": "q_v", "qkvo": "qkvo", "all_linear": "all-linear"}
SHARDING = {"none", "ddp", "zero1", "zero2", "zero3", "fsdp"}


def _truthy(value: str) -> bool:
    return value.strip().lower() in {"true", "yes", "1"}


def row_scenario(row: dict[str, str], base: Path) -> Scenario:
    """The scenario of one CSV row (same mapping as score_accuracy.py, plus sequence mode and tier)."""
    arch = catalog.load_hf_config(base / row["model_config"])
    gpu = catalog.match_gpu(row["gpu"])
    if gpu is None and row["gpu"] in GPU_FALLBACK:
        gpu = catalog.get_gpu(GPU_FALLBACK[row["gpu"]])
    if gpu is None:
        raise ValueError(f"unknown GPU {row['gpu']!r}")
    tr: dict = {"method": row["method"]}
    precision = row["precision"].strip()
    if precision.startswith("mixed-"):
        tr["precision"], tr["master_weights"] = precision.removeprefix("mixed-"), "fp32"
    elif precision:
        tr["precision"] = precision
    if row["optimizer"] in OPTIMIZERS:
        tr["optimizer"] = OPTIMIZERS[row["optimizer"]]
    tr["optimizer_in_backward"] = _truthy(row.get("optimizer_in_backward", ""))
    if row["method"] in {"lora", "qlora"}:
        if row["lora_rank"].strip():
            tr["lora_rank"] = int(row["lora_rank"])
        if row["lora_targets"] in TARGETS:
            tr["lora_targets"] = TARGETS[row["lora_targets"]]
        tr["trainable_embeddings"] = _truthy(row.get("trainable_embeddings", ""))
    if not row["micro_batch"].strip():
        raise ValueError("micro-batch not stated")
    tr["micro_batch"] = int(row["micro_batch"])
    tr["seq_len"] = int(row["seq_len"])
    if row["seq_kind"] in {"packed", "fixed", "dynamic"}:
        tr["sequence_mode"] = row["seq_kind"]
    ckpt = row["grad_checkpointing"].strip().lower()
    if ckpt in {"true", "false"}:
        tr["grad_checkpointing"] = ckpt == "true"
    if row["attention"] in {"flash", "sdpa", "eager"}:
        tr["attention"] = row["attention"]
    n = int(row["num_gpus"] or 1)
    tr["num_gpus"] = n
    sharding = row["sharding"] if row["sharding"] in SHARDING else "none"
    if n > 1 and sharding == "none" and row["sharding"] != "model_parallel":
        sharding = "ddp" if row["method"] != "full" else "fsdp"  # the CLI's default for --gpus > 1
    tr["sharding"] = sharding
    tr["cpu_offload"] = _truthy(row.get("cpu_offload", ""))
    tr["fused_cross_entropy"] = _truthy(row.get("fused_ce", ""))
    tr["activation_offload"] = _truthy(row.get("activation_offload", ""))
    tr["framework"] = FRAMEWORK_TIER.get(row["framework"], "hf")
    base_s = catalog.default_scenario()
    return Scenario(
        name=f"row {row['id']}",
        model=arch,
        gpu=gpu,
        training=TrainingSetup(**tr),
        dataset=Dataset(total_tokens=1e8, epochs=1),
        pricing=base_s.pricing,
    )


def measured_per_gpu(row: dict[str, str]) -> float:
    """Published tokens/s converted to tokens/s per GPU."""
    value = float(row["tokens_per_s"])
    n = int(row["num_gpus"] or 1)
    if n > 1 and row["source"].startswith(TOTAL_TOKENS_SOURCES):
        value /= n
    return value


def evaluate(csv_path: Path) -> list[dict]:
    """One result dict per CSV row with ``tokens_per_s``: measured, predicted, error or failure."""
    rows = [r for r in csv.DictReader(csv_path.open(newline="", encoding="utf-8")) if r["tokens_per_s"].strip()]
    out = []
    for row in rows:
        res: dict = {"row": row, "measured": measured_per_gpu(row), "scored": _truthy(row["usable"])}
        try:
            result = estimate(row_scenario(row, csv_path.parent))
        except ValueError as exc:
            res["error"] = str(exc).splitlines()[0]
            res["scored"] = False
        else:
            res["pred"] = result.time.tokens_per_second
            res["mfu"] = result.time.mfu
            res["err"] = res["pred"] / res["measured"] - 1
        out.append(res)
    return out


def summary(results: list[dict]) -> str:
    """Median / p90 absolute error and median signed error over the scored rows."""
    errs = [r["err"] for r in results if r["scored"] and "err" in r]
    if not errs:
        return "no scored rows"
    a = sorted(abs(e) for e in errs)
    p90 = a[min(len(a) - 1, int(round(0.9 * (len(a) - 1))))]
    within = sum(e <= 0.25 for e in a) / len(a)
    return (f"{len(a)} scored rows: median abs error {statistics.median(a):.1%}, p90 {p90:.1%}, "
            f"within 25% {within:.0%}, median signed error {statistics.median(errs):+.1%}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--csv", default=str(DEFAULT_CSV))
    args = parser.parse_args()
    results = evaluate(Path(args.csv).resolve())
    print("| id | source | model | method | GPU x n | mb x seq | GC | tier | measured tok/s/GPU | predicted | MFU | error | scored |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        row = r["row"]
        model = Path(row["model_config"]).stem
        tier = FRAMEWORK_TIER.get(row["framework"], "hf")
        gc = {"true": "on", "false": "off"}.get(row["grad_checkpointing"].strip().lower(), "?")
        pred = f"{r['pred']:,.0f}" if "pred" in r else r.get("error", "-")
        mfu = f"{r['mfu']:.0%}" if "mfu" in r else "-"
        err = f"{r['err']:+.0%}" if "err" in r else "-"
        print(f"| {row['id']} | {row['source'][:38]} | {model} | {row['method']} | {row['gpu']} x{row['num_gpus']} | "
              f"{row['micro_batch'] or '?'} x {row['seq_len']} {row['seq_kind']} | {gc} | {tier} | "
              f"{r['measured']:,.0f} | {pred} | {mfu} | {err} | {'yes' if r['scored'] else 'no'} |")
    print()
    print("all: " + summary(results))
    for key in ("method", "source"):
        for value in sorted({r["row"][key] for r in results if r["scored"]}):
            print(f"{key}={value}: " + summary([r for r in results if r["row"][key] == value]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
