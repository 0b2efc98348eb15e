#!/usr/bin/env python3
"""Predicted vs published training throughput (tokens/s per GPU) on the project's evidence.

Reads every ``docs/evidence/throughput/*.csv`` (columns: that folder's README) and, as a second group, the rows of
``shared/reference/measurements/scenarios.csv`` that publish ``tokens_per_s``. Each row becomes a scenario with
the run's own settings (model, method, precision, optimizer, LoRA rank/targets, micro-batch, accumulation,
sequence length and kind, checkpointing, attention, GPUs, sharding, offload, fused cross-entropy) and the stack
tier (:func:`tier`: fused/compiled kernels or eager). No per-row or per-source factor is applied.

Rows the planner cannot express are listed but not scored: FP8 matmuls, tensor/pipeline parallelism
(``sharding=tp``), sequence parallelism, unknown GPUs or models, ``usable=false``.

Usage:
    python tools/time_accuracy.py [--markdown OUT.md]
Prints the summary (median and p90 absolute error, the 10th/90th percentile of measured / predicted that sets
``MEASURED_TIME_ERROR``, and the spread within one stack that sets ``CALIBRATED_SPREAD``).
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
from collections import defaultdict
from pathlib import Path

from tuneplan import catalog
from tuneplan.core.estimate import estimate
from tuneplan.core.scenario import Dataset, Scenario, TrainingSetup

ROOT = Path(__file__).resolve().parents[1]
EVIDENCE = ROOT / "docs" / "evidence" / "throughput"
SHARED_CSV = ROOT.parent / "shared" / "reference" / "measurements" / "scenarios.csv"

#: stacks whose kernels are fused or compiled (FlashAttention, fused norms/rotary/SwiGLU, fused optimizers):
#: NVIDIA NeMo/Megatron (Transformer Engine, Apex), torchtitan and torchtune (torch.compile), llm-foundry
#: (FlashAttention + Triton layers), xtuner (its own fused kernels); rows marked ``compiled=true`` too.
OPTIMIZED = {"nemo", "megatron", "torchtitan", "torchtune", "llm-foundry", "xtuner", "unsloth", "colossalai"}
#: stacks that step with a fused optimizer kernel (Apex/TE FusedAdam, DeepSpeed FusedAdam, torch fused=True)
FUSED_OPTIMIZER = {"nemo", "megatron", "torchtitan", "llm-foundry", "xtuner", "deepspeed", "colossalai"}
OPTIMIZERS = {"adamw": "adamw", "adamw_fused": "adamw-fused", "adamw_8bit": "adamw-8bit",
              "paged_adamw_8bit": "paged-adamw-8bit",
              "paged_adamw_32bit": "paged-adamw-32bit", "sgd": "sgd", "adafactor": "adafactor"}
TARGETS = {"q_v": "q_v", "qkvo": "qkvo", "all_linear": "all-linear", "other": "all-linear"}
SHARDING = {"none", "ddp", "zero1", "zero2", "zero3", "fsdp"}
GPU_FALLBACK = {"A100 (40/80 unstated)": "a100_40gb", "H100 80GB": "h100_sxm"}


class NotModelled(ValueError):
    """A row whose settings the planner cannot express."""


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"true", "yes", "1"}


def tier(row: dict[str, str]) -> str:
    """``optimized`` (fused/compiled kernels) or ``hf`` (eager, unfused PyTorch)."""
    fw = row.get("framework", "").strip().lower()
    return "optimized" if _truthy(row.get("compiled")) or fw in OPTIMIZED else "hf"


def _model(row: dict[str, str], base: Path):  # noqa: ANN202
    ref = (row.get("model") or row.get("model_config") or "").strip()
    if ref.endswith(".json"):
        return catalog.load_hf_config(base / ref)
    try:
        return catalog.get_model(ref).architecture
    except KeyError as exc:
        raise NotModelled(f"model {ref!r} not in the catalog") from exc


def row_scenario(row: dict[str, str], base: Path) -> Scenario:
    """The scenario of one evidence row (module docstring).

    Raises:
        NotModelled: FP8, tensor parallelism, sequence parallelism, unknown GPU or model.
    """
    precision = row.get("precision", "").strip()
    if precision == "fp8":
        raise NotModelled("FP8 matmuls")
    if row.get("sharding", "").strip() == "tp":
        raise NotModelled("tensor/pipeline parallelism")
    notes = row.get("notes", "").lower()
    if "sequence parallel" in notes or "sp=" in notes:
        raise NotModelled("sequence parallelism")
    if "ep 8" in notes or "expert parallel" in notes or "ep=" in notes:
        raise NotModelled("expert parallelism")
    gpu = catalog.match_gpu(row["gpu"])
    if gpu is None and row["gpu"] in GPU_FALLBACK:
        gpu = catalog.get_gpu(GPU_FALLBACK[row["gpu"]])
    if gpu is None:
        raise NotModelled(f"GPU {row['gpu']!r}")
    arch = _model(row, base)
    method = row["method"].strip()
    if method not in {"full", "lora", "qlora"}:
        raise NotModelled(f"method {method!r}")
    tr: dict = {"method": method}
    if precision.startswith("mixed-"):
        tr["precision"], tr["master_weights"] = precision.removeprefix("mixed-"), "fp32"
    elif precision in {"bf16", "fp16", "fp32"}:
        tr["precision"] = precision
    fw = row.get("framework", "").strip().lower()
    opt = row.get("optimizer", "").strip()
    if opt in OPTIMIZERS:
        tr["optimizer"] = OPTIMIZERS[opt]
    if tr.get("optimizer", "adamw") == "adamw" and fw in FUSED_OPTIMIZER:
        tr["optimizer"] = "adamw-fused"
    tr["optimizer_in_backward"] = _truthy(row.get("optimizer_in_backward"))
    if method != "full":
        if (row.get("lora_rank") or "").strip():
            tr["lora_rank"] = int(float(row["lora_rank"]))
        if row.get("lora_targets", "") in TARGETS:
            tr["lora_targets"] = TARGETS[row["lora_targets"]]
        tr["trainable_embeddings"] = _truthy(row.get("trainable_embeddings"))
    if not (row.get("micro_batch") or "").strip():
        raise NotModelled("micro-batch not stated")
    tr["micro_batch"] = int(float(row["micro_batch"]))
    ga = (row.get("grad_accum") or "").strip()
    if ga:
        tr["grad_accumulation"] = max(int(float(ga)), 1)
    tr["seq_len"] = int(float(row["seq_len"]))
    kind = row.get("seq_kind", "").strip()
    tr["sequence_mode"] = kind if kind in {"packed", "fixed", "dynamic"} else "packed"
    ckpt = row.get("grad_checkpointing", "").strip().lower()
    if ckpt in {"true", "false"}:
        tr["grad_checkpointing"] = ckpt == "true"
    if row.get("attention") in {"flash", "flash1", "sdpa", "eager"}:
        tr["attention"] = row["attention"]
    n = int(float(row.get("num_gpus") or 1))
    tr["num_gpus"] = n
    sharding = row.get("sharding", "").strip()
    sharding = sharding if sharding in SHARDING else "none"
    if n > 1 and sharding == "none" and row.get("sharding") != "model_parallel":
        sharding = "ddp" if method != "full" else "fsdp"
    tr["sharding"] = sharding
    tr["cpu_offload"] = _truthy(row.get("cpu_offload"))
    tr["fused_cross_entropy"] = _truthy(row.get("fused_ce"))
    tr["activation_offload"] = _truthy(row.get("activation_offload"))
    tr["framework"] = tier(row)
    if fw in {"torchtune", "unsloth"}:  # their own modelling code (stacks.OWN_ATTENTION_STACKS)
        tr["stack"] = fw
    avg = (row.get("avg_tokens") or "").strip()
    slowest = (row.get("slowest_rank_tokens") or "").strip()
    if tr["sequence_mode"] == "dynamic" and avg:
        # avg_tokens: the padded row each GPU computes on average (padding_efficiency 1 keeps it as the row);
        # slowest_rank_tokens: the slowest GPU's padded row, which the step waits for
        rank_eff = min(1.0, float(avg) / float(slowest)) if slowest else 1.0
        dataset = Dataset(examples=100_000, tokens_per_example=float(avg), epochs=1,
                          rank_padding_efficiency=max(rank_eff, 0.01))
    else:
        dataset = Dataset(total_tokens=1e8, epochs=1)
    base_s = catalog.default_scenario()
    return Scenario(name=f"row {row['id']}", model=arch, gpu=gpu, training=TrainingSetup(**tr), dataset=dataset,
                    pricing=base_s.pricing)


def measured(row: dict[str, str]) -> float:
    """Published tokens/s per GPU (evidence rows are per GPU; the shared torchtune multi-GPU totals are divided)."""
    if "tokens_per_s_per_gpu" in row:
        return float(row["tokens_per_s_per_gpu"])
    value = float(row["tokens_per_s"])
    n = int(row.get("num_gpus") or 1)
    if n > 1 and row["source"].startswith("torchtune README"):
        value /= n
    return value


def load_rows() -> list[tuple[str, dict[str, str], Path]]:
    """(group, row, base folder) for every evidence row and every shared row with a throughput."""
    out = []
    for path in sorted(EVIDENCE.glob("*.csv")):
        for row in csv.DictReader(path.open(newline="", encoding="utf-8")):
            if (row.get("tokens_per_s_per_gpu") or "").strip():
                out.append(("evidence", row, EVIDENCE))
    if SHARED_CSV.is_file():
        for row in csv.DictReader(SHARED_CSV.open(newline="", encoding="utf-8")):
            if (row.get("tokens_per_s") or "").strip():
                out.append(("shared", row, SHARED_CSV.parent))
    return out


def evaluate() -> list[dict]:
    """One result per row: measured, predicted, ratio measured/predicted, or why it is not scored."""
    results = []
    for group, row, base in load_rows():
        res: dict = {"group": group, "row": row, "measured": measured(row), "scored": _truthy(row.get("usable"))}
        try:
            scenario = row_scenario(row, base)
            r = estimate(scenario)
        except (NotModelled, ValueError) as exc:
            res["why"] = str(exc).splitlines()[0][:60]
            res["scored"] = False
        else:
            res["pred"] = r.time.tokens_per_second
            res["err"] = res["pred"] / res["measured"] - 1
            res["ratio"] = res["measured"] / res["pred"]
            res["bound"] = r.time.bound
            res["tier"] = scenario.training.framework
            res["scenario"] = scenario
        results.append(res)
    return results


def _pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


def summary(results: list[dict]) -> str:
    """Median / p90 absolute error, share within 25 %, median signed error over the scored rows."""
    errs = [r["err"] for r in results if r["scored"] and "err" in r]
    if not errs:
        return "no scored rows"
    a = [abs(e) for e in errs]
    return (f"{len(a)} rows: median abs error {statistics.median(a):.1%}, p90 {_pct(a, 0.9):.1%}, "
            f"within 25% {sum(e <= 0.25 for e in a) / len(a):.0%}, median signed {statistics.median(errs):+.1%}")


def stack_spread(results: list[dict]) -> tuple[float, float, int]:
    """10th / 90th percentile of ratio / (its stack's median ratio) over stacks with >= 3 scored rows (a stack:
    one source, GPU, framework tier and method)."""
    groups: dict[tuple, list[float]] = defaultdict(list)
    for r in results:
        if r["scored"] and "ratio" in r:
            row = r["row"]
            groups[(row["source"], row["gpu"], r["tier"], row["method"])].append(r["ratio"])
    rel = []
    for vals in groups.values():
        if len(vals) >= 3:
            med = statistics.median(vals)
            rel += [v / med for v in vals]
    if not rel:
        return 1.0, 1.0, 0
    return _pct(rel, 0.1), _pct(rel, 0.9), len(rel)


def markdown(results: list[dict]) -> str:
    lines = ["| id | source | model | method | GPU x n | mb x seq (GA) | GC | tier | measured | predicted | error | bound |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        row = r["row"]
        model = Path(row.get("model") or row.get("model_config", "")).stem
        gc = {"true": "on", "false": "off"}.get(row["grad_checkpointing"].strip().lower(), "?")
        pred = f"{r['pred']:,.0f}" if "pred" in r else "-"
        err = f"{r['err']:+.0%}" if "err" in r else ("not modelled: " + r.get("why", "") if "why" in r else "-")
        if "err" in r and not r["scored"]:
            err += " (unusable row)"
        lines.append(f"| {row['id']} | {row['source'][:40]} | {model} | {row['method']} | {row['gpu']} x{row['num_gpus']} "
                     f"| {row['micro_batch'] or '?'} x {row['seq_len']} {row.get('seq_kind', '')} ({row.get('grad_accum') or 1})"
                     f" | {gc} | {r.get('tier', tier(row))} | {r['measured']:,.0f} | {pred} | {err} | {r.get('bound', '')} |")
    return "\n".join(lines)


def report(results: list[dict]) -> str:
    """The summary block: overall, by group, method, GPU class, tier and bound, and the band constants."""
    out = []
    ev = [r for r in results if r["group"] == "evidence"]
    out.append("evidence: " + summary(ev))
    out.append("shared reference rows: " + summary([r for r in results if r["group"] == "shared"]))
    ratios = [r["ratio"] for r in ev if r["scored"] and "ratio" in r]
    if ratios:
        out.append(f"measured/predicted on the evidence: p10 {_pct(ratios, 0.1):.2f}, median "
                   f"{statistics.median(ratios):.2f}, p90 {_pct(ratios, 0.9):.2f} (MEASURED_TIME_ERROR)")
    lo, hi, n = stack_spread(ev)
    out.append(f"within one stack (source, GPU, tier, method; {n} rows): p10 {lo:.2f}, p90 {hi:.2f} (CALIBRATED_SPREAD)")
    not_scored = defaultdict(int)
    for r in ev:
        if not r["scored"]:
            not_scored[r.get("why", "usable=false")] += 1
    out.append("not scored: " + ", ".join(f"{k} {v}" for k, v in sorted(not_scored.items(), key=lambda kv: -kv[1])))
    for label, key in (("method", lambda r: r["row"]["method"]), ("GPU", lambda r: r["row"]["gpu"]),
                       ("tier", lambda r: r.get("tier", "")), ("GPUs", lambda r: "1" if (r["row"]["num_gpus"] or "1") == "1"
                                                                    else "2-8" if int(r["row"]["num_gpus"] or 1) <= 8 else ">8"),
                       ("bound", lambda r: r.get("bound", "")), ("source", lambda r: r["row"]["source"][:50])):
        for value in sorted({key(r) for r in ev if r["scored"] and "err" in r}):
            out.append(f"  {label}={value}: " + summary([r for r in ev if key(r) == value]))
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", help="write the per-row table and the summary to this file")
    args = parser.parse_args()
    results = evaluate()
    text = report(results)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text("# Time model against published throughput (generated by "
                                       "`tools/time_accuracy.py`)\n\n```\n" + text + "\n```\n\n" + markdown(results) + "\n",
                                       encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
