"""Command line entry point: no arguments start the GUI; subcommands never import Qt.

    tuneplan                       start the desktop app on its default scenario
    tuneplan --version             print the version
    tuneplan --self-test           build the window offscreen, compute, save and reload a scenario
    tuneplan estimate ...          memory, time and cost of one plan (``--json`` for scripts)
    tuneplan compare-gpus ...      the same plan across the GPU catalog
    tuneplan gpus [--json]         what the NVML probe sees on this machine
    tuneplan scenarios ...         the saved-scenario library
    tuneplan export-config ...     the plan as a LLaMA-Factory / axolotl / TRL / torchtune / ms-swift / DeepSpeed config
    tuneplan prices list|refresh   the price book, dated; refresh it from public catalogs
"""

from __future__ import annotations

import sys

if __name__ == "__main__":
    # ``python -m tuneplan`` puts the current directory first on sys.path, so a pynvml.py (or any module) lying
    # there would be imported instead of the installed one. Drop it before anything else is imported.
    import os

    if sys.path and (sys.path[0] in ("", ".") or os.path.abspath(sys.path[0]) == os.getcwd()):
        del sys.path[0]

import argparse
import math
from collections.abc import Sequence

from tuneplan import __version__


class _Parser(argparse.ArgumentParser):
    """argparse that exits with status 2 and a one-line reason on bad input."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # the message quotes the arguments: a newline or escape in one stays visible on the one line
        from tuneplan.core.text import terminal_safe

        self.exit(2, f"tuneplan: error: {terminal_safe(message)}\n")


#: The longest number text a flag takes (a 5,000-digit one would end in Python's advice on int digit limits).
_MAX_NUMBER_CHARS = 40


def _shown(text: str) -> str:
    """``text`` quoted for an error line, cut to 40 characters (a 5,000-digit argument is not echoed whole)."""
    return repr(text) if len(text) <= _MAX_NUMBER_CHARS else f"{text[:20]!r}... ({len(text)} characters)"


def _number(text: str) -> float:
    """``text`` as a finite float; raises ArgumentTypeError for anything else (NaN, inf, 41+ characters)."""
    try:
        if len(text) > _MAX_NUMBER_CHARS:
            raise ValueError
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {_shown(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {_shown(text)}")
    return value


def _whole(text: str) -> int:
    """``text`` as an integer (``100``, ``1e6``); raises ArgumentTypeError for a fraction (``0.5``), never truncates."""
    value = math.nan
    if len(text) <= _MAX_NUMBER_CHARS:
        try:
            return int(text)
        except ValueError:
            pass
        try:
            value = float(text)
        except ValueError:
            pass
    if not math.isfinite(value) or value != int(value):
        raise argparse.ArgumentTypeError(f"expected a whole number, got {_shown(text)}")
    return int(value)


def _positive_int(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _non_negative_int(text: str) -> int:
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def _non_negative(text: str) -> float:
    value = _number(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {_shown(text)}")
    return value


def _positive(text: str) -> float:
    value = _number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {_shown(text)}")
    return value


def _fraction(text: str) -> float:
    value = _non_negative(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1], got {_shown(text)}")
    return value


def _share(text: str) -> float:
    value = _non_negative(text)
    if not 0 <= value < 1:  # all of the data held out leaves nothing to train on
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {_shown(text)}")
    return value


def add_plan_arguments(p: argparse.ArgumentParser) -> None:
    """Flags shared by ``estimate`` and ``compare-gpus`` (everything a scenario holds)."""
    src = p.add_mutually_exclusive_group()
    src.add_argument("--model", metavar="ID", help="catalog model id (see --list-models), or a Hugging Face model: "
                     "org/name, org/name@revision or its Hub URL (read from the local HF cache, else its config.json "
                     "and safetensors headers from the Hub; HF_TOKEN for gated models)")
    src.add_argument("--config", metavar="PATH", help="a Hugging Face config.json or a model folder")
    src.add_argument("--scenario", metavar="FILE", help="a saved scenario file (.json), or the name of a scenario "
                     "saved in the library (see 'tuneplan scenarios list')")
    p.add_argument("--training-config", metavar="FILE", action="append",
                   help="the training config you already have: LLaMA-Factory or axolotl YAML, HF TrainingArguments / "
                        "TRL SFTConfig JSON or YAML, a DeepSpeed JSON, a torchtune recipe YAML, ms-swift arguments "
                        "(YAML/JSON), an accelerate config, or a launch script (train.sh: accelerate launch, "
                        "torchrun, deepspeed, swift, tune run, llamafactory-cli; read, never run); repeat it (e.g. "
                        "an axolotl YAML and its DeepSpeed JSON): later files and explicit flags win")
    p.add_argument("--method", choices=["full", "lora", "qlora"])
    p.add_argument("--precision", choices=["bf16", "fp16", "fp32"])
    p.add_argument("--master-weights", choices=["none", "fp32"], help="fp32: mixed precision with fp32 master weights")
    p.add_argument("--optimizer", choices=["adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "paged-adamw-32bit", "sgd", "adafactor"])
    p.add_argument("--optimizer-in-backward", action="store_true", default=None, help="fuse the optimizer step into backward")
    p.add_argument("--lora-rank", type=_positive_int, metavar="R")
    p.add_argument("--lora-alpha", type=_non_negative, metavar="ALPHA")
    p.add_argument("--lora-dropout", type=_non_negative, metavar="P")
    p.add_argument("--lora-targets", choices=["q_v", "qkvo", "all-linear"])
    p.add_argument("--lora-modules", metavar="NAMES",
                   help="adapt exactly these modules, comma-separated as PEFT's target_modules names them (e.g. "
                        "gate_proj,up_proj,down_proj); replaces --lora-targets")
    p.add_argument("--trainable-embeddings", action="store_true", default=None, help="train embeddings and LM head too")
    p.add_argument("--quant-bits", type=int, choices=[4, 8], metavar="{4,8}",
                   help="QLoRA base: 4 = bitsandbytes NF4 (load_in_4bit, default), 8 = LLM.int8 (load_in_8bit); "
                        "with --quant-method hqq, HQQ's bits")
    p.add_argument("--quant-method", choices=["bnb", "hqq"],
                   help="QLoRA base quantised by bitsandbytes (default) or HQQ (transformers HqqConfig)")
    p.add_argument("--quant-group-size", type=_positive_int, metavar="N",
                   help="HQQ: weights per scale and zero point (default 64)")
    p.add_argument("--no-double-quant", action="store_true", default=None, help="QLoRA without double quantization")
    up = p.add_mutually_exclusive_group()
    up.add_argument("--kbit-fp32-upcast", dest="kbit_fp32_upcast", action="store_true", default=None,
                    help="QLoRA: unquantised weights in fp32, as a plain PEFT script's prepare_model_for_kbit_training leaves them "
                         "(not with FSDP/ZeRO-3 sharding, which skips that call)")
    up.add_argument("--no-kbit-fp32-upcast", dest="kbit_fp32_upcast", action="store_false",
                    help="QLoRA: unquantised weights stay in the training dtype, as axolotl, TRL, torchtune and Unsloth keep them (default)")
    p.add_argument("--adapter-precision", choices=["fp32-autocast", "fp32", "model-dtype"],
                   help="LoRA/QLoRA adapters: fp32-autocast = PEFT's FP32 adapters under BF16 autocast (HF Trainer, TRL, "
                        "axolotl; default); fp32 = PEFT in a plain loop without autocast; model-dtype = adapters in the "
                        "training dtype (torchtune, LitGPT)")
    p.add_argument("--micro-batch", type=_positive_int, metavar="B")
    p.add_argument("--seq-len", type=_positive_int, metavar="S", help="sequence length in tokens (the longest batch for dynamic padding)")
    p.add_argument("--sequence-mode", choices=["fixed", "packed", "dynamic", "padding-free"],
                   help="packed rows of seq_len; fixed: padded to seq_len; dynamic: padded to the batch's longest; "
                        "padding-free: the batch's examples flattened into one row (TRL padding_free)")
    p.add_argument("--grad-accumulation", type=_positive_int, metavar="N")
    p.add_argument("--empty-cache-steps", type=_non_negative_int, metavar="K",
                   help="the trainer empties the CUDA cache every K steps (HF torch_empty_cache_steps); 0: never "
                        "(default). Every step leaves no cache of earlier batch shapes under dynamic padding")
    p.add_argument("--eval-batch", type=_non_negative_int, metavar="B",
                   help="rows of one evaluation micro-batch when the trainer evaluates during training (HF "
                        "per_device_eval_batch_size, 8 by default there); 0: no evaluation (default)")
    p.add_argument("--eval-generate-tokens", type=_non_negative_int, metavar="N",
                   help="the evaluation generates N new tokens per example (LLaMA-Factory predict_with_generate with "
                        "max_new_tokens, 1024 there by default); needs --eval-batch; 0: loss only (default)")
    gc = p.add_mutually_exclusive_group()
    gc.add_argument("--grad-checkpointing", dest="grad_checkpointing", action="store_true", default=None)
    gc.add_argument("--no-grad-checkpointing", dest="grad_checkpointing", action="store_false")
    p.add_argument("--attention", choices=["flash", "flash1", "sdpa", "eager"],
                   help="flash: FlashAttention 2; flash1: FlashAttention 1 or its Triton port")
    p.add_argument("--fused-cross-entropy", action="store_true", default=None, help="fused/chunked cross-entropy (Liger, CCE)")
    p.add_argument("--activation-offload", action="store_true", default=None, help="offload saved activations to CPU")
    p.add_argument("--torch-compile", action="store_true", default=None,
                   help="torch.compile on the decoder layers (torchtune compile: True, HF torch_compile=True): "
                        "pointwise results recomputed in backward")
    p.add_argument("--cpu-offload", action="store_true", default=None, help="offload parameters and optimizer states to CPU")
    p.add_argument("--gpus", type=_positive_int, metavar="N", help="number of GPUs")
    p.add_argument("--sharding", choices=["none", "ddp", "zero1", "zero2", "zero3", "fsdp"])
    p.add_argument("--grad-sync", choices=["step", "micro-batch"],
                   help="FSDP with gradient accumulation: step = reduce-scatter only at the optimizer step, keeping "
                        "unsharded gradients in between (no_sync: HF Trainer/accelerate default, Lightning Fabric; "
                        "default); micro-batch = after every micro-batch (torchtune, torchtitan, accelerate "
                        "sync_each_batch=True)")
    p.add_argument("--fsdp-wrap", choices=["layers", "separate-embeddings", "blocks-with-adapters"],
                   help="FSDP units: layers = decoder layers, embeddings and LM head in the root unit, which stays "
                        "unsharded from forward to backward (HF accelerate; default); separate-embeddings = "
                        "embeddings and LM head sharded as units of their own (torchtune custom_sharded_layers); "
                        "blocks-with-adapters = LoRA adapters inside their layer's unit, so every frozen weight "
                        "gets a gradient (LitGPT)")
    for flag, what, default in (("--deepspeed-reduce-bucket", "reduce_bucket_size", "5e8"),
                                ("--deepspeed-prefetch-bucket", "ZeRO-3 stage3_prefetch_bucket_size", "5e7"),
                                ("--deepspeed-sub-group", "ZeRO-3 sub_group_size (0 = one parameter per group)", "1e9"),
                                ("--deepspeed-max-reuse-distance", "ZeRO-3 stage3_max_reuse_distance", "1e9")):
        p.add_argument(flag, type=_non_negative, metavar="ELEMENTS",
                       help=f"DeepSpeed {what} in elements (DeepSpeed's default {default})")
    p.add_argument("--deepspeed-auto-buckets", action="store_true", default=None,
                   help='DeepSpeed buckets left "auto" in the JSON: Hugging Face fills them from the hidden size h '
                        "(reduce h^2, ZeRO-3 prefetch 0.9 h^2)")
    p.add_argument("--no-zero-init", dest="zero_init", action="store_false", default=None,
                   help="DeepSpeed ZeRO-3 without deepspeed.zero.Init (accelerate zero3_init_flag: false, or a model "
                        "loaded before the DeepSpeed config): every rank first holds the whole model on its GPU")
    p.add_argument("--stack", choices=["hf-peft", "trl", "llama-factory", "axolotl", "ms-swift", "unsloth", "torchtune",
                                       "litgpt", "pytorch"],
                   help="the training stack you run: sets the defaults it really uses (adapter dtype, k-bit upcast, "
                        "loss, gradient checkpointing, FSDP sync, ...; see core/stacks.py); explicit flags and "
                        "--training-config files win")
    p.add_argument("--framework", choices=["optimized", "hf"], help="MFU tier: optimized stack or plain HF")
    p.add_argument("--mfu", type=_fraction, help="override model FLOPs utilisation (0-1]")
    p.add_argument("--calibration", metavar="FILE",
                   help="a pilot run of this plan: HF Trainer's trainer_state.json or a CSV of step times (W&B "
                        "export: step with _runtime, or step_time, or tokens_per_second); the time is calibrated to it")
    p.add_argument("--pilot-step-seconds", type=_positive, metavar="S", help="a pilot run's seconds per optimizer step")
    p.add_argument("--pilot-tokens-per-second", type=_positive, metavar="T",
                   help="a pilot run's tokens/s per GPU (instead of --pilot-step-seconds)")
    p.add_argument("--save-calibration", action="store_true",
                   help="keep the pilot's calibration in the data directory for plans on the same GPU and stack")
    p.add_argument("--use-saved-calibration", action="store_true",
                   help="apply a saved calibration for this plan's GPU and stack, if there is one")
    p.add_argument("--gpu", metavar="GPU", help="catalog id or common name ('A100 80GB', 'RTX 4090'); local:N for "
                                                "this machine's GPU N (NVML), local for GPU 0 or the card saved under "
                                                "Your GPUs (billed as electricity)")
    p.add_argument("--gpu-memory-gib", type=_positive, help="override the GPU's capacity in GiB")
    p.add_argument("--dataset-examples", type=_non_negative_int, metavar="N")
    p.add_argument("--tokens-per-example", type=_non_negative, metavar="T")
    p.add_argument("--total-tokens", type=_non_negative, metavar="T", help="dataset size in tokens (replaces examples x tokens)")
    p.add_argument("--epochs", type=_non_negative)
    p.add_argument("--padding-efficiency", type=_fraction, help="real tokens / computed tokens when padding")
    p.add_argument("--rank-padding-efficiency", type=_fraction,
                   help="dynamic padding over several GPUs: real tokens per row / the padded row of the slowest "
                        "GPU's micro-batch, which every step waits for (set by --dataset-file; default 1: no spread)")
    p.add_argument("--packing-efficiency", type=_fraction,
                   help="packed rows: real tokens / the tokens of the rows they fill (set by --dataset-file; default "
                        "1); computed where the stack pads every pack to the sequence length (LLaMA-Factory)")
    p.add_argument("--tokens-std", type=_non_negative, metavar="TOKENS",
                   help="standard deviation of the example lengths (set by --dataset-file); padding-free batches are "
                        "sized by it (default: unknown, micro-batch x seq-len)")
    p.add_argument("--longest-tokens", type=_positive_int, metavar="TOKENS",
                   help="the longest example (set by --dataset-file; default: estimated from --tokens-std)")
    p.add_argument("--eval-share", type=_share, metavar="F",
                   help="share of the examples held out for evaluation (LLaMA-Factory val_size, axolotl "
                        "val_set_size), evaluated once per epoch; 0: none (default)")
    p.add_argument("--price-per-hour", type=_non_negative, metavar="USD", help="USD per GPU-hour")
    p.add_argument("--billing", choices=["second", "minute", "hour"])
    p.add_argument("--storage-gb", type=_non_negative)
    p.add_argument("--storage-usd-per-gb-month", type=_non_negative)
    p.add_argument("--egress-gb", type=_non_negative)
    p.add_argument("--egress-usd-per-gb", type=_non_negative)
    p.add_argument("--other-usd", type=_non_negative)
    p.add_argument("--setup-minutes", type=_non_negative)
    p.add_argument("--eval-minutes", type=_non_negative)
    p.add_argument("--interruptions-per-hour", type=_non_negative)
    p.add_argument("--checkpoint-every-min", type=_non_negative)
    p.add_argument("--failure-probability", type=_non_negative, help="chance a run fails and must be repeated [0, 1)")
    p.add_argument("--download-gbps", type=_non_negative, help="model download speed in GB/s (setup phase)")
    p.add_argument("--electricity-usd-per-kwh", type=_non_negative, help="your own card: electricity price")
    p.add_argument("--own-gpu", action="store_true", default=None,
                   help="the GPUs are yours: bill the run as electricity (board power x hours x "
                        "--electricity-usd-per-kwh), no rental, storage or egress; the cheapest catalog offer for "
                        "the card prices the same run rented, for comparison")
    p.add_argument("--gpu-watts", type=_non_negative, metavar="W",
                   help="your card's board power per GPU (default: its NVML power limit with --gpu local, else the "
                        "catalog's)")
    p.add_argument("--host-watts", type=_non_negative, metavar="W",
                   help="your own machine: watts of everything but the GPUs while it trains (CPU, drives, fans)")
    p.add_argument("--monthly-price-usd", type=_non_negative, help="a dedicated server's monthly price (break-even)")


def add_workload_arguments(p: argparse.ArgumentParser) -> None:
    """``--workload`` and ``--reference-model`` (preference and reward-model training, core/workload.py)."""
    p.add_argument("--workload", choices=["sft", "pt", "dpo", "orpo", "kto", "reward", "grpo"],
                   help="what is trained: sft = supervised fine-tuning (default); pt = continued pretraining (the SFT step on "
                        "plain text, packed; LLaMA-Factory stage pt, swift pt); dpo = DPO/IPO with a reference model "
                        "(TRL DPOTrainer); orpo = ORPO/CPO/SimPO, no reference; kto = KTO (reference + KL batch); "
                        "reward = a reward model (value head); grpo = GRPO (TRL GRPOTrainer: completions generated "
                        "every step). dpo, orpo and reward run chosen and rejected as two rows per example: "
                        "--micro-batch counts pairs, --seq-len and --tokens-per-example one row. grpo: --micro-batch "
                        "counts completions, --seq-len is prompt + completion, --dataset-examples counts prompts")
    p.add_argument("--reference-model", choices=["shared", "copy", "precomputed"],
                   help="dpo/kto: shared = the LoRA/QLoRA policy with adapters disabled (TRL's default for PEFT); "
                        "copy = a frozen copy in memory (TRL's default for full fine-tuning); precomputed = "
                        "precompute_ref_log_probs: one pass over the data before training, no reference during it")
    g = p.add_argument_group("GRPO (--workload grpo; TRL GRPOConfig)")
    g.add_argument("--num-generations", type=_positive_int, help="completions per prompt (num_generations, default 8)")
    g.add_argument("--completion-tokens", type=_positive_int,
                   help="tokens generated per completion (max_completion_length, default 512); part of --seq-len")
    g.add_argument("--kl-beta", type=_non_negative, help="KL coefficient (beta, default 0: no reference model)")
    g.add_argument("--generation-engine", choices=["transformers", "vllm-colocate", "vllm-server"],
                   help="transformers = model.generate on the training model (TRL's default); vllm-colocate = a vLLM "
                        "engine in each training process; vllm-server = trl vllm-serve on GPUs of its own")
    g.add_argument("--vllm-memory-share", type=_fraction,
                   help="vllm-colocate: the engine's share of each card (vllm_gpu_memory_utilization, default 0.3)")
    g.add_argument("--vllm-sleep", action=argparse.BooleanOptionalAction, default=None,
                   help="vllm-colocate: sleep mode frees the engine's memory while the trainer trains")
    g.add_argument("--vllm-server-gpus", type=_positive_int,
                   help="vllm-server: GPUs the server runs on (billed with the training GPUs, default 1)")


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (importing it does not import Qt)."""
    parser = _Parser(prog="tuneplan", description="Plan LLM fine-tuning: memory, time and cost.")
    parser.add_argument("--version", action="version", version=f"tuneplan {__version__}")
    parser.add_argument("--self-test", action="store_true", help="run a headless self-test and print SELFTEST OK")
    parser.add_argument("--scenario-file", metavar="FILE", help="open this scenario in the GUI")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    est = sub.add_parser("estimate", help="estimate memory, time and cost of one plan")
    add_plan_arguments(est)
    from tuneplan.cli_dataset import add_dataset_file_arguments

    add_dataset_file_arguments(est)  # --dataset-file, --dataset-field, --tokenizer (issue #19)
    add_workload_arguments(est)  # --workload, --reference-model (issue #18)
    est.add_argument("--json", action="store_true", help="machine-readable output")
    est.add_argument("--list-models", action="store_true", help="list catalog models and exit")
    est.add_argument("--list-gpus", action="store_true", help="list catalog GPUs and exit")
    cmp_ = sub.add_parser("compare-gpus", help="the plan across every catalog GPU")
    add_plan_arguments(cmp_)
    add_workload_arguments(cmp_)
    cmp_.add_argument("--json", action="store_true")
    cmp_.add_argument("--budget-usd", type=_non_negative, help="highlight the fastest GPU within this budget")
    ch = sub.add_parser("cheapest", aliases=["search"],
                        help="the cheapest (or fastest) setups that fit: GPU type, count, sharding, method, savers")
    add_plan_arguments(ch)
    add_workload_arguments(ch)
    ch.add_argument("--rank", choices=["cost", "time"], default="cost",
                    help="cost = USD per completed run (default); time = wall-clock hours")
    ch.add_argument("--max-gpus", type=_positive_int, default=64, metavar="N", help="at most N GPUs (default 64)")
    ch.add_argument("--budget-usd", type=_non_negative, metavar="USD", help="at most this per completed run")
    ch.add_argument("--max-hours", type=_positive, metavar="H", help="done within H hours")
    ch.add_argument("--keep-method", action="store_true", help="keep the plan's method (e.g. keep full fine-tuning)")
    ch.add_argument("--limit", type=_positive_int, default=10, metavar="N", help="show the best N (default 10)")
    ch.add_argument("--json", action="store_true")
    ex = sub.add_parser("export-config", help="the plan as a starting config for its training stack (LLaMA-Factory, "
                        "axolotl, TRL, torchtune, ms-swift) or a DeepSpeed JSON")
    add_plan_arguments(ex)
    add_workload_arguments(ex)
    from tuneplan.cli_export import add_export_arguments

    add_export_arguments(ex)
    gp = sub.add_parser("gpus", help="list local NVIDIA GPUs (NVML)")
    gp.add_argument("--json", action="store_true")
    sc = sub.add_parser("scenarios", help="saved scenarios")
    sc.add_argument("action", choices=["list", "show", "export", "import"])
    sc.add_argument("name", nargs="?", help="scenario name or file")
    sc.add_argument("--output", "-o", metavar="FILE")
    sc.add_argument("--json", action="store_true")
    from tuneplan.cli_prices import add_prices_arguments

    add_prices_arguments(sub.add_parser("prices", help="GPU prices: list them with their dates, or refresh them from "
                                        "public catalogs"), _Parser)
    return parser


