"""The options of ``blindspot analyze`` and their checks, importable without the numerics.

``blindspot --help`` and ``blindspot analyze --help`` build the parser from this module alone
(argparse and nothing heavy), so they answer before numpy, pandas or matplotlib are loaded; the
command itself (:func:`blindspot.report.analyze.run_cli`) is imported only when it runs.
:func:`check_settings` is the one check of the numeric settings, shared by the command line and
:func:`blindspot.report.analyze.analyze`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from numbers import Integral, Real

# the reading options and the formats' sentence, declared once in the data floor (argparse-free, no pandas)
from blindspot.data.format_options import FORMATS_HELP, LEVEL, add_read_options

__all__ = [
    "MAX_N_BOOT",
    "MISSING_POLICIES",
    "LEVELS",
    "CommaNames",
    "add_parser",
    "add_frontier_option",
    "add_run_options",
    "add_format_option",
    "OUTPUT_FORMATS",
    "check_settings",
    "split_names",
]

#: Largest --n-boot accepted: beyond it a 95% interval changes in its third digit at most, and the
#: samples alone would hold gigabytes.
MAX_N_BOOT = 100_000

#: What ``--missing`` accepts: fail, drop the rows with a missing cell, or complete them (checked).
MISSING_POLICIES = ("error", "drop-rows", "complete")
#: What ``--format`` prints to standard output: the summary table, the numbers as JSON, or the table as CSV.
OUTPUT_FORMATS = ("table", "json", "csv")
#: What ``--level`` accepts (lm-evaluation-harness: each group once, or every task).
LEVELS = LEVEL.choices


class CommaNames(list):
    """Names given with a repeatable flag, each value one name or names separated by commas (``--benchmarks
    a,b``): the table resolves each value, keeping a name that holds a comma (``acc,none``) whole."""


def check_settings(frontier_q: float, n_boot: int, seed: int) -> None:
    """One-line ``ValueError`` for a setting out of range (before any work)."""
    if isinstance(frontier_q, bool) or not isinstance(frontier_q, Real) or not 0 <= frontier_q < 1:
        raise ValueError(f"--frontier must be in [0, 1), got {frontier_q!r}")
    if isinstance(n_boot, bool) or not isinstance(n_boot, Integral) or not 2 <= n_boot <= MAX_N_BOOT:
        raise ValueError(
            f"--n-boot must be between 2 and {MAX_N_BOOT:,} resamples, got {n_boot!r} (1000 gives a 95% interval "
            f"to about two digits)"
        )
    if isinstance(seed, bool) or not isinstance(seed, Integral) or seed < 0:
        raise ValueError(f"--seed must be a non-negative integer, got {seed!r}")


def split_names(value: str | None) -> list[str] | None:
    """``--exclude-rows A,B`` as a list of names (None: none)."""
    return [b.strip() for b in value.split(",")] if value else None


class _AppendNames(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        current = getattr(namespace, self.dest) or CommaNames()
        current.extend(values if isinstance(values, list) else [values])
        setattr(namespace, self.dest, current)


class _JoinNames(argparse.Action):
    """A comma-separated names flag that may be repeated: the values add up (``--exclude-rows a --exclude-rows b``
    is ``a,b``; a second flag used to replace the first)."""

    def __call__(self, parser, namespace, values, option_string=None):
        current = getattr(namespace, self.dest)
        setattr(namespace, self.dest, f"{current},{values}" if current else values)


def add_parser(sub: argparse._SubParsersAction, run: Callable[[argparse.Namespace], int]) -> None:
    """The ``analyze`` subcommand and its options; ``run`` is the command (it imports the numerics when called)."""
    a = sub.add_parser(
        "analyze",
        help="the practitioner report on a score file (HTML + JSON)",
        description="Analyse a leaderboard: d_eff, indistinguishability, swap risk (modelled and measured), rank "
        "classes, greedy benchmark subset. Writes report.html and report.json.",
    )
    a.add_argument("file", nargs="+", help=f"the scores: {FORMATS_HELP}")
    add_frontier_option(a, "analyse the models whose mean z-score is >= the Q-quantile (default 0.5; 0 = all models)")
    a.add_argument("--models-col", default=None, help="column with model names (default: detected)")
    a.add_argument(
        "--benchmarks",
        action=_AppendNames,
        default=None,
        metavar="NAMES",
        help="score columns (default: every column of scores); repeat the flag for names that hold a comma "
        "(--benchmarks 'acc,none' --benchmarks 'f1,none'), or give a,b where unambiguous",
    )
    add_read_options(a)  # --lower-is-better, --leaderboard, --level: from their one declaration
    a.add_argument(
        "--missing",
        choices=MISSING_POLICIES,
        default="error",
        help="missing cells: fail (default), drop those rows, or complete them with LRMC (checked by cross-validation)",
    )
    a.add_argument(
        "--exclude-rows",
        action=_JoinNames,
        default=None,
        metavar="MODELS",
        help="comma-separated model names to leave out (e.g. the rows a warning names); the flag may be repeated",
    )
    add_format_option(a)
    add_run_options(
        a,
        out="blindspot-report",
        out_help="output folder (default ./blindspot-report); never the input or a folder that holds it as report.*",
    )
    a.set_defaults(func=run)


def add_frontier_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--frontier Q`` (default 0.5, checked by :func:`check_settings`): the frontier's quantile of the mean z-score.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser.
    help_text : str
        The option's help text (what the command does with the frontier).
    """
    parser.add_argument("--frontier", type=float, default=0.5, metavar="Q", help=help_text)


def add_run_options(parser: argparse.ArgumentParser, out: str, out_help: str) -> None:
    """The options ``analyze`` and ``survey`` share, last on each command: ``--n-boot``, ``--seed`` (both checked
    by :func:`check_settings`), ``--out`` and ``--quiet``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser.
    out : str
        The default output folder.
    out_help : str
        The help text of ``--out`` (what the folder may not be).
    """
    parser.add_argument(
        "--n-boot", type=int, default=1000, help=f"bootstrap resamples (default 1000, at most {MAX_N_BOOT:,})"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of every random step, >= 0 (default 0)")
    parser.add_argument("--out", default=out, help=out_help)
    parser.add_argument("--quiet", action="store_true", help="no progress bar or summary")


def add_format_option(parser: argparse.ArgumentParser, default: str | None = None) -> None:
    """``--format table|json|csv``: what the command prints to standard output.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser.
    default : str, optional
        The format when the flag is not given; None keeps the command's summary (hidden by ``--quiet``),
        while a format given is printed even with ``--quiet``.
    """
    parser.add_argument(
        "--format",
        choices=OUTPUT_FORMATS,
        default=default,
        help="print the result to standard output as a table, JSON or CSV"
        + (f" (default {default})" if default else " (default: the summary; printed even with --quiet)"),
    )
