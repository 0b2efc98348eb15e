"""Parameter counts and memory components against published numbers and hand calculations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tuneplan.core.architecture import ModelArchitecture, UnsupportedModelError, architecture_from_hf_config
from tuneplan.core.memory import estimate_memory, lora_parameter_count, nf4_bytes_per_param
from tuneplan.core.result import GIB
from tuneplan.core.scenario import GpuSpec, TrainingSetup

REF = Path(__file__).resolve().parents[3] / "shared" / "reference" / "measurements" / "configs"

LLAMA_2_7B = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
              "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000, "tie_word_embeddings": False}
LLAMA_3_8B = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
              "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": False}
GPU_24 = GpuSpec(id="test24", name="Test 24 GiB", memory_gib=24.0, bf16_tflops=100)


def test_llama_2_7b_parameter_count_matches_model_card():
    # Meta's Llama-2-7B: sum(p.numel()) = 6,738,415,616 (transformers; model card "7B", paper Table 1 6.7B)
    assert architecture_from_hf_config(LLAMA_2_7B).parameter_count() == 6_738_415_616


def test_llama_3_8b_parameter_count_and_bf16_weights():
    arch = architecture_from_hf_config(LLAMA_3_8B)
    # Meta-Llama-3-8B: 8,030,261,248 parameters (HF safetensors index total_size 16,060,522,496 B / 2)
    assert arch.parameter_count() == 8_030_261_248
    mem, _ = estimate_memory(arch, TrainingSetup(method="lora", lora_targets="q_v"), GPU_24)
    # 8,030,261,248 x 2 B / 2**30 = 14.957 GiB
    assert mem.component("weights").bytes / GIB == pytest.approx(14.957, abs=0.001)


def test_gqa_and_head_dim_shapes():
    # Qwen3-8B-like: head_dim 128 with 32 heads at hidden 4096 and 8 KV heads
    arch = architecture_from_hf_config({**LLAMA_3_8B, "head_dim": 128})
    q, k, v, o = arch.attention_modules()
    assert (q.d_out, k.d_out, v.d_out, o.d_in) == (4096, 1024, 1024, 4096)
    gemma = architecture_from_hf_config({**LLAMA_3_8B, "model_type": "gemma", "head_dim": 256, "num_attention_heads": 8,
                                          "num_key_value_heads": 1})
    assert gemma.q_dim == 2048 and gemma.kv_dim == 256  # head_dim differs from hidden / heads (512)


def test_tied_embeddings_counted_once():
    untied = architecture_from_hf_config(LLAMA_3_8B)
    tied = architecture_from_hf_config({**LLAMA_3_8B, "tie_word_embeddings": True})
    assert untied.parameter_count() - tied.parameter_count() == 128256 * 4096


@pytest.mark.parametrize("name", ["llama-2-7b", "llama-3.1-70b", "mistral-7b-v0.1", "qwen-7b", "falcon-40b",
                                  "phi-1_5", "gpt-oss-20b", "chatglm3-6b", "bloomz-7b1"])
def test_reference_configs_match_their_published_counts(name):
    path = REF / f"{name}.json"
    if not path.exists():
        pytest.skip("shared reference configs not present")
    cfg = json.loads(path.read_text())
    # _params_b is the reference's own count from the published config (checked against the model cards)
    assert architecture_from_hf_config(cfg).parameter_count() / 1e9 == pytest.approx(cfg["_params_b"], rel=0.002)


def test_encoder_decoder_is_refused_with_a_reason():
    with pytest.raises(UnsupportedModelError, match="encoder-decoder"):
        architecture_from_hf_config({"model_type": "t5", "d_model": 512, "num_layers": 6, "num_heads": 8, "vocab_size": 32128})


def test_missing_field_names_the_field():
    with pytest.raises(UnsupportedModelError, match="num_hidden_layers"):
        architecture_from_hf_config({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "vocab_size": 100})


def test_lora_parameter_counts_match_peft():
    arch = architecture_from_hf_config(LLAMA_3_8B)
    # PEFT print_trainable_parameters on Llama-3-8B, r=16:
    # q_proj,v_proj: per layer 16*(4096+4096) + 16*(4096+1024) = 212,992; x 32 = 6,815,744
    assert lora_parameter_count(arch, 16, "q_v") == 6_815_744
    # all-linear: q 131,072 + k 81,920 + v 81,920 + o 131,072 + 3 x 16*(4096+14336) = 1,310,720 per layer
    assert lora_parameter_count(arch, 16, "all-linear") == 41_943_040


def test_nf4_bytes_per_parameter():
    # QLoRA §3: 4 bits + 32/64 = 4.5 bits without double quantization; 4 + 8/64 + 32/(64*256) with it
    assert nf4_bytes_per_param(False) == pytest.approx(4.5 / 8)
    assert nf4_bytes_per_param(True) == pytest.approx((4 + 0.125 + 32 / 16384) / 8)


def test_qlora_weights_keep_embeddings_out_of_nf4():
    # Default: embeddings/head/norms stay bf16 (axolotl casts them back after prepare_model_for_kbit_training;
    # current TRL, torchtune, Unsloth never upcast); a plain PEFT script leaves them fp32.
    arch = architecture_from_hf_config(LLAMA_3_8B)
    mem, _ = estimate_memory(arch, TrainingSetup(method="qlora", double_quant=True), GPU_24)
    up, _ = estimate_memory(arch, TrainingSetup(method="qlora", double_quant=True, kbit_fp32_upcast=True), GPU_24)
    layers = arch.layer_linear_params()
    other = arch.parameter_count() - layers  # 2 x 128256 x 4096 embeddings/head + norms
    nf4 = layers * (4 + 0.125 + 32 / 16384) / 8
    assert mem.component("weights").bytes == pytest.approx(nf4 + other * 2)
    assert up.component("weights").bytes == pytest.approx(nf4 + other * 4)


def test_full_finetune_pure_bf16_adamw_states():
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="full", optimizer="adamw-fused", micro_batch=1, seq_len=512)
    _, led = estimate_memory(arch, t, GPU_24)
    n = 8_030_261_248
    assert led.optimizer == 2 * 2 * n  # two bf16 moments (torch keeps states in the parameter dtype)
    assert led.gradients == 2 * n
    assert led.step_temporaries == 0  # fused AdamW: no foreach temporaries
    t8 = t.model_copy(update={"optimizer": "adamw-8bit"})
    _, led8 = estimate_memory(arch, t8, GPU_24)
    assert led8.optimizer == pytest.approx(n * (2 + 8 / 256))


def _tiny() -> ModelArchitecture:
    return ModelArchitecture(name="tiny", hidden_size=64, num_layers=2, num_attention_heads=4, num_kv_heads=2,
                             head_dim=16, intermediate_size=128, vocab_size=1000)


def test_activation_ledger_by_hand_full_flash():
    # per token per layer, bf16, full fine-tuning, FlashAttention:
    #   2 RMSNorms x (fp32 input copy 4*64 + bf16 normalised input of the weight mul 2*64) = 768
    #   norm output saved by q/k/v (2*64) = 128; q 2*64 + k 2*32 + v 2*32 = 256
    #   attention output 2*64 + fp32 LSE 4*4 heads = 144; MLP input 2*64 = 128
    #   gate, up, SiLU(gate) 3*2*128 = 768; down_proj input 2*128 = 256      -> 2448 B
    _, led = estimate_memory(_tiny(), TrainingSetup(method="full", grad_checkpointing=False, attention="flash",
                                                    micro_batch=1, seq_len=100), GPU_24)
    assert led.activation_per_layer_token == 2448


def test_activation_ledger_by_hand_lora_q_v_no_dropout():
    # frozen linears save nothing; PEFT casts the norm output to the fp32 adapter dtype and autocast casts it
    # back for lora_A, so q's and v's lora_A each save their own bf16 copy (2 x 2*64 = 256 B)
    #   norms 2 x 4*64 = 512; lora_A inputs 256; q,k,v 256; out+LSE 144
    #   gate, up, SiLU(gate) 768 (down is frozen: its input is not saved)
    #   lora_A outputs saved by lora_B: 2 adapted x r(8) x 2 B = 32                 -> 1968 B
    t = TrainingSetup(method="lora", lora_targets="q_v", lora_rank=8, lora_dropout=0.0, grad_checkpointing=False)
    _, led = estimate_memory(_tiny(), t, GPU_24)
    assert led.activation_per_layer_token == 1968
    # QLoRA's bitsandbytes layers skip that cast under autocast: lora_A reads the norm output itself, saved once
    _, q = estimate_memory(_tiny(), t.model_copy(update={"method": "qlora"}), GPU_24)
    assert q.activation_per_layer_token == 1968 - 256 + 128


def test_activation_ledger_qlora_base_saves_no_input():
    # bitsandbytes >= 0.43.2 MatMul4Bit.forward keeps ctx.tensors = (None, B): the frozen NF4 weight
    # only, not the input (bitsandbytes/autograd/_functions.py), so QLoRA saves what LoRA saves
    # (the tiny q_v layer of the test above, 1968 B, with lora_A reading the norm output itself: PEFT's
    # bitsandbytes layers skip the fp32 cast under autocast, so it is saved once, 128 B, not as two copies,
    # 256 B -> 1840 B) when the residual stream is bf16.
    t = TrainingSetup(method="qlora", lora_targets="q_v", lora_rank=8, lora_dropout=0.0, grad_checkpointing=False,
                      kbit_fp32_upcast=False)
    _, led = estimate_memory(_tiny(), t, GPU_24)
    assert led.activation_per_layer_token == 1840
    # With PEFT's fp32 upcast the norm output is fp32 and Linear4bit.forward returns its input's dtype,
    # so gate, up and SiLU(gate) are fp32: 3 x 128 x (4 - 2) = 768 B more
    _, up = estimate_memory(_tiny(), t.model_copy(update={"kbit_fp32_upcast": True}), GPU_24)
    assert up.activation_per_layer_token == 1840 + 768


def test_logits_buffers_scale_with_vocab_and_tokens():
    arch = _tiny()
    t = TrainingSetup(method="lora", micro_batch=2, seq_len=100)
    _, led = estimate_memory(arch, t, GPU_24)
    # at the loss's backward: 200 tokens x 1000 vocab x (4 fp32 log-softmax + 4 + 4 fp32 gradients);
    # the bf16 logits were dropped with the model output (PyTorch MemTracker, docs/validation.md)
    assert led.logits == 200 * 1000 * 12
    _, fused = estimate_memory(arch, t.model_copy(update={"fused_cross_entropy": True}), GPU_24)
    assert fused.logits < led.logits / 4


def test_checkpointing_keeps_one_hidden_state_per_layer():
    arch = architecture_from_hf_config(LLAMA_2_7B)
    base = TrainingSetup(method="lora", micro_batch=1, seq_len=2048)
    _, on = estimate_memory(arch, base.model_copy(update={"grad_checkpointing": True}), GPU_24)
    _, off = estimate_memory(arch, base.model_copy(update={"grad_checkpointing": False}), GPU_24)
    head = 4 * 4096 * 2048  # final RMSNorm fp32 copy, present in both
    # autocast's bf16 copies of the fp32 adapters: 2 B x LoRA params, one layer's worth with checkpointing
    lora = lora_parameter_count(arch, 16, "all-linear") * 2
    on.activations -= lora / 32
    off.activations -= lora
    # with checkpointing: 32 layers x 2 B x 4096 x 2048 tokens + one recomputed layer
    assert on.activations - head == pytest.approx(32 * 2 * 4096 * 2048 + on.activation_per_layer_token * 2048)
    assert off.activations - head == pytest.approx(32 * off.activation_per_layer_token * 2048)


def test_sharding_divides_model_states():
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="full", optimizer="adamw-fused", num_gpus=8, sharding="zero1")
    _, z1 = estimate_memory(arch, t, GPU_24)
    _, z3 = estimate_memory(arch, t.model_copy(update={"sharding": "zero3"}), GPU_24)
    n = 8_030_261_248
    # DeepSpeed steps an fp32 master partition with fp32 moments: 2 x 4 B x n / 8 GPUs = n bytes
    assert z1.optimizer == pytest.approx(2 * 4 * n / 8)
    assert z1.gradients == pytest.approx(2 * n)  # ZeRO-1 keeps full bf16 gradients
    assert z3.gradients == pytest.approx(2 * n / 8)
    # ZeRO-1 keeps the whole bf16 module on every GPU, plus its fp32 master partition
    assert z1.weights == pytest.approx(2 * n + 4 * n / 8)
    # ZeRO-3: a bf16 shard and the fp32 master partition (the gathered layers are counted apart, while they compute)
    assert z3.weights == pytest.approx(2 * n / 8 + 4 * n / 8)
    # the step converts the partition's gradients to fp32 (fused AdamW adds no foreach temporary): ZeRO-1 the whole
    # partition, n / 8 = 1,003,782,656 elements x 4 B; ZeRO-3 one sub-group of at most 1e9 elements x 4 B
    assert z1.step_temporaries == pytest.approx(4 * n / 8)
    assert z3.step_temporaries == pytest.approx(4 * 1e9)


def test_totals_order_and_components_sum():
    arch = architecture_from_hf_config(LLAMA_3_8B)
    for mode in ("packed", "fixed", "dynamic"):
        mem, _ = estimate_memory(arch, TrainingSetup(sequence_mode=mode), GPU_24)
        # with dynamic padding peak reserved also holds the releasable cache, which the total leaves out
        assert mem.peak_allocated_bytes <= mem.peak_reserved_bytes - mem.cache_bytes <= mem.total_bytes
        assert (mem.cache_bytes > 0) == (mode == "dynamic")
        assert sum(c.bytes for c in mem.components) == pytest.approx(mem.total_bytes)
        assert mem.capacity_bytes == 24 * GIB


def test_dynamic_padding_adds_a_cache_to_reserved_but_not_to_what_must_fit():
    # docs/validation-allocator.md: replayed through the caching allocator, random-order dynamic padding leaves
    # about one transient set (activations + loss buffers + temporaries) of earlier, shorter batches cached on a
    # roomy card under LoRA (DYNAMIC_SHAPE_CACHE["lora"] = 1.0), which the allocator releases before failing; the
    # memory that must fit keeps the same 15% fragmentation as fixed shapes. Full fine-tuning keeps none.
    from tuneplan.core.memory import CUDA_CONTEXT_BYTES, DYNAMIC_SHAPE_CACHE

    arch = architecture_from_hf_config(LLAMA_3_8B)
    roomy = GPU_24.model_copy(update={"memory_gib": 80.0})
    plan = TrainingSetup(method="lora", lora_targets="q_v", seq_len=2048, micro_batch=2)
    packed, _ = estimate_memory(arch, plan, roomy)
    dynamic, led = estimate_memory(arch, plan.model_copy(update={"sequence_mode": "dynamic"}), roomy)
    transient = led.activations + led.logits + led.temporaries
    assert DYNAMIC_SHAPE_CACHE["lora"] == 1.0 and packed.cache_bytes == 0
    assert dynamic.cache_bytes == pytest.approx(transient)
    assert dynamic.peak_reserved_bytes == pytest.approx(packed.peak_reserved_bytes + transient)
    assert (dynamic.total_bytes, dynamic.peak_allocated_bytes) == (packed.total_bytes, packed.peak_allocated_bytes)
    assert sum(c.bytes for c in dynamic.components) == pytest.approx(dynamic.total_bytes)  # the cache is not a segment
    # on a card with less room, max_memory_reserved can only grow until the card is full
    tight = GPU_24.model_copy(update={"memory_gib": (dynamic.total_bytes + transient / 2) / GIB})
    capped, _ = estimate_memory(arch, plan.model_copy(update={"sequence_mode": "dynamic"}), tight)
    assert capped.peak_reserved_bytes == pytest.approx(tight.memory_gib * GIB - CUDA_CONTEXT_BYTES)
    assert capped.cache_bytes == pytest.approx(transient / 2) and capped.fits
    full, _ = estimate_memory(arch, plan.model_copy(update={"method": "full", "sequence_mode": "dynamic"}), roomy)
    assert full.cache_bytes == 0 and full.peak_reserved_bytes <= full.total_bytes


def test_verdict_wording():
    arch = architecture_from_hf_config(LLAMA_3_8B)
    small = GPU_24.model_copy(update={"memory_gib": 8.0})
    full = TrainingSetup(method="full")
    mem, _ = estimate_memory(arch, full, small)
    assert not mem.fits and mem.verdict().startswith("short by ")
    mem2, _ = estimate_memory(arch, TrainingSetup(method="qlora", seq_len=512), GPU_24)
    assert mem2.fits and mem2.verdict().startswith("fits, ") and mem2.verdict().endswith("GiB spare")


def test_encoder_only_configs_are_refused():
    bert = {"model_type": "bert", "hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12,
            "intermediate_size": 3072, "vocab_size": 30522, "architectures": ["BertForMaskedLM"]}
    with pytest.raises(UnsupportedModelError, match="encoder-only"):
        architecture_from_hf_config(bert)
    m2m = {"model_type": "m2m_100", "d_model": 1024, "encoder_layers": 24, "num_hidden_layers": 24,
           "encoder_attention_heads": 16, "vocab_size": 128112}
    with pytest.raises(UnsupportedModelError, match="encoder-decoder"):
        architecture_from_hf_config(m2m)


def test_master_weights_do_not_apply_to_nf4_and_lora_casts_follow_checkpointing():
    arch = architecture_from_hf_config(LLAMA_3_8B)
    q = TrainingSetup(method="qlora")
    plain, _ = estimate_memory(arch, q, GPU_24)
    master, _ = estimate_memory(arch, q.model_copy(update={"master_weights": "fp32"}), GPU_24)
    assert master.component("weights").bytes == plain.component("weights").bytes  # NF4 is never fp32
    lora = TrainingSetup(method="lora", master_weights="fp32")
    _, gc_on = estimate_memory(arch, lora, GPU_24)
    _, gc_off = estimate_memory(arch, lora.model_copy(update={"grad_checkpointing": False}), GPU_24)
    layer = 218_103_808  # one Llama-3-8B layer's matrices: 4096*(4096+1024+1024+4096) + 3*4096*14336
    # fp32 base (4 B/param) + bf16 autocast casts: one layer with checkpointing, all 32 without
    assert gc_on.weights == 8_030_261_248 * 4 + layer * 2
    assert gc_off.weights == 8_030_261_248 * 4 + 32 * layer * 2


def test_fsdp_gathers_the_largest_layer_and_not_during_the_optimizer_step():
    arch = architecture_from_hf_config(LLAMA_3_8B)
    # (embeddings and LM head sharded as units of their own: the root unit's terms are tested below)
    t = TrainingSetup(method="full", optimizer="adamw", num_gpus=8, sharding="fsdp", grad_checkpointing=True,
                      fsdp_wrap="separate-embeddings")
    mem, led = estimate_memory(arch, t, GPU_24.model_copy(update={"memory_gib": 80.0}))
    n = 8_030_261_248
    assert led.weights == pytest.approx(2 * n / 8)  # shards only; gathered layers are transient
    if mem.peak_phase == "optimizer step":
        assert mem.component("weights").bytes == pytest.approx(2 * n / 8)
    else:
        # the larger of two gathered layers (each 218,103,808 weights + two norms of 4,096, x 2 B = 436,224,000 B)
        # and the LM head unit (128,256 x 4,096 x 2 B = 1,050,673,152 B) next to one prefetched layer:
        # 1,486,897,152 B
        assert mem.component("weights").bytes == pytest.approx(2 * n / 8 + 1_486_897_152)


def test_paged_optimizer_states_are_reported_but_not_counted_against_capacity():
    # torchtune's llama3_1/8B_full_single_device recipe: full bf16, bitsandbytes PagedAdamW8bit,
    # optimizer step in backward; the torchtune README reports it running on an RTX 4090 (24 GB).
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="full", optimizer="paged-adamw-8bit", optimizer_in_backward=True,
                      micro_batch=2, seq_len=2048, grad_checkpointing=True, fused_cross_entropy=True)
    mem, led = estimate_memory(arch, t, GPU_24)
    n = 8_030_261_248
    # two uint8 moments per parameter in unified memory (arXiv:2110.02861; every matrix is >= 1e5 elements);
    # the fp32 absmax per 256 elements of each moment stays an ordinary device tensor (torch.zeros)
    assert mem.paged_bytes == pytest.approx(n * 2)
    assert led.optimizer == pytest.approx(n * 2 * 4 / 256)
    # they are in unified memory, which the driver pages out to host RAM: not in the device total
    assert sum(c.bytes for c in mem.components) == pytest.approx(mem.total_bytes)
    assert mem.total_bytes < mem.peak_reserved_bytes + GIB
    assert mem.fits


TINY_MIXTRAL = {"model_type": "mixtral", "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 1,
                "num_attention_heads": 8, "num_key_value_heads": 2, "num_local_experts": 4, "num_experts_per_tok": 2,
                "vocab_size": 1000, "tie_word_embeddings": False}


def test_lora_on_stacked_experts_counts_peft_param_wrapper_shapes():
    # PEFT 0.21 + transformers 5, LoraConfig(r=4, target_modules="all-linear") on this tiny Mixtral,
    # adapter shapes printed by PEFT (lora_A, lora_B):
    #   q (4,256)+(256,4) = 2048; k, v (4,256)+(64,4) = 1280 each; o 2048           -> 6,656
    #   router gate.weight (4,256)+(4,4) = 1,040
    #   experts.gate_up_proj (32,256)+(1024,32) = 40,960  (rank 2r per expert, 4 experts)
    #   experts.down_proj (16,512)+(256,16) = 12,288                                -> 60,944
    arch = architecture_from_hf_config(TINY_MIXTRAL)
    assert lora_parameter_count(arch, 4, "all-linear") == 60_944
    assert lora_parameter_count(arch, 4, "q_v") == 2048 + 1280  # plain nn.Linear adapters


def test_lora_on_stacked_experts_saves_the_merged_expert_weights():
    # ParamWrapper computes W + delta-W for the whole expert stack in bf16 and the expert matmul saves it:
    # 4 experts x (gate 256x512 + up 256x512 + down 512x256) x 2 B = 4 x 393,216 x 2 = 3,145,728 B per layer
    arch = architecture_from_hf_config(TINY_MIXTRAL)
    t = TrainingSetup(method="lora", lora_targets="all-linear", lora_rank=4, lora_dropout=0.0,
                      grad_checkpointing=False, micro_batch=1, seq_len=64)
    _, led = estimate_memory(arch, t, GPU_24)
    assert led.merged_expert_bytes == 3_145_728
    # a token-independent term: not folded into the per-token figure
    _, longer = estimate_memory(arch, t.model_copy(update={"seq_len": 128}), GPU_24)
    assert longer.activation_per_layer_token == led.activation_per_layer_token
    # 64 more tokens add one layer's per-token set plus the final norm's fp32 input (4 x 256 B), nothing else
    assert longer.activations - led.activations == pytest.approx(64 * (led.activation_per_layer_token + 4 * 256))
    _, attn_only = estimate_memory(arch, t.model_copy(update={"lora_targets": "qkvo"}), GPU_24)
    assert attn_only.merged_expert_bytes == 0


def test_moe_types_outside_peft_conversion_keep_their_experts_frozen():
    # PEFT 0.21 all-linear reaches the stacked experts only for the model types it converts (mixtral,
    # qwen3_moe, olmoe, ...); on qwen2_moe or gpt_oss it adapts the nn.Linear modules only: here the
    # attention, q 4x(256+256) = 2048, k 4x(256+64) = 1280, v 1280, o 2048 -> 6,656 for r = 4
    arch = architecture_from_hf_config(TINY_MIXTRAL).model_copy(update={"model_type": "gpt_oss"})
    assert lora_parameter_count(arch, 4, "all-linear") == 6_656
    t = TrainingSetup(method="lora", lora_targets="all-linear", lora_rank=4, lora_dropout=0.0, grad_checkpointing=False)
    _, led = estimate_memory(arch, t, GPU_24)
    assert led.merged_expert_bytes == 0


def test_qlora_leaves_stacked_experts_unquantised_in_fp32():
    # transformers >= 5: experts are 3-D nn.Parameters, not nn.Linear, so bitsandbytes does not quantise
    # them, and PEFT's prepare_model_for_kbit_training casts every non-Params4bit bf16 tensor to fp32.
    # Tiny Mixtral: attention 163,840 + router 1,024 = 164,864 NF4 parameters; experts 1,572,864 and
    # embeddings + LM head + norms 512,768 at 4 B.
    arch = architecture_from_hf_config(TINY_MIXTRAL)
    _, led = estimate_memory(arch, TrainingSetup(method="qlora", lora_targets="q_v", kbit_fp32_upcast=True), GPU_24)
    assert led.weights == pytest.approx(164_864 * nf4_bytes_per_param(True) + (512_768 + 1_572_864) * 4)
    _, kept = estimate_memory(arch, TrainingSetup(method="qlora", lora_targets="q_v"), GPU_24)
    assert kept.weights == pytest.approx(164_864 * nf4_bytes_per_param(True) + (512_768 + 1_572_864) * 2)


def test_moe_all_linear_lora_with_dropout_warns_that_peft_refuses_it():
    # PEFT 0.21 ParamWrapper.update_layer: ValueError "does not work with lora_dropout != 0"
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate
    from tuneplan.core.scenario import Scenario

    base = catalog.default_scenario()
    arch = architecture_from_hf_config(TINY_MIXTRAL)
    s = base.model_copy(update={"model": arch, "training": base.training.model_copy(
        update={"method": "lora", "lora_targets": "all-linear", "lora_dropout": 0.05})})
    assert any("ParamWrapper" in w for w in estimate(Scenario.model_validate(s.model_dump())).warnings)
    no_dropout = s.model_copy(update={"training": s.training.model_copy(update={"lora_dropout": 0.0})})
    assert not any("ParamWrapper" in w for w in estimate(no_dropout).warnings)


def _scenario(**training):
    from tuneplan import catalog

    base = catalog.default_scenario()
    return base.model_copy(update={"training": base.training.model_copy(update=training)})


def test_paged_states_larger_than_the_free_memory_are_warned_about():
    from tuneplan.core.estimate import estimate

    # Llama 3.1 8B full, paged 32-bit AdamW: 2 x 4 B x 8.03e9 = 59.8 GiB of states on a 24 GiB card
    r = estimate(_scenario(method="full", optimizer="paged-adamw-32bit", optimizer_in_backward=True))
    assert r.memory.paged_bytes == pytest.approx(8 * 8_030_261_248)
    over = r.memory.paged_bytes - (r.memory.capacity_bytes - r.memory.total_bytes)
    assert any(f"about {over / GIB:.1f} GiB live in CPU RAM" in w for w in r.warnings)


def test_fused_optimizer_step_with_accumulation_is_warned_about():
    from tuneplan.core.estimate import estimate

    warned = estimate(_scenario(method="full", optimizer_in_backward=True, grad_accumulation=4)).warnings
    assert any("cannot accumulate gradients" in w for w in warned)
    assert not any("cannot accumulate" in w for w in estimate(_scenario(method="full", optimizer_in_backward=True)).warnings)


def test_fused_optimizer_step_under_deepspeed_zero_is_warned_about():
    from tuneplan.core.estimate import estimate

    def codes(**kw) -> set[str]:
        return {n.code for n in estimate(_scenario(method="full", optimizer_in_backward=True, **kw)).messages}

    assert "plan.optimizer_in_backward_zero" in codes(num_gpus=4, sharding="zero3")
    assert "plan.optimizer_in_backward_zero" in codes(num_gpus=2, sharding="zero1")
    assert "plan.optimizer_in_backward_zero" not in codes(num_gpus=4, sharding="fsdp")  # torchtune runs it under FSDP
    assert "plan.optimizer_in_backward_zero" not in codes()


def test_leading_dense_layers_do_not_change_the_moe_layer_model():
    # GLM-4.5-style MoE with first_k_dense_replace: the per-layer activation model describes the MoE
    # layers (the large majority), not the leading dense layer
    cfg = dict(model_type="glm4_moe", hidden_size=256, intermediate_size=1024, moe_intermediate_size=128,
               num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=2, n_routed_experts=8,
               num_experts_per_tok=2, n_shared_experts=1, vocab_size=1000, head_dim=32)
    t = TrainingSetup(method="lora", lora_dropout=0.05, grad_checkpointing=False)
    _, none = estimate_memory(architecture_from_hf_config({**cfg, "first_k_dense_replace": 0}), t, GPU_24)
    _, one = estimate_memory(architecture_from_hf_config({**cfg, "first_k_dense_replace": 1}), t, GPU_24)
    assert one.activation_per_layer_token == none.activation_per_layer_token


def test_paged_optimizer_pages_only_tensors_of_100k_elements_or_more():
    # bitsandbytes Optimizer8bit.get_state_buffer: unified memory only when p.numel() >= 1e5.
    # Llama-3-8B LoRA r16 all-linear: only gate/up lora_B (14336 x 16) and down lora_A (16 x 14336),
    # 229,376 elements each, qualify; q/k/v/o and the other factors are at most 4096 x 16 = 65,536.
    # 32 layers x 3 x 229,376 = 22,020,096 parameters x 2 fp32 moments x 4 B = 176,160,768 B paged.
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="lora", lora_rank=16, lora_targets="all-linear", optimizer="paged-adamw-32bit")
    mem, led = estimate_memory(arch, t, GPU_24)
    assert mem.paged_bytes == pytest.approx(176_160_768)
    assert led.optimizer == pytest.approx(lora_parameter_count(arch, 16, "all-linear") * 8 - 176_160_768)


def test_qlora_without_the_fp32_upcast_keeps_unquantised_weights_in_bf16():
    # torchtune / Unsloth: embeddings, LM head and norms stay bf16. Llama-3-8B: 8,030,261,248 params, of
    # which the layer matrices are 32 x 218,103,808 = 6,979,321,856 (NF4) and 1,050,939,392 are not.
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="qlora", kbit_fp32_upcast=False)
    _, led = estimate_memory(arch, t, GPU_24)
    assert led.weights == pytest.approx(6_979_321_856 * nf4_bytes_per_param(True) + 1_050_939_392 * 2)
    _, upcast = estimate_memory(arch, t.model_copy(update={"kbit_fp32_upcast": True}), GPU_24)
    assert upcast.weights - led.weights == pytest.approx(1_050_939_392 * 2)


def test_qlora_on_a_moe_model_warns_that_the_experts_stay_unquantised():
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate

    base = catalog.default_scenario()
    moe = base.model_copy(update={"model": catalog.get_model("mixtral-8x7b").architecture})
    assert any("issue #1849" in w for w in estimate(moe).warnings)  # the default plan is QLoRA
    assert not any("issue #1849" in w for w in estimate(base).warnings)  # a dense model: no warning


TINY_QWEN2_MOE = dict(model_type="qwen2_moe", hidden_size=128, intermediate_size=256, moe_intermediate_size=64,
                      shared_expert_intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                      num_key_value_heads=2, num_experts=4, num_experts_per_tok=2, vocab_size=500)


def test_adapted_shared_experts_save_their_inputs_when_the_routed_experts_are_frozen():
    # qwen2_moe: PEFT's all-linear leaves the stacked experts frozen but adapts q, k, v, o and the shared
    # expert's gate/up/down (nn.Linear). Over q_v, per token and layer (bf16, dropout 0, FlashAttention), each
    # adapted matrix's lora_A saves its own bf16 copy of its input (PEFT's fp32 cast, autocast's bf16 cast):
    #   k and o 2 x 128 each = 512; shared gate, up and down (inputs 128, 128, 128 wide) 3 x 256 = 768;
    #   lora_A outputs of 5 more adapted matrices: 5 x 16 x 2 = 160                    -> 1440 B
    arch = architecture_from_hf_config(TINY_QWEN2_MOE)
    t = TrainingSetup(method="lora", lora_rank=16, lora_dropout=0.0, grad_checkpointing=False)
    _, all_linear = estimate_memory(arch, t.model_copy(update={"lora_targets": "all-linear"}), GPU_24)
    _, q_v = estimate_memory(arch, t.model_copy(update={"lora_targets": "q_v"}), GPU_24)
    assert all_linear.activation_per_layer_token - q_v.activation_per_layer_token == 1440
    assert all_linear.merged_expert_bytes == 0


def test_sharded_qlora_keeps_unquantised_weights_in_the_training_dtype():
    # TRL skips prepare_model_for_kbit_training for QLoRA + FSDP / ZeRO-3 (is_sharded_qlora): Llama-3-8B's
    # 1,050,939,392 unquantised parameters stay bf16, sharded over 2 GPUs
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="qlora", num_gpus=2, sharding="fsdp")
    _, led = estimate_memory(arch, t, GPU_24)
    assert led.weights == pytest.approx((6_979_321_856 * nf4_bytes_per_param(True) + 1_050_939_392 * 2) / 2)


def test_fp32_embeddings_make_the_checkpointed_residual_stream_fp32():
    # fp32 + bf16 promotes to fp32: with PEFT's upcast (QLoRA) or an fp32 master model under autocast, each
    # checkpointed layer input is 4 x hidden bytes per token; bf16 otherwise
    arch = architecture_from_hf_config(LLAMA_3_8B)
    _, upcast = estimate_memory(arch, TrainingSetup(method="qlora", kbit_fp32_upcast=True), GPU_24)
    _, kept = estimate_memory(arch, TrainingSetup(method="qlora"), GPU_24)
    _, master = estimate_memory(arch, TrainingSetup(method="lora", master_weights="fp32"), GPU_24)
    assert (upcast.checkpoint_per_layer_token, kept.checkpoint_per_layer_token) == (4 * 4096, 2 * 4096)
    assert master.checkpoint_per_layer_token == 4 * 4096


def test_qlora_trainable_embedding_copies_follow_the_upcast():
    # PEFT modules_to_save copies the (already upcast) embedding and LM head: 2 x 128,256 x 4,096 x 4 B
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="qlora", trainable_embeddings=True, lora_targets="q_v", lora_rank=16,
                      kbit_fp32_upcast=True)
    _, up = estimate_memory(arch, t, GPU_24)
    _, bf = estimate_memory(arch, t.model_copy(update={"kbit_fp32_upcast": False}), GPU_24)
    assert up.adapters - bf.adapters == pytest.approx(2 * 128_256 * 4096 * (4 - 2))


def test_lora_checkpoints_include_paged_optimizer_states():
    # paged 32-bit AdamW and fused AdamW keep the same fp32 moments for LoRA (2 x 4 B per adapter
    # parameter): a checkpoint writes the same bytes whether or not they live in unified memory
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate

    base = catalog.default_scenario()
    paged = base.model_copy(update={"training": base.training.model_copy(update={"method": "lora", "optimizer": "paged-adamw-32bit"})})
    fused = base.model_copy(update={"training": base.training.model_copy(update={"method": "lora", "optimizer": "adamw-fused"})})
    assert estimate(paged).memory.paged_bytes > 0
    assert estimate(paged).time.phases["checkpoints"] == pytest.approx(estimate(fused).time.phases["checkpoints"])


def test_dropout_warning_only_where_peft_adapts_the_experts():
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate

    base = catalog.default_scenario()
    s = base.model_copy(update={"model": architecture_from_hf_config(TINY_QWEN2_MOE), "training": base.training.model_copy(
        update={"method": "lora", "lora_targets": "all-linear", "lora_dropout": 0.05})})
    assert not any("ParamWrapper" in w for w in estimate(s).warnings)  # qwen2_moe: experts stay frozen


def test_a_layers_backward_holds_the_mlp_intermediate_gradients():
    # Backward through a SwiGLU MLP keeps the gradients of down_proj's input, of SiLU(gate) and of up
    # (3 x intermediate x 2 B) plus the incoming hidden-state gradient (hidden x 2 B) next to the layer's
    # saved tensors (itemised on fake tensors), with the two hidden-state gradient buffers between layers.
    # Tiny layer, 100 tokens: (3 x 128 x 2 + 2 x 64 x 2) x 100 = 102,400 B.
    # With fused cross-entropy and checkpointing nothing larger competes, so it sets the peak.
    t = TrainingSetup(method="lora", lora_targets="q_v", lora_dropout=0.0, grad_checkpointing=True,
                      fused_cross_entropy=True, micro_batch=1, seq_len=100)
    mem, _ = estimate_memory(_tiny(), t, GPU_24)
    assert mem.peak_phase == "recomputed layer"
    from tuneplan.core.memory import CUBLAS_WORKSPACE_BYTES
    assert mem.component("temporaries").bytes == 102_400 + CUBLAS_WORKSPACE_BYTES


def test_an_fp32_lm_head_keeps_its_bf16_autocast_copy_through_the_loss_backward():
    # PEFT's QLoRA upcast leaves the LM head fp32; autocast casts it to bf16 for the matmul and autograd saves
    # the cast (MmBackward0.mat2, bf16, seen on fake tensors): 128,256 x 4,096 x 2 B = 1,050,673,152 B for
    # Llama-3-8B, next to the 12 B x vocab x tokens loss buffers.
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="qlora", micro_batch=1, seq_len=1000, kbit_fp32_upcast=True)
    _, up = estimate_memory(arch, t, GPU_24)
    _, kept = estimate_memory(arch, t.model_copy(update={"kbit_fp32_upcast": False}), GPU_24)
    assert kept.logits == 1000 * 128_256 * 12
    assert up.logits == 1000 * 128_256 * 12 + 128_256 * 4096 * 2


def test_fp32_master_full_finetune_keeps_bf16_casts_of_the_weights_it_trains():
    # Under autocast every fp32 matrix is cast to bf16 for its matmul and autograd saves the cast for the
    # input gradient, trained or frozen (seen on fake tensors). Llama-3-8B without checkpointing: weights
    # 8,030,261,248 x 4 B plus every layer matrix's cast, 6,979,321,856 x 2 B.
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="full", master_weights="fp32", grad_checkpointing=False)
    _, led = estimate_memory(arch, t, GPU_24)
    assert led.weights == pytest.approx(8_030_261_248 * 4 + 6_979_321_856 * 2)


def test_no_lm_head_cast_where_no_autocast_runs():
    # QLoRA trained in fp32 has no autocast: the fp32 head emits fp32 logits directly, no bf16 copy
    arch = architecture_from_hf_config(LLAMA_3_8B)
    _, led = estimate_memory(arch, TrainingSetup(method="qlora", precision="fp32", micro_batch=1, seq_len=1000), GPU_24)
    assert led.logits == 1000 * 128_256 * 12


def test_fp32_master_with_checkpointing_can_peak_at_the_end_of_the_forward():
    # With checkpointing, the autocast cache holds every layer's bf16 weight cast until autocast exits,
    # next to the forward's loss buffers; for an fp32-master full fine-tune of Llama-3-8B at a short length,
    # those casts (6,979,321,856 x 2 B minus the one layer the backward keeps) are the largest transient.
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="full", master_weights="fp32", grad_checkpointing=True, optimizer="adamw-fused",
                      optimizer_in_backward=True, micro_batch=1, seq_len=256)
    mem, _ = estimate_memory(arch, t, GPU_24)
    assert mem.peak_phase == "end of forward"


# --- LoRA under checkpointing: autocast's cache of adapter copies and PEFT's fp32 input copies ---------------

def test_adapter_copies_in_autocasts_cache_are_the_plain_linear_adapters():
    # Llama-3-8B all-linear r16, per layer (r x (d_in + d_out)): q 16 x 8192 = 131,072; k and v 16 x 5120 =
    # 81,920 each; o 131,072; gate, up, down 16 x 18,432 = 294,912 each -> 1,310,720; x 32 layers = 41,943,040.
    from tuneplan.core.memory import lora_cast_parameter_count

    arch = architecture_from_hf_config(LLAMA_3_8B)
    assert lora_cast_parameter_count(arch, 16, "all-linear") == 41_943_040
    # Tiny Mixtral all-linear: the stacked experts' ParamWrapper factors are not cached, the attention and router
    # adapters are (8 heads x 32 = 256 wide, 2 KV heads = 64): q and o 16 x (256 + 256) = 8,192 each, k and v
    # 16 x (256 + 64) = 5,120 each, router 16 x (256 + 4 experts) = 4,160 -> 30,784
    mix = architecture_from_hf_config(TINY_MIXTRAL)
    assert lora_cast_parameter_count(mix, 16, "all-linear") == 2 * 8_192 + 2 * 5_120 + 4_160


def test_checkpointed_lora_holds_every_layers_adapter_copy_until_the_forward_ends():
    # 2 B x 1,310,720 adapter parameters per layer, for the 31 layers other than the one already counted
    arch = architecture_from_hf_config(LLAMA_3_8B)
    _, led = estimate_memory(arch, TrainingSetup(method="lora", lora_targets="all-linear", lora_rank=16), GPU_24)
    assert led.adapter_cast_per_layer == 2 * 1_310_720
    assert led.forward_cache == 2 * 1_310_720 * 31
    _, nogc = estimate_memory(arch, TrainingSetup(method="lora", lora_targets="all-linear", grad_checkpointing=False),
                              GPU_24)
    assert nogc.forward_cache == 0  # without checkpointing the copies are saved activations all along


def test_recomputed_lora_layer_holds_peft_fp32_input_copies():
    # Widest adapted input: down_proj (i = 14,336 -> h = 4,096). bf16 input 2i + PEFT's fp32 copy 4i + fp32
    # dropout output 4i + base output 2h, next to the decoder layer's residual (2h) and post-attention norm
    # output (2h): 10i + 6h = 167,936 B per token; without dropout 6i + 6h = 110,592.
    # q_v: q_proj 2h + 4h + 4h + 2h = 49,152 (v_proj's output is narrower; the residual is the checkpoint).
    from tuneplan.core.memory import recompute_transient_per_token

    arch = architecture_from_hf_config(LLAMA_3_8B)
    lora = TrainingSetup(method="lora", lora_targets="all-linear")
    assert recompute_transient_per_token(arch, lora, 2) == 167_936
    assert recompute_transient_per_token(arch, lora.model_copy(update={"lora_dropout": 0.0}), 2) == 110_592
    assert recompute_transient_per_token(arch, lora.model_copy(update={"lora_targets": "q_v"}), 2) == 49_152
    assert recompute_transient_per_token(arch, lora.model_copy(update={"grad_checkpointing": False}), 2) == 0
    assert recompute_transient_per_token(arch, TrainingSetup(method="full"), 2) == 0


def test_the_recomputed_lora_layer_peak_counts_its_forward_transient():
    # Llama-3-8B all-linear, fused cross-entropy, 1 x 4096 tokens: inter-layer gradient buffers 2 x 2 x 4096 x
    # 4096 = 67,108,864 B; MLP backward 3 x 2 x 14,336 x 4096 = 352,321,536; recomputed forward 167,936 x 4096 =
    # 687,865,856 -> the recomputation's 754,974,720 B exceed the backward's 419,430,400.
    from tuneplan.core.memory import CUBLAS_WORKSPACE_BYTES

    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="lora", lora_targets="all-linear", seq_len=4096, fused_cross_entropy=True)
    mem, _ = estimate_memory(arch, t, GPU_24)
    assert mem.peak_phase == "recomputed layer"
    assert mem.component("temporaries").bytes == 67_108_864 + 687_865_856 + CUBLAS_WORKSPACE_BYTES


def test_qlora_recomputation_has_no_fp32_input_copy():
    # PEFT's bitsandbytes LoRA layers cast the input to the adapter dtype only without autocast
    # (peft/tuners/lora/bnb.py requires_conversion), and the bf16 dropout output is what lora_A saves (already in
    # the layer's saved set): beyond it, down_proj holds 2i (its input) + 2h (base output) + 2h (residual)
    # + 2h (norm output) = 28,672 + 24,576 = 53,248 B per token
    from tuneplan.core.memory import recompute_transient_per_token

    arch = architecture_from_hf_config(LLAMA_3_8B)
    assert recompute_transient_per_token(arch, TrainingSetup(method="qlora", lora_targets="all-linear"), 2) == 53_248


def test_a_frozen_fp32_lora_base_leaves_no_casts_in_autocasts_cache():
    # autocast caches casts only of tensors that require grad: with an fp32 LoRA base under checkpointing the
    # frozen weights' bf16 casts are freed after each matmul, so only the adapters' copies wait for the end of
    # the forward (2 B x 1,310,720 x 31 layers), not 31 layers of base-weight casts
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="lora", master_weights="fp32", lora_targets="all-linear", seq_len=512)
    _, led = estimate_memory(arch, t, GPU_24)
    assert led.forward_cache == 2 * 1_310_720 * 31


def test_sharded_lora_has_no_autocast_cache():
    # FSDP / ZeRO-3 mixed precision hands each layer bf16 parameters: autocast has nothing to cast or cache
    arch = architecture_from_hf_config(LLAMA_3_8B)
    _, led = estimate_memory(arch, TrainingSetup(method="lora", num_gpus=2, sharding="fsdp"), GPU_24)
    assert led.forward_cache == 0


# ---------------------------------------------------------------- adapter precision (TrainingSetup.adapter_precision)
# Llama-3-8B, LoRA r=16 on all linear layers: per layer r x (d_in + d_out) = 16 x (2 x 8,192 [q, o] + 2 x 5,120 [k, v]
# + 3 x 18,432 [gate, up, down]) = 1,310,720, x 32 layers = 41,943,040 adapter parameters.
_LORA_8B_R16 = 41_943_040


def test_adapters_in_the_model_dtype_halve_adapters_gradients_and_adamw_states():
    # torchtune/LitGPT hold the adapters in bf16: 2 B per adapter parameter for the adapter, its gradient and each
    # AdamW moment (torch.optim.AdamW zeros_like(p)), against 4 B each for PEFT's fp32 adapters
    arch = architecture_from_hf_config(LLAMA_3_8B)
    _, fp32 = estimate_memory(arch, TrainingSetup(method="lora", lora_targets="all-linear"), GPU_24)
    _, native = estimate_memory(arch, TrainingSetup(method="lora", lora_targets="all-linear",
                                                    adapter_precision="model-dtype"), GPU_24)
    assert native.trainable_params == _LORA_8B_R16
    assert native.adapters == _LORA_8B_R16 * 2 == 83_886_080
    assert native.gradients == _LORA_8B_R16 * 2
    assert native.optimizer == _LORA_8B_R16 * 2 * 2
    assert (fp32.adapters, fp32.gradients, fp32.optimizer) == (_LORA_8B_R16 * 4, _LORA_8B_R16 * 4, _LORA_8B_R16 * 8)


def test_saved_inputs_of_adapted_layers_follow_how_the_adapters_run():
    # No dropout, no checkpointing, per layer and token (h = 4,096, i = 14,336, SDPA on fixed-length batches).
    # Under autocast PEFT casts each adapted input to fp32 and autocast casts it back, so every adapted matrix saves
    # its own bf16 copy of its input: 2 B x (q, k, v, o, gate, up: 6 x 4,096 + down: 14,336) = 77,824 B.
    # Adapters in the model dtype read the input itself, which is saved once per consumer group: the attention
    # input 2h, the MLP input 2h and down_proj's input 2i (o_proj's input is the attention output, saved by the
    # attention already) = 8,192 + 8,192 + 28,672 = 45,056 B. Difference 32,768 B.
    # Without autocast every copy is fp32: 4 B x 38,912 = 155,648 B (+77,824), and lora_B saves an fp32 r-wide
    # input: 7 matrices x 16 x (4 - 2) B = +224 B.
    arch = architecture_from_hf_config(LLAMA_3_8B)

    def per_token(mode: str) -> float:
        t = TrainingSetup(method="lora", lora_targets="all-linear", lora_dropout=0.0, grad_checkpointing=False,
                          attention="sdpa", sequence_mode="fixed", adapter_precision=mode)
        return estimate_memory(arch, t, GPU_24)[1].activation_per_layer_token

    assert per_token("fp32-autocast") - per_token("model-dtype") == 32_768
    assert per_token("fp32") - per_token("fp32-autocast") == 77_824 + 224


def test_only_autocast_keeps_bf16_copies_of_the_adapters():
    # Under autocast each fp32 adapter is cast to bf16 for its matmul and the cast is saved for backward: without
    # checkpointing 2 B x 41,943,040 = 83,886,080 B of activations. Without autocast, or with bf16 adapters, nothing
    # is cast. Same saved set otherwise: compare at dropout 0.05, where all three modes save a dropped-out copy
    # (autocast: bf16 + 1 B mask; model dtype: bf16 + mask; no autocast: fp32 + mask, 2 B x 38,912 more per token).
    arch = architecture_from_hf_config(LLAMA_3_8B)
    tokens = 2048

    def acts(mode: str) -> tuple[float, float]:
        t = TrainingSetup(method="lora", lora_targets="all-linear", grad_checkpointing=False, attention="sdpa",
                          sequence_mode="fixed", seq_len=tokens, adapter_precision=mode)
        led = estimate_memory(arch, t, GPU_24)[1]
        return led.activations, led.activation_per_layer_token

    auto, auto_tok = acts("fp32-autocast")
    native, native_tok = acts("model-dtype")
    assert auto_tok == native_tok
    assert auto - native == 2 * _LORA_8B_R16
    fp32, fp32_tok = acts("fp32")
    assert fp32_tok - auto_tok == 2 * 38_912 + 224
    assert fp32 - auto == (2 * 38_912 + 224) * 32 * tokens - 2 * _LORA_8B_R16


def test_adapter_precision_is_ignored_where_it_cannot_apply():
    # full fine-tuning has no adapters; an fp32 master model runs fp32 adapters under autocast whatever is chosen
    from tuneplan.core.memory import adapter_path

    assert adapter_path(TrainingSetup(method="full", adapter_precision="model-dtype")) == "none"
    assert adapter_path(TrainingSetup(method="lora", master_weights="fp32", adapter_precision="fp32")) == "autocast"
    assert adapter_path(TrainingSetup(method="lora", precision="fp32", adapter_precision="fp32")) == "native"
    assert adapter_path(TrainingSetup(method="qlora", adapter_precision="fp32")) == "fp32"


# ---------------------------------------------------------------- mixture-of-experts recomputation (grouped_mm experts)
MIXTRAL_8X7B = {"model_type": "mixtral", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "num_local_experts": 8,
                "num_experts_per_tok": 2, "tie_word_embeddings": False}


def test_trained_experts_save_the_sorted_hidden_states_and_the_routing_multiply_saves_their_outputs():
    # transformers 5 grouped_mm_experts_forward multiplies the down output (k x h per token, bf16) by the routing
    # weights, which need a gradient whenever the hidden state does (the router is a linear of it), so the
    # multiply saves the down output (2h per routed token); trained experts also save their input, the hidden
    # states sorted by expert (2h per routed token). Everything of the expert block scales with k: top-2 - top-1.
    top2 = architecture_from_hf_config(MIXTRAL_8X7B)
    top1 = architecture_from_hf_config({**MIXTRAL_8X7B, "num_experts_per_tok": 1})
    t = TrainingSetup(method="full", grad_checkpointing=False, attention="sdpa", sequence_mode="fixed")
    per_k = (estimate_memory(top2, t, GPU_24)[1].activation_per_layer_token
             - estimate_memory(top1, t, GPU_24)[1].activation_per_layer_token)
    # per extra routed expert and token: sorted input copy 2h + expert output 2h (saved for the routing weights)
    # + gate, up, SiLU(gate) 3 x 2i + down_proj input 2i = 8,192 + 8,192 + 86,016 + 28,672 = 131,072 B
    assert per_k == 131_072


def test_recomputed_moe_layer_holds_the_expert_block_locals():
    # Traced on fake tensors (docs/validation.md), per token, Mixtral-8x7B (h = 4,096, i = 14,336, k = 2):
    # full fine-tuning: at the routing-weight multiply, its fp32 product 4 B x h x k = 32,768 + the residual 2h
    # = 8,192 -> 40,960 B. LoRA on q, v (experts and router frozen): at the down matmul, its input 2 B x i x k
    # = 57,344 + the sorted hidden states 2hk = 16,384 + the post-attention norm output 2h = 8,192 + the residual
    # 2h = 8,192 -> 90,112 B (larger than q/v's own LoRA transient).
    from tuneplan.core.memory import recompute_transient_per_token

    arch = architecture_from_hf_config(MIXTRAL_8X7B)
    assert recompute_transient_per_token(arch, TrainingSetup(method="full"), 2) == 40_960
    assert recompute_transient_per_token(arch, TrainingSetup(method="lora", lora_targets="q_v"), 2) == 90_112
    assert recompute_transient_per_token(arch, TrainingSetup(method="full", grad_checkpointing=False), 2) == 0
    dense = architecture_from_hf_config(LLAMA_3_8B)
    assert recompute_transient_per_token(dense, TrainingSetup(method="full"), 2) == 0
    # the expert block alone: full fine-tuning trains the experts whatever the LoRA target list says, and LoRA on
    # the experts (all linear layers: PEFT's ParamWrapper) makes them trainable as well: the routing-weight moment,
    # 4hk + 2h = 40,960, for both
    from tuneplan.core.memory.activations import _moe_recompute_transient_per_token as expert_block

    for t in (TrainingSetup(method="full", lora_targets="q_v"), TrainingSetup(method="lora", lora_targets="all-linear")):
        assert expert_block(arch, t, 2, 2, 2) == 4 * 4096 * 2 + 2 * 4096 == 40_960, t.lora_targets
    assert expert_block(arch, TrainingSetup(method="lora", lora_targets="q_v"), 2, 2, 2) == 90_112
    assert expert_block(dense, TrainingSetup(method="lora", lora_targets="q_v"), 2, 2, 2) == 0


def test_tied_embedding_backward_holds_both_gradient_contributions_next_to_all_gradients():
    # Full fine-tuning with tied embeddings (Llama 3.2 1B: vocab 128,256 x hidden 2,048 = 262,668,288 shared
    # parameters): when the backward reaches the embedding, the LM head's contribution waits in autograd's input
    # buffer, the embedding's own dense gradient is made, and their sum is a third buffer; two of the three are
    # beyond the gradient the ledger already counts: 2 x 262,668,288 x 2 B = 1,050,673,152 B, next to every
    # gradient and the AdamW states. With fused AdamW (no step temporary) and a short sequence this is the peak.
    from tuneplan.core.memory import CUBLAS_WORKSPACE_BYTES

    arch = architecture_from_hf_config({"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192,
                                        "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
                                        "vocab_size": 128256, "tie_word_embeddings": True})
    t = TrainingSetup(method="full", optimizer="adamw-fused", grad_checkpointing=False, seq_len=16)
    mem, led = estimate_memory(arch, t, GpuSpec(id="big", name="big", memory_gib=80))
    assert mem.peak_phase == "embedding backward"
    assert mem.component("temporaries").bytes == 1_050_673_152 + CUBLAS_WORKSPACE_BYTES
    assert mem.peak_allocated_bytes == led.weights + led.gradients + led.optimizer + 1_050_673_152 + CUBLAS_WORKSPACE_BYTES
    # From the second micro-batch of an accumulation the sum is added into the existing .grad: three buffers
    # beyond it, 3 x 525,336,576 = 1,576,009,728 B
    acc = estimate_memory(arch, t.model_copy(update={"grad_accumulation": 4}), GpuSpec(id="big", name="big", memory_gib=80))[0]
    assert acc.peak_phase == "embedding backward"
    assert acc.component("temporaries").bytes == 1_576_009_728 + CUBLAS_WORKSPACE_BYTES
    # DDP sums them the same way before its reduction hook takes the gradient
    ddp = estimate_memory(arch, t.model_copy(update={"num_gpus": 2, "sharding": "ddp"}),
                          GpuSpec(id="big", name="big", memory_gib=80))[0]
    assert ddp.peak_phase == "embedding backward"
    assert ddp.component("temporaries").bytes == 1_050_673_152 + CUBLAS_WORKSPACE_BYTES


def test_trainable_embedding_copies_keep_their_own_dtype_for_gradients_and_adamw_states():
    # PEFT's modules_to_save copies (embed_tokens and lm_head, untied on Llama 3 8B: 2 x 128,256 x 4,096 =
    # 1,050,673,152 parameters) stay in the model's bf16 (cast_adapter_dtype upcasts only the LoRA layers), so
    # their gradients and AdamW moments take 2 B, the 41,943,040 fp32 adapter parameters 4 B:
    # gradients 41,943,040 x 4 + 1,050,673,152 x 2 = 2,269,118,464 B; AdamW moments twice that
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="lora", lora_targets="all-linear", trainable_embeddings=True, optimizer="adamw-fused")
    _, led = estimate_memory(arch, t, GPU_24)
    assert led.trainable_params == 41_943_040 + 1_050_673_152
    assert led.gradients == 2_269_118_464
    assert led.optimizer == 2 * 2_269_118_464


def test_under_fsdp_the_forward_sees_bf16_adapters_and_casts_nothing():
    # FSDP MixedPrecision(param_dtype=bf16) (and DeepSpeed ZeRO-3's bf16 module) hand each layer to the forward in
    # bf16, so PEFT's FP32 adapters save what bf16 adapters save: no own input copies, no autocast casts; the
    # sharded adapters themselves stay FP32 (4 B / 2 GPUs each)
    arch = architecture_from_hf_config(LLAMA_3_8B)
    base = dict(method="lora", lora_targets="all-linear", num_gpus=2, sharding="fsdp", grad_checkpointing=False,
                attention="sdpa", sequence_mode="fixed")
    _, fp32 = estimate_memory(arch, TrainingSetup(**base), GPU_24)
    _, native = estimate_memory(arch, TrainingSetup(**base, adapter_precision="model-dtype"), GPU_24)
    assert fp32.activation_per_layer_token == native.activation_per_layer_token
    assert fp32.activations == native.activations
    assert fp32.adapters == _LORA_8B_R16 * 4 / 2 and native.adapters == _LORA_8B_R16 * 2 / 2


def test_fsdp_mixed_precision_gathers_bf16_layers_and_makes_no_autocast_copies():
    # Full fine-tuning with FP32 master weights under FSDP on 8 GPUs (MixedPrecision(param_dtype=bf16)): the fp32
    # shards are 8,030,261,248 x 4 B / 8 = 4,015,130,624 B, there are no bf16 autocast copies of the weights (the
    # forward already gets bf16 layers), and the two gathered layers are bf16: Llama-3-8B's layer has q 16,777,216
    # + k 4,194,304 + v 4,194,304 + o 16,777,216 + gate/up/down 3 x 58,720,256 = 218,103,808 parameters,
    # 2 x 218,103,808 x 2 B = 872,415,232 B.
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="full", master_weights="fp32", num_gpus=8, sharding="fsdp", seq_len=2048,
                      fsdp_wrap="separate-embeddings")
    mem, led = estimate_memory(arch, t, GpuSpec(id="h100", name="H100", memory_gib=80))
    assert led.weights == 4_015_130_624
    if mem.peak_phase != "optimizer step":
        assert mem.component("weights").bytes == 4_015_130_624 + 872_415_232


def test_zero2_counts_only_a_shard_of_the_tied_embedding_gradient():
    # ZeRO-2 on 8 GPUs: the three vocab x h buffers (525,336,576 B each, Llama 3.2 1B shapes) exist in full while
    # autograd adds them; the gradients already count 1/8 of one: 3 x 525,336,576 - 65,667,072 = 1,510,342,656 B
    from tuneplan.core.memory import CUBLAS_WORKSPACE_BYTES

    arch = architecture_from_hf_config({"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192,
                                        "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
                                        "vocab_size": 128256, "tie_word_embeddings": True})
    t = TrainingSetup(method="full", optimizer="adamw-fused", grad_checkpointing=False, seq_len=16, num_gpus=8,
                      sharding="zero2")
    mem, _ = estimate_memory(arch, t, GpuSpec(id="big", name="big", memory_gib=80))
    assert mem.peak_phase == "embedding backward"
    assert mem.component("temporaries").bytes == 1_510_342_656 + CUBLAS_WORKSPACE_BYTES


def test_deepspeed_zero_stages_hand_the_forward_bf16_adapters_too():
    arch = architecture_from_hf_config(LLAMA_3_8B)
    # (at dropout 0, where PEFT under autocast saves its own bf16 input copies and bf16 adapters share the input)
    base = dict(method="lora", lora_targets="all-linear", num_gpus=2, sharding="zero1", grad_checkpointing=False,
                attention="sdpa", sequence_mode="fixed", lora_dropout=0.0)
    a = estimate_memory(arch, TrainingSetup(**base), GPU_24)[1].activation_per_layer_token
    b = estimate_memory(arch, TrainingSetup(**base, adapter_precision="model-dtype"), GPU_24)[1].activation_per_layer_token
    single = estimate_memory(arch, TrainingSetup(**{**base, "num_gpus": 1, "sharding": "none"}), GPU_24)[1]
    assert a == b < single.activation_per_layer_token


# ---------------------------------------------------------------- torch.compile (TrainingSetup.torch_compile)
def _per_layer_token(arch, **kw) -> float:
    t = TrainingSetup(grad_checkpointing=False, attention="sdpa", sequence_mode="fixed", **kw)
    return estimate_memory(arch, t, GPU_24)[1].activation_per_layer_token


def test_compiled_layers_save_the_normalised_value_instead_of_fp32_copies_and_recompute_silu():
    # Llama 3 8B (h = 4,096, i = 14,336), per layer and token. Full fine-tuning: eager, each of the two RMSNorms
    # saves its fp32 input (4h) and the bf16 normalised value for the weight's gradient (2h); compiled, only the
    # normalised value: 2 x 4h = 32,768 B less; SwiGLU no longer saves SiLU(gate): 2i = 28,672 B less -> 61,440 B.
    arch = architecture_from_hf_config(LLAMA_3_8B)
    assert _per_layer_token(arch, method="full") - _per_layer_token(arch, method="full", torch_compile=True) == 61_440
    # LoRA (frozen norms, PEFT under autocast, dropout 0.05): eager 4h per norm, compiled 2h: 2 x 2h = 16,384 B
    # less, and SiLU 28,672 -> 45,056 B
    lora = dict(method="lora", lora_targets="all-linear")
    assert _per_layer_token(arch, **lora) - _per_layer_token(arch, **lora, torch_compile=True) == 45_056
    # without dropout the identical bf16 casts of one input are saved once: q/k/v share one copy and gate/up
    # another, 3 copies x 2h = 24,576 B less -> 69,632 B
    nodrop = dict(lora, lora_dropout=0.0)
    assert _per_layer_token(arch, **nodrop) - _per_layer_token(arch, **nodrop, torch_compile=True) == 69_632


def test_compiled_saved_set_matches_what_torch_compile_saved():
    # tools/validate/compile_saved.py (torch 2.13, transformers 5.18, PEFT 0.21; bf16 Llama h = 256, i = 704,
    # 4 heads / 2 KV heads, 256 tokens, PEFT r = 8 under autocast) measured one compiled layer's saved tensors per
    # token; the ledger leaves out the norms' 2 x 4 B rsqrt, and PEFT's bf16 autocast casts of the adapter weights
    # (2 B x adapter parameters per layer / 256 tokens) are a separate ledger term added here
    from tuneplan.core.memory import lora_parameter_count

    arch = architecture_from_hf_config({"model_type": "llama", "hidden_size": 256, "intermediate_size": 704,
                                        "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                                        "vocab_size": 512})
    base = dict(seq_len=256, torch_compile=True)
    assert _per_layer_token(arch, method="full", **base) == 7_832 - 8
    for targets, dropout, measured in (("all-linear", 0.05, 12_524), ("q_v", 0.05, 7_024),
                                       ("all-linear", 0.0, 8_748), ("q_v", 0.0, 6_000)):
        casts = 2 * lora_parameter_count(arch, 8, targets) / 2 / 256
        ledger = _per_layer_token(arch, method="lora", lora_rank=8, lora_targets=targets, lora_dropout=dropout, **base)
        assert ledger + casts == measured - 8, (targets, dropout)


def test_torch_compile_on_a_layernorm_model_says_the_eager_figures_are_used():
    from tuneplan.catalog import default_scenario
    from tuneplan.core.estimate import estimate

    s = default_scenario()
    stablelm = architecture_from_hf_config({"model_type": "stablelm", "hidden_size": 2560, "intermediate_size": 6912,
                                            "num_hidden_layers": 32, "num_attention_heads": 32, "vocab_size": 50304})
    layer_norm = s.model_copy(update={"model": stablelm})
    layer_norm.training.torch_compile = True
    assert any("eager figures are used" in w for w in estimate(layer_norm).warnings)
    s.training.torch_compile = True
    assert not any("eager figures" in w for w in estimate(s).warnings)


def test_compiled_qk_norms_mixture_of_experts_and_an_fp32_residual_stream():
    # q/k norms (Qwen3-8B: q_dim 4,096, kv_dim 1,024) keep their bf16 normalised values: full fine-tuning eager
    # (4 + 2) B x 5,120 -> compiled 2 B x 5,120, 20,480 B per token less on top of the plain-Llama terms
    qwen3 = architecture_from_hf_config({"model_type": "qwen3", "hidden_size": 4096, "intermediate_size": 12288,
                                         "num_hidden_layers": 36, "num_attention_heads": 32, "num_key_value_heads": 8,
                                         "head_dim": 128, "vocab_size": 151936})
    plain = 8 * 4096 + 2 * 12288  # two norms' fp32 copies, SiLU(gate)
    assert (_per_layer_token(qwen3, method="full") - _per_layer_token(qwen3, method="full", torch_compile=True)
            == plain + 20_480)
    # expert blocks recompute SiLU(gate) too: Mixtral-8x7B, 2 B x k x i = 2 x 2 x 14,336 = 57,344 B, plus the
    # two norms' fp32 copies 8h = 32,768 B
    mixtral = architecture_from_hf_config(MIXTRAL_8X7B)
    assert (_per_layer_token(mixtral, method="full") - _per_layer_token(mixtral, method="full", torch_compile=True)
            == 57_344 + 32_768)
    # an fp32 residual stream (fp32 master weights under autocast) leaves one norm with an fp32 tensor: 2h more
    llama = architecture_from_hf_config(LLAMA_3_8B)
    assert (_per_layer_token(llama, method="full", master_weights="fp32", torch_compile=True)
            - _per_layer_token(llama, method="full", torch_compile=True) == 2 * 4096)


# --- FSDP gradient accumulation and units that mix frozen and trainable weights --------------------------------

LLAMA_2_13B = {"model_type": "llama", "hidden_size": 5120, "intermediate_size": 13824, "num_hidden_layers": 40,
               "num_attention_heads": 40, "num_key_value_heads": 40, "vocab_size": 32000, "tie_word_embeddings": False}
A100_40 = GpuSpec(id="a100-40", name="A100 40GB", memory_gib=40.0, bf16_tflops=312)


def test_fsdp_no_sync_accumulation_keeps_the_whole_unsharded_gradient():
    # Llama-3-8B full fine-tuning in bf16 on 8 GPUs with FSDP and 4 micro-batches per step. Under no_sync (HF
    # Trainer/accelerate's default) every unit keeps its unsharded gradient until the optimizer step: at the next
    # micro-batch's backward 8,030,261,248 x 2 B = 16,060,522,496 B are alive. Reduce-scattering every micro-batch
    # keeps only the shard: 16,060,522,496 / 8 = 2,007,565,312 B. The other states are the same, so the peaks differ
    # by 16,060,522,496 - 2,007,565,312 = 14,052,957,184 B.
    arch = architecture_from_hf_config(LLAMA_3_8B)
    h100 = GpuSpec(id="h100", name="H100", memory_gib=80)
    # (embeddings and LM head sharded as units of their own: no root-unit gradients at the end of the backward)
    base = dict(method="full", num_gpus=8, sharding="fsdp", grad_accumulation=4, fsdp_wrap="separate-embeddings")
    at_step, _ = estimate_memory(arch, TrainingSetup(**base, grad_sync="step"), h100)
    each, _ = estimate_memory(arch, TrainingSetup(**base, grad_sync="micro-batch"), h100)
    assert at_step.peak_phase == each.peak_phase == "backward"
    assert at_step.component("gradients").bytes == 16_060_522_496
    assert each.component("gradients").bytes == 2_007_565_312
    assert at_step.peak_allocated_bytes - each.peak_allocated_bytes == 14_052_957_184
    assert "no_sync" in at_step.component("gradients").formula


def test_gradient_sync_only_matters_for_fsdp_with_accumulation():
    # One micro-batch per step, DeepSpeed ZeRO (which always reduces into its partitions), or one GPU: the setting
    # changes nothing
    arch = architecture_from_hf_config(LLAMA_3_8B)
    h100 = GpuSpec(id="h100", name="H100", memory_gib=80)
    for base in (dict(num_gpus=8, sharding="fsdp", grad_accumulation=1), dict(num_gpus=8, sharding="zero3", grad_accumulation=4),
                 dict(num_gpus=8, sharding="zero2", grad_accumulation=4), dict(num_gpus=1, sharding="none", grad_accumulation=4),
                 dict(num_gpus=8, sharding="fsdp", grad_accumulation=4, optimizer_in_backward=True)):
        a, _ = estimate_memory(arch, TrainingSetup(method="full", **base, grad_sync="step"), h100)
        b, _ = estimate_memory(arch, TrainingSetup(method="full", **base, grad_sync="micro-batch"), h100)
        assert a.total_bytes == b.total_bytes, base


def test_fsdp_units_that_mix_frozen_and_trainable_weights_give_every_layer_weight_a_gradient():
    # LitGPT's LoRA recipe wraps each Block (frozen weights + adapters) in one FSDP unit. Llama-2-13B's layers hold
    # 40 x (4 x 5120^2 + 3 x 5120 x 13824) = 40 x 317,194,240 = 12,687,769,600 weights and LoRA r=8 on q,v adds
    # 40 x 2 x 8 x (5120 + 5120) = 6,553,600. On 4 GPUs with bf16 weights, reduce-scattering every micro-batch:
    # the frozen weights' gradient shards are 12,687,769,600 x 2 B / 4 = 6,343,884,800 B. Under no_sync (Lightning
    # Fabric's no_backward_sync) the unsharded gradients are (12,687,769,600 + 6,553,600) x 2 B = 25,388,646,400 B.
    arch = architecture_from_hf_config(LLAMA_2_13B)
    base = dict(method="lora", lora_rank=8, lora_targets="q_v", adapter_precision="model-dtype", num_gpus=4,
                sharding="fsdp", micro_batch=1, seq_len=1304, attention="sdpa", sequence_mode="dynamic")
    _, apart = estimate_memory(arch, TrainingSetup(**base), A100_40)
    _, mixed = estimate_memory(arch, TrainingSetup(**base, fsdp_wrap="blocks-with-adapters"), A100_40)
    assert mixed.gradients - apart.gradients == 6_343_884_800
    at_step, _ = estimate_memory(arch, TrainingSetup(**base, fsdp_wrap="blocks-with-adapters", grad_accumulation=32), A100_40)
    assert at_step.component("gradients").bytes >= 25_388_646_400
    # LitGPT's resource table (lit-gpt 8641822; reference measurements row 73): 33.13 GiB max_memory_allocated per
    # GPU for this run (micro-batch 1, batch 128: many micro-batches per optimizer step under no_backward_sync)
    assert at_step.peak_allocated_bytes / GIB == pytest.approx(33.13, rel=0.05)


def test_mixed_fsdp_units_apply_only_to_lora_sharded_by_fsdp():
    # QLoRA's 4-bit weights cannot require grad; DeepSpeed and one GPU have no FSDP units
    arch = architecture_from_hf_config(LLAMA_2_13B)
    for base in (dict(method="qlora", num_gpus=4, sharding="fsdp"), dict(method="lora", num_gpus=4, sharding="zero3"),
                 dict(method="lora", num_gpus=1, sharding="none"), dict(method="full", num_gpus=4, sharding="fsdp")):
        a, _ = estimate_memory(arch, TrainingSetup(**base, fsdp_wrap="blocks-with-adapters"), A100_40)
        b, _ = estimate_memory(arch, TrainingSetup(**base), A100_40)
        assert a.total_bytes == b.total_bytes, base
    assert TrainingSetup(method="lora", num_gpus=4, sharding="fsdp", fsdp_wrap="blocks-with-adapters").frozen_weight_grads


def test_an_fsdp_units_gradient_is_held_twice_as_its_layers_backward_ends():
    # Llama-2-13B full fine-tuning in bf16 on 4 GPUs with FSDP, fused AdamW, 2 micro-batches per step synced every
    # micro-batch, one token per micro-batch (so the layer's saved tensors are negligible). While the last layer's
    # backward ends, the sharded gradients of the first micro-batch (13,015,864,320 x 2 B / 4 = 6,507,932,160 B)
    # sit next to that layer's unsharded gradient twice, per weight and flattened for the reduce-scatter:
    # 2 x 317,194,240 x 2 B = 1,268,776,960 B, less the few hundred KB of saved tensors it replaces
    arch = architecture_from_hf_config(LLAMA_2_13B)
    assert arch.parameter_count() == 13_015_864_320
    t = TrainingSetup(method="full", optimizer="adamw-fused", num_gpus=4, sharding="fsdp", grad_accumulation=2,
                      grad_sync="micro-batch", micro_batch=1, seq_len=1, fsdp_wrap="separate-embeddings")
    mem, _ = estimate_memory(arch, t, GpuSpec(id="h100", name="H100", memory_gib=80))
    assert mem.peak_phase == "recomputed layer"
    assert mem.component("gradients").bytes == pytest.approx(6_507_932_160 + 1_268_776_960, abs=1e6)
    assert "twice" in mem.component("gradients").formula


def test_adapters_sharing_a_flat_parameter_take_the_weights_dtype_and_misplaced_settings_are_warned_about():
    # an FSDP1 FlatParameter has one dtype, so adapters in a frozen layer's unit are bf16: LoRA r=8 on q,v of
    # Llama-2-13B is 6,553,600 parameters, x 2 B / 4 GPUs = 3,276,800 B of adapters per GPU (PEFT's FP32 default
    # does not apply)
    arch = architecture_from_hf_config(LLAMA_2_13B)
    t = TrainingSetup(method="lora", lora_rank=8, lora_targets="q_v", num_gpus=4, sharding="fsdp", fsdp_wrap="blocks-with-adapters")
    _, led = estimate_memory(arch, t, A100_40)
    assert led.adapters == 3_276_800
    from tuneplan.core.estimate import estimate

    s = _scenario(method="qlora", num_gpus=4, sharding="fsdp", fsdp_wrap="blocks-with-adapters")
    assert any("only matter for LoRA" in w for w in estimate(s).warnings)
    s = _scenario(method="lora", num_gpus=4, sharding="fsdp", fsdp_wrap="blocks-with-adapters")
    assert not any("only matter for LoRA" in w for w in estimate(s).warnings)


def test_fsdp_keeps_the_root_unit_unsharded_unless_embeddings_are_sharded_apart():
    # Llama-3-8B's parameters outside the decoder layers: embeddings and LM head 2 x 128,256 x 4,096 plus the final
    # norm 4,096 = 1,050,677,248. With layer-wise wrapping they form the root unit, which FSDP keeps unsharded from
    # its forward to its backward in an all-gather buffer next to its 1/8 shard (1,050,677,248 x 2 B =
    # 2,101,354,496 B) beside two gathered layers (each 218,103,808 weights and two norms of 4,096, x 2 B:
    # 2 x 436,224,000 = 872,448,000 B). When torchtune shards the embeddings and LM head as units of their own, the
    # most gathered at once is the LM head unit (1,050,673,152 B) and one prefetched layer: 1,486,897,152 B. The
    # difference is 2,101,354,496 + 872,448,000 - 1,486,897,152 = 1,486,905,344 B
    arch = architecture_from_hf_config(LLAMA_3_8B)
    h100 = GpuSpec(id="h100", name="H100", memory_gib=80)
    base = dict(method="lora", num_gpus=8, sharding="fsdp", seq_len=2048)
    root, _ = estimate_memory(arch, TrainingSetup(**base, fsdp_wrap="layers"), h100)
    apart, _ = estimate_memory(arch, TrainingSetup(**base, fsdp_wrap="separate-embeddings"), h100)
    assert root.peak_phase == apart.peak_phase != "optimizer step"
    assert root.component("weights").bytes - apart.component("weights").bytes == 1_486_905_344
    assert "root unit" in root.component("weights").formula


def test_a_trained_root_unit_holds_both_embedding_gradients_and_their_flat_copy_at_the_end_of_backward():
    # Llama-3-8B full fine-tuning on 8 GPUs with the embeddings and LM head in the root unit, 256 tokens (so the end
    # of the backward is the peak): the sharded gradients 8,030,261,248 x 2 B / 8 = 2,007,565,312 B, plus, before
    # the root's reduce-scatter, the embedding's and the LM head's unsharded gradients and the root's flat gradient
    # they are concatenated into: 4 x 128,256 x 4,096 x 2 B = 4,202,692,608 B
    arch = architecture_from_hf_config(LLAMA_3_8B)
    h100 = GpuSpec(id="h100", name="H100", memory_gib=80)
    t = TrainingSetup(method="full", optimizer="adamw-fused", num_gpus=8, sharding="fsdp", seq_len=256)
    mem, _ = estimate_memory(arch, t, h100)
    assert mem.peak_phase == "end of backward"
    assert mem.component("gradients").bytes == 2_007_565_312 + 4_202_692_608
    apart, _ = estimate_memory(arch, t.model_copy(update={"fsdp_wrap": "separate-embeddings"}), h100)
    assert apart.component("gradients").bytes == 2_007_565_312
    # while the layers' backward runs, the LM head's gradient (128,256 x 4,096 x 2 B = 1,050,673,152 B) waits; with
    # 8 x 4,096 tokens, a fused loss and one more micro-batch per step (synced every micro-batch) the recomputed
    # layer is the peak, next to the earlier micro-batch's shards
    acc = t.model_copy(update={"grad_accumulation": 2, "grad_sync": "micro-batch", "seq_len": 4096, "micro_batch": 8,
                               "fused_cross_entropy": True})
    with_root, _ = estimate_memory(arch, acc, h100)
    without, _ = estimate_memory(arch, acc.model_copy(update={"fsdp_wrap": "separate-embeddings"}), h100)
    assert with_root.peak_phase == without.peak_phase == "recomputed layer"
    assert with_root.component("gradients").bytes - without.component("gradients").bytes == 1_050_673_152
    # a tied embedding: its two contributions and their sum, 3 x vocab x hidden, at the end of the backward
    tied = architecture_from_hf_config({**LLAMA_3_8B, "tie_word_embeddings": True})
    mem_tied, _ = estimate_memory(tied, t, h100)
    shards = tied.parameter_count() * 2 / 8
    assert mem_tied.peak_phase == "end of backward"
    assert mem_tied.component("gradients").bytes == pytest.approx(shards + 3 * 525_336_576 * 2)


def test_with_cpu_offload_embeddings_sharded_apart_are_gathered_like_a_layer():
    # Llama-3-8B full fine-tuning on 8 GPUs with FSDP CPU offload: the GPU holds two gathered units at a time. With
    # the embeddings and LM head as units of their own, the LM head (128,256 x 4,096 x 2 B = 1,050,673,152 B) next
    # to the prefetched layer ((218,103,808 + 2 x 4,096) x 2 B = 436,224,000 B) is the most: 1,486,897,152 B; with
    # them in the root unit the root (1,050,677,248 parameters, as above) stays whole next to two layers:
    # 2 x 436,224,000 + 1,050,677,248 x 2 B = 2,973,802,496 B
    arch = architecture_from_hf_config(LLAMA_3_8B)
    h100 = GpuSpec(id="h100", name="H100", memory_gib=80)
    t = TrainingSetup(method="full", num_gpus=8, sharding="fsdp", cpu_offload=True)
    _, apart = estimate_memory(arch, t.model_copy(update={"fsdp_wrap": "separate-embeddings"}), h100)
    _, root = estimate_memory(arch, t, h100)
    assert apart.weights == 1_486_897_152
    assert root.weights == 2_973_802_496


def test_deepspeed_zero_keeps_a_bf16_module_and_an_fp32_master_partition():
    # DeepSpeed casts the module, adapters included, to bf16 (engine.py module.bfloat16()) and its ZeRO optimizer
    # steps an fp32 master partition with fp32 moments, whatever the plan's master-weights setting.
    # LoRA r=16 on q and v of Llama-3-8B: 32 x 16 x (4,096 + 4,096 + 4,096 + 1,024) = 6,815,744 adapter params.
    arch = architecture_from_hf_config(LLAMA_3_8B)
    n, a = 8_030_261_248, 6_815_744
    t = TrainingSetup(method="lora", lora_rank=16, lora_targets="q_v", master_weights="fp32", optimizer="adamw",
                      num_gpus=4, sharding="zero2")
    _, led = estimate_memory(arch, t, GPU_24)
    assert led.adapters == a * 2  # bf16 adapters on the GPU, not PEFT's fp32
    assert led.weights == n * 2 + a * 4 / 4  # the bf16 base on every GPU + the adapters' fp32 master partition
    assert led.optimizer == 2 * a * 4 / 4  # fp32 moments of the partition
    # the step: the partition's gradients converted to fp32 + torch AdamW's foreach temporary, a / 4 x 4 B each
    assert led.step_temporaries == 2 * a / 4 * 4
    # the same with master weights off: DeepSpeed does not change
    _, same = estimate_memory(arch, t.model_copy(update={"master_weights": "none"}), GPU_24)
    assert (same.weights, same.adapters, same.optimizer) == (led.weights, led.adapters, led.optimizer)


def test_deepspeed_zero3_step_peak_by_hand():
    # Llama-3-8B full fine-tuning, torch AdamW (foreach), ZeRO-3 on 8 GPUs, 1 x 512 tokens: the optimizer step is
    # the peak. n = 8,030,261,248 params, n / 8 = 1,003,782,656 per GPU.
    #   bf16 shard 2n/8 + fp32 master 4n/8            = 6,022,695,936
    #   bf16 gradient partition 2n/8                  = 2,007,565,312
    #   reduce bucket 5e8 x 2 B (kept at stage 3)     = 1,000,000,000
    #   fp32 moments 8n/8                             = 8,030,261,248
    #   fp32 gradient copy + foreach temporary of one
    #   1e9-element sub-group (n/8 > 1e9), 2 x 4 B    = 8,000,000,000
    #   cuBLAS workspace 32 MiB                       =    33,554,432
    #                                           total = 25,094,076,928
    arch = architecture_from_hf_config(LLAMA_3_8B)
    t = TrainingSetup(method="full", optimizer="adamw", master_weights="fp32", num_gpus=8, sharding="zero3",
                      micro_batch=1, seq_len=512, grad_checkpointing=True)
    mem, _ = estimate_memory(arch, t, GpuSpec(id="t80", name="Test 80 GiB", memory_gib=80.0, bf16_tflops=100))
    assert mem.peak_phase == "optimizer step"
    assert mem.peak_allocated_bytes == pytest.approx(25_094_076_928, abs=1)


def test_zero3_gathers_what_deepspeeds_reuse_distance_keeps():
    from tuneplan.core.memory import _zero3_gathered_elements

    # Llama-3-8B: the LM head 128,256 x 4,096 = 525,336,576 is used again at once (kept); the last layer's next use
    # is 2 x (0 + head) = 1,050,673,152 >= 1e9 elements away, so no layer is kept. The next layer arrives through
    # the 5e7 prefetch bucket plus up to one matrix (4,096 x 14,336 = 58,720,256): 108,720,256 < one layer
    # (2 x 4,096^2 + 2 x 4,096 x 1,024 + 3 x 4,096 x 14,336 = 218,103,808).
    assert _zero3_gathered_elements(architecture_from_hf_config(LLAMA_3_8B)) == 525_336_576 + 108_720_256
    # Llama-2-7B shapes (vocab 32,000, MHA, intermediate 11,008): head 131,072,000, layer 4 x 4,096^2 + 3 x 4,096 x
    # 11,008 = 202,375,168. Layer L-1: 2 x 131,072,000 = 262M < 1e9, kept; L-2: 2 x (202,375,168 + 131,072,000) =
    # 667M, kept; L-3: 1,071.6M, released. Prefetch 5e7 + 45,088,768 = 95,088,768.
    llama2 = dict(LLAMA_3_8B, vocab_size=32000, intermediate_size=11008, num_key_value_heads=32)
    assert _zero3_gathered_elements(architecture_from_hf_config(llama2)) == 131_072_000 + 2 * 202_375_168 + 95_088_768


# --- terms a mutation run left unpinned (issue #20): each checked by hand against the formula's source ---------


def _llama3_8b() -> ModelArchitecture:
    return architecture_from_hf_config(LLAMA_3_8B)


def test_eager_attention_saves_the_fp32_softmax_and_bf16_probabilities_per_head_and_key():
    # per token per layer, eager minus FlashAttention (bf16 LoRA on all linears: each lora_A saves its own bf16
    # copy of its input in both, so o_proj's base saves nothing):
    #   eager saves the fp32 softmax and its bf16 copy, 4 + 2 = 6 B per head per key: 6 x 32 x 2048 = 393,216
    #   eager expands k and v to every head (repeat_kv): 2 x 2 B x (4096 - 1024) = +12,288
    #   FlashAttention saves its output (its backward needs rowsum(dO * O)) and an fp32 log-sum-exp per head,
    #   which eager's probs @ v does not (it saves probs and v): -(2 x 4096 + 4 x 32) = -8,320
    #   -> 397,184 B
    arch = _llama3_8b()
    base = dict(method="lora", lora_targets="all-linear", micro_batch=1, seq_len=2048, grad_checkpointing=False,
                sequence_mode="fixed")
    _, eager = estimate_memory(arch, TrainingSetup(attention="eager", **base), GPU_24)
    _, flash = estimate_memory(arch, TrainingSetup(attention="flash", **base), GPU_24)
    assert eager.activation_per_layer_token - flash.activation_per_layer_token == 397_184


def test_eager_attention_score_buffers_are_transient():
    # eager attention's scores, mask and fp32 cast: micro-batch x heads x seq^2 x 8 B = 2 x 32 x 2048^2 x 8 = 2 GiB
    arch = _llama3_8b()
    base = dict(method="lora", micro_batch=2, seq_len=2048, grad_checkpointing=True, sequence_mode="fixed")
    _, eager = estimate_memory(arch, TrainingSetup(attention="eager", **base), GPU_24)
    _, flash = estimate_memory(arch, TrainingSetup(attention="flash", **base), GPU_24)
    assert eager.temporaries - flash.temporaries == 2 * 32 * 2048**2 * 8 == 2 * GIB


def test_qlora_dequantises_the_largest_matrix_into_a_bf16_temporary():
    # bitsandbytes dequantize_4bit writes the whole weight in bf16 before the matmul: the largest single linear
    # of Llama-3-8B is gate/up/down, 4096 x 14336, x 2 B = 117,440,512 B over LoRA on the same (bf16) base
    arch = _llama3_8b()
    base = dict(micro_batch=1, seq_len=1024, grad_checkpointing=True, attention="flash", kbit_fp32_upcast=False)
    _, qlora = estimate_memory(arch, TrainingSetup(method="qlora", **base), GPU_24)
    _, lora = estimate_memory(arch, TrainingSetup(method="lora", **base), GPU_24)
    assert qlora.temporaries - lora.temporaries == 4096 * 14336 * 2 == 117_440_512


def test_nccl_communicator_buffers_join_the_cuda_context_on_several_gpus():
    # CUDA context 500 MiB on every GPU; with a process group, NCCL's communicator buffers add 256 MiB
    arch = _llama3_8b()
    one, _ = estimate_memory(arch, TrainingSetup(method="lora", num_gpus=1), GPU_24)
    two, _ = estimate_memory(arch, TrainingSetup(method="lora", num_gpus=2, sharding="ddp"), GPU_24)
    assert one.component("cuda_context").bytes == 500 * 2**20
    assert two.component("cuda_context").bytes == (500 + 256) * 2**20


# --- DeepSpeed buffer sizes (issue #17): DeepSpeed's defaults, Hugging Face's "auto" fill, explicit sizes ---------


def _zero(stage: str, method: str = "lora", **kw) -> TrainingSetup:
    # LoRA at 2 x 4096 tokens: the loss's backward is the peak, where the buckets are alive
    return TrainingSetup(method=method, num_gpus=4, sharding=stage, micro_batch=2, seq_len=4096, **kw)


def test_hf_auto_reduce_bucket_is_hidden_squared():
    # ZeRO-2 allocates the reduce bucket whole in each backward, in the model's 16-bit dtype:
    #   DeepSpeed's default 5e8 elements x 2 B = 1,000,000,000 B
    #   Hugging Face "auto" (transformers trainer_config_finalize): 4096 x 4096 x 2 B = 33,554,432 B
    arch = _llama3_8b()
    default, _ = estimate_memory(arch, _zero("zero2"), GPU_24)
    auto, _ = estimate_memory(arch, _zero("zero2", deepspeed_auto_buckets=True), GPU_24)
    assert default.peak_phase == auto.peak_phase == "backward"
    assert default.component("gradients").bytes - auto.component("gradients").bytes == 1_000_000_000 - 33_554_432
    # an explicit size wins over "auto": 2e8 x 2 B
    sized, _ = estimate_memory(arch, _zero("zero2", deepspeed_auto_buckets=True, deepspeed_reduce_bucket=2e8), GPU_24)
    assert sized.component("gradients").bytes - auto.component("gradients").bytes == 400_000_000 - 33_554_432


def test_hf_auto_prefetch_bucket_under_zero3():
    # ZeRO-3 gathers the next layer through the prefetch bucket, whole parameters (up to one matrix beyond it):
    #   default: min(layer 218,103,808, 5e7 + largest matrix 4096 x 14336 = 58,720,256) = 108,720,256 elements
    #   "auto": 0.9 x 4096^2 = 15,099,494.4 + 58,720,256 = 73,819,750.4 elements
    #   -> 34,900,505.6 elements x 2 B = 69,801,011.2 B fewer gathered weight bytes (the reduce bucket as above)
    arch = _llama3_8b()
    default, _ = estimate_memory(arch, _zero("zero3"), GPU_24)
    auto, _ = estimate_memory(arch, _zero("zero3", deepspeed_auto_buckets=True), GPU_24)
    assert default.peak_phase == auto.peak_phase
    assert default.component("weights").bytes - auto.component("weights").bytes == pytest.approx(69_801_011.2)
    assert default.component("gradients").bytes - auto.component("gradients").bytes == 1_000_000_000 - 33_554_432
    # a prefetch bucket of 0 prefetches nothing: the whole 108,720,256-element prefetch goes
    none, _ = estimate_memory(arch, _zero("zero3", deepspeed_prefetch_bucket=0), GPU_24)
    assert default.component("weights").bytes - none.component("weights").bytes == 108_720_256 * 2


def test_zero3_sub_group_bounds_the_step_buffers():
    # the fp32 gradient copy of one sub-group (4 B/element) plus foreach AdamW's temporary of the same size:
    # partition 8,030,261,248 / 4 = 2,007,565,312 elements; sub-group 1e8 -> 1e8 x 4 x 2 = 8e8 B at the step
    arch = _llama3_8b()
    _, led = estimate_memory(arch, _zero("zero3", "full", deepspeed_sub_group=1e8), GPU_24)
    assert led.step_temporaries == 1e8 * 4 * 2
    # 0: DeepSpeed closes a group as soon as it reaches sub_group_size, so every parameter is a group of its own
    # (stage3.py _create_fp16_sub_groups): the largest, the embedding 128,256 x 4096 = 525,336,576 elements, / 4 GPUs
    # = 131,334,144 elements x 4 B x 2
    _, each = estimate_memory(arch, _zero("zero3", "full", deepspeed_sub_group=0), GPU_24)
    assert each.step_temporaries == 128_256 * 4096 / 4 * 4 * 2


def test_the_default_plans_activation_formula_names_every_term_its_bytes_hold():
    """#20: the default plan's activation formula left out two terms its total holds. At the loss's backward (its
    peak, checkpointing on) the component is, by hand, for Llama 3.1 8B QLoRA at 1 x 2048 tokens:
      checkpoints 32 layers x 8,192 B (one bf16 hidden state of 4,096) x 2,048 tokens = 536,870,912
      + the final RMSNorm's fp32 input 4 x 4,096 = 16,384 B/token x 2,048 tokens     =  33,554,432
      + one layer's bf16 autocast copies of the fp32 LoRA adapters 2 x 41,943,040 / 32 = 2,621,440
      = 573,046,784 B, and the formula names all three."""
    from tuneplan import catalog
    from tuneplan.core.estimate import estimate

    comp = estimate(catalog.default_scenario()).memory.component("activations")
    assert comp.bytes == 32 * 8192 * 2048 + 16384 * 2048 + 2 * 41_943_040 / 32 == 573_046_784
    assert "checkpoints 32 layers x 8192 B x 2048 tokens" in comp.formula
    assert "16,384 B/token x 2048 tokens" in comp.formula
    assert "autocast copies of one layer's LoRA adapters (2.5 MiB)" in comp.formula


def test_lora_on_stacked_experts_materialises_w_plus_delta_w_in_the_base_dtype():
    # PEFT ParamWrapper: every forward makes W + delta-W of the layer's expert stack in the weights' dtype. Mixtral
    # 8 experts x (gate, up, down) 3 x 4096 x 14336 = 1,409,286,144 parameters per layer: x 2 B = 2.82 GB (LoRA,
    # bf16), x 4 B under QLoRA with PEFT's fp32 upcast of the unquantised weights (stacked experts are not
    # nn.Linear: bitsandbytes leaves them unquantised)
    from tuneplan.core.memory.activations import step_activations
    from tuneplan.core.memory.context import memory_context

    arch = architecture_from_hf_config(MIXTRAL_8X7B)
    stack = 8 * 3 * 4096 * 14336
    gpu = GpuSpec(id="big", name="big", memory_gib=80)
    for method, upcast, precision, per_param in (("lora", False, "bf16", 2), ("qlora", False, "bf16", 2),
                                                 ("qlora", True, "bf16", 4), ("lora", False, "fp32", 4)):
        t = TrainingSetup(method=method, lora_targets="all-linear", kbit_fp32_upcast=upcast, lora_dropout=0.0,
                          precision=precision)
        a = step_activations(memory_context(arch, t, gpu), 0)
        assert a.merged_one == stack * per_param, (method, upcast)
    assert step_activations(memory_context(arch, TrainingSetup(method="lora", lora_targets="q_v"), gpu), 0
                            ).merged_one == 0


def test_activation_offload_formula_names_the_experts_it_keeps():
    # attack review: Mixtral LoRA on all linear layers without checkpointing, activations offloaded: the number kept
    # two layers' experts' W + delta-W (2 x 1,409,286,144 x 2 B = 5.25 GiB) that the formula left out
    from tuneplan.core.memory.activations import step_activations
    from tuneplan.core.memory.context import memory_context

    arch = architecture_from_hf_config(MIXTRAL_8X7B)
    gpu = GpuSpec(id="big", name="big", memory_gib=141)
    t = TrainingSetup(method="lora", lora_targets="all-linear", grad_checkpointing=False, activation_offload=True,
                      lora_dropout=0.0)
    a = step_activations(memory_context(arch, t, gpu), 0)
    assert a.merged_one == 8 * 3 * 4096 * 14336 * 2
    assert f"their experts' W + delta-W {2 * a.merged_one / 2**30:.2f} GiB" in a.formula
    assert f"{2 * a.merged_one / 2**30:.2f}" == "5.25"
    ckpt = step_activations(memory_context(arch, t.model_copy(update={"grad_checkpointing": True}), gpu), 0)
    assert f"its experts' W + delta-W {a.merged_one / 2**30:.2f} GiB" in ckpt.formula
