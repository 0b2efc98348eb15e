"""Refresh GPU prices from public catalogs: dstack's ``gpuhunt`` offline catalogs, read with urllib.

`gpuhunt <https://github.com/dstackai/gpuhunt>`_ (dstack's, MPL-2.0) collects the public price lists
of AWS, Azure, GCP, Lambda, Nebius, OCI, RunPod, Verda and CloudRift every day and publishes one CSV
per provider. Its layout (``v3``, see its ``publish_catalog.sh``)::

    {base}/{provider}/version                 the latest version, e.g. "20261201-812" (collected that day)
    {base}/{provider}/{version}/catalog.zip   one member, "{provider}.csv"

and its CSV columns (``CATALOG_V2_FIELDS``): ``instance_name, location, price, cpu, memory,
gpu_count, gpu_name, gpu_memory, spot, disk_size, gpu_vendor, flags, cpu_arch, provider_data``,
``price`` in USD per hour for the whole instance, ``gpu_name`` canonical (``H100``, ``RTX4090``,
``A100`` with ``gpu_memory`` 40 or 80).

Why not ``import gpuhunt``: its loader (``Catalog.load``) calls ``urllib.request.urlopen`` with no
timeout and reads each answer whole, so a server that never answers holds the refresh forever and an
endless answer fills the memory; it cannot be cancelled; its base URL is only the process-wide
``GPUHUNT_CATALOG_URL`` environment variable; and its row reader is private
(``gpuhunt._internal.storage``). The format is small and public, so it is read here, with:

* a **total deadline** (``timeout``, 60 s by default) over every request and the parsing: each
  provider is fetched in a daemon thread and the caller stops waiting at the deadline (the thread's
  socket times out by then too), and a ``cancel`` event that is honoured within ~50 ms;
* **size limits**: 32 MiB per answer (``max_bytes``), 256 MiB of CSV per catalog (a zip bomb stops
  there), 200 bytes for a version, which must be a plain token (it becomes part of a URL);
* **untrusted rows**: a bad number, a missing field, a row the CSV reader cannot split is skipped
  and counted, never a crash; names are cut to 80 printable characters;
* **offline**: when no provider answers nothing is written and the last snapshot stays in use
  (the result says so and names its date); a provider that fails keeps its offers from the last
  snapshot (with their dates).

Each row is mapped to a catalog GPU (:func:`match_offer_gpu`: the instance name as clouds and
``nvidia-smi`` write it, else the canonical name with its memory and the form factor the instance
family says — ``p5`` and ``a3-`` are SXM, ``NC..ads_A100_v4`` is PCIe), to a kind (``spot`` rows are
spot; RunPod rows located in a country rather than a data centre are Community Cloud), to a price
per GPU-hour (instance price / GPU count) and to the interconnect where the instance says it
(SXM -> NVLink, PCIe, NVL bridge, Nebius InfiniBand fabrics). The cheapest instance per provider,
GPU, kind and node size is kept (across regions); node sizes of one instance at the same per-GPU
price become one offer (RunPod's 1-8 GPU pods).

The result is a :class:`~tuneplan.storage.price_snapshot.PriceSnapshot`, written atomically to
``<data>/price_snapshot.json``; the price book loads it next time (and the GUI at once). The user's
edits and additions (``price_book.json``) are never written here and always win.

No Qt.
"""

from __future__ import annotations

import csv
import io
import logging
import math
import os
import queue
import re
import threading
import time
import unicodedata
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from tuneplan import __version__
from tuneplan.catalog.gpus import GpuSpec, match_gpu
from tuneplan.catalog.prices import Billing, PriceEntry, PriceKind, price_dates, terms_for
from tuneplan.storage._fs import describe_os_error, loads_untrusted_json
from tuneplan.storage.price_book import EffectivePrice, PriceBook, load_price_book, price_book_path
from tuneplan.storage.price_snapshot import (
    MAX_USD_PER_GPU_HOUR,
    PriceSnapshot,
    ProviderStatus,
    SnapshotOffer,
    price_snapshot_path,
    save_snapshot,
)

__all__ = [
    "DEFAULT_SOURCE_URL",
    "DEFAULT_TIMEOUT_S",
    "CatalogError",
    "MAX_CSV_BYTES",
    "MAX_RESPONSE_BYTES",
    "PROVIDERS",
    "SOURCE_URL_ENV",
    "ParsedCatalog",
    "PriceChanges",
    "RefreshResult",
    "compare_prices",
    "form_factor",
    "match_offer_gpu",
    "parse_catalog",
    "refresh_prices",
    "resolve_source_url",
]

