"""Money for one completed run: total = GPU time + storage + data transfer + other.

Sources: provider terms in ``shared/reference/provider_terms.csv`` (billing granularity, storage
prices and their persistence, egress), reference ``throughput.md`` §1 (the cost formula).

* **GPU time**: ``price_per_gpu_hour x n_gpus x billed_hours``. Billed time is the wall-clock time
  rounded *up* to the provider's granularity (per second: RunPod, Vast.ai; per minute: Lambda,
  Hyperstack; per hour: some marketplaces) and raised to its minimum billed duration (AWS/GCP:
  60 s). 61 minutes bill 2 h per hour, 61/60 h per second; 61.5 minutes bill 62 min per minute.
* **Storage**: ``GB x USD per GB-month x hours / 730`` (730 h = 8760 h / 12, an average month).
  What is billed, and for how long, depends on the kind of disk (RunPod storage docs):

  - ``container`` disk: billed only while the pod runs and **wiped when it stops**; nothing is
    billed after the run, and nothing survives it (copy results out first, which is egress).
  - ``volume`` (pod volume, ``/workspace``): billed at the running rate while the pod runs and
    at the *stopped* rate while the pod is stopped (RunPod: 0.10 vs 0.20 USD/GB-month); it
    **survives stop/start but is deleted with the pod**. ``storage_hours_after_run`` is the time
    the stopped pod is kept.
  - ``network`` volume: exists **independently of any pod** (survives pod deletion, can be
    attached to the next pod) and is billed at one rate for as long as it exists:
    the run plus ``storage_hours_after_run``.
* **Egress**: ``GB x USD per GB`` (RunPod and Lambda: 0; AWS 0.09, GCP 0.12 USD/GB).
  **Other**: a fixed line (USD).
* **Interruptions** (spot and community capacity). With ``lambda`` interruptions per hour over a
  run of ``T`` hours the number of interruptions is Poisson with mean ``lambda x T``; with a
  checkpoint every ``c`` hours an interruption arriving uniformly in an interval loses on average
  ``c/2`` of work, plus the restart time ``r`` (new host, image, reload). Expected lost time:
  ``lambda T (c/2 + r)``. The pessimistic case loses the whole interval ``c`` each time and counts
  the 90th percentile of the Poisson count at the upper-end rate
  (``interruptions_per_hour_high``, default ``lambda``). ``c`` is capped at ``T`` (a run shorter
  than the checkpoint interval loses at most what it has done).
* **Failed runs**: when a run fails with probability ``p`` and is repeated in full until one
  completes, the number of attempts is geometric with mean ``1/(1-p)``; the cost per completed
  run is one attempt's cost ``/ (1-p)`` (a failed attempt is charged a whole run, as when
  divergence or a bad evaluation is found at the end).

Other ways to pay, as separate functions: :func:`monthly_break_even` (a dedicated server at a
monthly price vs paying by the hour) and :func:`electricity_cost` (an owned card: board power x
hours x USD per kWh). A plan on the user's own GPUs (``Pricing.own_gpu``) is billed by
:func:`electricity_estimate` alone: board power x GPUs (+ the rest of the machine) x hours x USD per
kWh, with the rented run beside it for comparison.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, ConfigDict

from tuneplan.core.result import CostEstimate, CostPoint, TimeEstimate
from tuneplan.core.scenario import Pricing
from tuneplan.core.terms import FORMULAS, N_, NOTES, Note, Quantity, Term, render_note

__all__ = [
    "HOURS_PER_MONTH",
    "PESSIMISTIC_QUANTILE",
    "BreakEven",
    "InterruptionLoss",
    "NVML_POWER_SOURCE",
    "SPEC_POWER_SOURCE",
    "billed_hours",
    "electricity_cost",
    "electricity_estimate",
    "estimate_cost",
    "interruption_loss",
    "monthly_break_even",
    "poisson_quantile",
    "storage_cost",
]

#: Hours in an average month (8760 / 12), the divisor of USD per GB-month prices.
HOURS_PER_MONTH = 730.0

#: Quantile of the Poisson interruption count used for the pessimistic cost.
PESSIMISTIC_QUANTILE = 0.9

#: Where a card's own board power comes from when the probe read it (``Pricing.gpu_power_w``).
NVML_POWER_SOURCE = ("NVML nvmlDeviceGetEnforcedPowerLimit: the power limit the driver enforces after all limiters, "
                     "in mW (NVML API reference, Device Queries, docs.nvidia.com/deploy/nvml-api)")
#: Where it comes from otherwise: the catalog's board power (``GpuSpec.tdp_w``, vendor datasheets in gpus.csv).
SPEC_POWER_SOURCE = "catalog board power (TDP / TGP, vendor datasheet; catalog/data/gpus.csv)"

FORMULAS.update({
    "electricity_gpus": N_("{power} W × {gpus} GPUs × {hours} h = {kwh} kWh × {usd_per_kwh} USD/kWh"),
    "electricity_host": N_("{power} W × {hours} h = {kwh} kWh × {usd_per_kwh} USD/kWh"),
})

NOTES.update({
    "cost.electricity": N_("your own GPUs: billed as electricity, {kwh} kWh at {usd_per_kwh} USD/kWh; no rental, "
                           "storage or egress charges"),
    "cost.no_tariff": N_("your own GPUs: set your electricity price (USD/kWh) to see what the run costs"),
    "cost.power_from_spec": N_("board power {power} W is the catalog's figure for the {gpu}: the card's own power limit "
                               "was not read"),
    "cost.rent_comparison": N_("rented at {provider} ({offer_kind}, {price} USD/GPU-hour) the same run would cost "
                               "{rental_usd} USD; your electricity {electricity_usd} USD"),
    "cost.storage_container": N_("container disk: billed only while running and wiped on stop; copy results out "
                                 "before stopping"),
    "cost.storage_volume": N_("pod volume: kept while the pod is stopped (stopped-pod rate), deleted with the pod"),
    "cost.storage_network": N_("network volume: persists independently of pods and is billed until deleted"),
    "cost.interruptions": N_("{expected:.2f} expected interruptions lose {lost_hours:.2f} h (${usd:,.2f}); "
                             "pessimistic: {pessimistic} lose {pessimistic_hours:.2f} h"),
    "cost.failure_repeats": N_("failure probability {probability:.0%}: {attempts:.2f} attempts per completed run "
                               "(+${usd:,.2f})"),
    "cost.monthly_cheaper": N_("monthly server ${monthly:,.0f}/month vs ${hourly:,.2f}/month hourly for {runs:g} "
                               "runs: break-even at {break_even:.1f} runs/month, the monthly server is cheaper"),
    "cost.hourly_cheaper": N_("monthly server ${monthly:,.0f}/month vs ${hourly:,.2f}/month hourly for {runs:g} "
                              "runs: break-even at {break_even:.1f} runs/month, hourly is cheaper"),
    "cost.monthly_equal": N_("monthly server ${monthly:,.0f}/month vs ${hourly:,.2f}/month hourly for {runs:g} "
                             "runs: break-even at {break_even:.1f} runs/month, both cost the same"),
    "cost.runs_exceed_month": N_("{runs:g} runs a month do not fit in one month of wall-clock time"),
    "cost.rented_electricity": N_("electricity on your own card(s) instead: ${usd:,.2f} per run ({power:.0f} W × "
                                  "{gpus} × {hours:.2f} h at ${usd_per_kwh}/kWh)"),
})

#: The break-even note's code by which offer is cheaper (:class:`MonthlyBreakEven` ``cheaper``).
_CHEAPER = {"monthly": "cost.monthly_cheaper", "hourly": "cost.hourly_cheaper", "equal": "cost.monthly_equal"}

_GRANULARITY_S = {"second": 1.0, "minute": 60.0, "hour": 3600.0}
_PHASES = ("setup", "reference_logps", "training", "evaluation", "checkpoints")  # (reference_logps: core/workload.py)


def billed_hours(seconds: float, billing: str, minimum_minutes: float = 0.0) -> float:
    """Wall-clock ``seconds`` rounded up to the billing granularity, in hours.

    Args:
        seconds: wall-clock time the machine is held (s).
        billing: ``second``, ``minute`` or ``hour``.
        minimum_minutes: the provider's minimum billed duration (min), e.g. 1 for AWS/GCP.

    Examples: 61 min bill 2 h per hour and 61/60 h per second; 61.5 min bill 62/60 h per minute.

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


