"""Models by their Hugging Face id, and models already in the local Hugging Face cache.

Only what a plan needs is read: ``config.json`` (``huggingface_hub.hf_hub_download``, which keeps it in the HF
cache) and the safetensors headers (``huggingface_hub.get_safetensors_metadata``: HTTP range requests for each
file's first bytes; no weights are downloaded). Nothing from a repository is ever run: there is no
``trust_remote_code`` here, and a config whose model type Tuneplan cannot read is refused with the import's
"unsupported model" message, naming the type.

The user's token is the standard one (``HF_TOKEN``, or the login ``hf auth login`` stored); ``HF_ENDPOINT``,
``HF_HOME`` and ``HF_HUB_CACHE`` are read at call time. Every failure is a :class:`HubError` whose text is one
sentence for the user. No Qt: the GUI calls :func:`resolve_model` from a worker thread.
"""

from __future__ import annotations

import json
import logging
import os
import re
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from tuneplan.catalog.models import ConfigImportError, architecture_from_config, read_hf_config
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.checkpoint import CheckpointWeights, checkpoint_from_tensors
from tuneplan.storage._fs import loads_untrusted_json, read_regular_file

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "MAX_HEADER_BYTES",
    "CachedModel",
    "HubError",
    "HubModel",
    "ModelRef",
    "cached_models",
    "hub_cache_dir",
    "hub_endpoint",
    "load_snapshot",
    "looks_like_hub_id",
    "parse_model_ref",
    "read_safetensors_header",
    "resolve_model",
]

log = logging.getLogger(__name__)

#: Seconds each request to the Hub may wait for an answer.
DEFAULT_TIMEOUT_S = 10.0
#: The largest safetensors header read from a local file (the format allows 100 MB; real ones are < 1 MB).
MAX_HEADER_BYTES = 100_000_000

_REPO_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")
_HUB_HOSTS = {"huggingface.co", "www.huggingface.co", "hf.co"}


class HubError(ValueError):
    """A model that could not be read from the Hub or the cache; ``str(err)`` is one sentence for the user.

    Attributes:
        kind: ``auth`` (401/403, gated), ``not-found`` (404: repository, revision or config.json),
            ``offline`` (no connection or a timeout), ``unsupported`` (a config Tuneplan cannot plan), ``other``.
    """

    def __init__(self, message: str, kind: str = "other") -> None:
        super().__init__(" ".join(message.split()))
        self.kind = kind


@dataclass(frozen=True)
class ModelRef:
    """A Hugging Face model repository and an optional revision (branch, tag or commit)."""

    repo_id: str
    revision: str | None = None

    def __str__(self) -> str:
        return f"{self.repo_id}@{self.revision}" if self.revision else self.repo_id


@dataclass(frozen=True)
class HubModel:
    """A model read from the Hub or the HF cache.

    Attributes:
        ref: what was asked for.
        commit: the commit the files came from (the snapshot's hash), if known.
        architecture: the converted architecture, named by the repository id, with the checkpoint's counts when
            its safetensors headers could be read.
        origin: ``cache`` (read offline from the HF cache) or ``hub``.
        notes: sentences for the user about what could not be read (the plan still works).
    """

    ref: ModelRef
    commit: str | None
    architecture: ModelArchitecture
    origin: Literal["cache", "hub"]
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class CachedModel:
    """A model repository in the local HF cache with a snapshot that holds ``config.json``.

    Attributes:
        repo_id: ``org/name``.
        commit: the snapshot's commit hash (the newest one that has a config).
        refs: branch/tag names pointing at it (``main``...).
        snapshot: the snapshot folder.
        size_on_disk: bytes the whole repository takes in the cache.
        has_weights: the snapshot holds safetensors files (exact counts offline).
    """

    repo_id: str
    commit: str
    refs: tuple[str, ...]
    snapshot: Path
    size_on_disk: int
    has_weights: bool


def looks_like_hub_id(text: str) -> bool:
    """True when ``text`` reads as a Hub model (``org/name``, ``org/name@rev`` or a Hub URL), not a file path."""
    return parse_model_ref(text) is not None


