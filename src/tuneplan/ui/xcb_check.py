"""Before Qt starts on Linux/X11: are the X11 helper libraries Qt's xcb plugin loads there?

Qt 6.5 and newer need ``libxcb-cursor0`` for its xcb platform plugin, and PySide6's wheel relies on the system for
``libxcb-icccm4``, ``libxcb-keysyms1`` and ``libxkbcommon-x11-0`` too. Without them Qt prints "Could not load the
Qt platform plugin xcb" and aborts. :func:`missing_libraries` finds them with :func:`ctypes.util.find_library`
(the dynamic linker's cache) before any Qt import, so the app can print the one install line instead. Imports no Qt.
"""

from __future__ import annotations

import ctypes.util
import os
import sys
from collections.abc import Callable, Mapping

__all__ = ["LIBRARIES", "install_hint", "missing_libraries"]

#: library name for find_library -> (Debian/Ubuntu, Fedora, Arch) package
LIBRARIES: dict[str, tuple[str, str, str]] = {
    "xcb-cursor": ("libxcb-cursor0", "xcb-util-cursor", "xcb-util-cursor"),
    "xcb-icccm": ("libxcb-icccm4", "xcb-util-wm", "xcb-util-wm"),
    "xcb-keysyms": ("libxcb-keysyms1", "xcb-util-keysyms", "xcb-util-keysyms"),
    "xkbcommon-x11": ("libxkbcommon-x11-0", "libxkbcommon-x11", "libxkbcommon-x11"),
}


def _uses_xcb(env: Mapping[str, str], platform: str) -> bool:
    if not platform.startswith("linux"):
        return False
    qpa = env.get("QT_QPA_PLATFORM", "")
    if qpa:
        return qpa.split(";")[0].startswith("xcb")
    if env.get("WAYLAND_DISPLAY") and env.get("XDG_SESSION_TYPE", "").lower() == "wayland":
        return False  # Qt picks its Wayland plugin there
    return bool(env.get("DISPLAY"))


def missing_libraries(env: Mapping[str, str] | None = None, platform: str | None = None,
                      find: Callable[[str], str | None] = ctypes.util.find_library) -> list[str]:
    """The :data:`LIBRARIES` keys the xcb plugin would need and the system lacks; [] when Qt will not use xcb."""
    env = os.environ if env is None else env
    if not _uses_xcb(env, sys.platform if platform is None else platform):
        return []
    return [name for name in LIBRARIES if not find(name)]


def install_hint(missing: list[str]) -> str:
    """A plain-text message with the install line for apt, dnf and pacman."""
    deb = " ".join(LIBRARIES[m][0] for m in missing)
    rpm = " ".join(LIBRARIES[m][1] for m in missing)
    arch = " ".join(LIBRARIES[m][2] for m in missing)
    return ("Tuneplan cannot open its window: the X11 libraries Qt needs are missing "
            f"({', '.join('lib' + m for m in missing)}).\n"
            f"Install them, then start Tuneplan again:\n"
            f"  Debian/Ubuntu:  sudo apt-get install {deb}\n"
            f"  Fedora:         sudo dnf install {rpm}\n"
            f"  Arch:           sudo pacman -S {arch}\n")
