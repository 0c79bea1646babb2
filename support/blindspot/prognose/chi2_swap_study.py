"""Corollary 1's χ² projection model on a leaderboard's frontier in one call (the paper's §4, App. C.2, G.1, H.24).

:func:`chi2_swap_study` takes the frontier's swap inputs (:func:`blindspot.core.swap.swap_inputs`: d_eff, Delta_2,
sigma_obs and the leader's gaps) and computes every piece of the corollary: the signal-to-noise ratio against
Monte Carlo, the pairwise swap probability (exact, CLT, eq. (3)'s term) against Monte Carlo at a check point,
the product (FKG) and union bounds on one draw and over simulated leaderboards, eq. (3) on the frontier's gaps,
App. G.1's rescaled D-sweep beside the six-prior table of the paper's code, and App. H.24's quality
functionals. The result gives its numbers by name (:meth:`Chi2SwapStudy.quantities`), its tables as frames,
its figures by name, and the values of the ledger's claims (:meth:`Chi2SwapStudy.claims`).

References
----------
The paper's Corollary 1, eq. (3), App. C.2, G.1 and H.24; the paper's code validation_v8.py ``exp1a``.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from blindspot.core import conventions, swap
from blindspot.core.claim_value import ClaimValue
from blindspot.data.tables import ScoreTable
from blindspot.prognose import figures, quality_functionals as qf

__all__ = ["CHECK_POINT", "H24_KEYS", "Chi2SwapStudy", "chi2_swap_study"]

#: The check point of (b)-(d): d = 5 visible of D = 50 directions.
CHECK_POINT: tuple[float, float] = (5.0, 50.0)

#: App. H.24's quality functionals by the suffix of their ledger claim (``C1.H24.<key>``).
H24_KEYS: dict[str, str] = {
    "||c||^2": "norm2", "(1/sqrt D) sum c": "sum", "e1 . c": "e1", "random w . c": "w", "min_j c_j": "min",
}  # fmt: skip

_RHO_DS = (10, 20, 50, 100)
_SWEEP_DS = (6, 7, 8, 9, 10, 15, 20, 30, 50, 100)
_MC_GAPS = (1.0, 5.0, 10.0, 20.0, 30.0)
_CURVES = {
    "exact (integral)": "exact",
    r"CLT: $\Phi(-\Delta/(2\sqrt{D-d}))$": "clt",
    r"eq. (3) term: $\Phi(-\Delta/(2\sqrt{2(D-d)}))$": "stated",
}


@dataclass(frozen=True)
class Chi2SwapStudy:
    """The χ² model's pieces on a frontier: (a) rho, (b) the pair swap, (c)-(d) top-1, G.1, the priors, H.24.

    Attributes
    ----------
    front : ScoreTable
        The frontier.
    inputs : SwapInputs
        Its d_eff, Delta_2, sigma_obs, gaps and size.
    rho : DataFrame
        (a) per D > d_eff (index ``D``): ``rho = sqrt(d/D)`` and its ``Monte Carlo`` estimate.
    pair : DataFrame
        (b) at :data:`CHECK_POINT`, per visible gap: ``Delta``, ``exact``, ``MC``, ``MC SE``, ``CLT``,
        ``eq. (3) term`` and ``z`` = (MC - exact) / MC SE.
    bounds : Top1Bounds
        (c)-(d) on one draw of ten visible qualities (``default_rng(seed)``) at :data:`CHECK_POINT`.
    exact10 : float
        The exact P(top-1 correct | X) of that draw.
    sim10 : Top1Simulation
        Simulated leaderboards of ten models at :data:`CHECK_POINT`.
    top1 : DataFrame
        On the frontier, per D > d_eff: ``D``, ``n``, ``p_correct``, ``se``, ``product_bound``,
        ``union_bound_stated`` (eq. (3) literally) and ``union_bound_rescaled`` (the code's sigma_h).
    sweep : DataFrame
        App. G.1's rescaled sweep (:func:`~blindspot.core.swap.d_sweep`): ``D``, ``rho``, ``p_swap``.
    priors : DataFrame
        The six-prior x D table of the paper's code (:func:`~blindspot.core.swap.priors_table`).
    h24 : QualitySwap or None
        App. H.24's swap rates (None when round(d_eff) >= 20: nothing hidden).
    n_draws, n_trials, seed : int
        The run's Monte Carlo pairs, simulated leaderboards and seed.
    """

    front: ScoreTable
    inputs: swap.SwapInputs
    rho: pd.DataFrame
    pair: pd.DataFrame
    bounds: swap.Top1Bounds
    exact10: float
    sim10: swap.Top1Simulation
    top1: pd.DataFrame
    sweep: pd.DataFrame
    priors: pd.DataFrame
    h24: qf.QualitySwap | None
    n_draws: int
    n_trials: int
    seed: int

    @property
    def g1(self) -> pd.Series:
        """App. G.1's swap probability at D >= 10, indexed by D (the range the main text cites)."""
        p = self.sweep.set_index("D")["p_swap"]
        return p[p.index >= 10]

    @property
    def h24_note(self) -> str:
        """Why App. H.24 is skipped (else empty)."""
        if self.h24 is not None:
            return ""
        d = int(round(self.inputs.d_eff))
        return (
            f":::{{important}}\nApp. H.24 observes round(d_eff) = {d} of D = 20 coordinates; with {d} >= 20 "
            "nothing is hidden, so the simulation is skipped.\n:::"
        )

    def summary(self) -> pd.Series:
        """The frontier's ``models``, ``d_eff``, ``Delta_2`` and ``sigma_obs``."""
        si = self.inputs
        return pd.Series(
            {"models": si.n, "d_eff": si.d_eff, "Delta_2": si.delta2, "sigma_obs": si.sigma_obs}, name=self.front.name
        )

    def one_draw(self) -> pd.DataFrame:
        """The FKG product (a lower bound on P(correct)), P(top-1 correct) and the union sum (an upper bound on
        P(wrong)): on one draw of X (n = 10) and as means over the simulated leaderboards."""
        rows = (
            "FKG product (lower bound on P(correct))", "P(top-1 correct)", "union sum (upper bound on P(wrong))",
        )  # fmt: skip
        b, s = self.bounds, self.sim10
        return pd.DataFrame(
            {
                "one draw of X (n = 10)": dict(zip(rows, (b.correct_lower, self.exact10, b.wrong_upper))),
                "simulated leaderboards (mean)": dict(
                    zip(rows, (s.mean_product_bound, s.p_correct, s.mean_union_bound))
                ),
            }
        )

    def swap_gap_figure(self) -> plt.Figure:
        """The pair swap probability against the visible gap at :data:`CHECK_POINT`: exact, CLT and eq. (3)'s
        term, with the Monte Carlo points (:func:`blindspot.prognose.figures.swap_vs_gap`)."""
        d0, D0 = CHECK_POINT
        gaps = np.linspace(0, 40, 81)
        curves = {label: swap.p_swap_pair(gaps, d0, D0, approx) for label, approx in _CURVES.items()}
        mc = (self.pair["Delta"].to_numpy(), self.pair["MC"].to_numpy(), self.pair["MC SE"].to_numpy())
        return figures.swap_vs_gap(gaps, curves, mc, f"d = {d0:g}, D = {D0:g}")

    def top1_figure(self) -> plt.Figure:
        """P(top-1 correct) and eq. (3) on the frontier against D (:func:`blindspot.prognose.figures.top1_reliability`)."""
        return figures.top1_reliability(self.top1)

    def d_trends_figure(self) -> plt.Figure:
        """The six priors against G.1's sweep at D >= 10 (:func:`blindspot.prognose.figures.d_trends`)."""
        return figures.d_trends(self.priors, self.sweep[self.sweep.D >= 10])

    def sqrt2_evidence(self) -> str:
        """The swap probabilities at Delta = 10 (exact, a fresh Monte Carlo of ``n_draws`` pairs, CLT, eq. (3))."""
        d0, D0 = CHECK_POINT
        row = self.pair.set_index("Delta").loc[10.0]
        mc = swap.simulate_pair_swap(10.0, d0, D0, n_draws=self.n_draws, seed=self.seed)
        return (
            f"at Delta = 10 the exact swap probability is {row['exact']:.4f} (Monte Carlo {mc.p:.4f} +- "
            f"{mc.se:.4f}), the CLT term {row['CLT']:.4f}, the eq. (3) term {row['eq. (3) term']:.4f}"
        )

    def claims(self) -> dict[str, ClaimValue]:
        """The corollary's claims: ``C1.G1.D<D>`` (every D of the sweep) and ``C1.priors.min``/``max`` on the
        frontier, and ``C1.sqrt2`` (the sd of Y_j - Y_i, Y ~ chi2_{D-d} independent, at :data:`CHECK_POINT`: on no
        table) with the swap probabilities at Delta = 10 as evidence."""
        d0, D0 = CHECK_POINT
        p, f = self.sweep.set_index("D")["p_swap"], self.front
        out = {f"C1.G1.D{D}": ClaimValue(p[D], f) for D in p.index}
        out["C1.priors.min"] = ClaimValue(self.priors.to_numpy().min(), f)
        out["C1.priors.max"] = ClaimValue(self.priors.to_numpy().max(), f)
        out["C1.sqrt2"] = ClaimValue(float(np.sqrt(2 * stats.chi2(D0 - d0).var())), (), self.sqrt2_evidence())
        return out

    def h24_claims(self) -> dict[str, ClaimValue]:
        """App. H.24's claims ``C1.H24.<key>`` (:data:`H24_KEYS`): each rate on the frontier, with the simulation's
        size and the rate's SE as evidence; empty when H.24 is skipped."""
        h = self.h24
        if h is None:
            return {}
        return {
            f"C1.H24.{H24_KEYS[name]}": ClaimValue(
                rate, self.front, f"n = {h.n}, D = {h.D}, d = {h.d}, {h.n_trials} trials (SE {h.se[name]:.4f})"
            )
            for name, rate in h.rates.items()
        }

    def quantities(self) -> dict[str, float | int | str]:
        """``front_name``, ``n_front``, ``d_front``, ``delta2``, ``sigma_obs``, ``n_gaps``, ``n_draws``; (b)'s
        ``max_z`` and at Delta = 10 ``p10_exact``, ``p10_mc``, ``p10_clt``, ``p10_stated``; (c)-(d)'s ``one_prod``,
        ``one_exact``, ``sim10_p``, ``sim10_se``, ``sim10_prod``, ``sim10_union``; on the frontier ``D_first``,
        ``D_last``, ``top1_first``, ``top1_last``, ``union_stated_first``/``last``,
        ``union_rescaled_first``/``last``; the priors' ``prior_min``, ``prior_max``, ``iso_first``, ``iso_last``;
        G.1's ``g1_first``, ``g1_last``, ``g1_min``, ``g1_max``; H.24's ``h24_base`` (the ||c||^2 rate),
        ``h24_min_other``, ``h24_min_all``, ``h24_max_all`` (NaN when skipped)."""
        si, row10, t, g1 = self.inputs, self.pair.set_index("Delta").loc[10.0], self.top1, self.g1
        iso = self.priors.loc["isotropic"]
        nan, rates = float("nan"), None if self.h24 is None else self.h24.rates
        return {
            "front_name": self.front.name, "n_front": si.n, "d_front": si.d_eff, "delta2": si.delta2,
            "sigma_obs": si.sigma_obs, "n_gaps": si.gaps.size, "n_draws": self.n_draws,
            "max_z": float(self.pair["z"].abs().max()), "p10_exact": row10["exact"], "p10_mc": row10["MC"],
            "p10_clt": row10["CLT"], "p10_stated": row10["eq. (3) term"],
            "one_prod": self.bounds.correct_lower, "one_exact": self.exact10, "sim10_p": self.sim10.p_correct,
            "sim10_se": self.sim10.se, "sim10_prod": self.sim10.mean_product_bound,
            "sim10_union": self.sim10.mean_union_bound,
            "D_first": int(t.D.iloc[0]), "D_last": int(t.D.iloc[-1]),
            "top1_first": t.p_correct.iloc[0], "top1_last": t.p_correct.iloc[-1],
            "union_stated_first": t.union_bound_stated.iloc[0], "union_stated_last": t.union_bound_stated.iloc[-1],
            "union_rescaled_first": t.union_bound_rescaled.iloc[0],
            "union_rescaled_last": t.union_bound_rescaled.iloc[-1],
            "prior_min": self.priors.to_numpy().min(), "prior_max": self.priors.to_numpy().max(),
            "iso_first": iso.iloc[0], "iso_last": iso.iloc[-1],
            "g1_first": g1.iloc[0], "g1_last": g1.iloc[-1], "g1_min": g1.min(), "g1_max": g1.max(),
            "h24_base": nan if rates is None else rates["||c||^2"],
            "h24_min_other": nan if rates is None else rates.drop("||c||^2").min(),
            "h24_min_all": nan if rates is None else rates.min(), "h24_max_all": nan if rates is None else rates.max(),
        }  # fmt: skip


def _pair_check(n_draws: int, seed: int) -> pd.DataFrame:
    """(b) at :data:`CHECK_POINT`: exact, Monte Carlo (seed + i for the i-th gap), CLT and eq. (3)'s term."""
    d0, D0 = CHECK_POINT
    x = np.array(_MC_GAPS)
    mc = [swap.simulate_pair_swap(g, d0, D0, n_draws=n_draws, seed=seed + i) for i, g in enumerate(x)]
    check = pd.DataFrame(
        {
            "Delta": x,
            "exact": swap.p_swap_pair(x, d0, D0),
            "MC": [m.p for m in mc],
            "MC SE": [m.se for m in mc],
            "CLT": swap.p_swap_pair(x, d0, D0, "clt"),
            "eq. (3) term": swap.p_swap_pair(x, d0, D0, "stated"),
        }
    )
    check["z"] = (check["MC"] - check["exact"]) / check["MC SE"]
    return check


def _top1_on_frontier(si: swap.SwapInputs, n_trials: int, seed: int) -> pd.DataFrame:
    """P(top-1 correct) simulated with the frontier's n and d_eff, and eq. (3) on its gaps, per D > d_eff."""
    rows = []
    for D in [D for D in _RHO_DS if D > si.d_eff]:
        bound_trials = max(20, min(300, n_trials // 50))  # the bounds on a subset of the draws
        sim = swap.simulate_chi2_top1(si.n, si.d_eff, D, trials=n_trials, seed=seed, bound_trials=bound_trials)
        rows.append(
            {
                "D": D, "n": si.n, "p_correct": sim.p_correct, "se": sim.se, "product_bound": sim.mean_product_bound,
                "union_bound_stated": swap.top1_union_bound_stated(si.gaps, si.d_eff, D),
                "union_bound_rescaled": swap.top1_union_bound_rescaled(si.gaps, si.d_eff, D, si.sigma_obs),
            }
        )  # fmt: skip
    return pd.DataFrame(rows)


def chi2_swap_study(
    board: ScoreTable, n_draws: int = 1_000_000, n_trials: int = 20_000, seed: int = 0
) -> Chi2SwapStudy:
    """Every piece of Corollary 1 on the frontier of ``board`` (see the module's docstring).

    Parameters
    ----------
    board : ScoreTable
        The leaderboard (the paper: the Extended suite).
    n_draws : int
        Monte Carlo pairs for the pair swap check (rho uses at most 200,000).
    n_trials : int
        Simulated leaderboards for the top-1 reliability.
    seed : int
        Seed of every simulation (App. H.24 keeps the paper's ``default_rng(1)``).

    Returns
    -------
    Chi2SwapStudy

    Raises
    ------
    ValueError
        A frontier of fewer than 3 models.
    """
    n_front = int(conventions.frontier_mask(board).sum())
    if n_front < 3:
        raise ValueError(
            f"the frontier of {board.name} keeps {n_front} model(s); d_eff, Delta_2 and sigma_obs need at least 3 "
            "(a leaderboard of about 5 models or more)"
        )
    front = conventions.frontier(board)
    si = swap.swap_inputs(front)
    d0, D0 = CHECK_POINT
    rho = pd.DataFrame(
        {
            D: {"rho = sqrt(d/D)": swap.rho_snr(si.d_eff, D),
                "Monte Carlo": swap.rho_mc(si.d_eff, D, n_draws=min(n_draws, 200_000), seed=seed)}
            for D in _RHO_DS
            if D > si.d_eff
        }
    ).T.rename_axis("D")  # fmt: skip
    X10 = np.random.default_rng(seed).chisquare(d0, 10)
    bt = max(100, min(1000, n_trials // 20))
    sim10 = swap.simulate_chi2_top1(10, d0, D0, trials=n_trials, seed=seed, bound_trials=bt)
    sweep = swap.d_sweep(si.delta2, si.d_eff, si.sigma_obs, D_list=[D for D in _SWEEP_DS if D > si.d_eff])
    prior_Ds = [D for D in _RHO_DS if D > si.d_eff]
    priors = swap.priors_table(
        si.delta2, si.d_eff, si.sigma_obs, swap.empirical_prior(front), D_list=prior_Ds, seed=seed
    )
    d_obs = int(round(si.d_eff))
    h24 = qf.quality_swap_rates(n=si.n, D=20, d=d_obs, n_trials=5000, seed=1) if 1 <= d_obs < 20 else None
    return Chi2SwapStudy(
        front, si, rho, _pair_check(n_draws, seed), swap.p_top1_bounds(X10, d0, D0), swap.p_top1_exact(X10, d0, D0),
        sim10, _top1_on_frontier(si, n_trials, seed), sweep, priors, h24, n_draws, n_trials, seed,
    )  # fmt: skip
