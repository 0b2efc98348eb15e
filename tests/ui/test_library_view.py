"""The scenario library in the GUI (issue #6): real window, real files under TUNEPLAN_DATA_DIR.

Dialogs are answered by monkeypatching the ``ask_*`` helpers; errors are recorded by the
``window`` fixture (``window.shown_errors``).
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap

import pytest
from PySide6.QtWidgets import QLineEdit, QMessageBox

from tuneplan.storage import ScenarioLibrary, ScenarioSaveError, paths, read_scenario_file
from tuneplan.storage.files import SCHEMA_VERSION
from tuneplan.ui.library_view import LibraryController


class Answers:
    """What the fake user answers, and what they were asked."""

    def __init__(self) -> None:
        self.names: list[str | None] = []
        self.conflict = "cancel"
        self.restore = False
        self.confirm = True
        self.asked: list[tuple[str, object]] = []


@pytest.fixture
def answers(monkeypatch) -> Answers:
    a = Answers()

    def ask_name(self, title, suggestion):
        a.asked.append(("name", (title, suggestion)))
        return a.names.pop(0) if a.names else suggestion

    def ask_conflict(self, path, message):
        a.asked.append(("conflict", (path, message)))
        return a.conflict

    def ask_restore(self, scenario, saved_at):
        a.asked.append(("restore", scenario))
        return a.restore

    def ask_confirm(self, title, text):
        a.asked.append(("confirm", text))
        return a.confirm

    monkeypatch.setattr(LibraryController, "ask_scenario_name", ask_name)
    monkeypatch.setattr(LibraryController, "ask_conflict", ask_conflict)
    monkeypatch.setattr(LibraryController, "ask_restore_autosave", ask_restore)
    monkeypatch.setattr(LibraryController, "ask_confirm", ask_confirm)
    return a


def _save_new(window, answers, name, **fields):
    """Start a new plan, set fields, save it under ``name`` through the GUI; returns its file."""
    window.new_plan()
    for path, value in fields.items():
        assert window.store.set_field(path.replace("__", "."), value), window.store.errors
    answers.names.append(name)
    assert window.save_plan()
    return window.path


def test_save_puts_the_plan_in_the_library_list(window, answers, qtbot):
    panel = window.library_panel
    assert panel.names() == []
    window.store.set_field("training.seq_len", 4096)
    assert window.windowTitle().count("*") == 1
    answers.names.append("Support bot")
    window.save_action.trigger()
    path = window.path
    assert path is not None and path.parent == paths.scenarios_dir()
    assert read_scenario_file(path).training.seq_len == 4096
    assert read_scenario_file(path).name == "Support bot"
    assert "*" not in window.windowTitle() and "Support bot" in window.windowTitle()
    assert panel.names() == ["Support bot"]
    assert panel.list.item(0).text().startswith("● Support bot\nopen · ")
    # an edit marks the open entry as unsaved; Save writes back to the same file without asking
    window.store.set_field("training.micro_batch", 2)
    assert "\nopen, unsaved · " in panel.list.item(0).text()
    asked = len(answers.asked)
    window.save_action.trigger()
    assert len(answers.asked) == asked and window.path == path
    assert read_scenario_file(path).training.micro_batch == 2
    # File → Open Recent lists it, and opens it
    window.new_plan()
    assert window.path is None
    window.recent_menu.aboutToShow.emit()
    recent = [a for a in window.recent_menu.actions() if a.text().startswith("Support bot")]
    assert len(recent) == 1
    recent[0].trigger()
    assert window.path == path and window.store.scenario.training.micro_batch == 2
    assert window.shown_errors == []


def test_library_dock_starts_hidden_and_the_toolbar_shows_it(window):
    assert not window.library_dock.isVisible()
    window.library_toolbar_action.trigger()
    assert window.library_dock.isVisible() and window.library_action.isChecked()
    window.library_action.trigger()
    assert not window.library_dock.isVisible() and not window.library_toolbar_action.isChecked()


def test_closing_with_unsaved_changes_saves_through_the_library(window, answers, monkeypatch):
    window.store.set_field("training.seq_len", 6144)
    monkeypatch.setattr(type(window), "ask_unsaved", lambda self: QMessageBox.StandardButton.Save)
    answers.names.append("Saved on close")
    assert window.close()
    saved = ScenarioLibrary().find("Saved on close")
    assert len(saved) == 1 and read_scenario_file(saved[0].path).training.seq_len == 6144
    assert not ScenarioLibrary().autosave_path.exists()
    monkeypatch.setattr(type(window), "ask_unsaved", lambda self: QMessageBox.StandardButton.Discard)


def test_search_filters_by_name_and_gpu(window, answers, qtbot):
    _save_new(window, answers, "Llama chat tune")
    _save_new(window, answers, "Big run")
    window.store.set_gpu("h100_sxm")
    window.save_plan()
    _save_new(window, answers, "Cheap test")
    panel = window.library_panel
    assert sorted(panel.names()) == ["Big run", "Cheap test", "Llama chat tune"]
    qtbot.keyClicks(panel.search, "big")
    qtbot.waitUntil(lambda: panel.names() == ["Big run"], timeout=20_000)
    panel.search.clear()
    qtbot.keyClicks(panel.search, "H100")
    qtbot.waitUntil(lambda: panel.names() == ["Big run"], timeout=20_000)
    assert "1 of 3" in panel.empty_label.text()
    panel.search.setText("nothing like this")
    qtbot.waitUntil(lambda: panel.names() == [], timeout=20_000)
    assert "No scenario matches" in panel.empty_label.text()


def test_rename_duplicate_delete_restore_empty(window, answers, qtbot):
    first = _save_new(window, answers, "Alpha")
    panel = window.library_panel
    # rename the open plan: the window follows the new file and name, still saved
    assert panel.select_path(first)
    answers.names.append("Alpha v2")
    renamed = panel.rename_selected()
    assert renamed is not None and not first.exists() and renamed.exists()
    assert window.path == renamed and window.store.scenario.name == "Alpha v2"
    assert not window.store.dirty
    assert panel.names() == ["Alpha v2"]
    # duplicate
    assert panel.select_path(renamed)
    copy = panel.duplicate_selected()
    assert copy is not None and read_scenario_file(copy).name == "Alpha v2 (2)"
    assert sorted(panel.names()) == ["Alpha v2", "Alpha v2 (2)"]
    # delete the copy → trash → restore
    assert panel.select_path(copy)
    assert panel.delete_selected() == 1
    assert not copy.exists()
    assert panel.names() == ["Alpha v2"]
    assert panel.trash_names() == ["Alpha v2 (2)"]
    assert panel.trash_button.text() == "Trash (1)"
    panel.show_trash()
    panel.trash_list.item(0).setSelected(True)
    assert panel.restore_selected() == 1
    assert sorted(panel.names()) == ["Alpha v2", "Alpha v2 (2)"]
    assert panel.trash_names() == []
    # deleting the open plan's file keeps the plan in the window, unsaved
    assert panel.select_path(renamed)
    panel.delete_selected()
    assert window.path is None and window.store.dirty and window.store.scenario.name == "Alpha v2"
    # empty the trash (asks first)
    assert window.documents.empty_trash() == 1
    assert answers.asked[-1][0] == "confirm"
    assert panel.trash_names() == []
    assert window.shown_errors == []


def test_conflict_save_as_copy_keeps_both(window, answers, qtbot):
    path = _save_new(window, answers, "Shared plan")
    # another Tuneplan (a second library on the same folder) changes the file after we opened it
    other = ScenarioLibrary()
    theirs, stamp = other.load_with_stamp(path)
    theirs.training.seq_len = 1024
    other.save(theirs, path, expected_mtime=stamp)
    # we edit and save: asked, and "save as copy" keeps both versions
    window.store.set_field("training.seq_len", 8192)
    answers.conflict = "copy"
    assert window.save_plan()
    assert [k for k, _ in answers.asked].count("conflict") == 1
    assert read_scenario_file(path).training.seq_len == 1024  # theirs, untouched
    assert window.path != path
    ours = read_scenario_file(window.path)
    assert ours.training.seq_len == 8192 and ours.name == "Shared plan (2)"
    assert sorted(window.library_panel.names()) == ["Shared plan", "Shared plan (2)"]
    assert not window.store.dirty


def test_conflict_cancel_keeps_editing_and_overwrite_overwrites(window, answers):
    path = _save_new(window, answers, "Plan")
    other = ScenarioLibrary()
    theirs, stamp = other.load_with_stamp(path)
    theirs.dataset.epochs = 9
    other.save(theirs, path, expected_mtime=stamp)
    window.store.set_field("dataset.epochs", 1.5)
    answers.conflict = "cancel"
    assert not window.save_plan()
    assert window.store.dirty and read_scenario_file(path).dataset.epochs == 9
    answers.conflict = "overwrite"
    assert window.save_plan()
    assert read_scenario_file(path).dataset.epochs == 1.5 and not window.store.dirty
    assert len(ScenarioLibrary().list()) == 1


def test_save_error_shows_message_and_plan_stays_dirty(window, answers, monkeypatch):
    path = _save_new(window, answers, "Disk full plan")
    window.store.set_field("training.seq_len", 3000)
    edited = window.store.scenario

    def full(self, scenario, path=None, expected_mtime=None):
        raise ScenarioSaveError(f"could not save {path}: no space left on the disk; the previous file was "
                                "left unchanged", path, errno.ENOSPC)

    monkeypatch.setattr(ScenarioLibrary, "save", full)
    assert not window.save_plan()
    title, text = window.shown_errors[-1]
    assert title == "Cannot save plan" and "no space left" in text and "still open" in text
    assert window.store.scenario == edited and window.store.dirty
    assert window.windowTitle().count("*") == 1
    assert read_scenario_file(path).training.seq_len != 3000
    # closing asks; choosing Save fails, so the window stays open with the plan
    monkeypatch.setattr(type(window), "ask_unsaved", lambda self: QMessageBox.StandardButton.Save)
    assert not window.close()
    assert window.isVisible() and window.store.dirty
    monkeypatch.setattr(type(window), "ask_unsaved", lambda self: QMessageBox.StandardButton.Discard)


def test_corrupt_file_is_quarantined_and_the_message_says_where(window, answers):
    bad = paths.scenarios_dir() / "broken-123456.json"
    bad.write_text('{"format": "tuneplan-scenario", "schema_version": 1, "scenario": {', encoding="utf-8")
    panel = window.library_panel
    panel.refresh()
    assert panel.names() == ["broken-123456"]
    assert panel.list.item(0).text().startswith("⚠")
    before = window.store.scenario
    assert not panel.open_item(panel.list.item(0))
    title, text = window.shown_errors[-1]
    assert "quarantine" in text and "moved to" in text
    moved = list(paths.quarantine_dir().glob("*broken-123456.json"))
    assert len(moved) == 1 and str(moved[0]) in text
    assert not bad.exists() and panel.names() == []
    assert window.store.scenario == before


def test_newer_schema_is_refused_and_left_untouched(window, answers):
    data = {"format": "tuneplan-scenario", "schema_version": SCHEMA_VERSION + 5,
            "scenario": {"whatever": "a future Tuneplan wrote"}}
    newer = paths.scenarios_dir() / "future-abcdef.json"
    raw = json.dumps(data).encode()
    newer.write_bytes(raw)
    assert not window.open_plan(newer)
    title, text = window.shown_errors[-1]
    assert "newer" in (title + text).lower()
    assert newer.read_bytes() == raw


def test_autosave_after_an_edit_cleared_by_save_and_clean_exit(window, answers, qtbot):
    docs = window.documents
    auto = ScenarioLibrary().autosave_path
    assert docs.autosave_timer.interval() == 2000
    docs.autosave_timer.setInterval(50)
    window.store.set_field("training.seq_len", 1536)
    assert not auto.exists()  # debounced, not written on every keystroke
    qtbot.waitUntil(auto.exists, timeout=20_000)
    assert read_scenario_file(auto) == window.store.scenario
    answers.names.append("Kept")
    window.save_plan()
    assert not auto.exists()
    window.store.set_field("training.seq_len", 1024)
    qtbot.waitUntil(auto.exists, timeout=20_000)
    window.close()  # fixture answers Discard: a normal exit
    assert not auto.exists()


_CRASH = textwrap.dedent("""
    import os
    from PySide6.QtWidgets import QApplication
    app = QApplication([])
    from tuneplan.hw.probe import ProbeResult
    from tuneplan.ui.main_window import MainWindow
    w = MainWindow(probe=lambda: ProbeResult(status="no_gpu", message=""))
    assert w.store.set_field("name", "Unsaved when it crashed")
    assert w.store.set_field("training.seq_len", 3072)
    assert w.documents.autosave_now() is not None
    os._exit(3)  # a crash: no close event, no cleanup
