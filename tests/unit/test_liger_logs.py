"""``tools/evidence/liger_logs.py``: the padded rows it derives from the Liger-Kernel run logs, by hand.

The evidence rows ``lg.csv`` and the chart rows fw-15..27 take their padded rows from this tool, so its law of the
longest of B examples (Gumbel 1958: scale ``beta = sigma sqrt(6) / pi``, ``E[max of n]`` grows by ``beta ln n``) is
checked here on numbers worked out below.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("liger_logs", ROOT / "tools" / "evidence" / "liger_logs.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


LOG = """\
{'loss': 1.9, 'grad_norm': 3.0, 'learning_rate': 1e-05, 'epoch': 0.0, 'num_input_tokens_seen': 0}
{'loss': 1.8, 'grad_norm': 2.0, 'learning_rate': 1e-05, 'epoch': 0.0, 'num_input_tokens_seen': 800, 'step_time_sec': 2.0}
{'loss': nan, 'num_input_tokens_seen': 1}
{'loss': 1.7, 'grad_norm': 2.0, 'learning_rate': 1e-05, 'epoch': 0.0, 'num_input_tokens_seen': 1760, 'step_time_sec': 2.0}
{'loss': 1.6, 'grad_norm': 2.0, 'learning_rate': 1e-05, 'epoch': 0.0, 'num_input_tokens_seen': 2640, 'step_time_sec': 4.0}
"""


def test_steps_are_token_increments_between_logged_lines(tool):
    # the nan line is skipped (not a Python literal), so the increments are 800, 960, 880
    assert tool._steps(LOG) == [(800, 2.0), (960, 2.0), (880, 4.0)]


def test_rows_mean_and_gumbel_scale(tool):
    # batch 2 on 4 GPUs: rows = increment / 8 = 100, 120, 110, 130 -> mean 115;
    # stdev of the step means = sqrt((15^2 + 5^2 + 5^2 + 15^2) / 3) = sqrt(500 / 3) = 12.910;
    # per-GPU sigma = 2 x 12.910 (a step's row is the mean of 4 GPUs' rows); beta = sigma sqrt(6) / pi = 20.13
    steps = [(800, 1.0), (960, 1.0), (880, 1.0), (1040, 1.0)]
    mean, beta = tool._rows(steps, 2)
    assert mean == pytest.approx(115.0)
    assert beta == pytest.approx(2 * math.sqrt(500 / 3) * math.sqrt(6) / math.pi, rel=1e-9)
    assert beta == pytest.approx(20.13, abs=0.01)


def test_carry_grows_the_row_by_beta_ln_batch_ratio(tool):
    # 300 tokens at B32 with beta 50 -> at B64: 300 + 50 ln 2 = 334.66; slowest of 4: + 50 ln 4 = 403.97
    row, slowest = tool.carry(300.0, 50.0, 32, 64)
    assert row == pytest.approx(334.66, abs=0.01)
    assert slowest == pytest.approx(403.97, abs=0.01)
    # at its own batch the row is unchanged and only the slowest-of-4 term remains: 300 + 69.31
    assert tool.carry(300.0, 50.0, 32, 32) == pytest.approx((300.0, 369.31), abs=0.01)


def test_carry_caps_at_the_sequence_length(tool):
    # rows cannot exceed max_seq_length 512 (TRL truncates): 490 + 50 ln 2 = 524.7 -> 512
    assert tool.carry(490.0, 50.0, 32, 64) == (512, 512)
