"""The one place for the installers' app metadata.

Everything that names, describes or versions the app in a package (the PyInstaller spec, the .deb
control file, the Inno Setup script, the macOS Info.plist and dmg, the release workflow) reads it from
here. The version itself lives in ``src/tuneplan/__init__.py`` (``__version__``), the same place hatchling
reads it from; :func:`version` parses that file instead of importing the package, so the build works
before the package is installed and can never pick up a different installed copy.

Stdlib only: PyInstaller, Inno Setup (through build.py) and dmgbuild load this file as a plain script.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The repository root."""

APP_ID = "io.github.tuneplan.Tuneplan"
"""Reverse-DNS id: macOS CFBundleIdentifier, desktop-file/AppStream id stem."""
APP_NAME = "Tuneplan"
"""Human name: window title, Start-menu entry, .app name, dmg volume name."""
PACKAGE_NAME = "tuneplan"
"""Lower-case name: executable, .deb package, /opt folder, icon name, archive names."""
SUMMARY = "Plan LLM fine-tuning jobs: memory, time and cost"
"""One line (Debian's short description, .desktop Comment, Inno AppComments); no final full stop."""
DESCRIPTION = (
    "Tuneplan answers three questions before you rent a GPU: will this fine-tuning job fit in\n"
    "memory, how long will it run, and what will it cost? Pick a model, a method (full,\n"
    "LoRA, QLoRA), a GPU and a dataset, and see the memory ledger, the estimated run time\n"
    "and the price across GPUs and providers. It can also read the NVIDIA GPUs in this\n"
    "computer through the driver's NVML library."
)
"""Long description, wrapped to 80 columns for Debian's control file."""
MAINTAINER = "Tuneplan developers <tuneplan-dev@users.noreply.github.com>"
PUBLISHER = "Tuneplan developers"
HOMEPAGE = "https://github.com/tuneplan/tuneplan"
LICENSE = "MIT"
COPYRIGHT = "Copyright (c) 2026 Tuneplan developers"
DEB_SECTION = "science"
CATEGORIES = ("Development", "Science")
"""freedesktop menu categories (the .desktop file must list the same ones)."""
MACOS_MIN_VERSION = "13.0"
"""LSMinimumSystemVersion floor: the PySide6-Essentials 6.11 wheels are built for macOS 13+. The spec raises
it further if the bundled QtCore says so (``spec_inputs.macos_min_version``)."""
WINDOWS_APP_GUID = "{6A1C0E3B-5C0F-4B7E-9B7C-2D4E7D1A9F31}"
"""Inno Setup AppId: never change it, or upgrades install side by side instead of replacing."""

ICON_SVG = ROOT / "resources" / "icons" / "tuneplan.svg"
DESKTOP_FILE = ROOT / "resources" / "tuneplan.desktop"


def version() -> str:
    """``tuneplan.__version__``, read from ``src/tuneplan/__init__.py`` without importing it."""
    tree = ast.parse((ROOT / "src" / "tuneplan" / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            if isinstance(value, str):
                return value
    raise RuntimeError("src/tuneplan/__init__.py has no __version__ = '...'")


def windows_version_tuple() -> tuple[int, int, int, int]:
    """Four numeric fields for the Windows version resource ("0.1.0rc1" -> (0, 1, 0, 0))."""
    fields: list[int] = []
    for part in version().split(".")[:4]:
        digits = ""
        for ch in part:
            if not ch.isdigit():
                break
            digits += ch
        fields.append(int(digits or 0))
    while len(fields) < 4:
        fields.append(0)
    return (fields[0], fields[1], fields[2], fields[3])


def as_env() -> dict[str, str]:
    """The metadata as ``TUNEPLAN_PKG_*`` variables (for CI steps and installer compilers)."""
    return {
        "TUNEPLAN_PKG_VERSION": version(),
        "TUNEPLAN_PKG_APP_ID": APP_ID,
        "TUNEPLAN_PKG_APP_NAME": APP_NAME,
        "TUNEPLAN_PKG_NAME": PACKAGE_NAME,
        "TUNEPLAN_PKG_SUMMARY": SUMMARY,
        "TUNEPLAN_PKG_PUBLISHER": PUBLISHER,
        "TUNEPLAN_PKG_HOMEPAGE": HOMEPAGE,
    }


if __name__ == "__main__":
    for key, value in as_env().items():
        print(f"{key}={value}")
