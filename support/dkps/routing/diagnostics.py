"""Diagnostics of what query-aware routing can and cannot learn (paired suites).

**The premise.** Query-aware routing can only beat static DKPS when *which model behaves like which*
changes from one kind of query to another: the geometry must be heterogeneous between queries. Three
measures of it, on any grouping of the queries (labelled tasks, or :func:`query_clusters` of the query
embeddings when there are no labels):

- :func:`nearest_model_agreement` -- each group's queries cut into two random halves; a target's
  nearest model in the static geometry of one half agrees with its nearest in the other half of the
  *same* group (``within``) more often than with the nearest in a half of *another* group
  (``between``) only if the geometry differs between groups;
- :func:`agreement_against_random_groups` -- the same contrast ``within - between`` against a null of
  random groupings of the same sizes (a permutation interval and p-value): router-free, so it is no
  function of any router's error;
- the group router against static (:func:`dkps.routing.evaluation.paired_difference` of ``task``
  and ``static``): the router *given* the group of every query must beat static, or no narrower
  localiser has anything to find between groups;
- :func:`effective_anchors` -- the Kish effective number of anchors ``1 / sum_j w~_j^2`` a bandwidth
  uses near a query: with few, localisation trades averaging for noise.

:func:`premise_measures` returns the three together.

**Other diagnostics.**

- :func:`residual_correlation` -- is the oracle gap tunable? Per task with at least
  ``min_queries`` queries, each query's vector of realised pair errors ``e(i, k; q)`` (``i < k``)
  has its task mean removed and is L2-normalised; random query pairs are split at the median
  query-query distance into *near* and *far*, and the mean dot product (a correlation) of each
  group is averaged over tasks. Near ~ far ~ 0 says that, beyond the task mean, the error surfaces
  of embedding-adjacent queries are unrelated, so no bandwidth can find the per-query oracle.
- :func:`score_disagreement` -- the boundary of the factorisation: for the objective
  ``|s_rq - s_tq|`` (judge-score disagreement) compare the pair's own localised historical
  disagreement ``rfS = sum_j w~_j |s_tj - s_cj|`` (needs pairing) with the factorised
  ``shat = |s^_t(q) - s^_c(q)|`` (each model's Nadaraya-Watson score estimate from its own rows)
  and with the response geometry ``qa``.
- :func:`score_routing` -- with no target: pick the candidate with the best localised own-score
  estimate, judged by the realised score of the pick.
- :func:`query_pca` -- anchor-fitted PCA of the query space (evaluation queries only projected).

All of them read anchors only for the router side (leave-query-out).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA

from ..threads import single_blas_thread
from .evaluation import PairedSuite, SeedResult, Split, check_leave_query_out, paired_difference
from .localization_bandwidth import check_fractions, median_anchor_distance
from .localized_geometry import localized_distances, localized_means, query_sq_distances, rbf_weights, task_weights
from .rules import nearest_for_all_targets, picked_errors

__all__ = [
    "query_clusters",
    "nearest_model_agreement",
    "GroupingContrast",
    "agreement_against_random_groups",
    "effective_anchors",
    "premise_measures",
    "residual_correlation",
    "score_disagreement",
    "score_routing",
    "query_pca",
]


def query_clusters(U, n_clusters: int, *, seed: int = 0) -> np.ndarray:
    """Group unlabelled queries by k-means on their embeddings: the stand-in for a task label.

    Reads the query embeddings only (no response and no score), which a router may use: the query is
    its input.

    Parameters
    ----------
    U : array-like of shape (m, d_q)
        Query embeddings.
    n_clusters : int
        Number of clusters, ``2 <= n_clusters <= m``.
    seed : int, default=0
        Seed of k-means (10 initialisations).

    Returns
    -------
    ndarray of str, shape (m,)
        ``'c0'``, ``'c1'``, ... numbered by decreasing cluster size (ties by first query).

    Raises
    ------
    ValueError
        A bad ``n_clusters`` or embeddings that hold NaN or inf.

    References
    ----------
    Lloyd (1982), *Least squares quantization in PCM*, IEEE Trans. Inf. Theory 28(2); the book's chapter
    "Routing to a behavioural stand-in" (Arena-Bench v1, which has no topic labels).
    """
    U = np.asarray(U, dtype=np.float64)
    if U.ndim != 2 or not np.isfinite(U).all():
        raise ValueError(f"query embeddings must be a finite 2-D array, got shape {U.shape}")
    if isinstance(n_clusters, (bool, np.bool_)) or not isinstance(n_clusters, (int, np.integer)):
        raise ValueError(f"n_clusters must be an integer, got {n_clusters!r}")
    if not 2 <= n_clusters <= U.shape[0]:
        raise ValueError(f"n_clusters must lie in 2..{U.shape[0]} (the number of queries), got {n_clusters}")
    lab = KMeans(n_clusters=int(n_clusters), n_init=10, random_state=seed).fit_predict(U)
    sizes = np.bincount(lab, minlength=n_clusters)
    first = np.array([np.flatnonzero(lab == c)[0] for c in range(n_clusters)])
    order = np.lexsort((first, -sizes))
    rank = np.empty(n_clusters, dtype=int)
    rank[order] = np.arange(n_clusters)
    return np.array([f"c{rank[c]}" for c in lab], dtype=object)


def _nearest_static(P_half: np.ndarray) -> np.ndarray:
    """Every target's nearest model in the static geometry of a set of queries, ``(n,)``."""
    return nearest_for_all_targets(np.sqrt(np.maximum(P_half.mean(axis=0), 0.0)))[0][0]


