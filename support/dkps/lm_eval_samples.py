"""Read lm-evaluation-harness ``--log_samples`` output into dkps records.

EleutherAI's lm-evaluation-harness (``lm_eval``), run with ``--output_path OUT --log_samples``,
writes for each run into ``OUT/<model_name_sanitized>/`` one ``results_<timestamp>.json`` and, per
task, one ``samples_<task>_<timestamp>.jsonl``: a line per document (and per filter) with the
document (``doc``, ``doc_id``, ``doc_hash``), the requests' arguments (``arguments.gen_args_<i>``:
``arg_0`` the prompt, ``arg_1`` a continuation or the generation settings), the model's answers
(``resps``, and ``filtered_resps`` after the task's filter), the filter's name, and one value per
per-sample metric. :func:`load_records` reads such files into the records a PKPS fits on, one row
per (model, task, document), by the rules below. It never touches the network.

References: Gao et al., *The Language Model Evaluation Harness* (EleutherAI;
``lm_eval/loggers/evaluation_tracker.py`` writes these files, ``lm_eval/api/task.py`` computes the
per-sample metrics); the book's chapters on perspective spaces (Part V).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "load_records",
    "METRIC_PREFERENCE",
    "FILTER_PREFERENCE",
    "MODEL_KEYS",
    "RUNS",
    "QUERY_TEXTS",
    "RESPONSE_TEXTS",
    "COLUMNS",
]

#: Per-sample metrics in order of preference for a task's score (the order ``blindspot``'s reader
#: of harness results uses for a task's primary metric): the first one a task's samples carry as a
#: number is its score. dkps may not import blindspot, so tests (``test_both_lm_eval_readers_*``) hold the
#: two readers together.
METRIC_PREFERENCE = (
    "acc_norm",
    "acc",
    "exact_match",
    "em",
    "f1",
    "mcc",
    "pass@1",
    "pass_at_1",
    "bleu",
    "rougeL",
    "word_perplexity",
    "perplexity",
)
#: Filters in order of preference; then by name.
FILTER_PREFERENCE = ("none", "strict-match")
#: The keys of ``config.model_args`` that name the model, in the harness's own order.
MODEL_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")
#: ``runs=``: the newest run of each (model, task), or every run as a model of its own.
RUNS = ("newest", "separate")
#: ``query=``: the prompt the model saw, or the document.
QUERY_TEXTS = ("prompt", "doc")
#: ``response=`` for generation tasks: the model's own text, or what the task's filter extracted.
RESPONSE_TEXTS = ("raw", "filtered")
#: The columns :func:`load_records` returns.
COLUMNS = [
    "model_id",
    "task_id",
    "query_id",
    "query",
    "response",
    "score",
    "suite",
    "metric",
    "filter",
    "higher_is_better",
    "target",
    "run",
    "source_path",
]
#: Output types whose samples hold a response of the model.
_READ_TYPES = ("generate_until", "multiple_choice")
#: Per-sample values that are a pair the corpus-level aggregation needs, with the per-sample score
#: that averages to the aggregate (the Brier score is a mean of per-sample squared errors).
_DECOMPOSABLE = ("brier_score",)
_SAMPLES_NAME = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[0-9][0-9.\-]*)\.jsonl$")
#: A samples file named without the run's timestamp (renamed by hand, or an older harness): read, with a warning.
_SAMPLES_UNSTAMPED = re.compile(r"^samples_(?P<task>.+)\.jsonl$")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_NEEDED = ("doc_id", "arguments", "resps", "filtered_resps")


@dataclass
class _SamplesFile:
    """One ``samples_<task>_<stamp>.jsonl`` and what its run's results file says about it."""

    path: Path
    task: str
    stamp: str
    results: dict | None = None
    rows: list[dict] = field(default_factory=list)


