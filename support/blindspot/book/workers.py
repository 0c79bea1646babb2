"""Chapters side by side: worker threads, each executing chapter after chapter on a kernel of its own.

A worker takes the next chapter from a shared queue (in the order given: the build puts the longest
first), runs it on its :class:`~blindspot.book.kernel.ChapterKernel` and reports it; the kernels do
the work, the threads only wait for them. Each kernel gets one math thread when several run at once.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from blindspot.book.chapters import NotebookError
from blindspot.book.execute import Executed, execute_notebook
from blindspot.book.kernel import ChapterKernel

__all__ = ["ChapterTask", "THREAD_VARIABLES", "kernel_environment", "execute_side_by_side"]

#: The math libraries' thread counts (OpenMP: torch, OpenBLAS: numpy and scipy; MKL where it is used).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True)
class ChapterTask:
    """One chapter to execute: its name, its source, the executed copy to write and the parameters."""

    stem: str
    src: Path
    out: Path
    params: Mapping[str, object] = field(default_factory=dict)


def kernel_environment(workers: int, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of the kernels: ``base`` (default this process's), with one math thread each when
    ``workers`` > 1, unless ``base`` sets a count itself.

    Without it every kernel takes as many threads as the machine has cores, and chapters running together
    oversubscribe them: chapter 60's encoder, sharing two cores with the other chapters, took 576 s in a
    fresh build where it takes 356 s alone.
    """
    env = dict(os.environ if base is None else base)
    if workers > 1:
        for name in THREAD_VARIABLES:
            env.setdefault(name, "1")
    return env


def execute_side_by_side(
    tasks: Sequence[ChapterTask], workers: int, cwd: Path
) -> Iterator[tuple[str, Executed | NotebookError]]:
    """Execute ``tasks`` on ``workers`` kernels; yield ``(stem, Executed)`` or ``(stem, NotebookError)`` as
    each chapter finishes.

    Chapters start in the order given. A chapter that fails does not stop the others; the caller decides.
    When the caller stops early (it closes the iterator, or Ctrl-C reaches it), no new chapter starts, the
    chapters still running are interrupted, and every kernel is shut down before this returns. An error
    that is not a chapter's (a kernel that cannot start) is raised here.
    """
    if not tasks:
        return
    todo: queue.SimpleQueue[ChapterTask] = queue.SimpleQueue()
    for task in tasks:
        todo.put(task)
    done: queue.SimpleQueue[tuple[str | None, object]] = queue.SimpleQueue()
    stop = threading.Event()
    n = max(1, min(workers, len(tasks)))
    env = kernel_environment(n)
    kernels: list[ChapterKernel] = []

    def work() -> None:
        try:
            with ChapterKernel(cwd, env=env) as kernel:
                kernels.append(kernel)
                while not stop.is_set():
                    try:
                        task = todo.get_nowait()
                    except queue.Empty:
                        return
                    try:
                        done.put(
                            (task.stem, execute_notebook(task.src, task.out, dict(task.params), cwd, kernel=kernel))
                        )
                    except NotebookError as exc:
                        done.put((task.stem, exc))
        except BaseException as exc:
            done.put((None, exc))

    threads = [threading.Thread(target=work, name=f"chapter-worker-{i}", daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    finished = False
    try:
        for _ in range(len(tasks)):
            stem, outcome = done.get()
            if stem is None:
                raise outcome  # type: ignore[misc]
            yield stem, outcome  # type: ignore[misc]
        finished = True
    finally:
        stop.set()
        if not finished:
            _interrupt_until_done(kernels, threads)
        for t in threads:
            t.join()


#: Seconds between two interrupts of the chapters still running when a build stops early.
INTERRUPT_EVERY = 2.0


def _interrupt_until_done(kernels: list[ChapterKernel], threads: list[threading.Thread]) -> None:
    """Interrupt every kernel until every worker has returned. One interrupt can be lost: it may reach a
    kernel between two cells (while the chapter's parameters are injected or its kernel reset), or a chapter
    may catch it; a worker still running after :data:`INTERRUPT_EVERY` seconds is interrupted again."""
    while any(t.is_alive() for t in threads):
        for kernel in list(kernels):
            with contextlib.suppress(Exception):  # a kernel that has just ended: nothing left to interrupt
                kernel.interrupt()
        for t in threads:
            t.join(timeout=INTERRUPT_EVERY / len(threads))
