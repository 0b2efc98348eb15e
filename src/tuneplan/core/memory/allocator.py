"""What the CUDA caching allocator and the driver add to the live tensors: the CUDA context, the cuBLAS
workspace, fragmentation, the cache of earlier batch shapes, and the band of the estimator's measured error."""

from __future__ import annotations

from tuneplan.core import workload as wl
from tuneplan.core.memory.context import MemoryContext
from tuneplan.core.result import GIB

MIB = 2**20

#: CUDA context, kernels and library handles that nvidia-smi shows and PyTorch does not count.
#: Measured 0.4-0.6 GiB on Ampere/Hopper with CUDA 12 lazy module loading; 500 MiB is the
#: midpoint used by gpu_poor ("around 500 MB-1 GB is taken by CUDA") and within Smirnov's
#: "300 MiB to 2 GiB" range (reference survey B7).
CUDA_CONTEXT_BYTES = 500 * MIB

#: Share of the step's transient memory (activations, loss buffers, temporaries) that the caching
#: allocator holds as reserved-but-unallocated blocks the run cannot give back: blocks split for smaller
#: requests inside segments that are still partly in use. Replaying allocation traces of real training
#: steps (fake tensors, Qwen-7B dimensions, LoRA and full, with and without checkpointing) through a model of
#: ``CUDACachingAllocator`` (``tools/validate/alloc_sim.py``, docs/validation-allocator.md), the smallest card
#: the steps complete on needs 0.04-0.21x with the same shapes every step; with dynamic padding LoRA needs
#: 0.03-0.24x (median 0.11) and four-layer full fine-tuning 0.01-1.21x (median 0.21; the outliers, ~1.2 GiB
#: at 512 tokens, do not grow with depth: 0.03-0.16x at sixteen layers), because the allocator frees its
#: cached segments and retries before failing. 0.15 is about the median in every mode, not a bound (14 of 30
#: four-layer cases need more). GMLake (Guo et al., ASPLOS 2024) measures 10-30% fragmentation in LLM
#: fine-tuning.
ALLOCATOR_FRAGMENTATION = {"fixed": 0.15, "packed": 0.15, "dynamic": 0.15, "padding-free": 0.15}

#: Cache of earlier batch shapes, as a share of the transient memory, that ``max_memory_reserved`` shows with
#: dynamic padding on a card with room to spare beyond what must fit, by method. A batch longer than those
#: before it cannot reuse their cached blocks (best fit, split blocks) and gets new segments, while the old
#: ones stay cached until memory runs short. In the allocator replays (docs/validation-allocator.md) LoRA
#: runs keep 0.74-1.81x (median 1.34x; 1.32x at sixteen layers on every linear layer), growing with the run;
#: 1.0 (one stale set of the longest batch's tensors) is below the median of what a dozen steps leave. QLoRA is
#: taken to behave as LoRA (same frozen-base mechanism; bitsandbytes layers cannot be replayed on fake tensors). Full fine-tuning keeps 0.00-0.31x
#: (median 0.05x): the gradients freed at every optimizer step hand the next batches large blocks to split,
#: so none is counted. Lengths that mostly reach the cut (ms-swift's dataset cut at 2,048 tokens) keep none
#: either, and runs that put the longest batch first (LitGPT) keep little (0.00-0.36x); Tuneplan cannot see
#: either. The cache is
#: released before an out-of-memory error, so it is reported but not part of what must fit.
DYNAMIC_SHAPE_CACHE = {"full": 0.0, "lora": 1.0, "qlora": 1.0}

#: cuBLAS workspace PyTorch allocates through its caching allocator per handle/stream
#: (``CUBLAS_WORKSPACE_CONFIG`` default ``:4096:8`` = 8 x 4 MiB, Hopper 32 MiB; torch ``CublasHandlePool``).
CUBLAS_WORKSPACE_BYTES = 32 * MIB


