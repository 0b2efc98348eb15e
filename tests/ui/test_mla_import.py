"""The model panel imports a multi-head latent attention config (DeepSeek-V2-Lite) through the shared import path."""

from __future__ import annotations

import json

V2_LITE = {  # deepseek-ai/DeepSeek-V2-Lite config.json, architecture fields (as in tests/unit/test_mla.py)
    "model_type": "deepseek_v2", "hidden_size": 2048, "intermediate_size": 10944, "moe_intermediate_size": 1408,
    "num_hidden_layers": 27, "num_attention_heads": 16, "num_key_value_heads": 16, "vocab_size": 102400,
    "tie_word_embeddings": False, "n_routed_experts": 64, "n_shared_experts": 2, "num_experts_per_tok": 6,
    "first_k_dense_replace": 1, "moe_layer_freq": 1, "kv_lora_rank": 512, "q_lora_rank": None,
    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128, "attention_bias": False,
}


def test_importing_deepseek_v2_lite_plans_it(window, tmp_path):
    folder = tmp_path / "DeepSeek-V2-Lite"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({**V2_LITE, "_name_or_path": "deepseek-ai/DeepSeek-V2-Lite"}),
                                        encoding="utf-8")
    assert window.model_panel.import_config(str(folder))
    s = window.store.scenario
    assert s.model_id == "" and s.model.kv_lora_rank == 512 and s.model.head_dim == 192
    assert window.model_panel.combo.currentText().startswith("Imported: deepseek-ai/DeepSeek-V2-Lite")
    assert "27 layers" in window.model_panel.info.text()
    assert window.store.result.parameters == 15_706_484_224
