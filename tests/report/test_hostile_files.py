"""Damaged but realistic files give the clean file's numbers with a note, or one line and exit 2.

Each file is a clean synthetic leaderboard damaged in one realistic way; where the loader can read
it right, the report's numbers must equal those of the clean file (that is the property), and a
note must say what was done, in report.json and on the terminal.
"""

from __future__ import annotations

import json

import numpy as np
import pytest


def _same_numbers(rep, ref):
    for key in ("d_eff_full", "d_eff_frontier", "swap", "half_split", "greedy_subset"):
        a, b = rep["findings"][key]["values"], ref["findings"][key]["values"]
        assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True), key
    assert [r["model"] for r in rep["ranking"]] == [r["model"] for r in ref["ranking"]]


@pytest.fixture
def reference(tmp_path, clean_frame, analyze):
    p = tmp_path / "clean.csv"
    clean_frame().to_csv(p, index=False)
    code, _, _, rep = analyze(p)
    assert code == 0
    return rep


def test_pandas_index_column(tmp_path, clean_frame, analyze, reference):
    """Item 1: pandas' to_csv() writes 'Unnamed: 0'; it used to be analysed as a benchmark."""
    p = tmp_path / "s.csv"
    clean_frame().to_csv(p)
    code, out, _, rep = analyze(p, quiet=False)
    assert code == 0
    _same_numbers(rep, reference)
    assert any("Unnamed: 0" in n for n in rep["notes"])
    assert "Unnamed: 0" in out  # the note reaches the terminal


def test_id_and_date_columns(tmp_path, clean_frame, analyze, reference):
    d = clean_frame()
    d.insert(1, "id", np.arange(500, 560))
    d["date"] = "2024-05-01"
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    code, _, _, rep = analyze(p)
    assert code == 0
    _same_numbers(rep, reference)


def test_numbers_written_as_text(tmp_path, clean_frame, analyze, reference):
    """Item 2: '61.2%' and thousands separators were dropped silently as metadata."""
    d = clean_frame()
    d["bench_02"] = [f"{x!r}%" for x in d["bench_02"]]
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    code, _, _, rep = analyze(p)
    assert code == 0
    _same_numbers(rep, reference)
    assert any("percent strings" in n and "bench_02" in n for n in rep["notes"])


def test_aggregate_column(tmp_path, clean_frame, analyze, reference):
    """Item 3: an overall score computed from the others was analysed as one more benchmark."""
    d = clean_frame()
    d["overall_score"] = d.drop(columns="model").mean(axis=1)
    d["weighted"] = 0.7 * d["bench_01"] + 0.3 * d["bench_05"]
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    code, _, _, rep = analyze(p)
    assert code == 0
    _same_numbers(rep, reference)
    note = next(n for n in rep["notes"] if "aggregates" in n)
    assert "'overall_score'" in note and "'weighted'" in note


def test_duplicate_headers(tmp_path, clean_frame, analyze):
    """Item 4: b1,b1 became b1 and b1.1, two benchmarks."""
    p = tmp_path / "s.csv"
    clean_frame().rename(columns={"bench_03": "bench_02"}).to_csv(p, index=False)
    code, _, err, rep = analyze(p)
    assert code == 2 and rep is None
    assert err.strip().count("\n") == 0 and "column header 'bench_02' appears more than once" in err


def test_complete_refuses_when_it_cannot_beat_column_means(tmp_path, analyze):
    """Item 5: 95% missing of 20 benchmarks was filled worse than guessing, d_eff = 20 outside its CI."""
    rng = np.random.default_rng(0)
    import pandas as pd

    Y = rng.normal(50, 13, size=(400, 20))  # no low-rank structure: nothing to complete from
    Y[rng.random(Y.shape) < 0.95] = np.nan
    for i in range(Y.shape[0]):  # every model keeps one score so the loader accepts it
        if np.isnan(Y[i]).all():
            Y[i, rng.integers(20)] = rng.normal(50, 13)
    df = pd.DataFrame(Y, columns=[f"b{j}" for j in range(20)])
    df.insert(0, "model", [f"m{i}" for i in range(len(df))])
    p = tmp_path / "sparse.csv"
    df.to_csv(p, index=False)
    code, _, err, rep = analyze(p, "--missing", "complete")
    assert code == 2 and rep is None
    line = err.strip()
    assert "\n" not in line and "--missing complete" in line
    assert "needs at least n + 2k - 1" in line or "does not beat each benchmark's mean" in line


