"""Per-GPU memory of one training step, component by component.

The ledger follows what PyTorch actually keeps alive, not a rule of thumb:

* **Weights** are held in the training dtype; QLoRA stores the layer matrices in NF4 (4 bits)
  with one absmax per 64-element block (fp32, or 8-bit with a second-level fp32 constant per
  256 blocks under double quantisation) (Dettmers et al. 2023, QLoRA, arXiv:2305.14314 §2-3;
  bitsandbytes ``Linear4bit``). Everything bitsandbytes leaves unquantised (embeddings, LM head,
  norms, stacked MoE experts) stays in the training dtype by default, as axolotl (which casts them
  back after PEFT's ``prepare_model_for_kbit_training``), current TRL, torchtune, Unsloth and LitGPT
  leave it; with ``kbit_fp32_upcast`` (a plain PEFT script) it is fp32, except for FSDP/ZeRO-3
  ("sharded QLoRA"), where TRL and axolotl skip the upcast. With fp32 embeddings (or an fp32 master
  model under autocast) the residual stream between layers is fp32 too.
* **Gradients** exist only for trainable parameters, in their dtype; with the optimizer step
  fused into backward they are freed one parameter at a time (torchtune ``optimizer_in_bwd``).
  Under FSDP each unit's gradient is unsharded until its reduce-scatter; with gradient accumulation
  under ``no_sync()`` (Hugging Face Trainer/accelerate's default, Lightning Fabric) the whole unsharded
  gradient stays until the optimizer step (``FullyShardedDataParallel.no_sync`` docstring), and FSDP
  units that mix frozen and trainable weights (LitGPT's per-``Block`` wrapping) give every frozen
  weight a gradient ("equivalent to not freezing those parameters", FSDP docstring). FSDP's root unit
  (embeddings, final norm and LM head unless they are wrapped apart) stays unsharded through the step
  (FSDP1 ``_post_forward_reshard``; FSDP2 ``fully_shard`` docstring), and a trained root's gradients wait
  for the embedding's before its reduce-scatter.
* **CPU offload** depends on the sharding. ZeRO-3 and FSDP offload parameters, gradients and optimizer
  states; the GPU holds the layers being gathered. Below stage 3 DeepSpeed cannot offload parameters
  (``offload_param``: "Valid only with stage 3"): ZeRO-1/2 with ``cpu_offload`` is ZeRO-Offload
  (Ren et al. 2021, arXiv:2101.06840), DeepSpeed's ``offload_optimizer``. The optimizer states and the
  fp32 master copy live on the CPU (stage_1_and_2.py: ``weights_partition`` pinned in CPU memory),
  every GPU keeps the whole 16-bit model (ZeRO-1/2 do not partition parameters), and each gradient is
  copied through the reduce bucket into a pinned fp32 CPU buffer after its reduction
  (``async_inplace_copy_grad_to_fp32_buffer_from_gpu``: ``param.grad = None  #offload only``). What stays on
  the GPU is the reduce bucket (``reduce_bucket_size`` elements), a staging buffer the size of the largest
  trainable tensor (``temp_grad_buffer_for_gpu_offload``) and the gradient autograd is producing; ZeRO-1
  registers no per-gradient hooks (unless ``overlap_comm``), so its 16-bit gradients all stay on the GPU
  until the accumulation boundary's reduction.
* **DeepSpeed ZeRO** (stages 1-3, 16-bit, no offload) is mixed precision of its own, whatever the plan's
  master-weights setting: the engine casts the whole module, LoRA adapters included, to bf16/fp16
  (engine.py ``_configure_distributed_model``), the ZeRO optimizer keeps an fp32 master partition of the
  trained parameters (``single_partition_of_fp32_groups``; stage 3 ``fp32_partitioned_groups_flat``) and steps
  it with fp32 states, and gradients stay 16-bit (``get_data_types``). The step converts the partition's
  gradients to fp32 (ZeRO-3: one ``sub_group_size`` group at a time), and ``contiguous_gradients`` keeps a
  ``reduce_bucket_size`` buffer: in each backward below stage 3, for the whole run at stage 3.
* **Optimizer states** per trainable parameter: AdamW keeps two moments in the parameter's dtype
  (``torch.optim.AdamW`` ``zeros_like(p)``); bitsandbytes 8-bit AdamW keeps two uint8 moments plus
  one fp32 absmax per 256-element block (Dettmers et al. 2022, arXiv:2110.02861); paged variants
  live in CUDA unified memory, outside ``torch.cuda.memory_allocated``; SGD keeps one momentum
  buffer; Adafactor factors the second moment into row and column vectors (Shazeer & Stern 2018,
  arXiv:1804.04235) and keeps no first moment by default (Hugging Face ``Adafactor(beta1=None)``).
* **Activations** are the tensors autograd saves for backward, per decoder layer, derived from the
  Hugging Face Llama layer (``modeling_llama.py``): RMSNorm saves an fp32 copy of its input; a
  linear layer saves its input only when its weight gets a gradient (frozen base weights under
  LoRA save nothing; bitsandbytes' 4-bit ``MatMul4Bit`` keeps only the NF4 weight since 0.43.2);
  FlashAttention saves q, k, v, the output and an fp32 log-sum-exp per head
  (Dao 2023, arXiv:2307.08691); eager attention also saves the fp32 softmax and its bf16 copy,
  ``6 * heads * s`` bytes per token; SwiGLU saves gate, up and SiLU(gate) (and their product when
  ``down_proj`` trains). This generalises Korthikanti et al. 2022 (arXiv:2205.05198, Table 2) to
  GQA, SwiGLU, RMSNorm and frozen weights. With gradient checkpointing each layer keeps only its
  input (``2*s*b*h`` bytes) and one layer is recomputed at a time (Chen et al. 2016, arXiv:1604.06174).
  Multi-head latent attention (DeepSeek-V2/V3, transformers ``DeepseekV2Attention.forward``) saves by the same
  rules: the fp32 inputs of ``kv_a_layernorm`` and ``q_a_layernorm`` (the compressed kv and query), the inputs of
  ``q_b_proj``/``kv_b_proj`` when they train, and for the attention kernel the concatenated query and key
  (``heads x (qk_nope + qk_rope)``, the one rotary key broadcast to every head) and the values; see
  :func:`mla_attention_saved_per_token`.
* **Logits and loss**: the LM head's bf16 logits, the fp32 upcast in the loss, the log-softmax
  saved by ``cross_entropy`` and the fp32 gradients of the backward (transformers
  ``ForCausalLMLoss``); fused/chunked cross-entropy (Liger, torchtune ``CEWithChunkedOutputLoss``,
  Cut Cross-Entropy) never materialises them (Wijmans et al. 2024, arXiv:2411.09009).
* **Allocator and context**: ``max_memory_reserved`` exceeds ``max_memory_allocated`` because the
  caching allocator rounds blocks and cannot reuse split blocks for differently sized requests;
  nvidia-smi adds the CUDA context (driver, kernels, cuBLAS/cuDNN handles).

The peak is the largest of the moments of a step, each a full set of live tensors: the start of
the loss's backward (activations and loss buffers), backward through the last layer (all saved
tensors plus that layer's MLP-gradient transients; with checkpointing, the recomputed layer next to
all checkpoints), the end of backward (all gradients), the end of the forward with an fp32 master
model under checkpointing (the autocast cache of weight casts), the backward of a tied embedding in full
fine-tuning (every gradient plus the embedding's two contributions being added), and the optimizer step
(gradients, states and the step's temporaries). ``MemoryEstimate.peak_phase`` names the moment.

**Workloads** other than supervised fine-tuning (``TrainingSetup.workload``; TRL's trainers, read in
``core/workload.py``): pair workloads run ``2 x micro_batch`` rows per forward (chosen and rejected), so every
per-token term covers twice the tokens; the loss side holds the logits and the log-softmax TRL's
``selective_log_softmax`` saves instead of transformers' fp32 cross-entropy buffers (``policy_logps`` parts of the
``logits`` component, :data:`~tuneplan.core.workload.LOGPROB_TENSORS`); a reward model has a value head instead of the
LM head (``value_head``). DPO and KTO add a ``reference`` component: a frozen copy's weights (none when the LoRA policy
is its own reference with the adapters disabled, or when the log-probs are precomputed) and, at the end of the forward,
the reference forward's transients next to every activation the policy saved: one layer's no-grad working set, or its
logits while TRL's metrics copy the policy's. SFT plans are computed exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tuneplan.core import workload as wl
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.result import GIB, MemoryComponent, MemoryEstimate
from tuneplan.core.scenario import GpuSpec, TrainingSetup
from tuneplan.core.terms import Quantity, Term, render_formula

__all__ = [
    "CUDA_CONTEXT_BYTES",
    "DEEPSPEED_REDUCE_BUCKET_ELEMENTS",
    "DeepSpeedBuffers",
    "deepspeed_buffers",
    "DEEPSPEED_SUB_GROUP_ELEMENTS",
    "DEEPSPEED_MAX_REUSE_DISTANCE",
    "DEEPSPEED_PREFETCH_ELEMENTS",
    "MEASURED_ERROR",
    "MEASURED_ERROR_BY_MODE",
    "ALLOCATOR_FRAGMENTATION",
    "DYNAMIC_SHAPE_CACHE",
    "adapter_path",
    "compile_modelled",
    "MemoryLedger",
    "estimate_memory",
    "likely_range",
    "PAGED_MIN_NUMEL",
    "PEFT_EXPERT_TARGET_TYPES",
    "experts_adapted",
    "lora_parameter_count",
    "lora_tensors",
    "merged_expert_bytes",
    "nf4_bytes_per_param",
]

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
ALLOCATOR_FRAGMENTATION = {"fixed": 0.15, "packed": 0.15, "dynamic": 0.15}

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

#: DeepSpeed ZeRO-1/2: elements of the gradient reduce ("IPG") bucket, ``zero_optimization.reduce_bucket_size``'s
#: default (``reduce_bucket_size: int = Field(pp_int(5e8))``, deepspeed/runtime/zero/config.py). Each backward
#: allocates it whole in the model's dtype (``torch.empty(int(self.reduce_bucket_size), dtype=self.dtype)``,
#: stage_1_and_2.py ``backward``), whatever the model's size; Hugging Face's ``"auto"`` fills hidden x hidden.
DEEPSPEED_REDUCE_BUCKET_ELEMENTS = 500_000_000

#: DeepSpeed ZeRO-3: the optimizer steps the fp32 partition in sub-groups of at most this many elements
#: (``sub_group_size: int = Field(pp_int(1e9))``, deepspeed/runtime/zero/config.py; stage3.py
#: ``_create_fp16_sub_groups``), so the step's fp32 gradient copy and the optimizer's temporaries cover one sub-group.
DEEPSPEED_SUB_GROUP_ELEMENTS = 1_000_000_000

#: DeepSpeed ZeRO-3's parameter coordinator keeps a gathered parameter when the module trace reaches its next use
#: within this many elements (``stage3_max_reuse_distance``, default ``pp_int(1e9)``, zero/config.py;
#: partitioned_param_coordinator.py ``__params_to_release``), and prefetches up to this many elements of upcoming
#: parameters (``stage3_prefetch_bucket_size``, default ``pp_int(5e7)``; whole parameters, so it may pass it by one).
DEEPSPEED_MAX_REUSE_DISTANCE = 1_000_000_000
DEEPSPEED_PREFETCH_ELEMENTS = 50_000_000

#: Hugging Face's ``"auto"`` fill of DeepSpeed's buffers from the hidden size h (transformers
#: integrations/deepspeed.py ``HfTrainerDeepSpeedConfig.trainer_config_finalize``): reduce bucket h x h elements,
#: ZeRO-3 prefetch bucket 0.9 x h x h (and persistence threshold 10 x h, below any weight matrix here).
HF_AUTO_REDUCE_PER_H2 = 1.0
HF_AUTO_PREFETCH_PER_H2 = 0.9


@dataclass(frozen=True)
class DeepSpeedBuffers:
    """DeepSpeed ZeRO buffer sizes a plan runs with, in elements: ``reduce`` (gradient reduce bucket), ``prefetch``
    (ZeRO-3 prefetch bucket), ``sub_group`` (ZeRO-3 optimizer sub-group; 0 = one parameter per group) and
    ``max_reuse`` (ZeRO-3 reuse distance). ``source`` per value: ``plan`` (set explicitly), ``hf-auto`` or
    ``deepspeed`` (its default)."""

    reduce: float
    prefetch: float
    sub_group: float
    max_reuse: float
    source: dict[str, str]


def deepspeed_buffers(arch: ModelArchitecture, t: TrainingSetup) -> DeepSpeedBuffers:
    """The plan's DeepSpeed buffer sizes (elements): its explicit ``deepspeed_*`` values, else Hugging Face's
    ``"auto"`` fill when ``deepspeed_auto_buckets`` (reduce ``h^2``, ZeRO-3 prefetch ``0.9 h^2``; sub-group and
    reuse distance have no auto fill), else DeepSpeed's defaults (:data:`DEEPSPEED_REDUCE_BUCKET_ELEMENTS` ...)."""
    h2 = float(arch.hidden_size) ** 2
    auto = t.deepspeed_auto_buckets
    source: dict[str, str] = {}

    def pick(key: str, explicit: float | None, default: float, auto_value: float | None = None) -> float:
        if explicit is not None:
            source[key] = "plan"
            return float(explicit)
        if auto and auto_value is not None:
            source[key] = "hf-auto"
            return auto_value
        source[key] = "deepspeed"
        return float(default)

    return DeepSpeedBuffers(
        reduce=pick("reduce", t.deepspeed_reduce_bucket, DEEPSPEED_REDUCE_BUCKET_ELEMENTS, HF_AUTO_REDUCE_PER_H2 * h2),
        prefetch=pick("prefetch", t.deepspeed_prefetch_bucket, DEEPSPEED_PREFETCH_ELEMENTS,
                      HF_AUTO_PREFETCH_PER_H2 * h2),
        sub_group=pick("sub_group", t.deepspeed_sub_group, DEEPSPEED_SUB_GROUP_ELEMENTS),
        max_reuse=pick("max_reuse", t.deepspeed_max_reuse_distance, DEEPSPEED_MAX_REUSE_DISTANCE),
        source=source,
    )


