"""lm-evaluation-harness output: its ``results_<timestamp>.json`` files read into one model x task table.

The harness (EleutherAI's ``lm_eval``) writes one ``results_<date>.json`` per run into
``<output_path>/<model>/``: ``results`` maps each task (and group) to its metrics, keyed ``"metric,filter"``
(``"acc,none"``, ``"acc_stderr,none"``); ``group_subtasks`` maps each group to its subtasks;
``higher_is_better`` gives each task's metric directions; ``config.model_args`` names the model. :func:`read`
takes a folder (searched recursively) or a list of such files:

* **the model** of a file: ``config.model_args`` (a string ``pretrained=org/name,dtype=...`` or a dict), by
  the harness's own order of keys (``peft``, ``delta``, ``pretrained``, ``model``, ``path``, ``engine``), else
  ``model_name``, else the folder the harness wrote the file into (``org__name`` read as ``org/name``, undoing the
  harness's sanitising); names that differ only in case, whitespace or a trailing slash are one model
  (:func:`blindspot.data.identity.model_key`);
* **the level**: a group and its subtasks are never both counted. ``level='groups'`` (the default) takes each
  top-level entry the run asked for: a group's own score (its subtasks left out) or a task that is in no
  group; a group with no score of its own is replaced by its subtasks, with a note. ``level='tasks'`` takes
  every task and leaves the groups out. The note says which;
* **the primary metric** of a task, one rule for every task: the first of :data:`METRIC_PREFERENCE` that the
  task reports (``acc_norm`` before ``acc``: the length-normalised accuracy where there is one), else its first
  metric by name; among filters, ``none`` first, then ``strict-match``, then by name. Its direction is the
  task's ``higher_is_better``; a metric whose lower values are better (a perplexity) is flipped, with a note;
* **stderr** (``"acc_stderr,none"``) is kept as the metric's uncertainty (``<task> stderr``), never a
  benchmark; ``"N/A"`` is no value;
* **several runs** of one model: each task's newest run is kept (by the run's ``date``, else the file name's
  timestamp), with a note saying how many were left out.

References: Gao et al., *The Language Model Evaluation Harness* (EleutherAI, ``lm_eval/evaluator.py``,
``lm_eval/loggers/evaluation_tracker.py``); the book's chapter "Your leaderboard".
"""

from __future__ import annotations

import ast
import json
import math
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from blindspot.data.columns import name_list
from blindspot.data.format_options import LEVEL
from blindspot.data.identity import json_bool, json_number, merge_ids, timestamp
from blindspot.data.raw_frame import RawFrame

__all__ = ["detect", "read", "is_results", "model_of", "primary_metric", "METRIC_PREFERENCE", "LEVELS"]

#: Metric names in order of preference for a task's primary metric. :mod:`dkps.lm_eval_samples` picks a task's
#: per-sample score by the same order (and the same filters and model keys); this floor may not import it, so
#: ``tests/dkps/test_dkps_lm_eval_samples.py`` holds the two readers together.
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
#: Filters in order of preference.
FILTER_PREFERENCE = ("none", "strict-match")
#: Keys of a task's entry that are not metrics.
_NOT_METRICS = {"alias", "name", "sample_len", "samples", " ", ""}
#: ``level=``: each group as one benchmark, or every task.
LEVELS = ("groups", "tasks")
#: The keys of ``model_args`` that name the model, in the harness's own order.
MODEL_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")
_RESULTS_NAME = re.compile(r"^results.*\.json$", re.IGNORECASE)
PROGRESS_FILES = 200


