"""The NVML probe, driven through a fake binding that raises the real pynvml exception classes."""

from __future__ import annotations

import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pynvml
import pytest

ROOT = Path(__file__).resolve().parents[2]
if importlib.util.find_spec("tuneplan") is None:  # running from a checkout without an install
    sys.path.insert(0, str(ROOT / "src"))

from tuneplan.hw import probe as probe_mod  # noqa: E402
from tuneplan.hw.cli import format_table, gpus_command  # noqa: E402
from tuneplan.hw.probe import ProbeResult, format_cuda_version, probe, probe_with_timeout, to_json  # noqa: E402

GIB = 2**30


def nvml_error(code: int) -> pynvml.NVMLError:
    """Build the typed exception the way pynvml itself does."""
    return pynvml.NVMLError(code)


# --- the fake binding ------------------------------------------------------------------------------


@dataclass
class FakeProc:
    pid: int
    usedGpuMemory: int | None  # pynvml's attribute name


@dataclass
class FakeGpu:
    name: str | bytes
    uuid: str | bytes
    total: int
    used: int
    reserved: int
    cc: tuple[int, int]
    compute: list[FakeProc] = field(default_factory=list)
    graphics: list[FakeProc] = field(default_factory=list)
    # function name -> exception raised by that call on this GPU
    errors: dict[str, Exception] = field(default_factory=dict)


class FakeNvml(types.ModuleType):
    """A stand-in for the pynvml module: same function names, real exception classes."""

    nvmlMemory_v2 = pynvml.nvmlMemory_v2
    NVMLError = pynvml.NVMLError

    def __init__(self, gpus: list[FakeGpu], *, init_error: Exception | None = None) -> None:
        super().__init__("pynvml")
        self.gpus = gpus
        self.init_error = init_error
        self.driver: str | bytes = "550.54.15"
        self.cuda = 12040
        self.memory_v2_error: Exception | None = None
        self.process_names: dict[int, str | bytes] = {}
        self.calls: list[str] = []
        self.initialised = 0
        for name in dir(pynvml):
            if name.startswith("NVMLError_") or name.startswith("NVML_ERROR_"):
                setattr(self, name, getattr(pynvml, name))

    def _gpu(self, handle: int, func: str) -> FakeGpu:
        self.calls.append(func)
        gpu = self.gpus[handle]
        if func in gpu.errors:
            raise gpu.errors[func]
        return gpu

    def nvmlInit(self) -> None:
        self.calls.append("nvmlInit")
        if self.init_error is not None:
            raise self.init_error
        self.initialised += 1

    def nvmlShutdown(self) -> None:
        self.calls.append("nvmlShutdown")
        self.initialised -= 1

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        self._gpu(index, "nvmlDeviceGetHandleByIndex")
        return index

    def nvmlDeviceGetName(self, handle: int) -> str | bytes:
        return self._gpu(handle, "nvmlDeviceGetName").name

    def nvmlDeviceGetUUID(self, handle: int) -> str | bytes:
        return self._gpu(handle, "nvmlDeviceGetUUID").uuid

    def nvmlDeviceGetMemoryInfo(self, handle: int, version: int | None = None) -> Any:
        gpu = self._gpu(handle, "nvmlDeviceGetMemoryInfo")
        if version:
            self.calls.append("memory_v2")
            if self.memory_v2_error is not None:
                raise self.memory_v2_error
            assert version == pynvml.nvmlMemory_v2
            return types.SimpleNamespace(
                version=version,
                total=gpu.total,
                reserved=gpu.reserved,
                used=gpu.used,
                free=gpu.total - gpu.used - gpu.reserved,
            )
        self.calls.append("memory_v1")
        # v1 counts the driver-reserved memory as used
        used = gpu.used + gpu.reserved
        return types.SimpleNamespace(total=gpu.total, used=used, free=gpu.total - used)

    def nvmlSystemGetDriverVersion(self) -> str | bytes:
        return self.driver

    def nvmlSystemGetCudaDriverVersion(self) -> int:
        return self.cuda

    def nvmlDeviceGetCudaComputeCapability(self, handle: int) -> tuple[int, int]:
        return self._gpu(handle, "nvmlDeviceGetCudaComputeCapability").cc

    def nvmlDeviceGetComputeRunningProcesses(self, handle: int) -> list[FakeProc]:
        return self._gpu(handle, "nvmlDeviceGetComputeRunningProcesses").compute

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: int) -> list[FakeProc]:
        return self._gpu(handle, "nvmlDeviceGetGraphicsRunningProcesses").graphics

    def nvmlSystemGetProcessName(self, pid: int) -> str | bytes:
        if pid not in self.process_names:
            raise nvml_error(pynvml.NVML_ERROR_NOT_FOUND)
        return self.process_names[pid]


