"""Put a GPU grid run (``tools/gpu_grid/measure.py``) next to Tuneplan's estimates: ``docs/measurements/``.

Usage (the app's venv; no torch needed)::

    python tools/gpu_grid/gpu_report.py RESULTS_DIR [--out docs/measurements] [--gpu h200]

``RESULTS_DIR`` holds ``env.json`` and ``gpu-grid.jsonl`` as the device run wrote them. The command
copies both into ``--out`` (as ``<gpu>-env.json`` and ``<gpu>-grid.jsonl``: the data) and writes
``<gpu>-grid.md``: per case, measured against estimated

* ``torch.cuda.max_memory_allocated`` against ``peak_allocated_bytes``,
* ``torch.cuda.max_memory_reserved`` against ``peak_reserved_bytes``,
* the device's used memory (NVML, what nvidia-smi shows) at its highest during the steps, minus what was
  in use before the process started, against ``total_bytes``,
* tokens per second after the first step against the time model's ``tokens_per_second``,

each error as ``estimated / measured - 1``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from measure import RESULTS  # noqa: E402

from tuneplan import catalog  # noqa: E402
from tuneplan.core.estimate import estimate  # noqa: E402
from tuneplan.core.scenario import Scenario, TrainingSetup  # noqa: E402

GIB = 2**30
ROOT = Path(__file__).resolve().parents[2]


def setup_for(case: dict[str, Any]) -> TrainingSetup:
    """Tuneplan's :class:`TrainingSetup` for a measured case (a ``measure.Case`` as a dict).

    Pure BF16 unless the case ran an fp32 model under autocast (``master_fp32`` -> ``master_weights="fp32"``).
    LoRA adapters as the case held them (``adapter_precision``): PEFT's fp32 adapters under autocast
    (``autocast``), without it (a plain loop, the grid's default), or bf16 adapters (``adapter_dtype="bf16"``).
    """
    if case.get("adapter_dtype", "fp32") == "bf16":
        adapters = "model-dtype"
    else:
        adapters = "fp32-autocast" if case["autocast"] else "fp32"
    return TrainingSetup(
        method=case["method"],
        precision="bf16",
        master_weights="fp32" if case["master_fp32"] else "none",
        optimizer="adamw-fused" if case["optimizer"] == "adamw-fused" else case["optimizer"],
        optimizer_in_backward=case["optimizer_in_backward"],
        lora_rank=case["lora_rank"],
        lora_alpha=2 * case["lora_rank"],
        lora_dropout=case["lora_dropout"],
        lora_targets=case["lora_targets"],
        micro_batch=case["micro_batch"],
        seq_len=case["seq_len"],
        sequence_mode="dynamic" if case["lengths"] else "fixed",
        grad_accumulation=case["grad_accumulation"],
        grad_checkpointing=case["grad_checkpointing"],
        attention="sdpa",
        num_gpus=1,
        adapter_precision=adapters,
        torch_compile=case.get("compile", False),
    )


def scenario_for(case: dict[str, Any], gpu_id: str) -> Scenario:
    """The default plan with the case's model, GPU and training setup."""
    base = catalog.default_scenario()
    model = catalog.get_model(case["model"])
    return base.model_copy(update={"name": case["id"], "model_id": model.id, "model": model.architecture,
                                   "gpu": catalog.get_gpu(gpu_id), "training": setup_for(case)})


def _err(estimated: float, measured: float | None) -> float | None:
    return None if not measured else estimated / measured - 1


def compare_record(record: dict[str, Any], gpu_id: str) -> dict[str, Any]:
    """One row: the case, its measurements in GiB, the estimates in GiB and the errors (``None`` where missing)."""
    case, res = record["case"], record.get("result") or {}
    note = case["note"] + (" · out of memory after the steps shown" if res.get("oom") else "")
    row: dict[str, Any] = {"id": case["id"], "note": note.strip(" ·"), "error": record.get("error")}
    est = estimate(scenario_for(case, gpu_id))
    m = est.memory
    row["est"] = {"allocated": m.peak_allocated_bytes / GIB, "reserved": m.peak_reserved_bytes / GIB,
                  "total": m.total_bytes / GIB, "tokens_per_second": est.time.tokens_per_second}
    if "max_allocated" in res:
        used = None
        if res.get("nvml_used_peak") is not None and res.get("nvml_used_before") is not None:
            used = (res["nvml_used_peak"] - res["nvml_used_before"]) / GIB
        row["meas"] = {"allocated": res["max_allocated"] / GIB, "reserved": res["max_reserved"] / GIB,
                       "total": used, "tokens_per_second": res["tokens_per_second"]}
        row["err"] = {k: _err(row["est"][k], row["meas"][k]) for k in row["est"]}
    return row


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{x:+.1%}"


def _num(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:,.{digits}f}"


def render_markdown(env: dict[str, Any], rows: list[dict[str, Any]], gpu_id: str) -> str:
    """The report: environment, a summary per metric and one row per case."""
    lines = [f"# Real training steps on {env.get('gpu', gpu_id)} against Tuneplan's estimates", ""]
    lines.append("Measured by `tools/gpu_grid/measure.py` (one child process per case, random weights, 3 steps "
                 "unless stated); compared by `tools/gpu_grid/gpu_report.py`. Errors are estimated / measured − 1.")
    lines.append("")
    lines.append("Environment: " + ", ".join(f"{k} {env[k]}" for k in
                                            ("torch", "transformers", "peft", "cuda", "driver") if k in env) + ".")
    lines += ["", "| metric | cases | median abs err | largest abs err | median signed err |", "|---|---|---|---|---|"]
    for key, label in (("allocated", "max_memory_allocated"), ("reserved", "max_memory_reserved"),
                       ("total", "device used (NVML)"), ("tokens_per_second", "tokens/s")):
        errs = [r["err"][key] for r in rows if r.get("err") and r["err"][key] is not None]
        if errs:
            a = [abs(e) for e in errs]
            lines.append(f"| {label} | {len(errs)} | {statistics.median(a):.1%} | {max(a):.1%} | "
                         f"{statistics.median(errs):+.1%} |")
    lines += ["", "| case | allocated GiB meas / est (err) | reserved GiB meas / est (err) | device GiB meas / est (err) "
              "| tok/s meas / est (err) | note |", "|---|---|---|---|---|---|"]
    for r in rows:
        if "meas" not in r:
            error = (r["error"] or "no measurement").strip().splitlines()[-1][:200].replace("|", "/")
            lines.append(f"| {r['id']} | {error} | | | | {r['note']} |")
            continue
        cells = []
        for key, digits in (("allocated", 2), ("reserved", 2), ("total", 2), ("tokens_per_second", 0)):
            cells.append(f"{_num(r['meas'][key], digits)} / {_num(r['est'][key], digits)} ({_pct(r['err'][key])})")
        lines.append(f"| {r['id']} | " + " | ".join(cells) + f" | {r['note']} |")
    lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path)
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "measurements")
    ap.add_argument("--gpu", default=None, help="catalog GPU id (default: matched from env.json's GPU name)")
    args = ap.parse_args(argv)
    try:
        env = json.loads((args.results / "env.json").read_text(encoding="utf-8"))
        lines = (args.results / RESULTS).read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError) as exc:
        ap.error(f"{args.results}: needs env.json and {RESULTS} as measure.py writes them ({exc})")
    gpu_id = args.gpu
    if gpu_id is None:
        matched = catalog.match_gpu(env.get("gpu", ""))
        gpu_id = matched.id if matched is not None else "h200"
    records = []
    for n, ln in enumerate(lines, 1):
        try:
            if ln.strip():
                records.append(json.loads(ln))
        except ValueError:
            print(f"{RESULTS} line {n}: not JSON (cut off?), skipped", file=sys.stderr)
    rows = [compare_record(r, gpu_id) for r in records]
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(args.results / "env.json", args.out / f"{gpu_id}-env.json")
    shutil.copyfile(args.results / RESULTS, args.out / f"{gpu_id}-grid.jsonl")
    (args.out / f"{gpu_id}-grid.md").write_text(render_markdown(env, rows, gpu_id), encoding="utf-8")
    print(render_markdown(env, rows, gpu_id))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
