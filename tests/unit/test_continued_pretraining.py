"""#18: continued pretraining (``--workload pt``): the causal-LM step of SFT on plain text packed into full rows,
as LLaMA-Factory's pt stage, ``swift pt``, axolotl's completion datasets and TRL's SFTTrainer on a text column run
it. Its memory and time are SFT's on the same rows (the same model, loss over every position, the same collator
once the rows are packed); what differs is how each stack is told, which these tests check through the importers,
the exporters and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

from tuneplan import catalog
from tuneplan.core.config_export import export_config
from tuneplan.core.estimate import estimate
from tuneplan.core.training_command import map_training_command
from tuneplan.core.training_config import map_training_config


def plan(**training):
    s = catalog.default_scenario()
    return s.model_copy(update={"training": s.training.model_copy(update=training)})


def test_continued_pretraining_is_the_sft_step_on_the_same_rows():
    # HF Trainer computes the same causal-LM loss over every position for both: no reference, no pairs, no value
    # head; a change to SFT's step changes continued pretraining's the same way
    for method in ("lora", "qlora", "full"):
        sft, pt = estimate(plan(method=method)), estimate(plan(method=method, workload="pt"))
        assert pt.memory.total_bytes == sft.memory.total_bytes
        assert pt.time.step_seconds == sft.time.step_seconds
        assert [c.key for c in pt.memory.components] == [c.key for c in sft.memory.components]
        assert not any(n.code.startswith("workload.") for n in pt.messages)


def test_llama_factory_pt_stage_packs_by_default():
    got = map_training_config({"stage": "pt", "finetuning_type": "lora", "cutoff_len": 4096}, "llamafactory")
    assert got.updates["training.workload"] == "pt"
    # data/processor/pretrain.py concatenates the texts into blocks of cutoff_len unless packing is off
    assert got.updates["training.sequence_mode"] == "packed"
    out = export_config(plan(workload="pt", method="lora", stack="llama-factory"), "llama-factory")
    assert out.document["stage"] == "pt" and out.document["packing"] is True
    back = map_training_config(out.document, "llamafactory")
    assert back.updates["training.workload"] == "pt"


def test_swift_pt_and_axolotl_completion_data_are_continued_pretraining():
    cmd = map_training_command("swift pt --model Qwen/Qwen2.5-7B --train_type lora --max_length 4096")
    assert cmd.updates["training.workload"] == "pt"
    out = export_config(plan(workload="pt", method="lora"), "ms-swift")
    assert out.command == "swift pt {file}"
    ax = map_training_config({"adapter": "lora", "datasets": [{"path": "corpus", "type": "completion"}],
                              "sequence_len": 4096}, "axolotl")
    assert ax.updates["training.workload"] == "pt"
    stream = map_training_config({"adapter": "lora", "pretraining_dataset": [{"path": "c4"}]}, "axolotl")
    assert stream.updates["training.workload"] == "pt"
    # an instruction dataset stays SFT
    chat = map_training_config({"adapter": "lora", "datasets": [{"path": "x", "type": "chat_template"}]}, "axolotl")
    assert chat.updates.get("training.workload", "sft") == "sft"
    exported = export_config(plan(workload="pt", method="lora"), "axolotl")
    assert exported.document["datasets"] == [{"path": None, "type": "completion"}]
    assert map_training_config(exported.document, "axolotl").updates["training.workload"] == "pt"


def test_continued_pretraining_cannot_generate_in_its_evaluation():
    # LLaMA-Factory hparams/parser.py: predict_with_generate is for the sft stage only
    r = estimate(plan(workload="pt", eval_micro_batch=4, eval_generate_tokens=256))
    assert "plan.eval_generate_sft_only" in [n.code for n in r.messages]
    assert r.memory.peak_phase != "evaluation generation"


def test_cli_plans_continued_pretraining():
    out = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--workload", "pt", "--method", "lora",
                          "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    (data,) = json.loads(out.stdout)
    assert data["workload"]["key"] == "pt" and data["workload"]["reference_model"] == "none"
    assert "continued pretraining" in data["scenario"]
