"""LoRA adapters as PEFT builds them: which modules a target preset adapts, the adapter matrices' shapes, their
parameter counts, and the path (dtype, casts) the adapters run on."""

from __future__ import annotations

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.scenario import TrainingSetup

#: MoE model types whose stacked experts PEFT's ``all-linear`` adapts (PEFT 0.21
#: ``utils/transformers_weight_conversion.py``: the types transformers' ``_MODEL_TO_CONVERSION_PATTERN`` maps
#: to the ``mixtral`` or ``qwen2_moe`` conversion, plus ``mixtral`` itself). For every other MoE type
#: (``qwen2_moe`` itself, ``gpt_oss``, ``llama4``, ...) ``all-linear`` only reaches ``nn.Linear`` modules and
#: the 3-D expert tensors stay frozen (checked with PEFT 0.21 on tiny qwen2_moe, qwen3_moe, olmoe, gpt_oss).
PEFT_EXPERT_TARGET_TYPES = frozenset({
    "mixtral", "minimax", "minimax_m2", "afmoe", "deepseek_v2", "deepseek_v3", "deepseek_v32", "dots1",
    "ernie4_5_moe", "glm4_moe", "glm4_moe_lite", "glm_moe_dsa", "glm4v_moe", "longcat_flash", "solar_open",
    "mellum", "qwen3_moe", "qwen3_omni_moe", "qwen3_omni_moe_thinker", "qwen3_next", "hunyuan_v1_moe",
    "flex_olmo", "olmoe", "exaone_moe", "cohere2_moe",
})

#: bitsandbytes' paged optimizers put a state tensor in unified memory only when its parameter has at
#: least this many elements; smaller ones get an ordinary device tensor (``Optimizer8bit.get_state_buffer``).
PAGED_MIN_NUMEL = 100_000


#: What the attention presets mean for multi-head latent attention (Tuneplan's choice; the MLA modules have no
#: k_proj or v_proj, and PEFT matches names exactly, so ``["q_proj", "v_proj"]`` would adapt only DeepSeek-V2-Lite's
#: q_proj and nothing at all on DeepSeek-V3): ``q_v`` adapts the query path and ``kv_b_proj``, the projection the
#: values (and the non-rotary keys) come from; ``qkvo`` every attention linear.
MLA_TARGETS = {
    "q_v": ("q_proj", "q_a_proj", "q_b_proj", "kv_b_proj"),
    "qkvo": ("q_proj", "q_a_proj", "q_b_proj", "kv_a_proj_with_mqa", "kv_b_proj", "o_proj"),
}


#: Stacks whose LoRA does not wrap a fused Hugging Face module as one: torchtune converts checkpoints to its own
#: split ``q_proj``/``k_proj``/``v_proj`` (``torchtune/models/phi3/_convert_weights.py``), and LitGPT's
#: ``LoRAQKVLinear`` gives each enabled part of its fused ``qkv`` its own ``r`` rows of ``lora_A``
#: (``litgpt/lora.py``: ``lora_A`` of ``r x sum(enable_lora)`` by ``in_features``); Unsloth trains its own uploads of
#: Phi-3 and Phi-4, converted to the split Llama/Mistral layout ("Llamafied": the unsloth/phi-4 and
#: unsloth/Phi-3-mini-4k-instruct model cards), with its Llama target names. Everything else builds on PEFT.
SPLIT_LORA_STACKS = frozenset({"torchtune", "litgpt", "unsloth"})


def peft_fuses(arch: ModelArchitecture, stack: str | None = None) -> bool:
    """Whether LoRA adapts this model's fused projections as one module each (PEFT on a family with
    :meth:`ModelArchitecture.fused_projections`, on any stack but :data:`SPLIT_LORA_STACKS`)."""
    return bool(arch.fused_projections()) and stack not in SPLIT_LORA_STACKS


#: What LoRA adapts: a preset name (``q_v``, ``qkvo``, ``all-linear``) or the exact module names of
#: ``TrainingSetup.lora_modules`` (:func:`target_spec`).
Targets = str | tuple[str, ...]


def target_spec(t: TrainingSetup) -> Targets:
    """The plan's LoRA targets as the adapter functions take them: ``t.lora_modules`` when it names modules, else the
    preset ``t.lora_targets``."""
    return t.lora_modules if t.lora_modules else t.lora_targets


