"""blindspot.diagnose.peer_deff: BenchScope's covariance ED beside the book's correlation d_eff."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core.conventions import frontier_mask
from blindspot.core.spectrum import d_eff
from blindspot.data.tables import STANDARDISED_RULE
from blindspot.diagnose.peer_deff import peer_deff


def test_rank_one_scores_have_one_direction_every_way(rng):
    X = rng.normal(size=(50, 1)) @ rng.uniform(1, 3, size=(1, 5)) + rng.normal(size=5)
    p = peer_deff(X)
    for v in (p.population_covariance, p.population_correlation, p.frontier_correlation, p.frontier_covariance):
        assert v == pytest.approx(1.0, abs=1e-9)


def test_scale_moves_the_covariance_ratio_not_the_correlation_one(rng):
    X = rng.normal(size=(400, 4))
    Y = X * np.array([100.0, 1.0, 1.0, 1.0])  # one benchmark on a scale a hundred times wider
    a, b = peer_deff(X), peer_deff(Y)
    assert b.population_correlation == pytest.approx(a.population_correlation, rel=1e-12)
    assert b.population_covariance < 1.01 < 3.5 < a.population_covariance  # the wide one is nearly all of it
    # covariance PR of equal-variance columns: sum^2 / sum of squares of the eigenvalues of the sample covariance
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False))
    assert a.population_covariance == pytest.approx(lam.sum() ** 2 / (lam**2).sum())


def test_frontier_is_the_survey_rule(rng):
    X = rng.normal(size=(60, 2)) @ rng.normal(size=(2, 5)) + 0.5 * rng.normal(size=(60, 5))
    p = peer_deff(X)
    front = frontier_mask(X, rule=STANDARDISED_RULE)
    assert p.n_frontier == front.sum()
    assert p.frontier_correlation == pytest.approx(d_eff(X[front]))
    assert list(p.frame()["n"]) == [60, 60, p.n_frontier, p.n_frontier]


def test_refuses_missing_cells(rng):
    X = rng.normal(size=(20, 3))
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing"):
        peer_deff(X)


def test_gaps_and_sources_say_which_choice_moves_the_number(rng):
    X = rng.normal(size=(60, 2)) @ rng.normal(size=(2, 5)) + 0.5 * rng.normal(size=(60, 5))
    p = peer_deff(X)
    q = p.quantities()
    assert q["gap_models"] == pytest.approx(d_eff(X[frontier_mask(X, rule=STANDARDISED_RULE)]) - d_eff(X))
    assert q["gap_matrix"] == pytest.approx(p.population_correlation - p.population_covariance)
    assert q["n_models"] == 60 and q["table"] == "scores"
    frame = p.sources_frame(1.7)
    assert frame["source"].iloc[0] == "BenchScope's ED (its value: 1.7)" and list(frame["PR"]) == list(p.frame()["PR"])
    assert f"{p.frontier_correlation:.3f}" in p.evidence
