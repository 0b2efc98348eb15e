"""Training time: FLOPs per token, MFU, throughput and wall-clock phases.

    T_training = tokens_total x FLOPs_per_token / (n_gpus x peak x MFU x eta_scale)

* FLOPs per token: full fine-tuning ``6N + 12*L*d*s`` (Kaplan et al. 2020, arXiv:2001.08361, and
  the attention term of PaLM App. B, arXiv:2204.02311); LoRA/QLoRA ``4N + 12*L*d*s`` (no weight
  gradients for frozen matrices; confirmed at 3.94-4.10 N/token by NeMo/Megatron-Bridge LoRA
  benchmarks, reference throughput.md §2). ``N`` is the matmul parameters per token (MoE: active).
* Gradient checkpointing repeats the forward: +2N + 4*L*d*s hardware FLOPs per token.
* Peak: dense BF16 tensor TFLOPS (FP16 on T4/V100) from ``gpus.csv``.
* MFU defaults by method, GPU segment and framework tier: reference throughput.md §6.
* QLoRA dequantisation: LoRA time x 1.25 (throughput.md §4: measured x1.0-x2.0).
* Multi-GPU scaling efficiency by interconnect: throughput.md §5.
"""

from __future__ import annotations

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.result import TimeEstimate
from tuneplan.core.scenario import Dataset, GpuSpec, Pricing, TrainingSetup

__all__ = ["default_mfu", "estimate_time", "flops_per_token", "scaling_efficiency"]

#: QLoRA wall-clock multiplier over LoRA for NF4 dequantisation (throughput.md §4, torchtune 4090: x1.28).
QLORA_TIME_FACTOR = 1.25


def flops_per_token(arch: ModelArchitecture, t: TrainingSetup) -> tuple[float, float]:
    """Model FLOPs and hardware FLOPs per trained token.

    Returns:
        ``(model_flops, hardware_flops)``: model FLOPs are what MFU counts; hardware FLOPs add
        the recomputed forward of gradient checkpointing.
    """
    n = arch.matmul_params_per_token()
    attn = 12 * arch.num_attention_layers * arch.q_dim * t.seq_len / 2  # causal: half the score matrix
    attn_full = 12 * arch.num_attention_layers * arch.q_dim * t.seq_len
    # The PaLM accounting counts the full s x s matrix; causal kernels (FlashAttention) skip half.
    attn = attn_full if t.attention == "eager" else attn
    factor = 6 if t.method == "full" else 4
    model = factor * n + attn
    hardware = model + (2 * n + attn / 3 if t.grad_checkpointing else 0.0)
    return float(model), float(hardware)


def default_mfu(t: TrainingSetup, gpu: GpuSpec) -> float:
    """Default model FLOPs utilisation (0-1) against ``gpu.peak_tflops`` (throughput.md §6).

    Rows: full fine-tuning (optimised stack), LoRA (optimised stack), LoRA with plain HF PEFT.
    Columns: A100, H100/H200, B200, pro PCIe, GeForce, power-capped (L4/A10/A10G), MI300X.
    """
    seg = gpu.segment
    gid = gpu.id
    if gid.startswith("a100"):
        col = "a100"
    elif gid.startswith(("h100", "h200", "gh200")):
        col = "h100"
    elif gid.startswith("b200"):
        col = "b200"
    elif gid in {"l4", "a10", "a10g", "t4"}:
        col = "capped"
    elif gpu.vendor.upper() == "AMD":
        col = "amd"
    elif seg == "consumer":
        col = "geforce"
    else:
        col = "pro"
    table = {
        "full": {"a100": 0.50, "h100": 0.40, "b200": 0.35, "pro": 0.40, "geforce": 0.40, "capped": 0.30, "amd": 0.25},
        "lora": {"a100": 0.38, "h100": 0.35, "b200": 0.30, "pro": 0.35, "geforce": 0.40, "capped": 0.30, "amd": 0.20},
        "lora_hf": {"a100": 0.25, "h100": 0.22, "b200": 0.20, "pro": 0.22, "geforce": 0.25, "capped": 0.18, "amd": 0.12},
    }
    if t.method == "full":
        row = "full"
    else:
        row = "lora" if t.framework == "optimized" else "lora_hf"
    mfu = table[row][col]
    if t.method == "full" and t.framework == "hf":
        mfu *= 0.8  # plain HF Trainer vs an optimised stack (throughput.md §4, framework tier)
    if t.seq_len >= 16384:
        mfu *= 0.75  # llm-foundry long-context rows
    return mfu


