"""Spectral coverage of a benchmark subset and greedy selection: Theorem 4 and where it fails.

For a benchmark covariance (or correlation) matrix Sigma (k x k, PSD) and a subset T of
benchmarks, the paper's coverage is

    f(T) = tr(P_T Sigma) / tr(Sigma),                                          (Theorem 4)

with P_T the orthogonal projector onto span{Sigma e_j : j in T}, the span of the *columns* of Sigma
selected by T (App. D.2's "rows of V Lambda^{1/2}" span a different space and do not reproduce the
paper's numbers). f(empty) = 0 and f([k]) = 1 (the columns of Sigma span range(Sigma)).

What Theorem 4 claims and what holds (the checks live in :mod:`blindspot.treat.guarantees`):

* f is monotone — true (spans grow).
* (a) f is submodular — **false**: Theorem 4(a) claims it, and the proof's lemma fails
  (:func:`~blindspot.treat.guarantees.submodularity_violations`; a 3 x 3 counterexample,
  :data:`~blindspot.treat.guarantees.COUNTEREXAMPLE_3X3`). What holds is a submodularity *ratio*
  gamma in (0, 1] (Das & Kempe 2011; :func:`~blindspot.treat.guarantees.submodularity_ratio`) and
  with it f(greedy_r) >= (1 - e^{-gamma}) f(OPT_r).
* (b) f(greedy_r) >= (1 - 1/e) f(OPT_r) (Nemhauser, Wolsey & Fisher 1978) — not established (it rests
  on submodularity); measured directly against the brute-force optimum (:func:`brute_force_optimum`).
* (c) r_min(tau) <= ceil(ln(1/(1-tau)) / ln(k/(k - d_eff))) — **false**
  (:func:`~blindspot.treat.guarantees.minr_bound_paper`). What holds for the first step is
  max_j f({j}) >= tr Sigma^3 / (tr Sigma tr Sigma^2) >= 1/d_eff
  (:func:`~blindspot.treat.guarantees.singleton_bound`).

Greedy selection (:func:`greedy_select`) adds argmax_j f(T + j) at each step (ties to the lowest
index). It keeps an orthonormal basis Q of span{Sigma e_j : j in T} (Gram–Schmidt with one
re-orthogonalisation) and, for every candidate j, the residual norm ||r_j||^2 and r_j^T Sigma r_j
of r_j = (I - QQ^T) Sigma e_j, updated by rank-one formulas; the gain of j is
r_j^T Sigma r_j / (||r_j||^2 tr Sigma). A step costs two matrix–vector products with Sigma and
O(k |T|) more, i.e. O(k^2), against O(k^3) for recomputing the projector
(:func:`greedy_select_naive`, the reference).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from scipy.linalg import qr

from blindspot.core.spectrum import resample_batch, resample_counts, resampled_correlations, resampled_factors
from blindspot.data.tables import ScoreTable

__all__ = [
    "check_target",
    "validate_sigma_stack",
    "subset_sizes",
    "CorrelationInput",
    "GreedyResult",
    "BruteForce",
    "benchmark_names",
    "validate_sigma",
    "coverage",
    "coverage_many",
    "greedy_select",
    "greedy_select_naive",
    "greedy_orders",
    "greedy_orders_factored",
    "bootstrap_greedy_orders",
    "all_subset_coverages",
    "brute_force_optimum",
    "min_r_for_target",
]


#: Relative tolerance under which a residual (squared norm relative to the column's) counts as 0,
#: i.e. the benchmark lies in the span already (a duplicate or a linear combination).
RANK_TOL = 1e-10


#: Gains within this of the best are ties; the lowest index wins (as np.argmax breaks ties).
TIE_TOL = 1e-12


#: Brute force enumerates 2^k subsets; beyond this k it refuses.
MAX_BRUTE_K = 16


PSDPolicy = Literal["raise", "clip"]


@dataclass(frozen=True)
class CorrelationInput:
    """A validated Sigma with its benchmark names and what validation did to it."""

    sigma: np.ndarray
    names: tuple[str, ...]
    min_eigenvalue: float | None
    projected: bool

    @property
    def k(self) -> int:
        return int(self.sigma.shape[0])


def _names_of(Sigma: np.ndarray | pd.DataFrame, names: Sequence[str] | None, k: int) -> tuple[str, ...]:
    if names is not None:
        names = tuple(str(n) for n in names)
    elif isinstance(Sigma, pd.DataFrame):
        names = tuple(str(c) for c in Sigma.columns)
    else:
        names = tuple(f"b{j + 1}" for j in range(k))
    if len(names) != k:
        raise ValueError(f"{len(names)} benchmark names given for a {k} x {k} matrix")
    return names


def benchmark_names(S: object, names: Sequence[str] | None = None, k: int | None = None) -> list[str]:
    """Benchmark names of a score matrix: ``names`` if given, else a ScoreTable's benchmarks or a
    DataFrame's columns, else ``b1..bk``; checked against ``k`` when given."""

    if names is not None:
        out = [str(b) for b in names]
    elif isinstance(S, ScoreTable):
        out = S.benchmarks
    elif isinstance(S, pd.DataFrame):
        out = [str(c) for c in S.columns]
    else:
        k = np.asarray(S).shape[-1] if k is None else k
        out = [f"b{j + 1}" for j in range(k)]
    if k is not None and len(out) != k:
        raise ValueError(f"{len(out)} benchmark names for {k} benchmarks")
    return out


