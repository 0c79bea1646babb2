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

__all__ = ["render_html"]


def render_html(root: Path, toc: Path, html: Path, strict: bool = True, builder: str = "html") -> Path:
    """Build ``html`` (a folder) from the sources under ``root`` listed in ``toc``; return ``html``.

    Raises
    ------
    NotebookError
        With Sphinx's messages when the build fails (any warning, when ``strict``).
    """
    cmd = [sys.executable, "-m", "blindspot.book.render", str(root), str(toc), str(html), "--builder", builder]
    if strict:
        cmd.append("--strict")
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    if proc.returncode != 0:
        raise NotebookError(
            "jupyter-book build failed" + (" (warnings are errors)" if strict else "") + ":\n"
            + proc.stdout[-6000:] + proc.stderr[-6000:]
        )
    return html


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
