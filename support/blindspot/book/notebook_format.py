"""The code a reader sees, formatted: ruff's formatter on every code cell of the chapters.

The support package is formatted to the project's 120 columns (``pyproject.toml``), read in an editor;
a chapter's code is read in the book, whose code column shows 88 characters at 1280 px (the book's
stylesheet, ``static/blindspot.css``, sizes the code cells' font for it; ``tests/book/test_browser.py``
measures it). So each code cell of ``notebooks/*.md`` is formatted by ``ruff format`` at
:data:`LINE_LENGTH`, cell by cell, and only the cell's source is rewritten in the MyST file (its options,
the markdown and the front matter are left byte for byte). Cells that ruff cannot format as Python (IPython magics, shell escapes) are left as
they are, and so is the ``parameters`` cell: the build reads it one ``name = value`` line per parameter
(:func:`blindspot.book.chapters.check_parameters_cell`).

ruff does not split a long string or comment, nor touch the parameters cell, so the lines it leaves
over :data:`LINE_LENGTH` in a cell a reader sees (every cell but those tagged ``remove-cell`` or
``remove-input``; a ``hide-input`` cell is shown when unfolded) are listed for wrapping by hand: put a
long parameter's comment on its own line above it, split a string into adjacent literals.

Run ``python -m blindspot.book.notebook_format --check [files]`` to list the cells ruff would change and
the shown lines that are too long (status 1 if any; ``make test`` runs it), or without ``--check`` to
rewrite the cells and list the lines left to wrap.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "LINE_LENGTH",
    "HIDDEN_TAGS",
    "CodeCell",
    "code_cells",
    "format_sources",
    "format_notebook",
    "long_lines",
    "main",
]

#: Characters per line of the code a reader sees.
LINE_LENGTH = 88
#: Cell tags under which the book shows no code (MyST-NB's; ``hide-input`` folds the code but shows it).
HIDDEN_TAGS = ("remove-cell", "remove-input")

_CELL = re.compile(r"^```\{code-cell\}[^\n]*\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
_OPTION = re.compile(r"^:[\w-]+:.*$")


@dataclass(frozen=True)
class CodeCell:
    """A code cell's source as it sits in the MyST file.

    ``start``/``end`` are offsets of the source in the file, ``line`` the file's line number of its
    first line, ``tags`` the cell's options as written (``:tags: [...]`` lines or a ``---`` YAML block).
    """

    start: int
    end: int
    source: str
    tags: str
    line: int = 1

    @property
    def shown(self) -> bool:
        """Whether the book shows this cell's code (it is not tagged ``remove-cell`` or ``remove-input``)."""
        return not any(tag in self.tags for tag in HIDDEN_TAGS)


def code_cells(text: str) -> list[CodeCell]:
    """The code cells of a jupytext MyST notebook, their options (``:tags:`` lines or a YAML block) excluded."""
    cells = []
    for m in _CELL.finditer(text):
        body, start = m.group("body"), m.start("body")
        lines = body.splitlines(keepends=True)
        n_opt = 0
        if lines and lines[0].rstrip("\n") == "---":  # a YAML block of options, up to the next '---'
            end = next((i for i in range(1, len(lines)) if lines[i].rstrip("\n") == "---"), None)
            n_opt = 0 if end is None else end + 1
        else:
            while n_opt < len(lines) and _OPTION.match(lines[n_opt].rstrip("\n")):
                n_opt += 1
        if n_opt and n_opt < len(lines) and not lines[n_opt].strip():
            n_opt += 1  # the blank line after the options
        head = "".join(lines[:n_opt])
        first = text.count("\n", 0, start + len(head)) + 1
        cells.append(CodeCell(start + len(head), m.end("body"), body[len(head) :], head, first))
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


def long_lines(text: str, line_length: int = LINE_LENGTH) -> list[tuple[int, int]]:
    """(line number in the file, length) of each line longer than ``line_length`` in a code cell the book shows."""
    out = []
    for cell in code_cells(text):
        if cell.shown:
            for i, line in enumerate(cell.source.splitlines()):
                if len(line) > line_length:
                    out.append((cell.line + i, len(line)))
    return out


def main(argv: list[str] | None = None) -> int:
    """Format (or with ``--check``, only report) the code cells of the given notebooks (default ``notebooks/*.md``).

    Either way, the lines still longer than :data:`LINE_LENGTH` in the code a reader sees are listed;
    ``--check`` exits with status 1 when a cell is not formatted or such a line remains.
    """
    p = argparse.ArgumentParser(prog="python -m blindspot.book.notebook_format", description=__doc__.splitlines()[0])
    p.add_argument("files", nargs="*", type=Path)
    p.add_argument(
        "--check",
        action="store_true",
        help="report the cells ruff would change and the shown lines over 88 characters; change nothing",
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
                text = new
        for line, length in long_lines(text):
            dirty += 1
            print(f"{f}:{line}: {length} characters, over {LINE_LENGTH}: wrap it by hand (a string, a comment)")
    return 1 if (a.check and dirty) else 0


if __name__ == "__main__":
    sys.exit(main())
