"""The inputs of a plan: model, training setup, dataset, hardware and pricing.

A :class:`Scenario` is self-contained: it embeds the model architecture and the GPU spec it was
planned with, so a saved scenario computes the same numbers on another machine or after the
bundled catalog changes. All models are pydantic v2 and validate on assignment, so an invalid
edit raises :class:`pydantic.ValidationError` and leaves the previous value in place.

Units: memory in GiB (2**30 bytes) where a field says ``_gib``; money in USD; time in the unit
the field name says (``_minutes``, ``_hours``); bandwidth in GB/s (10**9 bytes per second).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.checkpoint import allowed_methods

__all__ = [
    "METHOD_WORDS",
    "method_word",
    "SCHEMA_VERSION",
    "Dataset",
    "GpuSpec",
    "Pricing",
    "Scenario",
    "TrainingSetup",
    "auto_name",
    "explain_validation_error",
    "MAX_TRAINING_TOKENS",
    "Method",
    "Optimizer",
    "Sharding",
    "AdapterPrecision",
    "GradSync",
    "FsdpWrap",
    "StackKey",
    "Workload",
    "GenerationEngine",
    "ReferenceModel",
]

SCHEMA_VERSION = 10

Method = Literal["full", "lora", "qlora"]
Precision = Literal["bf16", "fp16", "fp32"]
Optimizer = Literal[
    "adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "paged-adamw-32bit", "sgd", "adafactor"
]
Sharding = Literal["none", "ddp", "zero1", "zero2", "zero3", "fsdp"]
LoraTargets = Literal["q_v", "qkvo", "all-linear"]
#: ``flash``: FlashAttention 2 (flash-attn >= 2, transformers' ``flash_attention_2``); ``flash1``: FlashAttention 1
#: (flash-attn 1.x, or its Triton port, e.g. llm-foundry's ``attn_impl: triton`` in 2023); ``sdpa``: PyTorch's
#: scaled_dot_product_attention; ``eager``: the scores materialised in PyTorch.
Attention = Literal["flash", "flash1", "sdpa", "eager"]
SequenceMode = Literal["fixed", "packed", "dynamic", "padding-free"]
Billing = Literal["second", "minute", "hour"]
StorageKind = Literal["container", "volume", "network"]
FrameworkTier = Literal["optimized", "hf"]
AdapterPrecision = Literal["fp32-autocast", "fp32", "model-dtype"]
GradSync = Literal["step", "micro-batch"]
FsdpWrap = Literal["layers", "separate-embeddings", "blocks-with-adapters"]
#: What is trained (``core/workload.py``, issue #18): ``sft`` supervised fine-tuning; ``dpo`` DPO/IPO and the other losses
#: of TRL's ``DPOTrainer`` (a reference model); ``orpo`` ORPO, CPO and SimPO (TRL's ``ORPOTrainer``/``CPOTrainer``: pairs,
#: no reference model); ``kto`` TRL's ``KTOTrainer`` (unpaired examples, a reference model and a KL batch); ``reward`` a
#: reward model (TRL's ``RewardTrainer``: ``AutoModelForSequenceClassification`` with one output instead of the LM head);
#: ``grpo`` TRL's ``GRPOTrainer`` (GRPO and its loss variants: completions generated every step, ``core/generation.py``).
Workload = Literal["sft", "pt", "dpo", "orpo", "kto", "reward", "grpo"]
#: How GRPO generates its completions (``core/generation.py``): ``transformers`` the training model's
#: ``model.generate`` (TRL's default, ``use_vllm=False``); ``vllm-colocate`` a vLLM engine inside each training process
#: (``vllm_mode="colocate"``); ``vllm-server`` ``trl vllm-serve`` on GPUs of its own (``vllm_mode="server"``).
GenerationEngine = Literal["transformers", "vllm-colocate", "vllm-server"]
#: Where a DPO/KTO reference model's log-probs come from: ``shared`` the policy with its LoRA adapters disabled (TRL
#: ``use_adapter(model, None)`` when ``ref_model`` is None and the model is a PEFT model); ``copy`` a frozen copy of the
#: model in memory (TRL loads one when the policy is not a PEFT model); ``precomputed`` TRL's
#: ``precompute_ref_log_probs=True``: one pass over the training set before training, no reference during it.
ReferenceModel = Literal["shared", "copy", "precomputed"]
#: The training stacks of :mod:`tuneplan.core.stacks` (its ``STACK_KEYS``; a test keeps the two equal).
StackKey = Literal["hf-peft", "trl", "llama-factory", "axolotl", "ms-swift", "unsloth", "torchtune", "litgpt", "pytorch"]

OPTIMIZER_LABELS: dict[str, str] = {
    "adamw": "AdamW (torch, foreach)",
    "adamw-fused": "AdamW (torch, fused)",
    "adamw-8bit": "8-bit AdamW (bitsandbytes)",
    "paged-adamw-8bit": "Paged 8-bit AdamW",
    "paged-adamw-32bit": "Paged 32-bit AdamW",
    "sgd": "SGD with momentum",
    "adafactor": "Adafactor",
}


#: Most tokens one plan may train (tokens per epoch x epochs): about 25 times the largest published pretraining
#: run (Qwen3, 3.6e13), so that every time and cost the planner prints stays a finite, readable number.
MAX_TRAINING_TOKENS = 1e15


def _zero_or_rate(value: float) -> float:
    """0 (unknown / none) or a rate in [0.01, 100,000]; raises ValueError otherwise (a denormal rate divides by 0)."""
    if value != 0 and not 0.01 <= value <= 100_000:  # NaN fails both tests
        raise ValueError("must be 0 (unknown) or between 0.01 and 100000")
    return value


#: A GPU rate (TFLOPS, GB/s) that is 0 when unknown.
_Rate = Annotated[float, AfterValidator(_zero_or_rate)]


class _Model(BaseModel):
    model_config = ConfigDict(validate_assignment=True, extra="forbid")


class TrainingSetup(_Model):
    """How the model is trained: method, precision, optimizer, batch geometry and parallelism.

    ``micro_batch`` x ``seq_len`` tokens go through the model per GPU per forward pass;
    ``grad_accumulation`` micro-batches make one optimizer step. ``num_gpus`` GPUs share the work
    with ``sharding`` (``none`` only for one GPU; ``ddp`` replicates; ZeRO-1/2/3 and FSDP shard).
    """

    method: Method = "qlora"
    precision: Precision = "bf16"
    master_weights: Literal["none", "fp32"] = "none"
    optimizer: Optimizer = "adamw"
    optimizer_in_backward: bool = False
    lora_rank: int = Field(default=16, ge=1, le=4096)
    lora_alpha: float = Field(default=32, gt=0, le=100_000)
    lora_dropout: float = Field(default=0.05, ge=0, lt=1)
    lora_targets: LoraTargets = "all-linear"
    #: LoRA/QLoRA: the exact modules adapted, by the names PEFT's ``target_modules`` matches (``gate_proj``,
    #: ``down_proj``, a fused ``qkv_proj``...), when they are not one of the presets above; empty: the preset
    #: ``lora_targets``. At most 64 names of letters, digits, ``_`` and ``.``; a comma-separated string is accepted.
    lora_modules: tuple[str, ...] = ()
    trainable_embeddings: bool = False
    #: QLoRA: how bitsandbytes quantises the frozen base as it loads it. 4: NF4 blocks of 64 (``load_in_4bit``,
    #: QLoRA, arXiv:2305.14314). 8: LLM.int8 (``load_in_8bit``, arXiv:2208.07339): int8 weights with one fp32
    #: scale per output row (``Int8Params`` ``CB``/``SCB``), each matmul quantising its input to int8 in the
    #: forward and dequantising the weight to 16 bits for the input's gradient (bitsandbytes ``MatMul8bitLt``).
    #: Ignored for a pre-quantised checkpoint (its layers stay as stored).
    quant_bits: Literal[4, 8] = 4
    #: QLoRA: the library that quantises the base as it loads. ``bnb``: bitsandbytes (``quant_bits`` above).
    #: ``hqq``: Half-Quadratic Quantization (transformers ``HqqConfig``; LLaMA-Factory ``quantization_method: hqq``,
    #: ms-swift ``quant_method hqq``): ``quant_bits`` bits per weight packed into bytes plus one scale and one zero
    #: point in the compute dtype per group of ``quant_group_size`` weights (hqq >= 0.2 no longer quantises them),
    #: dequantised to the compute dtype by every matmul, which also saves its input for the backward
    #: (``HQQLinear``'s default PyTorch backend, ``HQQMatmulNoCacheMul``; mobiusml/hqq @e0b1d00).
    quant_method: Literal["bnb", "hqq"] = "bnb"
    #: HQQ: weights per scale/zero group (``HqqConfig(group_size=64)``, the default).
    quant_group_size: int = Field(default=64, ge=8, le=65536)
    double_quant: bool = True
    #: QLoRA: keep every parameter bitsandbytes leaves unquantised (embeddings, LM head, norms,
    #: stacked MoE experts) in fp32, as PEFT's ``prepare_model_for_kbit_training`` leaves them in a
    #: plain PEFT script. Off by default: axolotl casts them back to the training dtype after that call
    #: (``ModelLoader._convert_embedding_modules_dtype``), current TRL ``SFTTrainer`` no longer makes
    #: it, and torchtune, Unsloth and LitGPT never upcast.
    kbit_fp32_upcast: bool = False
    #: LoRA/QLoRA: how the adapters are held and run. ``fp32-autocast``: FP32 adapters (PEFT's
    #: ``autocast_adapter_dtype``) under BF16/FP16 autocast, as Hugging Face Trainer, TRL and axolotl
    #: run them with ``bf16=True``. ``fp32``: FP32 adapters in a plain loop on a 16-bit model without
    #: autocast, where PEFT casts each adapted input to FP32 (``_cast_input_dtype``). ``model-dtype``:
    #: adapters in the training dtype, nothing cast (torchtune, LitGPT ``bf16-true``, PEFT with
    #: ``autocast_adapter_dtype=False``; TRL casts a quantised model's adapters to BF16). Ignored for
    #: full fine-tuning, FP32 training and an FP32 master model (always FP32 under autocast).
    adapter_precision: AdapterPrecision = "fp32-autocast"
    #: ``torch.compile`` on the decoder layers (torchtune ``compile: True``, HF ``torch_compile=True``, axolotl
    #: ``torch_compile: true``): AOTAutograd's partitioner recomputes cheap pointwise results in backward.
    #: Modelled for RMSNorm layers: each norm (q/k norms included) keeps its bf16 normalised value instead of an
    #: fp32 input copy, SwiGLU (experts too) recomputes SiLU(gate), and identical casts of one input are saved
    #: once (measured with ``tools/validate/compile_saved.py``). Speed is the framework tier's business.
    torch_compile: bool = False
    micro_batch: int = Field(default=1, ge=1, le=4096)
    seq_len: int = Field(default=2048, ge=1, le=10_000_000)
    #: how the rows of a micro-batch are laid out: ``packed`` (examples concatenated into full rows of ``seq_len``),
    #: ``fixed`` (every example padded to ``seq_len``), ``dynamic`` (padded to the batch's longest), ``padding-free``
    #: (the batch's examples flattened into one row of their summed lengths, positions restarting at each example:
    #: transformers ``DataCollatorWithFlattening``, TRL ``padding_free=True``, ms-swift ``padding_free``; the peak
    #: is sized by the largest sum the run draws, core/lengths.py ``padding_free_peak``).
    sequence_mode: SequenceMode = "packed"
    grad_accumulation: int = Field(default=1, ge=1, le=100_000)
    #: rows of one evaluation micro-batch when the trainer evaluates during training (HF ``TrainingArguments.
    #: per_device_eval_batch_size``, 8 there by default; axolotl ``eval_batch_size``); 0: no evaluation pass during
    #: training. It is a no-grad forward with labels next to the optimizer states (core/memory/peaks.py
    #: ``evaluation_moment``), a moment of its own for the peak.
    eval_micro_batch: int = Field(default=0, ge=0, le=4096)
    #: tokens each evaluation example generates when the evaluation generates instead of (LLaMA-Factory) or before
    #: (HF ``Seq2SeqTrainer``) computing its loss: ``predict_with_generate`` with ``max_new_tokens`` (LLaMA-Factory
    #: ``GeneratingArguments``, 1024 by default); 0: the evaluation computes the loss only. SFT only, and only with
    #: an evaluation batch. Its KV cache is a moment of its own (core/memory/peaks.py ``eval_generation_moment``), its
    #: decode steps part of the evaluation's time (core/throughput.py).
    eval_generate_tokens: int = Field(default=0, ge=0, le=1_000_000)
    #: the trainer empties PyTorch's CUDA cache every this many steps (HF ``TrainingArguments.torch_empty_cache_steps``:
    #: ``torch.cuda.empty_cache()`` in ``training_step`` when the global step is a multiple of it); 0: never (HF's
    #: default, None). Every step (1) leaves no cached blocks of earlier batch shapes for ``max_memory_reserved`` to
    #: show under dynamic padding (``core/memory/allocator.py`` ``shape_cache_bytes``); a longer period leaves the one
    #: stale set that term counts. Its time (freeing and re-reserving segments) is not modelled.
    empty_cache_steps: int = Field(default=0, ge=0, le=1_000_000)
    grad_checkpointing: bool = True
    attention: Attention = "flash"
    fused_cross_entropy: bool = False
    activation_offload: bool = False
    cpu_offload: bool = False
    num_gpus: int = Field(default=1, ge=1, le=4096)
    sharding: Sharding = "none"
    #: FSDP with gradient accumulation: when the gradients are reduce-scattered. ``step``: only at the optimizer
    #: step; the micro-batches before it run under ``no_sync()`` (FSDP2: ``set_requires_gradient_sync(False)``)
    #: and keep *unsharded* gradients ("FSDP will accumulate the full model gradients (instead of gradient
    #: shards) until the eventual sync", ``FullyShardedDataParallel.no_sync`` docstring). That is what Hugging
    #: Face Trainer and accelerate do by default (``sync_each_batch=False``) and Lightning Fabric's
    #: ``no_backward_sync`` (LitGPT). ``micro-batch``: reduce-scatter after every micro-batch, accumulating
    #: sharded gradients (torchtune, torchtitan, accelerate ``sync_each_batch=True``). DeepSpeed ZeRO always
    #: reduces each micro-batch into its partitions, so the setting only applies to ``fsdp``.
    grad_sync: GradSync = "step"
    #: How FSDP groups the model into units. ``layers``: each decoder layer is a unit and the embeddings, final
    #: norm and LM head stay in the root unit (Hugging Face accelerate's transformer-layer wrap policy, FSDP1
    #: and FSDP2; LoRA adapters wrapped apart by PEFT's ``fsdp_auto_wrap_policy``). The root's parameters stay
    #: unsharded from its forward to its backward (FSDP1 ``_post_forward_reshard``: "Do not free the root's
    #: parameters in the post-forward"; FSDP2: the root's ``reshard_after_forward`` is set to False), and a
    #: trained LM head's gradient waits in it for the embedding's. ``separate-embeddings``: the embeddings and
    #: the LM head are units of their own (torchtune's ``custom_sharded_layers``), resharded after use.
    #: ``blocks-with-adapters``: LoRA adapters share their layer's unit with its frozen weights (LitGPT wraps each
    #: ``Block``, FSDP1 ``use_orig_params=True``): the unit's ``FlatParameter`` requires grad as a whole, so
    #: every frozen layer weight gets a gradient ("equivalent to not freezing those parameters", FSDP
    #: docstring; litgpt PR #1538); the root is kept as with ``layers``.
    fsdp_wrap: FsdpWrap = "layers"
    #: DeepSpeed ZeRO buffer sizes, in elements (``zero_optimization`` in the DeepSpeed JSON); None: the value that
    #: applies without one (``deepspeed_auto_buckets``, else DeepSpeed's default). ``reduce_bucket_size`` (default
    #: 5e8), ``stage3_prefetch_bucket_size`` (5e7), ``sub_group_size`` (1e9; 0 = one parameter per group) and
    #: ``stage3_max_reuse_distance`` (1e9) from deepspeed/runtime/zero/config.py. Only ZeRO plans use them.
    deepspeed_reduce_bucket: float | None = Field(default=None, ge=0, le=1e12)
    deepspeed_prefetch_bucket: float | None = Field(default=None, ge=0, le=1e12)
    deepspeed_sub_group: float | None = Field(default=None, ge=0, le=1e13)
    deepspeed_max_reuse_distance: float | None = Field(default=None, ge=0, le=1e13)
    #: The DeepSpeed JSON leaves the buckets "auto" and Hugging Face's integration fills them from the model's hidden
    #: size h: reduce bucket h x h, ZeRO-3 prefetch bucket 0.9 x h x h, persistence threshold 10 x h
    #: (transformers integrations/deepspeed.py ``HfTrainerDeepSpeedConfig.trainer_config_finalize``;
    #: accelerate ``Accelerator._prepare_deepspeed`` the same). The explicit sizes above win over it.
    deepspeed_auto_buckets: bool = False
    #: DeepSpeed ZeRO-3: the model is built under ``deepspeed.zero.Init``, each parameter partitioned as it is created,
    #: as Hugging Face Trainer, TRL, LLaMA-Factory and ms-swift do (they parse the DeepSpeed config before loading the
    #: model, so ``from_pretrained`` sees ZeRO-3); accelerate's ``zero3_init_flag``. False: every rank loads the whole
    #: model and the engine moves it to its GPU before partitioning it (DeepSpeed ``engine.py``
    #: ``_configure_distributed_model``: ``module.to(device)`` unless the parameters are already ZeRO-3 ones), a
    #: loading peak of the whole 16-bit model per GPU. A quantised base is never built under zero.Init (transformers
    #: ``get_init_context``: ``is_deepspeed_zero3_enabled() and not is_quantized``). Only ZeRO-3 plans use it.
    zero_init: bool = True
    framework: FrameworkTier = "hf"
    #: What is trained (:data:`Workload`); ``sft`` is supervised fine-tuning, every other value a TRL trainer of
    #: ``core/workload.py``. Pair workloads (``dpo``, ``orpo``, ``reward``) run chosen and rejected as two rows of every
    #: example: ``micro_batch`` counts examples (pairs), ``seq_len`` one row (prompt + one completion).
    workload: Workload = "sft"
    #: DPO/KTO: the reference model (:data:`ReferenceModel`); None: what TRL does without a ``ref_model`` (``shared``
    #: for LoRA/QLoRA, ``copy`` for full fine-tuning). Ignored by the other workloads.
    reference_model: ReferenceModel | None = None
    #: GRPO (``workload="grpo"``, TRL ``GRPOConfig``): ``micro_batch`` counts completions; every prompt gets
    #: ``num_generations`` of them (default 8, at least 2), each ``completion_tokens`` long (``max_completion_length``,
    #: default 512) after a prompt of ``seq_len - completion_tokens``; ``kl_beta`` the KL coefficient (default 0.0:
    #: no reference model); the engine (:data:`GenerationEngine`), the colocated vLLM engine's share of the card
    #: (``vllm_gpu_memory_utilization``, default 0.3), its sleep mode (``vllm_enable_sleep_mode``) and the GPUs of a
    #: vLLM server. Ignored by the other workloads.
    num_generations: int = Field(default=8, ge=2, le=4096)
    completion_tokens: int = Field(default=512, ge=1, le=10_000_000)
    kl_beta: float = Field(default=0.0, ge=0, le=1000)
    generation_engine: GenerationEngine = "transformers"
    vllm_memory_share: float = Field(default=0.3, gt=0, lt=1)
    vllm_sleep: bool = False
    vllm_server_gpus: int = Field(default=1, ge=1, le=1024)
    #: The stack the user trains with (``core/stacks.py``), whose defaults were applied to the fields above; None: not
    #: chosen. Only a label once applied: every field keeps whatever value it has, overridden or not.
    stack: StackKey | None = None
    #: model FLOPs utilisation in [0.001, 1]: below 0.1 % no real run is planned, and a denormal one divides by 0
    mfu_override: float | None = Field(default=None, ge=0.001, le=1)

    @field_validator("lora_modules", mode="before")
    @classmethod
    def _module_list(cls, value: object) -> object:
        """A comma-separated string as a list; names stripped, empty ones dropped, duplicates removed."""
        if isinstance(value, str):
            value = value.split(",")
        if isinstance(value, (list, tuple)) and all(isinstance(n, str) for n in value):
            return tuple(dict.fromkeys(n.strip() for n in value if n.strip()))
        return value  # (anything else: the field's own validation refuses it)

    @field_validator("lora_modules")
    @classmethod
    def _module_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if len(value) > 64:
            raise ValueError("at most 64 module names")
        for n in value:
            if not (0 < len(n) <= 64) or not all(c.isascii() and (c.isalnum() or c in "_.") for c in n):
                raise ValueError("module names are letters, digits, _ and . (at most 64 characters each)")
        return value

    @model_validator(mode="after")
    def _check_grpo(self) -> TrainingSetup:
        if self.workload == "grpo" and self.completion_tokens >= self.seq_len:
            raise ValueError(f"completion_tokens ({self.completion_tokens}) must be shorter than seq_len "
                             f"({self.seq_len}), which holds the prompt and the completion")
        return self

    @property
    def trains_base_weights(self) -> bool:
        """True for full fine-tuning (all weights get gradients and optimizer states)."""
        return self.method == "full"

    @property
    def frozen_weight_grads(self) -> bool:
        """True when FSDP computes gradients for frozen LoRA base weights (``fsdp_wrap="blocks-with-adapters"``
        in effect: LoRA, not QLoRA, whose 4-bit weights cannot require grad; FSDP over more than one GPU)."""
        return (self.fsdp_wrap == "blocks-with-adapters" and self.method == "lora" and self.sharding == "fsdp"
                and self.num_gpus > 1)

    @property
    def fsdp_root_unsharded(self) -> bool:
        """True when FSDP keeps the root unit (embeddings, final norm, LM head) unsharded from its forward to its
        backward: FSDP over more than one GPU with ``fsdp_wrap`` other than ``separate-embeddings``."""
        return self.sharding == "fsdp" and self.num_gpus > 1 and self.fsdp_wrap != "separate-embeddings"

    @property
    def unsharded_accumulation(self) -> bool:
        """True when FSDP accumulates unsharded gradients between optimizer steps (``grad_sync == "step"``,
        FSDP over more than one GPU, more than one micro-batch per step, optimizer not stepped in backward)."""
        return (self.grad_sync == "step" and self.sharding == "fsdp" and self.num_gpus > 1
                and self.grad_accumulation > 1 and not self.optimizer_in_backward)


class Dataset(_Model):
    """How much text is trained on.

    ``examples`` x ``tokens_per_example`` x ``epochs`` tokens, unless ``total_tokens`` is given,
    which replaces ``examples x tokens_per_example``. ``padding_efficiency`` (real tokens / tokens
    computed, 0-1] applies when sequences are padded rather than packed.

    ``rank_padding_efficiency`` (0-1], dynamic padding over several data-parallel GPUs: real tokens per row over
    the row of the *slowest* GPU's micro-batch, ``mean kept length / E[longest of the micro-batch x GPUs examples
    one step draws]``. Every GPU pads its own micro-batch to its own longest example, and the step waits for the
    GPU with the longest (core/throughput.py ``slowest_rank_row``); 1 when the length spread is unknown.

    ``packing_efficiency`` (0-1], packed rows: real tokens / the tokens of the rows they are packed into
    (``seq_len`` each), counted from the dataset file by best-fit decreasing (core/lengths.py
    ``packing_efficiency``); 1 when unknown. Only stacks that pad every pack to ``seq_len``
    (:data:`tuneplan.core.stacks.PADDED_PACK_STACKS`) compute the gaps; the others pack without padding.

    ``tokens_std``: the standard deviation of the kept example lengths (tokens, after truncation at ``seq_len``),
    counted from the dataset file (core/lengths.py); None when unknown. Padding-free batches are sized by it (the
    largest sum of ``micro_batch`` lengths the run draws, core/lengths.py ``padding_free_peak``) and their
    attention by ``mean + std^2 / mean`` tokens per example. ``longest_tokens``: the longest example, counted from the
    file (None: estimated from the spread, ``mean + e_N std`` for the ``N`` examples).
    """

    examples: int = Field(default=10_000, ge=0, le=10**12)
    tokens_per_example: float = Field(default=512, ge=0, le=10**8)
    total_tokens: float | None = Field(default=None, ge=0, le=10**15)
    epochs: float = Field(default=3, ge=0.001, le=10_000)
    padding_efficiency: float = Field(default=1.0, ge=0.01, le=1)
    rank_padding_efficiency: float = Field(default=1.0, ge=0.01, le=1)
    packing_efficiency: float = Field(default=1.0, ge=0.01, le=1)
    tokens_std: float | None = Field(default=None, ge=0, le=10**8)
    longest_tokens: int | None = Field(default=None, ge=1, le=10**8)
    eval_fraction: float = Field(default=0.0, ge=0, le=1)

    @model_validator(mode="after")
    def _check_tokens(self) -> Dataset:
        trained = self.tokens_per_epoch * self.epochs
        if trained > MAX_TRAINING_TOKENS:
            raise ValueError(f"{trained:.3g} training tokens (examples x tokens per example, or total tokens, x "
                             f"epochs); at most {MAX_TRAINING_TOKENS:.0e} can be planned")
        return self

    @property
    def tokens_per_epoch(self) -> float:
        """Real (non-padding) tokens in one pass over the data."""
        if self.total_tokens is not None:
            return float(self.total_tokens)
        return float(self.examples) * float(self.tokens_per_example)


class GpuSpec(_Model):
    """One GPU model: memory, dense tensor throughput and bandwidth (from ``gpus.csv``).

    ``memory_gib`` is the capacity the driver reports (nvidia-smi total / 1024 MiB), which is what
    a job can fill. TFLOPS are dense (no 2:4 sparsity) with FP32 accumulate, as PyTorch mixed
    precision uses them.
    """

    id: str = Field(min_length=1, max_length=200)
    name: str = Field(min_length=1, max_length=200)
    vendor: str = Field(default="NVIDIA", max_length=200)
    #: GiB; 0.01 GiB at least (a card that holds nothing plans nothing).
    memory_gib: float = Field(ge=0.01, le=100_000)
    #: dense TFLOPS; 0 = unknown, else 0.01-100,000 (a B200 does 2,250).
    bf16_tflops: _Rate = 0.0
    fp16_tflops: _Rate = 0.0
    measured_bf16_tflops: _Rate | None = None
    #: GB/s, 1-1,000,000 (an H200 moves 4,800).
    memory_bandwidth_gbps: float = Field(default=1000.0, ge=1, le=1_000_000)
    bf16_supported: bool = True
    segment: str = Field(default="datacenter", max_length=200)
    interconnect: str = Field(default="PCIe only", max_length=200)
    #: GB/s of the GPU-to-GPU link; 0 = none (PCIe only), else 0.01-100,000.
    p2p_link_gbps: _Rate = 0.0
    tdp_w: float = Field(default=300.0, ge=0, le=100_000)
    #: streaming multiprocessors (AMD: compute units), from the vendor's architecture whitepapers; 0 = unknown.
    #: The GEMM model uses them for wave quantisation (core/steptime.py).
    sm_count: int = Field(default=0, ge=0, le=100_000)
    #: compute capability as ``major.minor`` (NVIDIA), 0 when unknown; FlashAttention needs 8.0 or newer.
    compute_capability: float = Field(default=0.0, ge=0, le=100)
    #: the architecture's name as the catalog gives it (``Hopper (GH100)``), for kernel-rate tables.
    architecture: str = Field(default="", max_length=200)
    #: host link as the catalog gives it (``PCIe 4.0 x16``); host<->device copies run at its rate.
    pcie: str = Field(default="PCIe 4.0 x16", max_length=200)
    source: str = Field(default="", max_length=10_000)

    @property
    def peak_tflops(self) -> float:
        """Dense tensor TFLOPS used for training: BF16, or FP16 on cards without BF16 (T4, V100)."""
        return self.bf16_tflops if self.bf16_supported and self.bf16_tflops > 0 else self.fp16_tflops


class Pricing(_Model):
    """What the run costs: GPU price, billing rounding, storage, transfer, overheads, interruptions.

    ``price_per_gpu_hour`` is USD per GPU per hour; ``billing`` is the provider's rounding
    granularity. Storage is charged as GB x USD per GB-month x hours / 730. ``setup_minutes`` and
    ``eval_minutes`` are billed GPU time outside training.
    """

    provider: str = Field(default="RunPod", max_length=200)
    offer_kind: str = Field(default="community", max_length=200)
    price_per_gpu_hour: float = Field(default=0.34, ge=0, le=10_000)
    price_date: str = Field(default="", max_length=200)
    billing: Billing = "second"
    minimum_billed_minutes: float = Field(default=0.0, ge=0, le=100_000)
    storage_kind: StorageKind = "volume"
    storage_gb: float = Field(default=50, ge=0, le=10**7)
    storage_usd_per_gb_month: float = Field(default=0.10, ge=0, le=1000)
    storage_hours_after_run: float = Field(default=0.0, ge=0, le=100_000)
    egress_gb: float = Field(default=0.0, ge=0, le=10**7)
    egress_usd_per_gb: float = Field(default=0.0, ge=0, le=100)
    other_usd: float = Field(default=0.0, ge=0, le=10**9)
    setup_minutes: float = Field(default=10, ge=0, le=100_000)
    eval_minutes: float = Field(default=0, ge=0, le=100_000)
    checkpoint_count: int = Field(default=3, ge=0, le=100_000)
    #: GB/s a checkpoint is written at; 0.001 (1 MB/s) at least.
    disk_write_gbps: float = Field(default=1.0, ge=0.001, le=1000)
    interruptions_per_hour: float = Field(default=0.0, ge=0, le=100)
    #: minutes between checkpoints under interruptions; 0.1 at least (a denormal one overflows the save count).
    checkpoint_every_min: float = Field(default=30, ge=0.1, le=100_000)
    restart_minutes: float = Field(default=5, ge=0, le=100_000)
    monthly_price_usd: float | None = Field(default=None, ge=0, le=10**7)
    runs_per_month: float = Field(default=1, ge=0.001, le=10_000)
    electricity_usd_per_kwh: float | None = Field(default=None, ge=0, le=100)
    #: The GPUs are the user's own: the run is billed as electricity (board power x hours x
    #: ``electricity_usd_per_kwh``, core/cost.py), with no rental, storage, egress or interruption charges;
    #: the rental fields above then price the same run rented, for comparison.
    own_gpu: bool = False
    #: Board power per GPU in W as read from the card (NVML's enforced power limit); None: the spec's ``tdp_w``.
    gpu_power_w: float | None = Field(default=None, ge=0, le=100_000)
    #: The rest of the machine while it trains (CPU, memory, drives, fans, power-supply losses), W; 0 = left out.
    host_power_w: float = Field(default=0.0, ge=0, le=1_000_000)
    # --- added for the time and cost planner (core/throughput.py, core/cost.py) ---
    #: Model download speed in GB/s (10**9 bytes/s) during setup: parameters x 2 B (bf16 files) /
    #: this. 0.5 GB/s is a planning judgement for a cloud host pulling from the Hugging Face Hub
    #: (hf_transfer reaches more on fast links; home connections are ~0.01-0.1 GB/s).
    download_gbps: float = Field(default=0.5, ge=0.001, le=1000)
    #: Tokenisation / packing of the dataset before training, minutes of billed GPU time.
    dataset_prep_minutes: float = Field(default=0.0, ge=0, le=100_000)
    #: Probability (0-1) that a run fails and must be repeated in full (divergence, bad result,
    #: crash without usable checkpoint). Cost per completed run = one run / (1 - p).
    failure_probability: float = Field(default=0.0, ge=0, lt=1)
    #: USD per GB-month of a pod volume while the pod is stopped (RunPod: 0.20 vs 0.10 running,
    #: provider_terms.csv). None: same as ``storage_usd_per_gb_month``.
    storage_stopped_usd_per_gb_month: float | None = Field(default=None, ge=0, le=1000)
    #: Upper-end interruption rate per hour for the pessimistic cost. None: ``interruptions_per_hour``
    #: (the pessimistic case then takes the 90th percentile of the Poisson count).
    interruptions_per_hour_high: float | None = Field(default=None, ge=0, le=100)


class Scenario(_Model):
    """A complete plan input. Self-contained: the model and GPU are embedded, not looked up.

    Raises:
        pydantic.ValidationError: on construction or assignment of any invalid field.
    """

    schema_version: int = SCHEMA_VERSION
    name: str = Field(default="Untitled plan", min_length=1, max_length=200)
    model_id: str = Field(default="", max_length=200)
    model: ModelArchitecture
    training: TrainingSetup = Field(default_factory=TrainingSetup)
    dataset: Dataset = Field(default_factory=Dataset)
    gpu: GpuSpec
    pricing: Pricing = Field(default_factory=Pricing)
    notes: str = Field(default="", max_length=100_000)

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        t = self.training
        if t.num_gpus == 1 and t.sharding == "ddp":
            pass  # DDP on one GPU is legal (and equals no sharding)
        ckpt = self.model.checkpoint
        if t.method not in allowed_methods(ckpt) and ckpt is not None:
            # packed integer / float8 weights take no gradient: only adapters train on such a base
            raise ValueError(f"{self.model.name[:80]} is a pre-quantised {ckpt.label} checkpoint: it trains with "
                             "LoRA or QLoRA adapters on its frozen weights, not by full fine-tuning")
        return self


#: Method words in plan names (plan names are data and stay English; views translate these words).
METHOD_WORDS = {"full": "full fine-tune", "lora": "LoRA", "qlora": "QLoRA"}
#: Workload words in plan names (none for supervised fine-tuning): ``Llama 3.1 8B LoRA DPO on RTX 4090``.
WORKLOAD_WORDS = {"sft": "", "pt": "continued pretraining", "dpo": "DPO", "orpo": "ORPO", "kto": "KTO", "reward": "reward model"}


def method_word(t: TrainingSetup, model: ModelArchitecture | None = None) -> str:
    """The method as plan names and the CLI write it: :data:`METHOD_WORDS`, and ``8-bit LoRA`` for LoRA on a
    bitsandbytes 8-bit base (``quant_bits`` 8 on a 16-bit checkpoint; QLoRA names the 4-bit base, and a pre-quantised
    ``model`` checkpoint keeps its own weights whatever ``quant_bits`` says)."""
    ckpt = model.checkpoint if model is not None else None
    # (HQQ: ``HQQ 4-bit LoRA``)
    if t.method == "qlora" and t.quant_method == "hqq" and not (ckpt is not None and ckpt.is_quantized):
        return f"HQQ {t.quant_bits}-bit LoRA"
    if t.method == "qlora" and t.quant_bits == 8 and not (ckpt is not None and ckpt.is_quantized):
        return "8-bit LoRA"
    return METHOD_WORDS.get(t.method, t.method)


def auto_name(s: Scenario) -> str:
    """The name a plan gets from its contents, e.g. ``Llama 3.1 8B QLoRA on RTX 4090``,
    ``Llama 3.1 70B LoRA on 8× H100 SXM`` or ``Llama 3.1 8B LoRA DPO on RTX 4090`` (at most 200 characters)."""
    gpus = s.gpu.name.removeprefix("GeForce ").strip()
    if s.training.num_gpus > 1:
        gpus = f"{s.training.num_gpus}× {gpus}"
    work = WORKLOAD_WORDS.get(s.training.workload, s.training.workload)
    method = method_word(s.training, s.model)
    return f"{s.model.name} {method}{' ' + work if work else ''} on {gpus}"[:200]


_BOUND_ERRORS = {"greater_than", "greater_than_equal", "less_than", "less_than_equal"}


def _number(value: Any) -> str:
    """A bound or an input value for a message: ``0.001``, ``1e+12``; long text cut to 40 characters."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    if isinstance(value, int) and value.bit_length() > 1000:
        return "a number of over 300 digits"
    return f"{float(value):g}" if isinstance(value, float) or abs(value) >= 10**6 else str(value)


