"""Tests of the bundled catalog: models, GPUs, prices, config import and the default scenario.

Expected numbers come from published sources (model cards, Hugging Face Hub pages, vendor data and
nvidia-smi totals listed in shared/reference/measurements/README.md), never from running this code.
"""

from __future__ import annotations

import csv
import json
from importlib import resources

import pytest

from tuneplan.catalog import (
    ConfigImportError,
    default_price,
    default_scenario,
    get_gpu,
    get_model,
    list_gpus,
    list_models,
    list_prices,
    list_provider_terms,
    load_hf_config,
    match_gpu,
    prices_for_gpu,
    pricing_from_entry,
    spot_price,
    terms_for,
)
from tuneplan.catalog.prices import parse_billing
from tuneplan.core.scenario import Scenario

# ----------------------------------------------------------------------------------- models

# (catalog id, published parameter count, tolerance as a fraction)
PUBLISHED_COUNTS = [
    # Exact sum(p.numel()) for Llama-3/3.1-8B: 8,030,261,248 (Meta model card "8.03B"; litgpt/HF
    # parameter listings; the same figure is quoted in tuneplan.core.architecture).
    ("llama-3.1-8b", 8_030_261_248, 0.0),
    # Llama-2-7b-hf: 6,738,415,616 parameters (Hugging Face Hub safetensors total; Meta's "7B").
    ("llama-2-7b", 6_738_415_616, 0.0),
    # Llama-2-13b-hf: 13,015,864,320 parameters (Hugging Face Hub safetensors total).
    ("llama-2-13b", 13_015_864_320, 0.0),
    # Llama 3.2 model card: 1.23B and 3.21B parameters.
    ("llama-3.2-1b", 1.23e9, 0.01),
    ("llama-3.2-3b", 3.21e9, 0.01),
    # Llama 3.1 70B model card: 70.6B on the Hub (Meta: "70B").
    ("llama-3.1-70b", 70.6e9, 0.01),
    # Mistral 7B v0.1 Hub page: 7.24B parameters.
    ("mistral-7b-v0.1", 7.24e9, 0.01),
    # Qwen2.5-7B: 7.61B (model card) / 7.62B (Hub safetensors total).
    ("qwen2.5-7b", 7.62e9, 0.01),
    # Qwen2.5 model cards: 0.49B, 72.7B.
    ("qwen2.5-0.5b", 0.49e9, 0.01),
    ("qwen2.5-72b", 72.7e9, 0.01),
    # Qwen3 model cards: 8.2B, 32.8B; Qwen3-30B-A3B 30.5B total.
    ("qwen3-8b", 8.2e9, 0.01),
    ("qwen3-32b", 32.8e9, 0.01),
    ("qwen3-30b-a3b", 30.5e9, 0.01),
    # Mixtral 8x7B: 46.7B total parameters (Mistral AI announcement "Mixtral of experts", Hub).
    ("mixtral-8x7b", 46.7e9, 0.01),
    # Mistral Nemo Base 2407: 12.2B (Hub).
    ("mistral-nemo-12b", 12.2e9, 0.01),
    # Gemma 2 (Hub safetensors totals): 2.61B, 9.24B, 27.2B.
    ("gemma-2-2b", 2.61e9, 0.01),
    ("gemma-2-9b", 9.24e9, 0.01),
    ("gemma-2-27b", 27.2e9, 0.01),
    # gemma-3-1b-pt: 999,885,952 parameters (Hub safetensors total; text-only model, tied embeddings).
    ("gemma-3-1b", 999_885_952, 0.0),
    # Phi-3.5-mini: 3.82B (Hub); Phi-4: 14.7B (Hub).
    ("phi-3.5-mini", 3.82e9, 0.01),
    ("phi-4", 14.7e9, 0.01),
    # SmolLM2 model cards / Hub: 135M, 362M, 1.71B.
    ("smollm2-135m", 135e6, 0.01),
    ("smollm2-360m", 362e6, 0.01),
    ("smollm2-1.7b", 1.71e9, 0.01),
]


@pytest.mark.parametrize(("model_id", "published", "tol"), PUBLISHED_COUNTS)
def test_parameter_counts_match_published(model_id: str, published: float, tol: float) -> None:
    computed = get_model(model_id).architecture.parameter_count()
    if tol == 0:
        assert computed == published
    else:
        assert computed == pytest.approx(published, rel=tol)


