"""Preference and reward-model workloads (issue #18): what TRL holds in memory and runs beyond supervised fine-tuning.

Every behaviour below is read from TRL's source at commit ``f2cd57710ae345ea6428ae95363267fcf38a3dc8``
(github.com/huggingface/trl, cited as ``trl@f2cd577 path function``) and transformers' ``modeling_layers.py`` at
``00029cfa0ed780d1ddb6e5d199bd92e86c5791a2``. ``sft`` is today's planner, unchanged; the others:

* **Rows.** ``dpo``: ``DataCollatorForPreference.torch_call`` (trl/trainer/dpo_trainer.py) stacks ``prompt + chosen``
  and ``prompt + rejected`` of every example into one batch of ``2 x micro_batch`` rows (the prompt is repeated, not
  shared), padded to the longest; one forward runs them all. ``orpo`` (ORPO, CPO, SimPO): ``concatenated_forward``
  (trl/experimental/orpo/orpo_trainer.py, cpo/cpo_trainer.py) concatenates chosen and rejected the same way.
  ``reward``: ``DataCollatorForPreference`` of trl/trainer/reward_trainer.py puts ``chosen_ids + rejected_ids`` in one
  batch of 2 x micro_batch rows. ``kto``: unpaired, one row per example, plus a *KL batch* of as many rows with the
  completions cycled (``DataCollatorForUnpairedPreference``; all loss types but ``apo_zero_unpaired``).
* **Order of a DPO step** (``DPOTrainer._compute_loss``): the policy's forward with gradients, its per-token log-probs
  (``selective_log_softmax``), *then* the reference forward under ``torch.no_grad()`` with gradient checkpointing
  switched off (``disable_gradient_checkpointing``), while every activation the policy saved is alive; the reference's
  logits stay alive (``ref_outputs`` is a local) until ``_compute_loss`` returns, after the metrics: the entropy over
  the vocabulary (``entropy_from_logits`` of ``shift_logits.detach()``, whose ``reshape(-1, V)`` of the shifted, non-
  contiguous view copies it) and the mean logits of the completions. KTO (``KTOTrainer._compute_loss``) runs the
  policy's KL forward under no_grad first, then the policy, then the reference's KL forward and its main forward, and
  its metrics copy the logits once more by ``index_select`` (chosen and rejected rows).
* **Log-probs.** ``selective_log_softmax`` (trl/trainer/utils.py) on bf16/fp16 logits runs ``log_softmax`` row by row
  and gathers the labels: autograd saves each row's log-softmax (one V-wide tensor in the logits' dtype); on fp32 logits
  it gathers and takes ``logsumexp`` per row, which saves the logits themselves. The logits are the LM head's output
  in the training dtype (no fp32 upcast: the loss is TRL's, not transformers' ``ForCausalLMLoss``). ORPO and CPO add
  ``nn.CrossEntropyLoss`` over the chosen half (``cross_entropy_loss``: a ``.contiguous()`` copy of the shifted chosen
  logits, then a log-softmax autograd keeps). The V-wide tensors alive per logit are in :data:`LOGPROB_TENSORS`.
* **Reference model.** ``DPOTrainer.__init__``/``KTOTrainer.__init__``: with no ``ref_model``, a PEFT policy is its own
  reference with the adapters disabled (``use_adapter(model, None)`` -> ``model.disable_adapter()``): no second copy;
  ``precompute_ref_log_probs=True`` keeps none either; otherwise a copy is loaded with the policy's
  ``model_init_kwargs`` (``create_model_from_path``: same dtype and quantisation) and prepared for evaluation: under
  DeepSpeed by ``prepare_deepspeed`` (trl/models/utils.py: ZeRO-3 shards it, other stages become stage 0, a whole copy
  on every GPU, cast to the config's bf16/fp16 by DeepSpeed's engine), under FSDP by ``prepare_fsdp`` (sharded like the
  policy), else ``accelerator.prepare_model(..., evaluation_mode=True)`` (on each GPU as loaded). No gradients and no
  optimizer states are ever made for it.
* **Precomputed reference** (``_precompute_ref_logps``): before training, one pass of the reference (or of the
  untrained policy) over the training set at ``precompute_ref_batch_size`` (default the training micro-batch), cached
  by the dataset's fingerprint: once per run, not per epoch.
* **Reward model** (``RewardTrainer``): ``AutoModelForSequenceClassification`` with ``num_labels=1``; transformers'
  ``GenericForSequenceClassification`` replaces the LM head by ``score = nn.Linear(hidden, 1, bias=False)`` applied to
  every position, then picks the last non-pad token: no vocabulary logits at all.

Each memory part is a :class:`~tuneplan.core.terms.Term` in bytes with its quantities; its formula template is
``FORMULAS[key]``.
"""

