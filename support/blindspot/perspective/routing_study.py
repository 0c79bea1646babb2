"""The routing chapter's suites: AlpacaEval's scored models, and Arena-Bench v1 with query clusters for tasks.

A thin layer over :mod:`dkps.routing` for Part V's chapter on routing to a behavioural stand-in.
:func:`suite_from_records` turns vector records (one row per response, every model answering the same
queries) into a :class:`dkps.routing.evaluation.PairedSuite`; :func:`pool_models` is AlpacaEval's routing
pool; :func:`arena_suite` is Arena-Bench v1's, whose prompts carry no topic label, so its "tasks" are
k-means clusters of the query embeddings (:func:`dkps.routing.diagnostics.query_clusters`). The study
itself is :func:`dkps.routing.mimicry_study.run_mimicry_study`, the verdicts
:mod:`dkps.routing.findings`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dkps.routing.diagnostics import query_clusters
from dkps.routing.evaluation import PairedSuite
from dkps.routing.findings import premise_word

__all__ = ["pool_models", "suite_from_records", "arena_suite", "premise_frame", "EXCLUDED", "N_CLUSTERS"]

#: models left out of the routing pool: adversarial entries (a constant answer; an attack on the judge)
EXCLUDED = ("NullModel", "gpt4_gamed")
#: Query clusters standing in for tasks on a suite without labels: as many as AlpacaEval's five tasks.
N_CLUSTERS = 5


def pool_models(models: pd.DataFrame) -> list[str]:
    """The routing pool: the models with per-response judge scores, minus :data:`EXCLUDED`.

    Parameters
    ----------
    models : DataFrame
        A model table with the column ``n_scored`` (AlpacaEval's) or ``n_graded`` (Arena-Bench v1's).

    Returns
    -------
    list of str
        In the table's order.

    Raises
    ------
    ValueError
        A table with neither column.
    """
    col = "n_scored" if "n_scored" in models.columns else "n_graded" if "n_graded" in models.columns else None
    if col is None:
        raise ValueError("the model table needs the column 'n_scored' or 'n_graded' (per-response judge scores)")
    return [m for m in models.index[models[col] > 0] if m not in EXCLUDED]


def suite_from_records(records: pd.DataFrame) -> PairedSuite:
    """A paired suite from vector records (``response_embedding``, ``query_embedding``; optional ``score``).

    Parameters
    ----------
    records : DataFrame
        ``model_id, task_id, query_id, response_embedding, query_embedding`` and optionally ``score``.

    Returns
    -------
    PairedSuite
        Only the queries answered by every model (the query key is ``query_id``).

    Raises
    ------
    ValueError
        Missing columns, or no query answered by every model.
    """
    need = [c for c in ("model_id", "task_id", "query_id", "response_embedding", "query_embedding") if c not in records]
    if need:
        raise ValueError(f"routing records need the columns {need}")
    fr = records.reset_index(drop=True)
    cols = ["model_id", "task_id", "query_id"] + (["score"] if "score" in fr.columns else [])
    X = np.stack([np.asarray(v, dtype=np.float64) for v in fr.response_embedding])
    U = np.stack([np.asarray(v, dtype=np.float64) for v in fr.query_embedding])
    return PairedSuite.from_frame(fr[cols].astype({"query_id": str}), X, U)


def arena_suite(records: pd.DataFrame, n_clusters: int = N_CLUSTERS, *, seed: int = 0) -> PairedSuite:
    """Arena-Bench v1's paired suite with k-means query clusters as its tasks.

    The clusters read the query embeddings only (a router may read a new query); they serve as the task
    router's labels, the profile's columns and the strata of the split, as AlpacaEval's source data sets do.

    Parameters
    ----------
    records : DataFrame
        Vector records of one category (:func:`suite_from_records`).
    n_clusters : int, default=5
    seed : int, default=0
        Seed of k-means.

    Returns
    -------
    PairedSuite

    Raises
    ------
    ValueError
        As :func:`suite_from_records` and :func:`dkps.routing.diagnostics.query_clusters`.
    """
    base = suite_from_records(records)
    labels = query_clusters(base.U, n_clusters, seed=seed)
    return PairedSuite(
        X=base.X, U=base.U, tasks=labels, models=base.models, query_ids=base.query_ids, scores=base.scores, P=base.P
    )


def premise_frame(studies: dict) -> pd.DataFrame:
    """The premise of query-aware routing on each suite, for the page (one row per suite).

    Parameters
    ----------
    studies : dict
        ``{suite name: (MimicryStudy, name of its groups)}``, e.g. ``{"AlpacaEval": (study, "tasks")}``.

    Returns
    -------
    DataFrame
        Columns: models × queries, the groups, the share of targets whose nearest model agrees within and
        between groups, the group router's error minus static's with its 95% interval, the anchors used at
        0.25 x the median (Kish's effective number, of the anchors), and whether the premise is present
        (:func:`dkps.routing.findings.premise_word`).
    """
    rows = {}
    for name, (study, groups) in studies.items():
        p = study.premise
        n, m, _ = study.suite.X.shape
        rows[name] = {
            "models × queries": f"{n} × {m}",
            "groups": f"{p['n_groups']} {groups}",
            "same nearest model: within / between": f"{100 * p['within']:.1f}% / {100 * p['between']:.1f}%",
            "group router − static [95% CI]": str(p["group_minus_static"]),
            f"anchors used at {p['fraction']:g}x": f"{p['n_eff']:.0f} of {p['anchors']}",
            "premise": premise_word(p),
        }
    return pd.DataFrame(rows).T.rename_axis("suite")
