"""Export training config… (issue #17 part 5) with the real dialog on the real window: the preview is the file that
will be written, it follows the format and the plan's edits, Save… writes it where the (replaced) file dialog says,
starting in the documents folder, and a failed write shows one error and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from tuneplan.core.config_export import EXPORT_FORMATS
from tuneplan.storage.config_export import build_export, default_file_name, render_config
from tuneplan.ui.config_export import export_training_config
from tuneplan.ui.export_folder import export_folder


def _answer_save(monkeypatch, path: Path) -> list[tuple]:
    asked: list[tuple] = []

    def answer(*args, **kwargs):
        asked.append(args)
        return str(path), ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(answer))
    return asked


def test_preview_is_the_file_and_save_writes_it(window, qtbot, monkeypatch, tmp_path):
    store = window.store
    dialog = export_training_config(window)
    assert dialog.isVisible() and dialog.preview.isReadOnly()
    assert dialog.format == "llama-factory"  # the plan names no stack
    expected = render_config(build_export(store.scenario, "llama-factory", estimate=store.result))
    assert dialog.preview.toPlainText() == expected
    assert expected.startswith("# LLaMA-Factory config written by Tuneplan ")
    assert f"# Estimate: {store.result.memory.verdict()} on a " in expected
    assert yaml.safe_load(dialog.preview.toPlainText())["model_name_or_path"] == "meta-llama/Llama-3.1-8B"

    dialog.format_combo.setCurrentIndex(EXPORT_FORMATS.index("deepspeed"))
    assert dialog.format == "deepspeed"
    doc = json.loads(dialog.preview.toPlainText())
    assert doc["_comment"][0].startswith("DeepSpeed config written by Tuneplan ") and "zero_optimization" in doc

    asked = _answer_save(monkeypatch, tmp_path / "mine")  # no suffix: .json is added
    start = export_folder()  # (the save remembers the folder it wrote to: the next dialog opens there)
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert len(asked) == 1
    suggested = Path(asked[0][2])
    assert suggested == start / default_file_name(dialog.export)  # the documents folder, as other exports
    assert export_folder() == tmp_path
    written = tmp_path / "mine.json"
    assert written.read_text(encoding="utf-8") == render_config(dialog.export, "mine.json")
    assert [p.name for p in tmp_path.iterdir()] == ["mine.json"]  # atomic: no temp file left
    assert str(written) in window.statusBar().currentMessage()
    assert window.shown_errors == []

    # a folder that does not exist: one error, nothing written
    target = tmp_path / "missing" / "plan.json"
    assert dialog.save(target) is None
    assert window.shown_errors == [("Cannot export training config",
                                    f"cannot write {target}: the folder does not exist")]
    assert not target.parent.exists()


def test_preview_follows_the_plan_and_stops_when_closed(window, qtbot):
    store = window.store
    dialog = export_training_config(window)
    dialog.format_combo.setCurrentIndex(EXPORT_FORMATS.index("axolotl"))
    assert store.set_field("training.micro_batch", 3)
    assert yaml.safe_load(dialog.preview.toPlainText())["micro_batch_size"] == 3
    assert store.set_field("training.sequence_mode", "fixed")
    assert "pad_to_sequence_len: true" in dialog.preview.toPlainText()
    dialog.close()
    assert not dialog.isVisible()
    refreshed: list[object] = []
    dialog.refresh = lambda *_a: refreshed.append(_a)  # what the store's signal would call
    assert store.set_field("training.micro_batch", 4)
    assert refreshed == []  # a closed dialog no longer follows the plan


def test_what_the_format_cannot_express_is_listed(window):
    store = window.store
    assert store.set_fields({"training.sequence_mode": "fixed", "training.optimizer_in_backward": True,
                             "training.grad_accumulation": 1})
    dialog = export_training_config(window)
    text = dialog.notes_label.text()
    assert dialog.export.notes and text.count("<li>") == len(dialog.export.notes)
    label = window._field_label("training.sequence_mode")
    assert label and label in text  # the form's label, not the dotted path
    dialog.format_combo.setCurrentIndex(EXPORT_FORMATS.index("trl"))  # TRL pads to max_length: sequence_mode fits
    assert "training.sequence_mode" not in dialog.export.noted_fields()



def test_file_menu_opens_the_export_dialog(window, qtbot):
    from tuneplan.ui.config_export import ConfigExportDialog
    from tuneplan.ui.menus import file_menu

    assert window.export_config_action in file_menu(window).actions()
    window.export_config_action.trigger()
    dialogs = [d for d in window.findChildren(ConfigExportDialog) if d.isVisible()]
    assert len(dialogs) == 1
    dialogs[0].close()
