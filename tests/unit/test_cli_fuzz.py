"""Issue #22: property-based fuzzing of the CLI and of scenario files with hypothesis.

Whatever the arguments or the file holds, the CLI answers with exit status 0, 1 or 2 and at most a one-line
error: no traceback, no exception other than argparse's SystemExit, no hang. The bulk runs in process
(``tuneplan.__main__.main`` with stderr captured); a few examples run the real CLI in a subprocess. Every test is
bounded by ``max_examples`` (about 20 s for the module on two cores).
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tuneplan.__main__ import main
from tuneplan.catalog import default_scenario
from tuneplan.core.estimate import estimate
from tuneplan.storage.files import ScenarioFileError, dumps_scenario, read_scenario_file

ROOT = Path(__file__).resolve().parents[2]
FUZZ = settings(deadline=None, derandomize=True, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                         HealthCheck.too_slow])
#: The slowest one in-process command may take (the real ones take milliseconds): a longer one counts as a hang.
HANG_S = 20.0

NUMERIC_FLAGS = [
    "--lora-rank", "--lora-alpha", "--lora-dropout", "--micro-batch", "--seq-len", "--grad-accumulation", "--gpus",
    "--mfu", "--pilot-step-seconds", "--pilot-tokens-per-second", "--gpu-memory-gib", "--dataset-examples",
    "--tokens-per-example", "--total-tokens", "--epochs", "--padding-efficiency", "--price-per-hour", "--storage-gb",
    "--storage-usd-per-gb-month", "--egress-gb", "--egress-usd-per-gb", "--other-usd", "--setup-minutes",
    "--eval-minutes", "--interruptions-per-hour", "--checkpoint-every-min", "--failure-probability",
    "--download-gbps", "--electricity-usd-per-kwh", "--monthly-price-usd",
]
CHOICE_FLAGS = {
    "--method": ["full", "lora", "qlora"], "--precision": ["bf16", "fp16", "fp32"],
    "--optimizer": ["adamw", "adamw-8bit", "paged-adamw-8bit", "sgd", "adafactor"],
    "--sharding": ["none", "ddp", "zero1", "zero2", "zero3", "fsdp"], "--sequence-mode": ["fixed", "packed", "dynamic"],
    "--attention": ["flash", "sdpa", "eager"], "--framework": ["optimized", "hf"], "--billing": ["second", "hour"],
    "--grad-sync": ["step", "micro-batch"], "--fsdp-wrap": ["layers", "separate-embeddings", "blocks-with-adapters"],
    "--model": ["llama-3.1-8b", "mixtral-8x7b", "qwen3-30b-a3b", "smollm2-135m", "no-such-model"],
    "--gpu": ["RTX 4090", "H100", "T4", "A100 80GB", "no such gpu"],
}
SWITCHES = ["--optimizer-in-backward", "--trainable-embeddings", "--no-double-quant", "--kbit-fp32-upcast",
            "--grad-checkpointing", "--no-grad-checkpointing", "--fused-cross-entropy", "--activation-offload",
            "--torch-compile", "--cpu-offload", "--json", "--use-saved-calibration"]

EXTREMES = ["5e-324", "1e-300", "1e300", "-1", "0", "-0.0", "0.5", "1", "nan", "inf", "-inf", "1e6", "9" * 5000,
            "4096", "100000", "1_000", "0x10", "", " ", "1e-9"]
#: Text as a shell could pass it (no NUL, no lone surrogates), control characters included.
ARG_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=30)
NUMBER_TEXT = st.one_of(
    st.sampled_from(EXTREMES),
    st.floats(min_value=0, max_value=1).map(repr),  # in range for most flags: these reach the estimate
    st.floats(min_value=0, max_value=1e6).map(repr),
    st.integers(min_value=0, max_value=10**6).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    ARG_TEXT,
)
NUMBER_PAIR = st.tuples(st.sampled_from(NUMERIC_FLAGS), NUMBER_TEXT)
CHOICE_PAIR = st.sampled_from(sorted(CHOICE_FLAGS)).flatmap(
    lambda f: st.tuples(st.just(f), st.sampled_from(CHOICE_FLAGS[f])))
SWITCH = st.sampled_from(SWITCHES).map(lambda s: (s,))
#: Mostly flags with values (so most examples get past argparse into the estimate), now and then a stray word.
FLAG_PAIR = st.one_of(NUMBER_PAIR, NUMBER_PAIR, NUMBER_PAIR, CHOICE_PAIR, CHOICE_PAIR, SWITCH, st.tuples(ARG_TEXT))


def _argv(command: str, pairs: list[tuple[str, ...]]) -> list[str]:
    return [command, *(part for pair in pairs for part in pair)]


def run_in_process(argv: list[str]) -> tuple[int, str]:
    """``main(argv)`` with stdout/stderr captured: (exit status, stderr). Any exception but SystemExit fails."""
    err = io.StringIO()
    start = time.monotonic()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        try:
            code: Any = main(argv)
        except SystemExit as exc:  # argparse: --help (0) or a usage error (2)
            code = exc.code
    assert time.monotonic() - start < HANG_S, argv
    return (code if isinstance(code, int) else 1), err.getvalue()


def check_answer(code: int, stderr: str, argv: list[str]) -> None:
    assert code in (0, 1, 2), (code, argv, stderr)
    assert "Traceback" not in stderr, stderr
    if code == 2 and "usage:" not in stderr:
        assert stderr.startswith("tuneplan: error: ") and stderr.count("\n") == 1, stderr


@settings(FUZZ, max_examples=200)
@given(st.lists(FLAG_PAIR, max_size=6))
def test_estimate_arguments_never_crash(pairs: list[tuple[str, ...]]) -> None:
    argv = _argv("estimate", pairs)
    check_answer(*run_in_process(argv), argv)


@settings(FUZZ, max_examples=25)
@given(st.lists(st.one_of(NUMBER_PAIR, CHOICE_PAIR, SWITCH), max_size=4))
def test_compare_gpus_arguments_never_crash(pairs: list[tuple[str, ...]]) -> None:
    argv = _argv("compare-gpus", pairs)
    check_answer(*run_in_process(argv), argv)


@settings(FUZZ, max_examples=5)
@given(st.lists(st.tuples(st.sampled_from(NUMERIC_FLAGS), NUMBER_TEXT), min_size=1, max_size=3))
def test_the_real_cli_never_prints_a_traceback(pairs: list[tuple[str, ...]]) -> None:
    argv = _argv("estimate", pairs)
    proc = subprocess.run([sys.executable, "-m", "tuneplan", *argv], capture_output=True, text=True, timeout=60,
                          cwd=ROOT, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, errors="replace")
    check_answer(proc.returncode, proc.stderr, argv)


# --- scenario files ------------------------------------------------------------------------------------------------

_BASE = json.loads(dumps_scenario(default_scenario()))
_LEAVES = [(section, key) for section, body in _BASE["scenario"].items() if isinstance(body, dict) for key in body]
_LEAVES += [(None, key) for key, value in _BASE["scenario"].items() if not isinstance(value, dict)]

JSON_NUMBER = st.one_of(
    st.sampled_from([5e-324, 1e-300, 1e300, 10**300, -1, 0, 0.5, 1, 2**63, 1e-9, 4096, 10**15]),
    st.floats(allow_nan=False, allow_infinity=False), st.integers(min_value=-(10**40), max_value=10**40),
)
JSON_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), JSON_NUMBER, st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=8,
)


def _answer_file(text: str) -> None:
    """Read ``text`` as a scenario file and estimate it, as ``estimate --scenario`` does: a plan it reads must be
    computable (or refused with ValueError, the one-line error); a file it refuses says why in one line."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "plan.json"
        path.write_text(text, "utf-8", errors="surrogatepass")
        try:
            scenario = read_scenario_file(path)
        except ScenarioFileError as exc:
            assert "\n" not in str(exc) and str(exc), str(exc)
            return
        with contextlib.suppress(ValueError):  # e.g. a GPU without tensor throughput: exit 2, one line
            estimate(scenario)
        argv = ["estimate", "--scenario", str(path)]
        check_answer(*run_in_process(argv), argv)


