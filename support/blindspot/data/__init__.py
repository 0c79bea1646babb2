"""The data floor: where every file becomes a table (the ground floor of ``blindspot``).

- :mod:`~blindspot.data.tables` — the :class:`ScoreTable`, and any input read into one, validated
  (:func:`~blindspot.data.tables.read_table`, :func:`~blindspot.data.tables.load_scores`);
- :mod:`~blindspot.data.readers` — the one registry of input formats (detect + read), which every reader of
  scores goes through: :mod:`~blindspot.data.score_files` (delimited text, JSON shapes, Parquet),
  :mod:`~blindspot.data.eee_aggregate` (Every Eval Ever aggregate records), :mod:`~blindspot.data.lm_eval_results`
  (lm-evaluation-harness results); :mod:`~blindspot.data.dataframe_reader` reads a user's DataFrame the same way, and
  :mod:`~blindspot.data.raw_frame` is what every reader hands on;
- :mod:`~blindspot.data.profile` — each column read once (:class:`~blindspot.data.profile.ColumnProfile`: the one
  parser of numbers written as text), which every later step reads;
- :mod:`~blindspot.data.columns` — every column rule, as one ordered table (``COLUMN_RULES``): number, metadata (by
  name and by content), row number, aggregate, copy, raw twin, uncertainty;
- :mod:`~blindspot.data.rows` — each row's role (a model or a summary row), and cells that cannot be scores;
- :mod:`~blindspot.data.suites` — the named suites of the data directory, and a chapter's ``scores``;
- :mod:`~blindspot.data.fetch` — the data directory from its public sources (registry, fetch, checksums);
- :mod:`~blindspot.data.sources` — the reshaping of the raw sources into the data directory, as code;
- :mod:`~blindspot.data.synthetic` — a seeded latent-factor leaderboard for runs without data;
- :mod:`~blindspot.data.item_results` — per-item results (model, benchmark, item, score) for ``blindspot
  compare``: long files, the item-level data of the data directory, and their seeded stand-ins.

``data`` imports nothing else of ``blindspot``, and no numerics beyond numpy and pandas. The names a
chapter loads its tables with are handed on here (``from blindspot import data; data.load(scores)``).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path

#: The modules whose names are handed on here, each by its own ``__all__``: imported on first use, so that a light
#: module of the floor (:mod:`~blindspot.data.format_options`, which ``--help`` reads) loads without pandas.
_MODULES = ("tables", "suites")
_ALL = re.compile(r"^__all__\s*=\s*(\[.*?\])", re.MULTILINE | re.DOTALL)


def _declared(module: str) -> tuple[str, ...]:
    """A module's ``__all__`` as its source writes it (a list of strings), read without importing the module."""
    spec = importlib.util.find_spec(f"{__name__}.{module}")
    text = Path(spec.origin).read_text(encoding="utf-8")  # type: ignore[union-attr, arg-type]
    return tuple(ast.literal_eval(_ALL.search(text).group(1)))  # type: ignore[union-attr]


_HOME = {name: module for module in _MODULES for name in _declared(module)}
__all__ = list(_HOME)


def __getattr__(name: str) -> object:
    if name in _HOME:
        value = getattr(importlib.import_module(f"blindspot.data.{_HOME[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'blindspot.data' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
