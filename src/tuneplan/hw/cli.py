"""``tuneplan gpus [--json]``: show the local GPUs as the probe sees them. No Qt."""

from __future__ import annotations

import sys
from typing import TextIO

from tuneplan.hw.probe import LocalGpu, ProbeResult, probe_with_timeout, to_json

__all__ = ["format_table", "gpus_command"]

GIB = 2**30

_HEADERS = (
    "#",
    "Name",
    "Total GiB",
    "Used GiB",
    "Free GiB",
    "Driver",
    "CUDA (driver max)",
    "CC",
    "BF16",
    "Procs",
    "Catalog",
)
_RIGHT_ALIGNED = {0, 2, 3, 4, 9}


def _gib(value: int | None) -> str:
    return "?" if value is None else f"{value / GIB:.1f}"


def _row(gpu: LocalGpu) -> tuple[str, ...]:
    cc = gpu.compute_capability
    bf16 = "?" if gpu.bf16_supported is None else ("yes" if gpu.bf16_supported else "no")
    return (
        str(gpu.index),
        gpu.name,
        _gib(gpu.memory_total_bytes),
        _gib(gpu.memory_used_bytes),
        _gib(gpu.memory_free_bytes),
        gpu.driver_version or "?",
        gpu.cuda_driver_version or "?",
        "?" if cc is None else f"{cc[0]}.{cc[1]}",
        bf16,
        str(len(gpu.processes)),
        gpu.catalog_id or "(no match)",
    )


def format_table(result: ProbeResult) -> str:
    """The human-readable report: a table of GPUs and their processes, or why no GPU is seen."""
    if not result.gpus:
        lines = [f"No GPU information ({result.status}): {result.message}"]
        lines += [f"  note: {note}" for note in result.notes]
        return "\n".join(lines) + "\n"

    rows = [_HEADERS] + [_row(gpu) for gpu in result.gpus]
    widths = [max(len(row[col]) for row in rows) for col in range(len(_HEADERS))]

    def fmt(row: tuple[str, ...]) -> str:
        cells = [
            cell.rjust(widths[col]) if col in _RIGHT_ALIGNED else cell.ljust(widths[col])
            for col, cell in enumerate(row)
        ]
        return "  ".join(cells).rstrip()

    lines = [fmt(rows[0]), "  ".join("-" * w for w in widths)]
    lines += [fmt(row) for row in rows[1:]]
    for gpu in result.gpus:
        for proc in gpu.processes:
            used = "? GiB" if proc.used_bytes is None else f"{proc.used_bytes / GIB:.2f} GiB"
            lines.append(
                f"GPU {gpu.index}: pid {proc.pid} {proc.name or '(name unknown)'} [{proc.kind}] {used}"
            )
    lines.append("")
    lines.append(result.message)
    lines.append("CUDA is the newest version the driver supports, not the installed toolkit.")
    lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines) + "\n"


def gpus_command(as_json: bool = False, out: TextIO | None = None, *, timeout_s: float = 5.0) -> int:
    """Print the local GPUs (a table, or JSON with ``as_json``) to ``out`` (default stdout).

    Returns the exit code: 0 whether or not a GPU was found, since "no GPU" is an answer, not a
    failure. The probe runs with a timeout so a hung driver can't hang the command.
    """
    stream = sys.stdout if out is None else out
    result = probe_with_timeout(timeout_s)
    if as_json:
        stream.write(to_json(result) + "\n")
    else:
        stream.write(format_table(result))
    return 0
