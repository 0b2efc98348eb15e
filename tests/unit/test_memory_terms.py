"""The memory terms one at a time (core/memory's package of terms over one MemoryContext, issue #20 point 2).

Every expected number is a hand calculation from Meta-Llama-3-8B's config.json (hidden 4096, intermediate 14336,
32 layers, 32 heads, 8 KV heads of 128, vocabulary 128256, untied), shown beside the assertion. Per layer the linear
weights are q 4096x4096 + k 4096x1024 + v 4096x1024 + o 4096x4096 + gate/up/down 3 x 4096x14336 = 218,103,808;
x 32 layers = 6,979,321,856; embedding and LM head 2 x 128256 x 4096 = 1,050,673,152; norms 2 x 32 x 4096 + 4096 =
266,240; in all 8,030,261,248 (the HF safetensors index: 16,060,522,496 B / 2).
"""

from __future__ import annotations

import pytest

from tuneplan.core.architecture import architecture_from_hf_config
from tuneplan.core.memory import MIB
from tuneplan.core.memory.activations import layer_temporaries, sdpa_mask_bytes, step_activations
from tuneplan.core.memory.allocator import nccl_bytes, reserved_bytes, shape_cache_bytes
from tuneplan.core.memory.context import memory_context
from tuneplan.core.memory.peaks import kept_gradients, tied_embedding_backward
from tuneplan.core.memory.states import (
    model_states,
    optimizer_states,
    root_unit_gradients,
    trainable,
    weights,
)
from tuneplan.core.result import GIB
from tuneplan.core.scenario import GpuSpec, TrainingSetup

