"""Every page of the (quick) book as a reader gets it: opened from disk in headless Chromium, no network.

A page fails on a console error, a resource or image that does not load, TeX left unrendered in its
text (MathJax is served from the book itself), or an internal link whose file or anchor is missing.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

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


def _ids(path: Path, cache: dict[Path, set[str]]) -> set[str]:
    if path not in cache:
        cache[path] = set(re.findall(r'\bid="([^"]+)"', path.read_text(errors="replace")))
    return cache[path]


def test_every_page_renders_offline(quick_book):
    exe = find_chromium()
    if exe is None:
        pytest.skip("Chromium is not installed (apt-get install chromium; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    html = quick_book.html
    pages = sorted(p for p in html.rglob("*.html") if "_static" not in p.parts and p.name not in ("genindex.html", "search.html"))
    assert len(pages) > 30
    problems: list[str] = []
    counts = {"pages": 0, "formulas": 0, "links": 0}
    ids: dict[Path, set[str]] = {}
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, args=list(CHROMIUM_FLAGS[1:]))
        page = browser.new_page()
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append(f"failed to load {r.url}"))
        for path in pages:
            errors.clear()
            rel = path.relative_to(html)
            redirect = re.search(r'http-equiv="refresh" content="0; url=([^"]+)"', path.read_text(), flags=re.I)
            if redirect:  # the root index.html only forwards to the first page
                if not (path.parent / redirect.group(1)).is_file():
                    problems.append(f"{rel}: redirects to a missing page {redirect.group(1)}")
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
        browser.close()
    print(f"browser check: {counts['pages']} pages, {counts['formulas']} formulas typeset, {counts['links']} links")
    assert counts["formulas"] > 100
    assert not problems, "\n".join(problems[:40]) + (f"\n... and {len(problems) - 40} more" if len(problems) > 40 else "")