FLOAT_VALUE = st.one_of(st.sampled_from([5e-324, 1e-300, 1e300, -1.0, 0.0, 0.5, 1e-9, 1e15, 0.001, 0.1]),
                        st.floats(min_value=0, max_value=1), st.floats(min_value=0, max_value=1e7),
                        st.floats(allow_nan=False, allow_infinity=False))
INT_VALUE = st.one_of(st.sampled_from([10**300, 2**63, -1, 0, 1, 4096, 10**15]),
                      st.integers(min_value=0, max_value=10**6), st.integers(min_value=-(10**40), max_value=10**40))


def _value_like(original: Any) -> st.SearchStrategy[Any]:
    """Values of the field's own JSON type (so the file often validates and reaches the estimate), or anything."""
    if isinstance(original, bool):
        own: st.SearchStrategy[Any] = st.booleans()
    elif isinstance(original, int):
        own = INT_VALUE
    elif isinstance(original, float) or original is None:
        own = st.one_of(FLOAT_VALUE, INT_VALUE)
    else:
        own = st.text(max_size=30)
    return st.one_of(own, own, own, JSON_VALUE)


def _section(name: str | None) -> dict[str, Any]:
    return _BASE["scenario"][name] if name else _BASE["scenario"]


CHANGE = st.sampled_from(_LEAVES).flatmap(
    lambda leaf: st.tuples(st.just(leaf), _value_like(_section(leaf[0])[leaf[1]])))


@settings(FUZZ, max_examples=200)
@given(st.lists(CHANGE, min_size=1, max_size=4))
def test_scenario_files_with_random_field_values_never_crash(changes: list[tuple[tuple[str | None, str], Any]]) -> None:
    doc = copy.deepcopy(_BASE)
    for (section, key), value in changes:
        (doc["scenario"][section] if section else doc["scenario"])[key] = value
    _answer_file(json.dumps(doc))


@settings(FUZZ, max_examples=60)
@given(st.one_of(JSON_VALUE.map(json.dumps),
                 st.dictionaries(st.sampled_from(["format", "schema_version", "scenario", "scenarios", "x"]),
                                 JSON_VALUE).map(json.dumps),
                 st.text(max_size=200)))
def test_random_json_documents_as_scenario_files_never_crash(text: str) -> None:
    _answer_file(text)
