"""One real training step of a Hugging Face model under FakeTensorMode, measured by MemTracker.

No GPU and no weights are needed: the model is built from its ``config.json`` numbers with
``torch._subclasses.fake_tensor.FakeTensorMode`` active, so every tensor carries its true shape,
dtype and storage size but owns no memory. A real step runs on it — forward with labels (the
model's own ``ForCausalLMLoss``), ``loss.backward()``, ``torch.optim.AdamW.step()`` (foreach or
fused) and ``zero_grad()`` — while ``torch.distributed._tools.mem_tracker.MemTracker`` records
every storage that autograd, the model and the optimizer create and free, by category:

* ``Parameter`` / ``Buffer``: module parameters and buffers (weights, LoRA adapters, RoPE tables);
* ``Gradient``: ``.grad`` of trainable parameters;
* ``Activation``: anything produced in the forward pass (or in the recomputation of a checkpointed
  layer) that is still alive — the saved tensors, plus the fp32 log-softmax the loss saves;
* ``Temp``: anything produced in backward that is not a parameter gradient (gradients of
  activations, the fp32 gradient of the logits);
* ``Optstate``: anything produced inside ``optimizer.step()`` — the AdamW moments *and* the step's
  transient foreach buffers.

What this module adds on top of MemTracker (see :class:`PhaseMemTracker`):

* **Phases.** Each tracked op updates the peak of the current phase — ``fw`` (forward and loss),
  ``bw_loss`` (backward of the loss: cross-entropy and the fp32 upcast of the logits),
  ``bw_head`` (backward of the LM head and the final norm, before the top decoder layer),
  ``bw_top`` (backward of the top decoder layer), ``bw_mid``, ``bw_bottom`` (backward of layer 0),
  ``bw_tail`` (embedding), ``opt`` (optimizer step) — with the per-category breakdown at that peak
  and each category's own maximum. Every phase peak is linear in the number of decoder layers, which
  is what makes the reduced-depth extrapolation of :mod:`tools.validate.grid` exact (see there).
* **Marks.** Snapshots at fixed points: before the LM head (``pre_head``: every saved activation of
  the decoder), end of forward (``end_fw``), end of backward, end of the optimizer step.
* **CUDA block rounding.** The tensors are CPU fakes (a CPU-only PyTorch build cannot run autograd on
  fake ``cuda`` tensors: ``AccumulateGrad`` aborts in ``getDeviceGuardImpl``), so MemTracker's
  CUDA rule — every storage rounded up to 512 bytes like the caching allocator — is applied to all
  devices while a step is measured.
* **CUDA dropout.** ``F.dropout`` on CPU saves a noise tensor in the input's dtype; on CUDA the fused
  ``native_dropout`` saves a boolean mask. The measurement uses the CUDA kernel (:func:`_cuda_dropout`).
* **Real-data mask decisions.** transformers' packed-sequence detection reads ``position_ids`` values,
  which fakes do not have; it is told the batch is unpacked, as it would find (:func:`_unpacked_batch`).
* **Two workarounds** the brief anticipated: PEFT moves each new adapter to its base layer's device
  and dtype with ``.to()``, which under FakeTensorMode swaps the parameters for new fakes (we skip the
  move; :func:`peft.tuners.tuners_utils.cast_adapter_dtype` still upcasts adapters to fp32 as in a
  real run), and MemTracker registers gradient hooks on every parameter, which raises on frozen ones
  (we install them only where ``requires_grad``).

What a fake CPU step can and cannot say about a CUDA run is written in ``docs/validation.md``.
"""

from __future__ import annotations

import contextlib
import gc
import math
import time
from copy import deepcopy
from dataclasses import asdict, dataclass, field
from typing import Any

import torch
from torch import nn
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.distributed._tools import mem_tracker as _mt
from torch.distributed._tools.mem_tracker import MemTracker

__all__ = [
    "CATEGORIES",
    "CaseSpec",
    "PhaseMemTracker",
    "build_model",
    "fake_model",
    "hf_config",
    "measure",
]

