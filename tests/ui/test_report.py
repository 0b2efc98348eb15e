"""The one-page HTML report (issue #6): a pure builder, and File → Export report… on a real window."""

from __future__ import annotations

import base64
import html
import re
import subprocess
import sys
from datetime import datetime
from html.parser import HTMLParser

import pytest

from tuneplan import __version__, catalog
from tuneplan.core.estimate import estimate
from tuneplan.core.result import GIB
from tuneplan.storage import ScenarioLibrary
from tuneplan.ui.report import ACCURACY_URL, build_report_html, export_report

PNG_1 = b"\x89PNG\r\n\x1a\n" + b"first chart" * 3
PNG_2 = b"\x89PNG\r\n\x1a\n" + b"second chart" * 3


def _two():
    a = catalog.default_scenario()
    a.name = "Cheap & slow <test>"
    b = catalog.default_scenario()
    b.name = "Long context"
    b.training.seq_len = 32768
    b.training.micro_batch = 4
    return [a, b], [estimate(a), estimate(b)]


class _Collect(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.imgs: list[str] = []
        self.text: list[str] = []
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        d = dict(attrs)
        if tag == "img":
            self.imgs.append(d["src"])
        if tag == "a":
            self.links.append(d["href"])

    def handle_data(self, data):
        self.text.append(data)


def test_report_has_verdicts_numbers_images_date_version_and_accuracy():
    scenarios, estimates = _two()
    when = datetime(2026, 11, 30, 9, 15)
    doc = build_report_html(scenarios, estimates, {"Memory": PNG_1, "Cost": PNG_2}, generated=when)
    parser = _Collect()
    parser.feed(doc)
    text = " ".join(parser.text)
    assert doc.startswith("<!DOCTYPE html>") and "<script" not in doc
    # the charts are embedded, not linked
    assert parser.imgs == ["data:image/png;base64," + base64.b64encode(PNG_1).decode(),
                           "data:image/png;base64," + base64.b64encode(PNG_2).decode()]
    assert not re.search(r'src="(?!data:)', doc)
    for s, r in zip(scenarios, estimates, strict=True):
        assert s.name in text  # escaped in the source, intact once parsed
        assert r.memory.verdict() in text
        assert f"{r.memory.total_bytes / GIB:.1f}" in text
        assert f"${r.cost.total_usd:,.2f}" in text
        for comp in r.memory.components:
            if comp.bytes > 0:
                assert comp.formula in text
                assert f"{comp.bytes / GIB:.2f}" in text
    assert html.escape("Cheap & slow <test>") in doc and "<test>" not in doc
    assert "2026-11-30 09:15" in text and f"Tuneplan {__version__}" in text
    assert ACCURACY_URL in parser.links
    assert "Accuracy" in text and "percentile" in text
    # fits / does not fit are coloured classes: the short plan fits the RTX 4090, 4 x 32k tokens does not
    assert [r.memory.fits for r in estimates] == [True, False]
    for r in estimates:
        cls = "good" if r.memory.fits else "bad"
        assert f'<span class="{cls}">{html.escape(r.memory.verdict())}</span>' in doc


def test_report_says_how_fsdp_syncs_and_groups_the_model():
    s = catalog.default_scenario()
    s.training.method = "full"
    s.training.num_gpus = 8
    s.training.sharding = "fsdp"
    s.training.grad_accumulation = 4
    parser = _Collect()
    parser.feed(build_report_html([s], [estimate(s)], {}))
    text = " ".join(parser.text)
    assert "embeddings in the root unit" in text and "gradients synced at the optimizer step (no_sync)" in text
    s.training.grad_sync = "micro-batch"
    s.training.fsdp_wrap = "separate-embeddings"
    parser = _Collect()
    parser.feed(build_report_html([s], [estimate(s)], {}))
    text = " ".join(parser.text)
    assert "embeddings sharded apart" in text and "gradients synced every micro-batch" in text


def test_report_names_the_sharding_as_the_form_does():
    # new-user trial (issue #21): the GPUs line read "2 × RTX 4090, zero3", the plan file's id
    s = catalog.default_scenario()
    s.training.num_gpus = 2
    s.training.sharding = "zero3"
    parser = _Collect()
    parser.feed(build_report_html([s], [estimate(s)], {}))
    text = " ".join(parser.text)
    assert f"2 × {s.gpu.name}, ZeRO-3" in text and f"2 × {s.gpu.name}, zero3" not in text


def test_report_refuses_mismatched_inputs():
    scenarios, estimates = _two()
    with pytest.raises(ValueError):
        build_report_html(scenarios, estimates[:1], {})
    with pytest.raises(ValueError):
        build_report_html([], [], {})


def test_report_module_imports_no_qt():
    code = ("import sys, tuneplan.ui.report as r; "
            "assert not [m for m in sys.modules if m.startswith('PySide6')], 'Qt imported'; print('ok')")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr


def test_export_report_of_the_plan_embeds_real_pngs(window, tmp_path):
    out = export_report(window, tmp_path / "plan.html")
    assert out is not None
    doc = out.read_text("utf-8")
    parser = _Collect()
    parser.feed(doc)
    assert len(parser.imgs) == 2
    for src in parser.imgs:
        png = base64.b64decode(src.removeprefix("data:image/png;base64,"))
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    r = window.store.result
    assert r.memory.verdict() in doc and f"${r.cost.total_usd:,.2f}" in doc


def test_export_report_of_a_comparison_from_the_menu(window, tmp_path, monkeypatch):
    lib = ScenarioLibrary()
    s = catalog.default_scenario()
    s.name = "Second"
    s.training.seq_len = 8192
    path = lib.save(s)
    view = window.compare_view
    window.tabs.setCurrentWidget(view)
    view.refresh_picker()
    assert view.pick(str(path))
    target = tmp_path / "comparison.html"
    monkeypatch.setattr(type(window), "ask_report_path", lambda self, suggestion: str(target), raising=False)
    window.export_report_action.trigger()
    doc = target.read_text("utf-8")
    assert "Comparison of 2 scenarios" in doc
    for e in view.comparison.entries:
        assert html.escape(e.scenario.name) in doc
        assert e.result.memory.verdict() in doc
        assert f"${e.result.cost.total_usd:,.2f}" in doc
    assert doc.count("data:image/png;base64,") == 2
    # what differs between them, as in the comparison table
    assert "What differs" in doc and "Sequence length (tokens)" in doc and "8,192" in doc
    assert window.shown_errors == []


def test_report_lists_paged_optimizer_states_outside_the_total():
    s = catalog.default_scenario()
    s.training.method = "full"
    s.training.optimizer = "paged-adamw-8bit"
    s.training.optimizer_in_backward = True
    r = estimate(s)
    assert r.memory.paged_bytes > 0
    doc = build_report_html([s], [r], {}, generated=datetime(2026, 11, 30, 9, 15))
    parser = _Collect()
    parser.feed(doc)
    text = " ".join(parser.text)
    assert "Paged optimizer states (not counted)" in text
    assert f"{r.memory.paged_bytes / GIB:.2f}" in text
