"""Import the training config a user already has (issue #17): LLaMA-Factory, axolotl, HF/TRL, DeepSpeed, torchtune,
ms-swift and accelerate configs (command lines: ``core/training_command.py``).

:func:`map_training_config` takes an already-decoded mapping (reading and decoding files is
``tuneplan.storage.training_config``'s business) and returns a :class:`ConfigImport`: the plan's field updates
as dotted paths (``"training.micro_batch"``, as ``PlanStore.set_fields`` and the CLI take them) and one coded
:class:`ImportItem` per setting read, saying whether it was *taken*, *ignored* (it does not change memory or
time, or is left to another file) or *unsupported* (it matters, but the plan cannot express it). Items carry a
:class:`~tuneplan.core.terms.Note` whose template is registered in ``NOTES``, so every front end renders and
translates them alike. A value of the wrong type (``micro_batch_size: abc``) or outside what the plan accepts
raises :class:`TrainingConfigError` and nothing is returned: an import is all or nothing.

Sources of the mappings and defaults (read from each project's code): LLaMA-Factory ``hparams/finetuning_args.py``
(``lora_rank`` 8, ``lora_alpha`` = 2 x rank when not given, ``lora_dropout`` 0, ``lora_target`` ``all``,
``packing`` only for ``stage: pt``) and ``model_args.py`` (``cutoff_len`` 2048, gradient checkpointing on unless
``disable_gradient_checkpointing``, ``flash_attn: auto`` = transformers' SDPA); LLaMA-Factory upcasts trainable
parameters to FP32 unless ``pure_bf16`` (``model/adapter.py``). axolotl ``utils/schemas/config.py`` (gradient
checkpointing off by default, ``sequence_len`` 2048, ``sample_packing``/``pad_to_sequence_len``). HF
``TrainingArguments`` and TRL ``SFTConfig``/``ModelConfig`` field names. DeepSpeed's config JSON
(``zero_optimization``, ``"auto"`` filled in by the HF integration from the trainer's arguments).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from tuneplan.core.scenario import Dataset, TrainingSetup
from tuneplan.core.terms import N_, NOTES, CodedError, Note

__all__ = [
    "FORMATS",
    "map_torchtune_overrides",
    "FORMAT_NAMES",
    "ConfigImport",
    "ImportItem",
    "TrainingConfigError",
    "detect_format",
    "map_training_config",
]

Format = Literal["llamafactory", "axolotl", "hf", "deepspeed", "torchtune", "swift", "accelerate"]
Status = Literal["taken", "ignored", "unsupported"]
FORMATS: tuple[str, ...] = ("llamafactory", "axolotl", "hf", "deepspeed", "torchtune", "swift", "accelerate")
#: How each format is named in notes (proper names: not translated).
FORMAT_NAMES: dict[str, str] = {"llamafactory": "LLaMA-Factory", "axolotl": "axolotl",
                                "hf": "Hugging Face TrainingArguments / TRL", "deepspeed": "DeepSpeed",
                                "torchtune": "torchtune", "swift": "ms-swift", "accelerate": "Hugging Face accelerate"}

NOTES.update({
    # taken
    "config.taken": N_("{key} = {value}: {field} set to {setting}"),
    "config.default": N_("{key} not given: {framework}'s default sets {field} to {setting}"),
    "config.modules_partly": N_("{key} = {value}: {field} set to {setting}; {unknown} name no projection the plan "
                                "counts (a single layer's module, or one the model has no counterpart for) and are "
                                "left out"),
    "config.approx": N_("{key} = {value}: {field} set to {setting}, the nearest setting the plan has"),
    "config.framework": N_("{framework} trains with Hugging Face Trainer: {field} set to {setting}"),
    "config.master_weights": N_("{key} = {value}: FP32 master weights under mixed precision, {field} set to {setting}"),
    "config.gpus_from_batch": N_("{key} = {value} = micro-batch × accumulation × GPUs: {field} set to {setting}"),
    "config.fp32": N_("neither bf16 nor fp16 is on: {field} set to {setting}"),
    "config.stack": N_("{framework} config: {field} set to {setting}, whose defaults fill what the file leaves out"),
    "config.stack_default": N_("not in the file: {framework}'s default sets {field} to {setting} ({source})"),
    # ignored
    "config.ignored": N_("{key}: does not change memory or time"),
    "config.unknown_key": N_("{key}: not a setting Tuneplan reads"),
    "config.auto": N_("{key} is \"auto\": left to the other files and the plan"),
    "config.deepspeed_as_planned": N_("{key} = {value}: DeepSpeed's default, as the plan counts it"),
    "config.deepspeed_file": N_("{key} = {value}: import that DeepSpeed file too for its ZeRO stage and offload"),
    # unsupported
    "config.not_modelled": N_("{key} = {value}: not modelled; the plan keeps its setting"),
    "config.beams_not_modelled": N_("{key} = {value}: each beam is a row of its own in the evaluation's KV cache; "
                                    "the plan counts one beam per example (set the evaluation batch × {value} to "
                                    "size the cache)"),
    "config.lf_generate_no_data": N_("{key} = {value}: LLaMA-Factory refuses it without evaluation data (\"Please "
                                     "make sure eval_dataset be provided or val_size >1e-6\")"),
    "config.lf_generate_accuracy": N_("{key} = {value}: LLaMA-Factory refuses it together with predict_with_generate "
                                      "(\"Cannot use predict_with_generate and compute_accuracy together\")"),
    "config.eval_off": N_("{key} = {value}: the config does not evaluate during training, so the evaluation batch "
                          "does not apply"),
    "config.unknown_value": N_("{key} = {value}: a value Tuneplan does not know; the plan keeps its setting"),
    "config.deepspeed_default_counted": N_("{key} = {value}: the plan counts DeepSpeed's default ({default}); this "
                                          "value changes the memory by its difference"),
    "config.optimizer_offload_only": N_("{key} = {value}: offloading the optimizer states alone is not modelled "
                                        "(the plan offloads parameters and optimizer states together); CPU offload "
                                        "left as it is"),
    "config.model_not_set": N_("{key} = {value}: the import sets the training setup only; choose the model in "
                               "the plan"),
    "config.no_quant_method": N_("{key} = {value}: without quant_method ms-swift loads the model unquantised"),
    "config.no_truncation": N_("{key} = {value}: examples are not cut to a length; the plan keeps its sequence "
                               "length (set it to the longest example)"),
    "config.no_gpu_count": N_("the config does not say how many GPUs run it: set the GPU count in the plan"),
    # errors (TrainingConfigError)
    "config.not_mapping": N_("the file does not hold a training config (a mapping of settings)"),
    "config.unknown_format": N_("not a LLaMA-Factory, axolotl, Hugging Face, DeepSpeed, torchtune, ms-swift or "
                                "accelerate training config"),
    "config.not_integer": N_("{key} must be a whole number, got {value}"),
    "config.not_number": N_("{key} must be a number, got {value}"),
    "config.not_boolean": N_("{key} must be true or false, got {value}"),
    "config.not_string": N_("{key} must be text, got {value}"),
    "config.out_of_range": N_("{key} = {value}: {field} does not accept this value"),
    # errors reading the file (tuneplan.storage.training_config)
    "config.missing": N_("no such file"),
    "config.not_file": N_("not a regular file"),
    "config.unreadable": N_("cannot read the file ({reason})"),
    "config.too_large": N_("too large ({size} KiB; the limit is {limit} KiB)"),
    "config.not_text": N_("not a text file (binary, or not UTF-8)"),
    "config.empty": N_("the file is empty"),
    "config.syntax": N_("not valid YAML or JSON (line {line}): {problem}"),
    "config.alias": N_("YAML anchors and aliases are not accepted (line {line})"),
    "config.too_deep": N_("nested more than {depth} levels deep"),
})


class TrainingConfigError(CodedError):
    """A training config that cannot be imported; ``code`` and ``params`` name the problem (``NOTES``).

    ``file`` (when the loader raised it) is the file's name; the message is one line: ``file: text``.
    """


class ImportItem(BaseModel):
    """One setting of the config and what became of it.

    Attributes:
        status: ``taken`` (it set ``fields``), ``ignored`` (no effect on memory or time, or left to another file),
            ``unsupported`` (it matters, but the plan cannot express it).
        key: the setting as the file names it (nested ones dotted: ``zero_optimization.stage``).
        note: the coded message (``NOTES[note.code]``).
        fields: the plan fields (dotted paths) it set.
    """

    model_config = ConfigDict(frozen=True)

    status: Status
    key: str
    note: Note
    fields: tuple[str, ...] = ()


class ConfigImport(BaseModel):
    """What a training config maps onto: ``updates`` (dotted path -> value) and one item per setting."""

    model_config = ConfigDict(frozen=True)

    format: Format
    updates: dict[str, Any]
    items: tuple[ImportItem, ...]

    def with_status(self, status: Status) -> list[ImportItem]:
        """The items of one status, in file order."""
        return [i for i in self.items if i.status == status]

    @property
    def codes(self) -> list[str]:
        return [i.note.code for i in self.items]


# ------------------------------------------------------------------------------------------ values


def _shown(value: Any) -> str:
    """A config value as a short text for a note (``true``, ``8``, ``[q_proj, v_proj]``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        text = "[" + ", ".join(_shown(v) for v in value) + "]"
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k}: {_shown(v)}" for k, v in value.items()) + "}"
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= 80 else text[:79] + "…"


