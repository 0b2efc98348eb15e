"""The tensors autograd saves for backward, per decoder layer and token, and what a checkpointed layer holds
while it is recomputed (see the package docstring for the rules and sources)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from tuneplan.core import workload as wl
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.memory.adapters import (
    _activation_adapter_path,
    _targets,
    experts_adapted,
    lora_cast_parameter_count,
    peft_layer_modules,
    target_spec,
)
from tuneplan.core.memory.context import MemoryContext, _stacked_expert_params
from tuneplan.core.memory.quantized import (
    hqq_base,
    hqq_dequant_transient,
    int8_base,
    int8_matmul_transient,
    quantized_frozen_base,
)
from tuneplan.core.memory.workloads import _logps_term
from tuneplan.core.result import GIB
from tuneplan.core.scenario import TrainingSetup
from tuneplan.core.stacks import sdpa_padding_mask
from tuneplan.core.terms import Quantity, Term

#: Linear layers that read the same tensor in a decoder layer (the input norm's or post-attention norm's output).
_INPUT_OF = {"q_proj": "attn_in", "k_proj": "attn_in", "v_proj": "attn_in", "q_a_proj": "attn_in",
             "kv_a_proj_with_mqa": "attn_in", "gate_proj": "mlp_in", "up_proj": "mlp_in"}
#: Linear layers that read the input norm's output (the hidden state entering the attention).
_ATTN_INPUT_READERS = ("q_proj", "k_proj", "v_proj", "q_a_proj", "kv_a_proj_with_mqa")


def compile_modelled(arch: ModelArchitecture, t: TrainingSetup) -> bool:
    """Whether ``torch.compile``'s smaller saved set applies: asked for, on RMSNorm layers (measured on Llama,
    Gemma, Qwen3 with its q/k norms, Mixtral and Qwen3-MoE); LayerNorm models keep the eager ledger and the
    estimate says so."""
    return t.torch_compile and arch.norm == "rms"



def recompute_transient_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, mlp: int | None = None,
                                  resid: int | None = None) -> float:
    """Bytes per token a checkpointed layer holds during its recomputed forward beyond the tensors it saves:
    for LoRA at its widest adapted linear, for a mixture-of-experts layer in its expert block (the larger of
    the two; 0 without checkpointing, and for full fine-tuning of a dense model).

    ``act``, ``mlp`` and ``resid`` are the dtype sizes of the activations, the MLP intermediates and the
    residual stream (as for the saved set). PEFT's ``Linear.forward`` computes the frozen base output
    (``d_out`` wide), then casts the input to the adapter's fp32 (``_cast_input_dtype``: 4 B x ``d_in``,
    kept in a local until the layer returns) and runs dropout on that copy (another fp32 ``d_in``
    output; the saved mask is 1 B); under autocast neither is saved (lora_A saves autocast's bf16 copy).
    Without autocast (:func:`adapter_path` ``"fp32"``) lora_A saves the fp32 tensor it reads, so only the
    cast copy feeding dropout is extra. Its bitsandbytes layers skip the cast under autocast, and
    adapters in the model dtype cast nothing: lora_A saves the dropout output (or the input itself), so
    nothing beyond the saved set. The layer's own input is not saved by a frozen linear (except the
    attention output feeding ``o_proj``, which the attention already saves, and an input lora_A reads
    directly: no cast, no dropout), so it is a local of the recomputation too; the decoder layer still
    holds locals around it: during the MLP the residual and the post-attention norm's output
    (``LlamaDecoderLayer.forward``), during the attention the input norm's output. In a plain forward these
    are gone before the backward; in a recomputation they sit next to the layer's saved set. Llama-3-8B
    all-linear at ``down_proj``: 10i + 6h = 167,936 B per token, as MemTracker measured (docs/validation.md).
    """
    mlp = act if mlp is None else mlp
    resid = act if resid is None else resid
    h = arch.hidden_size
    if not t.grad_checkpointing:
        return 0.0
    moe = _moe_recompute_transient_per_token(arch, t, act, mlp, resid)
    if t.method == "full":
        return moe
    wanted = _targets(arch, target_spec(t), t.stack)
    path = _activation_adapter_path(t)
    dropout = t.lora_dropout > 0
    best = 0.0
    for m in peft_layer_modules(arch, _layer_group(arch), t.stack):
        if m.count > 1 or m.kind == "router" or m.name not in wanted:
            continue
        x_bytes = mlp if m.kind == "mlp" else act
        # (lora_A saves the input itself when nothing is cast or dropped out: then it is in the saved set)
        reads_input = not dropout and (x_bytes == 4 or path == "native" or (path == "autocast" and t.method == "qlora"))
        own_input = 0 if m.name == "o_proj" or reads_input else x_bytes * m.d_in
        cast = dropped = 0
        if x_bytes != 4 and path == "autocast" and t.method == "lora":
            # PEFT's bitsandbytes LoRA layers skip the cast while autocast runs (``requires_conversion``)
            cast = 4 * m.d_in
            dropped = 4 * m.d_in if dropout else 0
        elif x_bytes != 4 and path == "fp32" and dropout:  # the cast copy that dropout reads
            cast = 4 * m.d_in
        if m.kind == "mlp":  # the residual, and the norm output when this linear reads something else
            held = resid * h + (act * h if m.d_in != h else 0)
        else:  # the input norm's output while o_proj (or MLA's q_b/kv_b_proj) runs; q/k/v read it: their own input
            held = act * h if m.name == "o_proj" or m.d_in != h else 0
        best = max(best, own_input + cast + dropped + x_bytes * m.d_out + held)
    return float(max(best, moe))


def _moe_recompute_transient_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, mlp: int, resid: int) -> float:
    """Bytes per token a recomputed mixture-of-experts layer holds beyond its saved set (stacked experts only).

    transformers >= 5 runs the experts with ``grouped_mm_experts_forward`` (integrations/moe.py): the routed
    tokens sorted by expert go through the gate/up and down grouped matmuls, the down output (k x h per
    token) is multiplied by the fp32 routing weights (an fp32 k x h product) and summed back per token.
    Two moments compete: at the down matmul its input (k x i_moe, saved only when the experts train) is
    alive; at the weighting, the fp32 product. With frozen experts and router (LoRA on the attention only)
    the sorted copy of the hidden states (k x h) and the post-attention norm's output are locals, not saved
    (a frozen matmul and a frozen router linear need only their weights); the decoder layer's residual is a
    local either way. Mixtral-8x7B: full fine-tuning 4hk + 2h = 40,960 B per token; LoRA on q, v
    2ik + 2hk + 2h + 2h = 90,112 B per token, as traced op by op on fake tensors (docs/validation.md).
    """
    group = _layer_group(arch)
    if not arch.is_moe or not any(m.count > 1 for m in group):
        return 0.0
    h, k = arch.hidden_size, arch.experts_per_token
    trains = t.method == "full" or experts_adapted(arch, target_spec(t))
    frozen_locals = 0 if trains else act * h * k + act * h  # sorted hidden states and the norm output
    down = (0 if trains else mlp * arch.moe_intermediate_size * k) + frozen_locals + resid * h
    weigh = 4 * h * k + frozen_locals + resid * h
    return float(max(down, weigh))


def merged_expert_bytes(arch: ModelArchitecture, t: TrainingSetup, w_bytes: float) -> tuple[float, float]:
    """Bytes of ``W + delta-W`` that LoRA on stacked experts materialises: ``(one layer, all layers)``.

    PEFT's ``ParamWrapper`` applies the adapter to a 3-D expert tensor by parametrisation: every forward
    computes ``baddbmm(W, lhs, rhs)``, a new tensor of the whole expert stack in the weight dtype, and
    the expert matmul saves it for backward because it now needs a gradient (PEFT 0.21
    ``_LoraFactorsProxy``; PyTorch MemTracker measured ~2.8 GB per Mixtral-8x7B layer, docs/validation.md).
    Zero unless the method is LoRA/QLoRA and :func:`experts_adapted`.
    """
    if t.method == "full" or not experts_adapted(arch, target_spec(t)):
        return 0.0, 0.0
    per_group = [(n, _stacked_expert_params(mods) * w_bytes) for n, mods in arch.linear_modules()]
    return max((b for _, b in per_group), default=0.0), float(sum(n * b for n, b in per_group))


def _layer_group(arch: ModelArchitecture, mixer: str = "attention") -> list:  # noqa: ANN202 - list[LinearModule]
    """The modules of the layer the per-layer activation model describes: the MoE layers of a MoE model
    (after any leading dense layers), otherwise the first group (attention layers of a hybrid); with
    ``mixer="linear_attention"`` the Gated DeltaNet layers'."""
    groups = arch.linear_modules()
    if mixer == "linear_attention":
        return next(mods for _, mods in groups if any(m.kind == "linear_attention" for m in mods))
    if arch.is_moe:
        for _, mods in groups:
            if any(m.count > 1 for m in mods):
                return mods
    return groups[0][1]



