"""The survey of leaderboards (blindspot.survey, blindspot survey): known answers, '—' with reasons, the command.

Every number of a survey row is read off the report of ``blindspot analyze``, so the closed-form tests
check the pipeline end to end, and one test checks the row against ``blindspot.analyze`` itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import blindspot
from blindspot.cli import main
from blindspot.data.suites import synthetic_suite
from blindspot.data.tables import ScoreTable
from blindspot.report import survey as survey_mod
from blindspot.report.survey import table as survey_table

ROOT = Path(__file__).resolve().parents[2]


def _table(X: np.ndarray, name: str = "t") -> ScoreTable:
    n, k = X.shape
    idx = pd.Index([f"model-{i:04d}" for i in range(n)], name="model")
    scores = pd.DataFrame(X, index=idx, columns=[f"b{j}" for j in range(k)])
    return ScoreTable(scores, pd.DataFrame(index=idx), name, "test")


def _blocks(n: int, k: int, r: int, noise_var: float, seed: int) -> np.ndarray:
    """K benchmarks in r equal blocks; each loads 1 on its block's factor (r independent factors) plus noise."""
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, r))
    return np.repeat(F, k // r, axis=1) + rng.normal(scale=np.sqrt(noise_var), size=(n, k))


def test_planted_rank_r_gives_the_closed_form_d_eff():
    """R = 2 blocks of b = 3 benchmarks, within-block correlation rho = 1 / (1 + s^2) = 0.8, none between blocks:
    d_eff = k / (1 + (b - 1) rho^2) = 6 / 2.28 (eigenvalues 1 + 2 rho twice, 1 - rho four times), and exactly
    r = 2 eigenvalues stand above the Marchenko-Pastur edge."""
    k, r, s2 = 6, 2, 0.25
    rho = 1 / (1 + s2)
    closed = k / (1 + (k // r - 1) * rho**2)
    sv = blindspot.survey({"planted": _table(_blocks(4000, k, r, s2, seed=1))}, n_boot=200)
    row = sv.table.loc["planted"]
    assert row["d_eff_all"] == pytest.approx(closed, abs=0.06)
    assert row["d_eff_all_lo"] <= closed <= row["d_eff_all_hi"]
    assert row["mp_signal_all"] == r
    assert row["not_computed"] == ""


def test_one_direction_gives_d_eff_one_and_a_greedy_subset_of_one():
    rng = np.random.default_rng(2)
    g = rng.normal(size=(300, 1))
    X = g + 0.05 * rng.normal(size=(300, 5))
    sv = blindspot.survey({"one": _table(X)}, n_boot=100)
    row = sv.table.loc["one"]
    assert row["d_eff_all"] == pytest.approx(1.0, abs=0.02)
    assert row["d_eff_frontier"] == pytest.approx(1.0, abs=0.05)
    assert row["mp_signal_frontier"] == 1
    assert row["greedy_k90"] == 1 and row["any_one_will_do"]
    assert sv.summary.loc["one", "greedy, 90%"] == "1 of 5 (any one)"


def test_too_small_leaderboards_get_a_dash_and_the_reason():
    tiny = synthetic_suite(n_models=4, n_benchmarks=6, seed=2)
    narrow = synthetic_suite(n_models=12, n_benchmarks=8, seed=3)  # 12 models, but a frontier of 6 for 8 benchmarks
    sv = blindspot.survey({"tiny": tiny, "narrow": narrow}, n_boot=50)
    t, s = sv.table, sv.summary
    assert pd.isna(t.loc["tiny", "d_eff_all"]) and pd.isna(t.loc["tiny", "d_eff_frontier"])
    assert s.loc["tiny", "d_eff, frontier (95%)"] == "—" and s.loc["tiny", "greedy, 90%"] == "—"
    assert "d_eff (all models): needs more models than benchmarks (7 for 6 benchmarks, has 4)" in sv.reasons["tiny"]
    assert "halves agree on #1: needs at least 5 frontier models" in sv.reasons["tiny"]
    # the narrow one: all models computed, the frontier's spectrum not (6 models for 8 benchmarks)
    assert np.isfinite(t.loc["narrow", "d_eff_all"])
    assert pd.isna(t.loc["narrow", "d_eff_frontier"]) and pd.isna(t.loc["narrow", "delta_vis"])
    assert "d_eff (frontier): needs more models than benchmarks (9 for 8 benchmarks, has 6)" in sv.reasons["narrow"]
    assert "—" not in sv.to_csv()  # the CSV leaves a statistic not computed empty
    assert sv.details.loc["tiny", "2Rω"] == "—"


def test_leader_counts_count_each_measurement_at_the_threshold_and_skip_a_dash():
    table = pd.DataFrame(
        {
            "top1_resolved": [True, False, None, False],
            "top1_kept_share": [0.95, 0.9, None, 0.5],
            "top1_halves_agree": [0.92, 0.4, None, None],
        },
        index=["a", "b", "c", "d"],
    )
    counts = survey_mod.leader_counts(table)
    assert counts == {"n_leader": 3, "n_resolved": 1, "n_kept": 2, "n_split": 2, "n_halves": 1}
    assert survey_mod.leader_counts(table, threshold=0.96)["n_kept"] == 0
    with pytest.raises(ValueError, match="no column"):
        survey_mod.leader_counts(table.drop(columns="top1_resolved"))


def test_a_row_is_the_report_of_blindspot_analyze():
    t = synthetic_suite(n_models=90, n_benchmarks=7, n_factors=3, seed=4)
    row = blindspot.survey({"s": t}, n_boot=80, seed=3).table.loc["s"]
    rep = blindspot.analyze(t, n_boot=80, seed=3)
    assert row["d_eff_frontier"] == rep.d_eff
    assert (row["d_eff_frontier_lo"], row["d_eff_frontier_hi"]) == rep.d_eff_interval
    assert row["greedy_k90"] == rep.finding("greedy_subset").values["r"]
    assert row["delta_vis"] == rep.finding("radius_gap").values["delta_vis"]
    assert row["top1_halves_agree"] == 1 - rep.finding("half_split").values["top1_disagree"]
    assert row["leader"] == rep.top_model


def _sparse(X: np.ndarray, share: float, seed: int) -> ScoreTable:
    rng = np.random.default_rng(seed)
    Y = X.copy()
    Y[rng.random(Y.shape) < share] = np.nan
    return _table(Y)


def test_sparse_leaderboards_are_completed_when_the_check_passes_else_a_complete_block():
    low_rank = _sparse(_blocks(150, 12, 3, 0.05, seed=5), 0.2, seed=6)
    noise = _sparse(np.random.default_rng(7).normal(size=(150, 8)), 0.2, seed=8)
    sv = blindspot.survey({"low rank": low_rank, "noise": noise}, n_boot=50)
    t = sv.table
    assert t.loc["low rank", "cells_used"] == "completed"
    assert "beats the column means'" in t.loc["low rank", "missing_handling"]
    assert t.loc["low rank", "n_analysed"] == 150 and t.loc["low rank", "k_analysed"] == 12
    assert t.loc["noise", "cells_used"] == "complete block"
    assert (
        "completion not used: the completion does not beat each benchmark's mean" in t.loc["noise", "missing_handling"]
    )
    n, k = int(t.loc["noise", "n_analysed"]), int(t.loc["noise", "k_analysed"])
    assert n >= 4 * k  # the block's bound
    assert sv.summary.loc["noise", "models × k"] == f"{n} × {k} (block)"
    assert set(sv.handling.index) == {"low rank", "noise"}


def test_a_few_missing_cells_in_few_benchmarks_leave_the_complete_rows():
    """K = 5 < the 5 observed benchmarks a completable model needs once a cell is missing: the completable part is
    the complete rows, analysed as they are (the your-data edition's chapter stopped on a missing 'completion')."""
    X = _blocks(200, 5, 1, 0.3, seed=3)
    X[np.arange(0, 40, 2), np.arange(20) % 5] = np.nan  # 20 models lose one cell each
    sv = blindspot.survey({"few": _table(X)}, n_boot=20)
    t = sv.table
    assert t.loc["few", "cells_used"] == "complete rows"
    assert t.loc["few", "n_analysed"] == 180 and t.loc["few", "k_analysed"] == 5
    full = blindspot.analyze(_table(X[~np.isnan(X).any(axis=1)]), n_boot=20)
    assert t.loc["few", "d_eff_all"] == pytest.approx(full.finding("d_eff_full").values["d_eff"])


def test_inputs_paths_folders_and_frames(tmp_path):
    a = synthetic_suite(n_models=40, n_benchmarks=5, seed=1).scores.reset_index()
    b = synthetic_suite(n_models=30, n_benchmarks=4, seed=2).scores
    folder = tmp_path / "shelf"
    folder.mkdir()
    a.to_csv(folder / "first.csv", index=False)
    b.to_parquet(folder / "second.parquet")
    sv = blindspot.survey(folder, n_boot=20)
    assert list(sv.table.index) == ["first", "second"]
    assert sv.inputs == [str(folder / "first.csv"), str(folder / "second.parquet")]
    sv2 = blindspot.survey([folder / "first.csv", b], n_boot=20)
    assert list(sv2.table.index) == ["first", "frame 2"]
    assert sv2.table.loc["first", "d_eff_all"] == sv.table.loc["first", "d_eff_all"]
    with pytest.raises(ValueError, match="does not exist"):
        blindspot.survey(tmp_path / "nope.csv")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holding no score file"):
        blindspot.survey(tmp_path / "empty")
    with pytest.raises(ValueError, match="--n-boot"):
        blindspot.survey(folder, n_boot=1)


def test_the_html_display_and_repr():
    sv = blindspot.survey({"a": synthetic_suite(n_models=40, n_benchmarks=5, seed=1)}, n_boot=20)
    page = sv._repr_html_()
    assert page.startswith("<div class='blindspot-survey'>") and page.count("data:image/png;base64,") == 2
    assert "<th>models × k</th>" in page and "mean z-score" in page
    assert repr(sv) == "<blindspot Survey of 1 leaderboard(s): a>"


# ---------------------------------------------------------------------------------------------
# the command


@pytest.fixture
def shelf(tmp_path):
    paths = []
    for i, (n, k) in enumerate([(40, 5), (5, 6), (60, 4)]):
        p = tmp_path / f"board{i}.csv"
        synthetic_suite(n_models=n, n_benchmarks=k, seed=i).scores.reset_index().to_csv(p, index=False)
        paths.append(p)
    return paths


def test_the_command_writes_what_the_api_computes(shelf, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["survey", *map(str, shelf), "--out", str(out), "--n-boot", "40", "--seed", "2", "--quiet"])
    assert code == 0 and sorted(os.listdir(out)) == ["survey.csv", "survey.html"]
    sv = blindspot.survey(shelf, n_boot=40, seed=2)
    assert (out / "survey.csv").read_text() == sv.to_csv()
    assert (out / "survey.html").read_text() == sv.to_html()
    back = pd.read_csv(out / "survey.csv", index_col=0)
    assert list(back.index) == ["board0", "board1", "board2"]
    assert back.loc["board0", "d_eff_frontier"] == pytest.approx(sv.table.loc["board0", "d_eff_frontier"], rel=1e-9)
    # save() writes the same pair
    again = sv.save(tmp_path / "again")
    assert [p.read_text() for p in again] == [(out / n).read_text() for n in ("survey.html", "survey.csv")]


def test_bad_input_exits_2_with_one_line_before_any_work(shelf, tmp_path, capsys, monkeypatch):
    def boom(*a, **k):
        raise AssertionError("the survey started before its inputs were checked")

    monkeypatch.setattr(survey_table, "survey", boom)
    cases = [
        (["survey", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "o1")], "does not exist"),
        (["survey", str(shelf[0]), "--n-boot", "1", "--out", str(tmp_path / "o2")], "--n-boot"),
        (["survey", str(shelf[0]), "--frontier", "1.5", "--out", str(tmp_path / "o3")], "--frontier"),
        (["survey", str(shelf[0]), "--out", str(shelf[1])], "is an existing file"),
    ]
    for argv, what in cases:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and what in err and err.startswith("blindspot: error: ")


def test_an_unreadable_file_is_a_row_with_its_reason_and_the_survey_goes_on(shelf, tmp_path, capsys):
    """One leaderboard the reader refuses no longer refuses the survey (exit 2 before)."""
    bad = tmp_path / "bad.csv"
    bad.write_text("model,a,b\nx,1,oops\ny,2,3\nz,3,4\n")
    out = tmp_path / "out"
    assert main(["survey", str(shelf[0]), str(bad), "--out", str(out), "--quiet"]) == 0
    table = pd.read_csv(out / "survey.csv", index_col=0)
    assert "could not be read" in table.loc["bad", "not_computed"] and "oops" in table.loc["bad", "not_computed"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_nothing_readable_exits_2_and_writes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("model,a,b\nx,1,oops\ny,2,3\nz,3,4\n")
    out = tmp_path / "out"
    assert main(["survey", str(bad), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.csv" in err
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_an_interrupt_leaves_nothing_behind(shelf, tmp_path, capsys, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(survey_table, "survey_tables", interrupted)
    out = tmp_path / "out"
    out.mkdir()
    (out / "survey.csv").write_text("old")
    assert main(["survey", str(shelf[0]), "--out", str(out), "--quiet"]) == 130
    assert "no survey was written" in capsys.readouterr().err
    assert sorted(os.listdir(out)) == ["survey.csv"] and (out / "survey.csv").read_text() == "old"


def test_survey_help_loads_none_of_the_numerics():
    env = {**os.environ, "PYTHONPATH": str(ROOT / "support")}
    res = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "blindspot", "survey", "--help"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0 and "usage: blindspot survey" in res.stdout
    loaded = {line.split("|")[-1].strip().split(".")[0] for line in res.stderr.splitlines() if "|" in line}
    assert "blindspot" in loaded
    assert loaded & {"numpy", "pandas", "scipy", "matplotlib", "sklearn", "torch"} == set()


def test_the_eee_store_is_one_row_per_leaderboard(data_dir):
    root = data_dir / "eee_aggregate"
    if not root.is_dir():
        pytest.skip("no eee_aggregate folder in the data directory")
    tables, files = survey_mod.read_leaderboards([root])
    assert sorted(tables) == sorted(p.name for p in root.iterdir() if p.is_dir())
    assert (
        tables["hfopenllm_v2"].n_models == 4494 and tables["hfopenllm_v2"].n_benchmarks == 6
    )  # 4,496 ids, two pairs differing only in case merged (one identity rule)


def test_the_table_is_the_same_whatever_n_jobs():
    tables = {
        "a": synthetic_suite(n_models=50, n_benchmarks=5, seed=1),
        "b": _sparse(_blocks(80, 6, 2, 0.1, seed=3), 0.15, seed=4),
        "c": synthetic_suite(n_models=5, n_benchmarks=6, seed=2),
    }
    one = survey_mod.survey_tables(tables, n_boot=30)
    two = survey_mod.survey_tables(tables, n_boot=30, n_jobs=2)
    assert list(two.table.index) == ["a", "b", "c"]
    assert one.to_csv() == two.to_csv()


def test_a_tie_at_the_top_is_reported_as_a_tie_not_as_unresolved():
    """LiveCodeBench Pro's case: two models tie at the top of one benchmark, so the halves' agreement on #1 is
    decided by row order; the row says 'tie', and #1's resolution is not counted either way."""
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 0.5, size=(30, 3))
    X[0] = [0.7, 0.7, 0.9014]  # B, first in row order
    X[1] = [1.0, 1.0, 0.9014]  # A, #1 by its mean z-score
    sv = blindspot.survey({"tied": _table(X)}, n_boot=50)
    r = sv.table.loc["tied"]
    assert r["leader"] == "model-0001" and pd.isna(r["top1_resolved"])
    assert "b2: model-0000, model-0001 tie at 0.9014" in r["leader_tie"]
    assert sv.summary.loc["tied", "#1 resolved"] == "tie"
    values = sv.verdicts().quantities()
    assert values["n_tied"] == 1 and values["n_leader"] == 0


def test_the_frontier_gap_is_paired_and_a_completed_row_shows_its_fill():
    from blindspot.diagnose.survey_estimates import frontier_estimates, frontier_gap

    X = _blocks(150, 12, 3, 0.05, seed=5)
    sv = blindspot.survey({"full": _table(X), "sparse": _sparse(X, 0.2, seed=6)}, n_boot=50)
    t = sv.table
    g = frontier_gap(_table(X), 0.5, n_boot=50, seed=0)
    assert (t.loc["full", "frontier_gap"], t.loc["full", "frontier_gap_lo"]) == pytest.approx((g.value, g.lo))
    assert t.loc["full", "frontier_gap"] == pytest.approx(t.loc["full", "d_eff_frontier"] - t.loc["full", "d_eff_all"])
    assert t.loc["full", "filled_share"] == 0 and pd.isna(t.loc["full", "d_eff_block"])
    assert t.loc["sparse", "cells_used"] == "completed" and 0 < t.loc["sparse", "filled_share"] < 1
    observed = _sparse(X, 0.2, seed=6)
    rows = observed.rows(~np.isnan(observed.values).any(axis=1))
    fe = frontier_estimates(rows, 0.5, n_boot=50, seed=0)
    if fe.d_eff_frontier is not None:
        assert t.loc["sparse", "d_eff_complete_rows"] == pytest.approx(fe.d_eff_frontier.value)
    assert list(sv.fill.index) == ["sparse"] and sv.fill.loc["sparse", "filled, frontier"].endswith("%")
    assert t.loc["sparse", "fill_flag"] == "" or t.loc["sparse", "fill_flag"].startswith(("band", "frontier"))


def test_the_statements_are_judged_on_the_survey_and_glued_by_name():
    tables = {f"b{i}": _table(_blocks(200, k, 2, 0.3, seed=i)) for i, k in enumerate((4, 6, 8, 10))}
    sv = blindspot.survey(tables, n_boot=50)
    v = sv.verdicts()
    assert set(v.verdicts()) == {"PL.deff_band", "PL.deff_slower_than_k", "PL.frontier_exceeds_population"}
    assert all(
        x.basis == "statistical" and x.test is not None and x.robustness.total >= 5 for x in v.verdicts().values()
    )
    values = v.quantities()
    band = v.band.counts()
    assert values["band_inside"] == band.get("inside", 0) and values["n_boards"] == 4
    assert values["growth_slope"] == f"{v.growth.verdict.test.estimate:.3g}"


def test_every_value_is_there_when_no_statement_can_be_judged():
    """A shelf of one tiny leaderboard: no frontier d_eff, no fit; the chapter's names are all there, saying so."""
    sv = blindspot.survey({"tiny": synthetic_suite(n_models=4, n_benchmarks=6, seed=2)}, n_boot=20)
    v = sv.verdicts()
    assert v.verdicts() == {}
    values = v.quantities()
    assert values["band_status"] == values["growth_status"] == values["front_status"] == "not judged"
    assert values["band_inside"] == 0 and values["front_n"] == 0 and values["growth_slope"].startswith("—")
    full = blindspot.survey({"a": _table(_blocks(200, 6, 2, 0.3, seed=1))}, n_boot=20).verdicts().quantities()
    assert set(values) == set(full)
