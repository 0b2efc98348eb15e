"""#17 item 4: LoRA on an HQQ-quantised base (transformers ``HqqConfig``; LLaMA-Factory ``quantization_method: hqq``,
ms-swift ``quant_method hqq``), from mobiusml/hqq @e0b1d00 (``hqq/core/quantize.py``, ``hqq/core/bitpack.py``).

Every expected number is worked by hand below from Llama 3.1 8B's config (hidden 4096, intermediate 14336, 32 layers,
32 query and 8 key/value heads of 128, vocabulary 128,256, untied head).
"""

from __future__ import annotations

import pytest

from tuneplan import catalog
from tuneplan.core.config_export import export_config
from tuneplan.core.estimate import estimate
from tuneplan.core.memory import estimate_memory, hqq_bytes_per_param, nf4_bytes_per_param
from tuneplan.core.scenario import TrainingSetup, method_word
from tuneplan.core.training_config import map_training_config

#: q 4096x4096 + k, v 4096x1024 + o 4096x4096 + gate, up, down 4096x14336, per layer, x 32 layers
LAYER_LINEAR = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336)
#: embeddings and head 128,256 x 4096 each, 2 norms of 4,096 per layer and the final one
NON_LAYER = 2 * 128_256 * 4096 + 65 * 4096
LARGEST = 4096 * 14336  # gate/up/down


def _plan(**kw: object):
    base = catalog.default_scenario()
    t = TrainingSetup.model_validate({**base.training.model_dump(), "method": "qlora", "quant_method": "hqq", **kw})
    return base.model_copy(update={"training": t})


def test_bytes_per_parameter_are_the_packed_codes_plus_a_scale_and_zero_per_group() -> None:
    assert hqq_bytes_per_param(4, 64, 2) == 0.5 + 4 / 64 == 0.5625  # two codes per byte, bf16 scale and zero
    assert hqq_bytes_per_param(8, 64, 2) == 1 + 4 / 64
    assert hqq_bytes_per_param(4, 128, 2) == 0.5 + 4 / 128
    assert hqq_bytes_per_param(4, 64, 4) == 0.5 + 8 / 64  # an fp32 compute dtype keeps fp32 scales and zeros


def test_the_weights_of_a_4_bit_base() -> None:
    s = _plan()
    _, led = estimate_memory(s.model, s.training, s.gpu)
    assert LAYER_LINEAR == 6_979_321_856 and NON_LAYER == 1_050_939_392
    # 6,979,321,856 x 0.5625 + 1,050,939,392 x 2 (embeddings, head and norms stay bf16)
    assert led.weights == pytest.approx(LAYER_LINEAR * 0.5625 + NON_LAYER * 2)
    s8 = _plan(quant_bits=8, quant_group_size=128)
    _, led8 = estimate_memory(s8.model, s8.training, s8.gpu)
    assert led8.weights == pytest.approx(LAYER_LINEAR * (1 + 4 / 128) + NON_LAYER * 2)


def test_dequantisation_keeps_three_full_copies_where_nf4_writes_one() -> None:
    # Quantizer.dequantize: W_r unpacked, W_r - zero, and (W_r - zero) * scale alive together: 3 x 2 B x the largest
    # matrix (4096 x 14336); bitsandbytes' dequantize_4bit writes one bf16 copy: 2 B
    s = _plan()
    _, hqq = estimate_memory(s.model, s.training, s.gpu)
    bnb = _plan(quant_method="bnb")
    _, nf4 = estimate_memory(bnb.model, bnb.training, bnb.gpu)
    assert hqq.temporaries - nf4.temporaries == pytest.approx((6 - 2) * LARGEST)


def test_every_quantised_linear_keeps_its_input() -> None:
    # HQQMatmulNoCacheMul.setup_context saves x. With LoRA on q and v only and dropout (lora_A reads its own copy),
    # a bitsandbytes base saves none of the base inputs; HQQ adds per token and layer: the q/k/v input (2 x 4096),
    # the gate/up input (2 x 4096) and down_proj's input (2 x 14336); o_proj's input is FlashAttention's saved output
    s = _plan(lora_targets="q_v", lora_dropout=0.05, grad_checkpointing=False)
    _, hqq = estimate_memory(s.model, s.training, s.gpu)
    bnb = _plan(quant_method="bnb", lora_targets="q_v", lora_dropout=0.05, grad_checkpointing=False)
    _, nf4 = estimate_memory(bnb.model, bnb.training, bnb.gpu)
    assert hqq.activation_per_layer_token - nf4.activation_per_layer_token == 2 * 4096 + 2 * 4096 + 2 * 14336


