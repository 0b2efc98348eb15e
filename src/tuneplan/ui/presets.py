"""Presets: common fine-tuning setups applied in one step, and the form's keyboard guidance.

A :class:`Preset` is a GPU (optional) plus a set of dotted scenario fields. Applying one keeps the
model and the dataset (a preset describes *how* to train, not *what*): it switches the GPU through
:meth:`AppStore.set_gpu` (which also picks that GPU's default price) and sets the fields with one
atomic :meth:`AppStore.set_fields`.

:func:`install_presets` adds a "Presets" menu and a toolbar combo ("Start from a preset…"), and a
shortcut that puts the keyboard focus in the form (Ctrl+L: "the plan's first field").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QMainWindow, QWidget

from tuneplan.ui.menus import PRESETS_MENU
from tuneplan.ui.store import AppStore

__all__ = ["PRESETS", "Preset", "apply_preset", "install_presets"]

#: Qt's translation function under the name pyside6-lupdate extracts from.
translate = QCoreApplication.translate


@dataclass(frozen=True)
class Preset:
    """A common setup: a title, why it is set up this way, an optional GPU and the fields to set."""

    key: str
    title: str
    description: str
    gpu_id: str | None
    fields: dict[str, Any] = field(default_factory=dict)


_SINGLE = {"training.num_gpus": 1, "training.sharding": "none"}

PRESETS: list[Preset] = [
    Preset(
        "qlora_24gb",
        QT_TRANSLATE_NOOP("Presets", "QLoRA on a 24 GB card"),
        QT_TRANSLATE_NOOP(
            "Presets",
            "RTX 4090: 4-bit NF4 base with double quantisation, LoRA r=16 on all linear layers, "
            "micro-batch 1 × 2k tokens, gradient checkpointing, paged 8-bit AdamW.",
        ),
        "rtx4090",
        {
            **_SINGLE,
            "training.method": "qlora",
            "training.precision": "bf16",
            "training.double_quant": True,
            "training.kbit_fp32_upcast": False,
            "training.optimizer": "paged-adamw-8bit",
            "training.lora_rank": 16,
            "training.lora_alpha": 32.0,
            "training.lora_targets": "all-linear",
            "training.micro_batch": 1,
            "training.grad_accumulation": 16,
            "training.seq_len": 2048,
            "training.sequence_mode": "packed",
            "training.grad_checkpointing": True,
            "training.attention": "flash",
            "training.cpu_offload": False,
            "training.activation_offload": False,
        },
    ),
    Preset(
        "lora_a100",
        QT_TRANSLATE_NOOP("Presets", "LoRA on one A100 80 GB"),
        QT_TRANSLATE_NOOP(
            "Presets",
            "BF16 base, LoRA r=16 on all linear layers, micro-batch 4 × 4k tokens, gradient "
            "checkpointing, fused AdamW.",
        ),
        "a100_80gb_sxm",
        {
            **_SINGLE,
            "training.method": "lora",
            "training.precision": "bf16",
            "training.optimizer": "adamw-fused",
            "training.lora_rank": 16,
            "training.lora_alpha": 32.0,
            "training.lora_targets": "all-linear",
            "training.micro_batch": 4,
            "training.grad_accumulation": 4,
            "training.seq_len": 4096,
            "training.sequence_mode": "packed",
            "training.grad_checkpointing": True,
            "training.attention": "flash",
            "training.cpu_offload": False,
            "training.activation_offload": False,
        },
    ),
    Preset(
        "lora_h100",
        QT_TRANSLATE_NOOP("Presets", "LoRA on one H100 80 GB"),
        QT_TRANSLATE_NOOP(
            "Presets",
            "As on the A100, on an H100 SXM: about twice the tensor throughput for the same memory.",
        ),
        "h100_sxm",
        {
            **_SINGLE,
            "training.method": "lora",
            "training.precision": "bf16",
            "training.optimizer": "adamw-fused",
            "training.lora_rank": 16,
            "training.lora_alpha": 32.0,
            "training.lora_targets": "all-linear",
            "training.micro_batch": 4,
            "training.grad_accumulation": 4,
            "training.seq_len": 4096,
            "training.sequence_mode": "packed",
            "training.grad_checkpointing": True,
            "training.attention": "flash",
            "training.cpu_offload": False,
            "training.activation_offload": False,
        },
    ),
    Preset(
        "full_fsdp_8xh100",
        QT_TRANSLATE_NOOP("Presets", "Full fine-tune with FSDP on 8×H100"),
        QT_TRANSLATE_NOOP(
            "Presets",
            "All weights train in BF16 with AdamW; weights, gradients and optimizer states sharded "
            "across 8 GPUs (FSDP full shard, gradients reduce-scattered every micro-batch), micro-batch 2 × 4k "
            "tokens, gradient checkpointing.",
        ),
        "h100_sxm",
        {
            "training.method": "full",
            "training.precision": "bf16",
            "training.master_weights": "none",
            "training.optimizer": "adamw-fused",
            "training.optimizer_in_backward": False,
            "training.num_gpus": 8,
            "training.sharding": "fsdp",
            "training.grad_sync": "micro-batch",
            "training.fsdp_wrap": "layers",
            "training.micro_batch": 2,
            "training.grad_accumulation": 4,
            "training.seq_len": 4096,
            "training.sequence_mode": "packed",
            "training.grad_checkpointing": True,
            "training.attention": "flash",
            "training.cpu_offload": False,
            "training.activation_offload": False,
        },
    ),
    Preset(
        "long_context_32k",
        QT_TRANSLATE_NOOP("Presets", "Long context 32k with checkpointing"),
        QT_TRANSLATE_NOOP(
            "Presets",
            "LoRA on one H100 80 GB at 32,768 tokens per sequence: gradient checkpointing, "
            "FlashAttention and a fused cross-entropy keep activations and logits in check.",
        ),
        "h100_sxm",
        {
            **_SINGLE,
            "training.method": "lora",
            "training.precision": "bf16",
            "training.optimizer": "adamw-fused",
            "training.lora_rank": 16,
            "training.lora_alpha": 32.0,
            "training.lora_targets": "all-linear",
            "training.micro_batch": 1,
            "training.grad_accumulation": 8,
            "training.seq_len": 32768,
            "training.sequence_mode": "packed",
            "training.grad_checkpointing": True,
            "training.attention": "flash",
            "training.fused_cross_entropy": True,
            "training.cpu_offload": False,
            "training.activation_offload": False,
        },
    ),
]


def apply_preset(store: AppStore, preset: Preset) -> bool:
    """Switch to the preset's GPU (with its default price) and set its fields in one step.

    Returns whether the store accepted everything; on a rejected field the plan keeps the GPU
    switch and the store reports the field through its ``error`` signal.
    """
    if preset.gpu_id and store.scenario.gpu.id != preset.gpu_id and not store.set_gpu(preset.gpu_id):
        return False
    return store.set_fields(dict(preset.fields)) if preset.fields else True


def _first_field(window: QMainWindow) -> QWidget | None:
    for panel in getattr(window, "panels", []):
        for f in getattr(panel, "fields", {}).values():
            if f.widget.isEnabled():
                return f.widget
    return None


def install_presets(window: QMainWindow, store: AppStore) -> tuple[QComboBox, list[QAction]]:
    """Add the Presets menu, a "Start from a preset…" toolbar combo and Ctrl+L (focus the form) to ``window``.

    Returns the combo and the menu's preset actions.
    """
    menu = window.menuBar().addMenu(translate("Presets", "&Presets"))
    menu.setObjectName(PRESETS_MENU)
    toolbar = window.addToolBar(translate("Presets", "Presets"))
    toolbar.setObjectName("presetsToolbar")
    toolbar.setMovable(False)
    label = QLabel(translate("Presets", " Start from a preset: "))
    combo = QComboBox()
    combo.setAccessibleName(translate("Presets", "Preset"))
    combo.setToolTip(
        translate(
            "Presets",
            "Common setups: sets the method, batch, memory savers, GPUs and price; keeps your "
            "model and dataset",
        )
    )
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    combo.addItem(translate("Presets", "Choose…"), None)
    label.setBuddy(combo)
    preset_actions: list[QAction] = []

    def apply(preset: Preset) -> None:
        if apply_preset(store, preset):
            window.statusBar().showMessage(
                translate("Presets", "Preset applied: {title}").format(
                    title=translate("Presets", preset.title)
                ),
                5000,
            )

    for preset in PRESETS:
        title = translate("Presets", preset.title)
        combo.addItem(title, preset.key)
        combo.setItemData(
            combo.count() - 1, translate("Presets", preset.description), Qt.ItemDataRole.ToolTipRole
        )
        action = QAction(title, window)
        action.setStatusTip(translate("Presets", preset.description))
        action.setToolTip(translate("Presets", preset.description))
        action.triggered.connect(lambda _c=False, p=preset: apply(p))
        menu.addAction(action)
        preset_actions.append(action)
    by_key = {p.key: p for p in PRESETS}

    def chosen(index: int) -> None:
        key = combo.itemData(index)
        if key in by_key:
            apply(by_key[key])
        combo.blockSignals(True)
        combo.setCurrentIndex(0)  # a preset is a starting point, not a mode
        combo.blockSignals(False)

    combo.activated.connect(chosen)
    toolbar.addWidget(label)
    toolbar.addWidget(combo)

    focus = QAction(translate("Presets", "Edit the plan's fields"), window)
    focus.setShortcut(QKeySequence("Ctrl+L"))
    focus.setStatusTip(
        translate("Presets", "Put the keyboard focus in the form; Tab moves through the fields")
    )

    def focus_form() -> None:
        target = _first_field(window)
        if target is not None:
            target.setFocus(Qt.FocusReason.ShortcutFocusReason)

    focus.triggered.connect(focus_form)
    window.addAction(focus)
    menu.addSeparator()
    menu.addAction(focus)
    return combo, preset_actions
