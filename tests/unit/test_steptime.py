"""The step model's terms, each computed by hand on a small model and a card with round numbers.

Model: 2 layers, hidden 1024, 8 heads x 128 (q 1024), 8 KV heads (kv 1024), gated MLP 4096, vocab 32000, untied.
Card: measured ceiling 100 TFLOPS, 1000 GB/s spec (880 GB/s achieved at BW_EFFICIENCY 0.88), SM count 0 (no wave
quantisation), compute capability 8.0 (FlashAttention, Ampere table), PCIe 4.0 x16.
"""

from __future__ import annotations

import math

import pytest

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.scenario import GpuSpec, TrainingSetup
from tuneplan.core.steptime import (
    BW_EFFICIENCY,
    CPU_ADAM_PARAMS_PER_S,
    FLASH_TFLOPS,
    NCCL_EFFICIENCY,
    NO_P2P_SHARE,
    OP_HOST_S,
    OVERLAP_SLOWDOWN,
    PCIE_EFFICIENCY,
    SUSTAINED_SHARE,
    flash_share,
    link_bandwidth,
    optimizer_bytes_per_param,
    pcie_bandwidth,
    step_time,
    wave_efficiency,
)

ARCH = ModelArchitecture(name="tiny", hidden_size=1024, num_layers=2, num_attention_heads=8, num_kv_heads=8,
                         head_dim=128, intermediate_size=4096, vocab_size=32000)
GPU = GpuSpec(id="card", name="Card", memory_gib=24, bf16_tflops=120, measured_bf16_tflops=100,
              memory_bandwidth_gbps=1000, segment="datacenter", compute_capability=8.0, sm_count=0)
R = 100e12 * 257.5 / 271.2  # measured ceiling x sustained share at the power cap (A100 figure, cc 8.0)
BW = 1000e9 * 0.88
# one layer's linears (in, out): q, k, v, o 1024x1024; gate, up 1024x4096; down 4096x1024
LINEARS = [(1024, 1024)] * 4 + [(1024, 4096)] * 2 + [(4096, 1024)]


def gemm(m, k, n, e=2.0):
    """max(2MKN / R, e(MK + KN + MN) / BW) for a card without wave quantisation."""
    return max(2 * m * k * n / R, e * (m * k + k * n + m * n) / BW)


def test_constants_are_the_cited_measurements():
    assert BW_EFFICIENCY == 0.88  # 1,355/1,555 and 1,727/1,935 GB/s memcopies
    assert OP_HOST_S == pytest.approx(48.8e-3 / 2468)  # eager vs CUDA-graph Llama-3.2-1B step on a B200
    assert NCCL_EFFICIENCY == 0.80 and PCIE_EFFICIENCY == 0.80
    assert SUSTAINED_SHARE == {"hopper": pytest.approx(700 / 760), "ampere": pytest.approx(257.5 / 271.2)}
    assert OVERLAP_SLOWDOWN == 0.189
    assert NO_P2P_SHARE == pytest.approx(7 / 25)
    assert CPU_ADAM_PARAMS_PER_S["deepspeed"] == pytest.approx(11.6e9 / 8.2)


def test_matmul_term_full_fine_tuning_by_hand():
    # full FT, checkpointing off, micro-batch 2 x 512 = 1024 tokens: per layer linear forward T x in -> out,
    # activation gradient T x out -> in, weight gradient in x T -> out; LM head likewise with 1024 -> 32000
    t = TrainingSetup(method="full", micro_batch=2, seq_len=512, grad_checkpointing=False, framework="optimized")
    st = step_time(ARCH, t, GPU, 512.0)
    T = 1024
    per_layer = sum(gemm(T, i, o) + gemm(T, o, i) + gemm(i, T, o) for i, o in LINEARS)
    head = gemm(T, 1024, 32000) + gemm(T, 32000, 1024) + gemm(1024, T, 32000)
    assert st.term("matmul").value == pytest.approx(2 * per_layer + head)
    flops = 3 * (2 * 2 * T * sum(i * o for i, o in LINEARS) + 2 * T * 1024 * 32000)
    assert st.term("matmul").part("flops") == pytest.approx(flops)


