"""Compare Tuneplan's NVML probe with ``nvidia-smi`` on a machine with a GPU.

Usage (from a checkout): ``python tools/device_check.py``

Prints one JSON object ``{probe, nvidia_smi, agree, differences, note}`` and exits 0 when the two
agree per GPU (name, total MiB, driver version) or when there is no GPU to compare; 1 when they
disagree. ``agree`` is ``null`` when there was nothing to compare.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

try:
    import tuneplan  # noqa: F401
except ImportError:  # running from a checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tuneplan.hw.probe import probe_with_timeout  # noqa: E402

MIB = 2**20
SMI_QUERY = "name,memory.total,memory.used,driver_version"
# nvidia-smi prints whole MiB; allow rounding either way.
TOTAL_MIB_TOLERANCE = 1


def parse_smi_csv(text: str) -> list[dict[str, Any]]:
    """Parse ``nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version --format=csv,noheader,nounits``."""
    rows = []
    for line in text.splitlines():
        if not line.strip():
            continue
        # GPU names don't contain commas; split from the right to be safe anyway.
        name, total, used, driver = (part.strip() for part in line.rsplit(",", 3))
        rows.append(
            {
                "name": name,
                "memory_total_mib": _to_int(total),
                "memory_used_mib": _to_int(used),
                "driver_version": driver,
            }
        )
    return rows


def _to_int(text: str) -> int | None:
    try:
        return int(float(text))
    except ValueError:  # "[N/A]" on unified-memory parts
        return None


def run_nvidia_smi(exe: str) -> dict[str, Any]:
    """Run nvidia-smi; ``{"gpus": [...]}`` or ``{"error": ...}``."""
    try:
        proc = subprocess.run(
            [exe, f"--query-gpu={SMI_QUERY}", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"}
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}: {(proc.stdout + proc.stderr).strip()[:500]}"}
    try:
        return {"gpus": parse_smi_csv(proc.stdout)}
    except ValueError as exc:
        return {"error": f"unexpected output ({exc}): {proc.stdout[:500]}"}


def compare(probe_gpus: list[dict[str, Any]], smi_gpus: list[dict[str, Any]]) -> list[str]:
    """Differences between the probe's GPUs and nvidia-smi's rows, matched by index order."""
    differences = []
    if len(probe_gpus) != len(smi_gpus):
        differences.append(f"GPU count: probe {len(probe_gpus)}, nvidia-smi {len(smi_gpus)}")
    for index, (ours, theirs) in enumerate(zip(probe_gpus, smi_gpus, strict=False)):
        if ours.get("name") != theirs["name"]:
            differences.append(f"GPU {index} name: probe {ours.get('name')!r}, nvidia-smi {theirs['name']!r}")
        total = ours.get("memory_total_bytes")
        our_mib = None if total is None else total // MIB
        their_mib = theirs["memory_total_mib"]
        if (our_mib is None) != (their_mib is None) or (
            our_mib is not None and their_mib is not None and abs(our_mib - their_mib) > TOTAL_MIB_TOLERANCE
        ):
            differences.append(f"GPU {index} total MiB: probe {our_mib}, nvidia-smi {their_mib}")
        if ours.get("driver_version") != theirs["driver_version"]:
            differences.append(
                f"GPU {index} driver: probe {ours.get('driver_version')!r}, "
                f"nvidia-smi {theirs['driver_version']!r}"
            )
    return differences


def check(smi_exe: str | None = None, timeout_s: float = 10.0) -> tuple[dict[str, Any], int]:
    """Build the report and its exit code. ``smi_exe`` defaults to ``nvidia-smi`` on PATH."""
    result = probe_with_timeout(timeout_s)
    probe_view = result.model_dump(mode="json")
    exe = smi_exe if smi_exe is not None else shutil.which("nvidia-smi")
    report: dict[str, Any] = {"probe": probe_view, "nvidia_smi": None, "agree": None, "differences": []}

    if exe is None:
        if result.gpus:
            report["note"] = "nvidia-smi not found: nothing to compare the probe with"
        else:
            report["note"] = f"no GPU on this machine (probe: {result.status}) and no nvidia-smi"
        return report, 0

    smi = run_nvidia_smi(exe)
    report["nvidia_smi"] = smi
    if "error" in smi:
        if not result.gpus:
            report["note"] = f"no GPU: nvidia-smi failed and the probe says {result.status}"
            return report, 0
        report["agree"] = False
        report["differences"] = [f"probe found {len(result.gpus)} GPU(s) but nvidia-smi failed"]
        return report, 1

    if not result.gpus and not smi["gpus"]:
        report["agree"] = True
        report["note"] = "no GPU: neither the probe nor nvidia-smi sees one"
        return report, 0

    differences = compare(probe_view["gpus"], smi["gpus"])
    report["agree"] = not differences
    report["differences"] = differences
    return report, 0 if not differences else 1


def main() -> int:
    """Print the comparison as JSON; exit 0 on agreement or when there is no GPU."""
    report, code = check()
    print(json.dumps(report, indent=2))
    return code


if __name__ == "__main__":
    sys.exit(main())