#: Parent module names of the attention and MLP projections in transformers' decoder layers (``self_attn`` in Llama,
#: Qwen, Mistral, Phi-3; ``attention`` in GPT-NeoX and InternLM; ``self_attention`` in ChatGLM and Falcon; ``attn`` in
#: GPT-2/Qwen-v1; ``mlp``, ``feed_forward`` in InternLM2/Mixtral-style code, ``block_sparse_moe`` for shared experts).
_ATTENTION_PARENTS = frozenset({"self_attn", "attention", "self_attention", "attn"})
_MLP_PARENTS = frozenset({"mlp", "feed_forward", "ffn", "block_sparse_moe", "shared_expert", "shared_experts"})


def named_modules(arch: ModelArchitecture, names: tuple[str, ...]) -> tuple[set[str], list[str]]:
    """``(matched, unknown)``: the per-layer projections that PEFT's ``target_modules`` names match, and the names
    that match no linear module of the model. PEFT matches a name against the end of each module's dotted path
    (``tuners_utils.check_target_module_exists``), so ``self_attn.q_proj`` and ``q_proj`` are one name; a name may be
    the model's own (``query_key_value``, ``dense`` on GPT-NeoX: :meth:`ModelArchitecture.hf_module_name`) or a fused
    module's (``qkv_proj`` on Phi-3: every part of it); ``all-linear`` is every linear layer but the LM head."""
    # (stacked experts are parameters of one module, not nn.Linear modules: no name reaches them)
    mods = {m.name for _, group in arch.linear_modules() for m in group if m.kind != "router" and m.count == 1}
    attention = {m.name for m in arch.attention_modules()}
    fused = dict(arch.fused_projections())
    matched: set[str] = set()
    unknown: list[str] = []
    for raw in names:
        parts = raw.split(".")
        n = parts[-1]
        if len(parts) == 1 and n.lower() in {"all-linear", "all_linear"}:
            matched |= mods
            continue
        hit = ({m for m in mods if m == n or arch.hf_module_name(m) == n} | set(fused.get(n, ()))) & mods
        if len(parts) > 1 and hit:
            # a dotted name must be the end of a real path: its parent the attention or the MLP block that holds
            # the module (``self_attn.q_proj``, ``mlp.down_proj``); an empty part (``.q_proj``), a layer index
            # (``layers.0.self_attn.q_proj``: one layer, which the plan cannot count alone) or another parent match
            # nothing here
            parent = parts[-2]
            in_attention = hit <= attention
            ok = all(parts) and not any(p.isdigit() for p in parts) and (
                parent in _ATTENTION_PARENTS if in_attention else parent in _MLP_PARENTS)
            hit = hit if ok else set()
        if hit:
            matched |= hit
        else:
            unknown.append(raw)
    return matched, unknown


def _targets(arch: ModelArchitecture, targets: Targets, stack: str | None = None) -> set[str]:
    """The projections (names of the per-layer model) a preset adapts, or the exact module names
    (:func:`named_modules`); on a fused family under PEFT every part of a fused module one of them belongs to, and
    the fused module's own name (PEFT can only wrap the whole module: ``q_v`` on Phi-3 adapts ``qkv_proj``, keys
    included)."""
    if isinstance(targets, tuple):
        wanted = named_modules(arch, targets)[0]
        if peft_fuses(arch, stack):
            for fused, parts in arch.fused_projections():
                if wanted & set(parts):
                    wanted |= set(parts) | {fused}
        return wanted
    if arch.is_mla and targets in MLA_TARGETS:
        present = {m.name for m in arch.attention_modules()}
        return set(MLA_TARGETS[targets]) & present
    if targets == "q_v":
        wanted = {"q_proj", "v_proj"}
    elif targets == "qkvo":
        wanted = {"q_proj", "k_proj", "v_proj", "o_proj"}
    else:
        wanted = {m.name for _, mods in arch.linear_modules() for m in mods if m.kind != "router"}
    if peft_fuses(arch, stack):
        for fused, parts in arch.fused_projections():
            if wanted & set(parts):
                wanted |= set(parts) | {fused}
    return wanted


def peft_layer_modules(arch: ModelArchitecture, mods: list, stack: str | None = None) -> list:  # noqa: ANN001
    """One layer's linear modules as the LoRA library sees them: under :func:`peft_fuses` the parts of each fused
    projection (:meth:`ModelArchitecture.fused_projections`) become one module of that name, ``d_in`` of the parts
    (they read the same input) and ``d_out`` their sum; otherwise ``mods`` itself. Stacked experts are never merged.
    """
    if not peft_fuses(arch, stack):
        return mods
    part_of = {p: fused for fused, parts in arch.fused_projections() for p in parts}
    out: list = []
    merged: dict[str, int] = {}
    for m in mods:
        fused = part_of.get(m.name) if m.count == 1 else None
        if fused is None:
            out.append(m)
        elif fused in merged:
            k = merged[fused]
            out[k] = out[k].model_copy(update={"d_out": out[k].d_out + m.d_out, "bias": out[k].bias or m.bias})
        else:
            merged[fused] = len(out)
            out.append(m.model_copy(update={"name": fused}))
    return out


