"""blindspot.prognose.quality_functionals: the top-1 swap rates of App. H.24."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.prognose import quality_functionals as qf


def test_block_size_does_not_change_the_stream():
    a = qf.quality_swap_rates(n=12, D=6, d=2, n_trials=300, seed=4, batch=300)
    b = qf.quality_swap_rates(n=12, D=6, d=2, n_trials=300, seed=4, batch=7)
    assert a.rates.equals(b.rates)
    assert np.array_equal(a.w, b.w)
    assert np.linalg.norm(a.w) == pytest.approx(1.0)


def test_observing_the_quality_itself_never_swaps():
    """With d = 1 the benchmark ranks by c_1, which is exactly the functional e1 . c."""
    r = qf.quality_swap_rates(n=20, D=5, d=1, n_trials=400, seed=0)
    assert r.rates["e1 . c"] == 0.0


@pytest.mark.parametrize("name, d, D", [("e1 . c", 4, 6), ("(1/sqrt D) sum c", 4, 16)])
def test_two_models_follow_sheppards_formula(name, d, D):
    """For n = 2 the swap is a sign disagreement of two correlated normal differences:
    P = arccos(rho) / pi (Sheppard). e1 . c has rho = 1/sqrt(d); the sum has rho = sqrt(d/D); both 1/2 here."""
    r = qf.quality_swap_rates(n=2, D=D, d=d, n_trials=40_000, seed=2)
    assert abs(r.rates[name] - np.arccos(0.5) / np.pi) < 4 * r.se[name]


@pytest.mark.parametrize(
    "kw, match",
    [
        (dict(n=1), "at least 2 models"),
        (dict(d=20, D=20), "between 1 and D - 1"),
        (dict(d=0), "between 1 and D - 1"),
        (dict(n_trials=0), "at least 1"),
    ],
)
def test_bad_input(kw, match):
    with pytest.raises(ValueError, match=match):
        qf.quality_swap_rates(**kw)


def test_the_papers_rates():
    """App. H.24: n = 148, D = 20, d = 5, 5000 trials, default_rng(1) (no data needed)."""
    r = qf.quality_swap_rates()
    assert r.rates.round(3).to_numpy() == pytest.approx([0.961, 0.905, 0.926, 0.978, 0.981])