def parse_model_ref(text: str) -> ModelRef | None:
    """``org/name``, ``org/name@revision`` or ``https://huggingface.co/org/name[/tree/<rev>][/...]`` as a
    :class:`ModelRef`; ``None`` for anything else (a path to an existing file or folder is never a ref)."""
    text = (text or "").strip()
    if not text or len(text) > 500:
        return None
    if "://" in text:
        parts = urlsplit(text)
        endpoint_host = urlsplit(hub_endpoint()).netloc.lower()
        if parts.scheme not in {"http", "https"} or parts.netloc.lower() not in _HUB_HOSTS | {endpoint_host}:
            return None
        segments = [unquote(s) for s in parts.path.split("/") if s]
        if segments and segments[0] == "models":
            segments = segments[1:]
        if len(segments) < 2 or segments[0] in {"datasets", "spaces", "api", "docs"}:
            return None
        revision = None
        if len(segments) >= 4 and segments[2] in {"tree", "blob", "resolve"}:
            revision = segments[3]
        return _ref(f"{segments[0]}/{segments[1]}", revision)
    if text.startswith(("/", "~", ".", "\\")) or "\\" in text or Path(text).expanduser().exists():
        return None
    repo, at, revision = text.partition("@")
    if at and not revision:
        return None  # "org/name@": a revision was meant but not given
    return _ref(repo, revision or None)


def _ref(repo: str, revision: str | None) -> ModelRef | None:
    if not _REPO_ID.match(repo) or ".." in repo or repo.endswith((".git", ".json")):
        return None
    if revision is not None and (not revision.strip() or len(revision) > 200 or any(c.isspace() for c in revision)):
        return None
    return ModelRef(repo, revision)


def hub_endpoint() -> str:
    """The Hub's address: ``HF_ENDPOINT`` if set, else ``https://huggingface.co`` (no trailing slash)."""
    return (os.environ.get("HF_ENDPOINT") or "https://huggingface.co").strip().rstrip("/")


