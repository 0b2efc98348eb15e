"""The user's price book: edits of bundled GPU prices and prices the user added, kept on disk.

Bundled prices (``catalog/data/prices.csv``) are dated snapshots; real quotes move weekly. The
price book lets the user correct a bundled price (price per GPU-hour, billing granularity, the date
the price was seen) or add one (provider, GPU, kind, price, billing, date). Plans, the offer picker
and the GPU comparison use the **effective prices**: the bundled list, updated by the last refresh
(``<data>/price_snapshot.json``, :mod:`tuneplan.storage.price_snapshot`), with the user's edits
applied, plus the user's additions (:meth:`PriceBook.effective_prices`).

A refreshed offer updates the bundled row for the same provider, GPU, kind and node size when it is
at least as recent (a bundled row seen later than the refreshed catalog is kept); refreshed offers
with no bundled row are added after the bundled ones. The user's edits always win over both: an
edit of a bundled row stays on top of any refreshed price for it, and the user's additions are
never touched. A refresh writes only the snapshot, never this file.

File: ``<data>/price_book.json`` (:func:`price_book_path`), a versioned JSON document::

    {"format": "tuneplan-price-book", "schema_version": 1, "app_version": "0.1.0",
     "saved_at": "2026-11-12T09:30:00+00:00",
     "edits": [{"provider": "RunPod", "gpu_label": "RTX 4090 24GB", "kind": "on-demand",
                "source": "...", "usd_per_gpu_hour": 0.69, "billing": "second", "date": "2026-11-12"}],
     "additions": [{"id": "u-3f2a9c", "provider": "My lab", "gpu_id": "a100_80gb", ...}]}

An edit names the base row it replaces (bundled, or refreshed where there is no bundled one) by
provider, GPU label, kind and source (two bundled rows can share the first three); an edit whose row
is no longer there is kept in the file but not applied. Writes are atomic (temp file, fsync, rename). A file that cannot be parsed is moved
to ``<data>/quarantine/`` and the bundled prices are used; a file saved by a newer Tuneplan is
left alone and not overwritten. :func:`load_price_book` never raises for a bad file: it returns
a book whose :attr:`PriceBook.notice` says what happened.

No Qt.
"""

from __future__ import annotations

import json
import logging
import math
import secrets
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from tuneplan import __version__
from tuneplan.catalog.prices import (
    Billing,
    PriceEntry,
    PriceKind,
    list_prices,
    plan_usd_per_gpu_hour,
    seen_on,
)
from tuneplan.storage import paths
from tuneplan.storage._fs import (
    UnsafeFileError,
    atomic_write_bytes,
    describe_os_error,
    loads_untrusted_json,
    quarantine_file,
    read_regular_file,
)
from tuneplan.storage.price_snapshot import PriceSnapshot, load_snapshot, price_snapshot_path

__all__ = [
    "FILE_NAME",
    "FORMAT",
    "MAX_USD_PER_GPU_HOUR",
    "SCHEMA_VERSION",
    "EffectivePrice",
    "PriceAddition",
    "PriceBook",
    "PriceBookError",
    "PriceEdit",
    "bundled_key",
    "dumps_price_book",
    "effective_prices",
    "load_price_book",
    "price_book_path",
    "reset",
    "save_price_book",
]

log = logging.getLogger(__name__)

FORMAT = "tuneplan-price-book"
SCHEMA_VERSION = 1
FILE_NAME = "price_book.json"
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Upper limit of a price the user can enter (USD per GPU-hour), as in the plan's price field.
MAX_USD_PER_GPU_HOUR = 10_000.0

Origin = Literal["bundled", "refreshed", "edited", "added"]


class PriceBookError(Exception):
    """The price book could not be saved (the message is a sentence for the user)."""


def price_book_path(base: Path | None = None) -> Path:
    """``<data>/price_book.json`` (the folder exists; the file may not)."""
    return (base if base is not None else paths.data_dir()) / FILE_NAME


