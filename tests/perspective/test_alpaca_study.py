"""blindspot.perspective.alpaca_study: AlpacaEval's population, embedding cost, win-rate sweeps and judge gaming."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.perspective import adversarial, alpaca, alpaca_study as st, winrate
from blindspot.perspective.pool_embedding import EmbeddingReport
from blindspot.perspective.response_variance import response_variance


@pytest.fixture(scope="module")
def synth():
    return alpaca.synthetic_alpaca_eval(seed=2, n_models=30, n_families=10, n_queries_per_task=4)


@pytest.fixture(scope="module")
def view(synth):
    data = st.alpaca_population(synth, None, 4)
    recs = synth.responses[synth.responses.model_id.isin(data.population)].reset_index(drop=True)
    kw = dict(seeds=(0,), n_jobs=1)
    paired = winrate.winrate_study(recs, synth.models, synth.task_weights, ms=data.ms, **kw)
    unpaired = winrate.winrate_study(
        recs, synth.models, synth.task_weights, ms=(1, 2), methods=("DKPS", "PKPS"), paired=False, **kw
    )
    shares = response_variance(recs)
    return st.WinRateView(paired, unpaired, data.ms, 1, data.n_scored, len(data.population), shares.query)


def test_the_population_counts_what_the_model_table_holds(synth):
    data = st.alpaca_population(synth, None, 4)
    q = data.quantities()
    models = synth.models
    assert data.ms == (1, 2, 4) and q["ms_text"] == "1, 2, 4" and q["pool2"] == 8
    assert q["n_population"] == len(set(data.keep) & set(synth.population))
    assert q["n_scored"] == int((models.loc[data.population, "n_scored"] > 0).sum()) == data.n_scored
    assert q["n_leaderboard"] == int(models.win_rate.notna().sum())
    assert data.kinds_table().index[0] == "population" and data.kinds_table()["models"].sum() == len(models)
    with pytest.raises(ValueError, match="pool_size"):
        st.alpaca_population(synth, None, 0)


def _report(n, embedded, seconds, provider="sentence-transformers"):
    return EmbeddingReport(n, n, embedded, seconds, provider, 64, 384)


def test_embedding_cost_projects_texts_over_the_measured_rates():
    emb, warm = _report(1000, 1000, 50.0), _report(1000, 0, 0.5)
    calib = {64: _report(100, 100, 2.0), 128: _report(100, 100, 4.0)}  # 50 and 25 texts per second
    cost = st.EmbeddingCost("sentence-transformers", emb, warm, calib, 64, 16)
    opts = cost.options_table()
    assert list(opts["projected cold minutes"].round(6)) == pytest.approx(
        [1000 / 50 / 60, 1000 / 25 / 60, 2000 / 50 / 60]
    )
    q = cost.quantities()
    assert (q["rate_lo"], q["rate_hi"], q["proj_chosen"]) == ("50", "25", f"{1000 / 50 / 60:.1f}")
    assert q["cold_n"] == 1000 and q["cold_rate"] == "20"  # this build was cold: its own rate
    assert cost.runs_table().loc["embedded", "rerun from the cache"] == 0


def test_a_precomputed_stand_in_measures_nothing(synth):
    rows = synth.responses[synth.responses.model_id.isin(synth.population[:3])].reset_index(drop=True)
    records, cost = st.embed_pool_timed(rows, "hash", 64, 4, sample_size=5)
    assert not cost.measured and cost.calib == {} and len(records) == len(rows)
    q = cost.quantities()
    assert q["rate_lo"] == q["proj_pool"] == "not measured" and cost.options_table().empty


def test_shares_are_percent_of_the_sum_of_squares(synth):
    shares = response_variance(synth.responses[synth.responses.model_id.isin(synth.population)])
    q = st.share_quantities(shares)
    assert sum(q.values()) == pytest.approx(100.0) and q["query"] == 100 * shares.query
    assert st.shares_table(shares).sum() == pytest.approx(1.0)


def test_the_view_names_the_study_s_numbers(view):
    q = view.quantities()
    s = view.study
    assert q["mae1_PKPS_family"] == s.mae("PKPS", 1) and q["maehi_DKPS_model"] == s.mae("DKPS", 4, holdout="model")
    assert q["ratio"] == pytest.approx(s.mae("SampleScore", 1) / s.mae("DKPS", 1))
    assert q["gain"] == pytest.approx((s.mae("DKPS", 1) - s.mae("PKPS", 1)) / s.mae("DKPS", 1))
    assert q["un_diff"] == view.unpaired.difference("PKPS", "DKPS", 1, eval_set="all")[0]
    assert q["adv_paired"] == pytest.approx(s.mae("LRMC", 1, eval_set="all") - s.mae("PKPS", 1, eval_set="all"))
    assert q["best_m1"] == min(winrate.METHODS, key=lambda k: s.mae(k, 1)) and q["m_hi"] == 4
    claims = view.claims(None)
    assert claims["AE.T1.ratio.m1"].value == q["ratio"] and claims["AE.T1.ratio.m1"].data is None
    assert view.ordering().holds == (
        s.mae("SampleScore", 1) > s.mae("DKPS", 1) and s.mae("PKPS", 1) >= s.mae("Ensemble", 1)
    )
    assert view.unpaired_verdict().test.estimate == q["un_diff"]
    paper = view.paper_table({"SampleScore": 0.1, "IRT": 0.2})
    assert list(paper.index)[-1] == "IRT" and np.isnan(paper.iloc[-1, 1])
    assert st.protocol_tables(s).shape[0] == 4 * len(winrate.METHODS)  # 2 targets x 2 holdouts


def test_judge_gaming_reads_nullmodel_from_the_picture(synth):
    pic = adversarial.adversarial_picture(synth.responses, synth.models, synth.task_weights)
    g = st.JudgeGaming(pic, 30.0, 64)
    q = g.quantities()
    null = pic.excluded.loc["NullModel"]
    assert (q["null_y"], q["null_hat"], q["null_z"]) == (null.y, null.y_hat, null.gap_z)
    assert q["null_where"] == ("weak" if null.y_hat < 30.0 else "strong") and q["mae"] == pic.population_mae
    assert q["gamed_verdict"] == "not in these data" and np.isnan(q["gamed_y"])
    assert list(g.table().gap_z) == sorted(g.table().gap_z, reverse=True)
    board = alpaca.leaderboard(synth)
    pop = [m for m in synth.population if m in board.scores.index]
    g2 = st.judge_gaming(pic, board, pop, 64)
    assert g2.median_win_rate == pytest.approx(float(np.median(board.scores.loc[pop, "win_rate"])))