""")


def _crash_with_unsaved_plan():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYQTGRAPH_QT_LIB": "PySide6"}
    proc = subprocess.run([sys.executable, "-c", _CRASH], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert ScenarioLibrary().autosave_path.exists()


def test_after_a_crash_the_autosave_is_offered_and_declining_clears_it(window, answers):
    _crash_with_unsaved_plan()
    before = window.store.scenario
    answers.restore = False
    assert window.documents.offer_recovery() is False
    asked = [v for k, v in answers.asked if k == "restore"]
    assert len(asked) == 1 and asked[0].name == "Unsaved when it crashed"
    assert not ScenarioLibrary().autosave_path.exists()
    assert window.store.scenario == before
    # nothing left to offer next time
    assert window.documents.offer_recovery() is False
    assert [k for k, _ in answers.asked].count("restore") == 1


def test_after_a_crash_restoring_brings_the_plan_back_unsaved(window, answers):
    _crash_with_unsaved_plan()
    answers.restore = True
    assert window.documents.offer_recovery() is True
    s = window.store.scenario
    assert s.name == "Unsaved when it crashed" and s.training.seq_len == 3072
    assert window.store.dirty and window.windowTitle().count("*") == 1


def test_a_running_windows_autosave_is_not_offered(window, answers, qtbot):
    window.store.set_field("training.seq_len", 1536)
    assert window.documents.autosave_now() is not None
    second = LibraryController(window)  # a second window in the same process
    assert second.offer_recovery() is False
    assert not [k for k, _ in answers.asked if k == "restore"]


def test_saving_to_a_chosen_file_says_where_not_the_library(window, answers, tmp_path):
    target = tmp_path / "elsewhere" / "plan.json"
    target.parent.mkdir()
    assert window.documents.save_plan_as(target)
    assert read_scenario_file(target) == window.store.scenario
    message = window.statusBar().currentMessage()
    assert str(target) in message and "library" not in message
    assert window.library_panel.names() == []  # the library does not list it
    _save_new(window, answers, "In the library")
    assert "in the library" in window.statusBar().currentMessage()


def test_export_and_import_json(window, answers, tmp_path):
    a = _save_new(window, answers, "Team plan A")
    b = _save_new(window, answers, "Team plan B", training__seq_len=4096)
    panel = window.library_panel
    panel.list.clearSelection()
    panel.select_path(a)
    for i in range(panel.list.count()):
        panel.list.item(i).setSelected(True)
    bundle = window.documents.export_files(panel.selected_paths(), tmp_path / "share.json")
    assert bundle is not None and json.loads(bundle.read_text("utf-8"))["format"] == "tuneplan-scenarios"
    added = window.documents.import_file(bundle)
    assert len(added) == 2
    assert sorted(panel.names()) == ["Team plan A", "Team plan A (2)", "Team plan B", "Team plan B (2)"]
    assert read_scenario_file(b).training.seq_len == 4096
    # a broken file imports nothing and says why
    broken = tmp_path / "broken.json"
    broken.write_text("[1, 2", encoding="utf-8")
    assert window.documents.import_file(broken) == []
    assert "Nothing was imported" in window.shown_errors[-1][1]
    assert len(panel.names()) == 4


def test_saved_from_the_gui_the_cli_gives_the_same_numbers(window, answers):
    assert window.store.set_gpu("l40s")
    window.store.set_field("training.seq_len", 4096)
    window.store.set_field("training.micro_batch", 2)
    answers.names.append("CLI check")
    assert window.save_plan()
    result = window.store.result
    proc = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--scenario", str(window.path), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)[0]
    assert doc["memory"]["total_bytes"] == result.memory.total_bytes
    assert doc["cost"]["total_usd"] == result.cost.total_usd
    assert doc["scenario"] == "CLI check"


def test_a_renamed_plan_is_never_saved_over_the_file_it_came_from(window, answers, monkeypatch):
    # Issue #21's lost plan: Save As an auto-named Mistral plan; change model, method and GPU (the name follows);
    # View > Language > Restart now; the prompt's Save. The Mistral file must still hold the Mistral plan, the
    # 70B plan must be saved beside it, the prompt must say so, and the restart must reopen the plan that was open.
    from PySide6.QtCore import QProcess

    from tuneplan.ui import i18n

    window.new_plan()
    assert window.store.set_model("mistral-7b-v0.3") and window.store.set_field("training.method", "lora")
    assert window.store.set_gpu("a100_80gb_sxm")
    first_name = window.store.scenario.name
    assert first_name.startswith("Mistral 7B v0.3 LoRA")
    answers.names.append(first_name)
    assert window.save_plan_as()
    mistral_file = window.path
    assert window.store.set_model("llama-3.1-70b") and window.store.set_field("training.method", "qlora")
    assert window.store.set_gpu("rtx_a6000")
    new_name = window.store.scenario.name
    assert new_name.startswith("Llama 3.1 70B QLoRA") and window.store.dirty
    text, detail = window.unsaved_question()
    assert new_name in text and "new plan" in text
    assert first_name in detail and mistral_file.name in detail
    started: list[list[str]] = []
    monkeypatch.setattr(QProcess, "startDetached", lambda program, args: (started.append(list(args)), (True, 1))[1])
    monkeypatch.setattr(type(window), "ask_unsaved", lambda self: QMessageBox.StandardButton.Save)
    monkeypatch.setattr(i18n.QCoreApplication, "instance", staticmethod(lambda: None))  # keep the test app alive
    monkeypatch.setattr(sys, "argv", ["tuneplan"])  # as the app was started (not pytest's own options)
    assert i18n.restart_app(window)
    # the Mistral file is untouched; the 70B plan is a new library plan; the restart reopens it
    assert read_scenario_file(mistral_file).name == first_name
    assert read_scenario_file(mistral_file).model.name.startswith("Mistral")
    saved = ScenarioLibrary().find(new_name)
    assert len(saved) == 1 and saved[0].path != mistral_file
    assert read_scenario_file(saved[0].path).training.method == "qlora"
    assert started and started[0][-1] == str(saved[0].path)
    # and the entry point accepts what the restart passes (it once passed the path bare and the relaunch died on
    # "invalid choice")
    from tuneplan.__main__ import build_parser

    relaunch = started[0][2:] if started[0][:2] == ["-m", "tuneplan"] else started[0]
    assert build_parser().parse_args(relaunch).scenario_file == str(saved[0].path)
    monkeypatch.setattr(type(window), "ask_unsaved", lambda self: QMessageBox.StandardButton.Discard)


def test_saving_an_unrenamed_plan_writes_its_own_file(window, answers):
    path = _save_new(window, answers, "Keeps its file")
    assert window.store.set_field("training.seq_len", 3072)
    text, detail = window.unsaved_question()
    assert "Keeps its file" in text and path.name in detail
    assert window.save_plan() and window.path == path
    assert read_scenario_file(path).training.seq_len == 3072


def test_the_name_question_shows_the_whole_plan_name(window, qtbot):
    """Save As / Rename: the box is wide enough for the whole suggested name (issue #21: the standard dialog was
    about 180 px wide and cut the default name)."""
    name = window.store.scenario.name  # "Llama 3.1 8B QLoRA on an RTX 4090"
    dialog = window.documents.name_dialog("Save As", name)
    qtbot.addWidget(dialog)
    dialog.show()
    edit = dialog.findChild(QLineEdit)
    assert edit.text() == name
    assert edit.width() > edit.fontMetrics().horizontalAdvance(name)


def test_the_save_prompt_names_the_free_name_a_renamed_plan_takes(window, answers):
    # the new-user check: the plan renamed itself to a name another saved plan already has; Save writes
    # "<name> (2)", so that is the name the prompt must give, not the other plan's
    window.new_plan()
    assert window.store.set_model("mistral-7b-v0.3") and window.store.set_field("training.method", "lora")
    taken = window.store.scenario.name
    answers.names.append(taken)
    assert window.save_plan_as()  # a saved plan under the name the next one will take
    assert window.store.set_field("training.method", "qlora")
    answers.names.append(window.store.scenario.name)
    assert window.save_plan_as()
    assert window.store.set_field("training.method", "lora")  # the name follows back to the taken one
    assert window.store.scenario.name == taken and window.store.dirty
    text, _detail = window.unsaved_question()
    assert f"“{taken} (2)”" in text
    assert window.save_plan()
    assert window.store.scenario.name == f"{taken} (2)"
    assert [read_scenario_file(i.path).training.method for i in ScenarioLibrary().find(taken)] == ["lora"]


def test_save_as_a_name_another_plan_has_takes_the_next_free_one_and_says_so(window, answers, qtbot):
    # new-user trial (issue #21): Save As "Support bot" twice made two library plans that read the same
    first = _save_new(window, answers, "Support bot", training__seq_len=4096)
    window.store.set_field("training.seq_len", 2048)
    answers.names.append("Support bot")
    window.save_as_action.trigger()
    assert window.store.scenario.name == "Support bot (2)" and window.path != first
    assert sorted(window.library_panel.names()) == ["Support bot", "Support bot (2)"]
    assert "Saved as “Support bot (2)”: a plan named “Support bot” is already in the library" in \
        window.statusBar().currentMessage()
    answers.names.append("SUPPORT BOT")  # the same name in other letters is taken too (unique_name casefolds)
    window.save_as_action.trigger()
    assert window.store.scenario.name == "SUPPORT BOT (3)"
    from tuneplan.storage.files import read_scenario_file

    assert read_scenario_file(first).training.seq_len == 4096  # the first kept as it was saved