from __future__ import annotations

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.scenario import TrainingSetup
from tuneplan.core.terms import FORMULAS, N_, NOTES, Note, Quantity, Term

__all__ = [
    "LOGPROB_PASSES",
    "LOGPROB_TENSORS",
    "PAIR_WORKLOADS",
    "REFERENCE_LOGPROB_PASSES",
    "TRL",
    "head_outputs",
    "head_params",
    "loss_bytes_per_logit",
    "logit_positions",
    "nograd_passes",
    "plan_notes",
    "parameter_count",
    "policy_rows",
    "reference_kind",
    "reference_layer_bytes_per_token",
    "reference_weights_term",
    "rows_per_example",
]

#: The TRL source every behaviour here is read from.
TRL = "huggingface/trl@f2cd57710ae345ea6428ae95363267fcf38a3dc8"

#: Workloads whose every example is two rows, chosen and rejected, in one forward.
PAIR_WORKLOADS = frozenset({"dpo", "orpo", "reward"})

#: V-wide tensors (``rows x positions x vocabulary`` in the logits' dtype) the policy's loss side holds, per logit:
#: ``(held while the reference runs its layers, at the forward's peak, at the loss's backward)``, by workload and by
#: ``selective_log_softmax``'s path (``log_softmax`` for bf16/fp16 logits, ``logsumexp`` for fp32). Read from the code:
#:
#: * ``dpo``, log_softmax: held = the logits (``outputs``) + the log-softmax autograd saves = 2; peak = + the entropy
#:   metric's copy (``flat_logits = logits.reshape(-1, V)`` of the non-contiguous shifted view) = 3; backward: each row's
#:   log-softmax gradient is buffered until ``UnbindBackward`` stacks them (1 + 1), the saved rows being freed as their
#:   nodes run; the stacked gradient then meets ``SliceBackward``'s new full-size gradient (1 + 1): 2.
#: * ``kto``: as ``dpo``; its peak copy is the metrics' ``index_select`` of the chosen and the rejected rows (together
#:   all rows, 1; the entropy copy is freed before). Leaving out ``chosen_logits[chosen_mask.bool()]``, a further copy of
#:   the desirable rows' completion positions (at most 1 more), which the plan's numbers cannot size.
#: * ``orpo``: held = peak = the logits + the chosen half's log-softmax of ``nn.CrossEntropyLoss`` (0.5) + every row's
#:   saved log-softmax (1) = 2.5 (the chosen half's ``.contiguous()`` copy, 0.5, is freed when ``cross_entropy_loss``
#:   returns, before the rows' log-softmax); backward: the rows' path of ``dpo`` (2) with the chosen log-softmax
#:   still saved (0.5) = 2.5.
#: * logsumexp path (fp32 logits): no log-softmax is saved but ``logsumexp`` keeps the logits until the last row's
#:   backward: held 1, peak 2 (the metrics' copy); backward: the saved logits, the buffered row gradients and their
#:   stack, 3 (``GatherBackward``'s full-size zeros replace the row gradients). ORPO: + 0.5 for the chosen half's saved
#:   log-softmax (peak: + its 0.5 contiguous copy).
#: * ``reward``: no vocabulary logits (the value head's scores, one per position, are the ``value_head`` term).
LOGPROB_TENSORS: dict[tuple[str, str], tuple[float, float, float]] = {
    ("dpo", "log_softmax"): (2.0, 3.0, 2.0),
    ("kto", "log_softmax"): (2.0, 3.0, 2.0),
    ("orpo", "log_softmax"): (2.5, 2.5, 2.5),
    ("dpo", "logsumexp"): (1.0, 2.0, 3.0),
    ("kto", "logsumexp"): (1.0, 2.0, 3.0),
    ("orpo", "logsumexp"): (1.5, 2.0, 3.5),
    # grpo: GRPOTrainer._get_per_token_logps_and_entropies keeps the completion positions' logits (logits_to_keep),
    # divides them by the temperature in place, saves each row's log-softmax, and computes the entropy of a
    # reshape copy of the non-contiguous slice (entropy_from_logits): dpo's counts, over completion positions only
    ("grpo", "log_softmax"): (2.0, 3.0, 2.0),
    ("grpo", "logsumexp"): (1.0, 2.0, 3.0),
}

