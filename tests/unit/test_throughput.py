"""Training time: FLOPs per token, dataset tokens, phases, checkpoints and the step model's wiring, by hand.

References: shared/reference/throughput.md ("TP §n"). Llama-3.1-8B shapes (config.json): 32 layers,
hidden 4096, 32 query heads x 128 = 4096, 8 KV heads x 128 = 1024, intermediate 14336, vocab 128256.
"""

from __future__ import annotations

import math

import pytest

from tuneplan import catalog
from tuneplan.core.scenario import Dataset, Pricing, TrainingSetup
from tuneplan.core.steptime import step_time
from tuneplan.core.throughput import (
    MEASURED_TIME_ERROR,
    computed_tokens,
    estimate_time,
    flops_per_token,
    slowest_rank_row,
    tokens_per_row,
)

# N = matmul weights per token: per layer q 4096*4096 + k 4096*1024 + v 4096*1024 + o 4096*4096
#     + gate/up/down 3 * 4096*14336, times 32 layers, plus the LM head 128256*4096.
LAYER = 4096 * 4096 + 4096 * 1024 + 4096 * 1024 + 4096 * 4096 + 3 * 4096 * 14336  # 218,103,808
N_8B = 32 * LAYER + 128256 * 4096  # 6,979,321,856 + 525,336,576 = 7,504,658,432


def attn(seq: int) -> float:
    """12 * L * d * s (TP §2, PaLM App. B accounting: the full s x s score matrix)."""
    return 12.0 * 32 * 4096 * seq


@pytest.fixture(scope="module")
def llama8b():
    return catalog.get_model("llama-3.1-8b").architecture


def _time(arch, gpu_id="h100_sxm", pricing=None, data=None, **training):
    t = TrainingSetup(**{"micro_batch": 4, "seq_len": 4096, **training})
    data = data or Dataset(total_tokens=1e8, epochs=1)
    pricing = pricing or Pricing(setup_minutes=0, checkpoint_count=0)
    return estimate_time(arch, t, data, catalog.get_gpu(gpu_id), pricing, checkpoint_bytes=0.0)


def test_matmul_params_of_llama_3_1_8b(llama8b):
    assert llama8b.matmul_params_per_token() == N_8B == 7_504_658_432


def test_flops_per_token_by_method(llama8b):
    # full: 6N + 12 L d s; LoRA/QLoRA: 4N + 12 L d s; checkpointing adds 2N + 4 L d s (one forward)
    s = 4096
    for method, k in (("full", 6), ("lora", 4), ("qlora", 4)):
        model, hw = flops_per_token(llama8b, TrainingSetup(method=method, seq_len=s, grad_checkpointing=True))
        assert model == pytest.approx(k * N_8B + attn(s))
        assert hw == pytest.approx(model + 2 * N_8B + attn(s) / 3)
        model2, hw2 = flops_per_token(llama8b, TrainingSetup(method=method, seq_len=s, grad_checkpointing=False))
        assert model2 == hw2 == pytest.approx(model)
    # LoRA at 4k: 4 * 7.5047e9 + 6.4425e9 = 36.46e9 FLOPs per token
    assert flops_per_token(llama8b, TrainingSetup(method="lora", seq_len=4096))[0] == pytest.approx(36.461e9, rel=1e-4)


def test_dataset_tokens_packing_padding_and_epochs():
    data = Dataset(examples=1000, tokens_per_example=512, epochs=2, padding_efficiency=0.8)
    # packed: 1000 x 512 x 2 = 1,024,000 tokens, no padding
    assert computed_tokens(TrainingSetup(sequence_mode="packed", seq_len=2048), data)[0] == 1_024_000
    # fixed: each example padded to 2048: 1000 x 2048 x 2 = 4,096,000 computed, 1,024,000 real
    comp, real, _ = computed_tokens(TrainingSetup(sequence_mode="fixed", seq_len=2048), data)
    assert (comp, real) == (4_096_000, 1_024_000)
    # dynamic with micro-batch 4: padding efficiency 0.8 -> 1,024,000 / 0.8 = 1,280,000
    assert computed_tokens(TrainingSetup(sequence_mode="dynamic", micro_batch=4), data)[0] == pytest.approx(1_280_000)
    # total_tokens replaces examples x tokens_per_example
    data2 = Dataset(total_tokens=5e6, epochs=3)
    assert computed_tokens(TrainingSetup(sequence_mode="packed"), data2)[0] == pytest.approx(1.5e7)


