"""One BLAS thread around core's batched kernels, so a default run is never slower than ``OMP_NUM_THREADS=1``.

The bootstrap of d_eff and the half-split experiment are many small matrix products and
eigendecompositions (a stack of k x k matrices per batch). At these sizes a multi-threaded BLAS
spends more on waking and synchronising its threads than it saves, and on a loaded machine it
oversubscribes the cores: on a 2-core machine the 10,000-resample bootstrap of a 148 x 12
leaderboard took 0.15 s with one thread and 0.21-0.53 s with the default two
(``benchmarks/blas_threads.py``). :func:`single_blas_thread` limits BLAS (and any OpenMP runtime) through ``threadpoolctl``
for the duration of a call and gives the caller's setting back; set :data:`BLAS_THREADS` to None to
keep the library's own setting.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from typing import TypeVar

from threadpoolctl import ThreadpoolController

__all__ = ["BLAS_THREADS", "blas_threads", "single_blas_thread"]

#: BLAS threads inside core's batched kernels (None: leave the library's setting alone).
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
    with _controller.limit(limits=n):  # BLAS and OpenMP (torch's, in a kernel that embedded text)
        yield


def single_blas_thread(func: F) -> F:
    """Decorator: run ``func`` inside :func:`blas_threads`."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with blas_threads():
            return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
