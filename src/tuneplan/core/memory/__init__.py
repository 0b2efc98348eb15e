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

# Where each term lives (every module a set of functions over one frozen ``context.MemoryContext``):
#   context      dtypes (bf16/fp32/NF4), sharding, method, parameter and token counts, computed once per plan
#   adapters     LoRA targets, adapter shapes and counts, the adapters' dtype path
#   deepspeed    ZeRO buffer sizes (defaults, HF "auto", the plan's) and what ZeRO-3 keeps gathered
#   states       weights, trainable parameters, optimizer states, gradients; sharding, DeepSpeed's master
#                partition, FSDP's frozen-weight and root-unit gradients, ZeRO-Offload and CPU offload
#   activations  saved tensors per layer and token (attention variants, MLP, MoE, norms, LoRA copies), the step's
#                activations, the loss side (logits) and the per-layer temporaries
#   workloads    DPO/KTO/ORPO/GRPO/reward parts: log-prob tensors, the reference model, generation
#   peaks        the step's moments, each a full set of live components, and the peak among them
#   allocator    CUDA context, cuBLAS workspace, NCCL buffers, fragmentation, reserved memory, the shape cache, the
#                measured-error band
#   ledger       estimate_memory: the terms in order, and the components rendered at the peak
# Every name below was importable from ``tuneplan.core.memory`` before it became a package.
from tuneplan.core.memory.activations import (
    GDN_CHUNK,
    _layer_group,
    _layer_saved_bytes_per_token,
    _mha_attention_saved_per_token,
    _moe_recompute_transient_per_token,
    compile_modelled,
    gated_attention_output_saved_per_token,
    gated_deltanet_saved_per_token,
    layer_saved_bytes_per_token,
    merged_expert_bytes,
    mla_attention_saved_per_token,
    recompute_transient_per_token,
)
from tuneplan.core.memory.adapters import (
    MLA_TARGETS,
    PAGED_MIN_NUMEL,
    PEFT_EXPERT_TARGET_TYPES,
    Targets,
    _activation_adapter_path,
    _is_adapted,
    _targets,
    adapter_path,
    experts_adapted,
    lora_cast_parameter_count,
    lora_parameter_count,
    lora_target_modules,
    lora_tensors,
    named_modules,
    peft_fuses,
    peft_layer_modules,
    target_spec,
)
from tuneplan.core.memory.allocator import (
    ALLOCATOR_FRAGMENTATION,
    CUBLAS_WORKSPACE_BYTES,
    CUDA_CONTEXT_BYTES,
    DYNAMIC_SHAPE_CACHE,
    MEASURED_ERROR,
    MEASURED_ERROR_BY_MODE,
    MIB,
    likely_range,
)
from tuneplan.core.memory.deepspeed import (
    DEEPSPEED_MAX_REUSE_DISTANCE,
    DEEPSPEED_PREFETCH_ELEMENTS,
    DEEPSPEED_REDUCE_BUCKET_ELEMENTS,
    DEEPSPEED_SUB_GROUP_ELEMENTS,
    HF_AUTO_PREFETCH_PER_H2,
    HF_AUTO_REDUCE_PER_H2,
    DeepSpeedBuffers,
    _zero3_gathered_elements,
    deepspeed_buffers,
)
from tuneplan.core.memory.ledger import MemoryLedger, estimate_memory
from tuneplan.core.memory.peaks import GENERATING_STACKS, generates_in_evaluation
from tuneplan.core.memory.quantized import (
    hqq_base,
    hqq_bytes_per_param,
    hqq_dequant_transient,
    int8_base,
    int8_bytes_per_param,
    int8_matmul_transient,
    nf4_bytes_per_param,
    quantized_base_bytes_per_param,
    quantized_frozen_base,
    quantized_linear_weights,
)

__all__ = [
    "CUDA_CONTEXT_BYTES",
    "CUBLAS_WORKSPACE_BYTES",
    "DEEPSPEED_REDUCE_BUCKET_ELEMENTS",
    "DeepSpeedBuffers",
    "deepspeed_buffers",
    "DEEPSPEED_SUB_GROUP_ELEMENTS",
    "DEEPSPEED_MAX_REUSE_DISTANCE",
    "DEEPSPEED_PREFETCH_ELEMENTS",
    "HF_AUTO_PREFETCH_PER_H2",
    "HF_AUTO_REDUCE_PER_H2",
    "MEASURED_ERROR",
    "MEASURED_ERROR_BY_MODE",
    "MIB",
    "ALLOCATOR_FRAGMENTATION",
    "DYNAMIC_SHAPE_CACHE",
    "GDN_CHUNK",
    "MLA_TARGETS",
    "adapter_path",
    "compile_modelled",
    "gated_attention_output_saved_per_token",
    "gated_deltanet_saved_per_token",
    "layer_saved_bytes_per_token",
    "lora_cast_parameter_count",
    "lora_target_modules",
    "mla_attention_saved_per_token",
    "recompute_transient_per_token",
    "MemoryLedger",
    "estimate_memory",
    "generates_in_evaluation",
    "GENERATING_STACKS",
    "likely_range",
    "PAGED_MIN_NUMEL",
    "PEFT_EXPERT_TARGET_TYPES",
    "experts_adapted",
    "lora_parameter_count",
    "lora_tensors",
    "named_modules",
    "Targets",
    "target_spec",
    "peft_fuses",
    "peft_layer_modules",
    "merged_expert_bytes",
    "nf4_bytes_per_param",
    "hqq_base",
    "hqq_bytes_per_param",
    "hqq_dequant_transient",
    "int8_base",
    "int8_bytes_per_param",
    "int8_matmul_transient",
    "quantized_base_bytes_per_param",
    "quantized_linear_weights",
    "quantized_frozen_base",
    # the private helpers other core modules and tests reach for (steptime's target rules, hand-count tests)
    "_activation_adapter_path",
    "_is_adapted",
    "_layer_group",
    "_layer_saved_bytes_per_token",
    "_mha_attention_saved_per_token",
    "_moe_recompute_transient_per_token",
    "_targets",
    "_zero3_gathered_elements",
]
