"""Files of unusual shape read right, or refused in one line: nested JSON records and scores, display names
beside their raw twins, metadata recognised by content (sizes, counts, times), uncertainty columns, decimal
cells, whitespace twins of a header, a transposed frame, multi-index columns, lower-is-better benchmarks with
commas in their names; one frontier rule for a reader's file in ``analyze`` and in the chapters (the paper's
suites keep the paper's rule), a benchmark saturated on the frontier left out of it with a note, and progress
while a large file is read. (Two runs into one ``--out`` are in test_concurrent_out.py.)
"""

from __future__ import annotations

import decimal
import json

import numpy as np
import pandas as pd
import pytest

import blindspot
from blindspot import data
from blindspot.cli import main
from blindspot.core import conventions
from blindspot.diagnose import robustness


# ------------------------------------------------------------------------------------------ class 1
def test_nested_json_records_with_repeated_models_give_one_line_and_exit_2(tmp_path, capsys):
    """A long-format JSON list whose records carry a nested field stopped with a 48-line TypeError
    (unhashable type: 'dict') and exit 1; now the long-format hint, one line, exit 2 (analyze and book)."""
    rng = np.random.default_rng(0)
    recs = [
        {"model": f"m{i}", "benchmark": b, "score": float(rng.uniform(0, 100)), "meta": {"shots": 5, "tags": ["a"]}}
        for i in range(10)
        for b in ("mmlu", "gsm8k", "arc")
    ]
    p = tmp_path / "nested.json"
    p.write_text(json.dumps(recs))
    code = main(["analyze", str(p), "--out", str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "long format (one row per model and 'benchmark')" in err
    with pytest.raises(ValueError, match="long format"):
        data.load_scores(p, missing="drop-rows")  # what `blindspot book --data` checks first


def test_nested_json_scores_are_flattened_with_a_note(tmp_path, clean_frame):
    d = clean_frame(n=30, k=4)
    recs = [{"model": r.model, "scores": {c: r[c] for c in d.columns[1:]}, "tags": ["x"]} for _, r in d.iterrows()]
    p = tmp_path / "nested.json"
    p.write_text(json.dumps(recs))
    t = data.load_scores(p)
    assert t.benchmarks == [f"scores.{c}" for c in d.columns[1:]]
    np.testing.assert_allclose(t.values, d.iloc[:, 1:].to_numpy())
    assert any("flattened" in n for n in t.notes) and any("JSON lists" in n for n in t.notes)


# ------------------------------------------------------------------------------------------ class 2
def _elo_beside_percent(n: int = 40, seed: int = 4) -> pd.DataFrame:
    """Three percentage benchmarks and an Elo rating whose raw scale dominates the mean raw score."""
    rng = np.random.default_rng(seed)
    f = rng.normal(size=(n, 2))
    d = pd.DataFrame({"model": [f"m{i:02d}" for i in range(n)]})
    d["a"] = 60 + 8 * f[:, 0] + rng.normal(0, 3, n)
    d["b"] = 55 + 8 * f[:, 0] + rng.normal(0, 3, n)
    d["c"] = 50 + 8 * f[:, 1] + rng.normal(0, 3, n)
    d["elo"] = 1200 + 100 * f[:, 1] + rng.normal(0, 30, n)
    return d


def test_one_frontier_rule_for_a_readers_file_in_analyze_and_the_chapters(tmp_path):
    """The your-data chapters and their closing summary took the frontier by the mean raw score
    (conventions.frontier), analyze and chapter 80 by the mean z-score: on a file with Elo beside
    percentages they disagreed. Now a reader's file has the standardised rule everywhere."""
    p = tmp_path / "s.csv"
    _elo_beside_percent().to_csv(p, index=False)
    table = data.load(str(p))  # what a chapter's `scores` parameter gives
    assert table.frontier_rule == "mean z-score"
    chapters = set(conventions.frontier(table).scores.index)
    rep = blindspot.analyze(p, n_boot=20)
    z = (table.scores - table.scores.mean()) / table.scores.std(ddof=0)
    by_z = set(z.index[z.mean(axis=1) >= z.mean(axis=1).quantile(0.5)])
    raw = table.scores.mean(axis=1)
    by_raw = set(raw.index[raw >= raw.quantile(0.5)])
    assert by_z != by_raw  # the case the two rules tell apart
    assert chapters == by_z
    assert rep.settings["n_frontier"] == len(by_z)
    assert rep.d_eff == pytest.approx(float(np.asarray(_pr(table.scores.loc[sorted(by_z)]))), rel=1e-9)


def _pr(frame: pd.DataFrame) -> float:
    lam = np.linalg.eigvalsh(np.corrcoef(frame.to_numpy(dtype=float), rowvar=False))
    return lam.sum() ** 2 / (lam**2).sum()


def test_the_papers_suites_keep_the_papers_rule():
    stand_in = data.load_suite("extended", data_dir=None, fallback=True) if data.resolve_data_dir() is None else None
    table = stand_in if stand_in is not None else data.load_suite("extended")
    assert table.frontier_rule == "mean raw score"
    raw = table.scores.mean(axis=1)
    assert conventions.frontier_mask(table).tolist() == (raw >= raw.quantile(0.5)).tolist()
    assert "the paper's rule" in conventions.frontier_rule_sentence(table)


# ------------------------------------------------------------------------------------------ class 4
def _saturated(n: int = 60, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    f = rng.normal(size=n)
    d = pd.DataFrame({"model": [f"m{i:02d}" for i in range(n)]})
    for j, c in enumerate(["a", "b", "c", "d", "e"]):
        d[c] = 50 + 10 * f + rng.normal(0, 4 + j, n)
    top = (d[["a", "b", "c", "d", "e"]].mean(axis=1)).rank(ascending=False) <= n // 2 + 5
    d["easy"] = np.where(top, 100.0, np.clip(80 + 5 * f + rng.normal(0, 3, n), 0, 99))
    return d


def test_a_benchmark_saturated_on_the_frontier_is_left_out_of_it_with_a_note(tmp_path, analyze):
    """'column(s) [5] are constant' stopped the whole report (a position, not a name; the column is not
    constant in the file); now the frontier's sections run without it and a note names it."""
    p = tmp_path / "s.csv"
    _saturated().to_csv(p, index=False)
    code, _, err, rep = analyze(p)
    assert code == 0, err
    assert any("'easy'" in n and "constant on the frontier" in n for n in rep["notes"])
    assert rep["findings"]["d_eff_frontier"]["values"]["k"] == 5
    assert rep["findings"]["d_eff_full"]["values"]["k"] == 6
    t = data.load(str(p))
    front = conventions.frontier(t)
    assert "easy" not in front.benchmarks and any("saturated" in n for n in front.notes)
    curve = robustness.deff_vs_q(t, n_boot=10)  # chapter 25's sweep: no LinAlgError, no constant column
    assert np.isfinite(curve.table["d_eff"]).all()


# ------------------------------------------------------------------------------------------ classes 5, 6
DISPLAY = {"#Params (B)": "params", "Hub ❤️": "likes", "CO₂ cost (kg)": "co2", "likes": "likes", "co2_cost": "co2"}


def test_leaderboard_display_names_and_raw_twins_are_not_benchmarks(clean_frame):
    d = clean_frame(n=60, k=5)
    rng = np.random.default_rng(1)
    for name, kind in DISPLAY.items():
        d[name] = (
            rng.lognormal(2, 1.2, len(d))
            if kind in ("params", "co2")
            else np.round(rng.lognormal(2, 1.5, len(d))).astype(int)
        )
    d["bench_02 Raw"] = np.clip(d["bench_02"], 45, None) + rng.normal(0, 1, len(d))
    t = data.table_from_frame(d)
    assert t.benchmarks == [f"bench_{i:02d}" for i in range(1, 6)]
    notes = " ".join(t.notes)
    for name in [*DISPLAY, "bench_02 Raw"]:
        assert name in notes, name


def test_metadata_by_content_counts_sizes_and_times(clean_frame):
    """Columns with unrevealing names are kept apart by what they hold."""
    d = clean_frame(n=60, k=4)
    rng = np.random.default_rng(2)
    d["popularity"] = np.round(rng.lognormal(3, 1.5, len(d))).astype(int)  # a count with a long tail
    d["weight"] = rng.lognormal(1, 1.5, len(d))  # sizes spread over orders of magnitude
    d["stamp"] = 1_700_000_000 + rng.integers(0, 10**7, len(d))  # Unix times
    d["day"] = rng.choice([20240105, 20240611, 20241130, 20250302], len(d))  # yyyymmdd
    t = data.table_from_frame(d)
    assert t.benchmarks == [f"bench_{i:02d}" for i in range(1, 5)]
    kept = next(n for n in t.notes if n.startswith("kept apart as metadata"))
    assert all(c in kept for c in ("popularity", "weight", "stamp", "day"))


def test_display_names_on_the_open_llm_leaderboard_file(data_dir, tmp_path):
    """The Open LLM Leaderboard's own display names (frontier d_eff 2.62 -> 3.88 in the hostile round): the
    file renamed as the leaderboard shows it gives the d_eff of its six benchmarks."""
    src = data_dir / "ollm_v2" / "ollm_v2.csv"
    if not src.is_file():
        pytest.skip("no ollm_v2 in the data directory")
    d = pd.read_csv(src)
    six = ["ifeval", "bbh", "math_lvl5", "gpqa", "musr", "mmlu_pro"]
    clean = d[["eval_id", *six]]
    shown = d[["eval_id", *six, *[f"{b}_raw" for b in six], "params_b", "hub_hearts", "co2_cost_kg"]].rename(
        columns={
            **{f"{b}_raw": f"{b.upper()} Raw" for b in six},
            **{b: b.upper() for b in six},
            "params_b": "#Params (B)",
            "hub_hearts": "Hub ❤️",
            "co2_cost_kg": "CO₂ cost (kg)",
        }
    )
    a = blindspot.analyze(clean, n_boot=20)
    b = blindspot.analyze(shown, n_boot=20)
    assert b.settings["benchmarks"] == [c.upper() for c in six]
    assert b.d_eff == pytest.approx(a.d_eff, rel=1e-12)


@pytest.mark.parametrize("name", ["bench_01_stderr", "stderr", "bench_01 ±", "acc_stderr,none", "bench_01 std err"])
def test_uncertainty_columns_are_never_benchmarks(clean_frame, name):
    d = clean_frame(n=40, k=4)
    d[name] = np.random.default_rng(3).uniform(0.5, 1.5, len(d))
    t = data.table_from_frame(d)
    assert name not in t.benchmarks
    assert any("uncertainties" in n and name in n for n in t.notes)


# ------------------------------------------------------------------------------------------ class 7
def test_long_format_hint_survives_repeated_pairs(tmp_path, capsys):
    rng = np.random.default_rng(0)
    rows = [(f"m{i}", b, rng.uniform(0, 100)) for i in range(8) for b in ("mmlu", "arc", "gsm8k")]
    rows += [("m0", "mmlu", 50.0), ("m1", "arc", 40.0)]  # two runs of a pair
    p = tmp_path / "long.csv"
    pd.DataFrame(rows, columns=["model", "benchmark", "score"]).to_csv(p, index=False)
    assert main(["analyze", str(p), "--out", str(tmp_path / "r"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "long format" in err and "2 (model, benchmark) pair(s) occur more than once" in err


def test_decimal_cells_are_numbers(clean_frame):
    d = clean_frame(n=30, k=4)
    ref = data.table_from_frame(d)
    d["bench_01"] = [decimal.Decimal(str(round(x, 6))) for x in d["bench_01"]]  # as read_sql gives them
    t = data.table_from_frame(d)
    assert t.benchmarks == ref.benchmarks
    np.testing.assert_allclose(t.scores["bench_01"], ref.scores["bench_01"], atol=1e-6)


def test_whitespace_twins_of_a_header_from_a_frame_are_refused(clean_frame):
    d = clean_frame(n=30, k=4)
    d["bench_01 "] = d["bench_02"] + np.random.default_rng(4).normal(0, 5, len(d))  # a second, different column
    with pytest.raises(ValueError, match=r"column header 'bench_01' appears more than once"):
        blindspot.analyze(d, n_boot=20)


def test_a_transposed_frame_is_warned_about():
    rng = np.random.default_rng(0)
    models = ["meta-llama/Llama-2-7b", "mistralai/Mistral-7B", "Qwen/Qwen2-7B", "google/gemma-7b", "gpt-4o"]
    benches = ["hellaswag", "mmlu", "arc_challenge", "gsm8k", "truthfulqa", "winogrande"]
    df = pd.DataFrame(rng.uniform(20, 90, (len(benches), len(models))), index=benches, columns=models)
    rep = blindspot.analyze(df, n_boot=20, frontier=0)
    assert any("may be transposed" in w for w in rep.warnings)
    assert not any("transposed" in w for w in blindspot.analyze(df.T, n_boot=20, frontier=0).warnings)


def test_multiindex_columns_are_flattened_with_a_note(clean_frame):
    d = clean_frame(n=30, k=4).set_index("model")
    d.columns = pd.MultiIndex.from_tuples([("acc", c) for c in d.columns])
    rep = blindspot.analyze(d, n_boot=20)
    assert rep.settings["benchmarks"] == [f"acc bench_{i:02d}" for i in range(1, 5)]
    assert any("MultiIndex" in n for n in rep.notes)


def test_the_missing_cell_message_suggests_only_what_analyze_accepts(clean_frame):
    d = clean_frame(n=30, k=4)
    d.iloc[3, 2] = np.nan
    with pytest.raises(ValueError) as exc:
        blindspot.analyze(d, n_boot=20)
    msg = str(exc.value)
    assert "missing='complete'" in msg and "missing='drop-rows'" in msg and "'keep'" not in msg
    blindspot.analyze(d, n_boot=20, missing="complete")  # what it suggests is accepted


def test_a_large_file_shows_progress_while_it_is_read(tmp_path, clean_frame, monkeypatch, capsys):
    from blindspot.data import score_files

    p = tmp_path / "s.csv"
    clean_frame(n=400, k=5).to_csv(p, index=False)
    monkeypatch.setattr(score_files, "PROGRESS_BYTES", 1000)
    data.load_scores(p, progress=True)
    assert "reading s.csv" in capsys.readouterr().err


# ------------------------------------------------------------------------------------------ item 1.3
def test_lower_is_better_and_benchmarks_with_commas(tmp_path, clean_frame, analyze):
    d = clean_frame(n=40, k=4)
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    code, _, _, base = analyze(p)
    flipped = d.copy()
    flipped["bench_02"] = 100 - flipped["bench_02"]
    flipped = flipped.rename(columns={"bench_02": "err,rate"})
    q = tmp_path / "f.csv"
    flipped.to_csv(q, index=False)
    code, _, _, rep = analyze(
        q, "--lower-is-better", "err,rate", "--benchmarks", "err,rate", "--benchmarks", "bench_01,bench_03"
    )
    assert code == 0
    assert rep["settings"]["benchmarks"] == ["err,rate", "bench_01", "bench_03"]
    assert any("lower is better on 'err,rate' (-x), as you asked" in n for n in rep["notes"])
    code, _, _, same = analyze(p, "--benchmarks", "bench_02,bench_01,bench_03")
    assert same["findings"]["d_eff_full"]["values"]["d_eff"] == pytest.approx(
        rep["findings"]["d_eff_full"]["values"]["d_eff"], rel=1e-9
    )
    api = blindspot.analyze(q, lower_is_better=["err,rate"], benchmarks=["err,rate", "bench_01", "bench_03"], n_boot=60)
    assert api.d_eff == pytest.approx(rep["findings"]["d_eff_frontier"]["values"]["d_eff"], rel=1e-9)
