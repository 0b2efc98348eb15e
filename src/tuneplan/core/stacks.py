"""Training stacks: the defaults each fine-tuning framework really uses, read from its source (issue #17).

"I train with TRL" should set the half-dozen fields a user cannot be expected to know (how the adapters are held,
whether QLoRA's unquantised weights are upcast, how the loss keeps its logits, when FSDP syncs gradients ...).
Each :class:`StackProfile` lists the :class:`TrainingSetup` fields its stack sets, each with the file, setting and
commit it was read from and a short reason. A field the stack leaves to the user (a choice its configs make
either way) is not set: the plan keeps its value, and :attr:`StackProfile.left_to_user` names it.

:func:`apply_stack` returns a new setup with a profile's defaults (except the fields the caller keeps: what a
config file or a flag set explicitly); :func:`overridden` names the fields of a plan that differ from its stack's
defaults. Defaults may depend on the method (QLoRA vs LoRA), on one or several GPUs and on the sharding; they are
resolved against the setup they are applied to. Reasons are registered in ``NOTES`` (``stack.<key>.<n>``) so the
views translate them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from tuneplan.core import workload as wl
from tuneplan.core.scenario import TrainingSetup
from tuneplan.core.terms import N_, NOTES

__all__ = [
    "OWN_ATTENTION_STACKS",
    "PADDED_PACK_STACKS",
    "STACKS",
    "STACK_KEYS",
    "Source",
    "StackDefault",
    "StackProfile",
    "apply_stack",
    "follow_defaults",
    "get_stack",
    "overridden",
    "pads_packs",
    "resolved_defaults",
    "sdpa_padding_mask",
]

#: Stacks that pad every packed row to the sequence length, so that the gaps packing leaves are computed:
#: LLaMA-Factory's ``PackedSupervisedDatasetProcessor.preprocess_dataset`` (data/processor/supervised.py @ff6d4d1)
#: packs examples by ``greedy_knapsack(lengths, cutoff_len)`` and pads each pack with ``pad_token_id`` to
#: ``cutoff_len + 1`` ("avoid flash_attn drops attn mask"). TRL's packing (``bfd`` with position ids, or ``wrapped``
#: concatenation) and the plain PyTorch loop's concatenation leave no gaps.
PADDED_PACK_STACKS = frozenset({"llama-factory"})


def pads_packs(t: TrainingSetup) -> bool:
    """Whether ``t``'s packed rows are padded to ``seq_len`` (:data:`PADDED_PACK_STACKS`): supervised fine-tuning
    only, since LLaMA-Factory's pt stage (``PretrainDatasetProcessor``) concatenates the texts and cuts them into
    ``cutoff_len`` blocks without a gap."""
    return t.sequence_mode == "packed" and t.stack in PADDED_PACK_STACKS and t.workload == "sft"

#: Stacks whose own modelling code calls SDPA causally without a padding mask (torchtune
#: ``modules/attention_utils.py``/``sdpa_or_flex_attention``, LitGPT ``model.py`` ``scaled_dot_product_attention``,
#: Unsloth's attention dispatch); every other stack runs transformers' modelling code.
OWN_ATTENTION_STACKS = frozenset({"torchtune", "litgpt", "unsloth"})


def sdpa_padding_mask(t: TrainingSetup) -> bool:
    """Whether SDPA attention gets a 4-D padding mask: the plan attends with ``sdpa`` through transformers' modelling
    code and its micro-batch carries padding (``fixed`` rows, or ``dynamic`` with more than one row per micro-batch).

    transformers drops the mask only when it is all ones (``masking_utils._ignore_causal_mask_sdpa``) and otherwise
    builds a boolean ``(rows, 1, L, L)`` mask (``sdpa_mask_recent_torch``, huggingface/transformers @2ccc6ca);
    torchtune, LitGPT and Unsloth call SDPA with ``is_causal`` and no mask (:data:`OWN_ATTENTION_STACKS`). The mask
    keeps SDPA off its FlashAttention backend (``check_for_attn_mask``) and costs memory
    (:func:`tuneplan.core.memory.activations.sdpa_mask_bytes`)."""
    if t.attention != "sdpa" or t.stack in OWN_ATTENTION_STACKS:
        return False
    return t.sequence_mode == "fixed" or (t.sequence_mode == "dynamic" and wl.policy_rows(t) > 1)


_ALL = frozenset({"full", "lora", "qlora"})
_ADAPTERS = frozenset({"lora", "qlora"})
Gpus = Literal["any", "one", "many"]


@dataclass(frozen=True)
class Source:
    """Where a default was read: ``repo`` (owner/name), ``commit``, ``path`` in it and ``where`` (setting, function
    or line)."""

    repo: str
    commit: str
    path: str
    where: str

    def text(self) -> str:
        """``owner/name path (where) @ commit[:10]`` (no ``@`` part when no commit is pinned)."""
        at = f" @ {self.commit[:10]}" if self.commit else ""
        return f"{self.repo} {self.path} ({self.where}){at}"


@dataclass(frozen=True)
class StackDefault:
    """One field a stack sets: ``value`` for ``field`` when the plan's method is in ``methods``, its GPU count matches
    ``gpus`` (``one``/``many``/``any``) and, if given, its sharding is in ``shardings``. ``reason`` is the English
    template of ``NOTES[code]``."""

    field: str
    value: Any
    reason: str
    source: Source
    methods: frozenset[str] = _ALL
    gpus: Gpus = "any"
    shardings: frozenset[str] | None = None
    code: str = ""

    def applies(self, t: TrainingSetup) -> bool:
        """True when this default holds for ``t``'s method, GPU count and sharding."""
        if t.method not in self.methods:
            return False
        if self.gpus == "one" and t.num_gpus > 1 or self.gpus == "many" and t.num_gpus == 1:
            return False
        return self.shardings is None or t.sharding in self.shardings


