#!/usr/bin/env python3
"""Run ``../shared/reference/score_accuracy.py`` with the settings each run really used.

``scenarios.csv`` has no column for some settings that decide memory, so the reference scorer estimates
those rows with Tuneplan's defaults (Hugging Face Trainer's way of running). This wrapper adds, per row,
the settings that the row's ``notes`` or its framework's recipe state, and nothing else: no factor, no
per-row number. It keeps the reference script's rows, metrics and output format.

Added on top of each row's sequence kind (``--sequence-mode``, as ``tools/score_with_seq_kind.py``) and the
memory of the card it ran on (``--gpu-memory-gib``; the reference scorer estimates every row on the default
RTX 4090, which caps the cache of earlier batch shapes that dynamic padding leaves in ``max_memory_reserved``
at what a 24 GiB card has room for):

* **torchtune** LoRA/QLoRA: ``--adapter-precision model-dtype`` (torchtune's ``LoRALinear`` holds the
  adapters in the model dtype and runs no autocast).
  ``--torch-compile`` where the notes say the run had ``torch.compile on`` (the Llama 3.1 table), and for
  the optimisation-flags table from its "+ Compile" row onward (the table is cumulative: packed, + compile,
  + chunked CE, + activation checkpointing, + optimizer in backward, + activation offloading, + 8-bit
  AdamW, then LoRA and QLoRA; those are rows 11-18, the "+ Packed" row 10 ran without compile).
  ``--fsdp-wrap separate-embeddings`` for the runs of ``llama3_1/70B_full``, whose config sets
  ``custom_sharded_layers: ['tok_embeddings', 'output']`` (torchtune's LoRA configs leave it commented out, so
  their rows keep the default, the embeddings in the root unit).
* **LitGPT on several GPUs** (lit-gpt 8641822 ``finetune/lora.py``): the FSDP strategy forces
  ``precision="bf16-true"`` (``--adapter-precision model-dtype``), wraps each ``Block`` with its adapters in
  one FSDP unit (``--fsdp-wrap blocks-with-adapters``) and accumulates ``batch_size = 128`` samples per optimizer step
  under ``fabric.no_backward_sync`` (``--grad-accumulation 128 // micro_batch``; ``--grad-sync step``, the
  default).

``make accuracy`` writes its output to ``docs/accuracy-table-as-run.md``.

Usage: python tools/score_as_run.py [score_accuracy.py options]
"""
from __future__ import annotations

import sys
from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference"
sys.path.insert(0, str(REFERENCE))

import score_accuracy  # noqa: E402  (the reference scorer, imported from ../shared/reference)

_row_flags = score_accuracy.row_flags

#: torchtune README optimisation-flags table: the rows from "+ Compile" onward (reference scenarios.csv ids)
TORCHTUNE_FLAGS_TABLE_COMPILED = {"11", "12", "13", "14", "15", "16", "17", "18"}
#: lit-gpt 8641822 finetune/lora.py: samples per optimizer step
LITGPT_BATCH_SIZE = 128


def as_run_flags(row: dict[str, str]) -> list[tuple[str, ...]]:
    """The settings ``row`` ran with that ``scenarios.csv`` has no column for (see the module docstring)."""
    extra: list[tuple[str, ...]] = []
    kind = row.get("seq_kind", "").strip()
    if kind in {"fixed", "packed", "dynamic"}:
        extra.append(("--sequence-mode", kind))
    capacity = row.get("gpu_mem_gib", "").strip()
    if capacity:  # the card it ran on: how far a cache of earlier batch shapes could grow (max_memory_reserved)
        extra.append(("--gpu-memory-gib", capacity))
    framework, method, notes = row.get("framework", ""), row.get("method", ""), row.get("notes", "")
    if framework == "torchtune":
        if method in {"lora", "qlora"}:
            extra.append(("--adapter-precision", "model-dtype"))
        if "torch.compile on" in notes or row.get("id") in TORCHTUNE_FLAGS_TABLE_COMPILED:
            extra.append(("--torch-compile",))
        if "70B_full" in notes:
            extra.append(("--fsdp-wrap", "separate-embeddings"))
    if framework == "litgpt" and row.get("sharding") == "fsdp" and int(row.get("num_gpus") or 1) > 1 \
            and method == "lora":
        micro = max(1, int(row.get("micro_batch") or 1))
        extra += [("--adapter-precision", "model-dtype"), ("--fsdp-wrap", "blocks-with-adapters"),
                  ("--grad-accumulation", str(max(1, LITGPT_BATCH_SIZE // micro)))]
    return extra


def row_flags_as_run(row: dict[str, str], base: Path) -> list[tuple[str, ...]]:
    """The reference flags plus :func:`as_run_flags`."""
    return _row_flags(row, base) + as_run_flags(row)


if __name__ == "__main__":
    score_accuracy.row_flags = row_flags_as_run
    sys.exit(score_accuracy.main())
