"""#17 item 4: the peak of an evaluation pass during training (HF ``per_device_eval_batch_size``, 8 by default), which
can be larger than the training step's and is a common reason a run that "fits" dies at its first evaluation.

The plan is the catalog's default: Llama 3.1 8B QLoRA (h = 4096, intermediate 14,336, vocabulary 128,256), micro-batch
1 x 2,048 packed tokens, bf16 with the unquantised weights in bf16 (so a bf16 residual stream), non-fused loss.
"""

from __future__ import annotations

import subprocess
import sys

from tuneplan import catalog
from tuneplan.core.advice import max_eval_batch, suggest
from tuneplan.core.memory import estimate_memory

V, H, INTER, SEQ = 128_256, 4096, 14_336, 2048


def plan(**training):
    s = catalog.default_scenario()
    return s.model_copy(update={"training": s.training.model_copy(update=training)})


def memory(**training):
    s = plan(**training)
    mem, _ = estimate_memory(s.model, s.training, s.gpu)
    return mem


def parts(mem) -> dict[str, float]:
    return {c.key: c.bytes for c in mem.components}


def test_eight_evaluation_rows_hold_their_logits_with_the_losss_fp32_copies():
    # 8 rows x 2,048 tokens under no_grad: bf16 logits (2 B) + ForCausalLMLoss's fp32 copy (4 B) + log-softmax (4 B)
    # per token and vocabulary entry, next to the final hidden state (2 B x h); no gradients (zero_grad set them None)
    mem = memory(eval_micro_batch=8)
    assert mem.peak_phase == "evaluation"
    tokens = 8 * SEQ
    assert parts(mem)["logits"] == tokens * V * 10 == 21_013_463_040
    assert parts(mem)["activations"] == tokens * 2 * H == 134_217_728
    assert parts(mem)["gradients"] == 0
    assert mem.total_bytes > memory().total_bytes + 15 * 2**30  # the training step alone needed far less


def test_one_evaluation_row_stays_below_the_training_step():
    # one row: 2,048 x V x 10 B at evaluation against the training loss side's 2,048 x V x 12 B (fp32 log-softmax and
    # its two fp32 gradients): the training step keeps the peak and nothing changes
    assert memory(eval_micro_batch=1).peak_phase == memory().peak_phase
    assert memory(eval_micro_batch=1).total_bytes == memory().total_bytes


def test_ligers_fused_loss_does_not_help_evaluation_but_torchtunes_chunks_do():
    # Liger skips the logits only while training (skip_logits = self.training and labels is not None)
    fused = memory(eval_micro_batch=8, fused_cross_entropy=True)
    assert fused.peak_phase == "evaluation" and parts(fused)["logits"] == 8 * SEQ * V * 10
    # torchtune's chunked output: the bf16 logits whole (2 B) and one of 8 chunks upcast at a time (8 B / 8)
    chunked = memory(eval_micro_batch=8, fused_cross_entropy=True, stack="torchtune")
    assert parts(chunked)["logits"] == 8 * SEQ * V * (2 + 8 / 8)


def test_a_value_head_evaluates_inside_its_layers():
    # a reward model scores chosen and rejected rows (2 per example) with a value head (one number per token), so the
    # largest no-grad moment is inside a decoder layer: residual and norm output (2 B x h each) and SwiGLU's gate, up
    # and act(gate) (3 x 2 B x intermediate) per token
    mem = memory(eval_micro_batch=8, workload="reward", method="lora")
    assert mem.peak_phase == "evaluation"
    tokens = 2 * 8 * SEQ
    per_token = 2 * H + 2 * H + 3 * 2 * INTER
    assert per_token == 102_400
    assert parts(mem)["activations"] == tokens * per_token


def test_advice_offers_the_largest_evaluation_batch_that_fits():
    s = plan(eval_micro_batch=8)  # 26.6 GiB on the RTX 4090's 23.99
    rows = max_eval_batch(s, upper=7)
    assert 1 <= rows < 8
    assert memory(eval_micro_batch=rows).fits and not memory(eval_micro_batch=rows + 1).fits
    tips = [g for g in suggest(s) if g.title_note.code == "advice.eval_batch"]  # (max_eval_batch's own answer)
    assert tips and tips[0].title_note.params["rows"] == rows and tips[0].changes == {"training.eval_micro_batch": rows}


def test_cli_flag_sets_the_evaluation_batch_and_refuses_a_negative_one():
    ok = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--eval-batch", "8"], capture_output=True,
                        text=True, timeout=120)
    assert ok.returncode == 0 and "peak during evaluation" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--eval-batch", "-1"], capture_output=True,
                         text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) <= 3


def test_imported_configs_say_whether_and_how_wide_the_run_evaluates():
    from pathlib import Path

    from tuneplan.core.training_config import map_training_config
    from tuneplan.storage.training_config import read_training_config

    data = Path(__file__).parents[1] / "data" / "training_configs"
    # axolotl examples/llama-3/lora-1b.yml: val_set_size 0.1, no eval_batch_size: normalize_config uses micro_batch_size 2
    r = read_training_config(data / "axolotl_llama3_lora_1b.yml")
    assert r.updates["training.eval_micro_batch"] == 2
    assert next(i for i in r.items if i.key == "eval_batch_size").note.code == "config.default"
    # a TrainingArguments dump with eval_strategy "no": its per_device_eval_batch_size 8 does not apply
    r = read_training_config(data / "hf_training_args.json")
    assert "training.eval_micro_batch" not in r.updates
    assert next(i for i in r.items if i.key == "per_device_eval_batch_size").note.code == "config.eval_off"
    # LLaMA-Factory's eval block (commented out in examples/train_lora/llama3_lora_sft.yaml), switched on
    lf = {"stage": "sft", "finetuning_type": "lora", "val_size": 0.1, "per_device_eval_batch_size": 1,
          "eval_strategy": "steps", "eval_steps": 500}
    assert map_training_config(lf, "llamafactory").updates["training.eval_micro_batch"] == 1
    # without evaluation data LLaMA-Factory does not evaluate; HF's default batch when the key is left out
    assert "training.eval_micro_batch" not in map_training_config({**lf, "val_size": 0}, "llamafactory").updates
    hf = {"per_device_train_batch_size": 2, "eval_strategy": "steps", "output_dir": "out"}
    assert map_training_config(hf, "hf").updates["training.eval_micro_batch"] == 8


