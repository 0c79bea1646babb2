"""Every Eval Ever (EEE) adapter: instance-level ``*_samples.jsonl`` runs <-> dkps records.

Each line of a samples file is one ``instance_level_eval`` record: ``model_id``,
``evaluation_name``, ``evaluation_id``, ``sample_id``, ``sample_hash``, ``interaction_type``,
``input.raw``, ``output.raw`` (single turn) or ``messages`` (multi-turn, agentic), and
``evaluation.score`` / ``evaluation.is_correct``. The store lays runs out as
``data/{benchmark}/{developer}/{model}/{uuid}_samples.jsonl`` next to the aggregate ``{uuid}.json``.

Schema versions read (:data:`SUPPORTED_SCHEMA_VERSIONS`): the 0.3.x layout (the shipped schema),
0.2.1 (the same instance layout; HELM test runs with ``evaluation_id = "None_samples"``) and the
0.2.0 layout (``interactions`` instead of ``messages``, integer ``sample_id``, plain-string
``output.raw`` and ``input.reference``, files named ``*.jsonl`` without the ``_samples`` suffix). Any
other ``schema_version`` is rejected with a ValueError naming the version, the file and the line.

:func:`load_records` reads files or directories into the records table PKPS fits on; it never
touches the network. :func:`write_records` writes dkps records as EEE 0.3.0 runs (aggregate JSON +
samples file per (suite, model)), so that ``load_records(write_records(R, root), model_from="record",
max_queries_per_cell=None)`` returns :func:`canonical_records` ``(R)`` — ``R`` itself when its ids are
already in the adapter's form. :func:`validate_file` checks a file against the shipped JSON schemas
(needs ``jsonschema``). :func:`fetch_samples` downloads runs from the Hugging Face dataset
``evaleval/EEE_datastore`` through ``huggingface_hub`` (optional extra ``eee``).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import time
import uuid as _uuid
import warnings
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pandas as pd

from ._version import __version__
from .docstrings import references
from .records import coerce

__all__ = [
    "load_records",
    "load_aggregates",
    "record_to_row",
    "unify_task_suites",
    "write_records",
    "canonical_records",
    "validate_file",
    "survey_files",
    "fetch_samples",
    "check_schema_version",
    "REPO_ID",
    "SUPPORTED_SCHEMA_VERSIONS",
    "WRITE_SCHEMA_VERSION",
]

#: What the readers and writers of this module cite (their References sections, :func:`dkps.docstrings.references`).
EEE = (
    "Every Eval Ever, the EvalEval coalition's schema of evaluation results (github.com/evaleval/every_eval_ever)\n"
    "and its data store, the Hugging Face dataset ``evaleval/EEE_datastore``."
)
EEE_CHAPTER = (
    'The Blind Spot Book, Part V: "Every Eval Ever: instance-level runs in and out of dkps" (``ch-every-eval-ever``).'
)

REPO_ID = "evaleval/EEE_datastore"
COLUMNS = ["model_id", "task_id", "query_id", "query", "response", "score", "suite", "evaluation_id", "source_path"]
#: The columns that make a dkps record (the round trip compares these).
RECORD_COLUMNS = ["model_id", "task_id", "query_id", "query", "response", "score", "suite"]
#: ``major.minor`` families of ``schema_version`` this adapter reads (any patch level).
SUPPORTED_SCHEMA_VERSIONS = ("0.2", "0.3")
#: The version :func:`write_records` writes (the shipped schemas' version).
WRITE_SCHEMA_VERSION = "0.3.0"
_SANITIZE = re.compile(r"[^A-Za-z0-9_]+")
_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")


# ------------------------------------------------------------------------------------ versions
@references(EEE, EEE_CHAPTER)
def check_schema_version(rec: dict, where: str = "record") -> str | None:
    """The record's ``schema_version`` if this adapter reads it; ValueError naming it if not.

    A record without ``schema_version`` is read with the tolerant rules of :func:`record_to_row`
    (``None`` is returned). Supported: ``0.2.x`` and ``0.3.x`` (:data:`SUPPORTED_SCHEMA_VERSIONS`).

    Parameters
    ----------
    rec : dict
        A record.
    where : str, default 'record'
        Where it was read (a file and line), named in the message.

    Returns
    -------
    str or None
        The version, or None when the record has none.

    Raises
    ------
    ValueError
        A version this adapter does not read.
    """
    if not isinstance(rec, dict) or "schema_version" not in rec or rec["schema_version"] is None:
        return None
    v = rec["schema_version"]
    m = _VERSION.match(str(v).strip()) if isinstance(v, (str, int, float)) and not isinstance(v, bool) else None
    if m is None:
        raise ValueError(
            f"{where}: schema_version {v!r} is not a version string like '0.3.0'; "
            f"dkps.eee reads EEE schema versions {', '.join(s + '.x' for s in SUPPORTED_SCHEMA_VERSIONS)}"
        )
    family = f"{int(m.group(1))}.{int(m.group(2))}"
    if family not in SUPPORTED_SCHEMA_VERSIONS:
        raise ValueError(
            f"{where}: EEE schema_version {v!r} is not supported; dkps.eee reads "
            f"{', '.join(s + '.x' for s in SUPPORTED_SCHEMA_VERSIONS)} (convert the file with the "
            "every_eval_ever tools, or extend dkps.eee)"
        )
    return str(v).strip()


# ------------------------------------------------------------------------------------ paths
def _is_instance_file(path: Path) -> bool:
    """A ``*.jsonl`` file whose first record looks like an EEE instance record (the 0.2.0 files
    were named without the ``_samples`` suffix)."""
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    rec = json.loads(line)
                    return isinstance(rec, dict) and "schema_version" in rec and "sample_id" in rec
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return False


def _sample_files(paths) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*.jsonl") if f.name.endswith("_samples.jsonl") or _is_instance_file(f))
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise ValueError(f"{p} is neither a file nor a directory")
    if not out:
        raise ValueError("no *_samples.jsonl files (or EEE instance-level *.jsonl files) found in the given paths")
    return out


def _parent_model(path: Path) -> str | None:
    """``developer/model`` from the two folders above the file (the original's path rule), or None
    when the file does not sit two folders deep."""
    parts = path.parts
    return f"{parts[-3]}/{parts[-2]}" if len(parts) >= 3 else None


def _layout(path: Path) -> tuple[str, str, str] | None:
    """(benchmark, developer, model) when the path follows ``data/{benchmark}/{developer}/{model}/``."""
    parts = path.parts[:-1]
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == "data" and len(parts) - i - 1 >= 3:
            return parts[i + 1], parts[i + 2], parts[i + 3]
    return None


# ------------------------------------------------------------------------------------ one record
def _score(ev: dict | None) -> float:
    """``evaluation.score`` (numeric strings included), else ``is_correct`` as 1/0, else NaN."""
    ev = ev or {}
    s = ev.get("score")
    if s is not None and not isinstance(s, bool):
        try:
            v = float(s)
            if math.isfinite(v):
                return v
        except (TypeError, ValueError):
            pass
    c = ev.get("is_correct")
    if isinstance(c, bool):
        return float(c)
    if isinstance(c, str) and c.strip().lower() in ("true", "false"):
        return 1.0 if c.strip().lower() == "true" else 0.0
    if isinstance(c, (int, float)) and c in (0, 1):
        return float(c)
    return float("nan")


def _response(rec: dict) -> str:
    """Single turn: ``output.raw`` (first element of a list, as in the original dkps); multi-turn and agentic:
    the assistant messages (0.2.0: ``interactions``) in turn order joined by a blank line."""
    kind = rec.get("interaction_type") or "single_turn"
    if kind == "single_turn":
        raw = (rec.get("output") or {}).get("raw")
        if isinstance(raw, list):
            raw = next((r for r in raw if isinstance(r, str)), None)
        return raw if isinstance(raw, str) else ""
    msgs = rec.get("messages") or rec.get("interactions") or []
    turns = [
        m for m in msgs if isinstance(m, dict) and m.get("role") == "assistant" and isinstance(m.get("content"), str)
    ]
    turns.sort(key=lambda m: m.get("turn_idx", 0))
    return "\n\n".join(m["content"] for m in turns)


def _query_id(rec: dict, query: str) -> str:
    sid = rec.get("sample_id")
    if sid is not None and str(sid) != "":
        return str(sid)
    if rec.get("sample_hash"):
        return str(rec["sample_hash"])
    return hashlib.sha1(query.encode("utf-8")).hexdigest()


def _suite_of(rec: dict) -> str:
    """Suite of a record outside the store layout: the first '/'-part of
    ``evaluation_id`` when the id has the 0.3 form ``source/model/timestamp``; else
    ``evaluation_name``; else ``'eee'``. The 0.2.x ids (``"None_samples"``, ``"ai2_arc_<model>_<uuid>"``)
    have no '/' and name the run, not the benchmark, so they are not used."""
    ev_id, ev_name = rec.get("evaluation_id"), rec.get("evaluation_name")
    if isinstance(ev_id, str) and "/" in ev_id and ev_id.split("/")[0]:
        return ev_id.split("/")[0]
    if ev_name:
        return str(ev_name)
    if isinstance(ev_id, str) and ev_id:
        return ev_id
    return "eee"


def _task_of(suite: str, sub: str | None) -> str:
    """The task id: the sub-task sanitised to ``[A-Za-z0-9_]`` (runs of other characters become
    '_'), or the suite when the record names none."""
    return _SANITIZE.sub("_", str(sub)) if sub else suite


def _sub_task(rec: dict) -> str | None:
    """The original's sub-task: ``metadata.source_task``, else the part of ``sample_id`` before ':'."""
    meta = rec.get("metadata")
    src = meta.get("source_task") if isinstance(meta, dict) else None
    if src:
        return str(src)
    sid = rec.get("sample_id")
    if isinstance(sid, str) and ":" in sid and sid.split(":", 1)[0]:
        return sid.split(":", 1)[0]
    return None


@references(EEE, EEE_CHAPTER)
def unify_task_suites(df: pd.DataFrame) -> pd.DataFrame:
    """Give each task one suite: a task whose rows carry several gets its most common one (ties: the first sorted).

    Task ids are global (as in the original dkps), and a task belongs to one suite.

    Parameters
    ----------
    df : DataFrame
        Records with ``task_id`` and ``suite``.

    Returns
    -------
    DataFrame
        ``df`` itself when every task has one suite, else a copy with the suites unified.
    """
    per = df.groupby("task_id")["suite"].nunique()
    shared = per.index[per > 1]
    if len(shared) == 0:
        return df
    df = df.copy()
    for t in shared:
        rows = df.task_id == t
        counts = df.suite[rows].value_counts()
        main = sorted(counts.index[counts == counts.max()])[0]
        df.loc[rows, "suite"] = main
    return df


@references(EEE, EEE_CHAPTER)
def record_to_row(rec: dict, model_id: str | None = None, *, suite: str | None = None, source_path: str = ""):
    """One instance record -> one records row, or None when it is unusable (the original's rules).

    - ``model_id``: the argument (the run's path), else the record's ``model_id``;
    - ``task_id``: ``metadata.source_task``, else the part of ``sample_id`` before ':', else the
      suite; sanitised to ``[A-Za-z0-9_]``;
    - ``suite``: the argument (the store's ``data/<benchmark>/`` folder), else the first '/'-part of
      a ``source/model/timestamp`` ``evaluation_id``, else ``evaluation_name`` (0.2.x run ids are
      not benchmarks);
    - ``query_id``: ``sample_id``, else ``sample_hash``, else a hash of the query text;
    - ``response``: ``output.raw`` (its first element when a list); multi-turn and agentic records:
      the model's own (assistant) turns of ``messages``;
    - ``score``: ``evaluation.score`` (numeric strings parsed), else ``is_correct``, else NaN (the
      row is kept: unscored responses still place the model).

    Parameters
    ----------
    rec : dict
        One instance-level record (a line of a samples file).
    model_id : str, optional
        The model's id from the run's path (None: the record's).
    suite : str, optional
        The store's benchmark folder.
    source_path : str, default ''
        The file the record came from (kept in the row).

    Returns
    -------
    dict or None
        The row (``model_id, task_id, query_id, query, response, score, suite, evaluation_id, source_path``),
        or None when the record has no model id, no query text or no response (an empty list included), as
        the original does.

    Raises
    ------
    ValueError
        An unsupported ``schema_version``.
    """
    if not isinstance(rec, dict):
        raise ValueError(f"an EEE record must be a JSON object, got {type(rec).__name__}")
    check_schema_version(rec)
    ev_id = rec.get("evaluation_id")
    if suite is None:
        suite = _suite_of(rec)
    query = (rec.get("input") or {}).get("raw")
    query = query if isinstance(query, str) else ""
    model = model_id if model_id is not None else rec.get("model_id")
    response = _response(rec)
    if not model or not query or not response:
        return None
    return {
        "model_id": str(model),
        "task_id": _task_of(suite, _sub_task(rec)),
        "query_id": _query_id(rec, query),
        "query": query,
        "response": response,
        "score": _score(rec.get("evaluation")),
        "suite": suite,
        "evaluation_id": ev_id if isinstance(ev_id, str) else "",
        "source_path": source_path,
    }


# ------------------------------------------------------------------------------------ runs
def _read_jsonl(path: Path) -> list[dict]:
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}, line {n}: not valid JSON ({exc.msg})") from None
            check_schema_version(rec, where=f"{path}, line {n}")
            out.append(rec)
    return out