def rtx4090(**kw: Any) -> FakeGpu:
    return FakeGpu(
        name="NVIDIA GeForce RTX 4090",
        uuid="GPU-4090",
        total=24564 * 2**20,
        used=2 * GIB,
        reserved=300 * 2**20,
        cc=(8, 9),
        compute=[FakeProc(1234, 2 * GIB)],
        graphics=[FakeProc(999, None)],
        **kw,
    )


def a100(**kw: Any) -> FakeGpu:
    return FakeGpu(
        name="NVIDIA A100-SXM4-80GB",
        uuid="GPU-a100",
        total=81920 * 2**20,
        used=40 * GIB,
        reserved=512 * 2**20,
        cc=(8, 0),
        compute=[FakeProc(4321, 40 * GIB), FakeProc(4322, None)],
        **kw,
    )


def t4() -> FakeGpu:
    return FakeGpu(name="Tesla T4", uuid="GPU-t4", total=15360 * 2**20, used=0, reserved=0, cc=(7, 5))


@pytest.fixture
def no_catalog(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the catalog lookup out of tests that don't test it."""
    monkeypatch.setattr(probe_mod, "_catalog_id", lambda name, notes: None)


# --- happy paths -----------------------------------------------------------------------------------


def test_two_gpus_with_processes(no_catalog: None) -> None:
    fake = FakeNvml([rtx4090(), a100()])
    fake.process_names = {1234: "python", 4321: b"/usr/bin/python3", 999: "Xorg"}
    result = probe(fake)

    assert result.status == "ok", result
    assert result.message == "Found 2 NVIDIA GPUs"
    g0, g1 = result.gpus
    assert (g0.index, g0.name, g0.uuid) == (0, "NVIDIA GeForce RTX 4090", "GPU-4090")
    assert g0.memory_total_bytes == 24564 * 2**20
    assert g0.memory_used_bytes == 2 * GIB  # v2: excludes reserved
    assert g0.memory_reserved_bytes == 300 * 2**20
    assert g0.memory_free_bytes == 24564 * 2**20 - 2 * GIB - 300 * 2**20
    assert g0.driver_version == "550.54.15"
    assert g0.cuda_driver_version == "12.4"
    assert g0.compute_capability == (8, 9)
    assert g0.bf16_supported is True
    assert [(p.pid, p.name, p.used_bytes, p.kind) for p in g0.processes] == [
        (1234, "python", 2 * GIB, "compute"),
        (999, "Xorg", None, "graphics"),
    ]
    assert g1.compute_capability == (8, 0) and g1.bf16_supported is True
    assert [(p.pid, p.name, p.used_bytes) for p in g1.processes] == [
        (4321, "/usr/bin/python3", 40 * GIB),
        (4322, None, None),  # name unreadable, memory not accounted
    ]
    assert "memory_v1" not in fake.calls
    assert fake.calls[0] == "nvmlInit" and fake.calls[-1] == "nvmlShutdown"
    assert fake.initialised == 0


def test_bf16_false_below_ampere(no_catalog: None) -> None:
    (gpu,) = probe(FakeNvml([t4()])).gpus
    assert gpu.compute_capability == (7, 5)
    assert gpu.bf16_supported is False


def test_bytes_from_older_bindings_are_decoded(no_catalog: None) -> None:
    fake = FakeNvml([rtx4090()])
    fake.gpus[0].name = b"NVIDIA GeForce RTX 4090"
    fake.gpus[0].uuid = b"GPU-4090"
    fake.driver = b"535.104.05"
    (gpu,) = probe(fake).gpus
    assert gpu.name == "NVIDIA GeForce RTX 4090"
    assert gpu.uuid == "GPU-4090"
    assert gpu.driver_version == "535.104.05"


def test_process_in_both_lists_is_merged(no_catalog: None) -> None:
    gpu = rtx4090()
    gpu.graphics = [FakeProc(1234, None)]
    (seen,) = probe(FakeNvml([gpu])).gpus
    assert [(p.pid, p.used_bytes, p.kind) for p in seen.processes] == [(1234, 2 * GIB, "compute+graphics")]


@pytest.mark.parametrize(
    ("value", "text"),
    [(12040, "12.4"), (11080, "11.8"), (12000, "12.0"), (13010, "13.1"), (0, None), (None, None)],
)
def test_format_cuda_version(value: int | None, text: str | None) -> None:
    assert format_cuda_version(value) == text


# --- memory fallbacks ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "v2_error",
    [
        nvml_error(pynvml.NVML_ERROR_FUNCTION_NOT_FOUND),
        nvml_error(pynvml.NVML_ERROR_NOT_SUPPORTED),
        TypeError("nvmlDeviceGetMemoryInfo() got an unexpected keyword argument 'version'"),
    ],
    ids=["function-not-found", "not-supported", "old-binding"],
)
def test_memory_v2_unavailable_falls_back_to_v1(no_catalog: None, v2_error: Exception) -> None:
    fake = FakeNvml([rtx4090()])
    fake.memory_v2_error = v2_error
    result = probe(fake)
    assert result.status == "ok"
    (gpu,) = result.gpus
    assert fake.calls.count("memory_v2") == 1 and fake.calls.count("memory_v1") == 1
    assert gpu.memory_total_bytes == 24564 * 2**20
    assert gpu.memory_used_bytes == 2 * GIB + 300 * 2**20  # v1 counts reserved as used
    assert gpu.memory_reserved_bytes is None
    assert gpu.memory_free_bytes == 24564 * 2**20 - 2 * GIB - 300 * 2**20


