"""The uncertainty band on the VRAM bar comes from the estimator's measured errors (issue #3).

``MEASURED_ERROR_P10``/``P90`` must be the 10th/90th percentiles of predicted/measured - 1 over the usable
published measurements, scored the way ``../shared/reference/score_accuracy.py`` scores them (same rows,
same flags, same metric mapping). Runs in-process (no subprocess per row) and needs ../shared beside the
checkout, like CI has.
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
from tuneplan.core.memory import MEASURED_ERROR_P10, MEASURED_ERROR_P90

REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference"


def _signed_errors() -> list[float]:
    sys.path.insert(0, str(REFERENCE))
    try:
        import score_accuracy as sa  # the reference scorer's row -> flags mapping
    finally:
        sys.path.remove(str(REFERENCE))
    base = REFERENCE / "measurements"
    parser = build_parser()
    errors = []
    with (base / "scenarios.csv").open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["kind"] != "measurement" or row["method"] not in {"full", "lora", "qlora"} or not sa.truthy(row["usable"]):
                continue
            argv = ["estimate"] + [part for flag in sa.row_flags(row, base) for part in flag]
            try:
                mem = estimate(scenario_from_args(parser.parse_args(argv))).memory
            except (CliError, ValueError, SystemExit):
                continue  # rows the CLI refuses (e.g. hybrid linear attention) are failures there too
            predicted = getattr(mem, sa.METRIC_KEY.get(row["metric"], "peak_reserved_bytes"))
            errors.append(predicted / (float(row["peak_gib"]) * 2**30) - 1)
    return errors


@pytest.mark.skipif(not (REFERENCE / "score_accuracy.py").exists(), reason="needs ../shared/reference")
def test_band_constants_are_the_measured_error_percentiles():
    errors = _signed_errors()
    assert len(errors) > 100
    deciles = statistics.quantiles(errors, n=10, method="inclusive")
    assert MEASURED_ERROR_P10 == pytest.approx(deciles[0], abs=0.005)
    assert MEASURED_ERROR_P90 == pytest.approx(deciles[-1], abs=0.005)
