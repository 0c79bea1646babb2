"""The response stores of the data directory, one reader each: many models' answers to the same queries.

A *response store* holds, unlike a score file, each model's answer to each query (and a grade or judge
score where one exists). Two live in the data directory (see each folder's PROVENANCE.md), and each has
exactly one reader here; what the book builds from them (records for :mod:`dkps`, model tables, pools,
synthetic stand-ins) lives in :mod:`blindspot.perspective`.

``alpaca_eval_responses/`` (:class:`AlpacaEvalStore`)
    ``responses.parquet``: one row per (model, instruction), ``model_id, task_id`` (the AlpacaEval subset),
    ``query_id`` (0..804), ``query``, ``response`` and the AlpacaEval 2.0 judge's per-response ``score`` in
    [0, 1] (58 of the 227 models have one); ``queries.csv`` every instruction; ``models.csv`` each model's
    leaderboard row (win rates, counts).
``arena_bench_v1/`` (:func:`read_arena_bench`)
    ``question.jsonl`` (300 prompts), ``model_answer/<model>.jsonl`` (each model's answer to every prompt),
    ``model_judgment/*.jsonl`` (a GPT-4 judge's grade 1-10 per (model, prompt), the judged answer quoted).
    A grade counts for the model its row names (organisation prefix removed) only when the answer it quotes
    is that model's answer to that prompt: grades by content, not by file name.

A reader's own response cache (:func:`read_response_file`)
    one parquet or CSV file of dkps records (``model_id, task_id, query_id``, ``score``, and texts or
    embeddings), as the routing and offloading chapters take it on a reader's data.

Every failure is a one-line ``ValueError`` naming the file and the row.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from blindspot.data.suites import suite_folder

__all__ = [
    "ALPACA_DIR",
    "ARENA_DIR",
    "RESPONSE_COLUMNS",
    "AlpacaEvalStore",
    "ArenaBenchFiles",
    "STORES",
    "store_folder",
    "read_arena_bench",
    "judged_answer",
    "read_response_file",
]

#: The AlpacaEval response store's folder in the data directory (its marker file: ``responses.parquet``).
ALPACA_DIR = "alpaca_eval_responses"
#: The Arena-Bench v1 response store's folder in the data directory (its marker file: ``question.jsonl``).
ARENA_DIR = "arena_bench_v1"
#: The columns :meth:`AlpacaEvalStore.responses` reads from ``responses.parquet`` unless told otherwise.
RESPONSE_COLUMNS = ("model_id", "task_id", "query_id", "query", "response", "score")
_START = "[The Start of Assistant's Answer]"
_END = "[The End of Assistant's Answer]"


#: Each response store of the data directory by its name: (its folder in the data directory, its marker file).
STORES: dict[str, tuple[str, str]] = {
    "alpaca": (ALPACA_DIR, "responses.parquet"),
    "arena": (ARENA_DIR, "question.jsonl"),
}


def store_folder(store: str, data_dir: str | os.PathLike | None = None) -> Path | None:
    """A response store's folder: ``data_dir`` itself when it holds the store's marker file, else its folder of the
    data directory (:data:`STORES`: ``alpaca`` -> ``alpaca_eval_responses/`` marked by ``responses.parquet``,
    ``arena`` -> ``arena_bench_v1/`` marked by ``question.jsonl``).

    Parameters
    ----------
    store : {'alpaca', 'arena'}
        The store's name.
    data_dir : path, optional
        The folder itself or the data directory (None: :func:`blindspot.data.suites.resolve_data_dir`'s order).

    Returns
    -------
    Path or None
        None when there is no such folder.

    Raises
    ------
    ValueError
        An unknown store (the message lists them).
    """
    if store not in STORES:
        raise ValueError(f"no response store {store!r}; the stores are {', '.join(STORES)}")
    folder, marker = STORES[store]
    return suite_folder(data_dir, folder, marker)


# ------------------------------------------------------------------------------------ AlpacaEval
@dataclass(frozen=True)
class AlpacaEvalStore:
    """The reader of the AlpacaEval store in ``folder``: its queries, its models' rows, and the responses asked for.

    Parameters
    ----------
    folder : path
        The store's folder (:func:`store_folder` ``('alpaca')``).
    """

    folder: Path

    def _file(self, name: str) -> Path:
        path = Path(self.folder) / name
        if not path.is_file():
            raise ValueError(f"{self.folder}: the AlpacaEval store has no {name}")
        return path

    def queries(self) -> pd.DataFrame:
        """Every instruction (``queries.csv``: ``task_id, query_id, query``), ``query_id`` as text."""
        q = pd.read_csv(self._file("queries.csv"))
        q["query_id"] = q["query_id"].astype(str)
        return q

    def models(self) -> pd.DataFrame:
        """The leaderboard's row of every model (``models.csv`` as it is: win rates, counts, mode)."""
        return pd.read_csv(self._file("models.csv"))

    def responses(
        self,
        query_ids: Sequence[str] | None = None,
        models: Sequence[str] | None = None,
        columns: Sequence[str] = RESPONSE_COLUMNS,
    ) -> pd.DataFrame:
        """The rows of ``models`` on ``query_ids`` (all when None), their ``columns``, ``query_id`` as text.

        Only those rows and columns are read (a filter pushed into the parquet reader: the whole file is
        ~280 MB of text), in the file's order.
        """
        filters = []
        if query_ids is not None:
            filters.append(("query_id", "in", sorted(int(q) if str(q).isdigit() else q for q in query_ids)))
        if models is not None:
            filters.append(("model_id", "in", list(models)))
        path = self._file("responses.parquet")
        resp = pd.read_parquet(path, columns=list(columns), filters=filters or None)
        if "query_id" in resp.columns:
            resp["query_id"] = resp["query_id"].astype(str)
        return resp

    @property
    def source(self) -> str:
        """The responses file, as a table's provenance names it."""
        return str(Path(self.folder) / "responses.parquet")


# ------------------------------------------------------------------------------------ Arena-Bench v1
@dataclass(frozen=True)
class ArenaBenchFiles:
    """What :func:`read_arena_bench` read.

    Attributes
    ----------
    queries : DataFrame
        ``query_id, query`` of every prompt, in the file's order.
    answers : dict
        ``{model: {query_id: answer text}}``, every model answering every prompt once.
    grades : dict
        ``{(model, query_id): grade}`` (NaN where the judge gave none), the first matching judgment row.
    judgment_file : dict
        ``{model: the judgment file its grades came from}``.
    notes : tuple of str
        Judgment files not named after their model, files of no answer model, rows quoting another answer.
    """

    queries: pd.DataFrame
    answers: dict[str, dict[str, str]]
    grades: dict[tuple[str, str], float]
    judgment_file: dict[str, str]
    notes: tuple[str, ...] = field(default_factory=tuple)
    folder: Path | None = None


def judged_answer(user_prompt: str) -> str | None:
    """The assistant's answer a judgment quotes (between its start and end markers), stripped; None if absent.

    Parameters
    ----------
    user_prompt : str
        The judge's prompt of one judgment row.

    Returns
    -------
    str or None
    """
    if not isinstance(user_prompt, str) or _START not in user_prompt:
        return None
    body = user_prompt.rsplit(_START, 1)[1]
    return body.split(_END, 1)[0].strip()


def _read_jsonl(path: Path) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for i, line in enumerate(fh):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}: line {i + 1} is not JSON ({exc.msg})") from None
    return rows


