"""The landing page's "What the book found": the ledger's totals by part and the headline findings.

Everything here is read from the gathered ledger (``_build/ledger.json``) and the claims registry,
never typed: the totals count the ledger's statuses per part of the table of contents; the
headline findings are the claims the registry marks ``headline:`` (a few words for the finding,
without its numbers), each with the paper's value, the book's value, the status and a link to its
chapter. The book's Sphinx extension (:mod:`blindspot.book.sphinx_ext`) renders :func:`landing_markdown`
where ``book/intro.md`` places the ``{findings}`` directive, when the HTML is built.

On a reader's own leaderboard (the ``--data`` edition, whose ledger holds the statuses of
:data:`blindspot.book.ledger.YOUR_STATUSES`) the same page counts the checks on the reader's data
and says so; it never presents the paper's totals as the reader's.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import yaml

from blindspot.book.chapters import CHAPTER_PREFIX, toc_entries
from blindspot.book.claim_tables import status_badge, status_slug, value_text
from blindspot.book.claims import Registry, general_wording
from blindspot.book.ledger import FAILS_ON_YOURS, HOLDS, NOT_APPLICABLE, NOT_RESOLVED
from blindspot.book.ledger_page import STATUS_ORDER, is_your_data, status_counts

__all__ = ["Headline", "toc_parts", "part_totals", "totals_html", "headlines", "landing_markdown", "OTHER_PART"]

#: The part of a chapter the table of contents does not place in one.
OTHER_PART = "Other chapters"


@dataclass(frozen=True)
class Headline:
    """One headline finding: the registry's words for it and its ledger row."""

    id: str
    chapter: str
    text: str
    where: str
    paper: object
    book: object
    status: str


def toc_parts(toc: str | Path) -> dict[str, str]:
    """{chapter stem: caption of its part} for the chapters of a jupyter-book table of contents, in its order.

    Parameters
    ----------
    toc : path
        A ``_toc.yml`` (``format: jb-book``, parts with captions); an edition's copy points its chapters
        elsewhere, and the stem is the file's last component either way.
    """
    doc = yaml.safe_load(Path(toc).read_text()) or {}
    out: dict[str, str] = {}

    def walk(node: object, caption: str) -> None:
        for entry in toc_entries(node):
            f = entry.get("file")
            if isinstance(f, str) and (f.startswith(CHAPTER_PREFIX) or "/editions/" in f):
                out.setdefault(f.rsplit("/", 1)[-1].removesuffix(".ipynb"), caption)

    for part in doc.get("parts") or []:
        walk(part, str(part.get("caption") or OTHER_PART))
    walk(doc.get("chapters") or [], OTHER_PART)
    return out


def part_totals(ledger: pd.DataFrame, parts: Mapping[str, str]) -> list[tuple[str, dict[str, int]]]:
    """The ledger's claims counted by status in each part, parts in the order of the table of contents.

    Parameters
    ----------
    ledger : DataFrame
        The gathered ledger (:func:`blindspot.book.ledger_page.load_ledger`).
    parts : mapping
        {stem: part caption} (:func:`toc_parts`); a chapter not in it counts under :data:`OTHER_PART`.

    Returns
    -------
    list of (str, dict)
        ``(part, {status: count})`` for every part with claims, then ``("All parts", ...)``.
    """
    where = ledger["chapter"].map(lambda s: parts.get(s, OTHER_PART))
    order = list(dict.fromkeys([*parts.values(), OTHER_PART]))
    rows = [(p, status_counts(ledger[where == p])) for p in order if (where == p).any()]
    return [*rows, ("All parts", status_counts(ledger))]


def totals_html(totals: list[tuple[str, dict[str, int]]]) -> str:
    """The totals by part as a small HTML table: a row per part, a column per status (its badge), the total.

    Every cell carries ``data-part`` and ``data-status`` so a test can read the counts back."""
    statuses = [s for s in STATUS_ORDER if any(s in c for _, c in totals)]
    head = "".join(f'<th class="bs-num">{status_badge(s)}</th>' for s in statuses)
    out = [
        f'<div class="bs-scroll"><table class="bs-totals"><thead><tr><th>part</th>{head}'
        '<th class="bs-num">claims</th></tr></thead><tbody>'
    ]
    for i, (part, counts) in enumerate(totals):
        last = i == len(totals) - 1
        cells = "".join(f'<td class="bs-num" data-status="{status_slug(s)}">{counts.get(s, 0)}</td>' for s in statuses)
        tag = ' class="bs-total"' if last else ""
        name = html.escape(part)
        out.append(
            f'<tr{tag} data-part="{name}"><th>{name}</th>{cells}'
            f'<td class="bs-num" data-status="all">{sum(counts.values())}</td></tr>'
        )
    out.append("</tbody></table></div>")
    return "".join(out)


