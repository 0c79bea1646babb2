"""Common estimator API: catalog attributes, cell resolution, holdout plumbing, score_table."""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import sklearn.base
from sklearn.base import _fit_context, clone
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from .docstrings import SECTIONS, fill_sections
from .errors import UnknownIdError
from .records import (
    CellTables,
    Records,
    cell_tables,
    check_frame_consistency,
    frame_family_map,
    mask_targets,
    parse_cells,
    validate,
)
from .settings import COUNT
from .threads import single_blas_thread

__all__ = [
    "BaseEstimator",
    "RefitEstimator",
    "clone",
    "replaced_rows",
    "warn_replaced",
    "HOLDOUTS",
    "WEIGHTS",
    "TARGETS",
    "HOLDOUT",
    "PREDICT_CONSTRAINTS",
    "NOT_FITTED",
]

HOLDOUTS = (None, "model", "family")
WEIGHTS = ("uniform", "distance")
TARGETS = ("auto", "sample", "reference")
#: scikit-learn constraints of the shared ``predict`` keywords (``validate_params`` on each ``predict``).
HOLDOUT = [StrOptions({"model", "family"}), None]
PREDICT_CONSTRAINTS = {
    "k": [COUNT],
    "holdout": HOLDOUT,
    "weights": [StrOptions(set(WEIGHTS))],
    "min_train": [COUNT, None],
    "target": [StrOptions(set(TARGETS))],
    "family_fn": [callable, None],
    "as_frame": ["boolean"],
}
#: The message of scikit-learn's ``NotFittedError`` from ``check_is_fitted`` (``%(name)s``: the class).
NOT_FITTED = "%(name)s is not fitted yet; call fit(records) first"


def replaced_rows(old: pd.DataFrame, new: pd.DataFrame) -> np.ndarray:
    """Rows of ``old`` whose (model_id, task_id, query_id) key is sent again in ``new``.

    ``update`` drops them, so the newer rows win, as in the original dkps, and says how many with
    :func:`warn_replaced` once the update is accepted (a refused update replaces nothing).
    Replicates inside one batch of records are all kept.
    """
    keys = pd.MultiIndex.from_frame(old[["model_id", "task_id", "query_id"]])
    again = keys.isin(pd.MultiIndex.from_frame(new[["model_id", "task_id", "query_id"]]))
    return np.asarray(again, dtype=bool)


def warn_replaced(replaced: np.ndarray, stacklevel: int = 4) -> None:
    """The ``UserWarning`` of an update that replaced rows sent again (none when nothing was)."""
    n = int(np.count_nonzero(replaced))
    if n:
        warnings.warn(
            f"update replaced {n} (model, task, query) rows that were sent again: the newer rows win",
            UserWarning,
            stacklevel=stacklevel,
        )


class _CatalogCache(dict):
    """Arrays derived from an estimator's catalog (families, exclusion sets), keyed by what they
    depend on. Shared by shallow copies; pickles and deep-copies as empty (its keys may hold a
    lambda ``family_fn``, which pickle cannot store, and everything in it is recomputed on demand)."""

    def __reduce__(self):
        return (type(self), ())


