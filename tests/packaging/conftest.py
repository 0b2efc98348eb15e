"""Packaging tests: register the marker of the (opt-in, slow) real-build test."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "packaging_build: builds the real installers (minutes); runs only with TUNEPLAN_PACKAGING_BUILD=1"
    )
