"""Read the local NVIDIA GPUs through NVML, without ever crashing the app.

``probe()`` answers "what GPUs does this machine have, and how much memory is free on each?".
It imports ``pynvml`` (the module of the ``nvidia-ml-py`` package) only when called, so importing
this module costs nothing and works on machines without the package, the driver or a GPU.

Every failure becomes a :class:`ProbeResult` with a ``status`` and a ``message`` in plain words a
user can act on. ``probe_with_timeout()`` additionally guards against a driver that hangs.

This module must not import Qt, and ``tuneplan.core`` must not import it: the estimator takes
GPU specs as plain data.
"""

from __future__ import annotations

import logging
import threading
import time
from types import ModuleType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from tuneplan.core.terms import N_, NOTES, Note, render_note

__all__ = [
    "MAX_DEVICES",
    "GpuProcess",
    "LocalGpu",
    "ProbeResult",
    "ProbeStatus",
    "format_cuda_version",
    "failure",
    "probe",
    "probe_message",
    "probe_with_timeout",
    "to_json",
]

log = logging.getLogger(__name__)

ProbeStatus = Literal["ok", "no_driver", "no_gpu", "error", "timeout"]

#: English templates of the probe's messages (``ProbeResult.code``); the UI translates them in the ``Terms`` context
#: like the core's notes. A failure's message is ``probe.with_hint``: its cause, then what the user can do.
NOTES.update({
    "probe.found_one": N_("Found 1 NVIDIA GPU"),
    "probe.found_many": N_("Found {n} NVIDIA GPUs"),
    "probe.skipped": N_("({n} skipped: see notes)"),
    "probe.no_gpu": N_("No NVIDIA GPU found"),
    "probe.library_not_found": N_("NVML library not found (no NVIDIA driver installed)"),
    "probe.driver_not_loaded": N_("NVIDIA driver not loaded"),
    "probe.version_mismatch": N_("driver/library version mismatch: reboot after a driver update"),
    "probe.no_permission": N_("permission denied reading the GPU"),
    "probe.no_binding": N_("GPU detection unavailable: the nvidia-ml-py package is not installed"),
    "probe.broken_binding": N_("GPU detection unavailable: the nvidia-ml-py package looks broken"),
    "probe.all_lost": N_("the GPU stopped responding while it was being read: check the card or reboot"),
    "probe.driver_too_old": N_("the NVIDIA driver is too old for GPU detection: update it"),
    "probe.query_failed": N_("the NVIDIA driver could not be queried ({detail})"),
    "probe.unexpected": N_("unexpected error while reading the GPUs"),
    "probe.timeout": N_("the NVIDIA driver did not answer within {seconds:g} s"),
    "probe.binding_stopped": N_("the NVIDIA library stopped the GPU probe ({exception})"),
    "probe.hint_manual": N_("you can still enter your card by hand"),
    "probe.hint_by_hand": N_("using the card you entered by hand"),
    "probe.with_hint": N_("{cause} — {hint}"),
})

MANUAL_HINT = NOTES["probe.hint_manual"]


def _english(code: str, **params: Any) -> str:
    """The English message of a failure ``code`` with the manual-entry hint."""
    return render_note(Note(code="probe.with_hint", params={
        "cause": render_note(Note(code=code, params=params)), "hint": MANUAL_HINT}))


MSG_NO_GPU = _english("probe.no_gpu")
MSG_LIBRARY_NOT_FOUND = _english("probe.library_not_found")
MSG_DRIVER_NOT_LOADED = _english("probe.driver_not_loaded")
MSG_VERSION_MISMATCH = _english("probe.version_mismatch")
MSG_NO_PERMISSION = _english("probe.no_permission")
MSG_NO_BINDING = _english("probe.no_binding")
MSG_BROKEN_BINDING = _english("probe.broken_binding")
MSG_ALL_LOST = _english("probe.all_lost")

#: The most devices one probe reads: NVML itself supports far fewer per machine (nvidia-smi lists
#: up to 64), so a larger count is a broken driver or binding, not hardware.
MAX_DEVICES = 64

