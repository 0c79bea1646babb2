"""How much of a chapter's code is the method and how much is plumbing: one row of measures per chapter.

A chapter should read like a QuantEcon lecture: build the object, call it, show it. This module measures
how far each chapter (a jupytext MyST file in ``notebooks/``) is from that, on its code cells only:

``code``
    code lines: the physical lines of every code cell that are neither blank nor a comment (``#`` first),
    nor an IPython magic or shell line (``%``, ``!`` first).
``plumbing``
    the code lines that belong to a *plumbing statement* (below). Each code line belongs to the innermost
    statement that spans it (a multi-line call counts all its lines). A simple statement is plumbing when
    it contains any of

    * **glue**: a call of ``glue`` (``glue(...)``, ``x.glue(...)``), of ``glue_result``, ``glue_figures`` or
      ``glue_paper`` (one line each: gluing a whole result is still gluing);
    * **ledger**: a call of an attribute of the name ``ledger`` (``ledger.value``, ``ledger.statement``,
      ``ledger.verdict``, ``ledger.run``, ``ledger.save``, ...) or of ``Ledger(...)``;
    * **figure decoding**: the ``base64`` module, ``b64decode``/``b64encode``, ``Image(...)`` or
      ``BytesIO(...)``;
    * **paths**: ``Path(...)``, ``os.path``, ``resolve_data_dir(...)``, or a call of one of the methods
      ``mkdir``, ``exists``, ``is_file``, ``is_dir``, ``resolve``, ``with_suffix``, ``read_text``,
      ``write_text``, ``open``, ``to_csv``, ``to_parquet``, ``relative_to``;
    * **labels**: ``Markdown(...)``, a call of ``rename``, ``set_axis``, ``set_title``, ``set_xlabel``,
      ``set_ylabel``, ``set_caption``, ``relabel``; or an assignment whose value is a literal holding a
      string (a string, an f-string, or a list/tuple/set/dict whose every leaf is a constant and one of
      them a string: a map of labels typed in the notebook).

    A compound statement (``for``, ``if``, ``with``, ``try``, ``def``) is plumbing when every simple
    statement inside it is (its header lines follow that verdict; its body lines follow their own
    statements), so a loop that only glues is plumbing and a loop that computes is not. The
    ``parameters`` cell is never plumbing: it declares the chapter's inputs.
``plumbing %``
    plumbing / code, in percent.
``steps``
    reader steps: the top-level statements of the code cells whose input the reader sees (no
    ``remove-cell`` or ``remove-input`` tag), except the ``parameters`` cell and ``import`` statements.
``remove-cell``
    code lines in cells tagged ``remove-cell`` (code the reader never sees).
``long cells``
    code cells of more than :data:`LONG_CELL` code lines, not counting the exercises: a cell in a section
    whose level-2 heading starts with "Exercise", or between a ``solution-start`` (or ``exercise-start``)
    and its ``-end``.
``glue``
    calls of ``glue`` in the chapter's code cells.

Run ``python -m blindspot.book.chapter_metrics [notebook ...]`` (default: every chapter of ``notebooks/``)
for the table in Markdown, with a total row; ``make test`` prints it. The house's targets (plumbing at most
30% of a chapter's code lines, no code cell over 25 lines outside the exercises) are read off it.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import jupytext
import nbformat

from blindspot.book.chapters import project_root

__all__ = ["ChapterMetrics", "LONG_CELL", "chapter_metrics", "plumbing_lines", "metrics_table", "main"]

#: A code cell longer than this many code lines (outside the exercises) is a long cell.
LONG_CELL = 25

_GLUE_CALLS = {"glue", "glue_result", "glue_figures", "glue_paper"}
_PATH_CALLS = {"Path", "resolve_data_dir"}
_PATH_METHODS = {
    "mkdir",
    "exists",
    "is_file",
    "is_dir",
    "resolve",
    "with_suffix",
    "read_text",
    "write_text",
    "open",
    "to_csv",
    "to_parquet",
    "relative_to",
}
_LABEL_CALLS = {"Markdown", "rename", "set_axis", "set_title", "set_xlabel", "set_ylabel", "set_caption", "relabel"}
_FIGURE_CALLS = {"b64decode", "b64encode", "Image", "BytesIO"}
_REMOVED = {"remove-cell", "remove-input"}
_GATE_START = re.compile(r"^[`:]{3,}\s*\{(solution|exercise)-start\}", re.M)
_GATE_END = re.compile(r"^[`:]{3,}\s*\{(solution|exercise)-end\}", re.M)
_H2 = re.compile(r"^##\s+(.*)$", re.M)


@dataclass(frozen=True)
class ChapterMetrics:
    """The measures of one chapter (see the module's docstring for each definition)."""

    chapter: str
    code: int
    plumbing: int
    steps: int
    remove_cell: int
    long_cells: int
    glue: int

    @property
    def plumbing_share(self) -> float:
        """Plumbing lines as a fraction of the code lines (0 for a chapter without code)."""
        return self.plumbing / self.code if self.code else 0.0


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else "")


