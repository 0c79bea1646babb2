"""Affinities and kernels against a brute-force double sum over response rows."""

from __future__ import annotations

import numpy as np
import pytest

from dkps import PKPS, kernels


def make_rows(seed=0, suites=("s",)):
    rng = np.random.default_rng(seed)
    rows = []
    for m in ("a", "b", "c"):
        for si, s in enumerate(suites):
            for q in range(3):
                if rng.random() < 0.25:
                    continue
                for _ in range(1 + int(rng.integers(0, 2))):
                    rows.append(
                        dict(
                            model_id=m,
                            task_id=f"t{si}",
                            query_id=f"q{q}",
                            suite=s,
                            query_embedding=np.array([q + 0.3 * si, 1.0 - q, 0.5]),
                            response_embedding=rng.normal(size=4) + 0.5,
                            score=float(rng.random()),
                        )
                    )
    return rows


def brute(rows, kq, kr):
    names = sorted({r["model_id"] for r in rows})
    A = np.full((len(names), len(names)), np.nan)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            num = den = 0.0
            for r in rows:
                if r["model_id"] != a:
                    continue
                for s in rows:
                    if s["model_id"] != b or s["suite"] != r["suite"]:
                        continue
                    w = kq(r, s)
                    num += w * kr(r["response_embedding"], s["response_embedding"])
                    den += w
            if den > 1e-12:
                A[i, j] = num / den
    return A


RAW = dict(pca_dim=None, normalize=False)
H = 0.7


def rbf(r, s):
    d = r["query_embedding"] - s["query_embedding"]
    return np.exp(-d @ d / (2 * H * H))


def cos(u, v):
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    return 0.0 if nu < 1e-12 or nv < 1e-12 else u @ v / (nu * nv)


QUERY_CASES = {
    "rbf": (dict(kernel="rbf", bandwidth=H), rbf),
    "delta": (
        dict(kernel="delta"),
        lambda r, s: float(r["task_id"] == s["task_id"] and r["query_id"] == s["query_id"]),
    ),
    "linear": (dict(kernel="linear"), lambda r, s: max(r["query_embedding"] @ s["query_embedding"], 0.0)),
    "cosine": (dict(kernel="cosine"), lambda r, s: max(cos(r["query_embedding"], s["query_embedding"]), 0.0)),
    "callable": (dict(kernel=lambda U1, U2: np.exp(-kernels.sq_dists(U1, U2) / (2 * H * H))), rbf),
}


