"""#17 item 4: LoRA on fused projections (Phi-3 ``qkv_proj``/``gate_up_proj``, ChatGLM ``query_key_value``, Baichuan
``W_pack``, Qwen (v1) ``c_attn``, GPT-NeoX/Falcon/BLOOM ``query_key_value``) counted as PEFT builds it, named as the
model names it in exported configs, and read back from imported target lists.

Phi-3.5-mini (the catalog's ``phi-3.5-mini``; same shapes as Phi-3-mini): hidden h = 3072, 32 layers, 32 heads and 32
kv heads of 96, intermediate i = 8192. transformers ``modeling_phi3.py``: ``qkv_proj`` 3072 -> 9216,
``o_proj`` 3072 -> 3072, ``gate_up_proj`` 3072 -> 16384, ``down_proj`` 8192 -> 3072 (the module tree PEFT prints).
"""

from __future__ import annotations

import pytest

from tuneplan import catalog
from tuneplan.core.architecture import architecture_from_hf_config
from tuneplan.core.config_export import export_config
from tuneplan.core.estimate import estimate
from tuneplan.core.memory import layer_saved_bytes_per_token, lora_parameter_count, lora_target_modules
from tuneplan.core.scenario import TrainingSetup
from tuneplan.core.training_config import map_training_config

H, LAYERS, INTER = 3072, 32, 8192


def phi3():
    return catalog.get_model("phi-3.5-mini").architecture


def test_phi3_all_linear_counts_one_adapter_per_fused_module():
    # PEFT wraps the 4 modules of a Phi-3 layer; each gets A (r x d_in) and B (d_out x r): r (d_in + d_out)
    r = 16
    per_layer = r * (H + 9216) + r * (H + H) + r * (H + 2 * INTER) + r * (INTER + H)  # qkv, o, gate_up, down
    assert per_layer == 786_432
    assert lora_parameter_count(phi3(), r, "all-linear", "hf-peft") == per_layer * LAYERS == 25_165_824
    # (a PEFT print_trainable_parameters for Phi-3-mini-4k-instruct with r=16 on qkv_proj, o_proj, gate_up_proj and
    # down_proj reads "trainable params: 25,165,824", as published in a fine-tuning project's README)


def test_split_lora_stacks_keep_one_adapter_per_projection():
    # torchtune converts Phi-3 to split q/k/v/gate/up (models/phi3/_convert_weights.py); LitGPT's LoRAQKVLinear
    # gives each enabled part its own r rows of lora_A: seven adapters a layer, as on Llama
    r = 16
    per_layer = 3 * r * (H + H) + r * (H + H) + 2 * r * (H + INTER) + r * (INTER + H)  # q, k, v, o, gate, up, down
    assert lora_parameter_count(phi3(), r, "all-linear", "torchtune") == per_layer * LAYERS == 29_884_416
    assert lora_parameter_count(phi3(), r, "all-linear", "litgpt") == 29_884_416


def test_q_v_on_a_fused_model_adapts_the_whole_qkv_module():
    # Phi-4: h 5120, 40 layers, 40 heads and 10 kv heads of 128: qkv_proj 5120 -> 5120 + 2 x 1280 = 7680
    arch = catalog.get_model("phi-4").architecture
    assert lora_parameter_count(arch, 16, "q_v", "hf-peft") == 16 * (5120 + 7680) * 40 == 8_192_000
    # split (torchtune): q 16 (5120 + 5120) and v 16 (5120 + 1280) a layer
    assert lora_parameter_count(arch, 16, "q_v", "torchtune") == 16 * (10240 + 6400) * 40 == 10_649_600
    assert lora_target_modules(arch, "q_v") == ["qkv_proj"]
    assert lora_target_modules(arch, "qkvo") == ["qkv_proj", "o_proj"]


def test_saved_activations_hold_one_dropout_copy_per_fused_module():
    # LoRA in bf16 with fp32 adapters under autocast and dropout: every adapted linear saves its own bf16 copy of its
    # input plus a 1-byte dropout mask ((2 + 1) d_in B), and lora_B saves lora_A's r-wide bf16 output (2 r B).
    # Split: q, k, v read h (3 copies), gate, up read h (2 copies); fused: one copy each, 3 fewer copies of h and
    # 3 fewer lora_A outputs: 3 x 3 x 3072 + 3 x 2 x 16 = 27,744 B per token and layer less
    t = TrainingSetup(method="lora", lora_rank=16, lora_dropout=0.05, lora_targets="all-linear", precision="bf16",
                      sequence_mode="fixed", seq_len=2048)
    split, _ = layer_saved_bytes_per_token(phi3(), t.model_copy(update={"stack": "torchtune"}), 2, 2048)
    fused, _ = layer_saved_bytes_per_token(phi3(), t.model_copy(update={"stack": "hf-peft"}), 2, 2048)
    assert split - fused == 3 * 3 * 3072 + 3 * 2 * 16 == 27_744


