"""PKPS and DKPS: the (product-kernel / data-kernel) perspective space estimators.

The data-kernel perspective space (DKPS) of Acharyya, Trosset, Priebe & Helm (2024,
arXiv:2409.17308; Helm et al.'s perspective-space papers) embeds models by their responses to
shared queries; the product kernel of the original dkps lets responses to *different* queries be
compared through a query kernel.

Pipeline (all score-free until the last step), one module per step:

1. :mod:`dkps.layout` — per suite, reduce query and response vectors by PCA with the Zhu–Ghodsi
   elbow and unit-normalise them into disjoint blocks; :mod:`dkps.bandwidth` — the query
   bandwidth's reference and candidate grid;
2. :mod:`dkps.statistics` — per-(model, query) sufficient statistics; :mod:`dkps.pair_sums` — the
   self-normalised affinity :math:`A_{ii'} = \\mathrm{Num}_{ii'}/\\mathrm{Den}_{ii'}` by block matrix
   products over blocks of models under a memory budget, through joblib;
3. :mod:`dkps.space` — :math:`D^2_{ii'} = A_{ii}+A_{i'i'}-2A_{ii'}`, shortest-path completion of
   unconnected pairs, classical MDS (Torgerson 1952) — one geometry per candidate query bandwidth;
4. :mod:`dkps.regression` — per-task kNN regression on the other models' targets, optionally
   whitened, with the bandwidth chosen by the nested leave-one-model-out criterion
   (:mod:`dkps.bandwidth`).

``update`` recomputes Num/Den only for model pairs that involve a model with new rows.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import _fit_context
from sklearn.utils._param_validation import StrOptions, validate_params

from . import embed as _embed
from .bandwidth import fit_bandwidth, nested_bandwidth_indices
from .base import PREDICT_CONSTRAINTS, BaseEstimator, replaced_rows, warn_replaced
from .knn import neighbour_order, pairwise_distances
from .layout import Layout, SuiteLayout, derive_layout
from .pair_sums import EXACT_UPDATE_BYTES, blocked_pair_sums, exact_possible, exact_update_pair_sums, full_pair_sums
from .records import Records, _check_queries, check_frame_consistency, check_informative, validate
from .regression import predict_cells
from .settings import (
    DEFAULT_MEMORY_BUDGET_MB,
    EMBED_DEFAULTS,
    MDS_CONSTRAINTS,
    MDS_DEFAULTS,
    N_JOBS,
    POSITIVE,
    QUERY_CONSTRAINTS,
    QUERY_DEFAULTS,
    RESPONSE_CONSTRAINTS,
    RESPONSE_DEFAULTS,
    check_settings,
    merge_settings,
)
from .space import perspective_geometry
from .statistics import SuiteStats, add_rows, clear_models, copy_stats, fitted_rows, query_registry, reindex_models
from .threads import single_blas_thread

__all__ = ["PKPS", "DKPS", "Layout", "SuiteLayout"]
# names of the one-module PKPS, kept importable from here
_ = (QUERY_DEFAULTS, RESPONSE_DEFAULTS, MDS_DEFAULTS, EMBED_DEFAULTS, EXACT_UPDATE_BYTES)


#: The fitted attributes of a perspective space (PKPS, DKPS), in their docstrings' Attributes sections.
PERSPECTIVE_ATTRIBUTES = """layout_ : Layout
    Per suite, the PCA bases of queries and responses and the bandwidth grid (reusable by ``fit(layout=)``).
pca_dims_ : dict
    Suite -> (query dimension or None, response dimension) after the layout's PCA.
bandwidth_ : float or None
    The query bandwidth chosen at fit (leave-one-model-out, k=5); None for kernels without one.
bandwidth_grid_ : list of float or None
    The candidate bandwidths (None when there is one).
cv_errors_ : ndarray or None
    The fit-time criterion per candidate bandwidth.
affinity_ : ndarray of shape (n_models, n_models)
    :math:`A` at ``bandwidth_``.
distance_matrix_ : ndarray of shape (n_models, n_models)
    The completed distances :math:`D` at ``bandwidth_``.
coords_ : ndarray of shape (n_models, mds_dim_)
    The MDS coordinates at ``bandwidth_``.
mds_dim_ : int
    The dimension of the perspective space.
n_unconnected_ : int
    Model pairs with no comparable responses, completed by shortest paths.
