"""Generation inside an RL step (GRPO, issue #18): the completions TRL's ``GRPOTrainer`` samples before it trains.

Every behaviour is read from TRL at commit ``f2cd57710ae345ea6428ae95363267fcf38a3dc8`` (``trl@f2cd577``, the commit
``core/workload.py`` cites) and vLLM's documented engine arguments:

* **How many.** ``GRPOConfig``: ``num_generations`` completions per prompt (default 8), ``max_completion_length``
  tokens each (default 512), ``generation_batch_size = per_device_train_batch_size x num_processes x
  steps_per_generation`` with ``steps_per_generation = gradient_accumulation_steps``: each optimizer step generates
  the completions it trains on, ``micro_batch x grad_accumulation`` per GPU (``per_device_train_batch_size`` counts
  completions, not prompts).
* **Engines.** ``use_vllm=False`` (the default): ``model.generate`` on the training model, unwrapped and, under
  ZeRO-3/FSDP, gathered whole (``unwrap_model_for_generation``, ``ds3_gather_for_generation=True``), eager PyTorch
  with a KV cache for all the GPU's rows at once. ``vllm_mode="colocate"``: a vLLM engine in every training process
  (``trl/generation/vllm_generation.py``: ``LLM(gpu_memory_utilization=vllm_gpu_memory_utilization`` (0.3),
  ``max_num_seqs = per_device_train_batch_size x tensor_parallel x steps_per_generation``,
  ``max_num_batched_tokens=4096``, ``enable_sleep_mode``)); vLLM reserves that share of the card's *total* memory
  for its weights, activations and KV cache (vLLM ``EngineArgs.gpu_memory_utilization``: "the fraction of GPU
  memory to be used for the model executor") and runs its decode steps as CUDA graphs (``enforce_eager`` left off).
  With sleep mode (level 2) it drops weights and KV cache while the trainer trains and wakes for each generation.
  ``vllm_mode="server"``: ``trl vllm-serve`` on other GPUs; the trainers send prompts and wait.
* **Weight sync.** Before generating with new weights, ``VLLMGeneration.sync_weights`` merges LoRA adapters
  (``merge_adapter``/``unmerge_adapter``), gathers sharded parameters (``summon_full_params`` under FSDP,
  ``GatheredParameters`` under ZeRO-3) and ``load_weights`` copies them into the engine; in server mode they are
  broadcast over NCCL to the server.

What a decode step costs is the roofline of a memory-bound kernel sequence: every step reads the weights the batch
touches and the KV cache of every sequence, and does ``2 x active parameters`` FLOPs per sequence:
``max(bytes / bandwidth, FLOPs / matmul rate)``; eager ``model.generate`` is bounded below by the host's launch
time for the decoder's operators (``core/steptime.py`` ``OP_HOST_S``). The prompt's prefill is compute-bound,
``2 x active parameters x prompt tokens`` per row. Every completion is costed at ``max_completion_length`` (TRL
stops a row at EOS, but the batch runs until its longest row ends).

The functions take rates and sizes as arguments (FLOP/s, B/s, seconds): ``core/steptime.py`` supplies the card's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.scenario import TrainingSetup
from tuneplan.core.terms import FORMULAS, N_, NOTES, Note, Quantity, Term

__all__ = [
    "ENGINE_NAMES",
    "DEFAULT_NEW_TOKENS",
    "DecodeRates",
    "DecodeStep",
    "SERVER_MEMORY_SHARE",
    "VLLM_BATCHED_TOKENS",
    "GenerationCost",
    "expected_experts_touched",
    "generation_cost",
    "generation_notes",
    "decode_step",
    "eval_generation_cost",
    "generation_rows",
    "kv_bytes_per_token",
    "prefill_seconds",
    "vllm_reserved_bytes",
    "weight_bytes_read",
]

#: The TRL source every behaviour here is read from.
TRL = "huggingface/trl@f2cd57710ae345ea6428ae95363267fcf38a3dc8"
#: vLLM's prefill chunk in TRL's colocated engine (``max_num_batched_tokens=4096``): the activation memory vLLM's
#: profiler keeps aside inside its share, one forward over this many tokens.
VLLM_BATCHED_TOKENS = 4096
#: ``trl vllm-serve``'s ``gpu_memory_utilization`` default (``trl/scripts/vllm_serve.py`` ``ScriptArguments``): the
#: share of each server GPU its engine takes.
SERVER_MEMORY_SHARE = 0.9
#: Engines as plan values (``TrainingSetup.generation_engine``) and the names notes use.
ENGINE_NAMES = {"transformers": "transformers generate", "vllm-colocate": "vLLM (colocated)",
                "vllm-server": "vLLM (server)"}

FORMULAS.update({
    "generation": N_("per optimizer step: {rows} completions of {completion} tokens after a {prompt}-token prompt "
                     "({detail}): {decode_steps} decode steps of {step_seconds} s (weights {weight_bytes} B + KV "
                     "cache {kv_bytes} B read per step over {bandwidth} B/s, or {flops} FLOPs at {rate} FLOP/s, or the "
                     "host's launches) in {waves} waves + prefill {prefill_seconds} s + weight sync {sync_seconds} s"),
    "eval_generation_during": N_("per evaluation micro-batch during training: {rows} rows generate {generated} tokens "
                                 "(transformers' default length: the trainer's max_new_tokens does not reach these) "
                                 "after a {prompt}-token prompt: {generated} decode steps of {step_seconds} s (weights "
                                 "{weight_bytes} B + KV cache {kv_bytes} B read per step over {bandwidth} B/s, or the "
                                 "host's launches; + {gather_seconds} s gathering sharded weights) + prefill "
                                 "{prefill_seconds} s"),
    "eval_generation": N_("per micro-batch of the final evaluation: {rows} rows generate {generated} tokens after "
                          "a {prompt}-token prompt: {generated} decode steps of {step_seconds} s (weights {weight_bytes} B + KV cache "
                          "{kv_bytes} B read per step over {bandwidth} B/s, or the host's launches; + {gather_seconds} s "
                          "gathering sharded weights) + prefill {prefill_seconds} s"),
    "vllm_share": N_("{share} × {capacity} B: the colocated vLLM engine's share of the card (its weights "
                     "{weight_bytes} B, the KV cache and CUDA graphs inside it)"),
    "generation_cache": N_("{rows} rows × {tokens} tokens × {kv_per_token} B: the KV cache of model.generate, next to "
                           "the weights and optimizer states (+ {gathered} B of weights gathered whole for it)"),
})

NOTES.update({
    "generation.vllm_no_kv": N_("the colocated vLLM engine's share ({share:.0%} of the card, {share_gib:.1f} GiB) does "
                                "not hold the model's weights ({weights_gib:.1f} GiB) and a prefill chunk: vLLM refuses "
                                "to start (no memory for KV-cache blocks); raise vllm_gpu_memory_utilization"),
    "generation.server_no_room": N_("a vLLM server GPU ({share_gib:.1f} GiB at trl vllm-serve's "
                                    "gpu_memory_utilization 0.9) does not hold the model's weights "
                                    "({weights_gib:.1f} GiB) and a prefill chunk: the server needs a larger card or "
                                    "tensor parallelism"),
    "generation.vllm_waves": N_("the colocated vLLM engine's KV cache holds {fits} of the {rows} completions at "
                                "full length: it runs them in {waves} waves"),
    "generation.divisible": N_("GRPO needs the completions of a step (GPUs × micro-batch × accumulation = {total}) to "
                               "be a multiple of num_generations ({g}): TRL refuses this plan"),
    "generation.server_gpus": N_("vLLM server mode: generation runs on {n} more GPU(s) beside the {trainers} training "
                                 "GPU(s); they are billed with them"),
    "generation.rows_fixed": N_("GRPO rows are a prompt and its completion at full length, padded as TRL's "
                                "GRPOTrainer pads them (it neither packs nor trims rows): the {mode} sequence mode is "
                                "estimated as fixed rows of the sequence length, num_generations per prompt"),
    "generation.kl_reference": N_("KL coefficient {beta}: TRL loads a reference model (the policy with its adapters "
                                  "disabled under LoRA/QLoRA, a frozen copy otherwise) and runs it over every batch"),
})


def generation_rows(t: TrainingSetup) -> int:
    """Completions one GPU generates per optimizer step: ``micro_batch x grad_accumulation`` (``trl@f2cd577``
    ``GRPOConfig.__post_init__``: ``generation_batch_size = per_device_train_batch_size x num_processes x
    steps_per_generation``, ``steps_per_generation = gradient_accumulation_steps``)."""
    return t.micro_batch * t.grad_accumulation


def kv_bytes_per_token(arch: ModelArchitecture, elem: float = 2.0) -> float:
    """KV-cache bytes per token: ``2 (K and V) x attention layers x kv_dim x elem`` (bf16: 2 B), in B."""
    return 2.0 * arch.num_attention_layers * arch.kv_dim * elem


def vllm_reserved_bytes(capacity_bytes: float, share: float) -> float:
    """What a vLLM engine takes of the card: ``gpu_memory_utilization x total memory`` (B)."""
    return share * capacity_bytes


def expected_experts_touched(experts: int, per_token: int, rows: int) -> float:
    """Expected distinct experts a decode step of ``rows`` tokens routes to, out of ``experts`` with ``per_token``
    each, for uniform routing: ``E x (1 - (1 - k/E)^rows)``."""
    if experts <= 0:
        return 0.0
    return experts * (1.0 - (1.0 - min(per_token, experts) / experts) ** max(rows, 0))


def weight_bytes_read(arch: ModelArchitecture, rows: int, layer_elem: float = 2.0) -> float:
    """Weight bytes one decode step over ``rows`` sequences reads: every dense weight, and of each MoE layer's
    experts the share :func:`expected_experts_touched` touches (B). The decoder layers' linear weights take
    ``layer_elem`` bytes each (2 in bf16; NF4 ~0.5 for a QLoRA base, which TRL hands vLLM as
    ``quantization="bitsandbytes"``), the rest 2. Embedding lookups read one row each (left out)."""
    layers = float(arch.layer_linear_params())
    other = float(arch.parameter_count() - arch.embedding_params()) - layers
    experts = 0.0
    if arch.is_moe:
        for n, mods in arch.linear_modules():
            experts += n * sum(m.params for m in mods if m.kind == "mlp" and m.count > 1)
        touched = expected_experts_touched(arch.num_experts, arch.experts_per_token, rows) / arch.num_experts
        layers -= experts * (1.0 - touched)
    return layers * layer_elem + other * 2.0


@dataclass(frozen=True)
class DecodeStep:
    """One decode step over a batch of sequences: its wall time (s) and what it reads and computes.

    Attributes:
        seconds: ``max((weight_bytes + kv_bytes) / bandwidth, flops / rate, host_step_seconds)``, s.
        weight_bytes: weight bytes the step reads (:func:`weight_bytes_read`), B.
        kv_bytes: KV-cache bytes it reads, ``batch x context x`` :func:`kv_bytes_per_token`, B.
        flops: ``2 x active parameters x batch`` + attention's ``4 x batch x context x q_dim x attention layers``.
    """

    seconds: float
    weight_bytes: float
    kv_bytes: float
    flops: float


def decode_step(arch: ModelArchitecture, batch: int, context: float, *, rate: float, bandwidth: float,
                layer_weight_bytes: float = 2.0, host_step_seconds: float = 0.0) -> DecodeStep:
    """One decode step of ``batch`` sequences at a mean ``context`` (tokens already in the cache): the roofline of a
    memory-bound kernel sequence (module docstring), bounded below by ``host_step_seconds`` (eager
    ``model.generate``: the host's launches; 0 for CUDA graphs).

    A 4-bit base (QLoRA's NF4, handed to vLLM as bitsandbytes, or generate on the training model) is read through
    bitsandbytes' ``matmul_4bit``: one token at a time its ``gemv_4bit`` kernel reads the packed weights; for more
    rows ``MatMul4Bit`` dequantises each matrix to bf16 first (read NF4, write 2 B) and the GEMM reads the copy
    (2 B), as the training step's dequantisation term charges it (``core/steptime.py``).

    Args:
        rate: sustained matmul rate, FLOP/s. bandwidth: achieved memory bandwidth, B/s.
        layer_weight_bytes: bytes per decoder-layer linear weight as stored (2 in bf16).
    """
    read_elem = layer_weight_bytes if layer_weight_bytes >= 2.0 or batch <= 1 else layer_weight_bytes + 4.0
    weights = weight_bytes_read(arch, batch, read_elem)
    kv = batch * context * kv_bytes_per_token(arch)
    active = float(arch.active_parameter_count() - arch.embedding_params())
    flops = 2.0 * active * batch + 4.0 * batch * context * arch.q_dim * arch.num_attention_layers
    seconds = max((weights + kv) / bandwidth, flops / rate, host_step_seconds)
    return DecodeStep(seconds=seconds, weight_bytes=weights, kv_bytes=kv, flops=flops)


def prefill_seconds(arch: ModelArchitecture, rows: int, prompt: float, rate: float) -> float:
    """Seconds to prefill ``rows`` prompts of ``prompt`` tokens, compute-bound: ``rows x prompt x (2 x active
    parameters + 2 x prompt x q_dim x attention layers) / rate`` (causal attention's score and value products over
    half the keys on average, 4 x ... / 2)."""
    active = float(arch.active_parameter_count() - arch.embedding_params())
    return rows * prompt * (2.0 * active + 2.0 * prompt * arch.q_dim * arch.num_attention_layers) / rate


@dataclass(frozen=True)
class GenerationCost:
    """The generation phase of one GRPO optimizer step on one training GPU.

    Attributes:
        seconds: wall time of the phase (decode + prefill + weight sync), s.
        term: the same as a time :class:`~tuneplan.core.terms.Term` (key ``generation``) with its quantities.
        waves: how many rounds the engine's KV cache needs for the rows (1 when all fit).
        kv_fits: rows whose full-length KV cache fits at once (vLLM colocated), else ``rows``.
        engine_starts: False when a colocated vLLM share cannot hold the weights and one prefill chunk.
    """

    seconds: float
    term: Term
    waves: int
    kv_fits: int
    engine_starts: bool


def generation_cost(arch: ModelArchitecture, t: TrainingSetup, *, rate: float, bandwidth: float,
                    host_step_seconds: float, capacity_bytes: float, link_bandwidth: float,
                    activation_bytes_per_token: float, layer_weight_bytes: float = 2.0) -> GenerationCost:
    """Seconds of one optimizer step's generation on one training GPU (module docstring).

    Args:
        rate: the card's sustained matmul rate, FLOP/s.
        bandwidth: its achieved memory bandwidth, B/s.
        host_step_seconds: host launch time of one eager decode step (``transformers`` engine), s.
        capacity_bytes: the card's memory, B (for the vLLM share).
        link_bandwidth: the collective link, B/s (sharded weights gathered for the sync; server mode's broadcast).
        activation_bytes_per_token: bytes per token of one forward's activations (vLLM's profiled prefill chunk).
        layer_weight_bytes: bytes per decoder-layer linear weight (2 in bf16; NF4's for QLoRA).

    Raises:
        ValueError: when ``t`` is not a GRPO plan.
    """
    if t.workload != "grpo":
        raise ValueError("generation_cost is for GRPO plans")
    completion = t.completion_tokens
    prompt = max(t.seq_len - completion, 1)
    engine = t.generation_engine
    # a vLLM server generates every trainer's rows; over several GPUs as data-parallel engines
    # (``trl vllm-serve --data_parallel_size``), each takes an equal share of them
    rows = generation_rows(t) * t.num_gpus if engine == "vllm-server" else generation_rows(t)
    if engine == "vllm-server":
        rows = math.ceil(rows / t.vllm_server_gpus)
    kv_tok = kv_bytes_per_token(arch)
    layers = float(arch.layer_linear_params())
    weights_all = layers * layer_weight_bytes + (float(arch.parameter_count()) - layers) * 2.0
    waves, fits, starts = 1, rows, True
    if engine in {"vllm-colocate", "vllm-server"}:
        # a server GPU (the training GPUs' kind, one engine each) takes trl vllm-serve's default share
        share = vllm_reserved_bytes(capacity_bytes, t.vllm_memory_share if engine == "vllm-colocate"
                                    else SERVER_MEMORY_SHARE)
        kv_room = share - weights_all - activation_bytes_per_token * VLLM_BATCHED_TOKENS
        if kv_room <= 0:
            starts, fits, waves = False, 0, 1
        else:
            fits = max(1, min(rows, int(kv_room // (kv_tok * (prompt + completion)))))
            waves = math.ceil(rows / fits)
    batch = min(rows, fits) if starts else rows
    one = decode_step(arch, batch, prompt + completion / 2.0, rate=rate, bandwidth=bandwidth,
                      layer_weight_bytes=layer_weight_bytes,
                      host_step_seconds=host_step_seconds if engine == "transformers" else 0.0)
    step, weights_step, kv_step, flops_step = one.seconds, one.weight_bytes, one.kv_bytes, one.flops
    decode = completion * step * waves
    prefill = prefill_seconds(arch, rows, prompt, rate)
    sync = 0.0
    if engine != "transformers":
        shards = t.num_gpus if t.sharding in {"zero3", "fsdp"} and t.num_gpus > 1 else 1
        gather = weights_all * (shards - 1) / shards / link_bandwidth if shards > 1 else 0.0
        merge = 0.0
        if t.method != "full":  # merge_adapter and unmerge_adapter: the adapted weights read and written twice
            merge = 4.0 * float(arch.layer_linear_params()) * 2.0 / bandwidth
        copy = 2.0 * weights_all / bandwidth if engine == "vllm-colocate" else weights_all / link_bandwidth
        sync = gather + merge + copy
    seconds = decode + prefill + sync
    term = Term(key="generation", value=seconds, parts=(
        Quantity(key="rows", value=rows, unit="count", source=f"{TRL} GRPOConfig generation_batch_size"),
        Quantity(key="completion", value=completion, unit="tokens", source="GRPOConfig max_completion_length"),
        Quantity(key="prompt", value=prompt, unit="tokens"),
        Quantity(key="decode_steps", value=completion * waves, unit="count"),
        Quantity(key="step_seconds", value=step, unit="s"),
        Quantity(key="weight_bytes", value=weights_step, unit="B"),
        Quantity(key="kv_bytes", value=kv_step, unit="B"),
        Quantity(key="bandwidth", value=bandwidth, unit="B/s"),
        Quantity(key="flops", value=flops_step, unit="FLOP"),
        Quantity(key="rate", value=rate, unit="FLOP/s"),
        Quantity(key="waves", value=waves, unit="count"),
        Quantity(key="prefill_seconds", value=prefill, unit="s"),
        Quantity(key="sync_seconds", value=sync, unit="s"),
        Quantity(key="engine_weight_bytes", value=weights_all, unit="B",
                 source="every weight the engine loads (all experts of an MoE model)"),
    ), detail=engine, source=f"{TRL} trl/trainer/grpo_trainer.py, trl/generation/vllm_generation.py; decode as "
                             "a memory-bound roofline")
    return GenerationCost(seconds=seconds, term=term, waves=waves, kv_fits=fits, engine_starts=starts)


#: New tokens ``generate`` adds when neither ``max_new_tokens`` nor ``max_length`` is set: transformers'
#: ``GenerationConfig.max_length`` default, 20, which ``_prepare_generated_length`` adds to the prompt's length
#: when it was left at that default. It is what an evaluation *during* training generates under HF
#: ``Seq2SeqTrainer``: its ``evaluate()`` replaces the trainer's generation arguments with the ones it is called
#: with (none from ``Trainer._evaluate``) and ``generation_max_length`` (transformers ``trainer_seq2seq.py``), so
#: LLaMA-Factory's ``max_new_tokens`` reaches only the final ``trainer.evaluate(**gen_kwargs)`` after training
#: (``train/sft/workflow.py`` @ff6d4d1).
DEFAULT_NEW_TOKENS = 20


@dataclass(frozen=True)
class DecodeRates:
    """What one eager ``generate`` forward on the training GPU runs at (``core/steptime.py`` supplies them).

    Attributes:
        rate: sustained matmul rate, FLOP/s. bandwidth: achieved memory bandwidth, B/s.
        host_step_seconds: host launch time of one eager forward of one token, s.
        layer_weight_bytes: bytes per decoder-layer linear weight as stored (2 in bf16; NF4's for QLoRA).
        gather_seconds: seconds to gather the sharded weights for one forward under ZeRO-3 (0 unsharded).
    """

    rate: float
    bandwidth: float
    host_step_seconds: float
    layer_weight_bytes: float = 2.0
    gather_seconds: float = 0.0


def eval_generation_cost(arch: ModelArchitecture, *, rows: int, generated: int, prompt: float, rates: DecodeRates,
                         key: str = "eval_generation") -> Term:
    """Seconds one evaluation micro-batch of ``rows`` prompts of ``prompt`` tokens takes to generate ``generated``
    new tokens each, as a time :class:`~tuneplan.core.terms.Term` (``key``: ``eval_generation`` for the final
    evaluation at ``max_new_tokens``, ``eval_generation_during`` for one during training at
    :data:`DEFAULT_NEW_TOKENS`).

    LLaMA-Factory's ``CustomSeq2SeqTrainer`` (and HF ``Seq2SeqTrainer`` with ``predict_with_generate``) calls
    ``model.generate`` on the training model: eager PyTorch, one forward per new token (:func:`decode_step` at the
    mean context ``prompt + generated / 2``, bounded below by the host's launches) after the prompt's prefill
    (:func:`prefill_seconds`). Every row is costed at the full ``generated``: the batch runs until its longest row
    ends. Under ZeRO-3 every forward gathers the sharded weights again (HF ``synced_gpus``; DeepSpeed's parameter
    fetch): ``rates.gather_seconds`` per forward.

    Raises:
        ValueError: for no rows or no new tokens.
    """
    if rows <= 0 or generated <= 0:
        raise ValueError("eval_generation_cost needs rows and new tokens")
    step = decode_step(arch, rows, prompt + generated / 2.0, rate=rates.rate, bandwidth=rates.bandwidth,
                       layer_weight_bytes=rates.layer_weight_bytes, host_step_seconds=rates.host_step_seconds)
    prefill = prefill_seconds(arch, rows, prompt, rates.rate) + rates.gather_seconds
    seconds = generated * (step.seconds + rates.gather_seconds) + prefill
    return Term(key=key, value=seconds, parts=(
        Quantity(key="rows", value=rows, unit="count", source="TrainingArguments.per_device_eval_batch_size"),
        Quantity(key="generated", value=generated, unit="tokens",
                 source="LLaMA-Factory GeneratingArguments max_new_tokens" if key == "eval_generation"
                 else "transformers GenerationConfig max_length default (20 new tokens)"),
        Quantity(key="prompt", value=prompt, unit="tokens"),
        Quantity(key="step_seconds", value=step.seconds, unit="s"),
        Quantity(key="weight_bytes", value=step.weight_bytes, unit="B"),
        Quantity(key="kv_bytes", value=step.kv_bytes, unit="B"),
        Quantity(key="bandwidth", value=rates.bandwidth, unit="B/s"),
        Quantity(key="gather_seconds", value=rates.gather_seconds, unit="s"),
        Quantity(key="prefill_seconds", value=prefill, unit="s"),
    ), source="LLaMA-Factory src/llamafactory/train/sft/trainer.py prediction_step; transformers trainer_seq2seq.py "
              "evaluate, generate; decode as a memory-bound roofline")


def generation_notes(cost: GenerationCost, t: TrainingSetup, capacity_bytes: float) -> list[Note]:
    """The coded notes of a step's generation: a colocated vLLM share that cannot start the engine, or whose KV cache
    runs the completions in waves."""
    notes: list[Note] = []
    if t.generation_engine == "vllm-server":
        if not cost.engine_starts:
            notes.append(Note(code="generation.server_no_room", params={
                "share_gib": round(vllm_reserved_bytes(capacity_bytes, SERVER_MEMORY_SHARE) / 2**30, 1),
                "weights_gib": round(cost.term.part("engine_weight_bytes") / 2**30, 1)}))
        return notes
    if t.generation_engine != "vllm-colocate":
        return notes
    if not cost.engine_starts:
        # the engine loads every weight (all of an MoE model's experts), not only those one decode step reads
        weights = cost.term.part("engine_weight_bytes")
        notes.append(Note(code="generation.vllm_no_kv", params={
            "share": t.vllm_memory_share, "share_gib": round(vllm_reserved_bytes(capacity_bytes, t.vllm_memory_share)
                                                              / 2**30, 1),
            "weights_gib": round(weights / 2**30, 1)}))
    elif cost.waves > 1:
        rows = int(next(q.value for q in cost.term.parts if q.key == "rows"))
        notes.append(Note(code="generation.vllm_waves", params={"fits": cost.kv_fits, "rows": rows,
                                                                "waves": cost.waves}))
    return notes
