"""Count the tokens of a user's dataset file with the model's tokenizer, offline (issue #19).

Formats: JSONL (one object per line), JSON (a list of objects, or an object holding one such list), CSV / TSV
(a header row), and, when ``pyarrow`` is installed, Parquet and a local Hugging Face ``datasets`` folder written
by ``save_to_disk`` (Arrow files; a ``DatasetDict`` folder uses its ``train`` split). Without ``pyarrow`` those
two are refused with a message saying so; nothing else needs it.

Fields (:data:`FIELD_KINDS`, detected from the first readable row unless chosen): chat ``messages`` (a list of
``{role, content}``; ShareGPT ``conversations`` of ``{from, value}`` too), ``prompt``/``completion``,
Alpaca ``instruction``/``input``/``output`` (as a user and an assistant message, as LLaMA-Factory formats them),
plain ``text``, and preference pairs (``chosen``/``rejected`` with an optional ``prompt``, as text or as messages:
TRL's preference datasets), counted as the longer of the two rows, prompt included, since DPO-style trainers pad
chosen and rejected to one length; any other column name is read as text (or messages, when it holds a list).

Tokens per example, as the trainers count them: text is encoded with the tokenizer's special tokens, plus EOS
when the encoding does not end with it (TRL's SFT appends it); messages are rendered through the model's chat
template (``tokenizer_config.json`` or ``chat_template.jinja``) in jinja2's sandbox and encoded without added
special tokens (``apply_chat_template``). Without a template, or without jinja2, the counts are the role and
content tokens of each message, and a note says the template's markup is left out.

The tokenizer is a ``tokenizer.json`` read with the ``tokenizers`` library, from a local model folder or file,
or from the local Hugging Face cache (``huggingface_hub.try_to_load_from_cache``): never downloaded.

Untrusted files (docs/reliability.md): regular files only, checked before and after opening
(``_fs.open_regular_file``); at most :data:`MAX_DATASET_BYTES` streamed, :data:`MAX_JSON_BYTES` for a JSON
document parsed whole, :data:`MAX_LINE_BYTES` per line or record (a longer line is a broken row, never read into
memory whole); a file with NUL bytes in its first 8 KiB is not text. Broken rows are counted and reported, not
fatal, unless no row can be used. Beyond ``sample_rows`` usable rows the counted rows are a uniform reservoir
sample with a fixed seed (Vitter's algorithm R), so memory stays bounded and the result is reproducible. Every
failure is one :class:`DatasetFileError` with a code (``NOTES``) and a one-line message.
"""

from __future__ import annotations

import codecs
import csv
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from tuneplan.core.terms import N_, NOTES, CodedError, Note
from tuneplan.storage._fs import (
    UnsafeFileError,
    describe_os_error,
    loads_untrusted_json,
    open_regular_file,
    read_regular_file,
)

__all__ = [
    "DEFAULT_SAMPLE_ROWS",
    "FIELD_KINDS",
    "MAX_DATASET_BYTES",
    "MAX_JSON_BYTES",
    "MAX_LINE_BYTES",
    "CountCancelled",
    "DatasetCount",
    "DatasetFileError",
    "Tokenizer",
    "TokenizerFiles",
    "cached_tokenizers",
    "count_dataset",
    "detect_format",
    "find_tokenizer",
    "load_tokenizer",
    "model_tokenizer_ref",
]

log = logging.getLogger(__name__)

#: The largest file streamed (JSONL, CSV, Parquet, Arrow): 64 GiB; it is read once, line by line.
MAX_DATASET_BYTES = 64 * 2**30
#: The largest JSON document parsed whole (a list of records); larger ones should be JSONL.
MAX_JSON_BYTES = 256 * 2**20
#: The longest line (JSONL, CSV) or record accepted; a longer one is a broken row.
MAX_LINE_BYTES = 16 * 2**20
#: ``tokenizer.json`` files are up to ~35 MB (Gemma 3); configs a few MB at most.
MAX_TOKENIZER_BYTES = 128 * 2**20
MAX_TOKENIZER_CONFIG_BYTES = 32 * 2**20
#: Usable rows counted before sampling starts.
DEFAULT_SAMPLE_ROWS = 20_000
#: The reservoir sample's seed: the same file gives the same counts.
SAMPLE_SEED = 19
#: What the rows hold; ``auto`` picks one from the first readable row.
FIELD_KINDS = ("auto", "messages", "prompt-completion", "instruction-output", "preference", "text")
FORMAT_NAMES = {"jsonl": "JSONL", "json": "JSON", "csv": "CSV", "tsv": "TSV", "parquet": "Parquet",
                "arrow": "Arrow", "hf-folder": "Hugging Face datasets folder"}

_ENCODE_BATCH = 256
_SNIFF_BYTES = 8192
_ROLE_NAMES = {"human": "user", "gpt": "assistant", "bot": "assistant", "model": "assistant"}

