"""Tests of blindspot.core.convex_bodies: support functions, widths, Hausdorff distances (Theorem 3)."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core.convex_bodies import (
    ArcBody,
    Ball,
    Box,
    Disc,
    Ellipse,
    Ellipsoid,
    Polygon,
    SupportFunctionBody,
    TrigBody,
    arc_oval,
    central_symmetral,
    check_support_values,
    discrete_convexity_slack,
    hausdorff_distance,
    polygon_support,
    power_body,
    random_symmetric_polygon,
    regular_polygon,
    reuleaux_triangle,
    square,
    unit_vectors,
)

THETA = np.linspace(0, 2 * np.pi, 4001)
THETA_SMALL = np.linspace(0, 2 * np.pi, 301)


def _dense_support(points: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Brute-force support function of a point set: max_i <p_i, u(θ)> (chunked over θ)."""
    u = unit_vectors(theta)
    return np.concatenate([np.max(u[i : i + 20] @ points.T, axis=1) for i in range(0, len(u), 20)])


# ---------------------------------------------------------------- support functions


@pytest.mark.parametrize("seed", range(5))
def test_polygon_support_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(30, 2))
    poly = Polygon(pts)
    theta = rng.uniform(-10, 10, 2000)
    # the hull's support equals the support of all points (interior points never win)
    np.testing.assert_allclose(poly.support(theta), _dense_support(pts, theta), atol=1e-12)
    np.testing.assert_allclose(polygon_support(poly.vertices, theta), _dense_support(poly.vertices, theta), atol=1e-12)


def test_square_support_closed_form():
    a = 1.7
    sq = square(a)
    np.testing.assert_allclose(sq.support(THETA), a * (np.abs(np.cos(THETA)) + np.abs(np.sin(THETA))), atol=1e-12)
    assert sq.circumradius() == pytest.approx(a * np.sqrt(2), rel=1e-9)
    assert sq.kappa == 0.0
    np.testing.assert_allclose(sq.width(THETA), 2 * sq.support(THETA), atol=1e-12)


def test_polygon_support_rejects_clockwise_order():
    v = square(1.0).vertices[::-1]
    with pytest.raises(ValueError, match="counter-clockwise"):
        polygon_support(v, THETA)


def test_disc_and_ellipse_support_closed_forms():
    d = Disc(2.0, center=(0.3, -0.4))
    np.testing.assert_allclose(d.support(THETA), 2.0 + 0.3 * np.cos(THETA) - 0.4 * np.sin(THETA))
    assert d.kappa == pytest.approx(0.5)
    e = Ellipse(1.5, 0.5, angle=0.7, center=(0.2, 0.1))
    # independent: support of densely sampled boundary points
    pts = e.boundary(200_000)
    np.testing.assert_allclose(e.support(THETA_SMALL), _dense_support(pts, THETA_SMALL), atol=1e-9)
    assert e.kappa == pytest.approx(0.5 / 1.5**2)


def test_ellipse_curvature_radius_from_discrete_slack():
    """The discrete convexity slack is ρΔ²/2 + O(Δ⁴) with ρ = a²b²/h³ for a centred ellipse."""
    a, b, n = 1.3, 0.7, 20_000
    e = Ellipse(a, b)
    t = 2 * np.pi * np.arange(n) / n
    h = e.support(t)
    rho = a**2 * b**2 / h**3
    slack = discrete_convexity_slack(h)
    delta = 2 * np.pi / n
    np.testing.assert_allclose(slack / (delta**2 / 2), rho, rtol=1e-5)
    assert 1 / rho.max() == pytest.approx(e.kappa, rel=1e-6)


def test_regular_polygon_and_random_symmetric_polygon():
    p = regular_polygon(6, 2.0)
    assert len(p.vertices) == 6
    # inradius of a regular hexagon = R cos(π/6): the minimum of h
    assert p.support(THETA).min() == pytest.approx(2.0 * np.cos(np.pi / 6), rel=1e-6)
    q = random_symmetric_polygon(5, np.random.default_rng(3))
    assert q.is_origin_symmetric()
    assert not Polygon(np.array([[0, 0], [2, 0], [0, 1]])).is_origin_symmetric()


