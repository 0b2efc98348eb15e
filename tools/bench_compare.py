#!/usr/bin/env python3
"""Time ``tuneplan.core.compare.compare_gpus`` over the bundled GPU catalog (not a test).

Usage: python tools/bench_compare.py [--repeat 20]

Prints the median and best wall time of one full comparison (every catalog GPU, largest
micro-batch search included) for a plan whose effective batch (64) lets the search run over the
whole 1..64 range, and for the default scenario. Target: < 50 ms for >= 35 GPUs.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tuneplan import catalog
from tuneplan.catalog.prices import default_price, spot_price
from tuneplan.core.compare import compare_gpus


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    gpus = catalog.list_gpus()
    prices = {}
    for gpu in gpus:
        od, sp = default_price(gpu.id), spot_price(gpu.id)
        prices[gpu.id] = (od.usd_per_gpu_hour if od else None, sp.usd_per_gpu_hour if sp else None)
    base = catalog.default_scenario()
    wide = base.model_copy(update={"training": base.training.model_copy(update={"micro_batch": 1, "grad_accumulation": 64})})
    for label, scenario in (("effective batch 64 (full 1..64 search)", wide), ("default scenario", base)):
        compare_gpus(scenario, gpus, prices)  # warm caches (catalog, imports)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            rows = compare_gpus(scenario, gpus, prices, budget_usd=20.0)
            times.append((time.perf_counter() - t0) * 1e3)
        fit = sum(r.fits for r in rows)
        print(f"{label}: {len(rows)} GPUs ({fit} fit), median {statistics.median(times):.1f} ms, "
              f"best {min(times):.1f} ms over {args.repeat} runs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
