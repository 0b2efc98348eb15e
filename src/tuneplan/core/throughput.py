"""Training time from first principles: FLOPs per token, utilisation, throughput and phases.

Every number below comes from the reference notes ``shared/reference/throughput.md`` (cited as
"TP §n"); lines marked *judgement* are planning defaults the notes state without a measurement.

Core model (TP §1)::

    tokens_total  = real tokens per epoch / padding efficiency x epochs       (computed tokens)
    T_training    = tokens_total x F_hw / (n_gpus x peak_eff x u x eta)       (compute bound)
    T_wall        = T_setup + T_training + T_eval + T_checkpoints

* **FLOPs per token** (TP §2). ``N`` = weights each token is multiplied with (MoE: the active
  experts; LM head included), ``L`` = attention layers, ``d`` = query width (heads x head_dim),
  ``s`` = tokens per sequence the attention sees.

  - full fine-tuning: model FLOPs ``6N + 12 L d s`` (Kaplan et al. 2020, arXiv:2001.08361; the
    attention term as PaLM App. B, arXiv:2204.02311, and llm-foundry's MFU formula: it counts the
    whole s x s score matrix, as published MFU figures do, although causal kernels skip half);
  - LoRA / QLoRA: ``4N + 12 L d s`` (forward 2N, activation gradients 2N, no weight gradients for
    frozen matrices; NeMo/Megatron-Bridge LoRA runs measure 3.94-4.10 N per token; the adapters'
    ``6 N_lora`` is negligible);
  - gradient checkpointing repeats the forward: hardware FLOPs ``+ 2N + 4 L d s`` per token
    (Korthikanti et al. 2022, arXiv:2205.05198; full FT 8N vs 6N = the HFU/MFU ratio 4/3 in the
    llm-foundry tables).

* **Peak** (TP §1, §3c): dense BF16 tensor TFLOPS with FP32 accumulate (FP16 on T4/V100, which
  lack BF16); FP32 training uses the TF32 rate, taken as half the BF16 rate (A100/H100 datasheets).
  The MFU defaults were set on reference cards; a card whose *measured* matmul ceiling is a
  smaller (or larger) share of its spec than the reference card's gets ``peak_eff = spec x
  (measured/spec) / (reference measured/spec)`` (TP §1 "use measured peak ... re-base MFU";
  reference ratios from TP §3c: A100 SXM 0.869, H100 SXM 0.803, B200 0.776, RTX 4090 1.0,
  MI300X 0.514). The pro-PCIe and power-capped columns are stated against spec and not re-based.

* **Utilisation u** (TP §6): the default MFU table by method (full / LoRA) x framework tier
  (optimized / plain HF) x GPU class. The table has no "full FT, plain HF" row; it uses the
  optimized full-FT value times the column's HF/optimized LoRA ratio (0.55-0.72; TP §4 "plain HF
  runs at ~0.6x of an optimized stack"). QLoRA: time x 1.25 (TP §4, measured x1.0-x2.0).
  Sequences of 16k tokens or more: u x 0.75 (TP §6, llm-foundry 32k/65k rows).

* **Activation checkpointing.** TP §6 says "AC on -> time x 1.25-1.33, unless the MFU already came
  from an AC run". The fine-tuning evidence behind the defaults mostly had AC on (torchtune 4090
  full/LoRA/QLoRA and A100 3B rows, LLaMA-Factory with gradient checkpointing, llm-foundry
  13B/70B), so the defaults are read as model-FLOPs MFU *with* checkpointing. The GPU's hardware
  utilisation ``u x F_hw(AC on) / F_model`` is then the same with and without it, and a run
  without checkpointing saves the recomputed forward: time x ``F_hw(AC off) / F_hw(AC on)``
  (3/4 for full FT, ~2/3 for LoRA). ``tools/time_accuracy.py`` shows the alternative reading
  (defaults without AC, x4/3-x3/2 time with it) under-predicts the published rows by ~35 %.
* ``TrainingSetup.mfu_override`` is a *measured* model-FLOPs MFU against the spec peak; it
  replaces the default u, the measured-ceiling re-base and the checkpointing, QLoRA and
  long-context factors (a measurement already contains them); multi-GPU eta and CPU offload
  still apply.

* **Memory-bound micro-batches** (roofline): each micro-batch streams the weights once per pass
  (forward, backward, and the recomputed forward), at ``2 B/param`` (bf16) or, for QLoRA,
  ``~4.5 B/param`` (read NF4 0.5 B, write and re-read bf16 4 B: TP §4). Full fine-tuning adds the
  optimizer step once per optimizer step, ``N x 18 B`` of traffic (TP §2). A micro-batch takes
  ``max(compute time, bytes / memory bandwidth)``.

* **Multi-GPU efficiency eta** (TP §5, *judgement*): 1.0 on one GPU; NVLink/NVSwitch/Infinity
  Fabric node 0.95; more than 8 GPUs (multi-node, InfiniBand) 0.90; PCIe with LoRA/DDP 0.90 (tiny
  gradients); PCIe with ZeRO-3/FSDP 0.6 (TP: 0.5-0.7 for full FT, where weights and gradients
  cross PCIe every step; sharded LoRA gathers its frozen weights the same way); PCIe full
  fine-tuning with DDP/ZeRO-1/2 0.7 (gradients only). Layers split across GPUs without sharding (HF
  ``device_map``) run one GPU at a time: eta = 1/n. CPU offload of parameters/optimizer: x0.4
  (TP §5: "cap at 0.3-0.5 of the single-GPU MFU"; torchtune 70B offload run at 27 % MFU).

Phases (seconds): ``setup`` (image pull and start ``pricing.setup_minutes``, model download
``parameters x 2 B / pricing.download_gbps``, dataset preparation ``pricing.dataset_prep_minutes``),
``training``, ``evaluation`` (``pricing.eval_minutes`` plus a forward pass, ``2N + 4 L d s``
FLOPs/token, over ``eval_fraction`` of the data once per epoch), ``checkpoints`` (saves x bytes /
``pricing.disk_write_gbps``).
"""