@dataclass(frozen=True)
class StackProfile:
    """A training stack: ``key``, ``name`` (a proper name, not translated), its defaults (later ones win where
    several apply) and the fields it leaves to the user."""

    key: str
    name: str
    defaults: tuple[StackDefault, ...]
    left_to_user: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------- sources (commits read)

_TRANSFORMERS = ("huggingface/transformers", "00349ae87eddc872ffa21a8a54f264375a0056a8")
_ACCELERATE = ("huggingface/accelerate", "24d8b63fc32aff586ebac7bd62874916cabe4bd0")
_PEFT = ("huggingface/peft", "c1a876fa44b4e279846f238ec1894924e56189d1")
_PEFT_MAPPING = ("huggingface/peft", "ea8b8f0215a9234921315586fd38062bb4935962")
_TRL = ("huggingface/trl", "f2cd57710ae345ea6428ae95363267fcf38a3dc8")
_LF = ("hiyouga/LLaMA-Factory", "ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30")
_AXOLOTL = ("axolotl-ai-cloud/axolotl", "067b021c8b87a9e5e380b9173c704cf7340e30f5")
_SWIFT = ("modelscope/ms-swift", "3602360a562313afbf2ef6065fdf61f271a2c5b9")
_UNSLOTH = ("unslothai/unsloth", "015bdef0d94a241bcd94eec7a405b1700632180d")
_TORCHTUNE = ("pytorch/torchtune", "bd2a0fc7c31430972728494fa01aaeeb0ebf1ba1")
_LITGPT = ("Lightning-AI/litgpt", "26857050fe3ff627cd714fe92f5838f51a3d5efa")


def _src(repo: tuple[str, str], path: str, where: str) -> Source:
    return Source(repo=repo[0], commit=repo[1], path=path, where=where)


def _d(field: str, value: Any, reason: str, source: Source, **when: Any) -> StackDefault:
    return StackDefault(field=field, value=value, reason=reason, source=source, **when)