NOTES.update({
    "dataset.missing": N_("no such file or folder"),
    "dataset.not_regular": N_("not a regular file (a pipe, device or socket)"),
    "dataset.too_large": N_("{size:,} bytes; at most {limit:,} can be read"),
    "dataset.json_too_large": N_("a JSON document of {size:,} bytes: at most {limit:,} are parsed at once; save it "
                                 "as JSONL (one object per line) instead"),
    "dataset.unreadable": N_("cannot read it: {reason}"),
    "dataset.binary": N_("not a text file (JSONL, JSON, CSV or TSV in UTF-8)"),
    "dataset.unknown_format": N_("cannot tell its format: name it .jsonl, .json, .csv, .tsv or .parquet, or pick a "
                                 "folder saved with datasets' save_to_disk"),
    "dataset.bad_json": N_("not a JSON list of records ({problem})"),
    "dataset.bad_file": N_("cannot read it as {format}: {problem}"),
    "dataset.needs_pyarrow": N_("reading {format} needs the pyarrow package, which is not installed "
                                "(pip install pyarrow); JSONL, JSON and CSV need nothing more"),
    "dataset.not_dataset_folder": N_("not a folder saved with datasets' save_to_disk (no state.json or "
                                     "dataset_dict.json)"),
    "dataset.empty": N_("holds no rows"),
    "dataset.no_field": N_("no chat messages, prompt/completion, instruction/output or text field found; the rows "
                           "have: {columns}"),
    "dataset.field_missing": N_("the rows have no field {field}; they have: {columns}"),
    "dataset.all_broken": N_("none of its {total:,} rows could be used (the first, at {unit} {row:,}: {reason})"),
    "dataset.broken": N_("{broken:,} of {total:,} rows could not be used and are left out (the first, at {unit} "
                         "{row:,}: {reason})"),
    "dataset.no_tokenizer": N_("no tokenizer.json for {model} in a local folder or the Hugging Face cache "
                               "(download it with: hf download {model} tokenizer.json tokenizer_config.json)"),
    "dataset.no_tokenizer_given": N_("no tokenizer: pick a model folder with a tokenizer.json, or a model in the "
                                     "Hugging Face cache"),
    "dataset.bad_tokenizer": N_("{file}: not a tokenizer the tokenizers library can load ({problem})"),
    "dataset.no_chat_template": N_("the tokenizer has no chat template: each message counts its role and content "
                                   "tokens only, without the template's markup (the counts are a lower bound)"),
    "dataset.no_jinja2": N_("the chat template needs the jinja2 package, which is not installed: each message counts "
                            "its role and content tokens only, without the template's markup (the counts are a lower "
                            "bound)"),
    "dataset.bad_chat_template": N_("the chat template cannot be read ({problem}): each message counts its role and "
                                    "content tokens only (the counts are a lower bound)"),
    "dataset.cancelled": N_("counting was cancelled"),
})


class DatasetFileError(CodedError):
    """A dataset file or tokenizer that cannot be used; ``code`` and ``params`` name the problem (``NOTES``).

    ``file`` is the file's name (empty for problems of no one file); the message is one line: ``file: text``.
    """


class CountCancelled(DatasetFileError):
    """The cancel flag was set: nothing was counted."""

    def __init__(self) -> None:
        super().__init__("dataset.cancelled")


class DatasetCount(BaseModel):
    """What :func:`count_dataset` counted.

    Attributes:
        file: the file or folder's name.
        format: a :data:`FORMAT_NAMES` key.
        field: the kind of field read (a :data:`FIELD_KINDS` entry other than ``auto``); ``column``: its column.
        rows: usable rows in the file (the plan's examples); ``total``: rows read, broken ones included.
        counted: rows whose tokens were counted (``rows``, or a sample of ``sample_rows``).
        broken: rows left out (unreadable, not an object, the field missing or empty, refused by the template).
        counts: tokens per counted row.
        tokenizer: where the tokenizer came from; ``chat_template``: whether messages went through it.
        notes: coded notes (broken rows, no chat template).
    """

    model_config = ConfigDict(frozen=True)

    file: str
    format: str
    field: str
    column: str
    rows: int
    total: int
    counted: int
    broken: int
    counts: tuple[int, ...]
    tokenizer: str
    chat_template: bool
    notes: tuple[Note, ...] = ()


# ---------------------------------------------------------------------------------------------- the tokenizer

@dataclass(frozen=True)
class TokenizerFiles:
    """A ``tokenizer.json`` and the files beside it that say how to use it (each may be missing)."""

    tokenizer_json: Path
    config: Path | None
    template: Path | None
    label: str


def _beside(folder: Path, name: str) -> Path | None:
    path = folder / name
    return path if path.is_file() else None


def find_tokenizer(ref: str | Path, cache_dir: str | Path | None = None) -> TokenizerFiles:
    """The tokenizer of ``ref``: a ``tokenizer.json`` file, a model folder holding one, or a Hugging Face id
    (``org/name[@revision]``) found in the local HF cache. Offline: nothing is downloaded.

    Raises:
        DatasetFileError: ``dataset.no_tokenizer`` (nothing found), ``dataset.no_tokenizer_given`` (empty ``ref``).
    """
    text = str(ref).strip()
    if not text:
        raise DatasetFileError("dataset.no_tokenizer_given")
    path = Path(text).expanduser()
    if path.is_dir():
        found = _beside(path, "tokenizer.json")
        if found is None:
            raise DatasetFileError("dataset.no_tokenizer", model=text)
        return TokenizerFiles(found, _beside(path, "tokenizer_config.json"), _beside(path, "chat_template.jinja"),
                              str(path))
    if path.is_file():
        return TokenizerFiles(path, _beside(path.parent, "tokenizer_config.json"),
                              _beside(path.parent, "chat_template.jinja"), str(path))
    from huggingface_hub import try_to_load_from_cache

    from tuneplan.storage.hub import hub_cache_dir, parse_model_ref

    parsed = parse_model_ref(text)
    if parsed is None:
        raise DatasetFileError("dataset.no_tokenizer", model=text)
    cache = Path(cache_dir) if cache_dir is not None else hub_cache_dir()

    def cached(name: str) -> Path | None:
        try:
            hit = try_to_load_from_cache(parsed.repo_id, name, cache_dir=cache, revision=parsed.revision)
        except Exception as exc:  # a malformed cache folder or revision: treated as not cached
            log.info("HF cache lookup of %s/%s failed: %s", parsed.repo_id, name, exc)
            return None
        return Path(hit) if isinstance(hit, str) else None

    found = cached("tokenizer.json")
    if found is None:
        raise DatasetFileError("dataset.no_tokenizer", model=text)
    return TokenizerFiles(found, cached("tokenizer_config.json"), cached("chat_template.jinja"), text)


