r"""``Router``: route a new query to the cached model that behaves most like a target on it.

Fitted on anchor records in the package's record format (one row per cached response:
``model_id, task_id, query_id``, ``response_embedding`` or ``response``, ``query_embedding`` or
``query``, optional ``suite``), it localises the model-model geometry at each new query by RBF
weights of the anchors' query distances and picks the candidate nearest the target
(:mod:`dkps.routing.localized_geometry`, :mod:`dkps.routing.rules`). No response to a routed query is
ever needed: a new query enters through its embedding alone.

Two geometries:

- ``'paired'`` (every model answered every anchor): ``D_q(t, c)^2 = sum_j w~_j ||x_tj - x_cj||^2``;
- ``'factorised'`` (any pairing): ``D_q(t, c) = ||phi_t(q) - phi_c(q)||``, the distance between
  the two models' localised means of their own responses.

``geometry='auto'`` takes ``'paired'`` when the records are fully paired.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
import sklearn.base
from sklearn.exceptions import NotFittedError as _SklearnNotFitted
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from .. import embed as _embed
from ..errors import NotFittedError
from ..records import validate
from ..threads import single_blas_thread
from .localization_bandwidth import (
    CV_FRACTIONS,
    check_fractions,
    check_sigma,
    cv_global,
    cv_per_query,
    cv_table,
    median_anchor_distance,
)
from .localized_geometry import (
    check_underflow,
    factorised_distances,
    localized_distances,
    localized_mean_abs,
    localized_means,
    pairwise_sq_distances,
    query_sq_distances,
    rbf_weights,
)
from .preprocessing import (
    QUERY_MAX_COMPONENTS,
    RESPONSE_MAX_COMPONENTS,
    fit_elbow_pca,
    fit_response_blocks,
)
from .rules import nearest_candidate

__all__ = ["Router", "GEOMETRIES"]

GEOMETRIES = ("auto", "paired", "factorised")
CV_MODES = ("global", "per-query")
DUPLICATES = ("raise", "mean")
PREPROCESS = ("elbow-pca",)
EMBED_DEFAULTS = dict(provider="sentence-transformers")
_CELL = ["model_id", "task_id", "query_id"]


class Router(sklearn.base.BaseEstimator):
    r"""Query-aware router to a behavioural stand-in.

    Fitted on anchor records (every row is cached history), it routes a new query ``u*`` to the
    candidate nearest a target ``t`` in the geometry localised at ``u*``:

    .. math::  w_j = \exp\!\Big(-\frac{\lVert u_j - u^*\rVert^2 - \min_l \lVert u_l - u^*\rVert^2}
               {2\sigma^2}\Big),\qquad
               D_{u^*}(t, c)^2 = \sum_j \tilde w_j \lVert x_{tj} - x_{cj}\rVert^2,\qquad
               \hat r = \arg\min_{c \ne t} D_{u^*}(t, c)

    (paired; factorised: :math:`D = \lVert\varphi_t - \varphi_c\rVert` of the models' localised
    means of their own answers), with :math:`\sigma` = ``bandwidth`` times the median distance
    between distinct anchor queries. As :math:`\sigma\to\infty` the geometry is static DKPS.

    Parameters
    ----------
    bandwidth : float or 'cv', default=0.25
        ``sigma = bandwidth x med`` (``numpy.inf``: static DKPS); ``'cv'``: chosen by anchor
        pseudo-evaluation (paired records only). A bool is refused.
    geometry : {'auto', 'paired', 'factorised'}, default='auto'
        ``'auto'``: paired when every model answered every anchor exactly once.
    cv : {'global', 'per-query'}, default='global'
        With ``bandwidth='cv'``: one sigma for every query, or one per routed query.
    cv_fractions : sequence of float, default=CV_FRACTIONS
        The CV grid (multiples of ``med``), each > 0.
    n_pseudo : int, default=200
        CV pseudo-queries (at most the number of anchors are used).
    random_state : int, default=0
        Seeds the CV pseudo-query draw.
    n_jobs : int or None, default=None
        Joblib workers over query batches and CV pseudo-queries.
    embedding_kwargs : dict or None, default=None
        For rows given as text: passed to :func:`dkps.embed.embed_api` (default provider
        ``'sentence-transformers'``).
    duplicates : {'raise', 'mean'}, default='raise'
        A (model, task, query) cell answered more than once is refused, naming it; ``'mean'``
        averages its response embeddings (only when you ask: a silent average, or a silent switch to
        the factorised geometry, would change the picks).
    preprocess : {'elbow-pca'} or None, default=None
        None routes on the raw embeddings. ``'elbow-pca'`` is the original routing experiments'
        preprocessing (:mod:`dkps.routing.preprocessing`), fitted on the anchors: an elbow PCA of the
        query space (at most 64 dimensions) and of each suite's responses (at most 48, then unit
        length, one disjoint block per ``suite``).

    Attributes
    ----------
    models_ : list of str
        Sorted model ids (ties go to the first in this order).
    geometry_ : {'paired', 'factorised'}
        The geometry in use.
    query_keys_ : list of (task_id, query_id)
        The anchor queries, in the order of ``U_``.
    query_tasks_ : ndarray of shape (m,)
        The task of each anchor query.
    U_ : ndarray of shape (m, d_q)
        Anchor query embeddings (preprocessed when ``preprocess`` is set).
    dim_query_ : int
        Dimension of the query embeddings ``route`` accepts (before preprocessing).
    med_ : float
        Median distance between distinct anchor queries (in the space of ``U_``).
    sigma_ : float or None
        The bandwidth (None with per-query CV).
    P_ : ndarray of shape (m, n, n)
        Paired geometry: ``P_[j, i, k] = ||x_ij - x_kj||^2`` of the anchors. Absent when factorised.
    rows_ : ndarray of shape (R, d)
        Factorised geometry: the anchor response rows. Absent when paired.
    row_model_ : ndarray of shape (R,)
        Factorised geometry: the model index of each row.
    row_query_ : ndarray of shape (R,)
        Factorised geometry: the anchor-query index of each row.
    cv_table_ : ndarray of shape (len(cv_fractions), V) or None
        The pseudo-error table of the CV (None without CV).
    cv_pseudo_ : ndarray of shape (V,)
        With CV: the anchor positions used as pseudo-queries.
    n_duplicates_ : int
        Cells averaged because ``duplicates='mean'`` (0 otherwise).
    query_pca_ : ElbowPCA or None
        The fitted query basis (``preprocess='elbow-pca'``), else None.
    response_pca_ : ResponseBlocks or None
        The fitted response blocks (``preprocess='elbow-pca'``), else None.

    Raises
    ------
    ValueError
        From :meth:`fit`: bad parameters, records or embeddings (see :meth:`fit`).
    dkps.NotFittedError
        From :meth:`route` and the other query methods before :meth:`fit`.

    See Also
    --------
    dkps.routing.evaluation.evaluate_split : The leave-query-out evaluation of the same rule.
    dkps.routing.ToleranceGate : The calibrated gate that decides which routed queries to offload.

    References
    ----------
    The query-aware routing README of the dkps repository (``experiments/routing``); Acharyya et al.
    (2024), *Consistent estimation of generative model representations in the data kernel perspective
    space*; the book's chapter "Routing to a behavioural stand-in".

    Examples
    --------
    >>> import numpy as np
    >>> from dkps import generate_benchmark_data
    >>> from dkps.routing import Router
    >>> data = generate_benchmark_data(n_models=6, n_tasks=2, n_queries_per_task=10, obs_prob=1.0,
    ...                                random_state=0).data
    >>> router = Router(bandwidth=0.25).fit(data)
    >>> router.geometry_, len(router.models_)
    ('paired', 6)
    >>> routes = router.route(np.stack(data.query_embedding[:3]), target="model_00")
    >>> list(routes.columns)
    ['query', 'pick', 'distance', 'expected_deviation', 'sigma']
    >>> bool((routes.pick != "model_00").all())
    True
    """

    _parameter_constraints: dict = {
        "bandwidth": [Interval(Real, 0, None, closed="right"), StrOptions({"cv"})],
        "geometry": [StrOptions(set(GEOMETRIES))],
        "cv": [StrOptions(set(CV_MODES))],
        "cv_fractions": ["array-like"],
        "n_pseudo": [Interval(Integral, 1, None, closed="left")],
        "random_state": [Interval(Integral, 0, None, closed="left")],
        "n_jobs": [Integral, None],
        "embedding_kwargs": [dict, None],
        "duplicates": [StrOptions(set(DUPLICATES))],
        "preprocess": [StrOptions(set(PREPROCESS)), None],
    }

    def __init__(
        self,
        bandwidth: float | str = 0.25,
        geometry: str = "auto",
        cv: str = "global",
        cv_fractions=CV_FRACTIONS,
        n_pseudo: int = 200,
        random_state: int = 0,
        n_jobs: int | None = None,
        embedding_kwargs: dict | None = None,
        duplicates: str = "raise",
        preprocess: str | None = None,
    ):
        self.bandwidth = bandwidth
        self.geometry = geometry
        self.cv = cv
        self.cv_fractions = cv_fractions
        self.n_pseudo = n_pseudo
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.embedding_kwargs = embedding_kwargs
        self.duplicates = duplicates
        self.preprocess = preprocess

    # ------------------------------------------------------------------ fit
    def _check_params(self) -> None:
        """What scikit-learn's constraints (checked by ``_fit_context``) cannot say: a bool is not a bandwidth."""
        if isinstance(self.bandwidth, (bool, np.bool_)):
            raise ValueError(f"bandwidth must be a positive number or 'cv', not the bool {self.bandwidth!r}")
        if not isinstance(self.bandwidth, str):
            check_sigma(self.bandwidth)
        check_fractions(self.cv_fractions)

    def _embed(self, texts: list) -> np.ndarray:
        kw = dict(EMBED_DEFAULTS, **(self.embedding_kwargs or {}))
        provider = kw.pop("provider")
        return np.asarray(_embed.embed_api(provider, texts, **kw), dtype=np.float64)

    def _cells(self, fr: pd.DataFrame, R: np.ndarray) -> tuple[pd.DataFrame, np.ndarray, int]:
        """One row per (model, task, query) cell: refuse repeats, or average them when asked."""
        dup = fr.duplicated(_CELL, keep=False).to_numpy()
        if not dup.any():
            return fr, R, 0
        cells = fr.loc[dup, _CELL].drop_duplicates()
        if self.duplicates == "raise":
            first = tuple(cells.iloc[0])
            raise ValueError(
                f"{len(cells)} (model_id, task_id, query_id) cells are answered twice or more (first: {first!r}); "
                "give one response per model and query, or pass duplicates='mean' to average each cell's responses"
            )
        codes = pd.MultiIndex.from_frame(fr[_CELL]).factorize()[0]
        first = np.unique(codes, return_index=True)[1]
        sums = np.zeros((first.size, R.shape[1]))
        np.add.at(sums, codes, R)
        counts = np.bincount(codes, minlength=first.size)[:, None]
        return fr.iloc[first].reset_index(drop=True), sums / counts, len(cells)

    @single_blas_thread
    @sklearn.base._fit_context(prefer_skip_nested_validation=True)
    def fit(self, records: Any, y: None = None) -> Router:
        """Fit on anchor records (every row is history; none is routed).

        Parameters
        ----------
        records : DataFrame, list of dicts, dict of lists or JSON
            The package's record format: ``model_id, task_id, query_id``, ``response_embedding`` or
            ``response``, ``query_embedding`` or ``query``; optional ``suite`` (one response block per
            suite with ``preprocess='elbow-pca'``).
        y : None
            Ignored (scikit-learn's signature).

        Returns
        -------
        Router
            The fitted router (``self``).

        Raises
        ------
        ValueError
            Bad parameters (scikit-learn's ``InvalidParameterError``, a ``ValueError``) or a bool
            bandwidth; bad records (see :func:`dkps.records.validate`); NaN/inf embeddings; fewer
            than three models; a cell answered twice (``duplicates='raise'``); ``geometry='paired'``
            on records that are not fully paired; ``bandwidth='cv'`` with the factorised geometry; a
            bandwidth so small that its square underflows.
        """
        self._check_params()
        rec = validate(records, require_query=True)
        need = [i for i, v in enumerate(rec.response_vectors) if v is None]
        if need:
            for i, v in zip(need, self._embed([rec.response_text[i] for i in need])):
                rec.response_vectors[i] = v
        needq = [i for i, v in enumerate(rec.query_vectors) if v is None]
        if needq:
            for i, v in zip(needq, self._embed([rec.query_text[i] for i in needq])):
                rec.query_vectors[i] = v
        R = np.stack(rec.response_vectors).astype(np.float64)
        if not np.isfinite(R).all():
            raise ValueError("response embeddings hold NaN or inf; drop or re-embed those rows")
        qcode_all, qkeys = pd.factorize(pd.MultiIndex.from_frame(rec.frame[["task_id", "query_id"]]))
        U = np.stack([rec.query_vectors[i] for i in np.unique(qcode_all, return_index=True)[1]]).astype(np.float64)
        if not np.isfinite(U).all():
            raise ValueError("query embeddings hold NaN or inf; drop or re-embed those rows")
        fr, R, self.n_duplicates_ = self._cells(rec.frame, R)
        models = sorted(fr.model_id.unique())
        if len(models) < 3:
            raise ValueError(f"routing needs at least 3 models (a target and 2 candidates), got {len(models)}")
        qcode = qkeys.get_indexer(pd.MultiIndex.from_frame(fr[["task_id", "query_id"]]))
        mcode = pd.Index(models).get_indexer(fr.model_id)
        n, m = len(models), len(qkeys)
        paired = len(qcode) == n * m
        geometry = self.geometry if self.geometry != "auto" else ("paired" if paired else "factorised")
        if geometry == "paired" and not paired:
            raise ValueError(
                "geometry='paired' needs every model to answer every anchor query exactly once; "
                "use geometry='factorised' (or 'auto') for unpaired records"
            )
        self.dim_query_ = U.shape[1]
        self.query_pca_ = self.response_pca_ = None
        if self.preprocess == "elbow-pca":
            self.query_pca_ = fit_elbow_pca(U, QUERY_MAX_COMPONENTS)
            U = self.query_pca_.transform(U)
            self.response_pca_ = fit_response_blocks(R, fr.suite.to_numpy(), RESPONSE_MAX_COMPONENTS)
            R = self.response_pca_.transform(R, fr.suite.to_numpy())
        self.models_ = models
        self.query_keys_ = list(qkeys)
        self.query_tasks_ = np.array([k[0] for k in qkeys], dtype=object)
        self.U_ = U
        self.geometry_ = geometry
        self.med_ = median_anchor_distance(U)
        if geometry == "paired":
            X = np.empty((n, m, R.shape[1]))
            X[mcode, qcode] = R
            self.P_ = pairwise_sq_distances(X)
        else:
            self.rows_ = R
            self.row_model_ = mcode
            self.row_query_ = qcode
        self.sigma_ = None
        self.cv_table_ = None
        if self.bandwidth == "cv":
            if geometry != "paired":
                raise ValueError("bandwidth='cv' needs paired records (realised errors on pseudo-queries)")
            rng = np.random.default_rng(self.random_state)
            table, pseudo, _ = cv_table(
                self.P_, U, self.cv_fractions, med=self.med_, rng=rng, n_pseudo=self.n_pseudo, n_jobs=self.n_jobs
            )
            self.cv_table_, self.cv_pseudo_ = table, pseudo
            if self.cv == "global":
                self.sigma_ = float(self.cv_fractions[cv_global(table)]) * self.med_
        else:
            self.sigma_ = float(self.bandwidth) * self.med_
            check_underflow(self.sigma_, f"bandwidth={self.bandwidth!r} x the median anchor distance {self.med_:.4g}")
        return self

    # ------------------------------------------------------------------ helpers
    def _check_fitted(self) -> None:
        try:
            check_is_fitted(self, "models_")
        except _SklearnNotFitted:
            raise NotFittedError("this Router is not fitted yet; call fit(records) first") from None

    def _query_matrix(self, queries) -> tuple[np.ndarray, list]:
        """Query embeddings (Q, d_q) in the router's space and labels, from an array, texts or records."""
        empty = "no queries to route: give at least one query (an array of shape (Q, d), a list of texts or records)"
        if isinstance(queries, pd.DataFrame):
            if len(queries) == 0:
                raise ValueError(empty)
            if "query_embedding" in queries.columns:
                U = np.stack([np.asarray(v, dtype=np.float64) for v in queries.query_embedding])
            elif "query" in queries.columns:
                U = self._embed(list(queries["query"]))
            else:
                raise ValueError("query records need a 'query_embedding' or a 'query' column")
            labels = list(queries.query_id) if "query_id" in queries.columns else list(range(len(queries)))
        elif isinstance(queries, (list, tuple)) and len(queries) == 0:
            raise ValueError(empty)
        elif isinstance(queries, (list, tuple)) and all(isinstance(q, str) for q in queries):
            U, labels = self._embed(list(queries)), list(range(len(queries)))
        else:
            U = np.asarray(queries, dtype=np.float64)
            if U.ndim == 1:
                U = U[None]
            if U.ndim == 2 and U.shape[0] == 0:
                raise ValueError(empty)
            labels = list(range(U.shape[0]))
        if U.ndim != 2 or U.shape[1] != self.dim_query_:
            raise ValueError(
                f"query embeddings have dimension {U.shape[-1]} but the router was fitted on "
                f"{self.dim_query_}-dimensional queries; embed them with the same encoder"
            )
        if not np.isfinite(U).all():
            raise ValueError("query embeddings hold NaN or inf")
        if self.query_pca_ is not None:
            U = self.query_pca_.transform(U)
        return U, labels

    def _model_index(self, name, what: str) -> int:
        try:
            return self.models_.index(name)
        except ValueError:
            raise ValueError(f"unknown {what} {name!r}; the router knows {len(self.models_)} models") from None

    def _sigmas(self, U: np.ndarray) -> np.ndarray:
        if self.sigma_ is not None:
            return np.full(U.shape[0], self.sigma_)
        idx = cv_per_query(self.cv_table_, self.U_[self.cv_pseudo_], U, self.med_)
        return np.asarray(self.cv_fractions, dtype=np.float64)[idx] * self.med_

    def _weights(self, U: np.ndarray) -> np.ndarray:
        d2 = query_sq_distances(U, self.U_)
        sig = self._sigmas(U)
        out = np.empty_like(d2)
        for s in np.unique(sig):
            sel = sig == s
            out[sel] = rbf_weights(d2[sel], s)
        return out

    def _distances(self, U: np.ndarray):
        W = self._weights(U)
        if self.geometry_ == "paired":
            return localized_distances(self.P_, W, n_jobs=self.n_jobs), W, None
        stats = localized_means(self.rows_, self.row_model_, W[:, self.row_query_], len(self.models_))
        return factorised_distances(stats), W, stats

    # ------------------------------------------------------------------ public
    @single_blas_thread
    def localized_distances(self, queries) -> np.ndarray:
        """The query-localised model-model distances ``D_q`` of each query.

        Parameters
        ----------
        queries : array of shape (Q, d_q), list of str, or DataFrame with ``query_embedding`` or ``query``
            The new queries (embedded with the anchors' encoder).

        Returns
        -------
        ndarray of shape (Q, n, n)
            Rows and columns in ``models_`` order; ``+inf`` where a distance is undefined.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        ValueError
            No query, a wrong dimension, or NaN/inf embeddings.
        """
        self._check_fitted()
        U, _ = self._query_matrix(queries)
        return self._distances(U)[0]

    def distance_frame(self, query) -> pd.DataFrame:
        """``D_q`` of one query as a labelled table.

        Parameters
        ----------
        query : array of shape (d_q,)
            One query embedding.

        Returns
        -------
        DataFrame of shape (n, n)
            Index and columns ``models_``.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        ValueError
            As :meth:`localized_distances`.
        """
        D = self.localized_distances(np.atleast_2d(np.asarray(query, dtype=np.float64)))[0]
        return pd.DataFrame(D, index=self.models_, columns=self.models_)

    @single_blas_thread
    def route(self, queries, target: str, candidates=None) -> pd.DataFrame:
        r"""Route each query to the candidate nearest ``target`` in the geometry localised at it.

        Parameters
        ----------
        queries : array of shape (Q, d_q), list of str, or DataFrame with ``query_embedding`` or ``query``
            The new queries; their responses are never needed.
        target : str
            The model to mimic; never a candidate.
        candidates : sequence of str, optional
            The pool (default: every other model); needs at least 2 models besides the target.

        Returns
        -------
        DataFrame, one row per query
            ``query`` (its label), ``pick`` (model id), ``distance`` (:math:`D_q(t, \hat r)`: the
            confidence, lower is surer), ``expected_deviation`` (paired: the localised mean of the
            realised anchor deviations :math:`\sum_j \tilde w_j \lVert x_{tj} - x_{\hat r j}\rVert`;
            factorised: the no-co-movement bound :math:`\sqrt{D^2 + s^2_t + s^2_{\hat r}}`) and
            ``sigma``. A query where no candidate has a defined distance gets pick None.

        Raises
        ------
        NotFittedError
            Before :meth:`fit`.
        ValueError
            An unknown target or candidate, fewer than 2 candidates, no query, a wrong dimension, or
            a bandwidth at which no query has any candidate (every localised weight underflowed).
        """
        self._check_fitted()
        t = self._model_index(target, "target")
        n = len(self.models_)
        if candidates is None:
            mask = np.ones(n, dtype=bool)
        else:
            if isinstance(candidates, str):
                candidates = [candidates]
            mask = np.zeros(n, dtype=bool)
            for c in candidates:
                mask[self._model_index(c, "candidate")] = True
        mask[t] = False
        if mask.sum() < 2:
            raise ValueError(
                f"routing needs at least 2 candidates besides the target {target!r}, got {int(mask.sum())}"
            )
        U, labels = self._query_matrix(queries)
        D, W, stats = self._distances(U)
        picks, dist = nearest_candidate(D, t, mask)
        if (picks < 0).all():
            raise ValueError(
                f"at sigma={self._sigmas(U)[0]:.4g} no routed query has a candidate with any weight near it (the "
                "localised weights underflowed to 0 for the target or every candidate); use a larger bandwidth"
            )
        Q = len(picks)
        safe = np.where(picks >= 0, picks, 0)
        if self.geometry_ == "paired":
            E = localized_mean_abs(self.P_, W, n_jobs=self.n_jobs)
            exp_dev = E[np.arange(Q), t, safe]
        else:
            s2 = np.where(np.isfinite(stats.s2), stats.s2, np.inf)
            with np.errstate(invalid="ignore"):
                exp_dev = np.sqrt(dist**2 + s2[:, t] + s2[np.arange(Q), safe])
        exp_dev = np.where(picks >= 0, exp_dev, np.inf)
        return pd.DataFrame(
            {
                "query": labels,
                "pick": [self.models_[p] if p >= 0 else None for p in picks],
                "distance": dist,
                "expected_deviation": exp_dev,
                "sigma": self._sigmas(U),
            }
        )
