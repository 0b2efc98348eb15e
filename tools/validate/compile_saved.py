"""What one decoder layer saves for backward, eager against ``torch.compile``, by tensor shape and dtype.

The evidence behind Tuneplan's ``torch_compile`` setting (docs/accuracy.md "Known limits" 5; the ledger
reproduces these numbers in tests/unit/test_core_memory.py). It builds a small Llama from a config with real bf16 tensors on the CPU (inductor compiles for
the CPU; the partition into saved and recomputed tensors is made by AOTAutograd before code generation),
runs the decoder's forward with ``torch.autograd.graph.saved_tensors_hooks`` and reports the storages
saved by one more decoder layer (two layers minus one), per token.

Measured with torch 2.13, transformers 5.18 (h = 256, i = 704, 4 heads / 2 KV heads, 256 tokens, full
fine-tuning): eager 11,288 B per token and layer, compiled 7,832; the difference, 3,456 = 8h + 2i, is the
two RMSNorms' fp32 input copies (2 x 4h) and SwiGLU's SiLU(gate) (2i), which the compiled backward
recomputes. Run: ``.venv-validate/bin/python tools/validate/compile_saved.py [full|lora] [--targets q_v]
[--dropout 0]``; the LoRA figures the tests use: all-linear 12,524 (dropout 0.05) and 8,748 (0), q_v 7,024 and
6,000.
"""

from __future__ import annotations

import argparse
import collections
import math

import torch
import transformers
from torch.autograd.graph import saved_tensors_hooks

H, INTER, TOKENS = 256, 704, 256
_BYTES = {"bfloat16": 2, "float32": 4, "bool": 1, "int64": 8}


def build(layers: int, lora: bool, targets: str = "all-linear", dropout: float = 0.05) -> torch.nn.Module:
    """A bf16 Llama with ``layers`` decoder layers (PEFT LoRA r = 8 on ``targets`` when ``lora``)."""
    cfg = transformers.LlamaConfig(hidden_size=H, intermediate_size=INTER, num_hidden_layers=layers, num_attention_heads=4,
                                   num_key_value_heads=2, vocab_size=512, max_position_embeddings=4096)
    model = transformers.AutoModelForCausalLM.from_config(cfg, dtype=torch.bfloat16, attn_implementation="sdpa")
    model.train()
    if lora:
        import peft

        modules = ["q_proj", "v_proj"] if targets == "q_v" else "all-linear"
        model = peft.get_peft_model(model, peft.LoraConfig(r=8, lora_alpha=16, lora_dropout=dropout,
                                                           target_modules=modules)).base_model.model
    return model


def saved(model: torch.nn.Module, compiled: bool, lora: bool) -> dict[int, tuple[tuple[int, ...], str, int]]:
    """Storages saved for backward by the decoder's forward (parameters excluded): ``{ptr: (shape, dtype, bytes)}``."""
    layers = model.model.layers
    if compiled:
        for j, layer in enumerate(layers):
            layers[j] = torch.compile(layer)
    ids = torch.randint(0, 512, (1, TOKENS))
    store: dict[int, tuple[tuple[int, ...], str, int]] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        st = t.untyped_storage()
        store.setdefault(st.data_ptr(), (tuple(t.shape), str(t.dtype).removeprefix("torch."), st.nbytes()))
        return t

    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    amp = torch.autocast("cpu", dtype=torch.bfloat16, enabled=lora)  # PEFT's fp32 adapters run under autocast
    with saved_tensors_hooks(pack, lambda t: t), amp:
        model.model(input_ids=ids)
    return {k: v for k, v in store.items() if k not in params}


def main() -> int:
    """Print one layer's saved tensors per token, eager and compiled."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("method", nargs="?", choices=["full", "lora"], default="full")
    ap.add_argument("--targets", choices=["all-linear", "q_v"], default="all-linear")
    ap.add_argument("--dropout", type=float, default=0.05)
    args = ap.parse_args()
    lora = args.method == "lora"
    torch.manual_seed(0)
    for compiled in (False, True):
        one = saved(build(1, lora, args.targets, args.dropout), compiled, lora)
        two = saved(build(2, lora, args.targets, args.dropout), compiled, lora)
        extra = collections.Counter((s, d) for s, d, _ in two.values()) - collections.Counter(
            (s, d) for s, d, _ in one.values())
        total = sum(n for *_, n in two.values()) - sum(n for *_, n in one.values())
        print(f"{'compiled' if compiled else 'eager'}: one layer saves {total / TOKENS:,.0f} B per token")
        for (shape, dtype), count in sorted(extra.items(), key=lambda kv: -kv[1]):
            print(f"   {count} x {shape} {dtype}: {count * math.prod(shape) * _BYTES.get(dtype, 2) / TOKENS:,.0f} B/token")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
