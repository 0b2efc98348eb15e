"""Calibration from a pilot run: what a short real run measured, fitted onto the step model.

A pilot run's step time (from HF Trainer's ``trainer_state.json``, a CSV/W&B export of step times, or two typed
numbers) is divided by the step model's prediction for the same plan: ``factor = measured / predicted``. The
factor is applied to plans that share the pilot's hardware and stack (:func:`stack_key`: GPU, GPU count, framework
tier, method), and the likely range becomes the pilot's own spread of step times, widened by how much the model's
error varies between plans on one stack (:data:`CALIBRATED_SPREAD`). Parsing takes already-decoded data (a dict,
rows of a CSV); reading files is the caller's business (``tuneplan.storage.calibrations``).
"""

from __future__ import annotations

import math
import statistics
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tuneplan.core.terms import N_, NOTES

__all__ = [
    "CALIBRATED_SPREAD",
    "Calibration",
    "CalibrationError",
    "PilotRun",
    "calibrate",
    "pilot_from_rows",
    "pilot_from_trainer_state",
    "pilot_from_numbers",
    "stack_key",
]

#: Spread (10th-90th percentile) of measured / predicted tokens/s around its median among evidence rows that share
#: source, GPU and framework (the same stack measured on different plans), ``tools/time_accuracy.py``; the range a
#: calibrated plan keeps when its pilot ran on a different micro-batch, length or model size.
CALIBRATED_SPREAD = (0.84, 1.12)

NOTES.update({
    "calibration.not_object": N_("the file is not a JSON object"),
    "calibration.no_steps": N_("the file records no completed training steps"),
    "calibration.no_runtime": N_("the file has no train_runtime or step times to measure"),
    "calibration.bad_number": N_("{field} must be a positive number, got {value}"),
    "calibration.no_columns": N_("no step and time columns (step with _runtime, step_time or tokens_per_second)"),
    "calibration.too_few_rows": N_("at least two logged steps are needed, found {rows}"),
    "calibration.no_usable_rows": N_("{rows} rows, but no usable step times: they must be positive numbers, and "
                                     "_runtime must grow from step to step"),
    "calibration.faster_than_hardware": N_("the pilot's {seconds} s per step would mean {mfu} % of the GPU's peak "
                                           "rate, which no card reaches: is it a different plan, or per micro-batch?"),
    "calibration.too_slow": N_("the pilot's {seconds} s per step is {factor} times the model's {predicted} s: "
                               "a different plan, a stalled run or the wrong file"),
    "time.calibration_stale": N_("your run of {date} was fitted to an earlier version of the time model and is not "
                                 "applied: import it again"),
    "calibration.micro_batch_differs": N_("the pilot ran micro-batch {pilot}, the plan has {plan}: set the plan to "
                                          "the pilot's settings, then import it"),
})

#: A pilot more than this many times slower than the model's prediction is refused as a different plan or a stalled
#: run (a validation bound, not a model constant: the evidence's slowest plausible row is 3x, docs/time-accuracy.md).
MAX_SLOWDOWN = 20.0


class CalibrationError(ValueError):
    """A pilot file or number that cannot be used; ``code`` and ``params`` name the problem (``NOTES``)."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(NOTES.get(code, code).format(**params))


class PilotRun(BaseModel):
    """What a pilot run measured.

    Attributes:
        step_seconds: median seconds per optimizer step.
        step_seconds_low, step_seconds_high: 10th and 90th percentile of the logged step times (equal to the median
            when only a total is known).
        steps: optimizer steps measured.
        tokens_per_second: per-GPU tokens/s the run logged, if it did (``train_tokens_per_second``), else None.
        micro_batch: per-device micro-batch the run used, if the file says (``train_batch_size``), else None.
        peak_gib: the run's peak memory in GiB if given, else None.
        date: when it ran (ISO date) if known, else "".
        kind: ``trainer_state``, ``csv`` or ``typed``.
    """

    model_config = ConfigDict(frozen=True)

    step_seconds: float = Field(gt=0)
    step_seconds_low: float = Field(gt=0)
    step_seconds_high: float = Field(gt=0)
    steps: int = Field(ge=0)
    tokens_per_second: float | None = None
    micro_batch: int | None = None
    peak_gib: float | None = None
    date: str = ""
    kind: str = "typed"


class Calibration(BaseModel):
    """A pilot run fitted onto the plan it ran.

    Attributes:
        key: :func:`stack_key` of the pilot's plan; it applies to plans with the same key.
        factor: measured / predicted step time (``> 1``: the real stack is slower than modelled).
        band: (low, high) multipliers on tokens/s for calibrated plans.
        date: the pilot's date (or the import date).
        pilot: what the pilot measured.
        predicted_step_seconds: the step model's prediction for the pilot's plan.
        label: the pilot plan's name, for lists.
        model_version: the step model's version the factor was fitted against
            (``tuneplan.core.steptime.STEP_MODEL_VERSION``); another version's calibration is not applied.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    factor: float = Field(gt=0, lt=1e6, allow_inf_nan=False)
    band: tuple[float, float]
    date: str = ""
    pilot: PilotRun
    predicted_step_seconds: float = Field(gt=0, allow_inf_nan=False)
    label: str = ""
    model_version: int = 0

    @field_validator("band")
    @classmethod
    def _band(cls, band: tuple[float, float]) -> tuple[float, float]:
        lo, hi = band
        if not (math.isfinite(lo) and math.isfinite(hi) and 0 < lo <= hi < 1e6):
            raise ValueError("the band must be two finite multipliers with 0 < low <= high")
        return band


