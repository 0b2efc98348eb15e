"""Scenario files: a versioned JSON envelope, atomic saves, and careful loads of untrusted input.

File format (schema 3), UTF-8 JSON::

    {
      "format": "tuneplan-scenario",
      "schema_version": 3,
      "app_version": "0.1.0",
      "saved_at": "2026-05-01T12:00:00+00:00",
      "scenario": { ...Scenario.model_dump(mode="json")... }
    }

A bundle of several scenarios (export/import for sharing) has ``"format": "tuneplan-scenarios"``
and a ``"scenarios": [ {...}, ... ]`` list in place of ``"scenario"``; see
:func:`write_scenario_bundle` and :func:`read_scenarios_file`.

Schema history (each step is one function in :data:`MIGRATIONS`):

* **0** (Tuneplan before the envelope): the scenario object itself at the top level, with no
  ``"format"`` key, and the GPU count stored as ``training.gpus``.
* **1**: the envelope above; ``training.gpus`` renamed to ``training.num_gpus``.
* **2**: ``training.kbit_fp32_upcast`` (QLoRA's unquantised weights in fp32, as PEFT's
  ``prepare_model_for_kbit_training`` leaves them); schema-1 plans get ``true``, what they were
  estimated with. Bumped so that an older Tuneplan calls a new file "newer" instead of "broken".
* **3**: ``training.adapter_precision`` (how LoRA adapters are held: PEFT's FP32 under autocast, FP32
  without autocast, or the model dtype) and ``training.torch_compile``; schema-2 plans get
  ``"fp32-autocast"`` and ``false``, what they were estimated with.
* **4**: ``training.grad_sync`` and ``training.fsdp_wrap``.
* **5**: ``training.stack`` (the training stack whose defaults the plan took, ``core/stacks.py``); schema-4 plans get
  ``null`` (no stack chosen) and keep every value.
* **6**: ``training.attention`` may be ``flash1``. **7**: the DeepSpeed buffer sizes (``training.deepspeed_*``).
* **8**: ``training.workload`` (``sft``, ``dpo``, ``orpo``, ``kto``, ``reward``) and ``training.reference_model``;
  schema-7 plans get ``"sft"`` and ``null``, what they were estimated with.
* **9**: ``training.workload`` may be ``grpo``, with ``training.num_generations``, ``completion_tokens``, ``kl_beta``,
  ``generation_engine``, ``vllm_memory_share``, ``vllm_sleep``, ``vllm_server_gpus``; schema-8 plans get TRL's
  defaults, which no schema-8 workload reads.

Reading is defensive, because a scenario file may come from anyone: at most
:data:`MAX_FILE_BYTES`, JSON only (no pickle, no YAML tags, no code), no ``NaN``/``Infinity``,
no duplicate keys, no integers longer than 30 digits, nesting at most :data:`MAX_DEPTH` deep, and
strict pydantic validation (``extra="forbid"``, no type coercion from strings). Files saved by a
*newer* Tuneplan are refused with :class:`NewerSchemaError` and never modified.

Every error is a :class:`ScenarioFileError` (a ``ValueError``) with a one-line message that names
the file, and a ``reason`` code (``missing``, ``unreadable``, ``too-large``, ``not-json``,
``wrong-format``, ``invalid``, ``newer``, ``save``) for callers that act on the kind of failure.
"""

from __future__ import annotations

import copy
import json
import math
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from tuneplan import __version__
from tuneplan.core.scenario import SCHEMA_VERSION, Scenario
from tuneplan.storage._fs import UnsafeFileError, atomic_write_bytes, describe_os_error, read_regular_file

