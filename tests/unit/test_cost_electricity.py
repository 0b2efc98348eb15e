"""Own GPUs billed as electricity (issue #19): worked examples by hand, and the rented run beside them."""

from __future__ import annotations

import pytest

from tuneplan import catalog
from tuneplan.core.cost import NVML_POWER_SOURCE, SPEC_POWER_SOURCE, electricity_estimate, estimate_cost
from tuneplan.core.estimate import estimate
from tuneplan.core.result import TimeEstimate
from tuneplan.core.scenario import Pricing
from tuneplan.core.terms import render_formula, render_note


def _time(hours: float = 10.0, setup_s: float = 0.0) -> TimeEstimate:
    phases = {"setup": setup_s, "training": hours * 3600 - setup_s, "evaluation": 0.0, "checkpoints": 0.0}
    return TimeEstimate(tokens_total=1e6, flops_per_token=1e9, mfu=0.3, tokens_per_second=100.0,
                        phases=phases, seconds=sum(phases.values()), steps=10)


def _own(**kw) -> Pricing:
    base = dict(own_gpu=True, electricity_usd_per_kwh=0.30, price_per_gpu_hour=0.22, billing="second",
                storage_gb=0, egress_gb=0, other_usd=0, interruptions_per_hour=0.0)
    return Pricing(**{**base, **kw})


def test_board_power_times_hours_times_tariff():
    # 350 W x 1 GPU x 10 h = 3.5 kWh; 3.5 kWh x 0.30 USD/kWh = 1.05 USD
    c = estimate_cost(_time(10), _own(), 1, gpu_power_w=350)
    assert c.billing == "electricity"
    assert c.total_usd == pytest.approx(1.05)
    assert c.kwh == pytest.approx(3.5)
    assert c.billed_hours == pytest.approx(10.0)
    assert c.pessimistic_usd == pytest.approx(1.05)
    assert c.breakdown["Electricity (GPUs)"] == pytest.approx(1.05)
    assert c.curve[-1].usd == pytest.approx(1.05)
    # halfway through the run half the energy is spent: 0.525 USD at 5 h
    mid = min(c.curve, key=lambda p: abs(p.hours - 5.0))
    assert mid.usd == pytest.approx(0.105 * mid.hours)


def test_rest_of_machine_and_gpu_count_and_repeats():
    # GPUs: 2 x 350 W x 10 h = 7 kWh -> 2.10 USD; host: 150 W x 10 h = 1.5 kWh -> 0.45 USD; one run 2.55 USD;
    # failure probability 0.5: 2 attempts per completed run -> 5.10 USD
    c = estimate_cost(_time(10), _own(host_power_w=150, failure_probability=0.5), 2, gpu_power_w=350)
    assert c.breakdown["Electricity (GPUs)"] == pytest.approx(2.10)
    assert c.breakdown["Electricity (rest of the machine)"] == pytest.approx(0.45)
    assert c.breakdown["Failed-run repeats"] == pytest.approx(2.55)
    assert c.total_usd == pytest.approx(5.10)
    assert c.kwh == pytest.approx(8.5)
    host = next(t for t in c.terms if t.key == "electricity_host")
    assert (host.part("power"), host.part("kwh"), host.value) == pytest.approx((150, 1.5, 0.45))
    assert sum(c.breakdown.values()) == pytest.approx(c.total_usd)


def test_no_rental_storage_egress_or_interruptions():
    # the same 1.05 USD with a 50 GB volume, 100 GB out at 0.09 USD/GB and 0.5 interruptions per hour
    p = _own(storage_gb=50, storage_usd_per_gb_month=0.10, egress_gb=100, egress_usd_per_gb=0.09,
             interruptions_per_hour=0.5, billing="hour")
    c = estimate_cost(_time(9.5), p, 1, gpu_power_w=350)
    # 9.5 h is not rounded up to 10 started hours: 350 x 9.5 / 1000 x 0.30 = 0.9975 USD
    assert c.total_usd == pytest.approx(0.9975)
    assert (c.storage_usd, c.egress_usd, c.interruption_usd) == (0.0, 0.0, 0.0)


def test_power_read_from_the_card_wins_over_the_spec():
    # NVML enforced limit 300 W: 300 x 10 / 1000 x 0.30 = 0.90 USD (the spec's 350 W would be 1.05)
    c = estimate_cost(_time(10), _own(gpu_power_w=300), 1, gpu_power_w=350)
    assert c.total_usd == pytest.approx(0.90)
    term = c.terms[0]
    assert term.detail == "nvml"
    assert term.parts[0].source == NVML_POWER_SOURCE
    assert render_formula(term) == "300 W × 1 GPUs × 10 h = 3 kWh × 0.3 USD/kWh"
    assert "cost.power_from_spec" not in [m.code for m in c.messages]
    spec = estimate_cost(_time(10), _own(), 1, gpu_power_w=350, gpu_name="GeForce RTX 3090")
    assert spec.terms[0].parts[0].source == SPEC_POWER_SOURCE
    assert any(m.code == "cost.power_from_spec" and m.params["power"] == 350 for m in spec.messages)


def test_rented_run_beside_it():
    # rented at 0.22 USD/GPU-hour per second for 10 h, no storage: 2.20 USD against 1.05 USD of electricity
    c = estimate_cost(_time(10), _own(provider="Vast.ai", offer_kind="community"), 1, gpu_power_w=350)
    assert c.rental_usd == pytest.approx(2.20)
    note = next(m for m in c.messages if m.code == "cost.rent_comparison")
    assert note.params["rental_usd"] == pytest.approx(2.20)
    assert note.params["electricity_usd"] == pytest.approx(1.05)
    assert render_note(note) == ("rented at Vast.ai (community, 0.22 USD/GPU-hour) the same run would cost 2.2 USD; "
                                 "your electricity 1.05 USD")
    rented = estimate_cost(_time(10), _own(own_gpu=False), 1, gpu_power_w=350)
    assert rented.billing == "rent" and rented.rental_usd is None
    assert rented.total_usd == pytest.approx(2.20)


def test_no_tariff_costs_nothing_and_says_so():
    c = electricity_estimate(_time(10), _own(electricity_usd_per_kwh=None), 1, 350)
    assert c.total_usd == 0.0
    assert c.kwh == pytest.approx(3.5)
    assert c.messages[0].code == "cost.no_tariff"


def test_plan_on_own_gpu_through_estimate():
    s = catalog.default_scenario()
    s = s.model_copy(update={"gpu": catalog.get_gpu("rtx3090"),
                             "pricing": s.pricing.model_copy(update={"own_gpu": True, "electricity_usd_per_kwh": 0.30})})
    e = estimate(s)
    hours = e.time.seconds / 3600
    # the catalog RTX 3090 draws 350 W: 0.35 kW x hours x 0.30 USD/kWh
    assert e.cost.total_usd == pytest.approx(0.35 * hours * 0.30)
    assert e.cost.low_usd == pytest.approx(0.35 * e.time.low_seconds / 3600 * 0.30)
    assert e.cost.high_usd == pytest.approx(0.35 * e.time.high_seconds / 3600 * 0.30)
    assert e.cost.rental_usd == pytest.approx(estimate(s.model_copy(update={
        "pricing": s.pricing.model_copy(update={"own_gpu": False})})).cost.total_usd)
