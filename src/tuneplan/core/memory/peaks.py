"""The moments of one training step that compete for its peak, each a full set of live components.

The start of the loss's backward (activations and loss buffers), backward through the last layer (all saved tensors
plus that layer's MLP-gradient transients; with checkpointing, the recomputed layer next to all checkpoints), the end
of backward (all gradients), the end of the forward (the autocast cache of weight casts; a preference workload's
reference forward), the backward of a tied embedding in full fine-tuning, the optimizer step, and GRPO's generation.
:func:`moments` builds them from the terms of ``states`` and ``activations``; :func:`peak` picks the largest.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tuneplan.core import workload as wl
from tuneplan.core.generation import kv_bytes_per_token
from tuneplan.core.memory.activations import LossSide, StepActivations
from tuneplan.core.memory.allocator import CUBLAS_WORKSPACE_BYTES
from tuneplan.core.memory.context import MemoryContext
from tuneplan.core.memory.states import ModelStates, count, fsdp_unit_gradient, root_unit_gradients
from tuneplan.core.memory.workloads import _generation_memory, _head_cast_term, _workload_forward
from tuneplan.core.scenario import TrainingSetup
from tuneplan.core.terms import FORMULAS, N_, Quantity, Term

#: torchtune's ``CEWithChunkedOutputLoss(num_output_chunks=8)`` (torchtune ``modules/loss/ce_chunked_output_loss.py``):
#: the model returns its logits as that many chunks, in training and in evaluation alike, and the loss upcasts one
#: chunk at a time.
TORCHTUNE_OUTPUT_CHUNKS = 8

FORMULAS.update({
    "eval_logits": N_("{tokens} tokens × {vocab} logits × {elem_bytes} B: the evaluation micro-batch's logits with the "
                      "loss's fp32 copy and log-softmax (a no-grad forward with labels; Liger's fused loss runs only "
                      "while training)"),
    "eval_layer": N_("{tokens} tokens × {per_token} B: inside a decoder layer of the no-grad evaluation forward, the "
                     "residual, the norm output and the MLP intermediates ({intermediate} wide)"),
    "eval_kv_cache": N_("{rows} rows × {tokens} tokens × {kv_per_token} B: the evaluation's KV cache ({prompt}-token "
                        "prompts + {generated} generated tokens), + {extend} B while one layer's keys are extended"),
    "eval_prompt_cache": N_("{rows} rows × {prompt} tokens × {kv_per_token} B: the KV cache of the evaluation's "
                            "prompts, filled by the prefill"),
    "eval_prefill": N_("{tokens} prompt tokens × {per_token} B: inside a decoder layer of the prefill forward (the "
                       "residual, the norm output, the MLP intermediates), the KV cache of the prompt beside it"),
    "eval_next_logits": N_("{rows} rows × {vocab} logits × {elem_bytes} B: the last position's logits and generate's "
                           "fp32 copy (logits_to_keep = 1)"),
})


@dataclass(frozen=True)
class Moments:
    """The step's moments (``candidates``: moment -> component -> bytes, before weights, adapters and the cuBLAS
    workspace) and what the components at the peak are rendered from: the gradients kept between micro-batches
    (``grads_kept``), the FSDP unit and root-unit gradient parts, the gradients' formula, and a workload's terms."""

    candidates: dict[str, dict[str, float]]
    grads_kept: float
    unit_extra: float
    root_wait: float
    root_end: float
    gradients_formula: str
    logit_terms: list[Term]
    fwd_logit_terms: list[Term]
    ref_terms: dict[str, list[Term]]
    ref_weights: float
    ref_fwd: float
    gen_terms: dict[str, list[Term]]
    eval_terms: list[Term] = field(default_factory=list)
    eval_gen_terms: list[Term] = field(default_factory=list)


def kept_gradients(ctx: MemoryContext, s: ModelStates) -> tuple[float, float, str]:
    """Gradients alive while a later micro-batch runs its backward and at the end of backward (bytes), and the
    gradients' formula: earlier micro-batches' when accumulating; under FSDP ``no_sync`` the whole unsharded
    gradient ("FSDP will accumulate the full model gradients (instead of gradient shards) until the eventual sync",
    ``FullyShardedDataParallel.no_sync``); ZeRO-Offload's GPU buffers."""
    t = ctx.t
    accumulating = t.grad_accumulation > 1 and not t.optimizer_in_backward
    grads_kept = s.gradients if accumulating else 0.0
    end_grads = s.gradients
    formula = s.gradients_formula
    if t.unsharded_accumulation:
        # FSDP under no_sync() (FSDP2: set_requires_gradient_sync(False)) until the last micro-batch: each unit's
        # .grad stays the unsharded gradient of the whole unit, in the forward's dtype, and later micro-batches add
        # into it (with CPU offload they stay on the GPU until that sync)
        numel = s.trainable.trainable + (ctx.layer_linear if t.frozen_weight_grads else 0)
        unsharded = numel * ctx.act
        grads_kept = end_grads = unsharded
        formula += (f"; but between optimizer steps FSDP no_sync keeps them unsharded, which is what "
                    f"is counted: {count(numel)} x {ctx.act} B")
    if ctx.zero_offload:
        grads_kept = s.zero_kept
    return grads_kept, end_grads, formula


