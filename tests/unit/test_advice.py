"""Limits and advice: the reported limit fits and one step more does not; suggestions are honest."""

from __future__ import annotations

import pytest

from tuneplan.catalog import default_scenario, get_gpu, get_model, list_gpus
from tuneplan.core.advice import apply_changes, max_micro_batch, max_seq_len, memory_curve, suggest
from tuneplan.core.compare import missing_support
from tuneplan.core.estimate import estimate
from tuneplan.core.memory import estimate_memory


def _total(s):
    mem, _ = estimate_memory(s.model, s.training, s.gpu)
    return mem


def test_max_seq_len_fits_and_one_more_does_not():
    s = default_scenario()
    limit = max_seq_len(s)
    assert limit > 0
    assert _total(apply_changes(s, {"training.seq_len": limit})).fits
    assert not _total(apply_changes(s, {"training.seq_len": limit + 1})).fits


def test_max_micro_batch_fits_and_one_more_does_not():
    s = default_scenario()
    b = max_micro_batch(s)
    assert b >= 1
    assert _total(apply_changes(s, {"training.micro_batch": b})).fits
    assert not _total(apply_changes(s, {"training.micro_batch": b + 1})).fits


def test_cautious_limits_keep_the_whole_likely_range_on_the_card():
    # The upper end of the likely range is total / (1 - 0.403) (the measured error band, MEASURED_ERROR), so the
    # cautious limit is the longest length whose total is at most 0.597 x capacity
    s = default_scenario()
    assert s.training.sequence_mode == "packed"
    cap = s.gpu.memory_gib * 2**30
    limit, cautious = max_seq_len(s), max_seq_len(s, cautious=True)
    assert 0 < cautious < limit
    assert _total(apply_changes(s, {"training.seq_len": cautious})).total_bytes <= 0.597 * cap
    assert _total(apply_changes(s, {"training.seq_len": cautious + 1})).total_bytes > 0.597 * cap
    b, b_cautious = max_micro_batch(s), max_micro_batch(s, cautious=True)
    assert 0 < b_cautious <= b
    assert _total(apply_changes(s, {"training.micro_batch": b_cautious})).total_bytes <= 0.597 * cap
    assert _total(apply_changes(s, {"training.micro_batch": b_cautious + 1})).total_bytes > 0.597 * cap


def test_full_finetune_on_a_4090_has_advice_that_fits():
    s = default_scenario()
    s = apply_changes(s, {"training.method": "full"})
    assert not estimate(s).memory.fits
    tips = suggest(s, list_gpus())
    assert tips and tips[0].fits  # the best suggestion makes it fit
    after = estimate(apply_changes(s, tips[0].changes))
    # the number shown equals the recomputed one
    assert after.memory.total_bytes == pytest.approx(tips[0].total_bytes)
    assert after.memory.fits
    keys = {t.key for t in tips}
    assert {"lora", "qlora"} <= keys


def test_smaller_micro_batch_keeps_effective_batch():
    s = apply_changes(default_scenario(), {"training.micro_batch": 8, "training.grad_accumulation": 2})
    tip = next(t for t in suggest(s) if t.key == "micro_batch")
    assert tip.changes["training.micro_batch"] * tip.changes["training.grad_accumulation"] == 16


def test_larger_gpu_is_the_smallest_that_fits():
    s = apply_changes(default_scenario(), {"training.method": "full", "model": get_model("llama-3.2-1b").architecture.model_dump()})
    s = s.model_copy(update={"gpu": get_gpu("rtx3060_12gb")})
    tips = [t for t in suggest(s, list_gpus()) if t.key.startswith("gpu_")]
    assert tips
    chosen = tips[0].changes["gpu"]["memory_gib"]
    # the smallest fitting card of the plan's vendor (NVIDIA here): a ROCm card is no drop-in for a CUDA stack; and
    # one that runs the plan as it is (the T4 has no BF16 tensor cores for this BF16/FlashAttention plan)
    fitting = [g.memory_gib for g in list_gpus() if g.vendor == s.gpu.vendor and not missing_support(g, s.training)
               if g.memory_gib > s.gpu.memory_gib and _total(s.model_copy(update={"gpu": g})).fits]
    assert chosen == min(fitting) and tips[0].changes["gpu"]["vendor"] == "NVIDIA"


