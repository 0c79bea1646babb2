"""How a PKPS fit grows with the number of models, and what two workers buy (Dask or joblib's pool; issue 25, item 4).

Synthetic records from :func:`dkps.generate_benchmark_data` (46 tasks, 32 queries per task, every
response to every query of an observed cell, ``obs_prob`` 0.6, ``d_obs`` 64 by default) at each
size in ``--sizes``. Each measurement runs in a fresh subprocess with one BLAS thread
(``OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=MKL_NUM_THREADS=1``), so its peak resident memory
(Linux's ``VmHWM``) is its own:

- ``serial``: ``PKPS().fit`` in one process — the baseline "one process on one BLAS thread";
- ``cluster`` (at the sizes in ``--cluster-sizes``): the same fit with
  ``joblib.parallel_config(backend="dask")`` on a ``dask.distributed.LocalCluster`` of 2 worker
  processes with one thread each (``n_jobs=-1``, ``memory_budget=--cluster-memory-budget``, by
  default the serial fit's 256 MiB: the same blocks, so the same bits as the serial fit, four
  blocks at 1,000 models; smaller blocks re-read every model's statistics once per block, 64 MiB
  costs 8 % more and 32 MiB 25 %); the larger of the two workers' peaks is reported too. The
  workers import dkps before the clock starts, as on a cluster that is already up, and the
  scheduler is told the bandwidth between local workers (1 GB/s instead of its default guess of
  100 MB/s, with which it keeps three of the four blocks on the worker that received the
  statistics: 9.7 and 19.8 CPU seconds for the two workers at 1,000 models).
- ``loky`` (at the sizes in ``--loky-sizes``): the same fit with ``n_jobs=2`` and joblib's own
  process pool (its default backend, no Dask), the pool started before the clock as the cluster's
  workers are; it shares the statistics with its workers as memory maps instead of sending them.
  Every parallel row states whether its pair sums and distances are bit-identical to the serial
  fit's (a digest of both).
- the ceiling of any 2-worker speed-up on this machine at that moment (``--probe``, on by
  default), right after each cluster fit: 1500 x 1500 matrix products on one BLAS thread in one
  process alone, then in two at once. On the project's shared 2-vCPU machine it is 1.94x when
  nothing else runs and about 1.1x while another session computes (the kernel's autogroup
  scheduler shares the CPUs between sessions, whatever their nice level): a cluster speed-up is
  only meaningful next to it.

Printed: seconds of the fit (data generation excluded), the seconds of it spent in the steps that
run as joblib jobs (the pair sums' blocks, the geometry's bandwidths and the fit-time criterion's
candidates: what a cluster can parallelise; the rest runs in the client), peak RSS of the process (data included) and the RSS
before the fit, the growth exponents of time and memory (least squares on log-log) and
their extrapolation to 10,000 models, and each parallel fit's speed-up over serial next to two bounds of
it: Amdahl's (the serial fit's share in jobs, perfectly split) and the best schedule of the serial
fit's own jobs (the client's part plus each step's best makespan on 2 workers, :func:`schedule_bound`),
with the client's part cut into its named steps (:data:`CLIENT_STEPS`).

    python benchmarks/pkps_scaling.py [--sizes 250 500 1000 2000] [--cluster-sizes 1000] [--loky-sizes 1000] [--d-obs 64]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np

ONE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def _cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _rss_mb() -> float:
    """Peak resident memory of this process (MB): Linux's ``VmHWM``, else ``ru_maxrss``.

    ``ru_maxrss`` survives ``exec``: a Dask worker spawned by a client that holds 1.5 GB of records
    reports at least 1.5 GB under it whatever it uses itself; ``VmHWM`` belongs to the process's own
    memory map."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # kB on Linux


def _warm() -> int:
    """Import what the blocks run on a worker (a cluster that is up has done so before its first fit)."""
    import dkps.pair_sums
    import dkps.space  # noqa: F401

    return os.getpid()