def layer_backward_transients(ctx: MemoryContext, a: StepActivations, base_temps: float, temporaries: float) -> float:
    """Temporaries inside a layer's backward (bytes): the gradients of the MLP intermediates (SwiGLU 3 x, a plain
    MLP 2 x the intermediate width; itemised on fake tensors, docs/accuracy.md known limit 6) or a checkpointed
    layer's recomputation transients, next to the inter-layer gradient buffers; eager attention's score buffers
    belong to the attention backward and are the alternative."""
    arch = ctx.arch
    inter = (arch.moe_intermediate_size * arch.experts_per_token + arch.shared_expert_intermediate_size
             if arch.is_moe else arch.intermediate_size)
    layer_backward = max(temporaries, base_temps + (3 if arch.mlp == "gated" else 2) * ctx.mlp_bytes * inter * ctx.tokens)
    # a checkpointed layer's recomputed forward: LoRA's input copies or a MoE block's locals next to its saved set
    return max(layer_backward, base_temps + a.recompute_transient_per_token * ctx.tokens)


def forward_end_logits(ctx: MemoryContext) -> float:
    """The loss side at the end of the forward (bytes): bf16 logits, their fp32 copy and the log-softmax, 10 B per
    vocabulary entry and token (nothing with a fused loss), the fp32 head's bf16 cast; a value head's scores."""
    arch, t = ctx.arch, ctx.t
    fwd_logits = 0.0 if t.fused_cross_entropy else ctx.logit_tokens * arch.vocab_size * 10 + (
        2 * arch.vocab_size * arch.hidden_size if ctx.fp32_head_cast else 0.0)
    if t.workload == "reward":  # the value head's scores, no vocabulary
        fwd_logits = float(ctx.tokens * ctx.act)
    return fwd_logits


def tied_embedding_backward(ctx: MemoryContext, s: ModelStates) -> float | None:
    """Temporaries of a tied embedding's backward in full fine-tuning (bytes; None when the moment does not occur).

    The LM head's gradient contribution waits in autograd's input buffer until the embedding's backward has produced
    its own dense vocab x h gradient; the engine adds the two into a third buffer before AccumulateGrad takes it:
    3 x vocab x h next to every other gradient (MemTracker: 3.75 GiB of temporaries on Gemma 3 4B,
    docs/validation.md), less the one the gradients count (not from the second micro-batch of an accumulation, where
    the sum is added into the existing .grad: aten::add then aten::add_; ZeRO-2 counts a shard and reduces at once).
    """
    t, arch = ctx.t, ctx.arch
    if not (t.method == "full" and arch.tie_word_embeddings and ctx.shard in {"none", "ddp", "zero1", "zero2"}
            and not ctx.pipeline and not t.cpu_offload and t.workload != "reward"):  # (a value head has no tied matrix)
        return None
    accumulating = t.grad_accumulation > 1 and not t.optimizer_in_backward
    emb_grad = ctx.embed_params * s.trainable.grad_bytes
    counted = emb_grad / ctx.n_gpus if ctx.shard == "zero2" else emb_grad
    return 3 * emb_grad - (0.0 if accumulating and ctx.shard != "zero2" else counted)