#: How a formula names where a DeepSpeed buffer size came from (:attr:`DeepSpeedBuffers.source`).
_DS_SOURCE = {"plan": ", as planned", "hf-auto": ", Hugging Face \"auto\": hidden x hidden", "deepspeed": " default"}

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
}



def likely_range(total_bytes: float, sequence_mode: str) -> tuple[float, float]:
    """``(low, high)`` bytes: where a device total estimated at ``total_bytes`` is likely to fall, given the
    estimator's measured error on real runs (:data:`MEASURED_ERROR_BY_MODE`, the same for every mode):
    ``total/(1 + p90) .. total/(1 + p10)``. Raises ``KeyError`` for an unknown mode."""
    p10, p90 = MEASURED_ERROR_BY_MODE[sequence_mode]
    return total_bytes / (1 + p90), total_bytes / (1 + p10)


_DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}


def nf4_bytes_per_param(double_quant: bool) -> float:
    """Bytes per parameter of an NF4-quantised matrix, quantisation constants included.

    4 bits per weight, plus per block of 64 weights either one fp32 absmax (32/64 = 0.5 bit) or,
    with double quantisation, one 8-bit absmax plus one fp32 constant per 256 blocks
    (8/64 + 32/(64*256) = 0.127 bit). Source: QLoRA paper, arXiv:2305.14314 §3.
    """
    bits = 4 + (8 / 64 + 32 / (64 * 256) if double_quant else 32 / 64)
    return bits / 8


#: MoE model types whose stacked experts PEFT's ``all-linear`` adapts (PEFT 0.21
#: ``utils/transformers_weight_conversion.py``: the types transformers' ``_MODEL_TO_CONVERSION_PATTERN`` maps
#: to the ``mixtral`` or ``qwen2_moe`` conversion, plus ``mixtral`` itself). For every other MoE type
#: (``qwen2_moe`` itself, ``gpt_oss``, ``llama4``, ...) ``all-linear`` only reaches ``nn.Linear`` modules and
#: the 3-D expert tensors stay frozen (checked with PEFT 0.21 on tiny qwen2_moe, qwen3_moe, olmoe, gpt_oss).
PEFT_EXPERT_TARGET_TYPES = frozenset({
    "mixtral", "minimax", "minimax_m2", "afmoe", "deepseek_v2", "deepseek_v3", "deepseek_v32", "dots1",
    "ernie4_5_moe", "glm4_moe", "glm4_moe_lite", "glm_moe_dsa", "glm4v_moe", "longcat_flash", "solar_open",
    "mellum", "qwen3_moe", "qwen3_omni_moe", "qwen3_omni_moe_thinker", "qwen3_next", "hunyuan_v1_moe",
    "flex_olmo", "olmoe", "exaone_moe", "cohere2_moe",
})

