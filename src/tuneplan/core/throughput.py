"""Training time: tokens, the step model, phases, and the likely range.

    tokens_total  = real tokens per epoch / padding efficiency x epochs       (computed tokens)
    T_training    = tokens_total / (n_gpus x tokens per step / step seconds)
    T_wall        = T_setup + T_training + T_eval + T_checkpoints

The optimizer step is computed from the work it does on the chosen card (``tuneplan.core.steptime``: GEMMs
with their shapes, attention by kernel, bandwidth-bound kernels, optimizer, collectives, offload, host
overhead). Model FLOPs per token (TP §2, cited as "TP §n" from ``shared/reference/throughput.md``) are kept
to report MFU, the share of the spec peak the plan achieves:

* full fine-tuning: ``6N + 12 L d s`` (Kaplan et al. 2020, arXiv:2001.08361; attention as PaLM App. B,
  arXiv:2204.02311); LoRA / QLoRA: ``4N + 12 L d s`` (no weight gradients for frozen matrices; NeMo LoRA
  runs measure 3.94-4.10 N per token); checkpointing adds ``2N + 4 L d s`` hardware FLOPs.

Phases (seconds): ``setup`` (image pull and start ``pricing.setup_minutes``, model download
``parameters x 2 B / pricing.download_gbps``, dataset preparation ``pricing.dataset_prep_minutes``),
``training``, ``evaluation`` (``pricing.eval_minutes`` plus forward passes over ``eval_fraction`` of the data
once per epoch, at the step model's forward time), ``checkpoints`` (saves x bytes / ``pricing.disk_write_gbps``).

Workloads (``core/workload.py``): tokens count every row the policy trains on, so a pair workload (DPO, ORPO, reward
model) counts its chosen and its rejected rows (``tokens_total = rows per example x computed tokens``, the dataset's
``tokens_per_example`` being one row: prompt + one completion), and tokens/s is in the same unit as SFT's; KTO counts its
examples, not its KL batch. Model FLOPs per token add the no-grad forwards (``2N + 4 L d s`` each: the reference, KTO's KL
batch). A precomputed reference (TRL ``precompute_ref_log_probs``) adds the phase ``reference_logps``: one reference
pass over the training and evaluation sets before training, at the step model's reference-forward speed.

The likely range (``MEASURED_TIME_ERROR``) is the spread of measured / predicted tokens/s of the step model on
the project's own evidence (``docs/evidence/throughput``, ``tools/time_accuracy.py``, docs/time-accuracy.md).
"""

from __future__ import annotations

import math

from tuneplan.core import workload as wl
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.calibration import Calibration
from tuneplan.core.generation import DEFAULT_NEW_TOKENS, eval_generation_cost, generation_notes
from tuneplan.core.lengths import expected_normal_max, spread_std
from tuneplan.core.result import TimeEstimate
from tuneplan.core.scenario import Dataset, GpuSpec, Pricing, TrainingSetup
from tuneplan.core.stacks import pads_packs
from tuneplan.core.steptime import STEP_MODEL_VERSION, TERM_KEYS, step_time
from tuneplan.core.terms import N_, NOTES, Note, Quantity, Term, render_note

__all__ = [
    "MEASURED_TIME_ERROR",
    "computed_tokens",
    "estimate_time",
    "eval_examples",
    "flops_per_token",
    "slowest_rank_row",
    "tokens_per_row",
]

#: (10th, 90th percentile) of measured / predicted tokens/s on the scored evidence rows (docs/time-accuracy.md):
#: the true throughput lies between ``predicted x low`` and ``predicted x high`` for 80 % of them.
MEASURED_TIME_ERROR = (0.75, 1.13)

NOTES["time.truncated"] = N_("examples of {tokens} tokens are truncated to seq_len {seq_len}")
NOTES["time.eval_generation"] = N_("the final evaluation generates {generated} tokens for each of {examples} "
                                   "held-out examples, {batches} batches of {rows} per GPU at {seconds} s each; the "
                                   "{passes} evaluations during training generate {during} tokens each (HF "
                                   "Seq2SeqTrainer.evaluate does not pass max_new_tokens to them): {hours} h in all")


