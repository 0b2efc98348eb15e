"""Packaging stays in step with the code, without building anything (fast; no Qt import).

What a frozen app silently loses when nobody looks: a data file the spec does not collect, a module
imported lazily that PyInstaller cannot see, a version that differs between the app and its installer,
a broken .desktop entry, a release workflow that skips an OS. The real build is
``python packaging/build.py linux``; ``test_real_linux_build`` runs it only when asked
(``TUNEPLAN_PACKAGING_BUILD=1``, marker ``packaging_build``).
"""

from __future__ import annotations

import ast
import configparser
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
SRC = ROOT / "src"
PACKAGE = SRC / "tuneplan"


def _load(name: str) -> ModuleType:
    """Import a packaging/ script as a module (they are scripts, not a package)."""
    if str(PACKAGING) not in sys.path:
        sys.path.insert(0, str(PACKAGING))
    spec = importlib.util.spec_from_file_location(f"_pkg_{name}", PACKAGING / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def spec_inputs() -> ModuleType:
    return _load("spec_inputs")


@pytest.fixture(scope="module")
def metadata() -> ModuleType:
    return _load("metadata")


def _bundled(spec_inputs: ModuleType) -> set[str]:
    """Bundle-relative paths of every data file the spec collects."""
    return {f"{dest}/{src.name}" for src, dest in spec_inputs.data_files()}


# ------------------------------------------------------------------------------------------ data files


def test_every_catalog_data_file_is_bundled(spec_inputs: ModuleType) -> None:
    files = sorted(p for p in (PACKAGE / "catalog" / "data").iterdir() if p.is_file())
    assert files, "no catalog data found"
    bundled = _bundled(spec_inputs)
    for path in files:
        assert f"tuneplan/catalog/data/{path.name}" in bundled, f"{path} is not collected by the spec"


def test_every_non_python_file_in_the_package_is_bundled(spec_inputs: ModuleType) -> None:
    bundled = _bundled(spec_inputs)
    for path in PACKAGE.rglob("*"):
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts:
            assert path.relative_to(SRC).as_posix() in bundled, f"{path} is not collected"


def test_every_resource_is_bundled(spec_inputs: ModuleType) -> None:
    files = [p for p in (ROOT / "resources").rglob("*") if p.is_file()]
    assert files, "resources/ is empty"
    bundled = _bundled(spec_inputs)
    for path in files:
        if path.suffix == ".ts" and path.parent.name == "translations":
            # Qt Linguist sources stay out; their compiled .qm ships
            assert path.relative_to(ROOT).as_posix() not in bundled
            assert path.with_suffix(".qm").relative_to(ROOT).as_posix() in bundled, f"{path}: no .qm collected"
            continue
        assert path.relative_to(ROOT).as_posix() in bundled, f"{path} is not collected"


def test_data_files_the_code_names_exist_and_are_bundled(spec_inputs: ModuleType) -> None:
    """Every literal read_text("x")/read_csv("x") in the catalog names a bundled file."""
    bundled = _bundled(spec_inputs)
    names = set()
    for path in (PACKAGE / "catalog").glob("*.py"):
        names |= set(re.findall(r"""\bread_(?:text|csv)\(\s*["']([^"']+)["']""", path.read_text(encoding="utf-8")))
    assert names, "found no catalog reads: did the loader change?"
    for name in names:
        assert f"tuneplan/catalog/data/{name}" in bundled, f"the catalog reads {name}, which is not bundled"


# ---------------------------------------------------------------------------------------- hidden imports


def _imports(tree: ast.AST, *, lazy: bool) -> set[str]:
    """Modules imported inside functions (lazy=True) or at module level (lazy=False)."""
    found: set[str] = set()

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function == lazy:
                if isinstance(child, ast.Import):
                    found.update(alias.name for alias in child.names)
                elif child.module and child.level == 0:
                    found.add(child.module)
                    found.update(f"{child.module}.{alias.name}" for alias in child.names)
            visit(child, inner)

    visit(tree, False)
    return found


def _source_trees() -> list[ast.AST]:
    return [ast.parse(p.read_text(encoding="utf-8")) for p in sorted(PACKAGE.rglob("*.py"))]


def _covered(module: str, hidden: set[str]) -> bool:
    parts = module.split(".")
    return any(".".join(parts[:i]) in hidden for i in range(len(parts), 0, -1))


def test_hiddenimports_list_every_tuneplan_module(spec_inputs: ModuleType) -> None:
    hidden = set(spec_inputs.hiddenimports())
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        assert ".".join(parts) in hidden, f"{'.'.join(parts)} missing from hiddenimports"
    for required in ("tuneplan.ui", "tuneplan.storage"):
        assert required in hidden


def test_hiddenimports_cover_lazy_imports(spec_inputs: ModuleType) -> None:
    """Every module imported inside a function is a hidden import, or imported at module level somewhere."""
    hidden = set(spec_inputs.hiddenimports())
    trees = _source_trees()
    eager: set[str] = set().union(*(_imports(t, lazy=False) for t in trees))
    lazy: set[str] = set().union(*(_imports(t, lazy=True) for t in trees))
    for module in sorted(lazy):
        top = module.split(".")[0]
        if top in sys.stdlib_module_names:
            continue
        if importlib.util.find_spec(top) is None:
            continue  # an optional import the app handles (not installed here, so not bundled either)
        if module.startswith("tuneplan."):
            parent = module
            while parent not in hidden and "." in parent:
                parent = parent.rsplit(".", 1)[0]  # "from tuneplan.x import name": name is not a module
            assert parent in hidden and parent != "tuneplan" or module == "tuneplan", f"lazy {module} not hidden"
            continue
        assert _covered(module, hidden) or _covered(module, eager) or module.rsplit(".", 1)[0] in eager | hidden, (
            f"{module} is imported lazily and PyInstaller may not see it: add it to EXTRA_HIDDENIMPORTS"
        )


def test_named_lazy_modules_are_hidden_imports(spec_inputs: ModuleType) -> None:
    hidden = set(spec_inputs.hiddenimports())
    for module in ("pynvml", "pyqtgraph.exporters", "pyqtgraph.exporters.ImageExporter",
                   "pyqtgraph.exporters.SVGExporter", "PySide6.QtSvg"):  # fmt: skip
        assert module in hidden


def test_qt_modules_pyqtgraph_loads_by_name_are_hidden_imports(spec_inputs: ModuleType) -> None:
    """pyqtgraph imports some Qt modules with importlib.import_module(f"{QT_LIB}.X") at import time."""
    spec = importlib.util.find_spec("pyqtgraph")
    if spec is None or spec.origin is None:
        pytest.skip("pyqtgraph not installed")
    root = Path(spec.origin).parent
    hidden = set(spec_inputs.hiddenimports())
    excluded = set(spec_inputs.EXCLUDES)
    found = set()
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).parts
        if rel[0] in {"examples", "opengl", "jupyter"}:  # excluded from the bundle
            continue
        found |= set(re.findall(r"""import_module\(\s*f["']\{QT_LIB\}\.(Qt\w+)["']""", path.read_text(encoding="utf-8")))
    assert found, "pattern not found: has pyqtgraph changed how it loads Qt modules?"
    for name in found:
        assert f"PySide6.{name}" in hidden and f"PySide6.{name}" not in excluded, f"PySide6.{name}"


