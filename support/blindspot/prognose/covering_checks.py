"""Theorem 2's checks as result objects: closed forms, sampling, the bound on random bodies, rates, App. C.

Each function runs one check of the covering radius behind Theorem 2 (the book's chapter on the
indistinguishability bound) and returns a frozen result: its numbers by name (``quantities()``, what a
chapter glues with one call), its table for display (a frame with the columns documented on the class) and
what :mod:`blindspot.prognose.verdicts` reads, as attributes, never as column names.

The covering radius is computed exactly from hull facets (:func:`blindspot.core.covering.covering_radius`);
sampling query directions can only under-estimate it. The rate of Theorem 2(a) is
:math:`\\omega_m \\lesssim m^{-1/(d-1)}`, followed by random directions up to a log factor,
:math:`(\\log m/m)^{1/(d-1)}`; directions clustered in a cap of half-angle :math:`\\theta` keep
:math:`\\omega_m \\ge \\pi/2 - \\theta` for every m.

References
----------
The paper's Theorem 2 and App. C, H.7; Rogers, C. A. (1963), "Covering a sphere with spheres",
*Mathematika* 10, 157-164.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core import conventions, covering
from blindspot.core.covering import CoveringRate
from blindspot.data.tables import ScoreTable
from blindspot.prognose import indistinguishability as ind, visible_radius

__all__ = [
    "icosahedron",
    "closed_form_cases",
    "ClosedFormCheck",
    "check_closed_forms",
    "SamplingComparison",
    "compare_sampling",
    "BoundChecks",
    "check_bound",
    "witness_table",
    "RateFits",
    "fit_rates",
    "ClusteredRate",
    "clustered_rate",
    "AppCRow",
    "AppCConstants",
    "appc_constants",
    "curse_factors",
    "SuiteCover",
    "suite_cover",
]


def icosahedron() -> np.ndarray:
    """The 12 vertices of the icosahedron, (0, ±1, ±phi) and cyclic permutations (phi the golden ratio)."""
    phi = (1 + 5**0.5) / 2
    signs = [(a, b) for a in (1, -1) for b in (1, -1)]
    return np.array([p for a, b in signs for p in ([0, a, b * phi], [a, b * phi, 0], [b * phi, 0, a])], float)


def closed_form_cases() -> dict[str, tuple[np.ndarray, bool, float]]:
    """Direction sets with a known covering radius: name -> (directions, projective, closed form in rad).

    Coordinate axes in d dimensions: arccos(1/sqrt d) (projective), pi - arccos(1/sqrt d) (signed basis);
    the icosahedron's vertices 0.65236; m equispaced lines on S^1 pi/(2m), m equispaced points pi/m.
    """
    lines12, points12 = np.pi * np.arange(12) / 12, 2 * np.pi * np.arange(12) / 12
    return {
        "coordinate axes, d = 3 (octahedron)": (np.eye(3), True, math.acos(1 / math.sqrt(3))),
        "coordinate axes, d = 5": (np.eye(5), True, math.acos(1 / math.sqrt(5))),
        "standard basis, d = 2, signed": (np.eye(2), False, math.pi - math.acos(1 / math.sqrt(2))),
        "standard basis, d = 5, signed": (np.eye(5), False, math.pi - math.acos(1 / math.sqrt(5))),
        "icosahedron vertices": (icosahedron(), True, 0.65236),
        "12 equispaced lines on S^1": (np.c_[np.cos(lines12), np.sin(lines12)], True, math.pi / 24),
        "12 equispaced points on S^1, signed": (np.c_[np.cos(points12), np.sin(points12)], False, math.pi / 12),
    }


@dataclass(frozen=True)
class ClosedFormCheck:
    """The exact covering radius against closed forms and a Monte Carlo search.

    Attributes
    ----------
    table : DataFrame
        One row per case of :func:`closed_form_cases`; columns ``closed form``, ``exact (hull)``,
        ``|exact - closed|``, ``Monte Carlo 1e4`` (rad) and ``method``.
    """

    table: pd.DataFrame

    @property
    def max_error(self) -> float:
        """The largest |exact - closed form| (rad)."""
        return float(self.table["|exact - closed|"].max())

    @property
    def monte_carlo_below(self) -> bool:
        """Whether every sampled radius is at or below the exact one (sampling can only miss the worst direction)."""
        return bool((self.table["Monte Carlo 1e4"] <= self.table["exact (hull)"] + 1e-12).all())

    def quantities(self) -> dict[str, float]:
        return {"max_error": self.max_error}


def check_closed_forms(seed: int = 0, n_samples: int = 10_000) -> ClosedFormCheck:
    """Every case of :func:`closed_form_cases`, exact (hull facets) and sampled (``n_samples`` directions)."""
    rows = {}
    for name, (U, proj, closed) in closed_form_cases().items():
        ex = covering.covering_radius(U, projective=proj)
        mc = covering.covering_radius(U, projective=proj, method="mc", n_samples=n_samples, seed=seed)
        rows[name] = {
            "closed form": closed,
            "exact (hull)": ex.omega,
            "|exact - closed|": abs(ex.omega - closed),
            "Monte Carlo 1e4": mc.omega,
            "method": ex.method,
        }
    return ClosedFormCheck(pd.DataFrame(rows).T)


@dataclass(frozen=True)
class SamplingComparison:
    """The exact covering radius of m = 4d random directions against the max-min over N random queries.

    Attributes
    ----------
    table : DataFrame
        One row per (d, N); columns ``d``, ``m``, ``n_samples``, ``exact``, ``sampled``, ``error`` (exact -
        sampled, rad), ``exact s`` and ``sampled s`` (seconds).
    """

    table: pd.DataFrame

    @property
    def n_samples(self) -> int:
        """The largest number of queries compared."""
        return int(self.table["n_samples"].max())

    def error(self, d: int) -> float:
        """exact - sampled at dimension ``d`` with the most queries."""
        last = self.table[self.table["n_samples"] == self.n_samples].set_index("d")
        return float(last.loc[d, "error"])

    def quantities(self) -> dict[str, float]:
        """``n_samples`` and ``error_d{d}`` for every dimension compared."""
        dims = sorted(set(self.table["d"]))
        return {"n_samples": self.n_samples, **{f"error_d{d}": self.error(d) for d in dims}}


def compare_sampling(dims: Sequence[int], n_samples: Sequence[int], seed: int = 0) -> SamplingComparison:
    """For each d, 4d directions drawn with seed ``seed + d``; exact radius against each N of ``n_samples``."""
    rows = []
    for d in dims:
        U = covering.random_directions(4 * d, d, np.random.default_rng(seed + d))
        ex = covering.covering_radius(U)
        for N in n_samples:
            mc = covering.covering_radius(U, method="mc", n_samples=N, seed=seed)
            rows.append(
                {"d": d, "m": 4 * d, "n_samples": N, "exact": ex.omega, "sampled": mc.omega,
                 "error": ex.omega - mc.omega, "exact s": ex.seconds, "sampled s": mc.seconds}
            )  # fmt: skip
    return SamplingComparison(pd.DataFrame(rows))


@dataclass(frozen=True)
class BoundChecks:
    """Theorem 2(a) on random pairs of bodies: the exact Hausdorff distance against eps + 2R omega.

    Attributes
    ----------
    table : DataFrame
        One row per pair (:func:`blindspot.prognose.indistinguishability.check_visible_bound`): ``eps``,
        ``omega``, ``bound``, ``trivial`` (2R), ``delta_H``, with the design's ``d`` and ``m``.
    """

    table: pd.DataFrame

    @property
    def n_pairs(self) -> int:
        return len(self.table)

    @property
    def n_violations(self) -> int:
        """Pairs whose exact Hausdorff distance exceeds the bound (tolerance 1e-9)."""
        return int((self.table.delta_H > self.table.bound + 1e-9).sum())

    @property
    def share_vacuous(self) -> float:
        """Percentage of the pairs whose bound exceeds the trivial 2R."""
        return 100 * float((self.table.bound > self.table.trivial).mean())

    def summary(self) -> pd.DataFrame:
        """Means of eps, omega, bound and delta_H per design (d, m)."""
        return self.table.groupby(["d", "m"])[["eps", "omega", "bound", "delta_H"]].mean()

    def quantities(self) -> dict[str, float]:
        return {"n_pairs": self.n_pairs, "n_violations": self.n_violations, "share_vacuous": self.share_vacuous}


def check_bound(designs: Sequence[tuple[int, int]], n_pairs: int, R: float = 1.0, seed: int = 0) -> BoundChecks:
    """``n_pairs`` random pairs per design (d, m), seeded ``seed + d``."""
    parts = [ind.check_visible_bound(d, m, R=R, n_pairs=n_pairs, seed=seed + d).assign(d=d, m=m) for d, m in designs]
    return BoundChecks(pd.concat(parts, ignore_index=True))


def witness_table(sets: Mapping[str, np.ndarray], R: float = 1.0) -> pd.DataFrame:
    """Theorem 2(d)'s construction on each direction set: columns ``omega``, ``t = delta_H``,
    ``max |width gap| on benchmarks`` (zero up to rounding) and ``2 R omega``; one row per set."""
    rows = {}
    for label, U in sets.items():
        w = ind.lipschitz_witness(U, R=R)
        rows[label] = {
            "omega": w.omega,
            "t = delta_H": w.delta_H,
            "max |width gap| on benchmarks": np.abs(w.width_residuals()).max(),
            "2 R omega": 2 * R * w.omega,
        }
    return pd.DataFrame(rows).T


@dataclass(frozen=True)
class RateFits:
    """The fitted decay of the exact covering radius of random directions, per dimension.

    Attributes
    ----------
    rates : dict of int to CoveringRate
        d -> the fit (:func:`blindspot.core.covering.covering_rate`).
    """

    rates: dict[int, CoveringRate]

    @property
    def gaps(self) -> dict[int, float]:
        """d -> |fitted slope - (-1/(d-1))|."""
        return {d: abs(r.slope - r.theory) for d, r in self.rates.items()}

    @property
    def table(self) -> pd.DataFrame:
        """One row per d: ``m range``, ``trials``, ``slope``, ``95% lo``, ``95% hi``, ``slope vs log(m/log m)``,
        ``theory -1/(d-1)`` and ``|slope - theory|``."""
        return pd.DataFrame(
            {
                d: {"m range": f"{r.ms[0]}-{r.ms[-1]}", "trials": r.omegas.shape[0], "slope": r.slope,
                    "95% lo": r.slope_lo, "95% hi": r.slope_hi, "slope vs log(m/log m)": r.slope_log_corrected,
                    "theory -1/(d-1)": r.theory, "|slope - theory|": abs(r.slope - r.theory)}
                for d, r in self.rates.items()
            }
        ).T  # fmt: skip

    def quantities(self) -> dict[str, float]:
        """``slope_d{d}`` and ``slope_lc_d{d}`` (against log(m/log m)) for every d."""
        out = {f"slope_d{d}": r.slope for d, r in self.rates.items()}
        return out | {f"slope_lc_d{d}": r.slope_log_corrected for d, r in self.rates.items()}


def fit_rates(designs: Mapping[int, Sequence[int]], n_trials: int, seed: int = 0, halve_from: int = 8) -> RateFits:
    """:func:`~blindspot.core.covering.covering_rate` for each d -> ms; from d = ``halve_from`` on with half the
    trials (at least 2), the exact radius being costly there."""
    return RateFits(
        {d: covering.covering_rate(d, ms, n_trials=n_trials if d < halve_from else max(n_trials // 2, 2), seed=seed)
         for d, ms in designs.items()}
    )  # fmt: skip


@dataclass(frozen=True)
class ClusteredRate:
    """The exact covering radius of m directions within ``half_angle`` of one axis, for growing m.

    Attributes
    ----------
    ms : tuple of int
    omegas : ndarray
        The exact radius for each m.
    half_angle : float
        The cap's half-angle (rad).
    d : int
    """

    ms: tuple[int, ...]
    omegas: np.ndarray
    half_angle: float
    d: int = 3

    @property
    def constants(self) -> np.ndarray:
        """The constant the rate form needs: omega_m / (sqrt(d) (log m / m)^{1/(d-1)})."""
        m = np.asarray(self.ms)
        return self.omegas / (math.sqrt(self.d) * (np.log(m) / m) ** (1 / (self.d - 1)))

    @property
    def table(self) -> pd.DataFrame:
        """Indexed by m: ``omega (exact)``, ``pi/2 - cap``, ``constant the rate needs``."""
        return pd.DataFrame(
            {"omega (exact)": self.omegas, "pi/2 - cap": math.pi / 2 - self.half_angle,
             "constant the rate needs": self.constants},
            index=list(self.ms),
        )  # fmt: skip

    def quantities(self) -> dict[str, float]:
        C = self.constants
        return {"min_omega": float(self.omegas.min()), "half_angle": self.half_angle, "constant_first": float(C[0]),
                "constant_last": float(C[-1]), "m_first": self.ms[0], "m_last": self.ms[-1]}  # fmt: skip


def clustered_rate(ms: Sequence[int], half_angle: float, d: int = 3, seed: int = 0) -> ClusteredRate:
    """One generator seeded ``seed`` draws each set in turn (:func:`~.indistinguishability.clustered_directions`)."""
    rng = np.random.default_rng(seed)
    omegas = [covering.covering_radius(ind.clustered_directions(m, d, half_angle, rng)).omega for m in ms]
    return ClusteredRate(tuple(ms), np.array(omegas), half_angle, d)


@dataclass(frozen=True)
class AppCRow:
    """App. C's covering radius of 12 directions in dimension d, against what the book computes (rad).

    Attributes
    ----------
    d : int
    paper : float
        The printed value.
    stated, unit : float
        The stated bound C_d ((d-1) log m/m)^{1/(d-1)} with C_d = sqrt(2d) and with C_d = 1.
    c_needed : float
        The constant the printed value needs (paper / unit).
    lower_bound : float
        A volumetric lower bound on the optimal radius of m lines.
    found_lines, found_points : float
        The radius of m lines (signed points) found by a seeded local search: an upper bound on the optimum.
    """

    d: int
    paper: float
    stated: float
    unit: float
    c_needed: float
    lower_bound: float
    found_lines: float
    found_points: float


#: The display columns of :attr:`AppCConstants.table`, in order, for the fields of :class:`AppCRow`.
_APPC_COLUMNS = {
    "paper": "paper (App. C)",
    "stated": "C_d = sqrt(2d)",
    "unit": "C_d = 1",
    "c_needed": "C_d needed",
    "lower_bound": "lower bound, 12 lines",
    "found_lines": "found, 12 lines",
    "found_points": "found, 12 signed points",
}


@dataclass(frozen=True)
class AppCConstants:
    """App. C's constants, one :class:`AppCRow` per dimension.

    Attributes
    ----------
    rows : dict of int to AppCRow
    """

    rows: dict[int, AppCRow]

    @property
    def table(self) -> pd.DataFrame:
        """Indexed by d; columns ``paper (App. C)``, ``C_d = sqrt(2d)``, ``C_d = 1``, ``C_d needed``, ``lower bound,
        12 lines``, ``found, 12 lines``, ``found, 12 signed points``."""
        t = pd.DataFrame({d: {col: getattr(r, f) for f, col in _APPC_COLUMNS.items()} for d, r in self.rows.items()}).T
        t.index.name = "d"
        return t

    def quantities(self, dims: Sequence[int] = (3, 4, 5)) -> dict[str, float]:
        """``c_needed_lo`` and ``c_needed_hi`` over ``dims``, and each printed value as ``paper_d{d}``."""
        needed = [self.rows[d].c_needed for d in dims]
        return {"c_needed_lo": min(needed), "c_needed_hi": max(needed)} | {
            f"paper_d{d}": r.paper for d, r in self.rows.items()
        }


def appc_constants(paper: Mapping[int, float], m: int = 12, n_iter: int = 400, seed: int = 0) -> AppCConstants:
    """Each printed value of ``paper`` (d -> value) against the stated bound, the bound with C_d = 1, a
    volumetric lower bound and a seeded search for ``m`` lines and ``m`` signed points."""
    rows = {}
    for d, printed in paper.items():
        unit = ind.covering_radius_stated(d, m, 1.0)
        rows[d] = AppCRow(
            d,
            printed,
            ind.covering_radius_stated(d, m, math.sqrt(2 * d)),
            unit,
            printed / unit,
            ind.covering_lower_bound(m, d),
            ind.covering_search(m, d, n_iter=n_iter, seed=seed).omega,
            ind.covering_search(m, d, projective=False, n_iter=n_iter, seed=seed).omega,
        )
    return AppCConstants(rows)


def curse_factors(dims: Sequence[int], delta: float = 0.1, R: float = 100.0) -> dict[int, float]:
    """d -> how many times more benchmarks halving delta costs, from the rate form (eps = 0, C = 1)."""
    return {d: ind.min_benchmarks(delta / 2, 0, R, d, 1.0) / ind.min_benchmarks(delta, 0, R, d, 1.0) for d in dims}


@dataclass(frozen=True)
class SuiteCover:
    """A suite's benchmark directions (on its frontier) against random directions of the same size.

    Attributes
    ----------
    name : str
        The frontier's name (the suite's when no frontier could be placed).
    n_frontier : int
        Models on the frontier.
    comparison : RandomComparison or None
        None when the frontier is too small to place directions (fewer than 3 models or 2 benchmarks).
    """

    name: str
    n_frontier: int
    comparison: ind.RandomComparison | None

    @property
    def note(self) -> str:
        """Why the check is skipped (empty when it ran)."""
        if self.comparison is not None:
            return ""
        return (
            f":::{{important}}\nThe frontier of {self.name} keeps {self.n_frontier} model(s); placing benchmark "
            "directions needs a correlation matrix of at least 3 models, so this check is skipped.\n:::"
        )

    def table(self) -> pd.DataFrame | None:
        """The comparison's one-row table (:meth:`RandomComparison.table`), None when skipped."""
        return None if self.comparison is None else self.comparison.table(self.name)

    def quantities(self) -> dict[str, float | str]:
        """``name`` and ``share`` (percent of the random sets covering worse; NaN when skipped)."""
        share = float("nan") if self.comparison is None else 100 * self.comparison.share_random_worse
        return {"name": self.name, "share": share}


def suite_cover(board: ScoreTable, n_random: int = 100, seed: int = 0) -> SuiteCover:
    """Place the frontier's benchmarks as directions (:func:`~.visible_radius.benchmark_directions`) and
    compare their exact covering radius with ``n_random`` random sets (:func:`~.compare_with_random`)."""
    n_front = int(conventions.frontier_mask(board).sum())
    if n_front < 3 or board.n_benchmarks < 2:
        return SuiteCover(board.name, n_front, None)
    front = conventions.frontier(board)
    placed = visible_radius.benchmark_directions(front)
    return SuiteCover(front.name, n_front, ind.compare_with_random(placed.directions, n_random=n_random, seed=seed))