def cached_tokenizers(cache_dir: str | Path | None = None) -> list[str]:
    """The model ids in the local HF cache whose ``main`` snapshot holds a ``tokenizer.json`` (sorted). Never raises."""
    from tuneplan.storage.hub import hub_cache_dir

    cache = Path(cache_dir) if cache_dir is not None else hub_cache_dir()
    found: list[str] = []
    try:
        folders = sorted(p for p in cache.iterdir() if p.name.startswith("models--") and p.is_dir())
    except OSError:
        return []
    for folder in folders[:2000]:
        repo_id = folder.name.removeprefix("models--").replace("--", "/", 1)
        try:
            commit = (folder / "refs" / "main").read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            continue
        if len(commit) == 40 and (folder / "snapshots" / commit / "tokenizer.json").is_file():
            found.append(repo_id)
    return found


def model_tokenizer_ref(model_id: str, model_name: str) -> str | None:
    """The Hugging Face id whose tokenizer a plan's model uses: the catalog entry's ``hf_id`` for a catalog model,
    the model's name when it is a Hub id (a model fetched by its id), else None."""
    if model_id:
        from tuneplan import catalog

        try:
            return catalog.get_model(model_id).hf_id or None
        except KeyError:
            return None
    from tuneplan.storage.hub import parse_model_ref

    ref = parse_model_ref(model_name)
    return ref.repo_id if ref is not None and "/" in model_name else None


def _read_json_file(path: Path, limit: int) -> Any:
    try:
        return loads_untrusted_json(read_regular_file(path, limit))
    except UnsafeFileError as exc:
        raise DatasetFileError("dataset.bad_tokenizer", path.name, problem=str(exc).split(": ", 1)[-1]) from None
    except OSError as exc:
        raise DatasetFileError("dataset.bad_tokenizer", path.name, problem=describe_os_error(exc)) from None
    except ValueError as exc:
        raise DatasetFileError("dataset.bad_tokenizer", path.name, problem=str(exc)) from None


def _token_text(value: Any) -> str | None:
    """A special token as ``tokenizer_config.json`` writes it: a string or ``{"content": ...}``."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("content"), str):
        return str(value["content"])
    return None


class Tokenizer:
    """A loaded ``tokenizer.json`` with its special tokens and chat template; counts tokens of examples.

    Attributes:
        label: where it came from.
        template_note: ``None`` when messages are rendered through the chat template, else the note saying why not.
    """

    def __init__(self, files: TokenizerFiles) -> None:
        from tokenizers import Tokenizer as _HfTokenizer

        try:
            raw = read_regular_file(files.tokenizer_json, MAX_TOKENIZER_BYTES)
        except UnsafeFileError as exc:
            raise DatasetFileError("dataset.bad_tokenizer", files.tokenizer_json.name,
                                   problem=str(exc).split(": ", 1)[-1]) from None
        except OSError as exc:
            raise DatasetFileError("dataset.bad_tokenizer", files.tokenizer_json.name,
                                   problem=describe_os_error(exc)) from None
        try:
            self._tok = _HfTokenizer.from_str(raw.decode("utf-8"))
        except Exception as exc:  # the binding raises plain Exception on a malformed file
            problem = " ".join(str(exc).split())[:200] or type(exc).__name__
            raise DatasetFileError("dataset.bad_tokenizer", files.tokenizer_json.name, problem=problem) from None
        self._tok.no_truncation()  # a saved truncation or padding setting would cap or pad every count
        self._tok.no_padding()
        self.label = files.label
        config: dict[str, Any] = {}
        if files.config is not None:
            loaded = _read_json_file(files.config, MAX_TOKENIZER_CONFIG_BYTES)
            config = loaded if isinstance(loaded, dict) else {}
        self.special = {k: _token_text(config.get(k)) for k in ("bos_token", "eos_token", "pad_token", "unk_token")}
        eos = self.special["eos_token"]
        self.eos_id: int | None = self._tok.token_to_id(eos) if eos else None
        template = self._template_text(config, files.template)
        self._render: Callable[[list[dict[str, str]]], str] | None = None
        self.template_note: Note | None = None
        if template is None:
            self.template_note = Note(code="dataset.no_chat_template")
        else:
            self._render, self.template_note = self._compile(template)

    @staticmethod
    def _template_text(config: dict[str, Any], template_file: Path | None) -> str | None:
        value = config.get("chat_template")
        if isinstance(value, list):  # named templates: the default one
            named = {t.get("name"): t.get("template") for t in value if isinstance(t, dict)}
            value = named.get("default") or next((v for v in named.values() if isinstance(v, str)), None)
        if isinstance(value, str) and value.strip():
            return value
        if template_file is not None:
            try:
                return read_regular_file(template_file, MAX_TOKENIZER_CONFIG_BYTES).decode("utf-8")
            except (OSError, ValueError, UnicodeDecodeError) as exc:
                log.info("cannot read %s: %s", template_file, exc)
        return None

    def _compile(self, template: str) -> tuple[Callable[[list[dict[str, str]]], str] | None, Note | None]:
        """The template rendered the way ``transformers`` renders chat templates, in jinja2's immutable sandbox
        (no attribute access to Python internals, no mutation of the messages); None and a note without jinja2."""
        try:
            import jinja2
            from jinja2.ext import loopcontrols
            from jinja2.sandbox import ImmutableSandboxedEnvironment
        except ImportError:
            return None, Note(code="dataset.no_jinja2")

        def raise_exception(message: str) -> None:
            raise jinja2.exceptions.TemplateError(message)

        def tojson(x: Any, ensure_ascii: bool = False, indent: Any = None, separators: Any = None,
                   sort_keys: bool = False) -> str:
            return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
        env.filters["tojson"] = tojson
        env.globals["raise_exception"] = raise_exception
        env.globals["strftime_now"] = lambda fmt: time.strftime(str(fmt))
        try:
            compiled = env.from_string(template)
        except jinja2.exceptions.TemplateError as exc:
            problem = " ".join(str(exc).split())[:200]
            return None, Note(code="dataset.bad_chat_template", params={"problem": problem})
        special = {k: v for k, v in self.special.items() if v is not None}

        def render(messages: list[dict[str, str]]) -> str:
            return compiled.render(messages=messages, add_generation_prompt=False, tools=None, **special)

        return render, None

    @property
    def chat_template(self) -> bool:
        """True when messages are rendered through the model's chat template."""
        return self._render is not None

    def render(self, messages: list[dict[str, str]]) -> str:
        """The chat template applied to ``messages``.

        Raises:
            ValueError: no template, or the template refused the conversation (``raise_exception``).
        """
        if self._render is None:
            raise ValueError("no chat template")
        try:
            return self._render(messages)
        except Exception as exc:  # jinja2's TemplateError, or a template's own error on odd data
            raise ValueError(f"the chat template refused it ({' '.join(str(exc).split())[:120]})") from None

    def count_texts(self, texts: list[str]) -> list[int]:
        """Tokens of each text with the tokenizer's special tokens, plus EOS when it does not end with it."""
        out = []
        for enc in self._tok.encode_batch(texts, add_special_tokens=True):
            ids = enc.ids
            out.append(len(ids) + (1 if self.eos_id is not None and (not ids or ids[-1] != self.eos_id) else 0))
        return out

    def count_plain(self, texts: list[str]) -> list[int]:
        """Tokens of each text without added special tokens (a rendered chat, a role or a message's content)."""
        return [len(enc.ids) for enc in self._tok.encode_batch(texts, add_special_tokens=False)]


