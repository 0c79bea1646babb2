"""Part I summary tables: d_eff of full and frontier slices with bootstrap CIs (Table 1; Theorem 1(c)).

Each row combines Theorem 1's participation ratio, its percentile bootstrap interval, the
Spearman variant and the Marchenko–Pastur correction for one population slice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from blindspot.core.conventions import frontier
from blindspot.core.spectrum import bootstrap_d_eff, mp_correction, mp_edges, null_eigenvalues, spectrum
from blindspot.data.tables import ScoreTable

__all__ = ["DeffRow", "deff_row", "deff_table", "full_and_frontier", "null_max_table"]


@dataclass(frozen=True)
class DeffRow:
    suite: str
    slice: str
    n: int
    k: int
    d_eff: float
    ci_lo: float
    ci_hi: float
    spearman: float
    lambda_plus: float
    n_sig: int
    d_eff_mp: float
    synthetic: bool


def deff_row(table: ScoreTable, suite: str, slice_: str, n_boot: int = 300, seed: int = 0) -> DeffRow:
    """d_eff, its bootstrap CI (n_boot resamples), the Spearman d_eff and the MP correction of one slice."""
    sp = spectrum(table)
    boot = bootstrap_d_eff(table, n_boot=n_boot, seed=seed)
    mp = mp_correction(sp)
    return DeffRow(
        suite,
        slice_,
        table.n_models,
        table.n_benchmarks,
        sp.d_eff,
        boot.lo,
        boot.hi,
        spectrum(table, "spearman").d_eff,
        mp.lambda_plus,
        mp.n_sig,
        mp.d_eff_mp,
        table.synthetic,
    )


def full_and_frontier(tables: Mapping[str, ScoreTable], q: float = 0.5) -> dict[tuple[str, str], ScoreTable]:
    """{(suite, 'full'): table, (suite, 'frontier'): frontier(table, q)} for each suite."""
    out: dict[tuple[str, str], ScoreTable] = {}
    for name, t in tables.items():
        out[(name, "full")] = t
        out[(name, "frontier")] = frontier(t, q)
    return out


def deff_table(slices: Mapping[tuple[str, str], ScoreTable], n_boot: int = 300, seed: int = 0) -> pd.DataFrame:
    """Table 1: one :class:`DeffRow` per (suite, slice), indexed by (suite, slice)."""
    rows = [asdict(deff_row(t, s, sl, n_boot=n_boot, seed=seed)) for (s, sl), t in slices.items()]
    return pd.DataFrame(rows).set_index(["suite", "slice"])


def null_max_table(slices: Mapping[tuple[str, str], ScoreTable], n_rep: int = 200, seed: int = 0) -> pd.DataFrame:
    """The largest eigenvalue of i.i.d. null correlation matrices shaped like each slice, against the MP edge.

    Parameters
    ----------
    slices : mapping
        {(suite, slice): table}, e.g. :func:`full_and_frontier`.
    n_rep : int
        Null matrices per slice (:func:`blindspot.core.spectrum.null_eigenvalues`).
    seed : int
        Seed of each slice's null draw.

    Returns
    -------
    DataFrame
        One row per "suite slice": ``lambda_+`` (the Marchenko–Pastur edge), ``mean null max``,
        ``95th pct null max`` and ``P(null max > lambda_+)``.

    References
    ----------
    Theorem 1(c) of the paper; Marchenko and Pastur (1967); the book's Marchenko–Pastur chapter.
    """
    rows = {}
    for (s, sl), t in slices.items():
        lam = null_eigenvalues(t.n_models, t.n_benchmarks, n_rep=n_rep, seed=seed)
        _, hi = mp_edges(t.n_models, t.n_benchmarks)
        rows[f"{s} {sl}"] = {
            "lambda_+": hi,
            "mean null max": lam[:, 0].mean(),
            "95th pct null max": np.percentile(lam[:, 0], 95),
            "P(null max > lambda_+)": (lam[:, 0] > hi).mean(),
        }
    return pd.DataFrame(rows).T
