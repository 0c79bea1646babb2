"""What the ledger chapter shows: counts, a figure of statuses by chapter, and the claims grouped by status.

Chapters are named by their titles and linked to the section where each claim is computed.
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
           "claims_html", "plain"]

COLUMNS = ["chapter", "id", "kind", "quantity", "where", "dataset", "paper", "book", "tol", "status", "evidence",
           "reading", "section"]
#: The order in which statuses are shown: what a reader most needs to know first.
STATUS_ORDER = (FAILS, FAILS_ON_YOURS, DIFFERS, NOT_HERE, NOT_APPLICABLE, HOLDS, REPRODUCED)
STATUS_COLOURS = {
    REPRODUCED: PALETTE[2],
    HOLDS: PALETTE[2],
    DIFFERS: PALETTE[1],
    FAILS: PALETTE[3],
    FAILS_ON_YOURS: PALETTE[3],
    NOT_HERE: "#bbbbbb",
    NOT_APPLICABLE: "#dddddd",
}


def load_ledger(path: str | Path) -> pd.DataFrame:
    """The gathered ledger as a table (empty with the right columns when there is no file)."""
    p = Path(path)
    rows = json.loads(p.read_text()) if p.is_file() else []
    return pd.DataFrame(rows, columns=COLUMNS)


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