# ------------------------------------------------------------------------------------ files
def _samples_files(paths: Any) -> list[_SamplesFile]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if not isinstance(paths, Sequence) or not paths:
        raise ValueError("paths must be a folder, a samples_<task>_<timestamp>.jsonl file, or a non-empty list of them")
    found: list[Path] = []
    n_results = 0
    for p in paths:
        p = Path(p)
        if p.is_dir():
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames.sort()
                found += [Path(dirpath) / n for n in sorted(filenames) if _SAMPLES_UNSTAMPED.match(n)]
                n_results += sum(1 for n in filenames if n.startswith("results") and n.endswith(".json"))
        elif p.is_file():
            if not _SAMPLES_UNSTAMPED.match(p.name):
                raise ValueError(
                    f"{p} is not an lm-evaluation-harness samples file (samples_<task>_<timestamp>.jsonl, as "
                    "lm-eval --log_samples names them); give the files or the folder lm-eval wrote"
                )
            found.append(p)
        else:
            raise ValueError(f"{p} is neither a file nor a directory")
    if not found:
        where = ", ".join(str(p) for p in paths)
        if n_results:
            raise ValueError(
                f"{where} holds {n_results} lm-eval results file(s) but no samples_<task>_<timestamp>.jsonl: the runs "
                "were made without --log_samples; rerun lm-eval with --log_samples (the results files alone are "
                "scores, which blindspot analyze reads)"
            )
        raise ValueError(
            f"no lm-evaluation-harness samples files (samples_<task>_<timestamp>.jsonl) under {where}; "
            "run lm-eval with --output_path and --log_samples"
        )
    out = []
    unstamped = []
    for f in dict.fromkeys(found):  # the same file named twice is read once
        m = _SAMPLES_NAME.match(f.name)
        if m is None:
            unstamped.append(f)
            out.append(_SamplesFile(path=f, task=_SAMPLES_UNSTAMPED.match(f.name)["task"], stamp=""))
        else:
            out.append(_SamplesFile(path=f, task=m["task"], stamp=m["stamp"]))
    if unstamped:
        warnings.warn(
            f"lm_eval_samples: {len(unstamped)} samples file(s) named without the run's timestamp "
            f"({', '.join(f.name for f in unstamped[:3])}{', ...' if len(unstamped) > 3 else ''}): read, but no "
            "results file can be matched to them (the model is their folder's name, and a dated run of the same "
            "model and task is taken as newer)",
            UserWarning,
            stacklevel=3,
        )
    return out


def _results_of(sf: _SamplesFile, cache: dict) -> dict | None:
    """The run's ``results_<stamp>.json`` beside the samples file, when there is one."""
    key = (sf.path.parent, sf.stamp)
    if key not in cache:
        res = sf.path.parent / f"results_{sf.stamp}.json"
        data = None
        if res.is_file():
            try:
                with open(res, encoding="utf-8") as fh:
                    data = json.load(fh)
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise ValueError(f"{res}: not readable as JSON ({exc}); repair or remove the file") from None
            data = data if isinstance(data, dict) else None
        cache[key] = data
    return cache[key]


def _model_of(sf: _SamplesFile) -> str:
    """``config.model_args`` (the harness's keys, in its order), else ``model_name``, else the folder."""
    run = sf.results or {}
    config = run.get("config") if isinstance(run.get("config"), dict) else {}
    args = config.get("model_args")
    if isinstance(args, dict):
        for key in MODEL_KEYS:
            if args.get(key):
                return str(args[key])
    elif isinstance(args, str):
        parts = dict(p.split("=", 1) for p in args.split(",") if "=" in p)
        for key in MODEL_KEYS:
            if parts.get(key, "").strip():
                return parts[key].strip()
    name = run.get("model_name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    # the folder lm-eval wrote the run into: the model's name with '/' written '__' (its sanitising)
    return sf.path.parent.name.replace("__", "/")


def model_key(name: str) -> str:
    """A model's identity: without surrounding whitespace and trailing slashes, in lower case (the rule of
    ``blindspot.data.identity.model_key``, which dkps may not import; a test holds the two together)."""
    return str(name).strip().rstrip("/").strip().casefold()


def _read_lines(path: Path) -> list[dict]:
    try:
        return _parse_lines(path)
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{path}: not UTF-8 text (byte {exc.object[exc.start : exc.start + 1]!r} at offset {exc.start}); lm-eval "
            "writes UTF-8: repair or remove the file"
        ) from None


