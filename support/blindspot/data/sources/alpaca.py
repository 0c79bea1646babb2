"""AlpacaEval's per-model result files reshaped into long tables (the ``alpaca_eval_responses`` folder).

The raw files come from ``tatsu-lab/alpaca_eval``: per model ``results/<model>/model_outputs.json``
(records with ``instruction``, ``output``, ``generator`` and usually ``dataset``), the judges'
``results/<model>/<annotator>/annotations.json`` (``weighted_alpaca_eval_gpt4_turbo`` for
AlpacaEval 2.0, reference ``gpt4_1106_preview``; ``alpaca_eval_gpt4`` for 1.0, reference
``text_davinci_003``), and three leaderboard CSVs. Rules:

- ``query_id`` is the instruction's position in the reference model's outputs
  (``results/gpt4_1106_preview/model_outputs.json``, AlpacaEval's standard order); every record is
  joined on the exact instruction text, and ``task_id`` is its ``dataset`` field (looked up from the
  instruction where a file has none).
- ``score = preference - 1`` (a preference of 0, a draw, maps to 0.5), so 1 = the model preferred,
  0 = the reference preferred (AlpacaEval's encoding: 1 = reference, 2 = model, 1.5 or 0 = draw).
  A missing preference stays missing. Nothing else is derived; text is copied unchanged.
- Long tables are sorted by ``(query_id, model_id)``, models by name.

The outputs reproduce the reference data directory byte for byte with the pinned pandas and
pyarrow (``responses.parquet`` is zstd level 19 with 8 MiB pages, which is what makes it small).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

import numpy as np
import pandas as pd

__all__ = [
    "REFERENCE_OUTPUTS",
    "AE2",
    "AE1",
    "LEADERBOARD_AE2",
    "LEADERBOARD_AE2_DOCS",
    "LEADERBOARD_AE1",
    "alpaca_queries",
    "alpaca_responses",
    "alpaca_scores_ae1",
    "alpaca_models",
    "alpaca_source_files",
    "preference_to_score",
]

REFERENCE_OUTPUTS = "results/gpt4_1106_preview/model_outputs.json"
AE2 = "weighted_alpaca_eval_gpt4_turbo"
AE1 = "alpaca_eval_gpt4"
LEADERBOARD_AE2 = "src/alpaca_eval/leaderboards/data_AlpacaEval_2/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
LEADERBOARD_AE2_DOCS = "docs/data_AlpacaEval_2/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
LEADERBOARD_AE1 = "src/alpaca_eval/leaderboards/data_AlpacaEval/alpaca_eval_gpt4_leaderboard.csv"
_OUTPUTS = re.compile(r"^results/([^/]+)/model_outputs\.json$")
_ANNOTATIONS = re.compile(r"^results/([^/]+)/([^/]+)/annotations\.json$")
_SAMPLES = re.compile(r"results/([^/]+)/model_outputs\.json")


def preference_to_score(preference: np.ndarray) -> np.ndarray:
    """``preference - 1`` with a draw coded 0 mapped to 0.5; NaN stays NaN (AlpacaEval's encoding)."""
    p = np.asarray(preference, dtype=float)
    return np.where(p == 0, 0.5, p - 1.0)


def _records(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    if not isinstance(data, list):
        raise ValueError(f"{path} is not a JSON list of records")
    return data


def _files(inputs: Mapping[str, Path], pattern: re.Pattern, annotator: str | None = None) -> list[tuple[str, Path]]:
    """(model_id, local path) of the inputs whose source path matches ``pattern`` (and, for annotations,
    whose folder is ``annotator``), sorted by model id."""
    out = []
    for source_path, local in inputs.items():
        m = pattern.match(source_path)
        if m and (annotator is None or m.group(2) == annotator):
            out.append((m.group(1), local))
    return sorted(out)


class _Queries:
    """The 805 instructions in the reference model's order: text -> query_id and task_id."""

    def __init__(self, inputs: Mapping[str, Path]):
        if REFERENCE_OUTPUTS not in inputs:
            raise ValueError(f"the reference outputs {REFERENCE_OUTPUTS} are needed to number the queries")
        recs = _records(inputs[REFERENCE_OUTPUTS])
        self.frame = pd.DataFrame(
            {
                "query_id": range(len(recs)),
                "task_id": [r["dataset"] for r in recs],
                "query": [r["instruction"] for r in recs],
            }
        )
        self.id = {q: i for i, q in enumerate(self.frame["query"])}
        if len(self.id) != len(recs):
            raise ValueError(f"{inputs[REFERENCE_OUTPUTS]} repeats an instruction; query ids would be ambiguous")
        self.task = dict(zip(self.frame["query"], self.frame["task_id"]))

    def lookup(self, instruction: str, where: Path) -> int:
        try:
            return self.id[instruction]
        except KeyError:
            raise ValueError(
                f"{where}: an instruction is not among the reference's {len(self.id)}: {instruction[:60]!r}"
            ) from None


def alpaca_queries(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``queries.csv``: ``query_id, task_id, query`` in AlpacaEval's standard order."""
    return _Queries(inputs).frame


def _outputs(inputs: Mapping[str, Path], queries: _Queries) -> pd.DataFrame:
    rows = []
    for model_id, path in _files(inputs, _OUTPUTS):
        for r in _records(path):
            q = r["instruction"]
            query_id = queries.lookup(q, path)
            task_id = r["dataset"] if "dataset" in r else queries.task[q]  # six files have no dataset field
            rows.append((model_id, task_id, query_id, q, r["output"], r["generator"]))
    return pd.DataFrame(rows, columns=["model_id", "task_id", "query_id", "query", "response", "generator"])


def _annotations(inputs: Mapping[str, Path], annotator: str, queries: _Queries) -> pd.DataFrame:
    rows = []
    for model_id, path in _files(inputs, _ANNOTATIONS, annotator=annotator):
        for a in _records(path):
            rows.append(
                (
                    model_id,
                    queries.lookup(a["instruction"], path),
                    a.get("preference"),
                    a.get("annotator"),
                    a.get("output_2"),
                )
            )
    frame = pd.DataFrame(rows, columns=["model_id", "query_id", "preference", "annotator", "output_2"])
    frame["preference"] = frame["preference"].astype(float)
    dup = frame.duplicated(["model_id", "query_id"])
    if dup.any():
        first = frame[dup].iloc[0]
        raise ValueError(f"{annotator}: model {first.model_id!r} has two judgments of query {first.query_id}")
    return frame


def alpaca_responses(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``responses.parquet``: one row per (model, query) with the AlpacaEval 2.0 judge's preference and score."""
    queries = _Queries(inputs)
    resp = _outputs(inputs, queries)
    judged = _annotations(inputs, AE2, queries)
    resp = resp.merge(judged[["model_id", "query_id", "preference"]], on=["model_id", "query_id"], how="left")
    resp["score"] = preference_to_score(resp["preference"].to_numpy())
    cols = ["model_id", "task_id", "query_id", "query", "response", "score", "preference", "generator"]
    out = resp[cols].sort_values(["query_id", "model_id"]).reset_index(drop=True)
    out["query_id"] = out["query_id"].astype("int32")
    return out


def alpaca_scores_ae1(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``scores_ae1_alpaca_eval_gpt4.parquet``: AlpacaEval 1.0 per-response scores, and whether the
    judged text equals the staged response."""
    queries = _Queries(inputs)
    resp = _outputs(inputs, queries)
    ae1 = _annotations(inputs, AE1, queries).merge(
        resp[["model_id", "query_id", "response"]], on=["model_id", "query_id"], how="left"
    )
    out = pd.DataFrame(
        {
            "model_id": ae1["model_id"],
            "query_id": ae1["query_id"].astype("int32"),
            "score": preference_to_score(ae1["preference"].to_numpy()),
            "preference": ae1["preference"],
            "annotator": ae1["annotator"],
            "judged_output_equals_response": (ae1["output_2"] == ae1["response"]).to_numpy(),
        }
    )
    return out.sort_values(["query_id", "model_id"]).reset_index(drop=True)


def alpaca_models(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``models.csv``: one row per model with responses or on the AlpacaEval 2.0 leaderboard: coverage
    counts, the AE2 leaderboard columns unchanged, the display name and link of the docs leaderboard
    (joined on the ``results/<model>/`` folder of its ``samples`` URL), and the AE1 numbers."""
    resp = alpaca_responses(inputs)
    ae1 = alpaca_scores_ae1(inputs)
    lb2 = pd.read_csv(inputs[LEADERBOARD_AE2], index_col=0)
    docs = pd.read_csv(inputs[LEADERBOARD_AE2_DOCS])
    lb1 = pd.read_csv(inputs[LEADERBOARD_AE1], index_col=0)
    with_outputs = sorted(set(resp["model_id"]))
    index = pd.Index(sorted(set(with_outputs) | set(lb2.index)), name="model_id")
    by = resp.groupby("model_id")
    empty = resp["response"].isna() | (resp["response"] == "")
    m = pd.DataFrame(index=index)
    m["has_outputs"] = index.isin(with_outputs)
    m["n_responses"] = by.size().reindex(index).fillna(0).astype(int)
    m["n_null_or_empty_response"] = empty.groupby(resp["model_id"]).sum().reindex(index).fillna(0).astype(int)
    m["n_scored"] = by["score"].count().reindex(index).fillna(0).astype(int)
    m["score_mean"] = by["score"].mean().reindex(index)
    m["in_leaderboard"] = index.isin(lb2.index)
    for col in lb2.columns:
        m[col] = lb2[col].reindex(index)
    docs["folder"] = docs["samples"].str.extract(_SAMPLES)[0]
    docs = docs.dropna(subset=["folder"]).drop_duplicates("folder").set_index("folder")
    m["display_name"] = docs["name"].reindex(index)
    m["link"] = docs["link"].reindex(index)
    by1 = ae1.groupby("model_id")
    m["ae1_n_scored"] = by1["score"].count().reindex(index).fillna(0).astype(int)
    m["ae1_score_mean"] = by1["score"].mean().reindex(index)
    m["ae1_win_rate"] = lb1["win_rate"].reindex(index)
    m["ae1_length_controlled_winrate"] = lb1["length_controlled_winrate"].reindex(index)
    m["ae1_mode"] = lb1["mode"].reindex(index)
    return m.reset_index()


def _git_blob_sha1(data: bytes) -> str:
    """Git's object id of a file: ``sha1(b"blob <size>\\0" + data)``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def alpaca_source_files(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``source_files.csv``: every raw file used, with its git blob SHA-1, size and number of records
    (model outputs, then AE2 and AE1 annotations by model, then the three leaderboards)."""
    rows = []

    def add(kind: str, model_id, source_path: str) -> None:
        data = inputs[source_path].read_bytes()
        if source_path.endswith(".json"):
            n = len(json.loads(data))
        else:
            n = len(pd.read_csv(inputs[source_path]))
        rows.append((kind, model_id, source_path, _git_blob_sha1(data), len(data), n))

    def model_of(source_path: str) -> str:
        return PurePosixPath(source_path).parts[1]

    kinds = (
        ("model_outputs", _OUTPUTS, None),
        (f"annotations_{AE2}", _ANNOTATIONS, AE2),
        (f"annotations_{AE1}", _ANNOTATIONS, AE1),
    )
    for kind, pattern, annotator in kinds:
        paths = [p for p in inputs if (m := pattern.match(p)) and (annotator is None or m.group(2) == annotator)]
        for source_path in sorted(paths, key=model_of):
            add(kind, model_of(source_path), source_path)
    for source_path in (LEADERBOARD_AE2, LEADERBOARD_AE2_DOCS, LEADERBOARD_AE1):
        if source_path in inputs:
            add("leaderboard", np.nan, source_path)
    return pd.DataFrame(rows, columns=["kind", "model_id", "path", "blob_sha1", "bytes", "n_records"])