def layer_saved_bytes_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, seq_len: int,
                                mlp: int | None = None, resid: int | None = None) -> tuple[float, float]:
    """Bytes one decoder layer saves for backward per token: ``(mean over the layers, largest layer)``.

    The two differ only in Gated DeltaNet hybrids, whose linear-attention layers save other tensors than their
    full-attention layers (:func:`gated_deltanet_saved_per_token`): the mean times the layers is what a step
    without checkpointing keeps, the largest is the layer checkpointing recomputes at its worst.
    """
    attn = _layer_saved_bytes_per_token(arch, t, act, seq_len, mlp, resid)
    if not arch.num_linear_attention_layers:
        return attn, attn
    linear = _layer_saved_bytes_per_token(arch, t, act, seq_len, mlp, resid, mixer="linear_attention")
    n_lin = arch.num_linear_attention_layers
    mean = (attn * (arch.num_layers - n_lin) + linear * n_lin) / arch.num_layers
    return mean, max(attn, linear) if arch.num_attention_layers else linear


def _layer_saved_bytes_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, seq_len: int,
                                 mlp: int | None = None, resid: int | None = None,
                                 mixer: str = "attention") -> float:
    """Bytes autograd saves for backward in one decoder layer, per token (see module docstring).

    ``act`` is the activation dtype size (2 for bf16/fp16, 4 for fp32); ``mlp`` the dtype size of the
    MLP intermediates (4 when bitsandbytes 4-bit layers read an fp32 residual stream and return its
    dtype, ``Linear4bit.forward``), ``resid`` that of the residual stream (default ``act``); ``mixer``
    ``attention`` (softmax attention) or ``linear_attention`` (a Gated DeltaNet layer of a hybrid).
    """
    mlp = act if mlp is None else mlp
    resid = act if resid is None else resid
    h, i = arch.hidden_size, arch.intermediate_size
    full = t.method == "full"
    lora = t.method in {"lora", "qlora"}
    adapted = _targets(arch, target_spec(t), t.stack) if lora else set()
    dropout = lora and t.lora_dropout > 0
    # Stacked experts adapted through PEFT's ParamWrapper run their matmul on W + delta-W, which needs a
    # gradient, so the matmul saves its input like a trained weight; ParamWrapper refuses dropout and
    # has no per-token LoRA branch (no lora_A outputs, no dropout copies).
    group = _layer_group(arch, mixer)
    experts = {m.name for m in group if m.count > 1}
    experts_train = full or (lora and experts_adapted(arch, target_spec(t)))

    # PEFT's plain LoRA layers cast the input to the fp32 adapter dtype (``_cast_input_dtype``) and autocast
    # casts it back for lora_A's matmul: each adapted matrix then saves its own bf16 copy of its input, with
    # or without dropout. Its bitsandbytes layers skip the cast under autocast (QLoRA), and an fp32 run or
    # adapters in the model dtype have nothing to cast, so there lora_A reads (and saves) the layer's input
    # itself when there is no dropout. Without autocast every PEFT layer casts to fp32 and lora_A saves that
    # fp32 copy (4 B per element), lora_B its fp32 r-wide input.
    path = _activation_adapter_path(t)
    own_copies = (path == "autocast" and t.method == "lora" and act != 4) or (path == "fp32" and act != 4)
    a_bytes = 4 if path == "fp32" else act
    hqq = hqq_base(arch, t)

    def saves_input(name: str) -> bool:
        # A linear saves its input when its own weight trains, or when a LoRA A matrix reads the
        # same tensor (no dropout, no cast; with dropout or a cast, A reads a new copy instead).
        if name in experts:
            return experts_train
        # bitsandbytes >= 0.43.2 (PR #1270): MatMul4Bit keeps only the NF4 weight (ctx.tensors =
        # (None, B)), so a frozen 4-bit base saves no input either; older releases kept A as well.
        # HQQ's default backend saves every quantised linear's input (hqq @e0b1d00 HQQMatmulNoCacheMul.setup_context:
        # ctx.save_for_backward(x, bias)), though no weight gradient is computed from it.
        return full or hqq or (name in adapted and not dropout and not own_copies)

    # RMSNorm upcasts its input to fp32 and saves that copy; LayerNorm saves its input. When the norm
    # weight trains, ``weight * x`` also saves the normalised x: in the input dtype for Llama-style
    # norms, in fp32 for Gemma's ``x.float() * (1 + weight.float())`` (MemTracker, docs/validation.md).
    gemma_norm = arch.model_type.startswith("gemma")
    compiled = compile_modelled(arch, t)
    norm_input = 4 if arch.norm == "rms" else act
    norm_weight_input = (4 if gemma_norm or resid == 4 else act) if full else 0
    n_norms = (1 if arch.parallel_block else 2) + arch.extra_norms_per_layer
    if compiled:
        # torch.compile: each RMSNorm keeps only its normalised value in the activation dtype (its backward, and
        # the weight's gradient, are computed from it and the per-token rsqrt), not the fp32 input copy; with an
        # fp32 residual stream one of them keeps an fp32 tensor
        saved = n_norms * act * h + (resid - act) * h
    else:
        saved = n_norms * (norm_input + norm_weight_input) * h
    if arch.qk_norm and mixer == "attention":  # per-head RMSNorm on q and k (compiled: their normalised values only)
        saved += (act if compiled else 4 + norm_weight_input) * (arch.q_dim + arch.kv_dim)

    if mixer == "linear_attention":
        saved += gated_deltanet_saved_per_token(arch, t, act, saves_input)
    elif arch.attn_output_gate:
        saved += _mha_attention_saved_per_token(arch, t, act, seq_len, saves_input)
        saved += gated_attention_output_saved_per_token(arch, t, act, saves_input)
    elif arch.is_mla:
        saved += mla_attention_saved_per_token(arch, t, act, seq_len, saves_input, compiled, norm_weight_input)
    else:
        saved += _mha_attention_saved_per_token(arch, t, act, seq_len, saves_input)

    # MLP (dense, or the routed experts' share of tokens plus any shared experts)
    shared = arch.shared_expert_intermediate_size if arch.is_moe else 0
    if arch.is_moe:
        routed = arch.moe_intermediate_size * arch.experts_per_token
        # router logits, and the experts' outputs (k x h) that the routing-weight multiply saves: the weights
        # need a gradient whenever the hidden state does (the router is a linear of it), trained or frozen
        saved += 4 * arch.num_experts + act * h * arch.experts_per_token
        if experts_train:  # the expert matmul saves its input, the hidden states sorted by expert (k x h)
            saved += act * h * arch.experts_per_token
    else:
        routed = i
    mlp_inputs = ("gate_proj", "up_proj") + (("shared_gate_proj", "shared_up_proj") if shared else ())
    if not arch.parallel_block and any(saves_input(n) for n in mlp_inputs):
        saved += act * h
    if arch.mlp == "gated":
        # gate, up, act(gate); compiled, act(gate) is recomputed from gate in backward (expert blocks too)
        saved += (2 if compiled else 3) * mlp * (routed + shared)
    else:
        saved += mlp * (routed + shared)  # pre-activation
    if saves_input("down_proj"):
        saved += mlp * routed  # input of down_proj
    if shared and saves_input("shared_down_proj"):
        saved += mlp * shared  # input of the shared expert's down_proj

    # what PEFT wraps: a fused projection (Phi-3's qkv_proj) is one adapted linear with one input copy and one lora_A
    peft_group = peft_layer_modules(arch, group, t.stack) if lora else group
    if dropout or own_copies:  # PEFT: lora_A saves its own copy of the input (dropped out: + a 1-byte mask)
        copied: set[str] = set()
        for m in peft_group:
            if m.name in adapted and m.count == 1:
                # compiled without dropout, identical casts of one input are computed and saved once (q/k/v share
                # the input norm's output, gate/up the post-attention norm's)
                source = _INPUT_OF.get(m.name, m.name) if compiled and not dropout else m.name
                if source in copied:
                    continue
                copied.add(source)
                saved += (a_bytes + (1 if dropout else 0)) * m.d_in
    if lora:
        adapted_mods = [m for m in peft_group if m.name in adapted and m.count == 1]
        saved += a_bytes * t.lora_rank * len(adapted_mods)  # lora_A outputs saved by lora_B
    return float(saved)


