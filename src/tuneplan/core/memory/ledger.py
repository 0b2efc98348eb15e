"""The per-GPU ledger of one training step: every component at the step's peak moment."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tuneplan.core import workload as wl
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.lengths import padding_free_peak
from tuneplan.core.memory.activations import layer_temporaries, loss_side, step_activations
from tuneplan.core.memory.allocator import (
    ALLOCATOR_FRAGMENTATION,
    CUBLAS_WORKSPACE_BYTES,
    CUDA_CONTEXT_BYTES,
    likely_range,
    nccl_bytes,
    reserved_bytes,
    shape_cache_bytes,
    transient_bytes,
)
from tuneplan.core.memory.context import MemoryContext, memory_context
from tuneplan.core.memory.peaks import Moments, moments, peak
from tuneplan.core.memory.states import model_states
from tuneplan.core.memory.workloads import _workload_components
from tuneplan.core.result import GIB, MemoryComponent, MemoryEstimate
from tuneplan.core.scenario import Dataset, GpuSpec, TrainingSetup
from tuneplan.core.terms import Term, render_formula


@dataclass
class MemoryLedger:
    """Intermediate quantities of the memory estimate, all in bytes per GPU (for tests and advice)."""

    weights: float = 0.0
    adapters: float = 0.0
    gradients: float = 0.0
    optimizer: float = 0.0
    optimizer_paged: float = 0.0
    activations: float = 0.0
    logits: float = 0.0
    temporaries: float = 0.0
    step_temporaries: float = 0.0
    trainable_params: int = 0
    activation_per_layer_token: float = 0.0
    checkpoint_per_layer_token: float = 0.0
    merged_expert_bytes: float = 0.0
    #: bf16 autocast copies of one layer's LoRA adapters (bytes), held in autocast's cache until the
    #: forward ends and recreated when checkpointing recomputes the layer
    adapter_cast_per_layer: float = 0.0
    #: with checkpointing, the other layers' adapter copies still in autocast's cache at the end of the
    #: forward (bytes): ``adapter_cast_per_layer`` x (layers - 1)
    forward_cache: float = 0.0
    #: with checkpointing, what a layer's recomputed forward holds beyond its saved tensors, in bytes per
    #: token: LoRA's input copies at its widest adapted linear, or a MoE layer's expert-block locals
    recompute_transient_per_token: float = 0.0
    #: gradients kept from earlier micro-batches while a later one runs its backward (0 without
    #: accumulation; unsharded under FSDP ``no_sync``)
    gradients_kept: float = 0.0
    #: FSDP's root unit (embeddings, final norm, LM head) held unsharded through the step, beside its shard
    fsdp_root_bytes: float = 0.0
    #: a trained FSDP root unit's gradients: the LM head's while the layers run backward, and the embedding's and
    #: LM head's with their flat copy before the root's reduce-scatter at the end of the backward
    fsdp_root_grad_wait: float = 0.0
    fsdp_root_grad_end: float = 0.0
    #: DPO/KTO (core/workload.py): a frozen reference copy's weights on this GPU, and the reference forward's largest
    #: transient at the end of the forward (one no-grad layer's working set or its logits), bytes
    reference_weights: float = 0.0
    reference_transient: float = 0.0
    formulas: dict[str, str] = field(default_factory=dict)



#: Layer-backward moments, where the FSDP unit's and the root unit's waiting gradients are counted.
_LAYER_BACKWARD = frozenset({"recomputed layer", "last layer backward"})


def _gradient_extras(m: Moments, phase: str) -> str:
    """What the gradients hold at ``phase`` beyond the states' formula: the FSDP unit's unsharded gradient and the
    root unit's gradients (:func:`~tuneplan.core.memory.states.fsdp_unit_gradient`, ``root_unit_gradients``)."""
    unit = (f" + the FSDP unit's unsharded gradient as its layer's backward ends, twice (per weight "
            f"and flattened for the reduce-scatter), beyond the saved tensors it replaces: "
            f"{m.unit_extra / GIB:.2f} GiB" if m.unit_extra and phase in _LAYER_BACKWARD else "")
    if m.root_wait and phase in _LAYER_BACKWARD:
        return unit + f" + the root unit's LM-head gradient waiting for the embedding's ({m.root_wait / GIB:.2f} GiB)"
    if m.root_end and phase == "end of backward":
        return unit + (f" + the root unit's embedding and LM-head gradients with their flat copy before the "
                       f"reduce-scatter ({m.root_end / GIB:.2f} GiB)")
    return unit