def lora_target_modules(arch: ModelArchitecture, targets: Targets, stack: str | None = None) -> list[str]:
    """The Hugging Face module names a LoRA preset adapts in this architecture, in layer order (``all-linear`` as
    itself): what PEFT's ``target_modules`` must say.

    ``q_v`` and ``qkvo`` are ``q_proj, v_proj`` and ``q_proj, k_proj, v_proj, o_proj``, except under multi-head
    latent attention (:data:`MLA_TARGETS`): ``q_proj`` (or ``q_a_proj, q_b_proj``) and ``kv_b_proj`` for ``q_v``,
    every attention linear for ``qkvo``; families with other names say theirs
    (:meth:`ModelArchitecture.hf_module_name`): ``qkv_proj`` for ``q_v`` on Phi-3, ``query_key_value, dense`` for
    ``qkvo`` on GPT-NeoX.
    """
    if targets == "all-linear":
        return ["all-linear"]
    wanted = _targets(arch, targets, stack)
    if isinstance(targets, tuple):  # the names as the model has them, in layer order; none matched: as given
        order = [m.name for _, group in arch.linear_modules() for m in group if m.kind != "router"]
        return list(dict.fromkeys(arch.hf_module_name(n) for n in order if n in wanted)) or list(targets)
    if arch.is_mla:
        return [m.name for m in arch.attention_modules() if m.name in wanted]
    names = [n for n in ("q_proj", "k_proj", "v_proj", "o_proj") if n in wanted]
    return list(dict.fromkeys(arch.hf_module_name(n) for n in names))


def experts_adapted(arch: ModelArchitecture, targets: Targets) -> bool:
    """Whether LoRA with these targets adapts the stacked experts (PEFT ``ParamWrapper``), see
    :data:`PEFT_EXPERT_TARGET_TYPES` (not by module names: the stacked experts are parameters, not modules)."""
    return arch.is_moe and targets == "all-linear" and arch.model_type in PEFT_EXPERT_TARGET_TYPES


def _is_adapted(arch: ModelArchitecture, m, wanted: set[str], targets: Targets) -> bool:  # noqa: ANN001 - LinearModule
    """Whether LoRA adapts module ``m`` (a module of :func:`peft_layer_modules`) given :func:`_targets`' set."""
    if m.count > 1:
        return m.name in wanted and experts_adapted(arch, targets)
    return m.name in wanted


def lora_tensors(arch: ModelArchitecture, rank: int, targets: Targets, stack: str | None = None) -> list[tuple[int, int, int]]:
    """Every LoRA weight matrix as ``(how many in the model, rows, columns)``.

    A plain adapted linear (``d_in`` -> ``d_out``) gets ``lora_A`` of ``r x d_in`` and ``lora_B`` of
    ``d_out x r`` (Hu et al. 2021, LoRA, arXiv:2106.09685 §4.1; PEFT ``LoraLayer.update_layer``).

    Stacked experts (transformers >= 5 keeps each layer's experts as 3-D tensors, ``gate_up_proj`` of
    experts x 2i x h and ``down_proj`` of experts x h x i, and the router as a bare weight) are adapted by
    PEFT's ``ParamWrapper`` when :func:`experts_adapted`: ``lora_A`` is ``Linear(d_in, r * E)`` and
    ``lora_B`` ``Linear(r * E, d_out)``; the fused gate/up pair gets rank 2r (``rank_pattern``), so
    ``lora_A`` is ``2rE x h`` and ``lora_B`` ``2i x 2rE``; the router ``r x h`` and ``E x r`` (PEFT 0.21
    ``tuners/lora/layer.py`` ``ParamWrapper``, ``utils/transformers_weight_conversion.py``; shapes printed by
    PEFT on a small Mixtral, tests).

    A fused projection under PEFT (:func:`peft_layer_modules`) is one adapted linear: Phi-3's ``qkv_proj`` gets one
    ``lora_A`` of ``r x h`` where split q/k/v would get three (``stack``: the training stack, :func:`peft_fuses`).
    """
    wanted = _targets(arch, targets, stack)
    out: list[tuple[int, int, int]] = []
    for n_layers, mods in arch.linear_modules():
        stacked = {m.name for m in mods if m.count > 1}
        for m in peft_layer_modules(arch, mods, stack):
            if m.kind == "router" or not _is_adapted(arch, m, wanted, targets):
                continue
            if m.count > 1:
                e = m.count
                if m.name == "up_proj" and "gate_proj" in stacked:
                    continue  # fused with gate_proj into one gate_up_proj tensor
                if m.name == "gate_proj" and "up_proj" in stacked:
                    out += [(n_layers, 2 * rank * e, m.d_in), (n_layers, 2 * m.d_out, 2 * rank * e)]
                else:
                    out += [(n_layers, rank * e, m.d_in), (n_layers, m.d_out, rank * e)]
            else:
                out += [(n_layers, rank, m.d_in), (n_layers, m.d_out, rank)]
        router = next((m for m in mods if m.kind == "router"), None)
        if router is not None and stacked and experts_adapted(arch, targets):
            out += [(n_layers, rank, router.d_in), (n_layers, router.d_out, rank)]
    return out


