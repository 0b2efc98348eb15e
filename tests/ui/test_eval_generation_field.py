"""#17: an evaluation that generates, through the real widgets: the Evaluation generates field (enabled by an
evaluation batch), the Held out for evaluation share, and the peak and evaluation time they change."""

from __future__ import annotations

from PySide6.QtCore import Qt


def _field(window, path):
    return next(panel.fields[path] for panel in window.panels if path in panel.fields)


def test_generating_in_the_evaluation_sets_the_peak_and_the_evaluation_time(window, qtbot):
    store = window.store
    store.set_field("training.stack", "llama-factory")
    gen = _field(window, "training.eval_generate_tokens").widget
    batch = _field(window, "training.eval_micro_batch").widget
    share = _field(window, "dataset.eval_fraction").widget
    assert not gen.isEnabled()  # no evaluation batch: nothing to generate
    assert gen.text() == gen.specialValueText()  # "off (loss only)"
    batch.setValue(8)
    qtbot.waitUntil(gen.isEnabled, timeout=20_000)
    gen.setFocus()
    gen.selectAll()
    qtbot.keyClicks(gen, "4096")
    qtbot.keyClick(gen, Qt.Key.Key_Return)
    assert store.scenario.training.eval_generate_tokens == 4096
    qtbot.waitUntil(lambda: store.result.memory.peak_phase == "evaluation generation", timeout=20_000)
    # default plan (Llama 3.1 8B): 8 rows x (2,048 + 4,096) tokens x 131,072 B of KV cache = 6 GiB, + 1/64 of it
    comps = {c.key: c.bytes for c in store.result.memory.components}
    assert comps["generation"] == 6 * 2**30 * (1 + 1 / 64)
    assert store.result.time.phases["evaluation"] == 0  # nothing held out yet
    share.setFocus()
    share.selectAll()
    qtbot.keyClicks(share, "0.02")
    qtbot.keyClick(share, Qt.Key.Key_Return)
    assert store.scenario.dataset.eval_fraction == 0.02
    qtbot.waitUntil(lambda: store.result.time.phases["evaluation"] > 0, timeout=20_000)
    final, during = store.result.time.eval_terms
    # 200 held-out examples in 8-row batches: 25 batches at max_new_tokens after training, and at transformers'
    # default 20 tokens in each of the 3 evaluations during training (3 epochs)
    assert store.result.time.phases["evaluation"] == 25 * (final.value + 3 * during.value) \
        + store.scenario.pricing.eval_minutes * 60


def test_preference_workloads_cannot_generate_in_their_evaluation(window, qtbot):
    store = window.store
    store.set_field("training.eval_micro_batch", 4)
    gen = _field(window, "training.eval_generate_tokens").widget
    qtbot.waitUntil(gen.isEnabled, timeout=20_000)
    store.set_field("training.workload", "dpo")
    qtbot.waitUntil(lambda: not gen.isEnabled(), timeout=20_000)
    assert "supervised" in gen.toolTip()


def test_the_why_view_shows_one_evaluation_batchs_generate(window, qtbot):
    store = window.store
    store.set_field("training.eval_micro_batch", 4)
    store.set_field("training.eval_generate_tokens", 256)
    store.set_field("dataset.eval_fraction", 0.01)
    window.tabs.setCurrentWidget(window.explain_view)

    def line():
        return next((x for x in window.explain_view.time_model.lines if x.name == "Evaluation batch generating"),
                    None)

    qtbot.waitUntil(lambda: line() is not None, timeout=20_000)
    assert "256 decode steps" in line().formula
