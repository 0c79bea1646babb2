"""blindspot.book.claims and blindspot.book.ledger: the registry, and statuses decided from computed values."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pandas as pd
import pytest

from blindspot.book import ledger_page as lp
from blindspot.book.claims import general_id, general_wording, load_registry
from blindspot.book.ledger import (
    ABOUT_PAPER,
    CHAPTER_ENV,
    DIFFERS,
    FAILS,
    FAILS_ON_YOURS,
    HOLDS,
    NOT_APPLICABLE,
    NOT_HERE,
    NOT_RESOLVED,
    REPRODUCED,
    Ledger,
    current_chapter,
    edition_words,
    gather,
    paper_suite_of,
)
from blindspot.core.claim_value import ClaimStatement, ClaimValue
from blindspot.core.verdict import STATISTICAL, Robustness, StatTest, Verdict
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


def _registry_of(root, files: dict[str, str]):
    """The registry of a project at ``root`` whose book/claims holds ``files`` ({name: YAML text})."""
    d = root / "book" / "claims"
    d.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (d / name).write_text(text)
    return load_registry(root)


@pytest.fixture
def registry(tmp_path):
    return _registry_of(tmp_path, {"ch.yml": REGISTRY})


def _paper_table(tmp_path, name="extended") -> ScoreTable:
    """A table that looks read from the named suite's file (the ledger only looks at name and source)."""
    t = synthetic_suite(n_models=30, n_benchmarks=4, seed=1)
    return ScoreTable(t.scores, t.meta, name=name, source=str(tmp_path / "data" / SUITES[name].path))


def test_value_statuses_on_the_papers_data(tmp_path, registry):
    front = _paper_table(tmp_path)
    led = Ledger(tmp_path / "out", registry, chapter="ch")
    led.run(quick=False)
    assert paper_suite_of(front) == "extended"
    assert led.value("v.deff", 4.803, data=front).status == REPRODUCED
    c = led.value("v.ci", 4.20, data=front)
    assert c.status == DIFFERS and "book 4.2 vs paper 4.15" in c.evidence
    assert led.value("v.free", np.pi / 12, evidence="").status == REPRODUCED


def test_a_results_claims_are_recorded_in_one_call_as_one_by_one(tmp_path, registry):
    front = _paper_table(tmp_path)
    v = Verdict(True, "no violation among all subsets")
    claims = {
        "v.deff": ClaimValue(4.803, front, "the frontier's d_eff"),
        "s.submodular": ClaimStatement(v, front),
        "v.ci": ClaimValue(4.20, [front]),
    }
    one_call, by_one = Ledger(tmp_path / "a", registry, chapter="ch"), Ledger(tmp_path / "b", registry, chapter="ch")
    for led in (one_call, by_one):
        led.run(quick=False)
    rows = one_call.record(claims)
    by_one.value("v.deff", 4.803, data=front, evidence="the frontier's d_eff")
    by_one.verdict("s.submodular", v, data=front)
    by_one.value("v.ci", 4.20, data=[front])
    assert list(rows) == list(claims)
    assert [c.as_row() for c in rows.values()] == [c.as_row() for c in by_one.claims]
    assert [c.status for c in rows.values()] == [REPRODUCED, REPRODUCED, DIFFERS]
    with pytest.raises(ValueError, match="ClaimValue or ClaimStatement"):
        one_call.record({"v.deff": 4.803})
    with pytest.raises(ValueError, match="Verdict"):
        ClaimStatement(True, front)


def test_an_unavailable_protocol_is_not_reproducible_here_whatever_the_value(tmp_path, registry):
    led = Ledger(tmp_path / "out", registry, chapter="ch")
    c = led.value("v.unpublished", 0.38)
    assert c.status == NOT_HERE and "not published" in c.evidence and c.book == 0.38


def test_numpy_booleans_decide_statements(tmp_path, registry):
    led = Ledger(tmp_path / "out", registry, chapter="ch")
    c = led.statement("s.submodular", holds=np.float64(1.0) > 0, evidence="x", data=_paper_table(tmp_path))
    assert c.status == REPRODUCED


