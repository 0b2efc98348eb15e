"""Export the other way (issue #17 part 5): from a plan, the starting config of a training stack.

:func:`export_config` turns a :class:`~tuneplan.core.scenario.Scenario` into the document one stack reads (a plain
mapping: the caller writes it as YAML or JSON) with the settings the estimate assumed, so the run that starts is the
run that was planned to fit. It is the inverse of :mod:`tuneplan.core.training_config` where that importer reads the
format: exporting a plan and importing the file back gives the plan's fields again, and every setting a format
cannot express is returned as a coded :class:`~tuneplan.core.terms.Note` (``export.*`` in ``NOTES``) instead of being
dropped silently. Settings the plan does not hold (dataset, template, output folder) are left for the user
(:attr:`ConfigExport.to_fill`); the model is the plan's Hugging Face id when the caller has one, else empty with a
note. No I/O, no Qt: writing the file is ``tuneplan.storage.config_export``'s business.

Key names are each project's own, read from its source at the commits ``core/stacks.py`` pins:

* **LLaMA-Factory** (hiyouga/LLaMA-Factory @ ff6d4d12ee): ``src/llamafactory/hparams/finetuning_args.py``
  (``finetuning_type: lora|full``, ``lora_rank``, ``lora_alpha``, ``lora_dropout``, ``lora_target`` ``all`` or a
  comma list, ``additional_target``, ``pure_bf16``), ``model_args.py`` (``quantization_bit``,
  ``quantization_method: bnb``, ``double_quantization``, ``flash_attn: fa2|sdpa|disabled``,
  ``disable_gradient_checkpointing``, ``use_unsloth_gc``, ``enable_liger_kernel``), ``data_args.py``
  (``cutoff_len``, ``packing``); the training keys are HF ``Seq2SeqTrainingArguments``
  (``per_device_train_batch_size``, ``gradient_accumulation_steps``, ``optim``, ``bf16``, ``deepspeed`` — a path
  or, as ``TrainingArguments`` accepts, the config itself). FSDP runs from an accelerate config
  (``examples/accelerate/fsdp_config.yaml``); several GPUs start with ``FORCE_TORCHRUN=1 NPROC_PER_NODE=N``
  (``src/llamafactory/launcher.py``).
* **axolotl** (axolotl-ai-cloud/axolotl @ 067b021c8b): ``src/axolotl/utils/schemas/peft.py`` (``adapter:
  lora|qlora``, ``load_in_4bit``, ``lora_r``, ``lora_alpha``, ``lora_dropout``, ``lora_target_linear``,
  ``lora_target_modules``, ``lora_modules_to_save``, ``bnb_config_kwargs``), ``training.py``
  (``micro_batch_size``, ``gradient_accumulation_steps``, ``optimizer``, ``num_epochs``), ``config.py``
  (``sequence_len``, ``sample_packing``, ``pad_to_sequence_len``, ``gradient_checkpointing: true|false|offload``,
  ``activation_offloading``, ``attn_implementation`` — ``flash_attention``/``sdp_attention`` are deprecated there —,
  ``bf16``, ``torch_compile``, ``deepspeed: str | dict``, ``fsdp_version`` with ``fsdp_config`` as
  ``docs/multi-gpu.qmd`` gives FSDP2); Cut Cross-Entropy is ``plugins:
  [axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin]`` with ``cut_cross_entropy: true``.
* **TRL** (huggingface/trl @ f2cd57710a): one YAML for ``trl sft --config FILE`` (``docs/source/clis.md``; TrlParser
  sets the defaults of every dataclass from it, ``num_processes`` goes to accelerate): ``ModelConfig``
  (``trl/trainer/model_config.py``: ``model_name_or_path``, ``dtype`` — default float32 —, ``attn_implementation``,
  ``use_peft``, ``lora_r``, ``lora_alpha``, ``lora_dropout``, ``lora_target_modules``, ``lora_modules_to_save``,
  ``load_in_4bit``, ``bnb_4bit_quant_type``, ``use_bnb_nested_quant``), ``SFTConfig`` (``sft_config.py``:
  ``max_length``, ``packing``, ``padding_free``, ``pad_to_multiple_of``, ``loss_type`` — unset is
  ``chunked_nll`` —, ``activation_offloading``) and HF ``TrainingArguments`` (``per_device_train_batch_size``,
  ``gradient_checkpointing``, ``optim``, ``deepspeed``, ``fsdp``/``fsdp_config``). For a plain Trainer + PEFT
  script the same adapter is given as ``peft.LoraConfig`` keyword arguments (:attr:`ConfigExport.extras`).
* **torchtune** (pytorch/torchtune @ bd2a0fc7c3): overrides of a shipped recipe config (``tune run RECIPE --config
  CONFIG key=value``; ``~key`` removes one, ``torchtune/config/_utils.py``), keys from
  ``recipes/configs/llama3_1/8B_lora.yaml`` and the recipes (``batch_size``, ``gradient_accumulation_steps``,
  ``tokenizer.max_seq_len``, ``dataset.packed``, ``dtype``, ``enable_activation_checkpointing``,
  ``enable_activation_offloading``, ``compile``, ``optimizer._component_``, ``loss._component_``,
  ``model.lora_*``, ``model.lora_attn_modules``, ``model.apply_lora_to_mlp``, ``optimizer_in_bwd``,
  ``fsdp_cpu_offload``, ``custom_sharded_layers``).
* **ms-swift** (modelscope/ms-swift @ 3602360a56): one YAML for ``swift sft FILE`` (``swift/cli/main.py``
  ``parse_yaml_args`` turns each key into ``--key value``, a mapping into JSON): ``tuner_type``
  (``base_args.py``; ``train_type`` in the 3.x releases, swift.readthedocs.io/en/v3.9 Command-line-parameters),
  ``model``, ``torch_dtype``, ``attn_impl`` (``model_args.py``), ``quant_method``,
  ``quant_bits``, ``bnb_4bit_*`` (``quant_args.py``), ``lora_rank``, ``lora_alpha``, ``lora_dropout``,
  ``target_modules``, ``modules_to_save``, ``lora_dtype`` (``tuner_args.py``), ``max_length``, ``padding_free``
  (``template_args.py``), ``packing``, ``gradient_checkpointing``, ``use_liger_kernel``, ``deepspeed`` (a preset
  name or JSON, ``sft_args.py`` ``_init_deepspeed``), ``fsdp`` (``_init_fsdp``); bf16/fp16 follow ``torch_dtype``
  unless given (``model_args.py`` ``_init_mixed_precision``).
* **DeepSpeed** (microsoft/DeepSpeed ``docs/_pages/config-json.md``): ``zero_optimization.stage``,
  ``offload_optimizer`` (ZeRO 1-3) and ``offload_param`` ("Valid only with stage 3"), ``bf16.enabled``,
  ``fp16.enabled``, ``train_micro_batch_size_per_gpu``, ``gradient_accumulation_steps``, ``train_batch_size`` (micro
  x accumulation x GPUs), ``gradient_clipping``. Under Hugging Face Trainer those are ``"auto"``: transformers'
  ``HfTrainerDeepSpeedConfig.trainer_config_process`` fills them from ``TrainingArguments`` and refuses values that
  disagree. Bucket and prefetch sizes are left to DeepSpeed's defaults, which the memory estimate counts
  (``training_config.DEEPSPEED_COUNTED_DEFAULTS``); HF's ``"auto"`` for them (hidden size squared) would not be.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from tuneplan.core import workload as wl
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.estimate import blocking_notes
from tuneplan.core.estimate import estimate as run_estimate
from tuneplan.core.memory import Targets, lora_target_modules, named_modules, target_spec
from tuneplan.core.result import GIB, Estimate
from tuneplan.core.scenario import Scenario, TrainingSetup
from tuneplan.core.stacks import get_stack, resolved_defaults
from tuneplan.core.terms import N_, NOTES, Note

__all__ = [
    "EXPORT_FORMATS",
    "EXPORT_FORMAT_NAMES",
    "ConfigExport",
    "default_format",
    "deepspeed_config",
    "export_config",
    "relevant_fields",
]

ExportFormat = Literal["llama-factory", "axolotl", "trl", "torchtune", "ms-swift", "deepspeed"]
EXPORT_FORMATS: tuple[str, ...] = ("llama-factory", "axolotl", "trl", "torchtune", "ms-swift", "deepspeed")
#: How each format is named in notes and file headers (proper names: not translated).
EXPORT_FORMAT_NAMES: dict[str, str] = {
    "llama-factory": "LLaMA-Factory", "axolotl": "axolotl", "trl": "TRL", "torchtune": "torchtune",
    "ms-swift": "ms-swift", "deepspeed": "DeepSpeed",
}
#: The stack (``core/stacks.py``) that runs each format's file, whose defaults fill what the file leaves out.
_FORMAT_STACK: dict[str, str] = {"llama-factory": "llama-factory", "axolotl": "axolotl", "trl": "trl",
                                 "torchtune": "torchtune", "ms-swift": "ms-swift"}
#: The file a plan's stack is started from (Unsloth and plain Trainer + PEFT scripts take TRL's settings).
_STACK_FORMAT: dict[str, str] = {"hf-peft": "trl", "trl": "trl", "unsloth": "trl", "llama-factory": "llama-factory",
                                 "axolotl": "axolotl", "ms-swift": "ms-swift", "torchtune": "torchtune"}
#: Stacks that run DeepSpeed through Hugging Face Trainer, whose integration fills ``"auto"`` values.
_HF_TRAINER_STACKS = frozenset({"hf-peft", "trl", "unsloth", "llama-factory", "axolotl", "ms-swift"})

NOTES.update({
    "export.not_expressible": N_("{field} = {setting}: {format} has no setting for this; the file leaves it out"),
    "export.stack_default": N_("{field} = {setting}: {format} has no setting for this and uses {default} "
                               "({source})"),
    "export.sft_only": N_("the plan trains {workload}; this {format} file sets up supervised fine-tuning only: start "
                          "from {format}'s own {workload} recipe and keep the batch, precision and sharding settings "
                          "below"),
    "export.workload_unsupported": N_("the plan trains {workload}, which {format} does not offer; this file sets up "
                                      "supervised fine-tuning with the plan's batch, precision and sharding: export "
                                      "the plan for TRL to train {workload}"),
    "export.approx": N_("{field} = {setting}: written as {key} = {value}, the nearest setting {format} has"),
    "export.other_stack": N_("the plan trains with {stack}; this file is for {format}, whose defaults differ in "
                             "places"),
    "export.model_placeholder": N_("{model} has no Hugging Face id in the plan: write its id or local path into "
                                   "{key}"),
    "export.naive_split": N_("{field} = {setting} over {gpus} GPUs (layers split across them): {format} trains one "
                             "copy per GPU; choose DDP, ZeRO or FSDP in the plan"),
    "export.offload_needs_sharding": N_("{field} = {setting}: {format} offloads to the CPU only with DeepSpeed ZeRO "
                                        "or FSDP; with {sharding} the file keeps everything on the GPU"),
    "export.deepspeed_master": N_("{field} = {setting}: DeepSpeed's {precision} training keeps FP32 master weights "
                                  "and optimizer states of the trained parameters"),
    "export.deepspeed_stage0": N_("{field} = {setting}: the plan does not shard with DeepSpeed ZeRO; stage 0 (plain "
                                  "data parallelism) is written"),
    "export.fsdp_accelerate": N_("{field} = {setting}: {format} runs FSDP from an accelerate config: accelerate "
                                 "launch --config_file {example} with fsdp_offload_params: {offload}"),
    "export.torchtune_config": N_("start from the torchtune config shipped for the model's family and size with "
                                  "{recipe} (tune ls lists them); these overrides set the plan's settings"),
    "export.torchtune_qlora": N_("{field} = {setting}: set model._component_ to the model's qlora_ builder "
                                 "(torchtune.models.<family>.qlora_<family>_<size>), as the *_qlora configs do"),
    "export.torchtune_optimizer": N_("{field} = {setting}: {component} takes no fused argument: remove the "
                                     "config's optimizer.fused (~optimizer.fused)"),
    "export.torchtune_fsdp": N_("{field} = {setting}: torchtune's distributed recipes shard with FSDP only"),
    "export.padding_free_truncate": N_("{field} = {setting}: TRL's padding-free collator does not truncate and "
                                       "SFTTrainer refuses max_length with padding_free, so max_length is left "
                                       "unset: cut the examples to {setting} tokens before training"),
    "export.packing_flash": N_("{field} = {setting}: {format} packs only with FlashAttention and refuses "
                               "attn_impl {value}"),
})

def _hf_targets(arch: ModelArchitecture, targets: Targets) -> list[str]:
    """PEFT ``target_modules`` for a preset, as the model's own code names the modules it adapts
    (``tuneplan.core.memory.lora_target_modules``): ``q_proj, v_proj`` on Llama; ``qkv_proj`` for ``q_v`` on Phi-3
    and ``query_key_value, dense`` for ``qkvo`` on GPT-NeoX (PEFT matches names exactly and raises when no module
    matches); the MLA modules on DeepSeek-V2/V3, which have no k_proj or v_proj; ``all-linear`` as itself; a plan's own
    module list (``TrainingSetup.lora_modules``) as the model names them."""
    return lora_target_modules(arch, targets)
_EMBEDDINGS = ["embed_tokens", "lm_head"]
#: transformers ``OptimizerNames`` (training_args.py); axolotl and ms-swift take the same names.
_HF_OPTIM: dict[str, str] = {"adamw": "adamw_torch", "adamw-fused": "adamw_torch_fused",
                             "adamw-8bit": "adamw_bnb_8bit", "paged-adamw-8bit": "paged_adamw_8bit",
                             "paged-adamw-32bit": "paged_adamw_32bit", "sgd": "sgd", "adafactor": "adafactor"}
#: transformers ``attn_implementation`` values.
_HF_ATTN: dict[str, str] = {"flash": "flash_attention_2", "sdpa": "sdpa", "eager": "eager"}
_HF_DTYPE: dict[str, str] = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}
_ZERO_STAGE: dict[str, int] = {"zero1": 1, "zero2": 2, "zero3": 3}


class ConfigExport(BaseModel):
    """A plan written as one stack's config.

    Attributes:
        format: the target format (one of :data:`EXPORT_FORMATS`).
        syntax: ``yaml`` or ``json`` (how the file is written).
        document: the config as plain data (keys in the order the file shows them).
        notes: plan settings the format cannot express (or expresses approximately), coded (``NOTES``).
        expressed: the plan fields (dotted paths) the document sets.
        to_fill: keys the plan holds no value for (dataset, template ...), left empty for the user.
        command: how to start it; ``{file}`` stands for the file's name.
        extras: the same settings for a plain script: ``peft.LoraConfig`` and ``transformers.BitsAndBytesConfig``
            keyword arguments (TRL format, adapter plans).
        plan_name, model_name, model_ref: the plan's name, its model's name and Hugging Face id (None: unknown).
        verdict: the estimate's one-line verdict (``fits, 3.1 GiB spare``); ``fits``, ``headroom_gib``,
            ``capacity_gib``, ``high_gib`` (the likely range's upper end) and ``band_risk`` the same as values.
    """

    model_config = ConfigDict(frozen=True)

    format: ExportFormat
    syntax: Literal["yaml", "json"]
    document: dict[str, Any]
    notes: tuple[Note, ...] = ()
    #: the estimate's notes that mean the plan cannot run as it is (``tuneplan.core.estimate.BLOCKING_NOTES``)
    blocking: tuple[Note, ...] = ()
    expressed: tuple[str, ...] = ()
    to_fill: tuple[str, ...] = ()
    command: str = ""
    extras: dict[str, dict[str, Any]] = {}
    plan_name: str
    model_name: str
    model_ref: str | None = None
    verdict: str
    fits: bool
    headroom_gib: float
    capacity_gib: float
    high_gib: float
    band_risk: str

    @property
    def codes(self) -> list[str]:
        return [n.code for n in self.notes]

    def noted_fields(self) -> set[str]:
        """The plan fields (dotted paths) a note names."""
        return {str(n.params["field"]) for n in self.notes if "field" in n.params}


def relevant_fields(t: TrainingSetup) -> set[str]:
    """The training fields that change this plan's memory or time (as ``core.memory`` reads them): LoRA settings only
    with adapters, quantisation settings only for QLoRA, FSDP settings only for FSDP over several GPUs ..."""
    adapters = t.method in {"lora", "qlora"}
    fsdp_multi = t.sharding == "fsdp" and t.num_gpus > 1
    amp = t.master_weights == "fp32" and t.precision != "fp32" and t.method != "qlora"
    out = {"method", "precision", "optimizer", "optimizer_in_backward", "torch_compile", "micro_batch", "seq_len",
           "sequence_mode", "grad_accumulation", "grad_checkpointing", "attention", "fused_cross_entropy",
           "activation_offload", "cpu_offload", "num_gpus", "framework"}
    if adapters:
        out |= {"lora_rank", "lora_alpha", "lora_dropout", "lora_targets", "lora_modules", "trainable_embeddings"}
        if t.precision != "fp32" and not amp:
            out.add("adapter_precision")
    if t.method == "qlora":
        out |= {"quant_bits", "quant_method", "kbit_fp32_upcast"}
        out |= {"quant_group_size"} if t.quant_method == "hqq" else ({"double_quant"} if t.quant_bits == 4 else set())
    if t.precision != "fp32" and t.method != "qlora":
        out.add("master_weights")
    if t.num_gpus > 1 or t.sharding not in {"none", "ddp"}:
        out.add("sharding")  # on one GPU no sharding and DDP are the same run
    if fsdp_multi:
        out.add("fsdp_wrap")
        if t.grad_accumulation > 1 and not t.optimizer_in_backward:
            out.add("grad_sync")
    if t.stack is not None:
        out.add("stack")
    if t.eval_micro_batch > 0:
        out.add("eval_micro_batch")
        if t.eval_generate_tokens > 0 and t.workload == "sft":
            out.add("eval_generate_tokens")
    if t.empty_cache_steps > 0 and t.sequence_mode == "dynamic":
        out.add("empty_cache_steps")
    if t.workload != "sft":
        out.add("workload")
        if t.workload in {"dpo", "kto"} and t.reference_model is not None:
            out.add("reference_model")
        if t.workload == "grpo":
            out |= {"num_generations", "completion_tokens", "kl_beta", "generation_engine"}
            if t.generation_engine == "vllm-colocate":
                out |= {"vllm_memory_share", "vllm_sleep"}
            elif t.generation_engine == "vllm-server":
                out.add("vllm_server_gpus")
    return out


def default_format(t: TrainingSetup) -> str | None:
    """The format a plan's stack is started from (``trl`` for HF Trainer + PEFT and Unsloth, ``deepspeed`` for plain
    PyTorch with ZeRO); None when the plan names no stack (or LitGPT, whose recipes take command-line flags)."""
    if t.stack == "pytorch" and t.sharding in _ZERO_STAGE:
        return "deepspeed"
    return _STACK_FORMAT.get(t.stack or "")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "plan"


def _number(value: float) -> int | float:
    """A whole float as an int (``32.0`` -> ``32``: the LoRA alpha fields are ints in most stacks)."""
    return int(value) if float(value).is_integer() else value


class _Doc:
    """The document of one format while its builder writes it, with the notes and the plan fields it expressed."""

    def __init__(self, fmt: str, scenario: Scenario) -> None:
        self.fmt = fmt
        self.name = EXPORT_FORMAT_NAMES[fmt]
        self.s = scenario
        self.t = scenario.training
        self.relevant = relevant_fields(self.t)
        self.data: dict[str, Any] = {}
        self.notes: list[Note] = []
        self.expressed: list[str] = []
        self.to_fill: list[str] = []
        self.command = ""
        self.extras: dict[str, dict[str, Any]] = {}

    @staticmethod
    def path(field: str) -> str:
        return field if "." in field else f"training.{field}"

    def value(self, field: str) -> Any:
        section, _, name = self.path(field).partition(".")
        return getattr(getattr(self.s, section), name)

    def put(self, key: str, value: Any, *fields: str) -> None:
        """``key: value`` in the document; ``fields`` are the plan fields it expresses."""
        self.data[key] = value
        for f in fields:
            if self.path(f) not in self.expressed:
                self.expressed.append(self.path(f))

    def fill(self, key: str, value: Any = None) -> None:
        """A key the plan holds no value for: left for the user."""
        self.data[key] = value
        self.to_fill.append(key)

    def note(self, code: str, field: str | None = None, **params: Any) -> None:
        p: dict[str, Any] = {"format": self.name}
        if field is not None:
            p |= {"field": self.path(field), "setting": self.value(field)}
        self.notes.append(Note(code=code, params={**p, **params}))

    def lacks(self, field: str, code: str = "export.not_expressible", **params: Any) -> None:
        """A relevant plan setting the format cannot express (silent for a field that does not matter here)."""
        if field in self.relevant or "." in field:
            self.note(code, field, **params)

    def model(self, key: str, model_ref: str | None) -> None:
        if model_ref:
            self.data[key] = model_ref
        else:
            self.fill(key)
            self.note("export.model_placeholder", model=self.s.model.name, key=key)

    def stack_notes(self) -> None:
        """The stack's defaults the file leaves in force where the plan differs (the importer fills them back)."""
        key = _FORMAT_STACK.get(self.fmt)
        if key is None:
            return
        t = self.t
        if t.stack is not None and t.stack != key and not (self.fmt == "trl" and t.stack in {"hf-peft", "unsloth"}):
            self.note("export.other_stack", "stack", stack=get_stack(t.stack).name)
        noted = {str(n.params.get("field")) for n in self.notes}
        for field, d in resolved_defaults(key, t).items():
            path = self.path(field)
            if path in self.expressed or path in noted or field not in self.relevant:
                continue
            if getattr(t, field) != d.value:
                self.note("export.stack_default", field, default=d.value, source=d.source.text())

    def result(self, syntax: str, estimate: Estimate, model_ref: str | None) -> ConfigExport:
        self.stack_notes()
        m = estimate.memory
        return ConfigExport(
            format=self.fmt, syntax=syntax, document=dict(self.data), notes=tuple(self.notes),
            blocking=tuple(blocking_notes(estimate)),
            expressed=tuple(self.expressed), to_fill=tuple(self.to_fill), command=self.command,
            extras=dict(self.extras), plan_name=self.s.name, model_name=self.s.model.name, model_ref=model_ref,
            verdict=m.verdict(), fits=m.fits, headroom_gib=m.headroom_bytes / GIB, capacity_gib=m.capacity_bytes / GIB,
            high_gib=m.high_bytes / GIB, band_risk=m.band_risk)


