"""Issue #22: what the CLI prints cannot drive the terminal, an ASCII-only terminal gets no traceback, and
``python -m tuneplan`` does not import modules lying in the current folder. Real subprocesses throughout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tuneplan.catalog import default_scenario
from tuneplan.core.text import json_terminal_safe, terminal_safe
from tuneplan.storage.library import ScenarioLibrary

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "evil\x1b[2J\x1b]0;owned\x07\nforged line\x00\u202eright-to-left\x9bend"


def tuneplan(*args: str, cwd: Path = ROOT, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tuneplan", *args], capture_output=True, text=True, timeout=60,
                          cwd=cwd, env={**os.environ, "QT_QPA_PLATFORM": "offscreen", **env}, encoding="utf-8",
                          errors="surrogateescape")


def no_controls(text: str) -> None:
    """No escape, NUL, BEL, C1 or bidi character in ``text`` (newlines only as line ends)."""
    for ch in "\x1b\x00\x07\x9b\u202e":
        assert ch not in text, repr(text)


@pytest.fixture
def hostile_library(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TUNEPLAN_DATA_DIR", str(tmp_path / "data"))
    lib = ScenarioLibrary()
    for name in (HOSTILE, "微调计划 café"):
        s = default_scenario()
        s.name = name
        lib.save(s)
    return lib.scenarios_dir


def test_scenarios_list_prints_names_escaped_and_keeps_unicode(hostile_library: Path) -> None:
    proc = tuneplan("scenarios", "list")
    assert proc.returncode == 0, proc.stderr
    no_controls(proc.stdout)
    lines = proc.stdout.splitlines()
    assert len(lines) == 3  # header + one line per plan: the name's newline forged no line
    assert any("微调计划 café" in line for line in lines)
    evil = next(line for line in lines if line.startswith("evil"))
    assert evil.startswith(r"evil\x1b[2J\x1b]0;owned\x07\nforged line\x00\u202eright-to-left\x9bend"[:48])


def test_scenarios_list_json_escapes_controls_and_decodes_to_the_names(hostile_library: Path) -> None:
    proc = tuneplan("scenarios", "list", "--json")
    assert proc.returncode == 0, proc.stderr
    no_controls(proc.stdout)
    assert "微调计划 café" in proc.stdout  # non-ASCII kept as is
    assert sorted(r["name"] for r in json.loads(proc.stdout)) == sorted([HOSTILE, "微调计划 café"])


def test_scenarios_show_and_import_print_escaped(hostile_library: Path, tmp_path: Path) -> None:
    path = next(p for p in hostile_library.glob("*.json") if "evil" in p.name or "forged" in p.read_text("utf-8"))
    proc = tuneplan("scenarios", "show", str(path))
    assert proc.returncode == 0, proc.stderr
    no_controls(proc.stdout)
    assert r"evil\u001b[2J" in proc.stdout and "\\u009bend" in proc.stdout  # JSON escapes, same value
    proc = tuneplan("scenarios", "import", str(path))
    assert proc.returncode == 0, proc.stderr
    no_controls(proc.stdout)


def test_estimate_prints_a_hostile_gpu_name_escaped(tmp_path: Path) -> None:
    from tuneplan.storage.files import write_scenario_file

    s = default_scenario()
    s.gpu = s.gpu.model_copy(update={"name": "RTX\x1b[31m 4090\nwarning: forged"})
    write_scenario_file(tmp_path / "plan.json", s)
    proc = tuneplan("estimate", "--scenario", str(tmp_path / "plan.json"))
    assert proc.returncode == 0, proc.stderr
    no_controls(proc.stdout)
    assert r"RTX\x1b[31m 4090\nwarning: forged x1" in proc.stdout.splitlines()[0]


def test_terminal_safe_escapes_controls_only() -> None:
    assert terminal_safe("a\x1b[0m\n\t\x00\x7f\x85\u202e\u2028\ud800b") == r"a\x1b[0m\n\t\x00\x7f\x85\u202e\u2028\ud800b"
    assert terminal_safe("微调 café 🙂 e\u0301") == "微调 café 🙂 e\u0301"
    doc = json.dumps({"n": "a\x1b\x9b\u202e微\x7f"}, ensure_ascii=False, indent=2)
    assert json_terminal_safe(doc) == '{\n  "n": "a\\u001b\\u009b\\u202e微\\u007f"\n}'


@pytest.mark.parametrize("env", [{"PYTHONIOENCODING": "ascii"}, {"LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"}])
def test_text_output_on_an_ascii_terminal_does_not_crash(env: dict[str, str]) -> None:
    proc = tuneplan("estimate", **env)  # the first line has "·": was UnicodeEncodeError
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout.splitlines()[0].startswith(r"Llama 3.1 8B \xb7 QLoRA \xb7 ")


def test_python_m_tuneplan_does_not_import_a_module_from_the_current_folder(tmp_path: Path) -> None:
    for module in ("pynvml", "pydantic"):  # NVML's binding (lazy) and a dependency every command imports
        (tmp_path / f"{module}.py").write_text(
            f"import pathlib\npathlib.Path({str(tmp_path / ('MARKER-' + module))!r}).write_text('imported')\n", "utf-8")
    proc = tuneplan("gpus", cwd=tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in (0, 1), proc.stderr
    assert not list(tmp_path.glob("MARKER-*"))


def test_make_run_starts_python_without_the_current_folder_on_sys_path() -> None:
    text = (ROOT / "Makefile").read_text("utf-8")
    run = text[text.index("\nrun:"):].split("\n\n")[0]
    assert "$(PY) -P -m tuneplan" in run