def _time_calls(module, name: str, record) -> None:
    """Replace ``module.name`` by a wrapper that calls ``record(seconds)`` after every call."""
    f = getattr(module, name)

    def timed(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            record(time.perf_counter() - t)

    setattr(module, name, timed)


def _timed_parallel_steps(pkps_module, spent: dict) -> None:
    """Time the steps that run as joblib jobs (the pair sums' blocks, the geometry's bandwidths, the
    fit-time criterion's candidates)."""
    import dkps.bandwidth

    def add(dt: float) -> None:
        spent["parallel"] += dt

    for module, name in (
        (pkps_module, "blocked_pair_sums"),
        (pkps_module, "perspective_geometry"),
        (dkps.bandwidth, "FitCriterion"),
    ):
        _time_calls(module, name, add)


#: The steps of ``PKPS.fit`` that run in the client on any backend, as ``dkps.pkps`` names them
#: (a dotted name is a method): the records' checks, the score tables, the per-suite layout and the
#: statistics.
CLIENT_STEPS = (
    ("validate", "checking the records"),
    ("check_informative", "checking the records"),
    ("query_registry", "checking the records"),
    ("PKPS._set_catalog", "the score tables"),
    ("derive_layout", "the layout"),
    ("add_rows", "the statistics"),
)


def _client_step_owner(pkps_module, name: str):
    """The object that holds step ``name`` of :data:`CLIENT_STEPS`, and the step's own name there."""
    *path, attr = name.split(".")
    owner = pkps_module
    for part in path:
        owner = getattr(owner, part)
    return owner, attr


def _timed_client_steps(pkps_module, spent: dict) -> None:
    """Add the seconds of each of :data:`CLIENT_STEPS` to ``spent[label]``."""

    def adder(label: str):
        return lambda dt: spent.__setitem__(label, spent.get(label, 0.0) + dt)

    for name, label in CLIENT_STEPS:
        _time_calls(*_client_step_owner(pkps_module, name), adder(label))


#: The functions each joblib job of a fit runs, by the step they belong to (see ``_timed_jobs``).
JOBS = (
    ("dkps.pair_sums", "_block_sums", "pair sums"),
    ("dkps.space", "_one_bandwidth", "geometry"),
    ("dkps.knn", "_candidate_state", "criterion"),
)


def _timed_jobs(log: list) -> None:
    """Record ``(step, seconds)`` of every job a serial fit runs, in order (in this process only: a
    worker would receive the wrapper)."""
    import importlib

    for module_name, name, step in JOBS:
        _time_calls(importlib.import_module(module_name), name, lambda dt, _step=step: log.append((_step, dt)))


def best_makespan(durations, workers: int = 2) -> float:
    """The shortest time ``workers`` can run independent jobs of these ``durations`` in (exhaustive
    search over every assignment of jobs to workers; a handful of jobs per step)."""
    import itertools

    d = list(durations)
    if len(d) > 16:
        raise ValueError(f"{len(d)} jobs: too many for the exhaustive search")
    if not d:
        return 0.0
    best = float("inf")
    for assign in itertools.product(range(workers), repeat=len(d) - 1):  # the first job on worker 0
        loads = [0.0] * workers
        loads[0] = d[0]
        for w, x in zip(assign, d[1:]):
            loads[w] += x
        best = min(best, max(loads))
    return best


def schedule_bound(seconds: float, jobs: list, workers: int = 2) -> tuple[float, float, list]:
    """The fastest a fit of ``seconds`` could run on ``workers`` with no overhead at all: the client's
    part (what no job runs) plus, for each step in turn (a step's jobs start when the last step's
    are done), the best makespan of its jobs. Returns (seconds, the client's part, per step (step,
    jobs, serial seconds, best makespan))."""
    steps: list = []
    for step, dt in jobs:
        if steps and steps[-1][0] == step:
            steps[-1][1].append(dt)
        else:
            steps.append((step, [dt]))
    client = seconds - sum(dt for _, dt in jobs)
    rows = [(step, len(d), sum(d), best_makespan(d, workers)) for step, d in steps]
    return client + sum(r[3] for r in rows), client, rows


def _fit_seconds(est, records) -> float:
    """Wall seconds of ``est.fit(records)`` under whatever joblib backend is active."""
    t = time.perf_counter()
    est.fit(records)
    return time.perf_counter() - t


def _child(n: int, mode: str, d_obs: int, obs_prob: float, budget: float) -> dict:
    """One measurement (in its own process)."""
    warnings.simplefilter("ignore")
    import dkps.pkps
    from dkps import PKPS, generate_benchmark_data
    from dkps.synthetic import score_records

    bd = generate_benchmark_data(
        d_latent=5, d_obs=d_obs, n_models=n, n_tasks=46, n_queries_per_task=32, obs_prob=obs_prob, random_state=0
    )
    records = score_records(bd)
    del bd
    out = {"n": n, "mode": mode, "rows": len(records), "rss_before_mb": _rss_mb()}
    spent = {"parallel": 0.0}
    _timed_parallel_steps(dkps.pkps, spent)
    if mode == "serial":
        jobs: list = []
        _timed_jobs(jobs)
        out["jobs"] = jobs
        out["client_steps"] = {}
        _timed_client_steps(dkps.pkps, out["client_steps"])
        est = PKPS(memory_budget=budget)
        out["seconds"] = _fit_seconds(est, records)
    elif mode == "loky":
        from joblib import Parallel, delayed

        Parallel(n_jobs=2)(delayed(_warm)() for _ in range(2))  # the pool up, dkps imported in it
        est = PKPS(n_jobs=2, memory_budget=budget)
        out["seconds"] = _fit_seconds(est, records)
    else:
        import dask
        import distributed
        from joblib import parallel_config

        # The scheduler's default estimate of 100 MB/s between workers makes moving the statistics
        # (about 400 MB at 1,000 models) look dearer than waiting, so it queues three of the four
        # blocks on the worker that received them; a local cluster moves about 1 GB/s.
        dask.config.set({"distributed.scheduler.bandwidth": "1GB"})

        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40
        )
        client = distributed.Client(cluster)
        client.run(_warm)
        est = PKPS(n_jobs=-1, memory_budget=budget)
        cpu0 = client.run(_cpu_seconds)
        with parallel_config(backend="dask"):
            out["seconds"] = _fit_seconds(est, records)
        cpu1 = client.run(_cpu_seconds)
        out["worker_cpu_seconds"] = sorted(round(cpu1[w] - cpu0[w], 2) for w in cpu1)
        out["worker_peak_mb"] = max(client.run(_rss_mb).values())
        client.close()
        cluster.close()
    out["peak_mb"] = _rss_mb()
    out["parallel_seconds"] = spent["parallel"]
    out["digest"] = _digest(est)
    out["pca_dims"] = {s: list(d) for s, d in est.pca_dims_.items()}
    return out