def bundled_key(entry: PriceEntry) -> str:
    """The identity of a base price row (bundled or refreshed): provider, GPU label, kind and source (``b:...``)."""
    return "b:" + "\x1f".join((entry.provider, entry.gpu_label, entry.kind, entry.source))


def _today() -> str:
    return datetime.now().date().isoformat()


def _check_price(value: float) -> float:
    if not math.isfinite(value) or value < 0 or value > MAX_USD_PER_GPU_HOUR:
        raise ValueError(f"must be between 0 and {MAX_USD_PER_GPU_HOUR:,.0f} USD per GPU-hour")
    return value


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore")

    usd_per_gpu_hour: float
    billing: Billing
    date: str = Field(default="", max_length=60)

    @field_validator("usd_per_gpu_hour")
    @classmethod
    def _finite(cls, value: float) -> float:
        return _check_price(value)


class PriceEdit(_Record):
    """The user's version of one bundled price (identified like :func:`bundled_key`).

    Attributes:
        provider, gpu_label, kind, source: the bundled row this edit replaces.
        usd_per_gpu_hour: the user's price, USD per GPU per hour.
        billing: the user's billing granularity (``second``, ``minute``, ``hour``).
        date: when the user saw this price (ISO date, by default the day of the edit).
    """

    provider: str
    gpu_label: str
    kind: PriceKind
    source: str = ""

    @property
    def key(self) -> str:
        """The :func:`bundled_key` of the row this edit replaces."""
        return "b:" + "\x1f".join((self.provider, self.gpu_label, self.kind, self.source))


class PriceAddition(_Record):
    """A price the user added (a quote, an internal cluster rate...).

    Attributes:
        id: stable identity within the book (``u-`` + 8 hex digits).
        provider: who sells it (free text, 1-80 characters).
        gpu_id: catalog GPU id (``""`` for a GPU not in the catalog).
        gpu_label: the GPU as shown (defaults to the catalog GPU's name).
        kind: ``on-demand``, ``community``, ``spot`` or ``serverless``.
        usd_per_gpu_hour, billing, date: as for :class:`PriceEdit`.
    """

    id: str = Field(min_length=1, max_length=40)
    provider: str = Field(min_length=1, max_length=80)
    gpu_id: str = Field(default="", max_length=80)
    gpu_label: str = Field(default="", max_length=120)
    kind: PriceKind

    @property
    def key(self) -> str:
        """``u:<id>``."""
        return f"u:{self.id}"


class EffectivePrice(BaseModel):
    """One price as plans use it, with where it came from.

    Attributes:
        key: :func:`bundled_key` of the shipped row (or, for a refreshed offer with no shipped row, of
            the refreshed one) for bundled, refreshed and edited rows; ``u:<id>`` for added ones.
        entry: the price point (``date_seen`` is the bundled or refreshed date, or the user's date).
        origin: ``bundled`` (as shipped), ``refreshed`` (from the last refresh), ``edited`` (the user
            changed it; the user's value wins over any refresh) or ``added``.
        bundled: the shipped row for shipped rows (as bundled, refreshed or edited), else ``None``.
        refreshed: the refreshed price under this row (shown, or under the user's edit), else ``None``.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    entry: PriceEntry
    origin: Origin
    bundled: PriceEntry | None = None
    refreshed: PriceEntry | None = None

    @property
    def base(self) -> PriceEntry | None:
        """The price before the user's edit: the refreshed one if any, else the shipped one."""
        return self.refreshed or self.bundled

    @property
    def is_yours(self) -> bool:
        """True for prices the user edited or added."""
        return self.origin in ("edited", "added")


def _node_size(entry: PriceEntry) -> int:
    return entry.gpus_per_node or 1


def _newer_or_same(refreshed: PriceEntry, bundled: PriceEntry) -> bool:
    """The refreshed price is at least as recent as the bundled one (an undated bundled row is older)."""
    b, r = seen_on(bundled.date_seen), seen_on(refreshed.date_seen)
    return b is None or (r is not None and r >= b)


