"""Names from plan files, configs and the driver are shown as text, never as rich text (issue #22).

A plan is meant to be shared, so every name in it is untrusted: a GPU name ``RTX 4090 <img src=...>``
must not make Qt load an image (``/dev/zero`` froze the window), a ``<a href>`` in a plan name must
not become a link. The tests load hostile names into the real window, visit every view and walk
every label, tooltip, item and header Qt could render as rich text.

The image tags point at a file that does not exist, so that a regression fails here instead of
hanging the suite on ``/dev/zero``: whether Qt treats the text as rich does not depend on the path.
"""

from __future__ import annotations

import json
import os

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QComboBox,
    QGraphicsTextItem,
    QGraphicsView,
    QHeaderView,
    QLabel,
    QMessageBox,
    QTabBar,
    QWidget,
)

from tuneplan import catalog
from tuneplan.hw.probe import LocalGpu, ProbeResult
from tuneplan.storage import ScenarioLibrary, write_scenario_file
from tuneplan.ui.main_window import MainWindow as _MainWindow

#: The window's own dialogs, kept before any fixture replaces them with stand-ins.
REAL_SHOW_ERROR = _MainWindow.show_error
REAL_ASK_UNSAVED = _MainWindow.ask_unsaved

IMG = '<img src="/nonexistent/tuneplan-test.png">'
BOLD = "<b>x</b>"
LINK = '<a href="file:///etc/passwd">y</a>'
#: What must never reach a rich-text renderer raw: the tags of the hostile names above.
RAW_TAGS = ("<img", "<a href", "<b>x")


def _hostile_scenario():
    s = catalog.default_scenario()
    s.name = f"Plan {LINK} {BOLD}"
    s.model_id = ""
    s.model = s.model.model_copy(update={"name": f"Llama {BOLD} {IMG}"})
    s.gpu = s.gpu.model_copy(update={"name": f"RTX 4090 {IMG}", "id": f"custom {LINK}"})
    s.pricing = s.pricing.model_copy(update={"provider": f"Cloud {LINK}"})
    s.notes = f"notes {IMG} {LINK}"
    return s


HOSTILE_PROBE = ProbeResult(
    status="ok",
    message="1 NVIDIA GPU",
    gpus=[LocalGpu(index=0, name=f"NVIDIA {IMG} {LINK}", memory_total_bytes=24 * 2**30,
                   memory_free_bytes=20 * 2**30, driver_version=f"550 {BOLD}", catalog_id=None)],
)


@pytest.fixture
def hostile_window(show_window):
    """A shown MainWindow whose local GPU has a hostile name; dialogs never block."""
    return show_window(HOSTILE_PROBE)


def _raw(text: str | None) -> str | None:
    """The first hostile raw tag in ``text``, or None."""
    text = text or ""
    return next((tag for tag in RAW_TAGS if tag in text), None)


def _model_problems(where: str, model) -> list[str]:
    """Tooltips of every cell and header of an item model that carry a raw hostile tag."""
    out: list[str] = []
    if model is None:
        return out
    tip = Qt.ItemDataRole.ToolTipRole

    def count(kind: str, parent: QModelIndex) -> int:
        for args in ((parent,), ()):  # PySide6 makes one overload or the other private, per model class
            try:
                return getattr(model, kind)(*args)
            except TypeError:
                continue
        return 0

    def walk(parent: QModelIndex, depth: int) -> None:
        for r in range(count("rowCount", parent)):
            for c in range(max(1, count("columnCount", parent))):
                index = model.index(r, c, parent)
                if _raw(index.data(tip)):
                    out.append(f"{where} cell ({r}, {c}) tooltip: {index.data(tip)!r}")
                if c == 0 and depth < 3:
                    walk(index, depth + 1)

    walk(QModelIndex(), 0)
    for orientation, sections in ((Qt.Orientation.Horizontal, count("columnCount", QModelIndex())),
                                  (Qt.Orientation.Vertical, count("rowCount", QModelIndex()))):
        for section in range(sections):
            value = model.headerData(section, orientation, tip)
            if isinstance(value, str) and _raw(value):
                out.append(f"{where} header {section} tooltip: {value!r}")
    return out


