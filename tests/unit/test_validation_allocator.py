"""The ledger's allocator constants against the caching-allocator replay (docs/validation-allocator.md).

``tools/validate/allocator.py`` (``make validate``) replays allocation traces of real training steps through a
model of ``CUDACachingAllocator`` and stores, per case, how far ``max_memory_reserved`` on a roomy card and the
smallest sufficient card lie above the peak allocated memory, as a share of the ledger's transient memory.
These tests hold ``ALLOCATOR_FRAGMENTATION`` and ``DYNAMIC_SHAPE_CACHE`` to those results, without torch.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from tuneplan.core.memory import ALLOCATOR_FRAGMENTATION, DYNAMIC_SHAPE_CACHE

STORED = Path(__file__).resolve().parents[2] / "docs" / "validation" / "allocator.json"


@pytest.fixture(scope="module")
def cases() -> list[dict]:
    return json.loads(STORED.read_text("utf-8"))["cases"]


def _shares(cases: list[dict], key: str, method: str | None, prefix: str, layers: int | None = 4) -> list[float]:
    return [c[key] for c in cases if (method is None or c["method"] == method) and c["sequence"].startswith(prefix)
            and layers in (None, c.get("layers", 4))]


def test_the_replay_allocates_what_the_ledger_counts(cases: list[dict]) -> None:
    # the traces and the ledger describe the same steps: their peak allocated memory agrees within 10%
    for c in cases:
        assert c["peak_allocated"] == pytest.approx(c["ledger_allocated"], rel=0.10), c["sequence"]


def test_the_fragmentation_share_lies_within_what_fixed_shapes_need(cases: list[dict]) -> None:
    needed = _shares(cases, "needed_share", None, "fixed")
    reserved = _shares(cases, "reserved_share", None, "fixed")
    assert min(needed) <= ALLOCATOR_FRAGMENTATION["fixed"] == ALLOCATOR_FRAGMENTATION["packed"] <= max(reserved)


def test_one_fragmentation_share_is_the_typical_need_in_every_mode(cases: list[dict]) -> None:
    # the verdict counts the same share for every sequence mode: the replay's median need over the four-layer
    # cases is within 5 points of it (a median, not a bound: docs/validation-allocator.md lists the outliers)
    needed = _shares(cases, "needed_share", None, "")
    assert ALLOCATOR_FRAGMENTATION["dynamic"] == ALLOCATOR_FRAGMENTATION["fixed"]
    assert abs(statistics.median(needed) - ALLOCATOR_FRAGMENTATION["dynamic"]) <= 0.05


def test_full_fine_tunings_short_length_outliers_do_not_grow_with_depth(cases: list[dict]) -> None:
    # four layers, dynamic padding at 512 tokens: about one vocabulary x hidden block (~1.2 GiB) that cannot be
    # given back, a large share of a small transient; at sixteen layers every case is within 5 points of the ledger's
    shallow = _shares(cases, "needed_share", "full", "dynamic, 12 steps")
    deep = _shares(cases, "needed_share", "full", "", layers=16)
    assert max(shallow) > 0.5 and deep and max(deep) <= ALLOCATOR_FRAGMENTATION["dynamic"] + 0.05


def _cache(cases: list[dict], method: str) -> list[float]:
    """Reserved on a roomy card minus what must fit, with dynamic padding: the cache that is given back."""
    return [c["reserved_share"] - c["needed_share"] for c in cases
            if c["method"] == method and c["sequence"].startswith("dynamic")]


def test_lora_keeps_about_one_transient_set_of_cache_and_full_fine_tuning_little(cases: list[dict]) -> None:
    lora = _cache(cases, "lora")
    assert min(lora) <= DYNAMIC_SHAPE_CACHE["lora"] == DYNAMIC_SHAPE_CACHE["qlora"] <= statistics.median(lora)
    long = [c["reserved_share"] - c["needed_share"] for c in cases if c["sequence"] == "dynamic, 31 steps"
            and c["method"] == "lora"]
    assert long and min(long) > DYNAMIC_SHAPE_CACHE["lora"]  # it keeps growing: 1.0 is not an upper bound
    deep = [c["reserved_share"] - c["needed_share"] for c in cases if c["method"] == "lora" and c.get("layers") == 16
            and c["sequence"].startswith("dynamic")]
    assert deep and min(deep) >= DYNAMIC_SHAPE_CACHE["lora"]  # sixteen layers, every linear layer adapted: as much
    full = _cache(cases, "full")  # four and sixteen layers
    assert DYNAMIC_SHAPE_CACHE["full"] == 0.0 and statistics.median(full) < 0.1 and max(full) < 0.5


def test_the_longest_batch_first_grows_no_cache(cases: list[dict]) -> None:
    first = _shares(cases, "reserved_share", None, "longest first")
    fixed = _shares(cases, "reserved_share", None, "fixed")
    assert max(first) <= max(fixed) + 0.05
