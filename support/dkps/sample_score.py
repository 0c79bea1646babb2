"""SampleScore: the mean of the cell's own scored responses (the baseline of query-efficient evaluation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.utils._param_validation import StrOptions, validate_params

from .base import HOLDOUT, RefitEstimator

__all__ = ["SampleScore"]


class SampleScore(RefitEstimator):
    r"""Score-only baseline: each cell's own sample score, :math:`\hat s(i,t) = ss(i,t)`.

    ``ss`` is the cell's ``sample_score`` if given, else the mean of its non-NaN ``score`` values;
    ``reference_score`` is never read. A cell without a sample score is NaN, or, with
    ``fallback='task_mean'``, :math:`\mathrm{mean}_{j \notin E(i)}\, ss(j,t)`. It is the baseline of
    query-efficient evaluation [1]_: what a handful of scored responses says without any geometry.

    Parameters
    ----------
    fallback : {'task_mean'} or None, default None
        What a cell without a sample score gets: NaN, or the task's mean over the other models.

    Attributes
    ----------
    %(catalog_attributes)s

    Raises
    ------
    ValueError
        From ``fit``: a ``fallback`` outside its options, or records that :func:`dkps.records.validate` refuses.

    References
    ----------
    .. [1] F. M. Polo, L. Weber, L. Choshen, Y. Sun, G. Xu and M. Yurochkin, "tinyBenchmarks: evaluating LLMs
       with fewer examples", ICML 2024.
    .. [2] The Blind Spot Book, Part V: "Query efficiency on synthetic models" (``ch-synthetic-query-efficiency``).
    """

    _parameter_constraints: dict = {"fallback": [StrOptions({"task_mean"}), None]}

    def __init__(self, fallback: str | None = None):
        self.fallback = fallback

    def _default_cells(self):
        return self._sampled_cells()

    @validate_params(
        {"holdout": HOLDOUT, "family_fn": [callable, None], "as_frame": ["boolean"]}, prefer_skip_nested_validation=True
    )
    def predict(
        self,
        records: Any = None,
        *,
        cells: Any = None,
        holdout: str | None = None,
        family_fn: Callable | None = None,
        as_frame: bool = False,
    ):
        """Sample scores of the requested cells (default: every cell with one, as in the original dkps).

        Parameters
        ----------
        %(cells_params)s
        holdout : {'model', 'family'} or None, default None
            Whose cells the ``fallback='task_mean'`` leaves out of its mean; without a fallback it would be
            ignored, so passing it is an error.
        family_fn : callable, optional
            model_id -> family for ``holdout='family'`` (the same rule).
        %(predict_returns)s

        Raises
        ------
        NotFittedError
            Before ``fit``.
        ValueError
            A keyword outside its constraints, ``holdout`` or ``family_fn`` without a fallback, or unknown cells.
        """
        self._check_fitted()
        if self.fallback is None and (holdout is not None or family_fn is not None):
            raise ValueError(
                "SampleScore reads each cell's own responses: holdout and family_fn only apply with "
                "fallback='task_mean'; drop them"
            )
        rows, cols = self._cells_from_args(records, cells)
        vals = self._predict_arrays(rows, cols, holdout=holdout, family_fn=family_fn)
        return self._format(rows, cols, vals, as_frame)

    def _predict_arrays(self, rows, cols, holdout=None, family_fn=None, selection=None, **_ignored) -> np.ndarray:
        ss = self._tables.sample
        out = ss[rows, cols].astype(float)
        if self.fallback == "task_mean":
            miss = np.flatnonzero(np.isnan(out))
            if miss.size:
                excl = self._exclusion(holdout, family_fn)
                for c in miss:
                    i, t = rows[c], cols[c]
                    v = ss[~excl[i], t]
                    v = v[~np.isnan(v)]
                    out[c] = v.mean() if v.size else np.nan
        return out
