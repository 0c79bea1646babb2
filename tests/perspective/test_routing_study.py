"""The routing chapter's suites and study on the synthetic stand-ins: brackets, identities, the premise, verdicts."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.perspective import alpaca, arena_bench, routing_sensitivity, routing_study, routing_verdicts as rv
from dkps.routing.evaluation import paired_difference
from dkps.routing.mimicry_study import run_mimicry_study


def test_routing_study_on_the_alpaca_stand_in():
    ae = alpaca.synthetic_alpaca_eval(queries_per_task=12)
    rows = ae.responses[ae.responses.model_id.isin(routing_study.pool_models(ae.models))]
    suite = routing_study.suite_from_records(rows)
    study = run_mimicry_study(suite, (0, 1), n_pseudo=30, query_dims=(2, None))
    t = study.table.set_index("method")
    assert (t.error >= t.loc["oracle", "error"] - 1e-12).all()
    assert (t.drop(index="random").error.drop(index="profile") <= t.loc["random", "error"]).all()
    assert study.rf_identity  # the regression of the squared error is the paired distance itself
    premise = rv.premise({"tasks": study.premise["contrast"]})
    parts = rv.routing_parts(study, premise)
    assert [p.finding for p in parts] == ["F1"] * 2 + ["F2"] * 2 + ["F3"] * 3 + ["F4"] * 4 + ["F5"]
    assert all(p.holds in (True, False, None) and p.evidence for p in parts)
    u = study.unpairing.set_index(["regime", "method"])
    assert np.isclose(u.loc[("aligned", "qa-paired"), "gain_ratio"], 1.0)
    assert u.loc[("disjoint", "rf"), "overlap"] == 0
    frame = routing_study.premise_frame({"stand-in": (study, "tasks")}, {"stand-in": premise})
    assert frame.loc["stand-in", "premise"] == rv.premise_word(premise)
    assert frame.loc["stand-in", "group router − static [95% CI]"] == str(study.premise["group_minus_static"])


def test_pool_models_reads_either_score_count_and_refuses_neither():
    table = pd.DataFrame({"n_graded": [300, 0, 12]}, index=["a", "b", "NullModel"])
    assert routing_study.pool_models(table) == ["a"]
    with pytest.raises(ValueError, match="n_scored"):
        routing_study.pool_models(pd.DataFrame({"x": [1]}, index=["a"]))


def test_arena_suite_uses_query_clusters_for_tasks():
    ar = arena_bench.synthetic_arena_bench(seed=1)
    rows = ar.responses[ar.responses.model_id.isin(routing_study.pool_models(ar.models))]
    suite = routing_study.arena_suite(rows, n_clusters=4)
    assert set(suite.tasks) == {"c0", "c1", "c2", "c3"} and len(suite.models) == 10
    study = run_mimicry_study(suite, (0, 1, 2), n_pseudo=20, diagnose=False)
    # the stand-in's behaviour changes between its hidden clusters: the premise is present, qa gains over static
    assert rv.premise_word(rv.premise({"c": study.premise["contrast"]})) == "present"
    assert paired_difference(study.results, "qa-0.25x", "static").below_zero


def test_groupings_of_a_suite_without_labels_and_their_runs():
    ar = arena_bench.synthetic_arena_bench(seed=1)
    rows = ar.responses[ar.responses.model_id.isin(routing_study.pool_models(ar.models))]
    suite = routing_study.arena_suite(rows, n_clusters=4)
    prompts = ["Write a python function"] * (suite.U.shape[0] // 3) + ["A poem about the sea"] * suite.U.shape[0]
    groupings = routing_study.arena_groupings(suite, prompts[: suite.U.shape[0]])
    assert list(groupings)[:2] == ["k=5 seed 0", "k=5 seed 1"] and list(groupings)[-1] == "code/text"
    assert np.array_equal(groupings["k=5 seed 0"], routing_study.arena_suite(rows).tasks)  # the chapter's own first
    assert "code/text" not in routing_study.arena_groupings(suite, ["a poem"] * suite.U.shape[0])  # one side only
    study = run_mimicry_study(routing_study.arena_suite(rows), (0, 1), n_pseudo=20, diagnose=False)
    two = dict(list(groupings.items())[:2])
    runs = routing_study.grouping_runs(study.suite, two, (0, 1), n_perm=19, own=study)
    assert str(runs[0].qa_minus_static) == str(study.difference("qa-0.25x", "static"))  # reused, not recomputed
    assert runs[1].profile_share is not None and runs[1].contrast.null.size == 19
    frame = routing_study.groupings_frame(runs)
    assert list(frame.index) == list(two) and frame.loc["k=5 seed 1", "qa − static [95% CI]"] == str(
        runs[1].qa_minus_static
    )


def test_the_code_rule_reads_fences_and_language_names_as_whole_words():
    got = routing_study.code_or_text(
        ["```x = 1```", "Write it in Python", "a scripted video", "the apiary", "SQL join"]
    )
    assert got.tolist() == ["code", "code", "text", "text", "code"]


def test_sensitivity_rows_on_the_stand_in():
    ae = alpaca.synthetic_alpaca_eval(queries_per_task=12)
    rows = ae.responses[ae.responses.model_id.isin(routing_study.pool_models(ae.models))]
    suite = routing_study.suite_from_records(rows)
    study = run_mimicry_study(suite, (0, 1), n_pseudo=20, diagnose=False)
    plan = routing_sensitivity.SensitivityPlan(pool_size=12, n_models=6, wide_pool=16, long_tokens=256)
    table = routing_sensitivity.run_sensitivity(suite, study.results, plan, texts=False)
    assert list(table.protocol) == ["the chapter's", "the original's preprocessing", "6 of the models"]
    d = paired_difference(study.results, "qa-0.25x", "static")
    assert table.qa_minus_static.iloc[0] == d.mean and table.lo.iloc[0] == d.lo
    assert table.models.tolist() == [len(suite.models), len(suite.models), 6]
    assert table.qa_minus_static.iloc[1] != table.qa_minus_static.iloc[0]  # the preprocessing changes the geometry
    words = routing_sensitivity.sensitivity_quantities(table)
    assert (
        words["rows"] == 3
        and words["range"] == f"{table.qa_minus_static.min():+.4f} to {table.qa_minus_static.max():+.4f}"
    )
    shown = routing_sensitivity.sensitivity_frame(table)
    assert shown["qa − static [95% CI]"].iloc[0] == str(d)


def test_the_model_subset_is_seeded_sorted_and_bounded():
    pool = [f"m{i:02d}" for i in range(20)]
    a = routing_sensitivity.sensitivity_models(pool, 5)
    assert a == sorted(a) and len(set(a)) == 5 and a == routing_sensitivity.sensitivity_models(pool[::-1], 5)
    with pytest.raises(ValueError, match="n_models"):
        routing_sensitivity.sensitivity_models(pool, 2)
    with pytest.raises(ValueError, match="n_models"):
        routing_sensitivity.sensitivity_models(pool, 21)


def test_page_quantities_come_from_the_studys_measurements():
    ae = alpaca.synthetic_alpaca_eval(queries_per_task=12)
    rows = ae.responses[ae.responses.model_id.isin(routing_study.pool_models(ae.models))]
    study = run_mimicry_study(routing_study.suite_from_records(rows), (0, 1), n_pseudo=20, query_dims=(2, None))
    q = routing_study.table_quantities(study, prefix="x_")
    e = study.table.set_index("method").error
    assert q["x_e_qa_025x"] == e["qa-0.25x"] and q["x_d_qa_static"] == str(study.difference("qa-0.25x", "static"))
    assert q["x_profile_share"] == pytest.approx(100 * study.profile_share().mean)
    assert q["x_spread"] == study.bandwidth_spread()["spread"] and {"x_u_fact_ind", "x_u_rf_dis", "x_near_full"} <= set(
        q
    )
    premise = rv.premise({"tasks": study.premise["contrast"]})
    p = routing_study.premise_quantities(study, premise, "ae_")
    assert p["ae_premise"] == rv.premise_word(premise) and p["ae_premise_p"] == study.premise["contrast"].p_value
    opts = routing_study.embedding_options(None, (4, 8), 10, 40, cold_rate=20.0)
    assert opts.table.loc["your pool (40 queries)", "texts"] == 40 * 11
    assert opts.table.loc["your pool (40 queries)", "minutes"] == pytest.approx(440 / 20 / 60)
    words = opts.quantities()
    assert words["proj_texts_0"] == 440 and words["proj_3"] == "not measured"
    assert routing_study.embedding_options(None, (4, 8), 10, 40, None).quantities()["proj_0"] == "not measured"
