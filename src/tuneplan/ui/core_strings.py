"""The core catalogue's English templates (``tuneplan.core.terms.FORMULAS`` and ``NOTES``) marked for Qt's
translation tools, which read only the UI's sources. Generated from the catalogue; ``tests/ui/test_i18n.py`` fails
when it and the catalogue differ (regenerate with ``python tools/i18n.py core``)."""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP

__all__ = ["CORE_TEMPLATES"]

CORE_TEMPLATES = (
    QT_TRANSLATE_NOOP("Terms", "per micro-batch: {flops} FLOP at the {detail} kernel's measured {rate} FLOP/s (causal: {keys_per_query} keys per query); × {micro_batches} micro-batches per step"),  # attention
    QT_TRANSLATE_NOOP("Terms", '{exposed} s of collectives not hidden ({collectives} collectives: {bytes} B at {link} B/s bus bandwidth and {latency} s of NCCL latency; {overlapped} s hidden behind compute) + {contention} s the compute beside them runs slower'),  # communication
    QT_TRANSLATE_NOOP("Terms", '{power} W × {gpus} GPUs × {hours} h = {kwh} kWh × {usd_per_kwh} USD/kWh'),  # electricity_gpus
    QT_TRANSLATE_NOOP("Terms", '{power} W × {hours} h = {kwh} kWh × {usd_per_kwh} USD/kWh'),  # electricity_host
    QT_TRANSLATE_NOOP("Terms", "per micro-batch of the final evaluation: {rows} rows generate {generated} tokens after a {prompt}-token prompt: {generated} decode steps of {step_seconds} s (weights {weight_bytes} B + KV cache {kv_bytes} B read per step over {bandwidth} B/s, or the host's launches; + {gather_seconds} s gathering sharded weights) + prefill {prefill_seconds} s"),  # eval_generation
    QT_TRANSLATE_NOOP("Terms", "per evaluation micro-batch during training: {rows} rows generate {generated} tokens (transformers' default length: the trainer's max_new_tokens does not reach these) after a {prompt}-token prompt: {generated} decode steps of {step_seconds} s (weights {weight_bytes} B + KV cache {kv_bytes} B read per step over {bandwidth} B/s, or the host's launches; + {gather_seconds} s gathering sharded weights) + prefill {prefill_seconds} s"),  # eval_generation_during
    QT_TRANSLATE_NOOP("Terms", "{rows} rows × {tokens} tokens × {kv_per_token} B: the evaluation's KV cache ({prompt}-token prompts + {generated} generated tokens), + {extend} B while one layer's keys are extended"),  # eval_kv_cache
    QT_TRANSLATE_NOOP("Terms", '{tokens} tokens × {per_token} B: inside a decoder layer of the no-grad evaluation forward, the residual, the norm output and the MLP intermediates ({intermediate} wide)'),  # eval_layer
    QT_TRANSLATE_NOOP("Terms", "{tokens} tokens × {vocab} logits × {elem_bytes} B: the evaluation micro-batch's logits with the loss's fp32 copy and log-softmax (a no-grad forward with labels; Liger's fused loss runs only while training)"),  # eval_logits
    QT_TRANSLATE_NOOP("Terms", "{rows} rows × {vocab} logits × {elem_bytes} B: the last position's logits and generate's fp32 copy (logits_to_keep = 1)"),  # eval_next_logits
    QT_TRANSLATE_NOOP("Terms", '{tokens} prompt tokens × {per_token} B: inside a decoder layer of the prefill forward (the residual, the norm output, the MLP intermediates), the KV cache of the prompt beside it'),  # eval_prefill
    QT_TRANSLATE_NOOP("Terms", "{rows} rows × {prompt} tokens × {kv_per_token} B: the KV cache of the evaluation's prompts, filled by the prefill"),  # eval_prompt_cache
    QT_TRANSLATE_NOOP("Terms", '{ops} operator launches × {op_seconds} s of host time, less the {gpu_seconds} s the GPU is busy meanwhile'),  # fixed
    QT_TRANSLATE_NOOP("Terms", "per optimizer step: {rows} completions of {completion} tokens after a {prompt}-token prompt ({detail}): {decode_steps} decode steps of {step_seconds} s (weights {weight_bytes} B + KV cache {kv_bytes} B read per step over {bandwidth} B/s, or {flops} FLOPs at {rate} FLOP/s, or the host's launches) in {waves} waves + prefill {prefill_seconds} s + weight sync {sync_seconds} s"),  # generation
    QT_TRANSLATE_NOOP("Terms", '{rows} rows × {tokens} tokens × {kv_per_token} B: the KV cache of model.generate, next to the weights and optimizer states (+ {gathered} B of weights gathered whole for it)'),  # generation_cache
    QT_TRANSLATE_NOOP("Terms", '{vocab} × {hidden} × 2 B: the bf16 autocast copy of the fp32 LM head, saved until its backward'),  # head_cast
    QT_TRANSLATE_NOOP("Terms", 'per micro-batch: {compute_seconds} s of compute-bound GEMMs ({compute_flops} FLOP at an effective {effective_rate} FLOP/s: the sustained {rate} FLOP/s less wave quantisation) + {memory_seconds} s of memory-bound GEMMs ({memory_bytes} B at {bandwidth} B/s); {gemms} GEMMs; × {micro_batches} micro-batches per step'),  # matmul
    QT_TRANSLATE_NOOP("Terms", '{transfer_seconds} s over PCIe ({pcie_bytes} B at {pcie} B/s) + CPU optimizer {cpu_seconds} s − {overlapped} s hidden behind compute'),  # offload
    QT_TRANSLATE_NOOP("Terms", '{params} parameters × {bytes_per_param} B read and written ÷ {bandwidth} B/s'),  # optimizer
    QT_TRANSLATE_NOOP("Terms", 'per micro-batch: {bytes} B of norms, activations, rotary, residuals, LoRA dropout, cross-entropy and dequantisation at {bandwidth} B/s; × {micro_batches} micro-batches per step'),  # other_kernels
    QT_TRANSLATE_NOOP("Terms", 'largest of {micro_batches} micro-batches of {micro_batch} examples flattened into one row: min({micro_batch} × {longest}, max({longest} + ({micro_batch} − 1) × {mean}, {micro_batch} × {mean} + {z} × √{micro_batch} × {std})) tokens'),  # padding_free_batch
    QT_TRANSLATE_NOOP("Terms", '{micro_batch} examples of at most {longest} tokens flattened into one row: {micro_batch} × {longest} tokens (the length spread is unknown: count the dataset file for the largest sum the run draws)'),  # padding_free_bound
    QT_TRANSLATE_NOOP("Terms", "{tokens} tokens × {vocab} logits × {tensors} tensors × {elem_bytes} B ({detail}): the logits, the log-softmax saved for backward and the metrics' copies"),  # policy_logps
    QT_TRANSLATE_NOOP("Terms", "per micro-batch: {passes} forward passes without gradients over {tokens} tokens (the reference model; KTO's KL batch; GRPO's old log-probs): {gemm_seconds} s of GEMMs, {attention_seconds} s of attention, {other_seconds} s of other kernels ({bytes} B); × {micro_batches} micro-batches per step"),  # reference
    QT_TRANSLATE_NOOP("Terms", "{tokens} tokens × {bytes_per_token} B of one layer's forward under no_grad (residual, norm output, three MLP intermediates) + {other_bytes} B (dequantised matrix, gathered layers)"),  # reference_activations
    QT_TRANSLATE_NOOP("Terms", "{tokens} tokens × {vocab} logits × {elem_bytes} B: the reference forward's logits, alive until the loss returns"),  # reference_logits
    QT_TRANSLATE_NOOP("Terms", '{params} parameters × {bytes_per_param} B ÷ {shards} GPUs: a frozen copy of the model for the reference forward, with no gradients or optimizer states'),  # reference_weights
    QT_TRANSLATE_NOOP("Terms", "{tokens} tokens × 1 score × {elem_bytes} B: the value head's output (its gradient in the backward) instead of vocabulary logits"),  # value_head
    QT_TRANSLATE_NOOP("Terms", "{share} × {capacity} B: the colocated vLLM engine's share of the card (its weights {weight_bytes} B, the KV cache and CUDA graphs inside it)"),  # vllm_share
    QT_TRANSLATE_NOOP("Terms", 'Offload checkpointed activations to CPU'),  # advice.activation_offload
    QT_TRANSLATE_NOOP("Terms", 'Use 8-bit AdamW'),  # advice.adamw_8bit
    QT_TRANSLATE_NOOP("Terms", 'Use fused AdamW'),  # advice.adamw_fused
    QT_TRANSLATE_NOOP("Terms", 'Evaluation batch of {rows} (per_device_eval_batch_size)'),  # advice.eval_batch
    QT_TRANSLATE_NOOP("Terms", 'Evaluation batch of {rows} (per_device_eval_batch_size)'),  # advice.eval_batch_generate
    QT_TRANSLATE_NOOP("Terms", 'Do not evaluate during training'),  # advice.eval_off
    QT_TRANSLATE_NOOP("Terms", 'Wrap the adapters in their own FSDP units'),  # advice.fsdp_units
    QT_TRANSLATE_NOOP("Terms", 'Use a fused cross-entropy (Liger, Cut Cross-Entropy)'),  # advice.fused_ce
    QT_TRANSLATE_NOOP("Terms", 'Use a larger GPU: {gpu} ({memory_gib:.2f} GiB)'),  # advice.gpu
    QT_TRANSLATE_NOOP("Terms", 'Shard across {gpus} GPUs with FSDP (ZeRO-3)'),  # advice.gpus
    QT_TRANSLATE_NOOP("Terms", 'Turn on gradient checkpointing'),  # advice.grad_checkpointing
    QT_TRANSLATE_NOOP("Terms", 'Sync gradients every micro-batch'),  # advice.grad_sync
    QT_TRANSLATE_NOOP("Terms", 'Skip the FP32 upcast of the unquantised weights'),  # advice.kbit_bf16
    QT_TRANSLATE_NOOP("Terms", 'Train LoRA adapters instead of all weights'),  # advice.lora
    QT_TRANSLATE_NOOP("Terms", 'Micro-batch {micro_batch} with gradient accumulation {accumulation}'),  # advice.micro_batch
    QT_TRANSLATE_NOOP("Terms", 'Fuse the optimizer step into backward'),  # advice.optimizer_in_backward
    QT_TRANSLATE_NOOP("Terms", 'Priced at ${price:,.2f}/GPU-hour.'),  # advice.priced
    QT_TRANSLATE_NOOP("Terms", 'Priced at ${price:,.2f}/GPU-hour ({provider}).'),  # advice.priced_at
    QT_TRANSLATE_NOOP("Terms", 'Use QLoRA (4-bit NF4 base)'),  # advice.qlora
    QT_TRANSLATE_NOOP("Terms", 'Shorten sequences to {tokens:,} tokens'),  # advice.seq_len
    QT_TRANSLATE_NOOP("Terms", 'Keeps the current price per GPU-hour (no price known for it).'),  # advice.unpriced
    QT_TRANSLATE_NOOP("Terms", 'Generate on a vLLM server on its own GPU'),  # advice.vllm_server
    QT_TRANSLATE_NOOP("Terms", 'Give vLLM {share:.0%} of the card'),  # advice.vllm_share
    QT_TRANSLATE_NOOP("Terms", 'Let vLLM sleep while training'),  # advice.vllm_sleep
    QT_TRANSLATE_NOOP("Terms", 'Moves saved hidden states to host memory over PCIe; the time shown does not charge the transfers (overlapped with compute when the link keeps up).'),  # advice.why.activation_offload
    QT_TRANSLATE_NOOP("Terms", 'bitsandbytes keeps both moments in 8 bits: 2 bytes per parameter instead of 4 or 8.'),  # advice.why.adamw_8bit
    QT_TRANSLATE_NOOP("Terms", "torch.optim.AdamW(fused=True) updates in one kernel, without the foreach path's temporary copy of the second moments; same maths, no slowdown."),  # advice.why.adamw_fused
    QT_TRANSLATE_NOOP("Terms", 'The evaluation pass holds the logits of its whole micro-batch with their fp32 copy; smaller evaluation batches only make evaluation a little slower.'),  # advice.why.eval_batch
    QT_TRANSLATE_NOOP("Terms", "The evaluation's generate holds the KV cache of its whole micro-batch at prompt plus new tokens; smaller evaluation batches take more batches of decode steps, so evaluation gets slower."),  # advice.why.eval_batch_generate
    QT_TRANSLATE_NOOP("Terms", 'Even one evaluation row needs more memory than the card has and than the training step; evaluate the saved checkpoint afterwards instead.'),  # advice.why.eval_off
    QT_TRANSLATE_NOOP("Terms", "Frozen weights then get no gradients (PEFT's fsdp_auto_wrap_policy, torchtune; litgpt PR #1538)."),  # advice.why.fsdp_units
    QT_TRANSLATE_NOOP("Terms", 'The loss never materialises the full fp32 logits.'),  # advice.why.fused_ce
    QT_TRANSLATE_NOOP("Terms", 'The smallest catalog GPU with enough memory for the plan as it is.'),  # advice.why.gpu
    QT_TRANSLATE_NOOP("Terms", 'Weights, gradients and optimizer states split across GPUs; each GPU pays for its own time.'),  # advice.why.gpus
    QT_TRANSLATE_NOOP("Terms", 'Keeps one hidden state per layer and recomputes the rest in backward: about a third more compute.'),  # advice.why.grad_checkpointing
    QT_TRANSLATE_NOOP("Terms", "Reduce-scatters each micro-batch's gradients, so every GPU keeps a shard instead of the whole unsharded gradient (accelerate sync_each_batch=True); more communication, which the time estimate includes."),  # advice.why.grad_sync
    QT_TRANSLATE_NOOP("Terms", "Keeps embeddings, LM head, norms (and stacked MoE experts) in the training precision, as axolotl, TRL, torchtune and Unsloth do, instead of PEFT's prepare_model_for_kbit_training: 2 bytes per parameter instead of 4, and a 16-bit residual stream between layers."),  # advice.why.kbit_bf16
    QT_TRANSLATE_NOOP("Terms", 'No gradients or optimizer states for the base weights.'),  # advice.why.lora
    QT_TRANSLATE_NOOP("Terms", 'Same effective batch, fewer tokens in flight at once.'),  # advice.why.micro_batch
    QT_TRANSLATE_NOOP("Terms", 'Frees each gradient as soon as its parameter is updated (no gradient accumulation).'),  # advice.why.optimizer_in_backward
    QT_TRANSLATE_NOOP("Terms", 'Stores the frozen base in 4 bits; roughly a quarter of the bf16 weights, a little slower.'),  # advice.why.qlora
    QT_TRANSLATE_NOOP("Terms", "Truncates or splits long examples: check your data's length distribution first."),  # advice.why.seq_len
    QT_TRANSLATE_NOOP("Terms", 'trl vllm-serve on one more GPU of the same kind: no vLLM share on the training cards; that GPU is billed too.'),  # advice.why.vllm_server
    QT_TRANSLATE_NOOP("Terms", "A smaller vllm_gpu_memory_utilization that still holds the engine's weights and the step's KV cache leaves the rest to training."),  # advice.why.vllm_share
    QT_TRANSLATE_NOOP("Terms", "vllm_enable_sleep_mode frees the colocated engine's weights and KV cache during training; it wakes for each generation (a weight reload each step)."),  # advice.why.vllm_sleep
    QT_TRANSLATE_NOOP("Terms", 'Each GPU then creates only its share of the weights: load the model after the DeepSpeed config is known (Hugging Face Trainer, TRL and LLaMA-Factory do), or set zero3_init_flag: true in the accelerate config.'),  # advice.why.zero_init
    QT_TRANSLATE_NOOP("Terms", 'Build the model under deepspeed.zero.Init'),  # advice.zero_init
    QT_TRANSLATE_NOOP("Terms", '{field} must be a positive number, got {value}'),  # calibration.bad_number
    QT_TRANSLATE_NOOP("Terms", "the pilot's {seconds} s per step would mean {mfu} % of the GPU's peak rate, which no card reaches: is it a different plan, or per micro-batch?"),  # calibration.faster_than_hardware
    QT_TRANSLATE_NOOP("Terms", "the pilot ran micro-batch {pilot}, the plan has {plan}: set the plan to the pilot's settings, then import it"),  # calibration.micro_batch_differs
    QT_TRANSLATE_NOOP("Terms", 'no step and time columns (step with _runtime, step_time or tokens_per_second)'),  # calibration.no_columns
    QT_TRANSLATE_NOOP("Terms", 'the file has no train_runtime or step times to measure'),  # calibration.no_runtime
    QT_TRANSLATE_NOOP("Terms", 'the file records no completed training steps'),  # calibration.no_steps
    QT_TRANSLATE_NOOP("Terms", '{rows} rows, but no usable step times: they must be positive numbers, and _runtime must grow from step to step'),  # calibration.no_usable_rows
    QT_TRANSLATE_NOOP("Terms", 'the file is not a JSON object'),  # calibration.not_object
    QT_TRANSLATE_NOOP("Terms", 'at least two logged steps are needed, found {rows}'),  # calibration.too_few_rows
    QT_TRANSLATE_NOOP("Terms", "the pilot's {seconds} s per step is {factor} times the model's {predicted} s: a different plan, a stalled run or the wrong file"),  # calibration.too_slow
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: every GPU of the machine; set the GPU count in the plan'),  # command.all_gpus
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: a config shipped with {framework}; copy it (tune cp {value} .) and import the copy for its settings'),  # command.builtin_config
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: import that file too for its settings'),  # command.config_file
    QT_TRANSLATE_NOOP("Terms", '{n} processes and no sharding named: {field} set to {setting} (a copy of the model on every GPU)'),  # command.data_parallel
    QT_TRANSLATE_NOOP("Terms", 'no command in the file'),  # command.empty
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: {field} set to {setting}'),  # command.gpus
    QT_TRANSLATE_NOOP("Terms", '{key}: does not change memory or time'),  # command.ignored
    QT_TRANSLATE_NOOP("Terms", 'the command does not start a training run Tuneplan reads ({program})'),  # command.not_training
    QT_TRANSLATE_NOOP("Terms", 'the file starts {n} training runs: the first ({program}) is read'),  # command.several
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: computed by the shell when it runs; the plan keeps its setting'),  # command.shell_value
    QT_TRANSLATE_NOOP("Terms", 'the command line cannot be read: {problem}'),  # command.syntax
    QT_TRANSLATE_NOOP("Terms", 'a command line longer than {limit} characters'),  # command.too_long
    QT_TRANSLATE_NOOP("Terms", 'YAML anchors and aliases are not accepted (line {line})'),  # config.alias
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: {field} set to {setting}, the nearest setting the plan has'),  # config.approx
    QT_TRANSLATE_NOOP("Terms", '{key} is "auto": left to the other files and the plan'),  # config.auto
    QT_TRANSLATE_NOOP("Terms", "{key} = {value}: each beam is a row of its own in the evaluation's KV cache; the plan counts one beam per example (set the evaluation batch × {value} to size the cache)"),  # config.beams_not_modelled
    QT_TRANSLATE_NOOP("Terms", "{key} = {value}: DeepSpeed's default, as the plan counts it"),  # config.deepspeed_as_planned
    QT_TRANSLATE_NOOP("Terms", "{key} = {value}: the plan counts DeepSpeed's default ({default}); this value changes the memory by its difference"),  # config.deepspeed_default_counted
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: import that DeepSpeed file too for its ZeRO stage and offload'),  # config.deepspeed_file
    QT_TRANSLATE_NOOP("Terms", "{key} not given: {framework}'s default sets {field} to {setting}"),  # config.default
    QT_TRANSLATE_NOOP("Terms", 'the file is empty'),  # config.empty
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: the config does not evaluate during training, so the evaluation batch does not apply'),  # config.eval_off
    QT_TRANSLATE_NOOP("Terms", 'neither bf16 nor fp16 is on: {field} set to {setting}'),  # config.fp32
    QT_TRANSLATE_NOOP("Terms", '{framework} trains with Hugging Face Trainer: {field} set to {setting}'),  # config.framework
    QT_TRANSLATE_NOOP("Terms", '{key} = {value} = micro-batch × accumulation × GPUs: {field} set to {setting}'),  # config.gpus_from_batch
    QT_TRANSLATE_NOOP("Terms", '{key}: does not change memory or time'),  # config.ignored
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: LLaMA-Factory refuses it together with predict_with_generate ("Cannot use predict_with_generate and compute_accuracy together")'),  # config.lf_generate_accuracy
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: LLaMA-Factory refuses it without evaluation data ("Please make sure eval_dataset be provided or val_size >1e-6")'),  # config.lf_generate_no_data
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: FP32 master weights under mixed precision, {field} set to {setting}'),  # config.master_weights
    QT_TRANSLATE_NOOP("Terms", 'no such file'),  # config.missing
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: the import sets the training setup only; choose the model in the plan'),  # config.model_not_set
    QT_TRANSLATE_NOOP("Terms", "{key} = {value}: {field} set to {setting}; {unknown} name no projection the plan counts (a single layer's module, or one the model has no counterpart for) and are left out"),  # config.modules_partly
    QT_TRANSLATE_NOOP("Terms", 'the config does not say how many GPUs run it: set the GPU count in the plan'),  # config.no_gpu_count
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: without quant_method ms-swift loads the model unquantised'),  # config.no_quant_method
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: examples are not cut to a length; the plan keeps its sequence length (set it to the longest example)'),  # config.no_truncation
    QT_TRANSLATE_NOOP("Terms", '{key} must be true or false, got {value}'),  # config.not_boolean
    QT_TRANSLATE_NOOP("Terms", 'not a regular file'),  # config.not_file
    QT_TRANSLATE_NOOP("Terms", '{key} must be a whole number, got {value}'),  # config.not_integer
    QT_TRANSLATE_NOOP("Terms", 'the file does not hold a training config (a mapping of settings)'),  # config.not_mapping
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: not modelled; the plan keeps its setting'),  # config.not_modelled
    QT_TRANSLATE_NOOP("Terms", '{key} must be a number, got {value}'),  # config.not_number
    QT_TRANSLATE_NOOP("Terms", '{key} must be text, got {value}'),  # config.not_string
    QT_TRANSLATE_NOOP("Terms", 'not a text file (binary, or not UTF-8)'),  # config.not_text
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: offloading the optimizer states alone is not modelled (the plan offloads parameters and optimizer states together); CPU offload left as it is'),  # config.optimizer_offload_only
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: {field} does not accept this value'),  # config.out_of_range
    QT_TRANSLATE_NOOP("Terms", '{framework} config: {field} set to {setting}, whose defaults fill what the file leaves out'),  # config.stack
    QT_TRANSLATE_NOOP("Terms", "not in the file: {framework}'s default sets {field} to {setting} ({source})"),  # config.stack_default
    QT_TRANSLATE_NOOP("Terms", 'not valid YAML or JSON (line {line}): {problem}'),  # config.syntax
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: {field} set to {setting}'),  # config.taken
    QT_TRANSLATE_NOOP("Terms", 'nested more than {depth} levels deep'),  # config.too_deep
    QT_TRANSLATE_NOOP("Terms", 'too large ({size} KiB; the limit is {limit} KiB)'),  # config.too_large
    QT_TRANSLATE_NOOP("Terms", 'not a LLaMA-Factory, axolotl, Hugging Face, DeepSpeed, torchtune, ms-swift or accelerate training config'),  # config.unknown_format
    QT_TRANSLATE_NOOP("Terms", '{key}: not a setting Tuneplan reads'),  # config.unknown_key
    QT_TRANSLATE_NOOP("Terms", '{key} = {value}: a value Tuneplan does not know; the plan keeps its setting'),  # config.unknown_value
    QT_TRANSLATE_NOOP("Terms", 'cannot read the file ({reason})'),  # config.unreadable
    QT_TRANSLATE_NOOP("Terms", 'your own GPUs: billed as electricity, {kwh} kWh at {usd_per_kwh} USD/kWh; no rental, storage or egress charges'),  # cost.electricity
    QT_TRANSLATE_NOOP("Terms", 'failure probability {probability:.0%}: {attempts:.2f} attempts per completed run (+${usd:,.2f})'),  # cost.failure_repeats
    QT_TRANSLATE_NOOP("Terms", 'monthly server ${monthly:,.0f}/month vs ${hourly:,.2f}/month hourly for {runs:g} runs: break-even at {break_even:.1f} runs/month, hourly is cheaper'),  # cost.hourly_cheaper
    QT_TRANSLATE_NOOP("Terms", '{expected:.2f} expected interruptions lose {lost_hours:.2f} h (${usd:,.2f}); pessimistic: {pessimistic} lose {pessimistic_hours:.2f} h'),  # cost.interruptions
    QT_TRANSLATE_NOOP("Terms", 'monthly server ${monthly:,.0f}/month vs ${hourly:,.2f}/month hourly for {runs:g} runs: break-even at {break_even:.1f} runs/month, the monthly server is cheaper'),  # cost.monthly_cheaper
    QT_TRANSLATE_NOOP("Terms", 'monthly server ${monthly:,.0f}/month vs ${hourly:,.2f}/month hourly for {runs:g} runs: break-even at {break_even:.1f} runs/month, both cost the same'),  # cost.monthly_equal
    QT_TRANSLATE_NOOP("Terms", 'your own GPUs: set your electricity price (USD/kWh) to see what the run costs'),  # cost.no_tariff
    QT_TRANSLATE_NOOP("Terms", "board power {power} W is the catalog's figure for the {gpu}: the card's own power limit was not read"),  # cost.power_from_spec
    QT_TRANSLATE_NOOP("Terms", 'rented at {provider} ({offer_kind}, {price} USD/GPU-hour) the same run would cost {rental_usd} USD; your electricity {electricity_usd} USD'),  # cost.rent_comparison
    QT_TRANSLATE_NOOP("Terms", 'electricity on your own card(s) instead: ${usd:,.2f} per run ({power:.0f} W × {gpus} × {hours:.2f} h at ${usd_per_kwh}/kWh)'),  # cost.rented_electricity
    QT_TRANSLATE_NOOP("Terms", '{runs:g} runs a month do not fit in one month of wall-clock time'),  # cost.runs_exceed_month
    QT_TRANSLATE_NOOP("Terms", 'container disk: billed only while running and wiped on stop; copy results out before stopping'),  # cost.storage_container
    QT_TRANSLATE_NOOP("Terms", 'network volume: persists independently of pods and is billed until deleted'),  # cost.storage_network
    QT_TRANSLATE_NOOP("Terms", 'pod volume: kept while the pod is stopped (stopped-pod rate), deleted with the pod'),  # cost.storage_volume
    QT_TRANSLATE_NOOP("Terms", 'none of its {total:,} rows could be used (the first, at {unit} {row:,}: {reason})'),  # dataset.all_broken
    QT_TRANSLATE_NOOP("Terms", 'the chat template cannot be read ({problem}): each message counts its role and content tokens only (the counts are a lower bound)'),  # dataset.bad_chat_template
    QT_TRANSLATE_NOOP("Terms", 'cannot read it as {format}: {problem}'),  # dataset.bad_file
    QT_TRANSLATE_NOOP("Terms", 'not a JSON list of records ({problem})'),  # dataset.bad_json
    QT_TRANSLATE_NOOP("Terms", '{file}: not a tokenizer the tokenizers library can load ({problem})'),  # dataset.bad_tokenizer
    QT_TRANSLATE_NOOP("Terms", 'not a text file (JSONL, JSON, CSV or TSV in UTF-8)'),  # dataset.binary
    QT_TRANSLATE_NOOP("Terms", '{broken:,} of {total:,} rows could not be used and are left out (the first, at {unit} {row:,}: {reason})'),  # dataset.broken
    QT_TRANSLATE_NOOP("Terms", 'counting was cancelled'),  # dataset.cancelled
    QT_TRANSLATE_NOOP("Terms", 'holds no rows'),  # dataset.empty
    QT_TRANSLATE_NOOP("Terms", 'the rows have no field {field}; they have: {columns}'),  # dataset.field_missing
    QT_TRANSLATE_NOOP("Terms", 'a JSON document of {size:,} bytes: at most {limit:,} are parsed at once; save it as JSONL (one object per line) instead'),  # dataset.json_too_large
    QT_TRANSLATE_NOOP("Terms", 'no such file or folder'),  # dataset.missing
    QT_TRANSLATE_NOOP("Terms", 'reading {format} needs the pyarrow package, which is not installed (pip install pyarrow); JSONL, JSON and CSV need nothing more'),  # dataset.needs_pyarrow
    QT_TRANSLATE_NOOP("Terms", "the tokenizer has no chat template: each message counts its role and content tokens only, without the template's markup (the counts are a lower bound)"),  # dataset.no_chat_template
    QT_TRANSLATE_NOOP("Terms", 'no chat messages, prompt/completion, instruction/output or text field found; the rows have: {columns}'),  # dataset.no_field
    QT_TRANSLATE_NOOP("Terms", "the chat template needs the jinja2 package, which is not installed: each message counts its role and content tokens only, without the template's markup (the counts are a lower bound)"),  # dataset.no_jinja2
    QT_TRANSLATE_NOOP("Terms", 'no tokenizer.json for {model} in a local folder or the Hugging Face cache (download it with: hf download {model} tokenizer.json tokenizer_config.json)'),  # dataset.no_tokenizer
    QT_TRANSLATE_NOOP("Terms", 'no tokenizer: pick a model folder with a tokenizer.json, or a model in the Hugging Face cache'),  # dataset.no_tokenizer_given
    QT_TRANSLATE_NOOP("Terms", "not a folder saved with datasets' save_to_disk (no state.json or dataset_dict.json)"),  # dataset.not_dataset_folder
    QT_TRANSLATE_NOOP("Terms", 'not a regular file (a pipe, device or socket)'),  # dataset.not_regular
    QT_TRANSLATE_NOOP("Terms", '{size:,} bytes; at most {limit:,} can be read'),  # dataset.too_large
    QT_TRANSLATE_NOOP("Terms", "cannot tell its format: name it .jsonl, .json, .csv, .tsv or .parquet, or pick a folder saved with datasets' save_to_disk"),  # dataset.unknown_format
    QT_TRANSLATE_NOOP("Terms", 'cannot read it: {reason}'),  # dataset.unreadable
    QT_TRANSLATE_NOOP("Terms", '{field} = {setting}: written as {key} = {value}, the nearest setting {format} has'),  # export.approx
    QT_TRANSLATE_NOOP("Terms", "{field} = {setting}: DeepSpeed's {precision} training keeps FP32 master weights and optimizer states of the trained parameters"),  # export.deepspeed_master
    QT_TRANSLATE_NOOP("Terms", '{field} = {setting}: the plan does not shard with DeepSpeed ZeRO; stage 0 (plain data parallelism) is written'),  # export.deepspeed_stage0
    QT_TRANSLATE_NOOP("Terms", '{field} = {setting}: {format} runs FSDP from an accelerate config: accelerate launch --config_file {example} with fsdp_offload_params: {offload}'),  # export.fsdp_accelerate
    QT_TRANSLATE_NOOP("Terms", '{model} has no Hugging Face id in the plan: write its id or local path into {key}'),  # export.model_placeholder
    QT_TRANSLATE_NOOP("Terms", '{field} = {setting} over {gpus} GPUs (layers split across them): {format} trains one copy per GPU; choose DDP, ZeRO or FSDP in the plan'),  # export.naive_split
    QT_TRANSLATE_NOOP("Terms", '{field} = {setting}: {format} has no setting for this; the file leaves it out'),  # export.not_expressible
    QT_TRANSLATE_NOOP("Terms", '{field} = {setting}: {format} offloads to the CPU only with DeepSpeed ZeRO or FSDP; with {sharding} the file keeps everything on the GPU'),  # export.offload_needs_sharding
    QT_TRANSLATE_NOOP("Terms", 'the plan trains with {stack}; this file is for {format}, whose defaults differ in places'),  # export.other_stack
    QT_TRANSLATE_NOOP("Terms", '{field} = {setting}: {format} packs only with FlashAttention and refuses attn_impl {value}'),  # export.packing_flash
    QT_TRANSLATE_NOOP("Terms", "{field} = {setting}: TRL's padding-free collator does not truncate and SFTTrainer refuses max_length with padding_free, so max_length is left unset: cut the examples to {setting} tokens before training"),  # export.padding_free_truncate
    QT_TRANSLATE_NOOP("Terms", "the plan trains {workload}; this {format} file sets up supervised fine-tuning only: start from {format}'s own {workload} recipe and keep the batch, precision and sharding settings below"),  # export.sft_only
    QT_TRANSLATE_NOOP("Terms", '{field} = {setting}: {format} has no setting for this and uses {default} ({source})'),  # export.stack_default
    QT_TRANSLATE_NOOP("Terms", "start from the torchtune config shipped for the model's family and size with {recipe} (tune ls lists them); these overrides set the plan's settings"),  # export.torchtune_config
    QT_TRANSLATE_NOOP("Terms", "{field} = {setting}: torchtune's distributed recipes shard with FSDP only"),  # export.torchtune_fsdp
    QT_TRANSLATE_NOOP("Terms", "{field} = {setting}: {component} takes no fused argument: remove the config's optimizer.fused (~optimizer.fused)"),  # export.torchtune_optimizer
    QT_TRANSLATE_NOOP("Terms", "{field} = {setting}: set model._component_ to the model's qlora_ builder (torchtune.models.<family>.qlora_<family>_<size>), as the *_qlora configs do"),  # export.torchtune_qlora
    QT_TRANSLATE_NOOP("Terms", "the plan trains {workload}, which {format} does not offer; this file sets up supervised fine-tuning with the plan's batch, precision and sharding: export the plan for TRL to train {workload}"),  # export.workload_unsupported
    QT_TRANSLATE_NOOP("Terms", 'GRPO needs the completions of a step (GPUs × micro-batch × accumulation = {total}) to be a multiple of num_generations ({g}): TRL refuses this plan'),  # generation.divisible
    QT_TRANSLATE_NOOP("Terms", 'KL coefficient {beta}: TRL loads a reference model (the policy with its adapters disabled under LoRA/QLoRA, a frozen copy otherwise) and runs it over every batch'),  # generation.kl_reference
    QT_TRANSLATE_NOOP("Terms", "GRPO rows are a prompt and its completion at full length, padded as TRL's GRPOTrainer pads them (it neither packs nor trims rows): the {mode} sequence mode is estimated as fixed rows of the sequence length, num_generations per prompt"),  # generation.rows_fixed
    QT_TRANSLATE_NOOP("Terms", 'vLLM server mode: generation runs on {n} more GPU(s) beside the {trainers} training GPU(s); they are billed with them'),  # generation.server_gpus
    QT_TRANSLATE_NOOP("Terms", "a vLLM server GPU ({share_gib:.1f} GiB at trl vllm-serve's gpu_memory_utilization 0.9) does not hold the model's weights ({weights_gib:.1f} GiB) and a prefill chunk: the server needs a larger card or tensor parallelism"),  # generation.server_no_room
    QT_TRANSLATE_NOOP("Terms", "the colocated vLLM engine's share ({share:.0%} of the card, {share_gib:.1f} GiB) does not hold the model's weights ({weights_gib:.1f} GiB) and a prefill chunk: vLLM refuses to start (no memory for KV-cache blocks); raise vllm_gpu_memory_utilization"),  # generation.vllm_no_kv
    QT_TRANSLATE_NOOP("Terms", "the colocated vLLM engine's KV cache holds {fits} of the {rows} completions at full length: it runs them in {waves} waves"),  # generation.vllm_waves
    QT_TRANSLATE_NOOP("Terms", 'packed rows are {share:.1%} full (best-fit decreasing); the time estimate counts real tokens only, as stacks that pack without padding (TRL) compute them'),  # lengths.packing_gapless
    QT_TRANSLATE_NOOP("Terms", 'packed rows are {share:.1%} full (best-fit decreasing); LLaMA-Factory pads every row to the sequence length, so the time estimate computes the gaps too'),  # lengths.packing_padded
    QT_TRANSLATE_NOOP("Terms", 'padding-free: the longest example has {tokens:,} tokens, so no example is cut below it; the sequence length becomes {tokens:,}'),  # lengths.padding_free_longest
    QT_TRANSLATE_NOOP("Terms", '{counted:,} of {rows:,} rows were counted (a uniform sample with a fixed seed): the figures are estimates'),  # lengths.sampled
    QT_TRANSLATE_NOOP("Terms", 'dynamic padding: the longest example has {tokens:,} tokens, so the longest batch is {tokens:,} tokens per row, not the sequence length {seq_len:,}'),  # lengths.seq_len_shortened
    QT_TRANSLATE_NOOP("Terms", '{count:,} of {counted:,} examples ({share:.1%}) are longer than the sequence length ({seq_len:,} tokens) and are cut to it'),  # lengths.truncated
    QT_TRANSLATE_NOOP("Terms", 'the LoRA adapter setting ({setting}) does not apply: with FP32 master weights the adapters are FP32 under autocast'),  # plan.adapter_setting_fp32_master
    QT_TRANSLATE_NOOP("Terms", "the LoRA adapter setting ({setting}) does not apply: adapters inside their layer's FSDP unit take the weights' dtype"),  # plan.adapter_setting_fsdp_unit
    QT_TRANSLATE_NOOP("Terms", "torch.compile's smaller saved set is modelled for RMSNorm layers (Llama, Qwen, Mistral, Gemma); for this model the eager figures are used"),  # plan.compile_not_modelled
    QT_TRANSLATE_NOOP("Terms", 'generating in the evaluation under FSDP fails: generate runs on the wrapped model, whose root unit (the embedding) is never unsharded ("\'weight\' must be 2-D", pytorch/pytorch#123962); use DeepSpeed ZeRO-2, or evaluate the loss only'),  # plan.eval_generate_fsdp
    QT_TRANSLATE_NOOP("Terms", 'LLaMA-Factory refuses predict_with_generate for the {workload} stage ("cannot be set as True except SFT"): evaluate the loss only'),  # plan.eval_generate_lf_sft_only
    QT_TRANSLATE_NOOP("Terms", 'the evaluation would generate, but the plan does not evaluate during training (evaluation batch off): nothing is generated'),  # plan.eval_generate_no_eval
    QT_TRANSLATE_NOOP("Terms", "generating in the evaluation (predict_with_generate) is for supervised fine-tuning only (LLaMA-Factory refuses it for {workload}); the plan's evaluation is estimated without it"),  # plan.eval_generate_sft_only
    QT_TRANSLATE_NOOP("Terms", "{stack} evaluates the loss only (it has no predict_with_generate): the plan's evaluation is estimated without generating"),  # plan.eval_generate_stack
    QT_TRANSLATE_NOOP("Terms", 'LLaMA-Factory refuses predict_with_generate under DeepSpeed ZeRO-3 ("incompatible with DeepSpeed ZeRO-3"): use ZeRO-2, or evaluate the loss only'),  # plan.eval_generate_zero3
    QT_TRANSLATE_NOOP("Terms", 'PEFT adapts the stacked experts through ParamWrapper, which refuses LoRA dropout: set dropout to 0 or target the attention projections only'),  # plan.expert_lora_dropout
    QT_TRANSLATE_NOOP("Terms", 'FP16 training with FP16 trainable parameters: PyTorch\'s loss scaler refuses them ("Attempting to unscale FP16 gradients"); keep the trained weights in FP32 or train in BF16'),  # plan.fp16_trainable
    QT_TRANSLATE_NOOP("Terms", "adapters inside their layer's FSDP unit only matter for LoRA under FSDP over several GPUs (QLoRA's 4-bit weights cannot take gradients; full fine-tuning trains every weight anyway)"),  # plan.fsdp_wrap_irrelevant
    QT_TRANSLATE_NOOP("Terms", 'this model computes q, k and v in one {module} module: LoRA adapts it whole, keys included (target_modules {module})'),  # plan.fused_qkv_lora
    QT_TRANSLATE_NOOP("Terms", "HQQ cannot split {modules} into groups of {group} weights (each matrix's size must be a multiple of the group size): choose 64, or another divisor"),  # plan.hqq_group_size
    QT_TRANSLATE_NOOP("Terms", 'an HQQ base under {sharding}: LLaMA-Factory refuses the combination, and FSDP can flatten the packed weights only with HqqConfig(view_as_float=True); the memory shown assumes they are sharded'),  # plan.hqq_sharded
    QT_TRANSLATE_NOOP("Terms", 'FSDP cannot shard an 8-bit bitsandbytes base: it flattens parameters of one dtype only and refuses the int8 weights; use the 4-bit base (QLoRA) or data parallelism (DDP, ZeRO-1/2)'),  # plan.int8_fsdp
    QT_TRANSLATE_NOOP("Terms", 'DeepSpeed ZeRO-3 over an 8-bit bitsandbytes base is not a documented combination: the int8 weights are planned as sharded, but bitsandbytes keeps its own reference to them, so each GPU may hold them whole; the 4-bit base (QLoRA) is the documented one'),  # plan.int8_zero3
    QT_TRANSLATE_NOOP("Terms", 'none of the LoRA modules ({names}) is a linear layer of this model: PEFT refuses the adapter ("Target modules not found in the base model"); its layers are {model_names}'),  # plan.lora_modules_none
    QT_TRANSLATE_NOOP("Terms", 'LoRA modules {names} are not counted: they match no linear layer of this model, or name a single layer, which the plan cannot count alone (its layers are {model_names})'),  # plan.lora_modules_unknown
    QT_TRANSLATE_NOOP("Terms", "bitsandbytes does not quantise the stacked experts of this mixture-of-experts model (transformers 5 keeps them as 3-D tensors, bitsandbytes issue #1849): they are counted unquantised; Unsloth's loader quantises them"),  # plan.moe_experts_unquantised
    QT_TRANSLATE_NOOP("Terms", 'HQQ quantises nn.Linear layers only, not the stacked experts of this mixture-of-experts model (transformers 5 keeps them as 3-D tensors): they are counted unquantised'),  # plan.moe_experts_unquantised_hqq
    QT_TRANSLATE_NOOP("Terms", '{n} GPUs without sharding: the layers are split across the GPUs and run one GPU at a time (naive model parallelism, HF device_map); choose DDP, ZeRO or FSDP to train in parallel'),  # plan.naive_split
    QT_TRANSLATE_NOOP("Terms", '{gpu} has no BF16 tensor cores: train in FP16 with loss scaling'),  # plan.no_bf16
    QT_TRANSLATE_NOOP("Terms", 'the optimizer step fused into backward cannot accumulate gradients: set gradient accumulation to 1 (torchtune refuses this combination)'),  # plan.optimizer_in_backward_accumulation
    QT_TRANSLATE_NOOP("Terms", "DeepSpeed ZeRO steps its own optimizer after the backward: no stack fuses the optimizer step into backward under ZeRO (torchtune's optimizer_in_bwd runs on one GPU or FSDP); the memory shown assumes it does"),  # plan.optimizer_in_backward_zero
    QT_TRANSLATE_NOOP("Terms", "the packing efficiency ({share:.0%}) is not used: only LLaMA-Factory's supervised packing pads its rows to the sequence length; these rows compute no gaps"),  # plan.packing_efficiency_unused
    QT_TRANSLATE_NOOP("Terms", 'padding-free batches flatten the micro-batch into one sequence, which only FlashAttention 2/3 separates by example (TRL warns for {attention}): examples would attend to each other; choose FlashAttention'),  # plan.padding_free_attention
    QT_TRANSLATE_NOOP("Terms", 'padding-free batches are sized at micro-batch × sequence length ({tokens:,} tokens) because the spread of the example lengths is unknown: count the dataset file for the largest batch the run draws'),  # plan.padding_free_bound
    QT_TRANSLATE_NOOP("Terms", 'paged optimizer states ({paged} GiB) exceed the {free} GiB left on the GPU: about {over} GiB live in CPU RAM and cross PCIe at every optimizer step, which the time estimate includes (on Windows and WSL2 CUDA cannot page them out: there they must fit on the GPU)'),  # plan.paged_spill
    QT_TRANSLATE_NOOP("Terms", "sequence length {seq_len} exceeds the model's max_position_embeddings ({max_positions})"),  # plan.seq_beyond_context
    QT_TRANSLATE_NOOP("Terms", 'the FP32 upcast is not applied: sharded QLoRA (FSDP/ZeRO-3) skips prepare_model_for_kbit_training so that every shard has one dtype'),  # plan.sharded_qlora_no_upcast
    QT_TRANSLATE_NOOP("Terms", 'sharding across one GPU saves no memory'),  # plan.sharding_one_gpu
    QT_TRANSLATE_NOOP("Terms", 'a length spread of {std:,} tokens is more than examples of {mean:,} tokens on average, none longer than {longest:,}, can have: {cap:,} is used'),  # plan.tokens_std_capped
    QT_TRANSLATE_NOOP("Terms", 'the GPU stopped responding while it was being read: check the card or reboot'),  # probe.all_lost
    QT_TRANSLATE_NOOP("Terms", 'the NVIDIA library stopped the GPU probe ({exception})'),  # probe.binding_stopped
    QT_TRANSLATE_NOOP("Terms", 'GPU detection unavailable: the nvidia-ml-py package looks broken'),  # probe.broken_binding
    QT_TRANSLATE_NOOP("Terms", 'NVIDIA driver not loaded'),  # probe.driver_not_loaded
    QT_TRANSLATE_NOOP("Terms", 'the NVIDIA driver is too old for GPU detection: update it'),  # probe.driver_too_old
    QT_TRANSLATE_NOOP("Terms", 'Found {n} NVIDIA GPUs'),  # probe.found_many
    QT_TRANSLATE_NOOP("Terms", 'Found 1 NVIDIA GPU'),  # probe.found_one
    QT_TRANSLATE_NOOP("Terms", 'using the card you entered by hand'),  # probe.hint_by_hand
    QT_TRANSLATE_NOOP("Terms", 'you can still enter your card by hand'),  # probe.hint_manual
    QT_TRANSLATE_NOOP("Terms", 'NVML library not found (no NVIDIA driver installed)'),  # probe.library_not_found
    QT_TRANSLATE_NOOP("Terms", 'GPU detection unavailable: the nvidia-ml-py package is not installed'),  # probe.no_binding
    QT_TRANSLATE_NOOP("Terms", 'No NVIDIA GPU found'),  # probe.no_gpu
    QT_TRANSLATE_NOOP("Terms", 'permission denied reading the GPU'),  # probe.no_permission
    QT_TRANSLATE_NOOP("Terms", 'the NVIDIA driver could not be queried ({detail})'),  # probe.query_failed
    QT_TRANSLATE_NOOP("Terms", '({n} skipped: see notes)'),  # probe.skipped
    QT_TRANSLATE_NOOP("Terms", 'the NVIDIA driver did not answer within {seconds:g} s'),  # probe.timeout
    QT_TRANSLATE_NOOP("Terms", 'unexpected error while reading the GPUs'),  # probe.unexpected
    QT_TRANSLATE_NOOP("Terms", 'driver/library version mismatch: reboot after a driver update'),  # probe.version_mismatch
    QT_TRANSLATE_NOOP("Terms", '{cause} — {hint}'),  # probe.with_hint
    QT_TRANSLATE_NOOP("Terms", 'the global batch grows from {old} to {new} sequences per optimizer step: each of the {n} GPUs needs at least one'),  # search.global_batch
    QT_TRANSLATE_NOOP("Terms", 'no setup of up to {max_gpus} GPUs fits with its whole likely range'),  # search.nothing_fits
    QT_TRANSLATE_NOOP("Terms", "{count} setups fit, but each is one its stack refuses to run as planned: see the plan's warnings"),  # search.nothing_runs
    QT_TRANSLATE_NOOP("Terms", '{count} setups fit, but none within the budget and time limit'),  # search.nothing_within
    QT_TRANSLATE_NOOP("Terms", 'no price for {gpu}: the cost is unknown'),  # search.unpriced
    QT_TRANSLATE_NOOP("Terms", 'Hugging Face Trainer runs the transformers modelling code, unfused kernels'),  # stack.axolotl.0
    QT_TRANSLATE_NOOP("Terms", "Trainer's default optimizer is adamw_torch_fused with PyTorch 2.8 or newer (adamw_torch before)"),  # stack.axolotl.1
    QT_TRANSLATE_NOOP("Terms", 'accelerate skips the FSDP gradient sync until the optimizer step (sync_each_batch=False)'),  # stack.axolotl.2
    QT_TRANSLATE_NOOP("Terms", 'accelerate wraps each decoder layer; embeddings and LM head stay in the root unit'),  # stack.axolotl.3
    QT_TRANSLATE_NOOP("Terms", 'PEFT upcasts the adapters to FP32 (autocast_adapter_dtype=True); Trainer runs them under BF16/FP16 autocast'),  # stack.axolotl.4
    QT_TRANSLATE_NOOP("Terms", "axolotl's default optimizer is adamw_torch_fused"),  # stack.axolotl.5
    QT_TRANSLATE_NOOP("Terms", 'after prepare_model_for_kbit_training axolotl casts embeddings, LM head and norms back to the training dtype'),  # stack.axolotl.6
    QT_TRANSLATE_NOOP("Terms", 'gradient_checkpointing is off by default'),  # stack.axolotl.7
    QT_TRANSLATE_NOOP("Terms", 'Cut Cross-Entropy and Liger are plugins you opt into'),  # stack.axolotl.8
    QT_TRANSLATE_NOOP("Terms", 'sample_packing and pad_to_sequence_len are off by default: each batch is padded to its longest sequence'),  # stack.axolotl.9
    QT_TRANSLATE_NOOP("Terms", 'Hugging Face Trainer runs the transformers modelling code, unfused kernels'),  # stack.hf-peft.0
    QT_TRANSLATE_NOOP("Terms", "Trainer's default optimizer is adamw_torch_fused with PyTorch 2.8 or newer (adamw_torch before)"),  # stack.hf-peft.1
    QT_TRANSLATE_NOOP("Terms", 'accelerate skips the FSDP gradient sync until the optimizer step (sync_each_batch=False)'),  # stack.hf-peft.2
    QT_TRANSLATE_NOOP("Terms", 'accelerate wraps each decoder layer; embeddings and LM head stay in the root unit'),  # stack.hf-peft.3
    QT_TRANSLATE_NOOP("Terms", 'PEFT upcasts the adapters to FP32 (autocast_adapter_dtype=True); Trainer runs them under BF16/FP16 autocast'),  # stack.hf-peft.4
    QT_TRANSLATE_NOOP("Terms", 'use_liger_kernel is off by default: the loss upcasts the full logits to FP32 (ForCausalLMLoss)'),  # stack.hf-peft.5
    QT_TRANSLATE_NOOP("Terms", 'gradient_checkpointing is off by default'),  # stack.hf-peft.6
    QT_TRANSLATE_NOOP("Terms", "PEFT's QLoRA recipe calls prepare_model_for_kbit_training, which casts every 16-bit parameter to FP32"),  # stack.hf-peft.7
    QT_TRANSLATE_NOOP("Terms", 'prepare_model_for_kbit_training turns gradient checkpointing on (use_gradient_checkpointing=True)'),  # stack.hf-peft.8
    QT_TRANSLATE_NOOP("Terms", 'the default precision for training is bf16-mixed: FP32 weights under autocast'),  # stack.litgpt.0
    QT_TRANSLATE_NOOP("Terms", 'quantisation refuses mixed precision: QLoRA runs bf16-true, adapters in bf16'),  # stack.litgpt.1
    QT_TRANSLATE_NOOP("Terms", 'gradient accumulation runs under fabric.no_backward_sync'),  # stack.litgpt.10
    QT_TRANSLATE_NOOP("Terms", 'FSDP2 shards each Block parameter by parameter, so frozen weights get no gradient; embeddings stay in the root'),  # stack.litgpt.11
    QT_TRANSLATE_NOOP("Terms", 'bitsandbytes precision keeps the unquantised weights in bf16'),  # stack.litgpt.2
    QT_TRANSLATE_NOOP("Terms", "the LM head runs in chunks of 128 tokens, but every chunk's logits are kept for backward"),  # stack.litgpt.3
    QT_TRANSLATE_NOOP("Terms", 'the default optimizer is torch.optim.AdamW'),  # stack.litgpt.4
    QT_TRANSLATE_NOOP("Terms", 'the SFT collate function pads each batch to its longest sequence'),  # stack.litgpt.5
    QT_TRANSLATE_NOOP("Terms", "LitGPT calls PyTorch's scaled_dot_product_attention"),  # stack.litgpt.6
    QT_TRANSLATE_NOOP("Terms", 'one GPU: the fine-tuning scripts do not checkpoint activations'),  # stack.litgpt.7
    QT_TRANSLATE_NOOP("Terms", 'several GPUs: LoRA shards with FSDP2 (fully_shard), full fine-tuning with FSDPStrategy'),  # stack.litgpt.8
    QT_TRANSLATE_NOOP("Terms", 'several GPUs: each Block is activation-checkpointed'),  # stack.litgpt.9
    QT_TRANSLATE_NOOP("Terms", 'Hugging Face Trainer runs the transformers modelling code, unfused kernels'),  # stack.llama-factory.0
    QT_TRANSLATE_NOOP("Terms", "Trainer's default optimizer is adamw_torch_fused with PyTorch 2.8 or newer (adamw_torch before)"),  # stack.llama-factory.1
    QT_TRANSLATE_NOOP("Terms", 'enable_liger_kernel is off by default'),  # stack.llama-factory.10
    QT_TRANSLATE_NOOP("Terms", 'packing is on only for stage pt; SFT pads each batch to its longest sequence'),  # stack.llama-factory.11
    QT_TRANSLATE_NOOP("Terms", "flash_attn: auto leaves transformers' default, SDPA"),  # stack.llama-factory.12
    QT_TRANSLATE_NOOP("Terms", 'accelerate skips the FSDP gradient sync until the optimizer step (sync_each_batch=False)'),  # stack.llama-factory.2
    QT_TRANSLATE_NOOP("Terms", 'accelerate wraps each decoder layer; embeddings and LM head stay in the root unit'),  # stack.llama-factory.3
    QT_TRANSLATE_NOOP("Terms", 'PEFT upcasts the adapters to FP32 (autocast_adapter_dtype=True); Trainer runs them under BF16/FP16 autocast'),  # stack.llama-factory.4
    QT_TRANSLATE_NOOP("Terms", 'its ZeRO-3 example config leaves reduce_bucket_size and stage3_prefetch_bucket_size "auto": the Trainer fills them from the hidden size'),  # stack.llama-factory.5
    QT_TRANSLATE_NOOP("Terms", 'trainable parameters are cast to FP32 unless pure_bf16, and PEFT gets autocast_adapter_dtype'),  # stack.llama-factory.6
    QT_TRANSLATE_NOOP("Terms", 'full fine-tuning casts the trainable parameters to FP32 unless pure_bf16'),  # stack.llama-factory.7
    QT_TRANSLATE_NOOP("Terms", 'no prepare_model_for_kbit_training; upcast_layernorm is off by default'),  # stack.llama-factory.8
    QT_TRANSLATE_NOOP("Terms", 'gradient checkpointing is on unless disable_gradient_checkpointing'),  # stack.llama-factory.9
    QT_TRANSLATE_NOOP("Terms", 'Hugging Face Trainer runs the transformers modelling code, unfused kernels'),  # stack.ms-swift.0
    QT_TRANSLATE_NOOP("Terms", "Trainer's default optimizer is adamw_torch_fused with PyTorch 2.8 or newer (adamw_torch before)"),  # stack.ms-swift.1
    QT_TRANSLATE_NOOP("Terms", 'use_liger_kernel is off by default'),  # stack.ms-swift.10
    QT_TRANSLATE_NOOP("Terms", 'packing and padding_free are off by default: each batch is padded to its longest sequence'),  # stack.ms-swift.11
    QT_TRANSLATE_NOOP("Terms", 'accelerate skips the FSDP gradient sync until the optimizer step (sync_each_batch=False)'),  # stack.ms-swift.2
    QT_TRANSLATE_NOOP("Terms", 'accelerate wraps each decoder layer; embeddings and LM head stay in the root unit'),  # stack.ms-swift.3
    QT_TRANSLATE_NOOP("Terms", 'PEFT upcasts the adapters to FP32 (autocast_adapter_dtype=True); Trainer runs them under BF16/FP16 autocast'),  # stack.ms-swift.4
    QT_TRANSLATE_NOOP("Terms", 'its ZeRO-3 config (--deepspeed zero3) leaves reduce_bucket_size and stage3_prefetch_bucket_size "auto": the Trainer fills them from the hidden size'),  # stack.ms-swift.5
    QT_TRANSLATE_NOOP("Terms", 'its ZeRO-2 config (--deepspeed zero2) sets reduce_bucket_size 2e8'),  # stack.ms-swift.6
    QT_TRANSLATE_NOOP("Terms", "lora_dtype is unset by default, so PEFT's FP32 upcast of the adapters stays"),  # stack.ms-swift.7
    QT_TRANSLATE_NOOP("Terms", 'ms-swift does not call prepare_model_for_kbit_training'),  # stack.ms-swift.8
    QT_TRANSLATE_NOOP("Terms", 'gradient_checkpointing is on by default'),  # stack.ms-swift.9
    QT_TRANSLATE_NOOP("Terms", 'FSDP reduce-scatters in every backward unless the loop wraps the accumulating micro-batches in no_sync()'),  # stack.pytorch.0
    QT_TRANSLATE_NOOP("Terms", 'the recipe builds the whole model, adapters included, in the configured dtype (bf16), without autocast'),  # stack.torchtune.0
    QT_TRANSLATE_NOOP("Terms", 'full fine-tuning trains the bf16 weights directly, no FP32 copy'),  # stack.torchtune.1
    QT_TRANSLATE_NOOP("Terms", 'QLoRA quantises the linear weights to NF4 and keeps the rest in bf16'),  # stack.torchtune.2
    QT_TRANSLATE_NOOP("Terms", 'the shipped configs use a chunked loss (LinearCrossEntropyLoss, CEWithChunkedOutputLoss)'),  # stack.torchtune.3
    QT_TRANSLATE_NOOP("Terms", 'the shipped configs use torch.optim.AdamW with fused: True'),  # stack.torchtune.4
    QT_TRANSLATE_NOOP("Terms", 'packed is off in the shipped configs; padded_collate_sft pads each batch to its longest sequence'),  # stack.torchtune.5
    QT_TRANSLATE_NOOP("Terms", "torchtune's attention calls PyTorch's scaled_dot_product_attention"),  # stack.torchtune.6
    QT_TRANSLATE_NOOP("Terms", 'the distributed recipes never skip the gradient sync: FSDP2 reduce-scatters after every micro-batch'),  # stack.torchtune.7
    QT_TRANSLATE_NOOP("Terms", 'LoRA configs shard the decoder layers; embeddings and output stay in the root'),  # stack.torchtune.8
    QT_TRANSLATE_NOOP("Terms", 'full fine-tuning configs shard embeddings and output as units of their own'),  # stack.torchtune.9
    QT_TRANSLATE_NOOP("Terms", 'Hugging Face Trainer runs the transformers modelling code, unfused kernels'),  # stack.trl.0
    QT_TRANSLATE_NOOP("Terms", "Trainer's default optimizer is adamw_torch_fused with PyTorch 2.8 or newer (adamw_torch before)"),  # stack.trl.1
    QT_TRANSLATE_NOOP("Terms", 'packing and padding_free are off: each batch is padded to its longest sequence'),  # stack.trl.10
    QT_TRANSLATE_NOOP("Terms", 'accelerate skips the FSDP gradient sync until the optimizer step (sync_each_batch=False)'),  # stack.trl.2
    QT_TRANSLATE_NOOP("Terms", 'accelerate wraps each decoder layer; embeddings and LM head stay in the root unit'),  # stack.trl.3
    QT_TRANSLATE_NOOP("Terms", 'PEFT upcasts the adapters to FP32 (autocast_adapter_dtype=True); Trainer runs them under BF16/FP16 autocast'),  # stack.trl.4
    QT_TRANSLATE_NOOP("Terms", "with DeepSpeed ZeRO-3 SFTTrainer keeps a 16-bit model's adapters in its dtype (autocast_adapter_dtype=False)"),  # stack.trl.5
    QT_TRANSLATE_NOOP("Terms", "SFTTrainer casts a quantised model's trainable adapter weights to BF16"),  # stack.trl.6
    QT_TRANSLATE_NOOP("Terms", 'SFTTrainer no longer calls prepare_model_for_kbit_training: the unquantised weights stay 16-bit'),  # stack.trl.7
    QT_TRANSLATE_NOOP("Terms", "TRL's configs turn gradient checkpointing on by default"),  # stack.trl.8
    QT_TRANSLATE_NOOP("Terms", 'the default loss_type chunked_nll computes the LM head and the cross-entropy in chunks of tokens'),  # stack.trl.9
    QT_TRANSLATE_NOOP("Terms", 'Unsloth replaces norms, RoPE, SwiGLU, LoRA and the loss with its own Triton kernels'),  # stack.unsloth.0
    QT_TRANSLATE_NOOP("Terms", 'the loss runs through unsloth_fused_ce_loss, never materialising the logits (UNSLOTH_RETURN_LOGITS=0)'),  # stack.unsloth.1
    QT_TRANSLATE_NOOP("Terms", "get_peft_model defaults to use_gradient_checkpointing='unsloth'"),  # stack.unsloth.2
    QT_TRANSLATE_NOOP("Terms", "Unsloth's gradient checkpointing offloads each layer's saved input to the CPU"),  # stack.unsloth.3
    QT_TRANSLATE_NOOP("Terms", 'Unsloth keeps the LoRA weights in FP32 for mixed precision'),  # stack.unsloth.4
    QT_TRANSLATE_NOOP("Terms", "Unsloth's prepare_model_for_kbit_training trains neither embeddings nor LM head and does not upcast them"),  # stack.unsloth.5
    QT_TRANSLATE_NOOP("Terms", 'calibrated from your run of {date}: time × {factor}'),  # time.calibrated
    QT_TRANSLATE_NOOP("Terms", 'your run of {date} was fitted to an earlier version of the time model and is not applied: import it again'),  # time.calibration_stale
    QT_TRANSLATE_NOOP("Terms", '{share} % of the step waits for collectives over {link}'),  # time.communication_bound
    QT_TRANSLATE_NOOP("Terms", 'the final evaluation generates {generated} tokens for each of {examples} held-out examples, {batches} batches of {rows} per GPU at {seconds} s each; the {passes} evaluations during training generate {during} tokens each (HF Seq2SeqTrainer.evaluate does not pass max_new_tokens to them): {hours} h in all'),  # time.eval_generation
    QT_TRANSLATE_NOOP("Terms", 'FP32 training: TF32 tensor rate taken as half the BF16 rate'),  # time.fp32
    QT_TRANSLATE_NOOP("Terms", 'memory-bound: weights and activations streamed from memory outlast the math; a larger micro-batch is faster'),  # time.memory_bound
    QT_TRANSLATE_NOOP("Terms", 'MFU override {mfu}: model FLOPs ÷ spec peak replaces the step model'),  # time.mfu_override
    QT_TRANSLATE_NOOP("Terms", 'layers split across {n} GPUs run one GPU at a time'),  # time.naive_model_parallel
    QT_TRANSLATE_NOOP("Terms", '{gpu} has no BF16: timed at its FP16 rate'),  # time.no_bf16
    QT_TRANSLATE_NOOP("Terms", '{share} % of the step waits for CPU offload over PCIe and the CPU optimizer'),  # time.offload_bound
    QT_TRANSLATE_NOOP("Terms", 'host-bound: the CPU launches kernels more slowly than the GPU runs them ({share} % of the step); a larger micro-batch or a compiled stack is faster'),  # time.overhead_bound
    QT_TRANSLATE_NOOP("Terms", 'paged optimizer states spill {gib} GiB to CPU RAM: read and written over PCIe at every optimizer step'),  # time.paged_spill
    QT_TRANSLATE_NOOP("Terms", 'dynamic padding over {gpus} GPUs: every step waits for the GPU with the longest micro-batch ({slowest_row:,} tokens per row, against {row:,} on average)'),  # time.slowest_rank
    QT_TRANSLATE_NOOP("Terms", 'padding-free batches over {gpus} GPUs: every step waits for the GPU whose examples sum to the most ({slowest_row:,} tokens per example, against {row:,} on average)'),  # time.slowest_rank_free
    QT_TRANSLATE_NOOP("Terms", 'examples of {tokens} tokens are truncated to seq_len {seq_len}'),  # time.truncated
    QT_TRANSLATE_NOOP("Terms", "a reference copy next to a LoRA/QLoRA policy: TRL's DPOTrainer and KTOTrainer use the policy with its adapters disabled as the reference and load no copy unless you pass ref_model; the copy is counted as planned"),  # workload.copy_with_adapters
    QT_TRANSLATE_NOOP("Terms", "KTO's KL term needs two or more examples per micro-batch: TRL's KTOTrainer refuses per_device_train_batch_size 1"),  # workload.kto_micro_batch
    QT_TRANSLATE_NOOP("Terms", "TRL's {trainer} pads every batch to its longest row (padding_free is disabled in DPOTrainer; the others have no packing): a packed plan is estimated as planned, but TRL will run it padded"),  # workload.packed_unavailable
    QT_TRANSLATE_NOOP("Terms", "TRL's {trainer} pads every batch to its longest row (padding_free is disabled in DPOTrainer; the others have no padding-free path): the plan is estimated with rows of the sequence length, as TRL runs them"),  # workload.padding_free_unavailable
    QT_TRANSLATE_NOOP("Terms", "TRL's Liger (fused) DPO and KTO losses refuse precomputed reference log-probs (the trainer raises ValueError): choose one of the two"),  # workload.precompute_fused
    QT_TRANSLATE_NOOP("Terms", "reference log-probs precomputed (precompute_ref_log_probs): TRL runs the reference over the training set once before training ({hours:.2f} h, in the plan's time) and holds no reference model during it"),  # workload.precomputed_pass
    QT_TRANSLATE_NOOP("Terms", '{workload} uses no reference model: the reference setting ({reference}) is ignored'),  # workload.reference_ignored
    QT_TRANSLATE_NOOP("Terms", 'a reward model has no vocabulary logits: fused cross-entropy changes nothing'),  # workload.reward_fused
    QT_TRANSLATE_NOOP("Terms", 'full fine-tuning has no frozen base to share: TRL loads a frozen copy of the model as the reference, which is what is counted'),  # workload.shared_full
    QT_TRANSLATE_NOOP("Terms", 'under ZeRO-{stage} TRL prepares the reference copy with ZeRO disabled (stage 0): every GPU holds all of it'),  # workload.zero_stage0_copy
    QT_TRANSLATE_NOOP("Terms", ' × {calibration} (calibrated from your run)'),  # calibration_suffix
)
