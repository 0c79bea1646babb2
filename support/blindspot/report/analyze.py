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

Modules: :mod:`~blindspot.report.reading` (file to table, the rescaling rule),
:mod:`~blindspot.report.input_checks`, :mod:`~blindspot.report.completion_check`,
:mod:`~blindspot.report.sections`, :mod:`~blindspot.report.stability`,
:mod:`~blindspot.report.width_regime`, :mod:`~blindspot.report.advice`,
:mod:`~blindspot.report.render`, :mod:`~blindspot.report.output`.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from blindspot.core.conventions import frontier
from blindspot.core.theme import use_theme
from blindspot.data.tables import ScoreTable
from blindspot.report.advice import advice
from blindspot.report.completion_check import CompletionCheck
from blindspot.report.findings import Finding, Report
from blindspot.report.input_checks import scale_ratio, value_warnings
from blindspot.report.output import stage_output
from blindspot.report.reading import prepare_table, read_input, standardise
from blindspot.report.render import ranking_frame, summary_frame, summary_text, to_html
from blindspot.report.sections import Context, ranking_rows, run_sections

__all__ = [
    "Finding",
    "Report",
    "analyze_table",
    "prepare_table",
    "read_input",
    "summary_frame",
    "summary_text",
    "ranking_frame",
    "to_html",
    "add_parser",
    "run_cli",
    "MAX_N_BOOT",
]

#: Largest --n-boot accepted: beyond it a 95% interval changes in its third digit at most, and the
#: samples alone would hold gigabytes.
MAX_N_BOOT = 100_000


def check_settings(frontier_q: float, n_boot: int, seed: int) -> None:
    """One-line ``ValueError`` for a setting out of range (before any work)."""
    if not 0 <= frontier_q < 1:
        raise ValueError(f"--frontier must be in [0, 1), got {frontier_q}")
    if not 2 <= n_boot <= MAX_N_BOOT:
        raise ValueError(
            f"--n-boot must be between 2 and {MAX_N_BOOT:,} resamples, got {n_boot:,} (1000 gives a 95% interval "
            f"to about two digits)"
        )
    if seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {seed}")


def analyze_table(
    table: ScoreTable,
    frontier_q: float = 0.5,
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = False,
    notes: list[str] | None = None,
    filled: list[tuple[str, str]] | None = None,
    completion: CompletionCheck | None = None,
) -> Report:
    """Run the whole recipe on a validated table of raw scores and return the :class:`Report`.

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
    ctx = Context(z, front, frontier_q, n_boot, seed, progress, filled=len(rep.filled_cells))
    run_sections(ctx, rep)
    rep.ranking = ranking_rows(ctx)
    rep.advice = advice(rep)
    return rep


# ---------------------------------------------------------------------------------------------
# command line


def add_parser(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser(
        "analyze",
        help="the practitioner report on a score file (HTML + JSON)",
        description="Analyse a leaderboard: d_eff, indistinguishability, swap risk (modelled and measured), rank "
        "classes, greedy benchmark subset. Writes report.html and report.json.",
    )
    a.add_argument("file", help="score file: CSV, TSV, parquet or JSON; one row per model")
    a.add_argument(
        "--frontier",
        type=float,
        default=0.5,
        metavar="Q",
        help="analyse the models whose mean z-score is >= the Q-quantile (default 0.5; 0 = all models)",
    )
    a.add_argument("--models-col", default=None, help="column with model names (default: detected)")
    a.add_argument("--benchmarks", default=None, help="comma-separated score columns (default: all numeric)")
    a.add_argument(
        "--missing",
        choices=("error", "drop-rows", "complete"),
        default="error",
        help="missing cells: fail (default), drop those rows, or complete them with LRMC (checked by cross-validation)",
    )
    a.add_argument(
        "--exclude-rows",
        default=None,
        metavar="MODELS",
        help="comma-separated model names to leave out (e.g. the rows a warning names)",
    )
    a.add_argument(
        "--n-boot", type=int, default=1000, help=f"bootstrap resamples (default 1000, at most {MAX_N_BOOT:,})"
    )
    a.add_argument("--seed", type=int, default=0, help="seed of every random step, >= 0 (default 0)")
    a.add_argument("--out", default="blindspot-report", help="output folder (default ./blindspot-report)")
    a.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    a.set_defaults(func=run_cli)


def run_cli(args: argparse.Namespace) -> int:
    """The command: settings and --out first, then the file, the analysis, the staged write."""
    benchmarks = [b.strip() for b in args.benchmarks.split(",")] if args.benchmarks else None
    exclude = [m.strip() for m in args.exclude_rows.split(",")] if args.exclude_rows else None
    check_settings(args.frontier, args.n_boot, args.seed)
    staged = stage_output(args.out, inputs=(args.file,))
    try:
        prepared = read_input(args.file, args.models_col, benchmarks, args.missing, args.seed, exclude)
        rep = analyze_table(
            prepared.table,
            args.frontier,
            args.n_boot,
            args.seed,
            progress=not args.quiet,
            notes=prepared.notes,
            filled=prepared.filled,
            completion=prepared.completion,
        )
        try:
            staged.write(rep)
            h, j = staged.commit()
        except OSError as exc:  # a full disk, a folder removed under us: one line, nothing left behind
            staged.discard()
            print(
                f"blindspot: error: could not write the report ({exc.strerror or exc}); nothing was written to "
                f"{args.out!r}",
                file=sys.stderr,
            )
            return 1
    except KeyboardInterrupt:
        staged.discard()
        print("blindspot: interrupted; no report was written", file=sys.stderr)
        return 130
    except MemoryError:
        staged.discard()
        print("blindspot: error: ran out of memory; no report was written", file=sys.stderr)
        return 1
    except BaseException:
        staged.discard()
        raise
    if not args.quiet:
        print(summary_text(rep))
        print(f"report: {h}\nnumbers: {j}", file=sys.stderr)
    return 0
