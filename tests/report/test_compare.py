"""``blindspot compare`` / ``blindspot.compare``: the readers, bad inputs refused in one line, the outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import blindspot
from blindspot.cli import main
from blindspot.report.compare import compare, read_items

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "lm_eval" / "output"


def _long(rng: np.random.Generator, n: int = 200, models=("a", "b"), benches=("x", "y")) -> pd.DataFrame:
    rows = []
    for bench in benches:
        ease = rng.normal(size=n)
        for k, m in enumerate(models):
            right = rng.normal(size=n) + ease + 0.3 * k > 0
            rows += [(m, bench, f"q{i}", float(r)) for i, r in enumerate(right)]
    return pd.DataFrame(rows, columns=["model", "benchmark", "item", "score"])


def test_two_models_on_a_long_frame_match_the_exact_mcnemar_test():
    df = _long(np.random.default_rng(0))
    res = compare(df, n_boot=300)
    x = df[df.benchmark == "x"].pivot(index="item", columns="model", values="score")
    n10 = int(((x.b == 1) & (x.a == 0)).sum())
    n01 = int(((x.a == 1) & (x.b == 0)).sum())
    row = res.to_frame().loc["x"]
    assert row["p"] == pytest.approx(stats.binomtest(n10, n10 + n01, 0.5).pvalue)
    assert row["difference"] == pytest.approx(x.b.mean() - x.a.mean())
    assert row["n items"] == 200 and row["method"] == "exact McNemar"
    assert set(res.overall_frame().index) == {"macro", "micro"}


def test_items_answered_by_one_model_only_are_left_out_with_the_counts():
    df = _long(np.random.default_rng(1))
    df = df[~((df.model == "a") & df.item.isin(["q0", "q1", "q2"]) & (df.benchmark == "x"))]
    df = df[~((df.model == "b") & (df.item == "q9") & (df.benchmark == "x"))]
    res = compare(df, n_boot=200)
    assert res.to_frame().loc["x", "n items"] == 196
    note = next(n for n in res.notes if n.startswith("x:"))
    assert "196 items" in note and "a 1" in note and "b 3" in note


def test_a_benchmark_with_no_shared_item_is_a_dash_row_with_its_reason():
    df = _long(np.random.default_rng(2))
    df = df[~((df.model == "b") & (df.benchmark == "y"))]
    extra = pd.DataFrame({"model": ["b"] * 3, "benchmark": ["y"] * 3, "item": ["other1", "other2", "other3"]})
    df = pd.concat([df, extra.assign(score=1.0)])
    res = compare(df, n_boot=200)
    row = res.to_frame().loc["y"]
    assert row["decision"] == "—" and row["n items"] == 0
    assert "no item answered by both" in row["note"] and "b: 3" in row["note"]
    assert "—" in res.to_text()


def test_duplicate_model_item_rows_are_refused_by_name():
    df = _long(np.random.default_rng(3))
    df = pd.concat([df, df.iloc[[5]]])
    with pytest.raises(ValueError, match=r"duplicate \(model, benchmark, item\).*\(a, x, q5\)"):
        compare(df)


def test_non_binary_scores_go_to_the_bootstrap_and_the_note_says_so():
    df = _long(np.random.default_rng(4))
    df.loc[df.benchmark == "y", "score"] = np.random.default_rng(5).random((df.benchmark == "y").sum())
    res = compare(df, n_boot=300)
    f = res.to_frame()
    assert f.loc["x", "method"] == "exact McNemar" and f.loc["y", "method"] == "paired bootstrap"
    assert "non-binary scores, so compared by the paired bootstrap: y" in res.notes
    assert res.pair.micro.method == "stratified bootstrap"


def test_one_model_only_is_one_line_and_exit_2(tmp_path, capsys):
    df = _long(np.random.default_rng(6), models=("solo",))
    path = tmp_path / "items.csv"
    df.to_csv(path, index=False)
    with pytest.raises(ValueError, match="only one model"):
        compare(df)
    assert main(["compare", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "only one model (solo)" in err[0]


def test_missing_columns_and_non_numeric_scores_are_one_line_errors():
    with pytest.raises(ValueError, match="no item"):
        compare(pd.DataFrame({"model": ["a"], "score": [1.0]}))
    bad = _long(np.random.default_rng(7)).astype({"score": object})
    bad.loc[3, "score"] = "yes"
    with pytest.raises(ValueError, match="not numbers"):
        compare(bad)


def test_lower_is_better_flips_the_difference():
    df = _long(np.random.default_rng(8))
    up = compare(df, n_boot=200).to_frame()
    down = compare(df, lower_is_better=["x"], n_boot=200)
    assert down.to_frame().loc["x", "difference"] == pytest.approx(-up.loc["x", "difference"])
    assert down.to_frame().loc["y", "difference"] == pytest.approx(up.loc["y", "difference"])
    assert any("lower is better on x" in n for n in down.notes)


def test_lm_eval_log_samples_folder_and_the_ranking():
    items = read_items(FIXTURE)
    assert len(items.models) == 4 and set(items.benchmarks) == {
        "tiny_arith",
        "tiny_calib",
        "tiny_facts",
        "tiny_science",
    }
    assert any("older run" in n for n in items.notes)
    res = blindspot.compare(FIXTURE, n_boot=200)
    assert res.pair is None and len(res.ranking.steps) == 3
    rank = res.to_frame()
    assert list(rank["model"]) == list(res.ranking.models)
    assert rank["mean"].is_monotonic_decreasing


def test_every_eval_ever_instance_folder(tmp_path):
    from dkps import eee

    rng = np.random.default_rng(9)
    rows = [
        {"model_id": f"org/{m}", "task_id": "quiz", "query_id": str(i), "query": f"q{i}", "response": "r",
         "score": float(rng.random() < p)}
        for m, p in (("m1", 0.5), ("m2", 0.8))
        for i in range(60)
    ]  # fmt: skip
    eee.write_records(pd.DataFrame(rows), tmp_path, suite="quizzes", timestamp=1)
    res = compare(tmp_path, n_boot=200)
    assert set(res.models) == {"org/m1", "org/m2"}
    assert res.to_frame().iloc[0]["n items"] == 60


def test_reference_split_on_the_lm_eval_results():
    from blindspot.data.tables import read_table

    ref = read_table(FIXTURE, level="tasks")
    res = compare(FIXTURE, ["omega/omega-7b", "acme/tiny-alpha"], reference=ref, n_boot=200)
    s = res.split
    assert set(s.benchmarks) == {"tiny_arith", "tiny_calib", "tiny_facts", "tiny_science"}
    assert s.total**2 == pytest.approx(s.visible**2 + s.missed**2)
    diff = res.to_frame()["difference"]
    sd = ref.scores.std(ddof=0)
    assert s.difference == pytest.approx([diff[b] / sd[b] for b in s.benchmarks])
    assert "visible direction" in res.sentences[-1]


def test_formats_and_out(tmp_path, capsys):
    df = _long(np.random.default_rng(10))
    path = tmp_path / "items.csv"
    df.to_csv(path, index=False)
    assert main(["compare", str(path), "--format", "json", "--n-boot", "200"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["benchmark"] for r in doc["benchmarks"]] == ["x", "y"]
    assert main(["compare", str(path), "--format", "csv", "--n-boot", "200", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    table = pd.read_csv(__import__("io").StringIO(out), index_col=0)
    assert list(table.index) == ["x", "y", "overall (macro)", "overall (micro)"]
    assert sorted(p.name for p in (tmp_path / "o").iterdir()) == ["compare.html", "compare.json"]
    assert main(["compare", str(path), "--benchmarks", "nope"]) == 2


def test_analyze_prints_json_with_format(tmp_path, capsys):
    rng = np.random.default_rng(11)
    scores = pd.DataFrame(rng.normal(size=(30, 5)), columns=list("pqrst"))
    scores.insert(0, "model", [f"m{i}" for i in range(30)])
    path = tmp_path / "s.csv"
    scores.to_csv(path, index=False)
    code = main(["analyze", str(path), "--n-boot", "20", "--quiet", "--format", "json", "--out", str(tmp_path / "r")])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == json.loads((tmp_path / "r" / "report.json").read_text())


def test_survey_prints_its_csv_with_format(tmp_path, capsys):
    rng = np.random.default_rng(12)
    scores = pd.DataFrame(rng.normal(size=(30, 5)), columns=list("pqrst"))
    scores.insert(0, "model", [f"m{i}" for i in range(30)])
    path = tmp_path / "s.csv"
    scores.to_csv(path, index=False)
    code = main(["survey", str(path), "--n-boot", "20", "--quiet", "--format", "csv", "--out", str(tmp_path / "sv")])
    assert code == 0
    assert capsys.readouterr().out.strip() == (tmp_path / "sv" / "survey.csv").read_text().strip()