def _is_ledger_call(node: ast.Call) -> bool:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id == "Ledger"
    while isinstance(f, ast.Attribute):
        f = f.value
        if isinstance(f, ast.Name) and f.id == "ledger":
            return True
    return False


def _is_label_literal(node: ast.AST | None) -> bool:
    """A literal that holds a string: a string, an f-string, or a container of constants with a string."""
    if node is None:
        return False
    if isinstance(node, ast.JoinedStr):
        return True
    leaves: list[ast.AST] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.List, ast.Tuple, ast.Set)):
            stack.extend(n.elts)
        elif isinstance(n, ast.Dict):
            stack.extend(k for k in n.keys if k is not None)
            stack.extend(n.values)
        else:
            leaves.append(n)
    if not all(isinstance(leaf, (ast.Constant, ast.JoinedStr)) for leaf in leaves):
        return False
    return any(isinstance(leaf, ast.JoinedStr) or isinstance(leaf.value, str) for leaf in leaves)


def _plumbing_kind(stmt: ast.stmt) -> str | None:
    """The kind of plumbing a simple statement is ('glue', 'ledger', 'figure', 'paths', 'labels'), or None."""
    kinds = set()
    for n in ast.walk(stmt):
        if isinstance(n, ast.Call):
            name = _call_name(n)
            if name in _GLUE_CALLS:
                kinds.add("glue")
            if _is_ledger_call(n):
                kinds.add("ledger")
            if name in _FIGURE_CALLS:
                kinds.add("figure")
            if name in _PATH_CALLS or (isinstance(n.func, ast.Attribute) and name in _PATH_METHODS):
                kinds.add("paths")
            if name in _LABEL_CALLS:
                kinds.add("labels")
        elif isinstance(n, ast.Name) and n.id == "base64":
            kinds.add("figure")
        elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and (n.value.id, n.attr) == ("os", "path"):
            kinds.add("paths")
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)) and _is_label_literal(stmt.value):
        kinds.add("labels")
    for kind in ("glue", "ledger", "figure", "paths", "labels"):
        if kind in kinds:
            return kind
    return None


def _children(stmt: ast.stmt) -> list[ast.stmt]:
    """The statements directly inside a compound statement (bodies, else and finally, handlers, cases)."""
    out: list[ast.stmt] = []
    for name in ("body", "orelse", "finalbody"):
        out.extend(getattr(stmt, name, []) or [])
    for handler in getattr(stmt, "handlers", []) or []:
        out.extend(handler.body)
    for case in getattr(stmt, "cases", []) or []:
        out.extend(case.body)
    return out


def _is_plumbing(stmt: ast.stmt) -> bool:
    inner = _children(stmt)
    if not inner:
        return _plumbing_kind(stmt) is not None
    return all(_is_plumbing(s) for s in inner)


def _code_source(source: str) -> str:
    """The cell's source with magics and shell lines blanked (so line numbers stay)."""
    return "\n".join("" if ln.lstrip().startswith(("%", "!")) else ln for ln in source.splitlines())


def _code_lines(source: str) -> list[int]:
    """Numbers (from 1) of the lines that are code: not blank, not a comment, not a magic."""
    return [
        i for i, ln in enumerate(source.splitlines(), 1) if ln.strip() and not ln.lstrip().startswith(("#", "%", "!"))
    ]


