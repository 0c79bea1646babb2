"""The reading options, declared once: each format's options and the one every format takes (argparse-free, no
pandas: the command line builds its flags, their help and its messages from here before anything heavy loads).

A :class:`ReadOption` is a keyword of :func:`blindspot.data.tables.load_scores` (and of :func:`blindspot.analyze`,
:func:`blindspot.survey`) and a flag of ``blindspot analyze`` and ``blindspot survey``: ``leaderboard`` is
``--leaderboard``. :data:`FORMAT_OPTIONS` says which format takes which; the registry
(:data:`blindspot.data.readers.FORMATS`) reads its entries from it, and :func:`add_read_options` makes the flags.
A new option of a format is one :class:`ReadOption` and its name in the format's entry here.
"""

from __future__ import annotations

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

