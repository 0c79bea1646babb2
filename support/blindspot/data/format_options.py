"""The reading options, declared once: each format's options and the one every format takes (argparse-free, no
pandas: the command line builds its flags, their help and its messages from here before anything heavy loads).

A :class:`ReadOption` is a keyword of :func:`blindspot.data.tables.load_scores` (and of :func:`blindspot.analyze`,
:func:`blindspot.survey`) and a flag of ``blindspot analyze`` and ``blindspot survey``: ``leaderboard`` is
``--leaderboard``. :data:`FORMAT_OPTIONS` says which format takes which; the registry
(:data:`blindspot.data.readers.FORMATS`) reads its entries from it, and :func:`add_read_options` makes the flags.
A new option of a format is one :class:`ReadOption` and its name in the format's entry here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "ReadOption",
    "LEADERBOARD",
    "LEVEL",
    "LOWER_IS_BETTER",
    "FORMAT_OPTIONS",
    "COMMON_OPTIONS",
    "FORMATS_HELP",
    "add_read_options",
    "read_option_names",
    "SOURCE_KEY",
    "split_source",
    "given_options",
]


@dataclass(frozen=True)
class ReadOption:
    """One reading option: its keyword, what it takes and what it does.

    Attributes
    ----------
    name : str
        The keyword (``leaderboard``); the flag is ``--`` + the name with ``-`` for ``_``.
    help : str
        What it does, for ``--help`` and the docs.
    metavar : str or None
        The flag's value in ``--help``.
    choices : tuple of str or None
        The values it accepts, when they are few.
    many : bool
        It takes names (``--lower-is-better A B``; the flag may be repeated and its names add up).
    """

    name: str
    help: str
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    many: bool = False

    @property
    def flag(self) -> str:
        """The command-line flag (``--leaderboard``)."""
        return "--" + self.name.replace("_", "-")

    def said(self) -> str:
        """How a message names it, for the command line and for Python: ``--leaderboard (leaderboard=)``."""
        return f"{self.flag} ({self.name}=)"


LEADERBOARD = ReadOption(
    "leaderboard",
    "Every Eval Ever: the leaderboard to read when the records hold several (the message lists them)",
    metavar="NAME",
)
LEVEL = ReadOption(
    "level",
    "lm-evaluation-harness (its results folder, or its results flattened into a table): count each group as one "
    "benchmark (default, its subtasks left out) or every task (the groups left out)",
    choices=("groups", "tasks"),
)
LOWER_IS_BETTER = ReadOption(
    "lower_is_better",
    "benchmarks whose lower scores are better (error rates, latencies): flipped and noted; the flag may be repeated "
    "(its names add up) and a name given twice counts once",
    metavar="NAME",
    many=True,
)

#: The options of each format of the registry, by its key (:attr:`blindspot.data.readers.ScoreFormat.key`).
#: A score file takes ``level`` when it holds lm-evaluation-harness results flattened into columns
#: (``results.<task>.<metric,filter>``, one row per run) and refuses it otherwise.
FORMAT_OPTIONS: dict[str, tuple[ReadOption, ...]] = {"eee": (LEADERBOARD,), "lm-eval": (LEVEL,), "file": (LEVEL,)}
#: The options every format takes (they act on the table, after any reader).
COMMON_OPTIONS: tuple[ReadOption, ...] = (LOWER_IS_BETTER,)

#: The input formats, as ``--help`` names them (the registry says the same; a test checks that they agree).
FORMATS_HELP = (
    "a score file (CSV, TSV, parquet or JSON, one row per model; also gzipped), Every Eval Ever aggregate results "
    "(a folder of records at any level, or record files) or lm-evaluation-harness results (a folder of "
    "results_*.json, searched recursively, or such files)"
)


def read_option_names() -> list[str]:
    """Every reading option's keyword, in the order the flags are shown."""
    seen = {o.name: o for o in COMMON_OPTIONS}
    for opts in FORMAT_OPTIONS.values():
        seen.update({o.name: o for o in opts})
    return list(seen)


def _all_options() -> list[ReadOption]:
    out: dict[str, ReadOption] = {o.name: o for o in COMMON_OPTIONS}
    for opts in FORMAT_OPTIONS.values():
        out.update({o.name: o for o in opts})
    return list(out.values())


def add_read_options(parser, action_many=None) -> None:
    """Add every reading option to an argparse ``parser`` as its flag, with its help, metavar and choices.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser (``analyze``, ``survey``).
    action_many : argparse.Action subclass, optional
        The action of an option that takes names (default: ``"extend"``, so a repeated flag adds up).
    """
    for o in _all_options():
        kw: dict = {"default": None, "help": o.help}
        if o.metavar:
            kw["metavar"] = o.metavar
        if o.choices:
            kw["choices"] = o.choices
        if o.many:
            kw.update(nargs="+", action=action_many or "extend")
        parser.add_argument(o.flag, dest=o.name, **kw)


#: The key of a chapter's ``scores`` given as a mapping: the source itself; the other keys are reading options
#: (``{"source": "runs.csv", "level": "tasks"}``, what ``blindspot book --data runs.csv --level tasks`` hands the
#: chapters).
SOURCE_KEY = "source"


def given_options(values: Mapping[str, object]) -> dict[str, object]:
    """The reading options among ``values`` (a parsed command line's ``vars(args)``, a mapping of keywords) that
    are given (not None), by their keyword; a name-taking option as a list."""
    many = {o.name for o in _all_options() if o.many}
    out: dict[str, object] = {}
    for name in read_option_names():
        v = values.get(name)
        if v is not None:
            out[name] = list(v) if name in many and not isinstance(v, str) else v
    return out


def split_source(scores: object) -> tuple[object, dict[str, object]]:
    """A chapter's ``scores`` as (the source, its reading options): a mapping ``{"source": ..., <option>: ...}``
    (the your-data book run with reading options) is split; anything else is the source, with no options.

    Raises
    ------
    ValueError
        A mapping without ``"source"``, or with a key that is no reading option (the message lists them).
    """
    if not isinstance(scores, Mapping):
        return scores, {}
    if SOURCE_KEY not in scores:
        raise ValueError(
            f"scores given as a mapping needs a {SOURCE_KEY!r} key (the file or folder), got {sorted(scores)}"
        )
    unknown = sorted(str(k) for k in scores if k != SOURCE_KEY and k not in read_option_names())
    if unknown:
        raise ValueError(
            f"scores names {', '.join(map(repr, unknown))}, which are no reading options; the reading options are "
            f"{', '.join(read_option_names())}"
        )
    return scores[SOURCE_KEY], {k: v for k, v in scores.items() if k != SOURCE_KEY and v is not None}
