"""What the ledger chapter shows: counts, a figure of statuses by chapter, and every claim by part and chapter.

The claims sit in collapsible sections, one per part of the book and inside it one per chapter, each
with its counts by status; a row of check boxes filters them by status (``static/blindspot.js``; it
works offline), and the whole ledger is offered as CSV and JSON (:func:`downloads`). Each claim id
links to the section of its chapter where it is computed. On a reader's own leaderboard the page
opens with a summary computed from the ledger (:func:`reader_summary`).
"""

from __future__ import annotations

import html
import json
import os
import re
import textwrap
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import MaxNLocator

from blindspot.book.chapters import chapter_title, read_chapter, toc_chapters
from blindspot.book.claim_tables import claims_table, status_badge, status_slug
from blindspot.book.ledger import (
    ABOUT_PAPER,
    DIFFERS,
    FAILS,
    FAILS_ON_YOURS,
    HOLDS,
    NOT_APPLICABLE,
    NOT_HERE,
    NOT_RESOLVED,
    REPRODUCED,
    ROW_FIELDS,
    YOUR_STATUSES,
)
from blindspot.core.theme import PALETTE, format_number

__all__ = [
    "COLUMNS",
    "STATUS_ORDER",
    "STATUS_COLOURS",
    "load_ledger",
    "chapter_titles",
    "status_figure",
    "status_counts",
    "ledger_html",
    "downloads",
    "is_your_data",
    "plain",
    "reader_summary",
    "HEADLINES",
]

COLUMNS = list(ROW_FIELDS)
#: The order in which statuses are shown: what a reader most needs to know first.
STATUS_ORDER = (FAILS, FAILS_ON_YOURS, DIFFERS, NOT_RESOLVED, NOT_HERE, NOT_APPLICABLE, ABOUT_PAPER, HOLDS, REPRODUCED)
#: The rows the summary on a reader's leaderboard quotes (general ids, see blindspot.book.claims.general_id):
#: the first present of each list.
HEADLINES = {
    "d_eff": (
        ("T1.deff.frontier", "T1.ci_lo.frontier", "T1.ci_hi.frontier"),
        ("T1.deff.full", "T1.ci_lo.full", "T1.ci_hi.full"),
    ),
    "top1": (("H21.top1",),),
    "coverage": (("T4.r90.ext_frontier",), ("T4.r90.full",)),
}
STATUS_COLOURS = {
    REPRODUCED: PALETTE[2],
    HOLDS: PALETTE[2],
    DIFFERS: PALETTE[1],
    FAILS: PALETTE[3],
    FAILS_ON_YOURS: PALETTE[3],
    NOT_RESOLVED: "#8c96d8",
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
    frame["basis"] = frame["basis"].astype(object).fillna("exact")
    for col in ("test", "robustness"):
        frame[col] = frame[col].astype(object).fillna("")
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


def status_figure(ledger: pd.DataFrame, parts: dict[str, str]) -> plt.Figure:
    """Horizontal stacked bars: for each part of the book (in reading order), its claims by status.

    Parameters
    ----------
    ledger : DataFrame
        The gathered ledger.
    parts : dict
        {stem: the caption of its part} (:func:`blindspot.book.landing_page.toc_parts`); a chapter not in it
        counts under "Other chapters".
    """
    where = ledger["chapter"].map(lambda s: parts.get(s, "Other chapters"))
    order = [p for p in dict.fromkeys([*parts.values(), "Other chapters"]) if (where == p).any()]
    counts = pd.crosstab(where, ledger["status"]).reindex(order).fillna(0)
    statuses = [s for s in STATUS_ORDER if s in counts.columns]
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * len(order) + 1.6))
    left = pd.Series(0.0, index=counts.index)
    for s in statuses:
        ax.barh(range(len(order)), counts[s], left=left, color=STATUS_COLOURS[s], label=s, edgecolor="white")
        left += counts[s]
    ax.set_yticks(range(len(order)), [textwrap.fill(p, 22) for p in order])
    ax.set_ylim(len(order) - 0.5, -0.5)
    ax.set_xlabel("claims")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(axis="y", visible=False)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize="small", frameon=False)
    fig.tight_layout()
    return fig