from __future__ import annotations

import math

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.result import TimeEstimate
from tuneplan.core.scenario import Dataset, GpuSpec, Pricing, TrainingSetup

__all__ = [
    "CPU_OFFLOAD_FACTOR",
    "HF_FULL_FT_TABLE_NOTE",
    "LONG_CONTEXT_FACTOR",
    "LONG_CONTEXT_TOKENS",
    "MFU_TABLE",
    "QLORA_TIME_FACTOR",
    "computed_tokens",
    "default_mfu",
    "effective_peak_tflops",
    "estimate_time",
    "flops_per_token",
    "gpu_class",
    "scaling_efficiency",
    "tokens_per_row",
]

#: QLoRA wall-clock multiplier over LoRA for NF4 dequantisation (TP §4 planner default; torchtune
#: Llama-3.1-8B on a 4090 x1.28, LitGPT A100 x1.09-x2.0, compiled/fused kernels ~x1.0).
QLORA_TIME_FACTOR = 1.25

#: MFU multiplier for long sequences (TP §6: seq >= 16k -> x0.75; llm-foundry 7B 32k/65k rows at
#: 30.9 % / 28.6 % vs 46 % at 2k).
LONG_CONTEXT_FACTOR = 0.75
LONG_CONTEXT_TOKENS = 16384

#: Share of single-GPU throughput kept with parameters/optimizer offloaded to CPU (TP §5: 0.3-0.5).
CPU_OFFLOAD_FACTOR = 0.4

#: TP §6 default MFU (model FLOPs / dense BF16 peak), BF16, packed 2-4k, FlashAttention, one node.
MFU_TABLE: dict[str, dict[str, float]] = {
    "full": {"a100": 0.50, "h100": 0.40, "b200": 0.35, "pro": 0.40, "geforce": 0.40, "capped": 0.30, "amd": 0.25},
    "lora": {"a100": 0.38, "h100": 0.35, "b200": 0.30, "pro": 0.35, "geforce": 0.40, "capped": 0.30, "amd": 0.20},
    "lora_hf": {"a100": 0.25, "h100": 0.22, "b200": 0.20, "pro": 0.22, "geforce": 0.25, "capped": 0.18, "amd": 0.12},
}

HF_FULL_FT_TABLE_NOTE = "full FT on plain HF: optimized full-FT MFU x the column's HF/optimized LoRA ratio (TP §4, §6)"

#: measured/spec BF16 matmul ratio of the card each MFU column was set on (TP §3c). ``None``: the
#: column is stated against spec (pro PCIe: judgement; capped: "0.30 of spec").
_REFERENCE_CEILING: dict[str, float | None] = {
    "a100": 0.869, "h100": 0.803, "b200": 0.776, "geforce": 165.0 / 165.2, "amd": 0.514, "pro": None, "capped": None,
}

