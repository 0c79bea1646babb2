"""Evaluation of routers on a paired suite: leave-query-out splits, seeds and the mimicry table.

Protocol (the routing experiments of the dkps repository, made leak-free):

1. **Split**, per seed, stratified by task: ``k_c = max(1, round(eval_frac x n_c))`` evaluation
   queries of each task ``c`` (``numpy.random.default_rng(seed)``); the rest are anchors. A task
   left without an anchor is an error.
2. **Leave-query-out, asserted in code.** Every router input -- the distance tensor, the bandwidth
   median, the CV pseudo-queries, the score profiles, the task geometry -- is built from the
   anchor slice alone (:func:`check_leave_query_out` runs before each); an evaluation query
   enters only through its query embedding. Its responses are read once, by the metric.
3. **Decisions**: every model in turn is the target of every evaluation query; candidates are all
   other models. Per seed, a method's error is the mean of ``e(r; t, q) = ||x_rq - x_tq||`` over
   decisions; the table reports mean and SE (std over seeds / sqrt(#seeds)) and the win rate
   against static (the fraction of decisions with a strictly lower error).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy import stats

from ..threads import single_blas_thread
from .localization_bandwidth import CV_FRACTIONS, FRACTIONS, cv_global, cv_per_query, cv_table, median_anchor_distance
from .localized_geometry import (
    LocalizedStats,
    factorised_distances,
    localized_distances,
    normalize_weights,
    pairwise_sq_distances,
    query_sq_distances,
    rbf_weights,
    static_distances,
    task_weights,
)
from .rules import (
    bracket_errors,
    mimicry_errors,
    nearest_for_all_targets,
    picked_errors,
    profile_distances,
    score_profiles,
)

__all__ = [
    "PairedSuite",
    "Split",
    "SeedResult",
    "LeakError",
    "stratified_split",
    "check_leave_query_out",
    "evaluate_split",
    "evaluate_seeds",
    "mimicry_table",
    "per_task_table",
    "method_names",
    "Difference",
    "paired_difference",
    "seed_interval",
]


class LeakError(AssertionError):
    """An evaluation query reached a router input."""


@dataclass
class PairedSuite:
    """A fully paired suite: every model answered every query.

    Attributes
    ----------
    X : ndarray (n, m, d)
        Response embeddings.
    U : ndarray (m, d_q)
        Query embeddings.
    tasks : ndarray (m,)
        Task label per query.
    models : list of str
        Model ids, sorted (ties go to the first).
    query_ids : ndarray (m,)
    scores : ndarray (n, m) or None
        Per-response score (for the profile baseline).
    P : ndarray (m, n, n)
        ``P[j] = ||x_ij - x_kj||^2``; slice ``j`` is a function of query ``j``'s responses only.
    """

    X: np.ndarray
    U: np.ndarray
    tasks: np.ndarray
    models: list
    query_ids: np.ndarray
    scores: np.ndarray | None = None
    P: np.ndarray = field(default=None, repr=False)

    def __post_init__(self):
        self.X = np.asarray(self.X, dtype=np.float64)
        self.U = np.asarray(self.U, dtype=np.float64)
        self.tasks = np.asarray(self.tasks, dtype=object)
        self.query_ids = np.asarray(self.query_ids, dtype=object)
        n, m, _ = self.X.shape
        if self.U.shape[0] != m or self.tasks.shape != (m,) or self.query_ids.shape != (m,):
            raise ValueError(f"X has {m} queries but U, tasks or query_ids disagree")
        if len(self.models) != n:
            raise ValueError(f"X has {n} models but {len(self.models)} model ids were given")
        for arr, what in ((self.X, "response"), (self.U, "query")):
            if not np.isfinite(arr).all():
                raise ValueError(f"{what} embeddings hold NaN or inf; drop or re-embed those rows")
        if self.scores is not None:
            self.scores = np.asarray(self.scores, dtype=np.float64)
            if self.scores.shape != (n, m):
                raise ValueError(f"scores must have shape ({n}, {m}), got {self.scores.shape}")
        if self.P is None:
            self.P = pairwise_sq_distances(self.X)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, X_rows, U_rows) -> PairedSuite:
        """Build from a long frame (``model_id, task_id, query_id``, optional ``score``) and row-aligned
        response / query embedding matrices; only queries answered by every model are kept."""
        fr = frame.reset_index(drop=True)
        X_rows = np.asarray(X_rows, dtype=np.float64)
        U_rows = np.asarray(U_rows, dtype=np.float64)
        models = sorted(fr.model_id.unique())
        per_q = fr.groupby("query_id").model_id.nunique()
        keep_q = sorted(per_q.index[per_q == len(models)])
        if not keep_q:
            raise ValueError("no query is answered by every model; the paired suite needs full pairing")
        fr = fr[fr.query_id.isin(keep_q)]
        if fr.duplicated(["model_id", "query_id"]).any():
            raise ValueError("a (model_id, query_id) pair occurs twice; give one response per pair")
        mi = pd.Index(models).get_indexer(fr.model_id)
        qi = pd.Index(keep_q).get_indexer(fr.query_id)
        idx = fr.index.to_numpy()
        n, m = len(models), len(keep_q)
        X = np.empty((n, m, X_rows.shape[1]))
        X[mi, qi] = X_rows[idx]
        U = np.empty((m, U_rows.shape[1]))
        U[qi] = U_rows[idx]
        tasks = np.empty(m, dtype=object)
        tasks[qi] = fr.task_id.to_numpy()
        scores = None
        if "score" in fr.columns:
            scores = np.full((n, m), np.nan)
            scores[mi, qi] = fr.score.to_numpy(dtype=np.float64)
        return cls(X=X, U=U, tasks=tasks, models=models, query_ids=np.asarray(keep_q, dtype=object), scores=scores)


@dataclass(frozen=True)
class Split:
    """Anchor and evaluation query positions of one seed."""

    anchor: np.ndarray
    eval: np.ndarray
    seed: int


def stratified_split(tasks, eval_frac: float = 0.2, seed: int = 0) -> Split:
    """Per task ``c``: ``max(1, round(eval_frac x n_c))`` evaluation queries, drawn without replacement.

    Parameters
    ----------
    tasks : array-like of shape (m,)
        The task of each query.
    eval_frac : float, default=0.2
        Share of each task held out.
    seed : int, default=0
        Seed of ``numpy.random.default_rng``.

    Returns
    -------
    Split
        Sorted anchor and evaluation positions.

    Raises
    ------
    ValueError
        If ``eval_frac`` is not in (0, 1) or a task would be left without anchors.
    """
    if not 0 < eval_frac < 1:
        raise ValueError(f"eval_frac must be in (0, 1), got {eval_frac}")
    tasks = np.asarray(tasks, dtype=object)
    rng = np.random.default_rng(seed)
    ev = []
    for c in sorted(set(tasks.tolist())):
        pos = np.flatnonzero(tasks == c)
        k = max(1, round(eval_frac * pos.size))
        if k >= pos.size:
            raise ValueError(
                f"the evaluation split leaves task {c!r} ({pos.size} queries) without anchors; "
                "lower eval_frac or give the task more queries"
            )
        ev.append(rng.choice(pos, size=k, replace=False))
    ev = np.sort(np.concatenate(ev))
    anchor = np.setdiff1d(np.arange(tasks.size), ev)
    return Split(anchor=anchor, eval=ev, seed=seed)


def check_leave_query_out(anchor_query_ids, eval_query_ids, where: str) -> None:
    """Raise :class:`LeakError` if any evaluation query id occurs among the ids feeding ``where``.

    Parameters
    ----------
    anchor_query_ids : array-like
        The query ids a router input is built from.
    eval_query_ids : array-like
        The held-out query ids.
    where : str
        The router input, for the message.

    Raises
    ------
    LeakError
        An evaluation query entered ``where``.
    """
    leak = set(np.asarray(anchor_query_ids, dtype=object).tolist()) & set(
        np.asarray(eval_query_ids, dtype=object).tolist()
    )
    if leak:
        raise LeakError(f"evaluation query {sorted(leak, key=str)[0]!r} entered {where}; it must be held out")


@dataclass
class SeedResult:
    """One seed: per-method errors and picks for every (evaluation query, target) decision."""

    seed: int
    eval_queries: np.ndarray
    eval_tasks: np.ndarray
    errors: dict
    picks: dict
    med: float
    sigma_cv_global: float
    sigma_cv_per_query: np.ndarray
    cv_table: np.ndarray


def method_names(fractions=FRACTIONS) -> list[str]:
    """Methods of the mimicry table in display order.

    Parameters
    ----------
    fractions : sequence of float, default=FRACTIONS
        The bandwidth fractions of the ``qa-{f}x`` rows.

    Returns
    -------
    list of str
    """
    return [f"qa-{f:g}x" for f in fractions] + [
        "cv-global",
        "cv-per-query",
        "qa-fact-0.25x",
        "task",
        "static",
        "static-fact",
        "profile",
        "random",
        "oracle",
    ]


@single_blas_thread
def evaluate_split(
    suite: PairedSuite,
    split: Split,
    *,
    fractions=FRACTIONS,
    cv: bool = True,
    cv_fractions=CV_FRACTIONS,
    n_pseudo: int = 200,
) -> SeedResult:
    """Route every (evaluation query, target) decision of one split with every method.

    Only ``suite.P[split.anchor]``, ``suite.U``, ``suite.tasks`` and ``suite.scores[:, split.anchor]``
    reach a router; ``suite.P[split.eval]`` is read by the metric alone.

    Parameters
    ----------
    suite : PairedSuite
        The suite.
    split : Split
        Anchors and held-out queries.
    fractions : sequence of float, default=FRACTIONS
        The qa bandwidths, as multiples of the median anchor distance.
    cv : bool, default=True
        Also run cv-global and cv-per-query.
    cv_fractions : sequence of float, default=CV_FRACTIONS
        The CV grid.
    n_pseudo : int, default=200
        CV pseudo-queries.

    Returns
    -------
    SeedResult
        Errors and picks of every method for every (held-out query, target).

    Raises
    ------
    LeakError
        A held-out query reached a router input.
    ValueError
        A task left without anchors.
    """
    a, e = split.anchor, split.eval
    qa_ids, qe_ids = suite.query_ids[a], suite.query_ids[e]
    check_leave_query_out(qa_ids, qe_ids, "the anchor geometry")
    Pa = suite.P[a]
    Ua, Ue = suite.U[a], suite.U[e]
    ta, te = suite.tasks[a], suite.tasks[e]
    missing = sorted(set(te.tolist()) - set(ta.tolist()), key=str)
    if missing:
        raise ValueError(f"the evaluation split leaves task {missing[0]!r} without anchors")
    rng = np.random.default_rng(split.seed)
    check_leave_query_out(qa_ids, qe_ids, "the bandwidth median")
    med = median_anchor_distance(Ua)
    d2 = query_sq_distances(Ue, Ua)
    E = mimicry_errors(suite.P[e])  # the metric: the only read of evaluation responses
    errors: dict = {}
    picks: dict = {}

    def record(name, D):
        p, _ = nearest_for_all_targets(D)
        if p.shape[0] == 1:
            p = np.broadcast_to(p, (len(e), p.shape[1]))
        picks[name] = p
        errors[name] = picked_errors(E, p)

    for f in fractions:
        record(f"qa-{f:g}x", localized_distances(Pa, rbf_weights(d2, f * med)))
    sig_g, sig_q, table = np.nan, np.full(len(e), np.nan), None
    if cv:
        table, pseudo, _ = cv_table(Pa, Ua, cv_fractions, med=med, rng=rng, n_pseudo=n_pseudo)
        check_leave_query_out(qa_ids[pseudo], qe_ids, "the CV pseudo-queries")
        sig_g = cv_fractions[cv_global(table)] * med
        record("cv-global", localized_distances(Pa, rbf_weights(d2, sig_g)))
        idx = cv_per_query(table, Ua[pseudo], Ue, med)
        sig_q = np.asarray(cv_fractions)[idx] * med
        D = np.empty((len(e),) + Pa.shape[1:])
        for s in np.unique(sig_q):
            sel = sig_q == s
            D[sel] = localized_distances(Pa, rbf_weights(d2[sel], s))
        record("cv-per-query", D)
    n = suite.X.shape[0]
    Xa = suite.X[:, a]
    for name, W in (("qa-fact-0.25x", rbf_weights(d2, 0.25 * med)), ("static-fact", np.ones((1, len(a))))):
        phi = np.matmul(normalize_weights(W)[None], Xa).transpose(1, 0, 2)  # (Q, n, d): each model's weighted mean
        ones = np.ones(phi.shape[:2], dtype=bool)
        record(name, factorised_distances(LocalizedStats(phi, ones.astype(float), ones, None, None, None)))
    record("task", localized_distances(Pa, task_weights(ta, te)))
    record("static", static_distances(Pa))
    if suite.scores is not None:
        check_leave_query_out(qa_ids, qe_ids, "the score profiles")
        ma = len(a)
        prof = score_profiles(
            suite.scores[:, a].ravel(), np.repeat(np.arange(n), ma), np.tile(ta, n), n, sorted(set(ta.tolist()))
        )
        record("profile", profile_distances(prof))
    rand, orac = bracket_errors(E)
    errors["random"], errors["oracle"] = rand, orac
    return SeedResult(
        seed=split.seed,
        eval_queries=qe_ids,
        eval_tasks=te,
        errors=errors,
        picks=picks,
        med=med,
        sigma_cv_global=float(sig_g),
        sigma_cv_per_query=sig_q,
        cv_table=table,
    )


def evaluate_seeds(
    suite: PairedSuite, seeds=(0, 1, 2, 3, 4), *, eval_frac: float = 0.2, n_jobs: int | None = None, **kwargs
) -> list[SeedResult]:
    """:func:`evaluate_split` on the stratified split of each seed (joblib over seeds).

    Parameters
    ----------
    suite : PairedSuite
        The suite.
    seeds : sequence of int, default=(0, 1, 2, 3, 4)
        Split seeds.
    eval_frac : float, default=0.2
        Share of each task held out.
    n_jobs : int or None, default=None
        Joblib workers over seeds (threads).
    **kwargs
        Passed to :func:`evaluate_split`.

    Returns
    -------
    list of SeedResult
        One per seed, in order.
    """
    splits = [stratified_split(suite.tasks, eval_frac, s) for s in seeds]
    if n_jobs in (None, 1):
        return [evaluate_split(suite, sp, **kwargs) for sp in splits]
    return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(evaluate_split)(suite, sp, **kwargs) for sp in splits)


def _se(x: np.ndarray) -> float:
    return float(np.std(x, ddof=1) / np.sqrt(x.size)) if x.size > 1 else float("nan")


def mimicry_table(results: list[SeedResult], methods=None) -> pd.DataFrame:
    """Mean error +- SE over seeds and the win rate against static, one row per method.

    Parameters
    ----------
    results : list of SeedResult
        One per seed.
    methods : list of str, optional
        Rows, in order (default: :func:`method_names` present in the results).

    Returns
    -------
    DataFrame
        ``method, error, se, win_vs_static`` (the fraction of all (seed, query, target) decisions with an
        error strictly below static's) and ``delta_vs_static`` (mean paired difference, with its SE over
        seeds ``delta_se``).
    """
    methods = methods or [m for m in method_names() if m in results[0].errors]
    rows = []
    for mth in methods:
        per_seed = np.array([np.nanmean(r.errors[mth]) for r in results])
        diff = np.array([np.nanmean(r.errors[mth] - r.errors["static"]) for r in results])
        wins = np.concatenate([(r.errors[mth] < r.errors["static"]).ravel() for r in results])
        rows.append(
            dict(
                method=mth,
                error=per_seed.mean(),
                se=_se(per_seed),
                delta_vs_static=diff.mean(),
                delta_se=_se(diff),
                win_vs_static=wins.mean(),
            )
        )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class Difference:
    """A seed-paired difference of two methods' mimicry errors, ``a - b``, with its interval across seeds.

    Attributes
    ----------
    a, b : str
        The two methods.
    mean : float
        Mean over seeds of the per-seed mean difference over (query, target) decisions.
    lo, hi : float
        The two-sided t-interval across seeds at ``level`` (NaN with one seed).
    n_seeds : int
    level : float
    """

    a: str
    b: str
    mean: float
    lo: float
    hi: float
    n_seeds: int
    level: float = 0.95

    @property
    def below_zero(self) -> bool:
        """The whole interval is below 0: ``a`` has the lower error (NaN bounds: False)."""
        return bool(self.hi < 0)

    @property
    def above_zero(self) -> bool:
        """The whole interval is above 0: ``b`` has the lower error (NaN bounds: False)."""
        return bool(self.lo > 0)

    def __str__(self) -> str:
        return f"{self.mean:+.4f} [{self.lo:+.4f}, {self.hi:+.4f}]"


def paired_difference(results: list[SeedResult], a: str, b: str, *, level: float = 0.95) -> Difference:
    r"""The seed-paired difference of two methods' errors and its t-interval across seeds.

    With :math:`\Delta_s = \operatorname{mean}_{(q, t)} (e^a_{s,q,t} - e^b_{s,q,t})` on the same decisions
    of seed :math:`s` (NaN decisions skipped), the interval is
    :math:`\bar\Delta \pm t_{(1+\text{level})/2,\,S-1}\, \mathrm{sd}(\Delta)/\sqrt S`.

    Parameters
    ----------
    results : list of SeedResult
        One per seed (:func:`evaluate_seeds`).
    a, b : str
        Method names in every result.
    level : float, default=0.95
        Two-sided level of the interval.

    Returns
    -------
    Difference

    Raises
    ------
    ValueError
        No results, an unknown method, or a level outside (0, 1).

    References
    ----------
    Student (1908); the book's chapter "Routing to a behavioural stand-in" (the "beats" of the routing
    README's findings, read as a paired comparison over the same decisions).
    """
    if not results:
        raise ValueError("no seed results to compare; run evaluate_seeds first")
    for m in (a, b):
        if m not in results[0].errors:
            raise ValueError(f"unknown method {m!r}; the results hold {sorted(results[0].errors)}")
    return seed_interval([np.nanmean(r.errors[a] - r.errors[b]) for r in results], a, b, level=level)


def seed_interval(values, a: str, b: str = "", *, level: float = 0.95) -> Difference:
    r"""The mean of one value per seed with its two-sided t-interval across seeds.

    :math:`\bar\Delta \pm t_{(1+\text{level})/2,\,S-1}\, \mathrm{sd}(\Delta)/\sqrt S` (Student 1908); NaN
    bounds with one seed.

    Parameters
    ----------
    values : sequence of float
        One value per seed (a difference of two methods, or a ratio of them).
    a, b : str
        What the value is (``a - b``, or ``a`` alone with ``b=''``).
    level : float, default=0.95
        Two-sided level of the interval.

    Returns
    -------
    Difference

    Raises
    ------
    ValueError
        No value, a non-finite value, or a level outside (0, 1).
    """
    d = np.asarray(values, dtype=np.float64)
    if d.ndim != 1 or d.size == 0 or not np.isfinite(d).all():
        raise ValueError(f"give one finite value per seed, got {values!r}")
    if isinstance(level, (bool, np.bool_)) or not 0 < float(level) < 1:
        raise ValueError(f"level must lie strictly between 0 and 1, got {level!r}")
    m = float(d.mean())
    if d.size < 2:
        return Difference(a, b, m, float("nan"), float("nan"), int(d.size), float(level))
    h = float(stats.t.ppf(0.5 + level / 2, d.size - 1) * d.std(ddof=1) / np.sqrt(d.size))
    return Difference(a, b, m, m - h, m + h, int(d.size), float(level))


def per_task_table(results: list[SeedResult], methods=None) -> pd.DataFrame:
    """Mean error per (task, method) over seeds (a task's decisions averaged within each seed first).

    Parameters
    ----------
    results : list of SeedResult
        One per seed.
    methods : list of str, optional
        Columns (default: :func:`method_names` present in the results).

    Returns
    -------
    DataFrame
        Index the tasks, one column per method.
    """
    methods = methods or [m for m in method_names() if m in results[0].errors]
    tasks = sorted(set(results[0].eval_tasks.tolist()))
    out = {}
    for mth in methods:
        out[mth] = [np.mean([np.nanmean(r.errors[mth][r.eval_tasks == t]) for r in results]) for t in tasks]
    return pd.DataFrame(out, index=pd.Index(tasks, name="task"))
