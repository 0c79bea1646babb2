"""Tests of the Shephard / domination corollary and the App. H.20 experiment."""

from itertools import combinations

import numpy as np
import pytest

from blindspot.core.convex_bodies import random_symmetric_polygon, reuleaux_triangle
from blindspot.prognose import domination as dm


def test_reuleaux_constant_width_and_area():
    R = reuleaux_triangle(1.0)
    t = np.linspace(0, 2 * np.pi, 50_001)
    assert np.max(np.abs(R.width(t) - 1.0)) < 1e-9
    assert dm.body_area(R) == pytest.approx((np.pi - np.sqrt(3)) / 2, abs=1e-6)


def test_disk_beats_reuleaux_in_area_while_narrower_everywhere():
    r = dm.reuleaux_vs_disk(0.01)
    assert r.w_K_max == pytest.approx(0.99) and r.w_L_min == pytest.approx(1.0, abs=1e-9)
    assert r.area_K == pytest.approx(0.7698, abs=1e-4) and r.area_L == pytest.approx(0.7048, abs=1e-4)
    assert r.contradiction
    eps_c = 1 - np.sqrt(2 * (np.pi - np.sqrt(3)) / np.pi)  # where the disk's area drops to the Reuleaux area
    assert dm.reuleaux_vs_disk(eps_c - 1e-3).contradiction and not dm.reuleaux_vs_disk(eps_c + 1e-3).contradiction


def test_symmetric_bodies_cannot_contradict():
    # origin-symmetric: w = 2h, so narrower everywhere means K inside L and area K <= area L
    rng = np.random.default_rng(0)
    t = np.linspace(0, 2 * np.pi, 4000, endpoint=False)
    checked = 0
    for _ in range(300):
        K, L = random_symmetric_polygon(4, rng, 0.9), random_symmetric_polygon(6, rng, 1.0)
        if np.all(K.width(t) < L.width(t)):
            checked += 1
            assert dm.polygon_area(K.vertices) <= dm.polygon_area(L.vertices)
    assert checked > 10


def test_needle_widths_and_vanishing_volume():
    rng = np.random.default_rng(1)
    U = rng.normal(size=(12, 5))
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    U = U * np.sign(U[:, :1])  # one open half-space so the default axis is not orthogonal to any
    nd = dm.needle_example(U, length=50.0, thickness=1e-3)
    assert np.allclose(nd.widths_needle, 50.0 * np.abs(U @ nd.axis) + 1e-3)
    vols = [dm.needle_example(U, 50.0, t).vol_needle for t in (1e-1, 1e-2, 1e-3)]
    assert vols[0] > vols[1] > vols[2] and vols[2] < 1e-9
    assert dm.ball_volume(3, 1.0) == pytest.approx(4 * np.pi / 3)
    assert dm.needle_example(U, length=200.0, thickness=1e-3).contradiction


def _brute_pairs(S, held):
    vis = [c for c in range(S.shape[1]) if c not in set(held)]
    out = []
    for a, b in combinations(range(len(S)), 2):
        d = S[b, vis] - S[a, vis]
        lo, hi = (a, b) if np.all(d > 0) else ((b, a) if np.all(d < 0) else (None, None))
        if lo is not None and np.any(S[lo, held] > S[hi, held]):
            out.append((lo, hi))
    return out


def test_domination_pairs_match_brute_force():
    rng = np.random.default_rng(2)
    S = rng.normal(size=(30, 6)) + rng.normal(size=(30, 1)) * 2
    for held in ([0, 1, 2], [3, 5, 1], [4]):
        assert dm.domination_pairs(S, np.array(held)) == _brute_pairs(S, held)


def test_all_splits_invariant_to_column_order():
    rng = np.random.default_rng(3)
    S = rng.normal(size=(25, 6)) + rng.normal(size=(25, 1)) * 2
    a = dm.domination_contradictions(S, splits="all")
    b = dm.domination_contradictions(S[:, rng.permutation(6)], splits="all")
    assert a.n_unique_pairs == b.n_unique_pairs and a.n_splits == 20
    assert sorted(a.per_split) == sorted(b.per_split)