def _grade(v) -> float:
    if v is None or isinstance(v, bool):
        return float("nan")
    try:
        g = float(v)
    except (TypeError, ValueError):
        return float("nan")
    return g if np.isfinite(g) else float("nan")


def _arena_queries(folder: Path) -> pd.DataFrame:
    questions = _read_jsonl(folder / "question.jsonl")
    return pd.DataFrame(
        {
            "query_id": [str(q["question_id"]) for q in questions],
            "query": [q["turns"][0] if isinstance(q.get("turns"), list) and q["turns"] else None for q in questions],
        }
    )


def _arena_answers(folder: Path, qids: set[str]) -> dict[str, dict[str, str]]:
    """Each model's answer to every prompt (``model_answer/<model>.jsonl``): one text answer per prompt."""
    answers: dict[str, dict[str, str]] = {}
    for path in sorted((folder / "model_answer").glob("*.jsonl")):
        got: dict[str, str] = {}
        for r in _read_jsonl(path):
            qid = str(r["question_id"])
            text = r["choices"][0]["turns"][0]
            if not isinstance(text, str):
                raise ValueError(f"{path.name}: the answer to prompt {qid!r} is a {type(text).__name__}, not text")
            if qid in got:
                raise ValueError(f"{path.name}: prompt {qid!r} is answered twice; one answer per prompt")
            got[qid] = text
        if set(got) != qids:
            missing = sorted(qids - set(got))[:3]
            raise ValueError(
                f"{path.name}: answers {len(got)} prompts, not the {len(qids)} questions (missing {missing})"
            )
        answers[path.stem] = got
    return answers