def test_cutting_sequences_to_under_half_ranks_after_other_changes_that_fit_as_well():
    # The default plan (Llama 3.1 8B QLoRA on an RTX 4090) at 20,480 tokens does not fit. Both a fused
    # cross-entropy and shorter sequences make it fit by the estimate; the longest length that fits is well under
    # half of 20,480, which gives up much of the plan, so it ranks after the fused loss although it is cheaper
    s = apply_changes(default_scenario(), {"training.seq_len": 20480})
    tips = suggest(s)
    seq = next(t for t in tips if t.key == "seq_len")
    fused = next(t for t in tips if t.key == "fused_ce")
    assert seq.changes["training.seq_len"] * 2 < 20480 and seq.drastic and not fused.drastic
    assert (seq.fits, seq.band_risk) == (fused.fits, fused.band_risk) and seq.usd_delta < fused.usd_delta
    assert tips.index(fused) < tips.index(seq)


def test_memory_curve_rises_with_sequence_length():
    curve = memory_curve(default_scenario(), points=8)
    lengths = [p[0] for p in curve]
    totals = [p[1] for p in curve]
    assert lengths == sorted(lengths) and totals == sorted(totals)


def test_larger_gpu_suggestion_is_priced_at_that_gpus_price():
    s = apply_changes(default_scenario(), {"training.method": "full"})
    tips = [t for t in suggest(s, list_gpus(), gpu_prices={g.id: 2.0 for g in list_gpus()}) if t.key.startswith("gpu_")]
    assert tips and tips[0].changes["pricing.price_per_gpu_hour"] == 2.0
    after = estimate(apply_changes(s, tips[0].changes))
    # cost delta shown = cost after applying the change (GPU price included) - cost before
    assert tips[0].usd_delta == pytest.approx(after.cost.total_usd - estimate(s).cost.total_usd)
    assert after.cost.gpu_usd == pytest.approx(2.0 * after.cost.billed_hours * s.training.num_gpus)


def test_larger_gpu_suggestion_skips_cards_that_cannot_run_the_plan_as_it_is():
    # The default plan at 10,240 tokens (BF16, FlashAttention 2) does not fit its 24 GiB card; the V100 32GB (31.75 GiB)
    # is the next size up but has no BF16 tensor cores (Volta; FlashAttention 2 needs Ampere or newer), so the suggestion
    # skips it; with FP16 and SDPA the plan runs there and the V100 is offered.
    base = apply_changes(default_scenario(), {"training.seq_len": 10240})  # about 27 GiB
    v100 = get_gpu("v100_32gb")
    assert v100 is not None and not v100.bf16_supported
    bf16 = [t for t in suggest(base, [v100, get_gpu("a100_80gb_sxm")]) if t.key.startswith("gpu_")]
    assert [t.key for t in bf16] == ["gpu_a100_80gb_sxm"]
    fp16 = apply_changes(base, {"training.precision": "fp16", "training.attention": "sdpa"})
    assert not estimate(fp16).memory.fits and estimate(apply_changes(fp16, {"gpu": v100.model_dump()})).memory.fits
    assert [t.key for t in suggest(fp16, [v100, get_gpu("a100_80gb_sxm")]) if t.key.startswith("gpu_")] == ["gpu_v100_32gb"]


def test_larger_gpu_suggestion_says_nothing_about_price_when_the_caller_prices_it():
    s = apply_changes(default_scenario(), {"training.method": "full"})
    unpriced = [t for t in suggest(s, list_gpus()) if t.key.startswith("gpu_")]
    assert unpriced and "price" not in unpriced[0].detail.lower()
    known_none = [t for t in suggest(s, list_gpus(), gpu_prices={}) if t.key.startswith("gpu_")]
    assert "no price known" in known_none[0].detail