def test_exported_configs_carry_the_evaluation_batch_back_to_the_importer():
    from tuneplan.core.config_export import export_config
    from tuneplan.core.training_config import map_training_config

    s = plan(eval_micro_batch=2)
    s = s.model_copy(update={"dataset": s.dataset.model_copy(update={"eval_fraction": 0.05})})
    for fmt, importer, split in (("llama-factory", "llamafactory", "val_size"), ("axolotl", "axolotl", "val_set_size"),
                                 ("trl", "hf", None)):
        doc = export_config(s, fmt, model_ref="x").document
        if split is not None:
            assert doc[split] == 0.05  # the plan's held-out share
        assert map_training_config(doc, importer).updates["training.eval_micro_batch"] == 2, fmt
    # a plan without evaluation writes none
    assert "per_device_eval_batch_size" not in export_config(plan(), "llama-factory", model_ref="x").document


def test_a_smaller_evaluation_batch_is_offered_when_training_alone_does_not_fit():
    # at 16,384 tokens the training step needs more than the card anyway; one evaluation row holds 16,384 x V x 10 B of
    # logits, less than the training loss side's 16,384 x V x 12 B, so evaluating one row costs no memory (two rows
    # would: 2 x 10 > 12). The advice says "evaluation batch of 1", not "do not evaluate".
    s = plan(eval_micro_batch=8, seq_len=16384)
    codes = {g.title_note.code: g for g in suggest(s)}
    assert "advice.eval_off" not in codes
    assert codes["advice.eval_batch"].changes == {"training.eval_micro_batch": 1}
    assert memory(eval_micro_batch=1, seq_len=16384).total_bytes == memory(seq_len=16384).total_bytes


def test_no_evaluation_advice_when_evaluation_is_not_the_peak():
    assert not [g for g in suggest(plan(eval_micro_batch=1, seq_len=16384))
                if g.title_note.code in {"advice.eval_batch", "advice.eval_off"}]


def test_a_preference_evaluation_of_the_training_rows_stays_below_the_training_step():
    # ORPO/DPO/KTO evaluate with TRL's own log-probabilities, as in training, but without the backward
    for workload in ("orpo", "dpo", "kto"):
        assert memory(workload=workload, method="lora", eval_micro_batch=1).peak_phase != "evaluation", workload


def test_eager_attention_scores_sit_inside_the_evaluation_layer():
    # transformers eager_attention_forward: bf16 scores, their fp32 softmax and its bf16 copy, 8 B per head and key for
    # every query: a reward model (value head) at 8 x 2 rows x 2,048 tokens, 32 heads
    flash = memory(eval_micro_batch=8, workload="reward", method="lora")
    eager = memory(eval_micro_batch=8, workload="reward", method="lora", attention="eager")
    tokens = 2 * 8 * SEQ
    assert parts(eager)["activations"] - parts(flash)["activations"] == tokens * 8 * 32 * SEQ


def test_ddp_keeps_its_gradient_buckets_through_evaluation():
    # DDP's flat buckets (gradient_as_bucket_view=False) are allocated once and stay; zero_grad frees only .grad.
    # LoRA on 2 GPUs: the buckets hold the 41.9M adapter gradients in fp32 (4 B each)
    mem = memory(eval_micro_batch=8, method="lora", num_gpus=2, sharding="ddp")
    assert mem.peak_phase == "evaluation"
    s = plan(method="lora")
    from tuneplan.core.memory import lora_parameter_count
    assert parts(mem)["gradients"] == lora_parameter_count(s.model, 16, "all-linear") * 4


def test_axolotl_eval_strategy_no_read_by_yaml_as_false_turns_evaluation_off():
    from tuneplan.core.training_config import map_training_config

    base = {"base_model": "x", "adapter": "lora", "micro_batch_size": 2, "val_set_size": 0.05}
    assert map_training_config({**base, "eval_strategy": False}, "axolotl").updates.get("training.eval_micro_batch") \
        is None
    r = map_training_config({**base, "eval_strategy": "best"}, "axolotl")  # not an HF IntervalStrategy
    assert "training.eval_micro_batch" not in r.updates
    assert next(i for i in r.items if i.key == "eval_strategy").note.code == "config.unknown_value"
    r = map_training_config(base, "axolotl")  # the held-out share feeds the evaluation time too
    assert r.updates["training.eval_micro_batch"] == 2 and r.updates["dataset.eval_fraction"] == 0.05


def test_an_export_without_a_held_out_share_still_imports_as_evaluating():
    # the plan holds no evaluation share: the export leaves val_size empty for the user to fill, and reading it back
    # keeps the evaluation batch
    from tuneplan.core.config_export import export_config
    from tuneplan.core.training_config import map_training_config

    doc = export_config(plan(eval_micro_batch=2), "llama-factory", model_ref="x").document
    assert "val_size" in doc and doc["val_size"] is None
    assert map_training_config(doc, "llamafactory").updates["training.eval_micro_batch"] == 2
