"""The first-run check for Qt's X11 libraries (issue #21), without Qt, with a fake linker cache."""

from __future__ import annotations

import subprocess
import sys

from tuneplan.ui.xcb_check import install_hint, missing_libraries

X11 = {"DISPLAY": ":0"}


def test_missing_libraries_are_named_only_when_qt_would_use_xcb():
    none = lambda name: None  # noqa: E731 - a linker cache without any of them
    assert missing_libraries(X11, "linux", none) == ["xcb-cursor", "xcb-icccm", "xcb-keysyms", "xkbcommon-x11"]
    assert missing_libraries(X11, "linux", lambda n: f"lib{n}.so.0") == []
    assert missing_libraries({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}, "linux", none) == []
    assert missing_libraries({"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"}, "linux", none) == []
    assert missing_libraries({}, "linux", none) == []  # no display at all: Qt's own message is the right one
    assert missing_libraries(X11, "darwin", none) == []


def test_hint_gives_one_install_line_per_package_manager():
    text = install_hint(["xcb-cursor", "xcb-keysyms"])
    assert "sudo apt-get install libxcb-cursor0 libxcb-keysyms1" in text
    assert "sudo dnf install xcb-util-cursor xcb-util-keysyms" in text
    assert "sudo pacman -S xcb-util-cursor xcb-util-keysyms" in text


def test_the_app_exits_2_with_the_hint_before_qt_starts(tmp_path):
    # the real entry point in a subprocess, with find_library patched to find nothing
    code = ("import ctypes.util, sys; ctypes.util.find_library = lambda name: None; "
            "from tuneplan.__main__ import main; sys.exit(main([]))")
    env = {"DISPLAY": ":99", "PATH": "/usr/bin:/bin", "TUNEPLAN_DATA_DIR": str(tmp_path)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 2, res.stderr
    assert "sudo apt-get install libxcb-cursor0" in res.stderr
    assert "PySide6" not in res.stderr


def test_the_first_window_fits_a_laptop_screen():
    from tuneplan.ui.app import initial_size

    assert initial_size(1920, 1050) == (1400, 900)
    assert initial_size(1366, 738) == (1366, 738)  # 1366 x 768 less a 30-pixel panel
    assert initial_size(300, 200) == (640, 480)
