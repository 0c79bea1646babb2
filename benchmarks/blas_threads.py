"""BLAS threads where they help (issue 25, item 6): a default run is never slower than OMP_NUM_THREADS=1. A script.

Three kernels, each at one small and one large size, each timed in a fresh subprocess under three
settings side by side:

- ``default``: the BLAS library's own thread count (one per core), with the project's limits in
  place (``dkps.threads``, the one helper of both packages: one BLAS thread inside the kernel);
- ``OMP=1``: ``OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1`` for the whole process;
- ``no limit``: the library's default threads with the project's limits switched off
  (``BLAS_THREADS = None``) — what a default run cost before.

Kernels and sizes: ``bootstrap_d_eff`` (10,000 resamples of a 148 x 12 leaderboard, the Extended
frontier's shape; 2,000 resamples of 2,000 x 60), ``half_split`` (10,000 trials of 148 x 12; 10,000 of
5,000 x 100), a ``PKPS`` fit (80 models x 16 tasks x 8 queries, d_obs 20; 164 x 46 x 32, d_obs 64).
The data are seeded synthetic. Prints min and median of ``--runs`` runs after one untimed warm-up.
The claim: ``default`` median <= ``OMP=1`` median (within noise) at every size.

    python benchmarks/blas_threads.py [--runs 5] [--only bootstrap half_split pkps] [--sizes small large]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np

ONE = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
SETTINGS = ("default", "OMP=1", "no limit")


def _task(kernel: str, size: str):
    """The call to time, with its data made beforehand."""
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    if kernel in ("bootstrap", "half_split"):
        from blindspot.core.halfsplit import half_split
        from blindspot.core.spectrum import bootstrap_d_eff

        n, k = {
            "bootstrap": {"small": (148, 12), "large": (2000, 60)},
            "half_split": {"small": (148, 12), "large": (5000, 100)},
        }[kernel][size]
        S = rng.normal(size=(n, 3)) @ rng.normal(size=(3, k)) + 0.5 * rng.normal(size=(n, k))
        if kernel == "bootstrap":
            n_boot = 10000 if size == "small" else 2000
            return lambda: bootstrap_d_eff(S, n_boot=n_boot, seed=0)
        return lambda: half_split(S, n_trials=10000, seed=0)
    from dkps import PKPS, generate_benchmark_data
    from dkps.synthetic import score_records

    n, t, q, d = {"small": (80, 16, 8, 20), "large": (164, 46, 32, 64)}[size]
    rec = score_records(
        generate_benchmark_data(
            d_latent=5, d_obs=d, n_models=n, n_tasks=t, n_queries_per_task=q, obs_prob=0.6, random_state=0
        )
    )
    return lambda: PKPS().fit(rec)


def _child(kernel: str, size: str, setting: str, runs: int) -> list[float]:
    if setting == "no limit":
        import dkps.threads

        dkps.threads.BLAS_THREADS = None  # blindspot.core's kernels use the same helper
    fn = _task(kernel, size)
    fn()  # warm-up: lazy imports, first-touch allocations
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", nargs="+", default=["bootstrap", "half_split", "pkps"])
    ap.add_argument("--sizes", nargs="+", default=["small", "large"])
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kernel, size, setting, runs = args.child
        print(json.dumps(_child(kernel, size, setting, int(runs))))
        return
    base = {k: v for k, v in os.environ.items() if k not in ONE}
    print(f"{'kernel':>11} {'size':>6} " + " ".join(f"{s + ' min/med':>18}" for s in SETTINGS) + "  default<=OMP=1")
    for kernel in args.only:
        for size in args.sizes:
            med = {}
            cells = []
            for setting in SETTINGS:
                env = dict(base, **ONE) if setting == "OMP=1" else dict(base)
                cmd = [sys.executable, __file__, "--child", kernel, size, setting, str(args.runs)]
                res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
                if res.returncode != 0:
                    raise SystemExit(f"{kernel} {size} {setting} failed:\n{res.stderr[-2000:]}")
                t = json.loads(res.stdout.strip().splitlines()[-1])
                med[setting] = float(np.median(t))
                cells.append(f"{min(t):>8.3f}/{med[setting]:<9.3f}")
            ok = "yes" if med["default"] <= 1.1 * med["OMP=1"] else "NO"
            print(f"{kernel:>11} {size:>6} " + " ".join(f"{c:>18}" for c in cells) + f"  {ok}", flush=True)


if __name__ == "__main__":
    main()