def storage_cost(pricing: Pricing, run_hours: float) -> tuple[float, str]:
    """Storage USD for a run of ``run_hours`` wall-clock hours plus the time kept afterwards.

    ``container``: running rate x run hours (wiped on stop: nothing after the run).
    ``volume``: running rate x run hours + stopped rate x ``storage_hours_after_run`` (deleted with
    the pod). ``network``: one rate x (run hours + ``storage_hours_after_run``), independent of
    pods. Rates are ``storage_gb x USD/GB-month / 730`` per hour (provider_terms.csv, RunPod).

    Returns:
        ``(usd, code)``: the code of the note that says what persists (``cost.storage_*`` in
        ``tuneplan.core.terms.NOTES``), empty when there is nothing to say.
    """
    per_hour = pricing.storage_gb * pricing.storage_usd_per_gb_month / HOURS_PER_MONTH
    after = pricing.storage_hours_after_run
    kind = pricing.storage_kind
    if kind == "container":
        return per_hour * run_hours, "cost.storage_container"
    if kind == "volume":
        stopped = pricing.storage_stopped_usd_per_gb_month
        stopped_rate = (stopped if stopped is not None else pricing.storage_usd_per_gb_month) * pricing.storage_gb
        usd = per_hour * run_hours + stopped_rate / HOURS_PER_MONTH * after
        return usd, "cost.storage_volume" if after else ""
    return per_hour * (run_hours + after), "cost.storage_network" if after else ""


