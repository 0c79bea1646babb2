"""The Router estimator: records in, picks with confidences out; refusals name the problem."""

from __future__ import annotations

import numpy as np
import pytest

from dkps.routing import Router
from dkps.routing.localized_geometry import localized_distances, query_sq_distances, rbf_weights
from dkps.routing.rules import nearest_for_all_targets


@pytest.fixture
def twins(twins_of):
    return twins_of(1)


def test_router_matches_the_geometry_and_never_returns_the_target(twins, records_of):
    anchors = np.arange(0, 80, 2)
    sub = type(twins)(
        X=twins.X[:, anchors],
        U=twins.U[anchors],
        tasks=twins.tasks[anchors],
        models=twins.models,
        query_ids=twins.query_ids[anchors],
    )
    r = Router(bandwidth=0.25).fit(records_of(sub))
    assert r.geometry_ == "paired"
    Uq = twins.U[1::2]
    out = r.route(Uq, target="m0")
    D = localized_distances(sub.P, rbf_weights(query_sq_distances(Uq, sub.U), 0.25 * r.med_))
    want = nearest_for_all_targets(D)[0][:, 0]
    assert out.pick.tolist() == [twins.models[p] for p in want]
    assert (out.pick != "m0").all()
    te = twins.tasks[1::2]
    assert (out.pick[te == "A"] == "m1").all() and (out.pick[te == "B"] == "m2").all()
    assert (out.expected_deviation <= out.distance + 1e-12).all()
    assert np.allclose(r.localized_distances(Uq), D)
    frame = r.distance_frame(Uq[0])
    assert list(frame.index) == twins.models and np.allclose(frame.to_numpy(), D[0])
    only = r.route(Uq, target="m0", candidates=["m3", "m4", "m0"])
    assert set(only.pick) <= {"m3", "m4"}


def test_router_cv_and_factorised(twins, records_of):
    rec = records_of(twins)
    rc = Router(bandwidth="cv", n_pseudo=30).fit(rec)
    assert rc.sigma_ / rc.med_ in rc.cv_fractions
    rq = Router(bandwidth="cv", cv="per-query", n_pseudo=30).fit(rec)
    assert np.isin(rq.route(twins.U[:5], target="m0").sigma / rq.med_, rc.cv_fractions).all()
    keep = np.random.default_rng(0).random(twins.X.shape[:2]) < 0.7
    rf = Router().fit(records_of(twins, keep))
    assert rf.geometry_ == "factorised"
    out = rf.route(twins.U[:6], target="m0")
    assert (out.pick != "m0").all() and np.isfinite(out.distance).all()
    assert (out.expected_deviation >= out.distance).all()
    assert Router(geometry="factorised").fit(rec).geometry_ == "factorised"


def test_router_refusals(twins, records_of):
    rec = records_of(twins)
    r = Router().fit(rec)
    with pytest.raises(ValueError, match="unknown target"):
        r.route(twins.U[:2], target="nobody")
    with pytest.raises(ValueError, match="unknown candidate"):
        r.route(twins.U[:2], target="m0", candidates=["m1", "zz"])
    with pytest.raises(ValueError, match="at least 2 candidates"):
        r.route(twins.U[:2], target="m0", candidates=["m0", "m1"])
    with pytest.raises(ValueError, match="dimension"):
        r.route(np.ones((2, 5)), target="m0")
    with pytest.raises(ValueError, match="NaN or inf"):
        r.route(np.full((1, 3), np.nan), target="m0")
    with pytest.raises(ValueError, match=r"'bandwidth' parameter of Router must be a float in the range \(0.0, inf\]"):
        Router(bandwidth=0.0).fit(rec)
    with pytest.raises(ValueError, match=r"or a str among \{'cv'\}. Got 'wide'"):
        Router(bandwidth="wide").fit(rec)
    with pytest.raises(ValueError, match="'geometry' parameter"):
        Router(geometry="flat").fit(rec)
    with pytest.raises(ValueError, match="'n_pseudo' parameter"):
        Router(n_pseudo=0).fit(rec)
    bad = rec.copy()
    bad.at[3, "response_embedding"] = np.full(8, np.inf)
    with pytest.raises(ValueError):
        Router().fit(bad)
    keep = np.ones(twins.X.shape[:2], dtype=bool)
    keep[0, 0] = False
    with pytest.raises(ValueError, match="geometry='paired'"):
        Router(geometry="paired").fit(records_of(twins, keep))
    with pytest.raises(ValueError, match="paired records"):
        Router(bandwidth="cv").fit(records_of(twins, keep))
