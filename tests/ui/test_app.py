"""Start-up path, logging, the crash dialog, hover tooltips and the icon."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtCore import QEvent, QPointF
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QApplication, QMessageBox, QToolTip

from tuneplan import catalog
from tuneplan.storage import write_scenario_file

# Quits once start-up has finished -- the file is open and the GPU probe has answered, as the log
# says -- polled on the event loop, never on a clock: a busy machine only makes it slower.
RUN_GUI = """
import logging, sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
seen = []

class Seen(logging.Handler):
    def emit(self, record):
        seen.append(record.getMessage())

logging.getLogger().addHandler(Seen())
deadline = time.monotonic() + 90

def poll():
    opened = any(m.startswith("opened ") for m in seen)
    probed = any(m.startswith("GPU probe:") for m in seen)
    if opened and probed:
        app.quit()
    elif time.monotonic() > deadline:
        print("start-up did not finish; log:", seen, file=sys.stderr)
        app.exit(3)

timer = QTimer()
timer.timeout.connect(poll)
timer.start(20)
from tuneplan.ui.app import run_gui
sys.exit(run_gui(scenario_file=sys.argv[1]))
"""


def test_run_gui_starts_opens_the_file_and_logs(tmp_path):
    scenario = catalog.default_scenario().model_copy(update={"name": "From the command line"})
    plan = tmp_path / "plan.json"
    write_scenario_file(plan, scenario)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TUNEPLAN_DATA_DIR": str(tmp_path / "data")}
    proc = subprocess.run([sys.executable, "-c", RUN_GUI, str(plan)], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    log = (tmp_path / "data" / "logs" / "tuneplan.log").read_text(encoding="utf-8")
    assert "window shown after" in log
    assert f"opened {plan}" in log
    assert "GPU probe:" in log  # ran after the window was shown, in a worker thread


def test_exception_hook_shows_the_log_file(monkeypatch, qapp):
    import logging

    from tuneplan.ui import app as app_module

    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", list(root.handlers))  # restored after the test
    monkeypatch.setattr(root, "level", root.level)
    log_path = app_module.setup_logging()
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "exec", lambda self: shown.append(self.text()) or 0)
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        app_module._excepthook(*sys.exc_info())
    assert shown and "boom" in shown[0] and str(log_path) in shown[0]
    assert "boom" in Path(log_path).read_text(encoding="utf-8")
    for handler in root.handlers:
        handler.close()


def test_hovering_a_segment_shows_its_formula(window):
    chart = window.vram_chart
    start, size = chart.current_series()["activations"]
    vb = chart.getPlotItem().getViewBox()
    view_pt = chart.mapFromScene(vb.mapViewToScene(QPointF(start + size / 2, 0.5)))
    event = QHelpEvent(QEvent.Type.ToolTip, view_pt, chart.viewport().mapToGlobal(view_pt))
    QApplication.sendEvent(chart.viewport(), event)
    assert "Activations" in QToolTip.text()
    assert "GiB" in QToolTip.text()


def test_offer_combo_switches_price_and_back_to_own(window):
    combo = window.hardware_panel.offer_combo
    offers = catalog.prices_for_gpu("rtx4090")
    assert combo.count() == len(offers) + 1
    combo.setCurrentIndex(combo.findData(len(offers) - 1))
    assert window.store.scenario.pricing.price_per_gpu_hour == offers[-1].usd_per_gpu_hour
    combo.setCurrentIndex(combo.findData(-1))
    p = window.store.scenario.pricing
    assert p.offer_kind == "custom" and p.price_per_gpu_hour == offers[-1].usd_per_gpu_hour
    window.store.set_gpu("a100_80gb_sxm")
    assert window.store.scenario.pricing.price_per_gpu_hour == offers[-1].usd_per_gpu_hour


def test_window_icon_matches_desktop_icon(qapp):
    from tuneplan.ui.icon import ICON_SVG, render_icon

    repo = Path(__file__).resolve().parents[2]
    desktop_svg = repo / "resources" / "icons" / "tuneplan.svg"
    if desktop_svg.exists():
        assert desktop_svg.read_text(encoding="utf-8") == ICON_SVG
    image = render_icon(64)
    assert image.width() == 64 and image.pixelColor(32, 32).alpha() > 0