def _seq_mode(t: TrainingSetup) -> str:
    """The sequence mode the trainer runs: padding-free batches only under supervised fine-tuning (TRL's DPOTrainer
    turns padding_free off and the other trainers pad every batch to its longest row, ``core/workload.py``), planned
    as rows of ``seq_len`` elsewhere."""
    if t.sequence_mode == "padding-free" and not wl.causal_lm(t):
        return "fixed"
    return t.sequence_mode


def _attention_seq(t: TrainingSetup, data: Dataset | None) -> float:
    """Tokens per sequence the attention sees: ``seq_len``, or the example length when sequences
    are padded only to the longest in the batch (``dynamic``) and the example length is known."""
    s = float(t.seq_len)
    if t.workload == "grpo":  # a row is a prompt and its completion at full length, whatever the mode
        return s
    if data is not None and _seq_mode(t) == "dynamic" and data.total_tokens is None and data.tokens_per_example > 0:
        s = min(s, float(data.tokens_per_example))
    if data is not None and _seq_mode(t) == "padding-free" and data.total_tokens is None \
            and data.tokens_per_example > 0:
        # varlen attention: each example attends within itself, so the cost per token follows sum(l^2) / sum(l) =
        # E[l^2] / E[l] = mean + std^2 / mean (the mean alone when the spread is unknown)
        mu = min(s, float(data.tokens_per_example))
        if t.attention != "flash":  # no varlen kernel: the flattened row of micro_batch examples is one sequence
            return mu * t.micro_batch
        s = min(s, mu + spread_std(mu, s, data.tokens_std) ** 2 / mu)
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
    if t.workload == "reward":  # the value head (hidden x 1) instead of the LM head
        n += float(arch.hidden_size) * (wl.head_outputs(arch, t) - arch.vocab_size)
    s = float(t.seq_len if seq is None else seq)
    # 6 s heads (d_qk + d_v) per layer: 12 s q_dim when the value head dim equals the query/key one (MLA: 192 + 128)
    attn = 6.0 * arch.num_attention_layers * (arch.q_dim + arch.attn_out_dim) * s
    if arch.num_linear_attention_layers:  # Gated DeltaNet: the chunked delta rule, forward + backward, per token
        from tuneplan.core.steptime import gated_deltanet_flops_per_token

        attn += arch.num_linear_attention_layers * sum(gated_deltanet_flops_per_token(arch))
    model = (6.0 if t.method == "full" else 4.0) * n + attn
    passes = sum(wl.nograd_passes(t))
    if passes:  # DPO/KTO: forward passes without gradients per trained token (reference, KL batch)
        model += passes * (2.0 * n + attn / 3.0)
    hardware = model + ((2.0 * n + attn / 3.0) if t.grad_checkpointing else 0.0)
    if t.frozen_weight_grads:
        hardware += 2.0 * max(n - float(arch.vocab_size) * arch.hidden_size, 0.0)
    return model, hardware


