"""``tuneplan prices list|refresh``: the price book from the command line (issue #19 part 3). No Qt imports.

    tuneplan prices list [--gpu ID] [--json]
        every effective price (bundled, refreshed, your edits and additions) with its provider, kind, USD per
        GPU-hour, GPUs per node, interconnect and the date it was seen; older than 90 days is marked "old"
    tuneplan prices refresh [--source-url URL] [--timeout S] [--provider P]...
        fetch the public catalogs (dstack's gpuhunt), write the dated snapshot and print what was added,
        updated and kept; your edits are never overwritten. Exit 1 when no catalog answered (the last
        snapshot stays in use) or the new snapshot could not be saved.

Errors print one line, ``tuneplan: error: ...``, on standard error and exit with status 2.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from datetime import date
from typing import Any, TextIO

from tuneplan.core.text import json_terminal_safe, terminal_safe

__all__ = ["add_prices_arguments", "run_prices"]

#: ``tuneplan.storage.price_refresh.PROVIDERS`` (a test keeps them equal), written out so that building the parser
#: does not import the storage layer.
PROVIDER_IDS = ("aws", "azure", "gcp", "lambdalabs", "nebius", "oci", "runpod", "verda", "cloudrift")
_MAX_LISTED_CHANGES = 40


def _timeout(text: str) -> float:
    try:
        value = float(text) if len(text) <= 40 else math.nan
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= 3600):
        raise argparse.ArgumentTypeError(f"must be a number of seconds in (0, 3600], got {text[:40]!r}")
    return value


def add_prices_arguments(p: argparse.ArgumentParser, parser_class: type[argparse.ArgumentParser]) -> None:
    """``prices list`` and ``prices refresh`` under the ``prices`` command's parser."""
    sub = p.add_subparsers(dest="prices_command", metavar="{list,refresh}", parser_class=parser_class)
    sub.required = True
    ls = sub.add_parser("list", help="every price with its date (older than 90 days marked old)")
    ls.add_argument("--gpu", metavar="GPU", help="only this GPU: catalog id or common name ('H100 SXM', 'RTX 4090')")
    ls.add_argument("--json", action="store_true", help="machine-readable output")
    rf = sub.add_parser("refresh", help="update the prices from public catalogs (dstack's gpuhunt)")
    rf.add_argument("--source-url", metavar="URL",
                    help="the catalogs' base URL (default: $TUNEPLAN_PRICES_URL, else gpuhunt's public bucket); "
                         "https://, http:// or file://")
    rf.add_argument("--timeout", type=_timeout, default=60.0, metavar="S",
                    help="give up after S seconds in all (default 60)")
    rf.add_argument("--provider", action="append", choices=PROVIDER_IDS, metavar="P",
                    help=f"only this provider's catalog (repeatable): {', '.join(PROVIDER_IDS)}")


def _fail(message: str) -> int:
    print(f"tuneplan: error: {terminal_safe(message)}", file=sys.stderr)
    return 2


def _row(p: Any, today: date) -> dict[str, Any]:
    from tuneplan.catalog.prices import is_old_price, price_age_days

    e = p.entry
    return {
        "provider": e.provider, "gpu": e.gpu_label, "gpu_id": e.gpu_id, "kind": e.kind,
        "usd_per_gpu_hour": e.usd_per_gpu_hour, "billing": e.billing, "gpus_per_node": e.gpus_per_node,
        "interconnect": e.interconnect, "date_seen": e.date_seen, "age_days": price_age_days(e.date_seen, today),
        "old": is_old_price(e.date_seen, today), "origin": p.origin, "source": e.source,
    }


def _table(rows: list[dict[str, Any]]) -> str:
    head = ("Provider", "GPU", "Kind", "USD/GPU-h", "Node", "Interconnect", "Seen", "Yours")
    body = []
    for r in rows:
        seen = r["date_seen"] or "undated"
        body.append((
            r["provider"][:24], r["gpu"][:48], r["kind"], f"{r['usd_per_gpu_hour']:,.2f}",
            f"{r['gpus_per_node']}x" if r["gpus_per_node"] else "-", r["interconnect"][:30] or "-",
            (seen[:10] + " old") if r["old"] else seen[:28],
            r["origin"] if r["origin"] != "bundled" else "",
        ))
    widths = [max(len(x[c]) for x in [head, *body]) for c in range(len(head))]
    lines = ["  ".join(v.rjust(w) if c == 3 else v.ljust(w) for c, (v, w) in enumerate(zip(x, widths, strict=True)))
             .rstrip() for x in [head, *body]]
    return "\n".join(terminal_safe(line) for line in lines) + "\n"