def _activations_lead(phase: str, checkpointing: bool) -> str:
    """How much of the activations' ledger is alive at ``phase`` (as :func:`~tuneplan.core.memory.peaks.moments`
    counts it), said before the ledger's formula."""
    return {"end of backward": "at the end of backward only the first layer's saved tensors are left; at the start: ",
            "backward": ("at the loss's backward the ledger less its recomputed layer, which comes later: "
                         if checkpointing else ""),
            "end of forward": ("at the end of the forward the ledger less its recomputed layer, which comes later: "
                               if checkpointing else ""),
            "recomputed layer": "the ledger less the final norm's and LM head's saved inputs, freed by their backward: ",
            "last layer backward": "the ledger less the final norm's and LM head's saved inputs, freed by their "
                                   "backward: ",
            "optimizer step": "freed before the optimizer step; during backward: ",
            "embedding backward": "freed before the embedding's backward; during backward: "}.get(phase, "")


#: The components' formulas when an evaluation pass sets the peak (its own terms render the activations or logits).
_EVALUATION_FORMULAS = {
    "gradients": "none: set to None by the optimizer step's zero_grad before the evaluation runs",
    "activations": "the evaluation micro-batch's final hidden state (no tensor is saved without grad)",
    "logits": "nothing at this moment",
}


def _temporaries_formula(phase: str, step_temp: float) -> str:
    """What the temporaries are at ``phase`` (:func:`~tuneplan.core.memory.activations.layer_temporaries`,
    the optimizer step's temporary, a tied embedding's backward)."""
    if phase == "optimizer step" and step_temp:
        return "AdamW's foreach step temporary (one state-sized buffer, _foreach_sqrt) + cuBLAS workspace"
    if phase == "embedding backward":
        return "the tied embedding's gradient contributions while autograd adds them (vocab x hidden each) + cuBLAS workspace"
    if phase in {"evaluation", "evaluation generation"}:
        return "cuBLAS workspace (a no-grad forward has no gradient buffers)"
    if phase == "model loading":
        return "cuBLAS workspace (nothing has run yet)"
    return "gradient buffers between layers, dequantised matrix, cuBLAS workspace"


def _loading_component(c: MemoryComponent, whole: float, ctx: MemoryContext) -> MemoryComponent:
    """A component as it stands when loading the model sets the peak (``peaks.loading_moment``): the weights are the
    whole model on this GPU, nothing else exists yet but the adapters and the cuBLAS workspace."""
    if c.key == "weights":
        why = ("a quantised base is never built under zero.Init (transformers get_init_context)"
               if ctx.t.method == "qlora" or ctx.ckpt is not None else "the model is not built under zero.Init")
        return c.model_copy(update={"formula": f"the whole model on every GPU before DeepSpeed ZeRO-3 partitions it "
                                               f"({whole / GIB:.2f} GiB as loaded): {why}",
                                    "source": "DeepSpeed engine.py _configure_distributed_model (module.to(device) "
                                              "unless the parameters are ZeRO-3 ones)", "terms": []})
    if c.key in {"gradients", "optimizer", "activations", "logits"}:
        return c.model_copy(update={"formula": "not allocated yet while the model loads", "terms": []})
    return c


