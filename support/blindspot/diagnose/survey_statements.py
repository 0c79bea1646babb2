"""The paper's general statements about d_eff, judged across many leaderboards at once.

The paper measures the effective dimensionality on a few suites and generalises: "k benchmarks
probe only d_eff ≈ 3-5 directions", and d_eff is larger on the frontier than on the whole
population (its §3-4). The survey of public leaderboards (:mod:`blindspot.report.survey`) gives one
d_eff per leaderboard; these functions turn such a column into a verdict and the evidence for it,
so that no page decides a verdict itself:

* :func:`deff_in_band` — does every leaderboard's d_eff lie in the band [3, 5]? (how many of N do,
  and which do not);
* :func:`deff_growth` — does d_eff grow slower than the number of benchmarks k? The elasticity b of
  the least-squares fit log d_eff = a + b log k across leaderboards, with its t-interval: the
  statement holds when the whole interval lies below 1 (b = 1 is d_eff proportional to k, b = 0 a
  d_eff that does not grow at all);
* :func:`frontier_exceeds_population` — is the frontier's d_eff above the whole population's on every
  leaderboard where both were computed?

Leaderboards without a value (too few models, shown as "—" in the survey) are left out and named.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

__all__ = [
    "BandVerdict",
    "GrowthVerdict",
    "FrontierVerdict",
    "deff_in_band",
    "deff_growth",
    "frontier_exceeds_population",
    "growth_words",
]


def _values(values: Mapping[str, float | None], what: str) -> tuple[dict[str, float], list[str]]:
    """The finite values, and the names of the leaderboards without one."""
    if not isinstance(values, Mapping):
        raise ValueError(f"{what} takes a mapping leaderboard -> value, got {type(values).__name__}")
    kept, missing = {}, []
    for name, v in values.items():
        if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
            missing.append(str(name))
            continue
        if isinstance(v, bool) or not np.isfinite(float(v)):
            raise ValueError(f"{what}: the value of {name!r} is {v!r}, not a finite number")
        kept[str(name)] = float(v)
    return kept, missing


def _listing(values: Mapping[str, float]) -> str:
    return ", ".join(f"{n} ({v:.2f})" for n, v in values.items())


def _without(missing: list[str]) -> str:
    return f"; not computed on {', '.join(missing)}" if missing else ""


@dataclass(frozen=True)
class BandVerdict:
    """How many leaderboards have their d_eff in ``[lo, hi]``.

    Attributes
    ----------
    holds : bool
        Every leaderboard with a value lies in the band (False when none has a value).
    inside, below, above : dict
        Leaderboard -> d_eff, by where it lies.
    missing : list of str
        Leaderboards without a value.
    lo, hi : float
        The band.
    """

    holds: bool
    inside: dict[str, float]
    below: dict[str, float]
    above: dict[str, float]
    missing: list[str]
    lo: float
    hi: float

    @property
    def n(self) -> int:
        """Leaderboards judged."""
        return len(self.inside) + len(self.below) + len(self.above)

    @property
    def evidence(self) -> str:
        parts = [f"{len(self.inside)} of {self.n} leaderboards have d_eff in [{self.lo:g}, {self.hi:g}]"]
        if self.below:
            parts.append(f"below {self.lo:g}: {_listing(self.below)}")
        if self.above:
            parts.append(f"above {self.hi:g}: {_listing(self.above)}")
        return "; ".join(parts) + _without(self.missing)


def deff_in_band(d_eff: Mapping[str, float | None], lo: float = 3.0, hi: float = 5.0) -> BandVerdict:
    """Whether every leaderboard's d_eff lies in ``[lo, hi]`` (the paper's "d_eff ≈ 3-5").

    Parameters
    ----------
    d_eff : mapping str -> float or None
        One d_eff per leaderboard; None (or NaN) for a leaderboard where it was not computed.
    lo, hi : float
        The band, inclusive.

    Returns
    -------
    BandVerdict
        ``holds`` is True when every value lies in the band and there is at least one.

    Raises
    ------
    ValueError
        ``lo > hi``, or a value that is not a finite number.

    References
    ----------
    The paper's abstract and §3 ("k benchmarks probe only d_eff ≈ 3-5 directions"); the survey chapter.
    """
    if not lo <= hi:
        raise ValueError(f"the band needs lo <= hi, got [{lo}, {hi}]")
    kept, missing = _values(d_eff, "deff_in_band")
    inside = {n: v for n, v in kept.items() if lo <= v <= hi}
    below = {n: v for n, v in kept.items() if v < lo}
    above = {n: v for n, v in kept.items() if v > hi}
    return BandVerdict(bool(kept) and not below and not above, inside, below, above, missing, float(lo), float(hi))


@dataclass(frozen=True)
class GrowthVerdict:
    """The elasticity of d_eff in k across leaderboards: log d_eff = a + b log k.

    Attributes
    ----------
    holds : bool
        The upper end of the interval of b is below 1: d_eff grows slower than k.
    slope, slope_lo, slope_hi : float
        b and its t-interval at ``level``.
    intercept : float
        a.
    n : int
        Leaderboards in the fit.
    n_k : int
        Distinct values of k among them.
    ratio_smallest_k, ratio_largest_k : float
        Mean d_eff / k over the leaderboards with the fewest and with the most benchmarks.
    level : float
    missing : list of str
    """

    holds: bool
    slope: float
    slope_lo: float
    slope_hi: float
    intercept: float
    n: int
    n_k: int
    ratio_smallest_k: float
    ratio_largest_k: float
    level: float
    missing: list[str]

    @property
    def evidence(self) -> str:
        return (
            f"log d_eff = {self.intercept:.2f} + {self.slope:.3f} log k over {self.n} leaderboards ({self.n_k} values "
            f"of k); {self.level:.0%} interval of the slope [{self.slope_lo:.3f}, {self.slope_hi:.3f}] "
            f"({'below' if self.holds else 'not below'} 1); d_eff / k is {self.ratio_smallest_k:.2f} at the smallest k "
            f"and {self.ratio_largest_k:.2f} at the largest" + _without(self.missing)
        )


def deff_growth(k: Mapping[str, int], d_eff: Mapping[str, float | None], level: float = 0.95) -> GrowthVerdict:
    """Whether d_eff grows slower than the number of benchmarks k, across leaderboards.

    Fits log d_eff_i = a + b log k_i by ordinary least squares over the leaderboards i with a value,
    and gives b a t-interval with n - 2 degrees of freedom:

    .. math:: b \\pm t_{n-2,\\,(1+\\text{level})/2}\\,\\mathrm{se}(b), \\qquad
              \\mathrm{se}(b)^2 = \\frac{\\sum_i e_i^2 / (n - 2)}{\\sum_i (\\log k_i - \\overline{\\log k})^2}

    with e_i the residuals (an exact power law has se = 0).

    Since 1 <= d_eff <= k, b = 1 is a d_eff proportional to k and b = 0 one that does not grow; the
    statement holds when the whole interval is below 1.

    Parameters
    ----------
    k : mapping str -> int
        The number of benchmarks of each leaderboard.
    d_eff : mapping str -> float or None
        Its d_eff (None or NaN: not computed; left out and named).
    level : float
        Of the interval, in (0, 1).

    Returns
    -------
    GrowthVerdict

    Raises
    ------
    ValueError
        Fewer than 3 leaderboards with a value, fewer than 2 distinct k among them, a d_eff outside
        [1, k], a leaderboard without its k, or a level outside (0, 1).

    References
    ----------
    The paper's abstract and §3; the survey chapter.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    kept, missing = _values(d_eff, "deff_growth")
    absent = [n for n in kept if n not in k]
    if absent:
        raise ValueError(f"deff_growth: no number of benchmarks for {absent}")
    names = list(kept)
    kk = np.array([float(k[n]) for n in names])
    d = np.array([kept[n] for n in names])
    bad = [n for n, ki, di in zip(names, kk, d) if not 1 - 1e-9 <= di <= ki + 1e-9]
    if bad:
        raise ValueError(f"deff_growth: d_eff must lie in [1, k]; it does not for {bad}")
    if len(names) < 3 or np.unique(kk).size < 2:
        raise ValueError(
            f"deff_growth needs at least 3 leaderboards with at least 2 different numbers of benchmarks, got "
            f"{len(names)} with k in {sorted({int(x) for x in kk})}"
        )
    x, y = np.log(kk), np.log(d)
    sxx = float(((x - x.mean()) ** 2).sum())
    slope = float(((x - x.mean()) * (y - y.mean())).sum() / sxx)
    intercept = float(y.mean() - slope * x.mean())
    resid = y - intercept - slope * x
    se = math.sqrt(float((resid**2).sum()) / (len(names) - 2) / sxx)
    t = stats.t.ppf((1 + level) / 2, len(names) - 2)
    lo, hi = slope - t * se, slope + t * se
    ratio = d / kk
    return GrowthVerdict(
        bool(hi < 1),
        slope,
        float(lo),
        float(hi),
        intercept,
        len(names),
        int(np.unique(kk).size),
        float(ratio[kk == kk.min()].mean()),
        float(ratio[kk == kk.max()].mean()),
        float(level),
        missing,
    )