def test_phases_setup_download_eval_checkpoints(llama8b):
    pricing = Pricing(setup_minutes=10, download_gbps=0.5, dataset_prep_minutes=5, eval_minutes=2,
                      checkpoint_count=3, disk_write_gbps=1.0, checkpoint_every_min=100_000)
    te = estimate_time(llama8b, TrainingSetup(method="lora", seq_len=4096, micro_batch=4),
                       Dataset(total_tokens=1e8, epochs=1, eval_fraction=0.0), catalog.get_gpu("h100_sxm"),
                       pricing, checkpoint_bytes=2e9)
    assert set(te.phases) == {"setup", "training", "evaluation", "checkpoints"}
    # setup: 10 min + 8,030,261,248 params x 2 B / 0.5e9 B/s (32.1 s) + 5 min = 932.12 s
    assert te.phases["setup"] == pytest.approx(600 + 8_030_261_248 * 2 / 0.5e9 + 300)
    assert te.phases["evaluation"] == pytest.approx(120)
    # checkpoints: 3 x 2e9 B / 1e9 B/s = 6 s
    assert te.phases["checkpoints"] == pytest.approx(6.0)
    assert te.seconds == pytest.approx(sum(te.phases.values()))


def test_gpu_without_tensor_rate_raises(llama8b):
    gpu = catalog.get_gpu("t4").model_copy(update={"fp16_tflops": 0.0})
    with pytest.raises(ValueError, match="TFLOPS"):
        estimate_time(llama8b, TrainingSetup(), Dataset(), gpu, Pricing(), 0.0)


def test_dynamic_padding_counts_one_example_per_row(llama8b):
    # 1,000 examples of 512 tokens, seq_len 2048, one epoch, no accumulation, one GPU:
    #   packed: 512,000 tokens / 2,048 per micro-batch = 250 steps
    #   dynamic, micro-batch 1: each row is one example (no padding) -> 1,000 steps
    #   dynamic, micro-batch 4, padding efficiency 0.8: rows padded to ~512/0.8 = 640 tokens,
    #     640,000 computed tokens / (4 x 640) = 250 steps
    data = Dataset(examples=1000, tokens_per_example=512, epochs=1, padding_efficiency=0.8)
    packed = _time(llama8b, data=data, method="lora", micro_batch=1, seq_len=2048, sequence_mode="packed")
    dyn1 = _time(llama8b, data=data, method="lora", micro_batch=1, seq_len=2048, sequence_mode="dynamic")
    dyn4 = _time(llama8b, data=data, method="lora", micro_batch=4, seq_len=2048, sequence_mode="dynamic")
    assert packed.steps == 250
    assert dyn1.steps == 1000 and dyn1.tokens_total == 512_000
    assert dyn4.tokens_total == pytest.approx(640_000) and dyn4.steps == 250


def test_checkpoint_saves_follow_the_interval(llama8b):
    # at least checkpoint_count saves; one per interval of training time when that is more
    data = Dataset(total_tokens=1e8, epochs=1, eval_fraction=0.0)
    gpu = catalog.get_gpu("h100_sxm")
    t = TrainingSetup(method="lora", seq_len=4096, micro_batch=4)
    every = Pricing(setup_minutes=0, checkpoint_count=1, checkpoint_every_min=10, disk_write_gbps=1.0)
    te = estimate_time(llama8b, t, data, gpu, every, checkpoint_bytes=2e9)
    saves = math.ceil(te.phases["training"] / 600)  # one per 10 minutes of training
    assert saves > 1 and te.checkpoint_saves == saves
    assert te.phases["checkpoints"] == pytest.approx(saves * 2e9 / 1e9)
    never = estimate_time(llama8b, t, data, gpu, every.model_copy(update={"checkpoint_count": 0}), 2e9)
    assert never.checkpoint_saves == 0 and never.phases["checkpoints"] == 0


