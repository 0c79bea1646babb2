"""dkps runs its kernels with one BLAS thread and gives the caller's setting back."""

from __future__ import annotations

import pytest
from threadpoolctl import threadpool_info, threadpool_limits

import dkps.space
from dkps import LRMC, PKPS
from dkps.threads import blas_threads, single_blas_thread


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


def _counts(api: str) -> list[int]:
    return [d["num_threads"] for d in threadpool_info() if d["user_api"] == api]


def test_openmp_is_limited_only_when_asked_and_given_back():
    """``openmp=True`` (blindspot.core's kernels) limits every OpenMP runtime too; the default (dkps's) only BLAS."""
    import sklearn.cluster  # noqa: F401  (loads an OpenMP runtime, as torch does in a book kernel)

    if not _counts("openmp"):
        pytest.skip("no OpenMP runtime loaded")

    @single_blas_thread(openmp=True)
    def both():
        return _counts("blas"), _counts("openmp")

    @single_blas_thread
    def blas_only():
        return _counts("blas"), _counts("openmp")

    with threadpool_limits(limits=2):
        assert both() == ([1] * len(_counts("blas")), [1] * len(_counts("openmp")))
        assert blas_only() == ([1] * len(_counts("blas")), [2] * len(_counts("openmp")))
        assert set(_counts("blas")) == set(_counts("openmp")) == {2}
    assert both.__wrapped__.__name__ == "both"