def _gpu_name(gpu_id: str) -> str:
    from tuneplan.catalog.gpus import get_gpu

    try:
        return get_gpu(gpu_id).name
    except KeyError:
        return gpu_id


class PriceBook(BaseModel):
    """The user's edits and additions, and the effective prices they produce.

    Change it through :meth:`edit`, :meth:`add`, :meth:`reset` and :meth:`reset_all` (they keep
    the cached effective list current), then :func:`save_price_book`.

    Attributes:
        edits: replaced bundled (or refreshed) prices.
        additions: prices the user added.
        notice: what happened when the file was read (moved aside, newer version...); not saved.
        read_only: the file on disk is from a newer Tuneplan and must not be overwritten; not saved.
        snapshot: the last refreshed prices (:mod:`~tuneplan.storage.price_snapshot`), or ``None``; not
            saved here (it has a file of its own). Change it with :meth:`set_snapshot`.
        snapshot_notice: what happened when the snapshot was read; not saved.
    """

    edits: list[PriceEdit] = Field(default_factory=list)
    additions: list[PriceAddition] = Field(default_factory=list)
    notice: str = Field(default="", exclude=True)
    read_only: bool = Field(default=False, exclude=True)
    snapshot: PriceSnapshot | None = Field(default=None, exclude=True)
    snapshot_notice: str = Field(default="", exclude=True)
    _cache: list[EffectivePrice] | None = PrivateAttr(default=None)

    def set_snapshot(self, snapshot: PriceSnapshot | None) -> None:
        """Use these refreshed prices (``None``: the bundled ones only); the user's edits stay on top."""
        self.snapshot = snapshot
        self._cache = None

    # ------------------------------------------------------------------ reading
    def effective_prices(self) -> list[EffectivePrice]:
        """Bundled prices in file order with the user's edits applied, then the user's additions."""
        if self._cache is None:
            self._cache = self._build()
        return list(self._cache)

    def _refreshed_for(self) -> tuple[dict[int, PriceEntry], list[PriceEntry]]:
        """Refreshed offers matched to bundled rows (by bundled row index) and the refreshed offers left over.

        A bundled row takes the cheapest refreshed offer of its provider, GPU and kind whose node sizes
        include its own (1 when the row does not say); each refreshed offer updates one bundled row at most.
        """
        if self.snapshot is None:
            return {}, []
        offers = self.snapshot.offers
        by_offer: dict[tuple[str, str, str], list[int]] = {}
        for n, o in enumerate(offers):
            if o.entry.gpu_id:
                by_offer.setdefault((o.entry.provider, o.entry.gpu_id, o.entry.kind), []).append(n)
        used: set[int] = set()
        matched: dict[int, PriceEntry] = {}
        for i, b in enumerate(list_prices()):
            candidates = [n for n in by_offer.get((b.provider, b.gpu_id, b.kind), ())
                          if n not in used and _node_size(b) in offers[n].gpu_counts]
            if not b.gpu_id or not candidates:
                continue
            best = min(candidates, key=lambda n: offers[n].entry.usd_per_gpu_hour)
            used.add(best)
            if _newer_or_same(offers[best].entry, b):
                matched[i] = offers[best].entry
        return matched, [o.entry for n, o in enumerate(offers) if n not in used]

    def _build(self) -> list[EffectivePrice]:
        edits = {e.key: e for e in self.edits}
        out: list[EffectivePrice] = []
        matched, extra = self._refreshed_for()

        def row(key: str, base: PriceEntry, bundled: PriceEntry | None, refreshed: PriceEntry | None) -> None:
            edit = edits.get(key)
            if edit is None:
                origin: Origin = "refreshed" if refreshed is not None else "bundled"
                out.append(EffectivePrice(key=key, entry=base, origin=origin, bundled=bundled, refreshed=refreshed))
                return
            was = (f"{'refreshed' if refreshed is not None else 'bundled'} ${base.usd_per_gpu_hour:.2f}/GPU-h, "
                   f"seen {base.date_seen or 'undated'}")
            entry = base.model_copy(update={
                "usd_per_gpu_hour": edit.usd_per_gpu_hour,
                "billing": edit.billing,
                "billing_text": f"per-{edit.billing} (your edit)",
                "date_seen": edit.date,
                "notes": f"Edited by you ({was}). {base.notes}".strip(),
            })
            out.append(EffectivePrice(key=key, entry=entry, origin="edited", bundled=bundled, refreshed=refreshed))

        for i, bundled in enumerate(list_prices()):
            refreshed = matched.get(i)
            row(bundled_key(bundled), refreshed or bundled, bundled, refreshed)
        taken = {p.key for p in out}
        for refreshed in extra:
            key = bundled_key(refreshed)
            if key not in taken:  # two snapshot rows with one identity: the first one counts
                taken.add(key)
                row(key, refreshed, None, refreshed)
        for add in self.additions:
            entry = PriceEntry(
                provider=add.provider,
                gpu_label=add.gpu_label or _gpu_name(add.gpu_id),
                gpu_id=add.gpu_id,
                usd_per_gpu_hour=add.usd_per_gpu_hour,
                kind=add.kind,
                billing=add.billing,
                billing_text=f"per-{add.billing}",
                date_seen=add.date,
                source="added by you",
            )
            out.append(EffectivePrice(key=add.key, entry=entry, origin="added"))
        return out

    def find(self, key: str) -> EffectivePrice | None:
        """The effective price with this key, or ``None``."""
        return next((p for p in self.effective_prices() if p.key == key), None)

    def prices_for_gpu(self, gpu_id: str) -> list[PriceEntry]:
        """Effective price points for one catalog GPU, cheapest first (like the catalog's)."""
        return sorted((p.entry for p in self.effective_prices() if p.entry.gpu_id == gpu_id),
                      key=lambda e: e.usd_per_gpu_hour)

    def default_price(self, gpu_id: str, num_gpus: int = 1) -> PriceEntry | None:
        """The effective on-demand price that costs least for a plan on ``num_gpus`` (whole nodes billed), else
        the cheapest of any kind (as the catalog's :func:`~tuneplan.catalog.prices.default_price`)."""
        prices = self.prices_for_gpu(gpu_id)
        return (self._cheapest_for_plan(gpu_id, {"on-demand"}, num_gpus)
                or self._cheapest_for_plan(gpu_id, {p.kind for p in prices}, num_gpus))

    def _cheapest_for_plan(self, gpu_id: str, kinds: set[str], num_gpus: int) -> PriceEntry | None:
        """The offer of these kinds that costs least per hour for a plan on ``num_gpus``, whole nodes billed
        (:func:`tuneplan.catalog.prices.plan_usd_per_gpu_hour`): an 8-GPU node is no bargain for one GPU."""
        pool = [p for p in self.prices_for_gpu(gpu_id) if p.kind in kinds]
        return min(pool, key=lambda e: plan_usd_per_gpu_hour(e, num_gpus)) if pool else None

    def on_demand_price(self, gpu_id: str, num_gpus: int = 1) -> PriceEntry | None:
        """The cheapest effective price of kind ``on-demand`` only for a plan on ``num_gpus``, or ``None``."""
        return self._cheapest_for_plan(gpu_id, {"on-demand"}, num_gpus)

    def spot_price(self, gpu_id: str, num_gpus: int = 1) -> PriceEntry | None:
        """The cheapest effective ``community`` or ``spot`` price for a plan on ``num_gpus``, or ``None``."""
        return self._cheapest_for_plan(gpu_id, {"community", "spot"}, num_gpus)

    def comparison_prices(self, gpu_ids: list[str], num_gpus: int = 1) -> dict[str, tuple[float | None, float | None]]:
        """``gpu_id -> (on-demand USD/GPU-h, spot USD/GPU-h)`` for :func:`tuneplan.core.compare.compare_gpus`, for a
        plan on ``num_gpus``: a node-only offer's price includes the node's GPUs the plan leaves idle."""
        out: dict[str, tuple[float | None, float | None]] = {}
        for gpu_id in gpu_ids:
            # "on demand" means an on-demand offer; marketplace prices only ever appear as spot
            od, spot = self.on_demand_price(gpu_id, num_gpus), self.spot_price(gpu_id, num_gpus)
            out[gpu_id] = (plan_usd_per_gpu_hour(od, num_gpus) if od else None,
                           plan_usd_per_gpu_hour(spot, num_gpus) if spot else None)
        return out

    def comparison_billing(self, gpu_ids: list[str], num_gpus: int = 1) -> dict[str, tuple[str | None, str | None]]:
        """``gpu_id -> (billing of the on-demand offer, billing of the spot offer)`` matching
        :meth:`comparison_prices`, so each price is billed by its provider's granularity."""
        out: dict[str, tuple[str | None, str | None]] = {}
        for gpu_id in gpu_ids:
            od, spot = self.on_demand_price(gpu_id, num_gpus), self.spot_price(gpu_id, num_gpus)
            out[gpu_id] = (od.billing if od else None, spot.billing if spot else None)
        return out

    # ------------------------------------------------------------------ changing
    def edit(self, key: str, *, usd_per_gpu_hour: float | None = None, billing: Billing | None = None,
             date: str | None = None) -> EffectivePrice:
        """Change one effective price (bundled, already edited or added); returns the new one.

        A changed price or billing without a ``date`` is dated today. An edit that makes a bundled
        price equal to the shipped one again (price, billing and date) is dropped.

        Raises:
            KeyError: no price has this key.
            ValueError: a price outside 0-10,000 USD per GPU-hour, or a bad billing/date.
        """
        current = self.find(key)
        if current is None:
            raise KeyError(key)
        e = current.entry
        if date is None:
            changed = (usd_per_gpu_hour is not None and usd_per_gpu_hour != e.usd_per_gpu_hour) or (
                billing is not None and billing != e.billing)
            date = _today() if changed else e.date_seen
        values = {
            "usd_per_gpu_hour": e.usd_per_gpu_hour if usd_per_gpu_hour is None else usd_per_gpu_hour,
            "billing": e.billing if billing is None else billing,
            "date": date,
        }
        if current.origin == "added":
            i = next(n for n, a in enumerate(self.additions) if a.key == key)
            self.additions[i] = PriceAddition.model_validate({**self.additions[i].model_dump(), **values})
        else:
            # the edit names the shipped row (or the refreshed one where none was shipped) and is dropped
            # again when it equals the price under it
            identity, base = current.bundled or current.refreshed, current.base
            assert identity is not None and base is not None
            edit = PriceEdit.model_validate({"provider": identity.provider, "gpu_label": identity.gpu_label,
                                             "kind": identity.kind, "source": identity.source, **values})
            self.edits = [x for x in self.edits if x.key != key]
            if (edit.usd_per_gpu_hour, edit.billing, edit.date) != (base.usd_per_gpu_hour, base.billing,
                                                                     base.date_seen):
                self.edits.append(edit)
        self._cache = None
        found = self.find(key)
        assert found is not None
        return found

    def add(self, *, provider: str, gpu_id: str, kind: PriceKind, usd_per_gpu_hour: float,
            billing: Billing = "hour", date: str | None = None, gpu_label: str = "") -> EffectivePrice:
        """Add a price of the user's own; returns it (``origin == "added"``).

        Raises:
            ValueError: an empty provider, a price outside 0-10,000 USD per GPU-hour, a bad kind.
        """
        taken = {a.id for a in self.additions}
        new_id = f"u-{secrets.token_hex(4)}"
        while new_id in taken:
            new_id = f"u-{secrets.token_hex(4)}"
        addition = PriceAddition(id=new_id, provider=provider.strip(), gpu_id=gpu_id, gpu_label=gpu_label,
                                 kind=kind, usd_per_gpu_hour=usd_per_gpu_hour, billing=billing,
                                 date=date or _today())
        self.additions.append(addition)
        self._cache = None
        found = self.find(addition.key)
        assert found is not None
        return found

    def reset(self, target: str | EffectivePrice | PriceEntry) -> int:
        """Undo the user's changes for one price or one GPU; returns how many were undone.

        ``target``: a price key (``b:...`` edited price back to bundled, ``u:...`` added price
        removed), an :class:`EffectivePrice` or :class:`PriceEntry` (matched like the key), or a
        catalog GPU id (every edit and addition of that GPU).
        """
        if isinstance(target, EffectivePrice):
            keys = {target.key}
        elif isinstance(target, PriceEntry):
            keys = {p.key for p in self.effective_prices() if p.entry == target} or {bundled_key(target)}
        elif target.startswith(("b:", "u:")):
            keys = {target}
        else:
            keys = {p.key for p in self.effective_prices() if p.entry.gpu_id == target and p.is_yours}
        before = len(self.edits) + len(self.additions)
        self.edits = [e for e in self.edits if e.key not in keys]
        self.additions = [a for a in self.additions if a.key not in keys]
        self._cache = None
        return before - len(self.edits) - len(self.additions)

    def reset_all(self) -> int:
        """Back to the bundled prices: drop every edit and addition; returns how many."""
        n = len(self.edits) + len(self.additions)
        self.edits, self.additions = [], []
        self._cache = None
        return n