def test_no_module_the_app_imports_is_excluded(spec_inputs: ModuleType) -> None:
    excluded = set(spec_inputs.EXCLUDES)
    used = set().union(*(_imports(t, lazy=True) | _imports(t, lazy=False) for t in _source_trees()))
    for module in used:
        parts = module.split(".")
        for i in range(1, len(parts) + 1):
            assert ".".join(parts[:i]) not in excluded, f"the app imports {module}, but the spec excludes it"
    assert not set(spec_inputs.hiddenimports()) & excluded


# ---------------------------------------------------------------------------------------- Qt trimming


def test_binary_filter_keeps_what_the_app_needs(spec_inputs: ModuleType) -> None:
    keep = spec_inputs.keep_binary
    for dest in ("PySide6/Qt/plugins/platforms/libqxcb.so", "PySide6/Qt/plugins/platforms/libqoffscreen.so",
                 "PySide6/Qt/plugins/platforms/libqwayland.so", "PySide6/Qt/plugins/imageformats/libqsvg.so",
                 "PySide6/Qt/plugins/iconengines/libqsvgicon.so", "PySide6/Qt/lib/libQt6Svg.so.6",
                 "PySide6/Qt/lib/libQt6XcbQpa.so.6", "PySide6\\plugins\\platforms\\qwindows.dll",
                 "PySide6/Qt/plugins/platforms/libqcocoa.dylib"):  # fmt: skip
        assert keep(dest), dest
    for dest in ("PySide6/Qt/plugins/platforms/libqeglfs.so", "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
                 "PySide6/Qt/plugins/sqldrivers/libqsqlite.so", "PySide6/Qt/lib/libQt6Quick.so.6",
                 "PySide6/Qt/lib/libQt6EglFSDeviceIntegration.so.6", "libQt6Qml.so.6"):  # fmt: skip
        assert not keep(dest), dest
    # a SYMLINK to a dropped library goes too, so nothing dangles
    assert not spec_inputs.keep_entry(("libQt6Quick.so.6", "PySide6/Qt/lib/libQt6Quick.so.6", "SYMLINK"))
    assert spec_inputs.keep_entry(("libQt6Core.so.6", "PySide6/Qt/lib/libQt6Core.so.6", "SYMLINK"))


