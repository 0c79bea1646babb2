"""The gathered ledger as one result for its page: its counts by name, its figure, its table and its reader summary.

:func:`ledger_overview` reads the build's ``ledger.json`` (:func:`~blindspot.book.ledger_page.load_ledger`), the
chapters' titles and the parts of the table of contents once, and returns a :class:`LedgerOverview` whose
:meth:`~LedgerOverview.quantities` the page glues in one call (``glue_result``) and whose methods give the
status figure, the HTML of every claim and, on a reader's own leaderboard, the summary the page opens with
(each a function of :mod:`blindspot.book.ledger_page`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from blindspot.book import ledger_page as lp
from blindspot.book.landing_page import toc_parts
from blindspot.book.ledger import edition_words

__all__ = ["LedgerOverview", "ledger_overview"]


@dataclass(frozen=True)
class LedgerOverview:
    """Every chapter's claims, with the book's chapter titles and parts.

    Attributes
    ----------
    ledger : DataFrame
        One row per claim (:data:`blindspot.book.ledger_page.COLUMNS`).
    titles : dict of str to str
        {chapter stem: plain-text title}, in toc order.
    parts : dict of str to str
        {chapter stem: caption of its part}.
    """

    ledger: pd.DataFrame
    titles: dict[str, str]
    parts: dict[str, str]

    @property
    def yours(self) -> bool:
        """Whether the ledger is the your-data edition's (:func:`~blindspot.book.ledger_page.is_your_data`)."""
        return lp.is_your_data(self.ledger)

    def quantities(self) -> dict[str, int | str]:
        """``n_claims``, ``n_chapters``; ``summary``, the claims counted by status in the page's order ("12
        reproduced, 3 differs, ..."; "no claims" for an empty ledger); ``edition``, whose data the edition ran
        on (:func:`~blindspot.book.ledger.edition_words`)."""
        counts = lp.status_counts(self.ledger)
        summary = ", ".join(f"{n} {s}" for s, n in counts.items())
        return {
            "n_claims": len(self.ledger),
            "n_chapters": int(self.ledger["chapter"].nunique()),
            "summary": summary or "no claims",
            "edition": edition_words(self.yours),
        }

    def reader_summary(self, resolved: float) -> str:
        """On a reader's own leaderboard, the HTML summary the page opens with; empty on the paper's data
        (:func:`~blindspot.book.ledger_page.reader_summary`, ``resolved`` the share for "#1 is resolved")."""
        return lp.reader_summary(self.ledger, self.titles, resolved=resolved) if self.yours else ""

    def status_figure(self) -> plt.Figure:
        """Claims of each part by status (:func:`~blindspot.book.ledger_page.status_figure`)."""
        return lp.status_figure(self.ledger, self.parts)

    def html(self) -> str:
        """Every claim, by part and chapter (:func:`~blindspot.book.ledger_page.ledger_html`)."""
        return lp.ledger_html(self.ledger, self.titles, self.parts)


def ledger_overview(ledger_file: str | os.PathLike, root: str | os.PathLike = ".") -> LedgerOverview:
    """The ledger of ``ledger_file`` (empty when there is none) with the chapter titles and parts of the book
    at ``root`` (its ``notebooks/`` and ``_toc.yml``)."""
    return LedgerOverview(lp.load_ledger(ledger_file), lp.chapter_titles(root), toc_parts(Path(root) / "_toc.yml"))
