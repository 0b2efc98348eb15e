"""Write a plan as a training stack's config file (issue #17 part 5): the text and the atomic write.

The document comes from :func:`tuneplan.core.config_export.export_config`; this module gives it the model's Hugging
Face id (the catalog's ``hf_id``, or the plan's model name when it is one), renders it as YAML (PyYAML's
``safe_dump``, keys in the order the core wrote them) or JSON, and writes it with
:func:`tuneplan.storage._fs.atomic_write_bytes` (a reader sees the old file or the new one, never half of one).

Every file starts with what it was made for: Tuneplan and its version, the plan, the estimate's verdict, the
model, how to start it, what to fill in and, one per line, the plan settings the format cannot express. YAML gets
them as ``#`` comments; JSON has no comments, so a DeepSpeed file carries them as a leading ``"_comment"`` list, a
key DeepSpeed's config reader does not look at (``deepspeed/runtime/config.py`` reads the keys it knows).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tuneplan import __version__
from tuneplan.core.config_export import EXPORT_FORMAT_NAMES, ConfigExport, export_config
from tuneplan.core.result import Estimate
from tuneplan.core.scenario import Scenario
from tuneplan.core.terms import render_note
from tuneplan.core.text import terminal_safe
from tuneplan.storage._fs import atomic_write_bytes, describe_os_error

__all__ = ["ConfigWriteError", "build_export", "default_file_name", "header_lines", "model_ref_for", "render_config",
           "write_config"]


class ConfigWriteError(OSError):
    """The config file could not be written; ``str(err)`` is one line naming the file and the reason."""


def model_ref_for(scenario: Scenario) -> str | None:
    """The plan's model as a Hugging Face id: the catalog entry's ``hf_id``, else the model's name when it reads as
    ``org/name`` (a model loaded from the Hub is named by its repository); None otherwise."""
    from tuneplan import catalog
    from tuneplan.storage.hub import parse_model_ref

    if scenario.model_id:
        try:
            return catalog.get_model(scenario.model_id).hf_id or None
        except KeyError:
            pass
    name = scenario.model.name.strip()
    ref = parse_model_ref(name) if "://" not in name else None
    return ref.repo_id if ref is not None else None


def build_export(scenario: Scenario, fmt: str, *, estimate: Estimate | None = None,
                 deepspeed_auto: bool | None = None) -> ConfigExport:
    """:func:`~tuneplan.core.config_export.export_config` with the plan's model id looked up."""
    return export_config(scenario, fmt, estimate=estimate, model_ref=model_ref_for(scenario),
                         deepspeed_auto=deepspeed_auto)


def default_file_name(export: ConfigExport) -> str:
    """A file name for the export: ``<plan>-<format>.yaml`` or ``ds_config.json``."""
    from tuneplan.storage.library import slugify

    if export.syntax == "json":
        return f"{slugify(export.plan_name, 60)}-ds_config.json"
    return f"{slugify(export.plan_name, 60)}-{export.format}.yaml"


def _gib(value: float) -> str:
    return f"{value:.1f}"


def header_lines(export: ConfigExport, file_name: str | None = None) -> list[str]:
    """The lines the file starts with (without comment markers), in English: the file is for the stack, not the UI.
    Control characters in them (a plan name is text from a file) are written as escapes: each stays one line."""
    name = EXPORT_FORMAT_NAMES[export.format]
    risk = {"tight": "; the likely range reaches past the card: tight",
            "unlikely": "; unlikely to fit: even the likely range's lower end does not",
            "possible": "; the likely range's lower end fits"}.get(export.band_risk, "")
    lines = [
        f"{name} config written by Tuneplan {__version__} for the plan \"{export.plan_name}\".",
        f"Estimate: {export.verdict} on a {export.capacity_gib:.2f} GiB GPU (likely up to "
        f"{_gib(export.high_gib)} GiB{risk}).",
        *(f"CANNOT RUN as planned: {' '.join(render_note(n).split())}" for n in export.blocking),
        f"Model: {export.model_ref or export.model_name + ' (no Hugging Face id in the plan)'}",
    ]
    if export.command:
        lines.append(f"How to use it: {export.command.replace('{file}', file_name or default_file_name(export))}")
    if export.to_fill:
        lines.append(f"Fill in what the plan does not hold: {', '.join(export.to_fill)}.")
    if export.notes:
        lines.append(f"Plan settings {name} cannot express, or takes from its own defaults:")
        lines.extend(f"  - {' '.join(render_note(n).split())}" for n in export.notes)
    # a plan name from a shared file may hold a newline (which would end the comment and add a key) or an escape
    return [terminal_safe(line) for line in lines]


def _yaml(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True, width=110)


def render_config(export: ConfigExport, file_name: str | None = None) -> str:
    """The file's text: the header, then the document (YAML, or JSON for DeepSpeed). For TRL, the same adapter as
    ``peft.LoraConfig`` / ``BitsAndBytesConfig`` arguments follows as comments, for a plain Trainer script."""
    header = header_lines(export, file_name)
    if export.syntax == "json":
        return json.dumps({"_comment": header, **export.document}, indent=2, ensure_ascii=False) + "\n"
    text = "".join(f"# {line}\n" for line in header) + "\n" + _yaml(export.document)
    for what, kwargs in export.extras.items():
        text += f"\n# For a plain Trainer script, the same as {what}(**...):\n"
        text += "".join(f"#   {line}\n" for line in _yaml(kwargs).splitlines())
    return text


def write_config(path: str | Path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (UTF-8); returns the path.

    Raises:
        ConfigWriteError: the folder is missing, not writable, full ... (one line naming the file).
    """
    target = Path(path).expanduser()
    try:
        if target.is_dir():
            raise IsADirectoryError(21, "it is a folder", str(target))
        atomic_write_bytes(target, text.encode("utf-8"))
    except OSError as exc:
        raise ConfigWriteError(f"cannot write {target}: {describe_os_error(exc)}") from None
    return target