def poisson_quantile(mean: float, q: float = PESSIMISTIC_QUANTILE) -> int:
    """Smallest ``k`` with ``P(K <= k) >= q`` for ``K ~ Poisson(mean)`` (0 for a mean of 0).

    Exact summation of the probability mass up to a mean of 500; beyond, the normal approximation
    ``mean + z_q sqrt(mean)`` rounded up (error well under 1 %).
    """
    if mean <= 0:
        return 0
    if mean > 500:
        z = {0.5: 0.0, 0.9: 1.2815515655446004, 0.95: 1.6448536269514722, 0.99: 2.3263478740408408}.get(q)
        if z is None:
            raise ValueError("quantiles above a mean of 500 support q in {0.5, 0.9, 0.95, 0.99}")
        return math.ceil(mean + z * math.sqrt(mean))
    p = math.exp(-mean)
    cdf = p
    k = 0
    while cdf < q:
        k += 1
        p *= mean / k
        cdf += p
    return k


class InterruptionLoss(BaseModel):
    """Work lost to interruptions over one run (hours are wall-clock hours).

    Attributes:
        expected_count: ``lambda x T``.
        expected_lost_hours: ``lambda T (c/2 + r)``.
        pessimistic_count: 90th percentile of Poisson(``lambda_high x T``).
        pessimistic_lost_hours: ``pessimistic_count x (c + r)``.
    """

    model_config = ConfigDict(frozen=True)

    expected_count: float
    expected_lost_hours: float
    pessimistic_count: int
    pessimistic_lost_hours: float


