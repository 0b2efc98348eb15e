#!/usr/bin/env python3
"""Run ``../shared/reference/score_accuracy.py`` with each row's sequence kind passed as well.

``score_accuracy.py`` turns every memory-deciding column of a measurement row into an ``estimate``
flag except ``seq_kind`` (fixed / packed / dynamic padding), so the table it prints scores every row
with Tuneplan's default (packed). This wrapper adds ``--sequence-mode <seq_kind>`` to each row and
otherwise runs the reference script unchanged (same rows, same metrics, same output format), to show
what the estimator does when it is told how the batches were built. ``make accuracy`` writes its
output to ``docs/accuracy-table-seq-kind.md``.

Usage: python tools/score_with_seq_kind.py [score_accuracy.py options]
"""
from __future__ import annotations

import sys
from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"
sys.path.insert(0, str(REFERENCE))

import score_accuracy  # noqa: E402  (the reference scorer, imported from ../shared/reference)

_row_flags = score_accuracy.row_flags


def row_flags_with_seq_kind(row: dict[str, str], base: Path) -> list[tuple[str, ...]]:
    """The reference flags plus ``--sequence-mode`` from the row's ``seq_kind`` column."""
    flags = _row_flags(row, base)
    kind = row.get("seq_kind", "").strip()
    if kind in {"fixed", "packed", "dynamic"}:
        flags.append(("--sequence-mode", kind))
    return flags


if __name__ == "__main__":
    score_accuracy.row_flags = row_flags_with_seq_kind
    sys.exit(score_accuracy.main())