def _snapshot_line(book: Any) -> str:
    from tuneplan.catalog.prices import price_dates

    s = book.snapshot
    if s is None:
        d = price_dates()
        return (f"No refreshed prices yet ('tuneplan prices refresh'); bundled prices seen {d.first} to {d.last}"
                f" ({d.undated} of {d.total} undated).")
    reached = [p.name for p in s.providers if not p.error]
    return f"Refreshed prices of {s.date} from {', '.join(reached) or 'no catalog'} ({s.source_url})."


def run_list(args: argparse.Namespace, out: TextIO) -> int:
    from tuneplan.catalog.gpus import match_gpu
    from tuneplan.catalog.prices import OLD_PRICE_DAYS
    from tuneplan.storage.price_book import load_price_book

    gpu_id = None
    if args.gpu:
        gpu = match_gpu(args.gpu)
        if gpu is None:
            return _fail(f"no catalog GPU matches {args.gpu!r} (see 'tuneplan estimate --list-gpus')")
        gpu_id = gpu.id
    book = load_price_book()
    today = date.today()
    prices = [p for p in book.effective_prices() if gpu_id is None or p.entry.gpu_id == gpu_id]
    prices.sort(key=lambda p: (p.entry.gpu_id, p.entry.usd_per_gpu_hour))
    rows = [_row(p, today) for p in prices]
    if args.json:
        document = {
            "today": today.isoformat(), "old_after_days": OLD_PRICE_DAYS,
            "snapshot": None if book.snapshot is None else {
                "fetched_at": book.snapshot.fetched_at, "source_url": book.snapshot.source_url,
                "providers": [s.model_dump() for s in book.snapshot.providers]},
            "notices": [n for n in (book.notice, book.snapshot_notice) if n],
            "prices": rows,
        }
        out.write(json_terminal_safe(json.dumps(document, indent=2, ensure_ascii=False)) + "\n")
        return 0
    for notice in (book.notice, book.snapshot_notice):
        if notice:
            print(f"tuneplan: note: {terminal_safe(notice)}", file=sys.stderr)
    out.write(_table(rows))
    old = sum(r["old"] for r in rows)
    out.write(terminal_safe(f"{len(rows)} price(s), USD per GPU per hour; {old} seen more than {OLD_PRICE_DAYS} days "
                            f"before today ({today.isoformat()}) are marked old.") + "\n")
    out.write(terminal_safe(_snapshot_line(book)) + "\n")
    return 0


def _change_line(verb: str, p: Any, was: Any = None) -> str:
    e = p.entry
    now = f"${e.usd_per_gpu_hour:,.2f} ({e.date_seen or 'undated'})"
    if was is not None:
        now = f"${was.entry.usd_per_gpu_hour:,.2f} ({was.entry.date_seen or 'undated'}) -> {now}"
    return terminal_safe(f"  {verb:<8} {e.provider} · {e.gpu_label} · {e.kind}: {now}")


def run_refresh(args: argparse.Namespace, out: TextIO) -> int:
    from tuneplan.storage.price_refresh import refresh_prices

    def progress(line: str) -> None:
        print(terminal_safe(line), file=sys.stderr, flush=True)

    try:
        result = refresh_prices(source_url=args.source_url, timeout=args.timeout, providers=args.provider,
                                progress=progress)
    except ValueError as exc:
        return _fail(str(exc))
    if not result.ok:
        print(terminal_safe(result.message), file=sys.stderr)
        return 1
    c = result.changes
    out.write(terminal_safe(result.message.splitlines()[0]) + "\n")
    for verb, items in (("added", [(p, None) for p in c.added]), ("updated", [(a, b) for b, a in c.updated]),
                        ("removed", [(p, None) for p in c.removed])):
        for p, was in items[:_MAX_LISTED_CHANGES]:
            out.write(_change_line(verb, p, was) + "\n")
        if len(items) > _MAX_LISTED_CHANGES:
            out.write(f"  ... and {len(items) - _MAX_LISTED_CHANGES} more {verb} ('tuneplan prices list')\n")
    for line in result.message.splitlines()[1:]:
        out.write(terminal_safe(line) + "\n")
    if result.save_error:  # fetched, but nothing kept for next time
        print(f"tuneplan: error: {terminal_safe(result.save_error)}", file=sys.stderr)
        return 1
    if result.path is not None:
        out.write(terminal_safe(f"Snapshot of {result.snapshot.date if result.snapshot else '?'} saved in "
                                f"{result.path}.") + "\n")
    return 0


def run_prices(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``prices list`` or ``prices refresh``; the exit status."""
    out = out if out is not None else sys.stdout
    if args.prices_command == "list":
        return run_list(args, out)
    return run_refresh(args, out)