def _run_rank(path: Path) -> tuple:
    """Newest-run order: the sibling aggregate's retrieved_timestamp, then mtime, then path."""
    agg = (
        path.with_name(path.name[: -len("_samples.jsonl")] + ".json") if path.name.endswith("_samples.jsonl") else None
    )
    ts = float("-inf")
    if agg is not None and agg.is_file():
        try:
            raw = json.loads(agg.read_text()).get("retrieved_timestamp")
            ts = float(raw)
        except (ValueError, TypeError, json.JSONDecodeError, AttributeError):
            ts = float("-inf")
    return (ts, path.stat().st_mtime, str(path))


@references(EEE, EEE_CHAPTER)
def load_records(
    paths,
    max_queries_per_cell: int | None = 32,
    seed: int | None = None,
    model_from: str = "auto",
    random_state: int = 0,
) -> pd.DataFrame:
    """Read EEE ``*_samples.jsonl`` runs into dkps records (the original's ``load_records``).

    Rows: see :func:`record_to_row`; records it finds unusable (no model, query or response) are
    dropped and counted. ``suite`` is the benchmark folder of the store layout when there is one.
    When several runs hold the same (model, task, query), the row of the newest run wins (newest by
    the sibling aggregate's ``retrieved_timestamp``, then the file's modification time, then its
    path); within one run the first sample wins. One ``UserWarning`` counts the dropped rows and
    the duplicates. Task ids are global: a task seen under several suites takes its most common one.

    Parameters
    ----------
    paths : str, path, or list of them
        A file, a directory (searched recursively for ``*_samples.jsonl`` and for 0.2.0 instance files
        ``*.jsonl``), or a list of either.
    max_queries_per_cell : int or None, default 32
        Keep, per (model, task), the queries with the smallest ``sha1(task_id + "\0" + query_id)`` — one
        subset shared by every model, so capped cells stay paired (the original draws an independent random
        subset per cell); None keeps all.
    seed : int, optional
        Accepted for compatibility (the cap is deterministic).
    model_from : {'auto', 'path', 'record'}, default 'auto'
        Where ``model_id`` comes from. ``'path'``: ``developer/model``, the two folders above the file (the
        store's ``data/<benchmark>/<developer>/<model>/`` layout); ``'record'``: the in-file ``model_id``;
        ``'auto'``: the path when the file is in the store layout or its folder holds one model's runs only
        (one in-file id), else the in-file id with a ``UserWarning`` (the original takes the path whenever the
        file sits two folders deep, which names a model after a folder of several models' files).
    random_state : int, default 0
        Accepted for compatibility (the cap is deterministic).

    Returns
    -------
    DataFrame
        Columns ``model_id, task_id, query_id, query, response, score, suite, evaluation_id, source_path``.

    Raises
    ------
    ValueError
        No files, no usable row, a line that is not JSON, or a ``schema_version`` outside 0.2.x /
        0.3.x (the message names the version, the file and the line).
    """
    if model_from not in ("auto", "path", "record"):
        raise ValueError(f"model_from must be 'auto', 'path' or 'record', got {model_from!r}")
    if max_queries_per_cell is not None and (
        isinstance(max_queries_per_cell, bool) or not isinstance(max_queries_per_cell, int) or max_queries_per_cell < 1
    ):
        raise ValueError(f"max_queries_per_cell must be None or an int >= 1, got {max_queries_per_cell!r}")
    files = sorted(_sample_files(paths), key=_run_rank)  # oldest run first
    runs = [(f, _read_jsonl(f)) for f in files]
    # a folder whose runs all carry one in-file model id is that model's folder
    ids_in: dict[Path, set] = {}
    for f, recs in runs:
        ids_in.setdefault(f.parent, set()).update(str(r.get("model_id")) for r in recs if isinstance(r, dict))
    rows: list[dict] = []
    dropped = fallback = 0
    for order, (f, recs) in enumerate(runs):
        lay = _layout(f)
        suite = lay[0] if lay else None
        mid = None
        if model_from == "path" or (model_from == "auto" and (lay or len(ids_in[f.parent]) == 1)):
            mid = f"{lay[1]}/{lay[2]}" if lay else _parent_model(f)
        if mid is None and model_from == "auto":
            fallback += len(recs)
        seen: set = set()
        for rec in recs:
            row = record_to_row(rec, mid, suite=suite, source_path=str(f))
            if row is None:
                dropped += 1
                continue
            key = (row["task_id"], row["query_id"])
            if key in seen:
                continue  # within a run the first sample wins
            seen.add(key)
            row["_order"] = order
            rows.append(row)
    if not rows:
        raise ValueError("no usable records (every record lacked a model id, a query or a response)")
    if fallback:
        warnings.warn(
            f"{fallback} records sit in folders that mix several models (not the store layout "
            "<benchmark>/<developer>/<model>/); their in-file model_id is used",
            UserWarning,
            stacklevel=2,
        )
    df = unify_task_suites(pd.DataFrame(rows, columns=COLUMNS + ["_order"]))
    n0 = len(df)
    df = df.drop_duplicates(["model_id", "task_id", "query_id"], keep="last").sort_index(kind="stable")
    n_dup = n0 - len(df)
    if dropped or n_dup:
        warnings.warn(
            f"load_records: dropped {dropped} unusable records; {n_dup} duplicates resolved to the newest run",
            UserWarning,
            stacklevel=2,
        )
    df = df.drop(columns="_order")
    if max_queries_per_cell is not None:
        h = [hashlib.sha1(f"{t}\0{q}".encode()).hexdigest() for t, q in zip(df.task_id, df.query_id)]
        df = df.assign(_h=h)
        rank = df.groupby(["model_id", "task_id"])["_h"].rank(method="first")
        df = df[rank <= max_queries_per_cell].drop(columns="_h")
    return df.reset_index(drop=True)


