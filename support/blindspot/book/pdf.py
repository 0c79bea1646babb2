"""A printable PDF of a built book: its HTML pages, in the order of the table of contents, printed by headless Chromium.

Nothing is executed or rendered again: the pages the HTML build wrote are put one after the other
into one printable page (:func:`compose`), which Chromium prints (:func:`print_pdf`). Chromium lays
out the pages with the book's print stylesheet (``static/blindspot.css``: code wraps instead of
being cut, tables keep every column, the evidence of each claim is shown) and the page rules
written here: the paper size (A4 or US letter), the page number and the page count at the foot of
every page, and the running title of the chapter at its head (each chapter is a named page with
its own title; a chapter starts on a new page). MathJax is served from the book itself, so the
formulas are typeset before printing (Chromium waits on a virtual time budget).

jupyter-book's own ``pdfhtml`` builder downloads a browser (pyppeteer), which this project cannot
rely on; Debian's ``chromium`` package prints the same page.
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from blindspot.book.chapters import NotebookError, toc_entries

__all__ = ["find_chromium", "print_pdf", "compose", "page_rules", "toc_pages", "CHROMIUM_FLAGS", "PAPERS"]

#: Flags for a headless Chromium on a machine without a display or network.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
#: Paper sizes, as CSS ``@page { size: ... }`` names them.
PAPERS = {"a4": "A4", "letter": "letter"}

_ARTICLE = re.compile(r'<article class="bd-article"[^>]*>(.*?)</article>', re.S)
_URL_ATTR = re.compile(r'(\b(?:src|href)=")([^"]*)(")')
_H1 = re.compile(r"<h1[^>]*>(.*?)</h1>", re.S)


def find_chromium() -> str | None:
    """The Chromium executable on PATH (``chromium``, ``chromium-browser``, ``google-chrome``), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    return None


def toc_pages(toc: Path) -> list[str]:
    """The documents of a jupyter-book table of contents in reading order (the root first), without suffix."""
    doc = yaml.safe_load(Path(toc).read_text()) or {}
    names = [str(doc.get("root", ""))]
    names += [
        e["file"].removesuffix(".ipynb").removesuffix(".md") for e in toc_entries(doc) if isinstance(e.get("file"), str)
    ]
    return [n for n in dict.fromkeys(names) if n]


def _rebase(fragment: str, page_dir: Path, out_dir: Path) -> str:
    """Relative ``src``/``href`` URLs of a page in ``page_dir``, rewritten for a file in ``out_dir``."""

    def fix(m: re.Match) -> str:
        url = m.group(2)
        parts = urlsplit(url)
        if not url or parts.scheme or parts.netloc or url.startswith(("#", "/")):
            return m.group(0)
        target = os.path.normpath(page_dir / parts.path) if parts.path else None
        if target is None:
            return m.group(0)
        new = Path(os.path.relpath(target, out_dir)).as_posix()
        if parts.query:
            new += "?" + parts.query
        if parts.fragment:
            new += "#" + parts.fragment
        return m.group(1) + html.escape(new, quote=True) + m.group(3)

    return _URL_ATTR.sub(fix, fragment)


def _title(article: str) -> str:
    m = _H1.search(article)
    if not m:
        return ""
    text = re.sub(r"<a class=\"headerlink\".*?</a>", "", m.group(1), flags=re.S)
    text = re.sub(r"<[^>]+>", "", text)
    return " ".join(html.unescape(text).split())


def _css_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


def page_rules(titles: list[str], paper: str = "a4") -> str:
    """The print page rules: paper size and margins, "page / pages" at the foot of every page, and for page
    ``i`` of the book the named page ``bs-p<i>`` whose head carries its title (the running chapter title).

    Raises
    ------
    ValueError
        On a paper size other than those of :data:`PAPERS`.
    """
    if paper not in PAPERS:
        raise ValueError(f"paper size {paper!r} is not one of {sorted(PAPERS)}")
    rules = [
        f"@page {{ size: {PAPERS[paper]}; margin: 18mm 16mm 18mm 16mm;"
        ' @bottom-center { content: counter(page) " / " counter(pages); font: 8.5pt sans-serif; color: #444; } }'
    ]
    for i, title in enumerate(titles):
        if title:
            rules.append(
                f"@page bs-p{i} {{ @top-center {{ content: {_css_string(title)}; font: 8.5pt sans-serif; color: #444;"
                " width: 100%; } }"
            )
    return "\n".join(rules)