@pytest.mark.parametrize(("model_type", "preset", "names"), [
    ("gpt_neox", "qkvo", ["query_key_value", "dense"]),
    ("falcon", "q_v", ["query_key_value"]),
    ("chatglm", "qkvo", ["query_key_value", "dense"]),
    ("baichuan", "q_v", ["W_pack"]),
    ("qwen", "qkvo", ["c_attn", "attn.c_proj"]),  # c_proj alone would match the MLP's c_proj too
    ("gpt2", "qkvo", ["c_attn", "attn.c_proj"]),
    ("phi", "qkvo", ["q_proj", "k_proj", "v_proj", "dense"]),  # Phi-2: split q/k/v, output "dense"
    ("llama", "qkvo", ["q_proj", "k_proj", "v_proj", "o_proj"]),
    ("internlm2", "qkvo", ["wqkv", "wo"]),
])
def test_target_names_follow_each_familys_modelling_code(model_type, preset, names):
    cfg = {"model_type": model_type, "hidden_size": 1024, "intermediate_size": 4096, "num_hidden_layers": 2,
           "num_attention_heads": 8, "vocab_size": 1000}
    assert lora_target_modules(architecture_from_hf_config(cfg), preset) == names


def test_exported_llamafactory_config_names_phi3s_modules():
    # before: lora_target q_proj,v_proj, which PEFT refuses on Phi-3 ("Target modules ... not found in the base model")
    base = catalog.default_scenario()
    s = base.model_copy(update={"model_id": "phi-3.5-mini", "model": phi3(), "training": base.training.model_copy(
        update={"method": "lora", "lora_targets": "q_v", "stack": "llama-factory"})})
    assert export_config(s, "llama-factory", model_ref="microsoft/Phi-3.5-mini-instruct").document["lora_target"] \
        == "qkv_proj"
    # and the other PEFT formats (axolotl, TRL) write the same list
    assert export_config(s, "axolotl", model_ref="x").document["lora_target_modules"] == ["qkv_proj"]


def test_estimate_says_that_q_v_adapts_the_keys_of_a_fused_module():
    base = catalog.default_scenario()
    s = base.model_copy(update={"model_id": "phi-3.5-mini", "model": phi3(), "training": base.training.model_copy(
        update={"method": "lora", "lora_targets": "q_v", "stack": "hf-peft"})})
    notes = [n for n in estimate(s).messages if n.code == "plan.fused_qkv_lora"]
    assert [n.params["module"] for n in notes] == ["qkv_proj"]
    split = s.model_copy(update={"training": s.training.model_copy(update={"stack": "torchtune"})})
    assert not [n for n in estimate(split).messages if n.code == "plan.fused_qkv_lora"]


@pytest.mark.parametrize(("targets", "preset", "code"), [
    (["qkv_proj"], "q_v", "config.taken"),  # Phi-3: q_v is the fused module
    ("query_key_value", "q_v", "config.taken"),  # PEFT's default for gpt_neox, chatglm, falcon, bloom
    (["W_pack", "o_proj"], "qkvo", "config.taken"),  # Baichuan
    (["query_key_value", "dense", "dense_h_to_4h", "dense_4h_to_h"], "all-linear", "config.taken"),  # ChatGLM/NeoX
    (["qkv_proj", "o_proj", "gate_up_proj", "down_proj"], "all-linear", "config.taken"),  # Phi-3
    (["c_attn", "c_proj", "w1", "w2"], "all-linear", "config.taken"),  # Qwen (v1)
    (["q_proj", "k_proj", "v_proj", "o_proj", "w1", "w2", "w3"], "all-linear", "config.taken"),  # Mixtral's old names
    (["c_attn", "attn.c_proj"], "qkvo", "config.taken"),  # GPT-2 / Qwen (v1) attention only
    (["model.self_attn.q_proj", "self_attn.v_proj"], "q_v", "config.taken"),  # PEFT matches the path's end
])
def test_imported_fused_target_lists_map_onto_presets(targets, preset, code):
    r = map_training_config({"finetuning_type": "lora", "lora_target": targets, "stage": "sft"}, "llamafactory")
    item = next(i for i in r.items if i.key == "lora_target")
    assert r.updates["training.lora_targets"] == preset
    assert item.status == "taken" and item.note.code == code


def test_an_mlp_only_list_is_planned_as_listed():
    # Phi-3's gate_up_proj is gate and up together: no preset, so the plan adapts exactly those (lora_modules)
    r = map_training_config({"finetuning_type": "lora", "lora_target": ["gate_up_proj"], "stage": "sft"}, "llamafactory")
    assert r.updates["training.lora_modules"] == ("gate_proj", "up_proj")
    assert next(i for i in r.items if i.key == "lora_target").note.code == "config.taken"


def test_a_target_naming_one_layer_is_no_preset():
    # PEFT matches "model.layers.0.self_attn.q_proj" only in layer 0; no preset adapts one layer
    r = map_training_config({"finetuning_type": "lora", "lora_target": ["model.layers.0.self_attn.q_proj"],
                             "stage": "sft"}, "llamafactory")
    item = next(i for i in r.items if i.key == "lora_target")
    assert "training.lora_targets" not in r.updates and item.status == "unsupported"


def test_unsloth_trains_its_split_phi3_upload():
    # Unsloth's Phi-3/Phi-4 uploads are "Llamafied" (split q/k/v, gate/up): counted like torchtune's
    assert lora_parameter_count(phi3(), 16, "all-linear", "unsloth") == 29_884_416
