"""Render the app icon (resources/icons/tuneplan.svg) into every raster format the installers need.

    python packaging/make_icons.py [--out build/icons]

Writes, into ``--out``:

* ``tuneplan-<N>.png`` for N in 16 32 48 64 128 256 512 1024 (Linux hicolor theme, Windows, macOS);
* ``tuneplan.ico``: 16-256 px, PNG-compressed entries (Windows Vista+ format; PyInstaller exe icon, Inno Setup);
* ``tuneplan.icns``: 16-1024 px PNG entries (macOS .app icon; the same chunks ``iconutil`` writes).

Rendering uses Qt's own SVG renderer offscreen (QSvgRenderer into a transparent QImage), so it needs only
PySide6 from the app's venv: no Pillow, ImageMagick, Inkscape or macOS ``iconutil``. ICO and ICNS are
simple containers around PNG data and are written here directly.
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import metadata  # noqa: E402

SIZES = (16, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
# ICNS chunk types holding PNG data, by pixel size (Apple's "icp4".."ic10"; retina variants share sizes).
ICNS_TYPES = (
    (b"icp4", 16),
    (b"icp5", 32),
    (b"icp6", 64),
    (b"ic07", 128),
    (b"ic08", 256),
    (b"ic09", 512),
    (b"ic10", 1024),
    (b"ic11", 32),  # 16@2x
    (b"ic12", 64),  # 32@2x
    (b"ic13", 256),  # 128@2x
    (b"ic14", 512),  # 256@2x
)


def render_pngs(svg: Path, sizes: tuple[int, ...]) -> dict[int, bytes]:
    """PNG bytes of ``svg`` at each square size, antialiased, transparent background."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(["make_icons"])  # noqa: F841 (fonts, painter)
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"make_icons: {svg} is not a valid SVG for Qt")
    out: dict[int, bytes] = {}
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        data = QByteArray()
        buf = QBuffer(data)
        buf.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buf, "PNG"):
            raise SystemExit(f"make_icons: could not encode the {size}px PNG")
        buf.close()
        out[size] = bytes(data.data())
    return out


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICO file whose entries are the given PNGs (ICONDIR + ICONDIRENTRY table + PNG payloads)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = 6 + 16 * len(sizes)
    table, payload = b"", b""
    for size in sizes:
        png = pngs[size]
        dim = 0 if size >= 256 else size  # 0 means 256 in ICO
        table += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(png), offset + len(payload))
        payload += png
    return header + table + payload


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    """An ICNS file of PNG chunks (the layout ``iconutil -c icns`` produces)."""
    chunks = b""
    for kind, size in ICNS_TYPES:
        png = pngs[size]
        chunks += kind + struct.pack(">I", 8 + len(png)) + png
    return b"icns" + struct.pack(">I", 8 + len(chunks)) + chunks


def make_icons(out_dir: Path, svg: Path = metadata.ICON_SVG) -> dict[str, Path]:
    """Write all icon files into ``out_dir``; return name -> path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    pngs = render_pngs(svg, tuple(sorted(set(SIZES) | set(ICO_SIZES))))
    written: dict[str, Path] = {}
    for size in SIZES:
        path = out_dir / f"tuneplan-{size}.png"
        path.write_bytes(pngs[size])
        written[path.name] = path
    ico = out_dir / "tuneplan.ico"
    ico.write_bytes(ico_bytes({s: pngs[s] for s in ICO_SIZES}))
    icns = out_dir / "tuneplan.icns"
    icns.write_bytes(icns_bytes(pngs))
    written[ico.name] = ico
    written[icns.name] = icns
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=metadata.ROOT / "build" / "icons", help="output folder")
    parser.add_argument("--svg", type=Path, default=metadata.ICON_SVG, help="source SVG")
    args = parser.parse_args(argv)
    for name, path in make_icons(args.out, args.svg).items():
        print(f"{path}  ({path.stat().st_size} bytes)")
        del name
    return 0


if __name__ == "__main__":
    sys.exit(main())
