"""Proposition 2 and App. G.2/G.4 as result objects: the swap probability against the shape of the hidden spectrum.

Each function runs one check of :mod:`blindspot.prognose.anisotropic_swap` and returns a frozen result
with its numbers by name (``quantities()``, what a page glues with one call), its tables and figures for
display, and the paper's claims it decides (``claims()``, for ``Ledger.record``):
three spectra of one trace (:func:`three_spectra`), a majorisation chain from isotropic to one direction
(:func:`anisotropy_chain`), the six priors at a frontier's own gap under the Gaussian approximation and the
exact law (:func:`priors_at_gap`), and G.4's linear-functional simulation with its priors reversed
(:func:`linear_functional`).

References
----------
The paper's Proposition 2 and App. G.2, G.4; Gil-Pelaez, J. (1951), "Note on the inversion theorem",
*Biometrika* 38, 481-482.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core import swap
from blindspot.core.claim_value import ClaimStatement, ClaimValue
from blindspot.core.conventions import frontier
from blindspot.core.verdict import compare_words
from blindspot.data.tables import ScoreTable
from blindspot.prognose import anisotropic_swap as aswap, figures, verdicts

__all__ = [
    "SPECTRA",
    "SpectraComparison",
    "three_spectra",
    "AnisotropyChain",
    "anisotropy_chain",
    "PriorsAtGap",
    "priors_at_gap",
    "LinearFunctional",
    "linear_functional",
]

#: Three hidden spectra of trace 10: isotropic, one large eigenvalue among small ones, one direction.
SPECTRA: dict[str, list[float]] = {
    "isotropic (10 x 1)": [1.0] * 10,
    "(5, 1, 1, 1, 1, 1)": [5, 1, 1, 1, 1, 1],
    "one direction (10)": [10.0],
}


@dataclass(frozen=True)
class SpectraComparison:
    """The swap probability at one gap for several spectra: Monte Carlo, exact and Gaussian.

    Attributes
    ----------
    table : DataFrame
        One row per spectrum: ``Monte Carlo``, ``MC SE``, ``exact (Gil-Pelaez)``, ``Gaussian approximation``.
    n_draws : int
        Monte Carlo pairs per spectrum.
    """

    table: pd.DataFrame
    n_draws: int

    @property
    def exact(self) -> np.ndarray:
        """The exact swap probabilities, in the order of the spectra."""
        return self.table["exact (Gil-Pelaez)"].to_numpy(dtype=float)

    @property
    def gauss(self) -> np.ndarray:
        """The Gaussian approximation's, in the same order."""
        return self.table["Gaussian approximation"].to_numpy(dtype=float)

    def quantities(self) -> dict[str, int | str]:
        """``n_draws``; ``order_exact`` and ``order_gauss``: whether the exact (Gaussian) probability "increases"
        or "does not increase" along the spectra, in their order."""
        return {"n_draws": self.n_draws, "order_exact": verdicts.increases_word(self.exact),
                "order_gauss": verdicts.increases_word(self.gauss)}  # fmt: skip


def three_spectra(
    delta: float = 3.0, n_draws: int = 400_000, seed: int = 0, spectra: Mapping[str, Sequence[float]] = SPECTRA
) -> SpectraComparison:
    """P(W > ``delta``) for each spectrum, the i-th Monte Carlo estimate seeded ``seed + i``."""
    rows = {}
    for i, (name, lam) in enumerate(spectra.items()):
        p, se = aswap.p_swap_mc(delta, lam, n_draws=n_draws, seed=seed + i)
        rows[name] = {"Monte Carlo": p, "MC SE": se, "exact (Gil-Pelaez)": aswap.p_swap_spectrum_exact(delta, lam),
                      "Gaussian approximation": aswap.p_swap_gauss(delta, lam)}  # fmt: skip
    return SpectraComparison(pd.DataFrame(rows).T, n_draws)


@dataclass(frozen=True)
class AnisotropyChain:
    """The swap probability along lambda(alpha) = (1 - alpha) mean 1 + alpha trace e_1, for several gaps.

    Attributes
    ----------
    h : int
        Hidden eigenvalues.
    trace : float
    alphas : ndarray
    exact, gauss : dict of float to ndarray
        Gap -> the exact (Gaussian) swap probability at each alpha.
    """

    h: int
    trace: float
    alphas: np.ndarray
    exact: dict[float, np.ndarray]
    gauss: dict[float, np.ndarray]

    def quantities(self) -> dict[str, float]:
        """``h``, ``trace``, and at each gap d the exact probability at both ends: ``iso_d{d}``, ``spike_d{d}``."""
        ends = {}
        for dl, p in self.exact.items():
            tag = f"{dl:g}".replace(".", "_")  # 0.5 -> 0_5
            ends |= {f"iso_d{tag}": float(p[0]), f"spike_d{tag}": float(p[-1])}
        return {"h": self.h, "trace": self.trace, **ends}


