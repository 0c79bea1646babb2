"""Effective dimensionality of a leaderboard: Theorem 1 and its Marchenko–Pastur correction.

The paper's §3 (d_eff, Theorem 1, Table 1); Theorem 1(c) with App. B and App. D.1 (the MP edge,
n_sig, d_eff^MP; Marchenko & Pastur 1967); the correlation-method check of App. H.6.

The participation ratio of the eigenvalues lambda_1 >= ... >= lambda_k of the benchmark
correlation matrix Sigma is

    d_eff = (sum_i lambda_i)^2 / sum_i lambda_i^2                      (Theorem 1, eq. for d_eff)

which equals k^2 / ||Sigma||_F^2 for a Pearson or Spearman matrix (trace k). For Kendall's
sin(pi tau / 2) matrix, or after dropping eigenvalues, only the general ratio is right.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats
from tqdm import tqdm  # a text bar: in a notebook kernel tqdm.auto would want ipywidgets

from blindspot.core.conventions import ArrayLike, as_matrix
from dkps.threads import single_blas_thread

__all__ = [
    "correlation_stack",
    "METHODS",
    "Spectrum",
    "MPCorrection",
    "BootstrapDeff",
    "correlation",
    "kendall_tau_b",
    "participation_ratio",
    "spectrum",
    "d_eff",
    "mp_edges",
    "mp_density",
    "mp_correction",
    "bootstrap_d_eff",
    "deff_methods",
    "null_eigenvalues",
    "resample_weights",
    "resample_counts",
    "resample_batch",
    "resampled_moments",
    "resampled_factors",
    "resampled_correlations",
    "correlation_eigenvalues",
    "spectrum_any_shape",
    "RESAMPLE_BYTES",
]

Method = Literal["pearson", "spearman", "kendall_sin", "kendall_raw"]
METHODS: tuple[str, ...] = ("pearson", "spearman", "kendall_sin", "kendall_raw")


@dataclass(frozen=True)
class Spectrum:
    """Eigen-summary of a benchmark correlation matrix.

    Attributes
    ----------
    eigenvalues : ndarray
        Descending eigenvalues of the correlation matrix.
    d_eff : float
        Participation ratio (sum lambda)^2 / sum lambda^2 (Theorem 1).
    method : str
        Correlation method (``pearson``, ``spearman``, ``kendall_sin``, ``kendall_raw``).
    n_models, n_benchmarks : int
        Shape of the score matrix.
    min_eigenvalue : float
        Smallest eigenvalue; negative means the matrix is not PSD (possible for Kendall sin).
    """

    eigenvalues: np.ndarray
    d_eff: float
    method: str
    n_models: int
    n_benchmarks: int

    @property
    def min_eigenvalue(self) -> float:
        return float(self.eigenvalues[-1])

    @property
    def is_psd(self) -> bool:
        return bool(self.eigenvalues[-1] >= -1e-10)

    @property
    def explained(self) -> np.ndarray:
        """Fraction of the trace carried by each eigenvalue."""
        return self.eigenvalues / self.eigenvalues.sum()


@dataclass(frozen=True)
class MPCorrection:
    """Marchenko–Pastur noise correction (Theorem 1(c); Marchenko & Pastur 1967).

    gamma = k/n, lambda_pm = (1 +- sqrt(gamma))^2; n_sig = #{lambda_i > lambda_+};
    d_eff^MP = participation ratio of the eigenvalues above lambda_+. It is *undefined* when no
    eigenvalue exceeds the edge (``defined`` is False and ``d_eff_mp`` is NaN by definition,
    with ``reason`` saying why), and exactly 1 when n_sig = 1.
    """

    gamma: float
    lambda_minus: float
    lambda_plus: float
    n_sig: int
    d_eff_mp: float
    defined: bool
    reason: str


@dataclass(frozen=True)
class BootstrapDeff:
    """Percentile bootstrap of d_eff over model rows (Theorem 1, Table 1: B resamples, 2.5/97.5 percentiles).

    ``n_degenerate`` counts resamples with every column constant (NaN in ``samples``, left out of
    the percentiles).
    """

    point: float
    lo: float
    hi: float
    samples: np.ndarray
    level: float
    n_boot: int
    seed: int
    method: str
    n_degenerate: int = 0

    @property
    def contains_point(self) -> bool:
        return bool(self.lo <= self.point <= self.hi)


def _rank_columns(X: np.ndarray, axis: int) -> np.ndarray:
    return stats.rankdata(X, axis=axis)


def correlation(S: ArrayLike, method: Method = "pearson") -> np.ndarray:
    """The k x k benchmark correlation matrix (Pearson, as the paper's code; the rank variants of App. H.6).

    ``pearson``: np.corrcoef(S, rowvar=False). ``spearman``: Pearson of column ranks (average
    ties; equals scipy.stats.spearmanr). ``kendall_raw``: the tau-b matrix. ``kendall_sin``:
    sin(pi tau_b / 2), the Gaussian-consistent Kendall correlation (may be non-PSD).

    Raises
    ------
    ValueError
        Unknown method, missing cells, fewer than 3 rows or 2 columns, or a constant column.
    """
    if method not in METHODS:
        raise ValueError(f"unknown correlation method {method!r}; choose one of {METHODS}")
    X = as_matrix(S)
    sd = X.std(axis=0)
    if (sd < 1e-12).any():
        cols = np.flatnonzero(sd < 1e-12).tolist()
        raise ValueError(f"column(s) {cols} are constant: their correlation is undefined; drop them first")
    if method == "pearson":
        return np.corrcoef(X, rowvar=False)
    if method == "spearman":
        return np.corrcoef(_rank_columns(X, axis=0), rowvar=False)
    T = kendall_tau_b(X)
    return np.sin(np.pi * T / 2.0) if method == "kendall_sin" else T


def kendall_tau_b(X: np.ndarray, chunk_pairs: int = 4_000_000) -> np.ndarray:
    """The k x k matrix of Kendall's tau-b between the columns of X, all pairs at once.

    With s_c(i, j) = sign(x_ic - x_jc) over the model pairs i < j, tau-b is the cosine of two columns'
    sign vectors: tau_b(c, d) = sum s_c s_d / sqrt(sum s_c^2 sum s_d^2) = (P - Q) / sqrt((P + Q + T_c)(P + Q + T_d))
    (Kendall 1945; equals :func:`scipy.stats.kendalltau`, variant 'b'). The sign vectors are built a block
    of rows at a time (about ``chunk_pairs`` pairs), so memory stays bounded for any n.

    Parameters
    ----------
    X : ndarray
        Models x benchmarks (n >= 2, no NaN).
    chunk_pairs : int
        Model pairs per block.

    Returns
    -------
    ndarray
        Symmetric, unit diagonal (a constant column gives NaN in its row and column).
    """
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    num = np.zeros((k, k))
    rows = max(1, chunk_pairs // max(n, 1))
    for r0 in range(0, n - 1, rows):
        i = np.arange(r0, min(n - 1, r0 + rows))
        diff = X[i, None, :] - X[None, :, :]  # (rows, n, k); only pairs j > i are kept
        keep = np.arange(n)[None, :] > i[:, None]
        sg = np.sign(diff[keep]).astype(np.float32)
        num += (sg.T @ sg).astype(float)
    norm = np.sqrt(np.diagonal(num))
    with np.errstate(invalid="ignore", divide="ignore"):
        T = num / np.outer(norm, norm)
    np.fill_diagonal(T, 1.0)
    return T


def participation_ratio(eigenvalues: np.ndarray) -> np.ndarray | float:
    """(sum lambda)^2 / sum lambda^2 along the last axis (Theorem 1).

    Works on one vector or a stack (B, k). Raises ValueError when all eigenvalues are zero.
    """
    lam = np.asarray(eigenvalues, dtype=float)
    den = (lam**2).sum(axis=-1)
    if np.any(den <= 0):
        raise ValueError("participation ratio undefined: all eigenvalues are zero")
    out = lam.sum(axis=-1) ** 2 / den
    return float(out) if np.ndim(out) == 0 else out


def spectrum(S: ArrayLike, method: Method = "pearson") -> Spectrum:
    """Eigenvalues and d_eff of the benchmark correlation matrix of S (Theorem 1)."""
    X = as_matrix(S)
    C = correlation(X, method)
    lam = np.linalg.eigvalsh(C)[::-1]
    return Spectrum(lam, participation_ratio(lam), method, X.shape[0], X.shape[1])


def d_eff(S: ArrayLike, method: Method = "pearson") -> float:
    """Effective dimensionality d_eff = (sum lambda)^2 / sum lambda^2 of corr(S) (Theorem 1)."""
    return spectrum(S, method).d_eff


def mp_edges(n: int, k: int) -> tuple[float, float]:
    """Marchenko–Pastur bulk edges lambda_pm = (1 +- sqrt(k/n))^2 (Theorem 1(c); Marchenko & Pastur 1967)."""
    if n < 1 or k < 1:
        raise ValueError(f"need n >= 1 and k >= 1, got n={n}, k={k}")
    g = k / n
    return (1 - np.sqrt(g)) ** 2, (1 + np.sqrt(g)) ** 2


def mp_density(lam: np.ndarray, gamma: float) -> np.ndarray:
    """Marchenko–Pastur density f(lambda) = sqrt((l+ - l)(l - l-)) / (2 pi gamma l) on [l-, l+], 0 outside.

    For gamma <= 1 (k <= n), the law of the eigenvalues of the sample correlation of i.i.d. columns.
    """
    if not 0 < gamma <= 1:
        raise ValueError(f"mp_density needs 0 < gamma <= 1 (k <= n), got {gamma}")
    lam = np.asarray(lam, dtype=float)
    lo, hi = (1 - np.sqrt(gamma)) ** 2, (1 + np.sqrt(gamma)) ** 2
    inside = (lam > lo) & (lam < hi)
    out = np.zeros_like(lam)
    l_in = lam[inside]
    out[inside] = np.sqrt((hi - l_in) * (l_in - lo)) / (2 * np.pi * gamma * l_in)
    return out


def mp_correction(S: ArrayLike | Spectrum, n: int | None = None) -> MPCorrection:
    """n_sig and d_eff^MP: the participation ratio of the eigenvalues above the MP edge (Theorem 1(c)).

    Parameters
    ----------
    S : score matrix or Spectrum
        The data, or an already computed :class:`Spectrum` (its n_models is used for n).
    """
    sp = S if isinstance(S, Spectrum) else spectrum(S)
    n = sp.n_models if n is None else n
    k = sp.n_benchmarks
    lo, hi = mp_edges(n, k)
    sig = sp.eigenvalues[sp.eigenvalues > hi]
    if sig.size == 0:
        return MPCorrection(
            k / n, lo, hi, 0, float("nan"), False, f"no eigenvalue exceeds the MP edge {hi:.3f}: d_eff^MP is undefined"
        )
    return MPCorrection(
        k / n,
        lo,
        hi,
        int(sig.size),
        participation_ratio(sig),
        True,
        f"{sig.size} eigenvalue(s) above the MP edge {hi:.3f}",
    )


def correlation_stack(Xb: np.ndarray) -> np.ndarray:
    """Pearson correlation of each (n, k) slice of a (B, n, k) stack; zero-variance columns -> zero row/col."""
    Xc = Xb - Xb.mean(axis=1, keepdims=True)
    sd = np.sqrt((Xc**2).mean(axis=1))  # (B, k)
    ok = sd > 1e-12
    Z = Xc / np.where(ok, sd, 1.0)[:, None, :]
    C = np.matmul(Z.transpose(0, 2, 1), Z) / Xb.shape[1]  # batched BLAS
    return C * (ok[:, :, None] & ok[:, None, :])


def resample_weights(idx: np.ndarray, n: int) -> np.ndarray:
    """Row counts W (B, n) of the resamples ``idx`` (B, n): W[b, i] = #{t : idx[b, t] = i}."""
    B = idx.shape[0]
    return np.bincount((idx + n * np.arange(B)[:, None]).ravel(), minlength=B * n).reshape(B, n).astype(float)


def _resample_corr_pearson(Xc: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """Pearson correlation matrices (B, k, k) of the row resamples ``idx`` (B, n) of centred data Xc.

    A resample is a vector of row counts w (sum n), so its moments are weighted sums:
    mean_b = w_b X / n and E_b[x_i x_j] = w_b P / n with P the (n, k*k) row-wise outer products.
    Both are single matrix products over all resamples (one BLAS GEMM), with no (B, n, k) gather.
    A column constant inside a resample gets a zero row and column (it is dropped).
    """
    B, n = idx.shape
    k = Xc.shape[1]
    W = resample_weights(idx, n)
    mean = W @ Xc / n
    P = (Xc[:, :, None] * Xc[:, None, :]).reshape(n, k * k)
    cov = (W @ P / n).reshape(B, k, k) - mean[:, :, None] * mean[:, None, :]
    var = np.diagonal(cov, axis1=1, axis2=2)
    # E[x^2] - mean^2 carries rounding of order eps * E[x^2]: a column is constant in a resample
    # when its variance is below 1e-10 of its raw second moment.
    m2 = np.diagonal(cov, axis1=1, axis2=2) + mean**2
    ok = var > 1e-10 * m2
    sd = np.sqrt(np.where(ok, var, 1.0))
    C = cov / (sd[:, :, None] * sd[:, None, :])
    return C * (ok[:, :, None] & ok[:, None, :])


#: Bytes one batch of resampling work may hold (counts, products, correlation stacks); the
#: batch and row-chunk sizes follow from it, never the results.
RESAMPLE_BYTES = 128 * 2**20


def resample_counts(rng: np.random.Generator, n: int, m: int) -> np.ndarray:
    """Row counts (m, n) of m bootstrap resamples of n rows, compactly (uint8, or uint16 if a count exceeds 255).

    Resample b draws ``rng.integers(0, n, n)`` in turn: the stream of the paper's per-resample loop.
    One byte per model and resample instead of the 8 of an index array, so a thousand resamples of
    100,000 models take 100 MB.
    """
    out = np.empty((m, n), dtype=np.uint8)
    for b in range(m):
        c = np.bincount(rng.integers(0, n, n), minlength=n)
        if c.max() > 255 and out.dtype == np.uint8:
            out = out.astype(np.uint16)
        out[b] = c
    return out


def resampled_moments(Xc: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted means (B, k) and raw second moments (B, k, k) of the rows of Xc under row counts (B, n).

    E_b[x] = w_b X / n and E_b[x x^T] = sum_i w_bi x_i x_i^T / n: one GEMM of the counts with the
    row-wise products x_i x_j (upper triangle only), summed over chunks of rows so that memory stays
    about :data:`RESAMPLE_BYTES` whatever n: no (n, k^2) product, no (B, n, k) gather. Time
    O(B n k^2 / 2), the cost of the resampled moments themselves.

    The products of a chunk are multiplied in single precision (the counts are small integers,
    exact in float32) and accumulated over chunks in double: twice the speed of the double GEMM,
    and an error on the resulting correlations of order 1e-7 (the test checks 1e-6 against the
    double computation), far below the bootstrap's own Monte Carlo error (1e-2). ``Xc`` must be
    centred, so the products carry no large common offset.
    """
    B, n = counts.shape
    k = Xc.shape[1]
    iu, ju = np.triu_indices(k)
    m = iu.size
    rows = int(max(1, RESAMPLE_BYTES // (4 * (3 * m + B + k))))
    mean = np.zeros((B, k))
    second = np.zeros((B, m))
    X32 = Xc.astype(np.float32)
    for r0 in range(0, n, rows):
        Xr = X32[r0 : r0 + rows]
        Wr = counts[:, r0 : r0 + rows].astype(np.float32)
        mean += Wr @ Xr
        second += Wr @ (Xr[:, iu] * Xr[:, ju])
    full = np.empty((B, k, k))
    full[:, iu, ju] = second / n
    full[:, ju, iu] = second / n
    return mean / n, full


def _corr_from_moments(mean: np.ndarray, second: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Correlations (B, k, k) from weighted means and raw second moments; columns constant in a resample zeroed."""
    cov = second - mean[:, :, None] * mean[:, None, :]
    var = np.diagonal(cov, axis1=1, axis2=2)
    ok = var > 1e-10 * np.diagonal(second, axis1=1, axis2=2)
    sd = np.sqrt(np.where(ok, var, 1.0))
    C = cov / (sd[:, :, None] * sd[:, None, :])
    return C * (ok[:, :, None] & ok[:, None, :]), ok


def resampled_correlations(Xc: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pearson correlation matrices (B, k, k) of the resamples with row counts (B, n), and the ok mask (B, k).

    Built from :func:`resampled_moments` (memory linear in n). Columns constant in a resample get a
    zero row and column. ``Xc`` should be centred (for accuracy of the moment formula).
    """
    return _corr_from_moments(*resampled_moments(Xc, counts))


def resampled_factors(Xc: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Factors F (B, n, k) with F_b^T F_b = the correlation matrix of resample b, and the ok mask (B, k).

    F_b = diag(sqrt(w_b / n)) Z_b with Z_b the columns of X standardised by the resample's weighted
    mean and sd (ddof 0): the k x k correlation never has to be formed, so a resample costs O(n k)
    memory when there are more benchmarks than models. Columns constant in the resample are zero.
    """
    W = counts.astype(float)
    n = W.shape[1]
    mean = W @ Xc / n
    second = W @ (Xc * Xc) / n
    var = second - mean**2
    ok = var > 1e-10 * second
    sd = np.sqrt(np.where(ok, var, 1.0))
    Z = (Xc[None, :, :] - mean[:, None, :]) / sd[:, None, :] * ok[:, None, :]
    return Z * np.sqrt(W / n)[:, :, None], ok


def _participation_or_nan(lam: np.ndarray) -> np.ndarray:
    den = (lam**2).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, lam.sum(axis=-1) ** 2 / np.where(den > 0, den, 1.0), np.nan)


def resample_batch(n: int, k: int, kind: str, limit: int) -> int:
    """Resamples per batch so that a batch holds about :data:`RESAMPLE_BYTES`.

    ``kind``: 'gather' (Spearman: the (n, k) resample and its ranks), 'factors' (k > n: the n x k
    factors and the n x n Gram), 'moments' (k <= n: one byte of counts per model plus the k x k
    stacks), 'indices' (the per-resample index path of the paper's loop: 8 bytes per index and the
    (n, k*k) product is held once).
    """
    if kind == "gather":
        per = 8 * (2 * n + 4 * n * k)
    elif kind == "factors":
        per = 8 * (2 * n + 3 * n * k + n * n)
    elif kind == "moments":
        per = n + 8 * 4 * k * k
    else:
        per = 8 * (4 * n + 4 * k * k)
    return int(max(1, min(limit, RESAMPLE_BYTES // per)))


@single_blas_thread(openmp=True)
def bootstrap_d_eff(
    S: ArrayLike,
    n_boot: int = 300,
    seed: int = 0,
    level: float = 0.95,
    method: Literal["pearson", "spearman"] = "pearson",
    batch: int = 1000,
    progress: bool = False,
) -> BootstrapDeff:
    """Percentile bootstrap CI of d_eff, resampling model rows with replacement (the CIs of Table 1).

    The resampled correlation matrices are built as matrix products over all resamples of a batch
    (Pearson: weighted moments from row counts, one GEMM; Spearman: ranks of the gathered rows)
    and their eigenvalues come from one ``np.linalg.eigvalsh`` call per batch of ``batch``
    resamples (no per-resample Python loop). A column that is constant inside a resample is dropped from that
    resample (its row and column are zeroed, contributing no eigenvalue), as in the paper's code.
    Indices come from ``default_rng(seed).integers(0, n, n)`` per resample, drawn batch by batch.

    Memory stays bounded (about :data:`RESAMPLE_BYTES` per batch, independent of the number of
    resamples and linear in n): when the (n, k^2) moment products would not fit, the moments come
    from :func:`resampled_moments` (row counts in one byte, products summed over row chunks);
    with more benchmarks than models (k > n) the participation ratio comes from the n x n Gram
    form, d_eff = (tr C)^2 / ||C||_F^2 with ||C||_F = ||F F^T||_F for the factors F of
    :func:`resampled_factors` (the nonzero eigenvalues of F^T F and F F^T agree), so no k x k
    matrix is formed. Every path gives the same numbers up to rounding.

    A resample in which every column is constant (possible with a handful of models) has no
    d_eff; it is left out of the percentiles (``samples`` holds NaN for it). More than half of
    them raises.
    """
    if method not in ("pearson", "spearman"):
        raise ValueError(f"bootstrap supports method='pearson' or 'spearman', got {method!r}")
    if n_boot < 2:
        raise ValueError(f"n_boot must be at least 2, got {n_boot}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    X = as_matrix(S)
    n, k = X.shape
    point = d_eff(X, method) if (method == "spearman" or k <= n) else _d_eff_gram(X)
    rng = np.random.default_rng(seed)
    out = np.empty(n_boot)
    Xc = X - X.mean(axis=0)
    fits = 8 * n * k * k <= RESAMPLE_BYTES
    if method == "spearman":
        kind = "gather"
    elif k > n:
        kind = "factors"
    else:
        kind = "indices" if fits else "moments"
    step = resample_batch(n, k, kind, batch if kind != "moments" else n_boot)
    starts = range(0, n_boot, step)
    if progress:
        starts = tqdm(starts, desc="bootstrap d_eff", unit="batch")
    for s in starts:
        m = min(step, n_boot - s)
        if kind == "moments":
            mean, second = resampled_moments(Xc, resample_counts(rng, n, m))
            out[s : s + m] = _participation_or_nan(np.linalg.eigvalsh(_corr_from_moments(mean, second)[0]))
            continue
        # one draw of n indices per resample, in sequence: the same stream as the paper's loop
        idx = np.stack([rng.integers(0, n, n) for _ in range(m)])
        if kind == "gather":
            lam = np.linalg.eigvalsh(correlation_stack(_rank_columns(X[idx], axis=1)))
            out[s : s + m] = _participation_or_nan(lam)
        elif kind == "factors":
            F, ok = resampled_factors(Xc, resample_weights(idx, n))
            G = F @ np.swapaxes(F, 1, 2)
            fro = (G**2).sum(axis=(1, 2))
            tr = ok.sum(axis=1).astype(float)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[s : s + m] = np.where(fro > 0, tr**2 / np.where(fro > 0, fro, 1.0), np.nan)
        else:
            out[s : s + m] = _participation_or_nan(np.linalg.eigvalsh(_resample_corr_pearson(Xc, idx)))
    good = np.isfinite(out)
    if good.sum() < max(2, n_boot / 2):
        raise ValueError(
            f"{int((~good).sum())} of {n_boot} bootstrap resamples of the {n} models have every benchmark constant: "
            f"too few models for a bootstrap of d_eff"
        )
    a = (1 - level) / 2 * 100
    lo, hi = np.percentile(out[good], [a, 100 - a])
    return BootstrapDeff(point, float(lo), float(hi), out, level, n_boot, seed, method, int((~good).sum()))


def _d_eff_gram(X: np.ndarray) -> float:
    """d_eff of corr(X) from the n x n Gram matrix of the standardised rows (for k > n); see :func:`correlation_eigenvalues`."""
    return participation_ratio(correlation_eigenvalues(X))


def correlation_eigenvalues(S: ArrayLike) -> np.ndarray:
    """Descending eigenvalues of the Pearson correlation matrix, from the cheaper side.

    With k <= n: ``eigvalsh`` of the k x k matrix (as :func:`spectrum`). With k > n: the nonzero
    eigenvalues of C = Z^T Z / n equal those of the n x n Gram matrix Z Z^T / n (Z standardised,
    ddof 0), padded with k - n zeros: O(n^2 k) instead of O(k^3).

    Raises
    ------
    ValueError
        Bad scores or a constant column (as :func:`correlation`).
    """
    X = as_matrix(S)
    n, k = X.shape
    if k <= n:
        return np.linalg.eigvalsh(correlation(X))[::-1]
    sd = X.std(axis=0)
    if (sd < 1e-12).any():
        cols = np.flatnonzero(sd < 1e-12).tolist()
        raise ValueError(f"column(s) {cols} are constant: their correlation is undefined; drop them first")
    Z = (X - X.mean(axis=0)) / sd
    lam = np.clip(np.linalg.eigvalsh(Z @ Z.T / n)[::-1], 0.0, None)
    return np.concatenate([lam, np.zeros(k - n)])


def spectrum_any_shape(S: ArrayLike) -> Spectrum:
    """:func:`spectrum` (Pearson) computed from the cheaper side (:func:`correlation_eigenvalues`)."""
    X = as_matrix(S)
    lam = correlation_eigenvalues(X)
    return Spectrum(lam, participation_ratio(lam), "pearson", X.shape[0], X.shape[1])


def deff_methods(S: ArrayLike) -> dict[str, Spectrum]:
    """d_eff under every correlation method, with each matrix's minimum eigenvalue (App. H.6)."""
    return {m: spectrum(S, m) for m in METHODS}


def null_eigenvalues(n: int, k: int, n_rep: int = 200, seed: int = 0, batch: int = 500) -> np.ndarray:
    """Descending eigenvalues (n_rep, k) of correlation matrices of i.i.d. N(0, 1) data, n x k.

    The null reference of the Marchenko–Pastur correction (the MP law describes covariances of i.i.d.
    columns; for a correlation matrix at small n it is only approximate): batched, one
    ``eigvalsh`` call per batch.
    """
    if n < 3 or k < 2 or n_rep < 1:
        raise ValueError(f"need n >= 3, k >= 2 and n_rep >= 1, got n={n}, k={k}, n_rep={n_rep}")
    rng = np.random.default_rng(seed)
    out = np.empty((n_rep, k))
    for s in range(0, n_rep, batch):
        m = min(batch, n_rep - s)
        out[s : s + m] = np.linalg.eigvalsh(correlation_stack(rng.standard_normal((m, n, k))))[:, ::-1]
    return out
