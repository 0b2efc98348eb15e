"""The ledger's FSDP terms against FSDP2 measured on two CPU processes (docs/validation-fsdp.md).

``tools/validate/fsdp_cpu.py`` (``make validate``) stores MemTracker's peaks in
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


def _ledger(stored: dict, **training):  # noqa: ANN202 - (estimate, ledger)
    arch = architecture_from_hf_config(stored["config"])
    t = TrainingSetup(method="full", precision="bf16", num_gpus=2, sharding="fsdp", grad_accumulation=2,
                      micro_batch=1, seq_len=stored["tokens"], **training)
    return arch, estimate_memory(arch, t, GPU)


def test_the_stored_case_is_the_toy_model_counted_by_hand(stored: dict) -> None:
    # hidden 256, intermediate 512, 2 layers, vocabulary 8,192, untied: a layer is 4 x 256^2 + 3 x 256 x 512 + 2 x 256
    # = 655,872 parameters, the root 2 x 8,192 x 256 + 256 = 4,194,560, all 2 x 655,872 + 4,194,560 = 5,506,304
    arch = architecture_from_hf_config(stored["config"])
    assert arch.parameter_count() == stored["expected"]["params"] == 5_506_304
    assert stored["expected"]["root"] == 4_194_560 * 2 and stored["expected"]["layer"] == 655_872 * 2


def test_no_sync_keeps_every_gradient_unsharded_as_measured(stored: dict) -> None:
    # FSDP2 with set_requires_gradient_sync(False) on the first micro-batch: MemTracker's gradients at the peak
    # are every parameter's, unsharded, in bf16
    measured = stored["measured"]["root, sync at step"]["GRAD"]
    _, (_, led) = _ledger(stored, grad_sync="step", fsdp_wrap="layers")
    assert led.gradients_kept == measured == 5_506_304 * 2


def test_the_root_unit_is_held_unsharded_beside_the_shard_as_measured(stored: dict) -> None:
    # at the peak rank 0 holds its shard (5,506,304 x 2 B / 2), the root unit unsharded (4,194,560 x 2 B) and the
    # decoder layer being computed (655,872 x 2 B; on a GPU the ledger adds the prefetched next one, which CPU runs
    # without CUDA streams do not show)
    measured = stored["measured"]["root, sync at step"]["PARAM"]
    _, (_, led) = _ledger(stored, grad_sync="step", fsdp_wrap="layers")
    assert led.weights + led.fsdp_root_bytes + stored["expected"]["layer"] == measured
    _, (_, apart) = _ledger(stored, grad_sync="step", fsdp_wrap="separate-embeddings")
    assert apart.fsdp_root_bytes == 0


def test_synced_every_micro_batch_the_lm_heads_gradient_waits_beside_the_shards_as_measured(stored: dict) -> None:
    # the peak's gradients: the rank's shard of the first micro-batch (5,506,304 B) and the LM head's unsharded
    # gradient waiting in the root unit for the embedding's, 8,192 x 256 x 2 B = 4,194,304 B (the ledger's wait term)
    measured = stored["measured"]["root, sync every micro-batch"]["GRAD"]
    arch, (_, led) = _ledger(stored, grad_sync="micro-batch", fsdp_wrap="layers")
    assert led.gradients_kept + arch.vocab_size * arch.hidden_size * 2 == measured


def test_a_layer_unit_with_one_trainable_matrix_gets_its_whole_gradient_as_counted(stored: dict) -> None:
    # FSDP1 (use_orig_params=True), only q_proj (256 x 256 = 65,536 weights) trains in each decoder layer's unit:
    # the unit's flat gradient is its whole shard on rank 0, 655,872 / 2 = 327,936 elements. The ledger's term
    # for it: every frozen layer weight's gradient shard, (2 x 655,360 matrix weights) x 2 B / 2 GPUs, which
    # with the layers' norms (2 x 512) is the measured 2 units x 327,936 x 2 B
    units = stored["measured"]["fsdp1 mixed units"]
    assert [u["grad_numel"] for u in units] == [u["flat_param_numel"] for u in units] == [327_936, 327_936]
    assert {u["trainable_numel"] for u in units} == {65_536}
    arch = architecture_from_hf_config(stored["config"])
    # (BF16 adapters on both sides: in a shared FlatParameter they take the weights' dtype)
    base = dict(method="lora", lora_rank=8, lora_targets="q_v", num_gpus=2, sharding="fsdp", seq_len=stored["tokens"],
                adapter_precision="model-dtype")
    _, apart = estimate_memory(arch, TrainingSetup(**base, fsdp_wrap="layers"), GPU)
    _, mixed = estimate_memory(arch, TrainingSetup(**base, fsdp_wrap="blocks-with-adapters"), GPU)
    norms = arch.num_layers * 2 * arch.hidden_size * 2 // 2
    assert mixed.gradients - apart.gradients + norms == sum(u["grad_numel"] for u in units) * 2