def is_results(obj: object) -> bool:
    """Whether parsed JSON is a harness results file: a ``results`` object beside the run's bookkeeping."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("results"), dict)
        and any(k in obj for k in ("config", "versions", "n-shot", "configs", "group_subtasks", "higher_is_better"))
    )


def _result_files(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        out += [Path(dirpath) / n for n in sorted(filenames) if _RESULTS_NAME.match(n)]
    return [p for p in out if p.is_file()]


def _load(path: Path) -> object:
    with open(path, encoding="utf-8-sig") as fh:
        return json.load(fh)


#: :func:`detect` looks at this many ``results*.json`` files of a folder at most (a stray ``results_summary.json``
#: met first must not hide the runs behind it).
DETECT_FILES = 5


def detect(paths: Sequence[Path]) -> bool:
    """A folder one of whose first ``results*.json`` files is harness results, or ``*.json`` files the first of
    which is."""
    if paths[0].is_dir():
        if len(paths) > 1:
            return False
        looked = 0
        for dirpath, dirnames, filenames in os.walk(paths[0]):
            dirnames.sort()
            for n in sorted(filenames):
                if _RESULTS_NAME.match(n):
                    looked += 1
                    try:
                        if is_results(_load(Path(dirpath) / n)):
                            return True
                    except (OSError, ValueError):
                        pass
                    if looked >= DETECT_FILES:
                        return False
        return False
    if not all(p.suffix.lower() == ".json" for p in paths):
        return False
    try:
        return is_results(_load(paths[0]))
    except (OSError, ValueError):
        return False


def model_of(run: dict, path: Path) -> str:
    """The model a results file is about: ``config.model_args`` (the harness's keys, in its order), else
    ``model_name``, else the folder the harness wrote it into (``<output_path>/<model>/results_*.json``)."""
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
    if path.parent.name:  # the folder the harness wrote the run into: the model's name with '/' written '__'
        return path.parent.name.replace("__", "/")
    raise ValueError(f"lm-evaluation-harness results {str(path)!r} name no model (config.model_args, model_name)")


def _number(v: object) -> float:
    if isinstance(v, bool) or v is None:
        return math.nan
    try:
        x = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan  # "N/A"
    return x if math.isfinite(x) else math.nan


def _metrics(entry: dict) -> list[str]:
    """The ``"metric,filter"`` keys of a task's entry that are values (a number, or a string spelling one:
    ``"0.721"``), not standard errors."""
    out = []
    for k, v in entry.items():
        if k in _NOT_METRICS or "_stderr" in k.split(",")[0] or isinstance(v, (dict, list)):
            continue
        if json_number(v)[0] is not None:
            out.append(k)
    return out


def _written_as_text(entry: dict, metric: str) -> bool:
    return isinstance(entry.get(metric), str) and json_number(entry[metric])[0] is not None


def primary_metric(keys: Sequence[str]) -> str | None:
    """The primary ``"metric,filter"`` among ``keys``: the first metric of :data:`METRIC_PREFERENCE` reported
    (else the first by name), with the first filter of :data:`FILTER_PREFERENCE` (else the first by name)."""
    if not keys:
        return None
    split = [(k.split(",", 1)[0], k.split(",", 1)[1] if "," in k else "") for k in keys]
    names = {m for m, _ in split}
    metric = next((m for m in METRIC_PREFERENCE if m in names), sorted(names)[0])
    filters = sorted(f for m, f in split if m == metric)
    best = next((f for f in FILTER_PREFERENCE if f in filters), filters[0])
    return f"{metric},{best}" if best else metric


def _timestamp(run: dict, path: Path) -> float:
    """The run's time: its ``date`` (epoch or ISO-8601, :func:`blindspot.data.identity.timestamp`), else the file
    name's timestamp, else the file's modification time."""
    d = timestamp(run.get("date"))
    if d is not None:
        return d
    m = re.search(r"(\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(?:\.\d+)?)", path.name)
    if m:
        try:
            return pd.Timestamp(m.group(1)[:10] + "T" + m.group(1)[11:].replace("-", ":", 2)).timestamp()
        except ValueError:
            pass
    return path.stat().st_mtime


def _level_entries(run: dict, level: str) -> tuple[dict[str, dict], list[str]]:
    """The entries counted as benchmarks at ``level``, and the groups replaced by their subtasks."""
    results = dict(run.get("results") or {})
    results.update({k: v for k, v in (run.get("groups") or {}).items() if isinstance(v, dict)})
    subtasks = {k: list(v) for k, v in (run.get("group_subtasks") or {}).items() if isinstance(v, list)}
    groups = {k for k, v in subtasks.items() if v}
    if level == "tasks":
        return {k: v for k, v in results.items() if k not in groups and isinstance(v, dict)}, []
    children = {c for v in subtasks.values() for c in v}
    # the entries the run asked for: groups that are in no other group, and tasks in no group (which lm-eval
    # 0.4 lists in ``results`` only, not in ``group_subtasks``)
    top = [k for k in subtasks if k not in children] + [k for k in results if k not in children and k not in subtasks]
    out: dict[str, dict] = {}
    expanded: list[str] = []

    def take(name: str) -> None:
        entry = results.get(name)
        if isinstance(entry, dict) and _metrics(entry):
            out[name] = entry
        elif name in groups:
            expanded.append(name)
            for c in subtasks[name]:
                take(c)

    for name in top:
        take(name)
    return out, expanded


def _descendants(runs: Sequence[dict]) -> dict[str, set[str]]:
    """Each group's subtasks at any depth, over every run's ``group_subtasks`` (a run that ran a subtask alone
    does not say it belongs to a group; another run does)."""
    direct: dict[str, set[str]] = {}
    for run in runs:
        for g, subs in (run.get("group_subtasks") or {}).items():
            if isinstance(subs, list) and subs:
                direct.setdefault(g, set()).update(str(x) for x in subs)
    out: dict[str, set[str]] = {}
    for g in direct:
        seen, todo = set(), list(direct[g])
        while todo:
            c = todo.pop()
            if c not in seen and c != g:
                seen.add(c)
                todo += direct.get(c, ())
        out[g] = seen
    return out


def _never_group_and_subtask(tasks: list[str], runs: Sequence[dict], level: str) -> tuple[list[str], list[str]]:
    """The columns with no group beside its own subtask: at ``level='groups'`` a subtask of a group that is a
    column is left out; at ``'tasks'`` a group is. The note names them."""
    below = _descendants(runs)
    if level == "tasks":
        out = [t for t in tasks if t not in below]
        gone = [t for t in tasks if t in below]
        why = "groups of tasks that are columns themselves"
    else:
        under = {c for g, cs in below.items() if g in tasks for c in cs}
        out = [t for t in tasks if t not in under]
        gone = [t for t in tasks if t in under]
        why = "subtasks of a group that is counted (some runs ran them alone; their models have no group score)"
    if not gone:
        return tasks, []
    return out, [f"left out, so that a group and its subtasks are never both counted: {name_list(gone)} ({why})"]


def _chosen_metrics(
    cells: dict[tuple[str, str], tuple[float, dict, dict]], tasks: Sequence[str]
) -> tuple[dict[str, str], list[str]]:
    """One metric per task for every model: among the metrics reported by the most models, the first by
    :func:`primary_metric`. A model reporting only other metrics for the task (a minority) has a missing cell
    there, said in the notes; it never switches the metric of the others."""
    chosen: dict[str, str] = {}
    notes: list[str] = []
    for t in tasks:
        per_model = {m: set(_metrics(e)) for (m, tt), (_, e, _) in cells.items() if tt == t}
        counts: dict[str, int] = {}
        for ks in per_model.values():
            for k in ks:
                counts[k] = counts.get(k, 0) + 1
        if not counts:
            continue
        top = max(counts.values())
        metric = primary_metric(sorted(k for k, c in counts.items() if c == top))
        chosen[t] = metric
        lacking = sorted(m for m, ks in per_model.items() if ks and metric not in ks)
        if lacking:
            others = sorted({k for m in lacking for k in per_model[m]})
            notes.append(
                f"task {t!r}: {len(lacking)} model(s) report only {name_list(others, limit=3)}, not {metric!r} as "
                f"the other {top} do: their cell is missing ({name_list([repr(m) for m in lacking], limit=4)})"
            )
    return chosen, notes


def _files(paths: Sequence[Path]) -> list[Path]:
    """The results files of ``paths``: each folder searched recursively, each file as given."""
    files: list[Path] = []
    for p in paths:
        files += _result_files(p) if p.is_dir() else [p]
    return files


def _load_runs(paths: Sequence[Path], progress: bool) -> tuple[list[tuple[Path, dict]], list[Path]]:
    """The harness runs among the results files of ``paths`` (each with its path), and the files that are not."""
    files = _files(paths)
    it = files
    if progress and len(files) >= PROGRESS_FILES:
        from tqdm import tqdm  # only for a long read

        it = tqdm(files, desc="reading lm-evaluation-harness results", unit="file", file=sys.stderr, leave=False)
    runs, foreign = [], []
    for p in it:
        try:
            obj = _load(p)
        except ValueError as exc:
            raise ValueError(f"lm-evaluation-harness results {str(p)!r} is not valid JSON ({exc})") from exc
        if is_results(obj):
            runs.append((p, obj))
        else:
            foreign.append(p)
    if not runs:
        raise ValueError(f"{name_list([repr(str(p)) for p in paths], limit=3)} holds no lm-evaluation-harness results")
    return runs, foreign


#: A cell of the table being built: (the run's time, the task's entry, the task's ``higher_is_better``).
_Cell = tuple[float, dict, dict]


def _newest_cells(
    runs: Sequence[tuple[Path, dict]], level: str
) -> tuple[dict[tuple[str, str], _Cell], list[str], list[str]]:
    """Each (model, task)'s newest entry at ``level``, the note on models merged by identity, and the notes on
    groups replaced by their subtasks and results run more than once."""
    cells: dict[tuple[str, str], _Cell] = {}
    replaced, expanded_all = 0, set()
    canonical, merged = merge_ids([model_of(run, p) for p, run in runs])
    for p, run in runs:
        model = canonical[model_of(run, p)]
        when = _timestamp(run, p)
        entries, expanded = _level_entries(run, level)
        expanded_all |= set(expanded)
        hib = run.get("higher_is_better") if isinstance(run.get("higher_is_better"), dict) else {}
        for task, entry in entries.items():
            key = (model, task)
            if key in cells:
                replaced += 1
                if cells[key][0] >= when:
                    continue
            cells[key] = (when, entry, hib.get(task) if isinstance(hib.get(task), dict) else {})
    identity = [merged.replace("model ids", "model names (config.model_args)")] if merged else []
    notes = []
    if expanded_all:
        notes.append(
            f"group(s) {name_list(sorted(expanded_all))} report no score of their own: their subtasks are counted instead"
        )
    if replaced:
        notes.append(f"{replaced} (model, task) result(s) were run more than once: the newest run of each was kept")
    return cells, identity, notes


def _task_columns(
    cells: dict[tuple[str, str], _Cell], chosen: dict[str, str], models: Sequence[str]
) -> tuple[RawFrame, list[str]]:
    """The frame: one column per task of its chosen metric's values, its standard errors as ``<task> stderr``; the
    lower-is-better tasks; the notes on values and flags written as strings and on tasks with no direction."""
    frame = pd.DataFrame({"model": list(models)})
    lower, unknown, uncertainty = [], [], {}
    as_text: set[str] = set()
    flag_text: set[str] = set()
    for t, metric in chosen.items():
        vals, errs, hib = [], [], None
        name, filt = (metric.split(",", 1) + [""])[:2]
        for m in models:
            cell = cells.get((m, t))
            entry = cell[1] if cell else {}
            vals.append(_number(entry.get(metric)))
            if _written_as_text(entry, metric):
                as_text.add(t)
            errs.append(_number(entry.get(f"{name}_stderr,{filt}" if filt else f"{name}_stderr")))
            if cell and name in cell[2] and hib is None:
                hib, text = json_bool(cell[2][name])
                if text:
                    flag_text.add(t)
        frame[t] = vals
        if any(math.isfinite(e) for e in errs):
            frame[f"{t} stderr"] = errs
            uncertainty[t] = f"{t} stderr"
        if hib is False:
            lower.append(t)
        elif hib is None:
            unknown.append(t)
    notes = []
    if as_text:
        notes.append(
            f'metric values written as strings ("0.721") read as the numbers they spell: {name_list(sorted(as_text))}'
        )
    if flag_text:
        notes.append(
            f'higher_is_better written as a string ("false") read as the flag it spells: {name_list(sorted(flag_text))}'
        )
    if unknown:
        notes.append(f"the results give no higher_is_better for {name_list(unknown)}: taken as higher is better")
    raw = RawFrame(frame, (), models_col="model", lower_is_better=tuple(lower), uncertainty=uncertainty)
    return raw, notes


def _level_note(runs: str, n_models: int, chosen: dict[str, str], level: str) -> list[str]:
    """The notes saying what was read: the runs, the level and each task's metric."""
    shown = name_list([f"{t} ({m})" for t, m in chosen.items()], limit=10)
    return [
        f"read as lm-evaluation-harness results: {runs}, {n_models} model(s) x {len(chosen)} "
        + (
            "benchmarks at the level of groups (a group's own score, its subtasks not counted; a task in no group as "
            "itself; --level tasks counts every task instead)"
            if level == "groups"
            else "tasks (every task; the groups' scores not counted; --level groups counts each group once instead)"
        ),
        f"each task's primary metric (the first of {', '.join(METRIC_PREFERENCE[:6])}, ... it reports; filter "
        f"'none' first): {shown}; the metrics' standard errors are kept as their uncertainty, not as benchmarks",
    ]


