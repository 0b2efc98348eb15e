"""#17 item 4: LoRA on a bitsandbytes 8-bit base (``load_in_8bit``, LLM.int8), counted as bitsandbytes stores and runs it.

Sources (bitsandbytes @95f9af3): ``Int8Params`` keeps int8 codes ``CB`` (1 B per weight) and one fp32 absmax per output
row ``SCB``; ``MatMul8bitLt.forward`` casts the input to fp16, quantises it row-wise (``int8_vectorwise_quant``),
multiplies in int8 into an int32 product and rescales it; its backward multiplies the output gradient by a 16-bit copy
of the dequantised weight (``state.CB.to(dtype_A, copy=True)``).

The plan is the catalog's default, Llama 3.1 8B (h 4096, 8 KV heads of 128, intermediate 14,336, vocabulary 128,256,
32 layers, untied embeddings, no biases), micro-batch 1 x 2,048 packed tokens, bf16, checkpointing on.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tuneplan import catalog
from tuneplan.core.config_export import export_config
from tuneplan.core.estimate import blocking_notes, estimate
from tuneplan.core.memory import estimate_memory, int8_bytes_per_param, int8_matmul_transient
from tuneplan.core.scenario import auto_name
from tuneplan.core.steptime import step_time
from tuneplan.core.training_config import map_training_config

H, KV, INTER, V, LAYERS = 4096, 1024, 14_336, 128_256, 32
#: one layer's matrices as (d_in, d_out): q, k, v, o, gate, up, down
MATRICES = [(H, H), (H, KV), (H, KV), (H, H), (H, INTER), (H, INTER), (INTER, H)]
LAYER_PARAMS = sum(i * o for i, o in MATRICES)  # 218,103,808
ROW_SCALES = sum(4 * o for _, o in MATRICES)  # 4 B per output row: 172,032 B per layer


def plan(**training):
    s = catalog.default_scenario()
    return s.model_copy(update={"training": s.training.model_copy(update=training)})


def ledger(**training):
    s = plan(**training)
    return estimate_memory(s.model, s.training, s.gpu)[1]


def test_int8_bytes_per_weight_are_one_byte_plus_a_fp32_scale_per_row():
    assert LAYER_PARAMS == 218_103_808 and ROW_SCALES == 172_032
    arch = catalog.default_scenario().model
    assert int8_bytes_per_param(arch) == pytest.approx((LAYER_PARAMS + ROW_SCALES) / LAYER_PARAMS)


def test_an_8bit_base_holds_int8_layers_and_16bit_embeddings_head_and_norms():
    # layers: 32 x (218,103,808 B of codes + 172,032 B of row scales) = 6,984,826,880 B;
    # embeddings and head 2 x 128,256 x 4096, norms 2 x 4096 per layer + the final 4096, all in bf16 (2 B):
    # 2 x (1,050,673,152 + 266,240) = 2,101,878,784 B
    layers = LAYERS * (LAYER_PARAMS + ROW_SCALES)
    others = 2 * (2 * V * H + 2 * H * LAYERS + H)
    assert layers == 6_984_826_880 and others == 2_101_878_784
    assert ledger(method="qlora", quant_bits=8).weights == pytest.approx(layers + others)
    # the NF4 base of the same plan holds the same parameters at 4 + 8/64 + 32/(64 x 256) bits (double quantisation)
    nf4 = LAYERS * LAYER_PARAMS * (4 + 8 / 64 + 32 / (64 * 256)) / 8
    assert ledger(method="qlora", quant_bits=4).weights == pytest.approx(nf4 + others)


def test_the_int8_matmul_working_set_by_hand():
    arch = catalog.default_scenario().model
    # gate/up at 2,048 tokens, bf16 model: the int8 codes (1 B x 4096) beside the int32 product (4 B x 14,336), the
    # fp16 dequantised result (2 B) and its bf16 copy: 2048 x (4096 + 6 x 14,336) = 184,549,376 B; the input side
    # (fp16 copy 2 B + codes 1 B + abs 2 B + mask 1 B = 6 B x 4096) and down_proj's (6 x 14,336 = 86,016 per
    # token) are smaller, and so is the backward's bf16 weight copy 2 x 4096 x 14,336 = 117,440,512 B
    assert int8_matmul_transient(arch, 2048) == 2048 * (H + 6 * INTER) == 184_549_376
    # at 512 tokens the weight copy of the backward is the larger
    assert int8_matmul_transient(arch, 512) == 2 * H * INTER == 117_440_512
    # a pass without gradients has no backward: only the forward's 512 x 90,112
    assert int8_matmul_transient(arch, 512, backward=False) == 512 * (H + 6 * INTER) == 46_137_344
    # an fp16 model casts nothing: 4 B per input feature, d_in + 4 d_out on the output side
    assert int8_matmul_transient(arch, 2048, fp16=True) == 2048 * (H + 4 * INTER) == 125_829_120


def test_the_8bit_transient_replaces_the_nf4_dequantised_copy():
    # NF4's transient is the dequantised bf16 copy of the largest matrix (2 x 4096 x 14,336); LLM.int8's at 2,048
    # tokens is 184,549,376 B: the temporaries differ by exactly the difference, 67,108,864 B
    four, eight = ledger(method="qlora", quant_bits=4), ledger(method="qlora", quant_bits=8)
    assert eight.temporaries - four.temporaries == pytest.approx(184_549_376 - 2 * H * INTER) == 67_108_864


def test_the_int8_kernels_bytes_in_the_step_by_hand():
    # bf16 model, per token and layer: 15 B per input feature (fp16 cast read 2 + write 2, abs read 2 + write 2,
    # the outlier compare read 2 + write 1, any read 1, quantisation read 2 + write 1) and 12 B per output feature
    # (int32 product +2 over a 16-bit one, dequantisation read 4 + write 2, bf16 cast read 2 + write 2):
    # 15 x 38,912 + 12 x 43,008 = 1,099,776 B. With checkpointing two forwards of 2,048 tokens, and one input
    # gradient per weight (copy read 1 + write 2, in-place scale read 2 + write 2 = 7 B):
    # 2 x 2048 x 32 x 1,099,776 + 7 x 32 x 218,103,808
    per_token = 15 * sum(i for i, _ in MATRICES) + 12 * sum(o for _, o in MATRICES)
    assert per_token == 1_099_776
    expected = 2 * 2048 * LAYERS * per_token + 7 * LAYERS * LAYER_PARAMS
    assert expected == 193_005_092_864
    s = plan(method="qlora", quant_bits=8)
    st = step_time(s.model, s.training, s.gpu, 2048.0)
    assert st.term("other_kernels").part("dequant_bytes") == pytest.approx(expected)
    # NF4's dequantisations (3 uses of every weight at 0.5159 + 2 B) are fewer bytes at this token count
    s4 = plan(method="qlora", quant_bits=4)
    assert step_time(s4.model, s4.training, s4.gpu, 2048.0).term("other_kernels").part("dequant_bytes") < expected


def test_fsdp_refuses_an_8bit_base_but_data_parallel_runs_it():
    s = plan(method="qlora", quant_bits=8, num_gpus=2, sharding="fsdp")
    assert [n.code for n in blocking_notes(estimate(s))] == ["plan.int8_fsdp"]
    for sharding in ("ddp", "zero2"):
        ok = plan(method="qlora", quant_bits=8, num_gpus=2, sharding=sharding)
        assert not blocking_notes(estimate(ok))
    # the 4-bit base shards under FSDP (bnb_4bit_quant_storage)
    assert not blocking_notes(estimate(plan(method="qlora", quant_bits=4, num_gpus=2, sharding="fsdp")))


def test_plan_name_says_8bit_lora():
    s = plan(method="qlora", quant_bits=8)
    assert auto_name(s) == "Llama 3.1 8B 8-bit LoRA on RTX 4090"
    assert auto_name(plan(method="qlora", quant_bits=4)) == "Llama 3.1 8B QLoRA on RTX 4090"


@pytest.mark.parametrize(("data", "fmt"), [
    ({"finetuning_type": "lora", "quantization_bit": 8, "quantization_method": "bnb"}, "llamafactory"),
    ({"adapter": "lora", "load_in_8bit": True, "base_model": "m"}, "axolotl"),
    ({"use_peft": True, "load_in_8bit": True, "per_device_train_batch_size": 2, "output_dir": "o"}, "hf"),
])
def test_imports_read_an_8bit_base(data, fmt):
    r = map_training_config(data, fmt)
    assert r.updates["training.method"] == "qlora" and r.updates["training.quant_bits"] == 8
    quant_keys = {"quantization_bit", "quantization_method", "load_in_8bit"}
    assert [i.status for i in r.items if i.key in quant_keys] and all(
        i.status != "unsupported" for i in r.items if i.key in quant_keys)


def test_imports_of_a_4bit_base_set_4_bits():
    r = map_training_config({"adapter": "qlora", "load_in_4bit": True, "base_model": "m"}, "axolotl")
    assert r.updates["training.quant_bits"] == 4


@pytest.mark.parametrize(("fmt", "key", "value"), [
    ("llama-factory", "quantization_bit", 8), ("axolotl", "load_in_8bit", True), ("trl", "load_in_8bit", True),
    ("ms-swift", "quant_bits", 8),
])
def test_exports_write_the_8bit_base(fmt, key, value):
    doc = export_config(plan(method="qlora", quant_bits=8), fmt)
    assert doc.document[key] == value
    assert "load_in_4bit" not in doc.document and "double_quantization" not in doc.document
    assert "bnb_4bit_use_double_quant" not in doc.document
    assert "training.quant_bits" in doc.expressed


def test_axolotl_export_round_trips_the_8bit_base():
    doc = export_config(plan(method="qlora", quant_bits=8), "axolotl")
    assert doc.document["adapter"] == "lora"
    r = map_training_config(doc.document, "axolotl")
    assert r.updates["training.method"] == "qlora" and r.updates["training.quant_bits"] == 8


def test_torchtune_export_says_it_has_no_8bit_base():
    doc = export_config(plan(method="qlora", quant_bits=8), "torchtune")
    assert any(n.params.get("field") == "training.quant_bits" for n in doc.notes)


def test_cli_quant_bits(tmp_path):
    run = [sys.executable, "-m", "tuneplan", "estimate"]
    out = subprocess.run([*run, "--quant-bits", "8"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "8-bit LoRA" in out.stdout and "LLM.int8" in out.stdout
    bad = subprocess.run([*run, "--quant-bits", "5"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_advice_offers_the_4bit_base_to_an_8bit_plan_that_does_not_fit():
    from tuneplan.catalog import get_gpu
    from tuneplan.core.advice import apply_changes, suggest

    # Llama 3.1 8B on an 8-bit base needs ~3.4e9 B more than on NF4: 4 rows of 2,048 tokens on a 16 GB card do not fit
    s = plan(method="qlora", quant_bits=8, micro_batch=4)
    s = s.model_copy(update={"gpu": get_gpu("rtx4080")})
    assert not estimate(s).memory.fits
    tip = next(t for t in suggest(s, []) if t.key == "qlora")
    assert tip.changes == {"training.method": "qlora", "training.quant_bits": 4}
    after = estimate(apply_changes(s, tip.changes)).memory.total_bytes
    assert after == pytest.approx(tip.total_bytes) and after < estimate(s).memory.total_bytes - 3e9


def _stored(quantization: str, bits: int):
    """The default plan's model as a pre-quantised checkpoint: its layer matrices stored at ``bits`` bits."""
    from tuneplan.core.checkpoint import CheckpointWeights

    s = plan(method="lora")
    layers = LAYERS * LAYER_PARAMS
    ckpt = CheckpointWeights(parameters=s.model.parameter_count(), quantization=quantization, bits=bits,
                             quantized_parameters=layers, quantized_bytes=int(layers * bits / 8))
    return s.model_copy(update={"model": s.model.model_copy(update={"checkpoint": ckpt})})


