"""blindspot.core.conventions: the paper's conventions (z-scores, frontier, aggregate, radius)."""

import numpy as np
import pytest

from blindspot import data
from blindspot.core import conventions


def test_zscore_ddof0_and_constant_column(rng):
    X = rng.normal(size=(50, 3))
    X[:, 2] = 4.0
    Z = conventions.zscore(X)
    np.testing.assert_allclose(Z[:, :2].std(axis=0), 1.0)
    np.testing.assert_allclose(Z[:, 2], 0.0)


def test_frontier_is_inclusive_median(rng):
    X = rng.normal(size=(11, 4))
    m = conventions.frontier_mask(X)
    assert m.sum() == 6  # odd n: the median row is included
    assert X.mean(1)[m].min() >= np.median(X.mean(1))
    with pytest.raises(ValueError, match=r"q must be in \[0, 1\)"):
        conventions.frontier_mask(X, q=1.0)


def test_frontier_too_small():
    t = data.synthetic_suite(n_models=10)
    with pytest.raises(ValueError, match="keeps 1 model"):
        conventions.frontier(t, q=0.95)


def test_ranks_and_gap():
    assert conventions.ranks(np.array([0.2, 0.9, 0.5, 0.9])).tolist() == [4, 1, 3, 2]
    X = np.array([[3.0, 3.0], [2.0, 2.0], [0.0, 0.0], [1.0, 1.0]])
    z = conventions.zscore(X)[:, 0]
    assert conventions.top_gap(X) == pytest.approx(z[0] - z[1])
    assert conventions.population_radius(X) == pytest.approx(np.sqrt(2) * np.abs(z).max())


def test_nan_rejected():
    X = np.ones((4, 2))
    X[1, 1] = np.nan
    with pytest.raises(ValueError, match="missing or infinite cell.*row 1, column 1"):
        conventions.as_matrix(X)
