"""The spec a user's own card is planned on: its catalog card's physics with the card's own memory (issue #19).

A card read from NVML or typed in by hand is the same silicon as its catalog entry: the measured matmul ceiling
(``measured_bf16_tflops``), SM count, bandwidth, compute capability, architecture, PCIe link and board power all
come from the catalog, so a local RTX 3090 gets the catalog RTX 3090's step time. Only what the card itself says
replaces a catalog value: the memory the driver reports (or the user typed) and a throughput the user typed that
differs from the catalog's. No Qt, no NVML.
"""

from __future__ import annotations

from tuneplan.catalog.gpus import get_gpu, match_gpu
from tuneplan.core.scenario import GpuSpec

__all__ = ["TYPED_GIB_RESOLUTION", "TYPED_TFLOPS_RESOLUTION", "own_gpu_spec"]

#: The hand-entry form shows memory to one decimal (GiB): a typed value within half a step of the catalog's is the
#: catalog's (the RTX 4090's 23.99 GiB shows as 24.0), so the card and the catalog card give one set of limits.
TYPED_GIB_RESOLUTION = 0.05
#: The same for the typed BF16 TFLOPS (one decimal): the catalog's own rate copied into the form is no override.
TYPED_TFLOPS_RESOLUTION = 0.05


def own_gpu_spec(name: str, memory_gib: float, *, catalog_id: str | None = None, bf16_tflops: float | None = None,
                 bf16_supported: bool | None = None, custom_id: str = "manual", typed: bool = False) -> GpuSpec:
    """The :class:`GpuSpec` to plan on for one of the user's cards.

    Args:
        name: the card's name as NVML reports it or the user typed it (``NVIDIA GeForce RTX 3090``).
        memory_gib: its memory (GiB): NVML's total / 2**30, or the typed value.
        catalog_id: the catalog card it is (the probe's match, or the card the form copied from); when None or
            unknown, ``name`` is matched (:func:`~tuneplan.catalog.gpus.match_gpu`).
        bf16_tflops: dense BF16 TFLOPS the user typed (None: not typed). Equal to the catalog's rate (to
            :data:`TYPED_TFLOPS_RESOLUTION`), it keeps the catalog's measured ceiling; different, it replaces the
            rate and drops the measured ceiling (it was measured on the catalog's rate).
        bf16_supported: what the card reports (compute capability 8.0 or newer), for a card not in the catalog.
        custom_id: the id of a card not in the catalog.
        typed: ``memory_gib`` was typed in a one-decimal field: within :data:`TYPED_GIB_RESOLUTION` of the
            catalog's memory it is the catalog's.

    Returns:
        The catalog card itself when nothing differs (memory equal to two decimals), else a copy with the card's
        memory and typed rate; a custom spec (``segment="local"``, no throughput unless typed) for an unknown card.
    """
    base: GpuSpec | None = None
    if catalog_id:
        try:
            base = get_gpu(catalog_id)
        except KeyError:
            base = None
    if base is None:
        base = match_gpu(name)
    if base is None:
        tflops = bf16_tflops or 0.0
        return GpuSpec(id=custom_id, name=name, vendor="", memory_gib=memory_gib, bf16_tflops=tflops,
                       fp16_tflops=tflops, bf16_supported=bf16_supported is not False, segment="local")
    update: dict[str, object] = {}
    same_memory = (abs(memory_gib - base.memory_gib) < TYPED_GIB_RESOLUTION if typed
                   else round(memory_gib, 2) == round(base.memory_gib, 2))
    if not same_memory:
        update["memory_gib"] = memory_gib
    if bf16_tflops and abs(bf16_tflops - base.peak_tflops) >= TYPED_TFLOPS_RESOLUTION:
        update["bf16_tflops"] = bf16_tflops
        update["measured_bf16_tflops"] = None  # the typed rate replaces the catalog's
    return base.model_copy(update=update) if update else base