def _mha_attention_saved_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, seq_len: int,
                                   saves_input) -> float:  # noqa: ANN001 - Callable[[str], bool]
    """Bytes per token the q/k/v/o attention block saves (the Llama layer; see the module docstring)."""
    h = arch.hidden_size
    saved = 0.0
    # attention block inputs (q/k/v share the norm output; o reads the attention output)
    if any(saves_input(n) for n in ("q_proj", "k_proj", "v_proj")):
        saved += act * h
    # GQA: FlashAttention reads k/v at their own width; SDPA does too (``enable_gqa``) when no mask
    # is needed (fixed-length batches), but padded or packed batches pass a mask and transformers
    # expands k/v to every head with ``repeat_kv``; eager always expands.
    expands = t.attention == "eager" or (t.attention == "sdpa" and t.sequence_mode != "fixed")
    kv_width = arch.q_dim if expands and arch.num_kv_heads != arch.num_attention_heads else arch.kv_dim
    saved += act * (arch.q_dim + 2 * kv_width)  # q and k after RoPE, v
    if t.attention == "eager":
        saved += 6 * arch.num_attention_heads * seq_len  # fp32 softmax + bf16 probabilities
        if saves_input("o_proj"):
            saved += act * arch.q_dim
    else:
        saved += act * arch.q_dim + 4 * arch.num_attention_heads  # output + fp32 log-sum-exp
    return saved


