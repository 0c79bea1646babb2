"""Every Eval Ever aggregate results: one JSON record per model run, read into one table per leaderboard.

Every Eval Ever (EEE) stores a leaderboard as ``<leaderboard>/<developer>/<model>/<uuid>.json``, one
record per model run (schema 0.2.x and 0.3.x): ``model_info.id`` names the model,
``evaluation_results[]`` holds one entry per evaluation with its ``evaluation_name``,
``metric_config`` (``lower_is_better``, ``min_score``, ``max_score``) and ``score_details.score``.
:func:`read` turns a folder at any level (the store's root, one leaderboard's folder) or a list of
records into one table:

* **one leaderboard per table**: a record's leaderboard is the first part of its ``evaluation_id``
  (the schema's ``<leaderboard>/<model>/<timestamp>``; in the store also its top folder). A source
  holding several is refused with the list of them, each with its models x evaluations, unless one is
  picked (``leaderboard=``, ``--leaderboard``);
* **models** by ``model_info.id`` and **columns** by ``evaluation_name`` (with the metric's id when one
  record holds a name twice);
* **repeated runs** of one model: the newest ``retrieved_timestamp`` is kept (equally new runs: the first
  file in path order), and a note says how many;
* **the leaderboard's own aggregates** (an evaluation named as a summary, ``Mean score``, ``Mean win
  rate``; one carrying the leaderboard's own name, ``Global MMLU Lite``) and its **sub-aggregates** (a
  few evaluations that, weighted, reproduce that aggregate while the others reproduce it too: the
  culturally sensitive and agnostic halves of Global MMLU Lite beside its 16 languages) are marked as
  aggregates, left out unless named;
* ``lower_is_better`` and ``min_score``/``max_score`` are handed on (the table builder flips such a
  column, with a note, and names scores outside their declared range);
* the standard error of a score (``score_details.uncertainty.standard_error``) is kept as its
  uncertainty, never as a benchmark;
* an entry named ``*.json`` that is not a regular file, and a JSON file that is not an EEE record (a
  schema, a manifest), are skipped with a note.

References: Every Eval Ever, ``evaleval/every_eval_ever`` (schema ``eval.schema.json``); the book's
chapter on the EEE adapter reads the instance-level counterpart.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from blindspot.data.columns import name_is_aggregate, name_list, name_words
from blindspot.data.format_options import LEADERBOARD
from blindspot.data.identity import json_bool, json_number, merge_ids, timestamp
from blindspot.data.raw_frame import RawFrame

__all__ = ["detect", "read", "leaderboards", "is_record", "KNOWN_SCHEMAS", "PROGRESS_FILES", "SeveralLeaderboards"]


class SeveralLeaderboards(ValueError):
    """The records hold several leaderboards and none was picked; ``names`` lists them (a survey reads each)."""

    def __init__(self, message: str, names: Sequence[str]) -> None:
        super().__init__(message)
        self.names = tuple(names)


#: Schema versions (major.minor) this reader was written against; others are read by the same fields, noted.
KNOWN_SCHEMAS = ("0.2", "0.3")
#: From this many files on, reading shows a progress bar (when asked to).
PROGRESS_FILES = 1000
#: A sub-aggregate group reproduces the leaderboard's aggregate with at least this R^2 (and so do the others).
SUB_AGGREGATE_R2 = 0.999
#: At most this many evaluations form a sub-aggregate group (and fewer than a third of the others).
SUB_AGGREGATE_SIZE = 3


def is_record(obj: object) -> bool:
    """Whether a parsed JSON value is an EEE aggregate record (``model_info`` and ``evaluation_results``)."""
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("model_info"), dict)
        and isinstance(obj.get("evaluation_results"), list)
    )


def _walk(root: Path):
    """``os.walk`` that follows symbolic links to folders (a leaderboard's folder may be a link into a store),
    each real folder once (a link back up the tree is not followed round)."""
    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(dirpath)
        if real in seen:
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames.sort()
        yield dirpath, dirnames, filenames


def _json_entries(root: Path) -> tuple[list[Path], list[Path]]:
    """Every entry named ``*.json`` under ``root`` (sorted): the regular files, and the others (folders,
    FIFOs, dangling links) that carry the name."""
    files, others = [], []
    for dirpath, dirnames, filenames in _walk(root):
        for name in sorted(dirnames):
            if name.lower().endswith(".json"):
                others.append(Path(dirpath) / name)
        for name in sorted(filenames):
            if name.lower().endswith(".json"):
                p = Path(dirpath) / name
                try:
                    regular = stat.S_ISREG(p.stat().st_mode)
                except OSError:  # a dangling symbolic link
                    regular = False
                (files if regular else others).append(p)
    return files, others


def _some_json(root: Path, most: int = 5) -> list[Path]:
    """The first ``most`` regular ``*.json`` files under ``root``, in path order (what :func:`detect` looks at)."""
    out: list[Path] = []
    for dirpath, _dirnames, filenames in _walk(root):
        for name in sorted(filenames):
            p = Path(dirpath) / name
            if name.lower().endswith(".json") and p.is_file():
                out.append(p)
                if len(out) >= most:
                    return out
    return out


def _load(path: Path) -> object:
    with open(path, encoding="utf-8-sig") as fh:
        return json.load(fh)


def detect(paths: Sequence[Path]) -> bool:
    """A folder one of whose first ``*.json`` files (in path order) is an EEE record, or ``*.json`` files one of
    the first of which is."""
    first = paths[0]
    if first.is_dir():
        if len(paths) > 1:
            return False
        candidates = _some_json(first)
    elif all(p.suffix.lower() == ".json" for p in paths):
        candidates = list(paths[:5])
    else:
        return False
    for p in candidates:
        try:
            obj = _load(p)
            if is_record(obj) or (isinstance(obj, list) and bool(obj) and all(is_record(x) for x in obj)):
                return True
        except (OSError, ValueError):
            continue
    return False


@dataclass(frozen=True)
class _Run:
    path: Path
    leaderboard: str
    model: str
    timestamp: float | None  # epoch seconds (identity.timestamp); None: missing or unreadable
    results: tuple[dict, ...]
    schema: str
    source: str


def _leaderboard_of(rec: dict, path: Path) -> str:
    """The first part of ``evaluation_id`` (``<leaderboard>/<model>/<timestamp>``), else the store folder
    three levels above the file, else ``source_metadata.source_name``."""
    eid = rec.get("evaluation_id")
    if isinstance(eid, str) and "/" in eid and eid.split("/")[0].strip():
        return eid.split("/")[0].strip()
    if len(path.parts) >= 4:
        return path.parts[-4]
    return _source_name(rec) or "leaderboard"


def _source_name(rec: dict) -> str:
    src = rec.get("source_metadata")
    return str(src.get("source_name") or "") if isinstance(src, dict) else ""


def _runs(files: list[Path], progress: bool) -> tuple[list[_Run], list[Path]]:
    """The records among ``files`` as runs, and the JSON files that are not records."""
    runs, foreign = [], []
    it = files
    if progress and len(files) >= PROGRESS_FILES:
        from tqdm import tqdm  # only for a long read

        it = tqdm(files, desc="reading Every Eval Ever records", unit="file", file=sys.stderr, leave=False)
    for p in it:
        try:
            obj = _load(p)
        except ValueError as exc:
            raise ValueError(f"Every Eval Ever record {str(p)!r} is not valid JSON ({exc}); fix or remove it") from exc
        # one record per file, or a list of them (``jq -s`` of a leaderboard's records)
        records = obj if isinstance(obj, list) and obj and all(is_record(x) for x in obj) else [obj]
        for rec in records:
            run = _run_of(rec, p)
            if run is None:
                foreign.append(p)
            else:
                runs.append(run)
    return runs, foreign


def _run_of(rec: object, p: Path) -> _Run | None:
    """One record as a run (None when it is not a record)."""
    if not is_record(rec):
        return None
    info = rec["model_info"]
    model = info.get("id") or info.get("name")
    if not isinstance(model, str) or not model.strip():
        raise ValueError(f"Every Eval Ever record {str(p)!r} has no model_info.id (nor a name); it names no model")
    results = tuple(r for r in rec["evaluation_results"] if isinstance(r, dict))
    return _Run(
        p,
        _leaderboard_of(rec, p),
        model.strip(),
        timestamp(rec.get("retrieved_timestamp")),
        results,
        str(rec.get("schema_version", "unknown")),
        _source_name(rec),
    )


def _column_names(run: _Run) -> list[str]:
    """The column of each result of a run: its ``evaluation_name``, with the metric's id when one record holds
    the name twice."""
    names = [str(r.get("evaluation_name", "")).strip() for r in run.results]
    if any(not n for n in names):
        raise ValueError(f"Every Eval Ever record {str(run.path)!r} has a result without an evaluation_name")
    if len(set(names)) == len(names):
        return names
    counts = {n: names.count(n) for n in names}
    out = []
    for n, r in zip(names, run.results):
        if counts[n] > 1:
            mc = r.get("metric_config") if isinstance(r.get("metric_config"), dict) else {}
            metric = mc.get("metric_id") or mc.get("metric_name") or r.get("evaluation_result_id")
            if not metric:
                raise ValueError(
                    f"Every Eval Ever record {str(run.path)!r} holds evaluation_name {n!r} twice with nothing to tell "
                    f"them apart (no metric_id, metric_name or evaluation_result_id)"
                )
            n = f"{n} ({metric})"
        out.append(n)
    if len(set(out)) != len(out):
        raise ValueError(f"Every Eval Ever record {str(run.path)!r} holds one evaluation twice under the same metric")
    return out


def _number(v: object) -> float | None:
    return json_number(v)[0]


def _score(r: dict) -> tuple[float, bool]:
    """A result's score (NaN when absent or not finite) and whether the record wrote it as a string."""
    sd = r.get("score_details") if isinstance(r.get("score_details"), dict) else {}
    v, text = json_number(sd.get("score"))
    return (np.nan if v is None or not math.isfinite(v) else v), text and v is not None


def _stderr(r: dict) -> float:
    sd = r.get("score_details") if isinstance(r.get("score_details"), dict) else {}
    unc = sd.get("uncertainty") if isinstance(sd.get("uncertainty"), dict) else {}
    se = unc.get("standard_error")
    v = _number(se.get("value") if isinstance(se, dict) else se)
    return np.nan if v is None or not math.isfinite(v) else v


def _outside_scale(rows: dict[str, dict[str, float]], lo: dict[str, float], hi: dict[str, float]) -> dict[str, int]:
    """Blank, in place, every score outside its column's declared [min_score, max_score]; the count per column."""
    counts: dict[str, int] = {}
    for row in rows.values():
        for c, v in row.items():
            a, b = lo.get(c, -math.inf), hi.get(c, math.inf)
            tol = 1e-9 * max(1.0, abs(a) if math.isfinite(a) else 1.0, abs(b) if math.isfinite(b) else 1.0)
            if math.isfinite(v) and (v < a - tol or v > b + tol):
                row[c] = math.nan
                counts[c] = counts.get(c, 0) + 1
    return counts


def leaderboards(runs: Sequence[_Run]) -> dict[str, tuple[int, int]]:
    """Each leaderboard's models x evaluations (distinct model ids, distinct columns), in name order."""
    out = {}
    for name in sorted({r.leaderboard for r in runs}):
        mine = [r for r in runs if r.leaderboard == name]
        cols = {c for r in mine for c in _column_names(r)}
        out[name] = (len({r.model for r in mine}), len(cols))
    return out


def _newest_runs(runs: list[_Run]) -> tuple[list[_Run], list[str]]:
    """One run per model: the newest ``retrieved_timestamp`` (any ISO-8601 or epoch time, ordered as times; a
    missing or unreadable one before every real time), equally new runs by path order; and the notes."""
    by_model: dict[str, list[_Run]] = {}
    for r in runs:
        by_model.setdefault(r.model, []).append(r)
    kept, repeated, tied, dropped, untimed = [], 0, 0, 0, 0
    for rs in by_model.values():
        if len(rs) == 1:
            kept.append(rs[0])
            continue
        repeated += 1
        dropped += len(rs) - 1
        untimed += sum(r.timestamp is None for r in rs)
        when = [-math.inf if r.timestamp is None else r.timestamp for r in rs]
        newest = max(when)
        best = sorted((r for r, w in zip(rs, when) if w == newest), key=lambda r: str(r.path))
        tied += len(best) > 1
        kept.append(best[0])
    notes = []
    if untimed:
        notes.append(
            f"{untimed} run(s) of a model run more than once have no readable retrieved_timestamp (missing, NaN or "
            f"not a time): they count as older than every dated run"
        )
    if repeated:
        notes.append(
            f"{repeated} model(s) have two or more runs: the newest run of each (by retrieved_timestamp) was kept and "
            f"{dropped} older or repeated run(s) left out"
            + (
                f"; for {tied} of them the newest runs share their timestamp (e.g. two precisions), and the first "
                f"file in path order was kept"
                if tied
                else ""
            )
        )
    return kept, notes


def _r2(target: np.ndarray, X: np.ndarray) -> tuple[float, np.ndarray]:
    """R^2 of target on the columns of X (least squares, no intercept) and the weights."""
    w, *_ = np.linalg.lstsq(X, target, rcond=None)
    resid = target - X @ w
    ss = float(((target - target.mean()) ** 2).sum())
    return (1.0 - float((resid**2).sum()) / ss if ss > 0 else 0.0), w


def _sub_aggregates(frame: pd.DataFrame, aggregate: str, candidates: list[str]) -> list[str]:
    """Small groups of columns that reproduce ``aggregate`` (non-negative weights summing to about 1, R^2 >=
    :data:`SUB_AGGREGATE_R2`) while the mean of the other candidates reproduces it too: two partitions of one
    whole, of which the smaller is the sub-aggregates."""
    X = frame[[aggregate, *candidates]].to_numpy(dtype=float)
    X = X[np.isfinite(X).all(axis=1)]
    if X.shape[0] < 5 or len(candidates) < 4:
        return []
    a, C = X[:, 0], X[:, 1:]
    if a.std() <= 0:
        return []
    for size in range(2, SUB_AGGREGATE_SIZE + 1):
        if 3 * size >= len(candidates) - size:
            break
        for group in itertools.combinations(range(len(candidates)), size):
            r2, w = _r2(a, C[:, list(group)])
            if r2 < SUB_AGGREGATE_R2 or w.min() < 0 or abs(w.sum() - 1) > 0.05:
                continue
            rest = [j for j in range(len(candidates)) if j not in group]
            m = C[:, rest].mean(axis=1)
            if m.std() > 0 and np.corrcoef(a, m)[0, 1] ** 2 >= SUB_AGGREGATE_R2:
                return [candidates[j] for j in group]
    return []


def _aggregates(frame: pd.DataFrame, columns: list[str], leaderboard: str, source_names: set[str]) -> dict[str, str]:
    """The leaderboard's own aggregates among ``columns`` and its sub-aggregates, with the reason of each."""
    own = {tuple(w for w in name_words(n) if w != "leaderboard") for n in {leaderboard, *source_names}}
    out: dict[str, str] = {}
    for c in columns:
        if name_is_aggregate(c):
            out[c] = "its name says it summarises the others: the leaderboard's own aggregate"
        elif tuple(name_words(c)) in own:
            out[c] = "it carries the leaderboard's own name: its overall score"
    for a in list(out):
        rest = [c for c in columns if c not in out]
        for c in _sub_aggregates(frame, a, rest):
            out[c] = (
                f"a sub-aggregate: with the others of its group it reproduces {a!r}, as the remaining evaluations do"
            )
    return out


def _unprefixed(names: Sequence[Sequence[str]], board: str, sources: set[str]) -> tuple[dict[str, str], list[str]]:
    """Schema 0.3 names a result ``<source>.<benchmark>`` where 0.2 wrote ``<benchmark>``: in a leaderboard whose
    records use both, each prefixed name whose benchmark is also written bare is read as that one benchmark."""
    all_names = {n for ns in names for n in ns}
    prefixes = tuple(f"{p}." for p in sorted({board, *sources}, key=len, reverse=True) if p)
    out = {}
    for n in all_names:
        for pre in prefixes:
            if n.startswith(pre) and n[len(pre) :] in all_names:
                out[n] = n[len(pre) :]
                break
    if not out:
        return {}, []
    shown = name_list([f"{a!r} = {b!r}" for a, b in sorted(out.items())], limit=4)
    return out, [
        f"{len(out)} evaluation(s) are named both as '<source>.<benchmark>' (schema 0.3) and as '<benchmark>' (0.2) in "
        f"this leaderboard's records: each is read as one benchmark ({shown})"
    ]


def _read_runs(paths: Sequence[Path], progress: bool) -> tuple[list[_Run], list[str]]:
    files: list[Path] = []
    others: list[Path] = []
    for p in paths:
        if p.is_dir():
            f, o = _json_entries(p)
            files += f
            others += o
        else:
            files.append(p)
    notes = []
    if others:
        notes.append(
            f"skipped {len(others)} entr{'y' if len(others) == 1 else 'ies'} named *.json that are not regular files: "
            f"{name_list([repr(str(p)) for p in others], limit=4)}"
        )
    runs, foreign = _runs(files, progress)
    if foreign:
        notes.append(
            f"skipped {len(foreign)} JSON file(s) that are not Every Eval Ever records (no model_info and "
            f"evaluation_results): {name_list([repr(p.name) for p in foreign], limit=4)}"
        )
    if not runs:
        where = name_list([repr(str(p)) for p in paths], limit=3)
        raise ValueError(
            f"{where} holds no Every Eval Ever record (a JSON file with model_info and evaluation_results)"
        )
    return runs, notes


def _pick_board(runs: Sequence[_Run], paths: Sequence[Path], leaderboard: str | None) -> tuple[str, str, int]:
    """The leaderboard to read (the one asked for, or the only one), the listing of all of them, and their count.

    Raises
    ------
    SeveralLeaderboards
        Several leaderboards and none asked for (the message lists them).
    ValueError
        An unknown leaderboard.
    """
    boards = leaderboards(runs)
    listing = "; ".join(f"{b} ({m} models x {k} evaluations)" for b, (m, k) in boards.items())
    if leaderboard is None and len(boards) > 1:
        raise SeveralLeaderboards(
            f"{name_list([repr(str(p)) for p in paths], limit=3)} holds {len(boards)} Every Eval Ever leaderboards: "
            f"{listing}; pick one with {LEADERBOARD.flag} NAME ({LEADERBOARD.name}='NAME' in Python), or give its "
            f"folder",
            list(boards),
        )
    if leaderboard is not None and leaderboard not in boards:
        raise ValueError(f"no Every Eval Ever leaderboard {leaderboard!r} here; the records hold: {listing}")
    return (leaderboard if leaderboard is not None else next(iter(boards))), listing, len(boards)


def _board_runs(runs: Sequence[_Run], board: str, notes: list[str]) -> tuple[list[_Run], list[str]]:
    """The leaderboard's runs, one model per id (:func:`blindspot.data.identity.merge_ids`) and the newest run of
    each, and the schema versions they are written in; the notes say what was merged, left out or not known."""
    mine = [r for r in runs if r.leaderboard == board]
    canonical, merged = merge_ids([r.model for r in mine])
    if merged:
        notes.append(merged.replace("model ids", "model_info.id values"))
        mine = [replace(r, model=canonical[r.model]) for r in mine]
    schemas = sorted({r.schema for r in mine})
    unknown = [s for s in schemas if ".".join(s.split(".")[:2]) not in KNOWN_SCHEMAS]
    if unknown:
        notes.append(
            f"schema version(s) {', '.join(unknown)} are not among those this reader knows (0.2.x, 0.3.x): read by the "
            f"same fields (model_info.id, evaluation_results[].evaluation_name, score_details.score)"
        )
    mine, more = _newest_runs(mine)
    notes += more
    return mine, schemas


@dataclass
class _Cells:
    """The leaderboard's cells as the records write them: each model's scores and standard errors by column, each
    column's declared directions and range, the columns in order of appearance, and those written as strings."""

    rows: dict[str, dict[str, float]] = field(default_factory=dict)
    errors: dict[str, dict[str, float]] = field(default_factory=dict)
    lower: dict[str, set[bool]] = field(default_factory=dict)
    lo: dict[str, float] = field(default_factory=dict)
    hi: dict[str, float] = field(default_factory=dict)
    order: dict[str, None] = field(default_factory=dict)
    text_scores: set[str] = field(default_factory=set)
    text_flags: set[str] = field(default_factory=set)

    def add(self, col: str, r: dict, row: dict[str, float], err: dict[str, float]) -> None:
        """One evaluation result ``r`` of a run, in column ``col``."""
        self.order.setdefault(col)
        row[col], was_text = _score(r)
        if was_text:
            self.text_scores.add(col)
        err[col] = _stderr(r)
        mc = r.get("metric_config") if isinstance(r.get("metric_config"), dict) else {}
        flag, was_text = json_bool(mc.get("lower_is_better"))
        if flag is not None:
            self.lower.setdefault(col, set()).add(flag)
            if was_text:
                self.text_flags.add(col)
        a, b = _number(mc.get("min_score")), _number(mc.get("max_score"))
        if a is not None:
            self.lo[col] = min(self.lo.get(col, math.inf), a)
        if b is not None:
            self.hi[col] = max(self.hi.get(col, -math.inf), b)


def _board_cells(mine: Sequence[_Run], board: str, notes: list[str]) -> _Cells:
    """Every result of the leaderboard's runs in its column (the columns' names without the source's prefix,
    :func:`_unprefixed`); the notes say what was written as strings and what lies outside its declared range.

    Raises
    ------
    ValueError
        A column declared lower-is-better in some records and not in others.
    """
    cells = _Cells()
    names = {id(run): _column_names(run) for run in mine}
    short, more = _unprefixed(names.values(), board, {r.source for r in mine if r.source})
    notes += more
    for run in mine:
        row: dict[str, float] = {}
        err: dict[str, float] = {}
        for col, r in zip(names[id(run)], run.results):
            cells.add(short.get(col, col), r, row, err)
        cells.rows[run.model] = row
        cells.errors[run.model] = err
    if cells.text_scores:
        notes.append(
            f'scores written as strings ("0.721") read as the numbers they spell: {name_list(sorted(cells.text_scores))}'
        )
    if cells.text_flags:
        notes.append(
            f'lower_is_better written as a string ("true", "false") read as the flag it spells: '
            f"{name_list(sorted(cells.text_flags))}"
        )
    outside = _outside_scale(cells.rows, cells.lo, cells.hi)
    if outside:
        notes.append(
            f"scores outside the range their evaluation declares (min_score, max_score) are no scores (HELM writes -1 "
            f"for a scenario a model was not run on): {name_list([f'{c!r} ({n} cell(s))' for c, n in outside.items()])}"
            f" read as missing cells"
        )
    mixed = [c for c, v in cells.lower.items() if len(v) > 1]
    if mixed:
        raise ValueError(
            f"Every Eval Ever leaderboard {board!r}: evaluation(s) {name_list([repr(c) for c in mixed])} are declared "
            f"lower_is_better in some records and not in others; fix the records"
        )
    return cells


def _board_frame(cells: _Cells) -> tuple[pd.DataFrame, str, dict[str, str]]:
    """The frame (a model column, one column per evaluation, its standard errors as ``<column> stderr``), the name
    of its model column, and the uncertainty columns."""
    columns = list(cells.order)
    model_col = "model" if "model" not in cells.order else "model_id"
    frame = pd.DataFrame.from_dict(cells.rows, orient="index").reindex(columns=columns)
    se = pd.DataFrame.from_dict(cells.errors, orient="index").reindex(columns=columns)
    uncertainty = {}
    for c in columns:
        if se[c].notna().any():
            uncertainty[c] = f"{c} stderr"
            frame[f"{c} stderr"] = se[c]
    frame.insert(0, model_col, frame.index.astype(str))
    return frame.reset_index(drop=True), model_col, uncertainty


def read(paths: Sequence[Path], leaderboard: str | None = None, progress: bool = False, **_: object) -> RawFrame:
    """Read EEE aggregate records (a folder at any level, or files) into one leaderboard's frame.

    Parameters
    ----------
    paths : sequence of Path
        One folder (the store's root, a leaderboard's folder, any folder below) or record files.
    leaderboard : str, optional
        Which leaderboard to read when the records hold several (the first part of their
        ``evaluation_id``, e.g. ``helm_lite``).
    progress : bool
        Show a progress bar when there are many files (:data:`PROGRESS_FILES`).

    Returns
    -------
    RawFrame
        One row per ``model_info.id`` (column ``model``), one column per ``evaluation_name``, the standard
        errors as ``<column> stderr``; the declared directions, scales and aggregates; notes.

    Raises
    ------
    ValueError
        No record; several leaderboards and none picked (the message lists them with models x
        evaluations); an unknown ``leaderboard``; a record without a model or an evaluation name; a column
        declared lower-is-better in some records and not in others.
    """
    runs, notes = _read_runs(paths, progress)
    board, listing, n_boards = _pick_board(runs, paths, leaderboard)
    mine, schemas = _board_runs(runs, board, notes)
    source_names = {r.source for r in mine if r.source}  # a hint to its own aggregate ('Global MMLU Lite Leaderboard')
    cells = _board_cells(mine, board, notes)
    frame, model_col, uncertainty = _board_frame(cells)
    columns = list(cells.order)
    lo, hi = cells.lo, cells.hi
    scales = {
        c: (lo[c], hi[c]) for c in columns if math.isfinite(lo.get(c, math.nan)) and math.isfinite(hi.get(c, math.nan))
    }
    n_files = len({r.path for r in runs if r.leaderboard == board})
    notes.insert(
        0,
        f"read as Every Eval Ever aggregate results: leaderboard {board!r}, {n_files} record file(s), "
        f"{len(cells.rows)} models (model_info.id) x {len(columns)} evaluations (evaluation_name), schema "
        f"{', '.join(schemas)}",
    )
    if n_boards > 1:
        notes.insert(1, f"the records hold {n_boards} leaderboards ({listing}); {board!r} was picked")
    return RawFrame(
        frame,
        tuple(notes),
        models_col=model_col,
        lower_is_better=tuple(c for c in columns if cells.lower.get(c) == {True}),
        scales=scales,
        uncertainty=uncertainty,
        aggregates=_aggregates(frame, columns, board, source_names),
        name=board,
        format="eee",
    )