_CAPPED = {"l4", "a10", "a10g", "t4"}


def gpu_class(gpu: GpuSpec) -> str:
    """The TP §6 MFU column of a GPU.

    ``a100``, ``h100`` (H100/H200/GH200), ``b200``, ``pro`` (workstation and PCIe data-centre
    cards: A6000, L40S, RTX 6000 Ada, PRO 6000, A40; V100 too, for want of a column),
    ``geforce`` (consumer), ``capped`` (power-capped L4, A10, A10G, T4), ``amd`` (Instinct).
    """
    gid = gpu.id.lower()
    if gid.startswith("a100"):
        return "a100"
    if gid.startswith(("h100", "h200", "gh200")):
        return "h100"
    if gid.startswith(("b200", "gb200", "b300")):
        return "b200"
    if gid in _CAPPED:
        return "capped"
    if gpu.vendor.upper() == "AMD":
        return "amd"
    if gpu.segment == "consumer":
        return "geforce"
    return "pro"


def effective_peak_tflops(gpu: GpuSpec, precision: str = "bf16") -> float:
    """Dense tensor TFLOPS the MFU defaults apply to (TP §1, §3c), in TFLOP/s.

    Spec peak (BF16 with FP32 accumulate; FP16 on cards without BF16; half of it for FP32/TF32),
    re-based by the card's measured matmul ceiling relative to its MFU column's reference card.
    Returns 0 when the catalog has no tensor rate for the card.
    """
    peak = gpu.peak_tflops
    if precision == "fp32":
        peak /= 2
    ref = _REFERENCE_CEILING.get(gpu_class(gpu))
    measured = gpu.measured_bf16_tflops
    if ref and measured and gpu.bf16_supported and gpu.bf16_tflops > 0:
        peak *= (measured / gpu.bf16_tflops) / ref
    return peak


def _attention_seq(t: TrainingSetup, data: Dataset | None) -> float:
    """Tokens per sequence the attention sees: ``seq_len``, or the example length when sequences
    are padded only to the longest in the batch (``dynamic``) and the example length is known."""
    s = float(t.seq_len)
    if data is not None and t.sequence_mode == "dynamic" and data.total_tokens is None and data.tokens_per_example > 0:
        s = min(s, float(data.tokens_per_example))
    return s


def flops_per_token(arch: ModelArchitecture, t: TrainingSetup, seq: float | None = None) -> tuple[float, float]:
    """Model and hardware FLOPs per trained token (TP §2), in FLOPs.

    Args:
        seq: tokens per sequence for the attention term (default ``t.seq_len``).

    Returns:
        ``(model_flops, hardware_flops)``: model FLOPs (what MFU counts) are ``6N + 12 L d s`` for
        full fine-tuning and ``4N + 12 L d s`` for LoRA/QLoRA; hardware FLOPs add the recomputed
        forward of gradient checkpointing, ``2N + 4 L d s``. When FSDP units mix frozen and trainable
        weights (``TrainingSetup.frozen_weight_grads``) autograd also computes the frozen layer weights'
        gradients, ``2 N_layers`` more hardware FLOPs (the LM head, in the root unit, stays frozen); they are
        wasted work, not model FLOPs.
    """
    n = float(arch.matmul_params_per_token())
    s = float(t.seq_len if seq is None else seq)
    attn = 12.0 * arch.num_attention_layers * arch.q_dim * s
    model = (6.0 if t.method == "full" else 4.0) * n + attn
    hardware = model + ((2.0 * n + attn / 3.0) if t.grad_checkpointing else 0.0)
    if t.frozen_weight_grads:
        hardware += 2.0 * max(n - float(arch.vocab_size) * arch.hidden_size, 0.0)
    return model, hardware


