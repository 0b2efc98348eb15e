"""The last refreshed GPU prices, kept on disk: ``<data>/price_snapshot.json``.

:mod:`tuneplan.storage.price_refresh` fetches public price catalogs and writes what it found here,
dated; :func:`tuneplan.storage.price_book.load_price_book` reads it next time, so the price book's
effective prices are the bundled ones, updated by this snapshot, under the user's own edits. The
file is a cache of public data, never the user's work: the user's edits and additions live in
``price_book.json`` and a refresh never writes that file.

File: a versioned JSON document::

    {"format": "tuneplan-price-snapshot", "schema_version": 1, "app_version": "0.1.0",
     "saved_at": "2026-12-02T09:30:00+00:00",
     "fetched_at": "2026-12-02T09:30:00+00:00", "source_url": "https://...",
     "providers": [{"provider": "aws", "name": "AWS", "version": "20261201-812", "catalog_date": "2026-12-01",
                    "fetched_at": "...", "rows": 5120, "offers": 14, "skipped": 0, "unmatched": 61, "error": ""}],
     "offers": [{"provider_id": "aws", "gpu_counts": [8], "locations": 9, "entry": {<PriceEntry>}}]}

Written atomically (temp file, fsync, rename). A file that cannot be parsed is moved to
``<data>/quarantine/`` and no snapshot is used; one written by a newer Tuneplan is ignored (the
next refresh replaces it: it holds nothing of the user's). :func:`load_snapshot` never raises.

No Qt.
"""

from __future__ import annotations

import json
import logging
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from tuneplan import __version__
from tuneplan.catalog.prices import PriceEntry, pricing_from_entry
from tuneplan.storage import paths
from tuneplan.storage._fs import (
    UnsafeFileError,
    atomic_write_bytes,
    describe_os_error,
    loads_untrusted_json,
    quarantine_file,
    read_regular_file,
)

__all__ = [
    "FILE_NAME",
    "FORMAT",
    "SCHEMA_VERSION",
    "PriceSnapshot",
    "ProviderStatus",
    "SnapshotOffer",
    "dumps_snapshot",
    "load_snapshot",
    "price_snapshot_path",
    "save_snapshot",
]

log = logging.getLogger(__name__)

FORMAT = "tuneplan-price-snapshot"
SCHEMA_VERSION = 1
FILE_NAME = "price_snapshot.json"
#: A snapshot of every public catalog is a few hundred offers (~200 KB); 16 MiB is far beyond any real one.
MAX_FILE_BYTES = 16 * 1024 * 1024
#: The same upper limit as a price the user types (USD per GPU-hour).
MAX_USD_PER_GPU_HOUR = 10_000.0


def price_snapshot_path(base: Path | None = None) -> Path:
    """``<data>/price_snapshot.json`` (the folder exists; the file may not)."""
    return (base if base is not None else paths.data_dir()) / FILE_NAME


class ProviderStatus(BaseModel):
    """What the last refresh got from one provider's catalog.

    Attributes:
        provider: the catalog's provider id (``aws``, ``runpod``...).
        name: the provider as Tuneplan names it (``AWS``, ``RunPod``), as in the bundled prices.
        version: the catalog's version (``20261201-812``: collected on that day).
        catalog_date: the ISO date the catalog was collected (from its version), else the fetch date.
        fetched_at: when these offers were fetched (ISO date-time, UTC). A provider that failed in the
            last refresh keeps its earlier offers and the earlier time.
        rows: catalog rows read; offers: offers kept (after merging locations and node sizes).
        skipped: malformed rows (bad numbers, missing fields); unmatched: rows for GPUs that are not in
            Tuneplan's catalog, or whose name does not say which catalog GPU they are.
        error: why the last refresh got nothing from this provider (``""`` when it did).
    """

    model_config = ConfigDict(extra="ignore")

    provider: str = Field(max_length=40)
    name: str = Field(max_length=80)
    version: str = Field(default="", max_length=80)
    catalog_date: str = Field(default="", max_length=20)
    fetched_at: str = Field(default="", max_length=40)
    rows: int = Field(default=0, ge=0)
    offers: int = Field(default=0, ge=0)
    skipped: int = Field(default=0, ge=0)
    unmatched: int = Field(default=0, ge=0)
    error: str = Field(default="", max_length=400)


