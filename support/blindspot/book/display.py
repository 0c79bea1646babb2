"""Small helpers for the book's pages: provenance notes and glue.

These return IPython display objects; myst-nb renders ``text/markdown`` outputs as MyST
(``nb_render_markdown_format: myst`` in ``_config.yml``), so admonitions show as boxes.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from numbers import Number
from pathlib import Path

import numpy as np
from IPython.display import Markdown
from matplotlib.figure import Figure
from myst_nb import glue as _glue

from blindspot.data.suites import resolve_data_dir
from blindspot.data.tables import ScoreTable

__all__ = [
    "synthetic_note",
    "data_note",
    "source_label",
    "glue",
    "glue_result",
    "glue_figures",
    "glue_paper",
    "input_notes",
]


def glue(name: str, value: object, display: bool = False) -> None:
    """myst_nb.glue with numpy scalars turned into plain Python numbers (so ``{glue:text}`x:.3f``` formats)."""

    if isinstance(value, np.generic):
        value = value.item()
    _glue(name, value, display=display)


def glue_result(prefix: str, result: object) -> None:
    """Glue every named quantity of a library result under ``{prefix}_{name}``: one call per result.

    The names are the result's own, so a chapter never names what the library computed: the result's
    ``quantities()`` mapping when it defines one, else a mapping's items, else a dataclass's fields. Only
    numbers and strings are glued (numpy scalars become Python numbers, so the prose formats them:
    ``{glue:text}`boot_lo:.2f```); booleans are not (a verdict is worded by the part's ``verdicts``), and
    arrays, frames and figures are shown by their own calls.

    Parameters
    ----------
    prefix : str
        The names' prefix (the result's name on the page).
    result : object
        A frozen dataclass of results, a mapping of named values, or an object with ``quantities()``.

    Raises
    ------
    ValueError
        ``result`` has no named quantities (not a dataclass, a mapping, nor an object with ``quantities()``).
    """
    if callable(getattr(result, "quantities", None)):
        items = dict(result.quantities()).items()
    elif isinstance(result, Mapping):
        items = result.items()
    elif dataclasses.is_dataclass(result) and not isinstance(result, type):
        items = ((f.name, getattr(result, f.name)) for f in dataclasses.fields(result))
    else:
        raise ValueError(f"glue_result needs a dataclass, a mapping or quantities(); got {type(result).__name__}")
    for key, value in items:
        if isinstance(value, np.generic):
            value = value.item()
        if isinstance(value, bool) or not isinstance(value, (Number, str)):
            continue
        glue(f"{prefix}_{key}", value)


def glue_figures(result: object, prefix: str = "fig") -> None:
    """Glue every figure of a library result under ``{prefix}-{name}``, for the page's ``{glue:figure}``
    directives: one call per result, wherever the figures stand in the prose.

    Parameters
    ----------
    result : object
        A result whose ``figures()`` maps each figure's name to a matplotlib Figure.
    prefix : str, default="fig"
        The names' prefix.

    Raises
    ------
    ValueError
        ``result`` has no ``figures()``, or one of them is not a matplotlib Figure.
    """
    if not callable(getattr(result, "figures", None)):
        raise ValueError(f"glue_figures needs a result with figures(); got {type(result).__name__}")
    for name, fig in dict(result.figures()).items():
        if not isinstance(fig, Figure):
            raise ValueError(f"figure {name!r} of {type(result).__name__} is a {type(fig).__name__}, not a Figure")
        glue(f"{prefix}-{name}", fig, display=False)


def glue_paper(ledger: object, *others: str) -> None:
    """Glue the paper's values of the ledger's chapter for the prose: each claim's ``paper`` value (when it has
    one) as ``paper_<claim id>`` (every non-word character an underscore), each run setting's as ``paper_run_<name>``.

    Parameters
    ----------
    ledger : Ledger
        The chapter's :class:`~blindspot.book.ledger.Ledger` (its registry and chapter).
    *others : str
        Ids of other chapters' claims the prose compares with (glued the same way, ``paper_<id>``).

    """
    chapter = ledger.registry.chapter(ledger.chapter)
    specs = {**chapter.claims, **{cid: ledger.registry[cid] for cid in others}}
    values = {"paper_" + re.sub(r"\W", "_", cid): s.paper for cid, s in specs.items() if s.paper is not None}
    values |= {"paper_run_" + name: spec["paper"] for name, spec in chapter.run.items()}
    for name, value in values.items():
        glue(name, value)


def synthetic_note(*tables: ScoreTable) -> Markdown:
    """A visible warning box when any table is synthetic, else a short provenance note."""
    synth = [t for t in tables if t.synthetic]
    if synth:
        body = "\n".join(f"- {t.describe()}" for t in synth)
        return Markdown(
            ":::{warning}\n**Synthetic data.** No data directory was found, so this page shows the book's seeded "
            "synthetic stand-in, not a real leaderboard. Its numbers illustrate the method; they are not the "
            "paper's, and every ledger claim of this page is marked *not reproducible here*.\n\n" + body + "\n:::"
        )
    return data_note(tables)


def input_notes(table: ScoreTable, notes: Iterable[str]) -> list[Markdown]:
    """The table's provenance box (:func:`synthetic_note`), then one line per note the box does not hold.

    Parameters
    ----------
    table : ScoreTable
        The table read (its own notes are in the box).
    notes : iterable of str
        The report's notes on the input (:attr:`blindspot.report.prepare.PreparedInput.notes`).

    Returns
    -------
    list of Markdown
        What a page displays, in order.
    """
    return [synthetic_note(table)] + [Markdown(f"- {n}") for n in notes if n not in table.notes]


def source_label(table: ScoreTable) -> str:  # or any table-like object with a ``source``
    """Where a table came from, as a reader should see it: relative to the data directory (``paper/extended.csv``),
    or the file's name for a file of one's own; never this machine's folders."""
    src = Path(table.source)
    if not src.is_absolute():
        return table.source
    root = resolve_data_dir()
    if root is not None and src.is_relative_to(root):
        return src.relative_to(root).as_posix()
    return src.name


def data_note(tables: Iterable[ScoreTable]) -> Markdown:
    """A note listing the data each table came from, and what the loader did to it."""
    lines = []
    for t in tables:
        notes = "; ".join(t.notes)
        desc = t.describe()
        if getattr(t, "source", ""):
            desc = desc.replace(t.source, source_label(t))
        lines.append(f"- {desc}" + (f" — {notes}" if notes else ""))
    return Markdown(":::{note}\n**Data used on this page.**\n\n" + "\n".join(lines) + "\n:::")
