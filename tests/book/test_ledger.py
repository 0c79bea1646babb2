"""blindspot.book.claims and blindspot.book.ledger: the registry, and statuses decided from computed values."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest

from blindspot.book.claims import load_registry
from blindspot.book.ledger import (
    DIFFERS,
    FAILS,
    FAILS_ON_YOURS,
    HOLDS,
    NOT_APPLICABLE,
    NOT_HERE,
    REPRODUCED,
    Ledger,
    gather,
    paper_suite_of,
)
from blindspot.data.suites import SUITES, synthetic_suite
from blindspot.data.tables import ScoreTable, table_from_frame
from blindspot.treat.guarantees import submodularity_violations

REGISTRY = """\
chapter: ch
run:
  scores: {paper: extended}
  n_boot: {paper: 300, quick: 40}
claims:
  - id: v.deff
    kind: value
    quantity: d_eff of the frontier
    where: Table 1
    paper: 4.80
    tol: 0.005
    data: {suite: extended}
  - id: v.ci
    kind: value
    quantity: its CI's lower bound
    where: Table 1
    paper: 4.15
    tol: 0.005
    data: {suite: extended}
    needs: [n_boot]
  - id: v.free
    kind: value
    quantity: a constant of App. C
    where: App. C
    paper: 0.262
    tol: 0.0005
  - id: v.unpublished
    kind: value
    quantity: a number from an unpublished pipeline
    where: App. H.37
    paper: 0.38
    tol: 0.005
    unavailable: the pipeline is not published
  - id: s.submodular
    kind: statement
    quantity: the coverage objective is submodular
    where: Theorem 4(a)
    reading: f(T) = tr(P_T Sigma) / tr Sigma, submodular in the usual sense
    data: {suite: extended}
"""


@pytest.fixture
def registry(tmp_path):
    d = tmp_path / "book" / "claims"
    d.mkdir(parents=True)
    (d / "ch.yml").write_text(REGISTRY)
    return load_registry(tmp_path)


def _paper_table(tmp_path, name="extended") -> ScoreTable:
    """A table that looks read from the named suite's file (the ledger only looks at name and source)."""
    t = synthetic_suite(n_models=30, n_benchmarks=4, seed=1)
    return ScoreTable(t.scores, t.meta, name=name, source=str(tmp_path / "data" / SUITES[name].path))


def test_value_statuses_on_the_papers_data(tmp_path, registry):
    front = _paper_table(tmp_path)
    led = Ledger("ch", tmp_path / "out", registry)
    led.run(quick=False)
    assert paper_suite_of(front) == "extended"
    assert led.value("v.deff", 4.803, data=front).status == REPRODUCED
    c = led.value("v.ci", 4.20, data=front)
    assert c.status == DIFFERS and "book 4.2 vs paper 4.15" in c.evidence
    assert led.value("v.free", np.pi / 12, evidence="").status == REPRODUCED


def test_an_unavailable_protocol_is_not_reproducible_here_whatever_the_value(tmp_path, registry):
    led = Ledger("ch", tmp_path / "out", registry)
    c = led.value("v.unpublished", 0.38)
    assert c.status == NOT_HERE and "not published" in c.evidence and c.book == 0.38


def test_numpy_booleans_decide_statements(tmp_path, registry):
    led = Ledger("ch", tmp_path / "out", registry)
    c = led.statement("s.submodular", holds=np.float64(1.0) > 0, evidence="x", data=_paper_table(tmp_path))
    assert c.status == REPRODUCED


def test_protocol_and_synthetic_give_not_reproducible_here(tmp_path, registry):
    led = Ledger("ch", tmp_path / "out", registry)
    run = led.run(quick=True)
    assert run.n_boot == 40  # None resolved to quick mode's value
    c = led.value("v.ci", 4.15, data=_paper_table(tmp_path))
    assert c.status == NOT_HERE and "n_boot=40 (quick mode), not the paper's 300" in c.evidence
    assert led.value("v.deff", 4.80, data=synthetic_suite(seed=0)).status == NOT_HERE
    assert Ledger("ch", tmp_path, registry).run(quick=True, n_boot=300).n_boot == 300  # a given value is kept


def test_your_data_gives_holds_fails_and_not_applicable(tmp_path, registry):
    mine = table_from_frame(synthetic_suite(n_models=20, n_benchmarks=4, seed=3).scores.reset_index(), name="mine")
    led = Ledger("ch", tmp_path / "out", registry)
    led.run(quick=False)
    c = led.value("v.deff", 2.0, data=mine)
    assert c.status == NOT_APPLICABLE and c.book == 2.0
    assert led.statement("s.submodular", holds=True, evidence="0 violations", data=mine).status == HOLDS
    led2 = Ledger("ch", tmp_path / "out", registry)
    assert led2.statement("s.submodular", holds=False, evidence="3 violations", data=mine).status == FAILS_ON_YOURS