def effective_prices(book: PriceBook | None = None) -> list[EffectivePrice]:
    """The prices plans use: ``book``'s effective prices, or the bundled ones when ``book`` is None."""
    return (book if book is not None else PriceBook()).effective_prices()


def reset(book: PriceBook, target: str | EffectivePrice | PriceEntry | None = None) -> int:
    """Undo edits for one price, one GPU id, or everything (``target=None``); see :meth:`PriceBook.reset`."""
    return book.reset_all() if target is None else book.reset(target)


# ---------------------------------------------------------------------------------------------
# file


def _quarantine(path: Path) -> Path:
    return quarantine_file(path, paths.quarantine_dir(path.parent))


def _parse(raw: bytes) -> tuple[dict[str, Any], int]:
    """The document and its schema version; ValueError with a short reason when it is not one."""
    data = loads_untrusted_json(raw)  # ValueError for bad UTF-8 or JSON, too deep, too big
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f'not a Tuneplan price book (no "format": "{FORMAT}")')
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ValueError("schema_version is missing or not a positive whole number")
    return data, version


def load_price_book(path: Path | None = None, snapshot_path: Path | None = None) -> PriceBook:
    """Read the price book and the last refreshed prices beside it; never raises for a bad or missing file.

    The snapshot is ``snapshot_path``, by default ``price_snapshot.json`` in the price book's folder
    (:func:`~tuneplan.storage.price_snapshot.load_snapshot`: a damaged one is moved aside and named in
    :attr:`~PriceBook.snapshot_notice`; the bundled prices are then used under the user's edits).

    * missing: an empty book (bundled prices only);
    * unreadable JSON (bad UTF-8, bad JSON, nesting that exhausts the parser), invalid content, a
      file over ``MAX_FILE_BYTES`` (4 MiB) or not a regular file (a FIFO or a link to a device,
      refused without reading): the file is moved to ``<data>/quarantine/`` and an empty book is
      returned whose :attr:`~PriceBook.notice` names the problem and the new location;
    * saved by a newer Tuneplan: left in place, an empty ``read_only`` book with a notice;
    * cannot be read at all (permissions): an empty book with a notice.
    """
    p = path if path is not None else price_book_path()
    book = _load_book(p)
    snapshot, notice = load_snapshot(snapshot_path if snapshot_path is not None else price_snapshot_path(p.parent))
    if notice:
        log.warning("%s", notice)
    book.snapshot, book.snapshot_notice = snapshot, notice
    return book


