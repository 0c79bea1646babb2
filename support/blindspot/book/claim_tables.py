"""Claims as a reader sees them: the Paper-vs-book table of a chapter and the rows of the ledger page.

A claim shows in four columns that fit the text column at any width: the claim (its id and what it
is), the paper's value, the book's value and the status as a badge with its word (never colour
alone). Where the paper gives it, the data it was computed on, the evidence and the reading of the
paper are one click away, folded under the claim. Numbers print to four significant figures and a
value that does not apply as "—" (:func:`blindspot.core.theme.format_number`). The look (widths, the
badges' colours in light and dark mode, one claim per block on a phone) is the book's stylesheet,
``blindspot/book/static/blindspot.css``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Mapping

import pandas as pd

from blindspot.core.theme import MISSING, format_number, frame_html

__all__ = ["ClaimsFrame", "CLAIM_COLUMNS", "claims_table", "status_badge", "status_slug", "value_text", "LONG_VALUE"]

#: A paper or book value longer than this (a statement's text) spans both value columns.
LONG_VALUE = 24

_DETAILS = (
    ("where", "where in the paper"),
    ("dataset", "data"),
    ("basis", "basis"),
    ("test", "test"),
    ("robustness", "robustness"),
    ("evidence", "evidence"),
    ("reading", "reading"),
)


def status_slug(status: str) -> str:
    """The status as a CSS class and a filter key: ``"claim fails"`` -> ``"claim-fails"``."""
    return re.sub(r"[^a-z0-9]+", "-", str(status).lower()).strip("-")


def status_badge(status: str) -> str:
    """The status as an HTML badge that carries its word (``span.bs-badge.bs-s-<slug>``)."""
    return f'<span class="bs-badge bs-s-{status_slug(status)}">{html.escape(str(status))}</span>'


def value_text(value: object) -> str:
    """A paper or book value as the table prints it (:func:`~blindspot.core.theme.format_number`; "" -> "—")."""
    if isinstance(value, str):
        return value.strip() or MISSING
    return format_number(value)


def _details(row: Mapping[str, object]) -> str:
    items = []
    for key, label in _DETAILS:
        text = str(row.get(key) or "").strip()
        if text:
            items.append(f"<dt>{label}</dt><dd>{html.escape(text)}</dd>")
    if not items:
        return ""
    return f'<details class="bs-more"><summary>evidence and reading</summary><dl>{"".join(items)}</dl></details>'


def _row(row: Mapping[str, object], claim_link: Callable[[Mapping[str, object]], str] | None) -> str:
    cid = html.escape(str(row["id"]))
    ident = f"<code>{cid}</code>"
    if claim_link is not None:
        ident = f'<a href="{html.escape(claim_link(row))}">{ident}</a>'
    claim = (
        f'<td class="bs-claim">{ident} <span class="bs-q">{html.escape(str(row.get("quantity") or ""))}</span>'
        f"{_details(row)}</td>"
    )
    paper, book = value_text(row.get("paper")), value_text(row.get("book"))
    if max(len(paper), len(book)) > LONG_VALUE:  # a statement's text: both value columns, on two lines
        values = (
            f'<td class="bs-text" colspan="2"><span class="bs-lbl">paper</span> {html.escape(paper)}'
            f'<br><span class="bs-lbl">book</span> {html.escape(book)}</td>'
        )
    else:
        values = (
            f'<td class="bs-num" data-label="paper">{html.escape(paper)}</td>'
            f'<td class="bs-num" data-label="book">{html.escape(book)}</td>'
        )
    status = str(row["status"])
    return (
        f'<tr data-status="{status_slug(status)}">{claim}{values}<td class="bs-status">{status_badge(status)}</td></tr>'
    )


def claims_table(
    rows: Iterable[Mapping[str, object]],
    *,
    yours: bool = False,
    claim_link: Callable[[Mapping[str, object]], str] | None = None,
) -> str:
    """An HTML table of claims: claim, paper, book, status; the evidence folded under each claim.

    Parameters
    ----------
    rows : iterable of mapping
        Ledger rows (``id``, ``quantity``, ``paper``, ``book``, ``status``; optionally ``where``,
        ``dataset``, ``evidence``, ``reading``), e.g. ``frame.reset_index().to_dict("records")``.
    yours : bool
        The book's values were computed on a reader's leaderboard: the column says "yours".
    claim_link : callable, optional
        The URL each claim id links to (the ledger page links to the chapter's section).

    Returns
    -------
    str
        ``<table class="bs-claims">``: fixed layout, no wider than the text column.
    """
    book = "yours" if yours else "book"
    head = (
        f'<thead><tr><th class="bs-claim">claim</th><th class="bs-num">paper</th><th class="bs-num">{book}</th>'
        '<th class="bs-status">status</th></tr></thead>'
    )
    body = "".join(_row(r, claim_link) for r in rows)
    cols = '<colgroup><col class="bs-col-claim"><col class="bs-col-num"><col class="bs-col-num"><col class="bs-col-status"></colgroup>'
    return f'<table class="bs-claims{" bs-yours" if yours else ""}">{cols}{head}<tbody>{body}</tbody></table>'


#: The columns a table of claims needs to show as one (besides its index, the claim ids).
CLAIM_COLUMNS = ("quantity", "paper", "book", "status")


class ClaimsFrame(pd.DataFrame):
    """A chapter's claims as a DataFrame (indexed by claim id) that a page shows as :func:`claims_table`.

    What :meth:`blindspot.book.ledger.Ledger.frame` returns: a table a chapter can select from and compute
    with like any other. A selection of its rows (``frame[frame.index.str.startswith("RT.6")]``) is still
    shown as a Paper-vs-book table; a table that no longer has the claim columns (:data:`CLAIM_COLUMNS`:
    a few columns picked, or renamed) is shown as any other data table.
    """

    _metadata = ["yours"]

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return ClaimsFrame

    def _repr_html_(self) -> str:
        if not set(CLAIM_COLUMNS) <= set(self.columns) or not self.index.is_unique:
            return frame_html(pd.DataFrame(self))
        rows = self.reset_index().rename(columns={"index": "id"}).to_dict("records")
        return claims_table(rows, yours=bool(getattr(self, "yours", False)))
