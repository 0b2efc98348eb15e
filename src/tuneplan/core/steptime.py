"""One training step from the work it does on the chosen hardware (a roofline per kernel class).

A step of ``A`` micro-batches (gradient accumulation) of ``T = micro_batch x row`` tokens each on one GPU
takes, in seconds::

    step = A x max(gpu_mb, host_mb) + optimizer + exposed communication + exposed offload

    gpu_mb  = matmul + attention + other kernels                 (GPU time of one micro-batch)
    host_mb = operator launches x host time per launch            (the CPU enqueues kernels ahead of the
                                                                   GPU and only costs time when slower)

Terms (each a :class:`~tuneplan.core.terms.Term` with its parts; they add up to the step):

* ``matmul``: every GEMM of the forward, the recomputed forward (gradient checkpointing), the backward's
  activation gradients, the weight gradients of what is trained, and the LoRA adapters, with its real shape
  ``M x K x N`` (``M`` = tokens of the micro-batch; experts run per expert in eager stacks, grouped in fused
  ones), timed as ``max(2MKN / (R x wave efficiency), e(MK + KN + MN) / BW)`` (roofline: Williams et al. 2009,
  CACM 52(4); ``R`` the card's measured matmul ceiling at sustained load, wave efficiency from the output tiles
  and split-K on the card's SMs, ``BW`` its achieved memory bandwidth, ``e`` bytes per element).
* ``attention``: causal attention FLOPs (``2 T S heads (d_qk + d_v)`` forward, ``4 T q_dim S`` when the query/key
  and value head dims are equal, with ``S`` the mean keys per query: half the row, or the window in sliding-window
  layers; backward 2.5x the forward, FlashAttention-2 paper arXiv:2307.08691 §3.2) at the kernel's measured rate
  for that sequence length and head dim. Multi-head latent attention (DeepSeek-V2/V3) has ``d_qk = 192`` and
  ``d_v = 128``; with FlashAttention transformers pads the values to 192, so the kernel multiplies at 192 for both
  (:func:`attention_value_dim`).
* ``other_kernels``: bytes moved by norms, activations, rotary embeddings, residual adds, attention layout
  copies, LoRA dropout and adds, the cross-entropy over the vocabulary, NF4 dequantisation and autocast
  weight casts, divided by the achieved bandwidth. Unfused eager PyTorch (plain Hugging Face) and fused or
  compiled kernels (Unsloth, Liger, torchtune with ``torch.compile``) move different amounts.
* ``optimizer``: bytes per trainable parameter read and written by the optimizer step, over the bandwidth.
* ``communication``: DDP all-reduce, ZeRO reduce-scatter and all-gather, FSDP's gathers per micro-batch, over the
  link's bus bandwidth (NCCL's ring formulas, nccl-tests ``doc/PERFORMANCE.md``), minus what overlaps with
  compute, plus the slowdown of the compute that overlaps.
* ``offload``: parameters, gradients, activations and paged optimizer states crossing PCIe, and the CPU
  optimizer step, minus what overlaps.
* ``fixed``: host time per operator launch beyond the GPU's time.
* ``reference`` (DPO and KTO only, ``core/workload.py``): the forward passes without gradients of each micro-batch,
  the reference model's (its base GEMMs without LoRA, attention's forward, the forward's elementwise bytes and one
  log-softmax over its logits, NF4 dequantisation once) and KTO's KL batch through the policy; forward only, with
  gradient checkpointing switched off as TRL does (``disable_gradient_checkpointing``). Under ZeRO-3/FSDP each such
  pass gathers the weights once more.

Workloads (``TrainingSetup.workload``): a micro-batch of a pair workload (DPO, ORPO, reward model) is ``2 x micro_batch``
rows, chosen and rejected, so ``T`` counts both; the loss side is TRL's log-prob kernels
(:data:`~tuneplan.core.workload.LOGPROB_PASSES`) instead of the cross-entropy, and a reward model's head is one
output wide. Supervised fine-tuning is unchanged.

Every constant is a physical quantity; each names its source beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from tuneplan.core import collectives as nccl
from tuneplan.core import workload as wl
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.generation import DecodeRates, GenerationCost, generation_cost
from tuneplan.core.memory import (
    GDN_CHUNK,
    deepspeed_buffers,
    generates_in_evaluation,
    hqq_base,
    int8_base,
    lora_tensors,
    quantized_base_bytes_per_param,
    quantized_frozen_base,
    quantized_linear_weights,
    target_spec,
)
from tuneplan.core.scenario import GpuSpec, TrainingSetup
from tuneplan.core.stacks import sdpa_padding_mask
from tuneplan.core.terms import Quantity, Term

__all__ = [
    "BW_EFFICIENCY",
    "STEP_MODEL_VERSION",
    "StepTime",
    "TERM_KEYS",
    "achieved_bandwidth",
    "matmul_ceiling",
    "pcie_bandwidth",
    "step_time",
]

#: Version of the step model's arithmetic: a pilot's calibration is a ratio to the model's prediction, so one saved
#: under another version is not applied (bump on every change that moves predictions).
STEP_MODEL_VERSION = 5

TERM_KEYS = ("matmul", "attention", "other_kernels", "optimizer", "communication", "offload", "fixed")

# ----------------------------------------------------------------------------------------------- constants
_STAS = "https://github.com/stas00/ml-engineering/blob/744d01e18b79512572f64a6bbd8b5f4a725203a7"
_FA = "https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced"

#: Achieved share of the spec memory bandwidth for large streaming kernels: memcopy 1,355 of 1,555 GB/s on an
#: A100 40GB (87 %, github.com/PTsolvers/gpu-workshop-JuliaCon23/issues/7) and 1,727 of 1,935 GB/s on an A800
#: PCIe (89 %, github.com/mli/transformers-benchmarks/issues/4).
BW_EFFICIENCY = 0.88
#: What large real GEMMs reach of the catalog's matmul ceiling (MAMF: the best shape of a short sweep). Hopper: cuBLAS
#: BF16 at n = 4,096-16,384 held for ~4 s at the 700 W cap ran 0.7077 x 989.5 = 700 TFLOPS against 0.768 x 989.5 = 760
#: in short bursts on an H200 (clocks 1.2-1.4 GHz; github.com/tile-ai/TileOPs/pull/1980). Ampere: a large square
#: GEMM (8192^3, cuBLAS) on random data ran 257.5 TFLOPS on a 400 W A100 (thonking.ai "Strangely, matrix
#: multiplications on GPUs run faster when given predictable data", power-limited), against the 271.2 MAMF best
#: shape. By compute capability: 9.0-11.x (Hopper, data-centre Blackwell) take the Hopper figure, other cards
#: (Ampere, Ada, consumer Blackwell) the A100 figure, the nearest measured parts.
SUSTAINED_SHARE = {"hopper": 700.0 / 760.0, "ampere": 257.5 / 271.2}
#: Slowdown of computation that overlaps NCCL collectives (SMs and HBM bandwidth taken by the communication
#: kernels): 18.9 % on average over GPT and LLaMA training on 4 x A100 / H100 / MI250 / MI210 (arXiv:2507.03114);
#: charged on the compute time that hides communication.
OVERLAP_SLOWDOWN = 0.189
#: Measured-to-spec matmul ratio for a card without a measured ceiling in the catalog: the median of the catalog
#: cards that have one (gpus.csv ``measured_bf16_matmul_tflops`` / ``bf16_tflops_dense``).
DEFAULT_CEILING_SHARE = 0.83
#: GEMM output tile (M x N) for wave quantisation: cuBLAS computes the output in tiles, one per SM at a time, and a
#: partial last wave leaves SMs idle (NVIDIA "Matrix Multiplication Background User's Guide", tile and wave
#: quantization; 256 x 128 is one of its tile sizes). On an A100 (108 SMs) this gives 7 / 30 / 67 / 75 / 95 % of
#: the ceiling for square GEMMs of 512 / 1024 / 1536 / 2304 / 4096; cuBLAS measures about 11 / 33 / 55 / 90 / 96 %
#: (NVIDIA CUDA 11 blog chart, ``compute/accelerator/images/nvidia-a100-matmul-tflops.png`` in stas00/ml-engineering);
#: a 128 x 128 tile overstates the small sizes more (15 / 59 / 67 / 100 / 95 %).
GEMM_TILE = (256, 128)
#: Host seconds per operator in eager PyTorch with autograd, Hugging Face modules, per operator counted by
#: :func:`_ops_per_layer`: Llama-3.2-1B, micro-batch 1 x 512, checkpointing, on a B200 ran 48.8 ms per forward +
#: backward eagerly and 8.1 ms as a CUDA graph (the GPU's own time) (stas00/ml-engineering
#: ``training/performance/README.md``, torch.compile section, ``benchmarks/torch-compile-bench.py``); the eager
#: step is host-bound, and this module counts 2,468 operators for it: 48.8 ms / 2,468 = 19.8 us. (A bare
#: ``x + 1`` with requires_grad costs 5.6 us, pytorch/pytorch#122029; module calls, hooks and autograd nodes add
#: the rest.)
OP_HOST_S = 48.8e-3 / 2468
#: FlashAttention-2 forward+backward, causal, measured TFLOPS (causal FLOPs halved) at sequence 512, 1k, 2k, 4k,
#: 8k, 16k (batch x seq = 16k tokens, hidden 2048), on the reference card of each table, by head dim
#: (``assets/flash2_a100_fwd_bwd_benchmark.png``, ``flash2_h100_fwd_bwd_benchmark.png`` in Dao-AILab/flash-attention;
#: ``benchmarks/benchmark_flash_attention.py``). Other cards scale by their matmul ceiling relative to the reference.
FLASH_SEQS = (512, 1024, 2048, 4096, 8192, 16384)
FLASH_TFLOPS = {
    "ampere": {"ref_tflops": 271.2, 64: (88, 119, 140, 156, 165, 171), 128: (99, 133, 155, 173, 182, 189)},
    "hopper": {"ref_tflops": 794.5, 64: (141, 192, 232, 257, 273, 284), 128: (163, 221, 265, 294, 308, 328)},
    # data-centre Blackwell (compute capability 10.x) runs FlashAttention-2's Ampere-style mma.sync kernels, not its
    # new tensor-core instructions: flash-attn 2.7.4 on a B200 measured 259 / 299 / 321 / 312 / 333 / 346 TFLOPS
    # fwd+bwd (no causal mask, head dim 64) at the same six lengths (github.com/Dao-AILab/flash-attention/issues/
    # 1589), 1.20 / 1.18 / 1.17 / 1.08 / 1.13 / 1.17 x the H100 chart's 215 / 254 / 274 / 288 / 294 / 296; the
    # H100's causal entries times those ratios, on the B200's ceiling (gpus.csv 1,745 TFLOPS), not 2.2 x the H100
    "blackwell": {"ref_tflops": 1745.0, 64: (170, 226, 271, 279, 309, 332), 128: (196, 261, 310, 319, 349, 383)},
}
#: FlashAttention 1 (flash-attn 1.x) forward+backward, causal, on the same charts (its orange bars), same points and
#: head dims: A100 80GB SXM4 55-83 TFLOPS at head dim 128, H100 SXM5 98-137. Its Triton port (FlashAttention
#: Triton, llm-foundry's 2023 ``attn_impl: triton``) is on the A100 chart too, at 0.91-1.0 of these (50-80 at head
#: dim 128, 59-80 at 64); it is costed at FlashAttention 1's rate.
FLASH1_TFLOPS = {
    "ampere": {"ref_tflops": 271.2, 64: (58, 70, 77, 87, 92, 97), 128: (55, 62, 69, 76, 80, 83)},
    "hopper": {"ref_tflops": 794.5, 64: (104, 123, 136, 138, 149, 156), 128: (98, 109, 108, 126, 135, 137)},
}
#: xformers' memory-efficient attention (PyTorch SDPA's memory-efficient backend, used where FlashAttention
#: cannot run: compute capability < 8.0) on the same A100 chart: 68-98 TFLOPS; the midpoint over 271.2.
MEM_EFFICIENT_SHARE = 83.0 / 271.2
#: Eager attention (matmul, mask, softmax, matmul in PyTorch) on the same A100 chart: 23-34 TFLOPS at head dim
#: 128 and 15-18 at 64 (causal FLOPs halved). It is bound by moving the score matrix, so it scales with the
#: card's memory bandwidth (A100 80GB SXM4: 2,039 GB/s): FLOP per byte of bandwidth.
EAGER_TFLOPS_A100 = {64: 16.5, 128: 28.5}
A100_BANDWIDTH = 2039e9
#: flash-linear-attention's chunked gated delta rule (``chunk_gated_delta_rule_fwd``) on a B200: 0.412 ms for one
#: 8,192-token sequence with 16 value heads (4 query/key heads), d_k = d_v = 128, fp16 (Qwen3.5-397B's shapes at
#: tensor parallel 4; github.com/vllm-project/vllm/pull/38981, its "FLA (ms)" column, the largest head count listed),
#: i.e. 8,192 x 16 x 180,224 FLOP (:func:`gated_deltanet_flops_per_token`) / 0.412 ms = 57.3 TFLOPS, 3.3 % of the
#: B200's measured matmul ceiling (gpus.csv 1,745). Other cards get the same share of their ceiling; the backward is
#: timed at the forward's rate (no published backward timing was found).
GDN_SHARE = 8192 * 16 * 180_224 / 0.412e-3 / 1745e12
#: Backward FLOPs of attention relative to its forward: 5 matmuls against 2 (FlashAttention-2 §3.2 and its
#: benchmark's ``2.5 x`` forward FLOPs).
ATTN_BWD_FACTOR = 2.5
#: Backward bytes of an elementwise op relative to its forward: it reads the saved input and the output
#: gradient and writes the input gradient (three tensors against the forward's two).
ELEMENTWISE_BWD_FACTOR = 1.5
#: Hugging Face's eager RMSNorm, rotary embedding and cross-entropy as Liger-Kernel timed them on an A100-SXM4-80GB
#: (github.com/linkedin/Liger-Kernel benchmark/data/all_benchmark_data.csv @2120862, ``kernel_provider`` huggingface,
#: liger 0.2.1 rows of 2024-09-03, median of the largest shape), as bytes per element moved at this model's achieved
#: A100 bandwidth (:data:`BW_EFFICIENCY` x 2,039 GB/s), so that they scale with the card's bandwidth. They move far
#: more than their tensors' sizes: every autograd node of the unfused ops writes and reads fp32 intermediates. The
#: same benchmarks time Liger's fused kernels at 4.9 (RMSNorm) and 4.4 (rotary) B per element, against the 4 B that
#: reading and writing a bf16 tensor takes: the conversion holds.
_A100_ACHIEVED = BW_EFFICIENCY * 2039e9
_RMS_ELEMENTS = 2048 * 32768  # M x H, bf16
_ROPE_ELEMENTS = 16384 * (32 + 8) * 256  # one sequence of 16,384 tokens, 32 query and 8 key heads of 256
_CE_LOGITS = 8 * 2048 * 131072  # B x T x V, fp32 logits
EAGER_NORM_BYTES = {"forward": 1.919e-3 * _A100_ACHIEVED / _RMS_ELEMENTS,  # 51.3 B per element
                    "backward": 5.015e-3 * _A100_ACHIEVED / _RMS_ELEMENTS}  # 134.1 B
EAGER_ROPE_BYTES = {"forward": 3.817e-3 * _A100_ACHIEVED / _ROPE_ELEMENTS,  # 40.8 B per element of q and k
                    "backward": 4.557e-3 * _A100_ACHIEVED / _ROPE_ELEMENTS}  # 48.7 B
#: the fp32 cross-entropy per logit (forward 20.726 ms, forward and backward 60.438 ms: 17.3 and 33.2 B), plus
#: transformers' upcast of the bf16 logits (``logits.float()`` in ``ForCausalLMLoss``: 2 B read, 4 B written) and its
#: backward's cast back (4 + 2 B)
EAGER_CE_BYTES = {"forward": 20.726e-3 * _A100_ACHIEVED / _CE_LOGITS + 6.0,
                  "backward": (60.438e-3 - 20.726e-3) * _A100_ACHIEVED / _CE_LOGITS + 6.0}
#: Achieved share of the PCIe link's per-direction rate for pinned copies: 12.15-12.89 of 15.75 GB/s on PCIe 3.0
#: (github.com/mpicbg-scicomp/gearshifft/pull/82), ~25 of 31.5 GB/s on PCIe 4.0 (github.com/ZaidQureshi/bam
#: issues/54), 55.4 of 63 GB/s on PCIe 5.0 (stas00/ml-engineering ``network/README.md``).
PCIE_EFFICIENCY = 0.80
#: GeForce cards without peer-to-peer (the driver disables it on the RTX 4090): 6-8 GB/s GPU to GPU staged through
#: host memory on 8 x RTX 4090 (p2pBandwidthLatencyTest, github.com/NVIDIA/nccl-tests/issues/117), 7 of the
#: 25 GB/s pinned PCIe 4.0 rate.
NO_P2P_SHARE = 7.0 / 25.0
#: NCCL ring bus bandwidth as a share of the per-direction NVLink rate: 235 of 300 GB/s all-reduce on 8 x A100
#: NVSwitch, 365.6 of 450 GB/s ring on 8 x H200 (stas00/ml-engineering ``network/README.md``); InfiniBand 84.8 of
#: 100 GB/s on 3 x 8 A100 with 4 x HDR200 per node (github.com/NVIDIA/nccl-tests/issues/119).
NCCL_EFFICIENCY = 0.80
#: InfiniBand between nodes, per GPU (bytes/s): one 400 Gb/s NDR adapter per H100/H200/B200, one 200 Gb/s HDR
#: adapter per A100 (NVIDIA DGX H100 and DGX A100 user guides). NCCL runs one ring (channel) per adapter and each
#: ring leaves the node once, so the bus bandwidth between nodes is the node's adapters together, not one GPU's:
#: 84.8 GB/s all-reduce bus bandwidth on 3 x 8 A100 with 4 x HDR200 per node (4 x 25 GB/s = 100 GB/s for the
#: node, github.com/NVIDIA/nccl-tests/issues/119), where one adapter's share per GPU would cap it at 12.5.
IB_PER_GPU = {"h": 50e9, "a": 25e9}
#: Share of the node's adapter rate that NCCL's ring all-gather reaches across many nodes: 200 GB/s bus bandwidth
#: for a 2 GB all-gather on 32 x 8 H100 with 8 x 400 Gb/s NDR per node (400 GB/s; github.com/NVIDIA/nccl/issues/
#: 1218). Two or three nodes reach more (84.8 of 100 GB/s in nccl-tests#119, 86 of 100 in NVIDIA/nccl#1048), but
#: the runs that cross nodes are mostly larger, and FSDP/ZeRO's per-layer collectives are smaller than 2 GB.
IB_RING_EFFICIENCY = 200.0 / 400.0
GPUS_PER_NODE = 8
#: CPU Adam step rate, parameters per second per node: DeepSpeed's vectorised CPU-Adam updated 11.6B parameters
#: in 8.2 s, torch's CPU Adam in 56 s (github.com/deepspeedai/DeepSpeed/pull/735). DeepSpeed (ZeRO) uses its
#: CPU-Adam; FSDP's CPU offload steps torch's optimizer on the CPU. (torch 2's multi-tensor CPU AdamW is likely
#: faster than that 2020 measurement; no newer one was found, so FSDP offload may come out slow.)
CPU_ADAM_PARAMS_PER_S = {"deepspeed": 11.6e9 / 8.2, "torch": 11.6e9 / 56.0}
#: Host memory traffic of a vectorised one-pass CPU Adam, B/s: DeepSpeed's CPU-Adam above read fp32 parameters,
#: gradients and both moments and wrote parameters, moments and the fp16 copy, 4 x 4 + 3 x 4 + 2 = 30 B per
#: parameter, for 11.6e9 parameters in 8.2 s. torch's ``AdamW(fused=True)`` has had such a kernel for CPU
#: tensors since torch 2.4 (github.com/pytorch/pytorch/pull/123074, 5.1x its for-loop); it is costed at this
#: traffic over its own bytes per parameter (:func:`optimizer_bytes_per_param`: 16-bit states move half).
CPU_ADAM_BYTES_PER_S = 11.6e9 * 30.0 / 8.2
#: torch.optim.AdamW's default foreach implementation moves the state tensors 14 times, the gradient 3 times and
#: the parameter 4 times per step (lerp, mul, addcmul, sqrt, div, add, weight-decay mul, addcdiv), which for
#: 8.03B bf16 parameters on a B200 is 337 GB: 47.9 ms at 88 % of 8 TB/s, against 46.6 ms measured
#: (stas00/ml-engineering torch.compile table, AdamW step = 637.3 - 590.7 ms). ``fused=True`` is one pass:
#: read p, g, m, v and write p, m, v.
FOREACH_PASSES = {"state": 14.0, "grad": 3.0, "param": 4.0}


# --------------------------------------------------------------------------------------------- hardware
def matmul_ceiling(gpu: GpuSpec, precision: str = "bf16") -> float:
    """Achievable dense matmul rate of the card under sustained load, in FLOP/s.

    The measured BF16 ceiling where the catalog has one (maximum achievable matmul FLOPS: stas00/ml-engineering
    ``compute/accelerator/benchmarks/mamf-finder.py`` results, zzc0721/torch-performance-test-data; TP §3c), else
    the spec rate (BF16, FP16 on cards without BF16) x :data:`DEFAULT_CEILING_SHARE`; times the sustained share at
    the power cap (:data:`SUSTAINED_SHARE`). FP32 training uses the TF32 rate, half the BF16 rate (A100/H100
    datasheets).

    Raises:
        ValueError: when the card has no tensor rate at all.
    """
    spec = gpu.peak_tflops * 1e12
    if spec <= 0:
        raise ValueError(f"{gpu.name} has no BF16/FP16 tensor throughput in the catalog; enter its TFLOPS")
    if gpu.bf16_supported and gpu.bf16_tflops > 0 and gpu.measured_bf16_tflops:
        rate = gpu.measured_bf16_tflops * 1e12
    else:
        rate = spec * DEFAULT_CEILING_SHARE
    rate *= SUSTAINED_SHARE["hopper" if 9.0 <= gpu.compute_capability < 12.0 else "ampere"]
    return rate / 2 if precision == "fp32" else rate


def achieved_bandwidth(gpu: GpuSpec) -> float:
    """Memory bandwidth a streaming kernel reaches, in B/s: spec x :data:`BW_EFFICIENCY`."""
    return gpu.memory_bandwidth_gbps * 1e9 * BW_EFFICIENCY


def pcie_bandwidth(gpu: GpuSpec) -> float:
    """Host<->device rate per direction for pinned copies, in B/s: the link's signalling rate (PCIe 3.0: 8 GT/s,
    4.0: 16 GT/s, 5.0: 32 GT/s per lane, 128b/130b encoding; PCI-SIG base specifications) x lanes x
    :data:`PCIE_EFFICIENCY`. The catalog's ``pcie`` text gives generation and lanes (4.0 x16 when unknown)."""
    text = gpu.pcie.lower()
    gen = 5 if "5.0" in text else 3 if "3.0" in text else 4
    lanes = 8 if "x8" in text else 16
    gts = {3: 8e9, 4: 16e9, 5: 32e9}[gen]
    return gts * 128 / 130 / 8 * lanes * PCIE_EFFICIENCY


