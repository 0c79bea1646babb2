"""Exact covering radius (hull facets) vs Monte Carlo sampling, at d = 3, 5, 8 (issue 3).

For each d, m = 4d random directions on S^{d-1} (seeded) are fixed; the projective covering
radius is computed exactly from the facets of conv(U u -U) and by the max-min over 10^5 and
10^6 random query directions, in the same run. Sampling can only UNDER-estimate the radius
(every query's nearest-benchmark angle is at most the covering radius); the table gives the
error exact - sampled, in radians and as a percentage, and the wall time of each method.

Run:  .venv/bin/python benchmarks/covering_vs_sampling.py [--ms 12 24] [--seed 0]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "support"))

from blindspot.core.covering import covering_radius_exact, covering_radius_mc, random_directions


def run(dims=(3, 5, 8), samples=(100_000, 1_000_000), m_per_d: int = 4, seed: int = 0) -> pd.DataFrame:
    rows = []
    for d in dims:
        m = m_per_d * d
        U = random_directions(m, d, np.random.default_rng(seed + d))
        ex = covering_radius_exact(U)
        rows.append(
            {
                "d": d,
                "m": m,
                "method": "exact (facets)",
                "omega": ex.omega,
                "error": 0.0,
                "error_pct": 0.0,
                "seconds": ex.seconds,
                "facets": ex.n_facets,
            }
        )
        for N in samples:
            mc = covering_radius_mc(U, n_samples=N, seed=seed)
            rows.append(
                {
                    "d": d,
                    "m": m,
                    "method": f"sampling N={N:.0e}",
                    "omega": mc.omega,
                    "error": ex.omega - mc.omega,
                    "error_pct": 100 * (ex.omega - mc.omega) / ex.omega,
                    "seconds": mc.seconds,
                    "facets": None,
                }
            )
    return pd.DataFrame(rows)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--m-per-d", type=int, default=4, help="directions per dimension (m = m_per_d * d)")
    args = p.parse_args()
    df = run(m_per_d=args.m_per_d, seed=args.seed)
    with pd.option_context("display.width", 120, "display.float_format", "{:.5g}".format):
        print(df.to_string(index=False))


if __name__ == "__main__":
    main()
