"""``blindspot survey``: its options (argparse only, so ``--help`` loads no numerics) and the command.

The settings are :func:`blindspot.analyze`'s and are checked by the same function
(:func:`blindspot.report.options.check_settings`) when the command runs; the numerics are imported
only then.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from blindspot.data.format_options import add_read_options, given_options
from blindspot.report.options import add_format_option, add_frontier_option, add_run_options, check_settings

__all__ = ["add_parser", "run_cli"]


def add_parser(sub: argparse._SubParsersAction, run: Callable[[argparse.Namespace], int]) -> None:
    """The ``survey`` subcommand and its options; ``run`` is the command (it imports the numerics when called)."""
    s = sub.add_parser(
        "survey",
        help="the blind spot of several leaderboards side by side (HTML + CSV)",
        description="Survey leaderboards: for each, d_eff on all models and on the frontier with bootstrap "
        "intervals, the Marchenko-Pastur signal count, whether #1 is resolved, the greedy subset for 90% coverage "
        "and its stable core, the indistinguishability radius 2R omega; one frontier rule for all. Writes "
        "survey.html and survey.csv.",
    )
    s.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="score files (CSV, TSV, parquet, JSON), folders of them (one leaderboard per file), Every Eval Ever "
        "folders (one leaderboard per leaderboard folder) or lm-evaluation-harness result folders",
    )
    add_frontier_option(
        s, "the frontier of each leaderboard: models whose mean z-score is >= the Q-quantile (default 0.5; 0 = all)"
    )
    add_format_option(s)
    add_read_options(
        s
    )  # the reading options of analyze, from their one declaration (applied where a format takes them)
    add_run_options(
        s,
        out="blindspot-survey",
        out_help="output folder (default ./blindspot-survey); never an input or a folder that holds one as survey.*",
    )
    s.set_defaults(func=run)


# ---------------------------------------------------------------------------------------------
# the command


def run_cli(args: argparse.Namespace, stop_check: Callable[[], None] | None = None) -> int:
    """``blindspot survey PATH ...``: settings and ``--out`` first, then :func:`~blindspot.report.survey.table.survey`, then the staged write.

    Exit status as ``blindspot analyze``: 0 with both files written; 2 (through the caller) with one
    line for bad input or settings, before any work; 1 when the files cannot be written; 130 on Ctrl-C
    (143 on SIGTERM), nothing partial left behind.
    """
    from blindspot.report.output import run_staged, stage_output  # the numerics: only now
    from blindspot.report.survey import table

    check_settings(args.frontier, args.n_boot, args.seed)
    for p in args.paths:
        if not Path(p).expanduser().exists():
            raise ValueError(f"{p!r} does not exist; name a score file or a folder of score files")
    staged = stage_output(args.out, inputs=tuple(_input_files(args.paths)), files=table.SURVEY_FILES)
    status, sv, written = run_staged(
        staged,
        lambda: table.survey(
            list(args.paths),
            frontier=args.frontier,
            n_boot=args.n_boot,
            seed=args.seed,
            progress=not args.quiet,
            **given_options(vars(args)),
        ),
        lambda sv: {"survey.csv": sv.to_csv(), "survey.html": sv.to_html()},
        "no survey was written",
        stop_check,
    )
    if status:
        return status
    for note in sv.settings.get("notes", []):  # a leaderboard that could not be read: the survey went on
        print(f"blindspot: note: {note}", file=sys.stderr)
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
