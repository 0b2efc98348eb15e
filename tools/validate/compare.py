"""Tuneplan's ledger next to PyTorch's accounting: settings, extrapolation and component mapping.

Pure Python on top of ``tuneplan`` (no torch), so the always-run unit test can recompute the
current estimator against the stored measurements in ``docs/validation/results.json``.

Component mapping (MemTracker category → ledger field), and why each pair is comparable:

=====================  ==========================================================  ==============================
comparison             PyTorch (MemTracker, one fake step)                         Tuneplan ledger
=====================  ==========================================================  ==============================
``params``             ``Parameter`` at the start of the step                      ``weights + adapters``
``gradients``          ``Gradient`` at the end of backward (all grads alive)        ``gradients``
``optimizer``          ``Optstate`` after ``step()`` (the AdamW moments)            ``optimizer``
``optimizer_peak``     ``Optstate`` maximum inside ``step()`` (moments + foreach     ``optimizer + step_temporaries``
                       temporaries)
``activations``        ``Activation`` just before the LM head runs (every tensor    ``activations``
                       the decoder saved; with checkpointing: the layer inputs),
                       plus, with checkpointing, the ``Activation`` a recomputed
                       layer adds during its backward
``act_per_layer_tok``  slope of that ``Activation`` per decoder layer, per token     ``activation_per_layer_token``
                       (checkpointing: the recomputed layer per token)             (same)
``ckpt_per_layer_tok`` checkpointing only: slope per layer per token of the kept     ``checkpoint_per_layer_token``
                       layer inputs
``loss``               the loss's live set at the peak of the cross-entropy          ``logits``
                       backward (before the LM head's backward starts): that
                       phase's peak minus everything alive before the LM head ran
``peak``               MemTracker's overall peak (512-byte block rounding)         ``peak_allocated`` − cuBLAS
                                                                                    workspace (32 MiB, not a tensor)
=====================  ==========================================================  ==============================

MemTracker attributes by *when* a tensor was made, the ledger by *what* it is: the fp32 log-softmax
the loss saves is ``Activation`` (made in forward) while the ledger books it under ``logits``; the
fp32 gradients of the logits are ``Temp``; every transient buffer of ``optimizer.step()`` is
``Optstate``. The sums above are chosen so each side counts the same tensors.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from tuneplan.core.architecture import ModelArchitecture, architecture_from_hf_config
from tuneplan.core.memory import CUBLAS_WORKSPACE_BYTES, estimate_memory
from tuneplan.core.scenario import GpuSpec, TrainingSetup

__all__ = [
    "COMPONENTS",
    "architecture",
    "catalog_config",
    "compare",
    "derive",
    "extrapolate",
    "ledger",
    "setup_for",
]

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "src" / "tuneplan" / "catalog" / "data" / "models.json"

#: Comparisons in the order the report lists them.
COMPONENTS = [
    "params", "gradients", "optimizer", "optimizer_peak", "activations",
    "act_per_layer_tok", "ckpt_per_layer_tok", "loss", "peak",
]

#: A GPU large enough that capacity never matters (the ledger's peak does not depend on it).
_GPU = GpuSpec(id="validate", name="validation GPU", memory_gib=1024)


@cache
def _catalog() -> dict[str, dict[str, Any]]:
    return {m["id"]: m for m in json.loads(CATALOG.read_text(encoding="utf-8"))}


def catalog_config(model_id: str) -> dict[str, Any]:
    """The ``config.json`` fields of a bundled catalog model (a copy)."""
    return json.loads(json.dumps(_catalog()[model_id]["config"]))


def architecture(model_id: str) -> ModelArchitecture:
    """Tuneplan's architecture of a catalog model, parsed from the same config the fake model is built from."""
    return architecture_from_hf_config(catalog_config(model_id), name=model_id)


def setup_for(settings: dict[str, Any]) -> TrainingSetup:
    """The :class:`TrainingSetup` of a measured case (one GPU, bf16, sdpa, fixed-length sequences)."""
    return TrainingSetup(
        method=settings["method"],
        precision="bf16",
        optimizer=settings.get("optimizer", "adamw"),
        lora_rank=settings.get("lora_rank", 16),
        lora_alpha=settings.get("lora_alpha", 32),
        lora_dropout=settings.get("lora_dropout", 0.05),
        lora_targets=settings.get("lora_targets") or "all-linear",
        micro_batch=settings["micro_batch"],
        seq_len=settings["seq_len"],
        sequence_mode="fixed",
        grad_checkpointing=settings["grad_checkpointing"],
        attention=settings.get("attention", "sdpa"),
        num_gpus=1,
        adapter_precision=adapter_precision(settings),
    )


def adapter_precision(settings: dict[str, Any]) -> str:
    """The ``TrainingSetup.adapter_precision`` of a measured case: PEFT's fp32 adapters under autocast (the
    default), without autocast, or bf16 adapters (``get_peft_model(..., autocast_adapter_dtype=False)``)."""
    if settings.get("adapter_dtype", "fp32") == "bf16":
        return "model-dtype"
    return "fp32-autocast" if settings.get("autocast", True) else "fp32"


