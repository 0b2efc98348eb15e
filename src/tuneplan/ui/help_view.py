"""Help: a glossary of the words on screen, What's This on every field, and the About box (issue #21).

The glossary is one table (:data:`GLOSSARY`): a term, a short plain definition and the form fields it
explains. The same entry is the field's What's This text (Shift+F1, or Help → What's This? and a click
on the field) and a row of the searchable Help → Glossary window, so the two never say different
things. Help → About Tuneplan names the version, the dates of the bundled data and the log file.
"""

from __future__ import annotations

import html
from typing import NamedTuple

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, qVersion
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QVBoxLayout,
    QWhatsThis,
    QWidget,
)

from tuneplan import __version__, catalog
from tuneplan.ui.logs import log_file
from tuneplan.ui.menus import HELP_MENU

__all__ = ["GLOSSARY", "GlossaryDialog", "GlossaryEntry", "HelpController", "install_help", "whats_this_html"]

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate


class GlossaryEntry(NamedTuple):
    """One glossary term: its id, the term and its definition (English, translated when shown) and the
    dotted paths of the form fields it explains."""

    key: str
    term: str
    definition: str
    fields: tuple[str, ...] = ()


_G = GlossaryEntry
#: Every term the window shows that a newcomer may not know, in reading order of the form.
GLOSSARY: tuple[GlossaryEntry, ...] = (
    _G("full", QT_TRANSLATE_NOOP("Glossary", "Full fine-tuning"), QT_TRANSLATE_NOOP(
        "Glossary", "Every weight of the model is trained. Needs memory for the weights, a gradient for each of "
        "them and the optimizer's states: about 16 bytes per parameter with AdamW in mixed precision."),
       ("training.method",)),
    _G("lora", QT_TRANSLATE_NOOP("Glossary", "LoRA"), QT_TRANSLATE_NOOP(
        "Glossary", "Low-Rank Adaptation: the model's weights stay frozen and small adapter matrices beside some "
        "layers are trained instead. Only the adapters need gradients and optimizer states."),
       ("training.method", "training.lora_targets")),
    _G("qlora", QT_TRANSLATE_NOOP("Glossary", "QLoRA"), QT_TRANSLATE_NOOP(
        "Glossary", "LoRA on a base model stored in 4 bits (NF4). The frozen weights take about a quarter of "
        "their 16-bit size; each layer is unpacked to 16 bits while it computes, which costs some time."),
       ("training.method",)),
    _G("nf4", QT_TRANSLATE_NOOP("Glossary", "NF4"), QT_TRANSLATE_NOOP(
        "Glossary", "4-bit NormalFloat, the format QLoRA stores frozen weights in: 16 levels spaced for "
        "bell-shaped weights, with one scale per block of 64 weights."),
       ("training.method",)),
    _G("int8", QT_TRANSLATE_NOOP("Glossary", "LLM.int8 (8-bit base)"), QT_TRANSLATE_NOOP(
        "Glossary", "bitsandbytes' 8-bit format (load_in_8bit): each frozen weight takes 1 byte, with one scale per "
        "row. Every matmul turns its input into 8-bit numbers first, so it takes more time than a 16-bit base and "
        "about twice the memory of a 4-bit one."),
       ("training.quant_bits",)),
    _G("hqq", QT_TRANSLATE_NOOP("Glossary", "HQQ (Half-Quadratic Quantization)"), QT_TRANSLATE_NOOP(
        "Glossary", "A quantisation library that needs no calibration data: each frozen weight is stored in 4 or 8 "
        "bits with a scale and a zero point per group of 64 weights. Every matmul unpacks the whole weight to 16 "
        "bits in a few steps and keeps its input for the backward, so it takes more memory and time than NF4."),
       ("training.quant_method", "training.quant_group_size")),
    _G("double_quant", QT_TRANSLATE_NOOP("Glossary", "Double quantization"), QT_TRANSLATE_NOOP(
        "Glossary", "Stores the NF4 block scales in 8 bits as well, saving about 0.37 bit per weight "
        "(roughly 3 GB on a 65B model)."),
       ("training.double_quant",)),
    _G("lora_r", QT_TRANSLATE_NOOP("Glossary", "LoRA rank r"), QT_TRANSLATE_NOOP(
        "Glossary", "The inner size of each adapter: an adapted layer of size d_in × d_out gets r × (d_in + d_out) "
        "trainable numbers. Twice the rank is twice the adapter memory; typical values are 8 to 64."),
       ("training.lora_rank",)),
    _G("lora_alpha", QT_TRANSLATE_NOOP("Glossary", "LoRA alpha"), QT_TRANSLATE_NOOP(
        "Glossary", "A scale on the adapter's output (alpha ÷ r). It changes how fast training moves, not memory "
        "or time; often set to r or 2 r."),
       ("training.lora_alpha",)),
    _G("lora_dropout", QT_TRANSLATE_NOOP("Glossary", "LoRA dropout"), QT_TRANSLATE_NOOP(
        "Glossary", "Randomly zeroes part of each adapter's input while training. Above 0 the dropped copy of the "
        "input is kept for the backward pass, which costs activation memory."),
       ("training.lora_dropout",)),
    _G("lora_targets", QT_TRANSLATE_NOOP("Glossary", "LoRA targets"), QT_TRANSLATE_NOOP(
        "Glossary", "Which layers get adapters: the attention projections q and v, all four attention projections, "
        "or every linear layer (attention and MLP). More targets: more adapters and more saved inputs."),
       ("training.lora_targets",)),
    _G("adapter_precision", QT_TRANSLATE_NOOP("Glossary", "Adapter precision"), QT_TRANSLATE_NOOP(
        "Glossary", "The number format the LoRA adapters are kept in. PEFT (HF Trainer, TRL, axolotl) keeps them "
        "in FP32; torchtune and LitGPT in the training precision. It decides which copies of each layer's input "
        "are saved."),
       ("training.adapter_precision",)),
    _G("bf16", QT_TRANSLATE_NOOP("Glossary", "BF16 / FP16 / FP32"), QT_TRANSLATE_NOOP(
        "Glossary", "Number formats of 2, 2 and 4 bytes. BF16 has FP32's range and is the usual choice on Ampere "
        "and newer GPUs; FP16 needs loss scaling so small gradients do not vanish; FP32 is exact but slow and "
        "twice the memory."),
       ("training.precision",)),
    _G("mixed_precision", QT_TRANSLATE_NOOP("Glossary", "Mixed precision (FP32 master weights)"), QT_TRANSLATE_NOOP(
        "Glossary", "The weights, gradients and optimizer states are kept in FP32 and the math runs in BF16 or "
        "FP16 under autocast. Safer numerics, more memory. Without it the planner assumes pure BF16 weights and "
        "AdamW states."),
       ("training.master_weights",)),
    _G("optimizer", QT_TRANSLATE_NOOP("Glossary", "Optimizer states"), QT_TRANSLATE_NOOP(
        "Glossary", "What the optimizer remembers for every trained number: AdamW keeps two (momentum and "
        "variance), 8-bit AdamW stores them in 1 byte each, SGD without momentum keeps none. Paged optimizers may "
        "move the states to CPU memory when the GPU runs short."),
       ("training.optimizer",)),
    _G("optimizer_in_backward", QT_TRANSLATE_NOOP("Glossary", "Optimizer step in backward"), QT_TRANSLATE_NOOP(
        "Glossary", "Each weight is updated as soon as its gradient is ready and the gradient is freed, so the "
        "gradients are never all in memory at once. Cannot be combined with gradient accumulation."),
       ("training.optimizer_in_backward",)),
    _G("trainable_embeddings", QT_TRANSLATE_NOOP("Glossary", "Trainable embeddings"), QT_TRANSLATE_NOOP(
        "Glossary", "Also train the token embeddings and the LM head, needed when new tokens are added to the "
        "vocabulary. They get gradients and optimizer states like full fine-tuning."),
       ("training.trainable_embeddings",)),
    _G("kbit_upcast", QT_TRANSLATE_NOOP("Glossary", "k-bit upcast"), QT_TRANSLATE_NOOP(
        "Glossary", "PEFT's prepare_model_for_kbit_training casts the unquantised parts of a QLoRA model "
        "(embeddings, LM head, norms) to FP32: 4 bytes per parameter instead of 2. axolotl, TRL, torchtune and "
        "Unsloth skip it."),
       ("training.kbit_fp32_upcast",)),
    _G("micro_batch", QT_TRANSLATE_NOOP("Glossary", "Micro-batch"), QT_TRANSLATE_NOOP(
        "Glossary", "The sequences one GPU runs through the model in one forward and backward pass. Activation "
        "memory grows with it; a larger one usually uses the GPU better."),
       ("training.micro_batch",)),
    _G("grad_accumulation", QT_TRANSLATE_NOOP("Glossary", "Gradient accumulation"), QT_TRANSLATE_NOOP(
        "Glossary", "Run several micro-batches and add up their gradients before one optimizer step. The batch the "
        "optimizer sees grows (micro-batch × accumulation × GPUs) without more activation memory."),
       ("training.grad_accumulation",)),
    _G("optimizer_step", QT_TRANSLATE_NOOP("Glossary", "Optimizer step"), QT_TRANSLATE_NOOP(
        "Glossary", "One update of the trained weights, after the gradients of all accumulated micro-batches on "
        "all GPUs are in. Training time is the number of steps × the time of one step."),
       ()),
    _G("eval_batch", QT_TRANSLATE_NOOP("Glossary", "Evaluation during training"), QT_TRANSLATE_NOOP(
        "Glossary", "Many trainers pause every so many steps to score a held-out share of the data. The evaluation "
        "batch is how many of those examples go through at once: their logits are held whole, so a large one can "
        "need more memory than training itself. The held-out share sets how long evaluation takes."),
       ("training.eval_micro_batch", "dataset.eval_fraction")),
    _G("eval_generate", QT_TRANSLATE_NOOP("Glossary", "Evaluation that generates"), QT_TRANSLATE_NOOP(
        "Glossary", "Instead of scoring the held-out examples, the trainer writes an answer for each, one token at a "
        "time (LLaMA-Factory's predict_with_generate). It keeps a KV cache (the keys and values of every token so "
        "far) for the whole evaluation batch and runs one forward per new token, so it is slow; the full length is "
        "used by the final evaluation after training, shorter answers by those during training."),
       ("training.eval_generate_tokens",)),
    _G("workload", QT_TRANSLATE_NOOP("Glossary", "Workload"), QT_TRANSLATE_NOOP(
        "Glossary", "What the training optimises. Supervised fine-tuning learns from example answers; continued "
        "pretraining from plain text; DPO, ORPO and KTO from answers people preferred (two rows per example, DPO "
        "and KTO with a frozen reference model); a reward model learns to score answers; GRPO writes several "
        "answers per prompt every step and learns from their rewards."),
       ("training.workload", "training.reference_model")),
    _G("seq_len", QT_TRANSLATE_NOOP("Glossary", "Sequence length"), QT_TRANSLATE_NOOP(
        "Glossary", "Tokens in one training sequence. Activation memory grows with it (attention scores with its "
        "square unless FlashAttention or SDPA is used). Longer than the model's context is a warning: the model "
        "was not trained on such positions."),
       ("training.seq_len",)),
    _G("packed", QT_TRANSLATE_NOOP("Glossary", "Packed sequences"), QT_TRANSLATE_NOOP(
        "Glossary", "Examples are joined end to end into full-length sequences, so little compute is spent on "
        "padding. Whole examples rarely fill a row exactly: packing efficiency is the share of each row they fill. "
        "LLaMA-Factory pads the rest of every row, which is computed too; TRL packs without gaps."),
       ("training.sequence_mode", "dataset.packing_efficiency")),
    _G("padded", QT_TRANSLATE_NOOP("Glossary", "Padding (fixed and dynamic)"), QT_TRANSLATE_NOOP(
        "Glossary", "Each example is filled with padding tokens: to the full sequence length (padded), or to the "
        "longest example of its batch (dynamic padding). Padding tokens cost compute; padding efficiency is the "
        "share of real tokens."),
       ("training.sequence_mode", "dataset.padding_efficiency")),
    _G("padding_free", QT_TRANSLATE_NOOP("Glossary", "Padding-free batches"), QT_TRANSLATE_NOOP(
        "Glossary", "The examples of a micro-batch are joined into one row and FlashAttention keeps them apart "
        "(TRL and ms-swift padding_free). No padding is computed, but the row's length changes with every batch: "
        "memory must fit the largest sum of lengths the run draws, which the length spread of the dataset sets."),
       ("training.sequence_mode", "dataset.tokens_std")),
    _G("slowest_gpu", QT_TRANSLATE_NOOP("Glossary", "Slowest-GPU padding"), QT_TRANSLATE_NOOP(
        "Glossary", "With dynamic padding on several GPUs, each GPU pads its own micro-batch to its own longest "
        "example, and every step waits for the GPU that drew the longest one. Slowest-GPU padding is the share of "
        "real tokens in that GPU's rows; a dataset file sets it from the counted lengths."),
       ("dataset.rank_padding_efficiency",)),
    _G("grad_checkpointing", QT_TRANSLATE_NOOP("Glossary", "Gradient checkpointing"), QT_TRANSLATE_NOOP(
        "Glossary", "Keep only each layer's input during the forward pass and recompute the rest during backward. "
        "Activation memory falls sharply; each step does about one more forward pass (a third more compute)."),
       ("training.grad_checkpointing",)),
    _G("attention", QT_TRANSLATE_NOOP("Glossary", "Attention kernel"), QT_TRANSLATE_NOOP(
        "Glossary", "The code that computes attention. FlashAttention 2 and PyTorch SDPA never store the full "
        "table of attention scores; eager attention does, which grows with the square of the sequence length."),
       ("training.attention",)),
    _G("fused_ce", QT_TRANSLATE_NOOP("Glossary", "Fused cross-entropy"), QT_TRANSLATE_NOOP(
        "Glossary", "Computes the loss in chunks (Liger kernel, Cut Cross-Entropy) so the logits, one number per "
        "vocabulary token per position, are never all in memory. Large vocabularies gain the most."),
       ("training.fused_cross_entropy",)),
    _G("activation_offload", QT_TRANSLATE_NOOP("Glossary", "Activation offload"), QT_TRANSLATE_NOOP(
        "Glossary", "Saved activations are copied to CPU memory during forward and back for backward: less GPU "
        "memory, traffic over PCIe."),
       ("training.activation_offload",)),
    _G("torch_compile", QT_TRANSLATE_NOOP("Glossary", "torch.compile"), QT_TRANSLATE_NOOP(
        "Glossary", "PyTorch compiles each decoder layer into fused kernels, which saves fewer intermediate "
        "results for backward. Modelled for RMSNorm models (Llama, Qwen, Mistral, Gemma)."),
       ("training.torch_compile",)),
    _G("cpu_offload", QT_TRANSLATE_NOOP("Glossary", "CPU offload"), QT_TRANSLATE_NOOP(
        "Glossary", "DeepSpeed or FSDP keep parameters and optimizer states in CPU memory and run the optimizer "
        "on the CPU: much less GPU memory, slower steps."),
       ("training.cpu_offload",)),
    _G("ddp", QT_TRANSLATE_NOOP("Glossary", "DDP"), QT_TRANSLATE_NOOP(
        "Glossary", "Distributed Data Parallel: every GPU holds the whole model, trains on its own part of the "
        "batch and the gradients are averaged. Faster, not smaller."),
       ("training.sharding", "training.num_gpus")),
    _G("zero", QT_TRANSLATE_NOOP("Glossary", "ZeRO stages"), QT_TRANSLATE_NOOP(
        "Glossary", "DeepSpeed's sharding: stage 1 splits the optimizer states across the GPUs, stage 2 also the "
        "gradients, stage 3 also the weights. Each GPU then holds about 1 ÷ (number of GPUs) of what is split."),
       ("training.sharding",)),
    _G("fsdp", QT_TRANSLATE_NOOP("Glossary", "FSDP"), QT_TRANSLATE_NOOP(
        "Glossary", "PyTorch's Fully Sharded Data Parallel, like ZeRO stage 3: weights, gradients and optimizer "
        "states are split across the GPUs and each unit's weights are gathered just before it computes."),
       ("training.sharding",)),
    _G("fsdp_unit", QT_TRANSLATE_NOOP("Glossary", "FSDP unit"), QT_TRANSLATE_NOOP(
        "Glossary", "A group of layers FSDP gathers and frees as one, usually one decoder layer. The unit being "
        "computed is held whole on every GPU; how the embeddings and the LoRA adapters are grouped changes the "
        "peak."),
       ("training.fsdp_wrap",)),
    _G("no_sync", QT_TRANSLATE_NOOP("Glossary", "no_sync (gradient sync)"), QT_TRANSLATE_NOOP(
        "Glossary", "With gradient accumulation under FSDP, no_sync skips the exchange of gradients until the "
        "last micro-batch of a step: less communication, but every GPU keeps a whole unsharded gradient meanwhile."),
       ("training.grad_sync",)),
    _G("naive_split", QT_TRANSLATE_NOOP("Glossary", "Layers split (no sharding)"), QT_TRANSLATE_NOOP(
        "Glossary", "Several GPUs without DDP, ZeRO or FSDP: the layers are spread over the GPUs (Hugging Face "
        "device_map) and only one GPU works at a time."),
       ("training.sharding",)),
    _G("epoch", QT_TRANSLATE_NOOP("Glossary", "Epoch"), QT_TRANSLATE_NOOP(
        "Glossary", "One pass over the whole dataset. Tokens trained = dataset tokens × epochs."),
       ("dataset.epochs", "dataset.examples", "dataset.tokens_per_example", "dataset.total_tokens")),
    _G("mfu", QT_TRANSLATE_NOOP("Glossary", "MFU"), QT_TRANSLATE_NOOP(
        "Glossary", "Model FLOPs Utilisation: the model's useful arithmetic per second divided by the GPU's peak "
        "rate. 30–50 % is good for training; recomputation and padding do not count as useful."),
       ()),
    _G("device_total", QT_TRANSLATE_NOOP("Glossary", "Device total"), QT_TRANSLATE_NOOP(
        "Glossary", "The memory the GPU must hold at the step's peak: what PyTorch reserves plus the CUDA context, "
        "library workspaces and memory outside PyTorch. It is compared with what the driver reports as the "
        "card's total, as nvidia-smi shows it."),
       ()),
    _G("allocator_overhead", QT_TRANSLATE_NOOP("Glossary", "Allocator overhead"), QT_TRANSLATE_NOOP(
        "Glossary", "Memory PyTorch has reserved but is not using at the peak: gaps between blocks of different "
        "sizes (fragmentation) that its caching allocator cannot hand out."),
       ()),
    _G("cuda_context", QT_TRANSLATE_NOOP("Glossary", "CUDA context"), QT_TRANSLATE_NOOP(
        "Glossary", "What the driver and libraries take before the first tensor: the loaded kernels and their "
        "bookkeeping, about half a GiB."),
       ()),
    _G("activations", QT_TRANSLATE_NOOP("Glossary", "Activations"), QT_TRANSLATE_NOOP(
        "Glossary", "Intermediate results of the forward pass saved for the backward pass. They grow with "
        "micro-batch × sequence length and are usually the part the memory savers shrink."),
       ()),
    _G("likely_range", QT_TRANSLATE_NOOP("Glossary", "Likely range"), QT_TRANSLATE_NOOP(
        "Glossary", "Where the real figure probably lands, from how far the estimate was off on measured runs. "
        "“Tight” means the estimate fits but the top of the range does not."),
       ()),
    _G("pessimistic", QT_TRANSLATE_NOOP("Glossary", "Pessimistic cost"), QT_TRANSLATE_NOOP(
        "Glossary", "The cost if spot or community GPUs are interrupted more often than expected and the run must "
        "repeat the work lost since each checkpoint; on on-demand GPUs it equals the expected cost."),
       ()),
    _G("allocated_reserved", QT_TRANSLATE_NOOP("Glossary", "Allocated and reserved (peak)"), QT_TRANSLATE_NOOP(
        "Glossary", "PyTorch's two counters: allocated is what live tensors use (torch.cuda.max_memory_allocated), "
        "reserved what its caching allocator holds from the driver, allocated plus blocks kept for reuse "
        "(max_memory_reserved). The device total adds the CUDA context and NCCL buffers."),
       ()),
    _G("tokens_per_second", QT_TRANSLATE_NOOP("Glossary", "Tokens per second (tok/s)"), QT_TRANSLATE_NOOP(
        "Glossary", "Training throughput: tokens of the dataset processed per second on each GPU. Time = tokens "
        "of the run ÷ (tok/s × GPUs), plus setup, evaluation and checkpoints."),
       ()),
    _G("why_this_much", QT_TRANSLATE_NOOP("Glossary", "Why this much?"), QT_TRANSLATE_NOOP(
        "Glossary", "The tab that shows every number of the estimate with its formula, your values and its source: "
        "each memory component, each term of a training step, each phase of the run and each cost line."),
       ()),
    _G("verdict", QT_TRANSLATE_NOOP("Glossary", "Verdict"), QT_TRANSLATE_NOOP(
        "Glossary", "Whether the device total fits the GPU: green fits, amber tight (the likely range reaches past "
        "the card), red short. A plan that does not fit cannot run, so its time and cost are shown greyed."),
       ()),
    _G("gpu_hour", QT_TRANSLATE_NOOP("Glossary", "GPU-hour"), QT_TRANSLATE_NOOP(
        "Glossary", "One GPU rented for one hour. Cost = billed hours × GPUs × price per GPU-hour, plus storage, "
        "data transfer and other costs."),
       ("pricing.price_per_gpu_hour",)),
    _G("billing", QT_TRANSLATE_NOOP("Glossary", "Billing granularity"), QT_TRANSLATE_NOOP(
        "Glossary", "How the provider rounds the time up: per second, per minute or per started hour."),
       ("pricing.billing",)),
    _G("spot", QT_TRANSLATE_NOOP("Glossary", "Spot / community GPUs and interruptions"), QT_TRANSLATE_NOOP(
        "Glossary", "Cheaper GPUs the provider may take back mid-run. Each interruption loses the work since the "
        "last checkpoint; the cost includes the expected losses."),
       ("pricing.interruptions_per_hour", "pricing.checkpoint_every_min")),
    _G("egress", QT_TRANSLATE_NOOP("Glossary", "Egress"), QT_TRANSLATE_NOOP(
        "Glossary", "Data sent out of the provider's network, such as downloading the trained model; some "
        "providers charge per GB."),
       ("pricing.egress_gb", "pricing.egress_usd_per_gb")),
    _G("setup", QT_TRANSLATE_NOOP("Glossary", "Setup and evaluation time"), QT_TRANSLATE_NOOP(
        "Glossary", "Billed GPU time outside training: starting the machine, downloading the model and data, and "
        "evaluating afterwards."),
       ("pricing.setup_minutes", "pricing.eval_minutes")),
)


