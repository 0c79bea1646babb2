"""Render executed chapters to HTML with jupyter-book's Sphinx build, pointed at a toc and the config.

The sources stay where they are (the project root, ``_config.yml``, the hand-written pages under
``book/``); an edition differs only by its table of contents, its ledger and its output folder, so
nothing is copied. Sphinx runs in a child process (``python -m blindspot.book.render``) so that its
global state and its messages stay out of the build's process; with ``strict`` every warning is an
error.

An edition whose inputs have not changed since its last render is not rendered again: the render
writes a fingerprint of everything Sphinx reads (:func:`render_inputs`) into the output folder, and
the next render with the same fingerprint returns at once. An unchanged rebuild (``blindspot book``
after ``blindspot book``, or before ``--pdf``) then takes seconds, not Sphinx's minute.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import yaml
from jupyter_book.sphinx import build_sphinx

from blindspot.book.chapters import NotebookError, toc_entries

__all__ = ["Render", "render_html", "render_many", "render_inputs", "STAMP"]

#: The file in an output folder that holds the fingerprint of the inputs it was rendered from.
STAMP = ".blindspot-render"
#: Installed distributions whose version changes what Sphinx writes.
_RENDERERS = ("jupyter-book", "sphinx", "myst-nb", "myst-parser", "sphinx-book-theme", "pydata-sphinx-theme")
#: The book's own modules that Sphinx runs (the extension and what it renders).
_OWN = ("sphinx_ext.py", "landing_page.py", "claim_tables.py", "ledger_page.py", "claims.py", "ledger.py", "static")


@dataclass(frozen=True)
class Render:
    """One edition to render: its toc, its output folder, whether warnings are errors, its ledger."""

    toc: Path
    html: Path
    strict: bool = True
    ledger: Path | None = None


def _toc_files(root: Path, toc: Path) -> list[Path]:
    doc = yaml.safe_load(toc.read_text()) or {}
    names = [str(doc.get("root", ""))] + [e["file"] for e in toc_entries(doc) if isinstance(e.get("file"), str)]
    files = []
    for name in names:
        for suffix in ("", ".md", ".ipynb"):
            p = root / (name + suffix)
            if p.is_file():
                files.append(p)
                break
    return files


def render_inputs(root: Path, toc: Path, ledger: Path | None = None, builder: str = "html") -> str:
    """A fingerprint of everything a render reads: the toc and every page it lists, ``_config.yml``, the
    hand-written files under ``book/``, the ledger, the book's Sphinx extension and stylesheet, and the
    versions of the renderers (a content hash, so a file rewritten unchanged keeps it).

    Parameters
    ----------
    root : path
        The project root.
    toc : path
        The edition's table of contents.
    ledger : path, optional
        The edition's ``ledger.json``.
    builder : str
        Sphinx's builder (``html``, ``singlehtml``).

    Returns
    -------
    str
        A hex digest.
    """
    root = root.resolve()
    files = {toc.resolve(), root / "_config.yml", *(p.resolve() for p in _toc_files(root, toc))}
    for p in (root / "book").rglob("*"):
        rel = p.relative_to(root / "book").parts
        if p.is_file() and rel[0] not in ("chapters", "editions"):
            files.add(p)
    here = Path(__file__).parent
    for name in _OWN:
        p = here / name
        files.update(q for q in ([p] if p.is_file() else p.rglob("*")) if q.is_file())
    if ledger is not None and ledger.is_file():
        files.add(ledger.resolve())
    h = hashlib.sha256(f"{builder}\n".encode())
    for name in _RENDERERS:
        try:
            h.update(f"{name}={metadata.version(name)}\n".encode())
        except metadata.PackageNotFoundError:
            h.update(f"{name}=-\n".encode())
    for p in sorted(files):
        h.update(str(p).encode() + b"\n")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


def render_html(
    root: Path, toc: Path, html: Path, strict: bool = True, builder: str = "html", ledger: Path | None = None
) -> Path:
    """Build ``html`` (a folder) from the sources under ``root`` listed in ``toc``; return ``html``.

    Raises
    ------
    NotebookError
        With Sphinx's messages when the build fails (any warning, when ``strict``).
    """
    return render_many(root, [Render(toc, html, strict, ledger)], builder)[0]


def render_many(root: Path, editions: list[Render], builder: str = "html") -> list[Path]:
    """Render several editions at once, one Sphinx process each; an edition whose inputs are unchanged since
    its last render (:func:`render_inputs`) is skipped.

    Sphinx reads and writes on one core; two editions (the book and its student edition) rendered side by
    side take the time of the longer one on a machine with two cores.
    """
    procs = []
    for ed in editions:
        stamp = ed.html / STAMP
        key = render_inputs(root, ed.toc, ed.ledger, builder)
        if stamp.is_file() and stamp.read_text() == key:
            continue
        stamp.unlink(missing_ok=True)
        cmd = [
            sys.executable,
            "-m",
            "blindspot.book.render",
            str(root),
            str(ed.toc),
            str(ed.html),
            "--builder",
            builder,
        ]
        if ed.strict:
            cmd.append("--strict")
        if ed.ledger is not None:
            cmd += ["--ledger", str(ed.ledger)]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root)
        procs.append((ed, key, proc))
    outputs = [(ed, key, p, p.communicate()) for ed, key, p in procs]
    for ed, key, p, (out, err) in outputs:
        if p.returncode != 0:
            raise NotebookError(
                f"jupyter-book build of {ed.html} failed"
                + (" (warnings are errors)" if ed.strict else "")
                + ":\n"
                + out[-6000:]
                + err[-6000:]
            )
        (ed.html / STAMP).write_text(key)
    return [ed.html for ed in editions]


def _main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m blindspot.book.render")
    p.add_argument("root")
    p.add_argument("toc")
    p.add_argument("html")
    p.add_argument("--builder", default="html")
    p.add_argument("--strict", action="store_true")
    p.add_argument("--ledger", default="", help="the edition's ledger.json (the landing page's findings)")
    a = p.parse_args(argv)
    root = Path(a.root).resolve()
    overrides = {"external_toc_path": Path(a.toc).resolve().as_posix(), "latex_individualpages": False}
    if a.ledger:
        overrides["blindspot_ledger"] = Path(a.ledger).resolve().as_posix()
    result = build_sphinx(
        root,
        Path(a.html).resolve(),
        use_external_toc=True,
        noconfig=True,
        path_config=str(root / "_config.yml"),
        confoverrides=overrides,
        builder=a.builder,
        warningiserror=a.strict,
        keep_going=a.strict,
        quiet=True,
    )
    return 0 if result == 0 else 1


if __name__ == "__main__":
    sys.exit(_main())
