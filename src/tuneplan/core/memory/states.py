"""Model states on one GPU: weights, LoRA adapters, gradients and optimizer states, then how sharding, DeepSpeed's
master partition and CPU offload move them (see the package docstring for the rules and sources).

Each term is a function over the plan's :class:`~tuneplan.core.memory.context.MemoryContext` that returns its bytes
with the formula text of the same numbers; :func:`model_states` applies them in order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tuneplan.core import workload as wl
from tuneplan.core.memory.adapters import PAGED_MIN_NUMEL, adapter_path, lora_tensors, target_spec
from tuneplan.core.memory.context import MemoryContext
from tuneplan.core.memory.deepspeed import _DS_SOURCE, _zero3_gathered_elements


def count(n: float) -> str:
    """A parameter count as the formulas write it: ``41.9M``, ``8.030B``, ``24.6k``."""
    return f"{n / 1e9:.3f}B" if n >= 1e9 else f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k"


@dataclass(frozen=True)
class Weights:
    """The model's weights on the GPU before sharding (bytes), with ``model_weight_bytes`` the model as stored (a
    reference copy's size) and ``forward_casts`` the bf16 casts autocast caches until the forward ends."""

    bytes: float
    formula: str
    model_weight_bytes: float
    forward_casts: float


def weights(ctx: MemoryContext) -> Weights:
    """Weights in their dtype: a pre-quantised checkpoint as stored, NF4 layer matrices under QLoRA (QLoRA
    arXiv:2305.14314 §3) or LLM.int8 ones on an 8-bit base (arXiv:2208.07339), else parameters x bytes; plus the bf16 copies autocast makes of an fp32 model."""
    t = ctx.t
    ckpt, unq = ctx.ckpt, ctx.unq
    if ckpt is not None:
        others = max(ctx.total_params - ckpt.quantized_parameters, 0)
        value = ckpt.quantized_bytes + others * unq
        formula = (
            f"{ckpt.quantized_parameters / 1e9:.2f}B {ckpt.label} weights as stored ({ckpt.quantized_bytes / 2**30:.2f}"
            f" GiB in the safetensors headers, scales included) + {others / 1e9:.2f}B other params x {unq} B")
    elif t.method == "qlora":
        # non-quantised parameters (embeddings, LM head, norms, stacked experts) cost `unq` bytes:
        # 4 after PEFT's prepare_model_for_kbit_training (peft/utils/other.py), else 2
        value = (ctx.layer_linear - ctx.stacked) * ctx.nf4 + (ctx.non_layer + ctx.stacked) * unq
        how = ("fp32 after prepare_model_for_kbit_training" if ctx.upcast else
               t.precision + (" (sharded QLoRA skips prepare_model_for_kbit_training)" if t.kbit_fp32_upcast else ""))
        formula = (
            f"{(ctx.layer_linear - ctx.stacked) / 1e9:.2f}B layer weights x {ctx.nf4:.4f} B "
            + (f"(HQQ {t.quant_bits}-bit + a scale and a zero point per {t.quant_group_size} weights)"
               if t.quant_method == "hqq" else
               "(LLM.int8: int8 codes + an fp32 scale per row)" if t.quant_bits == 8 else
               f"(NF4{' + double quant' if t.double_quant else ''})")
            + f" + {ctx.non_layer / 1e9:.2f}B embeddings/head/norms x {unq} B ({how})"
            + (f" + {ctx.stacked / 1e9:.2f}B stacked expert weights x {unq} B (not nn.Linear: bitsandbytes and HQQ leave"
               " them unquantised)" if ctx.stacked else "")
        )
    else:
        value = ctx.total_params * ctx.w_bytes
        formula = (f"{ctx.total_params / 1e9:.2f}B params x {ctx.w_bytes} B "
                   f"({'fp32 master under autocast' if ctx.amp else t.precision})")
    model_weight_bytes = value
    forward_casts = 0.0
    if ctx.amp_casts:
        # autocast casts each fp32 matrix to bf16 for its matmul and autograd saves the cast for the
        # input gradient until that layer's backward (trained or frozen alike): every layer without
        # checkpointing, the recomputed layer with it; with checkpointing the autocast cache still holds
        # every layer's cast at the end of the forward (seen on fake tensors)
        casts = ctx.layer_linear_each if t.grad_checkpointing else ctx.layer_linear
        value += casts * 2
        # autocast caches only casts of tensors that require grad (ATen ``cached_cast``): a full fine-tune's
        # weights, not a frozen fp32 LoRA base, whose casts are freed after each matmul
        if t.grad_checkpointing and t.method == "full":
            forward_casts = (ctx.layer_linear - ctx.layer_linear_each) * 2
        formula += f" + bf16 autocast copies of {'one layer' if t.grad_checkpointing else 'every layer'} (2 B/param)"
    return Weights(bytes=value, formula=formula, model_weight_bytes=model_weight_bytes, forward_casts=forward_casts)


