"""Exact vs Monte Carlo pairwise swap probability of the chi-squared model (Corollary 1(b)).

For each (Delta, d, D): the exact P(Y_j - Y_i > Delta), Y ~ chi2_{D-d} (one quad integral,
blindspot.core.swap.p_swap_pair), its Gil-Pelaez evaluation (blindspot.prognose.anisotropic_swap), and a Monte
Carlo estimate from 10^6 pairs of draws (blindspot.core.swap.simulate_pair_swap), all timed in the
same run. Agreement is reported as z = (MC - exact) / SE(MC); the CLT and literal eq. (3) values
(columns clt and stated) are printed beside them.

    .venv/bin/python benchmarks/swap_exact_vs_mc.py [--draws N] [--seed S]
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from blindspot.core.swap import p_swap_pair, simulate_pair_swap
from blindspot.prognose.anisotropic_swap import p_swap_spectrum_exact

CASES = [  # (Delta, d, D): check points of the Corollary 1 chapter and the Extended-frontier d_eff = 4.80
    (10.0, 5.0, 50.0),
    (5.0, 5.0, 50.0),
    (1.0, 5.0, 50.0),
    (30.0, 5.0, 50.0),
    (0.3, 4.8, 10.0),
    (3.0, 4.8, 20.0),
    (10.0, 4.8, 100.0),
    (2.0, 2.0, 5.0),
]


def run(n_draws: int = 1_000_000, seed: int = 0) -> pd.DataFrame:
    rows = []
    for i, (delta, d, D) in enumerate(CASES):
        t0 = time.perf_counter()
        exact = p_swap_pair(delta, d, D)
        t_exact = time.perf_counter() - t0
        t0 = time.perf_counter()
        gp = p_swap_spectrum_exact(delta, [1.0] * int(D - d)) if float(D - d).is_integer() else float("nan")
        t_gp = time.perf_counter() - t0
        t0 = time.perf_counter()
        mc = simulate_pair_swap(delta, d, D, n_draws=n_draws, seed=seed + i)  # independent streams
        t_mc = time.perf_counter() - t0
        rows.append(
            {
                "Delta": delta,
                "d": d,
                "D": D,
                "exact": exact,
                "gil_pelaez": gp,
                "mc": mc.p,
                "mc_se": mc.se,
                "z": (mc.p - exact) / mc.se,
                "clt": p_swap_pair(delta, d, D, "clt"),
                "stated": p_swap_pair(delta, d, D, "stated"),
                "t_exact_ms": 1e3 * t_exact,
                "t_gil_pelaez_ms": 1e3 * t_gp,
                "t_mc_ms": 1e3 * t_mc,
            }
        )
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--draws", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    df = run(args.draws, args.seed)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(
            df.round(
                {
                    "exact": 6,
                    "gil_pelaez": 6,
                    "mc": 6,
                    "mc_se": 6,
                    "z": 2,
                    "clt": 4,
                    "stated": 4,
                    "t_exact_ms": 2,
                    "t_gil_pelaez_ms": 2,
                    "t_mc_ms": 1,
                }
            ).to_string(index=False)
        )
    print(
        f"\nmax |z| = {df.z.abs().max():.2f} over {len(df)} cases ({args.draws:,} MC draws each); "
        f"|exact - Gil-Pelaez| max = {(df.exact - df.gil_pelaez).abs().max():.1e}; "
        f"median time exact {df.t_exact_ms.median():.1f} ms vs MC {df.t_mc_ms.median():.0f} ms"
    )


if __name__ == "__main__":
    main()