def test_dynamic_padding_truncates_long_examples_to_seq_len(llama8b):
    # 1,000 examples of 4,096 tokens at seq_len 2,048: every row is cut to 2,048 tokens
    #   micro-batch 1: 1,000 rows of 2,048 = 2,048,000 tokens, 1,000 steps
    #   micro-batch 4: rows cannot be padded past seq_len either: 250 steps of 4 x 2,048
    data = Dataset(examples=1000, tokens_per_example=4096, epochs=1, padding_efficiency=0.8)
    one = _time(llama8b, data=data, method="lora", micro_batch=1, seq_len=2048, sequence_mode="dynamic")
    four = _time(llama8b, data=data, method="lora", micro_batch=4, seq_len=2048, sequence_mode="dynamic")
    assert one.tokens_total == 2_048_000 and one.steps == 1000
    assert four.tokens_total == 2_048_000 and four.steps == 250
    assert any("truncated to seq_len 2048" in n for n in one.notes)


def test_sharded_checkpoints_are_written_by_every_rank(llama8b):
    # 3 saves of 8e9 B at 1 GB/s: 24 s from one writer (DDP: rank 0 saves everything); FSDP on 4 GPUs
    # saves each rank's shard at the same time: 6 s
    pricing = Pricing(setup_minutes=0, checkpoint_count=3, checkpoint_every_min=100_000, disk_write_gbps=1.0)
    data = Dataset(total_tokens=1e7, epochs=1)
    gpu = catalog.get_gpu("h100_sxm")
    ddp = estimate_time(llama8b, TrainingSetup(method="full", num_gpus=4, sharding="ddp"), data, gpu, pricing, 8e9)
    fsdp = estimate_time(llama8b, TrainingSetup(method="full", num_gpus=4, sharding="fsdp"), data, gpu, pricing, 8e9)
    assert ddp.phases["checkpoints"] == pytest.approx(24.0)
    assert fsdp.phases["checkpoints"] == pytest.approx(6.0) and fsdp.checkpoint_writers == 4


def test_mixed_fsdp_units_compute_the_frozen_weights_gradients(llama8b):
    # LoRA under FSDP with adapters in their layer's unit: autograd computes dW for every frozen layer weight,
    # 2 x 32 x 218,103,808 = 13,958,643,712 more hardware FLOPs per token (the LM head, in the root unit, stays
    # frozen); model FLOPs (what MFU counts) are unchanged
    base = dict(method="lora", seq_len=4096, num_gpus=8, sharding="fsdp")
    model, hw = flops_per_token(llama8b, TrainingSetup(**base))
    model_m, hw_m = flops_per_token(llama8b, TrainingSetup(**base, fsdp_wrap="blocks-with-adapters"))
    assert model_m == model and hw_m - hw == pytest.approx(2 * 32 * LAYER) == 13_958_643_712
    # and the step model computes those weight-gradient GEMMs: 2 x 32 x LAYER x tokens more matmul FLOPs per
    # micro-batch of 4 x 4096 tokens
    a = _time(llama8b, method="lora", num_gpus=8, sharding="fsdp")
    b = _time(llama8b, method="lora", num_gpus=8, sharding="fsdp", fsdp_wrap="blocks-with-adapters")
    extra = b.term("matmul").part("flops") - a.term("matmul").part("flops")
    assert extra == pytest.approx(2 * 32 * LAYER * 4 * 4096)
    assert b.phases["training"] > a.phases["training"]


def test_training_phase_is_tokens_over_the_step_models_rate(llama8b):
    # the training phase is computed tokens / (GPUs x tokens per step / step seconds), from the step model
    gpu = catalog.get_gpu("l40s")
    t = TrainingSetup(method="lora", micro_batch=2, seq_len=4096, grad_accumulation=4, framework="hf")
    st = step_time(llama8b, t, gpu, 4096.0)
    te = estimate_time(llama8b, t, Dataset(total_tokens=1e8, epochs=1), gpu, Pricing(setup_minutes=0,
                       checkpoint_count=0), checkpoint_bytes=0.0)
    assert st.tokens == 2 * 4096 * 4
    assert te.step_seconds == pytest.approx(st.seconds)
    assert te.tokens_per_second == pytest.approx(st.tokens / st.seconds)
    assert te.phases["training"] == pytest.approx(1e8 / te.tokens_per_second)
    assert te.steps == math.ceil(1e8 / st.tokens)
    # the terms add up to the step
    assert sum(term.value for term in te.step_terms) == pytest.approx(te.step_seconds)
    # MFU is an output: model FLOPs achieved / spec peak (362.05 TFLOPS)
    assert te.mfu == pytest.approx(te.tokens_per_second * te.flops_per_token / 362.05e12)