def _parse_lines(path: Path) -> list[dict]:
    out = []
    with open(path, encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}, line {n}: not valid JSON ({exc.msg}); repair or remove the file") from None
            missing = [k for k in _NEEDED if not isinstance(rec, dict) or k not in rec]
            if missing:
                raise ValueError(
                    f"{path}, line {n}: not an lm-evaluation-harness sample (no {', '.join(map(repr, missing))}); "
                    "give the samples files lm-eval --log_samples writes"
                )
            rec["_line"] = n
            out.append(rec)
    return out


# ------------------------------------------------------------------------------------ one task
def _config(sf: _SamplesFile) -> dict:
    configs = (sf.results or {}).get("configs")
    cfg = configs.get(sf.task) if isinstance(configs, dict) else None
    return cfg if isinstance(cfg, dict) else {}


def _output_type(sf: _SamplesFile) -> str:
    """The task's ``output_type`` from its run's results file, else read off the first sample's shape."""
    kind = _config(sf).get("output_type")
    if isinstance(kind, str) and kind:
        return kind
    args = _arguments(sf.rows[0])
    second = args[0][1] if args and len(args[0]) > 1 else None
    if isinstance(second, dict):
        return "generate_until"
    if second is None:
        return "loglikelihood_rolling"
    return "multiple_choice" if len(args) > 1 else "loglikelihood"


def _pick(kind: str, task: str, choice: Any, available: list[str], preference: Sequence[str]) -> str:
    """The task's ``kind`` ('metric' or 'filter'): the caller's choice (a name, or a mapping from task
    to name), else the first of ``preference`` available, else the first by name."""
    wanted = choice.get(task) if isinstance(choice, Mapping) else choice
    if wanted is not None:
        if wanted not in available:
            raise ValueError(
                f"task {task!r} has no {kind} {wanted!r} in its samples (it has {', '.join(map(repr, available))}); "
                f"name one of those ({kind}={{{task!r}: ...}} sets it for this task alone)"
            )
        return wanted
    return next((p for p in preference if p in available), sorted(available)[0])


def _per_sample(value: Any, metric: str) -> float | None:
    """A sample's metric value as a score, or None when it is not one (a corpus-level metric's pair)."""
    if isinstance(value, (bool, int, float)) and not isinstance(value, complex):
        v = float(value)
        return v if math.isfinite(v) else None
    if metric in _DECOMPOSABLE and isinstance(value, list) and len(value) == 2:
        # brier_score: [gold, probabilities] -> sum_j (p_j - [j == gold])^2, whose mean is the
        # harness's aggregate (lm_eval.api.metrics.brier_score); lm-eval writes the
        # probabilities as numpy's text "[p0 p1 ...]"
        gold, probs = value
        p = probs if isinstance(probs, list) else [float(x) for x in _NUMBER.findall(str(probs))]
        try:
            p = np.asarray(p, dtype=float)
            g = int(gold)
        except (TypeError, ValueError):
            return None
        if p.ndim != 1 or not 0 <= g < p.size:
            return None
        onehot = np.zeros(p.size)
        onehot[g] = 1.0
        return float(np.sum((p - onehot) ** 2))
    return None


def _arguments(rec: dict) -> list:
    args = rec["arguments"]
    if isinstance(args, dict):
        keys = sorted(args, key=lambda k: int(re.sub(r"\D", "", k) or 0))
        return [
            [a[k] for k in sorted(a, key=lambda k: int(re.sub(r"\D", "", k) or 0))] for a in (args[k] for k in keys)
        ]
    return [list(a) for a in args]


