"""The code a reader sees, formatted: ruff's formatter on every code cell of the chapters.

The support package is formatted to the project's 120 columns (``pyproject.toml``), read in an editor;
a chapter's code is read in the book, whose code column shows about 88 characters at 1280 px. So each
code cell of ``notebooks/*.md`` is formatted by ``ruff format`` at :data:`LINE_LENGTH`, cell by cell, and
only the cell's source is rewritten in the MyST file (its options, the markdown and the front matter are
left byte for byte). Cells that ruff cannot format as Python (IPython magics, shell escapes) are left as
they are, and so is the ``parameters`` cell: the build reads it one ``name = value`` line per parameter
(:func:`blindspot.book.chapters.check_parameters_cell`).

Run ``python -m blindspot.book.notebook_format --check [files]`` to list the cells ruff would change
(status 1 if any; ``make test`` runs it), or without ``--check`` to rewrite them.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LINE_LENGTH", "CodeCell", "code_cells", "format_sources", "format_notebook", "main"]

#: Characters per line of the code a reader sees.
LINE_LENGTH = 88

_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
_OPTION = re.compile(r"^:[\w-]+:.*$")


@dataclass(frozen=True)
class CodeCell:
    """A code cell's source as it sits in the MyST file: ``start``/``end`` are offsets of the source."""

    start: int
    end: int
    source: str
    tags: str


def code_cells(text: str) -> list[CodeCell]:
    """The code cells of a jupytext MyST notebook, their options (``:tags:`` ...) excluded from the source."""
    cells = []
    for m in _CELL.finditer(text):
        body, start = m.group("body"), m.start("body")
        lines = body.splitlines(keepends=True)
        n_opt = 0
        while n_opt < len(lines) and _OPTION.match(lines[n_opt].rstrip("\n")):
            n_opt += 1
        if n_opt and n_opt < len(lines) and not lines[n_opt].strip():
            n_opt += 1  # the blank line after the options
        head = "".join(lines[:n_opt])
        cells.append(CodeCell(start + len(head), m.end("body"), body[len(head) :], head))
    return cells


def _formattable(cell: CodeCell) -> bool:
    if "parameters" in cell.tags:
        return False
    return not any(line.lstrip().startswith(("%", "!")) for line in cell.source.splitlines())


def format_sources(sources: list[str], line_length: int = LINE_LENGTH) -> list[str | None]:
    """Each source as ``ruff format`` formats it (one ruff run for all), or None where ruff cannot parse it.

    Raises
    ------
    RuntimeError
        When ruff itself cannot run (not installed), with its message.
    """
    out: list[str | None] = [None] * len(sources)
    with tempfile.TemporaryDirectory(prefix="nbfmt-") as tmp:
        files = []
        for i, src in enumerate(sources):
            f = Path(tmp) / f"cell_{i:05d}.py"
            f.write_text(src)
            files.append(f)
        if not files:
            return out
        cmd = [sys.executable, "-m", "ruff", "format", "--isolated", "--line-length", str(line_length), tmp]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode not in (0, 2):  # 2: some cell did not parse (named on stderr)
            raise RuntimeError(f"ruff format could not run: {proc.stderr.strip() or proc.stdout.strip()}")
        failed = set(re.findall(r"cell_(\d{5})\.py", proc.stderr))
        for i, f in enumerate(files):
            if f"{i:05d}" not in failed:
                out[i] = f.read_text()
    return out


def format_notebook(text: str, line_length: int = LINE_LENGTH) -> tuple[str, int]:
    """The MyST text with every formattable code cell formatted, and how many cells changed."""
    cells = [c for c in code_cells(text) if _formattable(c)]
    formatted = format_sources([c.source for c in cells], line_length)
    changed = 0
    for cell, new in sorted(zip(cells, formatted), key=lambda p: -p[0].start):
        if new is None:
            continue
        new = new if cell.source.endswith("\n") else new.rstrip("\n")
        if new != cell.source:
            changed += 1
            text = text[: cell.start] + new + text[cell.end :]
    return text, changed


def main(argv: list[str] | None = None) -> int:
    """Format (or with ``--check``, only report) the code cells of the given notebooks (default ``notebooks/*.md``)."""
    p = argparse.ArgumentParser(prog="python -m blindspot.book.notebook_format", description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", type=Path)
    p.add_argument(
        "--check", action="store_true", help="report the notebooks whose code ruff would change; change nothing"
    )
    a = p.parse_args(argv)
    files = a.files or sorted(Path("notebooks").glob("*.md"))
    dirty = 0
    for f in files:
        text = f.read_text()
        new, changed = format_notebook(text)
        if changed:
            dirty += 1
            if a.check:
                print(f"{f}: {changed} code cell(s) not formatted (python -m blindspot.book.notebook_format {f})")
            else:
                f.write_text(new)
                print(f"{f}: {changed} code cell(s) formatted")
    return 1 if (a.check and dirty) else 0


if __name__ == "__main__":
    sys.exit(main())
