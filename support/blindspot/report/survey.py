"""The survey of leaderboards: the blind spot of many leaderboards side by side, one row per leaderboard.

For each leaderboard: its models, benchmarks and share of missing cells; d_eff on all models and on
the frontier with their bootstrap intervals; the Marchenko-Pastur count of signal eigenvalues; how
often the halves of its benchmarks agree on #1 and how often #1 stays first when the models are
resampled, and whether #1 is therefore resolved; the greedy number of benchmarks for 90% coverage
and its stable core; the indistinguishability radius 2 R omega.

Where it lives, and why here. Every one of those numbers is what ``blindspot analyze`` reports:
the survey runs :func:`blindspot.report.analyze.analyze` on each leaderboard and reads the
numbers off its findings, so there is no second implementation and a survey row always equals the
report on the same table. Those findings combine ``core`` (spectrum, half-splits, coverage),
``prognose`` (the covering radius), ``treat`` and ``perspective`` (the completion of sparse
leaderboards); only ``report``, which sits above every part, may import them all (the parts may
not import each other). So the survey is :mod:`blindspot.report.survey`; the part-level pieces it
adds are in ``diagnose`` (:mod:`~blindspot.diagnose.survey_blocks`, the densest complete block;
:mod:`~blindspot.diagnose.survey_statements`, the paper's general statements judged across
leaderboards; :mod:`~blindspot.diagnose.survey_figures`). ``blindspot survey`` and the chapter
call it here.

One frontier rule for every leaderboard, the one of ``blindspot analyze``: every benchmark is
standardised (z-scored over that leaderboard's models) and the frontier is the models whose mean
z-score is at least the ``frontier`` quantile (the median by default), so no benchmark's units can
pick it.

Missing cells. A leaderboard with empty cells is first cut to its completable sub-matrix (models
with at least 5 observed benchmarks and benchmarks with at least 10 observed models, among each
other: :func:`blindspot.perspective.sparse.completable`, the rule of the sparse-leaderboards
chapter); that is completed by the book's low-rank completion only when its 5-fold
cross-validation beats each benchmark's mean on held-out cells (``analyze(..., missing='complete')``,
:mod:`blindspot.report.completion_check`). Otherwise the leaderboard is analysed on its densest
complete block (:func:`blindspot.diagnose.survey_blocks.densest_complete_block`). The row says which
(:attr:`Survey.table`'s ``cells_used`` and ``missing_handling``).

Too few models. A statistic is "—" with its reason, never a number from too few models: each
section of the report needs its own number of models (:data:`blindspot.report.sections.MIN_MODELS`),
and every statistic of the spectrum (d_eff and its interval, the Marchenko-Pastur count, the greedy
subset, 2 R omega) needs more models than benchmarks (:func:`too_few_models`): n models give a
correlation matrix of rank at most n - 1, so with n <= k d_eff is bounded by the number of models,
not by what the benchmarks measure.
"""

from __future__ import annotations

import argparse
import io
import math
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from tqdm import tqdm

from blindspot.core.conventions import frontier as frontier_slice
from blindspot.core.theme import use_theme
from blindspot.data import eee_aggregate
from blindspot.data.readers import FORMATS
from blindspot.data.tables import ScoreTable, read_table
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
from blindspot.report.options import check_settings
from blindspot.report.output import WriteError, stage_output
from blindspot.report.prepare import prepare, standardise
from blindspot.report.result import AnalysisReport
from blindspot.report.sections import N_SPLITS
from blindspot.report.survey_render import survey_html
from blindspot.report.survey_verdicts import SurveyVerdicts, survey_verdicts

__all__ = [
    "Survey",
    "EditionSurvey",
    "edition_survey",
    "survey",
    "survey_tables",
    "survey_row",
    "too_few_models",
    "leader_counts",
    "read_leaderboards",
    "run_cli",
    "SURVEY_FILES",
    "RESOLVED",
    "REASON_SEPARATOR",
    "COLUMNS",
    "MIN_MODEL_OBS",
    "MIN_BENCHMARK_OBS",
]