# ------------------------------------------------------------------------------------------ shared pieces


def _gpus(doc: _Doc) -> int:
    """Processes to launch: the plan's GPUs, one when it splits layers across them (naive model parallelism, which
    none of these stacks runs: noted)."""
    t = doc.t
    if t.num_gpus > 1 and t.sharding == "none":
        doc.note("export.naive_split", "sharding", gpus=t.num_gpus)
        return 1
    return t.num_gpus


def _no_offload_without_sharding(doc: _Doc) -> None:
    t = doc.t
    if t.cpu_offload and t.sharding in {"none", "ddp"}:
        doc.note("export.offload_needs_sharding", "cpu_offload", sharding=t.sharding)


def _attention(doc: _Doc, key: str, table: dict[str, str]) -> None:
    """``key`` set to the plan's attention kernel in ``table`` (``flash``/``sdpa``/``eager``). FlashAttention 1 has no
    setting in these stacks (they load FlashAttention 2 or SDPA), so a ``flash1`` plan gets the FlashAttention 2 value
    and a note: the exported run will be faster than the plan says."""
    kind = "flash" if doc.t.attention == "flash1" else doc.t.attention
    doc.put(key, table[kind], "attention")
    if doc.t.attention == "flash1":
        doc.note("export.approx", "attention", key=key, value=table[kind])


