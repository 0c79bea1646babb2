"""``blindspot analyze FILE``: the practitioner recipe on any score matrix, as a report.

Diagnose (d_eff with its bootstrap interval and Marchenko-Pastur correction), prognose (population
radius, exact covering radius, delta_vis = 2 R omega, top-pair gap, the chi-squared swap model and
rank classes, beside what the file itself shows about #1: split benchmarks and resampled models;
the width-model regime) and treat (the greedy subset for 90% coverage and its stable core), each
with a plain-language reading, opened by a paragraph of advice. Writes ``report.html`` (figures
embedded) and ``report.json`` (every number) to ``--out`` and prints a summary.

The command checks its arguments and ``--out`` before reading the file, stages the report beside
``--out`` and renames it into place only when it is complete (:mod:`blindspot.report.output`).
Bad input: one line on stderr, exit status 2. A failure to write: one line, exit 1. Ctrl-C: one
line, exit 130. Nothing half-written in any case.

:func:`analyze` is the one entry: the command line calls it with the command's options, and a
notebook calls it as ``blindspot.analyze(frame_or_path_or_table, **options)``; it returns the
:class:`~blindspot.report.findings.Report`, which renders itself in Jupyter and saves itself with
the command's writer.

Modules: :mod:`~blindspot.report.options` (the parser, cheap to import), :mod:`~blindspot.report.reading` (file to table, the rescaling rule),
:mod:`~blindspot.report.input_checks`, :mod:`~blindspot.report.completion_check`,
:mod:`~blindspot.report.sections`, :mod:`~blindspot.report.stability`,
:mod:`~blindspot.report.width_regime`, :mod:`~blindspot.report.advice`,
:mod:`~blindspot.report.render`, :mod:`~blindspot.report.output`.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from blindspot.core.conventions import frontier
from blindspot.core.theme import use_theme
from blindspot.data.tables import ScoreTable
from blindspot.report.advice import advice
from blindspot.report.completion_check import CompletionCheck
from blindspot.report.findings import Finding
from blindspot.report.input_checks import scale_ratio, value_warnings
from blindspot.report.options import MAX_N_BOOT, check_settings, split_benchmarks
from blindspot.report.output import WriteError, stage_output
from blindspot.report.reading import PreparedInput, prepare_frame, prepare_table, read_input, standardise
from blindspot.report.render import ranking_frame, summary_frame, summary_text, to_html
from blindspot.report.result import Report
from blindspot.report.sections import Context, ranking_rows, run_sections

__all__ = [
    "Finding",
    "Report",
    "analyze",
    "analyze_table",
    "prepare_table",
    "read_input",
    "summary_frame",
    "summary_text",
    "ranking_frame",
    "to_html",
    "check_settings",
    "run_cli",
    "MAX_N_BOOT",
]


def analyze_table(
    table: ScoreTable,
    frontier_q: float = 0.5,
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = False,
    notes: list[str] | None = None,
    filled: list[tuple[str, str]] | None = None,
    completion: CompletionCheck | None = None,
    figures: bool = True,
) -> Report:
    """Run the whole recipe on a validated table of raw scores and return the :class:`Report`.

    ``figures=False`` computes every number and draws no figure (the survey of many leaderboards).

    The table is standardised first (:func:`blindspot.report.reading.standardise`); the frontier
    is the models whose mean z-score is at least the ``frontier_q`` quantile (0: every model).
    Sections that need more models than the table or its frontier has are reported as skipped.
    """
    check_settings(frontier_q, n_boot, seed)
    use_theme()
    notes = list(notes or [])
    observed = table.scores.copy()
    for m, b in filled or []:  # warn about the values the file holds, not the ones completion wrote
        observed.loc[m, b] = np.nan
    warnings = list(table.warnings) + value_warnings(observed)  # the loader's first: cells, shifted rows
    ratio = scale_ratio(table.scores)
    if ratio >= 3:
        notes.append(
            f"column scales differ by a factor {ratio:.0f} (largest over smallest standard deviation, e.g. Elo beside "
            f"percentages): as always, every column was standardised (z-scored) before the analysis, so no column's "
            f"units weigh more in the frontier or the aggregate"
        )
    z = standardise(table)
    front: ScoreTable | None
    if frontier_q > 0:
        try:
            front = frontier(z, frontier_q)
        except ValueError:
            front = None  # fewer than 3 models: the frontier sections are skipped
    else:
        front = z
    if front is not None and front.n_models >= 3:
        notes.append(
            f"the frontier is the {front.n_models} models whose mean z-score is at least its {frontier_q:.0%} quantile"
            if frontier_q > 0
            else "every model is analysed (--frontier 0)"
        )
    rep = Report(
        table.source,
        {
            "frontier_q": frontier_q,
            "n_boot": n_boot,
            "seed": seed,
            "n_models": table.n_models,
            "n_frontier": 0 if front is None else front.n_models,
            "benchmarks": table.benchmarks,
            "rescaling": "every column z-scored (ddof 0); frontier on the mean z-score",
        },
        notes=notes,
        filled_cells=list(filled or []),
        warnings=warnings,
    )
    if completion is not None:
        rep.settings["completion"] = {
            "observed_share": completion.observed_share,
            "cv_rmse_completion": completion.rmse_completion,
            "cv_rmse_column_mean": completion.rmse_column_mean,
            "sd_observed": completion.sd_observed,
            "n_folds": completion.n_folds,
        }
    ctx = Context(z, front, frontier_q, n_boot, seed, progress, filled=len(rep.filled_cells), figures=figures)
    run_sections(ctx, rep)
    rep.ranking = ranking_rows(ctx)
    rep.advice = advice(rep)
    return rep


# ---------------------------------------------------------------------------------------------
# the one entry: a notebook and the command line


def _frame_input(df: pd.DataFrame, models_col: str | None) -> tuple[pd.DataFrame, str | None]:
    """A frame with the model names in its index gets them as a column (the loader's layout).

    The index holds model names when it is named or not made of integers (an integer index without
    a name is row numbers, as after ``pd.read_csv`` or a filter, and the model column is detected).
    """
    idx = df.index
    names_in_index = idx.name is not None or not (
        pd.api.types.is_integer_dtype(idx.dtype) or isinstance(idx, pd.RangeIndex)
    )
    if not names_in_index or (models_col is not None and models_col in map(str, df.columns)):
        return df, models_col
    if isinstance(idx, pd.MultiIndex):
        raise ValueError(
            "the frame has a MultiIndex; give one row per model, with the model names in the index or in a column"
        )
    name = str(idx.name) if idx.name is not None else "model"
    if name in map(str, df.columns):
        raise ValueError(
            f"the frame's index is named {name!r}, as one of its columns; rename one (the index is taken for the "
            f"model names)"
        )
    return df.rename_axis(name).reset_index(), models_col or name


def _prepare(
    data: Any,
    models_col: str | None,
    benchmarks: list[str] | None,
    missing: str,
    seed: int,
    exclude_rows: list[str] | None = None,
) -> tuple[PreparedInput, list[str]]:
    """The validated table from a path, a frame or a ScoreTable, and the files it was read from."""
    if isinstance(data, ScoreTable):
        key = next(n for n in ("model", "model_name", "_model") if n not in data.benchmarks)
        frame = data.scores.rename_axis(key).reset_index()
        chosen = benchmarks if benchmarks is not None else list(data.benchmarks)
        prepared = prepare_frame(
            frame,
            key,
            chosen,
            missing,
            seed,
            name=data.name,
            source=data.source,
            notes=data.notes,
            exclude_rows=exclude_rows,
        )
        return prepared, []
    if isinstance(data, pd.DataFrame):
        frame, models_col = _frame_input(data, models_col)
        return prepare_frame(
            frame, models_col, benchmarks, missing, seed, source="a DataFrame", exclude_rows=exclude_rows
        ), []
    if isinstance(data, (str, os.PathLike)):
        return read_input(data, models_col, benchmarks, missing, seed, exclude_rows), [os.fspath(data)]
    raise ValueError(
        f"analyze() takes a DataFrame (one row per model), a path to a score file or a ScoreTable, got "
        f"{type(data).__name__}"
    )


def analyze(
    data: pd.DataFrame | str | os.PathLike | ScoreTable,
    *,
    frontier: float = 0.5,
    models_col: str | None = None,
    benchmarks: list[str] | str | None = None,
    missing: str = "error",
    exclude_rows: list[str] | str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = False,
    figures: bool = True,
) -> Report:
    """The report on a leaderboard: what ``blindspot analyze`` computes, as an object.

    Parameters
    ----------
    data : DataFrame, path or ScoreTable
        One row per model and one column per benchmark. A DataFrame has the model names in its
        index (named, or not integers) or in a column (detected, or named by ``models_col``); a
        path is read as the command reads it (CSV, TSV, parquet, JSON); a
        :class:`~blindspot.data.tables.ScoreTable` is taken with its benchmarks.
    frontier, models_col, benchmarks, missing, exclude_rows, n_boot, seed
        The command's options ``--frontier``, ``--models-col``, ``--benchmarks`` (a list or
        ``"a,b"``), ``--missing``, ``--exclude-rows`` (a list or ``"a,b"``), ``--n-boot``, ``--seed``,
        with the same defaults and checks.
    progress : bool
        Show the bootstrap's progress bar (the command shows it unless ``--quiet``).
    figures : bool
        Draw the report's figures (False: the same numbers, no figure; faster).

    Returns
    -------
    Report
        Shown as the HTML report in Jupyter; ``.d_eff``, ``.d_eff_interval``, ``.ranking_table``,
        ``.to_json()``, ``.save(folder)`` (both files or neither, as the command writes them).

    Raises
    ------
    ValueError
        One line naming what is wrong: a setting out of range, a file or frame the loader refuses.
    """
    check_settings(frontier, n_boot, seed)
    if isinstance(benchmarks, str):
        benchmarks = split_benchmarks(benchmarks)
    if isinstance(exclude_rows, str):
        exclude_rows = split_benchmarks(exclude_rows)
    prepared, files = _prepare(
        data, models_col, None if benchmarks is None else list(benchmarks), missing, seed, exclude_rows
    )
    rep = analyze_table(
        prepared.table,
        frontier,
        n_boot,
        seed,
        progress=progress,
        notes=prepared.notes,
        filled=prepared.filled,
        completion=prepared.completion,
        figures=figures,
    )
    rep.inputs = files
    return rep


def run_cli(args: argparse.Namespace, stop_check: Callable[[], None] | None = None) -> int:
    """The command: settings and --out first, then :func:`analyze` on the file, then the staged write.

    ``stop_check`` (the command's :func:`blindspot.cli._raise_if_stopped`) runs just before the
    report is put in place and raises :class:`KeyboardInterrupt` if a stop signal came whose
    exception was swallowed on the way (then the staging folder is removed, as for any Ctrl-C)."""
    check_settings(args.frontier, args.n_boot, args.seed)
    staged = stage_output(args.out, inputs=(args.file,))
    try:
        rep = analyze(
            args.file,
            frontier=args.frontier,
            models_col=args.models_col,
            benchmarks=split_benchmarks(args.benchmarks),
            missing=args.missing,
            exclude_rows=args.exclude_rows,
            n_boot=args.n_boot,
            seed=args.seed,
            progress=not args.quiet,
        )
        staged.write(rep)
        if stop_check is not None:
            stop_check()
        h, j = staged.commit()
    except WriteError as exc:  # a full disk, a report file that is a folder: one line, nothing replaced
        staged.discard()
        print(f"blindspot: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM (see blindspot.cli.Interrupted)
        staged.discard()
        print(f"blindspot: {getattr(exc, 'what', 'interrupted')}; no report was written", file=sys.stderr)
        return getattr(exc, "exit_status", 128 + signal.SIGINT)
    except MemoryError:
        staged.discard()
        print("blindspot: error: ran out of memory; no report was written", file=sys.stderr)
        return 1
    except OSError as exc:  # a folder removed under us...
        staged.discard()
        print(f"blindspot: error: {exc.strerror or exc}; no report was written", file=sys.stderr)
        return 1
    except BaseException:
        staged.discard()
        raise
    if not args.quiet:
        print(summary_text(rep))
        print(f"report: {h}\nnumbers: {j}", file=sys.stderr)
    return 0