#: What ``blindspot survey --out`` writes, both or neither.
SURVEY_FILES = ("survey.html", "survey.csv")
#: The completable rule of a sparse leaderboard (the sparse-leaderboards chapter's).
MIN_MODEL_OBS = 5
MIN_BENCHMARK_OBS = 10
#: Score files a folder given to ``blindspot survey`` is searched for (one leaderboard each).
SCORE_SUFFIXES = (".csv", ".tsv", ".txt", ".json", ".jsonl", ".parquet", ".gz")

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
# many leaderboards


def _timed_row(
    name: str, table: ScoreTable, frontier: float, n_boot: int, seed: int
) -> tuple[dict[str, Any], AnalysisReport | None, float]:
    t0 = time.perf_counter()
    row, rep = survey_row(name, table, frontier, n_boot, seed)
    return row, rep, time.perf_counter() - t0


def _absent(v: Any) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float) and math.isnan(v))


def _fmt_num(v: Any, spec: str = ".3g") -> str:
    return "—" if _absent(v) else format(v, spec)


def _fmt_interval(v: Any, lo: Any, hi: Any, widened: Any = "") -> str:
    if _absent(v):
        return "—"
    return f"{v:.3g} ({lo:.3g}–{hi:.3g}{', widened' if isinstance(widened, str) and widened else ''})"


def _fmt_share(v: Any) -> str:
    return "—" if _absent(v) else f"{v:.0%}"


def _fmt_percent(v: Any) -> str:
    """A share as a percentage to two significant digits (0.4%, 17%, 91%)."""
    return "—" if _absent(v) else ("0%" if v == 0 else f"{100 * v:.2g}%")


def _fmt_resolved(r: pd.Series) -> str:
    if isinstance(r.get("leader_tie"), str) and r["leader_tie"]:
        return "tie"
    return "—" if _absent(r["top1_resolved"]) else ("yes" if r["top1_resolved"] else "no")


def _fmt_greedy(r: pd.Series) -> str:
    if _absent(r["greedy_k90"]):
        return "—"
    out = f"{int(r['greedy_k90'])} of {int(r['k_analysed'])}"
    return out + " (any one)" if r["any_one_will_do"] is True else out


def _fmt_size(r: pd.Series) -> str:
    if _absent(r["n_analysed"]):
        return f"{int(r['models']):,} × {int(r['benchmarks'])}"
    out = f"{int(r['n_analysed']):,} × {int(r['k_analysed'])}"
    return out + {
        "all": "",
        "complete rows": " (complete rows)",
        "completed": " (completed)",
        "complete block": " (block)",
    }.get(r["cells_used"], "")


#: The integer and the true/false columns of :attr:`Survey.table` (nullable: "—" is <NA>); the rest are
#: floats or text.
INT_COLUMNS = ("models", "benchmarks", "n_analysed", "k_analysed", "n_frontier", "mp_signal_all", "mp_signal_frontier",
               "greedy_k90")  # fmt: skip
BOOL_COLUMNS = ("synthetic", "top1_resolved", "any_one_will_do")
TEXT_COLUMNS = ("source", "cells_used", "missing_handling", "leader", "greedy_subset", "stable_core", "not_computed",
                "d_eff_frontier_widened", "complete_rows_shape", "block_shape", "fill_flag", "leader_tie", "frontier_gap_widened")  # fmt: skip


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """The survey frame with one dtype per column: nullable integers and booleans, floats, text."""
    out = frame.copy()
    for c in out.columns:
        if c in INT_COLUMNS:
            out[c] = out[c].astype("Int64")
        elif c in BOOL_COLUMNS:
            out[c] = out[c].astype("boolean")
        elif c in TEXT_COLUMNS:
            out[c] = out[c].astype(object).where(out[c].notna(), None)
        else:
            out[c] = pd.to_numeric(out[c], errors="coerce").astype(float)
    return out


