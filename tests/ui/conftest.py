"""Fixtures for GUI tests: a main window on the default plan, with no modal dialogs and no NVML."""

from __future__ import annotations

import pytest

from tuneplan.hw.probe import LocalGpu, ProbeResult

FAKE_PROBE = ProbeResult(
    status="ok",
    message="1 NVIDIA GPU",
    gpus=[LocalGpu(index=0, name="NVIDIA GeForce RTX 4090", memory_total_bytes=24 * 2**30,
                   memory_free_bytes=int(22.5 * 2**30), catalog_id="rtx4090")],
)


def shown_window(qtbot, monkeypatch, probe_result):
    """A shown 1400 x 900 MainWindow whose GPU probe answers ``probe_result``; the unsaved-changes question answers
    Discard and error boxes are recorded in ``w.shown_errors`` instead of blocking."""
    from PySide6.QtWidgets import QMessageBox

    from tuneplan.ui.main_window import MainWindow

    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(MainWindow, "ask_unsaved", lambda self: QMessageBox.StandardButton.Discard)
    monkeypatch.setattr(MainWindow, "show_error", lambda self, title, text: shown.append((title, text)))
    w = MainWindow(probe=lambda: probe_result)
    w.shown_errors = shown
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    return w


@pytest.fixture
def show_window(qtbot, monkeypatch):
    """:func:`shown_window` for a probe answer of the test's own (``show_window(probe_result)``)."""
    return lambda probe_result: shown_window(qtbot, monkeypatch, probe_result)


@pytest.fixture
def window(qtbot, monkeypatch):
    """A shown MainWindow; dialogs are replaced so nothing blocks, and errors are recorded."""


    return shown_window(qtbot, monkeypatch, FAKE_PROBE)