LLAMA_3_8B = {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
              "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "tie_word_embeddings": False}
GPU_80 = GpuSpec(id="test80", name="Test 80 GiB", memory_gib=80.0, bf16_tflops=300)
N = 8_030_261_248
LAYERS = 6_979_321_856
EMBED = 128256 * 4096  # 525,336,576
LORA_ALL_LINEAR_R16 = 41_943_040  # 32 x 16 x (8192 + 5120 + 5120 + 8192 + 3 x 18432), as PEFT counts it


def ctx_of(**fields):
    return memory_context(architecture_from_hf_config(LLAMA_3_8B), TrainingSetup(**fields), GPU_80)


def test_the_context_holds_the_dtypes_and_counts_every_term_reads():
    c = ctx_of()  # the default plan: QLoRA, bf16, one GPU, one row of 2,048 tokens
    assert (c.w_bytes, c.act, c.resid, c.unq, c.shard) == (2, 2, 2, 2, "none")
    assert (c.total_params, c.layer_linear, c.layer_linear_each) == (N, LAYERS, 218_103_808)
    assert c.non_layer == N - LAYERS == 1_050_939_392  # embeddings, LM head, norms
    assert (c.embed_params, c.tokens) == (EMBED, 2048)
    # an fp32 master model under autocast: fp32 weights, bf16 activations, an fp32 residual stream and LM head cast
    amp = ctx_of(method="full", master_weights="fp32")
    assert (amp.amp, amp.w_bytes, amp.act, amp.resid, amp.fp32_head_cast) == (True, 4, 2, 4, True)
    # DeepSpeed ZeRO is mixed precision of its own: the fp32 master setting does not apply, the module stays bf16
    ds = ctx_of(method="full", master_weights="fp32", sharding="zero2", num_gpus=2)
    assert (ds.ds_mixed, ds.amp, ds.w_bytes) == (True, False, 2)
    # sharded QLoRA never upcasts (TRL is_sharded_qlora), whatever kbit_fp32_upcast says
    assert ctx_of(kbit_fp32_upcast=True).unq == 4
    assert ctx_of(kbit_fp32_upcast=True, sharding="fsdp", num_gpus=8).unq == 2


def test_qlora_weights_term_nf4_layers_and_bf16_rest():
    w = weights(ctx_of())
    # NF4 with double quantisation: (4 + 8/64 + 32/(64 x 256)) / 8 = 0.515869140625 B per weight (exact in binary)
    # 6,979,321,856 x 0.515869140625 = 3,600,416,768; the rest 1,050,939,392 x 2 B = 2,101,878,784
    assert w.bytes == 3_600_416_768 + 2_101_878_784
    assert w.model_weight_bytes == w.bytes and w.forward_casts == 0.0
    assert w.formula.startswith("6.98B layer weights x 0.5159 B (NF4 + double quant) + 1.05B embeddings/head/norms x 2 B")


def test_lora_trainable_term_and_adamw_states():
    c = ctx_of(method="lora")
    tr = trainable(c)
    assert tr.trainable == tr.lora_params == LORA_ALL_LINEAR_R16
    assert (tr.grad_bytes, tr.adapters) == (4, LORA_ALL_LINEAR_R16 * 4)  # fp32 adapters: 167,772,160 B
    opt = optimizer_states(c, tr)
    assert opt.bytes == 2 * 4 * LORA_ALL_LINEAR_R16 == 335_544_320  # two fp32 moments
    assert opt.step_temp == 167_772_160  # torch AdamW's foreach path: one state-sized temporary
    assert opt.paged == 0.0 and opt.formula == "41.9M x 2 moments x 4 B"


def test_zero2_master_partition_shards_and_reduce_bucket():
    s = model_states(ctx_of(method="full", sharding="zero2", num_gpus=2))
    # bf16 module 8,030,261,248 x 2 B = 16,060,522,496 + fp32 master partition N/2 x 4 B = 16,060,522,496
    assert s.weights == 2 * 16_060_522_496
    assert s.gradients == 8_030_261_248  # bf16 gradients N x 2 B, reduce-scattered over 2 GPUs
    assert s.optimizer == 32_121_044_992  # fp32 moments of the partition: N/2 x 2 x 4 B
    assert s.ds_bucket == 1e9  # reduce_bucket_size 5e8 elements x 2 B
    assert s.step_temp == 4_015_130_624 * 4 * 2  # the partition's fp32 gradients + AdamW's foreach temporary
    assert "reduce bucket 500M x 2 B (DeepSpeed reduce_bucket_size default)" in s.gradients_formula


def test_ddp_keeps_a_flat_copy_of_the_gradients():
    one = model_states(ctx_of(method="lora"))
    ddp = model_states(ctx_of(method="lora", sharding="ddp", num_gpus=2))
    assert one.gradients == LORA_ALL_LINEAR_R16 * 4
    assert ddp.gradients == 2 * LORA_ALL_LINEAR_R16 * 4  # gradient_as_bucket_view=False: buckets copy them


def test_fsdp_root_unit_gradients_full_finetuning():
    # untied: the LM head's gradient waits (vocab x hidden x 2 B = 1,050,673,152), then the embedding's, the LM
    # head's and the root's flat copy of both: 4 x 1,050,673,152
    assert root_unit_gradients(ctx_of(method="full", sharding="fsdp", num_gpus=8)) == (1_050_673_152, 4_202_692_608)
    assert root_unit_gradients(ctx_of(method="lora", sharding="fsdp", num_gpus=8)) == (0.0, 0.0)  # root frozen
    assert root_unit_gradients(ctx_of(method="full", sharding="fsdp", num_gpus=8,
                                      fsdp_wrap="separate-embeddings")) == (0.0, 0.0)


def test_fsdp_no_sync_keeps_the_unsharded_gradients():
    c = ctx_of(method="lora", sharding="fsdp", num_gpus=8, grad_accumulation=4)
    kept, end, formula = kept_gradients(c, model_states(c))
    # the unsharded LoRA gradients in the forward's dtype: 41,943,040 x 2 B
    assert kept == end == 83_886_080
    assert formula.endswith("which is what is counted: 41.9M x 2 B")


def test_tied_embedding_backward_contributions():
    c = memory_context(architecture_from_hf_config({**LLAMA_3_8B, "tie_word_embeddings": True}),
                       TrainingSetup(method="full"), GPU_80)
    emb_grad = EMBED * 2  # 1,050,673,152 B
    # three vocab x hidden buffers (two contributions and their sum), one of them counted among the gradients
    assert tied_embedding_backward(c, model_states(c)) == 3 * emb_grad - emb_grad
    acc = memory_context(c.arch, TrainingSetup(method="full", grad_accumulation=4), GPU_80)
    assert tied_embedding_backward(acc, model_states(acc)) == 3 * emb_grad  # the sum is added into .grad
    assert tied_embedding_backward(ctx_of(method="full"), model_states(ctx_of(method="full"))) is None  # untied


def test_layer_temporaries_qlora_and_eager_scores():
    base, temps = layer_temporaries(ctx_of())
    # two bf16 gradient buffers between layers 2 x 2 B x 4096 x 2048 = 33,554,432 + the dequantised bf16 copy of the
    # largest NF4 matrix 2 B x 4096 x 14336 = 117,440,512
    assert base == temps == 150_994_944
    _, eager = layer_temporaries(ctx_of(attention="eager"))
    assert eager == 150_994_944 + 32 * 2048 * 2048 * 8  # scores, mask and fp32 cast: 8 B per head and score


def test_step_activations_checkpoints_and_head_inputs():
    a = step_activations(ctx_of(lora_dropout=0.0), LORA_ALL_LINEAR_R16)
    assert a.checkpoint_token == 2 * 4096  # each layer's bf16 input
    assert a.head_saved == 4 * 4096  # the final RMSNorm's fp32 input copy; a frozen LM head saves nothing
    # fp32 adapters under autocast: one layer's bf16 copies, 2 B x 41,943,040 / 32 = 2,621,440 B, and with
    # checkpointing the other 31 layers' copies in autocast's cache until the forward ends
    assert a.adapter_cast_per_layer == 2_621_440
    assert a.forward_cache == 31 * 2_621_440


def test_sdpa_padding_mask_only_where_transformers_passes_one():
    # an unpadded micro-batch (packed rows, or one dynamic row) runs SDPA causally with no mask; so do torchtune,
    # LitGPT and Unsloth, whose own modelling code never passes one; FlashAttention 2 unpads the batch
    for fields in ({"sequence_mode": "packed", "micro_batch": 4}, {"sequence_mode": "dynamic", "micro_batch": 1},
                   {"sequence_mode": "dynamic", "micro_batch": 4, "stack": "torchtune"},
                   {"sequence_mode": "dynamic", "micro_batch": 4, "attention": "flash"}):
        assert sdpa_mask_bytes(ctx_of(attention=fields.pop("attention", "sdpa"), **fields)) == (0.0, 0.0)
    # fixed rows are costed as full-length rows (the validation's), which carry no mask
    assert sdpa_mask_bytes(ctx_of(attention="sdpa", sequence_mode="fixed", micro_batch=4)) == (0.0, 0.0)
    # a DPO pair is two rows even at micro-batch 1: chosen and rejected are padded to the longer
    assert sdpa_mask_bytes(ctx_of(attention="sdpa", sequence_mode="dynamic", micro_batch=1, workload="dpo",
                                  method="lora"))[0] == 2 * 2048 * 2048


def test_sdpa_padding_mask_bytes_by_hand():
    # 4 rows of 2,048: the boolean (4, 1, 2048, 2048) mask, 1 B each = 16,777,216 B (16 MiB); each layer's bf16
    # additive copy 4 x 2048 x 2048 x 2 B = 33,554,432 B (32 MiB)
    c = ctx_of(method="lora", attention="sdpa", sequence_mode="dynamic", micro_batch=4, seq_len=2048)
    assert sdpa_mask_bytes(c) == (16_777_216, 33_554_432)
    # 2,047 is no multiple of 8: SDPA pads the copy's last dimension to 2,048: 4 x 2047 x 2048 x 2 = 33,538,048
    c = ctx_of(method="lora", attention="sdpa", sequence_mode="dynamic", micro_batch=4, seq_len=2047)
    assert sdpa_mask_bytes(c) == (4 * 2047 * 2047, 33_538_048)
    # dynamic padding with 2 rows of 8,192 under fp32: 2 x 8192^2 = 134,217,728 B bool, 4 B per bias element
    c = ctx_of(method="lora", precision="fp32", attention="sdpa", sequence_mode="dynamic", micro_batch=2, seq_len=8192)
    assert sdpa_mask_bytes(c) == (134_217_728, 536_870_912)


def test_sdpa_padding_mask_of_sliding_window_models_and_attention_free_models():
    # Gemma-2-style: half the layers slide, so transformers builds a sliding-window mask beside the causal one
    mixed = dict(LLAMA_3_8B, sliding_window=4096)
    arch = architecture_from_hf_config(mixed).model_copy(update={"sliding_window_layers": 16})
    c = memory_context(arch, TrainingSetup(attention="sdpa", sequence_mode="dynamic", micro_batch=4), GPU_80)
    assert sdpa_mask_bytes(c) == (2 * 16_777_216, 33_554_432)


def test_sdpa_padding_mask_in_the_saved_activations():
    # the same padded plan on torchtune, whose modelling code passes no mask (nothing else in the memory terms reads
    # the stack), isolates the term
    fields = {"method": "lora", "lora_dropout": 0.0, "attention": "sdpa", "sequence_mode": "dynamic", "micro_batch": 4,
              "seq_len": 2048}
    for ckpt in (False, True):
        padded = step_activations(ctx_of(grad_checkpointing=ckpt, **fields), LORA_ALL_LINEAR_R16)
        unmasked = step_activations(ctx_of(grad_checkpointing=ckpt, stack="torchtune", **fields), LORA_ALL_LINEAR_R16)
        # one layer's saved set gains its 32 MiB copy
        assert padded.one_layer - unmasked.one_layer == 32 * MIB
        # without checkpointing every one of the 32 layers keeps its copy, 32 x 32 MiB = 1,024 MiB, and the boolean
        # mask is freed when the model's forward returns; with it, the boolean mask (each checkpoint's input) and the
        # recomputed layer's copy: 16 + 32 = 48 MiB
        assert padded.bytes - unmasked.bytes == (16 + 32 if ckpt else 32 * 32) * MIB
        assert ("SDPA's boolean padding mask 16.0 MiB" in padded.formula) is ckpt
        assert "SDPA" in padded.formula and "SDPA" not in unmasked.formula


def test_allocator_terms():
    assert reserved_bytes({"backward": 10.0, "optimizer step": 12.0, "last layer backward": 8.0}, "optimizer step",
                          3.0) == 13.0  # the backward's fragmented cache (10 + 3) stays reserved at the step
    assert nccl_bytes(ctx_of(sharding="ddp", num_gpus=2)) == 256 * MIB
    assert nccl_bytes(ctx_of(num_gpus=2)) == 0.0  # layers split across GPUs: no collective buffers
    assert shape_cache_bytes(ctx_of(), 10 * GIB, 1 * GIB, 0.0) == 0.0  # packed: no shapes to cache
    dyn = ctx_of(sequence_mode="dynamic")
    assert shape_cache_bytes(dyn, 10 * GIB, 1 * GIB, 0.0) == 1 * GIB  # QLoRA (as LoRA): one stale set of the transients
    # on a card with little room left the cache is what fits: 80 GiB - 500 MiB context - 79.5 GiB reserved = 0
    assert shape_cache_bytes(dyn, 80 * GIB - 500 * MIB, 1 * GIB, 0.0) == pytest.approx(0.0)


def test_weights_formula_names_the_cached_casts_its_number_holds_at_the_end_of_the_forward():
    """An fp32 master model under checkpointing: at the end of the forward autocast's cache still holds every other
    layer's bf16 weight cast, which the weights component counts; its formula says so (it once named one layer's)."""
    from tuneplan.core.memory import estimate_memory

    arch = architecture_from_hf_config(LLAMA_3_8B)
    est, led = estimate_memory(arch, TrainingSetup(method="full", master_weights="fp32", optimizer_in_backward=True),
                               GPU_80)
    assert est.peak_phase == "end of forward"
    weights_ = est.component("weights")
    # 31 other layers x 218,103,808 weights x 2 B = (6,979,321,856 - 218,103,808) x 2 = 13,522,436,096 B
    assert weights_.bytes - led.weights == 13_522_436_096
    assert "bf16 autocast copies of one layer (2 B/param)" in weights_.formula
    assert weights_.formula.endswith("bf16 autocast copies of the other layers' weights, cached until the forward ends")


def test_activations_formula_says_which_part_of_the_ledger_its_number_holds():
    from tuneplan.core.memory import estimate_memory

    arch = architecture_from_hf_config(LLAMA_3_8B)
    est, led = estimate_memory(arch, TrainingSetup(), GPU_80)  # QLoRA r=16 all-linear, checkpointing, 2,048 tokens
    acts = est.component("activations")
    assert est.peak_phase == "backward"
    # at the loss's backward: the checkpoints 32 x 8192 B x 2048 = 536,870,912, one layer's bf16 adapter copies
    # 2,621,440 and the final norm's fp32 input 16,384 B x 2048 = 33,554,432; not the recomputed layer
    assert acts.bytes == 536_870_912 + 2_621_440 + 33_554_432
    assert acts.formula.startswith("at the loss's backward the ledger less its recomputed layer, which comes later: "
                                   "checkpoints 32 layers x 8192 B x 2048 tokens + one recomputed layer")
    # with a fused loss (one chunk of logits) the peak is the last layer's recomputed backward: every checkpoint and
    # that layer's saved set, but not the head's inputs, freed by their backward before it
    est2, led2 = estimate_memory(arch, TrainingSetup(fused_cross_entropy=True), GPU_80)
    assert est2.peak_phase == "recomputed layer"
    acts2 = est2.component("activations")
    assert acts2.bytes == led2.activations - 16_384 * 2048
    assert acts2.formula.startswith("the ledger less the final norm's and LM head's saved inputs, freed by their backward")


def test_loss_side_of_each_loss_by_hand():
    from tuneplan.core.memory.activations import loss_side

    v, h = 128256, 4096
    # SFT, transformers' fp32 cross-entropy at its backward: 2,048 tokens x V x 12 B (fp32 log-softmax + two fp32
    # gradients); bf16 logits: max(12, 2 + 4 + 4) = 12
    assert loss_side(ctx_of()).bytes == 2048 * v * 12
    # fp32 logits (full fine-tuning in fp32): max(12, 4 + 4 + 4) = 12 still
    assert loss_side(ctx_of(method="full", precision="fp32")).bytes == 2048 * v * 12
    # an fp32 master model under autocast: + the LM head's bf16 cast, V x h x 2 B
    amp = loss_side(ctx_of(method="full", master_weights="fp32"))
    assert amp.bytes == 2048 * v * 12 + v * h * 2
    assert amp.formula.endswith(f" + bf16 autocast copy of the fp32 LM head ({v} x {h} x 2 B)")
    assert amp.formula.startswith(f"2048 tokens x {v} vocab x 12 B")
    # fused/chunked cross-entropy: one of 8 chunks of min(tokens, 8192) tokens, logits + fp32 copy + gradient
    # (2 + 4 + 4 B): 2,048 tokens -> 256 x V x 10
    fused = loss_side(ctx_of(fused_cross_entropy=True))
    assert fused.bytes == 2048 * v * (2 + 4 + 4) / 8
    assert fused.formula == f"fused/chunked cross-entropy: one chunk of 256 tokens x {v} vocab"
    # 16,384 tokens are chunked as 8,192: 1,024-token chunks
    long = loss_side(ctx_of(fused_cross_entropy=True, seq_len=16384))
    assert long.bytes == 8192 * v * 10 / 8 and "one chunk of 1024 tokens" in long.formula
    # DPO at its backward (core/workload.py LOGPROB_TENSORS dpo/log_softmax backward = 2): 2 rows (chosen and
    # rejected) x 2,048 positions x V x 2 B x 2 tensors
    dpo = loss_side(ctx_of(workload="dpo"))
    assert dpo.bytes == 2 * 2048 * v * 2 * 2
    assert [(t.key, t.detail, t.part("tensors")) for t in dpo.terms] == [("policy_logps", "backward", 2.0)]
    # ... and with an fp32 master model the head's bf16 cast as well (the logits bf16 under autocast)
    dpo_amp = loss_side(ctx_of(workload="dpo", method="full", master_weights="fp32"))
    assert dpo_amp.bytes == 2 * 2048 * v * 2 * 2 + v * h * 2
    # a reward model: one score per position (rows x positions x 1 x 2 B), no vocabulary logits
    reward = loss_side(ctx_of(workload="reward"))
    assert reward.bytes == 2 * 2048 * 2
    (term,) = reward.terms
    assert (term.key, term.unit, term.part("tokens"), term.part("elem_bytes")) == ("value_head", "B", 4096, 2)
    assert reward.formula == ""  # rendered from its terms


def test_activation_offload_keeps_two_layers_on_the_gpu_by_hand():
    # CPU activation offload (torchtune/axolotl offload_activations): two checkpointed inputs stay on the GPU, plus
    # the one layer being recomputed; without checkpointing two layers' whole saved sets
    base = step_activations(ctx_of(lora_dropout=0.0), LORA_ALL_LINEAR_R16)
    off = step_activations(ctx_of(lora_dropout=0.0, activation_offload=True), LORA_ALL_LINEAR_R16)
    # checkpointed: 2 x (2 x 4096 B x 2048 tokens) + one layer; it replaces 32 x 8192 x 2048 + one layer. Both add
    # the head's saved inputs (4 x 4096 B x 2048 tokens) and one layer's bf16 adapter casts (2,621,440 B), which
    # stay on the GPU
    rest = 4 * 4096 * 2048 + 2_621_440
    assert off.bytes == 2 * (2 * 4096 * 2048) + base.one_layer + rest
    assert base.bytes == 32 * 2 * 4096 * 2048 + base.one_layer + rest
    assert off.formula.startswith("checkpoints of 2 layers x 8192 B x 2048 tokens + one recomputed layer ")
    assert "(the other layers' activations offloaded to CPU)" in off.formula
    plain = step_activations(ctx_of(lora_dropout=0.0, grad_checkpointing=False), LORA_ALL_LINEAR_R16)
    plain_off = step_activations(ctx_of(lora_dropout=0.0, grad_checkpointing=False, activation_offload=True),
                                 LORA_ALL_LINEAR_R16)
    plain_rest = plain.bytes - 32 * plain.per_layer_token * 2048  # the same head inputs and adapter casts
    assert plain_off.bytes == 2 * plain.one_layer + plain_rest < plain.bytes


def test_layer_temporaries_of_an_8bit_base_by_hand():
    # LLM.int8 (core/memory/quantized.py int8_matmul_transient), Llama-3-8B, 2,048 tokens. bf16: gate/up's output side
    # d_in + 6 d_out = 4096 + 6 x 14336 = 90,112 B per token is the largest (down's input side 6 x 14336 = 86,016;
    # the backward's weight copy 2 x 4096 x 14336 = 117,440,512 B in all): 2048 x 90,112 = 184,549,376 B. fp16 (no
    # cast of the input, the fp16 result is the output): gate/up 4096 + 4 x 14336 = 61,440 -> 125,829,120 B. Both
    # beside the gradient flowing between layers, 2 x 2 B x 4096 x 2048 = 33,554,432 B
    bf16, _ = layer_temporaries(ctx_of(method="qlora", quant_bits=8))
    fp16, _ = layer_temporaries(ctx_of(method="qlora", quant_bits=8, precision="fp16"))
    assert bf16 == 33_554_432 + 184_549_376
    assert fp16 == 33_554_432 + 125_829_120


def test_a_preference_loss_in_fp32_takes_the_logsumexp_path():
    from tuneplan.core.memory.activations import loss_side

    # fp32 logits (full fine-tuning in fp32): selective_log_softmax gathers and takes logsumexp, which keeps the
    # logits until the last row's backward: 3 V-wide tensors at the backward (core/workload.py LOGPROB_TENSORS) of
    # 4 B, over 2 rows x 2,048 positions
    dpo = loss_side(ctx_of(workload="dpo", method="full", precision="fp32"))
    assert dpo.bytes == 2 * 2048 * 128256 * 4 * 3
    (term,) = loss_side(ctx_of(workload="reward")).terms
    assert [(q.key, q.unit) for q in term.parts] == [("tokens", "tokens"), ("elem_bytes", "B")]
    assert term.source.startswith("transformers GenericForSequenceClassification")