def _profile(key: str, name: str, defaults: tuple[StackDefault, ...], left_to_user: tuple[str, ...] = ()
             ) -> StackProfile:
    """A profile whose defaults carry their ``NOTES`` codes (``stack.<key>.<n>``); the reasons are registered."""
    own = tuple(StackDefault(d.field, d.value, d.reason, d.source, d.methods, d.gpus, d.shardings,
                             f"stack.{key}.{n}") for n, d in enumerate(defaults))
    for d in own:
        NOTES[d.code] = d.reason
    return StackProfile(key, name, own, left_to_user)


# What every stack built on Hugging Face Trainer inherits (unless it says otherwise).
_HF_OPTIM = _d("optimizer", "adamw-fused", N_("Trainer's default optimizer is adamw_torch_fused with PyTorch 2.8 or "
                                              "newer (adamw_torch before)"),
               _src(_TRANSFORMERS, "src/transformers/training_args.py", "default_optim"))
_HF_TIER = _d("framework", "hf", N_("Hugging Face Trainer runs the transformers modelling code, unfused kernels"),
              _src(_TRANSFORMERS, "src/transformers/training_args.py", "TrainingArguments"))
_HF_SYNC = _d("grad_sync", "step", N_("accelerate skips the FSDP gradient sync until the optimizer step "
                                      "(sync_each_batch=False)"),
              _src(_ACCELERATE, "src/accelerate/utils/dataclasses.py", "GradientAccumulationPlugin.sync_each_batch"))
_HF_WRAP = _d("fsdp_wrap", "layers", N_("accelerate wraps each decoder layer; embeddings and LM head stay in the root "
                                        "unit"),
              _src(_ACCELERATE, "src/accelerate/utils/dataclasses.py", "FullyShardedDataParallelPlugin "
                   "auto_wrap_policy=transformer_based_wrap"))
_PEFT_AUTOCAST = _d("adapter_precision", "fp32-autocast",
                    N_("PEFT upcasts the adapters to FP32 (autocast_adapter_dtype=True); Trainer runs them under "
                       "BF16/FP16 autocast"),
                    _src(_PEFT_MAPPING, "src/peft/mapping_func.py", "get_peft_model(autocast_adapter_dtype=True)"),
                    methods=_ADAPTERS)
_HF_BASE = (_HF_TIER, _HF_OPTIM, _HF_SYNC, _HF_WRAP, _PEFT_AUTOCAST)

