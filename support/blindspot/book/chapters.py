"""The book's chapters as sources: the table of contents, the jupytext notebooks, their parameters.

Each chapter listed in ``_toc.yml`` as ``book/chapters/<stem>`` has its source at
``notebooks/<stem>.md`` (jupytext MyST). A chapter declares its parameters in one cell tagged
``parameters`` (papermill's convention) and, when it cannot run on a single score matrix, says
what it needs in its front matter::

    blindspot:
      needs: several leaderboards of the same models (the paper's OLLM v1 and v2)
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import jupytext
import nbformat
import yaml
from papermill.translators import PythonTranslator

__all__ = [
    "CHAPTER_PREFIX",
    "NotebookError",
    "project_root",
    "toc_entries",
    "toc_chapters",
    "read_chapter",
    "declared_parameters",
    "check_parameters_cell",
    "chapter_title",
    "chapter_embeds",
    "chapter_needs",
    "fold_parameters",
]

CHAPTER_PREFIX = "book/chapters/"


class NotebookError(RuntimeError):
    """A chapter could not be read or executed; the message names it (and carries the cell's traceback)."""


def project_root() -> Path:
    """The project's root: the folder holding ``_toc.yml`` (this package lives in ``support/``)."""
    here = Path(__file__).resolve().parents[3]
    if (here / "_toc.yml").is_file():
        return here
    cwd = Path.cwd()
    if (cwd / "_toc.yml").is_file():
        return cwd
    raise NotebookError("cannot find the project root (a folder with _toc.yml); run from the project folder")


def toc_entries(node: object) -> Iterator[dict]:
    """Every entry (a mapping) of a jupyter-book table of contents, or of a part of one, in reading order.

    An entry comes before the entries nested in it (a part before its chapters, a chapter before its
    sections); an entry with a ``file`` is a page. The one walk of the toc: the chapters to execute, the
    pages to render and print, an edition's copy of the toc and the parts of the ledger all read it.

    Parameters
    ----------
    node : object
        The parsed ``_toc.yml`` (``yaml.safe_load``), or any mapping or list inside it.

    Yields
    ------
    dict
        Each entry, the same object as in ``node`` (so a caller may rewrite its ``file``).
    """
    if isinstance(node, dict):
        yield node
        for child in node.values():
            yield from toc_entries(child)
    elif isinstance(node, list):
        for child in node:
            yield from toc_entries(child)


def toc_chapters(root: Path) -> list[str]:
    """Stems of the executed chapters listed in ``_toc.yml`` (entries under ``book/chapters/``), in order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = [toc.get("root", "")] + [str(e["file"]) for e in toc_entries(toc) if "file" in e]
    stems = [f[len(CHAPTER_PREFIX) :].removesuffix(".ipynb") for f in files if f.startswith(CHAPTER_PREFIX)]
    for s in stems:
        if not (root / "notebooks" / f"{s}.md").is_file():
            raise NotebookError(f"_toc.yml lists {CHAPTER_PREFIX}{s} but notebooks/{s}.md does not exist")
    return stems


def read_chapter(path: Path) -> nbformat.NotebookNode:
    """The chapter's notebook, as jupytext reads it from its MyST source."""
    try:
        return jupytext.read(path)
    except Exception as exc:  # jupytext raises various parse errors; name the file
        raise NotebookError(f"cannot read {path}: {exc}") from None


def _parameters_cell(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise NotebookError(f"notebook {name} must have exactly one cell tagged 'parameters', found {len(cells)}")
    return cells[0]


def declared_parameters(nb: nbformat.NotebookNode, name: str = "notebook") -> dict[str, str]:
    """{parameter: default source text} of the ``parameters`` cell, as papermill reads it."""
    cell = _parameters_cell(nb, name)
    return {p.name: p.default for p in PythonTranslator.inspect(cell)}


def check_parameters_cell(nb: nbformat.NotebookNode, name: str) -> dict[str, str]:
    """Every ``name = value`` line of the parameters cell must be understood by papermill.

    papermill silently skips a line it cannot parse (e.g. one whose comment contains '='), and a
    skipped parameter would then never be injected: fail loudly instead. Returns the declared parameters.
    """
    declared = declared_parameters(nb, name)
    assigned = re.findall(r"^([A-Za-z_]\w*)\s*=", _parameters_cell(nb, name).source, flags=re.M)
    missed = [a for a in assigned if a not in declared]
    if missed:
        raise NotebookError(
            f"notebook {name}: papermill cannot parse the parameters {missed} (a comment containing '=' is the usual "
            f"cause); rewrite those lines"
        )
    return declared


def chapter_title(nb: nbformat.NotebookNode) -> str:
    """The chapter's H1 title (MyST roles and math stripped of their markup)."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = re.search(r"^# (.+)$", cell.source, flags=re.M)
            if m:
                return re.sub(r"\{\w+\}`([^`<]*)(?:<[^>]*>)?`", r"\1", m.group(1)).strip()
    return ""


def chapter_runs_long(nb: nbformat.NotebookNode) -> bool:
    """Whether the front matter says ``blindspot.long_running: true`` (the build starts such chapters first)."""
    return bool((nb.metadata.get("blindspot") or {}).get("long_running", False))


def chapter_embeds(nb: nbformat.NotebookNode) -> str:
    """The embedding pool the chapter reads (front matter ``blindspot.embeds``, e.g. ``alpaca_eval``), or ''.

    The build embeds each named pool once, on every core, before such chapters run (:mod:`blindspot.book.warmup`)."""
    return str((nb.metadata.get("blindspot") or {}).get("embeds", "")).strip()


def chapter_needs(nb: nbformat.NotebookNode) -> str:
    """What the chapter needs beyond one score matrix (front matter ``blindspot.needs``), or ''."""
    return str((nb.metadata.get("blindspot") or {}).get("needs", "")).strip()


def fold_parameters(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Fold papermill's injected-parameters cell into the chapter's parameters cell.

    The parameters cell then shows the values this build used: each assignment to an injected
    parameter, one line or several (a list wrapped over lines), becomes ``name = value`` and keeps
    the comment on its last line; comment lines above it stay. The injected cell is removed, so a
    reader sees one parameters cell. A parameters cell that is not valid Python is left unfolded.
    """
    injected = [c for c in nb.cells if "injected-parameters" in c.get("metadata", {}).get("tags", [])]
    if not injected:
        return nb
    values = dict(re.findall(r"^([A-Za-z_]\w*) = (.*)$", injected[0].source, flags=re.M))
    params = next(c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", []))
    lines = params.source.split("\n")
    try:
        statements = ast.parse(params.source).body
    except SyntaxError:
        return nb
    for st in reversed(statements):  # from the bottom, so the line numbers above stay valid
        if not (isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name)):
            continue
        name = st.targets[0].id
        if name not in values or st.end_lineno is None:
            continue
        rest = lines[st.end_lineno - 1].encode()[st.end_col_offset :].decode().strip()  # the offset counts bytes
        comment = f"  {rest}" if rest.startswith("#") else ""
        lines[st.lineno - 1 : st.end_lineno] = [f"{name} = {values[name]}{comment}"]
    params.source = "\n".join(lines)
    nb.cells = [c for c in nb.cells if c is not injected[0]]
    return nb
