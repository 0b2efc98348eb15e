"""Models by Hugging Face id, from the local HF cache, and checkpoints as they are stored (issue #23).

No internet: a local server (tests/hub_fake.py) answers the Hub requests huggingface_hub makes, pointed to with
HF_ENDPOINT; the HF cache is a folder in tmp_path laid out as huggingface_hub lays it out.

Published counts used:

* EleutherAI/pythia-70m, model card (https://huggingface.co/EleutherAI/pythia-70m): 18,915,328 non-embedding
  parameters; with its untied input embedding and output head (2 x 50,304 x 512) that is 70,426,624.
* Qwen/Qwen2.5-0.5B, model card (https://huggingface.co/Qwen/Qwen2.5-0.5B): "Number of Parameters: 0.49B",
  "Non-Embedding: 0.36B"; the exact sum is computed by hand below.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

from hub_fake import (
    PYTHIA_70M_CONFIG,
    QWEN25_05B_CONFIG,
    QWEN25_05B_GPTQ_CONFIG,
    FakeHub,
    pythia_70m_tensors,
    qwen25_05b_gptq_tensors,
    qwen25_05b_tensors,
    safetensors_bytes,
    write_cache_repo,
)
from tuneplan import catalog
from tuneplan.core.checkpoint import checkpoint_from_tensors, quantization_from_config
from tuneplan.core.memory import estimate_memory
from tuneplan.core.scenario import Scenario
from tuneplan.storage import hub
from tuneplan.storage.recent_models import (
    RecentModel,
    known_checkpoint,
    load_recent_models,
    recent_models_path,
    remember_model,
)

PYTHIA_NON_EMBEDDING = 18_915_328  # model card table
PYTHIA_TOTAL = PYTHIA_NON_EMBEDDING + 2 * 50_304 * 512  # = 70,426,624, the card's exact count

# Qwen2.5-0.5B by hand: embedding 151,936 x 896 (tied head); per layer q 896x896+896, k and v 896x128+128 each,
# o 896x896, gate/up/down 3 x 896 x 4,864, two RMSNorms 2 x 896; 24 layers; final norm 896
QWEN_LAYER = (896 * 896 + 896) + 2 * (896 * 128 + 128) + 896 * 896 + 3 * 896 * 4864 + 2 * 896
QWEN_TOTAL = 151_936 * 896 + 24 * QWEN_LAYER + 896
assert QWEN_TOTAL == 494_032_768


def _gptq_bytes(d_in: int, d_out: int) -> int:
    """One GPTQ 4-bit matrix at group size 128: qweight in/8 x out int32, qzeros in/128 x out/8 int32, scales
    in/128 x out fp16, g_idx in int32."""
    return (d_in // 8) * d_out * 4 + (d_in // 128) * (d_out // 8) * 4 + (d_in // 128) * d_out * 2 + d_in * 4


QWEN_GPTQ_BYTES = 24 * (_gptq_bytes(896, 896) * 2 + _gptq_bytes(896, 128) * 2 + _gptq_bytes(896, 4864) * 2
                        + _gptq_bytes(4864, 896))
QWEN_LINEAR = 24 * (2 * 896 * 896 + 2 * 896 * 128 + 3 * 896 * 4864)  # the quantised matrices (biases are fp16)




def _serve(server: FakeHub, repo: str, cfg: dict, tensors: list, **options) -> str:
    return server.add(repo, {"config.json": json.dumps(cfg).encode(),
                             "model.safetensors": safetensors_bytes(tensors, header_only=True)}, **options)


# ------------------------------------------------------------------------------------------- the model id

@pytest.mark.parametrize(("text", "repo", "revision"), [
    ("EleutherAI/pythia-70m", "EleutherAI/pythia-70m", None),
    ("  Qwen/Qwen2.5-0.5B@v1.0 ", "Qwen/Qwen2.5-0.5B", "v1.0"),
    ("https://huggingface.co/Qwen/Qwen2.5-0.5B", "Qwen/Qwen2.5-0.5B", None),
    ("https://huggingface.co/Qwen/Qwen2.5-0.5B/tree/refs%2Fpr%2F3", "Qwen/Qwen2.5-0.5B", "refs/pr/3"),
    ("https://hf.co/Qwen/Qwen2.5-0.5B/blob/main/config.json", "Qwen/Qwen2.5-0.5B", "main"),
])
def test_model_refs(text, repo, revision) -> None:
    ref = hub.parse_model_ref(text)
    assert ref is not None and (ref.repo_id, ref.revision) == (repo, revision)


@pytest.mark.parametrize("text", ["llama-3.1-8b", "", "/tmp/config.json", "./model", "a/b/c", "org/na me",
                                  "https://example.com/org/name", "https://huggingface.co/datasets/org/name",
                                  "org/name@", "C:\\models\\x"])
def test_not_model_refs(text) -> None:
    assert hub.parse_model_ref(text) is None


def test_an_existing_folder_is_a_path_not_an_id(tmp_path, monkeypatch) -> None:
    (tmp_path / "org" / "name").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert hub.parse_model_ref("org/name") is None


# ------------------------------------------------------------------------------------------- from the Hub

def test_fetch_reads_config_and_headers_only_and_counts_exactly(fake_hub) -> None:
    commit = _serve(fake_hub, "EleutherAI/pythia-70m", PYTHIA_70M_CONFIG, pythia_70m_tensors())
    model = hub.resolve_model("EleutherAI/pythia-70m")
    assert model.origin == "hub" and model.commit == commit and model.notes == ()
    arch = model.architecture
    assert arch.name == "EleutherAI/pythia-70m"
    assert arch.parameter_count() == PYTHIA_TOTAL == 70_426_624
    assert arch.checkpoint is not None and not arch.checkpoint.is_quantized
    assert arch.checkpoint.stored_bytes == PYTHIA_TOTAL * 2  # FP16 on the Hub
    assert commit in arch.source
    # only config.json was downloaded; the weights file was read by range requests for its header
    safetensors = [r for r in fake_hub.requests if r[1].endswith("model.safetensors") and r[0] == "GET"]
    assert safetensors and all(r[2] == "bytes=0-100000" for r in safetensors)
    snapshot = Path(os.environ["HF_HUB_CACHE"]) / "models--EleutherAI--pythia-70m" / "snapshots" / commit
    assert sorted(p.name for p in snapshot.iterdir()) == ["config.json"]


def test_revision_and_url(fake_hub) -> None:
    commit = _serve(fake_hub, "EleutherAI/pythia-70m", PYTHIA_70M_CONFIG, pythia_70m_tensors())
    assert hub.resolve_model(f"EleutherAI/pythia-70m@{commit}").commit == commit
    assert hub.resolve_model(f"{fake_hub.url}/EleutherAI/pythia-70m").architecture.parameter_count() == PYTHIA_TOTAL


def test_tied_head_in_the_headers_counts_once(fake_hub) -> None:
    _serve(fake_hub, "Qwen/Qwen2.5-0.5B", QWEN25_05B_CONFIG, qwen25_05b_tensors(with_lm_head=True))
    arch = hub.resolve_model("Qwen/Qwen2.5-0.5B").architecture
    assert arch.parameter_count() == QWEN_TOTAL
    assert round(arch.parameter_count() / 1e9, 2) == 0.49  # the card's figure


@pytest.mark.parametrize(("options", "repo", "kind", "words"), [
    ({"gated": True}, "meta-llama/Llama-3.2-1B", "auth", ["gated", "HF_TOKEN", "hf auth login"]),
    ({}, "nobody/missing", "not-found", ["nobody/missing was not found"]),
])
def test_refusals_are_one_sentence(fake_hub, options, repo, kind, words) -> None:
    if repo != "nobody/missing":
        _serve(fake_hub, repo, PYTHIA_70M_CONFIG, pythia_70m_tensors(), **options)
    with pytest.raises(hub.HubError) as err:
        hub.resolve_model(repo)
    assert err.value.kind == kind
    assert "\n" not in str(err.value) and all(w in str(err.value) for w in words)


def test_gated_repo_with_a_token(fake_hub, monkeypatch) -> None:
    _serve(fake_hub, "meta-llama/Llama-3.2-1B", PYTHIA_70M_CONFIG, pythia_70m_tensors(), gated=True)
    monkeypatch.setenv("HF_TOKEN", "hf_test_token")
    assert hub.resolve_model("meta-llama/Llama-3.2-1B").architecture.parameter_count() == PYTHIA_TOTAL


def test_unknown_revision(fake_hub) -> None:
    _serve(fake_hub, "EleutherAI/pythia-70m", PYTHIA_70M_CONFIG, pythia_70m_tensors())
    with pytest.raises(hub.HubError, match="has no revision 'v9'"):
        hub.resolve_model("EleutherAI/pythia-70m@v9")


def test_timeout_is_ours_not_the_libraries_retries(fake_hub) -> None:
    _serve(fake_hub, "slow/model", PYTHIA_70M_CONFIG, pythia_70m_tensors(), delay=20)
    start = time.monotonic()
    with pytest.raises(hub.HubError) as err:
        hub.resolve_model("slow/model", timeout=0.3)
    assert time.monotonic() - start < 10  # the server answers after 20 s; retries would wait longer still
    assert err.value.kind == "offline" and "timed out" in str(err.value)


def test_unreachable_hub(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # discard port: connection refused
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(hub.HubError) as err:
        hub.resolve_model("EleutherAI/pythia-70m", timeout=1)
    assert err.value.kind == "offline" and "could not be reached" in str(err.value)


def test_model_type_tuneplan_cannot_read_names_it(fake_hub) -> None:
    t5 = {"model_type": "t5", "d_model": 512, "num_layers": 6, "num_heads": 8, "vocab_size": 32128,
          "is_encoder_decoder": True, "auto_map": {"AutoModel": "modeling_x.X"}}
    _serve(fake_hub, "google-t5/t5-small", t5, pythia_70m_tensors())
    with pytest.raises(hub.HubError, match=r"^unsupported model in google-t5/t5-small: 't5' is an encoder-decoder"):
        hub.resolve_model("google-t5/t5-small")


def test_no_safetensors_falls_back_to_the_config_count(fake_hub) -> None:
    fake_hub.add("old/bin-only", {"config.json": json.dumps(PYTHIA_70M_CONFIG).encode()})
    model = hub.resolve_model("old/bin-only")
    assert model.architecture.checkpoint is None
    assert model.architecture.parameter_count() == PYTHIA_TOTAL  # the config's shapes say the same here
    assert "no safetensors" in model.notes[0]


# ------------------------------------------------------------------------------------------- pre-quantised

def test_gptq_checkpoint_weights_from_headers_and_methods(fake_hub) -> None:
    _serve(fake_hub, "Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4", QWEN25_05B_GPTQ_CONFIG, qwen25_05b_gptq_tensors())
    arch = hub.resolve_model("Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4").architecture
    ck = arch.checkpoint
    assert ck is not None and (ck.quantization, ck.bits, ck.label) == ("gptq", 4, "GPTQ 4-bit")
    assert arch.parameter_count() == QWEN_TOTAL  # packed int32 unpacked, scales/zeros/g_idx not counted
    assert ck.quantized_parameters == QWEN_LINEAR and ck.quantized_bytes == QWEN_GPTQ_BYTES
    base = catalog.default_scenario()
    lora = base.model_copy(update={"model": arch}).training.model_copy(update={"method": "lora"})
    mem, ledger = estimate_memory(arch, lora, base.gpu)
    weights = next(c for c in mem.components if c.key == "weights").bytes
    assert weights == QWEN_GPTQ_BYTES + (QWEN_TOTAL - QWEN_LINEAR) * 2  # the rest in bf16
    assert "GPTQ 4-bit weights as stored" in ledger.formulas["weights"]
    data = base.model_dump()
    data["model"] = arch.model_dump()
    data["training"]["method"] = "full"
    with pytest.raises(ValidationError, match="pre-quantised GPTQ 4-bit checkpoint: it trains with LoRA or QLoRA"):
        Scenario.model_validate(data)
    for method in ("lora", "qlora"):
        data["training"]["method"] = method
        assert Scenario.model_validate(data).model.checkpoint == ck


def test_bitsandbytes_fp8_awq_and_compressed_tensors_tables() -> None:
    # bitsandbytes 4-bit: two codes a byte, absmax/quant_map/quant_state beside the weight
    bnb4 = [("l.weight", "U8", [4096 * 4096 // 2, 1]), ("l.weight.absmax", "F32", [4096 * 4096 // 64]),
            ("l.weight.quant_map", "F32", [16]), ("l.weight.quant_state.bitsandbytes__nf4", "U8", [100]),
            ("norm.weight", "BF16", [4096])]
    ck = checkpoint_from_tensors(bnb4, {"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": True}})
    assert (ck.quantization, ck.parameters, ck.quantized_parameters) == ("bnb-4bit", 4096 * 4096 + 4096, 4096 * 4096)
    assert ck.quantized_bytes == 4096 * 4096 // 2 + 4096 * 4096 // 64 * 4 + 16 * 4 + 100
    # bitsandbytes 8-bit: int8 weight of the full shape and its SCB row scales
    bnb8 = [("l.weight", "I8", [1024, 512]), ("l.SCB", "F32", [1024]), ("l.weight_format", "U8", [1])]
    ck = checkpoint_from_tensors(bnb8, {"quantization_config": {"quant_method": "bitsandbytes", "load_in_8bit": True}})
    assert (ck.quantization, ck.parameters, ck.quantized_bytes) == ("bnb-8bit", 1024 * 512, 1024 * 512 + 4096 + 1)
    # FP8 recognised from the dtype alone (no quantization_config), its block scales not counted as parameters
    fp8 = [("l.weight", "F8_E4M3", [256, 256]), ("l.weight_scale_inv", "F32", [2, 2]), ("e.weight", "BF16", [10, 256])]
    ck = checkpoint_from_tensors(fp8, {})
    assert (ck.quantization, ck.parameters, ck.quantized_bytes) == ("fp8", 256 * 256 + 2560, 256 * 256 + 16)
    # AWQ: qweight int32 [in, out/8]
    awq = [("l.qweight", "I32", [512, 128]), ("l.qzeros", "I32", [4, 128]), ("l.scales", "F16", [4, 1024])]
    ck = checkpoint_from_tensors(awq, {"quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128}})
    assert (ck.quantization, ck.parameters) == ("awq", 512 * 1024)
    # compressed-tensors pack-quantized W4A16: weight_packed int32 [out, in/8]
    ct_cfg = {"quantization_config": {"quant_method": "compressed-tensors",
                                      "config_groups": {"group_0": {"weights": {"num_bits": 4}}}}}
    ct = [("l.weight_packed", "I32", [1024, 64]), ("l.weight_scale", "BF16", [1024, 4]),
          ("l.weight_shape", "I64", [2])]
    ck = checkpoint_from_tensors(ct, ct_cfg)
    assert (ck.quantization, ck.bits, ck.parameters) == ("compressed-tensors", 4, 1024 * 512)
    assert quantization_from_config({"quantization_config": {"quant_method": "unknown"}}) == ("none", None)


# ------------------------------------------------------------------------------------------- the local cache

def _pythia_cache(cache: Path, weights: bool = True) -> Path:
    files = {"config.json": json.dumps(PYTHIA_70M_CONFIG).encode()}
    if weights:
        files["model.safetensors"] = safetensors_bytes(pythia_70m_tensors())  # a real file, data and all
    return write_cache_repo(cache, "EleutherAI/pythia-70m", files)


def test_cached_models_are_listed_and_planned_offline(tmp_path, monkeypatch) -> None:
    cache = tmp_path / "hf-home" / "hub"
    snap = _pythia_cache(cache)
    write_cache_repo(cache, "Qwen/Qwen2.5-0.5B", {"config.json": json.dumps(QWEN25_05B_CONFIG).encode()})
    write_cache_repo(cache, "broken/no-config", {"README.md": b"hi"})
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # any network use would fail
    assert hub.hub_cache_dir() == cache
    listed = {m.repo_id: m for m in hub.cached_models()}
    assert set(listed) == {"EleutherAI/pythia-70m", "Qwen/Qwen2.5-0.5B"}
    assert listed["EleutherAI/pythia-70m"].has_weights and not listed["Qwen/Qwen2.5-0.5B"].has_weights
    model = hub.resolve_model("EleutherAI/pythia-70m", timeout=0.5)
    assert model.origin == "cache" and model.commit == snap.name
    assert model.architecture.parameter_count() == PYTHIA_TOTAL
    assert hub.resolve_model(f"EleutherAI/pythia-70m@{snap.name[:10]}").origin == "cache"


def test_local_header_reader(tmp_path) -> None:
    path = tmp_path / "m.safetensors"
    path.write_bytes(safetensors_bytes([("a", "BF16", [2, 3]), ("b", "F32", [])]))
    assert hub.read_safetensors_header(path) == [("a", "BF16", [2, 3]), ("b", "F32", [])]
    path.write_bytes((2**40).to_bytes(8, "little") + b"{}")
    with pytest.raises(ValueError, match="header"):
        hub.read_safetensors_header(path)
    path.write_bytes((5).to_bytes(8, "little") + b"[1,2]")
    with pytest.raises(ValueError, match="not an object"):
        hub.read_safetensors_header(path)


def test_fetched_counts_serve_offline_later(fake_hub, monkeypatch, tmp_path) -> None:
    _serve(fake_hub, "Qwen/Qwen2.5-0.5B", QWEN25_05B_CONFIG, qwen25_05b_tensors())
    model = hub.resolve_model("Qwen/Qwen2.5-0.5B")
    remember_model(RecentModel(kind="hub", ref="Qwen/Qwen2.5-0.5B", name=model.architecture.name,
                               commit=model.commit, checkpoint=model.architecture.checkpoint))
    fake_hub.close()
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    again = hub.resolve_model("Qwen/Qwen2.5-0.5B", known=known_checkpoint, timeout=0.5)
    assert again.origin == "cache" and again.architecture.parameter_count() == QWEN_TOTAL


# ------------------------------------------------------------------------------------------- the recent list

def test_recent_models_persist_newest_first(tmp_path) -> None:
    remember_model(RecentModel(kind="hub", ref="a/one"), tmp_path)
    remember_model(RecentModel(kind="file", ref="/x/config.json", name="x"), tmp_path)
    remember_model(RecentModel(kind="hub", ref="a/one", name="again"), tmp_path)
    models = load_recent_models(tmp_path)
    assert [(m.ref, m.name) for m in models] == [("a/one", "again"), ("/x/config.json", "x")]
    assert json.loads(recent_models_path(tmp_path).read_text())["version"] == 1
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # the atomic write left no temp
    recent_models_path(tmp_path).write_text("{not json")
    assert load_recent_models(tmp_path) == []


def test_a_damaged_recent_list_is_moved_aside_not_overwritten(tmp_path) -> None:
    # issue #23: a damaged recent_models.json was replaced by the next remembered model; a hand-edited file with a
    # typo lost every entry. It is now moved to <data>/quarantine first, and reading it alone moves nothing.
    path = recent_models_path(tmp_path)
    damaged = '{"version": 1, "models": [{"kind": "hub", "ref": "a/one"},]}'  # a trailing comma
    path.write_text(damaged)
    assert load_recent_models(tmp_path) == [] and path.read_text() == damaged
    remember_model(RecentModel(kind="hub", ref="b/two"), tmp_path)
    assert [m.ref for m in load_recent_models(tmp_path)] == ["b/two"]
    (aside,) = (tmp_path / "quarantine").iterdir()
    assert aside.name.endswith("-recent_models.json") and aside.read_text() == damaged
    # a second damaged file goes beside it, neither overwritten
    path.write_text("{also broken")
    remember_model(RecentModel(kind="hub", ref="c/three"), tmp_path)
    assert sorted(p.read_text() for p in (tmp_path / "quarantine").iterdir()) == sorted([damaged, "{also broken"])


def test_a_recent_list_that_cannot_be_read_is_neither_moved_nor_replaced(tmp_path, monkeypatch) -> None:
    # attack review: a read error (permissions) moved an intact list aside and replaced it with one entry
    import tuneplan.storage.recent_models as rm

    remember_model(RecentModel(kind="hub", ref="a/one"), tmp_path)
    before = recent_models_path(tmp_path).read_bytes()

    def denied(path, limit):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(rm, "read_regular_file", denied)
    assert load_recent_models(tmp_path) == []  # reading never raises
    with pytest.raises(rm.RecentModelsError):
        remember_model(RecentModel(kind="hub", ref="b/two"), tmp_path)
    monkeypatch.undo()
    assert recent_models_path(tmp_path).read_bytes() == before
    assert not (tmp_path / "quarantine").exists() or not list((tmp_path / "quarantine").iterdir())


# ------------------------------------------------------------------------------------------- the real CLI

def test_cli_plans_a_gptq_model_by_id_and_refuses_full(fake_hub, tmp_path) -> None:
    _serve(fake_hub, "Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4", QWEN25_05B_GPTQ_CONFIG, qwen25_05b_gptq_tensors())
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    cmd = [sys.executable, "-m", "tuneplan", "estimate", "--gpu", "rtx4090"]
    ok = subprocess.run([*cmd, "--model", "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4",
                         "--method", "lora", "--json"], env=env, capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    out = json.loads(ok.stdout)
    out = out[0] if isinstance(out, list) else out  # one entry per planned GPU
    assert out["parameters"] == QWEN_TOTAL
    assert out["memory"]["components"]["weights"] == QWEN_GPTQ_BYTES + (QWEN_TOTAL - QWEN_LINEAR) * 2
    refused = subprocess.run([*cmd, "--model", "Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4", "--method", "full"],
                             env=env, capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and "not by full fine-tuning" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1 and "Traceback" not in refused.stderr
    missing = subprocess.run([*cmd, "--model", "nobody/missing"], env=env, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "nobody/missing was not found on the Hub" in missing.stderr
    assert [m.ref for m in load_recent_models()] == ["Qwen/Qwen2.5-0.5B-Instruct-GPTQ-Int4"]


def _hostile_cache(tmp_path, monkeypatch, files: dict[str, bytes]) -> None:
    cache = tmp_path / "hf-home" / "hub"
    write_cache_repo(cache, "org/name", {"config.json": json.dumps(PYTHIA_70M_CONFIG).encode(), **files})
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")  # any network use would fail


def test_a_deep_safetensors_index_is_not_a_traceback(tmp_path, monkeypatch) -> None:
    # attack review: a model.safetensors.index.json nested 100,000 deep raised RecursionError from json.loads
    _hostile_cache(tmp_path, monkeypatch, {
        "model.safetensors.index.json": b'{"weight_map":' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "model.safetensors": safetensors_bytes(pythia_70m_tensors())})
    model = hub.resolve_model("org/name", timeout=0.5)  # the index is unreadable: every local shard is read
    assert model.architecture.parameter_count() == PYTHIA_TOTAL


def test_an_index_never_points_outside_its_snapshot(tmp_path, monkeypatch) -> None:
    # attack review: weight_map "../../../../outside.safetensors" made the estimate read a file outside the cache
    outside = tmp_path / "outside.safetensors"
    outside.write_bytes(safetensors_bytes([("model.embed_tokens.weight", "BF16", [10])]))
    _hostile_cache(tmp_path, monkeypatch, {"model.safetensors.index.json": json.dumps(
        {"weight_map": {"x": "../" * 8 + str(outside).lstrip("/")}}).encode(),
        "model.safetensors": safetensors_bytes(pythia_70m_tensors())})
    assert hub.resolve_model("org/name", timeout=0.5).architecture.parameter_count() == PYTHIA_TOTAL


@pytest.mark.parametrize("shape", [[2] * 5000, [2**62, 2**62]])
def test_a_header_claiming_an_impossible_shape_is_refused_in_one_line(tmp_path, monkeypatch, shape) -> None:
    # attack review: [2] x 5,000 raised OverflowError; [2^62, 2^62] printed pydantic's raw validation text
    _hostile_cache(tmp_path, monkeypatch, {"model.safetensors": safetensors_bytes(
        [("model.embed_tokens.weight", "BF16", shape)], header_only=True)})
    with pytest.raises(ValueError, match="claims a shape no checkpoint holds"):
        hub.resolve_model("org/name", timeout=0.5)


def test_headers_that_contradict_the_config_are_reported(tmp_path, monkeypatch) -> None:
    # attack review: one 10-element tensor for pythia-70m's config planned "0.00 B parameters" without a word
    _hostile_cache(tmp_path, monkeypatch, {"model.safetensors": safetensors_bytes(
        [("gpt_neox.embed_in.weight", "F16", [10])])})
    model = hub.resolve_model("org/name", timeout=0.5)
    assert model.architecture.parameter_count() == 10
    assert any("config.json's shapes give" in n for n in model.notes)
    # the real checkpoint agrees with its config: no note
    cache = tmp_path / "ok"
    monkeypatch.setenv("HF_HOME", str(cache))
    _pythia_cache(cache / "hub")
    assert not any("config.json's shapes" in n for n in hub.resolve_model("EleutherAI/pythia-70m", timeout=0.5).notes)