def status_counts(rows: pd.DataFrame) -> dict[str, int]:
    """{status: number of claims} in the order :data:`STATUS_ORDER` shows them (statuses with none left out)."""
    counts = rows["status"].value_counts()
    return {s: int(counts[s]) for s in STATUS_ORDER if s in counts.index}


def is_your_data(ledger: pd.DataFrame) -> bool:
    """Whether the ledger is the your-data edition's (some claim has a status only a reader's data gives)."""
    return bool(ledger["status"].isin(YOUR_STATUSES).any())


def _counts_html(counts: dict[str, int]) -> str:
    return " ".join(f'<span class="bs-count">{n} {status_badge(s)}</span>' for s, n in counts.items())


def _claim_link(row: dict) -> str:
    return f"{row['chapter']}.html#{row.get('section') or ''}"


def ledger_html(ledger: pd.DataFrame, titles: dict[str, str], parts: dict[str, str]) -> str:
    """Every claim of the ledger, by part and chapter, in collapsible sections with their counts by status,
    under a row of check boxes that filters the claims by status (HTML).

    Parameters
    ----------
    ledger : DataFrame
        The gathered ledger (:func:`load_ledger`).
    titles : dict
        {stem: title} in reading order (:func:`chapter_titles`).
    parts : dict
        {stem: the caption of its part} (:func:`toc_parts`); a chapter not in it goes under "Other chapters".

    Returns
    -------
    str
        ``div.bs-ledger``; each claim row carries its status (``data-status``) for the filter.
    """
    if not len(ledger):
        return "<p>No claims were recorded.</p>"
    yours = is_your_data(ledger)
    order = [s for s in titles if s in set(ledger["chapter"])]
    order += sorted(set(ledger["chapter"]) - set(order))
    boxes = "".join(
        f'<label><input type="checkbox" checked data-status="{status_slug(s)}"> {status_badge(s)} ({n})</label>'
        for s, n in status_counts(ledger).items()
    )
    out = [
        '<div class="bs-ledger">',
        f'<div class="bs-filter" role="group" aria-label="Show claims by status"><span>Show:</span> {boxes}</div>',
    ]
    by_part: dict[str, list[str]] = {}
    for stem in order:
        by_part.setdefault(parts.get(stem, "Other chapters"), []).append(stem)
    for part, stems in by_part.items():
        rows = ledger[ledger["chapter"].isin(stems)]
        out.append(
            f'<details class="bs-part" open><summary><span class="bs-title">{html.escape(part)}</span> '
            f'<span class="bs-counts">{len(rows)} claims: {_counts_html(status_counts(rows))}</span></summary>'
        )
        for stem in stems:
            mine = ledger[ledger["chapter"] == stem]
            title = html.escape(titles.get(stem, stem))
            out.append(
                f'<details class="bs-chapter"><summary><span class="bs-title">{title}</span> '
                f'<span class="bs-counts">{_counts_html(status_counts(mine))}</span></summary>'
                f'<p class="bs-open"><a href="{html.escape(stem)}.html">Open the chapter</a></p>'
            )
            out.append(claims_table(mine.to_dict("records"), yours=yours, claim_link=_claim_link))
            out.append("</details>")
        out.append("</details>")
    out.append("</div>")
    return "\n".join(out)


def downloads(ledger_file: str | os.PathLike, root: str | os.PathLike = ".") -> str:
    """Write the ledger as CSV beside its JSON file and return the MyST line offering both for download.

    Parameters
    ----------
    ledger_file : path
        The gathered ``ledger.json`` (the build passes it, relative to the project root).
    root : path
        The project root, where the page's links are resolved from (the working directory of a chapter).

    Returns
    -------
    str
        Markdown with ``{download}`` roles (Sphinx copies the files beside the page), or a sentence
        saying where the file is when it lies outside the project.
    """
    src = Path(ledger_file)
    ledger = load_ledger(src)
    csv = src.with_suffix(".csv")
    if src.is_file():
        ledger.to_csv(csv, index=False)
    rel = os.path.relpath(src.resolve(), Path(root).resolve())
    if rel.startswith("..") or not src.is_file():
        return f"The ledger is not in this project's folder ({src.name}): no download here."
    rel_csv = Path(rel).with_suffix(".csv").as_posix()
    return (
        f"The whole ledger: {{download}}`ledger.csv </{rel_csv}>` (a spreadsheet) and "
        f"{{download}}`ledger.json </{Path(rel).as_posix()}>` (for programs), {len(ledger)} claims."
    )


