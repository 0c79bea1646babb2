"""One leaderboard's row of the survey: what ``blindspot analyze`` reports on it, and the intervals the survey adds.

Every number of a row is what ``blindspot analyze`` reports: :func:`survey_row` runs
:func:`blindspot.report.analyze.analyze_table` on the leaderboard and reads the numbers off its findings,
so there is no second implementation and a survey row always equals the report on the same table. To
them the row adds what the paper's general statements are judged on
(:mod:`blindspot.diagnose.survey_estimates`): the paired-bootstrap difference between the frontier's
d_eff and the population's, the widening of an interval, and for a completed matrix the share of the
frontier's cells filled with the frontier's d_eff on its complete rows and on its densest complete
block (a row whose verdict changes with the fill is flagged); a #1 whose halves' agreement is decided by
a tie is reported as a tie.

One frontier rule for every leaderboard, the one of ``blindspot analyze``: every benchmark is
standardised (z-scored over that leaderboard's models) and the frontier is the models whose mean
z-score is at least the ``frontier`` quantile (the median by default), so no benchmark's units can
pick it.

Missing cells. A leaderboard with empty cells is first cut to its completable sub-matrix (models
with at least 5 observed benchmarks and benchmarks with at least 10 observed models, among each
other: :func:`blindspot.perspective.sparse.completable`, the rule of the sparse-leaderboards
chapter); that is completed by the book's low-rank completion only when its 5-fold
cross-validation beats each benchmark's mean on held-out cells (:mod:`blindspot.report.completion_check`).
Otherwise the leaderboard is analysed on its densest complete block
(:func:`blindspot.diagnose.survey_blocks.densest_complete_block`). The row says which (``cells_used``
and ``missing_handling``).

Too few models. A statistic is "—" with its reason, never a number from too few models: each
section of the report needs its own number of models (:data:`blindspot.report.sections.MIN_MODELS`),
and every statistic of the spectrum needs more models than benchmarks
(:func:`~blindspot.diagnose.survey_estimates.too_few_models`). A leaderboard that cannot be analysed at
all is a row of "—" with its reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from blindspot.core.conventions import frontier as frontier_slice
from blindspot.data.tables import ScoreTable
from blindspot.diagnose.survey_blocks import densest_complete_block
from blindspot.diagnose.survey_estimates import (
    frontier_estimates,
    frontier_gap,
    halves_ties,
    too_few_models,
    widened_estimate,
)
from blindspot.diagnose.survey_statements import BAND, Estimate, band_status, gap_status
from blindspot.perspective.sparse import completable
from blindspot.report.advice import RESOLVED, leader_resolved
from blindspot.report.analyze import analyze_table
from blindspot.report.prepare import prepare, standardise
from blindspot.report.result import AnalysisReport
from blindspot.report.sections import N_SPLITS

__all__ = ["survey_row", "COLUMNS", "REASON_SEPARATOR", "MIN_MODEL_OBS", "MIN_BENCHMARK_OBS", "too_few_models"]

#: The completable rule of a sparse leaderboard (the sparse-leaderboards chapter's).
MIN_MODEL_OBS = 5
MIN_BENCHMARK_OBS = 10
#: Between the reasons of ``not_computed`` (a reason may hold semicolons).
REASON_SEPARATOR = " | "

#: The columns of :attr:`Survey.table`, with what each holds.
COLUMNS: dict[str, str] = {
    "source": "where the leaderboard was read from",
    "synthetic": "True for the book's synthetic stand-in (no data directory)",
    "models": "models in the leaderboard",
    "benchmarks": "benchmarks in the leaderboard",
    "missing_share": "share of its cells without a score",
    "cells_used": "'all' (no cell missing), 'complete rows', 'completed' or 'complete block'",
    "missing_handling": "what was done with the missing cells, and why",
    "n_analysed": "models analysed (the completable sub-matrix or the block when cells were missing)",
    "k_analysed": "benchmarks analysed",
    "n_frontier": "models on the frontier",
    "d_eff_all": "d_eff on all models analysed",
    "d_eff_all_lo": "its 95% bootstrap interval, lower end",
    "d_eff_all_hi": "upper end",
    "mp_signal_all": "eigenvalues above the Marchenko-Pastur edge, all models",
    "d_eff_frontier": "d_eff on the frontier",
    "d_eff_frontier_lo": "its 95% bootstrap interval, lower end",
    "d_eff_frontier_hi": "upper end",
    "d_eff_frontier_widened": "'' or how its interval was widened beyond the percentile interval (to include the estimate)",
    "mp_signal_frontier": "eigenvalues above the Marchenko-Pastur edge, frontier",
    "frontier_gap": "d_eff on the frontier minus d_eff on all models",
    "frontier_gap_lo": "its 95% paired-bootstrap interval (one resample of the models for both), lower end",
    "frontier_gap_hi": "upper end",
    "frontier_gap_widened": "'' or how its interval was widened beyond the percentile interval (to include the estimate)",
    "filled_share": "share of the frontier's cells filled by completion (0: none filled)",
    "complete_rows_shape": "completed rows only: the models with every benchmark observed, 'n × k'",
    "d_eff_complete_rows": "completed rows only: the frontier's d_eff on those complete rows",
    "d_eff_complete_rows_lo": "its 95% bootstrap interval, lower end",
    "d_eff_complete_rows_hi": "upper end",
    "block_shape": "completed rows only: the densest complete block, 'n × k'",
    "d_eff_block": "completed rows only: the frontier's d_eff on that block",
    "d_eff_block_lo": "its 95% bootstrap interval, lower end",
    "d_eff_block_hi": "upper end",
    "fill_flag": "'' or how the band or frontier verdict of the row changes with the fill (a flagged row)",
    "leader": "#1 of the frontier (mean z-score)",
    "top1_halves_agree": "share of the splits of the benchmarks in halves that agree on #1",
    "top1_kept_share": "share of the resamples of the models that keep #1 first",
    "top1_resolved": f"both at least {RESOLVED:.0%} (the report's rule); <NA> when a tie decides",
    "leader_tie": "'' or the tie that decides #1's resolution (the halves' agreement changes with the row order)",
    "greedy_k90": "benchmarks the greedy subset needs for 90% coverage",
    "greedy_subset": "those benchmarks, in the greedy order",
    "stable_core": "benchmarks chosen in at least 90% of bootstrap resamples",
    "any_one_will_do": "the benchmarks measure one direction: any one will do",
    "radius_R": "population radius R of the frontier (z-units)",
    "delta_vis": "indistinguishability radius 2 R omega (z-units)",
    "not_computed": "each statistic shown as '—' and why (separated by ' | ')",
}


def _absent(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def _fmt_percent(v: Any) -> str:
    """A share as a percentage to two significant digits (0.4%, 17%, 91%)."""
    return "—" if _absent(v) else ("0%" if v == 0 else f"{100 * v:.2g}%")


# ---------------------------------------------------------------------------------------------
# one leaderboard


@dataclass(frozen=True)
class _Prepared:
    """The table to analyse, how its missing cells were handled, and the options of :func:`analyze`."""

    table: ScoreTable
    cells_used: str
    handling: str
    missing: str  # the missing-cell policy analyze() gets


def _prepare(table: ScoreTable) -> list[_Prepared]:
    """The candidate tables to analyse, in order: as it is (no missing cell), else the completable part as it is
    (when it has no missing cell), else its completion (if its check passes), then the densest complete block."""
    if not np.isnan(table.values).any():
        return [_Prepared(table, "all", "no cell is missing", "error")]
    out: list[_Prepared] = []
    try:
        comp = completable(table, MIN_MODEL_OBS, MIN_BENCHMARK_OBS)
    except ValueError as exc:
        why = f"no completable sub-matrix ({exc})"
    else:
        rows = table.scores.index.isin(comp.scores.index)
        sub = table.rows(rows).columns([str(c) for c in comp.scores.columns])
        n, k = comp.shape
        if not np.isnan(sub.values).any():  # the completable part is complete: nothing to fill, nothing to check
            return [
                _Prepared(
                    sub,
                    "complete rows",
                    f"the {n} x {k} sub-matrix of models with every benchmark observed (the "
                    f"{table.n_models - n} model(s) with a missing cell left out); nothing to fill",
                    "error",
                )
            ]
        out.append(
            _Prepared(
                sub,
                "completed",
                f"the completable {n} x {k} sub-matrix (models with >= {MIN_MODEL_OBS} observed benchmarks, benchmarks "
                f"with >= {MIN_BENCHMARK_OBS} observed models), {_fmt_percent(1 - comp.observed_fraction)} of its cells filled by "
                f"low-rank completion",
                "complete",
            )
        )
        why = ""
    out.append(_Prepared(table, "complete block", why, "block"))
    return out


def _block_table(table: ScoreTable) -> tuple[ScoreTable, str]:
    block = densest_complete_block(table.scores)
    rows = table.scores.index.isin(block.models)
    return table.rows(rows).columns(list(block.benchmarks)), block.describe()


def _block(table: ScoreTable, refused: str) -> _Prepared:
    sub, words = _block_table(table)
    return _Prepared(sub, "complete block", f"{words}; completion not used: {refused}", "error")


@dataclass(frozen=True)
class _Analysed:
    """What one leaderboard's row is read from: the candidate, the table analysed (completed where it was), the report."""

    cand: _Prepared
    table: ScoreTable
    report: AnalysisReport


