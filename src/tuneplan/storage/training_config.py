"""Read a training config file (LLaMA-Factory / axolotl / TRL YAML, HF TrainingArguments or DeepSpeed JSON) safely.

:func:`read_training_config` reads at most :data:`MAX_CONFIG_BYTES` of a regular file, decodes it as UTF-8 and
parses it as JSON (``.json``) or YAML (anything else) with PyYAML's *safe* loader, which builds only plain data
(no tags, no objects, nothing executed). YAML anchors and aliases are refused (an alias bomb expands a small file
into billions of nodes) and nesting is capped at :data:`MAX_DEPTH` levels, so no input can hang or exhaust
memory. The decoded mapping goes to :func:`tuneplan.core.training_config.map_training_config`.

Every failure is one :class:`~tuneplan.core.training_config.TrainingConfigError` with a one-line message
``<file name>: <what is wrong>`` and a ``code`` (``NOTES``) that front ends translate.
"""

from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

import yaml

from tuneplan.core.training_command import looks_like_command, map_training_command
from tuneplan.core.training_config import ConfigImport, TrainingConfigError, map_training_config
from tuneplan.storage._fs import describe_os_error

__all__ = ["COMMAND_SUFFIXES", "MAX_CONFIG_BYTES", "MAX_DEPTH", "TrainingConfigError", "load_config_data", "read_training_config"]

#: Training configs are a few KiB; anything above this is refused unread.
MAX_CONFIG_BYTES = 1024 * 1024
#: Files read as a launch command line (``train.sh``); a file with another suffix than these and ``.yaml``/``.yml``/
#: ``.json`` is read as a command when it is no YAML mapping and has a training command (``looks_like_command``).
COMMAND_SUFFIXES = frozenset({".sh", ".bash", ".zsh", ".command"})
#: The deepest nesting accepted (a DeepSpeed config is 3 levels deep).
MAX_DEPTH = 32



class _SafeLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses aliases and caps nesting (the composer builds every node through here)."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:  # noqa: ANN401 - PyYAML's node types
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise _Refused("config.alias", line=event.start_mark.line + 1)
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _Refused("config.too_deep", depth=MAX_DEPTH)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_yaml_int(self, node: Any) -> Any:  # noqa: ANN401 - PyYAML's node types
        # a 5,000-digit integer would otherwise end in Python's own advice about sys.set_int_max_str_digits
        if len(str(node.value)) > _MAX_INT_CHARS:
            raise _Refused("config.syntax", line=node.start_mark.line + 1,
                           problem=f"a {len(str(node.value))}-character number is out of range")
        return super().construct_yaml_int(node)


_SafeLoader.add_constructor("tag:yaml.org,2002:int", _SafeLoader.construct_yaml_int)


class _Refused(Exception):
    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


def _depth_ok(data: Any) -> bool:
    """True when ``data`` is nested at most :data:`MAX_DEPTH` levels (iterative: no recursion limit)."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > MAX_DEPTH:
                return False
            children = node.values() if isinstance(node, dict) else node
            stack.extend((c, depth + 1) for c in children)
    return True


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


#: The longest integer a training config may hold (no batch size or step count has more digits).
_MAX_INT_CHARS = 30


def _bounded_int(text: str) -> int:
    if len(text) > _MAX_INT_CHARS:
        raise ValueError(f"a {len(text)}-digit number is out of range")
    return int(text)


def load_config_data(text: str, json_syntax: bool, name: str = "") -> Any:
    """Decode ``text`` as JSON or (safe, alias-free) YAML.

    Raises:
        TrainingConfigError: syntax error, aliases, too deep.
    """
    if json_syntax:
        try:
            data = json.loads(text, parse_constant=_reject_constant, parse_int=_bounded_int)
        except json.JSONDecodeError as exc:
            raise TrainingConfigError("config.syntax", file=name, line=exc.lineno, problem=exc.msg) from None
        except ValueError as exc:
            raise TrainingConfigError("config.syntax", file=name, line="?", problem=str(exc)) from None
        except RecursionError:
            raise TrainingConfigError("config.too_deep", file=name, depth=MAX_DEPTH) from None
        if not _depth_ok(data):
            raise TrainingConfigError("config.too_deep", file=name, depth=MAX_DEPTH)
        return data
    try:
        loader = _SafeLoader(text)  # PyYAML checks the characters here
    except yaml.YAMLError as exc:
        raise TrainingConfigError("config.syntax", file=name, line="?",
                                  problem=" ".join(str(exc).split())[:200] or type(exc).__name__) from None
    try:
        return loader.get_single_data()
    except _Refused as exc:
        raise TrainingConfigError(exc.code, file=name, **exc.params) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc.context or "syntax error").split())
        raise TrainingConfigError("config.syntax", file=name, line=mark.line + 1 if mark else "?",
                                  problem=problem) from None
    except (yaml.YAMLError, ValueError, OverflowError, RecursionError) as exc:
        raise TrainingConfigError("config.syntax", file=name, line="?",
                                  problem=" ".join(str(exc).split())[:200] or type(exc).__name__) from None
    finally:
        loader.dispose()


def _finite(data: Any) -> bool:
    """False when a float in ``data`` is NaN or infinite (YAML's ``.nan``/``.inf``)."""
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, float) and not math.isfinite(node):
            return False
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return True


