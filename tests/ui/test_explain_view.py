"""The "Why this much?" tab and the cost chart's hover (real widgets, offscreen)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPointF, Qt

from tuneplan.core.result import GIB
from tuneplan.ui.charts import phase_spans
from tuneplan.ui.explain_view import cost_lines, time_lines, total_lines


def _show(window, qtbot):
    window.tabs.setCurrentWidget(window.explain_view)
    qtbot.waitUntil(lambda: not window.explain_view._stale, timeout=20_000)
    return window.explain_view


def _column(model, col, role=Qt.ItemDataRole.DisplayRole):
    return [model.data(model.index(r, col), role) for r in range(model.rowCount())]


@pytest.mark.parametrize("method", ["qlora", "full"])
def test_components_sorted_largest_first_and_sum_to_the_device_total(window, qtbot, method):
    window.store.set_field("training.method", method)
    view = _show(window, qtbot)
    model, mem = view.memory_model, window.store.result.memory
    raw = _column(model, 0, Qt.ItemDataRole.UserRole)
    assert raw == sorted(raw, reverse=True)
    assert sum(raw) == pytest.approx(mem.total_bytes)
    shown = [float(x) for x in _column(model, 1)]
    assert sum(shown) == pytest.approx(mem.total_bytes / GIB, abs=0.005 * len(shown))
    assert {c.key for c in mem.components} == {c.key for c in model.components}
    # formula with the user's values and the source, per row
    assert _column(model, 3)[0] == model.components[0].formula
    assert _column(model, 4)[0] == model.components[0].source
    shares = _column(model, 2)
    assert shares[0].endswith("%")


def test_formula_follows_the_users_values(window, qtbot):
    view = _show(window, qtbot)
    window.store.set_field("training.seq_len", 4096)
    logits = next(c for c in view.memory_model.components if c.key == "logits")
    assert "4096 tokens" in logits.formula


def test_three_totals_with_meaning_and_the_one_the_verdict_uses(window, qtbot):
    view = _show(window, qtbot)
    mem = window.store.result.memory
    lines = view.totals_model.lines
    names = [line.name for line in lines]
    assert names[:3] == ["Peak allocated", "Peak reserved", "Device total ← the verdict uses this"]
    assert lines[2].emphasis and "nvidia-smi" in lines[2].formula
    assert lines[0].value == f"{mem.peak_allocated_bytes / GIB:.2f} GiB"
    assert lines[1].value == f"{mem.peak_reserved_bytes / GIB:.2f} GiB"
    assert lines[2].value == f"{mem.total_bytes / GIB:.2f} GiB"
    assert "max_memory_allocated" in lines[0].formula and "max_memory_reserved" in lines[1].formula
    assert f"{mem.total_bytes / GIB:.2f} GiB" in view.headline.text()


def test_time_lines_add_up(window, qtbot):
    s, r = window.store.scenario, window.store.result
    lines = {line.name: line for line in time_lines(s, r)}
    for name in (
        "Tokens computed",
        "FLOPs per token",
        "GPU peak",
        "MFU",
        "Throughput",
        "Optimizer step",
        "Optimizer steps",
        "Training",
        "Setup",
        "Wall clock",
    ):
        assert name in lines, name
    # s read back from the estimate is the packed sequence length
    assert "× 2,048 (N weights" in lines["FLOPs per token"].formula
    assert lines["FLOPs per token"].formula.startswith("4N + 12·L·d·s")
    assert "10,000 examples × 512 tokens × 3 epochs" in lines["Tokens computed"].formula
    t = r.time
    peak = s.gpu.peak_tflops * 1e12
    assert t.mfu * peak / t.flops_per_token == pytest.approx(t.tokens_per_second)  # the throughput formula
    assert f"{t.tokens_per_second:,.0f}" in lines["Throughput"].value


def test_cost_lines_match_the_breakdown(window, qtbot):
    s, r = window.store.scenario, window.store.result
    lines = {line.name: line for line in cost_lines(s, r)}
    c = r.cost
    assert lines["GPU time"].value == f"${c.breakdown['GPU time']:,.2f}"
    assert f"{c.billed_hours:,.2f} billed h" in lines["GPU time"].formula
    assert f"${s.pricing.price_per_gpu_hour:,.2f}/GPU-hour" in lines["GPU time"].formula
    assert lines["Storage"].value == f"${c.breakdown['Storage']:,.2f}"
    assert lines["Total, one completed run"].value == f"${c.total_usd:,.2f}"
    assert sum(c.breakdown.values()) == pytest.approx(c.total_usd)


def test_totals_lines_pure(window):
    mem = window.store.result.memory
    lines = total_lines(mem, "GeForce RTX 4090")
    assert "GeForce RTX 4090" in lines[3].formula and "GiB spare" in lines[3].formula


def test_hovering_a_cost_phase_shows_its_hours_usd_and_formula(window, qtbot):
    chart = window.cost_chart
    window.tabs.setCurrentIndex(0)
    qtbot.wait(10)
    cost = window.store.result.cost
    span = next(sp for sp in phase_spans(cost) if sp[0] == "training")
    hours = (span[1] + span[2]) / 2
    scale = 60.0 if cost.curve[-1].hours < 1 else 1.0
    vb = chart.getPlotItem().vb
    pos = vb.mapViewToScene(QPointF(hours * scale, vb.viewRange()[1][1] * 0.5))
    chart.scene().sigMouseMoved.emit(pos)
    tip = chart.toolTip()
    assert "Training" in tip and f"${span[4] - span[3]:,.2f}" in tip
    assert "price per GPU-hour × GPUs + storage per hour" in tip
    assert chart.phase_at(hours)[0] == "training"
    # outside the plot: no tooltip
    chart.scene().sigMouseMoved.emit(QPointF(-50, -50))
    assert chart.toolTip() == ""


def test_dynamic_padding_steps_formula_uses_the_row_length(window):
    # 10,000 examples x 512 tokens x 3 epochs, micro-batch 1, dynamic padding, sequence length 4,096: each row is one
    # 512-token example, so 15,360,000 tokens / (1 x 512) = 30,000 steps and the formula says 512, not 4,096
    window.store.set_field("training.sequence_mode", "dynamic")
    window.store.set_field("training.seq_len", 4096)
    s, r = window.store.scenario, window.store.result
    assert (s.dataset.examples, s.dataset.tokens_per_example, s.dataset.epochs) == (10_000, 512, 3)
    line = next(ln for ln in time_lines(s, r) if ln.name == "Optimizer steps")
    assert line.value == "30,000"
    assert "micro-batch 1 × 512 tokens" in line.formula and "longest example" in line.formula


@pytest.mark.parametrize("method", ["qlora", "full"])
def test_one_line_per_step_term_adding_up_to_the_step(window, qtbot, method):
    from tuneplan.ui.i18n import term_label

    window.store.set_field("training.method", method)
    view = _show(window, qtbot)
    t = window.store.result.time
    lines = view.time_model.lines
    names = [line.name for line in lines]
    shown = [term for term in t.step_terms if term.value > 0]
    assert shown
    term_lines = [line for line in lines if line.name in {term_label(term.key) for term in t.step_terms}]
    assert [line.name for line in term_lines] == [term_label(term.key) for term in shown]
    # each term's value as shown (ms or s), its formula with the parts filled in and its source as the tip
    total = 0.0
    for term, line in zip(shown, term_lines, strict=True):
        number, unit = line.value.split()
        seconds = float(number.replace(",", "")) / (1000 if unit == "ms" else 1)
        assert seconds == pytest.approx(term.value, rel=0.01, abs=0.0001)
        total += seconds
        assert line.tip == term.source and "{" not in line.formula and line.formula
    assert sum(term.value for term in shown) == pytest.approx(t.step_seconds)
    assert total == pytest.approx(t.step_seconds, rel=0.01)
    # the step line, the throughput from it, and MFU as an output after the terms
    step = lines[names.index("Optimizer step")]
    assert step.value == (f"{t.step_seconds:.2f} s" if t.step_seconds >= 1 else f"{t.step_seconds * 1000:.1f} ms")
    assert names.index("Optimizer step") < names.index(term_lines[0].name) < names.index("MFU")
    throughput = lines[names.index("Throughput")]
    assert "tokens per step ÷ step seconds" in throughput.formula
    assert f"{t.tokens_per_second_low:,.0f}–{t.tokens_per_second_high:,.0f}" in throughput.formula
    assert "an output" in lines[names.index("MFU")].formula
    wall = lines[names.index("Wall clock")]
    assert "likely" in wall.formula


def test_flops_line_reads_back_the_row_under_no_grad_passes_and_latent_attention(window):
    """The FLOPs-per-token line inverts the estimate for s: with a DPO reference forward (one pass without
    gradients, 2N + 4·L·d·s more) and on DeepSeek-V2-Lite (query/key 192 and value 128 per head: d is their mean,
    16 x (192 + 128) / 2 = 2,560) it still reads back the 2,048-token row and names the passes."""
    store = window.store
    assert store.set_fields({"training.method": "lora", "training.seq_len": 2048, "training.sequence_mode": "packed",
                             "training.workload": "dpo"})
    line = {ln.name: ln for ln in time_lines(store.scenario, store.result)}["FLOPs per token"]
    assert "× 2,048 (N weights" in line.formula
    assert "+ 1 forward passes without gradients × (2N + 4·L·d·s)" in line.formula
    assert store.set_model("deepseek-v2-lite")
    assert store.set_field("training.workload", "sft")
    line = {ln.name: ln for ln in time_lines(store.scenario, store.result)}["FLOPs per token"]
    assert "× 2,560 × 2,048 (N weights" in line.formula


def test_a_grpo_plans_logits_formula_writes_the_vocabulary_as_a_count_not_in_e_notation(window, qtbot):
    # new-user trial (issue #21): the logits segment's tooltip read "1024 tokens × 1.283e+05 logits"
    from tuneplan.ui.charts import component_tooltip

    store = window.store
    store.set_gpu("a100_80gb_sxm")
    assert store.set_field("training.workload", "grpo")
    assert store.set_field("training.completion_tokens", 1024)  # the trial's plan: the logits live at the peak
    assert store.scenario.model.vocab_size == 128_256  # Llama 3.1's tokenizer (its config.json)
    logits = next(c for c in store.result.memory.components if c.key == "logits")
    assert logits.terms and "e+05" in logits.formula  # the core's plain rendering (%.4g), which the UI does not show
    tip = component_tooltip(logits)
    assert "128,256 logits" in tip and "e+0" not in tip
    window.tabs.setCurrentWidget(window.explain_view)
    model = window.explain_view.memory_model
    row = next(r for r in range(model.rowCount()) if model.components[r].key == "logits")
    assert "128,256 logits" in model.data(model.index(row, 3))