def _checked_level(level: str | None) -> str:
    level = level or "groups"
    if level not in LEVELS:
        raise ValueError(f"{LEVEL.said()} must be 'groups' or 'tasks', got {level!r}")
    return level


def frame_from_runs(runs: Sequence[tuple[Path, dict]], level: str | None = None, what: str | None = None) -> RawFrame:
    """One model x task frame from harness runs (each a parsed results file and its path), by the harness
    reader's rules: the level (a group and its subtasks never both), one metric per task, the newest run, one
    identity per model.

    Parameters
    ----------
    runs : sequence of (Path, dict)
        The runs, each with the path it was read from (its model's folder and time when the run does not say).
    level : {'groups', 'tasks'}, optional
        Each group as one benchmark (default) or every task.
    what : str, optional
        What the runs were read from, for the first note (default: ``"<n> results file(s)"``).

    Returns
    -------
    RawFrame
        As :func:`read` returns it.
    """
    level = _checked_level(level)
    cells, identity, run_notes = _newest_cells(runs, level)
    tasks = list(dict.fromkeys(t for _, t in cells))
    tasks, nested = _never_group_and_subtask(tasks, [run for _, run in runs], level)
    models = list(dict.fromkeys(m for m, _ in cells))
    chosen, minority = _chosen_metrics(cells, tasks)
    if not chosen:
        raise ValueError("the lm-evaluation-harness results hold no task with a metric value")
    raw, value_notes = _task_columns(cells, chosen, models)
    notes = _level_note(what or f"{len(runs)} results file(s)", len(models), chosen, level)
    notes += identity + nested + minority + run_notes + value_notes
    return replace(raw, notes=tuple(notes), format="lm-eval")


