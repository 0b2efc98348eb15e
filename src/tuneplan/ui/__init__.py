"""Tuneplan's Qt user interface (PySide6 + pyqtgraph).

Importing this package applies :func:`_pin_singletons` first; see there for why.
"""

from __future__ import annotations

import ctypes
import sys

__all__: list[str] = []

# Far more than any session can drop, far below Py_ssize_t overflow (2**63).
_PINNED_REFS = 1 << 40


def _pin_singletons() -> bool:
    """Make ``None``, ``True`` and ``False`` effectively immortal on CPython < 3.12.

    PySide6 6.12.0 on Python 3.11 drops a reference to ``None`` on every call of a method that
    returns ``void`` (``setText``, ``setEnabled``...) and one to ``True`` on every emission of a
    ``Signal(bool)`` carrying ``True`` to a Python slot. The binding appears to rely on PEP 683
    (immortal singletons, Python 3.12+). On 3.11 the counts reach zero after a few dozen form
    edits and the interpreter aborts ("Fatal Python error: none_dealloc"). Raising the counts by
    2**40 reproduces what Python 3.12 does for these objects; it is a no-op on 3.12+ and on
    other interpreters. ``tests/ui/test_refcount_guard.py`` reproduces the bug.
    """
    if sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return False
    for obj in (None, True, False):
        count = ctypes.c_ssize_t.from_address(id(obj))
        # ob_refcnt is the first field only in standard builds; leave unusual layouts alone.
        if abs(count.value - sys.getrefcount(obj)) > 8:
            return False
        if count.value < _PINNED_REFS:
            count.value += _PINNED_REFS
    return True


_pin_singletons()
