"""Speed benchmark of dkps.PKPS (issue 7, item 8). A script, not a test.

Fits PKPS (default settings: rbf query kernel, 'cv' bandwidth over 5 candidates, elbow PCA,
MDS dim 8) on synthetic records of 164 models x 46 tasks x 32 queries per cell (the original
package's large setting, d_obs = 64, obs_prob = 0.6), then updates the fit with one new model.

Targets on a 2-core machine: fit < 20 s, update of one model < 2 s.

    python benchmarks/dkps_speed.py [--models 164] [--tasks 46] [--queries 32] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import tracemalloc

import numpy as np

from dkps import PKPS, generate_benchmark_data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", type=int, default=164)
    ap.add_argument("--tasks", type=int, default=46)
    ap.add_argument("--queries", type=int, default=32)
    ap.add_argument("--d-obs", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1, help="repeat fit/update and report the best time")
    args = ap.parse_args()

    t0 = time.perf_counter()
    bd = generate_benchmark_data(
        d_latent=5,
        d_obs=args.d_obs,
        n_models=args.models,
        n_tasks=args.tasks,
        n_queries_per_task=args.queries,
        obs_prob=0.6,
        random_state=args.seed,
    )
    data = bd.data
    mi = data.model_id.str[6:].astype(int)
    ti = data.task_id.str[5:].astype(int)
    data["score"] = 1 / (1 + np.exp(-bd.scores[mi, ti]))
    last = data.model_id.iloc[-1]
    base, new = data[data.model_id != last], data[data.model_id == last]
    t_gen = time.perf_counter() - t0
    print(
        f"data: {len(data)} rows, {int(bd.observed.sum())} observed cells of {bd.observed.size}, "
        f"generated in {t_gen:.1f} s"
    )

    fit_times, upd_times, fit_cpu, upd_cpu = [], [], [], []
    peak = None
    for r in range(args.repeat):
        if r == 0:
            tracemalloc.start()
        t, c = time.perf_counter(), time.process_time()
        est = PKPS().fit(base)
        fit_times.append(time.perf_counter() - t)
        fit_cpu.append(time.process_time() - c)
        if r == 0:
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
        t, c = time.perf_counter(), time.process_time()
        est.update(new)
        upd_times.append(time.perf_counter() - t)
        upd_cpu.append(time.process_time() - c)
    t = time.perf_counter()
    pred = est.predict()
    t_pred = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"fit ({len(base)} rows, {args.models - 1} models): {min(fit_times):.2f} s wall, "
        f"{min(fit_cpu):.2f} s CPU   [target < 20 s]"
    )
    print(
        f"update (+1 model, {len(new)} rows):        {min(upd_times):.2f} s wall, "
        f"{min(upd_cpu):.2f} s CPU   [target < 2 s]"
    )
    print(f"load average during the run: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"predict ({len(pred)} unobserved cells):   {t_pred:.2f} s")
    print(f"peak memory of the fit (tracemalloc):      {peak / 2**20:.0f} MiB")
    print(f"process max RSS:                           {rss:.0f} MiB")
    print(
        f"pca dims {est.pca_dims_}, mds dim {est.mds_dim_}, bandwidth {est.bandwidth_:.4f}, "
        f"pairs recomputed by update {len(est.last_update_pairs_)}"
    )


if __name__ == "__main__":
    main()
