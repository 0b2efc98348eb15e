"""The one place GUI state lives: the current scenario, its estimate, and whether it is saved.

Data flows one way. A form edit calls a setter here (:meth:`AppStore.set_field` and friends);
the store validates the new scenario with pydantic, computes :func:`tuneplan.core.estimate.estimate`
synchronously (well under a millisecond) and emits ``scenario_changed`` and ``result_changed``.
Widgets never compute estimates; they render what the store emits.

Every estimate uses the saved pilot-run calibration (``tuneplan.storage.calibrations``) whose key is the plan's
:func:`~tuneplan.core.estimate.plan_stack_key`, so plans sharing the hardware and stack are calibrated. The saved
calibrations are read once and again after :meth:`AppStore.apply_pilot` and :meth:`AppStore.forget_calibration`.

An invalid value never replaces the current scenario: the setter returns ``False`` and emits
``error(field, message)`` with a sentence for the user; the last good scenario and estimate stay.
``error(field, "")`` (an empty message) means the field is valid again.

Undo and redo (issue #21): every accepted change that alters the scenario pushes one command on
:attr:`AppStore.undo_stack` (a :class:`QUndoStack`) holding the scenario before and after; a rejected
edit pushes nothing. Undo and redo put a snapshot back through the same path as an edit (recompute,
``scenario_changed``, ``result_changed``) and the plan is clean again when it equals the one last saved.
Consecutive edits of the same field within :data:`MERGE_SECONDS` (typing a number) are one step.
Loading a plan (Open…, New) clears the history: there is no undoing into another file.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from pydantic import ValidationError
from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from tuneplan import catalog
from tuneplan.core import stacks
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.calibration import Calibration, PilotRun, calibrate
from tuneplan.core.estimate import estimate, plan_stack_key
from tuneplan.core.result import Estimate
from tuneplan.core.scenario import Scenario, TrainingSetup, auto_name
from tuneplan.storage.calibrations import CalibrationBook

__all__ = ["METHOD_LABELS", "AppStore", "auto_name", "friendly_error"]

log = logging.getLogger(__name__)

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate

#: Method words (English: plan names are data and stay English; views translate them where shown).
METHOD_LABELS = {"full": QT_TRANSLATE_NOOP("AppStore", "full fine-tune"), "lora": "LoRA", "qlora": "QLoRA"}
CUSTOM_OFFER = "custom"
# The pricing fields a price-book offer sets (with ``price_per_gpu_hour``, priced for the plan's GPU count).
_OFFER_FIELDS = ("provider", "offer_kind", "price_per_gpu_hour", "price_date", "billing", "minimum_billed_minutes",
                 "storage_kind", "storage_usd_per_gb_month", "egress_usd_per_gb")
# Edits of one field closer together than this (seconds) undo as one step (typing ``4096`` is one edit).
MERGE_SECONDS = 2.0


def _fmt_limit(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and abs(value) >= 10_000:
        return f"{value:,}"
    return str(value)


def friendly_error(err: dict[str, Any]) -> str:
    """One pydantic error as a short sentence: ``must be at least 1``, ``must be a number``...

    In the UI language; pydantic's own message (English) for kinds not listed here.
    """
    kind, ctx = err.get("type", ""), err.get("ctx") or {}
    value = err.get("input")
    if isinstance(value, float) and not math.isfinite(value):
        # NaN fails every bound check ("must be at most ..." would be misleading); infinity is no number either
        return translate("AppStore", "must be a number")
    if kind == "greater_than_equal":
        return translate("AppStore", "must be at least {limit}").format(limit=_fmt_limit(ctx.get("ge")))
    if kind == "greater_than":
        return translate("AppStore", "must be more than {limit}").format(limit=_fmt_limit(ctx.get("gt")))
    if kind == "less_than_equal":
        return translate("AppStore", "must be at most {limit}").format(limit=_fmt_limit(ctx.get("le")))
    if kind == "less_than":
        return translate("AppStore", "must be less than {limit}").format(limit=_fmt_limit(ctx.get("lt")))
    if kind in {"int_parsing", "int_from_float", "int_type"}:
        return translate("AppStore", "must be a whole number")
    if kind in {"float_parsing", "float_type", "finite_number"}:
        return translate("AppStore", "must be a number")
    if kind in {"string_too_short"}:
        return translate("AppStore", "must not be empty")
    if kind in {"string_too_long"}:
        return translate("AppStore", "must be at most {limit} characters").format(
            limit=_fmt_limit(ctx.get("max_length")))
    if kind == "literal_error":
        return translate("AppStore", "must be one of {choices}").format(choices=ctx.get("expected", ""))
    msg = str(err.get("msg", "invalid value"))
    return msg[:1].lower() + msg[1:]


def _set_path(data: dict[str, Any], path: str, value: Any) -> None:
    parts = path.split(".")
    node = data
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            raise KeyError(path)
        node = child
    if parts[-1] not in node:
        raise KeyError(path)
    node[parts[-1]] = value


class _Edit(QUndoCommand):
    """One undo step: the scenario (and whether its name follows the plan) before and after a change."""

    def __init__(self, store: AppStore, text: str, before: tuple[Scenario, bool], after: tuple[Scenario, bool],
                 merge_id: int = -1) -> None:
        super().__init__(text)
        self.store, self.before, self.after, self.merge_id = store, before, after, merge_id
        self.at = time.monotonic()
        self._applied = True  # pushed after the store made the change: the first redo() has nothing to do

    def id(self) -> int:  # noqa: A003 - Qt naming
        """The edited field's merge id (-1: never merges)."""
        return self.merge_id

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt naming
        """Absorb a later edit of the same field made soon after this one."""
        if not isinstance(other, _Edit) or other.merge_id != self.merge_id or other.at - self.at > MERGE_SECONDS:
            return False
        self.after, self.at = other.after, other.at
        if self.after == self.before:
            self.setObsolete(True)  # typed back to where it was: nothing left to undo
        return True

    def redo(self) -> None:
        """Put the "after" scenario back (the first call, from ``push``, finds it already there)."""
        if self._applied:
            self._applied = False
            return
        self.store._restore(*self.after)

    def undo(self) -> None:
        """Put the "before" scenario back."""
        self.store._restore(*self.before)