def _choice_response(rec: dict, metric: str, delimiter: str, where: str) -> str:
    """The continuation the metric picks: argmax of the log-likelihoods, per character for
    ``acc_norm`` and per byte for ``acc_bytes`` (as ``lm_eval.api.task`` picks)."""
    conts = [a[1] if len(a) > 1 else "" for a in _arguments(rec)]
    try:
        lls = np.array([float(r[0]) for r in rec["filtered_resps"]])
    except (TypeError, ValueError, IndexError):
        raise ValueError(
            f"{where}: filtered_resps are not (log-likelihood, is_greedy) pairs, as a multiple_choice task writes them"
        ) from None
    if len(lls) != len(conts):
        raise ValueError(
            f"{where}: {len(lls)} log-likelihoods for {len(conts)} choices (acc_mutual_info runs are not read); "
            "give samples of a plain multiple_choice task"
        )
    choices = [c[len(delimiter) :] if delimiter and c.startswith(delimiter) else c for c in conts]
    if metric == "acc_norm":
        lls = lls / np.array([max(len(c), 1) for c in choices], dtype=float)
    elif metric == "acc_bytes":
        lls = lls / np.array([max(len(c.encode("utf-8")), 1) for c in choices], dtype=float)
    return choices[int(np.argmax(lls))]


def _generated_response(rec: dict, response: str, where: str) -> str:
    if response == "filtered":
        out = rec["filtered_resps"]
        out = out[0] if isinstance(out, list) and out else out
    else:
        out = rec["resps"]
        while isinstance(out, list) and out:
            out = out[0]  # resps: per request, the list of its generations (repeats)
    if not isinstance(out, str):
        raise ValueError(f"{where}: the response is {type(out).__name__}, not text, as a generate_until task writes it")
    return out


def _query_text(rec: dict, query: str) -> str:
    if query == "doc":
        return json.dumps(rec.get("doc"), sort_keys=True, ensure_ascii=False, default=str)
    args = _arguments(rec)
    prompt = args[0][0] if args and args[0] else ""
    return prompt if isinstance(prompt, str) else json.dumps(prompt, sort_keys=True, ensure_ascii=False, default=str)


def _one_per_document(sf: _SamplesFile, rows: list[dict], chosen: str) -> list[tuple[dict, float | None]]:
    """Each document's line and its score, once: a repeated line must be a replicate of the same answer (a
    document repeated with another score is one line naming both lines: the file mixes runs)."""
    seen: dict[str, tuple[int, float | None]] = {}
    out = []
    for r in rows:
        doc_id = str(r["doc_id"])
        score = _per_sample(r.get(chosen), chosen)
        if doc_id in seen:
            line, before = seen[doc_id]
            if before != score:
                raise ValueError(
                    f"{sf.path}, line {r['_line']}: document {doc_id} is also on line {line} with another {chosen!r} "
                    f"({before!r}, here {r.get(chosen)!r}); the file mixes runs: keep one run's samples in it"
                )
            continue
        seen[doc_id] = (r["_line"], score)
        out.append((r, score))
    return out