#: Passes over a V-wide tensor (one read or one write of every element, in the logits' dtype) the policy's loss-side
#: kernels make per logit, counted kernel by kernel (the logits GEMM itself is in the matmul term):
#:
#: * ``dpo``: forward ``log_softmax`` (read, write: 2); the entropy metric: the reshape copy (2), ``log_softmax`` (2),
#:   ``exp`` (2), the product (3), the sum (1); ``argmax`` over the chosen half (0.5): 12.5. Backward: the gathered
#:   gradient's zero fill (1), ``log_softmax`` backward (read grad and result, write: 3), the stack of the rows (2),
#:   ``SliceBackward``'s zero fill and copy (3): 9. 21.5 in all.
#: * ``kto``: the forward of ``dpo`` without ``argmax`` (12) + the ``index_select`` copies (2) = 14, backward 9: 23.
#: * ``orpo``: forward: the chosen half's contiguous copy (1), its log-softmax (1), the rows' log-softmax (2), the mean
#:   logits of chosen and rejected (1): 5; backward: the NLL's zero fill (0.5) and log-softmax backward (1.5), its two
#:   slice backwards (1.5 and 2), the rows' 9, adding the two gradients of the logits (3): 17.5. 22.5 in all.
#: * ``reward``: none. Each entry is ``(forward, backward)``. (Supervised fine-tuning is ``core/steptime.py``'s cross-entropy, 36 B per logit eager.)
#: * ``grpo``: forward: the in-place division by the temperature (2), ``log_softmax`` (2), the entropy's reshape copy
#:   (2) and ``entropy_from_logits``' log-softmax (2), ``exp`` (2) and product-sum (3): 13; backward: dpo's 9 and the
#:   division's (2): 11. Over the completion positions only (``logits_to_keep``).
LOGPROB_PASSES: dict[str, tuple[float, float]] = {"dpo": (12.5, 9.0), "kto": (14.0, 9.0), "orpo": (5.0, 17.5),
                                                   "reward": (0.0, 0.0), "grpo": (13.0, 11.0)}
#: A reference (or KL) forward's log-probs: one ``log_softmax`` over its logits (read, write) per logit.
REFERENCE_LOGPROB_PASSES = 2.0

FORMULAS.update({
    "reference_weights": N_("{params} parameters × {bytes_per_param} B ÷ {shards} GPUs: a frozen copy of the model "
                            "for the reference forward, with no gradients or optimizer states"),
    "reference_activations": N_("{tokens} tokens × {bytes_per_token} B of one layer's forward under no_grad "
                                "(residual, norm output, three MLP intermediates) + {other_bytes} B (dequantised "
                                "matrix, gathered layers)"),
    "reference_logits": N_("{tokens} tokens × {vocab} logits × {elem_bytes} B: the reference forward's logits, "
                           "alive until the loss returns"),
    "policy_logps": N_("{tokens} tokens × {vocab} logits × {tensors} tensors × {elem_bytes} B ({detail}): the "
                       "logits, the log-softmax saved for backward and the metrics' copies"),
    "head_cast": N_("{vocab} × {hidden} × 2 B: the bf16 autocast copy of the fp32 LM head, saved until its backward"),
    "value_head": N_("{tokens} tokens × 1 score × {elem_bytes} B: the value head's output (its gradient in the "
                     "backward) instead of vocabulary logits"),
    "reference": N_("per micro-batch: {passes} forward passes without gradients over {tokens} tokens (the reference "
                    "model; KTO's KL batch; GRPO's old log-probs): {gemm_seconds} s of GEMMs, {attention_seconds} s of attention, "
                    "{other_seconds} s of other kernels ({bytes} B); × {micro_batches} micro-batches per step"),
})