#: MemTracker's categories (``_MemRefType`` values) in the order the reports use.
CATEGORIES = ["Parameter", "Buffer", "Gradient", "Activation", "Temp", "Optstate", "Other"]
_TOTAL = "Total"
_CUDA_BLOCK = 512  # c10/cuda/CUDACachingAllocator.cpp kMinBlockSize


@dataclass
class CaseSpec:
    """One measured training step.

    Attributes:
        config: the Hugging Face ``config.json`` fields (``model_type`` included). A multimodal
            wrapper's ``text_config`` is used for its language model.
        layers: decoder layers to build (``num_hidden_layers`` is overridden).
        layer_types: optional explicit ``layer_types`` list (sliding/full attention per layer) of
            length ``layers``; ``None`` keeps the config's own pattern.
        method: ``full`` (every weight trains) or ``lora`` (PEFT LoRA on a frozen bf16 base).
        lora_targets: ``q_v`` or ``all-linear`` (PEFT's ``all-linear`` excludes the LM head).
        lora_rank, lora_alpha, lora_dropout: PEFT ``LoraConfig`` values.
        grad_checkpointing: ``gradient_checkpointing_enable(use_reentrant=False)``.
        seq_len, micro_batch: tokens per step are ``seq_len * micro_batch`` (no padding).
        optimizer: ``adamw`` (``foreach=True``) or ``adamw-fused`` (``fused=True``).
        autocast: run forward and loss under ``torch.autocast(bfloat16)``, as Hugging Face Trainer
            and accelerate do with ``bf16=True``; ``False`` is a plain loop on the bf16 model.
        attention: the ``attn_implementation`` (``sdpa``; ``eager`` works too).
        adapter_dtype: ``fp32`` (PEFT's default ``autocast_adapter_dtype=True``) or ``bf16`` (adapters in
            the model dtype, as torchtune and LitGPT hold them: ``autocast_adapter_dtype=False``, created in
            bf16 as PEFT's move to the base layer's dtype would leave them).
        warmup_steps: untracked training steps before the measured one. One makes the measured step a
            steady-state step, as every step after the first is: the AdamW states exist from its start
            (``torch.optim.AdamW`` creates them lazily in the first ``step()``). 0 measures the first step.
    """

    config: dict[str, Any]
    layers: int
    layer_types: list[str] | None = None
    method: str = "full"
    lora_targets: str = "q_v"
    lora_rank: int = 16
    lora_alpha: float = 32
    lora_dropout: float = 0.05
    grad_checkpointing: bool = False
    seq_len: int = 512
    micro_batch: int = 1
    optimizer: str = "adamw"
    autocast: bool = True
    attention: str = "sdpa"
    adapter_dtype: str = "fp32"
    warmup_steps: int = 1


@dataclass
class _PhaseStat:
    peak: int = 0
    at_peak: dict[str, int] = field(default_factory=dict)
    cat_max: dict[str, int] = field(default_factory=dict)
    entry: dict[str, int] = field(default_factory=dict)


def _flat(snap: dict) -> dict[str, int]:
    """MemTracker's ``{device: {reftype: bytes}}`` summed over devices, keyed by category name."""
    out = dict.fromkeys([*CATEGORIES, _TOTAL], 0)
    for dev_snap in snap.values():
        for key, val in dev_snap.items():
            name = key.value if hasattr(key, "value") else str(key)
            out[name] = out.get(name, 0) + int(val)
    return out