def test_trig_body_radius_of_curvature_and_boundary():
    body = TrigBody(1.0, cos_coeffs=(0.0, 0.05, 0.0, 0.01), sin_coeffs=(0.0, 0.02))
    # ρ = h + h'' against central finite differences
    t = np.linspace(0, 2 * np.pi, 2001)
    dt = 1e-4
    h = body.support(t)
    hpp = (body.support(t + dt) - 2 * h + body.support(t - dt)) / dt**2
    np.testing.assert_allclose(body.radius_of_curvature(t), h + hpp, atol=1e-5)
    # boundary points x(θ) = h u + h' u' lie on the support line and realise the support function
    bd = body.boundary(720)
    tt = 2 * np.pi * np.arange(720) / 720
    np.testing.assert_allclose(np.sum(bd * unit_vectors(tt), axis=1), body.support(tt), atol=1e-12)
    np.testing.assert_allclose(
        body.support(THETA_SMALL), _dense_support(body.boundary(100_000), THETA_SMALL), atol=1e-8
    )
    assert body.is_origin_symmetric()  # only even harmonics
    assert body.kappa == pytest.approx(1 / body.radius_of_curvature(np.linspace(0, 2 * np.pi, 100_001)).max(), rel=1e-6)


def test_trig_body_rejects_non_convex():
    with pytest.raises(ValueError, match="not convex"):
        TrigBody(1.0, cos_coeffs=(0.0, 0.0, 0.0, 0.1))  # ρ = 1 - 15·0.1·cos 4θ < 0


def test_arc_body_support_matches_its_boundary():
    body = arc_oval((1.0, 0.35, 0.7), (0.2, 1.1, 2.0))
    np.testing.assert_allclose(
        body.support(THETA_SMALL), _dense_support(body.boundary(400_000), THETA_SMALL), atol=1e-9
    )
    assert body.is_origin_symmetric()
    assert body.kappa == pytest.approx(1.0)
    # piecewise constant radius of curvature equals h + h'' away from the breaks
    t = np.array([0.6, 1.5, 2.5, 0.6 + np.pi])
    dt = 1e-4
    hpp = (body.support(t + dt) - 2 * body.support(t) + body.support(t - dt)) / dt**2
    np.testing.assert_allclose(body.support(t) + hpp, [1.0, 0.35, 0.7, 1.0], atol=1e-5)


def test_arc_body_rejects_open_curve_and_bad_radii():
    with pytest.raises(ValueError, match="do not close"):
        ArcBody((0.0, 1.0, 2.0), (1.0, 0.5, 0.2))
    with pytest.raises(ValueError, match="negative radius"):
        ArcBody((0.0, np.pi), (1.0, -1.0))
    with pytest.raises(ValueError, match="strictly increasing"):
        ArcBody((1.0, 0.5), (1.0, 1.0))


def test_reuleaux_constant_width_and_symmetral():
    s = 1.3
    r = reuleaux_triangle(s, angle=0.4)
    np.testing.assert_allclose(r.width(THETA), s, atol=1e-12)
    assert not r.is_origin_symmetric()
    # diameter of the boundary = s (constant width); corners form an equilateral triangle of side s
    bd = r.boundary(1200)
    diffs = np.linalg.norm(bd[:, None, :] - bd[None, :, :], axis=-1)
    assert diffs.max() == pytest.approx(s, rel=1e-6)
    # widths see only the central symmetral: the disc of radius s/2 at distance s(1/√3 - 1/2)
    sym = central_symmetral(r)
    assert hausdorff_distance(sym, Disc(s / 2)) < 1e-12
    assert hausdorff_distance(r, Disc(s / 2)) == pytest.approx(s * (1 / np.sqrt(3) - 0.5), rel=1e-6)
    assert r.circumradius() == pytest.approx(s / np.sqrt(3), rel=1e-6)


# ---------------------------------------------------------------- Hausdorff distance


@pytest.mark.parametrize(
    ("r1", "c1", "r2", "c2"),
    [(1.0, (0, 0), 2.5, (0, 0)), (1.0, (0.3, 0.4), 1.0, (0, 0)), (0.5, (1, -1), 2.0, (-0.5, 0.2))],
)
def test_hausdorff_two_discs_closed_form(r1, c1, r2, c2):
    expected = abs(r1 - r2) + np.hypot(c1[0] - c2[0], c1[1] - c2[1])
    assert hausdorff_distance(Disc(r1, c1), Disc(r2, c2)) == pytest.approx(expected, rel=1e-7)


