"""The core catalogue's English templates (``tuneplan.core.terms.FORMULAS`` and ``NOTES``) marked for Qt's
translation tools, which read only the UI's sources. Generated from the catalogue; ``tests/ui/test_i18n.py`` fails
when it and the catalogue differ (regenerate with ``python tools/i18n.py core``)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

__all__ = ["CORE_TEMPLATES"]

CORE_TEMPLATES = (
    QT_TRANSLATE_NOOP("Terms", "per micro-batch: {flops} FLOP at the {detail} kernel's measured {rate} FLOP/s (causal: {keys_per_query} keys per query); × {micro_batches} micro-batches per step"),  # attention
    QT_TRANSLATE_NOOP("Terms", '{exposed} s of collectives not hidden ({bytes} B at {link} B/s bus bandwidth, {overlapped} s hidden behind compute) + {contention} s the compute beside them runs slower'),  # communication
    QT_TRANSLATE_NOOP("Terms", '{ops} operator launches × {op_seconds} s of host time, less the {gpu_seconds} s the GPU is busy meanwhile'),  # fixed
    QT_TRANSLATE_NOOP("Terms", 'per micro-batch: {compute_seconds} s of compute-bound GEMMs ({compute_flops} FLOP at an effective {effective_rate} FLOP/s: the sustained {rate} FLOP/s less wave quantisation) + {memory_seconds} s of memory-bound GEMMs ({memory_bytes} B at {bandwidth} B/s); {gemms} GEMMs; × {micro_batches} micro-batches per step'),  # matmul
    QT_TRANSLATE_NOOP("Terms", '{transfer_seconds} s over PCIe ({pcie_bytes} B at {pcie} B/s) + CPU optimizer {cpu_seconds} s − {overlapped} s hidden behind compute'),  # offload
    QT_TRANSLATE_NOOP("Terms", '{params} parameters × {bytes_per_param} B read and written ÷ {bandwidth} B/s'),  # optimizer
    QT_TRANSLATE_NOOP("Terms", 'per micro-batch: {bytes} B of norms, activations, rotary, residuals, LoRA dropout, cross-entropy and dequantisation at {bandwidth} B/s; × {micro_batches} micro-batches per step'),  # other_kernels
    QT_TRANSLATE_NOOP("Terms", '{field} must be a positive number, got {value}'),  # calibration.bad_number
    QT_TRANSLATE_NOOP("Terms", "the pilot's {seconds} s per step would mean {mfu} % of the GPU's peak rate, which no card reaches: is it a different plan, or per micro-batch?"),  # calibration.faster_than_hardware
    QT_TRANSLATE_NOOP("Terms", "the pilot ran micro-batch {pilot}, the plan has {plan}: set the plan to the pilot's settings, then import it"),  # calibration.micro_batch_differs
    QT_TRANSLATE_NOOP("Terms", 'no step and time columns (step with _runtime, step_time or tokens_per_second)'),  # calibration.no_columns
    QT_TRANSLATE_NOOP("Terms", 'the file has no train_runtime or step times to measure'),  # calibration.no_runtime
    QT_TRANSLATE_NOOP("Terms", 'the file records no completed training steps'),  # calibration.no_steps
    QT_TRANSLATE_NOOP("Terms", '{rows} rows, but no usable step times: they must be positive numbers, and _runtime must grow from step to step'),  # calibration.no_usable_rows
    QT_TRANSLATE_NOOP("Terms", 'the file is not a JSON object'),  # calibration.not_object
    QT_TRANSLATE_NOOP("Terms", 'at least two logged steps are needed, found {rows}'),  # calibration.too_few_rows
    QT_TRANSLATE_NOOP("Terms", "the pilot's {seconds} s per step is {factor} times the model's {predicted} s: a different plan, a stalled run or the wrong file"),  # calibration.too_slow
    QT_TRANSLATE_NOOP("Terms", 'calibrated from your run of {date}: time × {factor}'),  # time.calibrated
    QT_TRANSLATE_NOOP("Terms", 'your run of {date} was fitted to an earlier version of the time model and is not applied: import it again'),  # time.calibration_stale
    QT_TRANSLATE_NOOP("Terms", '{share} % of the step waits for collectives over {link}'),  # time.communication_bound
    QT_TRANSLATE_NOOP("Terms", 'FP32 training: TF32 tensor rate taken as half the BF16 rate'),  # time.fp32
    QT_TRANSLATE_NOOP("Terms", 'memory-bound: weights and activations streamed from memory outlast the math; a larger micro-batch is faster'),  # time.memory_bound
    QT_TRANSLATE_NOOP("Terms", 'MFU override {mfu}: model FLOPs ÷ spec peak replaces the step model'),  # time.mfu_override
    QT_TRANSLATE_NOOP("Terms", 'layers split across {n} GPUs run one GPU at a time'),  # time.naive_model_parallel
    QT_TRANSLATE_NOOP("Terms", '{gpu} has no BF16: timed at its FP16 rate'),  # time.no_bf16
    QT_TRANSLATE_NOOP("Terms", '{share} % of the step waits for CPU offload over PCIe and the CPU optimizer'),  # time.offload_bound
    QT_TRANSLATE_NOOP("Terms", 'host-bound: the CPU launches kernels more slowly than the GPU runs them ({share} % of the step); a larger micro-batch or a compiled stack is faster'),  # time.overhead_bound
    QT_TRANSLATE_NOOP("Terms", 'paged optimizer states spill {gib} GiB to CPU RAM: read and written over PCIe at every optimizer step'),  # time.paged_spill
    QT_TRANSLATE_NOOP("Terms", 'examples of {tokens} tokens are truncated to seq_len {seq_len}'),  # time.truncated
    QT_TRANSLATE_NOOP("Terms", ' × {calibration} (calibrated from your run)'),  # calibration_suffix
)
