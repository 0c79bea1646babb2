"""Author–year labels for the book's bibliography (a Sphinx extension listed in ``_config.yml``).

The chapters cite with sphinxcontrib-bibtex's author–year references (``{cite:t}`` reads "Nemhauser et
al. (1978)", ``{cite:p}`` reads "(Nemhauser et al., 1978)"). pybtex's own label styles number the
entries ([1]) or abbreviate them alpha-style ([NWF78]), so the list at the end of a chapter would not
show what the text says. This module registers a pybtex label style, ``authoryear``, whose label is
the text of a parenthetical citation ("Nemhauser et al., 1978"), and a formatting style of the same
name (pybtex's ``unsrt`` entries, sorted by author, year and title) that uses it; ``_config.yml``
selects it with ``bibtex_default_style: authoryear``.

Names follow the in-text citation: one author by last name, two joined by "and", three or more as
the first author "et al."; an entry without authors is labelled by its editors, else its title.
Two entries that would get the same label get "a", "b", ... after the year.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from typing import Any

from pybtex.plugin import find_plugin, register_plugin
from pybtex.richtext import Text
from pybtex.style.formatting.unsrt import Style as UnsrtStyle
from pybtex.style.labels import BaseLabelStyle

__all__ = ["AuthorYearLabelStyle", "AuthorYearStyle", "author_year_label", "setup"]

#: The plugin name of both styles (``bibtex_default_style`` in ``_config.yml``).
STYLE = "authoryear"

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


def setup(app: Any) -> dict:
    """Register the ``authoryear`` label and formatting styles with pybtex (Sphinx extension entry point)."""
    register_plugin("pybtex.style.labels", STYLE, AuthorYearLabelStyle, force=True)
    register_plugin("pybtex.style.formatting", STYLE, AuthorYearStyle, force=True)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