def evaluation_moment(ctx: MemoryContext, s: ModelStates, forward_cache: float = 0.0,
                      ) -> tuple[dict[str, float], list[Term]] | None:
    """An evaluation pass during training (``t.eval_micro_batch`` rows; None when 0, and for GRPO, whose evaluation
    generates): the moment's components (bytes) and the terms the larger of its two sub-moments is rendered from.

    HF ``Trainer.evaluate`` runs ``prediction_step`` under ``torch.no_grad()`` after an optimizer step, whose
    ``zero_grad`` set the gradients to None; without ``compute_metrics`` only the loss is kept
    (``prediction_loss_only``), so the live set is the model, the optimizer states, the gathered layers and one
    forward's working set. No tensor is saved, so the forward holds either the inside of one decoder layer (the
    residual, the norm output and the MLP intermediates: gate, up and act(gate) for SwiGLU, as in
    :func:`layer_backward_transients`) or, at the loss, the final hidden state next to the logits with
    ``ForCausalLMLoss``'s fp32 copy and the log-softmax (10 B per token and vocabulary entry, as
    :func:`forward_end_logits`). Liger's fused loss is skipped outside training (``skip_logits = self.training and
    labels is not None``, liger_kernel ``transformers/model/llama.py`` @ead96b61), so the logits are materialised;
    torchtune's chunked output keeps the bf16 logits whole and upcasts one chunk of :data:`TORCHTUNE_OUTPUT_CHUNKS`.
    A preference workload evaluates chosen and rejected rows (its rows per example, as for training) and computes its
    log-probabilities as in training (:func:`~tuneplan.core.workload.logprob_tensors`' largest moment, no backward).
    Eager attention's score matrices (bf16 scores, their fp32 softmax and its bf16 copy: 8 B per head and key, per
    query; transformers ``eager_attention_forward``) sit inside the layer. What the whole run keeps stays: DDP's flat
    gradient buckets (the gradients' bucket copy; ``zero_grad`` frees only ``.grad``) and, under autocast, the cached
    bf16 casts of fp32 weights or adapters that require grad (ATen ``cached_cast`` caches them in any grad mode) until
    the forward ends. A frozen fp32 LM head's cast is not cached and is freed before the loss's fp32 copy exists.
    """
    t, arch = ctx.t, ctx.arch
    if t.eval_micro_batch <= 0 or t.workload == "grpo":
        return None
    if generates_in_evaluation(t) and t.stack == "llama-factory":
        return None  # LLaMA-Factory pops the labels when it generates: no loss forward (eval_generation_moment)
    tokens = ctx.rows / t.micro_batch * t.eval_micro_batch * t.seq_len
    h = arch.hidden_size
    inter, per_token = _no_grad_layer(ctx, t.seq_len)
    layer = Term(key="eval_layer", value=tokens * per_token, unit="B", parts=(
        Quantity(key="tokens", value=tokens, unit="count"), Quantity(key="per_token", value=per_token, unit="B"),
        Quantity(key="intermediate", value=inter, unit="count")), source="transformers modeling_llama.py (no grad)")
    if t.workload == "reward":  # a value head: one score per token, no vocabulary
        elem, vocab = float(ctx.act), 1.0
    elif t.workload in {"dpo", "orpo", "kto"}:  # TRL's own log-probabilities, at their largest moment
        elem, vocab = wl.logprob_tensors(t, ctx.act)[1] * ctx.act, float(arch.vocab_size)
    else:
        chunked = t.fused_cross_entropy and t.stack == "torchtune"
        elem, vocab = (2.0 + 8.0 / TORCHTUNE_OUTPUT_CHUNKS if chunked else 10.0), float(arch.vocab_size)
    logits = Term(key="eval_logits", value=tokens * vocab * elem, unit="B", parts=(
        Quantity(key="tokens", value=tokens, unit="count"), Quantity(key="vocab", value=vocab, unit="count"),
        Quantity(key="elem_bytes", value=elem, unit="B")), source="transformers Trainer.prediction_step, ForCausalLMLoss")
    at_loss = logits.value + tokens * ctx.resid * h
    buckets = s.gradients / 2 if ctx.shard == "ddp" else 0.0  # states.py: DDP's flat copy doubles the gradients
    kept = {"gradients": buckets, "temporaries": 0.0, "optimizer": s.optimizer,
            "gathered": s.gathered + s.forward_casts + forward_cache}
    if at_loss >= layer.value:
        return {**kept, "activations": tokens * ctx.resid * h, "logits": logits.value}, [logits]
    return {**kept, "activations": layer.value, "logits": 0.0}, [layer]