def test_a_stored_bitsandbytes_8bit_checkpoint_runs_int8_kernels_and_fsdp_refuses_it():
    s = _stored("bnb-8bit", 8)
    t = s.training.model_copy(update={"num_gpus": 2, "sharding": "fsdp"})
    assert "plan.int8_fsdp" in [n.code for n in blocking_notes(estimate(s.model_copy(update={"training": t})))]
    st = step_time(s.model, s.training, s.gpu, 2048.0)
    assert st.term("other_kernels").part("dequant_bytes") == pytest.approx(193_005_092_864)  # as computed above


def test_quant_bits_does_not_touch_a_gptq_checkpoint():
    s = _stored("gptq", 4)
    runs = []
    for bits in (4, 8):
        t = s.training.model_copy(update={"method": "qlora", "quant_bits": bits, "num_gpus": 2, "sharding": "fsdp"})
        planned = s.model_copy(update={"training": t})
        runs.append((estimate(planned).time.step_seconds, auto_name(planned)))
    assert runs[0] == runs[1] and "8-bit" not in runs[1][1]


def test_advice_never_offers_fsdp_to_an_8bit_base():
    s = plan(method="qlora", quant_bits=8, workload="dpo")
    assert all(t.changes.get("training.sharding") != "fsdp" for t in suggest_all(s))


