"""#17 item 4: arbitrary LoRA target lists and MLP-only targets (``TrainingSetup.lora_modules``), counted as PEFT
matches ``target_modules`` (the end of each module's dotted path; a fused module's name on a fused family).

Hand counts: Llama 3.1 8B (hidden 4096, intermediate 14336, k/v 1024 wide, 32 layers) and Phi-3.5-mini (hidden 3072,
intermediate 8192, q/k/v fused into qkv_proj 9216 wide, gate/up into gate_up_proj, 32 layers).
"""

from __future__ import annotations

import pytest

from tuneplan import catalog
from tuneplan.core.config_export import export_config
from tuneplan.core.estimate import BLOCKING_NOTES, estimate
from tuneplan.core.memory import estimate_memory, lora_parameter_count, named_modules
from tuneplan.core.scenario import TrainingSetup


def _plan(model: str | None = None, **kw: object):
    base = catalog.default_scenario()
    t = TrainingSetup.model_validate({**base.training.model_dump(), "method": "lora", **kw})
    update: dict = {"training": t}
    if model:
        update["model"] = catalog.get_model(model).architecture
    return base.model_copy(update=update)


def test_names_match_the_end_of_the_module_path() -> None:
    llama = catalog.default_scenario().model
    assert named_modules(llama, ("self_attn.q_proj", "v_proj", "lm_adapter")) == ({"q_proj", "v_proj"},
                                                                                  ["lm_adapter"])
    assert named_modules(llama, ("all-linear",))[0] == {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj",
                                                        "up_proj", "down_proj"}
    phi = catalog.get_model("phi-3.5-mini").architecture
    assert named_modules(phi, ("qkv_proj",))[0] == {"q_proj", "k_proj", "v_proj"}  # a fused module: all its parts


def test_mlp_only_adapters_are_counted_per_listed_module() -> None:
    llama = catalog.default_scenario().model
    # gate and up: r (4096 + 14336) each, down: r (14336 + 4096); r = 16, 32 layers
    assert lora_parameter_count(llama, 16, ("gate_proj", "up_proj", "down_proj")) == 32 * 16 * 3 * (4096 + 14336)
    assert lora_parameter_count(llama, 16, ("k_proj",)) == 32 * 16 * (4096 + 1024)
    # Phi-3 under PEFT: qkv_proj is one adapted linear, r (3072 + 9216) per layer, r = 8
    phi = catalog.get_model("phi-3.5-mini").architecture
    assert lora_parameter_count(phi, 8, ("qkv_proj",), "hf-peft") == 32 * 8 * (3072 + 9216)


def test_the_plan_uses_the_list_instead_of_the_preset() -> None:
    s = _plan(lora_modules=("gate_proj", "up_proj", "down_proj"), lora_targets="q_v")
    r = estimate(s)
    assert r.trainable_parameters == 32 * 16 * 3 * (4096 + 14336)
    # LoRA on a bf16 base under autocast: PEFT casts each adapted input to the fp32 adapter dtype and autocast casts
    # it back, so every adapted module's lora_A saves its own bf16 copy of its input (module docstring of
    # core/memory/activations.py)
    no_drop = _plan(lora_modules=("gate_proj", "up_proj", "down_proj"), lora_dropout=0.0, grad_checkpointing=False)
    _, mlp = estimate_memory(no_drop.model, no_drop.training, no_drop.gpu)
    all_lin = _plan(lora_targets="all-linear", lora_dropout=0.0, grad_checkpointing=False)
    _, every = estimate_memory(all_lin.model, all_lin.training, all_lin.gpu)
    # all-linear adapts q, k, v and o too: four more input copies of 4096 x 2 B and four more r-wide lora_A outputs
    # (16 x 2 B) per token and layer
    assert every.activation_per_layer_token - mlp.activation_per_layer_token == 4 * 4096 * 2 + 4 * 16 * 2


def test_names_that_match_nothing_are_said_and_none_at_all_cannot_run() -> None:
    r = estimate(_plan(lora_modules=("down_proj", "w_out")))
    assert "plan.lora_modules_unknown" in {n.code for n in r.messages}
    r = estimate(_plan(lora_modules=("w_out",)))
    codes = {n.code for n in r.messages}
    assert "plan.lora_modules_none" in codes and "plan.lora_modules_none" in BLOCKING_NOTES
    assert r.trainable_parameters == 0