AGGREGATE_COLUMNS = [
    "model_id",
    "suite",
    "evaluation_result_id",
    "evaluation_name",
    "score",
    "num_samples",
    "lower_is_better",
    "evaluation_id",
    "retrieved_timestamp",
    "source_path",
]


@references(EEE, EEE_CHAPTER)
def load_aggregates(paths) -> pd.DataFrame:
    """Read EEE aggregate records (``<uuid>.json``) into one row per ``evaluation_results`` entry.

    Parameters
    ----------
    paths : str, path, or list of them
        A file, a directory (searched recursively for ``*.json`` files holding an ``evaluation_results``
        list), or a list of either.

    Returns
    -------
    DataFrame
        Columns ``model_id`` (``model_info.id``), ``suite`` (the store layout's benchmark folder, else the
        first '/'-part of ``evaluation_id``), ``evaluation_result_id`` (``evaluation_name`` when absent),
        ``evaluation_name``, ``score`` (``score_details.score``), ``num_samples``
        (``score_details.uncertainty.num_samples`` or NaN), ``lower_is_better``, ``evaluation_id``,
        ``retrieved_timestamp``, ``source_path``.

    Raises
    ------
    ValueError
        No aggregate file, a file that is not JSON, or an unsupported ``schema_version``.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files.extend(sorted(p.rglob("*.json")))
        elif p.is_file():
            files.append(p)
        else:
            raise ValueError(f"{p} is neither a file nor a directory")
    rows = []
    for f in files:
        try:
            doc = json.loads(f.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{f}: not valid JSON ({exc})") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("evaluation_results"), list):
            continue  # not an aggregate record
        check_schema_version(doc, where=str(f))
        lay = _layout(f)
        ev_id = doc.get("evaluation_id") if isinstance(doc.get("evaluation_id"), str) else ""
        suite = lay[0] if lay else (ev_id.split("/")[0] if "/" in ev_id else ev_id)
        model = (doc.get("model_info") or {}).get("id", "")
        for res in doc["evaluation_results"]:
            det = res.get("score_details") or {}
            unc = det.get("uncertainty") or {}
            name = res.get("evaluation_name", "")
            rows.append(
                {
                    "model_id": str(model),
                    "suite": suite,
                    "evaluation_result_id": res.get("evaluation_result_id") or name,
                    "evaluation_name": name,
                    "score": float(det["score"]) if det.get("score") is not None else float("nan"),
                    "num_samples": float(unc.get("num_samples", float("nan"))),
                    "lower_is_better": (res.get("metric_config") or {}).get("lower_is_better"),
                    "evaluation_id": ev_id,
                    "retrieved_timestamp": doc.get("retrieved_timestamp"),
                    "source_path": str(f),
                }
            )
    if not rows:
        raise ValueError("no EEE aggregate records (JSON objects with an 'evaluation_results' list) found")
    return pd.DataFrame(rows, columns=AGGREGATE_COLUMNS)


# ------------------------------------------------------------------------------------ writing
def _path_part(s: str) -> str:
    """A store-layout folder name: '/' (and a leading '.') cannot be part of one."""
    out = str(s).replace("/", "_").replace("\\", "_")
    return "_" + out[1:] if out.startswith(".") else out


def _prepare(records: Any, suite: str | None) -> pd.DataFrame:
    """Validate writable records and add the canonical columns (``eee_suite``, ``eee_sub``, ``eee_task``)."""

    df = coerce(records)
    need = ["model_id", "task_id", "query_id", "query", "response", "score"]
    absent = [c for c in need if c not in df.columns]
    if absent:
        raise ValueError(
            f"records lack the column(s) {absent}; EEE samples need model_id, task_id, query_id, "
            "the query text (input.raw), the response text (output.raw) and a score"
        )
    if "suite" not in df.columns:
        if suite is None:
            raise ValueError(
                "records have no 'suite' column; pass suite='<benchmark name>' (the store's data/<benchmark>/ folder)"
            )
        df["suite"] = suite
    elif suite is not None:
        raise ValueError("records have a 'suite' column and suite= was given too; give it once")
    if len(df) == 0:
        raise ValueError("records have zero rows; nothing to write")
    for col in ("model_id", "task_id", "query_id", "suite"):
        bad = df[col].isna() | (df[col].astype(str).str.strip() == "")
        if bad.any():
            pos = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"column '{col}': row {pos} is empty; every row needs a {col}")
    for col in ("query", "response"):
        bad = ~df[col].map(lambda v: isinstance(v, str))
        if bad.any():
            pos = int(np.flatnonzero(bad.to_numpy())[0])
            raise ValueError(f"column '{col}': row {pos} is not text ({df[col].iat[pos]!r}); EEE stores text")
    score = pd.to_numeric(df["score"], errors="coerce").astype(float)
    bad = ~np.isfinite(score.to_numpy())
    if bad.any():
        pos = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"column 'score': row {pos} (model {df.model_id.iat[pos]!r}, query {df.query_id.iat[pos]!r}) "
            f"has no finite score ({df.score.iat[pos]!r}); EEE 0.3.0 requires evaluation.score for every "
            "sample — drop unscored rows first, e.g. records.dropna(subset=['score'])"
        )
    df["score"] = score
    for col in ("model_id", "task_id", "query_id", "suite"):
        df[col] = df[col].map(
            lambda v: str(int(v)) if isinstance(v, (int, np.integer)) and not isinstance(v, bool) else str(v)
        )
    df["eee_suite"] = df["suite"].map(_path_part)
    pre = df["suite"] + "/"
    sub = [t[len(p) :] if t.startswith(p) else t for t, p in zip(df.task_id, pre)]
    df["eee_sub"] = sub
    tasks = pd.DataFrame({"task_id": [_task_of(s, u) for s, u in zip(df["eee_suite"], sub)], "suite": df["eee_suite"]})
    df["eee_task"] = tasks.task_id.to_numpy()
    df["eee_suite"] = unify_task_suites(tasks).suite.to_numpy()
    dup = df.duplicated(["model_id", "eee_task", "query_id"])
    if dup.any():
        pos = int(np.flatnonzero(dup.to_numpy())[0])
        raise ValueError(
            f"row {pos}: (model {df.model_id.iat[pos]!r}, task {df['eee_task'].iat[pos]!r}, query "
            f"{df.query_id.iat[pos]!r}) occurs twice; an EEE run holds one sample per query"
        )
    return df


@references(EEE, EEE_CHAPTER)
def canonical_records(records: Any, suite: str | None = None) -> pd.DataFrame:
    """The records as :func:`load_records` returns them after :func:`write_records`.

    Ids become strings; ``suite`` loses '/' (it is a folder name); ``task_id`` loses a leading
    ``"<suite>/"`` and is sanitised to ``[A-Za-z0-9_]``, and a task seen under several suites takes its most
    common one; scores become floats; rows with an empty response are dropped (the
    reader drops them). ``canonical_records`` is idempotent.

    Parameters
    ----------
    records : DataFrame, list of dict, or dict of lists
        As for :func:`write_records`.
    suite : str, optional
        As for :func:`write_records`.

    Returns
    -------
    DataFrame
        Columns :data:`RECORD_COLUMNS`.
    """
    df = _prepare(records, suite)
    out = pd.DataFrame(
        {
            "model_id": df.model_id,
            "task_id": df["eee_task"],
            "query_id": df.query_id,
            "query": df["query"],
            "response": df.response,
            "score": df.score,
            "suite": df["eee_suite"],
        }
    )
    return out[out.response != ""].reset_index(drop=True)


def _run_uuid(evaluation_id: str) -> str:
    """A deterministic version-4-shaped UUID for a run (the store's file names must match one)."""
    return str(_uuid.UUID(bytes=hashlib.sha1(evaluation_id.encode("utf-8")).digest()[:16], version=4))


def _aggregate(
    df: pd.DataFrame,
    model: str,
    suite: str,
    developer: str,
    evaluation_id: str,
    timestamp: str,
    rel_samples: str,
    checksum: str,
    source_organization: str,
    source_url: str | None,
    min_score: float | None,
    max_score: float | None,
) -> dict:

    results = []
    for task, g in df.groupby("eee_task", sort=True):
        sub = g["eee_sub"].iat[0]
        s = g.score.to_numpy(dtype=float)
        unc = {"num_samples": int(s.size)}
        if s.size > 1:
            sd = float(s.std(ddof=1))
            unc.update(standard_deviation=sd, standard_error={"value": sd / math.sqrt(s.size), "method": "analytic"})
        src = (
            {"dataset_name": suite, "source_type": "url", "url": [source_url]}
            if source_url
            else {"dataset_name": suite, "source_type": "other"}
        )
        results.append(
            {
                "evaluation_result_id": task,
                "evaluation_name": sub or suite,
                "source_data": src,
                "metric_config": {
                    "metric_id": "score",
                    "metric_name": "mean per-sample score",
                    "lower_is_better": False,
                    "score_type": "continuous",
                    "min_score": min_score,
                    "max_score": max_score,
                },
                "score_details": {"score": float(s.mean()), "uncertainty": unc},
            }
        )
    name = model.split("/", 1)[1] if "/" in model else model
    info = {
        "name": name,
        "id": model,
        "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"},
    }
    if "/" in model:
        info["developer"] = developer
    return {
        "schema_version": WRITE_SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "retrieved_timestamp": timestamp,
        "source_metadata": {
            "source_name": suite,
            "source_type": "documentation",
            "source_organization_name": source_organization,
            "evaluator_relationship": "third_party",
            "additional_details": {"converted_by": "dkps.eee.write_records"},
        },
        "eval_library": {"name": "dkps", "version": __version__},
        "model_info": info,
        "evaluation_results": results,
        "detailed_evaluation_results": {
            "format": "jsonl",
            "file_path": rel_samples,
            "hash_algorithm": "sha256",
            "checksum": checksum,
            "total_rows": int(len(df)),
        },
    }


