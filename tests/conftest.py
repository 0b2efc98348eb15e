"""Test-wide setup: headless Qt, pyqtgraph on PySide6, and a private data folder per test."""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    """Force the offscreen platform and PySide6 before any Qt or pyqtgraph import."""
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["PYQTGRAPH_QT_LIB"] = "PySide6"


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point TUNEPLAN_DATA_DIR at a fresh folder so no test touches the real user data."""
    monkeypatch.setenv("TUNEPLAN_DATA_DIR", str(tmp_path_factory.mktemp("data")))
