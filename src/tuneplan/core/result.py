"""What an estimate returns: a memory ledger, a time breakdown and a cost breakdown.

All byte counts are per GPU. ``GIB`` = 2**30 bytes. Money is USD, time is seconds unless a name
says otherwise.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from tuneplan.core.terms import Note, Term

__all__ = [
    "GIB",
    "CostEstimate",
    "CostPoint",
    "Estimate",
    "MemoryComponent",
    "MemoryEstimate",
    "TimeEstimate",
]

GIB = 2**30


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class MemoryComponent(_Frozen):
    """One segment of the VRAM bar.

    Attributes:
        key: stable identifier (``weights``, ``adapters``, ``gradients``, ``optimizer``,
            ``activations``, ``logits``, ``temporaries``, ``allocator``, ``cuda_context``).
        label: short human label.
        bytes: per-GPU bytes of this component at the step's peak.
        formula: the formula with the scenario's values filled in.
        source: where the formula comes from (paper, library source, measurement).
        terms: the named parts the formula is rendered from (:class:`~tuneplan.core.terms.Term` s in bytes, each with
            its quantities and sources); empty where the formula is still text (the SFT ledger).
    """

    key: str
    label: str
    bytes: float
    formula: str = ""
    source: str = ""
    terms: list[Term] = []

    @property
    def gib(self) -> float:
        """The component in GiB."""
        return self.bytes / GIB


class MemoryEstimate(_Frozen):
    """Per-GPU memory at the training step's peak.

    Three numbers, as a user meets them:

    * ``peak_allocated_bytes``: ``torch.cuda.max_memory_allocated()`` (live tensors).
    * ``peak_reserved_bytes``: ``torch.cuda.max_memory_reserved()`` on the plan's GPU (the caching
      allocator's segments: allocated plus fragmentation, plus ``cache_bytes``).
    * ``total_bytes``: what the GPU must hold: the reserved memory the allocator cannot give back, plus
      the CUDA context and NCCL buffers (the cuBLAS workspace is already inside reserved). It is what
      nvidia-smi shows when no cache is kept. The verdict uses this one, because it is what runs out.

    ``cache_bytes``: with dynamic padding, the cached blocks of earlier, shorter batches that a card with
    room keeps next to the live ones (later, longer batches cannot reuse them); ``max_memory_reserved`` and
    nvidia-smi show them, up to the card's size, but the allocator releases them and retries before it
    reports out of memory, so they are not in ``total_bytes`` (docs/validation-allocator.md).

    ``paged_bytes`` are paged optimizer states (bitsandbytes paged AdamW) in CUDA unified memory:
    nvidia-smi shows them while the GPU has room, but on Linux the driver moves them to host RAM when it
    does not, so they are not in ``total_bytes`` and cannot make a run fail there (QLoRA arXiv:2305.14314
    §3). Windows and WSL2 cannot oversubscribe managed memory (CUDA programming guide, unified memory on
    Windows): there they must fit as well, which a warning says when they do not.

    ``low_bytes``/``high_bytes`` bound ``total_bytes`` by the measured error of the estimator on published
    runs whose figure the device total models (``tuneplan.core.memory.MEASURED_ERROR``, the same for every
    sequence mode; docs/accuracy.md): ``total/1.161 .. total/0.597``.

    ``batch_tokens``: tokens of the micro-batch the step is sized by, every row (pairs' chosen and rejected rows)
    included. ``batch_term``: for padding-free batches, how the largest flattened row was found
    (:func:`tuneplan.core.lengths.padding_free_peak`); None in other modes.
    """

    components: list[MemoryComponent]
    peak_allocated_bytes: float
    peak_reserved_bytes: float
    total_bytes: float
    capacity_bytes: float
    low_bytes: float
    high_bytes: float
    peak_phase: str = "backward"
    paged_bytes: float = 0.0
    cache_bytes: float = 0.0
    batch_tokens: float = 0.0
    batch_term: Term | None = None

    @property
    def fits(self) -> bool:
        """Whether ``total_bytes`` fits in the GPU's capacity."""
        return self.total_bytes <= self.capacity_bytes

    @property
    def headroom_bytes(self) -> float:
        """Capacity minus total; negative when it does not fit."""
        return self.capacity_bytes - self.total_bytes

    @property
    def band_risk(self) -> str:
        """How the likely range sits against the capacity: ``"none"`` (the whole range agrees with the
        verdict), ``"tight"`` (the estimate fits, the upper end of the range does not), ``"unlikely"`` (the
        estimate fits, not even the lower end does) or ``"possible"`` (the estimate does not fit, the lower
        end of the range does)."""
        cap = self.capacity_bytes
        if not self.fits:
            return "possible" if self.low_bytes <= cap else "none"
        if self.high_bytes <= cap:
            return "none"
        return "unlikely" if self.low_bytes > cap else "tight"

    def component(self, key: str) -> MemoryComponent | None:
        """The component with this key, or None."""
        return next((c for c in self.components if c.key == key), None)

    def verdict(self) -> str:
        """A one-line verdict such as ``fits, 3.1 GiB spare`` or ``short by 7.4 GiB``."""
        spare = self.headroom_bytes / GIB
        if spare >= 0:
            return f"fits, {spare:.1f} GiB spare"
        return f"short by {-spare:.1f} GiB"


class TimeEstimate(_Frozen):
    """Wall-clock time of one run.

    Attributes:
        tokens_total: tokens computed over all epochs (padding included), all GPUs together.
        flops_per_token: model FLOPs per trained token (6N+attention for full, 4N+attention for LoRA).
        mfu: achieved model FLOPs utilisation against the spec peak (0-1), an output of the step model.
        tokens_per_second: training throughput per GPU; ``tokens_per_second_low``/``_high`` its likely range.
        step_seconds: seconds of one optimizer step on one GPU; ``step_terms`` its seven parts (``matmul``,
            ``attention``, ``other_kernels``, ``optimizer``, ``communication``, ``offload``, ``fixed``), and an eighth,
            ``reference``, for DPO/KTO's forward passes without gradients (``core/workload.py``), each a
            :class:`~tuneplan.core.terms.Term` in seconds per step with its parts, adding up to ``step_seconds``.
        tokens_per_step: tokens one GPU computes per optimizer step (pair workloads: chosen and rejected rows).
        phases: seconds per phase (``setup``, ``training``, ``evaluation``, ``checkpoints``; ``reference_logps``, before
            training, when a DPO/KTO reference's log-probs are precomputed).
        seconds: the sum of the phases; ``low_seconds``/``high_seconds`` the likely range (the training phase
            scaled by the measured error of the step model, ``tuneplan.core.throughput.MEASURED_TIME_ERROR``, or
            by a pilot run's spread when calibrated).
        steps: optimizer steps.
        bound: what limits the step: ``compute``, ``memory``, ``overhead`` (host), ``communication``, ``offload``.
        link: the collective link of a multi-GPU plan (``nvlink``, ``pcie``, ``pcie-host``, ``infiniband``), or "".
        calibrated: whether a pilot run's calibration was applied.
        messages: coded notes (:class:`~tuneplan.core.terms.Note`); ``notes`` the same in English.
        checkpoint_saves: checkpoints written during the run (one per interval, at least the count).
        checkpoint_writers: ranks writing each checkpoint in parallel (sharded states), else 1.
        eval_terms: the evaluation phase's own terms: ``eval_generation`` (seconds of one evaluation micro-batch's
            ``generate``, ``core/generation.py``) when the evaluation generates, else empty.
    """

    tokens_total: float
    flops_per_token: float
    mfu: float
    tokens_per_second: float
    phases: dict[str, float]
    seconds: float
    steps: float
    tokens_per_second_low: float = 0.0
    tokens_per_second_high: float = 0.0
    step_seconds: float = 0.0
    tokens_per_step: float = 0.0
    step_terms: list[Term] = []
    low_seconds: float = 0.0
    high_seconds: float = 0.0
    bound: str = "compute"
    link: str = ""
    calibrated: bool = False
    messages: list[Note] = []
    notes: list[str] = []
    checkpoint_saves: int = 0
    checkpoint_writers: int = 1
    eval_terms: list[Term] = []

    @property
    def hours(self) -> float:
        """``seconds`` in hours."""
        return self.seconds / 3600.0

    def term(self, key: str) -> Term | None:
        """The step term with this key, or None."""
        return next((term for term in self.step_terms if term.key == key), None)


class CostPoint(_Frozen):
    """A point of the cumulative cost curve: USD spent after ``hours`` of wall clock, in ``phase``."""

    hours: float
    usd: float
    phase: str


class CostEstimate(_Frozen):
    """Money for one completed run, following total = GPU time + storage + data transfer + other.

    Attributes:
        gpu_usd: price per GPU-hour x GPUs x billed hours.
        billed_hours: wall-clock hours rounded up by the billing granularity.
        storage_usd, egress_usd, other_usd: the other lines.
        total_usd: expected cost of one completed run (interruptions included).
        pessimistic_usd: cost when interruptions hit at the worst moment (full checkpoint interval lost).
        curve: cumulative USD over wall-clock hours for the chart.
        breakdown: named lines (USD) for tables and exports.
        low_usd, high_usd: ``total_usd`` of the run at the time estimate's likely range (``TimeEstimate.low_seconds``
            .. ``high_seconds``): the same plan finishing faster or slower.
        billing: ``rent`` (GPU-hours at a provider's price) or ``electricity`` (the user's own GPUs,
            ``Pricing.own_gpu``: ``gpu_usd`` is then the GPUs' electricity, ``billed_hours`` the wall-clock hours).
        kwh: energy of one completed run (kWh), GPUs and the rest of the machine; 0 when rented.
        terms: the electricity lines as :class:`~tuneplan.core.terms.Term` s in USD (``electricity_gpus``,
            ``electricity_host``) with their parts (W, count, h, kWh, USD/kWh); empty when rented.
        messages: coded cost notes (``cost.*`` in ``tuneplan.core.terms.NOTES``).
        rental_usd: for own GPUs, the same run rented at the plan's rental price (``Pricing.price_per_gpu_hour``,
            its billing, storage and egress), USD; ``None`` when rented.
    """

    gpu_usd: float
    billed_hours: float
    storage_usd: float
    egress_usd: float
    other_usd: float
    interruption_usd: float
    total_usd: float
    pessimistic_usd: float
    curve: list[CostPoint]
    breakdown: dict[str, float]
    notes: list[str] = []
    low_usd: float = 0.0
    high_usd: float = 0.0
    billing: str = "rent"
    kwh: float = 0.0
    terms: list[Term] = []
    messages: list[Note] = []
    rental_usd: float | None = None


class Estimate(_Frozen):
    """Everything Tuneplan computes for one scenario on its GPU.

    ``messages`` are the plan's warnings as coded notes (:class:`~tuneplan.core.terms.Note`, templates in
    ``tuneplan.core.terms.NOTES``); ``warnings`` the same in English, for the CLI and scripts.
    """

    memory: MemoryEstimate
    time: TimeEstimate
    cost: CostEstimate
    parameters: int
    trainable_parameters: int
    warnings: list[str] = []
    messages: list[Note] = []