class PhaseMemTracker(MemTracker):
    """MemTracker with per-phase peaks, named marks, frozen-parameter filtering and CUDA rounding.

    Use it exactly like :class:`MemTracker`; call :meth:`set_phase` / :meth:`mark` from the driver and
    :meth:`watch_layers` with the first and last decoder layer so backward phases switch by themselves.
    Module-wise snapshots (MemTracker's per-module peaks) are not kept: they cost a loop over every
    module per op, which made PEFT models at full depth slow, and the comparison does not need them.
    """

    def __init__(self) -> None:
        super().__init__()
        self.phase = "setup"
        self.phases: dict[str, _PhaseStat] = {}
        self.marks: dict[str, dict[str, int]] = {}
        self.peak_phase = ""
        self._top: nn.Module | None = None
        self._bottom: nn.Module | None = None
        self._head: nn.Module | None = None

    # ------------------------------------------------------------------ driver API
    def watch_layers(self, bottom: nn.Module, top: nn.Module, head: nn.Module | None = None) -> None:
        """Switch to ``bw_head`` (LM head), ``bw_top``/``bw_mid``/``bw_bottom``/``bw_tail`` as backward reaches them."""
        self._bottom, self._top, self._head = bottom, top, head

    def current(self) -> dict[str, int]:
        """Live bytes per category now (plus ``Total``)."""
        return _flat(self._curr_mem_snap)

    def set_phase(self, name: str) -> None:
        """Start phase ``name``; its entry snapshot is the live memory now."""
        self.phase = name
        stat = self.phases.setdefault(name, _PhaseStat())
        if not stat.entry:
            stat.entry = self.current()
        self._note(stat)

    def mark(self, name: str) -> None:
        """Record the live memory per category under ``name``."""
        self.marks[name] = self.current()

    # ------------------------------------------------------------------ MemTracker overrides
    def _note(self, stat: _PhaseStat) -> None:
        cur = self.current()
        if cur[_TOTAL] > stat.peak or not stat.at_peak:
            stat.peak = cur[_TOTAL]
            stat.at_peak = cur
        for key, val in cur.items():
            if val > stat.cat_max.get(key, 0):
                stat.cat_max[key] = val

    def _update_peak_stats(self, peak_state: Any) -> None:  # noqa: ARG002 - MemTracker signature
        total = sum(s.get(_TOTAL, 0) for s in self._curr_mem_snap.values())
        if total > sum(self._peak_mem.values()):
            for dev, dev_snap in self._curr_mem_snap.items():
                self._peak_mem[dev] = dev_snap[_TOTAL]
                self._peak_mem_snap[dev] = deepcopy(dev_snap)
            self.peak_phase = self.phase
        self._note(self.phases.setdefault(self.phase, _PhaseStat(entry=self.current())))

    def _pre_bw_hook(self, module: nn.Module, args: Any) -> None:
        if module is not None and module is self._head:
            self.set_phase("bw_head")
        if module is not None and module is self._top:
            self.set_phase("bw_top")
        if module is not None and module is self._bottom and module is not self._top:
            self.set_phase("bw_bottom")
        super()._pre_bw_hook(module, args)

    def _post_bw_hook(self, module: nn.Module, args: Any) -> None:
        # The same gradient that finishes the top layer starts the layer below it, and autograd may run
        # that layer's pre-hook first: only leave a phase that is still current.
        if module is not None and module is self._top and self.phase == "bw_top":
            self.set_phase("bw_mid")
        if module is not None and module is self._bottom and self.phase == "bw_bottom":
            self.set_phase("bw_tail")
        super()._post_bw_hook(module, args)

    def _track_module_params_and_buffers(self, module: nn.Module, install_grad_hooks: bool = True) -> tuple[int, int]:
        """MemTracker's method, with gradient hooks only on trainable parameters.

        ``Tensor.register_hook`` raises on a tensor that does not require grad, which is every frozen
        base weight under LoRA.
        """

        def _grad_hook(grad: torch.Tensor) -> None:
            self._update_and_maybe_create_winfos(grad, _mt._MemRefType.GRAD)

        param_memory = 0
        for param in module.parameters():
            winfos = self._update_and_maybe_create_winfos(param, _mt._MemRefType.PARAM)
            param_memory += sum(w.mem_consumed for w in winfos)
            if param.grad is not None:
                self._update_and_maybe_create_winfos(param.grad, _mt._MemRefType.GRAD)
            if install_grad_hooks and param.requires_grad and self._param_to_grad_hook_handles.get(param, None) is None:
                h1 = param.register_hook(_grad_hook)
                h2 = param.register_post_accumulate_grad_hook(lambda p: _grad_hook(p.grad))
                self._param_to_grad_hook_handles[param] = (h1, h2)
        buffer_memory = 0
        for buf in module.buffers():
            winfos = self._update_and_maybe_create_winfos(buf, _mt._MemRefType.BUFFER)
            buffer_memory += sum(w.mem_consumed for w in winfos)
        return param_memory, buffer_memory