def test_binding_without_v2_constant_uses_v1(no_catalog: None) -> None:
    fake = FakeNvml([rtx4090()])
    fake.nvmlMemory_v2 = None  # type: ignore[assignment]
    (gpu,) = probe(fake).gpus
    assert "memory_v2" not in fake.calls
    assert gpu.memory_total_bytes == 24564 * 2**20


def test_memory_not_supported_at_all_leaves_fields_none(no_catalog: None) -> None:
    # unified-memory parts (GB10) answer NotSupported to both queries
    fake = FakeNvml(
        [rtx4090(errors={"nvmlDeviceGetMemoryInfo": nvml_error(pynvml.NVML_ERROR_NOT_SUPPORTED)})]
    )
    result = probe(fake)
    assert result.status == "ok"
    (gpu,) = result.gpus
    assert gpu.memory_total_bytes is None and gpu.memory_free_bytes is None
    assert gpu.name == "NVIDIA GeForce RTX 4090"
    assert any("memory" in note and "not supported" in note for note in result.notes)


# --- per-field and per-GPU tolerance ---------------------------------------------------------------


def test_failing_fields_become_none(no_catalog: None) -> None:
    fake = FakeNvml(
        [
            rtx4090(
                errors={
                    "nvmlDeviceGetUUID": nvml_error(pynvml.NVML_ERROR_UNKNOWN),
                    "nvmlDeviceGetCudaComputeCapability": nvml_error(pynvml.NVML_ERROR_NOT_SUPPORTED),
                    "nvmlDeviceGetComputeRunningProcesses": nvml_error(pynvml.NVML_ERROR_NO_PERMISSION),
                }
            )
        ]
    )
    fake.nvmlSystemGetCudaDriverVersion = None  # type: ignore[assignment]  # older binding
    result = probe(fake)
    assert result.status == "ok"
    (gpu,) = result.gpus
    assert gpu.uuid is None
    assert gpu.compute_capability is None and gpu.bf16_supported is None
    assert gpu.cuda_driver_version is None
    assert [p.pid for p in gpu.processes] == [999]  # graphics list still read
    assert gpu.memory_total_bytes == 24564 * 2**20
    assert len(result.notes) == 4


