"""Author–year labels for the book's bibliography (a Sphinx extension listed in ``_config.yml``).

The chapters cite with sphinxcontrib-bibtex's author–year references (``{cite:t}`` reads "Nemhauser et
al. (1978)", ``{cite:p}`` reads "(Nemhauser et al., 1978)"). pybtex's own label styles number the
entries ([1]) or abbreviate them alpha-style ([NWF78]), so the list at the end of a chapter would not
show what the text says. This module registers a pybtex label style, ``authoryear``, whose label is
the text of a parenthetical citation ("Nemhauser et al., 1978"), and a formatting style of the same
name (pybtex's ``unsrt`` entries, sorted by author, year and title) that uses it; ``_config.yml``
selects it with ``bibtex_default_style: authoryear``. The in-text references use round brackets, as
author–year text does: ``bibtex_reference_style: author_year_round`` (sphinxcontrib-bibtex's author–year
style with "(" and ")" in place of its default square brackets).

Names follow the in-text citation: one author by last name, two joined by "and", three or more as
the first author "et al."; an entry without authors is labelled by its editors, else its title.
Two entries that would get the same label get "a", "b", ... after the year within one list; but the
chapters' lists are separate, so entries of the same authors and year must carry the letter in their
``year`` field ("2021a", "2021b"), which the text then shows too (``tests/book/test_bibliography.py``
checks that no two entries share a label).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import sphinxcontrib.bibtex.plugin
from pybtex.plugin import find_plugin, register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle
from sphinxcontrib.bibtex.style.referencing import BracketStyle
from sphinxcontrib.bibtex.style.referencing.author_year import AuthorYearReferenceStyle

__all__ = ["AuthorYearLabelStyle", "AuthorYearStyle", "RoundAuthorYearReferenceStyle", "author_year_label", "setup"]

#: The plugin name of both styles (``bibtex_default_style`` in ``_config.yml``).
STYLE = "authoryear"
#: The plugin name of the in-text reference style (``bibtex_reference_style`` in ``_config.yml``).
REFERENCE_STYLE = "author_year_round"


def _round() -> BracketStyle:
    return BracketStyle(left="(", right=")")


_LAST = find_plugin("pybtex.style.names", "last")()


def _plain(latex: str) -> str:
    """A BibTeX field as plain text: braces and accents resolved (``P{\\'e}ch{\\'e}`` -> ``Péché``)."""
    return Text.from_latex(latex).render_as("text")


def _names(entry: Any) -> str:
    for role in ("author", "editor"):
        persons = entry.persons.get(role)
        if persons:
            last = [_LAST.format(p, abbr=True).format().render_as("text") for p in persons]
            if len(last) == 1:
                return last[0]
            if len(last) == 2:
                return f"{last[0]} and {last[1]}"
            return f"{last[0]} et al."
    return _plain(entry.fields.get("title", entry.key))


def author_year_label(entry: Any) -> str:
    """The label of one entry, without disambiguation: ``"Nemhauser et al., 1978"``.

    Parameters
    ----------
    entry : pybtex.database.Entry
        A parsed BibTeX entry.

    Returns
    -------
    str
        Its authors (or editors, or title) as the in-text citation names them, a comma, its year
        (``"n.d."`` when it has none).
    """
    return f"{_names(entry)}, {_plain(entry.fields.get('year', 'n.d.'))}"


class AuthorYearLabelStyle(BaseLabelStyle):
    """pybtex label style: the parenthetical author–year citation of each entry, made unique.

    Entries whose labels would coincide get "a", "b", ... after the year, in the order given.
    """

    def format_labels(self, sorted_entries: Iterable[Any]) -> Iterator[str]:
        entries = list(sorted_entries)
        labels = [author_year_label(e) for e in entries]
        counts = Counter(labels)
        seen: Counter[str] = Counter()
        for label in labels:
            if counts[label] > 1:
                suffix = chr(ord("a") + seen[label])
                seen[label] += 1
                yield label + suffix
            else:
                yield label


class AuthorYearStyle(UnsrtStyle):
    """pybtex formatting style: ``unsrt`` entries with :class:`AuthorYearLabelStyle` labels, sorted by author,
    year and title."""

    default_label_style = STYLE
    default_sorting_style = "author_year_title"


@dataclass
class RoundAuthorYearReferenceStyle(AuthorYearReferenceStyle):
    """sphinxcontrib-bibtex's author–year references in round brackets: "Nemhauser et al. (1978)",
    "(Nemhauser et al., 1978)"."""

    bracket_textual: BracketStyle = field(default_factory=_round)
    bracket_parenthetical: BracketStyle = field(default_factory=_round)
    bracket_author: BracketStyle = field(default_factory=_round)
    bracket_label: BracketStyle = field(default_factory=_round)
    bracket_year: BracketStyle = field(default_factory=_round)


def setup(app: Any) -> dict:
    """Register the ``authoryear`` label and formatting styles with pybtex and the ``author_year_round``
    reference style with sphinxcontrib-bibtex (Sphinx extension entry point)."""
    register_plugin("pybtex.style.labels", STYLE, AuthorYearLabelStyle, force=True)
    register_plugin("pybtex.style.formatting", STYLE, AuthorYearStyle, force=True)
    sphinxcontrib.bibtex.plugin.register_plugin(
        "sphinxcontrib.bibtex.style.referencing", REFERENCE_STYLE, RoundAuthorYearReferenceStyle, force=True
    )
    return {"parallel_read_safe": True, "parallel_write_safe": True}
