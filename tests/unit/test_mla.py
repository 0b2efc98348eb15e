"""Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): shapes, parameter counts, LoRA targets, saved
activations and attention time, each by hand from the config values and transformers' modules
(``modeling_deepseek_v2.py`` @0233e509531ace915c8241b4c16c8032a583279c, ``modeling_deepseek_v3.py`` @f5a9ec51).

Published totals: DeepSeek-V2-Lite 15.7B total / 2.4B activated (model card), DeepSeek-V2 236B / 21B (model card,
arXiv:2405.04434), DeepSeek-V3 671B / 37B (model card; the Hub's 685B adds the 14B multi-token-prediction module,
which ``DeepseekV3ForCausalLM`` does not load), Kimi K2 1T / 32B (model card). DeepSeek's "activated" counts leave out
the input embedding (a lookup): they match :meth:`matmul_params_per_token` (the active layer weights and the LM head).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from tuneplan.catalog import get_model
from tuneplan.core.architecture import ModelArchitecture, architecture_from_hf_config
from tuneplan.core.memory import (
    _layer_saved_bytes_per_token,
    lora_parameter_count,
    lora_target_modules,
    mla_attention_saved_per_token,
)
from tuneplan.core.scenario import GpuSpec, TrainingSetup
from tuneplan.core.steptime import FLASH_TFLOPS, attention_value_dim, flash_share, step_time
from tuneplan.core.throughput import flops_per_token

ROOT = Path(__file__).resolve().parents[2]

#: deepseek-ai/DeepSeek-V2-Lite config.json (architecture fields; catalog source)
V2_LITE = {
    "model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944, "moe_intermediate_size": 1408,
    "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 102400,
    "tie_word_embeddings": False, "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6,
    "first_k_dense_replace": 1, "moe_layer_freq": 1, "kv_lora_rank": 512, "q_lora_rank": None,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "attention_bias": False,
}
#: deepseek-ai/DeepSeek-V3 config.json (architecture fields; same in DeepSeek-Prover-V2-671B's)
V3 = {
    "model_type": "deepseek_v3", "hidden_size": 7168, "intermediate_size": 18432, "moe_intermediate_size": 2048,
    "num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128, "vocab_size": 129280,
    "tie_word_embeddings": False, "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
    "first_k_dense_replace": 3, "moe_layer_freq": 1, "kv_lora_rank": 512, "q_lora_rank": 1536,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "routed_scaling_factor": 2.5,
}
#: moonshotai/Kimi-K2 config.json: the V3 layout with 64 heads, 384 experts, one dense layer, a 163,840 vocabulary
KIMI_K2 = {**V3, "num_attention_heads": 64, "num_key_value_heads": 64, "n_routed_experts": 384,
           "first_k_dense_replace": 1, "vocab_size": 163840}


def v2_lite() -> ModelArchitecture:
    return architecture_from_hf_config(V2_LITE, name="DeepSeek-V2-Lite")


def test_v2_lite_layers_have_the_mla_shapes() -> None:
    a = v2_lite()
    assert (a.head_dim, a.value_head_dim, a.kv_lora_rank, a.q_lora_rank) == (192, 128, 512, 0)
    dense, moe = a.linear_modules()
    assert dense[0] == 1 and moe[0] == 26  # first_k_dense_replace = 1
    attn = [(m.name, m.d_in, m.d_out) for m in dense[1] if m.kind == "attention"]
    # q_proj 2048 -> 16 x (128 + 64); kv_a 2048 -> 512 + 64; kv_b 512 -> 16 x (128 + 128); o 16 x 128 -> 2048
    assert attn == [("q_proj", 2048, 3072), ("kv_a_proj_with_mqa", 2048, 576), ("kv_b_proj", 512, 4096),
                    ("o_proj", 2048, 2048)]
    experts = {m.name: (m.count, m.active, m.d_in, m.d_out) for m in moe[1]}
    assert experts["gate_proj"] == (64, 6, 2048, 1408)
    assert experts["shared_gate_proj"] == (1, 1, 2048, 2 * 1408)  # two shared experts as one MLP of 2 x 1408
    assert experts["router"] == (1, 1, 2048, 64)


def test_v2_lite_parameter_count_by_hand_matches_the_model_card() -> None:
    a = v2_lite()
    embed = 102400 * 2048  # input embedding; the LM head is untied and the same size
    attention = 2048 * 3072 + 2048 * 576 + 512 * 4096 + 2048 * 2048  # 13,762,560 per layer
    norms = 27 * (2 * 2048 + 512) + 2048  # input/post-attention norms, kv_a_layernorm; final norm
    dense_mlp = 3 * 2048 * 10944
    moe = 2048 * 64 + 64 * 3 * 2048 * 1408 + 3 * 2048 * 2816  # router, 64 experts, 2 shared
    total = 2 * embed + 27 * attention + norms + dense_mlp + 26 * moe
    assert total == 15_706_484_224
    assert a.parameter_count() == total
    assert a.parameter_count() == pytest.approx(15.7e9, rel=0.005)
    # activated: 6 of 64 experts; DeepSeek's 2.4B leaves the embedding lookup out
    active = 27 * attention + dense_mlp + 26 * (2048 * 64 + 6 * 3 * 2048 * 1408 + 3 * 2048 * 2816) + embed
    assert a.matmul_params_per_token() == active == 2_451_308_544
    assert active == pytest.approx(2.4e9, rel=0.025)
    assert a.active_parameter_count() == active + embed + norms  # + the lookup table and the norm weights


def test_deepseek_v2_v3_and_kimi_k2_match_their_published_totals() -> None:
    v2 = architecture_from_hf_config(json.loads((ROOT / "docs/evidence/throughput/configs/deepseek-v2.json")
                                                .read_text("utf-8")))
    # q_a 5120x1536, q_b 1536 x 128 x 192, kv_a 5120 x 576, kv_b 512 x 128 x 256, o 128 x 128 x 5120
    v2_attn = 5120 * 1536 + 1536 * 128 * 192 + 5120 * 576 + 512 * 128 * 256 + 128 * 128 * 5120
    v2_moe = 5120 * 160 + 160 * 3 * 5120 * 1536 + 3 * 5120 * 3072
    v2_total = (2 * 102400 * 5120 + 60 * v2_attn + 3 * 5120 * 12288 + 59 * v2_moe
                + 60 * (2 * 5120 + 512 + 1536) + 5120)
    assert v2.parameter_count() == v2_total == 235_741_434_880
    assert v2_total == pytest.approx(236e9, rel=0.005)
    assert v2.matmul_params_per_token() == pytest.approx(21e9, rel=0.01)

    v3 = architecture_from_hf_config(V3)
    v3_attn = 7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 * 128 * 256 + 128 * 128 * 7168
    assert v3_attn == 187_105_280
    v3_moe = 7168 * 256 + 256 * 3 * 7168 * 2048 + 3 * 7168 * 2048
    v3_total = (2 * 129280 * 7168 + 61 * v3_attn + 3 * 3 * 7168 * 18432 + 58 * v3_moe
                + 61 * (2 * 7168 + 512 + 1536) + 7168)
    assert v3.parameter_count() == v3_total == 671_026_404_352
    assert v3_total == pytest.approx(671e9, rel=0.001)
    assert v3.matmul_params_per_token() == pytest.approx(37e9, rel=0.015)

    k2 = architecture_from_hf_config(KIMI_K2)
    assert k2.parameter_count() == pytest.approx(1.0e12, rel=0.03)  # "1 trillion total parameters"
    assert k2.matmul_params_per_token() == pytest.approx(32e9, rel=0.015)  # "32 billion activated"


def test_mla_fields_are_checked() -> None:
    base = dict(name="m", hidden_size=64, num_layers=2, num_attention_heads=4, num_kv_heads=4, head_dim=24,
                intermediate_size=128, vocab_size=100)
    ModelArchitecture(**base, kv_lora_rank=16, qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16)
    with pytest.raises(ValidationError, match="head_dim"):
        ModelArchitecture(**base, kv_lora_rank=16, qk_nope_head_dim=16, qk_rope_head_dim=4, v_head_dim=16)
    with pytest.raises(ValidationError, match="kv_lora_rank"):
        ModelArchitecture(**base, q_lora_rank=16)
    # a config's num_key_value_heads and head_dim (transformers writes head_dim = qk_rope_head_dim) do not matter
    a = architecture_from_hf_config({**V2_LITE, "num_key_value_heads": 1, "head_dim": 64})
    assert (a.num_kv_heads, a.head_dim) == (16, 192)


def test_lora_presets_under_mla() -> None:
    lite, v3 = v2_lite(), architecture_from_hf_config(V3)
    assert lora_target_modules(lite, "q_v") == ["q_proj", "kv_b_proj"]
    assert lora_target_modules(v3, "q_v") == ["q_a_proj", "q_b_proj", "kv_b_proj"]
    assert lora_target_modules(lite, "qkvo") == ["q_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"]
    assert lora_target_modules(v3, "qkvo") == ["q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"]
    # r (d_in + d_out) per adapted matrix, 27 layers
    assert lora_parameter_count(lite, 16, "q_v") == 27 * 16 * ((2048 + 3072) + (512 + 4096))
    assert lora_parameter_count(lite, 16, "qkvo") == 27 * 16 * ((2048 + 3072) + (2048 + 576) + (512 + 4096)
                                                                 + (2048 + 2048))


def _frozen(name: str) -> bool:
    return False


def _trained(name: str) -> bool:
    return True


def test_mla_saved_activations_by_hand() -> None:
    lite = v2_lite()
    full_flash = TrainingSetup(method="full", attention="flash")
    # input norm output 2h; kv_a_layernorm fp32 input + its normalised value (trained weight) (4+2) x 512;
    # kv_b_proj input 2 x 512; q and k 2 x 16 x 192 each; values padded to 192; padded output + fp32 lse;
    # the output sliced to 128 that o_proj saves
    expected = (2 * 2048 + 6 * 512 + 2 * 512 + 2 * 2 * 16 * 192 + 2 * 16 * 192 + (2 * 16 * 192 + 4 * 16)
                + 2 * 16 * 128)
    assert expected == 36_928
    assert mla_attention_saved_per_token(lite, full_flash, 2, 4096, _trained, norm_weight_input=2) == expected
    # frozen attention (LoRA elsewhere), SDPA: no inputs; the kv norm's fp32 copy; q, k; kv_b_proj's whole output
    # alive under the value view (16 x 256); output 16 x 128 and lse
    sdpa = TrainingSetup(method="lora", attention="sdpa")
    assert mla_attention_saved_per_token(lite, sdpa, 2, 4096, _frozen) == (
        4 * 512 + 2 * 2 * 16 * 192 + 2 * 16 * 256 + 2 * 16 * 128 + 4 * 16)
    eager = TrainingSetup(method="lora", attention="eager")
    assert mla_attention_saved_per_token(lite, eager, 2, 1024, _frozen) == (
        4 * 512 + 2 * 2 * 16 * 192 + 2 * 16 * 256 + 6 * 16 * 1024)
    # V3: q_a_layernorm over 1536 too, and q_b_proj's input
    v3 = architecture_from_hf_config(V3)
    assert mla_attention_saved_per_token(v3, full_flash, 2, 4096, _trained, norm_weight_input=2) == (
        2 * 7168 + 6 * (512 + 1536) + 2 * 512 + 2 * 1536 + 2 * 2 * 128 * 192 + 2 * 128 * 192
        + (2 * 128 * 192 + 4 * 128) + 2 * 128 * 128)
    # compiled: the low-rank norms keep their normalised bf16 values only
    assert mla_attention_saved_per_token(v3, sdpa, 2, 4096, _frozen, compiled=True) == (
        2 * (512 + 1536) + 2 * 2 * 128 * 192 + 2 * 128 * 256 + 2 * 128 * 128 + 4 * 128)


def test_mla_saved_inputs_follow_which_projections_train() -> None:
    # each projection's input is saved only when that projection trains (a LoRA target): one module at a time, so
    # that a wrong name in the ledger shows (V2-Lite: h 2048, n 16, d_qk 192, d_v 128, r_kv 512; V3 adds r_q 1536)
    lite, v3 = architecture_from_hf_config(V2_LITE), architecture_from_hf_config(V3)
    flash = TrainingSetup(method="lora", attention="flash")

    def only(*names: str):
        return lambda name: name in names

    frozen_flash = 4 * 512 + 2 * 2 * 16 * 192 + 2 * 16 * 192 + (2 * 16 * 192 + 4 * 16)  # norm copy, q k, pad, out+lse
    assert mla_attention_saved_per_token(lite, flash, 2, 4096, _frozen) == frozen_flash
    # kv_a_proj_with_mqa (or q_proj) reads the input norm's output: + e h
    for name in ("kv_a_proj_with_mqa", "q_proj", "q_a_proj"):
        assert mla_attention_saved_per_token(lite, flash, 2, 4096, only(name)) == frozen_flash + 2 * 2048, name
    # kv_b_proj reads kv_a_layernorm's output: + e r_kv
    assert mla_attention_saved_per_token(lite, flash, 2, 4096, only("kv_b_proj")) == frozen_flash + 2 * 512
    # o_proj reads the output sliced back to d_v (d_v 128 != d_qk 192): + e n d_v
    assert mla_attention_saved_per_token(lite, flash, 2, 4096, only("o_proj")) == frozen_flash + 2 * 16 * 128
    # V3: q_b_proj reads q_a_layernorm's output: + e r_q; its norm copies cover both ranks
    frozen_v3 = 4 * (512 + 1536) + 2 * 2 * 128 * 192 + 2 * 128 * 192 + (2 * 128 * 192 + 4 * 128)
    assert mla_attention_saved_per_token(v3, flash, 2, 4096, _frozen) == frozen_v3
    assert mla_attention_saved_per_token(v3, flash, 2, 4096, only("q_b_proj")) == frozen_v3 + 2 * 1536
    # V2-Lite has no q_lora_rank: a q_b_proj target adds nothing
    assert mla_attention_saved_per_token(lite, flash, 2, 4096, only("q_b_proj")) == frozen_flash
    # FlashAttention 1 pads and saves as FlashAttention 2 does
    flash1 = TrainingSetup(method="lora", attention="flash1")
    assert mla_attention_saved_per_token(lite, flash1, 2, 4096, only("o_proj")) == frozen_flash + 2 * 16 * 128
    # eager: the softmax 6 n s, and o_proj's input e n d_v when it trains
    eager = TrainingSetup(method="lora", attention="eager")
    frozen_eager = 4 * 512 + 2 * 2 * 16 * 192 + 2 * 16 * 256 + 6 * 16 * 1024
    assert mla_attention_saved_per_token(lite, eager, 2, 1024, only("o_proj")) == frozen_eager + 2 * 16 * 128
    # a model whose value dim equals d_qk (no slice under flash): o_proj reads the kernel's output, nothing more
    square = architecture_from_hf_config({**V2_LITE, "v_head_dim": 192})
    assert mla_attention_saved_per_token(square, flash, 2, 4096, only("o_proj")) == \
        mla_attention_saved_per_token(square, flash, 2, 4096, _frozen)


def test_the_layer_ledger_uses_the_mla_block() -> None:
    # the MoE layer of V2-Lite, full fine-tuning with flash: the MLA block above plus the input/post-attention
    # RMSNorms (4 + 2) x 2h and the MoE block (router logits fp32, expert outputs and sorted inputs k x h,
    # the shared experts' MLP input h, gate/up/act for 6 x 1408 + 2816, down_proj inputs)
    lite = v2_lite()
    t = TrainingSetup(method="full", attention="flash", grad_checkpointing=False)
    attn = 36_928
    norms = 2 * (4 + 2) * 2048
    routed, shared = 6 * 1408, 2816
    moe = 4 * 64 + 2 * 2048 * 6 + 2 * 2048 * 6 + 2 * 2048 + 3 * 2 * (routed + shared) + 2 * routed + 2 * shared
    assert _layer_saved_bytes_per_token(lite, t, 2, 4096) == attn + norms + moe


GPU = GpuSpec(id="card", name="Card", memory_gib=80, bf16_tflops=120, measured_bf16_tflops=100,
              memory_bandwidth_gbps=1000, segment="datacenter", compute_capability=8.0, sm_count=0)
R = 100e12 * 257.5 / 271.2  # as in test_steptime: measured ceiling x the Ampere sustained share


def test_attention_flops_use_the_qk_and_v_head_dims() -> None:
    lite = v2_lite()
    t = TrainingSetup(method="lora", micro_batch=1, seq_len=2048, grad_checkpointing=False, framework="optimized")
    keys = 2049 / 2
    # FlashAttention: the values are padded to 192, so P V runs at 192 too: 2 T S n (192 + 192)
    st = step_time(lite, t, GPU, 2048.0)
    fwd = 2 * 2048 * keys * 16 * (192 + 192)
    assert st.term("attention").part("flops") == pytest.approx(27 * fwd * 3.5)
    # head dim 192 is above the charts' 128: timed at the 128 rate (155 TFLOPS at 2k on the 271.2 reference)
    assert st.term("attention").value == pytest.approx(27 * fwd * 3.5 / (R * 155 / 271.2))
    assert flash_share(FLASH_TFLOPS["ampere"], 192, 2048) == flash_share(FLASH_TFLOPS["ampere"], 128, 2048)
    # SDPA: its flash backend needs one head dim for q, k and v, so the memory-efficient one runs, at 192 + 128
    st_sdpa = step_time(lite, t.model_copy(update={"attention": "sdpa"}), GPU, 2048.0)
    assert st_sdpa.term("attention").detail == "sdpa-efficient"
    assert st_sdpa.term("attention").part("flops") == pytest.approx(27 * 2 * 2048 * keys * 16 * (192 + 128) * 3.5)
    assert attention_value_dim(lite, "eager") == 128 and attention_value_dim(lite, "flash") == 192


def test_model_flops_count_qk_and_v_head_dims() -> None:
    lite = v2_lite()
    t = TrainingSetup(method="full", seq_len=4096, grad_checkpointing=False)
    model, _ = flops_per_token(lite, t)
    # 6N + 6 L s n (d_qk + d_v)
    assert model == pytest.approx(6 * 2_451_308_544 + 6 * 27 * 4096 * 16 * (192 + 128))


def test_mla_elementwise_bytes_cover_the_low_rank_norms_and_the_rotary_part() -> None:
    # fused stack, LoRA on q_v without dropout, 1 x 1024 tokens; per token per layer forward: 2 norms x 4d, the
    # kv_a_layernorm 4 x 512, rotary 8 x (16 heads x 64 + the one shared 64-wide key), residuals 12d, SwiGLU 6f
    # over the routed and shared experts (6 x 1408 + 2816), the LoRA adds 6 x out for q_proj and kv_b_proj
    d, f = 2048, 6 * 1408 + 2816
    per = 2 * 4 * d + 4 * 512 + 8 * (16 * 64 + 64) + 12 * d + 6 * f + 6 * (3072 + 4096)
    layer = 27 * per * 1024 * (1 + 1.5)  # forward + backward (1.5x)
    ce = 1024 * 102400 * 8  # fused cross-entropy
    t = TrainingSetup(method="lora", lora_rank=8, lora_targets="q_v", lora_dropout=0.0, micro_batch=1, seq_len=1024,
                      grad_checkpointing=False, framework="optimized")
    st = step_time(v2_lite(), t, GPU, 1024.0)
    assert st.term("other_kernels").part("bytes") == pytest.approx(layer + ce)


def test_mla_unfused_elementwise_bytes_add_flash_padding() -> None:
    # Hugging Face (unfused), same plan: eager RMSNorm over 2 x d and the 512-wide kv norm, rotary over 16 x 64 + 64,
    # at their cost as Liger-Kernel timed them on an A100 (benchmark/data/all_benchmark_data.csv @2120862: RMSNorm
    # 2048 x 32768 1.919 ms forward, 5.015 ms backward; rotary 16,384 x 40 x 256 3.817 / 4.557 ms; bytes per element
    # at 0.88 x 2,039 GB/s); layout copies 8 B over q and k (16 x 192 each), F.pad of the values (read 16 x 128,
    # write 16 x 192, 2 B each) and the sliced output's copy (4 B x 16 x 128), residuals 12d, SwiGLU 10f, LoRA adds
    # 6 x out for q_proj and kv_b_proj: 1.5 x that in the backward
    a100 = 0.88 * 2039e9
    norm_f, norm_b = 1.919e-3 * a100 / (2048 * 32768), 5.015e-3 * a100 / (2048 * 32768)
    rope_f, rope_b = 3.817e-3 * a100 / (16384 * 40 * 256), 4.557e-3 * a100 / (16384 * 40 * 256)
    d, f = 2048, 6 * 1408 + 2816
    norm_el, rope_el = 2 * d + 512, 16 * 64 + 64
    rest = (8 * (3072 + 3072) + 2 * (3072 + 2048) + 4 * 2048 + 12 * d + 10 * f + 6 * (3072 + 4096))
    per = norm_el * (norm_f + norm_b) + rope_el * (rope_f + rope_b) + rest * 2.5
    t = TrainingSetup(method="lora", lora_rank=8, lora_targets="q_v", lora_dropout=0.0, micro_batch=1, seq_len=1024,
                      grad_checkpointing=False, framework="hf")
    st = step_time(v2_lite(), t, GPU, 1024.0)
    # the loss: logits.float() (2 + 4 B), the fp32 cross-entropy (20.726 + 39.712 ms over 8 x 2048 x 131072 logits),
    # the cast back (4 + 2 B)
    ce = 1024 * 102400 * (12 + 60.438e-3 * a100 / (8 * 2048 * 131072))
    assert st.term("other_kernels").part("bytes") == pytest.approx(27 * per * 1024 + ce)
    # SDPA pads nothing
    st_sdpa = step_time(v2_lite(), t.model_copy(update={"attention": "sdpa"}), GPU, 1024.0)
    assert st.term("other_kernels").part("bytes") - st_sdpa.term("other_kernels").part("bytes") == pytest.approx(
        27 * (2 * (3072 + 2048) + 4 * 2048) * 1024 * 2.5)


def test_v2_lite_in_the_catalog() -> None:
    m = get_model("deepseek-v2-lite")
    assert m.architecture.parameter_count() == 15_706_484_224
    assert m.params_published_b == 15.7
    assert m.architecture.is_mla and m.architecture.num_experts == 64


@pytest.mark.parametrize("method", ["lora", "full"])
def test_cli_estimates_v2_lite(method: str, tmp_path: Path) -> None:
    config = tmp_path / "DeepSeek-V2-Lite" / "config.json"
    config.parent.mkdir()
    config.write_text(json.dumps(V2_LITE), encoding="utf-8")
    for model in (["--config", str(config)], ["--model", "deepseek-v2-lite"]):
        out = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", *model, "--method", method,
                              "--gpu", "h100-80gb-sxm", "--gpus", "8", "--sharding", "zero3", "--json"],
                             capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 0, out.stderr
        result = json.loads(out.stdout)[0]
        assert result["parameters"] == 15_706_484_224


def test_recomputed_mla_layer_holds_the_input_norm_output_beside_the_up_projections() -> None:
    # a dense MLA model, LoRA on q_v (q_a_proj, q_b_proj, kv_b_proj) with dropout under autocast, checkpointing:
    # at kv_b_proj (256 -> 16 x 256) the recomputation holds its bf16 input 2 x 256, the fp32 cast and dropout
    # copies 4 x 256 each, the base output 2 x 4096, and the input norm's output 2 x 1024 that the attention
    # module still holds; q_a_proj (1024 -> 256) reaches only 2 x 1024 + 4 x 1024 x 2 + 2 x 256 = 10,752
    from tuneplan.core.memory import recompute_transient_per_token

    a = ModelArchitecture(name="mla", model_type="deepseek_v3", hidden_size=1024, num_layers=2, num_attention_heads=16,
                          num_kv_heads=16, head_dim=192, intermediate_size=512, vocab_size=1000, kv_lora_rank=256,
                          q_lora_rank=256, qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128)
    t = TrainingSetup(method="lora", lora_targets="q_v", lora_dropout=0.05, grad_checkpointing=True)
    assert recompute_transient_per_token(a, t, 2) == 2 * 256 + 4 * 256 + 4 * 256 + 2 * 4096 + 2 * 1024


@pytest.mark.parametrize(("fmt", "key"), [("trl", "lora_target_modules"), ("axolotl", "lora_target_modules"),
                                          ("ms-swift", "target_modules")])
def test_exported_configs_name_the_mla_modules(fmt: str, key: str) -> None:
    # PEFT matches target names exactly: ["q_proj", "v_proj"] would adapt only V2-Lite's q_proj (V3: nothing)
    from tuneplan import catalog
    from tuneplan.core.config_export import export_config

    base = catalog.default_scenario()
    v3 = architecture_from_hf_config(V3, name="DeepSeek-V3")
    for arch, targets, names in [(v2_lite(), "q_v", ["q_proj", "kv_b_proj"]),
                                 (v3, "qkvo", ["q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"])]:
        s = base.model_copy(update={"model_id": "", "model": arch, "training": base.training.model_copy(
            update={"method": "lora", "lora_targets": targets, "lora_dropout": 0.0})})
        assert export_config(s, fmt, model_ref="deepseek-ai/x").document[key] == names
    # the Llama family keeps q_proj, v_proj
    s = base.model_copy(update={"training": base.training.model_copy(update={"method": "lora", "lora_targets": "q_v"})})
    assert export_config(s, fmt, model_ref="meta-llama/x").document[key] == ["q_proj", "v_proj"]