def test_a_statement_the_paper_gets_wrong_can_hold(tmp_path, registry):
    """The verdict follows the numbers: where f is modular (uncorrelated benchmarks) it is submodular."""
    front = _paper_table(tmp_path)
    for sigma, expected in (
        (np.eye(5), REPRODUCED),
        (np.array([[1, 0.3, 0.5], [0.3, 1, -0.6], [0.5, -0.6, 1.0]]), FAILS),
    ):
        v = submodularity_violations(sigma)
        led = Ledger("ch", tmp_path / "out", registry)
        c = led.statement(
            "s.submodular",
            holds=v.n_violations == 0,
            data=front,
            evidence=f"{v.n_violations} of {v.n_total} comparisons violate it",
        )
        assert c.status == expected


def test_validation(tmp_path, registry):
    led = Ledger("ch", tmp_path / "out", registry)
    led.run(quick=False)
    front = _paper_table(tmp_path)
    with pytest.raises(KeyError, match="not in the registry"):
        led.value("nope", 1.0)
    with pytest.raises(ValueError, match="statement claim"):
        led.value("s.submodular", 1.0, data=front)
    with pytest.raises(ValueError, match="pass data="):
        led.value("v.deff", 4.8)
    with pytest.raises(ValueError, match="not finite"):
        led.value("v.deff", float("nan"), data=front)
    with pytest.raises(ValueError, match="evidence"):
        led.statement("s.submodular", holds=False, evidence="", data=front)
    led.value("v.deff", 4.8, data=front)
    with pytest.raises(ValueError, match="twice"):
        led.value("v.deff", 4.8, data=front)
    with pytest.raises(ValueError, match="not in its registry"):
        led.run(quick=False, n_trials=5)


def test_registry_rejects_malformed_files(tmp_path):
    d = tmp_path / "book" / "claims"
    d.mkdir(parents=True)
    bad = {
        "no tol": "  - {id: a, kind: value, quantity: q, where: w, paper: 1.0}\n",
        "no reading": "  - {id: a, kind: statement, quantity: q, where: w}\n",
        "unknown keys": "  - {id: a, kind: value, quantity: q, where: w, paper: 1, tol: 0.1, status: reproduced}\n",
        "run parameter": "  - {id: a, kind: value, quantity: q, where: w, paper: 1, tol: 0.1, needs: [n_boot]}\n",
    }
    for why, claim in bad.items():
        (d / "ch.yml").write_text("chapter: ch\nclaims:\n" + claim)
        with pytest.raises(ValueError, match=why.split()[-1]):
            load_registry(tmp_path)
    (d / "ch.yml").write_text("chapter: other\nclaims: []\n")
    with pytest.raises(ValueError, match="file's stem"):
        load_registry(tmp_path)


def test_save_needs_every_registered_claim_on_the_papers_data(tmp_path, registry):
    led = Ledger("ch", tmp_path / "led", registry)
    led.run(quick=False)
    led.value("v.free", 0.262)
    with pytest.raises(ValueError, match=r"not recorded: \['v.deff', 'v.ci', 'v.unpublished', 's.submodular'\]"):
        led.save()


def test_save_on_the_synthetic_stand_in_records_what_it_could_not_compute_as_not_reproducible(tmp_path, registry):
    """Without a data directory a chapter runs on the stand-in and skips claims it has nothing for (a
    benchmark the stand-in lacks): they are not reproducible here, with the reason, never an error."""
    led = Ledger("ch", tmp_path / "led", registry)
    led.run(quick=False)
    led.value("v.deff", 3.1, data=synthetic_suite(seed=0))
    rows = json.loads(led.save().read_text())
    assert [r["id"] for r in rows] == ["v.deff", "v.ci", "v.free", "v.unpublished", "s.submodular"]
    assert {r["status"] for r in rows} == {NOT_HERE}
    assert all("synthetic stand-in" in r["evidence"] for r in rows)
    assert "it needs the paper's extended" in rows[-1]["evidence"]


def test_gather(tmp_path, registry):
    led = Ledger("ch", tmp_path / "led", registry)
    led.run(quick=False, scores="mine.csv")  # a reader's own data: unrecorded claims are not applicable
    led.value("v.free", 0.262)
    led.save()
    rows = gather(tmp_path / "led", tmp_path / "all.json")
    assert [r["id"] for r in rows] == ["v.free", "v.deff", "v.ci", "v.unpublished", "s.submodular"]
    assert [r["status"] for r in rows[1:]] == [NOT_APPLICABLE] * 4
    assert json.loads((tmp_path / "all.json").read_text()) == rows
    assert list(led.frame().columns)[:3] == ["quantity", "where", "paper"]


def test_the_books_registry_is_well_formed():
    reg = load_registry(".")
    for ch in reg.chapters.values():
        assert ch.chapter.split("_")[0].isdigit(), textwrap.shorten(str(ch), 80)