def computed_tokens(t: TrainingSetup, data: Dataset) -> tuple[float, float, str]:
    """Tokens the GPUs compute over all epochs, padding included.

    * ``packed``: samples are concatenated into full sequences, no padding (TP §2: packing raised
      torchtune's tokens/s x3.4 over padding); a stack that pads each pack to ``seq_len``
      (:func:`~tuneplan.core.stacks.pads_packs`: LLaMA-Factory's SFT packer) computes real tokens divided by the
      dataset's ``packing_efficiency`` (counted from its file; 1 when unknown).
    * ``fixed``: every example is padded (or truncated) to ``seq_len``: ``examples x seq_len`` per
      epoch when the dataset is given as examples; with ``total_tokens``, real tokens divided by
      ``padding_efficiency``.
    * ``dynamic``: padding to the longest example of each micro-batch: real tokens divided by
      ``padding_efficiency`` (no padding at micro-batch 1); given as examples, each example is
      truncated to ``seq_len`` and a padded row never exceeds ``seq_len``.
    * ``padding-free``: the micro-batch's examples flattened into one row, no padding: the real tokens, each
      example truncated to ``seq_len``.

    GRPO (``t.workload == "grpo"``) in every mode: an example is a prompt, and each of its completions is a row of
    ``seq_len`` (the prompt padded to the batch's longest, the completion costed at ``max_completion_length``; TRL's
    ``GRPOTrainer`` neither packs nor trims rows): ``prompts x seq_len`` per epoch, before the ``num_generations``
    rows per prompt the caller counts. With ``total_tokens`` the prompts are ``total_tokens / tokens_per_example``
    (the prompts' tokens over one prompt's).

    Returns:
        ``(computed_tokens, real_tokens, note)``, tokens over all epochs; ``note`` may be empty.
    """
    if t.workload == "grpo":
        prompts = float(data.examples) if data.total_tokens is None else (
            data.total_tokens / data.tokens_per_example if data.tokens_per_example > 0 else 0.0)
        rows = prompts * t.seq_len * data.epochs
        return rows, rows, ""
    real = data.tokens_per_epoch * data.epochs
    note = ""
    if _seq_mode(t) == "packed":
        # a stack that pads every pack to seq_len computes the gaps best-fit packing leaves (dataset file counts)
        computed = real / data.packing_efficiency if pads_packs(t) else real
    elif _seq_mode(t) == "fixed" and data.total_tokens is None:
        computed = float(data.examples) * t.seq_len * data.epochs
        if data.tokens_per_example > t.seq_len:
            real = float(data.examples) * t.seq_len * data.epochs
            note = f"examples of {data.tokens_per_example:.0f} tokens are truncated to seq_len {t.seq_len}"
    elif _seq_mode(t) == "padding-free" and data.total_tokens is None:
        real = float(data.examples) * min(data.tokens_per_example, float(t.seq_len)) * data.epochs
        if data.tokens_per_example > t.seq_len:
            note = f"examples of {data.tokens_per_example:.0f} tokens are truncated to seq_len {t.seq_len}"
        computed = real
    elif _seq_mode(t) == "padding-free":
        computed = real
    elif _seq_mode(t) == "dynamic" and data.total_tokens is None:
        # each row is one example, truncated to seq_len, padded to the longest row of its micro-batch
        kept = min(data.tokens_per_example, float(t.seq_len))
        real = float(data.examples) * kept * data.epochs
        if data.tokens_per_example > t.seq_len:
            note = f"examples of {data.tokens_per_example:.0f} tokens are truncated to seq_len {t.seq_len}"
        pad = 1.0 if t.micro_batch == 1 else data.padding_efficiency
        computed = float(data.examples) * min(kept / pad, float(t.seq_len)) * data.epochs
    elif _seq_mode(t) == "dynamic" and t.micro_batch == 1:
        computed = real
    else:
        computed = real / data.padding_efficiency
    if computed < real:  # fixed mode with examples longer than seq_len handled above
        computed = real
    return computed, real, note



def tokens_per_row(t: TrainingSetup, data: Dataset) -> float:
    """Tokens one row of a micro-batch computes: ``seq_len``, except with dynamic padding and known example
    lengths, where each row is padded only to the longest example of its micro-batch (on average the example
    length / padding efficiency; exactly the example length at micro-batch 1), capped at ``seq_len``. Padding-free
    batches compute each example's own tokens: the mean kept length per example (the micro-batch's flattened row
    is ``micro_batch`` of them on average)."""
    row = float(t.seq_len)
    if t.workload == "grpo":  # computed_tokens: every completion row is seq_len long
        return row
    if _seq_mode(t) == "padding-free" and data.total_tokens is None and data.tokens_per_example > 0:
        return min(row, float(data.tokens_per_example))
    if _seq_mode(t) == "dynamic" and data.total_tokens is None and data.tokens_per_example > 0:
        pad = 1.0 if t.micro_batch == 1 else data.padding_efficiency
        row = min(row, float(data.tokens_per_example) / pad)
    return row