def _task_rows(sf: _SamplesFile, model: str, metric: Any, filter: Any, query: str, response: str) -> list[dict]:
    """The rows of one samples file: one per document, at the chosen filter and metric."""
    kind = _output_type(sf)
    if kind not in _READ_TYPES:
        what = (
            "a log-likelihood of the reference continuation"
            if kind == "loglikelihood"
            else "the log-likelihood of the document (a perplexity)"
        )
        raise ValueError(
            f"task {sf.task!r} ({sf.path.name}) is a {kind} task: its samples hold {what}, not a response of the model; "
            f"leave it out with tasks=[...] (dkps reads {' and '.join(_READ_TYPES)} tasks)"
        )
    filters = sorted({str(r.get("filter", "none")) for r in sf.rows})
    chosen_filter = _pick("filter", sf.task, filter, filters, FILTER_PREFERENCE)
    rows = [r for r in sf.rows if str(r.get("filter", "none")) == chosen_filter]
    names = list(dict.fromkeys(m for r in rows for m in (r.get("metrics") or []) if m in r))
    # a metric is a per-sample score when its first value that is not null is one (a null first sample must not
    # switch the task's metric for this model)
    first = {m: next((r.get(m) for r in rows if r.get(m) is not None), None) for m in names}
    scored = [m for m in names if _per_sample(first[m], m) is not None]
    wanted = metric.get(sf.task) if isinstance(metric, Mapping) else metric
    if wanted is not None and wanted in names and wanted not in scored:
        raise ValueError(
            f"task {sf.task!r}: metric {wanted!r} is corpus-level (a sample holds {first[wanted]!r}, not a "
            f"score); name a per-sample metric ({', '.join(map(repr, scored)) or 'none here'})"
        )
    if not scored:
        raise ValueError(
            f"task {sf.task!r} ({sf.path.name}): no per-sample score among its metrics "
            f"({', '.join(map(repr, names)) or 'none'}); leave it out with tasks=[...]"
        )
    chosen = _pick("metric", sf.task, metric, scored, METRIC_PREFERENCE)
    hib = (sf.results or {}).get("higher_is_better", {})
    hib = hib.get(sf.task, {}).get(chosen) if isinstance(hib, dict) and isinstance(hib.get(sf.task), dict) else None
    delimiter = _config(sf).get("target_delimiter", " ")
    delimiter = delimiter if isinstance(delimiter, str) else " "
    out = []
    nulls: list[int] = []
    for r, score in _one_per_document(sf, rows, chosen):
        where = f"{sf.path}, line {r['_line']}"
        doc_id = str(r["doc_id"])
        if score is None and r.get(chosen) is None:
            nulls.append(r["_line"])
            continue
        if score is None:
            raise ValueError(f"{where}: metric {chosen!r} is {r.get(chosen)!r}, not a per-sample score")
        if kind == "multiple_choice":
            text = _choice_response(r, chosen, delimiter, where)
        else:
            text = _generated_response(r, response, where)
        out.append(
            {
                "model_id": model,
                "task_id": sf.task,
                "query_id": doc_id,
                "query": _query_text(r, query),
                "response": text,
                "score": score,
                "metric": chosen,
                "filter": chosen_filter,
                "higher_is_better": hib if isinstance(hib, bool) else None,
                "target": str(r.get("target", "")),
                "run": sf.stamp,
                "source_path": str(sf.path),
                "_doc_hash": r.get("doc_hash"),
            }
        )
    if nulls:
        warnings.warn(
            f"lm_eval_samples: {sf.path}: {len(nulls)} sample(s) have no {chosen!r} (null; line(s) "
            f"{', '.join(map(str, nulls[:5]))}{', ...' if len(nulls) > 5 else ''}): left out, the task keeps its metric",
            UserWarning,
            stacklevel=3,
        )
    return out


def _suites(files: list[_SamplesFile]) -> dict[str, str]:
    """Each task's suite: the outermost group that holds it in any run's ``group_subtasks``, else itself."""
    parent: dict[str, str] = {}
    for sf in files:
        gs = (sf.results or {}).get("group_subtasks")
        if isinstance(gs, dict):
            for group, subs in gs.items():
                for s in subs if isinstance(subs, list) else []:
                    if s != group:
                        parent.setdefault(str(s), str(group))
    out = {}
    for task in {sf.task for sf in files}:
        top, hops = task, 0
        while top in parent and hops < 64:
            top, hops = parent[top], hops + 1
        out[task] = top
    return out


def _select_tasks(files: list[_SamplesFile], tasks: Sequence[str] | None) -> list[_SamplesFile]:
    if tasks is None:
        return files
    if isinstance(tasks, str):
        tasks = [tasks]
    subs: dict[str, set] = {}
    for sf in files:
        gs = (sf.results or {}).get("group_subtasks")
        for group, members in gs.items() if isinstance(gs, dict) else []:
            subs.setdefault(str(group), set()).update(map(str, members if isinstance(members, list) else []))
    wanted: set = set()
    have = {sf.task for sf in files}
    for t in tasks:
        stack, expanded = [str(t)], set()
        while stack:  # a group stands for its subtasks (nested groups included)
            name = stack.pop()
            if name in expanded:
                continue
            expanded.add(name)
            stack.extend(subs.get(name, ()))
        hit = expanded & have
        if not hit:
            raise ValueError(
                f"tasks: {t!r} has no samples here (tasks with samples: {', '.join(sorted(have))}); name one of those "
                "or a group of them"
            )
        wanted |= hit
    return [sf for sf in files if sf.task in wanted]