def test_matmul_term_lora_adds_thin_adapters_and_skips_frozen_weight_gradients():
    # LoRA r=8 on q,v with checkpointing: base linears forward twice (recompute) + activation gradient, no dW;
    # each adapter A (1024 -> 8) and B (8 -> 1024): forward twice, dX once, dW once
    t = TrainingSetup(method="lora", lora_rank=8, lora_targets="q_v", micro_batch=1, seq_len=1024,
                      grad_checkpointing=True, framework="optimized")
    st = step_time(ARCH, t, GPU, 1024.0)
    T = 1024
    base = 2 * sum(2 * gemm(T, i, o) + gemm(T, o, i) for i, o in LINEARS)
    head = gemm(T, 1024, 32000) + gemm(T, 32000, 1024)
    a = 2 * gemm(T, 1024, 8) + gemm(T, 8, 1024) + gemm(1024, T, 8)  # A: 8 x 1024
    b = 2 * gemm(T, 8, 1024) + gemm(T, 1024, 8) + gemm(8, T, 1024)  # B: 1024 x 8
    assert st.term("matmul").value == pytest.approx(base + head + 2 * 2 * (a + b))


def test_wave_quantisation_follows_the_tiles():
    # 256 x 128 tiles on 108 SMs: 1024^2 output = 4 x 8 = 32 tiles in one wave -> 32/108 without split-K (k = 256:
    # one slice); with k = 1024 the depth splits 3 ways (108 // 32), 96 units in one wave -> 96/108
    assert wave_efficiency(1024, 1024, 108, 256) == pytest.approx(32 / 108)
    assert wave_efficiency(1024, 1024, 108, 1024) == pytest.approx(96 / 108)
    # 4096^2: 16 x 32 = 512 tiles, 5 waves of 108 -> 512/540 (enough tiles: no split)
    assert wave_efficiency(4096, 4096, 108, 4096) == pytest.approx(512 / 540)
    assert wave_efficiency(10, 10, 0) == 1.0


def test_attention_term_flash_by_hand():
    # causal: 4 x T x q_dim x (s+1)/2 FLOPs forward per layer, backward 2.5x; at seq 2048, head dim 128 the
    # Ampere table gives 155 TFLOPS on a 271.2-TFLOPS card: share 155/271.2 of this card's 100 TFLOPS
    t = TrainingSetup(method="lora", micro_batch=1, seq_len=2048, grad_checkpointing=False, framework="optimized")
    st = step_time(ARCH, t, GPU, 2048.0)
    fwd = 4 * 2048 * 1024 * (2049 / 2)
    rate = R * 155 / 271.2
    assert st.term("attention").value == pytest.approx(2 * fwd * 3.5 / rate)
    # checkpointing recomputes the forward: 4.5 forwards' worth
    st_gc = step_time(ARCH, t.model_copy(update={"grad_checkpointing": True}), GPU, 2048.0)
    assert st_gc.term("attention").value == pytest.approx(2 * fwd * 4.5 / rate)


def test_attention_term_flash1_by_hand():
    # FlashAttention 1 on the same charts: 69 TFLOPS at seq 2048, head dim 128 (causal, A100 80GB SXM4); an
    # Ampere card of 100 TFLOPS gets the share 69/271.2 of its sustained rate, about 0.45x FlashAttention 2's
    t = TrainingSetup(method="lora", micro_batch=1, seq_len=2048, grad_checkpointing=False, framework="optimized",
                      attention="flash1")
    st = step_time(ARCH, t, GPU, 2048.0)
    fwd = 4 * 2048 * 1024 * (2049 / 2)
    assert st.term("attention").value == pytest.approx(2 * fwd * 3.5 / (R * 69 / 271.2))
    assert st.term("attention").detail == "flash1"
    # on Hopper its own table: 108 TFLOPS at 2k on the 794.5-TFLOPS reference H100
    hopper = GPU.model_copy(update={"compute_capability": 9.0})
    st_h = step_time(ARCH, t, hopper, 2048.0)
    rate_h = 100e12 * 700.0 / 760.0 * 108 / 794.5  # Hopper sustained share
    assert st_h.term("attention").value == pytest.approx(2 * fwd * 3.5 / rate_h)