def test_likely_range_scales_the_training_phase_only(llama8b):
    te = _time(llama8b, "h100_sxm", method="lora", data=Dataset(total_tokens=1e8, epochs=1),
               pricing=Pricing(setup_minutes=10, checkpoint_count=0))
    low_f, high_f = MEASURED_TIME_ERROR
    other = te.seconds - te.phases["training"]
    assert other == pytest.approx(600 + 8_030_261_248 * 2 / (Pricing().download_gbps * 1e9))
    assert te.low_seconds == pytest.approx(other + te.phases["training"] / high_f)
    assert te.high_seconds == pytest.approx(other + te.phases["training"] / low_f)
    assert te.tokens_per_second_low == pytest.approx(te.tokens_per_second * low_f)


def test_mfu_override_replaces_the_step_model(llama8b):
    te = _time(llama8b, "rtx4090", method="qlora", mfu_override=0.5, seq_len=32768, micro_batch=1)
    # 1e8 tokens x F / (165.2e12 x 0.5), F = 4N + 12 L d s
    f = 4 * N_8B + attn(32768)
    assert te.phases["training"] == pytest.approx(1e8 * f / (165.2e12 * 0.5))
    assert te.mfu == pytest.approx(0.5)
    assert any(n.code == "time.mfu_override" for n in te.messages)


def test_layers_split_across_gpus_run_one_at_a_time(llama8b):
    one = _time(llama8b, "rtx4090", method="qlora", micro_batch=1, seq_len=2048)
    four = _time(llama8b, "rtx4090", method="qlora", micro_batch=1, seq_len=2048, num_gpus=4, sharding="none")
    # each GPU idles while the other three run their layers: per-GPU throughput / 4, same wall clock; one model
    # replica, so the step (what a pilot run measures) and the number of steps are the single GPU's
    assert four.tokens_per_second == pytest.approx(one.tokens_per_second / 4)
    assert four.phases["training"] == pytest.approx(one.phases["training"])
    assert four.step_seconds == pytest.approx(one.step_seconds) and four.steps == one.steps
    assert sum(term.value for term in four.step_terms) == pytest.approx(four.step_seconds)


def test_dynamic_rows_feed_the_step_model(llama8b):
    data = Dataset(examples=1000, tokens_per_example=512, epochs=1, padding_efficiency=0.8)
    t = TrainingSetup(method="lora", micro_batch=4, seq_len=2048, sequence_mode="dynamic")
    assert tokens_per_row(t, data) == pytest.approx(640.0)
    te = _time(llama8b, data=data, method="lora", micro_batch=4, seq_len=2048, sequence_mode="dynamic")
    assert te.tokens_per_step == pytest.approx(4 * 640.0)


def test_cost_band_prices_the_likely_range():
    # 2 USD per GPU-hour billed per second, nothing else charged: cost = 2 x hours at each end of the range
    from tuneplan.core.estimate import estimate

    s = catalog.default_scenario()
    pricing = s.pricing.model_copy(update={"price_per_gpu_hour": 2.0, "billing": "second", "storage_gb": 0.0,
                                           "egress_gb": 0.0, "other_usd": 0.0, "minimum_billed_minutes": 0.0,
                                           "interruptions_per_hour": 0.0, "failure_probability": 0.0})
    r = estimate(s.model_copy(update={"pricing": pricing}))
    assert r.cost.total_usd == pytest.approx(2.0 * r.time.seconds / 3600, rel=1e-3)
    assert r.cost.low_usd == pytest.approx(2.0 * r.time.low_seconds / 3600, rel=1e-3)
    assert r.cost.high_usd == pytest.approx(2.0 * r.time.high_seconds / 3600, rel=1e-3)
    assert r.cost.low_usd < r.cost.total_usd < r.cost.high_usd


