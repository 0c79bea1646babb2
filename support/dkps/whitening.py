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

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator

from .baselines import whiten_statistics

__all__ = ["Whitener"]


class Whitener(BaseEstimator):
    """Logit / standardise / two-way-bias transform of a (models x tasks) score matrix.

    Parameters
    ----------
    logit : bool
        Take the logit of the scores first (they must lie in [0, 1]).
    standardize : bool
        Standardise each task over its observed cells.
    eps : float
        Clip of the scores before the logit, :math:`[\\varepsilon, 1-\\varepsilon]`.

    Attributes
    ----------
    mu_, sd_ : (tasks,) per-task mean and population sd of the observed (logit) scores.
    bias_ : (models x tasks) two-way additive bias.
    """

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

    def fit(self, M, observed=None) -> Whitener:
        """Learn ``mu_``, ``sd_`` and ``bias_`` from the observed cells (default: the finite ones)."""
        M = np.asarray(M, dtype=float)
        if M.ndim != 2:
            raise ValueError(f"M must be a 2-D (models x tasks) matrix, got shape {M.shape}")
        mask = np.isfinite(M) if observed is None else np.asarray(observed, dtype=bool)
        if mask.shape != M.shape:
            raise ValueError(f"observed has shape {mask.shape}, M has {M.shape}; give one mask entry per cell")
        if not (0 < self.eps < 0.5):
            raise ValueError(f"eps must be in (0, 0.5), got {self.eps!r}")
        if mask.any() and not np.isfinite(M[mask]).all():
            raise ValueError("M must be finite at every observed cell")
        X = self._forward(np.where(mask, M, 0.5))
        _, self.bias_, self.mu_, self.sd_ = whiten_statistics(X, mask, self.standardize)
        self.observed_ = mask
        return self

    def transform(self, M) -> np.ndarray:
        """Whitened residuals :math:`(x - \\mu)/s - b` of every cell (NaN where ``M`` is NaN)."""
        if not hasattr(self, "bias_"):
            raise ValueError("Whitener is not fitted yet; call fit(M, observed) first")
        return (self._forward(M) - self.mu_) / self.sd_ - self.bias_

    def inverse_transform(self, R) -> np.ndarray:
        """Scores :math:`\\mathrm{clip}(\\sigma((b + r)s + \\mu), 0, 1)` of residuals ``R``."""
        if not hasattr(self, "bias_"):
            raise ValueError("Whitener is not fitted yet; call fit(M, observed) first")
        X = (self.bias_ + np.asarray(R, dtype=float)) * self.sd_ + self.mu_
        return np.clip(expit(X) if self.logit else X, 0.0, 1.0)
