"""The bundled GPU catalog (``data/gpus.csv``) and a matcher for the names people and drivers use.

``data/gpus.csv`` holds all 35 rows of ``shared/reference/gpus.csv`` (collected 2026-11-30; per-row
``source`` column) with two added columns:

* ``memory_gib``: the capacity the driver reports, nvidia-smi ``memory.total`` MiB / 1024. For A100,
  H100, L40S, RTX A6000, RTX 4090, RTX 3090, A10G, L4 and T4 the values are the ones listed in
  ``shared/reference/measurements/README.md``; for H200, H100 NVL, V100, B200, A10, A40, L40, GH200,
  RTX 5090, RTX A5000 and RTX PRO 6000 they come from public nvidia-smi printouts (the MiB figure is
  in ``memory_gib_source``); the remaining cards use the nominal ``memory_gb`` (noted as such).
* ``memory_gib_source``: where that number came from.

TFLOPS are dense tensor-core rates with FP32 accumulate (what mixed-precision training uses).
"""

from __future__ import annotations

import re
from functools import lru_cache

from tuneplan.catalog._data import read_csv, to_float
from tuneplan.core.scenario import GpuSpec

__all__ = ["SPECS_COLLECTED", "get_gpu", "list_gpus", "match_gpu"]

#: When the rows of ``data/gpus.csv`` were collected (shown in Help → About).
SPECS_COLLECTED = "2026-11-30"


def _spec(row: dict[str, str]) -> GpuSpec:
    measured = to_float(row.get("measured_bf16_matmul_tflops", ""))
    source = row.get("source", "")
    if row.get("memory_gib_source"):
        source = f"{source}; memory_gib: {row['memory_gib_source']}"
    return GpuSpec(
        id=row["gpu_id"],
        name=row["name"],
        vendor=row.get("vendor") or "NVIDIA",
        memory_gib=float(row.get("memory_gib") or row["memory_gb"]),
        bf16_tflops=to_float(row.get("bf16_tflops_dense", ""), 0.0) or 0.0,
        fp16_tflops=to_float(row.get("fp16_tflops_dense", ""), 0.0) or 0.0,
        measured_bf16_tflops=measured if measured else None,
        memory_bandwidth_gbps=to_float(row.get("memory_bandwidth_gbps", ""), 1000.0) or 1000.0,
        bf16_supported=row.get("bf16_supported", "yes").lower() in {"yes", "true", "1"},
        segment=row.get("segment") or "datacenter",
        interconnect=row.get("interconnect") or "PCIe only",
        p2p_link_gbps=to_float(row.get("p2p_link_gbps", ""), 0.0) or 0.0,
        tdp_w=to_float(row.get("tdp_w", ""), 0.0) or 0.0,
        sm_count=int(to_float(row.get("sm_count", ""), 0.0) or 0),
        compute_capability=to_float(row.get("compute_capability", ""), 0.0) or 0.0,
        architecture=row.get("architecture") or "",
        pcie=row.get("pcie") or "PCIe 4.0 x16",
        source=source,
    )


@lru_cache(maxsize=1)
def _gpus() -> tuple[GpuSpec, ...]:
    return tuple(_spec(row) for row in read_csv("gpus.csv"))


def list_gpus() -> list[GpuSpec]:
    """All catalog GPUs in file order (consumer cards first, then workstation and datacenter).

    Memory is in GiB as the driver reports it; bandwidth in GB/s; TFLOPS dense. The list is a
    fresh copy each call; the :class:`GpuSpec` objects validate on assignment, so copy one
    (``spec.model_copy()``) before editing it.
    """
    return [g.model_copy() for g in _gpus()]


def get_gpu(gpu_id: str) -> GpuSpec:
    """The catalog GPU with this id (e.g. ``"rtx4090"``, ``"h100_sxm"``); a copy, safe to edit.

    Raises:
        KeyError: unknown id; the message lists the valid ids.
    """
    for gpu in _gpus():
        if gpu.id == gpu_id:
            return gpu.model_copy()
    known = ", ".join(g.id for g in _gpus())
    raise KeyError(f"unknown GPU id {gpu_id!r}; known ids: {known}")


# ---------------------------------------------------------------------------- name matching

_VENDOR_WORDS = {"nvidia", "geforce", "tesla", "amd", "instinct", "radeon", "tensor", "core", "gpu", "graphics", "card"}
# Variants that exist but are not in the catalog: a match would silently pick the wrong card.
_REJECT_WORDS = {"laptop", "mobile", "max", "maxq"}
_MEM_RE = re.compile(r"^(\d{1,3})g(?:b|ib)?$")


def _tokens(name: str) -> list[str]:
    text = name.lower().replace("max-q", "maxq")
    text = re.sub(r"[^a-z0-9.]+", " ", text)
    # "80 GB" -> "80gb"
    text = re.sub(r"\b(\d{1,3})\s+(gb|gib|g)\b", r"\1\2", text)
    return [t for t in text.split() if t and t not in _VENDOR_WORDS]


def _memory(tokens: list[str]) -> int | None:
    sizes = {int(m.group(1)) for t in tokens if (m := _MEM_RE.match(t))}
    return sizes.pop() if len(sizes) == 1 else (-1 if sizes else None)


def _has(tokens: list[str], *words: str) -> bool:
    return any(w in tokens for w in words)