#: Stacks whose SFT evaluation can generate: LLaMA-Factory and ms-swift (``predict_with_generate``), HF
#: ``Seq2SeqTrainer`` in an own script (``hf-peft``, ``pytorch``) and a plan with no stack chosen. TRL's
#: SFTTrainer, axolotl, Unsloth, torchtune and LitGPT evaluate the loss only.
GENERATING_STACKS = frozenset({None, "llama-factory", "ms-swift", "hf-peft", "pytorch"})


def generates_in_evaluation(t: TrainingSetup) -> bool:
    """Whether the plan's evaluation generates: SFT with an evaluation batch and ``eval_generate_tokens`` > 0, on a
    stack of :data:`GENERATING_STACKS`, not under FSDP over several GPUs (where ``generate`` on the wrapped model
    fails: the root unit's embedding is never unsharded, pytorch/pytorch#123962)."""
    return (t.workload == "sft" and t.eval_micro_batch > 0 and t.eval_generate_tokens > 0
            and t.stack in GENERATING_STACKS and not (t.sharding == "fsdp" and t.num_gpus > 1))


def _no_grad_layer(ctx: MemoryContext, keys: float) -> tuple[float, float]:
    """The MLP width and the bytes per token inside one decoder layer of a no-grad forward over queries that attend
    to ``keys`` keys: the reference forward's layer (core/workload.py), the MLP intermediates in their own dtype, and
    under eager attention the scores of every head against every key (bf16 scores, fp32 softmax, its bf16 copy)."""
    arch = ctx.arch
    inter = (arch.moe_intermediate_size * arch.experts_per_token + arch.shared_expert_intermediate_size
             if arch.is_moe else arch.intermediate_size)
    per_token = wl.reference_layer_bytes_per_token(arch, ctx.act, ctx.resid) \
        + (3 if arch.mlp == "gated" else 2) * (ctx.mlp_bytes - ctx.act) * inter
    if ctx.t.attention == "eager":
        per_token += 8.0 * arch.num_attention_heads * keys
    return float(inter), per_token