log = logging.getLogger(__name__)

#: gpuhunt's public bucket (``gpuhunt._internal.catalog.CATALOG_URL``).
DEFAULT_SOURCE_URL = "https://dstack-gpu-pricing.s3.eu-west-1.amazonaws.com/v3"
#: Another base URL (a mirror, a local copy: ``file:///path/v3``) for every refresh of this process.
SOURCE_URL_ENV = "TUNEPLAN_PRICES_URL"
#: gpuhunt's offline providers and their names in Tuneplan's bundled prices.
PROVIDERS: dict[str, str] = {
    "aws": "AWS",
    "azure": "Azure",
    "gcp": "GCP",
    "lambdalabs": "Lambda",
    "nebius": "Nebius",
    "oci": "Oracle Cloud (OCI)",
    "runpod": "RunPod",
    "verda": "Verda (DataCrunch)",
    "cloudrift": "CloudRift",
}
DEFAULT_TIMEOUT_S = 60.0
#: One answer (a zipped catalog): the largest real one, AWS's, is a few MiB.
MAX_RESPONSE_BYTES = 32 * 1024 * 1024
#: The CSV inside one catalog.zip, decompressed.
MAX_CSV_BYTES = 256 * 1024 * 1024
MAX_VERSION_BYTES = 200
#: More GPUs than this in one instance row is not a real offer.
MAX_GPUS_PER_NODE = 64
#: CSV errors in a row before a catalog is given up as not a catalog.
_MAX_CONSECUTIVE_BAD = 1000
_CHUNK = 64 * 1024
_VERSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_VERSION_DATE = re.compile(r"^(\d{4})(\d{2})(\d{2})(?!\d)")
_REQUIRED = ("instance_name", "location", "price", "gpu_count", "gpu_name", "spot")
#: Instance families whose GPUs are SXM modules on NVLink (AWS p4d/p4de/p5/p5e/p5en/p6, GCP a2/a3/a4, Azure
#: ND v4-v6, OCI bare-metal 8-GPU shapes, any name saying SXM), and those that are PCIe cards.
_SXM_INSTANCE = re.compile(
    r"sxm|^p4de?\.|^p5(?:e|en)?\.|^p6e?-|^a2-(?:high|mega|ultra)gpu|^a3-|^a4x?-"
    r"|^(?:standard_)?nd\d+[a-z]*_(?:[a-z]*\d+_)?v[456]$|^bm\.gpu(?:4\.8|\.a100|\.h100|\.h200|\.b200|\.gb200)", re.I)
_PCIE_INSTANCE = re.compile(r"pcie|^(?:standard_)?nc\d+ads_(?:a100_v4|h100_v5)$|^(?:standard_)?nc\d+s_v3$", re.I)


class _Cancelled(Exception):
    pass


class _Timeout(Exception):
    pass


class CatalogError(Exception):
    """One provider's catalog could not be had or read (the message is a short phrase for the user)."""


# ---------------------------------------------------------------------------------------------
# fetching


def resolve_source_url(url: str | None = None) -> str:
    """The catalogs' base URL: ``url``, else ``$TUNEPLAN_PRICES_URL``, else gpuhunt's bucket.

    Raises:
        ValueError: not an ``https://``, ``http://`` or ``file://`` URL (or over 2,000 characters).
    """
    chosen = (url if url is not None else os.environ.get(SOURCE_URL_ENV, "")).strip() or DEFAULT_SOURCE_URL
    if len(chosen) > 2000 or not re.match(r"^(https?|file)://", chosen, re.I) or any(c.isspace() for c in chosen):
        raise ValueError(f"the price source must be an https://, http:// or file:// URL, not {chosen[:80]!r}")
    return chosen.rstrip("/")


def _ssl_context() -> Any:
    import ssl

    try:  # the system's trust store, which a bundled app has where certifi's may be missing
        import truststore

        return truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    except Exception:  # noqa: BLE001 - any failure: Python's defaults
        return ssl.create_default_context()


