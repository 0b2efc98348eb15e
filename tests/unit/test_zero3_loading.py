"""#17 item 2: loading the model under DeepSpeed ZeRO-3, with and without ``deepspeed.zero.Init``.

Without zero.Init every rank holds the whole model on its GPU before the engine partitions it (DeepSpeed
``engine.py`` ``_configure_distributed_model``: ``if not (self.dont_change_device or is_zero_init_model):
self.module.to(self.device)``, @edaa722); transformers never builds a quantised model under zero.Init
(``get_init_context``: ``is_deepspeed_zero3_enabled() and not is_quantized``).

Llama 3.1 70B (h 8192, 80 layers, intermediate 28,672, 8 KV heads of 128, vocabulary 128,256, untied):
70,553,706,496 parameters, 141,107,412,992 B in bf16.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tuneplan import catalog
from tuneplan.core.advice import apply_changes, suggest
from tuneplan.core.estimate import estimate
from tuneplan.core.training_command import map_training_command

H, LAYERS, INTER, KV, V = 8192, 80, 28_672, 1024, 128_256
PARAMS = LAYERS * (2 * H * H + 2 * H * KV + 3 * H * INTER + 2 * H) + 2 * V * H + H


def plan(**training):
    s = catalog.default_scenario()
    s = s.model_copy(update={"model": catalog.get_model("llama-3.1-70b").architecture, "gpu": catalog.get_gpu("a100_80gb_sxm")})
    base = {"method": "lora", "num_gpus": 8, "sharding": "zero3"}
    return s.model_copy(update={"training": s.training.model_copy(update={**base, **training})})


def test_the_parameter_count_by_hand():
    assert PARAMS == 70_553_706_496
    assert plan().model.parameter_count() == PARAMS


def test_without_zero_init_every_gpu_first_holds_the_whole_bf16_model():
    m = estimate(plan(zero_init=False)).memory
    assert m.peak_phase == "model loading"
    weights = next(c for c in m.components if c.key == "weights")
    assert weights.bytes == pytest.approx(2 * PARAMS)  # 141,107,412,992 B: more than the 80 GB card
    for key in ("gradients", "optimizer", "activations", "logits"):
        assert next(c for c in m.components if c.key == key).bytes == 0
    assert not m.fits and m.low_bytes == m.high_bytes == m.total_bytes  # stored bytes, no error band


def test_with_zero_init_the_step_is_the_peak_and_loading_costs_nothing():
    with_init = estimate(plan()).memory
    assert with_init.peak_phase != "model loading" and with_init.fits
    assert with_init.total_bytes < 2 * PARAMS / 8 + 30 * 2**30  # the partition (1/8 of the model) and a step


def test_a_quantised_base_loads_whole_under_zero3_whatever_zero_init_says():
    # QLoRA: NF4 layer matrices (4.127 bits with double quantisation) + bf16 embeddings, head and norms on every GPU
    layer = LAYERS * (2 * H * H + 2 * H * KV + 3 * H * INTER)
    nf4 = layer * (4 + 8 / 64 + 32 / (64 * 256)) / 8 + (PARAMS - layer) * 2
    m = estimate(plan(method="qlora")).memory
    assert m.peak_phase == "model loading"
    assert next(c for c in m.components if c.key == "weights").bytes == pytest.approx(nf4)


def test_one_gpu_or_zero2_has_no_loading_moment():
    assert estimate(plan(sharding="zero2", zero_init=False)).memory.peak_phase != "model loading"
    assert estimate(plan(num_gpus=1, sharding="none", zero_init=False)).memory.peak_phase != "model loading"


def test_advice_leads_with_zero_init():
    s = plan(zero_init=False)
    tips = suggest(s, [])
    assert tips[0].key == "zero_init" and tips[0].fits
    assert tips[0].changes == {"training.zero_init": True}
    assert estimate(apply_changes(s, tips[0].changes)).memory.total_bytes == pytest.approx(tips[0].total_bytes)


def test_accelerate_zero3_init_flag_imports():
    r = map_training_command("accelerate launch --use_deepspeed --zero_stage 3 --zero3_init_flag false "
                             "--num_processes 8 train.py --bf16")
    assert r.updates["training.zero_init"] is False and r.updates["training.sharding"] == "zero3"


def test_cli_says_the_loading_peak():
    out = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--model", "llama-3.1-70b", "--gpu",
                          "a100_80gb_sxm", "--gpus", "8", "--sharding", "zero3", "--method", "lora", "--no-zero-init"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "peak during model loading" in out.stdout and "Build the model under deepspeed.zero.Init" in out.stdout