def plumbing_lines(source: str) -> tuple[int, int]:
    """(code lines, plumbing lines) of one code cell's source, by the rules of the module's docstring.

    A cell that does not parse counts all its code lines as code and none as plumbing.
    """
    lines = _code_lines(source)
    try:
        tree = ast.parse(_code_source(source))
    except SyntaxError:
        return len(lines), 0
    owner: dict[int, ast.stmt] = {}
    # breadth first: a statement is visited after the ones containing it, so the innermost one wins
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            for ln in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                owner[ln] = node
    verdict: dict[int, bool] = {}
    plumbing = 0
    for ln in lines:
        stmt = owner.get(ln)
        if stmt is None:
            continue
        if id(stmt) not in verdict:
            verdict[id(stmt)] = _is_plumbing(stmt)
        plumbing += verdict[id(stmt)]
    return len(lines), plumbing


def _glue_calls(source: str) -> int:
    try:
        tree = ast.parse(_code_source(source))
    except SyntaxError:
        return 0
    return sum(isinstance(n, ast.Call) and _call_name(n) == "glue" for n in ast.walk(tree))


def _reader_steps(source: str) -> int:
    try:
        tree = ast.parse(_code_source(source))
    except SyntaxError:
        return len(_code_lines(source))
    return sum(not isinstance(s, (ast.Import, ast.ImportFrom)) for s in tree.body)


def _exercise_cells(nb: nbformat.NotebookNode) -> set[int]:
    """Indices of the code cells that belong to an exercise (its section, or a gated solution)."""
    out: set[int] = set()
    in_section = gated = False
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            for m in _H2.finditer(cell.source):
                in_section = m.group(1).strip().lower().startswith("exercise")
            starts, ends = len(_GATE_START.findall(cell.source)), len(_GATE_END.findall(cell.source))
            if starts > ends:
                gated = True
            elif ends > starts:
                gated = False
        elif cell.cell_type == "code" and (in_section or gated):
            out.add(i)
    return out


def chapter_metrics(nb: nbformat.NotebookNode, chapter: str = "chapter") -> ChapterMetrics:
    """The measures of one chapter, read as a notebook (see the module's docstring for each)."""
    exercises = _exercise_cells(nb)
    code = plumbing = steps = removed = long_cells = glue = 0
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = set(cell.metadata.get("tags", []))
        n_code, n_plumbing = plumbing_lines(cell.source)
        code += n_code
        plumbing += 0 if "parameters" in tags else n_plumbing
        glue += _glue_calls(cell.source)
        if "remove-cell" in tags:
            removed += n_code
        if not tags & _REMOVED and "parameters" not in tags:
            steps += _reader_steps(cell.source)
        if n_code > LONG_CELL and i not in exercises:
            long_cells += 1
    return ChapterMetrics(chapter, code, plumbing, steps, removed, long_cells, glue)


_HEADER = ("chapter", "code lines", "plumbing", "plumbing %", "reader steps", "remove-cell lines", "cells > 25", "glue")


def _row(m: ChapterMetrics) -> list[str]:
    return [
        m.chapter,
        str(m.code),
        str(m.plumbing),
        f"{100 * m.plumbing_share:.0f}",
        str(m.steps),
        str(m.remove_cell),
        str(m.long_cells),
        str(m.glue),
    ]


def metrics_table(rows: Sequence[ChapterMetrics]) -> str:
    """The rows as a Markdown table, with a total row."""
    names = [f.name for f in fields(ChapterMetrics)][1:]
    total = ChapterMetrics("total", *(sum(getattr(r, n) for r in rows) for n in names))
    body = [_row(r) for r in rows] + [_row(total)]
    lines = ["| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines)


def _chapters(paths: Iterable[Path]) -> list[ChapterMetrics]:
    return [chapter_metrics(jupytext.read(p), p.stem) for p in paths]


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table for the given chapters (default: every chapter in ``notebooks/``)."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args:
        paths = [Path(a) for a in args]
    else:
        paths = sorted((project_root() / "notebooks").glob("*.md"))
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise SystemExit(f"no such chapter: {', '.join(missing)}")
    rows = _chapters(paths)
    print(metrics_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