def anisotropy_chain(
    h: int = 6, trace: float = 10.0, deltas: Sequence[float] = (0.5, 1.0, 3.0, 10.0), n_alphas: int = 21
) -> AnisotropyChain:
    """The exact and Gaussian swap probabilities on ``n_alphas`` points of the chain, per gap."""
    alphas = np.linspace(0, 1, n_alphas)
    path = aswap.anisotropy_path(h, trace, alphas)
    exact = {dl: np.array([aswap.p_swap_spectrum_exact(dl, lam) for lam in path]) for dl in deltas}
    gauss = {dl: np.array([aswap.p_swap_gauss(dl, lam) for lam in path]) for dl in deltas}
    return AnisotropyChain(h, trace, alphas, exact, gauss)


@dataclass(frozen=True)
class PriorsAtGap:
    """The main text's six-prior table at a frontier's gap, Gaussian (the paper's) and exact.

    Attributes
    ----------
    front : ScoreTable
    inputs : SwapInputs
        The frontier's d_eff, Delta_2 and sigma_obs.
    empirical : ndarray
        The frontier's empirical prior (:func:`~blindspot.core.swap.empirical_prior`).
    dims : list of int
        The ambient dimensions D of the columns (those above d_eff).
    gauss, exact : DataFrame
        Indexed by prior, one column per D.
    """

    front: ScoreTable
    inputs: swap.SwapInputs
    empirical: np.ndarray
    dims: list[int]
    gauss: pd.DataFrame
    exact: pd.DataFrame

    @property
    def note(self) -> str:
        """A note when some of the paper's dimensions are at or below d_eff (else empty)."""
        if len(self.dims) >= 4:
            return ""
        return (
            f":::{{important}}\nThis frontier has d_eff = {self.inputs.d_eff:.2f}: the table keeps the ambient "
            f"dimensions D above it ({self.dims}), since with D <= d_eff nothing is hidden.\n:::"
        )

    def quantities(self) -> dict[str, float | int | str]:
        """At the first D (``D0``): ``adv_exact``, ``iso_exact``, ``adv_gauss``, ``iso_gauss``; the exact cells'
        ``exact_min``/``exact_max``; ``delta2``, ``n_front``, ``k_front``; and in words: ``adv_vs_iso_exact``
        (the exact adversarial probability "above" or "below" the isotropic one at D0), ``adv_less_more`` (the
        same as "more often than" / "less often than") and ``iso_min_exact`` (the isotropic row "is" or "is not"
        the smallest in every exact column)."""
        D0 = self.dims[0]
        e, g = self.exact, self.gauss
        adv, iso = e.loc["adversarial", D0], e.loc["isotropic", D0]
        return {
            "D0": D0, "adv_exact": adv, "iso_exact": iso,
            "adv_gauss": g.loc["adversarial", D0], "iso_gauss": g.loc["isotropic", D0],
            "exact_min": e.to_numpy().min(), "exact_max": e.to_numpy().max(), "delta2": self.inputs.delta2,
            "n_front": self.front.n_models, "k_front": self.front.n_benchmarks,
            "adv_vs_iso_exact": compare_words(adv, iso),
            "iso_min_exact": verdicts.is_word(verdicts.isotropic_is_minimum(e)),
            "adv_less_more": compare_words(adv, iso, "more often than", "less often than"),
        }  # fmt: skip

    def table(self) -> pd.DataFrame:
        """The Gaussian and the exact table side by side: column groups ``Gaussian (the paper's)`` and ``exact
        law``, one column per D, indexed by prior."""
        return pd.concat({"Gaussian (the paper's)": self.gauss, "exact law": self.exact}, axis=1)

    def claims(self, scan: aswap.SchurScan) -> dict[str, ClaimStatement]:
        """Proposition 2's statements (for ``Ledger.record``): ``P2.gaussian`` (:func:`~.verdicts.gaussian_schur`
        on the random majorisation ``scan``, on no table) and ``P2.lower_bound``
        (:func:`~.verdicts.isotropic_lower_bound`: the exact table at D0 with the scan's counts, on the
        frontier)."""
        lb = verdicts.isotropic_lower_bound(self.exact, self.gauss, self.dims[0], self.inputs.delta2, scan)
        return {
            "P2.gaussian": ClaimStatement(verdicts.gaussian_schur(scan)),
            "P2.lower_bound": ClaimStatement(lb, self.front),
        }


