"""Small helpers for the book's pages: provenance notes and glue.

These return IPython display objects; myst-nb renders ``text/markdown`` outputs as MyST
(``nb_render_markdown_format: myst`` in ``_config.yml``), so admonitions show as boxes.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np
from IPython.display import Markdown
from myst_nb import glue as _glue

from blindspot.data.suites import resolve_data_dir
from blindspot.data.tables import ScoreTable

__all__ = ["synthetic_note", "data_note", "source_label", "glue"]


def glue(name: str, value: object, display: bool = False) -> None:
    """myst_nb.glue with numpy scalars turned into plain Python numbers (so ``{glue:text}`x:.3f``` formats)."""

    if isinstance(value, np.generic):
        value = value.item()
    _glue(name, value, display=display)


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
