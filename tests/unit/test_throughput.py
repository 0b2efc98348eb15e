"""Training time: FLOPs per token, MFU defaults, scaling, dataset tokens and phases, by hand.

References: shared/reference/throughput.md ("TP §n"). Llama-3.1-8B shapes (config.json): 32 layers,
hidden 4096, 32 query heads x 128 = 4096, 8 KV heads x 128 = 1024, intermediate 14336, vocab 128256.
"""

from __future__ import annotations

import math

import pytest

from tuneplan import catalog
from tuneplan.core.scenario import Dataset, Pricing, TrainingSetup
from tuneplan.core.throughput import (
    CPU_OFFLOAD_FACTOR,
    QLORA_TIME_FACTOR,
    computed_tokens,
    default_mfu,
    effective_peak_tflops,
    estimate_time,
    flops_per_token,
    gpu_class,
    scaling_efficiency,
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


def test_worked_example_lora_8b_on_h100(llama8b):
    """TP §7: LoRA Llama-3.1-8B, 50 M packed tokens x 3 epochs, seq 4096, 1x H100 SXM (989 TFLOPS), MFU 0.35.

    TP §7 uses N = 8.03e9 (all parameters): F = 4N + 12*32*4096*4096 = 32.1e9 + 6.4e9 = 38.5e9 and
    T = 1.5e8 * 38.5e9 / (989e12 * 0.35) = 16,700 s = 4.6 h.
    Tuneplan counts the weights a token is *multiplied* by (the input embedding is a lookup):
    N = 7,504,658,432, F = 4 * 7.5047e9 + 6.4425e9 = 36.461e9 and
    T = 1.5e8 * 36.461e9 / (989e12 * 0.35) = 5.469e18 / 3.4615e14 = 15,800 s = 4.39 h.
    With an MFU override the time is model FLOPs / (spec peak x MFU): no checkpointing factor.
    """
    flops = 4 * N_8B + attn(4096)
    expected_s = 1.5e8 * flops / (989e12 * 0.35)
    assert expected_s == pytest.approx(15_800, rel=2e-3)
    te = _time(llama8b, method="lora", mfu_override=0.35, data=Dataset(total_tokens=5e7, epochs=3))
    assert te.tokens_total == pytest.approx(1.5e8)
    assert te.flops_per_token == pytest.approx(flops)
    assert te.phases["training"] == pytest.approx(expected_s, rel=1e-9)
    assert te.phases["training"] / 3600 == pytest.approx(4.39, abs=0.01)
    assert te.mfu == pytest.approx(0.35)
    assert te.bound == "compute"
    # the TP §7 accounting with N = 8.03e9 gives 4.6 h; ours is 5 % shorter for the embedding lookup
    assert 1.5e8 * (4 * 8.03e9 + attn(4096)) / (989e12 * 0.35) / 3600 == pytest.approx(4.64, abs=0.01)


def test_default_mfu_table_cells():
    # TP §6 cells
    h100, a100, g4090, l4 = (catalog.get_gpu(g) for g in ("h100_sxm", "a100_80gb_sxm", "rtx4090", "l4"))
    assert default_mfu(TrainingSetup(method="lora", framework="optimized"), h100) == 0.35
    assert default_mfu(TrainingSetup(method="lora", framework="hf"), h100) == 0.22
    assert default_mfu(TrainingSetup(method="full", framework="optimized"), a100) == 0.50
    assert default_mfu(TrainingSetup(method="lora", framework="optimized"), g4090) == 0.40
    assert default_mfu(TrainingSetup(method="qlora", framework="hf"), l4) == 0.18
    # full FT on plain HF: 0.50 * (0.25 / 0.38) = 0.3289 on A100
    assert default_mfu(TrainingSetup(method="full", framework="hf"), a100) == pytest.approx(0.50 * 0.25 / 0.38)
    # long context: x 0.75 from 16k
    assert default_mfu(TrainingSetup(method="lora", framework="optimized", seq_len=16384), h100) == pytest.approx(0.2625)
    assert default_mfu(TrainingSetup(method="lora", framework="optimized", seq_len=16383), h100) == 0.35
    assert [gpu_class(catalog.get_gpu(g)) for g in ("h200", "b200", "l40s", "mi300x", "t4", "rtx3090")] == [
        "h100", "b200", "pro", "amd", "capped", "geforce"]


def test_effective_peak_rebases_by_measured_ceiling():
    # H100 PCIe: spec 756, measured 495.9; the H100 column was set on the SXM (0.803 of spec):
    # 756 * (495.9 / 756) / 0.803 = 617.6 TFLOPS
    assert effective_peak_tflops(catalog.get_gpu("h100_pcie")) == pytest.approx(495.9 / 0.803)
    # pro-PCIe column is stated against spec: L40S stays at 362.05
    assert effective_peak_tflops(catalog.get_gpu("l40s")) == pytest.approx(362.05)
    # T4 has no BF16: FP16 65 TFLOPS, the (emulated) bf16 measurement is not used
    assert effective_peak_tflops(catalog.get_gpu("t4")) == pytest.approx(65.0)
    # FP32 training: TF32 taken as half the BF16 rate (L40S, not re-based: 181.025)
    assert effective_peak_tflops(catalog.get_gpu("l40s"), "fp32") == pytest.approx(181.025)


def test_default_time_with_and_without_checkpointing(llama8b):
    # L40S (pro column, not re-based), LoRA optimized: u = 0.35, peak 362.05e12.
    # The default MFU is model-FLOPs MFU *with* checkpointing: time per token = F_model / (peak u).
    f_model = 4 * N_8B + attn(4096)
    per_token_ac = f_model / (362.05e12 * 0.35)
    te = _time(llama8b, "l40s", method="lora", framework="optimized", grad_checkpointing=True)
    assert te.phases["training"] == pytest.approx(1e8 * per_token_ac)
    # without it the recomputed forward (2N + 4 L d s) is saved at the same hardware utilisation
    f_hw_ac = f_model + 2 * N_8B + attn(4096) / 3
    te_off = _time(llama8b, "l40s", method="lora", framework="optimized", grad_checkpointing=False)
    assert te_off.phases["training"] == pytest.approx(1e8 * per_token_ac * f_model / f_hw_ac)
    # QLoRA: x 1.25 on LoRA time
    te_q = _time(llama8b, "l40s", method="qlora", framework="optimized", grad_checkpointing=True)
    assert te_q.phases["training"] == pytest.approx(te.phases["training"] * QLORA_TIME_FACTOR)


def test_mfu_override_wins(llama8b):
    te = _time(llama8b, "rtx4090", method="qlora", mfu_override=0.5, seq_len=32768, micro_batch=1)
    # no QLoRA, checkpointing or long-context factor: 1e8 * F / (165.2e12 * 0.5)
    f = 4 * N_8B + attn(32768)
    assert te.phases["training"] == pytest.approx(1e8 * f / (165.2e12 * 0.5))
    assert te.mfu == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("gpu_id", "n", "method", "sharding", "eta"),
    [
        ("h100_sxm", 1, "full", "none", 1.0),
        ("h100_sxm", 8, "full", "fsdp", 0.95),  # NVLink/NVSwitch node
        ("h100_sxm", 16, "full", "fsdp", 0.90),  # multi-node InfiniBand
        ("rtx4090", 2, "lora", "ddp", 0.90),  # PCIe, tiny LoRA gradients
        ("rtx4090", 2, "lora", "fsdp", 0.60),  # PCIe, sharded weights gathered every pass
        ("rtx4090", 4, "full", "zero3", 0.60),
        ("rtx4090", 4, "full", "ddp", 0.70),
        ("rtx3090", 2, "full", "zero2", 0.70),  # a 2-way bridge is not an NVSwitch
        ("rtx4090", 4, "lora", "none", 0.25),  # layers split across GPUs: one busy at a time
    ],
)
def test_scaling_efficiency(gpu_id, n, method, sharding, eta):
    t = TrainingSetup(method=method, num_gpus=n, sharding=sharding)
    assert scaling_efficiency(t, catalog.get_gpu(gpu_id)) == pytest.approx(eta)


