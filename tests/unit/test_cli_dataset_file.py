"""``tuneplan estimate --dataset-file``: counted, printed, and fed into the plan (issue #19).

Three chat rows and one broken line, counted with the one-token-per-word tokenizer of tests/tiny_tokenizer.py
(a message is ``<s>ROLE : CONTENT </s>``, 4 tokens plus its words): 11, 6 and 10 tokens.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tiny_tokenizer import write_jsonl, write_tiny_tokenizer
from tuneplan.__main__ import build_parser, main
from tuneplan.cli import run_estimate

ROWS = [
    {"messages": [{"role": "user", "content": "hello world"}, {"role": "assistant", "content": "hi"}]},  # 6 + 5
    "{broken",
    {"messages": [{"role": "user", "content": "the cat"}]},  # 6
    {"messages": [{"role": "user", "content": "the cat sat on a mat"}]},  # 10
]
# dynamic padding, micro-batch 2: kept 6, 10, 11, mean 9; E[max of a pair] = 11 x 2/3 + 10 x 1/3 = 32/3
MEAN, BATCH_MAX = 9.0, 32 / 3


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_jsonl(tmp_path / "chat.jsonl", ROWS), write_tiny_tokenizer(tmp_path / "model")


def _run(argv: list[str]) -> tuple[int, str]:
    """``tuneplan estimate`` in-process: (exit status, stdout)."""
    out = io.StringIO()
    return run_estimate(build_parser().parse_args(argv), out=out), out.getvalue()


def _plan(data: Path, tok: Path, *extra: str) -> list[str]:
    return ["estimate", "--dataset-file", str(data), "--tokenizer", str(tok), "--sequence-mode", "dynamic",
            "--micro-batch", "2", "--seq-len", "1000", "--epochs", "1", *extra]


def test_json_in_a_subprocess_has_the_counts_and_the_plan_uses_them(files: tuple[Path, Path]) -> None:
    data, tok = files
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    proc = subprocess.run([sys.executable, "-m", "tuneplan", *_plan(data, tok, "--json")], capture_output=True,
                          text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    entry = json.loads(proc.stdout)[0]
    info = entry["dataset_file"]
    assert {k: info["counted"][k] for k in ("rows", "counted", "broken", "total", "field", "chat_template")} == {
        "rows": 3, "counted": 3, "broken": 1, "total": 4, "field": "messages", "chat_template": True}
    stats = info["stats"]
    assert (stats["mean_tokens"], stats["p50_tokens"], stats["max_tokens"]) == (MEAN, 10, 11)
    assert stats["padding_efficiency"] == pytest.approx(MEAN / BATCH_MAX)
    assert info["set"] == {"dataset.examples": 3, "dataset.tokens_per_example": 9.0, "dataset.total_tokens": None,
                           "dataset.padding_efficiency": round(MEAN / BATCH_MAX, 4),
                           "dataset.rank_padding_efficiency": round(MEAN / BATCH_MAX, 4),  # one GPU
                           # 6, 10 and 11 tokens about 9: sqrt((3² + 1² + 2²) / 3)
                           "dataset.tokens_std": round((14 / 3) ** 0.5, 2), "dataset.longest_tokens": 11,
                           # dynamic padding shortens seq_len to 11: the fill of packed rows is left unknown
                           "dataset.packing_efficiency": 1.0, "training.seq_len": 11}
    assert sum(b["count"] for b in info["histogram"]) == 3
    # 3 examples, each row padded to the expected longest of its pair: 3 x 32/3 = 32 tokens computed in one epoch
    assert entry["time"]["tokens_total"] == pytest.approx(3 * BATCH_MAX, rel=1e-3)


def test_text_output_says_what_was_counted_before_the_estimate(files: tuple[Path, Path]) -> None:
    data, tok = files
    code, out = _run(_plan(data, tok))
    assert code == 0
    head = out.split("\n\n", 1)[0].splitlines()
    assert head[0].startswith("Dataset file chat.jsonl (JSONL, messages; tokenizer ") and "chat template" in head[0]
    assert head[1] == "  rows 3, counted 3, broken 1"
    assert head[2] == "  tokens per example: mean 9.0, p50 10, p95 11, max 11; truncated at 1,000: 0.0%"
    assert head[3].startswith("  padding waste (dynamic, micro-batch 2): 15.6%;")  # 1 - 9 / (32/3) = 0.15625
    assert any("1 of 4 rows could not be used" in line and "line 2" in line for line in head)
    assert "micro-batch 2 x 11 tokens (dynamic)" in out  # the longest batch became the sequence length


def test_flags_win_over_the_file(files: tuple[Path, Path]) -> None:
    data, tok = files
    code, out = _run(_plan(data, tok, "--tokens-per-example", "100", "--json"))
    assert code == 0
    info = json.loads(out)[0]["dataset_file"]
    assert info["kept_by_flags"] == ["dataset.tokens_per_example"]
    assert "dataset.tokens_per_example" not in info["set"] and info["set"]["dataset.examples"] == 3


def test_a_missing_tokenizer_and_a_binary_file_are_one_error_line(files: tuple[Path, Path], tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data, tok = files
    assert main(_plan(data, tmp_path / "nothing-here")) == 2
    err = capsys.readouterr().err
    assert err.startswith("tuneplan: error: --tokenizer: no tokenizer.json for ") and err.count("\n") == 1
    blob = tmp_path / "blob.jsonl"
    blob.write_bytes(b"\x00\x01\x02" * 100)
    assert main(_plan(blob, tok)) == 2
    assert capsys.readouterr().err == ("tuneplan: error: --dataset-file blob.jsonl: not a text file (JSONL, JSON, "
                                       "CSV or TSV in UTF-8)\n")


def test_two_gpus_wait_for_the_longest_of_both_micro_batches(files: tuple[Path, Path]) -> None:
    # 2 FSDP GPUs at micro-batch 2 draw 4 examples per step; the file has 3 (kept 6, 10, 11), so the longest of
    # the step is the longest of all: 11 tokens, and the slowest GPU's padding efficiency is 9 / 11
    data, tok = files
    code, out = _run(_plan(data, tok, "--gpus", "2", "--sharding", "fsdp", "--json"))
    assert code == 0
    entry = json.loads(out)[0]
    assert entry["dataset_file"]["set"]["dataset.rank_padding_efficiency"] == round(9 / 11, 4)
    assert entry["dataset_file"]["set"]["dataset.padding_efficiency"] == round(MEAN / BATCH_MAX, 4)
    assert "time.slowest_rank" in json.dumps(entry["time"])
    # the flag wins over the file
    code, out = _run(_plan(data, tok, "--gpus", "2", "--sharding", "fsdp", "--rank-padding-efficiency", "1",
                           "--json"))
    entry = json.loads(out)[0]
    assert "dataset.rank_padding_efficiency" in entry["dataset_file"]["kept_by_flags"]
    assert "time.slowest_rank" not in json.dumps(entry["time"])