def scaling_efficiency(t: TrainingSetup, gpu: GpuSpec) -> float:
    """Multi-GPU efficiency eta (1.0 on one GPU), by interconnect and what crosses it (throughput.md §5)."""
    if t.num_gpus <= 1:
        return 1.0
    if t.sharding == "none":
        return 1.0 / t.num_gpus  # layers split across GPUs run one GPU at a time
    nvlink = gpu.p2p_link_gbps >= 300
    if t.cpu_offload:
        return 0.4
    if nvlink:
        return 0.95
    if t.method == "full" and t.sharding in {"zero3", "fsdp"}:
        return 0.6
    return 0.9


def estimate_time(arch: ModelArchitecture, t: TrainingSetup, data: Dataset, gpu: GpuSpec, pricing: Pricing,
                  checkpoint_bytes: float) -> TimeEstimate:
    """Wall-clock phases of one run (seconds) and the training throughput per GPU.

    Args:
        checkpoint_bytes: bytes written per checkpoint save (adapters, or weights + optimizer).

    Raises:
        ValueError: when the GPU has no usable tensor throughput (peak TFLOPS of 0).
    """
    peak = gpu.peak_tflops * 1e12
    if peak <= 0:
        raise ValueError(f"{gpu.name} has no BF16/FP16 tensor throughput in the catalog; enter its TFLOPS")
    model_flops, hardware_flops = flops_per_token(arch, t)
    mfu = t.mfu_override if t.mfu_override is not None else default_mfu(t, gpu)
    eta = scaling_efficiency(t, gpu)
    tokens_total = data.tokens_per_epoch * data.epochs / data.padding_efficiency
    # MFU counts model FLOPs; the recompute of checkpointing costs time on top.
    per_token_s = hardware_flops / (peak * mfu)
    if t.method == "qlora":
        per_token_s *= QLORA_TIME_FACTOR
    tps_per_gpu = eta / per_token_s
    training_s = tokens_total / (tps_per_gpu * t.num_gpus) if tokens_total > 0 else 0.0
    # Memory-bound floor: every step streams the weights at least twice (forward, backward).
    tokens_per_step = t.micro_batch * t.seq_len
    weight_bytes = arch.parameter_count() * (0.56 if t.method == "qlora" else 2)
    stream_s = 2 * weight_bytes / (gpu.memory_bandwidth_gbps * 1e9)
    bound = "compute"
    if stream_s > tokens_per_step * per_token_s:
        bound = "memory"
        tps_per_gpu = eta * tokens_per_step / stream_s
        training_s = tokens_total / (tps_per_gpu * t.num_gpus) if tokens_total > 0 else 0.0
    steps = tokens_total / max(1.0, tokens_per_step * t.grad_accumulation * t.num_gpus)
    setup_s = pricing.setup_minutes * 60
    eval_s = pricing.eval_minutes * 60 + training_s * data.eval_fraction / 3  # eval: forward only (~1/3 of a step)
    ckpt_s = pricing.checkpoint_count * checkpoint_bytes / (pricing.disk_write_gbps * 1e9)
    phases = {"setup": setup_s, "training": training_s, "evaluation": eval_s, "checkpoints": ckpt_s}
    return TimeEstimate(
        tokens_total=tokens_total,
        flops_per_token=model_flops,
        mfu=mfu,
        tokens_per_second=tps_per_gpu,
        phases=phases,
        seconds=sum(phases.values()),
        steps=steps,
        bound=bound,
    )
