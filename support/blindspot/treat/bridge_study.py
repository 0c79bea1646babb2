"""Propositions 3 and 4 on a leaderboard in one call: the bridge from coverage to a radius, and what it assumes.

:func:`bridge_study` follows the greedy coverage order of a leaderboard's frontier (the whole table when the
frontier has fewer than :data:`blindspot.data.MIN_MODELS` models) and computes, for Proposition 3's
orthogonal term :math:`2R\\sqrt{(1-\\tau)\\,\\kappa_\\perp}`, the path over the prefixes
(:func:`~blindspot.treat.radius_from_coverage.bridge_path`), the three readings of :math:`\\kappa_\\perp` at
``r_bridge`` (:func:`~blindspot.treat.radius_from_coverage.kappa_orth`), two caps of the ball the selected
benchmarks cannot tell apart (:func:`~blindspot.treat.radius_from_coverage.uncovered_caps`), App. H.45's
within-span covering radius against the "Rogers optimum" (exact :math:`\\pi - \\arccos(1/\\sqrt r)`, and the
paper code's Monte Carlo), and Proposition 4's spectral weightings (:mod:`blindspot.treat.spectral_weighting`)
with its diminishing-returns check. The result gives its numbers by name (:meth:`BridgeStudy.quantities`),
its tables, its figure, its sentences, and its ledger records by claim id (:meth:`BridgeStudy.records`).

References
----------
The paper's Proposition 3, Proposition 4 and App. H.45; Rogers, C. A. (1958), "The packing of equal spheres",
*Proc. London Math. Soc.* 8, 609-620.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core import conventions, coverage as cv, spectrum
from blindspot.core.claim_value import ClaimStatement, ClaimValue, on_tables
from blindspot.core.verdict import Verdict
from blindspot.data.tables import MIN_MODELS, ScoreTable
from blindspot.treat import figures, guarantees, radius_from_coverage as rc, spectral_weighting, verdicts

__all__ = [
    "OMEGA_SIZES",
    "CONSTANT_CLAIMS",
    "BridgeStudy",
    "bridge_study",
]

#: Subset sizes of App. H.45's covering-radius table (the paper's r = 2, 7, 12).
OMEGA_SIZES = (2, 7, 12)
#: The claims that hold whatever the data (the code's omega_within is a constant): recorded without it.
CONSTANT_CLAIMS = frozenset({f"P3.omega_rogers_r{r}" for r in OMEGA_SIZES} | {"P3.below_volumetric7"})
#: The cap's depth eta of :func:`~blindspot.treat.radius_from_coverage.uncovered_caps`.
CAP_ETA = 0.05
#: The path's columns the chapter shows (of :func:`~blindspot.treat.radius_from_coverage.bridge_path`).
PATH_COLUMNS = ("tau", "term_kappa1", "kappa_unselected_block", "term_unselected_block", "term_isotropic")


@dataclass(frozen=True)
class BridgeStudy:
    """The bridge from coverage to a radius on a frontier: path, kappa_orth, caps, omega, weightings.

    Attributes
    ----------
    front : ScoreTable
        The frontier (or the whole table when it has too few models).
    Sigma : ndarray
        Its benchmark correlation matrix.
    order : ndarray
        The greedy coverage order of the benchmarks.
    R : float
        The population radius of the frontier.
    rank : int
        The numerical rank of ``Sigma`` (eigenvalues above 1e-10 tr Sigma).
    r_bridge : int
        The subset size of the paper's bridge numbers.
    path : DataFrame
        :func:`~blindspot.treat.radius_from_coverage.bridge_path` over the prefixes that leave something
        uncovered, in units of R.
    kappas : dict
        variant -> :class:`~blindspot.treat.radius_from_coverage.KappaOrth` at ``r_bridge`` (empty when
        nothing is left uncovered).
    caps : CapPair or None
        The two caps at ``r_bridge`` (None when nothing is left uncovered).
    omega : DataFrame
        Indexed by r of :data:`OMEGA_SIZES`: ``exact pi - arccos(1/sqrt r)``, ``MC (this Sigma)`` (NaN for r > k),
        ``MC (Sigma = I)``, ``'Rogers optimum'``, ``exact / Rogers``, ``MC (Sigma = I) / Rogers``.
    gram_dev : float
        Largest deviation from the identity of the Gram matrix of the greedy prefixes' rows of Sigma's
        right-singular vectors (r = 2..k).
    family : DataFrame
        :func:`~blindspot.treat.spectral_weighting.family_comparison` on the frontier.
    uniform : DataFrame
        Indexed by r = 1..k: ``f_1 (uniform weights)`` and ``f (g(x) = x)`` of greedy's prefixes.
    submodularity : SubmodularityCheck or None
        Proposition 4's diminishing-returns check (None for k > :data:`blindspot.core.coverage.MAX_BRUTE_K`).
    n_dirs : int
        Random directions of each Monte Carlo estimate.
    """

    front: ScoreTable
    Sigma: np.ndarray
    order: np.ndarray
    R: float
    rank: int
    r_bridge: int
    path: pd.DataFrame
    kappas: dict[str, rc.KappaOrth]
    caps: rc.CapPair | None
    omega: pd.DataFrame
    gram_dev: float
    family: pd.DataFrame
    uniform: pd.DataFrame
    submodularity: guarantees.SubmodularityCheck | None
    n_dirs: int

    @property
    def k(self) -> int:
        """Benchmarks of the frontier."""
        return self.front.n_benchmarks

    @property
    def has_rest(self) -> bool:
        """Whether something is left uncovered at ``r_bridge`` (r_bridge below the rank of Sigma)."""
        return self.r_bridge < self.rank

    @property
    def row(self) -> pd.Series | None:
        """The path's row at ``r_bridge`` (None when the path stops before it)."""
        return self.path.loc[self.r_bridge] if self.r_bridge in self.path.index else None

    def quantities(self) -> dict[str, float | int | str]:
        """The chapter's numbers by name.

        ``front_name``, ``R`` (population radius), ``r_bridge``, ``n_dirs``; ``om_exact2``, ``om_exact7``,
        ``om_exact12`` (exact within-span radius over the Rogers optimum at r = 2, 7, 12), ``rog6`` (the Rogers
        optimum at r = 6); ``gram_dev``; ``uniform_gap`` (largest gap between f_1 and f along greedy's prefixes).
        """
        ratio = self.omega["exact / Rogers"]
        return {
            "front_name": self.front.name,
            "R": self.R,
            "r_bridge": self.r_bridge,
            "n_dirs": self.n_dirs,
            "om_exact2": ratio.loc[2],
            "om_exact7": ratio.loc[7],
            "om_exact12": ratio.loc[12],
            "rog6": rc.rogers_optimum(6),
            "gram_dev": self.gram_dev,
            "uniform_gap": self.uniform_gap,
        }

    @property
    def uniform_gap(self) -> float:
        """max over r of |f_1(T_r) - f(T_r)| along greedy's prefixes (0 when uniform weights are the coverage)."""
        return float((self.uniform.iloc[:, 0] - self.uniform.iloc[:, 1]).abs().max())

    # tables
    def path_table(self) -> pd.DataFrame:
        """The path's :data:`PATH_COLUMNS`, indexed by r."""
        return self.path[list(PATH_COLUMNS)]

    def kappa_table(self) -> pd.DataFrame:
        """One row per reading of kappa_orth at ``r_bridge``: ``kappa_orth``, ``m`` (uncovered directions),
        ``1/m`` and ``term / 2R`` = sqrt((1 - tau) kappa). Empty when nothing is left uncovered."""
        if not self.kappas:
            return pd.DataFrame()
        tau = self.row["tau"]
        cols = {
            v: {"kappa_orth": x.kappa, "m": x.dim, "1/m": 1 / x.dim, "term / 2R": np.sqrt((1 - tau) * x.kappa)}
            for v, x in self.kappas.items()
        }
        return pd.DataFrame(cols).T

    def caps_table(self) -> pd.DataFrame | None:
        """The cap pair's tau, visible width gap, Hausdorff distance, orthogonal term and verdict (None without caps)."""
        if self.caps is None:
            return None
        caps = self.caps
        rows = {
            "tau = f(T)": caps.tau,
            "largest width gap on the selected benchmarks": caps.visible_gap,
            "Hausdorff distance / R": caps.hausdorff,
            "orthogonal term 2 sqrt(1 - tau)": caps.term,
            "bound holds": caps.holds,
        }
        return pd.Series(rows).to_frame(f"greedy top {self.r_bridge}")

    def family_table(self) -> pd.DataFrame:
        """Coverage f and Kendall tau of each weighting g's greedy prefixes, indexed by r (two column blocks)."""
        fam = self.family
        cov = fam.pivot(index="r", columns="g", values="coverage")
        tau = fam.pivot(index="r", columns="g", values="tau")
        return pd.concat({"coverage f": cov, "Kendall tau": tau}, axis=1)

    def first_picks(self) -> pd.Series:
        """Each weighting g's first four benchmarks, by name."""
        names = self.front.benchmarks
        fam = self.family
        return fam[fam.r <= 4].groupby("g")["first"].apply(lambda s: ", ".join(names[j] for j in s))

    # sentences
    @property
    def uncovered_note(self) -> str:
        """Why the sections at r = r_bridge are skipped (empty when something is left uncovered)."""
        if self.has_rest:
            return ""
        r = self.r_bridge
        return (
            f":::{{important}}\n**Nothing is left uncovered at r = {r}.** {self.front.name} has {self.k} benchmarks, "
            f"so the greedy top {r} spans every direction: the orthogonal term is 0 and kappa_orth is undefined. The "
            "sections at r = r_bridge are skipped; the path, the covering radius and Proposition 4 still run.\n:::"
        )

    @property
    def bridge_text(self) -> str:
        """The coverage and the kappa = 1 term at r_bridge, and its reduction from 2R (empty without the row)."""
        row = self.row
        if row is None:
            return ""
        return (
            f"At $r$ = {self.r_bridge} the coverage is {row['tau']:.4f} and the term is $2\\sqrt{{1-\\tau}}$ = "
            f"{row['term_kappa1']:.3f}$R$, a {100 * (1 - row['term_kappa1'] / 2):.1f}% reduction from the trivial "
            f"$2R$ (with $R$ = {self.R:.2f} on this frontier)."
        )

    def kappa_text(self, paper_factor: object) -> str:
        """The three readings of kappa_orth and the factor the last gives, beside the paper's ``paper_factor``."""
        if not self.has_rest:
            return ""
        kb, tau = self.kappas["unselected_block"].kappa, self.row["tau"]
        return (
            f"The residual covariance $P_T^\\perp\\Sigma P_T^\\perp$ gives {self.kappas['residual'].kappa:.3f}, the "
            f"Schur complement of the unselected benchmarks given the selected ones {self.kappas['schur'].kappa:.3f}, "
            f"and the correlation block of the unselected benchmarks {kb:.3f}. With the last the term is "
            f"{np.sqrt((1 - tau) * kb):.3f}·2R against {np.sqrt(1 - tau):.3f}·2R for $\\kappa$ = 1, a "
            f"factor {1 / np.sqrt(kb):.2f} (the paper's {paper_factor})."
        )

    @property
    def caps_text(self) -> str:
        """What the cap pair shows of the proof's step (empty without caps)."""
        if self.caps is None:
            return ""
        caps = self.caps
        return (
            "The selected benchmarks cannot tell $K$ from $L$ (largest width gap "
            f"{caps.visible_gap:.1e}), yet the bodies are {caps.hausdorff:.2f}$R$ apart, against the orthogonal term "
            f"{caps.term:.3f}$R$. The proof's step $\\sqrt{{(1-\\tau)\\operatorname{{tr}}(\\Sigma)\\dim V^\\perp}}\\le "
            "R\\sqrt{1-\\tau}$ compares a population variance with a distance between bodies; the book computes the "
            "orthogonal term as the heuristic index it is."
        )

    # figure
    def figure(self) -> plt.Figure:
        """The orthogonal term against r (:func:`blindspot.treat.figures.bridge_terms`)."""
        return figures.bridge_terms(self.path)

    # ledger
    def claims(self) -> dict[str, ClaimValue | ClaimStatement]:
        """The chapter's claims in recording order, each on :meth:`data_for` its id (for ``Ledger.record``)."""
        return on_tables(self._records(), self.data_for)

    def _records(self) -> dict[str, float | tuple[float, str] | Verdict]:
        """The numbers (value, evidence) and the verdicts of the chapter's claims, in recording order.

        The numbers and statements at ``r_bridge`` (``P3.orth_term7``, ``P3.reduction7``, ``P3.kappa_orth``,
        ``P3.conservative``, ``P3.isotropy_label``, ``P3.bridge_bound``) only when something is left
        uncovered; ``P4.submodular`` only when every subset can be enumerated.
        """
        out: dict[str, float | tuple[float, str] | Verdict] = {}
        if self.has_rest:
            out |= self._bridge_records()
        omega = self.omega
        for r in OMEGA_SIZES:
            out[f"P3.omega_rogers_r{r}"] = (
                omega.loc[r, "exact / Rogers"],
                f"exact pi - arccos(1/sqrt r) = {omega.loc[r, 'exact pi - arccos(1/sqrt r)']:.3f}; Monte Carlo with "
                f"{self.n_dirs:,} directions on Sigma = I: {omega.loc[r, 'MC (Sigma = I) / Rogers']:.2f} of the "
                "Rogers optimum",
            )
        out["P3.below_volumetric7"] = verdicts.below_volumetric(omega, 7, self.n_dirs)
        out["P3.within_span_greedy"] = verdicts.within_span_constant(self.gram_dev, self.k)
        out["P4.minimax"] = verdicts.uniform_weights_minimax(self.uniform_gap)
        if self.submodularity is not None:
            out["P4.submodular"] = verdicts.no_violations(self.submodularity, self.front.name)
        return out

    def _bridge_records(self) -> dict[str, float | tuple[float, str] | Verdict]:
        term, kap = self.row["term_kappa1"], self.kappas
        kb = kap["unselected_block"].kappa
        iso = rc.orth_term(1.0, self.row["tau"], 1.0 / kap["residual"].dim)
        return {
            "P3.orth_term7": term,
            "P3.reduction7": 100 * (1 - term / 2),
            "P3.kappa_orth": (
                kb,
                f"the unselected correlation block; residual {kap['residual'].kappa:.3f}, "
                f"Schur {kap['schur'].kappa:.3f}",
            ),
            "P3.conservative": 1 / np.sqrt(kb),
            "P3.isotropy_label": verdicts.isotropy_label(
                term, iso, self.r_bridge, kap["residual"].dim, [x.kappa for x in kap.values()]
            ),
            "P3.bridge_bound": verdicts.bridge_bound(self.caps, self.r_bridge),
        }

    def data_for(self, claim_id: str) -> ScoreTable | None:
        """The data a claim is recorded on: the frontier, or None for the :data:`CONSTANT_CLAIMS`."""
        return None if claim_id in CONSTANT_CLAIMS else self.front

    def statuses(self, recorded: Mapping[str, str]) -> dict[str, str]:
        """The page's status words by short name (iso, bridge, within, minimax, sub) from the ledger's statuses
        ``recorded`` (claim id -> status), or why a statement was not checked."""
        skipped = f"not checked (nothing uncovered at r = {self.r_bridge})"
        names = {
            "iso": ("P3.isotropy_label", skipped),
            "bridge": ("P3.bridge_bound", skipped),
            "within": ("P3.within_span_greedy", ""),
            "minimax": ("P4.minimax", ""),
            "sub": ("P4.submodular", f"not checked (k > {cv.MAX_BRUTE_K})"),
        }
        return {name: recorded.get(claim, why) for name, (claim, why) in names.items()}