def test_qlora_advice_offers_bf16_unquantised_weights_saving_two_bytes_each():
    # Llama 3.1 8B QLoRA (the default plan, 2,048 tokens, checkpointing): embeddings + LM head + norms =
    # 1,050,939,392 parameters (8,030,261,248 minus 32 layers x 218,103,808), BF16 instead of FP32: 2 B each
    # = 2,101,878,784 B; with BF16 embeddings the residual stream is BF16 too: 32 checkpointed layer inputs
    # x 4096 x 2048 tokens x 2 B fewer = 536,870,912 B, and the two gradient buffers between layers
    # 2 x 4096 x 2048 x 2 B = 33,554,432 B; and no bf16 autocast copy of an fp32 LM head kept for the
    # loss's backward: 128,256 x 4,096 x 2 B = 1,050,673,152 B -> 3,722,977,280 B in all.
    # The default plan keeps BF16 (axolotl, TRL, torchtune, Unsloth); the advice is for a plain PEFT script's upcast.
    assert not any(t.key == "kbit_bf16" for t in suggest(default_scenario()))
    s = apply_changes(default_scenario(), {"training.kbit_fp32_upcast": True})
    tip = next(t for t in suggest(s) if t.key == "kbit_bf16")
    assert tip.changes == {"training.kbit_fp32_upcast": False}
    saved = estimate(s).memory.peak_allocated_bytes - estimate(apply_changes(s, tip.changes)).memory.peak_allocated_bytes
    assert saved == pytest.approx(2_101_878_784 + 536_870_912 + 33_554_432 + 1_050_673_152)
    assert not any(t.key == "kbit_bf16" for t in suggest(apply_changes(s, tip.changes)))


def test_shorter_sequence_suggestion_is_the_longest_length_that_fits():
    # issue #21: advice said "shorten to 8,704 tokens" (rounded down to a multiple of 128) where the Your-GPU
    # line and the Limits tab said 8,786: one number, max_seq_len's, everywhere
    s = apply_changes(default_scenario(), {"training.seq_len": 65536})
    limit = max_seq_len(s)
    assert limit % 128 != 0  # a limit the old rounding would have changed
    g = next(g for g in suggest(s) if g.key == "seq_len")
    assert g.changes["training.seq_len"] == limit
    assert g.title == f"Shorten sequences to {limit:,} tokens"
    assert g.fits
    assert not _total(apply_changes(s, {"training.seq_len": limit + 1})).fits


def test_fsdp_advice_offers_syncing_every_micro_batch_and_wrapping_adapters_apart():
    # Llama 3.1 8B full fine-tuning on 8 GPUs, FSDP, 4 micro-batches per step, under no_sync: syncing every
    # micro-batch keeps 1/8 of the 8,030,261,248 x 2 B gradients at the backward, saving 7/8 of them
    # (14,052,957,184 B) where that moment is the peak both before and after
    s = default_scenario()
    s = apply_changes(s, {"training.method": "full", "training.num_gpus": 8, "training.sharding": "fsdp",
                          "training.grad_accumulation": 4, "training.fsdp_wrap": "separate-embeddings",
                          "gpu": get_gpu("h100_sxm").model_dump()})
    by_key = {g.key: g for g in suggest(s)}
    g = by_key["grad_sync"]
    assert g.changes == {"training.grad_sync": "micro-batch"}
    assert estimate(s).memory.peak_phase == estimate(apply_changes(s, g.changes)).memory.peak_phase == "backward"
    assert g.saved_bytes == pytest.approx(14_052_957_184)
    # LoRA with the adapters inside their layer's FSDP unit: unticking it is offered
    lora = apply_changes(s, {"training.method": "lora", "training.fsdp_wrap": "blocks-with-adapters"})
    keys = {g.key for g in suggest(lora)}
    assert "fsdp_units" in keys
    assert "fsdp_units" not in {g.key for g in suggest(apply_changes(lora, {"training.fsdp_wrap": "layers"}))}


def test_ending_gradient_accumulation_counts_as_drastic():
    # Fusing the optimizer step into backward ends gradient accumulation: 2 x 8 = 16 sequences per step become 2,
    # which changes the training recipe, so the suggestion ranks after the others that fit as well
    s = apply_changes(default_scenario(), {"training.method": "full", "training.micro_batch": 2,
                                           "training.grad_accumulation": 8, "gpu": get_gpu("h100_sxm").model_dump()})
    ranked = suggest(s)
    fused = next(t for t in ranked if t.key == "optimizer_in_backward")
    assert fused.changes["training.grad_accumulation"] == 1 and fused.drastic
    same_group = [t for t in ranked if (t.fits, t.band_risk) == (fused.fits, fused.band_risk)]
    assert len(same_group) > 1 and same_group[-1] is fused
    assert not any(t.drastic for t in same_group[:-1])  # (QLoRA, 8-bit AdamW, ... keep the 16 sequences)
