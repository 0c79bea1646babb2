"""Ensemble: a learned blend of two estimators (stacking, Wolpert 1992; Breiman 1996).

Prediction :math:`w\\,p_0 + (1-w)\\,p_1` (the other member where one is NaN). The weight is
learned on out-of-fold predictions (``mode='cv'``): K-fold over observed cells for
``holdout=None``; nested per held-out group (model or family) otherwise, with the bases refitted
on records whose group targets are hidden — so no target of the group reaches its own weight or
its own base predictions.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import _fit_context
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from .base import HOLDOUT, BaseEstimator, RefitEstimator, clone
from .records import Records, validate
from .settings import N_JOBS, Number
from .threads import single_blas_thread

__all__ = ["Ensemble", "blend_weight"]


#: Default weights tried for the blend: 0, 0.05, ..., 1.
WEIGHT_GRID = tuple(np.linspace(0, 1, 21))


def blend_weight(p0: np.ndarray, p1: np.ndarray, y: np.ndarray, grid: np.ndarray) -> float:
    """:math:`w^* = \\arg\\min_{w\\in\\text{grid}} \\mathrm{MAE}(w p_0 + (1-w) p_1, y)` over cells where
    both are finite; ties go to the ``w`` closest to 0.5, then the smaller. No usable
    cell: 0.5 with a :class:`UserWarning`."""
    ok = np.isfinite(p0) & np.isfinite(p1) & np.isfinite(y)
    if not ok.any():
        warnings.warn("no out-of-fold cells with both predictions; using w = 0.5", UserWarning, stacklevel=3)
        return 0.5
    g = np.asarray(grid, dtype=float)
    mae = np.abs(g[:, None] * p0[ok][None] + (1 - g[:, None]) * p1[ok][None] - y[ok][None]).mean(axis=1)
    m = mae.min()
    cand = np.flatnonzero(mae <= m + 1e-12 * max(m, 1e-300))
    order = np.lexsort((g[cand], np.round(np.abs(g[cand] - 0.5), 12)))
    return float(g[cand][order[0]])


def _fold_predictions(estimators: list, kws: list, shape: tuple, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Each member's predictions of one fold's cells, with the fold's targets masked: (2, cells)."""
    mask = np.zeros(shape, dtype=bool)
    mask[rows, cols] = True
    return np.stack(
        [est._with_masked_targets(mask)._predict_arrays(rows, cols, **kw) for est, kw in zip(estimators, kws)]
    )


def _combine(p0, p1, w):
    w = np.broadcast_to(np.asarray(w, dtype=float), np.shape(p0))
    out = w * p0 + (1 - w) * p1
    out = np.where(np.isnan(p0), p1, out)
    out = np.where(np.isnan(p1), p0, out)
    return out


