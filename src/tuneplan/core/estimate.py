"""One function from a scenario to its result: memory, time and cost."""

from __future__ import annotations

from tuneplan.core import workload as wl
from tuneplan.core.calibration import Calibration, stack_key
from tuneplan.core.cost import estimate_cost
from tuneplan.core.lengths import spread_std
from tuneplan.core.memory import (
    GENERATING_STACKS,
    adapter_path,
    compile_modelled,
    estimate_memory,
    experts_adapted,
    hqq_base,
    int8_base,
    named_modules,
    peft_fuses,
    target_spec,
)
from tuneplan.core.result import Estimate, TimeEstimate
from tuneplan.core.scenario import Scenario, TrainingSetup
from tuneplan.core.stacks import pads_packs
from tuneplan.core.terms import N_, NOTES, Note, render_note
from tuneplan.core.throughput import estimate_time, tokens_per_row
from tuneplan.core.workload import plan_notes

__all__ = ["BLOCKING_NOTES", "billed_gpus", "blocking_notes", "estimate", "plan_stack_key"]

#: Notes that mean the run stops at once (a framework refuses the combination, or an engine cannot start), not just a
#: caution: a plan carrying one cannot run as it is, whatever its memory says.
BLOCKING_NOTES = frozenset({
    "plan.optimizer_in_backward_accumulation", "plan.fp16_trainable", "plan.expert_lora_dropout", "plan.int8_fsdp",
    "plan.lora_modules_none", "plan.hqq_group_size", "plan.eval_generate_zero3", "plan.eval_generate_fsdp",
    "plan.eval_generate_lf_sft_only",
    # GRPO (core/generation.py): GRPOConfig refuses a step whose completions are not a multiple of num_generations;
    # a vLLM engine whose share cannot hold the weights and a prefill chunk does not start
    "generation.divisible", "generation.vllm_no_kv", "generation.server_no_room",
})


def billed_gpus(t: TrainingSetup) -> int:
    """GPUs rented for the run: the training GPUs, and for GRPO with a vLLM server its GPUs too (the same card,
    rented for the whole run beside the trainers)."""
    return t.num_gpus + (t.vllm_server_gpus if t.workload == "grpo" and t.generation_engine == "vllm-server" else 0)


def blocking_notes(result: Estimate) -> list[Note]:
    """The plan's notes (its warnings and its time notes) that mean it cannot run as it is (:data:`BLOCKING_NOTES`)."""
    return [n for n in (*result.messages, *result.time.messages) if n.code in BLOCKING_NOTES]