def test_attention_on_data_centre_blackwell_runs_flash2_at_its_measured_rate():
    # FlashAttention-2 on a B200 (compute capability 10.0) runs its mma.sync kernels: head dim 128, seq 2048,
    # causal: the H100 chart's 265 TFLOPS x (321 / 274, B200 / H100 without the mask at head dim 64) = 310,
    # on the B200's 1,745-TFLOPS ceiling, not the Hopper share 265 / 794.5 of the card's own ceiling
    t = TrainingSetup(method="lora", micro_batch=1, seq_len=2048, grad_checkpointing=False, framework="optimized")
    fwd = 4 * 2048 * 1024 * (2049 / 2)
    b200 = GPU.model_copy(update={"compute_capability": 10.0})
    st = step_time(ARCH, t, b200, 2048.0)
    assert round(265 * 321 / 274) == 310
    rate = 100e12 * 700.0 / 760.0 * 310 / 1745.0
    assert st.term("attention").value == pytest.approx(2 * fwd * 3.5 / rate)
    hopper = GPU.model_copy(update={"compute_capability": 9.0})
    rate_h = 100e12 * 700.0 / 760.0 * 265 / 794.5
    assert step_time(ARCH, t, hopper, 2048.0).term("attention").value == pytest.approx(2 * fwd * 3.5 / rate_h)


def test_flash_share_interpolates_in_log_sequence_and_head_dim():
    amp = FLASH_TFLOPS["ampere"]
    assert flash_share(amp, 128, 4096) == pytest.approx(173 / 271.2)
    assert flash_share(amp, 64, 2048) == pytest.approx(140 / 271.2)
    # halfway between 2k and 4k in log2: midpoint of 155 and 173
    assert flash_share(amp, 128, 2048 * math.sqrt(2)) == pytest.approx(164 / 271.2)
    # head dim 96: halfway between the 64 and 128 rows
    assert flash_share(amp, 96, 1024) == pytest.approx((119 + 133) / 2 / 271.2)


def test_eager_attention_scales_with_bandwidth():
    t = TrainingSetup(method="lora", micro_batch=1, seq_len=1024, attention="eager", grad_checkpointing=False)
    st = step_time(ARCH, t, GPU, 1024.0)
    fwd = 4 * 1024 * 1024 * (1025 / 2)
    rate = 28.5e12 * 1000e9 / 2039e9  # 28.5 TFLOPS measured on an A100 80GB SXM4 (2,039 GB/s)
    assert st.term("attention").value == pytest.approx(2 * fwd * 3.5 / rate)


def test_other_kernels_fused_stack_by_hand():
    # fused stack, LoRA without dropout on q,v, no checkpointing, 1 x 1024 tokens. Per token per layer forward:
    # 2 norms x 4d + rotary 8(q+kv) + residuals 12d + SwiGLU 6f + LoRA adds 6 x out for q and v:
    d, f = 1024, 4096
    per = 2 * 4 * d + 8 * (1024 + 1024) + 12 * d + 6 * f + 2 * 6 * 1024
    layer = 2 * per * 1024 * (1 + 1.5)  # forward + backward (1.5x)
    ce = 1024 * 32000 * 8  # fused cross-entropy: 8 B per logit
    t = TrainingSetup(method="lora", lora_rank=8, lora_targets="q_v", lora_dropout=0.0, micro_batch=1, seq_len=1024,
                      grad_checkpointing=False, framework="optimized")
    st = step_time(ARCH, t, GPU, 1024.0)
    assert st.term("other_kernels").part("bytes") == pytest.approx(layer + ce)
    assert st.term("other_kernels").value == pytest.approx((layer + ce) / BW)


def test_other_kernels_unfused_hf_adds_casts_layout_and_dropout():
    d, f, q, kv = 1024, 4096, 1024, 1024
    # transformers' eager RMSNorm and rotary as Liger-Kernel timed them on an A100-SXM4-80GB (benchmark/data/
    # all_benchmark_data.csv @2120862), in bytes per element at 0.88 x 2,039 GB/s: RMSNorm 2048 x 32768 forward
    # 1.919 ms, backward 5.015 ms; rotary over 16,384 x 40 heads x 256 forward 3.817 ms, backward 4.557 ms
    bw = 0.88 * 2039e9
    norm_f, norm_b = 1.919e-3 * bw / (2048 * 32768), 5.015e-3 * bw / (2048 * 32768)  # 51.3, 134.1 B
    rope_f, rope_b = 3.817e-3 * bw / (16384 * 40 * 256), 4.557e-3 * bw / (16384 * 40 * 256)  # 40.8, 48.7 B
    measured_f = 2 * d * norm_f + (q + kv) * rope_f
    measured_b = 2 * d * norm_b + (q + kv) * rope_b
    rest = 8 * (q + kv) + 12 * d + 10 * f + 2 * (5 * 1024 + 6 * 1024)  # layout copies, residuals, SwiGLU, LoRA
    layer = 2 * 1024 * (measured_f + rest + measured_b + 1.5 * rest)
    # HF loss: logits.float() (2 + 4 B), the fp32 cross-entropy measured at 20.726 ms forward and 60.438 ms forward
    # and backward over 8 x 2048 x 131072 logits, the cast back in the backward (4 + 2 B)
    logits = 8 * 2048 * 131072
    ce = 1024 * 32000 * (6 + 60.438e-3 * bw / logits + 6)
    t = TrainingSetup(method="lora", lora_rank=8, lora_targets="q_v", lora_dropout=0.05, micro_batch=1, seq_len=1024,
                      grad_checkpointing=False, framework="hf")
    st = step_time(ARCH, t, GPU, 1024.0)
    assert st.term("other_kernels").part("bytes") == pytest.approx(layer + ce)