# NVML error codes (nvml.h); used when a binding lacks the matching exception subclass.
_CODE_LIBRARY_NOT_FOUND = 12
_CODE_FUNCTION_NOT_FOUND = 13
_CODE_GPU_IS_LOST = 15
_CODE_DRIVER_NOT_LOADED = 9
_CODE_NO_PERMISSION = 4
_CODE_NOT_SUPPORTED = 3
_CODE_LIB_RM_VERSION_MISMATCH = 18

# NVML_VALUE_NOT_AVAILABLE for unsigned long long: old bindings pass it through as a process's memory.
_VALUE_NOT_AVAILABLE = 2**64 - 1


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GpuProcess(_Frozen):
    """A process holding memory on a GPU.

    ``name`` is what the driver reports (often a full path); ``None`` when it can't be read, e.g.
    a PID from another container. ``used_bytes`` is ``None`` where NVML doesn't account per
    process (Windows WDDM, MIG). ``kind`` says which NVML list the process appeared in.
    """

    pid: int
    name: str | None = None
    used_bytes: int | None = None
    kind: Literal["compute", "graphics", "compute+graphics"] = "compute"


class LocalGpu(_Frozen):
    """One GPU as NVML sees it right now. Any field NVML couldn't report is ``None``.

    Memory comes from the v2 query when the driver supports it: there ``memory_used_bytes``
    excludes the driver-reserved part (``memory_reserved_bytes``) and matches ``nvidia-smi``.
    With the v1 fallback, ``used`` includes the reserved memory and ``memory_reserved_bytes`` is
    ``None``. ``memory_free_bytes`` is what a new job can allocate in both cases.

    ``cuda_driver_version`` (e.g. ``"12.4"``) comes from ``nvmlSystemGetCudaDriverVersion``: it is
    the MAXIMUM CUDA version the installed driver supports, not the CUDA toolkit or runtime that
    PyTorch ships with. ``bf16_supported`` is ``compute_capability >= (8, 0)`` (Ampere or newer),
    ``None`` when the compute capability is unknown. ``catalog_id`` is the id of the matching
    entry in the bundled GPU catalog, ``None`` when there is no match.
    """

    index: int
    name: str
    uuid: str | None = None
    memory_total_bytes: int | None = None
    memory_used_bytes: int | None = None
    memory_free_bytes: int | None = None
    memory_reserved_bytes: int | None = None
    driver_version: str | None = None
    cuda_driver_version: str | None = None
    compute_capability: tuple[int, int] | None = None
    bf16_supported: bool | None = None
    processes: list[GpuProcess] = Field(default_factory=list)
    catalog_id: str | None = None
    #: board power limit in W: ``nvmlDeviceGetEnforcedPowerLimit`` (the limit the driver enforces after all
    #: limiters, NVML API reference), else ``nvmlDeviceGetPowerManagementLimit``; ``None`` when neither answers.
    power_limit_w: float | None = None


class ProbeResult(_Frozen):
    """What the probe found.

    ``status`` is ``ok`` when at least one GPU was read. Otherwise ``gpus`` is empty and
    ``message`` says why in words for the user: ``no_driver`` (no NVIDIA driver or library),
    ``no_gpu`` (driver present, no device), ``error`` (anything else, e.g. a permission problem or
    a version mismatch), ``timeout`` (the driver did not answer in time). ``notes`` lists smaller
    problems that didn't stop the probe (a field that couldn't be read, a GPU that was skipped);
    ``detail`` carries the technical cause (exception class and NVML code) for logs and bug reports.

    ``code`` and ``params`` are the message as data (``probe.*`` in ``tuneplan.core.terms.NOTES``), ``skipped`` the
    GPUs left out of an ``ok`` result: :func:`probe_message` renders them (the UI in its language); ``message`` is
    the same in English. A result built without a code (by hand, or from an older JSON) shows ``message``.
    ``notes`` and ``detail`` stay technical English, for the tooltip and bug reports.
    """

    gpus: list[LocalGpu] = Field(default_factory=list)
    status: ProbeStatus
    message: str
    notes: list[str] = Field(default_factory=list)
    detail: str | None = None
    code: str = ""
    params: dict[str, Any] = Field(default_factory=dict)
    skipped: int = 0


