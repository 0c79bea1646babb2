"""dkps.routing refuses bad input with one line that names the problem and the way forward.

Each test here failed on the code before the refusal was added (b85538b): duplicate (model, query)
rows silently switched ``geometry='auto'`` to the factorised geometry, NaN evaluation deviations were
counted as within tolerance, an underflowing bandwidth gave every pick ``None`` with a RuntimeWarning,
``route([])`` blamed a "dimension 0", numpy's own messages reached the user from the CV and gate
helpers, and a boolean bandwidth or a negative deviation was accepted.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from dkps.routing import Router, gate as gate_rules, localization_bandwidth as bw


@pytest.fixture
def twins(twins_of):
    return twins_of(1)


@pytest.fixture
def records(twins, records_of):
    return records_of(twins, scored=True)


# ------------------------------------------------------------------------------------------ duplicates
def test_duplicate_rows_are_refused_by_name(records):
    dup = pd.concat([records, records.iloc[[3, 7]]], ignore_index=True)
    with pytest.raises(ValueError, match=r"2 \(model_id, task_id, query_id\) cells .*'m0'.*duplicates='mean'"):
        Router().fit(dup)
    with pytest.raises(ValueError, match="answered twice"):
        Router(geometry="factorised").fit(dup)


def test_duplicate_rows_averaged_only_when_asked_keep_the_paired_geometry(records, twins):
    """Five repeated rows used to switch 'auto' to factorised and change the picks; averaged, the
    repeats of identical rows change nothing, and differing repeats enter as their mean."""
    base = Router(bandwidth=0.25).fit(records)
    dup = pd.concat([records, records.iloc[:5]], ignore_index=True)
    r = Router(bandwidth=0.25, duplicates="mean").fit(dup)
    assert r.geometry_ == "paired"
    q = twins.U[:6]
    assert r.route(q, target="m0").pick.tolist() == base.route(q, target="m0").pick.tolist()
    assert np.allclose(r.P_, base.P_)
    moved = records.iloc[[0]].copy()
    moved["response_embedding"] = [records.response_embedding.iloc[0] + 2.0]
    avg = Router(duplicates="mean").fit(pd.concat([records, moved], ignore_index=True))
    x_mean = records.response_embedding.iloc[0] + 1.0  # m0's answer to the first query, averaged with the move
    row0 = records.iloc[0]
    same_q = records[(records.model_id == "m1") & (records.query_id == row0.query_id)]
    want = float(((x_mean - same_q.response_embedding.iloc[0]) ** 2).sum())
    assert avg.n_duplicates_ == 1 and avg.P_[0, 0, 1] == pytest.approx(want)
    assert base.P_[0, 0, 1] != pytest.approx(want)


def test_duplicates_option_is_validated(records):
    with pytest.raises(ValueError, match="duplicates"):
        Router(duplicates="first").fit(records)


# ------------------------------------------------------------------------------------------ bandwidths
@pytest.mark.parametrize("bad", [True, False, np.bool_(True)])
def test_boolean_bandwidths_are_refused(records, bad):
    with pytest.raises(ValueError, match="bandwidth"):
        Router(bandwidth=bad).fit(records)
    with pytest.raises(ValueError, match="bool"):
        bw.check_sigma(bad)


@pytest.mark.parametrize("geometry", ["paired", "factorised"])
def test_an_underflowing_bandwidth_is_a_clear_error_not_empty_picks(records, twins, geometry):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning may escape either
        with pytest.raises(ValueError, match="underflow"):
            Router(bandwidth=1e-300, geometry=geometry).fit(records).route(twins.U[:3], target="m0")


def test_rbf_weights_refuse_a_sigma_whose_square_underflows():
    with pytest.raises(ValueError, match="underflow"):
        from dkps.routing.localized_geometry import rbf_weights

        rbf_weights(np.array([[0.0, 1.0]]), 1e-200)


# ------------------------------------------------------------------------------------------ routing input
@pytest.mark.parametrize("empty", [[], np.empty((0, 3)), ()])
def test_routing_no_query_says_so(records, empty):
    r = Router().fit(records)
    with pytest.raises(ValueError, match="no queries to route"):
        r.route(empty, target="m0")


# ------------------------------------------------------------------------------------------ CV helpers
def test_cv_helpers_never_leak_numpy_messages(twins):
    P, U = twins.P, twins.U
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n_pseudo must be"):
        bw.cv_table(P, U, rng=rng, n_pseudo=0)
    with pytest.raises(ValueError, match="at least one bandwidth fraction"):
        bw.cv_table(P, U, fractions=(), rng=rng)
    with pytest.raises(ValueError, match="fraction"):
        bw.cv_table(P, U, fractions=(0.25, -1.0), rng=rng)
    table, pseudo, med = bw.cv_table(P, U, rng=np.random.default_rng(0), n_pseudo=10)
    with pytest.raises(ValueError, match="10 pseudo-queries"):
        bw.cv_per_query(table, U[pseudo][:3], U[:2], med)
    with pytest.raises(ValueError, match="2-D"):
        bw.cv_global(np.ones(3))
    with pytest.raises(ValueError, match="2-D"):
        bw.cv_per_query(np.ones(3), U[pseudo], U[:2], med)


# ------------------------------------------------------------------------------------------ the gate
@pytest.fixture
def gate_data():
    rng = np.random.default_rng(0)
    cc, dc, ce, de = rng.random(50), rng.random(50), rng.random(40), rng.random(40)
    return cc, dc, ce, de, dict(cal_ids=np.arange(50), eval_ids=np.arange(100, 140))


@pytest.mark.parametrize("fill", ["all", "one"])
def test_nan_evaluation_deviations_are_refused_as_on_the_calibration_side(gate_data, fill):
    cc, dc, ce, de, ids = gate_data
    bad = de.copy()
    if fill == "all":
        bad[:] = np.nan
    else:
        bad[7] = np.nan
    with pytest.raises(ValueError, match="evaluation deviations contain NaN"):
        gate_rules.evaluate_gate(cc, dc, ce, bad, 0.5, 0.1, **ids)
    with pytest.raises(ValueError, match="evaluation deviations contain NaN"):
        gate_rules.gate_grid(cc, dc, ce, bad, [0.5], [0.1], **ids)


def test_negative_deviations_are_refused(gate_data):
    cc, dc, ce, de, ids = gate_data
    for args in ((cc, -dc, ce, de), (cc, dc, ce, -de)):
        with pytest.raises(ValueError, match="negative"):
            gate_rules.evaluate_gate(*args, 0.5, 0.1, **ids)
        with pytest.raises(ValueError, match="negative"):
            gate_rules.gate_grid(*args, [0.5], [0.1], **ids)
    with pytest.raises(ValueError, match="negative"):
        gate_rules.ToleranceGate(0.5, 0.1).fit(cc, -dc)


@pytest.mark.parametrize("kw", [dict(eps=True), dict(alpha=np.bool_(False))])
def test_boolean_contracts_are_refused(gate_data, kw):
    cc, dc, ce, de, ids = gate_data
    c = dict(eps=0.5, alpha=0.1) | kw
    with pytest.raises(ValueError, match=r"bool|Got (np\.)?False"):
        gate_rules.evaluate_gate(cc, dc, ce, de, c["eps"], c["alpha"], **ids)
    with pytest.raises(ValueError, match=r"bool|Got (np\.)?False"):
        gate_rules.gate_grid(cc, dc, ce, de, [c["eps"]], [c["alpha"]], **ids)


def test_gate_helpers_never_leak_numpy_messages(gate_data):
    cc, dc, ce, de, ids = gate_data
    with pytest.raises(ValueError, match="one score per evaluation query"):
        gate_rules.evaluate_gate(cc, dc, ce, de, 0.5, 0.1, score_sub=np.ones(3), score_flag=np.ones(40), **ids)
    with pytest.raises(ValueError, match="one score per evaluation query"):
        gate_rules.gate_grid(cc, dc, ce, de, [0.5], [0.1], score_sub=np.ones(3), score_flag=np.ones(40), **ids)
    with pytest.raises(ValueError, match="query id per calibration"):
        gate_rules.gate_grid(cc, dc, ce, de, [0.5], [0.1], cal_ids=np.arange(3), eval_ids=ids["eval_ids"])
    with pytest.raises(ValueError, match="at least one tolerance"):
        gate_rules.gate_grid(cc, dc, ce, de, [], [0.1], **ids)
    with pytest.raises(ValueError, match="no evaluation queries"):
        gate_rules.evaluate_gate(cc, dc, ce[:0], de[:0], 0.5, 0.1, cal_ids=ids["cal_ids"], eval_ids=np.arange(0))
    with pytest.raises(ValueError, match="no evaluation queries"):
        gate_rules.gate_grid(cc, dc, ce[:0], de[:0], [0.5], [0.1], cal_ids=ids["cal_ids"], eval_ids=np.arange(0))
