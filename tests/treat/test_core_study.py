"""core_study: the stable core of a frontier with its top-4 view and its spread over seeds, equal to its parts."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core import conventions
from blindspot.data.suites import synthetic_suite
from blindspot.treat import verdicts
from blindspot.treat.core_study import PaperCore, core_study, paper_core
from blindspot.treat.stable_core import stable_core


@pytest.fixture(scope="module")
def study():
    return core_study(synthetic_suite(n_models=40, n_benchmarks=8, seed=3), r=5, n_boot=30, n_seeds=3)


def test_the_study_is_stable_core_on_the_frontier(study):
    front = study.front
    assert front.n_models == conventions.frontier(synthetic_suite(n_models=40, n_benchmarks=8, seed=3)).n_models
    direct = stable_core(front, r=5, n_boot=30, seed=0, threshold=0.9)
    assert np.allclose(study.core.frequencies, direct.frequencies) and study.core.core == direct.core
    assert set(study.by_seed) == {0, 1, 2} and np.allclose(study.by_seed[0].frequencies, direct.frequencies)


def test_tables_and_counts(study):
    freq = study.frequencies({study.front.benchmarks[0]: 0.5})
    assert freq["paper"].iloc[:].notna().sum() == 1
    spread = study.seed_spread()
    assert ((spread["max"] - spread["min"]) == spread["spread"]).all() and (spread["spread"] >= 0).all()
    assert 1 <= study.n_distinct_cores <= 3 and len(study.seed_jaccards) == 3
    jac, same = study.top4_stability
    assert 0 <= same <= 1 and 0 <= jac <= 1
    assert study.quantities()["n_seeds"] == 3


def test_r_not_below_the_benchmarks_computes_nothing_and_says_why():
    none = core_study(synthetic_suite(n_models=40, n_benchmarks=5, seed=1), r=5, n_boot=10, n_seeds=2)
    assert none.core is None and none.by_seed == {} and none.top4().empty
    assert "not computed" in verdicts.core_not_run_note(none) and verdicts.core_text(none) is None
    assert verdicts.top4_text(none).startswith("Not computed")


class _Spec:
    def __init__(self, paper: object) -> None:
        self.paper = paper


class _Chapter:
    def __init__(self, claims: dict, n_boot: int) -> None:
        self.claims, self.run = claims, {"n_boot": {"paper": n_boot}}


def test_the_paper_values_are_read_from_the_registry_chapter():
    chapter = _Chapter({"SC.core": _Spec("IFEval, BBH"), "SC.freq.BBH": _Spec(0.95), "SC.other": _Spec(1.0)}, 500)
    p = paper_core(chapter)
    assert p.core == ["IFEval", "BBH"] and p.frequencies == {"BBH": 0.95} and p.n_boot == 500


def test_the_claims_on_the_synthetic_stand_in_alias_the_paper_benchmarks():
    table = synthetic_suite(n_models=40, n_benchmarks=12, seed=3)
    # the paper's core is the stand-in's 1st and 2nd benchmark (IFEval, BBH are PAPER_V2's first two)
    paper = PaperCore("IFEval, BBH", {"IFEval": 0.9, "BBH": 0.8, "NotABenchmark": 0.1}, 500)
    s = core_study(table, r=5, n_boot=30, n_seeds=2, paper=paper)
    front_names = s.front.benchmarks
    claims = s.claims()
    assert list(claims) == ["SC.core", "SC.freq.IFEval", "SC.freq.BBH", "SC.top4_wording", "SC.jaccard4"]
    freq = s.core.frequencies
    assert claims["SC.freq.BBH"].value == freq[front_names[1]]
    assert claims["SC.top4_wording"].value == min(freq[front_names[0]], freq[front_names[1]])
    assert claims["SC.jaccard4"].value == s.top4_stability[0]
    assert claims["SC.core"].verdict.holds == (sorted(s.core.core) == sorted(front_names[:2]))
    assert all(c.data is s.front for c in claims.values())
    assert list(s.claims(on_your_data=True)) == ["SC.jaccard4"]
    q = s.quantities()
    assert q["paper_core"] == "{IFEval, BBH}" and q["paper_n_boot"] == 500
    assert s.frequencies()["paper"].notna().sum() == 0  # the stand-in's names are not the paper's
    st = s.statuses({"SC.core": "reproduced"})
    assert st == {"core": "reproduced", "top4": "not applicable"}
    assert len(s.core_figure().axes) >= 1


def test_without_a_core_there_is_no_claim():
    none = core_study(synthetic_suite(n_models=40, n_benchmarks=5, seed=1), r=5, n_boot=10, n_seeds=2)
    assert none.claims() == {} and none.statuses({}) == {"core": "not applicable", "top4": "not applicable"}