def _scene_problems(where: str, view: QGraphicsView) -> list[str]:
    """Chart items (pyqtgraph) with a raw hostile tooltip, or text that Qt rendered as an image or link."""
    out: list[str] = []
    scene = view.scene()
    if scene is None:
        return out
    for item in scene.items():
        if _raw(item.toolTip()):
            out.append(f"{where} chart item {type(item).__name__} tooltip: {item.toolTip()!r}")
        if isinstance(item, QGraphicsTextItem):
            block = item.document().begin()
            while block.isValid():
                it = block.begin()
                while not it.atEnd():
                    fmt = it.fragment().charFormat()
                    if fmt.isImageFormat() or fmt.isAnchor():
                        out.append(f"{where} chart text rendered an image or link: {item.toPlainText()!r}")
                    it += 1
                block = block.next()
    return out


def rich_text_problems(root: QWidget) -> list[str]:
    """Every place under ``root`` (and in every top-level window) where a hostile tag would be rich text."""
    widgets: list[QWidget] = [root, *root.findChildren(QWidget)]
    for top in QApplication.topLevelWidgets():
        if top is not root and top.isVisible():
            widgets += [top, *top.findChildren(QWidget)]
    out: list[str] = []
    for w in widgets:
        where = f"{type(w).__name__}({w.objectName() or w.accessibleName()})"
        if _raw(w.toolTip()):
            out.append(f"{where} tooltip: {w.toolTip()!r}")
        for action in w.actions():
            if _raw(action.toolTip()) and action.toolTip() != action.text():
                out.append(f"{where} action tooltip: {action.toolTip()!r}")
        if isinstance(w, QLabel) and w.textFormat() != Qt.TextFormat.PlainText and _raw(w.text()):
            out.append(f"{where} label ({w.textFormat().name}): {w.text()!r}")
        if isinstance(w, QTabBar):
            out += [f"{where} tab tooltip: {w.tabToolTip(i)!r}" for i in range(w.count()) if _raw(w.tabToolTip(i))]
        if isinstance(w, QAbstractItemView) and not isinstance(w, QHeaderView):  # a header shows its view's model
            out += _model_problems(where, w.model())
        if isinstance(w, QComboBox):
            out += _model_problems(where, w.model())
        if isinstance(w, QGraphicsView):
            out += _scene_problems(where, w)
    return sorted(set(out))


def _visit_every_view(window, qtbot, picked: str) -> None:
    """Show the library, every tab (comparing the hostile plan with the open one) and the local GPUs."""
    from tuneplan.ui.scenario_compare import CURRENT

    window.start_probe()
    qtbot.waitUntil(lambda: window.local_gpu_panel.controller.probe_result is not None
                    and not window.local_gpu_panel.controller.reading, timeout=20_000)
    window.library_dock.show()
    window.library_panel.refresh()
    view = window.compare_view
    window.tabs.setCurrentWidget(view)
    view.refresh_picker()
    view.pick(CURRENT, True)
    assert view.pick(picked)
    gpus = window.gpu_compare
    window.tabs.setCurrentWidget(gpus)
    qtbot.waitUntil(lambda: gpus.model.rowCount() > 0 and not gpus.controller.stale)
    for i in range(window.tabs.count()):
        window.tabs.setCurrentIndex(i)
        qtbot.wait(1)
    window.tabs.setCurrentIndex(0)


def test_a_hostile_plan_opened_and_compared_is_shown_as_plain_text(hostile_window, qtbot, tmp_path):
    window = hostile_window
    hostile = _hostile_scenario()
    saved = ScenarioLibrary().save(hostile)
    shared = write_scenario_file(tmp_path / "shared.json", hostile)
    assert window.open_plan(shared), window.shown_errors
    assert window.store.scenario.gpu.name == hostile.gpu.name  # the names really reached the window
    _visit_every_view(window, qtbot, str(saved))
    assert window.compare_view.model.columnCount() == 2  # the open plan beside its saved copy
    # The hostile names are on screen, as the text they are.
    assert IMG in window.memory_card.detail.text()
    problems = rich_text_problems(window)
    assert problems == [], "\n".join(problems)