@pytest.mark.parametrize(("a", "r"), [(1.0, 1.0), (1.0, 1.3), (0.5, 2.0), (1.0, 1.2071)])
def test_hausdorff_disc_square_closed_form(a, r):
    # h_square ranges over [a, a√2]; sup |h_square - r| is attained at one of the ends
    expected = max(abs(a * np.sqrt(2) - r), abs(a - r))
    assert hausdorff_distance(square(a), Disc(r)) == pytest.approx(expected, rel=1e-7)


def _point_polygon_distance(p: np.ndarray, verts: np.ndarray) -> float:
    """Distance from a point to a convex polygon (0 inside): brute force over edges."""
    nxt = np.roll(verts, -1, axis=0)
    d = nxt - verts
    normals = np.column_stack([d[:, 1], -d[:, 0]])
    if np.all(np.sum((p - verts) * normals, axis=1) <= 0):
        return 0.0
    s = np.clip(np.sum((p - verts) * d, axis=1) / np.sum(d * d, axis=1), 0, 1)
    return float(np.min(np.linalg.norm(verts + s[:, None] * d - p, axis=1)))


@pytest.mark.parametrize("seed", range(4))
def test_hausdorff_polygons_agrees_with_vertex_distances(seed):
    """For convex polygons sup_{x in K} d(x, L) is attained at a vertex of K (d(., L) is convex)."""
    rng = np.random.default_rng(seed)
    k = Polygon(rng.normal(size=(8, 2)))
    ell = Polygon(rng.normal(size=(9, 2)) + 0.3)
    brute = max(
        max(_point_polygon_distance(v, ell.vertices) for v in k.vertices),
        max(_point_polygon_distance(v, k.vertices) for v in ell.vertices),
    )
    grid = hausdorff_distance(k, ell, n_grid=200_000)
    # a grid maximum never exceeds the supremum and misses it by at most (Lipschitz const.)·(grid step)
    lip = np.abs(np.vstack([k.vertices, ell.vertices])).max() * 2
    assert brute - lip * 2 * np.pi / 200_000 <= grid <= brute + 1e-12


def test_hausdorff_accepts_callables_and_validates():
    assert hausdorff_distance(lambda t: np.ones_like(t), Disc(1.5)) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="vectorised"):
        hausdorff_distance(lambda t: 1.0, Disc(1.0))
    with pytest.raises(ValueError, match="PlanarBody or a callable"):
        hausdorff_distance(3.0, Disc(1.0))
    with pytest.raises(ValueError, match="n_grid"):
        hausdorff_distance(Disc(1.0), Disc(2.0), n_grid=4)


# ---------------------------------------------------------------- transforms


def test_dilate_rotate_translate():
    d = Disc(1.0)
    assert hausdorff_distance(d.dilate(3.0), d) == pytest.approx(2.0)
    assert d.dilate(3.0).kappa == pytest.approx(1 / 3)
    sq = square(1.0)
    assert hausdorff_distance(sq.rotate(np.pi / 2), sq) < 1e-12
    assert hausdorff_distance(sq.rotate(np.pi / 4), sq) == pytest.approx(np.sqrt(2) - 1, rel=1e-6)
    assert hausdorff_distance(d.translate((0.3, 0.4)), d) == pytest.approx(0.5, rel=1e-7)
    e = Ellipse(1.2, 0.4)
    t = e.dilate(2.0).rotate(0.5)
    np.testing.assert_allclose(t.support(THETA), 2.0 * e.support(THETA - 0.5), atol=1e-12)
    np.testing.assert_allclose(t.support(THETA_SMALL), _dense_support(t.boundary(100_000), THETA_SMALL), atol=1e-8)
    with pytest.raises(ValueError, match="dilation factor"):
        d.dilate(-1.0)


# ---------------------------------------------------------------- convexity checks (bad input)


def test_support_function_body_accepts_convex_and_rejects_non_convex():
    b = power_body(0.75)
    assert b.is_origin_symmetric()
    with pytest.raises(ValueError, match="not a support function"):
        SupportFunctionBody(lambda t: 1 + 0.5 * np.cos(4 * t))  # ρ = 1 - 7.5 cos 4θ
    with pytest.raises(ValueError, match="not a support function"):
        SupportFunctionBody(lambda t: 1 - 0.2 * np.abs(np.sin(t)))  # an inward kink: concave corner
    with pytest.raises(ValueError, match="vectorised"):
        SupportFunctionBody(lambda t: 1.0)
    with pytest.raises(ValueError, match="NaN or inf"):
        SupportFunctionBody(lambda t: np.where(t > 1, np.nan, 1.0))


