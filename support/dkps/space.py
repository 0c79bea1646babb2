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

from .geometry import MDSResult, classical_mds, complete_distances

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


def perspective_geometry(
    num: np.ndarray, den: np.ndarray, model_names: list, dim: int | None, n_elbows: int
) -> SpaceGeometry:
    """Affinity, completed distances and MDS of every bandwidth from ``num``, ``den`` (H, n, n)."""
    H = num.shape[0]
    out = SpaceGeometry([], [], [], [], 0, 0)
    for h in range(H):
        nm, dn = num[h], den[h]
        ok = dn > 1e-12
        diag = np.diag(dn)
        bad = np.flatnonzero(~(diag > 1e-12))
        if bad.size:
            raise ValueError(
                f"model {model_names[bad[0]]!r} has no comparable responses (its query-kernel "
                "mass with itself is 0); give it responses with non-zero query vectors"
            )
        with np.errstate(invalid="ignore", divide="ignore"):
            A = np.where(ok, nm / np.where(ok, dn, 1.0), np.nan)
        a = np.diag(A)
        D2 = a[:, None] + a[None, :] - 2.0 * A
        D = np.sqrt(np.maximum(D2, 0.0))
        D[~ok] = np.nan
        np.fill_diagonal(D, 0.0)
        D = np.where(np.isnan(D) | np.isnan(D.T), np.nan, 0.5 * (D + D.T))
        out.n_unconnected = max(out.n_unconnected, int(np.sum(np.triu(np.isnan(D), 1))))
        Dc, n_unreach = complete_distances(D, warn=False)
        out.n_disconnected = max(out.n_disconnected, n_unreach)
        mds = classical_mds(Dc, dim, n_elbows)
        out.affinity.append(A)
        out.distances.append(Dc)
        out.mds.append(mds)
        out.coords.append(mds.coords)
    return out