def test_random_splits_count_and_cap():
    rng = np.random.default_rng(4)
    S = rng.normal(size=(40, 8)) + rng.normal(size=(40, 1)) * 3
    r = dm.domination_contradictions(S, n_splits=10, seed=0)
    assert r.n_unique_pairs == len(r.pairs) <= r.per_split.sum()
    assert r.capped(5) == min(5, r.n_unique_pairs)
    # a population where one model beats another on everything has no contradiction for that pair
    T = np.array([[1.0, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]])
    assert dm.domination_contradictions(T, splits="all").n_unique_pairs == 0


def test_bad_input():
    with pytest.raises(ValueError, match="eps must be in"):
        dm.reuleaux_vs_disk(0.0)
    with pytest.raises(ValueError, match="orthogonal"):
        dm.needle_example(np.eye(2), 10.0, 0.1, axis=np.array([1.0, 0.0]))
    with pytest.raises(ValueError, match="unit vectors"):
        dm.needle_example(np.ones((2, 2)), 10.0, 0.1)
    with pytest.raises(ValueError, match="splits must be"):
        dm.domination_contradictions(np.random.default_rng(0).normal(size=(5, 4)), splits="some")


def test_prism_pair_lifts_the_planar_counterexample_to_3d():
    p = dm.prism_pair(0.01)
    # the disk's widths are 0.99 times at most the Reuleaux widths, in every direction of R^3
    assert p.max_width_ratio == pytest.approx(0.99, abs=1e-9)
    assert p.vol_K == pytest.approx(np.pi * 0.495**2 * 0.99) and p.vol_L == pytest.approx((np.pi - np.sqrt(3)) / 2)
    assert p.contradiction
    eps_c = 1 - (2 * (np.pi - np.sqrt(3)) / np.pi) ** (1 / 3)  # where the volumes cross: 0.0354
    assert dm.prism_pair(eps_c - 1e-3).contradiction and not dm.prism_pair(eps_c + 1e-3).contradiction


def test_sphere_directions_are_unit_and_spread():
    U = dm.sphere_directions(500)
    assert np.allclose(np.linalg.norm(U, axis=1), 1.0)
    assert np.abs(U.mean(axis=0)).max() < 0.01  # balanced: no hemisphere is favoured


def test_symmetric_polytopes_cannot_contradict_in_3d():
    s = dm.symmetric_domination_check(n_pairs=300, seed=1, n_dirs=1500, dim=3)
    assert s.n_dominated > 5 and s.n_violations == 0
    with pytest.raises(ValueError, match="dim"):
        dm.symmetric_domination_check(dim=4)


def test_quantities_of_the_needle_the_disk_pair_and_the_domination_count():
    """Each named quantity is the number it names: the narrowest width, the spread, the share of all pairs."""
    import numpy as np

    U = np.array([[1.0, 0.0], [np.cos(1.0), np.sin(1.0)]])
    needle = dm.needle_example(U, length=8.0, thickness=0.02)
    q = needle.quantities()
    assert q["width_min"] == pytest.approx(min(8.0 * abs(U @ needle.axis)) + 0.02) and q["n_dirs"] == 2
    assert (q["length"], q["thickness"]) == (8.0, 0.02)
    rd = dm.reuleaux_vs_disk(eps=0.01, n_dirs=2000)
    assert rd.quantities()["w_L_spread"] == pytest.approx(rd.w_L_max - rd.w_L_min)
    S = np.array([[3.0, 3.0, 0.0, 0.0], [2.0, 2.0, 1.0, 1.0], [1.0, 1.0, 2.0, 2.0], [0.0, 0.0, 3.0, 3.0]])
    dom = dm.domination_contradictions(S, splits="all")
    d = dom.quantities()
    assert d["n_pairs"] == dom.n_unique_pairs and d["share"] == pytest.approx(dom.n_unique_pairs / 6)
    assert (d["n_models"], d["k_held"], d["k_visible"], d["n_splits"]) == (4, 2, 2, 6)


def test_the_existence_and_threshold_verdicts():
    from blindspot.prognose import verdicts

    rd, prism = dm.reuleaux_vs_disk(eps=0.01, n_dirs=2000), dm.prism_pair(eps=0.01, n_dirs=2000)
    needle = dm.needle_example(np.eye(2), length=8.0, thickness=0.02, axis=np.array([1.0, 1.0]))
    assert verdicts.narrower_yet_larger_in_3d(prism).holds  # the main text's existence claim holds in D = 3
    threshold = verdicts.no_phenomenon_below_3(rd, needle)
    assert not threshold.holds and threshold.book.startswith("D = 2: areas")  # D = 2 already does it