def load_tokenizer(ref: str | Path | TokenizerFiles, cache_dir: str | Path | None = None) -> Tokenizer:
    """:func:`find_tokenizer` and load it.

    Raises:
        DatasetFileError: not found, unreadable or not a tokenizer.
    """
    files = ref if isinstance(ref, TokenizerFiles) else find_tokenizer(ref, cache_dir)
    return Tokenizer(files)


# ---------------------------------------------------------------------------------------------- reading rows

class _Broken:
    """A row that cannot be used, and why (English: a parameter of the broken-rows note)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


_Row = tuple[int, Any]  # (line or row number, a record or _Broken)


def detect_format(path: str | Path) -> str:
    """The format of ``path`` by its name, and by its first bytes where the name says little.

    Raises:
        DatasetFileError: missing, not a regular file or folder, or of no format read here.
    """
    p = Path(path).expanduser()
    name = p.name
    if p.is_dir():
        if (p / "state.json").is_file() or (p / "dataset_dict.json").is_file():
            return "hf-folder"
        raise DatasetFileError("dataset.not_dataset_folder", name)
    if not p.exists():
        raise DatasetFileError("dataset.missing", name)
    suffix = p.suffix.lower()
    if suffix in {".jsonl", ".ndjson"}:
        return "jsonl"
    if suffix == ".json":
        return "json"
    if suffix in {".csv", ".tsv"}:
        return suffix[1:]
    if suffix in {".parquet", ".pq"}:
        return "parquet"
    if suffix == ".arrow":
        return "arrow"
    head = _head(p)
    if head.startswith(b"PAR1"):
        return "parquet"
    if head.lstrip()[:1] in {b"{", b"["}:
        return "json"
    raise DatasetFileError("dataset.unknown_format", name)


def _head(path: Path) -> bytes:
    try:
        with open_regular_file(path, MAX_DATASET_BYTES) as fh:
            return fh.read(_SNIFF_BYTES)
    except UnsafeFileError as exc:
        raise _unsafe(path, exc) from None
    except OSError as exc:
        raise DatasetFileError("dataset.unreadable", path.name, reason=describe_os_error(exc)) from None


def _unsafe(path: Path, exc: UnsafeFileError) -> DatasetFileError:
    if exc.reason == "not-regular":
        return DatasetFileError("dataset.not_regular", path.name)
    return DatasetFileError("dataset.too_large", path.name, size=exc.size or 0, limit=exc.limit)


class _Progress:
    """Reports ``progress(fraction)`` at most every 50 ms and raises :class:`CountCancelled` once ``cancel`` is set."""

    def __init__(self, progress: Callable[[float, int], None] | None, cancel: threading.Event | None) -> None:
        self.progress, self.cancel = progress, cancel
        self.fraction = 0.0
        self._last = 0.0

    def tick(self, rows: int) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise CountCancelled()
        now = time.monotonic()
        if self.progress is not None and now - self._last >= 0.05:
            self._last = now
            self.progress(min(self.fraction, 1.0), rows)


def _open_stream(path: Path) -> Any:
    try:
        fh = open_regular_file(path, MAX_DATASET_BYTES)
    except UnsafeFileError as exc:
        raise _unsafe(path, exc) from None
    except OSError as exc:
        raise DatasetFileError("dataset.unreadable", path.name, reason=describe_os_error(exc)) from None
    return fh


def _check_text(path: Path, head: bytes) -> None:
    if b"\x00" in head:
        raise DatasetFileError("dataset.binary", path.name)


def _lines(fh: Any, size: int, ticker: _Progress) -> Iterator[tuple[int, bytes | None]]:
    """``(line number, bytes)`` of each line, ``None`` for one longer than :data:`MAX_LINE_BYTES` (skipped unread)."""
    number, done = 0, 0
    while True:
        line = fh.readline(MAX_LINE_BYTES + 1)
        if not line:
            return
        number += 1
        done += len(line)
        if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
            while True:  # the rest of the line, in chunks, never held whole
                chunk = fh.readline(1 << 20)
                done += len(chunk)
                if not chunk or chunk.endswith(b"\n"):
                    break
            ticker.fraction = done / size if size else 1.0
            yield number, None
            continue
        ticker.fraction = done / size if size else 1.0
        yield number, line


def _parse_line(line: bytes) -> Any:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return _Broken("not UTF-8 text")
    try:
        return json.loads(text)
    except RecursionError:
        return _Broken("nested too deeply")
    except ValueError as exc:  # JSONDecodeError, an integer too long
        return _Broken(f"not valid JSON ({str(exc).splitlines()[0][:80]})")


def _jsonl_rows(path: Path, ticker: _Progress) -> Iterator[_Row]:
    size = path.stat().st_size
    with _open_stream(path) as fh:
        head = fh.read(_SNIFF_BYTES)
        _check_text(path, head)
        fh.seek(0)
        if head.startswith(codecs.BOM_UTF8):
            fh.seek(len(codecs.BOM_UTF8))
        for number, line in _lines(fh, size, ticker):
            if line is None:
                yield number, _Broken(f"longer than {MAX_LINE_BYTES // 2**20} MiB")
            elif line.strip():
                yield number, _parse_line(line)


def _json_rows(path: Path, ticker: _Progress) -> Iterator[_Row]:
    """A ``.json`` file: a list of records, an object holding one list of records, or JSONL named ``.json``."""
    head = _head(path)
    _check_text(path, head)
    first = head.lstrip(codecs.BOM_UTF8 + b" \t\r\n")[:1]
    if first == b"{":
        line = head.split(b"\n", 1)
        if len(line) > 1 and isinstance(_parse_line(line[0]), dict) and line[1].strip():
            yield from _jsonl_rows(path, ticker)  # one object per line under a .json name (HF's to_json does this)
            return
    try:
        raw = read_regular_file(path, MAX_JSON_BYTES)
    except UnsafeFileError as exc:
        if exc.reason == "too-large":
            raise DatasetFileError("dataset.json_too_large", path.name, size=exc.size or 0, limit=exc.limit) from None
        raise _unsafe(path, exc) from None
    except OSError as exc:
        raise DatasetFileError("dataset.unreadable", path.name, reason=describe_os_error(exc)) from None
    try:
        data = loads_untrusted_json(raw)
    except ValueError as exc:
        raise DatasetFileError("dataset.bad_json", path.name, problem=str(exc)) from None
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list)]
        data = data.get("train") if isinstance(data.get("train"), list) else lists[0] if len(lists) == 1 else None
    if not isinstance(data, list):
        raise DatasetFileError("dataset.bad_json", path.name, problem="neither a list nor an object holding one list")
    n = len(data)
    for i, record in enumerate(data, 1):
        ticker.fraction = i / n
        yield i, record


def _csv_rows(path: Path, ticker: _Progress, delimiter: str) -> Iterator[_Row]:
    size = path.stat().st_size
    long_lines: list[int] = []

    def decoded(fh: Any) -> Iterator[str]:
        for number, line in _lines(fh, size, ticker):
            if line is None:
                long_lines.append(number)
                continue
            yield line.decode("utf-8", errors="replace")

    csv.field_size_limit(max(csv.field_size_limit(), MAX_LINE_BYTES))  # a long text cell is data, not an attack
    with _open_stream(path) as fh:
        head = fh.read(_SNIFF_BYTES)
        _check_text(path, head)
        fh.seek(len(codecs.BOM_UTF8) if head.startswith(codecs.BOM_UTF8) else 0)
        reader = csv.reader(decoded(fh), delimiter=delimiter)
        try:
            header = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise DatasetFileError("dataset.bad_file", path.name, format="TSV" if delimiter == "\t" else "CSV",
                                   problem=str(exc)) from None
        names = [h.strip() for h in header]
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                break
            except csv.Error as exc:
                yield reader.line_num, _Broken(str(exc)[:120])
                continue
            while long_lines:
                yield long_lines.pop(0), _Broken(f"longer than {MAX_LINE_BYTES // 2**20} MiB")
            if not any(c.strip() for c in cells):
                continue
            if len(cells) != len(names):
                yield reader.line_num, _Broken(f"{len(cells)} cells for {len(names)} columns")
                continue
            yield reader.line_num, dict(zip(names, cells, strict=True))
        while long_lines:
            yield long_lines.pop(0), _Broken(f"longer than {MAX_LINE_BYTES // 2**20} MiB")


def _pyarrow(fmt: str, name: str) -> Any:
    try:
        import pyarrow
        import pyarrow.ipc
        import pyarrow.parquet
    except ImportError:
        raise DatasetFileError("dataset.needs_pyarrow", name, format=FORMAT_NAMES[fmt]) from None
    return pyarrow


def _batches_rows(batches: Iterator[Any], total: int, ticker: _Progress) -> Iterator[_Row]:
    n = 0
    for batch in batches:
        for record in batch.to_pylist():
            n += 1
            ticker.fraction = n / total if total else 1.0
            yield n, record


def _parquet_rows(path: Path, ticker: _Progress) -> Iterator[_Row]:
    pa = _pyarrow("parquet", path.name)
    with _open_stream(path) as fh:
        try:
            pf = pa.parquet.ParquetFile(fh)
            batches = pf.iter_batches(batch_size=1024)
            total = pf.metadata.num_rows
            yield from _batches_rows(batches, total, ticker)
        except (pa.ArrowException, OSError, ValueError) as exc:
            raise DatasetFileError("dataset.bad_file", path.name, format="Parquet",
                                   problem=" ".join(str(exc).split())[:200]) from None


def _arrow_files(folder: Path) -> list[Path]:
    """The Arrow files of a ``save_to_disk`` folder (a ``DatasetDict``: its ``train`` split, else the first)."""
    if (folder / "dataset_dict.json").is_file():
        meta = _read_meta(folder / "dataset_dict.json")
        splits = [s for s in meta.get("splits", []) if isinstance(s, str)] if isinstance(meta, dict) else []
        split = "train" if "train" in splits else (splits[0] if splits else "")
        if not split or "/" in split or split.startswith(".") or not (folder / split).is_dir():
            raise DatasetFileError("dataset.not_dataset_folder", folder.name)
        folder = folder / split
    state = _read_meta(folder / "state.json")
    names = [f.get("filename") for f in state.get("_data_files", []) if isinstance(f, dict)] \
        if isinstance(state, dict) else []
    files = [folder / n for n in names if isinstance(n, str) and "/" not in n and "\\" not in n and n.endswith(".arrow")]
    if not files:
        raise DatasetFileError("dataset.not_dataset_folder", folder.name)
    return files


def _read_meta(path: Path) -> Any:
    try:
        return loads_untrusted_json(read_regular_file(path, 1 << 20))
    except (OSError, ValueError):
        raise DatasetFileError("dataset.not_dataset_folder", path.parent.name) from None


def _arrow_rows(files: list[Path], name: str, ticker: _Progress) -> Iterator[_Row]:
    """Rows of Arrow IPC files (``datasets`` writes the streaming format; the file format is read too), batch by
    batch; progress by bytes."""
    pa = _pyarrow("hf-folder" if len(files) > 1 or files[0].name != name else "arrow", name)
    sizes = [f.stat().st_size for f in files]
    whole, before, n = sum(sizes) or 1, 0, 0
    try:
        for f, size in zip(files, sizes, strict=True):
            with _open_stream(f) as fh:
                try:
                    batches: Any = pa.ipc.open_stream(fh)
                except pa.ArrowInvalid:
                    fh.seek(0)
                    reader = pa.ipc.open_file(fh)
                    batches = (reader.get_batch(i) for i in range(reader.num_record_batches))
                for batch in batches:
                    ticker.fraction = (before + fh.tell()) / whole
                    for record in batch.to_pylist():
                        n += 1
                        yield n, record
            before += size
    except (pa.ArrowException, ValueError) as exc:
        raise DatasetFileError("dataset.bad_file", name, format="Arrow",
                               problem=" ".join(str(exc).split())[:200]) from None


def _text_size(value: Any, budget: int) -> int:
    """Characters of text in a record (strings and bytes, nested lists and dicts), counting stops past ``budget``."""
    if isinstance(value, str | bytes):
        return len(value)
    total = 0
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list | tuple) else ()
    for item in items:
        total += _text_size(item, budget - total)
        if total > budget:
            break
    return total


def _bounded(rows: Iterator[_Row]) -> Iterator[_Row]:
    """The rows of a JSON array, Parquet or Arrow file with the per-record limit a JSONL line has: a record holding
    more than :data:`MAX_LINE_BYTES` of text is a broken row, never handed to the tokenizer."""
    for number, record in rows:
        if not isinstance(record, _Broken) and _text_size(record, MAX_LINE_BYTES) > MAX_LINE_BYTES:
            yield number, _Broken(f"longer than {MAX_LINE_BYTES // 2**20} MiB")
        else:
            yield number, record


def _rows(path: Path, fmt: str, ticker: _Progress) -> Iterator[_Row]:
    return _bounded(_format_rows(path, fmt, ticker))


def _format_rows(path: Path, fmt: str, ticker: _Progress) -> Iterator[_Row]:
    if fmt == "jsonl":
        return _jsonl_rows(path, ticker)
    if fmt == "json":
        return _json_rows(path, ticker)
    if fmt in {"csv", "tsv"}:
        return _csv_rows(path, ticker, "\t" if fmt == "tsv" else ",")
    if fmt == "parquet":
        return _parquet_rows(path, ticker)
    if fmt == "arrow":
        return _arrow_rows([path], path.name, ticker)
    return _arrow_rows(_arrow_files(path), path.name, ticker)


# ---------------------------------------------------------------------------------------------- fields

#: An example: ``("text", str)`` or ``("messages", [{"role", "content"}, ...])``.
_Example = tuple[str, Any]


def detect_field(record: dict[str, Any]) -> tuple[str, str]:
    """``(kind, column)`` for a row: chat messages first, then prompt/completion, instruction/output, text.

    Raises:
        KeyError: none of them.
    """
    if "chosen" in record and "rejected" in record:
        return "preference", "chosen"
    for column in ("messages", "conversations", "conversation", "chat"):
        if isinstance(record.get(column), list):
            return "messages", column
    if "prompt" in record and "completion" in record:
        return "prompt-completion", "prompt"
    if "instruction" in record and "output" in record:
        return "instruction-output", "instruction"
    for column in ("text", "content", "document"):
        if isinstance(record.get(column), str):
            return "text", column
    raise KeyError("no field")


def _columns(record: Any) -> str:
    if not isinstance(record, dict):
        return "(not an object)"
    names = [str(k)[:40] for k in list(record)[:12]]
    return ", ".join(names) + (", …" if len(record) > 12 else "") if names else "(nothing)"


def _content(value: Any) -> str | None:
    """A message's content: a string, or the text parts of a list of parts (``[{"type": "text", "text": ...}]``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        parts = [p.get("text") for p in value if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    if value is None:
        return ""
    return None