def leader_counts(table: pd.DataFrame, threshold: float = RESOLVED) -> dict[str, int]:
    """How the leaderboards of a survey answer "is #1 resolved?", counted.

    Parameters
    ----------
    table : DataFrame
        :attr:`Survey.table` (its ``top1_resolved``, ``top1_kept_share`` and ``top1_halves_agree``).
    threshold : float
        The share both measurements need, :data:`RESOLVED` (the report's rule).

    Returns
    -------
    dict of int
        ``n_leader``: leaderboards where #1's resolution was measured; ``n_resolved``: of those, where it is
        resolved; ``n_kept``: where resampling the models keeps #1 first in at least ``threshold`` of the
        resamples; ``n_split``: where the benchmarks could be split in halves; ``n_halves``: of those, where the
        halves agree on #1 in at least ``threshold`` of the splits. A leaderboard without a measurement ("—")
        is in no count.

    Raises
    ------
    ValueError
        When a column is missing (not a survey's table).
    """
    need = ("top1_resolved", "top1_kept_share", "top1_halves_agree")
    absent = [c for c in need if c not in table.columns]
    if absent:
        raise ValueError(f"leader_counts takes a survey's table (Survey.table); it has no column {absent}")
    resolved = table["top1_resolved"].dropna()
    kept = pd.to_numeric(table["top1_kept_share"], errors="coerce").dropna()
    halves = pd.to_numeric(table["top1_halves_agree"], errors="coerce").dropna()
    return {
        "n_leader": len(resolved),
        "n_resolved": int(resolved.astype(bool).sum()),
        "n_kept": int((kept >= threshold).sum()),
        "n_split": len(halves),
        "n_halves": int((halves >= threshold).sum()),
    }


