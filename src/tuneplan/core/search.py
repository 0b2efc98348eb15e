"""The cheapest (or fastest) setup that works: GPU type x count x sharding x method x memory savers.

:func:`search_setups` answers "what should I rent?" for a plan. It tries every combination of

* a GPU type (the catalog, and the plan's own GPU),
* a GPU count (:data:`GPU_COUNTS`, up to the user's ``max_gpus``),
* a sharding for several GPUs (:data:`SHARDINGS`: DDP, ZeRO-2, FSDP),
* a method (the plan's, and the lighter ones unless ``keep_method``: full fine-tuning may become LoRA or QLoRA,
  LoRA and QLoRA may swap; a LoRA plan never becomes a full fine-tune, which trains something else),
* a memory-saver level (:data:`SAVER_LEVELS`: no gradient checkpointing, checkpointing, checkpointing with a
  fused cross-entropy, 8-bit AdamW for full fine-tuning and, under FSDP with accumulation, gradients
  reduce-scattered every micro-batch),

at the largest micro-batch that divides the per-GPU share of the plan's global batch and fits, and keeps the
setups that fit with their **whole likely range** (``MemoryEstimate.high_bytes`` within the card: the verdict's
band reaching no further than the capacity, ``band_risk == "none"`` with ``fits``), run as the user's limits
allow (at most ``budget_usd`` per completed run, done within ``max_hours``). It ranks them by expected cost per
completed run (``CostEstimate.total_usd``) or by wall-clock hours and returns the best few, one per GPU type and
method, so the list offers choices ("16x H100 with FSDP", "QLoRA on one 48 GB card") rather than ten sizes of
one answer.

The global batch (micro-batch x accumulation x GPUs, sequences per optimizer step) is an optimisation
hyperparameter and stays as planned where the GPU count divides it; where it does not (more GPUs than
sequences per step), it grows to the next multiple of the count and the setup says so
(``search.global_batch``).

Speed (the whole search in well under a second for the default plan, ``make bench``):

* memory depends on the GPU only through its vendor and BF16 support, so a micro-batch's device total is
  computed once per configuration and compared with every card's capacity (as :func:`compare_gpus` does);
* a GPU count is skipped without any memory estimate when the model states it must hold (weights, gradients,
  optimizer states, sharded as the configuration shards them) already exceed the card with the measured error
  (:func:`states_lower_bound`);
* per GPU type, method and count only the lightest configuration that fits is timed, and a heavier one only
  when it runs a larger micro-batch; counts grow only while the run gets cheaper (or faster), or the time limit
  is not yet met.

Pure: no I/O, no Qt.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.calibration import Calibration
from tuneplan.core.compare import MAX_MICRO_BATCH, largest_fitting, missing_support
from tuneplan.core.estimate import blocking_notes, estimate, plan_stack_key
from tuneplan.core.memory import CUDA_CONTEXT_BYTES, MEASURED_ERROR, estimate_memory
from tuneplan.core.result import GIB, Estimate
from tuneplan.core.scenario import GpuSpec, Pricing, Scenario, TrainingSetup
from tuneplan.core.stacks import apply_stack, overridden
from tuneplan.core.terms import N_, NOTES, Note

__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_MAX_GPUS",
    "GPU_COUNTS",
    "SAVER_LEVELS",
    "SHARDINGS",
    "Rank",
    "SearchOutcome",
    "Setup",
    "model_states",
    "search_setups",
    "setup_scenario",
    "states_lower_bound",
]

Rank = Literal["cost", "time"]

#: GPU counts tried (powers of two, as nodes and their slices come).
GPU_COUNTS = (1, 2, 4, 8, 16, 32, 64)
#: Most GPUs the search considers when the user sets no limit.
DEFAULT_MAX_GPUS = 64
#: Shardings tried for more than one GPU, lightest communication first. ZeRO-3 shards as FSDP does; FSDP
#: stands for both.
SHARDINGS = ("ddp", "zero2", "fsdp")
#: Memory-saver levels, least saving (and fastest) first: the training fields each one sets.
SAVER_LEVELS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("none", {"grad_checkpointing": False}),
    ("checkpointing", {"grad_checkpointing": True}),
    ("all", {"grad_checkpointing": True, "fused_cross_entropy": True}),
)
#: What the last saver level adds besides its fields: 8-bit AdamW for full fine-tuning, and under FSDP with
#: gradient accumulation the reduce-scatter after every micro-batch (no unsharded gradients kept between them).
#: Results returned when the caller asks for no other number.
DEFAULT_LIMIT = 10

#: Lighter methods each method may become (``keep_method`` False).
_METHODS = {"full": ("full", "lora", "qlora"), "lora": ("lora", "qlora"), "qlora": ("qlora", "lora")}
_FULL_PRECISION_ADAMW = {"adamw", "adamw-fused", "paged-adamw-32bit"}
#: Fields a setup may change, in the order a description names them.
_FIELDS = ("method", "num_gpus", "sharding", "micro_batch", "grad_accumulation", "grad_checkpointing",
           "fused_cross_entropy", "optimizer", "grad_sync")
#: high_bytes = total / (1 + p10): the factor from an estimated total to the upper end of its likely range.
_HIGH_FACTOR = 1.0 / (1.0 + MEASURED_ERROR[0])

NOTES.update({
    "search.global_batch": N_("the global batch grows from {old} to {new} sequences per optimizer step: each of "
                              "the {n} GPUs needs at least one"),
    "search.unpriced": N_("no price for {gpu}: the cost is unknown"),
    "search.nothing_runs": N_("{count} setups fit, but each is one its stack refuses to run as planned: see the "
                              "plan's warnings"),
    "search.nothing_fits": N_("no setup of up to {max_gpus} GPUs fits with its whole likely range"),
    "search.nothing_within": N_("{count} setups fit, but none within the budget and time limit"),
})


class Setup(BaseModel):
    """One setup that works, with the changes that make it and the estimate's key figures.

    Attributes:
        gpu_id, gpu_name, gpu_memory_gib: the GPU type (GiB as the driver reports it).
        num_gpus, sharding, method, micro_batch, grad_accumulation, grad_checkpointing, fused_cross_entropy,
            optimizer, grad_sync: the training setup it runs.
        changes: dotted ``training.*`` paths to their new values, only those that differ from the plan.
        gpu_changed: whether the GPU type differs from the plan's.
        global_batch: sequences per optimizer step over all GPUs.
        total_gib, high_gib, capacity_gib: per-GPU device total, the upper end of its likely range, the card (GiB).
        hours, hours_low, hours_high: wall-clock hours of one run and their likely range.
        usd, usd_low, usd_high: expected USD per completed run and its likely range (``None``: no price).
        price_per_gpu_hour: the USD per GPU-hour it is priced at (``None``: no price).
        notes: coded notes (``search.global_batch``, ``search.unpriced``).
    """

    model_config = ConfigDict(frozen=True)

    gpu_id: str
    gpu_name: str
    gpu_memory_gib: float
    num_gpus: int
    sharding: str
    method: str
    micro_batch: int
    grad_accumulation: int
    grad_checkpointing: bool
    fused_cross_entropy: bool
    optimizer: str
    grad_sync: str
    changes: dict[str, Any]
    gpu_changed: bool
    global_batch: int
    total_gib: float
    high_gib: float
    capacity_gib: float
    hours: float
    hours_low: float
    hours_high: float
    usd: float | None
    usd_low: float | None
    usd_high: float | None
    price_per_gpu_hour: float | None
    notes: list[Note] = []

    @property
    def is_plan(self) -> bool:
        """True when the setup is the plan as it is (no change)."""
        return not self.changes and not self.gpu_changed


class SearchOutcome(BaseModel):
    """What :func:`search_setups` found.

    Attributes:
        setups: the best setups, best first (at most ``limit``).
        rank: ``cost`` or ``time``.
        working: setups that fit with their whole likely range, before the budget and time limit.
        configurations: configurations (GPU count, sharding, method, savers) considered.
        skipped_by_bound: configurations skipped because their model states alone cannot fit any card.
        estimates: full estimates run.
        notes: coded notes (``search.nothing_fits``, ``search.nothing_within``).
    """

    model_config = ConfigDict(frozen=True)

    setups: list[Setup]
    rank: str
    working: int
    configurations: int
    skipped_by_bound: int
    estimates: int
    notes: list[Note] = []


def states_lower_bound(weights: float, gradients: float, optimizer: float, num_gpus: int, sharding: str) -> float:
    """The least bytes per GPU a configuration can need: its model states shared by the GPUs, plus the CUDA context.

    ``weights`` (adapters included), ``gradients`` and ``optimizer`` are the one-GPU, unsharded ledger's bytes.
    DDP (and one GPU) keeps all of them on every GPU. Any sharding (ZeRO-1/2/3, FSDP) keeps at least their
    ``1/num_gpus`` share: ZeRO-1/2 keep more (the whole 16-bit model, ZeRO-1 all gradients), but DeepSpeed moves
    an FP32 master copy into the sharded optimizer partition, so only the fully sharded share bounds every stage.
    The real total adds activations, buffers and the allocator's share, so it is never below this.
    """
    if sharding in {"none", "ddp"} or num_gpus <= 1:
        states = weights + gradients + optimizer
    else:
        states = (weights + gradients + optimizer) / num_gpus
    return states + CUDA_CONTEXT_BYTES


def model_states(arch: ModelArchitecture, t: TrainingSetup, gpu: GpuSpec) -> tuple[float, float, float]:
    """``(weights, gradients, optimizer)`` bytes of ``t`` on one GPU, unsharded, without CPU offload: the input of
    :func:`states_lower_bound` for every GPU count and sharding of ``t``.

    Weights include the adapters; paged optimizer states are left out (they may live in host RAM). With FP32
    master weights each part is the smaller of the plan's and the 16-bit plan's: DeepSpeed ZeRO casts the model to
    16 bits and keeps its FP32 master copy in the sharded optimizer partition.
    """
    one = t.model_copy(update={"num_gpus": 1, "sharding": "none", "cpu_offload": False})
    variants = [one] + ([one.model_copy(update={"master_weights": "none"})] if one.master_weights == "fp32" else [])
    parts = []
    for v in variants:
        _, led = estimate_memory(arch, v, gpu)
        parts.append((led.weights + led.adapters, led.gradients, led.optimizer))
    return min(p[0] for p in parts), min(p[1] for p in parts), min(p[2] for p in parts)


def setup_scenario(scenario: Scenario, setup: Setup, gpu: GpuSpec, pricing: Pricing | None = None) -> Scenario:
    """``scenario`` changed into ``setup``: its GPU ``gpu`` (the setup's GPU type), its training changes, and
    ``pricing`` (the pricing the setup was priced with; ``None`` keeps the plan's)."""
    training = scenario.training.model_copy(update={k.removeprefix("training."): v for k, v in setup.changes.items()})
    return scenario.model_copy(update={"gpu": gpu, "training": TrainingSetup.model_validate(training.model_dump()),
                                       "pricing": pricing or scenario.pricing})


class _Search:
    """One search's caches: memory totals shared between cards, one-GPU ledgers per method and savers."""

    def __init__(self, scenario: Scenario, calibrations: Mapping[str, Calibration] | None) -> None:
        self.scenario = scenario
        self.calibrations = calibrations or {}
        self.memory: dict[tuple[Any, ...], float] = {}
        self.states: dict[tuple[str, int], tuple[float, float, float]] = {}
        self.estimates = 0
        self.blocked = 0  # configurations that fit but that their stack refuses to run (blocking notes)
        #: per method: (model FLOPs of the whole run, seconds outside training) from its first estimate
        self.work: dict[str, tuple[float, float]] = {}
        #: fields of the plan the user set against its stack's defaults (kept in every setup)
        self.user_overrides = frozenset(overridden(scenario.training))

    def training(self, method: str, level: int, n: int, sharding: str, mb: int, ga: int) -> TrainingSetup:
        t = self.scenario.training
        update: dict[str, Any] = {"method": method, "num_gpus": n, "sharding": sharding, "micro_batch": mb,
                                  "grad_accumulation": ga, **SAVER_LEVELS[level][1]}
        if level == len(SAVER_LEVELS) - 1:
            if method == "full" and t.optimizer in _FULL_PRECISION_ADAMW:
                update["optimizer"] = "adamw-8bit"
            if sharding == "fsdp" and ga > 1:
                update["grad_sync"] = "micro-batch"
        changed = t.model_copy(update=update)
        if t.stack is not None:
            # the stack's defaults for the new method, GPU count and sharding (TRL's QLoRA-only bf16 adapters are not
            # a LoRA run's), except what the search sets and what the user set against the stack
            changed = apply_stack(changed, t.stack, keep=set(update) | set(self.user_overrides))
        return changed

    def model_states(self, method: str, level: int, gpu: GpuSpec) -> tuple[float, float, float]:
        """:func:`model_states` of the plan with this method and savers (cached)."""
        key = (method, level)
        if key not in self.states:
            self.states[key] = model_states(self.scenario.model, self.training(method, level, 1, "none", 1, 1), gpu)
        return self.states[key]

    def high_bytes(self, t: TrainingSetup, gpu: GpuSpec) -> float:
        """Upper end of the likely range of the device total (bytes per GPU), shared between similar cards."""
        key = (t.method, t.num_gpus, t.sharding, t.micro_batch, t.grad_accumulation, t.grad_checkpointing,
               t.fused_cross_entropy, t.optimizer, t.grad_sync, gpu.vendor, gpu.bf16_supported)
        if key not in self.memory:
            mem, _ = estimate_memory(self.scenario.model, t, gpu, self.scenario.dataset)
            self.memory[key] = mem.high_bytes
        return self.memory[key]

    def run(self, gpu: GpuSpec, t: TrainingSetup, pricing: Pricing) -> Estimate:
        planned = self.scenario.model_copy(update={"gpu": gpu, "training": t, "pricing": pricing})
        self.estimates += 1
        calibration = self.calibrations.get(plan_stack_key(planned))
        result = estimate(planned, calibration)
        if calibration is None and t.method not in self.work:
            time = result.time
            self.work[t.method] = (time.tokens_total * time.flops_per_token, time.phases.get("setup", 0.0))
        return result

    def fastest_hours(self, method: str, gpu: GpuSpec, n: int) -> float:
        """The shortest run ``n`` of ``gpu`` could make of ``method`` (hours): the setup phase, and the run's model
        FLOPs at the card's peak rate (the step model never exceeds it; a calibrated stack is never pruned)."""
        flops, setup = self.work[method]
        return (setup + flops / (n * _peak_flops(gpu))) / 3600


def _largest_divisor_at_most(n: int, limit: int) -> int:
    for d in range(min(n, limit), 0, -1):
        if n % d == 0:
            return d
    return 1


def _per_gpu_batch(global_batch: int, n: int) -> int:
    """Sequences per GPU per optimizer step: the plan's global batch shared by ``n`` GPUs, rounded up."""
    return max(1, -(-global_batch // n))


def search_setups(
    scenario: Scenario,
    gpus: Iterable[GpuSpec],
    pricing: Mapping[str, Pricing],
    *,
    rank: Rank = "cost",
    max_gpus: int = DEFAULT_MAX_GPUS,
    budget_usd: float | None = None,
    max_hours: float | None = None,
    keep_method: bool = False,
    limit: int = DEFAULT_LIMIT,
    calibrations: Mapping[str, Calibration] | None = None,
) -> SearchOutcome:
    """The best setups that run ``scenario`` with their whole likely range in memory.

    Args:
        scenario: the plan (model, training setup, dataset, pricing terms).
        gpus: GPU types to consider (e.g. ``tuneplan.catalog.list_gpus()``); the plan's own GPU replaces the one
            with its id (or is added), priced with the plan's pricing. Cards that lack what the plan needs (BF16, FlashAttention 2) are skipped.
        pricing: the plan's whole :class:`Pricing` on each GPU type, by GPU id, as applying the setup will price
            it (the GUI: what ``AppStore.set_gpu`` gives; the CLI: the cheapest on-demand catalog offer). A GPU
            missing here has no price: its setups are ranked after priced ones by cost and never pass a budget.
        rank: ``cost`` (expected USD per completed run, then hours) or ``time`` (wall-clock hours, then cost).
        max_gpus: most GPUs a setup may use (at least 1).
        budget_usd: most USD per completed run (``None``: no limit).
        max_hours: most wall-clock hours of one run (``None``: no limit).
        keep_method: keep the plan's method (full fine-tuning stays full fine-tuning).
        limit: most setups returned.
        calibrations: saved pilot-run calibrations by stack key (a setup on a calibrated stack is timed with it).

    Returns:
        A :class:`SearchOutcome`: the best ``limit`` setups, one per GPU type and method, best first.

    Raises:
        ValueError: when a GPU cannot be estimated (e.g. no tensor throughput in its spec).
    """
    s, t0 = scenario, scenario.training
    # the plan's own GPU as the plan has it (a capacity the user set, a card of their own), with its pricing
    cards = [g for g in gpus if g.id != s.gpu.id] + [s.gpu]
    prices = {**pricing, s.gpu.id: s.pricing}
    methods = (t0.method,) if keep_method else _METHODS[t0.method]
    counts = [n for n in GPU_COUNTS if n <= max(1, max_gpus)]
    global_batch = t0.micro_batch * t0.grad_accumulation * t0.num_gpus
    search = _Search(s, calibrations)
    largest = max((g.memory_gib for g in cards), default=0.0) * GIB
    configurations = skipped = 0
    # (n, sharding, method, level) whose states cannot fit the largest card are skipped for every card
    impossible: set[tuple[int, str, str, int]] = set()
    for method in methods:
        for level in range(len(SAVER_LEVELS)):
            w, g, o = search.model_states(method, level, s.gpu)
            for n in counts:
                for sharding in (("none",) if n == 1 else SHARDINGS):
                    configurations += 1
                    if t0.cpu_offload:
                        continue  # the states live on the CPU: no bound from them
                    if states_lower_bound(w, g, o, n, sharding) * _HIGH_FACTOR > largest:
                        impossible.add((n, sharding, method, level))
                        skipped += 1

    found: list[Setup] = []
    # rank "time": the fastest cards first, so that the list's last place is known early and slower cards whose
    # shortest possible run (at the card's peak rate) cannot reach it are never estimated
    if rank == "time":
        cards.sort(key=lambda c: -_peak_flops(c))
    leaders: dict[tuple[str, str], float] = {}
    for gpu in cards:
        capacity = gpu.memory_gib * GIB
        gpu_pricing = prices.get(gpu.id)
        for method in methods:
            if missing_support(gpu, t0.model_copy(update={"method": method})):
                break  # the precision and attention are the plan's: a card without them runs none of it
            previous: Setup | None = None
            for n in counts:
                if rank == "time" and method in search.work and len(leaders) >= limit:
                    last = sorted(leaders.values())[limit - 1]
                    if round(search.fastest_hours(method, gpu, n) * 60) > last:
                        continue
                per_gpu = _per_gpu_batch(global_batch, n)
                best_here: list[Setup] = []
                widest = 0
                for level in range(len(SAVER_LEVELS)):
                    w, g, o = search.model_states(method, level, gpu)
                    for sharding in (("none",) if n == 1 else SHARDINGS):
                        if (n, sharding, method, level) in impossible or (
                                not t0.cpu_offload
                                and states_lower_bound(w, g, o, n, sharding) * _HIGH_FACTOR > capacity):
                            continue
                        mb = _fitting_micro_batch(search, gpu, capacity, method, level, n, sharding, per_gpu)
                        if mb <= widest:
                            continue  # a lighter configuration already runs this micro-batch (or none fits)
                        widest = mb
                        t = search.training(method, level, n, sharding, mb, per_gpu // mb)
                        setup = _setup(search, gpu, t, gpu_pricing, global_batch, per_gpu * n)
                        if setup is not None:
                            best_here.append(setup)
                if not best_here:
                    continue
                here = min(best_here, key=lambda x: _key(x, rank))
                found.extend(best_here)
                for x in best_here:
                    if _within(x, budget_usd, max_hours):
                        k = (x.gpu_id, x.method)
                        leaders[k] = min(leaders.get(k, float("inf")), round(x.hours * 60))
                # more GPUs only while the run gets cheaper (or faster), or the time limit is not yet met
                if previous is not None and not _improves(here, previous, rank) and (
                        max_hours is None or previous.hours <= max_hours):
                    break
                previous = here

    within = [x for x in found if _within(x, budget_usd, max_hours)]
    within.sort(key=lambda x: _key(x, rank))
    chosen: list[Setup] = []
    seen: set[tuple[str, str]] = set()
    for x in within:
        if (x.gpu_id, x.method) not in seen:
            seen.add((x.gpu_id, x.method))
            chosen.append(x)
        if len(chosen) >= limit:
            break
    notes: list[Note] = []
    if not found and search.blocked:
        notes.append(Note(code="search.nothing_runs", params={"count": search.blocked}))
    elif not found:
        notes.append(Note(code="search.nothing_fits", params={"max_gpus": max(counts)}))
    elif not within:
        notes.append(Note(code="search.nothing_within", params={"count": len(found)}))
    return SearchOutcome(setups=chosen, rank=rank, working=len(found), configurations=configurations * len(cards),
                         skipped_by_bound=skipped * len(cards), estimates=search.estimates, notes=notes)


def _within(x: Setup, budget_usd: float | None, max_hours: float | None) -> bool:
    return (max_hours is None or x.hours <= max_hours) and (
        budget_usd is None or (x.usd is not None and x.usd <= budget_usd))


def _peak_flops(gpu: GpuSpec) -> float:
    """The highest dense tensor rate the card's spec gives (FLOP/s): no step runs faster."""
    return max(gpu.bf16_tflops, gpu.fp16_tflops, gpu.measured_bf16_tflops or 0.0) * 1e12


def _fitting_micro_batch(search: _Search, gpu: GpuSpec, capacity: float, method: str, level: int, n: int,
                         sharding: str, per_gpu: int) -> int:
    """Largest micro-batch dividing ``per_gpu`` whose likely range fits ``capacity``; 0 when none does."""
    if search.scenario.training.optimizer_in_backward:  # no accumulation: the whole share in one micro-batch
        t = search.training(method, level, n, sharding, per_gpu, 1)
        return per_gpu if search.high_bytes(t, gpu) <= capacity else 0

    def fits(mb: int) -> bool:
        t = search.training(method, level, n, sharding, mb, max(1, per_gpu // mb))
        return search.high_bytes(t, gpu) <= capacity

    best = largest_fitting(fits, min(MAX_MICRO_BATCH, per_gpu))
    return _largest_divisor_at_most(per_gpu, best) if best else 0


def _setup(search: _Search, gpu: GpuSpec, t: TrainingSetup, pricing: Pricing | None, global_batch: int,
           new_global: int) -> Setup | None:
    """The estimate of one configuration as a :class:`Setup`; ``None`` when its likely range does not fit after
    all (a GPU-dependent ledger term the shared memory totals missed), or when it cannot run as it is (a blocking
    note: the stack refuses it, ``tuneplan.core.estimate.BLOCKING_NOTES``)."""
    s = search.scenario
    result = search.run(gpu, t, pricing or s.pricing)
    mem = result.memory
    if mem.high_bytes > mem.capacity_bytes:
        return None
    if blocking_notes(result):
        search.blocked += 1
        return None
    plan = s.training
    changes = {f"training.{f}": getattr(t, f) for f in _FIELDS if getattr(t, f) != getattr(plan, f)}
    # and what the plan's stack sets differently for this method, GPU count and sharding
    changes.update({f"training.{f}": getattr(t, f) for f in TrainingSetup.model_fields
                    if f not in _FIELDS and getattr(t, f) != getattr(plan, f)})
    notes: list[Note] = []
    if new_global != global_batch:
        notes.append(Note(code="search.global_batch", params={"old": global_batch, "new": new_global,
                                                              "n": t.num_gpus}))
    priced = pricing is not None
    if not priced:
        notes.append(Note(code="search.unpriced", params={"gpu": gpu.name}))
    return Setup(
        gpu_id=gpu.id, gpu_name=gpu.name, gpu_memory_gib=gpu.memory_gib,
        num_gpus=t.num_gpus, sharding=t.sharding, method=t.method, micro_batch=t.micro_batch,
        grad_accumulation=t.grad_accumulation, grad_checkpointing=t.grad_checkpointing,
        fused_cross_entropy=t.fused_cross_entropy, optimizer=t.optimizer, grad_sync=t.grad_sync,
        changes=changes, gpu_changed=gpu != s.gpu, global_batch=new_global,
        total_gib=mem.total_bytes / GIB, high_gib=mem.high_bytes / GIB, capacity_gib=mem.capacity_bytes / GIB,
        hours=result.time.hours, hours_low=result.time.low_seconds / 3600, hours_high=result.time.high_seconds / 3600,
        usd=result.cost.total_usd if priced else None,
        usd_low=result.cost.low_usd if priced else None,
        usd_high=result.cost.high_usd if priced else None,
        price_per_gpu_hour=(pricing.price_per_gpu_hour if pricing is not None else None),
        notes=notes,
    )


#: Doubling the GPUs must save this share of the cost (rank ``cost``) or of the hours (rank ``time``) for the search
#: to try doubling again: the setup time and the collectives make the last doublings of a small run worth little.
IMPROVEMENT = {"cost": 0.01, "time": 0.10}


def _improves(here: Setup, previous: Setup, rank: str) -> bool:
    """Whether ``here`` (twice the GPUs of ``previous``) is cheaper (or faster) by :data:`IMPROVEMENT`."""
    if rank == "cost" and here.usd is not None and previous.usd is not None:
        return here.usd < previous.usd * (1 - IMPROVEMENT["cost"])
    return here.hours < previous.hours * (1 - IMPROVEMENT["time"])


def _key(x: Setup, rank: str) -> tuple[float, ...]:
    inf = float("inf")
    usd = x.usd if x.usd is not None else inf
    if rank == "time":  # to the minute: among runs as fast, the cheaper first
        return (round(x.hours * 60), usd, x.num_gpus)
    return (x.usd is None, usd, x.hours, x.num_gpus)