def _instance(row, evaluation_id: str, threshold: float) -> dict:
    rec = {
        "schema_version": WRITE_SCHEMA_VERSION,
        "evaluation_id": evaluation_id,
        "model_id": row.model_id,
        "evaluation_name": row.eee_sub or row.eee_suite,
        "evaluation_result_id": row.eee_task,
        "sample_id": row.query_id,
        "sample_hash": hashlib.sha256(row.query.encode("utf-8")).hexdigest(),
        "interaction_type": "single_turn",
        "input": {"raw": row.query, "reference": []},
        "output": {"raw": [row.response]},
        "answer_attribution": [],
        "evaluation": {"score": float(row.score), "is_correct": bool(row.score > threshold)},
    }
    rec["metadata"] = {"source_task": row.eee_sub}  # the reader's task (a ':' in sample_id is ignored)
    return rec


@references(EEE, EEE_CHAPTER)
def write_records(
    records: Any,
    root: str | os.PathLike,
    *,
    suite: str | None = None,
    timestamp: str | int | None = None,
    source_organization: str = "unknown",
    source_url: str | None = None,
    correct_above: float = 0.5,
    min_score: float | None = None,
    max_score: float | None = None,
) -> list[Path]:
    """Write dkps records as EEE 0.3.0 runs under ``root`` (the inverse of :func:`load_records`).

    One run per (suite, model): ``root/data/<suite>/<developer>/<model>/<uuid>.json`` (the aggregate:
    one ``evaluation_results`` entry per task with the mean score, its standard error and
    ``num_samples``; ``detailed_evaluation_results`` with the samples file's sha256 and row count)
    and ``<uuid>_samples.jsonl`` (one single-turn instance record per row: ``sample_id`` =
    ``query_id``, ``input.raw`` = ``query``, ``output.raw`` = ``[response]``, ``evaluation.score`` =
    ``score``, ``is_correct`` = ``score > correct_above``, the sub-task in ``metadata.source_task``).
    A model id ``dev/name`` goes to the folders ``dev/name``; an id without '/' to ``unknown/<id>``
    (read back with ``model_from='record'`` to get the ids exactly). ``evaluation_id`` is
    ``<suite>/<model with '/' -> '_'>/<timestamp>`` and the uuid is derived from it.

    Parameters
    ----------
    records : DataFrame, list of dict, or dict of lists
        Any dkps records container with ``model_id, task_id, query_id, query, response, score`` (and
        ``suite``, or pass ``suite=``).
    root : str or path
        The folder to write under (its ``data/`` layout as the store's).
    suite : str, optional
        The suite of every row, when the records have no ``suite`` column.
    timestamp : str or int, optional
        The runs' ``retrieved_timestamp`` (Unix seconds); default now.
    source_organization : str, default 'unknown'
        ``source_metadata.source_organization_name``.
    source_url : str, optional
        A URL of the source data set (``source_data``); default: ``source_type 'other'``.
    correct_above : float, default 0.5
        ``is_correct`` is ``score > correct_above``.
    min_score : float, optional
        The scores' lower bound in ``metric_config`` (default: the smallest score, or 0).
    max_score : float, optional
        The upper bound (default: the largest score, or 1).

    Returns
    -------
    list of Path
        The written paths, aggregates and samples files in pairs, sorted by run.

    Raises
    ------
    ValueError
        A missing column, a non-text query or response, a row without a finite score (EEE requires
        one), an empty id, or two rows for one (model, task, query).
    """
    df = _prepare(records, suite)
    ts = str(int(time.time())) if timestamp is None else str(timestamp)
    if not re.fullmatch(r"\d+(\.\d+)?", ts):
        raise ValueError(f"timestamp must be Unix seconds (digits), got {timestamp!r}")
    root = Path(root)
    written: list[Path] = []
    for (s, model), g in df.groupby(["eee_suite", "model_id"], sort=True):
        dev, name = model.split("/", 1) if "/" in model else ("unknown", model)
        folder = Path("data") / s / _path_part(dev) / _path_part(name)
        evaluation_id = f"{s}/{model.replace('/', '_')}/{ts}"
        run = _run_uuid(evaluation_id)
        rel_samples = f"{folder.as_posix()}/{run}_samples.jsonl"
        lines = [
            json.dumps(_instance(r, evaluation_id, correct_above), ensure_ascii=False)
            for r in g.itertuples(index=False)
        ]
        payload = ("\n".join(lines) + "\n").encode("utf-8")
        (root / folder).mkdir(parents=True, exist_ok=True)
        samples = root / rel_samples
        samples.write_bytes(payload)
        agg = _aggregate(
            g,
            model,
            s,
            dev,
            evaluation_id,
            ts,
            rel_samples,
            hashlib.sha256(payload).hexdigest(),
            source_organization,
            source_url,
            min_score,
            max_score,
        )
        agg_path = root / folder / f"{run}.json"
        agg_path.write_text(json.dumps(agg, indent=1, ensure_ascii=False), encoding="utf-8")
        written += [agg_path, samples]
    return written