def suggest_all(s):
    from tuneplan.core.advice import suggest

    return suggest(s, [])


def test_zero3_over_an_8bit_base_is_said_to_be_undocumented_but_not_refused():
    s = plan(method="qlora", quant_bits=8, num_gpus=2, sharding="zero3")
    result = estimate(s)
    assert "plan.int8_zero3" in [n.code for n in result.messages] and not blocking_notes(result)
    assert "plan.int8_zero3" not in [n.code for n in estimate(plan(method="qlora", quant_bits=4, num_gpus=2,
                                                                   sharding="zero3")).messages]


def test_lora_on_a_stored_gptq_checkpoint_dequantises_like_qlora():
    # a GPTQ base runs the same whether the plan says LoRA or QLoRA (checkpoint.allowed_methods): its stored codes
    # (0.5 B per weight here) are dequantised to a bf16 copy of the largest matrix (4096 x 14336 x 2 B) for each
    # matmul, and read + written (0.5 + 2 B per weight) at each of the 3 uses of a checkpointed step
    s = _stored("gptq", 4)
    lora, _ = estimate_memory(s.model, s.training, s.gpu)
    q = s.training.model_copy(update={"method": "qlora"})
    qlora, _ = estimate_memory(s.model, q, s.gpu)
    assert lora.total_bytes == pytest.approx(qlora.total_bytes)
    plain = plan(method="lora")
    _, led = estimate_memory(plain.model, plain.training, plain.gpu)
    _, led_gptq = estimate_memory(s.model, s.training, s.gpu)
    assert led_gptq.temporaries - led.temporaries == pytest.approx(2 * 4096 * 14336)
    st = step_time(s.model, s.training, s.gpu, 2048.0)
    assert st.term("other_kernels").part("dequant_bytes") == pytest.approx(3 * LAYERS * LAYER_PARAMS * (0.5 + 2.0))
