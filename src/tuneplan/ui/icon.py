"""The application icon, drawn from one SVG so every size is crisp.

``resources/icons/`` holds the same SVG (and PNG renderings) for desktop integration; a test
checks that the two copies agree.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRectF, Qt
from PySide6.QtGui import QIcon, QImage, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

__all__ = ["ICON_SVG", "app_icon", "render_icon"]

ICON_SVG = """<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">
  <title>Tuneplan</title>
  <rect x="8" y="8" width="240" height="240" rx="44" fill="#1f3a5f"/>
  <rect x="40" y="148" width="176" height="52" rx="8" fill="#ffffff" fill-opacity="0.15"/>
  <rect x="40" y="148" width="64" height="52" rx="8" fill="#5b8fd6"/>
  <rect x="96" y="148" width="40" height="52" fill="#4e9a52"/>
  <rect x="136" y="148" width="30" height="52" fill="#e07b39"/>
  <rect x="186" y="128" width="10" height="92" rx="3" fill="#ff5a52"/>
  <polyline points="40,116 92,98 136,72 216,44" fill="none" stroke="#ffffff" stroke-width="14"
            stroke-linecap="round" stroke-linejoin="round"/>
  <circle cx="216" cy="44" r="13" fill="#ffffff"/>
</svg>
"""

SIZES = (16, 24, 32, 48, 64, 128, 256)


def render_icon(size: int) -> QImage:
    """The icon as a transparent ``size`` x ``size`` image."""
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    renderer = QSvgRenderer(QByteArray(ICON_SVG.encode("utf-8")))
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    return image


def app_icon() -> QIcon:
    """The window icon at every common size (needs a QGuiApplication)."""
    icon = QIcon()
    for size in SIZES:
        icon.addPixmap(QPixmap.fromImage(render_icon(size)))
    return icon