@contextlib.contextmanager
def _cuda_rounding():
    """Round every tracked storage up to 512 bytes (the CUDA caching allocator's block), on any device."""
    orig = _mt._WeakRefInfo._calculate_mem_consumed

    def rounded(self: Any) -> int:
        return math.ceil(self.size * self.element_size / _CUDA_BLOCK) * _CUDA_BLOCK

    _mt._WeakRefInfo._calculate_mem_consumed = rounded
    try:
        yield
    finally:
        _mt._WeakRefInfo._calculate_mem_consumed = orig


@contextlib.contextmanager
def _unpacked_batch():
    """Tell transformers the batch is not packed, as it would find on real data.

    ``masking_utils.find_packed_sequence_indices`` reads the values of ``position_ids`` to detect packed
    sequences; on fake tensors it cannot, treats the batch as possibly packed, and materialises a
    boolean causal mask. That mask makes sdpa repeat k/v for GQA (``use_gqa_in_sdpa`` needs no mask)
    and keeps an ``s x s`` mask alive — neither happens in a real run on an unpadded batch, where the
    positions are ``0..s-1`` and the function returns ``None`` (``is_causal=True``, ``enable_gqa``).
    Sliding-window layers longer than their window still get their mask, as in a real run.
    """
    from transformers import masking_utils

    orig = masking_utils.find_packed_sequence_indices
    masking_utils.find_packed_sequence_indices = lambda position_ids: None
    try:
        yield
    finally:
        masking_utils.find_packed_sequence_indices = orig


@contextlib.contextmanager
def _cuda_dropout():
    """Dropout as on CUDA: ``native_dropout`` (the fused kernel), which saves a 1-byte boolean mask.

    ``torch.nn.functional.dropout`` takes the fused kernel only for CUDA/XPU tensors
    (``is_fused_kernel_acceptable`` in ATen's ``Dropout.cpp``); on CPU it multiplies by a noise tensor
    of the input's dtype and saves that (4 bytes per element for PEFT's fp32 LoRA input). A GPU run
    saves the boolean mask, so the measurement does too.
    """
    import torch.nn.functional as F  # noqa: N812

    orig = F.dropout

    def dropout(input: torch.Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> torch.Tensor:  # noqa: A002
        if training and 0 < p < 1 and not inplace:
            return torch.native_dropout(input, p, True)[0]
        return orig(input, p, training, inplace)

    F.dropout = dropout
    try:
        yield
    finally:
        F.dropout = orig


@contextlib.contextmanager
def _adapter_dtype(name: str):
    """Create the adapters in bf16 for ``adapter_dtype="bf16"`` (PEFT's skipped move would cast them there)."""
    if name == "fp32":
        yield
        return
    if name != "bf16":
        raise ValueError(f"adapter_dtype {name!r} is not measured (fp32, bf16)")
    before = torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)
    try:
        yield
    finally:
        torch.set_default_dtype(before)


def _check_adapter_dtype(model: nn.Module, name: str) -> None:
    """Every trainable (adapter) parameter has the dtype the case asks for."""
    want = torch.float32 if name == "fp32" else torch.bfloat16
    wrong = {str(p.dtype) for p in model.parameters() if p.requires_grad and p.dtype != want}
    if wrong:
        raise RuntimeError(f"adapters are {sorted(wrong)}, expected {want}")