def failure(status: ProbeStatus, code: str, technical: str | None = None, **params: Any) -> ProbeResult:
    """A failed probe's result: the coded cause (``params`` fill its template), its English message with the
    manual-entry hint, and the ``technical`` cause as ``detail``."""
    return ProbeResult(status=status, message=_english(code, **params), detail=technical, code=code, params=params)


def probe_message(result: ProbeResult, render: Any = render_note, by_hand: bool = False) -> str:
    """The probe's status line, rendered note by note with ``render(note) -> str`` (English by default; the UI
    passes its translating renderer). ``by_hand``: a failure ends with "using the card you entered by hand"
    instead of "you can still enter your card by hand". The English ``message`` for a result without a code."""
    if not result.code:
        return result.message
    text = render(Note(code=result.code, params=result.params))
    if result.status == "ok":
        if result.skipped:
            text += " " + render(Note(code="probe.skipped", params={"n": result.skipped}))
        return text
    hint = render(Note(code="probe.hint_by_hand" if by_hand else "probe.hint_manual"))
    return render(Note(code="probe.with_hint", params={"cause": text, "hint": hint}))


def format_cuda_version(value: int | None) -> str | None:
    """Turn NVML's integer CUDA version (``12040``) into ``"12.4"``; ``None`` for missing or bogus values."""
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        return None
    return f"{value // 1000}.{(value % 1000) // 10}"


def to_json(result: ProbeResult, *, indent: int | None = 2) -> str:
    """Serialise a :class:`ProbeResult` as JSON (the format of ``tuneplan gpus --json``)."""
    return result.model_dump_json(indent=indent)


# --- error classification -------------------------------------------------------------------------


def _error_code(exc: BaseException) -> int | None:
    value = getattr(exc, "value", None)
    return value if isinstance(value, int) else None


def _is_nvml_error(nvml: Any, exc: BaseException) -> bool:
    base = getattr(nvml, "NVMLError", None)
    return isinstance(base, type) and isinstance(exc, base)


def _is_kind(nvml: Any, exc: BaseException, class_name: str, code: int) -> bool:
    """Whether ``exc`` is the NVML error ``class_name``; by class when the binding has it, else by code."""
    cls = getattr(nvml, class_name, None)
    if isinstance(cls, type) and isinstance(exc, cls):
        return True
    return _is_nvml_error(nvml, exc) and _error_code(exc) == code


def _describe(exc: BaseException) -> str:
    """Exception class and NVML code, without calling ``str()`` on NVML errors.

    ``NVMLError.__str__`` asks the loaded library for unknown codes, which is exactly what may be
    missing or hung here.
    """
    code = _error_code(exc)
    name = type(exc).__name__
    if code is not None:
        return f"{name} (NVML code {code})"
    try:
        text = str(exc)
    except Exception:  # a broken __str__ must not break the probe
        text = ""
    return f"{name}: {text}" if text else name


class _GpuLost(Exception):
    """Raised inside the probe when a GPU disappears, to skip it."""


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes | bytearray):
        return bytes(value).decode("utf-8", errors="replace").strip("\x00").strip() or None
    return str(value).strip() or None