def _deepspeed_buckets(doc: _Doc, zero: dict[str, Any], stage: int, auto: bool) -> None:
    """The plan's DeepSpeed buffer sizes (``TrainingSetup.deepspeed_*``) into ``zero``: explicit sizes as numbers,
    Hugging Face's hidden-size fill as ``"auto"`` where the Trainer fills it (``auto``), else as the numbers it would
    fill (h^2, 0.9 h^2, 10 h: transformers ``trainer_config_finalize``); nothing where the plan counts DeepSpeed's
    defaults (the file then gets them too)."""
    t = doc.t
    if not stage:
        return
    if t.deepspeed_auto_buckets and auto:
        zero["reduce_bucket_size"] = "auto"
        if stage == 3:
            zero["stage3_prefetch_bucket_size"] = "auto"
            zero["stage3_param_persistence_threshold"] = "auto"
        doc.expressed.append("training.deepspeed_auto_buckets")
    elif t.deepspeed_auto_buckets:  # no Trainer to fill "auto": the sizes it would fill, from the hidden size
        h2 = doc.s.model.hidden_size ** 2
        zero["reduce_bucket_size"] = h2
        if stage == 3:
            zero["stage3_prefetch_bucket_size"] = int(0.9 * h2)
            zero["stage3_param_persistence_threshold"] = 10 * doc.s.model.hidden_size
        doc.expressed.append("training.deepspeed_auto_buckets")
    sizes = (("reduce_bucket_size", t.deepspeed_reduce_bucket, "deepspeed_reduce_bucket", 1),
             ("stage3_prefetch_bucket_size", t.deepspeed_prefetch_bucket, "deepspeed_prefetch_bucket", 3),
             ("sub_group_size", t.deepspeed_sub_group, "deepspeed_sub_group", 3),
             ("stage3_max_reuse_distance", t.deepspeed_max_reuse_distance, "deepspeed_max_reuse_distance", 3))
    for key, value, field, from_stage in sizes:
        if value is not None and stage >= from_stage:
            zero[key] = int(value) if float(value).is_integer() else value
            doc.expressed.append(f"training.{field}")


