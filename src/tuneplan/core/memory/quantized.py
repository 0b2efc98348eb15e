"""Bytes of a quantised frozen base (bitsandbytes NF4 and LLM.int8, HQQ) and the working set of its matmuls.

The lowest layer of ``core/memory``: functions of the architecture and the plan only, read by the context, the
activations, the workloads' reference pass and the step-time model alike.
"""

from __future__ import annotations

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.scenario import TrainingSetup

__all__ = ["HQQ_DEQUANT_TENSORS", "quantized_frozen_base", "quantized_linear_weights", "hqq_base", "hqq_bytes_per_param", "hqq_dequant_transient", "int8_base",
           "int8_bytes_per_param", "int8_matmul_transient", "nf4_bytes_per_param", "quantized_base_bytes_per_param"]

#: Full-size tensors in the compute dtype alive at once while HQQ dequantises a matrix (hqq @e0b1d00
#: ``Quantizer.dequantize``: ``W_r = ((W_r - zero) * scale)``: the unpacked ``W_r``, still bound while the expression
#: runs, ``W_r - zero`` and the product): 3.
HQQ_DEQUANT_TENSORS = 3


def nf4_bytes_per_param(double_quant: bool) -> float:
    """Bytes per parameter of an NF4-quantised matrix, quantisation constants included.

    4 bits per weight, plus per block of 64 weights either one fp32 absmax (32/64 = 0.5 bit) or,
    with double quantisation, one 8-bit absmax plus one fp32 constant per 256 blocks
    (8/64 + 32/(64*256) = 0.127 bit). Source: QLoRA paper, arXiv:2305.14314 §3.
    """
    bits = 4 + (8 / 64 + 32 / (64 * 256) if double_quant else 32 / 64)
    return bits / 8


def int8_bytes_per_param(arch: ModelArchitecture) -> float:
    """Bytes per parameter of the layer matrices bitsandbytes quantises with LLM.int8 (``load_in_8bit``), averaged
    exactly over the model's matrices: each ``d_out x d_in`` matrix holds int8 codes (``Int8Params.CB``, 1 B per
    weight) and one fp32 absmax per output row (``SCB``, 4 B x ``d_out``, from ``int8_vectorwise_quant``); a bias
    stays 16-bit (2 B x ``d_out``). Stacked experts (3-D tensors, not ``nn.Linear``) are not quantised and not
    counted. Sources: bitsandbytes ``nn/modules.py`` ``Int8Params``, ``functional.py`` ``int8_vectorwise_quant``
    (@95f9af3); Dettmers et al. 2022, arXiv:2208.07339 §3 (vector-wise quantisation)."""
    params = stored = 0.0
    for n, mods in arch.linear_modules():
        for m in mods:
            if m.count == 1:
                params += n * m.params
                stored += n * (m.d_in * m.d_out + 4 * m.d_out + (2 * m.d_out if m.bias else 0))
    return stored / params if params else 1.0


def quantized_linear_weights(arch: ModelArchitecture) -> float:
    """Weights of the layer matrices a quantising loader replaces (``nn.Linear`` only: bitsandbytes and HQQ leave the
    stacked experts of transformers >= 5, 3-D tensors, as they are): ``sum d_in x d_out`` over the model's linear
    modules that are not stacked."""
    return float(sum(n * m.d_in * m.d_out for n, mods in arch.linear_modules() for m in mods if m.count == 1))


def hqq_bytes_per_param(bits: int, group_size: int, compute_bytes: float) -> float:
    """Bytes per parameter of an HQQ-quantised matrix: ``bits / 8`` packed (hqq ``BitPack``: two 4-bit codes or one
    8-bit code per byte) plus one scale and one zero point in the compute dtype per group of ``group_size`` weights
    (``2 x compute_bytes / group_size``; hqq >= 0.2 keeps them unquantised: ``quant_zero``/``quant_scale`` are
    ignored). 4-bit groups of 64 in bf16: 0.5 + 4/64 = 0.5625 B. Source: mobiusml/hqq @e0b1d00
    ``hqq/core/quantize.py`` ``Quantizer.quantize``, ``HQQLinear.initialize``; Badri & Shaji 2023, "Half-Quadratic
    Quantization of Large Machine Learning Models"."""
    return bits / 8.0 + 2.0 * compute_bytes / group_size


def hqq_base(arch: ModelArchitecture, t: TrainingSetup) -> bool:
    """Whether the plan's frozen base is quantised by HQQ as it loads: QLoRA with ``quant_method`` hqq on a 16-bit
    checkpoint (a pre-quantised checkpoint keeps its own format)."""
    ckpt = arch.checkpoint
    if ckpt is not None and ckpt.is_quantized:
        return False
    return t.method == "qlora" and t.quant_method == "hqq"


