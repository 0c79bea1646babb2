"""What Theorem 4 claims about greedy coverage, checked: submodularity, the greedy guarantee, the min-r bound."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.core.coverage import (
    MAX_BRUTE_K,
    BruteForce,
    GreedyResult,
    all_subset_coverages,
    brute_force_optimum,
    check_target,
    greedy_orders,
    greedy_select,
    min_r_for_target,
    subset_sizes,
    validate_sigma,
    validate_sigma_stack,
)
from blindspot.core.spectrum import participation_ratio

__all__ = [
    "COUNTEREXAMPLE_3X3",
    "SubmodularityCheck",
    "SubmodularityRatio",
    "SingletonBound",
    "approximation_ratios",
    "submodularity_violations",
    "submodularity_ratio",
    "greedy_guarantee",
    "minr_bound_paper",
    "singleton_bound",
    "GreedyAudit",
    "greedy_audit",
    "RATIO_MAX_K",
    "MinRCheck",
    "minr_check",
]

#: Largest k for which :func:`greedy_audit` computes the submodularity ratio by default: it enumerates
#: 3^k pairs (L, S), a few seconds at k = 14 and over a minute at k = 16 on one core.
RATIO_MAX_K = 14


#: A positive-definite 3 x 3 correlation on which f is not submodular (against Theorem 4(a)): with 1-based
#: indices, f({2}) = 0.4989 < f({1, 2}) - f({1}) = 0.5226.
COUNTEREXAMPLE_3X3 = np.array([[1.0, 0.3, 0.5], [0.3, 1.0, -0.6], [0.5, -0.6, 1.0]])


def approximation_ratios(Sigmas: np.ndarray, batch: int = 64) -> np.ndarray:
    """f(greedy_r) / max_{|T| = r} f(T) for r = 1..k, for each matrix of a stack (B, k, k) -> (B, k).

    Vectorised: one batched greedy run and one batched lattice enumeration per ``batch`` matrices.
    """
    S = validate_sigma_stack(Sigmas)
    B, k, _ = S.shape
    out = np.empty((B, k))
    size = subset_sizes(k)
    for b0 in range(0, B, batch):
        Sb = S[b0 : b0 + batch]
        _, cov = greedy_orders(Sb)
        f = all_subset_coverages(Sb)
        opt = np.stack([f[:, size == r].max(axis=1) for r in range(1, k + 1)], axis=1)
        out[b0 : b0 + batch] = cov / opt
    return out


# --------------------------------------------------------------------------------------------
# submodularity: violations and the submodularity ratio
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SubmodularityCheck:
    """Diminishing-returns comparisons f(A+x) - f(A) >= f(A+y+x) - f(A+y) over all A, x != y not in A.

    There are k (k - 1) 2^(k - 2) of them (135,168 for k = 12). ``example`` is the worst violation:
    (A as a tuple of indices, x, y, gain of x at A, gain of x at A + y).
    """

    n_violations: int
    n_total: int
    max_violation: float
    example: tuple[tuple[int, ...], int, int, float, float] | None

    @property
    def fraction(self) -> float:
        return self.n_violations / self.n_total if self.n_total else 0.0

    @property
    def submodular(self) -> bool:
        return self.n_violations == 0


def submodularity_violations(
    Sigma: np.ndarray | pd.DataFrame, tol: float = 1e-12, f: np.ndarray | None = None
) -> SubmodularityCheck:
    """Count violations of diminishing returns for f (Theorem 4(a) claims none).

    A violation is gain_x(A + y) > gain_x(A) + tol: adding y first makes x *more* useful (a
    suppressor effect). ``f`` may pass a precomputed :func:`all_subset_coverages` table.
    """
    if f is None:
        f = all_subset_coverages(validate_sigma(Sigma).sigma)
    k = int(round(math.log2(f.size)))
    masks = np.arange(1 << k)
    n_viol, n_total, worst, example = 0, 0, 0.0, None
    for x in range(k):
        for y in range(k):
            if x == y:
                continue
            A = masks[((masks >> x) & 1 == 0) & ((masks >> y) & 1 == 0)]
            g_a = f[A | (1 << x)] - f[A]
            g_ay = f[A | (1 << x) | (1 << y)] - f[A | (1 << y)]
            d = g_ay - g_a
            n_total += A.size
            n_viol += int((d > tol).sum())
            i = int(np.argmax(d))
            if d[i] > max(worst, tol):
                worst = float(d[i])
                example = (tuple(j for j in range(k) if A[i] >> j & 1), x, y, float(g_a[i]), float(g_ay[i]))
    return SubmodularityCheck(n_viol, n_total, worst, example)


@dataclass(frozen=True)
class SubmodularityRatio:
    """gamma = min over disjoint L, S of sum_{x in S} [f(L+x) - f(L)] / [f(L+S) - f(L)] (Das & Kempe 2011).

    ``argmin`` gives (L, S) as index tuples. gamma = 1 for submodular f; gamma < 1 measures how far
    f is from submodular, and greedy then guarantees 1 - e^{-gamma} of the optimum.
    """

    gamma: float
    argmin: tuple[tuple[int, ...], tuple[int, ...]]
    max_L: int
    max_S: int
    n_pairs: int

    @property
    def guarantee(self) -> float:
        return greedy_guarantee(self.gamma)


def submodularity_ratio(
    Sigma: np.ndarray | pd.DataFrame,
    max_L: int | None = None,
    max_S: int | None = None,
    f: np.ndarray | None = None,
    tol: float = 1e-12,
) -> SubmodularityRatio:
    """The submodularity ratio gamma of f over all disjoint (L, S) with |L| <= max_L, 2 <= |S| <= max_S.

    gamma_{L,S} = sum_{x in S} (f(L + x) - f(L)) / (f(L + S) - f(L)); pairs whose joint gain is
    below ``tol`` are skipped (then every singleton gain is 0 too, by monotonicity). Exhaustive over
    3^k pairs (k <= 16; use max_L / max_S to restrict). On the Extended frontier gamma = 0.534.
    """
    if f is None:
        f = all_subset_coverages(validate_sigma(Sigma).sigma)
    k = int(round(math.log2(f.size)))
    max_L = k if max_L is None else int(max_L)
    max_S = k if max_S is None else int(max_S)
    if max_S < 2 or max_L < 0:
        raise ValueError(f"need max_S >= 2 (|S| = 1 gives ratio 1) and max_L >= 0, got {max_S}, {max_L}")
    masks = np.arange(1 << k)
    size = subset_sizes(k)
    bits = ((masks[:, None] >> np.arange(k)) & 1).astype(float)  # (2^k, k)
    best, arg, n_pairs = np.inf, ((), ()), 0
    for L in masks[size <= max_L]:
        comp = ((1 << k) - 1) & ~L
        S_all = masks[(masks & L) == 0]
        S_all = S_all[(size[S_all] >= 2) & (size[S_all] <= max_S)]
        if S_all.size == 0:
            continue
        g1 = np.array([f[L | (1 << x)] - f[L] if comp >> x & 1 else 0.0 for x in range(k)])
        num = bits[S_all] @ g1
        den = f[L | S_all] - f[L]
        ok = den > tol
        n_pairs += int(ok.sum())
        if not ok.any():
            continue
        ratio = num[ok] / den[ok]
        i = int(np.argmin(ratio))
        if ratio[i] < best:
            best = float(ratio[i])
            Sm = int(S_all[ok][i])
            arg = (tuple(j for j in range(k) if L >> j & 1), tuple(j for j in range(k) if Sm >> j & 1))
    if not np.isfinite(best):
        best = 1.0
    return SubmodularityRatio(min(best, 1.0), arg, max_L, max_S, n_pairs)


def greedy_guarantee(gamma: float) -> float:
    """1 - e^{-gamma}: greedy's guarantee for a monotone f with submodularity ratio gamma (Das & Kempe 2011).

    gamma = 1 (submodular) gives Nemhauser's 1 - 1/e = 0.632.
    """
    if not 0.0 <= gamma <= 1.0 + 1e-12:
        raise ValueError(f"the submodularity ratio must be in [0, 1], got {gamma}")
    return float(1.0 - math.exp(-gamma))


# --------------------------------------------------------------------------------------------
# the min-r bound (false) and the one-step fact (true)
# --------------------------------------------------------------------------------------------


def minr_bound_paper(k: int, d_eff: float, tau: float = 0.9) -> int:
    """The paper's r_min(tau) <= ceil(ln(1/(1 - tau)) / ln(k / (k - d_eff))) (Theorem 4(c), as stated).

    It is **false**: on Sigma = I (d_eff = k) it gives 0, yet ceil(tau k)
    benchmarks are needed; on the EXT frontier it gives 5 where the optimum needs 7.
    """
    if k < 1 or not 0 < d_eff <= k + 1e-9:
        raise ValueError(f"need k >= 1 and 0 < d_eff <= k, got k={k}, d_eff={d_eff}")
    check_target(tau, None, k)
    if tau >= 1.0:
        raise ValueError("the bound is infinite at tau = 1 (ln(1/0)); use tau < 1")
    if d_eff >= k - 1e-12:
        return 0  # ln(k / 0) = inf, so the ratio is 0
    return int(math.ceil(math.log(1.0 / (1.0 - tau)) / math.log(k / (k - d_eff)) - 1e-12))


@dataclass(frozen=True)
class SingletonBound:
    """max_j f({j}) >= tr Sigma^3 / (tr Sigma tr Sigma^2) >= 1/d_eff (Cauchy–Schwarz; the book's, not the paper's).

    f({j}) = (Sigma^3)_jj / (Sigma^2)_jj; the middle term is the ratio of the sums (a mediant), and
    (tr Sigma^2)^2 <= tr Sigma tr Sigma^3 gives the last step. The paper's claim that the first step
    covers d_eff / k (``paper_first_step``) is the false one.
    """

    best_single: float
    middle: float
    inv_d_eff: float
    paper_first_step: float

    @property
    def holds(self) -> bool:
        return bool(self.best_single >= self.middle - 1e-12 and self.middle >= self.inv_d_eff - 1e-12)


def singleton_bound(Sigma: np.ndarray | pd.DataFrame) -> SingletonBound:
    """The one-step fact that replaces the min-r bound of Theorem 4(c): max_j f({j}) >= 1/d_eff."""
    S = validate_sigma(Sigma).sigma
    k = S.shape[0]
    S2 = S @ S
    d2 = np.diag(S2)
    d3 = np.einsum("ij,ij->j", S2, S)
    ok = d2 > 0
    best = float((d3[ok] / d2[ok]).max() / np.trace(S))
    t1, t2, t3 = np.trace(S), np.trace(S2), d3.sum()
    de = t1**2 / t2
    return SingletonBound(best, float(t3 / (t1 * t2)), float(1.0 / de), float(de / k))


# --------------------------------------------------------------------------------------------
# everything Theorem 4 says, checked on one matrix
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GreedyAudit:
    """Each claim of Theorem 4 evaluated on one Sigma (k <= 16), with what holds instead.

    ``row()`` flattens it for a table: k, d_eff, r for the target by greedy / by the optimum / by
    the paper's bound, the worst greedy/optimum ratio, violations, gamma, the guarantee 1 - e^{-gamma},
    and the one-step fact. ``ratio`` is None when gamma was not computed (k > :data:`RATIO_MAX_K` by
    default); gamma and the guarantee are then missing from ``row()``.
    """

    greedy: GreedyResult
    optimum: BruteForce
    target: float
    d_eff: float
    r_bound_paper: int
    violations: SubmodularityCheck
    ratio: SubmodularityRatio | None
    singleton: SingletonBound

    @property
    def r_greedy(self) -> int:
        return min_r_for_target(self.greedy.coverages, self.target)

    @property
    def r_optimum(self) -> int:
        return self.optimum.min_r(self.target)

    @property
    def approximation(self) -> np.ndarray:
        """f(greedy_r) / f(OPT_r) for r = 1..k."""
        return self.greedy.coverages / self.optimum.values[1:]

    def row(self) -> dict:
        return {
            "k": self.greedy.k,
            "d_eff": self.d_eff,
            "r_greedy": self.r_greedy,
            "r_optimum": self.r_optimum,
            "r_bound_paper": self.r_bound_paper,
            "bound_holds": self.r_bound_paper >= self.r_optimum,
            "min_ratio": float(self.approximation.min()),
            "violations": self.violations.n_violations,
            "comparisons": self.violations.n_total,
            "max_violation": self.violations.max_violation,
            "gamma": None if self.ratio is None else self.ratio.gamma,
            "guarantee": None if self.ratio is None else self.ratio.guarantee,
            "first_step": self.singleton.best_single,
            "one_over_d_eff": self.singleton.inv_d_eff,
            "d_eff_over_k": self.singleton.paper_first_step,
        }


def greedy_audit(
    Sigma: np.ndarray | pd.DataFrame,
    names: Sequence[str] | None = None,
    target: float = 0.9,
    with_ratio: bool | None = None,
) -> GreedyAudit:
    """Greedy, brute-force optimum, submodularity violations and ratio, the paper's min-r bound and
    the one-step fact, all on one Sigma (Theorem 4). Exhaustive: k <= 16 (2^k subsets).

    ``with_ratio``: compute the submodularity ratio gamma (3^k pairs); None computes it when
    k <= :data:`RATIO_MAX_K`.
    """
    inp = validate_sigma(Sigma, names)
    if with_ratio is None:
        with_ratio = inp.k <= RATIO_MAX_K
    check_target(target, None, inp.k)
    f = all_subset_coverages(inp.sigma)
    g = greedy_select(inp.sigma, names=inp.names)
    opt = brute_force_optimum(inp.sigma, names=inp.names)
    de = participation_ratio(np.linalg.eigvalsh(inp.sigma))
    bound = minr_bound_paper(inp.k, min(de, float(inp.k)), target) if target < 1 else inp.k
    return GreedyAudit(
        g,
        opt,
        float(target),
        de,
        bound,
        submodularity_violations(inp.sigma, f=f),
        submodularity_ratio(inp.sigma, f=f) if with_ratio else None,
        singleton_bound(inp.sigma),
    )


# --------------------------------------------------------------------------------------------
# the min-r bound on any k: bracket the optimum when brute force is out of reach
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MinRCheck:
    """Theorem 4(c)'s bound r_min(tau) <= ceil(ln(1/(1 - tau)) / ln(k/(k - d_eff))), checked on one Sigma.

    r_min, the fewest benchmarks any subset needs to reach coverage tau, is bracketed by

    * ``r_lower``: the smallest r whose top r eigenvalues hold a share tau of the trace. A projector of
      rank r captures at most the r largest eigenvalues (Ky Fan's maximum principle), so no r-subset
      covers more: r_min >= r_lower;
    * ``r_greedy``: greedy's count, an r-subset that reaches tau: r_min <= r_greedy;

    and is exact (``r_optimum``) when the 2^k subsets were enumerated (k <= 16). ``holds`` is True when
    the bound is at least r_min (known, or because r_greedy <= bound), False when r_min exceeds it
    (known, or because r_lower > bound), and None when the bracket straddles the bound.
    """

    k: int
    d_eff: float
    target: float
    bound: int
    r_lower: int
    r_greedy: int
    r_optimum: int | None

    @property
    def holds(self) -> bool | None:
        if self.r_optimum is not None:
            return self.r_optimum <= self.bound
        if self.r_greedy <= self.bound:
            return True
        if self.r_lower > self.bound:
            return False
        return None

    @property
    def r_min(self) -> str:
        """r_min as text: the exact value, or the bracket 'lo-hi'."""
        if self.r_optimum is not None:
            return str(self.r_optimum)
        return str(self.r_lower) if self.r_lower == self.r_greedy else f"{self.r_lower}-{self.r_greedy}"


def minr_check(Sigma: np.ndarray | pd.DataFrame, target: float = 0.9, exhaustive: bool | None = None) -> MinRCheck:
    """Check the paper's min-r bound (Theorem 4(c)) on Sigma, for any k (see :class:`MinRCheck`).

    ``exhaustive``: also find the exact r_min over all 2^k subsets; None does so when k <= 16.

    Raises
    ------
    ValueError
        On an invalid Sigma, or a target outside (0, 1) (the bound is infinite at tau = 1).
    """
    inp = validate_sigma(Sigma)
    k = inp.k
    check_target(target, None, k)
    if target >= 1.0:
        raise ValueError("the paper's bound is infinite at tau = 1 (ln(1/0)); use a target below 1")
    lam = np.clip(np.linalg.eigvalsh(inp.sigma)[::-1], 0.0, None)
    de = participation_ratio(lam)
    share = np.cumsum(lam) / lam.sum()
    r_lower = int(np.flatnonzero(share >= target - 1e-10)[0] + 1)
    r_greedy = min_r_for_target(greedy_select(inp.sigma).coverages, target)
    if exhaustive is None:
        exhaustive = k <= MAX_BRUTE_K
    r_opt = brute_force_optimum(inp.sigma).min_r(target) if exhaustive else None
    return MinRCheck(k, de, float(target), minr_bound_paper(k, min(de, float(k)), target), r_lower, r_greedy, r_opt)