def _omega_table(Sigma: np.ndarray, order: np.ndarray, k: int, n_dirs: int, seed: int) -> pd.DataFrame:
    rows = []
    for r in OMEGA_SIZES:
        exact = rc.orthonormal_covering_radius(r)
        # this Sigma needs r <= k benchmarks
        mc_this = rc.code_within_span_radius(Sigma, order[:r], n_dirs=n_dirs, seed=seed) if r <= k else np.nan
        mc_eye = rc.code_within_span_radius(np.eye(max(k, 12)), list(range(r)), n_dirs=n_dirs, seed=seed + 1)
        rog = rc.rogers_optimum(r)
        rows.append({"r": r, "exact pi - arccos(1/sqrt r)": exact, "MC (this Sigma)": mc_this, "MC (Sigma = I)": mc_eye,
                     "'Rogers optimum'": rog, "exact / Rogers": exact / rog, "MC (Sigma = I) / Rogers": mc_eye / rog})  # fmt: skip
    return pd.DataFrame(rows).set_index("r")


def _gram_deviation(Sigma: np.ndarray, order: np.ndarray) -> float:
    # the right-singular vectors, as the paper's code takes them
    V = np.linalg.svd(Sigma)[2].T
    return float(max(np.abs(V[order[:r]] @ V[order[:r]].T - np.eye(r)).max() for r in range(2, len(order) + 1)))


