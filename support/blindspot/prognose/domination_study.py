"""The Shephard corollary's three constructions and its symmetric check in one call, for a page to show.

:func:`shephard_study` builds, with :mod:`blindspot.prognose.domination`, the needle against a ball for
finitely many probed directions (:func:`~.domination.needle_example`), the disk against the Reuleaux
triangle in the plane (:func:`~.domination.reuleaux_vs_disk`) and the same lifted to R^3 by an interval
(:func:`~.domination.prism_pair`), and the random origin-symmetric pairs in D = 2 and 3
(:func:`~.domination.symmetric_domination_check`). The :class:`ShephardStudy` it returns gives their numbers
by name (:meth:`ShephardStudy.quantities`), the tables and figures a page shows, and the three statements
the chapter records (:meth:`ShephardStudy.claims`).

References
----------
The paper's corollary on width domination (main text; App. H.20 for the experiment on data); the
constructions are those of :mod:`blindspot.prognose.domination`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from numbers import Number

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core.claim_value import ClaimStatement
from blindspot.core.convex_bodies import Disc, reuleaux_triangle
from blindspot.core.verdict import yes_no
from blindspot.prognose import domination as dm, figures, verdicts

__all__ = ["ShephardStudy", "shephard_study"]

#: The dimensions of the random symmetric check.
SYMMETRIC_DIMS = (2, 3)


@dataclass(frozen=True)
class ShephardStudy:
    """The needle, the disk and the Reuleaux triangle (in the plane and times an interval), and the symmetric
    check.

    Attributes
    ----------
    directions : ndarray (m, D)
        The probed unit directions of the needle example.
    radius : float
        The radius of the ball the needle is compared with.
    needle : Needle
    disk : ReuleauxDisk
        The disk of diameter (1 - eps) w against the Reuleaux triangle of width w.
    prism : PrismPair
        The same pair times an interval, in R^3.
    symmetric : dict of int to SymmetricCheck
        The random origin-symmetric pairs, by dimension (2 and 3).
    """

    directions: np.ndarray
    radius: float
    needle: dm.Needle
    disk: dm.ReuleauxDisk
    prism: dm.PrismPair
    symmetric: dict[int, dm.SymmetricCheck]

    def quantities(self) -> dict[str, float | int | str]:
        """The numbers by name: the needle's (``needle_<name>`` of :meth:`~.domination.Needle.quantities`, and
        ``needle_ok``, "yes" when it is wider in every probed direction and smaller), the disk's
        (``rd_<name>`` of :meth:`~.domination.ReuleauxDisk.quantities`), the prism pair's (``prism_<field>``:
        ``eps``, ``width``, ``max_width_ratio``, ``vol_K``, ``vol_L``, ``n_dirs``) and the symmetric check's
        totals over the dimensions (``sym_tried``, ``sym_dominated``, ``sym_violations``)."""
        q: dict[str, float | int | str] = {f"needle_{k}": v for k, v in self.needle.quantities().items()}
        q["needle_ok"] = yes_no(self.needle.contradiction)
        q |= {f"rd_{k}": v for k, v in self.disk.quantities().items()}
        prism = {f.name: getattr(self.prism, f.name) for f in fields(self.prism)}
        q |= {f"prism_{k}": v for k, v in prism.items() if isinstance(v, Number) and not isinstance(v, bool)}
        for count in ("tried", "dominated", "violations"):
            q[f"sym_{count}"] = sum(getattr(s, f"n_{count}") for s in self.symmetric.values())
        return q

    def needle_widths(self) -> pd.DataFrame:
        """The needle's and the ball's width in each probed direction: columns ``needle width``, ``disk width``,
        index ``u1``, ``u2``, ..."""
        n = self.needle
        index = [f"u{i + 1}" for i in range(len(self.directions))]
        return pd.DataFrame({"needle width": n.widths_needle, "disk width": n.widths_ball}, index=index)

    def comparison(self) -> pd.DataFrame:
        """The two witnesses side by side: columns ``largest width ratio K / L``, ``volume K``, ``volume L``,
        ``narrower yet larger``; rows ``D = 2: disk vs Reuleaux triangle`` and ``D = 3: the same times an
        interval``."""
        rd, prism = self.disk, self.prism
        return pd.DataFrame(
            {
                "largest width ratio K / L": [rd.w_K_max / rd.w_L_min, prism.max_width_ratio],
                "volume K": [rd.area_K, prism.vol_K],
                "volume L": [rd.area_L, prism.vol_L],
                "narrower yet larger": [rd.contradiction, prism.contradiction],
            },
            index=["D = 2: disk vs Reuleaux triangle", "D = 3: the same times an interval"],
        )

    def symmetric_counts(self) -> pd.DataFrame:
        """The symmetric check, one column per dimension (``D = 2``, ``D = 3``): rows ``pairs tried``, ``K
        narrower everywhere``, ``of those, K larger``."""
        return pd.DataFrame(
            {
                f"D = {D}": {
                    "pairs tried": s.n_tried,
                    "K narrower everywhere": s.n_dominated,
                    "of those, K larger": s.n_violations,
                }
                for D, s in self.symmetric.items()
            }
        )

    def figures(self) -> dict[str, plt.Figure]:
        """The page's figures by name: ``needle`` (:meth:`needle_figure`) and ``reuleaux``
        (:meth:`reuleaux_figure`)."""
        return {"needle": self.needle_figure(), "reuleaux": self.reuleaux_figure()}

    def needle_figure(self) -> plt.Figure:
        """The probed directions, the ball and the needle along its axis (planar directions only)."""
        n = self.needle
        return figures.needle_figure(self.directions, n.axis, n.length, n.thickness, self.radius)

    def reuleaux_figure(self) -> plt.Figure:
        """The disk and the Reuleaux triangle drawn, and their widths against the direction angle."""
        rd = self.disk
        K, L = Disc(radius=(1 - rd.eps) * rd.width / 2), reuleaux_triangle(rd.width)
        labels = (f"disk, diameter {(1 - rd.eps) * rd.width:g}", f"Reuleaux triangle, width {rd.width:g}")
        return figures.bodies_and_widths(K, L, labels)

    def claims(self) -> dict[str, ClaimStatement]:
        """The constructions' statements, on no score table (for ``Ledger.record``): ``SH.existence``
        (:func:`~.verdicts.narrower_yet_larger_in_3d`), ``SH.threshold``
        (:func:`~.verdicts.no_phenomenon_below_3`) and ``SH.symmetric``
        (:func:`~.verdicts.symmetric_counterexamples`)."""
        return {
            "SH.existence": ClaimStatement(verdicts.narrower_yet_larger_in_3d(self.prism)),
            "SH.threshold": ClaimStatement(verdicts.no_phenomenon_below_3(self.disk, self.needle)),
            "SH.symmetric": ClaimStatement(verdicts.symmetric_counterexamples(self.symmetric)),
        }


def shephard_study(
    directions: np.ndarray,
    length: float = 8.0,
    thickness: float = 0.02,
    eps: float = 0.01,
    n_pairs: int = 500,
    seed: int = 0,
    radius: float = 1.0,
) -> ShephardStudy:
    """Build the corollary's constructions and run its symmetric check.

    Parameters
    ----------
    directions : array (m, D)
        The needle example's probed unit directions; the needle lies along their mean.
    length, thickness : float
        The needle's length and diameter.
    eps : float
        The disk's diameter is 1 - eps times the Reuleaux triangle's width 1 (in the plane and times an
        interval).
    n_pairs : int
        Random symmetric body pairs per dimension (2 and 3).
    seed : int
        Seed of the random symmetric bodies.
    radius : float
        Radius of the ball the needle is compared with.
    """
    needle = dm.needle_example(directions, length=length, thickness=thickness, radius=radius)
    symmetric = {D: dm.symmetric_domination_check(n_pairs=n_pairs, seed=seed, dim=D) for D in SYMMETRIC_DIMS}
    return ShephardStudy(
        np.asarray(directions, dtype=float),
        radius,
        needle,
        dm.reuleaux_vs_disk(eps=eps),
        dm.prism_pair(eps=eps),
        symmetric,
    )
