"""Start the desktop app, or check it headless with ``tuneplan --self-test``.

``run_gui`` shows the window first and reads the local GPUs after the first paint, in a worker
thread, so a slow NVIDIA driver never delays start. Uncaught exceptions are logged to a rotating
file and shown in a dialog that names the file, instead of killing the app.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path
from types import TracebackType

from tuneplan.ui.logs import log_file, setup_logging

os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")

__all__ = ["log_file", "run_gui", "self_test", "setup_logging"]

log = logging.getLogger("tuneplan")

_in_hook = False


def _excepthook(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    """Log an uncaught exception and show it in a dialog that names the log file."""
    global _in_hook
    if issubclass(exc_type, KeyboardInterrupt):
        sys.__excepthook__(exc_type, exc, tb)
        return
    log.critical("uncaught exception", exc_info=(exc_type, exc, tb))
    if _in_hook:
        return
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtWidgets import QApplication, QMessageBox

    if QApplication.instance() is None:
        sys.__excepthook__(exc_type, exc, tb)
        return
    _in_hook = True
    translate = QCoreApplication.translate
    try:
        log_path = log_file()
        where = (translate("App", "The details were written to:\n{path}").format(path=log_path) if log_path
                 else translate("App", "Logging to a file was not possible."))
        box = QMessageBox(QMessageBox.Icon.Critical, translate("App", "Tuneplan hit a problem"),
                          translate("App", "Something went wrong: {error}\n\n"
                                    "Your plan is still open; the last valid values are kept. {where}\n\n"
                                    "Please attach that file when you report the problem.").format(
                              error=f"{exc_type.__name__}: {exc}", where=where))
        box.setTextFormat(Qt.TextFormat.PlainText)  # the error may quote a plan's name or a file path
        box.setDetailedText("".join(traceback.format_exception(exc_type, exc, tb)))
        box.exec()
    finally:
        _in_hook = False


def _make_app(argv: list[str]):
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    if app is None:
        app = QApplication(argv)
    app.setApplicationName("Tuneplan")
    app.setOrganizationName("Tuneplan")
    app.setDesktopFileName("tuneplan")
    app.setStyle("Fusion")
    from tuneplan.ui.icon import app_icon

    app.setWindowIcon(app_icon())
    return app


def _placeholder_window():  # noqa: ANN202 - QMainWindow, imported lazily
    """A plain window with the app's title and a 'loading' line: paints before the planner is built."""
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtWidgets import QLabel, QMainWindow

    w = QMainWindow()
    w.setWindowTitle("Tuneplan")
    label = QLabel(QCoreApplication.translate("App", "Loading the planner…"))
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setAccessibleName(QCoreApplication.translate("App", "Loading"))
    w.setCentralWidget(label)
    w.resize(*initial_size())
    return w


def initial_size(screen_w: int | None = None, screen_h: int | None = None) -> tuple[int, int]:
    """1400 x 900, or the screen's available area when it is smaller (a 1366 x 768 laptop keeps the whole
    window, title bar and status bar on screen)."""
    if screen_w is None or screen_h is None:
        from PySide6.QtGui import QGuiApplication

        screen = QGuiApplication.primaryScreen()
        if screen is None:
            return 1400, 900
        area = screen.availableGeometry()
        screen_w, screen_h = area.width(), area.height()
    return min(1400, max(screen_w, 640)), min(900, max(screen_h, 480))


def _show_and_wait_for_paint(app, window, timeout_s: float = 2.0) -> None:  # noqa: ANN001
    """Show ``window`` and process events until it has been painted once (or ``timeout_s``)."""
    from PySide6.QtCore import QEvent, QEventLoop, QObject

    painted: list[bool] = []

    class _PaintWatch(QObject):
        def eventFilter(self, obj, event):  # noqa: ANN001, N802 - Qt naming
            if event.type() == QEvent.Type.Paint:
                painted.append(True)
            return False

    watch = _PaintWatch()
    window.installEventFilter(watch)
    window.show()
    deadline = time.perf_counter() + timeout_s
    while not painted and time.perf_counter() < deadline:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)
    window.removeEventFilter(watch)


def _startup_mark(what: str) -> None:
    """With ``TUNEPLAN_STARTUP_REPORT`` set, print ``WHAT <unix time>`` for tools/benchmark.py."""
    if os.environ.get("TUNEPLAN_STARTUP_REPORT"):
        print(what, time.time(), flush=True)


