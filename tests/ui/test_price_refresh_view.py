"""Dated prices and "Refresh prices" in the Prices window, with real widgets and a real worker thread (issue #19).

The catalogs come from the local server of ``tests/price_catalog_server.py`` (recorded CSVs); no test reaches the
internet. The app's day is fixed (2026-12-02) so "old" means the same on every day the tests run.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from PySide6.QtCore import Qt

from price_catalog_server import PriceCatalogServer
from tuneplan import catalog
from tuneplan.storage.price_book import bundled_key, load_price_book
from tuneplan.storage.price_snapshot import price_snapshot_path
from tuneplan.ui import price_book_view as pv
from tuneplan.ui.price_book_view import PriceBookController, PriceBookView, PriceTableModel, offer_text

TODAY = date(2026, 12, 2)


@pytest.fixture(autouse=True)
def _today(monkeypatch):
    monkeypatch.setattr(pv, "app_today", lambda: TODAY)


@pytest.fixture
def server():
    s = PriceCatalogServer()
    yield s
    s.close()


def _bundled(gpu_id, provider, kind):
    return next(p for p in catalog.list_prices() if (p.gpu_id, p.provider, p.kind) == (gpu_id, provider, kind))


def _view(qtbot, controller):
    view = PriceBookView(controller)
    qtbot.addWidget(view)
    view.show()
    return view


def test_old_prices_are_marked_by_the_day_the_app_runs(qtbot):
    old = _bundled("rtx3090", "RunPod", "community")  # seen 2026-03-10
    recent = _bundled("h100_sxm", "RunPod", "on-demand")  # seen 2026-11-09
    model = PriceTableModel(PriceBookController(today=lambda: TODAY))
    cell = model.index(model.row_of(bundled_key(old)), pv.DATE)
    assert cell.data() == "2026-03-10 · old"
    assert cell.data(Qt.ItemDataRole.ForegroundRole).color() == pv.OLD_FG
    assert "Seen 267 day(s) before today: older than 90 days" in cell.data(Qt.ItemDataRole.ToolTipRole)
    fresh = model.index(model.row_of(bundled_key(recent)), pv.DATE)
    assert fresh.data() == "2026-11-09" and fresh.data(Qt.ItemDataRole.ForegroundRole) is None
    assert "Seen 23 day(s) before today" in fresh.data(Qt.ItemDataRole.ToolTipRole)
    undated = next(p for p in model.prices if not p.entry.date_seen)
    assert model.index(model.row_of(undated.key), pv.DATE).data() == "undated"
    # the same row on a day in March is not old: the day is the one passed in
    march = PriceTableModel(PriceBookController(today=lambda: date(2026, 3, 20)))
    assert march.index(march.row_of(bundled_key(old)), pv.DATE).data() == "2026-03-10"
    # the offer picker's text carries the date too
    assert offer_text(old, TODAY) == f"RunPod · community · ${old.usd_per_gpu_hour:.2f}/h · 2026-03-10 · old"
    assert offer_text(recent, TODAY) == f"RunPod · on-demand · ${recent.usd_per_gpu_hour:.2f}/h · 2026-11-09"
    # and the window says how many are old
    view = _view(qtbot, PriceBookController(today=lambda: TODAY))
    n_old = sum(1 for p in catalog.list_prices() if catalog.prices.is_old_price(p.date_seen, TODAY))
    assert f"{n_old} older than 90 days" in view.counts.text()
    assert view.refresh_status.text().startswith("Bundled prices, seen up to 2026-11-09.")


def test_refresh_button_fetches_in_a_worker_the_table_offers_and_plan_follow_and_your_edit_stays(
        window, qtbot, server):
    controller = window.price_book
    controller.source_url = server.url
    controller.refresh_options = {"providers": ["aws", "runpod", "azure"], "timeout": 10}
    planned = catalog.default_price("rtx4090")  # the new plan's offer: RunPod on-demand, bundled at $0.74
    assert window.store.scenario.pricing.price_per_gpu_hour == planned.usd_per_gpu_hour == 0.74
    community = _bundled("rtx4090", "RunPod", "community")
    assert controller.edit(bundled_key(community), usd_per_gpu_hour=0.30)
    window.prices_action.trigger()
    view = window.price_book_dialog.view
    rows_before = view.model.rowCount()

    qtbot.mouseClick(view.refresh_button, Qt.MouseButton.LeftButton)
    # the click returned while the worker runs: the window is not blocked
    assert view.refreshing and not view.refresh_button.isEnabled() and view.cancel_refresh_button.isEnabled()
    assert view.refresh_status.text().startswith("Fetching today's prices…")
    qtbot.waitUntil(lambda: not view.refreshing, timeout=10_000)

    fetched = datetime.now(UTC).date().isoformat()
    status = view.refresh_status.text()
    added = sum(1 for p in controller.effective_prices() if p.origin == "refreshed" and p.bundled is None)
    assert status.startswith(f"Refreshed on {fetched}: {added} added, ")
    assert "1 of your edits kept over the refreshed price." in status and "5 malformed row(s) skipped." in status
    assert view.banner.isVisible() and view.banner.text().startswith("Azure: HTTP 404")
    assert view.refresh_button.isEnabled() and not view.cancel_refresh_button.isEnabled()
    assert view.model.rowCount() == rows_before + added > rows_before
    # the refreshed offer in the table: price, origin, date, node
    row = view.proxy_row_of(bundled_key(planned))
    cells = [view.proxy.index(row, c).data() for c in (pv.PRICE, pv.STATUS, pv.DATE, pv.NODE)]
    assert cells == ["$0.69", "refreshed", "2026-12-01", "1 GPU"]
    p5 = next(p for p in controller.effective_prices()
              if (p.entry.provider, p.entry.gpu_id, p.entry.kind) == ("AWS", "h100_sxm", "on-demand"))
    assert view.proxy.index(view.proxy_row_of(p5.key), pv.NODE).data() == "8 GPUs · NVLink (SXM)"
    secure = next(p for p in controller.effective_prices() if p.entry.node_sizes == (1, 2))
    assert view.proxy.index(view.proxy_row_of(secure.key), pv.NODE).data() == "1/2 GPUs"
    # your edit is still yours
    mine = controller.find(bundled_key(community))
    assert (mine.origin, mine.entry.usd_per_gpu_hour, mine.refreshed.usd_per_gpu_hour) == ("edited", 0.30, 0.34)
    assert f"refreshed on {fetched}" in view.counts.text() and "1 edited, 0 added" in view.counts.text()
    # the plan used the refreshed offer's bundled row: it follows to the refreshed price and date
    p = window.store.scenario.pricing
    assert (p.provider, p.price_per_gpu_hour, p.price_date) == ("RunPod", 0.69, "2026-12-01")
    combo = window.hardware_panel.offer_combo
    assert any(combo.itemText(i).startswith("RunPod · on-demand · $0.69/h · 2026-12-01") for i in range(combo.count()))
    # saved for next time, and the price book file still holds only the edit
    again = load_price_book()
    assert again.snapshot is not None and again.default_price("rtx4090").usd_per_gpu_hour == 0.69
    assert [e.usd_per_gpu_hour for e in again.edits] == [0.30]
    assert view.refresh_status.text() == status


def test_cancel_stops_a_refresh_that_waits_on_a_silent_server(qtbot):
    hang = PriceCatalogServer(mode="hang")
    try:
        controller = PriceBookController(source_url=hang.url)
        controller.refresh_options = {"providers": ["aws", "gcp"], "timeout": 30}
        view = _view(qtbot, controller)
        before = controller.effective_prices()
        worker = view.refresh_prices()
        assert worker is not None and view.refresh_prices() is None  # one refresh at a time
        qtbot.waitUntil(lambda: len(hang.requests) == 2, timeout=20_000)  # both asked; neither answers
        # the window answers while the refresh waits
        view.filter.setText("4090 runpod")
        assert 0 < view.proxy.rowCount() < view.model.rowCount() and view.refreshing
        qtbot.mouseClick(view.cancel_refresh_button, Qt.MouseButton.LeftButton)
        assert view.refresh_status.text() == "Cancelling…"
        qtbot.waitUntil(lambda: not view.refreshing, timeout=20_000)
        assert view.refresh_status.text() == "Refresh cancelled: nothing changed."
        assert worker.result.cancelled
        qtbot.waitUntil(lambda: not pv._WORKERS, timeout=20_000)  # the thread ended and was let go
        assert controller.effective_prices() == before and not price_snapshot_path().exists()
        assert view.refresh_button.isEnabled()
    finally:
        hang.close()


def test_offline_says_so_and_keeps_the_prices(qtbot):
    s = PriceCatalogServer()
    url = s.url
    s.close()
    controller = PriceBookController(source_url=url)
    controller.refresh_options = {"providers": ["aws"], "timeout": 5}
    view = _view(qtbot, controller)
    before = controller.effective_prices()
    view.refresh_prices()
    qtbot.waitUntil(lambda: not view.refreshing, timeout=20_000)
    assert view.refresh_status.text() == ("Could not refresh the prices: no catalog answered. "
                                          "The bundled prices stay in use.")
    assert view.banner.text().startswith("AWS: could not connect")
    assert controller.effective_prices() == before
