"""#17 item 3: a trainer that empties PyTorch's CUDA cache (HF ``torch_empty_cache_steps``; transformers
``Trainer.training_step``: ``torch.cuda.empty_cache()`` when ``global_step % torch_empty_cache_steps == 0``).

Under dynamic padding ``max_memory_reserved`` shows, besides the step's own blocks, the cached blocks of earlier,
shorter batch shapes: one stale set of the step's transient memory for LoRA (``DYNAMIC_SHAPE_CACHE``, from the
allocator replays in docs/validation-allocator.md), as far as the card has room. Emptied every step, none stays;
emptied every few steps, the one set the term counts is there between the calls.
"""

from __future__ import annotations

import subprocess
import sys

from tuneplan import catalog
from tuneplan.core.config_export import export_config
from tuneplan.core.estimate import estimate
from tuneplan.core.training_config import map_training_config


def memory(**training):
    s = catalog.default_scenario()
    t = s.training.model_copy(update={"method": "lora", "sequence_mode": "dynamic", **training})
    return estimate(s.model_copy(update={"training": t})).memory


def test_emptied_every_step_no_cache_of_earlier_shapes_is_reserved():
    never, every, four = memory(), memory(empty_cache_steps=1), memory(empty_cache_steps=4)
    assert never.cache_bytes > 0 and every.cache_bytes == 0
    assert four.cache_bytes == never.cache_bytes  # between two calls the one stale set is back
    assert every.peak_reserved_bytes == never.peak_reserved_bytes - never.cache_bytes
    assert every.total_bytes == never.total_bytes  # the cache is given back before an OOM: never in what must fit


def test_packed_rows_have_no_such_cache_either_way():
    assert memory(sequence_mode="packed").cache_bytes == memory(sequence_mode="packed", empty_cache_steps=1).cache_bytes == 0


def test_imported_and_exported_as_torch_empty_cache_steps():
    r = map_training_config({"per_device_train_batch_size": 2, "torch_empty_cache_steps": 1, "output_dir": "o"}, "hf")
    assert r.updates["training.empty_cache_steps"] == 1
    s = catalog.default_scenario()
    s = s.model_copy(update={"training": s.training.model_copy(update={"empty_cache_steps": 1,
                                                                        "sequence_mode": "dynamic"})})
    assert export_config(s, "trl").document["torch_empty_cache_steps"] == 1
    assert export_config(s, "llama-factory").document["torch_empty_cache_steps"] == 1
    tt = export_config(s, "torchtune")
    assert any(n.params.get("field") == "training.empty_cache_steps" for n in tt.notes)


def test_cli_flag():
    run = [sys.executable, "-m", "tuneplan", "estimate", "--method", "lora", "--sequence-mode", "dynamic"]
    out = subprocess.run([*run, "--empty-cache-steps", "1", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    import json

    assert json.loads(out.stdout)[0]["memory"]["cache_bytes"] == 0
    bad = subprocess.run([*run, "--empty-cache-steps", "-1"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