def test_multi_gpu_and_offload_scale_training_time(llama8b):
    one = _time(llama8b, "h100_sxm", method="lora", framework="optimized")
    eight = _time(llama8b, "h100_sxm", method="lora", framework="optimized", num_gpus=8, sharding="ddp")
    # 8 GPUs at eta 0.95: time / (8 * 0.95)
    assert eight.phases["training"] == pytest.approx(one.phases["training"] / (8 * 0.95))
    assert eight.tokens_per_second == pytest.approx(one.tokens_per_second * 0.95)
    off = _time(llama8b, "h100_sxm", method="lora", framework="optimized", cpu_offload=True)
    assert off.phases["training"] == pytest.approx(one.phases["training"] / CPU_OFFLOAD_FACTOR)


def test_small_micro_batch_is_memory_bound(llama8b):
    # 16 tokens per micro-batch on an RTX 3060 (360 GB/s), LoRA with checkpointing: 3 passes x
    # 8.03e9 params x 2 B = 48.18 GB streamed -> 0.1338 s per micro-batch -> 16 / 0.1338 = 119.6 tok/s
    te = _time(llama8b, "rtx3060_12gb", method="lora", micro_batch=1, seq_len=16, grad_checkpointing=True)
    stream_s = 3 * llama8b.parameter_count() * 2 / 360e9
    assert te.bound == "memory"
    assert te.tokens_per_second == pytest.approx(16 / stream_s)
    assert any("memory-bound" in n for n in te.notes)


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


def test_eval_fraction_runs_a_forward_pass(llama8b):
    base = dict(method="lora", framework="optimized", grad_checkpointing=True)
    data = Dataset(total_tokens=1e8, epochs=2, eval_fraction=0.1)
    te = _time(llama8b, "l40s", data=data, **base)
    # 0.1 x 1e8 tokens x 2 epochs at forward FLOPs 2N + 4 L d s and the training utilisation
    u = 0.35 * (4 * N_8B + attn(4096) + 2 * N_8B + attn(4096) / 3) / (4 * N_8B + attn(4096))
    fwd = 2 * N_8B + attn(4096) / 3
    assert te.phases["evaluation"] == pytest.approx(2e7 * fwd / (362.05e12 * u))


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
    # and that waste takes time at the same hardware rate: time x hw_m / hw
    a = _time(llama8b, method="lora", num_gpus=8, sharding="fsdp")
    b = _time(llama8b, method="lora", num_gpus=8, sharding="fsdp", fsdp_wrap="blocks-with-adapters")
    f_hw = 4 * N_8B + attn(4096) + 2 * N_8B + attn(4096) / 3  # checkpointing on (the default)
    assert b.phases["training"] / a.phases["training"] == pytest.approx((f_hw + 2 * 32 * LAYER) / f_hw)
    assert any("frozen weights' gradients" in n for n in b.notes)