# ------------------------------------------------------------------------------------ validation
@references(EEE, EEE_CHAPTER)
def validate_file(path: str | os.PathLike, schema_dir: str | os.PathLike) -> list[str]:
    """Validate an EEE file against the JSON schemas in ``schema_dir`` (Draft 7).

    ``*.jsonl`` files are checked line by line against ``instance_level_eval.schema.json``; ``*.json``
    files against ``eval.schema.json``. Needs ``jsonschema``.

    Parameters
    ----------
    path : str or path
        The file.
    schema_dir : str or path
        The folder of the schema files (``eval.schema.json``, ``instance_level_eval.schema.json``).

    Returns
    -------
    list of str
        The error messages, each prefixed with the line and the JSON path (empty: valid).

    Raises
    ------
    ValueError
        ``schema_dir`` without the schema files.
    """
    path, schema_dir = Path(path), Path(schema_dir)
    if not path.is_file():
        raise ValueError(f"{path} is not a file")
    instance = path.suffix == ".jsonl"
    schema_file = schema_dir / ("instance_level_eval.schema.json" if instance else "eval.schema.json")
    if not schema_file.is_file():
        raise ValueError(
            f"schema {schema_file} not found; schema_dir must hold eval.schema.json and instance_level_eval.schema.json"
        )
    validator = jsonschema.Draft7Validator(json.loads(schema_file.read_text(encoding="utf-8")))
    if instance:
        docs = [
            (n, json.loads(line))
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if line.strip()
        ]
    else:
        docs = [(1, json.loads(path.read_text(encoding="utf-8")))]
    errors = []
    for n, doc in docs:
        for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path)):
            where = "/".join(str(p) for p in e.absolute_path) or "(root)"
            errors.append(f"line {n}, {where}: {e.message}")
    return errors


