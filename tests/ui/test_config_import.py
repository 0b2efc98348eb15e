"""File → Import training config… (issue #17) through the real window: the file dialog is replaced, the plan
takes the config in one edit (one undo step), the summary lists what was taken and ignored, and a bad file
shows a warning and changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from tuneplan.ui import config_import

DATA = Path(__file__).resolve().parents[1] / "data" / "training_configs"


@pytest.fixture
def summaries(monkeypatch):
    shown: list[tuple[str, str]] = []
    monkeypatch.setattr(config_import, "show_import_summary", lambda window, title, text: shown.append((title, text)))
    return shown


def _choose(monkeypatch, path):
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(path), "")))


def test_the_file_menu_imports_an_axolotl_config_in_one_edit(window, monkeypatch, summaries):
    store = window.store
    file_menu = window.menuBar().actions()[0].menu()
    assert window.import_config_action in file_menu.actions()
    _choose(monkeypatch, DATA / "axolotl_llama3_qlora_fsdp_70b.yaml")
    before = store.undo_stack.count()
    plan_before = store.scenario.training.model_dump()
    window.import_config_action.trigger()
    assert window.shown_errors == []
    t = store.scenario.training
    assert (t.method, t.lora_rank, t.lora_alpha, t.seq_len, t.sequence_mode) == ("qlora", 8, 16, 512, "fixed")
    assert (t.micro_batch, t.grad_accumulation, t.sharding, t.cpu_offload) == (1, 4, "fsdp", True)
    assert store.scenario.dataset.epochs == 4
    assert store.undo_stack.count() == before + 1  # one edit
    assert len(summaries) == 1
    title, text = summaries[0]
    assert title == "Training config imported"
    assert "axolotl_llama3_qlora_fsdp_70b.yaml (axolotl)" in text and "Taken into the plan" in text
    assert "Ignored" in text and "learning_rate" in text and "Not expressible in the plan" in text
    store.undo_stack.undo()  # one undo step takes the whole import back
    assert store.scenario.training.model_dump() == plan_before


def test_a_deepspeed_file_after_a_llamafactory_one(window, summaries):
    assert config_import.import_training_config(window, DATA / "llamafactory_llama3_full_sft.yaml")
    assert config_import.import_training_config(window, DATA / "ds_z3_offload_config.json")
    t = window.store.scenario.training
    assert (t.method, t.sharding, t.cpu_offload, t.master_weights) == ("full", "zero3", True, "fp32")
    assert t.grad_accumulation == 2  # "auto" in the DeepSpeed file: the LLaMA-Factory value stays
    assert window.shown_errors == []


@pytest.mark.parametrize(("content", "needle"), [
    (b"adapter: lora\nmicro_batch_size: abc\n", "micro_batch_size must be a whole number, got abc"),
    (b"\x00\x01\x02binary", "not a text file"),
    (b"- 1\n- 2\n", "does not hold a training config"),
])
def test_a_bad_file_warns_and_changes_nothing(window, monkeypatch, summaries, tmp_path, content, needle):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    _choose(monkeypatch, path)
    before = window.store.scenario.model_dump()
    count = window.store.undo_stack.count()
    window.import_config_action.trigger()
    assert window.store.scenario.model_dump() == before
    assert window.store.undo_stack.count() == count
    assert summaries == []
    assert len(window.shown_errors) == 1
    title, text = window.shown_errors[0]
    assert title == "Cannot import training config" and text.startswith("bad.yaml: ") and needle in text


def test_cancelling_the_dialog_does_nothing(window, monkeypatch, summaries):
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: ("", "")))
    before = window.store.scenario.model_dump()
    window.import_config_action.trigger()
    assert window.store.scenario.model_dump() == before and summaries == [] and window.shown_errors == []


def test_the_summary_is_chinese_with_the_translator(qapp, window, summaries):
    from tuneplan.ui import i18n

    assert i18n.install_translator(qapp, "zh_CN") == "zh_CN"
    try:
        assert config_import.import_training_config(window, DATA / "llamafactory_llama3_lora_sft.yaml")
        _title, text = summaries[-1]
        assert _title == "训练配置已导入" and "已写入方案" in text and "设为" in text
    finally:
        i18n.remove_translators(qapp)


def test_a_launch_script_and_a_torchtune_recipe_through_the_window(window, monkeypatch, summaries, tmp_path):
    script = tmp_path / "train.sh"
    script.write_text("#!/bin/bash\nNPROC_PER_NODE=4 swift sft \\\n  --tuner_type lora --quant_bits 8 \\\n"
                      "  --quant_method bnb --deepspeed zero2 --per_device_train_batch_size 2\n")
    _choose(monkeypatch, script)
    window.import_config_action.trigger()
    assert window.shown_errors == []
    t = window.store.scenario.training
    assert (t.method, t.quant_bits, t.num_gpus, t.sharding, t.micro_batch) == ("qlora", 8, 4, "zero2", 2)
    assert "train.sh (ms-swift)" in summaries[-1][1]
    _choose(monkeypatch, DATA / "torchtune_llama3_1_8B_qlora_single_device.yaml")
    window.import_config_action.trigger()
    t = window.store.scenario.training
    assert (t.stack, t.quant_bits, t.grad_accumulation, t.fused_cross_entropy) == ("torchtune", 4, 8, True)
    assert "(torchtune)" in summaries[-1][1]


def test_a_long_summary_scrolls_inside_a_dialog_that_fits_the_screen(window, qtbot):
    # a stack's defaults make the summary long: as a message box it grew past a 768-pixel screen and hid its button
    text = "<ul>" + "".join(f"<li>setting {i}: taken</li>" for i in range(200)) + "</ul>"
    dialog = config_import.summary_dialog(window, "Training config imported", text)
    qtbot.addWidget(dialog)
    dialog.show()
    room = dialog.screen().availableGeometry()
    assert dialog.height() <= room.height() * 0.8 + 1 and dialog.width() <= room.width() * 0.9 + 1
    from PySide6.QtWidgets import QDialogButtonBox, QTextBrowser

    browser = dialog.findChild(QTextBrowser)
    qtbot.waitUntil(lambda: browser.verticalScrollBar().maximum() > 0, timeout=20_000)  # the list scrolls
    assert "setting 199" in browser.toPlainText()
    assert dialog.findChild(QDialogButtonBox).isVisible()
