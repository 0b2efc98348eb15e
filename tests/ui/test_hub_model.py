"""The model panel's Hugging Face field on real widgets (issue #23): a fetch in the background against a local fake
Hub, the HF cache offered as you type, one-sentence failures that keep the plan, cancel and restart."""

from __future__ import annotations

import json
import threading

from hub_fake import (
    PYTHIA_70M_CONFIG,
    QWEN25_05B_GPTQ_CONFIG,
    pythia_70m_tensors,
    qwen25_05b_gptq_tensors,
    safetensors_bytes,
    write_cache_repo,
)
from tuneplan.storage.recent_models import load_recent_models

PYTHIA_TOTAL = 18_915_328 + 2 * 50_304 * 512  # pythia-70m model card: non-embedding + untied embedding and head




def _serve(server, repo, cfg, tensors, **options):
    return server.add(repo, {"config.json": json.dumps(cfg).encode(),
                             "model.safetensors": safetensors_bytes(tensors, header_only=True)}, **options)


def test_fetch_runs_in_the_background_and_plans_the_model(window, qtbot, fake_hub) -> None:
    gate = threading.Event()
    _serve(fake_hub, "EleutherAI/pythia-70m", PYTHIA_70M_CONFIG, pythia_70m_tensors())
    original = fake_hub.server.RequestHandlerClass.do_HEAD

    def held_head(handler):  # the Hub answers only once the test has seen the UI respond
        gate.wait(5)
        original(handler)

    fake_hub.server.RequestHandlerClass.do_HEAD = held_head
    field = window.model_panel.hub_field
    field.edit.setText("https://huggingface.co/EleutherAI/pythia-70m")
    assert field.load() is True
    # the UI thread is free: the status says so while the request is held
    assert field.busy and "Fetching" in field.status.text() and not field.load_button.isEnabled()
    assert window.store.scenario.model.name == "Llama 3.1 8B"
    gate.set()
    qtbot.waitUntil(lambda: not field.busy, timeout=10_000)
    assert window.store.scenario.model.name == "EleutherAI/pythia-70m"
    assert window.store.result.parameters == PYTHIA_TOTAL
    assert "Loaded EleutherAI/pythia-70m from the Hub" in field.status.text()
    assert [m.ref for m in load_recent_models()] == ["EleutherAI/pythia-70m"]
    assert "Imported: EleutherAI/pythia-70m" in window.model_panel.combo.currentText()


def test_failures_are_one_line_and_keep_the_plan(window, qtbot, fake_hub) -> None:
    field = window.model_panel.hub_field
    before = window.store.scenario
    assert field.load("nobody/missing")
    qtbot.waitUntil(lambda: not field.busy, timeout=10_000)
    assert field.status.text() == "Could not load: nobody/missing was not found on the Hub. The plan keeps its model."
    assert window.store.scenario == before
    # a GPTQ checkpoint under full fine-tuning: refused by the plan, with the reason
    _serve(fake_hub, "Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4", QWEN25_05B_GPTQ_CONFIG, qwen25_05b_gptq_tensors())
    assert window.store.set_field("training.method", "full")
    before = window.store.scenario
    assert field.load("Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4")
    qtbot.waitUntil(lambda: not field.busy, timeout=10_000)
    assert "not by full fine-tuning" in field.status.text()
    assert window.store.scenario == before
    assert field.load("not an id") is False and "is not a Hugging Face model id" in field.status.text()


def test_cancel_drops_the_late_answer(window, qtbot, fake_hub) -> None:
    _serve(fake_hub, "EleutherAI/pythia-70m", PYTHIA_70M_CONFIG, pythia_70m_tensors(), delay=0.5)
    field = window.model_panel.hub_field
    before = window.store.scenario
    assert field.load("EleutherAI/pythia-70m")
    field.cancel()
    assert not field.busy and field.load_button.isEnabled() and "Cancelled" in field.status.text()
    qtbot.wait(1500)  # the answer arrives and is ignored
    assert window.store.scenario == before


def test_cached_models_are_suggested_and_load_offline(qtbot, tmp_path, monkeypatch, window) -> None:
    cache = tmp_path / "cache"
    write_cache_repo(cache, "EleutherAI/pythia-70m", {
        "config.json": json.dumps(PYTHIA_70M_CONFIG).encode(),
        "model.safetensors": safetensors_bytes(pythia_70m_tensors())})
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # no Hub
    field = window.model_panel.hub_field
    field.refresh_suggestions()
    qtbot.waitUntil(lambda: "EleutherAI/pythia-70m" in field.completer_model.stringList(), timeout=10_000)
    completer = field.edit.completer()
    completer.setCompletionPrefix("pythia")  # matches anywhere in the id, any case
    assert completer.currentCompletion() == "EleutherAI/pythia-70m"
    assert field.load("EleutherAI/pythia-70m")
    qtbot.waitUntil(lambda: not field.busy, timeout=10_000)
    assert "from the local Hugging Face cache" in field.status.text()
    assert window.store.result.parameters == PYTHIA_TOTAL