def _analyse(table: ScoreTable, frontier: float, n_boot: int, seed: int) -> _Analysed:
    """The report on the first candidate of :func:`_prepare` that can be analysed (as :func:`blindspot.analyze`)."""
    refused = ""
    for cand in _prepare(table):
        if cand.missing == "block":
            cand = _block(table, refused or cand.handling)
        try:
            p = prepare(cand.table, missing=cand.missing, seed=seed)
        except ValueError as exc:
            if cand.missing != "complete":
                raise
            refused = str(exc).removeprefix("--missing complete: ")
            continue
        rep = analyze_table(
            p.table, frontier, n_boot, seed, notes=p.notes, filled=p.filled, completion=p.completion, figures=False
        )
        if cand.missing == "complete":
            chk = rep.settings["completion"]
            cand = replace(
                cand,
                handling=cand.handling
                + f"; its 5-fold cross-validated RMSE {chk['cv_rmse_completion']:.3g} beats the column means' "
                f"{chk['cv_rmse_column_mean']:.3g} (standard deviations)",
            )
        return _Analysed(cand, p.table, rep)
    raise AssertionError("unreachable: the block is the last candidate")  # pragma: no cover


def _finding(rep: AnalysisReport, key: str) -> tuple[dict[str, Any] | None, str | None]:
    """(values, None) of a finding that ran; (None, its reason) of one that was skipped."""
    f = rep.finding(key)
    if f is None:
        return None, "not run"
    if f.status != "ok":
        return None, f.reading.removeprefix("skipped: ")
    return f.values, None


