"""Length statistics of a counted dataset (core/lengths.py), each figure against a hand calculation (issue #19)."""

from __future__ import annotations

import itertools

import pytest

from tuneplan.core.lengths import (
    dataset_updates,
    expected_batch_max,
    histogram,
    length_stats,
    packing_efficiency,
    percentile,
)
from tuneplan.core.scenario import Dataset, TrainingSetup
from tuneplan.core.throughput import computed_tokens

# Five examples; the last is longer than the sequence length of 1,000 and is cut to it.
COUNTS = [600, 300, 5000, 600, 300]


def _setup(**kw: object) -> TrainingSetup:
    return TrainingSetup(**{"seq_len": 1000, "micro_batch": 2, "sequence_mode": "dynamic", **kw})


def test_truncation_mean_and_percentiles_by_hand() -> None:
    s = length_stats(COUNTS, _setup())
    assert (s.rows, s.counted, s.min_tokens, s.max_tokens) == (5, 5, 300, 5000)
    assert s.mean_tokens == pytest.approx(6800 / 5)  # 1,360 untruncated
    assert (s.truncated, s.truncated_share) == (1, pytest.approx(0.2))
    assert s.mean_kept_tokens == pytest.approx((300 + 300 + 600 + 600 + 1000) / 5)  # 560
    assert s.longest_kept_tokens == 1000
    # nearest rank: the ceil(0.5 x 5) = 3rd and ceil(0.95 x 5) = 5th smallest
    assert (s.p50_tokens, s.p95_tokens) == (600, 5000)
    assert s.longest_batch_tokens == 2 * 1000


def test_padding_waste_is_mean_over_expected_batch_max() -> None:
    # kept, sorted: 300 300 600 600 1000; the i-th smallest is the longest of a random pair with probability
    # C(i-1, 1) / C(5, 2) = (i-1)/10: E[max] = 300 x 0.1 + 600 x 0.2 + 600 x 0.3 + 1000 x 0.4 = 730
    s = length_stats(COUNTS, _setup())
    assert s.batch_max_tokens == pytest.approx(730)
    assert s.padding_efficiency == pytest.approx(560 / 730)
    assert s.padding_waste == pytest.approx(1 - 560 / 730)


@pytest.mark.parametrize("b", [1, 2, 3, 4, 5])
def test_expected_batch_max_equals_the_mean_over_every_batch(b: int) -> None:
    kept = sorted(min(c, 1000) for c in COUNTS)
    batches = list(itertools.combinations(kept, b))
    assert expected_batch_max(kept, b) == pytest.approx(sum(max(x) for x in batches) / len(batches))


def test_micro_batch_one_has_no_padding_and_a_batch_larger_than_the_file_takes_all() -> None:
    assert length_stats(COUNTS, _setup(micro_batch=1)).padding_efficiency == 1.0
    big = length_stats(COUNTS, _setup(micro_batch=64))
    assert big.batch_max_tokens == pytest.approx(1000)  # every batch holds all five
    assert big.padding_efficiency == pytest.approx(560 / 1000)
    assert expected_batch_max([], 4) == 0.0


def test_packing_is_best_fit_decreasing() -> None:
    # 1000 fills a row; 600 and 600 open a row each (400 left in both); each 300 goes into one of them: 3 rows
    rows, fill = packing_efficiency([300, 300, 600, 600, 1000], 1000)
    assert (rows, fill) == (3, pytest.approx(2800 / 3000))
    # 800 opens row 1 (200 left), 500 row 2 (500 left); the second 500 fills row 2 and 200 goes back to fill row 1
    # (packing only the newest row would open a third)
    assert packing_efficiency([800, 500, 500, 200], 1000) == (2, pytest.approx(1.0))
    assert packing_efficiency([], 1000) == (0, 1.0)
    assert length_stats(COUNTS, _setup()).packing_efficiency == pytest.approx(2800 / 3000)


def test_histogram_bins_are_nice_and_count_every_example() -> None:
    # up to 4,000 tokens: 4,001 / 40 bars = 100.025 -> bars of 200 tokens, 21 of them (0-200 ... 4,000-4,200)
    bins = histogram([0, 199, 200, 4000], seq_len=2048)
    assert len(bins) == 21 and all(b.end - b.start == 200 for b in bins)
    assert (bins[0].count, bins[1].count, bins[20].count) == (2, 1, 1)
    assert sum(b.count for b in bins) == 4
    # the bar of 2,000-2,200 tokens holds 2,048 (kept whole) and 2,049 (cut): it says which is which
    mixed = histogram([2048, 2049, 100], seq_len=2048)
    assert [(b.start, b.count, b.truncated) for b in mixed if b.count] == [(100, 1, 0), (2000, 2, 1)]
    # the sequence length is inside the bars even when every example is shorter
    assert histogram([10], seq_len=2048)[-1].end > 2048
    assert histogram([], seq_len=10) == ()


