"""Structured results: quantities with units, terms made of their parts, and coded notes.

The core returns values, never sentences. A :class:`Term` carries its total and the named quantities it
is computed from; its formula template (``FORMULAS``) names those quantities, so the CLI, the GUI and the
report render the number and its formula from the same object, and the formula adds up by construction.
A :class:`Note` is a code with typed parameters; ``NOTES`` holds the English template of each code,
marked with :func:`N_` (a Qt-free no-op) so that translation tools find it. Renderers format parameters
with the user's locale and translate the template.
"""

from __future__ import annotations

import string
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["CALIBRATION_SUFFIX", "CodedError", "FORMULAS", "NOTES", "N_", "Note", "Quantity", "Term", "note_fields", "render_formula", "render_note"]


def N_(text: str) -> str:  # noqa: N802 - the customary name of a translation marker
    """Mark ``text`` for translation without translating it (the core imports no Qt)."""
    return text


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class Quantity(_Frozen):
    """One named input of a term.

    Attributes:
        key: stable name, used in formula templates (``flops``, ``rate``, ``bytes`` ...).
        value: the number, in ``unit``.
        unit: ``FLOP``, ``FLOP/s``, ``B``, ``B/s``, ``s``, ``count``, ``tokens``, ``1`` (a ratio).
        source: where the value comes from (paper, library source, datasheet), empty when it is the plan's.
    """

    key: str
    value: float
    unit: str
    source: str = ""


class Term(_Frozen):
    """One part of a total, with the quantities it is computed from.

    Attributes:
        key: stable identifier (for time: ``matmul``, ``attention``, ``other_kernels``, ``optimizer``,
            ``communication``, ``offload``, ``fixed``, ``reference``; for memory parts, ``core/workload.py``'s
            ``reference_weights``, ``reference_activations``, ``reference_logits``, ``policy_logps``, ``head_cast``,
            ``value_head``); its formula template is ``FORMULAS[key]``.
        value: the term, in ``unit`` (seconds per optimizer step for time terms).
        unit: the unit of ``value``.
        parts: the named quantities (each with unit and source).
        source: the formula's source.
        detail: a qualitative choice the term depends on (the attention kernel: ``flash``, ``sdpa-flash``,
            ``sdpa-efficient``, ``eager``), a code, not prose.
    """

    key: str
    value: float
    unit: str = "s"
    parts: tuple[Quantity, ...] = ()
    source: str = ""
    detail: str = ""

    def part(self, key: str) -> float:
        """The value of part ``key``.

        Raises:
            KeyError: when the term has no such part.
        """
        for q in self.parts:
            if q.key == key:
                return q.value
        raise KeyError(key)


class Note(_Frozen):
    """A coded message with typed parameters; ``NOTES[code]`` is its English template."""

    code: str
    params: dict[str, Any] = {}


#: Formula templates of time terms (per optimizer step, per GPU); ``{key}`` names a part of the term.
FORMULAS: dict[str, str] = {
    "matmul": N_("per micro-batch: {compute_seconds} s of compute-bound GEMMs ({compute_flops} FLOP at an effective "
                 "{effective_rate} FLOP/s: the sustained {rate} FLOP/s less wave quantisation) + {memory_seconds} s "
                 "of memory-bound GEMMs ({memory_bytes} B at {bandwidth} B/s); {gemms} GEMMs; × {micro_batches} "
                 "micro-batches per step"),
    "attention": N_("per micro-batch: {flops} FLOP at the {detail} kernel's measured {rate} FLOP/s (causal: "
                    "{keys_per_query} keys per query); × {micro_batches} micro-batches per step"),
    "other_kernels": N_("per micro-batch: {bytes} B of norms, activations, rotary, residuals, LoRA dropout, "
                        "cross-entropy and dequantisation at {bandwidth} B/s; × {micro_batches} micro-batches per step"),
    "optimizer": N_("{params} parameters × {bytes_per_param} B read and written ÷ {bandwidth} B/s"),
    "communication": N_("{exposed} s of collectives not hidden ({collectives} collectives: {bytes} B at {link} B/s bus "
                        "bandwidth and {latency} s of NCCL latency; {overlapped} s hidden behind compute) + "
                        "{contention} s the compute beside them runs slower"),
    "offload": N_("{transfer_seconds} s over PCIe ({pcie_bytes} B at {pcie} B/s) + CPU optimizer {cpu_seconds} s "
                  "− {overlapped} s hidden behind compute"),
    "fixed": N_("{ops} operator launches × {op_seconds} s of host time, less the {gpu_seconds} s the GPU is busy "
                "meanwhile"),
}

#: Appended to a formula when a pilot run calibrated the term.
CALIBRATION_SUFFIX = N_(" × {calibration} (calibrated from your run)")