def default_mfu(t: TrainingSetup, gpu: GpuSpec, notes: list[str] | None = None) -> float:
    """Default utilisation (0-1) of ``effective_peak_tflops`` (TP §6), before the QLoRA factor.

    Method row x framework tier x GPU class, times 0.75 for sequences of 16k tokens or more.
    ``notes`` (optional) receives one line per adjustment applied.
    """
    col = gpu_class(gpu)
    if t.method == "full":
        mfu = MFU_TABLE["full"][col]
        if t.framework == "hf":
            mfu *= MFU_TABLE["lora_hf"][col] / MFU_TABLE["lora"][col]
            if notes is not None:
                notes.append(HF_FULL_FT_TABLE_NOTE)
    else:
        mfu = MFU_TABLE["lora" if t.framework == "optimized" else "lora_hf"][col]
    if t.seq_len >= LONG_CONTEXT_TOKENS:
        mfu *= LONG_CONTEXT_FACTOR
        if notes is not None:
            notes.append(f"sequence length >= {LONG_CONTEXT_TOKENS}: MFU x {LONG_CONTEXT_FACTOR} (TP §6)")
    return mfu


def _nvlink_class(gpu: GpuSpec) -> bool:
    """GPU-to-GPU links that carry FSDP/DDP traffic at NVLink speed (not PCIe, not 2-way bridges)."""
    text = gpu.interconnect.lower()
    return gpu.p2p_link_gbps >= 300 and not text.startswith("pcie") and "bridge (2-way)" not in text


def scaling_efficiency(t: TrainingSetup, gpu: GpuSpec) -> float:
    """Multi-GPU efficiency eta (0-1] by interconnect and what crosses it (TP §5, judgement).

    1.0 on one GPU; ``1/n`` for layers split across GPUs without sharding (one GPU busy at a
    time); NVLink-class node 0.95, more than 8 GPUs (multi-node InfiniBand) 0.90; PCIe: ZeRO-3/FSDP
    0.6 (weights gathered every pass), full fine-tuning with DDP/ZeRO-1/2 0.7, LoRA/QLoRA with
    DDP 0.90. CPU offload is a separate factor (:data:`CPU_OFFLOAD_FACTOR`).
    """
    n = t.num_gpus
    if n <= 1:
        return 1.0
    if t.sharding == "none":
        return 1.0 / n
    if n > 8:
        return 0.90
    if _nvlink_class(gpu):
        return 0.95
    if t.sharding in {"zero3", "fsdp"}:
        return 0.6  # sharded weights are gathered over PCIe every pass (LoRA too: the frozen base is sharded)
    if t.method == "full":
        return 0.7  # gradients (2 B/param) are reduced over PCIe every step
    return 0.90


def computed_tokens(t: TrainingSetup, data: Dataset) -> tuple[float, float, str]:
    """Tokens the GPUs compute over all epochs, padding included.

    * ``packed``: samples are concatenated into full sequences, no padding (TP §2: packing raised
      torchtune's tokens/s x3.4 over padding).
    * ``fixed``: every example is padded (or truncated) to ``seq_len``: ``examples x seq_len`` per
      epoch when the dataset is given as examples; with ``total_tokens``, real tokens divided by
      ``padding_efficiency``.
    * ``dynamic``: padding to the longest example of each micro-batch: real tokens divided by
      ``padding_efficiency`` (no padding at micro-batch 1); given as examples, each example is
      truncated to ``seq_len`` and a padded row never exceeds ``seq_len``.

    Returns:
        ``(computed_tokens, real_tokens, note)``, tokens over all epochs; ``note`` may be empty.
    """
    real = data.tokens_per_epoch * data.epochs
    note = ""
    if t.sequence_mode == "packed":
        computed = real
    elif t.sequence_mode == "fixed" and data.total_tokens is None:
        computed = float(data.examples) * t.seq_len * data.epochs
        if data.tokens_per_example > t.seq_len:
            real = float(data.examples) * t.seq_len * data.epochs
            note = f"examples of {data.tokens_per_example:.0f} tokens are truncated to seq_len {t.seq_len}"
    elif t.sequence_mode == "dynamic" and data.total_tokens is None:
        # each row is one example, truncated to seq_len, padded to the longest row of its micro-batch
        kept = min(data.tokens_per_example, float(t.seq_len))
        real = float(data.examples) * kept * data.epochs
        if data.tokens_per_example > t.seq_len:
            note = f"examples of {data.tokens_per_example:.0f} tokens are truncated to seq_len {t.seq_len}"
        pad = 1.0 if t.micro_batch == 1 else data.padding_efficiency
        computed = float(data.examples) * min(kept / pad, float(t.seq_len)) * data.epochs
    elif t.sequence_mode == "dynamic" and t.micro_batch == 1:
        computed = real
    else:
        computed = real / data.padding_efficiency
    if computed < real:  # fixed mode with examples longer than seq_len handled above
        computed = real
    return computed, real, note