def _evaluation_component(c: MemoryComponent, terms: list[Term], live: dict[str, float]) -> MemoryComponent:
    """A component as it stands when an evaluation pass sets the peak: the gradients, activations and logits take
    :data:`_EVALUATION_FORMULAS`, or the evaluation's own term where it is theirs (``eval_layer``, ``eval_logits``);
    gradient memory that stays (DDP's buckets, DeepSpeed's reduce bucket) is said as such."""
    if c.key == "gradients" and live.get("gradients", 0.0) > 0:
        return c.model_copy(update={"formula": "the .grad tensors were set to None by the optimizer step's zero_grad; "
                                               "what stays is the data-parallel engine's own gradient buffer (DDP's "
                                               "flat buckets, DeepSpeed's reduce bucket)", "terms": []})
    own = {"activations": {"eval_layer", "eval_prefill"}, "logits": {"eval_logits", "eval_next_logits"}}.get(c.key, set())
    mine = [x for x in terms if x.key in own]
    if mine:
        return c.model_copy(update={"formula": " + ".join(render_formula(x) for x in mine), "terms": mine,
                                    "source": mine[0].source})
    if c.key in _EVALUATION_FORMULAS:
        return c.model_copy(update={"formula": _EVALUATION_FORMULAS[c.key], "terms": []})
    return c


def memory_rows(t: TrainingSetup, data: Dataset | None) -> tuple[TrainingSetup, Term | None]:
    """The setup whose rows the memory model sizes, and the padding-free batch term (None in other modes).

    Padding-free batches (``t.sequence_mode == "padding-free"``) hold one flattened row of the summed example
    lengths; every term of the step is linear in its tokens (flash attention's varlen kernel keeps per-token
    statistics only, and the mode needs it), so ``micro_batch`` rows of ``ceil(peak / micro_batch)`` tokens hold
    the same bytes as that row, with ``peak`` from :func:`tuneplan.core.lengths.padding_free_peak`. Without
    FlashAttention (SDPA, eager) the row is attended as one sequence: one row of ``peak`` tokens.
    """
    if t.sequence_mode != "padding-free" or t.micro_batch == 1 or not wl.causal_lm(t):
        return t, None  # (the preference and RL trainers pad every batch: core/workload.py)
    term = padding_free_peak(t, data)
    if t.attention != "flash":
        # without FlashAttention's varlen kernel the flattened row is attended as one sequence (TRL warns; eager's
        # scores and SDPA's mask grow with its square): one row of the whole sum
        return t.model_copy(update={"micro_batch": 1, "seq_len": max(1, math.ceil(term.value - 1e-9))}), term
    rows = max(1, min(t.seq_len, math.ceil(term.value / t.micro_batch - 1e-9)))
    return (t if rows == t.seq_len else t.model_copy(update={"seq_len": rows})), term