def _read_url(url: str, *, deadline: float, limit: int, stop: threading.Event) -> bytes:
    """The body of ``url``, at most ``limit`` bytes, read by ``deadline`` (``time.monotonic``)."""
    import urllib.error
    import urllib.request

    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise _Timeout
    opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=_ssl_context()))
    request = urllib.request.Request(url, headers={"User-Agent": f"Tuneplan/{__version__} (price refresh)"})
    try:
        with opener.open(request, timeout=remaining) as resp:
            length = (resp.headers.get("Content-Length") or "").strip()
            if length.isdigit() and int(length) > limit:
                raise CatalogError(f"the answer is {int(length) / 2**20:.1f} MiB, over the {limit / 2**20:g} MiB limit")
            read = getattr(resp, "read1", resp.read)  # read1: one socket read, so the deadline is checked often
            body = bytearray()
            while True:
                if stop.is_set():
                    raise _Cancelled
                if time.monotonic() > deadline:
                    raise _Timeout
                chunk = read(_CHUNK)
                if not chunk:
                    return bytes(body)
                body += chunk
                if len(body) > limit:
                    raise CatalogError(f"the answer is over the {limit / 2**20:g} MiB limit")
    except urllib.error.HTTPError as exc:
        raise CatalogError(f"HTTP {exc.code} for {url}") from None
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, TimeoutError):
            raise _Timeout from None
        reason = exc.reason if isinstance(exc.reason, str) else (
            describe_os_error(exc.reason) if isinstance(exc.reason, OSError) else str(exc.reason))
        raise CatalogError(f"could not connect ({reason})") from None
    except TimeoutError:
        raise _Timeout from None
    except (OSError, ValueError) as exc:  # a reset connection, a bad URL, a broken TLS stream
        raise CatalogError(f"the download failed ({exc.__class__.__name__}: {str(exc)[:120]})") from None


class _Limited(io.RawIOBase):
    """A reader that stops with CatalogError after ``limit`` bytes (a zip member that inflates without end)."""

    def __init__(self, raw: IO[bytes], limit: int) -> None:
        self.raw, self.limit, self.count = raw, limit, 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self.raw.read(min(len(b), _CHUNK))
        self.count += len(data)
        if self.count > self.limit:
            raise CatalogError(f"the catalog is over {self.limit / 2**20:g} MiB of CSV")
        b[: len(data)] = data
        return len(data)


def _catalog_date(version: str, today: date) -> str:
    m = _VERSION_DATE.match(version)
    if m:
        try:
            day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            day = None
        if day is not None and day <= today:
            return day.isoformat()
    return today.isoformat()


def _fetch_provider(base: str, provider: str, *, deadline: float, max_bytes: int, max_csv_bytes: int,
                    stop: threading.Event, today: date) -> ParsedCatalog:
    raw_version = _read_url(f"{base}/{provider}/version", deadline=deadline, limit=MAX_VERSION_BYTES, stop=stop)
    version = raw_version.decode("ascii", "replace").strip()
    if not _VERSION_RE.match(version):
        raise CatalogError("its catalog version is not readable")
    data = _read_url(f"{base}/{provider}/{version}/catalog.zip", deadline=deadline, limit=max_bytes, stop=stop)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            try:
                info = archive.getinfo(f"{provider}.csv")
            except KeyError:
                raise CatalogError(f"the catalog has no {provider}.csv") from None
            if info.file_size > max_csv_bytes:
                raise CatalogError(f"the catalog is over {max_csv_bytes / 2**20:g} MiB of CSV")
            with archive.open(info) as member:
                text = io.TextIOWrapper(io.BufferedReader(_Limited(member, max_csv_bytes)), encoding="utf-8",
                                        errors="replace", newline="")
                parsed = parse_catalog(text, provider, _catalog_date(version, today), deadline=deadline, stop=stop)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, NotImplementedError, RuntimeError, OSError) as exc:
        raise CatalogError(f"the catalog is not a readable zip file ({str(exc)[:80]})") from None
    except ValueError as exc:  # zlib errors and the like inside the zip
        raise CatalogError(f"the catalog could not be read ({str(exc)[:80]})") from None
    parsed.version = version
    return parsed


