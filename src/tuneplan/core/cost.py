"""Money for one run: total = GPU time + storage + data transfer + other.

* GPU time: ``price_per_gpu_hour x n_gpus x billed_hours``, where billed time is wall-clock time
  rounded up to the provider's granularity (per second, minute or hour; provider_terms.csv) and to
  its minimum billed duration.
* Storage: ``GB x USD per GB-month x hours / 730`` (730 = hours in an average month, 8760/12),
  including the hours the volume is kept after the run.
* Egress: ``GB x USD per GB``. Other: a fixed line.
* Interruptions (spot/community capacity): with ``lambda`` interruptions per hour and a checkpoint
  every ``c`` hours, each interruption loses on average ``c/2`` of work (uniform arrival) plus the
  restart time; the expected number over a run of ``T`` hours is ``lambda x T`` (Poisson). The
  pessimistic case loses a full interval ``c`` each time.
"""

from __future__ import annotations

import math

from tuneplan.core.result import CostEstimate, CostPoint, TimeEstimate
from tuneplan.core.scenario import Pricing

__all__ = ["HOURS_PER_MONTH", "billed_hours", "estimate_cost"]

HOURS_PER_MONTH = 730.0

_GRANULARITY_S = {"second": 1.0, "minute": 60.0, "hour": 3600.0}


def billed_hours(seconds: float, billing: str, minimum_minutes: float = 0.0) -> float:
    """Wall-clock ``seconds`` rounded up to the billing granularity, in hours.

    Example: 61 minutes bill 2 hours under per-hour billing and 61/60 hours under per-second.

    Raises:
        ValueError: for an unknown granularity or negative time.
    """
    if seconds < 0:
        raise ValueError("time cannot be negative")
    if billing not in _GRANULARITY_S:
        raise ValueError(f"unknown billing granularity {billing!r}")
    step = _GRANULARITY_S[billing]
    billed = math.ceil(round(seconds / step, 9)) * step
    billed = max(billed, minimum_minutes * 60)
    return billed / 3600.0


def estimate_cost(time: TimeEstimate, pricing: Pricing, n_gpus: int, curve_points: int = 60) -> CostEstimate:
    """Cost of one completed run and its cumulative curve over wall-clock hours.

    Args:
        time: the run's phases (seconds).
        pricing: prices and billing terms.
        n_gpus: GPUs rented for the run.
        curve_points: samples of the curve.

    Returns:
        A :class:`CostEstimate` in USD.
    """
    wall_s = time.seconds
    lam = pricing.interruptions_per_hour
    c_h = pricing.checkpoint_every_min / 60
    train_h = time.phases.get("training", 0.0) / 3600
    expected_interruptions = lam * train_h
    lost_expected_h = expected_interruptions * (c_h / 2 + pricing.restart_minutes / 60)
    lost_pessimistic_h = expected_interruptions * (c_h + pricing.restart_minutes / 60)
    run_s = wall_s + lost_expected_h * 3600
    hours = billed_hours(run_s, pricing.billing, pricing.minimum_billed_minutes)
    rate = pricing.price_per_gpu_hour * n_gpus
    gpu_usd = rate * hours
    storage_rate = pricing.storage_gb * pricing.storage_usd_per_gb_month / HOURS_PER_MONTH
    storage_usd = storage_rate * (run_s / 3600 + pricing.storage_hours_after_run)
    egress_usd = pricing.egress_gb * pricing.egress_usd_per_gb
    other_usd = pricing.other_usd
    interruption_usd = rate * lost_expected_h
    total = gpu_usd + storage_usd + egress_usd + other_usd
    pess_hours = billed_hours(wall_s + lost_pessimistic_h * 3600, pricing.billing, pricing.minimum_billed_minutes)
    pessimistic = rate * pess_hours + storage_rate * (wall_s / 3600 + lost_pessimistic_h + pricing.storage_hours_after_run) + egress_usd + other_usd

    # cumulative curve: phases in order, GPU + storage accrue with wall clock; egress at the end
    curve: list[CostPoint] = [CostPoint(hours=0.0, usd=other_usd, phase="setup")]
    order = ["setup", "training", "evaluation", "checkpoints"]
    elapsed = 0.0
    spent = other_usd
    per_hour = rate + storage_rate
    for name in order:
        dur_h = time.phases.get(name, 0.0) / 3600
        if name == "training":
            dur_h += lost_expected_h
        if dur_h <= 0:
            continue
        n = max(2, int(curve_points * dur_h / max(run_s / 3600, 1e-9)))
        for k in range(1, n + 1):
            x = elapsed + dur_h * k / n
            curve.append(CostPoint(hours=x, usd=spent + per_hour * dur_h * k / n, phase=name))
        elapsed += dur_h
        spent += per_hour * dur_h
    # the bill rounds up at the end
    curve.append(CostPoint(hours=elapsed, usd=total, phase="done"))
    breakdown = {"GPU time": gpu_usd, "Storage": storage_usd, "Egress": egress_usd, "Other": other_usd}
    notes = []
    if expected_interruptions > 0:
        notes.append(f"{expected_interruptions:.1f} expected interruptions lose {lost_expected_h:.2f} h of GPU time")
    return CostEstimate(
        gpu_usd=gpu_usd,
        billed_hours=hours,
        storage_usd=storage_usd,
        egress_usd=egress_usd,
        other_usd=other_usd,
        interruption_usd=interruption_usd,
        total_usd=total,
        pessimistic_usd=max(pessimistic, total),
        curve=curve,
        breakdown=breakdown,
        notes=notes,
    )