def test_protocol_and_synthetic_give_not_reproducible_here(tmp_path, registry):
    led = Ledger(tmp_path / "out", registry, chapter="ch")
    run = led.run(quick=True)
    assert run.n_boot == 40  # None resolved to quick mode's value
    c = led.value("v.ci", 4.15, data=_paper_table(tmp_path))
    assert c.status == NOT_HERE and "n_boot=40 (quick mode), not the paper's 300" in c.evidence
    assert led.value("v.deff", 4.80, data=synthetic_suite(seed=0)).status == NOT_HERE
    assert Ledger(tmp_path, registry, chapter="ch").run(quick=True, n_boot=300).n_boot == 300  # a given value is kept


def test_another_chapters_run_is_resolved_as_that_chapter_resolves_it(tmp_path, registry):
    d = tmp_path / "book" / "claims"
    (d / "other.yml").write_text("chapter: other\nrun:\n  pool_size: {paper: 16, quick: 4}\nclaims: []\n")
    both = load_registry(tmp_path)
    led = Ledger(tmp_path / "out", both, chapter="ch")
    own = led.run(quick=True, n_boot=7)
    assert led.run_of("other", quick=True).pool_size == 4 and led.run_of("other").pool_size == 16
    assert led.run_of("ch", quick=True).n_boot == 40  # the registry's value, not this run's given 7
    assert own.n_boot == 7 and led.run_of("other").chapter == "other"
    with pytest.raises(ValueError, match="no registry file for chapter 'othr'"):
        led.run_of("othr")


def test_your_data_gives_holds_fails_and_not_applicable(tmp_path, registry):
    mine = table_from_frame(synthetic_suite(n_models=20, n_benchmarks=4, seed=3).scores.reset_index(), name="mine")
    led = Ledger(tmp_path / "out", registry, chapter="ch")
    led.run(quick=False)
    c = led.value("v.deff", 2.0, data=mine)
    assert c.status == NOT_APPLICABLE and c.book == 2.0
    assert led.statement("s.submodular", holds=True, evidence="0 violations", data=mine).status == HOLDS
    led2 = Ledger(tmp_path / "out", registry, chapter="ch")
    assert led2.statement("s.submodular", holds=False, evidence="3 violations", data=mine).status == FAILS_ON_YOURS


def test_a_statement_whose_premise_is_absent_is_not_testable_here_not_a_failure(tmp_path, registry):
    """premise_absent turns a statement that does not hold into 'not reproducible here' (your data: 'not
    applicable') with the measured reason first; a statement that holds is judged as usual."""
    front = _paper_table(tmp_path)
    why = "the task-labelled router does not beat static (+0.0037 [+0.0006, +0.0067])"
    led = Ledger(tmp_path / "out", registry, chapter="ch")
    c = led.statement("s.submodular", holds=False, evidence="qa - static +0.0012", data=front, premise_absent=why)
    assert c.status == NOT_HERE and c.evidence == f"not testable here: {why}; qa - static +0.0012"
    led = Ledger(tmp_path / "out", registry, chapter="ch")
    assert led.statement("s.submodular", holds=True, evidence="x", data=front, premise_absent=why).status == REPRODUCED
    led = Ledger(tmp_path / "out", registry, chapter="ch")
    assert led.statement("s.submodular", holds=False, evidence="x", data=front, premise_absent="  ").status == FAILS
    mine = table_from_frame(synthetic_suite(n_models=20, n_benchmarks=4, seed=3).scores.reset_index(), name="mine")
    led = Ledger(tmp_path / "out", registry, chapter="ch")
    led.run(quick=False)
    c = led.statement("s.submodular", holds=False, evidence="x", data=mine, premise_absent=why)
    assert c.status == NOT_APPLICABLE and c.evidence.startswith("not testable here:")
    with pytest.raises(ValueError, match="premise_absent= must be a str"):
        Ledger(tmp_path / "out", registry, chapter="ch").statement(
            "s.submodular", holds=False, evidence="x", premise_absent=True
        )


def test_a_statement_the_paper_gets_wrong_can_hold(tmp_path, registry):
    """The verdict follows the numbers: where f is modular (uncorrelated benchmarks) it is submodular."""
    front = _paper_table(tmp_path)
    for sigma, expected in (
        (np.eye(5), REPRODUCED),
        (np.array([[1, 0.3, 0.5], [0.3, 1, -0.6], [0.5, -0.6, 1.0]]), FAILS),
    ):
        v = submodularity_violations(sigma)
        led = Ledger(tmp_path / "out", registry, chapter="ch")
        c = led.statement(
            "s.submodular",
            holds=v.n_violations == 0,
            data=front,
            evidence=f"{v.n_violations} of {v.n_total} comparisons violate it",
        )
        assert c.status == expected