def estimate_memory(arch: ModelArchitecture, t: TrainingSetup, gpu: GpuSpec,
                    data: Dataset | None = None) -> tuple[MemoryEstimate, MemoryLedger]:
    """Per-GPU memory of one training step of ``arch`` with setup ``t`` on ``gpu``.

    ``data`` (the plan's dataset) sizes padding-free batches by the largest sum of example lengths the run draws
    (:func:`memory_rows`); without it, or without a known length spread, they are sized at ``micro_batch x
    seq_len``. Other modes do not read it.

    Returns:
        ``(estimate, ledger)``: the user-facing :class:`MemoryEstimate` (components in bytes,
        peak allocated/reserved/total, capacity) and the intermediate :class:`MemoryLedger`.

    Formulas and sources are in the package docstring and beside each term (``states``, ``activations``,
    ``peaks``, ``allocator``); each component's ``formula`` shows the numbers of this scenario.
    """
    t, batch_term = memory_rows(t, data)
    ctx = memory_context(arch, t, gpu)
    s = model_states(ctx)
    a = step_activations(ctx, s.trainable.lora_params)
    loss = loss_side(ctx)
    base_temps, temporaries = layer_temporaries(ctx)
    m = moments(ctx, s, a, loss, base_temps, temporaries)
    allocated, phase = peak(s, m.candidates)
    candidates, live = m.candidates, m.candidates[phase]
    peak_allocated = allocated[phase]
    transient = transient_bytes(ctx, a.bytes, loss.bytes, temporaries,
                                candidates.get("end of forward", {}).get("logits", 0.0), m.ref_fwd)
    frag_share = ALLOCATOR_FRAGMENTATION[t.sequence_mode]
    reserved = reserved_bytes(allocated, phase, frag_share * transient)
    nccl = nccl_bytes(ctx)
    cache = shape_cache_bytes(ctx, reserved, transient, nccl)
    # Paged optimizer states live in CUDA unified memory (cudaMallocManaged): the driver migrates their
    # pages to host RAM when device allocations need the room, so they never cause an out-of-memory
    # error and are not part of what the GPU must hold (QLoRA arXiv:2305.14314 §3 "Paged Optimizers";
    # bitsandbytes GlobalPageManager). They are reported next to the total, not in it.
    total = reserved + CUDA_CONTEXT_BYTES + nccl
    capacity = gpu.memory_gib * GIB

    weights_formula = s.weights_formula
    if phase == "end of forward" and s.forward_casts:  # counted in the weights at this moment (peaks.moments)
        weights_formula += " + bf16 autocast copies of the other layers' weights, cached until the forward ends"
    if phase == "end of forward" and a.forward_cache:
        weights_formula += " + bf16 autocast copies of the LoRA adapters, cached until the forward ends"
    formulas = {"weights": weights_formula}
    if s.adapters_formula is not None:
        formulas["adapters"] = s.adapters_formula
    formulas.update({"optimizer": s.optimizer_formula, "gradients": m.gradients_formula,
                     "activations": a.formula, "logits": loss.formula})
    led = MemoryLedger(
        weights=s.weights, adapters=s.adapters, gradients=s.gradients, optimizer=s.optimizer,
        optimizer_paged=s.paged, activations=a.bytes, logits=loss.bytes, temporaries=temporaries,
        step_temporaries=s.step_temp, trainable_params=s.trainable.trainable,
        activation_per_layer_token=a.per_layer_token, checkpoint_per_layer_token=a.checkpoint_token,
        merged_expert_bytes=a.merged_one, adapter_cast_per_layer=a.adapter_cast_per_layer,
        forward_cache=a.forward_cache, recompute_transient_per_token=a.recompute_transient_per_token,
        gradients_kept=m.grads_kept, fsdp_root_bytes=s.fsdp_root_bytes, fsdp_root_grad_wait=m.root_wait,
        fsdp_root_grad_end=m.root_end, reference_weights=m.ref_weights, reference_transient=m.ref_fwd,
        formulas=formulas)
    weights, adapters, paged, step_temp = s.weights, s.adapters, s.paged, s.step_temp
    shard = ctx.shard
    logit_terms, fwd_logit_terms, ref_terms, gen_terms = m.logit_terms, m.fwd_logit_terms, m.ref_terms, m.gen_terms

    comps = [
        MemoryComponent(key="weights", label="Weights", bytes=weights + live["gathered"], formula=led.formulas["weights"],
                        source="parameter count from config.json x bytes per parameter; NF4: QLoRA arXiv:2305.14314"),
        MemoryComponent(key="adapters", label="LoRA adapters", bytes=adapters, formula=led.formulas.get("adapters", ""),
                        source="LoRA arXiv:2106.09685; PEFT LoraLayer"),
        MemoryComponent(key="gradients", label="Gradients", bytes=live["gradients"],
                        formula=led.formulas["gradients"] + _gradient_extras(m, phase),
                        source="one gradient per trainable parameter in its dtype"
                        + ("; FSDP: no_sync, root-unit and frozen-parameter notes in the FullyShardedDataParallel "
                           "and fully_shard docstrings" if shard == "fsdp" else "")),
        MemoryComponent(key="optimizer", label="Optimizer states", bytes=live["optimizer"],
                        formula=led.formulas["optimizer"]
                        + (f" in unified memory ({paged / GIB:.2f} GiB, paged to CPU RAM when the GPU is full)" if paged else ""),
                        source="torch.optim.AdamW; bitsandbytes 8-bit optimizers arXiv:2110.02861"),
        MemoryComponent(key="activations", label="Activations", bytes=live["activations"],
                        formula=_activations_lead(phase, t.grad_checkpointing) + led.formulas["activations"],
                        source="saved tensors of the HF decoder layer; Korthikanti et al. arXiv:2205.05198"),
        MemoryComponent(key="logits", label="Logits & loss", bytes=live["logits"], formula=led.formulas["logits"],
                        source="transformers ForCausalLMLoss; Liger/CCE arXiv:2411.09009"),
        MemoryComponent(key="temporaries", label="Temporaries", bytes=live["temporaries"] + CUBLAS_WORKSPACE_BYTES,
                        formula=_temporaries_formula(phase, step_temp),
                        source="PyTorch autograd; bitsandbytes dequantize_4bit"),
        MemoryComponent(key="allocator", label="Allocator overhead", bytes=reserved - peak_allocated,
                        formula=f"{frag_share:.0%} of the step's transient memory, activations, loss buffers and "
                                f"temporaries each at its largest ({transient / GIB:.2f} GiB): blocks split inside "
                                "segments still in use",
                        source="PyTorch CUDACachingAllocator replayed on training-step traces (docs/validation-allocator.md); "
                               "GMLake (ASPLOS 2024)"),
        MemoryComponent(key="cuda_context", label="CUDA context", bytes=CUDA_CONTEXT_BYTES + nccl,
                        formula="CUDA context and library kernels" + (" + NCCL buffers" if nccl else ""),
                        source="CUDA context + kernels: ~0.5 GiB (gpu_poor README: 0.5-1 GB; Smirnov's calculator: 0.3-2 GiB)"),
    ]
    if not wl.causal_lm(t):
        comps = _workload_components(t, comps, phase, live, logit_terms, fwd_logit_terms, ref_terms)
    if phase == "evaluation":
        comps = [_evaluation_component(c, m.eval_terms, live) for c in comps]
    if phase == "evaluation generation":
        comps = [_evaluation_component(c, m.eval_gen_terms, live) for c in comps]
    if phase == "model loading":
        comps = [_loading_component(c, s.model_weight_bytes, ctx) for c in comps]
    if gen_terms:
        comps.insert(next(i for i, c in enumerate(comps) if c.key == "allocator"), MemoryComponent(
            key="generation", label="Generation", bytes=live.get("generation", 0.0),
            formula=" + ".join(render_formula(term) for term in gen_terms.get(phase, [])) or
            "nothing of the generation at this moment",
            source=f"{wl.TRL} trl/generation/vllm_generation.py, GRPOTrainer; vLLM gpu_memory_utilization"
            if t.workload == "grpo" else "transformers generation/utils.py, cache_utils.py DynamicCache",
            terms=gen_terms.get(phase, [])))
    # a colocated vLLM engine's share is a fixed allocation (gpu_memory_utilization x the card), not an estimate:
    # the measured error band applies to the rest
    fixed = live.get("generation", 0.0) if t.workload == "grpo" and t.generation_engine == "vllm-colocate" else 0.0
    low, high = likely_range(total - fixed, t.sequence_mode)
    if phase == "model loading":  # the whole model as stored: bytes the checkpoint has, not an estimate's error
        low = high = total - fixed
    low, high = low + fixed, high + fixed
    est = MemoryEstimate(
        components=comps,
        peak_allocated_bytes=peak_allocated,
        peak_reserved_bytes=reserved + cache,
        cache_bytes=cache,
        total_bytes=total,
        capacity_bytes=capacity,
        low_bytes=low,
        high_bytes=high,
        peak_phase=phase,
        paged_bytes=paged,
        batch_tokens=ctx.tokens,
        batch_term=batch_term,
    )
    return est, led
