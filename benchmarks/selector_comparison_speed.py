"""The selector comparison of chapter 21 on the largest suites, and batched ridge against a loop of RidgeCV fits.

Times :func:`blindspot.treat.selector_comparison.compare_selectors`, both regimes, under the chapter's protocol
(20 resampled splits, 20 random subsets per k, every k from 1 to K - 1) on the OLLM v2 dump (4,576 x 6) and
Extended (295 x 12); without a data directory, on synthetic tables of the same shapes. The baseline, in the same
run: the ridge fits of one split of Extended done one by one with scikit-learn's ``StandardScaler`` + ``RidgeCV``
(the reference the batched :func:`blindspot.treat.ridge_loo.ridge_loo` agrees with to 1e-9), timed on a sample of
the designs and scaled to all of them.

Usage: .venv/bin/python benchmarks/selector_comparison_speed.py [--n-splits 20] [--n-random 20] [--sample 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.linear_model import RidgeCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from blindspot import data
from blindspot.treat import selector_comparison as sc
from blindspot.treat.ridge_loo import ALPHAS, ridge_loo


def designs_of_one_split(X: np.ndarray, tr: np.ndarray, n_random: int, seed: int) -> list[np.ndarray]:
    """The k-subsets one split fits: the random ones of every k (as compare_selectors draws them) and 5 per k."""
    rng = np.random.default_rng(seed)
    K = X.shape[1]
    out = []
    for k in range(1, K):
        out += list(sc._random_subsets(K, k, n_random, rng)) + [np.arange(k)] * 5
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n-splits", type=int, default=20)
    ap.add_argument("--n-random", type=int, default=20)
    ap.add_argument("--sample", type=int, default=200, help="designs timed with the RidgeCV loop")
    args = ap.parse_args()
    print(f"{'suite':>14} {'shape':>10} {'regime':>14} {'seconds':>8}")
    total = 0.0
    for name in ("ollm_v2_full", "extended"):
        t = data.load_suite(name)
        for regime in sc.REGIMES:
            t0 = time.perf_counter()
            sc.compare_selectors(t, regime, n_splits=args.n_splits, n_random=args.n_random)
            dt = time.perf_counter() - t0
            total += dt
            shape = f"{t.n_models}x{t.n_benchmarks}"
            print(f"{name + (' (synthetic)' if t.synthetic else ''):>14} {shape:>10} {regime:>14} {dt:8.2f}")
    print(f"total {total:.2f} s for the two suites, both regimes")

    t = data.load_suite("extended")
    X = t.values
    (tr, te), *_ = sc.model_splits(t, "interpolation", 1)[0]
    subsets = designs_of_one_split(X, tr, args.n_random, 0)
    t0 = time.perf_counter()
    for k in range(1, X.shape[1]):
        S = np.array([s for s in subsets if len(s) == k])
        ridge_loo(X[tr][:, S].transpose(1, 0, 2), X[tr], X[te][:, S].transpose(1, 0, 2))
    batched = time.perf_counter() - t0
    sample = [subsets[i] for i in np.random.default_rng(1).choice(len(subsets), args.sample, replace=False)]
    t0 = time.perf_counter()
    for s in sample:
        make_pipeline(StandardScaler(), RidgeCV(alphas=ALPHAS, alpha_per_target=True)).fit(X[tr][:, s], X[tr]).predict(
            X[te][:, s]
        )
    loop = (time.perf_counter() - t0) * len(subsets) / args.sample
    print(
        f"one split of extended, {len(subsets)} designs: batched ridge_loo {batched:.3f} s, "
        f"RidgeCV loop {loop:.2f} s (from {args.sample}), ratio {loop / batched:.1f}x"
    )


if __name__ == "__main__":
    main()