@dataclass(repr=False)
class Survey:
    """The survey of several leaderboards: a frame of every number, the reports behind it, and displays.

    Attributes
    ----------
    table : DataFrame
        One row per leaderboard (index: its name), the columns of :data:`COLUMNS`; a statistic that
        was not computed is None (NaN in numeric columns) and ``not_computed`` says why.
    reports : dict
        Leaderboard -> the :class:`~blindspot.report.result.AnalysisReport` of ``blindspot analyze`` its row was
        read from (absent for a leaderboard that could not be analysed).
    settings : dict
        ``frontier``, ``n_boot``, ``seed``, the frontier rule in words (``frontier_rule``) and the seconds each
        leaderboard took (``seconds``; not written to the files, which stay the same from run to run).
    inputs : list of str
        The files the leaderboards were read from (never overwritten by :meth:`save`).
    """

    table: pd.DataFrame
    reports: dict[str, AnalysisReport] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    inputs: list[str] = field(default_factory=list)

    @property
    def frontier_rule(self) -> str:
        """The frontier rule every row used, in words."""
        return str(self.settings.get("frontier_rule", ""))

    @property
    def summary(self) -> pd.DataFrame:
        """The survey as the chapter shows it: few columns, formatted, "—" where not computed."""
        t = self.table
        out = pd.DataFrame(index=t.index)
        out["models × k"] = [_fmt_size(r) for _, r in t.iterrows()]
        out["d_eff, frontier (95%)"] = [
            _fmt_interval(
                r["d_eff_frontier"], r["d_eff_frontier_lo"], r["d_eff_frontier_hi"], r["d_eff_frontier_widened"]
            )
            for _, r in t.iterrows()
        ]
        out["MP signal"] = [_fmt_num(v, "d") for v in t["mp_signal_frontier"]]
        out["#1 resolved"] = [_fmt_resolved(r) for _, r in t.iterrows()]
        out["greedy, 90%"] = [_fmt_greedy(r) for _, r in t.iterrows()]
        out.index.name = "leaderboard"
        return out

    @property
    def details(self) -> pd.DataFrame:
        """The rest of the survey, formatted: missing cells, all models, #1's two measurements, the core, 2R omega."""
        t = self.table
        out = pd.DataFrame(index=t.index)
        out["missing"] = [_fmt_percent(v) for v in t["missing_share"]]
        out["frontier − all (95%, paired)"] = [
            _fmt_interval(r["frontier_gap"], r["frontier_gap_lo"], r["frontier_gap_hi"], r["frontier_gap_widened"])
            for _, r in t.iterrows()
        ]
        out["d_eff, all (95%)"] = [
            _fmt_interval(r["d_eff_all"], r["d_eff_all_lo"], r["d_eff_all_hi"]) for _, r in t.iterrows()
        ]
        out["MP signal, all"] = [_fmt_num(v, "d") for v in t["mp_signal_all"]]
        out["halves agree on #1"] = [_fmt_share(v) for v in t["top1_halves_agree"]]
        out["#1 kept"] = [_fmt_share(v) for v in t["top1_kept_share"]]
        out["stable core"] = [("—" if _absent(v) else (v or "none")) for v in t["stable_core"]]
        out["2Rω"] = [_fmt_num(v) for v in t["delta_vis"]]
        out.index.name = "leaderboard"
        return out

    @property
    def fill(self) -> pd.DataFrame:
        """The completed rows beside their alternatives, formatted: the share of the frontier's cells filled, the
        frontier's d_eff as completed, on the complete rows and on the densest complete block (each with its
        95% interval and shape), and the flag when the band or frontier verdict changes with the fill. Only the
        leaderboards whose matrix was completed."""
        t = self.table[self.table["cells_used"] == "completed"]
        out = pd.DataFrame(index=t.index)
        out["filled, frontier"] = [_fmt_percent(v) for v in t["filled_share"]]
        out["d_eff completed (95%)"] = [
            _fmt_interval(
                r["d_eff_frontier"], r["d_eff_frontier_lo"], r["d_eff_frontier_hi"], r["d_eff_frontier_widened"]
            )
            for _, r in t.iterrows()
        ]
        for key, label in (("complete_rows", "complete rows"), ("block", "complete block")):
            out[f"d_eff, {label} (95%)"] = [
                _fmt_interval(r[f"d_eff_{key}"], r[f"d_eff_{key}_lo"], r[f"d_eff_{key}_hi"])
                + ("" if _absent(r[f"{key}_shape"]) else f", {r[f'{key}_shape']}")
                for _, r in t.iterrows()
            ]
        out["verdict changes with the fill"] = [v or "no" for v in t["fill_flag"]]
        out.index.name = "leaderboard"
        return out

    def verdicts(self) -> SurveyVerdicts:
        """The paper's three general statements judged on this survey, and every number of the survey by name
        (:func:`~blindspot.report.survey_verdicts.survey_verdicts`)."""
        return survey_verdicts(self.table, self.settings.get("seconds"))

    @property
    def flagged(self) -> list[str]:
        """The leaderboards whose band or frontier verdict changes with the fill (:attr:`fill`)."""
        f = self.table["fill_flag"].fillna("")
        return [str(n) for n in f.index[f != ""]]

    @property
    def notes(self) -> pd.DataFrame:
        """For each leaderboard with a "—" or missing cells: what was not computed and why (``not computed, and
        why``, reasons separated by '; ') and what was done with its missing cells (``missing cells``)."""
        out = pd.DataFrame(
            {
                "not computed, and why": self.reasons.str.replace(REASON_SEPARATOR, "; ", regex=False),
                "missing cells": self.handling,
            }
        ).fillna("")
        return out.loc[(out != "").any(axis=1)]

    @property
    def reasons(self) -> pd.Series:
        """For each leaderboard with a "—", what was not computed and why (empty string: everything was)."""
        return self.table["not_computed"].fillna("").rename("not computed")

    @property
    def handling(self) -> pd.Series:
        """For each leaderboard with missing cells, what was done with them."""
        has = self.table["missing_share"] > 0
        return self.table.loc[has, "missing_handling"].fillna("").rename("missing cells")

    def to_csv(self) -> str:
        """The text of ``survey.csv``: :attr:`table`, numbers to 10 significant digits."""
        return self.table.to_csv(float_format="%.10g", lineterminator="\n")

    def to_html(self) -> str:
        """The text of ``survey.html``: one self-contained page (tables, the two figures embedded)."""
        return survey_html(self)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return f"<blindspot Survey of {len(self.table)} leaderboard(s): {', '.join(map(str, self.table.index))}>"

    def save(self, folder: str | os.PathLike) -> tuple[Path, ...]:
        """Write ``survey.html`` and ``survey.csv`` into ``folder``, both or neither, as ``blindspot survey --out``.

        Returns their paths.

        Raises
        ------
        ValueError
            ``folder`` is refused (as ``--out`` is); nothing was written.
        blindspot.report.output.WriteError
            A file could not be written; the files already in ``folder`` are as they were.
        """
        staged = stage_output(folder, inputs=tuple(self.inputs), files=SURVEY_FILES)
        try:
            staged.write_texts({"survey.csv": self.to_csv(), "survey.html": self.to_html()})
            return staged.commit()
        finally:
            staged.discard()


