"""Shared fixtures: the data directory (or None) and small synthetic matrices."""

from __future__ import annotations

import os

import numpy as np
import pytest

from blindspot.data.suites import resolve_data_dir
from blindspot.data.synthetic import random_correlations
from dkps import embed

# Tests embed into throw-away caches; the local encoder's ONNX export (named by the weights' checksum,
# so never stale) is made once, in the user's default cache folder, instead of once per test.
os.environ.setdefault("DKPS_ONNX_DIR", str(embed.onnx_folder()))


@pytest.fixture(scope="session")
def data_dir():
    """The real data directory, or skip the test when there is none."""
    d = resolve_data_dir()
    if d is None:
        pytest.skip("no data directory (set BLINDSPOT_DATA or place ../shared/data)")
    return d


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def random_corr():
    """make(rng, k, n_factors=None): a random k x k correlation matrix, from
    :func:`~blindspot.data.synthetic.random_correlations`, or with ``n_factors`` normal factors plus noise."""

    def make(rng: np.random.Generator, k: int, n_factors: int | None = None) -> np.ndarray:
        if n_factors is None:
            return random_correlations(1, k, rng)[0]
        L = rng.normal(size=(k, n_factors))
        W = L @ L.T + np.diag(rng.uniform(0.1, 1.0, k))
        d = np.sqrt(np.diag(W))
        return W / d[:, None] / d[None, :]

    return make
