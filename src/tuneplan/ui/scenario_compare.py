"""Side-by-side comparison of 2–4 scenarios: memory bars on one scale, cost curves, what differs.

* :class:`ScenarioComparison` (the controller, no widgets): the compared scenarios and one
  :func:`tuneplan.core.estimate.estimate` per scenario; a few inputs can be edited in place and the
  scenario is recomputed. "Current plan" follows the window's store.
* :class:`ComparisonTableModel`: rows = fields (inputs, then results), columns = scenarios; by
  default only the rows whose values differ.
* :class:`~tuneplan.ui.charts.CompareVramChart` / :class:`~tuneplan.ui.charts.CompareCostChart` (in
  ``charts``, which the report draws its images with too): one stacked bar per scenario (the same
  component colours as the plan's VRAM bar, each bar with its GPU's capacity line) and the
  cumulative cost curves overlaid.
* :class:`ScenarioCompareView`: the "Compare scenarios" tab; :func:`install_scenario_compare`.

Charts and table render what the controller holds; they never compute an estimate.
"""

from __future__ import annotations

import csv
import logging
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError
from PySide6.QtCore import (
    QT_TRANSLATE_NOOP,
    QAbstractTableModel,
    QCoreApplication,
    QModelIndex,
    QObject,
    Qt,
    QTimer,
    Signal,
)
from PySide6.QtGui import QColor, QFont, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from tuneplan.core.estimate import blocking_notes, estimate
from tuneplan.core.result import GIB, Estimate
from tuneplan.core.scenario import OPTIMIZER_LABELS, Scenario
from tuneplan.storage import ScenarioFileError, ScenarioLibrary
from tuneplan.ui.charts import SCENARIO_COLORS, CompareCostChart, CompareVramChart, short_gpu_name
from tuneplan.ui.flow_layout import FlowLayout
from tuneplan.ui.i18n import (
    OFFER_KIND_LABELS,
    SHARDING_LABELS,
    core_note_text,
    plain_tooltip,
    plain_usd,
    plan_verdict,
    plan_verdict_color,
)
from tuneplan.ui.i18n import OPTIMIZER_LABELS as OPTIMIZER_TEXT
from tuneplan.ui.store import METHOD_LABELS, friendly_error

if TYPE_CHECKING:
    from tuneplan.ui.main_window import MainWindow
    from tuneplan.ui.store import AppStore

__all__ = [
    "FIELDS",
    "ComparedScenario",
    "ComparisonRow",
    "ComparisonTableModel",
    "FieldSpec",
    "ScenarioCompareView",
    "ScenarioComparison",
    "install_scenario_compare",
    "spreadsheet_cell",
    "write_comparison_csv",
]

log = logging.getLogger(__name__)

# Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

CURRENT = "current"
MAX_SCENARIOS = 4


def _tokens(n: float) -> str:
    for suffix, scale in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            return f"{n / scale:.3g} {suffix}"
    return f"{n:.0f}"


def _num(x: float) -> str:
    return f"{x:g}"


# ---------------------------------------------------------------------------------------------
# what a row is


@dataclass(frozen=True)
class FieldSpec:
    """One row of the comparison.

    Attributes:
        key: stable id (``seq_len``, ``peak_gib``...).
        label: what the row is called, with its unit (``Sequence length (tokens)``).
        section: ``input`` (from the scenario) or ``result`` (from its estimate).
        value: the raw value for a scenario and its estimate (``None``: does not apply).
        text: how the value is shown.
        covers: dotted scenario paths (or prefixes) this row shows; other differing settings
            are listed in the "Other settings" row.
        edit_path: the scenario field an edit of this cell sets (``None``: read-only).
        kind: the type an edited value is converted to.
        csv_value: the value written to CSV (plain numbers, no thousands separators).
    """

    key: str
    label: str
    section: Literal["input", "result"]
    value: Callable[[Scenario, Estimate], Any]
    text: Callable[[Any], str] = str
    covers: tuple[str, ...] = ()
    edit_path: str | None = None
    kind: type = str
    csv_value: Callable[[Any], Any] | None = None


def _lora(s: Scenario, value: Any) -> Any:
    return None if s.training.method == "full" else value


def _t(text: Any) -> str:
    """A value that is a word of the UI (``on``, ``full fine-tune``), in the UI language."""
    return translate("ScenarioComparison", str(text))


#: Row labels and the words some rows show (extracted for translation; FIELDS keeps the English).
_WORDS = [
    QT_TRANSLATE_NOOP("ScenarioComparison", "on"), QT_TRANSLATE_NOOP("ScenarioComparison", "off"),
    QT_TRANSLATE_NOOP("ScenarioComparison", "full fine-tune"),
    QT_TRANSLATE_NOOP("ScenarioComparison", "no sharding"),
    QT_TRANSLATE_NOOP("ScenarioComparison", "q and v projections"),
    QT_TRANSLATE_NOOP("ScenarioComparison", "q, k, v, o projections"),
    QT_TRANSLATE_NOOP("ScenarioComparison", "all linear layers"),
    QT_TRANSLATE_NOOP("ScenarioComparison", "eager (materialised scores)"),
]

#: The words the form shows for these settings, in English (the table translates them; the CSV keeps the English):
#: not the plan file's ids ("zero3", "all-linear"), which a user never typed.
SHARDING_WORDS = SHARDING_LABELS.english
TARGET_WORDS = {"q_v": "q and v projections", "qkvo": "q, k, v, o projections", "all-linear": "all linear layers"}
ATTENTION_WORDS = {"flash": "FlashAttention 2", "flash1": "FlashAttention 1", "sdpa": "PyTorch SDPA",
                   "eager": "eager (materialised scores)"}