NOTES.update({
    "workload.copy_with_adapters": N_("a reference copy next to a LoRA/QLoRA policy: TRL's DPOTrainer and KTOTrainer "
                                      "use the policy with its adapters disabled as the reference and load no copy "
                                      "unless you pass ref_model; the copy is counted as planned"),
    "workload.shared_full": N_("full fine-tuning has no frozen base to share: TRL loads a frozen copy of the model as "
                               "the reference, which is what is counted"),
    "workload.precomputed_pass": N_("reference log-probs precomputed (precompute_ref_log_probs): TRL runs the "
                                    "reference over the training set once before training ({hours:.2f} h, in the "
                                    "plan's time) and holds no reference model during it"),
    "workload.precompute_fused": N_("TRL's Liger (fused) DPO and KTO losses refuse precomputed reference log-probs "
                                    "(the trainer raises ValueError): choose one of the two"),
    "workload.kto_micro_batch": N_("KTO's KL term needs two or more examples per micro-batch: TRL's KTOTrainer "
                                   "refuses per_device_train_batch_size 1"),
    "workload.reference_ignored": N_("{workload} uses no reference model: the reference setting ({reference}) is "
                                     "ignored"),
    "workload.reward_fused": N_("a reward model has no vocabulary logits: fused cross-entropy changes nothing"),
    "workload.zero_stage0_copy": N_("under ZeRO-{stage} TRL prepares the reference copy with ZeRO disabled (stage 0): "
                                    "every GPU holds all of it"),
    "workload.packed_unavailable": N_("TRL's {trainer} pads every batch to its longest row (padding_free is disabled "
                                      "in DPOTrainer; the others have no packing): a packed plan is estimated as "
                                      "planned, but TRL will run it padded"),
    "workload.padding_free_unavailable": N_("TRL's {trainer} pads every batch to its longest row (padding_free is "
                                            "disabled in DPOTrainer; the others have no padding-free path): the plan "
                                            "is estimated with rows of the sequence length, as TRL runs them"),
})


def rows_per_example(t: TrainingSetup) -> int:
    """Rows the policy computes per example: 2 for pair workloads (chosen and rejected), ``num_generations`` for GRPO
    (an example is a prompt; each gets that many completions), else 1."""
    if t.workload == "grpo":
        return t.num_generations
    return 2 if t.workload in PAIR_WORKLOADS else 1


def policy_rows(t: TrainingSetup) -> int:
    """Rows of one micro-batch's forward with gradients: ``micro_batch x`` :func:`rows_per_example`; for GRPO
    ``micro_batch`` itself (``per_device_train_batch_size`` counts completions, ``trl@f2cd577`` GRPOConfig)."""
    if t.workload == "grpo":
        return t.micro_batch
    return t.micro_batch * rows_per_example(t)


def logit_positions(t: TrainingSetup) -> int:
    """Positions of a row whose vocabulary logits the loss computes: the completion for GRPO
    (``logits_to_keep = completion_ids.size(1)`` in ``GRPOTrainer._compute_loss``), else every position."""
    return min(t.completion_tokens, t.seq_len) if t.workload == "grpo" else t.seq_len


def reference_kind(t: TrainingSetup) -> str:
    """The reference in effect: ``none`` (``sft``, ``orpo``, ``reward``), ``shared`` (the LoRA/QLoRA policy with its
    adapters disabled), ``copy`` (a frozen copy in memory) or ``precomputed``. ``None`` (TRL's choice) and ``shared``
    under full fine-tuning, which has no frozen base to share, are a copy."""
    if t.workload == "grpo":
        # GRPOTrainer.__init__: a reference only when beta != 0; a PEFT policy is its own (adapters disabled)
        return "none" if t.kl_beta == 0 else ("shared" if t.method != "full" else "copy")
    if t.workload not in {"dpo", "kto"}:
        return "none"
    kind = t.reference_model
    if kind is None or (kind == "shared" and t.method == "full"):
        return "shared" if t.method != "full" else "copy"
    return kind


def nograd_passes(t: TrainingSetup) -> tuple[int, int]:
    """Forward passes without gradients per micro-batch, over the policy's rows: ``(reference, policy)``.

    ``dpo``: one reference forward unless precomputed. ``kto``: the reference's main and KL forwards unless precomputed,
    and always the policy's KL forward (``KTOTrainer._compute_kl_logps`` runs before the policy's forward, precomputed
    or not). A reference ``shared`` with the policy runs the policy's base weights with the adapters off."""
    ref = reference_kind(t)
    if t.workload == "dpo":
        return (0 if ref == "precomputed" else 1), 0
    if t.workload == "kto":
        return (0 if ref == "precomputed" else 2), 1
    if t.workload == "grpo":
        # _generate_and_score_completions: the reference's log-probs when beta != 0; the policy's old log-probs when
        # a vLLM engine sampled (vllm_importance_sampling_correction, default True), over the same rows
        return (0 if ref == "none" else 1), (1 if t.generation_engine != "transformers" else 0)
    return 0, 0


