"""blindspot.perspective.verdicts: each decision of Part V's chapters, both ways, on cases with a known answer."""

from __future__ import annotations

from types import SimpleNamespace as NS

import numpy as np
import pandas as pd
import pytest

from blindspot.perspective import verdicts as v


def test_synthetic_words():
    assert v.flat_word(0.9, 1.0) == "does not" and v.flat_word(0.5, 1.0) == "does too"
    mae = {"SampleScore": 0.3, "DKPS": 0.17, "PKPS": 0.14, "Ensemble": 0.13}
    o = v.synthetic_ordering(mae, 16)
    assert (
        o.holds and o.book == "0.300 >> 0.170 > 0.140 >= 0.130 (16 seeds)" and "SampleScore / DKPS = 1.76" in o.evidence
    )
    assert not v.synthetic_ordering({**mae, "SampleScore": 0.2}, 16).holds  # 0.2 < 1.5 x 0.17
    assert not v.synthetic_ordering({**mae, "Ensemble": 0.15}, 16).holds


def test_every_eval_ever_words():
    assert v.source_name(True) == "synthetic placeholder" and v.source_name(False) == "AlpacaEval"
    assert v.survey_words(None)["eee_layouts"].startswith("none")
    survey = pd.DataFrame(
        {"records_read": [5, 3], "rows": [5, 4], "schema_errors": [0, 2], "schema_version": ["0.3.0", "0.2.0"]}
    )
    w = v.survey_words(survey)
    assert w["eee_survey_sentence"].startswith("1 of 2 staged files are read in full, and 1 fail")
    assert w["eee_layouts"] == "0.2.0, 0.3.0" and w["eee_all_read"] == "1 of 2 staged files are read in full"
    assert v.survey_words(survey.iloc[:1])["eee_all_read"] == "every staged file is read in full"
    assert v.identical_word(True) == "identical" and v.identical_word(False) == "NOT identical"
    assert v.validity_text(None, 3, 0).startswith("not checked") and v.validity_text({}, 3, 1) == "2 of 3 files valid"
    assert v.agree_within(1e-13) == "agree" and v.agree_within(1e-6) == "do not agree"


def test_alpaca_words():
    assert v.n_scored_models(pd.DataFrame({"n_scored": [0, 3, 1]})) == 2
    assert v.provider_name(True) == "sentence-transformers" and v.provider_name(False) == "hash"
    emb, cold, warm = NS(cold=True, n_embedded=10), NS(texts_per_second=200.4), NS(texts_per_second=9000.0)
    w = v.embedding_words(emb, cold, warm, True, "hash")
    assert w == {"provider": "hash", "embed_state": "cold: 10 texts embedded", "cold_rate": "200", "warm_rate": "9000"}
    w = v.embedding_words(NS(cold=False, n_embedded=0), cold, warm, False, "hash")
    assert w["provider"].startswith("none") and w["embed_state"].startswith("warm") and w["cold_rate"] == "not measured"
    assert v.embedding_words(emb, cold, None, True, "hash") == {
        "provider": "hash",
        "embed_state": "cold: 10 texts embedded",
        "cold_rate": "200",
    }  # a chapter that times no warm rerun
    assert v.embed_state(NS(cold=False, n_embedded=0)) == "warm: everything from the cache"
    assert v.same_each_seed({0: "gpt4", 1: "gpt4", 2: "gpt4"}) == "the same in every seed"
    assert v.same_each_seed({0: "gpt4", 1: "claude", 2: "gpt4", 3: "llama"}) == (
        "chosen by 2 of 4 seeds (the others chose claude, llama)"
    )
    with pytest.raises(ValueError, match="no seed chose a flagship"):
        v.same_each_seed({})
    assert v.beats_text(0.1, 0.2) == "PKPS does not beat DKPS here"
    assert v.beats_text(-0.1, 0.2) == "PKPS beats DKPS here, by less than two standard errors"
    assert v.beats_text(-0.5, 0.2).endswith("more than two standard errors")
    assert v.strength_word(1.0, 2.0) == "weak" and v.strength_word(3.0, 2.0) == "strong"
    assert v.gamed_text(None) == "not in these data" and v.gamed_text(2.5).startswith("the judge rewards")
    assert v.gamed_text(-2.5).startswith("it scores far below") and v.gamed_text(0.5).startswith("within")
    assert "2 have it among their three nearest" in v.variants_text(pd.Series([1.0, 3.0, 7.0]), "the verbose +5.0", 64)
    assert v.variants_text(pd.Series([], dtype=float), "", 64).startswith("None of the concise")
    assert v.next_text(pd.DataFrame()) == "No other excluded model is in this run."
    others = pd.DataFrame(
        {"y": [30.0], "y_hat": [20.0], "gap_z": [2.5], "kind": ["length variant"], "gap": [10.0]}, index=["m_verbose"]
    )
    assert v.next_text(others).endswith("cannot see.") and "belongs to m_verbose (30.0" in v.next_text(others)
    assert v.next_text(others.assign(gap=-1.0)).endswith("deviations).")