def interruption_loss(
    rate_per_hour: float,
    run_hours: float,
    checkpoint_every_min: float,
    restart_minutes: float,
    rate_high_per_hour: float | None = None,
) -> InterruptionLoss:
    """Expected and pessimistic time lost to interruptions (module docstring for the model).

    Args:
        rate_per_hour: interruptions per hour ``lambda`` (1/h).
        run_hours: uninterrupted wall-clock hours ``T`` (h).
        checkpoint_every_min: checkpoint interval ``c`` (min); capped at ``T``.
        restart_minutes: time to get going again after each interruption ``r`` (min).
        rate_high_per_hour: upper-end rate for the pessimistic case (default ``rate_per_hour``).

    Example: ``lambda`` = 0.5/h over 10 h with ``c`` = 30 min and ``r`` = 5 min: 5 expected
    interruptions x (15 + 5) min = 100 min lost.
    """
    c = min(checkpoint_every_min / 60.0, run_hours)
    r = restart_minutes / 60.0
    expected = rate_per_hour * run_hours
    high = rate_per_hour if rate_high_per_hour is None else max(rate_high_per_hour, rate_per_hour)
    pess = poisson_quantile(high * run_hours) if high > 0 else 0
    return InterruptionLoss(
        expected_count=expected,
        expected_lost_hours=expected * (c / 2 + r),
        pessimistic_count=pess,
        pessimistic_lost_hours=pess * (c + r),
    )


def electricity_cost(power_w: float, hours: float, usd_per_kwh: float, n_gpus: int = 1) -> float:
    """USD of electricity for owned cards: ``W x h / 1000 x USD/kWh x n_gpus``.

    ``power_w`` is the board power (``GpuSpec.tdp_w`` or the card's NVML power limit, W); training keeps a
    card near it. Host CPU, fans and PSU losses are not included (``Pricing.host_power_w`` adds them in
    :func:`electricity_estimate`). Example: 450 W x 10 h x 0.30 USD/kWh = 1.35 USD.
    """
    if power_w < 0 or hours < 0 or usd_per_kwh < 0 or n_gpus < 0:
        raise ValueError("power, hours, price and GPU count must be non-negative")
    return power_w * hours / 1000.0 * usd_per_kwh * n_gpus


class BreakEven(BaseModel):
    """A dedicated server at a monthly price vs renting by the hour for ``runs_per_month`` runs.

    Attributes:
        monthly_usd: the server's price per month (USD).
        hourly_usd: ``cost_per_run x runs_per_month`` renting by the hour (USD per month).
        break_even_runs: runs per month at which both cost the same, ``monthly / cost_per_run``
            (infinite when a run costs nothing by the hour).
        monthly_per_run_usd: the monthly price spread over ``runs_per_month`` runs.
        cheaper: ``monthly``, ``hourly`` or ``equal`` at ``runs_per_month``.
        fits_in_month: whether ``runs_per_month x run_hours`` fit in a 730-hour month on one server.
    """

    model_config = ConfigDict(frozen=True)

    monthly_usd: float
    hourly_usd: float
    break_even_runs: float
    monthly_per_run_usd: float
    cheaper: str
    fits_in_month: bool


def monthly_break_even(monthly_usd: float, cost_per_run_usd: float, runs_per_month: float,
                       run_hours: float = 0.0) -> BreakEven:
    """Compare a monthly dedicated server with paying per run by the hour.

    Args:
        monthly_usd: server price per month (USD), all its GPUs.
        cost_per_run_usd: one completed run paying by the hour (USD), e.g. ``CostEstimate.total_usd``.
        runs_per_month: runs the user plans per month.
        run_hours: wall-clock hours per run, to check the runs fit in a month (730 h).

    Example: a 1,000 USD/month server vs 50 USD per run: break-even at 20 runs per month; at 30
    runs the monthly server is cheaper (1,000 vs 1,500 USD).

    Raises:
        ValueError: for negative prices or a non-positive number of runs.
    """
    if monthly_usd < 0 or cost_per_run_usd < 0 or run_hours < 0:
        raise ValueError("prices and hours must be non-negative")
    if runs_per_month <= 0:
        raise ValueError("runs_per_month must be positive")
    hourly = cost_per_run_usd * runs_per_month
    break_even = monthly_usd / cost_per_run_usd if cost_per_run_usd > 0 else math.inf
    if math.isclose(hourly, monthly_usd, rel_tol=1e-9, abs_tol=1e-9):
        cheaper = "equal"
    else:
        cheaper = "monthly" if monthly_usd < hourly else "hourly"
    return BreakEven(
        monthly_usd=monthly_usd,
        hourly_usd=hourly,
        break_even_runs=break_even,
        monthly_per_run_usd=monthly_usd / runs_per_month,
        cheaper=cheaper,
        fits_in_month=runs_per_month * run_hours <= HOURS_PER_MONTH,
    )


