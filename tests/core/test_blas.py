"""core's batched kernels run with one BLAS thread (dkps.threads, the one thread-limit helper) and give the caller's setting back."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

import blindspot.core.halfsplit as halfsplit
import blindspot.core.spectrum as spectrum
from dkps.threads import blas_threads


def blas_counts() -> list[int]:
    return [d["num_threads"] for d in threadpool_info() if d["user_api"] == "blas"]


def test_bootstrap_and_half_split_run_with_one_blas_thread(monkeypatch):
    seen = []
    real_eig = np.linalg.eigvalsh
    real_eval = halfsplit._evaluate_batched

    def spy_eig(*a, **k):
        seen.append(("bootstrap", blas_counts()))
        return real_eig(*a, **k)

    def spy_eval(*a, **k):
        seen.append(("half_split", blas_counts()))
        return real_eval(*a, **k)

    monkeypatch.setattr(spectrum.np.linalg, "eigvalsh", spy_eig)
    monkeypatch.setattr(halfsplit, "_evaluate_batched", spy_eval)
    S = np.random.default_rng(0).normal(size=(40, 8))
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_counts()
        spectrum.bootstrap_d_eff(S, n_boot=50, seed=1)
        halfsplit.half_split(S, n_trials=50, seed=1)
        after = blas_counts()
    assert {w for w, _ in seen} == {"bootstrap", "half_split"}
    assert all(c == [1] * len(c) for _, c in seen)
    assert before == after == [2] * len(before)


def test_the_limit_changes_no_number():
    S = np.random.default_rng(3).normal(size=(60, 10))
    limited = spectrum.bootstrap_d_eff(S, n_boot=200, seed=2)
    with blas_threads(2):
        free = spectrum.bootstrap_d_eff.__wrapped__(S, n_boot=200, seed=2)
    np.testing.assert_allclose(limited.samples, free.samples, rtol=1e-12)
    a = halfsplit.half_split(S, n_trials=200, seed=0)
    with blas_threads(2):
        b = halfsplit.half_split.__wrapped__(S, n_trials=200, seed=0)
    np.testing.assert_array_equal(a.top5_changes, b.top5_changes)
    assert a.top1_swap_rate == b.top1_swap_rate