def test_validation(tmp_path, registry):
    led = Ledger(tmp_path / "out", registry, chapter="ch")
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
    led = Ledger(tmp_path / "led", registry, chapter="ch")
    led.run(quick=False)
    led.value("v.free", 0.262)
    with pytest.raises(ValueError, match=r"not recorded: \['v.deff', 'v.ci', 'v.unpublished', 's.submodular'\]"):
        led.save()


def test_save_on_the_synthetic_stand_in_records_what_it_could_not_compute_as_not_reproducible(tmp_path, registry):
    """Without a data directory a chapter runs on the stand-in and skips claims it has nothing for (a
    benchmark the stand-in lacks): they are not reproducible here, with the reason, never an error."""
    led = Ledger(tmp_path / "led", registry, chapter="ch")
    led.run(quick=False)
    led.value("v.deff", 3.1, data=synthetic_suite(seed=0))
    rows = json.loads(led.save().read_text())
    assert [r["id"] for r in rows] == ["v.deff", "v.ci", "v.free", "v.unpublished", "s.submodular"]
    assert {r["status"] for r in rows} == {NOT_HERE}
    assert all("synthetic stand-in" in r["evidence"] for r in rows)
    assert "it needs the paper's extended" in rows[-1]["evidence"]


def test_gather(tmp_path, registry):
    led = Ledger(tmp_path / "led", registry, chapter="ch")
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


PER_SUITE = """\
chapter: ps
run:
  scores: {paper: [ollm_v2, extended, livebench]}
claims:
  - id: T2.nonvacuous.ollm_v2
    kind: statement
    quantity: 2R omega is an informative bound on the OLLM v2 frontier
    where: §4
    reading: below 2R
    data: {suite: ollm_v2}
  - id: T2.nonvacuous.extended
    kind: statement
    quantity: 2R omega is an informative bound on the Extended frontier
    where: §4
    reading: below 2R
    data: {suite: extended}
  - id: T2.nonvacuous.livebench
    kind: statement
    quantity: 2R omega is an informative bound on the LiveBench frontier
    where: §4
    reading: below 2R
    data: {suite: livebench}
  - id: T2.R.ollm_v2
    kind: value
    quantity: population radius R, OLLM v2 frontier
    where: Table 2
    paper: 12.3
    tol: 0.05
    data: {suite: ollm_v2}
  - id: T2.R.extended
    kind: value
    quantity: population radius R, Extended frontier
    where: Table 2
    paper: 9.1
    tol: 0.05
    data: {suite: extended}
  - id: T2.citation
    kind: statement
    about: paper
    quantity: the cited table supports the range
    where: §4
    reading: the range is the table's
    data: {suite: extended}
  - id: T2.constant
    kind: value
    about: paper
    quantity: a printed constant of App. C
    where: App. C
    paper: 0.262
    tol: 0.0005
"""


@pytest.fixture
def per_suite(tmp_path):
    d = tmp_path / "reg" / "book" / "claims"
    d.mkdir(parents=True)
    (d / "ps.yml").write_text(PER_SUITE)
    return load_registry(tmp_path / "reg")


def _mine() -> ScoreTable:
    return table_from_frame(synthetic_suite(n_models=20, n_benchmarks=4, seed=3).scores.reset_index(), name="mine")


def test_general_id_and_wording_drop_the_papers_suite_names():
    assert general_id("T1.deff.ollm_v2.full", ("ollm_v2",)) == "T1.deff.full"
    assert general_id("S.monotone.ollm_v2_full", ("ollm_v2_full",)) == "S.monotone"
    assert general_id("H41.ratio.extended.zscore", ("extended",)) == "H41.ratio.zscore"
    assert general_id("T4.r90.ext_frontier", ("extended",)) == "T4.r90.ext_frontier"  # only whole suite names
    assert general_id("C2.converse", ()) == "C2.converse"
    assert general_wording("informative on the OLLM v2 frontier", ("ollm_v2",)) == "informative on your frontier"
    assert general_wording("d_eff (Pearson), LiveBench, all models", ("livebench",)) == (
        "d_eff (Pearson), your leaderboard, all models"
    )
    assert general_wording("monotone in q (the 4,576-model OLLM v2 dump)", ("ollm_v2_full",)) == (
        "monotone in q (your leaderboard)"
    )
    assert general_wording("Extended d_eff", ()) == "Extended d_eff"  # no suite: nothing to reword
    assert general_wording("the same count (OLLM v2 and Extended, all models)", ("ollm_v2", "extended")) == (
        "the same count (your leaderboard, all models)"
    )