def _check_consistent(df: pd.DataFrame, column: str, what: str, remedy: str) -> None:
    """One (task, document) must carry one ``column`` value across the models read."""
    per = df.groupby(["task_id", "query_id"], sort=False)[column].nunique(dropna=False)
    bad = per[per > 1]
    if len(bad):
        task, doc = bad.index[0]
        rows = df[(df.task_id == task) & (df.query_id == doc)].drop_duplicates(column)
        models = ", ".join(repr(m) for m in rows.model_id.head(2))
        raise ValueError(
            f"task {task!r}, doc_id {doc}: {what} differs between runs ({models}; {len(bad)} document(s) in all); {remedy}"
        )


# ------------------------------------------------------------------------------------ API
def load_records(
    paths: str | os.PathLike | Sequence[str | os.PathLike],
    *,
    tasks: str | Sequence[str] | None = None,
    metric: str | Mapping[str, str] | None = None,
    filter: str | Mapping[str, str] | None = None,
    runs: str = "newest",
    query: str = "prompt",
    response: str = "raw",
    max_queries_per_cell: int | None = None,
) -> pd.DataFrame:
    """Read lm-evaluation-harness ``--log_samples`` output into dkps records.

    One row per (model, task, document) of the ``samples_<task>_<timestamp>.jsonl`` files that
    ``lm_eval --output_path OUT --log_samples`` writes (each beside its run's
    ``results_<timestamp>.json``), ready for :class:`dkps.PKPS`:

    - **model**: the run's ``config.model_args`` (``peft``, ``delta``, ``pretrained``, ``model``,
      ``path``, ``engine``: the harness's own order), else its ``model_name``, else the folder the
      harness wrote the run into (``OUT/<model_name_sanitized>/``);
    - **task** and **query id**: the task named in the file name and the document's ``doc_id``;
      **suite**: the outermost group holding the task in the run's ``group_subtasks`` (a group has
      no samples of its own; its subtasks have), else the task;
    - **query**: the prompt of the document's first request (``arguments.gen_args_0.arg_0``; with
      few-shot examples or a chat template, as the model saw it), or ``query='doc'``: the document
      itself as JSON (the same whatever the prompt);
    - **score**: one per-sample metric per task, the first of :data:`METRIC_PREFERENCE` that its
      samples carry as a number (``acc_norm`` before ``acc``, then ``exact_match``...), at the first
      filter of :data:`FILTER_PREFERENCE` that it has (``none``, then ``strict-match``, then by name);
      ``metric=`` and ``filter=`` choose (a name, or a mapping from task to name). ``brier_score``,
      which lm-eval logs as the pair (gold, probabilities), is read as the sample's
      :math:`\\sum_j (p_j - [j = \\text{gold}])^2`, whose mean is the harness's aggregate. Whether the
      metric is better high is in ``higher_is_better`` (the run's own flag; the score is not flipped);
    - **response**: for a ``generate_until`` task, the model's generated text (``resps``; or, with
      ``response='filtered'``, what the task's filter extracted from it, ``filtered_resps``); for a
      ``multiple_choice`` task, the text of the choice the metric picks: the continuation with the
      largest log-likelihood (per character for ``acc_norm``, per byte for ``acc_bytes``, as
      lm-eval picks), without the task's ``target_delimiter``. So a choice task's score is 1 exactly
      when its response is the target's choice. ``loglikelihood`` tasks (the likelihood of the
      reference continuation) and ``loglikelihood_rolling`` ones (perplexities) hold no response of
      the model and are refused by name;
    - **repeated runs** of a model (the same model id from several ``results_<timestamp>``, in one
      folder or several): ``runs='newest'`` keeps, for each (model, task), the run with the latest
      timestamp, with a ``UserWarning`` counting the runs left out; ``runs='separate'`` keeps every
      run as a model of its own, ``<model>@<timestamp>``.

    Parameters
    ----------
    paths : str, path-like, or sequence of them
        The folder lm-eval wrote (searched recursively for ``samples_<task>_<timestamp>.jsonl``),
        a samples file, or a list of either.
    tasks : str or sequence of str, optional
        Read only these tasks; a group's name stands for its subtasks. Default: every task found.
    metric, filter : str or mapping of task to str, optional
        The per-sample metric that is the score, and the filter whose rows are read (defaults above).
    runs : {'newest', 'separate'}
        How repeated runs of a model are resolved.
    query : {'prompt', 'doc'}
        The query text: the prompt the model saw, or the document as JSON.
    response : {'raw', 'filtered'}
        For generation tasks: the generated text, or the filter's extract of it.
    max_queries_per_cell : int, optional
        Keep, per (model, task), the documents with the smallest ``sha1(task + "\\0" + doc_id)``:
        one subset shared by every model (as :func:`dkps.eee.load_records`). Default: all.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`: ``model_id, task_id, query_id, query, response, score, suite,
        metric, filter, higher_is_better, target, run, source_path``; ``run`` is the run's
        timestamp as in its file names.

    Raises
    ------
    ValueError
        A path that does not exist; no samples files (with a note when the folder holds results
        files only: the runs lacked ``--log_samples``); a line that is not JSON or not a harness
        sample; a ``loglikelihood`` or ``loglikelihood_rolling`` task; a metric or filter the task
        does not log, or a corpus-level one (``f1``, ``mcc``, ``bleu`` per sample are pairs); a
        task in ``tasks`` with no samples; one document with different prompts across the runs
        read (few-shot or chat templates differ: use ``query='doc'``) or different documents under
        one ``doc_id`` (different data); a bad option value.

    See Also
    --------
    dkps.eee.load_records : The same records from Every Eval Ever ``*_samples.jsonl`` runs.
    dkps.PKPS : The estimator these records are made for.

    References
    ----------
    Gao et al., *The Language Model Evaluation Harness*, EleutherAI (``lm_eval`` 0.4: the
    ``--log_samples`` files of ``EvaluationTracker.save_results_samples``, the metrics of
    ``ConfigurableTask.process_results``). The records feed the perspective-space estimators of the
    book's Part V, as :func:`dkps.eee.load_records`' records do.

    Examples
    --------
    One ``generate_until`` sample as lm-eval writes it, in a folder without its results file (so
    the folder names the model):

    >>> import json, tempfile
    >>> from pathlib import Path
    >>> from dkps import lm_eval_samples
    >>> run = Path(tempfile.mkdtemp()) / "org__model"
    >>> run.mkdir()
    >>> line = {"doc_id": 0, "doc": {"q": "2+2?"}, "target": "4", "filter": "none",
    ...         "arguments": {"gen_args_0": {"arg_0": "Q: 2+2?\\nA:", "arg_1": {"until": ["Q:"]}}},
    ...         "resps": [[" It is 4."]], "filtered_resps": [" It is 4."],
    ...         "metrics": ["exact_match"], "exact_match": 0.0}
    >>> _ = (run / "samples_add_2026-01-01T00-00-00.000001.jsonl").write_text(json.dumps(line) + "\\n")
    >>> recs = lm_eval_samples.load_records(run.parent)
    >>> recs[["model_id", "task_id", "query_id", "response", "score", "metric"]].to_dict("records")
    [{'model_id': 'org/model', 'task_id': 'add', 'query_id': '0', 'response': ' It is 4.', 'score': 0.0, 'metric': 'exact_match'}]

    On a folder of runs, ``PKPS(embedding_kwargs=dict(provider="hash")).fit(recs)`` fits a
    perspective space on them (``tests/dkps/test_dkps_lm_eval_samples.py``).
    """
    for name, value, allowed in (
        ("runs", runs, RUNS),
        ("query", query, QUERY_TEXTS),
        ("response", response, RESPONSE_TEXTS),
    ):
        if value not in allowed:
            raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    if max_queries_per_cell is not None and (
        isinstance(max_queries_per_cell, bool) or not isinstance(max_queries_per_cell, int) or max_queries_per_cell < 1
    ):
        raise ValueError(f"max_queries_per_cell must be None or an int >= 1, got {max_queries_per_cell!r}")
    for name, value in (("metric", metric), ("filter", filter)):
        if value is not None and not isinstance(value, (str, Mapping)):
            raise ValueError(f"{name} must be a name or a mapping from task to name, got {type(value).__name__}")
    files = _samples_files(paths)
    cache: dict = {}
    for sf in files:
        sf.results = _results_of(sf, cache)
    files = _select_tasks(files, tasks)
    models = {id(sf): _model_of(sf) for sf in files}
    spelling: dict[str, str] = {}
    for sf in files:  # one model however its runs spell it (case, whitespace, a trailing slash): the first spelling
        spelling.setdefault(model_key(models[id(sf)]), models[id(sf)].strip().rstrip("/").strip())
    merged = sorted({m for m in models.values() if spelling[model_key(m)] != m})
    if merged:
        warnings.warn(
            f"lm_eval_samples: model names that differ only in case, whitespace or a trailing slash are one model: "
            f"{', '.join(f'{m!r} -> {spelling[model_key(m)]!r}' for m in merged[:4])}",
            UserWarning,
            stacklevel=2,
        )
    models = {k: spelling[model_key(m)] for k, m in models.items()}
    if runs == "newest":  # the newest run of each (model, task); ties by path
        newest: dict[tuple, _SamplesFile] = {}
        for sf in files:
            key = (models[id(sf)], sf.task)
            if key not in newest or (sf.stamp, str(sf.path)) > (newest[key].stamp, str(newest[key].path)):
                newest[key] = sf
        kept = [sf for sf in files if newest[(models[id(sf)], sf.task)] is sf]
        dropped = [sf for sf in files if sf not in kept]
        if dropped:
            n_runs = len({(sf.path.parent, sf.stamp) for sf in dropped})
            n_models = len({models[id(sf)] for sf in dropped})
            warnings.warn(
                f"lm_eval_samples: {len(dropped)} samples file(s) of {n_runs} older run(s) of {n_models} model(s) "
                "left out (each (model, task) keeps its newest run; runs='separate' keeps every run as a model "
                "of its own)",
                UserWarning,
                stacklevel=2,
            )
        files = kept
    rows: list[dict] = []
    for sf in files:
        sf.rows = _read_lines(sf.path)
        if not sf.rows:
            raise ValueError(f"{sf.path} holds no samples; remove it or rerun its task with --log_samples")
        model = models[id(sf)] if runs == "newest" else f"{models[id(sf)]}@{sf.stamp}"
        rows += _task_rows(sf, model, metric, filter, query, response)
        sf.rows = []
    df = pd.DataFrame(rows)
    df["suite"] = df.task_id.map(_suites(files))
    _check_consistent(
        df.dropna(subset=["_doc_hash"]),
        "_doc_hash",
        "the document (doc_hash)",
        "the runs used different data; read them apart (tasks=, or one folder at a time)",
    )
    _check_consistent(
        df, "query", "the prompt", "the runs used different few-shot examples or chat templates; use query='doc'"
    )
    df = df.drop(columns="_doc_hash")
    if max_queries_per_cell is not None:
        h = [hashlib.sha1(f"{t}\0{q}".encode()).hexdigest() for t, q in zip(df.task_id, df.query_id)]
        rank = df.assign(_h=h).groupby(["model_id", "task_id"])["_h"].rank(method="first")
        df = df[rank.to_numpy() <= max_queries_per_cell]
    return df[COLUMNS].reset_index(drop=True)
