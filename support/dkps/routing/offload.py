r"""Cost-aware offloading: a flagship, cheap pools, and per-query (substitute, confidence) policies.

The routing paper's cost-aware reframing: the target is an expensive **flagship** ``f*`` (by
default the model with the best mean score on the *anchor* queries), the candidates are a
size-capped pool of cheaper models (:mod:`dkps.routing.sizes`), and for each new query ``q`` a
policy proposes a substitute ``r(q)`` and a confidence ``c(q)`` (lower: offload first). The
deviation of the substitute is ``dev(q) = ‖x_{r(q),q} − x_{f*,q}‖``, measured on held-out queries
only.

Policies (:func:`policy_decisions`):

======== ================================================== ==============================================
name     substitute                                         confidence
======== ================================================== ==============================================
qa       nearest to f* in the localised geometry            its distance ``min_c D_q(f*, c)``
qa-score ``argmax_c ŝ_c(q)`` (localised score regression)  ``ŝ_{f*}(q) − ŝ_r(q)``
static   nearest to f* in static DKPS (one pick)            constant
task     nearest to f* in q's task geometry (labels)        that distance
cascade  the best anchor task-mean score in q's task        flagship task mean − substitute task mean
profile  nearest anchor score profile to f* (one pick)      constant
lead     best anchor mean score in the pool (one pick)      constant
random   a uniform random candidate per query               constant
======== ================================================== ==============================================

The confidence-estimator ladder (:func:`ladder_decisions`) — each estimator picks the candidate
minimising its own confidence:

- ``qa`` (factorised): ``‖φ_m(q) − φ_f(q)‖``, the localised means of each model's own responses;
- ``var-ub``: ``sqrt(‖φ_m − φ_f‖² + s²_m + s²_f)``, the bound with no co-movement term;
- ``pairdev``: the localised mean of the realised pair deviation over the anchors both answered,
  ``Σ_j w̃_j ‖x_mj − x_fj‖`` (a kernel regression of the absolute deviation);
- ``pd-cal``: the same regression over a small *calibration* sample ``calA`` of the operator's
  own queries (weights at the anchors' bandwidth), held out of the anchors;
- ``oracle``: qa's pick with its realized deviation as confidence (a cheating reference).

Splits (:func:`split_queries`), stratified by task: anchors (the geometry), eval (the metric),
``calA`` (pd-cal's sample) and ``calB`` (the gate's calibration); the policies' gate calibrates on
``calA ∪ calB``. The four sets are disjoint, and every geometry, score estimate and bandwidth is a
function of the anchors alone (asserted in :func:`check_disjoint`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..records import validate
from .localization_bandwidth import median_anchor_distance
from .localized_geometry import query_sq_distances, rbf_weights, task_weights
from .rules import profile_distances, score_profiles
from .sizes import parse_sizes, pool_members

__all__ = [
    "POLICIES",
    "CONSTANT_POLICIES",
    "ESTIMATORS",
    "PairedSuite",
    "QuerySplit",
    "paired_suite",
    "split_queries",
    "check_disjoint",
    "anchor_best",
    "resolve_flagship",
    "pool_mask",
    "policy_matrices",
    "decide",
    "argmin_pool",
    "policy_decisions",
    "ladder_matrices",
    "ladder_decisions",
    "realized",
    "flagship_deviations",
]

POLICIES = ("qa", "qa-score", "static", "task", "cascade", "profile", "lead", "random")
CONSTANT_POLICIES = ("static", "profile", "lead", "random")
ESTIMATORS = ("qa-fact", "var-ub", "pairdev", "pd30", "pd-cal", "oracle")


@dataclass(frozen=True)
class PairedSuite:
    """A fully paired suite: every model's response embedding to every query.

    Attributes
    ----------
    models : tuple of str
        Model names, sorted (candidate ties go to the lower index).
    X : ndarray (n, m, d)
        Response embeddings.
    U : ndarray (m, d_q)
        Query embeddings.
    tasks : ndarray (m,)
        Task label of each query.
    query_ids : ndarray (m,)
    scores : ndarray (n, m) or None
        Per-response scores (NaN where missing).
    """

    models: tuple
    X: np.ndarray
    U: np.ndarray
    tasks: np.ndarray
    query_ids: np.ndarray
    scores: np.ndarray | None = None

    @property
    def n_models(self) -> int:
        return len(self.models)

    @property
    def n_queries(self) -> int:
        return self.X.shape[1]


def paired_suite(records: Any) -> PairedSuite:
    """A :class:`PairedSuite` from records with ``response_embedding`` and ``query_embedding``.

    Records are the package's format (one row per cached response: ``model_id, task_id,
    query_id``, the two embeddings, optional ``score``); every model must answer every query once.
    """
    rec = validate(records, require_query=True)
    if any(v is None for v in rec.response_vectors) or any(v is None for v in rec.query_vectors):
        raise ValueError(
            "offloading needs response_embedding and query_embedding on every row; "
            "embed the texts first (dkps.embed.embed_texts)"
        )
    fr = rec.frame
    models = sorted(fr.model_id.unique())
    keys = pd.MultiIndex.from_frame(fr[["task_id", "query_id"]])
    qcode, qkeys = pd.factorize(keys)
    mcode = pd.Index(models).get_indexer(fr.model_id)
    n, m = len(models), len(qkeys)
    cell = mcode * m + qcode
    if not (len(np.unique(cell)) == len(cell) == n * m):
        raise ValueError("offloading on a paired suite needs every model to answer every query exactly once")
    R = np.stack(rec.response_vectors).astype(np.float64)
    X = np.empty((n, m, R.shape[1]))
    X[mcode, qcode] = R
    first = np.unique(qcode, return_index=True)[1]
    U = np.stack([rec.query_vectors[i] for i in first]).astype(np.float64)
    for arr, what in ((X, "response"), (U, "query")):
        if not np.isfinite(arr).all():
            raise ValueError(f"{what} embeddings hold NaN or inf; drop or re-embed those rows")
    scores = None
    if "score" in fr.columns:
        S = np.full((n, m), np.nan)
        S[mcode, qcode] = pd.to_numeric(fr["score"], errors="coerce").to_numpy(dtype=float)
        scores = S if np.isfinite(S).any() else None
    return PairedSuite(
        models=tuple(models),
        X=X,
        U=U,
        tasks=np.array([k[0] for k in qkeys], dtype=object),
        query_ids=np.array([k[1] for k in qkeys], dtype=object),
        scores=scores,
    )


@dataclass(frozen=True)
class QuerySplit:
    """Disjoint query index sets of one seed: anchors, eval, calA (pd-cal's sample), calB (the gate's)."""

    anchors: np.ndarray
    eval: np.ndarray
    cal_a: np.ndarray
    cal_b: np.ndarray
    seed: int

    @property
    def cal(self) -> np.ndarray:
        """The policies' gate calibration split, ``calA ∪ calB``."""
        return np.concatenate([self.cal_a, self.cal_b])