def test_qlora_dequantises_every_weight_per_use():
    t = TrainingSetup(method="qlora", micro_batch=1, seq_len=1024, grad_checkpointing=True, framework="optimized")
    st = step_time(ARCH, t, GPU, 1024.0)
    layer_params = 2 * sum(i * o for i, o in LINEARS)
    from tuneplan.core.memory import nf4_bytes_per_param
    # three uses (forward, recompute, activation gradient) x (read NF4 + write bf16)
    assert st.term("other_kernels").part("dequant_bytes") == pytest.approx(
        3 * layer_params * (nf4_bytes_per_param(True) + 2.0))


def test_optimizer_bytes_per_parameter():
    # foreach AdamW on bf16 parameters and states: 14 x 2 + 3 x 2 + 4 x 2 = 42, plus clipping 3 x 2
    assert optimizer_bytes_per_param(TrainingSetup(method="full", optimizer="adamw")) == 42 + 6
    # fused AdamW with an fp32 master copy: 2p + g + 4s = 8 + 4 + 16, + 2 (bf16 copy), + 12 clipping
    assert optimizer_bytes_per_param(TrainingSetup(method="full", optimizer="adamw-fused", master_weights="fp32")) \
        == 28 + 2 + 12
    # 8-bit AdamW: states 1 B + absmax/2048
    assert optimizer_bytes_per_param(TrainingSetup(method="full", optimizer="adamw-8bit")) == pytest.approx(
        4 + 2 + 4 * (1 + 4 / 2048) + 6)


def test_optimizer_term_full_fine_tuning():
    t = TrainingSetup(method="full", optimizer="adamw-fused", micro_batch=1, seq_len=512, framework="optimized")
    st = step_time(ARCH, t, GPU, 512.0)
    params = ARCH.parameter_count()
    assert st.term("optimizer").value == pytest.approx(params * (2 * 2 + 2 + 4 * 2 + 6) / BW)


def test_host_overhead_counts_launches_beyond_gpu_time():
    # tiny micro-batch on the unfused stack: host time per micro-batch = ops x OP_HOST_S exceeds the GPU's
    t = TrainingSetup(method="lora", lora_targets="q_v", micro_batch=1, seq_len=16, grad_checkpointing=False,
                      framework="hf")
    st = step_time(ARCH, t, GPU, 16.0)
    # norms 8 each, projections, rotary, attention + layout, MLP, residuals; PEFT's lora.Linear 7 per adapter
    ops_layer = 8 * 2 + 4 + 16 + 8 + 5 + 2 + 2 * 7
    ops = ops_layer * 2 * 2 + 20  # 2 layers x (forward + backward) + 20 outside the layers
    gpu_mb = sum(st.term(k).value for k in ("matmul", "attention", "other_kernels"))
    assert st.term("fixed").value == pytest.approx(ops * OP_HOST_S - gpu_mb)
    assert st.bound == "overhead"


