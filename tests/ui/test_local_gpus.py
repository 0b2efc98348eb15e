"""Is my own GPU enough? The "Your GPUs" panel, the local verdict and the chart's local lines (issue #5).

GUI tests build real windows with a fake ``probe`` callable; the probe results come from the real
:func:`tuneplan.hw.probe.probe` reading the fake NVML binding of ``tests/unit/test_hw_probe.py``,
or are built by hand where the numbers must be round.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from tuneplan import catalog
from tuneplan.core.memory import estimate_memory
from tuneplan.core.result import GIB, MemoryEstimate
from tuneplan.hw import probe as probe_mod
from tuneplan.hw.probe import GpuProcess, LocalGpu, ProbeResult, probe, probe_with_timeout
from tuneplan.storage.settings import ManualGpu, load_local_gpu_settings
from tuneplan.ui.local_gpus import (
    READING,
    local_verdict,
    manual_as_local,
    manual_gpu_spec,
    probed_gpu_spec,
    short_name,
)

MIB = 2**20
LEFT = Qt.MouseButton.LeftButton


def _load_fakes():
    """The fake NVML binding of the probe's unit tests (a test module, so loaded by path)."""
    path = Path(__file__).resolve().parents[1] / "unit" / "test_hw_probe.py"
    spec = importlib.util.spec_from_file_location("_tuneplan_fake_nvml", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


fakes = _load_fakes()


def _card(name: str, uuid: str, total_mib: int, used_gib: float, pids: list[int]):
    return fakes.FakeGpu(
        name=name,
        uuid=uuid,
        total=total_mib * MIB,
        used=int(used_gib * GIB),
        reserved=0,
        cc=(8, 6),
        compute=[fakes.FakeProc(pid, GIB) for pid in pids],
    )


def two_gpu_probe() -> ProbeResult:
    """A real probe of a fake machine with an RTX 4090 (24564 MiB) and an RTX 3060 (12288 MiB)."""
    nvml = fakes.FakeNvml(
        [
            _card("NVIDIA GeForce RTX 4090", "GPU-4090", 24564, 1.5, [1234]),
            _card("NVIDIA GeForce RTX 3060", "GPU-3060", 12288, 0.25, []),
        ]
    )
    result = probe(nvml)
    assert result.status == "ok" and [g.catalog_id for g in result.gpus] == ["rtx4090", "rtx3060_12gb"]
    return result


def memory(total_gib: float, capacity_gib: float) -> MemoryEstimate:
    """A memory estimate with round numbers (the verdict reads only the totals)."""
    return MemoryEstimate(
        components=[],
        peak_allocated_bytes=0,
        peak_reserved_bytes=0,
        total_bytes=total_gib * GIB,
        capacity_bytes=capacity_gib * GIB,
        low_bytes=0,
        high_bytes=0,
    )


def gpu(
    name: str = "NVIDIA GeForce RTX 4090",
    total_gib: float = 24,
    free_gib: float | None = None,
    processes: int = 0,
    **kw,
) -> LocalGpu:
    return LocalGpu(
        index=kw.pop("index", 0),
        name=name,
        memory_total_bytes=int(total_gib * GIB),
        memory_free_bytes=None if free_gib is None else int(free_gib * GIB),
        processes=[GpuProcess(pid=100 + i) for i in range(processes)],
        **kw,
    )


# ---------------------------------------------------------------------------------------- the sentence


def test_verdict_fits_in_total_and_in_what_is_free():
    text = local_verdict(memory(13.0, 24), gpu(free_gib=22.5))
    assert text == "fits on your RTX 4090 with 11.0 GiB spare, also with what is free now (22.5 GiB)"


def test_verdict_busy_card_fits_in_total_but_not_in_what_is_free():
    # 13.0 GiB needed on a 24 GiB card with 7.5 GiB free: 24 - 7.5 = 16.5 GiB held by 2 processes.
    text = local_verdict(memory(13.0, 24), gpu(free_gib=7.5, processes=2))
    assert (
        text
        == "fits on your RTX 4090 with 11.0 GiB spare; not with what is free now — 16.5 GiB in use by 2 processes"
    )
    one = local_verdict(memory(13.0, 24), gpu(free_gib=7.5, processes=1))
    assert one.endswith("16.5 GiB in use by 1 process")
    nobody = local_verdict(memory(13.0, 24), gpu(free_gib=7.5))
    assert nobody.endswith("16.5 GiB in use")


def test_verdict_does_not_fit_names_the_limits():
    text = local_verdict(
        memory(15.4, 12),
        gpu("NVIDIA GeForce RTX 3060", total_gib=12),
        micro_batch_limit=0,
        seq_len_limit=1024,
    )
    assert text == (
        "does not fit on your RTX 3060 (12.00 GiB): short by 3.4 GiB — largest micro-batch that "
        "would fit: 0; longest sequence: 1,024 tokens"
    )
    none = local_verdict(
        memory(15.4, 12), gpu("RTX 3060", total_gib=12), micro_batch_limit=0, seq_len_limit=0
    )
    assert none.endswith("no sequence length fits at this micro-batch")


def test_verdict_with_several_cards_and_notes():
    small = gpu("NVIDIA GeForce RTX 3060", total_gib=11.76, free_gib=11.5, bf16_supported=False)
    busy = gpu("NVIDIA GeForce RTX 4090", total_gib=24, free_gib=8, processes=3, index=1)
    text = local_verdict(memory(10.0, 11.76), small, count=2, busiest=busy, plan_gpus=4, bf16_wanted=True)
    assert text == (
        "fits on your RTX 3060 (the smallest of your 2 selected GPUs, 11.76 GiB) with 1.8 GiB spare; "
        "not with what is free now — 16.0 GiB in use by 3 processes on the RTX 4090"
        " · the plan needs 4 GPUs, 2 selected · the RTX 3060 has no BF16: train in FP16"
    )


def test_verdict_of_a_hand_entered_card_has_no_free_part():
    manual = manual_as_local(ManualGpu(name="Apple M3 Max", memory_gib=96))
    assert local_verdict(memory(13.0, 96), manual) == "fits on your Apple M3 Max with 83.0 GiB spare"


def test_short_name():
    assert short_name("NVIDIA GeForce RTX 4090") == "RTX 4090"
    assert short_name("NVIDIA A100-SXM4-80GB") == "A100-SXM4-80GB"
    assert short_name("Apple M3 Max") == "Apple M3 Max"


# ---------------------------------------------------------------------------------------- GPU specs


def test_probed_card_uses_the_catalog_with_its_real_memory():
    spec = probed_gpu_spec(gpu("NVIDIA GeForce RTX 3060", total_gib=11.76, catalog_id="rtx3060_12gb"))
    ref = catalog.get_gpu("rtx3060_12gb")
    assert spec is not None and spec.id == "rtx3060_12gb"
    assert spec.memory_gib == pytest.approx(11.76) and spec.bf16_tflops == ref.bf16_tflops


def test_unknown_probed_card_is_custom_and_unknown_memory_gives_none():
    spec = probed_gpu_spec(gpu("NVIDIA Mystery 9000", total_gib=20, bf16_supported=False))
    assert spec is not None and spec.memory_gib == pytest.approx(20) and spec.peak_tflops == 0
    assert spec.bf16_supported is False
    assert probed_gpu_spec(LocalGpu(index=0, name="X")) is None


def test_manual_spec_copies_the_catalog_or_is_custom():
    copied = manual_gpu_spec(ManualGpu(name="remote 4090", memory_gib=22, catalog_id="rtx4090"))
    assert (
        copied.id == "rtx4090"
        and copied.memory_gib == 22
        and copied.bf16_tflops == catalog.get_gpu("rtx4090").bf16_tflops
    )
    typed = manual_gpu_spec(
        ManualGpu(name="remote 4090", memory_gib=22, bf16_tflops=100, catalog_id="rtx4090")
    )
    assert typed.bf16_tflops == 100 and typed.measured_bf16_tflops is None
    custom = manual_gpu_spec(ManualGpu(name="Radeon RX 7900 XTX", memory_gib=24, bf16_tflops=122.8))
    assert custom.name == "Radeon RX 7900 XTX" and custom.peak_tflops == pytest.approx(122.8)


# ---------------------------------------------------------------------------------------- windows


@pytest.fixture
def make_window(qtbot, monkeypatch):
    """Build a shown MainWindow with a given probe, run the probe and wait for its answer."""
    from PySide6.QtWidgets import QMessageBox

    from tuneplan.ui.main_window import MainWindow

    monkeypatch.setattr(MainWindow, "ask_unsaved", lambda self: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(MainWindow, "show_error", lambda self, title, text: None)

    def make(probe_fn, *, run: bool = True):
        w = MainWindow(probe=probe_fn)
        qtbot.addWidget(w)
        w.resize(1400, 900)
        w.show()
        qtbot.waitExposed(w)
        if run:
            w.start_probe()
            qtbot.waitUntil(
                lambda: (
                    w.local_gpu_panel.controller.probe_result is not None
                    and not w.local_gpu_panel.controller.reading
                ),
                timeout=20_000,
            )
        return w

    return make


def _plan_total_gib(window) -> float:
    s = window.store.scenario
    return estimate_memory(s.model, s.training, s.gpu)[0].total_bytes / GIB


def test_two_cards_are_listed_and_unticking_one_changes_the_verdict(make_window):
    w = make_window(two_gpu_probe)
    panel, ctl = w.local_gpu_panel, w.local_gpu_panel.controller
    text = panel.text()
    assert "GPU 0: RTX 4090" in text and "GPU 1: RTX 3060" in text
    assert "23.99 GiB total · 22.5 GiB free now · used by 1 process" in text
    assert "12.00 GiB total · 11.8 GiB free now" in text
    assert "Driver 550.54.15 · CUDA 12.4 (driver max) · BF16 yes · catalog: GeForce RTX 4090" in text
    assert set(panel.rows) == {"GPU-4090", "GPU-3060"}
    assert all(row.check.isChecked() for row in panel.rows.values())

    # Both count: the smallest one (12 GiB) decides, and the plan (about 14 GiB: the default QLoRA plan with
    # a plain PEFT script's FP32 upcast) is too big.
    assert w.store.set_field("training.kbit_fp32_upcast", True)
    need = _plan_total_gib(w)
    assert 12 < need < 24
    sentence = w.local_verdict.label.text()
    assert sentence.startswith(
        "Does not fit on your RTX 3060 (the smallest of your 2 selected GPUs, 12.00 GiB): "
        f"short by {need - 12:.1f} GiB — largest micro-batch that would fit: 0; longest sequence: "
    )
    assert not ctl.plan.fits

    panel.rows["GPU-3060"].check.click()
    assert not ctl.is_selected("GPU-3060")
    assert w.local_verdict.label.text() == (
        f"Fits on your RTX 4090 with {24564 / 1024 - need:.1f} GiB spare, also with what is free now (22.5 GiB)"
    )
    assert ctl.plan.fits and ctl.plan.count == 1
    # remembered by UUID for the next start
    assert load_local_gpu_settings().settings.ignored_uuids == ["GPU-3060"]

    panel.rows["GPU-4090"].check.click()
    assert ctl.plan is None
    assert "No card counts" in w.local_verdict.label.text()
    assert w.vram_chart.local_capacity_gib is None


def test_busy_card_says_what_is_in_use_and_by_how_many_processes(make_window):
    busy = ProbeResult(
        status="ok",
        message="Found 1 NVIDIA GPU",
        gpus=[
            gpu(
                total_gib=24,
                free_gib=7.5,
                processes=2,
                uuid="GPU-busy",
                catalog_id="rtx4090",
                driver_version="550.54.15",
                cuda_driver_version="12.4",
                bf16_supported=True,
            )
        ],
    )
    w = make_window(lambda: busy)
    need = _plan_total_gib(w)
    assert 7.5 < need < 24  # free < needed < total
    assert w.local_verdict.label.text() == (
        f"Fits on your RTX 4090 with {24 - need:.1f} GiB spare; not with what is free now — "
        "16.5 GiB in use by 2 processes"
    )
    plan = w.local_gpu_panel.controller.plan
    assert plan.fits and plan.fits_free_now is False
    assert "used by 2 processes" in w.local_gpu_panel.text()
    # the chart shows the card's total and what is free, in GiB
    assert w.vram_chart.local_capacity_gib == pytest.approx(24)
    assert w.vram_chart.local_free_gib == pytest.approx(7.5)
    assert w.vram_chart.local_line.label.format == "Your RTX 4090: 24.0 GiB"
    assert w.vram_chart.local_free_line.label.format == "free now: 7.5 GiB"


def test_chart_has_the_local_capacity_line_at_the_cards_total(make_window):
    w = make_window(two_gpu_probe)
    chart = w.vram_chart
    # two selected: the smallest card (12288 MiB) is the local capacity; the least free memory is shown
    assert chart.local_capacity_gib == pytest.approx(12.0)
    assert chart.local_line.value() == pytest.approx(12.0) and chart.local_line.isVisible()
    assert chart.local_free_gib == pytest.approx(11.75)
    assert chart.local_free_line.toolTip().startswith("Free on Your RTX 3060 right now: 11.75 GiB")
    # it is not the rented GPU's line, and looks different
    assert chart.capacity_gib == pytest.approx(23.99)
    assert chart.local_line.pen.color().name() != chart.capacity_line.pen.color().name()
    assert chart.local_line.pen.style() != chart.capacity_line.pen.style()
    w.local_gpu_panel.rows["GPU-3060"].check.click()
    # 24564 MiB is the catalog RTX 4090's 23.99 GiB (to two decimals): the card is the catalog spec, one capacity
    assert chart.local_capacity_gib == pytest.approx(23.99) and abs(23.99 - 24564 / 1024) < 0.005
    # a card larger than the rented GPU widens the axis so its line stays visible
    big = ProbeResult(
        status="ok",
        message="1 GPU",
        gpus=[gpu("NVIDIA A100-SXM4-80GB", total_gib=80, free_gib=79, catalog_id="a100_sxm_80gb")],
    )
    w.local_gpu_panel.show_result(big)
    assert chart.local_capacity_gib == pytest.approx(80)
    assert chart.getPlotItem().getViewBox().viewRange()[0][1] > 80


def test_no_gpu_shows_the_hand_entry_hint_and_form(make_window):
    w = make_window(lambda: probe_mod.failure("no_gpu", "probe.no_gpu"))
    panel = w.local_gpu_panel
    assert "No NVIDIA GPU found — you can still enter your card by hand" in panel.text()
    assert panel.manual_form.isVisible()
    assert not panel.rows
    assert "enter your card by hand" in w.local_verdict.label.text()
    assert not w.local_verdict.use_button.isVisible()
    assert w.vram_chart.local_capacity_gib is None


@pytest.mark.parametrize(
    "status,code,message",
    [
        ("no_driver", "probe.driver_not_loaded", probe_mod.MSG_DRIVER_NOT_LOADED),
        ("error", "probe.no_permission", probe_mod.MSG_NO_PERMISSION),
    ],
)
def test_driver_and_permission_messages_are_shown(make_window, status, code, message):
    w = make_window(lambda: probe_mod.failure(status, code, "NVMLError (NVML code 4)"))
    assert message in w.local_gpu_panel.text()
    assert "NVML code 4" in w.local_gpu_panel.status.toolTip()


def test_manual_card_is_saved_and_reloaded(make_window, tmp_path, monkeypatch, qtbot):
    monkeypatch.setenv("TUNEPLAN_DATA_DIR", str(tmp_path))
    nothing = probe_mod.failure("no_driver", "probe.library_not_found")
    w = make_window(lambda: nothing)
    panel = w.local_gpu_panel
    panel.manual_name.setText("Apple M3 Max")
    panel.manual_memory.setValue(96)
    panel.manual_tflops.setValue(28.4)
    qtbot.mouseClick(panel.manual_save, LEFT)
    saved = json.loads((tmp_path / "settings.json").read_text("utf-8"))["local_gpu"]["manual"]
    assert saved == {"name": "Apple M3 Max", "memory_gib": 96.0, "bf16_tflops": 28.4, "catalog_id": None}
    assert "Apple M3 Max  (entered by hand)\n96.00 GiB total · 28.4 BF16 TFLOPS" in panel.text()
    assert (
        panel.status.text()
        == "NVML library not found (no NVIDIA driver installed) — using the card you entered by hand"
    )
    assert w.local_verdict.label.text().startswith(
        f"Fits on your Apple M3 Max with {96 - _plan_total_gib(w):.1f} GiB spare"
    )
    assert w.vram_chart.local_capacity_gib == pytest.approx(96) and w.vram_chart.local_free_gib is None
    w.close()

    again = make_window(lambda: nothing)
    p2 = again.local_gpu_panel
    assert p2.manual_name.text() == "Apple M3 Max" and p2.manual_memory.value() == 96
    assert list(p2.rows) == ["manual"]
    assert again.vram_chart.local_capacity_gib == pytest.approx(96)
    assert not p2.manual_form.isVisible()  # a saved card needs no form in the way

    # a card not in the catalog but with TFLOPS can become the plan's GPU
    assert again.local_verdict.use_button.isEnabled()
    qtbot.mouseClick(again.local_verdict.use_button, LEFT)
    g = again.store.scenario.gpu
    assert (g.name, g.memory_gib, g.bf16_tflops) == ("Apple M3 Max", 96, 28.4)
    assert again.hardware_panel.gpu_combo.currentText().startswith("Custom: Apple M3 Max")

    p2.remove_manual()
    assert not p2.rows and load_local_gpu_settings(tmp_path).settings.manual is None


def test_manual_card_errors_stay_in_the_form(make_window):
    w = make_window(lambda: probe_mod.failure("no_gpu", "probe.no_gpu"))
    panel = w.local_gpu_panel
    panel.manual_name.setText("Radeon")
    assert not panel.save_manual()
    assert panel.manual_error.text() == "Not saved — Memory must be more than 0"
    panel.manual_name.setText("  ")
    panel.manual_memory.setValue(24)
    assert not panel.save_manual()
    assert panel.manual_error.text() == "Not saved — Name is needed"
    # without TFLOPS or a catalog card the time can't be planned on it: the button says why
    panel.manual_name.setText("Radeon RX 7900 XTX")
    assert panel.save_manual() and panel.manual_error.isHidden()
    assert not w.local_verdict.use_button.isEnabled()
    assert "TFLOPS" in w.local_verdict.use_button.toolTip()


def test_manual_card_copied_from_the_catalog(make_window):
    w = make_window(lambda: probe_mod.failure("no_gpu", "probe.no_gpu"))
    panel = w.local_gpu_panel
    index = panel.copy_combo.findData("rtx3090")
    panel.copy_combo.setCurrentIndex(index)
    panel.copy_combo.activated.emit(index)
    assert panel.manual_name.text() == "GeForce RTX 3090" and panel.manual_memory.value() == 24
    panel.manual_memory.setValue(20)  # e.g. a remote box where the desktop holds some
    assert panel.save_manual()
    ctl = panel.controller
    assert ctl.plan.card.spec.id == "rtx3090" and ctl.plan.total_gib == 20
    w.local_verdict.use_button.click()
    assert w.store.scenario.gpu.id == "rtx3090" and w.store.scenario.gpu.memory_gib == 20


def test_manual_card_next_to_detected_ones(make_window):
    w = make_window(two_gpu_probe)
    panel = w.local_gpu_panel
    assert not panel.manual_form.isVisible()  # cards were found: the form stays folded
    panel.manual_toggle.click()
    assert panel.manual_form.isVisible() and panel.manual_alongside.isVisible()
    panel.manual_name.setText("Remote H100")
    panel.manual_memory.setValue(79.1)
    panel.manual_alongside.setChecked(True)
    assert panel.save_manual()
    assert list(panel.rows) == ["GPU-4090", "GPU-3060", "manual"]
    panel.manual_alongside.setChecked(False)
    assert panel.save_manual()
    assert list(panel.rows) == ["GPU-4090", "GPU-3060"]


def test_use_this_card_sets_the_catalog_gpu_with_the_real_capacity(make_window):
    w = make_window(two_gpu_probe)
    w.local_gpu_panel.rows["GPU-4090"].check.click()  # only the 3060 counts
    w.local_verdict.use_button.click()
    g = w.store.scenario.gpu
    assert g.id == "rtx3060_12gb" and g.memory_gib == pytest.approx(12.0)
    assert w.store.result.memory.capacity_bytes == pytest.approx(12 * GIB)
    assert "RTX 3060" in w.store.scenario.name
    # the rented verdict now matches the local one
    assert w.store.result.memory.fits == w.local_gpu_panel.controller.plan.fits


def test_corrupt_settings_file_shows_a_message_and_defaults(make_window, tmp_path, monkeypatch):
    monkeypatch.setenv("TUNEPLAN_DATA_DIR", str(tmp_path))
    (tmp_path / "settings.json").write_text("{broken", "utf-8")
    w = make_window(lambda: probe_mod.failure("no_gpu", "probe.no_gpu"))
    panel = w.local_gpu_panel
    assert panel.settings_message.isVisible()
    assert "damaged" in panel.settings_message.text() and "defaults" in panel.settings_message.text()
    assert panel.controller.settings.manual is None


def test_ignored_card_stays_unticked_after_a_restart(make_window):
    w = make_window(two_gpu_probe)
    w.local_gpu_panel.rows["GPU-3060"].check.click()
    w.close()
    again = make_window(two_gpu_probe)
    assert not again.local_gpu_panel.rows["GPU-3060"].check.isChecked()
    assert again.local_gpu_panel.controller.plan.count == 1


def test_refresh_rereads_the_gpus_and_says_so_meanwhile(make_window, qtbot):
    calls: list[int] = []
    gate = threading.Event()
    first = probe_mod.failure("no_gpu", "probe.no_gpu")

    def fake_probe() -> ProbeResult:
        calls.append(1)
        if len(calls) == 1:
            return first
        gate.wait(5)
        return two_gpu_probe()

    w = make_window(fake_probe)
    panel = w.local_gpu_panel
    assert not panel.rows
    qtbot.mouseClick(panel.refresh_button, LEFT)
    qtbot.waitUntil(lambda: len(calls) == 2, timeout=20_000)
    assert panel.status.text() == READING and not panel.refresh_button.isEnabled()
    assert w.local_verdict.label.text() == READING
    gate.set()
    qtbot.waitUntil(lambda: len(panel.rows) == 2, timeout=20_000)
    assert panel.refresh_button.isEnabled()
    assert "Found 2 NVIDIA GPUs" in panel.status.text()


class _HangingNvml(fakes.FakeNvml):
    """nvmlInit never returns until released: a driver that hangs."""

    def __init__(self) -> None:
        super().__init__([])
        self.release = threading.Event()

    def nvmlInit(self) -> None:
        self.release.wait(30)


def test_hanging_probe_times_out_and_the_window_stays_responsive(make_window, qtbot):
    from PySide6.QtCore import QTimer

    hanging = _HangingNvml()
    try:
        w = make_window(lambda: probe_with_timeout(1.0, nvml=hanging), run=False)
        w.start_probe()  # the window is already shown: the probe never delays it
        panel = w.local_gpu_panel
        assert panel.status.text() == READING and not panel.refresh_button.isEnabled()
        # the event loop keeps running while the driver hangs: timers fire, edits redraw
        ticked: list[bool] = []  # whether the probe was still reading when the timer fired
        QTimer.singleShot(50, lambda: ticked.append(panel.controller.reading))
        qtbot.waitUntil(lambda: bool(ticked), timeout=20_000)
        assert w.store.set_field("training.seq_len", 4096)
        assert w.memory_card.value.text() == f"{w.store.result.memory.total_bytes / GIB:.1f} GiB"
        assert ticked == [True]
        qtbot.waitUntil(lambda: not panel.controller.reading, timeout=20_000)
        assert panel.controller.probe_result.status == "timeout"
        assert "did not answer within 1 s — you can still enter your card by hand" in panel.text()
        assert panel.refresh_button.isEnabled()
        assert panel.manual_form.isVisible()
    finally:
        hanging.release.set()
        stuck = probe_mod._stuck_thread
        if stuck is not None:
            stuck.join(5)
    assert probe_with_timeout(2.0, nvml=fakes.FakeNvml([])).status == "no_gpu"  # not stuck for later tests


def test_local_estimate_follows_the_plan(make_window):
    w = make_window(two_gpu_probe)
    ctl = w.local_gpu_panel.controller
    w.local_gpu_panel.rows["GPU-4090"].check.click()
    assert w.store.set_field("training.kbit_fp32_upcast", True)
    assert not ctl.plan.fits  # about 14 GiB on the 12 GiB card
    w.store.set_field("training.seq_len", 256)
    w.store.set_field("training.grad_checkpointing", True)
    s = w.store.scenario
    expected = estimate_memory(s.model, s.training, ctl.plan.card.spec)[0]
    assert ctl.plan.memory.total_bytes == pytest.approx(expected.total_bytes)
    assert ctl.plan.fits == expected.fits


def test_several_cards_free_memory_comes_from_the_busiest(make_window):
    def busy_pair() -> ProbeResult:
        return probe(
            fakes.FakeNvml(
                [
                    _card("NVIDIA GeForce RTX 4090", "GPU-4090", 24576, 15.0, [1, 2]),  # 9 GiB free
                    _card("NVIDIA GeForce RTX 3060", "GPU-3060", 12288, 0.25, []),  # 11.75 GiB free
                ]
            )
        )

    w = make_window(busy_pair)
    w.store.set_field("training.seq_len", 2048)  # small enough for the 12 GiB card, too big for 9 GiB free
    need = _plan_total_gib(w)
    assert 9 < need < 12
    chart = w.vram_chart
    assert chart.local_capacity_gib == pytest.approx(12) and chart.local_free_gib == pytest.approx(9)
    assert chart.local_free_line.toolTip().startswith("Free on your RTX 4090 right now: 9.00 GiB")
    assert w.local_verdict.label.text() == (
        f"Fits on your RTX 3060 (the smallest of your 2 selected GPUs, 12.00 GiB) with {12 - need:.1f} GiB spare; "
        "not with what is free now — 15.0 GiB in use by 2 processes on the RTX 4090"
    )


def test_your_gpu_advice_and_limits_say_one_longest_sequence_and_one_capacity(make_window, qtbot):
    """Issue #21: advice said "shorten to 8,704 tokens" (rounded to 128) where the Your-GPU line said 8,786,
    and the probed card (24564 MiB = 23.988 GiB) was a hair smaller than the catalog's 23.99 GiB, so its limit
    was a token shorter still. The plan's GPU is the same card here: one capacity, one limit, everywhere."""
    import re

    from tuneplan.core.advice import apply_changes, max_seq_len

    def one_4090() -> ProbeResult:
        return probe(fakes.FakeNvml([_card("NVIDIA GeForce RTX 4090", "GPU-4090", 24564, 0.5, [])]))

    w = make_window(one_4090)
    assert w.store.scenario.gpu.id == "rtx4090"
    assert w.store.set_field("training.seq_len", 12288)
    assert not w.store.result.memory.fits
    # the single source: max_seq_len on the plan's (catalog) GPU; 24564 MiB / 1024 = 23.988... -> "23.99 GiB"
    limit = max_seq_len(apply_changes(catalog.default_scenario(), {"training.seq_len": 12288}))
    assert 0 < limit < 12288 and limit % 128  # a limit that rounding to 128 would have changed

    sentence = w.local_verdict.label.text()
    assert sentence.startswith("Does not fit on your RTX 4090 (23.99 GiB): short by ")
    assert sentence.endswith(f"longest sequence: {limit:,} tokens")

    ctl = w.advice_controller
    qtbot.waitUntil(lambda: ctl.state is not None and ctl.state.scenario == w.store.scenario, timeout=20_000)
    w.advice_view.more.setChecked(True)
    titles = [r.title.text() for r in w.advice_view.rows if r.title.isVisible()]
    assert f"Shorten sequences to {limit:,} tokens" in titles

    w.tabs.setCurrentWidget(w.limits_view)
    lim = w.limits_view.controller
    qtbot.waitUntil(lambda: lim.state is not None and lim.state.scenario == w.store.scenario
                    and lim.state.local is not None, timeout=20_000)
    assert lim.state.selected.seq_len == lim.state.local.seq_len == limit
    for label in (w.limits_view.seq_label, w.limits_view.local_labels[2]):
        assert re.sub(r"<[^>]+>", "", label.text()).startswith(f"{limit:,} tokens")
    assert "23.99 GiB" in w.limits_view.gpu_label.text() and "23.99 GiB" in w.limits_view.local_labels[0].text()
