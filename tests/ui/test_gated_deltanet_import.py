"""The model panel imports a Gated DeltaNet hybrid config (Qwen3-Next-80B-A3B) through the shared import path."""

from __future__ import annotations

import json

QWEN3_NEXT = {  # Qwen/Qwen3-Next-80B-A3B-Instruct config.json, architecture fields (as in tests/unit/test_gated_deltanet.py)
    "model_type": "qwen3_next", "hidden_size": 2048, "intermediate_size": 5120, "num_hidden_layers": 48,
    "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256, "vocab_size": 151936,
    "tie_word_embeddings": False, "num_experts": 512, "num_experts_per_tok": 10, "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512, "decoder_sparse_step": 1, "mlp_only_layers": [],
    "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
    "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "full_attention_interval": 4,
}


def test_importing_qwen3_next_plans_it(window, tmp_path):
    folder = tmp_path / "Qwen3-Next-80B-A3B-Instruct"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({**QWEN3_NEXT, "_name_or_path": "Qwen/Qwen3-Next-80B-A3B-Instruct"}),
                                        encoding="utf-8")
    assert window.model_panel.import_config(str(folder))
    s = window.store.scenario
    assert s.model_id == "" and s.model.num_linear_attention_layers == 36 and s.model.attn_output_gate
    assert window.model_panel.combo.currentText().startswith("Imported: Qwen/Qwen3-Next-80B-A3B-Instruct")
    assert "48 layers" in window.model_panel.info.text()
    assert window.store.result.parameters == 79_674_391_296