@contextlib.contextmanager
def _peft_no_device_moves():
    """Skip PEFT's per-adapter ``.to(device, dtype)`` of the base layer (it swaps fake parameters)."""
    from peft.tuners import tuners_utils

    orig_to = nn.Module.to

    def to(self: nn.Module, *args: Any, **kwargs: Any) -> nn.Module:
        # ``LoraModel._replace_module`` calls ``module.to(weight.device)``; a pure device move to the
        # device the fakes are already on changes nothing, and under FakeTensorMode it fails
        # ("Couldn't swap Linear.weight": the parameter has a weakref). Dtype casts still go through.
        device, dtype, _, _ = torch._C._nn._parse_to(*args, **kwargs)
        if dtype is None and (device is None or device.type == "cpu"):
            return self
        return orig_to(self, *args, **kwargs)

    from peft.tuners.lora import layer as lora_layer

    # LoRA's ParamWrapper (adapters on 3-D MoE expert parameters) has its own override of the move.
    owners = [tuners_utils.BaseTunerLayer] + [c for c in vars(lora_layer).values() if isinstance(c, type)
                                              and "_move_adapter_to_device_of_base_layer" in vars(c)]
    saved = [(c, vars(c)["_move_adapter_to_device_of_base_layer"]) for c in owners]
    for c in owners:
        c._move_adapter_to_device_of_base_layer = lambda self, *a, **k: None
    nn.Module.to = to
    try:
        yield
    finally:
        for c, fn in saved:
            c._move_adapter_to_device_of_base_layer = fn
        nn.Module.to = orig_to


def hf_config(config: dict[str, Any], layers: int, layer_types: list[str] | None = None, attention: str = "sdpa"):
    """A ``transformers`` config object from ``config.json`` fields, with ``layers`` decoder layers.

    Multimodal wrappers (Gemma 3, Mistral 3) contribute their ``text_config``. ``use_cache`` is off, as
    in training.
    """
    import transformers

    cfg = dict(config)
    if isinstance(cfg.get("text_config"), dict) and "hidden_size" not in cfg:
        text = dict(cfg["text_config"])
        for key in ("tie_word_embeddings",):
            if key in cfg and key not in text:
                text[key] = cfg[key]
        cfg = text
    model_type = cfg.pop("model_type")
    cfg = {k: v for k, v in cfg.items() if not k.startswith("_")}
    cfg["num_hidden_layers"] = layers
    cfg["use_cache"] = False
    cfg.pop("layer_types", None)
    for key in ("mlp_only_layers",):
        if key in cfg and not cfg[key]:
            cfg.pop(key)
    hf = transformers.AutoConfig.for_model(model_type, **cfg)
    if layer_types is not None:
        hf.layer_types = list(layer_types)
    hf._attn_implementation = attention
    return hf


def full_layer_types(config: dict[str, Any]) -> list[str] | None:
    """The full-depth model's per-layer attention types (``sliding_attention``/``full_attention``), if any."""
    full = hf_config(config, _num_layers(config))
    types = getattr(full, "layer_types", None)
    return list(types) if types else None


def _num_layers(config: dict[str, Any]) -> int:
    inner = config.get("text_config") if isinstance(config.get("text_config"), dict) and "hidden_size" not in config else config
    return int(inner["num_hidden_layers"])


def _decoder_layers(model: nn.Module) -> nn.ModuleList:
    for name, mod in model.named_modules():
        if name.endswith("layers") and isinstance(mod, nn.ModuleList) and len(mod) > 0:
            return mod
    raise RuntimeError("no decoder layer list found")


def _lm_head(model: nn.Module) -> nn.Module:
    head = model.get_output_embeddings()
    if head is None:
        raise RuntimeError("model has no output embedding")
    return head