@pytest.mark.parametrize("name", list(QUERY_CASES))
@pytest.mark.parametrize("suites", [("s",), ("s", "u")])
def test_affinity_matches_double_sum(name, suites):
    rows = make_rows(1, suites)
    qkw, kq = QUERY_CASES[name]
    est = PKPS(query_kwargs=dict(qkw, **RAW), response_kwargs=RAW).fit(rows)
    np.testing.assert_allclose(est.affinity_, brute(rows, kq, lambda x, y: x @ y), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("rk", ["rbf", "cosine", "callable"])
def test_response_kernels_match_double_sum(rk):
    rows = make_rows(2)
    h = 1.3
    if rk == "rbf":
        kw, kr = dict(kernel="rbf", bandwidth=h), lambda x, y: np.exp(-((x - y) @ (x - y)) / (2 * h * h))
    elif rk == "cosine":
        kw, kr = dict(kernel="cosine"), cos
    else:
        kw, kr = dict(kernel=lambda X1, X2: (X1 @ X2.T) ** 2), lambda x, y: (x @ y) ** 2
    est = PKPS(query_kwargs=dict(kernel="rbf", bandwidth=H, **RAW), response_kwargs=dict(kw, **RAW)).fit(rows)
    np.testing.assert_allclose(est.affinity_, brute(rows, rbf, kr), rtol=1e-12, atol=1e-12)


def test_callable_kernel_must_be_nonnegative_and_finite():
    rows = make_rows(1)
    with pytest.raises(ValueError, match="negative"):
        PKPS(query_kwargs=dict(kernel=lambda a, b: -np.ones((len(a), len(b))))).fit(rows)
    with pytest.raises(ValueError, match="non-finite"):
        PKPS(query_kwargs=dict(kernel=lambda a, b: np.full((len(a), len(b)), np.nan))).fit(rows)
    with pytest.raises(ValueError, match="shape"):
        PKPS(query_kwargs=dict(kernel=lambda a, b: np.ones((1, 1)))).fit(rows)


def test_cross_suite_query_kernel_is_zero():
    # model a answers only suite s, model b only suite u: no comparable pair -> unconnected (NaN)
    rows = [
        r
        for r in make_rows(3, ("s", "u"))
        if (r["model_id"], r["suite"]) in {("a", "s"), ("b", "u"), ("c", "s"), ("c", "u")}
    ]
    est = PKPS(query_kwargs=dict(kernel="rbf", bandwidth=5.0, **RAW), response_kwargs=RAW).fit(rows)
    i, j = est.model_names_.index("a"), est.model_names_.index("b")
    assert np.isnan(est.affinity_[i, j])
    # completed through the bridging model c
    k = est.model_names_.index("c")
    D = est.distance_matrix_
    assert D[i, j] == pytest.approx(D[i, k] + D[k, j])


def test_pair_sums_against_einsum_and_chunks(monkeypatch):
    rng = np.random.default_rng(0)
    CA, CB = rng.random((3, 7)), rng.random((5, 9))
    SA, SB = rng.normal(size=(3, 4, 7)), rng.normal(size=(5, 4, 9))
    K = rng.random((7, 9))
    ref = np.einsum("adq,qp,bdp->ab", SA, K, SB)
    for chunk in (2048, 3):
        monkeypatch.setattr(kernels, "_CHUNK", chunk)
        num, den = kernels.pair_sums(CA, SA, CB, SB, K)
        np.testing.assert_allclose(num, ref, rtol=1e-12)
        np.testing.assert_allclose(den, CA @ K @ CB.T, rtol=1e-12)
        num2, _ = kernels.pair_sums(CB, SB, CA, SA, K.T)  # the other contraction order
        np.testing.assert_allclose(num2, ref.T, rtol=1e-12)


def test_query_gram_unknown_kernel():
    with pytest.raises(ValueError, match="unknown query kernel"):
        kernels.query_gram("nope", np.zeros((1, 2)), np.zeros((1, 2)))


def test_pair_sums_with_a_narrow_kernel_use_the_sparse_path_and_agree():
    _sparse_kernel = kernels._sparse_kernel

    rng = np.random.default_rng(5)
    U = rng.normal(size=(300, 3))
    n, r = 6, 4
    C = (rng.random((n, 300)) < 0.5).astype(float)
    S = rng.normal(size=(n, r, 300)) * C[:, None, :]
    K = np.exp(-((U[:, None] - U[None]) ** 2).sum(-1) / (2 * 0.01**2))
    assert _sparse_kernel(K) is not None and _sparse_kernel(np.ones((5, 5))) is None
    num, den = kernels.pair_sums(C, S, C, S, K)
    want_num = np.einsum("arq,qp,brp->ab", S, K, S)
    np.testing.assert_allclose(num, want_num, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(den, C @ K @ C.T, rtol=1e-12)


def test_contract_into_a_buffer_gives_the_same_bits_and_ignores_a_buffer_that_does_not_fit():
    """``contract(..., out=buf)`` writes the same product into ``buf`` (the same BLAS call); a buffer of
    the wrong shape, dtype or layout is ignored rather than half-used."""
    rng = np.random.default_rng(3)
    n, r, Q = 7, 4, 30
    S, C = rng.standard_normal((n, r, Q)), rng.random((n, Q))
    A = rng.standard_normal((Q, Q))
    K = A @ A.T
    W0, CK0 = kernels.contract(C, S, K)
    buf = np.full((n * r, Q), np.nan)
    W1, CK1 = kernels.contract(C, S, K, out=buf)
    assert W1 is buf and np.array_equal(W1, W0) and np.array_equal(CK1, CK0)
    for bad in (np.empty((n * r, Q - 1)), np.empty((n * r, Q), dtype=np.float32), np.empty((Q, n * r)).T):
        W2, _ = kernels.contract(C, S, K, out=bad)
        assert W2 is not bad and np.array_equal(W2, W0)
