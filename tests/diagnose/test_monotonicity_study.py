"""blindspot.diagnose.monotonicity_study: the threshold curves and the top-fraction sweep as results."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.core.conventions import frontier_mask
from blindspot.data.tables import ScoreTable
from blindspot.diagnose import monotonicity_study as ms, robustness


def _table(seed: int, n: int, k: int = 6, name: str = "t") -> ScoreTable:
    rng = np.random.default_rng(seed)
    X = 0.8 * rng.normal(size=(n, 1)) + 0.6 * rng.normal(size=(n, k))
    models = [f"m{i}" for i in range(n)]
    return ScoreTable(
        pd.DataFrame(X, index=models, columns=[f"b{j}" for j in range(k)]), pd.DataFrame(index=models), name, "test"
    )


def _pearson_deff(X: np.ndarray) -> float:
    lam = np.linalg.eigvalsh(np.corrcoef(X, rowvar=False))
    return float(lam.sum() ** 2 / (lam**2).sum())


def test_curve_suites_leave_out_the_small_boards_and_refuse_when_none_is_left():
    kept, note = ms.curve_suites({"big": _table(0, 40), "tiny": _table(1, 5)})
    assert list(kept) == ["big"] and "tiny" in note
    assert ms.curve_suites({"big": _table(0, 40)})[1] == ""
    with pytest.raises(ValueError, match="at least 8 models"):
        ms.curve_suites({"tiny": _table(1, 5)})


@pytest.fixture(scope="module")
def curves():
    suites = {"extended": _table(0, 300, name="extended"), "livebench": _table(1, 60, k=7, name="livebench")}
    return ms.threshold_study(suites, "extended", n_boot=20, seed=0)


def test_the_curve_at_the_median_cut_is_d_eff_of_the_upper_half(curves):
    t = curves.suites["extended"]
    keep = frontier_mask(t, 0.5)
    q = curves.quantities()
    assert q["f_q5"] == f"{_pearson_deff(t.values[keep]):.2f}"
    assert q["f_q0"] == pytest.approx(_pearson_deff(t.values))
    assert curves.deff_table().loc[0.0, "livebench"] == pytest.approx(_pearson_deff(curves.suites["livebench"].values))
    assert q["featured"] == "extended" and q["f_theory_q5"] != "not computed"


def test_judged_curves_keep_the_slices_of_20_models_and_the_lists_partition_them(curves):
    judged = curves.judged
    assert all((c.table["n"] >= ms.MIN_MODELS).all() for c in judged.values())
    q = curves.quantities()
    monotone = [s for s in q["monotone_list"].split(", ") if s != "none"]
    falling = [] if q["falling_list"] == "none of them" else [p.split(" at ")[0] for p in q["falling_list"].split("; ")]
    assert sorted(monotone + falling) == sorted(judged)
    row = curves.judged_table().loc["extended"]
    assert row["thresholds judged"] == ", ".join(f"{x:.1f}" for x in judged["extended"].table.index)


def test_the_ledger_gets_the_extended_ends_and_the_livebench_decrease(curves):
    claims = curves.claims()
    et = curves.curves["extended"].table
    assert claims["H16.ext_q0"].value == et.loc[0.0, "d_eff"]
    lb = curves.curves["livebench"]
    want = lb.decreases[0][0] if lb.decreases else 1.0
    assert claims["H34.lb_nonmonotone"].value == want
    v = curves.verdicts(lb_except=0.6, n_boot=100, seed=0)
    assert set(v) == {"S.monotone.extended", "S.monotone.livebench"}
    assert v["S.monotone.livebench"][1] is curves.suites["livebench"]


def test_a_readers_board_stands_in_for_the_extended_one():
    s = ms.threshold_study({"mine": _table(2, 100)}, "mine", n_boot=10)
    assert s.stand_in == {"extended": "mine"} and set(s.claims()) == {"H16.ext_q0", "H16.ext_q09"}
    with pytest.raises(ValueError, match="featured"):
        ms.threshold_study({"mine": _table(2, 50)}, "other")


@pytest.fixture(scope="module")
def sweep():
    pop = _table(3, 400, name="dump")
    paper_top = dict.fromkeys(ms.FRACTIONS, 2.0)
    return ms.population_sweep(pop, True, paper_top, 2.4, ollm=_table(4, 60, name="ollm_v2"), n_boot=20, seed=0)


def test_the_sweep_records_every_top_fraction_and_its_crossing(sweep):
    claims = sweep.claims()
    assert list(claims) == [f"H44.top{round(100 * f)}" for f in ms.FRACTIONS]
    top10 = sweep.pop.values[frontier_mask(sweep.pop, 0.9)]
    assert claims["H44.top10"].value == pytest.approx(_pearson_deff(top10))
    q = sweep.quantities()
    assert q["top10_n"] == str(top10.shape[0]) and q["ollm_front_n"] == str(int(frontier_mask(sweep.ollm, 0.5).sum()))
    f = sweep.fine.table.sort_values("fraction")
    upper = f[f["fraction"] >= 0.1]
    x = sweep.frac_cross  # the curve's value at the crossing is the paper's frontier d_eff (when inside its range)
    if upper["d_eff"].min() <= 2.4 <= upper["d_eff"].max():
        assert np.interp(x, upper["fraction"], upper["d_eff"]) == pytest.approx(2.4, abs=0.05)
    assert list(sweep.table()["paper"]) == [2.0] * len(sweep.sweep.table)
    assert set(sweep.verdicts((2.3, 2.5), n_boot=100)) == {"H44.consistent_229", "S.monotone.ollm_v2_full"}


def test_off_the_dump_the_paper_facts_are_not_computed():
    pop = _table(5, 100)
    s = ms.population_sweep(pop, False, dict.fromkeys(ms.FRACTIONS, 2.0), 2.4, n_boot=10)
    q = s.quantities()
    assert q["frac_cross"] == "not computed" and q["name"] == "t" and q["n"] == 100
    assert s.verdicts((2.3, 2.5)) == {} and "paper" not in s.table()
    assert robustness.top_fraction_sweep(pop, ms.FRACTIONS).table.equals(s.sweep.table.drop(columns=["lo", "hi"]))
