"""Example lengths against the plan's sequence length: truncation, padding waste, packing efficiency (issue #19).

Pure: from a list of token counts (one per example, counted by :mod:`tuneplan.storage.dataset_file`) and the
plan's ``seq_len``, ``micro_batch`` and ``sequence_mode``:

* **truncated**: examples longer than ``seq_len`` (the trainer cuts them to ``seq_len``: TRL ``max_length``,
  LLaMA-Factory ``cutoff_len``, axolotl ``sequence_len``); every figure below uses the kept length
  ``min(length, seq_len)``.
* **padding efficiency under dynamic padding**: a micro-batch of ``b`` examples is padded to its longest, so the
  GPU computes ``b x max`` tokens for ``sum`` real ones. Over random batches (a shuffled epoch: ``b`` distinct
  examples), real / computed = ``mean / E[max]`` with, for the kept lengths sorted ``x_1 <= ... <= x_n``,
  ``E[max] = sum_i x_i C(i-1, b-1) / C(n, b)`` (the i-th smallest is the batch's longest when the other ``b - 1``
  come from the ``i - 1`` below it). Exact for the counted examples; ``b`` larger than ``n`` takes all of them.
* **packing efficiency**: best-fit decreasing into rows of ``seq_len`` (TRL ``pack_dataset(strategy="bfd")``):
  real tokens / (rows x ``seq_len``).
* **longest batch**: ``micro_batch x`` the longest kept example, the batch the peak memory is reached on under
  dynamic padding.
* **padding-free batches** (:func:`padding_free_peak`): the ``b`` examples of a micro-batch flattened into one row
  of their summed lengths; the peak is reached on the largest sum the run draws.

:func:`dataset_updates` says which plan fields take the result: examples (the rows of the file), tokens per
example (the mean kept length), padding efficiency (dynamic, at the plan's micro-batch; real / computed tokens,
as ``core/throughput.py`` divides by it), and under dynamic padding a sequence length no longer than the
longest example (the longest batch, which ``core/memory`` sizes activations and the allocator's shape cache
by). Memory and time formulas are unchanged.
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from tuneplan.core.scenario import Dataset, TrainingSetup
from tuneplan.core.stacks import pads_packs
from tuneplan.core.terms import FORMULAS, N_, NOTES, Note, Quantity, Term

__all__ = [
    "HISTOGRAM_BINS",
    "LengthBin",
    "LengthStats",
    "dataset_updates",
    "expected_batch_max",
    "expected_normal_max",
    "histogram",
    "length_stats",
    "packing_efficiency",
    "padding_free_peak",
    "percentile",
    "spread_std",
]

#: Bars in the length histogram (at most; fewer when the lengths span fewer tokens).
HISTOGRAM_BINS = 40

NOTES.update({
    "lengths.truncated": N_("{count:,} of {counted:,} examples ({share:.1%}) are longer than the sequence length "
                            "({seq_len:,} tokens) and are cut to it"),
    "lengths.sampled": N_("{counted:,} of {rows:,} rows were counted (a uniform sample with a fixed seed): the figures "
                          "are estimates"),
    "lengths.packing_gapless": N_("packed rows are {share:.1%} full (best-fit decreasing); the time estimate counts "
                                  "real tokens only, as stacks that pack without padding (TRL) compute them"),
    "lengths.packing_padded": N_("packed rows are {share:.1%} full (best-fit decreasing); LLaMA-Factory pads every "
                                 "row to the sequence length, so the time estimate computes the gaps too"),
    "lengths.seq_len_shortened": N_("dynamic padding: the longest example has {tokens:,} tokens, so the longest batch "
                                    "is {tokens:,} tokens per row, not the sequence length {seq_len:,}"),
    "lengths.padding_free_longest": N_("padding-free: the longest example has {tokens:,} tokens, so no example is cut "
                                       "below it; the sequence length becomes {tokens:,}"),
})

FORMULAS.update({
    "padding_free_batch": N_("largest of {micro_batches} micro-batches of {micro_batch} examples flattened into one "
                             "row: min({micro_batch} × {longest}, max({longest} + ({micro_batch} − 1) × {mean}, "
                             "{micro_batch} × {mean} + {z} × √{micro_batch} × {std})) tokens"),
    "padding_free_bound": N_("{micro_batch} examples of at most {longest} tokens flattened into one row: "
                             "{micro_batch} × {longest} tokens (the length spread is unknown: count the dataset "
                             "file for the largest sum the run draws)"),
})


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class LengthBin(_Frozen):
    """One bar of the histogram: ``count`` examples with ``start <= tokens < end``, ``truncated`` of them longer than
    the sequence length."""

    start: int
    end: int
    count: int
    truncated: int = 0


class LengthStats(_Frozen):
    """What the counted lengths mean for the plan (all token figures per example, before padding).

    Attributes:
        rows: usable rows in the file (the plan's examples).
        counted: rows whose tokens were counted (``rows`` or a sample of them).
        mean_tokens, p50_tokens, p95_tokens, min_tokens, max_tokens: of the counted lengths, untruncated;
            percentiles by nearest rank (the ``ceil(q n)``-th smallest).
        seq_len, micro_batch, sequence_mode: the plan's, which the figures below are for.
        truncated: counted examples longer than ``seq_len``; ``truncated_share`` their share.
        mean_kept_tokens: mean of ``min(length, seq_len)``: the real tokens an example trains.
        longest_kept_tokens: the longest kept example.
        batch_max_tokens: the expected longest kept example of a random micro-batch (``E[max]``).
        padding_efficiency: ``mean_kept / E[max]`` (1 at micro-batch 1): real / computed under dynamic padding.
        padding_waste: ``1 - padding_efficiency``.
        ranks: data-parallel GPUs that each draw a micro-batch per step (``num_gpus`` unless the plan has no
            sharding or one GPU: 1).
        rank_batch_max_tokens: the expected longest kept example of the ``micro_batch x ranks`` examples one step
            draws (``E[max]`` of that many): the row of the slowest GPU, which every GPU waits for.
        rank_padding_efficiency: ``mean_kept / rank_batch_max_tokens`` (1 with one rank at micro-batch 1).
        packed_rows: rows of ``seq_len`` best-fit decreasing fills; ``packing_efficiency`` real / their tokens.
        longest_batch_tokens: ``micro_batch x longest_kept_tokens``.
        std_kept_tokens: the population standard deviation of the kept lengths (tokens).
        histogram: bars over ``[0, max(max_tokens, seq_len)]``.
        notes: coded notes (``NOTES``).
    """

    rows: int
    counted: int
    mean_tokens: float
    p50_tokens: int
    p95_tokens: int
    min_tokens: int
    max_tokens: int
    seq_len: int
    micro_batch: int
    sequence_mode: str
    truncated: int
    truncated_share: float
    mean_kept_tokens: float
    longest_kept_tokens: int
    batch_max_tokens: float
    padding_efficiency: float
    padding_waste: float
    ranks: int = 1
    rank_batch_max_tokens: float = 0.0
    rank_padding_efficiency: float = 1.0
    packed_rows: int
    packing_efficiency: float
    longest_batch_tokens: int
    std_kept_tokens: float = 0.0
    histogram: tuple[LengthBin, ...]
    notes: tuple[Note, ...] = ()


def percentile(sorted_counts: Sequence[int], q: float) -> int:
    """The nearest-rank ``q`` quantile (0 < q <= 1) of ascending ``sorted_counts``: the ``ceil(q n)``-th smallest.

    Raises:
        ValueError: when ``sorted_counts`` is empty.
    """
    if not sorted_counts:
        raise ValueError("no lengths")
    rank = max(1, math.ceil(q * len(sorted_counts) - 1e-9))
    return int(sorted_counts[min(rank, len(sorted_counts)) - 1])


def expected_batch_max(sorted_kept: Sequence[int], micro_batch: int) -> float:
    """``E[max]`` of ``micro_batch`` distinct examples drawn at random from ascending ``sorted_kept``.

    ``P(x_i is the longest) = C(i-1, b-1) / C(n, b)`` for the i-th smallest (1-based): the weight of the largest
    is ``b / n`` and each step down multiplies it by ``(i - b) / (i - 1)``, so no binomial is ever formed.
    """
    n = len(sorted_kept)
    if n == 0:
        return 0.0
    b = min(max(micro_batch, 1), n)
    weight = b / n
    total = 0.0
    for i in range(n, b - 1, -1):  # i = n .. b (1-based); below b the weight is 0
        total += weight * sorted_kept[i - 1]
        if i > 1:
            weight *= (i - b) / (i - 1)
    return total


#: Grid of the numerical integral in :func:`expected_normal_max`: the standard-normal axis from -6 to 10 in steps of
#: 0.02 (for ``2 <= n <= 10^15`` the mass of ``Phi^n`` outside it is below 10^-8, and the trapezoid rule on this smooth
#: integrand stays within 10^-5 of the tabulated values).
_NORMAL_GRID = (-6.0, 10.0, 0.02)


@functools.lru_cache(maxsize=256)
def expected_normal_max(n: int) -> float:
    """``E[max]`` of ``n`` independent standard normal variables (0 for ``n <= 1``).

    ``E[max] = a + int_a^inf (1 - Phi(x)^n) dx`` for a variable with distribution function ``Phi^n`` that is
    never below ``a`` (here ``a = -6``, where ``Phi^n`` is below 10^-18 for ``n >= 2``; David & Nagaraja, *Order Statistics*, 3rd ed. 2003,
    §4.2), integrated by the trapezoid rule on :data:`_NORMAL_GRID` with ``Phi^n = exp(n log1p(-Q(x)))`` so that ``n`` up to 10^15 keeps its
    precision. Tabulated values (Tippett 1925; Harter 1961): 0.5642 for 2, 1.0294 for 4, 1.5388 for 10, 2.5076 for
    100, 3.2414 for 1,000.
    """
    if n <= 1:
        return 0.0
    lo, hi, step = _NORMAL_GRID
    steps = round((hi - lo) / step)
    total = lo
    prev = 1.0
    for i in range(1, steps + 1):
        q = 0.5 * math.erfc((lo + i * step) / math.sqrt(2.0))  # upper tail 1 - Phi(x)
        f = 1.0 - (math.exp(n * math.log1p(-q)) if q < 1.0 else 0.0)
        total += 0.5 * (f + prev) * step
        prev = f
    return total


def spread_std(mean: float, longest: float, std: float | None) -> float:
    """The standard deviation of lengths with this mean that no example exceeds ``longest`` allows (tokens): ``std``
    (0 when unknown) capped at ``sqrt(mean (longest - mean))``, the largest a variable in ``[0, longest]`` with that
    mean can have (Bhatia & Davis 2000, "A better bound on the variance", Amer. Math. Monthly 107: 353-357)."""
    if not std:
        return 0.0
    return min(float(std), math.sqrt(max(0.0, mean * (longest - mean))))


def padding_free_peak(t: TrainingSetup, data: Dataset | None) -> Term:
    """Tokens of the largest padding-free micro-batch the run is expected to draw (a :class:`Term` in ``tokens``).

    A padding-free collator flattens the ``b = micro_batch`` examples of a micro-batch into one row of their summed
    lengths (transformers ``DataCollatorWithFlattening``; TRL ``DataCollatorForLanguageModeling(padding_free=True)``),
    so the activations of a micro-batch follow the sum ``S`` of ``b`` kept lengths, and the peak memory the largest
    ``S`` of the run's ``M = examples x epochs / b`` micro-batches (any GPU's; one out-of-memory ends the run).

    * With the length spread known (``data.tokens_std``, counted from the file or typed; mean ``mu`` = the kept mean
      ``min(tokens_per_example, seq_len)``; ``sigma`` at most its Bhatia-Davis bound, :func:`spread_std`): ``S`` is a
      sum of ``b`` draws, about normal with mean ``b mu`` and deviation ``sigma sqrt(b)`` (central limit theorem), and
      its largest of ``M`` about ``b mu + e_M sigma sqrt(b)`` with ``e_M`` the expected largest of ``M`` standard
      normals (:func:`expected_normal_max`). The micro-batch that holds the longest example ``L`` sums
      ``L + (b - 1) mu`` on average, a floor the largest cannot go below (skewed lengths, small ``b``); no micro-batch
      exceeds ``b L``. So ``min(b L, max(L + (b - 1) mu, b mu + e_M sigma sqrt(b)))``. ``L`` is the counted longest
      example (``data.longest_tokens``) at most ``seq_len``, or, not counted, ``min(seq_len, mu + e_N sigma)`` for the
      ``N`` examples.
    * Spread unknown (``tokens_std`` None, a dataset given as total tokens, or no dataset): ``b x seq_len`` (or
      ``b x`` the counted longest example when shorter), the bound, as for packed rows (``key="padding_free_bound"``).
    * ``b = 1``: the one example, at most ``seq_len`` (or the counted longest).

    Returns:
        ``Term(key="padding_free_batch" | "padding_free_bound", value=tokens, unit="tokens")`` with its parts.
    """
    b, longest = t.micro_batch, float(t.seq_len)
    spread = data is not None and data.tokens_std is not None and data.total_tokens is None \
        and data.tokens_per_example > 0
    if b == 1 or not spread:
        if data is not None and data.longest_tokens is not None:  # a counted longest example bounds every one
            longest = min(longest, float(data.longest_tokens))
        return Term(key="padding_free_bound", value=b * longest, unit="tokens", parts=(
            Quantity(key="micro_batch", value=b, unit="count"), Quantity(key="longest", value=longest, unit="tokens")),
            source="transformers DataCollatorWithFlattening; TRL padding_free")
    assert data is not None and data.tokens_std is not None
    mu = min(float(data.tokens_per_example), longest)
    sigma = spread_std(mu, longest, data.tokens_std)
    if data.longest_tokens is not None:
        longest = max(mu, min(longest, float(data.longest_tokens)))
    else:
        longest = min(longest, mu + expected_normal_max(max(1, data.examples)) * sigma)
    batches = max(1, math.ceil(data.examples * data.epochs / b))
    z = expected_normal_max(batches)
    tokens = min(b * longest, max(longest + (b - 1) * mu, b * mu + z * sigma * math.sqrt(b)))
    return Term(key="padding_free_batch", value=tokens, unit="tokens", parts=(
        Quantity(key="micro_batch", value=b, unit="count"), Quantity(key="longest", value=longest, unit="tokens"),
        Quantity(key="mean", value=mu, unit="tokens"), Quantity(key="std", value=sigma, unit="tokens"),
        Quantity(key="micro_batches", value=batches, unit="count"),
        Quantity(key="z", value=z, unit="1", source="expected largest of n standard normals (David & Nagaraja 2003)")),
        source="transformers DataCollatorWithFlattening; TRL padding_free; central limit theorem")


def packing_efficiency(kept: Sequence[int], seq_len: int) -> tuple[int, float]:
    """Rows and fill of best-fit decreasing packing of ``kept`` lengths (each at most ``seq_len``) into rows of
    ``seq_len`` tokens: ``(rows, real tokens / (rows x seq_len))``; ``(0, 1.0)`` for no tokens."""
    total = sum(k for k in kept if k > 0)
    if total == 0:
        return 0, 1.0
    rows = _bfd_rows(kept, seq_len)
    return rows, total / (rows * seq_len)


def _bfd_rows(kept: Sequence[int], seq_len: int) -> int:
    """The number of rows best-fit decreasing opens (full rows included)."""
    free: list[int] = []  # the free room of each open row, ascending (full rows are dropped)
    rows = 0
    for length in sorted(kept, reverse=True):
        if length <= 0:
            continue
        at = bisect.bisect_left(free, length)  # the fullest row it still fits in
        if at < len(free):
            room = free.pop(at) - length
        else:
            rows += 1
            room = seq_len - length
        if room > 0:
            bisect.insort(free, room)
    return rows


def _nice_width(span: int, bins: int) -> int:
    """The smallest 1, 2 or 5 x 10^k tokens that covers ``span`` in at most ``bins`` bars."""
    raw = max(1.0, span / bins)
    scale = 10 ** math.floor(math.log10(raw))
    for step in (1, 2, 5, 10):
        if step * scale >= raw:
            return int(step * scale)
    return int(10 * scale)  # pragma: no cover - the loop always returns


def histogram(counts: Sequence[int], seq_len: int, bins: int = HISTOGRAM_BINS) -> tuple[LengthBin, ...]:
    """Bars of equal width (1, 2 or 5 x 10^k tokens) from 0 past ``max(max(counts), seq_len)``; untruncated lengths,
    each bar saying how many of its examples are longer than ``seq_len``."""
    if not counts:
        return ()
    top = max(max(counts), seq_len)
    width = _nice_width(top + 1, bins)
    n = top // width + 1
    tally = [0] * n
    cut = [0] * n
    for c in counts:
        tally[c // width] += 1
        if c > seq_len:
            cut[c // width] += 1
    return tuple(LengthBin(start=i * width, end=(i + 1) * width, count=k, truncated=cut[i])
                 for i, k in enumerate(tally))


def length_stats(counts: Sequence[int], training: TrainingSetup, rows: int | None = None) -> LengthStats:
    """The figures of :class:`LengthStats` for token ``counts`` (one per counted example) under ``training``.

    Args:
        counts: tokens per counted example (at least one).
        training: the plan's setup (``seq_len``, ``micro_batch``, ``sequence_mode``).
        rows: usable rows in the whole file when ``counts`` is a sample (default ``len(counts)``).

    Raises:
        ValueError: when ``counts`` is empty or holds a negative count.
    """
    if not counts:
        raise ValueError("no lengths")
    ordered = sorted(int(c) for c in counts)
    if ordered[0] < 0:
        raise ValueError("a negative token count")
    n = len(ordered)
    rows = n if rows is None else max(int(rows), n)
    seq_len, b = training.seq_len, training.micro_batch
    kept = [min(c, seq_len) for c in ordered]  # still ascending
    mean_kept = sum(kept) / n
    std_kept = math.sqrt(max(0.0, sum((k - mean_kept) ** 2 for k in kept) / n))
    truncated = sum(1 for c in ordered if c > seq_len)
    batch_max = expected_batch_max(kept, b)
    pad = 1.0 if b == 1 or batch_max <= 0 else min(1.0, mean_kept / batch_max)
    ranks = training.num_gpus if training.num_gpus > 1 and training.sharding != "none" else 1
    rank_max = expected_batch_max(kept, b * ranks)
    rank_pad = 1.0 if b * ranks == 1 or rank_max <= 0 else min(pad, mean_kept / rank_max)
    packed_rows, packing = packing_efficiency(kept, seq_len)
    notes: list[Note] = []
    if rows > n:
        notes.append(Note(code="lengths.sampled", params={"counted": n, "rows": rows}))
    if truncated:
        notes.append(Note(code="lengths.truncated", params={"count": truncated, "counted": n,
                                                             "share": truncated / n, "seq_len": seq_len}))
    if training.sequence_mode == "packed" and packing < 1.0:
        padded = pads_packs(training)  # (core/stacks.py: LLaMA-Factory's SFT packer pads each pack)
        notes.append(Note(code="lengths.packing_padded" if padded else "lengths.packing_gapless",
                          params={"share": packing}))
    if training.sequence_mode == "dynamic" and kept[-1] < seq_len:
        notes.append(Note(code="lengths.seq_len_shortened", params={"tokens": kept[-1], "seq_len": seq_len}))
    if training.sequence_mode == "padding-free" and kept[-1] < seq_len:
        notes.append(Note(code="lengths.padding_free_longest", params={"tokens": kept[-1]}))
    return LengthStats(
        rows=rows, counted=n, mean_tokens=sum(ordered) / n, p50_tokens=percentile(ordered, 0.5),
        p95_tokens=percentile(ordered, 0.95), min_tokens=ordered[0], max_tokens=ordered[-1],
        seq_len=seq_len, micro_batch=b, sequence_mode=training.sequence_mode,
        truncated=truncated, truncated_share=truncated / n, mean_kept_tokens=mean_kept, longest_kept_tokens=kept[-1],
        batch_max_tokens=batch_max, padding_efficiency=pad, padding_waste=1.0 - pad,
        ranks=ranks, rank_batch_max_tokens=rank_max, rank_padding_efficiency=rank_pad,
        packed_rows=packed_rows, packing_efficiency=packing, longest_batch_tokens=b * kept[-1], std_kept_tokens=std_kept,
        histogram=histogram(ordered, seq_len), notes=tuple(notes),
    )


def dataset_updates(stats: LengthStats, *, longest_batch: bool = True) -> dict[str, Any]:
    """The plan fields the counted file sets, as dotted paths (``PlanStore.set_fields``, the CLI).

    ``dataset.examples`` = the file's rows, ``dataset.tokens_per_example`` = the mean kept length (truncated at
    ``seq_len``), ``dataset.total_tokens`` cleared (it would replace them), ``dataset.padding_efficiency`` = the
    dynamic-padding efficiency at the plan's micro-batch (at least 0.01, the field's floor),
    ``dataset.rank_padding_efficiency`` = the same over the ``micro_batch x GPUs`` examples of one step (the slowest
    GPU's row, :func:`tuneplan.core.throughput.slowest_rank_row`), ``dataset.packing_efficiency`` = the fill of the
    rows best-fit decreasing packs the kept lengths into (packed rows; 1, unknown, for the other modes, whose
    ``seq_len`` this may shorten), ``dataset.tokens_std`` = the kept lengths'
    standard deviation and ``dataset.longest_tokens`` the longest kept example (what size padding-free batches,
    :func:`padding_free_peak`). Under dynamic padding and
    padding-free batches, with ``longest_batch``, ``training.seq_len`` = the longest kept example when it is shorter
    than ``seq_len``: the longest row the GPU ever holds (no example is cut below it, so nothing else changes).
    """
    updates: dict[str, Any] = {
        "dataset.examples": stats.rows,
        "dataset.tokens_per_example": round(stats.mean_kept_tokens, 2),
        "dataset.total_tokens": None,
        "dataset.padding_efficiency": round(max(0.01, stats.padding_efficiency), 4),
        "dataset.rank_padding_efficiency": round(max(0.01, stats.rank_padding_efficiency), 4),
        # counted at this seq_len for packed rows; other modes may shorten seq_len below, so it is left unknown (1)
        "dataset.packing_efficiency": round(max(0.01, stats.packing_efficiency), 4)
        if stats.sequence_mode == "packed" else 1.0,
        "dataset.tokens_std": round(stats.std_kept_tokens, 2),
        "dataset.longest_tokens": max(1, stats.longest_kept_tokens),
    }
    if longest_batch and stats.sequence_mode in {"dynamic", "padding-free"} \
            and 0 < stats.longest_kept_tokens < stats.seq_len:
        updates["training.seq_len"] = stats.longest_kept_tokens
    return updates