def _fetch_all(base: str, providers: list[str], *, timeout: float, max_bytes: int, max_csv_bytes: int,
               cancel: threading.Event | None, progress: Callable[[str], None] | None,
               today: date) -> dict[str, ParsedCatalog | str]:
    """Every provider's parsed catalog or the phrase saying why not, by the deadline (or ``_Cancelled``)."""
    deadline = time.monotonic() + timeout
    stop = threading.Event()
    answers: queue.Queue[tuple[str, ParsedCatalog | str]] = queue.Queue()

    def work(provider: str) -> None:
        try:
            answers.put((provider, _fetch_provider(base, provider, deadline=deadline, max_bytes=max_bytes,
                                                   max_csv_bytes=max_csv_bytes, stop=stop, today=today)))
        except CatalogError as exc:
            answers.put((provider, str(exc)))
        except _Timeout:
            answers.put((provider, f"no answer within {timeout:g} s"))
        except _Cancelled:
            answers.put((provider, "cancelled"))
        except Exception as exc:  # noqa: BLE001 - untrusted data: one provider's surprise is not a crash
            log.exception("price refresh of %s failed", provider)
            answers.put((provider, f"failed ({exc.__class__.__name__})"))

    for provider in providers:
        threading.Thread(target=work, args=(provider,), name=f"price-refresh-{provider}", daemon=True).start()
    results: dict[str, ParsedCatalog | str] = {}
    try:
        while len(results) < len(providers):
            if cancel is not None and cancel.is_set():
                raise _Cancelled
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                provider, answer = answers.get(timeout=min(0.05, remaining))
            except queue.Empty:
                continue
            results[provider] = answer
            if progress is not None:
                name = PROVIDERS.get(provider, provider)
                progress(f"{name}: {answer.rows:,} rows read" if isinstance(answer, ParsedCatalog)
                         else f"{name}: {answer}")
    finally:
        stop.set()  # threads still reading stop at their next chunk; their sockets time out by the deadline
    for provider in providers:
        results.setdefault(provider, f"no answer within {timeout:g} s")
    return results


# ---------------------------------------------------------------------------------------------
# rows -> offers


def _clean(text: str, limit: int = 80) -> str:
    """Printable text only (no control, format or bidi characters), one line, at most ``limit`` characters."""
    if text.isascii() and text.isprintable():
        return " ".join(text.split())[:limit]
    kept = "".join(" " if ch.isspace() else ch for ch in text if unicodedata.category(ch)[0] != "C" or ch.isspace())
    return " ".join(kept.split())[:limit]


def _alnum(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _spaced(gpu_name: str) -> str:
    """gpuhunt's canonical name as people write it: ``RTX4070TiSUPER`` -> ``RTX 4070 Ti SUPER``, ``H100NVL`` ->
    ``H100 NVL``, ``RTXPRO6000`` -> ``RTX PRO 6000`` (``MI300X``, ``A10G``, ``L40S`` stay as they are)."""
    text = re.sub(r"^RTXPRO", "RTX PRO ", gpu_name, flags=re.I)
    text = re.sub(r"^RTX(?=\d)", "RTX ", text, flags=re.I)
    text = re.sub(r"(?<=\d)(?=[A-Z][A-Za-z])", " ", text)
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)


def _family(gpu: GpuSpec) -> str:
    return gpu.id.split("_")[0]


@lru_cache(maxsize=8192)
def form_factor(instance: str) -> str:
    """``sxm``, ``pcie`` or ``""``: what the instance name or its family says about the GPUs' form factor."""
    if _SXM_INSTANCE.search(instance):
        return "sxm"
    if _PCIE_INSTANCE.search(instance):
        return "pcie"
    return ""


def match_offer_gpu(instance: str, gpu_name: str, memory_gb: float | None) -> GpuSpec | None:
    """See :func:`_match_offer_gpu`; cached, as a catalog repeats each instance type in every region (matching
    tokenizes every catalog GPU's name: ~1 ms a row uncached, a 100,000-row catalog would take over a minute)."""
    return _match_offer_gpu(instance, gpu_name, memory_gb)


@lru_cache(maxsize=8192)
def _match_offer_gpu(instance: str, gpu_name: str, memory_gb: float | None) -> GpuSpec | None:
    """The catalog GPU of a gpuhunt row, or ``None`` when it is not in the catalog or the row does not say which.

    The instance name is tried first where it names the card (RunPod's ``NVIDIA H100 80GB HBM3``, Lambda's
    ``gpu_1x_h100_pcie``); then the canonical ``gpu_name`` with its memory and the instance's form factor
    (:func:`form_factor`). Both must agree on the GPU family (an ``L4`` row never becomes an L40S), and the
    row's memory must be within 0.8-1.35x the catalog card's (an MI250X row for the whole card is not the
    catalog's one-GCD MI250X). ``H100`` 80 GB with no form factor anywhere is ambiguous and left out.
    """
    hint = form_factor(instance)
    words = [_spaced(gpu_name)]
    if memory_gb:
        words.append(f"{round(memory_gb)}GB")
    if hint:
        words.append("SXM" if hint == "sxm" else "PCIe")
    by_name = match_gpu(" ".join(words))
    by_instance = match_gpu(instance)
    if by_instance is not None and by_name is not None and _family(by_instance) != _family(by_name):
        by_instance = None
    if by_instance is not None and by_name is None and _family(by_instance) != _alnum(gpu_name):
        by_instance = None
    gpu = by_instance or by_name
    if gpu is not None and memory_gb and not 0.8 <= memory_gb / gpu.memory_gib <= 1.35:
        return None
    return gpu