class BaseEstimator(sklearn.base.BaseEstimator):
    """Shared plumbing of the six estimators, on top of scikit-learn's ``BaseEstimator``.

    scikit-learn supplies ``get_params(deep=...)``, ``set_params``, ``sklearn.base.clone`` (also
    ``dkps.clone``) and a repr that shows the non-default parameters: constructors store their
    arguments untouched and ``fit`` validates them (scikit-learn's estimator conventions).
    Subclasses implement ``fit``, ``update``, ``predict``, ``_predict_arrays(rows, cols, **kw)`` and
    ``_default_cells()``.
    """

    #: Shared docstring sections: a line ``%(name)s`` in a subclass's docstring becomes the section, indented.
    _doc_sections: dict = SECTIONS

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.__doc__ = fill_sections(cls.__doc__, cls._doc_sections)
        for attr in vars(cls).values():  # the methods the class defines (their outermost wrapper)
            if callable(attr) and getattr(attr, "__doc__", None):
                attr.__doc__ = fill_sections(attr.__doc__, cls._doc_sections)

    default_holdout: str | None = None
    #: scikit-learn's parameter constraints, checked by ``fit`` (``_fit_context``); each estimator lists its own.
    _parameter_constraints: dict = {}

    # ---------------------------------------------------------------- catalog
    def __sklearn_is_fitted__(self) -> bool:
        """Fitted once ``fit`` has finished (a failed or running fit is not), for ``check_is_fitted``."""
        return getattr(self, "_fitted", False)

    def _check_fitted(self) -> None:
        check_is_fitted(self, msg=NOT_FITTED)

    def _set_catalog(self, frame: pd.DataFrame) -> None:
        """Sorted ids (as in the original dkps), families, suites and the per-cell tables."""
        self._frame = frame
        self.model_names_ = sorted(pd.unique(frame.model_id).tolist())
        self.task_names_ = sorted(pd.unique(frame.task_id).tolist())
        self.suite_names_ = sorted(pd.unique(frame.suite).tolist())
        self.families_ = frame_family_map(frame)
        first = frame.drop_duplicates("task_id")
        self.task_suite_ = dict(zip(first.task_id, first.suite))
        self._model_index = {m: i for i, m in enumerate(self.model_names_)}
        self._task_index = {t: i for i, t in enumerate(self.task_names_)}
        self._family_cache = _CatalogCache()
        self._set_tables(cell_tables(frame, self.model_names_, self.task_names_))

    def _set_tables(self, tables: CellTables) -> None:
        self._tables = tables
        self._table_frames = None  # the models x tasks frames below, built on first access

    def _frames(self) -> dict:
        """``sample_scores_``, ``reference_scores_``, ``targets_`` and ``n_responses_`` as DataFrames
        (models x tasks) of the current tables, built once per tables (fitted copies with masked
        targets, made by the hundred for the Ensemble's weights, never build them)."""
        self._check_fitted_tables()
        if self._table_frames is None:
            t = self._tables
            idx = pd.Index(self.model_names_, name="model_id")
            cols = pd.Index(self.task_names_, name="task_id")
            self._table_frames = {
                "sample": pd.DataFrame(t.sample, index=idx, columns=cols),
                "reference": pd.DataFrame(t.reference, index=idx, columns=cols),
                "target": pd.DataFrame(t.target, index=idx, columns=cols),
                "n_responses": pd.DataFrame(t.n_responses.astype(int), index=idx, columns=cols),
            }
        return self._table_frames

    def _check_fitted_tables(self) -> None:
        # the tables exist from the middle of fit on (its later steps read them), so not __sklearn_is_fitted__
        check_is_fitted(self, attributes=["_tables"], msg="%(name)s has no score tables yet; call fit(records) first")

    @property
    def sample_scores_(self) -> pd.DataFrame:
        """Per (model, task) the cell's ``sample_score`` if given, else the mean of its scores; NaN if none."""
        return self._frames()["sample"]

    @property
    def reference_scores_(self) -> pd.DataFrame:
        """Per (model, task) the cell's ``reference_score``; NaN if none."""
        return self._frames()["reference"]

    @property
    def targets_(self) -> pd.DataFrame:
        """Per (model, task) the regression target: the reference score, else the sample score."""
        return self._frames()["target"]

    @property
    def n_responses_(self) -> pd.DataFrame:
        """Per (model, task) the number of response rows."""
        return self._frames()["n_responses"]

    def _target_table(self, target: str = "auto") -> np.ndarray:
        t = self._tables
        return {"auto": t.target, "sample": t.sample, "reference": t.reference}[target]

    def _catalog_cached(self, key: tuple, make: Callable[[], np.ndarray]) -> np.ndarray:
        """``make()``, computed once per catalog (``_set_catalog``) and ``key``, returned read-only.

        A key holding a ``family_fn`` assumes the function is pure (the same family for the same
        model every time), as the holdout contract already does; an unhashable key is not cached.
        Fitted copies (``_with_masked_targets``) share the catalog, hence the cache.
        """
        cache = self.__dict__.setdefault("_family_cache", _CatalogCache())
        try:
            hit = cache.get(key)
        except TypeError:  # an unhashable family_fn
            return make()
        if hit is None:
            hit = make()
            hit.setflags(write=False)
            cache[key] = hit
        return hit

    def _family_array(self, family_fn: Callable | None = None) -> np.ndarray:
        """Per model (in ``model_names_`` order) its family: the records' or ``family_fn``'s (read-only)."""

        def make():
            fams = self.families_ if family_fn is None else frame_family_map(self._frame, family_fn)
            return np.array([fams[m] for m in self.model_names_], dtype=object)

        return self._catalog_cached(("family", family_fn), make)

    def _family_codes(self, family_fn: Callable | None = None) -> np.ndarray:
        """``pd.factorize`` codes of :meth:`_family_array` (read-only)."""
        return self._catalog_cached(("codes", family_fn), lambda: pd.factorize(self._family_array(family_fn))[0])

    def _exclusion(self, holdout: str | None, family_fn: Callable | None = None) -> np.ndarray:
        """``excl[i, j]``: model j is in the exclusion set E(i) of model i (its own family under 'family').

        Read-only (computed once per catalog and holdout); copy it before changing it.
        """
        n = len(self.model_names_)
        if holdout is None:
            return self._catalog_cached(("excl", None), lambda: np.zeros((n, n), dtype=bool))
        if holdout == "model":
            return self._catalog_cached(("excl", "model"), lambda: np.eye(n, dtype=bool))
        codes = self._family_codes(family_fn)
        return self._catalog_cached(("excl", "family", family_fn), lambda: codes[:, None] == codes[None, :])

    # ---------------------------------------------------------------- cells
    def _resolve_cells(self, records: Any) -> tuple[np.ndarray, np.ndarray]:
        """(model index, task index) arrays for the requested cells, expanding model-only rows.

        Duplicates are kept, one output per requested cell, as in the original dkps.
        """
        pairs = parse_cells(records)
        unknown: list[str] = []
        rows: list[int] = []
        cols: list[int] = []
        T = len(self.task_names_)
        for m, t in pairs:
            mi = self._model_index.get(m)
            if mi is None:
                if m not in unknown:
                    unknown.append(m)
                continue
            if t is None:
                rows.extend([mi] * T)
                cols.extend(range(T))
                continue
            ti = self._task_index.get(t)
            if ti is None:
                if t not in unknown:
                    unknown.append(t)
                continue
            rows.append(mi)
            cols.append(ti)
        if unknown:
            shown = ", ".join(repr(u) for u in unknown[:5])
            more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
            raise UnknownIdError(
                f"cells name ids the estimator has not seen: {shown}{more}; predict never adds data — "
                "call update(records) with their responses first"
            )
        return np.asarray(rows, dtype=int), np.asarray(cols, dtype=int)

    def _unobserved_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Every (model, task) without a target, ordered by model then task."""
        r, c = np.nonzero(np.isnan(self._tables.target))
        return r, c

    def _sampled_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Every cell with a sample score (the default cells of SampleScore and IRT, as in the original dkps)."""
        r, c = np.nonzero(~np.isnan(self._tables.sample))
        return r, c

    def _default_cells(self) -> tuple[np.ndarray, np.ndarray]:
        return self._unobserved_cells()

    def default_cells(self) -> list[tuple[str, str]]:
        """The cells ``predict()`` returns with no argument, as (model_id, task_id) pairs.

        Returns
        -------
        list of tuple of str
            Every cell without an observed target (the perspective spaces, LRMC, Ensemble), or every cell
            with a sample score (SampleScore and IRT, as in the original dkps), ordered by model then task.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        """
        self._check_fitted()
        r, c = self._default_cells()
        return [(self.model_names_[i], self.task_names_[t]) for i, t in zip(r, c)]

    def _format(self, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, as_frame: bool):
        out = [
            {"model_id": self.model_names_[i], "task_id": self.task_names_[t], "score_hat": float(v)}
            for i, t, v in zip(rows.tolist(), cols.tolist(), np.asarray(values, dtype=float).tolist())
        ]
        if as_frame:
            return pd.DataFrame(out, columns=["model_id", "task_id", "score_hat"])
        return out

    def _merged_frame(self, records: Any) -> pd.DataFrame | None:
        """For ``update``: the records seen so far, with rows sent again replaced, plus the new ones.

        None when nothing is new. See :func:`replaced_rows` for the replacement rule.
        """
        self._check_fitted()
        rec = validate(records, allow_empty=True)
        if len(rec) == 0:
            return None
        replaced = replaced_rows(self._frame, rec.frame)
        frame = pd.concat([self._frame[~replaced], rec.frame], ignore_index=True)
        check_frame_consistency(frame)
        warn_replaced(replaced, stacklevel=5)
        return frame

    # ---------------------------------------------------------------- public API
    def fit(self, records: Any):
        raise NotImplementedError

    def update(self, records: Any):
        raise NotImplementedError

    def predict(self, records: Any = None, **kwargs):
        raise NotImplementedError

    def _cells_from_args(self, records: Any, cells: Any):
        if records is not None and cells is not None:
            raise TypeError("give the cells once: either as the first argument or as cells=")
        req = records if records is not None else cells
        if req is None:
            return self._default_cells()
        return self._resolve_cells(req)

    @single_blas_thread
    def score_table(self, **predict_kwargs) -> pd.DataFrame:
        """One row per (model, task): the observed target, else the prediction.

        Parameters
        ----------
        **predict_kwargs
            Passed to the prediction of the unobserved cells (the keywords of ``predict``, e.g. ``k``).

        Returns
        -------
        DataFrame
            Columns ``model_id, task_id, suite, score, source, n_responses`` (``source``: 'observed' or
            'predicted'); ordered by model then task.

        Raises
        ------
        NotFittedError
            Before ``fit``.
        """
        self._check_fitted()
        n, T = len(self.model_names_), len(self.task_names_)
        target = self._tables.target
        score = target.copy()
        r, c = np.nonzero(np.isnan(target))
        if len(r):
            preds = self._predict_arrays(r, c, **predict_kwargs)
            score[r, c] = preds
        rows = np.repeat(np.arange(n), T)
        cols = np.tile(np.arange(T), n)
        return pd.DataFrame(
            {
                "model_id": [self.model_names_[i] for i in rows],
                "task_id": [self.task_names_[t] for t in cols],
                "suite": [self.task_suite_[self.task_names_[t]] for t in cols],
                "score": score.ravel(),
                "source": np.where(np.isnan(target).ravel(), "predicted", "observed"),
                "n_responses": self._tables.n_responses.astype(int).ravel(),
            }
        )

    def _predict_arrays(self, rows, cols, **kwargs) -> np.ndarray:
        raise NotImplementedError

    # ---------------------------------------------------------------- masking (Ensemble, leakage)
    def _with_masked_targets(self, mask: np.ndarray) -> BaseEstimator:
        """A fitted copy whose targets at ``mask`` (models x tasks) are hidden (the Ensemble's out-of-fold weights).

        The default shares every fitted array with ``self`` and swaps the score tables; subclasses
        whose fit reads targets (LRMC) refit in ``_after_tables``.
        """
        self._check_fitted()
        other = copy.copy(self)
        other._set_tables(mask_targets(self._tables, mask))
        other._after_tables()
        return other

    def _after_tables(self) -> None:
        """Hook run after the score tables change (PKPS re-selects the reported bandwidth)."""


