"""Run the validation grid: fake training steps at reduced depth, extrapolated, next to the ledger.

``make validate`` runs ``python tools/validate/grid.py`` in ``.venv-validate`` and writes
``docs/validation/results.json`` and ``docs/validation.md``.

Method (exact, not a fit):

* Each case is measured at two reduced depths of the model's majority layer type (2 and 4 decoder
  layers) and, for models that mix attention types (Gemma 3: five sliding-window layers per global
  one), twice more with one and with two minority-type layers inside (``[S, S, F, S, S]`` and
  ``[S, S, F, S, F, S]``), so the bottom and top layers — whose backward phases set the peaks — are of
  the same type as in the full model, and what a type costs once when it is present at all (Gemma 3's
  global RoPE cos/sin tables, 2 MiB at 2,048 tokens) is told apart from its cost per layer.
* Embeddings, LM head, loss and optimizer are full size in every run; only the layer count changes.
  Every phase peak and every category of it is then ``c + sum_t n_t * s_t`` in the per-type layer
  counts ``n_t`` (plus ``p_t``, one when a minority type is present): all layers of a type save the same tensors, have the same parameters, gradients and
  optimizer states, and a layer's backward swaps its activations for its gradients, so the live set
  is linear in the depth inside each phase. :func:`compare.extrapolation_weights` solves for the
  weights that carry the reduced runs to the full layer counts, and the overall peak is the largest
  extrapolated phase peak.
* The method is checked, not assumed: ``CHECKS`` re-runs some cases at full depth and the report
  shows the largest difference between the extrapolated and the directly measured numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import compare  # noqa: E402
from fake_step import CaseSpec, full_layer_types, measure, saved_tensors_by_op  # noqa: E402

from tuneplan.core.architecture import architecture_from_hf_config  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
OUT_JSON = ROOT / "docs" / "validation" / "results.json"
OUT_MD = ROOT / "docs" / "validation.md"

#: Catalog models of the grid: Llama 3.1, Qwen 2.5, Gemma 3 (sliding + global attention), Mistral, Mixtral (MoE).
MODELS = ["llama-3.1-8b", "qwen2.5-7b", "gemma-3-4b", "mistral-7b-v0.3", "mixtral-8x7b"]

#: Mixture-of-experts models of the grid (PEFT adapts their experts through ``ParamWrapper``).
MOE = {"mixtral-8x7b"}

#: (method, LoRA targets) pairs measured for every model.
METHODS = [("full", None), ("lora", "q_v"), ("lora", "all-linear")]

#: Cases that are also run at full depth to check the extrapolation (model, settings overrides).
CHECKS = [
    ("llama-3.1-8b", {"method": "full", "grad_checkpointing": False, "seq_len": 512}),
    ("llama-3.1-8b", {"method": "lora", "lora_targets": "all-linear", "grad_checkpointing": True, "seq_len": 512}),
    ("gemma-3-4b", {"method": "full", "grad_checkpointing": False, "seq_len": 2048}),
    ("mixtral-8x7b", {"method": "lora", "lora_targets": "q_v", "grad_checkpointing": False, "seq_len": 512}),
]


#: Cases whose per-layer saved tensors are itemised op by op in the report (512 tokens, no checkpointing).
BREAKDOWNS = [
    ("llama-3.1-8b", {"method": "full"}),
    ("llama-3.1-8b", {"method": "lora", "lora_targets": "all-linear"}),
    ("gemma-3-4b", {"method": "full"}),
    ("gemma-3-4b", {"method": "lora", "lora_targets": "all-linear"}),
    ("mixtral-8x7b", {"method": "full"}),
]


def per_layer_saved(model: str, over: dict[str, Any]) -> dict[str, Any]:
    """What one more decoder layer saves for backward, per token, by autograd node (depth 3 minus depth 2)."""
    s = _settings(**over)
    config = compare.catalog_config(model)
    plans, _ = depth_plan(config)
    major = plans[0][0] if plans[0] else None
    kw = {k: s[k] for k in ("method", "lora_rank", "lora_alpha", "lora_dropout", "seq_len", "micro_batch", "autocast", "attention", "adapter_dtype")}
    kw["lora_targets"] = s["lora_targets"] or "q_v"
    a = saved_tensors_by_op(CaseSpec(config=config, layers=2, layer_types=[major] * 2 if major else None, **kw))
    b = saved_tensors_by_op(CaseSpec(config=config, layers=3, layer_types=[major] * 3 if major else None, **kw))
    tokens = s["seq_len"] * s["micro_batch"]
    per = {k: (b.get(k, 0) - a.get(k, 0)) / tokens for k in set(a) | set(b)}
    per = {k: v for k, v in sorted(per.items(), key=lambda kv: -kv[1]) if abs(v) >= 1}
    led = compare.ledger(model, s)
    label = "full fine-tuning" if s["method"] == "full" else f"LoRA {s['lora_targets']} (dropout {s['lora_dropout']})"
    return {"model": model, "label": label, "settings": s, "per_token": per, "total_per_token": sum(per.values()),
            "ledger_per_token": led["activation_per_layer_token"]}


def _settings(**kw: Any) -> dict[str, Any]:
    base = {
        "method": "full", "lora_targets": None, "lora_rank": 16, "lora_alpha": 32, "lora_dropout": 0.05,
        "grad_checkpointing": False, "seq_len": 512, "micro_batch": 1, "optimizer": "adamw",
        "autocast": True, "attention": "sdpa", "adapter_dtype": "fp32",
    }
    base.update(kw)
    return base


def cases() -> list[tuple[str, dict[str, Any]]]:
    """The grid: every model x method x checkpointing x {512, 2048} tokens, plus variants.

    Variants: fused AdamW (full fine-tuning), micro-batch 2, LoRA without autocast (a plain loop
    on the bf16 model, where PEFT's fp32 input cast is not undone by autocast), and LoRA with bf16
    adapters (torchtune/LitGPT style, no autocast, with and without dropout; and TRL's bf16 adapters
    under autocast).
    """
    out = []
    for model in MODELS:
        for method, targets in METHODS:
            for gc_on in (False, True):
                for seq in (512, 2048):
                    kw = {"method": method, "lora_targets": targets, "grad_checkpointing": gc_on, "seq_len": seq}
                    if model in MOE and targets == "all-linear":
                        # PEFT wraps the 3-D expert tensors with ParamWrapper, which refuses lora_dropout != 0
                        kw["lora_dropout"] = 0.0
                    out.append((model, _settings(**kw)))
    for model in MODELS:
        out.append((model, _settings(method="full", optimizer="adamw-fused")))
    out.append(("llama-3.1-8b", _settings(method="full", grad_checkpointing=True, seq_len=2048, micro_batch=2)))
    out.append(("llama-3.1-8b", _settings(method="lora", lora_targets="all-linear", grad_checkpointing=True, seq_len=2048, micro_batch=2)))
    out.append(("llama-3.1-8b", _settings(method="lora", lora_targets="all-linear", seq_len=2048, autocast=False)))
    out.append(("llama-3.1-8b", _settings(method="lora", lora_targets="q_v", seq_len=2048, autocast=False)))
    out.append(("qwen2.5-7b", _settings(method="lora", lora_targets="all-linear", grad_checkpointing=True, seq_len=2048, autocast=False)))
    for gc_on in (False, True):
        for dropout in (0.0, 0.05):
            out.append(("llama-3.1-8b", _settings(method="lora", lora_targets="all-linear", grad_checkpointing=gc_on,
                                                  seq_len=2048, autocast=False, adapter_dtype="bf16", lora_dropout=dropout)))
    out.append(("qwen2.5-7b", _settings(method="lora", lora_targets="all-linear", grad_checkpointing=True, seq_len=2048,
                                        adapter_dtype="bf16")))
    return out


def case_id(model: str, s: dict[str, Any]) -> str:
    """A stable, readable id, e.g. ``llama-3.1-8b/lora-all-linear/gc/s2048/b1/adamw``."""
    method = s["method"] if s["method"] == "full" else f"lora-{s['lora_targets']}"
    parts = [model, method, "gc" if s["grad_checkpointing"] else "nogc", f"s{s['seq_len']}", f"b{s['micro_batch']}", s["optimizer"]]
    if not s.get("autocast", True):
        parts.append("no-autocast")
    if s.get("adapter_dtype", "fp32") != "fp32":
        parts.append(f"{s['adapter_dtype']}-adapters-p{s['lora_dropout']:g}")
    return "/".join(parts)


def depth_plan(config: dict[str, Any]) -> tuple[list[list[str] | None], dict[str, int]]:
    """Reduced-depth layer-type lists to run, and the full model's layer counts per type."""
    types = full_layer_types(config)
    if not types or len(set(types)) == 1:
        return [None, None], {"layer": architecture_from_hf_config(config).num_layers}
    counts = Counter(types)
    major = counts.most_common(1)[0][0]
    plans: list[list[str] | None] = [[major] * 2, [major] * 4]
    for minor in [t for t in counts if t != major]:
        # one and two layers of the minority type: the second separates its per-layer cost from what the
        # model builds once when the type is present at all (Gemma 3's global RoPE cos/sin and inv_freq)
        plans.append([major, major, minor, major, major])
        plans.append([major, major, minor, major, minor, major])
    return plans, with_presence(dict(counts), plans)


def with_presence(counts: dict[str, int], plans: list[list[str] | None]) -> dict[str, int]:
    """``counts`` plus a ``"<type> present"`` indicator for each layer type some plan lacks.

    A cost paid once when a layer type occurs at all (per-type rotary tables, masks) is not linear in that
    type's layer count; the indicator gives the extrapolation a separate unknown for it.
    """
    types = {t for p in plans if p for t in p}
    sometimes = {t for t in types if any(p is None or t not in p for p in plans)}
    out = dict(counts)
    for t in sorted(sometimes):
        out[f"{t} present"] = int(counts.get(t, 0) > 0)
    return out


def _counts(plan: list[str] | None, depth: int, plans: list[list[str] | None] | None = None) -> dict[str, int]:
    if plan is None:
        return {"layer": depth}
    return with_presence(dict(Counter(plan)), plans or [plan])


def run_case(model: str, s: dict[str, Any], full_depth: bool = False) -> dict[str, Any]:
    """Measure one case (reduced depths + extrapolation, or directly at full depth) and compare with the ledger."""
    config = compare.catalog_config(model)
    plans, target = depth_plan(config)
    depths = [2, 4] + [len(p) for p in plans[2:]]
    spec_kw = {k: s[k] for k in ("method", "lora_rank", "lora_alpha", "lora_dropout", "grad_checkpointing",
                                 "seq_len", "micro_batch", "optimizer", "autocast", "attention", "adapter_dtype")}
    spec_kw["lora_targets"] = s["lora_targets"] or "q_v"
    t0 = time.perf_counter()
    runs = [measure(CaseSpec(config=config, layers=d, layer_types=p, **spec_kw)) for d, p in zip(depths, plans, strict=True)]
    counts = [_counts(p, d, plans) for d, p in zip(depths, plans, strict=True)]
    weights = compare.extrapolation_weights(counts, target)
    full = compare.extrapolate(runs, weights)
    record: dict[str, Any] = {
        "id": case_id(model, s),
        "model": model,
        "settings": s,
        "layers": sum(n for t, n in target.items() if not t.endswith(" present")),
        "layer_types": target,
        "runs": [{"layers": d, "layer_types": c, "peak": r["peak"], "peak_phase": r["peak_phase"], "seconds": r["seconds"]}
                 for d, c, r in zip(depths, counts, runs, strict=True)],
        "extrapolation_weights": [round(w, 6) for w in weights],
    }
    measured = compare.derive(full, runs, depths, s)
    led = compare.ledger(model, s)
    record["pytorch"] = {
        "peak": full["peak"],
        "peak_phase": full["peak_phase"],
        "at_peak": full["at_peak"],
        "category_peaks": full["cat_max"],
        "marks": full["marks"],
        "phase_peaks": {k: {"peak": v["peak"], "at_peak": v["at_peak"]} for k, v in full["phases"].items()},
        "trainable_params": full["trainable_params"],
        "total_params": full["total_params"],
        "derived": measured,
    }
    record["tuneplan"] = led
    record["compare"] = compare.compare(measured, led, s)
    if full_depth:
        direct = measure(CaseSpec(config=config, layers=sum(n for t, n in target.items() if not t.endswith(" present")), layer_types=None, **spec_kw))
        record["check"] = _check(full, direct)
    record["seconds"] = round(time.perf_counter() - t0, 1)
    return record


def _check(extra: dict[str, Any], direct: dict[str, Any]) -> dict[str, Any]:
    """Largest relative difference between extrapolated and directly measured full-depth numbers."""
    worst = {"rel": 0.0, "where": ""}

    def walk(a: Any, b: Any, path: str) -> None:
        if isinstance(a, dict) and isinstance(b, dict):
            for k in a:
                if k in b:
                    walk(a[k], b[k], f"{path}.{k}")
        elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
            rel = abs(a - b) / max(abs(b), 1)
            if rel > worst["rel"]:
                worst.update(rel=rel, where=path)

    phases = {k: v for k, v in direct["phases"].items() if k in extra["phases"]}
    walk(extra["phases"], phases, "phases")
    walk(extra["marks"], direct["marks"], "marks")
    return {
        "extrapolated_peak": extra["peak"], "direct_peak": direct["peak"],
        "extrapolated_phase": extra["peak_phase"], "direct_phase": direct["peak_phase"],
        "max_rel_diff": round(worst["rel"], 9), "max_rel_diff_at": worst["where"],
        "direct_seconds": direct["seconds"],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the grid (or ``--only`` a model, ``--quick`` a handful of cases) and write the outputs."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", help="run only this catalog model id")
    ap.add_argument("--quick", action="store_true", help="first case of each model only (smoke run)")
    ap.add_argument("--no-checks", action="store_true", help="skip the full-depth extrapolation checks")
    ap.add_argument("--out", default=str(OUT_JSON))
    ap.add_argument("--md", default=str(OUT_MD))
    args = ap.parse_args(argv)

    todo = cases()
    if args.only:
        todo = [c for c in todo if c[0] == args.only]
    if args.quick:
        seen: set[str] = set()
        todo = [c for c in todo if not (c[0] in seen or seen.add(c[0]))]
    check_keys = set()
    if not args.no_checks:
        for model, over in CHECKS:
            check_keys.add(case_id(model, _settings(**over)))
    t0 = time.perf_counter()
    records = []
    for i, (model, s) in enumerate(todo, 1):
        cid = case_id(model, s)
        rec = run_case(model, s, full_depth=cid in check_keys)
        records.append(rec)
        peak = rec["compare"]["peak"]
        print(f"[{i}/{len(todo)}] {cid}: PyTorch {peak['pytorch'] / 2**30:.2f} GiB, Tuneplan {peak['tuneplan'] / 2**30:.2f} GiB "
              f"({peak['diff_pct']:+.1f}%) {rec['seconds']}s", flush=True)
    breakdowns = [] if args.quick or args.only else [per_layer_saved(m, o) for m, o in BREAKDOWNS]
    import peft
    import torch
    import transformers

    doc = {
        "generated_by": "make validate (tools/validate/grid.py)",
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__,
                     "python": sys.version.split()[0]},
        "seconds": round(time.perf_counter() - t0, 1),
        "cpu_count": os.cpu_count(),
        "cases": records,
        "per_layer_saved": breakdowns,
    }
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    import report

    Path(args.md).write_text(report.render(doc), encoding="utf-8")
    print(f"wrote {out} and {args.md} in {doc['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
