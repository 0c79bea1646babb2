"""The data floor: where every file becomes a table (the ground floor of ``blindspot``).

- :mod:`~blindspot.data.tables` — the :class:`ScoreTable`, and a file of scores read into one, validated;
- :mod:`~blindspot.data.columns` — each column's role: number, metadata, row number, aggregate, copy;
- :mod:`~blindspot.data.rows` — each row's role (a model or a summary row), and cells that cannot be scores;
- :mod:`~blindspot.data.score_files` — the file formats: delimited text, JSON shapes, Parquet;
- :mod:`~blindspot.data.suites` — the named suites of the data directory, and a chapter's ``scores``;
- :mod:`~blindspot.data.fetch` — the data directory from its public sources (registry, fetch, checksums);
- :mod:`~blindspot.data.sources` — the reshaping of the raw sources into the data directory, as code;
- :mod:`~blindspot.data.synthetic` — a seeded latent-factor leaderboard for runs without data.

``data`` imports nothing else of ``blindspot``, and no numerics beyond numpy and pandas. The names a
chapter loads its tables with are handed on here (``from blindspot import data; data.load(scores)``).
"""

from blindspot.data import suites as _suites, tables as _tables
from blindspot.data.suites import *  # noqa: F403
from blindspot.data.tables import *  # noqa: F403

__all__ = [*_tables.__all__, *_suites.__all__]
