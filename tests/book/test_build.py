"""The whole pipeline in quick mode: every chapter executed by papermill, then jupyter-book -W.

A chapter that raises, or that breaks the rendered book, fails this test with its name.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from blindspot.book.build import NotebookError, build_book, execute_notebook, project_root, toc_chapters

ROOT = project_root()


def test_every_notebook_is_in_the_toc():
    listed = set(toc_chapters(ROOT))
    sources = {p.stem for p in (ROOT / "notebooks").glob("*.md")}
    assert sources - listed == set(), "notebooks not listed in _toc.yml (they would never be built)"


def _write_nb(path: Path, body: str) -> Path:
    header = textwrap.dedent(
        """\
        ---
        jupytext:
          text_representation:
            extension: .md
            format_name: myst
        kernelspec:
          display_name: Python 3
          language: python
          name: python3
        ---
        """
    )
    path.write_text(header + textwrap.dedent(body))
    return path


def test_failing_notebook_names_itself_and_its_traceback(tmp_path):
    src = _write_nb(
        tmp_path / "boom.md",
        """
        # Boom
        ```{code-cell} ipython3
        :tags: [parameters]
        quick = False
        ```
        ```{code-cell} ipython3
        def inner():
            raise ZeroDivisionError("deliberate")
        inner()
        ```
        """,
    )
    with pytest.raises(NotebookError, match=r"(?s)boom\.md failed in cell.*ZeroDivisionError: deliberate.*inner\(\)"):
        execute_notebook(src, tmp_path / "out.ipynb", {"quick": True}, ROOT)


def test_unparseable_parameter_is_rejected(tmp_path):
    src = _write_nb(
        tmp_path / "params.md",
        """
        # Params
        ```{code-cell} ipython3
        :tags: [parameters]
        quick = False  # a comment with x = 1 in it
        ```
        """,
    )
    with pytest.raises(NotebookError, match=r"cannot parse the parameters \['quick'\]"):
        execute_notebook(src, tmp_path / "out.ipynb", {"quick": True}, ROOT)


@pytest.mark.pipeline
def test_quick_book_builds(tmp_path):
    res = build_book(out_root=tmp_path / "book", quick=True, progress=False)
    assert (res.html / "index.html").is_file()
    for stem in toc_chapters(ROOT):
        assert (res.html / "book" / "chapters" / f"{stem}.html").is_file(), stem
    ledger = json.loads((tmp_path / "book" / "_build" / "ledger.json").read_text())
    ids = {r["id"] for r in ledger}
    assert "T1.deff.extended.frontier" in ids
    statuses = {r["status"] for r in ledger}
    assert statuses <= {"reproduced", "differs", "claim fails", "not reproducible here"}
    # the ledger chapter rendered the gathered claims
    page = (res.html / "book" / "chapters" / "99_reproduction_ledger.html").read_text()
    assert "T1.deff.extended.frontier" in page


@pytest.mark.pipeline
def test_your_data_book_is_built_apart(tmp_path):
    from blindspot.core.data import synthetic_suite

    csv = tmp_path / "my_scores.csv"
    synthetic_suite(n_models=40, n_benchmarks=5, seed=2).scores.reset_index().to_csv(csv, index=False)
    main_chapters = ROOT / "book" / "chapters"
    before = sorted((p.name, p.stat().st_mtime) for p in main_chapters.glob("*")) if main_chapters.exists() else []
    res = build_book(
        out_root=tmp_path / "yours",
        quick=True,
        progress=False,
        extra_parameters={"data_file": str(csv)},
        select_parameter="data_file",
    )
    built = sorted(p.stem for p in (res.html / "book" / "chapters").glob("*.html"))
    assert built == ["80_your_leaderboard"]
    page = (res.html / "book" / "chapters" / "80_your_leaderboard.html").read_text()
    assert "my_scores.csv" in page and "40" in page
    after = sorted((p.name, p.stat().st_mtime) for p in main_chapters.glob("*")) if main_chapters.exists() else []
    assert before == after  # the main book is untouched
