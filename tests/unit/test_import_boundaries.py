"""The package boundaries (issue #20 point 5): import-linter's contracts in pyproject.toml, run here so
that `make test` (what CI runs) fails when one breaks, with import-linter's own report.

A second run on a copy of the sources with two forbidden imports added proves the contracts can fail.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# import-linter's command line, from this interpreter's environment (where `pip install -e ".[test]"` put it)
LINT_IMPORTS = ("import sys; from importlinter.cli import lint_imports_command; "
                "sys.exit(lint_imports_command())")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """import-linter on ``root``'s sources with ``root``'s pyproject.toml; no cache left behind."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root / "src"), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--config", str(root / "pyproject.toml"), "--no-cache", "--no-logo"],
        cwd=root, env=env, capture_output=True, text=True, timeout=60)


def test_the_import_contracts_are_kept():
    out = lint_imports(ROOT)
    report = out.stdout + out.stderr
    assert out.returncode == 0, f"import-linter found broken contracts (see pyproject.toml):\n{report}"
    assert "0 broken" in report, report


def test_a_qt_import_in_the_core_and_a_feature_importing_another_break_their_contracts(tmp_path):
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    shutil.copytree(ROOT / "src", tmp_path / "src",
                    ignore=lambda folder, names: [n for n in names if n == "__pycache__"
                                                  or (Path(folder, n).is_file() and not n.endswith(".py"))])
    src = tmp_path / "src" / "tuneplan"
    with (src / "core" / "text.py").open("a", encoding="utf-8") as f:
        f.write("\nimport PySide6  # noqa\n")
    with (src / "ui" / "advice_view.py").open("a", encoding="utf-8") as f:
        f.write("\n\ndef _later():\n    from tuneplan.ui import gpu_compare  # noqa\n")
    out = lint_imports(tmp_path)
    report = out.stdout + out.stderr
    assert out.returncode != 0, report
    assert "tuneplan.core.text -> PySide6" in report, report
    assert "tuneplan.ui.advice_view -> tuneplan.ui.gpu_compare" in report, report
    assert re.search(r"Contracts: \d+ kept, 2 broken\.", report), report  # the no-Qt contract and the UI layers


def test_no_translated_string_is_written_inside_an_f_string():
    # lupdate does not look inside f-string replacement fields: f"{self.tr('on')}" was never extracted, so the
    # Chinese UI read "on"/"off" and "not chosen" in Compare scenarios (second new-user trial, issue #21)
    import re
    from pathlib import Path

    inside = re.compile(r"""\bf(["'])(?:(?!\1).)*\{[^}]*\b(?:tr|translate)\(""")
    found = []
    for path in sorted((Path(__file__).resolve().parents[2] / "src" / "tuneplan" / "ui").glob("*.py")):
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if inside.search(line):
                found.append(f"{path.name}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