def stack_key(gpu_id: str, num_gpus: int, framework: str, method: str, sharding: str) -> str:
    """The hardware-and-stack key plans share a calibration by: ``gpu x n / framework / method / sharding``
    (LoRA and QLoRA differ in their kernels, so method counts)."""
    return f"{gpu_id}x{num_gpus}/{framework}/{method}/{sharding if num_gpus > 1 else 'none'}"


def _positive(value: Any, field: str) -> float:
    if isinstance(value, bool):
        raise CalibrationError("calibration.bad_number", field=field, value=str(value))
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise CalibrationError("calibration.bad_number", field=field, value=str(value)[:40]) from None
    if not math.isfinite(x) or x <= 0:
        raise CalibrationError("calibration.bad_number", field=field, value=str(value)[:40])
    return x


def pilot_from_numbers(step_seconds: float | None = None, tokens_per_second: float | None = None,
                       tokens_per_step: float | None = None, peak_gib: float | None = None, date: str = "") -> PilotRun:
    """A pilot from typed numbers: seconds per step, or tokens/s per GPU with the plan's tokens per step.

    Raises:
        CalibrationError: when neither is a positive number.
    """
    if step_seconds is None:
        tps = _positive(tokens_per_second, "tokens_per_second")
        step_seconds = _positive(tokens_per_step, "tokens_per_step") / tps
    s = _positive(step_seconds, "step_seconds")
    peak = _positive(peak_gib, "peak_gib") if peak_gib is not None else None
    return PilotRun(step_seconds=s, step_seconds_low=s, step_seconds_high=s, steps=0,
                    tokens_per_second=tokens_per_second, peak_gib=peak, date=date, kind="typed")


def pilot_from_trainer_state(state: Any, date: str = "") -> PilotRun:
    """A pilot from HF Trainer's ``trainer_state.json`` (decoded): ``train_runtime / global_step`` from the last
    ``log_history`` entry that has them (``Trainer._inner_training_loop`` logs ``train_runtime``,
    ``train_steps_per_second`` and, with ``include_tokens_per_second``, ``train_tokens_per_second``).

    Raises:
        CalibrationError: not an object, no steps, or no runtime.
    """
    if not isinstance(state, dict):
        raise CalibrationError("calibration.not_object")
    history = state.get("log_history")
    if not isinstance(history, list):
        history = []
    summary = next((e for e in reversed(history) if isinstance(e, dict) and "train_runtime" in e), None)
    steps_raw = state.get("global_step") or (summary or {}).get("step")
    try:
        steps = 0 if isinstance(steps_raw, bool) else int(steps_raw)
    except (TypeError, ValueError, OverflowError):
        steps = 0
    if steps > 10**12:
        steps = 0
    if steps <= 0:
        raise CalibrationError("calibration.no_steps")
    if summary is None:
        raise CalibrationError("calibration.no_runtime")
    runtime = _positive(summary.get("train_runtime"), "train_runtime")
    s = runtime / steps
    tps = summary.get("train_tokens_per_second")
    tps_value = _float_or_none(tps) if isinstance(tps, (int, float)) and not isinstance(tps, bool) and tps > 0 else None
    mb = state.get("train_batch_size")
    return PilotRun(step_seconds=s, step_seconds_low=s, step_seconds_high=s, steps=steps,
                    tokens_per_second=tps_value, micro_batch=mb if isinstance(mb, int) and not isinstance(mb, bool) and 0 < mb <= 10**6 else None,
                    date=date, kind="trainer_state")


_STEP_COLS = ("step", "train/global_step", "global_step", "_step")
_RUNTIME_COLS = ("_runtime", "runtime", "elapsed", "time", "train/runtime")
_STEP_TIME_COLS = ("step_time", "train/step_time", "seconds_per_step", "sec_per_step", "perf/step_time")
_TPS_COLS = ("tokens_per_second", "train/tokens_per_second", "tokens_per_s", "tps", "perf/tokens_per_second")
_PEAK_COLS = ("peak_gib", "max_memory_reserved_gib", "memory_gib", "peak_memory_gib")


def _col(header: list[str], names: tuple[str, ...]) -> str | None:
    low = {h.strip().lower(): h for h in header if isinstance(h, str)}
    return next((low[n] for n in names if n in low), None)


def _float_or_none(text: Any) -> float | None:
    if isinstance(text, bool):
        return None
    if isinstance(text, str):
        text = text.strip().replace(",", ".") if text.count(",") == 1 and "." not in text else text.strip()
    try:
        x = float(text)
    except (TypeError, ValueError, OverflowError):
        return None
    return x if math.isfinite(x) else None


