"""Measure real peak memory (and speed) of training steps on one CUDA GPU: issue #3's prepared device run.

One command runs the whole grid, one case per child process (a fresh CUDA context and caching allocator
each), and writes what it measured as it goes, so a run stopped at its time limit still returns data::

    python3 tools/gpu_grid/measure.py --out "$OUT" --budget-s 420       # on the GPU machine
    python tools/gpu_grid/measure.py --out /tmp/grid --device cpu --tiny   # code-path check, no GPU

Per case it records, for the same settings Tuneplan estimates (``tools/gpu_grid/gpu_report.py`` turns the
file into ``docs/measurements/``):

* ``torch.cuda.max_memory_allocated`` / ``max_memory_reserved`` over all steps and per step, and a few
  caching-allocator counters (``torch.cuda.memory_stats``: retries, inactive split bytes);
* the device's used memory as NVML (nvidia-smi) reports it: before this process touched the GPU, after
  the CUDA context was created, and the maximum seen by a 20 Hz sampler while the steps ran;
* the wall time of each step (tokens per second after the first step).

Models are the catalog's real architectures (``src/tuneplan/catalog/data/models.json``) with random
weights: memory and speed do not depend on the values, and the GPU machine cannot download checkpoints.
A training step is what ``transformers.Trainer`` does without its extras: ``model(input_ids,
labels).loss`` (the model's own loss, logits upcast to fp32), ``backward()``, ``optimizer.step()``,
``zero_grad(set_to_none=True)``. Pure BF16 unless a case says ``autocast`` (HF Trainer's mixed precision)
or ``master_fp32`` (an fp32 model under bf16 autocast). SDPA attention (the flash-attn package is not
installed there; SDPA's flash kernel keeps the same memory). No bitsandbytes there, so no QLoRA or 8-bit
optimizers.

Only the standard library is imported at module level, so ``GRID`` can be read (and checked by
Tuneplan's tests) without torch.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "src" / "tuneplan" / "catalog" / "data" / "models.json"
RESULTS = "gpu-grid.jsonl"


def swift_like_lengths(steps: int, cap: int, seed: int = 0) -> list[int]:
    """Per-step sequence lengths of a batch-size-1 run without padding whose samples longer than ``cap`` are
    dropped (ms-swift's ``truncation_strategy='delete'``): lengths drawn from ms-swift's benchmark dataset
    statistics (mean 3,234, s.d. 2,548 tokens; docs/accuracy.md) until one is at most ``cap``."""
    rng = random.Random(seed)
    out = []
    while len(out) < steps:
        n = int(rng.gauss(3234, 2548))
        if 32 <= n <= cap:
            out.append(n)
    return out


@dataclass(frozen=True)
class Case:
    """One measured training setup (fields named as Tuneplan's ``TrainingSetup`` where they mean the same)."""

    id: str
    model: str
    method: str = "lora"  # full | lora
    lora_targets: str = "all-linear"  # q_v | qkvo | all-linear
    lora_rank: int = 16
    lora_dropout: float = 0.05
    optimizer: str = "adamw"  # adamw (foreach) | adamw-fused | sgd | adafactor
    optimizer_in_backward: bool = False
    grad_checkpointing: bool = True
    micro_batch: int = 1
    seq_len: int = 2048
    #: per-step lengths for dynamic padding (batch size 1: a batch is one sample); empty = fixed seq_len
    lengths: tuple[int, ...] = ()
    steps: int = 3
    grad_accumulation: int = 1
    autocast: bool = False  # bf16 autocast around a bf16 model (HF Trainer / accelerate mixed precision)
    master_fp32: bool = False  # fp32 model under bf16 autocast
    adapter_dtype: str = "fp32"  # fp32 (PEFT's autocast_adapter_dtype) | bf16 (torchtune/LitGPT-style adapters)
    compile: bool = False  # torch.compile each decoder layer (torchtune compile: True)
    alloc_conf: str = ""  # PYTORCH_CUDA_ALLOC_CONF for this case
    note: str = ""

    @property
    def sequence_mode(self) -> str:
        return "dynamic" if self.lengths else "fixed"

    def step_lengths(self) -> list[int]:
        """Sequence length of each micro-batch, in order (steps x grad_accumulation of them)."""
        n = self.steps * self.grad_accumulation
        return list(self.lengths[:n]) if self.lengths else [self.seq_len] * n


_DYN4K = tuple(swift_like_lengths(16, 4096))
_DYN2K = tuple(swift_like_lengths(24, 2048, seed=1))

#: The grid, most informative first (a run that hits its budget keeps the first cases).
GRID: list[Case] = [
    Case("llama8b-lora-all-gc-2k", "llama-3.1-8b"),
    Case("llama8b-lora-all-nogc-2k", "llama-3.1-8b", grad_checkpointing=False),
    Case("llama8b-full-adamw-gc-2k", "llama-3.1-8b", method="full"),
    Case("llama8b-full-fused-nogc-2k", "llama-3.1-8b", method="full", optimizer="adamw-fused", grad_checkpointing=False),
    Case("llama8b-lora-all-gc-8k", "llama-3.1-8b", seq_len=8192),
    Case("llama8b-lora-qv-gc-b4-2k", "llama-3.1-8b", lora_targets="q_v", micro_batch=4),
    Case("llama8b-lora-all-gc-2k-autocast", "llama-3.1-8b", autocast=True, note="HF Trainer bf16=True"),
    Case("llama8b-lora-all-gc-2k-bf16adapters", "llama-3.1-8b", adapter_dtype="bf16", lora_dropout=0.0,
         note="torchtune-style adapters in bf16, no dropout"),
    Case("llama8b-full-fused-nogc-2k-compile", "llama-3.1-8b", method="full", optimizer="adamw-fused",
         grad_checkpointing=False, compile=True, note="torch.compile per decoder layer"),
    Case("llama8b-lora-all-nogc-2k-compile", "llama-3.1-8b", grad_checkpointing=False, compile=True,
         note="torch.compile per decoder layer"),
    Case("llama8b-lora-all-gc-2k-fp32base", "llama-3.1-8b", master_fp32=True, note="LoRA on an fp32 base (bf16-mixed)"),
    Case("llama3b-full-master-fp32-gc-2k", "llama-3.2-3b", method="full", master_fp32=True),
    Case("llama8b-full-optinbwd-gc-2k", "llama-3.1-8b", method="full", optimizer_in_backward=True,
         note="torchtune optimizer_in_bwd: one AdamW per parameter stepped in its grad hook"),
    Case("llama8b-lora-all-gc-dyn4k", "llama-3.1-8b", seq_len=4096, lengths=_DYN4K, steps=16,
         note="dynamic lengths, batch 1, samples over 4096 dropped"),
    Case("llama8b-lora-all-gc-dyn4k-expandable", "llama-3.1-8b", seq_len=4096, lengths=_DYN4K, steps=16,
         alloc_conf="expandable_segments:True", note="as above with expandable segments"),
    Case("qwen7b-lora-qv-gc-dyn2k", "qwen2.5-7b", lora_targets="q_v", seq_len=2048, lengths=_DYN2K, steps=24,
         note="ms-swift benchmark protocol with a 152k vocabulary"),
    Case("qwen7b-lora-all-gc-4k", "qwen2.5-7b", seq_len=4096),
    Case("gemma3-4b-lora-all-gc-4k", "gemma-3-4b", seq_len=4096),
    Case("mistral7b-lora-qv-nogc-2k", "mistral-7b-v0.3", lora_targets="q_v", grad_checkpointing=False),
    Case("mixtral-lora-qv-gc-2k", "mixtral-8x7b", lora_targets="q_v"),
    Case("qwen3moe-lora-qv-gc-2k", "qwen3-30b-a3b", lora_targets="q_v"),
    Case("llama8b-full-adamw-gc-2k-ga2", "llama-3.1-8b", method="full", grad_accumulation=2),
    Case("llama3b-full-sgd-gc-2k", "llama-3.2-3b", method="full", optimizer="sgd"),
    Case("llama3b-full-adafactor-gc-2k", "llama-3.2-3b", method="full", optimizer="adafactor"),
]


def catalog_config(model_id: str) -> dict[str, Any]:
    """The ``config.json`` fields of a bundled catalog model."""
    for entry in json.loads(CATALOG.read_text(encoding="utf-8")):
        if entry["id"] == model_id:
            return entry["config"]
    raise KeyError(f"{model_id} is not in {CATALOG}")


def tiny_config(config: dict[str, Any]) -> dict[str, Any]:
    """The same architecture at toy size (2 layers, hidden 64): for checking the code path on a CPU."""
    cfg = json.loads(json.dumps(config))
    inner = cfg["text_config"] if isinstance(cfg.get("text_config"), dict) and "hidden_size" not in cfg else cfg
    heads = 4
    inner.update(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=heads,
                 num_key_value_heads=min(int(inner.get("num_key_value_heads", heads)), 2), vocab_size=1000)
    if "head_dim" in inner:
        inner["head_dim"] = 16
    for key, small in (("num_local_experts", 4), ("num_experts", 4), ("moe_intermediate_size", 32),
                       ("num_experts_per_tok", 2), ("sliding_window", 16)):
        if key in inner and inner[key]:
            inner[key] = small
    return cfg


# ------------------------------------------------------------------------------------------ child
def _nvml() -> tuple[Any, Any, str]:
    """(reader of the device's used bytes, handle, error) through NVML. The reader returns ``None`` instead of
    raising; without NVML both are ``None`` and ``error`` says why (device-level numbers are then left out)."""
    try:
        import pynvml

        pynvml.nvmlInit()
        first = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0].strip()
        if first.startswith("GPU-"):
            handle = pynvml.nvmlDeviceGetHandleByUUID(first)
        else:
            handle = pynvml.nvmlDeviceGetHandleByIndex(int(first) if first.isdigit() else 0)

        def read() -> int | None:
            try:
                return int(pynvml.nvmlDeviceGetMemoryInfo(handle).used)
            except Exception:  # noqa: BLE001 - a failed reading is a missing number, not a failed run
                return None

        return read, handle, ""
    except Exception as exc:  # noqa: BLE001
        return None, None, repr(exc)[:300]


class _Sampler(threading.Thread):
    """Polls NVML every 50 ms and keeps the largest used-memory reading (what nvidia-smi would have shown);
    ``max`` stays ``None`` when no reading succeeded."""

    def __init__(self, read) -> None:  # noqa: ANN001
        super().__init__(daemon=True)
        self.read, self.max, self.stop = read, None, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            value = self.read()
            if value is not None:
                self.max = value if self.max is None else max(self.max, value)
            self.stop.wait(0.05)


def run_case(case: Case, device: str, tiny: bool) -> dict[str, Any]:
    """Build the case's model on ``device``, run its steps, return the measurements (JSON-ready)."""
    nvml_read, _, nvml_error = _nvml() if device == "cuda" else (None, None, "")
    used_before = nvml_read() if nvml_read else None

    import torch
    import transformers

    sys.path.insert(0, str(ROOT / "tools" / "validate"))
    from fake_step import hf_config  # the validation tool's config.json -> transformers config

    cuda = device == "cuda"
    dev = torch.device(device)
    if cuda:
        torch.cuda.init()
        torch.zeros(1, device=dev)
        torch.cuda.synchronize()
    used_context = nvml_read() if nvml_read else None

    config = catalog_config(case.model)
    if tiny:
        config = tiny_config(config)
    inner = config["text_config"] if isinstance(config.get("text_config"), dict) and "hidden_size" not in config else config
    hf = hf_config(config, int(inner["num_hidden_layers"]), attention="sdpa")
    dtype = torch.float32 if case.master_fp32 else torch.bfloat16
    torch.manual_seed(0)
    t0 = time.perf_counter()
    with dev:
        model = transformers.AutoModelForCausalLM.from_config(hf, dtype=dtype, attn_implementation="sdpa")
    model.train()
    if case.grad_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if case.method == "lora":
        import peft

        targets = {"q_v": ["q_proj", "v_proj"], "qkvo": ["q_proj", "k_proj", "v_proj", "o_proj"]}.get(
            case.lora_targets, "all-linear")
        model = peft.get_peft_model(model, peft.LoraConfig(
            r=case.lora_rank, lora_alpha=2 * case.lora_rank, lora_dropout=case.lora_dropout,
            target_modules=targets, task_type="CAUSAL_LM"), autocast_adapter_dtype=case.adapter_dtype == "fp32")
    if case.compile:  # each decoder layer compiled on its own, as torchtune's compile_model does
        inner_model = model.base_model.model if case.method == "lora" else model
        layers = inner_model.model.layers
        for j, layer in enumerate(layers):
            layers[j] = torch.compile(layer)
    params = [p for p in model.parameters() if p.requires_grad]
    build_s = time.perf_counter() - t0

    def make_opt(ps):  # noqa: ANN001, ANN202
        if case.optimizer == "sgd":
            return torch.optim.SGD(ps, lr=1e-5, momentum=0.9)
        if case.optimizer == "adafactor":
            from transformers.optimization import Adafactor

            return Adafactor(ps, lr=1e-5, scale_parameter=False, relative_step=False, warmup_init=False)
        kw = {"fused": True} if case.optimizer == "adamw-fused" and cuda else {"foreach": not case.optimizer_in_backward}
        return torch.optim.AdamW(ps, lr=1e-5, **kw)

    if case.optimizer_in_backward:
        per_param = {p: make_opt([p]) for p in params}

        def _step_in_hook(p) -> None:  # noqa: ANN001
            per_param[p].step()
            per_param[p].zero_grad(set_to_none=True)

        for p in params:
            p.register_post_accumulate_grad_hook(_step_in_hook)
        optimizer = None
    else:
        optimizer = make_opt(params)

    vocab = int(getattr(hf, "vocab_size", 0) or inner["vocab_size"])
    amp = torch.autocast(device_type=device if device != "meta" else "cpu", dtype=torch.bfloat16, enabled=case.autocast or case.master_fp32)
    sampler = None
    if nvml_read:
        sampler = _Sampler(nvml_read)
        sampler.start()
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    steps, lengths = [], case.step_lengths()
    peak_alloc = peak_res = 0
    gen = torch.Generator(device="cpu").manual_seed(0)
    oom = None
    split_peak = 0
    for s in range(case.steps):
        if cuda:
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        t = time.perf_counter()
        tokens = 0
        try:
            for k in range(case.grad_accumulation):
                n = lengths[s * case.grad_accumulation + k]
                ids = torch.randint(0, vocab, (case.micro_batch, n), generator=gen).to(dev)
                with amp:
                    loss = model(input_ids=ids, labels=ids).loss
                (loss / case.grad_accumulation).backward()
                del loss
                tokens += case.micro_batch * n
            if optimizer is not None:
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
            if cuda:
                torch.cuda.synchronize()
        except torch.cuda.OutOfMemoryError as exc:  # a finding, not a crash: keep what the earlier steps measured
            oom = str(exc)[:2000]
        rec = {"tokens": tokens, "seconds": round(time.perf_counter() - t, 4)}
        if cuda:
            rec.update(max_allocated=torch.cuda.max_memory_allocated(), max_reserved=torch.cuda.max_memory_reserved())
            peak_alloc, peak_res = max(peak_alloc, rec["max_allocated"]), max(peak_res, rec["max_reserved"])
            split_peak = max(split_peak, torch.cuda.memory_stats().get("inactive_split_bytes.all.peak", 0))
        steps.append(rec)
        if oom:
            break
    if sampler:
        sampler.stop.set()
        sampler.join()
    out: dict[str, Any] = {
        "trainable_params": sum(p.numel() for p in params),
        "total_params": sum(p.numel() for p in model.parameters()),
        "build_seconds": round(build_s, 2),
        "steps": steps,
    }
    if oom:
        out["oom"] = oom
    timed = steps[1:] or steps
    out["tokens_per_second"] = sum(r["tokens"] for r in timed) / max(1e-9, sum(r["seconds"] for r in timed))
    if cuda:
        stats = torch.cuda.memory_stats()
        free, total = torch.cuda.mem_get_info()
        out.update(
            max_allocated=peak_alloc, max_reserved=peak_res,
            reserved_end=torch.cuda.memory_reserved(), allocated_end=torch.cuda.memory_allocated(),
            num_alloc_retries=stats.get("num_alloc_retries", 0),
            inactive_split_peak=split_peak,
            device_total=total, device_used_end=total - free,
            nvml_used_before=used_before, nvml_used_context=used_context,
            nvml_used_peak=sampler.max if sampler else None, nvml_error=nvml_error,
            alloc_conf=os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
        )
    return out


# ------------------------------------------------------------------------------------------ parent
def environment(device: str) -> dict[str, Any]:
    """Versions and the GPU (read through NVML, so the parent never creates a CUDA context), for the header."""
    env: dict[str, Any] = {"python": sys.version.split()[0], "device": device}
    try:
        import peft
        import torch
        import transformers

        env.update(torch=torch.__version__, transformers=transformers.__version__, peft=peft.__version__,
                   cuda=torch.version.cuda)
    except Exception as exc:  # noqa: BLE001
        env["error"] = repr(exc)[:300]
    if device == "cuda":
        read, handle, error = _nvml()
        if handle is None:
            env["nvml_error"] = error
        else:
            try:
                import pynvml

                name = pynvml.nvmlDeviceGetName(handle)
                env["gpu"] = name.decode() if isinstance(name, bytes) else name
                env["driver"] = pynvml.nvmlSystemGetDriverVersion()
                env["nvml_total_bytes"] = int(pynvml.nvmlDeviceGetMemoryInfo(handle).total)
                env["nvml_used_at_start"] = read()
            except Exception as exc:  # noqa: BLE001
                env["nvml_error"] = repr(exc)[:300]
    return env


def _settle(read, baseline: int | None, seconds: float = 20.0) -> int | None:  # noqa: ANN001
    """Wait (up to ``seconds``) until the device's used memory is back near ``baseline`` (a previous child's
    memory can be freed after it exits); returns the last reading."""
    value = read() if read else None
    if value is None or baseline is None:
        return value
    end = time.monotonic() + seconds
    while value is not None and value > baseline + 256 * 2**20 and time.monotonic() < end:
        time.sleep(0.5)
        value = read()
    return value


def _run_child(cmd: list[str], env: dict[str, str], timeout: float) -> dict[str, Any]:
    """Run one case's child process; its RESULT line, else the error (never raises)."""
    out: dict[str, Any] = {}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env, timeout=timeout)
        out["returncode"] = proc.returncode
        line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if line:
            out["result"] = json.loads(line[len("RESULT "):])
        if proc.returncode != 0 or not line:
            out["error"] = ((proc.stderr or "") + (proc.stdout or "")).strip()[-4000:] or f"exit {proc.returncode}"
    except subprocess.TimeoutExpired:
        out["error"] = f"timed out after {timeout:.0f} s"
    except Exception as exc:  # noqa: BLE001 - one broken case must not end the grid
        out["error"] = repr(exc)[:4000]
    return out


