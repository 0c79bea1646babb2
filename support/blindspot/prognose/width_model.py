"""Proposition 1, the width model, and its linearisation diagnostics (paper App. H.10, H.15).

Proposition 1 (eq. (1), as in the paper's LaTeX source): a benchmark pi that is monotone, L-Lipschitz and
eta-smooth around c0 (|pi(c) - pi(c0) - <grad pi(c0), c - c0>| <= eta ||c - c0||^2) satisfies, as
*stated*,

    |pi(c_i) - pi(c_j) - (h_K(a) - h_L(a))| <= eta diam^2,   a = grad pi(c0) / ||grad pi(c0)||,

with K = {c_i}, L = {c_j}, so h_K(a) - h_L(a) = <c_i - c_j, a>. The proof gives instead

    |pi(c_i) - pi(c_j) - ||grad pi(c0)|| <c_i - c_j, a>| <= 2 eta diam^2          (corrected)

(the gradient norm and a factor 2 are lost in the statement): :func:`width_model_check`. The statement
fails even for a unit gradient: :func:`triangle_counterexample` meets every hypothesis (checked by
:func:`check_hypotheses`) and has left side sqrt(3) eta diam^2 > eta diam^2.

The empirical side (H.15, the paper's ``validation_v6.w1``) regresses each z-scored benchmark on
the top 5 principal components of the z-scored matrix, linearly and with the 6 quadratic terms of
the top 3 PCs; H.10 reports per-benchmark Lipschitz constants max |dZ_b| / ||dZ||, which are <= 1
for any data (|x_b| <= ||x||_2): :func:`linearisation_diagnostics`, :func:`lipschitz_constants`.
:func:`gap_vs_delta2` puts the diagnostics beside the top gap Delta_2 for any score matrix.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations_with_replacement

import numpy as np
import pandas as pd

from blindspot.core.conventions import ArrayLike, as_matrix, top_gap, zscore

__all__ = [
    "pc_scores",
    "linearisation_diagnostics",
    "lipschitz_constants",
    "WidthSummary",
    "summarise",
    "GapVsDelta2",
    "gap_vs_delta2",
    "WidthModelCheck",
    "width_model_check",
    "HypothesisCheck",
    "check_hypotheses",
    "Prop1Counterexample",
    "triangle_counterexample",
]


def pc_scores(Z: np.ndarray, n_pc: int = 5) -> np.ndarray:
    """Principal-component scores U[:, :n_pc] * s[:n_pc] of a (centred) matrix Z (SVD, as the paper's code)."""
    if not 1 <= n_pc <= min(Z.shape):
        raise ValueError(f"n_pc must be in [1, {min(Z.shape)}], got {n_pc}")
    U, s, _ = np.linalg.svd(Z, full_matrices=False)
    return U[:, :n_pc] * s[:n_pc]


def _r2(y: np.ndarray, X: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    r = y - X @ beta
    ss_tot = float(((y - y.mean()) ** 2).sum())
    return 1.0 - float((r**2).sum()) / max(ss_tot, 1e-12), beta, r


def _pair_ratio_max(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """max over pairs i < j of |num_i - num_j| / den_ij, for each column of num (n, m); den (n, n)."""
    n = num.shape[0]
    i, j = np.triu_indices(n, 1)
    d = den[i, j]
    ok = d > 1e-9
    out = np.zeros(num.shape[1])
    step = max(1, 2_000_000 // max(num.shape[1], 1))
    ii, jj, dd = i[ok], j[ok], d[ok]
    for s in range(0, ii.size, step):
        sl = slice(s, s + step)
        r = np.abs(num[ii[sl]] - num[jj[sl]]) / dd[sl, None]
        out = np.maximum(out, r.max(axis=0))
    return out


def linearisation_diagnostics(
    S: ArrayLike, n_pc: int = 5, n_quad_pc: int = 3, benchmarks: list[str] | None = None
) -> pd.DataFrame:
    """Per-benchmark linear vs quadratic fit on the top PCs (App. H.15, as the paper's code computes it).

    Z = zscore(S); PCs = U[:, :n_pc] s[:n_pc]. For each benchmark y = Z[:, b]:

    * ``r2_lin``: R^2 of y ~ 1 + n_pc PCs; ``r2_quad``: adding PC_a PC_b for a <= b < n_quad_pc;
      ``gap`` = r2_quad - r2_lin (a unitless variance fraction);
    * ``eta_max`` = max_{i<i'} |r_i - r_i'| / ||pc_i - pc_i'||^2 with r the linear residuals
      (the smallest eta consistent with the residuals; in 1 / z-units);
    * ``sf_err`` = median |y - (pcs a_hat sd(y) + mean(y))|, a_hat = beta_{1:n_pc} / ||beta_{1:n_pc}||.

    In-sample: the PCs are built from Z, which contains y itself (as in App. H.15).
    """
    X = as_matrix(S)
    if not 1 <= n_quad_pc <= n_pc:
        raise ValueError(f"n_quad_pc must be in [1, n_pc={n_pc}], got {n_quad_pc}")
    n, k = X.shape
    if n <= 1 + n_pc + n_quad_pc * (n_quad_pc + 1) // 2:
        raise ValueError(f"{n} models are too few to fit the quadratic model on {n_pc} + quadratic PC terms")
    names = benchmarks or [f"b{j}" for j in range(k)]
    if len(names) != k:
        raise ValueError(f"got {len(names)} benchmark names for {k} columns")
    Z = zscore(X)
    pcs = pc_scores(Z, n_pc)
    A = np.hstack([np.ones((n, 1)), pcs])
    quad = [pcs[:, a] * pcs[:, b] for a, b in combinations_with_replacement(range(n_quad_pc), 2)]
    Aq = np.hstack([A, np.column_stack(quad)])
    rows, resid = [], []
    for j in range(k):
        y = Z[:, j]
        r2l, beta, r = _r2(y, A)
        r2q, _, _ = _r2(y, Aq)
        g = beta[1:]
        a_hat = g / np.linalg.norm(g) if np.linalg.norm(g) > 1e-12 else np.zeros_like(g)
        sf = float(np.median(np.abs(y - (pcs @ a_hat * y.std() + y.mean()))))
        rows.append({"benchmark": names[j], "r2_lin": r2l, "r2_quad": r2q, "gap": r2q - r2l, "sf_err": sf})
        resid.append(r)
    D2 = ((pcs[:, None, :] - pcs[None, :, :]) ** 2).sum(axis=-1)
    eta = _pair_ratio_max(np.column_stack(resid), D2)
    out = pd.DataFrame(rows).set_index("benchmark")
    out["eta_max"] = eta
    return out[["r2_lin", "r2_quad", "gap", "eta_max", "sf_err"]]


def lipschitz_constants(S: ArrayLike, benchmarks: list[str] | None = None) -> pd.Series:
    """L_b = max_{i != i'} |Z_ib - Z_i'b| / ||Z_i - Z_i'||_2 on z-scores (App. H.10).

    Always <= 1, because |x_b| <= ||x||_2 for any vector: a tautology, not the empirical check
    App. H.10 presents it as.
    """
    X = as_matrix(S)
    Z = zscore(X)
    k = Z.shape[1]
    names = benchmarks or [f"b{j}" for j in range(k)]
    if len(names) != k:
        raise ValueError(f"got {len(names)} benchmark names for {k} columns")
    D = np.sqrt(((Z[:, None, :] - Z[None, :, :]) ** 2).sum(axis=-1))
    return pd.Series(_pair_ratio_max(Z, D), index=names, name="L_b")


@dataclass(frozen=True)
class WidthSummary:
    """The H.15 headline numbers of one population."""

    r2_min: float
    r2_min_benchmark: str
    r2_median: float
    r2_max: float
    r2_max_benchmark: str
    gap_max: float
    gap_max_benchmark: str
    gap_median: float
    sf_median: float
    eta_min: float
    eta_max: float


def summarise(diag: pd.DataFrame) -> WidthSummary:
    """Min / median / max R^2 (with the benchmarks), largest and median gap, median sf error, eta range."""
    r = diag["r2_lin"]
    return WidthSummary(
        float(r.min()),
        str(r.idxmin()),
        float(r.median()),
        float(r.max()),
        str(r.idxmax()),
        float(diag["gap"].max()),
        str(diag["gap"].idxmax()),
        float(diag["gap"].median()),
        float(diag["sf_err"].median()),
        float(diag["eta_max"].min()),
        float(diag["eta_max"].max()),
    )


@dataclass(frozen=True)
class GapVsDelta2:
    """The quadratic-linear R^2 gap beside the top gap Delta_2, in the units each lives in.

    The paper's "epsilon <= 0.067" reads an R^2 gap (a unitless variance fraction) as a tolerance in
    score units.

    Attributes
    ----------
    gap_max : float
        Largest quadratic - linear R^2 gap (a fraction of a benchmark's variance; no units). The
        paper reads it as a tolerance "epsilon <= 0.067" next to Delta_2.
    delta2 : float
        The aggregate gap between the top two models (z-units).
    eta_max : float
        Largest per-benchmark eta_max (1 / z-units).
    top_pair_distance : float
        ||pc_(1) - pc_(2)|| of the top two models (by aggregate) in the PC space (z-units).
    top_pair_residual : float
        max over benchmarks of |r_(1) - r_(2)|: how far the linear (width) model actually misjudges
        the top pair's difference on its worst benchmark (z-units).
    top_pair_bound : float
        eta_max ||pc_(1) - pc_(2)||^2: what the fitted smoothness constant allows for that pair.
    resolves_top_pair : bool
        top_pair_residual < delta2: only then is the width model's error below the gap it is
        asked to explain.
    top_pair_by_benchmark : Series
        |r_(1) - r_(2)| for each benchmark.
    """

    gap_max: float
    delta2: float
    eta_max: float
    top_pair_distance: float
    top_pair_residual: float
    top_pair_bound: float
    resolves_top_pair: bool
    diagnostics: pd.DataFrame
    top_pair_by_benchmark: pd.Series


def gap_vs_delta2(S: ArrayLike, n_pc: int = 5, n_quad_pc: int = 3, benchmarks: list[str] | None = None) -> GapVsDelta2:
    """Is the width model's linearisation error small next to Delta_2 on this leaderboard?

    The paper compares the R^2 gap (<= 0.067) with Delta_2 (0.072) as if both were score
    tolerances. This function reports both, plus quantities in Delta_2's units: the linear model's
    actual error on the top pair's difference, and the bound eta_max ||c_1 - c_2||^2.
    """
    X = as_matrix(S)
    diag = linearisation_diagnostics(X, n_pc, n_quad_pc, benchmarks)
    Z = zscore(X)
    pcs = pc_scores(Z, n_pc)
    A = np.hstack([np.ones((X.shape[0], 1)), pcs])
    beta, *_ = np.linalg.lstsq(A, Z, rcond=None)
    R = Z - A @ beta
    o = np.argsort(-Z.mean(axis=1), kind="stable")
    dist = float(np.linalg.norm(pcs[o[0]] - pcs[o[1]]))
    by_b = pd.Series(np.abs(R[o[0]] - R[o[1]]), index=diag.index, name="top_pair_residual")
    resid = float(by_b.max())
    eta = float(diag["eta_max"].max())
    d2 = top_gap(X)
    return GapVsDelta2(float(diag["gap"].max()), d2, eta, dist, resid, eta * dist**2, bool(resid < d2), diag, by_b)


@dataclass(frozen=True)
class WidthModelCheck:
    """Largest violation (lhs - rhs, > 0 means the inequality fails) of the stated and corrected forms."""

    max_violation_stated: float
    max_violation_corrected: float
    n_pairs: int
    grad_norm: float
    diam: float

    @property
    def stated_holds(self) -> bool:
        return self.max_violation_stated <= 1e-12

    @property
    def corrected_holds(self) -> bool:
        return self.max_violation_corrected <= 1e-12


def width_model_check(
    pi: Callable[[np.ndarray], np.ndarray], grad: np.ndarray, c0: np.ndarray, C_pop: np.ndarray, eta: float
) -> WidthModelCheck:
    """Check Proposition 1 on every pair of a population of capability vectors, as stated and as the proof gives it
    (see the module docstring).

    Parameters
    ----------
    pi : callable
        The benchmark, mapping capability vectors (n, D) to scores (n,).
    grad : array (D,)
        grad pi(c0).
    c0 : array (D,)
        Expansion point.
    C_pop : array (n, D)
        Population of capability vectors; diam = max pairwise distance.
    eta : float
        Smoothness constant with |pi(c) - pi(c0) - <grad, c - c0>| <= eta ||c - c0||^2 on the population.
    """
    C = np.asarray(C_pop, dtype=float)
    g = np.asarray(grad, dtype=float).ravel()
    if C.ndim != 2 or C.shape[0] < 2:
        raise ValueError(f"C_pop must be (n >= 2, D), got shape {C.shape}")
    if g.size != C.shape[1] or np.asarray(c0).size != C.shape[1]:
        raise ValueError("grad and c0 must have the population's dimension D")
    gn = float(np.linalg.norm(g))
    if gn <= 0:
        raise ValueError("grad pi(c0) is zero: the direction a_pi is undefined")
    if eta < 0:
        raise ValueError(f"eta must be >= 0, got {eta}")
    a = g / gn
    p = np.asarray(pi(C), dtype=float)
    i, j = np.triu_indices(C.shape[0], 1)
    diff = C[i] - C[j]
    diam = float(np.sqrt((diff**2).sum(axis=1)).max())
    proj = diff @ a
    dp = p[i] - p[j]
    stated = np.abs(dp - proj) - eta * diam**2
    corrected = np.abs(dp - gn * proj) - 2.0 * eta * diam**2
    return WidthModelCheck(float(stated.max()), float(corrected.max()), int(i.size), gn, diam)


@dataclass(frozen=True)
class HypothesisCheck:
    """Proposition 1's hypotheses on a sample of the population's convex hull.

    Attributes
    ----------
    min_partial : float
        Smallest partial derivative of pi over the sample: > 0 means pi is increasing in every
        coordinate there (hypothesis (i), monotone).
    max_remainder_ratio : float
        Largest |pi(c) - pi(c0) - <grad pi(c0), c - c0>| / ||c - c0||^2 over the sample: the smallest
        eta for which the smoothness hypothesis holds there.
    grad_norm : float
        ||grad pi(c0)||.
    n_points : int
        Sample size (the population and random convex combinations of it).
    """

    min_partial: float
    max_remainder_ratio: float
    grad_norm: float
    n_points: int

    @property
    def monotone(self) -> bool:
        return self.min_partial > 0

    def smooth(self, eta: float) -> bool:
        """The smoothness hypothesis holds on the sample with constant eta."""
        return self.max_remainder_ratio <= eta + 1e-12


def check_hypotheses(
    pi: Callable[[np.ndarray], np.ndarray],
    grad: Callable[[np.ndarray], np.ndarray],
    c0: np.ndarray,
    C_pop: np.ndarray,
    n_samples: int = 4000,
    seed: int = 0,
) -> HypothesisCheck:
    """Check Proposition 1's hypotheses on the convex hull of a population (sampled).

    The hull is sampled by the population points and ``n_samples`` random convex combinations of them
    (Dirichlet(1) weights, ``default_rng(seed)``). ``grad`` maps points (n, D) to gradients (n, D).
    """
    C = np.asarray(C_pop, dtype=float)
    if C.ndim != 2 or C.shape[0] < 2:
        raise ValueError(f"C_pop must be (n >= 2, D), got shape {C.shape}")
    c0 = np.asarray(c0, dtype=float).ravel()
    if c0.size != C.shape[1]:
        raise ValueError("c0 must have the population's dimension D")
    if n_samples < 0:
        raise ValueError(f"n_samples must be >= 0, got {n_samples}")
    rng = np.random.default_rng(seed)
    X = np.vstack([C, rng.dirichlet(np.ones(C.shape[0]), size=n_samples) @ C])
    G = np.asarray(grad(X), dtype=float)
    g0 = np.asarray(grad(c0[None, :]), dtype=float).ravel()
    d = X - c0
    r2 = (d**2).sum(axis=1)
    far = r2 > 1e-12
    rem = np.abs(np.asarray(pi(X), dtype=float) - float(np.asarray(pi(c0[None, :])).ravel()[0]) - d @ g0)
    ratio = float((rem[far] / r2[far]).max()) if far.any() else 0.0
    return HypothesisCheck(float(G.min()), ratio, float(np.linalg.norm(g0)), int(X.shape[0]))


@dataclass(frozen=True)
class Prop1Counterexample:
    """A benchmark that meets every hypothesis of Proposition 1 and breaks its stated bound.

    Population: the equilateral triangle (0, 0), (1, 0), (1/2, sqrt(3)/2) (diam = 1), c0 = (0, 0);
    pi(c) = <a, c> + eta (<c, u>^2 - <c, w>^2) with a = (1, 1)/sqrt(2), u at -15 degrees and w
    orthogonal to it, so grad pi(c0) = a has unit norm and the remainder is eta (<d, u>^2 - <d, w>^2),
    at most eta ||d||^2 in size.

    Attributes
    ----------
    lhs : float
        max over pairs of |pi(c_i) - pi(c_j) - <c_i - c_j, a>| (= sqrt(3) eta for this triangle).
    rhs : float
        eta diam^2, the stated bound.
    check : WidthModelCheck
    hypotheses : HypothesisCheck
    """

    C: np.ndarray
    a: np.ndarray
    u: np.ndarray
    w: np.ndarray
    eta: float
    lhs: float
    rhs: float
    check: WidthModelCheck
    hypotheses: HypothesisCheck

    @property
    def meets_hypotheses(self) -> bool:
        return (
            self.hypotheses.monotone and self.hypotheses.smooth(self.eta) and abs(self.hypotheses.grad_norm - 1) < 1e-12
        )

    @property
    def refutes_statement(self) -> bool:
        """Every hypothesis holds and the stated inequality fails."""
        return self.meets_hypotheses and not self.check.stated_holds


def triangle_counterexample(eta: float = 0.1, angle_u: float = -15.0) -> Prop1Counterexample:
    """Proposition 1's stated bound fails for a monotone, smooth benchmark with a unit gradient.

    The left side is eta |Q(c_i) - Q(c_j)| with Q(c) = <c, u>^2 - <c, w>^2 = ||c||^2 cos 2(phi_c - phi_u);
    for the triangle's vertices at 0 and 60 degrees and phi_u = -15 degrees it is sqrt(3) eta, against
    eta diam^2 = eta. The proof's bound 2 eta diam^2 holds. Monotone for eta < 1/(2 sqrt 2): the gradient
    a + 2 eta (<c, u> u - <c, w> w) stays within 2 eta of a on the hull (||c|| <= 1).
    """
    if not 0 < eta < 1 / (2 * np.sqrt(2)):
        raise ValueError(f"eta must lie in (0, {1 / (2 * np.sqrt(2)):.4f}) for the benchmark to be monotone, got {eta}")
    C = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])
    a = np.array([1.0, 1.0]) / np.sqrt(2)
    t = np.deg2rad(angle_u)
    u = np.array([np.cos(t), np.sin(t)])
    w = np.array([-np.sin(t), np.cos(t)])

    def pi(X: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(X)
        return X @ a + eta * ((X @ u) ** 2 - (X @ w) ** 2)

    def grad(X: np.ndarray) -> np.ndarray:
        X = np.atleast_2d(X)
        return a + 2 * eta * (np.outer(X @ u, u) - np.outer(X @ w, w))

    c0 = np.zeros(2)
    chk = width_model_check(pi, grad(c0)[0], c0, C, eta)
    hyp = check_hypotheses(pi, grad, c0, C)
    rhs = eta * chk.diam**2
    return Prop1Counterexample(C, a, u, w, float(eta), chk.max_violation_stated + rhs, rhs, chk, hyp)
