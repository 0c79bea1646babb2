"""Shared fixtures: the data directory (or None) and small synthetic matrices."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.data import resolve_data_dir


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