#: bitsandbytes' paged optimizers put a state tensor in unified memory only when its parameter has at
#: least this many elements; smaller ones get an ordinary device tensor (``Optimizer8bit.get_state_buffer``).
PAGED_MIN_NUMEL = 100_000


#: What the attention presets mean for multi-head latent attention (Tuneplan's choice; the MLA modules have no
#: k_proj or v_proj, and PEFT matches names exactly, so ``["q_proj", "v_proj"]`` would adapt only DeepSeek-V2-Lite's
#: q_proj and nothing at all on DeepSeek-V3): ``q_v`` adapts the query path and ``kv_b_proj``, the projection the
#: values (and the non-rotary keys) come from; ``qkvo`` every attention linear.
MLA_TARGETS = {
    "q_v": ("q_proj", "q_a_proj", "q_b_proj", "kv_b_proj"),
    "qkvo": ("q_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"),
}


def _targets(arch: ModelArchitecture, targets: str) -> set[str]:
    if arch.is_mla and targets in MLA_TARGETS:
        present = {m.name for m in arch.attention_modules()}
        return set(MLA_TARGETS[targets]) & present
    if targets == "q_v":
        return {"q_proj", "v_proj"}
    if targets == "qkvo":
        return {"q_proj", "k_proj", "v_proj", "o_proj"}
    names = {m.name for _, mods in arch.linear_modules() for m in mods if m.kind != "router"}
    return names


def lora_target_modules(arch: ModelArchitecture, targets: str) -> list[str]:
    """The module names a LoRA preset adapts in this architecture, in layer order (``all-linear`` as itself).

    ``q_v`` and ``qkvo`` are ``q_proj, v_proj`` and ``q_proj, k_proj, v_proj, o_proj``, except under multi-head
    latent attention (:data:`MLA_TARGETS`): ``q_proj`` (or ``q_a_proj, q_b_proj``) and ``kv_b_proj`` for ``q_v``,
    every attention linear for ``qkvo``.
    """
    if targets == "all-linear":
        return ["all-linear"]
    wanted = _targets(arch, targets)
    if arch.is_mla:
        return [m.name for m in arch.attention_modules() if m.name in wanted]
    return [n for n in ("q_proj", "k_proj", "v_proj", "o_proj") if n in wanted]


def experts_adapted(arch: ModelArchitecture, targets: str) -> bool:
    """Whether LoRA with these targets adapts the stacked experts (PEFT ``ParamWrapper``), see
    :data:`PEFT_EXPERT_TARGET_TYPES`."""
    return arch.is_moe and targets == "all-linear" and arch.model_type in PEFT_EXPERT_TARGET_TYPES


def _is_adapted(arch: ModelArchitecture, m, wanted: set[str], targets: str) -> bool:  # noqa: ANN001 - LinearModule
    if m.count > 1:
        return m.name in wanted and experts_adapted(arch, targets)
    return m.name in wanted


def lora_tensors(arch: ModelArchitecture, rank: int, targets: str) -> list[tuple[int, int, int]]:
    """Every LoRA weight matrix as ``(how many in the model, rows, columns)``.

    A plain adapted linear (``d_in`` -> ``d_out``) gets ``lora_A`` of ``r x d_in`` and ``lora_B`` of
    ``d_out x r`` (Hu et al. 2021, LoRA, arXiv:2106.09685 §4.1; PEFT ``LoraLayer.update_layer``).

    Stacked experts (transformers >= 5 keeps each layer's experts as 3-D tensors, ``gate_up_proj`` of
    experts x 2i x h and ``down_proj`` of experts x h x i, and the router as a bare weight) are adapted by
    PEFT's ``ParamWrapper`` when :func:`experts_adapted`: ``lora_A`` is ``Linear(d_in, r * E)`` and
    ``lora_B`` ``Linear(r * E, d_out)``; the fused gate/up pair gets rank 2r (``rank_pattern``), so
    ``lora_A`` is ``2rE x h`` and ``lora_B`` ``2i x 2rE``; the router ``r x h`` and ``E x r`` (PEFT 0.21
    ``tuners/lora/layer.py`` ``ParamWrapper``, ``utils/transformers_weight_conversion.py``; shapes printed by
    PEFT on a small Mixtral, tests).
    """
    wanted = _targets(arch, targets)
    out: list[tuple[int, int, int]] = []
    for n_layers, mods in arch.linear_modules():
        stacked = {m.name for m in mods if m.count > 1}
        for m in mods:
            if m.kind == "router" or not _is_adapted(arch, m, wanted, targets):
                continue
            if m.count > 1:
                e = m.count
                if m.name == "up_proj" and "gate_proj" in stacked:
                    continue  # fused with gate_proj into one gate_up_proj tensor
                if m.name == "gate_proj" and "up_proj" in stacked:
                    out += [(n_layers, 2 * rank * e, m.d_in), (n_layers, 2 * m.d_out, 2 * rank * e)]
                else:
                    out += [(n_layers, rank * e, m.d_in), (n_layers, m.d_out, rank * e)]
            else:
                out += [(n_layers, rank, m.d_in), (n_layers, m.d_out, rank)]
        router = next((m for m in mods if m.kind == "router"), None)
        if router is not None and stacked and experts_adapted(arch, targets):
            out += [(n_layers, rank, router.d_in), (n_layers, router.d_out, rank)]
    return out


def lora_parameter_count(arch: ModelArchitecture, rank: int, targets: str) -> int:
    """LoRA adapter parameters: ``r * (d_in + d_out)`` per adapted matrix (A: r x d_in, B: d_out x r).

    ``targets``: ``q_v`` (q_proj, v_proj), ``qkvo`` (all attention projections) or ``all-linear``
    (every linear layer of the blocks; PEFT's ``all-linear`` excludes the LM head). Stacked MoE experts
    follow PEFT's ``ParamWrapper`` shapes, e.g. ``2r * E * (h + 2i)`` for a fused gate/up tensor; see
    :func:`lora_tensors` for the shapes and sources.
    """
    return sum(n * rows * cols for n, rows, cols in lora_tensors(arch, rank, targets))


def lora_cast_parameter_count(arch: ModelArchitecture, rank: int, targets: str) -> int:
    """LoRA parameters of the adapters that run as ``nn.Linear`` (every adapted plain linear and the
    router's), the ones autocast casts to bf16 and keeps in its cache (it caches casts of leaf tensors
    that require grad: ``cached_cast`` in ATen's ``autocast_mode.cpp``). The stacked experts' factors
    (PEFT ``ParamWrapper``) are not among them: MemTracker shows no cached copies of those.
    """
    wanted = _targets(arch, targets)
    total = 0
    for n_layers, mods in arch.linear_modules():
        stacked = any(m.count > 1 for m in mods)
        for m in mods:
            if m.count == 1 and m.kind != "router" and m.name in wanted:
                total += n_layers * rank * (m.d_in + m.d_out)
            elif m.kind == "router" and stacked and experts_adapted(arch, targets):
                total += n_layers * rank * (m.d_in + m.d_out)
    return total


def adapter_path(t: TrainingSetup) -> str:
    """How the LoRA adapters of ``t`` run, which decides their dtype and the copies of their inputs.

    Returns ``"none"`` (full fine-tuning), ``"native"`` (adapters in the model's dtype, nothing cast:
    ``adapter_precision="model-dtype"``, or FP32 training where everything is FP32), ``"autocast"``
    (FP32 adapters under BF16/FP16 autocast: the default, and always with an FP32 master model) or
    ``"fp32"`` (FP32 adapters without autocast: PEFT's ``_cast_input_dtype`` casts each adapted input
    to FP32 and the adapter matmuls run in FP32; peft/tuners/lora/layer.py ``Linear.forward`` and
    bnb.py ``Linear4bit.forward``, which casts only when autocast is off).
    """
    if t.method == "full":
        return "none"
    if t.frozen_weight_grads:
        # one FlatParameter per layer holds the frozen weights and the adapters, and it has one dtype
        # (FSDP1 flattening refuses mixed dtypes): the adapters are in the weights' dtype (LitGPT bf16-true)
        return "native"
    amp = t.master_weights == "fp32" and t.precision != "fp32" and t.method != "qlora"
    if amp:
        return "autocast"
    if t.precision == "fp32":
        return "native"
    return {"fp32-autocast": "autocast", "fp32": "fp32", "model-dtype": "native"}[t.adapter_precision]