def gated_attention_output_saved_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int,
                                           saves_input) -> float:  # noqa: ANN001 - Callable[[str], bool]
    """Bytes per token the attention output gate (Qwen3-Next/Qwen3.5) adds to the plain attention block.

    ``Qwen3NextAttention.forward`` (@7515843b): ``query, gate = torch.chunk(q_proj(x).view(..., 2 head_dim))`` and
    ``attn_output * torch.sigmoid(gate)`` before ``o_proj``. ``sigmoid`` saves its output (``e q_dim``; the strided
    gate's ``reshape`` copy is freed after it), and the product saves both factors: that output and the ungated
    attention output. The plain accounting (:func:`_mha_attention_saved_per_token`) holds one attention-output
    tensor: the kernel's saved output under FlashAttention/SDPA, which the product's saved factor shares, or under
    eager ``o_proj``'s input when it trains. So beyond it: the sigmoid output, plus ``e q_dim`` for the gated product
    ``o_proj`` saves when it trains (FlashAttention/SDPA), or under eager for the ungated output the product keeps
    (``e q_dim`` either way).
    """
    extra = 1 + (1 if t.attention == "eager" or saves_input("o_proj") else 0)
    return float(extra * act * arch.q_dim)


def gated_deltanet_saved_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, saves_input) -> float:  # noqa: ANN001
    """Bytes per token one Gated DeltaNet layer's token mixer saves for backward.

    Read from transformers' ``Qwen3NextGatedDeltaNet.forward`` (``modeling_qwen3_next.py`` @7515843b; the Qwen3.5
    module @d8c1e284 is the same after its split projections) on its fast path (causal-conv1d's
    ``causal_conv1d_fn`` and flash-linear-attention's ``chunk_gated_delta_rule``; the torch fallback is a Python loop
    over chunks nobody trains with), with ``K = key_dim``, ``V = value_dim``, ``n_v`` value heads, ``d_k`` the key
    head dim, ``C = 64`` the kernel's chunk and ``e`` the activation dtype size:

    * the input norm's output (``e h``) when an input projection trains;
    * ``causal_conv1d_fn`` saves its input, the concatenated q/k/v (``e (2K + V)``), and applies SiLU inside;
    * ``beta = b.sigmoid()`` saves its output (``e n_v``, the same tensor the kernel saves); the decay
      ``g = -exp(A_log) x softplus(a.float() + dt_bias)`` saves softplus's fp32 input (``4 n_v``) and, when
      ``A_log`` trains, the softplus output (``4 n_v``);
    * ``repeat_interleave`` gives q and k ``n_v`` heads; ``ChunkGatedDeltaRuleFunction.forward`` (fla
      ``ops/gated_delta_rule/chunk.py`` @92396f25) L2-normalises them inside and saves ``q, q_rstd, k, k_rstd, v,
      g, beta, A``: q and k normalised (``e n_v d_k`` each), their fp32 inverse norms (``4 n_v`` each), v (``e V``,
      made contiguous by ``input_guard``), the chunk-cumulated fp32 decay (``4 n_v``) and the WY matrix ``A``
      (``n_v x C`` per token in the key dtype, ``e n_v C``). The per-chunk recurrent states ``h`` (``n_v d_k d_v``
      per 64 tokens) are not saved: the backward recomputes them (``chunk_gated_delta_rule_bwd``);
    * the gated RMSNorm (fla ``FusedRMSNormGated``) saves its input and the gate ``z`` (``e V`` each) and an fp32
      inverse norm per head (``4 n_v``);
    * ``out_proj`` saves the norm's output (``e V``) when it trains.

    Qwen3-Next-80B-A3B (K 2048, V 4096, n_v 32, d_k 128), bf16, LoRA on every linear without dropout:
    ``2h + 2 x 8192 + 2 x 32 + 4 x 32 + 2 (2 x 2 x 32 x 128 + 4 x 32) + 2 x 4096 + 4 x 32 + 2 x 32 x 64 + (2 + 2)
    x 4096 + 4 x 32 + 2 x 4096`` (tests).
    """
    nv, dk = arch.linear_num_value_heads, arch.linear_key_head_dim
    v = arch.linear_value_dim
    saved = 0.0
    if any(saves_input(m.name) for m in arch.linear_attention_modules() if m.name != "out_proj"):
        saved += act * arch.hidden_size
    saved += act * arch.linear_conv_dim  # causal_conv1d_fn's input
    saved += act * nv  # beta (sigmoid output)
    saved += 4 * nv + (4 * nv if t.method == "full" else 0)  # softplus input; its output when A_log trains
    saved += 2 * (act * nv * dk + 4 * nv)  # normalised q and k at n_v heads, their fp32 inverse norms
    saved += act * v + 4 * nv  # v, the cumulated fp32 decay g
    saved += act * nv * GDN_CHUNK  # A, the WY representation of each chunk
    saved += 2 * act * v + 4 * nv  # gated RMSNorm: its input and z, fp32 rstd per head
    if saves_input("out_proj"):
        saved += act * v
    return float(saved)