@references(EEE, EEE_CHAPTER)
def survey_files(paths, schema_dir: str | os.PathLike | None = None) -> pd.DataFrame:
    """One row per instance-level file found under ``paths``: what it holds and whether it is read.

    Columns: ``file``, ``schema_version`` (the versions found, comma-joined), ``rows``,
    ``interaction_types``, ``layout`` ('0.3 (messages)', '0.2.0 (interactions)' or
    'single turn'), ``schema_errors`` (number of rows failing the 0.3.0 instance schema, or None
    without ``schema_dir``), ``records_read`` (rows :func:`load_records` keeps from the file alone)
    and ``read_error`` (the adapter's message when it rejects the file, e.g. an unsupported version).

    Parameters
    ----------
    paths : str, path, or list of them
        As for :func:`load_records`.
    schema_dir : str or path, optional
        The schema folder (see :func:`validate_file`); None skips the schema check.

    Returns
    -------
    DataFrame
        One row per file, the columns above.
    """
    out = []
    for f in _sample_files(paths):
        recs = []
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    try:
                        recs.append(json.loads(line))
                    except json.JSONDecodeError:
                        recs.append({})
        versions = sorted({str(r.get("schema_version")) for r in recs if isinstance(r, dict)})
        kinds = sorted({str(r.get("interaction_type") or "single_turn") for r in recs if isinstance(r, dict)})
        if any(isinstance(r, dict) and "interactions" in r for r in recs):
            layout = "0.2.0 (interactions)"
        elif any(isinstance(r, dict) and r.get("messages") for r in recs):
            layout = "0.3 (messages)"
        else:
            layout = "single turn"
        n_err = None
        if schema_dir is not None:
            n_err = sum(1 for line in {e.split(",")[0] for e in validate_file(f, schema_dir)})
        read, err = 0, ""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                read = len(load_records(f, max_queries_per_cell=None))
        except ValueError as exc:
            err = str(exc)
        out.append(
            {
                "file": f.name,
                "schema_version": ", ".join(versions),
                "rows": len(recs),
                "interaction_types": ", ".join(kinds),
                "layout": layout,
                "schema_errors": n_err,
                "records_read": read,
                "read_error": err,
            }
        )
    return pd.DataFrame(out)