def head_outputs(arch: ModelArchitecture, t: TrainingSetup) -> int:
    """Outputs of the model's head per position: the vocabulary, or 1 for a reward model's value head."""
    return 1 if t.workload == "reward" else arch.vocab_size


def head_params(arch: ModelArchitecture, t: TrainingSetup) -> int:
    """Parameters of the model's head: the LM head's (0 when tied to the embedding), or ``hidden x 1`` for a reward
    model (``score = nn.Linear(hidden, 1, bias=False)``, transformers ``GenericForSequenceClassification``)."""
    return arch.hidden_size if t.workload == "reward" else arch.lm_head_params()


def parameter_count(arch: ModelArchitecture, t: TrainingSetup) -> int:
    """Parameters of the model trained: the architecture's, with a reward model's value head for its LM head."""
    return arch.parameter_count() - arch.lm_head_params() + head_params(arch, t)


def loss_bytes_per_logit(t: TrainingSetup, elem: float, fused: bool, forward_only: bool = False) -> float:
    """Bytes the policy's loss-side kernels move per logit: :data:`LOGPROB_PASSES` x ``elem`` (the logits' dtype),
    forward and backward (or the forward's alone). With fused/chunked kernels (TRL's Liger losses, a fused stack) only
    the chunked pass is left, as for SFT (8 B per logit, 4 B of it in the forward)."""
    if t.workload == "reward":
        return 0.0
    if fused:
        return 4.0 if forward_only else 8.0
    forward, backward = LOGPROB_PASSES[t.workload]
    return (forward if forward_only else forward + backward) * elem


def logprob_tensors(t: TrainingSetup, elem: int) -> tuple[float, float, float]:
    """:data:`LOGPROB_TENSORS` of ``t`` (``elem`` = bytes per logit: 4 takes the logsumexp path)."""
    return LOGPROB_TENSORS[(t.workload, "logsumexp" if elem == 4 else "log_softmax")]


def reference_weights_term(params: float, bytes_per_param: float, shards: int) -> Term:
    """A frozen reference copy's bytes on one GPU: ``params x bytes_per_param / shards``."""
    return Term(key="reference_weights", value=params * bytes_per_param / shards, unit="B", parts=(
        Quantity(key="params", value=params, unit="count"),
        Quantity(key="bytes_per_param", value=bytes_per_param, unit="B",
                 source=f"{TRL} trl/trainer/dpo_trainer.py DPOTrainer.__init__ (create_model_from_path with the "
                        "policy's model_init_kwargs); trl/models/utils.py prepare_deepspeed"),
        Quantity(key="shards", value=shards, unit="count",
                 source="ZeRO-3 and FSDP shard the reference (prepare_deepspeed, prepare_fsdp); other stages hold it whole"),
    ), source=f"{TRL} DPOTrainer.__init__, KTOTrainer.__init__")


def reference_layer_bytes_per_token(arch: ModelArchitecture, act: int, resid: int) -> float:
    """Bytes per token one decoder layer of the reference forward holds under ``torch.no_grad()`` at its largest
    moment, the MLP's product: the residual (``resid x h``) and the post-attention norm's output (``act x h``) as locals
    of ``LlamaDecoderLayer.forward``, and, of ``down_proj(act_fn(gate_proj(x)) * up_proj(x))`` evaluated left to right,
    ``act_fn(gate)``, ``up`` and their product (3 x intermediate; 2 for a plain MLP), ``gate`` freed once ``act_fn``
    returns: nothing is saved without gradients. Mixture-of-experts layers take their routed and shared widths."""
    inter = (arch.moe_intermediate_size * arch.experts_per_token + arch.shared_expert_intermediate_size
             if arch.is_moe else arch.intermediate_size)
    return float(resid * arch.hidden_size + act * arch.hidden_size + (3 if arch.mlp == "gated" else 2) * act * inter)


#: The TRL trainer of each workload, for the notes.
TRAINERS = {"dpo": "DPOTrainer", "orpo": "ORPOTrainer", "kto": "KTOTrainer", "reward": "RewardTrainer",
            "grpo": "GRPOTrainer"}


def causal_lm(t: TrainingSetup) -> bool:
    """Whether the plan trains the plain causal-LM loss of HF ``Trainer``: supervised fine-tuning (``sft``) and
    continued pretraining (``pt``: LLaMA-Factory's pt stage, ms-swift ``swift pt``, TRL's ``SFTTrainer`` on plain
    text), the same step on rows of the same shape; only their data and defaults differ. Every other workload is a
    TRL trainer of its own (:data:`TRAINERS`)."""
    return t.workload in {"sft", "pt"}


