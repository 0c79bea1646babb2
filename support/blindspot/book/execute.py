"""Execute one chapter: papermill runs the notebook node jupytext read, parameters injected.

Only the parameters that the chapter's ``parameters`` cell declares are injected. After the run,
papermill's injected-parameters cell is folded into the parameters cell (a reader sees the values
this build used), and a last bookkeeping cell, added by the build and removed again, reports
which ``blindspot`` / ``dkps`` modules the chapter imported (for the chapter cache).
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
import papermill as pm

from blindspot.book.chapters import NotebookError, check_parameters_cell, fold_parameters, read_chapter

__all__ = ["Executed", "execute_notebook", "write_if_changed"]

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_PROBE_TAG = "blindspot-probe"
_PROBE_MARK = "BLINDSPOT-MODULES "


@dataclass(frozen=True)
class Executed:
    seconds: float
    modules: list[str]


def _probe_cell(support: Path) -> nbformat.NotebookNode:
    code = (
        "import json as _json, sys as _sys\n"
        f"_root = {str(support.resolve())!r}\n"
        f"print({_PROBE_MARK!r} + _json.dumps(sorted({{m.__file__ for m in list(_sys.modules.values()) "
        "if isinstance(getattr(m, '__file__', None), str) and m.__file__.startswith(_root)})))"
    )
    return nbformat.v4.new_code_cell(code, metadata={"tags": [_PROBE_TAG]})


def _modules_and_strip(nb: nbformat.NotebookNode) -> list[str]:
    modules: list[str] = []
    for cell in nb.cells:
        if _PROBE_TAG in cell.get("metadata", {}).get("tags", []):
            for out in cell.get("outputs", []):
                text = out.get("text", "")
                if text.startswith(_PROBE_MARK):
                    modules = json.loads(text[len(_PROBE_MARK) :])
    nb.cells = [c for c in nb.cells if _PROBE_TAG not in c.get("metadata", {}).get("tags", [])]
    return modules


def _quiet_kernels() -> None:
    """Kernels started by this process log only critical messages (not ipykernel's transport warning or
    the 'KeyboardInterrupt caught in kernel' of every shutdown): a profile of the build's own, through
    ``IPYTHONDIR``. A chapter's errors still reach the build through papermill."""
    profile = Path(tempfile.gettempdir()) / "blindspot-kernel-profile"
    config = profile / "profile_default" / "ipython_kernel_config.py"
    if not config.is_file():
        config.parent.mkdir(parents=True, exist_ok=True)
        tmp = config.with_name(f"{config.name}.{os.getpid()}.tmp")  # builds running side by side never see half a file
        tmp.write_text('c.IPKernelApp.log_level = "CRITICAL"\n')
        tmp.replace(config)
    os.environ["IPYTHONDIR"] = str(profile)


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


def execute_notebook(src: Path, out: Path, parameters: dict, cwd: Path, support: Path | None = None) -> Executed:
    """Execute the chapter source ``src`` with papermill and write the executed notebook to ``out``.

    Raises
    ------
    NotebookError
        Naming the notebook, with the failing cell's exception and traceback (the executed copy
        with the error is written to ``out`` for inspection).
    """
    t0 = time.perf_counter()
    nb = read_chapter(src)
    declared = check_parameters_cell(nb, src.name)
    params = {k: v for k, v in parameters.items() if k in declared}
    support = support or Path(__file__).resolve().parents[2]
    out.parent.mkdir(parents=True, exist_ok=True)
    nb.cells.append(_probe_cell(support))
    _quiet_kernels()
    try:
        done = pm.execute_notebook(
            nb,
            str(out),
            parameters=params,
            cwd=str(cwd),
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
    modules = _modules_and_strip(done)
    fold_parameters(done)
    done.metadata.pop("papermill", None)
    write_if_changed(done, out)
    return Executed(time.perf_counter() - t0, modules)