def entry(key: str) -> GlossaryEntry:
    """The glossary entry with id ``key`` (KeyError when there is none)."""
    for e in GLOSSARY:
        if e.key == key:
            return e
    raise KeyError(key)


def entry_text(e: GlossaryEntry) -> tuple[str, str]:
    """An entry's term and definition in the UI language."""
    return translate("Glossary", e.term), translate("Glossary", e.definition)


def whats_this_html(entries: list[GlossaryEntry]) -> str:
    """The What's This text of a control: each term in bold and its definition, escaped (Qt shows it as rich text)."""
    parts = []
    for e in entries:
        term, definition = entry_text(e)
        parts.append(f"<p><b>{html.escape(term)}</b><br>{html.escape(definition)}</p>")
    return "".join(parts)


class GlossaryDialog(QDialog):
    """Help → Glossary: the terms in a list on the left, filtered by a search box; the chosen term's
    definition on the right, as plain text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Glossary — Tuneplan"))
        self.search = QLineEdit()
        self.search.setPlaceholderText(self.tr("Search terms and definitions"))
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName(self.tr("Search the glossary"))
        self.terms = QListWidget()
        self.terms.setAccessibleName(self.tr("Terms"))
        self.term_title = QLabel()
        self.term_title.setTextFormat(Qt.TextFormat.PlainText)
        self.term_title.setStyleSheet("font-weight: 600; font-size: 12pt;")
        self.definition = QLabel()
        self.definition.setTextFormat(Qt.TextFormat.PlainText)
        self.definition.setWordWrap(True)
        self.definition.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.definition.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.definition.setAccessibleName(self.tr("Definition"))
        self.empty = QLabel(self.tr("No term matches."))
        self.empty.hide()
        for e in sorted(GLOSSARY, key=lambda e: entry_text(e)[0].casefold()):
            term, definition = entry_text(e)
            item = QListWidgetItem(term)
            item.setData(Qt.ItemDataRole.UserRole, e.key)
            self.terms.addItem(item)
        right = QVBoxLayout()
        right.addWidget(self.term_title)
        right.addWidget(self.definition, 1)
        body = QHBoxLayout()
        body.addWidget(self.terms, 2)
        body.addLayout(right, 3)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.search)
        layout.addWidget(self.empty)
        layout.addLayout(body, 1)
        layout.addWidget(buttons)
        self.resize(720, 440)
        self.search.textChanged.connect(self.filter)
        self.terms.currentItemChanged.connect(lambda item, _old: self._show(item))
        self.terms.setCurrentRow(0)

    def visible_terms(self) -> list[str]:
        """The terms the list shows now, top to bottom."""
        return [self.terms.item(i).text() for i in range(self.terms.count()) if not self.terms.item(i).isHidden()]

    def filter(self, text: str) -> None:
        """Show only the terms whose name or definition contains ``text`` (case-insensitive)."""
        needle = text.strip().casefold()
        first = named = None
        for i in range(self.terms.count()):
            item = self.terms.item(i)
            term, definition = entry_text(entry(item.data(Qt.ItemDataRole.UserRole)))
            hidden = bool(needle) and needle not in term.casefold() and needle not in definition.casefold()
            item.setHidden(hidden)
            if not hidden and first is None:
                first = item
            if not hidden and named is None and needle and needle in term.casefold():
                named = item  # a term whose own name matches ("zero" -> "ZeRO stages", not "FSDP" above it)
        self.empty.setVisible(first is None)
        current = self.terms.currentItem()
        if named is not None and (current is None or needle not in current.text().casefold()):
            self.terms.setCurrentItem(named)
        elif current is None or current.isHidden():
            self.terms.setCurrentItem(first)
            if first is None:
                self._show(None)

    def show_term(self, key: str) -> None:
        """Select the term with id ``key`` (clearing the search if it hides it)."""
        for i in range(self.terms.count()):
            item = self.terms.item(i)
            if item.data(Qt.ItemDataRole.UserRole) == key:
                if item.isHidden():
                    self.search.clear()
                self.terms.setCurrentItem(item)
                return
        raise KeyError(key)

    def _show(self, item: QListWidgetItem | None) -> None:
        if item is None:
            self.term_title.setText("")
            self.definition.setText("")
            return
        term, definition = entry_text(entry(item.data(Qt.ItemDataRole.UserRole)))
        self.term_title.setText(term)
        self.definition.setText(definition)


class HelpController:
    """The Help menu of a main window: What's This?, Glossary… and About Tuneplan, and the What's This
    texts of the form fields and the headline cards."""

    def __init__(self, window: QMainWindow) -> None:
        self.window = window
        self.glossary: GlossaryDialog | None = None
        menu = window.menuBar().addMenu(translate("Help", "&Help"))
        menu.setObjectName(HELP_MENU)
        self.menu = menu
        self.whats_this_action = QWhatsThis.createAction(window)
        self.whats_this_action.setText(translate("Help", "What's &This?"))
        self.glossary_action = QAction(translate("Help", "&Glossary…"), window, triggered=self.show_glossary)
        self.glossary_action.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
        self.about_action = QAction(translate("Help", "&About Tuneplan"), window, triggered=lambda: self.about_box().exec())
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        menu.addAction(self.whats_this_action)
        menu.addAction(self.glossary_action)
        menu.addSeparator()
        menu.addAction(self.about_action)
        self.apply_whats_this()

    def apply_whats_this(self) -> None:
        """Give every form field the glossary entries that explain it, and the headline cards theirs."""
        by_field: dict[str, list[GlossaryEntry]] = {}
        for e in GLOSSARY:
            for path in e.fields:
                by_field.setdefault(path, []).append(e)
        for panel in getattr(self.window, "panels", []):
            for path, field in getattr(panel, "fields", {}).items():
                entries = by_field.get(path)
                if not entries:
                    continue
                text = whats_this_html(entries)
                field.widget.setWhatsThis(text)
                label = panel.form.labelForField(field.container)
                if label is not None:
                    label.setWhatsThis(text)
        cards = {"memory_card": ("device_total", "allocated_reserved", "allocator_overhead", "cuda_context"),
                 "verdict_card": ("verdict", "likely_range"),
                 "time_card": ("likely_range", "tokens_per_second", "optimizer_step", "mfu"),
                 "cost_card": ("gpu_hour", "billing", "likely_range", "pessimistic"),
                 "vram_chart": ("device_total", "allocated_reserved", "activations", "allocator_overhead",
                                "cuda_context"),
                 "summary": ("mfu", "optimizer_step", "gpu_hour")}
        for name, keys in cards.items():
            widget = getattr(self.window, name, None)
            if isinstance(widget, QWidget):
                widget.setWhatsThis(whats_this_html([entry(k) for k in keys]))

    def show_glossary(self, key: str | None = None) -> GlossaryDialog:
        """Open (or raise) the glossary window, on ``key``'s term if given."""
        if self.glossary is None:
            self.glossary = GlossaryDialog(self.window)
        if key:
            self.glossary.show_term(key)
        self.glossary.show()
        self.glossary.raise_()
        self.glossary.activateWindow()
        self.glossary.search.setFocus()  # type to search at once; Escape closes it (QDialog's reject)
        return self.glossary

    def about_text(self) -> str:
        """The About box's text (rich text; every value escaped)."""
        dates = catalog.price_dates()
        log = log_file()
        e = html.escape
        rows = [
            (translate("Help", "GPU specifications"),
             translate("Help", "{n} GPUs, collected {date}").format(n=len(catalog.list_gpus()),
                                                                   date=catalog.SPECS_COLLECTED)),
            (translate("Help", "Rental prices"),
             translate("Help", "{n} offers seen {first} to {last} ({undated} undated); your price book "
                               "(Tools → Prices…) can add newer ones").format(
                 n=dates.total, first=dates.first, last=dates.last, undated=dates.undated)),
            (translate("Help", "Model configs"),
             translate("Help", "{n} models from their published config.json").format(n=len(catalog.list_models()))),
            (translate("Help", "Log file"),
             str(log) if log is not None else translate("Help", "none in this session (the log folder could not "
                                                                "be written)")),
        ]
        table = "".join(f"<tr><td style='padding-right:12px'><b>{e(k)}</b></td><td>{e(v)}</td></tr>"
                        for k, v in rows)
        what = translate("Help", "Plans the memory, time and cost of fine-tuning a language model before you rent "
                                 "or buy a GPU.")
        return (f"<h3>Tuneplan {e(__version__)}</h3><p>{e(what)}</p><table>{table}</table>"
                f"<p style='color:#666666'>Qt {e(qVersion())} · PySide6 {e(pyside_version)}</p>")

    def about_box(self) -> QMessageBox:
        """Help → About Tuneplan: version, the bundled data's dates and the log file (not yet shown)."""
        box = QMessageBox(QMessageBox.Icon.Information, translate("Help", "About Tuneplan"), "",
                          QMessageBox.StandardButton.Ok, self.window)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(self.about_text())
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return box


def install_help(window: QMainWindow) -> HelpController:
    """Add the Help menu to ``window`` and What's This texts to its fields; returns the controller."""
    return HelpController(window)
