"""``tuneplan estimate --gpu local:0``: the real CLI in a subprocess, with a fake pynvml first on its path (issue #19)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

FAKE_PYNVML = '''
"""A stand-in for nvidia-ml-py: one RTX 3090 with a 300 W enforced power limit (the card's own, below its 350 W)."""
class NVMLError(Exception):
    def __init__(self, value):
        self.value = value
def nvmlInit(): pass
def nvmlShutdown(): pass
def nvmlDeviceGetCount(): return 1
def nvmlDeviceGetHandleByIndex(i): return i
def nvmlDeviceGetName(h): return "NVIDIA GeForce RTX 3090"
class _Mem:
    total = 24576 * 2**20
    used = 0
    free = 24576 * 2**20
def nvmlDeviceGetMemoryInfo(h): return _Mem()
def nvmlDeviceGetCudaComputeCapability(h): return (8, 6)
def nvmlDeviceGetEnforcedPowerLimit(h): return 300000  # mW
'''


def _estimate(tmp_path: Path, *flags: str) -> dict:
    fake = tmp_path / "fake"
    fake.mkdir(exist_ok=True)
    (fake / "pynvml.py").write_text(FAKE_PYNVML, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake), *sys.path]),
           "TUNEPLAN_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--json", *flags], capture_output=True,
                         text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)[0]


def test_local_gpu_is_billed_as_electricity_at_its_nvml_power_limit(tmp_path: Path):
    local = _estimate(tmp_path, "--gpu", "local:0", "--electricity-usd-per-kwh", "0.30", "--host-watts", "100")
    listed = _estimate(tmp_path, "--gpu", "rtx3090")
    # the same card, the same speed as the catalog RTX 3090
    assert local["gpu"]["id"] == "rtx3090"
    assert local["time"]["step_seconds"]["total"] == listed["time"]["step_seconds"]["total"]
    hours = local["time"]["seconds"] / 3600
    cost = local["cost"]
    # (300 W from NVML + 100 W for the rest of the machine) x hours / 1000 x 0.30 USD/kWh
    assert cost["paid_as"] == "electricity"
    assert cost["total_usd"] == pytest.approx(0.400 * hours * 0.30)
    assert cost["kwh"] == pytest.approx(0.400 * hours)
    assert (cost["storage_usd"], cost["egress_usd"]) == (0.0, 0.0)
    gpus = next(t for t in cost["terms"] if t["key"] == "electricity_gpus")
    assert gpus["parts"]["power"]["value"] == 300.0 and gpus["detail"] == "nvml"
    # the same run rented on the cheapest catalog offer for an RTX 3090
    from tuneplan.catalog.prices import prices_for_gpu

    cheapest = prices_for_gpu("rtx3090")[0]
    assert cost["price_per_gpu_hour"] == cheapest.usd_per_gpu_hour
    note = next(n for n in cost["notes"] if n["code"] == "cost.rent_comparison")
    assert note["params"]["provider"] == cheapest.provider
    assert cost["rental_usd"] > cost["total_usd"]
