"""Render executed chapters to HTML with jupyter-book's Sphinx build, pointed at a toc and the config.

The sources stay where they are (the project root, ``_config.yml``, the hand-written pages under
``book/``); an edition differs only by its table of contents and its output folder, so nothing is
copied. Sphinx runs in a child process (``python -m blindspot.book.render``) so that its global
state and its messages stay out of the build's process; with ``strict`` every warning is an error.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from jupyter_book.sphinx import build_sphinx

from blindspot.book.chapters import NotebookError

__all__ = ["render_html", "render_many"]


def render_html(root: Path, toc: Path, html: Path, strict: bool = True, builder: str = "html") -> Path:
    """Build ``html`` (a folder) from the sources under ``root`` listed in ``toc``; return ``html``.

    Raises
    ------
    NotebookError
        With Sphinx's messages when the build fails (any warning, when ``strict``).
    """
    return render_many(root, [(toc, html, strict)], builder)[0]


def render_many(root: Path, editions: list[tuple[Path, Path, bool]], builder: str = "html") -> list[Path]:
    """Render several editions at once, one Sphinx process each: ``(toc, html, strict)`` per edition.

    Sphinx reads and writes on one core; two editions (the book and its student edition) rendered side by
    side take the time of the longer one on a machine with two cores.
    """
    procs = []
    for toc, html, strict in editions:
        cmd = [sys.executable, "-m", "blindspot.book.render", str(root), str(toc), str(html), "--builder", builder]
        if strict:
            cmd.append("--strict")
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=root))
    outputs = [p.communicate() for p in procs]
    for (toc, html, strict), p, (out, err) in zip(editions, procs, outputs):
        if p.returncode != 0:
            raise NotebookError(
                f"jupyter-book build of {html} failed" + (" (warnings are errors)" if strict else "") + ":\n"
                + out[-6000:] + err[-6000:]
            )
    return [html for _, html, _ in editions]


def _main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m blindspot.book.render")
    p.add_argument("root")
    p.add_argument("toc")
    p.add_argument("html")
    p.add_argument("--builder", default="html")
    p.add_argument("--strict", action="store_true")
    a = p.parse_args(argv)
    root = Path(a.root).resolve()
    result = build_sphinx(
        root,
        Path(a.html).resolve(),
        use_external_toc=True,
        noconfig=True,
        path_config=str(root / "_config.yml"),
        confoverrides={"external_toc_path": Path(a.toc).resolve().as_posix(), "latex_individualpages": False},
        builder=a.builder,
        warningiserror=a.strict,
        keep_going=a.strict,
        quiet=True,
    )
    return 0 if result == 0 else 1


if __name__ == "__main__":
    sys.exit(_main())
