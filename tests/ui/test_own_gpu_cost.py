"""Your own GPU in the window: "Use this card" plans at the catalog card's speed and bills electricity (issue #19)."""

from __future__ import annotations

import pytest

from tuneplan import catalog
from tuneplan.core.estimate import estimate
from tuneplan.hw.probe import LocalGpu, ProbeResult

MIB = 2**20


def rtx3090_probe() -> ProbeResult:
    card = LocalGpu(index=0, name="NVIDIA GeForce RTX 3090", uuid="GPU-3090", memory_total_bytes=24576 * MIB,
                    memory_free_bytes=24000 * MIB, memory_used_bytes=576 * MIB, compute_capability=(8, 6),
                    bf16_supported=True, catalog_id="rtx3090", power_limit_w=300.0)
    return ProbeResult(gpus=[card], status="ok", message="Found 1 NVIDIA GPU")


@pytest.fixture
def window(qtbot, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from tuneplan.ui.main_window import MainWindow

    monkeypatch.setattr(MainWindow, "ask_unsaved", lambda self: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(MainWindow, "show_error", lambda self, title, text: None)
    w = MainWindow(probe=rtx3090_probe)
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    w.start_probe()
    qtbot.waitUntil(lambda: w.local_gpu_panel.controller.plan is not None, timeout=20_000)
    return w


def test_use_this_card_bills_electricity_at_the_catalog_speed(window):
    w, panel = window, window.local_gpu_panel
    assert not panel.tariff_spin.isEnabled()  # a rented plan has no tariff to set
    w.local_verdict.use_button.click()
    s = w.store.scenario
    assert s.gpu == catalog.get_gpu("rtx3090")
    assert (s.pricing.own_gpu, s.pricing.gpu_power_w) == (True, 300.0)
    cheapest = catalog.prices_for_gpu("rtx3090")[0]
    assert (s.pricing.provider, s.pricing.price_per_gpu_hour) == (cheapest.provider, cheapest.usd_per_gpu_hour)
    assert panel.own_gpu_check.isChecked() and panel.tariff_spin.isEnabled()
    # the same step time as the catalog RTX 3090
    rented = s.model_copy(update={"pricing": s.pricing.model_copy(update={"own_gpu": False})})
    assert w.store.result.time.step_seconds == estimate(rented).time.step_seconds

    panel.tariff_spin.setValue(0.30)
    panel.host_watts_spin.setValue(100)
    r = w.store.result
    hours = r.time.seconds / 3600
    # (300 W of the card's NVML limit + 100 W of the machine) x hours / 1000 x 0.30 USD/kWh
    assert r.cost.total_usd == pytest.approx(0.4 * hours * 0.30)
    assert r.cost.kwh == pytest.approx(0.4 * hours)
    assert r.cost.rental_usd == pytest.approx(estimate(rented).cost.total_usd)
    detail = w.cost_card.detail.text()
    assert "electricity" in detail and "kWh" in detail
    chart = w.cost_chart
    assert "electricity" in chart.getPlotItem().getAxis("left").labelText
    assert "kWh" in chart.done_label.toPlainText()
    assert chart.current_series()[1][-1] == pytest.approx(r.cost.total_usd)

    panel.own_gpu_check.click()  # back to renting: the rental price again, the chart says so
    assert w.store.result.cost.billing == "rent"
    assert "electricity" not in chart.getPlotItem().getAxis("left").labelText
    assert "electricity" not in w.cost_card.detail.text()


def test_choosing_a_catalog_gpu_after_your_own_rents_it(window):
    # "Use this card" bills the RTX 3090 as electricity; picking an H100 from the catalog afterwards takes the H100's
    # rental offer, so the plan is no longer billed as the electricity of a card you do not own
    w = window
    w.local_verdict.use_button.click()
    assert w.store.scenario.pricing.own_gpu
    assert w.store.set_gpu("h100_sxm")
    assert not w.store.scenario.pricing.own_gpu and w.store.scenario.pricing.gpu_power_w is None
    # billed at least its GPU-hours at the H100 offer's price (the wall clock includes setup and evaluation)
    assert w.store.result.cost.total_usd >= w.store.scenario.pricing.price_per_gpu_hour * 0.999 * \
        w.store.result.time.seconds / 3600


def test_own_gpus_without_a_tariff_do_not_show_a_free_run(window):
    # new-user trial: ticking "My own GPUs" with the tariff at its default 0 showed "$0.00", read as a free run
    w = window
    w.local_verdict.use_button.click()
    assert w.store.set_field("pricing.electricity_usd_per_kwh", 0.0)
    assert w.cost_card.value.text() == "—"
    assert "$/kWh" in w.cost_card.detail.text()
    assert w.store.set_field("pricing.electricity_usd_per_kwh", 0.3)
    assert w.cost_card.value.text().startswith("$") and "kWh" in w.cost_card.detail.text()