#: Tokens per chunk of flash-linear-attention's chunked gated delta rule (``chunk_local_cumsum(g, chunk_size=64)``
#: and the ``[B, T, H, 64]`` WY matrix ``A`` in ``chunk_gated_delta_rule_fwd``, fla @92396f25).
GDN_CHUNK = 64


def mla_attention_saved_per_token(arch: ModelArchitecture, t: TrainingSetup, act: int, seq_len: int,
                                  saves_input, compiled: bool = False,  # noqa: ANN001 - Callable[[str], bool]
                                  norm_weight_input: int = 0) -> float:
    """Bytes per token one multi-head latent attention block saves for backward.

    Read from transformers ``DeepseekV2Attention.forward`` (``modeling_deepseek_v2.py`` @0233e509; the V3 module
    at f5a9ec51 is the same with ``q_a_proj`` always present), with ``n`` heads, ``d_qk = qk_nope + qk_rope``,
    ``d_v = v_head_dim``, ``r_kv = kv_lora_rank``, ``r_q = q_lora_rank`` and ``e`` the activation dtype size:

    * the input norm's output (``e h``) when ``q_proj``/``q_a_proj``/``kv_a_proj_with_mqa`` trains;
    * ``kv_a_layernorm`` and ``q_a_layernorm``: RMSNorm's fp32 input copy ``4 (r_kv + r_q)`` (plus the normalised
      value when the norm weights train; compiled: the normalised value only, ``e (r_kv + r_q)``), and the norm
      outputs ``e r_kv`` / ``e r_q`` when ``kv_b_proj`` / ``q_b_proj`` train;
    * the rotary embedding multiplies by constant tables (V2: complex ``freqs_cis``; V3: cos/sin), so it saves
      nothing per token; ``torch.cat`` saves nothing;
    * the kernel's inputs: the query and the key after the concatenation, ``e n d_qk`` each (the key holds the one
      rotary key ``k_pe`` broadcast to every head by ``expand``), and the values. With FlashAttention transformers
      pads the values to ``d_qk`` (``F.pad(value_states, [0, qk_head_dim - v_head_dim])`` when
      ``is_flash_attention_requested``), a new ``e n d_qk`` tensor, and the kernel saves its padded output
      (``e n d_qk``) and the fp32 log-sum-exp (``4 n``); the output sliced back to ``d_v`` is copied by
      ``reshape`` and saved again (``e n d_v``) when ``o_proj`` trains. SDPA and eager keep the values as a
      view of ``kv_b_proj``'s output, so its whole storage ``e n (qk_nope + d_v)`` stays alive; SDPA saves its
      ``e n d_v`` output and log-sum-exp, eager the softmax (``6 n s``) and ``o_proj``'s input when it trains.

    DeepSeek-V2-Lite (n 16, d_qk 192, d_v 128, r_kv 512, no r_q), bf16, full fine-tuning with FlashAttention:
    ``2h + (4+2) 512 + 2 x 512 + 2 x 16 x 192 x 4 + 4 x 16 + 2 x 16 x 128`` bytes per token (tests).
    """
    h, n = arch.hidden_size, arch.num_attention_heads
    d_qk, d_v = arch.head_dim, arch.value_head_dim
    saved = 0.0
    if any(saves_input(name) for name in _ATTN_INPUT_READERS):
        saved += act * h
    # the low-rank RMSNorms (kv_a_layernorm, q_a_layernorm) and the up-projections' inputs
    saved += (act if compiled else 4 + norm_weight_input) * arch.mla_norm_width()
    if saves_input("kv_b_proj"):
        saved += act * arch.kv_lora_rank
    if arch.q_lora_rank and saves_input("q_b_proj"):
        saved += act * arch.q_lora_rank
    saved += act * 2 * n * d_qk  # query and key after torch.cat
    if t.attention in {"flash", "flash1"}:
        saved += act * n * d_qk  # the values padded to d_qk
        saved += act * n * d_qk + 4 * n  # padded output + fp32 log-sum-exp
        if saves_input("o_proj") and d_v != d_qk:
            saved += act * n * d_v  # the output sliced to d_v, copied by reshape
    else:
        saved += act * n * (arch.qk_nope_head_dim + d_v)  # kv_b_proj's output, held by the value view
        if t.attention == "eager":
            saved += 6 * n * seq_len
            if saves_input("o_proj"):
                saved += act * n * d_v
        else:
            saved += act * n * d_v + 4 * n  # output + fp32 log-sum-exp
    return float(saved)