@single_blas_thread
def nearest_model_agreement(suite: PairedSuite, groups=None, *, n_repeats: int = 20, seed: int = 0) -> dict:
    r"""How often a target's nearest model agrees between two halves of one group, and of two groups.

    For each repeat and each group :math:`g`, its queries are cut at random into halves :math:`A_g, B_g`;
    :math:`\mathrm{nn}_H(t)` is target :math:`t`'s nearest model in the static geometry of half
    :math:`H`. Then

    .. math::  \text{within} = \operatorname{mean}_{g,t}\, 1[\mathrm{nn}_{A_g}(t) = \mathrm{nn}_{B_g}(t)],
               \qquad \text{between} = \operatorname{mean}_{g \ne g', t}\, 1[\mathrm{nn}_{A_g}(t) =
               \mathrm{nn}_{B_{g'}}(t)],

    averaged over repeats. Equal values say the geometry is the same in every group (nothing for a
    localiser to find between groups); ``within`` well above ``between`` says it changes.

    Parameters
    ----------
    suite : PairedSuite
        A paired suite (its distance tensor ``P`` is read).
    groups : array-like of shape (m,), optional
        A group per query; default ``suite.tasks``.
    n_repeats : int, default=20
        Random halvings averaged.
    seed : int, default=0
        Seed of the halvings.

    Returns
    -------
    dict
        ``within``, ``between`` (shares in [0, 1]), ``n_groups`` and ``n_repeats``.

    Raises
    ------
    ValueError
        Fewer than two groups with at least 4 queries each, or groups of the wrong length.

    References
    ----------
    The book's chapter "Routing to a behavioural stand-in" (the premise of the routing README's finding 1).
    """
    g = np.asarray(suite.tasks if groups is None else groups, dtype=object)
    if g.shape != (suite.P.shape[0],):
        raise ValueError(f"give one group per query: {suite.P.shape[0]} queries, {g.size} groups")
    names = [x for x in sorted(set(g.tolist()), key=str) if (g == x).sum() >= 4]
    if len(names) < 2:
        raise ValueError("nearest-model agreement needs at least two groups with at least 4 queries each")
    if isinstance(n_repeats, (bool, np.bool_)) or not isinstance(n_repeats, (int, np.integer)) or n_repeats < 1:
        raise ValueError(f"n_repeats must be an integer >= 1, got {n_repeats!r}")
    rng = np.random.default_rng(seed)
    within, between = [], []
    for _ in range(n_repeats):
        a_nn, b_nn = [], []
        for name in names:
            pos = rng.permutation(np.flatnonzero(g == name))
            h = pos.size // 2
            a_nn.append(_nearest_static(suite.P[pos[:h]]))
            b_nn.append(_nearest_static(suite.P[pos[h : 2 * h]]))
        A, B = np.stack(a_nn), np.stack(b_nn)  # (G, n)
        same = A[:, None, :] == B[None, :, :]  # (G, G, n)
        diag = np.eye(len(names), dtype=bool)
        within.append(same[diag].mean())
        between.append(same[~diag].mean())
    return dict(within=float(np.mean(within)), between=float(np.mean(between)), n_groups=len(names),
                n_repeats=int(n_repeats))  # fmt: skip


