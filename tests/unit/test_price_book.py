"""The price book on disk: edits and additions over the bundled prices, versioned atomic file, bad files."""

from __future__ import annotations

import errno
import json

import pytest

from tuneplan import catalog
from tuneplan.storage import paths
from tuneplan.storage import price_book as pb
from tuneplan.storage.price_book import (
    FORMAT,
    SCHEMA_VERSION,
    PriceBook,
    PriceBookError,
    bundled_key,
    effective_prices,
    load_price_book,
    price_book_path,
    reset,
    save_price_book,
)


def _key_of(entry: catalog.PriceEntry) -> str:
    return bundled_key(entry)


def test_missing_file_means_bundled_prices():
    book = load_price_book()
    assert not price_book_path().exists()
    assert book.notice == "" and not book.read_only
    prices = book.effective_prices()
    assert [p.entry for p in prices] == catalog.list_prices()
    assert {p.origin for p in prices} == {"bundled"}
    assert effective_prices() == prices
    # the same answers as the catalog's helpers
    for gpu in catalog.list_gpus():
        assert book.prices_for_gpu(gpu.id) == catalog.prices_for_gpu(gpu.id)
        assert book.default_price(gpu.id) == catalog.default_price(gpu.id)
        assert book.spot_price(gpu.id) == catalog.spot_price(gpu.id)


def test_bundled_keys_are_unique():
    keys = [bundled_key(e) for e in catalog.list_prices()]
    assert len(keys) == len(set(keys))  # two Vast.ai H100 community rows differ by source


def test_edit_is_dated_saved_atomically_and_survives_reload(tmp_path):
    book = load_price_book()
    bundled = catalog.default_price("rtx4090")
    assert bundled is not None
    edited = book.edit(_key_of(bundled), usd_per_gpu_hour=0.69)
    assert edited.origin == "edited" and edited.bundled == bundled
    assert edited.entry.usd_per_gpu_hour == 0.69
    assert edited.entry.date_seen != bundled.date_seen and len(edited.entry.date_seen) == 10  # today, ISO
    assert edited.entry.provider == bundled.provider and edited.entry.kind == bundled.kind
    assert "bundled $0.74" in edited.entry.notes
    assert book.default_price("rtx4090") == edited.entry

    path = save_price_book(book)
    assert path == paths.data_dir() / "price_book.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == FORMAT and data["schema_version"] == SCHEMA_VERSION
    assert data["edits"][0]["usd_per_gpu_hour"] == 0.69 and data["edits"][0]["provider"] == "RunPod"
    assert "notice" not in data and "read_only" not in data
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".price_book")] == []  # no temp left

    again = load_price_book()
    assert again.notice == ""
    assert again.default_price("rtx4090") == edited.entry
    assert again.find(edited.key) == edited


def test_user_date_and_billing_are_kept():
    book = PriceBook()
    entry = catalog.default_price("h100_sxm")
    assert entry is not None
    e = book.edit(_key_of(entry), usd_per_gpu_hour=2.5, billing="hour", date="2026-11-20")
    assert (e.entry.usd_per_gpu_hour, e.entry.billing, e.entry.date_seen) == (2.5, "hour", "2026-11-20")
    # only the date changes: still an edit, the price stays
    e = book.edit(e.key, date="2026-11-21")
    assert (e.entry.usd_per_gpu_hour, e.entry.date_seen) == (2.5, "2026-11-21")


def test_edit_back_to_bundled_values_drops_the_edit():
    book = PriceBook()
    entry = catalog.default_price("a100_80gb_sxm")
    assert entry is not None
    book.edit(_key_of(entry), usd_per_gpu_hour=9.0)
    assert len(book.edits) == 1
    back = book.edit(_key_of(entry), usd_per_gpu_hour=entry.usd_per_gpu_hour, date=entry.date_seen)
    assert back.origin == "bundled" and book.edits == []


def test_invalid_edits_are_refused():
    book = PriceBook()
    key = _key_of(catalog.list_prices()[0])
    with pytest.raises(ValueError):
        book.edit(key, usd_per_gpu_hour=-1)
    with pytest.raises(ValueError):
        book.edit(key, usd_per_gpu_hour=float("nan"))
    with pytest.raises(ValueError):
        book.edit(key, billing="fortnight")  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        book.edit("b:nothing", usd_per_gpu_hour=1.0)
    with pytest.raises(ValueError):
        book.add(provider="  ", gpu_id="t4", kind="on-demand", usd_per_gpu_hour=1.0)
    assert book.edits == [] and book.additions == []


def test_added_price_joins_the_offers_and_can_become_the_default():
    book = PriceBook()
    added = book.add(provider="University cluster", gpu_id="rtx4090", kind="on-demand", usd_per_gpu_hour=0.45,
                     billing="hour", date="2026-11-20")
    assert added.origin == "added" and added.key.startswith("u:u-")
    assert added.entry.gpu_label == "GeForce RTX 4090" and added.entry.date_seen == "2026-11-20"
    offers = book.prices_for_gpu("rtx4090")
    assert added.entry in offers
    assert [o.usd_per_gpu_hour for o in offers] == sorted(o.usd_per_gpu_hour for o in offers)
    assert book.default_price("rtx4090") == added.entry  # the cheapest on-demand now
    od, spot = book.comparison_prices(["rtx4090"])["rtx4090"]
    assert od == 0.45 and spot == catalog.spot_price("rtx4090").usd_per_gpu_hour
    # a GPU with no bundled price gets one
    assert catalog.default_price("rtx3090ti") is None
    book.add(provider="Local shop", gpu_id="rtx3090ti", kind="community", usd_per_gpu_hour=0.2)
    # a community (marketplace) price is an interruptible price, never shown as "on demand"
    assert book.comparison_prices(["rtx3090ti"]) == {"rtx3090ti": (None, 0.2)}