def ledger(model_id: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The current estimator's numbers for one case, in bytes (JSON-ready)."""
    arch = architecture(model_id)
    est, led = estimate_memory(arch, setup_for(settings), _GPU)
    tokens = settings["seq_len"] * settings["micro_batch"]
    gc_on = settings["grad_checkpointing"]
    # What the harness measures as Activation with checkpointing also holds what the ledger keeps in other
    # moments: before the LM head, autocast's cache of every layer's adapter copies (the ledger's
    # end-of-forward moment: ``forward_cache`` for the other layers, one layer inside ``activations``), and in
    # the recomputed layer its forward transients and fresh adapter copies. No autocast, no cache.
    cast = led.adapter_cast_per_layer if gc_on and settings.get("autocast", True) else 0.0
    cached = led.forward_cache + cast if cast else 0.0  # every layer's copies, alive before the LM head
    recompute = (led.recompute_transient_per_token if gc_on else 0.0) + cast / tokens
    return {
        "weights": led.weights,
        "adapters": led.adapters,
        "gradients": led.gradients,
        "optimizer": led.optimizer,
        "step_temporaries": led.step_temporaries,
        "activations": led.activations + (led.forward_cache if cast else 0.0) + recompute * tokens,
        # the harness measures the loss's live set against everything alive before the LM head, which with
        # checkpointing still includes autocast's adapter copies that are freed before the backward
        "logits": led.logits - cached,
        "temporaries": led.temporaries,
        # per layer and token as the harness measures it: one layer's saved set / tokens, so the
        # token-independent W + delta-W of adapted stacked experts is spread over the step's tokens
        "activation_per_layer_token": led.activation_per_layer_token + led.merged_expert_bytes / tokens + recompute,
        "checkpoint_per_layer_token": led.checkpoint_per_layer_token + cast / tokens,
        "trainable_params": led.trainable_params,
        "total_params": arch.parameter_count(),
        "peak_allocated": est.peak_allocated_bytes,
        "peak_allocated_tensors": est.peak_allocated_bytes - CUBLAS_WORKSPACE_BYTES,
        "peak_phase": est.peak_phase,
    }


# ---------------------------------------------------------------------- extrapolation

def _lin(values: list[float], weights: list[float]) -> float:
    return sum(v * w for v, w in zip(values, weights, strict=True))


def extrapolation_weights(runs: list[dict[str, int]], target: dict[str, int]) -> list[float]:
    """Weights ``w`` so that ``Q(target) = sum(w_i * Q(run_i))`` for any Q linear in the layer counts.

    ``runs`` and ``target`` give the number of decoder layers of each attention type, e.g.
    ``{"full_attention": 2}`` or ``{"sliding_attention": 4, "full_attention": 1}``. Q is assumed to
    be ``c + sum_t n_t * s_t`` (a constant plus a per-layer cost per type); the runs must determine
    ``c`` and every ``s_t`` (the grid uses two depths of the majority type plus, for mixed models,
    runs with one and two minority-type layers inside). A key may also be a 0/1 indicator such as
    ``"full_attention present"``, whose coefficient is a cost paid once when that type occurs.
    """
    types = sorted({t for r in [*runs, target] for t in r})
    rows = [[1.0] + [float(r.get(t, 0)) for t in types] for r in runs]
    n = len(types) + 1
    if len(rows) != n:
        raise ValueError(f"need exactly {n} runs for layer types {types}, got {len(rows)}")
    # Solve rows^T w = target_vector (small dense system, Gaussian elimination).
    tvec = [1.0] + [float(target.get(t, 0)) for t in types]
    a = [[rows[j][i] for j in range(n)] + [tvec[i]] for i in range(n)]
    for col in range(n):
        piv = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[piv][col]) < 1e-12:
            raise ValueError("runs do not determine the per-layer costs")
        a[col], a[piv] = a[piv], a[col]
        for r in range(n):
            if r != col:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] for i in range(n)]


def _walk(objs: list[Any], weights: list[float]) -> Any:
    first = objs[0]
    if isinstance(first, dict):
        keys = set(first)
        for o in objs[1:]:
            keys &= set(o)
        return {k: _walk([o[k] for o in objs], weights) for k in first if k in keys}
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        return round(_lin([float(o) for o in objs], weights))
    return first


