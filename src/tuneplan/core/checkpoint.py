"""A checkpoint as it is stored: exact parameter counts and stored weight bytes from safetensors headers.

The config describes shapes; the checkpoint's headers say what is really there. This module turns the tensor
table of a checkpoint (name -> dtype and shape, as a safetensors header lists them) and the ``quantization_config``
of its ``config.json`` into a :class:`CheckpointWeights`: the exact number of parameters (tied weights once), and
for a pre-quantised checkpoint the bytes its quantised tensors take and the fine-tuning methods it allows.

Pure: the caller reads the headers (``tuneplan.storage.hub``); nothing here touches files or the network.

How the packed layouts unpack (parameters per stored element):

* GPTQ (AutoGPTQ / GPTQModel ``QuantLinear``): ``qweight`` int32 of ``[in * bits / 32, out]``, with
  ``qzeros``, ``scales`` and ``g_idx`` beside it: ``32 / bits`` weights per int32.
* AWQ (AutoAWQ ``WQLinear_GEMM``): ``qweight`` int32 of ``[in, out * bits / 32]``, ``qzeros``, ``scales``.
* bitsandbytes 4-bit (``Params4bit`` serialisation): ``weight`` uint8 of ``[n / 2, 1]`` (two 4-bit codes a
  byte) with ``weight.absmax``, ``weight.quant_map`` and ``weight.quant_state.bitsandbytes__nf4`` beside it.
* bitsandbytes 8-bit (``Int8Params``): ``weight`` int8 of the full shape, with ``SCB`` row scales.
* FP8 (transformers ``FineGrainedFP8``, compressed-tensors ``float-quantized``): ``weight`` float8 of the
  full shape with ``weight_scale`` / ``weight_scale_inv`` (and ``input_scale``).
* compressed-tensors ``pack-quantized``: ``weight_packed`` int32 of ``[out, in * bits / 32]`` with
  ``weight_scale``, ``weight_zero_point``, ``weight_shape`` and ``weight_g_idx``.

What they allow: a pre-quantised base is frozen. PEFT trains LoRA adapters on GPTQ, AWQ, bitsandbytes,
FP8 and compressed-tensors bases (transformers' quantizers for these report ``is_trainable`` for adapter
training only); none of them can be fully fine-tuned, since their packed integer or float8 weights take
no gradient (transformers ``Trainer`` refuses "purely quantized models" without adapters).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DTYPE_BYTES",
    "QUANTIZATION_LABELS",
    "CheckpointWeights",
    "Quantization",
    "allowed_methods",
    "checkpoint_from_tensors",
    "quantization_from_config",
]

Quantization = Literal["none", "gptq", "awq", "bnb-4bit", "bnb-8bit", "fp8", "compressed-tensors"]

#: How each method is named in messages.
QUANTIZATION_LABELS: dict[str, str] = {
    "none": "unquantised", "gptq": "GPTQ", "awq": "AWQ", "bnb-4bit": "bitsandbytes 4-bit",
    "bnb-8bit": "bitsandbytes 8-bit", "fp8": "FP8", "compressed-tensors": "compressed-tensors",
}

#: Bytes per element of each safetensors dtype (the format's dtype list; F4/F6 pack below one byte).
DTYPE_BYTES: dict[str, float] = {
    "F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2, "I16": 2, "U16": 2,
    "I8": 1, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1, "F6_E2M3": 0.75, "F6_E3M2": 0.75,
    "F4": 0.5,
}

_FLOAT8 = {"F8_E4M3", "F8_E5M2"}

# Tensors that hold quantisation state beside a packed weight, by the last part(s) of their names: their bytes are
# the quantised weights' cost, but they are no parameters of the model.
_AUX_SUFFIXES = (
    ".qzeros", ".scales", ".g_idx", ".SCB", ".weight_format", ".weight_scale", ".weight_scale_inv",
    ".input_scale", ".weight_zero_point", ".weight_shape", ".weight_g_idx", ".weight_global_scale",
    ".input_global_scale", ".output_scale", ".k_scale", ".v_scale",
    ".weight.absmax", ".weight.quant_map", ".weight.nested_absmax", ".weight.nested_quant_map",
)
_BNB_STATE = ".weight.quant_state."


class CheckpointWeights(BaseModel):
    """What a checkpoint's safetensors headers say about its weights.

    Attributes:
        parameters: exact parameter count of the model as stored (packed weights unpacked; quantisation state
            such as scales and zero points not counted; a tied LM head counted once).
        quantization: the stored quantisation (``none`` for a 16/32-bit checkpoint).
        bits: bits per quantised weight (4, 8...), ``None`` when unquantised.
        quantized_parameters: parameters held in quantised tensors (the layer matrices).
        quantized_bytes: bytes those tensors take as stored, their scales, zero points and indices included.
        stored_bytes: bytes of every tensor in the checkpoint (what a download is).
        source: where the numbers were read (``safetensors headers of org/name@commit``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    parameters: int = Field(gt=0, le=10**15)
    quantization: Quantization = "none"
    bits: int | None = Field(default=None, ge=1, le=32)
    quantized_parameters: int = Field(default=0, ge=0, le=10**15)
    quantized_bytes: int = Field(default=0, ge=0, le=10**16)
    stored_bytes: int = Field(default=0, ge=0, le=10**16)
    source: str = Field(default="", max_length=2000)

    @property
    def is_quantized(self) -> bool:
        """True for a pre-quantised checkpoint (its layer matrices are stored in fewer than 16 bits)."""
        return self.quantization != "none"

    @property
    def label(self) -> str:
        """The quantisation as messages name it (``GPTQ 4-bit``, ``FP8``)."""
        name = QUANTIZATION_LABELS[self.quantization]
        return f"{name} {self.bits}-bit" if self.bits and self.quantization in {"gptq", "awq", "compressed-tensors"} \
            else name


def allowed_methods(checkpoint: CheckpointWeights | None) -> frozenset[str]:
    """The fine-tuning methods a checkpoint allows: all three unquantised; ``lora`` and ``qlora`` (adapters on the
    frozen quantised base, its stored weights as they are) for a pre-quantised one, never ``full``."""
    if checkpoint is None or not checkpoint.is_quantized:
        return frozenset({"full", "lora", "qlora"})
    return frozenset({"lora", "qlora"})


def quantization_from_config(cfg: Mapping[str, Any]) -> tuple[Quantization, int | None]:
    """The stored quantisation named by a ``config.json``'s ``quantization_config`` and its bits per weight.

    ``("none", None)`` when the config has none or names a method Tuneplan does not know (the tensor dtypes may
    still show one: :func:`checkpoint_from_tensors` looks at them too).
    """
    q = cfg.get("quantization_config")
    if not isinstance(q, Mapping) and isinstance(cfg.get("text_config"), Mapping):
        q = cfg["text_config"].get("quantization_config")
    if not isinstance(q, Mapping):
        return "none", None
    method = str(q.get("quant_method") or "").lower().replace("_", "-")

    def bits(*keys: str) -> int | None:
        for key in keys:
            value = q.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 32:
                return value
        return None

    if method == "gptq":
        return "gptq", bits("bits") or 4
    if method == "awq":
        return "awq", bits("bits", "w_bit") or 4
    if method == "bitsandbytes":
        if q.get("load_in_4bit") or q.get("_load_in_4bit"):
            return "bnb-4bit", 4
        if q.get("load_in_8bit") or q.get("_load_in_8bit"):
            return "bnb-8bit", 8
        return "none", None
    if method in {"fp8", "fbgemm-fp8"}:
        return "fp8", 8
    if method == "compressed-tensors":
        found: int | None = None
        groups = q.get("config_groups")
        if isinstance(groups, Mapping):
            for group in groups.values():
                weights = group.get("weights") if isinstance(group, Mapping) else None
                n = weights.get("num_bits") if isinstance(weights, Mapping) else None
                if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 32:
                    found = n
                    break
        if found is not None and found >= 16:
            return "none", None  # a dense checkpoint saved through compressed-tensors
        return "compressed-tensors", found
    return "none", None


def _numel(shape: Sequence[int]) -> int:
    return math.prod(int(d) for d in shape) if shape else 1


#: Bounds on one tensor of a header read from an untrusted file: real checkpoints have at most 5 dimensions (conv
#: and expert stacks) and the largest published tensors hold ~1e10 elements (a 256k-vocabulary x 16k embedding is
#: 4.2e9); anything beyond these is a hostile or broken header, refused rather than counted.
MAX_TENSOR_DIMS = 8
MAX_TENSOR_ELEMENTS = 10**13


def checkpoint_from_tensors(
    tensors: Iterable[tuple[str, str, Sequence[int]]],
    config: Mapping[str, Any] | None = None,
    *,
    tie_word_embeddings: bool = False,
    source: str = "",
) -> CheckpointWeights:
    """Count a checkpoint from its tensor table.

    Args:
        tensors: ``(name, dtype, shape)`` of every tensor, dtypes as safetensors names them (``BF16``, ``I32``...).
        config: the ``config.json`` object (its ``quantization_config`` names the stored quantisation).
        tie_word_embeddings: the config ties the LM head to the input embedding: a stored ``lm_head.weight`` of
            the embedding's shape is then counted once (transformers usually drops it when saving).
        source: where the table was read, kept on the result.

    Returns:
        The counts; for a pre-quantised checkpoint ``quantized_*`` are the layer matrices.

    Raises:
        ValueError: no tensors, an unknown dtype, or a negative dimension.
    """
    table = [(str(n), str(d).upper(), tuple(int(x) for x in s)) for n, d, s in tensors]
    if not table:
        raise ValueError("the checkpoint lists no tensors")
    for name, dtype, shape in table:
        if dtype not in DTYPE_BYTES:
            raise ValueError(f"tensor {name[:80]!r} has an unknown dtype {dtype[:20]!r}")
        if any(d < 0 for d in shape):
            raise ValueError(f"tensor {name[:80]!r} has a negative dimension")
        if len(shape) > MAX_TENSOR_DIMS or _numel(shape) > MAX_TENSOR_ELEMENTS:
            raise ValueError(f"tensor {name[:80]!r} claims a shape no checkpoint holds "
                             f"({len(shape)} dimensions; at most {MAX_TENSOR_DIMS} of at most {MAX_TENSOR_ELEMENTS:.0e}"
                             " elements are read)")
    method, bits = quantization_from_config(config or {})
    names = {n for n, _, _ in table}
    if method == "none" and any(d in _FLOAT8 for _, d, _ in table):
        method, bits = "fp8", 8  # float8 weights without a quantization_config
    params = quantized_params = 0
    quantized_bytes = stored = 0.0
    shapes = {n: s for n, _, s in table}
    for name, dtype, shape in table:
        numel = _numel(shape)
        size = numel * DTYPE_BYTES[dtype]
        stored += size
        if name.endswith(_AUX_SUFFIXES) or _BNB_STATE in name:
            quantized_bytes += size
            continue
        packed = 0  # parameters per stored element when this tensor holds quantised weights
        if dtype in {"I32", "U32"} and name.endswith((".qweight", ".weight_packed")):
            packed = 32 // (bits or 4)
        elif dtype == "U8" and f"{name}.absmax" in names:
            packed = 2  # bitsandbytes 4-bit: two codes a byte
        elif dtype == "I8" and method in {"bnb-8bit", "compressed-tensors"} and name.endswith(".weight"):
            packed = 1
        elif dtype in _FLOAT8 and name.endswith(".weight"):
            packed = 1
        if packed:
            n = numel * packed
            params += n
            quantized_params += n
            quantized_bytes += size
        else:
            params += numel
    if tie_word_embeddings:
        head = next((n for n in names if n == "lm_head.weight" or n.endswith(".lm_head.weight")), None)
        embed = next((n for n in names if n.endswith("embed_tokens.weight") or n.endswith("wte.weight")
                      or n.endswith("word_embeddings.weight")), None)
        if head and embed and shapes[head] == shapes[embed]:
            params -= _numel(shapes[head])
    if method != "none" and not quantized_params:
        method, bits = "none", None  # a config that says quantised over 16-bit tensors: the tensors win
    return CheckpointWeights(
        parameters=max(params, 1),
        quantization=method,
        bits=bits if method != "none" else None,
        quantized_parameters=quantized_params,
        quantized_bytes=round(quantized_bytes),
        stored_bytes=round(stored),
        source=source[:2000],
    )
