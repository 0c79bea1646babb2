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
:class:`~blindspot.report.result.AnalysisReport`, which renders itself in Jupyter and saves itself with
the command's writer.

Modules: :mod:`~blindspot.report.options` (the parser, cheap to import), :mod:`~blindspot.report.prepare` (file to table, the rescaling rule),
:mod:`~blindspot.report.input_checks`, :mod:`~blindspot.report.completion_check`,
:mod:`~blindspot.report.sections`, :mod:`~blindspot.report.stability`,
:mod:`~blindspot.report.width_regime`, :mod:`~blindspot.report.advice`,
:mod:`~blindspot.report.render`, :mod:`~blindspot.report.output`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from blindspot.core.conventions import frontier, frontier_mask
from blindspot.core.theme import use_theme
from blindspot.data.tables import ScoreTable
from blindspot.report.advice import advice
from blindspot.report.completion_check import CompletionCheck
from blindspot.report.input_checks import distribution_warnings, scale_ratio
from blindspot.report.options import MAX_N_BOOT, CommaNames, check_settings, split_names
from blindspot.report.output import report_texts, run_staged, stage_output
from blindspot.report.prepare import prepare, prepare_scores, prepare_table, standardise
from blindspot.report.render import ranking_frame, summary_frame, summary_text, to_html
from blindspot.report.report_data import Finding
from blindspot.report.result import AnalysisReport
from blindspot.report.sections import Context, ranking_rows, run_sections

