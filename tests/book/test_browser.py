"""Every page of the (quick) book as a reader gets it: opened from disk in headless Chromium, no network.

A page fails on a console error, a resource or image that does not load, TeX left unrendered in its
text (MathJax is served from the book itself), or an internal link whose file or anchor is missing.
The book's tables are measured against the text column once MathJax has typeset the page, at a
desktop's 1280 px and a phone's 390 px: a Paper-vs-book table and the ledger's tables fit the column,
a wide data table scrolls in its own box instead of widening the page, and no cell is cut with "…"
or shows NaN. Every figure is captioned and shown once. The landing page's counts are the ledger's.
A code cell's line of 88 characters, the width the chapters are formatted to, fits its box at 1280 px.

The checks are functions of a built HTML folder (``table_problems``, ``figure_problems``,
``landing_problems``, ``code_problems``), so they can be run on any build, e.g. an older one, to see what they find.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
import yaml

from blindspot.book.notebook_format import LINE_LENGTH
from blindspot.book.pdf import CHROMIUM_FLAGS, find_chromium

pytestmark = pytest.mark.pipeline

_RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\\deff|\\frac|\\mathrm")
_TEXT_WITHOUT_CODE = """() => {
  const clone = document.body.cloneNode(true);
  clone.querySelectorAll('pre, code, script, style, mjx-container, .highlight, textarea').forEach(e => e.remove());
  return clone.innerText;
}"""
_BROKEN_IMAGES = """() => Array.from(document.images)
  .filter(img => !(img.complete && img.naturalWidth > 0)).map(img => img.getAttribute('src'))"""
_LINKS = """() => Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"""
_TYPESET = """async () => {
  if (!window.MathJax || !window.MathJax.startup) { return -1; }
  await window.MathJax.startup.promise;
  return document.querySelectorAll('mjx-container').length;
}"""
#: Every table of the article, measured against the text column (the article's content box) after MathJax has
#: typeset the page and every part and chapter of the ledger is open. A table's "box" is the nearest ancestor
#: that scrolls or clips it sideways (what the page shows of it), or the table itself.
_TABLES = """async () => {
  if (window.MathJax && window.MathJax.startup) { await window.MathJax.startup.promise; }
  document.querySelectorAll('details.bs-part, details.bs-chapter').forEach(d => { d.open = true; });
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const art = document.querySelector('article.bd-article');
  if (!art) { return null; }
  const cs = getComputedStyle(art), r = art.getBoundingClientRect();
  const right = r.right - parseFloat(cs.paddingRight);
  const ledgerPage = !!document.getElementById('ch-ledger');  // every table of the ledger chapter is the ledger's
  const tables = [];
  for (const t of art.querySelectorAll('table')) {
    if (t.closest('.highlight, mjx-container')) { continue; }
    let box = t;
    for (let el = t.parentElement; el && el !== art; el = el.parentElement) {
      const o = getComputedStyle(el).overflowX;
      if (o === 'auto' || o === 'scroll' || o === 'hidden') { box = el; break; }
    }
    // a table a cell printed (a data table, the claims): no cell cut short, none NaN; a table written in the
    // text may end a cell with "…" on purpose
    const printed = !!t.closest('.cell_output, .bs-findings, .bs-ledger');
    const cells = printed ? Array.from(t.querySelectorAll('td, th')).map(c => c.innerText.trim()) : [];
    tables.push({
      kind: ledgerPage ? 'ledger' : (t.closest('section#paper-vs-book') ? 'paper-vs-book' : 'data'),
      right: t.getBoundingClientRect().right, boxRight: box.getBoundingClientRect().right,
      width: Math.round(t.getBoundingClientRect().width),
      cut: cells.filter(c => /(…|\\.\\.\\.)$/.test(c)).slice(0, 3),
      nan: cells.filter(c => /^(NaN|nan|None|<NA>)$/.test(c)).length,
    });
  }
  return {column: Math.round(right - r.left - parseFloat(cs.paddingLeft)), right: right, tables: tables};
}"""
_FIGURES = """() => {
  const art = document.querySelector('article.bd-article');
  if (!art) { return null; }
  return Array.from(art.querySelectorAll('img')).filter(img => !img.closest('.bs-badge')).map(img => {
    const fig = img.closest('figure');
    const cap = fig ? fig.querySelector('figcaption') : null;
    return {src: img.getAttribute('src'), caption: cap ? cap.innerText.trim() : ''};
  });
}"""
_TOTALS = """() => Array.from(document.querySelectorAll('table.bs-totals td[data-status]')).map(td => ({
  part: td.closest('tr').dataset.part, status: td.dataset.status, n: parseInt(td.innerText, 10)}))"""
_HEADLINES = """() => Array.from(document.querySelectorAll('.bs-findings li')).map(li => ({
  status: (li.querySelector('.bs-badge') || {}).innerText || '',
  links: Array.from(li.querySelectorAll('a[href]')).map(a => a.href)}))"""
#: Every code cell's input box on the page (folded cells and solutions opened): its longest line, whether it
#: scrolls sideways, and a monospace line of LINE_LENGTH characters measured in its font against its box.
_CODE = """async (n) => {
  document.querySelectorAll('details').forEach(d => { d.open = true; });
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const art = document.querySelector('article.bd-article');
  if (!art) { return null; }
  return Array.from(art.querySelectorAll('div.cell_input pre')).map(pre => {
    const cs = getComputedStyle(pre);
    const probe = document.createElement('span');
    probe.style.cssText = 'position:absolute;visibility:hidden;white-space:pre';
    probe.textContent = 'x'.repeat(n);
    pre.appendChild(probe);
    const full = probe.getBoundingClientRect().width;
    probe.remove();
    const inner = pre.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    return {longest: Math.max(...pre.innerText.split('\\n').map(l => l.length)),
            scrolls: pre.scrollWidth > pre.clientWidth + 1, full: Math.round(full), inner: Math.round(inner)};
  });
}"""
#: Chapters whose Paper-vs-book tables must be measured (at least five).
MIN_CHAPTERS = 5


def _ids(path: Path, cache: dict[Path, set[str]]) -> set[str]:
    if path not in cache:
        cache[path] = set(re.findall(r'\bid="([^"]+)"', path.read_text(errors="replace")))
    return cache[path]


def _pages(html: Path) -> list[Path]:
    return sorted(
        p for p in html.rglob("*.html") if "_static" not in p.parts and p.name not in ("genindex.html", "search.html")
    )


def _redirect(path: Path) -> str | None:
    """Where a page only forwards the reader (the root index.html), else None."""
    m = re.search(r'http-equiv="refresh" content="0; url=([^"]+)"', path.read_text(errors="replace"), flags=re.I)
    return m.group(1) if m else None


def _articles(html: Path) -> list[Path]:
    """The pages with text of their own (not a redirect)."""
    return [p for p in _pages(html) if _redirect(p) is None]


@contextmanager
def _browser() -> Iterator[object]:
    exe = find_chromium()
    if exe is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=list(CHROMIUM_FLAGS[1:]))
        try:
            yield browser
        finally:
            browser.close()


def table_problems(browser, html: Path, widths: tuple[int, ...] = (1280, 390)) -> tuple[list[str], dict]:
    """What is wrong with the tables of every page of ``html`` at each width, and what was measured.

    Returns
    -------
    (list of str, dict)
        The problems; and counts: tables, tables wider than the column (scrolling in their box), Paper-vs-book
        chapters and ledger tables measured.
    """
    problems: list[str] = []
    stats: Counter = Counter()
    chapters: set[str] = set()
    for width in widths:
        page = browser.new_page(viewport={"width": width, "height": 900})
        for path in _articles(html):
            page.goto(path.as_uri(), wait_until="load")
            m = page.evaluate(_TABLES)
            if m is None:
                continue
            rel = path.relative_to(html)
            for t in m["tables"]:
                stats[f"tables at {width}"] += 1
                if t["kind"] == "paper-vs-book":
                    chapters.add(path.stem)
                stats[f"{t['kind']} tables at {width}"] += 1
                wide = t["right"] > m["right"] + 1
                stats[f"wider than the column at {width}"] += wide
                if wide and t["kind"] != "data":
                    problems.append(
                        f"{rel} at {width} px: a {t['kind']} table is {t['width']} px wide in a {m['column']} px column"
                    )
                if t["boxRight"] > m["right"] + 1:
                    problems.append(f"{rel} at {width} px: a {t['width']} px table widens the page (no box of its own)")
                if t["cut"]:
                    problems.append(f"{rel}: cells cut short: {t['cut']}")
                if t["nan"]:
                    problems.append(f"{rel}: {t['nan']} cell(s) print NaN/None for a value that does not apply")
        page.close()
    stats["paper-vs-book chapters"] = len(chapters)
    if len(chapters) < MIN_CHAPTERS:
        problems.append(f"only {len(chapters)} chapters have a Paper-vs-book table to measure (want {MIN_CHAPTERS})")
    if not stats[f"ledger tables at {widths[0]}"]:
        problems.append("the ledger page (label ch-ledger) has no table to measure")
    return sorted(set(problems)), dict(stats)


def figure_problems(browser, html: Path) -> list[str]:
    """Every figure of a chapter is captioned (a figure with a caption around its image) and shown once."""
    problems = []
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    for path in _articles(html):
        page.goto(path.as_uri(), wait_until="load")
        images = page.evaluate(_FIGURES) or []
        rel = path.relative_to(html)
        for src, n in Counter(i["src"] for i in images).items():
            if n > 1:
                problems.append(f"{rel}: the image {src} is shown {n} times")
        problems += [f"{rel}: an image without a caption: {i['src']}" for i in images if not i["caption"]]
    page.close()
    return problems


def code_problems(browser, html: Path, width: int = 1280) -> tuple[list[str], dict]:
    """The code cells whose lines of at most LINE_LENGTH characters do not fit their box at ``width`` px.

    The chapters' code is formatted to LINE_LENGTH columns (``blindspot.book.notebook_format``); the book's
    stylesheet sizes the code so that such a line shows whole, in a folded cell and a solution too.
    """
    problems, stats = [], Counter()
    page = browser.new_page(viewport={"width": width, "height": 900})
    for path in _articles(html):
        page.goto(path.as_uri(), wait_until="load")
        rel = path.relative_to(html)
        for c in page.evaluate(_CODE, LINE_LENGTH) or []:
            stats["code cells"] += 1
            stats["scroll sideways"] += c["scrolls"]
            if c["full"] > c["inner"] + 1:
                problems.append(f"{rel}: {LINE_LENGTH} characters of code take {c['full']} px in a {c['inner']} px box")
            elif c["scrolls"] and c["longest"] <= LINE_LENGTH:
                problems.append(f"{rel}: a code cell of lines up to {c['longest']} characters scrolls sideways")
    page.close()
    return sorted(set(problems)), dict(stats)


def _parts(toc: Path) -> dict[str, str]:
    """{chapter stem: caption of its part}, read from the toc here (not through the code under test)."""
    out = {}
    for part in yaml.safe_load(toc.read_text())["parts"]:
        for ch in part.get("chapters", []):
            out[Path(ch["file"]).stem] = part["caption"]
    return out


def landing_problems(browser, html: Path, ledger_file: Path, toc: Path) -> list[str]:
    """The landing page's totals are the ledger's, part by part and status by status; 8 to 12 headline
    findings follow, each with a status and a link to a chapter page that exists."""
    rows = json.loads(ledger_file.read_text())
    parts = _parts(toc)
    want: Counter = Counter()
    for r in rows:
        slug = re.sub(r"[^a-z0-9]+", "-", r["status"]).strip("-")
        for part in (parts.get(r["chapter"], "Other chapters"), "All parts"):
            want[(part, slug)] += 1
            want[(part, "all")] += 1
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    root = yaml.safe_load(toc.read_text())["root"]
    page.goto((html / f"{root}.html").as_uri(), wait_until="load")
    shown = {(c["part"], c["status"]): c["n"] for c in page.evaluate(_TOTALS)}
    headlines = page.evaluate(_HEADLINES)
    text = page.evaluate("() => document.querySelector('article').innerText")
    page.close()
    problems = []
    if not shown:
        problems.append("the landing page has no totals table (table.bs-totals)")
    for key in sorted(set(want) | set(shown)):
        if shown.get(key, 0) != want.get(key, 0):
            problems.append(
                f"landing page: {key[0]}, {key[1]}: shows {shown.get(key)}, the ledger has {want.get(key, 0)}"
            )
    if f"checks {len(rows)} claims" not in text:
        problems.append(f"the landing page does not say that the book checks {len(rows)} claims")
    if not 8 <= len(headlines) <= 12:
        problems.append(f"the landing page lists {len(headlines)} headline findings, not 8 to 12")
    statuses = {r["status"] for r in rows}
    for h in headlines:
        if h["status"] not in statuses:
            problems.append(f"a headline finding without a status of the ledger: {h}")
        targets = [Path(unquote(urlparse(u).path)) for u in h["links"] if urlparse(u).scheme == "file"]
        if not any(t.is_file() and ("chapters" in t.parts or "editions" in t.parts) for t in targets):
            problems.append(f"a headline finding without a link to its chapter: {h}")
    return problems


def test_every_page_renders_offline(quick_book):
    html = quick_book.html
    pages = _pages(html)
    assert len(pages) > 30
    problems: list[str] = []
    counts = {"pages": 0, "formulas": 0, "links": 0}
    ids: dict[Path, set[str]] = {}
    with _browser() as browser:
        page = browser.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append(f"failed to load {r.url}"))
        for path in pages:
            errors.clear()
            rel = path.relative_to(html)
            redirect = _redirect(path)
            if redirect:  # the root index.html only forwards to the first page
                if not (path.parent / redirect).is_file():
                    problems.append(f"{rel}: redirects to a missing page {redirect}")
                continue
            page.goto(path.as_uri(), wait_until="load")
            n_math = page.evaluate(_TYPESET)
            counts["pages"] += 1
            counts["formulas"] += max(n_math, 0)
            problems += [f"{rel}: console: {e}" for e in errors]
            problems += [f"{rel}: image does not load: {src}" for src in page.evaluate(_BROKEN_IMAGES)]
            text = page.evaluate(_TEXT_WITHOUT_CODE)
            for m in _RAW_TEX.finditer(text):
                problems.append(f"{rel}: raw TeX in the text: ...{text[max(0, m.start() - 40) : m.end() + 40]!r}")
            for href in page.evaluate(_LINKS):
                url = urlparse(href)
                if url.scheme != "file":
                    continue
                counts["links"] += 1
                target = Path(unquote(url.path))
                if target.is_dir():
                    target = target / "index.html"
                if not target.is_file():
                    problems.append(f"{rel}: link to a missing file: {href}")
                elif url.fragment and target.suffix == ".html" and unquote(url.fragment) not in _ids(target, ids):
                    problems.append(f"{rel}: link to a missing anchor: {href}")
    print(f"browser check: {counts['pages']} pages, {counts['formulas']} formulas typeset, {counts['links']} links")
    assert counts["formulas"] > 100
    assert not problems, "\n".join(problems[:40]) + (
        f"\n... and {len(problems) - 40} more" if len(problems) > 40 else ""
    )


def test_tables_fit_the_text_column(quick_book):
    """Paper-vs-book tables (every chapter that has one, at least five) and the ledger's tables are no wider than
    the text column at 1280 and 390 px; a wider data table scrolls in its own box; no cell is cut or NaN."""
    with _browser() as browser:
        problems, stats = table_problems(browser, quick_book.html)
    print(f"tables: {stats}")
    assert not problems, "\n".join(problems[:40]) + (
        f"\n... and {len(problems) - 40} more" if len(problems) > 40 else ""
    )


def test_every_figure_is_captioned_and_shown_once(quick_book):
    with _browser() as browser:
        problems = figure_problems(browser, quick_book.html)
    assert not problems, "\n".join(problems[:40])


def test_the_landing_page_counts_are_the_ledgers(quick_book):
    ed = quick_book.edition
    with _browser() as browser:
        problems = landing_problems(browser, quick_book.html, ed.ledger_file, ed.out / "_toc.yml")
    assert not problems, "\n".join(problems[:40])


def test_a_line_of_formatted_code_fits_its_box(quick_book):
    """At 1280 px a code line of LINE_LENGTH characters shows whole: the code is not cut or scrolled sideways."""
    with _browser() as browser:
        problems, stats = code_problems(browser, quick_book.html)
    print(f"code: {stats}")
    assert stats.get("code cells", 0) > 100
    assert not problems, "\n".join(problems[:40])
