"""The survey of many leaderboards: :class:`Survey` (a frame of every number, the reports behind it, and its
displays), :func:`survey_tables` and :func:`survey` (what ``blindspot survey`` computes), the inputs it reads,
and :func:`edition_survey` (two editions' benchmarks on one set of models)."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from tqdm import tqdm

from blindspot.core.theme import use_theme
from blindspot.data import eee_aggregate
from blindspot.data.discovery import SCORE_SUFFIXES, leaderboard_sources
from blindspot.data.format_options import COMMON_OPTIONS
from blindspot.data.readers import as_paths, format_of
from blindspot.data.tables import ScoreTable, read_table
from blindspot.report.advice import RESOLVED
from blindspot.report.options import check_settings
from blindspot.report.output import stage_output
from blindspot.report.result import AnalysisReport
from blindspot.report.survey.render import survey_html
from blindspot.report.survey.rows import COLUMNS, REASON_SEPARATOR, _absent, _fmt_percent, survey_row
from blindspot.report.survey.verdicts import SurveyVerdicts, survey_verdicts

__all__ = [
    "Survey",
    "survey",
    "survey_tables",
    "leader_counts",
    "read_leaderboards",
    "EditionSurvey",
    "edition_survey",
    "SURVEY_FILES",
    "SCORE_SUFFIXES",
]

#: What ``blindspot survey --out`` writes, both or neither.
SURVEY_FILES = ("survey.html", "survey.csv")


# many leaderboards


def _timed_row(
    name: str, table: ScoreTable, frontier: float, n_boot: int, seed: int
) -> tuple[dict[str, Any], AnalysisReport | None, float]:
    t0 = time.perf_counter()
    row, rep = survey_row(name, table, frontier, n_boot, seed)
    return row, rep, time.perf_counter() - t0


def _fmt_num(v: Any, spec: str = ".3g") -> str:
    return "—" if _absent(v) else format(v, spec)


def _fmt_interval(v: Any, lo: Any, hi: Any, widened: Any = "") -> str:
    if _absent(v):
        return "—"
    return f"{v:.3g} ({lo:.3g}–{hi:.3g}{', widened' if isinstance(widened, str) and widened else ''})"


def _fmt_share(v: Any) -> str:
    return "—" if _absent(v) else f"{v:.0%}"


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
    if _absent(r["models"]):  # a leaderboard that could not be read
        return "—"
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
        (:func:`~blindspot.report.survey.verdicts.survey_verdicts`)."""
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


def _applicable(src: Path, options: Mapping[str, Any]) -> dict[str, Any]:
    """The reading options given that ``src``'s format takes (``--leaderboard`` reaches only Every Eval Ever
    sources of a survey, ``--level`` only harness results; ``lower_is_better`` every source)."""
    fmt = format_of(as_paths(src))
    takes = {o.name for o in COMMON_OPTIONS} | set(fmt.option_names if fmt is not None else ())
    return {k: v for k, v in options.items() if k in takes and v not in (None, ())}


def _read_source(
    src: Path, name: str, progress: bool, unreadable: dict[str, str] | None, options: Mapping[str, Any] | None = None
) -> list[tuple[str, ScoreTable]]:
    """The tables of one source: one, or one per leaderboard of Every Eval Ever records holding several; a
    refusal raised, or recorded in ``unreadable`` when given."""
    opts = _applicable(src, options or {})
    lower = opts.pop("lower_is_better", None)
    try:
        out = [(name, read_table(src, missing="keep", progress=progress, **opts))]
    except eee_aggregate.SeveralLeaderboards as several:
        out = []
        opts.pop("leaderboard", None)
        for board in several.names:
            out += [(b, t) for b, t in _read_one(src, board, progress, unreadable, leaderboard=board, **opts)]
    except ValueError as exc:
        if unreadable is None:
            raise ValueError(f"{src}: {exc}") from exc
        unreadable[name] = f"{src}: {exc}"
        return []
    if lower:  # a survey's lower-is-better names act on the leaderboards that have those benchmarks
        names = [lower] if isinstance(lower, str) else list(lower)
        out = [
            (b, read_table(t, missing="keep", lower_is_better=[n for n in names if n in t.benchmarks])) for b, t in out
        ]
    return out