def read(paths: Sequence[Path], level: str | None = None, progress: bool = False, **_: object) -> RawFrame:
    """Read harness results files (a folder, searched recursively, or files) into one model x task frame.

    Parameters
    ----------
    paths : sequence of Path
        One folder or ``results_*.json`` files.
    level : {'groups', 'tasks'}, optional
        Each group as one benchmark (default: the entries the runs asked for) or every task.
    progress : bool
        Show a progress bar when there are many files.

    Returns
    -------
    RawFrame
        One row per model (column ``model``), one column per task at the level, its primary metric's
        value; the standard errors as ``<task> stderr``; the lower-is-better tasks; notes naming the level
        and each task's metric.

    Raises
    ------
    ValueError
        No results file, an unknown level, a file without a model, or no task with a metric.
    """
    level = _checked_level(level)
    runs, foreign = _load_runs(paths, progress)
    raw = frame_from_runs(runs, level)
    if foreign:
        note = f"skipped {len(foreign)} results*.json file(s) that are not harness results"
        raw = replace(raw, notes=(*raw.notes, note))
    return raw


#: The column names of a results file flattened by ``pandas.json_normalize`` (one row per run): a task's metric
#: ``results.<task>.<metric,filter>``; the other parts of a run this reader uses.
_FLAT_RESULT = re.compile(r"^results\.(?P<task>.+)\.(?P<key>[^.]+)$")
_FLAT_PARTS = ("group_subtasks", "groups", "higher_is_better")


