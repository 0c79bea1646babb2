"""The routing findings' verdicts: the calibrated rule on planted suites and on hand-set intervals, the router-free
premise, robustness across groupings, and the ledger rows they become."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from blindspot.book.claims import load_registry
from blindspot.book.ledger import FAILS, NOT_HERE, NOT_RESOLVED, REPRODUCED, Ledger
from blindspot.core.verdict import STATISTICAL
from blindspot.perspective import routing_verdicts as rv
from dkps.routing.diagnostics import GroupingContrast
from dkps.routing.evaluation import Difference, PairedSuite
from dkps.routing.mimicry_study import run_mimicry_study

ROOT = Path(__file__).resolve().parents[2]


def grouped(heterogeneous: bool, seed: int = 0, n: int = 10, per: int = 40, n_groups: int = 4) -> PairedSuite:
    """Separated query groups; heterogeneous: each model's answers centre on a vector drawn per group (which model
    resembles which changes between groups); homogeneous: one centre per model. Scores are each answer's first
    coordinate, so the profile router has something to read."""
    rng = np.random.default_rng(seed)
    m = per * n_groups
    g = np.repeat(np.arange(n_groups), per)
    U = rng.normal(size=(n_groups, 5))[g] * 8 + rng.normal(size=(m, 5))
    centre = rng.normal(size=(n, n_groups if heterogeneous else 1, 8))
    X = centre[:, g if heterogeneous else np.zeros(m, dtype=int)] + 0.7 * rng.normal(size=(n, m, 8))
    return PairedSuite(
        X=X, U=U, tasks=np.array([f"g{k}" for k in g], dtype=object), models=[f"m{i}" for i in range(n)],
        query_ids=np.array([f"q{j:03d}" for j in range(m)]), scores=X[:, :, 0],
    )  # fmt: skip


@pytest.fixture(scope="module")
def studies():
    return {h: run_mimicry_study(grouped(h), (0, 1, 2), n_pseudo=20, query_dims=(2, None)) for h in (True, False)}


def _premise(study) -> object:
    return rv.premise({"tasks": study.premise["contrast"]})


# -- the premise, router-free --------------------------------------------------------------------------------
def test_the_premise_is_measured_without_a_router_and_against_random_groups(studies):
    het, hom = _premise(studies[True]), _premise(studies[False])
    assert het.holds and het.basis == STATISTICAL and het.test.p_value < 0.05 and rv.premise_word(het) == "present"
    assert not hom.holds and rv.premise_word(hom) == "absent" and rv.premise_absent(het) == ""
    assert rv.premise_absent(hom).startswith("under no grouping of the queries") and "random groups" in hom.evidence
    # no router enters the premise: the group router's error may say anything, the premise does not change
    st = studies[False]
    fake = dict(st.premise, group_minus_static=Difference("task", "static", -1.0, -1.1, -0.9, 3))
    assert rv.premise({"tasks": fake["contrast"]}) == hom


def _contrast(excess_null: np.ndarray, excess: float) -> GroupingContrast:
    return GroupingContrast(0.5 + excess, 0.5, 0.5 + excess_null, np.full(excess_null.size, 0.5), 4)


def test_family_p_value_is_max_t_over_aligned_nulls():
    null = np.random.default_rng(0).normal(size=199)
    one = _contrast(null, 1.0)
    assert rv.family_p_value({"a": one, "b": one}) == pytest.approx(one.p_value)  # two copies: one test
    far = _contrast(null, 10.0)
    assert rv.family_p_value({"a": one, "b": far}) == pytest.approx(1 / 200)
    # a premise is present where any grouping lies above its null, absent where none does
    assert rv.premise({"a": _contrast(null, -5.0), "b": far}).holds
    assert not rv.premise({"a": _contrast(null, -5.0), "b": _contrast(null, 0.0)}).holds
    with pytest.raises(ValueError, match="at least one grouping"):
        rv.premise({})


# -- the calibrated rule on hand-set intervals ---------------------------------------------------------------
@dataclass
class Stub:
    """A study with chosen seed-paired differences (duck-typed MimicryStudy)."""

    diffs: dict
    share: Difference | None = None
    errors: dict | None = None

    def __post_init__(self):
        e = self.errors or {
            "qa-0.25x": 0.65,
            "task": 0.655,
            "static": 0.645,
            "random": 0.734,
            "oracle": 0.5,
            "profile": 0.669,
        }
        self.table = pd.DataFrame({"method": list(e), "error": list(e.values())})
        self.premise = {"n_eff": 110.0, "anchors": 241}

    def difference(self, a, b):
        return self.diffs[(a, b)]

    def profile_share(self):
        return self.share


@dataclass
class Alt:
    name: str
    qa_minus_static: Difference
    profile_share: Difference | None = None


def _d(mean, lo, hi) -> Difference:
    return Difference("a", "b", mean, lo, hi, 5)


PRESENT = rv.premise({"tasks": _contrast(np.random.default_rng(0).normal(size=199), 10.0)})
ABSENT = rv.premise({"tasks": _contrast(np.random.default_rng(0).normal(size=199), -10.0)})


def test_claimed_gain_is_the_originals_share_of_the_random_oracle_bracket():
    st = Stub({})
    share = (0.342 - 0.295) / (0.519 - 0.089)
    assert rv.claimed_gain(st.table) == pytest.approx(share * (0.734 - 0.5))
    assert share == pytest.approx(0.1093, abs=1e-4)


@pytest.mark.parametrize(
    ("interval", "premise", "word"),
    [
        ((-0.02, -0.01), PRESENT, "holds"),  # the interval below 0: it beats static
        ((0.001, 0.006), PRESENT, "does not hold"),  # above 0, and a gain of ~0.024 would have been seen
        ((0.001, 0.06), PRESENT, "not resolved at 95%"),  # above 0, but too wide to see the claimed gain
        ((-0.004, 0.006), PRESENT, "not resolved at 95%"),  # straddles 0
        ((0.001, 0.006), ABSENT, "not testable here"),  # fails, but no grouping carries behaviour
    ],
)
def test_beats_static_follows_the_calibrated_rule(interval, premise, word):
    d = _d(sum(interval) / 2, *interval)
    part = rv.beats_static(Stub({("qa-0.25x", "static"): d}), premise)
    assert rv.word(part) == word and part.verdict.basis == STATISTICAL
    assert part.verdict.test.interval == pytest.approx(interval)
    assert f"{rv.claimed_gain(Stub({}).table):.4f}" in part.evidence


def test_robustness_counts_groupings_and_names_the_flips():
    own = _d(0.004, 0.001, 0.006)  # fails under the chapter's grouping
    alts = [
        Alt("k=5 seed 0", own),
        Alt("k=5 seed 1", _d(0.0, -0.004, 0.004)),
        Alt("code/text", _d(-0.02, -0.03, -0.01)),
    ]
    part = rv.beats_static(Stub({("qa-0.25x", "static"): own}), PRESENT, alts, what="three groupings")
    r = part.verdict.robustness
    assert (r.held, r.total, r.alternatives) == (1, 3, "three groupings")
    assert r.flips == ("k=5 seed 1", "code/text") and "code/text -0.0200" in part.evidence


def test_a_borderline_profile_share_is_not_resolved_and_says_how_many_groupings_fall_short():
    st = Stub({("static", "profile"): _d(-0.02, -0.03, -0.01)}, share=_d(0.267, 0.145, 0.389))
    alts = [
        Alt(f"k=5 seed {s}", _d(0, 0, 0), _d(m, m - 0.1, m + 0.1)) for s, m in enumerate((0.267, 0.237, 0.227, 0.4))
    ]
    part = rv.profile_near_random(st, alts)
    assert part.holds is None and rv.word(part) == "not resolved at 95%"
    assert "at or below 0.25 in 2 of 4 (k=5 seed 1, k=5 seed 2)" in part.evidence
    assert part.verdict.robustness.held == 1 and part.verdict.robustness.flips == ("k=5 seed 3",)
    assert rv.profile_worse(st).holds is True


def test_matches_task_is_non_inferiority_and_says_when_both_routers_are_label_free():
    gain = rv.claimed_gain(Stub({}).table)
    near = Stub({("qa-0.25x", "task"): _d(0.0, -0.01, gain / 2)})
    far = Stub({("qa-0.25x", "task"): _d(2 * gain, 1.5 * gain, 2.5 * gain)})
    assert rv.matches_task(near).holds is True and rv.matches_task(far).holds is False
    cluster = rv.matches_task(near, "query-cluster")
    assert "two label-free routers" in cluster.statement and "not task labels" in cluster.evidence
    assert "label-free routers" not in rv.matches_task(near).statement


def test_one_seed_cannot_decide_a_statistical_statement():
    with pytest.raises(ValueError, match="at least two seeds"):
        rv.seed_test(Difference("a", "b", 0.1, float("nan"), float("nan"), 1), "qa - static")


# -- on planted suites ----------------------------------------------------------------------------------------
def test_parts_on_planted_suites(studies):
    het, hom = studies[True], studies[False]
    ph = {p.key: p for p in rv.routing_parts(het, _premise(het))}
    pm = {p.key: p for p in rv.routing_parts(hom, _premise(hom))}
    assert list(ph) == [
        "F1.matches_task", "F1.beats_static", "F2.profile_worse", "F2.profile_near_random", "F3.identity",
        "F3.fact_keeps_gain", "F3.rf_starves", "F4.residual", "F4.flat_optimum", "F4.cv_lands", "F4.no_low_dim",
        "F5.score_pairwise",
    ]  # fmt: skip
    assert ph["F1.beats_static"].holds is True and ph["F3.identity"].holds is True  # the paired identity is exact
    assert ph["F3.identity"].verdict.basis == "exact" and ph["F1.beats_static"].verdict.basis == STATISTICAL
    assert pm["F1.beats_static"].premise_absent and rv.word(pm["F1.beats_static"]) != "holds"
    flat = het.bandwidth_spread()
    assert ph["F4.flat_optimum"].holds == (flat["spread"] <= rv.FLAT_SHARE * flat["gap"])
    text = rv.explain(list(ph.values()))
    assert set(text) == set(ph) | {"F1", "F2", "F3", "F4", "F5"}
    assert "t-interval across 3 split seeds" in text["F1.beats_static"] and "restatement" in text["F1.beats_static"]
    with pytest.raises(ValueError, match="has no 'task'"):
        rv.routing_parts(Stub({}, errors={"qa-0.25x": 1.0}), PRESENT)


def test_the_verdicts_become_ledger_rows_with_their_test(tmp_path):
    registry = load_registry(ROOT)
    led = Ledger(tmp_path, registry, chapter="64_routing_behavioural_stand_in")
    led.run()
    gain = rv.claimed_gain(Stub({}).table)
    st = Stub(
        {("qa-0.25x", "task"): _d(0.0, -0.01, gain / 2), ("qa-0.25x", "static"): _d(0.004, 0.001, 0.006),
         ("static", "profile"): _d(-0.02, -0.03, -0.01)},
        share=_d(0.267, 0.145, 0.389),
    )  # fmt: skip
    parts = [
        rv.matches_task(st, "query-cluster"),
        rv.beats_static(st, PRESENT),
        rv.profile_worse(st),
        rv.profile_near_random(st),
    ]
    frame = rv.record(led, parts, "RT.arena.")
    assert frame.status.to_dict() == {
        "RT.arena.F1.matches_task": REPRODUCED, "RT.arena.F1.beats_static": FAILS,
        "RT.arena.F2.profile_worse": REPRODUCED, "RT.arena.F2.profile_near_random": NOT_RESOLVED,
    }  # fmt: skip
    assert (frame.basis == STATISTICAL).all()
    row = next(c for c in led.claims if c.id == "RT.arena.F1.beats_static")
    assert row.interval == pytest.approx((0.001, 0.006)) and "t-interval across 5 split seeds" in row.test
    led2 = Ledger(tmp_path, registry, chapter="64_routing_behavioural_stand_in")
    led2.run()
    out = rv.record(led2, [rv.beats_static(st, ABSENT)], "RT.arena.")
    assert out.status.iloc[0] == NOT_HERE