def eval_generation_moment(ctx: MemoryContext, s: ModelStates, forward_cache: float = 0.0,
                           ) -> tuple[dict[str, float], list[Term]] | None:
    """An evaluation that generates (:func:`generates_in_evaluation`: LLaMA-Factory or HF ``Seq2SeqTrainer`` with
    ``predict_with_generate``): ``model.generate`` over the evaluation micro-batch after an optimizer step, the moment's
    components (bytes) and terms; None when the plan's evaluation does not generate.

    What stays from training is as in :func:`evaluation_moment` (the optimizer states, DDP's flat gradient buckets,
    the gathered layers and cached casts). ``generate`` keeps a ``DynamicCache``: per attention layer the keys and
    values of every position so far, ``2 x kv_dim`` elements in the activation dtype per token and layer
    (:func:`tuneplan.core.generation.kv_bytes_per_token`); ``DynamicLayer.update`` extends a layer's keys (then its
    values) with ``torch.cat``, so for a moment the old and the new tensor are both alive, one layer's keys more
    (transformers ``cache_utils.py``). The prompts are padded to the batch's longest and truncated to the cutoff
    length with their answers removed, at most ``seq_len`` tokens: the cache is sized at ``seq_len +
    eval_generate_tokens`` per row (an upper bound). ``generate`` sets ``logits_to_keep = 1`` (transformers
    ``generation/utils.py``: "to avoid computing the whole logit matrix"), so only the last position's bf16 logits and
    their fp32 copy (``next_token_logits ... .to(dtype=torch.float32)``) exist: 6 B per row and vocabulary entry (the
    sampler's sort and softmax over the same row are left out). Two sub-moments compete: the prefill, the prompt's
    cache next to one no-grad decoder layer over the prompt tokens, and the last decode step, the whole cache with
    one layer's keys being extended and the step's logits; the larger is the moment.
    """
    t, arch = ctx.t, ctx.arch
    if not generates_in_evaluation(t):
        return None
    rows = t.eval_micro_batch
    prompt, generated = t.seq_len, t.eval_generate_tokens
    total = prompt + generated
    kv_tok = kv_bytes_per_token(arch, float(ctx.act))
    cache = rows * total * kv_tok
    extend = cache / (2.0 * max(arch.num_attention_layers, 1))
    kv = Term(key="eval_kv_cache", value=cache + extend, unit="B", parts=(
        Quantity(key="rows", value=rows, unit="count", source="TrainingArguments.per_device_eval_batch_size"),
        Quantity(key="tokens", value=total, unit="tokens"),
        Quantity(key="kv_per_token", value=kv_tok, unit="B"),
        Quantity(key="prompt", value=prompt, unit="tokens"),
        Quantity(key="generated", value=generated, unit="tokens", source="LLaMA-Factory max_new_tokens"),
        Quantity(key="extend", value=extend, unit="B")), source="transformers cache_utils.py DynamicCache")
    vocab = float(arch.vocab_size)
    logits = Term(key="eval_next_logits", value=rows * vocab * 6.0, unit="B", parts=(
        Quantity(key="rows", value=rows, unit="count"), Quantity(key="vocab", value=vocab, unit="count"),
        Quantity(key="elem_bytes", value=6.0, unit="B")), source="transformers generation/utils.py (logits_to_keep)")
    prompt_tokens = float(rows * prompt)
    _inter, per_token = _no_grad_layer(ctx, prompt)
    prefill = Term(key="eval_prefill", value=prompt_tokens * per_token, unit="B", parts=(
        Quantity(key="tokens", value=prompt_tokens, unit="tokens"), Quantity(key="per_token", value=per_token, unit="B"),
    ), source="transformers modeling_llama.py (no grad)")
    prompt_cache = Term(key="eval_prompt_cache", value=rows * prompt * kv_tok, unit="B", parts=(
        Quantity(key="rows", value=rows, unit="count"), Quantity(key="prompt", value=prompt, unit="tokens"),
        Quantity(key="kv_per_token", value=kv_tok, unit="B")), source=kv.source)
    buckets = s.gradients / 2 if ctx.shard == "ddp" else 0.0
    kept = {"gradients": buckets, "temporaries": 0.0, "optimizer": s.optimizer,
            "gathered": s.gathered + s.forward_casts + forward_cache}
    if prefill.value + prompt_cache.value > kv.value + logits.value:
        return ({**kept, "activations": prefill.value, "logits": 0.0, "generation": prompt_cache.value},
                [prefill, prompt_cache])
    return {**kept, "activations": 0.0, "logits": logits.value, "generation": kv.value}, [kv, logits]


def loading_moment(ctx: MemoryContext, s: ModelStates) -> dict[str, float] | None:
    """Loading the model under DeepSpeed ZeRO-3 without ``zero.Init`` (``t.zero_init`` off, or a quantised base, which
    transformers never builds under it: ``get_init_context`` requires ``not is_quantized``): the whole model as
    stored is on every GPU before the engine partitions it (DeepSpeed ``engine.py`` ``_configure_distributed_model``
    moves the module to the device unless its parameters are already ZeRO-3 ones; a bitsandbytes model is loaded onto
    its rank's GPU by ``device_map``). Nothing else exists yet: no optimizer states, gradients or buckets. The
    moment's components (bytes, ``gathered`` holding the whole model less the shard), or None when it does not
    arise (not ZeRO-3 over several GPUs, or built under zero.Init)."""
    t = ctx.t
    if ctx.shard != "zero3":
        return None
    quantized = t.method == "qlora" or ctx.ckpt is not None
    if t.zero_init and not quantized:
        return None
    return {"gradients": 0.0, "activations": 0.0, "logits": 0.0, "temporaries": 0.0, "optimizer": 0.0,
            "gathered": max(0.0, s.model_weight_bytes - s.weights)}


