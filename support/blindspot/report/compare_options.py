"""The options of ``blindspot compare``, importable without the numerics (argparse only: ``--help`` is fast).

The settings are checked by :func:`blindspot.report.options.check_settings`, as for ``analyze``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from blindspot.report.options import _AppendNames, add_format_option, add_run_options

__all__ = ["add_parser", "ITEM_FORMATS_HELP"]

#: The inputs ``compare`` reads, as ``--help`` names them.
ITEM_FORMATS_HELP = (
    "per-item results: an lm-evaluation-harness --log_samples folder (samples_*.jsonl, searched recursively), an "
    "Every Eval Ever instance-level folder (*_samples.jsonl), or a long file (CSV, TSV, parquet, JSON) with columns "
    "model, benchmark, item, score"
)


def add_parser(sub: argparse._SubParsersAction, run: Callable[[argparse.Namespace], int]) -> None:
    """The ``compare`` subcommand and its options; ``run`` is the command (it imports the numerics when called)."""
    c = sub.add_parser(
        "compare",
        help="are two models really different? paired tests on per-item results",
        description="Compare models item by item: per benchmark, the paired difference with its 95%% interval "
        "(exact McNemar for binary scores, paired bootstrap otherwise), its p-value, the items both answered and "
        "the smallest difference those items can detect; Holm-adjusted decisions across benchmarks; the macro and "
        "micro overall differences; with more than two models, which adjacent ranks are resolved. Prints a table "
        "(--format) and, with --out, writes compare.html and compare.json.",
    )
    c.add_argument("path", nargs="+", help=ITEM_FORMATS_HELP)
    c.add_argument(
        "--models",
        nargs="+",
        default=None,
        metavar="NAME",
        help="the models to compare (default: every model; two models give the paired report, more a ranking)",
    )
    c.add_argument(
        "--benchmarks",
        action=_AppendNames,
        default=None,
        metavar="NAMES",
        help="the benchmarks (tasks) to compare (default: all); repeat the flag or give a,b",
    )
    c.add_argument(
        "--lower-is-better",
        nargs="+",
        default=None,
        metavar="NAME",
        help="benchmarks whose lower scores are better: their differences are flipped and noted",
    )
    c.add_argument(
        "--reference",
        default=None,
        metavar="PATH",
        help="a leaderboard (any score file or folder analyze reads): split the difference into the part its "
        "visible directions carry and the part they miss, beside its indistinguishability radius",
    )
    add_format_option(c, default="table")
    add_run_options(c, out=None, out_help="write compare.html and compare.json into this folder (both or neither)")
    c.set_defaults(func=run)