def _interconnect(instance: str, gpu_name: str, provider: str, flags: str, provider_data: str) -> str:
    parts: list[str] = []
    hint = form_factor(instance)
    if "nvl" in gpu_name.lower():
        parts.append("NVLink bridge (NVL)")
    elif hint == "sxm":
        parts.append("NVLink (SXM)")
    elif hint == "pcie":
        parts.append("PCIe")
    if provider == "nebius" and provider_data and len(provider_data) <= 20_000:
        try:
            data = loads_untrusted_json(provider_data.encode("utf-8", "replace"))
        except ValueError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("fabrics"), list) and data["fabrics"]:
            parts.append("InfiniBand between nodes")
    if "runpod-cluster" in flags.split():
        parts.append("Instant Cluster (several nodes)")
    return "; ".join(parts)


@dataclass
class _Row:
    gpu: GpuSpec
    kind: PriceKind
    count: int
    per_gpu: float
    instance: str
    location: str
    interconnect: str


@dataclass
class ParsedCatalog:
    """One provider's catalog read into offers.

    Attributes:
        provider: the catalog's provider id; version: its version (set after fetching).
        catalog_date: the ISO date the offers were collected.
        offers: the offers kept (cheapest per GPU, kind and node size; node sizes at one price merged).
        rows: data rows read; skipped: malformed rows; unmatched: GPUs not in Tuneplan's catalog (or
        not said precisely enough); no_gpu: CPU-only rows.
    """

    provider: str
    catalog_date: str
    version: str = ""
    offers: list[SnapshotOffer] = field(default_factory=list)
    rows: int = 0
    skipped: int = 0
    unmatched: int = 0
    no_gpu: int = 0


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def _row(values: dict[str, str], provider: str) -> _Row | str:
    """A row as an offer, or why not: ``"skipped"`` (malformed), ``"unmatched"`` or ``"no_gpu"``."""
    try:
        count_value = _number(values.get("gpu_count", ""))
        if count_value != int(count_value):
            return "skipped"
        count = int(count_value)
        if count == 0:
            return "no_gpu"
        price = _number(values.get("price", ""))
        spot_text = values.get("spot", "").strip().lower()
        memory_text = values.get("gpu_memory", "").strip()
        memory = _number(memory_text) if memory_text else None
    except ValueError:
        return "skipped"
    instance, location = _clean(values.get("instance_name", "")), _clean(values.get("location", ""), 40)
    gpu_name = _clean(values.get("gpu_name", ""), 40)
    if (not 1 <= count <= MAX_GPUS_PER_NODE or not price > 0 or spot_text not in ("true", "false")
            or not instance or not location or not gpu_name or (memory is not None and not 0 < memory <= 4096)):
        return "skipped"
    per_gpu = price / count
    if per_gpu > MAX_USD_PER_GPU_HOUR:
        return "skipped"
    vendor = values.get("gpu_vendor", "").strip().lower()
    if vendor not in ("", "nvidia", "amd"):
        return "unmatched"  # TPUs, Gaudi, Tenstorrent: not in the catalog
    gpu = match_offer_gpu(instance, gpu_name, memory)
    if gpu is None:
        return "unmatched"
    kind: PriceKind = "spot" if spot_text == "true" else (
        "community" if provider == "runpod" and re.fullmatch(r"[A-Z]{2}", location) else "on-demand")
    return _Row(gpu=gpu, kind=kind, count=count, per_gpu=per_gpu, instance=instance, location=location,
                interconnect=_interconnect(instance, gpu_name, provider, values.get("flags", ""),
                                           values.get("provider_data", "")))


def _rows(text: Iterable[str], stats: ParsedCatalog, deadline: float | None,
          stop: threading.Event | None) -> Iterator[dict[str, str]]:
    reader = csv.reader(text)
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise CatalogError("the catalog is empty") from None
    except csv.Error as exc:
        raise CatalogError(f"the catalog is not CSV ({exc})") from None
    missing = [c for c in _REQUIRED if c not in header]
    if missing:
        raise CatalogError(f"not a gpuhunt catalog (no {', '.join(missing)} column)")
    bad_in_a_row = 0
    lines = 0  # every line read, blank ones too: the stop and the deadline are checked every 500 of them
    while True:
        lines += 1
        if lines % 500 == 1:
            if stop is not None and stop.is_set():
                raise _Cancelled
            if deadline is not None and time.monotonic() > deadline:
                raise _Timeout
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error:  # a field over the CSV module's limit, a stray quote: skip the row
            stats.rows += 1
            stats.skipped += 1
            bad_in_a_row += 1
            if bad_in_a_row > _MAX_CONSECUTIVE_BAD:
                raise CatalogError("the catalog is not CSV (too many unreadable rows)") from None
            continue
        if not values or values == [""]:
            continue
        bad_in_a_row = 0
        stats.rows += 1
        yield dict(zip(header, values, strict=False))


