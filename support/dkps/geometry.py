"""Score-free geometry: Zhu–Ghodsi elbows, per-suite PCA blocks, classical MDS, distance completion.

PCA with unit normalisation per suite, the shortest-path completion of unconnected pairs, classical
MDS (Torgerson 1952) and the Zhu–Ghodsi profile-likelihood elbow (Zhu & Ghodsi 2006), searched twice
as in the original dkps (graspologic's ``select_dimension`` with ``n_elbows=2``).
"""

from __future__ import annotations

import hashlib
import math
import warnings
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from scipy.sparse.csgraph import csgraph_from_dense, shortest_path

__all__ = [
    "profile_loglik",
    "zhu_ghodsi",
    "PCABasis",
    "fit_pca",
    "classical_mds",
    "MDSResult",
    "complete_distances",
]

_TIE = 1e-9
_GRAM_ROWS = 20000
_PCA_MEMO: OrderedDict[tuple, PCABasis] = OrderedDict()  # the last few bases fitted in this process
_PCA_MEMO_SIZE = 4


def profile_loglik(values: np.ndarray) -> np.ndarray:
    r"""Profile log-likelihood of every split of a scree (Zhu & Ghodsi 2006, Computational Statistics & Data Analysis 51(2)).

    For values :math:`\lambda_1\ge\dots\ge\lambda_p` and a split point :math:`q\in\{1..p\}`, the
    first :math:`q` values are :math:`N(\mu_1,\sigma^2)` and the rest :math:`N(\mu_2,\sigma^2)` with
    the pooled variance :math:`\sigma^2(q) = \mathrm{SS}_{within}(q)/(p-2)` for :math:`q<p`; the
    split :math:`q=p` puts all values in one group with :math:`\sigma^2 = \mathrm{SS}/(p-1)`.
    Then :math:`\ell(q) = -\tfrac p2\log(2\pi\sigma^2) - \mathrm{SS}/(2\sigma^2)`
    (:math:`+\infty` when :math:`\sigma^2 = 0`). The split of two values into two singletons is
    excluded (:math:`-\infty`).

    Returns
    -------
    ndarray of shape (p,)
        :math:`\ell(1), \dots, \ell(p)`.
    """
    v = np.asarray(values, dtype=float)
    p = v.size
    out = np.full(p, -np.inf)
    if p < 2:
        return out
    csum = np.cumsum(v)
    csq = np.cumsum(v * v)
    for q in range(1, p + 1):
        if q < p:
            if p == 2:
                continue  # two singletons
            s1, s2 = csum[q - 1], csum[-1] - csum[q - 1]
            ss = (csq[q - 1] - s1 * s1 / q) + ((csq[-1] - csq[q - 1]) - s2 * s2 / (p - q))
            denom = p - 2
        else:
            ss = csq[-1] - csum[-1] ** 2 / p
            denom = p - 1
        ss = max(ss, 0.0)
        scale = max(float(np.max(np.abs(v))) ** 2, 1e-300)
        if ss <= 1e-24 * scale * p:
            out[q - 1] = np.inf
            continue
        var = ss / denom
        out[q - 1] = -0.5 * p * math.log(2 * math.pi * var) - ss / (2 * var)
    return out


def _first_argmax(ll: np.ndarray) -> int:
    if np.isposinf(ll).any():
        return int(np.flatnonzero(np.isposinf(ll))[0])
    m = np.max(ll)
    return int(np.flatnonzero(ll >= m - _TIE * (abs(m) + 1.0))[0])


def zhu_ghodsi(values, n_elbows: int = 2) -> int:
    """Dimension from the Zhu–Ghodsi elbow(s) of a scree (Zhu & Ghodsi 2006; the second elbow by default, as in the original dkps).

    The first elbow is the split point :math:`\\hat q = \\arg\\max_q \\ell(q)` of
    :func:`profile_loglik` (first maximum wins). The search is repeated on the values after the
    previous elbow; the dimension is the cumulative index of the last elbow found.

    Parameters
    ----------
    values : array-like
        Scree values (singular values for PCA, eigenvalues for MDS); sorted descending here.
    n_elbows : int
        How many elbows to search (2 = the original package's rule, 1 = the first elbow).

    Returns
    -------
    int
        A dimension in ``1..len(values)``.

    Examples
    --------
    >>> zhu_ghodsi([10, 9, 8, 1, 0.9, 0.8]), zhu_ghodsi([100, 1, 0.5, 0.4, 0.3])
    (4, 2)
    >>> zhu_ghodsi([5, 1]), zhu_ghodsi([3, 3, 3])
    (2, 3)
    """
    v = np.sort(np.asarray(values, dtype=float).ravel())[::-1]
    if v.size == 0:
        raise ValueError("zhu_ghodsi needs at least one value")
    if not np.isfinite(v).all():
        raise ValueError("zhu_ghodsi values must be finite")
    if isinstance(n_elbows, bool) or not isinstance(n_elbows, (int, np.integer)) or n_elbows < 1:
        raise ValueError(f"n_elbows must be an int >= 1, got {n_elbows!r}")
    start, last = 0, 1
    for _ in range(int(n_elbows)):
        rest = v[start:]
        if rest.size == 0:
            break
        if rest.size == 1:
            if start == 0:
                last = 1
            break
        q = _first_argmax(profile_loglik(rest)) + 1
        start += q
        last = start
    return int(last)