STACKS: tuple[StackProfile, ...] = (
    _profile("hf-peft", "Hugging Face Trainer + PEFT", (
        *_HF_BASE,
        _d("fused_cross_entropy", False, N_("use_liger_kernel is off by default: the loss upcasts the full logits "
                                            "to FP32 (ForCausalLMLoss)"),
           _src(_TRANSFORMERS, "src/transformers/training_args.py", "use_liger_kernel=False")),
        _d("grad_checkpointing", False, N_("gradient_checkpointing is off by default"),
           _src(_TRANSFORMERS, "src/transformers/training_args.py", "gradient_checkpointing=False"),
           methods=frozenset({"full", "lora"})),
        _d("kbit_fp32_upcast", True, N_("PEFT's QLoRA recipe calls prepare_model_for_kbit_training, which casts every "
                                        "16-bit parameter to FP32"),
           _src(_PEFT, "src/peft/utils/other.py", "prepare_model_for_kbit_training"), methods=frozenset({"qlora"})),
        _d("grad_checkpointing", True, N_("prepare_model_for_kbit_training turns gradient checkpointing on "
                                          "(use_gradient_checkpointing=True)"),
           _src(_PEFT, "src/peft/utils/other.py", "prepare_model_for_kbit_training(use_gradient_checkpointing=True)"),
           methods=frozenset({"qlora"})),
    ), left_to_user=("sequence_mode", "attention", "micro_batch", "seq_len")),
    _profile("trl", "TRL (SFTTrainer)", (
        *_HF_BASE,
        _d("adapter_precision", "model-dtype", N_("with DeepSpeed ZeRO-3 SFTTrainer keeps a 16-bit model's adapters in "
                                                  "its dtype (autocast_adapter_dtype=False)"),
           _src(_TRL, "trl/trainer/sft_trainer.py", "get_peft_model_kwargs['autocast_adapter_dtype'] = False"),
           methods=frozenset({"lora"}), shardings=frozenset({"zero3"})),
        _d("adapter_precision", "model-dtype", N_("SFTTrainer casts a quantised model's trainable adapter weights to "
                                                  "BF16"),
           _src(_TRL, "trl/trainer/sft_trainer.py", "if _is_quantized_model: param.data.to(torch.bfloat16)"),
           methods=frozenset({"qlora"})),
        _d("kbit_fp32_upcast", False, N_("SFTTrainer no longer calls prepare_model_for_kbit_training: the "
                                         "unquantised weights stay 16-bit"),
           _src(_TRL, "trl/trainer/sft_trainer.py", "SFTTrainer.__init__ (no prepare_model_for_kbit_training)"),
           methods=frozenset({"qlora"})),
        _d("grad_checkpointing", True, N_("TRL's configs turn gradient checkpointing on by default"),
           _src(_TRL, "trl/trainer/base_config.py", "gradient_checkpointing=True")),
        _d("fused_cross_entropy", True, N_("the default loss_type chunked_nll computes the LM head and the "
                                           "cross-entropy in chunks of tokens"),
           _src(_TRL, "trl/trainer/sft_config.py", "__post_init__: loss_type = 'chunked_nll'")),
        _d("sequence_mode", "dynamic", N_("packing and padding_free are off: each batch is padded to its longest "
                                          "sequence"),
           _src(_TRL, "trl/trainer/sft_config.py", "packing=False, padding_free=False")),
    ), left_to_user=("attention", "micro_batch", "seq_len")),
    _profile("llama-factory", "LLaMA-Factory", (
        *_HF_BASE,
        _d("deepspeed_auto_buckets", True, N_("its ZeRO-3 example config leaves reduce_bucket_size and "
                                              "stage3_prefetch_bucket_size \"auto\": the Trainer fills them from the "
                                              "hidden size"),
           Source("hiyouga/LLaMA-Factory", "1d6e8b218240c154638f9bdcb76a1a089c27891b",
                  "examples/deepspeed/ds_z3_config.json", "zero_optimization.reduce_bucket_size = \"auto\""),
           shardings=frozenset({"zero3"})),
        _d("adapter_precision", "fp32-autocast", N_("trainable parameters are cast to FP32 unless pure_bf16, and PEFT "
                                                    "gets autocast_adapter_dtype"),
           _src(_LF, "src/llamafactory/model/adapter.py", "init_adapter: cast_trainable_params_to_fp32"),
           methods=_ADAPTERS),
        _d("master_weights", "fp32", N_("full fine-tuning casts the trainable parameters to FP32 unless pure_bf16"),
           _src(_LF, "src/llamafactory/model/adapter.py", "_setup_full_tuning: param.data.to(torch.float32)"),
           methods=frozenset({"full"})),
        _d("kbit_fp32_upcast", False, N_("no prepare_model_for_kbit_training; upcast_layernorm is off by default"),
           _src(_LF, "src/llamafactory/hparams/model_args.py", "upcast_layernorm=False"),
           methods=frozenset({"qlora"})),
        _d("grad_checkpointing", True, N_("gradient checkpointing is on unless disable_gradient_checkpointing"),
           _src(_LF, "src/llamafactory/model/model_utils/checkpointing.py",
                "prepare_model_for_training: if not disable_gradient_checkpointing")),
        _d("fused_cross_entropy", False, N_("enable_liger_kernel is off by default"),
           _src(_LF, "src/llamafactory/hparams/model_args.py", "enable_liger_kernel=False")),
        _d("sequence_mode", "dynamic", N_("packing is on only for stage pt; SFT pads each batch to its longest "
                                          "sequence"),
           _src(_LF, "src/llamafactory/hparams/parser.py", "packing = stage == 'pt'")),
        _d("attention", "sdpa", N_("flash_attn: auto leaves transformers' default, SDPA"),
           _src(_LF, "src/llamafactory/model/model_utils/attention.py", "flash_attn == AUTO: return")),
    ), left_to_user=("micro_batch", "seq_len")),
    _profile("axolotl", "axolotl", (
        *_HF_BASE,
        _d("optimizer", "adamw-fused", N_("axolotl's default optimizer is adamw_torch_fused"),
           _src(_AXOLOTL, "src/axolotl/utils/schemas/training.py", "optimizer default='adamw_torch_fused'")),
        _d("kbit_fp32_upcast", False, N_("after prepare_model_for_kbit_training axolotl casts embeddings, LM head "
                                         "and norms back to the training dtype"),
           _src(_AXOLOTL, "src/axolotl/loaders/model.py", "_configure_embedding_dtypes / "
                "_convert_embedding_modules_dtype"), methods=frozenset({"qlora"})),
        _d("grad_checkpointing", False, N_("gradient_checkpointing is off by default"),
           _src(_AXOLOTL, "src/axolotl/utils/schemas/config.py", "gradient_checkpointing default=False")),
        _d("fused_cross_entropy", False, N_("Cut Cross-Entropy and Liger are plugins you opt into"),
           _src(_AXOLOTL, "src/axolotl/utils/schemas/config.py", "plugins")),
        _d("sequence_mode", "dynamic", N_("sample_packing and pad_to_sequence_len are off by default: each batch is "
                                          "padded to its longest sequence"),
           _src(_AXOLOTL, "src/axolotl/utils/schemas/config.py", "sample_packing=None, pad_to_sequence_len=None")),
    ), left_to_user=("attention", "micro_batch", "seq_len")),
    _profile("ms-swift", "ms-swift", (
        *_HF_BASE,
        _d("deepspeed_auto_buckets", True, N_("its ZeRO-3 config (--deepspeed zero3) leaves reduce_bucket_size and "
                                              "stage3_prefetch_bucket_size \"auto\": the Trainer fills them from the "
                                              "hidden size"),
           Source("modelscope/ms-swift", "35992c1cc9092af233edbd75a2aefcd496d6fc19", "swift/llm/ds_config/zero3.json",
                  "zero_optimization.reduce_bucket_size = \"auto\""), shardings=frozenset({"zero3"})),
        _d("deepspeed_reduce_bucket", 2e8, N_("its ZeRO-2 config (--deepspeed zero2) sets reduce_bucket_size 2e8"),
           Source("modelscope/ms-swift", "054575c68c54d7f34c40e04d62df20e7335b349a", "swift/llm/ds_config/zero2.json",
                  "zero_optimization.reduce_bucket_size = 2e8"), shardings=frozenset({"zero2"})),
        _d("adapter_precision", "fp32-autocast", N_("lora_dtype is unset by default, so PEFT's FP32 upcast of the "
                                                    "adapters stays"),
           _src(_SWIFT, "swift/tuners/peft.py", "_cast_adapter_dtype_hook (lora_dtype=None)"), methods=_ADAPTERS),
        _d("kbit_fp32_upcast", False, N_("ms-swift does not call prepare_model_for_kbit_training"),
           _src(_SWIFT, "swift/pipelines/train/tuner.py", "prepare_adapter (Swift.prepare_model)"),
           methods=frozenset({"qlora"})),
        _d("grad_checkpointing", True, N_("gradient_checkpointing is on by default"),
           _src(_SWIFT, "swift/trainers/arguments.py", "gradient_checkpointing=True")),
        _d("fused_cross_entropy", False, N_("use_liger_kernel is off by default"),
           _src(_SWIFT, "swift/trainers/arguments.py", "use_liger_kernel=False")),
        _d("sequence_mode", "dynamic", N_("packing and padding_free are off by default: each batch is padded to its "
                                          "longest sequence"),
           _src(_SWIFT, "swift/arguments/base_args/base_args.py", "packing=False (template_args padding_free=False)")),
    ), left_to_user=("attention", "micro_batch", "seq_len")),
    _profile("unsloth", "Unsloth", (
        _d("framework", "optimized", N_("Unsloth replaces norms, RoPE, SwiGLU, LoRA and the loss with its own Triton "
                                        "kernels"),
           _src(_UNSLOTH, "unsloth/kernels/__init__.py", "fast_rms_layernorm, swiglu, fast_lora, cross_entropy")),
        _d("fused_cross_entropy", True, N_("the loss runs through unsloth_fused_ce_loss, never materialising the "
                                           "logits (UNSLOTH_RETURN_LOGITS=0)"),
           _src(_UNSLOTH, "unsloth/models/llama.py", "CausalLM_fast_forward: unsloth_fused_ce_loss")),
        _d("grad_checkpointing", True, N_("get_peft_model defaults to use_gradient_checkpointing='unsloth'"),
           _src(_UNSLOTH, "unsloth/models/llama.py", "FastLlamaModel.get_peft_model(use_gradient_checkpointing="
                "'unsloth')"), methods=_ADAPTERS),
        _d("activation_offload", True, N_("Unsloth's gradient checkpointing offloads each layer's saved input to "
                                          "the CPU"),
           _src(_UNSLOTH, "unsloth/models/llama.py", "FastLlamaModel.get_peft_model(use_gradient_checkpointing="
                "'unsloth')"), methods=_ADAPTERS),
        _d("adapter_precision", "fp32-autocast", N_("Unsloth keeps the LoRA weights in FP32 for mixed precision"),
           _src(_UNSLOTH, "unsloth/models/_utils.py", "prepare_model_for_kbit_training(float32_mixed_precision=True)"),
           methods=_ADAPTERS),
        _d("kbit_fp32_upcast", False, N_("Unsloth's prepare_model_for_kbit_training trains neither embeddings nor LM "
                                         "head and does not upcast them"),
           _src(_UNSLOTH, "unsloth/models/_utils.py", "prepare_model_for_kbit_training(train_embedding=False, "
                "train_lm_head=False)"), methods=frozenset({"qlora"})),
    ), left_to_user=("optimizer", "sequence_mode", "micro_batch", "seq_len")),
    _profile("torchtune", "torchtune", (
        _d("adapter_precision", "model-dtype", N_("the recipe builds the whole model, adapters included, in the "
                                                  "configured dtype (bf16), without autocast"),
           _src(_TORCHTUNE, "recipes/lora_finetune_single_device.py", "_setup_model: set_default_dtype(self._dtype)"),
           methods=_ADAPTERS),
        _d("master_weights", "none", N_("full fine-tuning trains the bf16 weights directly, no FP32 copy"),
           _src(_TORCHTUNE, "recipes/full_finetune_distributed.py", "_setup_model: set_default_dtype(self._dtype)"),
           methods=frozenset({"full"})),
        _d("kbit_fp32_upcast", False, N_("QLoRA quantises the linear weights to NF4 and keeps the rest in bf16"),
           _src(_TORCHTUNE, "recipes/lora_finetune_single_device.py", "_setup_model: set_default_dtype(self._dtype)"),
           methods=frozenset({"qlora"})),
        _d("fused_cross_entropy", True, N_("the shipped configs use a chunked loss (LinearCrossEntropyLoss, "
                                           "CEWithChunkedOutputLoss)"),
           _src(_TORCHTUNE, "recipes/configs/llama3_1/8B_lora.yaml", "loss: LinearCrossEntropyLoss")),
        _d("optimizer", "adamw-fused", N_("the shipped configs use torch.optim.AdamW with fused: True"),
           _src(_TORCHTUNE, "recipes/configs/llama3_1/8B_lora.yaml", "optimizer: AdamW fused: True")),
        _d("sequence_mode", "dynamic", N_("packed is off in the shipped configs; padded_collate_sft pads each batch to "
                                          "its longest sequence"),
           _src(_TORCHTUNE, "torchtune/data/_collate.py", "padded_collate_sft")),
        _d("attention", "sdpa", N_("torchtune's attention calls PyTorch's scaled_dot_product_attention"),
           _src(_TORCHTUNE, "torchtune/modules/attention_utils.py", "_sdpa_or_flex_attention")),
        _d("grad_sync", "micro-batch", N_("the distributed recipes never skip the gradient sync: FSDP2 reduce-scatters "
                                          "after every micro-batch"),
           _src(_TORCHTUNE, "recipes/lora_finetune_distributed.py", "train (no no_sync)")),
        _d("fsdp_wrap", "layers", N_("LoRA configs shard the decoder layers; embeddings and output stay in the root"),
           _src(_TORCHTUNE, "recipes/lora_finetune_distributed.py", "custom_sharded_layers=None"),
           methods=_ADAPTERS),
        _d("fsdp_wrap", "separate-embeddings", N_("full fine-tuning configs shard embeddings and output as units of "
                                                  "their own"),
           _src(_TORCHTUNE, "recipes/configs/llama3_1/8B_full.yaml", "custom_sharded_layers: ['tok_embeddings', "
                "'output']"), methods=frozenset({"full"})),
    ), left_to_user=("grad_checkpointing", "activation_offload", "torch_compile", "micro_batch", "seq_len")),
    _profile("litgpt", "LitGPT", (
        _d("master_weights", "fp32", N_("the default precision for training is bf16-mixed: FP32 weights under "
                                        "autocast"),
           _src(_LITGPT, "litgpt/utils.py", "get_default_supported_precision(training=True) -> 'bf16-mixed'"),
           methods=frozenset({"full", "lora"})),
        _d("adapter_precision", "model-dtype", N_("quantisation refuses mixed precision: QLoRA runs bf16-true, "
                                                  "adapters in bf16"),
           _src(_LITGPT, "litgpt/finetune/lora.py", "setup: 'Quantization and mixed precision is not supported'"),
           methods=frozenset({"qlora"})),
        _d("kbit_fp32_upcast", False, N_("bitsandbytes precision keeps the unquantised weights in bf16"),
           _src(_LITGPT, "litgpt/finetune/lora.py", "BitsandbytesPrecision(quantize, dtype)"),
           methods=frozenset({"qlora"})),
        _d("fused_cross_entropy", False, N_("the LM head runs in chunks of 128 tokens, but every chunk's logits are "
                                            "kept for backward"),
           _src(_LITGPT, "litgpt/finetune/lora.py", "model(input_ids, lm_head_chunk_size=128); "
                "chunked_cross_entropy")),
        _d("optimizer", "adamw", N_("the default optimizer is torch.optim.AdamW"),
           _src(_LITGPT, "litgpt/finetune/lora.py", "setup(optimizer='AdamW')")),
        _d("sequence_mode", "dynamic", N_("the SFT collate function pads each batch to its longest sequence"),
           _src(_LITGPT, "litgpt/data/base.py", "_sft_collate_fn: pad_sequence")),
        _d("attention", "sdpa", N_("LitGPT calls PyTorch's scaled_dot_product_attention"),
           _src(_LITGPT, "litgpt/model.py", "CausalSelfAttention.scaled_dot_product_attention")),
        _d("grad_checkpointing", False, N_("one GPU: the fine-tuning scripts do not checkpoint activations"),
           _src(_LITGPT, "litgpt/finetune/lora.py", "strategy='auto'"), gpus="one"),
        _d("sharding", "fsdp", N_("several GPUs: LoRA shards with FSDP2 (fully_shard), full fine-tuning with "
                                  "FSDPStrategy"),
           _src(_LITGPT, "litgpt/finetune/lora.py", "ModelParallelStrategy(parallelize_fn) / full.py FSDPStrategy"),
           gpus="many", methods=frozenset({"full", "lora"})),
        _d("grad_checkpointing", True, N_("several GPUs: each Block is activation-checkpointed"),
           _src(_LITGPT, "litgpt/finetune/lora.py", "parallelize_fn(activation_checkpointing=True) / full.py "
                "activation_checkpointing_policy={Block}"), gpus="many"),
        _d("grad_sync", "step", N_("gradient accumulation runs under fabric.no_backward_sync"),
           _src(_LITGPT, "litgpt/finetune/lora.py", "fit: fabric.no_backward_sync(model, enabled=is_accumulating)")),
        _d("fsdp_wrap", "layers", N_("FSDP2 shards each Block parameter by parameter, so frozen weights get no "
                                     "gradient; embeddings stay in the root"),
           _src(_LITGPT, "litgpt/finetune/lora.py", "parallelize_fn: fully_shard(Block), fully_shard(model)")),
    ), left_to_user=("micro_batch", "seq_len")),
    _profile("pytorch", "plain PyTorch", (
        # FSDP's own behaviour, as core/scenario.py quotes the FullyShardedDataParallel.no_sync docstring
        _d("grad_sync", "micro-batch", N_("FSDP reduce-scatters in every backward unless the loop wraps the "
                                          "accumulating micro-batches in no_sync()"),
           Source("pytorch/pytorch", "", "torch/distributed/fsdp/fully_sharded_data_parallel.py",
                  "FullyShardedDataParallel.no_sync docstring")),
    ), left_to_user=("adapter_precision", "kbit_fp32_upcast", "master_weights", "optimizer", "grad_checkpointing",
                     "fused_cross_entropy", "sequence_mode", "fsdp_wrap", "attention", "framework")),
)