def test_reset_by_key_entry_gpu_and_all():
    book = PriceBook()
    e1 = catalog.default_price("rtx4090")
    e2 = catalog.default_price("h100_sxm")
    assert e1 is not None and e2 is not None
    edited1 = book.edit(_key_of(e1), usd_per_gpu_hour=1.0)
    book.edit(_key_of(e2), usd_per_gpu_hour=5.0)
    added = book.add(provider="Mine", gpu_id="rtx4090", kind="spot", usd_per_gpu_hour=0.1)

    assert book.reset(edited1.entry) == 1  # by the effective entry
    assert book.default_price("rtx4090") == e1
    assert book.reset(added.key) == 1  # an added price is removed
    assert added.entry not in book.prices_for_gpu("rtx4090")
    book.edit(_key_of(e1), usd_per_gpu_hour=1.0)
    book.add(provider="Mine", gpu_id="rtx4090", kind="spot", usd_per_gpu_hour=0.1)
    assert book.reset("rtx4090") == 2  # a GPU id: all of that GPU's changes
    assert book.prices_for_gpu("rtx4090") == catalog.prices_for_gpu("rtx4090")
    assert book.find(_key_of(e2)).entry.usd_per_gpu_hour == 5.0  # another GPU's edit stays
    assert reset(book) == 1  # everything
    assert book.effective_prices() == PriceBook().effective_prices()


def test_corrupt_file_is_moved_aside_with_a_message():
    path = price_book_path()
    path.write_text('{"format": "tuneplan-price-book", "schema_version": 1, "edits": [', encoding="utf-8")
    book = load_price_book()
    assert book.edits == [] and not book.read_only
    assert not path.exists()
    moved = list(paths.quarantine_dir().iterdir())
    assert len(moved) == 1 and moved[0].name.endswith("price_book.json")
    assert moved[0].read_text(encoding="utf-8").endswith("[")  # kept as it was
    assert "damaged" in book.notice and "not valid JSON" in book.notice and str(moved[0]) in book.notice
    # the next save writes a fresh file
    book.edit(_key_of(catalog.list_prices()[0]), usd_per_gpu_hour=1.23)
    save_price_book(book)
    assert load_price_book().edits[0].usd_per_gpu_hour == 1.23


@pytest.mark.parametrize("content, reason", [
    (b"\xff\xfe garbage", "not UTF-8"),
    (b"[1, 2, 3]", "not a Tuneplan price book"),
    (b'{"format": "tuneplan-price-book", "schema_version": "one"}', "schema_version"),
    (json.dumps({"format": FORMAT, "schema_version": 1, "edits": [
        {"provider": "RunPod", "gpu_label": "x", "kind": "on-demand", "usd_per_gpu_hour": -3, "billing": "second"}]}
    ).encode(), "invalid entry at edits.0.usd_per_gpu_hour"),
])
def test_invalid_content_is_moved_aside(content, reason):
    price_book_path().write_bytes(content)
    book = load_price_book()
    assert reason in book.notice
    assert not price_book_path().exists()
    assert len(list(paths.quarantine_dir().iterdir())) == 1


def test_newer_file_is_left_alone_and_not_overwritten():
    path = price_book_path()
    text = json.dumps({"format": FORMAT, "schema_version": SCHEMA_VERSION + 1, "edits": "new shape"})
    path.write_text(text, encoding="utf-8")
    book = load_price_book()
    assert book.read_only and "newer Tuneplan" in book.notice
    assert book.effective_prices() == PriceBook().effective_prices()
    with pytest.raises(PriceBookError, match="newer Tuneplan"):
        save_price_book(book)
    assert path.read_text(encoding="utf-8") == text


def test_failed_save_keeps_the_previous_file(monkeypatch):
    book = PriceBook()
    key = _key_of(catalog.list_prices()[0])
    book.edit(key, usd_per_gpu_hour=1.0)
    save_price_book(book)
    before = price_book_path().read_bytes()

    def full(target, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pb, "atomic_write_bytes", full)
    book.edit(key, usd_per_gpu_hour=2.0)
    with pytest.raises(PriceBookError, match="the disk is full"):
        save_price_book(book)
    assert price_book_path().read_bytes() == before


def test_edit_of_a_price_no_longer_bundled_is_kept_but_not_applied():
    doc = {"format": FORMAT, "schema_version": 1, "edits": [
        {"provider": "Gone Cloud", "gpu_label": "H100", "kind": "on-demand", "source": "old",
         "usd_per_gpu_hour": 1.0, "billing": "hour", "date": "2025-01-01"}], "additions": []}
    price_book_path().write_text(json.dumps(doc), encoding="utf-8")
    book = load_price_book()
    assert book.notice == "" and len(book.edits) == 1
    assert [p.entry for p in book.effective_prices()] == catalog.list_prices()
    save_price_book(book)
    assert json.loads(price_book_path().read_text(encoding="utf-8"))["edits"][0]["provider"] == "Gone Cloud"
