r"""The original routing experiments' preprocessing: elbow PCA of the query space and of each suite's responses.

The query-aware routing experiments of the dkps repository do not route on raw embeddings. Before
any geometry they

- reduce the **query space** by a PCA whose dimension is the second Zhu–Ghodsi elbow of its
  singular values, searched among the first 64 (the query vectors are not renormalised);
- reduce the **responses of each suite** (each data set, or benchmark) by the same elbow rule among
  the first 48 singular values, scale every reduced response to unit length, and give each suite a
  disjoint block of coordinates, so that responses from different suites are orthogonal.

With centred rows :math:`X - \bar x = U \Sigma V^\top` and :math:`k = \min(k_{\max}, n - 1, d)`, the
kept dimension is :math:`q = \mathrm{ZG}_2(\sigma_1, \dots, \sigma_k)` (the second elbow of the
profile likelihood of Zhu & Ghodsi 2006, :func:`dkps.geometry.zhu_ghodsi`) and a row :math:`x` maps to

.. math::  z = (x - \bar x)\, V_{:, 1:q}, \qquad z \leftarrow z / \lVert z \rVert \text{ (responses only)}.

Here the bases are fitted on the **anchors only** (the original fits them on every row, the evaluation
queries' responses included, which leaks them into the basis), so a held-out query and its responses
are projected on a basis they did not shape. :class:`dkps.routing.Router` takes this as
``preprocess='elbow-pca'``; the default stays the raw embedding space.

References
----------
Zhu, M. & Ghodsi, A. (2006), *Automatic dimensionality selection from the scree plot via the use of
profile likelihood*, Computational Statistics & Data Analysis 51(2). The routing README and its
loaders in the dkps repository (``experiments/routing``, ``examples/helm/pipeline/loaders.py``);
the book's chapter "Routing to a behavioural stand-in".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..geometry import zhu_ghodsi
from .evaluation import PairedSuite

__all__ = [
    "QUERY_MAX_COMPONENTS",
    "RESPONSE_MAX_COMPONENTS",
    "ElbowPCA",
    "ResponseBlocks",
    "fit_elbow_pca",
    "fit_response_blocks",
    "elbow_pca_suite",
]

#: Largest query dimension the elbow is searched among (the original's cap).
QUERY_MAX_COMPONENTS = 64
#: Largest response dimension per suite the elbow is searched among (the original's cap).
RESPONSE_MAX_COMPONENTS = 48
_TINY = 1e-12


@dataclass(frozen=True)
class ElbowPCA:
    """A fitted elbow PCA: ``z = (x - mean) @ components``, then unit length if ``normalize``.

    Attributes
    ----------
    mean : ndarray of shape (d,)
        The mean of the rows it was fitted on.
    components : ndarray of shape (d, q)
        The first ``q`` right singular vectors of the centred rows, as columns.
    singular_values : ndarray of shape (k,)
        The ``k`` singular values the elbow was searched among.
    normalize : bool
        Whether :meth:`transform` scales each reduced row to unit length.
    """

    mean: np.ndarray
    components: np.ndarray
    singular_values: np.ndarray
    normalize: bool

    @property
    def dim(self) -> int:
        """The kept dimension ``q``."""
        return int(self.components.shape[1])

    def transform(self, X) -> np.ndarray:
        """Reduce rows to the fitted basis.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows in the space the basis was fitted in.

        Returns
        -------
        ndarray of shape (n, q)
            The reduced rows (unit length when ``normalize``; an all-zero row stays zero).

        Raises
        ------
        ValueError
            If the rows do not have the fitted dimension ``d`` or hold NaN or inf.
        """
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.mean.size:
            raise ValueError(f"expected rows of dimension {self.mean.size}, got shape {X.shape}")
        if not np.isfinite(X).all():
            raise ValueError("the rows to reduce hold NaN or inf; embed or drop them first")
        Z = (X - self.mean) @ self.components
        if self.normalize:
            norms = np.linalg.norm(Z, axis=1, keepdims=True)
            Z = np.where(norms > _TINY, Z / np.where(norms > _TINY, norms, 1.0), 0.0)
        return Z


def fit_elbow_pca(X, max_components: int, *, n_elbows: int = 2, normalize: bool = False) -> ElbowPCA:
    r"""Fit the elbow PCA of the routing experiments on the rows ``X``.

    .. math::  X - \bar x = U \Sigma V^\top,\quad k = \min(k_{\max}, n - 1, d),\quad
               q = \mathrm{ZG}_{n_\mathrm{elbows}}(\sigma_1..\sigma_k)

    (:func:`dkps.geometry.zhu_ghodsi`; ``q = k`` when ``k < 2``, too few values for an elbow).

    Parameters
    ----------
    X : array-like of shape (n, d)
        The rows to fit on (anchors only: a held-out row must not shape the basis).
    max_components : int
        ``k_max``, the most singular values the elbow is searched among (64 for queries, 48 for
        responses in the original).
    n_elbows : int, default=2
        Which elbow: the original takes the second.
    normalize : bool, default=False
        Scale every reduced row to unit length (the original does for responses, not for queries).

    Returns
    -------
    ElbowPCA

    Raises
    ------
    ValueError
        Fewer than two rows, NaN or inf, or a ``max_components`` below 1.

    References
    ----------
    Zhu & Ghodsi (2006); the routing loaders of the dkps repository; the book's chapter "Routing to a
    behavioural stand-in".

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> scales = [20, 20, 6, 6, 6, 1, 1, 1, 1, 1, 1, 1]  # two strong axes, three middle ones, noise
    >>> X = rng.normal(size=(200, 12)) * scales
    >>> fit_elbow_pca(X, 12).dim  # the first elbow after 2 values, the second after 5
    5
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"an elbow PCA needs at least 2 rows of a 2-D array, got shape {X.shape}")
    if not np.isfinite(X).all():
        raise ValueError("the rows of the elbow PCA hold NaN or inf; embed or drop them first")
    if isinstance(max_components, (bool, np.bool_)) or int(max_components) != max_components or max_components < 1:
        raise ValueError(f"max_components must be an integer >= 1, got {max_components!r}")
    n, d = X.shape
    mean = X.mean(axis=0)
    _, S, Vt = np.linalg.svd(X - mean, full_matrices=False)
    k = int(min(max_components, n - 1, d))
    S = S[:k]
    q = k if k < 2 else min(k, max(1, zhu_ghodsi(S, n_elbows)))
    return ElbowPCA(mean=mean, components=Vt[:q].T.copy(), singular_values=S.copy(), normalize=bool(normalize))