def _frontier_columns(row: dict[str, Any], rep: AnalysisReport, why: list[str], n: int, k: int, nf: int) -> None:
    """d_eff on all models and on the frontier, with their intervals (marked where widened), into ``row``."""
    spectral = {"all": too_few_models(n, k), "frontier": too_few_models(nf, k)}
    for which, key in (("all", "d_eff_full"), ("frontier", "d_eff_frontier")):
        v, skipped = _finding(rep, key)
        reason = skipped or spectral[which]
        if reason:
            why.append(f"d_eff ({'all models' if which == 'all' else 'frontier'}): {reason}")
            continue
        row.update(
            {
                f"d_eff_{which}": float(v["d_eff"]),
                f"d_eff_{which}_lo": float(v["ci_lo"]),
                f"d_eff_{which}_hi": float(v["ci_hi"]),
                f"mp_signal_{which}": int(v["n_sig"]),
            }
        )
        if which == "frontier":
            lo, hi = v["ci_percentile"]
            row["d_eff_frontier_widened"] = widened_estimate(float(v["d_eff"]), float(lo), float(hi)).widened


def _gap_columns(row: dict[str, Any], table: ScoreTable, frontier: float, n_boot: int, seed: int) -> str | None:
    """The paired-bootstrap difference frontier - all into ``row``; its reason when it is not computed."""
    if _absent(row["d_eff_all"]) or _absent(row["d_eff_frontier"]) or frontier <= 0:
        return "frontier - all models: needs both d_eff"
    try:
        g = frontier_gap(table, frontier, n_boot=n_boot, seed=seed)
    except ValueError as exc:
        return f"frontier - all models: {exc}"
    row.update(frontier_gap=g.value, frontier_gap_lo=g.lo, frontier_gap_hi=g.hi, frontier_gap_widened=g.widened)
    return None


