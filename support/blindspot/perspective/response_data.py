"""The container of a suite of model responses read from a data folder (or its synthetic stand-in).

:class:`ResponseData` holds what every such suite has: the responses, a model table, the queries and the
provenance a :class:`blindspot.data.tables.ScoreTable` carries. Each suite's module adds what is its own:
:class:`blindspot.perspective.alpaca.AlpacaEvalData` (win rates, the regression's population) and
:class:`blindspot.perspective.arena_bench.ArenaBenchData` (judge grades).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

__all__ = ["ResponseData"]


@dataclass(frozen=True)
class ResponseData:
    """Responses, models and queries of one suite, with their provenance.

    Attributes
    ----------
    responses : DataFrame
        One row per (model, query): ``model_id, task_id, query_id, query, response, score`` (a synthetic
        stand-in has ``response_embedding``/``query_embedding`` vectors instead of text).
    models : DataFrame
        Index ``model_id``; the suite's own columns.
    queries : DataFrame
        ``task_id, query_id, query``.
    source, synthetic, notes, name
        Provenance, as in :class:`blindspot.data.tables.ScoreTable` (so
        :func:`blindspot.book.display.synthetic_note` accepts such an object).
    """

    responses: pd.DataFrame
    models: pd.DataFrame
    queries: pd.DataFrame
    source: str
    synthetic: bool = False
    notes: tuple = field(default_factory=tuple)
    name: str = "responses"