def _allocate(counts: np.ndarray, total: int) -> np.ndarray:
    """Largest-remainder allocation of ``total`` in proportion to ``counts``."""
    raw = counts * total / counts.sum()
    k = np.floor(raw).astype(int)
    rest = total - k.sum()
    k[np.argsort(-(raw - k), kind="stable")[:rest]] += 1
    return k


def check_disjoint(split: QuerySplit) -> None:
    """Raise ``ValueError`` if any two of anchors / eval / calA / calB share a query."""
    parts = {"anchors": split.anchors, "eval": split.eval, "calA": split.cal_a, "calB": split.cal_b}
    names = list(parts)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            both = np.intersect1d(parts[a], parts[b])
            if both.size:
                raise ValueError(
                    f"the {a} and {b} splits share {both.size} queries (first index {both[0]}); "
                    "every geometry, calibration and evaluation set must be disjoint"
                )


def split_queries(
    tasks: np.ndarray, seed: int, n_eval: int = 200, n_cal_a: int = 100, n_cal_b: int = 100
) -> QuerySplit:
    """Stratified disjoint split of the queries into anchors / eval / calA / calB.

    Each of eval, calA and calB is drawn within tasks in proportion to the tasks' sizes
    (largest remainder), one after the other, with ``numpy.random.default_rng(seed)``; the rest
    are anchors, and every task keeps at least one anchor.
    """
    t = np.asarray(tasks, dtype=object)
    m = t.size
    need = n_eval + n_cal_a + n_cal_b
    if need >= m:
        raise ValueError(f"{m} queries cannot hold {n_eval} eval + {n_cal_a} calA + {n_cal_b} calB queries and anchors")
    rng = np.random.default_rng(seed)
    labels, codes = np.unique(t, return_inverse=True)
    free = [list(rng.permutation(np.flatnonzero(codes == c))) for c in range(labels.size)]
    out = []
    for size in (n_eval, n_cal_a, n_cal_b):
        k = _allocate(np.array([len(f) for f in free], dtype=float), size)
        pick = []
        for c, kc in enumerate(k):
            pick += free[c][:kc]
            free[c] = free[c][kc:]
        out.append(np.sort(np.array(pick, dtype=int)))
    empty = [labels[c] for c in range(labels.size) if not free[c]]
    if empty:
        raise ValueError(f"the split leaves task(s) {empty} without anchors; draw fewer eval/calibration queries")
    anchors = np.sort(np.concatenate([np.array(f, dtype=int) for f in free]))
    split = QuerySplit(anchors=anchors, eval=out[0], cal_a=out[1], cal_b=out[2], seed=seed)
    check_disjoint(split)
    return split