def test_gpu_lost_mid_probe_is_skipped(no_catalog: None) -> None:
    lost = a100(errors={"nvmlDeviceGetMemoryInfo": nvml_error(pynvml.NVML_ERROR_GPU_IS_LOST)})
    fake = FakeNvml([rtx4090(), lost, t4()])
    result = probe(fake)
    assert result.status == "ok"
    assert [g.index for g in result.gpus] == [0, 2]
    assert "skipped" in result.message
    assert any("GPU 1 stopped responding" in note for note in result.notes)
    assert fake.calls[-1] == "nvmlShutdown"


def test_only_gpu_lost_is_an_error(no_catalog: None) -> None:
    fake = FakeNvml(
        [rtx4090(errors={"nvmlDeviceGetHandleByIndex": nvml_error(pynvml.NVML_ERROR_GPU_IS_LOST)})]
    )
    result = probe(fake)
    assert result.status == "error"
    assert result.gpus == []
    assert "stopped responding" in result.message


def test_no_permission_on_every_device_says_so(no_catalog: None) -> None:
    fake = FakeNvml(
        [rtx4090(errors={"nvmlDeviceGetHandleByIndex": nvml_error(pynvml.NVML_ERROR_NO_PERMISSION)})]
    )
    result = probe(fake)
    assert result.status == "error"
    assert "permission denied reading the GPU" in result.message


# --- init failures and empty machines ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "status", "words"),
    [
        (pynvml.NVML_ERROR_LIBRARY_NOT_FOUND, "no_driver", "NVML library not found"),
        (pynvml.NVML_ERROR_DRIVER_NOT_LOADED, "no_driver", "NVIDIA driver not loaded"),
        (
            pynvml.NVML_ERROR_LIB_RM_VERSION_MISMATCH,
            "error",
            "driver/library version mismatch: reboot after a driver update",
        ),
        (pynvml.NVML_ERROR_NO_PERMISSION, "error", "permission denied reading the GPU"),
        (pynvml.NVML_ERROR_UNKNOWN, "error", "could not be queried"),
    ],
)
def test_init_errors_map_to_status_and_message(code: int, status: str, words: str) -> None:
    error = nvml_error(code)
    assert type(error) is not pynvml.NVMLError  # the real binding hands back the subclass
    fake = FakeNvml([rtx4090()], init_error=error)
    result = probe(fake)
    assert result.status == status
    assert words in result.message
    assert result.gpus == []
    assert result.detail and type(error).__name__ in result.detail
    assert "nvmlShutdown" not in fake.calls  # never initialised, so nothing to shut down


def test_zero_devices_is_no_gpu() -> None:
    fake = FakeNvml([])
    result = probe(fake)
    assert result.status == "no_gpu"
    assert result.message == "No NVIDIA GPU found — you can still enter your card by hand"
    assert fake.calls[-1] == "nvmlShutdown"


def test_unexpected_exception_never_escapes() -> None:
    fake = FakeNvml([rtx4090()])

    def broken_count() -> int:
        raise RuntimeError("boom")

    fake.nvmlDeviceGetCount = broken_count  # type: ignore[method-assign]
    result = probe(fake)
    assert result.status == "error"
    assert "RuntimeError" in (result.detail or "")
    assert fake.calls[-1] == "nvmlShutdown"


def test_broken_binding_module() -> None:
    result = probe(types.ModuleType("pynvml"))
    assert result.status == "error"
    assert "nvidia-ml-py" in result.message


def test_missing_binding_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pynvml", None)  # makes `import pynvml` raise ImportError
    result = probe()
    assert result.status == "error"
    assert "nvidia-ml-py package is not installed" in result.message


def test_default_probe_imports_pynvml_lazily(monkeypatch: pytest.MonkeyPatch, no_catalog: None) -> None:
    fake = FakeNvml([t4()])
    monkeypatch.setitem(sys.modules, "pynvml", fake)
    result = probe()
    assert result.status == "ok"
    assert result.gpus[0].name == "Tesla T4"


# --- catalog matching ----------------------------------------------------------------------------