def _nvlink_class(gpu: GpuSpec, n: int) -> bool:
    text = gpu.interconnect.lower()
    if gpu.p2p_link_gbps <= 0:
        return False
    if "bridge (2-way)" in text or "pairs" in text:
        return n <= 2
    if "2-4 gpus" in text:
        return n <= 4
    return not text.startswith("pcie only")


def link_bandwidth(gpu: GpuSpec, n: int) -> tuple[float, str]:
    """NCCL bus bandwidth per GPU for ``n`` GPUs (B/s) and the link's name.

    NVLink/NVSwitch/Infinity Fabric (and 2-way bridges for a pair): half the bidirectional link rate x
    :data:`NCCL_EFFICIENCY`; otherwise PCIe peer-to-peer at :func:`pcie_bandwidth`, less on consumer cards,
    whose driver disables peer-to-peer so that traffic is staged through host memory at :data:`NO_P2P_SHARE` of it; beyond one node of
    :data:`GPUS_PER_NODE`, the slower of that and the node's InfiniBand adapters together
    (:data:`IB_PER_GPU` x :data:`GPUS_PER_NODE` x :data:`IB_RING_EFFICIENCY`).
    """
    if _nvlink_class(gpu, n):
        bw, name = gpu.p2p_link_gbps * 1e9 / 2 * NCCL_EFFICIENCY, "nvlink"
    else:
        bw, name = pcie_bandwidth(gpu), "pcie"
        if gpu.segment == "consumer":
            bw, name = bw * NO_P2P_SHARE, "pcie-host"
    if n > GPUS_PER_NODE:
        adapter = IB_PER_GPU["h" if gpu.id.startswith(("h1", "h2", "b2", "gh")) else "a"]
        ib = adapter * GPUS_PER_NODE * IB_RING_EFFICIENCY
        if ib < bw:
            bw, name = ib, "infiniband"
    return bw, name


