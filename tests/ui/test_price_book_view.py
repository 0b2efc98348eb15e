"""The "Prices" window with real widgets: inline edits, adding and resetting prices, and the plan following them."""

from __future__ import annotations

from datetime import date

import pytest
from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import QDateEdit, QDialogButtonBox, QDoubleSpinBox, QMessageBox

from tuneplan import catalog
from tuneplan.storage import paths
from tuneplan.storage import price_book as pb
from tuneplan.storage.price_book import bundled_key, load_price_book, price_book_path
from tuneplan.ui import price_book_view as pv
from tuneplan.ui.price_book_view import AddPriceDialog


@pytest.fixture(autouse=True)
def _today(monkeypatch):
    """The app runs on 2026-12-02 (prices seen before 2026-09-03 are old), whatever day the tests run."""
    monkeypatch.setattr(pv, "app_today", lambda: date(2026, 12, 2))


@pytest.fixture
def prices(window, qtbot):
    """Tools → Prices… opened."""
    window.prices_action.trigger()
    dialog = window.price_book_dialog
    qtbot.waitExposed(dialog)
    return dialog.view


def _offer_texts(window):
    combo = window.hardware_panel.offer_combo
    return [combo.itemText(i) for i in range(combo.count())]


def test_menu_opens_the_price_table(window, prices):
    assert any(a.text() == "&Tools" for a in window.menuBar().actions())
    assert prices.model.rowCount() == len(catalog.list_prices())
    headers = [prices.model.headerData(c, Qt.Orientation.Horizontal) for c in range(prices.model.columnCount())]
    assert headers == ["Provider", "GPU", "Kind", "Node", "USD / GPU-hour", "Billing", "Date seen", "Origin",
                       "Source"]
    # every price shows its date; the bundled ones as seen
    first = prices.model.price(0).entry
    assert prices.model.index(0, pv.DATE).data() == (first.date_seen or "undated")
    assert prices.model.index(0, pv.PRICE).data() == f"${first.usd_per_gpu_hour:,.2f}"
    prices.filter.setText("4090 runpod")
    shown = {prices.proxy.index(i, pv.PROVIDER).data() for i in range(prices.proxy.rowCount())}
    assert prices.proxy.rowCount() >= 2 and shown <= {"RunPod", "RunPod Serverless"}
    assert "saved in" in prices.counts.text() and "none of them changed by you" in prices.counts.text()


def test_inline_price_edit_is_saved_and_the_plan_follows(window, prices, qtbot):
    store = window.store
    entry = catalog.default_price("rtx4090")
    assert (store.scenario.pricing.provider, store.scenario.pricing.price_per_gpu_hour) == (
        entry.provider, entry.usd_per_gpu_hour)
    key = bundled_key(entry)
    row = prices.proxy_row_of(key)
    index = prices.proxy.index(row, pv.PRICE)
    prices.table.scrollTo(index)
    rect = prices.table.visualRect(index)
    qtbot.mouseClick(prices.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # a real double
    qtbot.mouseDClick(prices.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())  # click presses first
    editor = prices.table.findChild(QDoubleSpinBox)
    assert editor is not None and editor.value() == pytest.approx(entry.usd_per_gpu_hour)
    editor.setValue(0.69)
    qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: prices.model.price(prices.model.row_of(key)).origin == "edited")
    cell = prices.proxy.index(prices.proxy_row_of(key), pv.PRICE)
    assert cell.data() == "$0.69"
    assert prices.proxy.index(cell.row(), pv.STATUS).data() == "edited"
    assert "Bundled: $0.74" in cell.data(Qt.ItemDataRole.ToolTipRole)
    assert prices.proxy.index(cell.row(), pv.DATE).data() == QDate.currentDate().toString("yyyy-MM-dd")
    assert "1 edited, 0 added" in prices.counts.text()
    # saved at once
    assert load_price_book().default_price("rtx4090").usd_per_gpu_hour == 0.69
    # the plan used this offer: it now uses the new price; the offer picker lists it
    assert store.scenario.pricing.price_per_gpu_hour == 0.69
    assert store.result.cost.gpu_usd == pytest.approx(0.69 * store.result.cost.billed_hours)
    today = QDate.currentDate().toString("yyyy-MM-dd")  # edited today: dated today (the picker shows each date)
    assert f"{entry.provider} · on-demand · $0.69/h · {today}" in _offer_texts(window)
    assert window.hardware_panel.offer_combo.currentText().endswith(f"$0.69/h · {today}")
    assert QDate.currentDate().toString("yyyy-MM-dd") in window.hardware_panel.price_source.text()