@dataclass(frozen=True)
class GroupingContrast:
    """Nearest-model agreement within and between groups, against random groupings of the same sizes.

    Attributes
    ----------
    within, between : float
        :func:`nearest_model_agreement` of the grouping.
    null_within, null_between : ndarray
        The same shares for each random grouping (the permutation null).
    n_groups : int
        Groups with at least 4 queries.
    """

    within: float
    between: float
    null_within: np.ndarray
    null_between: np.ndarray
    n_groups: int

    @property
    def excess(self) -> float:
        """``within - between`` of the grouping."""
        return self.within - self.between

    @property
    def null(self) -> np.ndarray:
        """``within - between`` of each random grouping."""
        return self.null_within - self.null_between

    @property
    def null_interval(self) -> tuple[float, float]:
        """The 2.5 % and 97.5 % quantiles of the null's ``within - between`` (the permutation interval)."""
        lo, hi = np.quantile(self.null, [0.025, 0.975])
        return float(lo), float(hi)

    @property
    def p_value(self) -> float:
        r"""One-sided permutation p-value of the excess, :math:`(1 + \#\{b: T_b \ge T\}) / (1 + B)`."""
        return float((1 + np.sum(self.null >= self.excess - 1e-12)) / (1 + self.null.size))


@single_blas_thread
def agreement_against_random_groups(
    suite: PairedSuite, groups=None, *, n_perm: int = 200, n_repeats: int = 5, seed: int = 0
) -> GroupingContrast:
    r"""Router-free heterogeneity: ``within - between`` of a grouping against random groupings of its sizes.

    The statistic :math:`T = \text{within} - \text{between}` of :func:`nearest_model_agreement` is computed
    for the grouping and for ``n_perm`` random permutations of its labels (the same group sizes), each with
    ``n_repeats`` halvings. Under the null that the grouping carries no information about which model
    behaves like which, :math:`T` is exchangeable with the permuted values. No router and no routing error
    enters: the premise of query-aware routing is measured without the method it is the premise of.

    Parameters
    ----------
    suite : PairedSuite
        A paired suite (its distance tensor ``P`` is read).
    groups : array-like of shape (m,), optional
        A group per query; default ``suite.tasks``.
    n_perm : int, default=200
        Random groupings of the null.
    n_repeats : int, default=5
        Halvings per grouping (the grouping itself and each permutation alike).
    seed : int, default=0
        Seed of the permutations and halvings.

    Returns
    -------
    GroupingContrast

    Raises
    ------
    ValueError
        As :func:`nearest_model_agreement`, or ``n_perm`` below 19.

    References
    ----------
    Good (2005), *Permutation, Parametric and Bootstrap Tests of Hypotheses*, Springer; Phipson and Smyth
    (2010), *Permutation p-values should never be zero*, Stat. Appl. Genet. Mol. Biol. 9(1).
    """
    if isinstance(n_perm, (bool, np.bool_)) or not isinstance(n_perm, (int, np.integer)) or n_perm < 19:
        raise ValueError(f"n_perm must be an integer >= 19 (a 95% permutation interval), got {n_perm!r}")
    g = np.asarray(suite.tasks if groups is None else groups, dtype=object)
    obs = nearest_model_agreement(suite, g, n_repeats=n_repeats, seed=seed)
    rng = np.random.default_rng(seed)
    null = np.empty((int(n_perm), 2))
    for b in range(int(n_perm)):
        a = nearest_model_agreement(suite, rng.permutation(g), n_repeats=n_repeats, seed=seed + 1 + b)
        null[b] = a["within"], a["between"]
    return GroupingContrast(obs["within"], obs["between"], null[:, 0], null[:, 1], obs["n_groups"])