def test_on_your_data_a_statement_made_per_suite_is_one_row_in_your_terms(tmp_path, per_suite):
    mine = _mine()
    led = Ledger(tmp_path / "out", per_suite, chapter="ps")
    led.run(quick=False, scores="mine.csv")
    for s in ("ollm_v2", "extended", "livebench"):  # your file stands in for each of the paper's suites
        led.statement(f"T2.nonvacuous.{s}", holds=False, evidence="2R omega = 18.6 vs 2R = 13.0", data=mine, book=18.6)
    for s in ("ollm_v2", "extended"):
        led.value(f"T2.R.{s}", 6.49, data=mine)
    led.statement("T2.citation", holds=False, evidence="a range", data=mine)
    led.value("T2.constant", 0.13)
    rows = json.loads(led.save().read_text())
    by_id = {r["id"]: r for r in rows}
    assert list(by_id) == ["T2.nonvacuous", "T2.R", "T2.citation", "T2.constant"]
    stmt = by_id["T2.nonvacuous"]
    assert stmt["status"] == FAILS_ON_YOURS and stmt["quantity"] == "2R omega is an informative bound on your frontier"
    assert "OLLM v2" not in stmt["evidence"] + stmt["quantity"]
    r = by_id["T2.R"]
    assert r["status"] == NOT_APPLICABLE and r["book"] == 6.49 and r["quantity"] == "population radius R, your frontier"
    assert r["paper"] == "12.3 (ollm_v2); 9.1 (extended)"  # the paper's value of each suite, beside yours
    assert r["evidence"].startswith("the paper's T2.R.ollm_v2 = 12.3, T2.R.extended = 9.1 (about its own data)")
    assert by_id["T2.citation"]["status"] == ABOUT_PAPER and by_id["T2.constant"]["status"] == ABOUT_PAPER
    assert {r["about"] for r in rows} == {"data", "paper"}
    judged = [(r["chapter"], repr(r["book"]), r["evidence"]) for r in rows if r["book"] is not None]
    assert len(judged) == len(set(judged))
    assert list(led.frame().index) == list(by_id)  # the chapter's own table reads the same


def test_on_your_data_different_judgments_stay_apart_and_the_papers_book_keeps_every_row(tmp_path, per_suite):
    mine = _mine()
    led = Ledger(tmp_path / "out", per_suite, chapter="ps")
    led.run(quick=False, scores="mine.csv")
    led.statement("T2.nonvacuous.ollm_v2", holds=True, evidence="below", data=mine)
    led.statement("T2.nonvacuous.extended", holds=False, evidence="above", data=mine)
    rows = json.loads(led.save().read_text())
    stmts = [r for r in rows if r["quantity"].startswith("2R omega")]
    assert [r["id"] for r in stmts] == ["T2.nonvacuous.ollm_v2", "T2.nonvacuous.extended"]
    assert [r["status"] for r in stmts] == [HOLDS, FAILS_ON_YOURS]
    # on the paper's data nothing is merged and a statement about the paper is judged like any other
    paper = Ledger(tmp_path / "paper", per_suite, chapter="ps")
    paper.run(quick=False)
    c = paper.statement("T2.citation", holds=False, evidence="the table spans less", data=_paper_table(tmp_path))
    assert c.status == FAILS and c.about == "paper"
    assert paper.value("T2.constant", 0.13).status == DIFFERS


