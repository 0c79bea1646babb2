"""The opening paragraph of the report: what the findings mean for the leaderboard, in plain words.

Three questions, each answered from computed findings only (a sentence is left out when its
section was skipped):

1. How many directions does the leaderboard measure? (d_eff of the frontier and its interval)
2. Is its #1 resolved? Decided on what the file shows: the halves of the benchmarks agree on
   #1 in at least 90% of splits and resampling the models keeps it first in at least 90% of
   resamples. The chi-squared model's swap probability is quoted beside it as an assumption.
3. Which benchmarks to keep? The greedy subset for 90% coverage and its stable core, or, when
   the benchmarks measure one direction, "any one of them will do".

The thresholds only choose words; every number is printed as computed.
"""

from __future__ import annotations

from blindspot.report.report_data import ReportData

__all__ = ["advice", "leader_resolved", "RESOLVED"]

#: Agreement of the halves on #1 and #1 share under resampling from which #1 reads as resolved.
RESOLVED = 0.9


def leader_resolved(leader_first_share: float, halves_agree: float | None) -> bool:
    """Whether #1 reads as resolved by what the file shows: kept first in at least :data:`RESOLVED` of the
    resamples of the models and, when the benchmarks could be split, the halves agree on it in at least
    :data:`RESOLVED` of the splits (``halves_agree`` None: not split)."""
    return leader_first_share >= RESOLVED and (halves_agree is None or halves_agree >= RESOLVED)


def _ok(rep: ReportData, key: str):
    f = rep.finding(key)
    return f if f is not None and f.status == "ok" else None


def advice(rep: ReportData) -> list[str]:
    """The sentences of the opening paragraph (see the module docstring)."""
    out: list[str] = []
    d = _ok(rep, "d_eff_frontier") or _ok(rep, "d_eff_full")
    if d is not None:
        v = d.values
        who = "frontier models" if d.key == "d_eff_frontier" else "models"
        if v["d_eff"] < 1.5:
            out.append(
                f"Your {v['k']} benchmarks measure essentially one direction among the {v['n_models']} {who} "
                f"(d_eff = {v['d_eff']:.2f}, 95% interval {v['ci_lo']:.2f} to {v['ci_hi']:.2f}): they rank models "
                f"almost the same way."
            )
        else:
            out.append(
                f"Your {v['k']} benchmarks measure about {v['d_eff']:.1f} independent directions among the "
                f"{v['n_models']} {who} (95% interval {v['ci_lo']:.1f} to {v['ci_hi']:.1f})."
            )
    hs, lb, sw = _ok(rep, "half_split"), _ok(rep, "leader_bootstrap"), _ok(rep, "swap")
    if lb is not None:
        leader = lb.values["leader"]
        share = lb.values["leader_first_share"]
        agree = None if hs is None else 1.0 - hs.values["top1_disagree"]
        resolved = leader_resolved(share, agree)
        parts = []
        if hs is not None:
            parts.append(
                f"the two halves of your benchmarks agree on #1 in {agree:.0%} of splits (and on the whole top 5 "
                f"in {1 - hs.values['top5_any_change']:.0%})"
            )
        parts.append(f"resampling the models keeps it first in {share:.0%} of resamples")
        verdict = "is resolved" if resolved else "is not resolved"
        out.append(f"Its #1, {leader}, {verdict} by what the file shows: " + "; ".join(parts) + ".")
        if sw is not None:
            out.append(
                f"(The chi-squared model puts the chance that the top two swap at {sw.values['p_swap_top2']:.2f}; that "
                f"is what the model assumes about directions no benchmark measures, not a measurement.)"
            )
    g = _ok(rep, "greedy_subset")
    if g is not None:
        v = g.values
        if v["any_one_will_do"]:
            out.append(
                f"Any one of these benchmarks will do: each alone carries at least {v['single_coverage_min']:.0%} of "
                f"the suite's variance, so keep whichever is cheapest or most trusted."
            )
        else:
            core = ", ".join(v["stable_core"]) or "none of them"
            out.append(
                f"To keep {v['coverage']:.0%} of what the suite measures, keep {v['r']} of the {v['k']} benchmarks: "
                f"{', '.join(v['subset'])} (always chosen under resampling: {core})."
            )
    if rep.filled_cells:
        n_cells = rep.settings.get("n_models", 0) * len(rep.settings.get("benchmarks", []))
        share = len(rep.filled_cells) / n_cells if n_cells else float("nan")
        out.append(
            f"{share:.0%} of the cells were filled by low-rank completion and every number above treats them as "
            f"data; a completion makes benchmarks agree more than they would, so read the agreement as an upper bound."
        )
    skipped = [f.title for f in rep.findings if f.status == "skipped"]
    if skipped:
        out.append(f"{len(skipped)} section(s) were skipped because the table is too small for them (see below).")
    if rep.warnings:
        out.append(f"Check the {len(rep.warnings)} warning(s) about the input first: they can change every number.")
    return out