def _counts_text(counts: list[int]) -> str:
    if len(counts) >= 3 and counts == list(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}-{counts[-1]}x"
    return "/".join(str(c) for c in counts) + "x"


def parse_catalog(text: Iterable[str], provider: str, catalog_date: str, *, deadline: float | None = None,
                  stop: threading.Event | None = None) -> ParsedCatalog:
    """Offers from one gpuhunt catalog CSV (lines of text). Malformed rows are skipped and counted.

    Raises:
        CatalogError: the text is not a gpuhunt catalog at all (no header, required columns missing).
    """
    stats = ParsedCatalog(provider=provider, catalog_date=catalog_date)
    # cheapest row per (GPU, kind, node size), and how many locations offer that instance
    best: dict[tuple[str, str, int], _Row] = {}
    locations: dict[tuple[str, str, int, str], set[str]] = {}
    spread: dict[tuple[str, str, int, str], tuple[float, float]] = {}
    instances: dict[tuple[str, str, int], set[str]] = {}
    for values in _rows(text, stats, deadline, stop):
        row = _row(values, provider)
        if isinstance(row, str):
            setattr(stats, row, getattr(stats, row) + 1)
            continue
        key = (row.gpu.id, row.kind, row.count)
        ikey = (*key, row.instance)
        locations.setdefault(ikey, set()).add(row.location)
        low, high = spread.get(ikey, (row.per_gpu, row.per_gpu))
        spread[ikey] = (min(low, row.per_gpu), max(high, row.per_gpu))
        instances.setdefault(key, set()).add(row.instance)
        held = best.get(key)
        if held is None or (row.per_gpu, row.instance) < (held.per_gpu, held.instance):
            best[key] = row
    # one instance offered at several node sizes for the same per-GPU price is one offer
    groups: dict[tuple[str, str, str], list[_Row]] = {}
    for key in sorted(best, key=lambda k: (k[0], k[1], k[2])):
        r = best[key]
        groups.setdefault((r.gpu.id, r.kind, r.instance), []).append(r)
    name = PROVIDERS.get(provider, provider)
    terms = terms_for(name)
    billing: Billing = terms.billing if terms is not None else "hour"
    for rows in groups.values():
        merged: list[list[_Row]] = []
        for r in rows:
            if merged and abs(r.per_gpu - merged[-1][0].per_gpu) <= 0.005 * merged[-1][0].per_gpu:
                merged[-1].append(r)
            else:
                merged.append([r])
        for same in merged:
            first = min(same, key=lambda r: r.per_gpu)
            counts = sorted(r.count for r in same)
            where = locations[(first.gpu.id, first.kind, first.count, first.instance)]
            low, high = spread[(first.gpu.id, first.kind, first.count, first.instance)]
            others = len(instances[(first.gpu.id, first.kind, first.count)]) - 1
            notes = [f"{first.instance}: cheapest of {len(where)} location(s)"
                     + (f" (${low:.2f}-${high:.2f} per GPU-hour)" if high > low * 1.0005 else "")]
            if others:
                notes.append(f"{others} other {first.count}-GPU instance type(s) cost more")
            if len(counts) > 1:
                notes.append(f"the same per-GPU price with {'/'.join(map(str, counts))} GPUs per node")
            entry = PriceEntry(
                provider=name,
                gpu_label=f"{first.gpu.name} ({first.instance}, {_counts_text(counts)})",
                gpu_id=first.gpu.id,
                usd_per_gpu_hour=round(first.per_gpu, 4),
                kind=first.kind,
                billing=billing,
                billing_text=(terms.billing_text if terms is not None and terms.billing_text
                              else "not stated (whole hours assumed)"),
                minimum_billed_minutes=terms.minimum_billed_minutes if terms is not None else 0.0,
                date_seen=catalog_date,
                source=f"dstack gpuhunt catalog ({provider})",
                notes="; ".join(notes),
                gpus_per_node=counts[-1],
                node_sizes=tuple(counts) if len(counts) > 1 else (),
                interconnect=first.interconnect,
            )
            stats.offers.append(SnapshotOffer(provider_id=provider, gpu_counts=counts, locations=len(where),
                                              entry=entry))
    return stats