STACK_KEYS: tuple[str, ...] = tuple(p.key for p in STACKS)
_BY_KEY = {p.key: p for p in STACKS}


def get_stack(key: str) -> StackProfile:
    """The profile of ``key`` (one of :data:`STACK_KEYS`); raises ``KeyError`` for an unknown key."""
    return _BY_KEY[key]


def resolved_defaults(key: str, t: TrainingSetup) -> dict[str, StackDefault]:
    """Field -> the default of stack ``key`` that holds for ``t`` (the last matching one per field)."""
    out: dict[str, StackDefault] = {}
    for d in get_stack(key).defaults:
        if d.applies(t):
            out[d.field] = d
    return out


def apply_stack(t: TrainingSetup, key: str | None, keep: frozenset[str] | set[str] = frozenset()) -> TrainingSetup:
    """A copy of ``t`` with ``stack = key`` and that stack's defaults, except for the fields in ``keep`` (set
    explicitly elsewhere: a config file, a flag). ``key=None`` only clears the choice. Defaults that depend on the
    sharding are resolved after the stack's own sharding default is in place.

    Raises:
        KeyError: an unknown stack.
    """
    if key is None:
        return t.model_copy(update={"stack": None})
    get_stack(key)
    result = TrainingSetup.model_validate({**t.model_dump(), "stack": key})
    for _ in range(2):  # a second pass sees the sharding the first one set
        updates = {f: d.value for f, d in resolved_defaults(key, result).items() if f not in keep}
        result = TrainingSetup.model_validate({**result.model_dump(), **updates})
    return result