def anchor_best(suite: PairedSuite, anchors: np.ndarray) -> str:
    """The model with the best mean score over the anchor queries (ties: the first name)."""
    if suite.scores is None:
        raise ValueError("the anchor-best flagship needs per-response scores; name the flagship instead")
    with np.errstate(invalid="ignore"):
        means = np.nanmean(suite.scores[:, anchors], axis=1)
    if not np.isfinite(means).any():
        raise ValueError("no model has a score on the anchor queries; name the flagship instead")
    return suite.models[int(np.nanargmax(means))]


def resolve_flagship(suite: PairedSuite, flagship: str | None, anchors: np.ndarray) -> int:
    """Index of the flagship: the anchor-best model when ``None``, else the named model."""
    name = anchor_best(suite, anchors) if flagship is None else flagship
    if name not in suite.models:
        raise ValueError(f"the flagship {name!r} is not in the records; choose one of {list(suite.models)}")
    return suite.models.index(name)


def pool_mask(suite: PairedSuite, cap: float | None, flagship: int) -> np.ndarray:
    """Boolean mask of the size-capped pool (the flagship never in it); raises if it is empty."""
    members = pool_members(parse_sizes(suite.models), cap, exclude=[suite.models[flagship]])
    if not members:
        raise ValueError(f"no model of the suite parses to at most {cap}B besides the flagship; the pool is empty")
    mask = np.zeros(suite.n_models, dtype=bool)
    mask[[suite.models.index(m) for m in members]] = True
    return mask