def test_time_charges_the_dequantisation_kernels() -> None:
    # checkpointing on: each matrix is dequantised in the forward, the recomputed forward and the backward (3 uses).
    # HQQ moves 14 B per weight and use, NF4 its packed bytes + 2 B written; HQQ launches 8 more operators per
    # matrix and use (7 matrices per layer, 32 layers)
    hqq = estimate(_plan())
    nf4 = estimate(_plan(quant_method="bnb"))

    def part(r, term: str, key: str) -> float:
        return next(x for x in r.time.step_terms if x.key == term).part(key)

    per_weight = 14.0 - (nf4_bytes_per_param(True) + 2.0)
    assert part(hqq, "other_kernels", "bytes") - part(nf4, "other_kernels", "bytes") == \
        pytest.approx(3 * LAYER_LINEAR * per_weight)
    assert part(hqq, "fixed", "ops") - part(nf4, "fixed", "ops") == pytest.approx(8 * 7 * 32 * 3)
    assert hqq.time.tokens_per_second < nf4.time.tokens_per_second


def test_names_notes_and_the_sharded_caution() -> None:
    s = _plan()
    assert method_word(s.training, s.model) == "HQQ 4-bit LoRA"
    sharded = _plan(num_gpus=2, sharding="fsdp")
    assert "plan.hqq_sharded" in {n.code for n in estimate(sharded).messages}
    assert "plan.hqq_sharded" not in {n.code for n in estimate(s).messages}


def test_llamafactory_and_ms_swift_hqq_import_and_export() -> None:
    lf = map_training_config({"model_name_or_path": "m", "stage": "sft", "finetuning_type": "lora",
                              "quantization_bit": 4, "quantization_method": "hqq"}, "llamafactory")
    assert (lf.updates["training.method"], lf.updates["training.quant_method"], lf.updates["training.quant_bits"]) \
        == ("qlora", "hqq", 4)
    bnb = map_training_config({"model_name_or_path": "m", "stage": "sft", "finetuning_type": "lora",
                               "quantization_bit": 4}, "llamafactory")
    assert bnb.updates["training.quant_method"] == "bnb"  # replaces an HQQ base the plan had
    swift = map_training_config({"model": "m", "tuner_type": "lora", "quant_method": "hqq", "quant_bits": 8}, "swift")
    assert (swift.updates["training.quant_method"], swift.updates["training.quant_bits"]) == ("hqq", 8)

    s = _plan(quant_group_size=128)
    doc = export_config(s, "llama-factory", model_ref="meta-llama/Llama-3.1-8B")
    assert (doc.document["quantization_method"], doc.document["quantization_bit"]) == ("hqq", 4)
    assert "double_quantization" not in doc.document and "export.not_expressible" in doc.codes  # group size 128
    sw = export_config(_plan(), "ms-swift", model_ref="meta-llama/Llama-3.1-8B")
    assert (sw.document["quant_method"], sw.document["quant_bits"]) == ("hqq", 4)
    for fmt in ("trl", "axolotl", "torchtune"):
        assert "export.not_expressible" in export_config(_plan(), fmt, model_ref="meta-llama/Llama-3.1-8B").codes


def test_stacked_experts_are_not_dequantised() -> None:
    # HQQ replaces nn.Linear only: on Qwen3-30B-A3B the time charges the non-expert matrices, 3 uses x 14 B each
    from tuneplan.core.memory import quantized_linear_weights

    s = _plan()
    moe = s.model_copy(update={"model": catalog.get_model("qwen3-30b-a3b").architecture})
    hqq = estimate(moe)
    lora = estimate(moe.model_copy(update={"training": moe.training.model_copy(update={"method": "lora"})}))
    arch = moe.model
    linear = sum(n * m.d_in * m.d_out for n, mods in arch.linear_modules() for m in mods if m.count == 1)
    assert quantized_linear_weights(arch) == linear < arch.layer_linear_params() / 10

    def kernel_bytes(r) -> float:
        return next(x for x in r.time.step_terms if x.key == "other_kernels").part("bytes")

    # (LoRA on the same 16-bit base moves everything else the same way; its unquantised experts are not cast)
    assert kernel_bytes(hqq) - kernel_bytes(lora) == pytest.approx(3 * linear * 14, rel=0.02)


def test_a_group_size_that_does_not_divide_the_matrices_cannot_run() -> None:
    # hqq Quantizer.quantize asserts numel % group_size == 0: 4096 x 1024 is not a multiple of 100
    r = estimate(_plan(quant_group_size=100))
    assert "plan.hqq_group_size" in {n.code for n in r.messages}
    assert "plan.hqq_group_size" not in {n.code for n in estimate(_plan(quant_group_size=128)).messages}


def test_ms_swift_hqq_at_other_bits_names_the_bits() -> None:
    r = map_training_config({"model": "m", "tuner_type": "lora", "quant_method": "hqq", "quant_bits": 2}, "swift")
    assert r.updates["training.method"] == "lora"
    status = {i.key: i.status for i in r.items}
    assert status["quant_bits"] == "unsupported" and status.get("quant_method") != "unsupported"