class SnapshotOffer(BaseModel):
    """One refreshed offer: a price point and what it covers.

    Attributes:
        provider_id: the catalog's provider id.
        gpu_counts: the node sizes (GPUs per node) this per-GPU price is offered at, ascending.
        locations: how many regions or data centres offer it (the price is the cheapest of them).
        entry: the price point as plans use it (``entry.gpus_per_node`` is the largest of ``gpu_counts``).
    """

    model_config = ConfigDict(extra="ignore")

    provider_id: str = Field(max_length=40)
    gpu_counts: list[int] = Field(min_length=1, max_length=64)
    locations: int = Field(default=1, ge=0)
    entry: PriceEntry

    @field_validator("entry")
    @classmethod
    def _sane(cls, entry: PriceEntry) -> PriceEntry:
        if not math.isfinite(entry.usd_per_gpu_hour) or entry.usd_per_gpu_hour > MAX_USD_PER_GPU_HOUR:
            raise ValueError(f"price must be between 0 and {MAX_USD_PER_GPU_HOUR:,.0f} USD per GPU-hour")
        try:  # an offer a plan cannot be priced with (a tampered file) is refused here, not when a GPU is picked
            pricing_from_entry(entry)
        except ValidationError as exc:
            raise ValueError(f"not a price a plan can use: {exc.errors()[0].get('msg', 'invalid')}") from None
        return entry

    @field_validator("gpu_counts")
    @classmethod
    def _counts(cls, counts: list[int]) -> list[int]:
        if any(not 1 <= c <= 1024 for c in counts):
            raise ValueError("GPUs per node must be between 1 and 1024")
        return sorted(set(counts))


class PriceSnapshot(BaseModel):
    """The refreshed offers of every provider the last refresh reached, dated.

    Attributes:
        fetched_at: when the last refresh ran (ISO date-time, UTC).
        source_url: the catalogs' base URL.
        providers: one status per provider (reached or not).
        offers: every refreshed offer, by provider.
    """

    model_config = ConfigDict(extra="ignore")

    fetched_at: str = Field(max_length=40)
    source_url: str = Field(default="", max_length=2000)
    providers: list[ProviderStatus] = Field(default_factory=list)
    offers: list[SnapshotOffer] = Field(default_factory=list)

    @property
    def date(self) -> str:
        """The day of the last refresh (``YYYY-MM-DD``)."""
        return self.fetched_at[:10]

    def entries(self) -> list[PriceEntry]:
        """The refreshed price points, in file order."""
        return [o.entry for o in self.offers]


def _parse(raw: bytes) -> tuple[dict[str, Any], int]:
    data = loads_untrusted_json(raw)  # ValueError for bad UTF-8 or JSON, too deep, too big
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f'not a Tuneplan price snapshot (no "format": "{FORMAT}")')
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError("schema_version is missing or not a positive whole number")
    return data, version


def _quarantine(path: Path) -> Path:
    return quarantine_file(path, paths.quarantine_dir(path.parent))


def _moved_aside(path: Path, reason: str) -> tuple[None, str]:
    log.error("price snapshot %s is unreadable: %s", path, reason)
    try:
        dest = _quarantine(path)
    except OSError as exc:
        return None, (f"The refreshed prices ({path}) are damaged ({reason}) and could not be moved aside "
                      f"({describe_os_error(exc)}); the bundled prices are used until the next refresh.")
    return None, (f"The refreshed prices were damaged ({reason}); the file was moved to {dest} and the bundled "
                  "prices are used until the next refresh.")


def load_snapshot(path: Path | None = None) -> tuple[PriceSnapshot | None, str]:
    """The snapshot on disk and a notice (``""`` when all is well); never raises.

    Missing: ``(None, "")``. Unreadable, invalid, over 16 MiB or not a regular file: moved to
    ``<data>/quarantine/``, ``(None, notice)``. From a newer Tuneplan: ``(None, notice)``, left as it is.
    """
    try:
        p = path if path is not None else price_snapshot_path()
    except OSError as exc:
        return None, f"The refreshed prices could not be read ({describe_os_error(exc)})."
    try:
        raw = read_regular_file(p, MAX_FILE_BYTES)
    except FileNotFoundError:
        return None, ""
    except UnsafeFileError as exc:
        why = "not a regular file" if exc.reason == "not-regular" else f"too large ({(exc.size or 0) / 2**20:.1f} MiB)"
        return _moved_aside(p, why)
    except OSError as exc:
        return None, f"The refreshed prices ({p}) could not be read ({describe_os_error(exc)})."
    try:
        data, version = _parse(raw)
    except ValueError as exc:
        return _moved_aside(p, str(exc))
    if version > SCHEMA_VERSION:
        return None, (f"The refreshed prices ({p}) were saved by a newer Tuneplan (format version {version}); "
                      "the bundled prices are used. A refresh replaces them.")
    try:
        snapshot = PriceSnapshot.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ()))
        return _moved_aside(p, f"invalid entry at {where}: {err.get('msg', 'invalid value')}")
    return snapshot, ""


def dumps_snapshot(snapshot: PriceSnapshot) -> bytes:
    """The bytes :func:`save_snapshot` writes (UTF-8 JSON with the versioned envelope)."""
    document = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "app_version": __version__,
        "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **snapshot.model_dump(mode="json"),
    }
    return (json.dumps(document, indent=1, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def save_snapshot(snapshot: PriceSnapshot, path: Path | None = None) -> Path:
    """Write the snapshot atomically (temp file, fsync, rename); returns the path.

    Raises:
        OSError: the folder or the file could not be written (the previous snapshot is then intact).
    """
    p = path if path is not None else price_snapshot_path()
    atomic_write_bytes(p, dumps_snapshot(snapshot))
    return p