#: Linear layers that read the same tensor in a decoder layer (the input norm's or post-attention norm's output).
_INPUT_OF = {"q_proj": "attn_in", "k_proj": "attn_in", "v_proj": "attn_in", "q_a_proj": "attn_in",
             "kv_a_proj_with_mqa": "attn_in", "gate_proj": "mlp_in", "up_proj": "mlp_in"}
#: Linear layers that read the input norm's output (the hidden state entering the attention).
_ATTN_INPUT_READERS = ("q_proj", "k_proj", "v_proj", "q_a_proj", "kv_a_proj_with_mqa")


def compile_modelled(arch: ModelArchitecture, t: TrainingSetup) -> bool:
    """Whether ``torch.compile``'s smaller saved set applies: asked for, on RMSNorm layers (measured on Llama,
    Gemma, Qwen3 with its q/k norms, Mixtral and Qwen3-MoE); LayerNorm models keep the eager ledger and the
    estimate says so."""
    return t.torch_compile and arch.norm == "rms"


def _zero3_gathered_elements(arch: ModelArchitecture, ds: DeepSpeedBuffers | None = None,
                             head: float | None = None) -> float:
    """Parameter elements DeepSpeed ZeRO-3 holds gathered at the turn from forward to backward (elements, not bytes).

    DeepSpeed fetches each submodule's parameters before it runs and, once a trace of the step is recorded, releases
    them afterwards unless the trace reaches their next use within ``stage3_max_reuse_distance`` elements
    (partitioned_param_coordinator.py ``__params_to_release``, counting every module's parameters from the next step
    on). At the loss the LM head is used again at once (its backward), so it stays; layer ``L-1-k``'s next use lies
    behind the rest of the forward and the head twice (forward and backward) and as many layers again in the
    backward, ``2 (k x layer + head)`` elements, so the last layers stay while that is under the distance
    (``ds.max_reuse``, default :data:`DEEPSPEED_MAX_REUSE_DISTANCE`). The next layer's parameters arrive through the
    prefetch bucket (``ds.prefetch``, default :data:`DEEPSPEED_PREFETCH_ELEMENTS`, whole parameters: up to one weight
    matrix beyond it; nothing with a bucket of 0), never more than a layer. Parameters under ``stage3_param_persistence_threshold`` (1e5 elements: norms, biases) stay gathered for the
    whole run and are left out (a few MB).

    ``head``: the head's elements (default the LM head's, ``vocab x hidden``; a reward model's value head is
    ``hidden x 1``).

    Returns:
        elements gathered: head + retained layers + the prefetched next layer.
    """
    if head is None:
        head = arch.vocab_size * arch.hidden_size  # the LM head's weight (the embedding's when tied)
    layer = max(sum(m.params for m in mods) for _, mods in arch.linear_modules())
    largest_matrix = max(m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods)
    reuse = ds.max_reuse if ds is not None else DEEPSPEED_MAX_REUSE_DISTANCE
    prefetch = ds.prefetch if ds is not None else DEEPSPEED_PREFETCH_ELEMENTS
    retained = 0
    while retained < arch.num_layers and 2 * (retained * layer + head) < reuse:
        retained += 1
    upcoming = 0.0 if retained == arch.num_layers or prefetch <= 0 else min(layer, prefetch + largest_matrix)
    return head + retained * layer + upcoming


def _activation_adapter_path(t: TrainingSetup) -> str:
    """:func:`adapter_path` as the forward sees the adapters. Under FSDP or DeepSpeed ZeRO the layers are handed
    to the forward in bf16 (FSDP ``MixedPrecision(param_dtype=bf16)``; DeepSpeed casts the module with
    ``module.bfloat16()`` for every ZeRO stage and keeps the fp32 master copy in its optimizer), so PEFT's
    ``_cast_input_dtype`` and autocast find nothing to cast, whatever dtype the adapters are kept in."""
    path = adapter_path(t)
    if path in {"autocast", "fp32"} and t.num_gpus > 1 and t.sharding in {"zero1", "zero2", "zero3", "fsdp"}:
        return "native"
    return path


def recompute_transient_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, mlp: int | None = None,
                                  resid: int | None = None) -> float:
    """Bytes per token a checkpointed layer holds during its recomputed forward beyond the tensors it saves:
    for LoRA at its widest adapted linear, for a mixture-of-experts layer in its expert block (the larger of
    the two; 0 without checkpointing, and for full fine-tuning of a dense model).

    ``act``, ``mlp`` and ``resid`` are the dtype sizes of the activations, the MLP intermediates and the
    residual stream (as for the saved set). PEFT's ``Linear.forward`` computes the frozen base output
    (``d_out`` wide), then casts the input to the adapter's fp32 (``_cast_input_dtype``: 4 B x ``d_in``,
    kept in a local until the layer returns) and runs dropout on that copy (another fp32 ``d_in``
    output; the saved mask is 1 B); under autocast neither is saved (lora_A saves autocast's bf16 copy).
    Without autocast (:func:`adapter_path` ``"fp32"``) lora_A saves the fp32 tensor it reads, so only the
    cast copy feeding dropout is extra. Its bitsandbytes layers skip the cast under autocast, and
    adapters in the model dtype cast nothing: lora_A saves the dropout output (or the input itself), so
    nothing beyond the saved set. The layer's own input is not saved by a frozen linear (except the
    attention output feeding ``o_proj``, which the attention already saves, and an input lora_A reads
    directly: no cast, no dropout), so it is a local of the recomputation too; the decoder layer still
    holds locals around it: during the MLP the residual and the post-attention norm's output
    (``LlamaDecoderLayer.forward``), during the attention the input norm's output. In a plain forward these
    are gone before the backward; in a recomputation they sit next to the layer's saved set. Llama-3-8B
    all-linear at ``down_proj``: 10i + 6h = 167,936 B per token, as MemTracker measured (docs/validation.md).
    """
    mlp = act if mlp is None else mlp
    resid = act if resid is None else resid
    h = arch.hidden_size
    if not t.grad_checkpointing:
        return 0.0
    moe = _moe_recompute_transient_per_token(arch, t, act, mlp, resid)
    if t.method == "full":
        return moe
    wanted = _targets(arch, t.lora_targets)
    path = _activation_adapter_path(t)
    dropout = t.lora_dropout > 0
    best = 0.0
    for m in _layer_group(arch):
        if m.count > 1 or m.kind == "router" or m.name not in wanted:
            continue
        x_bytes = mlp if m.kind == "mlp" else act
        # (lora_A saves the input itself when nothing is cast or dropped out: then it is in the saved set)
        reads_input = not dropout and (x_bytes == 4 or path == "native" or (path == "autocast" and t.method == "qlora"))
        own_input = 0 if m.name == "o_proj" or reads_input else x_bytes * m.d_in
        cast = dropped = 0
        if x_bytes != 4 and path == "autocast" and t.method == "lora":
            # PEFT's bitsandbytes LoRA layers skip the cast while autocast runs (``requires_conversion``)
            cast = 4 * m.d_in
            dropped = 4 * m.d_in if dropout else 0
        elif x_bytes != 4 and path == "fp32" and dropout:  # the cast copy that dropout reads
            cast = 4 * m.d_in
        if m.kind == "mlp":  # the residual, and the norm output when this linear reads something else
            held = resid * h + (act * h if m.d_in != h else 0)
        else:  # the input norm's output while o_proj (or MLA's q_b/kv_b_proj) runs; q/k/v read it: their own input
            held = act * h if m.name == "o_proj" or m.d_in != h else 0
        best = max(best, own_input + cast + dropped + x_bytes * m.d_out + held)
    return float(max(best, moe))