def moments(ctx: MemoryContext, s: ModelStates, a: StepActivations, loss: LossSide, base_temps: float,
            temporaries: float) -> Moments:
    """Every moment of the step that competes for the peak, each a full set of live components (bytes)."""
    t, arch = ctx.t, ctx.arch
    tokens, layers_here = ctx.tokens, ctx.layers_here
    optimizer, gathered = s.optimizer, s.gathered
    activations, one_layer = a.bytes, a.one_layer
    grads_kept, end_grads, gradients_formula = kept_gradients(ctx, s)
    root_wait, root_end = root_unit_gradients(ctx)
    checkpoints = layers_here * a.checkpoint_token * tokens if t.grad_checkpointing else 0.0
    # With checkpointing the recomputation starts after the loss's buffers are freed.
    acts_at_loss = activations - (one_layer if t.grad_checkpointing else 0.0)
    candidates: dict[str, dict[str, float]] = {
        # the loss's backward: every saved activation, the loss buffers, gradients kept from
        # earlier micro-batches when accumulating, the gathered layers of ZeRO-3/FSDP
        "backward": {"gradients": grads_kept, "activations": acts_at_loss, "logits": loss.bytes,
                     "temporaries": temporaries, "optimizer": optimizer, "gathered": gathered},
        # end of backward: all gradients, only the first layer's activations left
        "end of backward": {"gradients": end_grads + root_end,
                            "activations": one_layer + checkpoints / max(layers_here, 1),
                            "logits": 0.0, "temporaries": temporaries, "optimizer": optimizer, "gathered": gathered},
        # optimizer step: gradients, states and the step's temporaries (layers are resharded)
        "optimizer step": {"gradients": s.gradients, "activations": 0.0, "logits": 0.0, "temporaries": s.step_temp,
                           "optimizer": optimizer, "gathered": 0.0},
    }
    layer_backward = layer_backward_transients(ctx, a, base_temps, temporaries)
    # An FSDP unit's unsharded gradient builds up while its layer's saved tensors and MLP-gradient transients are
    # freed by the same backward: the moment holds whichever is larger (a lower bound; they overlap in between)
    unit_extra = max(0.0, fsdp_unit_gradient(ctx) - (one_layer + layer_backward - base_temps))
    forward_casts = s.forward_casts + a.forward_cache
    if forward_casts:
        # end of the forward under checkpointing with an fp32 master model or fp32 LoRA adapters: the
        # autocast cache still holds every layer's bf16 weight (or adapter) cast next to the forward's loss
        # buffers; it is cleared when autocast exits
        candidates["end of forward"] = {"gradients": grads_kept, "activations": acts_at_loss,
                                        "logits": forward_end_logits(ctx), "temporaries": 0.0,
                                        "optimizer": optimizer, "gathered": gathered + forward_casts}
    logit_terms = list(loss.terms)
    fwd_logit_terms: list[Term] = []
    ref_terms: dict[str, list[Term]] = {}  # the reference component's terms by moment
    ref_weight_terms: list[Term] = []
    fwd_ref_terms: list[Term] = []
    ref_weights = ref_fwd = 0.0
    if t.workload in {"dpo", "kto", "orpo", "grpo"}:
        head_cast = 2.0 * arch.vocab_size * arch.hidden_size if ctx.fp32_head_cast else 0.0
        fwd_logits, ref_fwd, fwd_logit_terms, fwd_ref_terms, ref_weights, ref_weight_terms = _workload_forward(
            arch, t, ctx.logit_tokens, ctx.act, ctx.resid, s.model_weight_bytes, ctx.total_params, ctx.shard,
            ctx.n_gpus, ctx.pipeline, gathered_layers=ctx.gathered_layers,
            fused_bytes=loss.bytes if t.fused_cross_entropy else None, head_cast=head_cast)
        if head_cast and not t.fused_cross_entropy:
            logit_terms.append(_head_cast_term(arch))
        # the end of the policy's forward: its saved activations, its loss side and the reference's forward (TRL
        # DPOTrainer._compute_loss), the autocast cache not yet cleared
        candidates["end of forward"] = {"gradients": grads_kept, "activations": acts_at_loss, "logits": fwd_logits,
                                        "temporaries": 0.0, "optimizer": optimizer, "gathered": gathered + forward_casts}
    backward_grads = grads_kept + unit_extra + root_wait
    if t.grad_checkpointing:
        # backward through the last layer: its recomputed activations next to all checkpoints
        # (the final norm's and LM head's saved inputs were freed by their backward, which ran first)
        candidates["recomputed layer"] = {"gradients": backward_grads, "activations": activations - a.head_saved * tokens,
                                          "logits": 0.0, "temporaries": layer_backward, "optimizer": optimizer,
                                          "gathered": gathered}
    else:
        # backward through the last layer: every layer's saved tensors, the loss buffers already freed
        candidates["last layer backward"] = {"gradients": backward_grads,
                                             "activations": acts_at_loss - a.head_saved * tokens, "logits": 0.0,
                                             "temporaries": layer_backward, "optimizer": optimizer,
                                             "gathered": gathered}
    extra = tied_embedding_backward(ctx, s)
    if extra is not None:
        candidates["embedding backward"] = {"gradients": s.gradients, "activations": 0.0, "logits": 0.0,
                                            "temporaries": extra, "optimizer": optimizer, "gathered": 0.0}
    evaluation = evaluation_moment(ctx, s, a.forward_cache)
    eval_terms: list[Term] = []
    if evaluation is not None:
        candidates["evaluation"], eval_terms = evaluation
    eval_gen = eval_generation_moment(ctx, s, a.forward_cache)
    eval_gen_terms: list[Term] = []
    if eval_gen is not None:
        candidates["evaluation generation"], eval_gen_terms = eval_gen
    loading = loading_moment(ctx, s)
    if loading is not None:
        candidates["model loading"] = loading
    if ref_weights or ref_fwd:  # DPO/KTO: the reference's weights all step long, its forward at the forward's end
        for name, parts in candidates.items():
            parts["reference"] = ref_weights + (ref_fwd if name == "end of forward" else 0.0)
            ref_terms[name] = ref_weight_terms + (fwd_ref_terms if name == "end of forward" else [])
    gen_terms = _generation_memory(arch, t, ctx.gpu, candidates, s.weights, s.model_weight_bytes, ctx.shard, ctx.n_gpus)
    if eval_gen is not None:  # the cache of the evaluation's generate, rendered as the generation component
        gen_terms["evaluation generation"] = [x for x in eval_gen_terms
                                              if x.key in {"eval_kv_cache", "eval_prompt_cache"}]
    for name, parts in candidates.items():  # DeepSpeed's reduce bucket: ZeRO-3 always, ZeRO-1/2 in the backward
        if name == "model loading":  # the engine's buffers come after the model is partitioned
            continue
        if s.ds_bucket and (t.sharding == "zero3" or name not in {"optimizer step", "end of forward", "evaluation",
                                                                  "evaluation generation"}):
            parts["gradients"] += s.ds_bucket
    return Moments(candidates=candidates, grads_kept=grads_kept, unit_extra=unit_extra, root_wait=root_wait,
                   root_end=root_end, gradients_formula=gradients_formula, logit_terms=logit_terms,
                   fwd_logit_terms=fwd_logit_terms, ref_terms=ref_terms, ref_weights=ref_weights, ref_fwd=ref_fwd,
                   gen_terms=gen_terms, eval_terms=eval_terms, eval_gen_terms=eval_gen_terms)


def peak(s: ModelStates, candidates: dict[str, dict[str, float]]) -> tuple[dict[str, float], str]:
    """Allocated bytes at every moment (weights + adapters + the moment's components + the cuBLAS workspace) and the
    moment with the most: ``(allocated, phase)``."""
    allocated = {k: s.weights + s.adapters + sum(v.values()) + CUBLAS_WORKSPACE_BYTES for k, v in candidates.items()}
    return allocated, max(allocated, key=lambda k: allocated[k])