def survey_tables(
    tables: Mapping[str, ScoreTable],
    frontier: float = 0.5,
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = False,
    n_jobs: int | None = None,
) -> Survey:
    """The survey of named score tables (raw scores, missing cells as NaN), one row each, in order.

    Parameters
    ----------
    tables : mapping str -> ScoreTable
        The leaderboards.
    frontier, n_boot, seed
        As :func:`blindspot.analyze`, the same for every leaderboard.
    progress : bool
        A progress bar over the leaderboards.
    n_jobs : int, optional
        joblib jobs over the leaderboards (None or 1: one after the other; -1: every core; any joblib
        backend, e.g. ``joblib.parallel_config(backend="dask")``). Every row is seeded on its own, so the
        table is the same whatever ``n_jobs``; the slowest leaderboards (the sparse ones, whose completion
        is cross-validated) start first.

    Returns
    -------
    Survey

    Raises
    ------
    ValueError
        No table, a value that is not a ScoreTable, or a setting out of range.
    """
    check_settings(frontier, n_boot, seed)
    if not isinstance(tables, Mapping) or not tables:
        raise ValueError("survey_tables takes a non-empty mapping name -> ScoreTable")
    bad = [n for n, t in tables.items() if not isinstance(t, ScoreTable)]
    if bad:
        raise ValueError(f"survey_tables takes ScoreTables; {bad} are not")
    items = [(str(n), t) for n, t in tables.items()]
    names = [n for n, _ in items]
    # the sparse leaderboards first: with several jobs the longest tasks then do not end the run alone
    items.sort(key=lambda it: not np.isnan(it[1].values).any())
    done = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_timed_row)(n, t, frontier, n_boot, seed) for n, t in items
    )
    bar = tqdm(done, total=len(items), desc="survey", unit="leaderboard", disable=not progress, leave=False)
    results = dict(zip((n for n, _ in items), bar))
    rows = {n: results[n][0] for n in names}
    reports = {n: results[n][1] for n in names if results[n][1] is not None}
    seconds = {n: results[n][2] for n in names}
    frame = _typed(pd.DataFrame.from_dict(rows, orient="index", columns=list(COLUMNS)))
    frame.index.name = "leaderboard"
    rule = (
        f"every benchmark standardised over the leaderboard's models (z-scores); the frontier is the models whose mean "
        f"z-score is at least its {frontier:.0%} quantile"
        if frontier > 0
        else "every model (frontier 0)"
    )
    settings = {"frontier": frontier, "n_boot": n_boot, "seed": seed, "frontier_rule": rule, "seconds": seconds}
    return Survey(frame, reports, settings)


# ---------------------------------------------------------------------------------------------
# inputs: files, folders, frames, tables


def _score_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_file() and p.name.lower().endswith(SCORE_SUFFIXES))


def _record_depth(folder: Path) -> int | None:
    """How deep below ``folder`` its first Every Eval Ever record lies (None: none in its first entries)."""
    for p in sorted(folder.rglob("*.json")):
        try:
            if p.is_file() and eee_aggregate.detect([p]):
                return len(p.relative_to(folder).parts)
        except OSError:
            continue
        break
    return None


