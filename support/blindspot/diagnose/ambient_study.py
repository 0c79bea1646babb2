"""App. G.3's three estimates of the ambient dimension D on several frontiers in one call.

:func:`ambient_study` runs :mod:`blindspot.diagnose.ambient_dimension` on each leaderboard's frontier:
the bounds n_sig <= d <= n - 1 (:func:`~.ambient_dimension.d_bounds`), the power-law extrapolation
(:func:`~.ambient_dimension.d_powerlaw`), Horn's parallel analysis (:func:`~.ambient_dimension.horn_nsignal`)
and, with at least 4 benchmarks, the swap cross-validation (:func:`~.ambient_dimension.d_cv`); on the
featured frontier also the power law's D at thresholds 1e-2 ... 1e-5. The result gives the featured
frontier's numbers by name (:meth:`AmbientStudy.quantities`) and the tables a page shows.

References
----------
The paper's App. G.3; Horn, J. L. (1965), "A rationale and test for the number of factors in factor
analysis", *Psychometrika* 30, 179-185.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd

from blindspot.core import conventions
from blindspot.data.tables import ScoreTable
from blindspot.diagnose import ambient_dimension as ad

__all__ = ["EPSILONS", "AmbientFit", "AmbientStudy", "ambient_study"]

#: The power law's thresholds shown on the featured frontier.
EPSILONS = (1e-2, 1e-3, 1e-4, 1e-5)


@dataclass(frozen=True)
class AmbientFit:
    """The three estimates of D on one frontier.

    Attributes
    ----------
    front : ScoreTable
    bounds : DBounds
    powerlaw : PowerLaw
    cv : SwapCV or None
        None with fewer than 4 benchmarks (the swap cross-validation holds out half of them).
    horn : Horn
    """

    front: ScoreTable
    bounds: ad.DBounds
    powerlaw: ad.PowerLaw
    cv: ad.SwapCV | None
    horn: ad.Horn

    def row(self) -> dict[str, object]:
        """The frontier's row of :meth:`AmbientStudy.table`."""
        t, b, p, h, cv = self.front, self.bounds, self.powerlaw, self.horn, self.cv
        row: dict[str, object] = {"n": t.n_models, "k": t.n_benchmarks, "n_sig (lower)": b.lower,
                                  "n - 1 (upper)": b.upper, "alpha": p.alpha, "D power law": p.D,
                                  "Horn n_signal": h.n_signal}  # fmt: skip
        if cv is not None:
            row |= {"empirical swap": cv.empirical, "D cross-val": cv.D, "corner": cv.corner,
                    "prediction range": f"{cv.pred_range[0]:.3f}-{cv.pred_range[1]:.3f}"}  # fmt: skip
        return row


@dataclass(frozen=True)
class AmbientStudy:
    """The estimates of D on each frontier, and the featured frontier's power law against its threshold.

    Attributes
    ----------
    fits : dict of str to AmbientFit
        Leaderboard name -> its frontier's estimates.
    featured : str
        The leaderboard the page discusses (the paper's: Extended).
    eps_table : Series
        The featured frontier's power-law D at each threshold of :data:`EPSILONS` (indexed by eps).
    """

    fits: dict[str, AmbientFit]
    featured: str
    eps_table: pd.Series

    @property
    def fit(self) -> AmbientFit:
        """The featured frontier's estimates."""
        return self.fits[self.featured]

    @property
    def estimates(self) -> list[float]:
        """The featured frontier's three estimates of D: Horn's count, the power law's, the cross-validated."""
        f = self.fit
        return [f.horn.n_signal, f.powerlaw.D] + ([f.cv.D] if f.cv is not None else [])

    def table(self) -> pd.DataFrame:
        """One row per leaderboard (:meth:`AmbientFit.row`)."""
        return pd.DataFrame({name: f.row() for name, f in self.fits.items()}).T

    @property
    def cv_note(self) -> str:
        """Why the featured frontier has no cross-validated D (else empty)."""
        if self.fit.cv is not None:
            return ""
        return (
            f":::{{important}}\nThe {self.featured} frontier has {self.fit.front.n_benchmarks} benchmarks; the swap "
            "cross-validation holds out half of them and needs at least 4, so it is left out.\n:::"
        )

    def quantities(self) -> dict[str, float | int | str]:
        """The featured frontier's ``featured``, ``alpha``, ``D_pl``, ``horn``, ``nsig``, ``D_eps2``, ``D_eps4``,
        ``range_lo``, ``range_hi``; and ``D_cv``, ``emp``, ``pred_lo``, ``pred_hi`` (the last three as text to three
        decimals; each "not computed" without the cross-validation)."""
        f = self.fit
        out: dict[str, float | int | str] = {
            "featured": self.featured, "alpha": f.powerlaw.alpha, "D_pl": f.powerlaw.D, "horn": f.horn.n_signal,
            "nsig": f.bounds.lower, "D_eps2": int(self.eps_table[1e-2]), "D_eps4": int(self.eps_table[1e-4]),
            "range_lo": min(self.estimates), "range_hi": max(self.estimates),
        }  # fmt: skip
        cv = f.cv
        if cv is None:
            return out | dict.fromkeys(("D_cv", "emp", "pred_lo", "pred_hi"), "not computed")
        return out | {"D_cv": cv.D, "emp": f"{cv.empirical:.3f}", "pred_lo": f"{cv.pred_range[0]:.3f}",
                      "pred_hi": f"{cv.pred_range[1]:.3f}"}  # fmt: skip


def ambient_study(
    suites: Mapping[str, ScoreTable], n_splits: int = 200, n_perm: int = 300, seed: int = 0, featured: str | None = None
) -> AmbientStudy:
    """Each suite's frontier's estimates (half-splits seeded ``seed``, Horn's nulls ``seed + 1`` as the paper's
    code); ``featured`` defaults to "extended" when given, else the first suite.

    Raises
    ------
    ValueError
        ``featured`` is not one of the suites.
    """
    fits = {}
    for name, table in suites.items():
        t = conventions.frontier(table)
        cv = ad.d_cv(t, n_splits=n_splits, seed=seed) if t.n_benchmarks >= 4 else None
        fits[name] = AmbientFit(
            t, ad.d_bounds(t), ad.d_powerlaw(t), cv, ad.horn_nsignal(t, n_perm=n_perm, seed=seed + 1)
        )
    if featured is None:
        featured = "extended" if "extended" in suites else next(iter(suites))
    if featured not in fits:
        raise ValueError(f"featured must be one of the suites {list(fits)}, got {featured!r}")
    front = fits[featured].front
    eps = pd.Series({e: ad.d_powerlaw(front, eps=e).D for e in EPSILONS}, name=f"D power law ({featured} frontier)")
    eps.index.name = "eps"
    return AmbientStudy(fits, featured, eps)