n_disconnected_ : int
    Pairs not connected through any chain (set to twice the largest distance, with a warning).
last_kernel_evaluations_ : int
    Kernel evaluations of the last ``fit`` or ``update``.
last_update_pairs_ : set of tuple or None
    The model pairs the last ``update`` recomputed (None after ``fit``).
dist_matrix_ : ndarray
    Alias of ``distance_matrix_`` (the original dkps's name).
embedding_ : dict
    Model id -> its coordinates (the original dkps's form).
query_bandwidth_ : float or None
    Alias of ``bandwidth_``.
embeddings_by_bandwidth_ : dict
    Candidate bandwidth -> {model id: coordinates}."""


class PKPS(BaseEstimator):
    r"""Product kernel perspective space: models embedded by their responses, scores predicted from neighbours.

    Each model :math:`i` is a set of response vectors :math:`x_j` to queries :math:`u_j`. Two models are
    compared through a query kernel :math:`k_Q` (which queries are alike) and a response kernel :math:`k_R`
    (which answers are alike), summed over every pair of their response rows:

    .. math::
        A_{ii'} = \frac{\sum_{j \in i,\, l \in i'} k_Q(u_j, u_l)\, k_R(x_j, x_l)}
                       {\sum_{j \in i,\, l \in i'} k_Q(u_j, u_l)}, \qquad
        D^2_{ii'} = A_{ii} + A_{i'i'} - 2 A_{ii'} .

    Unconnected pairs are completed by shortest paths, classical MDS (Torgerson 1952) embeds :math:`D`, and a
    cell :math:`(i, t)` is predicted by the k nearest models' targets on task :math:`t`, never from the models
    of its exclusion set :math:`E(i)` (``holdout``). With the delta query kernel (:class:`DKPS`) only responses
    to the same query are compared: the data kernel perspective space [1]_. The query bandwidth is chosen by a
    nested leave-one-model-out criterion over a grid (``bandwidth='cv'``).

    Parameters
    ----------
    query_kwargs : dict, optional
        ``kernel`` ('rbf' | 'delta' | 'linear' | 'cosine' | callable), ``bandwidth`` ('median' |
        'cv' | float), ``bandwidth_ref`` (None = within-task median query distance, or a float),
        ``bandwidth_grid`` (factors of the reference for 'cv'), ``bandwidth_mult``, ``cv_k``,
        ``pca_dim`` ('elbow' | int | None), ``pca_n_elbows``, ``normalize``. Defaults:
        :data:`dkps.settings.QUERY_DEFAULTS`.
    response_kwargs : dict, optional
        ``kernel`` ('linear' | 'cosine' | 'rbf' | callable), ``bandwidth`` ('median' | float),
        ``bandwidth_ref``, ``bandwidth_mult``, ``pca_dim``, ``pca_n_elbows``, ``normalize``.
    mds_kwargs : dict, optional
        ``dim`` (int, default 8, or None for the Zhu–Ghodsi choice) and ``n_elbows``.
    embedding_kwargs : dict, optional
        ``provider``, ``model``, ``api_key``, ``cache_dir``, ``batch_size`` for rows given as text
        (:func:`dkps.embed.embed_texts`).
    random_state : int, default 0
        Seed of the subsample used for median distances.
    n_jobs : int or None
        joblib jobs for the pair sums' blocks of models, the geometry's bandwidths and the fit-time
        criterion's candidates (None: one, unless a ``joblib.parallel_config`` says otherwise; -1:
        every core; under ``joblib.parallel_config(backend="dask")`` they run on a Dask cluster).
        The result does not depend on it.
    memory_budget : float, default 256
        MiB for one block of models in the pair sums: memory stays flat as models grow instead of
        holding every model's contraction at once. The result does not depend on it beyond rounding
        (blocks are row slices of the same products).

    Attributes
    ----------
    %(perspective_attributes)s
    %(catalog_attributes)s

    Raises
    ------
    ValueError
        From ``fit``: a parameter outside its constraints (``InvalidParameterError``), records that
        :func:`dkps.records.validate` refuses, fewer than two models, or a ``layout`` that does not know a suite.

    See Also
    --------
    DKPS : The delta query kernel (responses to identical queries only).
    dkps.Ensemble : A blend of a perspective space with a score-only baseline.

    References
    ----------
    .. [1] A. Acharyya, M. W. Trosset, C. E. Priebe and H. S. Helm, the data kernel perspective space
       (2024), arXiv:2409.17308.
    .. [2] W. S. Torgerson, "Multidimensional scaling: I. Theory and method", Psychometrika 17 (1952).
    .. [3] The Blind Spot Book, Part V: "Perspective spaces in one picture" (``ch-perspective-spaces``) and
       "Query efficiency on synthetic models" (``ch-synthetic-query-efficiency``).

    Examples
    --------
    >>> from dkps import PKPS, generate_benchmark_data
    >>> from dkps.synthetic import score_records
    >>> data = generate_benchmark_data(
    ...     d_latent=3, d_obs=8, n_models=14, n_tasks=4, n_queries_per_task=6, obs_prob=0.6, random_state=3
    ... )
    >>> records = score_records(data)  # one row per (model, task, query): embeddings and a score
    >>> est = PKPS().fit(records)
    >>> len(est.model_names_), est.coords_.shape
    (14, (14, 8))
    >>> pred = est.predict(as_frame=True)  # every cell without an observed score
    >>> pred.shape, list(pred.columns)
    ((17, 3), ['model_id', 'task_id', 'score_hat'])
    >>> est.score_table().source.value_counts().to_dict()
    {'observed': 39, 'predicted': 17}
    """

    default_holdout = "model"
    _doc_sections = {**BaseEstimator._doc_sections, "perspective_attributes": PERSPECTIVE_ATTRIBUTES}
    _parameter_constraints: dict = {
        "query_kwargs": [dict, None],
        "response_kwargs": [dict, None],
        "mds_kwargs": [dict, None],
        "embedding_kwargs": [dict, None],
        "n_jobs": N_JOBS,
        "memory_budget": [POSITIVE],
    }

    def __init__(
        self,
        query_kwargs=None,
        response_kwargs=None,
        mds_kwargs=None,
        embedding_kwargs=None,
        random_state=0,
        n_jobs=None,
        memory_budget=DEFAULT_MEMORY_BUDGET_MB,
    ):
        self.query_kwargs = query_kwargs
        self.response_kwargs = response_kwargs
        self.mds_kwargs = mds_kwargs
        self.embedding_kwargs = embedding_kwargs
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.memory_budget = memory_budget

    def _query_settings(self) -> dict | None:
        """The query-channel settings before the defaults are merged in (DKPS builds its own)."""
        return self.query_kwargs

    def _resolve_params(self) -> None:
        """Merge the ``*_kwargs`` dicts over the defaults and validate them (run by ``fit``)."""
        name = type(self).__name__
        qk = merge_settings("query_kwargs", self._query_settings(), QUERY_DEFAULTS)
        check_settings(QUERY_CONSTRAINTS, qk, f"{name} query_kwargs")
        qk["bandwidth_grid"] = tuple(float(g) for g in qk["bandwidth_grid"])
        rk = merge_settings("response_kwargs", self.response_kwargs, RESPONSE_DEFAULTS)
        check_settings(RESPONSE_CONSTRAINTS, rk, f"{name} response_kwargs")
        mk = merge_settings("mds_kwargs", self.mds_kwargs, MDS_DEFAULTS)
        check_settings(MDS_CONSTRAINTS, mk, f"{name} mds_kwargs")
        ek = merge_settings("embedding_kwargs", self.embedding_kwargs, EMBED_DEFAULTS)
        self._qk, self._rk, self._mk, self._ek = qk, rk, mk, ek

    # ------------------------------------------------------------------ helpers
    @property
    def _delta(self) -> bool:
        return self._qk["kernel"] == "delta"

    @property
    def _linear_response(self) -> bool:
        k = self._rk["kernel"]
        return k == "linear" or k == "cosine"

    def _embed_missing(self, rec: Records) -> None:
        """Embed text rows that have no vector, through ``dkps.embed.embed_api``; rows that carry
        vectors are never sent."""
        kw = dict(self._ek)
        provider = kw.pop("provider")
        need = [] if rec.response_matrix is not None else [i for i, v in enumerate(rec.response_vectors) if v is None]
        if need:
            vecs = _embed.embed_api(provider, [rec.response_text[i] for i in need], **kw)
            for i, v in zip(need, vecs):
                rec.response_vectors[i] = np.asarray(v, dtype=float)
        if not self._delta and rec.query_matrix is None:
            needq = [i for i, v in enumerate(rec.query_vectors) if v is None and rec.query_text[i] is not None]
            if needq:
                vecs = _embed.embed_api(provider, [rec.query_text[i] for i in needq], **kw)
                for i, v in zip(needq, vecs):
                    rec.query_vectors[i] = np.asarray(v, dtype=float)

    def _add_rows(self, rec: Records, row_idx: np.ndarray, model_pos: np.ndarray) -> None:
        add_rows(self._stats, self.layout_, rec, row_idx, model_pos, self.model_names_, self._delta, self._rk["kernel"])

    def _clear_models(self, pos: np.ndarray, names: list) -> None:
        clear_models(self._stats, pos, names)

    def _reindex_models(self, old_names: list, new_names: list) -> np.ndarray:
        """Move statistics and Num/Den to a new (sorted) model list; returns old->new positions."""
        pos = {m: i for i, m in enumerate(new_names)}
        old_to_new = np.array([pos[m] for m in old_names], dtype=int)
        n_new = len(new_names)
        reindex_models(self._stats, old_to_new, n_new)
        H = self._num.shape[0]
        num = np.zeros((H, n_new, n_new))
        den = np.zeros((H, n_new, n_new))
        num[np.ix_(np.arange(H), old_to_new, old_to_new)] = self._num
        den[np.ix_(np.arange(H), old_to_new, old_to_new)] = self._den
        self._num, self._den = num, den
        return old_to_new

    # ------------------------------------------------------------------ pair sums, geometry, bandwidth
    def _exact_possible(self) -> bool:
        return exact_possible(self._stats, len(self.layout_.grid), self._delta, self._linear_response)

    def _pair_sums(self, A: np.ndarray):
        return blocked_pair_sums(
            self._stats,
            self.layout_,
            A,
            self.model_names_,
            self._qk["kernel"],
            self._rk["kernel"],
            self._delta,
            self.memory_budget,
            self.n_jobs,
        )

    def _geometry(self) -> None:
        g = perspective_geometry(
            self._num, self._den, self.model_names_, self._mk["dim"], self._mk["n_elbows"], self.n_jobs
        )
        self._affinity, self._distances, self._mds, self._coords = g.affinity, g.distances, g.mds, g.coords
        self.n_unconnected_ = g.n_unconnected
        self.n_disconnected_ = g.n_disconnected
        self._dist_cache = {}
        if g.n_disconnected:
            warnings.warn(
                f"{g.n_disconnected} model pairs are not connected through any chain of comparable models "
                "(no shared suite or query); their distance is set to 2 x the largest distance",
                UserWarning,
                stacklevel=3,
            )

    def _select_reported(self) -> None:
        """Fit-time bandwidth report: ``bandwidth_ = h*_∅`` (LOMO, k=5) and ``cv_errors_``."""
        grid = self.layout_.grid
        self._cv_cache = {}
        self._h_fit, self.cv_errors_ = fit_bandwidth(
            self._coords,
            self._tables.target,
            grid,
            self.layout_.bandwidth_ref,
            self._qk["cv_k"] or 5,
            self._dist_order,
            self.n_jobs,
        )
        self.bandwidth_ = None if grid == (None,) else float(grid[self._h_fit])
        h = self._h_fit
        self.affinity_ = self._affinity[h]
        self.distance_matrix_ = self._distances[h]
        self.coords_ = self._coords[h]
        self.mds_dim_ = self._mds[h].dim
        self.bandwidth_grid_ = list(grid) if len(grid) > 1 else None

    def _after_tables(self) -> None:
        self._select_reported()

    # ------------------------------------------------------------------ public: fit / update
    @single_blas_thread
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, records: Any, layout: Layout | None = None) -> PKPS:
        """Build the perspective space from ``records``.

        Parameters
        ----------
        %(records_param)s
        layout : Layout, optional
            A frozen layout to reuse (``other.layout_``: the same PCA bases and bandwidth grid) instead of
            deriving one from these records.

        %(returns_self)s

        Raises
        ------
        ValueError
            A parameter outside its constraints, records that :func:`dkps.records.validate` or the informative
            checks refuse (constant or all-zero embeddings), fewer than 2 models, or a ``layout`` that is not a
            fitted PKPS's or does not know a suite of the records.
        """
        self._resolve_params()
        rec = validate(records, require_query=not self._delta)
        self._embed_missing(rec)
        check_informative(rec, queries=not self._delta)
        self._set_catalog(rec.frame)
        if layout is None:
            layout = derive_layout(rec, self._qk, self._rk, self._delta, self.random_state)
        else:
            if not isinstance(layout, Layout):
                raise ValueError("layout must be the layout_ of a fitted PKPS")
            unknown = sorted(set(self.suite_names_) - set(layout.suites))
            if unknown:
                raise ValueError(f"records have suites {unknown} that the given layout does not know")
        self.layout_ = layout
        self.pca_dims_ = {
            s: (None if ls.query_basis is None else ls.query_basis.dim, ls.response_basis.dim)
            for s, ls in layout.per_suite.items()
        }
        self._stats = {s: SuiteStats() for s in layout.suites}
        self._query_registry = query_registry(rec)
        model_pos = pd.Index(self.model_names_).get_indexer(rec.frame.model_id)
        self._add_rows(rec, np.arange(len(rec)), model_pos)
        self._response_rows = list(rec.response_vectors)  # kept so update can replace rows sent again
        n = len(self.model_names_)
        if n < 2:
            raise ValueError("fit needs responses of at least 2 models")
        A = np.arange(n)
        self._wcache = None
        if self._exact_possible():
            num, den, evals, self._wcache, self._kcache = full_pair_sums(
                self._stats, layout.suites, n, layout.grid, self._qk["kernel"], self._delta
            )
        else:
            num, den, evals = self._pair_sums(A)
        self._num = 0.5 * (num + num.transpose(0, 2, 1))
        self._den = 0.5 * (den + den.transpose(0, 2, 1))
        self.last_kernel_evaluations_ = evals
        self.last_update_pairs_ = None
        self._geometry()
        self._fitted = True
        self._select_reported()
        return self

    @single_blas_thread
    def update(self, records: Any) -> PKPS:
        """Add models, responses, or tasks of known suites; recompute only the affected pairs.

        %(records_to_self)s

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            A suite unseen at fit (a new benchmark changes the layout: fit again), vectors of another
            dimension than the fit's, or records that contradict the ones seen.
        """
        self._check_fitted()
        rec = validate(records, require_query=not self._delta, allow_empty=True)
        if len(rec) == 0:
            return self
        new_suites = sorted(set(rec.frame.suite) - set(self.layout_.suites))
        if new_suites:
            raise ValueError(
                f"update adds suites {new_suites} unseen at fit: a new benchmark changes the block "
                "layout; re-run fit on all records"
            )
        self._check_fitted_dims(rec)
        old_frame = self._frame
        replaced = replaced_rows(old_frame, rec.frame)
        frame = pd.concat([old_frame[~replaced], rec.frame], ignore_index=True)
        check_frame_consistency(frame)
        _check_queries(rec, known=self._query_registry)
        self._embed_missing(rec)
        warn_replaced(replaced, stacklevel=4)  # accepted: from here on the estimator changes
        # fresh containers: fitted copies that share statistics with this estimator stay intact
        self._stats = {s: copy_stats(st) for s, st in self._stats.items()}
        old_names = list(self.model_names_)
        new_names = sorted(set(old_names) | set(rec.frame.model_id))
        n_keys = {sname: len(st.keys) for sname, st in self._stats.items()}
        old_to_new = self._reindex_models(old_names, new_names)
        self._set_catalog(frame)
        self._query_registry = query_registry(rec, self._query_registry)
        model_pos = pd.Index(new_names).get_indexer(rec.frame.model_id)
        rebuilt = np.zeros(0, dtype=int)
        if replaced.any():
            # models with replaced rows: drop their statistics and add back the rows they keep
            redo = sorted(set(old_frame.model_id[replaced]))
            rebuilt = pd.Index(new_names).get_indexer(redo)
            self._clear_models(rebuilt, redo)
            keep = np.flatnonzero(old_frame.model_id.isin(redo).to_numpy() & ~replaced)
            kept = fitted_rows(old_frame, self._response_rows, keep)
            self._add_rows(kept, np.arange(len(kept)), pd.Index(new_names).get_indexer(kept.frame.model_id))
        self._add_rows(rec, np.arange(len(rec)), model_pos)
        self._response_rows = [v for v, r in zip(self._response_rows, replaced) if not r] + list(rec.response_vectors)
        A = np.union1d(np.unique(model_pos), rebuilt)
        same_keys = all(len(st.keys) == n_keys[sname] for sname, st in self._stats.items())
        if self._wcache is not None and same_keys and self._exact_possible():
            num_a, den_a, evals, wcache = exact_update_pair_sums(
                self._stats,
                self.layout_.suites,
                A,
                old_to_new,
                len(new_names),
                len(self.layout_.grid),
                self._delta,
                self._wcache,
                self._kcache,
            )
            if wcache is not None:
                self._wcache = wcache
        else:
            self._wcache = None
            num_a, den_a, evals = self._pair_sums(A)
        num, den = self._num.copy(), self._den.copy()
        num[:, A, :] = num_a
        den[:, A, :] = den_a
        num[:, :, A] = num_a.transpose(0, 2, 1)
        den[:, :, A] = den_a.transpose(0, 2, 1)
        blk = np.ix_(np.arange(num.shape[0]), A, A)
        num[blk] = 0.5 * (num_a[:, :, A] + num_a[:, :, A].transpose(0, 2, 1))
        den[blk] = 0.5 * (den_a[:, :, A] + den_a[:, :, A].transpose(0, 2, 1))
        self._num, self._den = num, den
        names = self.model_names_
        aff = set(A.tolist())
        self.last_update_pairs_ = {
            (names[a], names[b]) for a in range(len(names)) for b in range(len(names)) if a in aff or b in aff
        }
        self.last_kernel_evaluations_ = evals
        self._geometry()
        self._select_reported()
        return self

    def _check_fitted_dims(self, rec: Records) -> None:
        """Every new vector has the dimension its suite was fitted on (named by column and row)."""
        suites = rec.frame.suite.tolist()
        for vecs, col, which in (
            (rec.response_vectors, rec.response_column, "response_basis"),
            (rec.query_vectors, "query_embedding", "query_basis"),
        ):
            for pos, v in enumerate(vecs):
                lay = self.layout_.per_suite.get(suites[pos])
                basis = None if lay is None else getattr(lay, which)
                if v is not None and basis is not None and v.size != basis.dim_in:
                    raise ValueError(
                        f"column '{col}': row {pos} has dimension {v.size} but suite {suites[pos]!r} was fitted "
                        f"on dimension {basis.dim_in}; embed new rows with the fit's embedder, or re-run fit"
                    )

    # ------------------------------------------------------------------ public: predict
    @single_blas_thread
    @validate_params(
        {
            **PREDICT_CONSTRAINTS,
            "whiten": ["boolean", StrOptions({"global"})],
            "selection": [StrOptions({"nested", "fit"})],
        },
        prefer_skip_nested_validation=True,
    )
    def predict(
        self,
        records: Any = None,
        *,
        cells: Any = None,
        k: int = 5,
        holdout: str | None = "model",
        whiten: bool = False,
        weights: str = "distance",
        min_train: int | None = None,
        target: str = "auto",
        family_fn: Callable | None = None,
        selection: str = "nested",
        as_frame: bool = False,
    ):
        r"""Predict cell scores by per-task kNN in the perspective space.

        A cell :math:`(i, t)` gets the weighted mean of the targets on task :math:`t` of the ``k`` models
        nearest to :math:`i`, outside its exclusion set :math:`E(i)` (``holdout``), in the geometry of the
        query bandwidth chosen for it.

        Parameters
        ----------
        %(cells_params)s
        k : int, default 5
            Neighbours.
        holdout : {'model', 'family'} or None, default 'model'
            The exclusion set :math:`E(i)`: the model itself, its family, or nothing.
        whiten : bool or 'global', default False
            Logit/standardise/bias-residual regression. True: the statistics are computed without the
            held-out models' targets (leak-free). 'global': the original dkps's rule, one
            :class:`~dkps.Whitener` fitted on the whole target matrix (the held-out cell's own score
            included).
        weights : {'distance', 'uniform'}, default 'distance'
            Inverse-distance weights (as in the original dkps) or equal ones.
        min_train : int, optional
            Minimum training-set size; None means 3 under 'family' or ``whiten`` and 1 otherwise.
        target : {'auto', 'sample', 'reference'}, default 'auto'
            Which per-cell table is regressed.
        family_fn : callable, optional
            model_id -> family, overriding the records' families.
        selection : {'nested', 'fit'}, default 'nested'
            The bandwidth: chosen per held-out group without its targets (leak-free), or ``bandwidth_``.
        %(predict_returns)s

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            A keyword outside its constraints (``InvalidParameterError``), cells naming unknown models or tasks
            (:class:`~dkps.UnknownIdError`), no observed scores, or ``whiten=True`` on targets outside [0, 1].
        """
        self._check_fitted()
        rows, cols = self._cells_from_args(records, cells)
        vals = self._predict_arrays(
            rows,
            cols,
            k=k,
            holdout=holdout,
            whiten=whiten,
            weights=weights,
            min_train=min_train,
            target=target,
            family_fn=family_fn,
            selection=selection,
        )
        if whiten and np.isnan(vals).any():
            self._warn_unwhitened(rows, cols, vals, whiten, holdout, min_train)
        return self._format(rows, cols, vals, as_frame)

    def _warn_unwhitened(self, rows, cols, vals, whiten, holdout, min_train) -> None:
        """Name the tasks whose whitened predictions are NaN: too few models observe them."""
        mt = min_train if min_train is not None else 3
        bad = np.isnan(vals)
        observed = (~np.isnan(self._tables.target)).sum(axis=0)
        tasks = pd.unique(cols[bad])
        shown = ", ".join(
            f"{self.task_names_[t]!r} (observed for {int(observed[t])} model{'s' if observed[t] != 1 else ''})"
            for t in tasks[:5]
        )
        more = f" and {len(tasks) - 5} more tasks" if len(tasks) > 5 else ""
        warnings.warn(
            f"predict(whiten={whiten!r}): {int(bad.sum())} of {len(vals)} cells are NaN because their task is "
            f"observed for too few models outside the held-out set ({holdout!r}) to whiten with min_train={mt}: "
            f"{shown}{more}; pass a smaller min_train, or whiten=False, for those tasks",
            UserWarning,
            stacklevel=3,
        )

    def _dist_order(self, h: int):
        if h not in self._dist_cache:
            D = pairwise_distances(self._coords[h])
            self._dist_cache[h] = (D, neighbour_order(D))
        return self._dist_cache[h]

    def _h_indices(self, rows, Y, holdout, k, weights, mt, family_fn, selection, fam_codes, target):
        grid = self.layout_.grid
        if len(grid) == 1:
            return np.zeros(len(rows), dtype=int)
        if selection == "fit":
            return np.full(len(rows), self._h_fit, dtype=int)
        kk = self._qk["cv_k"] or k
        key = (target, holdout, kk, weights, mt, id(family_fn) if family_fn else None)
        return nested_bandwidth_indices(
            self._coords,
            Y,
            rows,
            grid,
            self.layout_.bandwidth_ref,
            holdout,
            fam_codes,
            kk,
            weights,
            mt,
            self._cv_cache,
            key,
            self._dist_order,
        )

    def _predict_arrays(
        self,
        rows,
        cols,
        k=5,
        holdout="model",
        whiten=False,
        weights="distance",
        min_train=None,
        target="auto",
        family_fn=None,
        selection="nested",
    ) -> np.ndarray:
        Y = self._target_table(target)
        if np.isnan(Y).all():
            raise ValueError("no observed scores: add score/sample_score/reference_score to the records")
        if whiten:
            vals = Y[~np.isnan(Y)]
            if (vals < 0).any() or (vals > 1).any():
                raise ValueError("whiten=True needs targets in [0, 1] (it takes their logit)")
        if len(rows) == 0:
            return np.full(0, np.nan)
        mt = min_train if min_train is not None else (3 if (holdout == "family" or whiten) else 1)
        fam_codes = pd.factorize(self._family_array(family_fn))[0]
        excl = self._exclusion(holdout, family_fn)
        hidx = self._h_indices(rows, Y, holdout, k, weights, mt, family_fn, selection, fam_codes, target)
        return predict_cells(Y, rows, cols, hidx, self._dist_order, excl, fam_codes, holdout, whiten, k, weights, mt)

    # ------------------------------------------------------------------ aliases of the original dkps
    @property
    def dist_matrix_(self):
        self._check_fitted()
        return self.distance_matrix_

    @property
    def embedding_(self) -> dict:
        self._check_fitted()
        return {m: self.coords_[i] for i, m in enumerate(self.model_names_)}

    @property
    def query_bandwidth_(self):
        self._check_fitted()
        return self.bandwidth_

    @property
    def embeddings_by_bandwidth_(self) -> dict:
        self._check_fitted()
        return {h: {m: X[i] for i, m in enumerate(self.model_names_)} for h, X in zip(self.layout_.grid, self._coords)}

    def distance_matrices(self) -> dict:
        """The completed distance matrix per candidate bandwidth.

        Returns
        -------
        dict
            Bandwidth (None for kernels without one) -> ndarray of shape (n_models, n_models).

        Raises
        ------
        NotFittedError
            Before ``fit``.
        """
        self._check_fitted()
        return dict(zip(self.layout_.grid, self._distances))


class DKPS(PKPS):
    r"""Data kernel perspective space: :class:`PKPS` with the delta query kernel, comparing answers to the same query.

    Only responses to *identical* queries ``(task_id, query_id)`` are compared (query vectors are not needed):
    :math:`k_Q(u_j, u_l) = [u_j = u_l]`. With ``response_kwargs=dict(pca_dim=None, normalize=False)`` and a
    linear response kernel the distance is exactly the data kernel perspective space's
    :math:`\|\bar X_i - \bar X_{i'}\|_F / \sqrt{m}` on paired data [1]_, :math:`\bar X_i` the
    :math:`m \times d` matrix of model :math:`i`'s mean response to each of the :math:`m` queries.

    ``sigma_ratio`` (the original package's "delta limit") instead uses an rbf query kernel of bandwidth
    ``sigma_ratio`` times the reference scale; query vectors are then needed.

    Parameters
    ----------
    response_kwargs : dict, optional
        As for :class:`PKPS`.
    mds_kwargs : dict, optional
        As for :class:`PKPS`.
    embedding_kwargs : dict, optional
        As for :class:`PKPS`.
    random_state : int, default 0
        Seed of the subsample used for median distances.
    sigma_ratio : float, optional
        The rbf "delta limit": the query bandwidth as a multiple of the reference scale (None: the delta kernel).
    bandwidth_ref : float, optional
        The reference scale of ``sigma_ratio`` (None: the within-task median query distance); only with it.
    n_jobs : int or None
        As for :class:`PKPS`.
    memory_budget : float, default 256
        As for :class:`PKPS`.

    Attributes
    ----------
    %(perspective_attributes)s
    %(catalog_attributes)s

    Raises
    ------
    ValueError
        From ``fit``: as :class:`PKPS`, and ``bandwidth_ref`` without ``sigma_ratio``.

    See Also
    --------
    PKPS : Any query kernel.

    References
    ----------
    .. [1] A. Acharyya, M. W. Trosset, C. E. Priebe and H. S. Helm, the data kernel perspective space
       (2024), arXiv:2409.17308.
    .. [2] The Blind Spot Book, Part V: "Perspective spaces in one picture" (``ch-perspective-spaces``) and
       "Predicting AlpacaEval win rates from a handful of responses" (``ch-alpaca-eval-query-efficiency``).
    """

    _parameter_constraints: dict = {
        **{k: v for k, v in PKPS._parameter_constraints.items() if k != "query_kwargs"},
        "sigma_ratio": [POSITIVE, None],
        "bandwidth_ref": [POSITIVE, None],
    }

    def __init__(
        self,
        response_kwargs=None,
        mds_kwargs=None,
        embedding_kwargs=None,
        random_state=0,
        sigma_ratio=None,
        bandwidth_ref=None,
        n_jobs=None,
        memory_budget=DEFAULT_MEMORY_BUDGET_MB,
    ):
        self.response_kwargs = response_kwargs
        self.mds_kwargs = mds_kwargs
        self.embedding_kwargs = embedding_kwargs
        self.random_state = random_state
        self.sigma_ratio = sigma_ratio
        self.bandwidth_ref = bandwidth_ref
        self.n_jobs = n_jobs
        self.memory_budget = memory_budget

    def _query_settings(self) -> dict:
        if self.sigma_ratio is None:
            if self.bandwidth_ref is not None:
                raise ValueError(
                    "bandwidth_ref only applies with sigma_ratio (the rbf 'delta limit'); drop it or give sigma_ratio"
                )
            return dict(kernel="delta")
        return dict(
            kernel="rbf", bandwidth="median", bandwidth_ref=self.bandwidth_ref, bandwidth_mult=float(self.sigma_ratio)
        )
