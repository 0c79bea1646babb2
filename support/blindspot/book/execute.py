"""Execute one chapter: papermill runs the notebook node jupytext read, parameters injected.

Only the parameters that the chapter's ``parameters`` cell declares are injected. The chapter runs on
a :class:`~blindspot.book.kernel.ChapterKernel` (the build's, kept from chapter to chapter, or one
started for it alone). Two bookkeeping cells are added by the build and removed again: a first one
that gives the chapter a fresh kernel state and tells it its name (the ledger reads it, so no notebook
types its own file name), and a last one that reports which ``blindspot`` / ``dkps`` modules the
chapter imported (for the chapter cache). After the run, papermill's
injected-parameters cell is folded into the parameters cell (a reader sees the values this build used).
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import papermill as pm
from nbclient.exceptions import DeadKernelError

from blindspot.book.chapters import NotebookError, check_parameters_cell, fold_parameters, read_chapter
from blindspot.book.kernel import ENGINE, PROBE_MARK, PROBE_TAG, RESET_TAG, ChapterKernel, probe_cell, reset_cell
from blindspot.book.ledger import CHAPTER_ENV

__all__ = ["Executed", "start_cell", "execute_notebook", "write_if_changed"]

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass(frozen=True)
class Executed:
    seconds: float
    modules: list[str]


def _tagged(cell: nbformat.NotebookNode, tag: str) -> bool:
    return tag in cell.get("metadata", {}).get("tags", [])


def _modules_and_strip(nb: nbformat.NotebookNode) -> list[str]:
    """The modules the probe cell reported; both bookkeeping cells are removed."""
    modules: list[str] = []
    for cell in nb.cells:
        if _tagged(cell, PROBE_TAG):
            for out in cell.get("outputs", []):
                text = out.get("text", "")
                if text.startswith(PROBE_MARK):
                    modules = json.loads(text[len(PROBE_MARK) :])
    nb.cells = [c for c in nb.cells if not (_tagged(c, PROBE_TAG) or _tagged(c, RESET_TAG))]
    return modules


def start_cell(support: Path, cwd: Path, stem: str) -> nbformat.NotebookNode:
    """The first cell: a fresh kernel state (:func:`~blindspot.book.kernel.reset_cell`), then the chapter's
    name in the kernel's environment, which the ledger reads (:func:`~blindspot.book.ledger.current_chapter`).

    One cell, so the chapter's own first cell is still numbered [1]; removed from the executed copy.
    """
    cell = reset_cell(support, cwd)
    cell.source += f"\nimport os as _os\n_os.environ[{CHAPTER_ENV!r}] = {stem!r}\ndel _os"
    return cell


def write_if_changed(nb: nbformat.NotebookNode | str, out: Path) -> bool:
    """Write the notebook (or text) to ``out`` unless the file already holds exactly that; True if written.

    An unchanged file keeps its modification time, so the HTML build does not re-read it.
    """
    text = nb if isinstance(nb, str) else nbformat.writes(nb)
    if out.is_file() and out.read_text() == text:
        return False
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(out)
    return True


def execute_notebook(
    src: Path,
    out: Path,
    parameters: dict,
    cwd: Path,
    support: Path | None = None,
    kernel: ChapterKernel | None = None,
) -> Executed:
    """Execute the chapter source ``src`` with papermill and write the executed notebook to ``out``.

    Parameters
    ----------
    src, out : path
        The jupytext source and the executed notebook to write.
    parameters : dict
        Values to inject; those the chapter does not declare are left out.
    cwd : path
        The working directory the chapter runs in.
    support : path, optional
        The folder of the support packages (default: the one this package lives in).
    kernel : ChapterKernel, optional
        A running kernel to execute on (the build's, kept from chapter to chapter); by default a
        kernel is started for this chapter alone.

    Raises
    ------
    NotebookError
        Naming the notebook, with the failing cell's exception and traceback (the executed copy
        with the error is written to ``out`` for inspection).
    """
    if kernel is None:
        with ChapterKernel(cwd) as own:
            return execute_notebook(src, out, parameters, cwd, support, own)
    t0 = time.perf_counter()
    nb = read_chapter(src)
    declared = check_parameters_cell(nb, src.name)
    params = {k: v for k, v in parameters.items() if k in declared}
    support = support or Path(__file__).resolve().parents[2]
    out.parent.mkdir(parents=True, exist_ok=True)
    nb.cells.insert(0, start_cell(support, cwd, src.stem))
    nb.cells.append(probe_cell(support))
    kernel.ensure_running()
    kernel.chapters += 1
    try:
        done = pm.execute_notebook(
            nb,
            str(out),
            parameters=params,
            engine_name=ENGINE,
            kernel=kernel,
            kernel_name="python3",
            progress_bar=False,
            log_output=False,
            request_save_on_cell_execute=False,
        )
    except pm.PapermillExecutionError as exc:
        tb = _ANSI.sub("", "\n".join(exc.traceback))
        raise NotebookError(
            f"notebook {src.name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}\n{tb}\n"
            f"(executed copy with the error: {out})"
        ) from None
    except DeadKernelError as exc:
        raise NotebookError(f"notebook {src.name}: the kernel died ({exc}); the next chapter gets a new one") from None
    modules = _modules_and_strip(done)
    fold_parameters(done)
    done.metadata.pop("papermill", None)
    write_if_changed(done, out)
    return Executed(time.perf_counter() - t0, modules)