def lora_parameter_count(arch: ModelArchitecture, rank: int, targets: Targets, stack: str | None = None) -> int:
    """LoRA adapter parameters: ``r * (d_in + d_out)`` per adapted matrix (A: r x d_in, B: d_out x r).

    ``targets``: ``q_v`` (q_proj, v_proj), ``qkvo`` (all attention projections) or ``all-linear``
    (every linear layer of the blocks; PEFT's ``all-linear`` excludes the LM head). Stacked MoE experts
    follow PEFT's ``ParamWrapper`` shapes, e.g. ``2r * E * (h + 2i)`` for a fused gate/up tensor; see
    :func:`lora_tensors` for the shapes and sources.
    """
    return sum(n * rows * cols for n, rows, cols in lora_tensors(arch, rank, targets, stack))


def lora_cast_parameter_count(arch: ModelArchitecture, rank: int, targets: Targets, stack: str | None = None) -> int:
    """LoRA parameters of the adapters that run as ``nn.Linear`` (every adapted plain linear and the
    router's), the ones autocast casts to bf16 and keeps in its cache (it caches casts of leaf tensors
    that require grad: ``cached_cast`` in ATen's ``autocast_mode.cpp``). The stacked experts' factors
    (PEFT ``ParamWrapper``) are not among them: MemTracker shows no cached copies of those.
    """
    wanted = _targets(arch, targets, stack)
    total = 0
    for n_layers, mods in arch.linear_modules():
        stacked = any(m.count > 1 for m in mods)
        for m in peft_layer_modules(arch, mods, stack):
            if m.count == 1 and m.kind != "router" and m.name in wanted:
                total += n_layers * rank * (m.d_in + m.d_out)
            elif m.kind == "router" and stacked and experts_adapted(arch, targets):
                total += n_layers * rank * (m.d_in + m.d_out)
    return total


def adapter_path(t: TrainingSetup) -> str:
    """How the LoRA adapters of ``t`` run, which decides their dtype and the copies of their inputs.

    Returns ``"none"`` (full fine-tuning), ``"native"`` (adapters in the model's dtype, nothing cast:
    ``adapter_precision="model-dtype"``, or FP32 training where everything is FP32), ``"autocast"``
    (FP32 adapters under BF16/FP16 autocast: the default, and always with an FP32 master model) or
    ``"fp32"`` (FP32 adapters without autocast: PEFT's ``_cast_input_dtype`` casts each adapted input
    to FP32 and the adapter matmuls run in FP32; peft/tuners/lora/layer.py ``Linear.forward`` and
    bnb.py ``Linear4bit.forward``, which casts only when autocast is off).
    """
    if t.method == "full":
        return "none"
    if t.frozen_weight_grads:
        # one FlatParameter per layer holds the frozen weights and the adapters, and it has one dtype
        # (FSDP1 flattening refuses mixed dtypes): the adapters are in the weights' dtype (LitGPT bf16-true)
        return "native"
    amp = t.master_weights == "fp32" and t.precision != "fp32" and t.method != "qlora"
    if amp:
        return "autocast"
    if t.precision == "fp32":
        return "native"
    return {"fp32-autocast": "autocast", "fp32": "fp32", "model-dtype": "native"}[t.adapter_precision]



def _activation_adapter_path(t: TrainingSetup) -> str:
    """:func:`adapter_path` as the forward sees the adapters. Under FSDP or DeepSpeed ZeRO the layers are handed
    to the forward in bf16 (FSDP ``MixedPrecision(param_dtype=bf16)``; DeepSpeed casts the module with
    ``module.bfloat16()`` for every ZeRO stage and keeps the fp32 master copy in its optimizer), so PEFT's
    ``_cast_input_dtype`` and autocast find nothing to cast, whatever dtype the adapters are kept in."""
    path = adapter_path(t)
    if path in {"autocast", "fp32"} and t.num_gpus > 1 and t.sharding in {"zero1", "zero2", "zero3", "fsdp"}:
        return "native"
    return path