def headlines(ledger: pd.DataFrame, registry: Registry) -> list[Headline]:
    """The claims the registry marks as headline findings, with what this build's ledger says of them.

    On a reader's leaderboard a claim reads in the reader's terms: its row is the one of its general id
    (:func:`blindspot.book.ledger.for_reader`), its words have the paper's suite names replaced, and it is
    left out when nothing was computed for it on the reader's data (a claim about the paper's own
    setting, or a chapter that did not run).

    Parameters
    ----------
    ledger : DataFrame
        The gathered ledger.
    registry : Registry
        The claims registry (:func:`blindspot.book.claims.load_registry`).

    Returns
    -------
    list of Headline
        In the order of the registry's chapters and claims.
    """
    rows = {r["id"]: r for r in ledger.to_dict("records")}
    yours = is_your_data(ledger)
    out = []
    for chapter in registry.chapters.values():
        for spec in chapter.claims.values():
            if not spec.headline:
                continue
            row = rows.get(spec.id) or (rows.get(spec.general_id) if yours else None)
            if row is None:
                continue
            text = spec.headline
            if yours:
                computed = row["status"] in (HOLDS, FAILS_ON_YOURS, NOT_RESOLVED) or (
                    row["status"] == NOT_APPLICABLE and isinstance(row["book"], (int, float)) and pd.notna(row["book"])
                )
                if row["about"] != "data" or not computed:
                    continue
                text = general_wording(text, spec.suites)
            out.append(Headline(spec.id, spec.chapter, text, spec.where, row["paper"], row["book"], row["status"]))
    return out


def _sentence(h: Headline, link: str, yours: bool) -> str:
    text = h.text[:1].upper() + h.text[1:]
    book = "yours" if yours else "book"
    return (
        f"- {status_badge(h.status)} **{text}.** Paper: {value_text(h.paper)}; {book}: {value_text(h.book)} "
        f"({h.where}; {link})."
    )


def landing_markdown(
    ledger: pd.DataFrame,
    registry: Registry,
    parts: Mapping[str, str],
    chapter_link: Callable[[str], str],
) -> str:
    """The body of *What the book found* (MyST markdown with HTML tables and badges).

    Parameters
    ----------
    ledger : DataFrame
        The gathered ledger of this edition.
    registry : Registry
        The claims registry (its ``headline:`` marks).
    parts : mapping
        {stem: part caption} (:func:`toc_parts`).
    chapter_link : callable
        stem -> MyST for a link to the chapter (the Sphinx extension gives a ``{doc}`` role).

    Returns
    -------
    str
    """
    if not len(ledger):
        return "The ledger is empty: no chapter has recorded a claim in this build."
    yours = is_your_data(ledger)
    counts = status_counts(ledger)
    said = ", ".join(f"{n} {s}" for s, n in counts.items())
    n_chapters = ledger["chapter"].nunique()
    if yours:
        lead = (
            f"This edition ran the book on **your leaderboard**. Of the {len(ledger)} claims of the paper "
            f"checked in {n_chapters} chapters: {said}. *Holds* and *fails* are the paper's statements judged "
            "on your data; a number about the paper's own data is *not applicable* (yours is shown beside the "
            "paper's); the mathematics and simulations keep the status they have on the paper's data. These "
            "counts are about your file, not the paper's reproduction."
        )
    else:
        lead = (
            f"The book checks {len(ledger)} claims of the paper in {n_chapters} chapters, each decided by "
            f"the {{ref}}`reproduction ledger <ch-ledger>` from a computed value: {said}."
        )
    out = [lead, "", "```{raw} html", totals_html(part_totals(ledger, parts)), "```", ""]
    found = headlines(ledger, registry)
    if found:
        out.append(
            "The headline findings, each with the paper's value, the book's value and its status:"
            if not yours
            else "The headline findings, on your leaderboard:"
        )
        out.append("")
        out.extend(_sentence(h, chapter_link(h.chapter), yours) for h in found)
    return "\n".join(out)
