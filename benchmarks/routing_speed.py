"""Query-aware routing at AlpacaEval's scale: the whole mimicry table, and one contraction vs a per-query loop.

Run: PYTHONPATH=support .venv/bin/python benchmarks/routing_speed.py [--real]

The suite is AlpacaEval-shaped: 56 models x 805 instructions in 5 tasks, 384-d unit response vectors
(seeded; ``--real`` reads the chapter-64 pool from the embedding cache instead, which must be warm).
1. The mimicry table of the routing chapter: qa at 5 bandwidths x 5 seeds, CV (global and per
   query over its 9-fraction grid), the factorised qa and static, task, static, profile and the brackets.
   Budget: under 60 s and 2 GB peak memory on the book's 2-core machine.
2. Routing a batch of held-out queries: the batched contraction ``(Q x m) . (m x n^2)`` against a
   loop over queries that builds each query's geometry separately; both must give the same picks.
"""

from __future__ import annotations

import argparse
import resource
import time

import numpy as np

from dkps.routing.evaluation import PairedSuite, evaluate_seeds, mimicry_table, stratified_split
from dkps.routing.localization_bandwidth import median_anchor_distance
from dkps.routing.localized_geometry import localized_distances, query_sq_distances, rbf_weights
from dkps.routing.rules import nearest_for_all_targets


def synthetic_suite(n: int = 56, m: int = 805, d: int = 384, dq: int = 384, n_tasks: int = 5, seed: int = 0):
    """Unit vectors with a query part, a model part and a model x query part (roughly AlpacaEval's shares)."""
    rng = np.random.default_rng(seed)
    tasks = np.array([f"task_{j % n_tasks}" for j in range(m)], dtype=object)
    centres = rng.normal(size=(n_tasks, dq))
    U = centres[[int(t[-1]) for t in tasks]] + 1.5 * rng.normal(size=(m, dq))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    Qpart = rng.normal(size=(1, m, d)) * 2.0
    Mpart = rng.normal(size=(n, 1, d)) * 0.6
    X = Qpart + Mpart + rng.normal(size=(n, m, d))
    X /= np.linalg.norm(X, axis=2, keepdims=True)
    scores = rng.random((n, m))
    return PairedSuite(
        X=X, U=U, tasks=tasks, models=[f"model_{i:02d}" for i in range(n)],
        query_ids=np.array([f"q{j:04d}" for j in range(m)], dtype=object), scores=scores,
    )  # fmt: skip


def real_suite():
    from pathlib import Path

    from blindspot.book.claims import load_registry
    from blindspot.perspective import alpaca, pool_embedding, routing_study

    run = load_registry(Path(__file__).resolve().parents[1]).chapter("64_routing_behavioural_stand_in").run
    ae = alpaca.alpaca_eval_data(queries_per_task=run["pool_size"]["paper"])  # the chapter's pool (shared with 65)
    scored = ae.models.index[ae.models.n_scored > 0]
    rows = ae.responses[ae.responses.model_id.isin([m for m in scored if m not in routing_study.EXCLUDED])]
    records, rep = pool_embedding.embed_pool(rows.reset_index(drop=True), progress=False)
    if rep.cold:
        print(f"(embedded {rep.n_embedded} texts cold: the timing below excludes it)")
    return routing_study.suite_from_records(records)


def naive_picks(P_anchor: np.ndarray, W: np.ndarray) -> np.ndarray:
    """One query at a time: its weighted sum over anchors, its square root, its argmin per target."""
    Q, n = W.shape[0], P_anchor.shape[1]
    out = np.empty((Q, n), dtype=np.int64)
    for q in range(Q):
        w = W[q] / W[q].sum()
        D = np.sqrt(np.maximum(np.tensordot(w, P_anchor, axes=(0, 0)), 0.0))
        np.fill_diagonal(D, np.inf)
        out[q] = D.argmin(axis=1)
    return out


def main(real: bool = False, repeats: int = 3) -> None:
    t0 = time.perf_counter()
    suite = real_suite() if real else synthetic_suite()
    n, m, d = suite.X.shape
    print(f"suite: {n} models x {m} queries x {d} dims ({'cached AlpacaEval pool' if real else 'seeded'}); "
          f"P tensor {suite.P.nbytes / 2**20:.0f} MiB, built in {time.perf_counter() - t0:.1f} s")  # fmt: skip
    t0 = time.perf_counter()
    results = evaluate_seeds(suite, (0, 1, 2, 3, 4))
    t_table = time.perf_counter() - t0
    table = mimicry_table(results)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(table.round(4).to_string(index=False))
    print(f"mimicry table (5 bandwidths x 5 seeds + CV + baselines): {t_table:.1f} s (budget 60 s); "
          f"peak memory {peak:.0f} MiB (budget 2048)")  # fmt: skip
    sp = stratified_split(suite.tasks, 0.2, 0)
    Pa = suite.P[sp.anchor]
    W = rbf_weights(
        query_sq_distances(suite.U[sp.eval], suite.U[sp.anchor]), 0.25 * median_anchor_distance(suite.U[sp.anchor])
    )
    t_b, t_n = [], []
    for _ in range(repeats):  # interleaved, best of `repeats` (the machine may be shared)
        t0 = time.perf_counter()
        batched = nearest_for_all_targets(localized_distances(Pa, W))[0]
        t_b.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        naive = naive_picks(Pa, W)
        t_n.append(time.perf_counter() - t0)
    assert np.array_equal(batched, naive), "batched and per-query picks disagree"
    print(f"routing {W.shape[0]} queries x {n} targets: one contraction {min(t_b) * 1e3:.1f} ms, per-query loop "
          f"{min(t_n) * 1e3:.1f} ms, ratio {min(t_n) / min(t_b):.1f}x (best of {repeats}; identical picks)")  # fmt: skip


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--real", action="store_true", help="the cached AlpacaEval pool instead of the seeded suite")
    main(real=ap.parse_args().real)