def main(argv: list[str] | None = None) -> int:
    start = time.monotonic()  # the budget counts the imports too
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=Path, help="folder for gpu-grid.jsonl and env.json")
    ap.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--tiny", action="store_true", help="toy-size models (code-path check on a CPU)")
    ap.add_argument("--only", nargs="*", default=None, help="case ids to run (default: all, in order)")
    ap.add_argument("--budget-s", type=float, default=420, help="start no new case after this many seconds")
    ap.add_argument("--deadline-s", type=float, default=500, help="stop any case still running at this time")
    ap.add_argument("--case-timeout-s", type=float, default=240)
    ap.add_argument("--case", help=argparse.SUPPRESS)  # child mode: run one case, print its JSON
    args = ap.parse_args(argv)

    by_id = {c.id: c for c in GRID}
    unknown = [i for i in (args.only or []) + ([args.case] if args.case else []) if i not in by_id]
    if unknown:
        ap.error(f"unknown case id(s): {', '.join(unknown)} (known: {', '.join(by_id)})")
    if args.case:
        result = run_case(by_id[args.case], args.device, args.tiny)
        print("RESULT " + json.dumps(result), flush=True)
        os._exit(0)  # skip tearing down tens of GiB of tensors: the parent has what it needs

    args.out.mkdir(parents=True, exist_ok=True)
    info = environment(args.device)
    (args.out / "env.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    read = _nvml()[0] if args.device == "cuda" else None
    baseline = info.get("nvml_used_at_start")
    cases = [by_id[i] for i in args.only] if args.only else GRID
    results = args.out / RESULTS
    for case in cases:
        elapsed = time.monotonic() - start
        if elapsed >= args.budget_s:
            print(f"budget spent: {case.id} and later cases not run", flush=True)
            break
        # the case's allocator settings and nothing inherited (PYTORCH_ALLOC_CONF is the newer name)
        env = {k: v for k, v in os.environ.items() if k not in {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"}}
        env["PYTHONUNBUFFERED"] = "1"
        if case.alloc_conf:
            env["PYTORCH_CUDA_ALLOC_CONF"] = env["PYTORCH_ALLOC_CONF"] = case.alloc_conf
        cmd = [sys.executable, __file__, "--out", str(args.out), "--device", args.device, "--case", case.id]
        if args.tiny:
            cmd.append("--tiny")
        record: dict[str, Any] = {"case": asdict(case), "sequence_mode": case.sequence_mode,
                                  "nvml_used_before_start": _settle(read, baseline) if read else None}
        t = time.monotonic()
        record.update(_run_child(cmd, env, max(1.0, min(args.case_timeout_s, args.deadline_s - (t - start)))))
        record["wall_seconds"] = round(time.monotonic() - t, 1)
        with results.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
        r = record.get("result", {})
        gib = 2**30
        summary = (f"alloc {r['max_allocated'] / gib:6.2f} GiB  reserved {r['max_reserved'] / gib:6.2f} GiB  "
                   f"{r['tokens_per_second']:8.0f} tok/s" if "max_allocated" in r else
                   f"{r.get('tokens_per_second', 0):8.0f} tok/s" if r else record.get("error", "")[-200:])
        print(f"{case.id:40s} {record['wall_seconds']:6.1f} s  {summary}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
