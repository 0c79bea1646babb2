"""A printable PDF of the book: the single-page HTML build, printed by headless Chromium.

jupyter-book's own ``pdfhtml`` builder downloads a browser (pyppeteer), which this project cannot
rely on; Debian's ``chromium`` package prints the same single page. MathJax is served from the
book itself, so the formulas are typeset before printing (Chromium waits on a virtual time budget).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

from blindspot.book.chapters import NotebookError

__all__ = ["find_chromium", "print_pdf", "CHROMIUM_FLAGS"]

#: Flags for a headless Chromium on a machine without a display or network.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def find_chromium() -> str | None:
    """The Chromium executable on PATH (``chromium``, ``chromium-browser``, ``google-chrome``), or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        exe = shutil.which(name)
        if exe:
            return exe
    return None


def print_pdf(page: Path, pdf: Path, budget_ms: int = 20000) -> Path:
    """Print the HTML file ``page`` to ``pdf`` with headless Chromium; return ``pdf``.

    Raises
    ------
    NotebookError
        When Chromium is missing (one line saying how to install it) or fails.
    """
    exe = find_chromium()
    if exe is None:
        raise NotebookError(
            "the PDF needs Chromium, which is not installed: on Debian/Ubuntu `apt-get install chromium`"
        )
    pdf.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            exe,
            *CHROMIUM_FLAGS,
            f"--user-data-dir={profile}",
            f"--virtual-time-budget={budget_ms}",
            "--no-pdf-header-footer",
            f"--print-to-pdf={pdf}",
            page.resolve().as_uri(),
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0 or not pdf.is_file() or pdf.stat().st_size == 0:
        raise NotebookError(f"Chromium could not print {page}: {proc.stderr.strip()[-2000:]}")
    return pdf