def _arena_grades(
    folder: Path, answers: dict[str, dict[str, str]], qids: set[str]
) -> tuple[dict[tuple[str, str], float], dict[str, str], list[str]]:
    """The judge's grades by content (see the module's docstring), where each came from, and the notes."""
    grades: dict[tuple[str, str], float] = {}
    source_of: dict[str, str] = {}
    skipped_files, mismatched = [], 0
    for path in sorted((folder / "model_judgment").glob("*.jsonl")):
        rows = _read_jsonl(path)
        if not {str(r.get("model", "")).split("/")[-1] for r in rows} & set(answers):
            skipped_files.append(path.name)
            continue
        for r in rows:
            model = str(r.get("model", "")).split("/")[-1]
            qid = str(r.get("question_id"))
            if model not in answers or qid not in qids:
                continue
            if judged_answer(r.get("user_prompt")) != answers[model][qid].strip():
                mismatched += 1
                continue
            if (model, qid) not in grades:
                grades[(model, qid)] = _grade(r.get("score"))
                source_of.setdefault(model, path.name)
    notes = []
    renamed = sorted(f"{f} grades {m}" for m, f in source_of.items() if Path(f).stem != m)
    if renamed:
        notes.append("judgment files not named after their model: " + "; ".join(renamed))
    if skipped_files:
        notes.append(f"judgment files of no answer model, not read: {', '.join(skipped_files)}")
    if mismatched:
        notes.append(f"{mismatched} judgment rows quote another answer than the model's and were not used")
    return grades, source_of, notes


def read_arena_bench(folder: str | os.PathLike) -> ArenaBenchFiles:
    """Read the Arena-Bench v1 store: prompts, every model's answers, and the judge's grades by content.

    Parameters
    ----------
    folder : path
        The store's folder (:func:`store_folder` ``("arena")``).

    Returns
    -------
    ArenaBenchFiles

    Raises
    ------
    ValueError
        A line that is not JSON, an answer file whose prompts are not the questions (missing or repeated
        prompts), or an answer that is not text (the model and prompt are named).
    """
    folder = Path(folder)
    queries = _arena_queries(folder)
    qids = set(queries.query_id)
    answers = _arena_answers(folder, qids)
    grades, source_of, notes = _arena_grades(folder, answers, qids)
    return ArenaBenchFiles(queries, answers, grades, source_of, tuple(notes), folder)


# ------------------------------------------------------------------------------------ a reader's own file
def read_response_file(path: str | os.PathLike) -> pd.DataFrame:
    """A reader's response cache: one ``.parquet`` file, or a CSV file (any other suffix), as it is.

    Parameters
    ----------
    path : path
        The file (dkps records: ``model_id, task_id, query_id``, ``score``, and texts or embeddings).

    Returns
    -------
    DataFrame

    Raises
    ------
    ValueError
        The file does not exist.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"the response file {str(path)!r} does not exist")
    return pd.read_parquet(path) if path.suffix == ".parquet" else pd.read_csv(path)
