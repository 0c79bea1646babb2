"""blindspot.perspective.winrate: the query-efficiency protocol on AlpacaEval-shaped data."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from blindspot.perspective import alpaca, winrate
from dkps import LRMC, PKPS, Ensemble, SampleScore


@pytest.fixture(scope="module")
def synth():
    d = alpaca.synthetic_alpaca_eval(seed=2, n_models=30, n_families=10, n_queries_per_task=6)
    recs = d.responses[d.responses.model_id.isin(d.population)].reset_index(drop=True)
    return d, recs


# ------------------------------------------------------------------------------------ sampling
def test_paired_sample_shares_queries_and_is_nested_in_m(synth):
    _, recs = synth
    s2 = winrate.sample_pool(recs, 2, seed=0)
    s4 = winrate.sample_pool(recs, 4, seed=0)
    assert (s2.groupby(["model_id", "task_id"]).size() == 2).all()
    per_task = s2.groupby("task_id").query_id.nunique()
    assert (per_task == 2).all()  # every model answers the same 2 queries per task
    assert set(zip(s2.task_id, s2.query_id)) <= set(zip(s4.task_id, s4.query_id))
    other = winrate.sample_pool(recs, 2, seed=1)
    assert set(zip(other.task_id, other.query_id)) != set(zip(s2.task_id, s2.query_id))
    full = winrate.sample_pool(recs, 99, seed=0)
    assert len(full) == len(recs)  # m above the pool keeps every row
    for bad in (0, 1.0, True):
        with pytest.raises(ValueError, match="m must be an int"):
            winrate.sample_pool(recs, bad, seed=0)


def test_unpaired_sample_draws_per_cell(synth):
    _, recs = synth
    s = winrate.sample_pool(recs, 2, seed=0, paired=False)
    assert (s.groupby(["model_id", "task_id"]).size() == 2).all()
    assert (s.groupby("task_id").query_id.nunique() > 2).all()  # models answer different queries
    # the expected share of a model's queries that another model also has is m / pool = 1/3
    a = s.groupby(["model_id", "task_id"]).query_id.apply(frozenset).unstack()
    shared = [len(a.iloc[i, t] & a.iloc[j, t]) / 2 for i in range(len(a)) for j in range(i) for t in range(a.shape[1])]
    assert abs(np.mean(shared) - 2 / 6) < 0.05


def test_targets_and_aggregation_closed_forms(synth):
    d, recs = synth
    r = winrate.target_records(recs, d.models, "lc_win_rate")
    want = d.models.lc_win_rate.reindex(r.model_id).to_numpy() / 100
    np.testing.assert_array_equal(r.reference_score.to_numpy(), want)
    with pytest.raises(ValueError, match="target must be one of"):
        winrate.target_records(recs, d.models, "elo")
    with pytest.raises(ValueError, match="not in the model table"):
        winrate.target_records(recs.assign(model_id="stranger"), d.models, "win_rate")
    bad = d.models.copy()
    bad.loc[recs.model_id.iloc[0], "win_rate"] = np.nan
    with pytest.raises(ValueError, match="have no win_rate"):
        winrate.target_records(recs, bad, "win_rate")
    w = pd.Series({"a": 0.5, "b": 0.3, "c": 0.2})
    pred = pd.DataFrame(
        {
            "model_id": ["x"] * 3 + ["y"] * 3 + ["z"] * 3,
            "task_id": list("abc") * 3,
            "score_hat": [0.1, 0.2, 0.3, 0.4, np.nan, 0.6, np.nan, np.nan, np.nan],
        }
    )
    agg = winrate.aggregate_models(pred, w)
    assert agg["x"] == pytest.approx(0.5 * 0.1 + 0.3 * 0.2 + 0.2 * 0.3)
    assert agg["y"] == pytest.approx((0.5 * 0.4 + 0.2 * 0.6) / 0.7)  # renormalised over defined tasks
    assert np.isnan(agg["z"])
    with pytest.raises(ValueError, match="without a weight"):
        winrate.aggregate_models(pred.assign(task_id="q"), w)


def test_ensemble_groups_rule():
    fam = {"a1": "A", "a2": "A", "b1": "B", "c1": "C"}
    g = winrate.ensemble_groups(fam, {"a2"}, "family")
    assert g == {"a1": "A", "a2": "A", "b1": winrate.NO_SCORES_GROUP, "c1": winrate.NO_SCORES_GROUP}
    g = winrate.ensemble_groups(fam, {"a2", "c1"}, "model")
    assert g == {"a1": winrate.NO_SCORES_GROUP, "a2": "a2", "b1": winrate.NO_SCORES_GROUP, "c1": "c1"}
    with pytest.raises(ValueError, match="holdout must be one of"):
        winrate.ensemble_groups(fam, set(), None)


# ------------------------------------------------------------------------------------ exactness
def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn()


@pytest.mark.parametrize("holdout", ["model", "family"])
def test_merged_groups_ensemble_equals_the_plain_one_on_scored_models(synth, holdout):
    d, recs = synth
    r = winrate.target_records(winrate.sample_pool(recs, 2, seed=0), d.models, "win_rate")
    fam = dict(zip(r.model_id, r.family))
    scored = set(r.model_id[r.score.notna()])
    assert 3 <= len(scored) < r.model_id.nunique()
    cells = pd.DataFrame({"model_id": sorted(scored)})
    plain = _quiet(lambda: Ensemble([PKPS(), SampleScore()], holdout=holdout).fit(r).predict(cells, as_frame=True))
    groups = winrate.ensemble_groups(fam, scored, holdout)
    trick = _quiet(
        lambda: (
            Ensemble([PKPS(), SampleScore()], holdout="family", family_fn=groups.__getitem__)
            .fit(r)
            .predict(cells, as_frame=True)
        )
    )
    np.testing.assert_allclose(trick.score_hat.to_numpy(), plain.score_hat.to_numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("holdout", ["model", "family"])
def test_lrmc_with_a_hidden_row_is_the_other_rows_task_mean_for_any_lambda(synth, holdout):
    d, recs = synth
    r = winrate.target_records(winrate.sample_pool(recs, 1, seed=0), d.models, "win_rate")
    fam = dict(zip(r.model_id, r.family))
    f = (lambda m: m) if holdout == "model" else (lambda m: fam[m])
    est = _quiet(lambda: LRMC().fit(r))
    cells = pd.DataFrame({"model_id": est.model_names_})
    fit = est.predict(cells, holdout="family", family_fn=f, selection="fit", as_frame=True)
    nested = est.predict(cells, holdout="family", family_fn=f, selection="nested", as_frame=True)
    np.testing.assert_allclose(fit.score_hat, nested.score_hat, atol=1e-10)
    y = est.targets_
    groups = pd.Series({m: f(m) for m in est.model_names_})
    want = [y[groups != groups[m]][t].mean() for m, t in zip(fit.model_id, fit.task_id)]
    np.testing.assert_allclose(fit.score_hat, want, atol=1e-10)  # the per-task mean of the other groups


# ------------------------------------------------------------------------------------ protocol
def test_held_out_predictions_never_read_the_held_out_targets(synth):
    """The dkps leakage contract: changing a held-out model's (or family's) targets leaves its predictions alone."""
    d, recs = synth
    r = winrate.sample_pool(recs, 2, seed=0)
    scored = sorted(set(r.model_id[r.score.notna()]))
    x = scored[0]
    w = d.task_weights
    base, _, _ = _quiet(lambda: winrate.predict_models(winrate.target_records(r, d.models, "win_rate"), w))
    for holdout in ("model", "family"):
        hide = [x] if holdout == "model" else [m for m in d.models.index if d.models.family[m] == d.models.family[x]]
        m2 = d.models.copy()
        m2.loc[hide, "win_rate"] = 100 - m2.loc[hide, "win_rate"]
        p2, _, _ = _quiet(
            lambda: winrate.predict_models(winrate.target_records(r, m2, "win_rate"), w, holdouts=(holdout,))
        )
        a = base[(base.holdout == holdout) & (base.model_id == x)].set_index("method").y_hat
        b = p2[p2.model_id == x].set_index("method").y_hat
        np.testing.assert_allclose(b[a.index], a, atol=1e-12)
        other = p2[(p2.model_id != x) & ~p2.model_id.isin(hide)].set_index(["method", "model_id"]).y_hat
        ref = base[base.holdout == holdout].set_index(["method", "model_id"]).y_hat.reindex(other.index)
        assert (other - ref).abs().max() > 1e-6  # non-vacuous: other models' predictions do move


def test_study_summary_matches_an_independent_recomputation(synth):
    d, recs = synth
    st = winrate.winrate_study(recs, d.models, d.task_weights, ms=(1, 6), seeds=(0, 1), targets=("win_rate",))
    assert st.summary[st.summary.m == 6].n_seeds.eq(1).all()  # the whole pool: one run
    assert st.summary[st.summary.m == 1].n_seeds.eq(2).all()
    r = st.runs[(st.runs.m == 1) & (st.runs.holdout == "family") & (st.runs.method == "PKPS") & st.runs.scored]
    per_model = (100 * (r.y_hat - r.y)).abs().groupby(r.model_id).mean()
    assert st.mae("PKPS", 1) == pytest.approx(per_model.mean())
    assert st.se("PKPS", 1) == pytest.approx(per_model.std(ddof=1) / np.sqrt(len(per_model)))
    e = st.model_errors(1)
    diff, se = st.difference("SampleScore", "PKPS", 1)
    dd = (e.SampleScore - e.PKPS).dropna()
    assert diff == pytest.approx(dd.mean()) and se == pytest.approx(dd.std(ddof=1) / np.sqrt(len(dd)))
    s_all = st.summary[(st.summary.eval_set == "all") & (st.summary.method == "SampleScore")]
    assert (s_all.coverage < 1).all()  # unscored models have no sample score
    assert set(st.timings.method) == set(winrate.METHODS) and (st.timings[["fit_s", "predict_s"]] >= 0).all().all()
    assert st.peak_mb > 50  # the peak resident set of the process that ran the sweep
    t = st.table()
    assert list(t.index) == list(winrate.METHODS) and list(t.columns) == ["m = 1", "m = 6"]
    assert "SampleScore" not in st.table(eval_set="all").index
    with pytest.raises(ValueError, match="no result for"):
        st.mae("PKPS", 3)
    with pytest.raises(ValueError, match="unknown targets"):
        winrate.winrate_study(recs, d.models, d.task_weights, targets=("elo",))
    with pytest.raises(ValueError, match="unknown methods"):
        winrate.predict_models(winrate.target_records(recs, d.models, "win_rate"), d.task_weights, methods=("IRT",))


def test_unpaired_study_reports_dkps_connectivity(synth):
    d, recs = synth
    st = winrate.winrate_study(
        recs,
        d.models,
        d.task_weights,
        ms=(1,),
        seeds=(0,),
        targets=("win_rate",),
        methods=("DKPS", "PKPS"),
        paired=False,
    )
    share = st.connectivity.dkps_unconnected.iloc[0]
    # P(two models share no query in any of 5 tasks) = (5/6)^5 at m = 1 of a pool of 6
    assert abs(share - (5 / 6) ** 5) < 0.12
    assert set(st.summary.method) == {"DKPS", "PKPS"} and not st.paired


def test_parallel_runs_give_the_same_study(synth):
    d, recs = synth
    kw = dict(ms=(1, 2), seeds=(0, 1), targets=("win_rate",), methods=("SampleScore", "DKPS", "LRMC"))
    a = winrate.winrate_study(recs, d.models, d.task_weights, n_jobs=1, **kw)
    b = winrate.winrate_study(recs, d.models, d.task_weights, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(a.runs, b.runs)
    pd.testing.assert_frame_equal(a.summary, b.summary)
    for bad in (0, -2, 1.5, True):
        with pytest.raises(ValueError, match="n_jobs must be"):
            winrate.winrate_study(recs, d.models, d.task_weights, n_jobs=bad, **kw)


def test_figures_draw_one_panel_per_target_and_holdout(synth):
    import matplotlib.pyplot as plt

    from blindspot.perspective import figures

    d, recs = synth
    kw = dict(ms=(1, 2), seeds=(0,), methods=("DKPS", "PKPS"))
    paired = winrate.winrate_study(recs, d.models, d.task_weights, **kw)
    unpaired = winrate.winrate_study(recs, d.models, d.task_weights, paired=False, **kw)
    fig = figures.mae_figure(paired, eval_set="all")
    axes = [a for a in fig.axes if a.get_title()]
    assert len(axes) == 4 and {a.get_title() for a in axes} == {
        f"{winrate.TARGETS[t]}, holdout = {h}" for t in winrate.TARGETS for h in ("model", "family")
    }
    assert all(len(a.lines) >= 2 for a in axes)  # one line per method (plus error-bar artists)
    fig2 = figures.unpaired_figure(paired, unpaired)
    labels = fig2.axes[0].get_legend_handles_labels()[1]
    assert labels == ["DKPS, paired", "PKPS, paired", "DKPS, unpaired", "PKPS, unpaired"]
    plt.close("all")