# ---------------------------------------------------------------------------------------------
# the refresh


@dataclass
class PriceChanges:
    """What a refresh changed in the effective prices.

    Attributes:
        added: prices that were not there before (refreshed offers with no bundled row).
        updated: (before, after) of prices whose value or date changed.
        removed: prices gone (a refreshed offer the provider no longer lists).
        kept: prices as they were (the user's edits and additions among them).
        kept_yours: the user's edits kept over a refreshed price that changed under them.
    """

    added: list[EffectivePrice] = field(default_factory=list)
    updated: list[tuple[EffectivePrice, EffectivePrice]] = field(default_factory=list)
    removed: list[EffectivePrice] = field(default_factory=list)
    kept: int = 0
    kept_yours: int = 0


def compare_prices(before: list[EffectivePrice], after: list[EffectivePrice]) -> PriceChanges:
    """Added, updated, removed and kept prices between two effective price lists (matched by key)."""
    old = {p.key: p for p in before}
    changes = PriceChanges()
    for p in after:
        was = old.pop(p.key, None)
        if was is None:
            changes.added.append(p)
        elif p.is_yours:
            changes.kept += 1
            if was.base != p.base:
                changes.kept_yours += 1
        elif was.entry != p.entry:
            changes.updated.append((was, p))
        else:
            changes.kept += 1
    changes.removed.extend(old.values())
    return changes


@dataclass
class RefreshResult:
    """What :func:`refresh_prices` did.

    Attributes:
        ok: at least one provider's catalog was read (and the snapshot replaced, unless ``save_error``).
        cancelled: stopped by the caller; nothing changed.
        offline: no provider answered; the last snapshot (``snapshot``, maybe ``None``) stays in use.
        snapshot: the snapshot now in use (the new one, or the kept one).
        path: where the new snapshot was written (``None`` when nothing was written).
        save_error: why the new snapshot could not be written (it is still returned for this session).
        changes: added / updated / removed / kept prices (empty when nothing changed).
        providers: the status of every provider asked.
        errors: one line per provider that failed (``"GCP: HTTP 404 ..."``).
        skipped: malformed rows skipped; unmatched: offers for GPUs not in the catalog, left out.
        message: the outcome in English sentences (the CLI prints it; the GUI builds its own).
    """

    ok: bool = False
    cancelled: bool = False
    offline: bool = False
    snapshot: PriceSnapshot | None = None
    path: Path | None = None
    save_error: str = ""
    changes: PriceChanges = field(default_factory=PriceChanges)
    providers: list[ProviderStatus] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    skipped: int = 0
    unmatched: int = 0
    message: str = ""


def _kept_note(previous: PriceSnapshot | None) -> str:
    if previous is not None:
        return f"The prices refreshed on {previous.date} stay in use"
    last = price_dates().last
    return f"The bundled prices (seen up to {last}) stay in use" if last else "The bundled prices stay in use"


