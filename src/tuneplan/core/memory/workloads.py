"""The memory of workloads other than supervised fine-tuning (TRL's trainers, ``core/workload.py``): the loss
side's log-prob tensors, DPO/KTO's reference model and GRPO's generation."""

from __future__ import annotations

from tuneplan.core import workload as wl
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.memory.quantized import (
    hqq_base,
    hqq_dequant_transient,
    int8_base,
    int8_matmul_transient,
    quantized_frozen_base,
)
from tuneplan.core.result import GIB, MemoryComponent
from tuneplan.core.scenario import GpuSpec, TrainingSetup
from tuneplan.core.terms import Quantity, Term, render_formula


def _logps_term(tokens: float, vocab: int, elem: int, tensors: float, moment: str) -> Term:
    """The policy's V-wide loss-side tensors at one moment (``detail``: ``forward`` or ``backward``), bytes."""
    return Term(key="policy_logps", value=tokens * vocab * elem * tensors, unit="B", parts=(
        Quantity(key="tokens", value=tokens, unit="tokens"),
        Quantity(key="vocab", value=vocab, unit="count"),
        Quantity(key="tensors", value=tensors, unit="count",
                 source=f"{wl.TRL} trl/trainer/utils.py selective_log_softmax, entropy_from_logits; "
                        "core/workload.py LOGPROB_TENSORS"),
        Quantity(key="elem_bytes", value=elem, unit="B"),
    ), detail=moment, source=f"{wl.TRL} DPOTrainer._compute_loss, KTOTrainer._compute_loss, ORPOTrainer.concatenated_forward")


def _head_cast_term(arch: ModelArchitecture) -> Term:
    """The bf16 autocast copy of an fp32 LM head, saved by its matmul until the head's backward (bytes)."""
    return Term(key="head_cast", value=2.0 * arch.vocab_size * arch.hidden_size, unit="B", parts=(
        Quantity(key="vocab", value=arch.vocab_size, unit="count"),
        Quantity(key="hidden", value=arch.hidden_size, unit="count"),
    ), source="autograd MmBackward0.mat2 under autocast")


