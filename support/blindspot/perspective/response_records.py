"""Per-response leaderboard data as dkps records: a slice of the AlpacaEval responses, or a stand-in.

The AlpacaEval store (read by :class:`blindspot.data.response_stores.AlpacaEvalStore`) holds one row per
(model, instruction) with the AlpacaEval 2.0 judge's per-response ``score`` in [0, 1] (1 = the model
preferred over the reference) for 58 of the 227 models. As dkps records the suite is ``alpaca_eval`` and
the task the subset's own name (``helpful_base``): task ids are global, without a ``<suite>/`` prefix, the form
:mod:`dkps.eee` writes and reads back (:func:`dkps.eee.canonical_records` leaves these records unchanged).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from blindspot.data.response_stores import ALPACA_DIR, AlpacaEvalStore, store_folder
from blindspot.data.suites import resolve_data_dir

__all__ = ["ResponseRecords", "ALPACA_DIR", "load_alpaca_records", "synthetic_response_records"]

_COLS = ["model_id", "task_id", "query_id", "query", "response", "score", "suite"]


@dataclass(frozen=True)
class ResponseRecords:
    """dkps records (``model_id, task_id, query_id, query, response, score, suite``) and their origin."""

    records: pd.DataFrame
    name: str
    source: str
    synthetic: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)

    def describe(self) -> str:
        r = self.records
        kind = "SYNTHETIC data" if self.synthetic else "data"
        return (
            f"{self.name}: {r.model_id.nunique()} models x {r.query_id.nunique()} queries, {len(r)} responses "
            f"({kind}; {self.source})"
        )


def synthetic_response_records(n_models: int = 5, n_queries: int = 20, seed: int = 0) -> ResponseRecords:
    """Seeded placeholder records of the same shape (``synthetic=True``): ``n_models`` models answer
    ``n_queries`` queries spread over three tasks (``alpha``, ``beta``, ``gamma``: global task ids, as
    :func:`dkps.eee.canonical_records` gives them), with scores uniform in [0, 1]."""
    if n_models < 1 or n_queries < 1:
        raise ValueError(f"need n_models >= 1 and n_queries >= 1, got {n_models} and {n_queries}")
    rng = np.random.default_rng(seed)
    tasks = ("alpha", "beta", "gamma")
    rows = [
        {
            "model_id": f"synthetic-org/model-{i}",
            "task_id": tasks[q % 3],
            "query_id": str(q),
            "query": f"Placeholder instruction {q}?",
            "response": f"Model {i}'s placeholder answer to {q}.",
            "score": float(rng.random()),
            "suite": "synthetic",
        }
        for i in range(n_models)
        for q in range(n_queries)
    ]
    return ResponseRecords(
        pd.DataFrame(rows, columns=_COLS), "synthetic responses", f"seeded placeholder records (seed={seed})", True
    )


def load_alpaca_records(
    data_dir: str | os.PathLike | None = None,
    n_models: int = 5,
    n_queries: int = 20,
    seed: int = 0,
    fallback: bool = True,
) -> ResponseRecords:
    """The first ``n_models`` AlpacaEval models with per-response scores (by name) on queries
    ``0..n_queries-1``, as dkps records; :func:`synthetic_response_records` without the data.

    Raises
    ------
    ValueError
        Non-positive sizes; more models than have scores; the data absent with ``fallback=False``.
    """
    if n_models < 1 or not 1 <= n_queries <= 805:
        raise ValueError(f"need n_models >= 1 and 1 <= n_queries <= 805, got {n_models} and {n_queries}")
    folder = store_folder("alpaca", data_dir)
    if folder is None:
        if not fallback:
            where = "no data directory" if resolve_data_dir(data_dir) is None else f"no {ALPACA_DIR}/responses.parquet"
            raise ValueError(f"the AlpacaEval responses are not available: {where}")
        return synthetic_response_records(n_models, n_queries, seed)
    store = AlpacaEvalStore(folder)
    models = store.models()
    scored = sorted(models.loc[models.n_scored > 0, "model_id"].astype(str))
    if n_models > len(scored):
        raise ValueError(f"only {len(scored)} AlpacaEval models have per-response scores; ask for at most that many")
    df = store.responses(query_ids=[str(q) for q in range(n_queries)], models=scored[:n_models])
    missing = int(df.score.isna().sum())
    df = df.dropna(subset=["score"])
    out = pd.DataFrame(
        {
            "model_id": df.model_id.astype(str),
            "task_id": df.task_id.astype(str),
            "query_id": df.query_id.astype(int).astype(str),
            "query": df["query"].astype(str),
            "response": df.response.astype(str),
            "score": df.score.astype(float),
            "suite": "alpaca_eval",
        }
    )
    out = out.sort_values(["model_id", "query_id"], key=lambda s: s.astype(int) if s.name == "query_id" else s)
    notes = (f"{missing} responses without a judge score dropped",) if missing else ()
    return ResponseRecords(out.reset_index(drop=True)[_COLS], "alpaca_eval", store.source, False, notes)