#: English templates of the plan's warnings (``Estimate.messages``); the UI translates them in the ``Terms`` context.
NOTES.update({
    "plan.seq_beyond_context": N_("sequence length {seq_len} exceeds the model's max_position_embeddings "
                                  "({max_positions})"),
    "plan.no_bf16": N_("{gpu} has no BF16 tensor cores: train in FP16 with loss scaling"),
    "plan.fused_qkv_lora": N_("this model computes q, k and v in one {module} module: LoRA adapts it whole, keys "
                              "included (target_modules {module})"),
    "plan.optimizer_in_backward_accumulation": N_("the optimizer step fused into backward cannot accumulate "
                                                  "gradients: set gradient accumulation to 1 (torchtune refuses "
                                                  "this combination)"),
    "plan.optimizer_in_backward_zero": N_("DeepSpeed ZeRO steps its own optimizer after the backward: no stack fuses "
                                          "the optimizer step into backward under ZeRO (torchtune's "
                                          "optimizer_in_bwd runs on one GPU or FSDP); the memory shown assumes it "
                                          "does"),
    "plan.paged_spill": N_("paged optimizer states ({paged} GiB) exceed the {free} GiB left on the GPU: about "
                           "{over} GiB live in CPU RAM and cross PCIe at every optimizer step, which the time "
                           "estimate includes (on Windows and WSL2 CUDA cannot page them out: there they must fit "
                           "on the GPU)"),
    "plan.moe_experts_unquantised": N_("bitsandbytes does not quantise the stacked experts of this "
                                       "mixture-of-experts model (transformers 5 keeps them as 3-D tensors, "
                                       "bitsandbytes issue #1849): they are counted unquantised; Unsloth's loader "
                                       "quantises them"),
    "plan.moe_experts_unquantised_hqq": N_("HQQ quantises nn.Linear layers only, not the stacked experts of this "
                                           "mixture-of-experts model (transformers 5 keeps them as 3-D tensors): they "
                                           "are counted unquantised"),
    "plan.expert_lora_dropout": N_("PEFT adapts the stacked experts through ParamWrapper, which refuses LoRA "
                                   "dropout: set dropout to 0 or target the attention projections only"),
    "plan.adapter_setting_fp32_master": N_("the LoRA adapter setting ({setting}) does not apply: with FP32 master "
                                           "weights the adapters are FP32 under autocast"),
    "plan.fp16_trainable": N_("FP16 training with FP16 trainable parameters: PyTorch's loss scaler refuses them "
                              "(\"Attempting to unscale FP16 gradients\"); keep the trained weights in FP32 or "
                              "train in BF16"),
    "plan.compile_not_modelled": N_("torch.compile's smaller saved set is modelled for RMSNorm layers (Llama, "
                                    "Qwen, Mistral, Gemma); for this model the eager figures are used"),
    "plan.int8_zero3": N_("DeepSpeed ZeRO-3 over an 8-bit bitsandbytes base is not a documented combination: the "
                          "int8 weights are planned as sharded, but bitsandbytes keeps its own reference to them, so "
                          "each GPU may hold them whole; the 4-bit base (QLoRA) is the documented one"),
    "plan.int8_fsdp": N_("FSDP cannot shard an 8-bit bitsandbytes base: it flattens parameters of one dtype only and "
                         "refuses the int8 weights; use the 4-bit base (QLoRA) or data parallelism (DDP, ZeRO-1/2)"),
    "plan.sharding_one_gpu": N_("sharding across one GPU saves no memory"),
    "plan.lora_modules_none": N_("none of the LoRA modules ({names}) is a linear layer of this model: PEFT refuses "
                                 "the adapter (\"Target modules not found in the base model\"); its layers are "
                                 "{model_names}"),
    "plan.lora_modules_unknown": N_("LoRA modules {names} are not counted: they match no linear layer of this model, "
                                    "or name a single layer, which the plan cannot count alone (its layers are "
                                    "{model_names})"),
    "plan.eval_generate_sft_only": N_("generating in the evaluation (predict_with_generate) is for supervised "
                                      "fine-tuning only (LLaMA-Factory refuses it for {workload}); the plan's "
                                      "evaluation is estimated without it"),
    "plan.eval_generate_no_eval": N_("the evaluation would generate, but the plan does not evaluate during training "
                                     "(evaluation batch off): nothing is generated"),
    "plan.eval_generate_zero3": N_("LLaMA-Factory refuses predict_with_generate under DeepSpeed ZeRO-3 "
                                   "(\"incompatible with DeepSpeed ZeRO-3\"): use ZeRO-2, or evaluate the loss only"),
    "plan.eval_generate_fsdp": N_("generating in the evaluation under FSDP fails: generate runs on the wrapped model, "
                                  "whose root unit (the embedding) is never unsharded (\"'weight' must be 2-D\", "
                                  "pytorch/pytorch#123962); use DeepSpeed ZeRO-2, or evaluate the loss only"),
    "plan.eval_generate_lf_sft_only": N_("LLaMA-Factory refuses predict_with_generate for the {workload} stage "
                                         "(\"cannot be set as True except SFT\"): evaluate the loss only"),
    "plan.eval_generate_stack": N_("{stack} evaluates the loss only (it has no predict_with_generate): the plan's "
                                   "evaluation is estimated without generating"),
    "plan.hqq_group_size": N_("HQQ cannot split {modules} into groups of {group} weights (each matrix's size must "
                              "be a multiple of the group size): choose 64, or another divisor"),
    "plan.hqq_sharded": N_("an HQQ base under {sharding}: LLaMA-Factory refuses the combination, and FSDP can flatten "
                           "the packed weights only with HqqConfig(view_as_float=True); the memory shown assumes "
                           "they are sharded"),
    "plan.padding_free_bound": N_("padding-free batches are sized at micro-batch × sequence length ({tokens:,} "
                                  "tokens) because the spread of the example lengths is unknown: count the dataset "
                                  "file for the largest batch the run draws"),
    "plan.packing_efficiency_unused": N_("the packing efficiency ({share:.0%}) is not used: only LLaMA-Factory's "
                                         "supervised packing pads its rows to the sequence length; these rows "
                                         "compute no gaps"),
    "plan.tokens_std_capped": N_("a length spread of {std:,} tokens is more than examples of {mean:,} tokens on "
                                 "average, none longer than {longest:,}, can have: {cap:,} is used"),
    "plan.padding_free_attention": N_("padding-free batches flatten the micro-batch into one sequence, which only "
                                      "FlashAttention 2/3 separates by example (TRL warns for {attention}): "
                                      "examples would attend to each other; choose FlashAttention"),
    "plan.adapter_setting_fsdp_unit": N_("the LoRA adapter setting ({setting}) does not apply: adapters inside "
                                         "their layer's FSDP unit take the weights' dtype"),
    "plan.fsdp_wrap_irrelevant": N_("adapters inside their layer's FSDP unit only matter for LoRA under FSDP over "
                                    "several GPUs (QLoRA's 4-bit weights cannot take gradients; full fine-tuning "
                                    "trains every weight anyway)"),
    "plan.sharded_qlora_no_upcast": N_("the FP32 upcast is not applied: sharded QLoRA (FSDP/ZeRO-3) skips "
                                       "prepare_model_for_kbit_training so that every shard has one dtype"),
    "plan.naive_split": N_("{n} GPUs without sharding: the layers are split across the GPUs and run one GPU at a "
                           "time (naive model parallelism, HF device_map); choose DDP, ZeRO or FSDP to train in "
                           "parallel"),
})


