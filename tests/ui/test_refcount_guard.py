"""PySide6 6.12 on Python 3.11 drops a reference to None per void call; importing tuneplan.ui guards it."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import sys
{guard}
from PySide6.QtCore import QObject
o = QObject()
for i in range(200_000):
    o.setObjectName("x")   # returns void
print("survived")
"""


def _run(guard: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-c", SCRIPT.format(guard=guard)], env=env, capture_output=True,
                          text=True, timeout=120)


def test_void_calls_do_not_kill_the_interpreter():
    proc = _run("import tuneplan.ui")
    assert proc.returncode == 0, proc.stderr
    assert "survived" in proc.stdout