def _load_book(p: Path) -> PriceBook:
    try:
        raw = read_regular_file(p, MAX_FILE_BYTES)  # a FIFO or /dev/zero is refused unread
    except FileNotFoundError:
        return PriceBook()
    except UnsafeFileError as exc:
        why = "not a regular file" if exc.reason == "not-regular" else f"too large ({(exc.size or 0) / 2**20:.1f} MiB)"
        return _moved_aside(p, why)
    except OSError as exc:
        log.warning("cannot read %s: %s", p, exc)
        return PriceBook(notice=f"Your price book ({p}) could not be read ({describe_os_error(exc)}); "
                                "the bundled prices are used.")
    try:
        data, version = _parse(raw)
    except ValueError as exc:
        return _moved_aside(p, str(exc))
    if version > SCHEMA_VERSION:
        log.warning("%s has schema %s (newer than %s); not used, not overwritten", p, version, SCHEMA_VERSION)
        return PriceBook(read_only=True, notice=(
            f"Your price book ({p}) was saved by a newer Tuneplan (format version {version}); it is left "
            "as it is and the bundled prices are used. Changes made now cannot be saved."))
    try:
        book = PriceBook.model_validate({"edits": data.get("edits", []), "additions": data.get("additions", [])})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ()))
        return _moved_aside(p, f"invalid entry at {where}: {err.get('msg', 'invalid value')}")
    ids = [a.id for a in book.additions]
    if len(ids) != len(set(ids)):
        return _moved_aside(p, "two added prices share one id")
    bundled = {bundled_key(e) for e in list_prices()}
    orphans = [e for e in book.edits if e.key not in bundled]
    if orphans:
        log.info("%d price edit(s) refer to prices not bundled (refreshed ones, or gone); kept in the file, "
                 "applied while their row exists", len(orphans))
    return book


