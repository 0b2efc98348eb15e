"""The bundled model catalog (``data/models.json``) and import of a user's Hugging Face ``config.json``.

Each catalog entry keeps the architecture fields of the model's published ``config.json`` (as
released on the Hugging Face Hub; the ``source`` of each entry says where the numbers were read)
and is converted with :func:`tuneplan.core.architecture.architecture_from_hf_config`, the same
path a user's own config takes. ``params_published_b`` is the count the model card or the Hub
page states, in billions; ``params_note`` explains gaps over 1 % to the computed count.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from tuneplan.catalog._data import read_text
from tuneplan.core.architecture import ModelArchitecture, UnsupportedModelError, architecture_from_hf_config

__all__ = [
    "MAX_CONFIG_BYTES",
    "CatalogModel",
    "ConfigImportError",
    "architecture_from_config",
    "get_model",
    "list_models",
    "load_hf_config",
    "read_hf_config",
]

MAX_CONFIG_BYTES = 1024 * 1024  # 1 MiB: real config.json files are a few KiB


class ConfigImportError(ValueError):
    """A ``config.json`` that cannot be imported; ``str(err)`` is one line for the user."""


class CatalogModel(BaseModel):
    """A model from the bundled catalog.

    Attributes:
        id: stable slug, e.g. ``"llama-3.1-8b"`` (saved scenarios refer to it).
        name: display name, e.g. ``"Llama 3.1 8B"``.
        hf_id: Hugging Face repository, e.g. ``"meta-llama/Llama-3.1-8B"``.
        family: model family for grouping in the UI (``"Llama"``, ``"Qwen"``...).
        params_published_b: published parameter count in billions (model card / Hub).
        params_note: why the computed count differs from the published one by more than 1 %, if it does.
        source: where the config numbers were read.
        architecture: the converted, validated architecture.
    """

    model_config = ConfigDict(frozen=True)

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    hf_id: str
    family: str
    params_published_b: float = Field(gt=0)
    params_note: str = ""
    source: str
    architecture: ModelArchitecture


def _convert(entry: dict[str, Any]) -> CatalogModel:
    arch = architecture_from_hf_config(entry["config"], name=entry["name"])
    arch = arch.model_copy(update={"source": entry["source"]})
    return CatalogModel(
        id=entry["id"],
        name=entry["name"],
        hf_id=entry["hf_id"],
        family=entry["family"],
        params_published_b=entry["params_published_b"],
        params_note=entry.get("params_note", ""),
        source=entry["source"],
        architecture=arch,
    )


@lru_cache(maxsize=1)
def _models() -> tuple[CatalogModel, ...]:
    entries = json.loads(read_text("models.json"))
    return tuple(_convert(e) for e in entries)


def list_models() -> list[CatalogModel]:
    """All catalog models in file order (grouped by family, small to large). Cached; immutable."""
    return list(_models())


def get_model(model_id: str) -> CatalogModel:
    """The catalog model with this id, e.g. ``get_model("llama-3.1-8b")``.

    Raises:
        KeyError: unknown id; the message lists the valid ids.
    """
    for model in _models():
        if model.id == model_id:
            return model
    known = ", ".join(m.id for m in _models())
    raise KeyError(f"unknown model id {model_id!r}; known ids: {known}")


def load_hf_config(path: str | Path) -> ModelArchitecture:
    """Read a Hugging Face ``config.json`` and convert it to a :class:`ModelArchitecture`.

    Args:
        path: a ``config.json`` file, or a model folder that contains one (a downloaded snapshot).

    Returns:
        The architecture; its name is ``_name_or_path`` from the file, else the folder name.

    Raises:
        ConfigImportError: with a one-line message when the path does not exist, the folder has
            no ``config.json``, the file is larger than 1 MiB, is not UTF-8 JSON (the message gives
            line and column), is not a JSON object, or describes a model Tuneplan cannot plan
            (encoder-decoder, missing sizes: the :class:`UnsupportedModelError` message).
    """
    p = Path(path).expanduser()
    cfg = read_hf_config(p)
    if p.is_dir():
        p = p / "config.json"
    name = cfg.get("_name_or_path") if isinstance(cfg.get("_name_or_path"), str) else None
    if not name and p.parent.name:
        name = p.parent.name
    return architecture_from_config(cfg, name or None, p.name)


def architecture_from_config(cfg: dict[str, Any], name: str | None, label: str) -> ModelArchitecture:
    """Convert a parsed ``config.json`` object, with the import's one-line messages.

    Args:
        cfg: the JSON object.
        name: the model's display name (``None``: from the config).
        label: what the messages call the file (``config.json``, ``org/name``).

    Raises:
        ConfigImportError: ``unsupported model in <label>: ...`` (the model type named) or ``invalid model config``.
    """
    try:
        return architecture_from_hf_config(cfg, name=name)
    except UnsupportedModelError as exc:
        raise ConfigImportError(f"unsupported model in {label}: {_one_line(str(exc))}") from exc
    except ValueError as exc:  # pydantic.ValidationError is a ValueError
        raise ConfigImportError(f"invalid model config in {label}: {_one_line(_first_error(exc))}") from exc


def read_hf_config(path: str | Path) -> dict[str, Any]:
    """The JSON object of a ``config.json`` (or of the one in a model folder), read with the import's limits.

    Raises:
        ConfigImportError: as :func:`load_hf_config` for a file that is missing, over 1 MiB, not UTF-8 JSON or
            not an object.
    """
    p = Path(path).expanduser()
    if p.is_dir():
        folder = p
        p = p / "config.json"
        if not p.is_file():
            raise ConfigImportError(f"the folder {folder} has no config.json")
    elif not p.exists():
        raise ConfigImportError(f"{p} does not exist")
    elif not p.is_file():
        raise ConfigImportError(f"{p} is not a file")
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigImportError(f"cannot read {p}: {exc.strerror or exc}") from exc
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigImportError(f"{p.name} is larger than 1 MiB; a model config.json is a few KiB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigImportError(f"{p.name} is not UTF-8 text (bad byte at offset {exc.start})") from exc
    try:
        cfg = json.loads(text, parse_int=_config_int)
    except json.JSONDecodeError as exc:
        raise ConfigImportError(
            f"{p.name} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from exc
    except RecursionError as exc:
        raise ConfigImportError(f"{p.name} is nested too deeply to be a model config") from exc
    except ValueError as exc:  # _config_int: a number too long to be a size
        raise ConfigImportError(f"{p.name} is not a usable model config: {exc}") from exc
    if not isinstance(cfg, dict):
        raise ConfigImportError(f"{p.name} must hold a JSON object, but it holds {_json_kind(cfg)}")
    return cfg


def _config_int(text: str) -> int:
    """A JSON integer of a config; raises ValueError for one of more than 30 digits (no model size has them),
    before Python's own 4,300-digit limit answers with advice about ``sys.set_int_max_str_digits``."""
    if len(text.lstrip("-")) > 30:
        raise ValueError(f"a {len(text)}-digit number is out of range")
    return int(text)


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            loc = ".".join(str(x) for x in first.get("loc", ()))
            return f"{loc}: {first.get('msg', '')}" if loc else str(first.get("msg", ""))
        except Exception:  # pragma: no cover - defensive
            pass
    return str(exc)


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return "a number"
    return "null"


def _one_line(text: str) -> str:
    return " ".join(text.split())
