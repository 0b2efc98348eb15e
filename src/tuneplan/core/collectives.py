"""Time of one NCCL collective: a latency that grows with the ranks and hops, plus the bytes over the bus bandwidth.

NCCL chooses, for every collective, the algorithm and protocol its own cost model predicts fastest, and that model
is public: ``src/graph/tuning.cc`` (``ncclTopoTuneModel`` and ``ncclTunerConstantsDefaults``, NVIDIA/nccl at
commit 5067397, 2026-06). This module evaluates the same model for the cases the step model plans:

* **ring** (all-gather, reduce-scatter, all-reduce) with ``s`` steps (``n - 1`` for all-gather and reduce-scatter,
  ``2(n - 1)`` for all-reduce), ``s_net`` of which cross a node boundary (``nodes - 1``, twice that for all-reduce):
  ``latency = base + (s - s_net) x max(hop_intra, net_overhead) + s_net x hop_net``, algorithm bandwidth
  ``bus x n / s``;
* **tree** all-reduce between nodes: ``latency = base + 2 x ((n_per_node - 1) x hop_intra + log2(nodes) x
  hop_net)``, algorithm bandwidth ``0.92 x bus / 2``;
* each with the three protocols: **Simple** (the bus bandwidth), **LL128** (92 %, only where the GPUs of a node
  talk over NVLink) and **LL** (half, capped by NCCL's LL ceiling),

and returns ``min over them of latency + bytes / algorithm bandwidth``. The bus bandwidth itself is the measured
large-message rate of the link (``steptime.link_bandwidth``); small messages are latency-bound: a 16 MB all-gather
over 128 A100s on 16 nodes costs 0.29 ms of latency against 0.17 ms of transfer.

Not modelled: NVLink SHARP (NVLS), CollNet and PAT algorithms (NVSwitch-3 systems, SHARP switches, one GPU per node),
NCCL's per-channel bandwidth caps, and the tuner plugins clusters may install.
"""

from __future__ import annotations

import math

#: NCCL source for every constant below.
NCCL_TUNING = "NVIDIA/nccl src/graph/tuning.cc @5067397 (ncclTunerConstantsDefaults, ncclTopoTuneModel)"

#: Protocols in NCCL's order.
PROTOCOLS = ("ll", "ll128", "simple")
#: Base latency (µs) of an algorithm, per protocol (``baseLatencies``).
BASE_LATENCY_US = {"ring": (6.6, 14.0, 8.4), "tree": (6.8, 14.0, 8.4)}
#: Latency of one hop (µs) by link class, algorithm and protocol (``hwLatencies``).
HOP_LATENCY_US = {
    "nvlink": {"ring": (0.6, 1.9, 3.4), "tree": (0.6, 1.25, 4.0)},
    "pci": {"ring": (1.0, 2.5, 5.7), "tree": (1.0, 1.9, 4.0)},
    "net": {"ring": (2.7, 4.0, 14.0), "tree": (5.0, 8.5, 14.0)},
}
#: Host overhead per network step of a ring (µs) on x86 Intel hosts (``getNetOverhead``), x3 for Simple.
NET_OVERHEAD_US = 1.0
#: LL protocol's bus-bandwidth ceiling (GB/s, ``llMaxBws``): inside one node by GPU generation; between nodes by
#: the host CPU (the Intel row) for 2 and for more nodes.
LL_MAX_GBPS_NODE = {"volta": 39.0, "ampere": 87.7, "hopper": 141.0, "blackwell": 282.0}
LL_MAX_GBPS_NET = (39.0, 20.4)
#: LL128 moves 120 of every 128 bytes as payload: 0.92 of the bus bandwidth; LL half of it (ring).
LL128_SHARE = 0.92
LL_RING_SHARE = 0.5
#: Tree all-reduce: 0.92 of the bus bandwidth, LL at 1/3.8 of that; its algorithm bandwidth is half the bus rate.
TREE_SHARE = 0.92
TREE_LL_SHARE = 1.0 / 3.8


