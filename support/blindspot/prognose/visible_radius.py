"""The practitioner formula and the paper's Table 2: how far apart two models with the
same scores can be, in standardised units, compared with the gap between the top two models.

Formula as stated in the paper's main text:

1. Sigma = corr(S), d_eff (Theorem 1), d = ceil(d_eff).
2. l_j = Sigma e_j projected onto the top-d eigenvectors V_d; in eigen-coordinates
   l_j = Lambda_d V_d^T e_j, normalised: hat l_j = Lambda_d V_d^T e_j / ||.||.
3. omega_emp = max_u min_j arccos |<hat l_j, u>|   (projective covering radius on S^{d-1}).
4. R = max_i ||zscore(S)_i||_2;  delta_vis = 2 R omega_emp;  ratio = delta_vis / Delta_2.

What produced the paper's Table 2 (its code, validation_v5.py ``p15`` and validation_v6.py ``m7``):
Z = zscore(S); the top d = max(round(d_eff), 2) right singular vectors of Z (unscaled loadings)
with rows normalised; **no absolute value** (signed covering radius); omega estimated by the
max-min over 10,000 Gaussian query directions of ``default_rng(0)``.

Because widths are even, the projective radius is at most pi/2 and the signed one is not the
quantity Theorem 2 needs. Any two bodies in the ball B_R are within 2R, so
delta_vis_capped = min(2 R omega, 2 R): every delta_vis of Table 2 exceeds 2R (omega > 1 rad), so the
bound is vacuous there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
import pandas as pd

from blindspot.core.conventions import ArrayLike, as_matrix, population_radius, top_gap, zscore
from blindspot.core.covering import covering_radius
from blindspot.core.spectrum import correlation, participation_ratio

__all__ = ["Loadings", "VisibleRadius", "benchmark_directions", "visible_radius", "visible_radius_table", "VARIANTS"]

Loading = Literal["paper", "code"]
Rounding = Literal["ceil", "round"]

#: The two variants the book compares: the formula as stated and the paper's code.
VARIANTS: dict[str, dict] = {
    "stated": dict(loading="paper", projective=True, d_round="ceil", radius="exact"),
    "code": dict(loading="code", projective=False, d_round="round", radius="mc"),
}


@dataclass(frozen=True)
class Loadings:
    """Unit benchmark directions in the d-dimensional visible subspace.

    Attributes
    ----------
    directions : ndarray (k, d)
        Row j is hat l_j.
    d : int
        Dimension of the visible subspace.
    d_eff : float
        The participation ratio it came from.
    loading : str
        ``'paper'`` (Lambda_d V_d^T e_j) or ``'code'`` (rows of the top-d right singular vectors of Z).
    """

    directions: np.ndarray
    d: int
    d_eff: float
    loading: str


@dataclass(frozen=True)
class VisibleRadius:
    """One row of Table 2."""

    n: int
    k: int
    d_eff: float
    d: int
    R: float
    omega: float
    delta_vis: float
    delta2: float
    ratio: float
    trivial_cap: float
    delta_vis_capped: float
    capped_ratio: float
    exceeds_trivial: bool
    loading: str
    projective: bool
    radius: str

    def as_row(self) -> dict:
        return asdict(self)


def _round_d(d_eff: float, d_round: Rounding) -> int:
    if d_round == "ceil":
        return int(math.ceil(d_eff - 1e-12))
    if d_round == "round":
        return max(int(round(d_eff)), 2)  # the paper's code: max(round(d_eff), 2)
    raise ValueError(f"d_round must be 'ceil' or 'round', got {d_round!r}")


def benchmark_directions(
    S: ArrayLike, loading: Loading = "paper", d: int | None = None, d_round: Rounding = "ceil"
) -> Loadings:
    """Unit benchmark directions hat l_j in the top-d eigen-subspace (step 2 of the formula).

    Parameters
    ----------
    S : score matrix (n, k)
    loading : {'paper', 'code'}
        ``'paper'``: rows of V_d Lambda_d of corr(S) (the projected columns Sigma e_j, in eigen-coordinates).
        ``'code'``: rows of the top-d right singular vectors of zscore(S), unscaled.
    d : int, optional
        Visible dimension; default from d_eff with ``d_round``.

    Raises
    ------
    ValueError
        d < 2, d > k (fewer benchmarks than the visible dimension needs), or a benchmark with no
        component in the visible subspace.
    """
    X = as_matrix(S)
    k = X.shape[1]
    C = correlation(X)
    lam, V = np.linalg.eigh(C)
    lam, V = lam[::-1], V[:, ::-1]
    deff = participation_ratio(lam)
    if d is None:
        d = _round_d(deff, d_round)
    if d < 2:
        raise ValueError(
            f"the visible dimension d = {d} is below 2: directions on S^(d-1) need d >= 2 (d_eff = {deff:.3f}); "
            f"pass d=2 explicitly"
        )
    if d > k:
        raise ValueError(
            f"d = {d} visible dimensions need at least {d} benchmarks to span them, but there are only k = {k}; "
            f"the covering radius would be pi/2 (vacuous). Use d <= k"
        )
    if loading == "paper":
        L = V[:, :d] * lam[:d]
    elif loading == "code":
        _, _, Vt = np.linalg.svd(zscore(X), full_matrices=False)
        L = Vt[:d].T
    else:
        raise ValueError(f"loading must be 'paper' or 'code', got {loading!r}")
    norms = np.linalg.norm(L, axis=1)
    if (norms < 1e-12).any():
        j = int(np.flatnonzero(norms < 1e-12)[0])
        raise ValueError(f"benchmark {j} has no component in the top-{d} subspace: its direction is undefined")
    return Loadings(L / norms[:, None], int(d), float(deff), loading)


def visible_radius(
    S: ArrayLike,
    loading: Loading = "paper",
    projective: bool = True,
    d_round: Rounding = "ceil",
    radius: Literal["exact", "mc"] = "exact",
    n_samples: int = 10_000,
    seed: int = 0,
    d: int | None = None,
) -> VisibleRadius:
    """R, omega_emp, delta_vis = 2 R omega, Delta_2, the ratio and the trivial cap 2R (Table 2's columns).

    The defaults are the formula as stated (paper loadings, projective, ceil, exact). The paper's
    code variant is ``loading='code', projective=False, d_round='round', radius='mc'`` (see
    :data:`VARIANTS`).

    Raises
    ------
    ValueError
        Bad scores (NaN, fewer than 3 models or 2 benchmarks), the conditions of
        :func:`benchmark_directions`, or two top models tied (Delta_2 = 0, ratio infinite).
    """
    X = as_matrix(S)
    L = benchmark_directions(X, loading=loading, d=d, d_round=d_round)
    cov = covering_radius(L.directions, projective=projective, method=radius, n_samples=n_samples, seed=seed)
    R = population_radius(X)
    gap = top_gap(X)
    if gap <= 0:
        raise ValueError("the two best models have the same aggregate (Delta_2 = 0): the ratio is infinite")
    dv = 2.0 * R * cov.omega
    cap = 2.0 * R
    capped = min(dv, cap)
    return VisibleRadius(
        n=X.shape[0],
        k=X.shape[1],
        d_eff=L.d_eff,
        d=L.d,
        R=R,
        omega=cov.omega,
        delta_vis=dv,
        delta2=gap,
        ratio=dv / gap,
        trivial_cap=cap,
        delta_vis_capped=capped,
        capped_ratio=capped / gap,
        exceeds_trivial=bool(dv > cap),
        loading=loading,
        projective=projective,
        radius=radius,
    )


def visible_radius_table(
    tables: Mapping[str, ArrayLike], variants: Mapping[str, dict] | None = None, n_samples: int = 10_000, seed: int = 0
) -> pd.DataFrame:
    """Table 2: one :class:`VisibleRadius` row per (suite, variant), indexed by (suite, variant).

    ``variants`` maps a label to keyword arguments of :func:`visible_radius`; default
    :data:`VARIANTS` (the stated formula and the paper's code).
    """
    variants = dict(VARIANTS if variants is None else variants)
    rows = []
    for name, S in tables.items():
        for label, kw in variants.items():
            kw = {"n_samples": n_samples, "seed": seed, **kw}
            rows.append({"suite": name, "variant": label, **visible_radius(S, **kw).as_row()})
    return pd.DataFrame(rows).set_index(["suite", "variant"])