def argmin_pool(C: np.ndarray, pool: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-row argmin over the pool (lowest index on ties) and its value.

    Entries outside the pool and non-finite ones count as ``+inf``; a row with no finite pool
    entry picks the first pool member with confidence ``+inf`` (never offloaded), so a pick is
    always a pool member and never the flagship.
    """
    pool = np.asarray(pool, dtype=bool)
    if not pool.any():
        raise ValueError("the candidate pool is empty")
    R = np.where(pool[None, :] & np.isfinite(C), C, np.inf)
    pick = R.argmin(axis=1)
    val = R[np.arange(R.shape[0]), pick]
    pick = np.where(np.isfinite(val), pick, int(np.flatnonzero(pool)[0]))
    return pick, val


def _weights(suite: PairedSuite, anchors: np.ndarray, queries: np.ndarray, sigma_fraction: float) -> np.ndarray:
    med = median_anchor_distance(suite.U[anchors])
    d2 = query_sq_distances(suite.U[queries], suite.U[anchors])
    return rbf_weights(d2, sigma_fraction * med)


def flagship_deviations(suite: PairedSuite, flagship: int) -> np.ndarray:
    """``‖x_{i,j} − x_{f,j}‖`` for every model i and query j: shape (n, m).

    One pass over the responses; every pair deviation with the flagship that a policy, an
    estimator or a metric reads is a slice of it (anchors for the geometries, calA for pd-cal,
    held-out queries for the metric).
    """
    diff = suite.X - suite.X[flagship][None]
    return np.sqrt(np.einsum("njd,njd->nj", diff, diff))


def _flag_row_distances(suite: PairedSuite, cols: np.ndarray, f: int, flag_dev: np.ndarray | None) -> np.ndarray:
    """``‖x_{i,j} − x_{f,j}‖²`` for every model i and query j in ``cols``: shape (len(cols), n)."""
    if flag_dev is not None:
        return flag_dev[:, cols].T ** 2
    diff = suite.X[:, cols, :] - suite.X[f, cols, :][None]
    return np.einsum("njd,njd->jn", diff, diff)


def _score_means(S: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        return np.nanmean(S, axis=1)


def policy_matrices(
    suite: PairedSuite,
    split: QuerySplit,
    flagship: int,
    queries: np.ndarray,
    *,
    sigma_fraction: float = 0.25,
    flag_dev: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Every policy's per-candidate criterion for the given (held-out) queries, before the pool.

    A policy picks ``argmin_c C[q, c]`` over its pool; for ``qa`` and ``task`` ``C`` is the
    localised distance to the flagship, for ``qa-score`` the predicted score gap
    ``ŝ_{f*}(q) − ŝ_c(q)``, for ``cascade`` the anchor task-mean gap; ``static``, ``profile`` and
    ``lead`` have one row (one pick for every query). Every matrix is a function of the anchors
    of ``split`` only (the queries must not be anchors: asserted).
    """
    check_disjoint(split)
    queries = np.asarray(queries, dtype=int)
    if np.intersect1d(queries, split.anchors).size:
        raise ValueError("a routed query is among the anchors: offloading decisions must be leave-query-out")
    A = split.anchors
    f = flagship
    P_f = _flag_row_distances(suite, A, f, flag_dev)  # (m_a, n): row f of the anchor distance tensor
    W = _weights(suite, A, queries, sigma_fraction)
    out: dict[str, np.ndarray] = {}
    out["qa"] = np.sqrt(np.maximum(W @ P_f, 0.0))
    out["static"] = np.sqrt(np.maximum(P_f.mean(axis=0), 0.0))[None]
    Wt = task_weights(suite.tasks[A], suite.tasks[queries])
    out["task"] = np.where(Wt.sum(1, keepdims=True) > 0, np.sqrt(np.maximum(Wt @ P_f, 0.0)), np.inf)
    if suite.scores is not None:
        S = suite.scores[:, A]  # (n, m_a), anchors only
        fin = np.isfinite(S)
        num = W @ np.where(fin, S, 0.0).T
        den = W @ fin.T.astype(float)
        with np.errstate(invalid="ignore", divide="ignore"):
            s_hat = np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)  # (Q, n)
        out["qa-score"] = s_hat[:, [f]] - s_hat
        tasks = sorted(set(suite.tasks[A]))
        rows_m = np.repeat(np.arange(suite.n_models), A.size)
        rows_t = np.tile(suite.tasks[A], suite.n_models)
        prof = score_profiles(S.ravel(), rows_m, rows_t, suite.n_models, tasks)  # (n, T)
        tcol = np.array([tasks.index(t) for t in suite.tasks[queries]])
        tm = prof[:, tcol].T  # (Q, n): task means in the query's task
        out["cascade"] = tm[:, [f]] - tm
        out["profile"] = profile_distances(prof)[f][None]
        out["lead"] = -_score_means(S)[None]
    return out


