"""dkps runs its kernels with one BLAS thread and gives the caller's setting back."""

from __future__ import annotations

from threadpoolctl import threadpool_info, threadpool_limits

import dkps.space
from dkps import LRMC, PKPS
from dkps.threads import blas_threads


def blas_counts() -> list[int]:
    return [d["num_threads"] for d in threadpool_info() if d["user_api"] == "blas"]


def test_fit_and_predict_run_with_one_blas_thread(small, monkeypatch):
    seen = []
    real = dkps.space.classical_mds

    def spy(*args, **kwargs):
        seen.append(blas_counts())
        return real(*args, **kwargs)

    monkeypatch.setattr(dkps.space, "classical_mds", spy)
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas_counts()
        est = PKPS().fit(small)
        est.predict()
        LRMC().fit(small).predict()
        after = blas_counts()
    assert seen and all(c == [1] * len(c) for c in seen)
    assert before == after == [2] * len(before)


def test_blas_threads_restores_the_callers_setting():
    with threadpool_limits(limits=2, user_api="blas"):
        with blas_threads(1):
            assert set(blas_counts()) == {1}
        assert set(blas_counts()) == {2}
