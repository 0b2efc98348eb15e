"""The same plan on many GPUs: does it fit, at which micro-batch, how long, what it costs.

For every GPU, :func:`compare_gpus` copies the scenario onto that GPU and

1. finds the largest micro-batch that fits in memory (``memory.fits``: the nvidia-smi total of
   :func:`tuneplan.core.memory.estimate_memory` within the card's capacity), searching 1..64 by
   doubling and then bisection between the last size that fit and the first that did not;
2. keeps the scenario's **effective batch** (``micro_batch x grad_accumulation`` sequences per GPU
   per optimizer step) unchanged, because it is an optimisation hyperparameter, not a memory knob:
   the micro-batch used is the largest divisor of the effective batch that fits, and
   ``grad_accumulation`` becomes ``effective / micro_batch``. A plan with an effective batch of 1
   therefore always runs at micro-batch 1;
3. runs :func:`tuneplan.core.estimate.estimate` on that plan (the same numbers ``tuneplan estimate``
   prints) and prices one completed run on demand and on interruptible (spot/community) capacity.

Spot rows budget for interruptions: the scenario's ``pricing.interruptions_per_hour`` when it is
set, otherwise :data:`DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR`. On-demand rows use the scenario's
value as it is (normally 0).

Pure: no I/O, no Qt. 35 GPUs take a few tens of milliseconds (``tools/bench_compare.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from pydantic import BaseModel, ConfigDict

from tuneplan.core.calibration import Calibration
from tuneplan.core.cost import estimate_cost
from tuneplan.core.estimate import blocking_notes, estimate, plan_stack_key
from tuneplan.core.memory import estimate_memory
from tuneplan.core.result import GIB
from tuneplan.core.scenario import GpuSpec, Scenario, TrainingSetup
from tuneplan.core.terms import Note, render_note

__all__ = [
    "missing_support",
    "DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR",
    "MAX_MICRO_BATCH",
    "GpuComparisonRow",
    "compare_gpus",
    "largest_fitting",
]

#: Largest micro-batch the search tries (sequences per GPU per forward pass).
MAX_MICRO_BATCH = 64

#: Interruptions per hour assumed for spot/community capacity when the scenario states none:
#: about one reclaim per 20 hours of running. A planning judgement, not a measured rate: no
#: provider in provider_terms.csv publishes one (Vast.ai and RunPod only say interruptible
#: instances "may be reclaimed"). Users should enter their own rate in the scenario.
DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR = 0.05

#: Price map value: ``(on_demand_usd_per_gpu_hour | None, spot_usd_per_gpu_hour | None)``.
PricePair = tuple[float | None, float | None]


class GpuComparisonRow(BaseModel):
    """One GPU of the comparison table.

    Attributes:
        gpu_id, gpu_name: the catalog GPU.
        fits: whether the plan fits at micro-batch 1 or more.
        micro_batch: micro-batch used (largest fitting divisor of the effective batch), ``None``
            when even micro-batch 1 does not fit.
        peak_gib: per-GPU device memory (nvidia-smi total, GiB) at ``micro_batch`` (at 1 when it
            does not fit).
        hours: wall-clock hours of one run (setup, training, evaluation, checkpoints), without
            interruptions; computed at micro-batch 1 when the plan does not fit.
        hours_low, hours_high: the likely range of ``hours`` (``TimeEstimate.low_seconds`` ..
            ``high_seconds``: the training phase scaled by the measured error of the step model).
        on_demand_usd: expected USD per completed run at the on-demand price (``None``: no price
            or does not fit).
        spot_usd: expected USD per completed run at the spot/community price, interruptions
            included (``None``: no price or does not fit).
        usd_low, usd_high: ``on_demand_usd`` at the ends of the likely time range
            (``CostEstimate.low_usd`` .. ``high_usd``); ``None`` where ``on_demand_usd`` is.
        cheapest: the fitting GPU with the lowest of its on-demand and spot cost (one row at most).
        fastest_in_budget: the fitting GPU with the fewest hours whose lower cost is within
            ``budget_usd`` (any fitting GPU when no budget is given; one row at most).
        compatible: False when the GPU cannot run the plan as set: BF16 precision or
            FlashAttention 2 on a card without BF16 tensor cores (T4, V100: FlashAttention 2 needs
            Ampere or newer). Such rows are never marked cheapest or fastest.
        note: why a row is not compatible.
        band_risk: :attr:`MemoryEstimate.band_risk` at ``micro_batch`` (at 1 when it does not fit):
            ``"tight"``/``"unlikely"`` when the estimate fits but the measured-error range reaches past the
            card, ``"possible"`` when it does not fit but the lower end of the range does.
    """

    model_config = ConfigDict(frozen=True)

    gpu_id: str
    gpu_name: str
    fits: bool
    micro_batch: int | None
    peak_gib: float
    hours: float
    on_demand_usd: float | None
    spot_usd: float | None
    hours_low: float = 0.0
    hours_high: float = 0.0
    usd_low: float | None = None
    usd_high: float | None = None
    cheapest: bool = False
    fastest_in_budget: bool = False
    compatible: bool = True
    note: str = ""
    band_risk: str = "none"
    #: why the plan cannot run on this card although it fits (:data:`~tuneplan.core.estimate.BLOCKING_NOTES`: a
    #: colocated vLLM share too small for the model, a micro-batch GRPO refuses), or None
    blocked: Note | None = None

    @property
    def best_usd(self) -> float | None:
        """The lower of ``on_demand_usd`` and ``spot_usd`` (``None`` when neither is known)."""
        known = [v for v in (self.on_demand_usd, self.spot_usd) if v is not None]
        return min(known) if known else None



def missing_support(gpu: GpuSpec, training: TrainingSetup) -> list[str]:
    """What the plan needs that ``gpu`` lacks: ``["BF16", "FlashAttention 2"]`` or a part of it, ``[]`` when it
    runs as planned. Both need BF16 tensor cores (Ampere or newer; ``GpuSpec.bf16_supported``): BF16 weights and
    activations, and FlashAttention 2 (its README: Ampere, Ada or Hopper GPUs)."""
    if training.attention == "flash1" and 0.0 < gpu.compute_capability < 7.5:
        # FlashAttention 1 runs on Turing (7.5) and newer (its README: T4 and RTX 2080 included), not on Volta
        return [w for w, on in (("BF16", training.precision == "bf16" and not gpu.bf16_supported),
                                ("FlashAttention 1", True)) if on]
    if gpu.bf16_supported:
        return []
    return [w for w, on in (("BF16", training.precision == "bf16"), ("FlashAttention 2", training.attention == "flash"))
            if on]

def largest_fitting(fits: Callable[[int], bool], upper: int = MAX_MICRO_BATCH) -> int:
    """Largest ``m`` in ``1..upper`` with ``fits(m)``, assuming ``fits`` is monotone (True then False).

    Doubling 1, 2, 4, ... until a size does not fit (or ``upper`` is reached), then bisection
    between the last size that fit and the first that did not: at most
    ``2 * ceil(log2(upper)) + 1`` calls. Returns 0 when ``fits(1)`` is False.
    """
    if upper < 1 or not fits(1):
        return 0
    lo = 1
    hi = None  # smallest size known not to fit
    m = 2
    while m <= upper:
        if fits(m):
            lo = m
            m *= 2
        else:
            hi = m
            break
    if hi is None:
        if lo == upper:
            return lo
        if fits(upper):
            return upper
        hi = upper
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


def _largest_divisor_at_most(n: int, limit: int) -> int:
    for d in range(min(n, limit), 0, -1):
        if n % d == 0:
            return d
    return 1


class _MemoryProbe:
    """Memory totals by micro-batch, shared between GPUs whose memory model is the same.

    The memory ledger depends on the GPU only through its capacity today, so the totals for a
    micro-batch are computed once per (micro-batch, vendor, BF16 support) and compared with each
    card's capacity. :func:`compare_gpus` re-checks the final choice exactly on every GPU, so a
    future GPU-dependent ledger term cannot make a row claim a fit it does not have.
    """

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.cache: dict[tuple, float] = {}

    def total_bytes(self, gpu: GpuSpec, micro_batch: int) -> float:
        key = (micro_batch, gpu.vendor, gpu.bf16_supported)
        if key not in self.cache:
            t = self.scenario.training.model_copy(update={"micro_batch": micro_batch})
            mem, _ = estimate_memory(self.scenario.model, t, gpu, self.scenario.dataset)
            self.cache[key] = mem.total_bytes
        return self.cache[key]


def _exact_fits(scenario: Scenario, gpu: GpuSpec, micro_batch: int) -> bool:
    t = scenario.training.model_copy(update={"micro_batch": micro_batch})
    mem, _ = estimate_memory(scenario.model, t, gpu, scenario.dataset)
    return mem.fits


def compare_gpus(
    scenario: Scenario,
    gpus: Iterable[GpuSpec],
    prices: Mapping[str, PricePair],
    budget_usd: float | None = None,
    billing: Mapping[str, tuple[str | None, str | None]] | None = None,
    calibrations: Mapping[str, Calibration] | None = None,
) -> list[GpuComparisonRow]:
    """Plan ``scenario`` on every GPU in ``gpus`` and rank them.

    Args:
        scenario: the plan (model, training setup, dataset, pricing terms). Its GPU and price are
            replaced per row; billing granularity, storage, egress and overheads are kept.
        gpus: GPUs to compare (e.g. ``tuneplan.catalog.list_gpus()``).
        prices: ``gpu_id -> (on_demand_usd_per_gpu_hour | None, spot_usd_per_gpu_hour | None)``;
            a GPU missing from the map has no price.
        budget_usd: USD per completed run; ``fastest_in_budget`` marks the fastest fitting GPU
            whose lower cost is at most this. ``None``: no limit.
        billing: ``gpu_id -> (on-demand granularity | None, spot granularity | None)`` of the
            offers in ``prices`` (``second``/``minute``/``hour``); each price is billed by its own
            provider's rule. Missing: the plan's billing granularity.
        calibrations: saved pilot-run calibrations by stack key: a GPU whose plan shares a calibration's
            hardware and stack is timed with it, as the plan itself is.

    Returns:
        One :class:`GpuComparisonRow` per GPU: fitting GPUs first, by lower cost (unpriced ones
        after priced ones, by hours), then the GPUs that do not fit, in input order.

    Raises:
        ValueError: when a GPU cannot be estimated (e.g. no tensor throughput in its spec).
    """
    t0 = scenario.training
    effective = t0.micro_batch * t0.grad_accumulation
    upper = min(MAX_MICRO_BATCH, effective)
    probe = _MemoryProbe(scenario)
    rows: list[GpuComparisonRow] = []
    for gpu in gpus:
        capacity = gpu.memory_gib * GIB
        best = largest_fitting(lambda m, g=gpu, c=capacity: probe.total_bytes(g, m) <= c, upper)
        od_price, spot = prices.get(gpu.id, (None, None))
        od_billing, spot_billing = (billing or {}).get(gpu.id, (None, None))
        pricing = scenario.pricing
        if od_price is not None:
            pricing = pricing.model_copy(update={"price_per_gpu_hour": od_price,
                                                 "billing": od_billing or pricing.billing})

        def plan(best: int, gpu: GpuSpec = gpu, pricing=pricing):  # noqa: ANN202 - (micro_batch, TrainingSetup, Estimate)
            mb = _largest_divisor_at_most(effective, best) if best else 1
            training = t0.model_copy(update={"micro_batch": mb, "grad_accumulation": effective // mb})
            planned = scenario.model_copy(update={"gpu": gpu, "training": training, "pricing": pricing})
            return mb, training, estimate(planned, (calibrations or {}).get(plan_stack_key(planned)))

        mb, training, result = plan(best)
        if best and not result.memory.fits:  # the shared probe was wrong for this card: search exactly
            best = largest_fitting(lambda m, g=gpu: _exact_fits(scenario, g, m), best)
            mb, training, result = plan(best)
        fits = bool(best) and result.memory.fits
        od_usd = result.cost.total_usd if (fits and od_price is not None) else None
        spot_usd = None
        if fits and spot is not None:
            lam = scenario.pricing.interruptions_per_hour or DEFAULT_SPOT_INTERRUPTIONS_PER_HOUR
            spot_pricing = pricing.model_copy(update={"price_per_gpu_hour": spot, "interruptions_per_hour": lam,
                                                      "billing": spot_billing or scenario.pricing.billing})
            spot_usd = estimate_cost(result.time, spot_pricing, training.num_gpus, curve_points=2).total_usd
        note = ""
        needs = missing_support(gpu, t0)
        if needs:
            note = f"{gpu.name} has no {' or '.join(needs)} support (needs an Ampere or newer GPU): use FP16 and SDPA"
        blocked = blocking_notes(result)  # e.g. a colocated vLLM share that cannot hold the model on this card
        rows.append(
            GpuComparisonRow(
                compatible=not note and not blocked,
                note=note or (render_note(blocked[0]) if blocked else ""),
                blocked=blocked[0] if blocked else None,
                gpu_id=gpu.id,
                gpu_name=gpu.name,
                fits=fits,
                micro_batch=mb if fits else None,
                peak_gib=result.memory.total_bytes / GIB,
                hours=result.time.hours,
                hours_low=result.time.low_seconds / 3600.0,
                hours_high=result.time.high_seconds / 3600.0,
                on_demand_usd=od_usd,
                usd_low=result.cost.low_usd if od_usd is not None else None,
                usd_high=result.cost.high_usd if od_usd is not None else None,
                spot_usd=spot_usd,
                band_risk=result.memory.band_risk,
            )
        )
    return _rank(rows, budget_usd)


#: Runs whose times differ by less than this share are the same speed for "fastest" (the cheapest of them is marked):
#: far inside the time model's measured error (docs/time-accuracy.md, median 9.5 %) and below the hours shown (two
#: decimals at about an hour).
SAME_TIME_SHARE = 0.01


def _rank(rows: list[GpuComparisonRow], budget_usd: float | None) -> list[GpuComparisonRow]:
    fitting = [r for r in rows if r.fits and r.compatible]
    priced = [r for r in fitting if r.best_usd is not None]
    cheapest = min(priced, key=lambda r: (r.best_usd, r.hours), default=None)
    if budget_usd is None:
        eligible = fitting
    else:
        eligible = [r for r in priced if r.best_usd <= budget_usd]
    # the fastest, and among runs within SAME_TIME_SHARE of its time the cheapest: a host-bound plan (the evaluation's
    # token-by-token decode, the launch floor) takes the same hours on every fast card, and a B200 0.02 % faster than
    # an H100 is no reason to pay four times as much
    quickest = min((r.hours for r in eligible), default=0.0)
    tied = [r for r in eligible if r.hours <= quickest * (1 + SAME_TIME_SHARE)]
    fastest = min(tied, key=lambda r: (r.best_usd if r.best_usd is not None else float("inf"), r.hours), default=None)
    marked = [
        r.model_copy(update={"cheapest": r is cheapest, "fastest_in_budget": r is fastest}) for r in rows
    ]
    inf = float("inf")
    return sorted(
        marked,
        key=lambda r: (not r.fits, not r.compatible, r.best_usd if (r.fits and r.best_usd is not None) else inf,
                       r.hours if r.fits else 0.0),
    )