class AppStore(QObject):
    """Holds the current :class:`Scenario` and its :class:`Estimate`; the GUI's only source of truth.

    Signals:
        scenario_changed(Scenario): after every accepted change (and on load/new).
        result_changed(Estimate): the estimate of the new scenario, emitted right after.
        error(str, str): ``(field path, message)``; an empty message clears that field's error.
            The field path is ``""`` for errors that belong to no single field.
        dirty_changed(bool): the scenario differs (or no longer differs) from the saved file.

    Attributes:
        undo_stack: the :class:`QUndoStack` of accepted changes (Edit → Undo / Redo act on it).
        field_label: ``(field path) -> label`` naming fields in the Undo/Redo texts; None: the path's last part.
    """

    scenario_changed = Signal(object)
    result_changed = Signal(object)
    error = Signal(str, str)
    dirty_changed = Signal(bool)

    def __init__(self, scenario: Scenario | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        first = scenario if scenario is not None else catalog.default_scenario()
        #: The saved calibrations (one per hardware-and-stack key), read once; see :meth:`reload_calibrations`.
        self.calibration_book = CalibrationBook()
        self._calibrations: dict[str, Calibration] = {c.key: c for c in self.calibration_book.load()}
        self._scenario: Scenario = first
        self._result: Estimate = self._estimate(first)
        self._dirty = False
        self._errors: dict[str, str] = {}
        self._auto_name = first.name == auto_name(first) or scenario is None
        #: Where GPU prices come from (``prices_for_gpu``, ``default_price``): the bundled catalog
        #: until the main window installs the user's price book (``ui.price_book_view``).
        self.prices: Any = catalog
        # The scenario as last saved (or loaded from its file); None when no file holds this plan.
        self._saved: Scenario | None = first
        # Undo/redo of every accepted change (see the module docstring).
        self.undo_stack = QUndoStack(self)
        # Names a field path for the Undo/Redo texts (the main window passes its form labels).
        self.field_label: Callable[[str], str] | None = None
        self._merge_ids: dict[str, int] = {}
        self._restoring = False
        self._group_depth = 0

    # ------------------------------------------------------------------ state
    @property
    def scenario(self) -> Scenario:
        """The current (always valid) scenario."""
        return self._scenario

    @property
    def result(self) -> Estimate:
        """The estimate of :attr:`scenario`."""
        return self._result

    @property
    def calibration(self) -> Calibration | None:
        """The saved calibration that applies to the current plan (same hardware and stack), or None."""
        return self._calibrations.get(plan_stack_key(self._scenario))

    @property
    def dirty(self) -> bool:
        """True when there are edits that are not saved."""
        return self._dirty

    @property
    def errors(self) -> dict[str, str]:
        """Fields whose last edit was rejected, with the message shown for each."""
        return dict(self._errors)

    # ------------------------------------------------------------------ undo / redo
    def undo(self) -> None:
        """Undo the last change (nothing when there is none)."""
        self.undo_stack.undo()

    def redo(self) -> None:
        """Redo the last undone change (nothing when there is none)."""
        self.undo_stack.redo()

    def clear_history(self) -> None:
        """Forget every undo step (the plan itself stays)."""
        self.undo_stack.clear()

    @contextmanager
    def undo_group(self, text: str) -> Iterator[None]:
        """Make every change inside the ``with`` block one undo step named ``text``.

        For an action that calls several setters (a suggestion that switches GPU and sets fields).
        """
        self.undo_stack.beginMacro(text)
        self._group_depth += 1
        try:
            yield
        finally:
            self._group_depth -= 1
            self.undo_stack.endMacro()
            # a group whose setters all failed leaves an empty step: drop it
            top = self.undo_stack.command(self.undo_stack.index() - 1) if self.undo_stack.index() else None
            if top is not None and top.text() == text and top.childCount() == 0 and not self._group_depth:
                top.setObsolete(True)
                self.undo_stack.undo()

    # ------------------------------------------------------------------ setters
    def set_field(self, path: str, value: Any) -> bool:
        """Set one field by dotted path (``"training.seq_len"``, ``"dataset.epochs"``, ``"name"``).

        Returns True when accepted. On an invalid value emits ``error(path, message)`` and keeps
        the current scenario. Typing a GPU price (``pricing.price_per_gpu_hour``) marks the price
        as the user's own, so switching GPU no longer replaces it. A new GPU count
        (``training.num_gpus``) prices the offer for that count, as :meth:`set_gpu` does (see
        :meth:`_offer_for_count`); the same edit, one undo step. A new tokens per example clears the longest
        example a dataset file counted (it described other data), and a new sequence length or tokens per example the
        packing efficiency it counted; picking continued pretraining packs the rows.
        Under a chosen stack, an edit that brings other stack defaults into force applies them in the same step
        (:meth:`_stack_follows`).
        """
        updates: dict[str, Any] = {path: value}
        if path == "pricing.price_per_gpu_hour":
            p = self._scenario.pricing
            if value != p.price_per_gpu_hour or p.offer_kind != CUSTOM_OFFER:
                updates.update({"pricing.provider": "Your price", "pricing.offer_kind": CUSTOM_OFFER,
                                "pricing.price_date": ""})
        if path == "training.num_gpus":
            updates.update(self._offer_for_count(value))
        if path == "training.workload" and value == "grpo":
            # GRPO's completion is part of the row: a plan whose rows are no longer than TRL's default completion
            # (512) would be refused at the Workload field, with the completion length still hidden; give the
            # completion half the row instead, shown (and editable) in the GRPO rows that now appear
            t = self._scenario.training
            if t.completion_tokens >= t.seq_len:
                updates["training.completion_tokens"] = max(1, t.seq_len // 2)
        d = self._scenario.dataset
        if path == "dataset.tokens_per_example" and d.longest_tokens is not None and value != d.tokens_per_example:
            # the longest example was counted in a file (Dataset → From a file…, the only way to set it here) whose
            # mean this edit replaces: it no longer describes the data planned, so it goes in the same undo step
            updates["dataset.longest_tokens"] = None
        current = {"training.seq_len": self._scenario.training.seq_len, "dataset.tokens_per_example": d.tokens_per_example}
        if path in current and value != current[path] and d.packing_efficiency != 1.0:
            # the fill of packed rows was counted in a file at that sequence length and mean: no longer the data
            updates["dataset.packing_efficiency"] = 1.0
        if path == "training.workload" and value == "pt" and self._scenario.training.sequence_mode != "packed":
            # continued pretraining concatenates its texts into full rows (LLaMA-Factory's pt stage packs by default,
            # data/processor/pretrain.py; axolotl sample_packing, swift --packing): start from packed rows
            updates["training.sequence_mode"] = "packed"
        updates.update(self._stack_follows(updates))
        return self._update(updates, path, names=[path], merge=path, named=path == "name")

    def _stack_follows(self, updates: dict[str, Any]) -> dict[str, Any]:
        """Dotted paths of the stack defaults an edit of the training setup brings into force
        (:func:`tuneplan.core.stacks.follow_defaults`: ZeRO-3 under LLaMA-Factory brings its shipped buckets); ``{}``
        without a stack or for an edit that does not validate (the update then reports why)."""
        old = self._scenario.training
        edited = {p.removeprefix("training.") for p in updates if p.startswith("training.")}
        if old.stack is None or not edited or "stack" in edited:
            return {}
        try:
            new = TrainingSetup.model_validate({**old.model_dump(), **{
                p.removeprefix("training."): v for p, v in updates.items() if p.startswith("training.")}})
        except ValidationError:
            return {}
        return {f"training.{f}": v for f, v in stacks.follow_defaults(old, new, edited).items()}

    def set_fields(self, updates: dict[str, Any], *, error_field: str | None = None) -> bool:
        """Set several fields at once (all or nothing). Keys are dotted paths as in :meth:`set_field`; under a chosen
        stack the defaults the edit brings into force come with it (:meth:`_stack_follows`), as for one field."""
        field = error_field if error_field is not None else next(iter(updates), "")
        updates = {**updates, **self._stack_follows(updates)}
        return self._update(updates, field, names=[error_field] if error_field else list(updates))

    def _update(self, updates: dict[str, Any], field: str, names: list[str], merge: str | None = None,
                named: bool = False) -> bool:
        data = self._scenario.model_dump()
        try:
            for path, value in updates.items():
                _set_path(data, path, value)
        except KeyError:
            self._reject(field, self.tr("unknown field {field}").format(field=repr(field)))
            return False
        # named: a name the user typed, so the plan's name no longer follows its settings
        return self._apply_data(data, field, touched=set(updates), names=names, merge=merge, named=named)

    def set_model(self, catalog_id: str) -> bool:
        """Switch to a catalog model by id (e.g. ``"llama-3.1-8b"``)."""
        try:
            model = catalog.get_model(catalog_id)
        except KeyError as exc:
            self._reject("model", str(exc.args[0]) if exc.args else self.tr("unknown model"))
            return False
        return self._replace("model", model_id=model.id, model=model.architecture)

    def set_model_architecture(self, arch: ModelArchitecture, name: str | None = None) -> bool:
        """Use an architecture that is not in the catalog (an imported ``config.json``)."""
        if name:
            arch = arch.model_copy(update={"name": name[:200]})
        return self._replace("model", model_id="", model=arch)

    def set_gpu(self, gpu_id: str) -> bool:
        """Switch to a catalog GPU by id; also applies its default price unless the price is the user's own.

        The default price is :func:`tuneplan.catalog.default_price` (provider, offer kind, billing
        granularity, date seen, provider storage and egress rates). Other pricing fields stay.
        """
        try:
            update = self.gpu_update(gpu_id)
        except KeyError as exc:
            self._reject("gpu", str(exc.args[0]) if exc.args else self.tr("unknown GPU"))
            return False
        return self._replace("gpu", **update)

    def gpu_update(self, gpu_id: str) -> dict[str, Any]:
        """What :meth:`set_gpu` would change, without applying it: ``gpu`` and maybe ``pricing``.

        Lets a view price a "use this GPU" suggestion exactly as applying it will.

        Raises:
            KeyError: for an unknown GPU id.
        """
        update: dict[str, Any] = {"gpu": catalog.get_gpu(gpu_id)}
        if self._scenario.pricing.offer_kind != CUSTOM_OFFER:
            # the offer that costs least for the plan's GPU count, a whole node billed whole (as Compare GPUs)
            n = self._scenario.training.num_gpus
            entry = self.prices.default_price(gpu_id, n)
            if entry is not None:
                update["pricing"] = self._priced(entry, n)
        return update

    def current_offer(self, scenario: Scenario | None = None) -> catalog.PriceEntry | None:
        """The price-book entry the price of ``scenario`` (default: the current plan) comes from, or ``None`` (the
        user's own price, a custom GPU, an offer no longer in the book).

        An entry matches when its provider and kind are the plan's and its price for the plan's GPU count
        (:func:`tuneplan.catalog.plan_usd_per_gpu_hour`, whole nodes billed) is the plan's price per GPU-hour,
        to the cent's hundredth (USD).
        """
        s = scenario if scenario is not None else self._scenario
        p = s.pricing
        if p.offer_kind == CUSTOM_OFFER:
            return None
        n = s.training.num_gpus
        for entry in self.prices.prices_for_gpu(s.gpu.id):
            if (entry.provider, entry.kind) == (p.provider, p.offer_kind) and math.isclose(
                    catalog.plan_usd_per_gpu_hour(entry, n), p.price_per_gpu_hour, rel_tol=0, abs_tol=1e-4):
                return entry
        return None

    def _offer_for_count(self, num_gpus: Any) -> dict[str, Any]:
        """The pricing updates that go with a new GPU count: an offer sold as whole nodes bills another share of
        its node for another count, and another offer may now be the cheapest.

        The plan's default offer (:func:`tuneplan.catalog.default_price` for the old count) becomes the default
        for the new count; an offer the user picked stays, priced for the new count; the user's own price
        stays as it is. ``{}`` when nothing changes or ``num_gpus`` is not a valid count (validation says so).
        """
        s = self._scenario
        if s.pricing.offer_kind == CUSTOM_OFFER or not isinstance(num_gpus, int) or num_gpus < 1:
            return {}
        current = self.current_offer()
        default = self.prices.default_price(s.gpu.id, s.training.num_gpus)
        if current is None or current == default:
            entry = self.prices.default_price(s.gpu.id, num_gpus)
        else:
            entry = current
        if entry is None:
            return {}
        # only the offer's own fields: a plan billed as the user's electricity (own_gpu) stays so
        priced = self._priced(entry, num_gpus)
        return {f"pricing.{key}": priced[key] for key in _OFFER_FIELDS}

    def set_price_offer(self, entry: catalog.PriceEntry) -> bool:
        """Use a catalog price point (from :func:`tuneplan.catalog.prices_for_gpu`), priced for the plan's GPU
        count: an offer sold only as whole nodes bills its whole node (:func:`tuneplan.catalog.plan_usd_per_gpu_hour`)."""
        return self._replace("pricing.price_per_gpu_hour",
                             pricing=self._priced(entry, self._scenario.training.num_gpus))

    def set_custom_price(self) -> bool:
        """Keep the current price but mark it as the user's own (GPU changes no longer replace it)."""
        return self.set_fields({"pricing.provider": "Your price", "pricing.offer_kind": CUSTOM_OFFER,
                                "pricing.price_date": ""}, error_field="pricing.price_per_gpu_hour")

    def load_scenario(self, scenario: Scenario, *, dirty: bool = False) -> bool:
        """Replace the whole scenario (Open…, New). Clears field errors; ``dirty`` False means saved."""
        try:
            checked = Scenario.model_validate(scenario.model_dump())
            result = self._estimate(checked)
        except (ValidationError, ValueError) as exc:
            self._reject("", self.tr("this plan cannot be computed: {error}").format(error=exc))
            return False
        self._auto_name = checked.name == auto_name(checked)
        self.undo_stack.clear()  # another plan: its history is not this one's
        self._saved = None if dirty else checked
        self._commit(checked, result, touched=None)
        self._set_dirty(dirty)
        return True

    def new_scenario(self) -> None:
        """Start over from the catalog's default plan (Llama 3.1 8B QLoRA on an RTX 4090)."""
        self.load_scenario(catalog.default_scenario())
        self._auto_name = True

    def mark_saved(self) -> None:
        """Tell the store the current scenario was written to disk."""
        self._saved = self._scenario
        self._set_dirty(False)

    # ------------------------------------------------------------------ calibration
    def apply_pilot(self, pilot: PilotRun) -> Calibration:
        """Fit a pilot run of the current plan onto the step model, save it and recompute.

        The factor is the pilot's step time over the model's uncalibrated prediction for this plan; it replaces a
        calibration saved earlier for the same hardware and stack.

        Raises:
            CalibrationError: when the prediction cannot be used.
            OSError: when the calibration cannot be saved (nothing changes).
        """
        s = self._scenario
        plain = estimate(s).time
        cal = calibrate(pilot, plain.step_seconds, plan_stack_key(s), label=s.name, predicted_mfu=plain.mfu,
                        plan_micro_batch=s.training.micro_batch)
        self.calibration_book.save(cal)
        self.reload_calibrations()
        return cal

    def forget_calibration(self) -> bool:
        """Forget the saved calibration of the current plan's hardware and stack and recompute.

        Returns False when there was none.

        Raises:
            OSError: when the saved calibrations cannot be written.
        """
        key = plan_stack_key(self._scenario)
        if key not in self._calibrations:
            return False
        self.calibration_book.remove(key)
        self.reload_calibrations()
        return True

    def reload_calibrations(self) -> None:
        """Read the saved calibrations again and recompute the current estimate with them."""
        self._calibrations = {c.key: c for c in self.calibration_book.load()}
        try:
            result = self._estimate(self._scenario)
        except ValueError as exc:  # the current plan was computable; keep its estimate
            log.warning("cannot recompute with calibrations: %s", exc)
            return
        self._result = result
        self.result_changed.emit(result)

    def _estimate(self, scenario: Scenario) -> Estimate:
        return estimate(scenario, self._calibrations.get(plan_stack_key(scenario)))

    def estimate_for(self, scenario: Scenario) -> Estimate:
        """:func:`estimate` of another plan (a comparison's variant) with the saved calibration of its stack."""
        return self._estimate(scenario)

    @property
    def calibrations(self) -> dict[str, Calibration]:
        """The saved calibrations by stack key (a copy)."""
        return dict(self._calibrations)

    # ------------------------------------------------------------------ internals
    def _priced(self, entry: catalog.PriceEntry, num_gpus: int) -> Any:
        """The plan's pricing with ``entry``'s offer, its price per GPU-hour for ``num_gpus`` (whole nodes billed)."""
        fresh = catalog.pricing_from_entry(entry)
        keep = self._scenario.pricing.model_dump()
        for key in _OFFER_FIELDS:
            keep[key] = getattr(fresh, key)
        keep["price_per_gpu_hour"] = catalog.plan_usd_per_gpu_hour(entry, num_gpus)
        keep["own_gpu"], keep["gpu_power_w"] = False, None  # a rental offer is rented, not your electricity
        return keep

    def _replace(self, field: str, **top_level: Any) -> bool:
        data = self._scenario.model_dump()
        for key, value in top_level.items():
            data[key] = value.model_dump() if hasattr(value, "model_dump") else value
        return self._apply_data(data, field, touched={field}, names=[field])

    def _apply_data(self, data: dict[str, Any], field: str, touched: set[str], names: Iterable[str] = (),
                    merge: str | None = None, named: bool = False) -> bool:
        old, old_auto = self._scenario, self._auto_name
        try:
            new = Scenario.model_validate(data)
        except ValidationError as exc:
            err = exc.errors()[0]
            self._reject(field, friendly_error(err))
            return False
        if self._auto_name and (new.name == old.name) and self._renames(old, new):
            new = new.model_copy(update={"name": auto_name(new)})
        try:
            result = self._estimate(new)
        except ValueError as exc:
            self._reject(field, str(exc))
            return False
        if named:
            self._auto_name = False
        self._commit(new, result, touched=touched | {field})
        if new != old:
            self._set_dirty(True)
            self._push(self._edit_text(names or [field]), (old, old_auto), (new, self._auto_name), merge)
        return True

    def _push(self, text: str, before: tuple[Scenario, bool], after: tuple[Scenario, bool],
              merge: str | None) -> None:
        if self._restoring:  # a view echoing the restored plan back is no new step
            return
        merge_id = -1
        if merge is not None and not self._group_depth:
            merge_id = self._merge_ids.setdefault(merge, len(self._merge_ids) + 1)
        self.undo_stack.push(_Edit(self, text, before, after, merge_id))

    def _edit_text(self, paths: Iterable[str]) -> str:
        labels: list[str] = []
        for path in paths:
            label = (self.field_label(path) if self.field_label is not None else "") or \
                path.rsplit(".", 1)[-1].replace("_", " ")
            if label not in labels:
                labels.append(label)
        shown = ", ".join(labels[:3]) + ("…" if len(labels) > 3 else "")
        return self.tr("change {fields}").format(fields=shown)

    def _restore(self, scenario: Scenario, auto: bool) -> None:
        """Undo/redo: make ``scenario`` current again, recomputed; clean when it is the saved plan."""
        try:
            result = self._estimate(scenario)
        except ValueError as exc:  # computable when it was current; calibrations may have changed since
            self._reject("", self.tr("this plan cannot be computed: {error}").format(error=exc))
            return
        self._auto_name = auto
        self._restoring = True
        try:
            self._commit(scenario, result, touched=None)
        finally:
            self._restoring = False
        self._set_dirty(self._saved is None or scenario != self._saved)

    @staticmethod
    def _renames(old: Scenario, new: Scenario) -> bool:
        return (
            old.model.name != new.model.name
            or old.gpu.name != new.gpu.name
            or old.training.method != new.training.method
            or old.training.num_gpus != new.training.num_gpus
        )

    def _commit(self, scenario: Scenario, result: Estimate, touched: set[str] | None) -> None:
        self._scenario, self._result = scenario, result
        cleared = list(self._errors) if touched is None else [f for f in touched if f in self._errors]
        for f in cleared:
            del self._errors[f]
        for f in cleared:
            self.error.emit(f, "")
        self.scenario_changed.emit(scenario)
        self.result_changed.emit(result)

    def _reject(self, field: str, message: str) -> None:
        log.info("rejected %s: %s", field or "scenario", message)
        self._errors[field] = message
        self.error.emit(field, message)

    def _set_dirty(self, dirty: bool) -> None:
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirty_changed.emit(dirty)