def tokens_per_row(t: TrainingSetup, data: Dataset) -> float:
    """Tokens one row of a micro-batch computes: ``seq_len``, except with dynamic padding and known example
    lengths, where each row is padded only to the longest example of its micro-batch (on average the example
    length / padding efficiency; exactly the example length at micro-batch 1), capped at ``seq_len``."""
    row = float(t.seq_len)
    if t.sequence_mode == "dynamic" and data.total_tokens is None and data.tokens_per_example > 0:
        pad = 1.0 if t.micro_batch == 1 else data.padding_efficiency
        row = min(row, float(data.tokens_per_example) / pad)
    return row


def estimate_time(arch: ModelArchitecture, t: TrainingSetup, data: Dataset, gpu: GpuSpec, pricing: Pricing,
                  checkpoint_bytes: float) -> TimeEstimate:
    """Wall-clock phases of one run (seconds) and the training throughput per GPU (tokens/s).

    Args:
        arch: the model.
        t: method, precision, batch geometry, parallelism, framework tier, MFU override.
        data: dataset size, epochs, padding efficiency, evaluation share.
        gpu: the card (peak TFLOPS, measured matmul ceiling, memory bandwidth, interconnect).
        pricing: setup minutes, download speed (GB/s), dataset preparation, evaluation minutes,
            checkpoint count (at least that many saves; 0 = none) and interval (one save per
            ``checkpoint_every_min`` of training when that is more), disk write speed (GB/s).
        checkpoint_bytes: bytes written per checkpoint save (adapters, or weights + optimizer).

    Returns:
        A :class:`TimeEstimate`: ``tokens_total`` (computed tokens, padding included),
        ``flops_per_token`` (model FLOPs), ``mfu`` (achieved model FLOPs / spec peak),
        ``tokens_per_second`` (per GPU), ``phases`` (``setup``, ``training``, ``evaluation``,
        ``checkpoints``, seconds), ``steps`` (optimizer steps), ``bound`` (``compute``/``memory``)
        and notes. Formulas and sources: module docstring.

    Raises:
        ValueError: when the GPU has no usable tensor throughput (peak TFLOPS of 0).
    """
    notes: list[str] = []
    spec_peak = gpu.peak_tflops * 1e12 / (2 if t.precision == "fp32" else 1)
    peak = effective_peak_tflops(gpu, t.precision) * 1e12
    if peak <= 0 or spec_peak <= 0:
        raise ValueError(f"{gpu.name} has no BF16/FP16 tensor throughput in the catalog; enter its TFLOPS")
    if t.precision == "fp32":
        notes.append("FP32 training: TF32 tensor rate taken as half the BF16 rate")
    if not gpu.bf16_supported and t.precision == "bf16":
        notes.append(f"{gpu.name} has no BF16: timed at its FP16 rate")

    seq = _attention_seq(t, data)
    model_flops, hardware_flops = flops_per_token(arch, t, seq)
    work_flops = hardware_flops
    if t.mfu_override is not None:
        # A measured MFU already contains recompute, dequantisation and the card's real ceiling:
        # time = model FLOPs / (spec peak x MFU); only multi-GPU eta and offload apply on top.
        u = t.mfu_override
        peak = spec_peak
        work_flops = model_flops
        qlora = 1.0
        notes.append(f"MFU override {u:.2f}: model FLOPs / spec peak; replaces the defaults and the "
                     "checkpointing, QLoRA and long-context factors")
    else:
        u = default_mfu(t, gpu, notes)
        qlora = QLORA_TIME_FACTOR if t.method == "qlora" else 1.0
        if qlora != 1.0:
            notes.append(f"QLoRA dequantisation: time x {QLORA_TIME_FACTOR} (TP §4)")
    eta = scaling_efficiency(t, gpu)
    offload = CPU_OFFLOAD_FACTOR if t.cpu_offload else 1.0
    if t.cpu_offload:
        notes.append(f"CPU offload: throughput x {CPU_OFFLOAD_FACTOR} (TP §5)")

    if t.mfu_override is None:
        # The defaults are model-FLOPs MFU of runs with checkpointing on (module docstring): the
        # GPU keeps the same hardware utilisation and skips the recomputed forward without it.
        # (the defaults were measured without wasted frozen-weight gradients: those cost time at the same rate)
        _, hw_with_ac = flops_per_token(arch, t.model_copy(update={"grad_checkpointing": True,
                                                                   "fsdp_wrap": "layers"}), seq)
        if t.frozen_weight_grads:
            _, hw_plain = flops_per_token(arch, t.model_copy(update={"fsdp_wrap": "layers"}), seq)
            notes.append(f"FSDP units mix frozen and trainable weights: the frozen weights' gradients are computed "
                         f"too, time x {hardware_flops / hw_plain:.2f}")
        u = u * hw_with_ac / model_flops
        if not t.grad_checkpointing:
            notes.append(f"no activation checkpointing: no recomputed forward, time x {hardware_flops / hw_with_ac:.2f}")

    # ---- one micro-batch on one GPU: roofline of compute and weight streaming
    row = tokens_per_row(t, data)
    tokens_mb = float(t.micro_batch) * row
    compute_s = tokens_mb * work_flops / (peak * u) * qlora
    n_params = float(arch.parameter_count())
    passes = 3 if t.grad_checkpointing else 2
    per_pass = 4.5 if t.method == "qlora" else 2.0  # bytes per parameter streamed per pass (TP §4)
    shard = t.num_gpus if t.sharding in {"zero3", "fsdp"} and t.num_gpus > 1 else 1
    bw = gpu.memory_bandwidth_gbps * 1e9
    stream_s = passes * n_params * per_pass / bw
    mb_s = max(compute_s, stream_s)
    bound = "memory" if stream_s > compute_s else "compute"
    if bound == "memory":
        notes.append(f"memory-bound: streaming the weights ({stream_s * 1e3:.0f} ms) outlasts the math "
                     f"({compute_s * 1e3:.0f} ms) per micro-batch; a larger micro-batch is faster")
    # optimizer step (full fine-tuning: ~18 B of traffic per trainable parameter, TP §2), per optimizer step
    opt_s = (n_params / shard) * 18.0 / bw if t.method == "full" else 0.0
    step_s = (mb_s * t.grad_accumulation + opt_s) / (eta * offload)
    tokens_per_step_gpu = tokens_mb * t.grad_accumulation
    tps_per_gpu = tokens_per_step_gpu / step_s

    tokens_total, _real, pad_note = computed_tokens(t, data)
    if pad_note:
        notes.append(pad_note)
    training_s = tokens_total / (tps_per_gpu * t.num_gpus) if tokens_total > 0 else 0.0
    steps = math.ceil(tokens_total / (tokens_per_step_gpu * t.num_gpus)) if tokens_total > 0 else 0
    achieved_mfu = tps_per_gpu * model_flops / spec_peak

    # ---- other phases
    download_s = n_params * 2.0 / (pricing.download_gbps * 1e9)
    setup_s = pricing.setup_minutes * 60 + download_s + pricing.dataset_prep_minutes * 60
    eval_tokens = data.tokens_per_epoch * data.eval_fraction * math.ceil(data.epochs)
    fwd_flops = 2.0 * arch.matmul_params_per_token() + 4.0 * arch.num_attention_layers * arch.q_dim * seq
    eval_tps = (peak * u / qlora) / fwd_flops * eta * offload  # per GPU, at training utilisation
    eval_s = pricing.eval_minutes * 60 + (eval_tokens / (eval_tps * t.num_gpus) if eval_tokens > 0 else 0.0)
    # One save per checkpoint interval of training time, and at least ``checkpoint_count`` (0: never save)
    saves = 0
    if pricing.checkpoint_count > 0:
        saves = max(pricing.checkpoint_count, math.ceil(training_s / (pricing.checkpoint_every_min * 60)))
    # sharded states (ZeRO, FSDP sharded/distributed checkpoints) are written by every rank in parallel
    writers = t.num_gpus if t.num_gpus > 1 and t.sharding in {"zero1", "zero2", "zero3", "fsdp"} else 1
    ckpt_s = saves * checkpoint_bytes / (pricing.disk_write_gbps * 1e9 * writers)
    phases = {"setup": setup_s, "training": training_s, "evaluation": eval_s, "checkpoints": ckpt_s}
    return TimeEstimate(
        tokens_total=tokens_total,
        flops_per_token=model_flops,
        mfu=achieved_mfu,
        tokens_per_second=tps_per_gpu,
        phases=phases,
        seconds=sum(phases.values()),
        checkpoint_saves=saves,
        checkpoint_writers=writers,
        steps=float(steps),
        bound=bound,
        notes=notes,
    )
