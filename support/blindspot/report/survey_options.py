"""The options of ``blindspot survey``, importable without the numerics (argparse only: ``--help`` is fast).

The settings are :func:`blindspot.analyze`'s and are checked by the same function
(:func:`blindspot.report.options.check_settings`) when the command runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from blindspot.report.options import add_format_option, add_frontier_option, add_run_options

__all__ = ["add_parser"]


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
    add_run_options(
        s,
        out="blindspot-survey",
        out_help="output folder (default ./blindspot-survey); never an input or a folder that holds one as survey.*",
    )
    s.set_defaults(func=run)
