"""The pair sums run over blocks of models sized by a memory budget, through joblib."""

from __future__ import annotations

import numpy as np
import pytest

import dkps.pair_sums as pair_sums
from dkps import DKPS, PKPS, generate_benchmark_data
from dkps.synthetic import score_records

_BLOCK_SUMS = pair_sums._block_sums


@pytest.fixture(scope="module")
def mid():
    bd = generate_benchmark_data(d_obs=16, n_models=60, n_tasks=6, n_queries_per_task=10, obs_prob=0.6, random_state=5)
    return score_records(bd)


def _blocked(monkeypatch, make, records):
    """Fit with the per-model update cache off (the blocked path) and record each block's size."""
    monkeypatch.setattr(pair_sums, "EXACT_UPDATE_BYTES", 0)
    sizes = []

    def spy(meta, A_blk, *args):
        sizes.append(len(A_blk))
        return _BLOCK_SUMS(meta, A_blk, *args)

    monkeypatch.setattr(pair_sums, "_block_sums", spy)
    est = make().fit(records)
    return est, sizes


@pytest.mark.parametrize(
    "kw", [{}, {"response_kwargs": {"kernel": "cosine"}}, {"sigma_ratio": 1.0}], ids=["PKPS", "cosine", "DKPS-rbf"]
)
def test_a_small_budget_cuts_the_models_into_blocks_with_the_same_space(monkeypatch, mid, kw):
    cls = DKPS if "sigma_ratio" in kw else PKPS
    one, sizes_one = _blocked(monkeypatch, lambda: cls(**kw), mid)
    many, sizes_many = _blocked(monkeypatch, lambda: cls(memory_budget=0.02, **kw), mid)
    assert sizes_one == [60]
    assert len(sizes_many) > 3 and sum(sizes_many) == 60 and max(sizes_many) < 60
    # blocks are row slices of the same products: equal up to the rounding of a matrix product
    np.testing.assert_allclose(many._num, one._num, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(many.distance_matrix_, one.distance_matrix_, rtol=0, atol=1e-12)
    p1 = np.array([d["score_hat"] for d in one.predict()])
    p2 = np.array([d["score_hat"] for d in many.predict()])
    np.testing.assert_allclose(p2, p1, rtol=0, atol=1e-12)


def test_block_size_follows_the_budget(monkeypatch, mid):
    monkeypatch.setattr(pair_sums, "EXACT_UPDATE_BYTES", 0)
    est = PKPS().fit(mid)
    A = np.arange(len(est.model_names_))
    plans, _ = pair_sums._suite_plans(est._stats, est.layout_, A, est.model_names_, "rbf", True, False)
    n, H = len(A), len(est.layout_.grid)
    b1 = pair_sums.block_size(plans, n, H, 0.05)
    b2 = pair_sums.block_size(plans, n, H, 0.1)
    per_model = 0.05 * 2**20 / b1
    assert 1 <= b1 < b2 <= 2 * b1 + 1
    # one model's share: its output rows (4 arrays of H x n) plus its statistics and contraction rows
    assert per_model >= 4 * 8 * H * n


def test_parallel_blocks_equal_serial_bit_for_bit(monkeypatch, mid):
    monkeypatch.setattr(pair_sums, "EXACT_UPDATE_BYTES", 0)
    serial = PKPS(memory_budget=0.02).fit(mid)
    par = PKPS(memory_budget=0.02, n_jobs=2).fit(mid)
    np.testing.assert_array_equal(par._num, serial._num)
    np.testing.assert_array_equal(par.distance_matrix_, serial.distance_matrix_)
    assert par.predict() == serial.predict()


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "big", True])
def test_memory_budget_is_checked(mid, bad):
    with pytest.raises(ValueError, match="memory_budget"):
        PKPS(memory_budget=bad).fit(mid)


@pytest.mark.parametrize("bad", [0, 1.5, "all", True])
def test_n_jobs_is_checked(mid, bad):
    with pytest.raises(ValueError, match="n_jobs"):
        PKPS(n_jobs=bad).fit(mid)


@pytest.mark.parametrize("n", [1, 2, 7, 60, 1000, 1001])
@pytest.mark.parametrize("most", [1, 3, 59, 60, 271, 5000])
def test_blocks_are_as_few_as_the_budget_allows_and_equal_within_one(n, most):
    bounds = pair_sums.block_bounds(n, most)
    sizes = [e - s for s, e in bounds]
    assert bounds[0][0] == 0 and bounds[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))  # consecutive, no gap, no overlap
    assert len(bounds) == -(-n // most)  # no more blocks than the budget needs
    assert max(sizes) <= most and max(sizes) - min(sizes) <= 1