def test_links():
    # PCIe 4.0 x16: 16 GT/s x 16 lanes x 128/130 / 8 = 31.5 GB/s x 0.8
    assert pcie_bandwidth(GPU) == pytest.approx(16e9 * 16 * 128 / 130 / 8 * 0.8)
    nv = GPU.model_copy(update={"interconnect": "NVLink 3 (NVSwitch)", "p2p_link_gbps": 600})
    assert link_bandwidth(nv, 8) == (pytest.approx(300e9 * 0.8), "nvlink")
    # beyond a node: the slower of NVLink and the node's eight 200 Gb/s HDR adapters (one per A100-class GPU)
    # together, at the 200 of 400 GB/s a ring all-gather reached across 32 H100 nodes: 8 x 25 x 0.5 = 100 GB/s
    assert link_bandwidth(nv, 16) == (pytest.approx(8 * 25e9 * 0.5), "infiniband")
    # an H100-class node: 8 x 50 GB/s NDR x 0.5 = 200 GB/s, below its NVLink ring's 450 x 0.8 = 360
    h100 = nv.model_copy(update={"id": "h100_sxm", "p2p_link_gbps": 900})
    assert link_bandwidth(h100, 64) == (pytest.approx(8 * 50e9 * 0.5), "infiniband")
    assert link_bandwidth(h100, 8) == (pytest.approx(450e9 * 0.8), "nvlink")
    consumer = GPU.model_copy(update={"segment": "consumer"})
    assert link_bandwidth(consumer, 2)[1] == "pcie-host"
    assert link_bandwidth(consumer, 2)[0] == pytest.approx(pcie_bandwidth(GPU) * 7 / 25)


def test_ddp_all_reduce_hides_behind_the_backward():
    # LoRA DDP on 2 cards over PCIe: one all-reduce of the fp32 adapter gradients per step,
    # 2 (n-1)/n x bytes / link, minus the last micro-batch's backward
    t = TrainingSetup(method="lora", lora_rank=8, lora_targets="q_v", micro_batch=1, seq_len=1024, num_gpus=2,
                      sharding="ddp", grad_checkpointing=False, framework="optimized")
    st = step_time(ARCH, t, GPU, 1024.0)
    adapters = 2 * 2 * 8 * (1024 + 1024)  # 2 layers x q,v x r (in + out)
    volume = 2 * 0.5 * adapters * 4
    assert st.term("communication").part("bytes") == pytest.approx(volume)
    # the 131 kB of gradients fit DDP's first 1 MiB bucket: one all-reduce over PCIe, 2 ranks in one node, timed
    # as NCCL's cost model does (src/graph/tuning.cc): no LL128 without NVLink; LL = (6.6 + 2 steps x 1.0) us +
    # bytes x 2/2 over half the bus; Simple = (8.4 + 2 x 5.7) us + bytes over the bus; the faster one
    link = pcie_bandwidth(GPU)
    grads = adapters * 4
    ll = 8.6e-6 + grads / min(87.7e9, 0.5 * link)
    simple = 19.8e-6 + grads / link
    one = min(ll, simple)
    assert st.term("communication").part("collectives") == 1
    assert st.term("communication").part("latency") == pytest.approx(one - grads / link)
    # it hides behind the backward; the compute beside it runs 18.9 % slower
    assert st.term("communication").part("overlapped") == pytest.approx(one)
    assert st.term("communication").value == pytest.approx(0.189 * one)


def test_fsdp_gathers_weights_twice_per_micro_batch():
    t = TrainingSetup(method="full", micro_batch=1, seq_len=128, num_gpus=4, sharding="fsdp", grad_accumulation=2,
                      grad_sync="micro-batch", grad_checkpointing=False, framework="optimized")
    st = step_time(ARCH, t, GPU, 128.0)
    p = ARCH.parameter_count()
    gather = 0.75 * p * 2
    volume = 2 * gather * 2 + 0.75 * p * 2 * 2  # 2 gathers x 2 micro-batches + a reduce-scatter per micro-batch
    assert st.term("communication").part("bytes") == pytest.approx(volume)


def test_cpu_offload_moves_weights_over_pcie_and_steps_on_the_cpu():
    t = TrainingSetup(method="full", micro_batch=1, seq_len=512, cpu_offload=True, grad_checkpointing=False,
                      framework="optimized", optimizer="adamw-fused")
    st = step_time(ARCH, t, GPU, 512.0)
    p = ARCH.parameter_count()
    off = st.term("offload")
    # torch's fused CPU AdamW (FSDP offload): bf16 p, g, m, v read and p, m, v written (2 x 2 + 2 + 4 x 2 = 14 B)
    # plus gradient clipping's 3 x 2 B = 20 B per parameter, at DeepSpeed CPU-Adam's host traffic: 11.6e9 x 30 B
    # in 8.2 s = 42.4 GB/s
    assert off.part("cpu_seconds") == pytest.approx(p * 20 / (11.6e9 * 30 / 8.2))
    assert off.part("pcie_bytes") == pytest.approx(2 * p * 2 + p * 2)  # weights in twice, gradients out once
    assert st.term("optimizer").value == 0.0
    # torch's default AdamW on CPU tensors is the for-loop implementation: 11.6e9 parameters in 56 s
    plain = step_time(ARCH, t.model_copy(update={"optimizer": "adamw"}), GPU, 512.0).term("offload")
    assert plain.part("cpu_seconds") == pytest.approx(p / (11.6e9 / 56.0))