def electricity_estimate(time: TimeEstimate, pricing: Pricing, n_gpus: int, spec_power_w: float,
                         curve_points: int = 60, gpu_name: str = "") -> CostEstimate:
    """One completed run on the user's own GPUs, billed as electricity (``Pricing.own_gpu``).

    ``USD = (P_gpu x n_gpus + P_host) x h / 1000 x USD/kWh``, plus the fixed ``other_usd``, divided by
    ``1 - failure_probability`` as for a rented run. ``P_gpu`` is the card's board power read from NVML
    (``Pricing.gpu_power_w``, W: :data:`NVML_POWER_SOURCE`) or else ``spec_power_w`` (the GPU spec's ``tdp_w``, W:
    :data:`SPEC_POWER_SOURCE`); training holds a card near its power limit, so this is the upper end of its draw,
    and the same power is counted for every phase (setup and evaluation draw less: an upper bound). ``P_host`` is
    ``Pricing.host_power_w`` (W, 0 when left out). ``h`` is the wall-clock run time (hours, not rounded: a meter is
    not billed per started hour). Nothing is charged for rental, storage, egress or interruptions (those model
    rented capacity). The rental fields of ``pricing`` price the same run rented: ``rental_usd``.

    Example: 350 W x 1 GPU x 10 h = 3.5 kWh x 0.30 USD/kWh = 1.05 USD.

    Args:
        time: the run's phases (seconds).
        pricing: the plan's pricing (``electricity_usd_per_kwh`` USD/kWh; None: priced at 0 with a note).
        n_gpus: the user's GPUs the run uses.
        spec_power_w: board power per GPU from the spec (W), used when ``pricing.gpu_power_w`` is None.
        curve_points: about how many samples the cumulative curve has.
        gpu_name: the card's name, for the note that its power is the catalog's.

    Returns:
        A :class:`CostEstimate` with ``billing="electricity"``, ``kwh`` and ``terms`` (USD) filled.
    """
    hours = time.seconds / 3600.0
    usd_per_kwh = pricing.electricity_usd_per_kwh if pricing.electricity_usd_per_kwh is not None else 0.0
    read = pricing.gpu_power_w is not None
    power = pricing.gpu_power_w if pricing.gpu_power_w is not None else spec_power_w
    gpu_kwh = power * n_gpus * hours / 1000.0
    host_kwh = pricing.host_power_w * hours / 1000.0
    gpu_usd = electricity_cost(power, hours, usd_per_kwh, n_gpus)
    host_usd = electricity_cost(pricing.host_power_w, hours, usd_per_kwh)
    one_run = gpu_usd + host_usd + pricing.other_usd
    repeat = 1.0 / (1.0 - pricing.failure_probability)
    total = one_run * repeat
    rate = usd_per_kwh / 1000.0

    def q(key: str, value: float, unit: str, source: str = "") -> Quantity:
        return Quantity(key=key, value=value, unit=unit, source=source)

    terms = [Term(key="electricity_gpus", value=gpu_usd, unit="USD", detail="nvml" if read else "spec",
                  source="energy = power x time; cost = kWh x tariff",
                  parts=(q("power", power, "W", NVML_POWER_SOURCE if read else SPEC_POWER_SOURCE),
                         q("gpus", n_gpus, "count"), q("hours", hours, "h"), q("kwh", gpu_kwh, "kWh"),
                         q("usd_per_kwh", usd_per_kwh, "USD/kWh")))]
    if pricing.host_power_w > 0:
        terms.append(Term(key="electricity_host", value=host_usd, unit="USD",
                          source="energy = power x time; cost = kWh x tariff",
                          parts=(q("power", pricing.host_power_w, "W"), q("hours", hours, "h"),
                                 q("kwh", host_kwh, "kWh"), q("usd_per_kwh", usd_per_kwh, "USD/kWh"))))
    messages = [Note(code="cost.electricity" if pricing.electricity_usd_per_kwh is not None else "cost.no_tariff",
                     params={"kwh": round(gpu_kwh + host_kwh, 3), "usd_per_kwh": usd_per_kwh})]
    if not read:
        messages.append(Note(code="cost.power_from_spec", params={"power": int(power) if float(power).is_integer() else round(power, 1), "gpu": gpu_name}))
    rented = estimate_cost(time, pricing.model_copy(update={"own_gpu": False}), n_gpus, curve_points=2)
    messages.append(Note(code="cost.rent_comparison", params={
        "provider": pricing.provider, "offer_kind": pricing.offer_kind, "price": pricing.price_per_gpu_hour,
        "rental_usd": round(rented.total_usd, 2), "electricity_usd": round(total, 2)}))
    per_hour = (power * n_gpus + pricing.host_power_w) * rate
    curve = _curve(time, 0.0, per_hour, pricing.other_usd, total, curve_points)
    breakdown = {"Electricity (GPUs)": gpu_usd, "Electricity (rest of the machine)": host_usd,
                 "Other": pricing.other_usd, "Failed-run repeats": total - one_run}
    return CostEstimate(
        gpu_usd=gpu_usd,
        billed_hours=hours,
        storage_usd=0.0,
        egress_usd=0.0,
        other_usd=pricing.other_usd,
        interruption_usd=0.0,
        total_usd=total,
        pessimistic_usd=total,
        curve=curve,
        breakdown=breakdown,
        billing="electricity",
        kwh=gpu_kwh + host_kwh,
        terms=terms,
        notes=[render_note(n) for n in messages],
        messages=messages,
        rental_usd=rented.total_usd,
    )


