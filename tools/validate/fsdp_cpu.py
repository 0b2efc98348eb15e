"""FSDP2 on two CPU processes, measured by PyTorch's MemTracker: the FSDP terms of the ledger, checked.

``make validate`` runs this after ``grid.py`` (in ``.venv-validate``); it writes
``docs/validation/fsdp_cpu.json`` and ``docs/validation-fsdp.md``. About half a minute on 2 cores.

A tiny Llama (hidden 256, 2 layers, vocabulary 8,192, untied embeddings, BF16) is trained for one
step of two micro-batches with ``fully_shard`` on two ``gloo`` processes; MemTracker reports the peak
by category (parameters, gradients, ...) of rank 0, after a warm-up step so the AdamW states exist.
Cases: the embeddings and LM head in the root unit (Hugging Face accelerate's layer wrap) or sharded
apart (torchtune's ``custom_sharded_layers``), and gradients synced at the optimizer step
(``set_requires_gradient_sync(False)`` on the first micro-batch, FSDP2's ``no_sync``) or every
micro-batch.

What CPU runs can and cannot show: parameters and gradients are the same tensors as on a GPU, so the
unsharded gradients kept under ``no_sync`` and the root unit kept unsharded are measured exactly. CPU
has no CUDA streams, so FSDP2 does not prefetch the next layer (one gathered layer, not two), and CPU
kernels have their own temporaries (the embedding backward), so temporaries and the peak's moment are
not compared.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT_JSON = ROOT / "docs" / "validation" / "fsdp_cpu.json"
OUT_MD = ROOT / "docs" / "validation-fsdp.md"

#: the toy model (kept small: two processes on two cores)
CONFIG = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
          "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 8192, "tie_word_embeddings": False}
TOKENS = 64
CASES = {
    "root, sync at step": {"wrap": "layers", "sync": "step"},
    "root, sync every micro-batch": {"wrap": "layers", "sync": "micro-batch"},
    "embeddings apart, sync at step": {"wrap": "separate-embeddings", "sync": "step"},
}


def _rank(rank: int, world: int, case: dict, port: int, out: str) -> None:
    import torch
    import torch.distributed as dist
    from torch.distributed._tools.mem_tracker import MemTracker
    from torch.distributed.fsdp import fully_shard
    from transformers import LlamaConfig, LlamaForCausalLM

    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    cfg = {k: v for k, v in CONFIG.items() if k != "model_type"}
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**cfg, attn_implementation="sdpa")).to(torch.bfloat16)
    if case["wrap"] == "separate-embeddings":
        fully_shard(model.model.embed_tokens)
        fully_shard(model.lm_head)
    for layer in model.model.layers:
        fully_shard(layer)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False)
    ids = torch.randint(0, CONFIG["vocab_size"], (1, TOKENS))
    model(input_ids=ids, labels=ids).loss.backward()  # warm-up step: the AdamW states exist from here on
    opt.step()
    opt.zero_grad()
    tracker = MemTracker()
    tracker.track_external(model, opt)
    with tracker:
        for micro in range(2):
            model.set_requires_gradient_sync(micro == 1 or case["sync"] == "micro-batch")
            model(input_ids=ids, labels=ids).loss.backward()
            tracker.reset_mod_stats()
        opt.step()
        opt.zero_grad()
    if rank == 0:
        peak = tracker.get_tracker_snapshot("peak")
        flat = {str(k).rsplit(".", 1)[-1]: int(v) for device in peak.values() for k, v in device.items()}
        Path(out).write_text(json.dumps(flat), "utf-8")
    dist.destroy_process_group()


def _rank_fsdp1_mixed(rank: int, world: int, port: int, out: str) -> None:
    """FSDP1 with ``use_orig_params=True``, one unit per decoder layer, only ``q_proj`` trainable (a stand-in
    for LoRA adapters inside the layer's unit, as LitGPT wraps them): the size of each unit's gradient."""
    import torch
    import torch.distributed as dist
    from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy
    from transformers import LlamaConfig, LlamaForCausalLM
    from transformers.models.llama.modeling_llama import LlamaDecoderLayer

    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    cfg = {k: v for k, v in CONFIG.items() if k != "model_type"}
    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(**cfg, attn_implementation="sdpa")).to(torch.bfloat16)
    for name, param in model.named_parameters():
        param.requires_grad = "q_proj" in name
    import warnings

    with warnings.catch_warnings():  # (FSDP warns about exactly this: "higher than expected" gradient memory)
        warnings.simplefilter("ignore")
        model = FSDP(model, auto_wrap_policy=ModuleWrapPolicy({LlamaDecoderLayer}), device_id=torch.device("cpu"),
                     use_orig_params=True)
    ids = torch.randint(0, CONFIG["vocab_size"], (1, TOKENS))
    model(input_ids=ids, labels=ids).loss.backward()
    units = []
    for module in model.modules():
        if isinstance(module, FSDP) and module._handle is not None and isinstance(module.module, LlamaDecoderLayer):
            flat = module._handle.flat_param
            grad = flat.grad
            # q_proj comes first in the layer's FlatParameter, so rank 0's shard starts with it: count the
            # gradient's nonzero elements after it, which belong to frozen weights
            q_numel = sum(p.numel() for p in module.module.parameters() if p.requires_grad)
            frozen_part = grad[q_numel:] if grad is not None and rank == 0 else None
            units.append({"flat_param_numel": flat.numel(), "grad_numel": 0 if grad is None else grad.numel(),
                          "trainable_numel": q_numel,
                          "frozen_grad_numel": 0 if frozen_part is None else frozen_part.numel(),
                          "frozen_grad_nonzero": 0 if frozen_part is None else int((frozen_part != 0).sum())})
    if rank == 0:
        Path(out).write_text(json.dumps(units), "utf-8")
    dist.destroy_process_group()


def measure() -> dict[str, dict[str, int]]:
    """Peak bytes by MemTracker category, rank 0, for every case in :data:`CASES`."""
    import torch
    import torch.multiprocessing as mp

    torch.set_num_threads(1)
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, case) in enumerate(CASES.items()):
            out = os.path.join(tmp, f"{i}.json")
            mp.spawn(_rank, args=(2, case, 29700 + i, out), nprocs=2)
            results[name] = json.loads(Path(out).read_text("utf-8"))
        out = os.path.join(tmp, "fsdp1.json")
        mp.spawn(_rank_fsdp1_mixed, args=(2, 29790, out), nprocs=2)
        results["fsdp1 mixed units"] = json.loads(Path(out).read_text("utf-8"))
    return results


def expected() -> dict[str, int]:
    """Hand counts for the toy model in BF16 on two ranks (``params`` in elements, the rest in bytes).

    ``params`` all parameters; ``shard`` the rank's half of their bytes; ``unsharded_grads`` every gradient,
    unsharded (``no_sync``); ``root`` the root unit (embeddings, LM head, final norm); ``layer`` one decoder
    layer with its two norms; ``vocab_matrix`` one vocabulary x hidden matrix.
    """
    h, i, n, v = (CONFIG[k] for k in ("hidden_size", "intermediate_size", "num_hidden_layers", "vocab_size"))
    layer = 4 * h * h + 3 * h * i + 2 * h
    root = 2 * v * h + h
    params = n * layer + root
    return {"params": params, "shard": params * 2 // 2, "unsharded_grads": params * 2, "root": root * 2,
            "layer": layer * 2, "vocab_matrix": v * h * 2}


def main() -> int:
    import torch
    import transformers

    start = time.time()
    measured = measure()
    exp = expected()
    doc = {"torch": torch.__version__, "transformers": transformers.__version__, "config": CONFIG, "tokens": TOKENS,
           "expected": exp, "measured": measured, "seconds": round(time.time() - start, 1)}
    OUT_JSON.write_text(json.dumps(doc, indent=2) + "\n", "utf-8")
    at_step = measured["root, sync at step"]
    each = measured["root, sync every micro-batch"]
    apart = measured["embeddings apart, sync at step"]
    units = measured["fsdp1 mixed units"]
    root_buffers = each["GRAD"] + each["TEMP"] - exp["shard"]
    rows = [
        ("gradients at the peak under no_sync (root, sync at step; the peak is micro-batch 2's forward)",
         at_step["GRAD"], exp["unsharded_grads"], "every parameter's gradient, unsharded"),
        ("parameters at that peak", at_step["PARAM"], exp["shard"] + exp["root"] + exp["layer"],
         "the rank's shard + the root unit unsharded + the layer being computed"),
    ]
    lines = [
        "# FSDP on two CPU processes, measured",
        "",
        "Issue #3. `tools/validate/fsdp_cpu.py` (run by `make validate`) trains a tiny Llama (hidden "
        f"{CONFIG['hidden_size']}, {CONFIG['num_hidden_layers']} layers, vocabulary {CONFIG['vocab_size']:,}, untied, BF16) "
        "with FSDP2 `fully_shard` on two `gloo` processes and reads rank 0's categories at the moment of the peak "
        f"from PyTorch's `MemTracker` (torch {torch.__version__}, transformers {transformers.__version__}; "
        f"{doc['seconds']} s). Each FSDP2 case is one optimizer step of two micro-batches after a warm-up step. The "
        "expected column is a hand count of the terms the ledger uses; `tests/unit/test_validation_fsdp.py` "
        "compares the ledger's own numbers with the measured ones on every test run.",
        "",
        "| quantity | measured B | expected B | what it is |",
        "|---|---|---|---|",
    ]
    for label, got, want, what in rows:
        lines.append(f"| {label} | {got:,} | {want:,} | {what} |")
    lines += [
        "",
        f"Synced every micro-batch, the peak is the root unit's reduce-scatter at the end of the backward: the kept "
        f"shards ({exp['shard']:,} B) and {root_buffers:,} B of root-sized gradient buffers "
        f"({root_buffers / exp['vocab_matrix']:.2f} vocabulary x hidden matrices in BF16). The ledger counts 4 such "
        "matrices at that moment on a GPU (the embedding's and LM head's gradients and the flat copy they are "
        "concatenated into); CPU's embedding backward and reduce-scatter keep more, so that number is only "
        "checked to be no more than measured. With the embeddings and LM head sharded apart the peak's "
        f"parameters are {apart['PARAM']:,} B, the rank's shard alone at that moment.",
        "",
        f"FSDP1 with `use_orig_params=True` and one unit per decoder layer in which only `q_proj` trains (a "
        "stand-in for LoRA adapters inside the layer's unit, as LitGPT wraps them), after one backward: each layer "
        f"unit's gradient covers its whole shard ({units[0]['grad_numel']:,} elements on rank 0). `q_proj` comes "
        f"first in the unit, so its {units[0]['trainable_numel']:,} elements lie in rank 0's half; the other "
        f"{units[0]['frozen_grad_numel']:,} belong to frozen weights, and {units[0]['frozen_grad_nonzero']:,} of them "
        "hold nonzero gradients: every frozen weight of the layer gets a gradient, as `--fsdp-wrap "
        "blocks-with-adapters` counts.",
        "",
        "What CPU runs cannot show: the parameters and gradients are the same tensors as on a GPU, but FSDP2's "
        "all-gather buffers are counted by MemTracker among the activations, the run gathers one layer at a time "
        "(the ledger counts the prefetched next one too, as on a GPU), and the CPU kernels have temporaries of "
        "their own, so activations, temporaries and prefetch are not compared.",
        "",
    ]
    OUT_MD.write_text("\n".join(lines), "utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
