"""DeepSpeed ZeRO's buffers as a plan runs them: the reduce bucket, the ZeRO-3 prefetch bucket, sub-groups and
reuse distance (defaults, Hugging Face's ``"auto"`` fill, explicit sizes), and what ZeRO-3 keeps gathered."""

from __future__ import annotations

from dataclasses import dataclass

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.scenario import TrainingSetup

#: DeepSpeed ZeRO-1/2: elements of the gradient reduce ("IPG") bucket, ``zero_optimization.reduce_bucket_size``'s
#: default (``reduce_bucket_size: int = Field(pp_int(5e8))``, deepspeed/runtime/zero/config.py). Each backward
#: allocates it whole in the model's dtype (``torch.empty(int(self.reduce_bucket_size), dtype=self.dtype)``,
#: stage_1_and_2.py ``backward``), whatever the model's size; Hugging Face's ``"auto"`` fills hidden x hidden.
DEEPSPEED_REDUCE_BUCKET_ELEMENTS = 500_000_000

#: DeepSpeed ZeRO-3: the optimizer steps the fp32 partition in sub-groups of at most this many elements
#: (``sub_group_size: int = Field(pp_int(1e9))``, deepspeed/runtime/zero/config.py; stage3.py
#: ``_create_fp16_sub_groups``), so the step's fp32 gradient copy and the optimizer's temporaries cover one sub-group.
DEEPSPEED_SUB_GROUP_ELEMENTS = 1_000_000_000

#: DeepSpeed ZeRO-3's parameter coordinator keeps a gathered parameter when the module trace reaches its next use
#: within this many elements (``stage3_max_reuse_distance``, default ``pp_int(1e9)``, zero/config.py;
#: partitioned_param_coordinator.py ``__params_to_release``), and prefetches up to this many elements of upcoming
#: parameters (``stage3_prefetch_bucket_size``, default ``pp_int(5e7)``; whole parameters, so it may pass it by one).
DEEPSPEED_MAX_REUSE_DISTANCE = 1_000_000_000
DEEPSPEED_PREFETCH_ELEMENTS = 50_000_000

#: Hugging Face's ``"auto"`` fill of DeepSpeed's buffers from the hidden size h (transformers
#: integrations/deepspeed.py ``HfTrainerDeepSpeedConfig.trainer_config_finalize``): reduce bucket h x h elements,
#: ZeRO-3 prefetch bucket 0.9 x h x h (and persistence threshold 10 x h, below any weight matrix here).
HF_AUTO_REDUCE_PER_H2 = 1.0
HF_AUTO_PREFETCH_PER_H2 = 0.9


@dataclass(frozen=True)
class DeepSpeedBuffers:
    """DeepSpeed ZeRO buffer sizes a plan runs with, in elements: ``reduce`` (gradient reduce bucket), ``prefetch``
    (ZeRO-3 prefetch bucket), ``sub_group`` (ZeRO-3 optimizer sub-group; 0 = one parameter per group) and
    ``max_reuse`` (ZeRO-3 reuse distance). ``source`` per value: ``plan`` (set explicitly), ``hf-auto`` or
    ``deepspeed`` (its default)."""

    reduce: float
    prefetch: float
    sub_group: float
    max_reuse: float
    source: dict[str, str]


def deepspeed_buffers(arch: ModelArchitecture, t: TrainingSetup) -> DeepSpeedBuffers:
    """The plan's DeepSpeed buffer sizes (elements): its explicit ``deepspeed_*`` values, else Hugging Face's
    ``"auto"`` fill when ``deepspeed_auto_buckets`` (reduce ``h^2``, ZeRO-3 prefetch ``0.9 h^2``; sub-group and
    reuse distance have no auto fill), else DeepSpeed's defaults (:data:`DEEPSPEED_REDUCE_BUCKET_ELEMENTS` ...)."""
    h2 = float(arch.hidden_size) ** 2
    auto = t.deepspeed_auto_buckets
    source: dict[str, str] = {}

    def pick(key: str, explicit: float | None, default: float, auto_value: float | None = None) -> float:
        if explicit is not None:
            source[key] = "plan"
            return float(explicit)
        if auto and auto_value is not None:
            source[key] = "hf-auto"
            return auto_value
        source[key] = "deepspeed"
        return float(default)

    return DeepSpeedBuffers(
        reduce=pick("reduce", t.deepspeed_reduce_bucket, DEEPSPEED_REDUCE_BUCKET_ELEMENTS, HF_AUTO_REDUCE_PER_H2 * h2),
        prefetch=pick("prefetch", t.deepspeed_prefetch_bucket, DEEPSPEED_PREFETCH_ELEMENTS,
                      HF_AUTO_PREFETCH_PER_H2 * h2),
        sub_group=pick("sub_group", t.deepspeed_sub_group, DEEPSPEED_SUB_GROUP_ELEMENTS),
        max_reuse=pick("max_reuse", t.deepspeed_max_reuse_distance, DEEPSPEED_MAX_REUSE_DISTANCE),
        source=source,
    )


#: How a formula names where a DeepSpeed buffer size came from (:attr:`DeepSpeedBuffers.source`).
_DS_SOURCE = {"plan": ", as planned", "hf-auto": ", Hugging Face \"auto\": hidden x hidden", "deepspeed": " default"}



def _zero3_gathered_elements(arch: ModelArchitecture, ds: DeepSpeedBuffers | None = None,
                             head: float | None = None) -> float:
    """Parameter elements DeepSpeed ZeRO-3 holds gathered at the turn from forward to backward (elements, not bytes).

    DeepSpeed fetches each submodule's parameters before it runs and, once a trace of the step is recorded, releases
    them afterwards unless the trace reaches their next use within ``stage3_max_reuse_distance`` elements
    (partitioned_param_coordinator.py ``__params_to_release``, counting every module's parameters from the next step
    on). At the loss the LM head is used again at once (its backward), so it stays; layer ``L-1-k``'s next use lies
    behind the rest of the forward and the head twice (forward and backward) and as many layers again in the
    backward, ``2 (k x layer + head)`` elements, so the last layers stay while that is under the distance
    (``ds.max_reuse``, default :data:`DEEPSPEED_MAX_REUSE_DISTANCE`). The next layer's parameters arrive through the
    prefetch bucket (``ds.prefetch``, default :data:`DEEPSPEED_PREFETCH_ELEMENTS`, whole parameters: up to one weight
    matrix beyond it; nothing with a bucket of 0), never more than a layer. Parameters under ``stage3_param_persistence_threshold`` (1e5 elements: norms, biases) stay gathered for the
    whole run and are left out (a few MB).

    ``head``: the head's elements (default the LM head's, ``vocab x hidden``; a reward model's value head is
    ``hidden x 1``).

    Returns:
        elements gathered: head + retained layers + the prefetched next layer.
    """
    if head is None:
        head = arch.vocab_size * arch.hidden_size  # the LM head's weight (the embedding's when tied)
    layer = max(sum(m.params for m in mods) for _, mods in arch.linear_modules())
    largest_matrix = max(m.d_in * m.d_out for _, mods in arch.linear_modules() for m in mods)
    reuse = ds.max_reuse if ds is not None else DEEPSPEED_MAX_REUSE_DISTANCE
    prefetch = ds.prefetch if ds is not None else DEEPSPEED_PREFETCH_ELEMENTS
    retained = 0
    while retained < arch.num_layers and 2 * (retained * layer + head) < reuse:
        retained += 1
    upcoming = 0.0 if retained == arch.num_layers or prefetch <= 0 else min(layer, prefetch + largest_matrix)
    return head + retained * layer + upcoming
