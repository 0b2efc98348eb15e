"""CPU offload in the memory ledger, as each framework does it (issue #17).

DeepSpeed cannot offload parameters below ZeRO stage 3 (``zero_optimization.offload_param``: "Valid only with
stage 3"); with ZeRO-1/2, ``cpu_offload`` is ``offload_optimizer`` (ZeRO-Offload, arXiv:2101.06840): the fp32
master partition and the optimizer states are pinned CPU tensors, the 16-bit model stays whole on every GPU, and
gradients pass through the reduce bucket to a pinned fp32 CPU buffer (deepspeed/runtime/zero/stage_1_and_2.py,
microsoft/DeepSpeed 38327e07: ``weights_partition = get_accelerator().pin_memory(weights_partition)``;
``async_inplace_copy_grad_to_fp32_buffer_from_gpu``: ``param.grad = None  #offload only``; ``backward``:
``torch.empty(int(self.reduce_bucket_size), dtype=self.dtype)``; ``temp_grad_buffer_for_gpu_offload``:
``torch.zeros(largest_param_numel, device=<GPU>, dtype=self.dtype)``). ZeRO-3 and FSDP offload the parameters too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tuneplan.core.architecture import architecture_from_hf_config
from tuneplan.core.memory import DEEPSPEED_REDUCE_BUCKET_ELEMENTS, estimate_memory
from tuneplan.core.scenario import GpuSpec, TrainingSetup

REF = Path(__file__).resolve().parents[3] / "shared" / "reference" / "measurements" / "configs"
LLAMA_3_8B = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
              "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": False}
H100 = GpuSpec(id="h100", name="H100 80GB", memory_gib=80.0)

P = 8_030_261_248  # Llama-3.1-8B parameters (HF safetensors total_size 16,060,522,496 B / 2)
EMBED = 128_256 * 4_096  # 525,336,576: embed_tokens / lm_head, the largest tensor
BUCKET = 500_000_000  # DeepSpeed's default reduce_bucket_size (zero/config.py: pp_int(5e8)), in elements


def _llama_31_8b():
    path = REF / "llama-3.1-8b.json"
    cfg = json.loads(path.read_text()) if path.exists() else LLAMA_3_8B
    arch = architecture_from_hf_config(cfg)
    assert arch.parameter_count() == P
    return arch


def _setup(**kw) -> TrainingSetup:
    base = {"method": "full", "precision": "bf16", "master_weights": "fp32", "optimizer": "adamw",
            "num_gpus": 4, "sharding": "zero2", "cpu_offload": True}
    return TrainingSetup(**{**base, **kw})


def test_bucket_constant_is_deepspeeds_default():
    assert DEEPSPEED_REDUCE_BUCKET_ELEMENTS == BUCKET


def test_zero2_offload_keeps_the_bf16_model_on_every_gpu_and_no_optimizer_states():
    # Llama-3.1-8B full fine-tuning, bf16 with an fp32 master copy, AdamW, ZeRO-2 on 4 GPUs, offload_optimizer:
    # * weights: DeepSpeed's bf16 module, whole on each GPU (ZeRO-2 does not partition parameters):
    #   8,030,261,248 x 2 B = 16,060,522,496 B (not / 4, and no fp32 model or autocast copies)
    # * optimizer: the fp32 master partition and both AdamW moments are pinned CPU tensors: 0 B on the GPU
    # * gradients: the reduce bucket 500,000,000 x 2 B = 1,000,000,000 B + temp_grad_buffer_for_gpu_offload of the
    #   largest trainable tensor 525,336,576 x 2 B = 1,050,673,152 B (both always there during backward:
    #   2,050,673,152 B) + the gradient autograd has just produced, at most that tensor again:
    #   1,000,000,000 + 2 x 1,050,673,152 = 3,101,346,304 B
    arch = _llama_31_8b()
    est, led = estimate_memory(arch, _setup(), H100)
    assert led.weights == 16_060_522_496
    assert led.optimizer == 0 and led.optimizer_paged == 0 and led.step_temporaries == 0
    assert est.component("optimizer").bytes == 0
    assert led.gradients == 3_101_346_304
    assert led.gradients_kept == 2_050_673_152
    assert est.component("weights").bytes == 16_060_522_496  # nothing gathered below stage 3
    assert est.component("gradients").bytes in {2_050_673_152, 3_101_346_304}
    # the formula strings carry the same numbers
    assert "8.03B params x 2 B on every GPU" in led.formulas["weights"]
    assert "offloaded to CPU" in led.formulas["optimizer"]
    assert "500M x 2 B" in led.formulas["gradients"] and "525.3M x 2 B" in led.formulas["gradients"]


def test_zero2_offload_against_zero2_without_offload():
    # Without offload the same run keeps DeepSpeed's bf16 module (8,030,261,248 x 2 B) plus the fp32 master partition
    # (8,030,261,248 x 4 B / 4 GPUs) and its AdamW moments sharded 4 ways (2 x 8,030,261,248 x 4 B / 4 =
    # 16,060,522,496 B): offload moves the master partition and the moments to the CPU
    arch = _llama_31_8b()
    _, on = estimate_memory(arch, _setup(), H100)
    _, off = estimate_memory(arch, _setup(cpu_offload=False), H100)
    assert off.optimizer == 2 * P * 4 / 4
    assert off.weights == P * 2 + P * 4 / 4
    assert on.weights == P * 2 < off.weights


def test_zero_offload_on_one_gpu_is_the_same_ledger():
    # ZeRO-Offload's single-GPU case (the paper trains 13B on one V100): the weights, gradient buffers and (absent)
    # optimizer states do not depend on the GPU count below stage 3
    arch = _llama_31_8b()
    _, four = estimate_memory(arch, _setup(), H100)
    _, one = estimate_memory(arch, _setup(num_gpus=1), H100)
    assert (one.weights, one.optimizer, one.gradients) == (four.weights, four.optimizer, four.gradients)


def test_zero1_offload_keeps_every_16bit_gradient_until_the_boundary():
    # ZeRO-1 registers no gradient hooks (stage_1_and_2.py: only `if self.partition_gradients or self.overlap_comm`),
    # so all bf16 gradients stay in .grad until reduce_gradients at the accumulation boundary moves them through the
    # bucket to the CPU: 8,030,261,248 x 2 B + 1,000,000,000 B bucket + 1,050,673,152 B staging buffer
    # = 16,060,522,496 + 2,050,673,152 = 18,111,195,648 B
    arch = _llama_31_8b()
    _, led = estimate_memory(arch, _setup(sharding="zero1"), H100)
    assert led.weights == 16_060_522_496
    assert led.optimizer == 0
    assert led.gradients == 18_111_195_648
    assert led.gradients_kept == 2_050_673_152  # at the loss's backward: the buffers, no gradient yet
    _, acc = estimate_memory(arch, _setup(sharding="zero1", grad_accumulation=4), H100)
    assert acc.gradients_kept == 18_111_195_648  # accumulated in .grad on the GPU between micro-batches
    _, acc2 = estimate_memory(arch, _setup(grad_accumulation=4), H100)
    assert acc2.gradients_kept == 2_050_673_152  # ZeRO-2 accumulates on the CPU (async_accumulate_grad_in_cpu_via_gpu)


def test_zero2_offload_lora_keeps_16bit_base_and_adapters():
    # LoRA r=16 on q and v of Llama-3.1-8B: 32 layers x 16 x (4,096 + 4,096 + 4,096 + 1,024) = 6,815,744 adapter
    # parameters. With an fp32 master model under DeepSpeed the module is bf16 on the GPU: base 8,030,261,248 x 2 B,
    # adapters 6,815,744 x 2 B; their fp32 masters and the moments are on the CPU
    arch = _llama_31_8b()
    _, led = estimate_memory(arch, _setup(method="lora", lora_targets="q_v", lora_rank=16), H100)
    assert led.weights == P * 2
    assert led.adapters == 6_815_744 * 2
    assert led.optimizer == 0
    # largest adapter tensor: lora_A of q_proj, 16 x 4,096 = 65,536 elements
    assert led.gradients == BUCKET * 2 + 2 * 65_536 * 2


def test_zero3_offload_still_offloads_the_weights():
    # ZeRO-3 (offload_param + offload_optimizer) keeps only two gathered layers and the root's embeddings/LM head on
    # the GPU: a layer is 218,103,808 matrix parameters + 2 x 4,096 norms = 218,112,000 x 2 B = 436,224,000 B;
    # 2 x 436,224,000 + (2 x 525,336,576 + 4,096) x 2 B = 872,448,000 + 2,101,354,496 = 2,973,802,496 B
    arch = _llama_31_8b()
    for shard in ("zero3", "fsdp"):
        _, led = estimate_memory(arch, _setup(sharding=shard, master_weights="none", num_gpus=8), H100)
        assert led.weights == 2_973_802_496
        assert led.weights < P * 2 / 4
        assert led.optimizer == 0
        assert led.formulas["weights"].startswith("offloaded to CPU")


@pytest.mark.parametrize("shard", ["ddp", "none"])
@pytest.mark.parametrize("method", ["full", "lora", "qlora"])
def test_offload_without_deepspeed_meaning_keeps_todays_ledger(shard, method):
    # DDP or a layer split (HF device_map) with cpu_offload: no DeepSpeed meaning; today's full offload is kept and
    # nothing crashes
    arch = _llama_31_8b()
    est, led = estimate_memory(arch, _setup(sharding=shard, method=method), H100)
    assert led.optimizer == 0
    assert led.formulas["weights"].startswith("offloaded to CPU")
    assert est.total_bytes > 0
