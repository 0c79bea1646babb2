"""Finding 6, the ladder and the paired-data hypothesis: verdicts on gate sweeps built by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from blindspot.perspective import offloading_verdicts as ov, routing_verdicts as rv
from dkps.routing.offload_study import gate_summary


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
    p = {x.key: x for x in ov.offloading_parts(_sweep(lucky_emp=True, qa_certifies=True))}
    assert rv.explain(list(p.values()))["ladder.pdcal_over_pairdev"].startswith("pd-cal, a pair regression")
    assert p["F6.population"].holds  # every constant policy violates 30% > 10% of the population
    assert not p["F6.nothing_emp"].holds and "lead 0.50 at q50/10%" in p["F6.nothing_emp"].evidence
    assert p["F6.nothing_ucb"].holds
    assert rv.word(p["ladder.pdcal_over_pairdev"]) == "not testable here"  # paired: pairdev never starved
    assert "pair overlap 100%" in p["ladder.pdcal_over_pairdev"].premise_absent
    assert p["ladder.pairdev_over_qa"].holds and p["hyp.paired"].holds
    unpaired = {x.key: x for x in ov.offloading_parts(_sweep(True, True), pair_overlap=0.4)}
    assert rv.word(unpaired["ladder.pdcal_over_pairdev"]) == "does not hold"
    none = {x.key: x for x in ov.offloading_parts(_sweep(lucky_emp=False, qa_certifies=False))}
    for k in ("F6.population", "F6.nothing_emp", "F6.nothing_ucb"):
        assert rv.word(none[k]) == "not testable here" and "qa certifies no contract" in none[k].premise_absent
    with pytest.raises(ValueError, match="no row of pool"):
        ov.offloading_parts(_sweep(True, True), pool="le3b")


def test_an_order_of_two_silent_estimators_is_not_testable():
    g = _sweep(lucky_emp=False, qa_certifies=True)
    g.loc[g.family == "ladder", "volume"] = 0.0
    p = {x.key: x for x in ov.offloading_parts(g)}
    for k in ("ladder.pdcal_over_pairdev", "ladder.pairdev_over_qa", "hyp.paired"):
        assert not p[k].holds and "certifies any traffic" in p[k].premise_absent


def test_finding_6_alone_and_every_verdict_exact():
    g = _sweep(lucky_emp=True, qa_certifies=True)
    only = ov.offloading_parts(g, ladder=False)
    assert [p.key for p in only] == ["F6.population", "F6.nothing_emp", "F6.nothing_ucb"]
    assert all(p.verdict.basis == "exact" for p in ov.offloading_parts(g))
    cells = ov.qualifying_contracts(gate_summary(g, "le13b"))
    assert cells == {"emp": [(0.5, 0.1)], "ucb": [(0.5, 0.1)]}