def test_date_and_billing_edit_through_the_delegate(window, prices, qtbot):
    entry = catalog.default_price("h100_sxm")
    key = bundled_key(entry)
    index = prices.proxy.index(prices.proxy_row_of(key), pv.DATE)
    delegate = prices.table.itemDelegate()
    editor = delegate.createEditor(prices.table.viewport(), None, index)
    assert isinstance(editor, QDateEdit)
    delegate.setEditorData(editor, index)
    editor.setDate(QDate(2026, 11, 20))
    delegate.setModelData(editor, prices.proxy, index)
    assert window.price_book.find(key).entry.date_seen == "2026-11-20"
    assert window.price_book.find(key).entry.usd_per_gpu_hour == entry.usd_per_gpu_hour
    billing = prices.proxy.index(prices.proxy_row_of(key), pv.BILLING)
    assert prices.proxy.setData(billing, "hour")
    assert window.price_book.find(key).entry.billing == "hour"
    assert prices.proxy.index(billing.row(), pv.BILLING).data() == "per hour"


def test_add_a_price_and_use_it(window, prices, monkeypatch):
    values = {"provider": "University cluster", "gpu_id": "rtx4090", "kind": "on-demand",
              "usd_per_gpu_hour": 0.45, "billing": "hour", "date": "2026-11-20"}
    monkeypatch.setattr(prices, "ask_new_price", lambda: dict(values))
    prices.add_button.click()
    added = [p for p in window.price_book.effective_prices() if p.origin == "added"]
    assert len(added) == 1
    key = added[0].key
    row = prices.proxy_row_of(key)
    assert row >= 0 and prices.selected_keys() == [key]
    assert prices.proxy.index(row, pv.STATUS).data() == "added"
    assert prices.proxy.index(row, pv.DATE).data() == "2026-11-20"
    assert prices.proxy.index(row, pv.PROVIDER).data() == "University cluster"
    assert "0 edited, 1 added" in prices.counts.text()
    assert any(a.provider == "University cluster" for a in load_price_book().additions)
    # the offer picker lists it (cheapest first), and picking it prices the plan
    texts = _offer_texts(window)
    mine = "University cluster · on-demand · $0.45/h · 2026-11-20"  # (+ " · old" once 90 days have passed)
    assert any(t.startswith(mine) for t in texts)
    combo = window.hardware_panel.offer_combo
    combo.setCurrentIndex(next(i for i, t in enumerate(texts) if t.startswith(mine)))
    p = window.store.scenario.pricing
    assert (p.provider, p.price_per_gpu_hour, p.billing, p.price_date) == ("University cluster", 0.45, "hour",
                                                                           "2026-11-20")
    # a new plan on this GPU starts from the cheapest effective on-demand price
    window.store.set_gpu("h100_sxm")
    window.store.set_gpu("rtx4090")
    assert window.store.scenario.pricing.provider == "University cluster"
    # removing the added price moves the plan back to the default offer
    prices.table.selectRow(row)
    assert prices.reset_button.isEnabled()
    prices.reset_button.click()
    assert not any(p.origin == "added" for p in window.price_book.effective_prices())
    assert window.store.scenario.pricing.provider == catalog.default_price("rtx4090").provider
    assert not any(t.startswith("University cluster") for t in _offer_texts(window))


def test_add_dialog_needs_a_provider(qtbot):
    dialog = AddPriceDialog("a100_80gb_sxm")
    qtbot.addWidget(dialog)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert not ok.isEnabled()
    dialog.provider.setCurrentText("My lab")
    assert ok.isEnabled()
    dialog.price.setValue(1.25)
    v = dialog.values()
    assert v["provider"] == "My lab" and v["gpu_id"] == "a100_80gb_sxm" and v["usd_per_gpu_hour"] == 1.25
    assert v["date"] == QDate.currentDate().toString("yyyy-MM-dd") and v["kind"] == "on-demand"
    assert dialog.price.suffix() == " per GPU-hour" and dialog.price.prefix() == "$ "