def test_percentile_is_nearest_rank() -> None:
    assert percentile([1, 2, 3, 4], 0.5) == 2
    assert percentile([1, 2, 3, 4], 0.51) == 3
    assert percentile([7], 0.95) == 7
    with pytest.raises(ValueError):
        percentile([], 0.5)


def test_notes_say_sampled_truncated_packed_and_shortened() -> None:
    codes = {n.code: n.params for n in length_stats(COUNTS, _setup(), rows=50).notes}
    assert codes["lengths.sampled"] == {"counted": 5, "rows": 50}
    assert codes["lengths.truncated"] == {"count": 1, "counted": 5, "share": 0.2, "seq_len": 1000}
    assert "lengths.seq_len_shortened" not in codes  # the longest is cut to seq_len: seq_len is the longest batch
    packed = {n.code: n.params for n in length_stats(COUNTS, _setup(sequence_mode="packed")).notes}
    assert packed["lengths.packing_gapless"]["share"] == pytest.approx(2800 / 3000)
    lf = {n.code: n.params for n in length_stats(COUNTS, _setup(sequence_mode="packed", stack="llama-factory")).notes}
    assert lf["lengths.packing_padded"]["share"] == pytest.approx(2800 / 3000) and "lengths.packing_gapless" not in lf
    short = {n.code: n.params for n in length_stats([100, 300], _setup()).notes}
    assert short["lengths.seq_len_shortened"] == {"tokens": 300, "seq_len": 1000}
    assert "lengths.truncated" not in short and "lengths.sampled" not in short


def test_bad_counts_are_refused() -> None:
    with pytest.raises(ValueError):
        length_stats([], _setup())
    with pytest.raises(ValueError):
        length_stats([3, -1], _setup())


def test_dataset_updates_feed_the_time_model() -> None:
    s = length_stats(COUNTS, _setup(), rows=50)
    updates = dataset_updates(s)
    # one GPU: the slowest GPU's micro-batch is the only one, so its efficiency is the padding efficiency
    assert updates == {"dataset.examples": 50, "dataset.tokens_per_example": 560.0, "dataset.total_tokens": None,
                       "dataset.padding_efficiency": round(560 / 730, 4),
                       "dataset.rank_padding_efficiency": round(560 / 730, 4),
                       # dynamic padding: the fill of packed rows is left unknown (seq_len may be shortened)
                       "dataset.packing_efficiency": 1.0,
                       # kept 600, 300, 1000, 600, 300 about 560: (40² + 260² + 440² + 40² + 260²) / 5 = 66,400
                       "dataset.tokens_std": round(66_400 ** 0.5, 2), "dataset.longest_tokens": 1000}
    # what the time model then computes: each row padded to the expected longest of its batch, E[max] = 730
    data = Dataset(examples=50, tokens_per_example=560, padding_efficiency=round(560 / 730, 4), epochs=1)
    computed, real, _note = computed_tokens(_setup(), data)
    assert real == pytest.approx(50 * 560)
    assert computed == pytest.approx(50 * 730, rel=1e-3)


def test_dynamic_padding_sets_the_longest_batch_as_the_sequence_length() -> None:
    s = length_stats([100, 300], _setup())
    assert dataset_updates(s)["training.seq_len"] == 300
    assert "training.seq_len" not in dataset_updates(s, longest_batch=False)
    assert "training.seq_len" not in dataset_updates(length_stats([100, 300], _setup(sequence_mode="packed")))
    assert "training.seq_len" not in dataset_updates(length_stats(COUNTS, _setup()))  # longest cut to 1,000


def test_padding_efficiency_keeps_the_fields_floor() -> None:
    # 99 one-token examples and one of 1,000 at micro-batch 100: real 1,099 / computed 100 x 1,000
    s = length_stats([1] * 99 + [1000], _setup(micro_batch=100))
    assert s.padding_efficiency == pytest.approx(1099 / 100 / 1000)
    assert dataset_updates(s)["dataset.padding_efficiency"] == 0.011
    tiny = length_stats([1] * 999 + [1000], _setup(micro_batch=1000))
    assert tiny.padding_efficiency < 0.01 and dataset_updates(tiny)["dataset.padding_efficiency"] == 0.01


