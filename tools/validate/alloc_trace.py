"""Allocation traces of real training steps, for the caching-allocator replay in :mod:`alloc_sim`.

A fake-tensor training step (:mod:`fake_step`) knows every storage autograd, the model and the optimizer
create and free, in order, but not what the CUDA caching allocator does with them. This module records that
order — ``("a", id, bytes)`` when a storage appears (512-byte rounded, as the allocator rounds), ``("f", id)``
when its last reference dies — over several consecutive training steps, each with its own sequence length, so
that :mod:`alloc_sim` can replay it through a model of PyTorch's ``CUDACachingAllocator`` and report what
``max_memory_reserved`` would be.

Limits: storages that live and die inside one kernel (cuBLAS workspace, FlashAttention's scratch) are not
seen; the allocation order is CPU fake-tensor order, which follows the same autograd graph as a CUDA run.
"""

from __future__ import annotations

import contextlib
import gc
import time
from typing import Any

import torch
from fake_step import CaseSpec, PhaseMemTracker, fake_model
from torch.distributed._tools import mem_tracker as _mt

__all__ = ["TraceTracker", "trace_steps"]


class TraceTracker(PhaseMemTracker):
    """PhaseMemTracker that also logs every storage's appearance and death, in order.

    ``events`` is a list of ``("a", key, bytes, step)`` and ``("f", key, 0, step)`` tuples; ``step`` is the
    training step (``-1``: storages that existed before tracking, i.e. weights and optimizer states).
    """

    def __init__(self) -> None:
        super().__init__()
        self.events: list[tuple[str, int, int, int]] = []
        self.step = -1
        self._next = 0
        self._keys: dict[int, int] = {}

    def _update_snap(self, u_type, winfo, old_mem_consumed=None, old_reftype=None):  # noqa: ANN001 - MemTracker's
        """Every change of live memory passes here: a new storage (ADD), a dead one (DEL), a resize (SIZE)."""
        if u_type == _mt._UpdateType.ADD:
            self._log_alloc(winfo)
        elif u_type == _mt._UpdateType.DEL:
            self._log_free(winfo)
        elif u_type == _mt._UpdateType.SIZE:
            self._log_free(winfo)
            self._log_alloc(winfo)
        super()._update_snap(u_type, winfo, old_mem_consumed, old_reftype)

    def _log_alloc(self, winfo) -> None:  # noqa: ANN001
        if winfo.mem_consumed <= 0:
            return
        key = self._next
        self._next += 1
        self._keys[id(winfo)] = key
        self.events.append(("a", key, winfo.mem_consumed, self.step))

    def _log_free(self, winfo) -> None:  # noqa: ANN001
        key = self._keys.pop(id(winfo), None)
        if key is not None:
            self.events.append(("f", key, 0, self.step))


def trace_steps(spec: CaseSpec, lengths: list[int], grad_accumulation: int = 1) -> dict[str, Any]:
    """Run one micro-batch per entry of ``lengths`` (tokens per sequence, ``spec.micro_batch`` sequences each),
    with an optimizer step and ``zero_grad(set_to_none=True)`` after every ``grad_accumulation`` micro-batches.

    The first step creates the AdamW states lazily inside ``optimizer.step()``, as a real first step does.
    Returns ``{"events": [...], "lengths": lengths, "seconds": s}`` (see :class:`TraceTracker`).
    """
    t0 = time.perf_counter()
    with fake_model(spec) as (model, vocab):
        params = [p for p in model.parameters() if p.requires_grad]
        opt_kwargs = {"fused": True} if spec.optimizer == "adamw-fused" else {"foreach": True}
        optimizer = torch.optim.AdamW(params, lr=1e-5, **opt_kwargs)
        amp = torch.autocast("cpu", dtype=torch.bfloat16) if spec.autocast else contextlib.nullcontext()
        mt = TraceTracker()
        mt.track_external(model, optimizer)
        with mt:
            for i, n in enumerate(lengths):
                mt.step = i
                mt.reset_mod_stats()  # MemTracker refuses a module's second forward otherwise
                ids = torch.randint(0, vocab, (spec.micro_batch, n))
                with amp:
                    loss = model(input_ids=ids, labels=ids).loss
                loss.backward()
                del loss, ids
                if (i + 1) % grad_accumulation == 0:
                    optimizer.step()
                    optimizer.zero_grad(set_to_none=True)
                gc.collect()
        events = list(mt.events)
        del model, optimizer, mt, params
        gc.collect()
    return {"events": events, "lengths": list(lengths), "seconds": round(time.perf_counter() - t0, 2)}