class RefitEstimator(BaseEstimator):
    """An estimator whose ``update`` is a refit on every record seen so far (SampleScore, IRT, LRMC).

    Subclasses recompute their fitted state from the full record frame in :meth:`_refit`.
    """

    @single_blas_thread
    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, records: Any):
        """Fit on ``records`` (validated records are not validated again).

        %(records_to_self)s

        Raises
        ------
        ValueError
            A parameter outside its constraints (``InvalidParameterError``), or records that
            :func:`dkps.records.validate` refuses.
        """
        self._fitted = False
        self._check_params()
        rec = records if isinstance(records, Records) else validate(records)
        self._set_catalog(rec.frame)
        self._fitted = True
        try:
            self._refit(rec.frame)
        except Exception:
            self._fitted = False  # a failed fit leaves no half-fitted estimator behind
            raise
        return self

    def _check_params(self) -> None:
        """Rules between parameters that ``_parameter_constraints`` cannot state (checked in ``fit``, after them)."""

    @single_blas_thread
    def update(self, records: Any):
        """Add records: the same as refitting on all records seen so far, rows sent again replaced by the new ones.

        %(records_to_self)s

        %(update_raises)s
        """
        frame = self._merged_frame(records)
        if frame is None:
            return self
        self._set_catalog(frame)
        self._refit(frame)
        return self

    def _refit(self, frame: pd.DataFrame) -> None:
        """Recompute the fitted state from all records (the catalog tables are already set)."""