def test_complete_reports_its_cross_validated_error(tmp_path, clean_frame, analyze):
    d = clean_frame(n=80, k=6)
    mask = np.random.default_rng(1).random((80, 6)) < 0.15
    vals = d.drop(columns="model").to_numpy(copy=True)
    vals[mask] = np.nan
    d[d.columns[1:]] = vals
    p = tmp_path / "holes.csv"
    d.to_csv(p, index=False)
    code, _, _, rep = analyze(p, "--missing", "complete")
    assert code == 0
    c = rep["settings"]["completion"]
    assert c["cv_rmse_completion"] < c["cv_rmse_column_mean"]
    assert len(rep["filled_cells"]) == int(mask.sum())
    assert any("RMSE" in n and "each benchmark's mean" in n for n in rep["notes"])


def test_d_eff_point_always_inside_its_interval(tmp_path, analyze):
    """Independent benchmarks: d_eff near its maximum, where the percentile bootstrap sits below the point."""
    import pandas as pd

    X = np.random.default_rng(3).normal(size=(40, 10))
    df = pd.DataFrame(X, columns=[f"b{j}" for j in range(10)])
    df.insert(0, "model", [f"m{i}" for i in range(40)])
    p = tmp_path / "indep.csv"
    df.to_csv(p, index=False)
    code, _, _, rep = analyze(p, "--frontier", "0")
    assert code == 0
    v = rep["findings"]["d_eff_frontier"]["values"]
    assert v["ci_lo"] <= v["d_eff"] <= v["ci_hi"]
    lo, hi = v["ci_percentile"]
    assert v["ci_widened_to_point"] == (not lo <= v["d_eff"] <= hi)
    assert v["ci_widened_to_point"]  # this case is the one the rule exists for


@pytest.mark.parametrize("factor", [1.0, 3.0, 7.9, 9.99, 10.01, 12.0, 100.0, 1000.0])
def test_frontier_does_not_flip_at_any_scale(tmp_path, clean_frame, analyze, reference, factor):
    """Item 6: an Elo-like column's scale crossing the old 10x threshold changed the frontier.

    Every column is standardised, so the whole report is invariant to any column's units: the
    numbers are identical for every factor, on either side of any threshold one could choose.
    """
    d = clean_frame()
    d["bench_04"] = 1000 + factor * d["bench_04"]
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    code, _, _, rep = analyze(p)
    assert code == 0
    for key in ("d_eff_frontier", "radius_gap", "swap", "half_split", "leader_bootstrap", "greedy_subset"):
        a, b = rep["findings"][key]["values"], reference["findings"][key]["values"]
        for name, x in a.items():
            y = b[name]
            if isinstance(x, float):
                assert x == pytest.approx(y, rel=1e-6, abs=1e-9), (key, name)
            elif not isinstance(x, (list, dict)):
                assert x == y, (key, name)
    assert [r["model"] for r in rep["ranking"]] == [r["model"] for r in reference["ranking"]]


def test_mixed_units_and_outliers_are_warned(tmp_path, clean_frame, analyze):
    d = clean_frame(n=60)
    d["bench_01"] = (d["bench_01"] - d["bench_01"].min()) / (d["bench_01"].max() - d["bench_01"].min()) * 80 + 10
    d.loc[::2, "bench_01"] = d.loc[::2, "bench_01"] / 100  # half the rows as fractions
    d.loc[3, "bench_02"] = -999.0
    d.loc[7, "bench_03"] = 1e6
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    code, out, _, rep = analyze(p, quiet=False)
    assert code == 0
    w = rep["warnings"]
    assert any("'bench_01'" in x and "fractions and percentages" in x for x in w)
    assert any("'bench_02'" in x and "-999" in x for x in w)
    assert any("'bench_03'" in x and "1e+06" in x for x in w)
    assert "Check your input" in out
    assert "Check the 3 warning(s)" in " ".join(rep["advice"])


def test_clean_files_get_no_value_warnings(reference):
    assert reference["warnings"] == []