def hub_cache_dir() -> Path:
    """The HF hub cache: ``HF_HUB_CACHE``, else ``HF_HOME/hub``, else ``~/.cache/huggingface/hub``
    (``XDG_CACHE_HOME`` respected), as huggingface_hub resolves it."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.path.expandvars(os.environ["HF_HUB_CACHE"])).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.path.expandvars(os.environ["HF_HOME"])).expanduser() / "hub"
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join("~", ".cache")
    return Path(xdg).expanduser() / "huggingface" / "hub"


# ---------------------------------------------------------------------------------------------- local files

def read_safetensors_header(path: str | Path) -> list[tuple[str, str, list[int]]]:
    """The tensor table of a local ``.safetensors`` file: ``(name, dtype, shape)`` of each tensor.

    Reads only the header: an 8-byte little-endian length, then that many bytes of JSON (the safetensors format).

    Raises:
        ValueError: not a safetensors file (short, a header over 100 MB, not a JSON object, bad entries).
        OSError: from the file system.
    """
    p = Path(path)
    with p.open("rb") as fh:
        head = fh.read(8)
        if len(head) < 8:
            raise ValueError(f"{p.name} is not a safetensors file (shorter than 8 bytes)")
        (size,) = struct.unpack("<Q", head)
        if size > MAX_HEADER_BYTES:
            raise ValueError(f"{p.name} is not a safetensors file (a {size}-byte header)")
        raw = fh.read(size)
    if len(raw) < size:
        raise ValueError(f"{p.name} is not a safetensors file (the header is cut short)")
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ValueError(f"{p.name} is not a safetensors file (its header is not JSON)") from None
    if not isinstance(header, dict):
        raise ValueError(f"{p.name} is not a safetensors file (its header is not an object)")
    table = []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict) or not isinstance(info.get("dtype"), str) or not isinstance(info.get("shape"), list) \
                or not all(isinstance(d, int) and not isinstance(d, bool) for d in info["shape"]):
            raise ValueError(f"{p.name}: tensor {name!r} has no dtype and shape")
        table.append((str(name), info["dtype"], list(info["shape"])))
    return table


#: The largest ``model.safetensors.index.json`` read (bytes): a 405B model's index is ~100 KB.
MAX_INDEX_BYTES = 16 * 2**20


def _local_tensors(folder: Path) -> list[tuple[str, str, list[int]]] | None:
    """Every tensor of the safetensors files in a model folder (the index's shards, else every file); None if none."""
    index = folder / "model.safetensors.index.json"
    files: list[Path] = []
    if index.is_file():
        try:
            data = loads_untrusted_json(read_regular_file(index, MAX_INDEX_BYTES))
            weight_map = data.get("weight_map", {}) if isinstance(data, dict) else {}
            names = sorted({v for v in weight_map.values() if isinstance(v, str)}) if isinstance(weight_map, dict) \
                else []
            # shards of this snapshot only: a name with a folder part, ".." or an absolute path is not followed
            files = [folder / name for name in names if name and Path(name).name == name and name not in {".", ".."}]
        except (OSError, ValueError):
            files = []
    if not files:
        files = sorted(folder.glob("*.safetensors"))
    files = [f for f in files if f.is_file() and f.resolve().is_file()]  # a missing blob: not downloaded
    if not files:
        return None
    table: list[tuple[str, str, list[int]]] = []
    for f in files:
        table.extend(read_safetensors_header(f))
    return table


#: Header and config counts further apart than this (ratio) are reported: a vision tower or extra heads in the
#: checkpoint, or a header that does not belong to the config.
COUNT_MISMATCH = 1.25


def _count_note(arch: ModelArchitecture) -> list[str]:
    """A note when the safetensors headers' parameter count and config.json's shapes disagree (empty otherwise)."""
    if arch.checkpoint is None:
        return []
    headers, shapes = arch.parameter_count(), arch.config_parameter_count()
    if headers <= 0 or shapes <= 0 or 1 / COUNT_MISMATCH <= headers / shapes <= COUNT_MISMATCH:
        return []
    return [f"the safetensors headers count {headers:,} parameters where config.json's shapes give {shapes:,}: the "
            "headers are used (a vision tower or extra heads in the checkpoint, or headers that are not this model's)"]


def _with_checkpoint(arch: ModelArchitecture, cfg: dict[str, Any], table: list[Any] | None,
                     source: str) -> ModelArchitecture:
    if not table:
        return arch
    ckpt = checkpoint_from_tensors(table, cfg, tie_word_embeddings=arch.tie_word_embeddings, source=source)
    return arch.model_copy(update={"checkpoint": ckpt})


def _architecture(cfg: dict[str, Any], name: str) -> ModelArchitecture:
    try:
        return architecture_from_config(cfg, name[:200], name)
    except ConfigImportError as exc:
        raise HubError(str(exc), "unsupported") from None


def load_snapshot(folder: str | Path, repo_id: str | None = None, commit: str | None = None,
                  known: CheckpointWeights | None = None) -> HubModel:
    """A model from a folder holding ``config.json`` and, if downloaded, safetensors files (an HF cache snapshot or
    a ``save_pretrained`` folder). Offline: reads only local files.

    Args:
        folder: the folder.
        repo_id: the repository it is a snapshot of (names the model; default: the folder's name).
        commit: the snapshot's commit.
        known: counts kept from an earlier fetch of the same commit, used when the folder has no weights.

    Raises:
        HubError: no readable ``config.json``, an unsupported model, or unreadable safetensors headers.
    """
    p = Path(folder)
    try:
        cfg = read_hf_config(p)
    except ConfigImportError as exc:
        raise HubError(str(exc), "not-found") from None
    name = repo_id or p.name
    arch = _architecture(cfg, name)
    try:
        table = _local_tensors(p)
    except (OSError, ValueError) as exc:
        raise HubError(f"cannot read the safetensors headers of {name}: {exc}") from None
    where = f"{repo_id}@{commit}" if repo_id and commit else str(p)
    notes: list[str] = []
    if table:
        arch = _with_checkpoint(arch, cfg, table, f"safetensors headers in the HF cache ({where})")
        notes += _count_note(arch)
    elif known is not None:
        arch = arch.model_copy(update={"checkpoint": known})
    else:
        notes.append(f"the cache holds no weights of {name}: the parameter count comes from config.json")
    arch = arch.model_copy(update={"source": f"Hugging Face cache: {where}"[:10_000]})
    return HubModel(ModelRef(name, commit), commit, arch, "cache", tuple(notes))


def cached_models(cache_dir: str | Path | None = None) -> list[CachedModel]:
    """The model repositories in the HF cache that have a snapshot with ``config.json``, newest first.

    ``huggingface_hub.scan_cache_dir`` on ``cache_dir`` (default :func:`hub_cache_dir`). Never raises: a missing or
    unreadable cache gives an empty list (logged).
    """
    from huggingface_hub import scan_cache_dir

    folder = Path(cache_dir) if cache_dir is not None else hub_cache_dir()
    if not folder.is_dir():
        return []
    try:
        info = scan_cache_dir(folder)
    except Exception as exc:  # CacheNotFound, OSError, a corrupt repo folder
        log.info("cannot scan the HF cache %s: %s", folder, exc)
        return []
    found: list[tuple[float, CachedModel]] = []
    for repo in info.repos:
        if repo.repo_type != "model":
            continue
        revisions = sorted(repo.revisions, key=lambda r: ("main" in r.refs, r.last_modified), reverse=True)
        for rev in revisions:
            if (rev.snapshot_path / "config.json").is_file():
                has_weights = any(f.file_name.endswith(".safetensors") for f in rev.files)
                found.append((repo.last_modified, CachedModel(repo.repo_id, rev.commit_hash, tuple(sorted(rev.refs)),
                                                              rev.snapshot_path, repo.size_on_disk, has_weights)))
                break
    return [m for _, m in sorted(found, key=lambda x: x[0], reverse=True)]


def _cached_snapshot(ref: ModelRef, cache_dir: Path) -> tuple[Path, str] | None:
    """The snapshot folder and commit of ``ref`` in the cache (revision: a ref name or a commit prefix)."""
    repo = cache_dir / ("models--" + ref.repo_id.replace("/", "--"))
    revision = ref.revision or "main"
    commit = None
    ref_file = repo / "refs" / revision
    try:
        if ref_file.is_file():
            commit = ref_file.read_text(encoding="utf-8").strip()
        elif re.fullmatch(r"[0-9a-f]{7,40}", revision) and (repo / "snapshots").is_dir():
            matches = [d.name for d in (repo / "snapshots").iterdir() if d.name.startswith(revision)]
            commit = matches[0] if len(matches) == 1 else None
    except OSError:
        return None
    if not commit or not re.fullmatch(r"[0-9a-f]{40}", commit):
        return None
    snap = repo / "snapshots" / commit
    return (snap, commit) if (snap / "config.json").is_file() else None


# ---------------------------------------------------------------------------------------------- the Hub

def _message(exc: BaseException, ref: ModelRef, what: str = "config.json") -> HubError:
    """One sentence for a huggingface_hub / network failure."""
    from huggingface_hub import errors

    status = getattr(getattr(exc, "response", None), "status_code", None)
    login = "log in with 'hf auth login' or set HF_TOKEN to a token that has access"
    if isinstance(exc, errors.GatedRepoError):
        return HubError(f"{ref.repo_id} is gated: accept its terms on the Hub, then {login}", "auth")
    if isinstance(exc, errors.RevisionNotFoundError):
        return HubError(f"{ref.repo_id} has no revision {ref.revision or 'main'!r}", "not-found")
    if isinstance(exc, errors.RemoteEntryNotFoundError):
        return HubError(f"{ref} has no {what} on the Hub", "not-found")
    if isinstance(exc, errors.RepositoryNotFoundError):
        if status == 401:
            return HubError(f"{ref.repo_id} was not found, or it is private or gated: check the id, or {login}",
                            "auth")
        return HubError(f"{ref.repo_id} was not found on the Hub", "not-found")
    if status in {401, 403}:
        return HubError(f"the Hub refused access to {ref.repo_id} ({status}): {login}", "auth")
    if status == 404:
        return HubError(f"{ref} was not found on the Hub", "not-found")
    if isinstance(exc, errors.OfflineModeIsEnabled):
        return HubError(f"HF_HUB_OFFLINE is set and {ref} is not in the local Hugging Face cache", "offline")
    if isinstance(exc, errors.LocalEntryNotFoundError) or _is_network_error(exc):
        timeout = "timed out" if _is_timeout(exc) else "could not be reached"
        return HubError(f"the Hugging Face Hub ({hub_endpoint()}) {timeout} and {ref} is not in the local cache",
                        "offline")
    if status is not None:
        return HubError(f"the Hub answered {status} for {ref}", "other")
    return HubError(f"cannot read {ref} from the Hub: {str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}")


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and cur not in seen and len(seen) < 10:
        seen.append(cur)
        cur = cur.__cause__ or cur.__context__
    return seen


def _is_timeout(exc: BaseException) -> bool:
    return any(isinstance(e, TimeoutError) or "timeout" in type(e).__name__.lower()
               or "timed out" in str(e).lower() for e in _chain(exc))


def _is_network_error(exc: BaseException) -> bool:
    names = {"ConnectError", "ConnectTimeout", "ReadTimeout", "TimeoutException", "RemoteProtocolError",
             "NetworkError", "ReadError", "WriteTimeout", "PoolTimeout"}
    return any(isinstance(e, (ConnectionError, TimeoutError)) or type(e).__name__ in names for e in _chain(exc))


def _note_ref(cache: Path, repo_id: str, name: str, commit: str) -> None:
    """Point ``refs/<name>`` at ``commit``, as hf_hub_download does for a branch (it was asked for the commit)."""
    refs = cache / ("models--" + repo_id.replace("/", "--")) / "refs"
    try:
        refs.mkdir(parents=True, exist_ok=True)
        (refs / name).write_text(commit, encoding="utf-8")
    except OSError as exc:
        log.info("cannot note %s's %s in the HF cache: %s", repo_id, name, exc)


def _remote_tensors(ref: ModelRef, commit: str | None, endpoint: str, timeout: float,
                    token: str | bool | None) -> list[tuple[str, str, list[int]]]:
    from huggingface_hub import HfApi

    api = HfApi(endpoint=endpoint, token=token)
    meta = api.get_safetensors_metadata(ref.repo_id, revision=commit or ref.revision, timeout=timeout)
    table: list[tuple[str, str, list[int]]] = []
    for file_meta in meta.files_metadata.values():
        for name, info in file_meta.tensors.items():
            table.append((name, info.dtype, list(info.shape)))
    return table


#: The whole fetch of a model (config.json and the safetensors headers, with huggingface_hub's own retries) may take
#: at most this many times the per-request timeout before the user is told the Hub did not answer.
OVERALL_TIMEOUT_FACTOR = 2.5


def resolve_model(ref: ModelRef | str, *, timeout: float = DEFAULT_TIMEOUT_S, token: str | bool | None = None,
                  cache_dir: str | Path | None = None, known: Callable[[str, str], CheckpointWeights | None] | None = None,
                  offline_first: bool = True) -> HubModel:
    """A Hub model as a plan needs it: from the local HF cache when it is there (offline), else from the Hub.

    From the Hub, ``config.json`` is downloaded into the HF cache (``hf_hub_download``) and the safetensors
    headers are read by HTTP range requests (``get_safetensors_metadata``); no weights are downloaded.

    Args:
        ref: the model (a :class:`ModelRef`, or text for :func:`parse_model_ref`).
        timeout: seconds each request may wait.
        token: a token; ``None`` uses ``HF_TOKEN`` or the stored login; ``False`` sends none.
        cache_dir: the HF cache (default :func:`hub_cache_dir`).
        known: ``(repo_id, commit) -> CheckpointWeights`` kept from an earlier fetch (used offline when the cache
            has no weights).
        offline_first: look in the cache before asking the Hub.

    Returns:
        The model; ``notes`` says what could not be read (e.g. headers, when only the config came).

    Raises:
        HubError: not a model id, 401/403 (gated or private), 404, offline or timed out with nothing cached, or a
            config Tuneplan cannot plan.
    """
    if isinstance(ref, str):
        parsed = parse_model_ref(ref)
        if parsed is None:
            raise HubError(f"{ref!r} is not a Hugging Face model id (org/name, org/name@revision or a Hub URL)",
                           "not-found")
        ref = parsed
    cache = Path(cache_dir) if cache_dir is not None else hub_cache_dir()
    if offline_first:
        hit = _cached_snapshot(ref, cache)
        if hit is not None:
            snap, commit = hit
            model = load_snapshot(snap, ref.repo_id, commit, known(ref.repo_id, commit) if known else None)
            if model.architecture.checkpoint is not None:
                return HubModel(ref, commit, model.architecture, "cache", model.notes)
    # huggingface_hub retries and resumes on its own (a stalled download, a server that trickles a byte at a time),
    # so each request's timeout does not bound the whole: the fetch runs in a worker held to one overall deadline
    deadline = OVERALL_TIMEOUT_FACTOR * timeout
    outcome: dict[str, Any] = {}

    def fetch() -> None:
        try:
            outcome["model"] = _resolve_online(ref, timeout, token, cache, known)
        except BaseException as exc:  # handed to the caller below
            outcome["error"] = exc

    worker = threading.Thread(target=fetch, name="tuneplan-hub-fetch", daemon=True)
    worker.start()
    worker.join(deadline)
    if worker.is_alive():
        raise HubError(f"{ref}: the Hugging Face Hub did not answer within {deadline:.0f} s and the model is not in the "
                       "local cache", "offline")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["model"]


def _resolve_online(ref: ModelRef, timeout: float, token: str | bool | None, cache: Path,
                    known: Callable[[str, str], CheckpointWeights | None] | None) -> HubModel:
    """:func:`resolve_model`'s fetch from the Hub (see there), each request under ``timeout`` seconds."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_download, hf_hub_url

    endpoint = hub_endpoint()
    # One HEAD request under our timeout first: hf_hub_download retries a timed-out HEAD with a 60 s timeout and
    # backoff, which would hold the user far longer than they asked. It also maps 401/403/404 quickly.
    url = hf_hub_url(ref.repo_id, "config.json", revision=ref.revision, endpoint=endpoint)
    try:
        meta = get_hf_file_metadata(url, token=token, timeout=timeout, endpoint=endpoint)
    except Exception as exc:  # huggingface_hub's errors, httpx's, OSError
        error = _message(exc, ref)
        if error.kind != "offline":
            raise error from None
        try:  # offline: config.json may still be in the cache from an earlier fetch
            path = hf_hub_download(ref.repo_id, "config.json", revision=ref.revision, cache_dir=cache,
                                   local_files_only=True)
        except Exception:
            raise error from None
        return load_snapshot(Path(path).parent, ref.repo_id, Path(path).parent.name,
                             known(ref.repo_id, Path(path).parent.name) if known else None)
    try:
        path = hf_hub_download(ref.repo_id, "config.json", revision=meta.commit_hash or ref.revision, cache_dir=cache,
                               endpoint=endpoint, etag_timeout=timeout, token=token)
    except Exception as exc:
        raise _message(exc, ref) from None
    if meta.commit_hash and ref.revision is None:
        _note_ref(cache, ref.repo_id, "main", meta.commit_hash)
    snap = Path(path).parent
    commit = snap.name if re.fullmatch(r"[0-9a-f]{40}", snap.name) else None
    try:
        cfg = read_hf_config(path)
    except ConfigImportError as exc:
        raise HubError(f"{ref}: {exc}", "unsupported") from None
    arch = _architecture(cfg, ref.repo_id)
    notes: list[str] = []
    where = f"{ref.repo_id}@{commit or ref.revision or 'main'}"
    try:
        table = _remote_tensors(ref, commit, endpoint, timeout, token)
        arch = _with_checkpoint(arch, cfg, table, f"safetensors headers on the Hub ({where})")
        notes += _count_note(arch)
    except Exception as exc:
        from huggingface_hub import errors

        if isinstance(exc, errors.NotASafetensorsRepoError):
            notes.append(f"{ref.repo_id} has no safetensors files: the parameter count comes from config.json")
        else:
            log.info("safetensors headers of %s not read: %s", ref, exc)
            stored = known(ref.repo_id, commit) if known and commit else None
            if stored is not None:
                arch = arch.model_copy(update={"checkpoint": stored})
            else:
                notes.append(f"the safetensors headers could not be read ({_message(exc, ref, 'safetensors')}): "
                             "the parameter count comes from config.json")
    arch = arch.model_copy(update={"source": f"Hugging Face Hub: {where}"[:10_000]})
    return HubModel(ref, commit, arch, "hub", tuple(notes))