def read_training_config(path: str | os.PathLike[str], fmt: str | None = None) -> ConfigImport:
    """Read, decode and map one training config file (``fmt`` as in ``map_training_config``; None detects it).

    Raises:
        TrainingConfigError: missing, not a regular file, unreadable, too large, not UTF-8 text, not YAML/JSON,
            aliases or too deep, not a training config, or a value of the wrong type (one line, naming the file).
    """
    p = Path(path).expanduser()
    name = p.name or str(p)
    try:
        info = os.stat(p)
        if not stat.S_ISREG(info.st_mode):  # a folder, FIFO or device would fail or never end
            raise TrainingConfigError("config.not_file", file=name)
        if info.st_size > MAX_CONFIG_BYTES:
            raise TrainingConfigError("config.too_large", file=name, size=math.ceil(info.st_size / 1024),
                                      limit=MAX_CONFIG_BYTES // 1024)
        with open(p, "rb") as fh:
            raw = fh.read(MAX_CONFIG_BYTES + 1)
    except TrainingConfigError:
        raise
    except FileNotFoundError:
        raise TrainingConfigError("config.missing", file=name) from None
    except OSError as exc:
        raise TrainingConfigError("config.unreadable", file=name, reason=describe_os_error(exc)) from None
    if len(raw) > MAX_CONFIG_BYTES:  # grew since stat
        raise TrainingConfigError("config.too_large", file=name, size=math.ceil(len(raw) / 1024),
                                  limit=MAX_CONFIG_BYTES // 1024)
    if b"\x00" in raw:
        raise TrainingConfigError("config.not_text", file=name)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TrainingConfigError("config.not_text", file=name) from None
    if not text.strip():
        raise TrainingConfigError("config.empty", file=name)
    suffix = p.suffix.lower()
    command = suffix in COMMAND_SUFFIXES
    data: Any = None
    if not command and suffix not in {".yaml", ".yml", ".json"}:
        # no telling suffix (train, run.txt): a YAML/JSON mapping is a config; else a launch command, if it has one
        try:
            data = load_config_data(text, False, name)
        except TrainingConfigError:
            if not looks_like_command(text):
                raise
            command = True
        else:
            command = not isinstance(data, dict) and looks_like_command(text)
    if command:
        # a launch command (train.sh): read as words, never run (core/training_command.py)
        try:
            return map_training_command(text)
        except TrainingConfigError as exc:
            raise TrainingConfigError(exc.code, file=name, **exc.params) from None
    if data is None:  # (decoded once: a suffix-less file was decoded above)
        data = load_config_data(text, suffix == ".json", name)
    if not _finite(data):
        raise TrainingConfigError("config.syntax", file=name, line="?", problem="NaN or infinity")
    try:
        return map_training_config(data, fmt)
    except TrainingConfigError as exc:
        raise TrainingConfigError(exc.code, file=name, **exc.params) from None