def test_catalog_match_uses_spec_id(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = types.ModuleType("tuneplan.catalog.gpus")

    def match_gpu(name: str) -> Any:
        return types.SimpleNamespace(id="rtx4090") if "4090" in name else None

    catalog.match_gpu = match_gpu  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tuneplan.catalog.gpus", catalog)
    result = probe(FakeNvml([rtx4090(), t4()]))
    assert [g.catalog_id for g in result.gpus] == ["rtx4090", None]


def test_catalog_errors_do_not_hide_the_gpu(monkeypatch: pytest.MonkeyPatch) -> None:
    catalog = types.ModuleType("tuneplan.catalog.gpus")

    def match_gpu(name: str) -> Any:
        raise ValueError("bad catalog row")

    catalog.match_gpu = match_gpu  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "tuneplan.catalog.gpus", catalog)
    result = probe(FakeNvml([rtx4090()]))
    assert result.status == "ok"
    assert result.gpus[0].catalog_id is None
    assert any("catalog" in note for note in result.notes)


def test_missing_catalog_module_is_tolerated(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tuneplan.catalog.gpus", None)  # import raises ImportError
    result = probe(FakeNvml([rtx4090()]))
    assert result.status == "ok"
    assert result.gpus[0].catalog_id is None
    assert result.notes == []


def test_real_catalog_matches_nvml_names() -> None:
    pytest.importorskip("tuneplan.catalog.gpus")
    result = probe(FakeNvml([rtx4090(), a100()]))
    assert all(isinstance(g.catalog_id, str) and g.catalog_id for g in result.gpus), result.gpus


# --- timeout -------------------------------------------------------------------------------------


class HangingNvml(FakeNvml):
    def __init__(self) -> None:
        super().__init__([rtx4090()])
        self.release = threading.Event()

    def nvmlInit(self) -> None:
        self.release.wait(30)
        super().nvmlInit()


def test_hanging_init_times_out(no_catalog: None) -> None:
    fake = HangingNvml()
    try:
        started = time.monotonic()
        result = probe_with_timeout(0.5, nvml=fake)
        elapsed = time.monotonic() - started
        assert result.status == "timeout"
        assert "did not answer within 0.5 s" in result.message
        assert 0.4 <= elapsed < 15.0  # the fake init hangs 30 s; bounds loose for a loaded CI machine
        # While the first probe is still stuck, another call answers at once instead of piling up threads.
        started = time.monotonic()
        again = probe_with_timeout(60.0, nvml=FakeNvml([t4()]))
        assert again.status == "timeout"
        assert time.monotonic() - started < 15.0  # at once: far inside its own 60 s timeout
    finally:
        fake.release.set()
    stuck = probe_mod._stuck_thread
    if stuck is not None:
        stuck.join(5)
    # Once the driver answers, probing works again.
    assert probe_with_timeout(2.0, nvml=FakeNvml([t4()])).status == "ok"


def test_fast_probe_returns_its_result(no_catalog: None) -> None:
    result = probe_with_timeout(2.0, nvml=FakeNvml([rtx4090(), a100()]))
    assert result.status == "ok" and len(result.gpus) == 2


class ShutdownHangsNvml(FakeNvml):
    """The devices read fine, then ``nvmlShutdown`` blocks until released."""

    def __init__(self, gpus: list[FakeGpu]) -> None:
        super().__init__(gpus)
        self.release = threading.Event()

    def nvmlShutdown(self) -> None:
        self.calls.append("nvmlShutdown (hanging)")
        self.release.wait(30)
        super().nvmlShutdown()


def _wait_for_stuck_thread() -> None:
    stuck = probe_mod._stuck_thread
    if stuck is not None:
        stuck.join(5)
        assert not stuck.is_alive()


def test_hanging_shutdown_keeps_the_gpus_already_read(no_catalog: None) -> None:
    fake = ShutdownHangsNvml([rtx4090(), a100()])
    try:
        started = time.monotonic()
        result = probe_with_timeout(0.5, nvml=fake)
        assert time.monotonic() - started < 15.0  # the fake shutdown hangs 30 s
        assert result.status == "ok", result
        assert [g.name for g in result.gpus] == ["NVIDIA GeForce RTX 4090", "NVIDIA A100-SXM4-80GB"]
        assert any("shutting down" in note for note in result.notes)
        assert fake.calls[-1] == "nvmlShutdown (hanging)"
    finally:
        fake.release.set()
    _wait_for_stuck_thread()
    assert fake.initialised == 0


@pytest.mark.parametrize("raised", [SystemExit(3), KeyboardInterrupt()])
def test_system_exit_in_the_binding_is_an_error_not_a_timeout(no_catalog: None, raised: BaseException) -> None:
    fake = FakeNvml([rtx4090()])

    def exiting_count() -> int:
        raise raised

    fake.nvmlDeviceGetCount = exiting_count  # type: ignore[method-assign]
    started = time.monotonic()
    result = probe_with_timeout(60.0, nvml=fake)
    assert time.monotonic() - started < 30.0  # answered at once, not after the 60 s timeout
    assert result.status == "error", result
    assert type(raised).__name__ in result.message
    assert type(raised).__name__ in (result.detail or "")
    assert fake.calls[-1] == "nvmlShutdown" and fake.initialised == 0


def _probe_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "tuneplan-nvml-probe" and t.is_alive()]


