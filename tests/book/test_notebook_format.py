"""blindspot.book.notebook_format: chapters' code cells formatted by ruff, nothing else touched."""

from __future__ import annotations

import textwrap

import jupytext

from blindspot.book.notebook_format import LINE_LENGTH, code_cells, format_notebook, main

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
    assert main([str(f)]) == 0 and main(["--check", str(f)]) == 0


def test_a_cell_ruff_cannot_parse_is_left_alone():
    broken = NB.replace("x=1", "x = (")
    out, changed = format_notebook(broken)
    assert changed == 0 and out == broken