def _messages(value: Any) -> list[dict[str, str]] | str:
    """Chat messages as ``[{"role", "content"}]`` (ShareGPT's ``from``/``value`` mapped), or why not."""
    if not isinstance(value, list) or not value:
        return "no messages"
    out = []
    for m in value:
        if not isinstance(m, dict):
            return "a message is not an object"
        role = m.get("role", m.get("from"))
        content = _content(m.get("content", m.get("value")))
        if not isinstance(role, str) or content is None:
            return "a message without role or content"
        out.append({"role": _ROLE_NAMES.get(role, role), "content": content})
    return out


def _text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return None


def _pair_side(prompt: Any, side: Any) -> _Example | _Broken:
    """One row of a preference pair: the prompt and one completion (text, or messages: TRL's conversational
    preference format, with a conversational or a plain-text prompt)."""
    if isinstance(side, list):
        lead = prompt if isinstance(prompt, list) else (
            [{"role": "user", "content": prompt}] if isinstance(prompt, str) and prompt else [])
        msgs = _messages(lead + side)
        return _Broken(msgs) if isinstance(msgs, str) else ("messages", msgs)
    p, c = (_text(prompt) if prompt is not None else ""), _text(side)
    if p is None or c is None:
        return _Broken("no chosen or rejected text")
    return ("text", p + c)


