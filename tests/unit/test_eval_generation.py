"""#17 item 4, the last of "peaks outside the training step": an evaluation during SFT that generates (LLaMA-Factory
``predict_with_generate`` with ``max_new_tokens``): ``model.generate``'s KV cache as a moment of its own, and its
decode steps as evaluation time.

The plan is the catalog's default: Llama 3.1 8B QLoRA (32 layers, h = 4096, 8 KV heads x 128 = kv_dim 1024,
intermediate 14,336, vocabulary 128,256), micro-batch 1 x 2,048 tokens, bf16 activations and residual stream. Its KV
cache per token: 2 (K, V) x 32 layers x 1024 x 2 B = 131,072 B.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from tuneplan import catalog
from tuneplan.catalog.gpus import get_gpu
from tuneplan.core.advice import suggest
from tuneplan.core.architecture import architecture_from_hf_config
from tuneplan.core.config_export import export_config
from tuneplan.core.estimate import BLOCKING_NOTES, estimate
from tuneplan.core.generation import (
    DecodeRates,
    decode_step,
    eval_generation_cost,
    expected_experts_touched,
    weight_bytes_read,
)
from tuneplan.core.memory import estimate_memory
from tuneplan.core.steptime import link_bandwidth, step_time
from tuneplan.core.throughput import tokens_per_row
from tuneplan.core.training_config import map_training_config

V, H, INTER, SEQ, LAYERS = 128_256, 4096, 14_336, 2048, 32
KV_TOKEN = 2 * LAYERS * 1024 * 2  # 131,072 B
TINY_MIXTRAL = {"model_type": "mixtral", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 1,
                "num_attention_heads": 8, "num_key_value_heads": 2, "num_local_experts": 4, "num_experts_per_tok": 2,
                "vocab_size": 1000, "tie_word_embeddings": False}


def plan(dataset=None, **training):
    s = catalog.default_scenario()
    s = s.model_copy(update={"training": s.training.model_copy(update=training)})
    if dataset:
        s = s.model_copy(update={"dataset": s.dataset.model_copy(update=dataset)})
    return s


def estimate_step(s):
    """The plan's step (and its evaluation's decode rates) as the time model computes it."""
    row = tokens_per_row(s.training, s.dataset)
    return step_time(s.model, s.training, s.gpu, row)


def memory(**training):
    s = plan(**training)
    mem, _ = estimate_memory(s.model, s.training, s.gpu, s.dataset)
    return mem


def parts(mem) -> dict[str, float]:
    return {c.key: c.bytes for c in mem.components}


def test_the_last_decode_step_holds_the_whole_kv_cache():
    # 8 rows x (2,048-token prompts + 4,096 new tokens) x 131,072 B = 6 GiB, + one layer's keys while torch.cat
    # extends them: 6 GiB / (2 x 32) = 96 MiB; the step's logits: 8 x V x (2 B bf16 + 4 B fp32 copy)
    mem = memory(eval_micro_batch=8, eval_generate_tokens=4096, stack="llama-factory")
    assert mem.peak_phase == "evaluation generation"
    cache = 8 * (SEQ + 4096) * KV_TOKEN
    assert cache == 6 * 2**30
    assert parts(mem)["generation"] == cache + cache / 64 == 6_543_114_240
    assert parts(mem)["logits"] == 8 * V * 6 == 6_156_288
    assert parts(mem)["gradients"] == 0  # zero_grad set them to None; QLoRA on one GPU has no DDP buckets
    gen = next(c for c in mem.components if c.key == "generation")
    assert [t.key for t in gen.terms] == ["eval_kv_cache"] and "DynamicCache" in gen.source


def test_a_short_generation_peaks_in_the_prefill():
    # 16 new tokens: the end holds 8 x 2,064 x 131,072 B = 2.02 GiB; the prefill holds the prompts' cache
    # (8 x 2,048 x 131,072 B = 2 GiB) beside one no-grad layer over 16,384 prompt tokens: residual 2 B x h, norm
    # output 2 B x h, act(gate), up and their product 3 x 2 B x 14,336 = 102,400 B per token, 1.5625 GiB
    mem = memory(eval_micro_batch=8, eval_generate_tokens=16, stack="llama-factory")
    assert mem.peak_phase == "evaluation generation"
    assert parts(mem)["generation"] == 8 * SEQ * KV_TOKEN == 2 * 2**30
    assert parts(mem)["activations"] == 8 * SEQ * (2 * H + 2 * H + 3 * 2 * INTER) == 1_677_721_600
    gen = next(c for c in mem.components if c.key == "generation")
    assert [t.key for t in gen.terms] == ["eval_prompt_cache"]


def test_llama_factory_generates_instead_of_computing_the_evaluation_loss():
    # LLaMA-Factory pops the labels when it generates: no loss forward, whose 8 x 2,048 x V x 10 B logits (19.6 GiB)
    # would otherwise be the peak (test_eval_peak.py); HF Seq2SeqTrainer generates and then computes the loss
    lf = memory(eval_micro_batch=8, eval_generate_tokens=512, stack="llama-factory")
    hf = memory(eval_micro_batch=8, eval_generate_tokens=512, stack="hf-peft")
    assert lf.peak_phase == "evaluation generation"
    assert hf.peak_phase == "evaluation" and parts(hf)["logits"] == 8 * SEQ * V * 10
    assert lf.total_bytes < hf.total_bytes - 15 * 2**30


def test_generation_needs_an_evaluation_and_sft():
    base = memory()
    off = memory(eval_generate_tokens=512)  # no evaluation batch: nothing generates
    assert off.total_bytes == base.total_bytes and off.peak_phase == base.peak_phase
    codes = [n.code for n in estimate(plan(eval_generate_tokens=512)).messages]
    assert "plan.eval_generate_no_eval" in codes
    dpo = estimate(plan(workload="dpo", eval_micro_batch=2, eval_generate_tokens=512))
    assert "plan.eval_generate_sft_only" in [n.code for n in dpo.messages]
    assert dpo.memory.peak_phase != "evaluation generation"


def test_llama_factory_refuses_generation_under_zero3():
    s = plan(eval_micro_batch=2, eval_generate_tokens=256, stack="llama-factory", num_gpus=2, sharding="zero3",
             method="lora")
    codes = {n.code for n in estimate(s).messages}
    assert "plan.eval_generate_zero3" in codes and "plan.eval_generate_zero3" in BLOCKING_NOTES
    # the same generation under ZeRO-2 runs
    ok = s.model_copy(update={"training": s.training.model_copy(update={"sharding": "zero2"})})
    assert "plan.eval_generate_zero3" not in {n.code for n in estimate(ok).messages}


def test_one_evaluation_batch_generates_at_the_memory_roofline():
    # one row, a 1,000-token prompt, 100 new tokens, bf16 weights, 1e12 B/s, 1e14 FLOP/s, no host floor.
    # Weights read per step: every parameter but the input embedding, 8,030,261,248 - 525,336,576 = 7,504,924,672
    # x 2 B = 15,009,849,344 B; KV cache at the mean context 1,000 + 50: 1,050 x 131,072 = 137,625,600 B.
    # Step = (15,009,849,344 + 137,625,600) / 1e12 = 0.015147474944 s (its FLOPs, 2 x 7.5e9 + attention, take
    # 0.15 ms at 1e14). Prefill: 1,000 x (2 x 7,504,924,672 + 2 x 1,000 x 4,096 x 32) / 1e14 = 0.15271993344 s.
    arch = plan().model
    rates = DecodeRates(rate=1e14, bandwidth=1e12, host_step_seconds=0.0)
    term = eval_generation_cost(arch, rows=1, generated=100, prompt=1000, rates=rates)
    assert term.part("step_seconds") == pytest.approx(0.015147474944, rel=1e-12)
    assert term.part("prefill_seconds") == pytest.approx(0.15271993344, rel=1e-12)
    assert term.value == pytest.approx(100 * 0.015147474944 + 0.15271993344, rel=1e-12)
    # eager generate on the training model cannot beat the host's launches
    slow = eval_generation_cost(arch, rows=1, generated=100, prompt=1000,
                                rates=DecodeRates(rate=1e14, bandwidth=1e12, host_step_seconds=0.05))
    assert slow.part("step_seconds") == 0.05
    # under ZeRO-3 every forward gathers the weights again: 101 forwards (100 steps and the prefill) x 0.2 s more
    sharded = eval_generation_cost(arch, rows=1, generated=100, prompt=1000,
                                   rates=DecodeRates(rate=1e14, bandwidth=1e12, host_step_seconds=0.0,
                                                     gather_seconds=0.2))
    assert sharded.value == pytest.approx(term.value + 101 * 0.2, rel=1e-12)
    with pytest.raises(ValueError):
        eval_generation_cost(arch, rows=1, generated=0, prompt=1000, rates=rates)


def test_the_rates_of_an_eager_generate_forward_on_the_training_gpu():
    # LoRA r16 on every linear of Llama 3.1 8B: per layer 2 RMSNorms x 8 + projections 4 + rotary 16 + attention 8
    # + MLP 5 + residuals 2 = 51 operators, + 7 adapted linears x 7 (PEFT lora.Linear.forward) = 100; x 32 layers
    # + 20 = 3,220 operators at 48.8 ms / 2,468 each (steptime.OP_HOST_S's measurement)
    st = estimate_step(plan(method="lora", eval_micro_batch=4, eval_generate_tokens=64))
    assert st.eval_decode.host_step_seconds == pytest.approx(3220 * 48.8e-3 / 2468, rel=1e-12)
    assert st.eval_decode.layer_weight_bytes == 2.0 and st.eval_decode.gather_seconds == 0.0
    # QLoRA's layers are read as NF4: 4 bits + an 8-bit absmax per 64 weights + an fp32 scale per 256 absmaxes
    q = estimate_step(plan(method="qlora", eval_micro_batch=4, eval_generate_tokens=64))
    assert q.eval_decode.layer_weight_bytes == pytest.approx(0.5 + 1 / 64 + 4 / (64 * 256), rel=1e-9)
    # ZeRO-3 over 2 GPUs: each forward gathers the other half of the bf16 model, 8,030,261,248 x 2 B / 2, over the link
    s = plan(method="lora", eval_micro_batch=4, eval_generate_tokens=64, num_gpus=2, sharding="zero3")
    z = estimate_step(s)
    link = link_bandwidth(s.gpu, 2)[0]
    assert z.eval_decode.gather_seconds == pytest.approx(8_030_261_248 * 2 / 2 / link, rel=1e-12)


def test_the_evaluation_phase_counts_every_held_out_batch_at_both_lengths():
    # 1,000 examples, 10 % held out = 100 per pass over 8-row batches on one GPU: ceil(100 / 8) = 13 batches. The
    # final evaluation generates max_new_tokens (256); each of the 2 evaluations during training (2 epochs) 20 tokens,
    # transformers' default, because Seq2SeqTrainer.evaluate drops the trainer's generation arguments. LLaMA-Factory
    # skips the loss forward: the phase is 13 x (final + 2 x during).
    s = plan({"examples": 1000, "eval_fraction": 0.1, "epochs": 2, "tokens_per_example": 400},
             eval_micro_batch=8, eval_generate_tokens=256, stack="llama-factory")
    s = s.model_copy(update={"pricing": s.pricing.model_copy(update={"eval_minutes": 0})})
    time = estimate(s).time
    final, during = time.eval_terms
    assert (final.key, final.part("generated"), during.key, during.part("generated")) == (
        "eval_generation", 256, "eval_generation_during", 20)
    assert final.part("prompt") == 400  # the mean example, below seq_len
    assert time.phases["evaluation"] == pytest.approx(13 * (final.value + 2 * during.value), rel=1e-12)
    note = next(n for n in time.messages if n.code == "time.eval_generation")
    assert note.params["batches"] == 13 and note.params["passes"] == 2
    # the HF Seq2SeqTrainer also runs the loss forward: a longer phase
    hf = s.model_copy(update={"training": s.training.model_copy(update={"stack": "hf-peft"})})
    assert estimate(hf).time.phases["evaluation"] > time.phases["evaluation"]
    # two data-parallel GPUs take 50 each: ceil(50 / 8) = 7 batches per GPU
    ddp = s.model_copy(update={"training": s.training.model_copy(update={"num_gpus": 2, "sharding": "ddp"})})
    note = next(n for n in estimate(ddp).time.messages if n.code == "time.eval_generation")
    assert note.params["batches"] == 7
    # an evaluation batch larger than what is held out runs the 100 rows there are, once
    big = s.model_copy(update={"training": s.training.model_copy(update={"eval_micro_batch": 4096})})
    final, _during = estimate(big).time.eval_terms
    assert final.part("rows") == 100


def test_ddp_keeps_its_gradient_buckets_through_the_generation():
    # DDP's flat bucket copy of the LoRA gradients stays (zero_grad frees only .grad): r16 all-linear on Llama 3.1
    # 8B is 41,943,040 fp32 adapter parameters x 4 B = 167,772,160 B
    mem = memory(method="lora", eval_micro_batch=8, eval_generate_tokens=4096, stack="llama-factory", num_gpus=2,
                 sharding="ddp")
    assert mem.peak_phase == "evaluation generation"
    assert parts(mem)["gradients"] == 41_943_040 * 4


def test_advice_offers_smaller_evaluation_batches_that_generate():
    # 16 rows x (2,048 + 2,048) x 131,072 B = 8 GiB of cache beside the 16 GB card's QLoRA step
    s = plan(eval_micro_batch=16, eval_generate_tokens=2048, stack="llama-factory")
    s = s.model_copy(update={"gpu": get_gpu("rtx4080")})
    mem = estimate(s).memory
    assert mem.peak_phase == "evaluation generation"
    keys = {a.key: a for a in suggest(s)}
    assert keys["eval_batch"].title_note.code == "advice.eval_batch_generate"
    assert keys["eval_batch"].changes["training.eval_micro_batch"] < 16
    # evaluating the loss instead is no saving: its 16 x 2,048 x V x 10 B of logits (39 GiB) dwarf the cache
    loss_only = estimate(s.model_copy(update={"training": s.training.model_copy(update={"eval_generate_tokens": 0})}))
    assert loss_only.memory.total_bytes > mem.total_bytes + 30 * 2**30
    assert all(a.changes.get("training.eval_generate_tokens") != 0 for a in keys.values())


def test_llama_factory_config_round_trips_predict_with_generate():
    doc = {"stage": "sft", "finetuning_type": "lora", "cutoff_len": 2048, "per_device_train_batch_size": 1,
           "val_size": 0.05, "eval_strategy": "steps", "per_device_eval_batch_size": 4,
           "predict_with_generate": True, "max_new_tokens": 300, "do_sample": True, "temperature": 0.7}
    got = map_training_config(doc, "llamafactory")
    assert got.updates["training.eval_generate_tokens"] == 300
    # LLaMA-Factory's default max_new_tokens (GeneratingArguments) when the file leaves it out
    default = map_training_config({k: v for k, v in doc.items() if k != "max_new_tokens"}, "llamafactory")
    assert default.updates["training.eval_generate_tokens"] == 1024
    # without an evaluation that runs, predict_with_generate changes nothing
    off = map_training_config({k: v for k, v in doc.items() if k != "eval_strategy"}, "llamafactory")
    assert "training.eval_generate_tokens" not in off.updates
    # beams multiply the cache's rows: said, not silently dropped
    beams = map_training_config({**doc, "num_beams": 4}, "llamafactory")
    assert any(i.key == "num_beams" and i.status == "unsupported" for i in beams.items)
    s = plan(eval_micro_batch=4, eval_generate_tokens=300, stack="llama-factory", method="lora")
    out = export_config(s, "llama-factory")
    assert out.document["predict_with_generate"] is True and out.document["max_new_tokens"] == 300
    back = map_training_config(out.document, "llamafactory")
    assert back.updates["training.eval_generate_tokens"] == 300
    # TRL's SFTTrainer cannot generate in its evaluation: the export says so
    trl = export_config(s, "trl")
    assert "predict_with_generate" not in trl.document
    assert any(n.params.get("field") == "training.eval_generate_tokens" for n in trl.notes)
    # a Seq2SeqTrainer file's predict_with_generate counts generation_max_length with the prompt: not modelled
    hf = map_training_config({"per_device_train_batch_size": 1, "eval_strategy": "steps",
                              "predict_with_generate": True, "generation_max_length": 512}, "hf")
    assert any(i.key == "predict_with_generate" and i.status == "unsupported" for i in hf.items)


def test_cli_takes_the_generation_flags():
    out = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--eval-batch", "4", "--eval-generate-tokens",
                          "512", "--eval-share", "0.02", "--stack", "llama-factory", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    (data,) = json.loads(out.stdout)
    final, during = data["time"]["eval_terms"]
    assert final["key"] == "eval_generation" and final["parts"]["generated"]["value"] == 512
    assert during["key"] == "eval_generation_during" and during["parts"]["generated"]["value"] == 20
    # the default plan's 10,000 examples, 2 % held out: 200 per pass, in 4-row batches on one GPU
    note = next(n for n in data["time"]["notes"] if n["code"] == "time.eval_generation")
    assert note["params"]["examples"] == 200 and note["params"]["batches"] == 50
    bad = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--eval-share", "1.5"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--eval-share" in bad.stderr
    assert math.isfinite(data["time"]["phases"]["evaluation"])


def test_stacks_that_cannot_generate_and_fsdp_are_said():
    # TRL's SFTTrainer has no predict_with_generate: the plan evaluates the loss only, and says so
    trl = estimate(plan(eval_micro_batch=4, eval_generate_tokens=512, stack="trl"))
    assert "plan.eval_generate_stack" in [n.code for n in trl.messages]
    assert trl.memory.peak_phase != "evaluation generation" and not trl.time.eval_terms
    # generate on an FSDP-wrapped model fails (the root unit's embedding stays sharded): a plan that cannot run
    fsdp = estimate(plan(method="lora", eval_micro_batch=4, eval_generate_tokens=512, num_gpus=2, sharding="fsdp"))
    assert "plan.eval_generate_fsdp" in {n.code for n in fsdp.messages} & BLOCKING_NOTES
    # LLaMA-Factory refuses predict_with_generate outside its sft stage
    dpo = estimate(plan(workload="dpo", eval_micro_batch=2, eval_generate_tokens=512, stack="llama-factory"))
    assert "plan.eval_generate_lf_sft_only" in {n.code for n in dpo.messages} & BLOCKING_NOTES


def test_llama_factory_files_it_refuses_are_said_at_import():
    base = {"stage": "sft", "finetuning_type": "lora", "eval_strategy": "steps", "predict_with_generate": True}
    no_data = map_training_config(base, "llamafactory")  # no val_size, no eval_dataset: parser.py raises
    assert any(i.key == "predict_with_generate" and i.note.code == "config.lf_generate_no_data"
               for i in no_data.items)
    accuracy = map_training_config({**base, "val_size": 0.1, "compute_accuracy": True}, "llamafactory")
    assert [i.note.code for i in accuracy.items if i.key == "compute_accuracy"] == ["config.lf_generate_accuracy"]
    # max_new_tokens <= 0: GeneratingArguments.to_dict keeps max_length (prompt included): an upper bound
    length = map_training_config({**base, "val_size": 0.1, "max_new_tokens": 0, "max_length": 600}, "llamafactory")
    assert length.updates["training.eval_generate_tokens"] == 600


# --- decode helpers (core/generation.py), pinned by hand after a mutmut run over the module ---------------------

LLAMA_LAYERS = 32 * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14_336)  # 6,979,321,856 linear weights
LLAMA_OTHER = 8_030_261_248 - 525_336_576 - LLAMA_LAYERS  # LM head + norms: 525,602,816


def test_a_decode_step_is_compute_bound_when_its_flops_outweigh_its_bytes():
    # 1,000 rows at a context of 1,000 on a slow 1e12 FLOP/s card with 1e12 B/s: FLOPs 2 x 7,504,924,672 x 1,000 +
    # 4 x 1,000 x 1,000 x 4,096 x 32 = 1.5009849344e13 + 5.24288e11 = 1.5534137344e13 -> 15.534137344 s, against
    # (15,009,849,344 + 1,000 x 1,000 x 131,072) B / 1e12 B/s = 0.146 s of reading
    arch = plan().model
    step = decode_step(arch, 1000, 1000.0, rate=1e12, bandwidth=1e12)
    assert step.flops == 1.5534137344e13 and step.seconds == pytest.approx(15.534137344, rel=1e-12)
    assert step.weight_bytes == (LLAMA_LAYERS + LLAMA_OTHER) * 2  # bf16 by default
    assert step.kv_bytes == 1000 * 1000 * KV_TOKEN


def test_a_4bit_base_is_read_packed_for_one_row_and_dequantised_for_more():
    # NF4 with double quantisation: 0.5 + 1/64 + 4/(64 x 256) B per weight. One row: gemv_4bit reads the packed codes;
    # two rows: MatMul4Bit writes a bf16 copy and the GEMM reads it, + 4 B per weight
    arch = plan().model
    nf4 = 0.5 + 1 / 64 + 4 / (64 * 256)
    one = decode_step(arch, 1, 0.0, rate=1e14, bandwidth=1e12, layer_weight_bytes=nf4)
    two = decode_step(arch, 2, 0.0, rate=1e14, bandwidth=1e12, layer_weight_bytes=nf4)
    assert one.weight_bytes == pytest.approx(LLAMA_LAYERS * nf4 + LLAMA_OTHER * 2, rel=1e-12)
    assert two.weight_bytes == pytest.approx(LLAMA_LAYERS * (nf4 + 4) + LLAMA_OTHER * 2, rel=1e-12)
    assert one.seconds == pytest.approx(one.weight_bytes / 1e12, rel=1e-12)  # no host floor unless given
    packed = eval_generation_cost(arch, rows=1, generated=4, prompt=10,
                                  rates=DecodeRates(1e14, 1e12, 0.0, layer_weight_bytes=nf4))
    assert packed.part("weight_bytes") == one.weight_bytes
    with pytest.raises(ValueError):
        eval_generation_cost(arch, rows=0, generated=8, prompt=10, rates=DecodeRates(1e14, 1e12, 0.0))
    assert eval_generation_cost(arch, rows=1, generated=1, prompt=10, rates=DecodeRates(1e14, 1e12, 0.0)).value > 0


def test_a_decode_step_reads_the_experts_its_rows_route_to():
    # tiny Mixtral (test_core_memory.TINY_MIXTRAL): h 256, one layer, 8 heads of 32, 2 KV heads (kv_dim 64), 4 experts
    # of 256 x 512 (gate, up) and 512 x 256 (down), top-2, vocabulary 1,000 untied. Layer weights: q, o 65,536 each,
    # k, v 16,384 each, router 1,024, experts 3 x 4 x 131,072 = 1,572,864: 1,737,728; outside the layers: LM head
    # 256,000 + three norms 768 = 256,768. One row touches 4 x (1 - (1 - 2/4)) = 2 of 4 experts, two rows
    # 4 x (1 - 0.5^2) = 3: weights read (1,737,728 - 1,572,864 x 0.5 + 256,768) x 2 B = 2,416,128 B and
    # (1,737,728 - 1,572,864 x 0.25 + 256,768) x 2 B = 3,202,560 B.
    arch = architecture_from_hf_config(TINY_MIXTRAL)
    assert arch.layer_linear_params() == 1_737_728
    assert arch.parameter_count() - arch.embedding_params() - arch.layer_linear_params() == 256_768
    assert weight_bytes_read(arch, 1) == 2_416_128
    assert weight_bytes_read(arch, 2) == 3_202_560
    assert decode_step(arch, 2, 0.0, rate=1e14, bandwidth=1e12).weight_bytes == 3_202_560  # the step's own rows
    assert expected_experts_touched(4, 2, 0) == 0.0 and expected_experts_touched(0, 2, 5) == 0.0
    assert expected_experts_touched(4, 2, 2) == 3.0
