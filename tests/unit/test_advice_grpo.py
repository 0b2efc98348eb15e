"""GRPO advice (issue #18, core/advice.py): a colocated vLLM engine's share is what a GRPO plan can give back —
sleep mode, the smallest share that holds the engine, or a server on its own GPU."""

from __future__ import annotations

import pytest

from tuneplan import catalog
from tuneplan.core.advice import _vllm_share_needed, apply_changes, suggest
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.estimate import estimate
from tuneplan.core.scenario import GpuSpec, Scenario

GPU = GpuSpec(id="test", name="Test 80 GiB", memory_gib=80.0, bf16_tflops=100, memory_bandwidth_gbps=1000)


def _plan(**training: object) -> Scenario:
    arch = ModelArchitecture(name="tiny", hidden_size=64, num_layers=2, num_attention_heads=4, num_kv_heads=2,
                             head_dim=16, intermediate_size=128, vocab_size=1000)
    base = catalog.default_scenario()
    fields = dict(method="full", workload="grpo", micro_batch=2, grad_accumulation=2, seq_len=48, completion_tokens=16,
                  sequence_mode="fixed", generation_engine="vllm-colocate", vllm_memory_share=0.5)
    t = base.training.model_copy(update={**fields, **training})
    return Scenario.model_validate({**base.model_dump(), "model": arch.model_dump(), "model_id": "",
                                    "gpu": GPU.model_dump(), "training": t.model_dump()})


def test_the_share_a_colocated_engine_needs_by_hand() -> None:
    # tiny model: weights 202,048 x 2 B = 404,096; a 4,096-token prefill chunk of one no-grad layer's 1,024 B per
    # token (residual 128 + norm output 128 + three MLP intermediates 768) = 4,194,304; the step's 4 rows x 48
    # tokens x 256 B of KV = 49,152: 4,647,552 B of 80 GiB is under 5 %, so the floor, 0.05
    assert _vllm_share_needed(_plan()) == 0.05
    # an 8B model on a 24 GiB card needs much more: Llama 3.1 8B's 8,030,261,248 bf16 weights alone are 0.62 of
    # 23.99 GiB
    big = catalog.default_scenario()
    t = big.training.model_copy(update=dict(method="lora", workload="grpo", generation_engine="vllm-colocate",
                                            micro_batch=1, seq_len=1024, completion_tokens=512))
    share = _vllm_share_needed(big.model_copy(update={"training": t}))
    weights = 8_030_261_248 * 2
    assert share >= weights / (big.gpu.memory_gib * 2**30)
    assert share == pytest.approx(round(share / 0.05) * 0.05)  # in steps of 0.05


def test_a_colocated_plan_is_offered_sleep_a_smaller_share_and_a_server() -> None:
    tips = {tip.key: tip for tip in suggest(_plan())}
    assert tips["vllm_sleep"].changes == {"training.vllm_sleep": True}
    assert tips["vllm_share"].changes == {"training.vllm_memory_share": 0.05}
    assert tips["vllm_share"].title == "Give vLLM 5% of the card"
    assert tips["vllm_server"].changes == {"training.generation_engine": "vllm-server", "training.vllm_server_gpus": 1}
    # 0.45 x 80 GiB given back by the smaller share
    assert tips["vllm_share"].saved_bytes == pytest.approx(0.45 * 80 * 2**30, rel=1e-6)
    # sleep mode: the share is held only while generating, beside weights and optimizer states, so what it gives
    # back is what training adds beyond those (the tiny model's gradients, activations and loss buffers)
    asleep = estimate(apply_changes(_plan(), tips["vllm_sleep"].changes))
    assert asleep.memory.peak_phase == "generation"
    assert 0 < tips["vllm_sleep"].saved_bytes < 0.01 * 80 * 2**30
    # not offered for other engines
    assert not {"vllm_sleep", "vllm_share", "vllm_server"} & {t.key for t in suggest(_plan(generation_engine="transformers"))}
