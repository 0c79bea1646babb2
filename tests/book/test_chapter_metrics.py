"""blindspot.book.chapter_metrics: each measure counted by hand on a small synthetic chapter."""

from __future__ import annotations

import textwrap
from pathlib import Path

import jupytext
import pytest

from blindspot.book.chapter_metrics import LONG_CELL, chapter_metrics, main, metrics_table, plumbing_lines

ROOT = Path(__file__).resolve().parents[2]


def cell(body: str, tags: str = "") -> str:
    head = "```{code-cell} ipython3\n" + (f":tags: [{tags}]\n\n" if tags else "")
    return head + textwrap.dedent(body).strip("\n") + "\n```\n"


LONG_BODY = "\n".join(f"x{i} = f({i})" for i in range(LONG_CELL + 1))  # one line over the limit
EXERCISE_BODY = "\n".join(f"y{i} = g({i})" for i in range(LONG_CELL + 5))

CHAPTER = "\n".join(
    [
        "---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n---\n",
        "# A chapter\n",
        cell(
            """
            scores = "suite"  # a string parameter is not a label: the parameters cell is never plumbing
            quick = False
            """,
            "parameters",
        ),
        cell(
            """
            import numpy as np
            from pathlib import Path

            # a comment is not code
            ledger = Ledger("_build/ledger")
            table = load(scores)

            result = analyse(table)
            %matplotlib inline
            """
        ),
        cell(
            """
            glue("a", result.a)
            glue(
                "b",
                result.b,
            )
            """,
            "remove-cell",
        ),
        cell(
            """
            names = {"a": "the first", "b": "the second"}
            for k in names:
                glue(k, result[k])
            for k in names:
                total = total + result[k]
            out = Path("x") / "y.csv"
            img = Image(data=base64.b64decode(b64))
            ledger.value("C.1", result.a)
            """,
            "remove-input",
        ),
        cell(LONG_BODY),
        "## Exercises\n",
        cell(EXERCISE_BODY),
        "## Summary\n",
    ]
)


@pytest.fixture(scope="module")
def metrics():
    return chapter_metrics(jupytext.reads(CHAPTER, fmt="md:myst"), "synthetic")


def test_code_lines_skip_blanks_comments_and_magics(metrics):
    # parameters 2; imports cell 5 (2 imports, ledger, table, result); glue cell 5; remove-input cell 8;
    # the long cell 26; the exercise 30
    assert metrics.code == 2 + 5 + 5 + 8 + (LONG_CELL + 1) + (LONG_CELL + 5)


def test_plumbing_is_glue_ledger_paths_labels_and_figure_decoding(metrics):
    # Ledger(...) 1; the glue cell 5 (a multi-line glue counts all its lines); in the remove-input cell the
    # label map 1, the loop that only glues 2, the path 1, the decoded figure 1, the ledger call 1 (the loop
    # that computes is not plumbing)
    assert metrics.plumbing == 1 + 5 + (1 + 2 + 1 + 1 + 1)


def test_reader_steps_are_shown_top_level_statements_without_imports_or_parameters(metrics):
    # the imports cell: ledger, table, result; the long cell: 26; the exercise: 30; removed cells do not count
    assert metrics.steps == 3 + (LONG_CELL + 1) + (LONG_CELL + 5)


def test_remove_cell_lines_long_cells_and_glue_calls(metrics):
    assert metrics.remove_cell == 5
    assert metrics.long_cells == 1  # the exercise's longer cell is not counted
    assert metrics.glue == 3


def test_a_compound_statement_is_plumbing_only_when_all_its_statements_are():
    glue_only = "if ok:\n    glue('a', 1)\nelse:\n    glue('a', 2)\n"
    assert plumbing_lines(glue_only) == (4, 4)
    mixed = "if ok:\n    glue('a', 1)\nelse:\n    a = compute()\n"
    assert plumbing_lines(mixed) == (4, 1)


def test_gluing_a_whole_result_or_the_papers_values_is_glue_too():
    src = "glue_result('t1', study)\nglue_paper(\n    ledger, 'T1.x'\n)\nglue_figures(study)\nstudy = deff_study(suites)\n"
    assert plumbing_lines(src) == (6, 5)


def test_a_literal_without_a_string_is_not_a_label():
    assert plumbing_lines("grid = (0.1, 0.2, 0.5)\nname = f'{x} models'\n") == (2, 1)


def test_a_cell_that_does_not_parse_is_all_code():
    assert plumbing_lines("glue('a',\n") == (1, 0)


def test_the_table_has_a_total_row(metrics):
    lines = metrics_table([metrics, metrics]).splitlines()
    assert lines[-1].split(" | ")[1] == str(2 * metrics.code)
    assert len(lines) == 2 + 2 + 1


def test_every_chapter_of_the_book_is_measured(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    stems = {p.stem for p in (ROOT / "notebooks").glob("*.md")}
    assert {line.split(" | ")[0].lstrip("| ") for line in out.splitlines()[2:-1]} == stems


def test_a_missing_chapter_is_one_line():
    with pytest.raises(SystemExit, match="no such chapter"):
        main(["notebooks/nope.md"])