def _tolerant_streams() -> None:
    """Let stdout and stderr write any text: on an ASCII-only terminal (``LANG=C``, ``PYTHONIOENCODING=ascii``)
    a ``·`` or a Chinese plan name is written as ``\\xb7`` / ``\\u4e2d`` instead of raising
    UnicodeEncodeError (lone surrogates from undecodable file names likewise)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (OSError, ValueError):  # a detached or closed stream: nothing to print to anyway
                pass


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run; returns the process exit status (0, 1 or 2 for bad input)."""
    _tolerant_streams()
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.command == "estimate":
        from tuneplan.cli import run_estimate

        return run_estimate(args)
    if args.command == "compare-gpus":
        from tuneplan.cli import run_compare

        return run_compare(args)
    if args.command in {"cheapest", "search"}:
        from tuneplan.cli_search import run_search

        return run_search(args)
    if args.command == "export-config":
        from tuneplan.cli_export import run_export_config

        return run_export_config(args)
    if args.command == "gpus":
        from tuneplan.hw.cli import gpus_command

        return gpus_command(args.json)
    if args.command == "scenarios":
        from tuneplan.cli import run_scenarios

        return run_scenarios(args)
    if args.command == "prices":
        from tuneplan.cli_prices import run_prices

        return run_prices(args)
    if args.self_test:
        from tuneplan.ui.app import self_test

        return self_test()
    from tuneplan.ui.app import run_gui

    return run_gui(scenario_file=args.scenario_file)


def _main_guarded() -> int:
    """``main`` for a console: a closed pipe (``tuneplan ... | head``) ends quietly."""
    try:
        return main()
    except BrokenPipeError:
        # Python flushes stdout again at exit; point it at devnull so that flush cannot fail too.
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(_main_guarded())