def _uniform_table(Sigma: np.ndarray, order: np.ndarray) -> pd.DataFrame:
    k = len(order)
    prefixes = [order[:r] for r in range(1, k + 1)]
    return pd.DataFrame(
        {
            "f_1 (uniform weights)": [spectral_weighting.f_g(Sigma, T, np.ones_like) for T in prefixes],
            "f (g(x) = x)": [cv.coverage(Sigma, T) for T in prefixes],
        },
        index=pd.RangeIndex(1, k + 1, name="r"),
    )


def bridge_study(table: ScoreTable, r_bridge: int = 7, n_dirs: int = 200_000, seed: int = 0) -> BridgeStudy:
    """Propositions 3 and 4 on a leaderboard's frontier along its greedy coverage order.

    Parameters
    ----------
    table : ScoreTable
        The leaderboard; its frontier is used when it has at least :data:`blindspot.data.MIN_MODELS` models.
    r_bridge : int
        The subset size of the paper's bridge numbers (7).
    n_dirs : int
        Random directions of each covering-radius Monte Carlo.
    seed : int
        Seed of the Monte Carlo on this Sigma (seed + 1 on the identity).

    Returns
    -------
    BridgeStudy

    Raises
    ------
    ValueError
        ``r_bridge`` below 1, or the coverage functions' refusals (a degenerate correlation matrix).
    """
    if r_bridge < 1:
        raise ValueError(f"r_bridge must be at least 1, got {r_bridge}")
    front = conventions.frontier(table) if conventions.frontier_mask(table).sum() >= MIN_MODELS else table
    Sigma = spectrum.correlation(front)
    k = front.n_benchmarks
    order = np.asarray(cv.greedy_select(Sigma, names=front.benchmarks).order)
    # something is left uncovered at r = r_bridge: the rank counts eigenvalues above round-off (relative to
    # tr Sigma), so a leaderboard with fewer models than benchmarks, whose Sigma is singular, is not read as
    # covering more than it spans
    rank = int(np.linalg.matrix_rank(Sigma, tol=1e-10 * np.trace(Sigma), hermitian=True))
    # the prefixes that leave something uncovered (every prefix when Sigma is nonsingular)
    path = rc.bridge_path(Sigma, order if rank == k else order[: rank - 1], R=1.0)
    T = order[:r_bridge]
    has_rest = r_bridge < rank
    return BridgeStudy(
        front=front,
        Sigma=Sigma,
        order=order,
        R=conventions.population_radius(front),
        rank=rank,
        r_bridge=int(r_bridge),
        path=path,
        kappas={v: rc.kappa_orth(Sigma, T, v) for v in rc.KAPPA_VARIANTS} if has_rest else {},
        caps=rc.uncovered_caps(Sigma, T, eta=CAP_ETA) if has_rest else None,
        omega=_omega_table(Sigma, order, k, n_dirs, seed),
        gram_dev=_gram_deviation(Sigma, order),
        family=spectral_weighting.family_comparison(front),
        uniform=_uniform_table(Sigma, order),
        submodularity=guarantees.submodularity_violations(Sigma) if k <= cv.MAX_BRUTE_K else None,
        n_dirs=int(n_dirs),
    )
