"""Dataset → From a file…: real widgets, a real file and tokenizer, counting in the worker thread (issue #19).

Three chat rows and a broken line, counted with the one-token-per-word tokenizer of tests/tiny_tokenizer.py:
11, 6 and 10 tokens (see tests/unit/test_cli_dataset_file.py for the hand count). At micro-batch 2 under dynamic
padding the expected longest of a pair is 11 x 2/3 + 10 x 1/3 = 32/3, so the waste is 1 - 9 / (32/3) = 15.6 %.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tiny_tokenizer import write_jsonl, write_tiny_tokenizer
from tuneplan.ui.dataset_file_dialog import DatasetFileDialog
from tuneplan.ui.panels import DatasetPanel
from tuneplan.ui.store import AppStore

ROWS = [
    {"messages": [{"role": "user", "content": "hello world"}, {"role": "assistant", "content": "hi"}]},
    "{broken",
    {"messages": [{"role": "user", "content": "the cat"}]},
    {"messages": [{"role": "user", "content": "the cat sat on a mat"}]},
]


@pytest.fixture
def store(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> AppStore:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    s = AppStore()
    assert s.set_fields({"training.sequence_mode": "dynamic", "training.micro_batch": 2, "training.seq_len": 1000})
    s.clear_history()
    return s


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    return write_jsonl(tmp_path / "chat.jsonl", ROWS), write_tiny_tokenizer(tmp_path / "model")


def _dialog(qtbot, store: AppStore, data: Path, tok: Path) -> DatasetFileDialog:
    dialog = DatasetFileDialog(store)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.path_edit.setText(str(data))
    dialog.tokenizer_combo.setEditText(str(tok))
    return dialog


def _count(qtbot, dialog: DatasetFileDialog) -> None:
    qtbot.mouseClick(dialog.count_button, _left())
    qtbot.waitUntil(lambda: not dialog.busy, timeout=10_000)


def _left():
    from PySide6.QtCore import Qt

    return Qt.MouseButton.LeftButton


def test_count_shows_the_histogram_and_figures_and_apply_is_one_undo_step(qtbot, store, files) -> None:
    dialog = _dialog(qtbot, store, *files)
    before = store.scenario
    _count(qtbot, dialog)
    assert not dialog.error.isVisible(), dialog.error.text()
    assert dialog.apply_button.isEnabled() and dialog.progress.value() == 1000
    heights = list(dialog.bars.opts["height"])
    assert sum(heights) == 3 and dialog.cut_bars is None  # none longer than 1,000 tokens
    assert heights == [3] and list(dialog.bars.opts["x1"]) == [50]  # bars of 50 tokens: all three in the first
    assert dialog.seq_line.isVisible() and dialog.seq_line.value() == 1000
    assert dialog.truncated_label.text().startswith("0.0 %")
    assert dialog.padding_label.text().startswith("15.6 % with dynamic padding at micro-batch 2")
    assert "3 rows, all counted" in dialog.summary.text() and "1 rows left out" in dialog.summary.text()
    assert "line 2" in dialog.notes.text()
    assert dialog.longest_check.isVisible() and "(11 tokens)" in dialog.longest_check.text()
    assert store.scenario == before  # nothing changes before Apply

    qtbot.mouseClick(dialog.apply_button, _left())
    d, t = store.scenario.dataset, store.scenario.training
    assert (d.examples, d.tokens_per_example, d.padding_efficiency, d.total_tokens) == (3, 9.0, 0.8438, None)
    assert t.seq_len == 11
    assert store.undo_stack.count() == 1
    store.undo()
    assert store.scenario == before


def test_on_two_gpus_it_shows_and_sets_the_slowest_gpus_padding(qtbot, store, files) -> None:
    # 2 FSDP GPUs at micro-batch 2 draw 4 of the 3 examples (kept 6, 10, 11) per step: the longest of the step is
    # the longest of all, 11 tokens, and the slowest GPU's padding efficiency 9 / 11 = 0.82
    assert store.set_fields({"training.num_gpus": 2, "training.sharding": "fsdp"})
    dialog = _dialog(qtbot, store, *files)
    _count(qtbot, dialog)
    assert "the slowest of 2 GPUs pads to 11 tokens per row (efficiency 0.82)" in dialog.padding_label.text()
    qtbot.mouseClick(dialog.apply_button, _left())
    d = store.scenario.dataset
    assert (d.padding_efficiency, d.rank_padding_efficiency) == (0.8438, round(9 / 11, 4))


def test_long_examples_show_as_truncated_bars_and_keep_the_sequence_length(qtbot, store, files) -> None:
    assert store.set_fields({"training.seq_len": 8})
    dialog = _dialog(qtbot, store, *files)
    dialog.longest_check.setChecked(True)
    _count(qtbot, dialog)
    assert sum(dialog.cut_bars.opts["height"]) == 2  # 10 and 11 tokens, cut to 8
    assert sum(dialog.bars.opts["height"]) == 1
    # one-token bars: 6 kept whole; 10 and 11 cut, each alone in its bar (stacked on the 0 kept whole there)
    assert list(dialog.bars.opts["x0"]) == [6] and list(dialog.cut_bars.opts["x0"]) == [10, 11]
    assert list(dialog.cut_bars.opts["y0"]) == [0, 0]
    assert dialog.truncated_label.text().startswith("66.7 %")
    assert not dialog.longest_check.isVisible() and "training.seq_len" not in dialog.updates()
    assert dialog.updates()["dataset.tokens_per_example"] == pytest.approx((6 + 8 + 8) / 3, abs=0.01)


def test_unusable_file_or_tokenizer_is_one_message_and_nothing_changes(qtbot, store, files, tmp_path) -> None:
    data, tok = files
    blob = tmp_path / "blob.jsonl"
    blob.write_bytes(b"\x00\xff" * 500)
    before = store.scenario
    dialog = _dialog(qtbot, store, blob, tok)
    _count(qtbot, dialog)
    assert dialog.error.isVisible() and dialog.error.text() == "blob.jsonl: not a text file (JSONL, JSON, CSV or TSV in UTF-8)"
    assert not dialog.apply_button.isEnabled()
    dialog.path_edit.setText(str(data))
    dialog.tokenizer_combo.setEditText(str(tmp_path / "no-model"))
    _count(qtbot, dialog)
    assert dialog.error.text().startswith("no tokenizer.json for ")
    assert not dialog.apply_button.isEnabled() and not dialog.apply()
    assert store.scenario == before and store.undo_stack.count() == 0


def test_cancel_stops_the_count_and_changes_nothing(qtbot, store, files, tmp_path) -> None:
    _data, tok = files
    big = write_jsonl(tmp_path / "big.jsonl", [{"text": "the cat sat on a mat " * 20}] * 40_000)
    before = store.scenario
    dialog = _dialog(qtbot, store, big, tok)
    qtbot.mouseClick(dialog.count_button, _left())
    assert dialog.busy and dialog.cancel_button.isEnabled() and not dialog.count_button.isEnabled()
    qtbot.mouseClick(dialog.cancel_button, _left())
    qtbot.waitUntil(lambda: not dialog.busy, timeout=10_000)
    assert dialog.status.text() == "Cancelled: nothing was counted."
    assert not dialog.error.isVisible() and not dialog.apply_button.isEnabled()
    assert dialog.count is None and store.scenario == before
    assert dialog.count_button.isEnabled()


def test_closing_during_a_count_stops_the_worker(qtbot, store, files, tmp_path) -> None:
    _data, tok = files
    big = write_jsonl(tmp_path / "big.jsonl", [{"text": "hello world"}] * 40_000)
    dialog = _dialog(qtbot, store, big, tok)
    assert dialog.start_count()
    job = dialog.job
    dialog.reject()
    assert job is not None and not job.running and dialog.job is None


def test_the_dataset_panel_opens_it_with_the_plan_models_tokenizer(qtbot, store) -> None:
    panel = DatasetPanel(store)
    qtbot.addWidget(panel)
    panel.show()
    qtbot.mouseClick(panel.file_button, _left())
    dialog = panel.file_dialog
    assert dialog is not None and dialog.isVisible()
    assert dialog.tokenizer_combo.currentText() == "meta-llama/Llama-3.1-8B"  # the default plan's model
    assert not dialog.start_count()  # no file yet: says so
    assert dialog.error.text() == "Choose a dataset file first."
    dialog.reject()
    assert panel.file_dialog is None


def test_packed_rows_of_llama_factory_take_the_counted_packing_into_their_time(qtbot, store, files) -> None:
    # kept 6, 10, 11 tokens (27) packed into rows of 16 best-fit decreasing: [11], [10 6] -> 27 / 32 = 0.8438 full;
    # LLaMA-Factory pads each pack to its cutoff length, so the panel's field follows and the time computes 32
    from tuneplan.core.throughput import computed_tokens

    assert store.set_fields({"training.stack": "llama-factory", "training.sequence_mode": "packed",
                             "training.seq_len": 16, "training.micro_batch": 1})
    dialog = _dialog(qtbot, store, *files)
    _count(qtbot, dialog)
    qtbot.mouseClick(dialog.apply_button, _left())
    s = store.scenario
    assert s.dataset.packing_efficiency == round(27 / 32, 4)
    computed, real, _ = computed_tokens(s.training, s.dataset)
    assert real == pytest.approx(27 * s.dataset.epochs) and computed == pytest.approx(real / round(27 / 32, 4))
    store.set_field("training.stack", "trl")  # TRL packs without gaps: the real tokens
    computed, real, _ = computed_tokens(store.scenario.training, store.scenario.dataset)
    assert computed == pytest.approx(real)