__all__ = [
    "Finding",
    "AnalysisReport",
    "analyze",
    "analyze_table",
    "prepare",
    "prepare_scores",
    "prepare_table",
    "summary_frame",
    "summary_text",
    "ranking_frame",
    "to_html",
    "check_settings",
    "run_cli",
    "formatted",
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
) -> AnalysisReport:
    """Run the whole recipe on a validated table of raw scores and return the :class:`~blindspot.report.result.AnalysisReport`.

    ``figures=False`` computes every number and draws no figure (the survey of many leaderboards).

    The table is standardised first (:func:`blindspot.report.prepare.standardise`); the frontier
    is the models whose mean z-score is at least the ``frontier_q`` quantile (0: every model).
    Sections that need more models than the table or its frontier has are reported as skipped.
    """
    check_settings(frontier_q, n_boot, seed)
    use_theme()
    notes = list(notes or [])
    observed = table.scores.copy()
    for m, b in filled or []:  # warn about the values the file holds, not the ones completion wrote
        observed.loc[m, b] = np.nan
    warnings = list(table.warnings) + distribution_warnings(observed)  # the loader's first: cells, shifted rows
    ratio = scale_ratio(table.scores)
    if ratio >= 3:
        notes.append(
            f"column scales differ by a factor {ratio:.0f} (largest over smallest standard deviation, e.g. Elo beside "
            f"percentages): as always, every column was standardised (z-scored) before the analysis, so no column's "
            f"units weigh more in the frontier or the aggregate"
        )
    z = standardise(table)
    front: ScoreTable | None = z if frontier_q == 0 else None
    n_front = z.n_models if frontier_q == 0 else int(frontier_mask(z, frontier_q).sum())
    if frontier_q > 0 and n_front >= 3:  # else the frontier sections say what they need
        try:
            front = frontier(z, frontier_q)
        except ValueError as exc:  # fewer than 2 benchmarks vary on the frontier
            notes.append(f"the frontier's sections were skipped: {exc}")
        else:  # benchmarks saturated on the frontier, left out of its sections: say which
            notes += [n for n in front.notes[len(z.notes) :] if not n.startswith("frontier:")]
    if front is not None and front.n_models >= 3:
        notes.append(
            f"the frontier is the {front.n_models} models whose mean z-score is at least its {frontier_q:.0%} quantile"
            if frontier_q > 0
            else "every model is analysed (--frontier 0)"
        )
    rep = AnalysisReport(
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
    ctx = Context(
        z,
        front,
        frontier_q,
        n_boot,
        seed,
        progress,
        filled=len(rep.filled_cells),
        figures=figures,
        frontier_models=n_front,
    )
    run_sections(ctx, rep)
    rep.ranking = ranking_rows(ctx)
    rep.advice = advice(rep)
    return rep


# ---------------------------------------------------------------------------------------------
# the one entry: a notebook and the command line


def analyze(
    data: pd.DataFrame | str | os.PathLike | Sequence[str | os.PathLike] | ScoreTable,
    *,
    frontier: float = 0.5,
    models_col: str | None = None,
    benchmarks: Sequence[str] | str | None = None,
    missing: str = "error",
    exclude_rows: Sequence[str] | str | None = None,
    lower_is_better: Sequence[str] | str = (),
    leaderboard: str | None = None,
    level: str | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = False,
    figures: bool = True,
) -> AnalysisReport:
    """The practitioner report on a leaderboard: what ``blindspot analyze`` computes, as an object.

    The scores are read and checked (any input format of :mod:`blindspot.data.readers`), every column is
    standardised, the frontier is the models whose mean z-score is at least the ``frontier`` quantile, and
    the report's sections run on it: the effective dimensionality d_eff = (sum lambda)^2 / sum lambda^2 of
    the benchmark correlation matrix with its bootstrap interval and the Marchenko-Pastur correction, the
    population and indistinguishability radii, the chi-squared swap model and rank classes, what the file
    itself shows about #1 (benchmarks split in halves, models resampled), the width-model regime and the
    greedy benchmark subset for 90% coverage.

    Parameters
    ----------
    data : DataFrame, path, list of paths or ScoreTable
        One row per model and one column per benchmark. A DataFrame has the model names in its index
        (named, or not integers) or in a column (detected, or named by ``models_col``). A path is read as
        the command reads it: a score file (CSV, TSV, parquet, JSON), a folder of Every Eval Ever records
        or of lm-evaluation-harness results, or a list of such files. A
        :class:`~blindspot.data.tables.ScoreTable` is taken with its benchmarks.
    frontier : float
        Quantile of the mean z-score from which a model is on the frontier, in [0, 1) (``--frontier``;
        0 analyses every model).
    models_col : str, optional
        The column of model names (``--models-col``; default: detected).
    benchmarks : list of str or str, optional
        The score columns (``--benchmarks``): a list of names, each taken as it is (a name may hold a
        comma, ``"acc,none"``); a string is one name, or several separated by commas when that is
        unambiguous. Default: every column that holds scores.
    missing : {'error', 'drop-rows', 'complete'}
        Missing cells: refuse (default), drop those models, or fill them by low-rank completion checked
        by cross-validation (``--missing``).
    exclude_rows : list of str or str, optional
        Models to leave out (``--exclude-rows``; a string is split at commas).
    lower_is_better : list of str or str
        Benchmarks whose lower scores are better (an error rate, a latency): flipped so that higher is
        better, with a note (``--lower-is-better``). A source's own declaration (Every Eval Ever's
        ``lower_is_better``, a harness metric's ``higher_is_better``) is honoured without it.
    leaderboard : str, optional
        Every Eval Ever: which leaderboard to read when the folder holds several (``--leaderboard``).
    level : {'groups', 'tasks'}, optional
        lm-evaluation-harness: count each group as one benchmark (default) or every task (``--level``).
    n_boot : int
        Bootstrap resamples of the d_eff interval, 2 to 100,000 (``--n-boot``).
    seed : int
        Seed of every random step, >= 0 (``--seed``).
    progress : bool
        Show progress bars while a large source is read and during the bootstrap (the command shows them
        unless ``--quiet``).
    figures : bool
        Draw the report's figures (False: the same numbers, no figure; faster).

    Returns
    -------
    AnalysisReport
        Shown as the HTML report in Jupyter; ``.d_eff``, ``.d_eff_interval``, ``.top_model``,
        ``.ranking_table``, ``.to_json()``, ``.save(folder)`` (both files or neither, as the command
        writes them).

    Raises
    ------
    ValueError
        One line naming what is wrong and the way forward: a setting out of range, a source or frame the
        loader refuses (missing cells under ``missing='error'``, a constant column, too few models).

    See Also
    --------
    blindspot.data.load_scores : the same reading, to a :class:`~blindspot.data.tables.ScoreTable`.

    References
    ----------
    The paper's Theorem 1 (d_eff and its interval), Theorem 2 and Table 2 (radii), Corollary 1 (swap
    model), Theorem 4 (greedy coverage); the book's chapter "Your leaderboard".

    Examples
    --------
    >>> import blindspot
    >>> from blindspot.data import synthetic_suite
    >>> board = synthetic_suite(n_models=40, n_benchmarks=5, n_factors=2, seed=1).scores
    >>> rep = blindspot.analyze(board, n_boot=50, seed=0)
    >>> rep.settings["n_models"], rep.settings["n_frontier"]
    (40, 20)
    >>> 1.0 <= rep.d_eff <= 5.0
    True
    >>> rep.top_model == rep.ranking_table["model"].iloc[0]
    True
    """
    check_settings(frontier, n_boot, seed)
    prepared = prepare(
        data,
        models_col=models_col,
        benchmarks=_names(benchmarks),
        benchmarks_split_commas=isinstance(benchmarks, (str, CommaNames)),
        missing=missing,
        seed=seed,
        exclude_rows=split_names(exclude_rows) if isinstance(exclude_rows, str) else exclude_rows,
        lower_is_better=() if lower_is_better is None else _names(lower_is_better),
        leaderboard=leaderboard,
        level=level,
        progress=progress,
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
    rep.inputs = prepared.inputs
    return rep


def _names(value: Sequence[str] | str | None) -> list[str] | None:
    """A list of names from a list or a string (kept whole; the table splits a string at unambiguous commas);
    anything else is handed on as it is, for the table's one check of a names option
    (:func:`blindspot.data.tables.option_names`: a number or bytes is refused in one line)."""
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    return list(value) if isinstance(value, (list, tuple)) else value  # type: ignore[return-value]


def run_cli(args: argparse.Namespace, stop_check: Callable[[], None] | None = None) -> int:
    """The command: settings and --out first, then :func:`analyze` on the file, then the staged write.

    ``stop_check`` (the command's :func:`blindspot.cli._raise_if_stopped`) runs just before the
    report is put in place and raises :class:`KeyboardInterrupt` if a stop signal came whose
    exception was swallowed on the way (then the staging folder is removed, as for any Ctrl-C)."""
    check_settings(args.frontier, args.n_boot, args.seed)
    staged = stage_output(args.out, inputs=tuple(args.file))
    status, rep, written = run_staged(
        staged,
        lambda: analyze(
            args.file if len(args.file) > 1 else args.file[0],
            frontier=args.frontier,
            models_col=args.models_col,
            benchmarks=args.benchmarks,
            missing=args.missing,
            exclude_rows=args.exclude_rows,
            lower_is_better=args.lower_is_better or (),
            leaderboard=args.leaderboard,
            level=args.level,
            n_boot=args.n_boot,
            seed=args.seed,
            progress=not args.quiet,
        ),
        report_texts,
        "no report was written",
        stop_check,
    )
    if status:
        return status
    h, j = written
    fmt = getattr(args, "format", None)
    if fmt is not None:  # asked for: printed even with --quiet
        print(formatted(rep, fmt))
    elif not args.quiet:
        print(summary_text(rep))
    if not args.quiet:
        print(f"report: {h}\nnumbers: {j}", file=sys.stderr)
    return 0


def formatted(rep: AnalysisReport, fmt: str) -> str:
    """The report as ``--format`` prints it: ``table`` (the terminal summary), ``json`` (``report.json``'s
    text) or ``csv`` (the ranking table).

    Raises
    ------
    ValueError
        An unknown format.
    """
    if fmt == "table":
        return summary_text(rep)
    if fmt == "json":
        return rep.to_json()
    if fmt == "csv":
        return ranking_frame(rep).to_csv().rstrip("\n")
    raise ValueError(f"--format must be table, json or csv, got {fmt!r}")
