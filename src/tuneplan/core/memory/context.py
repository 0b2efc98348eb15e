"""Bytes per element of the dtypes a plan holds its tensors in, NF4 included."""

from __future__ import annotations

_DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}


def nf4_bytes_per_param(double_quant: bool) -> float:
    """Bytes per parameter of an NF4-quantised matrix, quantisation constants included.

    4 bits per weight, plus per block of 64 weights either one fp32 absmax (32/64 = 0.5 bit) or,
    with double quantisation, one 8-bit absmax plus one fp32 constant per 256 blocks
    (8/64 + 32/(64*256) = 0.127 bit). Source: QLoRA paper, arXiv:2305.14314 §3.
    """
    bits = 4 + (8 / 64 + 32 / (64 * 256) if double_quant else 32 / 64)
    return bits / 8