def _read_one(
    src: Path, name: str, progress: bool, unreadable: dict[str, str] | None, leaderboard: str, **opts: Any
) -> list[tuple[str, ScoreTable]]:
    try:
        return [(name, read_table(src, missing="keep", progress=progress, leaderboard=leaderboard, **opts))]
    except ValueError as exc:
        if unreadable is None:
            raise ValueError(f"{src} ({leaderboard}): {exc}") from exc
        unreadable[name] = f"{src} ({leaderboard}): {exc}"
        return []


def read_leaderboards(
    items: Sequence[Any],
    names: Sequence[str] | None = None,
    progress: bool = False,
    unreadable: dict[str, str] | None = None,
    options: Mapping[str, Any] | None = None,
) -> tuple[dict[str, ScoreTable], list[str]]:
    """Each item as one or more named score tables (missing cells kept as NaN), and the files read.

    An item is a path (a score file or a folder in any format :func:`blindspot.data.tables.read_table`
    reads; a folder holding several leaderboards gives one table each: :func:`~blindspot.data.discovery.leaderboard_sources`), a
    DataFrame (one row per model; names in its index or a column), or a :class:`ScoreTable`. Names:
    ``names`` when given (one per item, not for a folder of several leaderboards), else a file's stem or
    a folder's name, a table's name, ``frame 1``, ...; a repeated name gets `` #2``. Records holding several
    Every Eval Ever leaderboards give one table each. With ``unreadable`` (a dict), a leaderboard the reader
    refuses (two models, one benchmark) is recorded there (name -> the reader's line) instead of raising.

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
            sources = leaderboard_sources(p) if p.is_dir() else [(p.stem, p)]
            if given is not None and len(sources) > 1:
                raise ValueError(f"{str(item)!r} holds {len(sources)} leaderboards; names= names one leaderboard each")
            for name, src in sources:
                for board, t in _read_source(src, name, progress, unreadable, options):
                    add(given or board, t)
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
    leaderboard: str | None = None,
    level: str | None = None,
    lower_is_better: Sequence[str] | str = (),
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
    leaderboard : str, optional
        Every Eval Ever: the leaderboard to read from sources holding several (``--leaderboard``); applied to
        the Every Eval Ever sources only (:mod:`blindspot.data.format_options`).
    level : {'groups', 'tasks'}, optional
        lm-evaluation-harness: each group as one benchmark or every task (``--level``); applied to harness
        results only.
    lower_is_better : list of str or str
        Benchmarks whose lower scores are better (``--lower-is-better``), flipped in every leaderboard that has
        them.

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
    unreadable: dict[str, str] = {}
    options = {"leaderboard": leaderboard, "level": level, "lower_is_better": lower_is_better}
    tables, files = read_leaderboards(items, names=names, progress=progress, unreadable=unreadable, options=options)
    if not tables:
        raise ValueError("no leaderboard could be read: " + "; ".join(unreadable.values()))
    use_theme()
    sv = survey_tables(tables, frontier=frontier, n_boot=n_boot, seed=seed, progress=progress)
    sv.inputs = files
    return _with_unreadable(sv, unreadable)


def _with_unreadable(sv: Survey, unreadable: Mapping[str, str]) -> Survey:
    """The survey with one row per leaderboard that could not be read: every statistic "—", the reason in
    ``not_computed`` and in ``settings['notes']``."""
    if not unreadable:
        return sv
    rows = {}
    for name, why in unreadable.items():
        row: dict[str, Any] = {c: None for c in COLUMNS}
        row.update(
            synthetic=False,
            cells_used="none",
            not_computed=f"every statistic: the leaderboard could not be read ({why})",
        )
        rows[name] = row
    extra = pd.DataFrame.from_dict(rows, orient="index", columns=list(COLUMNS))
    frame = _typed(pd.concat([sv.table, extra]))
    frame.index.name = "leaderboard"
    sv.table = frame
    sv.settings.setdefault("notes", []).extend(f"{n}: not read: {w}" for n, w in unreadable.items())
    return sv


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

    def quantities(self) -> dict[str, Any]:
        """``joined_n`` and the change of d_eff in words on all models (``edition_all``) and on each edition's
        frontier (``edition_front``), from :func:`blindspot.diagnose.survey_estimates.compare_editions`."""
        from blindspot.diagnose.survey_estimates import compare_editions

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
