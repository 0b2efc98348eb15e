"""Model architectures: the shapes that decide parameter count, memory and FLOPs.

A :class:`ModelArchitecture` is a normalised, validated description of a decoder-only transformer
(dense or mixture-of-experts), built either from the bundled catalog or from a Hugging Face
``config.json`` via :func:`architecture_from_hf_config`. Everything downstream (memory ledger,
FLOPs, LoRA adapter sizes, NF4 quantisation) reads the per-layer linear shapes from
:meth:`ModelArchitecture.linear_modules`, so there is one place that knows what a layer holds.

Sources for the shapes:

* Llama / Mistral / Qwen2/3 / Gemma / Phi-3: Hugging Face ``modeling_*.py`` (q/k/v/o projections
  of ``num_heads*head_dim`` and ``num_key_value_heads*head_dim``; SwiGLU gate/up/down).
* GQA: Ainslie et al. 2023, arXiv:2305.13245. SwiGLU: Shazeer 2020, arXiv:2002.05202.
* Parallel attention+MLP blocks (GPT-J, GPT-NeoX, Falcon, Phi-1.5): one input norm per block.
* Mixture of experts (Mixtral, Qwen-MoE, DeepSeek shared experts, gpt-oss): every expert's weights
  are resident; ``experts_per_token`` of them run per token (Fedus et al. 2021, arXiv:2101.03961).
* Multi-head latent attention (DeepSeek-V2/V3, Kimi K2; DeepSeek-AI 2024, arXiv:2405.04434 §2.1): the
  ``DeepseekV2Attention`` / ``DeepseekV3Attention`` modules of transformers (``modeling_deepseek_v2.py`` at
  commit 0233e509531ace915c8241b4c16c8032a583279c, ``modeling_deepseek_v3.py`` at
  f5a9ec512fa9fe69e51ea0c6388c68d50de567b3): a query projection (``q_proj``, or ``q_a_proj`` -> RMSNorm ->
  ``q_b_proj`` when ``q_lora_rank`` is set), ``kv_a_proj_with_mqa`` to the compressed kv and one shared rotary
  key, RMSNorm, ``kv_b_proj`` to every head's non-rotary key and value, and ``o_proj``
  (:meth:`ModelArchitecture.attention_modules`).
* Gated DeltaNet hybrids (Qwen3-Next, Qwen3.5; Yang et al. 2024, arXiv:2412.06464): transformers'
  ``Qwen3NextGatedDeltaNet`` (``modeling_qwen3_next.py`` at commit 7515843b617551b008901620ca58f1208bbc330d) and
  ``Qwen3_5GatedDeltaNet`` (``modeling_qwen3_5.py`` at d8c1e2844cbfeae1e342a1723d7f4e69ff1adcc0) on the
  ``linear_attention`` layers of ``layer_types`` (default: every ``full_attention_interval``-th layer, 4, is full
  attention, ``Qwen3NextConfig.__init__`` @249ef816): the input projections (Qwen3-Next ``in_proj_qkvz`` and
  ``in_proj_ba``; Qwen3.5 ``in_proj_qkv``, ``in_proj_z``, ``in_proj_b``, ``in_proj_a``), a depthwise causal
  ``conv1d`` over the q/k/v channels, the chunked gated delta rule, a gated RMSNorm and ``out_proj``
  (:meth:`ModelArchitecture.linear_attention_modules`); their full-attention layers' ``q_proj`` emits the
  query and an output gate of the same width (``attn_output_gate``).
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from tuneplan.core.checkpoint import CheckpointWeights

__all__ = [
    "LinearModule",
    "ModelArchitecture",
    "UnsupportedModelError",
    "architecture_from_hf_config",
]


class UnsupportedModelError(ValueError):
    """A config that is valid JSON but describes a model Tuneplan cannot plan for (the message says why)."""


class LinearModule(BaseModel):
    """One weight matrix of a transformer layer.

    Attributes:
        name: the Hugging Face module name (``q_proj``, ``gate_proj``, ...), used for LoRA targets.
        d_in: input features.
        d_out: output features.
        count: how many such matrices one layer holds (e.g. number of experts).
        active: how many of them each token passes through (``experts_per_token`` for experts).
        bias: whether the matrix has a bias vector of ``d_out`` entries.
        kind: ``attention``, ``mlp``, ``router``, ``conv`` or ``linear_attention`` (a Gated DeltaNet layer's
            projections; LoRA target groups use it).
    """

    model_config = ConfigDict(frozen=True)

    name: str
    d_in: int
    d_out: int
    count: int = 1
    active: int = 1
    bias: bool = False
    kind: Literal["attention", "mlp", "router", "conv", "linear_attention"] = "attention"

    @property
    def params(self) -> int:
        """Parameters of all ``count`` matrices including biases."""
        return self.count * (self.d_in * self.d_out + (self.d_out if self.bias else 0))

    @property
    def active_params(self) -> int:
        """Parameters a single token multiplies through (``active`` of the ``count`` matrices)."""
        return self.active * (self.d_in * self.d_out + (self.d_out if self.bias else 0))


class ModelArchitecture(BaseModel):
    """A decoder-only transformer described by the numbers in its ``config.json``.

    All sizes are element counts (not bytes). ``head_dim`` may differ from
    ``hidden_size / num_attention_heads`` (Gemma, Qwen3). ``num_kv_heads < num_attention_heads``
    means grouped-query attention (``1`` is multi-query).

    Raises:
        pydantic.ValidationError: for non-positive sizes or inconsistent MoE fields.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=200)
    model_type: str = Field(default="llama", max_length=200)
    hidden_size: int = Field(gt=0, le=1_000_000)
    num_layers: int = Field(gt=0, le=10_000)
    num_attention_heads: int = Field(gt=0, le=100_000)
    num_kv_heads: int = Field(gt=0, le=100_000)
    head_dim: int = Field(gt=0, le=100_000)
    intermediate_size: int = Field(gt=0, le=10_000_000)
    vocab_size: int = Field(gt=0, le=100_000_000)
    tie_word_embeddings: bool = False
    mlp: Literal["gated", "plain"] = "gated"
    norm: Literal["rms", "layer"] = "rms"
    qkv_bias: bool = False
    o_bias: bool = False
    mlp_bias: bool = False
    lm_head_bias: bool = False
    parallel_block: bool = False
    embedding_norm: bool = False
    extra_norms_per_layer: int = Field(default=0, ge=0, le=8)
    qk_norm: bool = False
    learned_position_embeddings: int = Field(default=0, ge=0, le=100_000_000)
    max_position_embeddings: int | None = Field(default=None, ge=0, le=2**40)
    sliding_window: int | None = Field(default=None, ge=0, le=2**40)
    #: attention layers that use ``sliding_window`` (the others attend to the whole sequence); ``None``: all of them
    sliding_window_layers: int | None = Field(default=None, ge=0, le=10_000)
    # Mixture of experts: 0 experts means dense.
    # Bounds as for the dense fields: DeepSeek-V3 has 256 routed experts, Kimi K2 384.
    num_experts: int = Field(default=0, ge=0, le=100_000)
    experts_per_token: int = Field(default=0, ge=0, le=100_000)
    moe_intermediate_size: int = Field(default=0, ge=0, le=10_000_000)
    shared_expert_intermediate_size: int = Field(default=0, ge=0, le=10_000_000)
    first_dense_layers: int = Field(default=0, ge=0, le=10_000)
    expert_bias: bool = False
    # Multi-head latent attention (DeepSeek-V2/V3): kv_lora_rank > 0. head_dim is then the query/key head dim,
    # qk_nope_head_dim + qk_rope_head_dim (192 for DeepSeek-V2/V3), and num_kv_heads == num_attention_heads
    # (kv_b_proj gives every head its own key and value).
    #: width of the compressed kv (config ``kv_lora_rank``); 0: ordinary q/k/v attention
    kv_lora_rank: int = Field(default=0, ge=0, le=1_000_000)
    #: width of the compressed query (config ``q_lora_rank``); 0: one ``q_proj`` (DeepSeek-V2-Lite)
    q_lora_rank: int = Field(default=0, ge=0, le=1_000_000)
    #: per-head key/query dims without and with rotary position embedding (config ``qk_nope_head_dim``,
    #: ``qk_rope_head_dim``); their sum is ``head_dim``
    qk_nope_head_dim: int = Field(default=0, ge=0, le=100_000)
    qk_rope_head_dim: int = Field(default=0, ge=0, le=100_000)
    #: per-head value dim (config ``v_head_dim``); ``None``: ``head_dim``
    v_head_dim: int | None = Field(default=None, gt=0, le=100_000)
    # Hybrid models: layers that are not attention (short convolutions, linear attention).
    num_conv_layers: int = Field(default=0, ge=0, le=10_000)
    #: Gated DeltaNet layers (config ``layer_types`` entries ``linear_attention``); the rest of the non-conv
    #: layers are softmax attention. Their shapes (config names as ``Qwen3NextConfig`` reads them):
    num_linear_attention_layers: int = Field(default=0, ge=0, le=10_000)
    linear_num_key_heads: int = Field(default=0, ge=0, le=100_000)
    linear_num_value_heads: int = Field(default=0, ge=0, le=100_000)
    linear_key_head_dim: int = Field(default=0, ge=0, le=100_000)
    linear_value_head_dim: int = Field(default=0, ge=0, le=100_000)
    linear_conv_kernel_dim: int = Field(default=0, ge=0, le=1_000)
    #: ``fused``: Qwen3-Next's ``in_proj_qkvz`` + ``in_proj_ba``; ``split``: Qwen3.5's ``in_proj_qkv``,
    #: ``in_proj_z``, ``in_proj_b``, ``in_proj_a`` (same widths in all)
    linear_attention_projections: Literal["fused", "split"] = "fused"
    #: the attention output gate of Qwen3-Next/Qwen3.5 (``q_proj`` emits heads x head_dim x 2: query and gate,
    #: ``attn_output * sigmoid(gate)`` before ``o_proj``)
    attn_output_gate: bool = False
    #: a ``shared_expert_gate`` linear (hidden -> 1) scaling the shared expert (Qwen3-Next's sparse MoE block)
    shared_expert_gate: bool = False
    source: str = Field(default="", max_length=10_000)
    #: What the checkpoint's safetensors headers say (exact count, stored quantisation); ``None``: counted from
    #: the config alone. Set by the Hub / HF-cache loader (``tuneplan.storage.hub``), never by the config.
    checkpoint: CheckpointWeights | None = None

    @model_validator(mode="after")
    def _check(self) -> ModelArchitecture:
        if self.num_attention_heads % self.num_kv_heads:
            raise ValueError(
                f"num_attention_heads ({self.num_attention_heads}) must be a multiple of "
                f"num_key_value_heads ({self.num_kv_heads})"
            )
        if self.num_experts:
            if not 0 < self.experts_per_token <= self.num_experts:
                raise ValueError("experts_per_token must be between 1 and num_experts")
            if self.moe_intermediate_size <= 0:
                raise ValueError("a mixture-of-experts model needs moe_intermediate_size")
            if self.first_dense_layers >= self.num_layers:
                raise ValueError("first_dense_layers (config: first_k_dense_replace) must leave at least one "
                                 "mixture-of-experts layer")
        if self.kv_lora_rank:
            if not self.qk_rope_head_dim or self.qk_nope_head_dim + self.qk_rope_head_dim != self.head_dim:
                raise ValueError("multi-head latent attention needs head_dim = qk_nope_head_dim + qk_rope_head_dim "
                                 "(qk_rope_head_dim > 0)")
            if self.num_kv_heads != self.num_attention_heads or self.v_head_dim is None:
                raise ValueError("multi-head latent attention needs num_key_value_heads = num_attention_heads "
                                 "and v_head_dim")
        elif self.q_lora_rank or self.qk_nope_head_dim or self.qk_rope_head_dim:
            raise ValueError("q_lora_rank and qk_*_head_dim belong to multi-head latent attention (kv_lora_rank)")
        if self.num_conv_layers + self.num_linear_attention_layers > self.num_layers:
            raise ValueError("num_conv_layers + num_linear_attention_layers cannot exceed num_layers")
        if self.num_linear_attention_layers:
            dims = (self.linear_num_key_heads, self.linear_num_value_heads, self.linear_key_head_dim,
                    self.linear_value_head_dim, self.linear_conv_kernel_dim)
            if min(dims) <= 0:
                raise ValueError("Gated DeltaNet layers need linear_num_key_heads, linear_num_value_heads, "
                                 "linear_key_head_dim, linear_value_head_dim and linear_conv_kernel_dim")
            if self.linear_num_value_heads % self.linear_num_key_heads:
                raise ValueError("linear_num_value_heads must be a multiple of linear_num_key_heads")
            if self.first_dense_layers:
                raise ValueError("first_dense_layers with Gated DeltaNet layers is not modelled")
        if self.sliding_window_layers is not None and self.sliding_window_layers > self.num_layers:
            raise ValueError("sliding_window_layers cannot exceed num_layers")
        return self

    # ------------------------------------------------------------------ shapes
    @property
    def is_moe(self) -> bool:
        """True when the MLP of (most) layers is a mixture of experts."""
        return self.num_experts > 0

    @property
    def is_mla(self) -> bool:
        """True for multi-head latent attention (DeepSeek-V2/V3 ``kv_lora_rank``)."""
        return self.kv_lora_rank > 0

    @property
    def q_dim(self) -> int:
        """Width of the query projection output, ``num_attention_heads * head_dim`` (MLA: ``heads x 192``)."""
        return self.num_attention_heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        """Width of the keys, ``num_kv_heads * head_dim`` (MLA: every head's ``qk_nope + qk_rope`` key)."""
        return self.num_kv_heads * self.head_dim

    @property
    def value_head_dim(self) -> int:
        """Per-head value width: ``v_head_dim`` where the config sets it (MLA), else ``head_dim``."""
        return self.v_head_dim or self.head_dim

    @property
    def v_dim(self) -> int:
        """Width of the values, ``num_kv_heads * value_head_dim`` (``kv_dim`` unless ``v_head_dim`` differs)."""
        return self.num_kv_heads * self.value_head_dim

    @property
    def attn_out_dim(self) -> int:
        """Width of the attention output that ``o_proj`` reads, ``num_attention_heads * value_head_dim``."""
        return self.num_attention_heads * self.value_head_dim

    @property
    def num_attention_layers(self) -> int:
        """Layers with softmax attention (hybrids replace some with convolutions or Gated DeltaNet)."""
        return self.num_layers - self.num_conv_layers - self.num_linear_attention_layers

    @property
    def linear_key_dim(self) -> int:
        """Width of a Gated DeltaNet layer's queries and keys each, ``linear_num_key_heads x linear_key_head_dim``
        (``key_dim`` in ``Qwen3NextGatedDeltaNet``)."""
        return self.linear_num_key_heads * self.linear_key_head_dim

    @property
    def linear_value_dim(self) -> int:
        """Width of its values, of the gate ``z`` and of ``out_proj``'s input, ``linear_num_value_heads x
        linear_value_head_dim`` (``value_dim``)."""
        return self.linear_num_value_heads * self.linear_value_head_dim

    @property
    def linear_conv_dim(self) -> int:
        """Channels of its depthwise ``conv1d``: the queries, keys and values, ``2 key_dim + value_dim``."""
        return 2 * self.linear_key_dim + self.linear_value_dim

    @property
    def num_moe_layers(self) -> int:
        """Layers whose MLP is a mixture of experts."""
        return self.num_layers - self.first_dense_layers if self.is_moe else 0

    def fused_projections(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The projections this family's Hugging Face code computes in one matrix, as ``(module name, projections)``
        (:data:`FUSED_PROJECTIONS`; empty for the split Llama layout and for MoE or MLA attention)."""
        if self.is_mla or self.is_moe:
            return ()
        return FUSED_PROJECTIONS.get(self.model_type, ())

    def hf_module_name(self, name: str) -> str:
        """The Hugging Face module name of a projection of the per-layer model (``o_proj`` is ``dense`` in GPT-NeoX):
        :data:`FUSED_PROJECTIONS` for a fused part, :data:`HF_MODULE_NAMES`, else the name itself."""
        for fused, parts in self.fused_projections():
            if name in parts:
                return fused
        if self.is_mla or self.is_moe:
            return name
        return HF_MODULE_NAMES.get(self.model_type, {}).get(name, name)

    def attention_modules(self) -> list[LinearModule]:
        """The linear layers of one attention layer: q, k, v, o projections, or the MLA projections.

        Multi-head latent attention (transformers ``DeepseekV2Attention.__init__``, ``modeling_deepseek_v2.py``
        @0233e509; the same in ``DeepseekV3Attention``), with ``n`` heads, ``d_qk = qk_nope + qk_rope`` and
        ``d_v = v_head_dim``:

        * ``q_proj``: ``hidden -> n d_qk`` (no ``q_lora_rank``), else ``q_a_proj``: ``hidden -> q_lora_rank``
          (``attention_bias``) and ``q_b_proj``: ``q_lora_rank -> n d_qk``;
        * ``kv_a_proj_with_mqa``: ``hidden -> kv_lora_rank + qk_rope`` (``attention_bias``): the compressed kv
          and the one rotary key all heads share;
        * ``kv_b_proj``: ``kv_lora_rank -> n (qk_nope + d_v)``: every head's non-rotary key and its value;
        * ``o_proj``: ``n d_v -> hidden`` (``attention_bias``).
        """
        h = self.hidden_size
        if self.attn_output_gate:  # Qwen3NextAttention.__init__: q_proj hidden -> heads x head_dim x 2
            return [
                LinearModule(name="q_proj", d_in=h, d_out=2 * self.q_dim, bias=self.qkv_bias),
                LinearModule(name="k_proj", d_in=h, d_out=self.kv_dim, bias=self.qkv_bias),
                LinearModule(name="v_proj", d_in=h, d_out=self.kv_dim, bias=self.qkv_bias),
                LinearModule(name="o_proj", d_in=self.q_dim, d_out=h, bias=self.o_bias),
            ]
        if self.is_mla:
            n, bias = self.num_attention_heads, self.qkv_bias
            if self.q_lora_rank:
                q = [LinearModule(name="q_a_proj", d_in=h, d_out=self.q_lora_rank, bias=bias),
                     LinearModule(name="q_b_proj", d_in=self.q_lora_rank, d_out=self.q_dim)]
            else:
                q = [LinearModule(name="q_proj", d_in=h, d_out=self.q_dim)]
            return q + [
                LinearModule(name="kv_a_proj_with_mqa", d_in=h, d_out=self.kv_lora_rank + self.qk_rope_head_dim,
                             bias=bias),
                LinearModule(name="kv_b_proj", d_in=self.kv_lora_rank,
                             d_out=n * (self.qk_nope_head_dim + self.value_head_dim)),
                LinearModule(name="o_proj", d_in=self.attn_out_dim, d_out=h, bias=self.o_bias),
            ]
        return [
            LinearModule(name="q_proj", d_in=h, d_out=self.q_dim, bias=self.qkv_bias),
            LinearModule(name="k_proj", d_in=h, d_out=self.kv_dim, bias=self.qkv_bias),
            LinearModule(name="v_proj", d_in=h, d_out=self.kv_dim, bias=self.qkv_bias),
            LinearModule(name="o_proj", d_in=self.q_dim, d_out=h, bias=self.o_bias),
        ]

    def linear_attention_modules(self) -> list[LinearModule]:
        """The linear layers of one Gated DeltaNet layer (``Qwen3NextGatedDeltaNet.__init__`` @7515843b,
        ``Qwen3_5GatedDeltaNet.__init__`` @d8c1e284; none has a bias), with ``K = key_dim``, ``V = value_dim`` and
        ``n_v`` value heads:

        * fused (Qwen3-Next): ``in_proj_qkvz`` ``hidden -> 2K + 2V`` (queries, keys, values, gate ``z``) and
          ``in_proj_ba`` ``hidden -> 2 n_v`` (``beta`` and the decay input ``a``, one per value head);
        * split (Qwen3.5): ``in_proj_qkv`` ``hidden -> 2K + V``, ``in_proj_z`` ``hidden -> V``, ``in_proj_b`` and
          ``in_proj_a`` ``hidden -> n_v``;
        * ``out_proj``: ``V -> hidden``.
        """
        h, k, v, nv = self.hidden_size, self.linear_key_dim, self.linear_value_dim, self.linear_num_value_heads
        kind = "linear_attention"
        if self.linear_attention_projections == "split":
            mods = [LinearModule(name="in_proj_qkv", d_in=h, d_out=2 * k + v, kind=kind),
                    LinearModule(name="in_proj_z", d_in=h, d_out=v, kind=kind),
                    LinearModule(name="in_proj_b", d_in=h, d_out=nv, kind=kind),
                    LinearModule(name="in_proj_a", d_in=h, d_out=nv, kind=kind)]
        else:
            mods = [LinearModule(name="in_proj_qkvz", d_in=h, d_out=2 * k + 2 * v, kind=kind),
                    LinearModule(name="in_proj_ba", d_in=h, d_out=2 * nv, kind=kind)]
        return mods + [LinearModule(name="out_proj", d_in=v, d_out=h, kind=kind)]

    def linear_attention_other_params(self) -> int:
        """Parameters of one Gated DeltaNet layer outside its linears and norm: the depthwise ``conv1d`` kernel
        (``conv_dim x 1 x linear_conv_kernel_dim``, no bias), ``dt_bias`` and ``A_log`` (one per value head each)."""
        if not self.num_linear_attention_layers:
            return 0
        return self.linear_conv_dim * self.linear_conv_kernel_dim + 2 * self.linear_num_value_heads

    def conv_modules(self) -> list[LinearModule]:
        """Projections of a short-convolution block (LFM2 style: in_proj h->3h, out_proj h->h)."""
        h = self.hidden_size
        return [
            LinearModule(name="in_proj", d_in=h, d_out=3 * h, kind="conv"),
            LinearModule(name="out_proj", d_in=h, d_out=h, kind="conv"),
        ]

    def dense_mlp_modules(self, intermediate: int | None = None, count: int = 1) -> list[LinearModule]:
        """The MLP of a dense layer: gate/up/down for gated (SwiGLU/GeGLU), up/down for plain."""
        h, i = self.hidden_size, intermediate or self.intermediate_size
        mods = []
        if self.mlp == "gated":
            mods.append(LinearModule(name="gate_proj", d_in=h, d_out=i, count=count, active=count, bias=self.mlp_bias, kind="mlp"))
        mods.append(LinearModule(name="up_proj", d_in=h, d_out=i, count=count, active=count, bias=self.mlp_bias, kind="mlp"))
        mods.append(LinearModule(name="down_proj", d_in=i, d_out=h, count=count, active=count, bias=self.mlp_bias, kind="mlp"))
        return mods

    def moe_mlp_modules(self) -> list[LinearModule]:
        """Experts, router and shared experts of one MoE layer."""
        h, i, e, k = self.hidden_size, self.moe_intermediate_size, self.num_experts, self.experts_per_token
        mods = [LinearModule(name="router", d_in=h, d_out=e, bias=self.expert_bias, kind="router")]
        names = ["gate_proj", "up_proj", "down_proj"] if self.mlp == "gated" else ["up_proj", "down_proj"]
        for name in names:
            d_in, d_out = (i, h) if name == "down_proj" else (h, i)
            mods.append(LinearModule(name=name, d_in=d_in, d_out=d_out, count=e, active=k, bias=self.expert_bias, kind="mlp"))
        if self.shared_expert_intermediate_size:
            for mod in self.dense_mlp_modules(self.shared_expert_intermediate_size):
                mods.append(mod.model_copy(update={"name": "shared_" + mod.name}))
            if self.shared_expert_gate:  # Qwen3NextSparseMoeBlock: sigmoid(shared_expert_gate(x)) x shared expert
                mods.append(LinearModule(name="shared_expert_gate", d_in=h, d_out=1, kind="mlp"))
        return mods

    def linear_modules(self) -> list[tuple[int, list[LinearModule]]]:
        """Every layer's weight matrices, grouped as ``(number_of_layers, modules_of_one_layer)``.

        Layers with the same shape are grouped so callers can multiply instead of loop. Cached per architecture
        (it is frozen); the lists returned are fresh copies.
        """
        return [(n, list(mods)) for n, mods in _linear_modules(self)]

    def _build_linear_modules(self) -> list[tuple[int, list[LinearModule]]]:
        groups: list[tuple[int, list[LinearModule]]] = []
        attn_layers = self.num_attention_layers
        dense_mlp = self.dense_mlp_modules()
        if self.is_moe:
            dense_attn = min(self.first_dense_layers, attn_layers)
            if dense_attn:
                groups.append((dense_attn, self.attention_modules() + dense_mlp))
            if attn_layers - dense_attn:
                groups.append((attn_layers - dense_attn, self.attention_modules() + self.moe_mlp_modules()))
        elif attn_layers:
            groups.append((attn_layers, self.attention_modules() + dense_mlp))
        if self.num_linear_attention_layers:
            mlp = self.moe_mlp_modules() if self.is_moe else dense_mlp
            groups.append((self.num_linear_attention_layers, self.linear_attention_modules() + mlp))
        if self.num_conv_layers:
            groups.append((self.num_conv_layers, self.conv_modules() + dense_mlp))
        return groups

    # ------------------------------------------------------------------ counts
    def norm_params(self) -> int:
        """Parameters of all normalisation layers (RMSNorm: weight; LayerNorm: weight and bias)."""
        per_norm = self.hidden_size * (2 if self.norm == "layer" else 1)
        norms_per_layer = (1 if self.parallel_block else 2) + self.extra_norms_per_layer
        total = self.num_layers * norms_per_layer * per_norm + per_norm  # + final norm
        if self.embedding_norm:
            total += per_norm
        if self.qk_norm:
            total += self.num_attention_layers * 2 * self.head_dim
        # MLA's RMSNorms on the compressed kv and the compressed query (kv_a_layernorm, q_a_layernorm)
        total += self.num_attention_layers * self.mla_norm_width()
        # Gated DeltaNet: one gated RMSNorm over linear_value_head_dim, shared by the value heads
        total += self.num_linear_attention_layers * self.linear_value_head_dim
        return total

    def mla_norm_width(self) -> int:
        """Elements one MLA layer normalises besides the hidden state: ``kv_a_layernorm`` over
        ``kv_lora_rank`` and ``q_a_layernorm`` over ``q_lora_rank`` (RMSNorm weights of those widths;
        0 without MLA)."""
        return self.kv_lora_rank + self.q_lora_rank

    def embedding_params(self) -> int:
        """Input embedding (``vocab_size * hidden_size``) plus learned absolute positions if any."""
        return self.vocab_size * self.hidden_size + self.learned_position_embeddings * self.hidden_size

    def lm_head_params(self) -> int:
        """Output projection; zero extra parameters when tied to the input embedding."""
        if self.tie_word_embeddings:
            return self.vocab_size if self.lm_head_bias else 0
        return self.vocab_size * self.hidden_size + (self.vocab_size if self.lm_head_bias else 0)

    def outer_params(self) -> int:
        """Parameters outside the decoder layers: embeddings, LM head, final norm (and an embedding norm).

        What FSDP's root unit holds when only the decoder layers are wrapped.
        """
        per_norm = self.hidden_size * (2 if self.norm == "layer" else 1)
        return self.embedding_params() + self.lm_head_params() + per_norm * (1 + int(bool(self.embedding_norm)))

    def layer_linear_params(self) -> int:
        """Parameters in all transformer-layer weight matrices (what LoRA/QLoRA act on)."""
        return sum(n * sum(m.params for m in mods) for n, mods in self.linear_modules())

    def conv_kernel_params(self) -> int:
        """Depthwise convolution kernels of hybrid conv layers (3 taps x 3h... LFM2: h x kernel 3)."""
        return self.num_conv_layers * self.hidden_size * 3

    def parameter_count(self) -> int:
        """Total parameters, counting tied embeddings once and every expert.

        The checkpoint's exact count when its safetensors headers were read (:attr:`checkpoint`), else the count
        from the config's shapes (:meth:`config_parameter_count`).
        """
        if self.checkpoint is not None:
            return self.checkpoint.parameters
        return self.config_parameter_count()

    def config_parameter_count(self) -> int:
        """Total parameters computed from the config's shapes, tied embeddings once and every expert.

        Matches the published counts to within rounding, e.g. Llama-2-7B 6,738,415,616 and
        Llama-3-8B 8,030,261,248 (Meta model cards; ``sum(p.numel())`` in transformers).
        """
        return (
            self.embedding_params()
            + self.lm_head_params()
            + self.layer_linear_params()
            + self.norm_params()
            + self.conv_kernel_params()
            + self.num_linear_attention_layers * self.linear_attention_other_params()
        )

    def active_parameter_count(self) -> int:
        """Parameters one token passes through (MoE: only ``experts_per_token`` experts).

        Embedding lookups are not matmuls, so FLOPs use :meth:`matmul_params_per_token`.
        """
        inactive = 0
        for n, mods in self.linear_modules():
            inactive += n * sum(m.params - m.active_params for m in mods)
        return self.parameter_count() - inactive

    def matmul_params_per_token(self) -> int:
        """Weights each token is multiplied with: active layer matrices plus the LM head (``N`` in 6N)."""
        active_layers = sum(n * sum(m.active_params for m in mods) for n, mods in self.linear_modules())
        return active_layers + self.vocab_size * self.hidden_size


@lru_cache(maxsize=512)
def _linear_modules(arch: ModelArchitecture) -> tuple[tuple[int, tuple[LinearModule, ...]], ...]:
    return tuple((n, tuple(mods)) for n, mods in arch._build_linear_modules())


# ---------------------------------------------------------------------- HF config.json parsing

# model_type -> overrides of defaults that the config does not state.
_FAMILY_DEFAULTS: dict[str, dict[str, Any]] = {
    "llama": {}, "mistral": {}, "mixtral": {}, "qwen2": {"qkv_bias": True}, "qwen2_moe": {"qkv_bias": True},
    "qwen3": {"qk_norm": True}, "qwen3_moe": {"qk_norm": True}, "yi": {},
    "gemma": {"mlp": "gated"}, "gemma2": {"extra_norms_per_layer": 2}, "gemma3": {"extra_norms_per_layer": 2, "qk_norm": True},
    "gemma3_text": {"extra_norms_per_layer": 2, "qk_norm": True},
    "phi3": {}, "phimoe": {}, "starcoder2": {"mlp": "plain", "norm": "layer", "qkv_bias": True, "o_bias": True, "mlp_bias": True},
    "olmo": {"norm": "layer"}, "olmo2": {"qk_norm": True}, "olmo3": {"qk_norm": True}, "granite": {}, "cohere": {"norm": "layer"},
    "stablelm": {"norm": "layer"}, "internlm2": {}, "deepseek": {}, "deepseek_v2": {}, "deepseek_v3": {},
    "phi": {"mlp": "plain", "norm": "layer", "qkv_bias": True, "o_bias": True, "mlp_bias": True, "lm_head_bias": True, "parallel_block": True},
    "gpt_neox": {"mlp": "plain", "norm": "layer", "qkv_bias": True, "o_bias": True, "mlp_bias": True},
    "falcon": {"mlp": "plain", "norm": "layer"},
    "bloom": {"mlp": "plain", "norm": "layer", "qkv_bias": True, "o_bias": True, "mlp_bias": True, "embedding_norm": True},
    "gpt2": {"mlp": "plain", "norm": "layer", "qkv_bias": True, "o_bias": True, "mlp_bias": True},
    "qwen": {"qkv_bias": True}, "chatglm": {"qkv_bias": True}, "baichuan": {}, "gpt_oss": {"qkv_bias": True, "o_bias": True, "expert_bias": True},
    "lfm2": {}, "exaone": {}, "smollm3": {}, "ministral": {}, "mistral3": {}, "apertus": {"mlp": "plain"},
    "arcee": {"mlp": "plain"}, "seed_oss": {"qkv_bias": True}, "mimo": {"qkv_bias": True},
    "qwen3_next": {"qk_norm": True}, "qwen3_5": {"qk_norm": True}, "qwen3_5_text": {"qk_norm": True},
    "qwen3_5_moe": {"qk_norm": True}, "qwen3_5_moe_text": {"qk_norm": True},
}

#: Fused projections in a family's Hugging Face modelling code: model type -> ``(module name, the projections of
#: Tuneplan's per-layer model it computes in one matrix)``. The weights are the same as the split layout's (one
#: ``d_in x sum(d_out)`` matrix); what differs is what PEFT adapts: it wraps the fused module, so one ``lora_A``
#: (``r x d_in``) and one ``lora_B`` (``sum(d_out) x r``) serve all its parts. Sources (module ``__init__``):
#: transformers ``Phi3Attention.qkv_proj`` (``hidden -> (heads + 2 kv_heads) x head_dim``) and ``Phi3MLP.gate_up_proj``
#: (``hidden -> 2 x intermediate``, split by ``chunk(2)``), ``modeling_phi3.py``; ``GPTNeoXAttention``,
#: ``FalconAttention``, ``BloomAttention``: ``query_key_value``; ``GPT2Attention.c_attn`` (a ``Conv1D``,
#: ``modeling_gpt2.py``); remote code ``THUDM/chatglm3-6b`` ``modeling_chatglm.py`` (``SelfAttention.query_key_value``,
#: ``MLP.dense_h_to_4h`` of ``2 x ffn_hidden_size`` for SwiGLU), ``baichuan-inc/Baichuan2-7B-Base``
#: ``modeling_baichuan.py`` (``Attention.W_pack``), ``Qwen/Qwen-7B`` ``modeling_qwen.py`` (``QWenAttention.c_attn``),
#: ``internlm/internlm2_5-7b-chat`` ``modeling_internlm2.py`` (``InternLM2Attention.wqkv``, ``wo``; ``InternLM2MLP``
#: ``w2(act(w1(x)) * w3(x))``); transformers ``GlmMLP``/``Glm4MLP.gate_up_proj`` (the Phi-3 MLP).
#: PEFT's own default targets for these types name the fused module (``TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING``,
#: peft ``utils/constants.py`` @00073fe8: gpt2 ``c_attn``; bloom, gpt_neox, chatglm, falcon ``query_key_value``).
FUSED_PROJECTIONS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "phi3": (("qkv_proj", ("q_proj", "k_proj", "v_proj")), ("gate_up_proj", ("gate_proj", "up_proj"))),
    "chatglm": (("query_key_value", ("q_proj", "k_proj", "v_proj")), ("dense_h_to_4h", ("gate_proj", "up_proj"))),
    "baichuan": (("W_pack", ("q_proj", "k_proj", "v_proj")),),
    "qwen": (("c_attn", ("q_proj", "k_proj", "v_proj")),),
    "gpt_neox": (("query_key_value", ("q_proj", "k_proj", "v_proj")),),
    "falcon": (("query_key_value", ("q_proj", "k_proj", "v_proj")),),
    "bloom": (("query_key_value", ("q_proj", "k_proj", "v_proj")),),
    "gpt2": (("c_attn", ("q_proj", "k_proj", "v_proj")),),
    "internlm2": (("wqkv", ("q_proj", "k_proj", "v_proj")),),
    "glm": (("gate_up_proj", ("gate_proj", "up_proj")),),
    "glm4": (("gate_up_proj", ("gate_proj", "up_proj")),),
}

#: The Hugging Face names of the other projections where a family does not use Llama's (same modelling files as
#: :data:`FUSED_PROJECTIONS`, plus ``PhiAttention.dense``/``PhiMLP.fc1, fc2`` in ``modeling_phi.py`` and
#: ``Starcoder2MLP.c_fc, c_proj``; Qwen (v1) computes ``w1(x) * silu(w2(x))``, so ``w2`` is the gate). PEFT matches
#: a target by the end of the module's path (``key.endswith("." + target)``), so ``c_proj``, which GPT-2 and Qwen (v1)
#: use for both the attention output and the MLP's down projection, is named with its parent (``attn.c_proj``,
#: ``mlp.c_proj``).
HF_MODULE_NAMES: dict[str, dict[str, str]] = {
    "chatglm": {"o_proj": "dense", "down_proj": "dense_4h_to_h"},
    "qwen": {"o_proj": "attn.c_proj", "gate_proj": "w2", "up_proj": "w1", "down_proj": "mlp.c_proj"},
    "gpt_neox": {"o_proj": "dense", "up_proj": "dense_h_to_4h", "down_proj": "dense_4h_to_h"},
    "falcon": {"o_proj": "dense", "up_proj": "dense_h_to_4h", "down_proj": "dense_4h_to_h"},
    "bloom": {"o_proj": "dense", "up_proj": "dense_h_to_4h", "down_proj": "dense_4h_to_h"},
    "gpt2": {"o_proj": "attn.c_proj", "up_proj": "c_fc", "down_proj": "mlp.c_proj"},
    "phi": {"o_proj": "dense", "up_proj": "fc1", "down_proj": "fc2"},
    "starcoder2": {"up_proj": "c_fc", "down_proj": "c_proj"},
    "internlm2": {"o_proj": "wo", "gate_proj": "w1", "up_proj": "w3", "down_proj": "w2"},
}

#: Gated DeltaNet hybrids: model type -> the projection layout of its linear-attention layers
#: (``Qwen3NextGatedDeltaNet``: fused ``in_proj_qkvz``/``in_proj_ba``; ``Qwen3_5GatedDeltaNet``: split).
_GATED_DELTANET = {"qwen3_next": "fused", "qwen3_5": "split", "qwen3_5_text": "split", "qwen3_5_moe": "split",
                   "qwen3_5_moe_text": "split"}

_ENCODER_DECODER = {"t5", "mt5", "bart", "mbart", "pegasus", "marian", "umt5", "longt5", "whisper", "m2m_100",
                    "nllb_moe", "fsmt", "prophetnet", "led", "blenderbot", "blenderbot-small", "plbart", "mvp",
                    "bigbird_pegasus", "switch_transformers", "pegasus_x", "t5gemma", "seamless_m4t"}
_ENCODER_ONLY = {"bert", "roberta", "xlm-roberta", "deberta", "deberta-v2", "distilbert", "albert", "electra",
                 "camembert", "mpnet", "modernbert", "xlm", "ernie", "rembert", "nomic_bert", "esm"}
_MAX_CONFIG_KEYS = 5000


def _first(cfg: dict[str, Any], *keys: str) -> Any:
    for key in keys:
        if key in cfg and cfg[key] is not None:
            return cfg[key]
    return None


def _int_field(cfg: dict[str, Any], *keys: str, required: bool = True, minimum: int = 1) -> int | None:
    value = _first(cfg, *keys)
    if value is None:
        if required:
            raise UnsupportedModelError(f"config.json has no '{keys[0]}' (also looked for: {', '.join(keys[1:]) or '-'})")
        return None
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or (isinstance(value, float) and not math.isfinite(value)) or value != int(value) or value < minimum):
        kind = "a positive whole number" if minimum == 1 else f"a whole number >= {minimum}"
        raise UnsupportedModelError(f"config.json field '{keys[0]}' must be {kind}, got {value!r}")
    return int(value)


def architecture_from_hf_config(cfg: dict[str, Any], name: str | None = None) -> ModelArchitecture:
    """Build a :class:`ModelArchitecture` from a parsed Hugging Face ``config.json``.

    Understands the field names of the common families (``n_embd``/``n_layer``/``n_head`` for GPT-2
    and BLOOM, ``multi_query_group_num`` for ChatGLM, ``num_local_experts`` for Mixtral/gpt-oss,
    ``text_config`` for multimodal wrappers such as Gemma 3 and Mistral 3). Private ``_mlp``,
    ``_norm``, ``_qkv_bias``... hints (as in Tuneplan's reference configs) override family defaults.

    Args:
        cfg: the JSON object.
        name: display name; defaults to ``_name_or_path`` or the model type.

    Returns:
        The validated architecture.

    Raises:
        UnsupportedModelError: encoder-decoder models, missing or non-numeric sizes, or
            a file that is not a model config at all. The message names the field.
    """
    if not isinstance(cfg, dict):
        raise UnsupportedModelError("config.json must contain a JSON object")
    if len(cfg) > _MAX_CONFIG_KEYS:
        raise UnsupportedModelError("config.json has too many keys to be a model config")
    outer = cfg
    if isinstance(cfg.get("text_config"), dict) and "hidden_size" not in cfg:
        cfg = {**cfg["text_config"], **{k: v for k, v in outer.items() if k.startswith("_")}}
        cfg.setdefault("model_type", outer.get("model_type"))
        if "tie_word_embeddings" in outer and "tie_word_embeddings" not in outer["text_config"]:
            cfg["tie_word_embeddings"] = outer["tie_word_embeddings"]
    model_type = str(cfg.get("model_type") or "").lower()
    if cfg.get("is_encoder_decoder") or model_type in _ENCODER_DECODER:
        raise UnsupportedModelError(
            f"'{model_type or 'this model'}' is an encoder-decoder model; Tuneplan plans decoder-only LLMs"
        )
    archs = [str(a) for a in (outer.get("architectures") or []) if isinstance(a, str)]
    if model_type in _ENCODER_ONLY or (archs and all(a.endswith(("ForMaskedLM", "ForSequenceClassification",
                                                                  "ForTokenClassification", "Model")) for a in archs)
                                       and model_type in _ENCODER_ONLY | {""}):
        raise UnsupportedModelError(
            f"'{model_type or archs[0]}' is an encoder-only model (no causal LM head); Tuneplan plans decoder-only LLMs"
        )
    if not model_type and "hidden_size" not in cfg and "n_embd" not in cfg:
        raise UnsupportedModelError("this JSON file does not look like a Hugging Face model config (no model_type, no hidden_size)")

    fam = dict(_FAMILY_DEFAULTS.get(model_type, {}))
    hidden = _int_field(cfg, "hidden_size", "n_embd", "d_model", "n_embed", "dim")
    layers = _int_field(cfg, "num_hidden_layers", "n_layer", "num_layers", "n_layers")
    heads = _int_field(cfg, "num_attention_heads", "n_head", "num_heads", "n_heads")
    assert hidden and layers and heads
    kv = _int_field(cfg, "num_key_value_heads", "multi_query_group_num", "num_kv_heads", "n_head_kv", "n_kv_heads", required=False)
    if kv is None:
        kv = 1 if cfg.get("multi_query") and not cfg.get("new_decoder_architecture") else heads
    head_dim = _int_field(cfg, "head_dim", "kv_channels", required=False) or hidden // heads
    if head_dim <= 0:
        raise UnsupportedModelError("head_dim must be positive")
    mlp_kind = cfg.get("_mlp") or fam.get("mlp")
    if mlp_kind is None:
        act = str(cfg.get("hidden_act") or cfg.get("activation_function") or "silu").lower()
        mlp_kind = "plain" if act in {"gelu", "gelu_new", "gelu_pytorch_tanh", "relu", "gelu_fast"} and model_type not in {"gemma", "gemma2", "gemma3", "gemma3_text"} else "gated"
    mlp_kind = "plain" if mlp_kind == "plain" else "gated"
    intermediate = _int_field(cfg, "intermediate_size", "ffn_hidden_size", "n_inner", "ffn_dim", required=False)
    if intermediate is None:
        intermediate = 4 * hidden
    if model_type == "qwen" and "_hf_intermediate_size" not in cfg and cfg.get("intermediate_size") and "kv_channels" in cfg:
        # Qwen (v1) stores 2x the SwiGLU width in intermediate_size (configuration_qwen.py: ff_dim_in = intermediate_size // 2).
        intermediate //= 2
    vocab = _int_field(cfg, "vocab_size", "padded_vocab_size", "n_vocab")
    assert vocab
    tied = cfg.get("tie_word_embeddings")
    if tied is None:
        tied = model_type in {"gpt2", "bloom", "falcon", "gemma", "gemma2", "gemma3", "gemma3_text"}
    norm_kind = cfg.get("_norm") or fam.get("norm") or "rms"
    num_experts = _int_field(cfg, "num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts", required=False) or 0
    experts_per_token = _int_field(cfg, "num_experts_per_tok", "experts_per_token", "moe_topk", required=False) or 0
    if num_experts and not experts_per_token:
        experts_per_token = min(2, num_experts)
    moe_inter = _int_field(cfg, "moe_intermediate_size", "expert_intermediate_size", required=False) or (intermediate if num_experts else 0)
    shared = _int_field(cfg, "shared_expert_intermediate_size", required=False) or 0
    n_shared = _int_field(cfg, "n_shared_experts", "num_shared_experts", required=False) or 0
    if n_shared and not shared:
        shared = n_shared * moe_inter
    if num_experts and cfg.get("shared_expert") is True and not shared:
        shared = moe_inter  # Llama 4: one shared expert of the routed experts' width
    first_dense = _int_field(cfg, "first_k_dense_replace", required=False, minimum=0) or 0
    mla = _mla_fields(cfg)
    if mla:
        head_dim = mla["qk_nope_head_dim"] + mla["qk_rope_head_dim"]
        kv = heads
    if num_experts and (_int_field(cfg, "moe_layer_freq", required=False) or 1) != 1:
        # transformers' DeepSeek-V2/V3 decoder layers make every layer from first_k_dense_replace on a MoE layer
        # and read no moe_layer_freq; the original DeepSeek code used it for every k-th layer
        raise UnsupportedModelError("moe_layer_freq other than 1 (mixture-of-experts on every k-th layer) "
                                    "is not modelled yet")
    conv_layers = 0
    layer_types = cfg.get("layer_types")
    gdn = _gated_deltanet_fields(cfg, model_type, layers)
    if isinstance(layer_types, list) and len(layer_types) == layers:
        conv_layers = sum(1 for t in layer_types if str(t) in {"conv", "short_conv"})
        if any(str(t) in {"mamba", "ssm"} for t in layer_types):
            raise UnsupportedModelError("hybrid state-space (Mamba) layers are not modelled yet")
    if gdn and first_dense:
        raise UnsupportedModelError("first_k_dense_replace with Gated DeltaNet layers is not modelled yet")
    if gdn and num_experts and ((_int_field(cfg, "decoder_sparse_step", required=False) or 1) != 1
                                or cfg.get("mlp_only_layers")):
        # Qwen3NextDecoderLayer: a sparse MoE block on every layer unless decoder_sparse_step > 1 or mlp_only_layers
        raise UnsupportedModelError("decoder_sparse_step other than 1 or mlp_only_layers (dense MLPs between "
                                    "mixture-of-experts layers) is not modelled yet")
    pos = 0
    if model_type in {"gpt2", "opt", "gpt_bigcode"}:
        pos = _int_field(cfg, "n_positions", "max_position_embeddings", required=False) or 0

    def flag(key: str, default: bool) -> bool:
        value = cfg.get(key)
        return bool(value) if value is not None else default

    attention_bias = cfg.get("attention_bias")
    qkv_bias = flag("_qkv_bias", bool(attention_bias) if attention_bias is not None else fam.get("qkv_bias", False))
    o_bias = flag("_o_bias", bool(attention_bias) if attention_bias is not None and model_type not in {"qwen2"} else fam.get("o_bias", False))
    bias_all = cfg.get("_bias")
    if bias_all:
        qkv_bias = o_bias = True
    mlp_bias = flag("mlp_bias", bool(bias_all) or fam.get("mlp_bias", False))
    if model_type in {"gpt_neox", "phi", "bloom", "gpt2", "starcoder2"} and bias_all is None:
        qkv_bias = o_bias = mlp_bias = True
    if model_type == "falcon":
        qkv_bias = o_bias = mlp_bias = bool(cfg.get("bias", False))
    parallel = bool(cfg.get("_parallel_block") or fam.get("parallel_block") or cfg.get("parallel_attn") or cfg.get("use_parallel_residual"))
    if model_type == "falcon" and cfg.get("new_decoder_architecture"):
        parallel = False  # Falcon-40B: two layer norms (ln_attn, ln_mlp) feeding parallel branches
    if model_type == "gpt_neox":
        parallel = False  # NeoX keeps two LayerNorms even with the parallel residual
    sliding = cfg.get("sliding_window")
    if cfg.get("use_sliding_window") is False:
        sliding = None  # Qwen2 states a window it does not use (modeling_qwen2: only with use_sliding_window)
    windowed: int | None = None
    if isinstance(layer_types, list) and any(str(t) == "sliding_attention" for t in layer_types):
        windowed = sum(1 for t in layer_types if str(t) == "sliding_attention")
    elif isinstance(cfg.get("sliding_window_pattern"), int) and cfg["sliding_window_pattern"] > 0:
        # Gemma 3: every pattern-th layer is global, the others local (transformers Gemma3Config)
        windowed = layers - layers // int(cfg["sliding_window_pattern"])
    elif model_type == "gemma2":
        windowed = (layers + 1) // 2  # Gemma 2 alternates local and global layers, local first (modeling_gemma2)
    elif model_type in {"gemma3", "gemma3_text"}:
        windowed = layers - layers // 6  # Gemma 3's default pattern: five local layers to one global
    return ModelArchitecture(
        name=name or str(outer.get("_name_or_path") or cfg.get("_name_or_path") or model_type or "custom model"),
        model_type=model_type or "custom",
        hidden_size=hidden,
        num_layers=layers,
        num_attention_heads=heads,
        num_kv_heads=kv,
        head_dim=head_dim,
        intermediate_size=intermediate,
        vocab_size=vocab,
        tie_word_embeddings=bool(tied),
        mlp=mlp_kind,
        norm="layer" if norm_kind == "layer" else "rms",
        qkv_bias=qkv_bias,
        o_bias=o_bias,
        mlp_bias=mlp_bias,
        lm_head_bias=flag("_lm_head_bias", fam.get("lm_head_bias", False)),
        parallel_block=parallel,
        embedding_norm=bool(cfg.get("_emb_norm") or fam.get("embedding_norm", False)),
        extra_norms_per_layer=int(fam.get("extra_norms_per_layer", 0)),
        qk_norm=bool(fam.get("qk_norm", False)),
        learned_position_embeddings=pos,
        max_position_embeddings=_int_field(cfg, "max_position_embeddings", "seq_length", "n_positions", required=False),
        sliding_window=(int(sliding) if isinstance(sliding, (int, float)) and not isinstance(sliding, bool)
                        and math.isfinite(sliding) and sliding > 0 else None),
        sliding_window_layers=windowed,
        num_experts=num_experts,
        experts_per_token=experts_per_token if num_experts else 0,
        moe_intermediate_size=moe_inter if num_experts else 0,
        shared_expert_intermediate_size=shared,
        first_dense_layers=first_dense if num_experts else 0,
        expert_bias=flag("_expert_bias", fam.get("expert_bias", False)),
        num_conv_layers=conv_layers,
        source=str(cfg.get("_source") or ""),
        shared_expert_gate=bool(gdn) and bool(num_experts) and bool(shared),
        **mla,
        **gdn,
    )


def _mla_fields(cfg: dict[str, Any]) -> dict[str, Any]:
    """The multi-head latent attention fields of a config (empty without ``kv_lora_rank``).

    Names as transformers' ``DeepseekV2Config`` / ``DeepseekV3Config`` read them; ``q_lora_rank`` null means one
    ``q_proj`` (DeepSeek-V2-Lite). The key and value heads are the query heads (``kv_b_proj`` gives each head its
    own), whatever ``num_key_value_heads`` says.
    """
    if not cfg.get("kv_lora_rank"):
        return {}
    kv_rank = _int_field(cfg, "kv_lora_rank")
    nope = _int_field(cfg, "qk_nope_head_dim")
    rope = _int_field(cfg, "qk_rope_head_dim")
    v = _int_field(cfg, "v_head_dim")
    q_rank = _int_field(cfg, "q_lora_rank", required=False) or 0
    return {"kv_lora_rank": kv_rank, "q_lora_rank": q_rank, "qk_nope_head_dim": nope,
            "qk_rope_head_dim": rope, "v_head_dim": v}


_LAYER_PATTERN = re.compile(r"^\s*(\d{1,4})\s+linear[^:]{0,200}:\s*(\d{1,4})\s+full")


def _gated_deltanet_fields(cfg: dict[str, Any], model_type: str, layers: int) -> dict[str, Any]:
    """The Gated DeltaNet fields of a Qwen3-Next / Qwen3.5 config (empty for other models).

    Which layers are linear attention: ``layer_types`` where the config lists it, else every
    ``full_attention_interval``-th layer is full attention and the others linear (default 4,
    ``Qwen3NextConfig.__init__`` @249ef816; the same in ``Qwen3_5TextConfig``), else Tuneplan's reference-config
    hint ``layer_types_pattern`` ("3 linear_attention ... : 1 full_attention"). The widths are the config's
    ``linear_*`` fields, as ``Qwen3NextGatedDeltaNet.__init__`` reads them. Both families' full-attention layers
    have the output gate (``Qwen3NextAttention``/``Qwen3_5Attention``: ``q_proj`` to ``heads x head_dim x 2``).
    """
    layer_types = cfg.get("layer_types")
    linear: int | None = None
    if isinstance(layer_types, list) and len(layer_types) == layers:
        linear = sum(1 for t in layer_types if str(t) == "linear_attention")
    layout = _GATED_DELTANET.get(model_type)
    if layout is None:
        if linear:
            raise UnsupportedModelError(f"linear-attention layers of '{model_type or 'this model'}' are not "
                                        "modelled (Tuneplan knows Qwen3-Next and Qwen3.5 Gated DeltaNet)")
        pattern = cfg.get("layer_types_pattern")
        if pattern and "linear" in str(pattern):
            raise UnsupportedModelError("linear-attention layers of this model type are not modelled")
        return {}
    if linear is None:
        pattern = _LAYER_PATTERN.match(str(cfg.get("layer_types_pattern") or ""))
        interval = _int_field(cfg, "full_attention_interval", required=False)
        if interval is None and pattern:
            n_linear, n_full = int(pattern.group(1)), int(pattern.group(2))
            if n_full != 1:
                raise UnsupportedModelError("layer_types_pattern must end in '1 full_attention'")
            interval = n_linear + 1
        interval = interval or 4
        linear = sum(1 for i in range(layers) if (i + 1) % interval)
    if not linear:
        return {"attn_output_gate": True}
    return {
        "num_linear_attention_layers": linear,
        "linear_num_key_heads": _int_field(cfg, "linear_num_key_heads"),
        "linear_num_value_heads": _int_field(cfg, "linear_num_value_heads"),
        "linear_key_head_dim": _int_field(cfg, "linear_key_head_dim"),
        "linear_value_head_dim": _int_field(cfg, "linear_value_head_dim"),
        "linear_conv_kernel_dim": _int_field(cfg, "linear_conv_kernel_dim", required=False) or 4,
        "linear_attention_projections": layout,
        "attn_output_gate": True,
    }


def round_up(value: float, multiple: float) -> float:
    """Round ``value`` up to a multiple of ``multiple``."""
    return math.ceil(value / multiple) * multiple
