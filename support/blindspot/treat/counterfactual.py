"""Counterfactual benchmark importance: leave-one-benchmark-out (App. H.36) and external evaluations (App. H.37).

Leave-one-benchmark-out (LOBO). The paper's script is not in its code release; this reconstruction
reproduces the stored results of that release (``results/layer3_counterfactual.csv``) exactly:

* blind_loading_j = sum_{i > d} V_ji^2, the mass of benchmark j outside the top-d principal
  directions of Sigma (d = round(d_eff)); sum_j blind_loading_j = k - d.
* With Z = zscore(S) and agg = Z.mean(1), sub_j = Z without column j, averaged;
  rank_change_j = mean_i |rank_{sub_j}(i) - rank_agg(i)| over the models i (all, or the top m).
* rho = Spearman(blind_loading, rank_change); the paper: -0.69 (p = 0.013) on the EXT frontier.
* coverage_loss_j = 1 - f([k] minus j) (Theorem 4's coverage): the "most valuable" benchmarks.

The result is fragile: averaging the rank change over the top 74 models instead of all 148 gives
rho = -0.15 (p = 0.64); :func:`rho_by_population` traces rho against the number of top models.

External evaluations (H.37): the paper's pipeline is not published, nor described precisely.
:func:`external_alignment` implements a documented guess of the book's — blind_e =
1 - ||P_top-d c_e||^2 / ||c_e||^2 with c_e the correlations of category e with the k benchmarks
over the models both sources score, and the rank disruption of adding e as a (k+1)-th benchmark to
the aggregate — and says so wherever it is used.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from blindspot.core.conventions import ArrayLike, as_matrix, zscore
from blindspot.core.coverage import benchmark_names, coverage, validate_sigma
from blindspot.core.spectrum import correlation, participation_ratio

__all__ = [
    "blind_loading",
    "lobo_aggregates",
    "lobo_rank_change",
    "lobo_tau",
    "lobo_coverage_loss",
    "Counterfactual",
    "counterfactual",
    "rho_by_population",
    "normalise_model_name",
    "match_models",
    "ExternalAlignment",
    "external_alignment",
]


def blind_loading(Sigma: np.ndarray | pd.DataFrame, d: int | None = None) -> np.ndarray:
    """sum_{i > d} V_ji^2 for each benchmark j, V the eigenvectors of Sigma (eigenvalues descending).

    d defaults to round(d_eff(Sigma)). Values lie in [0, 1] and sum to k - d.
    """
    S = validate_sigma(Sigma).sigma
    k = S.shape[0]
    d = int(round(participation_ratio(np.linalg.eigvalsh(S)))) if d is None else int(d)
    if not 0 <= d <= k:
        raise ValueError(f"d must be in [0, {k}], got {d}")
    lam, V = np.linalg.eigh(S)
    V = V[:, np.argsort(-lam, kind="stable")]
    return (V[:, d:] ** 2).sum(axis=1)


def lobo_aggregates(S: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """(agg, sub): agg = zscore(S).mean(1) (n,) and sub[:, j] = mean of the z-scores without column j (n, k)."""
    Z = zscore(as_matrix(S))
    k = Z.shape[1]
    return Z.mean(axis=1), (Z.sum(axis=1, keepdims=True) - Z) / (k - 1)


def _rank_cols(A: np.ndarray) -> np.ndarray:
    """Ranks (1 = best, stable) of each column of A."""
    order = np.argsort(-A, axis=0, kind="stable")
    r = np.empty_like(order)
    np.put_along_axis(r, order, np.arange(1, A.shape[0] + 1)[:, None], axis=0)
    return r


def lobo_rank_change(S: ArrayLike, top: int | None = None) -> np.ndarray:
    """mean_i |rank_{sub_j}(i) - rank_agg(i)| for each benchmark j.

    ``top``: keep only the ``top`` best models by the full aggregate and rank them among
    themselves (z-scores still from the whole population): with the top 74 of the 148 models of the
    EXT frontier, rho = -0.15 (p = 0.64) instead of the paper's -0.69. Default: all models.
    """
    agg, sub = lobo_aggregates(S)
    n = agg.size
    if top is not None:
        if isinstance(top, bool) or int(top) != top or not 2 <= top <= n:
            raise ValueError(f"top must be a whole number in [2, {n}], got {top}")
        keep = np.argsort(-agg, kind="stable")[: int(top)]
        agg, sub = agg[keep], sub[keep]
    R = _rank_cols(np.column_stack([agg, sub]))
    return np.abs(R[:, 1:] - R[:, :1]).mean(axis=0).astype(float)


def lobo_tau(S: ArrayLike) -> np.ndarray:
    """Kendall tau_b between agg and sub_j for each j."""
    agg, sub = lobo_aggregates(S)
    return np.array([stats.kendalltau(agg, sub[:, j]).statistic for j in range(sub.shape[1])])


def lobo_coverage_loss(Sigma: np.ndarray | pd.DataFrame) -> np.ndarray:
    """1 - f([k] minus j) for each benchmark j (Theorem 4's coverage without j)."""
    S = validate_sigma(Sigma).sigma
    k = S.shape[0]
    return np.array([1.0 - coverage(S, [i for i in range(k) if i != j]) for j in range(k)])


@dataclass(frozen=True)
class Counterfactual:
    """The LOBO analysis of one population (App. H.36)."""

    rho: float
    p: float
    table: pd.DataFrame
    d: int
    top: int | None

    def top_overlap(self, m: int = 5) -> int:
        """How many of the top m benchmarks by coverage loss are among the top m by rank change."""
        a = set(self.table.sort_values("coverage_loss", ascending=False).index[:m])
        b = set(self.table.sort_values("rank_change", ascending=False).index[:m])
        return len(a & b)


def counterfactual(
    S: ArrayLike, d: int | None = None, top: int | None = None, names: Sequence[str] | None = None
) -> Counterfactual:
    """Spearman rho between blind loading and LOBO rank change, with the per-benchmark table (App. H.36)."""
    X = as_matrix(S)
    k = X.shape[1]
    names = benchmark_names(S, names, k)
    if k < 3:
        raise ValueError(f"need at least 3 benchmarks for leave-one-out correlations, got {k}")
    Sigma = correlation(X)
    d = int(round(participation_ratio(np.linalg.eigvalsh(Sigma)))) if d is None else int(d)
    bl = blind_loading(Sigma, d)
    rc = lobo_rank_change(X, top)
    table = pd.DataFrame(
        {"blind_loading": bl, "rank_change": rc, "tau": lobo_tau(X), "coverage_loss": lobo_coverage_loss(Sigma)},
        index=pd.Index(names, name="benchmark"),
    )
    res = stats.spearmanr(bl, rc)
    return Counterfactual(float(res.statistic), float(res.pvalue), table, d, top)


def rho_by_population(S: ArrayLike, tops: Sequence[int]) -> pd.DataFrame:
    """rho and p of :func:`counterfactual` when the rank change is averaged over the top m models, per m."""
    X = as_matrix(S)
    Sigma = correlation(X)
    bl = blind_loading(Sigma)
    rows = []
    for m in tops:
        res = stats.spearmanr(bl, lobo_rank_change(X, int(m)))
        rows.append({"top": int(m), "rho": float(res.statistic), "p": float(res.pvalue)})
    return pd.DataFrame(rows).set_index("top")


def normalise_model_name(name: str) -> str:
    """Lower-case model name without the organisation prefix or a trailing '-hf' (for cross-source matching)."""
    s = str(name).split("/")[-1].strip().lower()
    return re.sub(r"-hf$", "", s)


def match_models(left: Sequence[str], right: Sequence[str]) -> pd.DataFrame:
    """Pairs (left name, right name) whose normalised names agree; on ties the first right name wins.

    Returns columns left, right, n_candidates (how many right names shared the normalised name).
    """
    cands: dict[str, list[str]] = {}
    for r in right:
        cands.setdefault(normalise_model_name(r), []).append(str(r))
    rows = [
        {
            "left": str(a),
            "right": cands[normalise_model_name(a)][0],
            "n_candidates": len(cands[normalise_model_name(a)]),
        }
        for a in left
        if normalise_model_name(a) in cands
    ]
    return pd.DataFrame(rows, columns=["left", "right", "n_candidates"])


@dataclass(frozen=True)
class ExternalAlignment:
    """Blind-spot alignment vs rank disruption of external evaluation categories (H.37, documented guess).

    ``table``: one row per category: n (models scored by both), blind (1 - top-d share of its
    correlation vector), rank_change (mean |rank(agg_{k+1}) - rank(agg_k)|). ``rho``, ``p``: Spearman
    over the categories.
    """

    rho: float
    p: float
    table: pd.DataFrame
    d: int
    n_matched: int


def external_alignment(
    S_bench: ArrayLike, E: pd.DataFrame, d: int | None = None, min_models: int = 10
) -> ExternalAlignment:
    """The H.37 analysis as the book's documented guess (the paper's pipeline is not published).

    Parameters
    ----------
    S_bench : (n, k) benchmark scores of the matched models (complete).
    E : (n, m) DataFrame of external scores of the same models (rows aligned), NaN where missing.
    d : top directions of Sigma = corr(S_bench) counted as "visible" (default round(d_eff)).
    min_models : categories with fewer scored models are skipped.
    """
    X = as_matrix(S_bench)
    if not isinstance(E, pd.DataFrame) or len(E) != X.shape[0]:
        raise ValueError("E must be a DataFrame with one row per row of S_bench")
    Sigma = correlation(X)
    d = int(round(participation_ratio(np.linalg.eigvalsh(Sigma)))) if d is None else int(d)
    lam, V = np.linalg.eigh(Sigma)
    V = V[:, np.argsort(-lam, kind="stable")][:, :d]
    rows = []
    for cat in E.columns:
        e = E[cat].to_numpy(dtype=float)
        ok = np.isfinite(e)
        if ok.sum() < min_models:
            continue
        Xs, es = X[ok], e[ok]
        if es.std() < 1e-12 or (Xs.std(axis=0) < 1e-12).any():
            continue
        c = np.array([np.corrcoef(Xs[:, j], es)[0, 1] for j in range(X.shape[1])])
        blind = 1.0 - float(np.sum((V.T @ c) ** 2) / np.sum(c**2))
        Z = zscore(np.column_stack([Xs, es]))
        base, plus = Z[:, :-1].mean(axis=1), Z.mean(axis=1)
        R = _rank_cols(np.column_stack([base, plus]))
        rows.append(
            {
                "category": str(cat),
                "n": int(ok.sum()),
                "blind": blind,
                "rank_change": float(np.abs(R[:, 1] - R[:, 0]).mean()),
            }
        )
    table = pd.DataFrame(rows).set_index("category")
    if len(table) < 3:
        raise ValueError(f"only {len(table)} categories have {min_models}+ scored models; need at least 3")
    res = stats.spearmanr(table["blind"], table["rank_change"])
    return ExternalAlignment(float(res.statistic), float(res.pvalue), table, d, X.shape[0])