def decide(
    matrices: dict[str, np.ndarray], pool: np.ndarray, n_queries: int, *, seed: int = 0
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Picks and confidences over a pool: ``argmin`` of each criterion (lowest index on ties).

    The policies of :data:`CONSTANT_POLICIES` get confidence 0 on every query (a random offload
    order); ``random`` draws a uniform pool member per query with ``default_rng([seed, 7])``.
    """
    out = {}
    for name, C in matrices.items():
        pick, val = argmin_pool(C, pool)
        if C.shape[0] == 1:
            pick = np.full(n_queries, pick[0])
        out[name] = (pick, np.zeros(n_queries)) if name in CONSTANT_POLICIES else (pick, val)
    rng = np.random.default_rng([seed, 7])
    out["random"] = (rng.choice(np.flatnonzero(pool), size=n_queries), np.zeros(n_queries))
    return {k: out[k] for k in POLICIES if k in out} | {k: v for k, v in out.items() if k not in POLICIES}


def policy_decisions(
    suite: PairedSuite,
    split: QuerySplit,
    flagship: int,
    pool: np.ndarray,
    queries: np.ndarray,
    *,
    sigma_fraction: float = 0.25,
    seed: int = 0,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Substitute and confidence of every policy for the given (held-out) queries.

    :func:`policy_matrices` then :func:`decide`. Every geometry, score estimate and profile uses
    the anchors of ``split`` only; the queries' own responses and scores never enter.

    Returns
    -------
    dict
        ``{policy: (picks (Q,), confidence (Q,))}`` for :data:`POLICIES` (``qa-score``, ``cascade``,
        ``profile`` and ``lead`` only when the suite has scores).
    """
    mats = policy_matrices(suite, split, flagship, queries, sigma_fraction=sigma_fraction)
    return decide(mats, pool, np.asarray(queries).size, seed=seed)


def ladder_matrices(
    suite: PairedSuite,
    split: QuerySplit,
    flagship: int,
    queries: np.ndarray,
    *,
    sigma_fraction: float = 0.25,
    min_shared: int = 3,
    n_shared: int = 30,
    flag_dev: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Each ladder estimator's per-candidate confidence ``(Q, n)`` for the given queries.

    ``qa-fact``, ``var-ub`` and ``pairdev`` read the anchors; ``pd{n_shared}`` is pairdev on
    ``n_shared`` random anchors per candidate (seeded by the split), the starved pairing of a
    partly unpaired suite; ``pd-cal`` reads ``calA`` only (with the anchors' bandwidth), so the
    queries must lie outside the anchors and ``calA`` (asserted).
    """
    check_disjoint(split)
    queries = np.asarray(queries, dtype=int)
    if np.intersect1d(queries, split.anchors).size or np.intersect1d(queries, split.cal_a).size:
        raise ValueError("a query of the ladder is among the anchors or calA: estimators must be leave-query-out")
    A = split.anchors
    f = flagship
    n = suite.n_models
    if A.size < min_shared:
        raise ValueError(f"pairdev needs at least {min_shared} shared anchors, the split has {A.size}")
    W = _weights(suite, A, queries, sigma_fraction)
    XA = suite.X[:, A, :]  # (n, m_a, d)
    # paired data: every model's rows are the anchors, so phi_i(q) = sum_j w~_j x_ij is one product
    # (the factorised geometry's localised means with each model's own rows)
    phi = (W @ XA.transpose(1, 0, 2).reshape(A.size, -1)).reshape(queries.size, n, -1)
    diff = phi - phi[:, [f], :]
    D2 = np.einsum("qnd,qnd->qn", diff, diff)
    s2 = np.maximum(W @ np.einsum("njd,njd->jn", XA, XA) - np.einsum("qnd,qnd->qn", phi, phi), 0.0)
    out = {"qa-fact": np.sqrt(D2), "var-ub": np.sqrt(D2 + s2 + s2[:, [f]])}
    absdev = np.sqrt(_flag_row_distances(suite, A, f, flag_dev))  # (m_a, n)
    out["pairdev"] = W @ absdev
    # pd-K: pairdev on K random shared anchors per candidate (a bought-generations budget)
    K = min(n_shared, A.size)
    keep = np.argsort(np.random.default_rng([split.seed, 30]).random((n, A.size)), axis=1)[:, :K]
    M = np.zeros((n, A.size))
    np.put_along_axis(M, keep, 1.0, axis=1)
    den = W @ M.T
    with np.errstate(invalid="ignore", divide="ignore"):
        out[f"pd{n_shared}"] = np.where(den > 0, (W @ (M.T * absdev)) / np.where(den > 0, den, 1.0), np.inf)
    med = median_anchor_distance(suite.U[A])
    Wc = rbf_weights(query_sq_distances(suite.U[queries], suite.U[split.cal_a]), sigma_fraction * med)
    out["pd-cal"] = Wc @ np.sqrt(_flag_row_distances(suite, split.cal_a, f, flag_dev))
    return out


def ladder_decisions(
    suite: PairedSuite,
    split: QuerySplit,
    flagship: int,
    pool: np.ndarray,
    queries: np.ndarray,
    *,
    sigma_fraction: float = 0.25,
    min_shared: int = 3,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Substitute and confidence of each estimator of the confidence ladder for the given queries.

    Each estimator picks the pool candidate minimising its own confidence
    (:func:`ladder_matrices`). ``oracle`` is qa-fact's pick with a NaN confidence: its confidence
    is that pick's realized deviation, which the study fills in from :func:`realized`.
    """
    mats = ladder_matrices(suite, split, flagship, queries, sigma_fraction=sigma_fraction, min_shared=min_shared)
    out = {name: argmin_pool(C, pool) for name, C in mats.items()}
    out["oracle"] = (out["qa-fact"][0], np.full(np.asarray(queries).size, np.nan))
    return out


def realized(
    suite: PairedSuite, flagship: int, queries: np.ndarray, picks: np.ndarray
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Realized deviation ``‖x_{r,q} − x_{f,q}‖`` of each pick, and the pick's and flagship's scores."""
    q = np.asarray(queries, dtype=int)
    p = np.asarray(picks, dtype=int)
    dev = np.linalg.norm(suite.X[p, q] - suite.X[flagship, q], axis=1)
    if suite.scores is None:
        return dev, None, None
    return dev, suite.scores[p, q], suite.scores[flagship, q]
