"""The per-GPU ledger of one training step: every component at the step's peak moment."""

from __future__ import annotations

from dataclasses import dataclass, field

from tuneplan.core import workload as wl
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.memory.activations import (
    _activation_adapter_path,
    _stacked_expert_params,
    compile_modelled,
    layer_saved_bytes_per_token,
    merged_expert_bytes,
    recompute_transient_per_token,
)
from tuneplan.core.memory.adapters import (
    PAGED_MIN_NUMEL,
    adapter_path,
    lora_cast_parameter_count,
    lora_tensors,
)
from tuneplan.core.memory.allocator import (
    ALLOCATOR_FRAGMENTATION,
    CUBLAS_WORKSPACE_BYTES,
    CUDA_CONTEXT_BYTES,
    DYNAMIC_SHAPE_CACHE,
    MIB,
    likely_range,
)
from tuneplan.core.memory.context import _DTYPE_BYTES, nf4_bytes_per_param
from tuneplan.core.memory.deepspeed import _DS_SOURCE, _zero3_gathered_elements, deepspeed_buffers
from tuneplan.core.memory.workloads import (
    _generation_memory,
    _head_cast_term,
    _logps_term,
    _workload_components,
    _workload_forward,
)
from tuneplan.core.result import GIB, MemoryComponent, MemoryEstimate
from tuneplan.core.scenario import GpuSpec, TrainingSetup
from tuneplan.core.terms import Quantity, Term, render_formula


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



