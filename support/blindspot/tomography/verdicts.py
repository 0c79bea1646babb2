"""What the geometric-tomography chapter concludes from its results, decided here and tested, never in a notebook.

Each function takes computed results (error curves, fits, curvature checks, the X-ray example) and returns
either a :class:`~blindspot.core.verdict.Verdict` (does a statement of the paper hold, with the evidence that
decided it, for the chapter's ledger) or the words the chapter glues into a sentence
(``tests/tomography/test_verdicts.py``).

References
----------
The paper's Theorem 3 and App. G; Gardner (2006), *Geometric Tomography*, for the reconstruction of convex
bodies from widths and for X-rays (Gardner and McMullen); the book's chapter on widths and tomography.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from blindspot.core.verdict import Verdict

__all__ = [
    "first_exact",
    "smoothness_class",
    "curvature_table",
    "radii_agree",
    "radii_text",
    "corrected_text",
    "lipschitz_bound",
    "homogeneity",
    "curvature_radii",
    "xray_parity",
]


def first_exact(ms: np.ndarray, errors: np.ndarray, tol: float = 1e-12) -> int:
    """The first number of directions m at which the reconstruction error is zero (below ``tol``)."""
    return int(np.asarray(ms)[np.argmax(np.asarray(errors) < tol)])


def smoothness_class(body: str, polytopes: tuple[str, ...] = ("cube",)) -> str:
    """'polytope' for the bodies named in ``polytopes``, else 'curvature' (a smooth body of positive curvature)."""
    return "polytope" if body in polytopes else "curvature"


def curvature_table(radii: Mapping[float, np.ndarray], kappa: float, tol: float = 1e-9) -> pd.DataFrame:
    """App. G's curvature condition, three ways, on discs: curvature >= kappa, radius >= kappa (the paper's
    'equivalently'), radius <= 1/kappa (the correct equivalent).

    Parameters
    ----------
    radii : mapping
        {disc radius: its radii of curvature h + h'' over the directions}.
    kappa : float
        The curvature bound.

    Returns
    -------
    DataFrame
        Indexed by disc radius: ``radius of curvature``, ``curvature 1/rho`` and the three conditions.
    """
    curv = pd.DataFrame(
        {
            r: {
                "radius of curvature": rho.max(),
                "curvature 1/rho": 1 / rho.max(),
                "curvature >= kappa": bool(1 / rho.max() >= kappa - tol),
                "radius >= kappa": bool(rho.min() >= kappa - tol),
                "radius <= 1/kappa": bool(rho.max() <= 1 / kappa + tol),
            }
            for r, rho in radii.items()
        }
    ).T
    curv.index.name = "disc radius"
    return curv


def radii_agree(curv: pd.DataFrame, reading: str = "radius >= kappa") -> bool:
    """Whether a reading of the curvature condition agrees with 'curvature >= kappa' on every disc."""
    return bool((curv["curvature >= kappa"] == curv[reading]).all())


def radii_text(curv: pd.DataFrame) -> str:
    """Where the paper's 'radii >= kappa' agrees with 'curvature >= kappa', in words."""
    if radii_agree(curv):
        return "agree on every disc"
    disagree = [r for r in curv.index if curv.loc[r, "curvature >= kappa"] != curv.loc[r, "radius >= kappa"]]
    return "disagree on the disc of radius " + ", ".join(f"{r:g}" for r in disagree)


def corrected_text(curv: pd.DataFrame) -> str:
    """'agrees' when the corrected reading 'radius <= 1/kappa' matches 'curvature >= kappa' on every disc."""
    return "agrees" if radii_agree(curv, "radius <= 1/kappa") else "disagrees"


def lipschitz_bound(ratios: Mapping[str, float]) -> Verdict:
    """Theorem 3's Lipschitz-class bound pi R / m: the largest error / bound ratio of each body is at most 1."""
    worst = max(ratios.values())
    return Verdict(
        worst <= 1,
        "largest error / (pi R / m): " + ", ".join(f"{n} {r:.3f}" for n, r in ratios.items()),
        book=worst,
    )


def homogeneity(hom: object, scales: np.ndarray, tol: float = 0.05) -> Verdict:
    """Theorem 3's curvature-class rate R/(kappa m^2) scales with the body as the error does (exponents within ``tol``)."""
    return Verdict(
        bool(abs(hom.error_exponent - hom.paper_exponent) < tol),
        f"error(tK) has exponent {hom.error_exponent:.3f} in t, R/(kappa m^2) has {hom.paper_exponent:.3f}; "
        f"error / (R/(kappa m^2)) runs from {hom.paper_ratio.max():.3g} to {hom.paper_ratio.min():.3g} over t in "
        f"[{np.min(scales):g}, {np.max(scales):g}]. Corrected: Theta(1/(kappa m^2)), between 1/(4 kappa (4m^2-1)) and "
        "(pi/m) tan(pi/2m)/(2 kappa)",
        book=hom.error_exponent,
    )


def curvature_radii(curv: pd.DataFrame, kappa: float) -> Verdict:
    """App. G's 'curvature >= kappa, equivalently radii >= kappa' on discs of several radii."""
    return Verdict(
        radii_agree(curv),
        "; ".join(
            f"disc of radius {r:g}: curvature {curv.loc[r, 'curvature 1/rho']:.3f}, radius of curvature "
            f"{curv.loc[r, 'radius of curvature']:.3f}"
            for r in curv.index
        )
        + f" (kappa = {kappa:g}): radius = 1/curvature",
        book="radius of curvature = 1 / curvature",
    )


def xray_parity(xr: object, factor: float = 10.0) -> Verdict:
    """Widths and X-rays carry the same information: bodies with equal widths have X-rays no further apart
    than ``factor`` times their width gap (false: the perturbed disc)."""
    return Verdict(
        bool(xr.min_xray_gap <= factor * max(xr.width_gap, 1e-12)),
        f"disc vs disc + eps sin(2 m theta), m = {xr.m}: widths equal to {xr.width_gap:.0e}, X-rays differ by "
        f">= {xr.min_xray_gap:.2e} in all {xr.m} directions; Gardner-McMullen: X-rays in suitable 4 or any 7 "
        "directions determine a planar convex body",
        book=xr.min_xray_gap,
    )