@dataclass(frozen=True)
class PCABasis:
    """A frozen per-suite reduction ``z = (x - mean) @ components``, then optional unit norm.

    ``components is None`` means raw vectors (``pca_dim=None``, or fewer than 2 rows / rank 0).
    """

    mean: np.ndarray | None
    components: np.ndarray | None
    normalize: bool
    dim_in: int
    singular_values: np.ndarray | None = None

    @property
    def dim(self) -> int:
        return self.dim_in if self.components is None else int(self.components.shape[1])

    def transform(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != self.dim_in:
            raise ValueError(f"expected vectors of dimension {self.dim_in}, got shape {X.shape}")
        Z = X if self.components is None else (X - self.mean) @ self.components
        if self.normalize:
            norms = np.linalg.norm(Z, axis=1, keepdims=True)
            Z = np.where(norms < 1e-12, 0.0, Z / np.where(norms < 1e-12, 1.0, norms))
        return np.ascontiguousarray(Z)


def fit_pca(X: np.ndarray, pca_dim="elbow", n_elbows: int = 2, normalize: bool = True) -> PCABasis:
    """Fit the per-suite reduction (PCA, then unit normalisation) on the rows ``X`` of one suite.

    SVD of the centred rows :math:`X-\\mu = U\\Sigma V^\\top` (for more than 20000 rows, the
    eigen-decomposition of the Gram matrix, which drops values below :math:`1.5\\cdot10^{-7}\\sigma_1`);
    keep :math:`\\sigma_k > 10^{-10}\\sigma_1`;
    ``pca_dim='elbow'`` takes :func:`zhu_ghodsi` of the singular values, an int caps at the rank,
    ``None`` keeps raw vectors (no centring).

    The last few bases are kept: a call with the same rows (byte for byte) and settings returns the same
    basis, read-only, without a second SVD (the estimators of one study fit the same rows many times).
    """
    X = np.ascontiguousarray(X, dtype=float)
    # Several estimators of one study fit the same rows (PKPS, DKPS, each Ensemble member): the basis
    # is a function of the bytes of X and the settings, so the last few are kept (read-only) and reused.
    key = (
        hashlib.blake2b(X.view(np.uint8), digest_size=16).digest(),
        X.shape,
        repr(pca_dim),
        int(n_elbows),
        bool(normalize),
    )
    hit = _PCA_MEMO.get(key)
    if hit is not None:
        _PCA_MEMO.move_to_end(key)
        return hit
    basis = _fit_pca(X, pca_dim, n_elbows, normalize)
    for a in (basis.mean, basis.components, basis.singular_values):
        if a is not None:
            a.setflags(write=False)
    _PCA_MEMO[key] = basis
    while len(_PCA_MEMO) > _PCA_MEMO_SIZE:
        _PCA_MEMO.popitem(last=False)
    return basis


def _fit_pca(X: np.ndarray, pca_dim, n_elbows: int, normalize: bool) -> PCABasis:
    X = np.asarray(X, dtype=float)
    d = X.shape[1]
    if pca_dim is None or X.shape[0] < 2:
        return PCABasis(None, None, normalize, d)
    mean = X.mean(axis=0)
    Xc = X - mean
    thr = 1e-10
    if Xc.shape[0] > _GRAM_ROWS and Xc.shape[0] > 8 * d:
        # tall input: eigen-decomposition of the d x d Gram matrix (sigma^2 = lambda). Values below
        # sqrt(eps) * sigma_1 are at the Gram route's noise floor and count as zero.
        lam, V = np.linalg.eigh(Xc.T @ Xc)
        order = np.argsort(-lam, kind="stable")
        s = np.sqrt(np.maximum(lam[order], 0.0))
        Vt = V[:, order].T
        thr = max(thr, np.sqrt(np.finfo(float).eps) * 10)
    else:
        _, s, Vt = np.linalg.svd(Xc, full_matrices=False)
    if s.size == 0 or s[0] <= 0:
        return PCABasis(None, None, normalize, d)
    rank = int(np.sum(s > thr * s[0]))
    if pca_dim == "elbow":
        q = zhu_ghodsi(s[:rank], n_elbows)
    else:
        q = min(int(pca_dim), rank)
    return PCABasis(mean, np.ascontiguousarray(Vt[:q].T), normalize, d, s[:rank].copy())


@dataclass(frozen=True)
class MDSResult:
    """Classical MDS output: ``coords`` (n x dim) and the sorted eigenvalues of B."""

    coords: np.ndarray
    eigenvalues: np.ndarray

    @property
    def dim(self) -> int:
        return int(self.coords.shape[1])


def classical_mds(D: np.ndarray, dim: int | None = 8, n_elbows: int = 2) -> MDSResult:
    r"""Classical (Torgerson) MDS of a distance matrix (Torgerson 1952; Borg & Groenen 2005, ch. 12).

    :math:`B = -\tfrac12 J (D\circ D) J`, :math:`J = I - \mathbf 1\mathbf 1^\top/n`;
    eigenpairs sorted descending; eigenvalues :math:`\lambda_k > 10^{-10}\max|\lambda|` are kept;
    ``d = min(dim, n-1, #positive)``; ``dim=None`` takes the Zhu–Ghodsi dimension of the largest
    :math:`\lceil\log_2 n\rceil` positive eigenvalues. Coordinates
    :math:`V_{:, :d}\,\mathrm{diag}(\sqrt{\lambda_{:d}})`, each column signed so its largest-magnitude
    entry is positive (first index wins ties).
    """
    D = np.asarray(D, dtype=float)
    n = D.shape[0]
    if n < 2:
        raise ValueError("classical MDS needs at least 2 models")
    if not np.isfinite(D).all():
        raise ValueError("classical MDS needs a finite distance matrix")
    J = np.eye(n) - 1.0 / n
    B = -0.5 * J @ (D * D) @ J
    B = 0.5 * (B + B.T)
    lam, V = np.linalg.eigh(B)
    order = np.argsort(-lam, kind="stable")
    lam, V = lam[order], V[:, order]
    top = np.max(np.abs(lam)) if lam.size else 0.0
    npos = int(np.sum(lam > 1e-10 * top)) if top > 0 else 0
    if dim is None:
        if npos == 0:
            d = 0
        else:
            m = min(npos, max(1, math.ceil(math.log2(n))))
            d = zhu_ghodsi(lam[:m], n_elbows)
    else:
        d = min(int(dim), n - 1, npos)
    X = V[:, :d] * np.sqrt(lam[:d])
    if d:
        idx = np.argmax(np.abs(X), axis=0)
        sign = np.sign(X[idx, np.arange(d)])
        sign[sign == 0] = 1.0
        X = X * sign
    return MDSResult(np.ascontiguousarray(X), lam)


def complete_distances(D: np.ndarray, warn: bool = True) -> tuple[np.ndarray, int]:
    """Fill NaN (unconnected) distances by shortest paths over the finite ones (Dijkstra; scipy.sparse.csgraph).

    Edges are the finite off-diagonal entries (zero-length edges included). Pairs still
    unreachable get ``2 * max finite distance`` and a :class:`UserWarning`.

    Returns
    -------
    (D_completed, n_unreachable_pairs)
    """
    D = np.array(D, dtype=float)
    np.fill_diagonal(D, 0.0)
    miss = np.isnan(D)
    if not miss.any():
        return D, 0
    W = np.where(miss, np.inf, D)
    np.fill_diagonal(W, np.inf)
    G = csgraph_from_dense(W, null_value=np.inf)
    P = shortest_path(G, method="D", directed=False)
    np.fill_diagonal(P, 0.0)
    out = np.where(miss, P, D)
    unreach = ~np.isfinite(out)
    n_unreach = int(np.sum(np.triu(unreach, 1)))
    if n_unreach:
        finite = out[np.isfinite(out)]
        fill = 2.0 * (float(finite.max()) if finite.size else 1.0)
        if fill == 0:
            fill = 1.0
        if warn:
            warnings.warn(
                f"{n_unreach} model pairs are not connected through any chain of comparable models; "
                f"their distance is set to 2 x the largest distance ({fill:.4g})",
                UserWarning,
                stacklevel=3,
            )
        out[unreach] = fill
    out = 0.5 * (out + out.T)
    return out, n_unreach