def validate_sigma(
    Sigma: np.ndarray | pd.DataFrame,
    names: Sequence[str] | None = None,
    psd: PSDPolicy = "raise",
    psd_tol: float = 1e-8,
) -> CorrelationInput:
    """Check that Sigma is a usable covariance/correlation matrix (the public boundary of this module).

    Parameters
    ----------
    Sigma : (k, k) array or DataFrame
        Symmetric, finite, PSD, with positive trace. A DataFrame's columns name the benchmarks.
    names : sequence of str, optional
        Benchmark names (default: the DataFrame's columns, else ``b1..bk``).
    psd : {'raise', 'clip'}
        A matrix with an eigenvalue below ``-psd_tol * max(1, lambda_max)`` is not PSD (this happens
        with pairwise-complete or Kendall-sin correlations). ``'raise'`` (default) refuses it;
        ``'clip'`` projects it onto the PSD cone — eigenvalues clipped at 0 — and, when Sigma had a
        unit diagonal, rescales back to a unit diagonal (one step of Higham's nearest-correlation
        projection). The result records ``projected=True``.

    Raises
    ------
    ValueError
        Not square, fewer than 1 column, NaN/inf cells, asymmetric, non-positive trace, a negative
        diagonal entry, or not PSD under ``psd='raise'``.
    """
    if psd not in ("raise", "clip"):
        raise ValueError(f"psd={psd!r} is not a policy; use 'raise' or 'clip'")
    S = np.array(Sigma.to_numpy(dtype=float) if isinstance(Sigma, pd.DataFrame) else Sigma, dtype=float)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or S.shape[0] < 1:
        raise ValueError(f"Sigma must be a square k x k matrix (k >= 1), got shape {S.shape}")
    k = S.shape[0]
    nm = _names_of(Sigma, names, k)
    if not np.isfinite(S).all():
        raise ValueError(
            f"Sigma has {int((~np.isfinite(S)).sum())} NaN or infinite entries; compute it on complete "
            f"rows (or complete the score matrix) first"
        )
    scale = max(1.0, float(np.abs(S).max()))
    if not np.allclose(S, S.T, atol=1e-8 * scale, rtol=0):
        raise ValueError("Sigma is not symmetric; pass (Sigma + Sigma.T) / 2 if the asymmetry is rounding")
    S = (S + S.T) / 2
    if (np.diag(S) < 0).any():
        raise ValueError("Sigma has a negative diagonal entry, so it is not a covariance matrix")
    if np.trace(S) <= 0:
        raise ValueError("Sigma has zero trace: every benchmark is constant, nothing can be covered")
    unit_diag = bool(np.allclose(np.diag(S), 1.0, atol=1e-10))
    # Fast PSD test: Cholesky of Sigma + eps I (O(k^3/3)); the eigenvalues only when it fails.
    eps = psd_tol * max(1.0, float(np.trace(S)) / k) * 10
    try:
        np.linalg.cholesky(S + eps * np.eye(k))
        return CorrelationInput(S, nm, None, False)
    except np.linalg.LinAlgError:
        pass
    lam, V = np.linalg.eigh(S)
    lmin, lmax = float(lam[0]), float(lam[-1])
    if lmin >= -psd_tol * max(1.0, lmax):
        return CorrelationInput(S, nm, lmin, False)
    if psd == "raise":
        raise ValueError(
            f"Sigma is not positive semi-definite (smallest eigenvalue {lmin:.3g}); this happens with "
            f"pairwise-complete or Kendall sin(pi tau/2) correlations. Pass psd='clip' to project it onto the "
            f"PSD cone (eigenvalues clipped at 0, unit diagonal restored), or compute it on complete rows"
        )
    P = (V * np.clip(lam, 0.0, None)) @ V.T
    if unit_diag:
        d = np.sqrt(np.clip(np.diag(P), 1e-300, None))
        P = P / d[:, None] / d[None, :]
    P = (P + P.T) / 2
    return CorrelationInput(P, nm, lmin, True)