def test_registry_checks_about_and_general(tmp_path):
    d = tmp_path / "book" / "claims"
    d.mkdir(parents=True)
    base = "  - {id: a.extended, kind: value, quantity: q, where: w, paper: 1, tol: 0.1, data: {suite: extended}"
    (d / "ch.yml").write_text("chapter: ch\nclaims:\n" + base + ", about: text}\n")
    with pytest.raises(ValueError, match="'about' is one of"):
        load_registry(tmp_path)
    (d / "ch.yml").write_text("chapter: ch\nclaims:\n" + base + ", general: {wording: x}}\n")
    with pytest.raises(ValueError, match="'general' is a mapping"):
        load_registry(tmp_path)
    (d / "ch.yml").write_text("chapter: ch\nclaims:\n" + base + ", general: {id: g, quantity: on yours}}\n")
    spec = load_registry(tmp_path)["a.extended"]
    assert (spec.general_id, spec.general_quantity, spec.about) == ("g", "on yours", "data")
    (d / "ch.yml").write_text(
        "chapter: ch\nclaims:\n" + base + "}\n"
        "  - {id: a.livebench, kind: statement, quantity: q, where: w, reading: r, data: {suite: livebench}}\n"
    )
    with pytest.raises(ValueError, match="general id 'a' is shared"):
        load_registry(tmp_path)


def test_the_summary_on_your_leaderboard_is_computed_from_the_ledger():
    columns = ("chapter", "id", "kind", "quantity", "book", "status", "about", "section")
    rows = [
        dict(zip(columns, row))
        for row in [
            ("01_x", "T1.deff.frontier", "value", "d_eff (Pearson), your frontier", 3.398, NOT_APPLICABLE, "data", "s"),
            ("01_x", "T1.ci_lo.frontier", "value", "lo", 2.684, NOT_APPLICABLE, "data", "s"),
            ("01_x", "T1.ci_hi.frontier", "value", "hi", 3.992, NOT_APPLICABLE, "data", "s"),
            ("07_y", "H21.top1", "value", "top-1 swap rate between halves", 0.25, NOT_APPLICABLE, "data", "t"),
            ("14_z", "T4.r90.ext_frontier", "value", "benchmarks greedy needs, your frontier", 5.0,
             NOT_APPLICABLE, "data", "u"),
            ("05_w", "T2.nonvacuous", "statement", "an informative bound on your frontier", None,
             FAILS_ON_YOURS, "data", "v"),
            ("06_v", "S.geom", "statement", "geometry dominates", None, HOLDS, "data", "v"),
            ("08_u", "C1.citation", "statement", "the cited table", None, ABOUT_PAPER, "paper", "v"),
        ]
    ]  # fmt: skip
    rows[0]["dataset"] = "mine frontier, n = 30"
    ledger = pd.DataFrame(rows).reindex(columns=lp.COLUMNS)
    text = lp.reader_summary(ledger, {"01_x": "One"}, resolved=0.9)
    assert "2 were judged on yours: <strong>1 hold</strong> and <strong>1 fail</strong>" in text
    assert "about 3.4 on your frontier (d_eff = 3.398, bootstrap interval 2.684 to 3.992; mine frontier, n = 30" in text
    assert "the halves agree on the #1 in 75% of the splits, so by that test your #1 is not resolved" in text
    assert "benchmarks greedy needs, your frontier: 5" in text
    assert "<summary>The 1 that hold on your leaderboard</summary><ul><li>geometry dominates" in text
    assert text.index("The numbers that matter most") < text.index("<details>")  # the numbers first
    assert '<a href="01_x.html#s">One</a>' in text and "1 of the paper's statements is about its own text" in text
    assert "your #1 is resolved" in lp.reader_summary(ledger, {}, resolved=0.7)
    open_row = dict(zip(columns, ("25_t", "S.monotone", "statement", "monotone in q", None, NOT_RESOLVED, "data", "w")))
    more = pd.concat([ledger, pd.DataFrame([open_row]).reindex(columns=lp.COLUMNS)], ignore_index=True)
    text = lp.reader_summary(more, {}, resolved=0.9)
    assert "3 were judged on yours: <strong>1 hold</strong>, <strong>1 not resolved at 95%</strong> and" in text
    assert "<summary>The 1 that are not resolved at 95% on your leaderboard</summary><ul><li>monotone in q" in text


def test_the_chapter_name_comes_from_the_build_not_the_notebook(registry, tmp_path, monkeypatch):
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    monkeypatch.setenv(CHAPTER_ENV, "ch")
    assert Ledger(tmp_path / "out", registry).chapter == "ch"
    assert Ledger(tmp_path / "out", registry, chapter="other").chapter == "other"  # an explicit name wins
    monkeypatch.delenv(CHAPTER_ENV)
    # a notebook opened by hand in Jupyter: the server names the file; used when the registry knows it
    monkeypatch.setenv("JPY_SESSION_NAME", "/home/me/book/notebooks/ch.md")
    assert current_chapter(registry) == "ch"
    monkeypatch.setenv("JPY_SESSION_NAME", "/home/me/Untitled.ipynb")
    with pytest.raises(ValueError, match="blindspot execute"):
        Ledger(tmp_path / "out", registry)


