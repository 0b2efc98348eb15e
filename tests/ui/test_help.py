"""Help through the real window: What's This on the fields, the Help → Glossary window, Help → About (issue #21)."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QMessageBox

from tuneplan import __version__, catalog
from tuneplan.ui import help_view


def _field(window, path):
    for panel in window.panels:
        if path in panel.fields:
            return panel, panel.fields[path]
    raise KeyError(path)


def _help_actions(window):
    menus = [a.menu() for a in window.menuBar().actions() if a.menu() is not None]
    return menus[-1].actions()


def test_help_is_the_last_menu_with_whats_this_glossary_and_about(window):
    actions = _help_actions(window)
    assert window.help.whats_this_action in actions
    assert window.help.glossary_action in actions
    assert window.help.about_action in actions
    assert window.help.whats_this_action.shortcut().toString() == "Shift+F1"


def test_fields_explain_their_terms_in_whats_this(window):
    for path, term in [("training.micro_batch", "Micro-batch"), ("training.grad_accumulation", "Gradient accumulation"),
                       ("training.sequence_mode", "Packed sequences"), ("training.fsdp_wrap", "FSDP unit"),
                       ("training.grad_sync", "no_sync"), ("training.sharding", "ZeRO stages"),
                       ("training.lora_rank", "LoRA rank r"), ("training.lora_alpha", "LoRA alpha"),
                       ("training.grad_checkpointing", "Gradient checkpointing")]:
        panel, field = _field(window, path)
        text = field.widget.whatsThis()
        assert f"<b>{term}" in text, (path, text)
        label = panel.form.labelForField(field.container)
        if isinstance(label, QLabel):  # check boxes have no label of their own
            assert label.whatsThis() == text
    assert "NF4" in _field(window, "training.method")[1].widget.whatsThis()
    assert "Device total" in window.memory_card.whatsThis()
    assert "Allocator overhead" in window.memory_card.whatsThis()
    assert "Likely range" in window.verdict_card.whatsThis()
    assert "MFU" in window.summary.whatsThis()


def test_every_glossary_field_exists_in_the_form(window):
    paths = {p for panel in window.panels for p in panel.fields}
    for e in help_view.GLOSSARY:
        for path in e.fields:
            assert path in paths, (e.key, path)
    assert len({e.key for e in help_view.GLOSSARY}) == len(help_view.GLOSSARY)


def test_glossary_window_lists_and_searches_terms(window, qtbot):
    window.help.glossary_action.trigger()
    dialog = window.help.glossary
    assert dialog is not None and dialog.isVisible()
    terms = dialog.visible_terms()
    assert len(terms) == len(help_view.GLOSSARY)
    assert terms == sorted(terms, key=str.casefold)
    qtbot.keyClicks(dialog.search, "fsdp")
    shown = dialog.visible_terms()
    assert "FSDP unit" in shown and "FSDP" in shown and "Micro-batch" not in shown
    assert "no_sync (gradient sync)" in shown  # found by its definition, which mentions FSDP
    assert dialog.term_title.text() in shown
    assert dialog.definition.text() == help_view.entry_text(help_view.entry(
        dialog.terms.currentItem().data(Qt.ItemDataRole.UserRole)))[1]
    dialog.search.setText("no such term at all")
    assert dialog.visible_terms() == [] and not dialog.empty.isHidden() and dialog.definition.text() == ""
    dialog.show_term("mfu")  # clears the search that hides it
    assert dialog.search.text() == "" and dialog.term_title.text() == "MFU"
    assert "peak" in dialog.definition.text()
    assert dialog.definition.textFormat() == Qt.TextFormat.PlainText
    # opening it again raises the same window
    assert window.help.show_glossary() is dialog


def test_glossary_search_shows_the_term_named_by_the_search_first(window, qtbot):
    # new-user trial (issue #21): "zero" showed FSDP (whose definition mentions ZeRO), listed above "ZeRO stages"
    dialog = window.help.show_glossary()
    qtbot.keyClicks(dialog.search, "zero")
    shown = dialog.visible_terms()
    assert shown.index("FSDP") < shown.index("ZeRO stages")  # the list keeps its order
    assert dialog.term_title.text() == "ZeRO stages"
    dialog.search.setText("definitely-nowhere")
    dialog.search.setText("mfu")
    assert dialog.term_title.text() == "MFU"


def test_escape_closes_the_glossary_from_its_search_and_its_list(window, qtbot):
    # new-user trial (issue #21): "Escape does not close the glossary"
    dialog = window.help.show_glossary()
    qtbot.waitUntil(dialog.isVisible)
    assert dialog.focusWidget() is dialog.search  # typing searches as soon as the window is active
    qtbot.keyClicks(dialog.search, "lora")
    qtbot.keyClick(dialog.search, Qt.Key.Key_Escape)
    assert not dialog.isVisible()
    window.help.show_glossary()
    dialog.terms.setFocus()
    qtbot.keyClick(dialog.terms, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def test_about_names_version_data_dates_and_log_file(window, monkeypatch, tmp_path):
    log = tmp_path / "logs" / "tuneplan.log"
    monkeypatch.setattr("tuneplan.ui.logs._log_path", log)
    shown = []
    monkeypatch.setattr(QMessageBox, "exec", lambda box: shown.append(box) or 0)
    window.help.about_action.trigger()
    assert len(shown) == 1
    box = shown[0]
    assert box.windowTitle() == "About Tuneplan"
    text = box.text()
    assert f"Tuneplan {__version__}" in text
    dates = catalog.price_dates()
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", dates.last) and dates.last in text and dates.first in text
    assert dates.first <= dates.last
    assert catalog.SPECS_COLLECTED in text
    assert str(log) in text
    monkeypatch.setattr("tuneplan.ui.logs._log_path", None)
    assert "none in this session" in window.help.about_text()


def test_about_escapes_the_log_path(window, monkeypatch, tmp_path):
    monkeypatch.setattr("tuneplan.ui.logs._log_path", tmp_path / "<b>x</b>" / "tuneplan.log")
    text = window.help.about_text()
    assert "&lt;b&gt;x&lt;/b&gt;" in text and "<b>x</b>" not in text


def test_shown_notes_cite_sources_by_name_not_tp_sections(window):
    """No note, tooltip or summary of a QLoRA, offloaded, long-context plan cites "TP §n"."""
    from PySide6.QtWidgets import QWidget

    store = window.store
    for path, value in [("training.method", "qlora"), ("training.cpu_offload", True), ("training.seq_len", 32768),
                        ("training.num_gpus", 2), ("training.sharding", "zero3")]:
        store.set_field(path, value)
    texts = [window.summary.text()]
    for w in window.findChildren(QWidget):
        texts.append(w.toolTip())
        if isinstance(w, QLabel):
            texts.append(w.text())
    assert any("QLoRA" in t for t in texts)
    assert not [t for t in texts if "TP §" in t]


@pytest.mark.parametrize("word", ["pessimistic", "allocated", "reserved", "tok/s", "Why this much"])
def test_the_glossary_covers_the_words_of_the_cards_and_chart(window, word):
    # new-user trial: these words on the Cost card, the memory chart, the Time card and the tab bar found no term
    dialog = window.help.show_glossary()
    dialog.search.setText(word)
    assert dialog.visible_terms(), word
