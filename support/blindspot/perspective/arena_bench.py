"""Arena-Bench v1 as dkps records: 17 models' answers to the same 300 hard Chatbot Arena prompts, with judge grades.

The data folder ``arena_bench_v1/`` (see its PROVENANCE.md; ``lmarena/arena-hard-auto`` at commit
``4a705dd``, ``data/arena-bench-v1/``, the precursor of Arena-Hard, Li et al. 2024) holds

- ``question.jsonl``: 300 prompts (``question_id``, ``turns[0]``), all in one category: mathematics,
  code in many languages, science, puzzles, writing and tool use, with no topic label;
- ``model_answer/<model>.jsonl``: each model's answer to every prompt (``choices[0].turns[0]``);
- ``model_judgment/*.jsonl``: a GPT-4 judge's single-answer grade 1–10 per (model, prompt), with the
  judged answer quoted in ``user_prompt`` and the model named in ``model``.

:func:`arena_bench_data` builds from it (through :func:`blindspot.data.response_stores.read_arena_bench`, the store's one
reader) into ``responses`` (one row per (model, prompt): ``model_id, task_id,
query_id, query, response, score``; ``task_id`` is the single category, ``score`` the judge's grade or
NaN) and a model table. Rules written down here (and tested):

- **grades by content, not by file name.** A judgment row counts for the answer model its ``model``
  field names, with any organisation prefix removed (``mistralai/Mistral-7B-Instruct-v0.1`` is
  ``Mistral-7B-Instruct-v0.1``), and only when the answer it quotes between ``[The Start of Assistant's
  Answer]`` and ``[The End of Assistant's Answer]`` is that model's answer to that prompt. So
  ``gpt-4-turbo.jsonl`` grades ``gpt-4-1106-preview`` and ``arena-bench-judgment_judge_any.jsonl``
  grades ``llama-13b`` (every one of their 300 quoted answers is that model's): 15 of the 17 models have
  grades, where the folder's PROVENANCE.md counts the 13 files named after a model. A grade the judge
  did not give (``score: null``) is NaN.
- **no topic labels**: every prompt has the category ``arena-bench-v1``; the routing chapter replaces
  the task router by query clusters (:func:`dkps.routing.diagnostics.query_clusters`).

Without the folder, a labelled synthetic stand-in (:func:`synthetic_arena_bench`) is returned, as
:mod:`blindspot.perspective.alpaca` does for AlpacaEval.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from blindspot.data.response_stores import ARENA_DIR, ArenaBenchFiles, judged_answer, read_arena_bench, store_folder
from blindspot.data.tables import ScoreTable
from blindspot.perspective.response_data import ResponseData

__all__ = [
    "ARENA_DIR",
    "CATEGORY",
    "ArenaBenchData",
    "arena_bench_data",
    "synthetic_arena_bench",
    "judged_answer",
    "grade_table",
]

#: The one category of every prompt (the data have no topic labels).
CATEGORY = "arena-bench-v1"


@dataclass(frozen=True)
class ArenaBenchData(ResponseData):
    """Answers, prompts and grades of Arena-Bench v1 (or its synthetic stand-in).

    Attributes
    ----------
    responses : DataFrame
        ``model_id, task_id, query_id, query, response, score`` (the judge's grade 1–10, NaN where the
        model has none); the synthetic stand-in has ``response_embedding``/``query_embedding`` instead of
        text.
    models : DataFrame
        Index ``model_id``; ``n_answers``, ``n_graded``, ``mean_grade`` (NaN without grades),
        ``judgment_file`` (the file its grades came from, '' if none).
    queries : DataFrame
        ``task_id, query_id, query``.
    source, synthetic, notes, name
        Provenance, as in :class:`~blindspot.perspective.response_data.ResponseData` (so
        :func:`blindspot.book.display.synthetic_note` accepts this object through :func:`grade_table`).
    """

    name: str = "arena_bench_v1"

    @property
    def graded_models(self) -> list[str]:
        """The models with at least one judge grade, sorted."""
        return sorted(self.models.index[self.models.n_graded > 0])

    def describe(self) -> str:
        """One line: models, prompts, graded models and provenance."""
        kind = "SYNTHETIC data" if self.synthetic else "data"
        return (
            f"{self.name}: {len(self.models)} models' answers to {len(self.queries)} prompts, judge grades for "
            f"{len(self.graded_models)} of them ({kind}; {self.source})"
        )


def arena_bench_data(
    data_dir=None,
    *,
    n_prompts: int | None = None,
    models: Sequence[str] | None = None,
    fallback: bool = True,
    seed: int = 0,
) -> ArenaBenchData:
    """The Arena-Bench v1 records and model table, read through the data floor's reader (or its synthetic stand-in).

    Parameters
    ----------
    data_dir : path, optional
        The data directory holding ``arena_bench_v1/`` (or that folder itself); default: ``$BLINDSPOT_DATA``,
        then ``../shared/data`` (as :func:`blindspot.data.suites.resolve_data_dir`).
    n_prompts : int, optional
        Keep only the ``n_prompts`` prompts with the smallest ``sha1(question_id)`` (a fixed subset that a larger
        one contains, so quick builds reuse the cache); None keeps all 300.
    models : sequence of str, optional
        Keep only these models' rows (the model table keeps every model).
    fallback : bool, default=True
        When the folder is absent, return :func:`synthetic_arena_bench` (``synthetic=True``); with False,
        raise ``FileNotFoundError``.
    seed : int, default=0
        Seed of the synthetic fallback.

    Returns
    -------
    ArenaBenchData

    Raises
    ------
    FileNotFoundError
        No folder and ``fallback=False``.
    ValueError
        A line that is not JSON, an answer file whose prompts are not the 300 questions (missing or repeated
        prompts), or an answer that is not text (the model and prompt are named).

    References
    ----------
    Li et al. (2024), *From crowdsourced data to high-quality benchmarks: Arena-Hard and BenchBuilder
    pipeline* (arXiv:2406.11939); the book's chapters "Routing to a behavioural stand-in" and "Offloading
    under a contract".
    """
    folder = store_folder("arena", data_dir)
    if folder is None:
        if not fallback:
            raise FileNotFoundError(
                f"no {ARENA_DIR}/ folder with question.jsonl under the data directory; pass data_dir, set "
                "BLINDSPOT_DATA or run `blindspot data fetch --suites arena_bench_v1`"
            )
        return synthetic_arena_bench(seed=seed, n_queries=120 if n_prompts is None else min(120, max(n_prompts, 20)))
    if n_prompts is not None and (
        isinstance(n_prompts, (bool, np.bool_)) or int(n_prompts) != n_prompts or n_prompts < 1
    ):
        raise ValueError(f"n_prompts must be None or an integer >= 1, got {n_prompts!r}")
    files = read_arena_bench(folder)
    queries = files.queries.assign(task_id=CATEGORY)[["task_id", "query_id", "query"]]
    notes = list(files.notes)
    if n_prompts is not None and n_prompts < len(queries):
        order = sorted(queries.query_id, key=lambda q: hashlib.sha1(q.encode()).hexdigest())[: int(n_prompts)]
        queries = queries[queries.query_id.isin(set(order))].reset_index(drop=True)
        notes.append(f"kept {len(queries)} of the prompts (the smallest sha1 of their ids)")
    resp = _records(files, queries, models)
    return ArenaBenchData(resp, _model_table(files, set(queries.query_id)), queries, str(folder), False, tuple(notes))


def _records(files: ArenaBenchFiles, queries: pd.DataFrame, models: Sequence[str] | None) -> pd.DataFrame:
    """One row per (model, kept prompt): ``model_id, task_id, query_id, query, response, score``."""
    rows = []
    for m, got in files.answers.items():
        if models is not None and m not in set(models):
            continue
        for qid, q in zip(queries.query_id, queries["query"]):
            rows.append((m, CATEGORY, qid, q, got[qid], files.grades.get((m, qid), float("nan"))))
    resp = pd.DataFrame(rows, columns=["model_id", "task_id", "query_id", "query", "response", "score"])
    return resp.sort_values(["model_id", "task_id", "query_id"], kind="stable").reset_index(drop=True)


def _model_table(files: ArenaBenchFiles, kept: set[str]) -> pd.DataFrame:
    """Every model's answers, grades and mean grade on the kept prompts, and its judgment file."""
    table = pd.DataFrame(index=pd.Index(sorted(files.answers), name="model_id"))
    table["n_answers"] = [len(kept) for m in table.index]
    grades = {k: v for k, v in files.grades.items() if k[1] in kept}
    g = pd.Series(grades, dtype=float)
    per = {m: g[[k for k in g.index if k[0] == m]] if len(g) else g for m in table.index}
    table["n_graded"] = [int(per[m].notna().sum()) for m in table.index]
    table["mean_grade"] = [float(per[m].mean()) if per[m].notna().any() else float("nan") for m in table.index]
    table["judgment_file"] = [files.judgment_file.get(m, "") for m in table.index]
    return table