def _folder_sources(folder: Path) -> list[tuple[str, Path]]:
    """The leaderboards a folder holds, as (name, path) to read each from.

    A folder of Every Eval Ever records at the store's level (``<leaderboard>/<developer>/<model>/<uuid>.json``,
    records four levels down) is one leaderboard per subfolder; one a format of :mod:`blindspot.data.readers`
    reads as a whole (a leaderboard's records, lm-evaluation-harness results) is one leaderboard; any other
    folder is one leaderboard per score file directly in it.
    """
    if eee_aggregate.detect([folder]):
        depth = _record_depth(folder)
        if depth is not None and depth >= 4:
            subs = sorted(p for p in folder.iterdir() if p.is_dir() and eee_aggregate.detect([p]))
            if len(subs) > 1:
                return [(p.name, p) for p in subs]
        return [(folder.name, folder)]
    if any(f.key != "file" and f.detect((folder,)) for f in FORMATS):
        return [(folder.name, folder)]
    files = _score_files(folder)
    if not files:
        raise ValueError(
            f"{str(folder)!r} is a folder holding no score file ({', '.join(SCORE_SUFFIXES)}), no Every Eval Ever "
            f"records and no lm-evaluation-harness results; name the files, or a folder that holds them"
        )
    return [(f.stem, f) for f in files]


def read_leaderboards(
    items: Sequence[Any], names: Sequence[str] | None = None, progress: bool = False
) -> tuple[dict[str, ScoreTable], list[str]]:
    """Each item as one or more named score tables (missing cells kept as NaN), and the files read.

    An item is a path (a score file or a folder in any format :func:`blindspot.data.tables.read_table`
    reads; a folder holding several leaderboards gives one table each: :func:`_folder_sources`), a
    DataFrame (one row per model; names in its index or a column), or a :class:`ScoreTable`. Names:
    ``names`` when given (one per item, not for a folder of several leaderboards), else a file's stem or
    a folder's name, a table's name, ``frame 1``, ...; a repeated name gets `` #2``.

    Raises
    ------
    ValueError
        A path that does not exist, an input the reader refuses (its one line, with the path named), a
        folder holding nothing to read, or names that do not match the items.
    """
    if names is not None and len(names) != len(items):
        raise ValueError(f"names has {len(names)} entries for {len(items)} leaderboards")
    out: dict[str, ScoreTable] = {}
    files: list[str] = []

    def add(name: str, t: ScoreTable) -> None:
        key, i = name, 2
        while key in out:
            key, i = f"{name} #{i}", i + 1
        out[key] = t

    for j, item in enumerate(items):
        given = None if names is None else str(names[j])
        if isinstance(item, ScoreTable):
            add(given or item.name, item)
        elif isinstance(item, pd.DataFrame):
            add(given or f"frame {j + 1}", read_table(item, missing="keep"))
        elif isinstance(item, (str, os.PathLike)):
            p = Path(item).expanduser()
            if not p.exists():
                raise ValueError(f"{str(item)!r} does not exist; name a score file or a folder of score files")
            sources = _folder_sources(p) if p.is_dir() else [(p.stem, p)]
            if given is not None and len(sources) > 1:
                raise ValueError(f"{str(item)!r} holds {len(sources)} leaderboards; names= names one leaderboard each")
            for name, src in sources:
                try:
                    t = read_table(src, missing="keep", progress=progress)
                except ValueError as exc:
                    raise ValueError(f"{src}: {exc}") from exc
                add(given or name, t)
                files.append(str(src))
        else:
            raise ValueError(
                f"survey() takes paths, folders, DataFrames or ScoreTables (or a mapping name -> one of them), got "
                f"{type(item).__name__}"
            )
    return out, files