__all__ = [
    "BUNDLE_FORMAT",
    "CORRUPT_REASONS",
    "FORMAT",
    "MAX_BUNDLE_BYTES",
    "MAX_BUNDLE_SCENARIOS",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MIGRATIONS",
    "NewerSchemaError",
    "ScenarioDocument",
    "ScenarioFileError",
    "ScenarioSaveError",
    "ScenarioTooLargeError",
    "dumps_scenario",
    "migrate",
    "read_scenario_document",
    "read_scenario_file",
    "read_scenarios_file",
    "scenario_from_data",
    "write_scenario_bundle",
    "write_scenario_file",
]

FORMAT = "tuneplan-scenario"
BUNDLE_FORMAT = "tuneplan-scenarios"
#: the largest plan file read, and so the largest written (bytes)
MAX_FILE_BYTES = 1024 * 1024
#: the largest bundle read and written (bytes), and how many scenarios it may hold
MAX_BUNDLE_BYTES = 8 * 1024 * 1024
MAX_BUNDLE_SCENARIOS = 1000
MAX_DEPTH = 16  # a scenario is 3 levels deep inside its envelope; a bundle 4
_MAX_INT_DIGITS = 30

# ScenarioFileError.reason values for a file whose *content* is bad (as opposed to missing,
# unreadable, newer): these are the ones the library moves to quarantine.
CORRUPT_REASONS = frozenset({"too-large", "not-json", "wrong-format", "invalid"})
_ENVELOPE_KEYS = frozenset({"format", "schema_version", "app_version", "saved_at", "scenario"})
_BUNDLE_KEYS = frozenset({"format", "schema_version", "app_version", "saved_at", "scenarios"})


class ScenarioFileError(ValueError):
    """A scenario file could not be read or written. ``str(exc)`` is one line for a user.

    Attributes:
        path: the file concerned (``None`` when the input did not come from a file).
        reason: ``missing``, ``unreadable``, ``too-large``, ``not-json``, ``wrong-format``,
            ``invalid``, ``newer`` or ``save`` (the library adds ``conflict`` and ``locked``).
        detail: the message without the leading ``"<path>: "``, for UIs that show the file
            name elsewhere.
    """

    def __init__(self, message: str, path: Path | None = None, reason: str = "invalid") -> None:
        super().__init__(message)
        self.path = path
        self.reason = reason
        prefix = f"{path}: " if path is not None else ""
        self.detail = message[len(prefix) :] if prefix and message.startswith(prefix) else message


class NewerSchemaError(ScenarioFileError):
    """The file was saved by a newer Tuneplan (its schema version is above ours); it is left untouched.

    Attributes:
        file_version: the schema version found in the file.
    """

    def __init__(self, message: str, path: Path | None, file_version: int) -> None:
        super().__init__(message, path, "newer")
        self.file_version = file_version


class ScenarioTooLargeError(ScenarioFileError):
    """A save was refused because the file would exceed what a read accepts; nothing was written.

    The limits are the readers' own (:data:`MAX_FILE_BYTES` for one plan, :data:`MAX_BUNDLE_BYTES`
    and :data:`MAX_BUNDLE_SCENARIOS` for a bundle), so whatever is saved can be opened again.
    ``reason`` is ``"too-large"``. Not a :class:`ScenarioSaveError`: freeing disk space won't help.

    Attributes:
        size: the encoded size in bytes (or the number of scenarios, for a bundle with too many).
        limit: the limit that was exceeded, in the same unit.
    """

    def __init__(self, message: str, path: Path | None, size: int, limit: int) -> None:
        super().__init__(message, path, "too-large")
        self.size = size
        self.limit = limit


class ScenarioSaveError(ScenarioFileError):
    """A save failed (disk full, permission denied, read-only file system...).

    The previous file, if there was one, is intact and no temp file is left behind.

    Attributes:
        errno: the ``OSError.errno`` behind the failure, if any.
    """

    def __init__(self, message: str, path: Path | None, errno: int | None = None) -> None:
        super().__init__(message, path, "save")
        self.errno = errno


