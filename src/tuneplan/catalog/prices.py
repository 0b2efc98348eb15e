"""Bundled GPU rental prices (``data/prices.csv``) and provider billing terms (``data/provider_terms.csv``).

Both files are verbatim copies of ``shared/reference/prices.csv`` and ``provider_terms.csv``
(collected 2026-11; each row keeps its ``source`` and ``date_seen``). Prices are **USD per GPU per
hour**. Rows for multi-GPU instances (``"p5.48xlarge, 8x"``, ``"HGX H100 (8x node)"``) were already
divided by the GPU count in the reference file: the instance price is in ``notes`` (e.g.
``$55.04/hr per instance`` next to 6.88 = 55.04 / 8). :func:`list_prices` checks that: when a
row's notes state an instance price and its label a GPU count, the two must agree with
``usd_per_gpu_hour`` within 1 %, otherwise the row is divided (and the fix is noted).

Prices move weekly; the app treats them as editable defaults. :func:`price_age_days` and
:func:`is_old_price` say how old one is on a given day (the day the app runs, passed in): older than
:data:`OLD_PRICE_DAYS` (90) days is marked old wherever an offer is shown.
"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from tuneplan.catalog._data import read_csv, to_float
from tuneplan.core.scenario import Pricing

__all__ = [
    "OLD_PRICE_DAYS",
    "PriceEntry",
    "billed_gpus",
    "plan_usd_per_gpu_hour",
    "PriceDates",
    "ProviderTerms",
    "default_price",
    "is_old_price",
    "list_prices",
    "list_provider_terms",
    "price_age_days",
    "price_dates",
    "prices_for_gpu",
    "pricing_from_entry",
    "on_demand_price",
    "seen_on",
    "spot_price",
    "terms_for",
]

Billing = Literal["second", "minute", "hour"]
PriceKind = Literal["on-demand", "community", "spot", "serverless"]


class PriceEntry(BaseModel):
    """One hourly price point for renting one GPU.

    Attributes:
        provider: cloud or marketplace (``"RunPod"``, ``"AWS"``...).
        gpu_label: the provider's own label, e.g. ``"H100 SXM 80GB (p5.48xlarge, 8x)"``.
        gpu_id: catalog GPU id, or ``""`` for GPUs not in the catalog.
        usd_per_gpu_hour: USD per GPU per hour (instance prices already divided by GPU count).
        kind: ``on-demand``, ``community`` (RunPod Community Cloud, Vast.ai, Akash), ``spot``
            or ``serverless``.
        billing: rounding granularity derived from the provider text (``per-second`` -> ``second``).
            ``hour`` where the reference says ``unverified`` or nothing (the conservative choice).
        billing_text: the original ``billing_granularity`` text.
        minimum_billed_minutes: a stated minimum charge (``60 s minimum`` -> 1.0), else 0.
        date_seen: when the price was read (free text, usually ISO date; may be ``undated ...``).
        source: where the price came from.
        notes: anything else from the reference row.
        gpus_per_node: GPUs in the instance or node this price is for (``8`` for ``p5.48xlarge, 8x``);
            0 where the source does not say (a single GPU rented on its own, as a rule). Where the
            source offers one per-GPU price at several node sizes, the largest of ``node_sizes``.
        node_sizes: those node sizes, ascending (RunPod's ``(1, 2, 4, 8)``), else ``()``.
        interconnect: how the node's GPUs are linked where the source says (``"NVLink (SXM)"``,
            ``"PCIe"``); ``""`` when it does not.
    """

    model_config = ConfigDict(frozen=True)

    provider: str
    gpu_label: str
    gpu_id: str = ""
    usd_per_gpu_hour: float = Field(ge=0)
    kind: PriceKind
    billing: Billing
    billing_text: str = ""
    minimum_billed_minutes: float = Field(default=0.0, ge=0)
    date_seen: str = ""
    source: str = ""
    notes: str = ""
    gpus_per_node: int = Field(default=0, ge=0, le=1024)
    node_sizes: tuple[int, ...] = Field(default=(), max_length=64)
    interconnect: str = ""


class ProviderTerms(BaseModel):
    """Billing terms of one provider, from ``provider_terms.csv``.

    Attributes:
        provider: provider name as in ``prices.csv``.
        billing: compute billing granularity (``second``/``minute``/``hour``; ``hour`` if unknown).
        billing_text: the original granularity text.
        minimum_billed_minutes: stated minimum per start (AWS/GCP: 1 minute).
        storage_usd_per_gb_month: USD per GB-month by storage kind (``"container disk"``,
            ``"volume disk (running pod)"``, ``"network volume (<1 TB)"``...), as the file names them.
        egress_usd_per_gb: internet egress USD per GB, ``None`` where the file gives no figure.
        spot_discount: stated spot/interruptible discount as a fraction of on-demand, if any.
        notes: the file's notes for this provider, joined.
        sources: the ``source`` cells of the provider's rows.
    """

    model_config = ConfigDict(frozen=True)

    provider: str
    billing: Billing = "hour"
    billing_text: str = ""
    minimum_billed_minutes: float = 0.0
    storage_usd_per_gb_month: dict[str, float] = Field(default_factory=dict)
    egress_usd_per_gb: float | None = None
    spot_discount: float | None = None
    notes: str = ""
    sources: tuple[str, ...] = ()


_MIN_RE = re.compile(r"(\d+(?:\.\d+)?)\s*(s|sec|min|minute)\w*\s+minimum", re.I)
_INSTANCE_RE = re.compile(r"\$(\d+(?:\.\d+)?)/hr(?: per (?:instance|(\d+)-GPU node|(\d+) GPUs|node))?", re.I)
_COUNT_RE = re.compile(r"\b(\d+)x\b")


def parse_billing(text: str) -> tuple[Billing, float]:
    """Billing granularity and minimum billed minutes from provider text.

    ``"per-second (60 s minimum)"`` -> ``("second", 1.0)``; ``"per-minute"`` -> ``("minute", 0)``;
    ``"unverified"``, ``"n/a"``, ``""`` -> ``("hour", 0)``: with no stated granularity whole hours
    are assumed, which can only overstate the cost.
    """
    low = text.lower()
    billing: Billing = "second" if "second" in low else "minute" if "minute" in low else "hour"
    minimum = 0.0
    if m := _MIN_RE.search(low):
        value = float(m.group(1))
        minimum = value / 60 if m.group(2).startswith("s") else value
    return billing, minimum


def _per_gpu(row: dict[str, str], price: float) -> tuple[float, str]:
    """Check a multi-GPU instance row against the instance price in its notes; divide if needed."""
    notes, label = row.get("notes", ""), row.get("gpu", "")
    m = _INSTANCE_RE.search(notes)
    count_m = _COUNT_RE.search(label)
    count = int(m.group(2) or m.group(3) or 0) if m else 0
    count = count or (int(count_m.group(1)) if count_m else 0)
    if not m or count <= 1 or "per gpu" in notes.lower():
        return price, notes
    instance = float(m.group(1))
    if abs(price * count - instance) <= 0.01 * instance:
        return price, notes  # already per GPU, as the reference README says
    if abs(price - instance) <= 0.01 * instance:
        return instance / count, f"{notes} [divided by {count}: the row held the instance price]"
    return price, notes


def _entry(row: dict[str, str]) -> PriceEntry | None:
    price = to_float(row.get("price_usd_per_hr", ""))
    kind = row.get("kind", "")
    if price is None or kind not in {"on-demand", "community", "spot", "serverless"}:
        return None
    price, notes = _per_gpu(row, price)
    billing, minimum = parse_billing(row.get("billing_granularity", ""))
    count = _COUNT_RE.search(row.get("gpu", ""))
    return PriceEntry(
        provider=row["provider"],
        gpu_label=row.get("gpu", ""),
        gpu_id=row.get("gpu_id", ""),
        usd_per_gpu_hour=price,
        kind=kind,  # type: ignore[arg-type]
        billing=billing,
        billing_text=row.get("billing_granularity", ""),
        minimum_billed_minutes=minimum,
        date_seen=row.get("date_seen", ""),
        source=row.get("source", ""),
        notes=notes,
        gpus_per_node=int(count.group(1)) if count else 0,
    )


@lru_cache(maxsize=1)
def _prices() -> tuple[PriceEntry, ...]:
    return tuple(e for row in read_csv("prices.csv") if (e := _entry(row)) is not None)


def list_prices() -> list[PriceEntry]:
    """Every bundled price point (USD per GPU-hour), in file order. Entries are immutable."""
    return list(_prices())


class PriceDates(NamedTuple):
    """When the bundled prices were read: the earliest and latest ISO ``date_seen`` and how many rows have none."""

    first: str
    last: str
    undated: int
    total: int


_ISO_DATE = re.compile(r"^\d{4}-\d{2}(-\d{2})?$")


def price_dates() -> PriceDates:
    """The date span of the bundled prices (``date_seen`` that is an ISO date; the rest count as undated)."""
    prices = _prices()
    dated = sorted(p.date_seen for p in prices if _ISO_DATE.match(p.date_seen))
    return PriceDates(dated[0] if dated else "", dated[-1] if dated else "", len(prices) - len(dated), len(prices))


#: A price seen more than this many days before today is marked old. The reference's own history shows
#: why a quarter: RunPod's Secure Cloud H100 SXM went 3.29 -> 3.49 -> 3.99 USD (+21 %) between August
#: and November 2026 and Lambda raised several SKUs between May and September, so a price older than
#: about three months has, more often than not, moved by more than the 10 % a plan's cost can stand;
#: marketplace medians (Vast.ai) swing 2x week to week and are never "fresh" for long.
OLD_PRICE_DAYS = 90

_DATE_PREFIX = re.compile(r"^(\d{4})-(\d{2})(?:-(\d{2}))?(?![\d-])")


def seen_on(date_seen: str) -> date | None:
    """The day a price was seen, from its ``date_seen`` text; ``None`` when undated or unreadable.

    ``date_seen`` is an ISO date (``2026-11-09``), optionally followed by text (``2026-11-09 (read_on)``),
    or a month (``2026-11``, read as its first day: the oldest it can be).
    """
    m = _DATE_PREFIX.match(date_seen.strip())
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3) or 1))
    except ValueError:
        return None


def price_age_days(date_seen: str, today: date) -> int | None:
    """Days from ``date_seen`` (see :func:`seen_on`) to ``today``; ``None`` for an undated or unreadable
    date. A date after ``today`` counts as 0 days old."""
    seen = seen_on(date_seen)
    return None if seen is None else max(0, (today - seen).days)


def is_old_price(date_seen: str, today: date, max_days: int = OLD_PRICE_DAYS) -> bool:
    """True when the price was seen more than ``max_days`` (90) days before ``today``.

    An undated price is not "old" (its age is unknown; it is shown as undated instead).
    """
    age = price_age_days(date_seen, today)
    return age is not None and age > max_days


def prices_for_gpu(gpu_id: str) -> list[PriceEntry]:
    """Price points for one catalog GPU id, cheapest first (empty list if none)."""
    return sorted((p for p in _prices() if p.gpu_id == gpu_id), key=lambda p: p.usd_per_gpu_hour)


def billed_gpus(entry: PriceEntry, num_gpus: int) -> int:
    """How many GPUs this offer bills to run a plan on ``num_gpus``: the plan's own count, unless the offer
    rents only whole nodes (CoreWeave's ``HGX B200 (8x node)``, AWS's ``p5.48xlarge, 8x``), where a 1-GPU plan
    pays for all 8. An offer with several node sizes (RunPod's 1, 2, 4, 8) bills the smallest that holds the
    plan, or whole nodes of the largest.
    """
    n = max(1, num_gpus)
    if entry.node_sizes:
        holding = [size for size in entry.node_sizes if size >= n]
        if holding:
            return min(holding)
        largest = max(entry.node_sizes)
        return -(-n // largest) * largest
    node = entry.gpus_per_node
    if node <= 1:
        return n
    return -(-n // node) * node


def plan_usd_per_gpu_hour(entry: PriceEntry, num_gpus: int) -> float:
    """The offer's price per hour for each of the plan's GPUs: the whole nodes it bills, spread over them
    (``usd_per_gpu_hour`` itself when the plan fills its nodes)."""
    n = max(1, num_gpus)
    return entry.usd_per_gpu_hour * billed_gpus(entry, n) / n


def default_price(gpu_id: str, num_gpus: int = 1) -> PriceEntry | None:
    """The price a new plan starts with: the **on-demand** entry for this GPU that costs least for a plan on
    ``num_gpus``, whole nodes billed (:func:`plan_usd_per_gpu_hour`): an offer sold only as 8-GPU nodes is no
    bargain for a 1-GPU plan, whatever its per-GPU rate.

    On-demand (RunPod Secure Cloud, Lambda, AWS...) is the dependable choice: it is not reclaimed
    mid-run. When the GPU has no on-demand price, the cheapest entry of any kind (community,
    spot, serverless) is returned instead; ``None`` when the GPU has no price at all.
    Ties keep file order. Check ``entry.kind`` to tell which case applied; price the plan with
    :func:`plan_usd_per_gpu_hour`.
    """
    prices = prices_for_gpu(gpu_id)
    return (_cheapest_for_plan(prices, {"on-demand"}, num_gpus)
            or _cheapest_for_plan(prices, {p.kind for p in prices}, num_gpus))


def _cheapest_for_plan(prices: list[PriceEntry], kinds: set[str], num_gpus: int) -> PriceEntry | None:
    pool = [p for p in prices if p.kind in kinds]
    return min(pool, key=lambda e: plan_usd_per_gpu_hour(e, num_gpus)) if pool else None


def on_demand_price(gpu_id: str, num_gpus: int = 1) -> PriceEntry | None:
    """The entry of kind ``on-demand`` that costs least for a plan on ``num_gpus`` (whole nodes billed,
    :func:`plan_usd_per_gpu_hour`), or ``None`` (the comparison's "on demand" column)."""
    return _cheapest_for_plan(prices_for_gpu(gpu_id), {"on-demand"}, num_gpus)


def spot_price(gpu_id: str, num_gpus: int = 1) -> PriceEntry | None:
    """The cheapest interruptible/marketplace price (``community`` or ``spot`` kind) for a plan on ``num_gpus``
    (whole nodes billed: CoreWeave's 8-GPU spot node is no offer for one GPU), or ``None``.

    Community-cloud and marketplace hosts (RunPod Community, Vast.ai, Akash) can disappear and spot
    capacity can be reclaimed, so plans using this price should budget for restarts.
    """
    return _cheapest_for_plan(prices_for_gpu(gpu_id), {"community", "spot"}, num_gpus)


def _storage_key(item: str) -> str | None:
    low = item.lower()
    if any(w in low for w in ("disk", "volume", "storage", "file share")) and "discount" not in low:
        return item
    return None


@lru_cache(maxsize=1)
def _terms() -> tuple[ProviderTerms, ...]:
    by_provider: dict[str, dict] = {}
    for row in read_csv("provider_terms.csv"):
        provider = row["provider"]
        d = by_provider.setdefault(
            provider, {"provider": provider, "storage_usd_per_gb_month": {}, "notes": [], "sources": []}
        )
        item, unit, price = row.get("item", ""), row.get("unit", "").lower(), to_float(row.get("price", ""))
        gran = row.get("billing_granularity", "")
        if price is None and gran and "billing" not in d:
            # The compute row (no price) states the granularity of GPU time.
            d["billing"], d["minimum_billed_minutes"] = parse_billing(gran)
            d["billing_text"] = gran
        if price is not None:
            low = item.lower()
            if "egress" in low and "usd/gb" in unit:
                d["egress_usd_per_gb"] = price
            elif "discount" in low and "fraction" in unit:
                d["spot_discount"] = price if ("spot" in low or "interruptible" in low) else d.get("spot_discount")
            elif (key := _storage_key(item)) is not None and "usd/gb" in unit:
                d["storage_usd_per_gb_month"][key] = price
        if row.get("notes"):
            d["notes"].append(f"{item}: {row['notes']}")
        if row.get("source"):
            d["sources"].append(row["source"])
    out = []
    for d in by_provider.values():
        d["notes"] = "; ".join(d["notes"])
        d["sources"] = tuple(d["sources"])
        out.append(ProviderTerms(**d))
    return tuple(out)


def list_provider_terms() -> list[ProviderTerms]:
    """Billing, storage (USD per GB-month) and egress (USD per GB) terms per provider.

    Parsed from ``provider_terms.csv``. Providers in ``prices.csv`` that are missing here
    (Nebius, Akash, Verda...) have no stated terms. Paperspace's storage row is an overage price
    per GB (unit ``USD/GB``, monthly); it is included in ``storage_usd_per_gb_month`` as such.
    """
    return list(_terms())


def terms_for(provider: str) -> ProviderTerms | None:
    """Billing terms of a provider (exact name as in ``prices.csv``, e.g. ``"RunPod"``), or ``None``.

    ``"RunPod Serverless"`` and ``"Paperspace (DigitalOcean)"`` fall back to the base provider's terms.
    """
    terms = {t.provider: t for t in _terms()}
    if provider in terms:
        return terms[provider]
    for name, t in terms.items():
        if provider.startswith(name + " "):
            return t
    return None


def pricing_from_entry(entry: PriceEntry) -> Pricing:
    """A :class:`~tuneplan.core.scenario.Pricing` that starts from this price point.

    Fills provider, offer kind, USD per GPU-hour, date, billing granularity and minimum charge from
    the entry; storage (the provider's ``volume`` price in USD per GB-month, for a ``volume`` disk)
    and egress (USD per GB) from :func:`terms_for` where the provider states them. Everything else
    keeps the :class:`Pricing` defaults.
    """
    update: dict = {
        "provider": entry.provider,
        "offer_kind": entry.kind,
        "price_per_gpu_hour": entry.usd_per_gpu_hour,
        "price_date": entry.date_seen,
        "billing": entry.billing,
        "minimum_billed_minutes": entry.minimum_billed_minutes,
    }
    terms = terms_for(entry.provider)
    if terms is not None:
        volume = [v for k, v in terms.storage_usd_per_gb_month.items() if "volume" in k.lower()]
        if volume:
            update["storage_kind"] = "volume"
            update["storage_usd_per_gb_month"] = volume[0]
        if terms.egress_usd_per_gb is not None:
            update["egress_usd_per_gb"] = terms.egress_usd_per_gb
    return Pricing(**update)
