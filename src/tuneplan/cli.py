"""The command-line subcommands (``estimate``, ``compare-gpus``, ``scenarios``). No Qt imports.

Bad input exits with status 2 and a one-line ``tuneplan: error: ...`` message; it never prints a
traceback.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any, TextIO

from pydantic import ValidationError

from tuneplan.cli_dataset import apply_dataset_file, print_dataset_file
from tuneplan.core import workload as wl
from tuneplan.core.estimate import estimate
from tuneplan.core.memory import adapter_path
from tuneplan.core.result import GIB, Estimate
from tuneplan.core.scenario import Scenario, TrainingSetup, auto_name, explain_validation_error, method_word
from tuneplan.core.terms import render_formula, render_note
from tuneplan.core.text import terminal_safe
from tuneplan.core.training_config import FORMAT_NAMES

__all__ = ["estimate_to_json", "run_compare", "run_estimate", "run_scenarios", "scenario_from_args"]


class CliError(Exception):
    """A user error with a one-line message (exit status 2)."""


def _fail(message: str) -> int:
    print(f"tuneplan: error: {terminal_safe(message)}", file=sys.stderr)
    return 2


#: CLI argument (argparse dest) -> scenario field, per section; also used to name the flag in errors.
_TRAINING_ARGS: dict[str, str] = {
    "method": "method", "precision": "precision", "master_weights": "master_weights", "optimizer": "optimizer",
    "optimizer_in_backward": "optimizer_in_backward", "lora_rank": "lora_rank", "lora_alpha": "lora_alpha",
    "lora_dropout": "lora_dropout", "lora_targets": "lora_targets", "lora_modules": "lora_modules", "trainable_embeddings": "trainable_embeddings",
    "kbit_fp32_upcast": "kbit_fp32_upcast", "adapter_precision": "adapter_precision", "quant_bits": "quant_bits",
    "quant_method": "quant_method", "quant_group_size": "quant_group_size",
    "micro_batch": "micro_batch", "seq_len": "seq_len", "sequence_mode": "sequence_mode",
    "grad_accumulation": "grad_accumulation", "eval_batch": "eval_micro_batch", "eval_generate_tokens": "eval_generate_tokens",
    "empty_cache_steps": "empty_cache_steps", "grad_checkpointing": "grad_checkpointing", "attention": "attention",
    "fused_cross_entropy": "fused_cross_entropy", "activation_offload": "activation_offload",
    "torch_compile": "torch_compile",
    "cpu_offload": "cpu_offload", "gpus": "num_gpus", "sharding": "sharding", "grad_sync": "grad_sync",
    "fsdp_wrap": "fsdp_wrap", "framework": "framework", "mfu": "mfu_override",
    "workload": "workload", "reference_model": "reference_model",
    "num_generations": "num_generations", "completion_tokens": "completion_tokens", "kl_beta": "kl_beta",
    "generation_engine": "generation_engine", "vllm_memory_share": "vllm_memory_share", "vllm_sleep": "vllm_sleep",
    "vllm_server_gpus": "vllm_server_gpus",
    "deepspeed_reduce_bucket": "deepspeed_reduce_bucket", "deepspeed_prefetch_bucket": "deepspeed_prefetch_bucket",
    "deepspeed_sub_group": "deepspeed_sub_group", "deepspeed_max_reuse_distance": "deepspeed_max_reuse_distance",
    "deepspeed_auto_buckets": "deepspeed_auto_buckets", "zero_init": "zero_init",
}
_DATASET_ARGS: dict[str, str] = {"dataset_examples": "examples", "tokens_per_example": "tokens_per_example",
                                 "total_tokens": "total_tokens", "epochs": "epochs",
                                 "padding_efficiency": "padding_efficiency",
                                 "rank_padding_efficiency": "rank_padding_efficiency", "tokens_std": "tokens_std",
                                 "packing_efficiency": "packing_efficiency",
                                 "longest_tokens": "longest_tokens", "eval_share": "eval_fraction"}
_PRICING_ARGS: dict[str, str] = {
    "price_per_hour": "price_per_gpu_hour", "billing": "billing", "storage_gb": "storage_gb",
    "storage_usd_per_gb_month": "storage_usd_per_gb_month", "egress_gb": "egress_gb",
    "egress_usd_per_gb": "egress_usd_per_gb", "other_usd": "other_usd", "setup_minutes": "setup_minutes",
    "eval_minutes": "eval_minutes", "interruptions_per_hour": "interruptions_per_hour",
    "checkpoint_every_min": "checkpoint_every_min", "failure_probability": "failure_probability",
    "download_gbps": "download_gbps", "electricity_usd_per_kwh": "electricity_usd_per_kwh",
    "monthly_price_usd": "monthly_price_usd", "own_gpu": "own_gpu", "gpu_watts": "gpu_power_w",
    "host_watts": "host_power_w",
}
_FIELD_FLAGS: dict[str, str] = {
    **{f"training.{k}": "--" + a.replace("_", "-") for a, k in _TRAINING_ARGS.items()},
    **{f"dataset.{k}": "--" + a.replace("_", "-") for a, k in _DATASET_ARGS.items()},
    **{f"pricing.{k}": "--" + a.replace("_", "-") for a, k in _PRICING_ARGS.items()},
    "gpu.memory_gib": "--gpu-memory-gib",
}


def _validation_message(exc: ValidationError) -> str:
    """The first validation error as ``--flag: must be between A and B (got X)`` (the flag the user typed, when
    there is one, else the scenario field)."""
    where, msg = explain_validation_error(exc, Scenario)
    where = _FIELD_FLAGS.get(where, where)
    return f"{where}: {msg}" if where else msg


def resolve_gpu(text: str):  # noqa: ANN201 - GpuSpec
    """A catalog GPU from an id or a common name; raises :class:`CliError` when unknown."""
    from tuneplan.catalog.gpus import get_gpu, match_gpu

    try:
        return get_gpu(text)
    except KeyError:
        pass
    gpu = match_gpu(text)
    if gpu is None:
        from tuneplan.catalog.gpus import list_gpus

        key = "".join(ch for ch in text.lower() if ch.isalnum())
        words = re.findall(r"[a-z0-9]+", text.lower())  # "H100 80GB": every word in the name or id
        close = [g.id for g in list_gpus()
                 if key and (key in g.id.replace("_", "") or key in "".join(c for c in g.name.lower() if c.isalnum())
                             or all(w in f"{g.name.lower()} {g.id}" for w in words))]
        hint = f"; did you mean one of: {', '.join(close[:6])}" if close else ""
        raise CliError(f"unknown or ambiguous GPU {text!r}{hint} (see 'tuneplan estimate --list-gpus')")
    return gpu


def _local_gpu(text: str):  # noqa: ANN202 - (GpuSpec, power W or None) | None
    """``local`` / ``local:N``: this machine's GPU N (default 0) through NVML, as its catalog card with the memory the
    driver reports, and its enforced power limit (W); ``local`` without a detected GPU is the card saved under
    "Your GPUs". ``None`` for any other text.

    Raises:
        CliError: no such GPU (the probe's reason), or its memory could not be read.
    """
    key = text.strip().lower()
    if key != "local" and not key.startswith("local:"):
        return None
    from tuneplan.catalog.own_gpu import own_gpu_spec
    from tuneplan.hw.probe import probe_with_timeout

    index_text = key.partition(":")[2].strip()
    if index_text and not index_text.isdigit():
        raise CliError(f"--gpu {text!r}: write local or local:N with N the GPU's index ('tuneplan gpus')")
    index = int(index_text or 0)
    result = probe_with_timeout(5.0)
    found = [g for g in result.gpus if g.index == index]
    if not found:
        if not index_text:
            from tuneplan.storage.settings import load_local_gpu_settings

            manual = load_local_gpu_settings().settings.manual
            if manual is not None:
                return own_gpu_spec(manual.name, manual.memory_gib, catalog_id=manual.catalog_id,
                                    bf16_tflops=manual.bf16_tflops, typed=True), None
        why = result.message if not result.gpus else f"there is no GPU {index} ({len(result.gpus)} found)"
        raise CliError(f"--gpu {text}: {why}")
    g = found[0]
    if not g.memory_total_bytes:
        raise CliError(f"--gpu {text}: the memory of {g.name} could not be read")
    spec = own_gpu_spec(g.name, g.memory_total_bytes / GIB, catalog_id=g.catalog_id, bf16_supported=g.bf16_supported,
                        custom_id=f"local-{g.index}")
    return spec, g.power_limit_w


def scenario_or_failure(args: argparse.Namespace) -> Scenario | int:
    """:func:`scenario_from_args`, or the exit status after printing why not (one line: a flag's problem, or the
    first line of the plan's validation error)."""
    try:
        return scenario_from_args(args)
    except CliError as exc:
        return _fail(str(exc))
    except ValueError as exc:
        return _fail(str(exc).splitlines()[0])


def scenario_from_args(args: argparse.Namespace) -> Scenario:
    """Build a scenario from the default one (or ``--scenario FILE``) and the flags given.

    Raises:
        CliError: unknown model/GPU, unreadable config or scenario file, invalid combination.
    """
    from tuneplan import catalog

    if getattr(args, "scenario", None):
        from tuneplan.storage.files import ScenarioFileError, read_scenario_file

        source = args.scenario
        if not Path(source).expanduser().exists():
            # not a file: a plan saved in the library under that name ('tuneplan scenarios list')
            from tuneplan.storage import ScenarioLibrary

            matches = ScenarioLibrary().find(source)
            if len(matches) == 1:
                source = str(matches[0].path)
            elif len(matches) > 1:
                raise CliError(f"{len(matches)} saved scenarios are named {args.scenario!r}; give the file path "
                               f"({', '.join(str(m.path) for m in matches)})")
        try:
            base = read_scenario_file(source)
        except ScenarioFileError as exc:
            if source == args.scenario and exc.reason == "missing":
                raise CliError(f"{exc} (nor a saved scenario of that name: see 'tuneplan scenarios list')") from None
            raise CliError(str(exc)) from None
    else:
        base = catalog.default_scenario()
    data: dict[str, Any] = base.model_dump()
    if args.model is not None:
        try:
            entry = catalog.get_model(args.model)
        except KeyError:
            from tuneplan.storage.hub import parse_model_ref

            if parse_model_ref(args.model) is None:
                raise CliError(f"unknown model {args.model!r}{_closest_models(args.model)} (see 'tuneplan estimate "
                               "--list-models'; a Hugging Face model is org/name)") from None
            data["model"] = _hub_architecture(args).model_dump()
            data["model_id"] = ""
        else:
            data["model"] = entry.architecture.model_dump()
            data["model_id"] = entry.id
    elif args.config is not None:
        if not args.config.strip():
            raise CliError("--config needs a path to a config.json or a model folder")
        try:
            arch = catalog.load_hf_config(args.config)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        data["model"] = arch.model_dump()
        data["model_id"] = ""
    _apply_training_configs(args, data)
    training = data["training"]
    for arg, key in _TRAINING_ARGS.items():
        value = getattr(args, arg, None)
        if value is not None:
            training[key] = value
    if getattr(args, "no_double_quant", None):
        training["double_quant"] = False
    _apply_stack(args, training)
    own = bool(getattr(args, "own_gpu", None))
    if args.gpu is not None:
        local = _local_gpu(args.gpu)
        gpu = local[0] if local else resolve_gpu(args.gpu)
        data["gpu"] = gpu.model_dump()
        if local:
            own = True
            data["pricing"].update(own_gpu=True, gpu_power_w=local[1])
        from tuneplan.catalog.prices import default_price, plan_usd_per_gpu_hour, prices_for_gpu

        # a rented plan starts at the on-demand offer that costs least for its GPU count (a node sold whole is
        # billed whole, as in compare-gpus and the GUI); your own card is compared with its cheapest offer
        offers = prices_for_gpu(gpu.id)
        n = int(training.get("num_gpus", 1))
        price = (offers[0] if offers else None) if own else default_price(gpu.id, n)
        if price is not None and args.price_per_hour is None:
            data["pricing"].update(
                price_per_gpu_hour=price.usd_per_gpu_hour if own else plan_usd_per_gpu_hour(price, n),
                provider=price.provider, offer_kind=price.kind,
                billing=price.billing, price_date=price.date_seen,
            )
    if args.gpu_memory_gib is not None:
        data["gpu"]["memory_gib"] = args.gpu_memory_gib
    ds = data["dataset"]
    for arg, key in _DATASET_ARGS.items():
        value = getattr(args, arg, None)
        if value is not None:
            ds[key] = value  # --dataset-examples is parsed as a whole number: 0.5 is refused, not truncated
    pr = data["pricing"]
    for arg, key in _PRICING_ARGS.items():
        value = getattr(args, arg, None)
        if value is not None:
            pr[key] = value
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise CliError(_validation_message(exc)) from None
    if not getattr(args, "scenario", None):  # a plan from flags is named by what it is (a file keeps its name)
        scenario = scenario.model_copy(update={"name": auto_name(scenario)})
    return scenario


def _hub_architecture(args: argparse.Namespace) -> Any:
    """``--model org/name[@revision]`` (or a Hub URL): the model from the local HF cache, else from the Hub (its
    config.json and safetensors headers only); remembered in the recent-models list. What could not be read is kept
    on ``args.hub_notes`` for the output.

    Raises:
        CliError: the one-line :class:`~tuneplan.storage.hub.HubError` message (401/403, 404, offline, unsupported).
    """
    from tuneplan.storage.hub import HubError, resolve_model
    from tuneplan.storage.recent_models import (
        RecentModel,
        RecentModelsError,
        known_checkpoint,
        remember_model,
    )

    try:
        model = resolve_model(args.model, known=known_checkpoint)
    except HubError as exc:
        raise CliError(str(exc)) from None
    args.hub_notes = list(model.notes)
    try:
        remember_model(RecentModel(kind="hub", ref=str(model.ref), name=model.architecture.name, commit=model.commit,
                                   checkpoint=model.architecture.checkpoint))
    except RecentModelsError as exc:
        args.hub_notes.append(str(exc))
    return model.architecture


def _apply_stack(args: argparse.Namespace, training: dict[str, Any]) -> None:
    """``--stack NAME``: the stack's defaults into ``training``, except for the fields a flag or a training-config
    file set (those win; the defaults a file filled in from its own stack do not)."""
    key = getattr(args, "stack", None)
    if key is None:
        return
    from tuneplan.core.stacks import apply_stack

    keep = {k for arg, k in _TRAINING_ARGS.items() if getattr(args, arg, None) is not None}
    if getattr(args, "no_double_quant", None):
        keep.add("double_quant")
    for _path, result in getattr(args, "training_config_imports", None) or []:
        keep |= {f.split(".", 1)[1] for i in result.items if i.note.code != "config.stack_default"
                 for f in i.fields if f.startswith("training.")}
    try:
        setup = TrainingSetup.model_validate(training)
    except ValidationError:
        return  # the scenario's validation below names the bad value by its flag
    training.update(apply_stack(setup, key, keep=keep - {"stack"}).model_dump())


def _apply_training_configs(args: argparse.Namespace, data: dict[str, Any]) -> None:
    """``--training-config FILE`` (repeatable): each file's updates into ``data`` in order (later files win; the
    flags, applied after, win over all). What each file took is kept on ``args.training_config_imports``.

    Raises:
        CliError: a file that cannot be read or mapped (one line naming it).
    """
    from tuneplan.storage.training_config import TrainingConfigError, read_training_config

    imports = []
    for path in getattr(args, "training_config", None) or []:
        try:
            result = read_training_config(path)
        except TrainingConfigError as exc:
            raise CliError(f"--training-config {exc}") from None
        for dotted, value in result.updates.items():
            section, key = dotted.split(".", 1)
            data[section][key] = value
        imports.append((str(path), result))
    args.training_config_imports = imports


def _flag_given(args: argparse.Namespace, field: str) -> str | None:
    """The flag given on the command line that sets ``field`` (``training.micro_batch``), if any."""
    for table, section in ((_TRAINING_ARGS, "training"), (_DATASET_ARGS, "dataset")):
        for arg, key in table.items():
            if f"{section}.{key}" == field and getattr(args, arg, None) is not None:
                return "--" + arg.replace("_", "-")
    return None


def _imported(args: argparse.Namespace) -> list[dict[str, Any]]:
    """One entry per setting of every ``--training-config`` file: file, format, status, code, params, text and,
    for a taken setting, what overrode it (a later file or a flag)."""
    imports = getattr(args, "training_config_imports", None) or []
    out = []
    for n, (path, result) in enumerate(imports):
        later = {f for _p, r in imports[n + 1:] for f in r.updates}
        for item in result.items:
            overridden = None
            if item.status == "taken" and item.fields:
                flags = [f for f in (_flag_given(args, field) for field in item.fields) if f]
                if flags:
                    overridden = flags[0]
                elif all(f in later for f in item.fields):
                    overridden = "a later --training-config"
            out.append({"file": path, "format": result.format, "status": item.status, "key": item.key,
                        "code": item.note.code, "params": item.note.params, "fields": list(item.fields),
                        "text": _import_text(item.note), "overridden_by": overridden})
    return out


def _import_text(note: Any) -> str:
    """A training-config note in words, the plan field named by its flag (``--micro-batch``), switches on/off."""
    params = dict(note.params)
    if "field" in params:
        params["field"] = _FIELD_FLAGS.get(params["field"], params["field"])
    if isinstance(params.get("setting"), bool):
        params["setting"] = "on" if params["setting"] else "off"
    return render_note(note.model_copy(update={"params": params}))


def _print_imported(entries: list[dict[str, Any]], out: TextIO) -> None:
    """What each ``--training-config`` file set, could not express and ignored (ignored keys on one line)."""
    for path in dict.fromkeys(e["file"] for e in entries):
        mine = [e for e in entries if e["file"] == path]
        print(f"Imported {terminal_safe(path)} ({FORMAT_NAMES.get(mine[0]['format'], mine[0]['format'])}):", file=out)
        for e in mine:
            if e["status"] == "taken":
                tail = f" (overridden by {e['overridden_by']})" if e["overridden_by"] else ""
                print(f"  taken: {terminal_safe(e['text'])}{tail}", file=out)
        for e in mine:
            if e["status"] == "unsupported":
                print(f"  not expressible: {terminal_safe(e['text'])}", file=out)
        ignored = [e["key"] for e in mine if e["status"] == "ignored"]
        if ignored:
            print(f"  ignored (no effect on memory or time, or left to another file): {terminal_safe(', '.join(ignored))}", file=out)
    if entries:
        print(file=out)


def _closest_models(name: str) -> str:
    """``"; did you mean llama-3.1-8b?"`` for the catalog ids (or Hugging Face ids) closest to ``name``, or ""."""
    import difflib

    from tuneplan import catalog

    entries = catalog.list_models()
    by_key = {e.id.lower(): e.id for e in entries} | {e.hf_id.lower(): e.id for e in entries if e.hf_id}
    by_key |= {e.hf_id.split("/")[-1].lower(): e.id for e in entries if e.hf_id}
    hits = difflib.get_close_matches(name.lower(), list(by_key), n=6, cutoff=0.6)
    ids = list(dict.fromkeys(by_key[h] for h in hits))[:3]
    return f"; did you mean {' or '.join(ids)}?" if ids else ""


def _stack_json(scenario: Scenario) -> dict[str, Any] | None:
    """The plan's training stack: key, the fields it set (value and source) and those the plan overrides."""
    from tuneplan.core.stacks import overridden, resolved_defaults

    tr = scenario.training
    if tr.stack is None:
        return None
    defaults = resolved_defaults(tr.stack, tr)
    return {"key": tr.stack, "overridden": overridden(tr),
            "defaults": {f: {"value": d.value, "source": d.source.text()} for f, d in defaults.items()}}


def _stack_line(tr: Any) -> str:
    """``stack: TRL (SFTTrainer) defaults; overridden: --grad-checkpointing`` for the text output."""
    from tuneplan.core.stacks import get_stack, overridden

    changed = [_FIELD_FLAGS.get(f"training.{f}", f) for f in overridden(tr)]
    return f"stack: {get_stack(tr.stack).name} defaults" + (f"; overridden: {', '.join(changed)}" if changed else "")


def _term_json(term: Any) -> dict[str, Any]:
    """A :class:`~tuneplan.core.terms.Term` as JSON: key, value, unit, detail, source, its parts and formula."""
    return {"key": term.key, "value": term.value, "unit": term.unit, "detail": term.detail, "source": term.source,
            "parts": {q.key: {"value": q.value, "unit": q.unit, "source": q.source} for q in term.parts},
            "formula": render_formula(term)}


def _workload_json(scenario: Scenario) -> dict[str, Any]:
    """What is trained (issue #18): the workload, the reference in effect, rows per example and which tokens count."""

    tr = scenario.training
    return {"key": tr.workload, "reference_model": wl.reference_kind(tr), "reference_setting": tr.reference_model,
            "rows_per_example": wl.rows_per_example(tr), "rows_per_micro_batch": wl.policy_rows(tr),
            "nograd_passes_per_micro_batch": sum(wl.nograd_passes(tr)),
            # tokens_total, tokens_per_step and tokens_per_second count these rows' tokens
            "tokens_counted": ("completions (num_generations per prompt)" if tr.workload == "grpo" else
                               "chosen+rejected rows" if wl.rows_per_example(tr) == 2 else "examples"),
            **({"grpo": {"num_generations": tr.num_generations, "completion_tokens": tr.completion_tokens,
                         "prompt_tokens": tr.seq_len - tr.completion_tokens, "kl_beta": tr.kl_beta,
                         "generation_engine": tr.generation_engine, "vllm_memory_share": tr.vllm_memory_share,
                         "vllm_sleep": tr.vllm_sleep, "vllm_server_gpus": tr.vllm_server_gpus}}
               if tr.workload == "grpo" else {})}


def estimate_to_json(scenario: Scenario, result: Estimate) -> list[dict[str, Any]]:
    """The ``--json`` document: one object per GPU of the run (identical ranks share numbers)."""
    from tuneplan.core.estimate import blocking_notes

    m, t, c = result.memory, result.time, result.cost
    per_gpu = {
        "scenario": scenario.name,
        "model": scenario.model.name,
        "stack": _stack_json(scenario),
        "gpu": {"id": scenario.gpu.id, "name": scenario.gpu.name, "capacity_bytes": m.capacity_bytes},
        "parameters": result.parameters,
        "trainable_parameters": result.trainable_parameters,
        "workload": _workload_json(scenario),
        "memory": {
            "components": {comp.key: comp.bytes for comp in m.components},
            # the named parts of the components computed as terms (preference and reward workloads), with their
            # quantities, units and sources
            "component_terms": {comp.key: [_term_json(term) for term in comp.terms] for comp in m.components
                                if comp.terms},
            "peak_allocated_bytes": m.peak_allocated_bytes,
            "peak_reserved_bytes": m.peak_reserved_bytes,
            "total_bytes": m.total_bytes,
            "paged_bytes": m.paged_bytes,
            "cache_bytes": m.cache_bytes,
            "nvidia_smi_bytes": m.total_bytes + m.cache_bytes,
            "capacity_bytes": m.capacity_bytes,
            "low_bytes": m.low_bytes,
            "high_bytes": m.high_bytes,
            "peak_phase": m.peak_phase,
            "verdict_metric": "total_bytes",
            # tokens of the micro-batch the step is sized by; padding-free: how its largest flattened row was found
            "batch_tokens": m.batch_tokens,
            "batch_term": _term_json(m.batch_term) if m.batch_term is not None else None,
        },
        "fits": m.fits,
        "runnable": not blocking_notes(result),
        "band_risk": m.band_risk,
        "verdict": m.verdict(),
        "time": {
            "seconds": t.seconds,
            "hours": t.hours,
            "phases": t.phases,
            "tokens_total": t.tokens_total,
            "tokens_per_second": t.tokens_per_second,
            "flops_per_token": t.flops_per_token,
            "mfu": t.mfu,
            "steps": t.steps,
            "checkpoint_saves": t.checkpoint_saves,
            "bound": t.bound,
            "link": t.link,
            "tokens_per_second_low": t.tokens_per_second_low,
            "tokens_per_second_high": t.tokens_per_second_high,
            "low_seconds": t.low_seconds,
            "high_seconds": t.high_seconds,
            "tokens_per_step": t.tokens_per_step,
            "step_seconds": {
                "total": t.step_seconds,
                "parts": {term.key: term.value for term in t.step_terms},
                "terms": [{"key": term.key, "seconds": term.value, "source": term.source,
                           "parts": {q.key: {"value": q.value, "unit": q.unit} for q in term.parts}}
                          for term in t.step_terms],
            },
            "eval_terms": [{"key": term.key, "seconds": term.value, "source": term.source,
                            "parts": {q.key: {"value": q.value, "unit": q.unit} for q in term.parts}}
                           for term in t.eval_terms],
            "calibrated": t.calibrated,
            "notes": [{"code": n.code, "params": n.params, "text": render_note(n)} for n in t.messages],
        },
        "cost": {
            "total_usd": c.total_usd,
            "low_usd": c.low_usd,
            "high_usd": c.high_usd,
            "pessimistic_usd": c.pessimistic_usd,
            "gpu_usd": c.gpu_usd,
            "billed_hours": c.billed_hours,
            "storage_usd": c.storage_usd,
            "egress_usd": c.egress_usd,
            "other_usd": c.other_usd,
            "interruption_usd": c.interruption_usd,
            "price_per_gpu_hour": scenario.pricing.price_per_gpu_hour,
            "billing": scenario.pricing.billing,
            "paid_as": c.billing,
            "kwh": c.kwh,
            "rental_usd": c.rental_usd,
            "terms": [{"key": term.key, "usd": term.value, "source": term.source, "detail": term.detail,
                       "parts": {q.key: {"value": q.value, "unit": q.unit, "source": q.source} for q in term.parts}}
                      for term in c.terms],
            "notes": [{"code": n.code, "params": n.params, "text": render_note(n)} for n in c.messages],
        },
        "warnings": result.warnings,
        "warning_codes": [{"code": n.code, "params": n.params} for n in result.messages],
        # what would make it fit (or give the likely range room), best first: the GUI's advice; [] when it fits
        "advice": [{"key": g.key, "title": g.title, "detail": g.detail, "changes": g.changes,
                    "total_bytes": g.total_bytes, "saved_bytes": g.saved_bytes, "fits": g.fits,
                    "band_risk": g.band_risk, "hours_delta": g.hours_delta, "usd_delta": g.usd_delta}
                   for g in _advice(scenario, result) or []],
    }
    return [{"gpu_index": i, **per_gpu} for i in range(scenario.training.num_gpus)]


def _advice(scenario: Scenario, result: Estimate, most: int = 4) -> list[Any] | None:
    """Up to ``most`` of :func:`tuneplan.core.advice.suggest`'s best single changes when the plan does not fit or
    its likely range does not (a larger GPU priced at its catalog on-demand price); ``None`` when it needs none."""
    m = result.memory
    if m.fits and m.band_risk not in {"tight", "unlikely"}:
        return None
    from tuneplan.catalog import list_gpus
    from tuneplan.catalog.prices import default_price
    from tuneplan.core.advice import suggest

    gpus = list_gpus()
    prices = {g.id: e.usd_per_gpu_hour for g in gpus if (e := default_price(g.id)) is not None}
    return suggest(scenario, gpus, result, gpu_prices=prices)[:most]


def _print_text(scenario: Scenario, result: Estimate, out: TextIO) -> None:
    from tuneplan.core.estimate import billed_gpus, blocking_notes

    m, t, c = result.memory, result.time, result.cost
    tr = scenario.training
    # the model and GPU names may come from a shared plan or config.json: printed escaped (terminal_safe)
    print(f"{terminal_safe(scenario.model.name)} · {method_word(tr, scenario.model)} · "
          f"{terminal_safe(scenario.gpu.name)} x{tr.num_gpus}"
          + (f" + {tr.vllm_server_gpus} for the vLLM server" if billed_gpus(tr) > tr.num_gpus else ""), file=out)
    trainable = result.trainable_parameters
    shown = f"{trainable / 1e9:.2f} B" if trainable >= 1e9 else f"{trainable / 1e6:.1f} M"
    print(f"parameters {result.parameters / 1e9:.2f} B, trainable {shown}", file=out)
    lora = f", LoRA r={tr.lora_rank} {','.join(tr.lora_modules) or tr.lora_targets}" if tr.method != "full" else ""
    amp = tr.master_weights == "fp32" and tr.precision != "fp32" and tr.method != "qlora"  # as core.memory uses it
    lora += {"autocast": " (FP32 adapters, autocast)", "fp32": " (FP32 adapters, no autocast)",
             "native": f" ({'fp32' if amp else tr.precision} adapters)"}.get(adapter_path(tr), "")
    if tr.method == "qlora":  # sharded QLoRA never upcasts (as core.memory decides)
        upcast = tr.kbit_fp32_upcast and not (tr.num_gpus > 1 and tr.sharding in {"zero3", "fsdp"})
        ckpt = scenario.model.checkpoint
        base = (ckpt.label if ckpt is not None and ckpt.is_quantized
                else f"HQQ {tr.quant_bits}-bit, groups of {tr.quant_group_size}" if tr.quant_method == "hqq"
                else "LLM.int8" if tr.quant_bits == 8 else f"NF4{' + double quant' if tr.double_quant else ''}")
        lora += f", {base}, unquantised weights in " + (
            "fp32" if upcast else tr.precision)
    shard = (f", {tr.sharding} over {tr.num_gpus} GPUs" if tr.sharding != "none" else
             f", layers split over {tr.num_gpus} GPUs") if tr.num_gpus > 1 else ""
    if tr.sharding == "fsdp" and tr.num_gpus > 1:
        shard += {"layers": ", embeddings and LM head in the FSDP root unit",
                  "separate-embeddings": ", embeddings and LM head sharded as FSDP units of their own",
                  "blocks-with-adapters": ", embeddings and LM head in the FSDP root unit"}[tr.fsdp_wrap]
    if tr.frozen_weight_grads:
        shard += " (adapters in their layer's FSDP unit: frozen weights get gradients)"
    if tr.unsharded_accumulation:
        shard += ", gradients synced at the optimizer step (no_sync)"
    elif tr.sharding == "fsdp" and tr.num_gpus > 1 and tr.grad_accumulation > 1 and not tr.optimizer_in_backward:
        shard += ", gradients synced every micro-batch"
    print(f"assumed: {tr.precision}{' + fp32 master' if amp else ''}, {tr.optimizer}"
          f"{' (step in backward)' if tr.optimizer_in_backward else ''}{lora}; micro-batch {tr.micro_batch} x "
          f"{tr.seq_len} tokens ({tr.sequence_mode}), grad accumulation {tr.grad_accumulation}, checkpointing "
          f"{'on' if tr.grad_checkpointing else 'off'}, {tr.attention} attention"
          f"{', fused CE' if tr.fused_cross_entropy else ''}{', torch.compile' if tr.torch_compile else ''}{shard}", file=out)
    if tr.stack is not None:
        print(_stack_line(tr), file=out)
    if not wl.causal_lm(tr):
        print(_workload_line(scenario), file=out)
    if m.batch_term is not None:
        print(f"largest micro-batch: {m.batch_term.value:,.0f} tokens ({render_formula(m.batch_term)})", file=out)
    print("\nMemory per GPU (peak during " + m.peak_phase + "):", file=out)
    for comp in m.components:
        if comp.bytes > 0:
            print(f"  {comp.label:<20} {comp.bytes / GIB:8.2f} GiB", file=out)
    print(f"  {'peak allocated':<20} {m.peak_allocated_bytes / GIB:8.2f} GiB  (torch max_memory_allocated)", file=out)
    print(f"  {'peak reserved':<20} {m.peak_reserved_bytes / GIB:8.2f} GiB  (torch max_memory_reserved on this GPU"
          + (f"; {m.cache_bytes / GIB:.2f} GiB of it cached blocks of earlier, shorter batches, released before out of "
             "memory" if m.cache_bytes else "") + ")", file=out)
    if m.cache_bytes:
        print(f"  {'device total':<20} {m.total_bytes / GIB:8.2f} GiB  (what must fit; the verdict uses this. "
              f"nvidia-smi on this GPU will show about {(m.total_bytes + m.cache_bytes) / GIB:.2f} GiB once the cache has "
              "built up; it can grow until the card is full)",
              file=out)
    else:
        print(f"  {'device total':<20} {m.total_bytes / GIB:8.2f} GiB  (nvidia-smi; what must fit; the verdict uses this)",
              file=out)
    if m.paged_bytes:
        print(f"  {'paged (not counted)':<20} {m.paged_bytes / GIB:8.2f} GiB  (unified memory: moves to CPU RAM when the GPU is full)", file=out)
    print(f"  {'capacity':<20} {m.capacity_bytes / GIB:8.2f} GiB  -> {m.verdict()}", file=out)
    for note in blocking_notes(result):  # fits in memory, but the stack refuses it or an engine cannot start
        print(f"  CANNOT RUN as planned: {render_note(note)}", file=out)
    risk = {"none": "", "tight": "; tight: the upper bound does not fit",
            "unlikely": "; unlikely to fit: even the lower bound does not",
            "possible": "; may fit: the lower bound does"}[m.band_risk]
    if m.low_bytes != m.high_bytes:  # (a peak of the whole model loading is its stored bytes: no range)
        print(f"  {'likely':<20} {m.low_bytes / GIB:5.1f}-{m.high_bytes / GIB:.1f} GiB  (measured error of the estimate "
              f"on published runs, docs/accuracy.md{risk})", file=out)
    tips = _advice(scenario, result)
    if tips is not None:
        _print_advice(tips, m.fits, out)
    print(f"\nTime: {t.hours:.2f} h, likely {t.low_seconds / 3600:.2f}-{t.high_seconds / 3600:.2f} h "
          f"({t.tokens_per_second:,.0f} tokens/s per GPU, likely {t.tokens_per_second_low:,.0f}-"
          f"{t.tokens_per_second_high:,.0f}; MFU {t.mfu:.0%}, "
          f"{'no single limit' if t.bound == 'mixed' else t.bound + '-bound'})", file=out)
    for name, sec in t.phases.items():
        print(f"  {name:<12} {sec / 3600:8.2f} h", file=out)
    print(f"  one optimizer step: {t.step_seconds:.3f} s for {t.tokens_per_step:,.0f} tokens per GPU", file=out)
    for term in t.step_terms:
        if term.value > 0:
            share = term.value / t.step_seconds if t.step_seconds else 0.0
            print(f"    {term.key:<14} {term.value:8.3f} s  {share:5.1%}  {render_formula(term)}", file=out)
    for term in t.eval_terms:  # an evaluation that generates: one evaluation micro-batch's generate
        print(f"  evaluation batch: {term.value:.2f} s  {render_formula(term)}", file=out)
    for note in t.messages:
        print(f"  note: {terminal_safe(render_note(note))}", file=out)
    if c.billing == "electricity":
        print(f"\nCost (electricity): ${c.total_usd:,.2f} expected, likely ${c.low_usd:,.2f}-${c.high_usd:,.2f}; "
              f"{c.kwh:,.2f} kWh over {c.billed_hours:.2f} h", file=out)
        for term in c.terms:
            print(f"  {term.key:<24} ${term.value:,.2f}  {render_formula(term)}", file=out)
    else:
        print(f"\nCost: ${c.total_usd:,.2f} expected, likely ${c.low_usd:,.2f}-${c.high_usd:,.2f} "
              f"(pessimistic ${c.pessimistic_usd:,.2f}); "
              f"{c.billed_hours:.2f} billed h x ${scenario.pricing.price_per_gpu_hour:.2f}/GPU-h x {billed_gpus(tr)}",
              file=out)
    for name, usd in c.breakdown.items():
        if usd and not (c.billing == "electricity" and name.startswith("Electricity")):
            print(f"  {name:<24} ${usd:,.2f}", file=out)
    for note in c.messages:
        print(f"  note: {terminal_safe(render_note(note))}", file=out)
    for w in result.warnings:
        print(f"warning: {terminal_safe(w)}", file=out)


def _workload_line(scenario: Scenario) -> str:
    """``workload: dpo, reference shared (...); 2 rows per example ...`` for the text output."""

    tr = scenario.training
    ref = {"shared": "the policy with its adapters disabled", "copy": "a frozen copy in memory",
           "precomputed": "log-probs precomputed before training", "none": "none"}[wl.reference_kind(tr)]
    rows = ("chosen and rejected: 2 rows per example, tokens count both" if wl.rows_per_example(tr) == 2
            else "1 row per example")
    if tr.workload == "grpo":
        rows = (f"{tr.num_generations} completions of {tr.completion_tokens} tokens per prompt, generated by "
                f"{tr.generation_engine} every step")
    passes = sum(wl.nograd_passes(tr))
    return (f"workload: {tr.workload} (TRL {wl.TRAINERS[tr.workload]}); reference: {ref}; {rows}"
            + (f"; {passes} forward pass{'es' if passes > 1 else ''} without gradients per micro-batch" if passes else ""))


def _print_advice(tips: list[Any], fits: bool, out: TextIO) -> None:
    """The GUI's advice in text (:func:`_advice`): each change with its memory, time and cost."""
    if not tips:
        print("\nNo single change saves memory here.", file=out)
        return
    print("\nWhat would make it fit, best first:" if not fits
          else "\nChanges that give headroom (the likely range does not fit), best first:", file=out)
    for i, g in enumerate(tips, 1):
        ok = ("fits" + {"tight": ", tight", "unlikely": ", unlikely"}.get(g.band_risk, "")) if g.fits else "does not fit"
        print(f"  {i}. {g.title}: {g.total_bytes / GIB:.1f} GiB, {ok}; time {g.hours_delta * 60:+.0f} min, "
              f"cost {'+' if g.usd_delta >= 0 else '-'}${abs(g.usd_delta):,.2f}", file=out)


def _ignored_flags(args: argparse.Namespace, scenario: Scenario) -> list[str]:
    """Warnings for FSDP flags given on the command line that the plan cannot use (their defaults stay silent)."""
    t = scenario.training
    fsdp = t.sharding == "fsdp" and t.num_gpus > 1
    out = []
    if getattr(args, "grad_sync", None) is not None and not (fsdp and t.grad_accumulation > 1
                                                            and not t.optimizer_in_backward):
        out.append("--grad-sync is ignored: it applies to FSDP over several GPUs with gradient accumulation")
    if getattr(args, "fsdp_wrap", None) is not None and not fsdp:
        out.append("--fsdp-wrap is ignored: it applies to FSDP over several GPUs")
    out.extend(getattr(args, "hub_notes", None) or [])  # what a Hub model's fetch could not read
    return out


def _calibration(args: argparse.Namespace, scenario: Scenario, result: Estimate) -> Any:
    """The calibration the flags ask for (``--calibration FILE``, ``--pilot-*``, ``--use-saved-calibration``), or
    None; ``--save-calibration`` keeps it in the data directory.

    Raises:
        CliError: a bad pilot file or number (one line naming the problem).
    """
    from tuneplan.core.calibration import CalibrationError, calibrate, pilot_from_numbers
    from tuneplan.core.estimate import plan_stack_key
    from tuneplan.storage.calibrations import CalibrationBook, PilotFileError, read_pilot

    file = getattr(args, "calibration", None)
    step_s = getattr(args, "pilot_step_seconds", None)
    tps = getattr(args, "pilot_tokens_per_second", None)
    key = plan_stack_key(scenario)
    given = [flag for flag, value in (("--calibration", file), ("--pilot-step-seconds", step_s),
                                      ("--pilot-tokens-per-second", tps)) if value]
    if len(given) > 1:
        raise CliError(f"calibration: give one of {', '.join(given)}, not several")
    if not given:
        if getattr(args, "use_saved_calibration", False):
            return CalibrationBook().find(key)
        return None
    try:
        if file:
            pilot = read_pilot(file, tokens_per_step=result.time.tokens_per_step)
        else:
            import datetime

            pilot = pilot_from_numbers(step_seconds=step_s, tokens_per_second=tps,
                                       tokens_per_step=result.time.tokens_per_step,
                                       date=datetime.date.today().isoformat())
        cal = calibrate(pilot, result.time.step_seconds, key, label=scenario.name, predicted_mfu=result.time.mfu,
                        plan_micro_batch=scenario.training.micro_batch)
    except (CalibrationError, PilotFileError) as exc:
        raise CliError(f"calibration: {exc}") from None
    if getattr(args, "save_calibration", False):
        try:
            CalibrationBook().save(cal)
        except OSError as exc:
            raise CliError(f"calibration: cannot save it ({exc})") from None
    return cal


def run_estimate(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """``tuneplan estimate``: print the estimate (text or ``--json``); 2 on bad input."""
    from tuneplan import catalog

    if args.list_models:
        for entry in catalog.list_models():
            print(f"{entry.id:<28} {entry.name}", file=out)
        return 0
    if args.list_gpus:
        for gpu in catalog.list_gpus():
            print(f"{gpu.id:<24} {gpu.name:<40} {gpu.memory_gib:7.2f} GiB", file=out)
        return 0
    try:
        scenario = scenario_from_args(args)
        scenario, dataset_file = apply_dataset_file(args, scenario)  # --dataset-file (issue #19)
        result = estimate(scenario)
        calibration = _calibration(args, scenario, result)
        if calibration is not None:
            result = estimate(scenario, calibration=calibration)
    except CliError as exc:
        return _fail(str(exc))
    except ValueError as exc:
        return _fail(str(exc).splitlines()[0])
    ignored = _ignored_flags(args, scenario)
    if ignored:
        result = result.model_copy(update={"warnings": [*result.warnings, *ignored]})
    imported = _imported(args)
    if args.json:
        doc = estimate_to_json(scenario, result)
        if getattr(args, "training_config", None):
            doc = [{**entry, "imported": imported} for entry in doc]
        if dataset_file is not None:
            doc = [{**entry, "dataset_file": dataset_file} for entry in doc]
        json.dump(doc, out, indent=2)
        out.write("\n")
    else:
        if dataset_file is not None:
            print_dataset_file(dataset_file, out)
        _print_imported(imported, out)
        _print_text(scenario, result, out)
        if calibration is None:
            from tuneplan.core.estimate import plan_stack_key
            from tuneplan.storage.calibrations import CalibrationBook

            try:
                saved = CalibrationBook().find(plan_stack_key(scenario))
            except OSError:  # no usable data directory: nothing saved to mention
                saved = None
            if saved is not None:
                print(f"note: a saved calibration for this GPU and stack (your run of {saved.date or 'unknown date'}: "
                      f"time x {saved.factor:.3g}) is not applied; --use-saved-calibration applies it, as the GUI "
                      "does", file=out)
    return 0


def run_compare(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """``tuneplan compare-gpus``: the plan on every catalog GPU (see :mod:`tuneplan.core.compare`)."""
    try:
        scenario = scenario_from_args(args)
        # a pilot of the plan calibrates its own GPU's row (and every GPU whose plan shares the stack key)
        calibrations: dict[str, Any] = {}
        if getattr(args, "use_saved_calibration", False):
            from tuneplan.storage.calibrations import CalibrationBook

            calibrations = {c.key: c for c in CalibrationBook().load()}
        pilot_cal = _calibration(args, scenario, estimate(scenario))
        if pilot_cal is not None:
            calibrations[pilot_cal.key] = pilot_cal
    except CliError as exc:
        return _fail(str(exc))
    except ValueError as exc:
        return _fail(str(exc).splitlines()[0])
    from tuneplan.catalog import list_gpus
    from tuneplan.catalog.prices import on_demand_price, plan_usd_per_gpu_hour, spot_price
    from tuneplan.core.compare import compare_gpus

    prices, billing = {}, {}
    n = scenario.training.num_gpus  # a node-only offer bills its whole node, as the GUI's comparison does
    for gpu in list_gpus():
        od, sp = on_demand_price(gpu.id, n), spot_price(gpu.id, n)
        prices[gpu.id] = (plan_usd_per_gpu_hour(od, n) if od else None, plan_usd_per_gpu_hour(sp, n) if sp else None)
        billing[gpu.id] = (od.billing if od else None, sp.billing if sp else None)
    rows = compare_gpus(scenario, list_gpus(), prices, budget_usd=getattr(args, "budget_usd", None), billing=billing,
                        calibrations=calibrations)
    if args.json:
        json.dump([r.model_dump() for r in rows], out, indent=2)
        out.write("\n")
        return 0
    print(f"{'GPU':<40} {'fits':<5} {'micro-batch':>11} {'peak GiB':>9} {'hours':>8} {'on-demand $':>12} {'spot $':>9}",
          file=out)
    for r in rows:
        od = f"{r.on_demand_usd:,.2f}" if r.on_demand_usd is not None else "-"
        sp = f"{r.spot_usd:,.2f}" if r.spot_usd is not None else "-"
        mark = " *cheapest" if r.cheapest else (" *fastest in budget" if r.fastest_in_budget else "")
        if r.blocked is not None:
            mark += f" (cannot run as planned: {render_note(r.blocked)})"
        elif not r.compatible:
            mark += " (needs FP16/SDPA: no BF16 tensor cores)"
        mark += {"tight": " (tight: the likely range does not fit)",
                 "unlikely": " (unlikely to fit: even the lower end of the likely range does not)",
                 "possible": " (may fit: the lower end of the likely range does)"}.get(r.band_risk, "")
        print(f"{r.gpu_name:<40} {'yes' if r.fits else 'no':<5} {r.micro_batch or '-':>11} {r.peak_gib:9.1f} "
              f"{r.hours:8.2f} {od:>12} {sp:>9}{mark}", file=out)
    print("on-demand/spot $: USD per completed run; spot includes expected interruptions", file=out)
    return 0


def run_scenarios(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """``tuneplan scenarios list|show|export|import`` (see :mod:`tuneplan.storage`)."""
    from tuneplan.storage.cli import scenarios_command

    return scenarios_command(args, out)