def overridden(t: TrainingSetup) -> list[str]:
    """The fields of ``t`` whose value differs from what its stack sets for it (empty when no stack is chosen)."""
    if t.stack is None:
        return []
    return [f for f, d in resolved_defaults(t.stack, t).items() if getattr(t, f) != d.value]


def follow_defaults(old: TrainingSetup, new: TrainingSetup, edited: set[str] | frozenset[str]) -> dict[str, Any]:
    """The stack defaults an edit brings into force: ``field -> value`` for each field whose stack default differs
    between ``old`` and ``new`` (the edit changed what applies: picking ZeRO-3 under LLaMA-Factory brings its shipped
    ``ds_z3_config.json`` buckets) while the plan still holds the old default, or the field's own default where the
    stack set none. Fields in ``edited`` (what the user just set) and plans without a stack give nothing; a value the
    user chose (it differs from the old default) is kept.
    """
    if new.stack is None or old.stack != new.stack:
        return {}
    before, after = resolved_defaults(new.stack, old), resolved_defaults(new.stack, new)
    fields = TrainingSetup.model_fields
    out: dict[str, Any] = {}
    for f in sorted(set(before) | set(after)):
        if f in edited:
            continue
        was = before[f].value if f in before else fields[f].get_default(call_default_factory=True)
        now = after[f].value if f in after else fields[f].get_default(call_default_factory=True)
        if was != now and getattr(new, f) == was:
            out[f] = now
    return out