#: Alignment SDPA's memory-efficient backend needs of the bias's strides (elements): an unaligned mask is copied
#: into one whose last dimension is padded to a multiple of it (``preprocess_mask`` / ``pad_bias``, ``mem_eff_alignment``
#: 8, pytorch/pytorch ``aten/src/ATen/native/transformers/attention.cpp``, PyTorch 2.5 and later).
SDPA_BIAS_ALIGNMENT = 8


def sdpa_mask_bytes(ctx: MemoryContext) -> tuple[float, float]:
    """The padding mask of SDPA attention on a padded micro-batch (:func:`~tuneplan.core.stacks.sdpa_padding_mask`):
    ``(model_mask, per_layer_bias)`` in bytes, both 0 when the plan has none.

    Counted under dynamic padding with more than one row, where the rows of a micro-batch differ in length. Fixed
    rows are costed as the memory model's validation ran them, full-length rows with no padding, for which
    transformers passes no mask (and SDPA reads k/v at their own width, :func:`_mha_attention_saved_per_token`); a
    fixed batch of shorter examples padded to ``seq_len`` carries this mask too, which is not counted.

    * ``model_mask``: transformers builds one boolean mask of ``rows x 1 x L x L`` (1 B per element) before the first
      layer (``masking_utils.sdpa_mask_recent_torch`` on torch 2.6+, ``sdpa_mask_older_torch`` before; both
      materialise it; huggingface/transformers @2ccc6ca), two where sliding-window and full-attention layers mix,
      and hands it to every layer. Nothing the backward keeps refers to it unless checkpointing keeps it as each
      layer's input, so :func:`step_activations` counts it under checkpointing only.
    * ``per_layer_bias``: every SDPA call turns the boolean mask into an additive one in the query's dtype
      (``convert_boolean_attn_mask``: ``at::where(!mask, -inf, 0)``), padded to a last dimension of a multiple of
      :data:`SDPA_BIAS_ALIGNMENT` when ``L`` is not one, and ``_scaled_dot_product_efficient_attention`` saves it for
      its backward (pytorch/pytorch ``aten/src/ATen/native/transformers/attention.cpp``): ``rows x L x
      ceil8(L) x`` activation bytes per attention layer, one layer's at a time under checkpointing.
    """
    arch = ctx.arch
    if not sdpa_padding_mask(ctx.t) or ctx.t.sequence_mode != "dynamic" or arch.num_attention_layers == 0:
        return 0.0, 0.0
    length = float(ctx.t.seq_len)
    padded = math.ceil(length / SDPA_BIAS_ALIGNMENT) * SDPA_BIAS_ALIGNMENT
    # models that mix sliding-window and full-attention layers build one mask of each kind
    # (create_sliding_window_causal_mask beside create_causal_mask)
    sw = arch.sliding_window_layers
    kinds = 2.0 if arch.sliding_window and sw is not None and 0 < sw < arch.num_layers else 1.0
    return kinds * ctx.rows * length * length, ctx.rows * length * padded * ctx.act


def _attention_layers_here(ctx: MemoryContext) -> float:
    """Attention layers on this GPU (linear-attention and state-space layers take no mask)."""
    arch = ctx.arch
    return arch.num_attention_layers * ctx.layers_here / max(arch.num_layers, 1)


@dataclass(frozen=True)
class StepActivations:
    """The activations of one step on one GPU (``bytes``, at the loss's backward with the recomputed layer's set
    counted in) with their ``formula``, and the per-layer and per-token parts the moments of the step reuse:
    ``per_layer_token`` and ``checkpoint_token`` (bytes per token), ``one_layer`` (one layer's saved set with its
    experts' ``W + delta-W``, bytes), ``head_saved`` (the final norm's and LM head's saved inputs, bytes per token),
    ``adapter_cast_per_layer`` and ``forward_cache`` (autocast copies of LoRA adapters, bytes) and
    ``recompute_transient_per_token`` (bytes per token, :func:`recompute_transient_per_token`)."""

    bytes: float
    formula: str
    per_layer_token: float
    checkpoint_token: float
    one_layer: float
    merged_one: float
    head_saved: float
    adapter_cast_per_layer: float
    forward_cache: float
    recompute_transient_per_token: float