def survey(
    leaderboards: Any,
    *,
    frontier: float = 0.5,
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = False,
) -> Survey:
    """The blind spot of several leaderboards side by side: what ``blindspot survey`` computes, as an object.

    Each leaderboard gets the numbers ``blindspot analyze`` reports on it (d_eff on all models and on
    the frontier with bootstrap intervals, the Marchenko-Pastur signal count, whether #1 is resolved,
    the greedy subset for 90% coverage and its stable core, 2 R omega), with one frontier rule for all
    (mean z-score at least the ``frontier`` quantile); missing cells are completed when the completion
    passes its cross-validation check, otherwise the densest complete block is analysed; a statistic a
    leaderboard has too few models for is "—" with the reason.

    Parameters
    ----------
    leaderboards : path, DataFrame, ScoreTable, a sequence of them, or a mapping name -> one of them
        A path is a score file (CSV, TSV, parquet, JSON) or a folder of them (one leaderboard per file).
    frontier : float, default 0.5
        The frontier's quantile of the mean z-score, as :func:`blindspot.analyze` (``--frontier``); the same for
        every leaderboard.
    n_boot : int, default 1000
        Bootstrap resamples of the d_eff intervals, as :func:`blindspot.analyze` (``--n-boot``).
    seed : int, default 0
        Seed of every resampling, as :func:`blindspot.analyze` (``--seed``).
    progress : bool
        A progress bar over the leaderboards.

    Returns
    -------
    Survey
        Shown as an HTML page in Jupyter; ``.summary`` (the table as the book shows it), ``.details``,
        ``.table`` (every number), ``.to_csv()``, ``.save(folder)`` (``survey.html`` and ``survey.csv``,
        both or neither).

    Raises
    ------
    ValueError
        One line: a setting out of range, a path that does not exist, a file the loader refuses.

    References
    ----------
    The paper's Theorem 1 (d_eff), Theorem 2 (2 R omega), App. H.21 (split halves) and Theorem 4 (greedy
    coverage); the book's chapter on the blind spot of public leaderboards (``ch-public-leaderboards``).

    Examples
    --------
    >>> import blindspot
    >>> from blindspot.data import synthetic_suite
    >>> a = synthetic_suite(n_models=80, n_benchmarks=6, n_factors=2, seed=1)
    >>> b = synthetic_suite(n_models=4, n_benchmarks=6, seed=2)
    >>> sv = blindspot.survey({"wide": a, "tiny": b}, n_boot=50)
    >>> list(sv.summary.columns)
    ['models × k', 'd_eff, frontier (95%)', 'MP signal', '#1 resolved', 'greedy, 90%']
    >>> sv.summary.loc["tiny", "d_eff, frontier (95%)"]
    '—'
    >>> sv.reasons["tiny"].split(" | ")[0]
    'd_eff (all models): needs more models than benchmarks (7 for 6 benchmarks, has 4): the correlation matrix of 4 models has rank at most 3'
    >>> 1 <= sv.table.loc["wide", "d_eff_frontier"] <= 6
    True
    """
    check_settings(frontier, n_boot, seed)
    if isinstance(leaderboards, Mapping):
        items, names = list(leaderboards.values()), [str(k) for k in leaderboards]
    elif isinstance(leaderboards, (str, os.PathLike, pd.DataFrame, ScoreTable)):
        items, names = [leaderboards], None
    else:
        items, names = list(leaderboards), None
    tables, files = read_leaderboards(items, names=names, progress=progress)
    use_theme()
    sv = survey_tables(tables, frontier=frontier, n_boot=n_boot, seed=seed, progress=progress)
    sv.inputs = files
    return sv


# ---------------------------------------------------------------------------------------------
# the command


