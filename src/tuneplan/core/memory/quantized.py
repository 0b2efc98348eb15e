"""Bytes of a bitsandbytes-quantised frozen base (QLoRA's NF4, LLM.int8) and the working set of its matmuls.

The lowest layer of ``core/memory``: functions of the architecture and the plan only, read by the context, the
activations, the workloads' reference pass and the step-time model alike.
"""

from __future__ import annotations

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.scenario import TrainingSetup

__all__ = ["int8_bytes_per_param", "int8_matmul_transient", "nf4_bytes_per_param", "quantized_base_bytes_per_param"]


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


def quantized_base_bytes_per_param(arch: ModelArchitecture, t: TrainingSetup) -> float:
    """Bytes per parameter of a QLoRA base's quantised layer matrices: NF4 (:func:`nf4_bytes_per_param`) or, with
    ``quant_bits`` 8, LLM.int8 (:func:`int8_bytes_per_param`)."""
    return int8_bytes_per_param(arch) if t.quant_bits == 8 else nf4_bytes_per_param(t.double_quant)


def int8_matmul_transient(arch: ModelArchitecture, tokens: float, *, backward: bool = True) -> float:
    """The largest working set of one LLM.int8 matmul beyond its input and output (bytes), for ``tokens`` rows of
    input. In the forward (bitsandbytes ``MatMul8bitLt.forward``, @95f9af3) the 16-bit input is cast to fp16 and
    quantised row-wise: the fp16 copy (2 B x ``d_in``) and the int8 codes ``CA`` (1 B x ``d_in``) are alive together;
    then ``int8_linear_matmul`` writes an int32 result (4 B x ``d_out``) beside ``CA`` before ``int8_mm_dequant`` turns
    it into the output: ``tokens x max(3 d_in, d_in + 4 d_out)``. In the backward the input's gradient multiplies a
    16-bit copy of the dequantised weight (``state.CB.to(dtype_A, copy=True)``, 2 B x ``d_in x d_out``). The larger
    of the two (the forward's alone for a pass without gradients, ``backward=False``), over the model's quantised
    matrices (stacked experts are not ``nn.Linear`` and stay unquantised)."""
    forward = backward_copy = 0.0
    for _, mods in arch.linear_modules():
        for m in mods:
            if m.count == 1:
                forward = max(forward, tokens * max(3 * m.d_in, m.d_in + 4 * m.d_out))
                backward_copy = max(backward_copy, 2.0 * m.d_in * m.d_out)
    return max(forward, backward_copy) if backward else forward