def _is_auto(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower() == "auto"


def _int(key: str, value: Any) -> int:
    if isinstance(value, bool):
        raise TrainingConfigError("config.not_integer", key=key, value=_shown(value))
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit() and len(value.strip()) <= 12:
        return int(value.strip())
    raise TrainingConfigError("config.not_integer", key=key, value=_shown(value))


def _float(key: str, value: Any) -> float:
    if isinstance(value, bool):
        raise TrainingConfigError("config.not_number", key=key, value=_shown(value))
    if isinstance(value, int) and abs(value) > 10**300:
        raise TrainingConfigError("config.not_number", key=key, value=_shown(value))
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            pass
        else:
            if math.isfinite(number):
                return number
    raise TrainingConfigError("config.not_number", key=key, value=_shown(value))


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0", "none", ""}


def _bool(key: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    raise TrainingConfigError("config.not_boolean", key=key, value=_shown(value))


def _str(key: str, value: Any) -> str:
    if isinstance(value, str):
        return value.strip()
    raise TrainingConfigError("config.not_string", key=key, value=_shown(value))


# ------------------------------------------------------------------------------------------ the builder


class _Builder:
    """Collects updates and items while a format's mapper walks the config."""

    def __init__(self, fmt: str) -> None:
        self.fmt = fmt
        self.updates: dict[str, Any] = {}
        self.items: list[ImportItem] = []
        self.seen: set[str] = set()

    def take(self, key: str, value: Any, path: str, setting: Any, code: str = "config.taken", **extra: Any) -> None:
        self.updates[path] = setting
        params = {"key": key, "value": _shown(value), "field": path, "setting": setting, **extra}
        self.items.append(ImportItem(status="taken", key=key, note=Note(code=code, params=params), fields=(path,)))

    def default(self, key: str, path: str, setting: Any) -> None:
        self.updates[path] = setting
        params = {"key": key, "framework": FORMAT_NAMES[self.fmt], "field": path, "setting": setting}
        self.items.append(ImportItem(status="taken", key=key, note=Note(code="config.default", params=params),
                                     fields=(path,)))

    def ignore(self, key: str, value: Any = None, code: str = "config.ignored") -> None:
        self.items.append(ImportItem(status="ignored", key=key,
                                     note=Note(code=code, params={"key": key, "value": _shown(value)})))

    def unsupported(self, key: str, value: Any, code: str = "config.not_modelled") -> None:
        self.items.append(ImportItem(status="unsupported", key=key,
                                     note=Note(code=code, params={"key": key, "value": _shown(value)})))

    def auto(self, key: str) -> None:
        self.ignore(key, "auto", code="config.auto")

    def result(self) -> ConfigImport:
        _validate(self.updates, self.items)
        return ConfigImport(format=self.fmt, updates=dict(self.updates), items=tuple(self.items))


def _validate(updates: dict[str, Any], items: list[ImportItem]) -> None:
    """Check each update against the plan's field constraints (e.g. micro-batch >= 1); the first bad one raises."""
    for section, model in (("training", TrainingSetup), ("dataset", Dataset)):
        values = {p.split(".", 1)[1]: v for p, v in updates.items() if p.startswith(section + ".")}
        if not values:
            continue
        try:
            model.model_validate({**model().model_dump(), **values})
        except ValidationError as exc:
            where = ".".join(str(p) for p in exc.errors()[0].get("loc", ()))
            path = f"{section}.{where}"
            item = next((i for i in reversed(items) if path in i.fields), None)
            key = item.key if item is not None else path
            value = item.note.params.get("value", _shown(updates.get(path))) if item is not None else \
                _shown(updates.get(path))
            raise TrainingConfigError("config.out_of_range", key=key, value=value, field=path) from None


# ------------------------------------------------------------------------------------------ shared pieces

#: Settings of every format that do not change memory or time (data, logging, saving, schedule, evaluation).
_IRRELEVANT = {
    "output_dir", "overwrite_output_dir", "logging_dir", "logging_steps", "logging_strategy", "logging_first_step",
    "save_steps", "save_strategy", "save_total_limit", "save_only_model", "save_safetensors", "plot_loss",
    "report_to", "run_name", "learning_rate", "lr_scheduler_type", "lr_scheduler", "lr_scheduler_kwargs",
    "warmup_ratio", "warmup_steps", "weight_decay", "adam_beta1", "adam_beta2", "adam_epsilon", "max_grad_norm",
    "seed", "data_seed", "dataset", "datasets", "dataset_dir", "eval_dataset", "template", "max_samples",
    "overwrite_cache", "preprocessing_num_workers", "dataloader_num_workers", "dataloader_pin_memory",
    "ddp_timeout", "resume_from_checkpoint", "do_train", "do_eval", "do_predict", "eval_strategy",
    "evaluation_strategy", "eval_steps", "per_device_eval_batch_size", "val_size", "val_set_size",
    "trust_remote_code", "push_to_hub", "hub_model_id", "hub_strategy", "hub_token", "wandb_project",
    "wandb_entity", "wandb_watch", "wandb_name", "wandb_log_model", "wandb_run_id", "mlflow_experiment_name",
    "dataset_prepared_path", "train_on_inputs", "group_by_length", "special_tokens", "tokens", "chat_template",
    "strict", "debug", "early_stopping_patience", "local_rank", "evals_per_epoch", "saves_per_epoch",
    "loss_watchdog_threshold", "loss_watchdog_patience", "tf32", "remove_unused_columns", "label_names",
    "load_best_model_at_end", "metric_for_best_model", "greater_is_better", "disable_tqdm", "log_level",
    "log_level_replica", "log_on_each_node", "prediction_loss_only", "eval_accumulation_steps",
    "gradient_checkpointing_kwargs", "include_num_input_tokens_seen", "dataset_text_field", "dataset_num_proc",
    "dataset_kwargs", "completion_only_loss", "assistant_only_loss", "stage", "lora_model_dir",
    "lora_fan_in_fan_out", "hub_private_repo", "gradient_clipping", "steps_per_print",
    "wall_clock_breakdown", "zero_allow_untested_optimizer", "scheduler", "optim_args", "torch_compile_mode",
    "torch_compile_backend", "ddp_find_unused_parameters", "ddp_backend", "half_precision_backend",
    "bf16_full_eval", "fp16_full_eval", "fp16_opt_level", "_n_gpu", "logging_nan_inf_filter", "seed_everything",
    "num_processes", "base_model_config", "tokenizer_type", "model_type", "tokenizer_config", "is_llama_derived_model",
    "shuffle_merged_datasets", "test_datasets", "flash_attn_cross_entropy", "xformers_attention",
    "eval_sample_packing", "eval_on_start", "use_cpu", "no_cuda", "past_index", "restore_callback_states_from_checkpoint",
}  # fmt: skip

_OPTIMIZERS = {
    "adamw_torch": "adamw", "adamw_hf": "adamw", "adamw": "adamw", "adamw_torch_fused": "adamw-fused",
    "adamw_apex_fused": "adamw-fused", "adamw_8bit": "adamw-8bit", "adamw_bnb_8bit": "adamw-8bit",
    "bnb_8bit": "adamw-8bit", "paged_adamw_8bit": "paged-adamw-8bit", "paged_adamw_32bit": "paged-adamw-32bit",
    "paged_adamw": "paged-adamw-32bit", "sgd": "sgd", "adafactor": "adafactor",
}

_LINEAR = {"q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj"}
_ATTN = {"q_proj", "k_proj", "v_proj", "o_proj"}
#: the order the per-layer model lists its projections in (an imported module list keeps it)
_ORDER_ATTN = ("q_proj", "k_proj", "v_proj", "o_proj")
_ORDER_MLP = ("gate_proj", "up_proj", "down_proj")
_MLP = {"gate_proj", "up_proj", "down_proj"}
#: Multi-head latent attention's projections (DeepSeek-V2/V3, transformers ``DeepseekV2Attention``) and the lists that
#: are exactly a preset of ``core/memory/adapters.py`` ``MLA_TARGETS`` (q_v: the query path and ``kv_b_proj``; qkvo: every
#: attention projection), for V2-Lite's plain ``q_proj`` and the others' ``q_a_proj``/``q_b_proj``
#: Other families' module names (``core/architecture.py`` ``FUSED_PROJECTIONS``, ``HF_MODULE_NAMES``, with their
#: sources) as the projections of the per-layer model they compute. A fused q/k/v module is all of q, k and v; the MLP's
#: input projection of a plain (non-gated) MLP (GPT-NeoX ``dense_h_to_4h``, GPT-2 ``c_fc``, Phi ``fc1``) stands for
#: gate and up alike, so that a list naming every linear of such a model reads as ``all-linear``; ``c_proj`` is both the
#: attention output and the MLP's down projection in GPT-2 and Qwen (v1), since PEFT matches the end of a module's path.
_FUSED_QKV = {"qkv_proj", "query_key_value", "W_pack", "c_attn", "Wqkv"}
_OTHER_NAMES: dict[str, frozenset[str]] = {
    **{n: frozenset({"q_proj", "k_proj", "v_proj"}) for n in _FUSED_QKV},
    **{n: frozenset({"gate_proj", "up_proj"}) for n in ("gate_up_proj", "dense_h_to_4h", "c_fc", "fc1")},
    "dense": frozenset({"o_proj"}), "dense_4h_to_h": frozenset({"down_proj"}), "fc2": frozenset({"down_proj"}),
    "c_proj": frozenset({"o_proj", "down_proj"}), "w1": frozenset({"up_proj"}), "w2": frozenset({"gate_proj"}),
    "attn.c_proj": frozenset({"o_proj"}), "mlp.c_proj": frozenset({"down_proj"}),
}


def _module_name(name: str) -> str:
    """A target as its module's own name: PEFT matches the end of the module path, so ``self_attn.q_proj`` is
    ``q_proj``; ``attn.c_proj`` and ``mlp.c_proj`` keep their parent, which tells GPT-2's and Qwen (v1)'s attention
    output from their MLP's down projection."""
    if name in _OTHER_NAMES:
        return name
    if any(part.isdigit() for part in name.split(".")):
        return name  # one layer's module (model.layers.0.self_attn.q_proj): no preset adapts only that
    tail = name.rsplit(".", 2)
    return ".".join(tail[-2:]) if ".".join(tail[-2:]) in _OTHER_NAMES else tail[-1]
_MIXTRAL_NAMES = {"w1": frozenset({"gate_proj"}), "w2": frozenset({"down_proj"}), "w3": frozenset({"up_proj"})}
_MLA = {"q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj"}
_MLA_Q_V = (frozenset({"q_proj", "kv_b_proj"}), frozenset({"q_a_proj", "q_b_proj", "kv_b_proj"}))
_MLA_QKVO = (frozenset({"q_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"}),
             frozenset({"q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"}))


def _targets(b: _Builder, key: str, value: Any) -> None:
    """``lora_target``/``lora_target_modules``: ``all``, ``all-linear``, a comma list or a list of module names."""
    if isinstance(value, str):
        names = [n.strip() for n in value.split(",") if n.strip()]
    elif isinstance(value, list) and all(isinstance(n, str) for n in value):
        names = [n.strip() for n in value if n.strip()]
    else:
        raise TrainingConfigError("config.not_string", key=key, value=_shown(value))
    if not names:
        return
    if len(names) == 1 and names[0].lower() in {"all", "all-linear", "all_linear"}:
        b.take(key, value, "training.lora_targets", "all-linear")
        return
    wanted = {_LINEAR.get(_module_name(n), _module_name(n)) for n in names}
    fused_qkv = bool(wanted & _FUSED_QKV)
    # Mixtral's older expert names are w1 (gate), w2 (down), w3 (up) (transformers MixtralBlockSparseTop2MLP)
    other = {**_OTHER_NAMES, **_MIXTRAL_NAMES} if "w3" in wanted else _OTHER_NAMES
    wanted = set().union(*(other.get(n, {n}) for n in wanted))
    if wanted & _MLA and wanted <= _ATTN | _MLA | _MLP:
        _mla_targets(b, key, value, frozenset(wanted))
        return
    if not wanted <= _ATTN | _MLP:
        known = wanted & (_ATTN | _MLP)
        if not known or wanted & _MLA:
            b.unsupported(key, value, "config.unknown_value")
            return
        # the names the plan knows are planned as listed; the others (one layer's module, a module the plan has no
        # projection for) are said
        order = [*_ORDER_ATTN, *_ORDER_MLP]
        b.take(key, value, "training.lora_modules", tuple(n for n in order if n in known), code="config.modules_partly",
               unknown=", ".join(sorted(wanted - known)))
        return
    exact = {frozenset({"q_proj", "v_proj"}): "q_v", frozenset(_ATTN): "qkvo", frozenset(_ATTN | _MLP): "all-linear"}
    if fused_qkv:  # on a family with a fused q/k/v module (Phi-3, ChatGLM, GPT-NeoX...) q_v is that module alone
        exact[frozenset({"q_proj", "k_proj", "v_proj"})] = "q_v"
    if frozenset(wanted) in exact:
        b.take(key, value, "training.lora_targets", exact[frozenset(wanted)])
    else:
        # any other list is planned as listed (TrainingSetup.lora_modules), by the per-layer projections' names
        order = [*_ORDER_ATTN, *_ORDER_MLP]
        b.take(key, value, "training.lora_modules", tuple(n for n in order if n in wanted))


def _mla_targets(b: _Builder, key: str, value: Any, wanted: frozenset[str]) -> None:
    """Target lists naming multi-head latent attention's projections: exactly a preset (``_MLA_Q_V``,
    ``_MLA_QKVO``, either with every MLP projection for ``all-linear``), else the nearest preset that covers them."""
    attn, mlp = wanted - _MLP, wanted & _MLP
    if mlp:
        exact = mlp == _MLP and attn in _MLA_QKVO
        b.take(key, value, "training.lora_targets", "all-linear", code="config.taken" if exact else "config.approx")
    elif any(attn <= q_v for q_v in _MLA_Q_V):
        b.take(key, value, "training.lora_targets", "q_v", code="config.taken" if attn in _MLA_Q_V else "config.approx")
    else:
        b.take(key, value, "training.lora_targets", "qkvo",
               code="config.taken" if attn in _MLA_QKVO else "config.approx")


def _modules_to_save(b: _Builder, key: str, value: Any) -> None:
    names = value.split(",") if isinstance(value, str) else value
    if not isinstance(names, list):
        raise TrainingConfigError("config.not_string", key=key, value=_shown(value))
    names = {str(n).strip() for n in names if str(n).strip()}
    if names & {"embed_tokens", "lm_head", "wte", "embed_in", "embed_out"}:
        b.take(key, value, "training.trainable_embeddings", True)
    elif names:
        b.unsupported(key, value)


def _adapter_keys(b: _Builder, data: Mapping[str, Any], rank: str, alpha: str, dropout: str, targets: str,
                  to_save: str) -> set[str]:
    """A format's LoRA rank, alpha, dropout, target modules and modules to save, by its own key names; the keys."""
    for key, path, conv in ((rank, "training.lora_rank", _int), (alpha, "training.lora_alpha", _float),
                            (dropout, "training.lora_dropout", _float)):
        if data.get(key) is not None:
            b.take(key, data[key], path, conv(key, data[key]))
    if data.get(targets) is not None:
        _targets(b, targets, data[targets])
    if data.get(to_save) is not None:
        _modules_to_save(b, to_save, data[to_save])
    return {rank, alpha, dropout, targets, to_save}


def _optimizer(b: _Builder, key: str, value: Any) -> None:
    name = _str(key, value).lower()
    if name in _OPTIMIZERS:
        b.take(key, value, "training.optimizer", _OPTIMIZERS[name])
    else:
        b.unsupported(key, value, "config.unknown_value")


def _attention_impl(b: _Builder, key: str, value: Any) -> None:
    """transformers' ``attn_implementation`` (TRL ``ModelConfig``, ``model_init_kwargs``)."""
    name = _str(key, value).lower()
    table = {"flash_attention_2": "flash", "flash_attention_3": "flash", "kernels-community/flash-attn": "flash",
             "sdpa": "sdpa", "eager": "eager"}
    if name in table:
        b.take(key, value, "training.attention", table[name])
    else:
        b.unsupported(key, value, "config.unknown_value")


def _fsdp(b: _Builder, key: str, value: Any) -> None:
    """HF/axolotl ``fsdp``: ``"full_shard auto_wrap offload"`` or a list of those words."""
    if isinstance(value, str):
        words = value.replace(",", " ").split()
    elif isinstance(value, list) and all(isinstance(w, str) for w in value):
        words = [w for item in value for w in item.split()]
    elif value is False:
        return
    else:
        raise TrainingConfigError("config.not_string", key=key, value=_shown(value))
    words = [w.strip().lower() for w in words]
    if not words:
        return
    if "full_shard" in words or "hybrid_shard" in words:
        b.take(key, value, "training.sharding", "fsdp")
    elif "shard_grad_op" in words or "hybrid_shard_zero2" in words:
        b.take(key, value, "training.sharding", "zero2", code="config.approx")
    elif "no_shard" in words:
        b.take(key, value, "training.sharding", "ddp", code="config.approx")
    else:
        b.unsupported(key, value, "config.unknown_value")
        return
    if "offload" in words:
        b.take(key, value, "training.cpu_offload", True)


def _fsdp_config(b: _Builder, key: str, value: Any) -> None:
    """``fsdp_config``: offload, activation checkpointing, sharding strategy (``fsdp_`` prefix optional)."""
    if isinstance(value, str):  # HF: a path to a JSON file
        b.unsupported(key, value)
        return
    if not isinstance(value, Mapping):
        raise TrainingConfigError("config.not_string", key=key, value=_shown(value))
    for sub, v in value.items():
        name = str(sub).removeprefix("fsdp_")
        full = f"{key}.{sub}"
        if v is None:
            continue
        if name == "offload_params":
            b.take(full, v, "training.cpu_offload", _bool(full, v))
        elif name == "activation_checkpointing":
            b.take(full, v, "training.grad_checkpointing", _bool(full, v))
        elif name == "sharding_strategy":
            strategy = str(v).upper().replace("_", "")
            table = {"FULLSHARD": "fsdp", "1": "fsdp", "HYBRIDSHARD": "fsdp", "SHARDGRADOP": "zero2", "2": "zero2",
                     "NOSHARD": "ddp", "3": "ddp"}
            if strategy in table:
                b.take(full, v, "training.sharding", table[strategy],
                       code="config.taken" if table[strategy] == "fsdp" else "config.approx")
            else:
                b.unsupported(full, v, "config.unknown_value")
        elif name == "reshard_after_forward" and v is False:
            b.unsupported(full, v)
        else:
            b.ignore(full, v)


def _seq_mode(b: _Builder, key: str, value: Any, mode: str) -> None:
    b.take(key, value, "training.sequence_mode", mode)


def _precision(b: _Builder, data: Mapping[str, Any], bf16_key: str = "bf16", fp16_key: str = "fp16") -> str | None:
    """``bf16``/``fp16`` flags (``auto`` in axolotl: bf16 where the GPU has it); the precision taken, or None."""
    bf16, fp16 = data.get(bf16_key), data.get(fp16_key)
    if bf16 is not None and (_is_auto(bf16) or _bool(bf16_key, bf16)):
        b.take(bf16_key, bf16, "training.precision", "bf16")
        if fp16 is not None:
            b.ignore(fp16_key, fp16)
        return "bf16"
    if fp16 is not None and not _is_auto(fp16) and _bool(fp16_key, fp16):
        b.take(fp16_key, fp16, "training.precision", "fp16")
        if bf16 is not None:
            b.ignore(bf16_key, bf16)
        return "fp16"
    if bf16 is not None or fp16 is not None:
        b.items.append(ImportItem(status="taken", key=bf16_key if bf16 is not None else fp16_key,
                                  note=Note(code="config.fp32", params={"field": "training.precision",
                                                                       "setting": "fp32"}),
                                  fields=("training.precision",)))
        b.updates["training.precision"] = "fp32"
        b.updates["training.master_weights"] = "none"
        return "fp32"
    return None


def _framework(b: _Builder) -> None:
    b.updates["training.framework"] = "hf"
    b.items.append(ImportItem(status="taken", key="framework", fields=("training.framework",), note=Note(
        code="config.framework", params={"framework": FORMAT_NAMES[b.fmt], "field": "training.framework",
                                         "setting": "hf"})))


def _stack(b: _Builder, key: str) -> None:
    """The file's format names its training stack (``core/stacks.py``): ``training.stack`` and the stack's defaults
    for every field the file did not set, resolved against the plan the file describes."""
    from tuneplan.core.stacks import resolved_defaults

    name = FORMAT_NAMES[b.fmt]
    b.updates["training.stack"] = key
    b.items.append(ImportItem(status="taken", key="stack", fields=("training.stack",), note=Note(
        code="config.stack", params={"framework": name, "field": "training.stack", "setting": key})))
    values = {p.split(".", 1)[1]: v for p, v in b.updates.items() if p.startswith("training.")}
    try:
        setup = TrainingSetup.model_validate({**TrainingSetup().model_dump(), **values})
    except ValidationError:
        return  # an out-of-range value: _validate names it
    for field, d in resolved_defaults(key, setup).items():
        path = f"training.{field}"
        if path not in b.updates:
            b.updates[path] = d.value
            b.items.append(ImportItem(status="taken", key=field, fields=(path,), note=Note(
                code="config.stack_default", params={"framework": name, "field": path, "setting": d.value,
                                                     "source": d.source.text()})))


def _model_key(b: _Builder, key: str, value: Any) -> None:
    b.unsupported(key, value, "config.model_not_set")


def _leftover(b: _Builder, key: str, value: Any) -> None:
    if key in _IRRELEVANT or key.startswith(("wandb_", "hub_", "mlflow_", "comet_", "swanlab_", "eval_", "save_",
                                             "logging_", "push_to_hub", "report_")):
        b.ignore(key, value)
    else:
        b.ignore(key, value, code="config.unknown_key")


# ------------------------------------------------------------------------------------------ LLaMA-Factory


def _llamafactory(data: Mapping[str, Any]) -> ConfigImport:
    b = _Builder("llamafactory")
    g = data.get
    done: set[str] = set()

    def has(key: str) -> bool:
        return g(key) is not None

    kind = _str("finetuning_type", g("finetuning_type")).lower() if has("finetuning_type") else "lora"
    quant = _int("quantization_bit", g("quantization_bit")) if has("quantization_bit") else None
    done |= {"finetuning_type", "quantization_bit"}
    method: str | None = None
    if kind == "full":
        method = "full"
        b.take("finetuning_type", g("finetuning_type"), "training.method", "full")
    elif kind == "lora":
        method = "qlora" if quant in {4, 8} else "lora"
        if has("finetuning_type"):
            b.take("finetuning_type", g("finetuning_type"), "training.method", method)
        else:
            b.default("finetuning_type", "training.method", method)
    else:
        b.unsupported("finetuning_type", g("finetuning_type"), "config.unknown_value")
    if quant is not None:
        if quant in {4, 8} and method == "qlora":
            # model_args.py quantization_bit with quantization_method bnb: BitsAndBytesConfig(load_in_4bit / 8bit)
            b.take("quantization_bit", quant, "training.method", "qlora")
            b.take("quantization_bit", quant, "training.quant_bits", quant)
        elif quant in {4, 8}:
            b.ignore("quantization_bit", quant)  # full fine-tuning loads no quantised base
        else:
            b.unsupported("quantization_bit", quant, "config.unknown_value")
    quant_method = _str("quantization_method", g("quantization_method")).lower() if has("quantization_method") else ""
    if quant_method == "hqq" and method == "qlora":
        # model_utils/quantization.py (@ff6d4d1): HqqConfig(nbits=quantization_bit, quant_zero=False,
        # quant_scale=False, axis=0), group_size at HqqConfig's 64
        b.take("quantization_method", g("quantization_method"), "training.quant_method", "hqq")
    elif quant_method and quant_method not in {"bnb", "bitsandbytes"}:
        b.unsupported("quantization_method", g("quantization_method"))
    done.add("quantization_method")
    if has("double_quantization"):
        b.take("double_quantization", g("double_quantization"), "training.double_quant",
               _bool("double_quantization", g("double_quantization")))
    done.add("double_quantization")
    if method in {"lora", "qlora"}:
        rank = _int("lora_rank", g("lora_rank")) if has("lora_rank") else 8
        if has("lora_rank"):
            b.take("lora_rank", g("lora_rank"), "training.lora_rank", rank)
        else:
            b.default("lora_rank", "training.lora_rank", rank)
        if has("lora_alpha"):
            b.take("lora_alpha", g("lora_alpha"), "training.lora_alpha", _float("lora_alpha", g("lora_alpha")))
        else:
            b.default("lora_alpha", "training.lora_alpha", float(rank * 2))
        if has("lora_dropout"):
            b.take("lora_dropout", g("lora_dropout"), "training.lora_dropout", _float("lora_dropout", g("lora_dropout")))
        else:
            b.default("lora_dropout", "training.lora_dropout", 0.0)
        if has("lora_target"):
            _targets(b, "lora_target", g("lora_target"))
        else:
            b.default("lora_target", "training.lora_targets", "all-linear")
        if has("additional_target"):
            _modules_to_save(b, "additional_target", g("additional_target"))
        for key in ("use_dora", "use_rslora", "pissa_init", "use_galore", "use_badam", "use_apollo", "use_llama_pro"):
            if has(key) and _bool(key, g(key)):
                b.unsupported(key, g(key)) if key != "use_rslora" else b.ignore(key, g(key))
            done.add(key)
    done |= {"lora_rank", "lora_alpha", "lora_dropout", "lora_target", "additional_target"}
    precision = _precision(b, data)
    if has("pure_bf16") and _bool("pure_bf16", g("pure_bf16")):
        b.take("pure_bf16", g("pure_bf16"), "training.precision", "bf16")
        b.take("pure_bf16", g("pure_bf16"), "training.master_weights", "none")
    elif method == "full" and precision in {"bf16", "fp16"}:
        # model/adapter.py: trainable parameters are upcast to FP32 unless pure_bf16 (ZeRO-3/FSDP keep them in FP32)
        b.default("pure_bf16", "training.master_weights", "fp32")
    done |= {"bf16", "fp16", "pure_bf16"}
    _batch(b, data, "per_device_train_batch_size", "gradient_accumulation_steps")
    done |= {"per_device_train_batch_size", "gradient_accumulation_steps"}
    if has("cutoff_len"):
        b.take("cutoff_len", g("cutoff_len"), "training.seq_len", _int("cutoff_len", g("cutoff_len")))
    else:
        b.default("cutoff_len", "training.seq_len", 2048)
    stage = str(g("stage") or "sft").lower()
    if has("stage"):
        # the trained workload (examples/train_lora/llama3_lora_{sft,dpo,kto,reward}.yaml): dpo's pref_loss
        # sigmoid is DPO, orpo/simpo the reference-free losses (ORPO, SimPO); pt is continued pretraining (plain
        # text, packed into rows of cutoff_len by default); ppo is not planned here
        loss_value = g("pref_loss") if has("pref_loss") else "sigmoid"
        if not isinstance(loss_value, str):  # a list or a number: said, and read as the default loss
            b.unsupported("pref_loss", loss_value, "config.unknown_value")
            loss_value = "sigmoid"
        loss = loss_value.lower()
        table = {"sft": "sft", "pt": "pt", "kto": "kto", "rm": "reward",
                 "dpo": "orpo" if loss in {"orpo", "simpo"} else "dpo"}
        if stage in table:
            b.take("stage", g("stage"), "training.workload", table[stage])
        else:
            b.unsupported("stage", g("stage"), "config.unknown_value")
        if has("ref_model") and g("ref_model") and stage in {"dpo", "kto"}:
            # a reference model path: LLaMA-Factory's create_ref_model loads that model whole (trainer/utils.py)
            b.take("ref_model", g("ref_model"), "training.reference_model", "copy")
    done |= {"stage", "pref_loss", "ref_model"}
    packing = _bool("packing", g("packing")) if has("packing") else stage == "pt"
    neat = has("neat_packing") and _bool("neat_packing", g("neat_packing"))
    if neat:
        _seq_mode(b, "neat_packing", g("neat_packing"), "packed")
    elif has("packing"):
        _seq_mode(b, "packing", g("packing"), "packed" if packing else "dynamic")
    else:
        b.default("packing", "training.sequence_mode", "packed" if packing else "dynamic")
    done |= {"cutoff_len", "packing", "neat_packing"}
    if has("disable_gradient_checkpointing"):
        off = _bool("disable_gradient_checkpointing", g("disable_gradient_checkpointing"))
        b.take("disable_gradient_checkpointing", g("disable_gradient_checkpointing"), "training.grad_checkpointing",
               not off)
    else:
        b.default("disable_gradient_checkpointing", "training.grad_checkpointing", True)
    if has("use_unsloth_gc") and _bool("use_unsloth_gc", g("use_unsloth_gc")):
        b.take("use_unsloth_gc", g("use_unsloth_gc"), "training.activation_offload", True)
    done |= {"disable_gradient_checkpointing", "use_unsloth_gc"}
    flash = str(g("flash_attn") or "auto").lower()
    table = {"fa2": "flash", "fa3": "flash", "sdpa": "sdpa", "disabled": "eager", "auto": "sdpa"}
    if has("flash_attn") and flash in table:
        b.take("flash_attn", g("flash_attn"), "training.attention", table[flash],
               code="config.approx" if flash == "auto" else "config.taken")
    elif has("flash_attn"):
        b.unsupported("flash_attn", g("flash_attn"), "config.unknown_value")
    else:
        b.default("flash_attn", "training.attention", "sdpa")
    done.add("flash_attn")
    if has("enable_liger_kernel"):
        if _bool("enable_liger_kernel", g("enable_liger_kernel")):
            b.take("enable_liger_kernel", g("enable_liger_kernel"), "training.fused_cross_entropy", True)
        done.add("enable_liger_kernel")
    if has("use_unsloth") and _bool("use_unsloth", g("use_unsloth")):
        b.unsupported("use_unsloth", g("use_unsloth"))
    done.add("use_unsloth")
    _evaluation(b, data, done)  # before predict_with_generate, which applies only to an evaluation that runs
    _lf_generation(b, data, done)
    _common_hf(b, data, done)
    _framework(b)
    _stack(b, "llama-factory")
    return b.result()


#: LLaMA-Factory ``GeneratingArguments.max_new_tokens``'s default (``hparams/generating_args.py`` @ff6d4d1).
LF_MAX_NEW_TOKENS = 1024
#: LLaMA-Factory's sampling settings (``GeneratingArguments``): how tokens are drawn, not how many or how many rows.
_LF_SAMPLING = ("do_sample", "temperature", "top_p", "top_k", "repetition_penalty", "length_penalty",
                "skip_special_tokens", "default_system", "enable_thinking")


def _lf_generation(b: _Builder, data: Mapping[str, Any], done: set[str]) -> None:
    """LLaMA-Factory's ``predict_with_generate`` during training (``training.eval_generate_tokens``).

    With it the SFT workflow's ``CustomSeq2SeqTrainer.prediction_step`` pops the labels and generates
    ``max_new_tokens`` tokens per evaluation prompt (:data:`LF_MAX_NEW_TOKENS` by default; ``max_length`` counts the
    prompt too and is used only when ``max_new_tokens`` is not positive), ``num_beams`` beams (1 by default)
    (``train/sft/trainer.py``, ``hparams/generating_args.py`` @ff6d4d1); the evaluations during training generate
    transformers' default length instead (``core/generation.py`` ``DEFAULT_NEW_TOKENS``), the final one
    ``max_new_tokens``. It applies only to an evaluation that runs (``_evaluation`` set
    ``training.eval_micro_batch``); without evaluation data, or with ``compute_accuracy``, LLaMA-Factory refuses it
    (``hparams/parser.py``)."""
    g = data.get
    keys = ("predict_with_generate", "max_new_tokens", "max_length", "num_beams", *_LF_SAMPLING)
    on = g("predict_with_generate") is not None and _bool("predict_with_generate", g("predict_with_generate"))
    evaluating = b.updates.get("training.eval_micro_batch", 0) > 0
    split = g("val_size")
    # (a val_size left empty, as Tuneplan's export leaves it to fill, still says the run holds data out)
    has_data = bool(g("eval_dataset")) or ("val_size" in data and (split is None or _float("val_size", split) > 1e-6))
    if on and not has_data:  # hparams/parser.py raises before anything runs
        b.unsupported("predict_with_generate", g("predict_with_generate"), "config.lf_generate_no_data")
    elif on and evaluating:
        new = g("max_new_tokens")
        if new is None:
            b.take("predict_with_generate", g("predict_with_generate"), "training.eval_generate_tokens",
                   LF_MAX_NEW_TOKENS)
            b.default("max_new_tokens", "training.eval_generate_tokens", LF_MAX_NEW_TOKENS)
        elif _int("max_new_tokens", new) > 0:
            b.take("predict_with_generate", g("predict_with_generate"), "training.eval_generate_tokens",
                   _int("max_new_tokens", new))
            b.take("max_new_tokens", new, "training.eval_generate_tokens", _int("max_new_tokens", new))
        else:  # GeneratingArguments.to_dict: max_length (prompt included, 1024 by default) takes over
            length = _int("max_length", g("max_length")) if g("max_length") is not None else LF_MAX_NEW_TOKENS
            b.take("max_new_tokens", new, "training.eval_generate_tokens", max(length, 1), code="config.approx")
        beams = g("num_beams")
        if beams is not None and _int("num_beams", beams) > 1:
            b.unsupported("num_beams", beams, "config.beams_not_modelled")
            done.add("num_beams")
        accuracy = g("compute_accuracy")
        if accuracy is not None and _bool("compute_accuracy", accuracy):
            b.items = [i for i in b.items if i.key != "compute_accuracy"]  # (_evaluation's general line)
            b.unsupported("compute_accuracy", accuracy, "config.lf_generate_accuracy")
            done.add("compute_accuracy")
    elif on:
        b.ignore("predict_with_generate", g("predict_with_generate"), code="config.eval_off")
    for key in keys:
        if g(key) is not None and key not in done and not any(i.key == key for i in b.items):
            b.ignore(key, g(key))
    done.update(keys)


# ------------------------------------------------------------------------------------------ axolotl


def _axolotl(data: Mapping[str, Any]) -> ConfigImport:
    b = _Builder("axolotl")
    g = data.get
    done: set[str] = set()

    def has(key: str) -> bool:
        return g(key) is not None

    adapter = _str("adapter", g("adapter")).lower() if has("adapter") else ""
    four = has("load_in_4bit") and _bool("load_in_4bit", g("load_in_4bit"))
    eight = has("load_in_8bit") and _bool("load_in_8bit", g("load_in_8bit"))
    method: str | None
    if adapter == "qlora" or (adapter == "lora" and four):
        method = "qlora"
        b.take("adapter", g("adapter"), "training.method", "qlora")
        b.take("load_in_4bit" if four else "adapter", g("load_in_4bit") if four else g("adapter"),
               "training.quant_bits", 4)
    elif adapter == "lora" and eight:
        # axolotl's LoRA examples with load_in_8bit: bitsandbytes LLM.int8 base (loaders/model.py BitsAndBytesConfig)
        method = "qlora"
        b.take("adapter", g("adapter"), "training.method", "qlora")
        b.take("load_in_8bit", g("load_in_8bit"), "training.quant_bits", 8)
    elif adapter == "lora":
        method = "lora"
        b.take("adapter", g("adapter"), "training.method", "lora")
    elif not adapter:
        method = "full"
        b.default("adapter", "training.method", "full")
    else:
        method = None
        b.unsupported("adapter", g("adapter"), "config.unknown_value")
    for key in ("load_in_4bit", "load_in_8bit"):
        if has(key) and key not in {i.key for i in b.items}:
            b.ignore(key, g(key))
    done |= {"adapter", "load_in_4bit", "load_in_8bit"}
    if method in {"lora", "qlora"}:
        for key, path, conv in (("lora_r", "training.lora_rank", _int), ("lora_alpha", "training.lora_alpha", _float),
                                ("lora_dropout", "training.lora_dropout", _float)):
            if has(key):
                b.take(key, g(key), path, conv(key, g(key)))
        if has("lora_target_linear") and _bool("lora_target_linear", g("lora_target_linear")):
            b.take("lora_target_linear", g("lora_target_linear"), "training.lora_targets", "all-linear")
        elif has("lora_target_modules"):
            _targets(b, "lora_target_modules", g("lora_target_modules"))
        if has("lora_modules_to_save"):
            _modules_to_save(b, "lora_modules_to_save", g("lora_modules_to_save"))
        if has("peft_use_dora") and _bool("peft_use_dora", g("peft_use_dora")):
            b.unsupported("peft_use_dora", g("peft_use_dora"))
    done |= {"lora_r", "lora_alpha", "lora_dropout", "lora_target_linear", "lora_target_modules",
             "lora_modules_to_save", "peft_use_dora"}
    _precision(b, data)
    if method == "full" and has("bf16"):
        # axolotl loads the model in the training dtype (torch_dtype from bf16/fp16): no FP32 master copy
        b.default("bf16", "training.master_weights", "none")
    done |= {"bf16", "fp16", "bfloat16", "float16"}
    micro = _int("micro_batch_size", g("micro_batch_size")) if has("micro_batch_size") else None
    if micro is not None:
        b.take("micro_batch_size", g("micro_batch_size"), "training.micro_batch", micro)
    if has("gradient_accumulation_steps"):
        b.take("gradient_accumulation_steps", g("gradient_accumulation_steps"), "training.grad_accumulation",
               _int("gradient_accumulation_steps", g("gradient_accumulation_steps")))
    elif has("batch_size"):
        total = _int("batch_size", g("batch_size"))
        b.take("batch_size", g("batch_size"), "training.grad_accumulation", max(1, total // (micro or 1)))
    done |= {"micro_batch_size", "gradient_accumulation_steps", "batch_size"}
    if has("sequence_len"):
        b.take("sequence_len", g("sequence_len"), "training.seq_len", _int("sequence_len", g("sequence_len")))
    else:
        b.default("sequence_len", "training.seq_len", 2048)
    if has("sample_packing") and _bool("sample_packing", g("sample_packing")):
        _seq_mode(b, "sample_packing", g("sample_packing"), "packed")
        if has("pad_to_sequence_len"):
            b.ignore("pad_to_sequence_len", g("pad_to_sequence_len"))
    elif has("pad_to_sequence_len") and _bool("pad_to_sequence_len", g("pad_to_sequence_len")):
        _seq_mode(b, "pad_to_sequence_len", g("pad_to_sequence_len"), "fixed")
        if has("sample_packing"):
            b.ignore("sample_packing", g("sample_packing"))
    else:
        b.default("sample_packing", "training.sequence_mode", "dynamic")
    done |= {"sequence_len", "sample_packing", "pad_to_sequence_len"}
    gc = g("gradient_checkpointing")
    if gc is None:
        b.default("gradient_checkpointing", "training.grad_checkpointing", False)
    elif isinstance(gc, str) and gc.strip().lower() in {"offload", "offload_disk", "unsloth"}:
        b.take("gradient_checkpointing", gc, "training.grad_checkpointing", True)
        b.take("gradient_checkpointing", gc, "training.activation_offload", True)
    else:
        b.take("gradient_checkpointing", gc, "training.grad_checkpointing", _bool("gradient_checkpointing", gc))
    if has("activation_offloading"):
        value = g("activation_offloading")
        on = True if isinstance(value, str) and value.strip().lower() in {"legacy", "disk"} else \
            _bool("activation_offloading", value)
        b.take("activation_offloading", value, "training.activation_offload", on)
    done |= {"gradient_checkpointing", "activation_offloading"}
    attention = None
    for key, kind in (("flash_attention", "flash"), ("sdp_attention", "sdpa"), ("flex_attention", "sdpa"),
                      ("eager_attention", "eager")):
        if has(key) and _bool(key, g(key)):
            if attention is None:
                attention = kind
                b.take(key, g(key), "training.attention", kind, code="config.approx" if key == "flex_attention"
                       else "config.taken")
            else:
                b.ignore(key, g(key))
        elif has(key):
            b.ignore(key, g(key))
        done.add(key)
    if has("attn_implementation"):
        _attention_impl(b, "attn_implementation", g("attn_implementation"))
        attention = attention or "set"
    done.add("attn_implementation")
    if attention is None:
        b.default("flash_attention", "training.attention", "sdpa")
    if has("optimizer"):
        _optimizer(b, "optimizer", g("optimizer"))
    done.add("optimizer")
    plugins = g("plugins") or []
    if not isinstance(plugins, list):
        raise TrainingConfigError("config.not_string", key="plugins", value=_shown(plugins))
    done.add("plugins")
    plugin_text = " ".join(str(p).lower() for p in plugins)
    fused = False
    if "cut_cross_entropy" in plugin_text and (not has("cut_cross_entropy") or _bool("cut_cross_entropy",
                                                                                     g("cut_cross_entropy"))):
        fused = True
        b.take("plugins", plugins, "training.fused_cross_entropy", True)
    done.add("cut_cross_entropy")
    for key in ("liger_fused_linear_cross_entropy", "liger_cross_entropy"):
        if has(key) and _bool(key, g(key)) and "liger" in plugin_text and not fused:
            fused = True
            b.take(key, g(key), "training.fused_cross_entropy", True)
        elif has(key):
            b.ignore(key, g(key))
        done.add(key)
    for key in ("liger_rope", "liger_rms_norm", "liger_glu_activation", "liger_layer_norm"):
        if has(key):
            (b.unsupported if _bool(key, g(key)) else b.ignore)(key, g(key))
        done.add(key)
    if plugins and not fused:
        b.ignore("plugins", plugins)
    if has("torch_compile"):
        value = g("torch_compile")
        b.take("torch_compile", value, "training.torch_compile", True if _is_auto(value) else
               _bool("torch_compile", value))
    done.add("torch_compile")
    if has("fsdp"):
        _fsdp(b, "fsdp", g("fsdp"))
    if has("fsdp_config"):
        _fsdp_config(b, "fsdp_config", g("fsdp_config"))
    if has("fsdp_version") and has("fsdp_config") and "training.sharding" not in b.updates:
        # FSDP2 as docs/multi-gpu.qmd configures it (`fsdp` is deprecated): fsdp_version + fsdp_config, which shards
        # fully unless reshard_after_forward is false (reported by _fsdp_config)
        b.take("fsdp_version", g("fsdp_version"), "training.sharding", "fsdp")
    done |= {"fsdp", "fsdp_config", "fsdp_version"}
    if has("num_epochs"):
        b.take("num_epochs", g("num_epochs"), "dataset.epochs", _float("num_epochs", g("num_epochs")))
    done.add("num_epochs")
    sets = g("datasets")
    if has("pretraining_dataset"):  # axolotl's streamed pretraining data: continued pretraining
        b.take("pretraining_dataset", g("pretraining_dataset"), "training.workload", "pt")
        done.add("pretraining_dataset")
    elif isinstance(sets, list) and sets and all(isinstance(d, Mapping) and d.get("type") == "completion"
                                                 for d in sets):
        # the completion prompt strategy (prompt_strategies/completion.py): plain text, the loss on every token
        b.take("datasets", "type: completion", "training.workload", "pt")
        done.add("datasets")
    _common_hf(b, data, done)
    _framework(b)
    _stack(b, "axolotl")
    return b.result()


# ------------------------------------------------------------------------------------------ HF / TRL


def _batch(b: _Builder, data: Mapping[str, Any], micro_key: str, accum_key: str) -> None:
    for key, path in ((micro_key, "training.micro_batch"), (accum_key, "training.grad_accumulation")):
        value = data.get(key)
        if value is None:
            continue
        if _is_auto(value):
            b.auto(key)
        else:
            b.take(key, value, path, _int(key, value))


#: ``TrainingArguments.per_device_eval_batch_size``'s default (transformers ``training_args.py``).
HF_EVAL_BATCH = 8
_EVAL_KEYS = ("eval_strategy", "evaluation_strategy", "per_device_eval_batch_size", "eval_batch_size", "val_size",
              "val_set_size", "eval_dataset", "test_datasets", "do_eval")


def _evaluation(b: _Builder, data: Mapping[str, Any], done: set[str]) -> None:
    """Whether the trainer evaluates during training, and at how many rows per GPU (``training.eval_micro_batch``).

    HF ``Trainer`` (and TRL, LLaMA-Factory, which pass these to it) evaluates when ``eval_strategy`` (formerly
    ``evaluation_strategy``) is ``steps`` or ``epoch`` (default ``no``), at ``per_device_eval_batch_size`` rows
    (:data:`HF_EVAL_BATCH` by default); LLaMA-Factory also needs evaluation data (``val_size`` > 0 or
    ``eval_dataset``). axolotl evaluates when it has evaluation data (``val_set_size`` > 0 or ``test_datasets``) and
    ``eval_strategy`` is not ``no``, at ``eval_batch_size`` rows, which ``normalize_config`` sets to
    ``micro_batch_size`` when unset (axolotl ``utils/config/__init__.py``)."""
    g = data.get
    if any(k in done for k in _EVAL_KEYS):
        return
    strategy_key = "eval_strategy" if g("eval_strategy") is not None else "evaluation_strategy"
    strategy = g(strategy_key)
    # HF IntervalStrategy values; YAML reads an unquoted no as false
    strategy_text = "no" if strategy is False else (strategy.strip().lower() if isinstance(strategy, str) else "")
    bad_strategy = strategy is not None and strategy_text not in {"no", "steps", "epoch"}
    split_key = "val_set_size" if b.fmt == "axolotl" else "val_size"
    size = g(split_key)
    # a held-out share left empty (``val_size:`` with no value, as Tuneplan's export leaves it to fill) still
    # says the run evaluates
    has_split = split_key in data and (size is None or _float(split_key, size) > 0)
    if b.fmt == "axolotl":
        on = (bool(g("test_datasets")) or has_split) and strategy_text != "no" and not bad_strategy
        rows_key, default_rows = "eval_batch_size", b.updates.get("training.micro_batch", 1)
    else:
        on = strategy_text in {"steps", "epoch"}
        if on and b.fmt == "llamafactory":
            on = bool(g("eval_dataset")) or has_split
        rows_key, default_rows = "per_device_eval_batch_size", HF_EVAL_BATCH
    used: set[str] = set()
    if on:
        rows = _int(rows_key, g(rows_key)) if g(rows_key) is not None else default_rows
        if g(rows_key) is not None:
            b.take(rows_key, g(rows_key), "training.eval_micro_batch", rows)
        else:
            b.default(rows_key, "training.eval_micro_batch", rows)
        for key in (strategy_key, "eval_dataset", "test_datasets"):
            if g(key) is not None:  # what decided that the run evaluates
                b.take(key, g(key), "training.eval_micro_batch", rows)
                used.add(key)
        if size is not None and 0 < _float(split_key, size) < 1:  # the held-out share of the examples
            b.take(split_key, size, "dataset.eval_fraction", _float(split_key, size))
            used.add(split_key)
        elif split_key in data:
            used.add(split_key)
            if size is not None:  # a count of examples, not a share
                b.unsupported(split_key, size)
    if bad_strategy:
        b.unsupported(strategy_key, strategy, "config.unknown_value")
        used.add(strategy_key)
    elif not on and g(rows_key) is not None:
        b.ignore(rows_key, g(rows_key), code="config.eval_off")
    if g("compute_accuracy") is not None and _bool("compute_accuracy", g("compute_accuracy")) and on:
        # LLaMA-Factory's compute_accuracy keeps every evaluation step's logits (prediction_loss_only off)
        b.unsupported("compute_accuracy", g("compute_accuracy"))
        done.add("compute_accuracy")
    for key in _EVAL_KEYS:
        if g(key) is not None and key != rows_key and key not in used:
            b.ignore(key, g(key))
    done.update(_EVAL_KEYS)


def _common_hf(b: _Builder, data: Mapping[str, Any], done: set[str]) -> None:
    """The keys HF TrainingArguments / TRL share with LLaMA-Factory and axolotl, then every key left over."""
    g = data.get
    _evaluation(b, data, done)
    if "predict_with_generate" not in done and g("predict_with_generate") is not None:
        # HF Seq2SeqTrainer generates up to generation_max_length tokens in all (prompt included): not a count
        # of new tokens the plan can take (LLaMA-Factory's own keys are read by _lf_generation)
        if _bool("predict_with_generate", g("predict_with_generate")):
            b.unsupported("predict_with_generate", g("predict_with_generate"))
        else:
            b.ignore("predict_with_generate", g("predict_with_generate"))
        done.add("predict_with_generate")
    if g("optim") is not None and "optim" not in done:
        _optimizer(b, "optim", g("optim"))
    elif g("adafactor") is True and "optim" not in done:
        b.take("adafactor", True, "training.optimizer", "adafactor")
    done |= {"optim", "adafactor"}
    if g("use_liger_kernel") is not None and "use_liger_kernel" not in done:
        if _bool("use_liger_kernel", g("use_liger_kernel")):
            b.take("use_liger_kernel", g("use_liger_kernel"), "training.fused_cross_entropy", True)
        else:
            b.ignore("use_liger_kernel", g("use_liger_kernel"))
    done.add("use_liger_kernel")
    if g("torch_empty_cache_steps") is not None and "torch_empty_cache_steps" not in done:
        b.take("torch_empty_cache_steps", g("torch_empty_cache_steps"), "training.empty_cache_steps",
               _int("torch_empty_cache_steps", g("torch_empty_cache_steps")))
    done.add("torch_empty_cache_steps")
    if g("torch_compile") is not None and "torch_compile" not in done:
        b.take("torch_compile", g("torch_compile"), "training.torch_compile", _bool("torch_compile", g("torch_compile")))
    done.add("torch_compile")
    if g("fsdp") is not None and "fsdp" not in done:
        _fsdp(b, "fsdp", g("fsdp"))
    if g("fsdp_config") is not None and "fsdp_config" not in done and (
            "training.sharding" in b.updates or not isinstance(g("fsdp_config"), Mapping)):
        _fsdp_config(b, "fsdp_config", g("fsdp_config"))
    elif g("fsdp_config") is not None and "fsdp_config" not in done:
        b.ignore("fsdp_config", g("fsdp_config"))  # TrainingArguments dumps it even without FSDP
    done |= {"fsdp", "fsdp_config"}
    ds = g("deepspeed")
    if ds is not None and "deepspeed" not in done:
        if isinstance(ds, Mapping):
            inner = _deepspeed(ds, prefix="deepspeed.")
            b.updates.update(inner.updates)
            b.items.extend(inner.items)
        elif isinstance(ds, str) and ds.strip():
            b.ignore("deepspeed", ds, code="config.deepspeed_file")
    done.add("deepspeed")
    if g("num_train_epochs") is not None and "num_train_epochs" not in done:
        b.take("num_train_epochs", g("num_train_epochs"), "dataset.epochs",
               _float("num_train_epochs", g("num_train_epochs")))
    done.add("num_train_epochs")
    if g("max_steps") is not None and "max_steps" not in done:
        steps = g("max_steps")
        if not (isinstance(steps, int) and not isinstance(steps, bool) and steps <= 0):
            b.unsupported("max_steps", steps)
    done.add("max_steps")
    for key in ("model_name_or_path", "base_model", "model_id"):
        if g(key) is not None and key not in done:
            _model_key(b, key, g(key))
        done.add(key)
    if "training.sharding" in b.updates and b.fmt != "deepspeed":
        b.items.append(ImportItem(status="unsupported", key="num_gpus", note=Note(code="config.no_gpu_count")))
    for key, value in data.items():
        if key in done or value is None:
            continue
        _leftover(b, str(key), value)


def _hf(data: Mapping[str, Any]) -> ConfigImport:
    """HF ``TrainingArguments`` (``to_json_string()``/``to_dict()``) and TRL ``SFTConfig``/``ModelConfig`` (YAML)."""
    b = _Builder("hf")
    g = data.get
    done: set[str] = set()

    def has(key: str) -> bool:
        return g(key) is not None

    four = has("load_in_4bit") and _bool("load_in_4bit", g("load_in_4bit"))
    eight = has("load_in_8bit") and _bool("load_in_8bit", g("load_in_8bit"))
    if has("use_peft"):
        if _bool("use_peft", g("use_peft")):
            b.take("use_peft", g("use_peft"), "training.method", "qlora" if four or eight else "lora")
            if four or eight:  # TRL ModelConfig load_in_4bit / load_in_8bit: get_quantization_config
                key = "load_in_4bit" if four else "load_in_8bit"
                b.take(key, g(key), "training.quant_bits", 4 if four else 8)
        else:
            b.take("use_peft", g("use_peft"), "training.method", "full")
    done |= {"use_peft", "load_in_4bit", "load_in_8bit"}
    if "training.method" in b.updates and b.updates["training.method"] != "full":
        done |= _adapter_keys(b, data, "lora_r", "lora_alpha", "lora_dropout", "lora_target_modules",
                              "lora_modules_to_save")
    if has("use_bnb_nested_quant"):
        b.take("use_bnb_nested_quant", g("use_bnb_nested_quant"), "training.double_quant",
               _bool("use_bnb_nested_quant", g("use_bnb_nested_quant")))
    done.add("use_bnb_nested_quant")
    precision = _precision(b, data)
    done |= {"bf16", "fp16"}
    kwargs = g("model_init_kwargs") if isinstance(g("model_init_kwargs"), Mapping) else {}
    dtype_key = next((k for k in ("torch_dtype", "dtype") if g(k) is not None), None)
    dtype = g(dtype_key) if dtype_key else next((kwargs.get(k) for k in ("torch_dtype", "dtype") if kwargs.get(k)), None)
    dtype_name = f"model_init_kwargs.{'torch_dtype' if 'torch_dtype' in kwargs else 'dtype'}" if not dtype_key \
        else dtype_key
    if dtype is not None and precision in {"bf16", "fp16"}:
        text = _str(dtype_name, dtype).lower()
        if text in {"float32", "torch.float32", "fp32"}:
            b.take(dtype_name, dtype, "training.master_weights", "fp32", code="config.master_weights")
        elif text in {"bfloat16", "float16", "torch.bfloat16", "torch.float16", "auto"}:
            b.take(dtype_name, dtype, "training.master_weights", "none")
    elif dtype is not None:
        b.ignore(dtype_name, dtype)
    done |= {"torch_dtype", "dtype"}
    attn = g("attn_implementation") or kwargs.get("attn_implementation")
    if attn is not None:
        _attention_impl(b, "attn_implementation" if has("attn_implementation")
                        else "model_init_kwargs.attn_implementation", attn)
    done |= {"attn_implementation", "model_init_kwargs"}
    if isinstance(g("model_init_kwargs"), Mapping):
        for k, v in kwargs.items():
            if k not in {"torch_dtype", "dtype", "attn_implementation"} and v is not None:
                b.ignore(f"model_init_kwargs.{k}", v)
    _batch(b, data, "per_device_train_batch_size", "gradient_accumulation_steps")
    done |= {"per_device_train_batch_size", "gradient_accumulation_steps", "train_batch_size"}
    if has("gradient_checkpointing"):
        b.take("gradient_checkpointing", g("gradient_checkpointing"), "training.grad_checkpointing",
               _bool("gradient_checkpointing", g("gradient_checkpointing")))
    done.add("gradient_checkpointing")
    length_key = next((k for k in ("max_length", "max_seq_length") if has(k)), None)
    if length_key:
        b.take(length_key, g(length_key), "training.seq_len", _int(length_key, g(length_key)))
    done |= {"max_length", "max_seq_length"}
    trl = length_key is not None or has("packing") or has("dataset_text_field")
    if has("packing") and _bool("packing", g("packing")):
        _seq_mode(b, "packing", g("packing"), "packed")
    elif has("padding_free") and _bool("padding_free", g("padding_free")):
        b.take("padding_free", g("padding_free"), "training.sequence_mode", "padding-free")
    elif length_key and has("pad_to_multiple_of") and _int("pad_to_multiple_of", g("pad_to_multiple_of")) >= \
            _int(length_key, g(length_key)):
        # every batch padded up to a multiple of pad_to_multiple_of, which no truncated sequence exceeds: one fixed
        # length, pad_to_multiple_of itself (attack review: 4096 with max_length 2048 pads every row to 4096)
        b.take("pad_to_multiple_of", g("pad_to_multiple_of"), "training.sequence_mode", "fixed")
        pad = _int("pad_to_multiple_of", g("pad_to_multiple_of"))
        if pad > _int(length_key, g(length_key)):
            b.take("pad_to_multiple_of", g("pad_to_multiple_of"), "training.seq_len", pad)
    elif trl:
        key = "packing" if has("packing") else (length_key or "packing")
        _seq_mode(b, key, g(key), "dynamic") if has("packing") else b.default("packing", "training.sequence_mode",
                                                                               "dynamic")
    if has("pad_to_multiple_of") and "pad_to_multiple_of" not in {i.key for i in b.items}:
        b.ignore("pad_to_multiple_of", g("pad_to_multiple_of"))  # a few tokens of padding, not the fixed length
    done |= {"packing", "padding_free", "pad_to_multiple_of"}
    if has("loss_type"):
        # SFTConfig.loss_type: chunked_nll (the default when unset) computes the LM head and the loss in chunks
        kind = _str("loss_type", g("loss_type")).lower()
        if kind in {"chunked_nll", "nll", "dft"}:
            b.take("loss_type", g("loss_type"), "training.fused_cross_entropy", kind == "chunked_nll")
        else:
            b.unsupported("loss_type", g("loss_type"), "config.unknown_value")
    done.add("loss_type")
    if has("activation_offloading"):
        b.take("activation_offloading", g("activation_offloading"), "training.activation_offload",
               _bool("activation_offloading", g("activation_offloading")))
    done.add("activation_offloading")
    _common_hf(b, data, done)
    _framework(b)
    return b.result()


# ------------------------------------------------------------------------------------------ DeepSpeed


#: ``zero_optimization`` buffer sizes the plan holds (``TrainingSetup.deepspeed_*``, elements), by their DeepSpeed key
#: and its alias without the ``stage3_`` prefix (deepspeed/runtime/zero/config.py: ``prefetch_bucket_size`` has the
#: alias ``stage3_prefetch_bucket_size``, ``max_reuse_distance`` ``stage3_max_reuse_distance``).
DEEPSPEED_SIZE_FIELDS: dict[str, str] = {
    "reduce_bucket_size": "training.deepspeed_reduce_bucket",
    "stage3_prefetch_bucket_size": "training.deepspeed_prefetch_bucket",
    "prefetch_bucket_size": "training.deepspeed_prefetch_bucket",
    "sub_group_size": "training.deepspeed_sub_group",
    "stage3_max_reuse_distance": "training.deepspeed_max_reuse_distance",
    "max_reuse_distance": "training.deepspeed_max_reuse_distance",
}
#: Keys Hugging Face fills from the hidden size when they are "auto" (transformers integrations/deepspeed.py
#: ``trainer_config_finalize``): the plan's ``deepspeed_auto_buckets``.
DEEPSPEED_HF_AUTO_KEYS = frozenset({"reduce_bucket_size", "stage3_prefetch_bucket_size",
                                    "stage3_param_persistence_threshold"})
#: ``zero_optimization`` settings whose DeepSpeed default the memory estimate counts and the plan cannot change
#: (``contiguous_gradients`` True, deepspeed/runtime/zero/config.py; see core.memory).
DEEPSPEED_COUNTED_DEFAULTS: dict[str, Any] = {
    "contiguous_gradients": True,
}


def _enabled(section: Any) -> Any:
    return section.get("enabled") if isinstance(section, Mapping) else section


def _deepspeed(data: Mapping[str, Any], prefix: str = "") -> ConfigImport:
    b = _Builder("deepspeed")
    done: set[str] = set()
    g = data.get
    zero = g("zero_optimization")
    if zero is not None and not isinstance(zero, Mapping):
        raise TrainingConfigError("config.not_mapping")
    zero = zero or {}
    stage_value = zero.get("stage")
    stage = None
    if stage_value is not None:
        key = f"{prefix}zero_optimization.stage"
        if _is_auto(stage_value):
            b.auto(key)
        else:
            stage = _int(key, stage_value)
            table = {0: "ddp", 1: "zero1", 2: "zero2", 3: "zero3"}
            if stage in table:
                b.take(key, stage_value, "training.sharding", table[stage])
            else:
                b.unsupported(key, stage_value, "config.unknown_value")

    def device(name: str) -> tuple[str, str]:
        section = zero.get(name)
        key = f"{prefix}zero_optimization.{name}.device"
        if isinstance(section, Mapping):
            value = section.get("device")
            return key, (str(value).lower() if value is not None else "none")
        return key, "none"

    (okey, odev), (pkey, pdev) = device("offload_optimizer"), device("offload_param")
    if pdev in {"cpu", "nvme"} and stage == 3:
        b.take(pkey, pdev, "training.cpu_offload", True, code="config.taken" if pdev == "cpu" else "config.approx")
        if odev in {"cpu", "nvme"}:
            b.take(okey, odev, "training.cpu_offload", True)
        elif odev != "none":
            b.unsupported(okey, odev, "config.unknown_value")
    elif odev in {"cpu", "nvme"} and stage in {1, 2}:
        # ZeRO-1/2: the plan's CPU offload is DeepSpeed's offload_optimizer (fp32 master and states on the CPU)
        b.take(okey, odev, "training.cpu_offload", True, code="config.taken" if odev == "cpu" else "config.approx")
        if pdev != "none":
            b.ignore(pkey, pdev)  # offload_param applies to ZeRO-3 only
    elif odev in {"cpu", "nvme"}:
        b.unsupported(okey, odev, "config.optimizer_offload_only")
        if pdev != "none":
            b.unsupported(pkey, pdev)
    elif pdev not in {"none"} or odev not in {"none"}:
        if pdev != "none":
            b.unsupported(pkey, pdev, "config.unknown_value")
        if odev != "none":
            b.unsupported(okey, odev, "config.unknown_value")
    elif zero.get("offload_optimizer") is not None or zero.get("offload_param") is not None:
        b.take(okey, "none", "training.cpu_offload", False)
    hf_auto: set[str] = set()
    for sub, value in zero.items():
        if sub in {"stage", "offload_optimizer", "offload_param"} or value is None:
            continue
        key = f"{prefix}zero_optimization.{sub}"
        if _is_auto(value) and sub in {"reduce_bucket_size", "stage3_prefetch_bucket_size"}:
            # Hugging Face's integration fills it from the model's hidden size (reduce h^2, prefetch 0.9 h^2);
            # it fills only the keys that say "auto" (fill_only), so the other bucket keeps its own size (below)
            b.take(key, value, "training.deepspeed_auto_buckets", True)
            hf_auto.add(sub)
        elif sub in DEEPSPEED_SIZE_FIELDS and not _is_auto(value):
            b.take(key, value, DEEPSPEED_SIZE_FIELDS[sub], _float(key, value))
        elif sub in {"stage3_param_persistence_threshold", "param_persistence_threshold"}:
            b.ignore(key, value)  # parameters under it stay gathered: norms and biases, a few MB (core.memory)
        elif sub in DEEPSPEED_COUNTED_DEFAULTS:
            # a setting the memory estimate counts at DeepSpeed's own default (core.memory)
            default = DEEPSPEED_COUNTED_DEFAULTS[sub]
            if not _is_auto(value) and not isinstance(value, str) and value == default:
                b.ignore(key, value, code="config.deepspeed_as_planned")
            else:
                b.items.append(ImportItem(status="unsupported", key=key, note=Note(
                    code="config.deepspeed_default_counted",
                    params={"key": key, "value": _shown(value), "default": _shown(default)})))
        else:
            b.ignore(key, value)
    if hf_auto:
        # one flag holds Hugging Face's fill for both buckets: the one the file does not leave "auto" keeps
        # DeepSpeed's default unless the file sizes it
        for sub, path, default in (("reduce_bucket_size", "training.deepspeed_reduce_bucket", 500_000_000.0),
                                   ("stage3_prefetch_bucket_size", "training.deepspeed_prefetch_bucket", 50_000_000.0)):
            if sub not in hf_auto and path not in b.updates:
                b.default(f"{prefix}zero_optimization.{sub}", path, default)
    done.add("zero_optimization")
    bf16, fp16 = _enabled(g("bf16")), _enabled(g("fp16"))
    if g("bf16") is None and g("bfloat16") is not None:
        bf16 = _enabled(g("bfloat16"))
    bkey, fkey = f"{prefix}bf16.enabled", f"{prefix}fp16.enabled"
    mixed = False
    if bf16 is not None and _is_auto(bf16):
        b.auto(bkey)
        mixed = True
    elif bf16 is not None and _bool(bkey, bf16):
        b.take(bkey, bf16, "training.precision", "bf16")
        mixed = True
    if fp16 is not None and _is_auto(fp16):
        b.auto(fkey)
        mixed = True
    elif fp16 is not None and _bool(fkey, fp16) and "training.precision" not in b.updates:
        b.take(fkey, fp16, "training.precision", "fp16")
        mixed = True
    if bf16 is not None and fp16 is not None and not mixed:
        b.take(bkey, bf16, "training.precision", "fp32", code="config.fp32")
        b.updates["training.master_weights"] = "none"
    if mixed:
        # DeepSpeed's mixed precision keeps FP32 master weights (and FP32 optimizer states) for what it trains
        b.take(bkey if bf16 is not None else fkey, bf16 if bf16 is not None else fp16, "training.master_weights",
               "fp32", code="config.master_weights")
    if isinstance(g("fp16"), Mapping):
        for sub, value in g("fp16").items():
            if sub != "enabled":
                b.ignore(f"{prefix}fp16.{sub}", value)
    done |= {"bf16", "fp16", "bfloat16"}
    _batch(b, data, "train_micro_batch_size_per_gpu", "gradient_accumulation_steps")
    total = g("train_batch_size")
    micro, accum = g("train_micro_batch_size_per_gpu"), g("gradient_accumulation_steps")
    if total is not None:
        if _is_auto(total):
            b.auto(f"{prefix}train_batch_size")
        else:
            total_n = _int(f"{prefix}train_batch_size", total)
            if micro is not None and accum is not None and not _is_auto(micro) and not _is_auto(accum):
                per = _int("train_micro_batch_size_per_gpu", micro) * _int("gradient_accumulation_steps", accum)
                if per > 0 and total_n % per == 0 and total_n // per >= 1:
                    b.take(f"{prefix}train_batch_size", total, "training.num_gpus", total_n // per,
                           code="config.gpus_from_batch")
                else:
                    b.unsupported(f"{prefix}train_batch_size", total)
            else:
                b.ignore(f"{prefix}train_batch_size", total)
    done |= {"train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "train_batch_size"}
    opt = g("optimizer")
    if isinstance(opt, Mapping) and opt.get("type") is not None:
        kind = str(opt.get("type")).lower()
        table = {"adamw": "adamw-fused", "adam": "adamw-fused", "fusedadam": "adamw-fused", "cpuadam": "adamw",
                 "deepspeedcpuadam": "adamw", "sgd": "sgd"}
        if kind in table:
            b.take(f"{prefix}optimizer.type", opt.get("type"), "training.optimizer", table[kind])
        else:
            b.unsupported(f"{prefix}optimizer.type", opt.get("type"), "config.unknown_value")
    elif opt is not None:
        b.ignore(f"{prefix}optimizer", opt)
    done.add("optimizer")
    ac = g("activation_checkpointing")
    if isinstance(ac, Mapping):
        if ac.get("cpu_checkpointing") is not None and _bool("activation_checkpointing.cpu_checkpointing",
                                                            ac.get("cpu_checkpointing")):
            b.take(f"{prefix}activation_checkpointing.cpu_checkpointing", ac.get("cpu_checkpointing"),
                   "training.activation_offload", True)
        else:
            b.ignore(f"{prefix}activation_checkpointing", ac)
    done.add("activation_checkpointing")
    for key, value in data.items():
        if key in done or value is None:
            continue
        if isinstance(value, str) and _is_auto(value):
            b.auto(prefix + str(key))
        else:
            _leftover(b, prefix + str(key), value)
    return b.result()


# ------------------------------------------------------------------------------------------ torchtune


#: torchtune optimizer components (recipes/configs/*: ``optimizer._component_``) -> the plan's optimizer.
_TT_OPTIMIZERS = {
    "torch.optim.adamw": "adamw", "torch.optim.adam": "adamw", "torch.optim.sgd": "sgd",
    "bitsandbytes.optim.pagedadamw8bit": "paged-adamw-8bit", "bitsandbytes.optim.pagedadamw": "paged-adamw-32bit",
    "bitsandbytes.optim.pagedadamw32bit": "paged-adamw-32bit", "bitsandbytes.optim.adamw8bit": "adamw-8bit",
    "torchao.optim.adamw8bit": "adamw-8bit", "torchao.prototype.low_bit_optim.adamw8bit": "adamw-8bit",
}
#: torchtune's chunked losses (``torchtune.modules.loss``): the LM head's output in chunks, upcast one at a time.
_TT_CHUNKED_LOSSES = {"cewithchunkedoutputloss", "linearcrossentropyloss"}
_TT_IRRELEVANT = {"output_dir", "checkpointer", "resume_from_checkpoint", "save_adapter_weights_only", "seed",
                  "shuffle", "lr_scheduler", "metric_logger", "log_every_n_steps", "log_peak_memory_stats",
                  "log_level", "profiler", "low_cpu_ram", "clip_grad_norm", "device", "tokenizer", "run_val_every_n_steps",
                  "dataset_val", "batch_size_val", "quantizer", "save_last_epoch_only", "cudnn_deterministic_mode"}


def _named(b: _Builder, data: Mapping[str, Any], key: str, table: Mapping[str, str], path: str) -> None:
    """A setting named by a word (``attn_impl: flash_attn``): the plan's value from ``table``, or unsupported."""
    if data.get(key) is None:
        return
    name = _str(key, data[key]).lower()
    if name in table:
        b.take(key, data[key], path, table[name])
    else:
        b.unsupported(key, data[key], "config.unknown_value")


def _rest(b: _Builder, data: Mapping[str, Any], done: set[str], irrelevant: set[str]) -> None:
    """The keys a mapper did not read: ignored, as irrelevant to memory and time or as unknown to Tuneplan."""
    for key, value in data.items():
        if key in done or value is None:
            continue
        if key in irrelevant:
            b.ignore(str(key), value)
        else:
            b.ignore(str(key), value, code="config.unknown_key")


def _component(value: Any) -> str:
    """A torchtune ``_component_`` dotted path, lower-cased ('' when the node has none)."""
    if isinstance(value, Mapping) and isinstance(value.get("_component_"), str):
        return value["_component_"].strip().lower()
    return ""


def map_torchtune_overrides(data: Mapping[str, Any], method: str | None) -> ConfigImport:
    """``tune run ... --config NAME key=value ...``: the overrides as a torchtune config whose model builder is only
    known by the shipped config's name (``method``: ``lora``, ``qlora``, ``full`` or None), so ``model.lora_rank=16``
    is read as an adapter setting.

    Raises:
        TrainingConfigError: a value of the wrong type or out of range.
    """
    return _torchtune(data, method)


def _torchtune(data: Mapping[str, Any], method_hint: str | None = None) -> ConfigImport:
    """A torchtune recipe config (``recipes/configs/<family>/<size>_<method>[_single_device].yaml``): the model
    builder's name says the method (``lora_``/``qlora_`` builders, ``torchtune/models/*/_model_builders.py``), its
    ``lora_*`` arguments the adapters; ``batch_size``, ``gradient_accumulation_steps``, ``tokenizer.max_seq_len``,
    ``dataset.packed`` (unpacked batches are padded to their longest, ``padded_collate_sft``), ``dtype``,
    ``enable_activation_checkpointing``/``offloading``, ``optimizer_in_bwd``, ``compile``, the loss component and
    the distributed recipes' ``fsdp_cpu_offload`` and ``custom_sharded_layers``. The recipe and the GPU count are on
    the ``tune run`` command line, not in the file."""
    b = _Builder("torchtune")
    g = data.get
    done: set[str] = set()
    model = g("model")
    builder = _component(model).rsplit(".", 1)[-1]
    method: str | None = method_hint if not builder else None
    if builder:
        method = "qlora" if builder.startswith("qlora_") else "lora" if builder.startswith("lora_") else "full"
        b.take("model._component_", model["_component_"], "training.method", method)
        if method == "qlora":  # torchtune's QLoRA builders quantise to NF4 (torchao to_nf4)
            b.take("model._component_", model["_component_"], "training.quant_bits", 4)
    elif model is not None and method_hint is None:
        b.unsupported("model", model)
    done.add("model")
    if isinstance(model, Mapping) and method in {"lora", "qlora"}:
        for key, path, conv in (("lora_rank", "training.lora_rank", _int), ("lora_alpha", "training.lora_alpha", _float),
                                ("lora_dropout", "training.lora_dropout", _float)):
            if model.get(key) is not None:
                b.take(f"model.{key}", model[key], path, conv(f"model.{key}", model[key]))
        attn = model.get("lora_attn_modules")
        if attn is not None:
            if not isinstance(attn, list) or not all(isinstance(n, str) for n in attn):
                raise TrainingConfigError("config.not_string", key="model.lora_attn_modules", value=_shown(attn))
            names = ["o_proj" if n == "output_proj" else n for n in attn]
            if model.get("apply_lora_to_mlp") is not None and _bool("model.apply_lora_to_mlp",
                                                                     model["apply_lora_to_mlp"]):
                names += ["gate_proj", "up_proj", "down_proj"]  # torchtune's w1, w3, w2
            _targets(b, "model.lora_attn_modules", names)
        if model.get("apply_lora_to_output") is not None and _bool("model.apply_lora_to_output",
                                                                    model["apply_lora_to_output"]):
            b.unsupported("model.apply_lora_to_output", model["apply_lora_to_output"])  # LoRA on the LM head
        for key, value in model.items():
            if key not in {"_component_", "lora_rank", "lora_alpha", "lora_dropout", "lora_attn_modules",
                           "apply_lora_to_mlp", "apply_lora_to_output"} and value is not None:
                b.ignore(f"model.{key}", value)
    tok = g("tokenizer")
    if isinstance(tok, Mapping) and tok.get("max_seq_len") is not None:
        b.take("tokenizer.max_seq_len", tok["max_seq_len"], "training.seq_len",
               _int("tokenizer.max_seq_len", tok["max_seq_len"]))
    elif isinstance(tok, Mapping) and "max_seq_len" in tok:
        b.unsupported("tokenizer.max_seq_len", None, "config.no_truncation")
    done.add("tokenizer")
    datasets = g("dataset")
    nodes = datasets if isinstance(datasets, list) else [datasets] if isinstance(datasets, Mapping) else []
    packed = [n.get("packed") for n in nodes if isinstance(n, Mapping) and n.get("packed") is not None]
    if packed:
        on = all(_bool("dataset.packed", p) for p in packed)
        b.take("dataset.packed", packed[0], "training.sequence_mode", "packed" if on else "dynamic")
    elif nodes:
        b.default("dataset.packed", "training.sequence_mode", "dynamic")  # packed: False unless set
    done.add("dataset")
    _batch(b, data, "batch_size", "gradient_accumulation_steps")
    done |= {"batch_size", "gradient_accumulation_steps"}
    opt = g("optimizer")
    comp = _component(opt)
    if comp:
        name = _TT_OPTIMIZERS.get(comp)
        if name == "adamw" and isinstance(opt, Mapping) and opt.get("fused") is not None and _bool(
                "optimizer.fused", opt["fused"]):
            name = "adamw-fused"
        if name is None:
            b.unsupported("optimizer._component_", opt["_component_"], "config.unknown_value")
        else:
            b.take("optimizer._component_", opt["_component_"], "training.optimizer", name)
    done.add("optimizer")
    loss = _component(g("loss")).rsplit(".", 1)[-1]
    if loss in {"dpoloss", "rsoloss", "ipoloss", "simpoloss"}:
        # torchtune.rlhf.loss: the DPO recipes (lora_dpo_*, full_dpo_*) with a reference pass
        b.take("loss._component_", g("loss")["_component_"], "training.workload", "orpo" if loss == "simpoloss"
               else "dpo")
    elif loss:
        b.take("loss._component_", g("loss")["_component_"], "training.fused_cross_entropy", loss in _TT_CHUNKED_LOSSES)
    done.add("loss")
    for key, path in (("optimizer_in_bwd", "training.optimizer_in_backward"), ("compile", "training.torch_compile"),
                      ("enable_activation_checkpointing", "training.grad_checkpointing"),
                      ("enable_activation_offloading", "training.activation_offload")):
        if g(key) is not None:
            b.take(key, g(key), path, _bool(key, g(key)))
        done.add(key)
    if g("dtype") is not None:
        table = {"bf16": "bf16", "fp32": "fp32", "fp16": "fp16"}
        text = _str("dtype", g("dtype")).lower()
        if text in table:
            b.take("dtype", g("dtype"), "training.precision", table[text])
        else:
            b.unsupported("dtype", g("dtype"), "config.unknown_value")
    done.add("dtype")
    distributed = False
    if g("fsdp_cpu_offload") is not None:
        distributed = True
        b.take("fsdp_cpu_offload", g("fsdp_cpu_offload"), "training.cpu_offload",
               _bool("fsdp_cpu_offload", g("fsdp_cpu_offload")))
    if g("custom_sharded_layers"):
        distributed = True
        b.take("custom_sharded_layers", g("custom_sharded_layers"), "training.fsdp_wrap", "separate-embeddings")
    if g("fsdp_reshard_after_forward") is not None:
        distributed = True
        b.ignore("fsdp_reshard_after_forward", g("fsdp_reshard_after_forward"))
    done |= {"fsdp_cpu_offload", "custom_sharded_layers", "fsdp_reshard_after_forward"}
    if distributed:  # the distributed recipes shard with FSDP2 (training.shard_model)
        b.updates["training.sharding"] = "fsdp"
    # the recipe (single device or distributed) and --nproc_per_node are on the tune run command line
    b.items.append(ImportItem(status="unsupported", key="num_gpus", note=Note(code="config.no_gpu_count")))
    if g("epochs") is not None:
        b.take("epochs", g("epochs"), "dataset.epochs", _float("epochs", g("epochs")))
    done.add("epochs")
    if g("max_steps_per_epoch") is not None:
        b.unsupported("max_steps_per_epoch", g("max_steps_per_epoch"))
    done.add("max_steps_per_epoch")
    _rest(b, data, done, _TT_IRRELEVANT)
    _stack(b, "torchtune")
    return b.result()


# ------------------------------------------------------------------------------------------ ms-swift


#: ms-swift ``--deepspeed`` shorthands (swift/arguments/train_args.py: the bundled zero0/1/2/3 and *_offload
#: JSONs under swift/llm/ds_config) -> the plan's sharding and CPU offload.
SWIFT_DEEPSPEED = {"zero0": ("ddp", False), "zero1": ("zero1", False), "zero2": ("zero2", False),
                   "zero3": ("zero3", False), "zero2_offload": ("zero2", True), "zero3_offload": ("zero3", True)}
#: ms-swift ``rlhf_type`` -> the plan's workload (swift/arguments/rlhf_args.py).
SWIFT_RLHF = {"dpo": "dpo", "orpo": "orpo", "simpo": "orpo", "cpo": "orpo", "kto": "kto", "rm": "reward",
              "grpo": "grpo"}
_SWIFT_ATTN = {"flash_attn": "flash", "flash_attention_2": "flash", "flash_attention_3": "flash", "sdpa": "sdpa",
               "eager": "eager"}


def _swift(data: Mapping[str, Any]) -> ConfigImport:
    """ms-swift's arguments (``swift sft``/``swift rlhf``, as a YAML/JSON of the same names or a command line):
    ``train_type`` (``tuner_type`` in ms-swift 3.10+, ``sft_type`` before 3.0) with ``quant_method bnb`` and
    ``quant_bits`` for QLoRA or an 8-bit base (swift/arguments/base_args/quant_args.py), ``lora_rank``/``alpha``/
    ``dropout``, ``target_modules``, ``torch_dtype``, ``max_length``, ``attn_impl``, ``packing``/``padding_free``,
    ``deepspeed`` shorthands (:data:`SWIFT_DEEPSPEED`), ``rlhf_type`` (:data:`SWIFT_RLHF`), then the Hugging Face
    ``TrainingArguments`` it inherits. Its defaults fill the rest (``core/stacks.py``, ms-swift profile)."""
    b = _Builder("swift")
    g = data.get
    done: set[str] = set()

    def has(key: str) -> bool:
        return g(key) is not None

    type_key = next((k for k in ("tuner_type", "train_type", "sft_type") if has(k)), None)
    kind = _str(type_key, g(type_key)).lower() if type_key else "lora"  # ms-swift's default train_type is lora
    quant_method = _str("quant_method", g("quant_method")).lower() if has("quant_method") else ""
    bits = _int("quant_bits", g("quant_bits")) if has("quant_bits") else None
    done |= {"tuner_type", "train_type", "sft_type", "quant_method", "quant_bits"}
    method: str | None
    # swift/arguments/base_args/quant_args.py get_quantization_config: no quant_method, no quantisation
    bnb = quant_method in {"bnb", "bitsandbytes"} and bits in {4, 8}
    hqq = quant_method == "hqq" and bits in {4, 8}  # quant_args.py: HqqConfig(nbits=quant_bits)
    if kind == "full":
        method = "full"
    elif kind in {"lora", "qlora"}:
        method = "qlora" if bnb or hqq or (kind == "qlora" and not quant_method) else "lora"
    else:
        method = None
        b.unsupported(type_key or "train_type", g(type_key) if type_key else kind, "config.unknown_value")
    if method is not None:
        if type_key:
            b.take(type_key, g(type_key), "training.method", method)
        else:
            b.default("train_type", "training.method", method)
    if (bnb or hqq) and method == "qlora":
        b.take("quant_method", g("quant_method"), "training.quant_method", "hqq" if hqq else "bnb")
        b.take("quant_bits", bits, "training.quant_bits", bits)
    elif bits is not None and not quant_method:
        b.ignore("quant_bits", bits, code="config.no_quant_method")
    elif quant_method == "hqq" and bits is not None:
        b.unsupported("quant_bits", bits, "config.unknown_value")  # HQQ at 1, 2 or 3 bits: not a base the plan has
    elif quant_method or bits is not None:
        # eetq, gptq, awq, fp8, or bnb without its bits (ms-swift refuses that): not a base the plan has
        b.unsupported("quant_method" if quant_method else "quant_bits",
                      g("quant_method") if quant_method else bits, "config.unknown_value")
        if quant_method and bits is not None:
            b.unsupported("quant_bits", bits, "config.unknown_value")
    if has("bnb_4bit_use_double_quant"):
        b.take("bnb_4bit_use_double_quant", g("bnb_4bit_use_double_quant"), "training.double_quant",
               _bool("bnb_4bit_use_double_quant", g("bnb_4bit_use_double_quant")))
    done |= {"bnb_4bit_use_double_quant", "bnb_4bit_quant_type", "bnb_4bit_compute_dtype", "bnb_4bit_quant_storage"}
    if method in {"lora", "qlora"}:
        _adapter_keys(b, data, "lora_rank", "lora_alpha", "lora_dropout", "target_modules", "modules_to_save")
    done |= {"lora_rank", "lora_alpha", "lora_dropout", "target_modules", "modules_to_save"}
    precision = _precision(b, data)
    done |= {"bf16", "fp16"}
    dtype_key = next((k for k in ("torch_dtype", "dtype") if has(k)), None)
    if dtype_key:
        text = _str(dtype_key, g(dtype_key)).lower().removeprefix("torch.")
        table = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}
        if text not in table:
            b.unsupported(dtype_key, g(dtype_key), "config.unknown_value")
        elif precision is None:
            # ms-swift sets bf16/fp16 from torch_dtype when the flags are not given (train_args.py _init_mixed_precision)
            b.take(dtype_key, g(dtype_key), "training.precision", table[text])
        elif text == "float32" and precision != "fp32":
            b.take(dtype_key, g(dtype_key), "training.master_weights", "fp32", code="config.master_weights")
        else:
            b.ignore(dtype_key, g(dtype_key))
    done |= {"torch_dtype", "dtype"}
    _named(b, data, "attn_impl", _SWIFT_ATTN, "training.attention")
    done.add("attn_impl")
    _batch(b, data, "per_device_train_batch_size", "gradient_accumulation_steps")
    done |= {"per_device_train_batch_size", "gradient_accumulation_steps"}
    if has("gradient_checkpointing"):
        b.take("gradient_checkpointing", g("gradient_checkpointing"), "training.grad_checkpointing",
               _bool("gradient_checkpointing", g("gradient_checkpointing")))
    done.add("gradient_checkpointing")
    if has("max_length"):
        b.take("max_length", g("max_length"), "training.seq_len", _int("max_length", g("max_length")))
    done.add("max_length")
    if has("packing") and _bool("packing", g("packing")):
        _seq_mode(b, "packing", g("packing"), "packed")
    elif has("padding_free") and _bool("padding_free", g("padding_free")):
        b.take("padding_free", g("padding_free"), "training.sequence_mode", "padding-free")
    elif has("packing") or has("padding_free"):
        key = "packing" if has("packing") else "padding_free"
        _seq_mode(b, key, g(key), "dynamic")
    done |= {"packing", "padding_free"}
    ds = g("deepspeed")
    if isinstance(ds, str) and ds.strip().lower() in SWIFT_DEEPSPEED:
        sharding, offload = SWIFT_DEEPSPEED[ds.strip().lower()]
        b.take("deepspeed", ds, "training.sharding", sharding)
        b.take("deepspeed", ds, "training.cpu_offload", offload)
        done.add("deepspeed")
    _named(b, data, "rlhf_type", SWIFT_RLHF, "training.workload")
    done.add("rlhf_type")
    for key in ("model", "model_type", "model_revision"):
        if has(key) and key not in done:
            _model_key(b, key, g(key)) if key == "model" else b.ignore(key, g(key))
        done.add(key)
    for key in ("dataset", "val_dataset", "system", "template", "split_dataset_ratio", "dataset_num_proc",
                "max_pixels", "freeze_vit", "freeze_llm", "freeze_aligner", "lazy_tokenize", "streaming",
                "load_from_cache_file", "eval_limit", "use_hf", "hub_token", "output_dir", "logging_steps",
                "save_steps", "eval_steps", "save_total_limit", "dataloader_num_workers", "warmup_ratio",
                "learning_rate", "model_author", "model_name", "report_to", "add_version"):
        if has(key) and key not in done:
            b.ignore(key, g(key))
        done.add(key)
    _common_hf(b, data, done)
    _stack(b, "ms-swift")
    return b.result()


# ------------------------------------------------------------------------------------------ accelerate


_ACCELERATE_IRRELEVANT = {"compute_environment", "machine_rank", "main_process_ip", "main_process_port",
                          "main_training_function", "rdzv_backend", "same_network", "tpu_env", "tpu_use_cluster",
                          "tpu_use_sudo", "debug", "enable_cpu_affinity", "downcast_bf16", "dynamo_config",
                          "ipex_config", "mpirun_config", "num_cpu_threads_per_process", "gpu_ids"}


def _accelerate_offload(b: _Builder, ds: Mapping[str, Any]) -> None:
    """accelerate's ``offload_optimizer_device``/``offload_param_device``, read as the DeepSpeed JSON's offload
    sections are (``_deepspeed``): ZeRO-1/2 offload the optimizer only (the plan's CPU offload); ZeRO-3 offloads
    parameters and optimizer together, and the optimizer alone is not modelled."""
    stage = ds.get("zero_stage")
    stage = _int("deepspeed_config.zero_stage", stage) if stage is not None and not _is_auto(stage) else None
    devices = {}
    for sub in ("offload_optimizer_device", "offload_param_device"):
        value = ds.get(sub)
        devices[sub] = _str(f"deepspeed_config.{sub}", value).lower() if value is not None else "none"
        if devices[sub] not in {"none", "cpu", "nvme"}:
            b.unsupported(f"deepspeed_config.{sub}", value, "config.unknown_value")
            devices[sub] = "none"
    okey, pkey = "deepspeed_config.offload_optimizer_device", "deepspeed_config.offload_param_device"
    odev, pdev = devices["offload_optimizer_device"], devices["offload_param_device"]
    if stage == 3 and pdev != "none":
        b.take(pkey, pdev, "training.cpu_offload", True, code="config.taken" if pdev == "cpu" else "config.approx")
        if odev != "none":
            b.take(okey, odev, "training.cpu_offload", True)
    elif stage in {1, 2} and odev != "none":
        b.take(okey, odev, "training.cpu_offload", True, code="config.taken" if odev == "cpu" else "config.approx")
        if pdev != "none":
            b.ignore(pkey, pdev)  # offload_param applies to ZeRO-3 only
    elif odev != "none":
        b.unsupported(okey, odev, "config.optimizer_offload_only")
    elif "offload_optimizer_device" in ds or "offload_param_device" in ds:
        b.take(okey, "none", "training.cpu_offload", False)


def _accelerate(data: Mapping[str, Any]) -> ConfigImport:
    """A Hugging Face accelerate config (``accelerate config``'s YAML; ``examples/config_yaml_templates``):
    ``distributed_type`` (``NO``, ``MULTI_GPU`` = DDP, ``FSDP`` with ``fsdp_config``, ``DEEPSPEED`` with
    ``deepspeed_config``), ``num_processes`` (every process of the run, one per GPU, across ``num_machines``) and
    ``mixed_precision``. The training script's own arguments come from its file or command line."""
    b = _Builder("accelerate")
    g = data.get
    done: set[str] = set()
    kind = _str("distributed_type", g("distributed_type")).upper() if g("distributed_type") is not None else ""
    done.add("distributed_type")
    gpus: int | None = None
    if g("num_processes") is not None:
        gpus = _int("num_processes", g("num_processes"))
        b.take("num_processes", g("num_processes"), "training.num_gpus", gpus)
    done.add("num_processes")
    if kind in {"", "NO"}:
        if kind:
            b.take("distributed_type", g("distributed_type"), "training.sharding", "none")
    elif kind == "MULTI_GPU":
        b.take("distributed_type", g("distributed_type"), "training.sharding", "ddp")
    elif kind == "FSDP":
        b.take("distributed_type", g("distributed_type"), "training.sharding", "fsdp")
        if g("fsdp_config") is not None:
            _fsdp_config(b, "fsdp_config", g("fsdp_config"))
    elif kind == "DEEPSPEED":
        ds = g("deepspeed_config")
        if ds is not None and not isinstance(ds, Mapping):
            raise TrainingConfigError("config.not_mapping")
        ds = ds or {}
        for sub, value in ds.items():
            key = f"deepspeed_config.{sub}"
            if value is None:
                continue
            if sub == "zero_stage":
                table = {0: "ddp", 1: "zero1", 2: "zero2", 3: "zero3"}
                stage = _int(key, value)
                if stage in table:
                    b.take(key, value, "training.sharding", table[stage])
                else:
                    b.unsupported(key, value, "config.unknown_value")
            elif sub in {"offload_optimizer_device", "offload_param_device"}:
                continue  # below, with the stage: the rules of the DeepSpeed JSON
            elif sub == "gradient_accumulation_steps" and not _is_auto(value):
                b.take(key, value, "training.grad_accumulation", _int(key, value))
            elif sub == "deepspeed_config_file":
                b.ignore(key, value, code="config.deepspeed_file")
            elif sub == "zero3_init_flag":
                # accelerate DeepSpeedPlugin: whether models are built under deepspeed.zero.Init (ZeRO-3 only)
                b.take(key, value, "training.zero_init", _bool(key, value))
            else:
                b.ignore(key, value)
        _accelerate_offload(b, ds)
    else:
        b.unsupported("distributed_type", g("distributed_type"), "config.unknown_value")
    done |= {"fsdp_config", "deepspeed_config"}
    if kind != "FSDP" and isinstance(g("fsdp_config"), Mapping) and g("fsdp_config"):
        b.ignore("fsdp_config", g("fsdp_config"))
    mp = g("mixed_precision")
    if mp is not None:
        text = _str("mixed_precision", mp).lower()
        if text in {"bf16", "fp16"}:
            b.take("mixed_precision", mp, "training.precision", text)
        elif text == "no":
            b.ignore("mixed_precision", mp)  # the script's own dtype and flags decide
        else:
            b.unsupported("mixed_precision", mp, "config.unknown_value")
    done.add("mixed_precision")
    if g("use_cpu") is not None and _bool("use_cpu", g("use_cpu")):
        b.unsupported("use_cpu", g("use_cpu"))
    done.add("use_cpu")
    machines = g("num_machines")
    if machines is not None and _int("num_machines", machines) > 1 and gpus is None:
        b.items.append(ImportItem(status="unsupported", key="num_gpus", note=Note(code="config.no_gpu_count")))
    done.add("num_machines")
    _rest(b, data, done, _ACCELERATE_IRRELEVANT)
    return b.result()


# ------------------------------------------------------------------------------------------ entry points

_MAPPERS = {"llamafactory": _llamafactory, "axolotl": _axolotl, "hf": _hf, "deepspeed": _deepspeed,
            "torchtune": _torchtune, "swift": _swift, "accelerate": _accelerate}

_LF_KEYS = {"finetuning_type", "cutoff_len", "lora_target", "quantization_bit", "template", "flash_attn",
            "disable_gradient_checkpointing", "pure_bf16", "neat_packing", "enable_liger_kernel", "use_unsloth"}
_AXOLOTL_KEYS = {"base_model", "adapter", "micro_batch_size", "sequence_len", "sample_packing", "lora_r",
                 "lora_target_linear", "pad_to_sequence_len", "flash_attention", "num_epochs", "load_in_4bit",
                 "dataset_prepared_path", "val_set_size", "sdp_attention", "plugins"}
_HF_KEYS = {"per_device_train_batch_size", "gradient_accumulation_steps", "optim", "output_dir", "bf16", "fp16",
            "max_seq_length", "max_length", "packing", "num_train_epochs", "learning_rate", "gradient_checkpointing",
            "use_peft", "lora_target_modules", "deepspeed", "fsdp", "torch_compile"}
_TT_KEYS = {"batch_size", "enable_activation_checkpointing", "enable_activation_offloading", "optimizer_in_bwd",
            "checkpointer", "epochs", "max_steps_per_epoch", "log_peak_memory_stats", "fsdp_cpu_offload",
            "custom_sharded_layers", "compile"}
_SWIFT_KEYS = {"train_type", "tuner_type", "sft_type", "quant_bits", "quant_method", "attn_impl", "rlhf_type",
               "model_type", "target_modules", "padding_free", "lora_rank"}
_ACCELERATE_KEYS = {"distributed_type", "num_processes", "compute_environment", "num_machines", "machine_rank",
                    "main_training_function", "fsdp_config", "deepspeed_config", "mixed_precision", "use_cpu",
                    "rdzv_backend", "same_network"}
_DS_KEYS = {"zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size", "gradient_clipping",
            "steps_per_print", "wall_clock_breakdown", "zero_allow_untested_optimizer"}


def detect_format(data: Mapping[str, Any]) -> str:
    """The format of a decoded config: ``llamafactory``, ``axolotl``, ``hf``, ``deepspeed``, ``torchtune``, ``swift`` or
    ``accelerate``.

    Raises:
        TrainingConfigError: ``config.not_mapping`` for a non-mapping, ``config.unknown_format`` when no format's
            keys are there.
    """
    if not isinstance(data, Mapping):
        raise TrainingConfigError("config.not_mapping")
    keys = {str(k) for k in data}
    scores = {
        "deepspeed": 3 * len(keys & _DS_KEYS) - 2 * len(keys & {"per_device_train_batch_size", "output_dir"}),
        "llamafactory": 3 * len(keys & _LF_KEYS),
        "axolotl": 3 * len(keys & _AXOLOTL_KEYS),
        "hf": len(keys & _HF_KEYS),
        # torchtune: a model built from a _component_ path
        "torchtune": 3 * len(keys & _TT_KEYS) + (6 if _component(data.get("model")) else 0),
        "swift": 3 * len(keys & _SWIFT_KEYS) - 3 * len(keys & {"finetuning_type", "micro_batch_size"}),
        "accelerate": 3 * len(keys & _ACCELERATE_KEYS) + (6 if "distributed_type" in keys else 0),
    }
    best = max(scores, key=lambda f: (scores[f], -FORMATS.index(f)))
    if scores[best] <= 0:
        raise TrainingConfigError("config.unknown_format")
    return best


def map_training_config(data: Any, fmt: str | None = None) -> ConfigImport:
    """Map a decoded training config onto the plan (see the module docstring).

    Args:
        data: the config as ``yaml.safe_load``/``json.load`` returned it.
        fmt: one of :data:`FORMATS`; None detects it (:func:`detect_format`).

    Raises:
        TrainingConfigError: not a mapping, an unknown format, a value of the wrong type or out of range.
    """
    if not isinstance(data, Mapping):
        raise TrainingConfigError("config.not_mapping")
    if any(not isinstance(k, str) for k in data):
        raise TrainingConfigError("config.not_mapping")
    if fmt is None:
        fmt = detect_format(data)
    if fmt not in _MAPPERS:
        raise TrainingConfigError("config.unknown_format")
    result = _MAPPERS[fmt](data)
    if "training.lora_targets" in result.updates and "training.lora_modules" not in result.updates:
        result.updates["training.lora_modules"] = ()  # a preset replaces a module list the plan had
    if "training.quant_bits" in result.updates and "training.quant_method" not in result.updates:
        # every format's quantisation bits without an HQQ method are bitsandbytes' (torchtune's NF4: torchao's
        # to_nf4, the same blocks of 64): an imported 4-bit base replaces an HQQ one
        result.updates["training.quant_method"] = "bnb"
    return result
