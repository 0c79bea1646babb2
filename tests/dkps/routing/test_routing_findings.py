"""The findings split into parts: verdicts on suites with a known answer, and on gate sweeps built by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from dkps.routing import findings
from dkps.routing.mimicry_study import cv_fraction_summary, run_mimicry_study


@pytest.fixture(scope="module")
def studies(grouped_of):
    return {het: run_mimicry_study(grouped_of(het), (0, 1, 2), n_pseudo=20, query_dims=(2, None)) for het in (1, 0)}


def test_premise_decides_whether_beats_static_is_testable(studies):
    het, hom = studies[1], studies[0]
    ph = {p.key: p for p in findings.routing_parts(het)}
    pm = {p.key: p for p in findings.routing_parts(hom)}
    assert findings.premise_word(het.premise) == "present" and findings.premise_absent(het.premise) == ""
    assert ph["F1.beats_static"].holds and findings.verdict(ph["F1.beats_static"]) == "holds"
    # one geometry for every group: no localiser can beat static, and the part says why, not "fails"
    assert findings.premise_word(hom.premise) == "absent"
    assert not pm["F1.beats_static"].holds and findings.verdict(pm["F1.beats_static"]) == "not testable here"
    assert pm["F1.beats_static"].premise_absent.startswith("the task-labelled router does not beat static DKPS")
    assert str(hom.premise["group_minus_static"]) in pm["F1.beats_static"].premise_absent
    assert {p.words for p in ph.values()} == {"original", "restatement"}
    assert list(ph) == [
        "F1.matches_task",
        "F1.beats_static",
        "F3.identity",
        "F3.fact_keeps_gain",
        "F3.rf_starves",
        "F4.residual",
        "F4.flat_optimum",
        "F4.cv_lands",
        "F4.no_low_dim",
    ]  # fmt: skip (no scores: no F2/F5)
    assert ph["F3.identity"].holds  # the paired identity is exact


def test_parts_follow_their_numbers(studies):
    st = studies[1]
    e = st.table.set_index("method").error
    parts = {p.key: p for p in findings.routing_parts(st)}
    assert parts["F1.matches_task"].holds == bool(
        e["qa-0.25x"] <= e["task"] + st.table.set_index("method").se["qa-0.25x"]
    )
    grid = [e[f"qa-{f:g}x"] for f in (0.125, 0.25, 0.5, 1.0)]
    flat = max(grid) - min(grid) <= findings.FLAT_SHARE * (e["static"] - e["oracle"])
    assert parts["F4.flat_optimum"].holds == flat
    u = st.unpairing.set_index(["regime", "method"]).gain_ratio
    assert parts["F3.fact_keeps_gain"].holds == (u[("independent", "qa-fact")] >= findings.FACT_KEEPS)
    assert cv_fraction_summary(st.results).sum() == len(st.results)


def test_a_study_without_diagnostics_gives_the_first_findings_only(grouped_of):
    st = run_mimicry_study(grouped_of(True, seed=2), (0, 1), n_pseudo=20, diagnose=False)
    assert st.rf_identity is None and st.unpairing.empty and st.premise["n_groups"] == 4
    keys = [p.key for p in findings.routing_parts(st, group="query-cluster")]
    assert keys == ["F1.matches_task", "F1.beats_static"]
    assert findings.routing_parts(st, group="query-cluster")[0].statement.endswith("the query-cluster router")


def test_explain_says_each_part_and_each_finding_in_words(studies):
    parts = findings.routing_parts(studies[0])
    text = findings.explain(parts)
    assert set(text) == {p.key for p in parts} | {"F1", "F3", "F4"}
    assert text["F1.beats_static"].startswith("Label-free routing beats static DKPS: not testable here, because the ")
    assert "the book's restatement" in text["F1.beats_static"]
    assert (
        text["F1"].startswith("Label-free query-aware routing matches")
        and "beats static DKPS -- not testable here" in text["F1"]
    )


def _gates(rows) -> pd.DataFrame:
    """A gate sweep written by hand: (seed, method, family, rule, q, alpha, volume, violation, population)."""
    out = []
    for seed, method, family, rule, q, alpha, vol, viol, pop in rows:
        out.append(dict(seed=seed, pool="le13b", family=family, method=method, n_cal=80, q=q, eps=0.5, alpha=alpha,
                        rule=rule, feasible=True, volume=vol, violation=viol, meets=viol <= alpha, retention=1.0,
                        spearman=0.1, can_select=method not in ("lead", "static", "profile", "random"),
                        population_violation=pop))  # fmt: skip
    g = pd.DataFrame(out)
    return pd.concat([g, g.assign(pool="all")], ignore_index=True)


def _sweep(lucky_emp: bool, qa_certifies: bool) -> pd.DataFrame:
    rows = []
    for seed in (0, 1):
        for rule in ("emp", "ucb"):
            rows.append((seed, "qa", "policy", rule, 0.5, 0.1, 0.3 if qa_certifies else 0.0, 0.05, 0.3))
            for m in ("lead", "static", "profile", "random"):
                vol = 1.0 if (lucky_emp and rule == "emp" and seed == 0) else 0.0
                rows.append((seed, m, "policy", rule, 0.5, 0.1, vol, 0.3 * vol, 0.3))
            for m, vol in (("pd-cal", 0.05), ("pairdev", 0.25), ("pd30", 0.1), ("qa-fact", 0.05)):
                rows.append((seed, m, "ladder", rule, 0.5, 0.1, vol + 0.01 * seed, 0.05, 0.3))
    return _gates(rows)


def test_offloading_parts_on_hand_built_sweeps():
    p = {x.key: x for x in findings.offloading_parts(_sweep(lucky_emp=True, qa_certifies=True))}
    assert findings.explain(list(p.values()))["ladder.pdcal_over_pairdev"].startswith("pd-cal, a pair regression")
    assert p["F6.population"].holds  # every constant policy violates 30% > 10% of the population
    assert not p["F6.nothing_emp"].holds and "lead 0.50 at q50/10%" in p["F6.nothing_emp"].evidence
    assert p["F6.nothing_ucb"].holds
    assert findings.verdict(p["ladder.pdcal_over_pairdev"]) == "not testable here"  # paired: pairdev never starved
    assert "pair overlap 100%" in p["ladder.pdcal_over_pairdev"].premise_absent
    assert p["ladder.pairdev_over_qa"].holds and p["hyp.paired"].holds
    unpaired = {x.key: x for x in findings.offloading_parts(_sweep(True, True), pair_overlap=0.4)}
    assert findings.verdict(unpaired["ladder.pdcal_over_pairdev"]) == "does not hold"
    none = {x.key: x for x in findings.offloading_parts(_sweep(lucky_emp=False, qa_certifies=False))}
    for k in ("F6.population", "F6.nothing_emp", "F6.nothing_ucb"):
        assert findings.verdict(none[k]) == "not testable here" and "qa certifies no contract" in none[k].premise_absent
    with pytest.raises(ValueError, match="no row of pool"):
        findings.offloading_parts(_sweep(True, True), pool="le3b")


def test_an_order_of_two_silent_estimators_is_not_testable():
    g = _sweep(lucky_emp=False, qa_certifies=True)
    g.loc[g.family == "ladder", "volume"] = 0.0
    p = {x.key: x for x in findings.offloading_parts(g)}
    for k in ("ladder.pdcal_over_pairdev", "ladder.pairdev_over_qa", "hyp.paired"):
        assert not p[k].holds and "certifies any traffic" in p[k].premise_absent