def _example(record: Any, kind: str, column: str) -> _Example | _Broken:
    if not isinstance(record, dict):
        return _Broken("not an object")
    if kind == "preference":
        rows = [_pair_side(record.get("prompt"), record.get(key)) for key in ("chosen", "rejected")]
        bad = next((r for r in rows if isinstance(r, _Broken)), None)
        return bad if bad is not None else ("pair", tuple(rows))
    if kind == "messages":
        msgs = _messages(record.get(column))
        return _Broken(msgs) if isinstance(msgs, str) else ("messages", msgs)
    if kind == "prompt-completion":
        prompt, completion = record.get("prompt"), record.get("completion")
        if isinstance(prompt, list) and isinstance(completion, list):  # conversational prompt-completion (TRL)
            msgs = _messages(prompt + completion)
            return _Broken(msgs) if isinstance(msgs, str) else ("messages", msgs)
        p, c = _text(prompt), _text(completion)
        if p is None or c is None:
            return _Broken("no prompt or completion text")
        return ("text", p + c)
    if kind == "instruction-output":
        instruction, extra, output = _text(record.get("instruction")), _text(record.get("input") or ""), \
            _text(record.get("output"))
        if instruction is None or output is None:
            return _Broken("no instruction or output text")
        user = instruction + ("\n\n" + extra if extra else "")  # LLaMA-Factory's alpaca converter
        msgs = [{"role": "user", "content": user}, {"role": "assistant", "content": output}]
        system = _text(record.get("system"))
        if system:
            msgs.insert(0, {"role": "system", "content": system})
        return ("messages", msgs)
    value = record.get(column)
    if isinstance(value, list):
        msgs = _messages(value)
        return _Broken(msgs) if isinstance(msgs, str) else ("messages", msgs)
    text = _text(value)
    if text is None or not text:
        return _Broken(f"no text in {column!r}"[:80])
    return ("text", text)