def test_terms_add_up_and_throughput_never_falls_with_micro_batch():
    for method in ("full", "lora", "qlora"):
        prev = 0.0
        for mb in (1, 2, 4, 8, 16):
            t = TrainingSetup(method=method, micro_batch=mb, seq_len=512, framework="hf")
            st = step_time(ARCH, t, GPU, 512.0)
            assert sum(term.value for term in st.terms) == pytest.approx(st.seconds)
            tps = st.tokens / st.seconds
            assert tps >= prev * 0.999
            prev = tps


def test_paged_spill_crosses_pcie_twice():
    t = TrainingSetup(method="full", micro_batch=1, seq_len=512, framework="optimized")
    st = step_time(ARCH, t, GPU, 512.0, spilled_bytes=10e9)
    assert st.term("offload").value == pytest.approx(2 * 10e9 / pcie_bandwidth(GPU))


def test_activation_offload_is_exposed_only_beyond_the_compute():
    # 1 GB out and back per micro-batch over PCIe 4.0 x16 at 25.2 GB/s = 79.4 ms, hidden behind the micro-batch's
    # GPU time when that is longer; the excess is exposed
    t = TrainingSetup(method="lora", micro_batch=1, seq_len=512, activation_offload=True, framework="optimized",
                      grad_checkpointing=False)
    st = step_time(ARCH, t, GPU, 512.0, activation_bytes=1e9)
    gpu_mb = sum(st.term(k).value for k in ("matmul", "attention", "other_kernels"))
    transfer = 2 * 1e9 / pcie_bandwidth(GPU)
    assert transfer > gpu_mb  # a tiny model: the copies outlast the math
    assert st.term("offload").value == pytest.approx(transfer - gpu_mb)
    off = step_time(ARCH, t.model_copy(update={"activation_offload": False}), GPU, 512.0, activation_bytes=1e9)
    assert off.term("offload").value == 0.0


def test_matmul_formula_parts_add_up_to_the_value():
    # the value is the compute-bound GEMMs' seconds plus the memory-bound ones', per micro-batch x micro-batches
    t = TrainingSetup(method="lora", lora_rank=8, micro_batch=1, seq_len=256, grad_accumulation=3, framework="hf")
    st = step_time(ARCH, t, GPU, 256.0)
    mm = st.term("matmul")
    assert mm.part("memory_seconds") > 0 and mm.part("compute_seconds") > 0  # thin LoRA GEMMs are memory-bound
    assert mm.value == pytest.approx(3 * (mm.part("compute_seconds") + mm.part("memory_seconds")))
    assert mm.part("compute_seconds") == pytest.approx(mm.part("compute_flops") / mm.part("effective_rate"))
    assert mm.part("memory_seconds") == pytest.approx(mm.part("memory_bytes") / mm.part("bandwidth"))
    fx = st.term("fixed")
    assert fx.value == pytest.approx(max(fx.part("ops") * fx.part("op_seconds") - fx.part("gpu_seconds"), 0.0))


def test_no_single_limit_when_none_takes_half_the_step():
    from tuneplan import catalog

    arch = catalog.get_model("qwen2.5-1.5b").architecture
    seen = set()
    for mb, seq in ((1, 256), (1, 128), (2, 512), (8, 2048)):
        t = TrainingSetup(method="full", micro_batch=mb, seq_len=seq, framework="hf")
        st = step_time(arch, t, catalog.get_gpu("a100_80gb_sxm"), float(seq))
        sh = {term.key: term.value / st.seconds for term in st.terms}
        mem_mm = st.term("matmul").part("memory_seconds") / st.seconds
        classes = {"compute": sh["matmul"] + sh["attention"] - mem_mm,
                   "memory": sh["other_kernels"] + sh["optimizer"] + mem_mm, "overhead": sh["fixed"]}
        top = max(classes, key=classes.get)
        assert st.bound == (top if classes[top] >= 0.5 else "mixed")
        seen.add(st.bound)
    assert len(seen) >= 2