def test_power_body_slack_matches_curvature_radius():
    """min(h + h'') = 1 - 0.3α for h = 1 + 0.3|sin θ|^{1+α} (0.775 at α = 0.75)."""
    n = 20_000
    t = 2 * np.pi * np.arange(n) / n
    for alpha in (0.25, 0.5, 0.75):
        s = discrete_convexity_slack(power_body(alpha).support(t)) / ((2 * np.pi / n) ** 2 / 2)
        assert s.min() == pytest.approx(1 - 0.3 * alpha, rel=1e-4)


def test_check_support_values_reports_direction():
    n = 1000
    t = 2 * np.pi * np.arange(n) / n
    h = np.ones(n)
    h[250] = 1.1  # a spike outward is not convex
    with pytest.raises(ValueError, match=r"near θ = 1\.57"):
        check_support_values(h)
    check_support_values(Disc(1.0).support(t))  # passes


def test_bad_body_parameters():
    with pytest.raises(ValueError, match="collinear"):
        Polygon(np.array([[0, 0], [1, 1], [2, 2]]))
    with pytest.raises(ValueError, match="shape"):
        Polygon(np.array([[0, 0], [1, 1]]))
    with pytest.raises(ValueError, match="radius"):
        Disc(-1.0)
    with pytest.raises(ValueError, match="semi-axes"):
        Ellipse(1.0, 0.0)
    with pytest.raises(ValueError, match="alpha"):
        power_body(1.5)


# ---------------------------------------------------------------- bodies in R^3


def _random_unit(n, rng):
    u = rng.normal(size=(n, 3))
    return u / np.linalg.norm(u, axis=1, keepdims=True)


def test_ellipsoid_distance_against_brute_force(rng):
    from scipy.spatial.transform import Rotation

    q = Rotation.from_euler("xyz", [0.3, -0.7, 1.1]).as_matrix()
    e = Ellipsoid((1.5, 1.0, 0.5), rotation=q)
    # surface samples x = Q diag(a) s for s on the unit sphere
    s = _random_unit(400_000, rng)
    surf = (s * np.array([1.5, 1.0, 0.5])) @ q.T
    pts = _random_unit(40, rng) * rng.uniform(1.6, 2.5, size=(40, 1))
    d = e.distance(pts)
    brute = np.array([np.min(np.linalg.norm(surf - p, axis=1)) for p in pts])
    assert np.all(d <= brute + 1e-12)  # the exact distance is a lower bound of any surface sample
    np.testing.assert_allclose(d, brute, atol=2e-2)
    # support = max over the surface samples
    u = _random_unit(50, rng)
    np.testing.assert_allclose(e.support(u), np.max(u @ surf.T, axis=1), atol=1e-3)
    assert np.all(e.distance(0.3 * surf[:10]) == 0.0)  # inside
    assert e.max_radius_of_curvature == pytest.approx(1.5**2 / 0.5)


def test_sphere_cases_agree(rng):
    pts = rng.normal(size=(100, 3)) * 2
    np.testing.assert_allclose(Ellipsoid((1.2, 1.2, 1.2)).distance(pts), Ball(1.2).distance(pts), atol=1e-12)
    u = _random_unit(100, rng)
    np.testing.assert_allclose(Ball(1.2).width(u), 2.4)


def test_box_support_and_distance(rng):
    b = Box((1.0, 0.5, 0.25))
    u = _random_unit(200, rng)
    corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-0.5, 0.5) for sz in (-0.25, 0.25)])
    np.testing.assert_allclose(b.support(u), np.max(u @ corners.T, axis=1), atol=1e-12)
    assert b.distance(np.array([[2.0, 0.0, 0.0]]))[0] == pytest.approx(1.0)
    assert b.distance(np.array([[2.0, 1.5, 0.0]]))[0] == pytest.approx(np.hypot(1.0, 1.0))


def test_3d_rejects_non_unit_directions():
    with pytest.raises(ValueError, match="unit vectors: row 1"):
        Ball(1.0).support(np.array([[1.0, 0, 0], [2.0, 0, 0]]))
    with pytest.raises(ValueError, match="shape"):
        Box().support(np.array([[1.0, 0.0]]))
    with pytest.raises(ValueError, match="orthogonal"):
        Ellipsoid(rotation=np.ones((3, 3)))
