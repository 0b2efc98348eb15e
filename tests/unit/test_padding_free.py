"""#17 item 4: padding-free batches with micro-batch > 1 (TRL ``padding_free=True``, transformers
``DataCollatorWithFlattening``, ms-swift ``padding_free``): the micro-batch's examples flattened into one row of
their summed lengths. Memory is sized by the largest sum the run draws, time by each example's own tokens.

Expected values are worked by hand in each test from the formulas in ``core/lengths.py`` (``padding_free_peak``)
and tabulated expected maxima of standard normal samples (Harter 1961, "Expected values of normal order
statistics", Biometrika 48: 151-165; the same as Tippett 1925 for n <= 1000).
"""

from __future__ import annotations

import math

import pytest

from tuneplan import catalog
from tuneplan.core.config_export import export_config
from tuneplan.core.estimate import estimate
from tuneplan.core.lengths import (
    dataset_updates,
    expected_normal_max,
    length_stats,
    padding_free_peak,
    spread_std,
)
from tuneplan.core.memory import estimate_memory
from tuneplan.core.scenario import Dataset, TrainingSetup
from tuneplan.core.throughput import computed_tokens, slowest_rank_row, tokens_per_row
from tuneplan.core.training_config import map_training_config

# E[max] of n standard normals (Harter 1961, Table 1)
HARTER = {2: 0.56419, 3: 0.84628, 4: 1.02938, 10: 1.53875, 100: 2.50759, 1000: 3.24144}


def _t(**kw: object) -> TrainingSetup:
    return TrainingSetup.model_validate({**TrainingSetup().model_dump(), "sequence_mode": "padding-free",
                                         "micro_batch": 4, "seq_len": 2048, **kw})


def _scenario(training: TrainingSetup, data: Dataset):
    base = catalog.default_scenario()
    return base.model_copy(update={"training": training, "dataset": data})


@pytest.mark.parametrize("n", sorted(HARTER))
def test_expected_normal_max_matches_the_tables(n: int) -> None:
    assert expected_normal_max(n) == pytest.approx(HARTER[n], abs=2e-4)


def test_expected_normal_max_of_one_is_its_mean_and_it_grows_like_sqrt_2_ln_n() -> None:
    assert expected_normal_max(1) == 0.0
    # for large n, E[max] = b_n + 0.5772 a_n with b_n = sqrt(2 ln n) - (ln ln n + ln 4 pi) / (2 sqrt(2 ln n)),
    # a_n = 1 / sqrt(2 ln n) (Gumbel's limit; Embrechts et al. 1997, Example 3.3.29): n = 10^9 gives 6.0
    n = 10**9
    r = math.sqrt(2 * math.log(n))
    gumbel = r - (math.log(math.log(n)) + math.log(4 * math.pi)) / (2 * r) + 0.5772 / r
    assert expected_normal_max(n) == pytest.approx(gumbel, abs=0.05)


def test_the_largest_batch_follows_the_spread() -> None:
    # 400 examples, 1 epoch, micro-batch 4: 100 micro-batches, e_100 = 2.50759
    data = Dataset(examples=400, tokens_per_example=600, tokens_std=300, epochs=1)
    term = padding_free_peak(_t(), data)
    # 4 x 600 + 2.50759 x sqrt(4) x 300 = 2,400 + 1,504.55; the floor 2,048 + 3 x 600 = 3,848 is below it
    assert term.key == "padding_free_batch"
    assert term.value == pytest.approx(2400 + 2.50759 * 2 * 300, abs=0.2)
    assert term.part("micro_batches") == 100 and term.part("z") == pytest.approx(2.50759, abs=2e-4)


def test_the_batch_with_the_longest_example_is_a_floor() -> None:
    # a narrow spread: 2,400 + 2.50759 x 2 x 50 = 2,650.8, below the micro-batch that holds the counted longest
    # example, 2,048 + 3 x 600 = 3,848 tokens
    data = Dataset(examples=400, tokens_per_example=600, tokens_std=50, longest_tokens=2048, epochs=1)
    assert padding_free_peak(_t(), data).value == pytest.approx(3848)


def test_without_a_counted_longest_example_it_follows_from_the_spread() -> None:
    # 1,000 examples: the longest is about 600 + e_1000 x 50 = 600 + 3.24144 x 50 = 762.1; its micro-batch sums
    # 762.1 + 3 x 600 = 2,562.1, below 4 x 600 + e_250 x 2 x 50 (250 micro-batches)
    data = Dataset(examples=1000, tokens_per_example=600, tokens_std=50, epochs=1)
    term = padding_free_peak(_t(), data)
    assert term.part("longest") == pytest.approx(600 + 3.24144 * 50, abs=0.05)
    assert term.value == pytest.approx(2400 + expected_normal_max(250) * 2 * 50)
    # no spread at all: every micro-batch is 4 x 600
    assert padding_free_peak(_t(), data.model_copy(update={"tokens_std": 0.0})).value == pytest.approx(2400)