def effective_anchors(suite: PairedSuite, split: Split, fractions, *, med: float | None = None) -> dict:
    r"""Kish's effective number of anchors a bandwidth uses near a held-out query, averaged over them.

    .. math::  n_\mathrm{eff}(q) = \frac{1}{\sum_j \tilde w_j(q)^2}, \qquad
               \tilde w_j = w_j / \textstyle\sum_l w_l

    with the RBF weights of :func:`dkps.routing.localized_geometry.rbf_weights` at
    ``sigma = f x med``. It is the number of equally weighted anchors that would average as much.

    Parameters
    ----------
    suite : PairedSuite
        The suite (its query embeddings are read).
    split : Split
        Anchors and held-out queries (only their query embeddings are read).
    fractions : sequence of float
        Bandwidths as multiples of ``med``.
    med : float, optional
        The median anchor distance (computed from the anchors when not given).

    Returns
    -------
    dict
        ``{fraction: mean n_eff over the held-out queries}``, plus ``'anchors'``: the number of anchors.

    Raises
    ------
    ValueError
        A bad fraction grid (:func:`dkps.routing.localization_bandwidth.check_fractions`).

    References
    ----------
    Kish (1965), *Survey Sampling*, Wiley; the book's chapter "Routing to a behavioural stand-in".
    """
    fr = check_fractions(fractions)
    Ua, Ue = suite.U[split.anchor], suite.U[split.eval]
    med = median_anchor_distance(Ua) if med is None else float(med)
    d2 = query_sq_distances(Ue, Ua)
    out: dict = {}
    for f in fr:
        W = rbf_weights(d2, f * med)
        out[float(f)] = float(np.mean(1.0 / (W * W).sum(axis=1)))
    out["anchors"] = int(split.anchor.size)
    return out


def premise_measures(
    suite: PairedSuite,
    results: list[SeedResult],
    *,
    groups=None,
    group_method: str = "task",
    fraction: float = 0.25,
    n_repeats: int = 20,
    n_perm: int = 200,
    seed: int = 0,
) -> dict:
    """The premise of query-aware routing on one suite: the measures in one record.

    Parameters
    ----------
    suite : PairedSuite
        The suite the results were computed on.
    results : list of SeedResult
        The mimicry evaluation of the suite (:func:`dkps.routing.evaluation.evaluate_seeds`); its
        ``group_method`` router (the task router: ``suite.tasks`` are the labels or the clusters) is
        compared with static.
    groups : array-like, optional
        Groups for the agreement; default ``suite.tasks``.
    group_method : str, default='task'
        The group router's method name in ``results``.
    fraction : float, default=0.25
        The bandwidth whose effective anchors are reported.
    n_repeats, seed : int
        As :func:`nearest_model_agreement`.
    n_perm : int, default=200
        Random groupings of :func:`agreement_against_random_groups` (with at most 5 halvings each).

    Returns
    -------
    dict
        ``within``, ``between``, ``n_groups``; ``contrast`` (the router-free premise,
        :class:`GroupingContrast`: the agreement against random groupings of the same sizes);
        ``group_minus_static`` (a
        :class:`dkps.routing.evaluation.Difference`: the group router's error minus static's, with its 95%
        interval over seeds); ``n_eff`` (mean effective anchors at ``fraction``) and ``anchors`` (anchors per
        seed, first seed).

    Raises
    ------
    ValueError
        As :func:`nearest_model_agreement`, or no ``group_method`` in ``results``.

    References
    ----------
    The book's chapter "Routing to a behavioural stand-in".
    """
    if not results or group_method not in results[0].errors:
        raise ValueError(f"the mimicry results hold no {group_method!r} router; run evaluate_seeds on the suite first")
    agree = nearest_model_agreement(suite, groups, n_repeats=n_repeats, seed=seed)
    contrast = agreement_against_random_groups(suite, groups, n_perm=n_perm, n_repeats=min(n_repeats, 5), seed=seed)
    r0 = results[0]
    tasks = np.asarray(suite.tasks, dtype=object)
    ev = np.flatnonzero(np.isin(suite.query_ids, r0.eval_queries))
    split = Split(anchor=np.setdiff1d(np.arange(tasks.size), ev), eval=ev, seed=r0.seed)
    neff = effective_anchors(suite, split, (fraction,), med=r0.med)
    return dict(
        agree,
        contrast=contrast,
        group_minus_static=paired_difference(results, group_method, "static"),
        n_eff=neff[float(fraction)],
        anchors=neff["anchors"],
        fraction=float(fraction),
    )


