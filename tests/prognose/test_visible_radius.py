"""blindspot.prognose.visible_radius: the practitioner formula and Table 2."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core.conventions import frontier
from blindspot.core.covering import covering_radius
from blindspot.data.suites import load_suite
from blindspot.prognose import visible_radius


def _scores(rng, n=120, k=8, f=3):
    L = rng.normal(size=(k, f)) + np.array([1.5] + [0] * (f - 1))
    return 50 + 10 * (rng.normal(size=(n, f)) @ L.T + 0.5 * rng.normal(size=(n, k)))


def test_paper_loadings_are_projected_correlation_columns(rng):
    S = _scores(rng)
    L = visible_radius.benchmark_directions(S, loading="paper", d=3)
    C = np.corrcoef(S, rowvar=False)
    lam, V = np.linalg.eigh(C)
    V3 = V[:, ::-1][:, :3]
    proj = V3 @ V3.T @ C  # column j = P_eff Sigma e_j, in the ambient coordinates
    coords = V3.T @ proj  # its coordinates in the eigenbasis
    unit = coords.T / np.linalg.norm(coords.T, axis=1, keepdims=True)
    # equal up to the sign of each eigenvector: compare Gram matrices
    assert L.directions @ L.directions.T == pytest.approx(unit @ unit.T, abs=1e-10)


def test_stated_formula_properties(rng):
    S = _scores(rng)
    r = visible_radius.visible_radius(S)
    assert r.omega <= np.pi / 2 + 1e-12
    assert r.delta_vis == pytest.approx(2 * r.R * r.omega)
    assert r.delta_vis_capped <= r.trivial_cap + 1e-12
    assert r.exceeds_trivial == (r.omega > 1.0)
    assert r.d == int(np.ceil(r.d_eff))


def test_invariances(rng):
    S = _scores(rng)
    base = visible_radius.visible_radius(S)
    perm = rng.permutation(S.shape[1])
    p = visible_radius.visible_radius(S[:, perm])
    assert p.omega == pytest.approx(base.omega, abs=1e-9)
    a = rng.uniform(0.5, 3.0, S.shape[1])
    t = visible_radius.visible_radius(a * S + rng.normal(size=S.shape[1]))  # positive affine per column
    for f in ("R", "omega", "delta2", "ratio"):
        assert getattr(t, f) == pytest.approx(getattr(base, f), rel=1e-9)
    # eigenvector sign flips reflect the directions: the covering radius does not move
    D = visible_radius.benchmark_directions(S).directions
    flip = D * np.where(rng.random(D.shape[1]) < 0.5, -1.0, 1.0)
    assert covering_radius(flip).omega == pytest.approx(covering_radius(D).omega, abs=1e-10)
    assert covering_radius(flip, projective=False).omega == pytest.approx(
        covering_radius(D, projective=False).omega, abs=1e-9
    )


def test_code_variant_is_a_signed_monte_carlo_lower_estimate(rng):
    S = _scores(rng)
    mc = visible_radius.visible_radius(S, **visible_radius.VARIANTS["code"])
    exact = visible_radius.visible_radius(S, loading="code", projective=False, d_round="round", radius="exact")
    assert mc.omega <= exact.omega + 1e-12
    assert mc.d == max(round(mc.d_eff), 2)


def test_visible_radius_table_layout(rng):
    t = visible_radius.visible_radius_table({"a": _scores(rng), "b": _scores(rng, k=6)})
    assert list(t.index) == [("a", "stated"), ("a", "code"), ("b", "stated"), ("b", "code")]


@pytest.mark.parametrize(
    "kw,match",
    [
        (dict(d=9), "only k = 8"),
        (dict(d=1), "below 2"),
        (dict(loading="pca"), "loading must be"),
        (dict(d_round="floor"), "d_round must be"),
    ],
)
def test_bad_options(rng, kw, match):
    with pytest.raises(ValueError, match=match):
        visible_radius.visible_radius(_scores(rng), **kw)


def test_bad_scores(rng):
    S = _scores(rng)
    S[3, 2] = np.nan
    with pytest.raises(ValueError, match="missing or infinite"):
        visible_radius.visible_radius(S)
    with pytest.raises(ValueError, match="at least 3 models"):
        visible_radius.visible_radius(_scores(rng)[:2])
    T = _scores(rng)
    T[1] = T[0]  # two identical top rows -> Delta_2 = 0
    T[0] += 100
    T[1] = T[0]
    with pytest.raises(ValueError, match="Delta_2 = 0"):
        visible_radius.visible_radius(T)


def test_table2_reproduces_the_paper(data_dir):
    """Table 2 of the paper (code variant) and the stated formula's values."""
    PAPER = {
        "ollm_v2": (5.05, 2.10, 21.2, 123),
        "extended": (7.30, 1.89, 27.6, 385),
        "livebench": (4.30, 1.88, 16.1, 26),
    }
    STATED = {"ollm_v2": 1.270, "extended": 1.291, "livebench": 1.427}
    for name, (R, om, dv, ratio) in PAPER.items():
        f = frontier(load_suite(name, data_dir=data_dir, fallback=False))
        code = visible_radius.visible_radius(f, **visible_radius.VARIANTS["code"])
        assert code.R == pytest.approx(R, abs=0.005)
        assert code.omega == pytest.approx(om, abs=0.005)
        assert code.delta_vis == pytest.approx(dv, abs=0.05)
        assert code.ratio == pytest.approx(ratio, abs=0.5)
        assert visible_radius.visible_radius(f).omega == pytest.approx(STATED[name], abs=5e-4)
