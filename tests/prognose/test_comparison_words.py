"""The sentences and verdicts of a comparison: decided by the numbers, through the calibrated rule."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.prognose import comparison_words as words, paired_comparison as pc


def _pair(shift: float, n: int = 3000, seed: int = 0):
    rng = np.random.default_rng(seed)
    ease = rng.normal(size=n)
    a = (rng.normal(size=n) + ease > 0).astype(float)
    b = (rng.normal(size=n) + ease + shift > 0).astype(float)
    return pc.compare_pair({"x": a, "y": a[::-1]}, {"x": b, "y": b[::-1]}, "A", "B", n_boot=300)


def test_pair_verdict_holds_fails_or_is_unresolved_by_the_interval():
    up, down, same = _pair(0.3), _pair(-0.3), _pair(0.0, seed=3)
    assert words.pair_verdict(up).holds is True
    assert words.pair_verdict(down).holds is False  # interval below 0 and the test can detect
    v = words.pair_verdict(same)
    assert v.holds is None and v.basis == "statistical"
    assert v.test.interval == same.micro.interval and v.test.detectable == same.micro.detectable
    assert "B is better than A on x, y" in words.pair_sentence(up)
    assert "not resolved at 95% on x, y" in words.pair_sentence(same)


def test_unpaired_misses_verdict_uses_the_t_interval_over_draws():
    by = pd.DataFrame({"items": [100] * 4, "draw": range(4), "n paired": [5, 6, 7, 6], "n unpaired": [3, 3, 4, 4],
                       "pairs": 10})  # fmt: skip
    v = words.unpaired_misses_verdict(by, 100)
    d = np.array([2, 3, 3, 2.0])
    half = 3.182446305284263 * d.std(ddof=1) / 2
    assert v.test.estimate == pytest.approx(2.5)
    assert v.test.interval == pytest.approx((2.5 - half, 2.5 + half))
    assert v.holds is True
    with pytest.raises(ValueError, match="two draws"):
        words.unpaired_misses_verdict(by, 50)


def test_pairwise_verdict_counts_the_missed_pairs():
    rng = np.random.default_rng(1)
    ease = rng.normal(size=600) * 2
    scores = {f"m{k}": (rng.normal(size=600) + ease < 0.2 * k).astype(float) for k in range(4)}
    pt = pc.pairwise_tests(scores)
    v = words.pairwise_verdict(pt)
    assert v.basis == "exact" and v.book == len(pt.missed)
    assert v.holds == (len(pt.missed) == 0)


def test_a_sentence_keeps_the_case_of_a_model_name():
    rng = np.random.default_rng(2)
    a = (rng.random(2000) < 0.5).astype(float)
    b = np.where(rng.random(2000) < 0.2, 1.0, a)
    c = pc.compare_pair({"x": a}, {"x": b}, "model a", "model b", n_boot=200)
    assert words.pair_sentence(c).startswith("model b is better than model a")
    same = pc.compare_pair({"x": a}, {"x": a}, "model a", "model b", n_boot=200)
    assert words.pair_sentence(same).startswith("The difference is not resolved")