#: English templates of the time model's notes.
NOTES: dict[str, str] = {
    "time.calibrated": N_("calibrated from your run of {date}: time × {factor}"),
    "time.memory_bound": N_("memory-bound: weights and activations streamed from memory outlast the math; "
                            "a larger micro-batch is faster"),
    "time.overhead_bound": N_("host-bound: the CPU launches kernels more slowly than the GPU runs them "
                              "({share} % of the step); a larger micro-batch or a compiled stack is faster"),
    "time.communication_bound": N_("{share} % of the step waits for collectives over {link}"),
    "time.offload_bound": N_("{share} % of the step waits for CPU offload over PCIe and the CPU optimizer"),
    "time.paged_spill": N_("paged optimizer states spill {gib} GiB to CPU RAM: read and written over PCIe "
                           "at every optimizer step"),
    "time.no_bf16": N_("{gpu} has no BF16: timed at its FP16 rate"),
    "time.fp32": N_("FP32 training: TF32 tensor rate taken as half the BF16 rate"),
    "time.mfu_override": N_("MFU override {mfu}: model FLOPs ÷ spec peak replaces the step model"),
    "time.naive_model_parallel": N_("layers split across {n} GPUs run one GPU at a time"),
    "time.slowest_rank": N_("dynamic padding over {gpus} GPUs: every step waits for the GPU with the longest "
                            "micro-batch ({slowest_row:,} tokens per row, against {row:,} on average)"),
    "time.slowest_rank_free": N_("padding-free batches over {gpus} GPUs: every step waits for the GPU whose examples "
                                 "sum to the most ({slowest_row:,} tokens per example, against {row:,} on average)"),
}


class CodedError(ValueError):
    """A refusal with a code and typed parameters (``NOTES[code]``), for renderers to translate, and an English
    one-line message: ``file: text`` (``file`` may be empty).

    Attributes:
        code: the ``NOTES`` key; ``params``: its parameters; ``file``: the file's name, or ``""``; ``text``: the
            English sentence.
    """

    def __init__(self, code: str, file: str = "", **params: Any) -> None:
        self.code = code
        self.params = params
        self.file = file
        try:
            text = NOTES.get(code, code).format(**params)
        except (KeyError, IndexError, ValueError):
            text = NOTES.get(code, code)
        self.text = " ".join(text.split())
        super().__init__(f"{file}: {self.text}" if file else self.text)


def render_formula(term: Term, fmt: Any = None, template: str | None = None, suffix: str | None = None) -> str:
    """``FORMULAS[term.key]`` (or ``template``) with the term's parts filled in; a calibrated term gets
    :data:`CALIBRATION_SUFFIX` (or ``suffix``) with its factor.

    Args:
        term: the term.
        fmt: ``fmt(value, unit) -> str`` for numbers (the UI passes a locale-aware one); default ``%.4g``.
        template: a translated template to use instead of the English one.
        suffix: a translated calibration suffix.
    """
    fmt = fmt or (lambda v, _u: f"{v:.4g}")
    values = {q.key: fmt(q.value, q.unit) for q in term.parts}
    values["detail"] = term.detail
    text = template if template is not None else FORMULAS.get(term.key, "")
    if "calibration" in values:
        text += suffix if suffix is not None else CALIBRATION_SUFFIX
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):
        return text


def render_note(note: Note, template: str | None = None, number: Any = None) -> str:
    """``NOTES[note.code]`` (or ``template``) with the note's parameters; the code itself when unknown.

    Each placeholder may carry a Python format spec (``{usd:,.2f}``, ``{share:.0%}``): the English rendering
    applies it as written. ``number(value, spec) -> str``, when given, formats every numeric parameter
    instead (the UI passes a locale-aware one that keeps the spec's decimals), so numbers follow the
    user's locale without the template being parsed for prose. A template that does not fit the
    parameters (a translation with a typo) is returned unfilled rather than raising.
    """
    text = template if template is not None else NOTES.get(note.code, note.code)
    if number is None:
        try:
            return text.format(**note.params)
        except (KeyError, IndexError, ValueError, TypeError):
            return text
    out: list[str] = []
    try:
        for literal, field, spec, conversion in _FORMATTER.parse(text):
            out.append(literal)
            if field is None:
                continue
            value = note.params[field]
            if isinstance(value, int | float) and not isinstance(value, bool) and not conversion:
                out.append(number(value, spec or ""))
            else:
                out.append(format(str(value) if conversion else value, spec or ""))
    except (KeyError, IndexError, ValueError, TypeError):
        return text
    return "".join(out)


def note_fields(template: str) -> dict[str, str]:
    """The placeholders of a note template and their format specs: ``{"usd": ",.2f", "gpu": ""}``.

    Raises:
        ValueError: when the template is not a valid format string.
    """
    return {field: spec or "" for _lit, field, spec, _conv in _FORMATTER.parse(template) if field is not None}


_FORMATTER = string.Formatter()