FIELDS: list[FieldSpec] = [
    FieldSpec("model", QT_TRANSLATE_NOOP("ScenarioComparison", "Model"), "input", lambda s, r: s.model.name,
              covers=("model", "model_id")),
    FieldSpec("method", QT_TRANSLATE_NOOP("ScenarioComparison", "Method"), "input",
              lambda s, r: METHOD_LABELS.get(s.training.method, s.training.method), text=_t,
              covers=("training.method",)),
    FieldSpec("gpu", "GPU", "input", lambda s, r: short_gpu_name(s.gpu.name), covers=("gpu",)),
    FieldSpec("num_gpus", QT_TRANSLATE_NOOP("ScenarioComparison", "GPUs (count)"), "input",
              lambda s, r: s.training.num_gpus,
              covers=("training.num_gpus",), edit_path="training.num_gpus", kind=int),
    FieldSpec("sharding", QT_TRANSLATE_NOOP("ScenarioComparison", "Sharding"), "input",
              lambda s, r: SHARDING_WORDS.get(s.training.sharding, s.training.sharding), text=_t,
              covers=("training.sharding",)),
    FieldSpec("precision", QT_TRANSLATE_NOOP("ScenarioComparison", "Precision"), "input",
              lambda s, r: s.training.precision.upper(), covers=("training.precision",)),
    FieldSpec("optimizer", QT_TRANSLATE_NOOP("ScenarioComparison", "Optimizer"), "input",
              lambda s, r: OPTIMIZER_LABELS.get(s.training.optimizer, s.training.optimizer),
              text=lambda v: next((OPTIMIZER_TEXT[k] for k, en in OPTIMIZER_LABELS.items() if en == v), str(v)),
              covers=("training.optimizer",)),
    FieldSpec("lora_rank", QT_TRANSLATE_NOOP("ScenarioComparison", "LoRA rank"), "input",
              lambda s, r: _lora(s, s.training.lora_rank),
              covers=("training.lora_rank",), edit_path="training.lora_rank", kind=int),
    FieldSpec("lora_targets", QT_TRANSLATE_NOOP("ScenarioComparison", "LoRA targets"), "input",
              lambda s, r: _lora(s, TARGET_WORDS.get(s.training.lora_targets, s.training.lora_targets)),
              text=lambda v: _t(v) if v in TARGET_WORDS.values() else str(v), covers=("training.lora_targets",)),
    FieldSpec("seq_len", QT_TRANSLATE_NOOP("ScenarioComparison", "Sequence length (tokens)"), "input",
              lambda s, r: s.training.seq_len,
              text=lambda v: f"{v:,}", covers=("training.seq_len",), edit_path="training.seq_len", kind=int),
    FieldSpec("micro_batch", QT_TRANSLATE_NOOP("ScenarioComparison", "Micro-batch (sequences per GPU)"), "input",
              lambda s, r: s.training.micro_batch,
              covers=("training.micro_batch",), edit_path="training.micro_batch", kind=int),
    FieldSpec("grad_accumulation", QT_TRANSLATE_NOOP("ScenarioComparison", "Gradient accumulation (steps)"), "input",
              lambda s, r: s.training.grad_accumulation, covers=("training.grad_accumulation",),
              edit_path="training.grad_accumulation", kind=int),
    FieldSpec("grad_checkpointing", QT_TRANSLATE_NOOP("ScenarioComparison", "Gradient checkpointing"), "input",
              lambda s, r: "on" if s.training.grad_checkpointing else "off", text=_t,
              covers=("training.grad_checkpointing",)),
    FieldSpec("attention", QT_TRANSLATE_NOOP("ScenarioComparison", "Attention"), "input",
              lambda s, r: ATTENTION_WORDS.get(s.training.attention, s.training.attention), text=_t,
              covers=("training.attention",)),
    FieldSpec("dataset_tokens", QT_TRANSLATE_NOOP("ScenarioComparison", "Dataset (tokens per epoch)"), "input",
              lambda s, r: s.dataset.tokens_per_epoch,
              text=_tokens, covers=("dataset.examples", "dataset.tokens_per_example", "dataset.total_tokens")),
    FieldSpec("epochs", QT_TRANSLATE_NOOP("ScenarioComparison", "Epochs"), "input", lambda s, r: s.dataset.epochs,
              text=_num, covers=("dataset.epochs",), edit_path="dataset.epochs", kind=float),
    FieldSpec("price", QT_TRANSLATE_NOOP("ScenarioComparison", "Price (USD per GPU-hour)"), "input",
              lambda s, r: s.pricing.price_per_gpu_hour,
              text=plain_usd, covers=("pricing.price_per_gpu_hour",),
              edit_path="pricing.price_per_gpu_hour", kind=float),
    FieldSpec("provider", QT_TRANSLATE_NOOP("ScenarioComparison", "Provider"), "input",
              lambda s, r: f"{s.pricing.provider} ({s.pricing.offer_kind})",
              text=lambda v: _provider_text(str(v)),
              covers=("pricing.provider", "pricing.offer_kind", "pricing.price_date")),
    FieldSpec("peak_gib", QT_TRANSLATE_NOOP("ScenarioComparison", "Peak memory per GPU (GiB)"), "result",
              lambda s, r: r.memory.total_bytes / GIB, text=lambda v: f"{v:.1f}", csv_value=lambda v: round(v, 2)),
    FieldSpec("paged_gib", QT_TRANSLATE_NOOP("ScenarioComparison", "Paged optimizer states, not counted (GiB)"), "result",
              lambda s, r: r.memory.paged_bytes / GIB, text=lambda v: f"{v:.1f}", csv_value=lambda v: round(v, 2)),
    FieldSpec("capacity_gib", QT_TRANSLATE_NOOP("ScenarioComparison", "GPU memory (GiB)"), "result",
              lambda s, r: r.memory.capacity_bytes / GIB, text=lambda v: f"{v:.2f}", csv_value=lambda v: round(v, 2)),
    FieldSpec("verdict", QT_TRANSLATE_NOOP("ScenarioComparison", "Verdict"), "result",
              lambda s, r: plan_verdict(r)),  # the Plan tab's verdict, "tight" and "cannot run" included
    FieldSpec("hours", QT_TRANSLATE_NOOP("ScenarioComparison", "Time (hours)"), "result", lambda s, r: r.time.hours,
              text=lambda v: f"{v:,.2f}" if v < 10 else f"{v:,.1f}", csv_value=lambda v: round(v, 3)),
    FieldSpec("tokens_per_second", QT_TRANSLATE_NOOP("ScenarioComparison", "Throughput (tokens/s per GPU)"), "result",
              lambda s, r: r.time.tokens_per_second, text=lambda v: f"{v:,.0f}", csv_value=lambda v: round(v, 1)),
    FieldSpec("usd", QT_TRANSLATE_NOOP("ScenarioComparison", "Cost (USD)"), "result", lambda s, r: r.cost.total_usd,
              text=plain_usd, csv_value=lambda v: round(v, 2)),
    FieldSpec("pessimistic_usd", QT_TRANSLATE_NOOP("ScenarioComparison", "Pessimistic cost (USD)"), "result",
              lambda s, r: r.cost.pessimistic_usd, text=plain_usd, csv_value=lambda v: round(v, 2)),
]
FIELDS_BY_KEY = {f.key: f for f in FIELDS}
#: Result rows a plan that cannot run shows greyed (what it would take if it could), as the Plan tab greys them.
TIME_COST_KEYS = frozenset({"hours", "tokens_per_second", "usd", "pessimistic_usd"})
#: The greyed text's colour (the Plan tab's greyed time and cost cards).
GREYED = "#888888"