def _moe_recompute_transient_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, mlp: int, resid: int) -> float:
    """Bytes per token a recomputed mixture-of-experts layer holds beyond its saved set (stacked experts only).

    transformers >= 5 runs the experts with ``grouped_mm_experts_forward`` (integrations/moe.py): the routed
    tokens sorted by expert go through the gate/up and down grouped matmuls, the down output (k x h per
    token) is multiplied by the fp32 routing weights (an fp32 k x h product) and summed back per token.
    Two moments compete: at the down matmul its input (k x i_moe, saved only when the experts train) is
    alive; at the weighting, the fp32 product. With frozen experts and router (LoRA on the attention only)
    the sorted copy of the hidden states (k x h) and the post-attention norm's output are locals, not saved
    (a frozen matmul and a frozen router linear need only their weights); the decoder layer's residual is a
    local either way. Mixtral-8x7B: full fine-tuning 4hk + 2h = 40,960 B per token; LoRA on q, v
    2ik + 2hk + 2h + 2h = 90,112 B per token, as traced op by op on fake tensors (docs/validation.md).
    """
    group = _layer_group(arch)
    if not arch.is_moe or not any(m.count > 1 for m in group):
        return 0.0
    h, k = arch.hidden_size, arch.experts_per_token
    trains = t.method == "full" or experts_adapted(arch, t.lora_targets)
    frozen_locals = 0 if trains else act * h * k + act * h  # sorted hidden states and the norm output
    down = (0 if trains else mlp * arch.moe_intermediate_size * k) + frozen_locals + resid * h
    weigh = 4 * h * k + frozen_locals + resid * h
    return float(max(down, weigh))


def _stacked_expert_params(mods) -> int:  # noqa: ANN001 - list[LinearModule]
    return sum(m.params for m in mods if m.count > 1)


def merged_expert_bytes(arch: ModelArchitecture, t: TrainingSetup, w_bytes: float) -> tuple[float, float]:
    """Bytes of ``W + delta-W`` that LoRA on stacked experts materialises: ``(one layer, all layers)``.

    PEFT's ``ParamWrapper`` applies the adapter to a 3-D expert tensor by parametrisation: every forward
    computes ``baddbmm(W, lhs, rhs)``, a new tensor of the whole expert stack in the weight dtype, and
    the expert matmul saves it for backward because it now needs a gradient (PEFT 0.21
    ``_LoraFactorsProxy``; PyTorch MemTracker measured ~2.8 GB per Mixtral-8x7B layer, docs/validation.md).
    Zero unless the method is LoRA/QLoRA and :func:`experts_adapted`.
    """
    if t.method == "full" or not experts_adapted(arch, t.lora_targets):
        return 0.0, 0.0
    per_group = [(n, _stacked_expert_params(mods) * w_bytes) for n, mods in arch.linear_modules()]
    return max((b for _, b in per_group), default=0.0), float(sum(n * b for n, b in per_group))


def _layer_group(arch: ModelArchitecture, mixer: str = "attention") -> list:  # noqa: ANN202 - list[LinearModule]
    """The modules of the layer the per-layer activation model describes: the MoE layers of a MoE model
    (after any leading dense layers), otherwise the first group (attention layers of a hybrid); with
    ``mixer="linear_attention"`` the Gated DeltaNet layers'."""
    groups = arch.linear_modules()
    if mixer == "linear_attention":
        return next(mods for _, mods in groups if any(m.kind == "linear_attention" for m in mods))
    if arch.is_moe:
        for _, mods in groups:
            if any(m.count > 1 for m in mods):
                return mods
    return groups[0][1]


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


def layer_saved_bytes_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, seq_len: int,
                                mlp: int | None = None, resid: int | None = None) -> tuple[float, float]:
    """Bytes one decoder layer saves for backward per token: ``(mean over the layers, largest layer)``.

    The two differ only in Gated DeltaNet hybrids, whose linear-attention layers save other tensors than their
    full-attention layers (:func:`gated_deltanet_saved_per_token`): the mean times the layers is what a step
    without checkpointing keeps, the largest is the layer checkpointing recomputes at its worst.
    """
    attn = _layer_saved_bytes_per_token(arch, t, act, seq_len, mlp, resid)
    if not arch.num_linear_attention_layers:
        return attn, attn
    linear = _layer_saved_bytes_per_token(arch, t, act, seq_len, mlp, resid, mixer="linear_attention")
    n_lin = arch.num_linear_attention_layers
    mean = (attn * (arch.num_layers - n_lin) + linear * n_lin) / arch.num_layers
    return mean, max(attn, linear) if arch.num_attention_layers else linear


def _layer_saved_bytes_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, seq_len: int,
                                 mlp: int | None = None, resid: int | None = None,
                                 mixer: str = "attention") -> float:
    """Bytes autograd saves for backward in one decoder layer, per token (see module docstring).

    ``act`` is the activation dtype size (2 for bf16/fp16, 4 for fp32); ``mlp`` the dtype size of the
    MLP intermediates (4 when bitsandbytes 4-bit layers read an fp32 residual stream and return its
    dtype, ``Linear4bit.forward``), ``resid`` that of the residual stream (default ``act``); ``mixer``
    ``attention`` (softmax attention) or ``linear_attention`` (a Gated DeltaNet layer of a hybrid).
    """
    mlp = act if mlp is None else mlp
    resid = act if resid is None else resid
    h, i = arch.hidden_size, arch.intermediate_size
    full = t.method == "full"
    lora = t.method in {"lora", "qlora"}
    adapted = _targets(arch, t.lora_targets) if lora else set()
    dropout = lora and t.lora_dropout > 0
    # Stacked experts adapted through PEFT's ParamWrapper run their matmul on W + delta-W, which needs a
    # gradient, so the matmul saves its input like a trained weight; ParamWrapper refuses dropout and
    # has no per-token LoRA branch (no lora_A outputs, no dropout copies).
    group = _layer_group(arch, mixer)
    experts = {m.name for m in group if m.count > 1}
    experts_train = full or (lora and experts_adapted(arch, t.lora_targets))

    # PEFT's plain LoRA layers cast the input to the fp32 adapter dtype (``_cast_input_dtype``) and autocast
    # casts it back for lora_A's matmul: each adapted matrix then saves its own bf16 copy of its input, with
    # or without dropout. Its bitsandbytes layers skip the cast under autocast (QLoRA), and an fp32 run or
    # adapters in the model dtype have nothing to cast, so there lora_A reads (and saves) the layer's input
    # itself when there is no dropout. Without autocast every PEFT layer casts to fp32 and lora_A saves that
    # fp32 copy (4 B per element), lora_B its fp32 r-wide input.
    path = _activation_adapter_path(t)
    own_copies = (path == "autocast" and t.method == "lora" and act != 4) or (path == "fp32" and act != 4)
    a_bytes = 4 if path == "fp32" else act

    def saves_input(name: str) -> bool:
        # A linear saves its input when its own weight trains, or when a LoRA A matrix reads the
        # same tensor (no dropout, no cast; with dropout or a cast, A reads a new copy instead).
        if name in experts:
            return experts_train
        # bitsandbytes >= 0.43.2 (PR #1270): MatMul4Bit keeps only the NF4 weight (ctx.tensors =
        # (None, B)), so a frozen 4-bit base saves no input either; older releases kept A as well.
        return full or (name in adapted and not dropout and not own_copies)

    # RMSNorm upcasts its input to fp32 and saves that copy; LayerNorm saves its input. When the norm
    # weight trains, ``weight * x`` also saves the normalised x: in the input dtype for Llama-style
    # norms, in fp32 for Gemma's ``x.float() * (1 + weight.float())`` (MemTracker, docs/validation.md).
    gemma_norm = arch.model_type.startswith("gemma")
    compiled = compile_modelled(arch, t)
    norm_input = 4 if arch.norm == "rms" else act
    norm_weight_input = (4 if gemma_norm or resid == 4 else act) if full else 0
    n_norms = (1 if arch.parallel_block else 2) + arch.extra_norms_per_layer
    if compiled:
        # torch.compile: each RMSNorm keeps only its normalised value in the activation dtype (its backward, and
        # the weight's gradient, are computed from it and the per-token rsqrt), not the fp32 input copy; with an
        # fp32 residual stream one of them keeps an fp32 tensor
        saved = n_norms * act * h + (resid - act) * h
    else:
        saved = n_norms * (norm_input + norm_weight_input) * h
    if arch.qk_norm and mixer == "attention":  # per-head RMSNorm on q and k (compiled: their normalised values only)
        saved += (act if compiled else 4 + norm_weight_input) * (arch.q_dim + arch.kv_dim)

    if mixer == "linear_attention":
        saved += gated_deltanet_saved_per_token(arch, t, act, saves_input)
    elif arch.attn_output_gate:
        saved += _mha_attention_saved_per_token(arch, t, act, seq_len, saves_input)
        saved += gated_attention_output_saved_per_token(arch, t, act, saves_input)
    elif arch.is_mla:
        saved += mla_attention_saved_per_token(arch, t, act, seq_len, saves_input, compiled, norm_weight_input)
    else:
        saved += _mha_attention_saved_per_token(arch, t, act, seq_len, saves_input)

    # MLP (dense, or the routed experts' share of tokens plus any shared experts)
    shared = arch.shared_expert_intermediate_size if arch.is_moe else 0
    if arch.is_moe:
        routed = arch.moe_intermediate_size * arch.experts_per_token
        # router logits, and the experts' outputs (k x h) that the routing-weight multiply saves: the weights
        # need a gradient whenever the hidden state does (the router is a linear of it), trained or frozen
        saved += 4 * arch.num_experts + act * h * arch.experts_per_token
        if experts_train:  # the expert matmul saves its input, the hidden states sorted by expert (k x h)
            saved += act * h * arch.experts_per_token
    else:
        routed = i
    mlp_inputs = ("gate_proj", "up_proj") + (("shared_gate_proj", "shared_up_proj") if shared else ())
    if not arch.parallel_block and any(saves_input(n) for n in mlp_inputs):
        saved += act * h
    if arch.mlp == "gated":
        # gate, up, act(gate); compiled, act(gate) is recomputed from gate in backward (expert blocks too)
        saved += (2 if compiled else 3) * mlp * (routed + shared)
    else:
        saved += mlp * (routed + shared)  # pre-activation
    if saves_input("down_proj"):
        saved += mlp * routed  # input of down_proj
    if shared and saves_input("shared_down_proj"):
        saved += mlp * shared  # input of the shared expert's down_proj

    if dropout or own_copies:  # PEFT: lora_A saves its own copy of the input (dropped out: + a 1-byte mask)
        copied: set[str] = set()
        for m in group:
            if m.name in adapted and m.count == 1:
                # compiled without dropout, identical casts of one input are computed and saved once (q/k/v share
                # the input norm's output, gate/up the post-attention norm's)
                source = _INPUT_OF.get(m.name, m.name) if compiled and not dropout else m.name
                if source in copied:
                    continue
                copied.add(source)
                saved += (a_bytes + (1 if dropout else 0)) * m.d_in
    if lora:
        adapted_mods = [m for m in group if m.name in adapted and m.count == 1]
        saved += a_bytes * t.lora_rank * len(adapted_mods)  # lora_A outputs saved by lora_B
    return float(saved)


