"""The Part V synthetic studies (blindspot.perspective.synthetic_studies; the stand-in for the PKPS paper's Table 1)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from blindspot.perspective.synthetic_studies import (
    pairing_study,
    perspective_picture,
    query_efficiency_study,
)


def test_perspective_picture_recovers_the_latents():
    pic = perspective_picture(seed=0, n_models=30)
    assert pic.coords.shape == (30, pic.mds_dim) and pic.ability.shape == (30,)
    assert pic.r2 > 0.8 and pic.r2 > pic.r2_scores - 0.05
    assert (pic.n_tasks, pic.n_queries_per_task, pic.queries_per_cell, pic.general_factor) == (8, 16, 4, 1.5)
    q = pic.quantities()
    assert (q["n_models"], q["r2"], q["r2_scores"], q["view_r2"]) == (30, pic.r2, pic.r2_scores, pic.view_r2)
    assert q["r2_word"] == ("more than" if pic.r2 > pic.r2_scores else "no more than")
    assert not {"coords", "ability", "view"} & set(q)
    flipped = dataclasses.replace(pic, r2=pic.r2_scores)
    assert flipped.quantities()["r2_word"] == "no more than"


def test_pairing_study_small():
    res = pairing_study(pools=(4, 32), seeds=(0,), n_models=20, n_tasks=5)
    s = res.summary.set_index(["pool", "method"])
    assert set(res.runs.method) == {"PKPS", "DKPS"} and len(res.runs) == 4
    assert (res.n_models, res.n_tasks, res.queries_per_cell) == (20, 5, 4)
    assert s.loc[(32, "PKPS"), "r2_mean"] > s.loc[(32, "DKPS"), "r2_mean"]
    assert s.loc[(32, "DKPS"), "unconnected"] > s.loc[(4, "DKPS"), "unconnected"]


def test_query_efficiency_small_run_structure():
    res = query_efficiency_study(ms=(1, 4), seeds=(0,), n_models=24, n_families=6, n_tasks=4, pool=16)
    assert set(res.summary.method) == {"SampleScore", "IRT", "DKPS", "PKPS", "LRMC", "Ensemble"}
    assert (res.runs.coverage == 1.0).all() and set(res.ordering_holds) == {1, 4}
    assert (res.n_models, res.n_families, res.n_tasks, res.pool) == (24, 6, 4, 16)
    with pytest.raises(ValueError, match="unknown methods"):
        query_efficiency_study(methods=("Oracle",))


@pytest.mark.slow
def test_query_efficiency_ordering_at_one_query():
    """The PKPS paper's Table 1 ordering. Mean MAE over seeds 0–2 at m = 1: SampleScore > DKPS > PKPS,
    Ensemble <= PKPS + 0.01."""
    res = query_efficiency_study(ms=(1,), seeds=range(3), methods=("SampleScore", "DKPS", "PKPS", "Ensemble"))
    s = res.summary.set_index("method").mae_mean
    assert s["SampleScore"] > s["DKPS"] > s["PKPS"]
    assert s["Ensemble"] <= s["PKPS"] + 0.01


def test_ability_view_and_literature_gap():
    from blindspot.perspective.synthetic_studies import ability_view, dkps_literature_gap

    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 4))
    a = X @ np.array([1.0, -2.0, 0.5, 0.0]) + 3.0
    view, r2 = ability_view(X, a)
    assert r2 == pytest.approx(1.0)
    assert abs(np.corrcoef(view[:, 0], a)[0, 1]) == pytest.approx(1.0)
    Xc = X - X.mean(0)
    u, *_ = np.linalg.lstsq(Xc, view[:, 0], rcond=None)
    v, *_ = np.linalg.lstsq(Xc, view[:, 1], rcond=None)
    assert abs(u @ v) < 1e-9 and np.linalg.norm(u) == pytest.approx(1) and np.linalg.norm(v) == pytest.approx(1)
    assert dkps_literature_gap() < 1e-10


def test_query_efficiency_table_and_accessor():
    res = query_efficiency_study(
        ms=(1, 2), seeds=(0, 1), n_models=20, n_families=5, n_tasks=3, pool=8, methods=("SampleScore", "PKPS")
    )
    t = res.table()
    assert list(t.index) == ["SampleScore", "PKPS"] and list(t.columns) == ["m = 1", "m = 2"]
    runs = res.runs[(res.runs.method == "PKPS") & (res.runs.m == 2)].mae
    assert res.mae("PKPS", 2) == pytest.approx(runs.mean())
    assert t.loc["PKPS", "m = 2"] == f"{runs.mean():.3f} ± {runs.std():.3f}"
    with pytest.raises(ValueError, match="no result"):
        res.mae("IRT", 1)
    s = res.summary[res.summary.m == 1].set_index("method").mae_mean
    assert res.best_method(1) == s.idxmin()


def test_studies_over_seeds_in_parallel_equal_serial():
    import pandas as pd

    from blindspot.perspective.synthetic_studies import pairing_study, query_efficiency_study

    kw = dict(ms=(1, 2), seeds=range(2), n_models=16, n_families=4, n_tasks=3, pool=8, methods=("SampleScore", "PKPS"))
    pd.testing.assert_frame_equal(query_efficiency_study(**kw, n_jobs=2).runs, query_efficiency_study(**kw).runs)
    kw = dict(pools=(4, 8), seeds=range(2), queries_per_cell=2, n_models=12, n_tasks=3)
    pd.testing.assert_frame_equal(pairing_study(**kw, n_jobs=2).runs, pairing_study(**kw).runs)


def test_pairing_quantities_read_the_summary_at_both_ends():
    """A planted summary: each quantity is the cell it names."""
    from blindspot.perspective.synthetic_studies import PairingStudy

    summary = pd.DataFrame(
        {"pool": [4, 4, 64, 64], "share_paired": [1, 1, 1 / 16, 1 / 16], "method": ["PKPS", "DKPS"] * 2,
         "r2_mean": [0.9, 0.8, 0.85, 0.3], "unconnected": [0.0, 0.0, 0.0, 0.4]}
    )  # fmt: skip
    runs = pd.DataFrame({"seed": [0, 1, 0, 1]})
    q = PairingStudy(runs, summary, 4, n_models=20, n_tasks=8).quantities()
    assert (q["pool_lo"], q["pool_hi"], q["share_hi"], q["n_seeds"]) == (4, 64, 1 / 16, 2)
    assert (q["r2_PKPS_lo"], q["r2_DKPS_lo"], q["r2_PKPS_hi"], q["r2_DKPS_hi"]) == (0.9, 0.8, 0.85, 0.3)
    assert q["unconnected_DKPS_hi"] == 0.4


def test_query_efficiency_quantities_name_where_the_ordering_holds():
    from blindspot.perspective.synthetic_studies import QueryEfficiencyStudy

    rows = [(m, meth, mae) for m, maes in {1: (0.3, 0.2, 0.1, 0.05), 8: (0.05, 0.2, 0.1, 0.06)}.items()
            for meth, mae in zip(("SampleScore", "DKPS", "PKPS", "Ensemble"), maes)]  # fmt: skip
    summary = pd.DataFrame(rows, columns=["m", "method", "mae_mean"])
    qe = QueryEfficiencyStudy(pd.DataFrame({"seed": [0, 1, 2]}), summary, {1: True, 8: False})
    q = qe.quantities()
    assert q["holds_at"] == "1" and q["fails_at"] == "8" and q["ens_best_at"] == "1" and q["m_hi"] == 8
    assert q["mae1_SampleScore"] == 0.3 and q["mae_hi_SampleScore"] == 0.05 and q["n_seeds"] == 3
