"""blindspot.book.notebook_format: chapters' code cells formatted by ruff, nothing else touched; the book's
chapters are formatted and their shown code fits 88 columns (a chapter that breaks either fails here)."""

from __future__ import annotations

import re
import textwrap

import jupytext
import pytest

from blindspot.book.chapters import project_root
from blindspot.book.notebook_format import LINE_LENGTH, code_cells, format_notebook, long_lines, main

ROOT = project_root()
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md")) + [ROOT / "book" / "templates" / "chapter.md"]

NB = textwrap.dedent(
    """\
    ---
    jupytext:
      text_representation: {extension: .md, format_name: myst}
    kernelspec: {display_name: Python 3, language: python, name: python3}
    ---

    # A chapter

    Some *prose*   with   odd   spacing, left alone.

    ```{code-cell} ipython3
    :tags: [parameters]

    scores = ["ollm_v2", "extended", "livebench", "a_much_longer_name_than_usual"]  # one line per parameter
    ```

    ```{code-cell} ipython3
    :tags: [hide-input]

    row = {"k": m.k, "d_eff": m.d_eff, "r_greedy": m.r_greedy, "r_min": m.r_min, "r_bound_paper": m.bound}
    x=1
    ```

    ```{code-cell} ipython3
    %timeit f(x)
    ```
    """
)


def test_only_the_code_of_formattable_cells_changes(tmp_path):
    out, changed = format_notebook(NB)
    assert changed == 1
    cells = code_cells(out)
    assert cells[0].source == code_cells(NB)[0].source  # the parameters cell: one name = value per line
    assert cells[2].source == "%timeit f(x)\n"  # a magic is not Python: left as it is
    assert "x = 1" in cells[1].source and max(map(len, cells[1].source.splitlines())) <= LINE_LENGTH
    assert cells[1].tags == ":tags: [hide-input]\n\n"
    before, after = NB.split("```{code-cell}")[0], out.split("```{code-cell}")[0]
    assert before == after  # front matter and prose byte for byte
    f = tmp_path / "nb.md"
    f.write_text(out)
    a, b = jupytext.read(f), jupytext.reads(NB, fmt="md:myst")
    assert [c.metadata for c in a.cells] == [c.metadata for c in b.cells]
    assert format_notebook(out) == (out, 0)  # formatted once, stable


def test_check_reports_and_fix_writes(tmp_path, capsys):
    f = tmp_path / "nb.md"
    f.write_text(NB)
    assert main(["--check", str(f)]) == 1 and f.read_text() == NB
    assert "1 code cell(s) not formatted" in capsys.readouterr().out
    assert main([str(f)]) == 0
    capsys.readouterr()
    # formatted now; the parameters cell's long line is for the author to wrap (ruff leaves that cell alone)
    assert main(["--check", str(f)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f"{f}:14: 104 characters, over 88: wrap it by hand (a string, a comment)"
    ]
    f.write_text(f.read_text().replace("  # one line per parameter", ""))
    assert main(["--check", str(f)]) == 0


def test_a_cell_ruff_cannot_parse_is_left_alone():
    broken = NB.replace("x=1", "x = (")
    out, changed = format_notebook(broken)
    assert changed == 0 and out == broken


LONG = "# " + "a comment far too long for the book's code column " * 2  # over 88 characters


def _cell(tags: str, source: str) -> str:
    return f"```{{code-cell}} ipython3\n{tags}{source}\n```\n"


def test_long_lines_counts_the_code_a_reader_sees():
    nb = NB + "\n".join(
        [
            _cell(":tags: [hide-input]\n\n", LONG),  # folded, shown when unfolded: counted
            _cell(":tags: [remove-cell]\n\n", LONG),  # never shown
            _cell(":tags: [remove-input]\n\n", LONG),  # output only
            _cell("---\nmystnb:\n  figure:\n    name: fig-x\ntags: [remove-input]\n---\n", LONG),
            _cell("---\nmystnb:\n  figure:\n    name: fig-y\n---\n", LONG),  # YAML options, shown
        ]
    )
    lines = nb.splitlines()
    found = long_lines(nb)
    assert all(lines[n - 1] == LONG for n, _ in found[-2:])  # file line numbers point at the lines
    shown_long = [n for n, _ in found if lines[n - 1] == LONG]
    assert len(shown_long) == 2
    assert [c.shown for c in code_cells(nb)[-5:]] == [True, False, False, False, True]
    # the parameters and hide-input cells of NB are long too (ruff has not run on NB): reported as well
    assert {len(lines[n - 1]) for n, _ in found} == {length for _, length in found}
    assert all(length > LINE_LENGTH for _, length in found)


def test_a_cell_with_yaml_options_is_formatted_and_its_options_kept():
    nb = NB + _cell("---\nmystnb:\n  figure:\n    name: fig-x\ntags: [hide-input]\n---\n", "y=f( 1 )")
    out, changed = format_notebook(nb)
    assert changed == 2  # NB's hide-input cell and this one
    last = code_cells(out)[-1]
    assert last.source == "y = f(1)\n" and "name: fig-x" in last.tags and last.shown


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_every_chapter_is_formatted_and_fits_the_code_column(path, capsys):
    """``make test``'s lint runs the same check over all chapters; here each chapter is its own test."""
    assert main(["--check", str(path)]) == 0, capsys.readouterr().out


def test_the_check_fails_on_an_unformatted_copy_of_a_chapter(tmp_path, capsys):
    text = (ROOT / "notebooks" / "01_effective_dimensionality.md").read_text()
    shown = [c for c in code_cells(text) if c.shown and "parameters" not in c.tags]
    cell = shown[0]
    # as an author might type it: no spaces around '=' and a comment past the column
    unformatted = re.sub(r"^(\w+) = ", r"\1=", cell.source, count=1, flags=re.M) + LONG + "\n"
    assert unformatted != cell.source + LONG + "\n"
    copy = tmp_path / "01_copy.md"
    copy.write_text(text[: cell.start] + unformatted + text[cell.end :])
    assert main(["--check", str(copy)]) == 1
    out = capsys.readouterr().out
    assert "1 code cell(s) not formatted" in out
    assert f"{copy}:{cell.line + unformatted.count(chr(10)) - 1}: {len(LONG)} characters" in out
    assert main([str(copy)]) == 0  # ruff fixes the spacing; the comment is left to wrap by hand
    assert "1 code cell(s) formatted" in capsys.readouterr().out
    assert main(["--check", str(copy)]) == 1
    assert "not formatted" not in capsys.readouterr().out