def test_alpaca_verdicts():
    p = {"SampleScore": 20.0, "DKPS": 10.0, "PKPS": 11.0, "Ensemble": 9.0}
    assert v.ordering_text(p) == "20.0 > 10.0 <= 11.0 > 9.0 points"
    o = v.alpaca_ordering(p, 4, 100, -1.0, 0.5)
    assert o.holds and "DKPS - PKPS = -1.00 ± 0.50 points" in o.evidence
    assert not v.alpaca_ordering({**p, "Ensemble": 12.0}, 4, 100, -1.0, 0.5).holds
    un = {"PKPS": 9.0, "DKPS": 10.0}
    u = v.unpaired_beats(un, -1.0, 0.3, 50, 12.0, 0.7)
    assert u.holds is True and "(70% of the variation)" in u.evidence and u.basis == "statistical"
    # the t interval (49 df) of +0.2 +- 0.3 straddles 0: not resolved; +1.0 +- 0.3 lies above 0: fails
    t49 = 2.009575237129195  # scipy.stats.t.ppf(0.975, 49)
    open_ = v.unpaired_beats(un, 0.2, 0.3, 50, 12.0, 0.7)
    assert open_.holds is None and open_.test.interval == pytest.approx((0.2 - t49 * 0.3, 0.2 + t49 * 0.3))
    assert v.unpaired_beats(un, 1.0, 0.3, 50, 12.0, 0.7).holds is False
    assert v.paired_text(-0.1, 0.2) == "the paired baseline is at least as good"
    assert v.paired_text(0.1, 0.2).endswith("less than two standard errors")
    assert v.paired_text(1.0, 0.2).endswith("more than two standard errors")


def _cv(twoway: float) -> NS:
    return NS(
        cells=range(10),
        mae={"lrmc": 0.5, "mean": 0.8, "twoway": twoway},
        ratio=0.625,
        ratio_lo=0.5,
        ratio_hi=0.7,
        per_benchmark=pd.DataFrame({"ratio": [0.5, 1.2]}),
        lambdas=np.array([0.1, 0.2]),
    )


def test_sparse_texts():
    board = NS(name="epoch", missing_fraction=0.6)
    comp = NS(dropped_benchmarks=[], shape=(40, 8), observed_fraction=0.7, dropped_models=[1, 2])
    t = v.completion_text(board, comp, [])
    assert "2 models and no benchmark are left out" in t and "decades or more: none)" in t
    assert "the benchmarks a, b are left out" in v.completion_text(
        board, NS(**{**vars(comp), "dropped_benchmarks": ["a", "b"]}), ["x"]
    )
    assert "predict about as well as the low-rank fit" in v.cv_text(_cv(0.52), 8)  # within 5%
    assert "finds directions beyond" in v.cv_text(_cv(0.6), 8)
    assert "It beats the mean on 1 of 8 benchmarks" in v.cv_text(_cv(0.6), 8)
    same = pd.DataFrame([[5.5, 6.1], [4.0, 4.2]])
    im, spec = NS(shape=(30, 10), imputed_fraction=0.4), NS(d_eff=3.1, lo=2.5, hi=3.6)
    block_cv = NS(ratio=0.6, mae={"twoway": 0.4, "mean": 0.8})
    assert "(4.20 on the same frontier rows)" in v.block_text(im, same, 12, spec, block_cv)
    assert "too few for a correlation matrix" in v.block_text(im, same, 2, spec, block_cv)
    cal = pd.DataFrame({"tau": [1, 1], "d_eff_true": [3.0, 3.0], "d_eff_mean": [5.0, 5.0], "d_eff_lrmc": [3.5, 3.5]})
    c = v.calibration_text(cal, None, 5.5, None)
    assert "reads 5.0 after mean imputation and 3.5 after completion" in c and "lies outside the range" in c
    assert "what a true $\\deff$ of about 3.2 produces" in v.calibration_text(cal, cal, 5.5, 3.2)
    b = v.summary_bullets("epoch", _cv(0.6), spec, 5.4, (5.5, 3.1), cal)
    assert len(b) == 4 and "does worse" in b[0] and b[1].endswith("where the paper has 5.4.") and "+2.0" in b[3]
    assert v.summary_bullets("epoch", _cv(0.6), spec, None, None, None)[1].endswith("3.6].")
    assert v.summary_bullets("epoch", None, None, None, None, None) == []


def test_exclusion():
    s_all, s_front = NS(lo=2.0, hi=3.0), NS(lo=2.5, hi=3.5)
    assert v.intervals_exclude(5.0, 6.0, s_all, s_front, None)
    assert not v.intervals_exclude(2.5, 6.0, s_all, s_front, None)
    assert not v.intervals_exclude(5.0, 6.0, s_all, s_front, NS(lo=4.0, hi=5.5))  # the block's interval holds it
    assert v.exclusion_text(True, 5.0, 6.0).endswith("does not survive a better estimator.")
    assert "do not all exclude" in v.exclusion_text(False, 5.0, 6.0)