def _deepspeed_section(doc: _Doc, auto: bool) -> dict[str, Any]:
    """The DeepSpeed config of ``doc``'s plan (see :func:`deepspeed_config`); notes go to ``doc``."""
    t = doc.t
    stage = _ZERO_STAGE.get(t.sharding, 0)
    if not stage:
        doc.note("export.deepspeed_stage0", "sharding")
    ds: dict[str, Any] = {}
    if auto:
        ds |= {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
               "gradient_accumulation_steps": "auto", "gradient_clipping": "auto",
               "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}}
    else:
        ds |= {"train_batch_size": t.micro_batch * t.grad_accumulation * t.num_gpus,
               "train_micro_batch_size_per_gpu": t.micro_batch, "gradient_accumulation_steps": t.grad_accumulation,
               "gradient_clipping": 1.0, "bf16": {"enabled": t.precision == "bf16"},
               "fp16": {"enabled": t.precision == "fp16"}}
        doc.expressed.extend(f"training.{f}" for f in ("micro_batch", "grad_accumulation", "num_gpus", "precision")
                             if f"training.{f}" not in doc.expressed)
    # HF Trainer hands DeepSpeed its own optimizer (transformers deepspeed_optim_sched sets this too)
    ds["zero_allow_untested_optimizer"] = True
    zero: dict[str, Any] = {"stage": stage}
    if t.cpu_offload and stage:
        zero["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
        if stage == 3:  # offload_param: "Valid only with stage 3"
            zero["offload_param"] = {"device": "cpu", "pin_memory": True}
    elif t.cpu_offload:
        doc.note("export.offload_needs_sharding", "cpu_offload", sharding=t.sharding)
    if stage == 3:  # save one 16-bit model, not only the partitions
        zero["stage3_gather_16bit_weights_on_model_save"] = True
    _deepspeed_buckets(doc, zero, stage, auto)
    ds["zero_optimization"] = zero
    if stage:
        doc.expressed.append("training.sharding")
        if t.cpu_offload:
            doc.expressed.append("training.cpu_offload")
    if t.precision != "fp32" and t.master_weights == "none" and "master_weights" in doc.relevant:
        doc.note("export.deepspeed_master", "master_weights", precision=t.precision.upper())
    return ds


def _uses_auto(t: TrainingSetup, auto: bool | None) -> bool:
    return auto if auto is not None else (t.stack is None or t.stack in _HF_TRAINER_STACKS)


def _hf_precision(doc: _Doc) -> None:
    doc.put("bf16", doc.t.precision == "bf16", "precision")
    doc.put("fp16", doc.t.precision == "fp16", "precision")


def _epochs(doc: _Doc, key: str) -> None:
    doc.put(key, _number(doc.s.dataset.epochs), "dataset.epochs")


def _evaluation(doc: _Doc, rows_key: str, split_key: str | None, strategy: bool = True) -> None:
    """The plan's evaluation during training (``eval_micro_batch``; nothing when 0): the rows per evaluation batch,
    an ``eval_strategy`` of ``steps`` where the format needs one, and the share of the data held out
    (``split_key``; the plan's ``dataset.eval_fraction``, else left for the user). The importer reads them back
    (``core/training_config.py`` ``_evaluation``)."""
    rows = doc.t.eval_micro_batch
    if rows <= 0:
        return
    doc.put(rows_key, rows, "eval_micro_batch")
    if strategy:
        doc.put("eval_strategy", "steps", "eval_micro_batch")
    if split_key is not None:
        share = doc.s.dataset.eval_fraction
        if share > 0:
            doc.put(split_key, share)
        else:
            doc.fill(split_key)


def _empty_cache(doc: _Doc) -> None:
    """HF Trainer's ``torch_empty_cache_steps`` (TrainingArguments, which LLaMA-Factory, TRL and ms-swift pass on)."""
    if doc.t.empty_cache_steps > 0:
        doc.put("torch_empty_cache_steps", doc.t.empty_cache_steps, "empty_cache_steps")


def _common_unsupported(doc: _Doc) -> None:
    """What no Hugging Face Trainer stack here can express."""
    t = doc.t
    if doc.fmt != "llama-factory":  # LLaMA-Factory's predict_with_generate: the others evaluate the loss only
        doc.lacks("eval_generate_tokens")
    if t.optimizer_in_backward:
        doc.lacks("optimizer_in_backward")


# ------------------------------------------------------------------------------------------ LLaMA-Factory


#: LLaMA-Factory's training stage per workload (examples/train_lora/llama3_lora_{dpo,kto,reward}.yaml @ 01fa59bb); it
#: has no GRPO stage.
_LF_STAGES = {"sft": "sft", "pt": "pt", "dpo": "dpo", "orpo": "dpo", "kto": "kto", "reward": "rm"}


def _llamafactory(doc: _Doc, model_ref: str | None) -> None:
    t = doc.t
    adapters = t.method in {"lora", "qlora"}
    doc.model("model_name_or_path", model_ref)
    if t.method == "qlora" and t.quant_method == "hqq":
        # model_utils/quantization.py: HqqConfig(nbits=quantization_bit, ...) at HqqConfig's group_size 64
        doc.put("quantization_bit", t.quant_bits, "method", "quant_bits")
        doc.put("quantization_method", "hqq", "quant_method")
        if t.quant_group_size != 64:
            doc.lacks("quant_group_size")
    elif t.method == "qlora":
        doc.put("quantization_bit", t.quant_bits, "method", "quant_bits")
        doc.put("quantization_method", "bnb", "quant_method")
        if t.quant_bits == 4:
            doc.put("double_quantization", t.double_quant, "double_quant")
    _attention(doc, "flash_attn", {"flash": "fa2", "sdpa": "sdpa", "eager": "disabled"})
    doc.put("enable_liger_kernel", t.fused_cross_entropy, "fused_cross_entropy")
    doc.put("disable_gradient_checkpointing", not t.grad_checkpointing, "grad_checkpointing")
    if t.activation_offload:
        doc.put("use_unsloth_gc", True, "activation_offload")
    # LLaMA-Factory's stages (examples/train_lora/llama3_lora_{dpo,kto,reward}.yaml @ 01fa59bb): dpo with
    # pref_loss sigmoid (DPO) / orpo / simpo, kto, rm for a reward model
    stage = _LF_STAGES.get(t.workload)
    if stage is None:  # GRPO: LLaMA-Factory's RL stage is PPO only
        doc.put("stage", "sft")
        doc.note("export.workload_unsupported", workload=t.workload.upper())
    else:
        doc.put("stage", stage, "workload")
    if t.workload in {"dpo", "orpo"}:
        doc.put("pref_loss", "sigmoid" if t.workload == "dpo" else "orpo", "workload")
    if t.workload in {"dpo", "kto"} and t.reference_model in {"precomputed", "copy"}:
        doc.lacks("reference_model")  # (LLaMA-Factory: ref_model takes a model path; precompute is not offered)
    doc.put("do_train", True)
    doc.put("finetuning_type", "full" if t.method == "full" else "lora", "method")
    if adapters:
        doc.put("lora_rank", t.lora_rank, "lora_rank")
        doc.put("lora_alpha", _number(t.lora_alpha), "lora_alpha")
        doc.put("lora_dropout", t.lora_dropout, "lora_dropout")
        doc.put("lora_target", "all" if target_spec(t) == "all-linear" else ",".join(_hf_targets(doc.s.model,
                target_spec(t))), "lora_targets", *(("lora_modules",) if t.lora_modules else ()))
        if t.trainable_embeddings:
            doc.put("additional_target", ",".join(_EMBEDDINGS), "trainable_embeddings")
    if t.method == "full" and t.precision == "bf16" and t.master_weights == "none" and t.sharding == "zero3":
        # LLaMA-Factory refuses pure_bf16 with DeepSpeed ZeRO-3 (hparams/parser.py: "`pure_bf16` is incompatible
        # with DeepSpeed ZeRO-3."); DeepSpeed keeps its own FP32 master partition there anyway, which the
        # deepspeed_master note says
        pass
    elif t.method == "full" and t.precision == "bf16" and t.master_weights == "none":
        doc.put("pure_bf16", True, "master_weights")  # model/adapter.py: no FP32 upcast of the trained weights
    elif t.method == "full" and t.master_weights == "none":
        doc.lacks("master_weights")  # FP16 full fine-tuning always upcasts the trained weights to FP32
    elif t.method == "full" and "master_weights" in doc.relevant:
        doc.expressed.append("training.master_weights")  # _setup_full_tuning upcasts the trained weights to FP32
    elif t.method == "lora" and t.master_weights == "fp32":
        doc.lacks("master_weights")  # the model is loaded in the compute dtype
    if t.sharding in _ZERO_STAGE:
        doc.put("deepspeed", _deepspeed_section(doc, auto=True))
    elif t.sharding == "fsdp":
        doc.note("export.fsdp_accelerate", "sharding", example="examples/accelerate/fsdp_config.yaml",
                 offload="true" if t.cpu_offload else "false")
    _no_offload_without_sharding(doc)
    doc.fill("dataset")
    doc.fill("template")
    doc.put("cutoff_len", t.seq_len, "seq_len")
    if not wl.causal_lm(t):
        doc.put("packing", False)  # its pairwise and KTO collators pad each batch; packing is an SFT/pt option
        if t.sequence_mode == "packed":
            doc.lacks("sequence_mode")
    elif t.sequence_mode in {"fixed", "padding-free"}:
        doc.put("packing", False)
        doc.lacks("sequence_mode")  # SFT batches are padded to their longest sequence
    else:
        doc.put("packing", t.sequence_mode == "packed", "sequence_mode")
    doc.put("output_dir", f"saves/{_slug(doc.s.name)}")
    doc.put("per_device_train_batch_size", t.micro_batch, "micro_batch")
    doc.put("gradient_accumulation_steps", t.grad_accumulation, "grad_accumulation")
    _evaluation(doc, "per_device_eval_batch_size", "val_size")
    if "eval_generate_tokens" in doc.relevant:  # CustomSeq2SeqTrainer generates instead of computing the loss
        doc.put("predict_with_generate", True, "eval_generate_tokens")
        doc.put("max_new_tokens", t.eval_generate_tokens, "eval_generate_tokens")
    _epochs(doc, "num_train_epochs")
    _hf_precision(doc)
    doc.put("optim", _HF_OPTIM[t.optimizer], "optimizer")
    if t.torch_compile:
        doc.put("torch_compile", True, "torch_compile")
    _empty_cache(doc)
    _common_unsupported(doc)
    n = _gpus(doc)
    doc.command = "llamafactory-cli train {file}" if n == 1 else \
        f"FORCE_TORCHRUN=1 NPROC_PER_NODE={n} llamafactory-cli train {{file}}"


# ------------------------------------------------------------------------------------------ axolotl


def _axolotl(doc: _Doc, model_ref: str | None) -> None:
    t = doc.t
    adapters = t.method in {"lora", "qlora"}
    doc.model("base_model", model_ref)
    if t.method == "qlora" and t.quant_method == "hqq":
        doc.lacks("quant_method")  # axolotl loads quantised bases through bitsandbytes (or GPTQ checkpoints)
    if t.method == "qlora" and t.quant_bits == 8:
        doc.put("load_in_8bit", True, "method", "quant_bits")  # axolotl's 8-bit LoRA examples: adapter lora
    elif t.method == "qlora":
        doc.put("load_in_4bit", True, "method", "quant_bits")
    if adapters:
        doc.put("adapter", "lora" if t.quant_bits == 8 else t.method, "method")
        doc.put("lora_r", t.lora_rank, "lora_rank")
        doc.put("lora_alpha", _number(t.lora_alpha), "lora_alpha")
        doc.put("lora_dropout", t.lora_dropout, "lora_dropout")
        if target_spec(t) == "all-linear":
            doc.put("lora_target_linear", True, "lora_targets")
        else:
            doc.put("lora_target_modules", list(_hf_targets(doc.s.model, target_spec(t))), "lora_targets",
                    *(("lora_modules",) if t.lora_modules else ()))
        if t.trainable_embeddings:
            doc.put("lora_modules_to_save", list(_EMBEDDINGS), "trainable_embeddings")
    else:
        doc.expressed.append("training.method")  # no adapter: full fine-tuning
    if t.method == "qlora" and t.quant_bits == 4 and not t.double_quant:
        # loaders/model.py builds BitsAndBytesConfig with bnb_4bit_use_double_quant=True; these keys override it
        doc.put("bnb_config_kwargs", {"bnb_4bit_use_double_quant": False}, "double_quant")
    elif t.method == "qlora" and t.quant_bits == 4:
        doc.expressed.append("training.double_quant")
    if t.master_weights == "fp32":
        doc.lacks("master_weights")  # the model is loaded in the training dtype (no FP32 copy)
    if t.workload == "pt":  # axolotl's completion prompt strategy: plain text, the loss on every token
        doc.fill("datasets", [{"path": None, "type": "completion"}])
        doc.expressed.append(doc.path("workload"))
    else:
        doc.fill("datasets")
    doc.put("output_dir", f"./outputs/{_slug(doc.s.name)}")
    doc.put("sequence_len", t.seq_len, "seq_len")
    doc.put("sample_packing", t.sequence_mode == "packed", "sequence_mode")
    doc.put("pad_to_sequence_len", t.sequence_mode == "fixed", "sequence_mode")
    if t.sequence_mode == "padding-free":
        doc.lacks("sequence_mode")  # axolotl packs (multipack) or pads; it has no flattening collator option
    doc.put("micro_batch_size", t.micro_batch, "micro_batch")
    _evaluation(doc, "eval_batch_size", "val_set_size", strategy=False)
    doc.put("gradient_accumulation_steps", t.grad_accumulation, "grad_accumulation")
    _epochs(doc, "num_epochs")
    doc.put("optimizer", _HF_OPTIM[t.optimizer], "optimizer")
    _hf_precision(doc)
    fsdp = t.sharding == "fsdp"
    if fsdp:
        # FSDP2 checkpoints through fsdp_config.activation_checkpointing, not the Trainer's flag
        doc.put("gradient_checkpointing", False)
        if t.activation_offload:
            doc.put("activation_offloading", True, "activation_offload")
    elif t.grad_checkpointing and t.activation_offload:
        doc.put("gradient_checkpointing", "offload", "grad_checkpointing", "activation_offload")
    else:
        doc.put("gradient_checkpointing", t.grad_checkpointing, "grad_checkpointing")
        if t.activation_offload:
            doc.put("activation_offloading", True, "activation_offload")
    _attention(doc, "attn_implementation", _HF_ATTN)
    if t.fused_cross_entropy:
        doc.put("plugins", ["axolotl.integrations.cut_cross_entropy.CutCrossEntropyPlugin"], "fused_cross_entropy")
        doc.put("cut_cross_entropy", True, "fused_cross_entropy")
    if t.torch_compile:
        doc.put("torch_compile", True, "torch_compile")
    if t.sharding in _ZERO_STAGE:
        doc.put("deepspeed", _deepspeed_section(doc, auto=True))
    elif fsdp:
        doc.put("fsdp_version", 2, "sharding")
        doc.put("fsdp_config", {"offload_params": t.cpu_offload, "cpu_ram_efficient_loading": True,
                                "auto_wrap_policy": "TRANSFORMER_BASED_WRAP", "state_dict_type": "FULL_STATE_DICT",
                                "reshard_after_forward": True, "activation_checkpointing": t.grad_checkpointing},
                "cpu_offload", "grad_checkpointing")
    _no_offload_without_sharding(doc)
    doc.lacks("empty_cache_steps")  # (not among the keys axolotl passes to TrainingArguments here)
    _common_unsupported(doc)
    n = _gpus(doc)
    doc.command = "axolotl train {file}" if n == 1 else \
        f"axolotl train {{file}} --launcher torchrun -- --nproc_per_node={n}"


# ------------------------------------------------------------------------------------------ TRL / HF Trainer


def _hf_fsdp(doc: _Doc) -> None:
    """TrainingArguments ``fsdp`` (``full_shard auto_wrap [offload]``) and ``fsdp_config``: checkpointing through FSDP's
    ``activation_checkpointing`` (Trainer refuses it together with ``gradient_checkpointing``); without
    ``transformer_layer_cls_to_wrap`` accelerate wraps the model's ``_no_split_modules``."""
    t = doc.t
    words = "full_shard auto_wrap" + (" offload" if t.cpu_offload else "")
    doc.put("gradient_checkpointing", False)
    doc.put("fsdp", words, "sharding", *(("cpu_offload",) if t.cpu_offload else ()))
    doc.put("fsdp_config", {"activation_checkpointing": t.grad_checkpointing}, "grad_checkpointing")


def _trl(doc: _Doc, model_ref: str | None) -> None:
    t = doc.t
    adapters = t.method in {"lora", "qlora"}
    doc.model("model_name_or_path", model_ref)
    # ModelConfig.dtype is float32 unless given: the model is loaded in it (the FP32 master copy when "fp32")
    dtype = "float32" if t.master_weights == "fp32" and "master_weights" in doc.relevant else _HF_DTYPE[t.precision]
    doc.put("dtype", dtype, *(("master_weights",) if "master_weights" in doc.relevant else ()))
    _attention(doc, "attn_implementation", _HF_ATTN)
    doc.put("use_peft", adapters, "method")
    if adapters:
        doc.put("lora_r", t.lora_rank, "lora_rank")
        doc.put("lora_alpha", _number(t.lora_alpha), "lora_alpha")
        doc.put("lora_dropout", t.lora_dropout, "lora_dropout")
        doc.put("lora_target_modules", list(_hf_targets(doc.s.model, target_spec(t))), "lora_targets",
                *(("lora_modules",) if t.lora_modules else ()))
        if t.trainable_embeddings:
            doc.put("lora_modules_to_save", list(_EMBEDDINGS), "trainable_embeddings")
    if t.method == "qlora" and t.quant_method == "hqq":
        doc.lacks("quant_method")  # ModelConfig's get_quantization_config builds a BitsAndBytesConfig only
    if t.method == "qlora" and t.quant_bits == 8:
        doc.put("load_in_8bit", True, "method", "quant_bits")  # TRL ModelConfig -> get_quantization_config
    elif t.method == "qlora":
        doc.put("load_in_4bit", True, "method", "quant_bits")
        doc.put("bnb_4bit_quant_type", "nf4")
        doc.put("use_bnb_nested_quant", t.double_quant, "double_quant")
    doc.fill("dataset_name")
    doc.put("output_dir", f"outputs/{_slug(doc.s.name)}")
    doc.put("per_device_train_batch_size", t.micro_batch, "micro_batch")
    _evaluation(doc, "per_device_eval_batch_size", None)
    doc.put("gradient_accumulation_steps", t.grad_accumulation, "grad_accumulation")
    _epochs(doc, "num_train_epochs")
    grpo = t.workload == "grpo"
    if grpo:
        _trl_grpo(doc)
    else:
        doc.put("max_length", t.seq_len, "seq_len")
        doc.put("packing", t.sequence_mode == "packed", "sequence_mode")
        if t.sequence_mode == "padding-free" and t.workload == "sft":
            # SFTTrainer.__init__ (@f2cd577) raises when padding_free runs without packing and max_length is set:
            # the collator does not truncate, so the examples must already be cut to seq_len
            doc.put("padding_free", True, "sequence_mode")
            doc.put("max_length", None, "seq_len")
            doc.note("export.padding_free_truncate", "seq_len")
        elif t.sequence_mode == "padding-free":
            doc.lacks("sequence_mode")  # DPOTrainer and the other trainers pad every batch
        if t.sequence_mode == "fixed":
            # every batch padded to a multiple of max_length, which no truncated sequence exceeds: the fixed length
            doc.put("pad_to_multiple_of", t.seq_len, "sequence_mode")
    _hf_precision(doc)
    doc.put("optim", _HF_OPTIM[t.optimizer], "optimizer")
    if not grpo:
        # SFTConfig: an unset loss_type is chunked_nll (LM head and cross-entropy in chunks); nll keeps the full logits
        doc.put("loss_type", "chunked_nll" if t.fused_cross_entropy else "nll", "fused_cross_entropy")
    doc.put("activation_offloading", t.activation_offload, "activation_offload")
    if t.torch_compile:
        doc.put("torch_compile", True, "torch_compile")
    if t.sharding == "fsdp":
        _hf_fsdp(doc)
    else:
        doc.put("gradient_checkpointing", t.grad_checkpointing, "grad_checkpointing")
    if t.sharding in _ZERO_STAGE:
        doc.put("deepspeed", _deepspeed_section(doc, auto=True))
    _no_offload_without_sharding(doc)
    _empty_cache(doc)
    _common_unsupported(doc)
    n = _gpus(doc)
    if n > 1:
        doc.put("num_processes", n, "num_gpus")
    doc.command = "trl grpo --config {file}" if grpo else "trl sft --config {file}"
    if grpo and t.generation_engine == "vllm-server":
        # the generation server runs on GPUs of its own (trl vllm-serve, data-parallel copies of the model)
        doc.command = (f"trl vllm-serve --model {model_ref or '<model>'} --data_parallel_size {t.vllm_server_gpus}"
                       " (on its own GPUs), then: " + doc.command)
    if adapters:
        lora: dict[str, Any] = {"r": t.lora_rank, "lora_alpha": _number(t.lora_alpha), "lora_dropout": t.lora_dropout,
                                "target_modules": "all-linear" if target_spec(t) == "all-linear"
                                else list(_hf_targets(doc.s.model, target_spec(t))), "task_type": "CAUSAL_LM"}
        if t.trainable_embeddings:
            lora["modules_to_save"] = list(_EMBEDDINGS)
        doc.extras["peft.LoraConfig"] = lora
    if t.method == "qlora" and t.quant_bits == 8:
        doc.extras["transformers.BitsAndBytesConfig"] = {"load_in_8bit": True}
    elif t.method == "qlora":
        doc.extras["transformers.BitsAndBytesConfig"] = {
            "load_in_4bit": True, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": t.double_quant,
            "bnb_4bit_compute_dtype": _HF_DTYPE[t.precision]}


# ------------------------------------------------------------------------------------------ ms-swift


def _trl_grpo(doc: _Doc) -> None:
    """GRPOConfig's keys for a GRPO plan (trl/trainer/grpo_config.py @f2cd577): completions per prompt, their
    length, the KL coefficient and the generation engine; per_device_train_batch_size counts completions, as the
    plan's micro-batch does. The reward functions are the user's (``reward_funcs`` of trl/scripts/grpo.py)."""
    t = doc.t
    doc.put("num_generations", t.num_generations, "num_generations")
    doc.put("max_completion_length", t.completion_tokens, "completion_tokens")
    doc.put("beta", _number(t.kl_beta), "kl_beta")
    doc.put("use_vllm", t.generation_engine != "transformers", "generation_engine")
    if t.generation_engine == "vllm-colocate":
        doc.put("vllm_mode", "colocate", "generation_engine")
        doc.put("vllm_gpu_memory_utilization", _number(t.vllm_memory_share), "vllm_memory_share")
        doc.put("vllm_enable_sleep_mode", t.vllm_sleep, "vllm_sleep")
    elif t.generation_engine == "vllm-server":
        doc.put("vllm_mode", "server", "generation_engine")
        doc.expressed.append(doc.path("vllm_server_gpus"))  # in the command: trl vllm-serve --data-parallel-size
    doc.fill("reward_funcs")
    # GRPOTrainer pads each batch's completions and takes per-token log-probs of the completions only: SFT's
    # packing and loss_type do not apply, and the prompt (seq_len - completion_tokens) is the dataset's
    for field in ("sequence_mode", "fused_cross_entropy", "seq_len"):
        doc.expressed.append(doc.path(field))


def _ms_swift(doc: _Doc, model_ref: str | None) -> None:
    t = doc.t
    adapters = t.method in {"lora", "qlora"}
    doc.model("model", model_ref)
    doc.put("tuner_type", "full" if t.method == "full" else "lora", "method")
    amp = t.master_weights == "fp32" and "master_weights" in doc.relevant
    doc.put("torch_dtype", "float32" if amp else _HF_DTYPE[t.precision],
            *(("master_weights",) if "master_weights" in doc.relevant else ()))
    _hf_precision(doc)  # given, so a float32 model trains under the plan's autocast, not ms-swift's fp16 default
    if t.method == "qlora" and t.quant_method == "hqq":
        # swift/arguments/base_args/quant_args.py: HqqConfig(nbits=quant_bits), group_size 64
        doc.put("quant_method", "hqq", "method", "quant_method")
        doc.put("quant_bits", t.quant_bits, "method", "quant_bits")
        if t.quant_group_size != 64:
            doc.lacks("quant_group_size")
    elif t.method == "qlora":
        doc.put("quant_method", "bnb", "method", "quant_method")
        doc.put("quant_bits", t.quant_bits, "method", "quant_bits")
        if t.quant_bits == 4:
            doc.put("bnb_4bit_quant_type", "nf4")
            doc.put("bnb_4bit_use_double_quant", t.double_quant, "double_quant")
    if adapters:
        doc.put("lora_rank", t.lora_rank, "lora_rank")
        doc.put("lora_alpha", _number(t.lora_alpha), "lora_alpha")
        doc.put("lora_dropout", t.lora_dropout, "lora_dropout")
        doc.put("target_modules", list(_hf_targets(doc.s.model, target_spec(t))), "lora_targets",
                *(("lora_modules",) if t.lora_modules else ()))
        if t.trainable_embeddings:
            doc.put("modules_to_save", list(_EMBEDDINGS), "trainable_embeddings")
        if t.adapter_precision == "model-dtype" and "adapter_precision" in doc.relevant:
            doc.put("lora_dtype", _HF_DTYPE[t.precision], "adapter_precision")
        elif t.adapter_precision == "fp32" and "adapter_precision" in doc.relevant:
            doc.lacks("adapter_precision")  # ms-swift trains under autocast
        elif "adapter_precision" in doc.relevant:
            doc.expressed.append("training.adapter_precision")  # lora_dtype unset: PEFT's FP32 adapters, autocast
    _attention(doc, "attn_impl", {"flash": "flash_attn", "sdpa": "sdpa", "eager": "eager"})
    doc.fill("dataset")
    doc.put("output_dir", f"output/{_slug(doc.s.name)}")
    doc.put("max_length", t.seq_len, "seq_len")
    if t.sequence_mode == "fixed":
        doc.put("packing", False)
        doc.lacks("sequence_mode")
    elif t.sequence_mode == "padding-free":
        doc.put("packing", False)
        doc.put("padding_free", True, "sequence_mode")
        if t.attention not in {"flash", "flash1"}:
            doc.note("export.packing_flash", "sequence_mode", value=doc.data["attn_impl"])
    else:
        doc.put("packing", t.sequence_mode == "packed", "sequence_mode")
        if t.sequence_mode == "packed" and t.attention not in {"flash", "flash1"}:
            doc.note("export.packing_flash", "sequence_mode", value=doc.data["attn_impl"])
    doc.put("per_device_train_batch_size", t.micro_batch, "micro_batch")
    _evaluation(doc, "per_device_eval_batch_size", "split_dataset_ratio")
    doc.put("gradient_accumulation_steps", t.grad_accumulation, "grad_accumulation")
    _epochs(doc, "num_train_epochs")
    doc.put("optim", _HF_OPTIM[t.optimizer], "optimizer")
    doc.put("use_liger_kernel", t.fused_cross_entropy, "fused_cross_entropy")
    if t.torch_compile:
        doc.put("torch_compile", True, "torch_compile")
    if t.sharding == "fsdp":
        # swift/config/fsdp2.json's layout: checkpointing and activation offload in fsdp_config, not the Trainer flag
        doc.put("gradient_checkpointing", False)
        config: dict[str, Any] = {"fsdp_version": 2, "reshard_after_forward": True,
                                  "auto_wrap_policy": "TRANSFORMER_BASED_WRAP", "cpu_ram_efficient_loading": True,
                                  "state_dict_type": "SHARDED_STATE_DICT",
                                  "activation_checkpointing": t.grad_checkpointing}
        if t.activation_offload:
            config["activation_cpu_offload"] = True
        doc.put("fsdp", {"fsdp": "full_shard auto_wrap" + (" offload" if t.cpu_offload else ""),
                         "fsdp_config": config}, "sharding", "grad_checkpointing",
                *(("cpu_offload",) if t.cpu_offload else ()), *(("activation_offload",) if t.activation_offload else ()))
    else:
        doc.put("gradient_checkpointing", t.grad_checkpointing, "grad_checkpointing")
        if t.activation_offload:
            doc.lacks("activation_offload")  # activation_cpu_offload is an FSDP setting in ms-swift
    if t.sharding in _ZERO_STAGE:
        doc.put("deepspeed", _deepspeed_section(doc, auto=True))
    _no_offload_without_sharding(doc)
    _empty_cache(doc)
    _common_unsupported(doc)
    n = _gpus(doc)
    verb = "pt" if t.workload == "pt" else "sft"  # swift pt: the SFT pipeline on plain text
    doc.command = f"swift {verb} {{file}}" if n == 1 else f"NPROC_PER_NODE={n} swift {verb} {{file}}"


# ------------------------------------------------------------------------------------------ torchtune

#: torchtune optimizer components (the shipped configs use torch.optim.AdamW, bitsandbytes.optim.PagedAdamW and
#: PagedAdamW8bit); the flag says whether it takes ``fused``.
_TT_OPTIM: dict[str, tuple[str, bool]] = {
    "adamw": ("torch.optim.AdamW", True), "adamw-fused": ("torch.optim.AdamW", True),
    "adamw-8bit": ("bitsandbytes.optim.AdamW8bit", False), "paged-adamw-8bit": ("bitsandbytes.optim.PagedAdamW8bit", False),
    "paged-adamw-32bit": ("bitsandbytes.optim.PagedAdamW", False), "sgd": ("torch.optim.SGD", False),
    "adafactor": ("torch.optim.Adafactor", False),
}
_TT_ATTN = {"q_v": ["q_proj", "v_proj"], "qkvo": ["q_proj", "k_proj", "v_proj", "output_proj"],
            "all-linear": ["q_proj", "k_proj", "v_proj", "output_proj"]}


def _cli_value(value: Any) -> str:
    """A value as torchtune's ``key=value`` override writes it (OmegaConf dotlist)."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, list):
        return "[" + ",".join(f"'{v}'" for v in value) + "]"
    return str(value)


def _torchtune(doc: _Doc, model_ref: str | None) -> None:
    t = doc.t
    adapters = t.method in {"lora", "qlora"}
    n = _gpus(doc)
    distributed = n > 1
    recipe = ("full_finetune" if t.method == "full" else "lora_finetune") + ("_distributed" if distributed
                                                                            else "_single_device")
    doc.expressed.append("training.method")  # the recipe
    if adapters:
        doc.put("model.lora_rank", t.lora_rank, "lora_rank")
        doc.put("model.lora_alpha", _number(t.lora_alpha), "lora_alpha")
        doc.put("model.lora_dropout", t.lora_dropout, "lora_dropout")
        if t.lora_modules:
            # torchtune's builders take the attention projections by name and the MLP as a whole
            # (lora_attn_modules, apply_lora_to_mlp)
            wanted = named_modules(doc.s.model, t.lora_modules)[0]
            attn = [tt for tt, hf in (("q_proj", "q_proj"), ("k_proj", "k_proj"), ("v_proj", "v_proj"),
                                      ("output_proj", "o_proj")) if hf in wanted]
            mlp = {"gate_proj", "up_proj", "down_proj"} & wanted
            doc.put("model.lora_attn_modules", attn, "lora_targets", "lora_modules")
            doc.put("model.apply_lora_to_mlp", bool(mlp), "lora_targets")
            if mlp and mlp != {"gate_proj", "up_proj", "down_proj"}:
                doc.lacks("lora_modules")
        else:
            doc.put("model.lora_attn_modules", list(_TT_ATTN[t.lora_targets]), "lora_targets")
            doc.put("model.apply_lora_to_mlp", t.lora_targets == "all-linear", "lora_targets")
        doc.put("model.apply_lora_to_output", False)
        if t.trainable_embeddings:
            doc.lacks("trainable_embeddings")
    if t.method == "qlora" and t.quant_bits == 8:
        doc.lacks("quant_bits")  # torchtune's qlora_ builders quantise to NF4 only (torchao)
    elif t.method == "qlora":
        doc.note("export.torchtune_qlora", "method")
        if t.quant_method == "hqq":
            doc.lacks("quant_method")  # torchtune's qlora_ builders quantise to NF4 (torchao)
    doc.put("tokenizer.max_seq_len", t.seq_len, "seq_len")
    if t.sequence_mode in {"fixed", "padding-free"}:
        doc.put("dataset.packed", False)
        doc.lacks("sequence_mode")  # padded_collate_sft pads each batch to its longest sequence
    else:
        doc.put("dataset.packed", t.sequence_mode == "packed", "sequence_mode")
    doc.put("batch_size", t.micro_batch, "micro_batch")
    doc.lacks("eval_micro_batch")  # the plan maps no torchtune validation setting
    doc.lacks("empty_cache_steps")  # torchtune's recipes have no such setting
    doc.put("gradient_accumulation_steps", t.grad_accumulation, "grad_accumulation")
    epochs = doc.s.dataset.epochs
    if float(epochs).is_integer():
        doc.put("epochs", int(epochs), "dataset.epochs")
    else:
        doc.put("epochs", math.ceil(epochs))
        doc.note("export.approx", "dataset.epochs", key="epochs", value=math.ceil(epochs))
    if t.precision == "fp16":
        doc.lacks("precision")  # the recipes refuse fp16 ("full fp16 training is not supported")
    else:
        doc.put("dtype", t.precision, "precision")
    doc.put("enable_activation_checkpointing", t.grad_checkpointing, "grad_checkpointing")
    doc.put("enable_activation_offloading", t.activation_offload, "activation_offload")
    doc.put("compile", t.torch_compile, "torch_compile")
    component, fused = _TT_OPTIM[t.optimizer]
    doc.put("optimizer._component_", component, "optimizer")
    if fused:
        doc.put("optimizer.fused", t.optimizer == "adamw-fused", "optimizer")
    else:
        doc.note("export.torchtune_optimizer", "optimizer", component=component)
    if t.method == "full":
        doc.put("optimizer_in_bwd", t.optimizer_in_backward, "optimizer_in_backward")
    elif t.optimizer_in_backward:
        doc.lacks("optimizer_in_backward")
    doc.put("loss._component_", "torchtune.modules.loss.LinearCrossEntropyLoss" if t.fused_cross_entropy
            else "torch.nn.CrossEntropyLoss", "fused_cross_entropy")
    if distributed:
        if t.sharding != "fsdp":
            doc.note("export.torchtune_fsdp", "sharding")
        else:
            doc.expressed.append("training.sharding")
        doc.put("fsdp_cpu_offload", t.cpu_offload, "cpu_offload")
        if t.fsdp_wrap == "separate-embeddings":
            doc.put("custom_sharded_layers", ["tok_embeddings", "output"], "fsdp_wrap")
        elif t.fsdp_wrap == "layers":
            doc.expressed.append("training.fsdp_wrap")
    elif t.cpu_offload:
        doc.note("export.offload_needs_sharding", "cpu_offload", sharding=t.sharding)
    doc.note("export.torchtune_config", recipe=recipe)
    launch = f"tune run --nproc_per_node {n} {recipe}" if distributed else f"tune run {recipe}"
    overrides = " ".join(f'"{k}={_cli_value(v)}"' if isinstance(v, list) else f"{k}={_cli_value(v)}"
                         for k, v in doc.data.items())
    doc.command = f"{launch} --config <config> {overrides}"


# ------------------------------------------------------------------------------------------ entry points


def _deepspeed(doc: _Doc, auto: bool) -> None:
    doc.data.update(_deepspeed_section(doc, auto))
    n = doc.t.num_gpus
    if auto:
        doc.command = "deepspeed: {file} in the training config (Hugging Face Trainer fills the \"auto\" values)"
    else:
        doc.command = f"deepspeed --num_gpus {n} <your_script>.py, whose deepspeed.initialize(config=\"{{file}}\") reads it"


def deepspeed_config(scenario: Scenario, auto: bool | None = None) -> dict[str, Any]:
    """The DeepSpeed config of ``scenario`` alone (what :func:`export_config` writes for ``deepspeed`` and embeds in
    the stack formats): ``zero_optimization.stage`` from the sharding, ``offload_optimizer`` with CPU offload (and
    ``offload_param`` at stage 3 only), and the batch, clipping and precision values, as ``"auto"`` when ``auto``
    (None: when the plan's stack runs Hugging Face Trainer, or names none)."""
    doc = _Doc("deepspeed", scenario)
    return _deepspeed_section(doc, _uses_auto(scenario.training, auto))


_BUILDERS = {"llama-factory": _llamafactory, "axolotl": _axolotl, "trl": _trl, "torchtune": _torchtune,
             "ms-swift": _ms_swift}


def export_config(scenario: Scenario, fmt: str, *, estimate: Estimate | None = None, model_ref: str | None = None,
                  deepspeed_auto: bool | None = None) -> ConfigExport:
    """The plan as ``fmt``'s config (see the module docstring).

    Args:
        scenario: the plan.
        fmt: one of :data:`EXPORT_FORMATS`.
        estimate: the plan's estimate (its verdict goes into the file's header); None computes it.
        model_ref: the model's Hugging Face id; None leaves the model key empty with a note.
        deepspeed_auto: ``deepspeed`` format: write ``"auto"`` where HF Trainer fills the value (None: when the plan's
            stack runs HF Trainer or names none; plain PyTorch gets the numbers). The stack formats always use
            ``"auto"``: their trainer fills it.

    Raises:
        ValueError: an unknown format.
    """
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown config format {fmt!r}; one of {', '.join(EXPORT_FORMATS)}")
    if estimate is None:
        estimate = run_estimate(scenario)
    doc = _Doc(fmt, scenario)
    if fmt == "deepspeed":
        _deepspeed(doc, _uses_auto(scenario.training, deepspeed_auto))
        return doc.result("json", estimate, model_ref)
    _BUILDERS[fmt](doc, model_ref)
    wl_name = scenario.training.workload
    native = fmt == "llama-factory" or (fmt == "trl" and wl_name == "grpo")  # (LLaMA-Factory notes GRPO itself)
    if wl_name not in {"sft", "pt"} and not native:  # (continued pretraining is each stack's SFT on plain text)
        doc.note("export.sft_only", workload=wl_name.upper())
    return doc.result("yaml", estimate, model_ref)