def test_qt_translations_ship_only_if_the_app_loads_them(spec_inputs: ModuleType) -> None:
    uses_translator = any("QTranslator" in p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py"))
    assert spec_inputs.KEEP_QT_TRANSLATIONS == uses_translator, (
        "the app installs a QTranslator: set KEEP_QT_TRANSLATIONS = True in packaging/spec_inputs.py"
        if uses_translator
        else "no QTranslator in the app: Qt's translations would be dead weight"
    )
    # Qt's own translations: only for the languages the app ships (resources/translations/tuneplan_*.qm)
    languages = sorted(p.stem.removeprefix("tuneplan_") for p in (ROOT / "resources" / "translations").glob("*.qm"))
    assert spec_inputs.APP_LANGUAGES == languages
    for lang in languages:
        assert spec_inputs.keep_data(f"PySide6/Qt/translations/qtbase_{lang}.qm") == uses_translator
        assert spec_inputs.keep_data(f"resources/translations/tuneplan_{lang}.qm")
    if "de" not in languages:
        assert not spec_inputs.keep_data("PySide6/Qt/translations/qtbase_de.qm")
    assert spec_inputs.keep_data("tuneplan/catalog/data/gpus.csv")


def test_prune_keeps_needed_libraries_and_drops_orphans(spec_inputs: ModuleType) -> None:
    toc = [
        ("PySide6/QtCore.abi3.so", "/x/QtCore.abi3.so", "EXTENSION"),
        ("PySide6/Qt/lib/libQt6Core.so.6", "/x/libQt6Core.so.6", "BINARY"),
        ("PySide6/Qt/lib/libQt6Network.so.6", "/x/libQt6Network.so.6", "BINARY"),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", "/x/libqxcb.so", "BINARY"),
        ("libxcb-cursor.so.0", "/sys/libxcb-cursor.so.0", "BINARY"),
        ("libatk-1.0.so.0", "/sys/libatk-1.0.so.0", "BINARY"),
        ("libpython3.11.so.1.0", "/py/libpython3.11.so.1.0", "BINARY"),
    ]
    needed = {
        "/x/QtCore.abi3.so": ["libQt6Core.so.6"],
        "/x/libqxcb.so": ["libQt6Core.so.6", "libxcb-cursor.so.0"],
    }
    kept, dropped = spec_inputs.prune_unreferenced_libs(toc, needed=lambda src: needed.get(src, []))
    assert dropped == ["PySide6/Qt/lib/libQt6Network.so.6", "libatk-1.0.so.0"]
    assert {d for d, _, _ in kept} == {d for d, _, _ in toc} - set(dropped)
    datas = [("libQt6Network.so.6", "PySide6/Qt/lib/libQt6Network.so.6", "SYMLINK"),
             ("libQt6Core.so.6", "PySide6/Qt/lib/libQt6Core.so.6", "SYMLINK")]  # fmt: skip
    assert spec_inputs.drop_dangling_symlinks(datas, dropped) == datas[1:]


def test_macos_deployment_target_is_read_from_otool(spec_inputs: ModuleType) -> None:
    otool = (
        "Load command 9\n      cmd LC_BUILD_VERSION\n  cmdsize 32\n platform 1\n    minos 13.0\n      sdk 14.2\n"
        "Load command 10\n      cmd LC_BUILD_VERSION\n  cmdsize 32\n platform 1\n    minos 11.5\n      sdk 14.2\n"
    )
    assert spec_inputs.parse_minos(otool) == "13.0"
    assert spec_inputs.parse_minos("no load commands") is None
    if sys.platform != "darwin":
        assert spec_inputs.macos_min_version("13.0") == "13.0"


def test_spec_is_valid_python() -> None:
    compile((PACKAGING / "tuneplan.spec").read_text(encoding="utf-8"), "tuneplan.spec", "exec")


# ------------------------------------------------------------------------------------------- metadata


def test_installer_version_is_the_app_version(metadata: ModuleType) -> None:
    import tuneplan

    assert metadata.version() == tuneplan.__version__
    assert all(isinstance(n, int) for n in metadata.windows_version_tuple())
    assert len(metadata.windows_version_tuple()) == 4


def test_metadata_is_filled_in(metadata: ModuleType) -> None:
    assert re.fullmatch(r"[a-z][a-z0-9-]*(\.[A-Za-z][A-Za-z0-9-]*){2,}", metadata.APP_ID)
    assert metadata.PACKAGE_NAME == "tuneplan"
    assert re.fullmatch(r"\{[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\}", metadata.WINDOWS_APP_GUID)
    assert "<" in metadata.MAINTAINER and metadata.MAINTAINER.endswith(">")
    assert metadata.HOMEPAGE.startswith("https://")
    assert not metadata.SUMMARY.endswith(".") and len(metadata.SUMMARY) < 80
    assert metadata.ICON_SVG.is_file()


def _desktop_entry() -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # type: ignore[assignment,method-assign] (keys are case-sensitive)
    parser.read(ROOT / "resources" / "tuneplan.desktop", encoding="utf-8")
    return dict(parser["Desktop Entry"])


def test_desktop_file_has_required_keys(metadata: ModuleType) -> None:
    entry = _desktop_entry()
    assert entry["Type"] == "Application"
    assert entry["Name"] == metadata.APP_NAME
    assert entry["Comment"] == metadata.SUMMARY
    assert entry["Exec"].split()[0] == metadata.PACKAGE_NAME
    assert entry["Icon"] == metadata.PACKAGE_NAME
    assert entry["Terminal"] == "false"
    categories = [c for c in entry["Categories"].split(";") if c]
    assert categories == list(metadata.CATEGORIES)
    assert (ROOT / "resources" / "icons" / f"{entry['Icon']}.svg").is_file()


@pytest.mark.skipif(shutil.which("desktop-file-validate") is None, reason="desktop-file-utils not installed")
def test_desktop_file_validates() -> None:
    proc = subprocess.run(
        ["desktop-file-validate", str(ROOT / "resources" / "tuneplan.desktop")], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "error" not in proc.stdout.lower()


# ------------------------------------------------------------------------------------ scripts and CI


@pytest.mark.parametrize("script", ["build.py", "smoke_test.py", "make_icons.py"])
def test_packaging_scripts_answer_help(script: str) -> None:
    proc = subprocess.run(
        [sys.executable, str(PACKAGING / script), "--help"], capture_output=True, text=True, timeout=60, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    assert "usage:" in proc.stdout
    if script == "build.py":
        for target in ("linux", "windows", "macos"):
            assert target in proc.stdout


def test_release_workflow_builds_and_tests_three_oses() -> None:
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8")
    for os_name in ("ubuntu-", "windows-", "macos-"):
        assert re.search(rf"os:\s*{os_name}", text), f"no {os_name} runner in the release matrix"
    for target in ("linux", "windows", "macos"):
        assert re.search(rf"target:\s*{target}\b", text)
    assert re.search(r"python-version:\s*[\"']?3\.11[\"']?", text)
    assert "python packaging/build.py ${{ matrix.target }}" in text
    assert "actions/upload-artifact" in text


def test_inno_script_gets_every_define_from_build_py() -> None:
    iss = (PACKAGING / "windows" / "tuneplan.iss").read_text(encoding="utf-8")
    build = (PACKAGING / "build.py").read_text(encoding="utf-8")
    used = set(re.findall(r"\{#(\w+)", iss)) - {"StringChange"}
    for name in used:
        assert f'"{name}":' in build, f"tuneplan.iss uses {{#{name}}}, which build.py does not define"
    assert "recursesubdirs" in iss and "{autoprograms}" in iss  # the bundle and a Start-menu entry


def test_dmg_settings_define_the_drag_to_applications_layout() -> None:
    namespace: dict[str, object] = {"defines": {"app": "dist/Tuneplan.app", "icon": "build/icons/tuneplan.icns"}}
    exec(compile((PACKAGING / "macos" / "dmg_settings.py").read_text(encoding="utf-8"), "dmg_settings.py", "exec"), namespace)  # noqa: S102
    assert namespace["files"] == ["dist/Tuneplan.app"]
    assert namespace["symlinks"] == {"Applications": "/Applications"}
    assert set(namespace["icon_locations"]) == {"Tuneplan.app", "Applications"}  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------- real build


@pytest.mark.packaging_build
@pytest.mark.skipif(os.environ.get("TUNEPLAN_PACKAGING_BUILD") != "1", reason="set TUNEPLAN_PACKAGING_BUILD=1 (minutes)")
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux installers build on Linux")
def test_real_linux_build(metadata: ModuleType) -> None:
    proc = subprocess.run([sys.executable, str(PACKAGING / "build.py"), "linux"], cwd=ROOT, timeout=3600)
    assert proc.returncode == 0
    version = metadata.version()
    assert (ROOT / "dist" / f"tuneplan-{version}-linux-x86_64.tar.gz").is_file()
    assert (ROOT / "dist" / f"tuneplan_{version}_amd64.deb").is_file()