@dataclass(frozen=True)
class ScenarioDocument:
    """A scenario read from a file, with what the envelope said about it.

    Attributes:
        scenario: the validated (and, if needed, migrated) scenario.
        schema_version: the schema version the file was written with (0 for a bare v0 file).
        app_version: the Tuneplan version that saved it, if recorded.
        saved_at: ISO 8601 save time, if recorded.
    """

    scenario: Scenario
    schema_version: int
    app_version: str | None = None
    saved_at: str | None = None

    @property
    def migrated(self) -> bool:
        """True when the file used an older schema and was upgraded in memory (not on disk)."""
        return self.schema_version < SCHEMA_VERSION


# ---------------------------------------------------------------------------------------------
# migrations

Migration = Callable[[dict[str, Any]], dict[str, Any]]


def _migrate_v0_to_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 0 -> 1: ``training.gpus`` became ``training.num_gpus``.

    v0 files were the bare scenario object (no envelope); the envelope is handled by the reader,
    so this step only renames the field. A v0 file that already has ``num_gpus`` keeps it.
    """
    training = data.get("training")
    if isinstance(training, dict) and "gpus" in training:
        gpus = training.pop("gpus")
        training.setdefault("num_gpus", gpus)
    return data


def _migrate_v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 -> 2: ``training.kbit_fp32_upcast`` appears; a schema-1 plan keeps the fp32 upcast it
    was estimated with (``true``) unless it already says otherwise."""
    training = data.get("training")
    if isinstance(training, dict):
        training.setdefault("kbit_fp32_upcast", True)
    return data