def test_reset_all_restores_the_bundled_prices(window, prices, monkeypatch):
    book = window.price_book
    e1, e2 = catalog.default_price("rtx4090"), catalog.default_price("l40s")
    book.edit(bundled_key(e1), usd_per_gpu_hour=0.5)
    book.edit(bundled_key(e2), usd_per_gpu_hour=0.5)
    book.add(provider="Mine", gpu_id="t4", kind="spot", usd_per_gpu_hour=0.05)
    prices.only_yours.setChecked(True)
    assert prices.proxy.rowCount() == 3
    asked: list[str] = []
    monkeypatch.setattr(prices, "confirm", lambda q: asked.append(q) or False)
    assert prices.reset_all() == 0 and len(load_price_book().edits) == 2  # "No" keeps them
    monkeypatch.setattr(prices, "confirm", lambda q: asked.append(q) or True)
    prices.reset_all_button.click()
    assert "your 3 price change(s)" in asked[-1]
    assert prices.proxy.rowCount() == 0
    assert book.default_price("rtx4090") == e1 and book.default_price("l40s") == e2
    disk = load_price_book()
    assert disk.edits == [] and disk.additions == []
    assert window.store.scenario.pricing.price_per_gpu_hour == e1.usd_per_gpu_hour
    assert not prices.reset_all_button.isEnabled()


def test_failed_save_is_shown_and_the_change_still_applies(window, prices, monkeypatch):
    def full(target, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pb, "atomic_write_bytes", full)
    entry = catalog.default_price("rtx4090")
    assert window.price_book.edit(bundled_key(entry), usd_per_gpu_hour=0.6)
    assert not prices.banner.isHidden()
    assert "the disk is full" in prices.banner.text() and "until you close Tuneplan" in prices.banner.text()
    assert window.price_book.default_price("rtx4090").usd_per_gpu_hour == 0.6
    assert not price_book_path().exists()


def test_refused_edit_shows_why(window, prices):
    key = prices.model.price(0).key
    assert not prices.proxy.setData(prices.proxy.index(prices.proxy_row_of(key), pv.PRICE), "cheap")
    assert "must be a number" in prices.banner.text()


def test_corrupt_price_book_is_moved_aside_and_the_app_opens(qtbot, monkeypatch):
    from tuneplan.hw.probe import ProbeResult
    from tuneplan.ui.main_window import MainWindow

    price_book_path().write_text("{ this is not json", encoding="utf-8")
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(MainWindow, "show_error", lambda self, title, text: shown.append((title, text)))
    monkeypatch.setattr(MainWindow, "ask_unsaved", lambda self: QMessageBox.StandardButton.Discard)
    w = MainWindow(probe=lambda: ProbeResult(status="none", message="no GPU"))
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: bool(shown))
    title, text = shown[0]
    moved = list(paths.quarantine_dir().iterdir())
    assert len(moved) == 1 and moved[0].read_text(encoding="utf-8") == "{ this is not json"
    assert not price_book_path().exists()
    assert "price book" in title.lower() and "damaged" in text and str(moved[0]) in text
    assert "moved" in w.statusBar().currentMessage()
    # the app works on the bundled prices and the Prices window says what happened
    assert w.store.scenario.pricing.price_per_gpu_hour == catalog.default_price("rtx4090").usd_per_gpu_hour
    w.prices_action.trigger()
    view = w.price_book_dialog.view
    assert "damaged" in view.banner.text() and not view.banner.isHidden()
    assert view.model.rowCount() == len(catalog.list_prices())
    # and a change writes a fresh, valid file
    assert w.price_book.edit(view.model.price(0).key, usd_per_gpu_hour=9.99)
    assert load_price_book().edits[0].usd_per_gpu_hour == 9.99


def test_a_new_plan_starts_from_your_price(qtbot, monkeypatch):
    from tuneplan.hw.probe import ProbeResult
    from tuneplan.storage.price_book import PriceBook, save_price_book
    from tuneplan.ui.main_window import MainWindow

    book = PriceBook()
    entry = catalog.default_price(catalog.DEFAULT_GPU_ID)
    book.edit(bundled_key(entry), usd_per_gpu_hour=0.66, date="2026-11-29")
    save_price_book(book)
    monkeypatch.setattr(MainWindow, "ask_unsaved", lambda self: QMessageBox.StandardButton.Discard)
    w = MainWindow(probe=lambda: ProbeResult(status="none", message="no GPU"))
    qtbot.addWidget(w)
    p = w.store.scenario.pricing
    assert (p.price_per_gpu_hour, p.price_date) == (0.66, "2026-11-29")
    assert not w.store.dirty and "*" not in w.windowTitle()
    w.store.set_field("training.seq_len", 4096)
    w.new_action.trigger()
    assert w.store.scenario.pricing.price_per_gpu_hour == 0.66 and not w.store.dirty
    assert "$0.66/h · 2026-11-29" in w.hardware_panel.offer_combo.currentText()