# ------------------------------------------------------------------------------------ download
@references(EEE, EEE_CHAPTER)
def fetch_samples(
    benchmarks,
    cache_dir: str | os.PathLike | None = None,
    revision: str | None = None,
    *,
    dest: str | os.PathLike | None = None,
    newest_only: bool = True,
) -> list[str]:
    """Download the samples files of ``benchmarks`` (a list of names, or 'all') from the Hugging Face
    dataset ``evaleval/EEE_datastore`` and return their local paths (``dest`` and ``newest_only`` as in the original dkps).

    With ``newest_only`` only the newest run per (benchmark, developer/model) is fetched, ranked by
    the aggregate's ``retrieved_timestamp`` (aggregates are small and fetched first), then by
    file name. ``dest`` is an alias of ``cache_dir``. Requested benchmarks without any samples file
    are named in one UserWarning. Needs ``huggingface_hub`` (``pip install huggingface-hub``).

    Parameters
    ----------
    benchmarks : list of str or 'all'
        The store's benchmark folders to fetch.
    cache_dir : str or path, optional
        Where the files go (default: the ``huggingface_hub`` cache).
    revision : str, optional
        The dataset revision (a commit; default the newest).
    dest : str or path, optional
        Alias of ``cache_dir`` (the original's name).
    newest_only : bool, default True
        Only the newest run per (benchmark, model).

    Returns
    -------
    list of str
        The local paths of the samples files.

    Raises
    ------
    ValueError
        ``benchmarks`` that are not names or 'all', ``dest`` and ``cache_dir`` both given, or no requested
        benchmark with any samples file.
    ImportError
        Without ``huggingface_hub``.
    """
    if not (
        benchmarks == "all"
        or isinstance(benchmarks, str)
        or (
            isinstance(benchmarks, (list, tuple, set))
            and benchmarks
            and all(isinstance(b, str) and b for b in benchmarks)
        )
    ):
        raise ValueError(f"benchmarks must be 'all', a benchmark name or a non-empty list of names, got {benchmarks!r}")
    try:
        import huggingface_hub as hub  # type: ignore
    except ImportError:
        raise ImportError("fetch_samples needs huggingface_hub: pip install huggingface-hub") from None
    if dest is not None and cache_dir is not None and str(dest) != str(cache_dir):
        raise ValueError("give the download folder once: dest and cache_dir are aliases")
    cache_dir = dest if dest is not None else cache_dir
    if isinstance(benchmarks, str) and benchmarks != "all":
        benchmarks = [benchmarks]
    files = hub.HfApi().list_repo_files(REPO_ID, repo_type="dataset", revision=revision)
    wanted = None if benchmarks == "all" else set(benchmarks)
    samples: dict[tuple, list[str]] = {}
    for fn in files:
        parts = fn.split("/")
        if len(parts) != 5 or parts[0] != "data" or not fn.endswith("_samples.jsonl"):
            continue
        if wanted is not None and parts[1] not in wanted:
            continue
        samples.setdefault((parts[1], parts[2], parts[3]), []).append(fn)
    if not samples:
        raise ValueError(f"no samples files for {benchmarks!r} in {REPO_ID}")
    if wanted is not None:
        missing = sorted(wanted - {k[0] for k in samples})
        if missing:
            warnings.warn(f"no samples files for {missing} in {REPO_ID}", UserWarning, stacklevel=2)
    file_set = set(files)

    def get(fn: str) -> str:
        return hub.hf_hub_download(
            REPO_ID, fn, repo_type="dataset", revision=revision, cache_dir=None if cache_dir is None else str(cache_dir)
        )

    def ts(fn: str) -> float:
        agg = fn[: -len("_samples.jsonl")] + ".json"
        if agg not in file_set:
            return float("-inf")
        try:
            return float(json.loads(Path(get(agg)).read_text()).get("retrieved_timestamp"))
        except (TypeError, ValueError, json.JSONDecodeError, AttributeError):
            return float("-inf")

    out: list[str] = []
    for key in sorted(samples):
        cands = sorted(samples[key])
        if newest_only and len(cands) > 1:
            cands = [max(cands, key=lambda fn: (ts(fn), fn))]
        out.extend(get(fn) for fn in cands)
    return out