def _int_or_none(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    if number < 0 or number == _VALUE_NOT_AVAILABLE:
        return None
    return number


# --- the probe ------------------------------------------------------------------------------------


class _Reader:
    """Per-call helpers bound to one NVML module, collecting notes as they go."""

    def __init__(self, nvml: Any) -> None:
        self.nvml = nvml
        self.notes: list[str] = []

    def query(self, what: str, func_name: str, *args: Any, **kwargs: Any) -> Any:
        """Call ``nvml.func_name``; ``None`` on failure (noted), but a lost GPU raises ``_GpuLost``."""
        func = getattr(self.nvml, func_name, None)
        if not callable(func):
            self.notes.append(f"{what}: not available in this nvidia-ml-py version")
            return None
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            if _is_kind(self.nvml, exc, "NVMLError_GpuIsLost", _CODE_GPU_IS_LOST):
                raise _GpuLost(what) from exc
            if _is_kind(self.nvml, exc, "NVMLError_NotSupported", _CODE_NOT_SUPPORTED):
                self.notes.append(f"{what}: not supported on this GPU/driver")
            else:
                self.notes.append(f"{what}: could not be read ({_describe(exc)})")
            log.debug("NVML %s failed", func_name, exc_info=True)
            return None

    def memory(self, index: int, handle: Any) -> tuple[int | None, int | None, int | None, int | None]:
        """(total, used, free, reserved) in bytes; v2 first, v1 when v2 is unavailable."""
        nvml = self.nvml
        version = getattr(nvml, "nvmlMemory_v2", None)
        func = getattr(nvml, "nvmlDeviceGetMemoryInfo", None)
        if not callable(func):
            self.notes.append(f"GPU {index} memory: not available in this nvidia-ml-py version")
            return None, None, None, None
        if version is not None:
            try:
                info = func(handle, version=version)
                total = _int_or_none(getattr(info, "total", None))
                if total:  # some bindings return an all-zero v2 struct; trust v1 then
                    return (
                        total,
                        _int_or_none(getattr(info, "used", None)),
                        _int_or_none(getattr(info, "free", None)),
                        _int_or_none(getattr(info, "reserved", None)),
                    )
            except Exception as exc:
                if _is_kind(nvml, exc, "NVMLError_GpuIsLost", _CODE_GPU_IS_LOST):
                    raise _GpuLost("memory") from exc
                # FunctionNotFound (driver older than the binding), NotSupported, TypeError (binding
                # without the version keyword) and friends: the v1 query may still work.
                log.debug("NVML memory v2 failed on GPU %d, trying v1", index, exc_info=True)
        info = self.query(f"GPU {index} memory", "nvmlDeviceGetMemoryInfo", handle)
        if info is None:
            return None, None, None, None
        return (
            _int_or_none(getattr(info, "total", None)),
            _int_or_none(getattr(info, "used", None)),
            _int_or_none(getattr(info, "free", None)),
            None,
        )

    def processes(self, index: int, handle: Any) -> list[GpuProcess]:
        """Compute and graphics processes, merged by PID."""
        by_pid: dict[int, dict[str, Any]] = {}
        for kind, func_name in (
            ("compute", "nvmlDeviceGetComputeRunningProcesses"),
            ("graphics", "nvmlDeviceGetGraphicsRunningProcesses"),
        ):
            items = self.query(f"GPU {index} {kind} processes", func_name, handle) or []
            for item in items:
                pid = _int_or_none(getattr(item, "pid", None))
                if pid is None:
                    continue
                used = _int_or_none(getattr(item, "usedGpuMemory", None))
                entry = by_pid.get(pid)
                if entry is None:
                    by_pid[pid] = {"pid": pid, "used_bytes": used, "kind": kind}
                else:
                    if entry["kind"] != kind:
                        entry["kind"] = "compute+graphics"
                    if entry["used_bytes"] is None:
                        entry["used_bytes"] = used
        result = []
        for pid, entry in by_pid.items():
            name = self._process_name(pid)
            result.append(GpuProcess(name=name, **entry))
        return result

    def _process_name(self, pid: int) -> str | None:
        func = getattr(self.nvml, "nvmlSystemGetProcessName", None)
        if not callable(func):
            return None
        try:
            return _text(func(pid))
        except Exception:  # the process may have exited, or live in another PID namespace
            return None


def _power_limit_w(nvml: Any, handle: Any) -> float | None:
    """The card's board power limit in W, or ``None``.

    ``nvmlDeviceGetEnforcedPowerLimit`` first: "the effective power limit that the driver enforces after taking into
    account all limiters", in milliwatts (NVML API reference, Device Queries; Kepler or newer). Then
    ``nvmlDeviceGetPowerManagementLimit`` (the software limit, mW). Quiet: cards and bindings without power
    management simply have none, and the plan then uses the catalog's board power. A lost GPU raises ``_GpuLost``.
    """
    for func_name in ("nvmlDeviceGetEnforcedPowerLimit", "nvmlDeviceGetPowerManagementLimit"):
        func = getattr(nvml, func_name, None)
        if not callable(func):
            continue
        try:
            milliwatts = _int_or_none(func(handle))
        except Exception as exc:
            if _is_kind(nvml, exc, "NVMLError_GpuIsLost", _CODE_GPU_IS_LOST):
                raise _GpuLost("power limit") from exc
            log.debug("NVML %s failed", func_name, exc_info=True)
            continue
        if milliwatts and milliwatts <= 100_000_000:  # 0 W is no answer; over 100 kW a broken driver
            return milliwatts / 1000.0
    return None


def _catalog_id(name: str, notes: list[str]) -> str | None:
    """Id of the bundled catalog entry matching this NVML name, or ``None``."""
    try:
        from tuneplan.catalog.gpus import match_gpu
    except ImportError:  # the catalog is optional to the probe
        return None
    except Exception as exc:
        notes.append(f"GPU catalog could not be loaded ({_describe(exc)})")
        log.debug("importing tuneplan.catalog.gpus failed", exc_info=True)
        return None
    try:
        spec = match_gpu(name)
    except Exception as exc:  # a catalog problem must not hide the GPU
        notes.append(f"catalog lookup for {name!r} failed ({_describe(exc)})")
        log.debug("match_gpu(%r) failed", name, exc_info=True)
        return None
    if spec is None:
        return None
    if isinstance(spec, str):
        return spec
    catalog_id = getattr(spec, "id", None)
    return catalog_id if isinstance(catalog_id, str) and catalog_id else None


def _read_gpu(reader: _Reader, index: int, driver: str | None, cuda: str | None) -> LocalGpu:
    nvml = reader.nvml
    try:
        handle = nvml.nvmlDeviceGetHandleByIndex(index)
    except Exception as exc:
        if _is_kind(nvml, exc, "NVMLError_GpuIsLost", _CODE_GPU_IS_LOST):
            raise _GpuLost("handle") from exc
        raise
    name = _text(reader.query(f"GPU {index} name", "nvmlDeviceGetName", handle)) or f"GPU {index}"
    uuid = _text(reader.query(f"GPU {index} UUID", "nvmlDeviceGetUUID", handle))
    total, used, free, reserved = reader.memory(index, handle)
    cc_raw = reader.query(f"GPU {index} compute capability", "nvmlDeviceGetCudaComputeCapability", handle)
    compute_capability: tuple[int, int] | None = None
    if isinstance(cc_raw, tuple | list) and len(cc_raw) == 2:
        major, minor = _int_or_none(cc_raw[0]), _int_or_none(cc_raw[1])
        if major is not None and minor is not None:
            compute_capability = (major, minor)
    processes = reader.processes(index, handle)
    return LocalGpu(
        index=index,
        name=name,
        uuid=uuid,
        memory_total_bytes=total,
        memory_used_bytes=used,
        memory_free_bytes=free,
        memory_reserved_bytes=reserved,
        driver_version=driver,
        cuda_driver_version=cuda,
        compute_capability=compute_capability,
        bf16_supported=None if compute_capability is None else compute_capability >= (8, 0),
        processes=processes,
        catalog_id=_catalog_id(name, reader.notes),
        power_limit_w=_power_limit_w(nvml, handle),
    )


def _init_failure(nvml: Any, exc: BaseException) -> ProbeResult:
    """Map an ``nvmlInit`` failure to a status and a message."""
    detail = _describe(exc)
    if _is_kind(nvml, exc, "NVMLError_LibraryNotFound", _CODE_LIBRARY_NOT_FOUND):
        return failure("no_driver", "probe.library_not_found", detail)
    if _is_kind(nvml, exc, "NVMLError_DriverNotLoaded", _CODE_DRIVER_NOT_LOADED):
        return failure("no_driver", "probe.driver_not_loaded", detail)
    if _is_kind(nvml, exc, "NVMLError_LibRmVersionMismatch", _CODE_LIB_RM_VERSION_MISMATCH):
        return failure("error", "probe.version_mismatch", detail)
    if _is_kind(nvml, exc, "NVMLError_NoPermission", _CODE_NO_PERMISSION):
        return failure("error", "probe.no_permission", detail)
    if _is_kind(nvml, exc, "NVMLError_FunctionNotFound", _CODE_FUNCTION_NOT_FOUND):
        return failure("error", "probe.driver_too_old", detail)
    return failure("error", "probe.query_failed", detail, detail=detail)


def _import_nvml() -> ModuleType | ProbeResult:
    try:
        import pynvml
    except ImportError as exc:
        return failure("error", "probe.no_binding", _describe(exc))
    return pynvml


def probe(nvml: Any = None) -> ProbeResult:
    """Read every local NVIDIA GPU through NVML. Never raises (except ``KeyboardInterrupt``/``SystemExit``).

    ``nvml`` is the binding module to use; ``None`` imports ``pynvml`` here (never at module
    import). Tests pass a fake with the same function names. The probe initialises NVML,
    reads each device (name, UUID, memory, compute capability, running processes), the driver
    version and the maximum CUDA version the driver supports, matches names to the bundled
    catalog, and always shuts NVML down again. A field that fails is ``None`` (noted in
    ``notes``); a GPU lost mid-probe is skipped with a note. At most :data:`MAX_DEVICES` devices
    are read, whatever count the driver reports.

    This blocks for as long as the driver takes; from a UI use :func:`probe_with_timeout` off the
    main thread.
    """
    result, opened = _probe_open(nvml, threading.Event())
    if opened is not None:
        _shutdown(opened)
    return result


def _probe_open(nvml: Any, cancelled: threading.Event) -> tuple[ProbeResult, Any]:
    """Probe and leave NVML initialised: returns the result and the binding to shut down (or ``None``).

    The result is complete before ``nvmlShutdown`` is called, so a driver that hangs on shutdown
    cannot take the GPUs already read with it. ``cancelled`` stops the device loop early (the
    caller stopped waiting). Raises only ``BaseException``s that are not ``Exception``s
    (``SystemExit``, ``KeyboardInterrupt``), after shutting NVML down.
    """
    opened: Any = None
    try:
        if nvml is None:
            imported = _import_nvml()
            if isinstance(imported, ProbeResult):
                return imported, None
            nvml = imported
        init = getattr(nvml, "nvmlInit", None)
        if not callable(init):
            # A shadowed or half-installed module named pynvml (nvitop guards against the same).
            return failure("error", "probe.broken_binding", "pynvml.nvmlInit is missing"), None
        try:
            init()
        except Exception as exc:
            log.info("nvmlInit failed: %s", _describe(exc))
            return _init_failure(nvml, exc), None
        opened = nvml
        return _read_all(nvml, cancelled), opened
    except Exception as exc:  # the last line of defence: the app must never crash on a probe
        log.warning("GPU probe failed unexpectedly", exc_info=True)
        return failure("error", "probe.unexpected", _describe(exc)), opened
    except BaseException:
        if opened is not None:
            _shutdown(opened)
        raise


def _shutdown(nvml: Any) -> None:
    """Call ``nvmlShutdown`` if the binding has it; its failures are logged, never raised."""
    shutdown = getattr(nvml, "nvmlShutdown", None)
    if callable(shutdown):
        try:
            shutdown()
        except Exception:
            log.debug("nvmlShutdown failed", exc_info=True)


def _read_all(nvml: Any, cancelled: threading.Event) -> ProbeResult:
    try:
        count = int(nvml.nvmlDeviceGetCount())
    except Exception as exc:
        log.info("nvmlDeviceGetCount failed: %s", _describe(exc))
        return _init_failure(nvml, exc)
    if count <= 0:
        return failure("no_gpu", "probe.no_gpu")

    reader = _Reader(nvml)
    if count > MAX_DEVICES:  # a bogus count must not keep the probe reading for hours
        reader.notes.append(f"NVML reported {count} devices; only the first {MAX_DEVICES} were read")
        count = MAX_DEVICES
    try:
        driver = _text(reader.query("driver version", "nvmlSystemGetDriverVersion"))
        cuda = format_cuda_version(reader.query("CUDA driver version", "nvmlSystemGetCudaDriverVersion"))
    except _GpuLost:  # not device calls, but a binding could still say so
        driver = cuda = None

    gpus: list[LocalGpu] = []
    skipped: list[str] = []
    first_error: Exception | None = None
    for index in range(count):
        if cancelled.is_set():  # nobody waits for the answer any more
            skipped.append(f"GPU {index} and later were not read: the probe was stopped")
            break
        try:
            gpus.append(_read_gpu(reader, index, driver, cuda))
        except _GpuLost:
            skipped.append(f"GPU {index} stopped responding during the probe and was skipped")
        except Exception as exc:
            log.info("GPU %d could not be read", index, exc_info=True)
            skipped.append(f"GPU {index} could not be read and was skipped ({_describe(exc)})")
            first_error = first_error or exc
    notes = skipped + reader.notes

    if not gpus:
        if first_error is not None:
            # e.g. no permission on every device: say it the same way as at init
            failed = _init_failure(nvml, first_error)
            return failed.model_copy(update={"notes": notes, "detail": "; ".join(skipped)})
        return failure("error", "probe.all_lost", "; ".join(skipped)).model_copy(update={"notes": notes})
    code, params = ("probe.found_one", {}) if len(gpus) == 1 else ("probe.found_many", {"n": len(gpus)})
    found = ProbeResult(gpus=gpus, status="ok", message="", notes=notes, code=code, params=params,
                        skipped=len(skipped))
    return found.model_copy(update={"message": probe_message(found)})


# --- timeout guard --------------------------------------------------------------------------------

_stuck_lock = threading.Lock()
_stuck_thread: threading.Thread | None = None


def probe_with_timeout(timeout_s: float = 3.0, *, nvml: Any = None) -> ProbeResult:
    """Run :func:`probe` in a daemon thread; status ``timeout`` if it hasn't answered in ``timeout_s``.

    The answer counts as soon as the GPUs are read: ``nvmlShutdown`` runs after it, and when the
    shutdown itself hangs past ``timeout_s`` (seconds, counted from the start) the GPUs read are
    still returned, with a note. A hung driver call can't be cancelled, so the thread is left
    behind (it's a daemon, so it won't keep the app from exiting) and told to stop before the next
    device. While it is still stuck, further calls return ``timeout`` at once instead of piling
    up more stuck threads. A ``SystemExit`` or other ``BaseException`` raised inside the binding is
    reported as an ``error`` naming it, not as a timeout. Never raises.
    """
    global _stuck_thread
    timed_out = failure("timeout", "probe.timeout", seconds=timeout_s)
    with _stuck_lock:
        if _stuck_thread is not None:
            if _stuck_thread.is_alive():
                return timed_out.model_copy(update={"detail": "an earlier GPU probe is still waiting for the driver"})
            _stuck_thread = None

    box: list[ProbeResult] = []
    answered = threading.Event()
    cancelled = threading.Event()

    def run() -> None:
        opened: Any = None
        try:
            result, opened = _probe_open(nvml, cancelled)
        except BaseException as exc:  # noqa: BLE001 - SystemExit from a binding must not pass for a timeout
            log.warning("GPU probe raised %s", type(exc).__name__, exc_info=True)
            result = failure("error", "probe.binding_stopped", _describe(exc), exception=type(exc).__name__)
        box.append(result)
        answered.set()
        if opened is not None:
            _shutdown(opened)

    thread = threading.Thread(target=run, name="tuneplan-nvml-probe", daemon=True)
    started = time.monotonic()
    thread.start()
    answered.wait(max(0.0, timeout_s))
    if box:
        thread.join(max(0.0, timeout_s - (time.monotonic() - started)))
        if not thread.is_alive():
            return box[0]
        with _stuck_lock:
            _stuck_thread = thread
        log.warning("nvmlShutdown did not return within %.1f s; keeping the GPUs already read", timeout_s)
        note = f"the NVIDIA driver did not finish shutting down within {timeout_s:g} s"
        return box[0].model_copy(update={"notes": [*box[0].notes, note]})
    cancelled.set()
    with _stuck_lock:
        _stuck_thread = thread
    waited = time.monotonic() - started
    log.warning("GPU probe did not finish within %.1f s", waited)
    return timed_out.model_copy(update={"detail": f"no answer after {waited:.1f} s"})