def test_moe_active_parameters_match_published() -> None:
    # Mixtral: "12.9B active parameters" per token (Mistral AI, "Mixtral of experts", 2023-12-11).
    assert get_model("mixtral-8x7b").architecture.active_parameter_count() == pytest.approx(12.9e9, rel=0.01)
    # Qwen3-30B-A3B model card: 3.3B activated.
    assert get_model("qwen3-30b-a3b").architecture.active_parameter_count() == pytest.approx(3.3e9, rel=0.03)
    arch = get_model("qwen3-30b-a3b").architecture
    assert (arch.num_experts, arch.experts_per_token, arch.moe_intermediate_size) == (128, 8, 768)


def test_gemma3_multimodal_counts_are_noted() -> None:
    # Gemma 3 4B/12B/27B published counts (4.3B, 12.2B, 27.4B) include the ~0.4B SigLIP vision tower,
    # which the language-model architecture does not hold.
    for model_id in ("gemma-3-4b", "gemma-3-12b", "gemma-3-27b"):
        m = get_model(model_id)
        published = m.params_published_b * 1e9
        computed = m.architecture.parameter_count()
        assert 0.3e9 < published - computed < 0.5e9, model_id
        assert "vision" in m.params_note


def test_catalog_covers_the_requested_models() -> None:
    ids = {m.id for m in list_models()}
    wanted = {
        "llama-3.1-8b", "llama-3.1-70b", "llama-3.2-1b", "llama-3.2-3b", "llama-3.3-70b", "llama-2-7b", "llama-2-13b",
        "qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b",
        "qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-32b", "qwen3-30b-a3b",
        "mixtral-8x7b", "mistral-7b-v0.3", "mistral-nemo-12b", "gemma-2-2b", "gemma-2-9b", "gemma-2-27b",
        "gemma-3-1b", "gemma-3-4b", "gemma-3-12b", "gemma-3-27b", "phi-3.5-mini", "phi-4",
        "smollm2-135m", "smollm2-360m", "smollm2-1.7b",
    }
    assert wanted <= ids, sorted(wanted - ids)


def test_models_load_and_are_well_formed() -> None:
    models = list_models()
    assert len(models) >= 26
    ids = [m.id for m in models]
    assert len(ids) == len(set(ids)), "duplicate model ids"
    for m in models:
        assert m.source and m.hf_id and "/" in m.hf_id and m.family
        arch = m.architecture
        assert arch.name == m.name
        assert arch.source == m.source
        gap = arch.parameter_count() / (m.params_published_b * 1e9) - 1
        if abs(gap) > 0.01:
            assert m.params_note, f"{m.id}: computed count is {gap:+.1%} off the published count but has no params_note"


def test_models_json_holds_only_hf_config_fields() -> None:
    raw = json.loads(resources.files("tuneplan.catalog").joinpath("data", "models.json").read_text("utf-8"))
    for entry in raw:
        assert {"id", "name", "hf_id", "family", "params_published_b", "source", "config"} <= set(entry)
        assert not [k for k in entry["config"] if k.startswith("_")], entry["id"]
        assert "model_type" in entry["config"]


def test_get_model_unknown_id_says_which() -> None:
    with pytest.raises(KeyError, match="no-such-model"):
        get_model("no-such-model")


def test_list_models_is_cached_and_immutable() -> None:
    a, b = list_models(), list_models()
    assert a[0] is b[0]
    with pytest.raises(Exception):  # noqa: B017 - pydantic frozen-instance error
        a[0].name = "x"  # type: ignore[misc]


# ----------------------------------------------------------------------------- config import

LLAMA_CFG = {
    # meta-llama/Llama-3.1-8B config.json (architecture fields)
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "vocab_size": 128256,
    "tie_word_embeddings": False,
    "max_position_embeddings": 131072,
    "hidden_act": "silu",
}


def test_load_hf_config_from_file(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA_CFG), encoding="utf-8")
    arch = load_hf_config(path)
    assert arch.parameter_count() == 8_030_261_248
    assert arch.num_kv_heads == 8


def test_load_hf_config_from_folder_and_str_path(tmp_path) -> None:
    folder = tmp_path / "Llama-3.1-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA_CFG), encoding="utf-8")
    arch = load_hf_config(str(folder))
    assert arch.hidden_size == 4096
    assert arch.name == "Llama-3.1-8B"


def test_load_hf_config_missing(tmp_path) -> None:
    with pytest.raises(ConfigImportError, match="does not exist"):
        load_hf_config(tmp_path / "nope.json")
    with pytest.raises(ConfigImportError, match="has no config.json"):
        load_hf_config(tmp_path)