def step_activations(ctx: MemoryContext, lora_params: int) -> StepActivations:
    """Saved activations of the step: every layer's saved set (:func:`layer_saved_bytes_per_token`) x tokens, or
    with checkpointing each layer's input (Chen et al. 2016, arXiv:1604.06174) and one recomputed layer; CPU
    activation offload keeps two layers; the bf16 autocast copies of fp32 LoRA adapters (MemTracker,
    docs/validation.md); the final norm's and LM head's saved inputs."""
    arch, t, act, tokens = ctx.arch, ctx.t, ctx.act, ctx.tokens
    layers_here = ctx.layers_here
    per_layer_token, largest_layer_token = layer_saved_bytes_per_token(arch, t, act, t.seq_len, mlp=ctx.mlp_bytes,
                                                                       resid=ctx.resid)
    checkpoint_token = ctx.resid * arch.hidden_size  # the layer input kept by checkpointing
    merged_one, merged_all = merged_expert_bytes(arch, t, ctx.unq if t.method == "qlora" else ctx.w_bytes)
    model_mask, bias = sdpa_mask_bytes(ctx)
    # one layer's saved set, its W + delta-W and its SDPA call's additive padding mask included
    one_layer = largest_layer_token * tokens + merged_one + bias
    if t.grad_checkpointing:
        value = layers_here * checkpoint_token * tokens + one_layer
        formula = (f"checkpoints {layers_here:g} layers x {checkpoint_token} B x {tokens} tokens"
                   f" + one recomputed layer {largest_layer_token / 1024:.1f} KiB/token")
        if merged_one:
            formula += f" + its experts' W + delta-W {merged_one / GIB:.2f} GiB (PEFT ParamWrapper)"
    else:
        value = (layers_here * per_layer_token * tokens + merged_all * layers_here / arch.num_layers
                 + _attention_layers_here(ctx) * bias)
        formula = f"{layers_here:g} layers x {per_layer_token / 1024:.1f} KiB/token x {tokens} tokens"
        if merged_all:
            formula += (f" + the experts' W + delta-W {merged_all * layers_here / arch.num_layers / GIB:.2f}"
                        " GiB (PEFT ParamWrapper)")
    if t.activation_offload:
        kept = 2 * (checkpoint_token * tokens if t.grad_checkpointing else one_layer)
        if kept + (one_layer if t.grad_checkpointing else 0) < value:  # the formula names what the number holds
            value = kept + (one_layer if t.grad_checkpointing else 0)
            layers_kept = 1 if t.grad_checkpointing else 2  # the recomputed layer, or the two kept whole
            formula = (f"checkpoints of 2 layers x {checkpoint_token} B x {tokens} tokens + one recomputed layer "
                       f"{largest_layer_token / 1024:.1f} KiB/token" if t.grad_checkpointing else
                       f"2 layers x {largest_layer_token / 1024:.1f} KiB/token x {tokens} tokens")
            if merged_one:
                formula += (f" + {'its' if layers_kept == 1 else 'their'} experts' W + delta-W "
                            f"{layers_kept * merged_one / GIB:.2f} GiB (PEFT ParamWrapper)")
            if bias:
                formula += f" + SDPA's additive padding mask {layers_kept * bias / 2**20:.1f} MiB"
            formula += " (the other layers' activations offloaded to CPU)"
    if compile_modelled(arch, t):
        formula += " (torch.compile: norms keep bf16 normalised values, SiLU recomputed)"
    adapter_cast_per_layer = forward_cache = 0.0
    if _activation_adapter_path(t) == "autocast":
        # autocast casts the fp32 adapters to bf16 for each matmul and saves the casts for backward:
        # every layer's without checkpointing, the recomputed layer's with it (MemTracker, docs/validation.md)
        casts = 2 * lora_params / (arch.num_layers if t.grad_checkpointing else 1)
        value += casts
        formula += (f" + bf16 autocast copies of {'one layer' if t.grad_checkpointing else 'every layer'}"
                    f"'s LoRA adapters ({casts / 2**20:.1f} MiB)")
        # with checkpointing the other layers' copies stay in autocast's cache until the forward ends
        adapter_cast_per_layer = 2 * lora_cast_parameter_count(arch, t.lora_rank, target_spec(t), t.stack) / arch.num_layers
        # (never under ZeRO/FSDP: _activation_adapter_path is "native" there, nothing is cast)
        if t.grad_checkpointing:
            forward_cache = adapter_cast_per_layer * max(layers_here - 1, 0)
    if model_mask:
        # the model's boolean mask is a checkpointed layer's input (kept all step); without checkpointing it is freed
        # when the model's forward returns. Each attention layer's saved additive copy is part of that layer's saved
        # set (one_layer; under checkpointing the recomputed layer's only)
        value += model_mask if t.grad_checkpointing else 0.0
        whose = "the recomputed layer's" if t.grad_checkpointing else f"{_attention_layers_here(ctx):g} attention layers'"
        kept = f"SDPA's boolean padding mask {model_mask / 2**20:.1f} MiB and " if t.grad_checkpointing else "SDPA's "
        formula += f" + {kept}{whose} additive copy of the padding mask {bias / 2**20:.1f} MiB" + (
            "" if t.grad_checkpointing else " each")
    # final norm (+ its output saved by a trainable LM head) and the embedding output
    head_saved = (4 if arch.norm == "rms" else act) * arch.hidden_size + (2 * act * arch.hidden_size if t.method == "full" else 0)
    if t.workload == "reward" and t.method != "full":
        # PEFT's sequence-classification task trains the value head (``score`` in modules_to_save): it saves its input
        head_saved += act * arch.hidden_size
    value += head_saved * tokens
    formula += (f" + the final norm's saved input{' and the LM head input' if t.method == 'full' else ''}"
                f" {head_saved:,.0f} B/token x {tokens} tokens")
    return StepActivations(
        bytes=value, formula=formula, per_layer_token=per_layer_token, checkpoint_token=checkpoint_token,
        one_layer=one_layer, merged_one=merged_one, head_saved=head_saved,
        adapter_cast_per_layer=adapter_cast_per_layer, forward_cache=forward_cache,
        recompute_transient_per_token=recompute_transient_per_token(arch, t, act, ctx.mlp_bytes, ctx.resid))