def slowest_rank_row(t: TrainingSetup, data: Dataset) -> float | None:
    """Tokens per row of the slowest data-parallel GPU's micro-batch under dynamic padding, or ``None`` when every
    GPU computes the same row (one GPU, layers split without data parallelism, packed or fixed rows, a dataset
    given as total tokens, GRPO's ``seq_len`` rows, or no known length spread: ``rank_padding_efficiency`` 1).

    Under data parallelism each GPU draws its own micro-batch and its collator pads it to its own longest example
    (HF ``DataCollatorWithPadding`` and TRL's collators run per process on that process's batch), so in one step
    the ``num_gpus`` GPUs compute rows of different lengths. The step's collectives (FSDP/ZeRO-3 gathers before
    every layer, ZeRO-2's reduce-scatter in every backward, DDP's all-reduce) make every GPU wait for the one with
    the longest micro-batch, while the tokens counted are every GPU's own (HF Trainer's ``num_input_tokens_seen``
    gathers and sums them). The longest row over all GPUs is the longest of the ``micro_batch x num_gpus``
    examples the step draws: ``kept / rank_padding_efficiency`` (:func:`tuneplan.core.lengths.length_stats`
    computes ``E[max]`` of that many examples exactly from the counted lengths), capped at ``seq_len``.

    Padding-free batches flatten each GPU's examples into one row of their summed lengths; with the length spread
    known (``data.tokens_std``, at most its Bhatia-Davis bound, :func:`tuneplan.core.lengths.spread_std`) the slowest
    GPU's row per example is ``mean + e_R std / sqrt(b)``, with ``e_R`` the expected largest of ``num_gpus`` standard
    normals (central limit theorem; :func:`tuneplan.core.lengths.expected_normal_max`; at micro-batch 1 the normal law
    of one example's length).

    DDP and ZeRO-1 skip the gradient reduction on all but the last micro-batch of a step (``no_sync``; ZeRO-1 at the
    accumulation boundary), so their GPUs meet once per ``A`` micro-batches and wait for the largest *sum* of ``A``
    rows: for independent micro-batches the sum's spread grows as ``sqrt(A)`` while its mean grows as ``A``, so the
    slowest GPU's excess row per micro-batch is the single-micro-batch excess / ``sqrt(A)`` (central limit theorem).
    """
    if t.workload == "grpo" or _seq_mode(t) not in {"dynamic", "padding-free"} or data.total_tokens is not None:
        return None
    if t.num_gpus <= 1 or t.sharding == "none" or data.tokens_per_example <= 0:
        return None
    if _seq_mode(t) == "padding-free":
        # each GPU's flattened row sums micro_batch lengths: about normal with deviation std sqrt(b) (central limit
        # theorem), so the longest of the num_gpus rows exceeds the mean b mu by e_R std sqrt(b), e_R the expected
        # largest of num_gpus standard normals (lengths.expected_normal_max); per example, e_R std / sqrt(b)
        if not data.tokens_std:
            return None
        row = tokens_per_row(t, data)
        excess = expected_normal_max(t.num_gpus) * spread_std(row, float(t.seq_len), data.tokens_std) / math.sqrt(
            t.micro_batch)
        if t.sharding in {"ddp", "zero1"} and t.grad_accumulation > 1:
            excess /= math.sqrt(t.grad_accumulation)
        slowest = min(row + excess, float(t.seq_len))
        return slowest if slowest > row else None
    pad = 1.0 if t.micro_batch == 1 else data.padding_efficiency
    eff = min(data.rank_padding_efficiency, pad)
    if eff >= pad:
        return None
    row = tokens_per_row(t, data)
    kept = min(float(data.tokens_per_example), float(t.seq_len))
    slowest = min(kept / eff, float(t.seq_len))
    if t.sharding in {"ddp", "zero1"} and t.grad_accumulation > 1:
        slowest = row + (slowest - row) / math.sqrt(t.grad_accumulation)
    return slowest if slowest > row else None


def eval_examples(data: Dataset) -> float:
    """Held-out examples one evaluation pass covers: ``examples x eval_fraction``, or with ``total_tokens`` given,
    ``total_tokens x eval_fraction / tokens_per_example`` (0 when that is unknown)."""
    if data.total_tokens is None:
        return float(data.examples) * data.eval_fraction
    return data.total_tokens * data.eval_fraction / data.tokens_per_example if data.tokens_per_example > 0 else 0.0


