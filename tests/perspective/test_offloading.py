"""The chapter's offloading study on the synthetic stand-in: splits, the tables, the contrast."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from blindspot.book.claims import load_registry
from blindspot.perspective import offloading
from dkps.routing.offload import split_queries

ROOT = Path(__file__).resolve().parents[2]


def test_split_sizes_scale_the_protocol():
    assert offloading.split_sizes(795) == (199, 99, 100)
    assert offloading.split_sizes(320) == (80, 40, 40)
    assert offloading.split_sizes(80) == (20, 10, 10)
    assert offloading.split_sizes(40) == (10, 5, 5)


def test_routing_and_offloading_share_one_pool():
    """Chapters 64 and 65 embed the same pool (one cold embedding), a superset of chapter 60's."""
    reg = load_registry(ROOT)
    p60 = reg.chapter("60_alpaca_eval_query_efficiency").run["pool_size"]
    p64 = reg.chapter("64_routing_behavioural_stand_in").run["pool_size"]
    p65 = reg.chapter("65_offloading_under_a_contract").run["pool_size"]
    assert p64 == p65
    assert all(p64[mode] >= p60[mode] for mode in ("paper", "quick"))


def test_split_of_the_shared_pool_is_stratified_and_disjoint():
    # the book's pool: 5 tasks x 64 instructions
    tasks = np.repeat(np.array(["helpful_base", "koala", "oasst", "selfinstruct", "vicuna"], dtype=object), 64)
    sizes = offloading.split_sizes(tasks.size)
    for seed in range(3):
        sp = split_queries(tasks, seed, *sizes)
        parts = (sp.anchors, sp.eval, sp.cal_a, sp.cal_b)
        assert [p.size for p in parts] == [160, 80, 40, 40]
        assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(tasks.size))  # a partition
        for p, per_task in zip(parts, (32, 16, 8, 8)):
            assert (pd.Series(tasks[p]).value_counts() == per_task).all()


def test_scored_models_excludes_the_adversarial_entries():
    models = pd.DataFrame({"n_scored": [805, 805, 0, 805]}, index=["NullModel", "b-7b", "c", "gpt4_gamed"])
    assert offloading.scored_models(models) == ["b-7b"]


@pytest.fixture(scope="module")
def study():
    data = offloading.synthetic_offload_suite(0, n_queries=240)
    return data, offloading.run_study(data, [0, 1], pools={"le8b": 8.0, "all": None}, min_prefix=10)


def test_stand_in_is_labelled_and_flagship_found(study):
    data, res = study
    assert data.synthetic and data.score_table().synthetic
    assert set(res["decisions"].flagships.values()) == {"flag-70b"}


def test_gate_table_and_contrast(study):
    _, res = study
    gt = offloading.gate_table(res["gates"], "le8b")
    assert set(gt.method) >= {"qa", "lead", "pd-cal", "pairdev"}
    const = gt[gt.method.isin(["lead", "static", "profile", "random"])]
    assert not const.can_select.any()
    # the planted twins give qa a per-query signal: it certifies traffic at the loosest contract
    qa = gt[(gt.method == "qa") & np.isclose(gt.q, 0.5) & np.isclose(gt.alpha, 0.2) & (gt.rule == "emp")]
    assert qa.volume.iloc[0] > 0.2
    m, se, d = offloading.ladder_contrast(res["gates"], "le8b", "pd-cal", "pairdev", q=0.5, alpha=0.1)
    assert d.size == 2 and m == pytest.approx(d.mean()) and se >= 0
    pts = offloading.curve_points(res["curves"], "le8b")
    assert list(pts.columns) == [0.1, 0.2, 0.4, 0.6]
    assert (pts.loc["qa"] <= pts.loc["random"] + 1e-12).all()
    # one cell of the table, by name: the same number the table holds
    assert offloading.gate_cell(res["gates"], "qa", alpha=0.2, pool="le8b") == qa.volume.iloc[0]
    with pytest.raises(ValueError, match="has no 'nobody'"):
        offloading.gate_cell(res["gates"], "nobody", pool="le8b")


def test_gate_pivot_cells(study):
    _, res = study
    gt = offloading.gate_table(res["gates"], "le8b")
    piv = offloading.gate_pivot(gt, ["qa", "lead"])
    assert piv.shape == (4, 9)
    assert all(c.endswith("†") or c == "—" for c in piv.loc[("emp", "lead")])
    assert not any(c.endswith("†") for c in piv.loc[("emp", "qa")])


def test_study_and_hypothesis_quantities_are_the_studys_numbers_by_name(study):
    data, res = study
    q = offloading.study_quantities(data, res, seed=0)
    n_eval, n_a, n_b = res["sizes"]
    assert q["flagship"] == "flag-70b" and q["flagship_size"] == "70.0" and q["n_unsized"] == 1  # the closed api-model
    assert q["n_anchors"] + q["n_eval"] + q["n_cal"] == data.suite.n_queries and q["n_cal_b"] == n_b
    assert q["flag_stable"] == "the same in every seed"
    t = offloading.hypothesis_table(res["gates"], pools=("le8b", "all"))
    m, se, _ = offloading.ladder_contrast(res["gates"], "le8b", "pd-cal", "pairdev", q=0.5, alpha=0.1)
    assert t.loc["le8b", "pd-cal - pairdev"] == m and t.loc["le8b", "SE"] == se and list(t.index) == ["le8b", "all"]
    h = offloading.hypothesis_quantities(t)
    assert h["hyp13"] == m and h["cost13"] == t.loc["le8b", "pairdev - pd30"] and len(h) == 8
