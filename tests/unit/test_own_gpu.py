"""Your own GPU plans like its catalog card and reports its power limit (issue #19)."""

from __future__ import annotations

import types
from typing import Any

import pynvml
import pytest

from tuneplan import catalog
from tuneplan.catalog.own_gpu import own_gpu_spec
from tuneplan.core.estimate import estimate
from tuneplan.hw.probe import probe

MIB = 2**20


class PowerNvml(types.ModuleType):
    """A minimal pynvml stand-in: one card, with the power-limit calls answering or raising as told."""

    NVMLError = pynvml.NVMLError
    NVMLError_NotSupported = pynvml.NVMLError_NotSupported
    NVMLError_GpuIsLost = pynvml.NVMLError_GpuIsLost

    def __init__(self, name: str, total: int, enforced: Any = None, management: Any = None) -> None:
        super().__init__("pynvml")
        self.name, self.total = name, total
        self.enforced, self.management = enforced, management

    def nvmlInit(self) -> None:
        pass

    def nvmlShutdown(self) -> None:
        pass

    def nvmlDeviceGetCount(self) -> int:
        return 1

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        return index

    def nvmlDeviceGetName(self, handle: int) -> str:
        return self.name

    def nvmlDeviceGetMemoryInfo(self, handle: int, version: int | None = None) -> Any:
        return types.SimpleNamespace(total=self.total, used=0, free=self.total, reserved=0)

    def nvmlDeviceGetCudaComputeCapability(self, handle: int) -> tuple[int, int]:
        return (8, 6)

    @staticmethod
    def _answer(value: Any) -> int:
        if isinstance(value, Exception):
            raise value
        if value is None:
            raise pynvml.NVMLError(pynvml.NVML_ERROR_NOT_SUPPORTED)
        return value

    def nvmlDeviceGetEnforcedPowerLimit(self, handle: int) -> int:
        return self._answer(self.enforced)

    def nvmlDeviceGetPowerManagementLimit(self, handle: int) -> int:
        return self._answer(self.management)


def test_enforced_power_limit_in_milliwatts_becomes_watts():
    # NVML answers in mW: 350000 mW = 350 W (the enforced limit wins over the management limit)
    result = probe(PowerNvml("NVIDIA GeForce RTX 3090", 24576 * MIB, enforced=350_000, management=390_000))
    (gpu,) = result.gpus
    assert gpu.power_limit_w == 350.0
    assert gpu.catalog_id == "rtx3090"


def test_power_falls_back_to_the_management_limit_then_to_none_quietly():
    fallback = probe(PowerNvml("NVIDIA GeForce RTX 3090", 24576 * MIB, management=300_000))
    assert fallback.gpus[0].power_limit_w == 300.0
    none = probe(PowerNvml("NVIDIA GeForce RTX 3090", 24576 * MIB))
    assert none.gpus[0].power_limit_w is None
    assert not [n for n in none.notes if "power" in n.lower()]  # no power management is no problem


def test_gpu_lost_while_reading_power_skips_the_card():
    lost = pynvml.NVMLError(pynvml.NVML_ERROR_GPU_IS_LOST)
    result = probe(PowerNvml("NVIDIA GeForce RTX 3090", 24576 * MIB, enforced=lost))
    assert result.gpus == []
    assert result.status == "error"


def _step(gpu: Any) -> float:
    s = catalog.default_scenario()
    return estimate(s.model_copy(update={"gpu": gpu})).time.step_seconds


def test_local_rtx3090_gets_the_catalog_rtx3090_step_time():
    listed = catalog.get_gpu("rtx3090")
    # the form's "Copy from" puts the catalog's 71 TFLOPS into the field: that is not an override (it used to drop
    # the measured 76.5 TFLOPS ceiling and made the saved card 23 % slower)
    copied = own_gpu_spec("GeForce RTX 3090", 24.0, catalog_id="rtx3090", bf16_tflops=71.0, typed=True)
    typed = own_gpu_spec("RTX 3090", 24.0, typed=True)  # typed by name, nothing copied
    detected = own_gpu_spec("NVIDIA GeForce RTX 3090", 24265 * MIB / 2**30, catalog_id="rtx3090")
    for spec in (copied, typed, detected):
        assert _step(spec) == _step(listed)
        assert (spec.measured_bf16_tflops, spec.sm_count, spec.memory_bandwidth_gbps, spec.tdp_w) == (
            76.5, 82, 936, 350)
    assert copied == listed and typed == listed
    assert detected.memory_gib == pytest.approx(24265 / 1024)  # the measured memory is kept


def test_typed_rate_that_differs_replaces_the_catalog_rate():
    spec = own_gpu_spec("GeForce RTX 3090", 24.0, catalog_id="rtx3090", bf16_tflops=80.0, typed=True)
    assert (spec.bf16_tflops, spec.measured_bf16_tflops, spec.sm_count) == (80.0, None, 82)


def test_unknown_card_is_custom():
    spec = own_gpu_spec("Apple M3 Max", 96.0, bf16_tflops=28.0)
    assert (spec.id, spec.segment, spec.bf16_tflops, spec.measured_bf16_tflops) == ("manual", "local", 28.0, None)