def query_pca(U_anchor, U_eval, n_components: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Project both query sets on the first ``n_components`` principal axes of the anchors.

    Parameters
    ----------
    U_anchor : ndarray of shape (m_a, d_q)
        Anchor query embeddings (the PCA is fitted on these only).
    U_eval : ndarray of shape (Q, d_q)
        Held-out query embeddings (only projected).
    n_components : int or None
        Kept dimensions; None (or at least ``d_q``) returns both unchanged.

    Returns
    -------
    tuple of ndarray
        The projected anchors and held-out queries.
    """
    if n_components is None or n_components >= U_anchor.shape[1]:
        return U_anchor, U_eval
    pca = PCA(n_components=n_components, random_state=0).fit(U_anchor)
    return pca.transform(U_anchor), pca.transform(U_eval)


@single_blas_thread
def residual_correlation(
    suite: PairedSuite, *, n_pairs: int = 4000, min_queries: int = 20, n_components: int | None = None, seed: int = 0
) -> dict:
    """Near and far residual correlation of realised pair-error surfaces, averaged over tasks.

    Per task with at least ``min_queries`` queries, each query's vector of realised pair errors
    :math:`e(i, k; q)`, :math:`i < k`, has its task mean removed and is scaled to unit length; the dot
    product of two queries' vectors is their correlation. Random pairs are split at the median query
    distance into near and far.

    Parameters
    ----------
    suite : PairedSuite
        A paired suite (its distance tensor and query embeddings are read).
    n_pairs : int, default=4000
        Random query pairs per task.
    min_queries : int, default=20
        Fewest queries a task needs.
    n_components : int or None, default=None
        Query PCA dimension for the distances (None: the full space).
    seed : int, default=0
        Seed of the pairs.

    Returns
    -------
    dict
        ``near``, ``far`` (means over tasks; NaN with no task large enough) and ``n_tasks``.

    References
    ----------
    The residual-correlation diagnostic of the query-aware routing README of the dkps repository (finding 4);
    the book's chapter "Routing to a behavioural stand-in".
    """
    n = suite.X.shape[0]
    iu = np.triu_indices(n, 1)
    E = np.sqrt(suite.P[:, iu[0], iu[1]])  # (m, n(n-1)/2)
    U = suite.U
    if n_components is not None and n_components < U.shape[1]:
        U = PCA(n_components=n_components, random_state=0).fit_transform(U)
    rng = np.random.default_rng(seed)
    near, far = [], []
    for task in sorted(set(suite.tasks.tolist()), key=str):
        pos = np.flatnonzero(suite.tasks == task)
        if pos.size < min_queries:
            continue
        R = E[pos] - E[pos].mean(0)
        norms = np.linalg.norm(R, axis=1, keepdims=True)
        R = R / np.where(norms > 0, norms, 1.0)
        a = rng.integers(0, pos.size, n_pairs)
        b = rng.integers(0, pos.size, n_pairs)
        keep = a != b
        a, b = a[keep], b[keep]
        corr = (R[a] * R[b]).sum(1)
        dist = np.linalg.norm(U[pos[a]] - U[pos[b]], axis=1)
        cut = np.median(dist)
        near.append(corr[dist <= cut].mean())
        far.append(corr[dist > cut].mean())
    if not near:
        return dict(near=np.nan, far=np.nan, n_tasks=0)
    return dict(near=float(np.mean(near)), far=float(np.mean(far)), n_tasks=len(near))


def _score_estimates(Sa: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Each model's localised mean of its observed anchor scores ``Sa`` (n, m_a) under the query weights ``W``
    (Q, m_a): the (Q, n) own-score estimates (NaN where a model has no weighted score)."""
    n, m_a = Sa.shape
    ok = np.isfinite(Sa.ravel())
    rows_m = np.repeat(np.arange(n), m_a)
    return localized_means(
        np.zeros((ok.sum(), 1)), rows_m[ok], np.tile(W, (1, n))[:, ok], n, scores=Sa.ravel()[ok]
    ).score


def _weights(suite: PairedSuite, split: Split, kind: str, fraction: float, med: float) -> np.ndarray:
    a, e = split.anchor, split.eval
    if kind == "task":
        return task_weights(suite.tasks[a], suite.tasks[e])
    return rbf_weights(query_sq_distances(suite.U[e], suite.U[a]), fraction * med)


@single_blas_thread
def score_disagreement(suite: PairedSuite, split: Split, med: float, *, fraction: float = 0.25) -> dict:
    """Mean realised ``|s_pick,q - s_t,q|`` over (evaluation query, target) decisions per router.

    Routers: ``rfS-{f}x`` / ``rfS-task`` (pair's localised historical disagreement), ``shat-{f}x`` /
    ``shat-task`` (factorised own-score estimates), ``qa-{f}x`` (response geometry), ``random`` and
    ``oracle``.

    Parameters
    ----------
    suite : PairedSuite
        A paired suite with per-response scores.
    split : Split
        Anchors and held-out queries.
    med : float
        The median anchor distance of the split.
    fraction : float, default=0.25
        The RBF bandwidth as a multiple of ``med``.

    Returns
    -------
    dict
        ``{router: mean disagreement}``.

    Raises
    ------
    ValueError
        A suite without scores.
    """
    if suite.scores is None:
        raise ValueError("score disagreement needs per-response scores")
    a, e = split.anchor, split.eval
    check_leave_query_out(suite.query_ids[a], suite.query_ids[e], "the score-disagreement routers")
    S = suite.scores
    n = S.shape[0]
    Sa = S[:, a]
    Sa_f = np.where(np.isfinite(Sa), Sa, np.nan)
    dS = np.abs(Sa_f.T[:, :, None] - Sa_f.T[:, None, :])  # (m_a, n, n)
    have = np.isfinite(dS)
    dS0 = np.where(have, dS, 0.0)
    Se = S[:, e]
    target_err = np.abs(Se.T[:, :, None] - Se.T[:, None, :])  # (Q, n, n): |s_iq - s_kq|
    out = {}
    label = f"{fraction:g}x"
    for kind, name in (("rbf", label), ("task", "task")):
        W = _weights(suite, split, kind, fraction, med)
        num = np.einsum("qj,jik->qik", W, dS0)
        den = np.einsum("qj,jik->qik", W, have.astype(np.float64))
        with np.errstate(invalid="ignore", divide="ignore"):
            rfs = np.where(den > 0, num / den, np.inf)
        p, _ = nearest_for_all_targets(rfs)
        out[f"rfS-{name}"] = np.nanmean(picked_errors(target_err, p))
        est = _score_estimates(Sa, W)
        sh = np.abs(est[:, :, None] - est[:, None, :])
        sh = np.where(np.isfinite(sh), sh, np.inf)
        p, _ = nearest_for_all_targets(sh)
        out[f"shat-{name}"] = np.nanmean(picked_errors(target_err, p))
    D = localized_distances(suite.P[a], _weights(suite, split, "rbf", fraction, med))
    p, _ = nearest_for_all_targets(D)
    out[f"qa-{label}"] = np.nanmean(picked_errors(target_err, p))
    off = ~np.eye(n, dtype=bool)
    out["random"] = float(np.nanmean(np.nanmean(np.where(off[None], target_err, np.nan), axis=2)))
    out["oracle"] = float(np.nanmean(np.where(off[None], target_err, np.inf).min(2)))
    return out


@single_blas_thread
def score_routing(suite: PairedSuite, split: Split, med: float, *, fraction: float = 0.25) -> dict:
    """Realised score of ``argmax_c s^_c(q)`` (no target; every model a candidate), per weighting.

    ``qa`` (RBF at ``fraction x med``), ``task`` (indicator), ``static`` (uniform); ``random`` is
    the mean realised score over models, ``oracle`` the maximum. Higher is better.

    Parameters
    ----------
    suite : PairedSuite
        A paired suite with per-response scores.
    split : Split
        Anchors and held-out queries.
    med : float
        The median anchor distance of the split.
    fraction : float, default=0.25
        The RBF bandwidth as a multiple of ``med``.

    Returns
    -------
    dict
        ``{weighting: mean realised score of the pick}``.

    Raises
    ------
    ValueError
        A suite without scores.
    """
    if suite.scores is None:
        raise ValueError("score routing needs per-response scores")
    a, e = split.anchor, split.eval
    check_leave_query_out(suite.query_ids[a], suite.query_ids[e], "the score estimates")
    S = suite.scores
    Sa = S[:, a]
    Se = S[:, e]
    out = {}
    d2 = query_sq_distances(suite.U[e], suite.U[a])
    for name, W in (
        ("qa", rbf_weights(d2, fraction * med)),
        ("task", task_weights(suite.tasks[a], suite.tasks[e])),
        ("static", np.ones_like(d2)),
    ):
        est = _score_estimates(Sa, W)
        sc = np.where(np.isfinite(est), est, -np.inf)
        pick = sc.argmax(1)
        out[name] = float(np.nanmean(Se[pick, np.arange(len(e))]))
    out["random"] = float(np.nanmean(np.nanmean(Se, axis=0)))
    out["oracle"] = float(np.nanmean(np.nanmax(Se, axis=0)))
    return out
