"""The form panels on the left of the main window: model, method, batch, dataset, hardware & pricing.

Every panel only writes to the :class:`~tuneplan.ui.store.AppStore` and re-reads the scenario it
emits; none of them computes anything.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QFont, QStandardItemModel
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from tuneplan import catalog
from tuneplan.core.scenario import OPTIMIZER_LABELS as OPTIMIZER_LABELS_EN
from tuneplan.core.scenario import Scenario
from tuneplan.core.stacks import pads_packs
from tuneplan.storage.recent_models import RecentModel, RecentModelsError, remember_model
from tuneplan.ui.dataset_file_dialog import DatasetFileDialog
from tuneplan.ui.fields import ERROR_COLOR, ComboBox, FieldPanel, format_count
from tuneplan.ui.hub_model import HubModelField
from tuneplan.ui.i18n import OFFER_KIND_LABELS, OPTIMIZER_LABELS, SEGMENT_LABELS, plain_tooltip
from tuneplan.ui.price_book_view import app_today, date_text, offer_text
from tuneplan.ui.stack_choice import StackChoice
from tuneplan.ui.store import CUSTOM_OFFER, AppStore

__all__ = [
    "BatchPanel",
    "DatasetPanel",
    "HardwarePanel",
    "MethodPanel",
    "ModelPanel",
]

MUTED = "color: #666666;"

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate


def _params(n: float) -> str:
    """A parameter count as the model list shows it: ``8.03 B``, ``494 M`` (999.5 M and up round to billions, so a
    1B model never reads "1000 M")."""
    if n >= 999.5e6:
        return f"{n / 1e9:.2f} B"
    return f"{n / 1e6:.0f} M"


def _add_header(combo: ComboBox, text: str) -> None:
    """A bold, unselectable group header inside a combo box."""
    combo.addItem(text, None)
    model = combo.model()
    if isinstance(model, QStandardItemModel):
        item = model.item(combo.count() - 1)
        item.setEnabled(False)
        font = QFont(item.font())
        font.setBold(True)
        item.setFont(font)


def _info_label() -> QLabel:
    # No word wrap: a wrapping QLabel in a QFormLayout reserves height for a narrow sizeHint.
    label = QLabel()
    label.setStyleSheet(MUTED)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    # a long note (a provider's price source) must not widen the form past its panel and clip every field's
    # right edge: the label takes the width it is given and the rest of a long line is cut off
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    return label


class ModelPanel(FieldPanel):
    """Model choice: catalog models grouped by family, or an imported Hugging Face ``config.json``."""

    IMPORTED = "__imported__"

    def __init__(self, store: AppStore, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Model"), store, parent)
        self.add_text("name", self.tr("Plan name"), tip=self.tr(
            "Shown in the title bar and used as the file name when saving. "
            "Until you rename it, it follows the model, method and GPU"))
        self.combo = ComboBox()
        self.combo.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.combo.setAccessibleName(self.tr("Model"))
        self.combo.setToolTip(self.tr("Catalog models, by family, with their parameter counts"))
        self.combo.setMaxVisibleItems(24)
        families: dict[str, list[catalog.CatalogModel]] = {}
        for m in catalog.list_models():
            families.setdefault(m.family, []).append(m)
        for family, models in families.items():
            _add_header(self.combo, family)
            for m in sorted(models, key=lambda m: m.architecture.parameter_count()):
                self.combo.addItem("   " + self.tr("{name}  ·  {params} params").format(
                    name=m.name, params=_params(m.architecture.parameter_count())), m.id)
        self.combo.currentIndexChanged.connect(self._on_activated)
        label = QLabel(self.tr("Model:"))
        label.setBuddy(self.combo)
        self.form.addRow(label, self.combo)

        # a Hugging Face id typed or pasted, the local HF cache and earlier models offered as you type (issue #23)
        self.hub_field = HubModelField(self.store.set_model_architecture, self.import_config,
                                       lambda: self.store.errors.get("model", ""))
        hub_label = QLabel(self.tr("Hugging Face:"))
        hub_label.setBuddy(self.hub_field.edit)
        self.form.addRow(hub_label, self.hub_field)

        self.import_button = QPushButton(self.tr("Import config.json…"))
        self.import_button.setAccessibleName(self.tr("Import config.json"))
        self.import_button.setToolTip(self.tr("Plan for any decoder-only model: pick its config.json or its downloaded folder"))
        self.import_button.clicked.connect(self.import_config)
        self.form.addRow("", self.import_button)
        below = QWidget()
        below_col = QVBoxLayout(below)
        below_col.setContentsMargins(0, 0, 0, 0)
        self.import_error = QLabel()
        self.import_error.setTextFormat(Qt.TextFormat.PlainText)  # quotes the config file's values
        self.import_error.setWordWrap(True)
        self.import_error.setStyleSheet(f"color: {ERROR_COLOR};")
        self.import_error.setAccessibleName(self.tr("Import error"))
        self.import_error.hide()
        below_col.addWidget(self.import_error)
        self.info = _info_label()
        self.info.setAccessibleName(self.tr("Model details"))
        below_col.addWidget(self.info)
        self.form.addRow("", below)
        # Tests and power users can replace the file picker.
        self.pick_config: Callable[[], str | None] = self._ask_config_path

    def _on_activated(self, index: int) -> None:
        model_id = self.combo.itemData(index)
        if model_id and model_id != self.IMPORTED:
            self.import_error.hide()
            self.store.set_model(model_id)

    def _ask_config_path(self) -> str | None:
        dialog = QFileDialog(self, self.tr("Import a Hugging Face config.json"))
        dialog.setNameFilters([self.tr("Model config (config.json *.json)"), self.tr("All files (*)")])
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        if dialog.exec():
            files = dialog.selectedFiles()
            return files[0] if files else None
        return None

    def import_config(self, path: str | None = None) -> bool:
        """Import a config.json (or a folder holding one); shows the reason inline when it fails."""
        if not path:
            path = self.pick_config()
        if not path:
            return False
        try:
            arch = catalog.load_hf_config(path)
        except catalog.ConfigImportError as exc:
            self.import_error.setText(self.tr("Could not import: {error}. The plan keeps {model}.").format(
                error=exc, model=self.store.scenario.model.name))
            self.import_error.show()
            return False
        self.import_error.hide()
        if not self.store.set_model_architecture(arch):
            return False
        try:  # kept in the model field's suggestions across restarts
            remember_model(RecentModel(kind="file", ref=str(Path(path).expanduser().resolve()), name=arch.name))
        except RecentModelsError:
            pass
        return True

    def refresh(self, scenario: Scenario) -> None:
        """Select the scenario's model (adding an "Imported" entry for non-catalog models)."""
        super().refresh(scenario)
        self.combo.blockSignals(True)
        try:
            imported = self.combo.findData(self.IMPORTED)
            if scenario.model_id:
                if imported >= 0:
                    self.combo.removeItem(imported)
                self.combo.setCurrentIndex(self.combo.findData(scenario.model_id))
            else:
                text = self.tr("Imported: {name}  ·  {params} params").format(
                    name=scenario.model.name, params=_params(scenario.model.parameter_count()))
                if imported < 0:
                    self.combo.insertItem(0, text, self.IMPORTED)
                    imported = 0
                self.combo.setItemText(imported, text)
                self.combo.setCurrentIndex(imported)
        finally:
            self.combo.blockSignals(False)
        a = scenario.model
        moe = self.tr(" · {experts} experts, {active} active").format(
            experts=a.num_experts, active=a.experts_per_token) if a.is_moe else ""
        self.info.setText(
            self.tr("{params} parameters · {layers} layers · hidden {hidden}").format(
                params=_params(a.parameter_count()), layers=a.num_layers, hidden=f"{a.hidden_size:,}") + "<br>"
            + self.tr("{heads} attention heads / {kv} KV heads · vocabulary {vocab}").format(
                heads=a.num_attention_heads, kv=a.num_kv_heads, vocab=f"{a.vocab_size:,}") + moe
        )
        self.info.setToolTip(plain_tooltip(a.source))


