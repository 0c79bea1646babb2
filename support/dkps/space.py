"""The perspective space from the pair sums: affinities, distances, completion, classical MDS.

Per candidate query bandwidth :math:`h`: the self-normalised affinity
:math:`A_{ii'} = \\mathrm{Num}_{ii'}/\\mathrm{Den}_{ii'}`, the distance
:math:`D_{ii'} = \\sqrt{A_{ii}+A_{i'i'}-2A_{ii'}}` (symmetrised; undefined where the two models share no
comparable response), the shortest-path completion of undefined pairs
(:func:`dkps.geometry.complete_distances`) and classical MDS (Torgerson 1952) to ``dim`` coordinates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from joblib import Parallel, delayed

from .geometry import MDSResult, classical_mds, complete_distances
from .threads import blas_threads

__all__ = ["SpaceGeometry", "perspective_geometry"]


@dataclass
class SpaceGeometry:
    """One entry per candidate bandwidth, and the connectivity counts (maxima over bandwidths)."""

    affinity: list
    distances: list
    mds: list[MDSResult]
    coords: list
    n_unconnected: int
    n_disconnected: int


def _one_bandwidth(nm: np.ndarray, dn: np.ndarray, dim: int | None, n_elbows: int):
    """Affinity, completed distances, MDS and the connectivity counts of one bandwidth."""
    nm, dn = _aligned(nm), _aligned(dn)
    with blas_threads():
        ok = dn > 1e-12
        with np.errstate(invalid="ignore", divide="ignore"):
            A = np.where(ok, nm / np.where(ok, dn, 1.0), np.nan)
        a = np.diag(A)
        D2 = a[:, None] + a[None, :] - 2.0 * A
        D = np.sqrt(np.maximum(D2, 0.0))
        D[~ok] = np.nan
        np.fill_diagonal(D, 0.0)
        D = np.where(np.isnan(D) | np.isnan(D.T), np.nan, 0.5 * (D + D.T))
        n_unconnected = int(np.sum(np.triu(np.isnan(D), 1)))
        Dc, n_unreach = complete_distances(D, warn=False)
        mds = classical_mds(Dc, dim, n_elbows)
    return A, Dc, mds, n_unconnected, n_unreach


def _aligned(x: np.ndarray) -> np.ndarray:
    """An aligned C-contiguous array (``x`` itself when it is one): arrays a Dask worker receives can
    arrive unaligned, and numpy would then run their products without BLAS, in another order."""
    return np.require(x, requirements=["C", "A"])


def perspective_geometry(
    num: np.ndarray, den: np.ndarray, model_names: list, dim: int | None, n_elbows: int, n_jobs: int | None = None
) -> SpaceGeometry:
    """Affinity, completed distances and MDS of every bandwidth from ``num``, ``den`` (H, n, n).

    The bandwidths are independent joblib jobs (``n_jobs``, the active joblib backend; Dask's
    included): each is computed the same way wherever it runs, so the result does not depend on it.
    """
    H = num.shape[0]
    for h in range(H):
        bad = np.flatnonzero(~(np.diag(den[h]) > 1e-12))
        if bad.size:
            raise ValueError(
                f"model {model_names[bad[0]]!r} has no comparable responses (its query-kernel "
                "mass with itself is 0); give it responses with non-zero query vectors"
            )
    if H == 1:  # nothing to run side by side
        parts = [_one_bandwidth(num[0], den[0], dim, n_elbows)]
    else:
        parts = Parallel(n_jobs=n_jobs)(delayed(_one_bandwidth)(num[h], den[h], dim, n_elbows) for h in range(H))
    out = SpaceGeometry([], [], [], [], 0, 0)
    for A, Dc, mds, n_unconnected, n_unreach in parts:
        out.n_unconnected = max(out.n_unconnected, n_unconnected)
        out.n_disconnected = max(out.n_disconnected, n_unreach)
        out.affinity.append(A)
        out.distances.append(Dc)
        out.mds.append(mds)
        out.coords.append(mds.coords)
    return out
