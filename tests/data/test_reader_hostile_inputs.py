"""Readers that cannot be fooled: each input that once gave a silent wrong answer or a traceback (an id differing
only in case, a timestamp of another form, a flag written as a string, a stray results file, a minority metric, a
flattened harness table, ...) read right with a note, or refused in one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from blindspot import data
from blindspot.data import eee_aggregate


# ------------------------------------------------------------------------------------------ EEE records
def _record(board, model, scores, ts="1700000000", schema="0.2.0", lower=None, names=None):
    results = []
    for name, v in scores.items():
        mc = {"score_type": "continuous", "min_score": 0.0, "max_score": 1.0}
        mc["lower_is_better"] = (lower or {}).get(name, False)
        results.append(
            {
                "evaluation_name": (names or {}).get(name, name),
                "metric_config": mc,
                "score_details": {"score": v},
            }
        )
    return {
        "schema_version": schema,
        "evaluation_id": f"{board}/{model.replace('/', '_')}/{ts}",
        "retrieved_timestamp": ts,
        "source_metadata": {"source_name": board, "source_type": "documentation"},
        "model_info": {"name": model.split("/")[-1], "id": model, "developer": model.split("/")[0]},
        "evaluation_results": results,
    }


def _write(root: Path, rec: dict, name: str) -> Path:
    board = rec["evaluation_id"].split("/")[0]
    dev, model = rec["model_info"]["id"].strip().rstrip("/").split("/")
    p = root / board / dev / model / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(rec))
    return p


def _board(root: Path, board="bench", n=12, seed=0, k=4, **kw) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.1, 0.9, size=(n, k))
    for i in range(n):
        _write(root, _record(board, f"org/m{i:02d}", dict(zip("abcdefgh"[:k], X[i])), **kw), f"{i:02d}.json")
    return X


def test_eee_ids_differing_only_in_case_are_one_model_with_a_note(tmp_path):
    X = _board(tmp_path)
    # a second run of org/m03, its id in capitals and with a trailing slash, newer: it is the model's run
    rec = _record("bench", "ORG/M03/ ", dict(zip("abcd", [0.5, 0.5, 0.5, 0.5])), ts="1800000000")
    (tmp_path / "bench" / "org" / "m03" / "z.json").write_text(json.dumps(rec))  # after 03.json in path order
    t = data.load_scores(tmp_path / "bench")
    assert t.n_models == 12  # 13 before: 'ORG/M03/ ' counted as a 13th model
    assert t.scores.loc["org/m03", "a"] == pytest.approx(0.5)
    note = next(n for n in t.notes if "written in more than one way" in n)
    assert "'org/m03' = 'ORG/M03/'" in note
    assert np.allclose(t.scores.drop(index="org/m03")["a"], np.delete(X[:, 0], 3))


@pytest.mark.parametrize(
    "old,new",
    [
        ("2023-01-01T00:00:00Z", "2024-06-01T12:00:00+02:00"),  # ISO-8601: the older run was kept
        ("1700000000", "2024-06-01"),  # epoch against a date
        ("1700000000000", "1800000000"),  # milliseconds against seconds
    ],
)
def test_timestamps_of_any_form_keep_the_newest_run(tmp_path, old, new):
    _board(tmp_path)
    _write(tmp_path, _record("bench", "org/m00", dict(zip("abcd", [0.11] * 4)), ts=old), "old.json")
    _write(tmp_path, _record("bench", "org/m00", dict(zip("abcd", [0.77] * 4)), ts=new), "p-new.json")
    t = data.load_scores(tmp_path / "bench")
    assert t.scores.loc["org/m00", "a"] == pytest.approx(0.77)


def test_nan_timestamps_are_noted_not_a_traceback(tmp_path):
    _board(tmp_path)
    for name, v in (("r1.json", 0.3), ("r2.json", 0.6)):
        _write(tmp_path, _record("bench", "org/m00", dict(zip("abcd", [v] * 4)), ts="NaN"), name)
    t = data.load_scores(tmp_path / "bench")  # IndexError before
    assert any("no readable retrieved_timestamp" in n for n in t.notes)
    # three runs of org/m00 (01.json... the first board's 00.json dated, r1/r2 not): the dated one is kept
    assert t.scores.loc["org/m00", "a"] not in (pytest.approx(0.3), pytest.approx(0.6))


def test_lower_is_better_written_as_a_string_is_honoured_with_a_note(tmp_path):
    X = _board(tmp_path, lower={"b": "true"})
    t = data.load_scores(tmp_path / "bench")
    np.testing.assert_allclose(t.scores["b"].to_numpy(), 1.0 - X[:, 1])
    assert any("lower_is_better written as a string" in n and "b" in n for n in t.notes)
    assert any("lower is better on 'b'" in n for n in t.notes)


def test_scores_written_as_strings_are_read_with_a_note(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.uniform(0.1, 0.9, size=(10, 3))
    for i in range(10):
        rec = _record("bench", f"org/m{i}", {c: f"{v:.3f}" for c, v in zip("abc", X[i])})
        _write(tmp_path, rec, f"{i}.json")
    t = data.load_scores(tmp_path / "bench")  # "0 numeric score columns" before
    assert t.benchmarks == ["a", "b", "c"]
    np.testing.assert_allclose(t.scores["a"].to_numpy(), np.round(X[:, 0], 3))
    assert any("scores written as strings" in n for n in t.notes)


def test_a_leaderboard_folder_that_is_a_symbolic_link_is_read(tmp_path):
    store = tmp_path / "store"
    X = _board(store)
    root = tmp_path / "mine"
    root.mkdir()
    os.symlink(store / "bench", root / "bench")
    t = data.load_scores(root)  # "holding none of the formats" before
    assert t.n_models == 12 and np.allclose(t.scores["a"], X[:, 0])


def test_schema_03_prefixed_names_mixed_with_02_names_are_one_benchmark_each(tmp_path):
    X = _board(tmp_path, n=12)  # 0.2: 'a', 'b', 'c', 'd'
    for i in range(12, 16):  # 0.3 records of four more models: 'bench.a', ...
        rec = _record("bench", f"org/m{i:02d}", dict(zip("abcd", [0.2 + 0.1 * (i - 12)] * 4)), schema="0.3.0")
        rec["evaluation_results"] = [
            dict(r, evaluation_name=f"bench.{r['evaluation_name']}") for r in rec["evaluation_results"]
        ]
        _write(tmp_path, rec, f"{i}.json")
    t = data.load_scores(tmp_path / "bench")
    assert t.benchmarks == ["a", "b", "c", "d"] and t.n_models == 16  # 8 columns and missing cells before
    assert any("schema 0.3" in n and "one benchmark" in n for n in t.notes)
    assert np.allclose(t.scores["a"].to_numpy()[:12], X[:, 0])


def test_jq_slurped_records_are_read_as_records_not_a_table_of_fields(tmp_path):
    X = _board(tmp_path)
    recs = [json.loads(p.read_text()) for p in sorted((tmp_path / "bench").rglob("*.json"))]
    slurped = tmp_path / "all.json"
    slurped.write_text(json.dumps(recs))
    t = data.load_scores(slurped)  # 'schema_version' taken as the model column before
    assert t.n_models == 12 and t.benchmarks == ["a", "b", "c", "d"]
    assert np.allclose(t.scores["a"], X[:, 0])
    assert eee_aggregate.detect((slurped,))


# ------------------------------------------------------------------------------------------ names options
def _frame(n=30, k=4, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k)) + rng.normal(size=(n, 1))
    df = pd.DataFrame(X, columns=[f"b{j}" for j in range(k)])
    df.insert(0, "model", [f"m{i:02d}" for i in range(n)])
    return df, X


def test_a_lower_is_better_name_given_twice_is_flipped_once_with_a_note():
    df, X = _frame()
    t = data.read_table(df, lower_is_better=["b1", "b1"])
    np.testing.assert_allclose(t.scores["b1"].to_numpy(), -X[:, 1])  # flipped twice (not at all) before
    assert any("'b1' more than once" in n for n in t.notes)


def test_the_lower_is_better_flag_given_twice_accumulates(tmp_path):
    from blindspot.cli import main

    df, X = _frame()
    csv = tmp_path / "s.csv"
    df.to_csv(csv, index=False)
    out = tmp_path / "r"
    args = ["analyze", str(csv), "--lower-is-better", "b0", "--lower-is-better", "b1", "b1"]
    assert (
        main([*args, "--out", str(out), "--quiet", "--n-boot", "20", "--exclude-rows", "m00", "--exclude-rows", "m01"])
        == 0
    )
    notes = json.loads((out / "report.json").read_text())["notes"]
    flip = next(n for n in notes if "lower is better on" in n)
    assert "'b0'" in flip and "'b1'" in flip  # 'b0' silently dropped before
    assert any("'m00'" in n and "'m01'" in n for n in notes if "left out at your request" in n)


@pytest.mark.parametrize("value", [3, b"b1", [b"b1"], 2.5, ["b1", 3]])
def test_a_names_option_of_the_wrong_type_is_one_line(value):
    import blindspot

    df, _ = _frame()
    with pytest.raises(ValueError, match=r"lower_is_better \(--lower-is-better\) takes"):
        data.read_table(df, lower_is_better=value)
    with pytest.raises(ValueError, match=r"lower_is_better \(--lower-is-better\) takes"):
        blindspot.analyze(df, lower_is_better=value, n_boot=20, figures=False)


# ------------------------------------------------------------------------------------------ lm-eval results
def _lm_run(folder: Path, model: str, tasks: dict, groups: dict | None = None, name="results_2024-01-01T00-00-00.json"):
    """A harness results file: ``tasks`` maps a task to {metric: value}."""
    results = {t: {"alias": t, **{f"{k},none": v for k, v in ms.items()}} for t, ms in tasks.items()}
    run = {
        "results": results,
        "group_subtasks": groups or {t: [] for t in tasks},
        "higher_is_better": {t: {k: True for k in ms} for t, ms in tasks.items()},
        "config": {"model": "hf", "model_args": f"pretrained={model},dtype=float16"},
    }
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(run))


def _lm_folder(root: Path, n=30, seed=0, tasks=("arc", "hella", "wino")) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.2, 0.9, size=(n, len(tasks)))
    for i in range(n):
        _lm_run(root / f"org__m{i:02d}", f"org/m{i:02d}", {t: {"acc": X[i, j]} for j, t in enumerate(tasks)})
    return X


def test_a_stray_results_file_beside_valid_runs_is_skipped_with_a_note(tmp_path):
    X = _lm_folder(tmp_path / "out")
    (tmp_path / "out" / "results_summary.json").write_text(json.dumps({"n_runs": 30, "note": "by hand"}))
    t = data.load_scores(tmp_path / "out")  # "holding none of the formats" before
    assert t.n_models == 30 and np.allclose(t.scores["arc"], X[:, 0])
    assert any("not harness results" in n for n in t.notes)


def test_one_model_reporting_acc_norm_does_not_switch_the_task_for_everyone(tmp_path):
    X = _lm_folder(tmp_path / "out")
    _lm_run(
        tmp_path / "out" / "org__m05",
        "org/m05",
        {"arc": {"acc": X[5, 0], "acc_norm": 0.99}, "hella": {"acc": X[5, 1]}, "wino": {"acc": X[5, 2]}},
    )
    t = data.load_scores(tmp_path / "out")  # 29 missing cells before ('acc_norm' taken for every model)
    assert not t.scores.isna().any().any()
    np.testing.assert_allclose(t.scores["arc"], X[:, 0])


def test_a_minority_metric_is_a_noted_missing_cell(tmp_path):
    X = _lm_folder(tmp_path / "out")
    _lm_run(
        tmp_path / "out" / "org__m05",
        "org/m05",
        {"arc": {"acc_norm": 0.99}, "hella": {"acc": X[5, 1]}, "wino": {"acc": X[5, 2]}},
    )
    t = data.load_scores(tmp_path / "out", missing="keep")
    assert int(t.scores["arc"].isna().sum()) == 1 and np.isnan(t.scores.loc["org/m05", "arc"])
    assert any("task 'arc': 1 model(s) report only" in n and "'org/m05'" in n for n in t.notes)


def test_a_subtask_run_alone_is_not_counted_beside_its_group(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.uniform(0.2, 0.9, size=(30, 3))
    for i in range(30):
        _lm_run(
            tmp_path / "out" / f"m{i:02d}",
            f"org/m{i:02d}",
            {
                "mmlu": {"acc": X[i, 0]},
                "mmlu_law": {"acc": X[i, 0] + 0.01},
                "arc": {"acc": X[i, 1]},
                "wino": {"acc": X[i, 2]},
            },
            groups={"mmlu": ["mmlu_law"], "arc": [], "wino": []},
        )
    _lm_run(tmp_path / "out" / "m30", "org/m30", {"mmlu_law": {"acc": 0.5}, "arc": {"acc": 0.5}, "wino": {"acc": 0.5}})
    t = data.load_scores(tmp_path / "out", missing="keep")
    assert sorted(t.benchmarks) == ["arc", "mmlu", "wino"]  # 'mmlu_law' beside 'mmlu' before
    assert any("never both counted" in n and "mmlu_law" in n for n in t.notes)
    tasks = data.load_scores(tmp_path / "out", level="tasks", missing="keep")
    assert sorted(tasks.benchmarks) == ["arc", "mmlu_law", "wino"]


def test_lm_eval_model_names_differing_in_case_or_a_trailing_slash_are_one_model(tmp_path):
    X = _lm_folder(tmp_path / "out")
    _lm_run(
        tmp_path / "out" / "zz_again",
        "ORG/M03/",
        {t: {"acc": 0.5} for t in ("arc", "hella", "wino")},
        name="results_2025-01-01T00-00-00.json",
    )
    t = data.load_scores(tmp_path / "out")
    assert t.n_models == 30  # 31 before
    assert t.scores.loc["org/m03", "arc"] == pytest.approx(0.5)  # the newer run
    assert any("'org/m03' = 'ORG/M03/'" in n for n in t.notes)
    np.testing.assert_allclose(t.scores.drop(index="org/m03")["arc"], np.delete(X[:, 0], 3))


# ------------------------------------------------------------------------------------------ overall scores
def _rewardbench_like(n=60, seed=3):
    """Four categories of two factors and the overall 'Score' = their mean, rounded to 2 decimals of a percent
    and re-weighted slightly (R^2 between 0.99 and 0.999, as the real one: the old bar was 0.999)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, 2))
    cats = F @ rng.uniform(0.3, 1.0, (2, 4)) + 0.8 * rng.normal(size=(n, 4))
    cats = 70 + 8 * cats
    score = cats @ np.array([0.27, 0.23, 0.26, 0.24]) + 0.35 * rng.normal(size=n)
    df = pd.DataFrame(cats, columns=["Chat", "Chat Hard", "Safety", "Reasoning"])
    df.insert(0, "Overall", score)
    df.insert(0, "model", [f"org/rm{i:02d}" for i in range(n)])
    return df


