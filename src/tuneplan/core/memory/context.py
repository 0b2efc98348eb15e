"""What every memory term of a plan reads, computed once: dtypes, sharding, parameter counts and token counts.

:func:`memory_context` turns ``(arch, t, gpu)`` into one frozen :class:`MemoryContext`; the terms in
``states``, ``activations``, ``peaks`` and ``allocator`` are functions over it.
"""

from __future__ import annotations

from dataclasses import dataclass

from tuneplan.core import workload as wl
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.checkpoint import CheckpointWeights
from tuneplan.core.memory.deepspeed import DeepSpeedBuffers, deepspeed_buffers
from tuneplan.core.memory.quantized import quantized_base_bytes_per_param
from tuneplan.core.scenario import GpuSpec, TrainingSetup

_DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}


def _stacked_expert_params(mods) -> int:  # noqa: ANN001 - list[LinearModule]
    return sum(m.params for m in mods if m.count > 1)


@dataclass(frozen=True)
class MemoryContext:
    """One plan as the memory terms read it (bytes per element, parameter and token counts; no tensors yet).

    Dtype sizes are bytes per element: ``w_bytes`` the weights (4 for an fp32 master model under autocast),
    ``act`` the activations, ``resid`` the residual stream between layers, ``mlp_bytes`` the MLP intermediates,
    ``unq`` what bitsandbytes leaves unquantised under QLoRA, ``nf4`` an NF4 weight with its constants.
    Counts are parameters (``total_params`` ...) or tokens per GPU per forward (``tokens``, ``logit_tokens``).
    """

    arch: ModelArchitecture
    t: TrainingSetup
    gpu: GpuSpec
    w_bytes: int
    #: an fp32 master model under bf16/fp16 autocast (not under DeepSpeed ZeRO, which is mixed precision of its own)
    amp: bool
    #: DeepSpeed ZeRO 1-3 in 16 bits without offload: a 16-bit module, an fp32 master partition in the optimizer
    ds_mixed: bool
    act: int
    n_gpus: int
    #: the sharding in effect ("none" on one GPU)
    shard: str
    ds: DeepSpeedBuffers
    #: ZeRO-1/2 with cpu_offload: DeepSpeed's offload_optimizer (ZeRO-Offload)
    zero_offload: bool
    #: autocast casts fp32 weights to bf16 (not under ZeRO-3/FSDP's bf16 layers, nor ZeRO-Offload's bf16 module)
    amp_casts: bool
    #: layers split across GPUs (Hugging Face device_map) on more than one GPU without sharding
    pipeline: bool
    total_params: float
    layer_linear: float
    #: parameters outside the layers (FSDP's root unit), with the workload's head
    outer_params: float
    #: embeddings, LM head, norms, conv kernels
    non_layer: float
    #: stacked MoE expert parameters (3-D tensors, not nn.Linear)
    stacked: float
    #: bytes per parameter of a QLoRA base's quantised layer matrices (NF4, or LLM.int8 with quant_bits 8)
    nf4: float
    #: QLoRA's fp32 upcast of what bitsandbytes leaves unquantised (never for sharded QLoRA)
    upcast: bool
    unq: int
    resid: int
    #: a pre-quantised checkpoint (its layer matrices as stored), or None
    ckpt: CheckpointWeights | None
    stored_per_param: float
    embed_params: int
    #: the largest decoder layer's linear parameters
    layer_linear_each: float
    #: one layer's weights as gathered (its largest weight matrices plus its norms), bytes
    largest_layer_bytes: float
    rows: float
    tokens: float
    logit_tokens: float
    mlp_bytes: int
    layers_here: float

    @property
    def fp32_head_cast(self) -> bool:
        """Whether autocast casts an fp32 LM head to bf16 (PEFT's QLoRA upcast, an fp32 master model)."""
        return (self.upcast and self.t.precision != "fp32") or self.amp_casts

    @property
    def gathered_layers(self) -> float:
        """Two layers gathered while computing (the one running and the prefetched next), bf16 under mixed
        precision even when the shards are an fp32 master copy, bytes."""
        return 2 * self.largest_layer_bytes * (2 / self.w_bytes if self.amp else 1)


def _layer_bytes(mods, ckpt: CheckpointWeights | None, stored_per_param: float, method: str, unq: int,  # noqa: ANN001
                 nf4: float, w_bytes: int) -> float:
    """One layer's weights as held on the GPU (bytes): as stored for a pre-quantised checkpoint, NF4 (stacked
    experts unquantised) under QLoRA, else in the weights' dtype."""
    if ckpt is not None:
        return sum(m.params for m in mods) * stored_per_param
    if method == "qlora":
        return sum(m.params * (unq if m.count > 1 else nf4) for m in mods)
    return sum(m.params for m in mods) * w_bytes