def estimate_cost(time: TimeEstimate, pricing: Pricing, n_gpus: int, curve_points: int = 60,
                  gpu_power_w: float | None = None, gpu_name: str = "") -> CostEstimate:
    """Expected cost of one completed run, its pessimistic bound and the cumulative cost curve.

    Args:
        time: the run's phases (seconds): ``setup``, ``training``, ``evaluation``, ``checkpoints``.
        pricing: price per GPU-hour (USD), billing granularity and minimum, storage kind, size
            (GB), rates (USD/GB-month) and hours kept after the run, egress (GB, USD/GB), other
            (USD), interruption rate (1/h), checkpoint interval and restart time (min), failure
            probability, and optionally a monthly price and electricity price (USD/kWh).
        n_gpus: GPUs rented for the run.
        curve_points: about how many samples the curve has (at least 2 per phase).
        gpu_power_w: board power per GPU (W, ``GpuSpec.tdp_w``) for the electricity note.

    Returns:
        A :class:`CostEstimate` (USD). ``total_usd`` = (GPU time + storage + egress + other)
        ``/ (1 - failure_probability)``; ``breakdown`` holds those lines plus
        ``Failed-run repeats`` and sums to ``total_usd``; ``interruption_usd`` is the part of GPU
        time and storage spent on expected lost work; ``pessimistic_usd`` uses the pessimistic
        interruption loss; ``curve`` is cumulative USD vs wall-clock hours, one phase per point,
        ending with a ``done`` point at ``total_usd`` (billing rounding, egress, repeats). Notes
        describe interruptions, storage persistence, a monthly-server break-even and electricity.
        With ``pricing.own_gpu`` the run is billed as electricity instead: :func:`electricity_estimate`
        (``gpu_power_w`` is then the spec's board power, W; ``gpu_name`` names the card in its notes).
    """
    if pricing.own_gpu:
        return electricity_estimate(time, pricing, n_gpus, gpu_power_w if gpu_power_w is not None else 0.0,
                                    curve_points, gpu_name)
    wall_h = time.seconds / 3600.0
    loss = interruption_loss(pricing.interruptions_per_hour, wall_h, pricing.checkpoint_every_min,
                             pricing.restart_minutes, pricing.interruptions_per_hour_high)
    rate = pricing.price_per_gpu_hour * n_gpus
    storage_rate = pricing.storage_gb * pricing.storage_usd_per_gb_month / HOURS_PER_MONTH
    egress_usd = pricing.egress_gb * pricing.egress_usd_per_gb
    other_usd = pricing.other_usd
    repeat = 1.0 / (1.0 - pricing.failure_probability)

    def attempt(lost_h: float) -> tuple[float, float, float, float, str]:
        run_h = wall_h + lost_h
        billed = billed_hours(run_h * 3600.0, pricing.billing, pricing.minimum_billed_minutes)
        storage, note = storage_cost(pricing, run_h)
        gpu = rate * billed
        return gpu, billed, storage, gpu + storage + egress_usd + other_usd, note

    gpu_usd, hours, storage_usd, one_run, storage_note = attempt(loss.expected_lost_hours)
    total = one_run * repeat
    pessimistic = attempt(loss.pessimistic_lost_hours)[3] * repeat
    interruption_usd = (rate + storage_rate) * loss.expected_lost_hours
    repeats_usd = total - one_run

    curve = _curve(time, loss.expected_lost_hours, rate + storage_rate, other_usd, total, curve_points)
    breakdown = {"GPU time": gpu_usd, "Storage": storage_usd, "Egress": egress_usd, "Other": other_usd,
                 "Failed-run repeats": repeats_usd}
    notes: list[Note] = []
    if loss.expected_count > 0:
        notes.append(Note(code="cost.interruptions", params={
            "expected": loss.expected_count, "lost_hours": loss.expected_lost_hours, "usd": interruption_usd,
            "pessimistic": loss.pessimistic_count, "pessimistic_hours": loss.pessimistic_lost_hours}))
    if pricing.failure_probability > 0:
        notes.append(Note(code="cost.failure_repeats", params={
            "probability": pricing.failure_probability, "attempts": repeat, "usd": repeats_usd}))
    if storage_note:
        notes.append(Note(code=storage_note))
    if pricing.monthly_price_usd is not None and total > 0:
        be = monthly_break_even(pricing.monthly_price_usd, total, pricing.runs_per_month, wall_h)
        notes.append(Note(code=_CHEAPER[be.cheaper], params={
            "monthly": be.monthly_usd, "hourly": be.hourly_usd, "runs": pricing.runs_per_month,
            "break_even": be.break_even_runs}))
        if not be.fits_in_month:
            notes.append(Note(code="cost.runs_exceed_month", params={"runs": pricing.runs_per_month}))
    if pricing.electricity_usd_per_kwh is not None and gpu_power_w is not None:
        kwh_usd = electricity_cost(gpu_power_w, wall_h, pricing.electricity_usd_per_kwh, n_gpus)
        notes.append(Note(code="cost.rented_electricity", params={
            "usd": kwh_usd, "power": gpu_power_w, "gpus": n_gpus, "hours": wall_h,
            "usd_per_kwh": pricing.electricity_usd_per_kwh}))
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
        notes=[render_note(n) for n in notes],
        messages=notes,
    )


def _curve(time: TimeEstimate, lost_h: float, per_hour: float, start_usd: float, total: float,
           points: int) -> list[CostPoint]:
    """Cumulative USD over wall-clock hours: GPU and storage accrue with the clock, phase by phase."""
    run_h = max(time.seconds / 3600.0 + lost_h, 1e-12)
    curve = [CostPoint(hours=0.0, usd=start_usd, phase="setup")]
    elapsed, spent = 0.0, start_usd
    for name in _PHASES:
        dur = time.phases.get(name, 0.0) / 3600.0 + (lost_h if name == "training" else 0.0)
        if dur <= 0:
            continue
        n = max(2, int(points * dur / run_h))
        for k in range(1, n + 1):
            curve.append(CostPoint(hours=elapsed + dur * k / n, usd=spent + per_hour * dur * k / n, phase=name))
        elapsed += dur
        spent += per_hour * dur
    curve.append(CostPoint(hours=elapsed, usd=total, phase="done"))
    return curve
