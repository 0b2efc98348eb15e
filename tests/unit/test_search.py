"""search_setups: the cheapest (or fastest) setups that fit with their whole likely range (issue #19, part 4)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tuneplan import catalog
from tuneplan.cli_search import catalog_pricing, describe_setup
from tuneplan.core.estimate import estimate
from tuneplan.core.memory import CUDA_CONTEXT_BYTES, estimate_memory
from tuneplan.core.result import GIB
from tuneplan.core.search import model_states, search_setups, setup_scenario, states_lower_bound
from tuneplan.core.stacks import apply_stack

GPUS = {g.id: g for g in catalog.list_gpus()}


def _plan(model_id: str = "llama-3.1-8b", **training):
    s = catalog.default_scenario()
    m = catalog.get_model(model_id)
    return s.model_copy(update={"model": m.architecture, "model_id": m.id,
                                "training": s.training.model_copy(update=training)})


@pytest.fixture(scope="module")
def full_70b():
    """Llama 3.1 70B, full fine-tuning, global batch 16 (micro-batch 1 x accumulation 16), searched keeping the
    method: 70e9 parameters x (2 B weights + 2 B gradients + 8 B AdamW moments) = 840 GB of model states."""
    s = _plan("llama-3.1-70b", method="full", grad_accumulation=16)
    return s, search_setups(s, GPUS.values(), catalog_pricing(s), keep_method=True)


@pytest.fixture(scope="module")
def default_cheapest():
    s = catalog.default_scenario()
    return s, search_setups(s, GPUS.values(), catalog_pricing(s))


def _pricing(s, setup):
    return s.pricing if setup.gpu_id == s.gpu.id else catalog_pricing(s).get(setup.gpu_id)


def test_states_lower_bound_by_hand():
    w, g, o = 10 * GIB, 2 * GIB, 4 * GIB
    assert states_lower_bound(w, g, o, 1, "none") == 16 * GIB + CUDA_CONTEXT_BYTES
    assert states_lower_bound(w, g, o, 8, "ddp") == 16 * GIB + CUDA_CONTEXT_BYTES  # DDP replicates everything
    assert states_lower_bound(w, g, o, 4, "fsdp") == 4 * GIB + CUDA_CONTEXT_BYTES  # 16 GiB shared by 4
    assert states_lower_bound(w, g, o, 4, "zero2") == 4 * GIB + CUDA_CONTEXT_BYTES


@pytest.mark.parametrize("method", ["full", "lora", "qlora"])
@pytest.mark.parametrize("master", ["none", "fp32"])
def test_the_lower_bound_never_exceeds_the_ledger(method, master):
    # the bound skips GPU counts without an estimate: it must never skip a configuration that fits
    s = _plan(method=method, master_weights=master)
    w, g, o = model_states(s.model, s.training, s.gpu)
    for n in (1, 2, 8, 64):
        for sharding in (("none",) if n == 1 else ("ddp", "zero1", "zero2", "zero3", "fsdp")):
            t = s.training.model_copy(update={"num_gpus": n, "sharding": sharding})
            mem, _ = estimate_memory(s.model, t, s.gpu)
            assert states_lower_bound(w, g, o, n, sharding) <= mem.total_bytes, (n, sharding)


def test_a_70b_full_fine_tune_never_ranks_a_single_24_gb_card(full_70b):
    _, out = full_70b
    assert out.setups
    for x in out.setups:
        assert x.method == "full"
        assert not (x.num_gpus == 1 and x.gpu_memory_gib <= 24)
        # 840 GB of states need at least 840 / 192 GB (the largest card) > 4 GPUs
        assert x.num_gpus >= 8
        assert x.sharding in {"fsdp", "zero2", "ddp"}
    assert out.skipped_by_bound > 0  # one-, two- and four-GPU counts never reached the ledger


def test_every_setup_fits_with_its_whole_likely_range_and_costs_what_it_says(full_70b, default_cheapest):
    for s, out in (full_70b, default_cheapest):
        for x in out.setups:
            planned = setup_scenario(s, x, GPUS.get(x.gpu_id, s.gpu), _pricing(s, x))
            r = estimate(planned)
            assert r.memory.high_bytes <= r.memory.capacity_bytes
            assert r.memory.band_risk == "none" and r.memory.fits
            assert r.cost.total_usd == pytest.approx(x.usd)
            assert r.time.hours == pytest.approx(x.hours)
            assert planned.training.micro_batch * planned.training.grad_accumulation * planned.training.num_gpus \
                == x.global_batch


def test_the_cheapest_comes_first_and_costs_no_more_than_any_other(default_cheapest):
    _, out = default_cheapest
    costs = [x.usd for x in out.setups]
    assert len(costs) == 10 and None not in costs
    assert costs == sorted(costs)
    assert all(costs[0] <= c for c in costs)
    # one row per GPU type and method: a choice of setups, not ten sizes of one
    assert len({(x.gpu_id, x.method) for x in out.setups}) == len(out.setups)


def test_keep_method_keeps_lora(default_cheapest):
    s = catalog.default_scenario()
    s = s.model_copy(update={"training": s.training.model_copy(update={"method": "lora"})})
    out = search_setups(s, GPUS.values(), catalog_pricing(s), keep_method=True, max_gpus=8)
    assert out.setups and {x.method for x in out.setups} == {"lora"}
    assert all("training.method" not in x.changes for x in out.setups)
    # without it the default QLoRA plan is offered LoRA too (no dequantisation: faster where it fits)
    assert {x.method for x in default_cheapest[1].setups} == {"qlora", "lora"}


def test_a_lora_plan_is_never_made_a_full_fine_tune():
    s = _plan(method="lora")
    out = search_setups(s, GPUS.values(), catalog_pricing(s), max_gpus=8)
    assert out.setups and "full" not in {x.method for x in out.setups}


def test_max_gpus_one_keeps_one_gpu():
    s = catalog.default_scenario()
    out = search_setups(s, GPUS.values(), catalog_pricing(s), max_gpus=1)
    assert out.setups and all(x.num_gpus == 1 and x.sharding == "none" for x in out.setups)


def test_budget_and_time_limit(full_70b):
    s, unlimited = full_70b
    cheapest = unlimited.setups[0].usd
    budget = cheapest * 1.5
    out = search_setups(s, GPUS.values(), catalog_pricing(s), keep_method=True, budget_usd=budget, max_hours=3)
    assert out.setups and all(x.usd <= budget and x.hours <= 3 for x in out.setups)
    none = search_setups(s, GPUS.values(), catalog_pricing(s), keep_method=True, budget_usd=cheapest * 0.5)
    assert none.setups == [] and [n.code for n in none.notes] == ["search.nothing_within"]


def test_nothing_fits_says_so():
    # 70B full fine-tuning holds ~840 GB of states: no single card (192 GB at most) takes it
    s = _plan("llama-3.1-70b", method="full")
    out = search_setups(s, GPUS.values(), catalog_pricing(s), keep_method=True, max_gpus=1)
    assert out.setups == [] and out.working == 0
    assert [(n.code, n.params) for n in out.notes] == [("search.nothing_fits", {"max_gpus": 1})]


def test_a_70b_plan_that_may_change_method_is_offered_qlora_on_one_card(full_70b):
    # full fine-tuning needs 8+ GPUs; QLoRA holds 70e9 x ~0.52 B = ~36 GB of 4-bit weights: one large card, and
    # trains a 70B at a fraction of the cost of eight GPUs holding 840 GB of states
    s = _plan("llama-3.1-70b", method="full", grad_accumulation=16)
    out = search_setups(s, GPUS.values(), catalog_pricing(s), max_gpus=8)
    best = out.setups[0]
    assert best.method in {"qlora", "lora"} and best.changes["training.method"] == best.method
    assert best.usd < full_70b[1].setups[0].usd
    one = [x for x in out.setups if x.num_gpus == 1]
    assert one and all(x.method == "qlora" and x.gpu_memory_gib >= 48 for x in one)


def test_global_batch_kept_where_the_gpus_divide_it_and_grown_where_not():
    s = _plan(grad_accumulation=8)  # global batch 8
    out = search_setups(s, GPUS.values(), catalog_pricing(s), rank="time", limit=50)
    for x in out.setups:
        if x.num_gpus <= 8:
            assert x.global_batch == 8 and all(n.code == "search.unpriced" for n in x.notes)
        else:
            assert x.global_batch == x.num_gpus
            assert [(n.code, n.params) for n in x.notes if n.code == "search.global_batch"] == [
                ("search.global_batch", {"old": 8, "new": x.num_gpus, "n": x.num_gpus})]


def test_rank_time_puts_the_fastest_first(full_70b):
    s, _ = full_70b
    out = search_setups(s, GPUS.values(), catalog_pricing(s), keep_method=True, rank="time")
    minutes = [round(x.hours * 60) for x in out.setups]
    assert minutes == sorted(minutes)
    assert out.rank == "time"


def test_unpriced_gpus_rank_after_priced_ones_and_never_pass_a_budget():
    s = catalog.default_scenario()
    prices = catalog_pricing(s)
    del prices["h100_sxm"]
    out = search_setups(s, GPUS.values(), prices, max_gpus=1, limit=100)
    unpriced = [k for k, x in enumerate(out.setups) if x.usd is None]
    assert "h100_sxm" in {out.setups[k].gpu_id for k in unpriced}
    assert all(out.setups[k].gpu_id not in prices for k in unpriced)
    assert min(unpriced) > max(k for k, x in enumerate(out.setups) if x.usd is not None)
    assert all(out.setups[k].notes[0].code == "search.unpriced" for k in unpriced)
    budgeted = search_setups(s, GPUS.values(), prices, max_gpus=1, budget_usd=1e9, limit=100)
    assert all(x.gpu_id != "h100_sxm" for x in budgeted.setups)


def test_describe_names_the_gpus_and_the_changes():
    s = _plan("llama-3.1-70b", method="full", grad_accumulation=16)
    out = search_setups(s, GPUS.values(), catalog_pricing(s), keep_method=True)
    x = next(x for x in out.setups if x.sharding == "fsdp")
    assert describe_setup(x).startswith(f"{x.num_gpus}× {x.gpu_name} with FSDP")


def test_cli_cheapest_json_and_text():
    cmd = [sys.executable, "-m", "tuneplan", "cheapest", "--model", "llama-3.1-70b", "--method", "full",
           "--grad-accumulation", "16", "--keep-method", "--max-gpus", "8"]
    run = subprocess.run([*cmd, "--json"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["setups"] and data["rank"] == "cost"
    for row in data["setups"]:
        # 840 GB of states: eight of the largest cards, fully sharded
        assert row["method"] == "full" and row["num_gpus"] == 8 and row["sharding"] == "fsdp"
        assert row["high_gib"] <= row["capacity_gib"]
        assert row["description"].startswith("8× ")
    text = subprocess.run([*cmd, "--rank", "time"], capture_output=True, text=True, timeout=60)
    assert text.returncode == 0, text.stderr
    assert "The fastest setups" in text.stdout and " 1 " in text.stdout
    none = subprocess.run([*cmd[:-1], "1"], capture_output=True, text=True, timeout=60)
    assert none.returncode == 1 and "no setup of up to 1 GPUs fits" in none.stdout


def test_cli_search_imports_no_qt():
    code = ("import sys, io, contextlib; from tuneplan.__main__ import main\n"
            "with contextlib.redirect_stdout(io.StringIO()): rc = main(['search', '--max-gpus', '1', '--limit', '1'])\n"
            "assert rc == 0, rc; assert not [m for m in sys.modules if m.startswith('PySide6')]")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("model_id", ["llama-3.1-8b", "llama-3.1-70b"])
def test_rank_time_pruning_loses_nothing(model_id):
    # slower cards are skipped once ten leaders are known; with room for every setup nothing is skipped, and the
    # first ten must be the same
    s = _plan(model_id, method="full" if model_id.endswith("70b") else "qlora", grad_accumulation=4)
    pricing = catalog_pricing(s)
    pruned = search_setups(s, GPUS.values(), pricing, rank="time", max_gpus=16)
    every = search_setups(s, GPUS.values(), pricing, rank="time", max_gpus=16, limit=10_000)
    assert pruned.estimates < every.estimates
    key = [(x.gpu_id, x.method, x.num_gpus, round(x.hours * 60)) for x in pruned.setups]
    assert key == [(x.gpu_id, x.method, x.num_gpus, round(x.hours * 60)) for x in every.setups[:10]]


def test_only_the_card_you_own_is_billed_as_electricity():
    # a plan on your own RTX 3090 billed at $0.30/kWh: the search prices every other card as a rental offer
    s = catalog.default_scenario()
    s = s.model_copy(update={"gpu": GPUS["rtx3090"], "pricing": s.pricing.model_copy(
        update={"own_gpu": True, "electricity_usd_per_kwh": 0.3, "gpu_power_w": 350.0})})
    pricing = catalog_pricing(s)
    assert pricing["rtx3090"].own_gpu and pricing["rtx3090"].gpu_power_w == 350.0
    others = [p for gpu_id, p in pricing.items() if gpu_id != "rtx3090"]
    assert others and not any(p.own_gpu for p in others)
    result = search_setups(s, GPUS.values(), pricing)
    for setup in result.setups:
        if setup.gpu_id != "rtx3090":  # rented: at least its GPU-hours at the offer's price
            offer = pricing[setup.gpu_id].price_per_gpu_hour
            assert setup.usd >= offer * setup.num_gpus * setup.hours * 0.999


def test_the_plans_stack_sets_the_defaults_of_each_setup():
    # TRL casts the adapters of a quantised model to bf16 (a QLoRA default of the trl profile), PEFT keeps a LoRA
    # run's adapters in fp32 under autocast: a LoRA setup found from a TRL QLoRA plan has the LoRA default, and its
    # figures are those of the plan changed into it
    s = _plan(method="qlora")
    s = s.model_copy(update={"training": apply_stack(s.training, "trl")})
    assert s.training.adapter_precision == "model-dtype"
    result = search_setups(s, GPUS.values(), catalog_pricing(s))
    lora = [x for x in result.setups if x.method == "lora"]
    assert lora
    for setup in lora:
        assert setup.changes["training.adapter_precision"] == "fp32-autocast"
        r = estimate(setup_scenario(s, setup, GPUS[setup.gpu_id], _pricing(s, setup)))
        assert r.memory.total_bytes / GIB == pytest.approx(setup.total_gib, rel=1e-9)


def test_setups_the_stack_refuses_are_not_offered():
    # LoRA on modules the model does not have: PEFT raises, so no setup runs, whatever its memory (plan.lora_modules_none)
    s = catalog.default_scenario()
    s = s.model_copy(update={"training": s.training.model_copy(update={"method": "lora", "lora_modules": ("foo",)})})
    out = search_setups(s, [catalog.get_gpu("h100_sxm")], catalog_pricing(s), keep_method=True, max_gpus=2)
    assert out.setups == [] and [n.code for n in out.notes] == ["search.nothing_runs"]
    assert out.notes[0].params["count"] > 0
