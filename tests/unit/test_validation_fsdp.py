"""The ledger's FSDP terms against FSDP measured on two CPU processes (docs/validation-fsdp.md).

``tools/validate/fsdp_cpu.py`` (``make validate``) stores MemTracker's categories at the peak in
``docs/validation/fsdp_cpu.json``; these tests hold the current ledger to them without torch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tuneplan.core.architecture import architecture_from_hf_config
from tuneplan.core.memory import estimate_memory
from tuneplan.core.scenario import GpuSpec, TrainingSetup

STORED = Path(__file__).resolve().parents[2] / "docs" / "validation" / "fsdp_cpu.json"
GPU = GpuSpec(id="test80", name="Test 80 GiB", memory_gib=80.0, bf16_tflops=100)


@pytest.fixture(scope="module")
def stored() -> dict:
    return json.loads(STORED.read_text("utf-8"))


def _estimate(stored: dict, **training):  # noqa: ANN202 - (architecture, estimate, ledger)
    arch = architecture_from_hf_config(stored["config"])
    t = TrainingSetup(**{"method": "full", "precision": "bf16", "num_gpus": 2, "sharding": "fsdp",
                         "grad_accumulation": 2, "micro_batch": 1, "seq_len": stored["tokens"], **training})
    mem, led = estimate_memory(arch, t, GPU)
    return arch, mem, led


def test_the_stored_case_is_the_toy_model_counted_by_hand(stored: dict) -> None:
    # hidden 256, intermediate 512, 2 layers, vocabulary 8,192, untied: a layer is 4 x 256^2 + 3 x 256 x 512 + 2 x 256
    # = 655,872 parameters, the root 2 x 8,192 x 256 + 256 = 4,194,560, all 2 x 655,872 + 4,194,560 = 5,506,304
    arch = architecture_from_hf_config(stored["config"])
    assert arch.parameter_count() == stored["expected"]["params"] == 5_506_304
    assert arch.outer_params() == 4_194_560
    assert stored["expected"]["root"] == 4_194_560 * 2 and stored["expected"]["layer"] == 655_872 * 2


def test_no_sync_keeps_every_gradient_unsharded_as_measured(stored: dict) -> None:
    # FSDP2 with set_requires_gradient_sync(False) on the first micro-batch: MemTracker's gradients at the peak
    # (micro-batch 2's forward) are every parameter's, unsharded, in BF16: the ledger's kept gradients
    measured = stored["measured"]["root, sync at step"]["GRAD"]
    _, mem, led = _estimate(stored, grad_sync="step", fsdp_wrap="layers")
    assert led.gradients_kept == measured == 5_506_304 * 2
    assert mem.peak_phase != "optimizer step" and mem.component("gradients").bytes >= measured


def test_the_weights_while_computing_are_the_shard_the_root_unit_and_the_gathered_layers(stored: dict) -> None:
    # the ledger's weights outside the optimizer step: the shard (5,506,304 B), the root unit unsharded (4,194,560 x
    # 2 B) and two gathered layers (2 x 655,872 x 2 B, the one computing and the prefetched next). The CPU run,
    # without CUDA streams, does not prefetch: its peak holds the shard, the root and one layer
    measured = stored["measured"]["root, sync at step"]["PARAM"]
    _, mem, led = _estimate(stored, grad_sync="step", fsdp_wrap="layers")
    assert mem.peak_phase != "optimizer step"
    assert mem.component("weights").bytes - stored["expected"]["layer"] == measured
    _, apart, apart_led = _estimate(stored, grad_sync="step", fsdp_wrap="separate-embeddings")
    assert apart_led.fsdp_root_bytes == 0 and apart.component("weights").bytes < mem.component("weights").bytes


def test_the_root_units_gradients_before_its_reduce_scatter_are_not_more_than_measured(stored: dict) -> None:
    # synced every micro-batch, the measured peak is the root's reduce-scatter: beside the shards, 6 vocabulary x
    # hidden BF16 matrices of gradient buffers on CPU; the ledger counts 4 (the embedding's and LM head's
    # gradients and their flat copy, 4 x 8,192 x 256 x 2 B = 16,777,216 B)
    m = stored["measured"]["root, sync every micro-batch"]
    buffers = m["GRAD"] + m["TEMP"] - stored["expected"]["shard"]
    _, _, led = _estimate(stored, grad_sync="micro-batch", fsdp_wrap="layers")
    assert led.fsdp_root_grad_end == 16_777_216
    assert led.fsdp_root_grad_end <= buffers
    _, _, apart = _estimate(stored, grad_sync="micro-batch", fsdp_wrap="separate-embeddings")
    assert apart.fsdp_root_grad_end == 0


def test_a_layer_unit_with_one_trainable_matrix_gets_its_whole_gradient_as_counted(stored: dict) -> None:
    # FSDP1 (use_orig_params=True), only q_proj (256 x 256 = 65,536 weights, first in the unit) trains in each
    # decoder layer's unit: the unit's flat gradient is its whole shard on rank 0, 655,872 / 2 = 327,936 elements,
    # and all 262,400 elements after q_proj, frozen weights, hold nonzero gradients. The ledger's term: every frozen
    # layer weight's gradient shard, 2 x 655,360 matrix weights x 2 B / 2 GPUs, which with the layers' norms
    # (2 x 512 x 2 B / 2) is the measured 2 units x 327,936 x 2 B
    units = stored["measured"]["fsdp1 mixed units"]
    assert [u["grad_numel"] for u in units] == [u["flat_param_numel"] for u in units] == [327_936, 327_936]
    assert [u["frozen_grad_nonzero"] for u in units] == [u["frozen_grad_numel"] for u in units] == [262_400, 262_400]
    arch = architecture_from_hf_config(stored["config"])
    # (BF16 adapters on both sides: in a shared FlatParameter they take the weights' dtype)
    base = dict(method="lora", lora_rank=8, lora_targets="q_v", num_gpus=2, sharding="fsdp", seq_len=stored["tokens"],
                adapter_precision="model-dtype")
    _, apart = estimate_memory(arch, TrainingSetup(**base, fsdp_wrap="layers"), GPU)
    _, mixed = estimate_memory(arch, TrainingSetup(**base, fsdp_wrap="blocks-with-adapters"), GPU)
    norms = arch.num_layers * 2 * arch.hidden_size * 2 // 2
    assert mixed.gradients - apart.gradients + norms == sum(u["grad_numel"] for u in units) * 2
