"""Extract the UI's strings into the translation sources and compile them (Qt Linguist tools).

    python tools/i18n.py            # extract, then compile (what to run after changing UI strings)
    python tools/i18n.py extract    # pyside6-lupdate: src/tuneplan/ui/*.py -> resources/translations/*.ts
    python tools/i18n.py compile    # pyside6-lrelease: *.ts -> *.qm (the files the app loads)
    python tools/i18n.py check      # list messages without a translation (exit 1 if any)

Strings are found where the code calls ``self.tr(...)``, ``translate(...)`` /
``QCoreApplication.translate(...)`` or ``QT_TRANSLATE_NOOP(...)``. New strings arrive in the
``.ts`` as unfinished: translate them (Qt Linguist: ``pyside6-linguist``, or any editor), then
compile. Commit both the ``.ts`` and the ``.qm``; ``tests/ui/test_i18n.py`` checks that every
message is translated and that the ``.qm`` is newer than the ``.ts``.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "src" / "tuneplan" / "ui"
TRANSLATIONS = ROOT / "resources" / "translations"
#: The languages Tuneplan ships (``tuneplan_<lang>.ts``), besides English, the source language.
LANGUAGES = ("zh_CN",)


def tool(name: str) -> str:
    """Path of a PySide6 tool (``pyside6-lupdate``) next to this Python, else on PATH."""
    here = Path(sys.executable).parent
    for candidate in (here / name, here / f"{name}.exe"):
        if candidate.is_file():
            return str(candidate)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: install PySide6 (pip install -e '.[test]') in this environment")
    return found


def ts_files() -> list[Path]:
    """The translation sources, one per shipped language."""
    return [TRANSLATIONS / f"tuneplan_{lang}.ts" for lang in LANGUAGES]


def extract() -> None:
    """Update every ``.ts`` from the UI sources (new strings unfinished, vanished ones dropped)."""
    TRANSLATIONS.mkdir(parents=True, exist_ok=True)
    sources = sorted(str(p.relative_to(ROOT)) for p in SOURCES.glob("*.py"))
    for ts in ts_files():
        subprocess.run([tool("pyside6-lupdate"), *sources, "-locations", "none", "-no-obsolete",
                        "-target-language", ts.stem.removeprefix("tuneplan_"), "-ts", str(ts.relative_to(ROOT))],
                       check=True, cwd=ROOT)


def compile_all() -> None:
    """Compile every ``.ts`` into the ``.qm`` next to it."""
    for ts in ts_files():
        subprocess.run([tool("pyside6-lrelease"), str(ts), "-qm", str(ts.with_suffix(".qm"))], check=True)


def unfinished(ts: Path) -> list[tuple[str, str]]:
    """``(context, source)`` of every message in ``ts`` without a finished translation."""
    out = []
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name", "")
        for message in context.iter("message"):
            translation = message.find("translation")
            if translation is None or translation.get("type") in {"unfinished", "vanished", "obsolete"} or not (
                translation.text or "").strip():
                out.append((name, message.findtext("source", "")))
    return out


def check() -> int:
    """Print the untranslated messages; 1 when there are any."""
    missing = [(ts.name, ctx, src) for ts in ts_files() for ctx, src in unfinished(ts)]
    for name, ctx, src in missing:
        print(f"{name}: [{ctx}] {src!r}")
    print(f"{len(missing)} untranslated message(s)")
    return 1 if missing else 0


CORE_STRINGS = SOURCES / "core_strings.py"


#: The modules that add notes or formulas to the catalogue (``NOTES.update`` / ``FORMULAS.update``) when imported.
CATALOGUE_MODULES = ("tuneplan.core.advice", "tuneplan.core.calibration", "tuneplan.core.config_export",
                     "tuneplan.core.cost", "tuneplan.core.estimate", "tuneplan.core.generation", "tuneplan.core.lengths",
                     "tuneplan.core.search", "tuneplan.core.stacks", "tuneplan.core.throughput",
                     "tuneplan.core.training_config", "tuneplan.core.training_command", "tuneplan.core.workload",
                     "tuneplan.hw.probe", "tuneplan.storage.dataset_file")


def core_source() -> str:
    """``src/tuneplan/ui/core_strings.py`` as generated from the core catalogue (``FORMULAS`` and ``NOTES``)."""
    import importlib

    from tuneplan.core.terms import CALIBRATION_SUFFIX, FORMULAS, NOTES

    for module in CATALOGUE_MODULES:
        importlib.import_module(module)  # each registers its notes

    lines = ['"""The core catalogue\'s English templates (``tuneplan.core.terms.FORMULAS`` and ``NOTES``) marked for Qt\'s',
             "translation tools, which read only the UI's sources. Generated from the catalogue; ``tests/ui/test_i18n.py`` "
             "fails",
             'when it and the catalogue differ (regenerate with ``python tools/i18n.py core``)."""', "",
             "from __future__ import annotations", "", "from PySide6.QtCore import QT_TRANSLATE_NOOP", "",
             '__all__ = ["CORE_TEMPLATES"]', "", "CORE_TEMPLATES = ("]
    for table in (FORMULAS, NOTES, {"calibration_suffix": CALIBRATION_SUFFIX}):
        for key in sorted(table):
            lines.append(f'    QT_TRANSLATE_NOOP("Terms", {table[key]!r}),  # {key}')
    lines.append(")")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line: ``core``, ``extract``, ``compile``, ``check`` or (default) ``all`` = core + extract + compile."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", nargs="?", default="all", choices=["all", "core", "extract", "compile", "check"])
    step = parser.parse_args(argv).step
    if step in {"all", "core"}:
        CORE_STRINGS.write_text(core_source(), encoding="utf-8")
    if step in {"all", "extract"}:
        extract()
    if step in {"all", "compile"}:
        compile_all()
    if step == "check":
        return check()
    return 0


if __name__ == "__main__":
    sys.exit(main())