def estimate_memory(arch: ModelArchitecture, t: TrainingSetup, gpu: GpuSpec) -> tuple[MemoryEstimate, MemoryLedger]:
    """Per-GPU memory of one training step of ``arch`` with setup ``t`` on ``gpu``.

    Returns:
        ``(estimate, ledger)``: the user-facing :class:`MemoryEstimate` (components in bytes,
        peak allocated/reserved/total, capacity) and the intermediate :class:`MemoryLedger`.

    Formulas and sources are in the module docstring; each component's ``formula`` shows the
    numbers of this scenario.
    """
    led = MemoryLedger()
    w_bytes = _DTYPE_BYTES[t.precision]
    # fp32 master weights: a full fine-tune with fp32 weights under autocast, or a LoRA run on an
    # fp32 base (LitGPT bf16-mixed). NF4 bases are never fp32, so QLoRA ignores the setting.
    amp = t.master_weights == "fp32" and t.precision != "fp32" and t.method != "qlora"
    # DeepSpeed ZeRO (any stage) in 16-bit is mixed precision of its own, whatever master_weights says: the engine
    # casts the whole module, adapters included, to the 16-bit dtype (engine.py _configure_distributed_model:
    # ``self.module.bfloat16()`` / ``.half()``) and the ZeRO optimizer keeps an fp32 master partition of what is
    # trained (stage_1_and_2.py ``single_partition_of_fp32_groups``, stage3.py ``fp32_partitioned_groups_flat``),
    # stepped with fp32 optimizer states. Gradients stay 16-bit (engine.py get_data_types: under ZeRO the
    # gradient-accumulation dtype is the model's). ZeRO-Offload and ZeRO-3 offload have their own paths below.
    ds_mixed = t.sharding in {"zero1", "zero2", "zero3"} and t.precision != "fp32" and not t.cpu_offload
    if ds_mixed:
        amp = False
    if amp:
        w_bytes = 4  # fp32 model under autocast: weights, grads and states in fp32
    act = 2 if (t.precision != "fp32" or amp) else 4
    n_gpus = t.num_gpus
    shard = t.sharding if n_gpus > 1 else "none"
    ds = deepspeed_buffers(arch, t)  # DeepSpeed ZeRO's buffer sizes (only ZeRO plans use them)
    # FSDP MixedPrecision(param_dtype=bf16) and DeepSpeed's bf16 module hand the forward bf16 layers: an fp32
    # master model under them has no autocast copies to make, and its gathered layers are bf16
    # DeepSpeed ZeRO-Offload: cpu_offload below ZeRO stage 3 is offload_optimizer only (one GPU or several); the
    # bf16 module (module.bfloat16()) stays on every GPU, the fp32 master copy goes to the CPU with the states
    zero_offload = t.cpu_offload and t.sharding in {"zero1", "zero2"}
    amp_casts = amp and shard not in {"zero3", "fsdp"} and not zero_offload
    pipeline = n_gpus > 1 and shard == "none"  # layers split across GPUs (HF device_map)

    total_params = wl.parameter_count(arch, t)  # a reward model's value head replaces the LM head
    layer_linear = arch.layer_linear_params()
    # parameters outside the layers (FSDP's root unit), with the workload's head
    outer_params = arch.outer_params() - arch.lm_head_params() + wl.head_params(arch, t)
    non_layer = total_params - layer_linear  # embeddings, LM head, norms, conv kernels
    # Stacked MoE experts (3-D tensors in transformers >= 5) are not nn.Linear, so bitsandbytes does not
    # quantise them (transformers integrations/bitsandbytes.py replaces nn.Linear/Conv1D only); under
    # QLoRA they are cast to fp32 with the other non-quantised parameters.
    stacked = sum(n * _stacked_expert_params(mods) for n, mods in arch.linear_modules())
    nf4 = nf4_bytes_per_param(t.double_quant)
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

    def layer_bytes(mods) -> float:  # noqa: ANN001 - one layer's weights as held on the GPU
        if ckpt is not None:
            return sum(m.params for m in mods) * stored_per_param
        if t.method == "qlora":
            return sum(m.params * (unq if m.count > 1 else nf4) for m in mods)
        return sum(m.params for m in mods) * w_bytes

    # ------------------------------------------------------------ weights
    if ckpt is not None:
        others = max(total_params - ckpt.quantized_parameters, 0)
        weights = ckpt.quantized_bytes + others * unq
        led.formulas["weights"] = (
            f"{ckpt.quantized_parameters / 1e9:.2f}B {ckpt.label} weights as stored ({ckpt.quantized_bytes / 2**30:.2f}"
            f" GiB in the safetensors headers, scales included) + {others / 1e9:.2f}B other params x {unq} B")
    elif t.method == "qlora":
        # non-quantised parameters (embeddings, LM head, norms, stacked experts) cost `unq` bytes:
        # 4 after PEFT's prepare_model_for_kbit_training (peft/utils/other.py), else 2
        weights = (layer_linear - stacked) * nf4 + (non_layer + stacked) * unq
        how = ("fp32 after prepare_model_for_kbit_training" if upcast else
               t.precision + (" (sharded QLoRA skips prepare_model_for_kbit_training)" if t.kbit_fp32_upcast else ""))
        led.formulas["weights"] = (
            f"{(layer_linear - stacked) / 1e9:.2f}B layer weights x {nf4:.4f} B (NF4{' + double quant' if t.double_quant else ''})"
            f" + {non_layer / 1e9:.2f}B embeddings/head/norms x {unq} B ({how})"
            + (f" + {stacked / 1e9:.2f}B stacked expert weights x {unq} B (not nn.Linear: bitsandbytes leaves them"
               " unquantised)" if stacked else "")
        )
    else:
        weights = total_params * w_bytes
        led.formulas["weights"] = f"{total_params / 1e9:.2f}B params x {w_bytes} B ({'fp32 master under autocast' if amp else t.precision})"
    model_weight_bytes = weights  # the model as stored, before autocast copies and sharding (a reference copy's size)
    layer_linear_each = max(sum(m.params for m in mods) for _, mods in arch.linear_modules())
    forward_casts = 0.0  # bf16 casts the autocast cache holds until the forward ends (checkpointing)
    if amp_casts:
        # autocast casts each fp32 matrix to bf16 for its matmul and autograd saves the cast for the
        # input gradient until that layer's backward (trained or frozen alike): every layer without
        # checkpointing, the recomputed layer with it; with checkpointing the autocast cache still holds
        # every layer's cast at the end of the forward (seen on fake tensors)
        casts = layer_linear_each if t.grad_checkpointing else layer_linear
        weights += casts * 2
        # autocast caches only casts of tensors that require grad (ATen ``cached_cast``): a full fine-tune's
        # weights, not a frozen fp32 LoRA base, whose casts are freed after each matmul
        if t.grad_checkpointing and t.method == "full":
            forward_casts = (layer_linear - layer_linear_each) * 2
        led.formulas["weights"] += f" + bf16 autocast copies of {'one layer' if t.grad_checkpointing else 'every layer'} (2 B/param)"

    # ------------------------------------------------------------ trainable parameters
    embed_params = arch.vocab_size * arch.hidden_size

    def count(n: float) -> str:  # parameter counts in the formulas: 41.9M, 8.030B, 24.6k
        return f"{n / 1e9:.3f}B" if n >= 1e9 else f"{n / 1e6:.1f}M" if n >= 1e6 else f"{n / 1e3:.1f}k"

    copies = 0  # PEFT modules_to_save copies of the embedding / LM head (trainable_embeddings)
    if t.method == "full":
        adapter_tensors, lora_params = [], 0
        trainable = total_params
        grad_bytes = w_bytes
        adapters = 0.0
        trainable_bytes = float(total_params * w_bytes)  # each trainable parameter in its own dtype
        dtypes = f"{w_bytes} B"
    else:
        adapter_tensors = lora_tensors(arch, t.lora_rank, t.lora_targets)
        lora_params = sum(n * r * c for n, r, c in adapter_tensors)
        trainable = lora_params
        # PEFT keeps adapters in fp32 (autocast_adapter_dtype); torchtune/LitGPT keep them in the model dtype
        native = ds_mixed or adapter_path(t) == "native"
        grad_bytes = w_bytes if native else 4
        adapters = trainable * float(grad_bytes)
        trainable_bytes = float(lora_params * grad_bytes)
        dtypes = f"{grad_bytes} B"
        led.formulas["adapters"] = (f"{trainable / 1e6:.1f}M LoRA params (r={t.lora_rank}, {t.lora_targets}) x {grad_bytes} B"
                                    f" ({'model dtype' if native else 'fp32'})")
        if t.trainable_embeddings:
            # PEFT modules_to_save: trainable copies of embed_tokens and lm_head next to the frozen originals, in
            # the originals' dtype (cast_adapter_dtype upcasts only the BaseTunerLayer adapters, not these copies)
            copies = embed_params * (1 if arch.tie_word_embeddings or t.workload == "reward" else 2)
            copy_bytes = unq if t.method == "qlora" else w_bytes
            adapters += copies * copy_bytes
            trainable += copies
            trainable_bytes += copies * copy_bytes
            dtypes = f"{grad_bytes} B adapters, {copy_bytes} B embedding copies"
            led.formulas["adapters"] += f" + trainable embedding/LM-head copies {copies / 1e9:.2f}B x {copy_bytes} B"
    led.trainable_params = trainable

    # ------------------------------------------------------------ optimizer states
    opt = t.optimizer
    paged = 0.0
    step_temp = 0.0
    if t.method == "full":
        paged_share = 1.0  # every weight matrix and embedding is >= 1e5 elements; norm vectors are negligible
    else:
        big = sum(n * r * c for n, r, c in adapter_tensors if r * c >= PAGED_MIN_NUMEL)
        big += copies  # embedding copies, if any
        paged_share = big / trainable if trainable else 0.0
    # the tensors the optimizer steps: the trainable parameters themselves, or DeepSpeed's fp32 master partition
    opt_param_bytes = trainable * 4.0 if ds_mixed else trainable_bytes
    opt_dtypes = "4 B (fp32, DeepSpeed's master partition)" if ds_mixed else dtypes
    if opt in {"adamw", "adamw-fused"}:  # moments in each parameter's dtype (torch.optim.AdamW zeros_like)
        optimizer = 2 * opt_param_bytes
        formula = f"{count(trainable)} x 2 moments x {opt_dtypes}"
        if opt == "adamw" and not t.optimizer_in_backward:
            step_temp = opt_param_bytes  # foreach path: torch._foreach_sqrt(exp_avg_sq) temporary
    elif opt in {"adamw-8bit", "paged-adamw-8bit"}:
        optimizer = trainable * (2 * 1 + 2 * 4 / 256)
        formula = f"{count(trainable)} x 2 moments x (1 B + 4 B/256 absmax)"
        if opt.startswith("paged"):  # the uint8 states of tensors with >= 1e5 elements live in unified
            # memory; their fp32 absmax vectors are ordinary device tensors (torch.zeros)
            paged = trainable * paged_share * 2 * 1
            optimizer -= paged
    elif opt == "paged-adamw-32bit":
        optimizer = trainable * 2 * 4
        formula = f"{count(trainable)} x 2 moments x 4 B (fp32)"
        paged, optimizer = optimizer * paged_share, optimizer * (1 - paged_share)
    elif opt == "sgd":
        optimizer = opt_param_bytes
        formula = f"{count(trainable)} x momentum {opt_dtypes}"
    else:  # adafactor
        factored = 0
        for n_layers, mods in arch.linear_modules():
            for m in mods:
                factored += n_layers * m.count * (m.d_in + m.d_out)
        if t.method != "full":  # each 2-D adapter matrix (and embedding copy): one row and one column vector
            factored = sum(n * (r + c) for n, r, c in adapter_tensors)
            factored += (copies // embed_params) * (arch.vocab_size + arch.hidden_size) if copies else 0
        optimizer = factored * 4
        formula = "row + column second-moment vectors x 4 B"
    led.formulas["optimizer"] = formula

    gradients = trainable_bytes
    if t.optimizer_in_backward:
        if t.method == "full":
            largest = max(m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods)
            gradients = max(largest, embed_params) * grad_bytes
        else:  # the largest trainable tensor: an adapter matrix or an embedding copy
            gradients = max([r * c * grad_bytes for _, r, c in adapter_tensors]
                            + ([embed_params * copy_bytes] if copies else []), default=0)
        led.formulas["gradients"] = "optimizer step fused into backward: one parameter's gradient at a time"
    else:
        led.formulas["gradients"] = f"{count(trainable)} trainable x {dtypes}"

    # ------------------------------------------------------------ sharding of model states
    # a decoder layer as FSDP gathers it: its largest weight matrices plus its norms (qk norms included)
    layer_norms = (arch.norm_params() - arch.outer_params() + arch.embedding_params() + arch.lm_head_params()) \
        / max(arch.num_layers, 1)
    largest_layer_bytes = max(layer_bytes(mods) for _, mods in arch.linear_modules()) + layer_norms * unq
    gathered = 0.0  # unsharded layers alive only while a layer computes (ZeRO-3/FSDP)
    if n_gpus > 1:
        if pipeline:
            led.formulas["weights"] += f" / {n_gpus} GPUs (layers split across GPUs)"
            weights /= n_gpus
            adapters /= n_gpus
            if not t.optimizer_in_backward:  # (stepped in backward: one whole tensor's gradient at a time)
                gradients /= n_gpus
            optimizer /= n_gpus
            paged /= n_gpus
            step_temp /= n_gpus
        elif shard in {"zero1", "zero2", "zero3", "fsdp"}:
            optimizer /= n_gpus
            paged /= n_gpus
            step_temp /= n_gpus
            if shard in {"zero2", "zero3", "fsdp"} and not t.optimizer_in_backward:
                gradients /= n_gpus  # (stepped in backward: one whole tensor's gradient at a time)
            if shard in {"zero3", "fsdp"}:
                weights /= n_gpus
                adapters /= n_gpus
                # the all-gathered layer being computed plus the prefetched next one (FSDP
                # forward/backward prefetch; ZeRO-3 prefetch bucket), freed again after use; bf16 under
                # mixed precision even when the shards are an fp32 master copy
                gathered = 2 * largest_layer_bytes * (2 / w_bytes if amp else 1)
                if shard == "zero3" and t.method != "qlora":
                    gathered = _zero3_gathered_elements(
                        arch, ds, arch.hidden_size if t.workload == "reward" else None) * act
                if t.fsdp_root_unsharded:
                    # the root unit (embeddings, final norm, LM head) stays unsharded from its forward to its
                    # backward (FSDP1 _post_forward_reshard: "Do not free the root's parameters in the post-forward";
                    # FSDP2: the root's reshard_after_forward is set to False; either way it is gathered for the
                    # whole backward, from the LM head's to the embedding's), in an all-gather buffer of its own next
                    # to the shard (FSDP1 _full_param_padded beside _local_shard)
                    led.fsdp_root_bytes = outer_params * (2 if amp else w_bytes)
                    gathered += led.fsdp_root_bytes
                elif shard == "fsdp" and t.fsdp_wrap == "separate-embeddings":
                    # the LM head (or embedding) unit gathered next to the prefetched layer when it is larger
                    # than a layer (at the loss's backward, and at the embedding's)
                    gathered = max(gathered, embed_params * (2 if amp else w_bytes)
                                   + largest_layer_bytes * (2 / w_bytes if amp else 1))
            led.formulas["optimizer"] += f" / {n_gpus} GPUs ({shard})"
            if shard in {"zero2", "zero3", "fsdp"}:
                led.formulas["gradients"] += f" / {n_gpus} GPUs ({shard})"
            if shard == "zero3" and t.method != "qlora":
                led.formulas["weights"] += (f" / {n_gpus} GPUs (zero3) + gathered while computing: the LM head, the last"
                                            " layers reused within stage3_max_reuse_distance, the prefetch bucket")
            elif shard in {"zero3", "fsdp"}:
                led.formulas["weights"] += f" / {n_gpus} GPUs ({shard}) + two gathered layers while computing"
                if t.fsdp_root_unsharded:
                    led.formulas["weights"] += " + the root unit (embeddings, LM head) unsharded from forward to backward"
        elif shard == "ddp":
            gradients *= 2  # DDP buckets hold a flat copy of the gradients (gradient_as_bucket_view=False)
    ds_bucket = 0.0  # DeepSpeed's contiguous gradient-reduce bucket
    if ds_mixed:
        # The fp32 master partition: trainable / GPUs elements x 4 B on each GPU, at every ZeRO stage.
        partition = trainable / n_gpus
        weights += partition * 4
        led.formulas["weights"] += f" + fp32 master partition {count(partition)} x 4 B (DeepSpeed ZeRO optimizer)"
        # The step converts the reduced 16-bit gradients of the partition to fp32 (stage_1_and_2.py step:
        # ``single_grad_partition = self.flatten(self.averaged_gradients[i]).to(fp32)``; stage3.py
        # _prepare_fp32_grad_for_sub_group, one sub-group at a time) and steps the client optimizer on them:
        # torch AdamW's foreach path then makes one temporary of the same size.
        # (ZeRO-3 groups the partition's parameters until a group reaches sub_group_size, so 0 makes every parameter
        # a group of its own: the largest trained tensor's partition; stage3.py _create_fp16_sub_groups)
        if t.sharding == "zero3" and ds.sub_group > 0:
            group = min(partition, ds.sub_group)
        elif t.sharding == "zero3":
            sizes = [m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods] + [embed_params] \
                if t.method == "full" else [r * c for _, r, c in adapter_tensors]
            group = min(partition, max(sizes, default=0) / n_gpus)
        else:
            group = partition
        step_temp = group * 4 * (2 if (opt == "adamw" and not t.optimizer_in_backward) else 1)
        # contiguous_gradients (default True): ZeRO-1/2 allocate the reduce bucket in each backward
        # (stage_1_and_2.py backward: ``torch.empty(int(self.reduce_bucket_size), dtype=self.dtype)``, a second one
        # with overlap_comm, off by default below stage 3) and free it when the backward's reduction ends; ZeRO-3
        # allocates it once at start (stage3.py ``__ipg_bucket_flat_buffer``) and keeps it.
        ds_bucket = ds.reduce * act
        led.formulas["gradients"] += (f" + reduce bucket {ds.reduce / 1e6:g}M x {act} B "
                                      f"(DeepSpeed reduce_bucket_size{_DS_SOURCE[ds.source['reduce']]})")
    if t.frozen_weight_grads:
        # One FlatParameter per decoder layer holds the frozen weights next to the adapters and requires grad as a
        # whole, so autograd computes every layer weight's gradient and FSDP keeps its reduce-scattered shard:
        # "equivalent to not freezing those parameters" (FSDP docstring; the warning quoted in litgpt PR #1538 reads
        # 1,451,376,640 numel instead of 106,496). A FlatParameter has one dtype: the weights'.
        gradients += layer_linear * w_bytes / n_gpus
        led.formulas["gradients"] += (f" + {count(layer_linear)} frozen layer weights x {w_bytes} B / {n_gpus} GPUs "
                                      "(FSDP units mix frozen and trainable weights)")
    # One FSDP unit's unsharded gradient exists while autograd computes it, until its reduce-scatter
    # (FSDP _post_backward_hook: ".grad contains the unsharded gradient"), in the forward's dtype; when the
    # layer's backward ends it exists twice: the per-weight gradients and the unit's flat gradient that FSDP1's
    # split backward concatenates them into (FSDP2: the reduce-scatter input that foreach_reduce copies them to)
    unit_grad = 2 * layer_linear_each * act if shard == "fsdp" and (t.method == "full" or t.frozen_weight_grads) \
        else 0.0
    # A trained root unit (full fine-tuning with the embeddings and LM head in the root): the LM head's gradient
    # waits unsharded from the head's backward until the embedding's arrives at the end of the backward, when both
    # (or a tied matrix's two contributions and their sum) and the root's flat gradient exist together before the
    # reduce-scatter: vocab x hidden x (1 while the layers run; 4 untied, 3 tied at the end)
    root_wait = root_end = 0.0
    # (also with CPU offload: the unsharded gradients, their concatenation and the reduce-scatter are on the GPU,
    # only the resulting shard goes to the CPU)
    if t.method == "full" and t.fsdp_root_unsharded and t.workload == "reward":
        # a reward model's root holds the embedding and the value head (hidden x 1): the head's gradient waits, and the
        # embedding's gradient meets the root's flat copy
        root_wait = wl.head_params(arch, t) * act
        root_end = 2 * (embed_params + wl.head_params(arch, t)) * act
    elif t.method == "full" and t.fsdp_root_unsharded:
        root_wait = embed_params * act
        root_end = (3 if arch.tie_word_embeddings else 4) * embed_params * act
    led.fsdp_root_grad_wait, led.fsdp_root_grad_end = root_wait, root_end
    zero_kept = 0.0  # ZeRO-Offload: gradient buffers on the GPU at the loss's backward (and between micro-batches)
    if zero_offload:
        # DeepSpeed ZeRO-1/2 offload_optimizer (ZeRO-Offload, arXiv:2101.06840). Parameters are not offloaded below
        # stage 3: every GPU holds the whole model in DeepSpeed's 16-bit dtype (the engine's module.bfloat16(); no
        # autocast copies), and the fp32 master partition and the optimizer states are on the CPU (stage_1_and_2.py:
        # weights_partition = get_accelerator().pin_memory(...) under cpu_offload; DeepSpeedCPUAdam steps there).
        gathered = 0.0
        if t.method != "qlora":
            weights = total_params * act
            led.formulas["weights"] = (f"{total_params / 1e9:.2f}B params x {act} B on every GPU ({t.sharding} does "
                                       "not partition parameters; the fp32 master copy is offloaded with the optimizer)")
        if t.method != "full":
            adapters = trainable * float(act)  # the module's 16-bit copies; their fp32 masters are on the CPU
            led.formulas["adapters"] += f"; on the GPU as {act} B (DeepSpeed's module dtype), fp32 master on the CPU"
        optimizer = paged = step_temp = 0.0
        led.formulas["optimizer"] = "offloaded to CPU with the fp32 master weights (DeepSpeed offload_optimizer)"
        if t.method == "full":
            largest_numel = max(max(m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods), embed_params)
        else:  # the largest trainable tensor: an adapter matrix or an embedding copy
            largest_numel = max([r * c for _, r, c in adapter_tensors] + ([embed_params] if copies else []), default=0)
        # On the GPU: the reduce bucket each backward allocates (cpu_offload forces contiguous_gradients; one buffer,
        # two with overlap_comm, which is off by default below stage 3) and temp_grad_buffer_for_gpu_offload
        # (largest_param_numel elements, allocated at init). A gradient is copied into the bucket, reduced, and
        # its partition copied to the CPU (async_inplace_copy_grad_to_fp32_buffer_from_gpu); one larger than the
        # bucket is reduced where it is (extra_large_param_to_reduce). With accumulation, the CPU accumulates
        # (async_accumulate_grad_in_cpu_via_gpu).
        bucket = ds.reduce * act
        zero_kept = bucket + largest_numel * act
        fresh = largest_numel * act  # the gradient autograd has just produced, before it enters the bucket
        if t.sharding == "zero2":
            gradients = zero_kept + fresh
            led.formulas["gradients"] = (
                f"reduced and offloaded to CPU one bucket at a time: reduce bucket {ds.reduce / 1e6:g}M"
                f" x {act} B + staging buffer {count(largest_numel)} x {act} B, always on the GPU, + the gradient autograd"
                f" is producing, at most the largest tensor {count(largest_numel)} x {act} B (DeepSpeed ZeRO-2 cpu_offload)")
        else:
            # ZeRO-1: no per-gradient hooks (partition_gradients=False, overlap_comm off), so every 16-bit gradient
            # stays on the GPU until reduce_gradients at the accumulation boundary moves it through the bucket
            full = trainable * act
            gradients = full + zero_kept
            zero_kept += full if (t.grad_accumulation > 1 and not t.optimizer_in_backward) else 0.0
            led.formulas["gradients"] = (
                f"{count(trainable)} trainable x {act} B until the boundary's reduction + reduce bucket "
                f"{ds.reduce / 1e6:g}M x {act} B + staging buffer {count(largest_numel)} x {act} B"
                " (DeepSpeed ZeRO-1 cpu_offload; the reduced partitions go to the CPU)")
    elif t.cpu_offload:
        gathered = 0.0
        # Parameters, gradients and optimizer states live on the CPU (FSDP CPUOffload(offload_params=True),
        # ZeRO-3 offload); the GPU holds the gathered layer being computed plus the prefetched next one,
        # and the embedding/LM head while they are used. Checked against PEFT's FSDP-QLoRA 70B runs:
        # 35.6 GiB/GPU without offload vs 19.6 with it (reference measurements rows 140-141).
        root_b = unq if t.method == "qlora" else w_bytes
        if shard == "fsdp" and t.fsdp_wrap == "separate-embeddings":
            # embeddings and LM head are units of their own, gathered only while used, like a layer
            weights = max(2 * largest_layer_bytes, embed_params * root_b + largest_layer_bytes)
        else:
            weights = 2 * largest_layer_bytes + outer_params * root_b
        optimizer = 0.0
        paged = 0.0
        step_temp = 0.0
        gradients = gradients / max(1, arch.num_layers) * 2
        led.formulas["weights"] = "offloaded to CPU: two gathered layers + embeddings/LM head on the GPU"
        led.formulas["optimizer"] = "offloaded to CPU"

    # ------------------------------------------------------------ activations
    rows = wl.policy_rows(t)  # pair workloads: chosen and rejected rows of every example
    tokens = rows * t.seq_len
    logit_tokens = rows * wl.logit_positions(t)  # GRPO: the completion positions only (logits_to_keep)
    mlp_bytes = 4 if upcast and t.precision != "fp32" else act  # 4-bit layers return their fp32 input's dtype
    per_layer_token, largest_layer_token = layer_saved_bytes_per_token(arch, t, act, t.seq_len, mlp=mlp_bytes,
                                                                       resid=resid)
    checkpoint_token = resid * arch.hidden_size  # the layer input kept by checkpointing
    layers_here = arch.num_layers / n_gpus if pipeline else arch.num_layers
    merged_one, merged_all = merged_expert_bytes(arch, t, unq if t.method == "qlora" else w_bytes)
    one_layer = largest_layer_token * tokens + merged_one  # one layer's saved set, its W + delta-W included
    if t.grad_checkpointing:
        activations = layers_here * checkpoint_token * tokens + one_layer
        led.formulas["activations"] = (
            f"checkpoints {layers_here:g} layers x {checkpoint_token} B x {tokens} tokens"
            f" + one recomputed layer {largest_layer_token / 1024:.1f} KiB/token"
        )
        if merged_one:
            led.formulas["activations"] += f" + its experts' W + delta-W {merged_one / GIB:.2f} GiB (PEFT ParamWrapper)"
    else:
        activations = layers_here * per_layer_token * tokens + merged_all * layers_here / arch.num_layers
        led.formulas["activations"] = f"{layers_here:g} layers x {per_layer_token / 1024:.1f} KiB/token x {tokens} tokens"
        if merged_all:
            led.formulas["activations"] += (f" + the experts' W + delta-W {merged_all * layers_here / arch.num_layers / GIB:.2f}"
                                            " GiB (PEFT ParamWrapper)")
    if compile_modelled(arch, t):
        led.formulas["activations"] += " (torch.compile: norms keep bf16 normalised values, SiLU recomputed)"
    if t.activation_offload:
        kept = 2 * (checkpoint_token * tokens if t.grad_checkpointing else one_layer)
        activations = min(activations, kept + (one_layer if t.grad_checkpointing else 0))
        led.formulas["activations"] += " (offloaded to CPU: two layers stay on the GPU)"
    if _activation_adapter_path(t) == "autocast":
        # autocast casts the fp32 adapters to bf16 for each matmul and saves the casts for backward:
        # every layer's without checkpointing, the recomputed layer's with it (MemTracker, docs/validation.md)
        casts = 2 * lora_params / (arch.num_layers if t.grad_checkpointing else 1)
        activations += casts
        led.formulas["activations"] += (f" + bf16 autocast copies of {'one layer' if t.grad_checkpointing else 'every layer'}"
                                        f"'s LoRA adapters ({casts / 2**20:.1f} MiB)")
        # with checkpointing the other layers' copies stay in autocast's cache until the forward ends
        led.adapter_cast_per_layer = 2 * lora_cast_parameter_count(arch, t.lora_rank, t.lora_targets) / arch.num_layers
        # (never under ZeRO/FSDP: _activation_adapter_path is "native" there, nothing is cast)
        if t.grad_checkpointing:
            led.forward_cache = led.adapter_cast_per_layer * max(layers_here - 1, 0)
    led.recompute_transient_per_token = recompute_transient_per_token(arch, t, act, mlp_bytes, resid)
    # final norm (+ its output saved by a trainable LM head) and the embedding output
    head_saved = (4 if arch.norm == "rms" else act) * arch.hidden_size + (2 * act * arch.hidden_size if t.method == "full" else 0)
    if t.workload == "reward" and t.method != "full":
        # PEFT's sequence-classification task trains the value head (``score`` in modules_to_save): it saves its input
        head_saved += act * arch.hidden_size
    activations += head_saved * tokens
    led.formulas["activations"] += (f" + the final norm's saved input{' and the LM head input' if t.method == 'full' else ''}"
                                    f" {head_saved:,.0f} B/token x {tokens} tokens")
    led.activation_per_layer_token = per_layer_token
    led.merged_expert_bytes = merged_one
    led.checkpoint_per_layer_token = checkpoint_token

    # ------------------------------------------------------------ logits and loss
    v = arch.vocab_size
    # Under autocast a linear casts its weight to bf16 and the matmul saves the cast for the input's
    # gradient, so a 16-bit LM head emits 16-bit logits even when the head is fp32.
    logit_bytes = act
    logit_terms: list[Term] = []  # the loss side of a workload other than SFT, as terms
    if t.workload != "sft":
        led.formulas["logits"] = ""  # rendered from the terms (_workload_components)
    if t.workload == "reward":
        # the value head's scores (rows x positions x 1) in the forward, their gradient in the backward
        logits = float(tokens * act)
        logit_terms = [Term(key="value_head", value=logits, unit="B", parts=(
            Quantity(key="tokens", value=tokens, unit="tokens"), Quantity(key="elem_bytes", value=act, unit="B")),
            source="transformers GenericForSequenceClassification: score = nn.Linear(hidden, 1)")]
    elif t.fused_cross_entropy:
        chunk = min(tokens, 8192)
        logits = chunk * v * (act + 4 + 4) / 8  # one chunk of logits at a time (chunked CE, 8 chunks)
        led.formulas["logits"] = f"fused/chunked cross-entropy: one chunk of {chunk // 8} tokens x {v} vocab"
    elif t.workload != "sft":
        # TRL's selective_log_softmax on the policy's logits (core/workload.py LOGPROB_TENSORS): at the loss's backward
        held, peak, backward = wl.logprob_tensors(t, act)
        logits = logit_tokens * v * act * backward
        logit_terms = [_logps_term(logit_tokens, v, act, backward, "backward")]
        if (upcast and t.precision != "fp32") or amp_casts:  # the fp32 head's bf16 cast, saved as for SFT below
            logits += 2 * v * arch.hidden_size
    else:
        # When the loss's backward runs, the model output (the logits) has been dropped by the training
        # loop; the fp32 log-softmax saved by cross_entropy and two fp32 gradients (of the log-softmax
        # and of its input) are alive together: 12 B per vocabulary entry and token (MemTracker,
        # docs/validation.md). In the forward pass the peak is 10 B (logits + fp32 copy + log-softmax).
        per_token = v * max(4 + 4 + 4, logit_bytes + 4 + 4)
        logits = tokens * per_token
        led.formulas["logits"] = f"{tokens} tokens x {v} vocab x 12 B (fp32 log-softmax and two fp32 gradients)"
        if (upcast and t.precision != "fp32") or amp_casts:  # only where autocast casts an fp32 head
            # an fp32 LM head (PEFT's QLoRA upcast, fp32 master model) is cast to bf16 for its matmul under
            # autocast, and the cast stays saved until the head's backward, right after the loss's
            # (autograd MmBackward0.mat2, bf16; seen on fake tensors with transformers 5)
            logits += 2 * v * arch.hidden_size
            led.formulas["logits"] += f" + bf16 autocast copy of the fp32 LM head ({v} x {arch.hidden_size} x 2 B)"

    # ------------------------------------------------------------ transient per-layer temporaries
    base_temps = 2 * resid * arch.hidden_size * tokens  # gradient flowing between layers (two buffers)
    if t.method == "qlora":
        largest = max(m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods if m.count == 1)
        base_temps += 2 * largest  # dequantised bf16 copy of the matrix being multiplied
    temporaries = base_temps
    if t.attention == "eager":
        temporaries += rows * arch.num_attention_heads * t.seq_len * t.seq_len * 8  # scores, mask, fp32 cast

    # ------------------------------------------------------------ peaks
    # Moments that compete for the step's peak; each is a full set of live components.
    accumulating = t.grad_accumulation > 1 and not t.optimizer_in_backward
    grads_kept = gradients if accumulating else 0.0
    end_grads = gradients
    if t.unsharded_accumulation:
        # FSDP under no_sync() (FSDP2: set_requires_gradient_sync(False)) until the last micro-batch: each unit's
        # .grad stays the unsharded gradient of the whole unit, in the forward's dtype, and later micro-batches add
        # into it ("FSDP will accumulate the full model gradients (instead of gradient shards) until the eventual
        # sync", FullyShardedDataParallel.no_sync; with CPU offload they stay on the GPU until that sync)
        unsharded = (trainable + (layer_linear if t.frozen_weight_grads else 0)) * act
        grads_kept = end_grads = unsharded
        led.formulas["gradients"] += (f"; but between optimizer steps FSDP no_sync keeps them unsharded, which is what "
                                      f"is counted: {count(trainable + (layer_linear if t.frozen_weight_grads else 0))}"
                                      f" x {act} B")
    if zero_offload:
        grads_kept = zero_kept
    led.gradients_kept = grads_kept
    checkpoints = layers_here * checkpoint_token * tokens if t.grad_checkpointing else 0.0
    # With checkpointing the recomputation starts after the loss's buffers are freed.
    acts_at_loss = activations - (one_layer if t.grad_checkpointing else 0.0)
    candidates: dict[str, dict[str, float]] = {
        # the loss's backward: every saved activation, the loss buffers, gradients kept from
        # earlier micro-batches when accumulating, the gathered layers of ZeRO-3/FSDP
        "backward": {"gradients": grads_kept, "activations": acts_at_loss, "logits": logits,
                     "temporaries": temporaries, "optimizer": optimizer, "gathered": gathered},
        # end of backward: all gradients, only the first layer's activations left
        "end of backward": {"gradients": end_grads + root_end,
                            "activations": one_layer + checkpoints / max(layers_here, 1),
                            "logits": 0.0, "temporaries": temporaries, "optimizer": optimizer, "gathered": gathered},
        # optimizer step: gradients, states and the step's temporaries (layers are resharded)
        "optimizer step": {"gradients": gradients, "activations": 0.0, "logits": 0.0, "temporaries": step_temp,
                           "optimizer": optimizer, "gathered": 0.0},
    }
    # Inside a layer's MLP backward the gradients of its intermediates are alive next to the layer's saved
    # tensors: for SwiGLU the gradient of down_proj's input and of SiLU(gate) and up (3 x intermediate),
    # for a plain MLP the gradient of fc2's input and of the pre-activation (2 x), plus the incoming
    # hidden-state gradient (itemised on fake tensors, docs/accuracy.md known limit 6).
    inter = (arch.moe_intermediate_size * arch.experts_per_token + arch.shared_expert_intermediate_size
             if arch.is_moe else arch.intermediate_size)
    # (alive together with the inter-layer gradient buffers and QLoRA's dequantised matrix, not with eager
    # attention's score buffers, which belong to the attention backward)
    layer_backward = max(temporaries, base_temps + (3 if arch.mlp == "gated" else 2) * mlp_bytes * inter * tokens)
    # a checkpointed layer's recomputed forward: LoRA's input copies or a MoE block's locals next to its saved set
    layer_backward = max(layer_backward, base_temps + led.recompute_transient_per_token * tokens)
    # An FSDP unit's unsharded gradient builds up while its layer's saved tensors and MLP-gradient transients are
    # freed by the same backward: the moment holds whichever is larger (a lower bound; they overlap in between)
    unit_extra = max(0.0, unit_grad - (one_layer + layer_backward - base_temps))
    forward_casts += led.forward_cache
    if forward_casts:
        # end of the forward under checkpointing with an fp32 master model or fp32 LoRA adapters: the
        # autocast cache still holds every layer's bf16 weight (or adapter) cast next to the forward's loss
        # buffers (bf16 logits, fp32 copy and log-softmax, 10 B per vocabulary entry and token); it is
        # cleared when autocast exits
        fwd_logits = 0.0 if t.fused_cross_entropy else logit_tokens * arch.vocab_size * 10 + (
            2 * arch.vocab_size * arch.hidden_size if (upcast and t.precision != "fp32") or amp_casts else 0.0)
        if t.workload == "reward":  # the value head's scores, no vocabulary
            fwd_logits = float(tokens * act)
        candidates["end of forward"] = {"gradients": grads_kept, "activations": acts_at_loss, "logits": fwd_logits,
                                        "temporaries": 0.0, "optimizer": optimizer, "gathered": gathered + forward_casts}
    fwd_logit_terms: list[Term] = []
    ref_terms: dict[str, list[Term]] = {}  # the reference component's terms by moment
    ref_weight_terms: list[Term] = []
    fwd_ref_terms: list[Term] = []
    ref_weights = ref_fwd = 0.0
    if t.workload in {"dpo", "kto", "orpo", "grpo"}:
        head_cast = 2.0 * arch.vocab_size * arch.hidden_size if (upcast and t.precision != "fp32") or amp_casts else 0.0
        fwd_logits, fwd_ref, fwd_logit_terms, fwd_ref_terms, ref_weights, ref_weight_terms = _workload_forward(
            arch, t, logit_tokens, act, resid, model_weight_bytes, total_params, shard, n_gpus, pipeline,
            gathered_layers=2 * largest_layer_bytes * (2 / w_bytes if amp else 1),
            fused_bytes=logits if t.fused_cross_entropy else None, head_cast=head_cast)
        ref_fwd = fwd_ref
        if head_cast and not t.fused_cross_entropy:
            logit_terms.append(_head_cast_term(arch))
        # the end of the policy's forward: its saved activations, its loss side and the reference's forward (TRL
        # DPOTrainer._compute_loss), the autocast cache not yet cleared
        candidates["end of forward"] = {"gradients": grads_kept, "activations": acts_at_loss, "logits": fwd_logits,
                                        "temporaries": 0.0, "optimizer": optimizer, "gathered": gathered + forward_casts}
    led.reference_weights, led.reference_transient = ref_weights, ref_fwd
    if t.grad_checkpointing:
        # backward through the last layer: its recomputed activations next to all checkpoints
        # (the final norm's and LM head's saved inputs were freed by their backward, which ran first)
        candidates["recomputed layer"] = {"gradients": grads_kept + unit_extra + root_wait,
                                          "activations": activations - head_saved * tokens,
                                          "logits": 0.0,
                                          "temporaries": layer_backward, "optimizer": optimizer,
                                          "gathered": gathered}
    else:
        # backward through the last layer: every layer's saved tensors, the loss buffers already freed
        candidates["last layer backward"] = {"gradients": grads_kept + unit_extra + root_wait,
                                             "activations": acts_at_loss - head_saved * tokens,
                                             "logits": 0.0,
                                             "temporaries": layer_backward, "optimizer": optimizer,
                                             "gathered": gathered}
    if t.method == "full" and arch.tie_word_embeddings and shard in {"none", "ddp", "zero1", "zero2"} \
            and not pipeline and not t.cpu_offload and t.workload != "reward":  # (a value head has no tied matrix)
        # Tied embeddings: the LM head's gradient contribution waits in autograd's input buffer until the
        # embedding's backward has produced its own dense vocab x h gradient; the engine adds the two into a
        # third buffer before AccumulateGrad (or a step-in-backward hook, or DDP/ZeRO's reduction hook) takes
        # it: 3 x vocab x h next to every other gradient and the optimizer states (MemTracker: 3.75 GiB of
        # temporaries on Gemma 3 4B, docs/validation.md). The gradient counts one of the three, except from the
        # second micro-batch of an accumulation, where the sum is then added into the existing .grad
        # (aten::add then aten::add_, profiled on CPU tensors)
        emb_grad = embed_params * grad_bytes
        # (ZeRO-2 counts a shard of it among the gradients and reduces the sum at once, never adding into .grad)
        counted = emb_grad / n_gpus if shard == "zero2" else emb_grad
        extra = 3 * emb_grad - (0.0 if accumulating and shard != "zero2" else counted)
        candidates["embedding backward"] = {"gradients": gradients, "activations": 0.0, "logits": 0.0,
                                            "temporaries": extra, "optimizer": optimizer, "gathered": 0.0}

    if ref_weights or ref_fwd:  # DPO/KTO: the reference's weights all step long, its forward at the forward's end
        for name, parts in candidates.items():
            parts["reference"] = ref_weights + (ref_fwd if name == "end of forward" else 0.0)
            ref_terms[name] = ref_weight_terms + (fwd_ref_terms if name == "end of forward" else [])
    gen_terms = _generation_memory(arch, t, gpu, candidates, weights, model_weight_bytes, shard, n_gpus)
    for name, parts in candidates.items():  # DeepSpeed's reduce bucket: ZeRO-3 always, ZeRO-1/2 in the backward
        if ds_bucket and (t.sharding == "zero3" or name not in {"optimizer step", "end of forward"}):
            parts["gradients"] += ds_bucket
    allocated = {k: weights + adapters + sum(v.values()) + CUBLAS_WORKSPACE_BYTES for k, v in candidates.items()}
    phase = max(allocated, key=lambda k: allocated[k])
    live = candidates[phase]
    if phase == "end of forward" and led.forward_cache:
        led.formulas["weights"] += " + bf16 autocast copies of the LoRA adapters, cached until the forward ends"
    peak_allocated = allocated[phase]
    transient = activations + logits + temporaries
    if t.workload != "sft":  # the loss side at its largest, and the reference forward's transients
        transient = activations + max(logits, candidates.get("end of forward", {}).get("logits", 0.0)) \
            + temporaries + ref_fwd
    frag_share = ALLOCATOR_FRAGMENTATION[t.sequence_mode]
    fragmentation = frag_share * transient
    # Reserved memory never shrinks within a run: the backward leaves its fragmented cache behind,
    # and the optimizer step's temporaries can reuse those cached blocks.
    backward_alloc = max(v for k, v in allocated.items() if k != "optimizer step")
    reserved = max(backward_alloc + fragmentation, allocated["optimizer step"], peak_allocated)
    nccl = 256 * MIB if n_gpus > 1 and not pipeline else 0.0  # NCCL communicator buffers
    # With dynamic padding, max_memory_reserved also shows the cached blocks of earlier batch shapes, as far as
    # the card has room for them; they are given back before an out-of-memory error, so not in the total.
    cache = 0.0
    if t.sequence_mode == "dynamic":
        room = gpu.memory_gib * GIB - CUDA_CONTEXT_BYTES - nccl - reserved
        cache = max(0.0, min(DYNAMIC_SHAPE_CACHE[t.method] * transient, room))
    # Paged optimizer states live in CUDA unified memory (cudaMallocManaged): the driver migrates their
    # pages to host RAM when device allocations need the room, so they never cause an out-of-memory
    # error and are not part of what the GPU must hold (QLoRA arXiv:2305.14314 §3 "Paged Optimizers";
    # bitsandbytes GlobalPageManager). They are reported next to the total, not in it.
    total = reserved + CUDA_CONTEXT_BYTES + nccl

    capacity = gpu.memory_gib * GIB
    led.weights, led.adapters, led.gradients, led.optimizer = weights, adapters, gradients, optimizer
    led.optimizer_paged, led.activations, led.logits, led.temporaries = paged, activations, logits, temporaries
    led.step_temporaries = step_temp

    comps = [
        MemoryComponent(key="weights", label="Weights", bytes=weights + live["gathered"], formula=led.formulas["weights"],
                        source="parameter count from config.json x bytes per parameter; NF4: QLoRA arXiv:2305.14314"),
        MemoryComponent(key="adapters", label="LoRA adapters", bytes=adapters, formula=led.formulas.get("adapters", ""),
                        source="LoRA arXiv:2106.09685; PEFT LoraLayer"),
        MemoryComponent(key="gradients", label="Gradients", bytes=live["gradients"],
                        formula=led.formulas["gradients"] + (
                            f" + the FSDP unit's unsharded gradient as its layer's backward ends, twice (per weight "
                            f"and flattened for the reduce-scatter), beyond the saved tensors it replaces: "
                            f"{unit_extra / GIB:.2f} GiB" if unit_extra and phase in {"recomputed layer", "last layer backward"}
                            else "") + (
                            f" + the root unit's LM-head gradient waiting for the embedding's ({root_wait / GIB:.2f} GiB)"
                            if root_wait and phase in {"recomputed layer", "last layer backward"} else
                            f" + the root unit's embedding and LM-head gradients with their flat copy before the "
                            f"reduce-scatter ({root_end / GIB:.2f} GiB)" if root_end and phase == "end of backward" else ""),
                        source="one gradient per trainable parameter in its dtype"
                        + ("; FSDP: no_sync, root-unit and frozen-parameter notes in the FullyShardedDataParallel "
                           "and fully_shard docstrings" if shard == "fsdp" else "")),
        MemoryComponent(key="optimizer", label="Optimizer states", bytes=live["optimizer"],
                        formula=led.formulas["optimizer"]
                        + (f" in unified memory ({paged / GIB:.2f} GiB, paged to CPU RAM when the GPU is full)" if paged else ""),
                        source="torch.optim.AdamW; bitsandbytes 8-bit optimizers arXiv:2110.02861"),
        MemoryComponent(key="activations", label="Activations", bytes=live["activations"],
                        formula={"end of backward": "at the end of backward only the first layer's saved tensors are left; "
                                                    "at the start: ",
                                 "backward": ("at the loss's backward only the checkpoints and the head's inputs are alive "
                                              "(the recomputed layer comes later); the ledger: " if t.grad_checkpointing else ""),
                                 "end of forward": ("at the end of the forward only the checkpoints and the head's inputs are "
                                                    "alive; the ledger: " if t.grad_checkpointing else ""),
                                 "optimizer step": "freed before the optimizer step; during backward: ",
                                 "embedding backward": "freed before the embedding's backward; during backward: "}.get(phase, "")
                        + led.formulas["activations"],
                        source="saved tensors of the HF decoder layer; Korthikanti et al. arXiv:2205.05198"),
        MemoryComponent(key="logits", label="Logits & loss", bytes=live["logits"], formula=led.formulas["logits"],
                        source="transformers ForCausalLMLoss; Liger/CCE arXiv:2411.09009"),
        MemoryComponent(key="temporaries", label="Temporaries", bytes=live["temporaries"] + CUBLAS_WORKSPACE_BYTES,
                        formula=("AdamW's foreach step temporary (one state-sized buffer, _foreach_sqrt) + cuBLAS workspace"
                                 if phase == "optimizer step" and step_temp else
                                 "the tied embedding's gradient contributions while autograd adds them (vocab x hidden "
                                 "each) + cuBLAS workspace" if phase == "embedding backward" else
                                 "gradient buffers between layers, dequantised matrix, cuBLAS workspace"),
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
    if t.workload != "sft":
        comps = _workload_components(t, comps, phase, live, logit_terms, fwd_logit_terms, ref_terms)
    if gen_terms:
        comps.insert(next(i for i, c in enumerate(comps) if c.key == "allocator"), MemoryComponent(
            key="generation", label="Generation", bytes=live.get("generation", 0.0),
            formula=" + ".join(render_formula(term) for term in gen_terms.get(phase, [])) or
            "nothing of the generation at this moment",
            source=f"{wl.TRL} trl/generation/vllm_generation.py, GRPOTrainer; vLLM gpu_memory_utilization",
            terms=gen_terms.get(phase, [])))
    # a colocated vLLM engine's share is a fixed allocation (gpu_memory_utilization x the card), not an estimate:
    # the measured error band applies to the rest
    fixed = live.get("generation", 0.0) if t.workload == "grpo" and t.generation_engine == "vllm-colocate" else 0.0
    low, high = likely_range(total - fixed, t.sequence_mode)
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
    )
    return est, led
