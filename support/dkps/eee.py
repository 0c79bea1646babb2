"""Every Eval Ever (EEE) adapter: instance-level ``*_samples.jsonl`` runs -> dkps records (spec §13).

Each line of a samples file is one ``instance_level_eval`` record (schema 0.2.x/0.3.x): ``model_id``,
``evaluation_name``, ``evaluation_id``, ``sample_id``, ``sample_hash``, ``interaction_type``,
``input.raw``, ``output.raw`` (single turn) or ``messages`` (multi-turn, agentic), and
``evaluation.score`` / ``evaluation.is_correct``. The store lays runs out as
``data/{benchmark}/{developer}/{model}/{uuid}_samples.jsonl`` next to the aggregate ``{uuid}.json``.

:func:`load_records` reads files or directories into the records table PKPS fits on; it never
touches the network. :func:`fetch_samples` downloads runs from the Hugging Face dataset
``evaleval/EEE_datastore`` through ``huggingface_hub`` (optional extra ``eee``).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import warnings
from pathlib import Path
from typing import Any, Iterable, Sequence

import pandas as pd

__all__ = ["load_records", "record_to_row", "fetch_samples", "REPO_ID"]

REPO_ID = "evaleval/EEE_datastore"
COLUMNS = ["model_id", "task_id", "query_id", "query", "response", "score", "suite", "evaluation_id", "source_path"]
_SANITIZE = re.compile(r"[^A-Za-z0-9_]+")


# ------------------------------------------------------------------------------------ paths
def _sample_files(paths) -> list[Path]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(p.rglob("*_samples.jsonl")))
        elif p.is_file():
            out.append(p)
        else:
            raise ValueError(f"{p} is neither a file nor a directory")
    if not out:
        raise ValueError("no *_samples.jsonl files found in the given paths")
    return out


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
    """Single turn: ``output.raw`` (first element of a list, §17 row 41); multi-turn and agentic:
    the assistant messages in turn order joined by a blank line."""
    kind = rec.get("interaction_type") or "single_turn"
    if kind == "single_turn":
        raw = (rec.get("output") or {}).get("raw")
        if isinstance(raw, list):
            raw = next((r for r in raw if isinstance(r, str)), None)
        return raw if isinstance(raw, str) else ""
    msgs = rec.get("messages") or rec.get("interactions") or []
    turns = [m for m in msgs if isinstance(m, dict) and m.get("role") == "assistant" and isinstance(m.get("content"), str)]
    turns.sort(key=lambda m: m.get("turn_idx", 0))
    return "\n\n".join(m["content"] for m in turns)


def _query_id(rec: dict, query: str) -> str:
    sid = rec.get("sample_id")
    if sid is not None and str(sid) != "":
        return str(sid)
    if rec.get("sample_hash"):
        return str(rec["sample_hash"])
    return hashlib.sha1(query.encode("utf-8")).hexdigest()


def record_to_row(rec: dict, *, suite: str | None = None, model_id: str | None = None, source_path: str = "") -> dict:
    """One instance record -> one records row (spec §13; §17 rows 37, 39).

    ``suite`` defaults to the first '/'-part of ``evaluation_id``, then ``evaluation_name``.
    ``task_id`` is the suite, or ``suite/<sub-task>`` where the sub-task is ``metadata.source_task``
    if present, else ``evaluation_name`` when it differs from the suite (case-insensitive);
    characters other than letters, digits and '_' in the sub-task become '_'.
    """
    if not isinstance(rec, dict):
        raise ValueError(f"an EEE record must be a JSON object, got {type(rec).__name__}")
    ev_name = rec.get("evaluation_name")
    ev_id = rec.get("evaluation_id")
    if suite is None:
        if isinstance(ev_id, str) and ev_id.split("/")[0]:
            suite = ev_id.split("/")[0]
        elif ev_name:
            suite = str(ev_name)
        else:
            suite = "eee"
    sub = (rec.get("metadata") or {}).get("source_task") if isinstance(rec.get("metadata"), dict) else None
    if not sub and ev_name and str(ev_name).lower() != suite.lower():
        sub = str(ev_name)
    task = suite if not sub else f"{suite}/{_SANITIZE.sub('_', str(sub))}"
    query = (rec.get("input") or {}).get("raw")
    query = query if isinstance(query, str) else ""
    return {
        "model_id": model_id if model_id is not None else str(rec.get("model_id", "")),
        "task_id": task,
        "query_id": _query_id(rec, query),
        "query": query,
        "response": _response(rec),
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
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}, line {n}: not valid JSON ({exc.msg})") from None
    return out


def _run_rank(path: Path) -> tuple:
    """Newest-run order: the sibling aggregate's retrieved_timestamp, then mtime, then path."""
    agg = path.with_name(path.name[: -len("_samples.jsonl")] + ".json") if path.name.endswith("_samples.jsonl") else None
    ts = float("-inf")
    if agg is not None and agg.is_file():
        try:
            raw = json.loads(agg.read_text()).get("retrieved_timestamp")
            ts = float(raw)
        except (ValueError, TypeError, json.JSONDecodeError, AttributeError):
            ts = float("-inf")
    return (ts, path.stat().st_mtime, str(path))