def _workload_forward(arch: ModelArchitecture, t: TrainingSetup, tokens: float, act: int, resid: int,
                      model_weight_bytes: float, total_params: float, shard: str, n_gpus: int, pipeline: bool,
                      gathered_layers: float, fused_bytes: float | None, head_cast: float,
                      ) -> tuple[float, float, list[Term], list[Term], float, list[Term]]:
    """The end of the policy's forward in a DPO, KTO or ORPO step (core/workload.py), bytes per GPU.

    The loss side is the larger of two moments: the reference forward inside a layer (the policy's held logits and
    saved log-softmax next to one layer's no-grad working set, :func:`~tuneplan.core.workload.
    reference_layer_bytes_per_token`, QLoRA's dequantised matrix and, for a sharded copy, its two gathered layers),
    and the metrics after it (the policy's tensors with the metrics' copy next to the reference's logits, which
    ``_compute_loss`` keeps until it returns). With fused (Liger) losses the policy holds one chunk and the reference's
    logits are never materialised. ``gathered_layers``: two of the model's layers gathered in 16 bits (a sharded
    copy's, as the policy's); ``fused_bytes``: the policy's fused-loss chunk, or None; ``head_cast``: an fp32 LM
    head's bf16 autocast copy (bytes, 0 without).

    Returns:
        ``(policy loss side, reference transient, their terms, reference weights, their terms)``.
    """
    v = arch.vocab_size
    ref_passes, _policy_passes = wl.nograd_passes(t)
    if t.workload == "grpo":  # its no-grad passes run while it scores completions, before the policy's forward
        ref_passes = 0
    kind = wl.reference_kind(t)
    # ---- the reference copy's weights: the model as stored (the policy's model_init_kwargs), 16-bit under DeepSpeed
    ref_weights, weight_terms = 0.0, []
    # the copy is prepared with the policy's offload config (TRL prepare_deepspeed passes offload_param at stage 3,
    # on any number of GPUs)
    offloaded = t.cpu_offload and t.sharding in {"zero3", "fsdp"}
    if kind == "copy" and not offloaded:
        shards = n_gpus if (shard in {"zero3", "fsdp"} or pipeline) else 1
        deepspeed_16 = t.sharding in {"zero1", "zero2", "zero3"} and t.precision != "fp32" and t.method != "qlora"
        per_param = float(act) if deepspeed_16 else model_weight_bytes / max(total_params, 1.0)
        term = wl.reference_weights_term(float(total_params), per_param, shards)
        ref_weights, weight_terms = term.value, [term]
    # ---- the loss side with the reference forward's transients
    held, peak, _backward = wl.logprob_tensors(t, act)
    per_tensor = tokens * v * act
    if fused_bytes is not None:
        held_b = peak_b = fused_bytes
        held_terms: list[Term] = []
        peak_terms: list[Term] = []
    else:
        held_b, peak_b = held * per_tensor + head_cast, peak * per_tensor + head_cast
        cast = [_head_cast_term(arch)] if head_cast else []
        held_terms = [_logps_term(tokens, v, act, held, "forward"), *cast]
        peak_terms = [_logps_term(tokens, v, act, peak, "forward"), *cast]
    if not ref_passes:
        return peak_b, 0.0, peak_terms, [], ref_weights, weight_terms
    other = 0.0
    if int8_base(arch, t):
        other += int8_matmul_transient(arch, tokens, backward=False,  # LLM.int8's forward: int8 input, int32 product
                                       fp16=t.precision == "fp16")
    elif hqq_base(arch, t):  # HQQ dequantises each matrix with three full-size copies alive at once
        other += hqq_dequant_transient(arch, t)
    elif quantized_frozen_base(arch, t):  # bitsandbytes dequantises each NF4 matrix to bf16 for its matmul
        other += 2.0 * max(m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods if m.count == 1)
    if kind == "copy" and shard in {"zero3", "fsdp"}:
        other += gathered_layers  # the copy's layer being computed and the prefetched next one
    per_token = wl.reference_layer_bytes_per_token(arch, act, resid)
    layer_b = tokens * per_token + other
    layer_term = Term(key="reference_activations", value=layer_b, unit="B", parts=(
        Quantity(key="tokens", value=tokens, unit="tokens"),
        Quantity(key="bytes_per_token", value=per_token, unit="B",
                 source="transformers LlamaDecoderLayer/LlamaMLP forward under torch.no_grad"),
        Quantity(key="other_bytes", value=other, unit="B"),
    ), source=f"{wl.TRL} DPOTrainer._compute_loss: the reference forward under no_grad, checkpointing off")
    ref_logits = 0.0 if fused_bytes is not None else per_tensor
    if held_b + layer_b >= peak_b + ref_logits:
        return held_b, layer_b, held_terms, [layer_term], ref_weights, weight_terms
    logits_term = Term(key="reference_logits", value=ref_logits, unit="B", parts=(
        Quantity(key="tokens", value=tokens, unit="tokens"),
        Quantity(key="vocab", value=v, unit="count"),
        Quantity(key="elem_bytes", value=act, unit="B"),
    ), source=f"{wl.TRL} DPOTrainer._compute_loss (ref_outputs), KTOTrainer._compute_loss")
    return peak_b, ref_logits, peak_terms, [logits_term], ref_weights, weight_terms


def _workload_components(t: TrainingSetup, comps: list[MemoryComponent], phase: str, live: dict[str, float],
                         logit_terms: list[Term], fwd_logit_terms: list[Term], ref_terms: dict[str, list[Term]],
                         ) -> list[MemoryComponent]:
    """The components of a workload other than SFT: the loss side rendered from its terms at the peak's moment, and
    DPO/KTO's ``reference`` component after the adapters."""
    terms = (fwd_logit_terms if phase == "end of forward" and fwd_logit_terms else
             logit_terms if live.get("logits") else [])
    out = []
    for comp in comps:
        if comp.key == "logits" and terms:
            comp = comp.model_copy(update={"formula": " + ".join(render_formula(term) for term in terms),
                                           "terms": terms, "source": f"{wl.TRL} (core/workload.py)"})
        elif comp.key == "logits" and not comp.formula:
            comp = comp.model_copy(update={"formula": "freed before this moment"})
        out.append(comp)
        if comp.key == "adapters" and ref_terms:
            mine = ref_terms.get(phase, [])
            out.append(MemoryComponent(
                key="reference", label="Reference model", bytes=live.get("reference", 0.0),
                formula=" + ".join(render_formula(term) for term in mine) or "nothing of the reference at this moment",
                source=f"{wl.TRL} DPOTrainer.__init__ and _compute_loss; trl/models/utils.py prepare_deepspeed",
                terms=mine))
    return out


