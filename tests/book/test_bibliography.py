"""The bibliography: every key cited exists, every entry is cited and can be found, labels read author–year."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pybtex.database import parse_file, parse_string

from blindspot.book.bibliography import AuthorYearLabelStyle, author_year_label

ROOT = Path(__file__).resolve().parents[2]
BIB = ROOT / "book" / "references.bib"
PAGES = sorted((ROOT / "notebooks").glob("*.md")) + sorted((ROOT / "book").glob("*.md"))
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
FILTERED = re.compile(r"```\{bibliography\}\s*\n:filter: docname in docnames\s*\n```")


def cited_keys(text: str) -> set[str]:
    return {k.strip() for m in CITE.finditer(text) for k in m.group(1).split(",")}


def test_every_cited_key_is_an_entry_and_every_entry_is_cited():
    entries = set(parse_file(BIB).entries)
    cited = {p.name: cited_keys(p.read_text()) for p in PAGES}
    missing = {name: sorted(keys - entries) for name, keys in cited.items() if keys - entries}
    assert not missing, f"cited but not in book/references.bib: {missing}"
    unused = entries - set().union(*cited.values())
    assert not unused, f"entries of book/references.bib that no page cites: {sorted(unused)}"


def test_no_two_entries_share_a_label():
    labels: dict[str, str] = {}
    for key, entry in parse_file(BIB).entries.items():
        label = author_year_label(entry)
        assert label not in labels, f"{key} and {labels[label]} are both [{label}]: put 'a'/'b' in their year fields"
        labels[label] = key


def test_every_entry_can_be_found():
    db = parse_file(BIB)
    lost = [k for k, e in db.entries.items() if not ({"doi", "eprint", "url"} & {f.lower() for f in e.fields})]
    assert not lost, f"entries without a DOI, an arXiv id or a URL: {lost}"
    bad_doi = [k for k, e in db.entries.items() if "doi" in e.fields and not e.fields["doi"].startswith("10.")]
    assert not bad_doi


def test_a_page_that_cites_ends_with_its_own_references():
    lacking = [
        p.name
        for p in PAGES
        if cited_keys(p.read_text())
        and p.name not in ("references.md", "intro.md")
        and not FILTERED.search(p.read_text())
    ]
    assert not lacking, f"pages that cite but have no per-page bibliography (:filter: docname in docnames): {lacking}"


BIBTEX = """
@article{one, author = {Horn, John L.}, title = {T}, year = {1965}}
@article{two, author = {Marchenko, V. A. and Pastur, L. A.}, title = {T}, year = {1967}}
@article{three, author = {Baik, Jinho and Ben Arous, G{\\'e}rard and P{\\'e}ch{\\'e}, Sandrine}, title = {T}, year = {2005}}
@misc{org, author = {{Epoch AI}}, title = {Hub}, year = {n.d.}}
@misc{none, title = {A {PKPS} manuscript}, year = {n.d.}}
@article{acc, author = {Gonz{\\'a}lez, {\\'A}lvaro}, title = {T}, year = {2010}}
@article{h1, author = {Hendrycks, Dan and Burns, Collin and Basart, Steven}, title = {A}, year = {2021}}
@article{h2, author = {Hendrycks, Dan and Burns, Collin and Kadavath, Saurav}, title = {B}, year = {2021}}
"""


@pytest.mark.parametrize(
    ("key", "label"),
    [
        ("one", "Horn, 1965"),
        ("two", "Marchenko and Pastur, 1967"),
        ("three", "Baik et al., 2005"),  # three or more authors: the first, et al., as the text cites them
        ("org", "Epoch AI, n.d."),
        ("none", "A PKPS manuscript, n.d."),  # no author: the title
        ("acc", "González, 2010"),
    ],
)
def test_labels_read_as_the_text_cites(key, label):
    assert author_year_label(parse_string(BIBTEX, "bibtex").entries[key]) == label


def test_labels_that_would_coincide_get_a_letter():
    db = parse_string(BIBTEX, "bibtex")
    labels = list(AuthorYearLabelStyle().format_labels([db.entries["h1"], db.entries["h2"], db.entries["one"]]))
    assert labels == ["Hendrycks et al., 2021a", "Hendrycks et al., 2021b", "Horn, 1965"]