def test_a_spread_beyond_what_the_lengths_allow_is_capped() -> None:
    # lengths in [0, 2048] with mean 600 have a variance of at most 600 x (2048 - 600) (Bhatia & Davis 2000)
    cap = math.sqrt(600 * 1448)
    assert spread_std(600, 2048, 10**8) == pytest.approx(cap) and spread_std(600, 2048, 300) == 300
    data = Dataset(examples=400, tokens_per_example=600, tokens_std=10**8, epochs=1)
    assert padding_free_peak(_t(), data).part("std") == pytest.approx(cap)
    r = estimate(_scenario(_t(), data))
    assert "plan.tokens_std_capped" in {n.code for n in r.messages}


def test_without_flashattention_the_row_is_one_sequence() -> None:
    # SDPA and eager see the flattened row as one sequence: memory of one row of the largest sum, attention over the
    # micro-batch's 4 x 600 tokens (keys per query (2,400 + 1) / 2)
    data = Dataset(examples=400, tokens_per_example=600, tokens_std=300, epochs=1)
    s = catalog.default_scenario()
    t = _t(attention="eager")
    free, _ = estimate_memory(s.model, t, s.gpu, data)
    peak = math.ceil(padding_free_peak(t, data).value)
    one_row, _ = estimate_memory(s.model, t.model_copy(update={"sequence_mode": "fixed", "micro_batch": 1,
                                                               "seq_len": peak}), s.gpu)
    assert free.peak_allocated_bytes == pytest.approx(one_row.peak_allocated_bytes)
    r = estimate(_scenario(_t(attention="sdpa"), data))
    att = next(term for term in r.time.step_terms if term.key == "attention")
    assert att.part("keys_per_query") == pytest.approx(2401 / 2)


def test_no_batch_exceeds_micro_batch_times_the_longest() -> None:
    # 4 x 2,000 + 2.50759 x 2 x 1,000 = 13,015 > 4 x 2,048 = 8,192
    data = Dataset(examples=400, tokens_per_example=2000, tokens_std=1000, epochs=1)
    assert padding_free_peak(_t(), data).value == 4 * 2048


def test_without_the_spread_the_bound_is_micro_batch_times_seq_len() -> None:
    for data in (None, Dataset(examples=400, tokens_per_example=600, epochs=1),
                 Dataset(total_tokens=1e6, tokens_per_example=600, tokens_std=300, epochs=1)):
        term = padding_free_peak(_t(), data)
        assert (term.key, term.value) == ("padding_free_bound", 4 * 2048)
    # micro-batch 1: the one example, at most seq_len
    assert padding_free_peak(_t(micro_batch=1), Dataset(tokens_std=300)).value == 2048
    # a counted longest example bounds every one: 4 x 1,500
    assert padding_free_peak(_t(), Dataset(examples=400, tokens_per_example=600, longest_tokens=1500)).value == 6000


def test_memory_is_that_of_rows_of_the_largest_sum() -> None:
    s = catalog.default_scenario()
    data = Dataset(examples=400, tokens_per_example=600, tokens_std=300, epochs=1)
    t = _t()
    free, _ = estimate_memory(s.model, t, s.gpu, data)
    # ceil(3,904.55 / 4) = 977 tokens per row: four rows of 977 hold what one flattened row of 3,905 holds
    rows = t.model_copy(update={"sequence_mode": "dynamic", "seq_len": 977})
    padded, _ = estimate_memory(s.model, rows, s.gpu)
    assert free.batch_tokens == 4 * 977 and free.batch_term is not None
    assert free.peak_allocated_bytes == pytest.approx(padded.peak_allocated_bytes)
    # without the dataset the bound: packed rows of seq_len
    bound, _ = estimate_memory(s.model, t, s.gpu)
    packed, _ = estimate_memory(s.model, t.model_copy(update={"sequence_mode": "packed"}), s.gpu)
    assert bound.peak_allocated_bytes == pytest.approx(packed.peak_allocated_bytes)
    assert bound.batch_term is not None and bound.batch_term.key == "padding_free_bound"
    assert free.total_bytes < bound.total_bytes
    # the batch's row changes length every step: the allocator keeps blocks of earlier shapes, as under dynamic
    # padding (LoRA/QLoRA: DYNAMIC_SHAPE_CACHE 1.0 x the transient memory, while the card has room)
    assert free.cache_bytes > 0 and packed.cache_bytes == 0


def test_time_counts_each_examples_own_tokens() -> None:
    data = Dataset(examples=400, tokens_per_example=600, tokens_std=300, epochs=2)
    t = _t()
    assert tokens_per_row(t, data) == 600  # no padding
    computed, real, note = computed_tokens(t, data)
    assert computed == real == 400 * 600 * 2 and note == ""
    # truncated at seq_len: 3,000-token examples train 2,048 each
    long = data.model_copy(update={"tokens_per_example": 3000})
    assert computed_tokens(t, long)[0] == 400 * 2048 * 2 and computed_tokens(t, long)[2]


