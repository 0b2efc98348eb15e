"""Why this much? Every number of the estimate with its formula, the user's values and a source.

One tab ("Why this much?") with four tables:

* **Memory**: the ledger's components from largest to smallest, GiB, share of the device total,
  the formula with the plan's values filled in (:attr:`MemoryComponent.formula`) and where it
  comes from (:attr:`MemoryComponent.source`).
* **Totals**: peak allocated, peak reserved and the device total, one line each on what they are
  (the verdict uses the device total), the GPU's capacity and the likely range.
* **Time**: computed tokens, FLOPs per token, the GPU's peak, throughput, the optimizer step and each of
  its terms (matrix multiplications, attention, ... with the step model's formula and parts), the MFU
  that achieves, steps and each phase of the wall clock, each with its formula and the numbers that went in.
* **Cost**: the breakdown lines (GPU time, storage, egress, other, failed-run repeats) and the
  total, with their formulas.

The views only format what :class:`~tuneplan.core.result.Estimate` holds; quantities that the
estimate does not store (the attention length ``s``, a checkpoint's size) are read back from it
so the text always adds up to the numbers shown. The tables fill when the tab is visible.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QEvent,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
)
from PySide6.QtGui import QColor, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHeaderView,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from tuneplan.core import workload as wl
from tuneplan.core.cost import HOURS_PER_MONTH
from tuneplan.core.result import GIB, Estimate, MemoryComponent, MemoryEstimate
from tuneplan.core.scenario import Scenario
from tuneplan.core.terms import CALIBRATION_SUFFIX, FORMULAS, Note, Term, render_formula
from tuneplan.core.throughput import tokens_per_row
from tuneplan.ui.charts import COMPONENT_COLORS
from tuneplan.ui.i18n import (
    BOUND_LABELS,
    SI_UNIT,
    component_formula,
    component_label,
    core_note_text,
    fmt_number,
    fmt_quantity,
    peak_phase_text,
    plain_tooltip,
    plain_usd,
    term_label,
    verdict_text,
)
from tuneplan.ui.store import AppStore
from tuneplan.ui.theme import mark_self_themed, themed

__all__ = [
    "ExplainView",
    "Line",
    "LinesModel",
    "MemoryTableModel",
    "cost_lines",
    "fmt_quantity",
    "install_explain",
    "time_lines",
    "total_lines",
]

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

_Index = QModelIndex | QPersistentModelIndex


# ---------------------------------------------------------------------------------------- formatting
def _hours(h: float) -> str:
    if h < 1 / 60:
        return translate("Units", "{n} s").format(n=f"{h * 3600:.0f}")
    if h < 1:
        return translate("Units", "{n} min").format(n=f"{h * 60:.1f}")
    return translate("Units", "{n} h").format(n=f"{h:,.2f}")


def _seconds(x: float) -> str:
    """Seconds per step: ``614.8 ms`` under a second, ``1.01 s`` above."""
    if abs(x) < 1:
        return translate("Units", "{n} ms").format(n=fmt_number(x * 1000, 1))
    return translate("Units", "{n} s").format(n=fmt_number(x, 2))




def _note_text(note: Note) -> str:
    """A time note in the UI language (:func:`tuneplan.ui.i18n.core_note_text`)."""
    return core_note_text(note)


def _count(n: float) -> str:
    for suffix, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.2f} {suffix}"
    return f"{n:,.0f}"


@dataclass(frozen=True)
class Line:
    """One explained quantity: its name, its value and how it was computed (or what it means)."""

    name: str
    value: str
    formula: str
    emphasis: bool = False
    tip: str = ""




def total_lines(mem: MemoryEstimate, gpu_name: str) -> list[Line]:
    """The three totals, what each one is and which one the verdict uses, plus capacity and range."""
    gib = lambda b: f"{b / GIB:.2f} GiB"  # noqa: E731 - local formatter
    return [
        Line(
            translate("Explain", "Peak allocated"),
            gib(mem.peak_allocated_bytes),
            translate(
                "Explain",
                "Live tensors at the peak: what torch.cuda.max_memory_allocated() reports. "
                "The sum of the ledger without allocator overhead and CUDA context.",
            ),
        ),
        Line(
            translate("Explain", "Peak reserved"),
            gib(mem.peak_reserved_bytes),
            translate(
                "Explain",
                "Allocated plus the caching allocator's cached and fragmented blocks: "
                "torch.cuda.max_memory_reserved() on this GPU.",
            ) + (" " + translate(
                "Explain",
                "With dynamic padding it includes {cache} of cached blocks of earlier, shorter batches that longer "
                "batches cannot reuse; the allocator gives them back before it runs out of memory, so they are not "
                "in the device total.",
            ).format(cache=gib(mem.cache_bytes)) if mem.cache_bytes else ""),
        ),
        Line(
            translate("Explain", "Device total ← the verdict uses this"),
            gib(mem.total_bytes),
            translate(
                "Explain",
                "Reserved memory the allocator cannot give back, plus the CUDA context and NCCL buffers: what must "
                "fit, and what runs out. nvidia-smi on this GPU will show about {smi} once the cache has built up (it can "
                "grow until the card is full).",
            ).format(smi=gib(mem.total_bytes + mem.cache_bytes)) if mem.cache_bytes else translate(
                "Explain",
                "Reserved plus the CUDA context and NCCL buffers: what nvidia-smi shows, and what runs out.",
            ),
            emphasis=True,
        ),
        *(
            [Line(
                translate("Explain", "Paged optimizer states (not counted)"),
                gib(mem.paged_bytes),
                translate(
                    "Explain",
                    "Held in CUDA unified memory: nvidia-smi shows them while the GPU has room, and on Linux "
                    "the driver moves them to CPU RAM when it does not, so they cannot run the GPU out of "
                    "memory (slower steps instead). On Windows and WSL2 CUDA cannot page them out: there they "
                    "must fit on the GPU too.",
                ),
            )]
            if mem.paged_bytes
            else []
        ),
        *(
            [Line(
                translate("Explain", "Largest micro-batch"),
                translate("Explain", "{tokens} tokens").format(tokens=fmt_number(mem.batch_term.value, 0)),
                SI_UNIT.sub(r"\1 \2\3", render_formula(
                    mem.batch_term, fmt=fmt_quantity,
                    template=translate("Terms", FORMULAS[mem.batch_term.key]))),
                tip=mem.batch_term.source,
            )]
            if mem.batch_term is not None
            else []
        ),
        Line(
            translate("Explain", "GPU capacity"),
            gib(mem.capacity_bytes),
            translate(
                "Explain",
                "{gpu}: the total the driver reports (nvidia-smi), which is what a job can fill. {verdict}.",
            ).format(gpu=gpu_name, verdict=verdict_text(mem)[:1].upper() + verdict_text(mem)[1:]),
        ),
        Line(
            translate("Explain", "Likely range"),
            f"{mem.low_bytes / GIB:.1f}–{mem.high_bytes / GIB:.1f} GiB",
            translate(
                "Explain",
                "Where the real device total is likely to fall, given how this estimator has erred on "
                "published measurements of real runs (10th–90th percentile, docs/accuracy.md).",
            ),
        ),
    ]


def _time_term_line(term: Term) -> Line:
    """A time term as a line: its name, seconds and formula in the UI language (with the calibration suffix when a
    pilot run scaled it)."""
    template = FORMULAS.get(term.key)
    return Line(
        term_label(term.key),
        _seconds(term.value),
        SI_UNIT.sub(r"\1 \2\3", render_formula(
            term, fmt=fmt_quantity, template=translate("Terms", template) if template is not None else None,
            suffix=translate("Terms", CALIBRATION_SUFFIX),
        )),
        tip=term.source,
    )


def time_lines(s: Scenario, r: Estimate) -> list[Line]:
    """Tokens, FLOPs per token, peak, throughput, the step and its terms, MFU, steps and the wall-clock phases."""
    t, d, a, gpu, p = s.training, s.dataset, s.model, s.gpu, s.pricing
    tm = r.time
    lines: list[Line] = []

    # tokens
    if d.total_tokens is not None:
        per_epoch = translate("Explain", "{n} tokens per epoch").format(n=_count(d.total_tokens))
    else:
        per_epoch = translate("Explain", "{ex} examples × {tok} tokens").format(
            ex=f"{d.examples:,}", tok=f"{d.tokens_per_example:,.0f}"
        )
    if t.sequence_mode in {"packed", "padding-free"} or (t.sequence_mode == "dynamic" and t.micro_batch == 1):
        how = (
            translate("Explain", "{per_epoch} × {epochs} epochs (packed: no padding)")
            if t.sequence_mode == "packed"
            else translate("Explain", "{per_epoch} × {epochs} epochs (padding-free: no padding)")
            if t.sequence_mode == "padding-free"
            else translate("Explain", "{per_epoch} × {epochs} epochs (micro-batch 1: nothing to pad)")
        ).format(per_epoch=per_epoch, epochs=f"{d.epochs:g}")
    elif t.sequence_mode == "fixed" and d.total_tokens is None:
        how = translate(
            "Explain", "{ex} examples × {seq} tokens (each padded to the sequence length) × {epochs} epochs"
        ).format(ex=f"{d.examples:,}", seq=f"{t.seq_len:,}", epochs=f"{d.epochs:g}")
    else:
        how = translate("Explain", "{per_epoch} × {epochs} epochs ÷ padding efficiency {eff}").format(
            per_epoch=per_epoch, epochs=f"{d.epochs:g}", eff=f"{d.padding_efficiency:.2f}"
        )
    lines.append(Line(translate("Explain", "Tokens computed"), _count(tm.tokens_total), how))

    # FLOPs per token: 6N (full) or 4N (LoRA, QLoRA) + 12·L·d·s; s read back from the estimate
    n = float(a.matmul_params_per_token())
    k = 6 if t.method == "full" else 4
    # d: the mean of the query/key and value widths (they differ under multi-head latent attention); p: forward
    # passes without gradients per trained token (DPO/KTO reference, GRPO's old log-probs), each 2N + 4·L·d·s
    layers, width = a.num_attention_layers, (a.q_dim + a.attn_out_dim) / 2.0
    passes = sum(wl.nograd_passes(t))
    seq = ((tm.flops_per_token - (k + 2 * passes) * n) / ((12.0 + 4.0 * passes) * layers * width)
           if layers and width else 0.0)
    lines.append(
        Line(
            translate("Explain", "FLOPs per token"),
            f"{tm.flops_per_token / 1e9:,.1f} GFLOP",
            translate(
                "Explain",
                "{k}N + 12·L·d·s = {k} × {n} + 12 × {L} × {d} × {s} "
                "(N weights per token, L attention layers, d query width, s tokens the attention sees; "
                "{k}N: {why})",
            ).format(
                k=k,
                n=_count(n),
                L=layers,
                d=f"{width:,.0f}",
                s=f"{seq:,.0f}",
                why=translate("Explain", "forward, backward and weight gradients")
                if k == 6
                else translate("Explain", "forward and activation gradients; the frozen weights' gradients that "
                                          "mixed FSDP units compute are wasted work, in the time below")
                if t.frozen_weight_grads
                else translate("Explain", "forward and activation gradients; frozen weights get none"),
            ) + (translate("Explain", " + {p} forward passes without gradients × (2N + 4·L·d·s): the reference "
                                      "model's or the policy's log-probs").format(p=passes) if passes else ""),
            tip=translate(
                "Explain",
                "Model FLOPs (what MFU counts). Gradient checkpointing adds a recomputed forward, "
                "2N + 4·L·d·s, which the GPU does but MFU does not count. Kaplan et al. 2020; PaLM App. B.",
            ),
        )
    )

    # peak and MFU
    spec_tflops = gpu.peak_tflops / (2 if t.precision == "fp32" else 1)
    kind = (
        "TF32"
        if t.precision == "fp32"
        else ("BF16" if gpu.bf16_supported and gpu.bf16_tflops > 0 else "FP16")
    )
    lines.append(
        Line(
            translate("Explain", "GPU peak"),
            f"{spec_tflops:,.1f} TFLOPS",
            translate(
                "Explain", "{gpu}: dense {kind} tensor throughput from the spec sheet (no sparsity)"
            ).format(gpu=gpu.name, kind=kind),
        )
    )
    # throughput, the optimizer step and its terms (seconds per step per GPU), then the MFU it achieves
    lines.append(
        Line(
            translate("Explain", "Throughput"),
            translate("Explain", "{tps} tokens/s per GPU").format(tps=fmt_number(tm.tokens_per_second, 0)),
            translate(
                "Explain", "tokens per step ÷ step seconds = {tok} ÷ {sec} s; likely {low}–{high} tokens/s"
            ).format(
                tok=fmt_number(tm.tokens_per_step, 0),
                sec=fmt_number(tm.step_seconds, 3),
                low=fmt_number(tm.tokens_per_second_low, 0),
                high=fmt_number(tm.tokens_per_second_high, 0),
            ),
            tip=translate(
                "Explain",
                "The likely range: the step model's measured error on published runs, or your pilot run's "
                "spread once you import one (Tools → Import pilot run…).",
            ),
        )
    )
    notes = "; ".join(_note_text(note) for note in tm.messages)
    lines.append(
        Line(
            translate("Explain", "Optimizer step"),
            _seconds(tm.step_seconds),
            translate("Explain", "{tok} tokens per GPU per step, {bound}: the sum of the terms below{notes}").format(
                tok=fmt_number(tm.tokens_per_step, 0),
                bound=BOUND_LABELS.get(tm.bound, tm.bound),
                notes=f" ({notes})" if notes else "",
            ),
            emphasis=True,
        )
    )
    lines.extend(_time_term_line(term) for term in tm.step_terms if term.value > 0)
    lines.append(
        Line(
            translate("Explain", "MFU"),
            f"{fmt_number(tm.mfu * 100, 1)} %",
            translate(
                "Explain",
                "Model FLOPs achieved ÷ spec peak = {f} GFLOP × {tps} tokens/s ÷ {peak} TFLOPS: an output of the "
                "step model above, not an input",
            ).format(
                f=fmt_number(tm.flops_per_token / 1e9, 1),
                tps=fmt_number(tm.tokens_per_second, 0),
                peak=fmt_number(spec_tflops, 1),
            ),
            tip=translate(
                "Explain",
                "Recomputed activations (gradient checkpointing) and padding are work the GPU does but MFU does "
                "not count. A measured MFU in the scenario (mfu_override) replaces the step model.",
            ),
        )
    )
    lines.append(
        Line(
            translate("Explain", "Optimizer steps"),
            f"{tm.steps:,.0f}",
            translate(
                "Explain",
                "tokens ÷ (micro-batch {mb} × {seq} tokens × accumulation {ga} × {n} GPU), rounded up",
            ).format(mb=t.micro_batch, seq=f"{tokens_per_row(t, d):,.0f}", ga=t.grad_accumulation, n=t.num_gpus)
            + (translate("Explain", " (dynamic padding: a row is as long as its longest example, not the sequence "
                                    "length)") if t.sequence_mode == "dynamic" and tokens_per_row(t, d) < t.seq_len
               else translate("Explain", " (padding-free: each example counts its own tokens)")
               if t.sequence_mode == "padding-free" and tokens_per_row(t, d) < t.seq_len else ""),
        )
    )

    # phases
    ph = tm.phases
    lines.append(
        Line(
            translate("Explain", "Training"),
            _hours(ph.get("training", 0.0) / 3600),
            translate("Explain", "tokens ÷ (tokens/s × GPUs) = {tok} ÷ ({tps} × {n})").format(
                tok=_count(tm.tokens_total), tps=f"{tm.tokens_per_second:,.0f}", n=t.num_gpus
            ),
        )
    )
    download_s = a.parameter_count() * 2.0 / (p.download_gbps * 1e9)
    lines.append(
        Line(
            translate("Explain", "Setup"),
            _hours(ph.get("setup", 0.0) / 3600),
            translate(
                "Explain",
                "{setup} min fixed + download {params} params × 2 B ÷ {gbps} GB/s ({dl}) + data preparation {prep} min",
            ).format(
                setup=f"{p.setup_minutes:g}",
                params=_count(a.parameter_count()),
                gbps=f"{p.download_gbps:g}",
                dl=_hours(download_s / 3600),
                prep=f"{p.dataset_prep_minutes:g}",
            ),
        )
    )
    if ph.get("evaluation", 0.0) > 0:
        lines.append(
            Line(
                translate("Explain", "Evaluation"),
                _hours(ph["evaluation"] / 3600),
                (translate(
                    "Explain",
                    "{m} min fixed + {share} of the examples held out, generating their answers (the lines below)",
                ) if tm.eval_terms and s.training.stack == "llama-factory" else translate(
                    "Explain",
                    "{m} min fixed + {share} of the examples held out, generating their answers (the lines below) "
                    "and then a forward pass for the loss at the training utilisation",
                ) if tm.eval_terms else translate(
                    "Explain",
                    "{m} min fixed + {share} of the tokens per epoch, forward only, at the training utilisation",
                )).format(m=f"{p.eval_minutes:g}", share=f"{d.eval_fraction:.0%}"),
            )
        )
    # an evaluation that generates: one evaluation micro-batch's generate, at each length
    lines.extend(_time_term_line(term) for term in tm.eval_terms)
    ckpt_s = ph.get("checkpoints", 0.0)
    if tm.checkpoint_saves and ckpt_s > 0:
        size_gb = ckpt_s * p.disk_write_gbps * tm.checkpoint_writers / tm.checkpoint_saves
        lines.append(
            Line(
                translate("Explain", "Checkpoints"),
                _hours(ckpt_s / 3600),
                (translate("Explain", "{n} saves × {gb} GB ÷ {w} GB/s disk write").format(
                    n=tm.checkpoint_saves, gb=f"{size_gb:,.2f}", w=f"{p.disk_write_gbps:g}"
                ) + (translate("Explain", " ÷ {k} ranks writing their shards at once").format(k=tm.checkpoint_writers)
                     if tm.checkpoint_writers > 1 else "")),
            )
        )
    lines.append(
        Line(
            translate("Explain", "Wall clock"),
            _hours(tm.hours),
            translate("Explain", "setup + training + evaluation + checkpoints; likely {low}–{high}").format(
                low=_hours(tm.low_seconds / 3600), high=_hours(tm.high_seconds / 3600)
            ),
            emphasis=True,
        )
    )
    return lines


def cost_lines(s: Scenario, r: Estimate) -> list[Line]:
    """The cost breakdown (each line with its formula and the plan's values) and the total."""
    p, c, n = s.pricing, r.cost, s.training.num_gpus
    b = c.breakdown
    per = {
        "second": translate("Explain", "per second"),
        "minute": translate("Explain", "per started minute"),
        "hour": translate("Explain", "per started hour"),
    }
    lines = [
        Line(
            translate("Explain", "GPU time"),
            plain_usd(b.get("GPU time", c.gpu_usd)),
            translate(
                "Explain",
                "{price}/GPU-hour × {n} GPU × {h} billed h (the wall clock{lost}, rounded up {per})",
            ).format(
                price=plain_usd(p.price_per_gpu_hour),
                n=n,
                h=f"{c.billed_hours:,.2f}",
                per=per.get(p.billing, p.billing),
                lost=translate("Explain", " plus expected time lost to interruptions")
                if c.interruption_usd > 0
                else "",
            ),
        )
    ]
    rate = translate("Explain", "{gb} GB × {usd}/GB-month ÷ {month} h").format(
        gb=f"{p.storage_gb:g}", usd=f"${p.storage_usd_per_gb_month:g}", month=f"{HOURS_PER_MONTH:g}"
    )
    kind = {
        "container": translate("Explain", "container disk: only while running"),
        "volume": translate(
            "Explain", "pod volume: the run, then the stopped-pod rate for {h} h kept"
        ).format(h=f"{p.storage_hours_after_run:g}"),
        "network": translate("Explain", "network volume: the run plus {h} h kept").format(
            h=f"{p.storage_hours_after_run:g}"
        ),
    }
    lines.append(
        Line(
            translate("Explain", "Storage"),
            plain_usd(b.get("Storage", c.storage_usd)),
            translate("Explain", "{rate} × hours ({kind})").format(
                rate=rate, kind=kind.get(p.storage_kind, p.storage_kind)
            ),
        )
    )
    lines.append(
        Line(
            translate("Explain", "Egress"),
            plain_usd(b.get("Egress", c.egress_usd)),
            translate("Explain", "{gb} GB out × {usd}/GB").format(
                gb=f"{p.egress_gb:g}", usd=f"${p.egress_usd_per_gb:g}"
            ),
        )
    )
    lines.append(
        Line(
            translate("Explain", "Other"),
            plain_usd(b.get("Other", c.other_usd)),
            translate("Explain", "a fixed amount you entered"),
        )
    )
    if p.failure_probability > 0 or b.get("Failed-run repeats", 0.0) > 0:
        lines.append(
            Line(
                translate("Explain", "Failed-run repeats"),
                plain_usd(b.get("Failed-run repeats", 0.0)),
                translate("Explain", "one run × (1 ÷ (1 − {p}) − 1): attempts until one completes").format(
                    p=f"{p.failure_probability:g}"
                ),
            )
        )
    for name, usd in b.items():  # lines a newer core may add
        if name not in {"GPU time", "Storage", "Egress", "Other", "Failed-run repeats"}:
            lines.append(Line(name, plain_usd(usd), ""))
    if c.interruption_usd > 0:
        lines.append(
            Line(
                translate("Explain", "of which interruptions"),
                plain_usd(c.interruption_usd),
                translate(
                    "Explain",
                    "{lam}/h × run hours × (checkpoint interval ÷ 2 + restart): expected lost work, inside GPU time "
                    "and storage",
                ).format(lam=f"{p.interruptions_per_hour:g}"),
            )
        )
    lines.append(
        Line(
            translate("Explain", "Total, one completed run"),
            plain_usd(c.total_usd),
            translate("Explain", "the sum of the lines above (interruptions are already inside them)"),
            emphasis=True,
        )
    )
    if c.pessimistic_usd > c.total_usd * 1.005:
        lines.append(
            Line(
                translate("Explain", "Pessimistic"),
                plain_usd(c.pessimistic_usd),
                translate(
                    "Explain", "interruptions at the upper rate, each losing a whole checkpoint interval"
                ),
            )
        )
    return lines


# ---------------------------------------------------------------------------------------- models
class MemoryTableModel(QAbstractTableModel):
    """The memory ledger as a table, largest component first.

    Columns: component, GiB, share of the device total, formula with the plan's values, source.
    ``Qt.UserRole`` on any cell gives the component's bytes.
    """

    HEADERS = (
        QT_TRANSLATE_NOOP("Explain", "Component"),
        QT_TRANSLATE_NOOP("Explain", "GiB"),
        QT_TRANSLATE_NOOP("Explain", "Share"),
        QT_TRANSLATE_NOOP("Explain", "Formula (your values)"),
        QT_TRANSLATE_NOOP("Explain", "Source"),
    )

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.components: list[MemoryComponent] = []
        self.total_bytes = 0.0
        self.peak_phase = ""

    def set_memory(self, mem: MemoryEstimate) -> None:
        """Show a new ledger (sorted by bytes, largest first)."""
        self.beginResetModel()
        self.components = sorted(mem.components, key=lambda c: c.bytes, reverse=True)
        self.total_bytes = mem.total_bytes
        self.peak_phase = mem.peak_phase
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt API
        """One row per component."""
        return 0 if parent.isValid() else len(self.components)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt API
        """Five columns."""
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:  # noqa: N802
        """Column titles."""
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return translate("Explain", self.HEADERS[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Text, alignment, swatch colour, tooltip and raw bytes of a cell."""
        if not index.isValid():
            return None
        c = self.components[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.UserRole:
            return c.bytes
        if role == Qt.ItemDataRole.DisplayRole:
            if col == 0:
                return component_label(c.key, c.label)
            if col == 1:
                return f"{c.bytes / GIB:.2f}"
            if col == 2:
                return f"{c.bytes / self.total_bytes:.1%}" if self.total_bytes > 0 and c.bytes > 0 else "—"
            if col == 3:
                return component_formula(c) or "—"
            return c.source or "—"
        if role == Qt.ItemDataRole.TextAlignmentRole:
            if col in (1, 2):
                return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            return int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.DecorationRole and col == 0:
            color = COMPONENT_COLORS.get(c.key)
            return QColor(color) if color else None
        if role == Qt.ItemDataRole.ToolTipRole:
            if c.bytes <= 0:
                return translate(
                    "Explain", "Not alive at the peak ({phase}): freed before it, or not used by this plan."
                ).format(phase=peak_phase_text(self.peak_phase))
            source = translate("Explain", "Source")
            return plain_tooltip(
                f"{component_label(c.key, c.label)}: {c.bytes / GIB:.3f} GiB\n{component_formula(c)}\n{source}: {c.source}")
        return None


class LinesModel(QAbstractTableModel):
    """Explained quantities as a table: name, value, formula (``Qt.UserRole``: the :class:`Line`)."""

    HEADERS = (
        QT_TRANSLATE_NOOP("Explain", "Quantity"),
        QT_TRANSLATE_NOOP("Explain", "Value"),
        QT_TRANSLATE_NOOP("Explain", "How it is computed"),
    )

    def __init__(self, headers: tuple[str, str, str] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.headers = headers or self.HEADERS
        self.lines: list[Line] = []

    def set_lines(self, lines: list[Line]) -> None:
        """Replace the rows."""
        self.beginResetModel()
        self.lines = list(lines)
        self.endResetModel()

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt API
        """One row per line."""
        return 0 if parent.isValid() else len(self.lines)

    def columnCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: N802, B008 - Qt API
        """Three columns."""
        return 0 if parent.isValid() else 3

    def headerData(
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:  # noqa: N802
        """Column titles."""
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return translate("Explain", self.headers[section])
        return None

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Text, alignment, emphasis and tooltip of a cell."""
        if not index.isValid():
            return None
        line = self.lines[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.UserRole:
            return line
        if role == Qt.ItemDataRole.DisplayRole:
            return (line.name, line.value, line.formula or "—")[col]
        if role == Qt.ItemDataRole.TextAlignmentRole:
            horizontal = Qt.AlignmentFlag.AlignRight if col == 1 else Qt.AlignmentFlag.AlignLeft
            return int(horizontal | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.FontRole and line.emphasis and col < 2:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip("\n".join(x for x in (line.formula, line.tip) if x)) or None  # tips name the GPU
        return None


# ---------------------------------------------------------------------------------------- widgets
class FitTable(QTableView):
    """A read-only table as tall as its rows (the page scrolls, not the table); long text wraps."""

    def __init__(
        self, model: QAbstractTableModel, stretch: int, name: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.setAccessibleName(name)
        self.setWordWrap(True)
        self.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.setShowGrid(False)
        self.verticalHeader().hide()
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        header = self.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        for c in range(model.columnCount()):
            header.setSectionResizeMode(
                c, QHeaderView.ResizeMode.Stretch if c == stretch else QHeaderView.ResizeMode.ResizeToContents
            )
        header.sectionResized.connect(lambda *_a: self.fit())
        model.modelReset.connect(self.fit)
        self._width = -1

    def fit(self) -> None:
        """Row heights to their wrapped text, the table's height to its rows."""
        self.resizeRowsToContents()
        height = self.horizontalHeader().height() + 2 * self.frameWidth()
        height += sum(self.rowHeight(r) for r in range(self.model().rowCount()))
        if self.height() != height:
            self.setFixedHeight(height)

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt naming
        """Re-wrap when the width changes."""
        super().resizeEvent(event)
        if event.size().width() != self._width:
            self._width = event.size().width()
            self.fit()


class ExplainView(QScrollArea):
    """The "Why this much?" tab: memory components, totals, time and cost, each with its formula."""

    def __init__(self, store: AppStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.setAccessibleName(translate("Explain", "Why this much?"))
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        col = QVBoxLayout(body)
        col.setContentsMargins(12, 10, 12, 12)
        col.setSpacing(6)
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.RichText)
        self.headline.setAccessibleName(translate("Explain", "Memory verdict"))
        self.headline.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        col.addWidget(self.headline)
        self.memory_model = MemoryTableModel(self)
        self.memory_table = FitTable(self.memory_model, 3, translate("Explain", "Memory components"))
        self.memory_table.horizontalHeader().setSectionResizeMode(4, QHeaderView.ResizeMode.Interactive)
        self.memory_table.horizontalHeader().resizeSection(4, 250)
        self.totals_model = LinesModel(
            (
                QT_TRANSLATE_NOOP("Explain", "Total"),
                QT_TRANSLATE_NOOP("Explain", "GiB"),
                QT_TRANSLATE_NOOP("Explain", "What it is"),
            ),
            self,
        )
        self.totals_table = FitTable(self.totals_model, 2, translate("Explain", "Memory totals"))
        self.time_model = LinesModel(parent=self)
        self.time_table = FitTable(self.time_model, 2, translate("Explain", "Time"))
        self.cost_model = LinesModel(
            (
                QT_TRANSLATE_NOOP("Explain", "Line"),
                QT_TRANSLATE_NOOP("Explain", "USD"),
                QT_TRANSLATE_NOOP("Explain", "How it is computed"),
            ),
            self,
        )
        self.cost_table = FitTable(self.cost_model, 2, translate("Explain", "Cost"))
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.RichText)
        self.notes.setAccessibleName(translate("Explain", "Notes"))
        sections = [
            (
                translate(
                    "Explain", "Memory per GPU at the peak, largest first (“—”: not alive at the peak)"
                ),
                self.memory_table,
            ),
            (translate("Explain", "The three totals"), self.totals_table),
            (translate("Explain", "Time"), self.time_table),
            (translate("Explain", "Cost of one completed run"), self.cost_table),
        ]
        for title, table in sections:
            caption = QLabel(title)
            caption.setStyleSheet("color: #555555; font-weight: 600; margin-top: 6px;")
            caption.setBuddy(table)
            col.addWidget(caption)
            col.addWidget(table)
        col.addWidget(self.notes)
        col.addStretch(1)
        self.setWidget(body)
        mark_self_themed(self.headline, self.notes)
        self._stale = True
        store.result_changed.connect(self._on_result)

    def _on_result(self, _result: object = None) -> None:
        self._stale = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt naming
        """Fill the tables when the tab is first shown after a change."""
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt naming
        """Redraw the coloured text in the new theme."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._stale = True
            if self.isVisible():
                self.refresh()

    def refresh(self) -> None:
        """Redraw every table from the store's plan and estimate."""
        s, r = self.store.scenario, self.store.result
        mem = r.memory
        self._stale = False
        # red: short; the theme's warning amber: fits by the estimate but not across its likely range; green
        color = "#c62828" if not mem.fits else "#8a5a00" if mem.band_risk in {"tight", "unlikely"} else "#2e7d32"
        self.headline.setText(
            themed(
                translate(
                    "Explain",
                    "<b>{total} GiB</b> per GPU of {cap} GiB on the {gpu}: "
                    "<span style='color:{color}; font-weight:600'>{verdict}</span>. The peak is {phase}.",
                ).format(
                    total=f"{mem.total_bytes / GIB:.2f}",
                    cap=f"{mem.capacity_bytes / GIB:.2f}",
                    gpu=html.escape(s.gpu.name),
                    color=color,
                    verdict=html.escape(verdict_text(mem)),
                    phase=html.escape(peak_phase_text(mem.peak_phase)),
                )
            )
        )
        self.memory_model.set_memory(mem)
        self.totals_model.set_lines(total_lines(mem, s.gpu.name))
        self.time_model.set_lines(time_lines(s, r))
        self.cost_model.set_lines(cost_lines(s, r))
        notes = [core_note_text(n) for n in (*r.messages, *r.cost.messages)]
        self.notes.setText(
            themed("".join(f"<div style='color:#8a5a00'>⚠ {html.escape(n)}</div>" for n in notes))
        )
        self.notes.setVisible(bool(notes))


def install_explain(store: AppStore, tabs: QTabWidget) -> ExplainView:
    """Add the "Why this much?" tab to ``tabs`` (right after the plan) and return its view."""
    view = ExplainView(store)
    index = tabs.insertTab(1, view, translate("Explain", "Why this much?"))
    tabs.setTabToolTip(
        index,
        translate("Explain", "Every number of the estimate with its formula, your values and its source"),
    )
    return view
