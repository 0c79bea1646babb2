"""A kernel that executes chapters one after another, each from a fresh state.

Starting a kernel and importing the scientific stack costs about 3.3 s of CPU before a chapter's first
line (kernel 0.8 s; scipy.stats, matplotlib, pandas 2.5 s): on most chapters of the book that is more
than the chapter itself. A :class:`ChapterKernel` is started once and runs chapter after chapter;
before each one, a first cell (:func:`reset_cell`, removed from the executed copy) calls
:func:`blindspot.book.kernel_state.begin_chapter` in the kernel, which empties the namespace, unloads
the support packages and puts back the state a chapter can change (see that module).

papermill drives the kernel through its engine API: the engine registered here as
``blindspot-kernel`` is papermill's nbclient engine on this kernel's manager and client.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync
from papermill.clientwrap import PapermillNotebookClient
from papermill.engines import NBClientEngine, papermill_engines

from blindspot.data.atomic import write_atomic

__all__ = [
    "ChapterKernel",
    "ENGINE",
    "RESET_TAG",
    "PROBE_TAG",
    "PROBE_MARK",
    "reset_cell",
    "probe_cell",
    "quiet_profile",
]

#: The papermill engine that runs a notebook on a :class:`ChapterKernel` (``kernel=`` in its keywords).
ENGINE = "blindspot-kernel"
#: The tag of the first cell the build adds (and removes again) to reset the kernel.
RESET_TAG = "blindspot-reset"
#: The tag of the last cell the build adds (and removes again), and the mark before the modules it prints.
PROBE_TAG = "blindspot-probe"
PROBE_MARK = "BLINDSPOT-MODULES "
#: The module in the kernel's ``sys.modules`` that keeps the build's state from chapter to chapter.
KEPT_MODULE = "_blindspot_kernel_baseline"

_log = logging.getLogger(__name__)


def quiet_profile() -> Path:
    """An IPython profile directory whose kernels log only critical messages.

    Not ipykernel's transport warning, nor the 'KeyboardInterrupt caught in kernel' of every shutdown;
    a chapter's errors still reach the build through papermill. Kernels get it through ``IPYTHONDIR``.
    """
    profile = Path(tempfile.gettempdir()) / "blindspot-kernel-profile"
    config = profile / "profile_default" / "ipython_kernel_config.py"
    if not config.is_file():  # the chapter workers of one build are threads: each writes its own file
        write_atomic(config, lambda tmp: tmp.write_text('c.IPKernelApp.log_level = "CRITICAL"\n'), f"{config.name}.")
    return profile


def reset_cell(support: Path, cwd: Path) -> nbformat.NotebookNode:
    """The cell that gives the next chapter a fresh kernel state (tagged :data:`RESET_TAG`)."""
    code = (
        "import blindspot.book.kernel_state as _kernel_state\n"
        f"_kernel_state.begin_chapter({str(support.resolve())!r}, {str(cwd.resolve())!r}, {KEPT_MODULE!r})"
    )
    return nbformat.v4.new_code_cell(code, metadata={"tags": [RESET_TAG]})


def probe_cell(support: Path) -> nbformat.NotebookNode:
    """The cell that prints, after :data:`PROBE_MARK`, the files of the support modules the chapter imported
    (tagged :data:`PROBE_TAG`). It asks the function the reset cell kept, so it imports nothing itself."""
    code = (
        "import json as _json, sys as _sys\n"
        f"print({PROBE_MARK!r} + _json.dumps(sorted(_sys.modules[{KEPT_MODULE!r}]"
        f".support_modules({str(support.resolve())!r}).values())))"
    )
    return nbformat.v4.new_code_cell(code, metadata={"tags": [PROBE_TAG]})


class ChapterKernel:
    """An IPython kernel (``python3``) kept for chapter after chapter; use it as a context manager.

    Parameters
    ----------
    cwd : path
        The kernel's working directory (each chapter's reset cell returns to the one it is given).
    env : mapping, optional
        The kernel's environment (default: this process's), with ``IPYTHONDIR`` set to :func:`quiet_profile`.
    startup_timeout : float
        Seconds to wait for the kernel to answer.

    A kernel that died (a chapter crashed it) is started again by :meth:`ensure_running`, which the
    build calls before each chapter.
    """

    def __init__(self, cwd: Path, *, env: Mapping[str, str] | None = None, startup_timeout: float = 60.0) -> None:
        self.cwd = Path(cwd).resolve()
        self.env = {**(os.environ if env is None else env), "IPYTHONDIR": str(quiet_profile())}
        self.startup_timeout = startup_timeout
        self.manager: AsyncKernelManager | None = None
        self.client = None
        self.chapters = 0  # chapters started on this kernel since it was (re)started

    def __enter__(self) -> ChapterKernel:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()

    def start(self) -> None:
        km = AsyncKernelManager(kernel_name="python3")
        run_sync(km.start_kernel)(cwd=str(self.cwd), env=dict(self.env))
        kc = km.client()
        kc.start_channels()
        try:
            run_sync(kc.wait_for_ready)(timeout=self.startup_timeout)
        except RuntimeError:
            kc.stop_channels()
            run_sync(km.shutdown_kernel)(now=True)
            raise
        kc.allow_stdin = False
        self.manager, self.client, self.chapters = km, kc, 0

    def alive(self) -> bool:
        return self.manager is not None and bool(run_sync(self.manager.is_alive)())

    def ensure_running(self) -> None:
        """Start the kernel again if it is not running (never started, shut down, or died)."""
        if not self.alive():
            self.shutdown()
            self.start()

    def interrupt(self) -> None:
        """Interrupt the cell running now (a KeyboardInterrupt in the chapter), as Jupyter's stop button does."""
        if self.manager is not None:
            run_sync(self.manager.interrupt_kernel)()

    def shutdown(self) -> None:
        if self.client is not None:
            self.client.stop_channels()
            self.client = None
        if self.manager is not None:
            try:
                if run_sync(self.manager.is_alive)():
                    run_sync(self.manager.shutdown_kernel)(now=False)
            finally:
                run_sync(self.manager.cleanup_resources)()
                self.manager = None


class _KeptKernelEngine(NBClientEngine):
    """papermill's nbclient engine on a :class:`ChapterKernel`, which outlives the notebook."""

    @classmethod
    def execute_managed_notebook(cls, nb_man, kernel_name, log_output=False, start_timeout=60, **kwargs):
        kernel: ChapterKernel = kwargs["kernel"]
        client = PapermillNotebookClient(
            nb_man,
            km=kernel.manager,
            kernel_name=kernel_name,
            log=_log,
            log_output=log_output,
            startup_timeout=start_timeout,
        )
        client.kc = kernel.client  # nbclient starts no client of its own, and stops none at the end
        return client.execute()


papermill_engines.register(ENGINE, _KeptKernelEngine)