def test_attention_sees_each_example_alone() -> None:
    # varlen attention: keys per query = (E[l^2] / E[l] + 1) / 2 = (600 + 300^2 / 600 + 1) / 2 = (750 + 1) / 2
    data = Dataset(examples=400, tokens_per_example=600, tokens_std=300, epochs=1)
    r = estimate(_scenario(_t(), data))
    att = next(term for term in r.time.step_terms if term.key == "attention")
    assert att.part("keys_per_query") == pytest.approx(375.5)
    # spread unknown: the mean example, (600 + 1) / 2
    r0 = estimate(_scenario(_t(), data.model_copy(update={"tokens_std": None})))
    att0 = next(term for term in r0.time.step_terms if term.key == "attention")
    assert att0.part("keys_per_query") == pytest.approx(300.5)


def test_the_slowest_gpu_draws_the_largest_sum() -> None:
    data = Dataset(examples=4000, tokens_per_example=600, tokens_std=300, epochs=1)
    # 4 FSDP GPUs: 600 + e_4 x 300 / sqrt(4) = 600 + 1.02938 x 150 tokens per example
    assert slowest_rank_row(_t(num_gpus=4, sharding="fsdp"), data) == pytest.approx(600 + 1.02938 * 150, abs=0.05)
    # DDP meets once per step of 4 micro-batches: the excess / sqrt(4)
    ddp = _t(num_gpus=4, sharding="ddp", grad_accumulation=4)
    assert slowest_rank_row(ddp, data) == pytest.approx(600 + 1.02938 * 75, abs=0.05)
    assert slowest_rank_row(_t(num_gpus=4, sharding="fsdp"), data.model_copy(update={"tokens_std": None})) is None
    # micro-batch 1: the longest of 8 examples, 600 + e_8 x 300 (e_8 = 1.42360, Harter 1961)
    assert slowest_rank_row(_t(num_gpus=8, sharding="ddp", micro_batch=1), data) == pytest.approx(
        600 + 1.42360 * 300, abs=0.1)


def test_notes_say_when_the_size_is_a_bound_and_when_the_kernel_cannot_separate_examples() -> None:
    r = estimate(_scenario(_t(attention="sdpa"), Dataset(examples=400, tokens_per_example=600, epochs=1)))
    codes = {n.code for n in r.messages}
    assert {"plan.padding_free_bound", "plan.padding_free_attention"} <= codes
    r = estimate(_scenario(_t(), Dataset(examples=400, tokens_per_example=600, tokens_std=300, epochs=1)))
    assert not {"plan.padding_free_bound", "plan.padding_free_attention"} & {n.code for n in r.messages}


def test_counting_a_file_gives_the_spread_and_the_longest_example() -> None:
    # kept 100, 300, 500 about 300: sqrt((200^2 + 0 + 200^2) / 3)
    stats = length_stats([100, 300, 500], _t(seq_len=1000))
    assert stats.std_kept_tokens == pytest.approx(math.sqrt(80_000 / 3))
    u = dataset_updates(stats)
    assert u["dataset.tokens_std"] == round(math.sqrt(80_000 / 3), 2) and u["dataset.longest_tokens"] == 500
    assert u["training.seq_len"] == 500  # nothing is cut below the longest: it is the longest row
    assert "lengths.padding_free_longest" in {n.code for n in stats.notes}


def test_trl_and_ms_swift_padding_free_import_as_padding_free() -> None:
    trl = map_training_config({"padding_free": True, "max_length": None, "per_device_train_batch_size": 8}, "hf")
    assert trl.updates["training.sequence_mode"] == "padding-free"
    swift = map_training_config({"model": "Qwen/Qwen2.5-7B", "tuner_type": "lora", "padding_free": True}, "swift")
    assert swift.updates["training.sequence_mode"] == "padding-free"


def test_exports_write_padding_free_where_the_stack_has_it() -> None:
    base = catalog.default_scenario()
    s = base.model_copy(update={"training": _t(seq_len=4096)})
    trl = export_config(s, "trl", model_ref="meta-llama/Llama-3.1-8B")
    # SFTTrainer refuses padding_free without packing when max_length is set (trl@f2cd577 sft_trainer.py)
    assert (trl.document["padding_free"], trl.document["packing"], trl.document["max_length"]) == (True, False, None)
    assert "export.padding_free_truncate" in trl.codes
    swift = export_config(s, "ms-swift", model_ref="meta-llama/Llama-3.1-8B")
    assert (swift.document["padding_free"], swift.document["packing"]) == (True, False)
    for fmt in ("llama-factory", "axolotl", "torchtune"):
        assert "export.not_expressible" in export_config(s, fmt, model_ref="meta-llama/Llama-3.1-8B").codes
