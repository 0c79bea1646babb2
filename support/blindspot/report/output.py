"""Where the report goes: ``--out`` checked before any work, files staged and renamed into place.

:func:`stage_output` runs first, before the score file is read. It refuses (``ValueError``, one
line) an ``--out`` that is an existing file, lies under a file, has no parent folder, cannot be
written, or would overwrite the input; and it proves the parent writable by creating the staging
folder there (a hidden temporary folder beside ``--out``, so the final rename stays on one file
system).

:class:`StagedReport` writes ``report.json`` and ``report.html`` into that folder and only then
renames them into ``--out`` (:func:`os.replace`, atomic on POSIX). A full disk, an interrupt or
any error before :meth:`StagedReport.commit` removes the staging folder and leaves ``--out`` as it
was: no half-written report.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from blindspot.report.findings import Report
from blindspot.report.render import to_html

__all__ = ["REPORT_FILES", "StagedReport", "stage_output"]

REPORT_FILES = ("report.json", "report.html")


class StagedReport:
    """A staging folder beside ``out``; :meth:`commit` moves the finished files into ``out``."""

    def __init__(self, out: Path, staging: Path):
        self.out = out
        self.staging = staging

    def write(self, rep: Report) -> None:
        """Write both files into the staging folder (nothing in ``out`` changes yet)."""
        (self.staging / "report.json").write_text(json.dumps(rep.as_json(), indent=1, sort_keys=True))
        (self.staging / "report.html").write_text(to_html(rep))

    def commit(self) -> tuple[Path, Path]:
        """Rename the staged files into ``out`` (created if absent); return the HTML and JSON paths."""
        if not self.out.exists():
            os.rename(self.staging, self.out)
        else:
            for name in REPORT_FILES:
                os.replace(self.staging / name, self.out / name)
            self.discard()
        return self.out / "report.html", self.out / "report.json"

    def discard(self) -> None:
        """Remove the staging folder and whatever is in it."""
        shutil.rmtree(self.staging, ignore_errors=True)


def _under_a_file(p: Path) -> Path | None:
    for parent in [p, *p.parents]:
        if parent.exists() and not parent.is_dir():
            return parent
    return None


def stage_output(out: str | os.PathLike, inputs: tuple[str | os.PathLike, ...] = ()) -> StagedReport:
    """Validate ``--out`` and create the staging folder beside it (see the module docstring).

    Raises
    ------
    ValueError
        One line saying what is wrong with ``--out`` and what to do.
    """
    raw = str(out)
    p = Path(out).expanduser()
    if raw.strip() == "":
        raise ValueError("--out is empty; name a folder for report.html and report.json")
    p = Path(os.path.abspath(p))
    blocker = _under_a_file(p)
    if blocker is not None and blocker == p:
        raise ValueError(f"--out {raw!r} is an existing file; name a folder (report.html and report.json go inside it)")
    if blocker is not None:
        raise ValueError(f"--out {raw!r} lies under {str(blocker)!r}, which is a file, not a folder")
    for src in inputs:
        s = Path(os.path.abspath(Path(src).expanduser()))
        if s == p or s.parent == p and s.name in REPORT_FILES:
            raise ValueError(f"--out {raw!r} would overwrite the input file {str(src)!r}; choose another folder")
    parent = p.parent
    if not parent.is_dir():
        raise ValueError(f"--out {raw!r}: the folder {str(parent)!r} does not exist; create it first")
    if p.exists() and not os.access(p, os.W_OK | os.X_OK):
        raise ValueError(f"--out {raw!r} is a folder you cannot write to")
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{p.name}.", suffix=".partial", dir=parent))
    except OSError as exc:
        raise ValueError(f"--out {raw!r}: cannot write in {str(parent)!r} ({exc.strerror or exc})") from exc
    return StagedReport(p, staging)