def test_exact_multiple_rows_do_not_break_the_figures(tmp_path, analyze):
    """Item 9: rank-one data (rows multiples of one vector) gave 'Too many bins for data range'."""
    import pandas as pd

    base = np.array([1.0, 2.0, 3.0, 5.0])
    X = np.outer(np.linspace(1, 3, 30), base)
    df = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    df.insert(0, "model", [f"m{i}" for i in range(30)])
    p = tmp_path / "rank1.csv"
    df.to_csv(p, index=False)
    code, _, err, rep = analyze(p)
    assert code == 0, err
    assert rep["findings"]["d_eff_full"]["values"]["d_eff"] == pytest.approx(1.0)
    assert rep["findings"]["greedy_subset"]["values"]["any_one_will_do"]


def test_seed_must_be_non_negative(tmp_path, clean_frame, analyze):
    p = tmp_path / "s.csv"
    clean_frame().to_csv(p, index=False)
    code, _, err, _ = analyze(p, "--seed", "-1")
    assert code == 2 and "--seed must be a non-negative integer, got -1" in err and err.count("\n") == 1


def test_n_boot_is_bounded(tmp_path, clean_frame, analyze):
    p = tmp_path / "s.csv"
    clean_frame().to_csv(p, index=False)
    code, _, err, _ = analyze(p, "--n-boot", "1000000000")
    assert code == 2 and "--n-boot must be between 2 and 100,000" in err and err.count("\n") == 1


def test_models_named_na_and_none(tmp_path, clean_frame, analyze):
    d = clean_frame()
    d.loc[0, "model"], d.loc[1, "model"] = "NA", "None"
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    code, _, _, rep = analyze(p, "--frontier", "0")
    assert code == 0 and rep["settings"]["n_models"] == 60


def test_long_format_gets_a_hint(tmp_path, clean_frame, analyze):
    p = tmp_path / "long.csv"
    clean_frame().melt(id_vars="model", var_name="benchmark", value_name="score").to_csv(p, index=False)
    code, _, err, _ = analyze(p)
    assert code == 2 and "long format" in err and "pivot_table" in err and err.count("\n") == 1


@pytest.mark.parametrize("sep,decimal,ext", [(";", ",", "csv"), ("\t", ".", "csv")])
def test_delimiter_problems(tmp_path, clean_frame, analyze, reference, sep, decimal, ext):
    p = tmp_path / f"s.{ext}"
    clean_frame().to_csv(p, sep=sep, decimal=decimal, index=False)
    code, _, _, rep = analyze(p)
    assert code == 0
    _same_numbers(rep, reference)
    assert any("separated by" in n for n in rep["notes"])


@pytest.mark.parametrize("shape", ["json-nested", "parquet-index"])
def test_json_and_parquet_shapes(tmp_path, clean_frame, analyze, reference, shape):
    d = clean_frame().set_index("model")
    if shape == "json-nested":
        p = tmp_path / "s.json"
        p.write_text(json.dumps({m: row.to_dict() for m, row in d.iterrows()}))
    else:
        p = tmp_path / "s.parquet"
        d.to_parquet(p)
    code, _, _, rep = analyze(p)
    assert code == 0
    _same_numbers(rep, reference)


def test_hostile_names_are_escaped(tmp_path, clean_frame, analyze):
    d = clean_frame()
    best = d.drop(columns="model").mean(axis=1).idxmax()
    d.loc[best, "model"] = "<script>alert(1)</script>"  # the leader: its name is on the page
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    code, _, _, rep = analyze(p, "--frontier", "0")
    assert code == 0
    html_text = next(tmp_path.glob("out*/report.html")).read_text()
    assert "<script>" not in html_text and "&lt;script&gt;" in html_text


def test_completion_works_on_standardised_columns(tmp_path, clean_frame, analyze):
    """An Elo column beside percentages: completion (and its error) must not be run in the Elo's units."""
    d = clean_frame(n=120, k=6, seed=4)
    d["bench_06"] = 1000 + 40 * d["bench_06"]  # Elo-like scale
    vals = d.drop(columns="model").to_numpy(copy=True)
    mask = np.random.default_rng(2).random(vals.shape) < 0.3
    vals[mask] = np.nan
    d[d.columns[1:]] = vals
    p = tmp_path / "mixed_holes.csv"
    d.to_csv(p, index=False)
    code, _, _, rep = analyze(p, "--missing", "complete")
    assert code == 0
    c = rep["settings"]["completion"]
    assert c["sd_observed"] == pytest.approx(1.0) and c["cv_rmse_completion"] < 0.9 * c["cv_rmse_column_mean"]
    assert rep["warnings"] == []  # warnings look at the file's values, not at the filled ones
    assert any("filled by low-rank completion" in s for s in rep["advice"])