class Ensemble(BaseEstimator):
    r"""A learned blend of two estimators: :math:`\hat s = w\, p_0 + (1 - w)\, p_1` (stacking).

    The weight is learned on out-of-fold predictions [1]_ [2]_: :math:`w^* = \arg\min_{w \in \text{grid}}
    \mathrm{MAE}(w p_0 + (1-w) p_1, y)` (``mode='cv'``), K-fold over observed cells for ``holdout=None``,
    nested per held-out group (model or family) otherwise, with the members refitted on records whose group
    targets are hidden, so no target of a group reaches its own weight or its own base predictions. Where one
    member is NaN the other is used.

    Parameters
    ----------
    estimators : list of two estimators
        The members; ``fit`` fits clones of them (``estimators_``, alias ``members``).
    mode : {'cv', 'mean', 'fixed', 'precision'} or float, default 'cv'
        A learned weight, 0.5, ``alpha``, a fixed float in [0, 1], or 'precision' (per-cell shrinkage of
        member 0, the cell's own sample, toward member 1, as in the original dkps).
    holdout : {'model', 'family'} or None, default None
        The K-fold completion protocol (None), or weights nested per held-out model or family.
    predict_kwargs : list of two dicts, optional
        Keywords passed to each member's prediction.
    n_folds : int, default 5
        Folds of the weight learning (>= 2).
    grid : array-like or int, default 0, 0.05, ..., 1
        The candidate weights in [0, 1], or (as in the original) a number of evenly spaced points (>= 2).
    random_state : int, default 0
        Seed of the folds.
    alpha : float, optional
        The weight of ``mode='fixed'``, in [0, 1].
    family_fn : callable, optional
        model_id -> family override for ``holdout='family'``.
    n_jobs : int or None
        joblib jobs for the K folds of ``holdout=None`` (any joblib backend); the folds are computed the same
        way whatever runs them, so the weight does not depend on it.
    prefit : bool, default False
        The ``estimators`` are already fitted on the records given to ``fit`` and are used as they are
        (scikit-learn's ``cv='prefit'`` of stacking), so one fitted PKPS serves several Ensembles; ``fit``
        checks that they know the same models, tasks and targets, and ``update`` updates them.

    Attributes
    ----------
    estimators_ : list
        The fitted members.
    weight_ : float or None
        The blend weight of member 0 (the median over groups under a holdout; None under 'precision').
    weights_by_group_ : dict or None
        Held-out group -> its weight (``holdout`` set).
    oof_predictions_ : DataFrame or None
        The out-of-fold cells the weight was learned on: ``model_id, task_id, y, p0, p1``.
    prior_err_ : Series or None
        Per model, the prior error of member 1 around member 0 ('precision').
    alpha_global_ : float or None
        Alias of ``weight_`` (the original dkps's name).
    alpha_ : dict or None
        Alias of ``weights_by_group_``.
    %(catalog_attributes)s

    Raises
    ------
    ValueError
        From ``fit``: a parameter outside its constraints, not two dkps estimators, ``mode='fixed'`` without
        ``alpha``, ``predict_kwargs`` that are not two dicts or contradict ``holdout``, a grid outside [0, 1],
        or prefit members that are unfitted or fitted on other records.

    References
    ----------
    .. [1] D. H. Wolpert, "Stacked generalization", Neural Networks 5 (1992), 241-259.
    .. [2] L. Breiman, "Stacked regressions", Machine Learning 24 (1996), 49-64.
    .. [3] The Blind Spot Book, Part V: "Query efficiency on synthetic models" (``ch-synthetic-query-efficiency``).
    """

    _parameter_constraints: dict = {
        "estimators": [list, tuple],
        "mode": [StrOptions({"cv", "mean", "fixed", "precision"}), Number(numbers.Real, 0, 1, closed="both")],
        "holdout": HOLDOUT,
        "predict_kwargs": [list, tuple, None],
        "n_folds": [Number(numbers.Integral, 2, None, closed="left")],
        "grid": ["array-like", Number(numbers.Integral, 2, None, closed="left")],
        "alpha": [Number(numbers.Real, 0, 1, closed="both"), None],
        "family_fn": [callable, None],
        "n_jobs": N_JOBS,
        "prefit": ["boolean"],
    }

    def __init__(
        self,
        estimators,
        mode="cv",
        holdout=None,
        predict_kwargs=None,
        n_folds=5,
        grid=WEIGHT_GRID,
        random_state=0,
        alpha=None,
        family_fn=None,
        n_jobs=None,
        prefit=False,
    ):
        self.estimators = estimators
        self.mode = mode
        self.holdout = holdout
        self.predict_kwargs = predict_kwargs
        self.n_folds = n_folds
        self.grid = grid
        self.random_state = random_state
        self.alpha = alpha
        self.family_fn = family_fn
        self.n_jobs = n_jobs
        self.prefit = prefit

    def _check_params(self) -> None:
        """The rules between parameters (after ``_parameter_constraints``); keep the resolved members,
        predict kwargs and grid."""
        est = list(self.estimators)
        if len(est) != 2:
            raise ValueError("Ensemble needs exactly 2 estimators, e.g. Ensemble([PKPS(), LRMC()])")
        for e in est:
            if not isinstance(e, BaseEstimator):
                raise ValueError(f"Ensemble members must be dkps estimators, got {type(e).__name__}")
        if self.mode == "fixed" and self.alpha is None:
            raise ValueError("mode='fixed' needs alpha in [0, 1]")
        pk = [{}, {}] if self.predict_kwargs is None else list(self.predict_kwargs)
        if len(pk) != 2 or not all(isinstance(d, dict) for d in pk):
            raise ValueError("predict_kwargs must be a list of two dicts (or None)")
        if self.holdout is not None:
            for d in pk:
                if "holdout" in d and d["holdout"] != self.holdout:
                    raise ValueError(
                        f"predict_kwargs give holdout={d['holdout']!r} but the Ensemble holds out {self.holdout!r}; "
                        "drop it from predict_kwargs"
                    )
        grid = self.grid
        if isinstance(grid, numbers.Integral):
            grid = np.linspace(0, 1, int(grid))  # the original's form: a number of points
        g = np.asarray(grid, dtype=float).ravel()
        if g.size == 0 or not np.isfinite(g).all() or (g < 0).any() or (g > 1).any():
            raise ValueError("grid must be a non-empty sequence of weights in [0, 1] (or a number of points)")
        self._members, self._pk, self._grid = est, pk, g

    # -------------------------------------------------------------------- fit
    @single_blas_thread
    @_fit_context(prefer_skip_nested_validation=False)  # the members' fits validate their own parameters
    def fit(self, records: Any) -> Ensemble:
        """Fit the members (unless ``prefit``) and learn the weights.

        Parameters
        ----------
        %(records_param)s
            Validated Records can be given only when every member to fit takes them (SampleScore, LRMC, IRT).

        %(returns_self)s

        Raises
        ------
        ValueError
            See the class's Raises; and validated Records with a perspective-space member to fit.
        """
        self._fitted = False
        self._check_params()
        rec = records if isinstance(records, Records) else validate(records)
        if self.prefit:
            self.estimators_ = list(self._members)
        else:
            if isinstance(records, Records) and not all(isinstance(e, RefitEstimator) for e in self._members):
                raise ValueError(
                    "a PKPS member is fitted on the records themselves (a DataFrame, a list of dicts, ...), "
                    "not on validated Records; pass those, or fitted members with prefit=True"
                )
            # members that refit from validated records take them as they are (no second validation)
            self.estimators_ = [clone(e).fit(rec if isinstance(e, RefitEstimator) else records) for e in self._members]
        self._set_catalog(rec.frame)
        if self.prefit:
            self._check_prefit()
        self._fitted = True
        self._learn_weights()
        return self

    def _check_prefit(self) -> None:
        """Prefit members are fitted and know this Ensemble's models, tasks and targets."""
        for e in self.estimators_:
            try:
                check_is_fitted(e)
            except NotFittedError:
                raise ValueError(f"prefit=True needs fitted members; {type(e).__name__} is not fitted") from None
            same = (
                e.model_names_ == self.model_names_
                and e.task_names_ == self.task_names_
                and np.array_equal(e._tables.target, self._tables.target, equal_nan=True)
            )
            if not same:
                raise ValueError(
                    f"the prefit {type(e).__name__} was fitted on other records than the Ensemble's "
                    "(other models, tasks or targets); fit it on the same records, or use prefit=False"
                )

    @single_blas_thread
    def update(self, records: Any) -> Ensemble:
        """Update every member (PKPS incrementally), then re-learn the weights.

        %(records_to_self)s

        %(update_raises)s
        """
        frame = self._merged_frame(records)
        if frame is None:
            return self
        for e in self.estimators_:
            e.update(records)
        self._set_catalog(frame)
        self._learn_weights()
        return self

    def _member_kw(self, b: int, nested: bool) -> dict:
        kw = dict(self._pk[b])
        if nested:
            kw["holdout"] = self.holdout
            kw["selection"] = "fit"
            if self.family_fn is not None:
                kw["family_fn"] = self.family_fn
        return kw

    def _groups(self) -> np.ndarray:
        n = len(self.model_names_)
        if self.holdout == "model":
            return np.arange(n)
        return self._family_codes(self.family_fn)

    def _learn_weights(self) -> None:
        self.weights_by_group_ = None
        self.oof_predictions_ = None
        self.prior_err_ = None
        self._group_bases = None
        mode = self.mode
        if mode == "mean":
            self.weight_ = 0.5
        elif mode == "fixed":
            self.weight_ = float(self.alpha)
        elif isinstance(mode, numbers.Real):
            self.weight_ = float(mode)
        elif mode == "precision":
            self._learn_precision()
        elif self.holdout is None:
            self._learn_kfold()
        else:
            self._learn_groups()

    def _learn_kfold(self) -> None:
        Y = self._tables.target
        r, c = np.nonzero(~np.isnan(Y))
        perm = np.random.default_rng(self.random_state).permutation(len(r))
        fold = np.empty(len(r), dtype=int)
        fold[perm] = np.arange(len(r)) % self.n_folds
        p = np.full((2, len(r)), np.nan)
        folds = [np.flatnonzero(fold == f) for f in range(self.n_folds)]
        folds = [idx for idx in folds if idx.size]
        kws = [self._member_kw(b, False) for b in range(len(self.estimators_))]
        preds = Parallel(n_jobs=self.n_jobs)(
            delayed(_fold_predictions)(self.estimators_, kws, Y.shape, r[idx], c[idx]) for idx in folds
        )
        for idx, pf in zip(folds, preds):
            p[:, idx] = pf
        y = Y[r, c]
        self.oof_predictions_ = pd.DataFrame(
            {
                "model_id": [self.model_names_[i] for i in r],
                "task_id": [self.task_names_[t] for t in c],
                "y": y,
                "p0": p[0],
                "p1": p[1],
                "fold": fold,
            }
        )
        self.weight_ = blend_weight(p[0], p[1], y, self._grid)

    def _learn_groups(self) -> None:
        Y = self._tables.target
        obs = ~np.isnan(Y)
        groups = self._groups()
        self.weights_by_group_ = {}
        self._group_bases = {}
        for g in np.unique(groups):
            members = groups == g
            mask = np.zeros(Y.shape, dtype=bool)
            mask[members, :] = True
            bases = [est._with_masked_targets(mask) for est in self.estimators_]
            r, c = np.nonzero(obs & ~members[:, None])
            p = np.stack([b._predict_arrays(r, c, **self._member_kw(k, True)) for k, b in enumerate(bases)])
            w = blend_weight(p[0], p[1], Y[r, c], self._grid)
            key = self._group_key(g)
            self.weights_by_group_[key] = w
            self._group_bases[int(g)] = (bases, w)
        self.weight_ = float(np.median(list(self.weights_by_group_.values())))

    def _group_key(self, g: int):
        members = np.flatnonzero(self._groups() == g)
        if self.holdout == "model":
            return self.model_names_[members[0]]
        return self._family_array(self.family_fn)[members[0]]

    def _learn_precision(self) -> None:
        """Per-model prior error ``e_i`` of member 1 around member 0 (the original dkps's 'precision' mode)."""
        r, c = np.nonzero(~np.isnan(self._tables.sample))
        p0 = self.estimators_[0]._predict_arrays(r, c, **self._member_kw(0, False))
        p1 = self.estimators_[1]._predict_arrays(r, c, **self._member_kw(1, False))
        nresp = np.maximum(self._tables.n_scored[r, c], 1)
        pc = np.clip(np.where(np.isnan(p1), 0.5, p1), 1e-3, 1 - 1e-3)
        term = (p0 - p1) ** 2 - pc * (1 - pc) / nresp
        ok = np.isfinite(term)
        n = len(self.model_names_)
        num = np.bincount(r[ok], weights=(nresp * term)[ok], minlength=n)
        den = np.bincount(r[ok], weights=nresp[ok], minlength=n)
        pooled = max(float(num.sum() / den.sum()) if den.sum() > 0 else 1e-6, 1e-6)
        e = np.where(den > 0, num / np.maximum(den, 1e-300), pooled)
        self.prior_err_ = pd.Series(np.maximum(e, 1e-6), index=self.model_names_)
        self.weight_ = None

    # -------------------------------------------------------------------- predict
    def _default_cells(self):
        seen, rows, cols = set(), [], []
        for est in self.estimators_:
            r, c = est._default_cells()
            for i, t in zip(r, c):
                key = (est.model_names_[i], est.task_names_[t])
                if key in seen:
                    continue
                seen.add(key)
                rows.append(self._model_index[key[0]])
                cols.append(self._task_index[key[1]])
        return np.asarray(rows, dtype=int), np.asarray(cols, dtype=int)

    @single_blas_thread
    def predict(self, records: Any = None, *, cells: Any = None, as_frame: bool = False):
        """Blended predictions (default cells: the union of the members' default cells, as in the original dkps).

        %(cells_predict)s
        """
        self._check_fitted()
        rows, cols = self._cells_from_args(records, cells)
        return self._format(rows, cols, self._predict_arrays(rows, cols), as_frame)

    def _predict_arrays(self, rows, cols, **_ignored) -> np.ndarray:
        out = np.full(len(rows), np.nan)
        if len(rows) == 0:
            return out
        if self._group_bases is not None:
            groups = self._groups()
            for g in np.unique(groups[rows]):
                sel = np.flatnonzero(groups[rows] == g)
                bases, w = self._group_bases[int(g)]
                p = [b._predict_arrays(rows[sel], cols[sel], **self._member_kw(k, True)) for k, b in enumerate(bases)]
                out[sel] = _combine(p[0], p[1], w)
            return out
        p0 = self.estimators_[0]._predict_arrays(rows, cols, **self._member_kw(0, False))
        p1 = self.estimators_[1]._predict_arrays(rows, cols, **self._member_kw(1, False))
        if self.mode == "precision":
            pc = np.clip(np.where(np.isnan(p1), 0.5, p1), 1e-3, 1 - 1e-3)
            nresp = np.maximum(self._tables.n_scored[rows, cols], 1)
            e = self.prior_err_.to_numpy()[rows]
            w = e / (e + pc * (1 - pc) / nresp)
            return _combine(p0, p1, w)
        return _combine(p0, p1, self.weight_)

    # -------------------------------------------------------------------- aliases of the original dkps
    @property
    def alpha_global_(self):
        self._check_fitted()
        return self.weight_

    @property
    def alpha_(self):
        self._check_fitted()
        return self.weights_by_group_

    @property
    def members(self) -> list:
        """The fitted members (``estimators_``) once fitted, else the given ``estimators`` (the
        original's name)."""
        return self.estimators_ if self.__sklearn_is_fitted__() else list(self.estimators)