def _match_tokens(t: list[str]) -> str | None:  # noqa: C901 - a flat table of card rules reads best
    mem = _memory(t)
    if mem == -1 or _has(t, *_REJECT_WORDS):
        return None
    joined = " ".join(t)

    # Hopper / Blackwell datacenter
    if _has(t, "gh200"):
        return "gh200"
    if _has(t, "b200"):
        return "b200"
    if _has(t, "h200"):
        return None if _has(t, "nvl") else "h200"  # H200 NVL (PCIe, 600 W) is not in the catalog
    if _has(t, "h100"):
        if _has(t, "nvl") or mem == 94:
            return "h100_nvl"
        if _has(t, "pcie"):
            return "h100_pcie"
        if _has(t, "sxm", "sxm5", "hbm3"):
            return "h100_sxm"  # nvidia-smi names the SXM5 part "NVIDIA H100 80GB HBM3"
        return None  # "H100" / "H100 80GB": PCIe (756 TFLOPS) or SXM (989)? ambiguous
    # Ampere / Volta datacenter
    if _has(t, "a100"):
        if mem == 40:
            return "a100_40gb"  # SXM4 row; the 40GB PCIe card has the same memory, TFLOPS and bandwidth
        if mem == 80 or mem is None and _has(t, "pcie", "sxm", "sxm4"):
            if mem is None:
                return None  # form factor without size: 40 or 80 GB?
            return "a100_80gb_pcie" if _has(t, "pcie") else "a100_80gb_sxm"
        return None
    if _has(t, "v100"):
        if _has(t, "pcie", "v100s"):
            return None  # PCIe V100 has 112 (not 125) tensor TFLOPS: not in the catalog
        return {16: "v100_16gb", 32: "v100_32gb"}.get(mem or 0)
    if _has(t, "v100s"):
        return None
    for word, gid in (("t4", "t4"), ("l4", "l4"), ("l40s", "l40s"), ("l40", "l40"), ("a10g", "a10g"),
                      ("a10", "a10"), ("a40", "a40"), ("mi250x", "mi250x"), ("mi300x", "mi300x")):
        if _has(t, word):
            return gid
    # Workstation
    if _has(t, "a6000"):
        return None if _has(t, "ada") else "rtx_a6000"
    if _has(t, "a5000"):
        return "rtx_a5000"
    if _has(t, "a4000"):
        return "rtx_a4000"
    if "pro 6000" in joined:
        return "rtx_pro6000_blackwell"  # Workstation and Server Edition; Max-Q rejected above
    if "6000 ada" in joined or _has(t, "6000ada"):
        return "rtx6000_ada"
    # GeForce: "RTX 4090", "NVIDIA GeForce RTX 4090", "4090"
    ti, sup = _has(t, "ti"), _has(t, "super")
    if _has(t, "4090"):
        return None if _has(t, "d") else "rtx4090"
    if _has(t, "5090"):
        return "rtx5090"
    if _has(t, "5080"):
        return None if sup else "rtx5080"
    if _has(t, "4080"):
        return None if sup else "rtx4080"
    if _has(t, "4070") and ti and sup:
        return "rtx4070tisuper"
    if _has(t, "4060") and ti and mem == 16:
        return "rtx4060ti_16gb"  # the 8 GB 4060 Ti reports the same name: size required
    if _has(t, "3090"):
        return "rtx3090ti" if ti else "rtx3090"
    if _has(t, "3080") and not ti and mem in (None, 10):
        return "rtx3080_10gb"
    if _has(t, "3060") and not ti and mem in (None, 12):
        return "rtx3060_12gb"
    return None


def match_gpu(name: str) -> GpuSpec | None:
    """Map a GPU name as people, clouds or ``nvidia-smi`` write it to a catalog GPU.

    Understands catalog ids (``"h100_sxm"``), catalog names, and spellings such as ``"A100 80GB"``,
    ``"NVIDIA A100-SXM4-80GB"``, ``"NVIDIA H100 80GB HBM3"`` (the SXM5 part), ``"NVIDIA H100 NVL"``,
    ``"Tesla T4"``, ``"Tesla V100-SXM2-16GB"``, ``"NVIDIA GeForce RTX 4090"``, ``"NVIDIA RTX A6000"``,
    ``"gh200"``. Vendor words (NVIDIA, GeForce, Tesla, AMD Instinct) and case are ignored.

    Returns ``None`` when the name is empty, unknown (e.g. ``"GeForce GTX 1080"``), a variant the
    catalog lacks (laptop/Max-Q parts, H200 NVL, V100 PCIe, RTX 4090 D) or ambiguous (``"H100"``
    could be PCIe or SXM, ``"A100"`` 40 or 80 GB, ``"RTX 6000"`` Turing or Ada) — never a wrong card.
    ``"A100 80GB"`` without a form factor maps to the SXM4 row: both have 80 GB and 312 TFLOPS and
    differ only in bandwidth (2039 vs 1935 GB/s) and power.
    """
    if not isinstance(name, str) or not name.strip():
        return None
    key = name.strip().lower()
    gpus = _gpus()
    for gpu in gpus:
        if key == gpu.id:
            return gpu.model_copy()
    tokens = _tokens(name)
    if not tokens:
        return None
    for gpu in gpus:
        if tokens == _tokens(gpu.name) or tokens == _tokens(gpu.id.replace("_", " ")):
            return gpu.model_copy()
    gid = _match_tokens(tokens)
    if gid is None:
        return None
    return get_gpu(gid)