def _subset_indices(T: Sequence[int] | Sequence[str] | np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    T = list(T)
    k = len(names)
    idx = []
    for t in T:
        if isinstance(t, str):
            if t not in names:
                raise ValueError(f"benchmark {t!r} is not one of {list(names)}")
            idx.append(names.index(t))
        else:
            if isinstance(t, (bool, np.bool_)) or int(t) != t:
                raise ValueError(f"subset entries must be benchmark indices or names, got {t!r}")
            if not 0 <= int(t) < k:
                raise ValueError(f"benchmark index {t} is out of range for k = {k}")
            idx.append(int(t))
    return np.array(idx, dtype=int)


def _coverage_of_columns(S: np.ndarray, idx: np.ndarray, tol: float = RANK_TOL) -> float:
    """tr(P Sigma)/tr Sigma for P the projector onto span(Sigma[:, idx]), via a pivoted QR."""
    if idx.size == 0:
        return 0.0

    A = S[:, idx]
    Q, R, _ = qr(A, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    if d.size == 0 or d[0] == 0:
        return 0.0
    rank = int((d > np.sqrt(tol) * d[0]).sum())
    Q = Q[:, :rank]
    return float(np.einsum("ia,ij,ja->", Q, S, Q) / np.trace(S))


def coverage(
    Sigma: np.ndarray | pd.DataFrame,
    T: Sequence[int] | Sequence[str] | np.ndarray,
    names: Sequence[str] | None = None,
    psd: PSDPolicy = "raise",
) -> float:
    """f(T) = tr(P_T Sigma) / tr(Sigma), P_T the projector onto span{Sigma e_j : j in T} (Theorem 4).

    Computed from a column-pivoted QR of the selected columns Sigma[:, T] (rank-revealing, so a
    duplicated benchmark adds nothing): with Q the orthonormal basis of their span,
    tr(P_T Sigma) = tr(Q^T Sigma Q).

    Parameters
    ----------
    T : indices or names of benchmarks (may be empty; repeats are allowed and change nothing).
    """
    inp = validate_sigma(Sigma, names, psd)
    idx = np.unique(_subset_indices(T, inp.names))
    return _coverage_of_columns(inp.sigma, idx)


def coverage_many(Sigma: np.ndarray | pd.DataFrame, subsets: np.ndarray | Sequence[Sequence[int]]) -> np.ndarray:
    """f(T) for many subsets of one size at once: ``subsets`` is (n, r) of indices -> (n,).

    Batched Gram–Schmidt (with re-orthogonalisation) over the r selected columns of all subsets
    together; a column already in the span adds 0, as in :func:`coverage`.
    """
    inp = validate_sigma(Sigma)
    S, k = inp.sigma, inp.k
    idx = np.asarray(subsets, dtype=int)
    if idx.ndim != 2 or idx.shape[1] < 1:
        raise ValueError(f"subsets must be an (n, r) array of benchmark indices with r >= 1, got shape {idx.shape}")
    if idx.min() < 0 or idx.max() >= k:
        raise ValueError(f"benchmark indices must be in [0, {k - 1}]")
    n, r = idx.shape
    nr0 = (S**2).sum(axis=0)
    Q = np.zeros((n, k, 0))
    total = np.zeros(n)
    for c in range(r):
        res = S[:, idx[:, c]].T[..., None]  # (n, k, 1)
        if c:
            Qt = np.swapaxes(Q, 1, 2)
            res = res - Q @ (Qt @ res)
            res = res - Q @ (Qt @ res)
        res = res[..., 0]
        n2 = np.einsum("nk,nk->n", res, res)
        ok = n2 > RANK_TOL * nr0[idx[:, c]]
        q = res * (ok / np.sqrt(np.where(ok, n2, 1.0)))[:, None]
        total += np.einsum("nk,kl,nl->n", q, S, q, optimize=True)
        Q = np.concatenate([Q, q[..., None]], axis=2)
    return np.minimum(total / np.trace(S), 1.0)


# --------------------------------------------------------------------------------------------
# greedy selection
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GreedyResult:
    """The greedy order of Theorem 4 and its coverage curve.

    Attributes
    ----------
    order : ndarray of int
        Benchmark indices in the order greedy selected them (``len(order)`` steps were run).
    coverages : ndarray
        f(T_1), ..., f(T_r): coverage after each step.
    gains : ndarray
        Marginal gain of each step, f(T_i) - f(T_{i-1}).
    names : tuple of str
        Names of all k benchmarks (``order`` indexes them).
    target : float or None
        The coverage target asked for.
    r_target : int or None
        The smallest number of benchmarks whose greedy prefix reaches ``target`` (None without a target).
    dependent : tuple of int
        Selected benchmarks that added nothing because they lie in the span already (duplicates,
        perfectly correlated columns, or any pick after the span is complete).
    projected : bool
        True when Sigma was not PSD and was projected (``psd='clip'``).
    """

    order: np.ndarray
    coverages: np.ndarray
    gains: np.ndarray
    names: tuple[str, ...]
    target: float | None
    r_target: int | None
    dependent: tuple[int, ...]
    projected: bool = False

    @property
    def k(self) -> int:
        return len(self.names)

    @property
    def selected(self) -> list[str]:
        """Names of the selected benchmarks, in order."""
        return [self.names[j] for j in self.order]

    def subset(self, r: int | None = None) -> list[str]:
        """Names of the first ``r`` selected benchmarks (default: ``r_target``)."""
        r = self.r_target if r is None else r
        if r is None or not 0 <= r <= len(self.order):
            raise ValueError(f"r must be in [0, {len(self.order)}], got {r}")
        return self.selected[:r]

    def frame(self) -> pd.DataFrame:
        """One row per step: benchmark, marginal gain, cumulative coverage."""
        return pd.DataFrame(
            {"benchmark": self.selected, "gain": self.gains, "coverage": self.coverages},
            index=pd.RangeIndex(1, len(self.order) + 1, name="step"),
        )


def check_target(target: float | None, r: int | None, k: int) -> None:
    if target is not None:
        if isinstance(target, bool) or not isinstance(target, (int, float, np.floating, np.integer)):
            raise ValueError(f"target must be a number in (0, 1], got {target!r}")
        if not (0.0 < float(target) <= 1.0) or not math.isfinite(float(target)):
            raise ValueError(f"target coverage must be in (0, 1] (a fraction, e.g. 0.9 for 90%), got {target}")
    if r is not None:
        if isinstance(r, bool) or int(r) != r:
            raise ValueError(f"r must be a whole number of benchmarks, got {r!r}")
        if not 1 <= int(r) <= k:
            raise ValueError(f"r = {r} benchmarks cannot be selected from k = {k}; choose 1 <= r <= {k}")


def _mv(M: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Batched matrix-vector product (B, a, b) @ (B, b) -> (B, a), through BLAS."""
    return (M @ x[:, :, None])[:, :, 0]


# One step of Sigma's side of greedy: given the step s, the new basis vector q (B, m) and the basis so far
# Qs (B, s, m), return Sigma q (B, m), c_j = (Sigma q)_j = q^T Sigma e_j (B, k) and v_j = (Sigma q)^T r_j (B, k).
SigmaStep = Callable[[int, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]


def _greedy_steps(
    cols: np.ndarray,
    sigma_step: SigmaStep,
    tr: np.ndarray,
    nr0: np.ndarray,
    num: np.ndarray,
    r: int,
    stop_at: float | None = None,
    tol: float = RANK_TOL,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The greedy step, once for both forms of Sigma: r steps on a stack of B matrices, O(k m) per step.

    The columns Sigma e_j are given in some orthonormal coordinates of dimension m (``cols`` (B, k, m):
    the k x k matrix itself, or the factored form's m' coordinates), with ``tr`` = tr Sigma (B,),
    ``nr0`` = ||Sigma e_j||^2 and ``num`` = (Sigma^3)_jj (B, k); ``sigma_step`` applies Sigma (see
    :data:`SigmaStep`). Each step takes the candidate of largest gain r_j^T Sigma r_j / ||r_j||^2 (ties,
    within :data:`TIE_TOL`, to the lowest index), extends the orthonormal basis by Gram–Schmidt with one
    re-orthogonalisation, and updates every candidate's ||r_j||^2 and r_j^T Sigma r_j by the rank-one
    formulas of the module docstring. Returns orders, coverages, gains and dependent flags, each (B, steps);
    with ``stop_at`` (for B = 1 callers) it stops once every matrix reached that coverage.
    """
    B, k, m = cols.shape
    nr = nr0.copy()  # ||r_j||^2
    Qt = np.zeros((B, r, m))  # orthonormal basis as rows (zero rows for dependent picks)
    selected = np.zeros((B, k), dtype=bool)
    orders = np.zeros((B, r), dtype=int)
    cov = np.zeros((B, r))
    gains = np.zeros((B, r))
    dep = np.zeros((B, r), dtype=bool)
    total = np.zeros(B)
    bidx = np.arange(B)
    steps = r
    for s in range(r):
        alive = (~selected) & (nr > tol * nr0) & (nr0 > 0)
        g = np.where(alive, num / np.where(alive, nr, 1.0), -np.inf)
        g = np.where(alive, np.maximum(g, 0.0), -np.inf)
        gmax = g.max(axis=1)
        any_alive = np.isfinite(gmax)
        if not any_alive.any():
            # the span is complete for every matrix: the rest add nothing; append them in index order
            orders[:, s:] = np.argsort(selected, axis=1, kind="stable")[:, : r - s]
            cov[:, s:] = np.minimum(total, 1.0)[:, None]
            dep[:, s:] = True
            break
        cand = np.where(
            any_alive[:, None], g >= gmax[:, None] - TIE_TOL * np.maximum(1.0, np.abs(gmax))[:, None], ~selected
        )
        j = np.argmax(cand, axis=1)
        orders[:, s] = j
        selected[bidx, j] = True
        col = cols[bidx, j]  # (B, m): Sigma e_j
        Qs = Qt[:, :s]
        Qst = np.swapaxes(Qs, 1, 2)
        res = col - _mv(Qst, _mv(Qs, col))
        res = res - _mv(Qst, _mv(Qs, res))  # re-orthogonalise (Gram-Schmidt twice is enough)
        nrm2 = np.einsum("bk,bk->b", res, res)
        is_dep = (~any_alive) | (nrm2 <= tol * nr0[bidx, j]) | (nr0[bidx, j] <= 0)
        q = np.where(is_dep[:, None], 0.0, res / np.sqrt(np.where(is_dep, 1.0, nrm2))[:, None])
        Sq, c, v = sigma_step(s, q, Qs)
        qSq = np.einsum("bk,bk->b", q, Sq)
        gain = qSq / tr
        total = total + gain
        cov[:, s], gains[:, s], dep[:, s] = np.minimum(total, 1.0), gain, is_dep
        # rank-one updates of every candidate's residual statistics
        num = num - 2.0 * c * v + c**2 * qSq[:, None]
        nr = nr - c**2
        Qt[:, s] = q
        if stop_at is not None and (cov[:, s] >= stop_at - 1e-10).all():
            steps = s + 1
            break
    return orders[:, :steps], cov[:, :steps], gains[:, :steps], dep[:, :steps]


def _greedy_core(
    S: np.ndarray, r: int, stop_at: float | None = None, tol: float = RANK_TOL
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Greedy on a stack of PSD matrices S (B, k, k) for r steps, incremental O(k^2) per step.

    :func:`_greedy_steps` in the coordinates of R^k: the columns are S's own, Sigma q is a matrix-vector
    product (two per step, the products Sigma q_i of the basis kept). Returns orders (B, r), coverages (B, r),
    gains (B, r) and dependent flags (B, r). With ``stop_at`` (only meaningful for B = 1 callers) it stops
    once every matrix reached that coverage.
    """
    B, k, _ = S.shape
    S2 = S @ S
    SQt = np.zeros((B, r, k))  # (Sigma q_i)^T as rows

    def sigma_step(s: int, q: np.ndarray, Qs: np.ndarray):
        Sq = _mv(S, q)  # c_j = q^T Sigma e_j = (Sigma q)_j: c is Sq itself
        v = _mv(S, Sq) - _mv(np.swapaxes(SQt[:, :s], 1, 2), _mv(Qs, Sq))  # (Sigma q)^T r_j
        SQt[:, s] = Sq
        return Sq, Sq, v

    nr0 = np.einsum("bii->bi", S2).copy()  # ||Sigma e_j||^2
    num = np.einsum("bij,bij->bj", S2, S)  # r_j^T Sigma r_j, = (Sigma^3)_jj at the start
    cols = np.swapaxes(S, 1, 2)  # cols[b, j] = S[b, :, j] = Sigma e_j
    return _greedy_steps(cols, sigma_step, np.trace(S, axis1=1, axis2=2), nr0, num, r, stop_at, tol)


def _r_target(coverages: np.ndarray, target: float | None) -> int | None:
    if target is None:
        return None
    hit = np.flatnonzero(coverages >= target - 1e-10)
    return int(hit[0] + 1) if hit.size else None


def greedy_select(
    corr: np.ndarray | pd.DataFrame,
    target: float | None = None,
    r: int | None = None,
    names: Sequence[str] | None = None,
    psd: PSDPolicy = "raise",
) -> GreedyResult:
    """Greedy benchmark selection maximising coverage f(T) (Theorem 4).

    At each step add argmax_j f(T + j), ties to the lowest index, with incremental rank-one
    updates (O(k^2) per step; see the module docstring).

    Parameters
    ----------
    corr : (k, k) array or DataFrame
        Benchmark correlation (or covariance) matrix, PSD. A DataFrame's columns name the benchmarks.
    target : float in (0, 1], optional
        Coverage target. With ``r=None`` greedy stops at the first prefix reaching it; ``r_target``
        is that prefix length. A PSD Sigma always reaches 1 at r = rank(Sigma), so any target is reachable.
    r : int in [1, k], optional
        Number of steps to run. Default: until ``target`` (when given), else all k benchmarks.
    names : benchmark names (default: the DataFrame's columns, else ``b1..bk``).
    psd : {'raise', 'clip'}
        What to do with a non-PSD matrix (see :func:`validate_sigma`).

    Notes
    -----
    Duplicate benchmarks (perfectly correlated columns) are handled: once one copy is selected the
    other has zero residual and zero gain, so it is picked only after every informative benchmark
    (listed in ``dependent``). Greedy's guarantee is *not* the (1 - 1/e) of the paper (f is not
    submodular); see :func:`greedy_guarantee`.
    """
    inp = validate_sigma(corr, names, psd)
    k = inp.k
    check_target(target, r, k)
    steps = k if r is None else int(r)
    stop = float(target) if (target is not None and r is None) else None
    o, c, g, d = _greedy_core(inp.sigma[None], steps, stop_at=stop)
    o, c, g, d = o[0], c[0], g[0], d[0]
    return GreedyResult(
        o,
        c,
        g,
        inp.names,
        None if target is None else float(target),
        _r_target(c, target),
        tuple(int(j) for j in o[d]),
        inp.projected,
    )


def greedy_orders(Sigmas: np.ndarray, r: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Greedy orders and coverage curves of a stack of PSD matrices (B, k, k), in one batched run.

    Used for bootstrap resamples and random-matrix experiments (no per-matrix Python loop).
    Returns ``orders`` (B, r) and ``coverages`` (B, r).
    """
    S = np.asarray(Sigmas, dtype=float)
    if S.ndim != 3 or S.shape[1] != S.shape[2]:
        raise ValueError(f"expected a stack of square matrices (B, k, k), got shape {S.shape}")
    if not np.isfinite(S).all():
        raise ValueError("the stack contains NaN or infinite entries")
    if not np.allclose(S, np.swapaxes(S, 1, 2), atol=1e-8):
        raise ValueError("every matrix of the stack must be symmetric")
    k = S.shape[1]
    r = k if r is None else r
    check_target(None, r, k)
    o, c, _, _ = _greedy_core(S, int(r))
    return o, c


def greedy_orders_factored(L: np.ndarray, r: int) -> tuple[np.ndarray, np.ndarray]:
    """Greedy orders and coverage curves of Sigma_b = L_b L_b^T for a stack of factors L (B, k, m).

    The same selection as :func:`greedy_orders` on the k x k matrices (same gains, same
    tie-break), computed without forming them: every column Sigma e_j lies in the column space of
    L_b, of dimension m' <= m. With the thin SVD L_b = U S V^T, in the coordinates of U the matrix
    acts as diag(S^2) and the column Sigma e_j is c_j = S^2 u_j (u_j the j-th row of U; computed as
    (L V)_j S from the eigenvectors V of the small m x m matrix L^T L); the
    incremental updates of :func:`greedy_select` (residual norms ||r_j||^2 and r_j^T Sigma r_j)
    then cost O(k m') per step instead of O(k^2). For bootstrap resamples of a leaderboard with
    more benchmarks than models (m = n < k) this is what keeps the stable core linear in k.
    Returns ``orders`` (B, r) and ``coverages`` (B, r).
    """
    L = np.asarray(L, dtype=float)
    if L.ndim != 3:
        raise ValueError(f"expected a stack of factors (B, k, m), got shape {L.shape}")
    if not np.isfinite(L).all():
        raise ValueError("the factors contain NaN or infinite entries")
    k = L.shape[1]
    check_target(None, r, k)
    # L^T L = V diag(lam) V^T (m x m, cheap); then U S = L V, and c_j = S^2 u_j = (L V)_j * s
    lam, V = np.linalg.eigh(np.swapaxes(L, 1, 2) @ L)
    lam = np.clip(lam, 0.0, None)
    Cj = (L @ V) * np.sqrt(lam)[:, None, :]  # c_j in the coordinates of U
    tr = lam.sum(axis=1)
    nr0 = (Cj**2).sum(axis=2)
    num = (Cj**2 * lam[:, None, :]).sum(axis=2)

    def sigma_step(s: int, q: np.ndarray, Qs: np.ndarray):
        Sq = lam * q  # Sigma acts as diag(lam) in the coordinates of U
        c = _mv(Cj, q)  # (Sigma q)_j = c_j . q
        v = _mv(Cj, Sq - _mv(np.swapaxes(Qs, 1, 2), _mv(Qs, Sq)))  # (Sigma q)^T r_j
        return Sq, c, v

    orders, cov, _, _ = _greedy_steps(Cj, sigma_step, tr, nr0, num, r)
    return orders, cov


def bootstrap_greedy_orders(X: np.ndarray, r: int, n_boot: int, seed: int = 0) -> np.ndarray:
    """The greedy top-r benchmarks (n_boot, r) of each bootstrap resample of the model rows of X.

    Resample b draws ``default_rng(seed).integers(0, n, n)`` in turn (the stream of
    :func:`blindspot.treat.stable_core.stable_core`, whose frequencies this feeds); its Pearson
    correlation matrix comes from weighted moments (:func:`blindspot.core.spectrum.resampled_correlations`,
    memory linear in n) when k <= n, and in factored form (:func:`greedy_orders_factored` on the
    standardised resample, no k x k matrix) when there are more benchmarks than models. A column
    constant within a resample gets unit variance and no correlation (treated as independent), as
    in the stable core.
    """
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    check_target(None, r, k)
    Xc = X - X.mean(axis=0)
    rng = np.random.default_rng(seed)
    step = resample_batch(n, k, "factors" if k > n else "moments", n_boot)
    top = np.empty((n_boot, r), dtype=int)
    for s in range(0, n_boot, step):
        m = min(step, n_boot - s)
        counts = resample_counts(rng, n, m)
        if k > n:
            F, ok = resampled_factors(Xc, counts)
            bad = ~ok
            extra = int(bad.sum(axis=1).max())
            L = np.zeros((m, k, n + extra))
            L[:, :, :n] = np.swapaxes(F, 1, 2)
            for b in np.flatnonzero(bad.any(axis=1)):
                j = np.flatnonzero(bad[b])
                L[b, j, n + np.arange(j.size)] = 1.0
            top[s : s + m], _ = greedy_orders_factored(L, r)
        else:
            C, ok = resampled_correlations(Xc, counts)
            C[:, np.arange(k), np.arange(k)] = np.where(ok, C[:, np.arange(k), np.arange(k)], 1.0)
            top[s : s + m], _ = greedy_orders((C + np.swapaxes(C, 1, 2)) / 2, r)
    return top


def greedy_select_naive(
    corr: np.ndarray | pd.DataFrame, r: int | None = None, names: Sequence[str] | None = None
) -> GreedyResult:
    """Reference greedy that recomputes the projector at every step (O(k^3) per step).

    Each step factorises the selected columns afresh (pivoted QR), forms the residuals
    R = (I - P_T) Sigma and every candidate's gain diag(R^T Sigma R) / diag(R^T R) / tr Sigma.
    Same selection rule and tie-break as :func:`greedy_select`; used to test it and to time it.
    """

    inp = validate_sigma(corr, names)
    S, k = inp.sigma, inp.k
    check_target(None, r, k)
    steps = k if r is None else int(r)
    nr0 = (S**2).sum(axis=0)
    order: list[int] = []
    covs, gains, dep = [], [], []
    prev = 0.0
    for _ in range(steps):
        if order:
            Qf, Rf, _ = qr(S[:, order], mode="economic", pivoting=True)
            dd = np.abs(np.diag(Rf))
            rank = int((dd > np.sqrt(RANK_TOL) * dd[0]).sum()) if dd[0] > 0 else 0
            Qf = Qf[:, :rank]
            R = S - Qf @ (Qf.T @ S)
        else:
            R = S.copy()
        nr = (R**2).sum(axis=0)
        num = np.einsum("ij,ij->j", R, S @ R)
        alive = np.ones(k, bool)
        alive[order] = False
        alive &= nr > RANK_TOL * nr0
        if alive.any():
            g = np.where(alive, np.maximum(num / np.where(alive, nr, 1.0), 0.0), -np.inf)
            j = int(np.argmax(g >= g.max() - TIE_TOL * max(1.0, abs(g.max()))))
        else:
            j = int(np.flatnonzero(~np.isin(np.arange(k), order))[0])
        order.append(j)
        cov = _coverage_of_columns(S, np.array(order))
        covs.append(cov)
        gains.append(cov - prev)
        dep.append(not alive[j])
        prev = cov
    o = np.array(order)
    return GreedyResult(
        o, np.array(covs), np.array(gains), inp.names, None, None, tuple(int(j) for j, d in zip(o, dep) if d), False
    )


# --------------------------------------------------------------------------------------------
# brute force over all subsets
# --------------------------------------------------------------------------------------------


def validate_sigma_stack(Sigma: np.ndarray | pd.DataFrame) -> np.ndarray:
    S = np.asarray(Sigma.to_numpy(dtype=float) if isinstance(Sigma, pd.DataFrame) else Sigma, dtype=float)
    if S.ndim == 2:
        S = validate_sigma(S).sigma[None]
    elif S.ndim != 3 or S.shape[1] != S.shape[2]:
        raise ValueError(f"expected a k x k matrix or a stack (B, k, k), got shape {S.shape}")
    k = S.shape[1]
    if k > MAX_BRUTE_K:
        raise ValueError(
            f"brute force enumerates 2^k subsets; k = {k} exceeds {MAX_BRUTE_K}. Use greedy_select "
            f"(and submodularity_ratio for its guarantee) for larger k"
        )
    if not np.isfinite(S).all():
        raise ValueError("Sigma contains NaN or infinite entries")
    return S


def all_subset_coverages(Sigma: np.ndarray | pd.DataFrame, batch: int = 64) -> np.ndarray:
    """f(T) for every subset T, indexed by bitmask (bit j set = benchmark j in T); k <= 16.

    Accepts one matrix (k, k) -> array (2^k,) or a stack (B, k, k) -> (B, 2^k). Subsets are built
    level by level: T's basis is its parent's (T minus its largest element) plus one
    Gram–Schmidt step (with re-orthogonalisation), so every subset costs O(k |T|) and the whole
    lattice is a handful of batched numpy operations per level (no per-subset Python loop).
    A column already in the span adds 0 (rank-revealing, tolerance :data:`RANK_TOL`).
    """
    one = np.asarray(Sigma).ndim == 2
    S = validate_sigma_stack(Sigma)
    B, k, _ = S.shape
    out = np.zeros((B, 1 << k))
    for b0 in range(0, B, batch):
        out[b0 : b0 + batch] = _lattice(S[b0 : b0 + batch])
    return out[0] if one else out


def _lattice(S: np.ndarray) -> np.ndarray:
    B, k, _ = S.shape
    tr = np.trace(S, axis1=1, axis2=2)
    nr0 = np.einsum("bij,bij->bj", S, S)  # ||Sigma e_j||^2
    f = np.zeros((B, 1 << k))
    pos = np.zeros(1 << k, dtype=int)  # index of a mask within its level
    basis = np.zeros((B, 1, k, 0))  # orthonormal bases of the previous level, (B, C, k, m - 1)
    for m in range(1, k + 1):
        combos = np.array(list(itertools.combinations(range(k), m)), dtype=int)  # (C, m), ascending
        masks = (1 << combos).sum(axis=1)
        pos[masks] = np.arange(len(combos))
        last = combos[:, -1]
        parent_masks = masks - (1 << last)
        P = basis[:, pos[parent_masks]] if m > 1 else np.zeros((B, len(combos), k, 0))
        res = np.swapaxes(S[:, :, last], 1, 2)[..., None]  # (B, C, k, 1): Sigma e_j of the new element
        if m > 1:
            Pt = np.swapaxes(P, -1, -2)
            res = res - P @ (Pt @ res)
            res = res - P @ (Pt @ res)  # re-orthogonalise
        res = res[..., 0]
        n2 = np.einsum("bck,bck->bc", res, res)
        ok = n2 > RANK_TOL * nr0[:, last]
        q = res * (ok / np.sqrt(np.where(ok, n2, 1.0)))[..., None]
        gain = np.einsum("bck,bck->bc", q @ S, q) / tr[:, None]
        f[:, masks] = f[:, parent_masks] + gain
        basis = np.concatenate([P, q[..., None]], axis=-1)
    return np.minimum(f, 1.0)


@dataclass(frozen=True)
class BruteForce:
    """The best subset of every size (exhaustive; k <= 16).

    ``values[r]`` is max_{|T| = r} f(T) for r = 0..k and ``subsets[r]`` the best T (lowest mask on ties).
    """

    values: np.ndarray
    subsets: tuple[tuple[int, ...], ...]
    names: tuple[str, ...]

    def min_r(self, target: float) -> int:
        """The smallest r whose optimum reaches ``target``."""
        check_target(target, None, len(self.names))
        return int(np.flatnonzero(self.values >= target - 1e-10)[0])


def subset_sizes(k: int) -> np.ndarray:
    masks = np.arange(1 << k)
    return ((masks[:, None] >> np.arange(k)) & 1).sum(axis=1)


def brute_force_optimum(Sigma: np.ndarray | pd.DataFrame, names: Sequence[str] | None = None) -> BruteForce:
    """max_{|T| = r} f(T) for every r by exhaustive search over the 2^k subsets (the OPT_r of Theorem 4(b); k <= 16)."""
    inp = validate_sigma(Sigma, names)
    f = all_subset_coverages(inp.sigma)
    k = inp.k
    size = subset_sizes(k)
    vals, subsets = np.zeros(k + 1), []
    for r in range(k + 1):
        masks = np.flatnonzero(size == r)
        best = masks[np.argmax(f[masks])]
        vals[r] = f[best]
        subsets.append(tuple(int(j) for j in range(k) if best >> j & 1))
    return BruteForce(vals, tuple(subsets), inp.names)


def min_r_for_target(coverages: np.ndarray, target: float) -> int:
    """Smallest r with coverages[r - 1] >= target (coverages indexed from r = 1); k + 1 if never."""
    c = np.asarray(coverages, dtype=float)
    hit = np.flatnonzero(c >= target - 1e-10)
    return int(hit[0] + 1) if hit.size else c.size + 1