def load_records(
    paths,
    model_from: str = "auto",
    max_queries_per_cell: int | None = 32,
    random_state: int = 0,
    seed: int | None = None,
) -> pd.DataFrame:
    """Read EEE ``*_samples.jsonl`` runs into dkps records (spec §13).

    Parameters
    ----------
    paths : a file, a directory (searched recursively), or a list of either.
    model_from : 'auto' / 'path' (``developer/model`` from the store layout, falling back to the
        in-file ``model_id`` with a UserWarning) or 'record' (the in-file ``model_id``).
    max_queries_per_cell : keep the queries with the smallest ``sha1(task_id + "\\0" + query_id)``
        per (model, task) — one shared subset across models; None keeps all.
    random_state, seed : accepted for compatibility (the cap is deterministic).

    Returns
    -------
    DataFrame with columns ``model_id, task_id, query_id, query, response, score, suite,
    evaluation_id, source_path``. Of several runs of the same (suite, model) only the newest is kept.
    """
    if model_from not in ("auto", "path", "record"):
        raise ValueError(f"model_from must be 'auto', 'path' or 'record', got {model_from!r}")
    if max_queries_per_cell is not None and (isinstance(max_queries_per_cell, bool)
                                             or not isinstance(max_queries_per_cell, int) or max_queries_per_cell < 1):
        raise ValueError(f"max_queries_per_cell must be None or an int >= 1, got {max_queries_per_cell!r}")
    files = _sample_files(paths)
    runs: dict[tuple, list] = {}
    fallback = 0
    for f in files:
        recs = _read_jsonl(f)
        lay = _layout(f)
        suite = lay[0] if lay else None
        rows = []
        seen: set = set()
        for rec in recs:
            mid = None
            if model_from in ("auto", "path"):
                if lay:
                    mid = f"{lay[1]}/{lay[2]}"
                else:
                    fallback += 1
            row = record_to_row(rec, suite=suite, model_id=mid, source_path=str(f))
            key = (row["task_id"], row["query_id"])
            if key in seen:
                continue  # within a run the first sample wins
            seen.add(key)
            rows.append(row)
        for row in rows:
            runs.setdefault((row["suite"], row["model_id"]), {}).setdefault(f, []).append(row)
    if fallback:
        warnings.warn(f"{fallback} records are not in the store layout data/<benchmark>/<developer>/<model>/; "
                      "their in-file model_id is used", UserWarning, stacklevel=2)
    kept: list[dict] = []
    for by_file in runs.values():
        newest = max(by_file, key=_run_rank)
        kept.extend(by_file[newest])
    empty = sum(1 for r in kept if not r["response"])
    if empty:
        warnings.warn(f"dropped {empty} records with an empty response", UserWarning, stacklevel=2)
    kept = [r for r in kept if r["response"]]
    if not kept:
        raise ValueError("no usable records (every record lacked a response)")
    df = pd.DataFrame(kept, columns=COLUMNS)
    if max_queries_per_cell is not None:
        h = [hashlib.sha1(f"{t}\0{q}".encode("utf-8")).hexdigest() for t, q in zip(df.task_id, df.query_id)]
        df = df.assign(_h=h)
        rank = df.groupby(["model_id", "task_id"])["_h"].rank(method="first")
        df = df[rank <= max_queries_per_cell].drop(columns="_h")
    return df.reset_index(drop=True)


# ------------------------------------------------------------------------------------ download
def fetch_samples(
    benchmarks,
    cache_dir: str | os.PathLike | None = None,
    revision: str | None = None,
    *,
    dest: str | os.PathLike | None = None,
    newest_only: bool = True,
) -> list[str]:
    """Download the samples files of ``benchmarks`` (a list of names, or 'all') from the Hugging Face
    dataset ``evaleval/EEE_datastore`` and return their local paths (spec §13, §17 row 46).

    With ``newest_only`` only the newest run per (benchmark, developer/model) is fetched, ranked by
    the aggregate's ``retrieved_timestamp`` (aggregates are small and fetched first). ``dest`` is an
    alias of ``cache_dir``. Needs ``huggingface_hub`` (``pip install huggingface-hub``).
    """
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
    samples: dict[tuple, list[str]] = {}
    for fn in files:
        parts = fn.split("/")
        if len(parts) != 5 or parts[0] != "data" or not fn.endswith("_samples.jsonl"):
            continue
        if benchmarks != "all" and parts[1] not in set(benchmarks):
            continue
        samples.setdefault((parts[1], parts[2], parts[3]), []).append(fn)
    if not samples:
        raise ValueError(f"no samples files for {benchmarks!r} in {REPO_ID}")

    def get(fn: str) -> str:
        return hub.hf_hub_download(REPO_ID, fn, repo_type="dataset", revision=revision,
                                   cache_dir=None if cache_dir is None else str(cache_dir))

    out: list[str] = []
    for key in sorted(samples):
        cands = sorted(samples[key])
        if newest_only and len(cands) > 1:
            def ts(fn: str) -> float:
                agg = fn[: -len("_samples.jsonl")] + ".json"
                if agg not in files:
                    return float("-inf")
                try:
                    return float(json.loads(Path(get(agg)).read_text()).get("retrieved_timestamp"))
                except (TypeError, ValueError, json.JSONDecodeError):
                    return float("-inf")

            cands = [max(cands, key=lambda fn: (ts(fn), fn))]
        out.extend(get(fn) for fn in cands)
    return out