def _mha_attention_saved_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, seq_len: int,
                                   saves_input) -> float:  # noqa: ANN001 - Callable[[str], bool]
    """Bytes per token the q/k/v/o attention block saves (the Llama layer; see the module docstring)."""
    h = arch.hidden_size
    saved = 0.0
    # attention block inputs (q/k/v share the norm output; o reads the attention output)
    if any(saves_input(n) for n in ("q_proj", "k_proj", "v_proj")):
        saved += act * h
    # GQA: FlashAttention reads k/v at their own width; SDPA does too (``enable_gqa``) when no mask
    # is needed (fixed-length batches), but padded or packed batches pass a mask and transformers
    # expands k/v to every head with ``repeat_kv``; eager always expands.
    expands = t.attention == "eager" or (t.attention == "sdpa" and t.sequence_mode != "fixed")
    kv_width = arch.q_dim if expands and arch.num_kv_heads != arch.num_attention_heads else arch.kv_dim
    saved += act * (arch.q_dim + 2 * kv_width)  # q and k after RoPE, v
    if t.attention == "eager":
        saved += 6 * arch.num_attention_heads * seq_len  # fp32 softmax + bf16 probabilities
        if saves_input("o_proj"):
            saved += act * arch.q_dim
    else:
        saved += act * arch.q_dim + 4 * arch.num_attention_heads  # output + fp32 log-sum-exp
    return saved


def gated_attention_output_saved_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int,
                                           saves_input) -> float:  # noqa: ANN001 - Callable[[str], bool]
    """Bytes per token the attention output gate (Qwen3-Next/Qwen3.5) adds to the plain attention block.

    ``Qwen3NextAttention.forward`` (@7515843b): ``query, gate = torch.chunk(q_proj(x).view(..., 2 head_dim))`` and
    ``attn_output * torch.sigmoid(gate)`` before ``o_proj``. ``sigmoid`` saves its output (``e q_dim``; the strided
    gate's ``reshape`` copy is freed after it), and the product saves both factors: that output and the ungated
    attention output. The plain accounting (:func:`_mha_attention_saved_per_token`) holds one attention-output
    tensor: the kernel's saved output under FlashAttention/SDPA, which the product's saved factor shares, or under
    eager ``o_proj``'s input when it trains. So beyond it: the sigmoid output, plus ``e q_dim`` for the gated product
    ``o_proj`` saves when it trains (FlashAttention/SDPA), or under eager for the ungated output the product keeps
    (``e q_dim`` either way).
    """
    extra = 1 + (1 if t.attention == "eager" or saves_input("o_proj") else 0)
    return float(extra * act * arch.q_dim)


def gated_deltanet_saved_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, saves_input) -> float:  # noqa: ANN001
    """Bytes per token one Gated DeltaNet layer's token mixer saves for backward.

    Read from transformers' ``Qwen3NextGatedDeltaNet.forward`` (``modeling_qwen3_next.py`` @7515843b; the Qwen3.5
    module @d8c1e284 is the same after its split projections) on its fast path (causal-conv1d's
    ``causal_conv1d_fn`` and flash-linear-attention's ``chunk_gated_delta_rule``; the torch fallback is a Python loop
    over chunks nobody trains with), with ``K = key_dim``, ``V = value_dim``, ``n_v`` value heads, ``d_k`` the key
    head dim, ``C = 64`` the kernel's chunk and ``e`` the activation dtype size:

    * the input norm's output (``e h``) when an input projection trains;
    * ``causal_conv1d_fn`` saves its input, the concatenated q/k/v (``e (2K + V)``), and applies SiLU inside;
    * ``beta = b.sigmoid()`` saves its output (``e n_v``, the same tensor the kernel saves); the decay
      ``g = -exp(A_log) x softplus(a.float() + dt_bias)`` saves softplus's fp32 input (``4 n_v``) and, when
      ``A_log`` trains, the softplus output (``4 n_v``);
    * ``repeat_interleave`` gives q and k ``n_v`` heads; ``ChunkGatedDeltaRuleFunction.forward`` (fla
      ``ops/gated_delta_rule/chunk.py`` @92396f25) L2-normalises them inside and saves ``q, q_rstd, k, k_rstd, v,
      g, beta, A``: q and k normalised (``e n_v d_k`` each), their fp32 inverse norms (``4 n_v`` each), v (``e V``,
      made contiguous by ``input_guard``), the chunk-cumulated fp32 decay (``4 n_v``) and the WY matrix ``A``
      (``n_v x C`` per token in the key dtype, ``e n_v C``). The per-chunk recurrent states ``h`` (``n_v d_k d_v``
      per 64 tokens) are not saved: the backward recomputes them (``chunk_gated_delta_rule_bwd``);
    * the gated RMSNorm (fla ``FusedRMSNormGated``) saves its input and the gate ``z`` (``e V`` each) and an fp32
      inverse norm per head (``4 n_v``);
    * ``out_proj`` saves the norm's output (``e V``) when it trains.

    Qwen3-Next-80B-A3B (K 2048, V 4096, n_v 32, d_k 128), bf16, LoRA on every linear without dropout:
    ``2h + 2 x 8192 + 2 x 32 + 4 x 32 + 2 (2 x 2 x 32 x 128 + 4 x 32) + 2 x 4096 + 4 x 32 + 2 x 32 x 64 + (2 + 2)
    x 4096 + 4 x 32 + 2 x 4096`` (tests).
    """
    nv, dk = arch.linear_num_value_heads, arch.linear_key_head_dim
    v = arch.linear_value_dim
    saved = 0.0
    if any(saves_input(m.name) for m in arch.linear_attention_modules() if m.name != "out_proj"):
        saved += act * arch.hidden_size
    saved += act * arch.linear_conv_dim  # causal_conv1d_fn's input
    saved += act * nv  # beta (sigmoid output)
    saved += 4 * nv + (4 * nv if t.method == "full" else 0)  # softplus input; its output when A_log trains
    saved += 2 * (act * nv * dk + 4 * nv)  # normalised q and k at n_v heads, their fp32 inverse norms
    saved += act * v + 4 * nv  # v, the cumulated fp32 decay g
    saved += act * nv * GDN_CHUNK  # A, the WY representation of each chunk
    saved += 2 * act * v + 4 * nv  # gated RMSNorm: its input and z, fp32 rstd per head
    if saves_input("out_proj"):
        saved += act * v
    return float(saved)


