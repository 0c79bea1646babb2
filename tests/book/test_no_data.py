"""The book on a machine with no data: every chapter runs on the synthetic stand-in and says so.

The build runs in a copy of the project (as a fresh clone would be, so nothing of the other pipeline
tests' executed chapters is touched) with ``$BLINDSPOT_DATA`` set to an empty directory: the documented
way to say "no data here" whatever sits beside the clone (an explicit ``$BLINDSPOT_DATA`` is used as it
is and nothing is fetched).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from blindspot.book.chapters import project_root, toc_chapters
from blindspot.book.claims import load_registry
from blindspot.book.ledger import NOT_HERE, REPRODUCED, SYNTHETIC_REASON

pytestmark = pytest.mark.pipeline

ROOT = project_root()
#: What a page on the stand-in shows (blindspot.book.display.synthetic_note).
WARNING_BOX = "**Synthetic data.** No data directory was found"


@pytest.fixture(scope="module")
def no_data_book(tmp_path_factory):
    """The quick edition built in a copy of the project with an empty data directory: (copy, ledger rows, stdout)."""
    base = tmp_path_factory.mktemp("nodata")
    proj = base / "clone"
    keep = ("support", "notebooks", "book", "_config.yml", "_toc.yml")
    for name in keep:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, proj / name, ignore=shutil.ignore_patterns("__pycache__", "editions", "chapters"))
        else:
            shutil.copy2(src, proj / name)
    empty = base / "empty-data"
    empty.mkdir()
    env = {**os.environ, "BLINDSPOT_DATA": str(empty), "PYTHONPATH": str(proj / "support")}
    env.pop("BLINDSPOT_CACHE", None)
    run = subprocess.run(
        [sys.executable, "-m", "blindspot", "book", "--quick", "--no-html", "--out", str(base / "out")],
        cwd=proj,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    rows = json.loads((base / "out" / "ledger.json").read_text())
    return proj, rows, run.stdout


def test_every_chapter_runs_without_data(no_data_book):
    proj, rows, stdout = no_data_book
    stems = toc_chapters(proj)
    executed = {p.stem for p in (proj / "book" / "editions" / "quick").glob("*.ipynb")}
    assert executed == set(stems)
    assert f"executed {len(stems)} chapter(s)" in stdout


def test_each_page_on_the_stand_in_shows_its_warning_box(no_data_book):
    proj, rows, _ = no_data_book
    on_stand_in = {r["chapter"] for r in rows if SYNTHETIC_REASON in r["evidence"]}
    assert len(on_stand_in) >= 20  # the chapters that read a leaderboard
    for stem in sorted(on_stand_in):
        nb = nbformat.read(proj / "book" / "editions" / "quick" / f"{stem}.ipynb", as_version=4)
        shown = [
            o.get("data", {}).get("text/markdown", "")
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.get("outputs", [])
        ]
        assert any(WARNING_BOX in s for s in shown), f"{stem} ran on the stand-in but shows no warning box"


def test_no_claim_that_needs_the_papers_data_is_reproduced(no_data_book):
    """Only what needs no data (a closed form, a construction, a simulation of the paper's own setting) can be
    reproduced here; every claim about a suite, or computed from data, is not reproducible here."""
    proj, rows, _ = no_data_book
    reg = load_registry(proj)
    assert len(rows) == len(reg)
    for r in rows:
        spec = reg[r["id"]]
        if spec.suites or r["dataset"]:
            assert r["status"] == NOT_HERE, (r["id"], r["status"], r["evidence"])
    assert any(r["status"] == REPRODUCED for r in rows)  # the data-free claims still are
    assert sum(r["status"] == NOT_HERE for r in rows) > 0.8 * len(rows)