def compose(html_dir: Path, toc: Path, out: Path, paper: str = "a4") -> Path:
    """Write one printable HTML page at ``out`` holding every built page of ``html_dir``, in the order of ``toc``.

    Each page's article (its text, without the theme's sidebars) becomes a section on named page
    ``bs-p<i>`` (:func:`page_rules`); its relative links and images are rewritten for ``out``'s folder; the
    claims' folded evidence is opened. The head (stylesheets, MathJax) is the first page's. An ``out``
    that already holds the same page is left as it is.

    Parameters
    ----------
    html_dir : path
        A built edition's HTML folder (``_build/html``).
    toc : path
        The edition's table of contents (the order of the pages).
    out : path
        The page to write (outside ``html_dir``, e.g. ``_build/pdf/book-a4.html``).
    paper : {'a4', 'letter'}

    Returns
    -------
    Path
        ``out``.

    Raises
    ------
    NotebookError
        When a page of the toc was not built (build the book first).
    """
    out.parent.mkdir(parents=True, exist_ok=True)
    head = ""
    sections, titles = [], []
    for i, name in enumerate(toc_pages(toc)):
        page = html_dir / f"{name}.html"
        if not page.is_file():
            raise NotebookError(f"{page} is missing: build the book first (blindspot book), then print it")
        text = page.read_text()
        m = _ARTICLE.search(text)
        if m is None:
            raise NotebookError(f"{page} has no article: it is not a page of the book's HTML build")
        if not head:
            start, end = text.index("<head>"), text.index("</head>")
            head = _rebase(text[start + len("<head>") : end], page.parent, out.parent)
        article = _rebase(m.group(1), page.parent, out.parent)
        article = article.replace('<details class="bs-', '<details open class="bs-')
        titles.append(_title(article))
        sections.append(f'<section class="bs-print-page" style="page: bs-p{i}">{article}</section>')
    style = f"<style>\n{page_rules(titles, paper)}\n</style>"
    body = "\n".join(sections)
    text = (
        f'<!DOCTYPE html>\n<html lang="en" data-theme="light" data-mode="light"><head>{head}{style}</head>\n'
        f'<body class="bs-print"><div class="bd-main"><div class="bd-content"><div class="bd-article-container">'
        f'<article class="bd-article">{body}</article></div></div></div></body></html>\n'
    )
    if not out.is_file() or out.read_text() != text:  # an unchanged page keeps its time (the PDF is up to date)
        out.write_text(text)
    return out


def print_pdf(page: Path, pdf: Path, budget_ms: int = 60000) -> Path:
    """Print the HTML file ``page`` to ``pdf`` with headless Chromium; return ``pdf``.

    The page's own CSS decides the paper size, margins, headers and footers (:func:`page_rules`).

    Raises
    ------
    NotebookError
        When Chromium is missing (one line saying how to install it) or fails.
    """
    exe = find_chromium()
    if exe is None:
        raise NotebookError(
            "the PDF needs Chromium, which is not installed: on Debian/Ubuntu `apt-get install chromium`"
        )
    pdf.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            exe,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--virtual-time-budget={budget_ms}",
            "--no-pdf-header-footer",
            "--generate-pdf-document-outline",
            f"--print-to-pdf={pdf}",
            page.resolve().as_uri(),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1200)
    if proc.returncode != 0 or not pdf.is_file() or pdf.stat().st_size == 0:
        raise NotebookError(f"Chromium could not print {page}: {proc.stderr.strip()[-2000:]}")
    return pdf