def priors_at_gap(table: ScoreTable, dims: Sequence[int] = (10, 20, 50, 100), seed: int = 0) -> PriorsAtGap:
    """The six priors on ``table``'s frontier for each D of ``dims`` above its d_eff."""
    front = frontier(table)
    si = swap.swap_inputs(front)
    emp = swap.empirical_prior(front)
    Ds = [D for D in dims if D > si.d_eff]
    gauss = swap.priors_table(si.delta2, si.d_eff, si.sigma_obs, emp, D_list=Ds, seed=seed)
    exact = aswap.priors_table_exact(si.delta2, si.d_eff, si.sigma_obs, emp, D_list=Ds, seed=seed)
    return PriorsAtGap(front, si, emp, Ds, gauss, exact)


@dataclass(frozen=True)
class LinearFunctional:
    """G.4's linear-functional swap rates: its priors, the same reversed, and G.2's variant.

    Attributes
    ----------
    g4, reversed, g2 : DataFrame
        Indexed by prior: ``swap_rate``, ``se``, ... (:func:`~.anisotropic_swap.linear_functional_table`).
    n_sims : int
        Simulated leaderboards per prior.
    """

    g4: pd.DataFrame
    reversed: pd.DataFrame
    g2: pd.DataFrame
    n_sims: int

    def quantities(self) -> dict[str, float | int | str]:
        """``iso``, ``adv``, ``rev_adv`` (swap rates), ``max_prior`` and ``rev_max_prior`` (the priors with the
        largest rate), ``n_sims``."""
        g4, rev = self.g4, self.reversed
        return {"iso": g4.loc["isotropic", "swap_rate"], "adv": g4.loc["adversarial", "swap_rate"],
                "rev_adv": rev.loc["adversarial", "swap_rate"], "max_prior": g4["swap_rate"].idxmax(),
                "rev_max_prior": rev["swap_rate"].idxmax(), "n_sims": self.n_sims}  # fmt: skip

    def table(self) -> pd.DataFrame:
        """The three tables side by side: column groups ``G.4``, ``reversed`` and ``G.2 variant``, indexed by
        prior."""
        return pd.concat({"G.4": self.g4, "reversed": self.reversed, "G.2 variant": self.g2}, axis=1)

    def figure(self) -> plt.Figure:
        """The swap rate of each prior, G.4's (large eigenvalues visible) against the reversed (hidden)."""
        bars = {"G.4 priors (large eigenvalues visible)": self.g4, "reversed (large eigenvalues hidden)": self.reversed}
        return figures.prior_swap_bars(bars)

    def claims(self, front: ScoreTable) -> dict[str, ClaimValue | ClaimStatement]:
        """App. G.4's claims on the frontier whose empirical prior was simulated (for ``Ledger.record``): each
        prior's swap rate ``G4.<prior>`` and ``G2.<prior>`` (with the draws and the SE as evidence), then
        ``G4.isotropy_max`` (:func:`~.verdicts.isotropy_maximises`) and ``G4.conclusion``
        (:func:`~.verdicts.isotropy_conclusion`)."""
        out: dict[str, ClaimValue | ClaimStatement] = {}
        for name, tab in (("G4", self.g4), ("G2", self.g2)):
            for prior in tab.index:
                rate, se = tab.loc[prior, "swap_rate"], tab.loc[prior, "se"]
                out[f"{name}.{prior}"] = ClaimValue(rate, front, f"{self.n_sims} draws, SE {se:.3f}")
        out["G4.isotropy_max"] = ClaimStatement(verdicts.isotropy_maximises(self.g4), front)
        out["G4.conclusion"] = ClaimStatement(verdicts.isotropy_conclusion(self.g4, self.reversed), front)
        return out


def linear_functional(empirical: np.ndarray, n_models: int, n_sims: int = 2000, seed: int = 0) -> LinearFunctional:
    """G.4's table (seed ``seed``), reversed (seed ``seed + 100``), and G.2's four priors (each a fresh seed 1)."""
    g4 = aswap.linear_functional_table(empirical, n=n_models, n_draws=n_sims, seed=seed)
    rev = aswap.linear_functional_table(empirical, n=n_models, n_draws=n_sims, seed=seed + 100, reverse=True)
    g2 = aswap.linear_functional_table(empirical, n=n_models, n_draws=n_sims, seed=1,
                                       priors=("isotropic", "empirical", "1/i", "1/i^2"), same_seed=True)  # fmt: skip
    return LinearFunctional(g4, rev, g2, n_sims)