def extrapolate(runs: list[dict[str, Any]], weights: list[float]) -> dict[str, Any]:
    """Combine reduced-depth measurements into the full-depth one, number by number.

    Every byte count of a phase (its peak, the categories at that peak, each category's maximum, the
    entry snapshot) and of each mark is combined with ``weights``. The overall peak is then the
    largest extrapolated phase peak — not an extrapolation of the reduced runs' overall peak, which
    may sit in a different phase at small depth. ``bw_mid`` is dropped: at depth 2 it does not
    exist, and its peak lies between ``bw_top``'s and ``bw_bottom``'s (each layer's backward swaps
    that layer's activations for its gradients, so the live set is linear in the layer index).
    """
    phases = {}
    for name in runs[0]["phases"]:
        if name == "bw_mid" or not all(name in r["phases"] for r in runs):
            continue
        phases[name] = _walk([r["phases"][name] for r in runs], weights)
    marks = _walk([r["marks"] for r in runs], weights)
    peak_phase = max(phases, key=lambda k: phases[k]["peak"])
    cats = {c for p in phases.values() for c in p["cat_max"]}
    cat_max = {c: max(p["cat_max"].get(c, 0) for p in phases.values()) for c in sorted(cats)}
    return {
        "peak": phases[peak_phase]["peak"],
        "peak_phase": peak_phase,
        "at_peak": phases[peak_phase]["at_peak"],
        "cat_max": cat_max,
        "phases": phases,
        "marks": marks,
        "trainable_params": round(_lin([r["trainable_params"] for r in runs], weights)),
        "total_params": round(_lin([r["total_params"] for r in runs], weights)),
    }


def per_layer_slope(runs: list[dict[str, Any]], layer_counts: list[int], path: tuple[str, ...]) -> float:
    """Bytes per added decoder layer of the quantity at ``path`` (first two runs, same layer type)."""

    def get(r: dict[str, Any]) -> float:
        for key in path:
            r = r[key]
        return float(r)

    return (get(runs[1]) - get(runs[0])) / (layer_counts[1] - layer_counts[0])


# ---------------------------------------------------------------------- measured components

def derive(full: dict[str, Any], runs: list[dict[str, Any]], layer_counts: list[int], settings: dict[str, Any]) -> dict[str, float]:
    """The measured side of each comparison (see the module docstring) from the extrapolated step."""
    tokens = settings["seq_len"] * settings["micro_batch"]
    marks, phases = full["marks"], full["phases"]
    pre_head_act = marks["pre_head"]["Activation"]
    gc_on = settings["grad_checkpointing"]
    out: dict[str, float] = {
        "params": marks["start"]["Parameter"],
        "buffers": marks["start"]["Buffer"],
        "gradients": marks["end_bw"]["Gradient"],
        "optimizer": marks["end_opt"]["Optstate"],
        "optimizer_peak": phases["opt"]["cat_max"].get("Optstate", 0),
        "pre_head_activation": pre_head_act,
        "loss_forward": marks["end_fw"]["Activation"] - pre_head_act,
    }
    # The loss's live set: peak of the cross-entropy backward over everything alive before the LM head ran
    # (no parameter gradient exists yet in that phase of the first micro-batch).
    out["loss"] = phases["bw_loss"]["peak"] - marks["pre_head"]["Total"]
    out["loss_forward_peak"] = phases["fw"]["peak"] - marks["pre_head"]["Total"]
    slope = per_layer_slope(runs, layer_counts, ("marks", "pre_head", "Activation")) / tokens
    if gc_on:
        top = phases["bw_top"]
        recompute = top["cat_max"].get("Activation", 0) - top["entry"].get("Activation", 0)
        out["recomputed_layer"] = recompute
        out["activations"] = pre_head_act + recompute
        out["ckpt_per_layer_tok"] = slope
        out["act_per_layer_tok"] = recompute / tokens
    else:
        out["activations"] = pre_head_act
        out["act_per_layer_tok"] = slope
    out["peak"] = full["peak"]
    return out


def compare(measured: dict[str, float], led: dict[str, Any], settings: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """``{component: {"pytorch", "tuneplan", "diff_pct"}}``; ``diff_pct`` = Tuneplan / PyTorch − 1, in %."""
    gc_on = settings["grad_checkpointing"]
    pairs = {
        "params": (measured["params"], led["weights"] + led["adapters"]),
        "gradients": (measured["gradients"], led["gradients"]),
        "optimizer": (measured["optimizer"], led["optimizer"]),
        "optimizer_peak": (measured["optimizer_peak"], led["optimizer"] + led["step_temporaries"]),
        "activations": (measured["activations"], led["activations"]),
        "act_per_layer_tok": (measured["act_per_layer_tok"], led["activation_per_layer_token"]),
        "loss": (measured["loss"], led["logits"]),
        "peak": (measured["peak"], led["peak_allocated_tensors"]),
    }
    if gc_on:
        pairs["ckpt_per_layer_tok"] = (measured["ckpt_per_layer_tok"], led["checkpoint_per_layer_token"])
    out: dict[str, dict[str, float | None]] = {}
    for key in COMPONENTS:
        if key not in pairs:
            continue
        py, tp = pairs[key]
        diff = None if not py else round((tp / py - 1) * 100, 2)
        out[key] = {"pytorch": py, "tuneplan": tp, "diff_pct": diff}
    return out
