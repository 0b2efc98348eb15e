"""What goes into the PyInstaller bundle: data files, hidden imports, excludes, binary filters.

``packaging/tuneplan.spec`` calls these functions, and ``tests/packaging`` checks them without building,
so this module is stdlib-only and never imports Qt, pyqtgraph or tuneplan itself (it reads the source tree
and the installed packages' folders from disk).

Why each entry is here:

* datas: ``tuneplan/catalog/data/*`` is read through ``importlib.resources`` and every other non-Python
  file under ``src/tuneplan`` (future ``.qss``, ``.json``, translations) goes along with it; the top-level
  ``resources/`` folder (icons, the .desktop file, example scenarios) lands in ``<bundle>/resources``,
  i.e. ``Path(sys._MEIPASS) / "resources"`` at run time.
* hiddenimports: modules imported lazily (inside functions, through ``importlib.import_module``) that
  PyInstaller's static analysis may not see: every ``tuneplan`` module (the CLI imports ``tuneplan.ui``,
  ``tuneplan.storage`` ... only when the command needs them), ``pynvml`` (imported by the GPU probe at run
  time), pyqtgraph's exporters (PNG/SVG/CSV export), and the Qt modules pyqtgraph loads with
  ``importlib.import_module(f"{QT_LIB}.QtOpenGL")`` at import time.
* excludes: other Qt bindings (pyqtgraph would try PyQt6 first) and the large Qt modules the app never
  uses (QML/Quick, WebEngine, 3D, Multimedia, Designer, SQL ...).
* binary/data filters: Qt plugins and translations that a desktop widget app does not load.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SRC = ROOT / "src"
PACKAGE_DIR = SRC / "tuneplan"
RESOURCES_DIR = ROOT / "resources"

ENTRY_SCRIPT = HERE / "launcher.py"
RUNTIME_HOOK = HERE / "pyi_rth_tuneplan.py"

# Lazily imported third-party modules (see module docstring).
EXTRA_HIDDENIMPORTS = [
    "pynvml",
    "pyqtgraph.exporters",
    "pyqtgraph.exporters.ImageExporter",
    "pyqtgraph.exporters.SVGExporter",
    "pyqtgraph.exporters.CSVExporter",
    "PySide6.QtSvg",  # SVG export (QSvgGenerator) and the SVG icon engine/image format
    "PySide6.QtOpenGL",  # pyqtgraph PlotCurveItem/PColorMeshItem: importlib.import_module at import time
    "PySide6.QtOpenGLWidgets",  # pyqtgraph.Qt.OpenGLHelpers
    "platformdirs",
    "huggingface_hub",  # storage/hub.py imports it inside functions (start-up stays fast)
    "huggingface_hub.errors",
    # storage/dataset_file.py (issue #19): the tokenizer library, and the optional chat-template and
    # Parquet/Arrow readers, bundled when the build environment has them
    "tokenizers",
    "jinja2",
    "jinja2.ext",
    "jinja2.sandbox",
    "pyarrow",
    "pyarrow.ipc",
    "pyarrow.parquet",
    "pydantic",
    "pydantic_core",
    "numpy",
    # storage/price_refresh.py (issue #19): the system trust store for HTTPS, where the bundle has no CA file
    # of its own (falls back to Python's defaults when missing)
    "truststore",
]

_UNUSED_QT_MODULES = [
    "Qt3DAnimation", "Qt3DCore", "Qt3DExtras", "Qt3DInput", "Qt3DLogic", "Qt3DRender",
    "QtBluetooth", "QtCharts", "QtConcurrent", "QtDataVisualization", "QtDesigner", "QtGraphs",
    "QtGraphsWidgets", "QtHelp", "QtHttpServer", "QtLabsStyleKit", "QtLocation", "QtMultimedia",
    "QtMultimediaWidgets", "QtNetworkAuth", "QtNfc", "QtPdf", "QtPdfWidgets", "QtPositioning",
    "QtQml", "QtQmlFeatures", "QtQuick", "QtQuick3D", "QtQuickControls2", "QtQuickTest",
    "QtQuickWidgets", "QtRemoteObjects", "QtScxml", "QtSensors", "QtSerialBus", "QtSerialPort",
    "QtSpatialAudio", "QtSql", "QtStateMachine", "QtTextToSpeech", "QtUiTools", "QtWebChannel",
    "QtWebEngineCore", "QtWebEngineQuick", "QtWebEngineWidgets", "QtWebSockets", "QtWebView",
    "QtXml",
    "QtNetwork",  # nothing uses it; keeping it out also keeps out the TLS plugins and OpenSSL/Kerberos
    "QtTest",  # pyqtgraph imports it inside try/except; the app does not use it
]  # fmt: skip

EXCLUDES = [
    # other Qt bindings: only PySide6 may end up in the bundle
    "PyQt5", "PyQt6", "PySide2", "shiboken2", "sip",
    # optional pyqtgraph/numpy back-ends the app does not use (keep them out even if the build venv has them)
    "tkinter", "_tkinter", "matplotlib", "scipy", "h5py", "cupy", "numba", "OpenGL", "IPython",
    "pyqtgraph.examples", "pyqtgraph.opengl", "pyqtgraph.jupyter", "numpy.f2py", "numpy.testing._private.extbuild",
    "pytest", "pytestqt", "setuptools", "pip",
    # GNU readline is GPL-3 and only serves interactive prompts (pdb, code); a GUI app never needs it
    "readline",
    *(f"PySide6.{name}" for name in _UNUSED_QT_MODULES),
]  # fmt: skip

# Qt plugins a desktop widget app does not load. Matched against the destination path with "/" separators,
# so the same rules work for .so/.dylib/.dll; names are plugin-file stems without the "lib" prefix.
_DROP_PLUGIN_DIRS = (
    "designer", "egldeviceintegrations", "generic", "qmltooling", "sqldrivers",
    "wayland-graphics-integration-server", "vectorimageformats", "networkinformation",
)  # fmt: skip
_DROP_PLATFORMS = ("qeglfs", "qlinuxfb", "qminimalegl", "qvkkhrdisplay", "qvnc")
# Image formats: keep PNG (built in), JPEG, SVG and ICO (window icons, chart export); drop the rest.
_DROP_IMAGEFORMATS = ("qgif", "qicns", "qtga", "qtiff", "qwbmp", "qwebp", "qpdf")
# The GTK3 platform theme links the whole GTK stack; a bundle cannot carry a GTK matching the user's desktop,
# and Qt falls back to its own Fusion style and the xdg-desktop-portal file dialogs without it.
_DROP_PLATFORMTHEMES = ("qgtk3",)
_DROP_LIBS = re.compile(
    r"(^|/)(lib)?Qt6?("
    r"EglFSDeviceIntegration|EglFsKmsSupport|EglFsKmsGbmSupport|WaylandCompositor\w*|WaylandEglCompositor\w*|"
    r"Quick\w*|Qml\w*|Designer\w*|Labs\w*|Lottie\w*|Pdf\w*|VirtualKeyboard\w*|Sql|Help|UiTools"
    r")(\.so|\.\d|\.dll|\.dylib|\.framework|$)"
)
# Qt's own translations (qtbase_*.qm: the strings of Qt's standard dialogs, 7 MB for 40 languages) matter
# only for the languages the app ships (resources/translations/tuneplan_<lang>.qm, loaded by
# tuneplan.ui.i18n with a QTranslator, which also loads qtbase_<lang>.qm): those few ship, the rest do
# not. tests/packaging checks this stays in step with the app's use of QTranslator.
KEEP_QT_TRANSLATIONS = True
TRANSLATIONS_DIR = RESOURCES_DIR / "translations"
APP_LANGUAGES = sorted(p.stem.removeprefix("tuneplan_") for p in TRANSLATIONS_DIR.glob("tuneplan_*.qm"))
_KEEP_TRANSLATIONS = re.compile(
    r"(^|/)qt(base)?_(" + "|".join(re.escape(lang) for lang in APP_LANGUAGES or ["-"]) + r")\.qm$"
)


def _is_translation_source(path: Path) -> bool:
    """``resources/translations/*.ts``: Qt Linguist sources, compiled into the ``.qm`` that ships."""
    return path.suffix == ".ts" and path.parent == TRANSLATIONS_DIR


def data_files() -> list[tuple[Path, str]]:
    """Every file the app reads at run time, as (source file, destination folder in the bundle)."""
    entries: list[tuple[Path, str]] = []
    for path in sorted(PACKAGE_DIR.rglob("*")):
        if path.is_file() and path.suffix not in {".py", ".pyc", ".pyi"} and "__pycache__" not in path.parts:
            entries.append((path, path.parent.relative_to(SRC).as_posix()))
    for path in sorted(RESOURCES_DIR.rglob("*")):
        if path.is_file() and not _is_translation_source(path):
            entries.append((path, path.parent.relative_to(ROOT).as_posix()))
    return entries


def datas() -> list[tuple[str, str]]:
    """``Analysis(datas=...)``: one (source, destination folder) pair per file."""
    return [(str(src), dest) for src, dest in data_files()]


# Distributions whose code ends up in the bundle (runtime dependencies and theirs).
BUNDLED_DISTRIBUTIONS = (
    "PySide6_Essentials", "shiboken6", "pyqtgraph", "numpy", "pydantic", "pydantic_core", "annotated-types",
    "typing-inspection", "typing_extensions", "platformdirs", "nvidia-ml-py", "PyYAML",
    "filelock", "huggingface_hub", "hf-xet", "httpx2", "httpcore2", "h11", "anyio", "idna", "truststore", "fsspec",
    "packaging", "tqdm", "click",
    "tokenizers", "Jinja2", "MarkupSafe", "pyarrow",
)  # fmt: skip


def third_party_notices() -> tuple[str, list[tuple[Path, str]]]:
    """The text of ``licenses/THIRD-PARTY-NOTICES.txt`` and the license files to ship under ``licenses/``.

    Reads installed distributions' metadata (name, version, license expression, home page) and their
    bundled license files; adds Python's own LICENSE.txt and Tuneplan's LICENSE.
    """
    from importlib import metadata as md

    lines = [
        "Tuneplan bundles the following software. License files, where the package ships them, are in",
        "the folders next to this file; Qt and PySide6 are used under the LGPL-3.0 (dynamically linked:",
        "the Qt libraries in PySide6/Qt/lib can be replaced with compatible builds).",
        "",
        f"Python {sys.version.split()[0]}: PSF-2.0 (python/LICENSE.txt)",
    ]
    files: list[tuple[Path, str]] = [(ROOT / "LICENSE", "licenses/tuneplan")]
    python_license = Path(sys.base_prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "LICENSE.txt"
    if not python_license.is_file():
        python_license = Path(sys.base_prefix) / "LICENSE.txt"  # Windows layout
    if python_license.is_file():
        files.append((python_license, "licenses/python"))
    for name in BUNDLED_DISTRIBUTIONS:
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            lines.append(f"{name}: not installed in the build environment")
            continue
        meta = dist.metadata
        license_text = meta.get("License-Expression") or (meta.get("License") or "").splitlines()[0:1]
        if isinstance(license_text, list):
            license_text = license_text[0] if license_text else "see package"
        urls = {
            label.strip().lower(): url.strip()
            for label, _, url in (u.partition(",") for u in meta.get_all("Project-URL") or [])
        }
        home = meta.get("Home-page") or next(
            (urls[k] for k in ("homepage", "home", "source", "source code", "repository") if k in urls), ""
        )
        lines.append(f"{meta['Name']} {dist.version}: {license_text}  {home}".rstrip())
        for f in dist.files or []:
            parts = Path(str(f)).parts
            if len(parts) >= 2 and parts[0].endswith(".dist-info") and (
                parts[1] == "licenses" or any(k in parts[-1].upper() for k in ("LICEN", "COPYING", "NOTICE"))
            ):
                src = Path(str(dist.locate_file(f)))
                rel = Path(*parts[2:]).parent if parts[1] == "licenses" else Path()
                files.append((src, (Path("licenses") / meta["Name"] / rel).as_posix()))
    return "\n".join(lines) + "\n", files


def tuneplan_modules() -> list[str]:
    """Every module under ``src/tuneplan`` by dotted name (found on disk, nothing imported)."""
    names: list[str] = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.append(".".join(parts))
    return names


def hiddenimports() -> list[str]:
    """``Analysis(hiddenimports=...)``."""
    return tuneplan_modules() + EXTRA_HIDDENIMPORTS


def _posix(dest: str) -> str:
    return dest.replace("\\", "/")


def keep_binary(dest: str) -> bool:
    """False for Qt plugins and libraries the app never loads (``dest`` is the path inside the bundle)."""
    dest = _posix(dest)
    match = re.search(r"(?:^|/)plugins/([^/]+)/([^/]+)$", dest)
    if match:
        folder, name = match.groups()
        stem = re.sub(r"^lib", "", name.split(".")[0])
        if folder in _DROP_PLUGIN_DIRS:
            return False
        if folder == "platforms" and stem in _DROP_PLATFORMS:
            return False
        if folder == "imageformats" and stem in _DROP_IMAGEFORMATS:
            return False
        if folder == "platformthemes" and stem in _DROP_PLATFORMTHEMES:
            return False
        return True
    return not _DROP_LIBS.search(dest)


def keep_data(dest: str) -> bool:
    """False for Qt's translations of languages the app does not ship (``dest``: the path in the bundle).

    The app's own ``resources/translations/tuneplan_*.qm`` always stay.
    """
    dest = _posix(dest)
    if dest.startswith("resources/translations/"):
        return True
    if "/translations/" in dest and dest.endswith(".qm"):
        return KEEP_QT_TRANSLATIONS and bool(_KEEP_TRANSLATIONS.search(dest))
    return True


def keep_entry(entry: tuple[str, str, str]) -> bool:
    """Whether a PyInstaller TOC entry ``(dest, src, typecode)`` stays in the bundle.

    SYMLINK entries (``_internal/libQt6Core.so.6 -> PySide6/Qt/lib/libQt6Core.so.6``) sit in ``a.datas``
    and follow the rule of the library they point to, so no link is left dangling.
    """
    dest, _src, typecode = entry
    if typecode in {"BINARY", "EXTENSION", "SYMLINK"} and not keep_binary(dest):
        return False
    return keep_data(dest)


def filter_toc(toc: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The TOC entries :func:`keep_entry` accepts."""
    return [entry for entry in toc if keep_entry(entry)]


def elf_needed(path: str) -> list[str]:
    """DT_NEEDED sonames of an ELF file (``objdump -p``; PyInstaller itself requires objdump on Linux)."""
    out = subprocess.run(["objdump", "-p", path], capture_output=True, text=True, check=False).stdout
    return [line.split()[1] for line in out.splitlines() if line.strip().startswith("NEEDED")]


def _is_root(dest: str, kind: str) -> bool:
    """Binaries loaded by name at run time: Python extension modules, Qt plugins, libpython."""
    dest = _posix(dest)
    return kind == "EXTENSION" or "/plugins/" in dest or dest.split("/")[-1].startswith("libpython")


def prune_unreferenced_libs(
    binaries: list[tuple[str, str, str]], needed=elf_needed  # noqa: ANN001 (callable, injectable for tests)
) -> tuple[list[tuple[str, str, str]], list[str]]:
    """Drop shared libraries that no kept binary needs any more (Linux).

    Dropping a plugin (for example the GTK3 theme) leaves behind the libraries PyInstaller collected for it,
    and Qt hooks collect some Qt libraries nothing links (QtNetwork). Roots are the binaries loaded by name
    (:func:`_is_root`); a library stays if a root needs it (DT_NEEDED), directly or through other kept
    libraries. Libraries only ever ``dlopen``-ed by name would be dropped too: none are bundled today
    (Qt dlopens libGL/libEGL/libvulkan and pynvml loads libnvidia-ml, all from the system), and the smoke
    test would catch a new one. Returns (kept TOC, dropped destination names).
    """
    libs: dict[str, tuple[str, str, str]] = {}
    for entry in binaries:
        if not _is_root(entry[0], entry[2]):
            libs.setdefault(_posix(entry[0]).split("/")[-1], entry)
    queue = [src for dest, src, kind in binaries if _is_root(dest, kind)]
    wanted: set[str] = set()
    seen: set[str] = set()
    while queue:
        src = queue.pop()
        if src in seen:
            continue
        seen.add(src)
        for soname in needed(src):
            if soname in libs and soname not in wanted:
                wanted.add(soname)
                queue.append(libs[soname][1])
    dropped = {entry[0] for name, entry in libs.items() if name not in wanted}
    kept = [entry for entry in binaries if entry[0] not in dropped]
    return kept, sorted(dropped)


def drop_dangling_symlinks(
    datas: list[tuple[str, str, str]], dropped: list[str]
) -> list[tuple[str, str, str]]:
    """Remove SYMLINK entries (kept in ``a.datas``) that point at a dropped binary."""
    gone = {_posix(d) for d in dropped}
    result = []
    for dest, src, kind in datas:
        if kind == "SYMLINK":
            target = os.path.normpath(os.path.join(os.path.dirname(dest), src)).replace(os.sep, "/")
            if target in gone:
                continue
        result.append((dest, src, kind))
    return result


def _readelf_dynamic(path: str) -> str:
    return subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=False).stdout


def _needs_cleaning(path: str) -> tuple[bool, bool]:
    """(has a symbol table or debug info, has an absolute RPATH/RUNPATH) for an ELF file."""
    sections = subprocess.run(["objdump", "-h", path], capture_output=True, text=True, check=False).stdout
    symbols = subprocess.run(["objdump", "-t", path], capture_output=True, text=True, check=False).stdout
    unstripped = ".debug_info" in sections or "no symbols" not in symbols
    paths = re.findall(r"\((?:RPATH|RUNPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", _readelf_dynamic(path))
    absolute = any(part.startswith("/") for entry in paths for part in entry.split(":"))
    return unstripped, absolute


def clean_python_runtime(
    binaries: list[tuple[str, str, str]], workdir: Path, prefix: str = sys.base_prefix
) -> tuple[list[tuple[str, str, str]], int, list[str]]:
    """Point the TOC at cleaned copies of the interpreter's own binaries (Linux).

    Python built from source (pyenv, as here) leaves ~25 MB of symbols and DWARF data in libpython and
    lib-dynload, plus a RUNPATH naming the build machine's prefix (``/root/.pyenv/versions/3.11.7/lib``)
    that has no business in an installed app. Copies get ``strip --strip-unneeded`` (what Debian's dh_strip
    does to shared objects) and, when ``patchelf`` is installed, ``patchelf --remove-rpath`` (in that
    order: stripping a patchelf-edited file can corrupt it). Only files under ``prefix`` are touched:
    wheels' libraries are left exactly as built, since auditwheel already patchelf-edited many of them.
    Returns (new TOC, bytes saved, notes).
    """
    base = os.path.realpath(prefix) + os.sep
    patchelf = shutil.which("patchelf")
    saved = 0
    notes: list[str] = []
    result = []
    for dest, src, kind in binaries:
        real = os.path.realpath(src)
        if kind not in {"BINARY", "EXTENSION"} or not real.startswith(base):
            result.append((dest, src, kind))
            continue
        unstripped, absolute_rpath = _needs_cleaning(real)
        if not unstripped and not (absolute_rpath and patchelf):
            if absolute_rpath:
                notes.append(f"{dest}: absolute RUNPATH kept (install patchelf to remove it)")
            result.append((dest, src, kind))
            continue
        copy = workdir / dest
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(real, copy)
        copy.chmod(0o755)
        if unstripped:
            subprocess.run(["strip", "--strip-unneeded", str(copy)], check=True)
        if absolute_rpath:
            if patchelf:
                subprocess.run([patchelf, "--remove-rpath", str(copy)], check=True)
            else:
                notes.append(f"{dest}: absolute RUNPATH kept (install patchelf to remove it)")
        saved += os.path.getsize(real) - copy.stat().st_size
        result.append((dest, str(copy), kind))
    return result, saved, notes


def parse_minos(otool_output: str) -> str | None:
    """The highest deployment target (``minos`` of LC_BUILD_VERSION, ``version`` of LC_VERSION_MIN_MACOSX)
    in ``otool -l`` output."""
    found = re.findall(r"^\s*minos (\d+(?:\.\d+)*)", otool_output, flags=re.M)
    found += re.findall(r"LC_VERSION_MIN_MACOSX\n(?:.*\n){0,2}?\s*version (\d+(?:\.\d+)*)", otool_output)
    if not found:
        return None
    return max(found, key=lambda v: tuple(int(x) for x in v.split(".")))


def macos_min_version(floor: str) -> str:
    """LSMinimumSystemVersion for the .app: the deployment target of the bundled QtCore, at least ``floor``
    (macOS only; an app whose Info.plist promises less than its binaries need crashes on launch)."""
    import importlib.util

    spec = importlib.util.find_spec("PySide6")
    candidates = [floor]
    if spec and spec.origin and shutil.which("otool"):
        qtcore = Path(spec.origin).parent / "Qt" / "lib" / "QtCore.framework" / "Versions" / "A" / "QtCore"
        if qtcore.is_file():
            out = subprocess.run(["otool", "-l", str(qtcore)], capture_output=True, text=True, check=False).stdout
            minos = parse_minos(out)
            if minos:
                candidates.append(minos)
    return max(candidates, key=lambda v: tuple(int(x) for x in v.split(".")))


if __name__ == "__main__":  # a quick look: python packaging/spec_inputs.py
    for src, dest in data_files():
        print(f"data    {src.relative_to(ROOT)} -> {dest}")
    for name in hiddenimports():
        print(f"hidden  {name}")
    print(f"exclude {len(EXCLUDES)} modules; python {sys.version.split()[0]}")