class MethodPanel(FieldPanel):
    """Fine-tuning method, precision, optimizer and LoRA settings."""

    def __init__(self, store: AppStore, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Method"), store, parent)
        self.stack_choice = StackChoice(store)  # applies a stack's defaults as one undoable step (issue #17)
        self.add_widget_row(self.tr("I train with"), self.stack_choice)
        self.add_choice("training.workload", self.tr("Workload"), [
            ("sft", self.tr("Supervised fine-tuning")),
            ("pt", self.tr("Continued pretraining (plain text)")), ("dpo", self.tr("DPO / IPO (preference pairs)")),
            ("orpo", self.tr("ORPO / CPO / SimPO (pairs, no reference)")), ("kto", self.tr("KTO (unpaired)")),
            ("reward", self.tr("Reward model")), ("grpo", self.tr("GRPO (generates its completions)"))],
            tip=self.tr("What is trained, as TRL's trainers run it. Continued pretraining is the SFT step on plain "
                        "text packed into full rows (LLaMA-Factory's pt stage, swift pt); preference pairs are two "
                        "rows per example "
                        "(chosen and rejected); DPO and KTO also run a reference model; GRPO generates several "
                        "completions per prompt every step and trains on them"))
        self.add_choice("training.reference_model", self.tr("Reference model"), [
            (None, self.tr("As TRL chooses (LoRA: shared; full: a copy)")),
            ("shared", self.tr("The policy with adapters disabled")), ("copy", self.tr("A frozen copy in memory")),
            ("precomputed", self.tr("Log-probs precomputed before training"))],
            tip=self.tr("Where DPO's and KTO's reference log-probs come from: a LoRA policy serves as its own reference "
                        "with the adapters off; full fine-tuning loads a frozen copy; precompute_ref_log_probs runs "
                        "one pass over the data first and needs no reference during training"))
        # GRPO (TRL GRPOConfig; core/generation.py): shown only for GRPO plans
        self.add_int("training.num_generations", self.tr("Completions (per prompt)"), 2, 4096,
                     tip=self.tr("num_generations: each prompt gets this many completions; the micro-batch counts "
                                 "completions, the dataset's examples are prompts"))
        self.add_int("training.completion_tokens", self.tr("Completion length"), 1, 10_000_000, suffix=" tokens",
                     tip=self.tr("max_completion_length: tokens generated per completion; the sequence length holds "
                                 "the prompt and the completion"))
        self.add_choice("training.generation_engine", self.tr("Generation"), [
            ("transformers", self.tr("The training model (model.generate)")),
            ("vllm-colocate", self.tr("vLLM on the training GPUs (colocate)")),
            ("vllm-server", self.tr("vLLM server on GPUs of its own"))],
            tip=self.tr("How the completions are generated: TRL's default runs the training model's generate; a "
                        "colocated vLLM engine shares each card; a vLLM server runs on extra GPUs, billed with the "
                        "training GPUs"))
        self.add_float("training.vllm_memory_share", self.tr("vLLM share of the card (0-1)"), 0.01, 0.99, decimals=2,
                       step=0.05, tip=self.tr("vllm_gpu_memory_utilization: the share of each card's memory the "
                                              "colocated engine takes for its weights, KV cache and CUDA graphs"))
        self.add_check("training.vllm_sleep", self.tr("vLLM sleeps while training"),
                       tip=self.tr("vllm_enable_sleep_mode: the engine frees its memory during training and wakes "
                                   "for each generation"))
        self.add_int("training.vllm_server_gpus", self.tr("vLLM server GPUs"), 1, 1024,
                     tip=self.tr("GPUs the vLLM server runs on, of the same kind as the training GPUs"))
        self.add_float("training.kl_beta", self.tr("KL coefficient (beta)"), 0.0, 1000.0, decimals=3, step=0.01,
                       tip=self.tr("beta: 0 (TRL's default) loads no reference model; above 0 a reference runs over "
                                   "every batch"))
        self.add_choice("training.method", self.tr("Method"), [
            ("full", self.tr("Full fine-tuning")), ("lora", "LoRA"), ("qlora", self.tr("QLoRA (quantised base)"))],
            tip=self.tr("Full: every weight trains. LoRA: small adapters on a frozen base. QLoRA: LoRA on a base "
                        "quantised by bitsandbytes (4-bit NF4, or 8-bit: see Quantised base)"))
        self.add_choice("training.quant_method", self.tr("Quantisation library"), [
            ("bnb", "bitsandbytes"), ("hqq", "HQQ")],
            tip=self.tr("bitsandbytes (load_in_4bit / load_in_8bit), or HQQ (transformers HqqConfig; "
                        "LLaMA-Factory quantization_method: hqq): every HQQ matmul dequantises its weight in a few "
                        "PyTorch kernels and keeps its input for the backward"))
        self.add_choice("training.quant_bits", self.tr("Quantised base"), [
            (4, self.tr("4-bit (bitsandbytes: NF4)")), (8, self.tr("8-bit (bitsandbytes: LLM.int8)"))],
            tip=self.tr("How the frozen base is stored for QLoRA. bitsandbytes: 4-bit NF4 (about 0.52 B per weight) "
                        "or 8-bit LLM.int8 (1 B per weight and an FP32 scale per row; each matmul quantises its "
                        "input to int8; FSDP cannot shard it). HQQ: 4 or 8 bits plus a scale and a zero point per "
                        "group"))
        self.add_choice("training.precision", self.tr("Precision"), [
            ("bf16", "BF16"), ("fp16", self.tr("FP16 (loss scaling)")), ("fp32", "FP32")],
            tip=self.tr("Weights, gradients and optimizer states in this precision; tick FP32 weights for mixed precision"))
        self.add_choice("training.optimizer", self.tr("Optimizer"),
                        [(key, OPTIMIZER_LABELS.get(key, label)) for key, label in OPTIMIZER_LABELS_EN.items()])
        self.add_int("training.lora_rank", self.tr("LoRA rank r"), 1, 4096,
                     tip=self.tr("Adapter rank; adapter size grows linearly with r"))
        self.add_float("training.lora_alpha", self.tr("LoRA alpha"), 0.1, 100_000, decimals=1, step=1,
                       tip=self.tr("Scaling of the adapter output (alpha / r); no effect on memory"))
        self.add_float("training.lora_dropout", self.tr("LoRA dropout"), 0.0, 0.99, decimals=2, step=0.05,
                       tip=self.tr("Dropout probability on the adapter input"))
        self.add_choice("training.lora_targets", self.tr("LoRA targets"), [
            ("q_v", self.tr("q and v projections")), ("qkvo", self.tr("q, k, v, o projections")),
            ("all-linear", self.tr("All linear layers"))])
        self.add_names("training.lora_modules", self.tr("LoRA modules (optional)"),
                       placeholder=self.tr("empty: the targets above"),
                       tip=self.tr("Adapt exactly these modules, comma-separated, as PEFT's target_modules names them "
                                   "(e.g. gate_proj, up_proj, down_proj); replaces the LoRA targets choice"))
        self.add_check("training.trainable_embeddings", self.tr("Train embeddings and LM head too"),
                       tip=self.tr("Needed when adding tokens; costs gradients and optimizer states for the embeddings"))
        self.begin_advanced(self.tr(
            "The defaults are pure BF16 training: weights, gradients and AdamW states in BF16 (DeepSpeed ZeRO keeps its "
            "own FP32 master copy and states). Tick FP32 weights for mixed precision. The \u201cI train with\u201d "
            "choice sets these fields as your stack does."))
        self.add_check("training.master_weights", self.tr("FP32 weights (mixed precision)"), on="fp32", off="none",
                       tip=self.tr("Full fine-tuning: FP32 weights, gradients and AdamW states (16 B per parameter) "
                                   "under BF16/FP16 autocast. LoRA: an FP32 frozen base under autocast. "
                                   "Not for QLoRA (the base is NF4)."))
        self.add_check("training.optimizer_in_backward", self.tr("Optimizer step in backward"),
                       tip=self.tr("Apply each gradient as soon as it is computed, so gradients are never all held at once"))
        self.add_choice("training.adapter_precision", self.tr("LoRA adapters"), [
            ("fp32-autocast", self.tr("FP32 under autocast (HF Trainer, TRL, axolotl)")),
            ("fp32", self.tr("FP32 without autocast (plain PEFT loop)")),
            ("model-dtype", self.tr("In the training precision (torchtune, LitGPT)"))],
            tip=self.tr("How your framework holds the adapters. PEFT keeps them in FP32: under autocast each "
                        "adapted layer saves a BF16 copy of its input; without autocast it saves an FP32 copy. "
                        "torchtune and LitGPT keep them in BF16 and copy nothing"))
        self.add_check("training.double_quant", self.tr("NF4 double quantization"),
                       tip=self.tr("Quantise the quantisation constants too (saves ~0.37 bit per weight)"))
        self.add_int("training.quant_group_size", self.tr("HQQ group size"), 8, 65536, step=32,
                     suffix=self.tr("weights"),
                     tip=self.tr("Weights per HQQ scale and zero point (HqqConfig group_size, 64 by default)"))
        self.add_check("training.kbit_fp32_upcast", self.tr("FP32 unquantised weights (PEFT)"),
                       tip=self.tr("Tick for a plain PEFT script: its prepare_model_for_kbit_training casts "
                                   "embeddings, LM head and norms to FP32. axolotl, TRL, torchtune and Unsloth keep "
                                   "them in BF16, and sharded QLoRA (FSDP/ZeRO-3) skips the upcast"))
        self.end_advanced()

    def update_enabled(self, scenario: Scenario) -> None:
        """LoRA fields only for LoRA/QLoRA; the quantised base and the FP32 upcast only for QLoRA, double
        quantization only for its 4-bit base;
        FP32 master weights not for QLoRA; the reference model only for DPO and KTO."""
        t = scenario.training
        self.set_enabled("training.reference_model", t.workload in {"dpo", "kto"}, self.tr("Only for DPO and KTO"))
        grpo = t.workload == "grpo"
        self.set_row_visible("training.reference_model", not grpo)
        for path in ("training.num_generations", "training.completion_tokens", "training.generation_engine",
                     "training.kl_beta"):
            self.set_row_visible(path, grpo)
        self.set_row_visible("training.vllm_memory_share", grpo and t.generation_engine == "vllm-colocate")
        self.set_row_visible("training.vllm_sleep", grpo and t.generation_engine == "vllm-colocate")
        self.set_row_visible("training.vllm_server_gpus", grpo and t.generation_engine == "vllm-server")
        lora = t.method in {"lora", "qlora"}
        for path in ("training.lora_rank", "training.lora_alpha", "training.lora_dropout",
                     "training.lora_modules", "training.trainable_embeddings"):
            self.set_enabled(path, lora, self.tr("Only for LoRA and QLoRA"))
        self.set_enabled("training.lora_targets", lora and not t.lora_modules,
                         self.tr("Only for LoRA and QLoRA, when no modules are listed below"))
        amp = t.master_weights == "fp32" and t.precision != "fp32" and t.method != "qlora"
        self.set_enabled("training.adapter_precision", lora and t.precision != "fp32" and not amp
                         and not t.frozen_weight_grads,
                         self.tr("Only for LoRA and QLoRA in 16-bit training (FP32 weights: FP32 adapters under "
                                 "autocast; adapters inside their layer's FSDP unit take the weights' dtype)"))
        self.set_enabled("training.quant_bits", t.method == "qlora", self.tr("Only for QLoRA"))
        self.set_enabled("training.quant_method", t.method == "qlora", self.tr("Only for QLoRA"))
        bits = self.fields["training.quant_bits"].widget
        labels = ({4: self.tr("4-bit (HQQ)"), 8: self.tr("8-bit (HQQ)")} if t.quant_method == "hqq" else
                  {4: self.tr("4-bit (bitsandbytes: NF4)"), 8: self.tr("8-bit (bitsandbytes: LLM.int8)")})
        for value, label in labels.items():
            i = bits.findData(value)
            if i >= 0 and bits.itemText(i) != label:
                bits.setItemText(i, label)
        self.set_enabled("training.double_quant", t.method == "qlora" and t.quant_bits == 4
                         and t.quant_method == "bnb", self.tr("Only for a 4-bit NF4 base"))
        self.set_enabled("training.quant_group_size", t.method == "qlora" and t.quant_method == "hqq",
                         self.tr("Only for an HQQ base"))
        # (left enabled under FSDP/ZeRO-3, so a ticked box can be unticked; the tooltip and a warning say that
        # sharded QLoRA skips the upcast)
        self.set_enabled("training.kbit_fp32_upcast", t.method == "qlora", self.tr("Only for QLoRA"))
        self.set_enabled("training.master_weights", t.method != "qlora" and t.precision != "fp32",
                         self.tr("Not for QLoRA or FP32 training"))


class BatchPanel(FieldPanel):
    """Batch geometry, memory savers and multi-GPU sharding."""

    def __init__(self, store: AppStore, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Batch, memory savers && GPUs"), store, parent)
        self.add_int("training.micro_batch", self.tr("Micro-batch (sequences)"), 1, 4096,
                     tip=self.tr("Sequences per GPU per forward pass"))
        self.add_int("training.grad_accumulation", self.tr("Gradient accumulation (steps)"), 1, 100_000,
                     tip=self.tr("Micro-batches per optimizer step: the gradients are kept between them (under FSDP "
                                 "unsharded unless synced every micro-batch)"))
        ev = self.add_int("training.eval_micro_batch", self.tr("Evaluation batch (sequences)"), 0, 4096,
                          tip=self.tr("Rows per evaluation micro-batch if the trainer evaluates during training "
                                      "(HF per_device_eval_batch_size, 8 by default there). Its logits are held whole "
                                      "and can set the peak. Off: no evaluation"))
        ev.setSpecialValueText(self.tr("off"))
        gen = self.add_int("training.eval_generate_tokens", self.tr("Evaluation generates"), 0, 1_000_000,
                           suffix=self.tr("tokens"), step=128,
                           tip=self.tr("New tokens each evaluation example generates (LLaMA-Factory "
                                       "predict_with_generate with max_new_tokens, 1024 there by default). Its KV "
                                       "cache can set the peak, and one forward per token makes evaluation slow. "
                                       "Off: the evaluation computes the loss only"))
        gen.setSpecialValueText(self.tr("off (loss only)"))
        self.add_int("training.seq_len", self.tr("Sequence length"), 1, 10_000_000, suffix=self.tr("tokens"), step=256,
                     tip=self.tr("Tokens per sequence (the longest batch for dynamic padding)"))
        self.add_choice("training.sequence_mode", self.tr("Sequence mode"), [
            ("packed", self.tr("Packed (no padding)")), ("fixed", self.tr("Padded to full length")),
            ("dynamic", self.tr("Dynamic padding")), ("padding-free", self.tr("Padding-free (batch flattened)"))],
            tip=self.tr("Packed: examples concatenated into full rows. Padded: every row padded to the sequence "
                        "length. Dynamic: each batch padded to its longest example. Padding-free: the batch's "
                        "examples flattened into one row (TRL and ms-swift padding_free; needs FlashAttention), "
                        "sized by the largest sum of lengths the run draws"))
        self.add_check("training.grad_checkpointing", self.tr("Gradient checkpointing"),
                       tip=self.tr("Recompute activations in backward: far less memory, ~33% more compute"))
        self.add_choice("training.attention", self.tr("Attention kernel"), [
            ("flash", "FlashAttention 2"), ("flash1", "FlashAttention 1"), ("sdpa", "PyTorch SDPA"),
            ("eager", self.tr("Eager (materialised scores)"))],
            tip=self.tr("FlashAttention 1 (flash-attn 1.x or its Triton port) computes the same attention at about "
                        "half FlashAttention 2's speed"))
        self.add_check("training.fused_cross_entropy", self.tr("Fused cross-entropy (Liger / CCE)"),
                       tip=self.tr("Never materialise the full logits tensor"))
        self.add_check("training.cpu_offload", self.tr("CPU offload (params + optimizer)"),
                       tip=self.tr("DeepSpeed/FSDP CPU offload: less GPU memory, slower steps"))
        self.add_int("training.num_gpus", self.tr("Number of GPUs"), 1, 4096)
        self.add_choice("training.sharding", self.tr("Sharding"), [
            ("none", self.tr("None (layers split)")), ("ddp", self.tr("DDP (replicated)")), ("zero1", self.tr("ZeRO-1 (optimizer)")),
            ("zero2", self.tr("ZeRO-2 (+ gradients)")), ("zero3", self.tr("ZeRO-3 (+ parameters)")),
            ("fsdp", self.tr("FSDP (full shard)"))],
            tip=self.tr("None with several GPUs splits the layers across them (HF device_map): one GPU works at a "
                        "time. DDP, ZeRO and FSDP train on all GPUs at once."))
        self.begin_advanced(self.tr(
            "The defaults are what Hugging Face accelerate and DeepSpeed do without a config: FSDP syncs gradients "
            "at the optimizer step and wraps each decoder layer; DeepSpeed's buffers have DeepSpeed's own sizes."))
        self.add_check("training.activation_offload", self.tr("Offload activations to CPU"))
        self.add_check("training.torch_compile", self.tr("torch.compile"),
                       tip=self.tr("Compiled decoder layers (torchtune compile: True, HF torch_compile=True) recompute "
                                   "cheap pointwise results in backward: no FP32 norm input copies, no saved "
                                   "SiLU(gate). Modelled for RMSNorm models (Llama, Qwen, Mistral, Gemma)"))
        self.add_choice("training.grad_sync", self.tr("FSDP gradient sync"), [
            ("step", self.tr("At the optimizer step (no_sync)")),
            ("micro-batch", self.tr("Every micro-batch"))],
            tip=self.tr("With gradient accumulation under FSDP: syncing only at the optimizer step (no_sync: HF "
                        "Trainer, accelerate, LitGPT) keeps the whole unsharded gradient on every GPU between steps; "
                        "syncing every micro-batch (torchtune; accelerate sync_each_batch=True) keeps only a shard "
                        "(more communication)"))
        self.add_choice("training.fsdp_wrap", self.tr("FSDP units"), [
            ("layers", self.tr("Layers; embeddings in the root")),
            ("separate-embeddings", self.tr("Layers; embeddings apart")),
            ("blocks-with-adapters", self.tr("Blocks with LoRA adapters"))],
            tip=self.tr("How FSDP groups the model. Hugging Face accelerate wraps each decoder layer and leaves the "
                        "embeddings and LM head in the root unit, which FSDP keeps unsharded from forward to "
                        "backward. torchtune can shard them as units of their own (custom_sharded_layers). LitGPT "
                        "wraps each block with its LoRA adapters, so every frozen weight gets a gradient, as in full "
                        "fine-tuning"))
        self.add_check("training.deepspeed_auto_buckets", self.tr("DeepSpeed buckets \u201cauto\u201d"),
                       tip=self.tr("The DeepSpeed JSON leaves reduce_bucket_size and stage3_prefetch_bucket_size "
                                   "\u201cauto\u201d and Hugging Face fills them from the model's hidden size h: h\u00b2 "
                                   "and 0.9 h\u00b2 elements (LLaMA-Factory's and ms-swift's ZeRO-3 configs do)"))
        for path, label, default in (
                ("training.deepspeed_reduce_bucket", self.tr("DeepSpeed reduce bucket"), "500M"),
                ("training.deepspeed_prefetch_bucket", self.tr("ZeRO-3 prefetch bucket"), "50M"),
                ("training.deepspeed_sub_group", self.tr("ZeRO-3 sub-group"), "1B"),
                ("training.deepspeed_max_reuse_distance", self.tr("ZeRO-3 reuse distance"), "1B")):
            self.add_count(path, label, placeholder=self.tr("{default} (DeepSpeed's default)").format(default=default),
                           tip=self.tr("Elements, as in the DeepSpeed JSON's zero_optimization (e.g. 2e8 or 200M); "
                                       "empty: \u201cauto\u201d when ticked above, else DeepSpeed's default"))
        ec = self.add_int("training.empty_cache_steps", self.tr("Empty the CUDA cache every (steps)"), 0, 1_000_000,
                          tip=self.tr("HF torch_empty_cache_steps: the trainer calls torch.cuda.empty_cache() every "
                                      "this many steps. Every step (1) leaves no cached blocks of earlier batch shapes "
                                      "in the peak reserved memory under dynamic padding, at some speed. Never: the "
                                      "default"))
        ec.setSpecialValueText(self.tr("never"))
        self.add_check("training.zero_init", self.tr("ZeRO-3 builds the model under zero.Init"),
                       tip=self.tr("Hugging Face Trainer, TRL, LLaMA-Factory and ms-swift create each GPU's share of "
                                   "the weights as the model loads. Untick when the model is loaded before the "
                                   "DeepSpeed config (or accelerate's zero3_init_flag is false): every GPU then "
                                   "holds the whole model first. A 4-bit or 8-bit base always loads whole"))
        self.end_advanced()

    def update_enabled(self, scenario: Scenario) -> None:
        """Sharding only matters with more than one GPU (kept enabled to fix a stale setting)."""
        t = scenario.training
        self.set_enabled("training.sharding", t.num_gpus > 1 or t.sharding != "none", self.tr("Set GPUs above 1 to shard"))
        fsdp = t.sharding == "fsdp" and t.num_gpus > 1
        self.set_enabled("training.grad_sync", fsdp and t.grad_accumulation > 1,
                         self.tr("Only for FSDP over several GPUs with gradient accumulation"))
        self.set_enabled("training.fsdp_wrap", fsdp, self.tr("Only for FSDP over several GPUs"))
        zero = t.sharding in {"zero1", "zero2", "zero3"}  # (DeepSpeed allocates its buckets on one GPU too)
        # what an empty bucket field stands for: Hugging Face's fill from this model's hidden size when "auto"
        h2 = float(scenario.model.hidden_size) ** 2
        for path, auto, default in (("training.deepspeed_reduce_bucket", h2, "500M"),
                                    ("training.deepspeed_prefetch_bucket", 0.9 * h2, "50M")):
            edit = self.fields[path].widget
            edit.setPlaceholderText(
                self.tr("{size} (\u201cauto\u201d from the hidden size)").format(size=format_count(auto))
                if t.deepspeed_auto_buckets else self.tr("{default} (DeepSpeed's default)").format(default=default))
        for path in ("training.deepspeed_auto_buckets", "training.deepspeed_reduce_bucket"):
            self.set_enabled(path, zero, self.tr("Only for DeepSpeed ZeRO"))
        for path in ("training.deepspeed_prefetch_bucket", "training.deepspeed_sub_group",
                     "training.deepspeed_max_reuse_distance"):
            self.set_enabled(path, t.sharding == "zero3", self.tr("Only for DeepSpeed ZeRO-3"))
        self.set_enabled("training.zero_init", t.sharding == "zero3" and t.num_gpus > 1 and t.method != "qlora",
                         self.tr("Only for DeepSpeed ZeRO-3 over several GPUs, without a quantised base"))
        self.set_enabled("training.eval_generate_tokens", t.workload == "sft" and t.eval_micro_batch > 0,
                         self.tr("Only for supervised fine-tuning that evaluates during training")
                         if t.workload != "sft" else self.tr("Set an evaluation batch to evaluate during training"))


class DatasetPanel(FieldPanel):
    """How much text is trained on."""

    def __init__(self, store: AppStore, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Dataset"), store, parent)
        self.add_int("dataset.examples", self.tr("Examples"), 0, 2_000_000_000, suffix=self.tr("examples"), step=1000)
        self.add_float("dataset.tokens_per_example", self.tr("Tokens per example"), 0, 100_000_000, decimals=0, step=64,
                       suffix=self.tr("tokens"), tip=self.tr("Average real (non-padding) tokens per example"))
        self.add_float("dataset.epochs", self.tr("Epochs"), 0.01, 10_000, decimals=2, step=1, suffix=self.tr("epochs"))
        self.add_count("dataset.total_tokens", self.tr("Total tokens (optional)"),
                       placeholder=self.tr("e.g. 50M — empty: examples × tokens"),
                       tip=self.tr("Dataset size in tokens per epoch; replaces examples × tokens per example. "
                                   "Accepts 50M, 1.5B, 2e9"))
        self.add_float("dataset.eval_fraction", self.tr("Held out for evaluation (0-1)"), 0.0, 0.99, decimals=3, step=0.01,
                       tip=self.tr("Share of the examples held out and evaluated once per epoch (LLaMA-Factory "
                                   "val_size, axolotl val_set_size); 0: none"))
        self.add_float("dataset.padding_efficiency", self.tr("Padding efficiency"), 0.01, 1.0, decimals=2, step=0.05,
                       tip=self.tr("Real tokens / computed tokens when sequences are padded (1.00 = no waste)"))
        self.add_float("dataset.rank_padding_efficiency", self.tr("Slowest-GPU padding"), 0.01, 1.0, decimals=2,
                       step=0.05, tip=self.tr("Dynamic padding over several GPUs: real tokens per row / the padded "
                                              "row of the GPU with the longest micro-batch, which every step waits "
                                              "for (1.00 = no spread; set from a file)"))
        self.add_float("dataset.packing_efficiency", self.tr("Packing efficiency"), 0.01, 1.0, decimals=2, step=0.05,
                       tip=self.tr("Packed rows: real tokens / the tokens of the rows they fill (set from a file). "
                                   "LLaMA-Factory pads every pack to the cutoff length, so the gaps are computed too"))
        self.add_count("dataset.tokens_std", self.tr("Length spread (optional)"),
                       placeholder=self.tr("tokens, e.g. 300 — empty: unknown"),
                       tip=self.tr("Standard deviation of the example lengths in tokens (set from a file). "
                                   "Padding-free batches are sized by the largest sum of lengths the run draws; "
                                   "unknown: micro-batch × sequence length"))
        # your own file, counted with the model's tokenizer (issue #19)
        self.file_button = QPushButton(self.tr("From a file…"))
        self.file_button.setAccessibleName(self.tr("Dataset from a file"))
        self.file_button.setToolTip(self.tr("Count the tokens of your JSONL, JSON, CSV or Parquet file with the "
                                            "model's tokenizer and set examples, tokens per example and padding "
                                            "from it"))
        self.file_button.clicked.connect(self.open_file_dialog)
        self.add_widget_row("", self.file_button)
        self.file_dialog: DatasetFileDialog | None = None

    def open_file_dialog(self) -> DatasetFileDialog:
        """Show Dataset from a file (window-modal; it writes to the store only on Apply)."""
        dialog = DatasetFileDialog(self.store, self.window())
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(self._file_dialog_closed)
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def _file_dialog_closed(self, _result: int) -> None:
        self.file_dialog = None

    def update_enabled(self, scenario: Scenario) -> None:
        """Examples x tokens are replaced by total tokens; padding efficiency does not apply to packing."""
        total = scenario.dataset.total_tokens is not None
        self.set_enabled("dataset.examples", not total, self.tr("Replaced by total tokens"))
        self.set_enabled("dataset.tokens_per_example", not total, self.tr("Replaced by total tokens"))
        self.set_enabled("dataset.padding_efficiency", scenario.training.sequence_mode in {"fixed", "dynamic"},
                         self.tr("Packed and padding-free batches have no padding"))
        t = scenario.training
        self.set_enabled("dataset.packing_efficiency", pads_packs(t),
                         self.tr("Only packed rows of a stack that pads each pack (LLaMA-Factory SFT)"))
        self.set_enabled("dataset.tokens_std", t.sequence_mode == "padding-free" and not total,
                         self.tr("Only for padding-free batches of examples"))
        self.set_enabled("dataset.rank_padding_efficiency",
                         t.sequence_mode == "dynamic" and t.num_gpus > 1 and t.sharding != "none",
                         self.tr("Only dynamic padding over several data-parallel GPUs"))


class HardwarePanel(FieldPanel):
    """GPU, price per GPU-hour (with provider and date), billing, storage, transfer and overheads."""

    CUSTOM_GPU = "__custom_gpu__"

    def __init__(self, store: AppStore, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Hardware && pricing"), store, parent)
        self.gpu_combo = ComboBox()
        self.gpu_combo.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.gpu_combo.setAccessibleName(self.tr("GPU"))
        self.gpu_combo.setToolTip(self.tr("Catalog GPUs with the memory the driver reports (nvidia-smi total)"))
        self.gpu_combo.setMaxVisibleItems(24)
        segments: dict[str, list] = {}
        self._catalog_gpus = {g.id: g for g in catalog.list_gpus()}
        for g in self._catalog_gpus.values():
            segments.setdefault(g.segment, []).append(g)
        for segment, gpus in segments.items():
            _add_header(self.gpu_combo, SEGMENT_LABELS.get(segment, segment.capitalize()))
            for g in gpus:
                self.gpu_combo.addItem(f"   {g.name}  ·  {g.memory_gib:g} GiB", g.id)
        self.gpu_combo.currentIndexChanged.connect(self._on_gpu)
        label = QLabel(self.tr("GPU:"))
        label.setBuddy(self.gpu_combo)
        self.form.addRow(label, self.gpu_combo)

        self.offer_combo = ComboBox()
        self.offer_combo.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.offer_combo.setAccessibleName(self.tr("Price offer"))
        self.offer_combo.setToolTip(self.tr("Dated prices for this GPU from your price book (Tools → Prices…), cheapest first"))
        self.offer_combo.currentIndexChanged.connect(self._on_offer)
        label = QLabel(self.tr("Offer:"))
        label.setBuddy(self.offer_combo)
        self.form.addRow(label, self.offer_combo)
        self._offers: list[catalog.PriceEntry] = []
        self._offers_gpu = ""

        self.add_float("pricing.price_per_gpu_hour", self.tr("Price"), 0, 10_000, decimals=2, step=0.05, prefix="$ ",
                       suffix=self.tr("per GPU-hour"), tip=self.tr("USD per GPU per hour; typing a price makes it yours"))
        self.price_source = _info_label()
        self.price_source.setTextFormat(Qt.TextFormat.PlainText)  # the provider comes from the plan file
        self.price_source.setAccessibleName(self.tr("Price source"))
        self.add_hint("pricing.price_per_gpu_hour", self.price_source)
        self.add_choice("pricing.billing", self.tr("Billing"), [
            ("second", self.tr("Per second")), ("minute", self.tr("Per minute")), ("hour", self.tr("Per started hour"))],
            tip=self.tr("How the provider rounds GPU time up"))
        self.add_float("pricing.storage_gb", self.tr("Storage"), 0, 10_000_000, decimals=0, step=10, suffix="GB")
        self.add_float("pricing.storage_usd_per_gb_month", self.tr("Storage price"), 0, 1000, decimals=3, step=0.01,
                       prefix="$ ", suffix=self.tr("per GB-month"))
        self.add_float("pricing.setup_minutes", self.tr("Setup"), 0, 100_000, decimals=0, step=5, suffix=self.tr("min"),
                       tip=self.tr("Billed GPU time before training: pulling images, downloading the model"))
        self.add_float("pricing.eval_minutes", self.tr("Evaluation"), 0, 100_000, decimals=0, step=5, suffix=self.tr("min"))
        self.add_float("pricing.egress_gb", self.tr("Data out (egress)"), 0, 10_000_000, decimals=0, step=10, suffix="GB")
        self.add_float("pricing.egress_usd_per_gb", self.tr("Egress price"), 0, 100, decimals=3, step=0.01,
                       prefix="$ ", suffix=self.tr("per GB"))
        self.add_float("pricing.other_usd", self.tr("Other costs"), 0, 1_000_000_000, decimals=2, step=1, prefix="$ ")
        self.add_float("pricing.interruptions_per_hour", self.tr("Interruptions"), 0, 100, decimals=2, step=0.05,
                       suffix=self.tr("per hour"), tip=self.tr("Expected preemptions per hour (spot / community hosts)"))
        self.add_float("pricing.checkpoint_every_min", self.tr("Checkpoint every"), 1, 100_000, decimals=0, step=5,
                       suffix=self.tr("min"), tip=self.tr("One checkpoint save per interval of training (each save takes checkpoint size ÷ "
                                   "disk speed); on an interruption the work since the last one is lost"))

    def _on_gpu(self, index: int) -> None:
        gpu_id = self.gpu_combo.itemData(index)
        if gpu_id and gpu_id != self.CUSTOM_GPU:
            self.store.set_gpu(gpu_id)

    def reload_offers(self) -> None:
        """Re-read this GPU's offers (the price book changed) and show them."""
        self._offers_gpu = ""
        self.refresh(self.store.scenario)

    def _on_offer(self, index: int) -> None:
        i = self.offer_combo.itemData(index)
        if isinstance(i, int) and 0 <= i < len(self._offers):
            self.store.set_price_offer(self._offers[i])
        elif i == -1:
            self.store.set_custom_price()

    def refresh(self, scenario: Scenario) -> None:
        """Select the GPU, list its offers and show where the price comes from."""
        super().refresh(scenario)
        gpu_id = scenario.gpu.id
        self.gpu_combo.blockSignals(True)
        self.offer_combo.blockSignals(True)
        try:
            custom = self.gpu_combo.findData(self.CUSTOM_GPU)
            if scenario.gpu == self._catalog_gpus.get(gpu_id):
                if custom >= 0:
                    self.gpu_combo.removeItem(custom)
                self.gpu_combo.setCurrentIndex(self.gpu_combo.findData(gpu_id))
            else:  # a plan saved with a GPU that is not (or no longer) the catalog's
                text = self.tr("Custom: {name}  ·  {memory} GiB").format(
                    name=scenario.gpu.name, memory=f"{scenario.gpu.memory_gib:g}")
                if custom < 0:
                    self.gpu_combo.insertItem(0, text, self.CUSTOM_GPU)
                    custom = 0
                self.gpu_combo.setItemText(custom, text)
                self.gpu_combo.setCurrentIndex(custom)
            if gpu_id != self._offers_gpu:
                self._offers_gpu = gpu_id
                self._offers = self.store.prices.prices_for_gpu(gpu_id)
                self.offer_combo.clear()
                self.offer_combo.addItem(self.tr("Your own price"), -1)
                today = app_today()
                for n, e in enumerate(self._offers):  # each with its date, old ones marked (issue #19)
                    self.offer_combo.addItem(offer_text(e, today), n)
                    # a long provider name is cut at the form's width: the whole offer on hover
                    self.offer_combo.setItemData(n + 1, offer_text(e, today), Qt.ItemDataRole.ToolTipRole)
            # the offer whose price for the plan's GPU count is the plan's (a node-only offer bills its node)
            current = self.store.current_offer(scenario)
            match = next((n for n, e in enumerate(self._offers) if e == current), -1)
            self.offer_combo.setCurrentIndex(self.offer_combo.findData(match))
            self.offer_combo.setToolTip(plain_tooltip("\n".join(t for t in (
                self.offer_combo.itemData(self.offer_combo.currentIndex(), Qt.ItemDataRole.ToolTipRole) or "",
                self.tr("Dated prices for this GPU from your price book (Tools → Prices…), cheapest first")) if t)))
        finally:
            self.gpu_combo.blockSignals(False)
            self.offer_combo.blockSignals(False)
        p = scenario.pricing
        if p.offer_kind == CUSTOM_OFFER:
            self.price_source.setText(self.tr("Your price"))
        else:
            seen = self.tr(", seen {date}").format(date=date_text(p.price_date, app_today())) if p.price_date else ""
            offer = self.store.current_offer(scenario)
            n = scenario.training.num_gpus
            billed = catalog.billed_gpus(offer, n) if offer is not None else n
            node = self.tr("{billed} GPUs billed (whole nodes): ${price}/h × {billed} ÷ {n} · ").format(
                billed=billed, n=n, price=f"{offer.usd_per_gpu_hour:.2f}") if offer is not None and billed > n else ""
            # the whole-node arithmetic first: it is what explains the price above, and a narrow form cuts the end
            self.price_source.setText(f"{node}{p.provider} {OFFER_KIND_LABELS.get(p.offer_kind, p.offer_kind)}{seen}")
            self.price_source.setToolTip(plain_tooltip(self.price_source.text()))  # the whole line, if it is cut

