"""What the ledger chapter shows: counts, a figure of statuses by chapter, and the claims grouped by status.

Chapters are named by their titles and linked to the section where each claim is computed. On a
reader's own leaderboard the page opens with a summary computed from the ledger
(:func:`reader_summary`) and lists apart the claims that are not about the reader's data
(:func:`reader_groups`).
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from blindspot.book.chapters import chapter_title, read_chapter, toc_chapters
from blindspot.book.ledger import (
    ABOUT_PAPER,
    ANY_DATA,
    DIFFERS,
    FAILS,
    FAILS_ON_YOURS,
    HOLDS,
    NOT_APPLICABLE,
    NOT_HERE,
    REPRODUCED,
)
from blindspot.core.theme import PALETTE

__all__ = ["COLUMNS", "STATUS_ORDER", "STATUS_COLOURS", "load_ledger", "chapter_titles", "status_figure",
           "claims_html", "plain", "reader_summary", "reader_groups", "HEADLINES"]

COLUMNS = ["chapter", "id", "kind", "quantity", "where", "dataset", "paper", "book", "tol", "status", "evidence",
           "reading", "section", "about"]
#: The order in which statuses are shown: what a reader most needs to know first.
STATUS_ORDER = (FAILS, FAILS_ON_YOURS, DIFFERS, NOT_HERE, NOT_APPLICABLE, ABOUT_PAPER, HOLDS, REPRODUCED)
#: The rows the summary on a reader's leaderboard quotes (general ids, see blindspot.book.claims.general_id):
#: the first present of each list.
HEADLINES = {
    "d_eff": (("T1.deff.frontier", "T1.ci_lo.frontier", "T1.ci_hi.frontier"),
              ("T1.deff.full", "T1.ci_lo.full", "T1.ci_hi.full")),
    "top1": (("H21.top1",),),
    "coverage": (("T4.r90.ext_frontier",), ("T4.r90.full",)),
}
STATUS_COLOURS = {
    REPRODUCED: PALETTE[2],
    HOLDS: PALETTE[2],
    DIFFERS: PALETTE[1],
    FAILS: PALETTE[3],
    FAILS_ON_YOURS: PALETTE[3],
    NOT_HERE: "#bbbbbb",
    NOT_APPLICABLE: "#dddddd",
    ABOUT_PAPER: "#eeeeee",
}


def load_ledger(path: str | Path) -> pd.DataFrame:
    """The gathered ledger as a table (empty with the right columns when there is no file)."""
    p = Path(path)
    rows = json.loads(p.read_text()) if p.is_file() else []
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["about"] = frame["about"].fillna("data")
    return frame


def plain(title: str) -> str:
    """A title without TeX: ``$\\deff$`` becomes ``d_eff``, other math loses its markup (for labels and tables)."""

    def untex(m: re.Match) -> str:
        s = m.group(1).replace("\\deff", "d_eff")
        s = re.sub(r"\\([A-Za-z]+)", r"\1", s)
        return s.replace("{", "").replace("}", "")

    return re.sub(r"\$([^$]*)\$", untex, title)


def chapter_titles(root: str | Path = ".") -> dict[str, str]:
    """{stem: plain-text title} of every chapter in the toc, in toc order."""
    root = Path(root)
    return {s: plain(chapter_title(read_chapter(root / "notebooks" / f"{s}.md"))) or s for s in toc_chapters(root)}


def status_figure(ledger: pd.DataFrame, titles: dict[str, str]) -> plt.Figure:
    """Horizontal stacked bars: for each chapter (in reading order), its claims by status."""
    order = [s for s in titles if s in set(ledger["chapter"])]
    counts = ledger.pivot_table(index="chapter", columns="status", values="id", aggfunc="count", fill_value=0)
    counts = counts.reindex(order).fillna(0)
    statuses = [s for s in STATUS_ORDER[::-1] if s in counts.columns]
    fig, ax = plt.subplots(figsize=(8.0, 0.32 * len(order) + 1.4))
    left = pd.Series(0.0, index=counts.index)
    for s in statuses:
        ax.barh(range(len(order)), counts[s], left=left, color=STATUS_COLOURS[s], label=s, edgecolor="white")
        left += counts[s]
    ax.set_yticks(range(len(order)), [_short(titles[c]) for c in order], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("claims")
    ax.legend(loc="lower right", fontsize=8, frameon=False)
    fig.tight_layout()
    return fig


def _short(title: str, n: int = 60) -> str:
    return title if len(title) <= n else title[: n - 1] + "…"


def _fmt(v: object) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return ""
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def claims_html(rows: pd.DataFrame, titles: dict[str, str]) -> str:
    """An HTML table of claims: the chapter's title linking to the claim's section, then the claim."""
    head = ["chapter", "claim", "where", "data", "paper", "book", "evidence"]
    out = ['<table class="ledger-table">', "<thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead>",
           "<tbody>"]
    for r in rows.itertuples(index=False):
        title = html.escape(titles.get(r.chapter, r.chapter))
        link = f'<a href="{html.escape(r.chapter)}.html#{html.escape(r.section or "")}">{title}</a>'
        claim = f"<code>{html.escape(r.id)}</code><br>{html.escape(r.quantity)}"
        evidence = html.escape(r.evidence or "")
        if r.reading:
            evidence += f"<br><em>Reading:</em> {html.escape(r.reading)}"
        cells = [link, claim, html.escape(r.where or ""), html.escape(r.dataset or ""), html.escape(_fmt(r.paper)),
                 html.escape(_fmt(r.book)), evidence]
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _link(r, titles: dict[str, str], text: str | None = None) -> str:
    title = html.escape(text or titles.get(r.chapter, r.chapter))
    return f'<a href="{html.escape(r.chapter)}.html#{html.escape(r.section or "")}">{title}</a>'


def _first(ledger: pd.DataFrame, choices: tuple[tuple[str, ...], ...]) -> list | None:
    """The rows of the first tuple of ids whose first id has a computed value in the ledger."""
    by_id = {r.id: r for r in ledger.itertuples(index=False)}
    for ids in choices:
        head = by_id.get(ids[0])
        if head is not None and isinstance(head.book, (int, float)) and not pd.isna(head.book):
            return [by_id.get(i) for i in ids]
    return None


def reader_summary(ledger: pd.DataFrame, titles: dict[str, str], resolved: float) -> str:
    """The opening of the closing page on a reader's leaderboard, in plain words, from the ledger alone (HTML).

    Which of the paper's general findings hold and which fail there (the statements about a leaderboard
    that were judged on it), then the numbers that matter most, each from its ledger row and linked to
    its chapter: d_eff of the frontier with its bootstrap interval (:data:`HEADLINES`); whether the #1 is
    resolved, read from how often the two halves of the benchmarks disagree on it (resolved when they
    agree in at least a share ``resolved`` of the splits); and how many benchmarks greedy needs for the
    coverage target.

    Parameters
    ----------
    ledger : DataFrame
        The gathered ledger of the your-data edition (:func:`load_ledger`).
    titles : dict
        {stem: title} (:func:`chapter_titles`).
    resolved : float
        The share of splits on which the halves must agree for the #1 to read as resolved (the report's
        threshold, ``blindspot.report.advice.RESOLVED``).
    """
    judged = ledger[(ledger["about"] == "data") & ledger["status"].isin([HOLDS, FAILS_ON_YOURS])]
    judged = judged[judged["kind"] == "statement"]
    held, failed = judged[judged["status"] == HOLDS], judged[judged["status"] == FAILS_ON_YOURS]
    out = ['<div class="reader-summary">']
    lists: list[str] = []  # the findings that hold and fail, shown after the numbers, folded
    if len(judged):
        out.append(f"<p>Of the paper's general findings that this book can check on a leaderboard, "
                   f"{len(judged)} were judged on yours: <strong>{len(held)} hold</strong> and "
                   f"<strong>{len(failed)} fail</strong>.</p>")
        for label, rows in (("hold on your leaderboard", held), ("fail on your leaderboard", failed)):
            if len(rows):
                items = "".join(f"<li>{html.escape(r.quantity)} ({_link(r, titles)})</li>"
                                for r in rows.itertuples(index=False))
                lists.append(f"<details><summary>The {len(rows)} that {label}</summary><ul>{items}</ul></details>")
    else:
        out.append("<p>None of the paper's general findings could be judged on your leaderboard.</p>")
    numbers = []
    d = _first(ledger, HEADLINES["d_eff"])
    if d is not None:
        r, lo, hi = d
        who = "your frontier" if r.id.endswith("frontier") else "all your models"
        band = (f", bootstrap interval {_fmt(lo.book)} to {_fmt(hi.book)}"
                if lo is not None and hi is not None and lo.book is not None and hi.book is not None else "")
        numbers.append(f"<li><strong>How many directions your benchmarks measure:</strong> about {r.book:.1f} on "
                       f"{who} (d_eff = {_fmt(r.book)}{band}; {html.escape(r.dataset or 'your data')}; "
                       f"{_link(r, titles)}).</li>")
    t = _first(ledger, HEADLINES["top1"])
    if t is not None:
        r = t[0]
        agree = 1.0 - float(r.book)
        verdict = "is resolved" if agree >= resolved else "is not resolved"
        numbers.append(f"<li><strong>Is your #1 resolved?</strong> Split your benchmarks at random into two halves: "
                       f"the halves agree on the #1 in {agree:.0%} of the splits, so by that test your #1 {verdict} "
                       f"(it needs {resolved:.0%}; {_link(r, titles)}).</li>")
    c = _first(ledger, HEADLINES["coverage"])
    if c is not None:
        r = c[0]
        numbers.append(f"<li><strong>How many benchmarks keep the coverage:</strong> {html.escape(r.quantity)}: "
                       f"{_fmt(r.book)} ({_link(r, titles)}).</li>")
    if numbers:
        out.append("<p>The numbers that matter most for your leaderboard:</p><ul>" + "".join(numbers) + "</ul>")
    out.extend(lists)
    n_paper = int((ledger["about"] == "paper").sum())
    if n_paper:
        verb = "is" if n_paper == 1 else "are"
        out.append(f"<p>{n_paper} of the paper's statements {verb} about its own text, tables or citations, listed apart "
                   "below and not judged on your data.</p>")
    out.append("</div>")
    return "\n".join(out)


def reader_groups(ledger: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The claims of a your-data ledger in the order the page lists them: those about your data by status,
    then those about the paper (not judged here), then those that are the same on any data."""
    groups = []
    mine = ledger[ledger["about"] == "data"]
    for status in STATUS_ORDER:
        rows = mine[mine["status"] == status]
        if len(rows):
            groups.append((f"On your leaderboard: {status}", rows))
    paper = ledger[ledger["about"] == "paper"]
    if len(paper):
        groups.append(("About the paper, not judged here", paper))
    anywhere = ledger[ledger["about"] == ANY_DATA]
    if len(anywhere):
        groups.append(("The same on any leaderboard (mathematics and simulations; status as in the paper's book)",
                       anywhere))
    return groups