def hqq_compute_bytes(t: TrainingSetup) -> float:
    """Bytes of HQQ's compute dtype (the model's: transformers passes its ``torch_dtype``): 4 in FP32, else 2."""
    return 4.0 if t.precision == "fp32" else 2.0


def hqq_dequant_transient(arch: ModelArchitecture, t: TrainingSetup) -> float:
    """The largest working set of one HQQ dequantisation (bytes): :data:`HQQ_DEQUANT_TENSORS` full-size copies of the
    largest quantised matrix in the compute dtype (:func:`hqq_compute_bytes`; ``nn.Linear`` layers only, stacked
    experts stay unquantised)."""
    compute_bytes = hqq_compute_bytes(t)
    largest = max((m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods if m.count == 1), default=0)
    return HQQ_DEQUANT_TENSORS * compute_bytes * largest


def quantized_base_bytes_per_param(arch: ModelArchitecture, t: TrainingSetup) -> float:
    """Bytes per parameter of a quantised base's layer matrices: a pre-quantised checkpoint's as stored (scales and
    zero points included), else HQQ (:func:`hqq_bytes_per_param`, ``quant_method`` hqq), NF4
    (:func:`nf4_bytes_per_param`) or, with ``quant_bits`` 8, LLM.int8 (:func:`int8_bytes_per_param`)."""
    ckpt = arch.checkpoint
    if ckpt is not None and ckpt.is_quantized and ckpt.quantized_parameters:
        return ckpt.quantized_bytes / ckpt.quantized_parameters
    if t.quant_method == "hqq":
        return hqq_bytes_per_param(t.quant_bits, t.quant_group_size, hqq_compute_bytes(t))
    return int8_bytes_per_param(arch) if t.quant_bits == 8 else nf4_bytes_per_param(t.double_quant)


def quantized_frozen_base(arch: ModelArchitecture, t: TrainingSetup) -> bool:
    """Whether the adapters sit on a quantised frozen base: QLoRA, or LoRA on a pre-quantised checkpoint (GPTQ, AWQ,
    bitsandbytes, FP8...: its layers stay as stored whatever the method says, ``checkpoint.allowed_methods``)."""
    ckpt = arch.checkpoint
    return t.method == "qlora" or (t.method != "full" and ckpt is not None and ckpt.is_quantized)


def int8_base(arch: ModelArchitecture, t: TrainingSetup) -> bool:
    """Whether the plan's frozen base runs bitsandbytes' LLM.int8 matmuls: QLoRA with ``quant_bits`` 8 on a 16-bit
    checkpoint (bitsandbytes), or any adapter plan on a stored bitsandbytes 8-bit checkpoint (its ``Int8Params`` load
    as they are)."""
    ckpt = arch.checkpoint
    if ckpt is not None and ckpt.is_quantized:
        return t.method != "full" and ckpt.quantization == "bnb-8bit"
    return t.method == "qlora" and t.quant_bits == 8 and t.quant_method == "bnb"


def int8_matmul_transient(arch: ModelArchitecture, tokens: float, *, backward: bool = True,
                          fp16: bool = False) -> float:
    """The largest working set of one LLM.int8 matmul beyond its input and output (bytes), for ``tokens`` rows of
    input (bitsandbytes @95f9af3, ``MatMul8bitLt`` and the CUDA ops, with transformers' ``llm_int8_threshold`` 6.0).

    * Input side, per input feature: the input cast to fp16 (2 B; none for an fp16 model, ``fp16``), the int8 codes
      ``out_row`` (1 B) allocated before the outlier search, then ``A.abs()`` (2 B) and its ``>= threshold`` mask
      (1 B) alive together: 6 B (4 B in fp16).
    * Output side: the int8 codes ``CA`` (1 B per input feature) beside the int32 product (4 B per output feature),
      ``int8_mm_dequant``'s fp16 result (2 B) and, in a bf16 model, its ``.to(bf16)`` copy, which is the output:
      ``d_in + 6 d_out`` (``d_in + 4 d_out`` in fp16, where the fp16 result is the output).
    * Backward: the input's gradient multiplies a 16-bit copy of the dequantised weight
      (``state.CB.to(dtype_A, copy=True).mul_(...)``, 2 B x ``d_in x d_out``).

    The largest over the model's quantised matrices (stacked experts are not ``nn.Linear`` and stay unquantised); the
    forward's alone for a pass without gradients (``backward=False``)."""
    cast = 0 if fp16 else 2
    out_extra = 4 if fp16 else 6
    forward = backward_copy = 0.0
    for _, mods in arch.linear_modules():
        for m in mods:
            if m.count == 1:
                forward = max(forward, tokens * max((4 + cast) * m.d_in, m.d_in + out_extra * m.d_out))
                backward_copy = max(backward_copy, 2.0 * m.d_in * m.d_out)
    return max(forward, backward_copy) if backward else forward
