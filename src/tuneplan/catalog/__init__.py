"""Bundled catalog: models (``data/models.json``), GPUs (``data/gpus.csv``) and prices (``data/prices.csv``).

All data is read through :mod:`importlib.resources`, so it works from a checkout, a wheel and a
PyInstaller bundle. Loaders are cached; returned GPU specs are copies that are safe to edit.
"""

from __future__ import annotations

from tuneplan.catalog.gpus import SPECS_COLLECTED, get_gpu, list_gpus, match_gpu
from tuneplan.catalog.models import (
    CatalogModel,
    ConfigImportError,
    get_model,
    list_models,
    load_hf_config,
)
from tuneplan.catalog.prices import (
    PriceDates,
    PriceEntry,
    ProviderTerms,
    billed_gpus,
    default_price,
    list_prices,
    list_provider_terms,
    plan_usd_per_gpu_hour,
    price_dates,
    prices_for_gpu,
    pricing_from_entry,
    spot_price,
    terms_for,
)
from tuneplan.core.scenario import Dataset, Pricing, Scenario, TrainingSetup

__all__ = [
    "DEFAULT_GPU_ID",
    "DEFAULT_MODEL_ID",
    "SPECS_COLLECTED",
    "CatalogModel",
    "ConfigImportError",
    "PriceDates",
    "PriceEntry",
    "ProviderTerms",
    "billed_gpus",
    "default_price",
    "plan_usd_per_gpu_hour",
    "default_scenario",
    "get_gpu",
    "get_model",
    "list_gpus",
    "list_models",
    "list_prices",
    "list_provider_terms",
    "load_hf_config",
    "match_gpu",
    "price_dates",
    "prices_for_gpu",
    "pricing_from_entry",
    "spot_price",
    "terms_for",
]

DEFAULT_MODEL_ID = "llama-3.1-8b"
DEFAULT_GPU_ID = "rtx4090"


def default_scenario() -> Scenario:
    """The plan a new document starts with: "Llama 3.1 8B QLoRA on an RTX 4090".

    Llama 3.1 8B, QLoRA (NF4 base, double quantisation) in bf16 with torch AdamW, LoRA rank 16
    (alpha 32) on all linear layers, micro-batch 1 x 2048 packed tokens, gradient checkpointing,
    FlashAttention, one GPU; 10,000 examples x 512 tokens x 3 epochs. Pricing comes from
    :func:`default_price` for the RTX 4090 (the cheapest on-demand entry: provider, kind,
    billing granularity and date included) via :func:`pricing_from_entry`.

    Returns a new, independent :class:`Scenario` each call.
    """
    model = get_model(DEFAULT_MODEL_ID)
    entry = default_price(DEFAULT_GPU_ID)
    pricing = pricing_from_entry(entry) if entry is not None else Pricing()
    return Scenario(
        name=f"{model.name} QLoRA on an RTX 4090",
        model_id=model.id,
        model=model.architecture,
        training=TrainingSetup(
            method="qlora",
            precision="bf16",
            optimizer="adamw",
            lora_rank=16,
            lora_alpha=32,
            lora_targets="all-linear",
            micro_batch=1,
            seq_len=2048,
            sequence_mode="packed",
            grad_checkpointing=True,
            attention="flash",
            num_gpus=1,
            sharding="none",
        ),
        dataset=Dataset(examples=10_000, tokens_per_example=512, epochs=3),
        gpu=get_gpu(DEFAULT_GPU_ID),
        pricing=pricing,
    )