def build_model(spec: CaseSpec, hf: Any) -> nn.Module:
    """The model of ``spec`` from its transformers config ``hf`` (:func:`hf_config`), in training mode: BF16 weights,
    gradient checkpointing (non-reentrant) if asked, PEFT LoRA on ``spec.lora_targets`` with the adapter dtype of
    ``spec.adapter_dtype``. Call it inside ``FakeTensorMode`` (and :func:`_cuda_rounding` etc.), as
    :func:`measure` does. Raises ``ValueError`` for a method other than ``full`` or ``lora``."""
    import transformers

    model = transformers.AutoModelForCausalLM.from_config(hf, dtype=torch.bfloat16, attn_implementation=spec.attention)
    model.train()
    if spec.grad_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    if spec.method == "lora":
        import peft

        targets = ["q_proj", "v_proj"] if spec.lora_targets == "q_v" else "all-linear"
        lcfg = peft.LoraConfig(
            r=spec.lora_rank, lora_alpha=spec.lora_alpha, lora_dropout=spec.lora_dropout,
            target_modules=targets, task_type="CAUSAL_LM",
        )
        with _peft_no_device_moves(), _adapter_dtype(spec.adapter_dtype):
            model = peft.get_peft_model(model, lcfg, autocast_adapter_dtype=spec.adapter_dtype == "fp32")
        _check_adapter_dtype(model, spec.adapter_dtype)
    elif spec.method != "full":
        raise ValueError(f"method {spec.method!r} is not measured (full, lora)")
    return model


@contextlib.contextmanager
def fake_model(spec: CaseSpec):  # noqa: ANN201 - yields (nn.Module, int)
    """Inside ``FakeTensorMode`` with the CUDA rounding, unpacked-batch and CUDA-dropout patches: the model of
    ``spec`` (:func:`build_model`, seeded) and its vocabulary size, as ``(model, vocab)``."""
    hf = hf_config(spec.config, spec.layers, spec.layer_types, spec.attention)
    torch.manual_seed(0)
    with FakeTensorMode(allow_non_fake_inputs=True), _cuda_rounding(), _unpacked_batch(), _cuda_dropout():
        yield build_model(spec, hf), hf.vocab_size


def measure(spec: CaseSpec) -> dict[str, Any]:
    """Build the model of ``spec`` under FakeTensorMode, run one training step, return MemTracker's accounting.

    Returns:
        A JSON-ready dict: ``peak`` (MemTracker's overall peak, bytes) and ``peak_phase``;
        ``at_peak`` (bytes per category at that moment); ``cat_max`` (each category's own maximum);
        ``phases`` (per phase: ``peak``, ``at_peak``, ``cat_max``, ``entry``); ``marks`` (``start``,
        ``pre_head``, ``end_fw``, ``end_bw``, ``end_opt``, ``after_zero_grad``); parameter counts;
        ``seconds``.
    """
    t0 = time.perf_counter()
    with fake_model(spec) as (model, vocab):
        params = [p for p in model.parameters() if p.requires_grad]
        n_trainable = sum(p.numel() for p in params)
        n_total = sum(p.numel() for p in model.parameters())
        opt_kwargs = {"fused": True} if spec.optimizer == "adamw-fused" else {"foreach": True}
        optimizer = torch.optim.AdamW(params, lr=1e-5, **opt_kwargs)
        ids = torch.randint(0, vocab, (spec.micro_batch, spec.seq_len))
        labels = ids.clone()

        amp = torch.autocast("cpu", dtype=torch.bfloat16) if spec.autocast else contextlib.nullcontext()
        for _ in range(spec.warmup_steps):  # untracked: the optimizer states exist when the measured step starts
            with amp:
                warm = model(input_ids=ids, labels=labels).loss
            warm.backward()
            del warm
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)

        layers = _decoder_layers(model)
        head = _lm_head(model)
        mt = PhaseMemTracker()
        mt.track_external(model, optimizer)
        mt.watch_layers(layers[0], layers[-1], head)
        mark = mt.mark
        hook = head.register_forward_pre_hook(lambda mod, args: mark("pre_head"))
        with mt:
            mt.mark("start")
            mt.set_phase("fw")
            with amp:
                loss = model(input_ids=ids, labels=labels).loss  # outputs (and their bf16 logits) dropped, as Trainer does
            mt.mark("end_fw")
            mt.set_phase("bw_loss")
            loss.backward()
            del loss
            mt.mark("end_bw")
            mt.set_phase("opt")
            optimizer.step()
            mt.mark("end_opt")
            mt.set_phase("zero_grad")
            optimizer.zero_grad(set_to_none=True)
            mt.mark("after_zero_grad")
        hook.remove()
        peak_snap = _flat(mt.get_tracker_snapshot("peak"))
    result = {
        "peak": peak_snap[_TOTAL],
        "peak_phase": mt.peak_phase,
        "at_peak": peak_snap,
        "phases": {k: asdict(v) for k, v in mt.phases.items()},
        "marks": mt.marks,
        "trainable_params": n_trainable,
        "total_params": n_total,
        "seconds": round(time.perf_counter() - t0, 2),
    }
    del model, optimizer, mt, params, layers, head
    gc.collect()
    return result


