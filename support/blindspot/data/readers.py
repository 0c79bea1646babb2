"""The one registry of input formats: every source of scores is read by the first format that detects it.

``blindspot analyze PATH``, :func:`blindspot.analyze` and ``blindspot book --data PATH`` (through
:func:`blindspot.data.tables.load_scores`) all read through :func:`read_scores`. A format is a
:class:`ScoreFormat`: a name, what it accepts (said in messages, ``--help``, the README and the book),
``detect(paths) -> bool`` and ``read(paths, **options) -> RawFrame``. Formats are tried in the order of
:data:`FORMATS`; the score files (CSV, TSV, parquet, JSON) come last, as the one that takes any single file
and says precisely what is wrong with it.

Adding a format is one module with its ``detect`` and ``read`` and one line in :data:`FORMATS` (the recipe
is in CONTRIBUTING.md, "Add an input format").
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from blindspot.data import eee_aggregate, lm_eval_results, score_files
from blindspot.data.columns import name_list
from blindspot.data.format_options import FORMAT_OPTIONS, ReadOption
from blindspot.data.raw_frame import RawFrame

__all__ = [
    "ScoreFormat",
    "FORMATS",
    "Source",
    "as_paths",
    "read_scores",
    "format_of",
    "formats_text",
    "format_names",
]

#: What a reader is given: one path (a file or a folder) or several.
Source = str | os.PathLike | Sequence[str | os.PathLike]


@dataclass(frozen=True)
class ScoreFormat:
    """One input format: how to recognise it and how to read it.

    Attributes
    ----------
    key : str
        Short name (``RawFrame.format``).
    name : str
        What it is, for messages (``"Every Eval Ever aggregate results"``).
    accepts : str
        What a user gives for it (a folder, files, their layout).
    detect : callable
        ``detect(paths: tuple[Path, ...]) -> bool``, cheap: it looks at names and at most one file's start.
    read : callable
        ``read(paths, *, leaderboard=None, level=None, progress=False) -> RawFrame``; ``ValueError`` (one line)
        for anything it cannot read.
    options : tuple of ReadOption
        The reading options the format takes (:data:`blindspot.data.format_options.FORMAT_OPTIONS`, declared
        there once: the command's flags, their help and the messages are made from them); any other given is
        refused, naming it.
    """

    key: str
    name: str
    accepts: str
    detect: Callable[[tuple[Path, ...]], bool]
    read: Callable[..., RawFrame]
    options: tuple[ReadOption, ...] = ()

    @property
    def option_names(self) -> tuple[str, ...]:
        """The keywords of :attr:`options`."""
        return tuple(o.name for o in self.options)


#: Every input format, in the order they are tried.
FORMATS: tuple[ScoreFormat, ...] = (
    ScoreFormat(
        "eee",
        "Every Eval Ever aggregate results",
        "a folder of <leaderboard>/<developer>/<model>/<uuid>.json records at any level (the store's root, one "
        "leaderboard's folder) or a list of such files",
        eee_aggregate.detect,
        eee_aggregate.read,
        FORMAT_OPTIONS["eee"],
    ),
    ScoreFormat(
        "lm-eval",
        "lm-evaluation-harness results",
        "a folder of its results_*.json files (searched recursively) or a list of them",
        lm_eval_results.detect,
        lm_eval_results.read,
        FORMAT_OPTIONS["lm-eval"],
    ),
    ScoreFormat(
        "file",
        "a score file",
        "CSV, TSV, parquet or JSON, one row per model (or long format), also gzipped",
        score_files.detect,
        score_files.read,
        FORMAT_OPTIONS["file"],
    ),
)


def formats_text() -> str:
    """The formats, one clause each, for messages, ``--help`` and the README."""
    return "; ".join(f"{f.name}: {f.accepts}" for f in FORMATS)


def format_names() -> str:
    """The formats' names in one phrase ("a score file, Every Eval Ever aggregate results or ...")."""
    names = [f.name for f in reversed(FORMATS)]
    return ", ".join(names[:-1]) + " or " + names[-1]


def as_paths(source: Source) -> tuple[Path, ...]:
    """The paths of a source (one path or several), each checked to exist.

    Raises
    ------
    ValueError
        No path, or a path that does not exist.
    """
    items = [source] if isinstance(source, (str, os.PathLike)) else list(source)
    if not items:
        raise ValueError("no score file or folder was given")
    paths = []
    for item in items:
        if not isinstance(item, (str, os.PathLike)):
            raise ValueError(f"a score source is a path or a list of paths, got {type(item).__name__}")
        p = Path(item).expanduser()
        if not os.path.lexists(p) or (p.is_symlink() and not p.exists()):
            raise ValueError(f"score file {str(p)!r} does not exist")
        paths.append(p)
    return tuple(paths)


def format_of(paths: Sequence[Path]) -> ScoreFormat | None:
    """The first format of :data:`FORMATS` that detects ``paths`` (None: none does)."""
    return next((f for f in FORMATS if f.detect(tuple(paths))), None)


def read_scores(
    source: Source,
    *,
    leaderboard: str | None = None,
    level: str | None = None,
    progress: bool = False,
) -> RawFrame:
    """Read a source of scores with the first format of :data:`FORMATS` that detects it.

    Parameters
    ----------
    source : path or sequence of paths
        A score file, a folder (Every Eval Ever records, lm-evaluation-harness results), or several files.
    leaderboard : str, optional
        Every Eval Ever: the leaderboard to read when the records hold several.
    level : {'groups', 'tasks'}, optional
        lm-evaluation-harness: count each group as one benchmark (default) or every task.
    progress : bool
        Show a progress bar while a large source is read.

    Returns
    -------
    RawFrame
        The frame as read, with what its format declares (:class:`blindspot.data.raw_frame.RawFrame`).

    Raises
    ------
    ValueError
        A path that does not exist, a source no format reads (the message lists the formats), an
        option the format does not take, or whatever the format's reader refuses.
    """
    paths = as_paths(source)
    given = {"leaderboard": leaderboard, "level": level}
    fmt = format_of(paths)
    if fmt is not None:
        declared = {o.name: o for f in FORMATS for o in f.options}
        extra = [declared[k] for k, v in given.items() if v is not None and k not in fmt.option_names]
        if extra:
            flags = ", ".join(o.said() for o in extra)
            raise ValueError(f"{flags} applies to other formats; {_shown(paths)} is read as {fmt.name}")
        return fmt.read(paths, progress=progress, **{k: v for k, v in given.items() if k in fmt.option_names})
    if len(paths) == 1 and paths[0].is_dir():
        raise ValueError(
            f"{_shown(paths)} is a directory holding none of the formats this reader knows ({formats_text()}); give a "
            f"score file or such a folder"
        )
    raise ValueError(
        f"{_shown(paths)}: several paths were given, but they are not all Every Eval Ever records or all "
        f"lm-evaluation-harness results; give one score file, or files of one of those formats"
    )


def _shown(paths: Sequence[Path]) -> str:
    if len(paths) == 1:
        return repr(str(paths[0]))
    return name_list([repr(str(p)) for p in paths], limit=3)