def test_bad_names_are_refused_by_the_plan() -> None:
    with pytest.raises(ValueError, match="letters, digits"):
        TrainingSetup(lora_modules=("gate proj",))
    with pytest.raises(ValueError, match="at most 64"):
        TrainingSetup(lora_modules=tuple(f"m{i}" for i in range(65)))
    assert TrainingSetup(lora_modules=" gate_proj, ,up_proj,gate_proj").lora_modules == ("gate_proj", "up_proj")


def test_exports_write_the_list() -> None:
    s = _plan(lora_modules=("gate_proj", "up_proj", "down_proj"))
    ref = "meta-llama/Llama-3.1-8B"
    assert export_config(s, "llama-factory", model_ref=ref).document["lora_target"] == "gate_proj,up_proj,down_proj"
    assert export_config(s, "trl", model_ref=ref).document["lora_target_modules"] == ["gate_proj", "up_proj",
                                                                                       "down_proj"]
    assert export_config(s, "ms-swift", model_ref=ref).document["target_modules"] == ["gate_proj", "up_proj",
                                                                                       "down_proj"]
    tt = export_config(s, "torchtune", model_ref=ref)
    assert (tt.document["model.lora_attn_modules"], tt.document["model.apply_lora_to_mlp"]) == ([], True)
    # torchtune adapts the MLP as a whole: down_proj alone cannot be said
    down = export_config(_plan(lora_modules=("q_proj", "down_proj")), "torchtune", model_ref=ref)
    assert down.document["model.lora_attn_modules"] == ["q_proj"] and "export.not_expressible" in down.codes


def test_a_list_inside_the_list_is_refused_as_a_value() -> None:
    # a shared plan file with "lora_modules": [["q_proj"]] gets the field's message, not a TypeError
    with pytest.raises(ValueError, match="valid string"):
        TrainingSetup(lora_modules=[["q_proj"]])


def test_dotted_names_must_be_the_end_of_a_real_path() -> None:
    llama = catalog.default_scenario().model
    # PEFT matches "key == name or key.endswith('.' + name)": layer 0 only, nothing, nothing (q_proj is under
    # self_attn), and the right parents
    assert named_modules(llama, ("model.layers.0.self_attn.q_proj", ".q_proj", "mlp.q_proj")) == (
        set(), ["model.layers.0.self_attn.q_proj", ".q_proj", "mlp.q_proj"])
    assert named_modules(llama, ("self_attn.q_proj", "mlp.down_proj"))[0] == {"q_proj", "down_proj"}
    # one layer's module adapts that layer in PEFT: said, but not refused
    r = estimate(_plan(lora_modules=("model.layers.0.self_attn.q_proj",)))
    codes = {n.code for n in r.messages}
    assert "plan.lora_modules_unknown" in codes and "plan.lora_modules_none" not in codes


def test_expert_names_on_a_stacked_moe_match_no_module() -> None:
    # Qwen3-30B-A3B keeps its experts as 3-D parameters (transformers 5): gate_proj/up_proj/down_proj name no
    # nn.Linear there, so PEFT finds no target
    r = estimate(_plan("qwen3-30b-a3b", lora_modules=("gate_proj", "up_proj", "down_proj")))
    assert "plan.lora_modules_none" in {n.code for n in r.messages} and r.trainable_parameters == 0


def test_an_export_of_a_list_that_matches_nothing_says_it_cannot_run() -> None:
    from tuneplan.storage.config_export import header_lines

    e = export_config(_plan(lora_modules=("foo", "bar")), "trl", model_ref="meta-llama/Llama-3.1-8B")
    assert e.document["lora_target_modules"] == ["foo", "bar"]  # as given: the framework names its own error
    assert any(line.startswith("CANNOT RUN as planned: none of the LoRA modules") for line in header_lines(e))


def test_an_imported_list_keeps_the_names_the_plan_knows() -> None:
    from tuneplan.core.training_config import map_training_config

    r = map_training_config({"finetuning_type": "lora", "stage": "sft", "lora_target": "gate_proj,down_proj,foo"},
                            "llamafactory")
    assert r.updates["training.lora_modules"] == ("gate_proj", "down_proj")
    item = next(i for i in r.items if i.key == "lora_target")
    assert item.note.code == "config.modules_partly" and item.note.params["unknown"] == "foo"
