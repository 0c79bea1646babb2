"""The student edition: executed chapters with every exercise solution removed (not hidden).

Solutions follow sphinx-exercise's two forms:

- a ``{solution}`` directive (a text solution, e.g. in a dropdown), in a markdown cell;
- a gated solution: a ``{solution-start}`` directive, the code cells that compute the answer,
  and a ``{solution-end}`` directive.

Both are cut out of the notebook before rendering: sphinx-exercise's own ``hide_solutions`` only
hides them (and fails with gated solutions in 1.2.1).
"""

from __future__ import annotations

import copy
import re

import nbformat

__all__ = ["strip_solutions", "solution_count"]

_OPEN = re.compile(r"^(`{3,}|:{3,})\{(solution|solution-start|solution-end)\}")


def _strip_text(text: str, state: dict) -> str:
    """Remove solution directives from one markdown cell; ``state['gated']`` carries an open gated solution."""
    out: list[str] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _OPEN.match(line.lstrip())
        if state["gated"]:
            if m and m.group(2) == "solution-end":
                fence = m.group(1)
                i += 1
                while i < len(lines) and lines[i].strip() != fence:  # the directive's options/body
                    i += 1
                state["gated"] = False
            i += 1
            continue
        if m and m.group(2) in ("solution", "solution-start"):
            fence = m.group(1)
            i += 1
            while i < len(lines) and lines[i].strip() != fence:
                i += 1
            i += 1
            state["removed"] += 1
            if m.group(2) == "solution-start":
                state["gated"] = True
            continue
        out.append(line)
        i += 1
    return "\n".join(out).strip("\n")


def strip_solutions(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``nb`` without any solution (text or gated, with the gated solution's code cells)."""
    nb = copy.deepcopy(nb)
    state = {"gated": False, "removed": 0}
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            was_gated = state["gated"]
            cell.source = _strip_text(cell.source, state)
            if cell.source.strip() or not (was_gated or state["removed"]):
                cells.append(cell)
        elif not state["gated"]:
            cells.append(cell)
    if state["gated"]:
        raise ValueError("a {solution-start} has no {solution-end}")
    nb.cells = [c for c in cells if c.cell_type != "markdown" or c.source.strip()]
    return nb


def solution_count(nb: nbformat.NotebookNode) -> int:
    """How many solutions (text or gated) the notebook holds."""
    n = 0
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            n += sum(
                1
                for line in cell.source.split("\n")
                if (m := _OPEN.match(line.lstrip())) and m.group(2) in ("solution", "solution-start")
            )
    return n
