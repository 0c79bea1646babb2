"""``Whitener``: the original dkps's logit / standardise / two-way-bias transform of a score matrix.

:math:`x = \\mathrm{logit}(\\mathrm{clip}(s, \\varepsilon, 1-\\varepsilon))`, per-task
standardisation :math:`(x-\\mu_t)/s_t` over the observed cells, minus the two-way additive bias
:math:`b_{it} = \\bar r_i + \\bar c_t - \\bar g` (:func:`dkps.baselines.whiten_statistics`); the
inverse maps a residual :math:`r` back to :math:`\\mathrm{clip}(\\sigma((b + r)s + \\mu), 0, 1)`.
This is the pre-processing of the matrix-completion baseline (the bias decomposition of
:func:`dkps.baselines.matrix_completion_predict`), applied to kNN regression in the perspective
space by the original's ``predict(whiten=True)``.

``PKPS.predict(whiten=True)`` does not use this class: it recomputes the statistics without the
held-out model (or family), so the held-out cell's own score never enters its prediction.
``Whitener`` is the original's building block, fitted once on the whole matrix.
"""

from __future__ import annotations

import numbers

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils.validation import check_is_fitted

from .baselines import whiten_statistics
from .settings import Number

__all__ = ["Whitener"]

_NOT_FITTED = "%(name)s is not fitted yet; call fit(M, observed) first"


class Whitener(BaseEstimator):
    r"""Logit / standardise / two-way-bias transform of a (models x tasks) score matrix (the original's).

    .. math::
        r_{it} = \frac{\mathrm{logit}(\mathrm{clip}(s_{it}, \varepsilon, 1-\varepsilon)) - \mu_t}{s_t} - b_{it},
        \qquad b_{it} = \bar r_i + \bar c_t - \bar g,

    with the statistics of the observed cells (:func:`dkps.baselines.whiten_statistics`).

    Parameters
    ----------
    logit : bool, default True
        Take the logit of the scores first (they must lie in [0, 1]).
    standardize : bool, default True
        Standardise each task over its observed cells.
    eps : float, default 1e-3
        Clip of the scores before the logit, :math:`[\varepsilon, 1-\varepsilon]`, in (0, 0.5).

    Attributes
    ----------
    mu_ : ndarray of shape (n_tasks,)
        Per-task mean of the observed (logit) scores.
    sd_ : ndarray of shape (n_tasks,)
        Per-task population sd.
    bias_ : ndarray of shape (n_models, n_tasks)
        The two-way additive bias.
    observed_ : ndarray of bool, shape (n_models, n_tasks)
        The cells the statistics were computed on.

    Raises
    ------
    ValueError
        From ``fit``: ``eps`` outside (0, 0.5), a matrix that is not 2-D, a mask of another shape, or a
        non-finite observed score.

    References
    ----------
    .. [1] The original ``dkps`` package's ``Whitener`` (its ``predict(whiten=True)``).
    .. [2] The Blind Spot Book, Part V: "Query efficiency on synthetic models" (``ch-synthetic-query-efficiency``).
    """

    _parameter_constraints: dict = {
        "logit": ["boolean"],
        "standardize": ["boolean"],
        "eps": [Number(numbers.Real, 0, 0.5, closed="neither")],
    }

    def __init__(self, logit: bool = True, standardize: bool = True, eps: float = 1e-3):
        self.logit = logit
        self.standardize = standardize
        self.eps = eps

    def _forward(self, M: np.ndarray) -> np.ndarray:
        M = np.asarray(M, dtype=float)
        if not self.logit:
            return M.copy()
        s = np.clip(M, self.eps, 1.0 - self.eps)
        return np.log(s / (1.0 - s))

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, M, observed=None) -> Whitener:
        """Learn ``mu_``, ``sd_`` and ``bias_`` from the observed cells.

        Parameters
        ----------
        M : array-like of shape (n_models, n_tasks)
            Scores.
        observed : array-like of bool, shape (n_models, n_tasks), optional
            The observed cells (default: the finite ones).

        Returns
        -------
        self
            The fitted transform.

        Raises
        ------
        ValueError
            A parameter outside its constraints, ``M`` not 2-D, a mask of another shape, or a non-finite
            observed score.
        """
        M = np.asarray(M, dtype=float)
        if M.ndim != 2:
            raise ValueError(f"M must be a 2-D (models x tasks) matrix, got shape {M.shape}")
        mask = np.isfinite(M) if observed is None else np.asarray(observed, dtype=bool)
        if mask.shape != M.shape:
            raise ValueError(f"observed has shape {mask.shape}, M has {M.shape}; give one mask entry per cell")
        if mask.any() and not np.isfinite(M[mask]).all():
            raise ValueError("M must be finite at every observed cell")
        X = self._forward(np.where(mask, M, 0.5))
        _, self.bias_, self.mu_, self.sd_ = whiten_statistics(X, mask, self.standardize)
        self.observed_ = mask
        return self

    def transform(self, M) -> np.ndarray:
        """Whitened residuals :math:`(x - \\mu)/s - b` of every cell (NaN where ``M`` is NaN).

        Parameters
        ----------
        M : array-like of shape (n_models, n_tasks)
            Scores.

        Returns
        -------
        ndarray of shape (n_models, n_tasks)
            The residuals.

        Raises
        ------
        NotFittedError
            Before ``fit`` (a ``ValueError``).
        """
        check_is_fitted(self, msg=_NOT_FITTED)
        return (self._forward(M) - self.mu_) / self.sd_ - self.bias_

    def inverse_transform(self, R) -> np.ndarray:
        """Scores :math:`\\mathrm{clip}(\\sigma((b + r)s + \\mu), 0, 1)` of residuals ``R``.

        Parameters
        ----------
        R : array-like of shape (n_models, n_tasks)
            Residuals.

        Returns
        -------
        ndarray of shape (n_models, n_tasks)
            Scores in [0, 1].

        Raises
        ------
        NotFittedError
            Before ``fit`` (a ``ValueError``).
        """
        check_is_fitted(self, msg=_NOT_FITTED)
        X = (self.bias_ + np.asarray(R, dtype=float)) * self.sd_ + self.mu_
        return np.clip(expit(X) if self.logit else X, 0.0, 1.0)
