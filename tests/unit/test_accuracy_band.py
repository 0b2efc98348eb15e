"""The uncertainty band on the VRAM bar comes from the estimator's measured errors (issue #3).

``MEASURED_ERROR`` (every mode's ``MEASURED_ERROR_BY_MODE``) must hold the 10th/90th percentiles of
predicted/measured - 1 over the usable published measurements whose figure the device total models: packed or
fixed-length runs (any metric) and dynamic-padding runs that report live tensors (allocated/active); not the
dynamic-padding runs that report reserved memory or an unnamed metric, whose figure includes the releasable cache of
earlier batch shapes (docs/validation-allocator.md). Rows are scored the way ``tools/score_with_seq_kind.py``
scores them: ``../shared/reference/score_accuracy.py``'s rows, flags and metric mapping, plus each row's
sequence kind. Runs in-process (no subprocess per row) and needs ../shared beside the checkout, like CI has.
"""

from __future__ import annotations

import csv
import statistics
import sys
from pathlib import Path

import pytest

from tuneplan.__main__ import build_parser
from tuneplan.cli import CliError, scenario_from_args
from tuneplan.core.estimate import estimate
from tuneplan.core.memory import MEASURED_ERROR, MEASURED_ERROR_BY_MODE

REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference"


def _signed_errors() -> dict[str, list[float]]:
    """Signed errors grouped as "total-like" (packed or fixed rows; dynamic rows of live tensors) and "cached"
    (dynamic rows of reserved memory or an unnamed metric; nvidia-smi would count here too)."""
    sys.path.insert(0, str(REFERENCE))
    try:
        import score_accuracy as sa  # the reference scorer's row -> flags mapping
    finally:
        sys.path.remove(str(REFERENCE))
    base = REFERENCE / "measurements"
    parser = build_parser()
    errors: dict[str, list[float]] = {"total-like": [], "cached": []}
    with (base / "scenarios.csv").open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["kind"] != "measurement" or row["method"] not in {"full", "lora", "qlora"} or not sa.truthy(row["usable"]):
                continue
            argv = ["estimate"] + [part for flag in sa.row_flags(row, base) for part in flag]
            kind = row["seq_kind"].strip()
            if kind in {"fixed", "packed", "dynamic"}:  # as tools/score_with_seq_kind.py passes it
                argv += ["--sequence-mode", kind]
            try:
                mem = estimate(scenario_from_args(parser.parse_args(argv))).memory
            except (CliError, ValueError, SystemExit):
                continue  # rows the CLI refuses (e.g. hybrid linear attention) are failures there too
            predicted = getattr(mem, sa.METRIC_KEY.get(row["metric"], "peak_reserved_bytes"))
            live = row["metric"] in {"allocated", "active"}
            group = "cached" if kind == "dynamic" and not live else "total-like"
            errors[group].append(predicted / (float(row["peak_gib"]) * 2**30) - 1)
    return errors


@pytest.mark.skipif(not (REFERENCE / "score_accuracy.py").exists(), reason="needs ../shared/reference")
def test_band_constants_are_the_measured_error_percentiles_of_the_total_like_rows():
    errors = _signed_errors()
    # the 157 usable measured rows of docs/accuracy-table-seq-kind.md: 41 packed/fixed (row 272, Qwen3.5-27B, since Gated DeltaNet is modelled) + 26 dynamic-padding rows of
    # live tensors (LitGPT) model what the device total models; 90 dynamic rows of reserved or unnamed metrics do not
    assert (len(errors["total-like"]), len(errors["cached"])) == (67, 90)
    deciles = statistics.quantiles(errors["total-like"], n=10, method="inclusive")
    assert MEASURED_ERROR[0] == pytest.approx(deciles[0], abs=0.005)
    assert MEASURED_ERROR[1] == pytest.approx(deciles[-1], abs=0.005)
    assert all(MEASURED_ERROR_BY_MODE[mode] == MEASURED_ERROR for mode in ("packed", "fixed", "dynamic"))


def test_the_band_follows_the_plans_sequence_mode():
    # total / (1 + p90) .. total / (1 + p10) with the constants of the plan's own sequence mode
    from tuneplan import catalog
    from tuneplan.core.scenario import Scenario

    base = catalog.default_scenario()
    for mode in ("packed", "fixed", "dynamic"):
        s = Scenario.model_validate(base.model_copy(
            update={"training": base.training.model_copy(update={"sequence_mode": mode})}).model_dump())
        mem = estimate(s).memory
        p10, p90 = MEASURED_ERROR_BY_MODE[mode]
        assert mem.low_bytes == pytest.approx(mem.total_bytes / (1 + p90))
        assert mem.high_bytes == pytest.approx(mem.total_bytes / (1 + p10))


def test_band_risk_says_how_the_likely_range_sits_against_the_capacity():
    from tuneplan.core.result import MemoryEstimate

    def mem(total: float, low: float, high: float) -> MemoryEstimate:
        return MemoryEstimate(components=[], peak_allocated_bytes=total, peak_reserved_bytes=total, total_bytes=total,
                              capacity_bytes=10.0, low_bytes=low, high_bytes=high)

    assert mem(8, 7, 9.5).band_risk == "none"  # the whole range fits
    assert mem(8, 7, 12).band_risk == "tight"  # the upper end does not
    assert mem(9.8, 10.1, 19).band_risk == "unlikely"  # dynamic padding: the range starts above the estimate
    assert mem(11, 10.5, 20).band_risk == "none"  # does not fit, and neither does the range
    assert mem(11, 9, 16).band_risk == "possible"  # does not fit by the estimate, the lower end of the range does
