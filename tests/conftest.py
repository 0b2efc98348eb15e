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


@pytest.fixture
def fake_hub(tmp_path, monkeypatch):
    """A local fake Hugging Face Hub (``tests/hub_fake.py``) that huggingface_hub talks to through ``HF_ENDPOINT``,
    with a private HF cache, no token and no offline mode; closed after the test."""
    from hub_fake import FakeHub

    server = FakeHub()
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hf-cache"))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    yield server
    server.close()