# --------------------------------------------------------------------------------------------- context
@dataclass(frozen=True)
class _Ctx:
    arch: ModelArchitecture
    t: TrainingSetup
    gpu: GpuSpec
    row: float  # tokens per sequence computed
    tokens: float  # tokens per micro-batch
    rate: float  # FLOP/s
    bw: float  # B/s
    elem: float  # bytes per activation / weight element in matmuls
    fused: bool  # fused / compiled kernels
    seq: float = 0.0  # tokens per sequence the attention sees (padding-free: per example); 0: ``row``

    @property
    def attention_seq(self) -> float:
        return self.seq if self.seq > 0 else self.row

    @property
    def shard(self) -> int:
        t = self.t
        return t.num_gpus if t.num_gpus > 1 and t.sharding in {"zero3", "fsdp"} else 1

    @property
    def opt_shard(self) -> int:
        t = self.t
        return t.num_gpus if t.num_gpus > 1 and t.sharding in {"zero1", "zero2", "zero3", "fsdp"} else 1


def wave_efficiency(m: float, n: float, sms: int, k: float = 0.0) -> float:
    """Share of the SMs a GEMM with an ``m x n`` output and depth ``k`` keeps busy: work units / (waves x SMs).

    The output is cut into :data:`GEMM_TILE` tiles; when there are fewer tiles than SMs, the depth is split as well
    (split-K / stream-K, which cuBLAS and CUTLASS use for such shapes: Osama et al. 2023, arXiv:2301.03598), into at
    most ``SMs // tiles`` slices no thinner than one tile edge (``k / 256``). 1 when the SM count is unknown.
    """
    if sms <= 0:
        return 1.0
    tiles = math.ceil(max(m, 1.0) / GEMM_TILE[0]) * math.ceil(max(n, 1.0) / GEMM_TILE[1])
    if tiles < sms:
        tiles *= max(1, min(sms // tiles, math.ceil(max(k, 1.0) / GEMM_TILE[0])))
    return tiles / (math.ceil(tiles / sms) * sms)


def _gemm_seconds(ctx: _Ctx, m: float, k: float, n: float, groups: float = 1.0) -> tuple[float, float, float, bool]:
    """(seconds, FLOPs, bytes, memory-bound) of one ``M x K x N`` GEMM, or of a grouped GEMM of ``groups`` weight
    matrices sharing ``M`` rows between them (mixture-of-experts kernels): max(FLOPs / (ceiling x wave
    efficiency), bytes / bandwidth)."""
    flops = 2.0 * m * k * n
    nbytes = ctx.elem * (m * k + groups * k * n + m * n)
    tiles_m = m if groups == 1.0 else m + (groups - 1.0) * GEMM_TILE[0] / 2  # each group's last tile is partial
    compute = flops / (ctx.rate * wave_efficiency(tiles_m, n, ctx.gpu.sm_count, k))
    memory = nbytes / ctx.bw
    return max(compute, memory), flops, nbytes, memory > compute


def _logit_tokens(ctx: _Ctx) -> float:
    """Positions of one micro-batch whose vocabulary logits are computed: every token, or for GRPO the completion
    positions of each row (``GRPOTrainer`` passes ``logits_to_keep``; :func:`~tuneplan.core.workload.logit_positions`)."""
    if ctx.t.workload != "grpo":
        return ctx.tokens
    return wl.policy_rows(ctx.t) * min(float(wl.logit_positions(ctx.t)), ctx.row)


def _base_gemms(ctx: _Ctx, forward_only: bool = False) -> list[tuple[float, float, float, float, float]]:
    """(count per micro-batch, M, K, N, weight groups) of the model's GEMMs in every pass (module docstring).

    Experts: eager stacks (transformers' expert loop) run one GEMM per expert on ``T x k / E`` tokens; fused stacks
    run one grouped GEMM over all routed tokens (Megatron/Transformer Engine ``moe_grouped_gemm``, torchtitan's
    grouped experts), which fills the GPU as one large GEMM does."""
    a, t, tok = ctx.arch, ctx.t, ctx.tokens
    full = t.method == "full"
    layer_dw = (full or t.frozen_weight_grads) and not forward_only
    passes_fwd = 2 if t.grad_checkpointing and not forward_only else 1
    out: list[tuple[float, float, float, float, float]] = []
    for n_layers, mods in a.linear_modules():
        for mod in mods:
            g = 1.0
            if mod.count > 1 and ctx.fused:  # one grouped GEMM over the T x k routed tokens
                m, count, g = tok * mod.active, 1.0, float(mod.count)
            elif mod.count > 1:  # one GEMM per expert on T x k / E tokens
                m, count = tok * mod.active / mod.count, float(mod.count)
            else:
                m, count = tok, 1.0
            # forward (+ recompute): T x in -> out; activation gradient: T x out -> in; weight gradient: in x T -> out
            out.append((n_layers * count * (passes_fwd + 0.0), m, mod.d_in, mod.d_out, g))
            if not forward_only:
                out.append((n_layers * count, m, mod.d_out, mod.d_in, g))
            if layer_dw:
                # weight gradients of grouped experts: each expert's in x (its tokens) -> out
                dw_m = m / g
                out.append((n_layers * count * g, mod.d_in, dw_m, mod.d_out, 1.0))
    h, v = a.hidden_size, wl.head_outputs(a, t)  # (a reward model's value head: one output)
    head_tok = _logit_tokens(ctx)  # GRPO: the head runs on the completion positions only (logits_to_keep)
    out.append((1.0, head_tok, h, v, 1.0))
    if forward_only:
        return out
    out.append((1.0, head_tok, v, h, 1.0))
    if full or t.trainable_embeddings:
        out.append((1.0, h, head_tok, v, 1.0))
    return out


def _lora_gemms(ctx: _Ctx, forward_only: bool = False) -> list[tuple[float, float, float, float, float]]:
    """LoRA A and B GEMMs: forward (+ recompute), activation gradient and weight gradient of each."""
    t = ctx.t
    if t.method == "full":
        return []
    fwd = 2.0 if t.grad_checkpointing and not forward_only else 1.0
    out: list[tuple[float, float, float, float, float]] = []
    for n, rows, cols in lora_tensors(ctx.arch, t.lora_rank, target_spec(t), t.stack):
        out.append((n * fwd, ctx.tokens, cols, rows, 1.0))
        if not forward_only:
            out += [(float(n), ctx.tokens, rows, cols, 1.0), (float(n), cols, ctx.tokens, rows, 1.0)]
    return out


def forward_seconds(ctx: _Ctx) -> float:
    """GPU seconds of one micro-batch's forward alone (evaluation; the part of a step DDP cannot hide collectives
    behind): its GEMMs, one pass of attention, one pass of the layers' elementwise bytes, the loss's forward (the eager loss's
    measured forward, :data:`EAGER_CE_BYTES`, or half the fused loss's), one dequantisation of NF4 weights."""
    t = ctx.t
    mm = sum(count * _gemm_seconds(ctx, m, k, n, g)[0]
             for count, m, k, n, g in _base_gemms(ctx, True) + _lora_gemms(ctx, True))
    att = attention_term(ctx)
    fwd_passes = 2.0 if t.grad_checkpointing else 1.0
    att_fwd = att.value / (fwd_passes + ATTN_BWD_FACTOR)
    a = ctx.arch
    layer = a.num_layers * _layer_elementwise_bytes(ctx) * ctx.tokens
    fused_loss = t.fused_cross_entropy or ctx.fused
    ce = ctx.tokens * a.vocab_size * (4.0 if fused_loss else EAGER_CE_BYTES["forward"])
    if not wl.causal_lm(t):  # TRL's log-prob kernels, forward only
        ce = _logit_tokens(ctx) * a.vocab_size * wl.loss_bytes_per_logit(t, _logit_bytes(t), fused_loss,
                                                                          forward_only=True)
    dequant = quantized_base_bytes(ctx, forward_passes=1.0, weight_gradients=0.0)
    return mm + att_fwd + (layer + ce + dequant) / ctx.bw


def matmul_term(ctx: _Ctx) -> Term:
    """GPU seconds of every GEMM of one micro-batch (module docstring), with FLOPs, bytes and rates."""
    flops = nbytes = mem_s = comp_s = comp_flops = mem_bytes = 0.0
    gemms = 0.0
    for count, m, k, n, g in _base_gemms(ctx) + _lora_gemms(ctx):
        s, f, b, membound = _gemm_seconds(ctx, m, k, n, g)
        flops += count * f
        nbytes += count * b
        gemms += count
        if membound:
            mem_s += count * s
            mem_bytes += count * b
        else:
            comp_s += count * s
            comp_flops += count * f
    effective = comp_flops / comp_s if comp_s > 0 else ctx.rate
    return Term(key="matmul", value=comp_s + mem_s, parts=(
        Quantity(key="compute_seconds", value=comp_s, unit="s"),
        Quantity(key="compute_flops", value=comp_flops, unit="FLOP"),
        Quantity(key="effective_rate", value=effective, unit="FLOP/s", source="wave quantisation (GEMM_TILE)"),
        Quantity(key="rate", value=ctx.rate, unit="FLOP/s",
                 source="measured matmul ceiling (gpus.csv) x sustained share (SUSTAINED_SHARE)"),
        Quantity(key="memory_seconds", value=mem_s, unit="s"),
        Quantity(key="memory_bytes", value=mem_bytes, unit="B"),
        Quantity(key="bandwidth", value=ctx.bw, unit="B/s", source="spec bandwidth x BW_EFFICIENCY"),
        Quantity(key="gemms", value=gemms, unit="count"),
        Quantity(key="flops", value=flops, unit="FLOP"),
        Quantity(key="bytes", value=nbytes, unit="B"),
        Quantity(key="memory_bound_seconds", value=mem_s, unit="s"),
    ), source="roofline per GEMM: Williams, Waterman, Patterson 2009")


def _keys_per_query(ctx: _Ctx) -> float:
    """Mean keys each query attends to under a causal mask, averaged over the attention layers: about half the row
    in a global layer, about the window in a sliding-window layer (``ModelArchitecture.sliding_window_layers`` of
    them: Gemma 2 alternates, Gemma 3 has five local layers to one global)."""
    s = ctx.attention_seq
    a = ctx.arch
    full = (s + 1.0) / 2.0
    w = a.sliding_window
    if not w or w >= s:
        return full
    local = w - w * w / (2.0 * s)
    layers = max(a.num_attention_layers, 1)
    windowed = layers if a.sliding_window_layers is None else min(a.sliding_window_layers, layers)
    return (windowed * local + (layers - windowed) * full) / layers


def attention_kernel(ctx: _Ctx) -> str:
    """``flash`` (FlashAttention 2), ``flash1`` (FlashAttention 1 or its Triton port), ``sdpa-flash`` (PyTorch SDPA's
    FlashAttention backend, compute capability >= 8.0), ``sdpa-efficient`` (its memory-efficient backend on older
    cards, and wherever the value head dim differs from the query/key one: SDPA's flash backend requires q, k and v
    of one last dimension, ``check_head_dim_size_flash`` in ATen ``transformers/cuda/sdp_utils.cpp``, and wherever the
    batch carries padding: transformers drops the attention mask for SDPA only when it is all ones
    (``AttentionMaskConverter._ignore_causal_mask_sdpa``) and otherwise passes a 4-D mask, which SDPA's flash backend
    refuses (``check_for_attn_mask``), so padded rows (``fixed``, and ``dynamic`` with more than one row per
    micro-batch) run the memory-efficient kernel; torchtune, LitGPT and Unsloth call SDPA from their own modelling code
    with ``is_causal`` and no padding mask (:func:`~tuneplan.core.stacks.sdpa_padding_mask`)) or ``eager``."""
    att = ctx.t.attention
    if att == "eager":
        return "eager"
    # FlashAttention 2 needs compute capability 8.0 (Ampere) or newer, FlashAttention 1 7.5 (Turing: its README
    # names the T4 and RTX 2080); 0 = unknown, taken as new enough
    cc = ctx.gpu.compute_capability
    old = 0.0 < cc < 8.0 or ctx.gpu.id.startswith(("t4", "v100"))
    if att == "sdpa":
        padded = sdpa_padding_mask(ctx.t)
        return "sdpa-efficient" if old or padded or ctx.arch.value_head_dim != ctx.arch.head_dim else "sdpa-flash"
    if att == "flash1":
        return "sdpa-efficient" if 0.0 < cc < 7.5 or ctx.gpu.id.startswith("v100") else "flash1"
    return "sdpa-efficient" if old else "flash"


def _by_head_dim(values: dict, hd: int) -> float:
    """Linear in head dim between the 64 and 128 entries, clamped outside: the FlashAttention-2 charts (README,
    arXiv:2307.08691 Fig. 4-7) measure head dims 64 and 128 only, so a larger head dim (MLA's 192, Gemma's 256) is
    timed at the 128 rate."""
    x = min(max((hd - 64) / 64.0, 0.0), 1.0)
    return values[64] + x * (values[128] - values[64])


def _hopper_class(gpu: GpuSpec) -> bool:
    """Hopper and Blackwell data-centre parts (compute capability 9.0 and 10.x), where FlashAttention-2 reaches a
    smaller share of the tensor ceiling than on Ampere/Ada."""
    return 9.0 <= gpu.compute_capability < 11.0


def flash_share(table: dict, hd: int, seq: float) -> float:
    """FlashAttention-2's measured rate at this head dim and sequence length as a share of the reference card's
    matmul ceiling (:data:`FLASH_TFLOPS`), log-linear in sequence length between the measured points."""
    vals = [_by_head_dim({64: table[64][i], 128: table[128][i]}, hd) for i in range(len(FLASH_SEQS))]
    ls = math.log2(max(seq, 1.0))
    xs = [math.log2(x) for x in FLASH_SEQS]
    if ls <= xs[0]:
        v = vals[0] * max(seq, 1.0) / FLASH_SEQS[0]  # shorter rows: a proportionally smaller kernel
    elif ls >= xs[-1]:
        v = vals[-1]
    else:
        i = max(j for j in range(len(xs)) if xs[j] <= ls)
        f = (ls - xs[i]) / (xs[i + 1] - xs[i])
        v = vals[i] + f * (vals[i + 1] - vals[i])
    return v / table["ref_tflops"]


def attention_value_dim(arch: ModelArchitecture, kernel: str) -> int:
    """Value head dim the attention kernel multiplies with: ``value_head_dim``, except that with FlashAttention
    transformers pads the values to the query/key head dim when they differ (``F.pad(value_states, [0,
    qk_head_dim - v_head_dim])`` under ``is_flash_attention_requested``, ``DeepseekV2Attention.forward``,
    ``modeling_deepseek_v2.py`` @0233e509), so the kernel computes ``P V`` at ``head_dim``."""
    return arch.head_dim if kernel in {"flash", "flash1"} else arch.value_head_dim


def attention_term(ctx: _Ctx) -> Term:
    """GPU seconds of the attention kernels of one micro-batch (module docstring).

    Forward FLOPs per layer ``2 T S heads (d_qk + d_v)``: ``Q K^T`` at the query/key head dim and ``P V`` at the value
    head dim the kernel uses (:func:`attention_value_dim`); ``4 T q_dim S`` when the two are equal.
    """
    a, t = ctx.arch, ctx.t
    layers = a.num_attention_layers
    kernel = attention_kernel(ctx)
    fwd_passes = 2.0 if t.grad_checkpointing else 1.0
    keys = _keys_per_query(ctx)
    fwd = 2.0 * ctx.tokens * keys * a.num_attention_heads * (a.head_dim + attention_value_dim(a, kernel))
    flops = layers * fwd * (fwd_passes + ATTN_BWD_FACTOR)
    hd = a.head_dim
    if kernel == "eager":
        rate = _by_head_dim(EAGER_TFLOPS_A100, hd) * 1e12 * ctx.gpu.memory_bandwidth_gbps * 1e9 / A100_BANDWIDTH
    elif kernel == "sdpa-efficient":
        rate = ctx.rate * MEM_EFFICIENT_SHARE
    else:
        # shares of the reference card's ceiling; the sustained-load share applies to them as to the GEMMs
        tables = FLASH1_TFLOPS if kernel == "flash1" else FLASH_TFLOPS
        cls = "hopper" if _hopper_class(ctx.gpu) else "ampere"
        if cls == "hopper" and ctx.gpu.compute_capability >= 10.0 and "blackwell" in tables:
            cls = "blackwell"
        table = tables[cls]
        rate = ctx.rate * flash_share(table, hd, ctx.attention_seq)
    seconds = flops / rate
    parts = [Quantity(key="flops", value=flops, unit="FLOP"), Quantity(key="rate", value=rate, unit="FLOP/s"),
             Quantity(key="keys_per_query", value=keys, unit="tokens")]
    source = (("FlashAttention (arXiv:2205.14135) measured on the FlashAttention-2 benchmark charts"
               if kernel == "flash1" else "FlashAttention-2 (arXiv:2307.08691)") + "; causal FLOPs halved as in its benchmark")
    if a.num_linear_attention_layers:
        fwd_gdn, bwd_gdn = gated_deltanet_flops_per_token(a)
        gdn_flops = a.num_linear_attention_layers * ctx.tokens * (fwd_passes * fwd_gdn + bwd_gdn)
        gdn_rate = ctx.rate * GDN_SHARE
        seconds += gdn_flops / gdn_rate
        parts += [Quantity(key="linear_attention_flops", value=gdn_flops, unit="FLOP"),
                  Quantity(key="linear_attention_rate", value=gdn_rate, unit="FLOP/s")]
        source += ("; Gated DeltaNet layers: flash-linear-attention's chunked gated delta rule at its measured rate "
                   "(vllm-project/vllm#38981)")
    return Term(key="attention", value=seconds, parts=tuple(parts), detail=kernel, source=source)


def gated_deltanet_flops_per_token(arch: ModelArchitecture) -> tuple[float, float]:
    """Forward and backward FLOPs per token of one Gated DeltaNet layer's chunked delta rule (all value heads).

    Counted over the matmuls of flash-linear-attention's kernels (``ops/gated_delta_rule/chunk.py`` @92396f25), per
    value head, with chunk ``C = 64`` tokens and head dims ``d_k``, ``d_v`` (2 FLOP per multiply-add, per token):

    * forward: ``A = beta K K^T`` in the chunk (``2C d_k``), ``w = A (beta k e^g)`` and ``u = A (beta v)``
      (``2C d_k + 2C d_v``), the state pass ``v_new = u - w h`` and ``h += k^T v_new`` (``4 d_k d_v``), the output
      ``q h`` (``2 d_k d_v``) plus the in-chunk ``(q k^T) v_new`` (``2C d_k + 2C d_v``):
      ``2C (3 d_k + 2 d_v) + 6 d_k d_v``;
    * backward (``chunk_gated_delta_rule_bwd``): ``w, u`` and ``h`` recomputed (``2C (d_k + d_v) + 4 d_k d_v``),
      ``dv`` in the chunk (``2C (d_k + d_v)``), the reverse state pass ``dh`` and its ``dv`` (``6 d_k d_v``),
      ``dq, dk, dw`` (``2C (2 d_k + d_v) + 6 d_k d_v``), the WY backward (``2C (3 d_k + 2 d_v) + 4 C^2``):
      ``2C (7 d_k + 5 d_v) + 16 d_k d_v + 4 C^2``.

    O(T C d) in the chunks plus O(T d_k d_v) for the state, linear in the sequence length (softmax attention is
    O(T S d)). d_k = d_v = 128: 180,224 forward and 475,136 backward per head (2.6 x, FlashAttention's is 2.5 x).
    """
    c, dk, dv = float(GDN_CHUNK), float(arch.linear_key_head_dim), float(arch.linear_value_head_dim)
    nv = arch.linear_num_value_heads
    fwd = 2 * c * (3 * dk + 2 * dv) + 6 * dk * dv
    bwd = 2 * c * (7 * dk + 5 * dv) + 16 * dk * dv + 4 * c * c
    return nv * fwd, nv * bwd


def _layer_elementwise_bytes(ctx: _Ctx) -> float:
    """Bytes per token of one decoder layer's elementwise kernels in the forward (module docstring)."""
    a, t = ctx.arch, ctx.t
    d, q, kv = a.hidden_size, a.q_dim, a.kv_dim
    f = a.intermediate_size if not a.is_moe else a.moe_intermediate_size * a.experts_per_token + \
        a.shared_expert_intermediate_size
    norms = (1 if a.parallel_block else 2) + a.extra_norms_per_layer
    # rotary embedding: over q and k, or under MLA over the rotary part only (every head's q_pe and the one k_pe)
    rope = a.num_attention_heads * a.qk_rope_head_dim + a.qk_rope_head_dim if a.is_mla else q + kv
    if ctx.fused:
        norm = 4.0 * d  # read bf16, write bf16 in one kernel
        per = norms * norm + (4.0 * (q + kv) if a.qk_norm else 0.0) + 4.0 * a.mla_norm_width()
        per += 8.0 * rope  # rotary, one kernel over q and k
        per += 2 * 6.0 * d  # residual adds
        per += (6.0 if a.mlp == "gated" else 4.0) * f
    else:
        # HF RMSNorm (upcast, square, mean, rsqrt-mul, downcast, weight-mul) and rotary (mul cos, rotate_half's neg
        # and cat, mul sin, add) at their measured cost (EAGER_NORM_BYTES, EAGER_ROPE_BYTES); LayerNorm one kernel
        norm_el, rope_el = _eager_measured_elements(ctx)
        per = norm_el * EAGER_NORM_BYTES["forward"] + rope_el * EAGER_ROPE_BYTES["forward"]
        if a.norm != "rms":
            per += 8.0 * norms * d
        per += 8.0 * (q + kv)  # layout copies around the attention kernel (MLA: the q and k concatenations)
        if a.is_mla and attention_value_dim(a, attention_kernel(ctx)) != a.value_head_dim:
            # FlashAttention under MLA: F.pad of the values (read n d_v, write n d_qk) and the copy of the output
            # sliced back to d_v (read and write n d_v), 2 B each
            per += 2.0 * (a.num_attention_heads * a.head_dim + a.v_dim) + 4.0 * a.attn_out_dim
        per += 2 * 6.0 * d
        per += (10.0 if a.mlp == "gated" else 4.0) * f
    if t.method != "full":
        from tuneplan.core.memory import _activation_adapter_path

        fp32_inputs = _activation_adapter_path(t) == "fp32"
        for n, mods in a.linear_modules():
            share = n / max(a.num_layers, 1)
            adapted = _adapted_modules(ctx, mods)
            for mod in adapted:
                if fp32_inputs:
                    # PEFT's _cast_input_dtype copies the input to fp32 (2 B read, 4 B written), dropout runs in
                    # fp32 (4 + 4 B and a 1-byte mask), the fp32 result is cast back and added (4 + 2 + 6 B)
                    per += share * (6.0 * mod.d_in + (9.0 * mod.d_in if t.lora_dropout > 0 else 0.0)
                                    + 12.0 * mod.d_out)
                else:
                    per += share * ((5.0 * mod.d_in if t.lora_dropout > 0 else 0.0) + 6.0 * mod.d_out)
    return per


def _eager_measured_elements(ctx: _Ctx) -> tuple[float, float]:
    """Elements per token of one layer that pass through transformers' eager RMSNorm and rotary kernels (0 for fused
    stacks): the layer's RMSNorms over the hidden size, q/k norms, MLA's norms; rotary over q and k (MLA: the
    rotary part only)."""
    a = ctx.arch
    if ctx.fused:
        return 0.0, 0.0
    norms = (1 if a.parallel_block else 2) + a.extra_norms_per_layer
    norm_el = (norms * a.hidden_size if a.norm == "rms" else 0.0) + (a.q_dim + a.kv_dim if a.qk_norm else 0.0) \
        + a.mla_norm_width()
    rope_el = a.num_attention_heads * a.qk_rope_head_dim + a.qk_rope_head_dim if a.is_mla else a.q_dim + a.kv_dim
    return float(norm_el), float(rope_el)


def _layer_elementwise_backward_bytes(ctx: _Ctx) -> float:
    """Bytes per token of one decoder layer's elementwise kernels in the backward: :data:`ELEMENTWISE_BWD_FACTOR`
    x the forward's, except eager RMSNorm and rotary at their measured backward (:data:`EAGER_NORM_BYTES`)."""
    norm_el, rope_el = _eager_measured_elements(ctx)
    measured_fwd = norm_el * EAGER_NORM_BYTES["forward"] + rope_el * EAGER_ROPE_BYTES["forward"]
    measured_bwd = norm_el * EAGER_NORM_BYTES["backward"] + rope_el * EAGER_ROPE_BYTES["backward"]
    return ELEMENTWISE_BWD_FACTOR * (_layer_elementwise_bytes(ctx) - measured_fwd) + measured_bwd


def _adapted_modules(ctx: _Ctx, mods: list) -> list:  # noqa: ANN001 - LinearModule
    from tuneplan.core.memory import (  # the memory ledger's own target rules
        _is_adapted,
        _targets,
        peft_layer_modules,
    )

    wanted = _targets(ctx.arch, target_spec(ctx.t), ctx.t.stack)
    return [m for m in peft_layer_modules(ctx.arch, mods, ctx.t.stack)
            if m.kind != "router" and _is_adapted(ctx.arch, m, wanted, target_spec(ctx.t))]


#: Bytes per input feature and token that an LLM.int8 matmul moves beyond its GEMM in a bf16 model (bitsandbytes
#: ``MatMul8bitLt.forward`` and the CUDA ``int8_vectorwise_quant`` @95f9af3, ``llm_int8_threshold`` 6.0): the input
#: cast to fp16 (read 2, write 2), the outlier search ``A.abs() >= threshold`` (abs: read 2, write 2; compare: read 2,
#: write 1; ``any``: read 1), then the row-wise quantisation (read 2, write 1): 15. An fp16 model has no cast: 11.
INT8_INPUT_BYTES = {"bf16": 15.0, "fp16": 11.0}
#: Bytes per output feature and token beyond a 16-bit GEMM's output: the int32 product instead of a 16-bit one (+2),
#: ``int8_mm_dequant`` reading it (4) and writing an fp16 result (2), and in a bf16 model its ``.to(bf16)`` (read 2,
#: write 2): 12 (fp16: 8).
INT8_OUTPUT_BYTES = {"bf16": 12.0, "fp16": 8.0}
#: Bytes per weight of each input gradient: ``state.CB.to(dtype_A, copy=True)`` (read 1, write 2) and the in-place
#: ``.mul_(SCB / 127)`` (read 2, write 2).
INT8_WEIGHT_GRAD_BYTES = 7.0
#: Operators one LLM.int8 matmul dispatches in its forward beyond the GEMM (``MatMul8bitLt.forward``,
#: ``int8_vectorwise_quant``, ``int8_mixed_scaled_mm``, ``int8_mm_dequant`` @95f9af3): the fp16 cast, two empties,
#: abs, the compare, ``any`` and ``any(dim=0)``, ``argwhere``, the quantisation kernel, zeroing the outlier columns,
#: the int32 GEMM's output, the dequantisation and its cast; with outlier columns (as in LLMs at threshold 6) their
#: slice of the input, of the codes, their dequantisation, cast, transpose and ``addmm``: 19. ``outliers.any()`` and
#: ``argwhere`` also wait for the GPU, which is not modelled.
INT8_OPS_PER_MATMUL = 19.0


#: Bytes per weight one HQQ dequantisation moves in a 16-bit model, by bits (hqq @e0b1d00 ``BitPack`` and
#: ``Quantizer.dequantize``, default PyTorch backend). 4-bit: the upper codes ``(W_q & 0xF0) >> 4`` (read and write
#: 0.5 B twice per weight of that half) copied into the compute-dtype buffer (read 0.5, write 2), the lower codes
#: ``W_q & 0x0F`` (read 0.5, write 0.5) copied likewise (read 0.5, write 2): 6 B per weight; then ``W_r - zero``
#: (read 2, write 2) and ``* scale`` (read 2, write 2): 14. 8-bit: ``W_q.to(dtype)`` (read 1, write 2) + the two: 11.
HQQ_DEQUANT_BYTES = {4: 14.0, 8: 11.0}
#: Operators of one HQQ dequantisation: 4-bit the buffer, two masks, the shift, two copies, the subtraction and the
#: multiplication (8); 8-bit the cast and the two (3).
HQQ_OPS_PER_MATMUL = {4: 8.0, 8: 3.0}


def quantized_base_bytes(ctx: _Ctx, *, forward_passes: float, weight_gradients: float) -> float:
    """Bytes the bitsandbytes kernels of a quantised base move beyond its GEMMs, for ``forward_passes`` forwards and
    ``weight_gradients`` input-gradient passes of one micro-batch; 0 for a 16-bit base.

    * NF4 (QLoRA; a GPTQ/AWQ/FP8 checkpoint under QLoRA is charged alike): every use dequantises each layer matrix
      to bf16 (``dequantize_4bit``: read the NF4 bytes with their constants, write 2 B per weight).
    * LLM.int8 (``quant_bits`` 8, or a stored bitsandbytes 8-bit checkpoint): each forward quantises the matmul's
      input row-wise and rescales an int32 product (:data:`INT8_INPUT_BYTES` x ``d_in`` +
      :data:`INT8_OUTPUT_BYTES` x ``d_out`` per token and matrix); each input gradient dequantises the int8 weight
      into a 16-bit copy (:data:`INT8_WEIGHT_GRAD_BYTES` per weight). The int8 GEMM itself is costed at the 16-bit
      rate (int8 tensor cores are at least as fast; bitsandbytes' cuBLASLt rate is not measured here).
    * HQQ (``quant_method`` hqq): every use dequantises each layer matrix in a few PyTorch kernels
      (:data:`HQQ_DEQUANT_BYTES` per weight)."""
    t, a = ctx.t, ctx.arch
    if int8_base(a, t):
        dtype = "fp16" if t.precision == "fp16" else "bf16"
        per_token = params = 0.0
        for n, mods in a.linear_modules():
            for m in mods:
                if m.count == 1:
                    per_token += n * (INT8_INPUT_BYTES[dtype] * m.d_in + INT8_OUTPUT_BYTES[dtype] * m.d_out)
                    params += n * m.d_in * m.d_out
        return forward_passes * ctx.tokens * per_token + weight_gradients * params * INT8_WEIGHT_GRAD_BYTES
    if hqq_base(a, t):  # every forward and every input gradient dequantises (HQQMatmulNoCacheMul: matmul, backward)
        return (forward_passes + weight_gradients) * quantized_linear_weights(a) * HQQ_DEQUANT_BYTES[t.quant_bits]
    if not quantized_frozen_base(a, t):
        return 0.0
    # read NF4 (or the stored checkpoint's codes) with its constants, write bf16 (the nn.Linear matrices: stacked
    # experts stay unquantised)
    return (forward_passes + weight_gradients) * quantized_linear_weights(a) * (
        quantized_base_bytes_per_param(a, t) + 2.0)


def other_kernels_term(ctx: _Ctx) -> Term:
    """GPU seconds of the bandwidth-bound kernels of one micro-batch: elementwise work of the layers, the
    cross-entropy, NF4 dequantisation, autocast weight casts and gradient accumulation."""
    a, t = ctx.arch, ctx.t
    fwd_passes = 2.0 if t.grad_checkpointing else 1.0
    layer = a.num_layers * ctx.tokens * (_layer_elementwise_bytes(ctx) * fwd_passes
                                         + _layer_elementwise_backward_bytes(ctx))
    # cross-entropy over the vocabulary (the logits GEMM's own output is in the matmul term): HF upcasts the
    # logits to fp32, log-softmax, and back, at its measured cost (EAGER_CE_BYTES); fused/chunked ~8 B
    eager_ce = EAGER_CE_BYTES["forward"] + EAGER_CE_BYTES["backward"]
    ce = ctx.tokens * a.vocab_size * (8.0 if (t.fused_cross_entropy or ctx.fused) else eager_ce)
    if not wl.causal_lm(t):  # TRL's log-prob kernels instead (core/workload.py LOGPROB_PASSES)
        ce = _logit_tokens(ctx) * a.vocab_size * wl.loss_bytes_per_logit(t, _logit_bytes(t),
                                                                          t.fused_cross_entropy or ctx.fused)
    layer_params = float(a.layer_linear_params())
    # forward (+ recompute) and the activation gradient each go through the quantised base once
    dequant = quantized_base_bytes(ctx, forward_passes=fwd_passes, weight_gradients=1.0)
    cast = 0.0
    if t.master_weights == "fp32" and t.sharding not in {"zero1", "zero2", "zero3"} and t.method == "full":
        cast = fwd_passes * float(wl.parameter_count(a, t)) * 6.0  # autocast reads fp32 weights, writes bf16 copies
    accum = 0.0
    if t.grad_accumulation > 1:
        grads = float(wl.parameter_count(a, t)) if t.method == "full" else (layer_params if t.frozen_weight_grads else 0.0)
        accum = grads * _grad_bytes(t) * 3.0 * (t.grad_accumulation - 1) / t.grad_accumulation
    nbytes = layer + ce + dequant + cast + accum
    return Term(key="other_kernels", value=nbytes / ctx.bw, parts=(
        Quantity(key="bytes", value=nbytes, unit="B"),
        Quantity(key="layer_bytes", value=layer, unit="B"),
        Quantity(key="cross_entropy_bytes", value=ce, unit="B"),
        Quantity(key="dequant_bytes", value=dequant, unit="B"),
        Quantity(key="cast_bytes", value=cast, unit="B"),
        Quantity(key="accumulation_bytes", value=accum, unit="B"),
        Quantity(key="bandwidth", value=ctx.bw, unit="B/s"),
    ), source="bytes per kernel from the Hugging Face modelling code (transformers models/llama) and Liger/"
              "Unsloth fused kernels, over the achieved bandwidth")


def _logit_bytes(t: TrainingSetup) -> float:
    """Bytes per logit: the LM head's output dtype (bf16/fp16 under autocast, even from fp32 master weights)."""
    return 4.0 if t.precision == "fp32" else 2.0


@dataclass(frozen=True)
class _Reference:
    """The forward passes without gradients of one micro-batch (DPO/KTO, ``core/workload.py``): seconds by class."""

    passes: int
    gemm_seconds: float
    attention_seconds: float
    other_seconds: float
    bytes: float
    ops: float
    pass_seconds: float  # one reference pass over the micro-batch (GPU time or host time, the longer)

    @property
    def seconds(self) -> float:
        return self.gemm_seconds + self.attention_seconds + self.other_seconds


def _reference(ctx: _Ctx) -> _Reference:
    """GPU seconds, bytes and operator launches of the no-grad forward passes of one micro-batch.

    A reference pass runs the base model without adapters (a frozen copy, or the policy under ``disable_adapter()``):
    its forward GEMMs, attention's forward (the forward's share of :func:`attention_term`), the forward's elementwise
    bytes without LoRA, one ``log_softmax`` over its logits (:data:`~tuneplan.core.workload.REFERENCE_LOGPROB_PASSES`)
    and, for QLoRA, one dequantisation of every NF4 matrix. KTO's KL pass through the policy adds its LoRA GEMMs and
    elementwise bytes. ``pass_seconds`` is one reference pass whatever the plan (the precompute pass of
    ``precompute_ref_log_probs`` is made of these)."""
    t, a = ctx.t, ctx.arch
    ref_passes, policy_passes = wl.nograd_passes(t)
    base_ctx = replace(ctx, t=t.model_copy(update={"method": "full"}))  # the same shapes, no LoRA
    gemm_base = sum(c * _gemm_seconds(ctx, m, k, n, g)[0] for c, m, k, n, g in _base_gemms(ctx, True))
    gemm_lora = sum(c * _gemm_seconds(ctx, m, k, n, g)[0] for c, m, k, n, g in _lora_gemms(ctx, True))
    att = attention_term(ctx)
    att_fwd = att.value / ((2.0 if t.grad_checkpointing else 1.0) + ATTN_BWD_FACTOR)
    fused = t.fused_cross_entropy or ctx.fused
    logprob = _logit_tokens(ctx) * a.vocab_size * (4.0 if fused else wl.REFERENCE_LOGPROB_PASSES * _logit_bytes(t))
    dequant = quantized_base_bytes(ctx, forward_passes=1.0, weight_gradients=0.0)
    base_bytes = a.num_layers * _layer_elementwise_bytes(base_ctx) * ctx.tokens + logprob + dequant
    policy_bytes = a.num_layers * _layer_elementwise_bytes(ctx) * ctx.tokens + logprob + dequant
    ops_base = _ops_per_layer(base_ctx) * a.num_layers + 20.0
    ops_policy = _ops_per_layer(ctx) * a.num_layers + 20.0
    nbytes = ref_passes * base_bytes + policy_passes * policy_bytes
    one = max(gemm_base + att_fwd + base_bytes / ctx.bw, ops_base * OP_HOST_S)
    return _Reference(passes=ref_passes + policy_passes,
                      gemm_seconds=ref_passes * gemm_base + policy_passes * (gemm_base + gemm_lora),
                      attention_seconds=(ref_passes + policy_passes) * att_fwd,
                      other_seconds=nbytes / ctx.bw, bytes=nbytes,
                      ops=ref_passes * ops_base + policy_passes * ops_policy,
                      pass_seconds=one if t.workload in {"dpo", "kto"} else 0.0)


def _grad_bytes(t: TrainingSetup) -> float:
    """Bytes per gradient value: fp32 for fp32 training, an fp32 master copy or fp32 LoRA adapters."""
    if t.precision == "fp32" or t.master_weights == "fp32":
        return 4.0
    if t.method != "full" and t.adapter_precision != "model-dtype":
        return 4.0
    return 2.0


def _trainable(ctx: _Ctx) -> float:
    a, t = ctx.arch, ctx.t
    if t.method == "full":
        return float(wl.parameter_count(a, t))
    from tuneplan.core.memory import lora_parameter_count

    n = float(lora_parameter_count(a, t.lora_rank, target_spec(t), t.stack))
    if t.trainable_embeddings:
        n += a.embedding_params() + (0 if t.workload == "reward" else a.lm_head_params())
    return n


def optimizer_bytes_per_param(t: TrainingSetup) -> float:
    """Bytes the optimizer step reads and writes per trainable parameter.

    Parameters in ``p`` bytes, gradients in ``g``, states in ``s`` (fp32 for an fp32 master copy or fp32 LoRA
    adapters, else the parameters' dtype, as torch's AdamW keeps them). ``adamw`` is torch's default foreach
    implementation, ``14s + 3g + 4p`` (:data:`FOREACH_PASSES`); ``adamw-fused`` and the paged/8-bit
    bitsandbytes optimizers are one fused kernel, ``2p + g + 2 x 2 x s`` (8-bit: ``s`` = 1 B + one fp32 absmax per
    2,048 values, bitsandbytes blockwise quantisation); SGD ``2p + g``; Adafactor's factored second moment is
    negligible, ``2p + 2g``. An fp32 master copy adds writing the 16-bit model copy (``2``) and gradient-norm
    clipping reads the gradients and rescales them (``3g``).
    """
    lora = t.method != "full"
    p = 4.0 if (t.precision == "fp32" or t.master_weights == "fp32" or (lora and t.adapter_precision != "model-dtype")) \
        else 2.0
    g = p
    opt = t.optimizer
    if opt == "adamw":
        base = FOREACH_PASSES["state"] * p + FOREACH_PASSES["grad"] * g + FOREACH_PASSES["param"] * p
    elif opt in {"adamw-fused", "paged-adamw-32bit"}:
        s = 4.0 if opt == "paged-adamw-32bit" else p
        base = 2 * p + g + 4 * s
    elif opt in {"adamw-8bit", "paged-adamw-8bit"}:
        base = 2 * p + g + 4 * (1.0 + 4.0 / 2048)
    elif opt == "sgd":
        base = 2 * p + g
    else:  # adafactor
        base = 2 * p + 2 * g
    if t.master_weights == "fp32" and not lora:
        base += 2.0
    return base + 3.0 * g


def optimizer_term(ctx: _Ctx, on_cpu: bool) -> Term:
    """GPU seconds of one optimizer step over this GPU's share of the trainable parameters (0 on the GPU when
    the optimizer runs on the CPU: the offload term has it)."""
    params = _trainable(ctx) / ctx.opt_shard
    per = optimizer_bytes_per_param(ctx.t)
    seconds = 0.0 if on_cpu else params * per / ctx.bw
    return Term(key="optimizer", value=seconds, parts=(
        Quantity(key="params", value=params, unit="count"),
        Quantity(key="bytes_per_param", value=per, unit="B"),
        Quantity(key="bandwidth", value=ctx.bw, unit="B/s"),
    ), source="bytes per parameter of torch.optim.AdamW's foreach/fused update and bitsandbytes 8-bit states")


def _weight_bytes_gathered(ctx: _Ctx) -> float:
    """Bytes of the model's weights one all-gather of every unit moves (frozen NF4 weights at 4 bits)."""
    a, t = ctx.arch, ctx.t
    layer = float(a.layer_linear_params())
    outer = float(wl.parameter_count(a, t)) - layer
    w = 4.0 if t.precision == "fp32" else 2.0
    ckpt = a.checkpoint
    if ckpt is not None and ckpt.is_quantized and ckpt.quantized_parameters:
        return ckpt.quantized_bytes + max(float(wl.parameter_count(a, t)) - ckpt.quantized_parameters, 0.0) * w
    if t.method == "qlora":
        return layer * quantized_base_bytes_per_param(a, t) + outer * w
    return layer * w + outer * w


#: torch DDP's gradient buckets: ``bucket_cap_mb`` 25 MiB, and a first bucket of 1 MiB so that the first
#: all-reduce starts early (torch/nn/parallel/distributed.py ``_DEFAULT_FIRST_BUCKET_BYTES``, ``bucket_cap_mb=25``).
DDP_BUCKET_BYTES = 25 * 2**20
DDP_FIRST_BUCKET_BYTES = 2**20
#: DeepSpeed ZeRO-1/2 all-gathers the updated partitions in buckets of ``allgather_bucket_size`` elements (default
#: ``pp_int(5e8)``, deepspeed/runtime/zero/config.py).
DEEPSPEED_ALLGATHER_BUCKET_ELEMENTS = 500_000_000


@dataclass(frozen=True)
class _Comm:
    seconds: float
    volume: float
    hidden: float
    link: float
    name: str
    collectives: float = 0.0
    latency: float = 0.0


def _zero3_gather_calls(ctx: _Ctx) -> float:
    """All-gathers of one ZeRO-3 pass (forward, or backward): DeepSpeed fetches each submodule's parameters before it
    runs, one coalesced all-gather per fetch and one per prefetch it kicks off
    (partitioned_param_coordinator.py ``fetch_sub_module``, ``__all_gather_params``), so the count follows the
    modules that own weight matrices: every projection, each expert of an eager expert loop (transformers' MoE
    blocks hold one ``nn.Linear`` trio per expert; fused stacks one grouped tensor per projection), the embedding
    and the LM head. Norms and biases stay gathered (under ``stage3_param_persistence_threshold``)."""
    a = ctx.arch
    calls = 0.0
    for n_layers, mods in a.linear_modules():
        calls += n_layers * sum(m.count if (m.count > 1 and not ctx.fused) else 1 for m in mods)
    return calls + (1.0 if a.tie_word_embeddings else 2.0)


def _communication(ctx: _Ctx, mb_compute: float, bwd_share: float, extra_gathers: int = 0) -> _Comm:
    """Exposed collective time per optimizer step (module docstring); ``extra_gathers``: forward passes without
    gradients per micro-batch that gather the weights once more under ZeRO-3/FSDP (DPO/KTO's reference).

    Each collective costs NCCL's latency for its ranks and hops plus its bytes over the bus bandwidth
    (:func:`~tuneplan.core.collectives.collective_seconds`), so a plan that issues many small collectives (ZeRO-3
    over hundreds of GPUs, an expert loop's per-expert gathers) pays for their count, not only their bytes."""
    t = ctx.t
    n = t.num_gpus
    if n <= 1 or t.sharding == "none":
        return _Comm(0.0, 0.0, 0.0, 0.0, "")
    link, name = link_bandwidth(ctx.gpu, n)
    intra = "nvlink" if _nvlink_class(ctx.gpu, min(n, GPUS_PER_NODE)) else "pci"
    gen = nccl.generation(ctx.gpu.compute_capability)

    def coll(op: str, nbytes: float, count: float) -> tuple[float, float]:
        """(seconds, of which latency) of ``count`` collectives of ``nbytes`` each."""
        if count <= 0 or nbytes <= 0:
            return 0.0, 0.0
        one = nccl.collective_seconds(op, nbytes, n, link, intra=intra, ranks_per_node=GPUS_PER_NODE,
                                      gpu_generation=gen)
        steps = 2.0 * (n - 1) if op == "all_reduce" else float(n - 1)
        return count * one, max(count * (one - nbytes * steps / n / link), 0.0)

    ring = (n - 1) / n
    grads = _trainable(ctx) * _grad_bytes(t)
    if t.frozen_weight_grads:
        grads += float(ctx.arch.layer_linear_params()) * _grad_bytes(t)
    A = t.grad_accumulation
    if t.sharding == "ddp":
        volume = 2 * ring * grads  # one all-reduce per step (no_sync on earlier micro-batches), in buckets
        first = min(grads, DDP_FIRST_BUCKET_BYTES)
        rest = max(grads - first, 0.0)
        full = math.floor(rest / DDP_BUCKET_BYTES)
        parts = [coll("all_reduce", first, 1), coll("all_reduce", DDP_BUCKET_BYTES, full),
                 coll("all_reduce", rest - full * DDP_BUCKET_BYTES, 1)]
        total, lat = sum(p[0] for p in parts), sum(p[1] for p in parts)
        calls = 1 + full + (1 if rest > full * DDP_BUCKET_BYTES else 0)
        window = mb_compute * bwd_share  # overlapped with the last micro-batch's backward
        exposed = max(total - window, 0.0)
        return _Comm(exposed, volume, total - exposed, link, name, calls, lat)
    ds = deepspeed_buffers(ctx.arch, t)
    if t.sharding in {"zero1", "zero2"}:
        # ZeRO stages 1 and 2 move what DDP moves, 2 Psi per step (ZeRO paper arXiv:1910.02054 §7.2): the gradients
        # reduce-scattered to their owners (ZeRO-2 during every micro-batch's backward, ZeRO-1 at the accumulation
        # boundary) in reduce buckets, and the updated trainable parameters all-gathered after the optimizer step
        # (not overlapped) in all-gather buckets
        rs_count = A if t.sharding == "zero2" else 1
        rs = ring * grads
        w = 4.0 if t.precision == "fp32" else 2.0
        gather = ring * _trainable(ctx) * w
        rs_bucket = max(ds.reduce, 1.0) * _grad_bytes(t)
        rs_calls = max(math.ceil(grads / rs_bucket), 1)
        rs_s, rs_lat = coll("reduce_scatter", grads / rs_calls, rs_calls)
        ag_bucket = DEEPSPEED_ALLGATHER_BUCKET_ELEMENTS * w
        ag_calls = max(math.ceil(_trainable(ctx) * w / ag_bucket), 1)
        ag_s, ag_lat = coll("all_gather", _trainable(ctx) * w / ag_calls, ag_calls)
        volume = rs * rs_count + gather
        hidden = min(rs_s, mb_compute * bwd_share) * rs_count
        total = rs_s * rs_count + ag_s
        return _Comm(total - hidden, volume, hidden, link, name, rs_calls * rs_count + ag_calls,
                     rs_lat * rs_count + ag_lat)
    # ZeRO-3 / FSDP: every micro-batch gathers the weights for the forward and again for the backward, and
    # reduce-scatters the gradients (FSDP under no_sync only at the last micro-batch). FSDP gathers and
    # reduce-scatters one flat unit per decoder layer (and the root); ZeRO-3 one collective per module fetch
    # (:func:`_zero3_gather_calls`) and one reduce-scatter per reduce bucket.
    weights = _weight_bytes_gathered(ctx)
    gather = ring * weights
    rs_count = A if (t.sharding == "zero3" or t.grad_sync == "micro-batch") else 1
    volume = (2 + extra_gathers) * gather * A + ring * grads * rs_count
    if t.sharding == "zero3":
        ag_calls = _zero3_gather_calls(ctx)
        rs_calls = max(math.ceil(grads / (max(ds.reduce, 1.0) * _grad_bytes(t))), 1)
    else:
        ag_calls = rs_calls = float(ctx.arch.num_layers + 1)
    ag_s, ag_lat = coll("all_gather", weights / ag_calls, ag_calls)  # one pass over the weights
    rs_s, rs_lat = coll("reduce_scatter", grads / rs_calls, rs_calls)
    # overlap: prefetching hides a unit's gather behind the previous unit's compute; the first unit's is exposed
    first_unit = ag_s / max(ctx.arch.num_layers, 1)
    per_mb_comm = (2 + extra_gathers) * ag_s + rs_s * rs_count / A
    exposed_mb = max(per_mb_comm - mb_compute, min(2 * first_unit, per_mb_comm))
    exposed = exposed_mb * A
    total = per_mb_comm * A
    calls = (2 + extra_gathers) * ag_calls * A + rs_calls * rs_count
    latency = (2 + extra_gathers) * ag_lat * A + rs_lat * rs_count
    return _Comm(exposed, volume, max(total - exposed, 0.0), link, name, calls, latency)


def _offload(ctx: _Ctx, mb_compute: float, activation_bytes: float = 0.0, spilled_bytes: float = 0.0,
             ) -> tuple[float, float, float, float, float]:
    """(exposed seconds, PCIe bytes, PCIe B/s, CPU optimizer seconds, hidden seconds) per optimizer step.

    What crosses the one PCIe link during a micro-batch (offloaded parameter shards in for the forward and the
    backward, offloaded activations out and back) is added up first and hidden behind that micro-batch's compute
    once; gradients out, updated parameters in, paged optimizer states and the CPU optimizer step are not hidden.
    """
    t = ctx.t
    pcie = pcie_bandwidth(ctx.gpu)
    A = t.grad_accumulation
    act_mb = 2.0 * activation_bytes if t.activation_offload else 0.0  # out in the forward, back in the backward
    spill = 2.0 * spilled_bytes
    if not t.cpu_offload:
        hidden = min(act_mb / pcie, mb_compute) * A
        pcie_bytes = act_mb * A + spill
        return pcie_bytes / pcie - hidden, pcie_bytes, pcie, 0.0, hidden
    pcie = pcie_bandwidth(ctx.gpu)
    A = t.grad_accumulation
    params = _trainable(ctx) / ctx.opt_shard
    grads = params * _grad_bytes(t)
    per_node = min(t.num_gpus, GPUS_PER_NODE)  # the node's CPU steps every local GPU's shard
    if t.sharding in {"zero1", "zero2", "zero3"}:
        rate = CPU_ADAM_PARAMS_PER_S["deepspeed"]
    elif t.optimizer == "adamw-fused":  # torch's fused CPU kernel: host memory traffic
        rate = CPU_ADAM_BYTES_PER_S / optimizer_bytes_per_param(t)
    else:  # torch's for-loop implementation (foreach is the default for CUDA tensors only)
        rate = CPU_ADAM_PARAMS_PER_S["torch"]
    cpu_s = params * per_node / rate
    if t.sharding in {"zero3", "fsdp"} or t.num_gpus == 1:
        # parameters live on the CPU: each micro-batch copies this GPU's shard in for the forward and again
        # for the backward; gradients go out once per step (accumulated on the CPU)
        weights = _weight_bytes_gathered(ctx) / ctx.shard
        per_mb = 2 * weights + act_mb
        hidden = min(per_mb / pcie, mb_compute) * A
        pcie_bytes = per_mb * A + grads + spill
    else:  # ZeRO-1/2 optimizer offload: gradients out, updated 16-bit parameters back, once per step
        hidden = min(act_mb / pcie, mb_compute) * A
        pcie_bytes = grads + params * 2.0 + act_mb * A + spill
    exposed = pcie_bytes / pcie - hidden + cpu_s
    return exposed, pcie_bytes, pcie, cpu_s, hidden


def _ops_per_layer(ctx: _Ctx) -> float:
    """Operators one decoder layer dispatches in its forward (the backward dispatches about as many autograd
    nodes): counted from transformers' ``LlamaDecoderLayer`` (norms 8 each, q/k/v/o projections, rotary 16,
    attention call and layout 8, MLP 5, residuals 2), PEFT's ``lora.Linear.forward`` (7 per adapted linear),
    and the expert loop of transformers' MoE blocks (8 per expert); fused/compiled stacks launch one kernel per
    norm, rotary, activation and residual group. An LLM.int8 base adds :data:`INT8_OPS_PER_MATMUL` per quantised
    matrix, an HQQ base :data:`HQQ_OPS_PER_MATMUL`."""
    a, t = ctx.arch, ctx.t
    if ctx.fused:
        ops = 14.0
        lora_ops = 3.0
        expert_ops = 4.0
    else:
        ops = 8.0 * ((1 if a.parallel_block else 2) + a.extra_norms_per_layer) + 4 + 16 + 8 + 5 + 2
        if a.qk_norm:
            ops += 16
        lora_ops = 7.0
        expert_ops = 8.0
    if a.is_moe:
        ops += 10 + expert_ops * a.num_experts * a.num_moe_layers / max(a.num_layers, 1)
    if t.method != "full":
        for n, mods in a.linear_modules():
            ops += lora_ops * len(_adapted_modules(ctx, mods)) * n / max(a.num_layers, 1)
    if int8_base(a, t):
        for n, mods in a.linear_modules():
            ops += INT8_OPS_PER_MATMUL * sum(1 for m in mods if m.count == 1) * n / max(a.num_layers, 1)
    if hqq_base(a, t):
        for n, mods in a.linear_modules():
            ops += HQQ_OPS_PER_MATMUL[t.quant_bits] * sum(1 for m in mods if m.count == 1) * n / max(a.num_layers, 1)
    return ops


@dataclass(frozen=True)
class StepTime:
    """One optimizer step on one GPU.

    Attributes:
        terms: the seven time terms (:data:`TERM_KEYS`), seconds per optimizer step, then ``reference`` (DPO, KTO,
            GRPO with a reference or vLLM's old log-probs) and ``generation`` (GRPO) where they apply; they add up to
            ``seconds``.
        seconds: wall time of one optimizer step.
        tokens: tokens one GPU computes per step (micro-batch x row x accumulation).
        forward_seconds: GPU time of one micro-batch's forward alone (for evaluation passes), with the reference's
            forward for DPO/KTO.
        reference_pass_seconds: DPO/KTO: one reference forward over one micro-batch (what a precomputed reference's
            pass over the data is made of), else 0.
        generation: GRPO: the step's generation phase (:class:`~tuneplan.core.generation.GenerationCost`, also the
            ``generation`` term), else None.
        eval_decode: an SFT evaluation that generates (``core/memory/peaks.py`` ``generates_in_evaluation``): the
            rates one eager ``generate`` forward runs at, for
            :func:`~tuneplan.core.generation.eval_generation_cost` (not part of the step), else None.
        bound: the class that takes at least half the step: ``compute`` (matmul/attention), ``memory``
            (bandwidth-bound kernels and optimizer), ``overhead`` (host), ``communication`` or ``offload``; ``mixed``
            when none does.
        link: the collective link's name (``nvlink``, ``pcie``, ``pcie-host``, ``infiniband``) or empty.
    """

    terms: tuple[Term, ...]
    seconds: float
    tokens: float
    forward_seconds: float
    bound: str
    link: str
    reference_pass_seconds: float = 0.0
    generation: GenerationCost | None = None
    eval_decode: DecodeRates | None = None

    def term(self, key: str) -> Term:
        """The term with this key.

        Raises:
            KeyError: for an unknown key.
        """
        for term in self.terms:
            if term.key == key:
                return term
        raise KeyError(key)


def step_time(arch: ModelArchitecture, t: TrainingSetup, gpu: GpuSpec, row: float, spilled_bytes: float = 0.0,
              activation_bytes: float = 0.0, slowest_row: float | None = None,
              attention_seq: float | None = None) -> StepTime:
    """Seconds of one optimizer step on one GPU, as seven terms with their parts (module docstring), and an eighth,
    ``reference``, for DPO/KTO's forward passes without gradients.

    Args:
        arch: the model.
        t: the training setup (method, batch geometry, parallelism, stack).
        gpu: the card.
        row: tokens per sequence computed (``seq_len``, or the padded row under dynamic padding).
        spilled_bytes: paged optimizer states that do not fit on the GPU (bytes): read and written over PCIe at
            each optimizer step.
        activation_bytes: saved activations one micro-batch offloads to the CPU (bytes; ``t.activation_offload``):
            copied out in the forward and back in the backward on their own CUDA streams, so only the part that
            outlasts the micro-batch's compute is exposed (torchtune ``OffloadActivations``).
        slowest_row: tokens per sequence of the slowest data-parallel GPU (dynamic padding:
            :func:`tuneplan.core.throughput.slowest_rank_row`), at least ``row``. The step's work is computed at
            this row, because every GPU waits for it at the step's collectives, while ``tokens`` counts ``row``
            (what this GPU trains on average). ``None``: every GPU computes ``row``.
        attention_seq: tokens per sequence the attention kernel sees when it is not the row (padding-free batches:
            each example attends within itself, ``E[l^2] / E[l]`` tokens, :func:`tuneplan.core.throughput.
            estimate_time`); ``None``: the row.

    Raises:
        ValueError: when the card has no tensor throughput.
    """
    counted_row = row
    if slowest_row is not None and slowest_row > row:
        row = slowest_row
    rate = matmul_ceiling(gpu, t.precision)
    fused = t.framework == "optimized" or t.torch_compile
    # (pair workloads compute chosen and rejected rows: wl.policy_rows)
    ctx = _Ctx(arch=arch, t=t, gpu=gpu, row=row, tokens=wl.policy_rows(t) * row, rate=rate, bw=achieved_bandwidth(gpu),
               elem=4.0 if t.precision == "fp32" else 2.0, fused=fused, seq=attention_seq or 0.0)
    A = t.grad_accumulation
    mm, att, other = matmul_term(ctx), attention_term(ctx), other_kernels_term(ctx)
    gpu_mb = mm.value + att.value + other.value
    # host: operator launches of forward (+ recompute) and backward
    fwd_passes = 2.0 if t.grad_checkpointing else 1.0
    ops = _ops_per_layer(ctx) * arch.num_layers * (fwd_passes + 1.0) + 20.0
    ref = _reference(ctx) if t.workload in {"dpo", "kto", "grpo"} else None
    if ref is not None and ref.passes:  # DPO/KTO: the no-grad forwards run in the same micro-batch (GRPO: over the
        # same rows while it scores the completions)
        gpu_mb += ref.seconds
        ops += ref.ops
    host_mb = ops * OP_HOST_S
    exposed_host = max(host_mb - gpu_mb, 0.0)
    # backward share of the micro-batch's compute (what DDP's bucketed all-reduce can hide behind): everything but
    # the forward (a checkpointed layer's recompute runs during the backward)
    fwd_mb = forward_seconds(ctx) + (ref.seconds if ref is not None and ref.passes else 0.0)
    bwd_share = max(1.0 - fwd_mb / gpu_mb, 0.0) if gpu_mb > 0 else 0.0
    on_cpu = t.cpu_offload
    opt = optimizer_term(ctx, on_cpu)
    comm = _communication(ctx, gpu_mb, bwd_share, ref.passes if ref is not None else 0)
    contention = OVERLAP_SLOWDOWN * comm.hidden  # the compute that hid the collectives ran slower
    act_bytes = activation_bytes if t.activation_offload else 0.0
    off_s, off_bytes, pcie, cpu_s, off_hidden = _offload(ctx, gpu_mb, act_bytes, spilled_bytes)

    def scaled(term: Term) -> Term:
        return term.model_copy(update={"value": term.value * A,
                                       "parts": term.parts + (Quantity(key="micro_batches", value=A, unit="count"),)})

    terms = (
        scaled(mm), scaled(att), scaled(other), opt,
        Term(key="communication", value=comm.seconds + contention, parts=(
            Quantity(key="exposed", value=comm.seconds, unit="s"),
            Quantity(key="bytes", value=comm.volume, unit="B"),
            Quantity(key="link", value=comm.link, unit="B/s"),
            Quantity(key="collectives", value=comm.collectives, unit="count"),
            Quantity(key="latency", value=comm.latency, unit="s", source=nccl.NCCL_TUNING),
            Quantity(key="overlapped", value=comm.hidden, unit="s"),
            Quantity(key="contention", value=contention, unit="s", source="arXiv:2507.03114"),
        ), source="NCCL ring all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n of the data "
                  "(nccl-tests doc/PERFORMANCE.md), plus each collective's latency from NCCL's cost model "
                  "(src/graph/tuning.cc)"),
        Term(key="offload", value=off_s, parts=(
            Quantity(key="transfer_seconds", value=off_bytes / pcie, unit="s"),
            Quantity(key="pcie_bytes", value=off_bytes, unit="B"),
            Quantity(key="pcie", value=pcie, unit="B/s"),
            Quantity(key="cpu_seconds", value=cpu_s, unit="s"),
            Quantity(key="overlapped", value=off_hidden, unit="s"),
            Quantity(key="spilled_bytes", value=spilled_bytes, unit="B"),
            Quantity(key="activation_bytes", value=act_bytes, unit="B"),
        ), source="PCIe transfers at PCIE_EFFICIENCY of the link; CPU Adam rate from DeepSpeed PR #735"),
        Term(key="fixed", value=exposed_host * A, parts=(
            Quantity(key="ops", value=ops * A, unit="count"),
            Quantity(key="op_seconds", value=OP_HOST_S, unit="s"),
            Quantity(key="gpu_seconds", value=gpu_mb * A, unit="s"),
        ), source="host dispatch per operator in eager PyTorch"),
    )
    if ref is not None and ref.passes:
        terms = (*terms, scaled(Term(key="reference", value=ref.seconds, parts=(
            Quantity(key="passes", value=ref.passes, unit="count",
                     source=f"{wl.TRL} DPOTrainer._compute_loss, KTOTrainer._compute_loss"),
            Quantity(key="tokens", value=ctx.tokens, unit="tokens"),
            Quantity(key="gemm_seconds", value=ref.gemm_seconds, unit="s"),
            Quantity(key="attention_seconds", value=ref.attention_seconds, unit="s"),
            Quantity(key="other_seconds", value=ref.other_seconds, unit="s"),
            Quantity(key="bytes", value=ref.bytes, unit="B"),
            Quantity(key="bandwidth", value=ctx.bw, unit="B/s"),
        ), source="forward GEMMs, attention and elementwise kernels as in the step, forward only (core/workload.py)")))
    gen_s, gen = 0.0, None
    if t.workload == "grpo":  # the completions of the step, generated before it trains (core/generation.py)
        fwd_ops = _ops_per_layer(ctx) * arch.num_layers + 20.0
        link = link_bandwidth(gpu, max(t.num_gpus, 2))[0]
        gen = generation_cost(arch, t, rate=rate, bandwidth=ctx.bw, host_step_seconds=fwd_ops * OP_HOST_S,
                              capacity_bytes=gpu.memory_gib * 2**30, link_bandwidth=link,
                              activation_bytes_per_token=wl.reference_layer_bytes_per_token(arch, 2, 2),
                              layer_weight_bytes=quantized_base_bytes_per_param(arch, t)
                              if quantized_frozen_base(arch, t) else 2.0)
        gen_s = gen.seconds
        terms = (*terms, gen.term)
    eval_decode = None
    if generates_in_evaluation(t):
        fwd_ops = _ops_per_layer(ctx) * arch.num_layers + 20.0
        layer_elem = quantized_base_bytes_per_param(arch, t) if quantized_frozen_base(arch, t) else 2.0
        gather = 0.0
        if t.sharding == "zero3" and t.num_gpus > 1:  # every forward gathers the sharded weights again
            layers = float(arch.layer_linear_params())
            whole = layers * layer_elem + (float(arch.parameter_count()) - layers) * 2.0
            gather = whole * (t.num_gpus - 1) / t.num_gpus / link_bandwidth(gpu, t.num_gpus)[0]
        eval_decode = DecodeRates(rate=rate, bandwidth=ctx.bw, host_step_seconds=fwd_ops * OP_HOST_S,
                                  layer_weight_bytes=layer_elem, gather_seconds=gather)
    seconds = sum(term.value for term in terms)
    classes = {"compute": terms[0].value + terms[1].value, "memory": terms[2].value + terms[3].value,
               "communication": terms[4].value, "offload": terms[5].value, "overhead": terms[6].value}
    if len(terms) > 7:  # the reference's GEMMs and attention are compute, its other kernels memory
        classes["compute"] += (ref.gemm_seconds + ref.attention_seconds) * A if ref is not None else 0.0
        classes["memory"] += ref.other_seconds * A if ref is not None else 0.0
    classes["memory"] += gen_s  # decode steps read weights and KV cache: bandwidth-bound
    mem_mm = mm.part("memory_bound_seconds") * A
    classes["compute"] -= mem_mm
    classes["memory"] += mem_mm
    bound = max(classes, key=lambda k: classes[k])
    if seconds > 0 and classes[bound] < 0.5 * seconds:
        bound = "mixed"  # no single limit takes half the step
    return StepTime(terms=terms, seconds=seconds, tokens=wl.policy_rows(t) * counted_row * A,
                    forward_seconds=fwd_mb, bound=bound,
                    link=comm.name, reference_pass_seconds=ref.pass_seconds if ref is not None else 0.0,
                    generation=gen, eval_decode=eval_decode)