def _link(r, titles: dict[str, str], text: str | None = None) -> str:
    title = html.escape(text or titles.get(r.chapter, r.chapter))
    return f'<a href="{html.escape(r.chapter)}.html#{html.escape(r.section or "")}">{title}</a>'


_fmt = format_number


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
    judged = ledger[(ledger["about"] == "data") & ledger["status"].isin([HOLDS, FAILS_ON_YOURS, NOT_RESOLVED])]
    judged = judged[judged["kind"] == "statement"]
    held, failed = judged[judged["status"] == HOLDS], judged[judged["status"] == FAILS_ON_YOURS]
    unresolved = judged[judged["status"] == NOT_RESOLVED]
    out = ['<div class="reader-summary">']
    lists: list[str] = []  # the findings that hold and fail, shown after the numbers, folded
    if len(judged):
        open_ = f", <strong>{len(unresolved)} not resolved at 95%</strong>" if len(unresolved) else ""
        out.append(
            f"<p>Of the paper's general findings that this book can check on a leaderboard, "
            f"{len(judged)} were judged on yours: <strong>{len(held)} hold</strong>{open_} and "
            f"<strong>{len(failed)} fail</strong>.</p>"
        )
        groups = (
            ("hold on your leaderboard", held),
            ("are not resolved at 95% on your leaderboard", unresolved),
            ("fail on your leaderboard", failed),
        )
        for label, rows in groups:
            if len(rows):
                items = "".join(
                    f"<li>{html.escape(r.quantity)} ({_link(r, titles)})</li>" for r in rows.itertuples(index=False)
                )
                lists.append(f"<details><summary>The {len(rows)} that {label}</summary><ul>{items}</ul></details>")
    else:
        out.append("<p>None of the paper's general findings could be judged on your leaderboard.</p>")
    numbers = []
    d = _first(ledger, HEADLINES["d_eff"])
    if d is not None:
        r, lo, hi = d
        who = "your frontier" if r.id.endswith("frontier") else "all your models"
        band = (
            f", bootstrap interval {_fmt(lo.book)} to {_fmt(hi.book)}"
            if lo is not None and hi is not None and lo.book is not None and hi.book is not None
            else ""
        )
        numbers.append(
            f"<li><strong>How many directions your benchmarks measure:</strong> about {r.book:.1f} on "
            f"{who} (d_eff = {_fmt(r.book)}{band}; {html.escape(r.dataset or 'your data')}; "
            f"{_link(r, titles)}).</li>"
        )
    t = _first(ledger, HEADLINES["top1"])
    if t is not None:
        r = t[0]
        agree = 1.0 - float(r.book)
        verdict = "is resolved" if agree >= resolved else "is not resolved"
        numbers.append(
            f"<li><strong>Is your #1 resolved?</strong> Split your benchmarks at random into two halves: "
            f"the halves agree on the #1 in {agree:.0%} of the splits, so by that test your #1 {verdict} "
            f"(it needs {resolved:.0%}; {_link(r, titles)}).</li>"
        )
    c = _first(ledger, HEADLINES["coverage"])
    if c is not None:
        r = c[0]
        numbers.append(
            f"<li><strong>How many benchmarks keep the coverage:</strong> {html.escape(r.quantity)}: "
            f"{_fmt(r.book)} ({_link(r, titles)}).</li>"
        )
    if numbers:
        out.append("<p>The numbers that matter most for your leaderboard:</p><ul>" + "".join(numbers) + "</ul>")
    out.extend(lists)
    n_paper = int((ledger["about"] == "paper").sum())
    if n_paper:
        verb = "is" if n_paper == 1 else "are"
        out.append(
            f"<p>{n_paper} of the paper's statements {verb} about its own text, tables or citations, listed apart "
            "below and not judged on your data.</p>"
        )
    out.append("</div>")
    return "\n".join(out)