def _provider_text(value: str) -> str:
    """``RunPod (on-demand)`` with the offer kind in the UI language."""
    provider, _, kind = value.rpartition(" (")
    kind = kind.removesuffix(")")
    return f"{provider} ({OFFER_KIND_LABELS.get(kind, kind)})" if provider else value
_IGNORED_PATHS = ("name", "schema_version", "notes")
OTHER_KEY = "other"


def _leaves(data: Any, prefix: str = "") -> dict[str, Any]:
    if isinstance(data, dict):
        out: dict[str, Any] = {}
        for k, v in data.items():
            out.update(_leaves(v, f"{prefix}{k}."))
        return out
    return {prefix.rstrip("."): data}


def _covered(path: str) -> bool:
    if path in _IGNORED_PATHS:
        return True
    for spec in FIELDS:
        for c in spec.covers:
            if path == c or path.startswith(c + "."):
                return True
    return False


#: A start at least this long that a name shares with another compared name is shown as "…" in the table's header.
SHARED_START_CHARS = 16


def distinct_names(names: list[str]) -> list[str]:
    """The names with the start each shares with another name (``SHARED_START_CHARS`` characters or more, cut back
    to a word) replaced by "…": ``["LF ZeRO-2 eval, 4k rows", "LF ZeRO-2 eval, 8k rows"]`` keep ``"…4k rows"`` and
    ``"…8k rows"``, which a narrow column then shows whole (eliding both at their end read "LF ZeRO-2 ge…" twice). A
    name that shares no long start, or that another name begins with entirely, is kept."""
    out = []
    for i, name in enumerate(names):
        shared = cut = 0
        for j, other in enumerate(names):
            if j == i or other == name:
                continue
            n = len(os.path.commonprefix([name, other]))
            shared = max(shared, n)
            # at a word inside the shared start ("LF ZeRO-2 eval, " not "LF ZeRO-2 eval, 4"; "run 1 x" against
            # "run 10 x" keeps "1 x"), or just after it where the other name ends there ("… fine-tune" + " at 8k")
            ends_there = n == len(other) and name[n:n + 1] == " "
            cut = max(cut, n + 1 if ends_there else name.rfind(" ", 0, n) + 1)
        if shared >= len(name):  # the other name begins with all of this one: this one is what they share
            out.append(name)
            continue
        out.append("…" + name[cut:] if cut >= SHARED_START_CHARS and name[cut:] else name)
    if len(set(out)) < len(set(names)):  # two shortened names read alike ("…A" of two pairs): keep them whole
        alike = {s for s in out if out.count(s) > 1}
        out = [name if s in alike else s for name, s in zip(names, out, strict=True)]
    return out


def _two_lines(text: str, width: int = 22) -> str:
    """Break a long column title once, at the space nearest the middle (headers do not wrap)."""
    if len(text) <= width or " " not in text:
        return text
    middle = len(text) // 2
    spaces = [i for i, ch in enumerate(text) if ch == " "]
    cut = min(spaces, key=lambda i: abs(i - middle))
    return text[:cut] + "\n" + text[cut + 1:]


def _short_value(v: Any) -> str:
    if isinstance(v, float) and math.isfinite(v):
        # digits as written, never e-notation (1e-05 is 0.00001, 1e+07 is 10000000)
        return f"{v:.0f}" if v.is_integer() else format(Decimal(repr(v)), "f")
    text = str(v)
    return text if len(text) <= 24 else text[:23] + "…"


@dataclass
class ComparedScenario:
    """One column of the comparison.

    Attributes:
        key: ``"current"`` for the plan in the window, else the file path (or a made-up key).
        scenario, result: the inputs and their estimate (always computed together).
        path: the library file it came from (``None`` for the current plan and in-memory ones).
        edited: changed in the comparison and not saved.
        color: its colour in the cost chart and the column header.
    """

    key: str
    scenario: Scenario
    result: Estimate
    path: Path | None = None
    edited: bool = False
    color: str = SCENARIO_COLORS[0]

    @property
    def label(self) -> str:
        """Column title: the scenario's name (marked for the current plan and edited copies)."""
        return self.label_for(self.scenario.name)

    def label_for(self, name: str) -> str:
        """:attr:`label` with ``name`` for the scenario's name (a shortened one, :func:`distinct_names`)."""
        if self.key == CURRENT:
            return translate("ScenarioComparison", "{name} (current plan)").format(name=name)
        return translate("ScenarioComparison", "{name} (edited)").format(name=name) if self.edited else name


@dataclass
class ComparisonRow:
    """One row as shown: a field and its value in every compared scenario."""

    key: str
    label: str
    section: str
    raws: list[Any]
    texts: list[str]
    differs: bool
    edit_path: str | None = None
    kind: type = str
    csv_values: list[Any] = field(default_factory=list)