def memory_context(arch: ModelArchitecture, t: TrainingSetup, gpu: GpuSpec) -> MemoryContext:
    """The plan's :class:`MemoryContext`. Sources per line; the package docstring has the rules."""
    w_bytes = _DTYPE_BYTES[t.precision]
    # fp32 master weights: a full fine-tune with fp32 weights under autocast, or a LoRA run on an
    # fp32 base (LitGPT bf16-mixed). NF4 bases are never fp32, so QLoRA ignores the setting.
    amp = t.master_weights == "fp32" and t.precision != "fp32" and t.method != "qlora"
    # DeepSpeed ZeRO (any stage) in 16-bit is mixed precision of its own, whatever master_weights says: the engine
    # casts the whole module, adapters included, to the 16-bit dtype (engine.py _configure_distributed_model:
    # ``self.module.bfloat16()`` / ``.half()``) and the ZeRO optimizer keeps an fp32 master partition of what is
    # trained (stage_1_and_2.py ``single_partition_of_fp32_groups``, stage3.py ``fp32_partitioned_groups_flat``),
    # stepped with fp32 optimizer states. Gradients stay 16-bit (engine.py get_data_types: under ZeRO the
    # gradient-accumulation dtype is the model's). ZeRO-Offload and ZeRO-3 offload have their own paths.
    ds_mixed = t.sharding in {"zero1", "zero2", "zero3"} and t.precision != "fp32" and not t.cpu_offload
    if ds_mixed:
        amp = False
    if amp:
        w_bytes = 4  # fp32 model under autocast: weights, grads and states in fp32
    act = 2 if (t.precision != "fp32" or amp) else 4
    n_gpus = t.num_gpus
    shard = t.sharding if n_gpus > 1 else "none"
    # FSDP MixedPrecision(param_dtype=bf16) and DeepSpeed's bf16 module hand the forward bf16 layers: an fp32
    # master model under them has no autocast copies to make, and its gathered layers are bf16
    # DeepSpeed ZeRO-Offload: cpu_offload below ZeRO stage 3 is offload_optimizer only (one GPU or several); the
    # bf16 module (module.bfloat16()) stays on every GPU, the fp32 master copy goes to the CPU with the states
    zero_offload = t.cpu_offload and t.sharding in {"zero1", "zero2"}
    amp_casts = amp and shard not in {"zero3", "fsdp"} and not zero_offload
    pipeline = n_gpus > 1 and shard == "none"  # layers split across GPUs (HF device_map)

    total_params = wl.parameter_count(arch, t)  # a reward model's value head replaces the LM head
    layer_linear = arch.layer_linear_params()
    outer_params = arch.outer_params() - arch.lm_head_params() + wl.head_params(arch, t)
    non_layer = total_params - layer_linear
    # Stacked MoE experts (3-D tensors in transformers >= 5) are not nn.Linear, so bitsandbytes does not
    # quantise them (transformers integrations/bitsandbytes.py replaces nn.Linear/Conv1D only); under
    # QLoRA they are cast to fp32 with the other non-quantised parameters.
    stacked = sum(n * _stacked_expert_params(mods) for n, mods in arch.linear_modules())
    nf4 = quantized_base_bytes_per_param(arch, t)  # NF4, or LLM.int8 for an 8-bit base
    # QLoRA: bytes of each parameter bitsandbytes leaves unquantised (fp32 after PEFT's
    # prepare_model_for_kbit_training when the user keeps that upcast, else the training dtype).
    # Sharded QLoRA (FSDP / DeepSpeed ZeRO-3) never upcasts: TRL (is_sharded_qlora) and axolotl
    # (skip_prepare_model_for_kbit_training) skip the call so that every shard has one dtype
    upcast = t.method == "qlora" and t.kbit_fp32_upcast and shard not in {"zero3", "fsdp"}
    unq = 4 if upcast else w_bytes
    # fp32 embeddings (upcast QLoRA, fp32 master model under autocast) make the residual stream fp32:
    # fp32 + bf16 block outputs promote to fp32, so checkpointed layer inputs and the gradients flowing
    # between layers take 4 B per element (checked with transformers 5 under autocast)
    resid = 4 if (upcast or amp_casts or t.precision == "fp32") else 2
    # a pre-quantised checkpoint (GPTQ, AWQ, bitsandbytes, FP8...): its layer matrices stay as stored, at the bytes
    # its safetensors headers give (scales and zero points included); the rest loads in the training dtype
    ckpt = arch.checkpoint if arch.checkpoint is not None and arch.checkpoint.is_quantized else None
    stored_per_param = ckpt.quantized_bytes / ckpt.quantized_parameters if ckpt else 0.0
    # a decoder layer as FSDP gathers it: its largest weight matrices plus its norms (qk norms included)
    layer_norms = (arch.norm_params() - arch.outer_params() + arch.embedding_params() + arch.lm_head_params()) \
        / max(arch.num_layers, 1)
    largest_layer_bytes = max(_layer_bytes(mods, ckpt, stored_per_param, t.method, unq, nf4, w_bytes)
                              for _, mods in arch.linear_modules()) + layer_norms * unq
    rows = wl.policy_rows(t)  # pair workloads: chosen and rejected rows of every example
    return MemoryContext(
        arch=arch, t=t, gpu=gpu, w_bytes=w_bytes, amp=amp, ds_mixed=ds_mixed, act=act, n_gpus=n_gpus, shard=shard,
        ds=deepspeed_buffers(arch, t),  # DeepSpeed ZeRO's buffer sizes (only ZeRO plans use them)
        zero_offload=zero_offload, amp_casts=amp_casts, pipeline=pipeline,
        total_params=total_params, layer_linear=layer_linear, outer_params=outer_params, non_layer=non_layer,
        stacked=stacked, nf4=nf4, upcast=upcast, unq=unq, resid=resid, ckpt=ckpt, stored_per_param=stored_per_param,
        embed_params=arch.vocab_size * arch.hidden_size,
        layer_linear_each=max(sum(m.params for m in mods) for _, mods in arch.linear_modules()),
        largest_layer_bytes=largest_layer_bytes,
        rows=rows, tokens=rows * t.seq_len,
        logit_tokens=rows * wl.logit_positions(t),  # GRPO: the completion positions only (logits_to_keep)
        mlp_bytes=4 if upcast and t.precision != "fp32" else act,  # 4-bit layers return their fp32 input's dtype
        layers_here=arch.num_layers / n_gpus if pipeline else arch.num_layers,
    )