#: Tokens per chunk of flash-linear-attention's chunked gated delta rule (``chunk_local_cumsum(g, chunk_size=64)``
#: and the ``[B, T, H, 64]`` WY matrix ``A`` in ``chunk_gated_delta_rule_fwd``, fla @92396f25).
GDN_CHUNK = 64


def mla_attention_saved_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, seq_len: int,
                                  saves_input, compiled: bool = False,  # noqa: ANN001 - Callable[[str], bool]
                                  norm_weight_input: int = 0) -> float:
    """Bytes per token one multi-head latent attention block saves for backward.

    Read from transformers ``DeepseekV2Attention.forward`` (``modeling_deepseek_v2.py`` @0233e509; the V3 module
    at f5a9ec51 is the same with ``q_a_proj`` always present), with ``n`` heads, ``d_qk = qk_nope + qk_rope``,
    ``d_v = v_head_dim``, ``r_kv = kv_lora_rank``, ``r_q = q_lora_rank`` and ``e`` the activation dtype size:

    * the input norm's output (``e h``) when ``q_proj``/``q_a_proj``/``kv_a_proj_with_mqa`` trains;
    * ``kv_a_layernorm`` and ``q_a_layernorm``: RMSNorm's fp32 input copy ``4 (r_kv + r_q)`` (plus the normalised
      value when the norm weights train; compiled: the normalised value only, ``e (r_kv + r_q)``), and the norm
      outputs ``e r_kv`` / ``e r_q`` when ``kv_b_proj`` / ``q_b_proj`` train;
    * the rotary embedding multiplies by constant tables (V2: complex ``freqs_cis``; V3: cos/sin), so it saves
      nothing per token; ``torch.cat`` saves nothing;
    * the kernel's inputs: the query and the key after the concatenation, ``e n d_qk`` each (the key holds the one
      rotary key ``k_pe`` broadcast to every head by ``expand``), and the values. With FlashAttention transformers
      pads the values to ``d_qk`` (``F.pad(value_states, [0, qk_head_dim - v_head_dim])`` when
      ``is_flash_attention_requested``), a new ``e n d_qk`` tensor, and the kernel saves its padded output
      (``e n d_qk``) and the fp32 log-sum-exp (``4 n``); the output sliced back to ``d_v`` is copied by
      ``reshape`` and saved again (``e n d_v``) when ``o_proj`` trains. SDPA and eager keep the values as a
      view of ``kv_b_proj``'s output, so its whole storage ``e n (qk_nope + d_v)`` stays alive; SDPA saves its
      ``e n d_v`` output and log-sum-exp, eager the softmax (``6 n s``) and ``o_proj``'s input when it trains.

    DeepSeek-V2-Lite (n 16, d_qk 192, d_v 128, r_kv 512, no r_q), bf16, full fine-tuning with FlashAttention:
    ``2h + (4+2) 512 + 2 x 512 + 2 x 16 x 192 x 4 + 4 x 16 + 2 x 16 x 128`` bytes per token (tests).
    """
    h, n = arch.hidden_size, arch.num_attention_heads
    d_qk, d_v = arch.head_dim, arch.value_head_dim
    saved = 0.0
    if any(saves_input(name) for name in _ATTN_INPUT_READERS):
        saved += act * h
    # the low-rank RMSNorms (kv_a_layernorm, q_a_layernorm) and the up-projections' inputs
    saved += (act if compiled else 4 + norm_weight_input) * arch.mla_norm_width()
    if saves_input("kv_b_proj"):
        saved += act * arch.kv_lora_rank
    if arch.q_lora_rank and saves_input("q_b_proj"):
        saved += act * arch.q_lora_rank
    saved += act * 2 * n * d_qk  # query and key after torch.cat
    if t.attention in {"flash", "flash1"}:
        saved += act * n * d_qk  # the values padded to d_qk
        saved += act * n * d_qk + 4 * n  # padded output + fp32 log-sum-exp
        if saves_input("o_proj") and d_v != d_qk:
            saved += act * n * d_v  # the output sliced to d_v, copied by reshape
    else:
        saved += act * n * (arch.qk_nope_head_dim + d_v)  # kv_b_proj's output, held by the value view
        if t.attention == "eager":
            saved += 6 * n * seq_len
            if saves_input("o_proj"):
                saved += act * n * d_v
        else:
            saved += act * n * d_v + 4 * n  # output + fp32 log-sum-exp
    return float(saved)


def _logps_term(tokens: float, vocab: int, elem: int, tensors: float, moment: str) -> Term:
    """The policy's V-wide loss-side tensors at one moment (``detail``: ``forward`` or ``backward``), bytes."""
    return Term(key="policy_logps", value=tokens * vocab * elem * tensors, unit="B", parts=(
        Quantity(key="tokens", value=tokens, unit="tokens"),
        Quantity(key="vocab", value=vocab, unit="count"),
        Quantity(key="tensors", value=tensors, unit="count",
                 source=f"{wl.TRL} trl/trainer/utils.py selective_log_softmax, entropy_from_logits; "
                        "core/workload.py LOGPROB_TENSORS"),
        Quantity(key="elem_bytes", value=elem, unit="B"),
    ), detail=moment, source=f"{wl.TRL} DPOTrainer._compute_loss, KTOTrainer._compute_loss, ORPOTrainer.concatenated_forward")


def _head_cast_term(arch: ModelArchitecture) -> Term:
    """The bf16 autocast copy of an fp32 LM head, saved by its matmul until the head's backward (bytes)."""
    return Term(key="head_cast", value=2.0 * arch.vocab_size * arch.hidden_size, unit="B", parts=(
        Quantity(key="vocab", value=arch.vocab_size, unit="count"),
        Quantity(key="hidden", value=arch.hidden_size, unit="count"),
    ), source="autograd MmBackward0.mat2 under autocast")


