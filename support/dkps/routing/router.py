"""``Router``: route a new query to the cached model that behaves most like a target on it.

Fitted on anchor records in the package's record format (one row per cached response:
``model_id, task_id, query_id``, ``response_embedding`` or ``response``, ``query_embedding`` or
``query``, optional ``score``), it localises the model-model geometry at each new query by RBF
weights of the anchors' query distances and picks the candidate nearest the target
(:mod:`dkps.routing.geometry`, :mod:`dkps.routing.rules`). No response to a routed query is ever
needed: a new query enters through its embedding alone.

Two geometries:

- ``'paired'`` (every model answered every anchor): ``D_q(t, c)^2 = sum_j w~_j ||x_tj - x_cj||^2``;
- ``'factorised'`` (any pairing): ``D_q(t, c) = ||phi_t(q) - phi_c(q)||``, the distance between
  the two models' localised means of their own responses.

``geometry='auto'`` takes ``'paired'`` when the records are fully paired.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import sklearn.base

from .. import embed as _embed
from ..errors import NotFittedError
from ..records import validate
from ..threads import single_blas_thread
from .bandwidth import CV_FRACTIONS, check_sigma, cv_global, cv_per_query, cv_table, median_anchor_distance
from .geometry import (
    factorised_distances,
    localized_distances,
    localized_mean_abs,
    localized_means,
    pairwise_sq_distances,
    query_sq_distances,
    rbf_weights,
)
from .rules import nearest_candidate

__all__ = ["Router", "GEOMETRIES"]

GEOMETRIES = ("auto", "paired", "factorised")
CV_MODES = ("global", "per-query")
EMBED_DEFAULTS = dict(provider="sentence-transformers")


class Router(sklearn.base.BaseEstimator):
    """Query-aware router to a behavioural stand-in.

    Parameters
    ----------
    bandwidth : float or 'cv'
        ``sigma = bandwidth x med``, ``med`` the median distance between distinct anchor queries
        (``numpy.inf``: static DKPS); ``'cv'``: chosen by anchor pseudo-evaluation (paired only).
    geometry : {'auto', 'paired', 'factorised'}
    cv : {'global', 'per-query'}
        With ``bandwidth='cv'``: one sigma, or one per routed query.
    cv_fractions : sequence of float
        The CV grid (multiples of ``med``).
    n_pseudo : int
        CV pseudo-queries.
    random_state : int
        Seeds the CV pseudo-query draw.
    n_jobs : int or None
        joblib workers over query batches and CV pseudo-queries.
    embedding_kwargs : dict, optional
        For text rows without vectors: passed to :func:`dkps.embed.embed_api` (default provider
        ``'sentence-transformers'``).

    Attributes
    ----------
    models_ : list of str
        Sorted model ids (ties go to the first in this order).
    geometry_ : str
    med_ : float
    sigma_ : float or None
        The bandwidth (None with per-query CV).
    query_keys_ : list of (task_id, query_id)
        Anchor queries.
    """

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
    ):
        self.bandwidth = bandwidth
        self.geometry = geometry
        self.cv = cv
        self.cv_fractions = cv_fractions
        self.n_pseudo = n_pseudo
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.embedding_kwargs = embedding_kwargs

    # ------------------------------------------------------------------ fit
    def _check_params(self) -> None:
        if self.geometry not in GEOMETRIES:
            raise ValueError(f"geometry must be one of {GEOMETRIES}, got {self.geometry!r}")
        if isinstance(self.bandwidth, str):
            if self.bandwidth != "cv":
                raise ValueError(f"bandwidth must be a positive number or 'cv', got {self.bandwidth!r}")
            if self.cv not in CV_MODES:
                raise ValueError(f"cv must be one of {CV_MODES}, got {self.cv!r}")
        else:
            check_sigma(self.bandwidth)

    def _embed(self, texts: list) -> np.ndarray:
        kw = dict(EMBED_DEFAULTS, **(self.embedding_kwargs or {}))
        provider = kw.pop("provider")
        return np.asarray(_embed.embed_api(provider, texts, **kw), dtype=np.float64)

    @single_blas_thread
    def fit(self, records: Any) -> Router:
        """Fit on anchor records (every row is history; none is routed).

        Raises
        ------
        ValueError
            Bad records (see :func:`dkps.records.validate`), NaN/inf embeddings, fewer than three
            models, a query without an embedding or text, ``geometry='paired'`` on records that are
            not fully paired, or ``bandwidth='cv'`` with the factorised geometry.
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
        fr = rec.frame
        models = sorted(fr.model_id.unique())
        if len(models) < 3:
            raise ValueError(f"routing needs at least 3 models (a target and 2 candidates), got {len(models)}")
        keys = pd.MultiIndex.from_frame(fr[["task_id", "query_id"]])
        qcode, qkeys = pd.factorize(keys)
        mcode = pd.Index(models).get_indexer(fr.model_id)
        R = np.stack(rec.response_vectors).astype(np.float64)
        first = np.unique(qcode, return_index=True)[1]
        U = np.stack([rec.query_vectors[i] for i in first]).astype(np.float64)
        for arr, what in ((R, "response"), (U, "query")):
            if not np.isfinite(arr).all():
                raise ValueError(f"{what} embeddings hold NaN or inf; drop or re-embed those rows")
        n, m = len(models), len(qkeys)
        cell = mcode * m + qcode
        paired = len(np.unique(cell)) == len(cell) == n * m
        geometry = self.geometry if self.geometry != "auto" else ("paired" if paired else "factorised")
        if geometry == "paired" and not paired:
            raise ValueError(
                "geometry='paired' needs every model to answer every anchor query exactly once; "
                "use geometry='factorised' (or 'auto') for unpaired records"
            )
        self.models_ = models
        self.query_keys_ = list(qkeys)
        self.query_tasks_ = np.array([k[0] for k in qkeys], dtype=object)
        self.U_ = U
        self.dim_query_ = U.shape[1]
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
        return self

    # ------------------------------------------------------------------ helpers
    def _check_fitted(self) -> None:
        if not hasattr(self, "models_"):
            raise NotFittedError("this Router is not fitted yet; call fit(records) first")

    def _query_matrix(self, queries) -> tuple[np.ndarray, list]:
        """Query embeddings (Q, d_q) and labels from an array, a list of texts, or records."""
        if isinstance(queries, pd.DataFrame):
            if "query_embedding" in queries.columns:
                U = np.stack([np.asarray(v, dtype=np.float64) for v in queries.query_embedding])
            elif "query" in queries.columns:
                U = self._embed(list(queries["query"]))
            else:
                raise ValueError("query records need a 'query_embedding' or a 'query' column")
            labels = list(queries.query_id) if "query_id" in queries.columns else list(range(len(queries)))
        elif isinstance(queries, (list, tuple)) and queries and all(isinstance(q, str) for q in queries):
            U, labels = self._embed(list(queries)), list(range(len(queries)))
        else:
            U = np.asarray(queries, dtype=np.float64)
            if U.ndim == 1:
                U = U[None]
            labels = list(range(U.shape[0]))
        if U.ndim != 2 or U.shape[1] != self.dim_query_:
            raise ValueError(
                f"query embeddings have dimension {U.shape[-1]} but the router was fitted on "
                f"{self.dim_query_}-dimensional queries; embed them with the same encoder"
            )
        if not np.isfinite(U).all():
            raise ValueError("query embeddings hold NaN or inf")
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
        """The query-localised model-model distances ``D_q`` (Q, n, n), rows/columns in ``models_`` order.

        For a single query (a 1-D embedding) use :meth:`distance_frame` for a labelled table.
        """
        self._check_fitted()
        U, _ = self._query_matrix(queries)
        return self._distances(U)[0]

    def distance_frame(self, query) -> pd.DataFrame:
        """``D_q`` for one query as a labelled ``models_ x models_`` DataFrame."""
        D = self.localized_distances(np.atleast_2d(np.asarray(query, dtype=np.float64)))[0]
        return pd.DataFrame(D, index=self.models_, columns=self.models_)

    @single_blas_thread
    def route(self, queries, target: str, candidates=None) -> pd.DataFrame:
        """Route each query to the candidate nearest ``target`` in the geometry localised at it.

        Parameters
        ----------
        queries : array (Q, d_q), list of str, or DataFrame with ``query_embedding`` or ``query``
        target : str
            The model to mimic; never a candidate.
        candidates : sequence of str, optional
            The pool (default: every other model); needs at least 2 models besides the target.

        Returns
        -------
        DataFrame, one row per query
            ``pick`` (model id), ``distance`` (``D_q(target, pick)``: the confidence, lower is
            surer), ``expected_deviation`` (paired: the localised mean of the realised anchor
            deviations ``sum_j w~_j ||x_tj - x_pick,j||``; factorised: the no-co-movement bound
            ``sqrt(D^2 + s2_t + s2_pick)``) and ``sigma``.
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
        Q = len(picks)
        safe = np.where(picks >= 0, picks, 0)
        if self.geometry_ == "paired":
            E = localized_mean_abs(self.P_, W, n_jobs=self.n_jobs)
            exp_dev = E[np.arange(Q), t, safe]
        else:
            s2 = stats.s2
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