def _resolve_field(field: str, record: dict[str, Any], name: str) -> tuple[str, str]:
    """``(kind, column)`` for the chosen ``field`` (a kind, ``auto``, or a column name) given the first row."""
    if field in {"", "auto"}:
        try:
            return detect_field(record)
        except KeyError:
            raise DatasetFileError("dataset.no_field", name, columns=_columns(record)) from None
    if field == "messages":
        try:
            kind, column = detect_field(record)
        except KeyError:
            kind, column = "", ""
        if kind != "messages":
            raise DatasetFileError("dataset.field_missing", name, field="messages", columns=_columns(record))
        return kind, column
    needs = {"prompt-completion": ("prompt", "completion"), "instruction-output": ("instruction", "output"),
             "preference": ("chosen", "rejected")}
    if field in needs:
        missing = [c for c in needs[field] if c not in record]
        if missing:
            raise DatasetFileError("dataset.field_missing", name, field=missing[0], columns=_columns(record))
        return field, needs[field][0]
    if field == "text":
        column = next((c for c in ("text", "content", "document") if c in record), "")
        if not column:
            raise DatasetFileError("dataset.field_missing", name, field="text", columns=_columns(record))
        return "text", column
    if field not in record:
        raise DatasetFileError("dataset.field_missing", name, field=field, columns=_columns(record))
    return "text", field


# ---------------------------------------------------------------------------------------------- counting

#: What one example is encoded as: ``("special", text)`` with special tokens (+ EOS), ``("plain", text)`` without
#: (a rendered chat), ``("parts", [role, content, ...])`` each without, summed (messages without a template).
_Encodable = tuple[str, Any]


def _encodable(example: _Example, tok: Tokenizer) -> _Encodable | _Broken:
    kind, value = example
    if kind == "pair":  # both rows, counted as the longer one (see :func:`_count`)
        rows = [_encodable(row, tok) for row in value]
        bad = next((r for r in rows if isinstance(r, _Broken)), None)
        return bad if bad is not None else ("pair", rows)
    if kind == "text":
        return ("special", value)
    if tok.chat_template:
        try:
            return ("plain", tok.render(value))
        except ValueError as exc:
            return _Broken(str(exc))
    return ("parts", [t for m in value for t in (m["role"], m["content"])])