def test_an_overall_score_found_by_content_is_left_out_with_a_note():
    from blindspot.data.columns import dependent_columns

    df = _rewardbench_like().rename(columns={"Overall": "Headline"})
    X = df.drop(columns="model").to_numpy()
    w, *_ = np.linalg.lstsq(np.column_stack([X[:, 1:], np.ones(len(X))]), X[:, 0], rcond=None)
    resid = X[:, 0] - np.column_stack([X[:, 1:], np.ones(len(X))]) @ w
    r2 = 1 - resid.var() / X[:, 0].var()
    assert 0.99 <= r2 < 0.999  # the planted case: found by the new rule only
    t = data.read_table(df)
    assert t.benchmarks == ["Chat", "Chat Hard", "Safety", "Reasoning"]
    assert any("'Headline' (a weighted mean of" in n for n in t.notes)
    assert [d.column for d in dependent_columns(X)] == [0]


@pytest.mark.parametrize("name", ["Score", "MMLU All Subjects", "Overall Score"])
def test_an_overall_score_declared_by_its_name_is_left_out(tmp_path, name):
    df = _rewardbench_like(n=12).rename(columns={"Overall": name})  # too few models for the fit: the name says it
    t = data.read_table(df)
    assert name not in t.benchmarks and len(t.benchmarks) == 4
    assert any(f"{name!r}" in n and "aggregates" in n for n in t.notes)
    for i, row in df.iterrows():  # the same as Every Eval Ever records
        rec = _record("rewardbench", row["model"], {c: row[c] / 100 for c in df.columns[1:]})
        _write(tmp_path, rec, f"{i}.json")
    e = data.load_scores(tmp_path / "rewardbench")
    assert name not in e.benchmarks and len(e.benchmarks) == 4