def _fill_columns(
    row: dict[str, Any], raw: ScoreTable, done: _Analysed, frontier: float, n_boot: int, seed: int
) -> list[str]:
    """For a completed matrix: the share of the frontier's cells filled, the frontier's d_eff on the complete
    rows and on the densest complete block, and the flag when the band or frontier verdict changes with the fill.
    Returns the reasons of what was not computed."""
    t, rep = done.table, done.report
    row["filled_share"] = 0.0
    if done.cand.cells_used != "completed" or frontier <= 0:
        return []
    on_front = set(frontier_slice(standardise(t), frontier).scores.index)
    filled = sum(1 for m, _ in rep.filled_cells if m in on_front)
    row["filled_share"] = filled / (len(on_front) * t.n_benchmarks)
    why: list[str] = []
    verdicts: dict[str, tuple[str, str]] = {}
    if not _absent(row["d_eff_frontier"]) and not _absent(row["frontier_gap"]):
        est = Estimate(row["d_eff_frontier"], row["d_eff_frontier_lo"], row["d_eff_frontier_hi"])
        g = Estimate(row["frontier_gap"], row["frontier_gap_lo"], row["frontier_gap_hi"])
        verdicts["completed"] = (band_status(est, int(row["k_analysed"]), BAND), gap_status(g))
    obs = raw.rows(raw.scores.index.isin(t.scores.index)).columns(list(t.benchmarks))
    complete = obs.rows(~np.isnan(obs.values).any(axis=1))
    alternatives: list[tuple[str, str, ScoreTable | None, str]] = [("complete_rows", "complete rows", complete, "")]
    try:
        block, _ = _block_table(raw)
        alternatives.append(("block", "complete block", block, ""))
    except ValueError as exc:
        alternatives.append(("block", "complete block", None, str(exc)))
    for key, label, alt, refused in alternatives:
        if alt is None or alt.n_models < 3:
            why.append(f"d_eff on the {label}: {refused or f'{alt.n_models if alt else 0} models'}")
            continue
        row[f"{key}_shape"] = f"{alt.n_models:,} × {alt.n_benchmarks}"
        fe = frontier_estimates(alt, frontier, n_boot=n_boot, seed=seed)
        if fe.d_eff_frontier is None:
            why.extend(f"{r} (on the {label})" for r in fe.reasons)
            continue
        e = fe.d_eff_frontier
        row.update({f"d_eff_{key}": e.value, f"d_eff_{key}_lo": e.lo, f"d_eff_{key}_hi": e.hi})
        if fe.gap is not None:
            verdicts[label] = (band_status(e, alt.n_benchmarks, BAND), gap_status(fe.gap))
    if "completed" in verdicts:
        changes = []
        for i, what in enumerate(("band", "frontier")):
            if len({v[i] for v in verdicts.values()}) > 1:
                changes.append(f"{what}: " + ", ".join(f"{v[i]} ({lab})" for lab, v in verdicts.items()))
        row["fill_flag"] = "; ".join(changes)
    return why


def _leader_tie(front: ScoreTable, seed: int, agree: float) -> str:
    """'' or the tie that decides whether the halves agree on #1 (:func:`~blindspot.diagnose.survey_estimates.halves_ties`)."""
    ties = halves_ties(front, N_SPLITS, seed)
    if not ties.decides(RESOLVED):
        return ""
    named = "; ".join(ties.ties) or "a half whose top is tied"
    return (
        f"in {ties.n_tied} of {ties.n_splits} splits a half's #1 is tied ({named}), so row order decides it: the halves "
        f"agree on #1 in {ties.agree_low:.0%} to {ties.agree_high:.0%} of the splits (this table's order: {agree:.0%})"
    )


