"""Gated DeltaNet hybrids (Qwen3-Next, Qwen3.5): layer kinds, shapes, parameter counts, LoRA targets, saved
activations and kernel FLOPs, each by hand from the config values and transformers' modules
(``modeling_qwen3_next.py`` @7515843b617551b008901620ca58f1208bbc330d, ``modeling_qwen3_5.py`` @d8c1e284) and
flash-linear-attention's ``chunk_gated_delta_rule`` (``fla/ops/gated_delta_rule/chunk.py`` @92396f25).

Published totals: Qwen3-Next-80B-A3B "80B in total and 3B activated", "79B non-embedding" (model card,
huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct: 48 layers, hidden 2048, 12 x (3 x (Gated DeltaNet -> MoE) ->
(Gated Attention -> MoE)), 512 experts, 10 activated, 1 shared). Qwen3.5-27B "27B" (model card; the shared reference
config ``qwen3.5-27b.json`` is a third-party transcription of the hub config, its text model 26.896B).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from tuneplan.core.architecture import ModelArchitecture, UnsupportedModelError, architecture_from_hf_config
from tuneplan.core.memory import (
    GDN_CHUNK,
    _layer_saved_bytes_per_token,
    gated_attention_output_saved_per_token,
    gated_deltanet_saved_per_token,
    layer_saved_bytes_per_token,
    lora_parameter_count,
    lora_target_modules,
)
from tuneplan.core.scenario import GpuSpec, TrainingSetup
from tuneplan.core.steptime import GDN_SHARE, gated_deltanet_flops_per_token, step_time
from tuneplan.core.throughput import flops_per_token

ROOT = Path(__file__).resolve().parents[2]
QWEN35_27B = ROOT.parent / "shared/reference/measurements/configs/qwen3.5-27b.json"

#: Qwen/Qwen3-Next-80B-A3B-Instruct config.json (architecture fields; the values the model card lists)
QWEN3_NEXT = {
    "model_type": "qwen3_next", "hidden_size": 2048, "intermediate_size": 5120, "num_hidden_layers": 48,
    "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 151936,
    "tie_word_embeddings": False, "num_experts": 512, "num_experts_per_tok": 10, "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512, "decoder_sparse_step": 1, "mlp_only_layers": [],
    "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
    "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "full_attention_interval": 4,
}


def qwen3_next() -> ModelArchitecture:
    return architecture_from_hf_config(QWEN3_NEXT, name="Qwen3-Next-80B-A3B")


def test_layer_kinds_from_layer_types_interval_or_pattern() -> None:
    a = qwen3_next()  # full_attention_interval 4: layers 4, 8, ..., 48 are full attention
    assert (a.num_attention_layers, a.num_linear_attention_layers) == (12, 36)
    listed = architecture_from_hf_config({**QWEN3_NEXT, "full_attention_interval": None,
                                          "layer_types": ["linear_attention", "full_attention"] * 24})
    assert (listed.num_attention_layers, listed.num_linear_attention_layers) == (24, 24)
    default = architecture_from_hf_config({k: v for k, v in QWEN3_NEXT.items() if k != "full_attention_interval"})
    assert default.num_linear_attention_layers == 36  # Qwen3NextConfig's default interval, 4
    b = architecture_from_hf_config(json.loads(QWEN35_27B.read_text("utf-8")))  # "3 linear : 1 full", 64 layers
    assert (b.num_attention_layers, b.num_linear_attention_layers) == (16, 48)
    assert b.linear_attention_projections == "split" and b.attn_output_gate


def test_other_hybrids_and_mamba_are_refused() -> None:
    with pytest.raises(UnsupportedModelError, match="Mamba"):
        architecture_from_hf_config({"model_type": "jamba", "hidden_size": 64, "num_hidden_layers": 2,
                                     "num_attention_heads": 4, "vocab_size": 10, "layer_types": ["mamba", "attention"]})
    with pytest.raises(UnsupportedModelError, match="linear-attention"):
        architecture_from_hf_config({"model_type": "other", "hidden_size": 64, "num_hidden_layers": 2,
                                     "num_attention_heads": 4, "vocab_size": 10,
                                     "layer_types": ["linear_attention", "full_attention"]})
    with pytest.raises(UnsupportedModelError, match="decoder_sparse_step"):
        architecture_from_hf_config({**QWEN3_NEXT, "decoder_sparse_step": 2})


def test_gated_deltanet_fields_are_checked() -> None:
    base = dict(name="m", hidden_size=64, num_layers=4, num_attention_heads=4, num_kv_heads=2, head_dim=16,
                intermediate_size=128, vocab_size=100, num_linear_attention_layers=3, linear_num_key_heads=2,
                linear_num_value_heads=4, linear_key_head_dim=8, linear_value_head_dim=8, linear_conv_kernel_dim=4)
    ModelArchitecture(**base)
    with pytest.raises(ValidationError, match="multiple"):
        ModelArchitecture(**{**base, "linear_num_value_heads": 3})
    with pytest.raises(ValidationError, match="linear_conv_kernel_dim"):
        ModelArchitecture(**{**base, "linear_conv_kernel_dim": 0})
    with pytest.raises(ValidationError, match="cannot exceed"):
        ModelArchitecture(**{**base, "num_linear_attention_layers": 5})


def test_qwen3_next_layers_have_the_modelling_code_shapes() -> None:
    groups = qwen3_next().linear_modules()
    (n_attn, attn), (n_lin, lin) = groups
    assert (n_attn, n_lin) == (12, 36)
    # q_proj emits query and output gate: 2048 -> 16 x 256 x 2; k/v 2 x 256; o_proj 16 x 256 -> 2048
    assert [(m.name, m.d_in, m.d_out) for m in attn if m.kind == "attention"] == [
        ("q_proj", 2048, 8192), ("k_proj", 2048, 512), ("v_proj", 2048, 512), ("o_proj", 4096, 2048)]
    # K = 16 x 128 = 2048, V = 32 x 128 = 4096: in_proj_qkvz 2K + 2V, in_proj_ba 2 x 32, out_proj V -> h
    assert [(m.name, m.d_in, m.d_out) for m in lin if m.kind == "linear_attention"] == [
        ("in_proj_qkvz", 2048, 12288), ("in_proj_ba", 2048, 64), ("out_proj", 4096, 2048)]
    experts = {m.name: (m.count, m.active, m.d_in, m.d_out) for m in lin if m.kind != "linear_attention"}
    assert experts["gate_proj"] == (512, 10, 2048, 512)
    assert experts["shared_gate_proj"] == (1, 1, 2048, 512)
    assert experts["shared_expert_gate"] == (1, 1, 2048, 1)
    assert experts["router"] == (1, 1, 2048, 512)


def test_qwen3_next_parameter_count_by_hand_matches_the_model_card() -> None:
    a = qwen3_next()
    embed = 151936 * 2048  # input embedding; the LM head is untied and the same size
    attention = 2048 * 8192 + 2 * 2048 * 512 + 4096 * 2048  # 27,262,976
    gdn = 2048 * 12288 + 2048 * 64 + 4096 * 2048  # 33,685,504
    gdn_other = (2 * 2048 + 4096) * 4 + 2 * 32  # conv1d kernel (conv_dim x 4), dt_bias, A_log
    moe = 2048 * 512 + 512 * 3 * 2048 * 512 + 3 * 2048 * 512 + 2048  # router, experts, shared, shared gate
    norms = 48 * 2 * 2048 + 2048 + 12 * 2 * 256 + 36 * 128  # layer norms, final, q/k norms, gated norms
    total = 2 * embed + 12 * attention + 36 * (gdn + gdn_other) + 48 * moe + norms
    assert total == 79_674_391_296
    assert a.parameter_count() == total
    assert total == pytest.approx(80e9, rel=0.005)  # "80B in total"
    assert total - 2 * embed == pytest.approx(79e9, rel=0.001)  # "79B non-embedding"
    active_moe = 2048 * 512 + 10 * 3 * 2048 * 512 + 3 * 2048 * 512 + 2048
    active = 12 * attention + 36 * gdn + 48 * active_moe + embed  # layer matmuls + the LM head
    assert a.matmul_params_per_token() == active == 3_562_373_120
    # "3B activated": the active layer weights without the embedding and LM head, 3.25B, within the rounding
    assert active - embed == pytest.approx(3e9, rel=0.1)


def test_qwen35_27b_parameter_count_by_hand() -> None:
    b = architecture_from_hf_config(json.loads(QWEN35_27B.read_text("utf-8")))
    embed = 248320 * 5120
    attention = 5120 * 24 * 256 * 2 + 2 * 5120 * 4 * 256 + 24 * 256 * 5120
    k, v = 16 * 128, 48 * 128  # key_dim 2048, value_dim 6144
    gdn = 5120 * (2 * k + v) + 5120 * v + 2 * 5120 * 48 + v * 5120  # in_proj_qkv, in_proj_z, in_proj_b/a, out_proj
    gdn_other = (2 * k + v) * 4 + 2 * 48
    mlp = 3 * 5120 * 17408
    norms = 64 * 2 * 5120 + 5120 + 16 * 2 * 256 + 48 * 128
    total = 2 * embed + 16 * attention + 48 * (gdn + gdn_other) + 64 * mlp + norms
    assert b.parameter_count() == total == 26_895_998_464
    assert total == pytest.approx(27e9, rel=0.005)  # "27B" (the card's count includes the vision encoder)


def test_lora_presets_on_hybrids() -> None:
    # Tuneplan's choice, as PEFT matches names: q_v and qkvo adapt the full-attention layers' projections only (the
    # Gated DeltaNet layers have no q_proj/v_proj); all-linear adapts every projection of both layer kinds
    a = qwen3_next()
    assert lora_target_modules(a, "q_v") == ["q_proj", "v_proj"]
    assert lora_parameter_count(a, 16, "q_v") == 12 * 16 * ((2048 + 8192) + (2048 + 512))
    b = architecture_from_hf_config(json.loads(QWEN35_27B.read_text("utf-8")))
    mlp = 2 * (5120 + 17408) + (17408 + 5120)
    attention = (5120 + 12288) + 2 * (5120 + 1024) + (6144 + 5120)
    gdn = (5120 + 10240) + (5120 + 6144) + 2 * (5120 + 48) + (6144 + 5120)
    assert lora_parameter_count(b, 16, "all-linear") == 16 * (16 * (attention + mlp) + 48 * (gdn + mlp))


def _trained(name: str) -> bool:
    return True


def _frozen(name: str) -> bool:
    return False


def test_gated_deltanet_saved_activations_by_hand() -> None:
    a = qwen3_next()
    full = TrainingSetup(method="full", attention="flash")
    # input norm output 2h; conv1d input 2 (2K + V); beta 2 n_v; softplus input and output 4 n_v each; q, k at 32
    # heads 2 x 32 x 128 each + fp32 rstd 4 x 32 each; v 2V; g 4 n_v; A 2 x 32 x 64; gated norm input and z 2V each
    # + rstd 4 n_v; out_proj input 2V
    expected = (2 * 2048 + 2 * 8192 + 2 * 32 + 4 * 32 + 4 * 32 + 2 * (2 * 32 * 128 + 4 * 32) + 2 * 4096 + 4 * 32
                + 2 * 32 * 64 + 2 * 2 * 4096 + 4 * 32 + 2 * 4096)
    assert expected == 74_560
    assert GDN_CHUNK == 64
    assert gated_deltanet_saved_per_token(a, full, 2, _trained) == expected
    # frozen mixer (LoRA elsewhere): no input norm output, no softplus output (A_log frozen), no out_proj input
    lora = TrainingSetup(method="lora", attention="flash")
    assert gated_deltanet_saved_per_token(a, lora, 2, _frozen) == expected - 2 * 2048 - 4 * 32 - 2 * 4096
    # no sequence-length term: the recurrent state is n_v x d_k x d_v per sequence, not a cache growing with T
    assert _layer_saved_bytes_per_token(a, full, 2, 1024, mixer="linear_attention") == \
        _layer_saved_bytes_per_token(a, full, 2, 8192, mixer="linear_attention")


def test_gated_deltanet_saved_inputs_follow_which_projections_train() -> None:
    # one projection at a time, so that a wrong module name shows: an input projection saves the input norm's output
    # (e h = 2 x 2048), out_proj the gated norm's output (e V = 2 x 4096); LoRA leaves A_log frozen
    a = qwen3_next()
    lora = TrainingSetup(method="lora", attention="flash")
    frozen = gated_deltanet_saved_per_token(a, lora, 2, _frozen)
    for name in ("in_proj_qkvz", "in_proj_ba"):
        assert gated_deltanet_saved_per_token(a, lora, 2, lambda n, name=name: n == name) == frozen + 2 * 2048, name
    assert gated_deltanet_saved_per_token(a, lora, 2, lambda n: n == "out_proj") == frozen + 2 * 4096
    assert gated_deltanet_saved_per_token(a, lora, 2, lambda n: n == "q_proj") == frozen  # not this mixer's


def test_gated_attention_output_gate_by_kernel_and_o_proj() -> None:
    a = qwen3_next()
    flash = TrainingSetup(method="lora", attention="flash")
    # o_proj alone decides under FlashAttention (q_dim 16 x 256 = 4096): + e q_dim for the gated product it saves
    assert gated_attention_output_saved_per_token(a, flash, 2, lambda n: n == "o_proj") == 2 * 2 * 4096
    assert gated_attention_output_saved_per_token(a, flash, 2, lambda n: n == "q_proj") == 2 * 4096
    # eager: the product keeps the ungated output whatever trains
    eager = TrainingSetup(method="lora", attention="eager")
    assert gated_attention_output_saved_per_token(a, eager, 2, _frozen) == 2 * 2 * 4096


def test_gated_attention_output_and_layer_mean() -> None:
    a = qwen3_next()
    flash = TrainingSetup(method="lora", attention="flash")
    # sigmoid(gate) output 2 x 16 x 256; the gated product o_proj saves when it trains
    assert gated_attention_output_saved_per_token(a, flash, 2, _frozen) == 2 * 4096
    assert gated_attention_output_saved_per_token(a, flash, 2, _trained) == 2 * 2 * 4096
    t = TrainingSetup(method="full", attention="flash", grad_checkpointing=False)
    attn = _layer_saved_bytes_per_token(a, t, 2, 4096)
    lin = _layer_saved_bytes_per_token(a, t, 2, 4096, mixer="linear_attention")
    mean, largest = layer_saved_bytes_per_token(a, t, 2, 4096)
    assert mean == pytest.approx((12 * attn + 36 * lin) / 48)
    assert largest == max(attn, lin)


GPU = GpuSpec(id="card", name="Card", memory_gib=80, bf16_tflops=120, measured_bf16_tflops=100,
              memory_bandwidth_gbps=1000, segment="datacenter", compute_capability=8.0, sm_count=0)
R = 100e12 * 257.5 / 271.2  # as in test_steptime: measured ceiling x the Ampere sustained share


def test_delta_rule_flops_and_time() -> None:
    a = qwen3_next()
    # per value head, C = 64, d_k = d_v = 128: forward 2C (3 d_k + 2 d_v) + 6 d_k d_v,
    # backward 2C (7 d_k + 5 d_v) + 16 d_k d_v + 4 C^2
    fwd = 2 * 64 * (3 * 128 + 2 * 128) + 6 * 128 * 128
    bwd = 2 * 64 * (7 * 128 + 5 * 128) + 16 * 128 * 128 + 4 * 64 * 64
    assert (fwd, bwd) == (180_224, 475_136)
    assert gated_deltanet_flops_per_token(a) == (32 * fwd, 32 * bwd)
    # vllm#38981: 8192 tokens x 16 heads at 0.412 ms on a B200 (ceiling 1,745 TFLOPS)
    assert GDN_SHARE == pytest.approx(8192 * 16 * 180_224 / 0.412e-3 / 1745e12)
    assert GDN_SHARE == pytest.approx(0.0329, abs=0.0001)
    t = TrainingSetup(method="lora", micro_batch=1, seq_len=2048, grad_checkpointing=False, framework="optimized")
    term = step_time(a, t, GPU, 2048.0).term("attention")
    gdn_flops = 36 * 2048 * 32 * (fwd + bwd)
    assert term.part("linear_attention_flops") == pytest.approx(gdn_flops)
    softmax = 12 * 2 * 2048 * (2049 / 2) * 16 * (256 + 256) * 3.5  # only the 12 full-attention layers
    assert term.part("flops") == pytest.approx(softmax)
    assert term.value == pytest.approx(softmax / term.part("rate") + gdn_flops / (R * GDN_SHARE))
    # checkpointing runs the forward twice
    gc = step_time(a, t.model_copy(update={"grad_checkpointing": True}), GPU, 2048.0).term("attention")
    assert gc.part("linear_attention_flops") == pytest.approx(36 * 2048 * 32 * (2 * fwd + bwd))


def test_model_flops_count_both_layer_kinds() -> None:
    a = qwen3_next()
    t = TrainingSetup(method="full", seq_len=4096, grad_checkpointing=False)
    model, _ = flops_per_token(a, t)
    # 6N + 6 x 12 layers x s x (q_dim + attn_out) + 36 layers x (fwd + bwd) of the delta rule
    assert model == pytest.approx(6 * 3_562_373_120 + 6 * 12 * 4096 * (4096 + 4096) + 36 * 32 * (180_224 + 475_136))


def test_cli_estimates_qwen3_next(tmp_path: Path) -> None:
    config = tmp_path / "Qwen3-Next" / "config.json"
    config.parent.mkdir()
    config.write_text(json.dumps(QWEN3_NEXT), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--config", str(config), "--method", "lora",
                          "--gpu", "h100-80gb-sxm", "--gpus", "8", "--sharding", "zero3", "--json"],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)[0]["parameters"] == 79_674_391_296