def test_absurd_device_count_is_capped_and_the_thread_ends(no_catalog: None, monkeypatch: pytest.MonkeyPatch) -> None:
    _wait_for_stuck_thread()
    fake = FakeNvml([t4()])
    monkeypatch.setattr(fake, "nvmlDeviceGetCount", lambda: 10**7)
    monkeypatch.setattr(fake, "_gpu", lambda handle, func: fake.gpus[0])  # every index is a T4
    result = probe_with_timeout(20.0, nvml=fake)
    assert result.status == "ok", result
    assert len(result.gpus) == probe_mod.MAX_DEVICES == 64
    assert any("10000000 devices" in note for note in result.notes)
    assert _probe_threads() == []
    assert fake.initialised == 0


def test_a_probe_that_times_out_stops_reading_devices(no_catalog: None, monkeypatch: pytest.MonkeyPatch) -> None:
    _wait_for_stuck_thread()
    fake = FakeNvml([t4()])
    monkeypatch.setattr(fake, "nvmlDeviceGetCount", lambda: 64)

    def slow_gpu(handle: int, func: str) -> FakeGpu:
        if func == "nvmlDeviceGetHandleByIndex":
            time.sleep(0.05)  # a slow driver: 64 devices take over 3 s
        return fake.gpus[0]

    monkeypatch.setattr(fake, "_gpu", slow_gpu)
    result = probe_with_timeout(0.3, nvml=fake)
    assert result.status == "timeout"
    stuck = probe_mod._stuck_thread
    assert stuck is not None
    stuck.join(1.5)  # ends at the next device, not after all 64
    assert not stuck.is_alive()
    assert fake.initialised == 0


# --- the real binding on this machine --------------------------------------------------------------


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has an NVIDIA driver")
def test_real_pynvml_without_driver_reports_instead_of_raising() -> None:
    result = probe()
    assert result.status in {"no_driver", "no_gpu", "error"}
    assert result.gpus == []
    assert result.message
    timed = probe_with_timeout(10.0)
    assert timed.status == result.status


@pytest.mark.skipif(shutil.which("nvidia-smi") is None, reason="needs an NVIDIA driver and GPU")
def test_real_pynvml_agrees_with_nvidia_smi() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "device_check.py")], capture_output=True, text=True, timeout=120
    )
    report = json.loads(proc.stdout)
    assert proc.returncode == 0, report["differences"]


# --- serialisation and CLI -------------------------------------------------------------------------


def test_json_round_trip(no_catalog: None) -> None:
    result = probe(FakeNvml([rtx4090(), a100()]))
    text = to_json(result)
    data = json.loads(text)
    assert data["status"] == "ok"
    assert data["gpus"][0]["compute_capability"] == [8, 9]
    assert data["gpus"][0]["cuda_driver_version"] == "12.4"
    assert ProbeResult.model_validate_json(text) == result


