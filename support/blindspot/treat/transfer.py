"""Does a benchmark subset chosen on one population keep its coverage on another? (App. H.14, H.18, H.22)

A subset T chosen by greedy on population A (:func:`blindspot.core.coverage.greedy_select` on Sigma_A)
is *transferred* to population B when its coverage is evaluated with B's correlation matrix,
f_{Sigma_B}(T); the *native* subset is B's own greedy prefix of the same size.

* :func:`retention_matrix`: M[i, j] = f_{Sigma_j}(G_i[:r]) for parts i, j of a population (rows =
  the part greedy was trained on, columns = the part it is evaluated on; App. H.22). The entries
  are coverages; the retention *ratio* is M[i, j] / M[j, j] (the paper calls the coverages "retention").
* :func:`ordered_parts`: parts of equal size after sorting the rows by a key. The paper's
  "chronological" quarters sort by **model name** in its code (App. H.14 calls it a proxy);
  :func:`submission_dates` provides a real date key from the full Open LLM Leaderboard v2 dump.
* :func:`halves_transfer` (H.14) and :func:`late_kendall` (the rank check of the transferred subset).
* :func:`cross_suite_transfer` (H.18): a subset chosen on one suite, evaluated on another that
  shares the benchmarks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from blindspot.core.conventions import ArrayLike, as_matrix, zscore
from blindspot.core.coverage import benchmark_names, coverage, greedy_select
from blindspot.core.spectrum import correlation
from blindspot.data.tables import ScoreTable

__all__ = [
    "ordered_parts",
    "calendar_parts",
    "submission_dates",
    "RetentionMatrix",
    "retention_matrix",
    "halves_transfer",
    "LateKendall",
    "late_kendall",
    "CrossSuiteTransfer",
    "cross_suite_transfer",
    "top_shared",
    "DATE_COLUMNS",
    "table_dates",
    "OrderAgreement",
    "order_agreement",
]

#: Metadata columns read as dates of a model (release, upload, submission), compared case-insensitively.
DATE_COLUMNS = ("release_date", "date", "upload_date", "submission_date", "submission_datetime")


def ordered_parts(key: Sequence | pd.Series | np.ndarray, n_parts: int = 4) -> list[np.ndarray]:
    """Row indices of ``n_parts`` equal parts after a stable sort on ``key`` (as the paper's code).

    Each part has floor(n / n_parts) rows; the last n mod n_parts rows of the sorted order are
    dropped (the paper's 295 -> 4 x 73, 3 dropped). Rows whose key is missing (NaN/NaT/None) are
    dropped before the split.

    Raises
    ------
    ValueError
        n_parts < 2, or fewer than 3 rows per part (a correlation needs 3 rows).
    """
    if n_parts < 2:
        raise ValueError(f"n_parts must be at least 2, got {n_parts}")
    s = pd.Series(list(key) if not isinstance(key, pd.Series) else key.to_numpy())
    present = np.flatnonzero(s.notna().to_numpy())
    order = present[np.argsort(s.iloc[present].to_numpy(), kind="stable")]
    size = len(order) // n_parts
    if size < 3:
        raise ValueError(f"{len(order)} rows with a key make parts of {size} rows; at least 3 per part are needed")
    return [order[i * size : (i + 1) * size] for i in range(n_parts)]


def calendar_parts(dates: Sequence | pd.Series, freq: str = "Q") -> tuple[list[np.ndarray], list[str]]:
    """Row indices grouped by calendar period of ``dates`` (e.g. quarters), oldest first, with labels.

    Rows without a parseable date are dropped.
    """
    d = pd.to_datetime(
        pd.Series(list(dates) if not isinstance(dates, pd.Series) else dates.to_numpy()), errors="coerce"
    )
    per = d.dt.to_period(freq)
    labels = sorted(per.dropna().unique())
    parts = [np.flatnonzero((per == p).to_numpy()) for p in labels]
    return parts, [str(p) for p in labels]


def submission_dates(dump: ScoreTable, names: Sequence[str], column: str = "submission_date") -> pd.Series:
    """The earliest ``column`` date of each model name in a leaderboard dump (NaT when absent).

    ``dump`` is e.g. ``load_suite('ollm_v2_full')`` whose metadata has ``model_name`` and dates;
    models are matched by exact name.
    """
    meta = dump.meta
    if "model_name" not in meta.columns or column not in meta.columns:
        raise ValueError(
            f"the dump {dump.name!r} needs metadata columns 'model_name' and {column!r}; "
            f"it has {list(meta.columns)[:12]}"
        )
    d = pd.to_datetime(meta[column], errors="coerce")
    first = d.groupby(meta["model_name"].astype(str).to_numpy()).min()
    return pd.Series([first.get(str(n), pd.NaT) for n in names], index=list(names), name=column)


@dataclass(frozen=True)
class RetentionMatrix:
    """M[i, j] = f_{Sigma_j}(G_i[:r]): coverage on part j of the greedy top-r chosen on part i.

    ``ratio`` = M / diag (column-wise): M[i, j] / M[j, j], the retention relative to part j's own
    greedy subset. ``orders`` are each part's greedy top r (benchmark names).
    """

    M: np.ndarray
    labels: list[str]
    orders: list[list[str]]
    r: int
    sizes: list[int]

    @property
    def ratio(self) -> np.ndarray:
        return self.M / np.diag(self.M)[None, :]

    def off_diagonal(self, ratio: bool = False) -> np.ndarray:
        A = self.ratio if ratio else self.M
        return A[~np.eye(len(self.labels), dtype=bool)]

    def frame(self, ratio: bool = False) -> pd.DataFrame:
        return pd.DataFrame(
            self.ratio if ratio else self.M,
            index=[f"train {x}" for x in self.labels],
            columns=[f"eval {x}" for x in self.labels],
        )


def retention_matrix(
    S: ArrayLike,
    parts: Sequence[np.ndarray],
    r: int = 7,
    labels: Sequence[str] | None = None,
    names: Sequence[str] | None = None,
) -> RetentionMatrix:
    """The part-to-part transfer matrix of greedy top-r subsets (App. H.22).

    Parameters
    ----------
    S : the score matrix (all rows); ``parts`` are row-index arrays into it.
    r : subset size (the paper: 7 for the Extended suite).
    """
    X = as_matrix(S)
    k = X.shape[1]
    names = benchmark_names(S, names, k)
    if not 1 <= r <= k:
        raise ValueError(f"r must be in [1, {k}], got {r}")
    if len(parts) < 2:
        raise ValueError("need at least 2 parts")
    labels = [f"P{i + 1}" for i in range(len(parts))] if labels is None else [str(x) for x in labels]
    sig = [correlation(X[p]) for p in parts]
    orders = [greedy_select(s, r=r).order for s in sig]
    M = np.array([[coverage(sig[j], orders[i]) for j in range(len(parts))] for i in range(len(parts))])
    return RetentionMatrix(M, labels, [[names[j] for j in o] for o in orders], r, [len(p) for p in parts])


def halves_transfer(S_early: ArrayLike, S_late: ArrayLike, r_values: Sequence[int] = (4, 5, 6, 7)) -> pd.DataFrame:
    """Native vs transferred coverage on the late population (App. H.14).

    native(r) = f_late(G_late[:r]); transferred(r) = f_late(G_early[:r]); ratio = transferred / native.
    """
    Xe, Xl = as_matrix(S_early), as_matrix(S_late)
    if Xe.shape[1] != Xl.shape[1]:
        raise ValueError(f"the two populations have {Xe.shape[1]} and {Xl.shape[1]} benchmarks; they must share them")
    Ce, Cl = correlation(Xe), correlation(Xl)
    ge, gl = greedy_select(Ce).order, greedy_select(Cl).order
    rows = []
    for r in r_values:
        nat, tra = coverage(Cl, gl[:r]), coverage(Cl, ge[:r])
        rows.append({"r": r, "native": nat, "transferred": tra, "ratio": tra / nat})
    return pd.DataFrame(rows).set_index("r")


def top_shared(a: np.ndarray, b: np.ndarray, top: int = 10) -> int:
    """How many of the ``top`` best rows by ``a`` are also among the ``top`` best by ``b``."""
    ta = set(np.argsort(-np.asarray(a), kind="stable")[:top].tolist())
    tb = set(np.argsort(-np.asarray(b), kind="stable")[:top].tolist())
    return len(ta & tb)


@dataclass(frozen=True)
class LateKendall:
    """Rank check of a transferred subset on the late population (the paper's code, validation_v8.py exp4b)."""

    tau: float
    shared: int
    random_tau_mean: float
    random_tau_sd: float
    random_shared_mean: float
    r: int
    top: int
    n_random: int


def late_kendall(S: ArrayLike, subset: Sequence[int], n_random: int = 200, seed: int = 0, top: int = 10) -> LateKendall:
    """Kendall tau_b and top-``top`` overlap between agg over all benchmarks and agg over ``subset``,
    against ``n_random`` random subsets of the same size (``default_rng(seed).choice(k, r, replace=False)``)."""
    Z = zscore(as_matrix(S))
    k = Z.shape[1]
    subset = np.asarray(subset, dtype=int)
    r = subset.size
    if not 1 <= r <= k:
        raise ValueError(f"the subset must have 1..{k} benchmarks, got {r}")
    full = Z.mean(axis=1)
    sub = Z[:, subset].mean(axis=1)
    rng = np.random.default_rng(seed)
    taus, shared = [], []
    for _ in range(n_random):
        T = rng.choice(k, size=r, replace=False)
        a = Z[:, T].mean(axis=1)
        taus.append(stats.kendalltau(full, a).statistic)
        shared.append(top_shared(full, a, top))
    return LateKendall(
        float(stats.kendalltau(full, sub).statistic),
        top_shared(full, sub, top),
        float(np.mean(taus)),
        float(np.std(taus)),
        float(np.mean(shared)),
        r,
        top,
        n_random,
    )


@dataclass(frozen=True)
class CrossSuiteTransfer:
    """A greedy subset chosen on a source suite, evaluated on a target suite sharing its benchmarks (H.18).

    ``op_norm_full`` = ||Sigma_src - Sigma_tgt||_op (what H.18 reports as "perturbation");
    ``op_norm_restricted`` = ||P_T (Sigma_src - Sigma_tgt) P_T||_op with P_T the projector onto the
    span of the source's columns of the transferred subset T (the fixed projector of Proposition 5,
    the quantity H.18's text names).
    """

    transferred: float
    native: float
    retention: float
    op_norm_full: float
    op_norm_restricted: float
    source_subset: list[str]
    target_subset: list[str]
    r: int
    k: int


def cross_suite_transfer(
    S_src: ArrayLike, S_tgt: ArrayLike, r: int = 4, names: Sequence[str] | None = None
) -> CrossSuiteTransfer:
    """Transfer the source's greedy top-r to the target (App. H.18): same benchmarks, same order."""
    Xs, Xt = as_matrix(S_src), as_matrix(S_tgt)
    k = Xs.shape[1]
    if Xt.shape[1] != k:
        raise ValueError(
            f"source has {k} benchmarks and target {Xt.shape[1]}; select the shared ones in the same order"
        )
    names = benchmark_names(S_src, names, k)
    if isinstance(S_tgt, (ScoreTable, pd.DataFrame)) and benchmark_names(S_tgt) != names:
        raise ValueError(f"benchmark names differ: {names} vs {benchmark_names(S_tgt)}; align the columns first")
    if not 1 <= r <= k:
        raise ValueError(f"r must be in [1, {k}], got {r}")
    Cs, Ct = correlation(Xs), correlation(Xt)
    gs, gt = greedy_select(Cs, r=r).order, greedy_select(Ct, r=r).order
    tra, nat = coverage(Ct, gs), coverage(Ct, gt)
    D = Cs - Ct
    Q, _ = np.linalg.qr(Cs[:, gs])
    P = Q @ Q.T
    return CrossSuiteTransfer(
        tra,
        nat,
        tra / nat,
        float(np.linalg.norm(D, 2)),
        float(np.linalg.norm(P @ D @ P, 2)),
        [names[j] for j in gs],
        [names[j] for j in gt],
        r,
        k,
    )


def table_dates(table: ScoreTable) -> dict[str, pd.Series]:
    """The date columns of a score table's metadata (:data:`DATE_COLUMNS`), parsed, indexed by model.

    A column is kept when at least half of its cells parse as dates; unparseable cells become NaT.
    Empty when the table has no dates (then the chapter's time-ordered checks cannot run on it).
    """
    out: dict[str, pd.Series] = {}
    lower = {str(c).lower(): c for c in table.meta.columns}
    for name in DATE_COLUMNS:
        if name in lower:
            raw = table.meta[lower[name]]
            d = pd.to_datetime(raw, errors="coerce", utc=True).dt.tz_localize(None)
            if d.notna().mean() >= 0.5:
                out[str(lower[name])] = pd.Series(d.to_numpy(), index=table.scores.index, name=str(lower[name]))
    return out


@dataclass(frozen=True)
class OrderAgreement:
    """How far one ordering of the models is from another (e.g. by name against by date).

    ``same_part``: the share of models that fall in the same one of ``n_parts`` equal parts under both
    orders (1 when the orders give the same parts; about 1/n_parts for unrelated orders);
    ``tau``: Kendall tau_b between the two orders' ranks; ``n``: the models with both keys.
    """

    same_part: float
    tau: float
    n: int
    n_parts: int

    @property
    def identical_parts(self) -> bool:
        return bool(self.same_part >= 1.0 - 1e-12)


def order_agreement(key_a: pd.Series, key_b: pd.Series, n_parts: int = 4) -> OrderAgreement:
    """Compare the parts of :func:`ordered_parts` under two keys of the same models (index-aligned).

    Models missing either key are dropped first, so both orders split the same models.
    """
    if not key_a.index.equals(key_b.index):
        raise ValueError("the two keys must be indexed by the same models in the same order")
    both = (key_a.notna() & key_b.notna()).to_numpy()
    a, b = key_a[both], key_b[both]
    pa, pb = ordered_parts(a, n_parts), ordered_parts(b, n_parts)
    part_a = np.full(len(a), -1)
    part_b = np.full(len(a), -1)  # rows left over by both orders agree
    for i, (x, y) in enumerate(zip(pa, pb)):
        part_a[x], part_b[y] = i, i
    rank_a = pd.Series(np.arange(len(a)), index=np.argsort(a.to_numpy(), kind="stable")).sort_index().to_numpy()
    rank_b = pd.Series(np.arange(len(b)), index=np.argsort(b.to_numpy(), kind="stable")).sort_index().to_numpy()
    return OrderAgreement(
        float(np.mean(part_a == part_b)), float(stats.kendalltau(rank_a, rank_b).statistic), int(len(a)), n_parts
    )