@dataclass(frozen=True)
class LossSide:
    """The loss side at the loss's backward (bytes), its formula (empty: rendered from ``terms``, a workload's)."""

    bytes: float
    formula: str
    terms: list[Term]


def loss_side(ctx: MemoryContext) -> LossSide:
    """Logits and loss buffers when the loss's backward runs: transformers' fp32 cross-entropy (log-softmax and two
    fp32 gradients, 12 B per vocabulary entry and token; ``ForCausalLMLoss``, MemTracker), one chunk with a
    fused/chunked loss (arXiv:2411.09009), TRL's log-prob tensors (``core/workload.py``), a value head's scores;
    plus the bf16 autocast copy of an fp32 LM head (autograd ``MmBackward0.mat2``)."""
    arch, t, act, tokens = ctx.arch, ctx.t, ctx.act, ctx.tokens
    v = arch.vocab_size
    terms: list[Term] = []  # the loss side of a workload other than SFT, as terms
    formula = ""  # a workload other than SFT: rendered from the terms (_workload_components)
    if t.workload == "reward":
        # the value head's scores (rows x positions x 1) in the forward, their gradient in the backward
        value = float(tokens * act)
        terms = [Term(key="value_head", value=value, unit="B", parts=(
            Quantity(key="tokens", value=tokens, unit="tokens"), Quantity(key="elem_bytes", value=act, unit="B")),
            source="transformers GenericForSequenceClassification: score = nn.Linear(hidden, 1)")]
    elif t.fused_cross_entropy:
        chunk = min(tokens, 8192)
        value = chunk * v * (act + 4 + 4) / 8  # one chunk of logits at a time (chunked CE, 8 chunks)
        formula = f"fused/chunked cross-entropy: one chunk of {chunk // 8} tokens x {v} vocab"
    elif not wl.causal_lm(t):
        # TRL's selective_log_softmax on the policy's logits (core/workload.py LOGPROB_TENSORS): at the loss's backward
        _held, _peak, backward = wl.logprob_tensors(t, act)
        value = ctx.logit_tokens * v * act * backward
        terms = [_logps_term(ctx.logit_tokens, v, act, backward, "backward")]
        if ctx.fp32_head_cast:  # the fp32 head's bf16 cast, saved as for SFT below
            value += 2 * v * arch.hidden_size
    else:
        # When the loss's backward runs, the model output (the logits) has been dropped by the training
        # loop; the fp32 log-softmax saved by cross_entropy and two fp32 gradients (of the log-softmax
        # and of its input) are alive together: 12 B per vocabulary entry and token (MemTracker,
        # docs/validation.md). In the forward pass the peak is 10 B (logits + fp32 copy + log-softmax).
        # (logits of at most 4 B + two fp32 gradients never exceed the 12 B: the dtype of the logits does not matter)
        per_token = v * (4 + 4 + 4)
        value = tokens * per_token
        formula = f"{tokens} tokens x {v} vocab x 12 B (fp32 log-softmax and two fp32 gradients)"
        if ctx.fp32_head_cast:  # only where autocast casts an fp32 head
            # an fp32 LM head (PEFT's QLoRA upcast, fp32 master model) is cast to bf16 for its matmul under
            # autocast, and the cast stays saved until the head's backward, right after the loss's
            # (autograd MmBackward0.mat2, bf16; seen on fake tensors with transformers 5)
            value += 2 * v * arch.hidden_size
            formula += f" + bf16 autocast copy of the fp32 LM head ({v} x {arch.hidden_size} x 2 B)"
    return LossSide(bytes=value, formula=formula, terms=terms)


def layer_temporaries(ctx: MemoryContext) -> tuple[float, float]:
    """Transient per-layer buffers (bytes): ``(base, all)``. Base: the gradient flowing between layers (two
    buffers of the residual stream) and QLoRA's dequantised bf16 copy of the matrix being multiplied (bitsandbytes
    ``dequantize_4bit``), or on an 8-bit base the larger LLM.int8 working set (:func:`int8_matmul_transient`), or on an
    HQQ base its dequantisation's three copies (:func:`hqq_dequant_transient`); all: with eager attention's scores, mask and fp32 cast (8 B per head and score)."""
    arch, t = ctx.arch, ctx.t
    base = 2 * ctx.resid * arch.hidden_size * ctx.tokens  # gradient flowing between layers (two buffers)
    if int8_base(arch, t):  # LLM.int8's quantised input and int32 product, or the weight copy
        base += int8_matmul_transient(arch, ctx.tokens, fp16=t.precision == "fp16")
    elif hqq_base(arch, t):  # HQQ's dequantisation: three full-size copies alive at its multiply
        base += hqq_dequant_transient(arch, t)
    elif quantized_frozen_base(arch, t):
        largest = max(m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods if m.count == 1)
        base += 2 * largest  # dequantised bf16 copy of the matrix being multiplied
    temporaries = base
    if t.attention == "eager":
        temporaries += ctx.rows * arch.num_attention_heads * t.seq_len * t.seq_len * 8  # scores, mask, fp32 cast
    return base, temporaries