def run_cli(args: argparse.Namespace, stop_check: Callable[[], None] | None = None) -> int:
    """``blindspot survey PATH ...``: settings and ``--out`` first, then :func:`survey`, then the staged write.

    Exit status as ``blindspot analyze``: 0 with both files written; 2 (through the caller) with one
    line for bad input or settings, before any work; 1 when the files cannot be written; 130 on Ctrl-C
    (143 on SIGTERM), nothing partial left behind.
    """
    check_settings(args.frontier, args.n_boot, args.seed)
    for p in args.paths:
        if not Path(p).expanduser().exists():
            raise ValueError(f"{p!r} does not exist; name a score file or a folder of score files")
    staged = stage_output(args.out, inputs=tuple(_input_files(args.paths)), files=SURVEY_FILES)
    try:
        sv = survey(
            list(args.paths), frontier=args.frontier, n_boot=args.n_boot, seed=args.seed, progress=not args.quiet
        )
        staged.write_texts({"survey.csv": sv.to_csv(), "survey.html": sv.to_html()})
        if stop_check is not None:
            stop_check()
        written = staged.commit()
    except WriteError as exc:
        staged.discard()
        print(f"blindspot: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        staged.discard()
        print(f"blindspot: {getattr(exc, 'what', 'interrupted')}; no survey was written", file=sys.stderr)
        return getattr(exc, "exit_status", 128 + signal.SIGINT)
    except MemoryError:
        staged.discard()
        print("blindspot: error: ran out of memory; no survey was written", file=sys.stderr)
        return 1
    except OSError as exc:
        staged.discard()
        print(f"blindspot: error: {exc.strerror or exc}; no survey was written", file=sys.stderr)
        return 1
    except BaseException:
        staged.discard()
        raise
    fmt = getattr(args, "format", None)
    if fmt == "json":  # asked for: printed even with --quiet
        print(sv.summary.to_json(orient="table", indent=1))
    elif fmt == "csv":
        print(sv.to_csv().rstrip("\n"))
    elif fmt == "table" or not args.quiet:
        buf = io.StringIO()
        sv.summary.to_string(buf)
        print(buf.getvalue())
        print(f"frontier: {sv.frontier_rule}")
    if not args.quiet:
        print("survey: " + ", ".join(map(str, written)), file=sys.stderr)
    return 0


def _input_files(paths: Sequence[str]) -> list[Path]:
    """The files a survey of ``paths`` reads (a folder's score files), so --out never overwrites one."""
    out: list[Path] = []
    for p in map(lambda x: Path(x).expanduser(), paths):
        if p.is_dir():
            out.extend(f for f in p.iterdir() if f.is_file())
        else:
            out.append(p)
    return out


@dataclass(repr=False)
class EditionSurvey:
    """Two editions' benchmarks on the one set of models that both evaluated: a survey of two rows.

    Attributes
    ----------
    survey : Survey or None
        Rows ``before`` and ``after`` (None when the table lacks either edition's benchmarks; ``reason`` says so).
    n_models : int
        Models the two editions share (0 when not surveyed).
    reason : str
        Why the editions were not surveyed ('' when they were).
    """

    survey: Survey | None
    n_models: int = 0
    reason: str = ""
    before: str = "v1's six"
    after: str = "v2's six"

    def values(self) -> dict[str, Any]:
        """``joined_n`` and the change of d_eff in words on all models (``edition_all``) and on each edition's
        frontier (``edition_front``), from :func:`blindspot.diagnose.survey_time.compare_editions`."""
        from blindspot.diagnose.survey_time import compare_editions

        if self.survey is None:
            return {
                "joined_n": 0,
                "edition_all": "not computed on this data",
                "edition_front": "not computed on this data",
            }
        out: dict[str, Any] = {"joined_n": self.n_models}
        for key, pop in (("edition_all", "all"), ("edition_front", "frontier")):
            try:
                out[key] = compare_editions(self.survey.table, self.before, self.after, pop).sentence
            except ValueError as exc:
                out[key] = f"not computed: {exc}"
        return out

    @property
    def summary(self) -> pd.DataFrame:
        """The two rows as :attr:`Survey.summary`, or one row saying why there are none."""
        if self.survey is None:
            return pd.DataFrame({"not surveyed": [self.reason]}, index=pd.Index(["editions"], name="leaderboard"))
        return self.survey.summary

    def figure(self) -> Any:
        """:func:`blindspot.diagnose.survey_figures.deff_change` of the two rows, or None."""
        from blindspot.diagnose.survey_figures import deff_change

        return None if self.survey is None else deff_change(self.survey.table)


def edition_survey(
    table: ScoreTable | None, before: Sequence[str], after: Sequence[str], n_boot: int = 1000, seed: int = 0
) -> EditionSurvey:
    """The survey of one table's models under two editions' benchmarks (the Open LLM Leaderboard's v1 and v2 on
    the models both evaluated), so that a change in d_eff is the benchmarks', not the models'.

    Parameters
    ----------
    table : ScoreTable or None
        The joined table (None, a synthetic stand-in, or one without both sets of benchmarks: not surveyed).
    before, after : sequence of str
        The two editions' benchmarks.
    n_boot, seed
        As :func:`survey_tables`.

    Returns
    -------
    EditionSurvey
    """
    if table is None or table.synthetic or not set(before) | set(after) <= set(table.benchmarks):
        return EditionSurvey(None, reason="the two editions' benchmarks are not among the leaderboards of this run")
    sv = survey_tables(
        {"v1's six": table.columns(list(before)), "v2's six": table.columns(list(after))}, n_boot=n_boot, seed=seed
    )
    return EditionSurvey(sv, table.n_models)