def test_table_lists_gpus_and_processes(no_catalog: None) -> None:
    fake = FakeNvml([rtx4090(), a100()])
    fake.process_names = {1234: "python"}
    text = format_table(probe(fake))
    lines = text.splitlines()
    assert lines[0].split()[:2] == ["#", "Name"]
    assert "CUDA (driver max)" in lines[0]
    row0 = lines[2]
    assert "NVIDIA GeForce RTX 4090" in row0 and "24.0" in row0 and "12.4" in row0 and "8.9" in row0
    assert "GPU 0: pid 1234 python [compute] 2.00 GiB" in text
    assert "GPU 1: pid 4322 (name unknown) [compute] ? GiB" in text


def test_table_explains_no_gpu() -> None:
    text = format_table(ProbeResult(status="no_driver", message="NVIDIA driver not loaded"))
    assert text == "No GPU information (no_driver): NVIDIA driver not loaded\n"


@pytest.mark.parametrize("as_json", [False, True])
def test_gpus_command_exits_zero_either_way(monkeypatch: pytest.MonkeyPatch, as_json: bool) -> None:
    monkeypatch.setattr(
        "tuneplan.hw.cli.probe_with_timeout",
        lambda timeout_s: ProbeResult(status="no_gpu", message=probe_mod.MSG_NO_GPU),
    )
    out = io.StringIO()
    assert gpus_command(as_json, out=out) == 0
    text = out.getvalue()
    if as_json:
        assert json.loads(text)["status"] == "no_gpu"
    else:
        assert "No NVIDIA GPU found" in text


def test_gpus_command_with_real_binding() -> None:
    out = io.StringIO()
    assert gpus_command(True, out=out) == 0
    assert json.loads(out.getvalue())["status"] in {"ok", "no_driver", "no_gpu", "error", "timeout"}


# --- tools/device_check.py ------------------------------------------------------------------------


def _load_device_check() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("device_check", ROOT / "tools" / "device_check.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_device_check_compare() -> None:
    dc = _load_device_check()
    smi = dc.parse_smi_csv("NVIDIA H200, 143771, 0, 570.86.15\nNVIDIA H200, 143771, 1024, 570.86.15\n")
    assert smi[1] == {
        "name": "NVIDIA H200",
        "memory_total_mib": 143771,
        "memory_used_mib": 1024,
        "driver_version": "570.86.15",
    }
    ours = [
        {"name": "NVIDIA H200", "memory_total_bytes": 143771 * 2**20, "driver_version": "570.86.15"},
        {"name": "NVIDIA H100", "memory_total_bytes": 81559 * 2**20, "driver_version": "570.86.15"},
    ]
    differences = dc.compare(ours, smi)
    assert len(differences) == 2
    assert differences[0].startswith("GPU 1 name")
    assert differences[1].startswith("GPU 1 total MiB")
    assert dc.compare(ours[:1], smi) == ["GPU count: probe 1, nvidia-smi 2"]


def test_device_check_script_without_gpu() -> None:
    if shutil.which("nvidia-smi") is not None:
        pytest.skip("this machine has nvidia-smi; covered by test_real_pynvml_agrees_with_nvidia_smi")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "device_check.py")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert set(report) >= {"probe", "nvidia_smi", "agree", "differences"}
    assert report["probe"]["status"] != "ok"
    assert "no GPU" in report["note"]


# --- import hygiene ---------------------------------------------------------------------------------


def test_import_is_lazy_and_qt_free() -> None:
    code = (
        "import sys\n"
        "import tuneplan.hw.probe, tuneplan.hw.cli\n"
        "assert 'pynvml' not in sys.modules, 'pynvml imported at module import'\n"
        "assert not any(m.startswith('PySide6') for m in sys.modules), 'Qt imported'\n"
        "tuneplan.hw.probe.probe()\n"
        "assert 'pynvml' in sys.modules, 'probe() should import pynvml'\n"
        "assert not any(m.startswith('PySide6') for m in sys.modules), 'Qt imported by probe()'\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr


def test_core_does_not_import_hw() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "src" / "tuneplan" / "core").rglob("*.py")
        if "tuneplan.hw" in path.read_text(encoding="utf-8")
        or "import pynvml" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
