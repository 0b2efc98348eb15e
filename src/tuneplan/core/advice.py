"""What would make it fit: limits of a plan on its GPU and ranked changes that save memory.

* :func:`max_micro_batch` and :func:`max_seq_len`: the largest values whose device total fits the
  GPU (bisection over the same ledger as the estimate, so "fits" means exactly what the verdict
  means; one step more does not fit).
* :func:`memory_curve`: device total against sequence length, for the limits chart.
* :func:`suggest`: every single change a practitioner would try (gradient checkpointing, QLoRA,
  8-bit optimizer, smaller micro-batch with more gradient accumulation, shorter sequences, fused
  cross-entropy, the optimizer step in backward, more GPUs with ZeRO-3/FSDP, a larger GPU), each
  evaluated by re-running the full estimate, ranked: the ones that make the plan fit first, then by
  the smallest increase in cost, then by memory saved.

Pure: no I/O, no Qt.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from tuneplan.core.compare import largest_fitting, missing_support
from tuneplan.core.estimate import blocking_notes, estimate
from tuneplan.core.memory import estimate_memory, quantized_base_bytes_per_param
from tuneplan.core.memory.peaks import generates_in_evaluation
from tuneplan.core.result import GIB, Estimate, MemoryEstimate
from tuneplan.core.scenario import GpuSpec, Scenario
from tuneplan.core.stacks import follow_defaults
from tuneplan.core.terms import N_, NOTES, Note, render_note

__all__ = ["Suggestion", "apply_changes", "max_eval_batch", "max_micro_batch", "max_seq_len", "memory_curve",
           "suggest"]

#: Upper bound of the sequence-length search when the model states no maximum (tokens).
SEQ_LEN_SEARCH_CAP = 1_048_576


class Suggestion(BaseModel):
    """One change to the plan and its effect.

    Attributes:
        key: stable identifier (``grad_checkpointing``, ``qlora``, ...).
        title: short imperative text ("Turn on gradient checkpointing"), in English: ``title_note`` rendered.
        detail: why it helps and what it costs, in English: ``reasons`` rendered, one sentence each.
        title_note: the title as a coded note (``advice.<key>`` in ``tuneplan.core.terms.NOTES``, with
            parameters such as the new micro-batch or the GPU's name and GiB).
        reasons: the reasons as coded notes (``advice.why.<key>``, and ``advice.priced`` / ``advice.unpriced``
            for the larger GPU); renderers translate these, never ``title`` or ``detail``.
        changes: dotted scenario paths to new values (``{"training.grad_checkpointing": True}``);
            ``gpu`` maps to a :class:`GpuSpec` dump for the "larger GPU" suggestion.
        total_bytes: device total after the change (bytes per GPU).
        saved_bytes: device total before minus after (positive saves memory).
        fits: whether the plan fits after the change.
        band_risk: how the likely range after the change sits against the capacity
            (:attr:`tuneplan.core.result.MemoryEstimate.band_risk`: ``none``, ``tight``, ``unlikely``, ``possible``).
        hours_delta: wall-clock change in hours (positive is slower).
        usd_delta: change of the expected cost of one run in USD.
        drastic: the change gives up much of what the plan asked for (sequences cut to under half their
            length, or a smaller effective batch: the optimizer step fused into backward ends gradient
            accumulation), so it ranks after the others that fit as well.
    """

    model_config = ConfigDict(frozen=True)

    key: str
    title: str
    detail: str
    changes: dict[str, Any]
    title_note: Note = Note(code="")
    reasons: list[Note] = []
    total_bytes: float
    saved_bytes: float
    fits: bool
    hours_delta: float
    band_risk: str = "none"
    usd_delta: float
    drastic: bool = False

    @property
    def saved_gib(self) -> float:
        """Memory saved in GiB."""
        return self.saved_bytes / GIB


def apply_changes(scenario: Scenario, changes: dict[str, Any]) -> Scenario:
    """A validated copy of ``scenario`` with ``changes`` (dotted paths) applied.

    Raises:
        pydantic.ValidationError: when a change is invalid.
    """
    data = scenario.model_dump()
    for path, value in changes.items():
        target = data
        parts = path.split(".")
        for part in parts[:-1]:
            target = target[part]
        target[parts[-1]] = value
    return Scenario.model_validate(data)


def _stack_follow_ups(s: Scenario, changes: dict[str, Any]) -> dict[str, Any]:
    """The stack defaults a suggestion brings into force (:func:`tuneplan.core.stacks.follow_defaults`: "Use QLoRA"
    under Hugging Face + PEFT also upcasts and checkpoints, as the store applies it), so that what advice shows is
    what Apply sets; ``{}`` without a stack or for a change that does not validate (the candidate is then refused)."""
    if s.training.stack is None:
        return {}
    try:
        new = apply_changes(s, changes).training
    except ValidationError:
        return {}
    edited = {p.removeprefix("training.") for p in changes if p.startswith("training.")}
    return {f"training.{f}": v for f, v in follow_defaults(s.training, new, edited).items()}


def _fits(scenario: Scenario) -> bool:
    mem, _ = estimate_memory(scenario.model, scenario.training, scenario.gpu, scenario.dataset)
    return mem.fits


def _within(mem, cautious: bool) -> bool:  # noqa: ANN001 - MemoryEstimate
    """Fits by the estimate; with ``cautious`` the upper end of the likely range fits too."""
    return mem.fits and (not cautious or mem.high_bytes <= mem.capacity_bytes)


def max_micro_batch(scenario: Scenario, gpu: GpuSpec | None = None, upper: int = 256, cautious: bool = False) -> int:
    """Largest micro-batch (sequences per GPU per step) that fits; 0 if not even 1 fits.

    ``cautious``: the largest whose whole likely range (``MemoryEstimate.high_bytes``, the estimate plus the
    measured error on published runs) fits, rather than the estimate alone.
    """
    gpu = gpu or scenario.gpu
    t = scenario.training

    def fits(b: int) -> bool:
        mem, _ = estimate_memory(scenario.model, t.model_copy(update={"micro_batch": b}), gpu, scenario.dataset)
        return _within(mem, cautious)

    return largest_fitting(fits, upper)


def _eval_total(scenario: Scenario, rows: int) -> MemoryEstimate:
    t = scenario.training.model_copy(update={"eval_micro_batch": rows})
    return estimate_memory(scenario.model, t, scenario.gpu, scenario.dataset)[0]


def max_eval_batch(scenario: Scenario, upper: int, training_only: float | None = None) -> int:
    """The largest evaluation micro-batch in ``[1, upper]`` that fits the plan's GPU or costs no more memory than the
    training step alone (0 if even one row does neither); ``training_only``: that step's device total (bytes), when
    the caller has it.

    Memory grows with the evaluation batch (its logits), so a bisection finds it in ``log2(upper)`` estimates."""
    if training_only is None:
        training_only = _eval_total(scenario, 0).total_bytes

    def fits(rows: int) -> bool:
        mem = _eval_total(scenario, rows)
        return mem.fits or mem.total_bytes <= training_only

    lo, hi = 0, max(0, upper)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def max_seq_len(scenario: Scenario, gpu: GpuSpec | None = None, cautious: bool = False) -> int:
    """Longest sequence length (tokens) that fits at the plan's micro-batch; 0 if not even 1 token.

    Searched up to the model's ``max_position_embeddings`` (or :data:`SEQ_LEN_SEARCH_CAP`). ``cautious``:
    the longest whose whole likely range fits (see :func:`max_micro_batch`).
    """
    gpu = gpu or scenario.gpu
    t = scenario.training
    cap = scenario.model.max_position_embeddings or SEQ_LEN_SEARCH_CAP

    def fits(s: int) -> bool:
        mem, _ = estimate_memory(scenario.model, t.model_copy(update={"seq_len": s}), gpu, scenario.dataset)
        return _within(mem, cautious)

    return largest_fitting(fits, cap)


def memory_curve(scenario: Scenario, points: int = 24, max_len: int | None = None) -> list[tuple[int, float]]:
    """``(sequence length, device total bytes)`` pairs from 256 tokens to ``max_len`` (log spaced)."""
    cap = max_len or min(scenario.model.max_position_embeddings or 131072, 131072)
    cap = max(cap, 512)
    t = scenario.training
    out: list[tuple[int, float]] = []
    lengths = sorted({int(round(256 * (cap / 256) ** (k / (points - 1)))) for k in range(points)})
    for s in lengths:
        mem, _ = estimate_memory(scenario.model, t.model_copy(update={"seq_len": s}), scenario.gpu, scenario.dataset)
        out.append((s, mem.total_bytes))
    return out


#: English templates of the suggestions' titles (``advice.<key>``) and reasons (``advice.why.<key>``); the UI
#: translates them in the ``Terms`` context like every other note.
NOTES.update({
    "advice.grad_checkpointing": N_("Turn on gradient checkpointing"),
    "advice.why.grad_checkpointing": N_("Keeps one hidden state per layer and recomputes the rest in backward: "
                                        "about a third more compute."),
    "advice.lora": N_("Train LoRA adapters instead of all weights"),
    "advice.why.lora": N_("No gradients or optimizer states for the base weights."),
    "advice.zero_init": N_("Build the model under deepspeed.zero.Init"),
    "advice.why.zero_init": N_("Each GPU then creates only its share of the weights: load the model after the "
                               "DeepSpeed config is known (Hugging Face Trainer, TRL and LLaMA-Factory do), or set "
                               "zero3_init_flag: true in the accelerate config."),
    "advice.qlora": N_("Use QLoRA (4-bit NF4 base)"),
    "advice.why.qlora": N_("Stores the frozen base in 4 bits; roughly a quarter of the bf16 weights, a little "
                           "slower."),
    "advice.kbit_bf16": N_("Skip the FP32 upcast of the unquantised weights"),
    "advice.why.kbit_bf16": N_("Keeps embeddings, LM head, norms (and stacked MoE experts) in the training "
                               "precision, as axolotl, TRL, torchtune and Unsloth do, instead of PEFT's "
                               "prepare_model_for_kbit_training: 2 bytes per parameter instead of 4, and a 16-bit "
                               "residual stream between layers."),
    "advice.adamw_fused": N_("Use fused AdamW"),
    "advice.why.adamw_fused": N_("torch.optim.AdamW(fused=True) updates in one kernel, without the foreach path's "
                                 "temporary copy of the second moments; same maths, no slowdown."),
    "advice.adamw_8bit": N_("Use 8-bit AdamW"),
    "advice.why.adamw_8bit": N_("bitsandbytes keeps both moments in 8 bits: 2 bytes per parameter instead of 4 "
                                "or 8."),
    "advice.optimizer_in_backward": N_("Fuse the optimizer step into backward"),
    "advice.why.optimizer_in_backward": N_("Frees each gradient as soon as its parameter is updated (no gradient "
                                           "accumulation)."),
    "advice.grad_sync": N_("Sync gradients every micro-batch"),
    "advice.why.grad_sync": N_("Reduce-scatters each micro-batch's gradients, so every GPU keeps a shard instead "
                               "of the whole unsharded gradient (accelerate sync_each_batch=True); more "
                               "communication, which the time estimate includes."),
    "advice.fsdp_units": N_("Wrap the adapters in their own FSDP units"),
    "advice.why.fsdp_units": N_("Frozen weights then get no gradients (PEFT's fsdp_auto_wrap_policy, torchtune; "
                                "litgpt PR #1538)."),
    "advice.micro_batch": N_("Micro-batch {micro_batch} with gradient accumulation {accumulation}"),
    "advice.why.micro_batch": N_("Same effective batch, fewer tokens in flight at once."),
    "advice.eval_batch": N_("Evaluation batch of {rows} (per_device_eval_batch_size)"),
    "advice.why.eval_batch": N_("The evaluation pass holds the logits of its whole micro-batch with their fp32 copy; "
                                "smaller evaluation batches only make evaluation a little slower."),
    "advice.eval_batch_generate": N_("Evaluation batch of {rows} (per_device_eval_batch_size)"),
    "advice.why.eval_batch_generate": N_("The evaluation's generate holds the KV cache of its whole micro-batch at "
                                         "prompt plus new tokens; smaller evaluation batches take more batches of "
                                         "decode steps, so evaluation gets slower."),
    "advice.eval_off": N_("Do not evaluate during training"),
    "advice.why.eval_off": N_("Even one evaluation row needs more memory than the card has and than the training "
                              "step; evaluate the saved checkpoint afterwards instead."),
    "advice.fused_ce": N_("Use a fused cross-entropy (Liger, Cut Cross-Entropy)"),
    "advice.why.fused_ce": N_("The loss never materialises the full fp32 logits."),
    "advice.seq_len": N_("Shorten sequences to {tokens:,} tokens"),
    "advice.why.seq_len": N_("Truncates or splits long examples: check your data's length distribution first."),
    "advice.activation_offload": N_("Offload checkpointed activations to CPU"),
    "advice.why.activation_offload": N_("Moves saved hidden states to host memory over PCIe; the time shown does "
                                        "not charge the transfers (overlapped with compute when the link keeps "
                                        "up)."),
    "advice.gpus": N_("Shard across {gpus} GPUs with FSDP (ZeRO-3)"),
    "advice.why.gpus": N_("Weights, gradients and optimizer states split across GPUs; each GPU pays for its own "
                          "time."),
    "advice.gpu": N_("Use a larger GPU: {gpu} ({memory_gib:.2f} GiB)"),
    "advice.why.gpu": N_("The smallest catalog GPU with enough memory for the plan as it is."),
    "advice.vllm_sleep": N_("Let vLLM sleep while training"),
    "advice.why.vllm_sleep": N_("vllm_enable_sleep_mode frees the colocated engine's weights and KV cache during "
                                "training; it wakes for each generation (a weight reload each step)."),
    "advice.vllm_share": N_("Give vLLM {share:.0%} of the card"),
    "advice.why.vllm_share": N_("A smaller vllm_gpu_memory_utilization that still holds the engine's weights and "
                                "the step's KV cache leaves the rest to training."),
    "advice.vllm_server": N_("Generate on a vLLM server on its own GPU"),
    "advice.why.vllm_server": N_("trl vllm-serve on one more GPU of the same kind: no vLLM share on the training "
                                 "cards; that GPU is billed too."),
    "advice.priced": N_("Priced at ${price:,.2f}/GPU-hour."),
    "advice.priced_at": N_("Priced at ${price:,.2f}/GPU-hour ({provider})."),
    "advice.unpriced": N_("Keeps the current price per GPU-hour (no price known for it)."),
})


def _vllm_share_needed(s: Scenario) -> float:
    """The smallest ``vllm_gpu_memory_utilization`` (in steps of 0.05) whose share holds the colocated engine's
    weights, one prefill chunk and every row of the step at full length (``core/generation.py``), at least 0.05."""
    from tuneplan.core import generation as gen
    from tuneplan.core import workload as wl

    a, t = s.model, s.training
    capacity = s.gpu.memory_gib * 2**30
    layers = float(a.layer_linear_params())
    # a QLoRA base goes in as quantised (NF4 or LLM.int8)
    layer_bytes = quantized_base_bytes_per_param(a, t) if t.method == "qlora" else 2.0
    weights = layers * layer_bytes + (float(a.parameter_count()) - layers) * 2.0
    need = (weights + wl.reference_layer_bytes_per_token(a, 2, 2) * gen.VLLM_BATCHED_TOKENS
            + gen.generation_rows(t) * t.seq_len * gen.kv_bytes_per_token(a))
    return min(0.95, max(0.05, math.ceil(need / capacity / 0.05) * 0.05))


def _candidates(s: Scenario, larger_gpus: Iterable[GpuSpec],
                gpu_prices: Mapping[str, float] | None = None) -> list[tuple[str, Note, list[Note], dict[str, Any]]]:
    """(key, title, reasons, changes) of every change worth trying on ``s``."""
    t = s.training
    c: list[tuple[str, Note, list[Note], dict[str, Any]]] = []

    def add(key: str, changes: dict[str, Any], code: str | None = None, extra: tuple[Note, ...] = (),
            **params: Any) -> None:
        code = code or key
        c.append((key, Note(code=f"advice.{code}", params=params), [Note(code=f"advice.why.{code}"), *extra],
                  {**changes, **_stack_follow_ups(s, changes)}))

    if t.workload == "grpo" and t.generation_engine == "vllm-colocate":
        if not t.vllm_sleep:
            add("vllm_sleep", {"training.vllm_sleep": True})
        share = _vllm_share_needed(s)
        if share < t.vllm_memory_share:
            add("vllm_share", {"training.vllm_memory_share": share}, share=share)
        add("vllm_server", {"training.generation_engine": "vllm-server", "training.vllm_server_gpus": 1})
    training_only = _eval_total(s, 0).total_bytes if t.eval_micro_batch > 0 else 0.0
    with_eval = _eval_total(s, t.eval_micro_batch) if t.eval_micro_batch > 0 else None
    if with_eval is not None and with_eval.total_bytes > training_only:
        # the evaluation raises the peak above the training step's
        rows = max_eval_batch(s, upper=t.eval_micro_batch - 1, training_only=training_only)
        generating = generates_in_evaluation(t)
        if rows >= 1:
            add("eval_batch", {"training.eval_micro_batch": rows},
                code="eval_batch_generate" if generating else None, rows=rows)
        if rows < 1:
            add("eval_off", {"training.eval_micro_batch": 0})
    if not t.zero_init and t.sharding == "zero3" and t.num_gpus > 1 and t.method != "qlora" \
            and s.model.checkpoint is None:
        add("zero_init", {"training.zero_init": True})  # each rank then builds only its partition
    if not t.grad_checkpointing:
        add("grad_checkpointing", {"training.grad_checkpointing": True})
    if t.method == "full":
        add("lora", {"training.method": "lora"})
    if t.method in {"full", "lora"} or (t.method == "qlora" and t.quant_bits == 8):
        add("qlora", {"training.method": "qlora", "training.quant_bits": 4})  # from an 8-bit base too
    if t.method == "qlora" and t.kbit_fp32_upcast:
        add("kbit_bf16", {"training.kbit_fp32_upcast": False})
    if t.optimizer == "adamw" and t.method == "full" and not t.optimizer_in_backward:
        add("adamw_fused", {"training.optimizer": "adamw-fused"})
    if t.optimizer in {"adamw", "adamw-fused", "paged-adamw-32bit"} and t.method == "full":
        add("adamw_8bit", {"training.optimizer": "adamw-8bit"})
    if t.method == "full" and not t.optimizer_in_backward:
        add("optimizer_in_backward", {"training.optimizer_in_backward": True, "training.grad_accumulation": 1})
    if t.unsharded_accumulation:
        add("grad_sync", {"training.grad_sync": "micro-batch"})
    if t.frozen_weight_grads:
        add("fsdp_units", {"training.fsdp_wrap": "layers"})
    if t.micro_batch > 1:
        new_b = max(1, t.micro_batch // 2)
        ga = t.grad_accumulation * t.micro_batch // new_b
        add("micro_batch", {"training.micro_batch": new_b, "training.grad_accumulation": ga},
            micro_batch=new_b, accumulation=ga)
    if not t.fused_cross_entropy:
        add("fused_ce", {"training.fused_cross_entropy": True})
    if t.seq_len > 512:
        # the longest length that fits, exactly as the Limits tab and the Your-GPU line say it (one number for
        # one quantity: rounding it down here made advice say 8,704 where they said 8,786)
        limit = max_seq_len(s)
        if 0 < limit < t.seq_len:
            add("seq_len", {"training.seq_len": limit}, tokens=limit)
    if not t.activation_offload and t.grad_checkpointing:
        add("activation_offload", {"training.activation_offload": True})
    for n in (2, 4, 8):
        if n > t.num_gpus:
            add(f"gpus_{n}", {"training.num_gpus": n, "training.sharding": "fsdp"}, code="gpus", gpus=n)
            break
    # the smallest card with enough memory, from the plan's GPU vendor first (a ROCm card is no drop-in for CUDA)
    for gpu in sorted(larger_gpus, key=lambda g: (g.vendor != s.gpu.vendor, g.memory_gib)):
        if gpu.memory_gib > s.gpu.memory_gib and not missing_support(gpu, t):  # a drop-in card for the plan as it is
            probe = s.model_copy(update={"gpu": gpu})
            if _fits(probe):
                changes: dict[str, Any] = {"gpu": gpu.model_dump()}
                priced: tuple[Note, ...] = ()
                if gpu_prices and gpu.id in gpu_prices:
                    changes["pricing.price_per_gpu_hour"] = gpu_prices[gpu.id]
                    priced = (Note(code="advice.priced", params={"price": gpu_prices[gpu.id]}),)
                elif gpu_prices is not None:
                    priced = (Note(code="advice.unpriced"),)
                # else the caller prices it (the GUI, from its price book)
                add(f"gpu_{gpu.id}", changes, code="gpu", extra=priced, gpu=gpu.name, memory_gib=gpu.memory_gib)
                break
    return c


def suggest(scenario: Scenario, larger_gpus: Iterable[GpuSpec] = (), base: Estimate | None = None,
            gpu_prices: Mapping[str, float] | None = None) -> list[Suggestion]:
    """Ranked single changes that reduce per-GPU memory, each evaluated with the full estimate.

    Args:
        scenario: the plan.
        larger_gpus: GPUs to consider for the "larger GPU" suggestion (e.g. the catalog); only cards that run
            the plan as it is (:func:`tuneplan.core.compare.missing_support`: no BF16 or FlashAttention 2 plan on
            a card without BF16 tensor cores).
        base: the plan's estimate if already computed.
        gpu_prices: USD per GPU-hour by GPU id, used to price the "larger GPU" suggestion (its detail says the
            price, or that none is known); ``None``: the suggestion keeps the plan's current price and its detail
            says nothing about price, for a caller that prices it itself (the GUI, from its price book).

    Returns:
        Suggestions that save memory or make the plan fit, best first (:func:`rank_key`): the ones that
        fit with their whole likely range, then those that fit by the estimate only, then the smallest
        increase in expected cost, then the most memory saved.
    """
    base = base or estimate(scenario)
    out: list[Suggestion] = []
    for key, title, reasons, changes in _candidates(scenario, larger_gpus, gpu_prices):
        try:
            changed = apply_changes(scenario, changes)
            after = estimate(changed)
        except (ValueError, KeyError):
            continue
        saved = base.memory.total_bytes - after.memory.total_bytes
        if saved <= 0 and not (after.memory.fits and not base.memory.fits):
            continue
        if blocking_notes(after) and not blocking_notes(base):
            continue  # a change that makes the plan one its stack refuses (FSDP on an 8-bit base ...)
        out.append(Suggestion(
            key=key, title=render_note(title), detail=" ".join(render_note(n) for n in reasons), changes=changes,
            title_note=title, reasons=reasons,
            total_bytes=after.memory.total_bytes, saved_bytes=saved, fits=after.memory.fits,
            band_risk=after.memory.band_risk, hours_delta=after.time.hours - base.time.hours,
            usd_delta=after.cost.total_usd - base.cost.total_usd,
            drastic=(changed.training.seq_len * 2 < scenario.training.seq_len
                     or changed.training.micro_batch * changed.training.grad_accumulation
                     < scenario.training.micro_batch * scenario.training.grad_accumulation),
        ))
    out.sort(key=rank_key)
    return out


def rank_key(g: Suggestion) -> tuple[bool, bool, bool, float, float]:
    """Order of suggestions: the ones that fit with their whole likely range first, then those that fit
    only by the estimate (``tight``/``unlikely``), then the rest; within each, drastic changes (sequences
    cut to under half) last, then the smallest increase in expected cost, then the most memory saved."""
    return (not g.fits, g.band_risk in {"tight", "unlikely"}, g.drastic, g.usd_delta, -g.saved_bytes)