#: Signed error of the estimate against published measurements, ``predicted/measured - 1``, at the 10th and
#: 90th percentile over the usable rows of the reference measurements (docs/accuracy.md) whose figure is one
#: the device total models: every packed or fixed-length run (41 rows, any metric) and the dynamic-padding runs
#: that report live tensors (``max_memory_allocated``/active, 26 rows), each row estimated with its own
#: sequence handling. Dynamic-padding runs that report ``max_memory_reserved`` or an unnamed metric (90 rows) are left
#: out: on a roomy card their figure includes the cache of earlier batch shapes, which the allocator gives
#: back before it fails (docs/validation-allocator.md) and the device total leaves out, in an amount that
#: depends on how long the run went. The band shown on the VRAM bar is ``total/(1+p90) .. total/(1+p10)``:
#: where what must fit is likely to fall, given how the estimator has erred on real runs.
#: ``tests/unit/test_accuracy_band.py`` keeps these equal to the table.
MEASURED_ERROR: tuple[float, float] = (-0.403, 0.161)

#: :data:`MEASURED_ERROR` per sequence mode (the same for every mode: the device total's model does not depend
#: on it; until session 14 the dynamic-padding band came from the cache-inclusive reserved rows).
MEASURED_ERROR_BY_MODE: dict[str, tuple[float, float]] = {
    "packed": MEASURED_ERROR,
    "fixed": MEASURED_ERROR,
    "dynamic": MEASURED_ERROR,
    "padding-free": MEASURED_ERROR,
}



def likely_range(total_bytes: float, sequence_mode: str) -> tuple[float, float]:
    """``(low, high)`` bytes: where a device total estimated at ``total_bytes`` is likely to fall, given the
    estimator's measured error on real runs (:data:`MEASURED_ERROR_BY_MODE`, the same for every mode):
    ``total/(1 + p90) .. total/(1 + p10)``. Raises ``KeyError`` for an unknown mode."""
    p10, p90 = MEASURED_ERROR_BY_MODE[sequence_mode]
    return total_bytes / (1 + p90), total_bytes / (1 + p10)


def nccl_bytes(ctx: MemoryContext) -> float:
    """NCCL communicator buffers on a GPU that talks to others (bytes): none on one GPU or split layers."""
    return 256 * MIB if ctx.n_gpus > 1 and not ctx.pipeline else 0.0


def transient_bytes(ctx: MemoryContext, activations: float, logits: float, temporaries: float,
                    forward_logits: float, reference_transient: float) -> float:
    """The step's transient memory the allocator fragments (bytes): activations, loss buffers and temporaries, each
    at its largest (a workload's loss side at the larger of its backward and its forward's end, with the reference
    forward's transients)."""
    if not wl.causal_lm(ctx.t):
        return activations + max(logits, forward_logits) + temporaries + reference_transient
    return activations + logits + temporaries


def reserved_bytes(allocated: dict[str, float], phase: str, fragmentation: float) -> float:
    """``max_memory_reserved`` at the step's peak (bytes). Reserved memory never shrinks within a run: the backward
    leaves its fragmented cache behind, and the optimizer step's temporaries can reuse those cached blocks. A
    ``model loading`` moment counts as allocated."""
    backward_alloc = max(v for k, v in allocated.items() if k not in {"optimizer step", "model loading"})
    # a model loading as a whole (peaks.loading_moment) is a few large blocks, before any step: not fragmented
    return max(backward_alloc + fragmentation, allocated["optimizer step"], allocated[phase])


def shape_cache_bytes(ctx: MemoryContext, reserved: float, transient: float, nccl: float) -> float:
    """With dynamic padding, the cached blocks of earlier batch shapes ``max_memory_reserved`` also shows, as far as
    the card has room for them (:data:`DYNAMIC_SHAPE_CACHE` x the transient memory, bytes); they are given back
    before an out-of-memory error, so they are not in the device total. None when the trainer empties the cache every
    step (``empty_cache_steps`` 1). Padding-free batches change their one row's length every step as well, so they
    leave the same cache."""
    if ctx.t.sequence_mode not in {"dynamic", "padding-free"} or ctx.t.empty_cache_steps == 1:
        return 0.0  # (emptied every step: no blocks of earlier shapes stay cached)
    room = ctx.gpu.memory_gib * GIB - CUDA_CONTEXT_BYTES - nccl - reserved
    return max(0.0, min(DYNAMIC_SHAPE_CACHE[ctx.t.method] * transient, room))