def _count(items: list[_Encodable], tok: Tokenizer) -> list[int]:
    """Tokens of each item, the texts of a kind encoded in one batch; a preference pair counts as its longer row
    (TRL's preference collators pad chosen and rejected to one length, so each row of the pair is computed at it)."""
    flat: list[_Encodable] = []
    owners: list[int] = []
    for i, item in enumerate(items):
        for row in (item[1] if item[0] == "pair" else [item]):
            flat.append(row)
            owners.append(i)
    out = [0] * len(items)
    for i, n in zip(owners, _count_flat(flat, tok), strict=True):
        out[i] = max(out[i], n)
    return out


def _count_flat(items: list[_Encodable], tok: Tokenizer) -> list[int]:
    """Tokens of each item (no pairs), the texts of a kind encoded in one batch."""
    out = [0] * len(items)
    for kind, counter in (("special", tok.count_texts), ("plain", tok.count_plain), ("parts", tok.count_plain)):
        owners: list[int] = []
        texts: list[str] = []
        for i, (k, value) in enumerate(items):
            if k == kind:
                pieces = value if kind == "parts" else [value]
                owners.extend([i] * len(pieces))
                texts.extend(pieces)
        if texts:
            for i, n in zip(owners, counter(texts), strict=True):
                out[i] += n
    return out


def count_dataset(path: str | Path, tokenizer: Tokenizer | str | Path | TokenizerFiles, *, field: str = "auto",
                  sample_rows: int = DEFAULT_SAMPLE_ROWS, progress: Callable[[float, int], None] | None = None,
                  cancel: threading.Event | None = None) -> DatasetCount:
    """Read ``path`` once and count the tokens of its rows (all of them, or a uniform sample of ``sample_rows``).

    A row the chat template refuses is found only when it is counted, so among sampled rows; it is then broken
    and the sample keeps the row it held before.

    Args:
        path: a JSONL, JSON, CSV, TSV or Parquet file, or a ``save_to_disk`` folder.
        tokenizer: a loaded :class:`Tokenizer`, or what :func:`find_tokenizer` takes.
        field: a :data:`FIELD_KINDS` entry or a column name.
        sample_rows: usable rows counted at most (1 or more); beyond it a reservoir sample with a fixed seed.
        progress: ``progress(fraction read, rows read)``, called from this thread at most every 50 ms.
        cancel: set it (from any thread) to stop; this then raises :class:`CountCancelled`.

    Raises:
        DatasetFileError: the file, its rows, its field or the tokenizer cannot be used (one line).
        CountCancelled: ``cancel`` was set.
    """
    p = Path(path).expanduser()
    name = p.name or str(p)
    fmt = detect_format(p)
    tok = tokenizer if isinstance(tokenizer, Tokenizer) else load_tokenizer(tokenizer)
    cap = max(1, int(sample_rows))
    rng = random.Random(SAMPLE_SEED)
    ticker = _Progress(progress, cancel)
    unit = "line" if fmt in {"jsonl", "csv", "tsv"} else "row"
    counts: list[int] = []  # the reservoir: tokens of each sampled row
    pending: list[tuple[int, _Encodable]] = []  # (reservoir slot, what to encode), appends before replacements
    total = usable = broken = 0
    first_broken: tuple[int, str] | None = None
    kind = column = ""
    saw_messages = False

    def flush() -> None:
        for (slot, _item), n in zip(pending, _count([item for _slot, item in pending], tok), strict=True):
            if slot == len(counts):
                counts.append(n)
            else:
                counts[slot] = n
        pending.clear()

    try:
        for row, record in _rows(p, fmt, ticker):
            total += 1
            if total % 256 == 0:
                ticker.tick(total)
            if not kind and isinstance(record, dict):
                kind, column = _resolve_field(field, record, name)
            if isinstance(record, _Broken):
                example: Any = record
            elif not isinstance(record, dict):
                example = _Broken("not an object")
            else:
                example = _example(record, kind, column)
            item: Any = example
            slot = -1
            if not isinstance(example, _Broken):
                filled = len(counts) + len(pending)
                slot = filled if filled < cap else rng.randrange(usable + 1)
                if slot < cap:
                    item = _encodable(example, tok)
                    saw_messages = saw_messages or example[0] == "messages" or (
                        example[0] == "pair" and any(r[0] == "messages" for r in example[1]))
            if isinstance(item, _Broken):
                broken += 1
                if first_broken is None:
                    first_broken = (row, item.reason)
                continue
            usable += 1
            if slot < cap:
                pending.append((slot, item))
                if len(pending) >= _ENCODE_BATCH:
                    ticker.tick(total)
                    flush()
        ticker.tick(total)
        flush()
    except MemoryError:
        raise DatasetFileError("dataset.unreadable", name, reason="out of memory") from None
    except OSError as exc:
        raise DatasetFileError("dataset.unreadable", name, reason=describe_os_error(exc)) from None
    if total == 0:
        raise DatasetFileError("dataset.empty", name)
    if not counts:
        row, reason = first_broken or (0, "")
        raise DatasetFileError("dataset.all_broken", name, total=total, unit=unit, row=row, reason=reason)
    notes: list[Note] = []
    if broken and first_broken is not None:
        notes.append(Note(code="dataset.broken", params={"broken": broken, "total": total, "unit": unit,
                                                          "row": first_broken[0], "reason": first_broken[1]}))
    if saw_messages and tok.template_note is not None:
        notes.append(tok.template_note)
    if progress is not None:
        progress(1.0, total)
    log.info("counted %s (%s, %s): %d usable of %d rows, %d counted, %d broken", p, fmt, kind, usable, total,
             len(counts), broken)
    return DatasetCount(file=name, format=fmt, field=kind, column=column, rows=usable, total=total,
                        counted=len(counts), broken=broken, counts=tuple(counts), tokenizer=tok.label,
                        chat_template=tok.chat_template and saw_messages, notes=tuple(notes))