def test_load_hf_config_broken_json_gives_line_and_column(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{\n  "hidden_size": 4096,\n  "num_hidden_layers": 32\n  "vocab_size": 1\n}\n', encoding="utf-8")
    with pytest.raises(ConfigImportError) as info:
        load_hf_config(path)
    msg = str(info.value)
    assert "not valid JSON" in msg and "line 4" in msg and "column 3" in msg
    assert "\n" not in msg


def test_load_hf_config_not_an_object(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_text("[1, 2, 3]", encoding="utf-8")
    with pytest.raises(ConfigImportError, match="JSON object.*array"):
        load_hf_config(path)


def test_load_hf_config_encoder_decoder_t5(tmp_path) -> None:
    # google-t5/t5-small config.json (architecture fields)
    t5 = {
        "architectures": ["T5ForConditionalGeneration"],
        "model_type": "t5",
        "d_model": 512,
        "d_ff": 2048,
        "num_layers": 6,
        "num_heads": 8,
        "vocab_size": 32128,
        "is_encoder_decoder": True,
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(t5), encoding="utf-8")
    with pytest.raises(ConfigImportError) as info:
        load_hf_config(path)
    msg = str(info.value)
    assert "encoder-decoder" in msg and "unsupported model" in msg
    assert "\n" not in msg


def test_load_hf_config_too_large(tmp_path) -> None:
    path = tmp_path / "config.json"
    padding = " " * (2 * 1024 * 1024)
    path.write_text("{" + padding + json.dumps(LLAMA_CFG)[1:], encoding="utf-8")
    with pytest.raises(ConfigImportError, match="larger than 1 MiB"):
        load_hf_config(path)


def test_load_hf_config_not_utf8(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b'{"model_type": "llama\xff"}')
    with pytest.raises(ConfigImportError, match="UTF-8"):
        load_hf_config(path)


def test_load_hf_config_not_a_model_config(tmp_path) -> None:
    path = tmp_path / "config.json"
    path.write_text('{"foo": 1}', encoding="utf-8")
    with pytest.raises(ConfigImportError, match="unsupported model"):
        load_hf_config(path)


def test_config_import_error_is_a_value_error() -> None:
    assert issubclass(ConfigImportError, ValueError)


# ------------------------------------------------------------------------------------- GPUs


def test_all_gpus_load() -> None:
    gpus = list_gpus()
    assert len(gpus) == 35  # every row of shared/reference/gpus.csv
    assert len({g.id for g in gpus}) == 35


@pytest.mark.parametrize(
    ("gpu_id", "gib"),
    [
        # nvidia-smi totals / 1024, listed in shared/reference/measurements/README.md
        ("a100_80gb_sxm", 80.0),
        ("a100_40gb", 40.0),
        ("h100_sxm", 79.65),
        ("l40s", 44.99),
        ("rtx_a6000", 47.99),
        ("rtx4090", 23.99),
        ("rtx3090", 24.0),
        ("a10g", 22.49),
        ("l4", 22.49),
        ("t4", 15.0),
        # nvidia-smi shows 143771 MiB for an H200 (public nvidia-smi printouts)
        ("h200", 140.4),
    ],
)
def test_gpu_memory_is_driver_reported_gib(gpu_id: str, gib: float) -> None:
    assert get_gpu(gpu_id).memory_gib == pytest.approx(gib, abs=0.01)


def test_gpu_specs_from_reference() -> None:
    # shared/reference/gpus.csv: H100 SXM 989 dense BF16 TFLOPS, 3350 GB/s, NVLink 900 GB/s, 700 W
    h100 = get_gpu("h100_sxm")
    assert h100.bf16_tflops == 989.0
    assert h100.memory_bandwidth_gbps == 3350
    assert h100.p2p_link_gbps == 900
    assert h100.tdp_w == 700
    assert h100.measured_bf16_tflops == pytest.approx(794.5)
    # T4 has no BF16: FP16 65 TFLOPS is the training peak
    t4 = get_gpu("t4")
    assert not t4.bf16_supported
    assert t4.peak_tflops == 65.0
    assert get_gpu("rtx4090").segment == "consumer"
    assert all(g.source for g in list_gpus())


def test_get_gpu_unknown() -> None:
    with pytest.raises(KeyError, match="gtx1080"):
        get_gpu("gtx1080")


def test_get_gpu_returns_a_copy() -> None:
    g = get_gpu("rtx4090")
    g.memory_gib = 1.0
    assert get_gpu("rtx4090").memory_gib == pytest.approx(23.99)


@pytest.mark.parametrize(
    ("name", "gpu_id"),
    [
        ("A100 80GB", "a100_80gb_sxm"),
        ("NVIDIA A100-SXM4-80GB", "a100_80gb_sxm"),
        ("NVIDIA A100 80GB PCIe", "a100_80gb_pcie"),
        ("NVIDIA A100-SXM4-40GB", "a100_40gb"),
        ("RTX 4090", "rtx4090"),
        ("NVIDIA GeForce RTX 4090", "rtx4090"),
        ("NVIDIA H100 80GB HBM3", "h100_sxm"),
        ("H100 PCIe", "h100_pcie"),
        ("NVIDIA H100 NVL", "h100_nvl"),
        ("Tesla T4", "t4"),
        ("NVIDIA L40S", "l40s"),
        ("NVIDIA L4", "l4"),
        ("NVIDIA A10G", "a10g"),
        ("NVIDIA A10", "a10"),
        ("NVIDIA RTX A6000", "rtx_a6000"),
        ("Tesla V100-SXM2-16GB", "v100_16gb"),
        ("NVIDIA H200", "h200"),
        ("NVIDIA GeForce RTX 3090", "rtx3090"),
        ("gh200", "gh200"),
        ("NVIDIA GH200 480GB", "gh200"),
        ("h100_sxm", "h100_sxm"),
        ("RTX4090", "rtx4090"),
        ("NVIDIA RTX 6000 Ada Generation", "rtx6000_ada"),
        ("AMD Instinct MI300X", "mi300x"),
        ("H100 SXM5 80GB", "h100_sxm"),
    ],
)
def test_match_gpu(name: str, gpu_id: str) -> None:
    gpu = match_gpu(name)
    assert gpu is not None, name
    assert gpu.id == gpu_id


@pytest.mark.parametrize(
    "name",
    [
        "GeForce GTX 1080",
        "",
        "   ",
        "H100",  # PCIe or SXM: ambiguous
        "A100",  # 40 or 80 GB
        "Quadro RTX 6000",  # Turing, not the RTX 6000 Ada
        "NVIDIA GB200",
        "NVIDIA H20",
        "NVIDIA L20",
        "Tesla V100-PCIE-16GB",  # PCIe V100 has lower TFLOPS than the SXM2 row
        "NVIDIA GeForce RTX 4090 Laptop GPU",
        "RTX 4060 Ti",  # 8 GB or 16 GB
        "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
    ],
)
def test_match_gpu_ambiguous_or_unknown_is_none(name: str) -> None:
    assert match_gpu(name) is None


# ----------------------------------------------------------------------------------- prices


def test_every_price_gpu_id_is_in_the_catalog() -> None:
    gpu_ids = {g.id for g in list_gpus()}
    prices = list_prices()
    assert len(prices) == 115  # every row of shared/reference/prices.csv
    for p in prices:
        assert not p.gpu_id or p.gpu_id in gpu_ids, p
        assert p.usd_per_gpu_hour > 0
        assert p.billing in {"second", "minute", "hour"}


def test_multi_gpu_instance_prices_are_per_gpu() -> None:
    # AWS us-east-1 p5.48xlarge: $55.04/hr for 8 H100 -> 6.88 per GPU (notes of the reference row)
    p5 = [p for p in list_prices() if "p5.48xlarge" in p.gpu_label]
    assert len(p5) == 1 and p5[0].usd_per_gpu_hour == pytest.approx(55.04 / 8)
    # CoreWeave HGX H100 node $49.24/hr -> 6.155 per GPU
    cw = [p for p in list_prices() if p.provider == "CoreWeave" and p.gpu_label.startswith("HGX H100") and p.kind == "on-demand"]
    assert cw[0].usd_per_gpu_hour == pytest.approx(49.24 / 8)


def test_billing_parsing() -> None:
    assert parse_billing("per-second (60 s minimum)") == ("second", 1.0)
    assert parse_billing("per-second, 1 min minimum") == ("second", 1.0)
    assert parse_billing("per-minute") == ("minute", 0.0)
    assert parse_billing("unverified") == ("hour", 0.0)


def test_default_price_is_cheapest_on_demand() -> None:
    # prices.csv: RTX 4090 on-demand only at RunPod Secure Cloud, 0.74 USD/h (2026-09-25)
    p = default_price("rtx4090")
    assert p is not None
    assert (p.provider, p.kind, p.usd_per_gpu_hour, p.billing) == ("RunPod", "on-demand", 0.74, "second")
    # H100 SXM on-demand: Hyperstack 3.20 USD/h is the cheapest on-demand row
    h = default_price("h100_sxm")
    assert h is not None and h.kind == "on-demand" and h.usd_per_gpu_hour == 3.2
    assert all(h.usd_per_gpu_hour <= q.usd_per_gpu_hour for q in prices_for_gpu("h100_sxm") if q.kind == "on-demand")


def test_default_price_falls_back_to_any_kind() -> None:
    # RTX 3090 only has community prices (Vast.ai 0.165 is the cheapest)
    p = default_price("rtx3090")
    assert p is not None and p.kind == "community" and p.usd_per_gpu_hour == 0.165
    assert default_price("rtx3090ti") is None  # no price in prices.csv


def test_spot_price() -> None:
    # Mithril H100 SXM5 spot 1.00 USD/h is the cheapest community/spot H100 SXM row
    s = spot_price("h100_sxm")
    assert s is not None and s.usd_per_gpu_hour == 1.0 and s.kind in {"spot", "community"}
    assert spot_price("t4") is None


def test_prices_for_gpu_sorted() -> None:
    prices = prices_for_gpu("h200")
    assert len(prices) >= 5
    assert [p.usd_per_gpu_hour for p in prices] == sorted(p.usd_per_gpu_hour for p in prices)


def test_provider_terms() -> None:
    terms = {t.provider: t for t in list_provider_terms()}
    runpod = terms["RunPod"]
    # provider_terms.csv: RunPod per-second; volume 0.10, network volume (<1 TB) 0.07 USD/GB-month; no egress fees
    assert runpod.billing == "second"
    assert runpod.storage_usd_per_gb_month["volume disk (running pod)"] == 0.1
    assert runpod.storage_usd_per_gb_month["network volume (<1 TB)"] == 0.07
    assert runpod.egress_usd_per_gb == 0.0
    assert terms["Lambda"].billing == "minute"
    assert terms["AWS"].egress_usd_per_gb == 0.09
    assert terms["AWS"].minimum_billed_minutes == 1.0


def test_terms_for_and_pricing_from_entry() -> None:
    assert terms_for("RunPod Serverless") is terms_for("RunPod")
    assert terms_for("Nebius") is None  # no terms row in provider_terms.csv
    aws = [p for p in list_prices() if "p5.48xlarge" in p.gpu_label][0]
    pricing = pricing_from_entry(aws)
    # AWS: per-second billing with a 60 s minimum; internet egress 0.09 USD/GB (provider_terms.csv)
    assert (pricing.provider, pricing.billing, pricing.minimum_billed_minutes) == ("AWS", "second", 1.0)
    assert pricing.egress_usd_per_gb == 0.09
    assert pricing.price_per_gpu_hour == pytest.approx(6.88)


def test_bundled_price_file_is_a_copy_of_the_reference() -> None:
    text = resources.files("tuneplan.catalog").joinpath("data", "prices.csv").read_text("utf-8")
    rows = list(csv.DictReader(text.splitlines()))
    assert len(rows) == 115
    assert "price_usd_per_hr" in rows[0]


# --------------------------------------------------------------------------- default scenario


def test_default_scenario_validates() -> None:
    s = default_scenario()
    again = Scenario.model_validate(s.model_dump())
    assert again == s
    assert s.model_id == "llama-3.1-8b"
    assert s.model.parameter_count() == 8_030_261_248
    assert s.gpu.id == "rtx4090"
    t = s.training
    assert (t.method, t.precision, t.optimizer, t.lora_rank, t.lora_targets) == ("qlora", "bf16", "adamw", 16, "all-linear")
    assert (t.micro_batch, t.seq_len, t.sequence_mode, t.grad_checkpointing, t.attention, t.num_gpus) == (
        1, 2048, "packed", True, "flash", 1,
    )
    d = s.dataset
    assert (d.examples, d.tokens_per_example, d.epochs) == (10_000, 512, 3)
    p = s.pricing
    assert (p.provider, p.offer_kind, p.price_per_gpu_hour, p.billing, p.price_date) == (
        "RunPod", "on-demand", 0.74, "second", "2026-09-25",
    )


def test_default_scenarios_are_independent() -> None:
    a, b = default_scenario(), default_scenario()
    a.training.lora_rank = 64
    a.gpu.memory_gib = 1.0
    assert b.training.lora_rank == 16
    assert b.gpu.memory_gib == pytest.approx(23.99)


def test_mi250x_is_one_gcd_as_pytorch_sees_it():
    # shared/reference/gpus.csv notes: "Appears to software as 2 GPUs (64 GB, ~191.5 TFLOPS each)"
    from tuneplan import catalog

    gpu = catalog.get_gpu("mi250x")
    assert gpu.memory_gib == 64 and gpu.bf16_tflops == pytest.approx(383.0 / 2)
