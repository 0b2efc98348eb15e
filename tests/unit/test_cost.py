"""Cost: worked examples by hand (billing rounding, storage, interruptions, repeats, break-even, power)."""

from __future__ import annotations

import math

import pytest

from tuneplan.core.cost import (
    HOURS_PER_MONTH,
    billed_hours,
    electricity_cost,
    estimate_cost,
    interruption_loss,
    monthly_break_even,
    poisson_quantile,
    storage_cost,
)
from tuneplan.core.result import TimeEstimate
from tuneplan.core.scenario import Pricing
from tuneplan.core.terms import Note, render_note


def _time(training_h: float = 10.0, setup_s: float = 0.0, eval_s: float = 0.0, ckpt_s: float = 0.0) -> TimeEstimate:
    phases = {"setup": setup_s, "training": training_h * 3600, "evaluation": eval_s, "checkpoints": ckpt_s}
    return TimeEstimate(tokens_total=1e6, flops_per_token=1e9, mfu=0.3, tokens_per_second=100.0,
                        phases=phases, seconds=sum(phases.values()), steps=10)


def _pricing(**kw) -> Pricing:
    base = dict(price_per_gpu_hour=1.0, billing="second", storage_gb=0, egress_gb=0, other_usd=0,
                interruptions_per_hour=0.0)
    return Pricing(**{**base, **kw})


def test_gpu_hours_plus_storage():
    # $1/h for 10 billed hours = $10, + storage 2190 GB x $0.10/GB-month x 10 h / 730 h = $3 -> $13
    c = estimate_cost(_time(10), _pricing(storage_kind="volume", storage_gb=2190, storage_usd_per_gb_month=0.10), 1)
    assert c.billed_hours == pytest.approx(10.0)
    assert c.gpu_usd == pytest.approx(10.0)
    assert c.storage_usd == pytest.approx(3.0)
    assert c.total_usd == pytest.approx(13.0)
    assert sum(c.breakdown.values()) == pytest.approx(c.total_usd)


def test_billing_granularity_rounds_up():
    # 61 minutes: per hour bills 2 h; per second bills 61/60 h
    assert billed_hours(61 * 60, "hour") == 2.0
    assert billed_hours(61 * 60, "second") == pytest.approx(61 / 60)
    # 61.5 minutes per minute bills 62 minutes
    assert billed_hours(61.5 * 60, "minute") == pytest.approx(62 / 60)
    # exact multiples are not rounded up: 60 min per hour = 1 h
    assert billed_hours(3600, "hour") == 1.0
    # minimum billed duration: 30 s with a 1-minute minimum bills 1 minute
    assert billed_hours(30, "second", minimum_minutes=1) == pytest.approx(1 / 60)
    with pytest.raises(ValueError):
        billed_hours(-1, "second")
    with pytest.raises(ValueError):
        billed_hours(1, "fortnight")


def test_per_hour_billing_in_estimate_cost():
    # 10 h + 1 min at $2/h, 2 GPUs, per-hour billing: 11 billed h x $2 x 2 = $44
    c = estimate_cost(_time(10, setup_s=60), _pricing(price_per_gpu_hour=2.0, billing="hour"), 2)
    assert c.billed_hours == 11.0
    assert c.gpu_usd == pytest.approx(44.0)


def test_storage_month_and_persistence_by_kind():
    # 100 GB x $0.10/GB-month x 730 h (one month) = $10 for every kind while running
    for kind in ("container", "volume", "network"):
        usd, _ = storage_cost(_pricing(storage_kind=kind, storage_gb=100, storage_usd_per_gb_month=0.10), HOURS_PER_MONTH)
        assert usd == pytest.approx(10.0)
    # kept 730 h after the run:
    # container: wiped on stop -> $0 after the run
    usd, note = storage_cost(_pricing(storage_kind="container", storage_gb=100, storage_hours_after_run=730), 0)
    assert usd == 0 and note == "cost.storage_container" and "wiped" in render_note(Note(code=note))
    # pod volume while stopped: RunPod 0.20 $/GB-month -> 100 x 0.20 = $20
    usd, note = storage_cost(_pricing(storage_kind="volume", storage_gb=100, storage_usd_per_gb_month=0.10,
                                      storage_stopped_usd_per_gb_month=0.20, storage_hours_after_run=730), 0)
    assert usd == pytest.approx(20.0) and note == "cost.storage_volume" and "stopped" in render_note(Note(code=note))
    # stopped rate defaults to the running rate: 100 x 0.10 = $10
    usd, _ = storage_cost(_pricing(storage_kind="volume", storage_gb=100, storage_usd_per_gb_month=0.10,
                                   storage_hours_after_run=730), 0)
    assert usd == pytest.approx(10.0)
    # network volume persists independently: 100 GB x 0.07 x (730 + 730) h / 730 = $14
    usd, note = storage_cost(_pricing(storage_kind="network", storage_gb=100, storage_usd_per_gb_month=0.07,
                                      storage_hours_after_run=730), 730)
    assert usd == pytest.approx(14.0) and note == "cost.storage_network"
    assert "independently" in render_note(Note(code=note))


def test_egress_and_other():
    # 200 GB x $0.09/GB = $18, + $5 other, + 1 h x $1 = $24
    c = estimate_cost(_time(1), _pricing(egress_gb=200, egress_usd_per_gb=0.09, other_usd=5), 1)
    assert c.egress_usd == pytest.approx(18.0)
    assert c.total_usd == pytest.approx(24.0)


