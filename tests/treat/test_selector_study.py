"""selector_study: the selector comparison and its statements in one call; counts and claim routing checked."""

from __future__ import annotations

import pytest

from blindspot.data.suites import synthetic_suite
from blindspot.treat import verdicts
from blindspot.treat.selector_study import selector_study


@pytest.fixture(scope="module")
def study():
    suites = {"alpha": synthetic_suite(n_models=60, n_benchmarks=5, seed=1)}
    return selector_study(suites, n_splits=2, n_random=3, seed=0)


def test_counts_equal_a_groupby_of_the_verdict_table(study):
    table = study.verdict_table()
    counts = table.groupby(["statement", "verdict"]).size()
    words = study.count_words()
    for name in verdicts.SELECTOR_STATEMENTS:
        expected = ", ".join(f"{w} on {n}" for (s, w), n in counts.items() if s == name) or "not judged"
        assert words[name] == expected
    q = study.quantities()
    assert q["n_compared"] == len(study.comparison.results) and q["n_splits"] == 2 and q["n_random"] == 3
    assert q["margin"] == verdicts.NONINFERIORITY_MARGIN
    assert all(f"count_{name}" in q for name in verdicts.SELECTOR_STATEMENTS)


def test_the_verdict_table_holds_every_statement_once(study):
    table = study.verdict_table()
    assert len(table) == len(study.statements)
    for row in table.itertuples():
        assert verdicts.verdict_word(study.statements[(row.statement, row.suite, row.regime)]) == row.verdict


def test_claims_are_routed_to_their_suite_and_regime(study):
    ids = [
        "SEL.greedy_vs_random.alpha.interpolation",
        "SEL.greedy_vs_random.elsewhere",  # not compared: read as the first leaderboard, extrapolation
        "SEL.benchscope_ed",  # a value, not a statement
        "SEL.not_a_statement.alpha",
    ]
    routed = study.verdicts_for(ids)
    assert set(routed) == {ids[0], ids[1]}
    verdict, table = routed[ids[1]]
    assert verdict is study.statements[("greedy_vs_random", "alpha", "extrapolation")]
    assert table is study.comparison.tables["alpha"]


def test_figures_by_metric_and_a_bad_metric_is_refused(study):
    assert study.figure("r2").axes and study.figure("tau").axes
    with pytest.raises(ValueError, match="metric must be one of"):
        study.figure("mae")
    with pytest.raises(ValueError, match="at least one leaderboard"):
        selector_study({})
