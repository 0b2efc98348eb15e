"""NCCL's collective cost model (core/collectives.py) against hand calculations from its constants.

Constants: NVIDIA/nccl src/graph/tuning.cc @5067397, ``ncclTunerConstantsDefaults``: ring base latency LL 6.6,
LL128 14.0, Simple 8.4 us; tree 6.8 / 14.0 / 8.4; per-hop ring NVLink 0.6 / 1.9 / 3.4, PCI 1.0 / 2.5 / 5.7,
network 2.7 / 4.0 / 14.0; tree NVLink 0.6 / 1.25 / 4.0, network 5.0 / 8.5 / 14; 1 us host overhead per network
step (x3 for Simple); LL capped at 87.7 GB/s on one Ampere node and 20.4 GB/s over more than two (Intel) nodes.
"""

from __future__ import annotations

import pytest

from tuneplan.core.architecture import ModelArchitecture
from tuneplan.core.collectives import collective_seconds, generation
from tuneplan.core.scenario import GpuSpec, TrainingSetup
from tuneplan.core.steptime import step_time


def test_small_all_gather_across_nodes_is_latency_bound():
    # 16 MB over 128 A100s on 16 nodes (100 GB/s bus): 127 steps, 15 of them between nodes
    nbytes, bus, share = 16e6, 100e9, 127 / 128
    ll128 = (14.0 + 112 * 1.9 + 15 * 4.0) * 1e-6 + nbytes * share / (0.92 * bus)  # 286.8 us + 172 us
    ll = (6.6 + 112 * 1.0 + 15 * 2.7) * 1e-6 + nbytes * share / 20.4e9  # hop raised to the 1 us net overhead
    simple = (8.4 + 112 * 3.4 + 15 * 14.0) * 1e-6 + nbytes * share / bus
    assert min(ll128, ll, simple) == ll128
    got = collective_seconds("all_gather", nbytes, 128, bus, intra="nvlink", gpu_generation="ampere")
    assert got == pytest.approx(ll128)
    assert got == pytest.approx(0.000459, rel=0.01)  # the module docstring's figure


def test_large_all_gather_in_one_node_is_bandwidth_bound():
    # 1 GB over 8 NVLink GPUs at 240 GB/s: Simple, 8.4 + 7 x 3.4 us latency beside 3.65 ms of transfer
    nbytes, bus = 1e9, 240e9
    simple = (8.4 + 7 * 3.4) * 1e-6 + nbytes * 7 / 8 / bus
    assert collective_seconds("all_gather", nbytes, 8, bus, intra="nvlink") == pytest.approx(simple)


def test_no_ll128_without_nvlink():
    # 4 MB reduce-scatter over 4 PCIe GPUs (20 GB/s): LL128 would be (14 + 3 x 2.5) us + bytes / (0.92 x bus) =
    # 0.184 ms, but NCCL enables it only over NVLink; LL and Simple remain
    nbytes, bus = 4e6, 20e9
    ll = (6.6 + 3 * 1.0) * 1e-6 + nbytes * 3 / 4 / min(87.7e9, 0.5 * bus)
    simple = (8.4 + 3 * 5.7) * 1e-6 + nbytes * 3 / 4 / bus
    assert collective_seconds("reduce_scatter", nbytes, 4, bus, intra="pci") == pytest.approx(min(ll, simple))


def test_small_all_reduce_between_nodes_takes_the_tree():
    # 8 B over 16 nodes x 8: the ring's 254 steps cost (6.6 + 224 x 1.0 + 30 x 2.7) = 311.6 us with LL; the tree
    # 6.8 + 2 x (7 x 0.6 + log2(16) x 5.0) = 55.2 us
    tree = (6.8 + 2 * (7 * 0.6 + 4 * 5.0)) * 1e-6
    got = collective_seconds("all_reduce", 8.0, 128, 100e9, intra="nvlink")
    assert got == pytest.approx(tree, rel=1e-3)
    # in one node there is no tree: the ring, 14 steps at LL's 0.6 us
    assert collective_seconds("all_reduce", 8.0, 8, 240e9) == pytest.approx((6.6 + 14 * 0.6) * 1e-6, rel=1e-3)


def test_latency_grows_with_the_ranks():
    one_node = collective_seconds("all_gather", 1e6, 8, 100e9)
    many = collective_seconds("all_gather", 1e6, 512, 100e9)
    assert many > 10 * one_node


def test_bad_arguments():
    assert collective_seconds("all_gather", 1e6, 1, 100e9) == 0.0
    assert collective_seconds("all_gather", 0.0, 8, 100e9) == 0.0
    with pytest.raises(ValueError):
        collective_seconds("broadcast", 1e6, 8, 100e9)
    with pytest.raises(ValueError):
        collective_seconds("all_gather", 1e6, 8, 100e9, intra="ethernet")
    with pytest.raises(ValueError):
        collective_seconds("all_gather", 1e6, 8, 0.0)


def test_generations():
    assert [generation(cc) for cc in (7.0, 8.6, 9.0, 10.0, 12.0)] == ["volta", "ampere", "hopper", "blackwell",
                                                                       "blackwell"]


ARCH = ModelArchitecture(name="tiny", hidden_size=1024, num_layers=2, num_attention_heads=8, num_kv_heads=8,
                         head_dim=128, intermediate_size=4096, vocab_size=32000)
GPU = GpuSpec(id="card", name="Card", memory_gib=80, bf16_tflops=120, measured_bf16_tflops=100,
              memory_bandwidth_gbps=1000, segment="datacenter", compute_capability=8.0, sm_count=0,
              interconnect="NVLink 3 (NVSwitch)", p2p_link_gbps=600)


def test_zero3_gathers_once_per_module_fsdp_once_per_layer():
    base = dict(method="full", micro_batch=1, seq_len=128, num_gpus=8, grad_checkpointing=False,
                framework="optimized")
    # ZeRO-3: per pass one all-gather per weight matrix (q, k, v, o, gate, up, down in 2 layers = 14) plus the
    # embedding and the untied LM head = 16, twice per micro-batch (forward, backward), and one reduce-scatter
    # per reduce bucket (the 2 x 1024 x ... gradients fit DeepSpeed's default 5e8 elements: 1)
    z3 = step_time(ARCH, TrainingSetup(sharding="zero3", **base), GPU, 128.0).term("communication")
    assert z3.part("collectives") == 2 * 16 + 1
    # FSDP: one flat unit per layer and the root (3), gathered twice and reduce-scattered once
    fsdp = step_time(ARCH, TrainingSetup(sharding="fsdp", **base), GPU, 128.0).term("communication")
    assert fsdp.part("collectives") == 3 * 3
    assert fsdp.part("latency") < z3.part("latency")


def test_ddp_buckets():
    # full fine-tune of ~0.1B parameters in bf16 gradients: a 1 MiB first bucket, then 25 MiB buckets
    t = TrainingSetup(method="full", micro_batch=1, seq_len=128, num_gpus=8, sharding="ddp",
                      grad_checkpointing=False, framework="optimized")
    comm = step_time(ARCH, t, GPU, 128.0).term("communication")
    grads = ARCH.parameter_count() * 2
    rest = grads - 2**20
    expected = 1 + rest // (25 * 2**20) + (1 if rest % (25 * 2**20) else 0)
    assert comm.part("collectives") == expected