@dataclass(frozen=True)
class FrontierVerdict:
    """On how many leaderboards the frontier's d_eff exceeds the whole population's.

    Attributes
    ----------
    holds : bool
        It does on every leaderboard with both values (False when none has both).
    exceeds, does_not : dict
        Leaderboard -> frontier minus population d_eff.
    missing : list of str
        Leaderboards without both values.
    """

    holds: bool
    exceeds: dict[str, float]
    does_not: dict[str, float]
    missing: list[str]

    @property
    def n(self) -> int:
        return len(self.exceeds) + len(self.does_not)

    @property
    def evidence(self) -> str:
        out = f"the frontier's d_eff is above the population's on {len(self.exceeds)} of {self.n} leaderboards"
        if self.does_not:
            out += "; not on " + ", ".join(f"{n} ({g:+.2f})" for n, g in self.does_not.items())
        return out + _without(self.missing)


def frontier_exceeds_population(
    population: Mapping[str, float | None], frontier: Mapping[str, float | None]
) -> FrontierVerdict:
    """Whether the frontier's d_eff exceeds the whole population's on every leaderboard.

    Parameters
    ----------
    population, frontier : mapping str -> float or None
        d_eff on all models and on the frontier, per leaderboard (None or NaN: not computed).

    Returns
    -------
    FrontierVerdict
        ``holds`` when ``frontier > population`` strictly on every leaderboard with both values, and
        there is at least one.

    Raises
    ------
    ValueError
        A value that is not a finite number.

    References
    ----------
    The paper's §3-4 (d_eff larger on the frontier; monotone in the frontier threshold); the survey chapter.
    """
    pop, _ = _values(population, "frontier_exceeds_population")
    front, _ = _values(frontier, "frontier_exceeds_population")
    names = list(dict.fromkeys([*population, *frontier]))
    both = [str(n) for n in names if str(n) in pop and str(n) in front]
    missing = [str(n) for n in names if str(n) not in both]
    gaps = {n: front[n] - pop[n] for n in both}
    exceeds = {n: g for n, g in gaps.items() if g > 0}
    does_not = {n: g for n, g in gaps.items() if g <= 0}
    return FrontierVerdict(bool(gaps) and not does_not, exceeds, does_not, missing)


def growth_words(growth: GrowthVerdict | None, why: str = "") -> dict[str, str]:
    """The fit of :func:`deff_growth` as the survey chapter words it, or "—" where it could not be fitted.

    Parameters
    ----------
    growth : GrowthVerdict or None
        The fit; None when :func:`deff_growth` refused the leaderboards (fewer than three, a single k).
    why : str
        Its refusal, for the evidence when ``growth`` is None.

    Returns
    -------
    dict of str
        ``growth_evidence`` (the fit's evidence, or "not fitted: <why>"), ``growth_slope`` (b),
        ``growth_interval`` (its interval, "lo to hi") and ``tenfold`` (10**b: the factor on d_eff of ten
        times as many benchmarks), each to 3 significant digits.
    """
    if growth is None:
        return {
            "growth_evidence": f"not fitted: {why}" if why else "not fitted",
            "growth_slope": "— (not fitted)",
            "growth_interval": "—",
            "tenfold": "— (not fitted)",
        }
    return {
        "growth_evidence": growth.evidence,
        "growth_slope": f"{growth.slope:.3g}",
        "growth_interval": f"{growth.slope_lo:.3g} to {growth.slope_hi:.3g}",
        "tenfold": f"{10**growth.slope:.3g}",
    }
