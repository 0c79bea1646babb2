"""The conformance suite: every input format of the registry (:data:`blindspot.data.readers.FORMATS`) passes the
same properties.

Each format has one writer here (:data:`WRITERS`): it writes a planted leaderboard (:class:`Board`) in that format,
with the variations a property needs (rows, columns or files in another order; a model spelt twice; numbers and
flags written as strings; runs with timestamps; a stray file; the leaderboard's overall score). **Adding a format
adds it to the suite with one line**: its writer in :data:`WRITERS` (``test_every_format_has_a_writer`` fails
until it is there). A property that cannot arise in a format (a single score file has no runs to order by time)
is skipped with the reason, so the suite's size is formats x properties with the skips named.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from blindspot import data
from blindspot.cli import main
from blindspot.data.readers import FORMATS


@dataclass(frozen=True)
class Board:
    """A planted leaderboard and how to write it."""

    X: np.ndarray  # (n, k) scores in (0, 1)
    models: tuple[str, ...]
    benchmarks: tuple[str, ...]
    row_order: tuple[int, ...] | None = None  # the order the models are written in
    col_order: tuple[int, ...] | None = None
    file_order: str = "sorted"  # 'sorted' or 'reversed' (a list of files given in that order)
    as_text: bool = False  # numbers (and flags) written as strings
    respelt: dict[int, tuple[str, object]] = field(default_factory=dict)  # model -> (spelling, its newer run's time)
    times: tuple[object, object] | None = None  # (older, newer) time of two runs of model 0 (its newer run: 0.99)
    stray: bool = False
    overall: bool = False  # add the leaderboard's own overall score, 'Score' = the mean of the benchmarks
    grouped: bool = False  # b0 is a group with a subtask 'b0_part'; one more model ran the subtask alone
    minority: bool = False  # model 5 also reports another metric for b0 (and model 6 only another one)


def _board(n: int = 30, k: int = 4, seed: int = 0) -> Board:
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, 2))
    X = 1 / (1 + np.exp(-(F @ rng.normal(size=(2, k)) + 0.7 * rng.normal(size=(n, k)))))
    return Board(X, tuple(f"org/m{i:02d}" for i in range(n)), tuple(f"b{j}" for j in range(k)))


def _cells(b: Board) -> tuple[list[int], list[int], np.ndarray, list[str]]:
    rows = list(b.row_order or range(len(b.models)))
    cols = list(b.col_order or range(len(b.benchmarks)))
    X, names = b.X, list(b.benchmarks)
    if b.overall:
        X = np.column_stack([X, X.mean(axis=1)])
        names.append("Score")
        cols.append(len(names) - 1)
    return rows, cols, X, names


def _v(b: Board, x: float) -> object:
    return f"{x:.17g}" if b.as_text else float(x)


# ------------------------------------------------------------------------------------------ writers
def _write_file(root: Path, b: Board) -> list[Path]:
    if b.grouped or b.minority:  # groups and metrics: the harness's results flattened into a table, a row per run
        path = root / "runs.csv"
        root.mkdir(parents=True, exist_ok=True)
        pd.json_normalize([run for _, run in _lm_runs(b)]).to_csv(path, index=False)
        return [path]
    rows, cols, X, names = _cells(b)
    recs = [{"model": b.models[i], **{names[j]: _v(b, X[i, j]) for j in cols}} for i in rows]
    for i, (spelling, _) in b.respelt.items():
        recs.append({"model": spelling, **{names[j]: _v(b, X[i, j]) for j in cols}})
    path = root / ("scores.json" if b.as_text else "scores.csv")
    root.mkdir(parents=True, exist_ok=True)
    if b.as_text:
        path.write_text(json.dumps(recs))
    else:
        pd.DataFrame(recs).to_csv(path, index=False)
    return [path]


def _eee_record(b: Board, model: str, row: dict, ts: object) -> dict:
    return {
        "schema_version": "0.2.0",
        "evaluation_id": f"board/{model.strip().replace('/', '_')}/{ts}",
        "retrieved_timestamp": ts,
        "model_info": {"id": model, "name": model.split("/")[-1]},
        "evaluation_results": [
            {
                "evaluation_name": c,
                "metric_config": {"lower_is_better": "false" if b.as_text else False, "min_score": 0, "max_score": 1},
                "score_details": {"score": _v(b, v)},
            }
            for c, v in row.items()
        ],
    }


def _write_eee(root: Path, b: Board) -> list[Path]:
    rows, cols, X, names = _cells(b)
    out = []

    def put(rec: dict, name: str, folder: str) -> None:
        p = root / "board" / "org" / folder / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(rec))
        out.append(p)

    ts = "1700000000"
    for i in rows:
        put(_eee_record(b, b.models[i], {names[j]: X[i, j] for j in cols}, ts), "run.json", f"m{i:02d}")
    for i, (spelling, when) in b.respelt.items():
        put(_eee_record(b, spelling, {names[j]: X[i, j] for j in cols}, when), "respelt.json", f"m{i:02d}")
    if b.times is not None:
        old, new = b.times
        put(_eee_record(b, b.models[0], {names[j]: 0.01 for j in cols}, old), "a_old.json", "m00")
        put(_eee_record(b, b.models[0], {names[j]: 0.99 for j in cols}, new), "b_new.json", "m00")
        (root / "board" / "org" / "m00" / "run.json").unlink()
        out.remove(root / "board" / "org" / "m00" / "run.json")
    if b.stray:
        (root / "board" / "manifest.json").write_text(json.dumps({"files": len(out)}))
    return _ordered(root / "board", out, b)


def _lm_run(b: Board, model: str, row: dict, date: object | None) -> dict:
    run = {
        "results": {c: {"alias": c, "acc,none": _v(b, v), "acc_stderr,none": "N/A"} for c, v in row.items()},
        "group_subtasks": {c: [] for c in row},
        "higher_is_better": {c: {"acc": "true" if b.as_text else True} for c in row},
        "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float16"},
    }
    if date is not None:
        run["date"] = date
    return run


def _lm_runs(b: Board) -> list[tuple[str, dict]]:
    """The board's harness runs, each with the folder the harness writes it into: b0 a group whose subtask one
    more model ran alone (``grouped``), or a minority metric for b0 (``minority``)."""
    rows, cols, X, names = _cells(b)
    runs = []
    for i in rows:
        run = _lm_run(b, b.models[i], {names[j]: X[i, j] for j in cols}, None)
        if b.grouped:
            run["results"]["b0_part"] = {"alias": "b0_part", "acc,none": 0.5}
            run["group_subtasks"]["b0"] = ["b0_part"]
        if b.minority and i == 5:
            run["results"]["b0"]["acc_norm,none"] = 0.123
        if b.minority and i == 6:
            run["results"]["b0"] = {"alias": "b0", "acc_norm,none": 0.456}
        runs.append((f"org__m{i:02d}", run))
    if b.grouped:
        alone = _lm_run(b, "org/alone", {"b0_part": 0.5, **{names[j]: 0.5 for j in cols if names[j] != "b0"}}, None)
        runs.append(("org__alone", alone))
    return runs


def _write_lm_eval(root: Path, b: Board) -> list[Path]:
    rows, cols, X, names = _cells(b)
    out = []

    def put(run: dict, folder: str, stamp: str) -> None:
        p = root / "out" / folder / f"results_{stamp}.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(run))
        out.append(p)

    for folder, run in _lm_runs(b):
        put(run, folder, "2024-01-01T00-00-00")
    for i, (spelling, when) in b.respelt.items():
        put(_lm_run(b, spelling, {names[j]: X[i, j] for j in cols}, when), f"again_m{i:02d}", "2024-01-01T00-00-00")
    if b.times is not None:
        old, new = b.times  # the same name stamp: the run's own date decides
        (root / "out" / "org__m00" / "results_2024-01-01T00-00-00.json").unlink()
        out.remove(root / "out" / "org__m00" / "results_2024-01-01T00-00-00.json")
        put(_lm_run(b, b.models[0], {names[j]: 0.01 for j in cols}, old), "org__m00", "2024-01-01T00-00-00")
        put(_lm_run(b, b.models[0], {names[j]: 0.99 for j in cols}, new), "org__m00_new", "2024-01-01T00-00-00")
    if b.stray:
        (root / "out" / "results_summary.json").write_text(json.dumps({"n_runs": len(out), "by": "hand"}))
    return _ordered(root / "out", out, b)


def _ordered(folder: Path, files: list[Path], b: Board) -> list[Path]:
    if b.file_order == "reversed":
        return sorted(files, reverse=True)
    return [folder]


#: One writer per format of the registry: ``write(folder, board) -> the paths to read``.
WRITERS: dict[str, Callable[[Path, Board], list[Path]]] = {
    "eee": _write_eee,
    "lm-eval": _write_lm_eval,
    "file": _write_file,
}
KEYS = [f.key for f in FORMATS]


def _read(tmp_path: Path, key: str, b: Board, name: str = "a", **options) -> data.ScoreTable:
    paths = WRITERS[key](tmp_path / name, b)
    return data.load_scores(paths if len(paths) > 1 else paths[0], **options)


def _same(t: data.ScoreTable, b: Board) -> None:
    got = t.scores.loc[list(b.models), list(b.benchmarks)].to_numpy()
    np.testing.assert_allclose(got, b.X, rtol=1e-12)
    assert sorted(t.benchmarks) == sorted(b.benchmarks) and t.n_models == len(b.models)


def test_every_format_has_a_writer():
    assert set(WRITERS) == set(KEYS), "add the new format's writer to WRITERS (one line)"


def test_each_writer_is_read_by_its_own_format(tmp_path):
    from blindspot.data.readers import as_paths

    for key in KEYS:
        paths = WRITERS[key](tmp_path / key, _board())
        first = next(f for f in FORMATS if f.detect(as_paths(paths)))
        assert first.key == key


# ------------------------------------------------------------------------------------------ properties
@pytest.mark.parametrize("key", KEYS)
def test_the_same_table_under_row_and_column_order(tmp_path, key):
    b = _board()
    rng = np.random.default_rng(1)
    rows = tuple(int(i) for i in rng.permutation(len(b.models)))
    cols = tuple(int(j) for j in rng.permutation(len(b.benchmarks)))
    _same(_read(tmp_path, key, b), b)
    _same(_read(tmp_path, key, replace(b, row_order=rows, col_order=cols), name="b"), b)


@pytest.mark.parametrize("key", KEYS)
def test_the_same_table_under_file_order(tmp_path, key):
    if key == "file":
        pytest.skip("one score file: no order of files")
    b = _board()
    _same(_read(tmp_path, key, replace(b, file_order="reversed")), b)


@pytest.mark.parametrize("key", KEYS)
def test_model_identity_by_case_whitespace_and_trailing_slash(tmp_path, key):
    b = replace(_board(), respelt={3: (" ORG/M03/ ", "1800000000")})
    if key == "file":  # rows of one file are not runs: two spellings of one model are refused, naming both
        with pytest.raises(ValueError, match=r"occur more than once.*org/m03"):
            _read(tmp_path, key, b)
        return
    t = _read(tmp_path, key, b)
    assert t.n_models == len(b.models)
    assert any("written in more than one way" in n and "ORG/M03/" in n for n in t.notes)


@pytest.mark.parametrize("key", KEYS)
def test_a_name_given_twice_is_one_name(tmp_path, key):
    b = _board()
    t = _read(tmp_path, key, b, lower_is_better=["b1", "b1"])
    flipped = t.scores.loc[list(b.models), "b1"].to_numpy()
    assert np.allclose(flipped, 1 - b.X[:, 1]) or np.allclose(flipped, -b.X[:, 1])
    assert any("more than once" in n for n in t.notes)


@pytest.mark.parametrize("key", KEYS)
def test_a_flag_given_twice_accumulates(tmp_path, key):
    paths = WRITERS[key](tmp_path / "a", _board())
    out = tmp_path / "report"
    argv = ["analyze", *map(str, paths), "--lower-is-better", "b0", "--lower-is-better", "b1"]
    assert main([*argv, "--out", str(out), "--quiet", "--n-boot", "20"]) == 0
    notes = json.loads((out / "report.json").read_text())["notes"]
    flip = next(n for n in notes if "lower is better on" in n)
    assert "'b0'" in flip and "'b1'" in flip


@pytest.mark.parametrize("key", KEYS)
def test_numbers_and_flags_written_as_strings_are_values_with_a_note(tmp_path, key):
    b = replace(_board(), as_text=True)
    t = _read(tmp_path, key, b)
    _same(t, b)
    assert any("written as strings" in n for n in t.notes)


@pytest.mark.parametrize("key", KEYS)
@pytest.mark.parametrize(
    "old,new",
    [
        ("2023-01-01T00:00:00Z", "2024-06-01T12:00:00+02:00"),
        ("1700000000", "2024-06-01"),
        (1700000000000, 1800000000),
        ("NaN", "1800000000"),
        (None, "2030-01-01"),
    ],
)
def test_runs_are_ordered_by_any_timestamp_and_a_missing_one_is_never_a_crash(tmp_path, key, old, new):
    if key == "file":
        pytest.skip("a score file holds one row per model: no runs to order")
    b = replace(_board(), times=(old, new))
    t = _read(tmp_path, key, b)
    assert t.n_models == len(b.models)
    assert t.scores.loc[b.models[0]].to_numpy() == pytest.approx(0.99)  # the newer run
    if key == "eee" and old in ("NaN", None):
        assert any("no readable retrieved_timestamp" in n for n in t.notes)


@pytest.mark.parametrize("key", KEYS)
def test_the_leaderboards_overall_score_is_left_out_with_a_note(tmp_path, key):
    b = replace(_board(), overall=True)
    t = _read(tmp_path, key, b)
    _same(t, b)
    assert "Score" not in t.benchmarks and any("'Score'" in n for n in t.notes)


@pytest.mark.parametrize("key", KEYS)
def test_a_stray_non_result_file_is_skipped_with_a_note(tmp_path, key):
    if key == "file":
        pytest.skip("one score file: nothing beside it is read")
    b = replace(_board(), stray=True)
    t = _read(tmp_path, key, b)
    _same(t, b)
    assert any("skipped" in n for n in t.notes)


@pytest.mark.parametrize("key", KEYS)
def test_a_group_and_its_subtasks_are_never_both_counted(tmp_path, key):
    if key == "eee":
        pytest.skip("the format declares no groups (a group's own score is an overall score: the property above)")
    b = replace(_board(), grouped=True)
    t = _read(tmp_path, key, b, missing="keep")
    assert "b0_part" not in t.benchmarks and "b0" in t.benchmarks
    assert any("never both counted" in n for n in t.notes)
    np.testing.assert_allclose(t.scores.loc[list(b.models), "b0"], b.X[:, 0])


@pytest.mark.parametrize("key", KEYS)
def test_one_metric_per_task_for_every_model(tmp_path, key):
    if key == "eee":
        pytest.skip("the format has one score per cell: no metric to choose")
    b = replace(_board(), minority=True)
    t = _read(tmp_path, key, b, missing="keep")
    expect = b.X[:, 0].copy()
    expect[6] = np.nan  # the model that reports only the minority metric: a noted missing cell
    np.testing.assert_allclose(t.scores.loc[list(b.models), "b0"], expect)
    assert any("report only" in n and "'org/m06'" in n for n in t.notes)