@dataclass(frozen=True)
class Trainable:
    """The trainable parameters: ``trainable`` (count), ``trainable_bytes`` (each in its own dtype), ``adapters``
    (bytes of the LoRA adapters and trainable embedding copies; 0 for full fine-tuning), ``grad_bytes`` (bytes per
    gradient element), ``adapter_tensors`` (LoRA matrices as ``(count, rows, cols)``), ``copies`` (embedding-copy
    parameters, PEFT ``modules_to_save``) in ``copy_bytes`` each; ``formula`` the adapters' (None: full)."""

    adapter_tensors: list[tuple[int, int, int]]
    lora_params: int
    trainable: float
    grad_bytes: int
    adapters: float
    trainable_bytes: float
    dtypes: str
    copies: int
    copy_bytes: int
    formula: str | None


def trainable(ctx: MemoryContext) -> Trainable:
    """Trainable parameters and the LoRA adapters' bytes: ``r (d_in + d_out)`` per adapted matrix (LoRA
    arXiv:2106.09685; PEFT ``LoraLayer``) in fp32 (PEFT ``autocast_adapter_dtype``) or the model dtype."""
    t, arch = ctx.t, ctx.arch
    if t.method == "full":
        return Trainable(adapter_tensors=[], lora_params=0, trainable=ctx.total_params, grad_bytes=ctx.w_bytes,
                         adapters=0.0, trainable_bytes=float(ctx.total_params * ctx.w_bytes),
                         dtypes=f"{ctx.w_bytes} B", copies=0, copy_bytes=0, formula=None)
    adapter_tensors = lora_tensors(arch, t.lora_rank, target_spec(t), t.stack)
    lora_params = sum(n * r * c for n, r, c in adapter_tensors)
    count_ = lora_params
    # PEFT keeps adapters in fp32 (autocast_adapter_dtype); torchtune/LitGPT keep them in the model dtype
    native = ctx.ds_mixed or adapter_path(t) == "native"
    grad_bytes = ctx.w_bytes if native else 4
    adapters = count_ * float(grad_bytes)
    trainable_bytes = float(lora_params * grad_bytes)
    dtypes = f"{grad_bytes} B"
    formula = (f"{count_ / 1e6:.1f}M LoRA params (r={t.lora_rank}, {', '.join(t.lora_modules) or t.lora_targets}) x {grad_bytes} B"
               f" ({'model dtype' if native else 'fp32'})")
    copies = copy_bytes = 0
    if t.trainable_embeddings:
        # PEFT modules_to_save: trainable copies of embed_tokens and lm_head next to the frozen originals, in
        # the originals' dtype (cast_adapter_dtype upcasts only the BaseTunerLayer adapters, not these copies)
        copies = ctx.embed_params * (1 if arch.tie_word_embeddings or t.workload == "reward" else 2)
        copy_bytes = ctx.unq if t.method == "qlora" else ctx.w_bytes
        adapters += copies * copy_bytes
        count_ += copies
        trainable_bytes += copies * copy_bytes
        dtypes = f"{grad_bytes} B adapters, {copy_bytes} B embedding copies"
        formula += f" + trainable embedding/LM-head copies {copies / 1e9:.2f}B x {copy_bytes} B"
    return Trainable(adapter_tensors=adapter_tensors, lora_params=lora_params, trainable=count_, grad_bytes=grad_bytes,
                     adapters=adapters, trainable_bytes=trainable_bytes, dtypes=dtypes, copies=copies,
                     copy_bytes=copy_bytes, formula=formula)


@dataclass(frozen=True)
class OptimizerStates:
    """Optimizer states on the GPU (bytes), ``paged`` those in unified memory, ``step_temp`` the step's temporary."""

    bytes: float
    paged: float
    step_temp: float
    formula: str