if __name__ == "__main__":  # pragma: no cover - manual smoke run
    import json
    import sys

    cfg = {"model_type": "llama", "hidden_size": 256, "intermediate_size": 688, "num_hidden_layers": 2,
           "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000}
    method = sys.argv[1] if len(sys.argv) > 1 else "full"
    print(json.dumps(measure(CaseSpec(config=cfg, layers=2, method=method, seq_len=64)), indent=1)[:4000])


def saved_tensors_by_op(spec: CaseSpec) -> dict[str, int]:
    """Bytes autograd saved in the forward of ``spec``, per backward node type (each storage counted once).

    Walks the autograd graph from the loss and reads every node's ``_saved_*`` tensors. The difference
    of two depths is what one decoder layer saves, op by op — the itemised evidence behind the
    per-layer comparison (no MemTracker involved; gradient checkpointing must be off).
    """
    import transformers

    hf = hf_config(spec.config, spec.layers, spec.layer_types, spec.attention)
    with FakeTensorMode(allow_non_fake_inputs=True), _unpacked_batch(), _cuda_dropout():
        model = transformers.AutoModelForCausalLM.from_config(hf, dtype=torch.bfloat16, attn_implementation=spec.attention)
        model.train()
        if spec.method == "lora":
            import peft

            targets = ["q_proj", "v_proj"] if spec.lora_targets == "q_v" else "all-linear"
            lcfg = peft.LoraConfig(r=spec.lora_rank, lora_alpha=spec.lora_alpha, lora_dropout=spec.lora_dropout,
                                   target_modules=targets, task_type="CAUSAL_LM")
            with _peft_no_device_moves(), _adapter_dtype(spec.adapter_dtype):
                model = peft.get_peft_model(model, lcfg, autocast_adapter_dtype=spec.adapter_dtype == "fp32")
            _check_adapter_dtype(model, spec.adapter_dtype)
        ids = torch.randint(0, hf.vocab_size, (spec.micro_batch, spec.seq_len))
        amp = torch.autocast("cpu", dtype=torch.bfloat16) if spec.autocast else contextlib.nullcontext()
        with amp:
            loss = model(input_ids=ids, labels=ids.clone()).loss
        seen_nodes: set[int] = set()
        # parameters are not activations: a matmul saving its weight adds no memory
        seen_storages: set[int] = {id(p.untyped_storage()) for p in model.parameters()}
        params_alive = list(model.parameters())  # keep the storages (and their ids) alive
        out: dict[str, int] = {}
        stack = [loss.grad_fn]
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen_nodes:
                continue
            seen_nodes.add(id(node))
            for attr in dir(node):
                if not attr.startswith("_saved_"):
                    continue
                try:
                    val = getattr(node, attr)
                except Exception:  # noqa: BLE001 - some saved fields cannot be read back
                    continue
                vals = val if isinstance(val, (tuple, list)) else [val]
                for v in vals:
                    if isinstance(v, torch.Tensor) and v.numel() > 0:
                        st = v.untyped_storage()
                        key = id(st)
                        if key in seen_storages:
                            continue
                        seen_storages.add(key)
                        name = f"{type(node).__name__}.{attr[7:]} {str(v.dtype).replace('torch.', '')}"
                        out[name] = out.get(name, 0) + st.nbytes()
            stack.extend(fn for fn, _ in node.next_functions)
        del loss, model, params_alive
    gc.collect()
    return out
