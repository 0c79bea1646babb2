"""What a chapter leaves behind in its kernel, put back before the next chapter runs there.

The build runs the chapters of one worker one after another in one long-lived kernel
(:class:`~blindspot.book.kernel.ChapterKernel`), so a chapter's third-party imports (scipy, pandas,
matplotlib, seaborn: 2.5 s of every chapter's start) are paid once per worker, not once per chapter.
sphinx-gallery runs all its examples in one process the same way, resetting matplotlib and seaborn
between them. :func:`begin_chapter` runs in the kernel before each chapter and gives it what a fresh
kernel would have:

- an empty IPython namespace and output cache, and a cell counter that starts again at 1;
- none of the support packages imported: every module under the support folder (``blindspot``,
  ``dkps``) leaves ``sys.modules``, so the chapter imports them afresh, their import-time code runs
  again, and the build records exactly the modules this chapter imported (for its cache);
- no open figure, and matplotlib's rcParams and backend, numpy's print options and floating-point
  error handling as before the first chapter;
- the working directory, ``sys.path``, ``os.environ`` and the warnings filters as before the first chapter.

The state before the first chapter (the baseline) is kept in a module of its own in ``sys.modules``
(named by the build), outside the support packages, so it survives their removal; it also holds
:func:`support_modules`, through which the build's last cell lists what the chapter imported. Third-party modules stay imported; their
module-level caches are the only state chapters share, and none of them decides a result
(``tests/book/test_kernel.py`` checks a real chapter's outputs against a fresh kernel's).
"""

from __future__ import annotations

import gc
import os
import sys
import types
import warnings
from dataclasses import dataclass

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from IPython import get_ipython

__all__ = ["begin_chapter", "support_modules"]


@dataclass(frozen=True)
class _Baseline:
    cwd: str
    path: list[str]
    environ: dict[str, str]
    warning_filters: list
    rc: dict
    backend: str
    printoptions: dict
    errstate: dict


def _capture() -> _Baseline:
    return _Baseline(
        cwd=os.getcwd(),
        path=list(sys.path),
        environ=dict(os.environ),
        warning_filters=list(warnings.filters),
        rc=dict(matplotlib.rcParams.copy()),
        backend=matplotlib.get_backend(),
        printoptions=np.get_printoptions(),
        errstate=np.geterr(),
    )


def _restore(base: _Baseline) -> None:
    plt.close("all")
    if matplotlib.get_backend() != base.backend:
        plt.switch_backend(base.backend)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a deprecated rcParam, as saved, warns when set again
        matplotlib.rcParams.update({k: v for k, v in base.rc.items() if k != "backend"})
    np.set_printoptions(**base.printoptions)
    np.seterr(**base.errstate)
    warnings.resetwarnings()  # also forgets which warnings were shown, so a chapter sees them as a fresh kernel would
    warnings.filters[:] = base.warning_filters
    os.environ.clear()
    os.environ.update(base.environ)
    sys.path[:] = base.path
    os.chdir(base.cwd)


def support_modules(support_root: str) -> dict[str, str]:
    """``{name: file}`` of the modules in ``sys.modules`` whose file lies under ``support_root`` (symbolic
    links resolved on both sides)."""
    root = os.path.join(os.path.realpath(support_root), "")
    found = {}
    for name, mod in list(sys.modules.items()):
        file = getattr(mod, "__file__", None)
        if isinstance(file, str) and os.path.realpath(file).startswith(root):
            found[name] = os.path.realpath(file)
    return found


def begin_chapter(support_root: str, cwd: str, kept: str) -> None:
    """Run in the kernel before a chapter: the baseline back (saved first, before the first chapter, in
    the module ``sys.modules[kept]``), the support packages unloaded, the namespace emptied, the working
    directory ``cwd``."""
    holder = sys.modules.get(kept)
    if holder is None:
        holder = types.ModuleType(kept, "State of this kernel before its first chapter (blindspot.book).")
        holder.baseline = _capture()
        holder.support_modules = support_modules
        sys.modules[kept] = holder
    else:
        _restore(holder.baseline)
    for name in support_modules(support_root):
        del sys.modules[name]
    shell = get_ipython()
    if shell is not None:  # None outside a kernel (a test calling this directly): no namespace to empty
        shell.reset(new_session=True)  # also sets the cell counter back: the chapter's first cell is [1]
    gc.collect()
    os.chdir(cwd)