def estimate_time(arch: ModelArchitecture, t: TrainingSetup, data: Dataset, gpu: GpuSpec, pricing: Pricing,
                  checkpoint_bytes: float, spilled_bytes: float = 0.0,
                  calibration: Calibration | None = None, activation_bytes: float = 0.0) -> TimeEstimate:
    """Wall-clock phases of one run (seconds) and the training throughput per GPU (tokens/s).

    The training step comes from :func:`tuneplan.core.steptime.step_time` (seven terms with their parts), unless
    ``t.mfu_override`` gives a measured MFU (then ``model FLOPs / (spec peak x MFU)`` per token, TP §1). Layers
    split across GPUs without sharding run one GPU at a time, so each GPU's throughput is the single-GPU
    throughput / ``n``.

    Args:
        arch: the model.
        t: method, precision, batch geometry, parallelism, framework tier, MFU override.
        data: dataset size, epochs, padding efficiency, evaluation share.
        gpu: the card (measured matmul ceiling, SMs, memory bandwidth, PCIe, interconnect).
        pricing: setup minutes, download speed (GB/s), dataset preparation, evaluation minutes,
            checkpoint count (at least that many saves; 0 = none) and interval (one save per
            ``checkpoint_every_min`` of training when that is more), disk write speed (GB/s).
        checkpoint_bytes: bytes written per checkpoint save (adapters, or weights + optimizer).
        spilled_bytes: paged optimizer states that live in host RAM (bytes), read and written over PCIe at
            every optimizer step.
        activation_bytes: saved activations one micro-batch offloads to the CPU with ``t.activation_offload``
            (bytes, from the memory ledger).
        calibration: a pilot run's measured step time for this hardware and stack (:class:`Calibration`):
            multiplies the step time by its factor and replaces the band with the pilot's own spread.

    Returns:
        A :class:`TimeEstimate`: ``tokens_total`` (computed tokens, padding included), ``flops_per_token``
        (model FLOPs), ``mfu`` (achieved model FLOPs / spec peak), ``tokens_per_second`` (per GPU),
        ``step_seconds`` and ``step_terms`` (seconds per optimizer step by term), the band, ``phases``
        (``setup``, ``training``, ``evaluation``, ``checkpoints``, seconds), ``steps``, ``bound`` and coded notes.

    Raises:
        ValueError: when the GPU has no usable tensor throughput (peak TFLOPS of 0).
    """
    notes: list[Note] = []
    spec_peak = gpu.peak_tflops * 1e12 / (2 if t.precision == "fp32" else 1)
    if spec_peak <= 0:
        raise ValueError(f"{gpu.name} has no BF16/FP16 tensor throughput in the catalog; enter its TFLOPS")
    if t.precision == "fp32":
        notes.append(Note(code="time.fp32"))
    if not gpu.bf16_supported and t.precision == "bf16":
        notes.append(Note(code="time.no_bf16", params={"gpu": gpu.name}))

    seq = _attention_seq(t, data)
    model_flops, _hardware = flops_per_token(arch, t, seq)
    row = tokens_per_row(t, data)
    naive_split = t.num_gpus > 1 and t.sharding == "none"
    # with layers split across GPUs, one GPU at a time runs the whole model's work
    t_step = t.model_copy(update={"num_gpus": 1}) if naive_split else t
    slowest = None if naive_split else slowest_rank_row(t, data)
    st = step_time(arch, t_step, gpu, row, spilled_bytes=spilled_bytes, activation_bytes=activation_bytes,
                   slowest_row=slowest, attention_seq=seq if _seq_mode(t) == "padding-free" else None)
    if slowest is not None:
        notes.append(Note(code="time.slowest_rank_free" if _seq_mode(t) == "padding-free" else "time.slowest_rank",
                          params={"gpus": t.num_gpus, "row": round(row),
                                                             "slowest_row": round(slowest)}))
    if spilled_bytes > 0:
        notes.append(Note(code="time.paged_spill", params={"gib": round(spilled_bytes / 2**30, 1)}))
    if st.generation is not None:  # GRPO: what the colocated engine's share could not hold
        notes.extend(generation_notes(st.generation, t, gpu.memory_gib * 2**30))
    terms = list(st.terms)
    step_s = st.seconds
    bound = st.bound
    if t.mfu_override is not None:
        # A measured MFU already contains everything the terms model: one term carries the whole step.
        step_s = st.tokens * model_flops / (spec_peak * t.mfu_override)
        terms = [Term(key=k, value=(step_s if k == "matmul" else 0.0), parts=(
            Quantity(key="flops", value=st.tokens * model_flops, unit="FLOP"),
            Quantity(key="rate", value=spec_peak * t.mfu_override, unit="FLOP/s"),
            Quantity(key="bytes", value=0.0, unit="B"), Quantity(key="bandwidth", value=1.0, unit="B/s"),
            Quantity(key="gemms", value=0.0, unit="count"), Quantity(key="micro_batches", value=1.0, unit="count"),
        ) if k == "matmul" else ()) for k in TERM_KEYS]
        bound = "compute"
        notes.append(Note(code="time.mfu_override", params={"mfu": t.mfu_override}))
        if st.generation is not None:  # a measured MFU is the training step's; GRPO's generation comes on top
            step_s += st.generation.seconds
            terms.append(st.generation.term)
    low_f, high_f = MEASURED_TIME_ERROR
    cal_factor = 1.0
    if calibration is not None and calibration.model_version != STEP_MODEL_VERSION:
        notes.append(Note(code="time.calibration_stale", params={"date": calibration.date}))
        calibration = None
    if calibration is not None and t.mfu_override is None:
        cal_factor = calibration.factor
        step_s *= cal_factor
        terms = [term.model_copy(update={"value": term.value * cal_factor, "parts": (*term.parts, Quantity(
            key="calibration", value=cal_factor, unit="1", source="your pilot run"))}) for term in terms]
        low_f, high_f = calibration.band
        notes.append(Note(code="time.calibrated", params={"date": calibration.date,
                                                           "factor": round(cal_factor, 3)}))
    # model replicas training in parallel: every GPU under data parallelism (DDP, ZeRO, FSDP); one replica when
    # the layers are split across the GPUs, which then take turns on its step
    replicas = 1 if naive_split else t.num_gpus
    if naive_split:
        notes.append(Note(code="time.naive_model_parallel", params={"n": t.num_gpus}))
    share = {term.key: term.value / step_s for term in terms} if step_s > 0 else {}
    if bound == "memory":
        notes.append(Note(code="time.memory_bound"))
    elif bound == "overhead":
        notes.append(Note(code="time.overhead_bound", params={"share": round(100 * share.get("fixed", 0.0))}))
    elif bound == "communication":
        notes.append(Note(code="time.communication_bound",
                          params={"share": round(100 * share.get("communication", 0.0)), "link": st.link}))
    elif bound == "offload":
        notes.append(Note(code="time.offload_bound", params={"share": round(100 * share.get("offload", 0.0))}))

    tokens_per_step_gpu = st.tokens  # per replica
    tps_per_gpu = tokens_per_step_gpu / step_s * replicas / t.num_gpus
    tokens_total, _real, pad_note = computed_tokens(t, data)
    tokens_total *= wl.rows_per_example(t)  # pair workloads: chosen and rejected rows (core/workload.py)
    if pad_note:
        notes.append(Note(code="time.truncated", params={"tokens": round(data.tokens_per_example),
                                                           "seq_len": t.seq_len}))
    training_s = tokens_total / (tps_per_gpu * t.num_gpus) if tokens_total > 0 else 0.0
    steps = math.ceil(tokens_total / (tokens_per_step_gpu * replicas)) if tokens_total > 0 else 0
    achieved_mfu = tps_per_gpu * model_flops / spec_peak

    # ---- other phases
    n_params = float(arch.parameter_count())
    download_s = n_params * 2.0 / (pricing.download_gbps * 1e9)
    setup_s = pricing.setup_minutes * 60 + download_s + pricing.dataset_prep_minutes * 60
    eval_tokens = data.tokens_per_epoch * data.eval_fraction * math.ceil(data.epochs) * wl.rows_per_example(t)
    # evaluation: forward passes only, at the forward's share of the micro-batch time
    fwd_s = st.forward_seconds * cal_factor
    eval_tps = (wl.policy_rows(t) * row / fwd_s) * replicas / t.num_gpus if fwd_s > 0 else tps_per_gpu
    eval_s = pricing.eval_minutes * 60 + (eval_tokens / (eval_tps * t.num_gpus) if eval_tokens > 0 else 0.0)
    eval_terms: list[Term] = []
    held_out = eval_examples(data)
    if st.eval_decode is not None and held_out > 0:
        # an evaluation that generates (core/generation.py eval_generation_cost): the held-out examples spread over
        # the data-parallel replicas, eval_micro_batch at a time (fewer when fewer are held out), once per epoch
        # during training at transformers' default length and once more after training at max_new_tokens;
        # LLaMA-Factory pops the labels when it generates, so its evaluation has no loss forward
        if t.stack == "llama-factory":
            eval_s = pricing.eval_minutes * 60
        per_replica = math.ceil(held_out / replicas)
        rows = min(t.eval_micro_batch, per_replica)
        batches = math.ceil(per_replica / rows)
        passes = math.ceil(data.epochs)
        prompt = min(float(t.seq_len), data.tokens_per_example)  # the mean example, answer included: a bound
        final = eval_generation_cost(arch, rows=rows, generated=t.eval_generate_tokens, prompt=prompt,
                                     rates=st.eval_decode)
        during = eval_generation_cost(arch, rows=rows, generated=DEFAULT_NEW_TOKENS, prompt=prompt,
                                      rates=st.eval_decode, key="eval_generation_during")
        eval_terms = [final, during]
        generating = batches * (final.value + passes * during.value)
        eval_s += generating
        notes.append(Note(code="time.eval_generation", params={
            "generated": t.eval_generate_tokens, "examples": round(held_out), "passes": passes, "batches": batches,
            "rows": rows, "seconds": round(final.value, 1), "during": DEFAULT_NEW_TOKENS,
            "hours": round(generating / 3600, 2)}))
    # One save per checkpoint interval of training time, and at least ``checkpoint_count`` (0: never save)
    saves = 0
    if pricing.checkpoint_count > 0:
        saves = max(pricing.checkpoint_count, math.ceil(training_s / (pricing.checkpoint_every_min * 60)))
    # sharded states (ZeRO, FSDP sharded/distributed checkpoints) are written by every rank in parallel
    writers = t.num_gpus if t.num_gpus > 1 and t.sharding in {"zero1", "zero2", "zero3", "fsdp"} else 1
    ckpt_s = saves * checkpoint_bytes / (pricing.disk_write_gbps * 1e9 * writers)
    phases = {"setup": setup_s, "training": training_s, "evaluation": eval_s, "checkpoints": ckpt_s}
    if wl.reference_kind(t) == "precomputed" and st.reference_pass_seconds > 0:
        # TRL _precompute_ref_logps: one reference pass (KTO: its main and KL passes) over the training set and the
        # evaluation set, once before training (cached by the dataset's fingerprint), the batches spread over the GPUs
        passes = 2 if t.workload == "kto" else 1
        once = tokens_total / data.epochs + data.tokens_per_epoch * data.eval_fraction * wl.rows_per_example(t)
        ref_tps = wl.policy_rows(t) * row / (st.reference_pass_seconds * cal_factor)
        phases = {"setup": setup_s, "reference_logps": passes * once / (ref_tps * replicas), "training": training_s,
                  "evaluation": eval_s, "checkpoints": ckpt_s}
    seconds = sum(phases.values())
    # band: the training phase scaled by the measured error range (or the pilot's spread); other phases as planned
    low_s = seconds - training_s + training_s / high_f
    high_s = seconds - training_s + training_s / low_f
    return TimeEstimate(
        tokens_total=tokens_total,
        flops_per_token=model_flops,
        mfu=achieved_mfu,
        tokens_per_second=tps_per_gpu,
        tokens_per_second_low=tps_per_gpu * low_f,
        tokens_per_second_high=tps_per_gpu * high_f,
        step_seconds=step_s,
        tokens_per_step=tokens_per_step_gpu,
        step_terms=terms,
        eval_terms=eval_terms,
        phases=phases,
        seconds=seconds,
        low_seconds=low_s,
        high_seconds=high_s,
        checkpoint_saves=saves,
        checkpoint_writers=writers,
        steps=float(steps),
        bound=bound,
        link=st.link,
        calibrated=calibration is not None and t.mfu_override is None,
        messages=notes,
        notes=[render_note(n) for n in notes],
    )