def test_edition_words():
    assert edition_words(True) == "on your leaderboard" and edition_words(False) == "on the paper's data"


STATISTICAL_CLAIMS = """\
chapter: st
claims:
  - id: s.sampled
    kind: statement
    quantity: the frontier's d_eff lies in [3, 5]
    where: Section 4
    reading: the 95% bootstrap interval of d_eff inside [3, 5]
    data: {suite: extended}
    basis: statistical
"""
# the exact statement of REGISTRY (its last claim) beside the statistical one, as s.exact
STATISTICAL_CLAIMS += REGISTRY[REGISTRY.index("  - id: s.submodular") :].replace("s.submodular", "s.exact")


@pytest.fixture
def stat_registry(tmp_path):
    return _registry_of(tmp_path, {"st.yml": STATISTICAL_CLAIMS})


def test_a_statistical_statement_is_judged_by_its_test_and_the_row_names_it(tmp_path, stat_registry):
    """A statement registered as statistical needs its test; unresolved (holds=None) is 'not resolved at 95%';
    the row carries basis, test, interval, p-value, what the test could detect and the robustness."""
    front = _paper_table(tmp_path)
    led = Ledger(tmp_path / "out", stat_registry, chapter="st")
    with pytest.raises(ValueError, match="registered as statistical"):
        led.statement("s.sampled", holds=False, evidence="2.9", data=front)
    test = StatTest("percentile bootstrap over 300 resamples", 2.9, (2.6, 3.3))
    robust = Robustness(2, 3, "frontier rules", flips=("top 20",))
    c = led.statement("s.sampled", holds=None, evidence="d_eff 2.9", data=front, test=test, robustness=robust)
    assert c.status == NOT_RESOLVED and c.basis == STATISTICAL and c.interval == (2.6, 3.3)
    assert c.detectable == pytest.approx(test.detectable) and c.test.startswith("percentile bootstrap")
    assert "flips under: top 20" in c.evidence and c.robustness.startswith("holds in 2 of 3")
    row = json.loads(json.dumps(c.as_row()))
    assert row["interval"] == [2.6, 3.3] and row["basis"] == STATISTICAL and row["p_value"] is None
    exact = led.statement("s.exact", holds=True, evidence="0 of 10 violate", data=front)
    assert exact.basis == "exact" and exact.test == "" and exact.interval is None
    with pytest.raises(ValueError, match="only a statistical statement may be unresolved"):
        Ledger(tmp_path / "out", stat_registry, chapter="st").statement("s.exact", holds=None, evidence="x", data=front)


def test_a_verdict_is_recorded_in_one_call_and_fails_only_as_the_rule_says(tmp_path, stat_registry):
    front = _paper_table(tmp_path)
    fails = Verdict(False, "d_eff 2.0", basis=STATISTICAL, test=StatTest("bootstrap", 2.0, (1.7, 2.3)))
    led = Ledger(tmp_path / "out", stat_registry, chapter="st")
    assert led.verdict("s.sampled", fails, data=front).status == FAILS
    mine = table_from_frame(synthetic_suite(n_models=20, n_benchmarks=4, seed=3).scores.reset_index(), name="mine")
    open_ = Verdict(None, "d_eff 3.0", basis=STATISTICAL, test=StatTest("bootstrap", 3.0, (2.7, 3.3)))
    led = Ledger(tmp_path / "out", stat_registry, chapter="st")
    led.run(quick=False)
    assert led.verdict("s.sampled", open_, data=mine).status == NOT_RESOLVED
    with pytest.raises(ValueError, match="takes a Verdict"):
        led.verdict("s.exact", True)


def test_the_registry_knows_each_statements_basis(tmp_path, stat_registry):
    assert stat_registry["s.sampled"].basis == STATISTICAL and stat_registry["s.exact"].basis == "exact"
    bad = STATISTICAL_CLAIMS.replace("basis: statistical", "basis: roughly")
    with pytest.raises(ValueError, match="'basis' is 'exact' or 'statistical'"):
        _registry_of(tmp_path / "bad", {"st.yml": bad})
