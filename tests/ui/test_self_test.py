"""``tuneplan --self-test`` works headless, without a GPU (the packaging smoke test relies on it)."""

from __future__ import annotations

import os
import subprocess
import sys


def test_self_test_passes(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYQTGRAPH_QT_LIB": "PySide6",
           "TUNEPLAN_DATA_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "tuneplan", "--self-test"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SELFTEST OK" in proc.stdout
