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

import importlib

#: The names handed on, by the module that holds them: imported on first use, so that a light module of the floor
#: (:mod:`~blindspot.data.format_options`, which ``--help`` reads) loads without pandas.
_FROM = {
    "tables": (
        "option_names",
        "ScoreTable",
        "MissingPolicy",
        "MIN_MODELS",
        "MIN_BENCHMARKS",
        "FRONTIER_RULES",
        "STANDARDISED_RULE",
        "PAPER_RULE",
        "load_scores",
        "read_table",
        "table_from_raw",
        "table_from_frame",
        "META_NAMES",
        "MODEL_COLUMN_NAMES",
    ),
    "suites": (
        "SuiteSpec",
        "SUITES",
        "EEE_SUITES",
        "LABELS",
        "suite_label",
        "PAPER_V1",
        "PAPER_V2",
        "OLLM_V1",
        "OLLM_V2",
        "CACHE_ENV",
        "cache_dir",
        "fetched_data_dir",
        "resolve_data_dir",
        "suite_folder",
        "synthetic_suite",
        "load_suite",
        "load",
        "load_many",
    ),
}
_HOME = {name: module for module, names in _FROM.items() for name in names}
__all__ = list(_HOME)


def __getattr__(name: str) -> object:
    if name in _HOME:
        value = getattr(importlib.import_module(f"blindspot.data.{_HOME[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'blindspot.data' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