def generation(compute_capability: float) -> str:
    """NCCL's GPU generation class for its LL ceiling: ``volta`` (< 8.0), ``ampere``, ``hopper`` (9.x),
    ``blackwell`` (10.0 and later)."""
    if compute_capability >= 10.0:
        return "blackwell"
    if compute_capability >= 9.0:
        return "hopper"
    if compute_capability >= 8.0:
        return "ampere"
    return "volta"


def collective_seconds(op: str, nbytes: float, ranks: int, bus_bandwidth: float, *, intra: str = "nvlink",
                       ranks_per_node: int = 8, gpu_generation: str = "ampere") -> float:
    """Seconds of one collective as NCCL's cost model predicts it (module docstring).

    Args:
        op: ``all_gather``, ``reduce_scatter`` or ``all_reduce``.
        nbytes: the collective's buffer (bytes): the gathered output, the reduce-scatter input, the all-reduce buffer.
        ranks: GPUs in the communicator.
        bus_bandwidth: the link's large-message bus bandwidth per GPU (B/s).
        intra: ``nvlink`` or ``pci``: how the GPUs of one node reach each other (LL128 needs NVLink).
        ranks_per_node: GPUs per node; ``ranks`` beyond it span nodes.
        gpu_generation: :func:`generation` of the card.

    Returns:
        Seconds; 0 for one rank or no bytes.

    Raises:
        ValueError: for an unknown ``op`` or ``intra``, or a bus bandwidth that is not positive.
    """
    if op not in {"all_gather", "reduce_scatter", "all_reduce"}:
        raise ValueError(f"unknown collective {op!r}")
    if intra not in {"nvlink", "pci"}:
        raise ValueError(f"unknown intra-node link {intra!r}")
    if bus_bandwidth <= 0:
        raise ValueError("bus bandwidth must be positive")
    n = int(ranks)
    if n <= 1 or nbytes <= 0:
        return 0.0
    per_node = max(1, min(int(ranks_per_node), n))
    nodes = math.ceil(n / per_node)
    all_reduce = op == "all_reduce"
    steps = 2 * (n - 1) if all_reduce else n - 1
    net_steps = 0 if nodes == 1 else (2 * (nodes - 1) if all_reduce else nodes - 1)
    if nodes == 1:
        ll_max = LL_MAX_GBPS_NODE.get(gpu_generation, LL_MAX_GBPS_NODE["ampere"]) * 1e9
    else:
        ll_max = LL_MAX_GBPS_NET[0 if nodes == 2 else 1] * 1e9
    best = math.inf
    for i, proto in enumerate(PROTOCOLS):
        if proto == "ll128" and intra != "nvlink":
            continue
        # ring
        hop = HOP_LATENCY_US[intra]["ring"][i]
        if nodes > 1:
            hop = max(hop, NET_OVERHEAD_US * (3.0 if proto == "simple" else 1.0))
        lat = BASE_LATENCY_US["ring"][i] + (steps - net_steps) * hop + net_steps * HOP_LATENCY_US["net"]["ring"][i]
        bus = {"ll": min(ll_max, bus_bandwidth * LL_RING_SHARE), "ll128": bus_bandwidth * LL128_SHARE,
               "simple": bus_bandwidth}[proto]
        best = min(best, lat * 1e-6 + nbytes * steps / n / bus)
        # tree (all-reduce between nodes)
        if all_reduce and nodes > 1:
            lat = BASE_LATENCY_US["tree"][i] + 2 * ((per_node - 1) * HOP_LATENCY_US[intra]["tree"][i]
                                                    + math.floor(math.log2(nodes)) * HOP_LATENCY_US["net"]["tree"][i])
            tree_bus = bus_bandwidth * TREE_SHARE
            tree_bus = {"ll": min(tree_bus * TREE_LL_SHARE, ll_max), "ll128": tree_bus * 120.0 / 128.0,
                        "simple": tree_bus}[proto]
            best = min(best, lat * 1e-6 + nbytes / (tree_bus * 0.5))
    return best
