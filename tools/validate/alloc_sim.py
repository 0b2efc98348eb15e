"""A replay model of PyTorch's CUDA caching allocator (native segments, default settings).

Replays an allocation trace (``("a", key, bytes)`` / ``("f", key)`` events, see :mod:`alloc_trace`) through
the block policy of ``c10/cuda/CUDACachingAllocator.cpp`` and reports the three numbers ``torch.cuda``
would: peak allocated, peak reserved, and whether the run fits a given capacity. Pure Python, no torch.

The policy, with the constants of that file (PyTorch 2.x, unchanged from 1.x to 2.13):

* every request is rounded up to a multiple of ``kMinBlockSize`` = 512 B (``round_size``);
* requests up to ``kSmallSize`` = 1 MiB come from the small pool, whose segments are ``kSmallBuffer`` =
  2 MiB; larger ones from the large pool, whose segments are ``kLargeBuffer`` = 20 MiB for requests under
  ``kMinLargeAlloc`` = 10 MiB and the request rounded up to ``kRoundLarge`` = 2 MiB otherwise
  (``get_allocation_size``);
* a request takes the smallest cached free block of its pool that is large enough (best fit,
  ``get_free_block``: ``pool.blocks.lower_bound`` on (size, address));
* the rest of the block is split off as a new free block when at least 512 B remain (small pool) or more
  than 1 MiB remain (large pool) (``should_split``); otherwise the request keeps the whole block;
* a freed block merges with free neighbours of the same segment (``free_block``/``try_merge_blocks``) and
  goes back to its pool; segments are never returned to the driver while the run has room;
* when ``cudaMalloc`` fails (the capacity is reached), every cached segment that is entirely free is
  released (``release_cached_blocks``) and the allocation retried; if it still fails the run is out of
  memory. ``release_available_cached_blocks`` only acts when ``max_split_size_mb`` is set (not the default).

Not modelled: ``expandable_segments``, ``max_split_size_mb``, ``garbage_collection_threshold``,
``roundup_power2_divisions``, several streams (each stream has its own blocks; training uses one), and
allocations inside kernels that a trace does not see.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = ["Allocator", "OutOfMemory", "replay", "min_capacity", "K_MIN_BLOCK", "K_SMALL_SIZE",
           "K_SMALL_BUFFER", "K_LARGE_BUFFER", "K_MIN_LARGE_ALLOC", "K_ROUND_LARGE"]

MIB = 2**20
K_MIN_BLOCK = 512
K_SMALL_SIZE = 1 * MIB
K_SMALL_BUFFER = 2 * MIB
K_LARGE_BUFFER = 20 * MIB
K_MIN_LARGE_ALLOC = 10 * MIB
K_ROUND_LARGE = 2 * MIB


class OutOfMemory(Exception):
    """Raised by :meth:`Allocator.malloc` when a request cannot be met within the capacity."""


def round_size(size: int) -> int:
    """``round_size``: bytes rounded up to a multiple of 512 (at least 512). Zero-byte requests never reach
    the allocator (``malloc`` returns at once); traces leave them out."""
    return max(K_MIN_BLOCK, -(-size // K_MIN_BLOCK) * K_MIN_BLOCK)


def allocation_size(size: int) -> int:
    """``get_allocation_size``: the segment ``cudaMalloc`` gets for a request of ``size`` rounded bytes."""
    if size <= K_SMALL_SIZE:
        return K_SMALL_BUFFER
    if size < K_MIN_LARGE_ALLOC:
        return K_LARGE_BUFFER
    return -(-size // K_ROUND_LARGE) * K_ROUND_LARGE


@dataclass(eq=False)
class _Block:
    size: int
    addr: int
    small: bool
    prev: _Block | None = None
    next: _Block | None = None
    allocated: bool = False

    @property
    def key(self) -> tuple[int, int]:
        return (self.size, self.addr)


@dataclass
class Allocator:
    """The caching allocator's state: segments, their blocks and the two pools of free blocks.

    ``capacity`` (bytes, ``None`` = unlimited) bounds the sum of segment sizes, as the GPU's free memory
    bounds ``cudaMalloc``. Statistics follow ``torch.cuda.memory_stats``: ``allocated`` counts whole blocks
    (a request that keeps an unsplit block counts the block), ``reserved`` counts segments.
    """

    capacity: int | None = None
    allocated: int = 0
    reserved: int = 0
    peak_allocated: int = 0
    peak_reserved: int = 0
    releases: int = 0
    _free: dict[bool, list] = field(default_factory=lambda: {True: [], False: []})
    _blocks: dict[tuple[int, int], _Block] = field(default_factory=dict)
    _next_addr: int = 0

    def _insert(self, b: _Block) -> None:
        bisect.insort(self._free[b.small], b.key)
        self._blocks[b.key] = b

    def _remove(self, b: _Block) -> None:
        lst = self._free[b.small]
        i = bisect.bisect_left(lst, b.key)
        del lst[i]
        del self._blocks[b.key]

    def _release_cached(self) -> None:
        """``release_cached_blocks``: return every entirely free segment to the driver."""
        for small in (True, False):
            for key in list(self._free[small]):
                b = self._blocks[key]
                if b.prev is None and b.next is None:
                    self._remove(b)
                    self.reserved -= b.size
        self.releases += 1

    def malloc(self, nbytes: int) -> _Block:
        """Allocate ``nbytes``; returns the block. Raises :class:`OutOfMemory` past ``capacity``."""
        size = round_size(nbytes)
        small = size <= K_SMALL_SIZE
        lst = self._free[small]
        i = bisect.bisect_left(lst, (size, -1))
        if i < len(lst):
            block = self._blocks[lst[i]]
            self._remove(block)
        else:
            seg = allocation_size(size)
            if self.capacity is not None and self.reserved + seg > self.capacity:
                self._release_cached()
                if self.reserved + seg > self.capacity:
                    raise OutOfMemory(f"{size} B requested, {self.reserved} B reserved, {self.allocated} B allocated")
            block = _Block(size=seg, addr=self._next_addr, small=small)
            self._next_addr += seg
            self.reserved += seg
            self.peak_reserved = max(self.peak_reserved, self.reserved)
        remaining = block.size - size
        if (small and remaining >= K_MIN_BLOCK) or (not small and remaining > K_SMALL_SIZE):
            rest = _Block(size=remaining, addr=block.addr + size, small=small, prev=block, next=block.next)
            if block.next is not None:
                block.next.prev = rest
            block.next = rest
            block.size = size
            self._insert(rest)
        block.allocated = True
        self.allocated += block.size
        self.peak_allocated = max(self.peak_allocated, self.allocated)
        return block

    def free(self, block: _Block) -> None:
        """Free ``block``: merge it with free neighbours in its segment and cache it in its pool."""
        block.allocated = False
        self.allocated -= block.size
        for nb in (block.prev, block.next):
            if nb is not None and not nb.allocated:
                self._remove(nb)
                if nb is block.prev:
                    block.addr, block.size, block.prev = nb.addr, nb.size + block.size, nb.prev
                    if nb.prev is not None:
                        nb.prev.next = block
                else:
                    block.size, block.next = block.size + nb.size, nb.next
                    if nb.next is not None:
                        nb.next.prev = block
        self._insert(block)


def replay(events: Iterable[tuple], capacity: int | None = None) -> Allocator:
    """Replay ``events`` (``("a", key, bytes, ...)`` / ``("f", key, ...)``) and return the allocator.

    Raises :class:`OutOfMemory` when ``capacity`` (bytes) is too small for the trace.
    """
    alloc = Allocator(capacity=capacity)
    live: dict[int, _Block] = {}
    for ev in events:
        if ev[0] == "a":
            live[ev[1]] = alloc.malloc(ev[2])
        else:
            b = live.pop(ev[1], None)
            if b is not None:
                alloc.free(b)
    return alloc


def min_capacity(events: list[tuple], low: int, high: int, step: int = 2 * MIB) -> int:
    """A small capacity (bytes, a multiple of ``step``, from ``low`` to ``high`` rounded up) under which ``events`` replay.

    Bisection between ``low`` and ``high``; the returned capacity always suffices. Whether a trace fits is
    not strictly monotone in the capacity (releasing cached segments at a different moment changes the
    layout), so now and then a smaller capacity would fit too: a reviewer's synthetic traces found the
    bisection above the true minimum in 6 of 400. Raises :class:`OutOfMemory` when even ``high`` is too small.
    """
    lo, hi = low // step, -(-high // step)
    replay(events, hi * step)  # raises when even the upper end is too small; from here on hi always suffices
    while lo < hi:
        mid = (lo + hi) // 2
        try:
            replay(events, mid * step)
            hi = mid
        except OutOfMemory:
            lo = mid + 1
    return hi * step