def pilot_from_rows(rows: list[dict[str, str]], tokens_per_step: float | None = None, date: str = "") -> PilotRun:
    """A pilot from CSV rows (a W&B history export, or any table with a step column and step times).

    Step times come from a step-time column, from consecutive ``_runtime`` (seconds since start) readings divided
    by the steps between them, or from tokens/s with ``tokens_per_step``. The first interval is dropped when more
    than three remain (warm-up: compilation, allocator growth).

    Raises:
        CalibrationError: no usable columns or fewer than two steps.
    """
    rows = [r for r in rows if isinstance(r, dict)]
    if not rows:
        raise CalibrationError("calibration.too_few_rows", rows=0)
    header = list(rows[0].keys())
    step_c, run_c = _col(header, _STEP_COLS), _col(header, _RUNTIME_COLS)
    st_c, tps_c, peak_c = _col(header, _STEP_TIME_COLS), _col(header, _TPS_COLS), _col(header, _PEAK_COLS)
    times: list[float] = []
    if st_c:
        times = [x for r in rows if (x := _float_or_none(r.get(st_c))) is not None and x > 0]
    elif step_c and run_c:
        pts = sorted((s, t) for r in rows if (s := _float_or_none(r.get(step_c))) is not None
                     and (t := _float_or_none(r.get(run_c))) is not None)
        for (s0, t0), (s1, t1) in zip(pts, pts[1:], strict=False):
            if s1 > s0 and t1 > t0:
                times.append((t1 - t0) / (s1 - s0))
    elif tps_c and tokens_per_step:
        times = [tokens_per_step / x for r in rows if (x := _float_or_none(r.get(tps_c))) is not None and x > 0]
    else:
        raise CalibrationError("calibration.no_columns")
    if not times:
        raise CalibrationError("calibration.no_usable_rows", rows=len(rows))
    if len(times) > 3:
        times = times[1:]
    if len(times) < 2 and not (st_c and len(times) == 1):
        raise CalibrationError("calibration.too_few_rows", rows=len(times))
    qs = sorted(times)
    lo = qs[int(0.1 * (len(qs) - 1))]
    hi = qs[int(math.ceil(0.9 * (len(qs) - 1)))]
    peaks = [x for r in rows if peak_c and (x := _float_or_none(r.get(peak_c))) is not None and x > 0]
    return PilotRun(step_seconds=statistics.median(qs), step_seconds_low=lo, step_seconds_high=hi, steps=len(qs),
                    peak_gib=max(peaks) if peaks else None, date=date, kind="csv")


def calibrate(pilot: PilotRun, predicted_step_seconds: float, key: str, label: str = "",
              predicted_mfu: float | None = None, plan_micro_batch: int | None = None) -> Calibration:
    """Fit ``pilot`` onto the plan whose step the model predicts as ``predicted_step_seconds``.

    ``factor = pilot.step_seconds / predicted``; the band on tokens/s is the pilot's own spread (median / p90 ..
    median / p10 of its step times) widened by :data:`CALIBRATED_SPREAD` (multiplied).

    Args:
        pilot: what the run measured.
        predicted_step_seconds: the model's step for the plan (seconds).
        key: the plan's :func:`stack_key`.
        label: the plan's name.
        predicted_mfu: the plan's predicted MFU (model FLOPs / spec peak): a pilot whose implied MFU
            (``predicted_mfu x predicted / measured``) exceeds 1 ran faster than the card's peak and is refused.
        plan_micro_batch: the plan's micro-batch; a pilot that logged another (``train_batch_size``) is refused.

    Raises:
        CalibrationError: a non-positive prediction, a pilot faster than the hardware allows, more than
            :data:`MAX_SLOWDOWN` times slower than predicted, or run with another micro-batch.
    """
    pred = _positive(predicted_step_seconds, "predicted_step_seconds")
    if plan_micro_batch is not None and pilot.micro_batch is not None and pilot.micro_batch != plan_micro_batch:
        raise CalibrationError("calibration.micro_batch_differs", pilot=pilot.micro_batch, plan=plan_micro_batch)
    if predicted_mfu is not None and predicted_mfu * pred / pilot.step_seconds > 1.0:
        raise CalibrationError("calibration.faster_than_hardware", seconds=f"{pilot.step_seconds:.4g}",
                               mfu=f"{100 * predicted_mfu * pred / pilot.step_seconds:.3g}")
    if pilot.step_seconds / pred > MAX_SLOWDOWN:
        raise CalibrationError("calibration.too_slow", seconds=f"{pilot.step_seconds:.4g}",
                               factor=f"{pilot.step_seconds / pred:.3g}", predicted=f"{pred:.4g}")
    own_lo = pilot.step_seconds / pilot.step_seconds_high
    own_hi = pilot.step_seconds / pilot.step_seconds_low
    band = (own_lo * CALIBRATED_SPREAD[0], own_hi * CALIBRATED_SPREAD[1])
    from tuneplan.core.steptime import STEP_MODEL_VERSION

    return Calibration(key=key, factor=pilot.step_seconds / pred, band=band, date=pilot.date, pilot=pilot,
                       predicted_step_seconds=pred, label=label, model_version=STEP_MODEL_VERSION)