def _moved_aside(path: Path, reason: str) -> PriceBook:
    log.error("price book %s is unreadable: %s", path, reason)
    try:
        dest = _quarantine(path)
    except OSError as exc:
        log.error("could not move %s aside: %s", path, exc)
        return PriceBook(notice=(
            f"Your price book ({path}) is damaged ({reason}) and could not be moved aside "
            f"({describe_os_error(exc)}). The bundled prices are used; your next price change replaces it."))
    return PriceBook(notice=(
        f"Your price book was damaged ({reason}). It was moved to {dest} and the bundled prices are used."))


def dumps_price_book(book: PriceBook) -> bytes:
    """The bytes :func:`save_price_book` writes (UTF-8 JSON with the versioned envelope)."""
    document = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "app_version": __version__,
        "saved_at": datetime.now(UTC).isoformat(timespec="seconds"),
        **book.model_dump(mode="json"),
    }
    return (json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def save_price_book(book: PriceBook, path: Path | None = None) -> Path:
    """Write the price book atomically (temp file, fsync, rename); returns the path.

    Raises:
        PriceBookError: the book came from a newer Tuneplan's file (``read_only``), or the write
            failed (disk full, permission denied...); the previous file is then intact.
    """
    try:
        p = path if path is not None else price_book_path()
    except OSError as exc:
        raise PriceBookError(f"Could not save your prices: {describe_os_error(exc)}.") from exc
    if book.read_only:
        raise PriceBookError(f"Not saved: {p} was written by a newer Tuneplan and is left as it is.")
    try:
        atomic_write_bytes(p, dumps_price_book(book))
    except OSError as exc:
        raise PriceBookError(f"Could not save your prices to {p}: {describe_os_error(exc)}.") from exc
    return p