def _dyn(**kw):
    return TrainingSetup(**{"method": "full", "micro_batch": 2, "seq_len": 1000, "sequence_mode": "dynamic",
                            "num_gpus": 4, "sharding": "fsdp", **kw})


def test_slowest_rank_row_is_the_longest_of_the_steps_examples():
    # 300-token examples, each GPU's batch padded to 300 / 0.6 = 500 on average; the longest of all 4 GPUs'
    # batches 300 / 0.4 = 750 tokens per row
    data = Dataset(examples=1000, tokens_per_example=300, padding_efficiency=0.6, rank_padding_efficiency=0.4)
    assert tokens_per_row(_dyn(), data) == pytest.approx(500)
    assert slowest_rank_row(_dyn(), data) == pytest.approx(750)
    assert slowest_rank_row(_dyn(sharding="zero2", grad_accumulation=4), data) == pytest.approx(750)
    # DDP meets once per step under no_sync: the excess of the largest sum of 4 rows is sqrt(4) times the
    # single-row excess, per row 250 / 2: 500 + 125 = 625
    assert slowest_rank_row(_dyn(sharding="ddp", grad_accumulation=4), data) == pytest.approx(625)
    assert slowest_rank_row(_dyn(sharding="ddp", grad_accumulation=1), data) == pytest.approx(750)
    # capped at seq_len: 300 / 0.2 = 1,500 -> 1,000
    capped = data.model_copy(update={"rank_padding_efficiency": 0.2})
    assert slowest_rank_row(_dyn(), capped) == pytest.approx(1000)
    # no slower GPU: one GPU, layers split without data parallelism, packed or fixed rows, total tokens,
    # no known spread (1.0), or a spread no wider than one GPU's batch
    for t, d in ((_dyn(num_gpus=1, sharding="none"), data), (_dyn(sharding="none"), data),
                 (_dyn(sequence_mode="packed"), data), (_dyn(sequence_mode="fixed"), data),
                 (_dyn(), data.model_copy(update={"rank_padding_efficiency": 1.0})),
                 (_dyn(), data.model_copy(update={"rank_padding_efficiency": 0.6})),
                 (_dyn(), Dataset(total_tokens=1e6, padding_efficiency=0.6, rank_padding_efficiency=0.4))):
        assert slowest_rank_row(t, d) is None


def test_the_step_is_timed_at_the_slowest_row_and_counts_the_average(llama8b):
    gpu = catalog.get_gpu("a100_80gb_sxm")
    data = Dataset(examples=1000, tokens_per_example=300, epochs=1, padding_efficiency=0.6,
                   rank_padding_efficiency=0.4)
    t = _dyn(grad_checkpointing=True)
    te = estimate_time(llama8b, t, data, gpu, Pricing(setup_minutes=0, checkpoint_count=0), checkpoint_bytes=0.0)
    slow = step_time(llama8b, t, gpu, 750.0)
    mean = step_time(llama8b, t, gpu, 500.0)
    assert te.step_seconds == pytest.approx(slow.seconds)
    assert te.step_seconds > mean.seconds
    # tokens per step are each GPU's own: 2 rows x 500 tokens; per GPU per second over the slow step
    assert te.tokens_per_step == pytest.approx(2 * 500)
    assert te.tokens_per_second == pytest.approx(2 * 500 / slow.seconds)
    assert any(n.code == "time.slowest_rank" and n.params == {"gpus": 4, "row": 500, "slowest_row": 750}
               for n in te.messages)
    # without a known spread the step is the average row's
    even = estimate_time(llama8b, t, data.model_copy(update={"rank_padding_efficiency": 1.0}), gpu,
                         Pricing(setup_minutes=0, checkpoint_count=0), checkpoint_bytes=0.0)
    assert even.step_seconds == pytest.approx(mean.seconds)
    assert not any(n.code == "time.slowest_rank" for n in even.messages)