def plan_notes(t: TrainingSetup, precompute_seconds: float = 0.0) -> list[Note]:
    """The coded notes of a workload plan (``NOTES["workload.*"]``): combinations TRL does not run as planned, and what
    a precomputed reference costs (``precompute_seconds``: the ``reference_logps`` phase). Empty for SFT."""
    notes: list[Note] = []
    if causal_lm(t):
        return notes
    kind = reference_kind(t)
    if t.workload == "grpo":
        return notes + _grpo_notes(t)
    if t.workload not in {"dpo", "kto"} and t.reference_model is not None:
        # DPOTrainer/KTOTrainer are the ones with a ref_model; ORPO, CPO, SimPO and the reward trainer take none
        notes.append(Note(code="workload.reference_ignored", params={"workload": t.workload,
                                                                     "reference": t.reference_model}))
    if t.reference_model == "copy" and t.method != "full" and t.workload in {"dpo", "kto"}:
        # DPOTrainer.__init__: ``if is_peft_model(self.model) or args.precompute_ref_log_probs: self.ref_model = None``
        notes.append(Note(code="workload.copy_with_adapters"))
    if t.reference_model == "shared" and t.method == "full" and t.workload in {"dpo", "kto"}:
        notes.append(Note(code="workload.shared_full"))
    if kind == "precomputed":
        notes.append(Note(code="workload.precomputed_pass", params={"hours": round(precompute_seconds / 3600, 2)}))
        if t.fused_cross_entropy:
            # DPOTrainer.__init__ / KTOTrainer.__init__: "Liger ... does not support precomputing reference log probs"
            notes.append(Note(code="workload.precompute_fused"))
    if t.workload == "kto" and t.micro_batch < 2:
        # KTOTrainer.__init__: ``if self.calculate_KL and args.per_device_train_batch_size <= 1: raise ValueError``
        notes.append(Note(code="workload.kto_micro_batch"))
    if t.workload == "reward" and t.fused_cross_entropy:
        notes.append(Note(code="workload.reward_fused"))
    if kind == "copy" and t.num_gpus > 1 and t.sharding in {"zero1", "zero2"}:
        # trl/models/utils.py prepare_deepspeed: ``if stage != 3: config_kwargs["zero_optimization"]["stage"] = 0``
        notes.append(Note(code="workload.zero_stage0_copy", params={"stage": int(t.sharding[-1])}))
    if t.sequence_mode in {"packed", "padding-free"}:
        # DPOTrainer.__init__ turns padding_free off ("temporarily unavailable after a refactor"); the collators of the
        # other trainers pad every batch to its longest row (trl.trainer.utils.pad)
        code = "workload.padding_free_unavailable" if t.sequence_mode == "padding-free" else "workload.packed_unavailable"
        notes.append(Note(code=code, params={"trainer": TRAINERS[t.workload]}))
    return notes


def _grpo_notes(t: TrainingSetup) -> list[Note]:
    """GRPO's notes: TRL's divisibility rule, the server's extra GPUs, the KL reference, padding, a reference setting
    it ignores (``core/generation.py`` NOTES)."""
    notes: list[Note] = []
    total = t.num_gpus * t.micro_batch * t.grad_accumulation
    if total % t.num_generations:
        # GRPOConfig.__post_init__: generation_batch_size must be divisible by num_generations
        notes.append(Note(code="generation.divisible", params={"total": total, "g": t.num_generations}))
    if t.generation_engine == "vllm-server":
        notes.append(Note(code="generation.server_gpus", params={"n": t.vllm_server_gpus, "trainers": t.num_gpus}))
    if t.kl_beta > 0:
        notes.append(Note(code="generation.kl_reference", params={"beta": t.kl_beta}))
    if t.reference_model is not None:
        notes.append(Note(code="workload.reference_ignored", params={"workload": t.workload,
                                                                     "reference": t.reference_model}))
    if t.sequence_mode != "fixed":
        # GRPOTrainer pads the prompts left to the longest and the completions to the longest (no packing, no
        # padding-free path at trl@f2cd577): a row is seq_len whatever the plan's mode (core/throughput.py)
        notes.append(Note(code="generation.rows_fixed", params={"mode": t.sequence_mode}))
    return notes