def survey_row(
    name: str, table: ScoreTable, frontier: float = 0.5, n_boot: int = 1000, seed: int = 0
) -> tuple[dict[str, Any], AnalysisReport | None]:
    """One leaderboard's row of the survey (the keys of :data:`COLUMNS`) and the report it was read from.

    Parameters
    ----------
    name : str
        The leaderboard's name (for messages).
    table : ScoreTable
        Its raw scores; missing cells as NaN (see the module docstring for what is done with them).
    frontier, n_boot, seed
        As :func:`blindspot.analyze`.

    Returns
    -------
    (dict, AnalysisReport or None)
        The row, and the report (None when the leaderboard could not be analysed: then every statistic
        is None and ``not_computed`` says why).
    """
    row: dict[str, Any] = {c: None for c in COLUMNS}
    row.update(
        source=table.source,
        synthetic=bool(table.synthetic),
        models=table.n_models,
        benchmarks=table.n_benchmarks,
        missing_share=table.missing_fraction,
        d_eff_frontier_widened="",
        frontier_gap_widened="",
        fill_flag="",
        leader_tie="",
    )
    why: list[str] = []
    try:
        done = _analyse(table, frontier, n_boot, seed)
    except ValueError as exc:
        row["not_computed"] = f"every statistic: the leaderboard could not be analysed ({exc})"
        row["cells_used"] = "none"
        return row, None
    prep, rep = done.cand, done.report
    n, k = int(rep.settings["n_models"]), len(rep.settings["benchmarks"])
    nf = int(rep.settings["n_frontier"])
    row.update(
        cells_used=prep.cells_used, missing_handling=prep.handling, n_analysed=n, k_analysed=k, n_frontier=nf or None
    )
    _frontier_columns(row, rep, why, n, k, nf)
    gap_why = _gap_columns(row, done.table, frontier, n_boot, seed)
    if gap_why and not _absent(row["d_eff_all"]) and not _absent(row["d_eff_frontier"]):
        why.append(gap_why)
    why.extend(_fill_columns(row, table, done, frontier, n_boot, seed))
    spectral = {"all": too_few_models(n, k), "frontier": too_few_models(nf, k)}
    hs, hs_why = _finding(rep, "half_split")
    lb, lb_why = _finding(rep, "leader_bootstrap")
    if hs is not None:
        row["top1_halves_agree"] = 1.0 - float(hs["top1_disagree"])
    else:
        why.append(f"halves agree on #1: {hs_why}")
    if lb is not None:
        row["leader"] = str(lb["leader"])
        row["top1_kept_share"] = float(lb["leader_first_share"])
        row["top1_resolved"] = bool(leader_resolved(row["top1_kept_share"], row["top1_halves_agree"]))
    else:
        why.append(f"#1 kept in resamples: {lb_why}")
    if hs is not None and frontier > 0:
        front = frontier_slice(standardise(done.table), frontier)
        raw_front = done.table.rows(done.table.scores.index.isin(front.scores.index)).columns(list(front.benchmarks))
        row["leader_tie"] = _leader_tie(raw_front, seed, row["top1_halves_agree"])
        if row["leader_tie"]:
            row["top1_resolved"] = None
            why.append(f"#1 resolved: ties decide nothing; {row['leader_tie']}")
    g, g_why = _finding(rep, "greedy_subset")
    g_why = g_why or spectral["frontier"]
    if g_why:
        why.append(f"greedy subset: {g_why}")
    else:
        row.update(
            greedy_k90=int(g["r"]),
            greedy_subset=", ".join(map(str, g["subset"])),
            stable_core=", ".join(map(str, g["stable_core"])),
            any_one_will_do=bool(g["any_one_will_do"]),
        )
    r, r_why = _finding(rep, "radius_gap")
    r_why = r_why or spectral["frontier"]
    if r_why:
        why.append(f"2R omega: {r_why}")
    else:
        row["radius_R"] = float(r["R"])
        if r.get("omega") is None:
            why.append("2R omega: " + rep.finding("radius_gap").reading.split("not available: ")[-1].rstrip("."))
        else:
            row["delta_vis"] = float(r["delta_vis"])
    row["not_computed"] = REASON_SEPARATOR.join(why)
    return row, rep


# ---------------------------------------------------------------------------------------------