def test_interruptions_expected_and_pessimistic():
    # lambda = 0.5/h over 10 h: 5 expected interruptions; checkpoint every 30 min loses 15 min on
    # average, + 5 min restart: 5 x (15 + 5) = 100 min expected lost.
    loss = interruption_loss(0.5, 10.0, 30.0, 5.0)
    assert loss.expected_count == pytest.approx(5.0)
    assert loss.expected_lost_hours * 60 == pytest.approx(100.0)
    # pessimistic: 90th percentile of Poisson(5) is 8 (P(K<=7) = 0.867, P(K<=8) = 0.932);
    # each loses the full 30 min + 5 min: 8 x 35 = 280 min
    assert loss.pessimistic_count == 8
    assert loss.pessimistic_lost_hours * 60 == pytest.approx(280.0)
    # upper-end rate 1/h: Poisson(10) 90th percentile = 14 -> 14 x 35 min
    high = interruption_loss(0.5, 10.0, 30.0, 5.0, rate_high_per_hour=1.0)
    assert high.pessimistic_count == 14

    c = estimate_cost(_time(10), _pricing(interruptions_per_hour=0.5, checkpoint_every_min=30, restart_minutes=5), 1)
    # $1/h, per second: 10 h + 100 min = 11.667 h -> $11.67; pessimistic 10 h + 280 min -> $14.67
    assert c.gpu_usd == pytest.approx(10 + 100 / 60)
    assert c.interruption_usd == pytest.approx(100 / 60)
    assert c.pessimistic_usd == pytest.approx(10 + 280 / 60)
    assert any("expected interruptions" in n for n in c.notes)


def test_checkpoint_interval_capped_at_run_length():
    # a 1 h run checkpointing every 5 h loses at most what it has done: c = 1 h, 0.2 x 1 x 0.5 h
    loss = interruption_loss(0.2, 1.0, 300.0, 0.0)
    assert loss.expected_lost_hours == pytest.approx(0.1)


def test_poisson_quantile():
    assert poisson_quantile(0) == 0
    assert poisson_quantile(5, 0.9) == 8
    assert poisson_quantile(0.05, 0.9) == 0  # P(K=0) = e^-0.05 = 0.951
    assert poisson_quantile(0.2, 0.9) == 1  # P(K=0) = 0.819
    big = poisson_quantile(1000, 0.9)  # normal approximation: 1000 + 1.2816 * 31.62 = 1040.5 -> 1041
    assert big == 1041


def test_failed_runs_repeat():
    # one run $10; failure probability 0.2 -> 1 / 0.8 = 1.25 attempts -> $12.50 per completed run
    c = estimate_cost(_time(10), _pricing(failure_probability=0.2), 1)
    assert c.total_usd == pytest.approx(12.5)
    assert c.breakdown["Failed-run repeats"] == pytest.approx(2.5)
    assert sum(c.breakdown.values()) == pytest.approx(12.5)


def test_monthly_break_even():
    # $1,000/month vs $50 per run: break-even at 1000 / 50 = 20 runs a month
    be = monthly_break_even(1000.0, 50.0, runs_per_month=30, run_hours=10)
    assert be.break_even_runs == pytest.approx(20.0)
    assert be.hourly_usd == pytest.approx(1500.0)  # 30 x $50
    assert be.cheaper == "monthly"
    assert be.monthly_per_run_usd == pytest.approx(1000 / 30)
    assert be.fits_in_month  # 30 x 10 h = 300 h <= 730 h
    assert monthly_break_even(1000.0, 50.0, runs_per_month=10).cheaper == "hourly"  # $500 < $1,000
    assert monthly_break_even(1000.0, 50.0, runs_per_month=20).cheaper == "equal"
    assert not monthly_break_even(1000.0, 50.0, runs_per_month=100, run_hours=10).fits_in_month  # 1000 h
    assert math.isinf(monthly_break_even(1000.0, 0.0, 1).break_even_runs)
    with pytest.raises(ValueError):
        monthly_break_even(1000.0, 50.0, runs_per_month=0)


def test_electricity():
    # 450 W x 10 h = 4.5 kWh x $0.30/kWh = $1.35
    assert electricity_cost(450, 10, 0.30) == pytest.approx(1.35)
    assert electricity_cost(450, 10, 0.30, n_gpus=2) == pytest.approx(2.70)
    c = estimate_cost(_time(10), _pricing(electricity_usd_per_kwh=0.30), 1, gpu_power_w=450)
    assert any("$1.35" in n for n in c.notes)


def test_monthly_note_in_estimate_cost():
    c = estimate_cost(_time(10), _pricing(monthly_price_usd=100.0, runs_per_month=4), 1)
    # $10 per run; break-even 100 / 10 = 10 runs; at 4 runs hourly ($40) is cheaper
    assert any("break-even at 10.0 runs/month, hourly is cheaper" in n for n in c.notes)


def test_curve_is_cumulative_and_ends_done_at_total():
    t = _time(10, setup_s=600, eval_s=1200, ckpt_s=60)
    c = estimate_cost(t, _pricing(billing="hour", storage_gb=100, interruptions_per_hour=0.1), 1, curve_points=60)
    hours = [p.hours for p in c.curve]
    usd = [p.usd for p in c.curve]
    assert hours == sorted(hours) and usd == sorted(usd)
    assert c.curve[0].hours == 0 and c.curve[0].phase == "setup"
    assert c.curve[-1].phase == "done" and c.curve[-1].usd == pytest.approx(c.total_usd)
    assert {p.phase for p in c.curve} == {"setup", "training", "evaluation", "checkpoints", "done"}
    # the last point is at the run's wall clock including expected lost time
    lost = interruption_loss(0.1, t.seconds / 3600, 30, 5).expected_lost_hours
    assert c.curve[-1].hours == pytest.approx(t.seconds / 3600 + lost)