def _time_at(time: TimeEstimate, seconds: float) -> TimeEstimate:
    """``time`` with its training phase stretched so that the run takes ``seconds`` (the likely range's ends)."""
    training = time.phases.get("training", 0.0) + seconds - time.seconds
    return time.model_copy(update={"phases": {**time.phases, "training": max(training, 0.0)}, "seconds": seconds})


def plan_stack_key(scenario: Scenario) -> str:
    """The :func:`~tuneplan.core.calibration.stack_key` of a plan (its GPU, GPU count, framework, method)."""
    t = scenario.training
    return stack_key(scenario.gpu.id, t.num_gpus, t.framework, t.method, t.sharding)


def estimate(scenario: Scenario, calibration: Calibration | None = None) -> Estimate:
    """Compute memory, time and cost of ``scenario`` on its GPU.

    Pure and fast (about a millisecond): no I/O, no Qt, no NVML.

    Args:
        scenario: the plan.
        calibration: a pilot run's calibration for this plan's hardware and stack (applied to the time only when
            its key matches :func:`plan_stack_key`).

    Raises:
        ValueError: when the scenario cannot be computed (e.g. a GPU without tensor throughput).
    """
    arch, t = scenario.model, scenario.training
    memory, ledger = estimate_memory(arch, t, scenario.gpu, scenario.dataset)
    # Bytes one checkpoint writes: the whole model's trainable state, whatever the sharding or
    # offload (every rank writes its shard; together they write all of it).
    if t.num_gpus == 1 and not t.cpu_offload:
        whole_ledger = ledger  # already unsharded: no second ledger on the hot path
    else:
        whole = t.model_copy(update={"num_gpus": 1, "sharding": "none", "cpu_offload": False})
        _, whole_ledger = estimate_memory(arch, whole, scenario.gpu)
    if t.method == "full":
        ckpt_bytes = arch.parameter_count() * 2 + whole_ledger.optimizer + whole_ledger.optimizer_paged
    else:
        # adapter weights + their optimizer states (paged ones too)
        ckpt_bytes = whole_ledger.adapters + whole_ledger.optimizer + whole_ledger.optimizer_paged
    # paged optimizer states beyond the GPU's free memory live in host RAM and cross PCIe every step
    spilled = 0.0
    if memory.paged_bytes and memory.fits:
        spilled = max(memory.paged_bytes - (memory.capacity_bytes - memory.total_bytes), 0.0)
    if calibration is not None and calibration.key != plan_stack_key(scenario):
        calibration = None
    # activation offload moves every layer's saved tensors (its checkpoint alone with checkpointing) per micro-batch
    per_token = ledger.checkpoint_per_layer_token if t.grad_checkpointing else ledger.activation_per_layer_token
    row = tokens_per_row(t, scenario.dataset)  # the rows the GPU computes (padded only to the batch's longest)
    offloaded = per_token * arch.num_layers * t.micro_batch * row if t.activation_offload else 0.0
    time = estimate_time(arch, t, scenario.dataset, scenario.gpu, scenario.pricing, ckpt_bytes,
                         spilled_bytes=spilled, calibration=calibration, activation_bytes=offloaded)
    billed = billed_gpus(t)
    cost = estimate_cost(time, scenario.pricing, billed, gpu_power_w=scenario.gpu.tdp_w, gpu_name=scenario.gpu.name)
    cost = cost.model_copy(update=dict(zip(("low_usd", "high_usd"), (
        estimate_cost(_time_at(time, sec), scenario.pricing, billed, curve_points=2,
                      gpu_power_w=scenario.gpu.tdp_w).total_usd
        for sec in (time.low_seconds, time.high_seconds)), strict=True)))
    notes: list[Note] = []

    def warn(code: str, **params: object) -> None:
        notes.append(Note(code=code, params=params))

    if arch.max_position_embeddings and t.seq_len > arch.max_position_embeddings:
        warn("plan.seq_beyond_context", seq_len=t.seq_len, max_positions=arch.max_position_embeddings)
    if t.precision == "bf16" and not scenario.gpu.bf16_supported:
        warn("plan.no_bf16", gpu=scenario.gpu.name)
    if t.optimizer_in_backward and t.grad_accumulation > 1:
        warn("plan.optimizer_in_backward_accumulation")
    if t.optimizer_in_backward and t.num_gpus > 1 and t.sharding in {"zero1", "zero2", "zero3"}:
        # DeepSpeedEngine.step() runs the (ZeRO-wrapped) optimizer once the boundary's backward is done; torchtune's
        # optimizer_in_bwd registers per-parameter step hooks on plain or FSDP modules (training/_activation...
        # torchtune.training.register_optim_in_bwd_hooks), not on a DeepSpeed engine
        warn("plan.optimizer_in_backward_zero")
    if memory.paged_bytes and memory.fits:  # (a plan that does not fit has a bigger problem)
        free = memory.capacity_bytes - memory.total_bytes
        if memory.paged_bytes > free:
            over = memory.paged_bytes - free
            warn("plan.paged_spill", paged=round(memory.paged_bytes / 2**30, 1), free=round(free / 2**30, 1),
                 over=round(over / 2**30, 1))
    if t.method != "full" and t.lora_targets == "q_v" and peft_fuses(arch, t.stack):
        # PEFT wraps whole modules: q_v on a fused q/k/v module (Phi-3 qkv_proj) adapts the keys too
        fused = next((name for name, parts in arch.fused_projections() if "q_proj" in parts), None)
        if fused is not None:
            warn("plan.fused_qkv_lora", module=fused)
    if arch.is_moe and t.method == "qlora" and hqq_base(arch, t):
        warn("plan.moe_experts_unquantised_hqq")  # HQQ's quantizer replaces nn.Linear layers only, as bitsandbytes
    elif arch.is_moe and t.method == "qlora":
        # transformers >= 5 keeps experts as 3-D nn.Parameters; bitsandbytes replaces nn.Linear only
        # (bitsandbytes issue #1849, open; Unsloth's own loader quantises them, unsloth-zoo PR #527)
        warn("plan.moe_experts_unquantised")
    if t.method != "full" and experts_adapted(arch, target_spec(t)) and t.lora_dropout > 0:
        # PEFT 0.21 ParamWrapper.update_layer raises ValueError for lora_dropout != 0
        warn("plan.expert_lora_dropout")
    if t.method != "full" and t.adapter_precision != "fp32-autocast" and adapter_path(t) == "autocast":
        # an fp32 master model (LoRA on an fp32 base) runs under autocast, so PEFT's adapters are fp32 and cast
        warn("plan.adapter_setting_fp32_master", setting=t.adapter_precision)
    # PEFT's modules_to_save copies (trainable embeddings) keep the model dtype; QLoRA's upcast makes them fp32
    fp16_copies = t.method != "full" and t.trainable_embeddings and not (
        t.method == "qlora" and t.kbit_fp32_upcast and not (t.num_gpus > 1 and t.sharding in {"zero3", "fsdp"}))
    fp16_params = t.precision == "fp16" and (
        (t.method == "full" and t.master_weights != "fp32")
        or (t.method != "full" and (adapter_path(t) == "native" or fp16_copies)))
    if fp16_params:
        # torch.amp.GradScaler.unscale_ raises ValueError("Attempting to unscale FP16 gradients.") for fp16
        # parameters (torch/amp/grad_scaler.py, _unscale_grads_ with allow_fp16=False)
        warn("plan.fp16_trainable")
    if t.torch_compile and not compile_modelled(arch, t):
        warn("plan.compile_not_modelled")
    if int8_base(arch, t) and t.sharding == "zero3" and t.num_gpus > 1:
        # PEFT documents ZeRO-3 with 4-bit bases stored as the float dtype (bnb_4bit_quant_storage) only; an int8
        # base keeps its codes in bitsandbytes' matmul state, which ZeRO-3 does not partition (nn/modules.py
        # Linear8bitLt.init_8bit_state: state.CB = weight.CB; forward: weight.data = state.CB, @95f9af3)
        warn("plan.int8_zero3")
    if int8_base(arch, t) and t.sharding == "fsdp" and t.num_gpus > 1:
        # torch FSDP _flat_param._validate_tensors_to_flatten: "Must flatten tensors with uniform dtype but got
        # torch.float16 and torch.int8" (bitsandbytes issue #1709); accelerate #1415 "Integer parameters are
        # unsupported". 4-bit bases pass because bnb_4bit_quant_storage stores them in the float dtype.
        warn("plan.int8_fsdp")
    if hqq_base(arch, t):
        # hqq Quantizer.quantize asserts is_divisible(tensor.numel(), group_size) for every matrix it quantises
        bad = sorted({m.name for _, group in arch.linear_modules() for m in group
                      if m.count == 1 and (m.d_in * m.d_out) % t.quant_group_size})
        if bad:
            warn("plan.hqq_group_size", group=t.quant_group_size, modules=", ".join(bad))
    if hqq_base(arch, t) and t.num_gpus > 1 and t.sharding in {"zero3", "fsdp"}:
        # LLaMA-Factory model_utils/quantization.py (@ff6d4d1): "HQQ quantization is incompatible with DeepSpeed
        # ZeRO-3 or FSDP"; transformers HqqConfig: view_as_float "used in distributed training"
        warn("plan.hqq_sharded", sharding="ZeRO-3" if t.sharding == "zero3" else "FSDP")
    if t.method != "full" and t.lora_modules:
        matched, unknown = named_modules(arch, t.lora_modules)
        if unknown:
            # peft tuners_utils.inject_adapter: ValueError when no target module is found; names that match nothing
            # beside ones that do are passed over
            layer_names = list(dict.fromkeys(arch.hf_module_name(m.name) for _, group in arch.linear_modules()
                                             for m in group if m.kind != "router" and m.count == 1))
            one_layer = any(p.isdigit() for n in unknown for p in n.split("."))  # PEFT adapts that layer
            warn("plan.lora_modules_unknown" if matched or one_layer else "plan.lora_modules_none",
                 names=", ".join(unknown), model_names=", ".join(layer_names))
    if t.eval_generate_tokens > 0 and t.workload != "sft":
        # LLaMA-Factory hparams/parser.py: "`predict_with_generate` cannot be set as True except SFT."
        warn("plan.eval_generate_lf_sft_only" if t.stack == "llama-factory" else "plan.eval_generate_sft_only",
             workload=t.workload)
    elif t.eval_generate_tokens > 0 and t.eval_micro_batch <= 0:
        warn("plan.eval_generate_no_eval")
    elif t.eval_generate_tokens > 0 and t.stack not in GENERATING_STACKS:
        warn("plan.eval_generate_stack", stack=t.stack)
    elif t.eval_generate_tokens > 0 and t.stack == "llama-factory" and t.sharding == "zero3" and t.num_gpus > 1:
        # LLaMA-Factory hparams/parser.py: "`predict_with_generate` is incompatible with DeepSpeed ZeRO-3."
        warn("plan.eval_generate_zero3")
    elif t.eval_generate_tokens > 0 and t.sharding == "fsdp" and t.num_gpus > 1:
        warn("plan.eval_generate_fsdp")
    if t.num_gpus == 1 and t.sharding in {"zero3", "fsdp", "zero2", "zero1"}:
        warn("plan.sharding_one_gpu")
    if t.frozen_weight_grads and t.adapter_precision != "model-dtype" and t.precision != "fp32":
        # one FlatParameter per unit has one dtype (FSDP1 refuses to flatten mixed dtypes)
        warn("plan.adapter_setting_fsdp_unit", setting=t.adapter_precision)
    if t.fsdp_wrap == "blocks-with-adapters" and not t.frozen_weight_grads:
        warn("plan.fsdp_wrap_irrelevant")
    if t.method == "qlora" and t.kbit_fp32_upcast and t.num_gpus > 1 and t.sharding in {"zero3", "fsdp"}:
        # TRL (is_sharded_qlora) and axolotl (skip_prepare_model_for_kbit_training) skip the upcast there
        warn("plan.sharded_qlora_no_upcast")
    if t.num_gpus > 1 and t.sharding == "none":
        warn("plan.naive_split", n=t.num_gpus)
    if scenario.dataset.packing_efficiency < 1.0 and not pads_packs(t):
        warn("plan.packing_efficiency_unused", share=scenario.dataset.packing_efficiency)
    if t.sequence_mode == "padding-free" and wl.causal_lm(t):
        d = scenario.dataset
        if d.tokens_std and d.total_tokens is None and d.tokens_per_example > 0:
            mean = min(d.tokens_per_example, float(t.seq_len))
            cap = spread_std(mean, float(t.seq_len), d.tokens_std)
            if cap < d.tokens_std:
                warn("plan.tokens_std_capped", std=round(d.tokens_std), mean=round(mean), longest=t.seq_len,
                     cap=round(cap))
        if memory.batch_term is not None and memory.batch_term.key == "padding_free_bound":
            warn("plan.padding_free_bound", tokens=round(memory.batch_term.value))
        if t.attention != "flash":
            # trl/trainer/sft_trainer.py SFTTrainer.__init__ (@f2cd577): warns unless _attn_implementation is one of
            # FLASH_ATTENTION_VARIANTS; the flattened row has no attention mask, only restarting position_ids
            warn("plan.padding_free_attention", attention=t.attention)
    # preference and reward-model workloads: what TRL would not run as planned (issue #18)
    notes.extend(plan_notes(t, time.phases.get("reference_logps", 0.0)))
    warnings = [render_note(n) for n in notes]
    return Estimate(
        memory=memory,
        time=time,
        cost=cost,
        parameters=arch.parameter_count(),
        trainable_parameters=ledger.trainable_params,
        warnings=warnings,
        messages=notes,
    )
