"""The core catalogue's English templates (``tuneplan.core.terms.FORMULAS`` and ``NOTES``) marked for Qt's
translation tools, which read only the UI's sources. Generated from the catalogue; ``tests/ui/test_i18n.py`` fails
when it and the catalogue differ (regenerate with ``python tools/i18n.py core``)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

__all__ = ["CORE_TEMPLATES"]

CORE_TEMPLATES = (
    QT_TRANSLATE_NOOP("Terms", "attention FLOPs ÷ the {detail} kernel's measured rate: {flops} FLOP at {rate} FLOP/s (causal: half the score matrix; {keys_per_query} keys per query)"),  # attention
    QT_TRANSLATE_NOOP("Terms", 'collectives: {bytes} B at {link} B/s bus bandwidth, {overlapped} s of it hidden behind compute, which runs {contention} s slower beside them'),  # communication
    QT_TRANSLATE_NOOP("Terms", 'host overhead: {ops} operator launches × {op_seconds} s where the CPU is slower than the GPU, plus {step_overhead} s per step'),  # fixed
    QT_TRANSLATE_NOOP("Terms", 'Σ over GEMMs of max(FLOPs ÷ achieved matmul rate, bytes ÷ memory bandwidth): {flops} FLOP at {rate} FLOP/s, {bytes} B at {bandwidth} B/s, {gemms} GEMMs × {micro_batches} micro-batches'),  # matmul
    QT_TRANSLATE_NOOP("Terms", 'CPU offload: {pcie_bytes} B over PCIe at {pcie} B/s, CPU optimizer {cpu_seconds} s, {overlapped} s hidden behind compute'),  # offload
    QT_TRANSLATE_NOOP("Terms", 'optimizer step: {params} parameters × {bytes_per_param} B ÷ {bandwidth} B/s'),  # optimizer
    QT_TRANSLATE_NOOP("Terms", 'norms, activations, rotary, residuals, LoRA dropout, cross-entropy, dequantisation: {bytes} B ÷ {bandwidth} B/s'),  # other_kernels
    QT_TRANSLATE_NOOP("Terms", '{field} must be a positive number, got {value}'),  # calibration.bad_number
    QT_TRANSLATE_NOOP("Terms", 'no step and time columns (step with _runtime, step_time or tokens_per_second)'),  # calibration.no_columns
    QT_TRANSLATE_NOOP("Terms", 'the file has no train_runtime or step times to measure'),  # calibration.no_runtime
    QT_TRANSLATE_NOOP("Terms", 'the file records no completed training steps'),  # calibration.no_steps
    QT_TRANSLATE_NOOP("Terms", 'the file is not a JSON object'),  # calibration.not_object
    QT_TRANSLATE_NOOP("Terms", 'at least two logged steps are needed, found {rows}'),  # calibration.too_few_rows
    QT_TRANSLATE_NOOP("Terms", 'calibrated from your run of {date}: time × {factor}'),  # time.calibrated
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
)