def _cell_list(v: object) -> list[str] | None:
    """A ``group_subtasks`` cell as the list it was: a list or array (parquet, JSON), or its text (``"['a', 'b']"``
    as pandas writes it to CSV, ``'["a", "b"]'`` as JSON); None for an empty cell."""
    if isinstance(v, str):
        try:
            v = ast.literal_eval(v.strip()) if v.strip() else None
        except (ValueError, SyntaxError):
            return None
    if v is None or isinstance(v, float):
        return None
    try:
        return [str(x) for x in v]  # type: ignore[union-attr]
    except TypeError:
        return None


def _flat_run(row: Mapping[str, object], models_col: str | None) -> dict:
    """One row of a flattened results table as the run it was (``results``, ``group_subtasks``,
    ``higher_is_better``, ``config.model_args``, ``model_name``, ``date``)."""
    run: dict = {"results": {}, "group_subtasks": {}, "groups": {}, "higher_is_better": {}, "config": {}}
    for col, v in row.items():
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        head, _, rest = str(col).partition(".")
        if (m := _FLAT_RESULT.match(str(col))) is not None:
            run["results"].setdefault(m["task"], {})[m["key"]] = v
        elif head == "group_subtasks" and rest:
            if (subs := _cell_list(v)) is not None:
                run["group_subtasks"][rest] = subs
        elif head in ("groups", "higher_is_better") and "." in rest:
            task, key = rest.rsplit(".", 1)
            run[head].setdefault(task, {})[key] = v
        elif head == "config" and rest == "model_args":
            run["config"]["model_args"] = v
        elif col in ("model_name", "date"):
            run[col] = v
    if models_col is not None and not run["config"].get("model_args") and not run.get("model_name"):
        run["model_name"] = str(row[models_col])
    return run


