"""Ridge regression with its penalty chosen by leave-one-out cross-validation, batched over many designs.

For a training design A (n x p) and targets Y (n x m), each feature is standardised on the training rows
(mean mu, sd s with ddof 0; a constant feature keeps sd 1) and the intercept is not penalised. With the
thin SVD of the standardised, centred design Z = U diag(s) V^T and Yc = Y - mean(Y), the ridge fit for a
penalty alpha is

    beta(alpha) = V diag(s / (s^2 + alpha)) U^T Yc,        Yhat(alpha) = mean(Y) + Z beta(alpha),

a linear smoother with hat matrix H(alpha) = 11^T / n + U diag(s^2 / (s^2 + alpha)) U^T. Its leave-one-out
residuals are exactly e_i / (1 - H_ii) (Allen 1974; Hastie, Tibshirani & Friedman, *Elements of
Statistical Learning*, eq. 7.52), so the penalty of each target is the alpha of the grid with the smallest
mean squared LOO residual (ties to the first, smallest alpha). This is what scikit-learn's
``make_pipeline(StandardScaler(), RidgeCV(alphas, alpha_per_target=True))`` computes (its efficient LOO
mode); the tests check the two agree. The point of this module is the batch: B designs of the same shape
are solved in one stacked SVD and one batched matrix product per block, which a loop over RidgeCV fits
would take minutes for.

References
----------
Allen, D. M. (1974). The relationship between variable selection and data augmentation and a method for
prediction. *Technometrics* 16(1), 125-127. Golub, Heath & Wahba (1979) for the SVD form of ridge's
cross-validation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ALPHAS", "RidgeBatch", "ridge_loo"]

#: The penalty grid (on standardised features): from almost least squares to almost the training mean.
ALPHAS = np.logspace(-2, 4, 9)

#: Bytes one block of the batched LOO computation may take (the (B, n, m, n_alphas) fitted values).
BLOCK_BYTES = 64 * 2**20


@dataclass(frozen=True)
class RidgeBatch:
    """Ridge fits of B designs with their LOO-chosen penalties.

    Attributes
    ----------
    predictions : ndarray (B, n_test, m)
        Predictions of every target on the test rows.
    alpha : ndarray (B, m)
        The penalty chosen for each design and target.
    loo_mse : ndarray (B, m)
        The mean squared leave-one-out residual at that penalty (training rows only).
    """

    predictions: np.ndarray
    alpha: np.ndarray
    loo_mse: np.ndarray


def _check(A: np.ndarray, Y: np.ndarray, A_test: np.ndarray, alphas: np.ndarray) -> None:
    if A.ndim != 3 or A_test.ndim != 3 or Y.ndim != 3:
        raise ValueError(
            f"expected stacks: A (B, n, p), Y (B, n, m), A_test (B, n_test, p); got {A.shape}, {Y.shape}, "
            f"{A_test.shape}"
        )
    B, n, p = A.shape
    if Y.shape[:2] != (B, n) or A_test.shape[0] != B or A_test.shape[2] != p:
        raise ValueError(f"shapes do not match: A {A.shape}, Y {Y.shape}, A_test {A_test.shape}")
    if n < 3:
        raise ValueError(f"ridge with leave-one-out needs at least 3 training rows, got {n}")
    if alphas.ndim != 1 or alphas.size < 1 or not np.all(alphas > 0):
        raise ValueError("alphas must be a non-empty 1-D array of positive penalties")
    for name, M in (("A", A), ("Y", Y), ("A_test", A_test)):
        if not np.isfinite(M).all():
            raise ValueError(f"{name} has missing or infinite cells; ridge needs complete rows")


def ridge_loo(
    A: np.ndarray, Y: np.ndarray, A_test: np.ndarray, alphas: np.ndarray = ALPHAS, block_bytes: int = BLOCK_BYTES
) -> RidgeBatch:
    """Fit ridge on each of B designs, penalty per target by exact leave-one-out CV, and predict the test rows.

    Parameters
    ----------
    A : ndarray (B, n, p)
        Training designs (features standardised inside, on the training rows).
    Y : ndarray (B, n, m) or (n, m)
        Training targets (a 2-D array is shared by every design).
    A_test : ndarray (B, n_test, p)
        Test designs (standardised with the training rows' mean and sd).
    alphas : ndarray
        The penalty grid.
    block_bytes : int
        Memory budget of one block of designs.

    Returns
    -------
    RidgeBatch

    Raises
    ------
    ValueError
        Mismatched shapes, fewer than 3 training rows, missing cells, or a non-positive penalty.
    """
    A = np.asarray(A, dtype=float)
    A_test = np.asarray(A_test, dtype=float)
    Y = np.asarray(Y, dtype=float)
    alphas = np.asarray(alphas, dtype=float)
    if Y.ndim == 2 and A.ndim == 3:
        Y = np.broadcast_to(Y, (A.shape[0], *Y.shape))
    _check(A, Y, A_test, alphas)
    B, n, p = A.shape
    m, na = Y.shape[2], alphas.size
    per = max(1, int(block_bytes // (8 * n * m * na * 2)))
    preds = np.empty((B, A_test.shape[1], m))
    best_alpha = np.empty((B, m))
    best_mse = np.empty((B, m))
    for b0 in range(0, B, per):
        sl = slice(b0, b0 + per)
        preds[sl], best_alpha[sl], best_mse[sl] = _block(A[sl], Y[sl], A_test[sl], alphas)
    return RidgeBatch(preds, best_alpha, best_mse)


def _block(A: np.ndarray, Y: np.ndarray, A_test: np.ndarray, alphas: np.ndarray) -> tuple[np.ndarray, ...]:
    b, n, p = A.shape
    m, na = Y.shape[2], alphas.size
    mu = A.mean(axis=1, keepdims=True)
    sd = A.std(axis=1, keepdims=True)
    sd = np.where(sd < 1e-12, 1.0, sd)
    Z = (A - mu) / sd
    ybar = Y.mean(axis=1, keepdims=True)
    Yc = Y - ybar
    U, s, Vt = np.linalg.svd(Z, full_matrices=False)  # (b, n, q), (b, q), (b, q, p)
    C = np.einsum("bnq,bnm->bqm", U, Yc)  # U^T Yc
    s2 = s**2
    d = s2[:, :, None] / (s2[:, :, None] + alphas)  # (b, q, na): shrinkage of each direction
    H = 1.0 / n + np.matmul(U**2, d)  # leverage for each alpha
    q = s.shape[1]
    DC = (d[:, :, None, :] * C[:, :, :, None]).reshape(b, q, m * na)
    fitted = np.matmul(U, DC).reshape(b, n, m, na)  # centred fitted values
    room = 1.0 - H  # (b, n, na)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv2 = np.where(room > 1e-12, 1.0 / room, np.inf) ** 2  # leverage 1: no leave-one-out fit
    resid = Yc[..., None] - fitted
    resid *= resid
    mse = np.einsum("bnma,bna->bma", resid, inv2) / n  # (b, m, na): mean squared LOO residual
    pick = np.argmin(mse, axis=2)  # first minimum: the smallest alpha among ties
    a_star = alphas[pick]  # (b, m)
    f = s[:, :, None] / (s2[:, :, None] + a_star[:, None, :])  # (b, q, m)
    coef = np.einsum("bqp,bqm->bpm", Vt, f * C)
    Zt = (A_test - mu) / sd
    pred = np.matmul(Zt, coef) + ybar
    return pred, a_star, np.take_along_axis(mse, pick[..., None], axis=2)[..., 0]
