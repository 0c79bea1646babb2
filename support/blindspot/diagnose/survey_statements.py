"""The paper's general statements about d_eff, judged across many leaderboards at once.

The paper measures the effective dimensionality on a few suites and generalises: "k benchmarks
probe only d_eff ≈ 3-5 directions", and d_eff is larger on the frontier than on the whole
population (its §3-4). The survey of public leaderboards (:mod:`blindspot.report.survey`) gives one
estimate per leaderboard with its 95% bootstrap interval; these functions turn such a column into
one :class:`~blindspot.core.verdict.Verdict` (basis ``statistical``) with the book's calibrated rule
(:func:`~blindspot.core.verdict.judge`), so that no page decides a verdict itself:

* :func:`deff_in_band` — does the frontier's d_eff lie in the band [3, 5]? Each leaderboard's
  interval is judged against the band: *inside* (it lies in the band), *below* or *above* (it misses
  the band entirely), or *not resolved* (it straddles an end). A leaderboard of k <= 3 benchmarks
  cannot reach 3 unless its benchmarks are uncorrelated (d_eff <= k): it is named and left out.
* :func:`deff_growth` — does d_eff grow slower than the number of benchmarks k? The elasticity b of
  the least-squares fit log d_eff = a + b log k across leaderboards, with its t-interval, judged
  against 1 (b = 1 is d_eff proportional to k, b = 0 a d_eff that does not grow at all). This is
  the book's operationalisation of the paper's words ("remains far below k").
* :func:`frontier_exceeds_population` — is the frontier's d_eff above the whole population's? Each
  leaderboard's difference, with its paired-bootstrap interval, is judged against 0: a difference
  whose interval includes 0 is *not resolved*, not a miss.

A statement across leaderboards holds when every leaderboard judged supports it, fails when one is
resolved against it (its interval excludes what the statement says), and is otherwise not resolved
at 95%; the :class:`~blindspot.core.verdict.StatTest` shown is the deciding leaderboard's (the one
resolved farthest against it, the first unresolved one, or the one whose interval comes nearest the
boundary). Every statement is recomputed leaving each leaderboard out in turn, and without the rows
flagged for their fill (a completed matrix whose verdict changes with the fill): the
:class:`~blindspot.core.verdict.Robustness` counts the alternatives under which it holds and names
those that flip it.

Leaderboards without a value (too few models, "—" in the survey) are left out and named.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import stats

from blindspot.core.verdict import STATISTICAL, Robustness, StatTest, Verdict, judge

__all__ = [
    "Estimate",
    "Statement",
    "BAND",
    "INSIDE",
    "BELOW",
    "ABOVE",
    "EXCEEDS",
    "DOES_NOT",
    "UNRESOLVED",
    "CANNOT_REACH",
    "band_status",
    "gap_status",
    "deff_in_band",
    "deff_growth",
    "frontier_exceeds_population",
    "holds_words",
]

#: The paper's band "d_eff ≈ 3-5".
BAND = (3.0, 5.0)
#: A leaderboard's status against the band / against 0 (the columns ``status`` of :attr:`Statement.per_board`).
INSIDE, BELOW, ABOVE = "inside", "below", "above"
EXCEEDS, DOES_NOT = "exceeds", "does not exceed"
UNRESOLVED = "not resolved"
CANNOT_REACH = "cannot reach the band (d_eff <= k)"


@dataclass(frozen=True)
class Estimate:
    """One leaderboard's estimate with its 95% interval.

    Attributes
    ----------
    value : float
        The estimate.
    lo, hi : float
        Its 95% interval.
    widened : str
        Empty, or how the interval was widened beyond the bootstrap's percentile interval (to include
        the estimate); a table shows it as widened.
    """

    value: float
    lo: float
    hi: float
    widened: str = ""

    def __post_init__(self) -> None:
        vals = (self.value, self.lo, self.hi)
        if not all(isinstance(v, (int, float, np.floating, np.integer)) and math.isfinite(v) for v in vals):
            raise ValueError(f"an estimate needs three finite numbers, got {vals!r}")
        if self.lo > self.hi:
            raise ValueError(f"an interval needs lo <= hi, got [{self.lo}, {self.hi}]")

    def test(self, name: str) -> StatTest:
        """The estimate as the :class:`~blindspot.core.verdict.StatTest` ``name``."""
        return StatTest(name, float(self.value), (float(self.lo), float(self.hi)), widened=self.widened)

    def words(self) -> str:
        """'2.86 [2.60, 3.10]' (with ', widened' when it was)."""
        return f"{self.value:.2f} [{self.lo:.2f}, {self.hi:.2f}{', widened' if self.widened else ''}]"


def holds_words(holds: bool | None) -> str:
    """'holds', 'fails' or 'not resolved at 95%'."""
    return "not resolved at 95%" if holds is None else ("holds" if holds else "fails")


@dataclass(frozen=True)
class Statement:
    """A general statement judged across leaderboards.

    Attributes
    ----------
    verdict : Verdict
        Basis ``statistical``: holds True / False / None by the calibrated rule, the evidence, the
        deciding test and the leave-one-out robustness.
    per_board : DataFrame
        One row per leaderboard (index: its name). Columns: ``estimate``, ``lo``, ``hi`` (the
        quantity and its 95% interval; NaN when not computed), ``widened`` (how the interval was
        widened, '' if not), ``status`` (the leaderboard's judgement: :data:`INSIDE`, :data:`BELOW`,
        :data:`ABOVE`, :data:`EXCEEDS`, :data:`DOES_NOT`, :data:`UNRESOLVED`, :data:`CANNOT_REACH`
        or 'not computed'), ``flagged`` (its row is flagged for its fill). The growth statement has
        ``k`` and ``d_eff`` instead of the interval columns.
    leave_one_out : dict
        Leaderboard -> whether the statement holds without it (None: not resolved, or not computable).
    without_flagged : bool or None
        Whether it holds without the flagged rows (equal to ``verdict.holds`` when none is flagged).
    flagged : tuple of str
        The rows flagged for their fill.
    """

    verdict: Verdict
    per_board: pd.DataFrame
    leave_one_out: dict[str, bool | None] = field(default_factory=dict)
    without_flagged: bool | None = None
    flagged: tuple[str, ...] = ()

    @property
    def holds(self) -> bool | None:
        return self.verdict.holds

    @property
    def evidence(self) -> str:
        return self.verdict.evidence

    def counts(self) -> dict[str, int]:
        """Leaderboards by status (every status of :attr:`per_board`, with zeros for the usual ones)."""
        c = self.per_board["status"].value_counts().to_dict() if "status" in self.per_board else {}
        return {str(k): int(v) for k, v in c.items()}

    def names(self, status: str) -> list[str]:
        """The leaderboards of one status, in order."""
        return [str(n) for n in self.per_board.index[self.per_board["status"] == status]]

    def listing(self, status: str, empty: str = "none") -> str:
        """'A 2.10 [1.90, 2.30], B ...' for the leaderboards of one status."""
        rows = self.per_board[self.per_board["status"] == status]
        return ", ".join(f"{n} {_est_words(r)}" for n, r in rows.iterrows()) or empty


def _est_words(r: pd.Series) -> str:
    w = ", widened" if r.get("widened") else ""
    return f"{r['estimate']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}{w}]"


# ---------------------------------------------------------------------------------------------
# the rule per leaderboard


def band_status(est: Estimate, k: int, band: tuple[float, float] = BAND) -> str:
    """A leaderboard's d_eff against the band by :func:`~blindspot.core.verdict.judge` (``'in'``).

    Returns :data:`INSIDE` (the interval lies in the band), :data:`BELOW` / :data:`ABOVE` (it misses the
    band on that side), :data:`UNRESOLVED` (it straddles an end), or :data:`CANNOT_REACH` when
    ``k <= band[0]`` and the interval is not inside: d_eff <= k, so such a leaderboard reaches the
    band's lower end only if its benchmarks are uncorrelated, and says nothing about the band.
    """
    verdict = judge(est.test("bootstrap interval"), "in", band)
    if verdict is True:
        return INSIDE
    if k <= band[0]:
        return CANNOT_REACH
    if verdict is None:
        return UNRESOLVED
    return BELOW if est.hi < band[0] else ABOVE


def gap_status(est: Estimate) -> str:
    """A leaderboard's frontier-minus-population difference against 0 by :func:`~blindspot.core.verdict.judge`
    (``'>'``): :data:`EXCEEDS`, :data:`DOES_NOT` (the interval lies at or below 0) or :data:`UNRESOLVED`."""
    verdict = judge(est.test("paired bootstrap"), ">", 0.0)
    return UNRESOLVED if verdict is None else (EXCEEDS if verdict else DOES_NOT)


# ---------------------------------------------------------------------------------------------
# shared machinery


def _estimates(values: Mapping[str, Estimate | None], what: str) -> tuple[dict[str, Estimate], list[str]]:
    if not isinstance(values, Mapping):
        raise ValueError(f"{what} takes a mapping leaderboard -> Estimate (or None), got {type(values).__name__}")
    kept, missing = {}, []
    for name, v in values.items():
        if v is None:
            missing.append(str(name))
        elif isinstance(v, Estimate):
            kept[str(name)] = v
        else:
            raise ValueError(f"{what}: the value of {name!r} is {v!r}, not an Estimate or None")
    return kept, missing


def _aggregate(statuses: Mapping[str, str], good: str, bad: Sequence[str]) -> bool | None:
    """Every judged leaderboard good: True; one resolved bad: False; else None. Nothing judged: None."""
    judged = [s for s in statuses.values() if s == good or s in bad or s == UNRESOLVED]
    if not judged:
        return None
    if any(s in bad for s in judged):
        return False
    return True if all(s == good for s in judged) else None


def _robustness(
    decide: Callable[[list[str]], bool | None], names: list[str], flagged: Sequence[str], own: bool | None
) -> tuple[Robustness, dict[str, bool | None], bool | None]:
    """The statement under each leave-one-out set and without the flagged rows."""
    loo = {n: decide([m for m in names if m != n]) for n in names}
    alts: list[tuple[str, bool | None]] = [(f"without {n}", v) for n, v in loo.items()]
    flagged = [f for f in flagged if f in names]
    without = own
    if flagged:
        without = decide([m for m in names if m not in flagged])
        alts.append((f"without the rows flagged for their fill ({', '.join(flagged)})", without))
    results = [own, *(v for _, v in alts)]
    what = f"the {len(names)} leaderboards, each left out in turn ({len(names)} sets)"
    if flagged:
        what += ", and the flagged rows left out"
    rob = Robustness(
        held=sum(1 for v in results if v is True),
        total=len(results),
        alternatives=what,
        flips=tuple(f"{a} ({holds_words(v)})" for a, v in alts if v != own),
    )
    return rob, loo, without


def _frame(est: Mapping[str, Estimate], statuses: Mapping[str, str], missing: Sequence[str], flagged) -> pd.DataFrame:
    rows = {
        n: {"estimate": e.value, "lo": e.lo, "hi": e.hi, "widened": e.widened, "status": statuses[n]}
        for n, e in est.items()
    }
    for n in missing:
        rows[n] = {"estimate": np.nan, "lo": np.nan, "hi": np.nan, "widened": "", "status": "not computed"}
    out = pd.DataFrame.from_dict(rows, orient="index", columns=["estimate", "lo", "hi", "widened", "status"])
    out["flagged"] = [n in set(flagged) for n in out.index]
    out.index.name = "leaderboard"
    return out


def _deciding(
    statuses: Mapping[str, str], holds: bool | None, bad: Sequence[str], distance: Callable[[str], float]
) -> str:
    """The leaderboard whose test decides the statement: when it fails, the one resolved farthest against
    it; when not resolved, the first unresolved one; when it holds, the one nearest the boundary
    (``distance``: how far a leaderboard's interval lies on the claim's side of the boundary)."""
    judged = [n for n, s in statuses.items() if s != CANNOT_REACH]
    if holds is False:
        return min((n for n in judged if statuses[n] in bad), key=distance)
    if holds is None:
        return next(n for n in judged if statuses[n] == UNRESOLVED)
    return min(judged, key=distance)


def _without(missing: Sequence[str]) -> str:
    return f"; not computed on {', '.join(missing)}" if missing else ""


def _flag_words(flagged: Sequence[str], without: bool | None, own: bool | None) -> str:
    if not flagged:
        return ""
    same = "the same" if without == own else "different"
    return f"; without the rows flagged for their fill ({', '.join(flagged)}) it {holds_words(without)} ({same})"


# ---------------------------------------------------------------------------------------------
# the statements


def deff_in_band(
    d_eff: Mapping[str, Estimate | None],
    k: Mapping[str, int],
    band: tuple[float, float] = BAND,
    flagged: Sequence[str] = (),
    test_name: str = "95% bootstrap interval of the frontier's d_eff (resampling its models)",
) -> Statement:
    """Whether the frontier's d_eff lies in the band on every leaderboard (the paper's "d_eff ≈ 3-5").

    Each leaderboard's interval is judged against the band by :func:`band_status`; the statement holds
    when every leaderboard judged is inside, fails when one is resolved below or above, and is
    otherwise not resolved at 95%. Leaderboards of ``k <= band[0]`` benchmarks that are not inside
    cannot reach the band (d_eff <= k) and are left out, named.

    Parameters
    ----------
    d_eff : mapping str -> Estimate or None
        The frontier's d_eff with its interval per leaderboard; None where it was not computed.
    k : mapping str -> int
        The benchmarks each leaderboard's d_eff was computed on.
    band : (float, float)
        The band, inclusive.
    flagged : sequence of str
        Leaderboards whose row is flagged for its fill (the statement is also judged without them).
    test_name : str
        How each interval was computed (named in the verdict's test).

    Returns
    -------
    Statement

    Raises
    ------
    ValueError
        ``band`` with lo > hi, a value that is not an Estimate, a leaderboard without its k, or no
        leaderboard that can be judged.

    References
    ----------
    The paper's abstract and §3 ("k benchmarks probe only d_eff ≈ 3-5 directions"); the survey chapter.
    """
    lo_b, hi_b = (float(x) for x in band)
    if not lo_b <= hi_b:
        raise ValueError(f"the band needs lo <= hi, got [{lo_b}, {hi_b}]")
    est, missing = _estimates(d_eff, "deff_in_band")
    absent = [n for n in est if n not in k]
    if absent:
        raise ValueError(f"deff_in_band: no number of benchmarks for {absent}")
    statuses = {n: band_status(e, int(k[n]), (lo_b, hi_b)) for n, e in est.items()}

    def decide(names: list[str]) -> bool | None:
        return _aggregate({n: statuses[n] for n in names}, INSIDE, (BELOW, ABOVE))

    names = [n for n in est if statuses[n] != CANNOT_REACH]
    if not names:
        raise ValueError("deff_in_band: no leaderboard with a d_eff and more benchmarks than the band's lower end")
    holds = decide(names)
    rob, loo, without = _robustness(decide, names, flagged, holds)

    def distance(n: str) -> float:  # how far inside the band the interval lies (negative: outside, by that much)
        e = est[n]
        return min(e.lo - lo_b, hi_b - e.hi)

    who = _deciding({n: statuses[n] for n in names}, holds, (BELOW, ABOVE), distance)
    frame = _frame(est, statuses, missing, flagged)
    frame.insert(4, "k", [int(k[n]) if n in k else pd.NA for n in frame.index])
    st = Statement(Verdict(True, ""), frame)  # counts and listings only
    c = st.counts()
    parts = [
        f"each leaderboard's 95% interval of the frontier's d_eff against [{lo_b:g}, {hi_b:g}]: {c.get(INSIDE, 0)} "
        f"inside, {c.get(BELOW, 0)} below, {c.get(ABOVE, 0)} above, {c.get(UNRESOLVED, 0)} not resolved (straddle an "
        f"end), of {len(names)}"
    ]
    for status in (BELOW, ABOVE, UNRESOLVED):
        if c.get(status):
            parts.append(f"{status}: {st.listing(status)}")
    if c.get(CANNOT_REACH):
        reach = ", ".join(f"{n} (k = {int(k[n])}, d_eff {est[n].value:.2f})" for n in st.names(CANNOT_REACH))
        parts.append(f"left out, too few benchmarks to reach {lo_b:g} (d_eff <= k): {reach}")
    evidence = "; ".join(parts) + _without(missing) + _flag_words([f for f in flagged if f in names], without, holds)
    test = est[who].test(f"{test_name}; deciding leaderboard {who}")
    verdict = Verdict(holds, evidence, basis=STATISTICAL, test=test, robustness=rob)
    return Statement(verdict, frame, loo, without, tuple(f for f in flagged if f in names))


def frontier_exceeds_population(
    gap: Mapping[str, Estimate | None],
    flagged: Sequence[str] = (),
    test_name: str = "paired bootstrap of d_eff(frontier) - d_eff(all models), resampling the models",
) -> Statement:
    """Whether the frontier's d_eff exceeds the whole population's on every leaderboard.

    Each leaderboard's difference d_eff(frontier) - d_eff(all) is judged against 0 by
    :func:`gap_status` on its paired-bootstrap interval; the statement holds when every leaderboard's
    interval lies above 0, fails when one lies at or below 0, and is otherwise not resolved at 95% (an
    interval that includes 0 is not a miss).

    Parameters
    ----------
    gap : mapping str -> Estimate or None
        The difference with its interval per leaderboard; None where either d_eff was not computed.
    flagged : sequence of str
        Leaderboards whose row is flagged for its fill.
    test_name : str
        How each interval was computed.

    Returns
    -------
    Statement

    Raises
    ------
    ValueError
        A value that is not an Estimate, or no leaderboard with a difference.

    References
    ----------
    The paper's §3-4 (d_eff larger on the frontier; monotone in the frontier threshold); the survey chapter.
    """
    est, missing = _estimates(gap, "frontier_exceeds_population")
    if not est:
        raise ValueError("frontier_exceeds_population: no leaderboard has both d_eff values")
    statuses = {n: gap_status(e) for n, e in est.items()}

    def decide(names: list[str]) -> bool | None:
        return _aggregate({n: statuses[n] for n in names}, EXCEEDS, (DOES_NOT,))

    names = list(est)
    holds = decide(names)
    rob, loo, without = _robustness(decide, names, flagged, holds)
    who = _deciding(statuses, holds, (DOES_NOT,), lambda n: est[n].lo)
    frame = _frame(est, statuses, missing, flagged)
    st = Statement(Verdict(True, ""), frame)
    c = st.counts()
    parts = [
        f"each leaderboard's paired-bootstrap 95% interval of d_eff(frontier) - d_eff(all) against 0: "
        f"{c.get(EXCEEDS, 0)} above 0, {c.get(DOES_NOT, 0)} at or below 0, {c.get(UNRESOLVED, 0)} not resolved "
        f"(include 0), of {len(names)}"
    ]
    for status, label in ((DOES_NOT, "at or below 0"), (UNRESOLVED, "not resolved")):
        if c.get(status):
            parts.append(f"{label}: {st.listing(status)}")
    evidence = "; ".join(parts) + _without(missing) + _flag_words([f for f in flagged if f in names], without, holds)
    test = est[who].test(f"{test_name}; deciding leaderboard {who}")
    verdict = Verdict(holds, evidence, basis=STATISTICAL, test=test, robustness=rob)
    return Statement(verdict, frame, loo, without, tuple(f for f in flagged if f in names))


@dataclass(frozen=True)
class _Fit:
    slope: float
    lo: float
    hi: float
    intercept: float
    n: int
    n_k: int


def _fit(kk: np.ndarray, d: np.ndarray, level: float) -> _Fit:
    x, y = np.log(kk), np.log(d)
    sxx = float(((x - x.mean()) ** 2).sum())
    slope = float(((x - x.mean()) * (y - y.mean())).sum() / sxx)
    intercept = float(y.mean() - slope * x.mean())
    se = math.sqrt(float(((y - intercept - slope * x) ** 2).sum()) / (len(x) - 2) / sxx)
    t = stats.t.ppf((1 + level) / 2, len(x) - 2)
    return _Fit(slope, slope - t * se, slope + t * se, intercept, len(x), int(np.unique(kk).size))


def deff_growth(
    k: Mapping[str, int],
    d_eff: Mapping[str, float | None],
    flagged: Sequence[str] = (),
    level: float = 0.95,
) -> Statement:
    """Whether d_eff grows slower than the number of benchmarks k, across leaderboards.

    Fits log d_eff_i = a + b log k_i by ordinary least squares over the
    leaderboards i with a value, and gives b a t-interval with n - 2 degrees of freedom:

    .. math:: b \\pm t_{n-2,\\,(1+\\text{level})/2}\\,\\mathrm{se}(b), \\qquad
              \\mathrm{se}(b)^2 = \\frac{\\sum_i e_i^2 / (n - 2)}{\\sum_i (\\log k_i - \\overline{\\log k})^2}

    with e_i the residuals (an exact power law has se = 0). Since 1 <= d_eff <= k, b = 1 is a d_eff
    proportional to k and b = 0 one that does not grow; the statement (the book's operationalisation of
    the paper's "remains far below k") is judged by :func:`~blindspot.core.verdict.judge` with the
    claim b < 1: it holds when the interval lies below 1, fails when it lies at or above 1.

    Parameters
    ----------
    k : mapping str -> int
        The number of benchmarks of each leaderboard.
    d_eff : mapping str -> float or None
        Its d_eff (None or NaN: not computed; left out and named).
    flagged : sequence of str
        Leaderboards whose row is flagged for its fill.
    level : float
        Of the interval, in (0, 1).

    Returns
    -------
    Statement
        ``per_board`` has ``k``, ``d_eff`` and ``flagged``; ``verdict.book`` is the slope b.

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
    kept, missing = {}, []
    for name, v in d_eff.items():
        if v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v)):
            missing.append(str(name))
        elif isinstance(v, bool) or not np.isfinite(float(v)):
            raise ValueError(f"deff_growth: the value of {name!r} is {v!r}, not a finite number")
        else:
            kept[str(name)] = float(v)
    absent = [n for n in kept if n not in k]
    if absent:
        raise ValueError(f"deff_growth: no number of benchmarks for {absent}")
    names = list(kept)
    bad = [n for n in names if not 1 - 1e-9 <= kept[n] <= float(k[n]) + 1e-9]
    if bad:
        raise ValueError(f"deff_growth: d_eff must lie in [1, k]; it does not for {bad}")

    def fit(sub: list[str]) -> _Fit | None:
        kk = np.array([float(k[n]) for n in sub])
        if len(sub) < 3 or np.unique(kk).size < 2:
            return None
        return _fit(kk, np.array([kept[n] for n in sub]), level)

    full = fit(names)
    if full is None:
        ks = sorted({int(k[n]) for n in names})
        raise ValueError(
            f"deff_growth needs at least 3 leaderboards with at least 2 different numbers of benchmarks, got "
            f"{len(names)} with k in {ks}"
        )
    name = f"least-squares slope of log d_eff on log k over {full.n} leaderboards, t interval ({full.n - 2} df)"

    def decide(sub: list[str]) -> bool | None:
        f = fit(sub)
        if f is None:
            return None
        return judge(StatTest(name, f.slope, (f.lo, f.hi)), "<", 1.0)

    test = StatTest(name, full.slope, (full.lo, full.hi))
    holds = judge(test, "<", 1.0)
    rob, loo, without = _robustness(decide, names, flagged, holds)
    kk = np.array([float(k[n]) for n in names])
    ratio = np.array([kept[n] for n in names]) / kk
    loo_fits = {n: fit([m for m in names if m != n]) for n in names}
    slopes = [f.slope for f in loo_fits.values() if f is not None]
    evidence = (
        f"log d_eff = {full.intercept:.2f} + {full.slope:.3f} log k over {full.n} leaderboards ({full.n_k} values of k); "
        f"{level:.0%} interval of the slope [{full.lo:.3f}, {full.hi:.3f}] against 1; d_eff / k is "
        f"{ratio[kk == kk.min()].mean():.2f} at the smallest k and {ratio[kk == kk.max()].mean():.2f} at the largest"
        + (
            f"; leaving one leaderboard out, the slope runs from {min(slopes):.3f} to {max(slopes):.3f}"
            if slopes
            else "; too few leaderboards to leave one out"
        )
        + _without(missing)
        + _flag_words([f for f in flagged if f in names], without, holds)
    )
    frame = pd.DataFrame(
        {"k": [int(k[n]) if n in k else pd.NA for n in [*names, *missing]],
         "d_eff": [kept.get(n, np.nan) for n in [*names, *missing]]},
        index=pd.Index([*names, *missing], name="leaderboard"),
    )  # fmt: skip
    frame["loo_slope"] = [loo_fits[n].slope if loo_fits.get(n) is not None else np.nan for n in frame.index]
    frame["flagged"] = [n in set(flagged) for n in frame.index]
    verdict = Verdict(holds, evidence, book=full.slope, basis=STATISTICAL, test=test, robustness=rob)
    return Statement(verdict, frame, loo, without, tuple(f for f in flagged if f in names))
