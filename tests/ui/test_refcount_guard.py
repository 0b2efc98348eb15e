"""PySide6 6.12.0 on Python 3.11 drops a reference to None on every void call and aborts the interpreter.

pyproject.toml excludes that build on Python < 3.12; this test fails if such a build is installed.
"""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import sys
from PySide6.QtCore import QObject
o = QObject()
before = sys.getrefcount(None)
for i in range(1000):
    o.setObjectName("x")   # returns void
print(sys.getrefcount(None) - before)
for i in range(200_000):
    o.setObjectName("x")
print("survived")
"""


def test_void_calls_keep_none_alive():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    delta, survived = proc.stdout.split()
    assert abs(int(delta)) < 10  # a leaking binding loses 1000 references here
    assert survived == "survived"