def test_zero_stages_move_what_ddp_moves():
    # ZeRO-1/2 (arXiv:1910.02054 §7.2): reduce-scatter the gradients (ZeRO-2 every micro-batch, ZeRO-1 once) and
    # all-gather the updated trainable parameters once, in the model dtype; LoRA gathers only the adapters
    base = dict(method="lora", lora_rank=8, lora_targets="q_v", micro_batch=1, seq_len=512, num_gpus=4,
                grad_accumulation=3, framework="optimized")
    adapters = 2 * 2 * 8 * (1024 + 1024)
    ring = 3 / 4
    z2 = step_time(ARCH, TrainingSetup(**base, sharding="zero2"), GPU, 512.0)
    assert z2.term("communication").part("bytes") == pytest.approx(ring * adapters * 4 * 3 + ring * adapters * 2)
    z1 = step_time(ARCH, TrainingSetup(**base, sharding="zero1"), GPU, 512.0)
    assert z1.term("communication").part("bytes") == pytest.approx(ring * adapters * 4 + ring * adapters * 2)


def test_fsdp_exposure_never_goes_negative():
    # a tiny step on PCIe-host links: collectives outlast the compute; what is hidden is never below zero
    consumer = GPU.model_copy(update={"segment": "consumer"})
    for seq in (1, 16, 512):
        t = TrainingSetup(method="full", micro_batch=1, seq_len=seq, num_gpus=2, sharding="fsdp",
                          framework="optimized")
        comm = step_time(ARCH, t, consumer, float(seq)).term("communication")
        assert comm.part("overlapped") >= 0 and comm.part("contention") >= 0
        assert comm.value >= comm.part("exposed") > 0


def test_forward_time_counts_only_the_forward():
    # LoRA has no weight gradients: its backward (dX only) is about as long as its forward; full fine-tuning's
    # backward (dX and dW) about twice. Forward GEMMs by hand for LoRA: each linear once plus the LM head.
    T = 1024
    lora = TrainingSetup(method="lora", lora_rank=8, lora_targets="q_v", micro_batch=1, seq_len=1024,
                         grad_checkpointing=False, framework="optimized")
    st = step_time(ARCH, lora, GPU, 1024.0)
    gemm_fwd = 2 * sum(gemm(T, i, o) for i, o in LINEARS) + gemm(T, 1024, 32000) \
        + 2 * 2 * (gemm(T, 1024, 8) + gemm(T, 8, 1024))
    assert st.forward_seconds > gemm_fwd  # plus attention's forward and the elementwise bytes
    gpu_mb = sum(st.term(k).value for k in ("matmul", "attention", "other_kernels"))
    full = step_time(ARCH, lora.model_copy(update={"method": "full"}), GPU, 1024.0)
    gpu_full = sum(full.term(k).value for k in ("matmul", "attention", "other_kernels"))
    assert 0.35 < st.forward_seconds / gpu_mb < 0.55
    assert 0.25 < full.forward_seconds / gpu_full < 0.40


def test_wave_quantisation_slows_small_gemms_through_step_time():
    # the same plan on a card with 108 SMs: a 256-token micro-batch fills few tiles, so GEMMs take longer than at
    # the ceiling; at 8,192 tokens the waves are nearly full
    sm = GPU.model_copy(update={"sm_count": 108})
    t = TrainingSetup(method="full", micro_batch=1, seq_len=256, framework="optimized", grad_checkpointing=False)
    small_free, small_sm = step_time(ARCH, t, GPU, 256.0), step_time(ARCH, t, sm, 256.0)
    small = small_sm.term("matmul").value / small_free.term("matmul").value
    big = t.model_copy(update={"seq_len": 8192})
    large = step_time(ARCH, big, sm, 8192.0).term("matmul").value / step_time(ARCH, big, GPU, 8192.0).term(
        "matmul").value
    # 256 x 1024 outputs: 8 tiles, split 4 ways (k = 1024) -> 32 of 108 SMs; 8192 x 1024: 256 tiles in 3 waves
    assert small > 1.3 and 1.0 < large < 1.3 and small > large


