"""Lm-evaluation-harness output read into one model x task table (issue 44, item 1).

The fixture ``tests/fixtures/lm_eval/output`` is real harness output, written by lm-eval 0.4.13 itself (see
its README): four models, one with two runs, a group of two subtasks, a task whose first metric has
``higher_is_better: false``, a generation task with two filters. The tables are compared with one built here
from the JSON files by the documented rule; other layouts (model_args as a string, model_name only, a
perplexity task, a group without a score of its own) are written here in the format the fixture shows.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from blindspot import data
from blindspot.cli import main
from blindspot.data import lm_eval_results

OUTPUT = Path(__file__).resolve().parents[1] / "fixtures" / "lm_eval" / "output"


def _independent(level: str) -> pd.DataFrame:
    """Model x task from the files: per model, each task's newest run (by 'date'); at the level of groups the
    group and the tasks in no group, at the level of tasks every task that is no group; the metric: acc_norm,
    else acc, else exact_match, with filter none, else strict-match."""
    newest: dict[tuple[str, str], tuple[float, dict]] = {}
    for path in sorted(OUTPUT.rglob("results_*.json")):
        run = json.loads(path.read_text())
        model = run["config"]["model_args"]["pretrained"]
        groups = {g for g, subs in run["group_subtasks"].items() if subs}
        members = {t for subs in run["group_subtasks"].values() for t in subs}
        for task, entry in run["results"].items():
            wanted = (task not in members) if level == "groups" else (task not in groups)
            if wanted and (newest.get((model, task), (-1.0,))[0] < run["date"]):
                newest[(model, task)] = (run["date"], entry)
    rows: dict[str, dict[str, float]] = {}
    for (model, task), (_, entry) in newest.items():
        key = next(
            k for k in ("acc_norm,none", "acc,none", "exact_match,none", "exact_match,strict-match") if k in entry
        )
        rows.setdefault(model, {})[task] = entry[key]
    return pd.DataFrame.from_dict(rows, orient="index").sort_index()


@pytest.mark.parametrize("level", ["groups", "tasks"])
def test_the_real_harness_output_is_read_by_the_documented_rule(level):
    t = data.load_scores(OUTPUT, level=level)
    expected = _independent(level)
    assert sorted(t.benchmarks) == sorted(expected.columns)
    pd.testing.assert_frame_equal(
        t.scores.sort_index()[sorted(t.benchmarks)], expected[sorted(t.benchmarks)], check_names=False
    )
    assert all(c.endswith(" stderr") for c in t.meta.columns)  # the standard errors: uncertainty, never benchmarks
    assert ("tiny_suite" in t.benchmarks) == (level == "groups")
    assert ("tiny_facts" in t.benchmarks) == (level == "tasks")  # a group and its subtasks never both
    notes = " ".join(t.notes)
    assert "the level of groups" in notes if level == "groups" else "every task" in notes
    assert "tiny_calib (acc,none)" in notes and "tiny_arith (exact_match,strict-match)" in notes
    assert "run more than once: the newest run of each was kept" in notes  # acme/tiny-alpha's two runs


def test_a_list_of_results_files_and_the_command(tmp_path, capsys):
    files = sorted(str(p) for p in OUTPUT.rglob("results_*.json"))
    assert data.load_scores(files).n_models == 4
    code = main(["analyze", *files, "--out", str(tmp_path / "r"), "--n-boot", "20", "--level", "tasks"])
    out = capsys.readouterr().out
    assert code == 0, out
    rep = json.loads((tmp_path / "r" / "report.json").read_text())
    assert rep["settings"]["benchmarks"] == ["tiny_facts", "tiny_science", "tiny_calib", "tiny_arith"]
    assert "lm-evaluation-harness" in out


def _run(model_args, tasks: dict, hib: dict, subtasks: dict | None = None, name: str | None = None, date=1.0):
    run = {
        "results": {t: {"alias": t, **m} for t, m in tasks.items()},
        "group_subtasks": subtasks or {},
        "higher_is_better": hib,
        "config": {"model": "hf", "model_args": model_args},
        "date": date,
    }
    if name:
        run["model_name"] = name
    return run


def _board(root: Path, n: int = 8, seed: int = 0, **kw) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.2, 0.9, (n, 3))
    for i in range(n):
        tasks = {
            "a": {"acc,none": X[i, 0], "acc_stderr,none": 0.01},
            "b": {"exact_match,none": X[i, 1]},
            "ppl": {"word_perplexity,none": 10 * X[i, 2], "word_perplexity_stderr,none": "N/A"},
        }
        hib = {"a": {"acc": True}, "b": {"exact_match": True}, "ppl": {"word_perplexity": False}}
        p = root / f"org__m{i}" / "results_2025-01-01T00-00-00.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(_run(f"pretrained=org/m{i},dtype=bfloat16", tasks, hib, **kw)))
    return X


def test_model_args_as_a_string_and_a_lower_is_better_metric(tmp_path):
    X = _board(tmp_path)
    t = data.load_scores(tmp_path)
    assert list(t.scores.index) == [f"org/m{i}" for i in range(8)]
    np.testing.assert_allclose(t.scores["ppl"], -10 * X[:, 2])  # flipped: no declared scale, so -x
    assert any("lower is better on 'ppl' (-x), as the source declares" in n for n in t.notes)
    assert "a stderr" in t.meta.columns and "ppl stderr" not in t.meta.columns  # "N/A" is no value


def test_model_name_when_model_args_name_none():
    run = _run({"batch_size": 1}, {"a": {"acc,none": 0.5}}, {"a": {"acc": True}}, name="acme/x")
    assert lm_eval_results.model_of(run, Path("out/whatever/results_x.json")) == "acme/x"
    del run["model_name"]
    assert (
        lm_eval_results.model_of(run, Path("out/acme__y/results_x.json")) == "acme/y"
    )  # the harness sanitises "/" to "__"


def test_a_group_without_its_own_score_is_replaced_by_its_subtasks(tmp_path):
    for i in range(6):
        tasks = {
            "grp": {},
            "s1": {"acc,none": 0.1 * i},
            "s2": {"acc,none": 0.5 - 0.05 * i**2},
            "solo": {"acc,none": i**0.5},
        }
        p = tmp_path / f"m{i}" / "results_1.json"
        p.parent.mkdir()
        p.write_text(json.dumps(_run({"pretrained": f"m{i}"}, tasks, {}, subtasks={"grp": ["s1", "s2"]})))
    t = data.load_scores(tmp_path)
    assert t.benchmarks == ["s1", "s2", "solo"]
    notes = " ".join(t.notes)
    assert "group(s) grp report no score of their own" in notes and "taken as higher is better" in notes


def test_primary_metric_rule():
    assert lm_eval_results.primary_metric(["acc,none", "acc_norm,none"]) == "acc_norm,none"
    assert lm_eval_results.primary_metric(["exact_match,flexible-extract", "exact_match,strict-match"]) == (
        "exact_match,strict-match"
    )
    assert lm_eval_results.primary_metric(["zeta,none", "brier_score,none"]) == "brier_score,none"