def run_gui(scenario_file: str | None = None) -> int:
    """Start the desktop app (optionally on a saved scenario file); returns the exit status."""
    started = time.perf_counter()
    from tuneplan.ui.xcb_check import install_hint, missing_libraries

    missing = missing_libraries()
    if missing:  # Qt would abort with "Could not load the Qt platform plugin xcb"
        sys.stderr.write(install_hint(missing))
        return 2
    app = _make_app(sys.argv)
    from PySide6.QtCore import QTimer

    # A window on screen at once: the planner (pyqtgraph, numpy, catalogs, first estimate) takes
    # most of a second to import and build, so a light placeholder paints first and the full
    # window replaces it at the same place (docs/benchmarks.md measures both moments).
    placeholder = _placeholder_window()
    _show_and_wait_for_paint(app, placeholder)
    _startup_mark("FIRST_PAINT")
    log_path = setup_logging()
    sys.excepthook = _excepthook
    # The UI language (View → Language, else the system's) before the planner's widgets exist. After
    # the first paint: reading the setting loads tuneplan.storage, which the placeholder must not wait for.
    from PySide6.QtCore import QCoreApplication

    from tuneplan.ui.i18n import install_translator

    log.info("UI language: %s", install_translator(app))
    placeholder.centralWidget().setText(QCoreApplication.translate("App", "Loading the planner…"))

    from tuneplan.ui.main_window import MainWindow

    window = MainWindow()
    window.setGeometry(placeholder.geometry())
    window.show()
    placeholder.close()
    app.processEvents()
    _startup_mark("READY")
    log.info("window shown after %.0f ms (log: %s)", (time.perf_counter() - started) * 1000, log_path)
    if os.environ.get("TUNEPLAN_STARTUP_REPORT"):
        return 0  # benchmark run: report the two moments and stop
    if window.documents is not None:
        window.documents.offer_recovery()  # after a crash: offer the autosaved plan back
    if scenario_file:
        QTimer.singleShot(0, lambda: window.open_plan(scenario_file))
    # After the first paint: a slow or hung driver must not delay the window.
    QTimer.singleShot(0, window.start_probe)
    return app.exec()


def _close(a: float, b: float, what: str) -> None:
    if abs(a - b) > 1e-9 * max(1.0, abs(a), abs(b)):
        raise AssertionError(f"{what}: {a!r} != {b!r}")


def self_test() -> int:
    """Build the window offscreen, compute, edit, save, reload and compare; print ``SELFTEST OK``.

    Needs no GPU, no display and no network. Uses a temporary data folder that it removes.
    Returns 0 on success; 1 with a message on stderr otherwise.
    """
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    previous_data = os.environ.get("TUNEPLAN_DATA_DIR")
    tmp = Path(tempfile.mkdtemp(prefix="tuneplan-selftest-"))
    os.environ["TUNEPLAN_DATA_DIR"] = str(tmp)
    started = time.perf_counter()
    window = None
    try:
        setup_logging()
        app = _make_app([sys.argv[0] if sys.argv else "tuneplan", "-platform", "offscreen"])
        from tuneplan import catalog
        from tuneplan.core.estimate import estimate
        from tuneplan.core.result import GIB
        from tuneplan.hw.probe import ProbeResult
        from tuneplan.storage import paths, read_scenario_file
        from tuneplan.ui.main_window import MainWindow

        window = MainWindow(probe=lambda: ProbeResult(status="no_gpu", message="self-test: GPU probe skipped"))

        def fail(title: str, text: str) -> None:
            raise AssertionError(f"{title}: {text}")

        window.show_error = fail  # a modal dialog would block a headless run
        window.resize(1400, 900)
        window.show()
        app.processEvents()
        store = window.store

        expected = estimate(catalog.default_scenario())
        _close(store.result.memory.total_bytes, expected.memory.total_bytes, "default plan memory")
        _close(store.result.cost.total_usd, expected.cost.total_usd, "default plan cost")
        bars = window.vram_chart.current_series()
        for comp in expected.memory.components:
            _close(bars[comp.key][1], comp.bytes / GIB, f"bar segment {comp.key}")

        before = store.result.memory.component("activations")
        if not store.set_field("training.seq_len", 4096):
            raise AssertionError(f"store rejected seq_len 4096: {store.errors}")
        after = store.result.memory.component("activations")
        if before is None or after is None or not after.bytes > before.bytes:
            raise AssertionError("activations did not grow with the sequence length")
        if store.set_field("training.micro_batch", 0) or store.scenario.training.micro_batch != 1:
            raise AssertionError("an invalid micro-batch was accepted")
        app.processEvents()

        path = paths.scenarios_dir() / "self-test.json"
        if not window.save_plan_as(path):
            raise AssertionError("saving the plan failed")
        saved = store.scenario
        saved_result = store.result
        reread = read_scenario_file(path)
        if reread != saved:
            raise AssertionError("the saved file does not read back as the same scenario")
        window.new_plan()
        if not window.open_plan(path):
            raise AssertionError("reopening the saved plan failed")
        r = store.result
        _close(r.memory.total_bytes, saved_result.memory.total_bytes, "reloaded memory")
        _close(r.time.seconds, saved_result.time.seconds, "reloaded time")
        _close(r.cost.total_usd, saved_result.cost.total_usd, "reloaded cost")
        xs, ys = window.cost_chart.current_series()
        _close(ys[-1], r.cost.total_usd, "cost curve end")

        png, svg = tmp / "memory.png", tmp / "cost.svg"
        if not (window.export_chart(window.vram_chart, "memory", png) and png.stat().st_size > 0):
            raise AssertionError("PNG export failed")
        if not (window.export_chart(window.cost_chart, "cost", svg) and svg.stat().st_size > 0):
            raise AssertionError("SVG export failed")
        window.close()
        app.processEvents()
    except Exception as exc:
        traceback.print_exc()
        print(f"SELFTEST FAILED: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        if window is not None:
            window.store.mark_saved()
            window.close()
        logging.shutdown()
        for h in list(logging.getLogger().handlers):
            if isinstance(h, logging.handlers.RotatingFileHandler):
                logging.getLogger().removeHandler(h)
        if previous_data is None:
            os.environ.pop("TUNEPLAN_DATA_DIR", None)
        else:
            os.environ["TUNEPLAN_DATA_DIR"] = previous_data
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"SELFTEST OK ({(time.perf_counter() - started):.1f} s)")
    return 0