def refresh_prices(*, source_url: str | None = None, timeout: float = DEFAULT_TIMEOUT_S,
                   providers: list[str] | None = None, book: PriceBook | None = None,
                   book_path: Path | None = None, snapshot_path: Path | None = None,
                   max_bytes: int = MAX_RESPONSE_BYTES, max_csv_bytes: int = MAX_CSV_BYTES,
                   cancel: threading.Event | None = None,
                   progress: Callable[[str], None] | None = None, now: datetime | None = None) -> RefreshResult:
    """Fetch the public catalogs, write the new snapshot atomically and say what changed. Never raises for
    network or data problems (they are in the result); a bad ``source_url`` or provider raises ValueError.

    Args:
        source_url: the catalogs' base URL (:func:`resolve_source_url`).
        timeout: the total deadline in seconds for every request and the parsing.
        providers: gpuhunt provider ids (default: all of :data:`PROVIDERS`).
        book: the price book whose effective prices are compared (default: loaded from ``book_path``);
            only read, never saved.
        book_path, snapshot_path: the files (default ``<data>/price_book.json`` and the snapshot beside it).
        max_bytes: the size limit of one answer; max_csv_bytes: of one catalog's CSV, decompressed.
        cancel: set it to stop; the result then says ``cancelled`` and nothing is written.
        progress: called with a short line as each provider is done (on the calling thread).
        now: the time of the refresh (default: now, UTC); its date dates offers whose catalog has none.
    """
    base = resolve_source_url(source_url)
    chosen = list(dict.fromkeys(providers if providers is not None else PROVIDERS))
    unknown = [p for p in chosen if p not in PROVIDERS]
    if unknown:
        raise ValueError(f"unknown price provider(s): {', '.join(unknown)}; known: {', '.join(PROVIDERS)}")
    if not (timeout > 0 and math.isfinite(timeout)):
        raise ValueError("the timeout must be a positive number of seconds")
    when = now if now is not None else datetime.now(UTC)
    if book is None:
        bp = book_path if book_path is not None else price_book_path()
        book = load_price_book(bp, snapshot_path if snapshot_path is not None else price_snapshot_path(bp.parent))
    target = snapshot_path if snapshot_path is not None else price_snapshot_path(
        (book_path if book_path is not None else price_book_path()).parent)
    previous = book.snapshot
    before = book.effective_prices()
    try:
        fetched = _fetch_all(base, chosen, timeout=timeout, max_bytes=max_bytes, max_csv_bytes=max_csv_bytes,
                             cancel=cancel, progress=progress, today=when.date())
    except _Cancelled:
        return RefreshResult(cancelled=True, snapshot=previous, message="Cancelled: nothing changed.")

    old_status = {s.provider: s for s in (previous.providers if previous else [])}
    old_offers: dict[str, list[SnapshotOffer]] = {}
    for o in previous.offers if previous else []:
        old_offers.setdefault(o.provider_id, []).append(o)
    result = RefreshResult()
    statuses: list[ProviderStatus] = []
    offers: list[SnapshotOffer] = []
    stamp = when.astimezone(UTC).isoformat(timespec="seconds")
    for provider in chosen:
        answer, name = fetched[provider], PROVIDERS[provider]
        if isinstance(answer, ParsedCatalog):
            statuses.append(ProviderStatus(provider=provider, name=name, version=answer.version,
                                           catalog_date=answer.catalog_date, fetched_at=stamp, rows=answer.rows,
                                           offers=len(answer.offers), skipped=answer.skipped,
                                           unmatched=answer.unmatched))
            offers.extend(answer.offers)
            result.skipped += answer.skipped
            result.unmatched += answer.unmatched
            continue
        kept = old_offers.get(provider, [])
        was = old_status.get(provider)
        line = f"{name}: {answer}"
        if kept and was is not None:
            line += f" (its {len(kept)} offers of {was.catalog_date or was.fetched_at[:10]} are kept)"
        result.errors.append(line)
        offers.extend(kept)
        statuses.append((was or ProviderStatus(provider=provider, name=name)).model_copy(
            update={"error": answer[:400], "offers": len(kept)}))
    # providers not asked this time keep what they had
    for provider, was in old_status.items():
        if provider not in chosen:
            statuses.append(was)
            offers.extend(old_offers.get(provider, []))
    result.providers = statuses
    reached = sum(1 for p in chosen if isinstance(fetched[p], ParsedCatalog))
    if not reached:
        result.offline, result.snapshot = True, previous
        first = next(str(a) for a in fetched.values())
        result.message = (f"Could not refresh the prices from {base} ({first}). {_kept_note(previous)}.\n"
                          + "\n".join(result.errors))
        return result

    snapshot = PriceSnapshot(fetched_at=stamp, source_url=base, providers=statuses, offers=offers)
    try:
        result.path = save_snapshot(snapshot, target)
    except OSError as exc:
        result.save_error = f"The refreshed prices could not be saved to {target}: {describe_os_error(exc)}."
        log.error("%s", result.save_error)
    after = book.model_copy()
    after.set_snapshot(snapshot)
    result.ok, result.snapshot = True, snapshot
    result.changes = compare_prices(before, after.effective_prices())
    result.message = summary(result, reached=reached, asked=len(chosen))
    return result


def summary(result: RefreshResult, *, reached: int, asked: int) -> str:
    """The outcome of a successful refresh in English (the CLI's text)."""
    c = result.changes
    snapshot = result.snapshot
    lines = [f"Prices refreshed on {snapshot.date if snapshot else '?'} from {reached} of {asked} catalog(s): "
             f"{len(c.added)} added, {len(c.updated)} updated, {c.kept} kept"
             + (f" ({c.kept_yours} of them your edits, kept over the refreshed price)" if c.kept_yours else "")
             + f", {len(c.removed)} removed."]
    if result.skipped or result.unmatched:
        lines.append(f"{result.skipped} malformed row(s) skipped; {result.unmatched} offer row(s) for GPUs that are "
                     "not in Tuneplan's catalog (or not named precisely) left out.")
    lines.extend(result.errors)
    if result.save_error:
        lines.append(result.save_error)
    return "\n".join(lines)
