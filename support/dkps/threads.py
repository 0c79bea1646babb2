"""One BLAS thread around dkps's numerical kernels, for stable run times on small machines.

The kernels (block matrix products, SVDs, eigendecompositions) are many medium-sized BLAS calls.
With OpenBLAS's default of one thread per core they oversubscribe a 2-core machine as soon as
anything else runs: a PKPS fit then swings up to 20x from run to run. One thread is steady and, at
these sizes, hardly slower. :func:`blas_threads` limits BLAS (through ``threadpoolctl``) for the
duration of a call; ``fit``, ``update``, ``predict`` and ``score_table`` of every estimator run
inside it. Set :data:`BLAS_THREADS` to None to keep the library's own setting.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import TypeVar

from threadpoolctl import ThreadpoolController

__all__ = ["BLAS_THREADS", "blas_threads", "single_blas_thread"]

#: BLAS threads used inside dkps's calls (None: leave the library's setting alone).
BLAS_THREADS: int | None = 1

_controller: ThreadpoolController | None = None
F = TypeVar("F", bound=Callable)


@contextlib.contextmanager
def blas_threads(n: int | None = None) -> Iterator[None]:
    """Limit BLAS to ``n`` threads (default :data:`BLAS_THREADS`) inside the ``with`` block."""
    global _controller
    n = BLAS_THREADS if n is None else n
    if n is None:
        yield
        return
    if _controller is None:
        _controller = ThreadpoolController()  # scans the loaded BLAS libraries once
    with _controller.limit(limits=n, user_api="blas"):
        yield


def single_blas_thread(method: F) -> F:
    """Decorator: run ``method`` inside :func:`blas_threads`."""

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        with blas_threads():
            return method(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