class ScenarioComparison(QObject):
    """The compared scenarios and their estimates (the controller behind the tab).

    Args:
        store: the window's store; "current plan" follows it and edits of that column go to it.
        library: where ``add_file`` reads scenarios from (``load(..., remember=False)``).

    Signals:
        changed(): entries were added, removed, edited or recomputed.
        error(str): a scenario could not be added or an edit was refused (a sentence for the user).
    """

    changed = Signal()
    error = Signal(str)

    def __init__(self, store: AppStore | None = None, library: ScenarioLibrary | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.store = store
        self.library = library if library is not None else ScenarioLibrary()
        self.entries: list[ComparedScenario] = []
        # ``(field path, value) -> text``: how the form names a setting of the "Other settings" row
        # (``vLLM share of the card (0-1): 0.3``); the window passes its own, ``""`` keeps ``path = value``.
        self.setting_text: Callable[[str, Any], str] | None = None
        if store is not None:
            store.result_changed.connect(self._on_store_result)

    # ------------------------------------------------------------------ entries
    def keys(self) -> list[str]:
        """The keys of the compared scenarios, in column order."""
        return [e.key for e in self.entries]

    def entry(self, key: str) -> ComparedScenario | None:
        """The entry with this key, or None."""
        return next((e for e in self.entries if e.key == key), None)

    def _free_color(self) -> str:
        used = {e.color for e in self.entries}
        return next((c for c in SCENARIO_COLORS if c not in used), SCENARIO_COLORS[0])

    def _full(self) -> bool:
        if len(self.entries) >= MAX_SCENARIOS:
            self.error.emit(self.tr("Compare up to {n} scenarios at a time; remove one first.").format(n=MAX_SCENARIOS))
            return True
        return False

    def add_scenario(self, scenario: Scenario, key: str | None = None, path: Path | None = None) -> bool:
        """Compare ``scenario`` (computed here). Returns False when full, duplicate or not computable."""
        key = key or (str(path) if path is not None else f"scenario-{id(scenario)}")
        if self.entry(key) is not None or self._full():
            return False
        try:
            result = estimate(scenario)
        except ValueError as exc:
            self.error.emit(self.tr("“{name}” cannot be computed: {error}").format(name=scenario.name, error=exc))
            return False
        self.entries.append(ComparedScenario(key, scenario, result, path, color=self._free_color()))
        self.changed.emit()
        return True

    def add_current(self) -> bool:
        """Compare the plan in the window (follows its edits)."""
        if self.store is None:
            return False
        if self.entry(CURRENT) is not None or self._full():
            return False
        self.entries.append(ComparedScenario(CURRENT, self.store.scenario, self.store.result,
                                             color=self._free_color()))
        self.changed.emit()
        return True

    def add_file(self, path: str | Path) -> bool:
        """Compare a saved scenario (read without touching the recent list)."""
        p = Path(path)
        if self.entry(str(p)) is not None or self._full():
            return False
        try:
            scenario = self.library.load(p, remember=False)
        except ScenarioFileError as exc:
            self.error.emit(self.tr("Cannot compare {name}: {error}").format(name=p.name, error=exc))
            return False
        return self.add_scenario(scenario, key=str(p), path=p)

    def remove(self, key: str) -> None:
        """Stop comparing one scenario."""
        before = len(self.entries)
        self.entries = [e for e in self.entries if e.key != key]
        if len(self.entries) != before:
            self.changed.emit()

    def replace_with_current(self, key: str) -> None:
        """Put the current plan where ``key`` was (after "Open in plan")."""
        index = next((i for i, e in enumerate(self.entries) if e.key == key), None)
        if index is None or self.store is None:
            return
        if self.entry(CURRENT) is not None:
            self.remove(key)
            return
        old = self.entries[index]
        self.entries[index] = ComparedScenario(CURRENT, self.store.scenario, self.store.result, color=old.color)
        self.changed.emit()

    def reload_files(self) -> None:
        """Re-read unedited file entries (after a save, rename or an outside change)."""
        changed = False
        for e in self.entries:
            if e.path is None or e.edited:
                continue
            try:
                scenario = self.library.load(e.path, remember=False)
            except ScenarioFileError:
                continue  # gone or broken: keep comparing the copy we have
            if scenario != e.scenario:
                try:
                    e.result = estimate(scenario)
                except ValueError:
                    continue
                e.scenario = scenario
                changed = True
        if changed:
            self.changed.emit()

    def _on_store_result(self, result: Estimate) -> None:
        e = self.entry(CURRENT)
        if e is not None and self.store is not None:
            e.scenario, e.result = self.store.scenario, result
            self.changed.emit()

    # ------------------------------------------------------------------ editing
    def set_field(self, index: int, path: str, value: Any) -> str | None:
        """Change one input of the scenario in column ``index`` and recompute it.

        The current plan's column is edited through the store (the plan changes too); other
        scenarios change only in the comparison (marked "edited"). Returns None when accepted,
        else the reason (also emitted as ``error``).
        """
        e = self.entries[index]
        if e.key == CURRENT and self.store is not None:
            if self.store.set_field(path, value):
                return None
            message = self.store.errors.get(path, self.tr("invalid value"))
            self.error.emit(self.tr("Not applied: {reason}").format(reason=message))
            return message
        data = e.scenario.model_dump()
        node = data
        parts = path.split(".")
        for part in parts[:-1]:
            node = node[part]
        node[parts[-1]] = value
        try:
            scenario = Scenario.model_validate(data)
            result = estimate(scenario)
        except ValidationError as exc:
            message = friendly_error(exc.errors()[0])
            self.error.emit(self.tr("Not applied: {reason}").format(reason=message))
            return message
        except ValueError as exc:
            self.error.emit(self.tr("Not applied: {reason}").format(reason=exc))
            return str(exc)
        e.scenario, e.result, e.edited = scenario, result, True
        self.changed.emit()
        return None

    # ------------------------------------------------------------------ what the table shows
    def rows(self, only_differences: bool = True) -> list[ComparisonRow]:
        """The table: one row per field (inputs first, then results).

        With ``only_differences`` only rows whose values are not all equal (inputs compared by
        value, results by what is shown) plus "Other settings" when something else differs.
        """
        out: list[ComparisonRow] = []
        n = len(self.entries)
        for spec in FIELDS:
            raws = [spec.value(e.scenario, e.result) for e in self.entries]
            texts = ["—" if v is None else spec.text(v) for v in raws]
            basis = raws if spec.section == "input" else texts
            differs = n > 1 and any(b != basis[0] for b in basis[1:])
            if only_differences and not differs:
                continue
            csv_values = [None if v is None else (spec.csv_value(v) if spec.csv_value else v) for v in raws]
            editable = spec.edit_path
            out.append(ComparisonRow(spec.key, self.tr(spec.label), spec.section, raws, texts, differs,
                                     editable, spec.kind, csv_values))
        other = self._other_differences()
        if other:
            # the table names each setting as the form does; the CSV keeps the plan file's keys (stable in any language)
            texts = ["; ".join(self._setting(p, v) for p, v in cols) or "—" for cols in other]
            keys = ["; ".join(f"{p} = {_short_value(v)}" for p, v in cols) or "—" for cols in other]
            rows_at = next((i for i, r in enumerate(out) if r.section == "result"), len(out))
            out.insert(rows_at, ComparisonRow(OTHER_KEY, self.tr("Other settings"), "input", list(keys), texts, True,
                                              csv_values=keys))
        return out

    def _setting(self, path: str, value: Any) -> str:
        text = self.setting_text(path, value) if self.setting_text is not None else ""
        return text or f"{path} = {_short_value(value)}"

    def _other_differences(self) -> list[list[tuple[str, Any]]]:
        if len(self.entries) < 2:
            return []
        leaves = [_leaves(e.scenario.model_dump(mode="json")) for e in self.entries]
        paths = sorted(set().union(*leaves))
        differing = [p for p in paths if not _covered(p) and len({repr(lv.get(p)) for lv in leaves}) > 1]
        return [[(p, lv.get(p)) for p in differing] for lv in leaves] if differing else []


#: Characters of a scenario name the memory chart's axis shows before eliding (at the Compare tab's narrowest).
BAR_NAME_CHARS = 24

#: Inputs whose value names itself on a bar (a model, a method, a GPU); others are shown as "label value".
_SELF_DESCRIBING = {"model", "method", "gpu", "sharding", "lora_targets", "attention"}

#: Short bar forms of inputs whose table label is long ("Sequence length (tokens) 8,192" was cut to "Sequenc…" by the
#: memory chart's axis at 1024x640): ``{value}`` is the table's text.
_BAR_FORMS = {
    "seq_len": QT_TRANSLATE_NOOP("ScenarioComparison", "{value} tokens"),
    "num_gpus": QT_TRANSLATE_NOOP("ScenarioComparison", "{value}× GPU"),  # ("1 GPUs" read wrong)
    "micro_batch": QT_TRANSLATE_NOOP("ScenarioComparison", "micro-batch {value}"),
    "grad_accumulation": QT_TRANSLATE_NOOP("ScenarioComparison", "accumulation {value}"),
    "lora_rank": QT_TRANSLATE_NOOP("ScenarioComparison", "rank {value}"),
    "epochs": QT_TRANSLATE_NOOP("ScenarioComparison", "{value} epochs"),
}


def _bar_text(row: ComparisonRow, i: int) -> str:
    if row.key in _SELF_DESCRIBING:
        return row.texts[i]
    if row.key in _BAR_FORMS:
        return translate("ScenarioComparison", _BAR_FORMS[row.key]).format(value=row.texts[i])
    return f"{row.label} {row.texts[i]}"


def bar_labels(comparison: ScenarioComparison, most: int = 3) -> list[str]:
    """One label per compared scenario for the charts: what differs between them (up to ``most`` inputs, e.g.
    ``A100 80GB SXM4 · LoRA``, ``ZeRO-2 · 4,096 tokens``), so that five plans of one model are told apart;
    a scenario's own name when no shown input differs (or only settings outside the table)."""
    rows = [r for r in comparison.rows(True) if r.section == "input" and r.key != OTHER_KEY][:most]
    if not rows:
        return [e.label for e in comparison.entries]
    return [" · ".join(_bar_text(r, i) for r in rows) for i in range(len(comparison.entries))]


# ---------------------------------------------------------------------------------------------
# table


class ComparisonTableModel(QAbstractTableModel):
    """Rows = fields, columns = compared scenarios. Cells of a few inputs are editable.

    Args:
        comparison: the controller; the model resets whenever it changes.
        only_differences: show only rows whose values differ (the default).
    """

    def __init__(self, comparison: ScenarioComparison, only_differences: bool = True,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.comparison = comparison
        self.only_differences = only_differences
        self._rows: list[ComparisonRow] = comparison.rows(only_differences)
        comparison.changed.connect(self.reload)

    def reload(self) -> None:
        """Re-read the rows from the controller."""
        self.beginResetModel()
        self._rows = self.comparison.rows(self.only_differences)
        self.endResetModel()

    def set_only_differences(self, only: bool) -> None:
        """Show all fields (False) or only those that differ (True)."""
        self.only_differences = only
        self.reload()

    def rows(self) -> list[ComparisonRow]:
        """The rows as shown."""
        return list(self._rows)

    def row_keys(self) -> list[str]:
        """The field keys of the rows as shown."""
        return [r.key for r in self._rows]

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008, N802 - Qt API
        """Number of fields shown."""
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008, N802 - Qt API
        """Number of compared scenarios."""
        return 0 if parent.isValid() else len(self.comparison.entries)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Text, the raw value for editing, verdict colours and tooltips."""
        if not index.isValid():
            return None
        row = self._rows[index.row()]
        col = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return row.texts[col]
        if role == Qt.ItemDataRole.EditRole:
            return row.raws[col]
        if role == Qt.ItemDataRole.ForegroundRole and row.key == "verdict":
            return QColor(plan_verdict_color(self.comparison.entries[col].result))
        blocked = blocking_notes(self.comparison.entries[col].result) if row.key in TIME_COST_KEYS else []
        if role == Qt.ItemDataRole.ForegroundRole and blocked:
            return QColor(GREYED)
        if role == Qt.ItemDataRole.FontRole and row.section == "result":
            font = QFont()
            font.setBold(row.key in {"peak_gib", "verdict", "usd", "hours"})
            return font
        if role == Qt.ItemDataRole.BackgroundRole and row.section == "result":
            return QColor("#f4f7fb")
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = row.texts[col]
            if row.edit_path and row.raws[col] is not None:
                tip += "\n" + self.tr("Double-click to change it for this scenario")
            if blocked:
                tip += "\n" + self.tr("This plan cannot run as it is: {reason}. This is what it would take if it "
                                       "could.").format(reason=core_note_text(blocked[0]))
            return plain_tooltip(tip)  # cells quote model, GPU and provider names
        if role == Qt.ItemDataRole.TextAlignmentRole and row.section == "result":
            return int(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt API
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        """Scenario names across the top (with their colour), field labels down the side."""
        if orientation == Qt.Orientation.Horizontal:
            if section >= len(self.comparison.entries):
                return None
            e = self.comparison.entries[section]
            if role == Qt.ItemDataRole.DisplayRole:  # the tooltip has the whole name
                shown = distinct_names([x.scenario.name for x in self.comparison.entries])[section]
                return _two_lines(e.label_for(shown))
            if role == Qt.ItemDataRole.DecorationRole:
                pix = QPixmap(12, 12)
                pix.fill(QColor(e.color))
                return pix
            if role == Qt.ItemDataRole.ToolTipRole:
                where = (self.tr("the plan in the window") if e.key == CURRENT
                         else (str(e.path) if e.path else self.tr("in memory")))
                return plain_tooltip(f"{e.scenario.name}\n{where}\n" + self.tr("Right-click: open in plan, remove"))
            return None
        if section >= len(self._rows):
            return None
        row = self._rows[section]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.label
        if role == Qt.ItemDataRole.FontRole and row.section == "result":
            font = QFont()
            font.setBold(True)
            return font
        return None

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        """Input cells with an ``edit_path`` (and a value) are editable."""
        base = super().flags(index)
        if index.isValid():
            row = self._rows[index.row()]
            if row.edit_path and row.raws[index.column()] is not None:
                return base | Qt.ItemFlag.ItemIsEditable
        return base

    def setData(self, index: QModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:  # noqa: N802
        """Edit one input of one scenario; the controller recomputes it and the table reloads."""
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        row = self._rows[index.row()]
        if not row.edit_path:
            return False
        try:
            text = str(value).replace(",", "").replace("$", "").strip()
            converted = int(float(text)) if row.kind is int and float(text).is_integer() else row.kind(text)
        except (TypeError, ValueError):
            self.comparison.error.emit(
                self.tr("Not applied: {label} must be a whole number").format(label=row.label) if row.kind is int
                else self.tr("Not applied: {label} must be a number").format(label=row.label))
            return False
        return self.comparison.set_field(index.column(), row.edit_path, converted) is None


#: What makes a spreadsheet read a cell as a formula (OWASP, "CSV injection"), also after leading blanks.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def spreadsheet_cell(value: Any) -> Any:
    """``value`` as a CSV cell no spreadsheet runs as a formula.

    Text that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return (after any leading
    whitespace too) gets a leading ``'``, as OWASP recommends: ``=HYPERLINK(...)`` in a shared plan's
    name must not become a live link, ``=cmd|...`` not a command. Numbers, and text that is just a
    number (``-3.5``), are returned unchanged, so they stay numbers in the sheet.
    """
    if not isinstance(value, str) or _NUMBER.fullmatch(value.strip()):
        return value
    if value.startswith(_FORMULA_STARTS) or value.lstrip().startswith(_FORMULA_STARTS):
        return "'" + value
    return value


#: Columns every exported comparison has, differing or not (issue #21): a CSV is read without the app.
CSV_KEY_FIGURES = ("model", "method", "gpu", "num_gpus", "peak_gib", "capacity_gib", "verdict", "hours", "usd",
                   "pessimistic_usd")


def write_comparison_csv(path: str | Path, comparison: ScenarioComparison, only_differences: bool = True) -> Path:
    """Write the comparison as CSV: one row per scenario, one column per field (units in the headers).

    With ``only_differences`` the columns are the differing fields plus the key figures
    (:data:`CSV_KEY_FIGURES`: model, method, GPU, peak memory, verdict, hours, cost), in table order.

    UTF-8 with a byte-order mark, so spreadsheet programs pick the encoding (``×``, ``—``) right;
    numbers are plain (no ``$`` or thousands separators). Read it back with ``encoding="utf-8-sig"``.
    Text that a spreadsheet would compute (a name such as ``=HYPERLINK(...)``) is written behind a
    ``'`` (:func:`spreadsheet_cell`).

    Raises:
        OSError: the file cannot be written.
    """
    p = Path(path)
    rows = [r for r in comparison.rows(False)
            if not only_differences or r.differs or r.key in CSV_KEY_FIGURES]
    with open(p, "w", encoding="utf-8-sig", newline="") as fh:
        writer = csv.writer(fh)
        header = [translate("ScenarioComparison", "Scenario"), *(r.label for r in rows)]
        writer.writerow([spreadsheet_cell(h) for h in header])
        for i, e in enumerate(comparison.entries):
            values = []
            for r in rows:
                v = r.csv_values[i] if r.csv_values else r.texts[i]
                values.append("" if v is None else v)
            writer.writerow([spreadsheet_cell(v) for v in (e.scenario.name, *values)])
    return p


# ---------------------------------------------------------------------------------------------
# the tab


#: Writes the report of a comparison: ``(path, or None to ask; the comparison) -> the file, or None``.
ReportExporter = Callable[[str | Path | None, ScenarioComparison], Path | None]


#: The comparison table's height bounds (pixels): it grows with its rows between them (``_fit_table``).
TABLE_MIN_PX = 180
TABLE_MAX_PX = 1200

#: Below this width the picker sits above the charts instead of beside them.
NARROW_TAB_PX = 700


class ScenarioCompareView(QWidget):
    """The "Compare scenarios" tab: pick 2–4 scenarios, see bars, curves and what differs.

    Args:
        comparison: the controller.
        window: the main window (status bar, ``export_chart``, ``documents`` for the library list
            and "open in plan"); optional for a standalone view.
        export_report: writes the report of a comparison (``(path or None to ask, comparison) -> the file or
            None``), what the "Report" button does; the window passes ``report.export_report``. Without one
            the button does nothing.
    """

    PATH_ROLE = Qt.ItemDataRole.UserRole

    def __init__(self, comparison: ScenarioComparison, window: MainWindow | None = None,
                 export_report: ReportExporter | None = None) -> None:
        super().__init__()
        self.comparison = comparison
        self.window_ = window
        self._export_report = export_report
        self.setAccessibleName(self.tr("Compare scenarios"))
        self._stale = True

        # ---------------------------------------------------------------- picker
        picker = QWidget()
        pc = QVBoxLayout(picker)
        pc.setContentsMargins(8, 8, 4, 8)
        title = QLabel(self.tr("Scenarios to compare"))
        title.setStyleSheet("font-weight: 600; color: #555555;")
        pc.addWidget(title)
        hint = QLabel(self.tr("Tick 2 to {n}. Double-click a value in the table to try another one.").format(
            n=MAX_SCENARIOS))
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #666666;")
        pc.addWidget(hint)
        self.picker = QListWidget()
        self.picker.setAccessibleName(self.tr("Scenarios to compare"))
        self.picker.setWordWrap(True)
        self.picker.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        pc.addWidget(self.picker, 1)
        picker.setMinimumWidth(170)

        # ---------------------------------------------------------------- charts and table
        self.vram_chart = CompareVramChart()
        self.cost_chart = CompareCostChart()
        self.model = ComparisonTableModel(comparison, parent=self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setAccessibleName(self.tr("Differences between the scenarios"))
        self.table.setAlternatingRowColors(False)
        # long cells (a verdict, "Other settings") wrap onto more lines rather than end in "…" (the rows grow: the
        # vertical header sizes them to their contents); names that share a long start keep their different ends
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.table.horizontalHeader().setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setMinimumSectionSize(80)
        self.table.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self.table.horizontalHeader().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumHeight(TABLE_MIN_PX)
        self.model.modelReset.connect(self._fit_table_soon)
        self.only_differences = QCheckBox(self.tr("Only what differs"))
        self.only_differences.setChecked(True)
        self.message = QLabel("")
        self.message.setTextFormat(Qt.TextFormat.PlainText)  # refusals quote scenario names and errors
        self.message.setStyleSheet("color: #8a5a00;")
        self.message.setWordWrap(True)
        self.csv_button = QPushButton(self.tr("Table (CSV)…"))
        self.charts_button = QPushButton(self.tr("Charts"))
        self.report_button = QPushButton(self.tr("Report…"))
        self.csv_button.setToolTip(self.tr("Export the table to a CSV file for a spreadsheet"))
        self.charts_button.setToolTip(self.tr("Export a chart as PNG or SVG"))
        self.report_button.setToolTip(self.tr("A one-page HTML report of these scenarios, to share"))
        charts_menu = QMenu(self)
        charts_menu.addAction(self.tr("Memory chart (PNG/SVG)…"),
                              lambda: self._export_chart(self.vram_chart, "comparison-memory"))
        charts_menu.addAction(self.tr("Cost chart (PNG/SVG)…"),
                              lambda: self._export_chart(self.cost_chart, "comparison-cost"))
        self.charts_button.setMenu(charts_menu)

        body = QWidget()
        col = QVBoxLayout(body)
        col.setContentsMargins(8, 8, 8, 8)
        col.setSpacing(6)
        # the summary and the export buttons wrap on a narrow window (in one row they cut off "Report…" at 1024 px)
        self.top_row = top = FlowLayout(spacing=6)
        self.empty_label = QLabel("")
        self.empty_label.setStyleSheet("color: #555555;")
        self.empty_label.setWordWrap(True)
        top.addWidget(self.empty_label)
        top.addStretch()
        export_box = QWidget()  # "Export:" stays with its first button
        export_row = QHBoxLayout(export_box)
        export_row.setContentsMargins(0, 0, 0, 0)
        export_label = QLabel(self.tr("Export:"))
        export_label.setStyleSheet("color: #555555;")
        export_row.addWidget(export_label)
        export_row.addWidget(self.csv_button)
        top.addWidget(export_box)
        top.addWidget(self.charts_button)
        top.addWidget(self.report_button)
        col.addLayout(top)
        col.addWidget(self.message)
        col.addWidget(self._caption(self.tr("Memory per GPU at the step's peak (red line: that scenario's GPU memory)")))
        col.addWidget(self.vram_chart, 5)
        col.addWidget(self._caption(self.tr("Cost over the run")))
        col.addWidget(self.cost_chart, 4)
        row = QHBoxLayout()
        row.addWidget(self._caption(self.tr("What differs")))
        row.addStretch(1)
        row.addWidget(self.only_differences)
        col.addLayout(row)
        col.addWidget(self.table, 4)
        # at least 820 px high; more when the memory chart needs it for its rows and legend (a narrow window), or the
        # table for its rows (_fit_table)
        self._body, self._column = body, col
        body.setMinimumHeight(820)
        self.vram_chart.height_needed.connect(self._fit_body)
        scroll = QScrollArea()
        scroll.setWidget(body)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)

        self.splitter = splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.addWidget(picker)
        splitter.addWidget(scroll)
        splitter.setStretchFactor(0, 0)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([210, 800])
        splitter.setChildrenCollapsible(False)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(splitter)

        # ---------------------------------------------------------------- wiring
        comparison.changed.connect(self._on_changed)
        comparison.error.connect(self.show_message)
        self.picker.itemChanged.connect(self._on_picked)
        self.only_differences.toggled.connect(self.model.set_only_differences)
        self.csv_button.clicked.connect(lambda: self.export_csv())
        self.report_button.clicked.connect(lambda: self.export_report())
        self.table.horizontalHeader().customContextMenuRequested.connect(self._header_menu)
        documents = getattr(window, "documents", None)
        if documents is not None:
            documents.library_changed.connect(self.refresh_picker)
            documents.library_changed.connect(comparison.reload_files)
        self.refresh_picker()
        self.refresh()

    def _fit_body(self) -> None:
        self._body.setMinimumHeight(max(820, self._column.minimumSize().height()))

    def _fit_table_soon(self) -> None:
        QTimer.singleShot(0, self._fit_table)  # once the rows have their new texts and widths

    def _fit_table(self) -> None:
        """Make the table as tall as its rows (at most :data:`TABLE_MAX_PX`): the page scrolls, and a table of its
        own 180 px showed about one wrapped row at 1024x640 behind a second scroll bar."""
        table = self.table
        table.resizeRowsToContents()
        rows = sum(table.rowHeight(r) for r in range(self.model.rowCount()))
        need = table.horizontalHeader().height() + rows + 2 * table.frameWidth() + 4
        height = max(TABLE_MIN_PX, min(TABLE_MAX_PX, need))
        if table.minimumHeight() != height:
            table.setMinimumHeight(height)
            self._fit_body()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """On a narrow tab the picker goes above the charts: beside them, at 1024x640, it left the memory chart
        165 px of plot and cut its capacity labels."""
        super().resizeEvent(event)
        self._fit_table_soon()  # wrapped cells take more lines on a narrower table
        narrow = self.width() < NARROW_TAB_PX
        orientation = Qt.Orientation.Vertical if narrow else Qt.Orientation.Horizontal
        if self.splitter.orientation() != orientation:
            self.splitter.setOrientation(orientation)
            self.splitter.setSizes([130, 800] if narrow else [210, 800])

    @staticmethod
    def _caption(text: str) -> QLabel:
        label = QLabel(text)
        label.setStyleSheet("color: #555555; font-weight: 600;")
        label.setWordWrap(True)  # a caption must never set the tab's minimum width
        return label

    # ------------------------------------------------------------------ picker
    def refresh_picker(self) -> None:
        """List "Current plan" and the library's readable scenarios, ticked when compared."""
        keys = set(self.comparison.keys())
        self.picker.blockSignals(True)
        self.picker.clear()
        items: list[tuple[str, str, str]] = []
        if self.comparison.store is not None:
            items.append((CURRENT, self.tr("Current plan"), self.tr("The plan in the window; follows your edits")))
        try:
            infos = [i for i in self.comparison.library.list() if i.ok]
        except OSError:
            infos = []
        for info in infos:
            items.append((str(info.path), info.name, str(info.path)))
        for key, text, tip in items:
            item = QListWidgetItem(text)
            item.setData(self.PATH_ROLE, key)
            item.setToolTip(plain_tooltip(tip))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if key in keys else Qt.CheckState.Unchecked)
            if key == CURRENT:
                f = item.font()
                f.setItalic(True)
                item.setFont(f)
            self.picker.addItem(item)
        self.picker.blockSignals(False)

    def pick(self, key: str, checked: bool = True) -> bool:
        """Tick or untick a scenario in the picker (``"current"`` or a file path)."""
        for i in range(self.picker.count()):
            item = self.picker.item(i)
            if item.data(self.PATH_ROLE) == key:
                item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
                return (key in self.comparison.keys()) == checked
        return False

    def _on_picked(self, item: QListWidgetItem) -> None:
        key = item.data(self.PATH_ROLE)
        if item.checkState() == Qt.CheckState.Checked:
            ok = self.comparison.add_current() if key == CURRENT else self.comparison.add_file(key)
            if not ok and key not in self.comparison.keys():
                self.picker.blockSignals(True)
                item.setCheckState(Qt.CheckState.Unchecked)
                self.picker.blockSignals(False)
        else:
            self.comparison.remove(key)

    def _sync_checks(self) -> None:
        keys = set(self.comparison.keys())
        self.picker.blockSignals(True)
        for i in range(self.picker.count()):
            item = self.picker.item(i)
            state = Qt.CheckState.Checked if item.data(self.PATH_ROLE) in keys else Qt.CheckState.Unchecked
            if item.checkState() != state:
                item.setCheckState(state)
        self.picker.blockSignals(False)

    # ------------------------------------------------------------------ redraw
    def _on_changed(self) -> None:
        self._sync_checks()
        if self.isVisible():
            self.refresh()
        else:
            self._stale = True  # redraw when the tab is shown: plan edits stay fast

    def showEvent(self, event) -> None:  # noqa: N802 - Qt naming
        """Catch up with changes made while the tab was hidden."""
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def refresh(self) -> None:
        """Redraw both charts and the headline from the controller's entries."""
        self._stale = False
        entries = self.comparison.entries
        names = [e.label for e in entries]
        if len({n[:BAR_NAME_CHARS] for n in names}) < len(names):  # names the bars' axis would cut to the same text
            names = bar_labels(self.comparison)
        self.vram_chart.set_entries([(name, e.result, e.scenario.gpu.name) for name, e in zip(names, entries,
                                                                                                strict=True)])
        self.cost_chart.set_entries([(e.label, e.result, e.color) for e in entries])  # the legend has room for names
        n = len(entries)
        if n < 2:
            self.empty_label.setText(self.tr("Tick at least two scenarios on the left to compare them.")
                                     if n == 0 else self.tr("Tick one more scenario on the left to compare."))
        else:
            differing = [r for r in self.comparison.rows(True) if r.section == "input"]
            self.empty_label.setText(
                self.tr("{n} scenarios · 1 input differs").format(n=n) if len(differing) == 1
                else self.tr("{n} scenarios · {k} inputs differ").format(n=n, k=len(differing)))
        for b in (self.csv_button, self.charts_button, self.report_button):
            b.setEnabled(n >= 1)

    def show_message(self, text: str) -> None:
        """Show a short note above the charts (refused edits, full comparison)."""
        self.message.setText(text)
        if self.window_ is not None:
            self.window_.statusBar().showMessage(text, 8000)

    # ------------------------------------------------------------------ header menu
    def _header_menu(self, pos) -> None:
        col = self.table.horizontalHeader().logicalIndexAt(pos)
        if col < 0 or col >= len(self.comparison.entries):
            return
        entry = self.comparison.entries[col]
        menu = QMenu(self)
        if entry.key != CURRENT:
            menu.addAction(self.tr("Open in plan"), lambda: self.open_in_plan(entry.key))
        menu.addAction(self.tr("Remove from comparison"), lambda: self.comparison.remove(entry.key))
        menu.exec(self.table.horizontalHeader().mapToGlobal(pos))

    def open_in_plan(self, key: str) -> bool:
        """Load a compared scenario (with its edits) into the plan; its column then follows the plan.

        A scenario from the library keeps its file, so Save writes back to it (checked for
        changes made elsewhere).
        """
        entry = self.comparison.entry(key)
        window = self.window_
        if entry is None or window is None or entry.key == CURRENT:
            return False
        documents = getattr(window, "documents", None)
        if entry.path is not None and documents is not None:
            if not documents.open_plan(entry.path, ask_discard=True):
                return False
            if entry.edited and not window.store.load_scenario(entry.scenario, dirty=True):
                return False
        else:
            if not window._may_discard():
                return False
            window.path = None
            if not window.store.load_scenario(entry.scenario, dirty=True):
                return False
            window._update_title()
        self.comparison.replace_with_current(key)
        return True

    # ------------------------------------------------------------------ export (patchable dialogs)
    def ask_csv_path(self) -> str | None:
        """Where to write the comparison table."""
        from tuneplan.ui.export_folder import export_folder, remember_export

        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export comparison table"),
                                              str(export_folder() / "comparison.csv"), self.tr("CSV table (*.csv)"))
        if path and not path.lower().endswith(".csv"):
            path += ".csv"
        remember_export(path)
        return path or None

    def export_csv(self, path: str | Path | None = None) -> Path | None:
        """Write the table as shown (only differences or all fields) to a CSV file."""
        if path is None:
            path = self.ask_csv_path()
            if not path:
                return None
        try:
            written = write_comparison_csv(path, self.comparison, self.model.only_differences)
        except OSError as exc:
            if self.window_ is not None:
                self.window_.show_error(self.tr("Cannot export table"), f"{path}: {exc}")
            return None
        if self.window_ is not None:
            self.window_.statusBar().showMessage(self.tr("Exported {path}").format(path=written), 5000)
        return written

    def _export_chart(self, chart: QWidget, what: str) -> bool:
        if self.window_ is None:
            return False
        return self.window_.export_chart(chart, what)

    def export_report(self, path: str | Path | None = None) -> Path | None:
        """Write the one-page HTML report of the compared scenarios (through the exporter the view was given)."""
        if self._export_report is None:
            return None
        return self._export_report(path, self.comparison)


def install_scenario_compare(window: MainWindow, export_report: ReportExporter | None = None) -> ScenarioCompareView:
    """Add the "Compare scenarios" tab to ``window`` (starting with the current plan ticked).

    ``export_report`` is what the tab's "Report" button calls (:class:`ScenarioCompareView`). Returns the view; its
    controller is ``view.comparison``.
    """
    documents = getattr(window, "documents", None)
    library = documents.library if documents is not None else None
    comparison = ScenarioComparison(window.store, library, parent=window)
    comparison.setting_text = window.field_setting_text
    comparison.add_current()
    view = ScenarioCompareView(comparison, window, export_report)
    window.add_tab(view, translate("ScenarioCompareView", "Compare scenarios"))
    return view
