"""What the book's pages are made of: the Paper-vs-book table, the ledger page, the landing page's findings,
the render that is skipped when nothing changed, and the printable page of the PDF."""

from __future__ import annotations

import json
import re
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest
import yaml

from blindspot.book import landing_page, ledger_page as lp, pdf, render
from blindspot.book.chapters import toc_entries
from blindspot.book.claim_tables import ClaimsFrame, claims_table, status_slug, value_text
from blindspot.book.claims import load_registry
from blindspot.book.ledger import (
    ABOUT_PAPER,
    DIFFERS,
    FAILS,
    FAILS_ON_YOURS,
    HOLDS,
    NOT_APPLICABLE,
    NOT_HERE,
    REPRODUCED,
)


class _Cells(HTMLParser):
    """The rows of an HTML table as lists of (tag, attributes, text) cells."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[tuple[str, dict, str]]] = []
        self._cell: list | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = [tag, dict(attrs), ""]

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(tuple(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[2] += data


def _rows(html: str) -> list[list[tuple[str, dict, str]]]:
    p = _Cells()
    p.feed(html)
    return p.rows


def _row(cid, chapter="01_x", status=REPRODUCED, paper=1.0, book=1.0, **kw):
    base = dict(
        id=cid,
        chapter=chapter,
        kind="value",
        quantity=f"the quantity {cid}",
        where="Table 1",
        dataset="d",
        paper=paper,
        book=book,
        tol=0.1,
        status=status,
        evidence="",
        reading="",
        section="paper-vs-book",
        about="data",
    )
    return {**base, **kw}


# -- the Paper-vs-book table ---------------------------------------------------------------------------------


def test_a_claims_row_has_four_columns_a_badge_and_its_evidence_folded():
    rows = [
        _row("T.a", paper=0.9107349, book=None, status=NOT_HERE, evidence="run with n_boot=40", reading="as stated"),
        _row(
            "T.b",
            kind="statement",
            paper="no diminishing-returns comparison is violated",
            book="17,684 of 135,168 (extended frontier)",
            status=FAILS,
        ),
    ]
    html = claims_table(rows)
    head, a, b = _rows(html)
    assert [c[2] for c in head] == ["claim", "paper", "book", "status"]
    assert [c[2].strip() for c in a[1:]] == ["0.9107", "—", "not reproducible here"]  # 4 figures; — for no value
    assert "evidence and reading" in a[0][2] and "run with n_boot=40" in a[0][2] and "as stated" in a[0][2]
    assert 'class="bs-badge bs-s-not-reproducible-here"' in html and ">claim fails</span>" in html
    # a statement's long text spans both value columns, whole, never cut
    assert b[1][1].get("colspan") == "2" and "17,684 of 135,168 (extended frontier)" in b[1][2]
    assert "…" not in html and "..." not in html and ">NaN<" not in html and ">None<" not in html


def test_value_text_prints_four_significant_figures_and_a_dash_for_nothing():
    assert [value_text(v) for v in (None, float("nan"), "", 7.0, 1.8830798891, 24737.0, "robust")] == [
        "—",
        "—",
        "—",
        "7",
        "1.883",
        "24,737",
        "robust",
    ]
    assert status_slug("not reproducible here") == "not-reproducible-here"


def test_a_claims_frame_shows_as_the_table_and_its_row_selections_too():
    frame = ClaimsFrame(pd.DataFrame([_row("RT.61.a"), _row("RT.62.b"), _row("X.c")]).set_index("id"))
    frame.yours = True
    picked = frame[frame.index.str.startswith("RT.6")]
    assert isinstance(picked, ClaimsFrame) and picked.yours
    html = picked._repr_html_()
    assert 'class="bs-claims bs-yours"' in html and ">yours</th>" in html and "X.c" not in html
    # a table without the claim columns is a data table again, in its own scrolling box
    assert frame[["status", "evidence"]]._repr_html_().startswith('<div class="bs-scroll">')
    assert "bs-claims" not in frame.rename(columns={"paper": "original"})._repr_html_()


# -- the ledger page -------------------------------------------------------------------------------------------


def _ledger(rows) -> pd.DataFrame:
    return pd.DataFrame(rows).reindex(columns=lp.COLUMNS)


def test_the_ledger_page_is_split_by_part_and_chapter_with_counts_and_a_filter():
    ledger = _ledger(
        [
            _row("A.1", "01_x", REPRODUCED),
            _row("A.2", "01_x", FAILS),
            _row("B.1", "14_y", DIFFERS),
            _row("C.1", "50_z", NOT_HERE),
        ]
    )
    parts = {"01_x": "I. Diagnose", "14_y": "III. Treat"}
    html = lp.ledger_html(ledger, {"01_x": "One", "14_y": "Fourteen", "50_z": "Fifty"}, parts)
    assert html.count('<details class="bs-part"') == 3 and html.count('<details class="bs-chapter"') == 3
    assert html.index("I. Diagnose") < html.index("III. Treat") < html.index("Other chapters")
    assert re.search(r"2 claims: .*1 <span class=\"bs-badge bs-s-claim-fails\">", html)
    boxes = re.findall(r'<input type="checkbox" checked data-status="([a-z-]+)">', html)
    assert boxes == ["claim-fails", "differs", "not-reproducible-here", "reproduced"]  # what fails first
    assert sorted(re.findall(r'<tr data-status="([a-z-]+)"', html)) == sorted(
        ["reproduced", "claim-fails", "differs", "not-reproducible-here"]
    )
    assert '<a href="01_x.html#paper-vs-book"><code>A.1</code></a>' in html


def test_the_ledger_downloads_as_csv_and_json(tmp_path):
    out = tmp_path / "_build" / "ledger.json"
    out.parent.mkdir()
    out.write_text(json.dumps([_row("A.1"), _row("A.2", status=FAILS)]))
    line = lp.downloads(out, root=tmp_path)
    assert (
        "{download}`ledger.csv </_build/ledger.csv>`" in line
        and "{download}`ledger.json </_build/ledger.json>`" in line
    )
    csv = pd.read_csv(tmp_path / "_build" / "ledger.csv")
    assert list(csv["id"]) == ["A.1", "A.2"] and list(csv["status"]) == [REPRODUCED, FAILS]
    assert "no download" in lp.downloads(out, root=tmp_path / "elsewhere")


def test_the_status_figure_counts_each_part(tmp_path):
    ledger = _ledger([_row("A.1", "01_x", REPRODUCED), _row("A.2", "01_x", FAILS), _row("B.1", "14_y", FAILS)])
    fig = lp.status_figure(ledger, {"01_x": "I. Diagnose", "14_y": "III. Treat"})
    ax = fig.axes[0]
    widths = {}
    for bars in ax.containers:
        for i, bar in enumerate(bars):
            widths[(bars.get_label(), i)] = bar.get_width()
    assert widths[(FAILS, 0)] == 1 and widths[(REPRODUCED, 0)] == 1 and widths[(FAILS, 1)] == 1
    assert [t.get_text() for t in ax.get_yticklabels()] == ["I. Diagnose", "III. Treat"]


# -- the landing page ------------------------------------------------------------------------------------------


def _toc(tmp_path: Path, parts: str | None = None) -> Path:
    """A jupyter-book toc whose ``parts`` are the given YAML list (any common indentation), by default two parts."""
    default = """\
          - caption: I. Diagnose
            chapters:
              - file: book/chapters/01_x
          - caption: III. Treat
            chapters:
              - file: book/editions/quick/14_y
        """
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: book/intro\nparts:\n" + textwrap.dedent(parts or default))
    return toc


def test_toc_parts_and_totals_by_part(tmp_path):
    parts = landing_page.toc_parts(_toc(tmp_path))
    assert parts == {"01_x": "I. Diagnose", "14_y": "III. Treat"}
    ledger = _ledger(
        [
            _row("A.1", "01_x", REPRODUCED),
            _row("A.2", "01_x", FAILS),
            _row("B.1", "14_y", FAILS),
            _row("C.1", "99_q", NOT_HERE),
        ]
    )
    totals = landing_page.part_totals(ledger, parts)
    assert totals == [
        ("I. Diagnose", {FAILS: 1, REPRODUCED: 1}),
        ("III. Treat", {FAILS: 1}),
        ("Other chapters", {NOT_HERE: 1}),
        ("All parts", {FAILS: 2, NOT_HERE: 1, REPRODUCED: 1}),
    ]
    cells = {
        (r[0][2], c[1]["data-status"]): int(c[2]) for r in _rows(landing_page.totals_html(totals))[1:] for c in r[1:]
    }
    assert cells[("All parts", "all")] == 4 and cells[("III. Treat", "reproduced")] == 0


def test_one_walk_of_the_toc_serves_its_readers(tmp_path):
    """Pages in reading order (a chapter before its sections), the same for the printable book, the parts and
    the build's rewriting of an edition's copy."""
    toc = _toc(
        tmp_path,
        """\
        - caption: I. Diagnose
          chapters:
            - file: book/chapters/01_x
              sections:
                - file: book/chapters/02_y.ipynb
            - file: book/a_page.md
        - caption: II. Prognose
          chapters:
            - file: book/chapters/03_z
        """,
    )
    doc = yaml.safe_load(toc.read_text())
    files = [e["file"] for e in toc_entries(doc) if "file" in e]
    assert files == ["book/chapters/01_x", "book/chapters/02_y.ipynb", "book/a_page.md", "book/chapters/03_z"]
    assert pdf.toc_pages(toc) == [
        "book/intro",
        "book/chapters/01_x",
        "book/chapters/02_y",
        "book/a_page",
        "book/chapters/03_z",
    ]
    assert landing_page.toc_parts(toc) == {"01_x": "I. Diagnose", "02_y": "I. Diagnose", "03_z": "II. Prognose"}
    for e in toc_entries(doc):  # the entries are the document's own: rewriting one rewrites the toc
        if e.get("file") == "book/chapters/03_z":
            e["file"] = "book/editions/quick/03_z"
    assert doc["parts"][1]["chapters"][0]["file"] == "book/editions/quick/03_z"


@pytest.fixture
def registry(tmp_path):
    d = tmp_path / "book" / "claims"
    d.mkdir(parents=True)
    (d / "01_x.yml").write_text(
        textwrap.dedent("""\
        chapter: 01_x
        claims:
          - id: T1.deff.extended.frontier
            kind: value
            quantity: d_eff, Extended frontier
            where: Table 1
            paper: 4.8
            tol: 0.005
            data: {suite: extended}
            headline: the Extended frontier measures few directions
          - id: T1.other
            kind: value
            quantity: something else
            where: Table 1
            paper: 1.0
            tol: 0.1
          - id: T4a.submodular
            kind: statement
            quantity: f is submodular
            where: Theorem 4
            reading: as stated
            headline: true
        """)
    )
    return load_registry(tmp_path)


def test_the_registry_reads_headlines(registry, tmp_path):
    assert registry["T1.deff.extended.frontier"].headline == "the Extended frontier measures few directions"
    assert registry["T4a.submodular"].headline == "f is submodular"  # true: its quantity
    assert registry["T1.other"].headline == ""
    bad = tmp_path / "bad" / "book" / "claims"
    bad.mkdir(parents=True)
    (bad / "01_x.yml").write_text(
        "chapter: 01_x\nclaims:\n  - {id: a, kind: value, quantity: q, where: w, paper: 1, tol: 0, headline: 3}\n"
    )
    with pytest.raises(ValueError, match="'headline' is true or the finding in a few words"):
        load_registry(tmp_path / "bad")


def test_the_landing_page_on_the_papers_data(registry):
    ledger = _ledger(
        [
            _row("T1.deff.extended.frontier", paper=4.8, book=4.8023867, status=REPRODUCED),
            _row("T1.other", status=DIFFERS),
            _row("T4a.submodular", kind="statement", paper="no violation", book="17,684 of 135,168", status=FAILS),
        ]
    )
    text = landing_page.landing_markdown(ledger, registry, {"01_x": "I. Diagnose"}, lambda s: f"[{s}]")
    assert "The book checks 3 claims of the paper in 1 chapters" in text
    assert "1 claim fails, 1 differs, 1 reproduced" in text
    heads = [line for line in text.splitlines() if line.startswith("- ")]
    assert len(heads) == 2  # the claims marked headline, in registry order
    assert "**The Extended frontier measures few directions.** Paper: 4.8; book: 4.802 (Table 1; [01_x])" in heads[0]
    assert "bs-s-claim-fails" in heads[1] and "book: 17,684 of 135,168" in heads[1]


def test_the_landing_page_on_your_data_does_not_claim_the_papers_totals(registry):
    ledger = _ledger(
        [
            _row("T1.deff.frontier", paper=4.8, book=3.398, status=NOT_APPLICABLE, dataset="mine frontier"),
            _row("T1.other", status=NOT_APPLICABLE, book=None),
            _row("T4a.submodular", kind="statement", paper=None, book=None, status=HOLDS),
            _row("C1.citation", kind="statement", status=ABOUT_PAPER, about="paper"),
            _row("X.fails", kind="statement", status=FAILS_ON_YOURS),
        ]
    )
    text = landing_page.landing_markdown(ledger, registry, {"01_x": "I. Diagnose"}, lambda s: s)
    assert "your leaderboard" in text and "not the paper's reproduction" in text
    assert "The book checks" not in text  # the paper's sentence is not said of a reader's file
    heads = [line for line in text.splitlines() if line.startswith("- ")]
    # in your terms: the general id's row, the suite's name replaced; the statement judged on your data
    assert "**Your frontier measures few directions.** Paper: 4.8; yours: 3.398" in heads[0]
    assert "bs-s-holds" in heads[1]


# -- render and print ------------------------------------------------------------------------------------------


def test_render_inputs_change_with_a_page_and_the_ledger_only(tmp_path):
    (tmp_path / "_config.yml").write_text("title: x\n")
    (tmp_path / "book" / "chapters").mkdir(parents=True)
    (tmp_path / "book" / "intro.md").write_text("# Intro\n")
    (tmp_path / "book" / "chapters" / "01_x.ipynb").write_text("{}")
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: book/intro\nparts:\n  - chapters:\n      - file: book/chapters/01_x\n")
    ledger = tmp_path / "ledger.json"
    ledger.write_text("[]")
    key = render.render_inputs(tmp_path, toc, ledger)
    (tmp_path / "book" / "intro.md").write_text("# Intro\n")  # rewritten, unchanged: same key
    assert render.render_inputs(tmp_path, toc, ledger) == key
    (tmp_path / "book" / "chapters" / "01_x.ipynb").write_text('{"cells": []}')
    key2 = render.render_inputs(tmp_path, toc, ledger)
    assert key2 != key
    ledger.write_text('[{"id": "a"}]')
    assert render.render_inputs(tmp_path, toc, ledger) != key2
    assert render.render_inputs(tmp_path, toc, ledger, builder="singlehtml") != render.render_inputs(
        tmp_path, toc, ledger
    )


def test_an_edition_whose_inputs_did_not_change_is_not_rendered_again(tmp_path, monkeypatch):
    (tmp_path / "_config.yml").write_text("title: x\n")
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "intro.md").write_text("# Intro\n")
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: book/intro\n")
    html = tmp_path / "html"
    html.mkdir()
    (html / render.STAMP).write_text(render.render_inputs(tmp_path, toc, None))

    def no_sphinx(*a, **k):
        raise AssertionError("Sphinx ran although nothing changed")

    monkeypatch.setattr(render.subprocess, "Popen", no_sphinx)
    assert render.render_many(tmp_path, [render.Render(toc, html)]) == [html]
    (tmp_path / "book" / "intro.md").write_text("# Intro, changed\n")
    with pytest.raises(AssertionError, match="Sphinx ran"):
        render.render_many(tmp_path, [render.Render(toc, html)])


def _page(path: Path, depth: int, title: str, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'<html><head><link rel="stylesheet" href="{"../" * depth}_static/x.css"></head>'
        f'<body><nav>sidebar</nav><article class="bd-article" role="main"><h1>{title}<a class="headerlink" '
        f'href="#t">#</a></h1>{body}</article></body></html>'
    )


def test_the_printable_page_holds_every_page_in_order_with_running_titles(tmp_path):
    html = tmp_path / "html"
    _page(html / "book" / "intro.html", 1, "The Book", "<p>start</p>")
    _page(
        html / "book" / "chapters" / "01_x.html",
        2,
        'Theorem 1: "d"',
        '<img src="../../_images/a.png">'
        '<details class="bs-more"><summary>evidence</summary>e</details><a href="#here">x</a>',
    )
    toc = tmp_path / "_toc.yml"
    toc.write_text("format: jb-book\nroot: book/intro\nparts:\n  - chapters:\n      - file: book/chapters/01_x\n")
    out = pdf.compose(html, toc, tmp_path / "pdf" / "book-letter.html", paper="letter")
    text = out.read_text()
    body = text[text.index("<body") :]
    assert body.index("start") < body.index("Theorem 1") and "sidebar" not in text
    assert '<section class="bs-print-page" style="page: bs-p1">' in text
    assert '@page bs-p1 { @top-center { content: "Theorem 1: \\"d\\""' in text and "size: letter" in text
    assert 'counter(page) " / " counter(pages)' in text
    assert 'src="../html/_images/a.png"' in text and 'href="../html/_static/x.css"' in text and 'href="#here"' in text
    assert '<details open class="bs-more">' in text  # the evidence is printed
    mtime = out.stat().st_mtime_ns
    pdf.compose(html, toc, out, paper="letter")
    assert out.stat().st_mtime_ns == mtime  # unchanged pages: the page keeps its time (no new print)
    with pytest.raises(ValueError, match="paper size"):
        pdf.page_rules([], paper="a5")
    (html / "book" / "chapters" / "01_x.html").unlink()
    with pytest.raises(Exception, match="build the book first"):
        pdf.compose(html, toc, out)