def _subtasks_by_name(tasks: Sequence[str]) -> dict[str, list[str]]:
    """Groups by their tasks' names, when the table keeps no ``group_subtasks``: ``mmlu_stem`` is a subtask of
    ``mmlu`` when ``mmlu`` is a task too (the harness names a group's subtasks ``<group>_<name>``)."""
    out: dict[str, list[str]] = {}
    for g in tasks:
        subs = [t for t in tasks if t != g and t.startswith(g + "_")]
        if subs:
            out[g] = subs
    return out


def runs_from_table(frame: pd.DataFrame, path: Path, models_col: str | None = None) -> list[tuple[Path, dict]] | None:
    """The runs of a results table flattened by ``pandas.json_normalize`` (one row per run, columns
    ``results.<task>.<metric,filter>``), or None when ``frame`` is no such table.

    A table without ``group_subtasks.*`` columns is given its groups by the tasks' names
    (:func:`_subtasks_by_name`), so that a group and its subtasks are still never both counted.
    """
    flat = [c for c in frame.columns if (m := _FLAT_RESULT.match(str(c))) and "," in m["key"]]
    if len(flat) < 2:
        return None
    runs = [_flat_run(row, models_col) for row in frame.to_dict("records")]
    if not any(str(c).startswith("group_subtasks.") for c in frame.columns):
        tasks = list(dict.fromkeys(t for run in runs for t in run["results"]))
        groups = _subtasks_by_name(tasks)
        for run in runs:
            run["group_subtasks"] = {g: s for g, s in groups.items() if g in run["results"]}
    return [(path, run) for run in runs]
