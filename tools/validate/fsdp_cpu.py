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
            units.append({"flat_param_numel": flat.numel(), "grad_numel": 0 if flat.grad is None else flat.grad.numel(),
                          "trainable_numel": sum(p.numel() for p in module.module.parameters() if p.requires_grad)})
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
    """The byte counts the ledger's FSDP terms give for the toy model (BF16, two GPUs), by hand.

    ``params`` all parameters; ``shard`` the rank's half; ``unsharded_grads`` every gradient unsharded
    (``no_sync``); ``root`` the root unit (embeddings, LM head, final norm); ``layer`` one decoder layer
    with its two norms.
    """
    h, i, n, v = (CONFIG[k] for k in ("hidden_size", "intermediate_size", "num_hidden_layers", "vocab_size"))
    layer = 4 * h * h + 3 * h * i + 2 * h
    root = 2 * v * h + h
    params = n * layer + root
    return {"params": params, "shard": params * 2 // 2, "unsharded_grads": params * 2, "root": root * 2,
            "layer": layer * 2}


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
    rows = [
        ("gradients kept between micro-batches under no_sync (peak GRAD, root, sync at step)",
         at_step["GRAD"], exp["unsharded_grads"], "all parameters x 2 B, unsharded"),
        ("parameters at the peak (peak PARAM, root, sync at step)",
         at_step["PARAM"], exp["shard"] + exp["root"] + exp["layer"],
         "the rank's shard + the root unit unsharded + one gathered layer"),
    ]
    lines = [
        "# FSDP on two CPU processes, measured",
        "",
        "Issue #3. `tools/validate/fsdp_cpu.py` (run by `make validate`) trains a tiny Llama (hidden "
        f"{CONFIG['hidden_size']}, {CONFIG['num_hidden_layers']} layers, vocabulary {CONFIG['vocab_size']:,}, untied, BF16) "
        "with FSDP2 `fully_shard` on two `gloo` processes and reads rank 0's peak by category from PyTorch's "
        f"`MemTracker` (torch {torch.__version__}, transformers {transformers.__version__}; {doc['seconds']} s). "
        "Each case is one optimizer step of two micro-batches after a warm-up step.",
        "",
        "| quantity | measured B | ledger's term B | what the term is |",
        "|---|---|---|---|",
    ]
    for label, got, want, what in rows:
        lines.append(f"| {label} | {got:,} | {want:,} | {what} |")
    lines += [
        "",
        f"Synced every micro-batch, the peak's gradients are {each['GRAD']:,} B instead of "
        f"{at_step['GRAD']:,} B: the kept gradients are the rank's shard ({exp['shard']:,} B), and the rest, "
        f"{each['GRAD'] - exp['shard']:,} B, is one vocabulary x hidden matrix in BF16: the LM head's gradient, "
        "waiting in the root unit for the embedding's. With the embeddings and LM head sharded "
        f"apart the peak's parameters are {apart['PARAM']:,} B, the rank's shard alone at that moment (the root "
        "holds only the final norm).",
        "",
        "CPU runs show parameters and gradients exactly as a GPU holds them. They cannot show FSDP2's prefetch "
        "(no CUDA streams: one gathered layer at a time, where the ledger counts two on a GPU) or the GPU "
        "kernels' temporaries (CPU's embedding backward has its own), so those are not compared. "
        "`tests/unit/test_validation_fsdp.py` checks the ledger's terms against these stored numbers on every "
        "test run.",
        "",
    ]
    units = measured["fsdp1 mixed units"]
    at = next(i for i, line in enumerate(lines) if line.startswith("CPU runs show"))
    lines[at:at] = [
        f"FSDP1 with `use_orig_params=True` and one unit per decoder layer in which only `q_proj` trains (a "
        "stand-in for LoRA adapters inside the layer's unit, as LitGPT wraps them): each layer unit's gradient has "
        f"{units[0]['grad_numel']:,} elements on rank 0, its whole shard of {units[0]['flat_param_numel']:,}, not the "
        f"{units[0]['trainable_numel'] // 2:,} of the trainable `q_proj`: every frozen weight of the layer gets a "
        "gradient, as `--fsdp-wrap blocks-with-adapters` counts.",
        "",
    ]
    OUT_MD.write_text("\n".join(lines), "utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
