"""The caching-allocator replay (tools/validate/alloc_sim.py) against the allocator's rules, case by case.

Every expected number is worked out by hand from the constants and rules of
``c10/cuda/CUDACachingAllocator.cpp`` quoted in the module docstring: 512-byte rounding, 2 MiB small
segments, 20 MiB large segments below 10 MiB, 2 MiB rounding above, best fit, split rules, merging, and the
release of entirely free segments before an allocation fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools" / "validate"))
from alloc_sim import Allocator, OutOfMemory, min_capacity, replay  # noqa: E402

MIB = 2**20


def test_a_small_request_is_rounded_to_512_bytes_in_a_2_mib_segment() -> None:
    a = Allocator()
    a.malloc(100)
    assert (a.allocated, a.reserved) == (512, 2 * MIB)


def test_a_request_between_1_and_10_mib_gets_a_20_mib_segment_and_is_split() -> None:
    a = Allocator()
    a.malloc(3 * MIB)  # remainder 17 MiB > 1 MiB: split, the request counts 3 MiB
    assert (a.allocated, a.reserved) == (3 * MIB, 20 * MIB)
    a.malloc(5 * MIB)  # served from the 17 MiB remainder, no new segment
    assert (a.allocated, a.reserved) == (8 * MIB, 20 * MIB)


def test_a_large_request_is_rounded_to_2_mib_and_keeps_a_remainder_of_1_mib_or_less() -> None:
    a = Allocator()
    a.malloc(int(19.5 * MIB))  # >= 10 MiB: segment 20 MiB; remainder 0.5 MiB <= 1 MiB is not split off
    assert (a.allocated, a.reserved) == (20 * MIB, 20 * MIB)


def test_best_fit_takes_the_smallest_free_block_that_is_large_enough() -> None:
    a = Allocator()
    big, mid = a.malloc(30 * MIB), a.malloc(22 * MIB)
    a.free(big)
    a.free(mid)
    a.malloc(21 * MIB)  # the 22 MiB block (remainder 1 MiB, not split); the 30 MiB one stays free
    assert (a.allocated, a.reserved) == (22 * MIB, 52 * MIB)


def test_freed_neighbours_merge_back_into_the_whole_segment() -> None:
    a = Allocator()
    x, y = a.malloc(4 * MIB), a.malloc(4 * MIB)  # both in one 20 MiB segment
    a.free(x)
    a.free(y)
    a.malloc(20 * MIB)  # only possible if the 4 + 4 + 12 MiB pieces merged again
    assert (a.allocated, a.reserved) == (20 * MIB, 20 * MIB)


def test_a_longer_batch_cannot_reuse_the_shorter_batchs_cached_block() -> None:
    # 12 MiB then 14 MiB (each >= 10 MiB: its own segment rounded to 2 MiB): the freed 12 MiB block is too small
    events = [("a", 1, 12 * MIB), ("f", 1), ("a", 2, 14 * MIB), ("f", 2)]
    roomy = replay(events)
    assert (roomy.peak_allocated, roomy.peak_reserved) == (14 * MIB, 26 * MIB)
    # on a 20 MiB card the allocator returns the free 12 MiB segment and retries: the run fits in 14 MiB
    tight = replay(events, capacity=20 * MIB)
    assert (tight.peak_reserved, tight.releases) == (14 * MIB, 1)
    assert min_capacity(events, 0, 26 * MIB) == 14 * MIB


def test_a_segment_still_in_use_cannot_be_released() -> None:
    # 4 MiB stays allocated in a 20 MiB segment (16 MiB free behind it); an 18 MiB request needs its own
    # 18 MiB segment: 38 MiB reserved, and the partly used segment cannot be given back on a 37 MiB card
    events = [("a", 1, 4 * MIB), ("a", 2, 18 * MIB)]
    assert replay(events).peak_reserved == 38 * MIB
    with pytest.raises(OutOfMemory):
        replay(events, capacity=37 * MIB)


def test_small_requests_split_their_2_mib_segment_and_never_use_the_large_pool() -> None:
    a = Allocator()
    x = a.malloc(600 * 1024)  # small pool (<= 1 MiB): a 2 MiB segment, split (remainder >= 512 B)
    a.malloc(600 * 1024)  # the 1,448 KiB remainder serves it: still one segment
    assert (a.allocated, a.reserved) == (1200 * 1024, 2 * MIB)
    a.free(x)
    a.malloc(3 * MIB)  # a large request never takes small-pool blocks: its own 20 MiB segment
    assert a.reserved == 22 * MIB


def test_a_block_freed_between_two_free_neighbours_merges_with_both() -> None:
    a = Allocator()
    x, y, z = a.malloc(4 * MIB), a.malloc(4 * MIB), a.malloc(4 * MIB)  # one 20 MiB segment, 8 MiB left behind z
    a.free(x)
    a.free(z)  # z merges with the 8 MiB remainder
    a.free(y)  # y merges with x before it and with z + remainder after it: one 20 MiB block again
    a.malloc(20 * MIB)
    assert (a.allocated, a.reserved) == (20 * MIB, 20 * MIB)