# ------------------------------------------------------------------------------------------ smaller
def test_a_complex_column_is_one_line_never_its_real_part():
    df, X = _frame()
    df["b3"] = df["b3"] + 0.5j
    with pytest.raises(ValueError, match=r"column 'b3' holds complex numbers .* a score is a real number"):
        data.read_table(df)  # analysed on its real part before, with a ComplexWarning at most
    df["b3"] = X[:, 3] + 0j  # a complex dtype holding real numbers is those numbers
    np.testing.assert_allclose(data.read_table(df).scores["b3"], X[:, 3])


# ------------------------------------------------------------------------------------------ flattened lm-eval tables
_MMLU_PARTS = ("mmlu_humanities", "mmlu_stem", "mmlu_social_sciences", "mmlu_other")


def _flat_lm_eval_csv(path: Path, n=12, seed=3, group_subtasks=True) -> np.ndarray:
    """lm-eval results of ``n`` runs flattened by pandas.json_normalize into a CSV (one row per run): mmlu is the
    mean of its four sub-groups; arc and hella are tasks in no group. Returns the (n, 6) sub-group, arc, hella
    scores."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = rng.uniform(0.2, 0.9, size=(n, 6))
    runs = []
    for i in range(n):
        results = {"mmlu": {"alias": "mmlu", "acc,none": float(X[i, :4].mean()), "acc_stderr,none": 0.01}}
        for j, part in enumerate(_MMLU_PARTS):
            results[part] = {"alias": f" - {part}", "acc,none": float(X[i, j]), "acc_stderr,none": 0.01}
        results["arc"] = {"alias": "arc", "acc,none": float(X[i, 4])}
        results["hella"] = {"alias": "hella", "acc,none": float(X[i, 5])}
        run = {
            "results": results,
            "higher_is_better": {t: {"acc": True} for t in results},
            "config": {"model": "hf", "model_args": f"pretrained=org/m{i:02d},dtype=float16"},
            "model_name": f"org/m{i:02d}",
            "date": 1.7e9 + i,
        }
        if group_subtasks:
            run["group_subtasks"] = {"mmlu": list(_MMLU_PARTS), "arc": [], "hella": []}
        runs.append(run)
    pd.json_normalize(runs).to_csv(path, index=False)
    return X


@pytest.mark.parametrize("group_subtasks", [True, False])
def test_a_json_normalised_lm_eval_csv_never_counts_a_group_beside_its_subgroups(tmp_path, group_subtasks):
    X = _flat_lm_eval_csv(tmp_path / "flat.csv", group_subtasks=group_subtasks)
    t = data.load_scores(tmp_path / "flat.csv")
    # before: 'results.mmlu.acc,none' beside 'results.mmlu_stem.acc,none', ... (12 models: too few for the fit)
    assert sorted(t.benchmarks) == ["arc", "hella", "mmlu"]
    np.testing.assert_allclose(t.scores.loc[[f"org/m{i:02d}" for i in range(12)], "mmlu"], X[:, :4].mean(axis=1))
    assert any("lm-evaluation-harness results" in n and "json_normalize" in n for n in t.notes)
    assert any("<group>_<name>" in n for n in t.notes) is not group_subtasks
    tasks = data.load_scores(tmp_path / "flat.csv", level="tasks")  # the level the user asks for
    assert sorted(tasks.benchmarks) == sorted(["arc", "hella", *_MMLU_PARTS])
    np.testing.assert_allclose(tasks.scores.loc[[f"org/m{i:02d}" for i in range(12)], "mmlu_stem"], X[:, 1])


def test_a_flattened_lm_eval_table_names_its_models_by_a_model_column(tmp_path):
    import pandas as pd

    _flat_lm_eval_csv(tmp_path / "flat.csv")
    df = pd.read_csv(tmp_path / "flat.csv").drop(columns=["config.model_args", "config.model", "model_name"])
    df.insert(0, "model", [f"org/m{i:02d}" for i in range(len(df))])
    df.to_csv(tmp_path / "named.csv", index=False)
    assert data.load_scores(tmp_path / "named.csv").n_models == 12
    df.drop(columns=["model"]).to_csv(tmp_path / "anonymous.csv", index=False)
    with pytest.raises(ValueError, match="flattened into columns .* names no model"):
        data.load_scores(tmp_path / "anonymous.csv")
