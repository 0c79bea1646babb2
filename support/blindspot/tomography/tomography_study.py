"""Theorem 3 and App. G in one call: how fast widths in m directions pin down a convex body, and what bounds it.

:func:`tomography_study` runs the chapter "Widths and geometric tomography" end to end: five planar bodies of
three smoothness classes (and a Reuleaux triangle) reconstructed from m widths by the half-plane polygon and
by trigonometric interpolation (:func:`~blindspot.tomography.reconstruction.error_curve`), the log-log slope of
each error curve (:func:`~blindspot.tomography.reconstruction.fit_rate`); the disc and its perturbation with
equal widths (the lower-bound witness); C^{1,alpha} bodies; three bodies in D = 3 from Fibonacci directions and
a spherical-harmonic fit of zonal C^{1,alpha} bodies; the scaling of the curvature-class rate; radii of
curvature of discs; and two bodies with equal widths and different X-rays. The result gives its numbers by
name (:meth:`TomographyStudy.quantities`), its tables and figures by name, and its ledger records by claim id
(:meth:`TomographyStudy.records`).

References
----------
The paper's Theorem 3 and App. G; Gardner, R. J. (2006), *Geometric Tomography*, 2nd ed., Cambridge University
Press (reconstruction from widths, X-rays).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core.claim_value import ClaimStatement, ClaimValue, on_tables
from blindspot.core.convex_bodies import (
    Ball,
    Box,
    Disc,
    Ellipse,
    Ellipsoid,
    PlanarBody,
    TrigBody,
    arc_oval,
    central_symmetral,
    hausdorff_distance,
    power_body,
    random_symmetric_polygon,
    reuleaux_triangle,
    square,
)
from blindspot.core.verdict import Verdict
from blindspot.tomography import figures, harmonic_fit, reconstruction as rec, verdicts

__all__ = [
    "FIGURES",
    "M_PLANE",
    "M_SPHERE",
    "M_FIT",
    "M_FIT_3D",
    "CLASSES",
    "TomographyStudy",
    "tomography_study",
]

#: The chapter's figures, in the order of the page (:meth:`TomographyStudy.figures`).
FIGURES = ("slabs", "rates", "witness", "beta", "sphere", "harmonic", "homogeneity", "xray")
#: Numbers of widths in the plane (D = 2).
M_PLANE = np.array([5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513])
#: Numbers of widths on the sphere (D = 3).
M_SPHERE = np.unique(np.round(np.geomspace(50, 6400, 15)).astype(int))
#: Start of the asymptotic range of each planar fit, and of each fit on the sphere.
M_FIT, M_FIT_3D = 33, 200
#: The smoothness class of each planar body, and its expected exponent (Theorem 3).
CLASSES = {
    "square": "Lipschitz (polygon)",
    "polygon": "Lipschitz (polygon)",
    "arc oval": "curvature >= kappa",
    "ellipse": "analytic",
    "trig body": "analytic",
}
EXPECTED = {"Lipschitz (polygon)": -1.0, "curvature >= kappa": -2.0, "analytic": -2.0}
#: The body classes of the bodies table (with the Reuleaux triangle last).
_TABLE_CLASSES = ("Lipschitz", "Lipschitz", "curvature >= kappa, C^{1,1}", "analytic", "analytic", "constant width")
#: Curves with no power law (exact, or geometric convergence): not fitted.
EXACT_OR_GEOMETRIC = frozenset({("ellipse", "trig"), ("trig body", "trig")})
#: The fits glued by short name (body, method) -> name.
SHORT = {
    ("square", "halfplane"): "sq_hp",
    ("square", "trig"): "sq_tr",
    ("polygon", "halfplane"): "pg_hp",
    ("arc oval", "halfplane"): "ov_hp",
    ("arc oval", "trig"): "ov_tr",
    ("ellipse", "halfplane"): "el_hp",
}
#: The planar fits recorded in the ledger, by claim id.
PLANAR_CLAIMS = {
    ("square", "halfplane"): "T3.planar.lipschitz.halfplane",
    ("polygon", "halfplane"): "T3.planar.lipschitz.polygon",
    ("square", "trig"): "T3.planar.lipschitz.trig",
    ("arc oval", "halfplane"): "T3.planar.curvature.halfplane",
    ("arc oval", "trig"): "T3.planar.curvature.trig",
}
ALPHAS = (0.25, 0.5, 0.75)
SH_DEGREES = (6, 8, 10, 12, 16, 20, 24, 28, 32)
SCALES = np.array([0.01, 0.1, 1.0, 10.0, 100.0])
REULEAUX_WIDTH = 1.6
KAPPA_TEST = 1.0


def _planar_bodies(seed: int) -> dict[str, PlanarBody]:
    rng = np.random.default_rng(seed)
    return {
        "square": square(1.0),
        "polygon": random_symmetric_polygon(5, rng),
        "arc oval": arc_oval(),
        "ellipse": Ellipse(1.0, 0.6, angle=0.2),
        "trig body": TrigBody(1.0, cos_coeffs=(0.0, 0.06, 0.0, 0.01), sin_coeffs=(0.0, 0.03), name="trig body"),
    }


def _fits(curves: Mapping, m_min: int, skip: frozenset = frozenset()) -> dict:
    return {key: rec.fit_rate(c.ms, c.errors, m_min=m_min) for key, c in curves.items() if key not in skip}


def _slope_row(f: rec.RateFit) -> dict[str, object]:
    return {"slope": f.slope, "ci_low": f.ci_low, "ci_high": f.ci_high, "fit range": f"{f.m_min}..{f.m_max}"}


def _slope_evidence(f: rec.RateFit) -> str:
    return f"m {f.m_min}..{f.m_max}, 95% CI [{f.ci_low:.3f}, {f.ci_high:.3f}]"


@dataclass(frozen=True)
class TomographyStudy:
    """Recovery of convex bodies from their widths: rates, witnesses and the paper's statements.

    Attributes
    ----------
    bodies : dict
        The five planar bodies by name (the polygon drawn with the study's seed); ``reuleaux`` the Reuleaux
        triangle of width :data:`REULEAUX_WIDTH`.
    ms, ms_3d : ndarray
        The numbers of widths in the plane and on the sphere.
    n_rot, n_rot_3d : int
        Rotations of the directions per m (the worst case over them is kept).
    curves, fits : dict
        (body, method) -> ErrorCurve and RateFit (no fit for :data:`EXACT_OR_GEOMETRIC`).
    witness, witness_fit : DiscWitness, RateFit
        The disc and its perturbation with 6 equal widths, and the slope of the witness's epsilon over ``ms``.
    beta_curves, beta_fits : dict
        alpha -> curve and fit of trigonometric interpolation of C^{1,alpha} bodies (odd m).
    bodies_3d, curves_3d, fits_3d : dict
        name -> ellipsoid, ball and cube, their curves from Fibonacci directions and fits.
    sh_bodies, sh_curves, sh_fits, sh_degrees
        The zonal C^{1,alpha} bodies, their spherical-harmonic error curves and fits, and the degrees used.
    homogeneity : HomogeneityCheck
        The arc oval scaled by :data:`SCALES`, m = 33.
    curvature : DataFrame
        :func:`~blindspot.tomography.verdicts.curvature_table` of discs of radius 0.5, 1, 2.
    xray : XrayParity
        The perturbed disc with equal widths and different X-rays (m = 8).
    """

    bodies: dict[str, PlanarBody]
    reuleaux: PlanarBody
    ms: np.ndarray
    ms_3d: np.ndarray
    n_rot: int
    n_rot_3d: int
    curves: dict
    fits: dict
    witness: rec.DiscWitness
    witness_fit: rec.RateFit
    beta_curves: dict
    beta_fits: dict
    bodies_3d: dict
    curves_3d: dict
    fits_3d: dict
    sh_bodies: tuple
    sh_curves: dict
    sh_fits: dict
    sh_degrees: tuple[int, ...]
    homogeneity: rec.HomogeneityCheck
    curvature: pd.DataFrame
    xray: rec.XrayParity

    @property
    def m_fit(self) -> int:
        """Start of the asymptotic range of each planar fit."""
        return M_FIT

    def quantities(self) -> dict[str, float | int | str]:
        """The chapter's numbers by name.

        ``reuleaux_width``, ``reuleaux_gap`` (Hausdorff distance to its central symmetral) and
        ``reuleaux_gap_closed`` (w (1/sqrt 3 - 1/2)); ``n_rot``, ``m_fit``; ``<fit>_slope``, ``<fit>_lo``,
        ``<fit>_hi`` for each fit of :data:`SHORT`; ``ell_trig_m``, ``ell_trig_err`` (the ellipse's trigonometric
        error at the fourth m), ``trigbody_exact_m`` (the first m at which the trig body is exact); ``wit_m``,
        ``wit_eps``, ``wit_hd``, ``wit_wgap``, ``wit_slope``; ``n_rot_3d``, ``m_fit_3d``, ``<body>_3d_slope``,
        ``_lo``, ``_hi``; ``sh_slope_<alpha>``, ``sh_m_max``, ``sh_L_max``, ``sh_eval``, ``sh_short`` (the largest
        shortfall of a harmonic slope from -(1 + alpha)/2); ``hom_*`` of the scaling check, ``disc2_wit``,
        ``disc2_paper``; ``radii_verdict``, ``radii_fixed``; ``xr_m``, ``xr_wgap``, ``xr_min_gap``, ``xr_eps``;
        ``lip_ratio`` (the largest error over pi R / m of the Lipschitz bodies).
        """
        q: dict[str, float | int | str] = {
            "reuleaux_width": REULEAUX_WIDTH,
            "reuleaux_gap": self.reuleaux_gap,
            "reuleaux_gap_closed": REULEAUX_WIDTH * (1 / np.sqrt(3) - 0.5),
            "n_rot": self.n_rot,
            "m_fit": M_FIT,
        }
        for key, name in SHORT.items():
            f = self.fits[key]
            q |= {f"{name}_slope": f.slope, f"{name}_lo": f.ci_low, f"{name}_hi": f.ci_high}
        e_ell, trig = self.curves[("ellipse", "trig")], self.curves[("trig body", "trig")]
        q |= {"ell_trig_m": int(e_ell.ms[3]), "ell_trig_err": e_ell.errors[3]}
        q["trigbody_exact_m"] = verdicts.first_exact(trig.ms, trig.errors)
        q |= self._witness_quantities()
        q |= {"n_rot_3d": self.n_rot_3d, "m_fit_3d": M_FIT_3D}
        for n, f in self.fits_3d.items():
            q |= {f"{n}_3d_slope": f.slope, f"{n}_3d_lo": f.ci_low, f"{n}_3d_hi": f.ci_high}
        q |= {f"sh_slope_{a}": f.slope for a, f in self.sh_fits.items()}
        q |= {
            "sh_m_max": int(max(c.ms.max() for c in self.sh_curves.values())),
            "sh_L_max": max(self.sh_degrees),
            "sh_eval": harmonic_fit.DEFAULT_EVAL_POINTS,
            "sh_short": max(f.slope + (1 + a) / 2 for a, f in self.sh_fits.items()),
        }
        q |= self._scaling_quantities()
        xr = self.xray
        q |= {"xr_m": xr.m, "xr_wgap": xr.width_gap, "xr_min_gap": xr.min_xray_gap, "xr_eps": xr.epsilon}
        q["lip_ratio"] = verdicts.lipschitz_bound(self.lipschitz_ratios()).book
        return q

    def _witness_quantities(self) -> dict[str, float | int]:
        disc, perturbed = self.witness.bodies()
        theta = rec.equally_spaced_angles(self.witness.m)
        wgap = float(np.max(np.abs(disc.width(theta) - perturbed.width(theta))))
        return {
            "wit_m": self.witness.m,
            "wit_eps": self.witness.epsilon,
            "wit_hd": hausdorff_distance(disc, perturbed),
            "wit_wgap": wgap,
            "wit_slope": self.witness_fit.slope,
        }

    def _scaling_quantities(self) -> dict[str, float | str]:
        hom = self.homogeneity
        return {
            "hom_err_exp": hom.error_exponent,
            "hom_paper_exp": hom.paper_exponent,
            "hom_ratio_lo": hom.paper_ratio.min(),
            "hom_ratio_hi": hom.paper_ratio.max(),
            "hom_corr": hom.corrected_ratio[2],
            "disc2_wit": rec.disc_witness(2.0, 10).epsilon,
            "disc2_paper": float(rec.paper_rate(2.0, 0.5, 10)),
            "radii_verdict": verdicts.radii_text(self.curvature),
            "radii_fixed": verdicts.corrected_text(self.curvature),
        }

    @property
    def reuleaux_gap(self) -> float:
        """Hausdorff distance from the Reuleaux triangle to its central symmetral (same widths, symmetric)."""
        return hausdorff_distance(self.reuleaux, central_symmetral(self.reuleaux))

    def lipschitz_ratios(self) -> dict[str, float]:
        """Largest half-plane error over the paper's Lipschitz bound pi R / m, for the square and the polygon."""
        return {
            n: float(np.max(c.errors / rec.lipschitz_bound_paper(self.bodies[n].circumradius(), c.ms)))
            for (n, meth), c in self.curves.items()
            if meth == "halfplane" and CLASSES[n].startswith("Lipschitz")
        }

    # tables
    def bodies_table(self) -> pd.DataFrame:
        """The bodies with their class, curvature lower bound kappa, circumradius R and origin symmetry."""
        named = {**self.bodies, "Reuleaux": self.reuleaux}
        return pd.DataFrame(
            {
                name: {
                    "class": cls,
                    "kappa (curvature lower bound)": b.kappa,
                    "R (circumradius)": b.circumradius(),
                    "origin-symmetric": b.is_origin_symmetric(),
                }
                for (name, b), cls in zip(named.items(), _TABLE_CLASSES)
            }
        ).T

    def slopes_table(self) -> pd.DataFrame:
        """One row per fitted planar curve: body, class, method, expected exponent, slope, its 95% interval,
        fit range and points."""
        rows = [
            {"body": n, "class": CLASSES[n], "method": meth, "expected": EXPECTED[CLASSES[n]]}
            | _slope_row(f)
            | {"n points": f.n_points}
            for (n, meth), f in self.fits.items()
        ]
        return pd.DataFrame(rows)

    def beta_table(self) -> pd.DataFrame:
        """C^{1,alpha} bodies: alpha, expected exponent -(1 + alpha), slope, interval, fit range."""
        return pd.DataFrame([{"alpha": a, "expected": -(1 + a)} | _slope_row(f) for a, f in self.beta_fits.items()])

    def sphere_table(self) -> pd.DataFrame:
        """D = 3 bodies: expected exponent of their class, slope, interval, fit range."""
        rows = [
            {"body": n, "expected": rec.theoretical_exponent(3, verdicts.smoothness_class(n))} | _slope_row(f)
            for n, f in self.fits_3d.items()
        ]
        return pd.DataFrame(rows)

    def harmonic_table(self) -> pd.DataFrame:
        """Zonal C^{1,alpha} bodies: expected -(1 + alpha)/2, slope, interval, fit range, smallest radius of curvature."""
        rows = [
            {"alpha": a, "expected": -(1 + a) / 2} | _slope_row(f) | {"smallest radius of curvature": b.min_radius}
            for (a, f), b in zip(self.sh_fits.items(), self.sh_bodies)
        ]
        return pd.DataFrame(rows)

    def homogeneity_table(self) -> pd.DataFrame:
        """The scaled arc oval: scale t, error, the paper's rate R/(kappa m^2), the corrected 1/(kappa m^2), ratios."""
        hom = self.homogeneity
        return pd.DataFrame(
            {
                "t": hom.scales,
                "error": hom.errors,
                "R/(kappa m^2)": hom.paper_rate,
                "1/(kappa m^2)": hom.corrected_rate,
                "error / paper": hom.paper_ratio,
                "error / corrected": hom.corrected_ratio,
            }
        )

    def xray_table(self) -> pd.Series:
        """The X-ray example: m, largest width difference, smallest X-ray difference, Hausdorff distance."""
        xr = self.xray
        return pd.Series(
            {
                "m": xr.m,
                "largest width difference": xr.width_gap,
                "smallest X-ray difference": xr.min_xray_gap,
                "Hausdorff distance": xr.epsilon,
            }
        )

    # figures
    def figures(self) -> dict[str, plt.Figure]:
        """Every figure of the chapter by name: ``slabs``, ``rates``, ``witness``, ``beta``, ``sphere``,
        ``harmonic``, ``homogeneity``, ``xray`` (each of the methods ``<name>_figure``)."""
        return {name: getattr(self, f"{name}_figure")() for name in FIGURES}

    def slabs_figure(self) -> plt.Figure:
        """Width slabs and reconstructions of four bodies from 4, 8, 16, 32 widths."""
        shown = [self.bodies["square"], self.bodies["arc oval"], self.bodies["polygon"], self.reuleaux]
        pictures = [[rec.width_picture(b, m, offset=0.13) for m in (4, 8, 16, 32)] for b in shown]
        return figures.width_pictures(pictures)

    def rates_figure(self) -> plt.Figure:
        """Error against m for both planar methods, with the curvature class's lower and upper bounds shaded."""
        kappa = self.bodies["arc oval"].kappa
        m_band = np.geomspace(self.ms.min(), self.ms.max(), 50)
        bands = {
            "half-plane reconstruction": (
                m_band,
                rec.minimax_lower_bound(kappa, m_band),
                rec.halfplane_bound_curvature(kappa, m_band),
                "class curvature >= 1: lower and upper bound",
            )
        }
        panels = {
            title: [(self.curves[(n, meth)], self.fits.get((n, meth))) for n in self.bodies]
            for title, meth in (("half-plane reconstruction", "halfplane"), ("trigonometric interpolation", "trig"))
        }
        return figures.error_curves(panels, bands, ylims={"trigonometric interpolation": (1e-16, 1)})

    def witness_figure(self) -> plt.Figure:
        """The disc and its perturbation with equal widths (:func:`blindspot.tomography.figures.witness_figure`)."""
        return figures.witness_figure(self.witness)

    def beta_figure(self) -> plt.Figure:
        """Error curves of trigonometric interpolation of the C^{1,alpha} bodies."""
        panel = [(self.beta_curves[a], self.beta_fits[a]) for a in self.beta_curves]
        return figures.error_curves({"trigonometric interpolation, C^{1,α} bodies": panel})

    def sphere_figure(self) -> plt.Figure:
        """Error curves of the D = 3 bodies from Fibonacci directions."""
        panel = [(self.curves_3d[n], self.fits_3d[n]) for n in self.bodies_3d]
        return figures.error_curves({"D = 3, Fibonacci directions": panel})

    def harmonic_figure(self) -> plt.Figure:
        """Error curves of the spherical-harmonic fit of the zonal C^{1,alpha} bodies."""
        panel = [(self.sh_curves[a], self.sh_fits[a]) for a in self.sh_curves]
        return figures.error_curves({"D = 3, spherical-harmonic fit, C^{1,α} bodies": panel})

    def homogeneity_figure(self) -> plt.Figure:
        """The error of the scaled body against the paper's and the corrected rate."""
        return figures.homogeneity_figure(self.homogeneity)

    def xray_figure(self) -> plt.Figure:
        """The X-rays of the disc and its perturbation."""
        return figures.xray_figure(self.xray)

    # ledger
    def claims(self) -> dict[str, ClaimValue | ClaimStatement]:
        """The chapter's claims in recording order (for ``Ledger.record``): constructions, on no score table."""
        return on_tables(self._records(), None)

    def _records(self) -> dict[str, tuple[float, str] | Verdict]:
        out: dict[str, tuple[float, str] | Verdict] = {
            cid: (self.fits[key].slope, _slope_evidence(self.fits[key])) for key, cid in PLANAR_CLAIMS.items()
        }
        out["T3.planar.lipschitz.bound"] = verdicts.lipschitz_bound(self.lipschitz_ratios())
        wf = self.witness_fit
        out["T3.planar.lower.witness"] = (wf.slope, f"m {wf.m_min}..{wf.m_max}")
        out |= {f"T3.beta.alpha{a}": (f.slope, _slope_evidence(f)) for a, f in self.beta_fits.items()}
        out |= {f"T3.D3.{n}": (self.fits_3d[n].slope, _slope_evidence(self.fits_3d[n])) for n in self.fits_3d}
        for a, f in self.sh_fits.items():
            evidence = f"m {f.m_min}..{f.m_max} (degree up to {max(self.sh_degrees)}), 95% CI [{f.ci_low:.3f}, {f.ci_high:.3f}]"
            out[f"T3.D3.sh.alpha{a}"] = (f.slope, evidence)
        out["T3.homogeneity"] = verdicts.homogeneity(self.homogeneity, SCALES)
        out["T3.curvature.radii"] = verdicts.curvature_radii(self.curvature, KAPPA_TEST)
        out["T3.xray.parity"] = verdicts.xray_parity(self.xray)
        return out


def _planar(seed: int, ms: np.ndarray, n_rot: int) -> dict:
    bodies = _planar_bodies(seed)
    curves = {
        (name, method): rec.error_curve(b, ms, method, n_rot=n_rot)
        for name, b in bodies.items()
        for method in rec.METHODS
    }
    witness = rec.disc_witness(1.0, 6)
    eps_m = np.array([rec.disc_witness(1.0, int(m)).epsilon for m in ms])
    beta_curves = {a: rec.error_curve(power_body(a), ms[ms % 2 == 1], "trig") for a in ALPHAS}
    return {
        "bodies": bodies,
        "reuleaux": reuleaux_triangle(REULEAUX_WIDTH),
        "curves": curves,
        "fits": _fits(curves, M_FIT, EXACT_OR_GEOMETRIC),
        "witness": witness,
        "witness_fit": rec.fit_rate(ms, eps_m, m_min=M_FIT),
        "beta_curves": beta_curves,
        "beta_fits": _fits(beta_curves, M_FIT),
    }


def _sphere(seed: int, ms_3d: np.ndarray, n_rot_3d: int, sh_degree: int) -> dict:
    bodies_3d = {"ellipsoid": Ellipsoid((1.0, 0.8, 0.6)), "ball": Ball(1.0), "cube": Box((1.0, 1.0, 1.0))}
    curves_3d = {n: rec.error_curve_3d(b, ms_3d, n_rot=n_rot_3d, seed=seed) for n, b in bodies_3d.items()}
    degrees = tuple(L for L in SH_DEGREES if L <= sh_degree)
    sh_bodies = tuple(harmonic_fit.ZonalPowerBody(a) for a in ALPHAS)
    sh_curves = dict(zip(ALPHAS, harmonic_fit.harmonic_error_curves(sh_bodies, degrees)))
    return {
        "bodies_3d": bodies_3d,
        "curves_3d": curves_3d,
        "fits_3d": _fits(curves_3d, M_FIT_3D),
        "sh_bodies": sh_bodies,
        "sh_curves": sh_curves,
        "sh_fits": _fits(sh_curves, M_FIT_3D),
        "sh_degrees": degrees,
    }


def tomography_study(
    *, seed: int = 0, n_rot: int = 8, n_rot_3d: int = 4, m_max: int = 513, m_max_3d: int = 6400, sh_degree: int = 32
) -> TomographyStudy:
    """Reconstruct planar and spatial convex bodies from m widths and fit the rates, as the chapter does.

    Parameters
    ----------
    seed : int
        Seed of the random polygon and of the random rotations on the sphere.
    n_rot, n_rot_3d : int
        Rotations of the directions per m in the plane and on the sphere (the worst case is kept).
    m_max, m_max_3d : int
        Largest numbers of widths used of :data:`M_PLANE` and :data:`M_SPHERE`.
    sh_degree : int
        Largest degree of the spherical-harmonic fit (of :data:`SH_DEGREES`).

    Returns
    -------
    TomographyStudy

    Raises
    ------
    ValueError
        ``m_max`` leaving fewer than two planar m at or above :data:`M_FIT` (no rate to fit), or the
        reconstructions' own refusals.
    """
    ms, ms_3d = M_PLANE[M_PLANE <= m_max], M_SPHERE[M_SPHERE <= m_max_3d]
    if (ms >= M_FIT).sum() < 2:
        raise ValueError(f"m_max = {m_max} leaves fewer than two numbers of widths at or above {M_FIT}")
    curvature = verdicts.curvature_table({r: rec.radius_of_curvature(Disc(r)) for r in (0.5, 1.0, 2.0)}, KAPPA_TEST)
    planar = _planar(seed, ms, n_rot)
    return TomographyStudy(
        ms=ms,
        ms_3d=ms_3d,
        n_rot=int(n_rot),
        n_rot_3d=int(n_rot_3d),
        **planar,
        **_sphere(seed, ms_3d, n_rot_3d, sh_degree),
        homogeneity=rec.homogeneity_check(planar["bodies"]["arc oval"], 33, SCALES, n_rot=n_rot),
        curvature=curvature,
        xray=rec.xray_parity_example(m=8, radius=1.0, fraction=0.5),
    )