def _generation_memory(arch: ModelArchitecture, t: TrainingSetup, gpu: GpuSpec, candidates: dict[str, dict[str, float]],
                       weights: float, model_weight_bytes: float, shard: str, n_gpus: int) -> dict[str, list[Term]]:
    """GRPO's generation in memory (``core/generation.py``), added to ``candidates`` in place; its terms by moment.

    * ``vllm-colocate``: the engine holds ``vllm_memory_share x`` the card beside the trainer at every moment
      (vLLM allocates its weights, activations and KV cache inside that share at start-up and keeps them), unless
      sleep mode frees it while training: then only at a ``generation`` moment, next to the weights, adapters and
      optimizer states (the gradients are freed by ``zero_grad``), with the share.
    * ``transformers``: a ``generation`` moment with ``model.generate``'s KV cache for all the step's rows at full
      length, ``2 x layers x kv_dim x 2 B`` per token, and under ZeRO-3/FSDP the rest of the weights gathered whole
      (``unwrap_model_for_generation``, ``ds3_gather_for_generation=True``).
    * ``vllm-server``: nothing on the training GPUs.
    """
    if t.workload != "grpo" or t.generation_engine == "vllm-server":
        return {}
    from tuneplan.core import generation as gen

    capacity = gpu.memory_gib * GIB
    if t.generation_engine == "vllm-colocate":
        share = gen.vllm_reserved_bytes(capacity, t.vllm_memory_share)
        term = Term(key="vllm_share", value=share, unit="B", parts=(
            Quantity(key="share", value=t.vllm_memory_share, unit="1", source="GRPOConfig vllm_gpu_memory_utilization"),
            Quantity(key="capacity", value=capacity, unit="B"),
            Quantity(key="weight_bytes", value=model_weight_bytes, unit="B"),
        ), source="vLLM EngineArgs.gpu_memory_utilization: the fraction of the GPU's memory for the engine")
        if not t.vllm_sleep:
            for parts in candidates.values():
                parts["generation"] = share
            return {name: [term] for name in candidates}
        optimizer = candidates.get("optimizer step", next(iter(candidates.values()))).get("optimizer", 0.0)
        candidates["generation"] = {"gradients": 0.0, "activations": 0.0, "logits": 0.0, "temporaries": 0.0,
                                    "optimizer": optimizer, "gathered": 0.0, "generation": share}
        return {"generation": [term]}
    rows = gen.generation_rows(t)
    kv_tok = gen.kv_bytes_per_token(arch)
    gathered = model_weight_bytes - weights if shard in {"zero3", "fsdp"} and n_gpus > 1 else 0.0
    cache = rows * t.seq_len * kv_tok
    term = Term(key="generation_cache", value=cache + max(gathered, 0.0), unit="B", parts=(
        Quantity(key="rows", value=rows, unit="count", source="GRPOConfig generation_batch_size per process"),
        Quantity(key="tokens", value=t.seq_len, unit="tokens"),
        Quantity(key="kv_per_token", value=kv_tok, unit="B"),
        Quantity(key="gathered", value=max(gathered, 0.0), unit="B",
                 source=f"{wl.TRL} trl/models/utils.py unwrap_model_for_generation"),
    ), source="transformers DynamicCache: keys and values of every layer")
    optimizer = candidates.get("optimizer step", next(iter(candidates.values()))).get("optimizer", 0.0)
    candidates["generation"] = {"gradients": 0.0, "activations": 0.0, "logits": 0.0, "temporaries": 0.0,
                                "optimizer": optimizer, "gathered": 0.0, "generation": term.value}
    return {"generation": [term]}