def test_the_slowest_gpu_pads_to_the_longest_of_every_gpus_micro_batch() -> None:
    # two FSDP GPUs at micro-batch 2 draw 4 distinct examples per step; kept, sorted: 300 300 600 600 1000.
    # The i-th smallest is the longest of 4 with probability C(i-1, 3) / C(5, 4): i = 4 -> 1/5, i = 5 -> 4/5:
    # E[max of 4] = 600 x 0.2 + 1000 x 0.8 = 920, against E[max of 2] = 730 for each GPU's own batch
    s = length_stats(COUNTS, _setup(num_gpus=2, sharding="fsdp"))
    assert s.ranks == 2
    assert s.batch_max_tokens == pytest.approx(730)
    assert s.rank_batch_max_tokens == pytest.approx(920)
    assert s.rank_padding_efficiency == pytest.approx(560 / 920)
    assert dataset_updates(s)["dataset.rank_padding_efficiency"] == round(560 / 920, 4)
    # layers split across GPUs without data parallelism: one micro-batch per step, no slower GPU to wait for
    solo = length_stats(COUNTS, _setup(num_gpus=2, sharding="none"))
    assert (solo.ranks, solo.rank_padding_efficiency) == (1, pytest.approx(560 / 730))
    # micro-batch 1 on 2 GPUs: each row is one example (no padding), but the step waits for the longer of two:
    # E[max of 2] = 730 -> 560 / 730
    one = length_stats(COUNTS, _setup(micro_batch=1, num_gpus=2, sharding="ddp"))
    assert one.padding_efficiency == 1.0
    assert one.rank_padding_efficiency == pytest.approx(560 / 730)


def test_packing_efficiency_reaches_the_time_of_a_stack_that_pads_its_packs() -> None:
    # kept 600, 300, 1000, 600, 300 (2,800 tokens) packed best-fit decreasing into rows of 1,000: [1000], [600 300],
    # [600 300]: 3 rows, 2,800 / 3,000 full
    s = length_stats(COUNTS, _setup(sequence_mode="packed"), rows=5)
    assert s.packed_rows == 3 and s.packing_efficiency == pytest.approx(2800 / 3000)
    assert dataset_updates(s)["dataset.packing_efficiency"] == round(2800 / 3000, 4)
    data = Dataset(examples=5, tokens_per_example=560, packing_efficiency=round(2800 / 3000, 4), epochs=1)
    # LLaMA-Factory pads every pack to cutoff_len (PackedSupervisedDatasetProcessor): the 3 rows' 3,000 tokens
    lf, real, _ = computed_tokens(_setup(sequence_mode="packed", stack="llama-factory"), data)
    assert real == pytest.approx(2800) and lf == pytest.approx(2800 / 0.9333)
    # TRL packs without gaps (bfd with position ids): the real tokens; a plan without a stack as well
    for stack in ("trl", None):
        assert computed_tokens(_setup(sequence_mode="packed", stack=stack), data)[0] == pytest.approx(2800)
    # LLaMA-Factory's pt stage concatenates the texts into cutoff_len blocks (PretrainDatasetProcessor): no gaps
    pt = _setup(sequence_mode="packed", stack="llama-factory", workload="pt")
    assert computed_tokens(pt, data)[0] == pytest.approx(2800)
    assert "lengths.packing_gapless" in {n.code for n in length_stats(COUNTS, pt).notes}


def test_a_packing_efficiency_the_plan_does_not_use_is_said() -> None:
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate

    s = catalog.default_scenario()
    s.dataset.packing_efficiency = 0.5
    s.training.sequence_mode = "packed"
    s.training.stack = "trl"  # TRL packs without gaps
    assert "plan.packing_efficiency_unused" in {n.code for n in estimate(s).messages}
    s.training.stack = "llama-factory"  # LLaMA-Factory's SFT packer pads: used, nothing said
    assert "plan.packing_efficiency_unused" not in {n.code for n in estimate(s).messages}
    s.dataset.packing_efficiency = 1.0
    s.training.stack = "trl"
    assert "plan.packing_efficiency_unused" not in {n.code for n in estimate(s).messages}