@dataclass(frozen=True)
class ResponseBlocks:
    """One unit-length elbow PCA per suite, each in its own block of coordinates.

    Attributes
    ----------
    suites : tuple of str
        The suites, in block order.
    bases : tuple of ElbowPCA
        The basis of each suite.
    offsets : tuple of int
        The first coordinate of each suite's block.
    """

    suites: tuple
    bases: tuple
    offsets: tuple

    @property
    def dim(self) -> int:
        """The total dimension (the sum of the blocks')."""
        return int(self.offsets[-1] + self.bases[-1].dim)

    def transform(self, X, suites: Sequence) -> np.ndarray:
        """Each row reduced by its suite's basis, in that suite's block (zeros elsewhere).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Response rows.
        suites : sequence of length n
            The suite of each row.

        Returns
        -------
        ndarray of shape (n, dim)

        Raises
        ------
        ValueError
            A row of a suite the blocks were not fitted on, or ``suites`` of the wrong length.
        """
        X = np.asarray(X, dtype=np.float64)
        s = np.asarray(suites, dtype=object)
        if X.ndim != 2 or s.shape != (X.shape[0],):
            raise ValueError(f"give one suite per response row: {X.shape[0]} rows, {s.size} suites")
        unknown = sorted(set(s.tolist()) - set(self.suites), key=str)
        if unknown:
            raise ValueError(f"suite {unknown[0]!r} has no fitted response block; fit on records of that suite")
        out = np.zeros((X.shape[0], self.dim))
        for name, basis, off in zip(self.suites, self.bases, self.offsets):
            rows = s == name
            if rows.any():
                out[np.ix_(rows, np.arange(off, off + basis.dim))] = basis.transform(X[rows])
        return out


def fit_response_blocks(X, suites: Sequence, max_components: int = RESPONSE_MAX_COMPONENTS) -> ResponseBlocks:
    """Fit one unit-length elbow PCA per suite on its response rows, blocks in sorted suite order.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Anchor response rows.
    suites : sequence of length n
        The suite of each row (one block per distinct value).
    max_components : int, default=48
        The cap of each suite's elbow search.

    Returns
    -------
    ResponseBlocks

    Raises
    ------
    ValueError
        As :func:`fit_elbow_pca` for any suite (a suite with a single response row cannot be reduced).

    References
    ----------
    The routing loaders of the dkps repository (one disjoint, unit-normalised block per data set); the
    book's chapter "Routing to a behavioural stand-in".
    """
    X = np.asarray(X, dtype=np.float64)
    s = np.asarray(suites, dtype=object)
    if X.ndim != 2 or s.shape != (X.shape[0],):
        raise ValueError(f"give one suite per response row: {X.shape[0]} rows, {s.size} suites")
    names = tuple(sorted(set(s.tolist()), key=str))
    bases, offsets, off = [], [], 0
    for name in names:
        b = fit_elbow_pca(X[s == name], max_components, normalize=True)
        bases.append(b)
        offsets.append(off)
        off += b.dim
    return ResponseBlocks(names, tuple(bases), tuple(offsets))


def elbow_pca_suite(
    suite: PairedSuite,
    anchor: np.ndarray,
    *,
    query_components: int = QUERY_MAX_COMPONENTS,
    response_components: int = RESPONSE_MAX_COMPONENTS,
) -> PairedSuite:
    """A paired suite in the original's preprocessed space, with both bases fitted on ``anchor`` only.

    The query basis is fitted on the anchor queries, the response basis (one suite) on every model's
    anchor responses; every query and response (held-out ones included, which the metric reads) is
    then projected, so leave-query-out holds: no held-out response shapes a basis.

    Parameters
    ----------
    suite : PairedSuite
        The raw suite.
    anchor : int array
        Anchor query positions (the split's).
    query_components, response_components : int
        The caps of the two elbow searches (64 and 48 in the original).

    Returns
    -------
    PairedSuite
        Same models, queries, tasks and scores; reduced ``U`` and reduced, unit-length ``X``.

    Raises
    ------
    ValueError
        Fewer than two anchors.

    References
    ----------
    The routing loaders of the dkps repository; the book's chapter "Routing to a behavioural stand-in".
    """
    a = np.asarray(anchor, dtype=np.int64)
    if a.size < 2:
        raise ValueError(f"the preprocessing is fitted on the anchors and needs at least 2, got {a.size}")
    qb = fit_elbow_pca(suite.U[a], query_components)
    n, m, d = suite.X.shape
    rb = fit_elbow_pca(suite.X[:, a].reshape(-1, d), response_components, normalize=True)
    X = rb.transform(suite.X.reshape(-1, d)).reshape(n, m, rb.dim)
    return PairedSuite(
        X=X, U=qb.transform(suite.U), tasks=suite.tasks, models=list(suite.models), query_ids=suite.query_ids,
        scores=suite.scores,
    )  # fmt: skip
