"""The survey chapter's cost: the survey of every public leaderboard, one process against two, and the chapter.

Run: .venv/bin/python benchmarks/survey_speed.py [--repeats 3] [--n-boot 1000] [--chapter]

1. Reads the chapter's leaderboards (its registry's ``scores``) from the data directory once, then times
   :func:`blindspot.report.survey.survey_tables` on all of them with the full bootstrap (``--n-boot``,
   default 1000 as ``blindspot analyze``): ``n_jobs=1`` (the baseline: one leaderboard after the other) and
   ``n_jobs=2`` (the chapter's setting), in the same run, alternating, ``--repeats`` times each; checks that
   both give the same table. Also reports each leaderboard's own time in the baseline, the Open LLM
   Leaderboard's 4,496 models x 6 benchmarks (Every Eval Ever) among them.
2. With ``--chapter``: executes the chapter itself (``blindspot execute``, the paper's settings, a fresh
   kernel, imports included) ``--repeats`` times, against the issue's budget of 60 s: wall time, and the CPU
   time of its processes (the kernel and any workers; on an idle machine the wall time is about this
   divided by the cores it keeps busy).

Every process gets ``--threads`` math threads (default 1, as the book's build gives each chapter). The
machine is shared: the table gives min / median / max over the repeats and the load average around
the runs; quote the median.

Measured on the project's 2-core machine, one math thread per process, load average 0.4-2.6 (h-survey,
2 repeats): the survey of the 17 leaderboards with 1,000 resamples took 14.0-14.2 s on one process and
7.8-16.8 s on two (median 1.15x; the two Epoch matrices, about 5 s each for their cross-validated
completion, dominate); the Open LLM Leaderboard's 4,496 models x 6 benchmarks (Every Eval Ever) 0.42 s of
it, the 6,811-model first edition 0.78 s; the chapter 20.0-26.6 s wall (24 s of CPU), against the
budget of 60 s. Under a load average of 5-8 (other builds running) the chapter took 53-65 s.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import yaml
from threadpoolctl import threadpool_limits

from blindspot import data
from blindspot.report.survey import survey_tables

ROOT = Path(__file__).resolve().parents[1]
STEM = "28_blind_spot_of_public_leaderboards"
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def chapter_scores() -> list[str]:
    spec = yaml.safe_load((ROOT / "book" / "claims" / f"{STEM}.yml").read_text())
    return list(spec["run"]["scores"]["paper"])


def stats(xs: list[float]) -> str:
    return f"{min(xs):6.1f} {float(np.median(xs)):6.1f} {max(xs):6.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--chapter", action="store_true", help="also execute the chapter")
    ap.add_argument("--chapter-jobs", type=int, default=None, help="the chapter's n_jobs (default: its own)")
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="math threads per process (default 1, as the book's build gives a chapter)",
    )
    args = ap.parse_args()
    limits = threadpool_limits(args.threads)  # noqa: F841 (kept for the whole run)
    env = {**os.environ, **{v: str(args.threads) for v in THREAD_VARS}}
    names = chapter_scores()
    t0 = time.perf_counter()
    tables = data.load_many(names, missing="keep")
    load = time.perf_counter() - t0
    synthetic = [n for n, t in tables.items() if t.synthetic]
    if synthetic:
        print(f"warning: no data for {synthetic}; those are synthetic stand-ins", file=sys.stderr)
    print(
        f"load average {os.getloadavg()[0]:.2f}; {args.threads} math thread(s) per process; reading the "
        f"{len(tables)} leaderboards took {load:.1f} s"
    )
    times: dict[int, list[float]] = {1: [], 2: []}
    csv: dict[int, str] = {}
    per_board: dict[str, float] = {}
    for _ in range(args.repeats):
        for jobs in (1, 2):
            t0 = time.perf_counter()
            sv = survey_tables(tables, n_boot=args.n_boot, n_jobs=jobs)
            times[jobs].append(time.perf_counter() - t0)
            csv[jobs] = sv.to_csv()
            if jobs == 1:
                per_board = sv.settings["seconds"]
    assert csv[1] == csv[2], "n_jobs changed the survey"
    print(f"survey of {len(tables)} leaderboards, n_boot={args.n_boot}   min  median  max (s)")
    print(f"  n_jobs=1 (baseline)               {stats(times[1])}")
    print(f"  n_jobs=2 (the chapter)            {stats(times[2])}")
    print(f"  speed-up of the medians: {np.median(times[1]) / np.median(times[2]):.2f}x")
    print("each leaderboard, last baseline run (s):")
    for name, sec in sorted(per_board.items(), key=lambda kv: -kv[1]):
        t = tables[name]
        print(f"  {name:<24} {t.n_models:>6} x {t.n_benchmarks:<3} {sec:6.2f}")
    if args.chapter:
        runs, cpu = [], []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as out:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                subprocess.run(
                    [sys.executable, "-m", "blindspot", "execute", f"notebooks/{STEM}.md", "--out", out]
                    + (["-p", f"n_jobs={args.chapter_jobs}"] if args.chapter_jobs is not None else []),
                    cwd=ROOT,
                    env=env,
                    check=True,
                    capture_output=True,
                )
                runs.append(time.perf_counter() - t0)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        print(f"the chapter (blindspot execute, fresh kernel), wall  {stats(runs)}  (budget 60 s)")
        print(f"  its processes' CPU time (kernel and workers)        {stats(cpu)}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
