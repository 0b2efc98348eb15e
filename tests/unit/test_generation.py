"""GRPO (issue #18, core/generation.py and its place in core/workload.py, memory, step time and cost): hand-calculated
bytes and seconds on the tiny model of test_workloads.py, TRL's rules, and the CLI in a subprocess.

The tiny model: hidden 64, 2 layers, 4 heads of 16 (q_dim 64), 2 KV heads (kv_dim 32), SwiGLU 128, vocabulary 1,000,
untied: 202,048 parameters, of which the embedding 64,000, the decoder layers' linears 2 x 36,864 = 73,728 and the
rest (LM head 64,000, norms 320) 64,320.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pydantic import ValidationError

from tuneplan.core import generation as gen
from tuneplan.core import workload as wl
from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.memory import estimate_memory
from tuneplan.core.scenario import GpuSpec, TrainingSetup
from tuneplan.core.steptime import step_time
from tuneplan.core.terms import FORMULAS, NOTES, render_formula

GPU = GpuSpec(id="test", name="Test 80 GiB", memory_gib=80.0, bf16_tflops=100, memory_bandwidth_gbps=1000)


def _tiny() -> ModelArchitecture:
    return ModelArchitecture(name="tiny", hidden_size=64, num_layers=2, num_attention_heads=4, num_kv_heads=2,
                             head_dim=16, intermediate_size=128, vocab_size=1000)


def _grpo(**update: object) -> TrainingSetup:
    # 2 completions per micro-batch x 2 micro-batches = 4 rows a step; rows of 48 = a 32-token prompt + 16 generated
    base = dict(method="full", workload="grpo", micro_batch=2, grad_accumulation=2, seq_len=48, completion_tokens=16,
                sequence_mode="fixed", generation_engine="vllm-colocate", vllm_memory_share=0.5, num_generations=4,
                grad_checkpointing=False, attention="flash", optimizer="adamw")
    return TrainingSetup(**{**base, **update})


def _cost(t: TrainingSetup, capacity: float = 1e9, host: float = 0.0) -> gen.GenerationCost:
    return gen.generation_cost(_tiny(), t, rate=1e12, bandwidth=1e9, host_step_seconds=host, capacity_bytes=capacity,
                               link_bandwidth=1e9, activation_bytes_per_token=100.0)


def test_sizes_by_hand() -> None:
    arch = _tiny()
    assert arch.parameter_count() == 202_048 and arch.layer_linear_params() == 73_728
    assert gen.kv_bytes_per_token(arch) == 2 * 2 * 32 * 2  # K and V x 2 layers x kv_dim 32 x bf16
    assert gen.generation_rows(_grpo()) == 4  # micro-batch 2 x accumulation 2 (generation_batch_size per GPU)
    # every weight but the embedding, bf16: 73,728 x 2 + 64,320 x 2
    assert gen.weight_bytes_read(arch, 4) == 276_096
    # NF4 layers (QLoRA base handed to vLLM as bitsandbytes): 73,728 x 0.5 + 64,320 x 2
    assert gen.weight_bytes_read(arch, 4, 0.5) == 73_728 * 0.5 + 128_640
    assert gen.vllm_reserved_bytes(80 * 2**30, 0.3) == pytest.approx(24 * 2**30)


def test_experts_a_decode_step_touches() -> None:
    # 64 experts, 6 per token (DeepSeek-V2-Lite's routing): one token 6; two 64 x (1 - (58/64)^2) = 11.4375
    assert gen.expected_experts_touched(64, 6, 1) == pytest.approx(6.0)
    assert gen.expected_experts_touched(64, 6, 2) == pytest.approx(64 * (1 - (58 / 64) ** 2))
    assert gen.expected_experts_touched(64, 6, 10_000) == pytest.approx(64.0)


def test_colocated_vllm_step_by_hand() -> None:
    # share 0.5 x 1e9 B; KV room = 5e8 - weights 404,096 (all 202,048 bf16) - one 4,096-token prefill chunk of
    # 100 B/token (409,600): every row's 48 tokens x 256 B fits, one wave.
    # A decode step over 4 rows at a mean context of 32 + 16/2 = 40: weights 276,096 B + KV 4 x 40 x 256 = 40,960 B
    # = 317,056 B at 1e9 B/s = 317.056 us; FLOPs 2 x 138,048 x 4 + 4 x 4 x 40 x 64 x 2 = 1,186,304 at 1e12: 1.19 us.
    # 16 steps: 5.072896 ms. Prefill 4 x 32 x (2 x 138,048 + 2 x 32 x 64 x 2) / 1e12 = 36.388864 us.
    # Sync (full fine-tuning, one GPU): load_weights copies the weights, read and written: 2 x 404,096 / 1e9.
    cost = _cost(_grpo())
    assert cost.waves == 1 and cost.kv_fits == 4 and cost.engine_starts
    assert cost.term.part("step_seconds") == pytest.approx(317_056 / 1e9)
    assert cost.term.part("prefill_seconds") == pytest.approx(36_388_864 / 1e12)
    assert cost.term.part("sync_seconds") == pytest.approx(2 * 404_096 / 1e9)
    assert cost.seconds == pytest.approx(16 * 317_056 / 1e9 + 36_388_864 / 1e12 + 2 * 404_096 / 1e9)
    assert cost.term.key == "generation" and cost.term.detail == "vllm-colocate"
    assert "4 completions of 16 tokens after a 32-token prompt (vllm-colocate)" in render_formula(cost.term)


def test_a_small_vllm_share_runs_in_waves_or_does_not_start() -> None:
    # share = 832,128 B: KV room 832,128 - 404,096 - 409,600 = 18,432 B = 1.5 rows of 48 x 256 B: 1 row at a time,
    # 4 waves; a step over 1 row reads 276,096 + 40 x 256 = 286,336 B
    cost = _cost(_grpo(), capacity=2 * 832_128)
    assert (cost.kv_fits, cost.waves) == (1, 4)
    assert cost.term.part("decode_steps") == 64
    assert cost.seconds - cost.term.part("prefill_seconds") - cost.term.part("sync_seconds") == \
        pytest.approx(64 * 286_336 / 1e9)
    notes = gen.generation_notes(cost, _grpo(), 2 * 832_128)
    assert [(n.code, n.params["fits"], n.params["waves"]) for n in notes] == [("generation.vllm_waves", 1, 4)]
    # a share below weights + prefill chunk: vLLM finds no memory for KV-cache blocks
    small = _cost(_grpo(), capacity=1e6)
    assert not small.engine_starts
    assert [n.code for n in gen.generation_notes(small, _grpo(), 1e6)] == ["generation.vllm_no_kv"]


def test_transformers_generate_is_bounded_by_the_host() -> None:
    # eager model.generate: 1 ms of launches per decode step outlasts the 317 us roofline; no weight sync
    t = _grpo(generation_engine="transformers")
    cost = _cost(t, host=1e-3)
    assert cost.term.part("step_seconds") == pytest.approx(1e-3)
    assert cost.term.part("sync_seconds") == 0.0
    assert cost.seconds == pytest.approx(16e-3 + 36_388_864 / 1e12)


def test_vllm_server_generates_every_trainers_rows_and_broadcasts_the_weights() -> None:
    t = _grpo(generation_engine="vllm-server", num_gpus=2, sharding="ddp")
    cost = _cost(t)
    assert cost.term.part("rows") == 8  # 2 GPUs x 4
    assert cost.term.part("sync_seconds") == pytest.approx(404_096 / 1e9)  # one broadcast over the link


def test_trl_semantics_of_the_workload() -> None:
    t = _grpo()
    assert wl.rows_per_example(t) == 4  # a prompt yields num_generations rows
    assert wl.policy_rows(t) == 2  # per_device_train_batch_size counts completions
    assert wl.logit_positions(t) == 16  # logits_to_keep = the completion
    assert wl.reference_kind(t) == "none" and wl.nograd_passes(t) == (0, 1)  # beta 0; vLLM's old log-probs
    assert wl.nograd_passes(_grpo(generation_engine="transformers")) == (0, 0)
    lora = _grpo(method="lora", kl_beta=0.04, generation_engine="transformers")
    assert wl.reference_kind(lora) == "shared" and wl.nograd_passes(lora) == (1, 0)
    assert wl.reference_kind(_grpo(kl_beta=0.04)) == "copy"
    with pytest.raises(ValidationError, match="completion_tokens"):
        _grpo(completion_tokens=48)


def test_trl_rules_are_noted() -> None:
    codes = [n.code for n in wl.plan_notes(_grpo(micro_batch=3, grad_accumulation=1))]
    assert "generation.divisible" in codes  # 3 completions a step, num_generations 4
    assert "generation.divisible" not in [n.code for n in wl.plan_notes(_grpo())]
    server = [n.params for n in wl.plan_notes(_grpo(generation_engine="vllm-server", vllm_server_gpus=2))
              if n.code == "generation.server_gpus"]
    assert server == [{"n": 2, "trainers": 1}]
    assert "generation.kl_reference" in [n.code for n in wl.plan_notes(_grpo(kl_beta=0.1))]
    for code in ("generation.vllm_no_kv", "generation.vllm_waves", "generation.divisible", "generation.server_gpus",
                 "generation.kl_reference"):
        assert code in NOTES
    for key in ("generation", "vllm_share", "generation_cache"):
        assert key in FORMULAS


def test_memory_holds_the_colocated_share_and_logits_of_the_completion_only() -> None:
    t = _grpo()
    mem, _ = estimate_memory(_tiny(), t, GPU)
    share = 0.5 * 80 * 2**30
    assert mem.component("generation").bytes == pytest.approx(share)  # at every moment: vLLM keeps its share
    assert mem.component("generation").terms[0].key == "vllm_share"
    # the loss side counts 2 rows x 16 completion positions, not 2 x 48
    terms = mem.component("logits").terms
    assert terms and all(term.part("tokens") == 32 for term in terms if term.key == "policy_logps")
    # sleep mode: the share only while generating, next to weights and optimizer states: that moment is the peak
    asleep, _ = estimate_memory(_tiny(), _grpo(vllm_sleep=True), GPU)
    assert asleep.peak_phase == "generation" and asleep.component("generation").bytes == pytest.approx(share)
    # model.generate: its KV cache for all the step's rows at once, 1 x 256 rows of 48 tokens x 256 B = 3,145,728 B,
    # beside weights and optimizer states; with one row per micro-batch that moment outgrows the training step
    hf, _ = estimate_memory(_tiny(), _grpo(generation_engine="transformers", micro_batch=1, grad_accumulation=256), GPU)
    assert hf.peak_phase == "generation"
    assert hf.component("generation").bytes == 256 * 48 * 256
    assert hf.component("generation").terms[0].key == "generation_cache"


def test_step_time_adds_the_generation_and_counts_logits_over_the_completion() -> None:
    t = _grpo()
    st = step_time(_tiny(), t, GPU, 48.0)
    assert st.generation is not None and st.term("generation").value == pytest.approx(st.generation.seconds)
    assert st.seconds == pytest.approx(sum(term.value for term in st.terms))
    # the policy's log-prob kernels over 2 rows x 16 positions x 1,000 logits x (13 + 11) passes x 2 B
    ce = st.term("other_kernels").part("cross_entropy_bytes")
    assert ce == pytest.approx(2 * 16 * 1000 * 24 * 2)
    # vLLM sampled, so the policy's old log-probs: one no-grad pass
    assert st.term("reference").part("passes") == 1


def _cli(*args: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--json", "--model", "llama-3.1-8b",
                           "--gpu", "h100_sxm", "--method", "lora", "--micro-batch", "8", "--seq-len", "1024",
                           "--workload", "grpo", *args], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(proc.stdout)[0]


def test_cli_grpo_in_a_subprocess() -> None:
    d = _cli("--generation-engine", "vllm-colocate", "--completion-tokens", "512", "--vllm-memory-share", "0.4")
    assert d["workload"]["grpo"]["prompt_tokens"] == 512 and d["workload"]["rows_per_example"] == 8
    assert "generation" in d["time"]["step_seconds"]["parts"]
    # H100 SXM5: 79.65 GiB x 0.4
    assert d["memory"]["components"]["generation"] == pytest.approx(0.4 * 79.65 * 2**30, rel=1e-3)
    server = _cli("--generation-engine", "vllm-server", "--vllm-server-gpus", "1")
    local = _cli("--generation-engine", "vllm-server", "--vllm-server-gpus", "3")
    # billed GPUs: 1 + 1 against 1 + 3, for each one's own billed hours
    per_gpu_hour = [d["cost"]["gpu_usd"] / d["cost"]["billed_hours"] for d in (server, local)]
    assert per_gpu_hour[1] == pytest.approx(per_gpu_hour[0] * 2, rel=1e-6)
    # three data-parallel server engines share the step's 8 rows (3 each at most): fewer rows per decode step
    assert local["time"]["step_seconds"]["parts"]["generation"] < server["time"]["step_seconds"]["parts"]["generation"]
    text = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--model", "llama-3.1-8b", "--gpu", "h100_sxm",
                           "--method", "lora", "--micro-batch", "8", "--seq-len", "1024", "--workload", "grpo",
                           "--generation-engine", "vllm-server", "--vllm-server-gpus", "3"], capture_output=True,
                          text=True, timeout=120, check=True).stdout
    assert "H100 SXM5 80GB x1 + 3 for the vLLM server" in text and "/GPU-h x 4" in text
    assert "GRPO's old log-probs" in text  # the no-grad pass is named for what it is
    bad = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--workload", "grpo", "--seq-len", "256",
                          "--completion-tokens", "512"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "completion_tokens" in bad.stderr


def _steps(*args: str) -> float:
    proc = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--json", "--model", "qwen2.5-0.5b", "--gpu",
                           "h100_sxm", "--method", "full", "--micro-batch", "8", "--seq-len", "1024", "--workload",
                           "grpo", "--dataset-examples", "1000", "--epochs", "1", *args],
                          capture_output=True, text=True, timeout=120, check=True)
    d = json.loads(proc.stdout)[0]
    return d["time"]["steps"], [w["code"] for w in d["warning_codes"]]


@pytest.mark.parametrize("mode", ["packed", "fixed", "dynamic"])
def test_grpo_steps_count_prompts_whatever_the_sequence_mode(mode: str) -> None:
    """1,000 prompts x 8 completions = 8,000 rows of prompt + completion; 8 completions per step (micro-batch 8,
    accumulation 1, one GPU): 1,000 optimizer steps, whatever the examples' token count (a GRPO row is seq_len: TRL
    pads prompts and completions, it never packs). Packed mode (the CLI's default) used to count the 512-token
    examples packed into 1,024-token rows: 500 steps, and 98 with 100-token examples."""
    for tokens in ("100", "2000"):
        steps, codes = _steps("--sequence-mode", mode, "--tokens-per-example", tokens)
        assert steps == 1000
        assert ("generation.rows_fixed" in codes) == (mode != "fixed")
        assert "workload.packed_unavailable" not in codes


def test_grpo_total_tokens_count_prompts_of_their_length() -> None:
    # 256,000 prompt tokens of 256-token prompts: 1,000 prompts, 1,000 steps as above
    steps, _ = _steps("--total-tokens", "256000", "--tokens-per-example", "256", "--sequence-mode", "fixed")
    assert steps == 1000


def test_the_no_kv_note_names_every_weight_the_engine_loads() -> None:
    """Qwen3-30B-A3B: 30,532,122,624 parameters, all loaded by vLLM in bf16: 56.87 GiB, more than half an H100's
    79.65 GiB (39.8 GiB). A decode step over 8 rows reads only the experts they route to (24.1 GiB), which the note
    used to report as the model's weights."""
    proc = subprocess.run([sys.executable, "-m", "tuneplan", "estimate", "--json", "--model", "qwen3-30b-a3b",
                           "--gpu", "h100_sxm", "--method", "lora", "--micro-batch", "8", "--seq-len", "1024",
                           "--workload", "grpo", "--generation-engine", "vllm-colocate", "--vllm-memory-share", "0.5"],
                          capture_output=True, text=True, timeout=120, check=True)
    notes = [n for n in json.loads(proc.stdout)[0]["time"]["notes"] if n["code"] == "generation.vllm_no_kv"]
    assert len(notes) == 1
    assert notes[0]["params"]["weights_gib"] == pytest.approx(30_532_122_624 * 2 / 2**30, abs=0.05)  # 56.9
    assert notes[0]["params"]["share_gib"] == pytest.approx(39.8, abs=0.05)


def test_a_4bit_base_is_read_through_bitsandbytes_dequantisation_beyond_one_row() -> None:
    # NF4 storage 0.5 B per layer weight: one row at a time gemv_4bit reads it packed, 73,728 x 0.5 + 64,320 x 2;
    # four rows dequantise each matrix (read 0.5, write 2) and the GEMM reads the bf16 copy (2): 73,728 x 4.5 +
    # 64,320 x 2 per decode step; the vLLM share still stores the weights at 0.5 B
    def cost(rows: int) -> gen.GenerationCost:
        t = _grpo(micro_batch=rows, grad_accumulation=1, num_generations=2)
        return gen.generation_cost(_tiny(), t, rate=1e12, bandwidth=1e9, host_step_seconds=0.0, capacity_bytes=1e9,
                                   link_bandwidth=1e9, activation_bytes_per_token=100.0, layer_weight_bytes=0.5)
    assert cost(1).term.part("weight_bytes") == 73_728 * 0.5 + 64_320 * 2
    assert cost(4).term.part("weight_bytes") == 73_728 * 4.5 + 64_320 * 2


def test_server_gpus_share_the_rows_and_must_hold_the_model() -> None:
    # 2 trainers x 4 rows = 8 rows on 3 data-parallel server engines: ceil(8 / 3) = 3 rows each
    t = _grpo(generation_engine="vllm-server", num_gpus=2, sharding="ddp", vllm_server_gpus=3)
    assert _cost(t).term.part("rows") == 3
    # a server GPU takes trl vllm-serve's 0.9 of its memory: 0.9 x 900,000 B = 810,000 B cannot hold the 404,096 B
    # of weights and a 4,096-token prefill chunk of 100 B per token (813,696 B)
    small = _cost(_grpo(generation_engine="vllm-server"), capacity=9e5)
    assert not small.engine_starts
    assert [n.code for n in gen.generation_notes(small, _grpo(generation_engine="vllm-server"), 9e5)] == [
        "generation.server_no_room"]
    assert gen.SERVER_MEMORY_SHARE == 0.9


def test_a_measured_mfu_keeps_the_generation_on_top() -> None:
    # --mfu is the training step's measured utilisation; GRPO's generation phase is added to it, not dropped
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate

    s = catalog.default_scenario()
    t = s.training.model_copy(update=dict(workload="grpo", generation_engine="vllm-colocate", seq_len=1024,
                                          completion_tokens=512, micro_batch=8, mfu_override=0.3))
    r = estimate(s.model_copy(update={"training": t}))
    terms = {term.key: term.value for term in r.time.step_terms}
    assert terms["generation"] > 0
    spec = s.gpu.peak_tflops * 1e12
    assert r.time.step_seconds == pytest.approx(r.time.tokens_per_step * r.time.flops_per_token / (spec * 0.3)
                                                + terms["generation"])


def test_a_plan_grpo_or_vllm_refuses_is_marked_as_one_that_cannot_run() -> None:
    """Llama 3.1 8B LoRA on an RTX 4090 (23.99 GiB) with a colocated vLLM at TRL's default 0.3: 7.2 GiB cannot hold
    the 15.0 GiB of bf16 weights, so vLLM does not start; micro-batch 1 x accumulation 1 = 1 completion a step is no
    multiple of num_generations 8, which GRPOConfig refuses. The CLI says so beside the verdict, its JSON has
    runnable false, and compare-gpus marks the cards where it cannot run instead of offering them as the cheapest."""
    base = [sys.executable, "-m", "tuneplan", "estimate", "--model", "llama-3.1-8b", "--gpu", "rtx4090",
            "--method", "lora", "--workload", "grpo", "--generation-engine", "vllm-colocate", "--seq-len", "1024",
            "--completion-tokens", "512"]
    text = subprocess.run(base, capture_output=True, text=True, timeout=120, check=True).stdout
    assert "CANNOT RUN as planned: the colocated vLLM engine's share (30% of the card, 7.2 GiB)" in text
    assert "CANNOT RUN as planned: GRPO needs the completions of a step" in text
    doc = json.loads(subprocess.run([*base, "--json"], capture_output=True, text=True, timeout=120,
                                    check=True).stdout)[0]
    assert doc["runnable"] is False
    ok = json.loads(subprocess.run([*base, "--json", "--gpu", "h100_sxm", "--micro-batch", "8"], capture_output=True,
                                   text=True, timeout=120, check=True).stdout)[0]
    assert ok["runnable"] is True  # 0.3 x 79.65 GiB holds the weights; 8 completions a step
    from tuneplan import catalog
    from tuneplan.core.compare import compare_gpus

    s = catalog.default_scenario()
    t = s.training.model_copy(update=dict(method="lora", workload="grpo", generation_engine="vllm-colocate",
                                          seq_len=1024, completion_tokens=512, micro_batch=8))
    rows = {r.gpu_id: r for r in compare_gpus(s.model_copy(update={"training": t}),
                                              [catalog.get_gpu("rtx4090"), catalog.get_gpu("h100_sxm")], {})}
    assert rows["rtx4090"].blocked is not None and not rows["rtx4090"].compatible
    assert rows["h100_sxm"].blocked is None and rows["h100_sxm"].compatible


def test_the_likely_range_does_not_scale_the_fixed_vllm_share() -> None:
    # the measured error band (MEASURED_ERROR) widens the estimated part only; the 0.5 x 80 GiB share is added as is
    from tuneplan.core.memory import likely_range

    mem, _ = estimate_memory(_tiny(), _grpo(), GPU)
    share = 0.5 * 80 * 2**30
    low, high = likely_range(mem.total_bytes - share, "fixed")
    assert (mem.low_bytes, mem.high_bytes) == (pytest.approx(low + share), pytest.approx(high + share))


def test_weight_sync_gathers_shards_and_merges_adapters_by_hand() -> None:
    # (pinned after a mutmut run over core/generation.py) Colocated vLLM, the tiny model's 202,048 bf16 weights
    # (404,096 B), link and memory at 1e9 B/s. ZeRO-3 over 4 GPUs: the other 3/4 gathered, 303,072 B -> 303.072 us,
    # then load_weights reads and writes the whole model, 2 x 404,096 B -> 808.192 us.
    sharded = _cost(_grpo(num_gpus=4, sharding="zero3"))
    assert sharded.term.part("sync_seconds") == pytest.approx((404_096 * 3 / 4 + 2 * 404_096) / 1e9, rel=1e-12)
    # LoRA: merge_adapter and unmerge_adapter read and write the adapted layers' weights twice: 4 x 73,728 x 2 B
    # = 589,824 B -> 589.824 us, beside the copy
    lora = _cost(_grpo(method="lora"))
    assert lora.term.part("sync_seconds") == pytest.approx((4 * 73_728 * 2 + 2 * 404_096) / 1e9, rel=1e-12)
    # a server engine has the weights broadcast to it over the link, once: 404,096 B -> 404.096 us, no local copy
    server = _cost(_grpo(generation_engine="vllm-server", vllm_server_gpus=1))
    assert server.term.part("sync_seconds") == pytest.approx(404_096 / 1e9, rel=1e-12)
    # the training model's own generate needs no sync
    assert _cost(_grpo(generation_engine="transformers")).term.part("sync_seconds") == 0.0