def optimizer_states(ctx: MemoryContext, tr: Trainable) -> OptimizerStates:
    """States per trainable parameter: AdamW two moments in the parameter's dtype (``torch.optim.AdamW``
    ``zeros_like``); 8-bit AdamW two uint8 moments + an fp32 absmax per 256 (arXiv:2110.02861); SGD one momentum;
    Adafactor row and column vectors (arXiv:1804.04235). DeepSpeed ZeRO steps its fp32 master partition."""
    t, arch = ctx.t, ctx.arch
    opt, trainable_ = t.optimizer, tr.trainable
    paged = 0.0
    step_temp = 0.0
    if t.method == "full":
        paged_share = 1.0  # every weight matrix and embedding is >= 1e5 elements; norm vectors are negligible
    else:
        big = sum(n * r * c for n, r, c in tr.adapter_tensors if r * c >= PAGED_MIN_NUMEL)
        big += tr.copies  # embedding copies, if any
        paged_share = big / trainable_ if trainable_ else 0.0
    # the tensors the optimizer steps: the trainable parameters themselves, or DeepSpeed's fp32 master partition
    opt_param_bytes = trainable_ * 4.0 if ctx.ds_mixed else tr.trainable_bytes
    opt_dtypes = "4 B (fp32, DeepSpeed's master partition)" if ctx.ds_mixed else tr.dtypes
    if opt in {"adamw", "adamw-fused"}:  # moments in each parameter's dtype (torch.optim.AdamW zeros_like)
        value = 2 * opt_param_bytes
        formula = f"{count(trainable_)} x 2 moments x {opt_dtypes}"
        if opt == "adamw" and not t.optimizer_in_backward:
            step_temp = opt_param_bytes  # foreach path: torch._foreach_sqrt(exp_avg_sq) temporary
    elif opt in {"adamw-8bit", "paged-adamw-8bit"}:
        value = trainable_ * (2 * 1 + 2 * 4 / 256)
        formula = f"{count(trainable_)} x 2 moments x (1 B + 4 B/256 absmax)"
        if opt.startswith("paged"):  # the uint8 states of tensors with >= 1e5 elements live in unified
            # memory; their fp32 absmax vectors are ordinary device tensors (torch.zeros)
            paged = trainable_ * paged_share * 2 * 1
            value -= paged
    elif opt == "paged-adamw-32bit":
        value = trainable_ * 2 * 4
        formula = f"{count(trainable_)} x 2 moments x 4 B (fp32)"
        paged, value = value * paged_share, value * (1 - paged_share)
    elif opt == "sgd":
        value = opt_param_bytes
        formula = f"{count(trainable_)} x momentum {opt_dtypes}"
    else:  # adafactor
        factored = 0
        for n_layers, mods in arch.linear_modules():
            for m in mods:
                factored += n_layers * m.count * (m.d_in + m.d_out)
        if t.method != "full":  # each 2-D adapter matrix (and embedding copy): one row and one column vector
            factored = sum(n * (r + c) for n, r, c in tr.adapter_tensors)
            factored += (tr.copies // ctx.embed_params) * (arch.vocab_size + arch.hidden_size) if tr.copies else 0
        value = factored * 4
        formula = "row + column second-moment vectors x 4 B"
    return OptimizerStates(bytes=value, paged=paged, step_temp=step_temp, formula=formula)


def gradients(ctx: MemoryContext, tr: Trainable) -> tuple[float, str]:
    """Gradients before sharding (bytes, formula): one per trainable parameter in its dtype, or with the optimizer
    step fused into backward one parameter's at a time (torchtune ``optimizer_in_bwd``)."""
    t, arch = ctx.t, ctx.arch
    if not t.optimizer_in_backward:
        return tr.trainable_bytes, f"{count(tr.trainable)} trainable x {tr.dtypes}"
    if t.method == "full":
        largest = max(m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods)
        value = max(largest, ctx.embed_params) * tr.grad_bytes
    else:  # the largest trainable tensor: an adapter matrix or an embedding copy
        value = max([r * c * tr.grad_bytes for _, r, c in tr.adapter_tensors]
                    + ([ctx.embed_params * tr.copy_bytes] if tr.copies else []), default=0)
    return value, "optimizer step fused into backward: one parameter's gradient at a time"


@dataclass(frozen=True)
class ModelStates:
    """Weights, adapters, gradients and optimizer states on one GPU (bytes) after sharding and offload, with their
    formulas. ``gathered``: unsharded layers alive only while a layer computes (ZeRO-3/FSDP); ``ds_bucket``:
    DeepSpeed's gradient-reduce bucket; ``zero_kept``: ZeRO-Offload's GPU gradient buffers; ``fsdp_root_bytes``:
    FSDP's unsharded root unit. ``adapters_formula`` is None for full fine-tuning."""

    trainable: Trainable
    weights: float
    adapters: float
    gradients: float
    optimizer: float
    paged: float
    step_temp: float
    model_weight_bytes: float
    forward_casts: float
    weights_formula: str
    adapters_formula: str | None
    gradients_formula: str
    optimizer_formula: str
    gathered: float = 0.0
    fsdp_root_bytes: float = 0.0
    ds_bucket: float = 0.0
    zero_kept: float = 0.0


def split_across_gpus(ctx: MemoryContext, s: ModelStates) -> ModelStates:
    """The states each of several GPUs holds: a share of the layers (pipeline), ZeRO/FSDP's shards with the
    gathered layers (ZeRO-3 reuse distance and prefetch, FSDP's root unit), or DDP's flat gradient copy."""
    t, arch, n = ctx.t, ctx.arch, ctx.n_gpus
    shard = ctx.shard
    if n <= 1:
        return s
    if ctx.pipeline:
        return replace(s, weights=s.weights / n, adapters=s.adapters / n,
                       # (stepped in backward: one whole tensor's gradient at a time)
                       gradients=s.gradients if t.optimizer_in_backward else s.gradients / n,
                       optimizer=s.optimizer / n, paged=s.paged / n, step_temp=s.step_temp / n,
                       weights_formula=s.weights_formula + f" / {n} GPUs (layers split across GPUs)")
    if shard == "ddp":
        return replace(s, gradients=s.gradients * 2)  # DDP buckets hold a flat copy (gradient_as_bucket_view=False)
    if shard not in {"zero1", "zero2", "zero3", "fsdp"}:
        return s
    grads = s.gradients
    if shard in {"zero2", "zero3", "fsdp"} and not t.optimizer_in_backward:
        grads = grads / n  # (stepped in backward: one whole tensor's gradient at a time)
    weights_, adapters, gathered, root = s.weights, s.adapters, 0.0, s.fsdp_root_bytes
    if shard in {"zero3", "fsdp"}:
        weights_ /= n
        adapters /= n
        # the all-gathered layer being computed plus the prefetched next one (FSDP
        # forward/backward prefetch; ZeRO-3 prefetch bucket), freed again after use; bf16 under
        # mixed precision even when the shards are an fp32 master copy
        gathered = ctx.gathered_layers
        if shard == "zero3" and t.method != "qlora":
            gathered = _zero3_gathered_elements(arch, ctx.ds, arch.hidden_size if t.workload == "reward" else None) \
                * ctx.act
        if t.fsdp_root_unsharded:
            # the root unit (embeddings, final norm, LM head) stays unsharded from its forward to its
            # backward (FSDP1 _post_forward_reshard: "Do not free the root's parameters in the post-forward";
            # FSDP2: the root's reshard_after_forward is set to False; either way it is gathered for the
            # whole backward, from the LM head's to the embedding's), in an all-gather buffer of its own next
            # to the shard (FSDP1 _full_param_padded beside _local_shard)
            root = ctx.outer_params * (2 if ctx.amp else ctx.w_bytes)
            gathered += root
        elif shard == "fsdp" and t.fsdp_wrap == "separate-embeddings":
            # the LM head (or embedding) unit gathered next to the prefetched layer when it is larger
            # than a layer (at the loss's backward, and at the embedding's)
            gathered = max(gathered, ctx.embed_params * (2 if ctx.amp else ctx.w_bytes)
                           + ctx.largest_layer_bytes * (2 / ctx.w_bytes if ctx.amp else 1))
    weights_formula = s.weights_formula
    gradients_formula = s.gradients_formula
    if shard in {"zero2", "zero3", "fsdp"}:
        gradients_formula += f" / {n} GPUs ({shard})"
    if shard == "zero3" and t.method != "qlora":
        weights_formula += (f" / {n} GPUs (zero3) + gathered while computing: the LM head, the last"
                            " layers reused within stage3_max_reuse_distance, the prefetch bucket")
    elif shard in {"zero3", "fsdp"}:
        weights_formula += f" / {n} GPUs ({shard}) + two gathered layers while computing"
        if t.fsdp_root_unsharded:
            weights_formula += " + the root unit (embeddings, LM head) unsharded from forward to backward"
    return replace(s, weights=weights_, adapters=adapters, gradients=grads, optimizer=s.optimizer / n,
                   paged=s.paged / n, step_temp=s.step_temp / n, gathered=gathered, fsdp_root_bytes=root,
                   weights_formula=weights_formula, gradients_formula=gradients_formula,
                   optimizer_formula=s.optimizer_formula + f" / {n} GPUs ({shard})")


def deepspeed_master(ctx: MemoryContext, s: ModelStates) -> ModelStates:
    """DeepSpeed ZeRO in 16 bits (no offload): the fp32 master partition (trainable / GPUs x 4 B), the step's fp32
    gradient copy of the partition or of one ``sub_group_size`` group (stage_1_and_2.py ``step``; stage3.py
    ``_prepare_fp32_grad_for_sub_group``) with AdamW's foreach temporary, and the ``reduce_bucket_size`` buffer."""
    t, arch, n = ctx.t, ctx.arch, ctx.n_gpus
    if not ctx.ds_mixed:
        return s
    tr = s.trainable
    partition = tr.trainable / n
    weights_ = s.weights + partition * 4
    # (ZeRO-3 groups the partition's parameters until a group reaches sub_group_size, so 0 makes every parameter
    # a group of its own: the largest trained tensor's partition; stage3.py _create_fp16_sub_groups)
    if t.sharding == "zero3" and ctx.ds.sub_group > 0:
        group = min(partition, ctx.ds.sub_group)
    elif t.sharding == "zero3":
        sizes = [m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods] + [ctx.embed_params] \
            if t.method == "full" else [r * c for _, r, c in tr.adapter_tensors]
        group = min(partition, max(sizes, default=0) / n)
    else:
        group = partition
    step_temp = group * 4 * (2 if (t.optimizer == "adamw" and not t.optimizer_in_backward) else 1)
    # contiguous_gradients (default True): ZeRO-1/2 allocate the reduce bucket in each backward
    # (stage_1_and_2.py backward: ``torch.empty(int(self.reduce_bucket_size), dtype=self.dtype)``, a second one
    # with overlap_comm, off by default below stage 3) and free it when the backward's reduction ends; ZeRO-3
    # allocates it once at start (stage3.py ``__ipg_bucket_flat_buffer``) and keeps it.
    ds = ctx.ds
    return replace(
        s, weights=weights_, step_temp=step_temp, ds_bucket=ds.reduce * ctx.act,
        weights_formula=s.weights_formula + f" + fp32 master partition {count(partition)} x 4 B (DeepSpeed ZeRO optimizer)",
        gradients_formula=s.gradients_formula + (f" + reduce bucket {ds.reduce / 1e6:g}M x {ctx.act} B "
                                                 f"(DeepSpeed reduce_bucket_size{_DS_SOURCE[ds.source['reduce']]})"))


def frozen_weight_gradients(ctx: MemoryContext, s: ModelStates) -> ModelStates:
    """FSDP units that mix frozen and trainable weights: every frozen layer weight gets a sharded gradient
    ("equivalent to not freezing those parameters", FSDP docstring; litgpt PR #1538), in the weights' dtype."""
    if not ctx.t.frozen_weight_grads:
        return s
    # One FlatParameter per decoder layer holds the frozen weights next to the adapters and requires grad as a
    # whole, so autograd computes every layer weight's gradient and FSDP keeps its reduce-scattered shard
    # (the warning quoted in litgpt PR #1538 reads 1,451,376,640 numel instead of 106,496). A FlatParameter has
    # one dtype: the weights'.
    n = ctx.n_gpus
    return replace(s, gradients=s.gradients + ctx.layer_linear * ctx.w_bytes / n,
                   gradients_formula=s.gradients_formula + (
                       f" + {count(ctx.layer_linear)} frozen layer weights x {ctx.w_bytes} B / {n} GPUs "
                       "(FSDP units mix frozen and trainable weights)"))


def fsdp_unit_gradient(ctx: MemoryContext) -> float:
    """One FSDP unit's unsharded gradient as its layer's backward ends, twice (bytes): the per-weight gradients and
    the unit's flat gradient (FSDP ``_post_backward_hook``: ".grad contains the unsharded gradient"; FSDP1 split
    backward; FSDP2 ``foreach_reduce``), in the forward's dtype; 0 unless FSDP trains the layer weights."""
    t = ctx.t
    if ctx.shard == "fsdp" and (t.method == "full" or t.frozen_weight_grads):
        return 2 * ctx.layer_linear_each * ctx.act
    return 0.0


def root_unit_gradients(ctx: MemoryContext) -> tuple[float, float]:
    """A trained FSDP root unit's gradients (bytes): ``(while the layers run backward, at the end of backward)``.

    The LM head's gradient waits unsharded from the head's backward until the embedding's arrives; then both (or a
    tied matrix's two contributions and their sum) and the root's flat gradient exist together before the
    reduce-scatter: vocab x hidden x (1 while the layers run; 4 untied, 3 tied at the end). The same with CPU
    offload: only the resulting shard goes to the CPU. A reward model's root holds the embedding and the value
    head (hidden x 1)."""
    t, arch, act = ctx.t, ctx.arch, ctx.act
    if t.method == "full" and t.fsdp_root_unsharded and t.workload == "reward":
        return wl.head_params(arch, t) * act, 2 * (ctx.embed_params + wl.head_params(arch, t)) * act
    if t.method == "full" and t.fsdp_root_unsharded:
        return ctx.embed_params * act, (3 if arch.tie_word_embeddings else 4) * ctx.embed_params * act
    return 0.0, 0.0


def zero_offload(ctx: MemoryContext, s: ModelStates) -> ModelStates:
    """DeepSpeed ZeRO-1/2 ``offload_optimizer`` (ZeRO-Offload, arXiv:2101.06840): the whole 16-bit model on every
    GPU, master weights and states on the CPU, and on the GPU the reduce bucket, the staging buffer of the largest
    trainable tensor and the gradient autograd is producing (ZeRO-1: every 16-bit gradient until the boundary)."""
    t, arch, act = ctx.t, ctx.arch, ctx.act
    if not ctx.zero_offload:
        return s
    tr = s.trainable
    # Parameters are not offloaded below stage 3: every GPU holds the whole model in DeepSpeed's 16-bit dtype (the
    # engine's module.bfloat16(); no autocast copies), and the fp32 master partition and the optimizer states are on
    # the CPU (stage_1_and_2.py: weights_partition = get_accelerator().pin_memory(...) under cpu_offload;
    # DeepSpeedCPUAdam steps there).
    weights_, weights_formula = s.weights, s.weights_formula
    adapters, adapters_formula = s.adapters, s.adapters_formula
    if t.method != "qlora":
        weights_ = ctx.total_params * act
        weights_formula = (f"{ctx.total_params / 1e9:.2f}B params x {act} B on every GPU ({t.sharding} does "
                           "not partition parameters; the fp32 master copy is offloaded with the optimizer)")
    if t.method != "full":
        adapters = tr.trainable * float(act)  # the module's 16-bit copies; their fp32 masters are on the CPU
        adapters_formula = (adapters_formula or "") + \
            f"; on the GPU as {act} B (DeepSpeed's module dtype), fp32 master on the CPU"
    if t.method == "full":
        largest_numel = max(max(m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods), ctx.embed_params)
    else:  # the largest trainable tensor: an adapter matrix or an embedding copy
        largest_numel = max([r * c for _, r, c in tr.adapter_tensors] + ([ctx.embed_params] if tr.copies else []),
                            default=0)
    # On the GPU: the reduce bucket each backward allocates (cpu_offload forces contiguous_gradients; one buffer,
    # two with overlap_comm, which is off by default below stage 3) and temp_grad_buffer_for_gpu_offload
    # (largest_param_numel elements, allocated at init). A gradient is copied into the bucket, reduced, and
    # its partition copied to the CPU (async_inplace_copy_grad_to_fp32_buffer_from_gpu); one larger than the
    # bucket is reduced where it is (extra_large_param_to_reduce). With accumulation, the CPU accumulates
    # (async_accumulate_grad_in_cpu_via_gpu).
    ds = ctx.ds
    bucket = ds.reduce * act
    kept = bucket + largest_numel * act
    fresh = largest_numel * act  # the gradient autograd has just produced, before it enters the bucket
    if t.sharding == "zero2":
        grads = kept + fresh
        gradients_formula = (
            f"reduced and offloaded to CPU one bucket at a time: reduce bucket {ds.reduce / 1e6:g}M"
            f" x {act} B + staging buffer {count(largest_numel)} x {act} B, always on the GPU, + the gradient autograd"
            f" is producing, at most the largest tensor {count(largest_numel)} x {act} B (DeepSpeed ZeRO-2 cpu_offload)")
    else:
        # ZeRO-1: no per-gradient hooks (partition_gradients=False, overlap_comm off), so every 16-bit gradient
        # stays on the GPU until reduce_gradients at the accumulation boundary moves it through the bucket
        full = tr.trainable * act
        grads = full + kept
        kept += full if (t.grad_accumulation > 1 and not t.optimizer_in_backward) else 0.0
        gradients_formula = (
            f"{count(tr.trainable)} trainable x {act} B until the boundary's reduction + reduce bucket "
            f"{ds.reduce / 1e6:g}M x {act} B + staging buffer {count(largest_numel)} x {act} B"
            " (DeepSpeed ZeRO-1 cpu_offload; the reduced partitions go to the CPU)")
    return replace(s, gathered=0.0, weights=weights_, weights_formula=weights_formula, adapters=adapters,
                   adapters_formula=adapters_formula, optimizer=0.0, paged=0.0, step_temp=0.0,
                   optimizer_formula="offloaded to CPU with the fp32 master weights (DeepSpeed offload_optimizer)",
                   gradients=grads, gradients_formula=gradients_formula, zero_kept=kept)


def cpu_offload(ctx: MemoryContext, s: ModelStates) -> ModelStates:
    """ZeRO-3 offload / FSDP ``CPUOffload(offload_params=True)``: parameters, gradients and states on the CPU; the
    GPU holds the gathered layer being computed, the prefetched next one and the embeddings/LM head while used.
    Checked against PEFT's FSDP-QLoRA 70B runs: 35.6 GiB/GPU without offload vs 19.6 with it (reference
    measurements rows 140-141)."""
    t, arch = ctx.t, ctx.arch
    if ctx.zero_offload or not t.cpu_offload:
        return s
    root_b = ctx.unq if t.method == "qlora" else ctx.w_bytes
    if ctx.shard == "fsdp" and t.fsdp_wrap == "separate-embeddings":
        # embeddings and LM head are units of their own, gathered only while used, like a layer
        weights_ = max(2 * ctx.largest_layer_bytes, ctx.embed_params * root_b + ctx.largest_layer_bytes)
    else:
        weights_ = 2 * ctx.largest_layer_bytes + ctx.outer_params * root_b
    return replace(s, gathered=0.0, weights=weights_, optimizer=0.0, paged=0.0, step_temp=0.0,
                   gradients=s.gradients / max(1, arch.num_layers) * 2,
                   weights_formula="offloaded to CPU: two gathered layers + embeddings/LM head on the GPU",
                   optimizer_formula="offloaded to CPU")


def model_states(ctx: MemoryContext) -> ModelStates:
    """Every model state on one GPU: :func:`weights`, :func:`trainable`, :func:`optimizer_states` and
    :func:`gradients`, then :func:`split_across_gpus`, :func:`deepspeed_master`, :func:`frozen_weight_gradients`,
    :func:`zero_offload` and :func:`cpu_offload`, in that order."""
    w = weights(ctx)
    tr = trainable(ctx)
    opt = optimizer_states(ctx, tr)
    grads, grads_formula = gradients(ctx, tr)
    s = ModelStates(trainable=tr, weights=w.bytes, adapters=tr.adapters, gradients=grads, optimizer=opt.bytes,
                    paged=opt.paged, step_temp=opt.step_temp, model_weight_bytes=w.model_weight_bytes,
                    forward_casts=w.forward_casts, weights_formula=w.formula, adapters_formula=tr.formula,
                    gradients_formula=grads_formula, optimizer_formula=opt.formula)
    for step in (split_across_gpus, deepspeed_master, frozen_weight_gradients, zero_offload, cpu_offload):
        s = step(ctx, s)
    return s
