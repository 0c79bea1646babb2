"""blindspot.diagnose.robustness_study: the robustness checks of d_eff as results that name their numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata

from blindspot.core.spectrum import d_eff
from blindspot.data.tables import ScoreTable
from blindspot.diagnose import robustness, robustness_study as rs, verdicts


def _table(X: np.ndarray, name: str = "t", meta: pd.DataFrame | None = None, models=None) -> ScoreTable:
    models = models or [f"org{i % 7}/m{i}-x" for i in range(X.shape[0])]
    scores = pd.DataFrame(X, index=models, columns=[f"b{j}" for j in range(X.shape[1])])
    return ScoreTable(scores, meta if meta is not None else pd.DataFrame(index=models), name, "test")


def _one_factor(seed: int, n: int = 120, k: int = 6) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return 0.8 * rng.normal(size=(n, 1)) + 0.6 * rng.normal(size=(n, k))


def _pearson_deff(X: np.ndarray) -> float:
    lam = np.linalg.eigvalsh(np.corrcoef(X, rowvar=False))
    return float(lam.sum() ** 2 / (lam**2).sum())


def test_method_comparison_names_the_gaps_an_independent_computation_gives():
    slices = {
        "a full": _table(_one_factor(0)),
        "a frontier": _table(_one_factor(1, n=60)),
        "extra": _table(_one_factor(2)),
    }
    m = rs.method_comparison(slices, ["a full", "a frontier"])
    t = m.table()
    for name, s in slices.items():
        assert t.loc[name, "pearson"] == pytest.approx(_pearson_deff(s.values))
        assert t.loc[name, "spearman"] == pytest.approx(_pearson_deff(rankdata(s.values, axis=0)))
    gaps = {
        n: abs(_pearson_deff(slices[n].values) - _pearson_deff(rankdata(slices[n].values, axis=0))) for n in m.table1
    }
    q = m.quantities()
    assert q["max_gap_ps"] == pytest.approx(max(gaps.values()))
    assert q["max_gap_ps_where"] == max(gaps, key=gaps.get)  # the extra slice is not a Table 1 slice
    assert q["max_gap_pk"] >= q["max_gap_ps"]
    assert q["rank_below"] in ("below", "not always below")
    assert m.claims("a")["H6.ollm_frontier_spearman"].value == pytest.approx(t.loc["a frontier", "spearman"])
    with pytest.raises(ValueError, match="Table 1 slices"):
        rs.method_comparison(slices, ["b full"])


def test_gap_verdicts_are_the_verdicts_of_the_direct_intervals():
    slices = {"a full": _table(_one_factor(0, n=60)), "a frontier": _table(_one_factor(1, n=40))}
    m = rs.method_comparison(slices, list(slices))
    got = m.gap_verdicts({"H6.pearson_spearman_0.2": 0.2}, n_boot=100, seed=3)
    direct = robustness.method_gap_intervals(slices, methods=("spearman",), n_boot=100, seed=3)
    want = verdicts.gaps_within(direct, 0.2, "|Pearson - Spearman|", 100)
    assert got["H6.pearson_spearman_0.2"] == want
    with pytest.raises(ValueError, match="no gap statement"):
        m.gap_verdicts({"H6.other": 0.1})


def test_sampling_study_saturates_at_the_full_matrix_and_skips_small_boards():
    big, small = _table(_one_factor(0, n=80), "big"), _table(_one_factor(1, n=5), "small")
    s = rs.sampling_study({"big": big, "small": small}, "big", n_splits=20, n_draws=10, seed=0)
    assert list(s.halves) == ["big"]  # a split half needs 6 models
    q = s.quantities()
    assert q["sat_full"] == pytest.approx(d_eff(big.values))  # n' = n draws the whole matrix every time
    assert q["sat_n"] == 80 and q["sat_first"].endswith("at n' = 20")
    assert q["mad_list"] == f"big {s.halves['big'].mad:.3f}"
    claims = s.claims()
    assert claims["H2.mad.extended"].value == s.halves["big"].mad  # the featured board stands in for Extended
    assert set(claims) == {"H2.mad.extended", "H3.mean.50", "H3.lo.50", "H3.hi.50", "H3.full"}
    with pytest.raises(ValueError, match="featured"):
        rs.sampling_study({"big": big}, "other")


def test_size_control_is_the_residual_d_eff_of_an_independent_regression():
    rng = np.random.default_rng(4)
    n = 60
    params = np.exp(rng.uniform(0, 5, n))
    params[:3] = np.nan  # unknown sizes
    X = _one_factor(5, n=n) + 0.9 * np.nan_to_num(np.log(params))[:, None]
    models = [f"org/fam{i % 20}-v{i}" for i in range(n)]
    c = rs.population_controls(_table(X, meta=pd.DataFrame({"params_b": params}, index=models), models=models), "t")
    known = np.isfinite(params)
    A = np.c_[np.ones(known.sum()), np.log(params[known])]
    resid = X[known] - A @ np.linalg.lstsq(A, X[known], rcond=None)[0]
    assert c.table().loc[rs.RESIDUALISED, "d_eff"] == pytest.approx(_pearson_deff(resid))
    assert c.table().loc[rs.FAMILIES, "n"] == 20 and c.notes() == []
    q = c.quantities()
    assert q["n_unknown"] == 3 and q["deff_logp"] == f"{_pearson_deff(resid):.2f}" and q["n_families"] == 20
    assert c.claims(stand_in=False)["H28.log_params"].value == pytest.approx(_pearson_deff(resid))


def test_controls_that_cannot_run_say_so_and_record_only_on_the_stand_in():
    c = rs.population_controls(_table(_one_factor(0, n=30), models=[f"m{i}" for i in range(30)]), "t")
    assert not c.size_ok and not c.families_ok and len(c.notes()) == 2
    assert c.quantities()["deff_logp"] == "not computed" and c.quantities()["deff_fam"] == "not computed"
    assert c.claims(stand_in=False) == {}
    stand_in = c.claims(stand_in=True)
    assert [v.value for v in stand_in.values()] == pytest.approx([d_eff(c.front)] * 2)


def test_three_suites_split_the_extended_frontier_in_halves_and_name_what_is_missing():
    ext = _table(_one_factor(0, n=40, k=12), "extended")
    three = rs.three_suites({"extended": ext}, ext, n_boot=50, seed=0)
    t = three.table()
    assert list(t["k"]) == [6, 6] and "only v2-6" in three.missing_note
    assert three.claims()["H48.v2"].value == pytest.approx(_pearson_deff(ext.values[:, :6]))
    assert rs.three_suites({}, None, n_boot=50).missing_note.count("neither") == 1


def test_epoch_imputation_reports_the_imputed_share_of_its_submatrix():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 40))
    X[rng.random(X.shape) < 0.5] = np.nan
    epoch = _table(X, "epoch")
    e = rs.epoch_imputation(epoch)
    im = robustness.imputed_submatrix(epoch, 30, 10)
    assert e.share() == pytest.approx(
        float(np.isnan(epoch.scores.loc[im.scores.index, im.scores.columns]).to_numpy().mean())
    )
    q = e.quantities()
    assert q["shape"] == f"{im.shape[0]} × {im.shape[1]}" and q["missing"] == f"{100 * epoch.missing_fraction:.0f}"
    assert e.table().loc["all models (mean-imputed)", "d_eff"] == pytest.approx(_pearson_deff(im.scores.to_numpy()))
    infl = rs.inflation_study("x", {"x": _table(_one_factor(0))}, e.share(), reps=2)
    assert set(e.claims(infl)) == {"H50.epoch", "H50.epoch_frontier"}
    assert e.missing_note == ""


def test_without_epoch_everything_reads_not_computed():
    e = rs.epoch_imputation(None)
    assert set(e.quantities().values()) == {"not computed"} and e.share(0.6) == 0.6
    assert e.missing_note == rs.EPOCH_MISSING and e.missing_note.startswith(":::{important}")
    assert e.claims(rs.inflation_study("x", {"x": _table(_one_factor(0))}, 0.6, reps=1)) == {}
    with pytest.raises(ValueError, match="no Epoch matrix"):
        e.table()


def test_no_imputation_no_inflation_and_imputation_inflates():
    t = _table(_one_factor(0, n=200))
    none = rs.inflation_study("x", {"x": t}, 0.0, reps=2)
    assert none.after == pytest.approx(none.before)  # nothing hidden: the matrix is unchanged
    half = rs.inflation_study("x", {"x": t}, 0.5, reps=3)
    assert half.after > half.before  # imputed cells shrink the correlations
    assert half.quantities()["share"] == 50.0
    with pytest.raises(ValueError, match="no table"):
        rs.inflation_study("x", {}, 0.5)
