"""``tuneplan cheapest`` (alias ``search``): the cheapest (or fastest) setups that run the plan. No Qt imports.

The plan comes from the same flags as ``tuneplan estimate``; :func:`tuneplan.core.search.search_setups` does the
work. Every GPU type is priced at its cheapest on-demand catalog offer (provider billing, storage and egress
terms, as choosing that GPU in the GUI prices it); the plan's own GPU keeps the plan's price.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from tuneplan.core.scenario import METHOD_WORDS, Pricing, Scenario
from tuneplan.core.search import Setup, search_setups
from tuneplan.core.terms import render_note
from tuneplan.core.text import terminal_safe

__all__ = ["catalog_pricing", "describe_setup", "run_search"]

#: How the CLI names each sharding.
SHARDING_WORDS = {"ddp": "DDP", "zero1": "ZeRO-1", "zero2": "ZeRO-2", "zero3": "ZeRO-3", "fsdp": "FSDP",
                  "none": "one GPU"}


def catalog_pricing(scenario: Scenario) -> dict[str, Pricing]:
    """The plan's pricing on every catalog GPU with a price: its cheapest on-demand offer (else the cheapest of any
    kind) with that provider's billing, storage and egress terms, rented (never billed as electricity); the plan's
    other pricing terms kept. A plan on your own card keeps its electricity billing for that card only."""
    from tuneplan.catalog import list_gpus
    from tuneplan.catalog.prices import default_price, pricing_from_entry

    offer_keys = ("provider", "offer_kind", "price_per_gpu_hour", "price_date", "billing", "minimum_billed_minutes",
                  "storage_kind", "storage_usd_per_gb_month", "egress_usd_per_gb")
    out: dict[str, Pricing] = {}
    for gpu in list_gpus():
        if scenario.pricing.own_gpu and gpu.id == scenario.gpu.id:
            out[gpu.id] = scenario.pricing  # the card you own stays billed as electricity
            continue
        entry = default_price(gpu.id)
        if entry is None:
            continue
        fresh = pricing_from_entry(entry)
        # every other card is one you would rent: its offer, never your electricity
        out[gpu.id] = scenario.pricing.model_copy(update={**{k: getattr(fresh, k) for k in offer_keys},
                                                          "own_gpu": False, "gpu_power_w": None})
    return out


def describe_setup(setup: Setup) -> str:
    """One line naming a setup in English: ``16× H100 SXM5 80GB with FSDP · LoRA · micro-batch 2`` (the GPUs
    always, the rest only where it differs from the plan)."""
    ch = setup.changes
    parts = [f"{setup.num_gpus}× {setup.gpu_name}" + (f" with {SHARDING_WORDS.get(setup.sharding, setup.sharding)}"
                                                       if setup.num_gpus > 1 else "")]
    if "training.method" in ch:
        parts.append(METHOD_WORDS.get(setup.method, setup.method))
    if "training.micro_batch" in ch or "training.grad_accumulation" in ch:
        parts.append(f"micro-batch {setup.micro_batch} × accumulation {setup.grad_accumulation}")
    if "training.grad_checkpointing" in ch:
        parts.append("gradient checkpointing" if setup.grad_checkpointing else "no gradient checkpointing")
    if ch.get("training.fused_cross_entropy"):
        parts.append("fused cross-entropy")
    if "training.optimizer" in ch:
        parts.append("8-bit AdamW" if setup.optimizer == "adamw-8bit" else setup.optimizer)
    if "training.grad_sync" in ch:
        parts.append("gradients synced every micro-batch" if setup.grad_sync == "micro-batch"
                     else "gradients synced at the step")
    return " · ".join(parts)


def _money(x: float | None) -> str:
    return "-" if x is None else f"{x:,.2f}"


def run_search(args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """``tuneplan cheapest``: the best setups that fit with their whole likely range (exit 0), or why none does
    (exit 1)."""
    from tuneplan.catalog import list_gpus
    from tuneplan.cli import _fail, scenario_or_failure

    scenario = scenario_or_failure(args)
    if isinstance(scenario, int):
        return scenario
    try:
        outcome = search_setups(scenario, list_gpus(), catalog_pricing(scenario), rank=args.rank,
                                max_gpus=args.max_gpus, budget_usd=args.budget_usd, max_hours=args.max_hours,
                                keep_method=args.keep_method, limit=args.limit)
    except ValueError as exc:
        return _fail(str(exc).splitlines()[0])
    if args.json:
        data: dict[str, Any] = outcome.model_dump(mode="json")
        for row, setup in zip(data["setups"], outcome.setups, strict=True):
            row["description"] = describe_setup(setup)
            row["notes_text"] = [render_note(n) for n in setup.notes]
        data["notes_text"] = [render_note(n) for n in outcome.notes]
        json.dump(data, out, indent=2, ensure_ascii=False)
        out.write("\n")
        return 0 if outcome.setups else 1
    what = "cheapest" if args.rank == "cost" else "fastest"
    print(terminal_safe(f"The {what} setups for {scenario.name} that fit with their whole likely range:"), file=out)
    for note in outcome.notes:
        print(terminal_safe(f"  {render_note(note)}"), file=out)
    if outcome.setups:
        print(f"{'#':>2}  {'$ per run':>10} {'hours':>7} {'GiB high/card':>14}  setup", file=out)
    for k, setup in enumerate(outcome.setups, 1):
        mark = "  (the plan as it is)" if setup.is_plan else ""
        print(terminal_safe(f"{k:>2}  {_money(setup.usd):>10} {setup.hours:7.2f} "
                            f"{setup.high_gib:6.1f}/{setup.capacity_gib:<7.1f}  {describe_setup(setup)}{mark}"),
              file=out)
        for note in setup.notes:
            print(terminal_safe(f"{'':>38}{render_note(note)}"), file=out)
    print("$ per run: expected USD per completed run at the cheapest on-demand catalog price (your plan's GPU: its "
          "own price); GiB: the upper end of the likely range per GPU, and the card", file=out)
    return 0 if outcome.setups else 1
