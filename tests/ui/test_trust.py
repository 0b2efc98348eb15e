"""Small things that cost trust, through the real window (issue #21): the plan's warnings at the top next to
the verdict, time and cost greyed with a reason when the plan cannot run, export dialogs in the documents folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QStandardPaths
from PySide6.QtWidgets import QFileDialog

from tuneplan.storage import paths
from tuneplan.ui import export_folder as export_folder_module
from tuneplan.ui.export_folder import export_folder
from tuneplan.ui.main_window import cannot_run_reason


def _y(window, widget):
    return widget.mapTo(window, QPoint(0, 0)).y()


def test_sequence_past_context_is_warned_at_the_top_not_below_the_charts(window, qtbot):
    assert window.plan_warnings.isHidden()  # the default plan has no warning
    window.store.set_model("llama-2-7b")  # 4,096 positions
    window.store.set_field("training.seq_len", 8192)
    label = window.plan_warnings
    assert label.isVisibleTo(window)
    assert "sequence length 8192 exceeds the model's max_position_embeddings (4096)" in label.text()
    # right under the cards, above both charts, inside the first screen of the Plan tab
    assert _y(window, window.card_strip) < _y(window, label) < _y(window, window.vram_chart)
    window.store.set_field("training.micro_batch", 16)  # short: the advice panel shows, under the warning
    assert not window.store.result.memory.fits
    qtbot.waitUntil(lambda: window.advice_view.isVisibleTo(window), timeout=20_000)  # advice is computed off-thread
    assert _y(window, label) < _y(window, window.advice_view)
    assert _y(window, label) < _y(window, window.cost_chart) < _y(window, window.summary)
    assert "exceeds" not in window.summary.text()  # said once, where it is read
    window.store.undo_stack.undo()
    window.store.undo_stack.undo()
    assert window.plan_warnings.isHidden() and window.plan_warnings.text() == ""


def test_warning_names_are_plain_text(window):
    from PySide6.QtCore import Qt

    assert window.plan_warnings.textFormat() == Qt.TextFormat.PlainText


def test_time_and_cost_are_greyed_with_a_reason_when_the_plan_does_not_fit(window):
    for card in (window.time_card, window.cost_card):
        assert card.reason.isHidden() and "#888888" not in card.value.styleSheet()
    window.store.set_field("training.micro_batch", 64)
    mem = window.store.result.memory
    assert not mem.fits
    for card in (window.time_card, window.cost_card):
        assert "#888888" in card.value.styleSheet()
        assert card.reason.isVisibleTo(window)
        assert card.reason.text() == f"Cannot run:\n{window.verdict_label.text()}"
        assert card.reason.text().startswith("Cannot run:\nshort by ")
        assert "cannot run as it is: the GPU is short by" in card.toolTip()
    assert window.time_card.value.text() != "–"  # the figure stays readable, greyed
    window.store.undo_stack.undo()
    assert window.store.result.memory.fits
    for card in (window.time_card, window.cost_card):
        assert card.reason.isHidden() and card.value.styleSheet() == ""
        assert "cannot run" not in card.toolTip()


def test_a_combination_the_frameworks_refuse_also_greys_time_and_cost(window):
    store = window.store
    store.set_field("training.grad_accumulation", 4)
    store.set_field("training.optimizer_in_backward", True)
    result = store.result
    assert result.memory.fits
    reason = cannot_run_reason(result)
    assert "cannot accumulate gradients" in reason
    assert window.cost_card.reason.text() == "Cannot run:\nsee the warning below"
    assert reason in window.cost_card.toolTip()
    assert "cannot accumulate gradients" in window.plan_warnings.text()
    store.set_field("training.grad_accumulation", 1)
    assert cannot_run_reason(store.result) == ""
    assert window.cost_card.reason.isHidden()


@pytest.fixture
def documents(tmp_path, monkeypatch):
    docs = tmp_path / "Documents"
    docs.mkdir()
    real = QStandardPaths.writableLocation

    def location(kind):
        return str(docs) if kind == QStandardPaths.StandardLocation.DocumentsLocation else real(kind)

    monkeypatch.setattr(export_folder_module.QStandardPaths, "writableLocation", location)
    return docs


def test_export_dialogs_open_in_the_documents_folder(window, documents, monkeypatch):
    from tuneplan.ui import report

    asked: list[str] = []

    def fake_save(parent, title, start, filters="", *args, **kwargs):
        asked.append(start)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake_save))
    assert export_folder() == documents
    window.ask_export_path("memory")
    window.ask_export_path("cost")
    window.compare_view.ask_csv_path()
    report._ask_report_path(window, "plan-report.html")
    window.documents.ask_export_path("scenarios.json")
    assert len(asked) == 5
    data = paths.data_dir().resolve()
    for start in asked:
        assert Path(start).parent == documents, start
        assert data not in Path(start).resolve().parents
    assert Path(asked[0]).name.endswith("-memory.png") and Path(asked[2]).name == "comparison.csv"


def test_export_folder_falls_back_to_home_without_a_documents_folder(monkeypatch, tmp_path):
    monkeypatch.setattr(export_folder_module.QStandardPaths, "writableLocation",
                        lambda kind: str(tmp_path / "missing"))
    assert export_folder() == Path.home()


def test_compare_csv_has_every_key_figure_even_when_only_differences_are_shown(window, tmp_path):
    import csv

    from tuneplan.core.estimate import estimate
    from tuneplan.core.result import GIB
    from tuneplan.ui.scenario_compare import write_comparison_csv

    comparison = window.comparison
    base = window.store.scenario
    longer = base.model_copy(update={"name": "Longer", "training": base.training.model_copy(update={"seq_len": 4096})})
    assert comparison.add_scenario(longer, key="longer")
    out = write_comparison_csv(tmp_path / "c.csv", comparison, only_differences=True)
    with open(out, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2
    header = list(rows[0])
    for column in ("Model", "Method", "GPU", "Peak memory per GPU (GiB)", "Verdict", "Time (hours)", "Cost (USD)",
                   "Sequence length (tokens)"):
        assert column in header, column
    assert "Price (USD per GPU-hour)" not in header  # equal inputs stay out
    r = estimate(longer)
    assert rows[1]["Model"] == "Llama 3.1 8B" and rows[1]["GPU"] == "RTX 4090"
    assert float(rows[1]["Peak memory per GPU (GiB)"]) == pytest.approx(r.memory.total_bytes / GIB, abs=0.005)
    assert float(rows[1]["Time (hours)"]) == pytest.approx(r.time.hours, abs=0.0005)
    assert rows[1]["Verdict"]


def test_a_long_price_note_does_not_widen_the_form(window, qtbot):
    # new-user trial: a long provider note widened the form past its panel, so every field's right edge (the Load
    # button, combo boxes, the stack note) was clipped with no way to scroll to it
    scroll = window.form_scroll
    window.resize(1366, 768)
    qtbot.wait(50)
    assert window.store.set_fields({"pricing.provider": "Vast.ai community marketplace " * 6,
                                    "pricing.offer_kind": "community"}, error_field="pricing.provider")
    qtbot.wait(50)
    assert scroll.widget().width() <= scroll.viewport().width()
    assert scroll.horizontalScrollBar().maximum() == 0


def test_parameter_counts_never_read_1000_m():
    # new-user trial: Gemma 3 1B (999.9 M parameters) was listed as "1000 M params"
    from tuneplan.ui.panels import _params

    assert _params(999_885_952) == "1.00 B"
    assert _params(494_032_768) == "494 M"
    assert _params(8_030_261_248) == "8.03 B"


def test_the_window_fits_a_1366_pixel_screen(window):
    # new-user trial: the Compare GPUs tab's button row made the window's minimum width 1,409 pixels
    assert window.minimumSizeHint().width() <= 1366


def test_a_grpo_plan_whose_vllm_engine_cannot_start_greys_time_and_cost(window):
    """#18: Llama 3.1 8B LoRA on an RTX 5090 with a colocated vLLM at 0.3 of the card: 9.6 GiB cannot hold 15.0 GiB
    of bf16 weights. The memory fits (the share is counted either way), but the plan cannot run: time and cost are
    greyed with the reason, as for any combination the stack refuses."""
    store = window.store
    assert store.set_gpu("rtx5090")
    assert store.set_fields({"training.method": "lora", "training.workload": "grpo", "training.seq_len": 1024,
                             "training.completion_tokens": 512, "training.micro_batch": 4,
                             "training.num_generations": 4, "training.generation_engine": "vllm-colocate"})
    reason = cannot_run_reason(store.result)
    assert "does not hold the model's weights (15.0 GiB)" in reason
    assert window.cost_card.reason.text().startswith("Cannot run:")
    assert store.result.memory.fits
    assert store.set_field("training.vllm_memory_share", 0.6)  # 19.1 GiB holds them: the engine starts
    assert "vLLM" not in cannot_run_reason(store.result)


def test_export_dialogs_open_where_the_last_export_went(window, documents, monkeypatch, tmp_path):
    # new-user trial (issue #21): every export dialog started in Documents again, not where the user had just saved
    from tuneplan.ui import report

    shared = tmp_path / "Shared" / "plans"
    shared.mkdir(parents=True)
    asked: list[str] = []
    answer = {"path": str(shared / "llama-memory.png")}

    def fake_save(parent, title, start, filters="", *args, **kwargs):
        asked.append(start)
        return answer["path"], ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(fake_save))
    assert window.ask_export_path("memory") == str(shared / "llama-memory.png")
    assert Path(asked[0]).parent == documents  # the first one: Documents
    answer["path"] = ""  # then cancelled: a cancelled dialog remembers nothing
    window.compare_view.ask_csv_path()
    report._ask_report_path(window, "plan-report.html")
    window.documents.ask_export_path("scenarios.json")
    assert [Path(p).parent for p in asked[1:]] == [shared] * 3
    assert export_folder() == shared
    shared.rmdir()  # a folder that is gone: Documents again
    assert export_folder() == documents
