"""The whole offloading gate sweep at AlpacaEval scale: time and peak memory, vectorised vs loop.

Run: PYTHONPATH=support .venv/bin/python benchmarks/offload_speed.py [--seeds 10] [--real]

The suite is the chapter's protocol size with embeddings already in memory (what a cached build
has): 56 models x 795 queries, 384-d unit response and query vectors, 5 tasks, per-response scores
(a seeded synthetic suite by default; ``--real`` reads the AlpacaEval pool of the chapter from the
embedding cache, ``DKPS_CACHE_DIR``, and fails if a vector is missing rather than embed cold).
Timed: every seed's split, flagship, policies and ladder over the four pools
(``collect_decisions``), then the gate sweep over all eps (3 quantiles), alpha (3), rules (2),
methods (13) and seeds (``gate_sweep``: one sort per (seed, pool, method)), against the same sweep
as a loop of ``evaluate_gate`` calls (the baseline, which re-sorts per cell; it must give the same
volumes). The target: decisions + sweep under 30 s, peak memory under 2 GB. The machine is shared:
the load average is printed with the times; quote them as provisional on a loaded machine.
"""

from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

from dkps.routing.gate import evaluate_gate, required_calibration_size
from dkps.routing.offload import PairedSuite
from dkps.routing.offload_study import collect_decisions, gate_sweep


def synthetic_suite(seed: int = 0, n_models: int = 56, n_queries: int = 795, d: int = 384) -> PairedSuite:
    rng = np.random.default_rng(seed)
    sizes = [1, 2, 3, 7, 8, 9, 13, 33, 70]
    names = [f"m{i:02d}-{sizes[i % len(sizes)]}b" for i in range(n_models - 8)] + [f"api-{i}" for i in range(8)]
    models = tuple(sorted(names))
    tasks = np.array([f"t{j % 5}" for j in range(n_queries)], dtype=object)
    U = rng.normal(size=(n_queries, d)) + 3 * rng.normal(size=(5, d))[[int(t[1]) for t in tasks]]
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    base = rng.normal(size=(n_queries, d))
    X = base[None] + rng.gamma(2.0, 0.5, size=(n_models, 1, 1)) * rng.normal(size=(n_models, n_queries, d))
    X /= np.linalg.norm(X, axis=2, keepdims=True)
    S = rng.uniform(size=(n_models, n_queries))
    return PairedSuite(models, X, U, tasks, np.arange(n_queries).astype(str), S)


def real_suite() -> PairedSuite:
    # the chapter's full pool from the cache; import here: blindspot is not part of dkps
    from blindspot.perspective.offloading import load_offload_suite

    return load_offload_suite(pool_size=252, provider="sentence-transformers").suite


def loop_sweep(dec, alphas=(0.05, 0.10, 0.20), rules=("emp", "ucb"), min_prefix=20):
    fr = dec.frame
    vols = []
    for (seed, pool, _family, _method), g in fr.groupby(["seed", "pool", "family", "method"], sort=False):
        cal, ev = g[g.split == "cal"], g[g.split == "eval"]
        for e in dec.eps[(dec.eps.seed == seed) & (dec.eps.pool == pool)].eps:
            for rule in rules:
                for a in alphas:
                    if cal.shape[0] < required_calibration_size(a, rule, 0.10, min_prefix):
                        continue
                    rep = evaluate_gate(
                        cal.conf, cal.dev, ev.conf, ev.dev, e, a, rule=rule, min_prefix=min_prefix, seed=int(seed),
                        cal_ids=cal["query"].to_numpy(), eval_ids=ev["query"].to_numpy(),
                        score_sub=ev.s_sub, score_flag=ev.s_flag,
                    )  # fmt: skip
                    vols.append(rep.volume)
    return np.array(vols)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--real", action="store_true")
    args = ap.parse_args()
    suite = real_suite() if args.real else synthetic_suite()
    n_eval, n_cal = round(0.25 * suite.n_queries), round(0.25 * suite.n_queries)
    print(f"suite: {suite.n_models} models x {suite.n_queries} queries, d = {suite.X.shape[2]}; load {os.getloadavg()}")
    t0 = time.perf_counter()
    dec = collect_decisions(suite, range(args.seeds), n_eval=n_eval, n_cal_a=n_cal // 2, n_cal_b=n_cal - n_cal // 2)
    t1 = time.perf_counter()
    gates = gate_sweep(dec)
    t2 = time.perf_counter()
    vols = loop_sweep(dec)
    t3 = time.perf_counter()
    ok = gates[gates.feasible]
    same = np.allclose(np.sort(ok.volume.to_numpy()), np.sort(vols))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2
    print(f"decisions (10 seeds x 4 pools, every policy and estimator): {t1 - t0:.1f} s")
    print(f"gate sweep, vectorised ({len(ok)} cells): {t2 - t1:.1f} s; as a loop of evaluate_gate: {t3 - t2:.1f} s")
    print(f"decisions + sweep: {t2 - t0:.1f} s (target < 30 s); same volumes as the loop: {same}")
    print(f"peak memory: {peak:.2f} GB (target < 2 GB); load {os.getloadavg()}")


if __name__ == "__main__":
    main()