def _migrate_v2_to_v3(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 2 -> 3: ``training.adapter_precision`` appears; schema-2 plans were estimated with PEFT's FP32
    adapters under autocast (``"fp32-autocast"``)."""
    training = data.get("training")
    if isinstance(training, dict):
        training.setdefault("adapter_precision", "fp32-autocast")
        training.setdefault("torch_compile", False)
    return data


def _migrate_v3_to_v4(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 3 -> 4: ``training.grad_sync`` and ``training.fsdp_wrap`` appear; schema-3 plans were estimated
    with sharded gradient accumulation under FSDP (``"micro-batch"``) and every unit resharded after use, as
    ``"separate-embeddings"`` wrapping gives."""
    training = data.get("training")
    if isinstance(training, dict):
        training.setdefault("grad_sync", "micro-batch")
        training.setdefault("fsdp_wrap", "separate-embeddings")
    return data


def _migrate_v4_to_v5(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 4 -> 5: ``training.stack`` appears; schema-4 plans chose none (``null``) and keep every value."""
    training = data.get("training")
    if isinstance(training, dict):
        training.setdefault("stack", None)
    return data


def _migrate_v5_to_v6(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 5 -> 6: ``training.attention`` may be ``flash1`` (FlashAttention 1); schema-5 plans keep their value.
    The version moves so that an older Tuneplan, which cannot read ``flash1``, says the plan is newer."""
    return data


def _migrate_v6_to_v7(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 6 -> 7: DeepSpeed buffer sizes appear (``training.deepspeed_*``); schema-6 plans were estimated with
    DeepSpeed's defaults, which ``None`` and ``deepspeed_auto_buckets=False`` keep."""
    training = data.get("training")
    if isinstance(training, dict):
        for key in ("deepspeed_reduce_bucket", "deepspeed_prefetch_bucket", "deepspeed_sub_group",
                    "deepspeed_max_reuse_distance"):
            training.setdefault(key, None)
        training.setdefault("deepspeed_auto_buckets", False)
    return data


def _migrate_v7_to_v8(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 7 -> 8: ``training.workload`` and ``training.reference_model`` appear (issue #18); schema-7 plans were
    supervised fine-tuning (``"sft"``) with no reference model (``None``)."""
    training = data.get("training")
    if isinstance(training, dict):
        training.setdefault("workload", "sft")
        training.setdefault("reference_model", None)
    return data


def _migrate_v8_to_v9(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 8 -> 9: the GRPO fields appear (issue #18) with TRL's ``GRPOConfig`` defaults; no schema-8 workload
    reads them, so every schema-8 plan estimates as before."""
    training = data.get("training")
    if isinstance(training, dict):
        for key, value in (("num_generations", 8), ("completion_tokens", 512), ("kl_beta", 0.0),
                           ("generation_engine", "transformers"), ("vllm_memory_share", 0.3), ("vllm_sleep", False),
                           ("vllm_server_gpus", 1)):
            training.setdefault(key, value)
    return data


def _migrate_v9_to_v10(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 9 -> 10: ``dataset.rank_padding_efficiency`` appears (the slowest data-parallel GPU's padded row,
    issue #16); schema-9 plans knew no length spread (``1.0``), so every schema-9 plan estimates as before."""
    dataset = data.get("dataset")
    if isinstance(dataset, dict):
        dataset.setdefault("rank_padding_efficiency", 1.0)
    return data


# MIGRATIONS[n] turns schema-n scenario data into schema n+1. Add one entry per schema bump.
MIGRATIONS: dict[int, Migration] = {0: _migrate_v0_to_v1, 1: _migrate_v1_to_v2, 2: _migrate_v2_to_v3,
                                    3: _migrate_v3_to_v4, 4: _migrate_v4_to_v5, 5: _migrate_v5_to_v6,
                                    6: _migrate_v6_to_v7, 7: _migrate_v7_to_v8,
                                    8: _migrate_v8_to_v9, 9: _migrate_v9_to_v10}


def migrate(data: dict[str, Any], from_version: int, path: Path | None = None) -> dict[str, Any]:
    """Upgrade scenario data from ``from_version`` to :data:`SCHEMA_VERSION` (on a deep copy).

    Raises:
        NewerSchemaError: ``from_version`` is above :data:`SCHEMA_VERSION`.
        ScenarioFileError: no migration is registered for a step (``wrong-format``).
    """
    if from_version > SCHEMA_VERSION:
        raise NewerSchemaError(_newer_message(path, from_version), path, from_version)
    upgraded = copy.deepcopy(data)
    version = from_version
    while version < SCHEMA_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise ScenarioFileError(
                f"{_where(path)}schema {from_version} cannot be upgraded (no migration from {version})",
                path,
                "wrong-format",
            )
        upgraded = step(upgraded)
        version += 1
    upgraded["schema_version"] = SCHEMA_VERSION
    return upgraded


def _newer_message(path: Path | None, version: int) -> str:
    return (
        f"{_where(path)}saved by a newer Tuneplan (schema {version}); this version reads up to "
        f"{SCHEMA_VERSION} — the file was left untouched"
    )


# ---------------------------------------------------------------------------------------------
# reading


def _where(path: Path | None) -> str:
    return f"{path}: " if path is not None else ""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number {text[:20]} is out of range")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS:
        raise ValueError(f"a {len(text)}-digit number is out of range")
    return int(text)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key[:40]!r}")
        result[key] = value
    return result


def _check_depth(value: Any, limit: int) -> bool:
    """True when ``value`` nests at most ``limit`` containers deep (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Iterable[Any] = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in children)
    return True


def _size_text(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MiB"
    return f"{size / 1024:.0f} KiB"


def _load_json(path: Path, limit: int) -> Any:
    """Parse ``path`` as JSON within ``limit`` bytes and :data:`MAX_DEPTH` levels.

    A FIFO, device or folder (also behind a symlink) is refused without blocking
    (:func:`~tuneplan.storage._fs.read_regular_file`).
    """
    try:
        raw = read_regular_file(path, limit)
    except UnsafeFileError as exc:
        if exc.reason == "too-large":
            raise ScenarioFileError(
                f"{path}: too large ({_size_text(exc.size or 0)}; the limit is {_size_text(limit)})",
                path,
                "too-large",
            ) from None
        if os.path.isdir(path):
            raise ScenarioFileError(f"{path}: is a folder, not a scenario file", path, "wrong-format") from None
        raise ScenarioFileError(f"{path}: not a regular file", path, "wrong-format") from None
    except FileNotFoundError:
        raise ScenarioFileError(f"{path}: no such file", path, "missing") from None
    except PermissionError:
        raise ScenarioFileError(
            f"{path}: cannot read the file (permission denied)", path, "unreadable"
        ) from None
    except OSError as exc:
        raise ScenarioFileError(
            f"{path}: cannot read the file ({describe_os_error(exc)})", path, "unreadable"
        ) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ScenarioFileError(f"{path}: not a JSON file (not UTF-8 text)", path, "not-json") from None
    if not text.strip():
        raise ScenarioFileError(f"{path}: the file is empty", path, "not-json")
    try:
        data = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
            object_pairs_hook=_no_duplicates,
        )
    except json.JSONDecodeError as exc:
        raise ScenarioFileError(
            f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})", path, "not-json"
        ) from None
    except RecursionError:
        raise ScenarioFileError(
            f"{path}: nested too deeply (more than {MAX_DEPTH} levels)", path, "not-json"
        ) from None
    except MemoryError:
        raise ScenarioFileError(f"{path}: too large to read", path, "too-large") from None
    except ValueError as exc:
        raise ScenarioFileError(f"{path}: not valid JSON ({exc})", path, "not-json") from None
    if not _check_depth(data, MAX_DEPTH):
        raise ScenarioFileError(f"{path}: nested too deeply (more than {MAX_DEPTH} levels)", path, "not-json")
    return data


def _validation_message(exc: ValidationError) -> str:
    errors = exc.errors()
    first = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ())) or "scenario"
    kind = first.get("type", "")
    if kind == "extra_forbidden":
        text = f"unknown field {where}"
    elif kind == "missing":
        text = f"missing field {where}"
    else:
        text = f"invalid value for {where}: {first.get('msg', 'invalid value')}"
    if len(errors) > 1:
        text += f" (and {len(errors) - 1} more problem{'s' if len(errors) > 2 else ''})"
    return text.replace("\n", " ")


def scenario_from_data(data: Any, version: int, path: Path | None = None, label: str = "") -> Scenario:
    """Migrate and strictly validate one scenario's JSON data (the inside of the envelope).

    ``label`` prefixes messages (``"scenario 3: "`` inside a bundle).

    Raises:
        NewerSchemaError: ``version`` is newer than this Tuneplan reads.
        ScenarioFileError: not an object, or a field is missing, unknown or invalid (``invalid``).
    """
    if not isinstance(data, dict):
        raise ScenarioFileError(
            f"{_where(path)}{label}expected a scenario object, found {type(data).__name__}",
            path,
            "wrong-format",
        )
    upgraded = migrate(data, version, path)
    try:
        return Scenario.model_validate(upgraded, strict=True)
    except ValidationError as exc:
        raise ScenarioFileError(f"{_where(path)}{label}{_validation_message(exc)}", path, "invalid") from None


def _schema_version(value: Any, path: Path | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ScenarioFileError(
            f"{_where(path)}schema_version must be a whole number >= 0", path, "wrong-format"
        )
    return value


def _optional_str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _document_from_data(data: Any, path: Path | None) -> ScenarioDocument:
    if not isinstance(data, dict):
        raise ScenarioFileError(
            f"{_where(path)}not a Tuneplan scenario file (expected a JSON object, found {type(data).__name__})",
            path,
            "wrong-format",
        )
    fmt = data.get("format")
    if fmt is None:
        if "model" in data and "gpu" in data:  # schema 0, or a bare Scenario.model_dump()
            version = _schema_version(data.get("schema_version", 0), path)
            return ScenarioDocument(scenario_from_data(data, version, path), version)
        raise ScenarioFileError(
            f'{_where(path)}not a Tuneplan scenario file (no "format": "{FORMAT}")', path, "wrong-format"
        )
    if fmt == BUNDLE_FORMAT:
        raise ScenarioFileError(
            f"{_where(path)}a bundle of several scenarios; import it with 'tuneplan scenarios import'",
            path,
            "wrong-format",
        )
    if fmt != FORMAT:
        raise ScenarioFileError(
            f"{_where(path)}not a Tuneplan scenario file (format {str(fmt)[:40]!r})", path, "wrong-format"
        )
    version = _schema_version(data.get("schema_version"), path)
    if version > SCHEMA_VERSION:  # before looking at anything else: a newer file may differ in any way
        raise NewerSchemaError(_newer_message(path, version), path, version)
    unknown = sorted(set(data) - _ENVELOPE_KEYS)
    if unknown:
        raise ScenarioFileError(
            f"{_where(path)}unknown key {unknown[0][:40]!r} in the file", path, "wrong-format"
        )
    if "scenario" not in data:
        raise ScenarioFileError(f'{_where(path)}no "scenario" in the file', path, "wrong-format")
    return ScenarioDocument(
        scenario_from_data(data["scenario"], version, path),
        version,
        _optional_str(data.get("app_version")),
        _optional_str(data.get("saved_at")),
    )


def read_scenario_document(path: str | os.PathLike[str]) -> ScenarioDocument:
    """Read one scenario file, with its envelope metadata. Never modifies the file.

    Raises:
        NewerSchemaError: saved by a newer Tuneplan.
        ScenarioFileError: missing, unreadable, too large, not JSON, not a scenario, or invalid.
    """
    p = Path(path)
    return _document_from_data(_load_json(p, MAX_FILE_BYTES), p)


def read_scenario_file(path: str | os.PathLike[str]) -> Scenario:
    """Read, migrate and validate one scenario file (see the module docstring for the checks).

    Raises:
        NewerSchemaError: saved by a newer Tuneplan (the file is left untouched).
        ScenarioFileError: missing, unreadable, too large, not JSON (with line and column), not
            a Tuneplan scenario, or a field is invalid (named in the message).
    """
    return read_scenario_document(path).scenario


def read_scenarios_file(path: str | os.PathLike[str]) -> list[Scenario]:
    """Read a single-scenario file or a ``tuneplan-scenarios`` bundle (for import). All or nothing.

    Raises:
        NewerSchemaError: the file or bundle was saved by a newer Tuneplan.
        ScenarioFileError: as :func:`read_scenario_file`; for a bundle the message names the
            scenario's position (``scenario 3: invalid value for training.seq_len: ...``).
    """
    p = Path(path)
    data = _load_json(p, MAX_BUNDLE_BYTES)
    if not (isinstance(data, dict) and data.get("format") == BUNDLE_FORMAT):
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ScenarioFileError(
                f"{p}: too large ({_size_text(size)}; the limit is {_size_text(MAX_FILE_BYTES)})",
                p,
                "too-large",
            )
        return [_document_from_data(data, p).scenario]
    version = _schema_version(data.get("schema_version"), p)
    if version > SCHEMA_VERSION:
        raise NewerSchemaError(_newer_message(p, version), p, version)
    unknown = sorted(set(data) - _BUNDLE_KEYS)
    if unknown:
        raise ScenarioFileError(f"{p}: unknown key {unknown[0][:40]!r} in the bundle", p, "wrong-format")
    items = data.get("scenarios")
    if not isinstance(items, list):
        raise ScenarioFileError(f'{p}: "scenarios" must be a list', p, "wrong-format")
    if len(items) > MAX_BUNDLE_SCENARIOS:
        raise ScenarioFileError(
            f"{p}: too many scenarios ({len(items)}; the limit is {MAX_BUNDLE_SCENARIOS})", p, "too-large"
        )
    return [scenario_from_data(item, version, p, f"scenario {i}: ") for i, item in enumerate(items, 1)]


# ---------------------------------------------------------------------------------------------
# writing


def _envelope(fmt: str) -> dict[str, Any]:
    return {
        "format": fmt,
        "schema_version": SCHEMA_VERSION,
        "app_version": __version__,
        "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _scenario_data(scenario: Scenario) -> dict[str, Any]:
    data = scenario.model_dump(mode="json")
    data["schema_version"] = SCHEMA_VERSION
    return data


def _dumps(document: dict[str, Any], path: Path | None) -> bytes:
    try:
        text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)
    except ValueError:
        raise ScenarioSaveError(
            f"{_where(path)}cannot save: the scenario contains a number that is not finite", path
        ) from None
    return (text + "\n").encode("utf-8")


def dumps_scenario(scenario: Scenario) -> bytes:
    """The bytes :func:`write_scenario_file` writes for ``scenario`` (UTF-8 JSON with envelope)."""
    return _dumps({**_envelope(FORMAT), "scenario": _scenario_data(scenario)}, None)


def _write(path: Path, data: bytes, limit: int) -> Path:
    existed = path.exists()
    if len(data) > limit:  # the reader would refuse (and the library quarantine) what we wrote
        kept = "the previous file was left unchanged" if existed else "nothing was written"
        raise ScenarioTooLargeError(
            f"could not save {path}: too large ({_size_text(len(data))}; the limit is {_size_text(limit)}); "
            f"{kept}",
            path,
            len(data),
            limit,
        )
    try:
        atomic_write_bytes(path, data)
    except OSError as exc:
        kept = "the previous file was left unchanged" if existed else "nothing was written"
        raise ScenarioSaveError(
            f"could not save {path}: {describe_os_error(exc)}; {kept}", path, exc.errno
        ) from exc
    return path


def write_scenario_file(path: str | os.PathLike[str], scenario: Scenario) -> Path:
    """Save ``scenario`` atomically to ``path`` in the current schema; returns the path.

    Temp file in the same folder, flush, ``os.fsync``, ``os.replace``, fsync of the folder: a
    crash or power cut leaves either the old file or the new one, never a partial file.

    Raises:
        ScenarioTooLargeError: the encoded plan is larger than :data:`MAX_FILE_BYTES` (what
            :func:`read_scenario_file` accepts); nothing was written.
        ScenarioSaveError: the write failed (disk full, permission denied, read-only file system,
            missing folder); the previous file is intact and no temp file is left behind.
    """
    p = Path(path)
    document = {**_envelope(FORMAT), "scenario": _scenario_data(scenario)}
    return _write(p, _dumps(document, p), MAX_FILE_BYTES)


def write_scenario_bundle(path: str | os.PathLike[str], scenarios: Iterable[Scenario]) -> Path:
    """Save several scenarios atomically as one ``tuneplan-scenarios`` bundle; returns the path.

    Raises:
        ScenarioTooLargeError: more than :data:`MAX_BUNDLE_SCENARIOS` scenarios, or larger than
            :data:`MAX_BUNDLE_BYTES` (what :func:`read_scenarios_file` accepts); nothing was written.
        ScenarioSaveError: as :func:`write_scenario_file`.
    """
    p = Path(path)
    items = [_scenario_data(s) for s in scenarios]
    if len(items) > MAX_BUNDLE_SCENARIOS:
        raise ScenarioTooLargeError(
            f"could not save {p}: too many scenarios ({len(items)}; the limit is {MAX_BUNDLE_SCENARIOS}); "
            "nothing was written",
            p,
            len(items),
            MAX_BUNDLE_SCENARIOS,
        )
    document = {**_envelope(BUNDLE_FORMAT), "scenarios": items}
    return _write(p, _dumps(document, p), MAX_BUNDLE_BYTES)
