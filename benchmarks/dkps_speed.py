"""Speed of dkps.PKPS under competing load (issue 13, item 5). A script, not a test.

For two sizes (80 models x 16 tasks x 8 queries, d_obs 20; 164 x 46 x 32, d_obs 64; obs_prob 0.6,
the README quick-start call), times ``fit`` (all models but the last), ``update`` (the last model)
and ``predict()`` (every unobserved cell), each ``--runs`` times after ``--warmup`` untimed runs (the first call pays for lazy imports),
while a busy loop keeps the other
core occupied. Two settings run side by side:

- ``1 BLAS thread``: dkps's default (``dkps.threads.BLAS_THREADS = 1``);
- ``BLAS default``: the baseline, the BLAS library's own thread count (one per core).

It prints min / median / max and max/min per call; the claim is max within 1.5x of min with one
thread, and the large fit under 5 s.

    python benchmarks/dkps_speed.py [--runs 5] [--warmup 1] [--sizes small large] [--no-busy]
"""

from __future__ import annotations

import argparse
import copy
import multiprocessing as mp
import os
import time

import numpy as np
from threadpoolctl import threadpool_info

import dkps.threads
from dkps import PKPS, generate_benchmark_data
from dkps.synthetic import score_records

SIZES = {"small": (80, 16, 8, 20), "large": (164, 46, 32, 64)}


def _spin() -> None:
    while True:
        pass


def _records(n_models: int, n_tasks: int, n_queries: int, d_obs: int):
    bd = generate_benchmark_data(
        d_latent=5,
        d_obs=d_obs,
        n_models=n_models,
        n_tasks=n_tasks,
        n_queries_per_task=n_queries,
        obs_prob=0.6,
        random_state=0,
    )
    data = score_records(bd)
    last = data.model_id.iloc[-1]
    return data[data.model_id != last], data[data.model_id == last]


def _time(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _bench(base, new, runs: int, warmup: int) -> dict:
    out = {"fit": [], "update": [], "predict": []}
    for _ in range(warmup):  # untimed: first calls pay for lazy imports and page faults
        est = PKPS().fit(base)
        copy.deepcopy(est).update(new)
        est.predict()
    for _ in range(runs):
        holder = {}
        out["fit"].append(_time(lambda: holder.setdefault("est", PKPS().fit(base))))
        est = holder["est"]
        fresh = copy.deepcopy(est)
        out["update"].append(_time(lambda: fresh.update(new)))
        out["predict"].append(_time(est.predict))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs before the timed ones")
    ap.add_argument("--no-busy", action="store_true", help="no busy loop on the other core")
    args = ap.parse_args()

    blas = [(d["internal_api"], d["num_threads"]) for d in threadpool_info() if d["user_api"] == "blas"]
    print(f"BLAS: {blas}; {os.cpu_count()} cores; load average before: {os.getloadavg()[0]:.1f}")
    busy = None
    if not args.no_busy:
        busy = mp.get_context("fork").Process(target=_spin, daemon=True)
        busy.start()
        print("a busy loop occupies one core for the whole run")
    rows = []
    try:
        for size in args.sizes:
            n, T, q, d = SIZES[size]
            base, new = _records(n, T, q, d)
            print(f"\n{n} x {T} x {q} (d_obs {d}): fit on {len(base)} rows, update with {len(new)} rows")
            for label, threads in (("1 BLAS thread", 1), ("BLAS default", None)):
                dkps.threads.BLAS_THREADS = threads
                res = _bench(base, new, args.runs, args.warmup)
                for call, ts in res.items():
                    ts = np.array(ts)
                    rows.append((f"{n}x{T}x{q}", call, label, ts.min(), np.median(ts), ts.max()))
    finally:
        dkps.threads.BLAS_THREADS = 1
        if busy is not None:
            busy.terminate()
    print(f"\n{'size':<10} {'call':<8} {'setting':<14} {'min s':>8} {'median s':>9} {'max s':>8} {'max/min':>8}")
    for size, call, label, lo, med, hi in rows:
        print(f"{size:<10} {call:<8} {label:<14} {lo:8.3f} {med:9.3f} {hi:8.3f} {hi / lo:8.2f}")
    print(f"\nload average after: {os.getloadavg()[0]:.1f} (the machine may be shared: other jobs add noise)")


if __name__ == "__main__":
    main()