def _field_info(root: type[BaseModel], loc: tuple[int | str, ...]) -> Any:
    """The pydantic ``FieldInfo`` at ``loc`` under ``root`` (through nested models), or None."""
    model: Any = root
    info = None
    for part in loc:
        fields = getattr(model, "model_fields", None)
        if not isinstance(part, str) or not fields or part not in fields:
            return None
        info = fields[part]
        model = info.annotation
    return info


def _range_text(info: Any) -> str | None:
    """``between 0.001 and 1``, ``more than 0 and at most 1``, ``at least 0``: the field's whole range."""
    lo = hi = None
    for item in getattr(info, "metadata", ()):
        for attr, word in (("ge", "at least"), ("gt", "more than")):
            if getattr(item, attr, None) is not None:
                lo = (word, getattr(item, attr))
        for attr, word in (("le", "at most"), ("lt", "less than")):
            if getattr(item, attr, None) is not None:
                hi = (word, getattr(item, attr))
    if lo and hi and lo[0] == "at least" and hi[0] == "at most":
        return f"between {_number(lo[1])} and {_number(hi[1])}"
    parts = [f"{w} {_number(v)}" for w, v in (lo, hi) if w]
    return " and ".join(parts) or None


def explain_validation_error(exc: ValidationError, root: type[BaseModel] | None = None) -> tuple[str, str]:
    """The first error of ``exc`` as ``(dotted field, message)``, the message on one line.

    A value out of range names the field's whole allowed range and the value given
    (``("training.mfu_override", "must be between 0.001 and 1 (got 5e-324)")``); a fraction for a whole
    number says so. ``root`` is the model validated (default :class:`Scenario`), used to look up the ranges.
    """
    err = exc.errors()[0]
    loc = tuple(err.get("loc", ()))
    where = ".".join(str(p) for p in loc)
    kind = err.get("type", "")
    value = err.get("input")
    shown = repr(value) if isinstance(value, float) else _number(value)  # 5e-324 as typed, not 4.94066e-324
    given = f" (got {shown})" if "input" in err else ""
    if kind in _BOUND_ERRORS and (text := _range_text(_field_info(root or Scenario, loc))):
        return where, f"must be {text}{given}"
    if kind == "int_from_float":
        return where, f"must be a whole number{given}"
    msg = str(err.get("msg", "invalid value")).replace("Input should be", "must be").removeprefix("Value error, ")
    if kind == "value_error" and "input" in err and not isinstance(err["input"], dict):
        msg += given
    return where, " ".join(msg.split())