def _digest(est) -> str:
    """blake2b of the fit's pair sums and its distance matrices: equal digests, equal bits."""
    import hashlib

    h = hashlib.blake2b(digest_size=16)
    for a in (est._num, est._den, *est.distance_matrices().values()):
        h.update(np.ascontiguousarray(a).view(np.uint8))
    return h.hexdigest()


def _run(n: int, mode: str, args) -> dict:
    env = dict(os.environ, **ONE_THREAD)
    budget = args.memory_budget if mode == "serial" else args.cluster_memory_budget
    cmd = [sys.executable, __file__, "--child", str(n), mode, str(args.d_obs), str(args.obs_prob), str(budget)]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise SystemExit(f"{mode} fit at {n} models failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def _gemm_rate(seconds: float = 5.0) -> float:
    """GFLOP/s of 1500 x 1500 matrix products on one BLAS thread, for ``seconds``."""
    a = np.random.default_rng(0).standard_normal((1500, 1500))
    t, k = time.perf_counter(), 0
    while time.perf_counter() - t < seconds:
        a @ a
        k += 1
    return k * 2 * 1500**3 / (time.perf_counter() - t) / 1e9


def _probe() -> tuple[float, float]:
    """GFLOP/s of one process alone, and of two processes at once (summed)."""
    env = dict(os.environ, **ONE_THREAD)
    cmd = [sys.executable, __file__, "--gemm"]
    one = float(subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout)
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    two = sum(float(p.communicate()[0]) for p in procs)
    return one, two


def _exponent(ns, ys) -> float:
    return float(np.polyfit(np.log(ns), np.log(ys), 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[250, 500, 1000, 2000])
    ap.add_argument("--cluster-sizes", type=int, nargs="*", default=[1000])
    ap.add_argument("--loky-sizes", type=int, nargs="*", default=[1000])
    ap.add_argument("--d-obs", type=int, default=64)
    ap.add_argument("--obs-prob", type=float, default=0.6)
    ap.add_argument("--memory-budget", type=float, default=256.0, help="PKPS memory_budget (MiB) of the serial fit")
    ap.add_argument(
        "--cluster-memory-budget", type=float, default=256.0, help="memory_budget (MiB) of the cluster and loky fits"
    )
    ap.add_argument("--probe", action=argparse.BooleanOptionalAction, default=True, help="measure the GEMM ceiling")
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    ap.add_argument("--gemm", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.gemm:
        print(_gemm_rate())
        return
    if args.child:
        n, mode, d_obs, obs_prob, budget = args.child
        print(json.dumps(_child(int(n), mode, int(d_obs), float(obs_prob), float(budget))))
        return
    print(f"PKPS fit, 46 tasks x 32 queries, d_obs {args.d_obs}, obs_prob {args.obs_prob}, one BLAS thread per process")
    print(
        f"{'models':>7} {'mode':>8} {'rows':>9} {'seconds':>9} {'in jobs':>9} {'peak MB':>9} {'before MB':>9}"
        f" {'worker MB':>9}"
    )
    serial = []
    for n in args.sizes:
        modes = (
            ["serial"] + (["cluster"] if n in args.cluster_sizes else []) + (["loky"] if n in args.loky_sizes else [])
        )
        for mode in modes:
            r = _run(n, mode, args)
            if mode == "serial":
                serial.append(r)
            w = r.get("worker_peak_mb")
            print(
                f"{n:>7} {mode:>8} {r['rows']:>9} {r['seconds']:>9.2f} {r['parallel_seconds']:>9.2f}"
                f" {r['peak_mb']:>9.0f} {r['rss_before_mb']:>9.0f}"
                f" {'' if w is None else f'{w:.0f}':>9}",
                flush=True,
            )
            if mode == "serial" and len(modes) > 1:
                f = r["parallel_seconds"] / r["seconds"]
                best, client, steps = schedule_bound(r["seconds"], r["jobs"])
                parts = "; ".join(f"{st}: {k} jobs, {tot:.1f} s -> {mk:.1f} s" for st, k, tot, mk in steps)
                print(
                    f"        {100 * f:.0f} % of it runs in joblib jobs: at most {1 / (1 - f / 2):.2f}x on 2 workers"
                    f" (Amdahl); its own jobs on 2 workers at best: client {client:.1f} s; {parts};"
                    f" {best:.1f} s in all, at most {r['seconds'] / best:.2f}x with no overhead"
                )
                named = "; ".join(f"{k} {v:.1f} s" for k, v in r["client_steps"].items())
                rest = client - sum(r["client_steps"].values())
                print(
                    f"        the client's {client:.1f} s: {named}; the rest {rest:.1f} s (the pair sums' plans and"
                    " query kernels, the criterion's distances, what joins the steps)"
                )
            if mode != "serial":
                s = next(x for x in serial if x["n"] == n)
                same = "yes" if r["digest"] == s["digest"] else "NO"
                print(
                    f"        {mode} speed-up over one process at {n} models: {s['seconds'] / r['seconds']:.2f}x;"
                    f" pair sums and distances bit-identical to the serial fit's: {same}"
                )
            if mode == "cluster":
                print(
                    f"        CPU seconds of the two workers during the fit: {r['worker_cpu_seconds']}"
                    f" (of {r['seconds']:.1f} s: a worker that got a whole CPU would show about as many)"
                )
                if args.probe:
                    one, two = _probe()
                    print(
                        f"        matrix products on one BLAS thread just after: {one:.1f} GFLOP/s in one process,"
                        f" {two:.1f} in two at once ({two / one:.2f}x: the ceiling of 2 workers on this machine now)"
                    )
    if len(serial) >= 2:
        ns = [r["n"] for r in serial]
        et = _exponent(ns, [r["seconds"] for r in serial])
        em = _exponent(ns, [r["peak_mb"] - r["rss_before_mb"] + 1.0 for r in serial])
        big = serial[-1]
        t10 = big["seconds"] * (10000 / big["n"]) ** et
        print(f"time grows as n^{et:.2f}: about {t10:.0f} s at 10,000 models (extrapolated from {big['n']})")
        print(f"memory of the fit (peak - before) grows as n^{em:.2f}")
    print(f"PCA dims (query, response) per suite at the largest size: {serial[-1]['pca_dims'] if serial else None}")


if __name__ == "__main__":
    main()
