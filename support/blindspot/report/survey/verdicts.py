"""The paper's general statements judged on a survey, and the survey's numbers by name for a page.

:func:`survey_verdicts` reads a :class:`~blindspot.report.survey.table.Survey`'s table into the estimates the
statements of :mod:`blindspot.diagnose.survey_statements` judge (each leaderboard's frontier d_eff and
its difference from the population's, with their 95% intervals; the rows flagged for their fill) and
returns them judged, as :class:`SurveyVerdicts`. Its :meth:`~SurveyVerdicts.quantities` are every number
and sentence the survey chapter shows, by name and formatted, so a page glues them with one call
(:func:`blindspot.book.display.glue_result`) and never names a column of the survey's table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from blindspot.core.verdict import Verdict
from blindspot.diagnose.survey_statements import (
    ABOVE,
    BELOW,
    CANNOT_REACH,
    DOES_NOT,
    EXCEEDS,
    INSIDE,
    UNRESOLVED,
    Estimate,
    Statement,
    deff_growth,
    deff_in_band,
    frontier_exceeds_population,
    holds_words,
)
from blindspot.report.advice import RESOLVED

__all__ = ["SurveyVerdicts", "survey_verdicts", "CLAIMS"]

#: The registry's id of each statement.
CLAIMS = {
    "band": "PL.deff_band",
    "growth": "PL.deff_slower_than_k",
    "frontier": "PL.frontier_exceeds_population",
}


def _absent(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and v != v)


def _estimate(r: pd.Series, key: str) -> Estimate | None:
    if _absent(r[key]):
        return None
    widened = r.get(f"{key}_widened")
    return Estimate(
        float(r[key]), float(r[f"{key}_lo"]), float(r[f"{key}_hi"]), widened if isinstance(widened, str) else ""
    )


@dataclass(frozen=True)
class SurveyVerdicts:
    """The three statements judged on one survey, with what was not judged and why.

    Attributes
    ----------
    band, growth, frontier : Statement or None
        :func:`~blindspot.diagnose.survey_statements.deff_in_band`, ``deff_growth`` and
        ``frontier_exceeds_population`` on the survey (None: not judged, see ``reasons``).
    reasons : dict of str
        Statement -> why it was not judged.
    table : DataFrame
        The survey's table the statements were read from.
    seconds : dict
        Seconds each leaderboard took.
    """

    band: Statement | None
    growth: Statement | None
    frontier: Statement | None
    reasons: dict[str, str] = field(default_factory=dict)
    table: pd.DataFrame = field(default_factory=pd.DataFrame)
    seconds: dict[str, float] = field(default_factory=dict)

    def verdicts(self) -> dict[str, Verdict]:
        """Registry id -> the verdict, for the statements that were judged (``ledger.verdict(id, v)``)."""
        return {CLAIMS[k]: s.verdict for k, s in self.statements().items()}

    def statements(self) -> dict[str, Statement]:
        """'band' / 'growth' / 'frontier' -> the statement, for those that were judged."""
        return {k: s for k, s in (("band", self.band), ("growth", self.growth), ("frontier", self.frontier)) if s}

    def quantities(self) -> dict[str, Any]:
        """Every number and sentence of the survey chapter, by name, formatted for the page.

        The survey: ``n_boards``, ``min_models``/``max_models``, ``min_k``/``max_k``, ``deff_min``/
        ``deff_max`` (the frontier's d_eff) and their leaderboards ``deff_min_name``/``deff_max_name``,
        ``ratio_min``/``ratio_max`` (d_eff / k) with their names, ``n_dash`` (rows with a "—"),
        #1's counts (``n_leader``, ``n_resolved``, ``n_kept``, ``n_split``, ``n_halves``, ``n_tied``, ``tied``),
        the fill (``n_completed``, ``n_flagged``, ``flagged``), the costs (``largest_name``,
        ``largest_models``, ``largest_seconds``, ``slowest_name``, ``slowest_seconds``). Each statement:
        ``<s>_status`` (holds / fails / not resolved at 95%), ``<s>_evidence``, ``<s>_test``,
        ``<s>_robust``, ``<s>_without_flagged``; the band's counts ``band_inside``, ``band_below``,
        ``band_above``, ``band_unresolved``, ``band_n``, ``band_cannot`` and listings; the frontier's
        ``front_exceeds``, ``front_not``, ``front_unresolved``, ``front_n`` and listings; the growth's
        ``growth_slope``, ``growth_interval``, ``tenfold``, ``growth_loo``. Where a statement was not judged,
        its values say so.
        """
        t = self.table
        out: dict[str, Any] = {"n_boards": len(t)}
        models, k = t["models"].astype(float), t["benchmarks"].astype(float)
        out.update(
            max_models=f"{int(models.max()):,}",
            min_models=f"{int(models.min()):,}",
            max_k=int(k.max()),
            min_k=int(k.min()),
        )
        front = pd.to_numeric(t["d_eff_frontier"], errors="coerce").dropna()
        ratio = (front / t.loc[front.index, "k_analysed"].astype(float)).dropna()
        for key, s in (("deff", front), ("ratio", ratio)):
            out[f"{key}_min"] = float(s.min()) if len(s) else float("nan")
            out[f"{key}_max"] = float(s.max()) if len(s) else float("nan")
            out[f"{key}_min_name"] = str(s.idxmin()) if len(s) else "—"
            out[f"{key}_max_name"] = str(s.idxmax()) if len(s) else "—"
        out["n_dash"] = int((t["not_computed"].fillna("") != "").sum())
        out.update(self._leaders())
        completed = t.index[t["cells_used"] == "completed"]
        flagged = [str(n) for n in completed if t.loc[n, "fill_flag"]]
        out.update(n_completed=len(completed), n_flagged=len(flagged), flagged=", ".join(flagged) or "none")
        if self.seconds:
            slowest = max(self.seconds, key=self.seconds.get)
            largest = str(models.idxmax())
            out.update(
                slowest_name=slowest,
                slowest_seconds=f"{self.seconds[slowest]:.1f}",
                largest_name=largest,
                largest_models=f"{int(models.max()):,}",
                largest_seconds=f"{self.seconds.get(largest, float('nan')):.1f}",
            )
        for key in ("band", "growth", "frontier"):
            out.update(self._statement_values(key))
        return out

    def _leaders(self) -> dict[str, Any]:
        t = self.table
        tie = t["leader_tie"].fillna("") != ""
        resolved = t["top1_resolved"].dropna()
        kept = pd.to_numeric(t.loc[~tie, "top1_kept_share"], errors="coerce").dropna()
        halves = pd.to_numeric(t.loc[~tie, "top1_halves_agree"], errors="coerce").dropna()
        return {
            "n_leader": len(resolved),
            "n_resolved": int(resolved.astype(bool).sum()),
            "n_kept": int((kept >= RESOLVED).sum()),
            "n_split": len(halves),
            "n_halves": int((halves >= RESOLVED).sum()),
            "n_tied": int(tie.sum()),
            "tied": ", ".join(map(str, t.index[tie])) or "none",
        }

    def _statement_values(self, key: str) -> dict[str, Any]:
        s: Statement | None = getattr(self, key)
        prefix = {"band": "band", "growth": "growth", "frontier": "front"}[key]
        if s is None:
            why = self.reasons.get(key, "not judged")
            out = {f"{prefix}_{x}": "—" for x in ("test", "robust", "without_flagged")}
            out.update({f"{prefix}_status": "not judged", f"{prefix}_evidence": f"not judged: {why}"})
            if key == "growth":
                out.update(growth_slope="— (not fitted)", growth_interval="—", tenfold="— (not fitted)", growth_loo="—")
            elif key == "band":
                out.update(dict.fromkeys(("band_inside", "band_below", "band_above", "band_unresolved", "band_n"), 0))
                out.update(dict.fromkeys(("band_below_list", "band_above_list", "band_unresolved_list"), "none"))
                out["band_cannot"] = "none"
            else:
                out.update(dict.fromkeys(("front_exceeds", "front_not", "front_unresolved", "front_n"), 0))
                out.update(dict.fromkeys(("front_not_list", "front_unresolved_list"), "none"))
            return out
        v = s.verdict
        out = {
            f"{prefix}_status": holds_words(v.holds),
            f"{prefix}_evidence": v.evidence,
            f"{prefix}_test": v.test.words() if v.test else "",
            f"{prefix}_robust": v.robustness.words() if v.robustness else "",
            f"{prefix}_without_flagged": holds_words(s.without_flagged),
        }
        c = s.counts()
        if key == "band":
            out.update(
                band_inside=c.get(INSIDE, 0),
                band_below=c.get(BELOW, 0),
                band_above=c.get(ABOVE, 0),
                band_unresolved=c.get(UNRESOLVED, 0),
                band_n=sum(c.get(x, 0) for x in (INSIDE, BELOW, ABOVE, UNRESOLVED)),
                band_below_list=s.listing(BELOW),
                band_above_list=s.listing(ABOVE),
                band_unresolved_list=s.listing(UNRESOLVED),
                band_cannot=", ".join(f"{n} (k = {s.per_board.loc[n, 'k']})" for n in s.names(CANNOT_REACH)) or "none",
            )
        elif key == "frontier":
            out.update(
                front_exceeds=c.get(EXCEEDS, 0),
                front_not=c.get(DOES_NOT, 0),
                front_unresolved=c.get(UNRESOLVED, 0),
                front_n=sum(c.get(x, 0) for x in (EXCEEDS, DOES_NOT, UNRESOLVED)),
                front_not_list=s.listing(DOES_NOT),
                front_unresolved_list=s.listing(UNRESOLVED),
            )
        else:
            lo, hi = v.test.interval
            loo = s.per_board["loo_slope"].dropna()
            out.update(
                growth_slope=f"{v.test.estimate:.3g}",
                growth_interval=f"{lo:.3g} to {hi:.3g}",
                tenfold=f"{10**v.test.estimate:.3g}",
                growth_loo=f"{loo.min():.3f} to {loo.max():.3f}" if len(loo) else "—",
            )
        return out


def survey_verdicts(table: pd.DataFrame, seconds: dict[str, float] | None = None) -> SurveyVerdicts:
    """The paper's three general statements judged on a survey's table (:attr:`Survey.table`).

    Parameters
    ----------
    table : DataFrame
        :attr:`blindspot.report.survey.table.Survey.table` (one row per leaderboard).
    seconds : dict, optional
        Seconds per leaderboard (``Survey.settings['seconds']``), for :meth:`SurveyVerdicts.quantities`.

    Returns
    -------
    SurveyVerdicts
        A statement that cannot be judged on the table (no frontier d_eff, fewer than three leaderboards
        for the growth) is None, with its reason.
    """
    flagged = [str(n) for n, f in table["fill_flag"].fillna("").items() if f]
    d_front = {str(n): _estimate(r, "d_eff_frontier") for n, r in table.iterrows()}
    gaps = {str(n): _estimate(r, "frontier_gap") for n, r in table.iterrows()}
    k = {str(n): int(v) for n, v in table["k_analysed"].items() if not _absent(v)}
    reasons: dict[str, str] = {}
    stmts: dict[str, Statement | None] = {}
    for key, make in (
        ("band", lambda: deff_in_band(d_front, k, flagged=flagged)),
        ("growth", lambda: deff_growth(k, {n: (e.value if e else None) for n, e in d_front.items()}, flagged=flagged)),
        ("frontier", lambda: frontier_exceeds_population(gaps, flagged=flagged)),
    ):
        try:
            stmts[key] = make()
        except ValueError as exc:
            stmts[key], reasons[key] = None, str(exc)
    return SurveyVerdicts(stmts["band"], stmts["growth"], stmts["frontier"], reasons, table, dict(seconds or {}))