def test_error_texts_quoting_a_hostile_config_are_plain(hostile_window, tmp_path):
    window = hostile_window
    bad = tmp_path / "bad"
    bad.mkdir()
    cfg = {"model_type": "llama", "hidden_size": IMG, "num_hidden_layers": 8, "num_attention_heads": 16,
           "intermediate_size": 2816, "vocab_size": 32000}
    (bad / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    assert not window.model_panel.import_config(str(bad))
    assert IMG in window.model_panel.import_error.text()  # the error quotes the hostile value
    good = tmp_path / "good"
    good.mkdir()
    cfg.update({"_name_or_path": f"acme/{IMG}", "hidden_size": 1024, "num_key_value_heads": 4})
    (good / "config.json").write_text(json.dumps(cfg), encoding="utf-8")
    assert window.model_panel.import_config(str(good))
    assert IMG in window.store.scenario.name  # the plan is named after the imported model
    problems = rich_text_problems(window)
    assert problems == [], "\n".join(problems)


def test_message_boxes_quoting_hostile_names_are_plain(hostile_window, monkeypatch, tmp_path_factory):
    from datetime import datetime
    from pathlib import Path

    from PySide6.QtCore import QTimer

    from tuneplan.ui import app
    from tuneplan.ui.main_window import MainWindow

    window = hostile_window
    shown: list[tuple[str, Qt.TextFormat, str, str]] = []

    def answer_boxes() -> None:
        """Note and dismiss every message box on screen, however it was opened (static helpers too)."""
        for box in QApplication.topLevelWidgets():
            if isinstance(box, QMessageBox) and box.isVisible():
                shown.append((box.windowTitle(), box.textFormat(), box.text(), box.informativeText()))
                box.done(0)

    timer = QTimer()
    timer.timeout.connect(answer_boxes)
    timer.start(20)
    hostile = _hostile_scenario()
    docs = window.documents
    docs.ask_conflict(Path(f"/tmp/{IMG.replace('/', '_')}.json"), f"changed: {LINK}")
    docs.ask_restore_autosave(hostile, datetime.now())
    docs.ask_confirm("Trash", f"Delete “{hostile.name}” for good?")
    window.unsaved_question = lambda: (f"Save {hostile.name}?", f"Save writes {IMG}.json.")
    # the real show_error and ask_unsaved, not the fixture's stand-ins (monkeypatch.undo() would also drop
    # TUNEPLAN_DATA_DIR and let the price book below read the real user data folder)
    monkeypatch.setattr(MainWindow, "show_error", REAL_SHOW_ERROR)
    monkeypatch.setattr(MainWindow, "ask_unsaved", REAL_ASK_UNSAVED)
    assert Path(os.environ["TUNEPLAN_DATA_DIR"]).is_relative_to(tmp_path_factory.getbasetemp())
    MainWindow.show_error(window, "Cannot open", f"{IMG} is not a plan")
    MainWindow.ask_unsaved(window)
    window.prices_action.trigger()
    window.price_book_dialog.view.confirm(f"Reset the price of {LINK}?")
    app._excepthook(ValueError, ValueError(f"bad GPU {IMG}"), None)
    timer.stop()
    window.price_book_dialog.close()
    assert len(shown) == 7
    problems = [f"{title}: {text!r} / {informative!r}" for title, fmt, text, informative in shown
                if fmt != Qt.TextFormat.PlainText and (_raw(text) or _raw(informative))]
    assert problems == [], "\n".join(problems)


def test_the_scan_finds_rich_labels_tooltips_and_chart_text(qtbot):
    """The scan itself: it must see what the tests above say is absent."""
    import pyqtgraph as pg

    root = QWidget()
    qtbot.addWidget(root)
    QLabel(f"GPU {IMG}", root)
    plain = QLabel(f"GPU {IMG}", root)
    plain.setTextFormat(Qt.TextFormat.PlainText)
    root.setToolTip(f"{LINK}")
    chart = pg.PlotWidget(root)
    legend = chart.getPlotItem().addLegend()
    legend.addItem(chart.plot([0, 1], [0, 1]), f"run {LINK}")
    problems = rich_text_problems(root)
    assert len(problems) == 3, problems
    assert any("label (AutoText)" in p for p in problems)
    assert any("QWidget() tooltip" in p for p in problems)
    assert any("rendered an image or link" in p for p in problems)