def _workload_forward(arch: ModelArchitecture, t: TrainingSetup, tokens: float, act: int, resid: int,
                      model_weight_bytes: float, total_params: float, shard: str, n_gpus: int, pipeline: bool,
                      gathered_layers: float, fused_bytes: float | None, head_cast: float,
                      ) -> tuple[float, float, list[Term], list[Term], float, list[Term]]:
    """The end of the policy's forward in a DPO, KTO or ORPO step (core/workload.py), bytes per GPU.

    The loss side is the larger of two moments: the reference forward inside a layer (the policy's held logits and
    saved log-softmax next to one layer's no-grad working set, :func:`~tuneplan.core.workload.
    reference_layer_bytes_per_token`, QLoRA's dequantised matrix and, for a sharded copy, its two gathered layers),
    and the metrics after it (the policy's tensors with the metrics' copy next to the reference's logits, which
    ``_compute_loss`` keeps until it returns). With fused (Liger) losses the policy holds one chunk and the reference's
    logits are never materialised. ``gathered_layers``: two of the model's layers gathered in 16 bits (a sharded
    copy's, as the policy's); ``fused_bytes``: the policy's fused-loss chunk, or None; ``head_cast``: an fp32 LM
    head's bf16 autocast copy (bytes, 0 without).

    Returns:
        ``(policy loss side, reference transient, their terms, reference weights, their terms)``.
    """
    v = arch.vocab_size
    ref_passes, _policy_passes = wl.nograd_passes(t)
    if t.workload == "grpo":  # its no-grad passes run while it scores completions, before the policy's forward
        ref_passes = 0
    kind = wl.reference_kind(t)
    # ---- the reference copy's weights: the model as stored (the policy's model_init_kwargs), 16-bit under DeepSpeed
    ref_weights, weight_terms = 0.0, []
    # the copy is prepared with the policy's offload config (TRL prepare_deepspeed passes offload_param at stage 3,
    # on any number of GPUs)
    offloaded = t.cpu_offload and t.sharding in {"zero3", "fsdp"}
    if kind == "copy" and not offloaded:
        shards = n_gpus if (shard in {"zero3", "fsdp"} or pipeline) else 1
        deepspeed_16 = t.sharding in {"zero1", "zero2", "zero3"} and t.precision != "fp32" and t.method != "qlora"
        per_param = float(act) if deepspeed_16 else model_weight_bytes / max(total_params, 1.0)
        term = wl.reference_weights_term(float(total_params), per_param, shards)
        ref_weights, weight_terms = term.value, [term]
    # ---- the loss side with the reference forward's transients
    held, peak, _backward = wl.logprob_tensors(t, act)
    per_tensor = tokens * v * act
    if fused_bytes is not None:
        held_b = peak_b = fused_bytes
        held_terms: list[Term] = []
        peak_terms: list[Term] = []
    else:
        held_b, peak_b = held * per_tensor + head_cast, peak * per_tensor + head_cast
        cast = [_head_cast_term(arch)] if head_cast else []
        held_terms = [_logps_term(tokens, v, act, held, "forward"), *cast]
        peak_terms = [_logps_term(tokens, v, act, peak, "forward"), *cast]
    if not ref_passes:
        return peak_b, 0.0, peak_terms, [], ref_weights, weight_terms
    other = 0.0
    if t.method == "qlora":  # bitsandbytes dequantises each NF4 matrix to bf16 for its matmul
        other += 2.0 * max(m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods if m.count == 1)
    if kind == "copy" and shard in {"zero3", "fsdp"}:
        other += gathered_layers  # the copy's layer being computed and the prefetched next one
    per_token = wl.reference_layer_bytes_per_token(arch, act, resid)
    layer_b = tokens * per_token + other
    layer_term = Term(key="reference_activations", value=layer_b, unit="B", parts=(
        Quantity(key="tokens", value=tokens, unit="tokens"),
        Quantity(key="bytes_per_token", value=per_token, unit="B",
                 source="transformers LlamaDecoderLayer/LlamaMLP forward under torch.no_grad"),
        Quantity(key="other_bytes", value=other, unit="B"),
    ), source=f"{wl.TRL} DPOTrainer._compute_loss: the reference forward under no_grad, checkpointing off")
    ref_logits = 0.0 if fused_bytes is not None else per_tensor
    if held_b + layer_b >= peak_b + ref_logits:
        return held_b, layer_b, held_terms, [layer_term], ref_weights, weight_terms
    logits_term = Term(key="reference_logits", value=ref_logits, unit="B", parts=(
        Quantity(key="tokens", value=tokens, unit="tokens"),
        Quantity(key="vocab", value=v, unit="count"),
        Quantity(key="elem_bytes", value=act, unit="B"),
    ), source=f"{wl.TRL} DPOTrainer._compute_loss (ref_outputs), KTOTrainer._compute_loss")
    return peak_b, ref_logits, peak_terms, [logits_term], ref_weights, weight_terms


def _workload_components(t: TrainingSetup, comps: list[MemoryComponent], phase: str, live: dict[str, float],
                         logit_terms: list[Term], fwd_logit_terms: list[Term], ref_terms: dict[str, list[Term]],
                         ) -> list[MemoryComponent]:
    """The components of a workload other than SFT: the loss side rendered from its terms at the peak's moment, and
    DPO/KTO's ``reference`` component after the adapters."""
    terms = (fwd_logit_terms if phase == "end of forward" and fwd_logit_terms else
             logit_terms if live.get("logits") else [])
    out = []
    for comp in comps:
        if comp.key == "logits" and terms:
            comp = comp.model_copy(update={"formula": " + ".join(render_formula(term) for term in terms),
                                           "terms": terms, "source": f"{wl.TRL} (core/workload.py)"})
        elif comp.key == "logits" and not comp.formula:
            comp = comp.model_copy(update={"formula": "freed before this moment"})
        out.append(comp)
        if comp.key == "adapters" and ref_terms:
            mine = ref_terms.get(phase, [])
            out.append(MemoryComponent(
                key="reference", label="Reference model", bytes=live.get("reference", 0.0),
                formula=" + ".join(render_formula(term) for term in mine) or "nothing of the reference at this moment",
                source=f"{wl.TRL} DPOTrainer.__init__ and _compute_loss; trl/models/utils.py prepare_deepspeed",
                terms=mine))
    return out


def _generation_memory(arch: ModelArchitecture, t: TrainingSetup, gpu: GpuSpec, candidates: dict[str, dict[str, float]],
                       weights: float, model_weight_bytes: float, shard: str, n_gpus: int) -> dict[str, list[Term]]:
    """GRPO's generation in memory (``core/generation.py``), added to ``candidates`` in place; its terms by moment.

    * ``vllm-colocate``: the engine holds ``vllm_memory_share x`` the card beside the trainer at every moment
      (vLLM allocates its weights, activations and KV cache inside that share at start-up and keeps them), unless
      sleep mode frees it while training: then only at a ``generation`` moment, next to the weights, adapters and
      optimizer states (the gradients are freed by ``zero_grad``), with the share.
    * ``transformers``: a ``generation`` moment with ``model.generate``'s KV cache for all the step's rows at full
      length, ``2 x layers x kv_dim x 2 B`` per token, and under ZeRO-3/FSDP the rest of the weights gathered whole
      (``unwrap_model_for_generation``, ``ds3_gather_for_generation=True``).
    * ``vllm-server``: nothing on the training GPUs.
    """
    if t.workload != "grpo" or t.generation_engine == "vllm-server":
        return {}
    from tuneplan.core import generation as gen

    capacity = gpu.memory_gib * GIB
    if t.generation_engine == "vllm-colocate":
        share = gen.vllm_reserved_bytes(capacity, t.vllm_memory_share)
        term = Term(key="vllm_share", value=share, unit="B", parts=(
            Quantity(key="share", value=t.vllm_memory_share, unit="1", source="GRPOConfig vllm_gpu_memory_utilization"),
            Quantity(key="capacity", value=capacity, unit="B"),
            Quantity(key="weight_bytes", value=model_weight_bytes, unit="B"),
        ), source="vLLM EngineArgs.gpu_memory_utilization: the fraction of the GPU's memory for the engine")
        if not t.vllm_sleep:
            for parts in candidates.values():
                parts["generation"] = share
            return {name: [term] for name in candidates}
        optimizer = candidates.get("optimizer step", next(iter(candidates.values()))).get("optimizer", 0.0)
        candidates["generation"] = {"gradients": 0.0, "activations": 0.0, "logits": 0.0, "temporaries": 0.0,
                                    "optimizer": optimizer, "gathered": 0.0, "generation": share}
        return {"generation": [term]}
    rows = gen.generation_rows(t)
    kv_tok = gen.kv_bytes_per_token(arch)
    gathered = model_weight_bytes - weights if shard in {"zero3", "fsdp"} and n_gpus > 1 else 0.0
    cache = rows * t.seq_len * kv_tok
    term = Term(key="generation_cache", value=cache + max(gathered, 0.0), unit="B", parts=(
        Quantity(key="rows", value=rows, unit="count", source="GRPOConfig generation_batch_size per process"),
        Quantity(key="tokens", value=t.seq_len, unit="tokens"),
        Quantity(key="kv_per_token", value=kv_tok, unit="B"),
        Quantity(key="gathered", value=max(gathered, 0.0), unit="B",
                 source=f"{wl.TRL} trl/models/utils.py unwrap_model_for_generation"),
    ), source="transformers DynamicCache: keys and values of every layer")
    optimizer = candidates.get("optimizer step", next(iter(candidates.values()))).get("optimizer", 0.0)
    candidates["generation"] = {"gradients": 0.0, "activations": 0.0, "logits": 0.0, "temporaries": 0.0,
                                "optimizer": optimizer, "gathered": 0.0, "generation": term.value}
    return {"generation": [term]}


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
