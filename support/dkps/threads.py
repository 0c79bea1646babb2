"""One BLAS thread around the numerical kernels of ``dkps`` and of ``blindspot.core``: the one thread-limit helper.

The kernels — dkps's block matrix products, SVDs and eigendecompositions; blindspot's bootstrap of d_eff and
half-split experiment (a stack of small k x k matrices per batch) — are many small or medium-sized BLAS calls.
At these sizes a multi-threaded BLAS spends more on waking and synchronising its threads than it saves, and on a
loaded machine it oversubscribes the cores: on a 2-core machine a PKPS fit swings up to 20x from run to run, and
the 10,000-resample bootstrap of a 148 x 12 leaderboard took 0.15 s with one thread and 0.21-0.53 s with the
default two (``benchmarks/blas_threads.py``). One thread is steady and, at these sizes, hardly slower.

:func:`blas_threads` limits BLAS (through ``threadpoolctl``) inside a ``with`` block and gives the caller's
setting back; :func:`single_blas_thread` runs a function inside it. ``fit``, ``update``, ``predict`` and
``score_table`` of every dkps estimator run inside it (BLAS only), and so do ``blindspot.core``'s bootstrap and
half-split kernels (``openmp=True``: any OpenMP runtime too, e.g. torch's in a book kernel that embedded text).
Set :data:`BLAS_THREADS` to None to keep the libraries' own settings, in both packages at once.

This module lives in ``dkps`` because ``dkps`` imports nothing from ``blindspot``; ``blindspot.core`` imports it
(its only import from ``dkps``, a contract of ``lint-imports``).
"""

from __future__ import annotations

import contextlib
import functools
import sys
from collections.abc import Callable, Iterator
from typing import TypeVar

from threadpoolctl import ThreadpoolController

__all__ = ["BLAS_THREADS", "blas_threads", "single_blas_thread"]

#: BLAS threads inside the limited calls of dkps and blindspot.core (None: leave the libraries' settings alone).
BLAS_THREADS: int | None = 1

_controller: ThreadpoolController | None = None
_modules_at_scan = -1  # len(sys.modules) when the controller scanned the loaded libraries
F = TypeVar("F", bound=Callable)


@contextlib.contextmanager
def blas_threads(n: int | None = None, *, openmp: bool = False) -> Iterator[None]:
    """Limit BLAS to ``n`` threads inside the ``with`` block, and give the caller's setting back.

    Parameters
    ----------
    n : int, optional
        Threads (default :data:`BLAS_THREADS`; when that is None too, nothing is limited).
    openmp : bool, default False
        Limit every OpenMP runtime too (``threadpoolctl``'s ``user_api=None``), not only BLAS.

    Yields
    ------
    None
        The limit holds inside the block.
    """
    global _controller, _modules_at_scan
    n = BLAS_THREADS if n is None else n
    if n is None:
        yield
        return
    if _controller is None or len(sys.modules) != _modules_at_scan:
        # scan the loaded BLAS and OpenMP libraries (2 ms), again only after an import may have loaded one (torch)
        _controller, _modules_at_scan = ThreadpoolController(), len(sys.modules)
    with _controller.limit(limits=n, user_api=None if openmp else "blas"):
        yield


def single_blas_thread(func: F | None = None, *, openmp: bool = False) -> F | Callable[[F], F]:
    """Decorator: run the function inside :func:`blas_threads` (``@single_blas_thread`` or
    ``@single_blas_thread(openmp=True)``).

    Parameters
    ----------
    func : callable, optional
        The function (or method) to wrap; omitted when the decorator is called with ``openmp``.
    openmp : bool, default False
        Limit every OpenMP runtime too, not only BLAS.

    Returns
    -------
    callable
        The wrapped function (``__wrapped__`` is the original), or a decorator when ``func`` is None.
    """

    def decorate(f: F) -> F:
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            with blas_threads(openmp=openmp):
                return f(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate if func is None else decorate(func)
