"""Chapters on a kept kernel: each one starts from the state a fresh kernel has, and workers side by side.

The build runs chapter after chapter on one kernel per worker (``blindspot.book.kernel``); these tests
hold it to the promise that a chapter cannot tell: what one chapter changes does not reach the next,
the modules recorded for the cache are the chapter's own, a crashed kernel is replaced, and a real
chapter gives the same outputs as on a fresh kernel.
"""

from __future__ import annotations

import json
import os
import re
import textwrap
import threading
import time
from pathlib import Path

import nbformat
import pytest

from blindspot.book.chapters import NotebookError, project_root
from blindspot.book.execute import execute_notebook
from blindspot.book.kernel import ChapterKernel
from blindspot.book.workers import THREAD_VARIABLES, ChapterTask, execute_side_by_side, kernel_environment

ROOT = project_root()


def _nb(path: Path, *cells: str) -> Path:
    """``path``.ipynb (jupytext reads it as it reads a chapter's source): a parameters cell, then ``cells``."""
    code = nbformat.v4.new_code_cell
    nb = nbformat.v4.new_notebook(
        cells=[code("quick = False", metadata={"tags": ["parameters"]})]
        + [code(textwrap.dedent(c).strip()) for c in cells],
        metadata={"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    )
    path = path.with_name(path.name + ".ipynb")
    nbformat.write(nb, path)
    return path


def _last_text(out: Path) -> str:
    return nbformat.read(out, as_version=4).cells[-1].outputs[0]["text"]


# The state a fresh kernel has, as this cell sees it (printed as JSON).
_OBSERVE = """
import json, os, sys, warnings
import matplotlib, numpy as np
print(json.dumps({
    "leftover": "leftover" in globals(),
    "support_loaded": sorted(m for m in sys.modules if m.split(".")[0] in ("blindspot", "dkps")),
    "backend": matplotlib.get_backend(),
    "figsize": list(matplotlib.rcParams["figure.figsize"]),
    "grid": bool(matplotlib.rcParams["axes.grid"]),
    "legacy": str(np.get_printoptions()["legacy"]),
    "divide": np.geterr()["divide"],
    "env": os.environ.get("BLINDSPOT_LEFTOVER"),
    "path": "/leftover" in sys.path,
    "cwd": os.getcwd(),
    "filters": len(warnings.filters),
    "figures": len(__import__("matplotlib.pyplot").pyplot.get_fignums()),
}))
"""

# Everything a chapter could leave behind.
_MESS = """
import os, sys, warnings
import matplotlib, matplotlib.pyplot as plt, numpy as np
from blindspot.core import theme
theme.use_theme()  # seaborn's rcParams, numpy's legacy printing, the PNG formatter
import blindspot.prognose.figures  # switches pyplot to Agg
leftover = 1
plt.figure()
matplotlib.rcParams["figure.figsize"] = (1.0, 1.0)
np.seterr(divide="raise")
os.environ["BLINDSPOT_LEFTOVER"] = "1"
sys.path.append("/leftover")
os.chdir("/")
warnings.simplefilter("ignore")
"""


def test_a_chapter_on_a_kept_kernel_sees_a_fresh_kernel(tmp_path):
    observe, mess = _nb(tmp_path / "observe", _OBSERVE), _nb(tmp_path / "mess", _MESS)
    with ChapterKernel(ROOT) as kernel:
        execute_notebook(observe, tmp_path / "fresh.ipynb", {}, ROOT, kernel=kernel)
        execute_notebook(mess, tmp_path / "mess.ipynb", {}, ROOT, kernel=kernel)
        execute_notebook(observe, tmp_path / "after.ipynb", {}, ROOT, kernel=kernel)
        assert kernel.chapters == 3
    fresh, after = json.loads(_last_text(tmp_path / "fresh.ipynb")), json.loads(_last_text(tmp_path / "after.ipynb"))
    assert after == fresh
    assert fresh["cwd"] == str(ROOT) and not fresh["leftover"] and fresh["support_loaded"] == []
    assert "inline" in fresh["backend"]  # what the chapter after the Agg switch gets back, too
    counts = [
        c.execution_count for c in nbformat.read(tmp_path / "after.ipynb", as_version=4).cells if c.cell_type == "code"
    ]
    assert counts[0] == 1  # no bookkeeping cell is left, and the counter started again


def test_the_modules_recorded_are_the_chapters_own(tmp_path):
    uses = _nb(tmp_path / "uses", "from blindspot.core import spectrum")
    plain = _nb(tmp_path / "plain", "x = 1")
    with ChapterKernel(ROOT) as kernel:
        first = execute_notebook(uses, tmp_path / "a.ipynb", {}, ROOT, kernel=kernel)
        second = execute_notebook(plain, tmp_path / "b.ipynb", {}, ROOT, kernel=kernel)
    assert any(m.endswith("blindspot/core/spectrum.py") for m in first.modules)
    assert second.modules == []  # imported by the chapter before, not by this one: it does not depend on it


def test_a_failing_or_crashing_chapter_leaves_the_next_one_alone(tmp_path):
    fails = _nb(tmp_path / "fails", "raise ValueError('deliberate')")
    crashes = _nb(tmp_path / "crashes", "import os\nos._exit(3)")
    ok = _nb(tmp_path / "ok", "print(6 * 7)")
    with ChapterKernel(ROOT) as kernel:
        with pytest.raises(NotebookError, match=r"fails\.ipynb failed in cell \d+: ValueError: deliberate"):
            execute_notebook(fails, tmp_path / "f.ipynb", {}, ROOT, kernel=kernel)
        execute_notebook(ok, tmp_path / "ok1.ipynb", {}, ROOT, kernel=kernel)
        with pytest.raises(NotebookError, match=r"crashes\.ipynb: the kernel died"):
            execute_notebook(crashes, tmp_path / "c.ipynb", {}, ROOT, kernel=kernel)
        execute_notebook(ok, tmp_path / "ok2.ipynb", {}, ROOT, kernel=kernel)  # on a kernel started again
    assert _last_text(tmp_path / "ok1.ipynb") == _last_text(tmp_path / "ok2.ipynb") == "42\n"


def test_kernels_side_by_side_get_one_math_thread_each(monkeypatch, tmp_path):
    for name in THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    assert all(kernel_environment(2)[name] == "1" for name in THREAD_VARIABLES)
    assert "OMP_NUM_THREADS" not in kernel_environment(1)  # one chapter at a time keeps every core
    assert kernel_environment(2, {"OMP_NUM_THREADS": "2"})["OMP_NUM_THREADS"] == "2"  # the caller's choice stands
    src = _nb(tmp_path / "threads", "import os\nprint(os.environ.get('OPENBLAS_NUM_THREADS'))")
    tasks = [ChapterTask(f"t{i}", src, tmp_path / f"t{i}.ipynb") for i in range(3)]
    outcomes = dict(execute_side_by_side(tasks, 2, ROOT))
    assert sorted(outcomes) == ["t0", "t1", "t2"]
    assert {_last_text(tmp_path / f"t{i}.ipynb") for i in range(3)} == {"1\n"}


def test_side_by_side_reports_a_failing_chapter_and_runs_the_others(tmp_path):
    ok, fails = _nb(tmp_path / "ok", "print('ok')"), _nb(tmp_path / "fails", "1 / 0")
    tasks = [ChapterTask("fails", fails, tmp_path / "f.ipynb"), ChapterTask("ok", ok, tmp_path / "o.ipynb")]
    outcomes = dict(execute_side_by_side(tasks, 1, ROOT))
    assert isinstance(outcomes["fails"], NotebookError) and "ZeroDivisionError" in str(outcomes["fails"])
    assert outcomes["ok"].seconds > 0 and _last_text(tmp_path / "o.ipynb") == "ok\n"


def _comparable(nb: nbformat.NotebookNode) -> list:
    """Cell sources and outputs, without what changes from run to run (timings, pandas Styler's random ids)."""
    rows = []
    for cell in nb.cells:
        outputs = json.dumps(cell.get("outputs", []), sort_keys=True)
        rows.append((cell.source, cell.get("execution_count"), re.sub(r"T_[0-9a-f]{5}", "T_id", outputs)))
    return rows


@pytest.mark.pipeline
def test_a_real_chapter_gives_the_same_notebook_as_on_a_fresh_kernel(tmp_path):
    """Chapter 09 (tables, a figure, glued numbers, ledger claims) after chapter 15 on one kernel, against
    chapter 09 alone on a fresh one: the same cells, outputs and figures, byte for byte."""
    src = ROOT / "notebooks" / "09_rank_equivalence_classes.md"
    params = {"quick": True, "ledger_dir": str(tmp_path / "ledger")}
    execute_notebook(src, tmp_path / "fresh.ipynb", params, ROOT)
    with ChapterKernel(ROOT) as kernel:
        before = ROOT / "notebooks" / "15_stable_core.md"
        execute_notebook(
            before, tmp_path / "before.ipynb", {**params, "ledger_dir": str(tmp_path / "l2")}, ROOT, kernel=kernel
        )
        execute_notebook(src, tmp_path / "kept.ipynb", params, ROOT, kernel=kernel)
    fresh, kept = (nbformat.read(tmp_path / f, as_version=4) for f in ("fresh.ipynb", "kept.ipynb"))
    assert _comparable(kept) == _comparable(fresh)
    assert any("image/png" in json.dumps(c.get("outputs", [])) for c in fresh.cells)  # a figure was compared


def test_stopping_early_interrupts_the_chapters_still_running(tmp_path):
    """A failing chapter ends the main build: the chapter running beside it is interrupted, not waited for."""
    fails, sleeps = _nb(tmp_path / "fails", "1 / 0"), _nb(tmp_path / "sleeps", "import time\ntime.sleep(120)")
    tasks = [ChapterTask("sleeps", sleeps, tmp_path / "s.ipynb"), ChapterTask("fails", fails, tmp_path / "f.ipynb")]
    t0 = time.perf_counter()
    outcomes = execute_side_by_side(tasks, 2, ROOT)
    stem, outcome = next(outcomes)
    assert stem == "fails" and isinstance(outcome, NotebookError)
    outcomes.close()
    assert time.perf_counter() - t0 < 60  # the two minutes of sleep were cut short


def test_a_lost_interrupt_is_sent_again_until_the_chapter_stops(tmp_path):
    """The chapter beside a failing one swallows the first interrupt (as one reaching a kernel between two
    cells is lost): the build interrupts it again instead of waiting out its two minutes."""
    fails = _nb(tmp_path / "fails", "import time\ntime.sleep(1)\n1 / 0")
    stubborn = _nb(
        tmp_path / "stubborn",
        "import time\ntry:\n    time.sleep(120)\nexcept KeyboardInterrupt:\n    time.sleep(120)",
    )
    tasks = [ChapterTask("stubborn", stubborn, tmp_path / "s.ipynb"), ChapterTask("fails", fails, tmp_path / "f.ipynb")]
    t0 = time.perf_counter()
    outcomes = execute_side_by_side(tasks, 2, ROOT)
    stem, outcome = next(outcomes)
    assert stem == "fails" and isinstance(outcome, NotebookError)
    outcomes.close()
    assert time.perf_counter() - t0 < 60  # not 120 s after the first interrupt


def test_the_quiet_profile_is_written_safely_by_workers_at_once(monkeypatch, tmp_path):
    """The chapter workers of one build are threads of one process and may all write the profile first:
    each writes a file of its own and renames it into place. The rename waits until every worker has
    written, the interleaving that made a fresh-clone build fail (the first rename moved the one file
    that all of them had named after the process id, and the others' renames found nothing)."""
    from blindspot.book import kernel

    monkeypatch.setattr(kernel.tempfile, "gettempdir", lambda: str(tmp_path))
    n = 4
    barrier = threading.Barrier(n, timeout=10)
    rename = os.replace

    def rename_after_all_wrote(src, dst):
        barrier.wait()
        return rename(src, dst)

    monkeypatch.setattr(os, "replace", rename_after_all_wrote)
    results, errors = [], []

    def work():
        try:
            results.append(kernel.quiet_profile())
        except Exception as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert results == [tmp_path / "blindspot-kernel-profile"] * n
    config = tmp_path / "blindspot-kernel-profile" / "profile_default" / "ipython_kernel_config.py"
    assert config.read_text() == 'c.IPKernelApp.log_level = "CRITICAL"\n'
    assert sorted(p.name for p in config.parent.iterdir()) == [config.name]  # no file left behind