def test_grouped_experts_fill_the_gpu_where_an_expert_loop_does_not():
    from tuneplan import catalog

    moe = catalog.get_model("qwen3-30b-a3b").architecture
    gpu = catalog.get_gpu("h100_sxm")
    t = TrainingSetup(method="full", micro_batch=1, seq_len=4096, grad_checkpointing=False)
    loop = step_time(moe, t.model_copy(update={"framework": "hf"}), gpu, 4096.0).term("matmul")
    grouped = step_time(moe, t.model_copy(update={"framework": "optimized"}), gpu, 4096.0).term("matmul")
    assert grouped.part("flops") == pytest.approx(loop.part("flops"))  # the same work
    assert grouped.value < 0.8 * loop.value  # 128 experts of 256 tokens each: small tiles, partial waves


def test_sliding_window_counts_only_the_windowed_layers():
    # 2 layers, window 512 on one of them, rows of 4096 tokens: the local layer sees 512 - 512^2 / 8192 = 480 keys
    # per query on average, the global one (4096 + 1) / 2 = 2048.5; the mean over the two layers is 1264.25
    gemma_like = ARCH.model_copy(update={"sliding_window": 512, "sliding_window_layers": 1})
    t = TrainingSetup(method="lora", micro_batch=1, seq_len=4096, framework="optimized")
    att = step_time(gemma_like, t, GPU, 4096.0).term("attention")
    assert att.part("keys_per_query") == pytest.approx((480 + 2048.5) / 2)
    every = ARCH.model_copy(update={"sliding_window": 512})  # Mistral v0.1: every layer
    assert step_time(every, t, GPU, 4096.0).term("attention").part("keys_per_query") == pytest.approx(480)


def test_configs_say_which_layers_slide():
    from tuneplan.core.architecture import architecture_from_hf_config

    base = {"model_type": "qwen2", "hidden_size": 896, "num_hidden_layers": 24, "num_attention_heads": 14,
            "num_key_value_heads": 2, "intermediate_size": 4864, "vocab_size": 151936}
    assert architecture_from_hf_config({**base, "sliding_window": 32768, "use_sliding_window": False}).sliding_window is None
    g2 = {**base, "model_type": "gemma2", "sliding_window": 4096, "num_hidden_layers": 42}
    assert architecture_from_hf_config(g2).sliding_window_layers == 21  # alternating, local first
    g3 = {**base, "model_type": "gemma3_text", "sliding_window": 512, "num_hidden_layers": 26,
          "sliding_window_pattern": 6}
    assert architecture_from_hf_config(g3).sliding_window_layers == 26 - 4  # every 6th layer global
    types = ["sliding_attention", "full_attention"] * 12
    assert architecture_from_hf_config({**base, "sliding_window": 128, "layer_types": types}).sliding_window_layers == 12


def test_flash_attention_1_runs_on_turing_not_volta():
    from tuneplan import catalog
    from tuneplan.core.compare import missing_support

    t = TrainingSetup(method="lora", micro_batch=1, seq_len=1024, attention="flash1", precision="fp16")
    turing, volta = catalog.get_gpu("t4"), catalog.get_gpu("v100_32gb")
    assert step_time(ARCH, t, turing, 1024.0).term("attention").detail == "flash1"  # FA1's README: T4 included
    assert missing_support(turing, t) == []
    assert missing_support(volta, t) == ["FlashAttention 1"]
    assert step_time(ARCH, t, volta, 1024.0).term("attention").detail == "sdpa-efficient"


@pytest.mark.parametrize(("mode", "micro_batch", "kernel"), [
    ("packed", 4, "sdpa-flash"),  # no padding: transformers drops the all-ones mask, SDPA takes its flash backend
    ("dynamic", 1, "sdpa-flash"),  # one row per micro-batch: nothing to pad
    ("dynamic", 4, "sdpa-efficient"),  # rows padded to the longest: a 4-D mask, which flash refuses
    ("fixed", 1, "sdpa-efficient"),  # padded to seq_len
])
def test_sdpa_with_a_padding_mask_runs_the_memory_efficient_kernel(mode, micro_batch, kernel):
    t = TrainingSetup(method="lora", micro_batch=micro_batch, seq_len=1024, sequence_mode=mode, attention="sdpa",
                      grad_checkpointing=False, framework="hf")
    gpu = GPU.model_copy(update={"compute_capability": 8.0})
    assert step_time(ARCH, t, gpu, 1024.0).term("attention").detail == kernel
    # torchtune calls SDPA causally and ignores the padding (its loss masks it): the flash backend either way
    tt = t.model_copy(update={"stack": "torchtune"})
    assert step_time(ARCH, tt, gpu, 1024.0).term("attention").detail == "sdpa-flash"