def synthetic_arena_bench(seed: int = 0, n_queries: int = 120, n_clusters: int = 4, d: int = 16) -> ArenaBenchData:
    """A labelled synthetic stand-in shaped like Arena-Bench v1 (``synthetic=True``), carrying vectors.

    Twelve sized model names; the prompts fall into ``n_clusters`` hidden clusters of the query space,
    and which model answers like which changes from cluster to cluster (each model's answer centre is
    drawn per cluster, and in each cluster one cheap model copies the flagship ``flag-70b``), so the
    premise of query-aware routing holds by construction. Grades 1–10 from a per-model quality plus noise;
    two models have none.

    Parameters
    ----------
    seed : int, default=0
    n_queries : int, default=120
    n_clusters : int, default=4
    d : int, default=16
        Response dimension.

    Returns
    -------
    ArenaBenchData
    """
    rng = np.random.default_rng(seed)
    names = sorted(
        ["api-model", "flag-70b", "m-1b", "m-3b", "m-7b", "m-8b", "m-13b", "m-30b", "twin-a-7b", "twin-b-13b",
         "twin-c-3b", "ungraded-2b"]
    )  # fmt: skip
    n = len(names)
    cluster = np.arange(n_queries) % n_clusters
    centers = rng.normal(size=(n_clusters, 8)) * 2.5
    U = centers[cluster] + rng.normal(size=(n_queries, 8))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    Z = rng.normal(size=(n, n_clusters, d))  # each model's answer centre, per cluster
    f = names.index("flag-70b")
    for c, twin in enumerate(("twin-a-7b", "twin-b-13b", "twin-c-3b", "m-7b")[:n_clusters]):
        Z[names.index(twin), c] = Z[f, c] + 0.2 * rng.normal(size=d)
    X = Z[:, cluster] + 0.6 * rng.normal(size=(n, n_queries, d))
    X /= np.linalg.norm(X, axis=2, keepdims=True)
    quality = rng.uniform(3, 7, n)
    quality[f] = 8.5
    S = np.clip(np.rint(quality[:, None] + rng.normal(0, 1.2, (n, n_queries))), 1, 10)
    S[[names.index("api-model"), names.index("ungraded-2b")]] = np.nan
    qids = [f"syn{j:03d}" for j in range(n_queries)]
    rows = [
        (names[i], CATEGORY, qids[j], X[i, j], U[j], S[i, j]) for i in range(n) for j in range(n_queries)
    ]  # fmt: skip
    resp = pd.DataFrame(
        rows, columns=["model_id", "task_id", "query_id", "response_embedding", "query_embedding", "score"]
    )
    table = pd.DataFrame(index=pd.Index(names, name="model_id"))
    table["n_answers"] = n_queries
    table["n_graded"] = [int(np.isfinite(S[i]).sum()) for i in range(n)]
    table["mean_grade"] = [float(np.nanmean(S[i])) if np.isfinite(S[i]).any() else float("nan") for i in range(n)]
    table["judgment_file"] = ["" if not np.isfinite(S[i]).any() else "synthetic" for i in range(n)]
    queries = pd.DataFrame({"task_id": CATEGORY, "query_id": qids, "query": [f"synthetic prompt {q}" for q in qids]})
    return ArenaBenchData(
        resp, table, queries, f"synthetic stand-in (hidden clusters, planted twins, seed={seed})", True, (),
        name="synthetic stand-in for arena_bench_v1",
    )  # fmt: skip


def grade_table(data: ArenaBenchData) -> ScoreTable:
    """The graded models' mean judge grade as a one-column score table carrying ``data``'s provenance.

    It is what :mod:`blindspot.book.ledger` reads to tell the real data from the synthetic stand-in.

    Parameters
    ----------
    data : ArenaBenchData

    Returns
    -------
    ScoreTable

    Raises
    ------
    ValueError
        Fewer than 3 graded models.
    """
    m = data.models.loc[data.graded_models, ["mean_grade"]].rename(columns={"mean_grade": "mean judge grade"})
    if len(m) < 3:
        raise ValueError(f"{data.name}: only {len(m)} graded model(s); a table needs 3")
    return ScoreTable(m.astype(float), pd.DataFrame(index=m.index), data.name, data.source, data.synthetic, data.notes)
