"""`blindspot analyze` time and peak memory as the leaderboard grows, before vs after issue 15.

Run: .venv/bin/python benchmarks/analyze_scaling.py [--repeats 3] [--before 89e164b] [--timeout 900]

Sizes: n = 1,000 / 10,000 / 100,000 models at k = 50 benchmarks, and k = 20 / 200 / 2,000
benchmarks at n = 30 models, each a seeded synthetic leaderboard (4 latent factors) written as
CSV, analysed with the default settings (1,000 resamples, frontier 0.5). Each run is a separate
``python -m blindspot analyze FILE --quiet`` process: wall time from start to exit (imports
included) and the process's own peak resident memory (``os.wait4`` rusage, ru_maxrss).

"Before" runs the package as it was at ``--before`` (default: 89e164b, the last commit before the
issue-15 changes), extracted with ``git archive`` into a temporary folder; "after" runs this
checkout. Before runs are capped by ``--timeout`` seconds and an address-space limit of
``--mem-limit-gb`` (the old code needs O(n^2) memory in the width-model diagnostics and
n_boot x k^2 in the bootstrap, and would take the machine down). The growth exponent in n is the
least-squares slope of log(time) against log(n) over the k = 50 sizes (1 = linear).

The machine is shared: the table gives min / median / max over ``--repeats`` runs of "after" and
the load average around the runs; quote the median.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from blindspot.data.synthetic import synthetic_scores

ROOT = Path(__file__).resolve().parents[1]
N_SIZES = ((1_000, 50), (10_000, 50), (100_000, 50))
K_SIZES = ((30, 20), (30, 200), (30, 2_000))


def write_file(folder: Path, n: int, k: int) -> Path:
    p = folder / f"scores_{n}x{k}.csv"
    if not p.exists():
        S, cols = synthetic_scores(n_models=n, n_benchmarks=k, n_factors=4, seed=0)
        df = pd.DataFrame(S, columns=cols)
        df.insert(0, "model", [f"model-{i:06d}" for i in range(n)])
        df.to_csv(p, index=False)
    return p


def extract(rev: str, folder: Path) -> Path:
    """The ``support`` tree of ``rev`` (git archive), for the "before" runs."""
    dest = folder / f"before-{rev}"
    if not dest.exists():
        dest.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "support"], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest / "support"


def measure(support: Path, path: Path, out: Path, repeats: int, timeout: float, mem_gb: float | None) -> dict:
    runs = []
    for _ in range(repeats):
        env = {**os.environ, "PYTHONPATH": str(support)}
        cmd = [sys.executable, "-m", "blindspot", "analyze", str(path), "--out", str(out), "--quiet"]

        def limit() -> None:  # runs in the child before exec
            if mem_gb:
                b = int(mem_gb * 2**30)
                resource.setrlimit(resource.RLIMIT_AS, (b, b))

        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, preexec_fn=limit)
        status, deadline = "ok", t0 + timeout
        while True:
            pid, code, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                proc.kill()
                pid, code, ru = os.wait4(proc.pid, 0)
                status = f"killed after {timeout:.0f} s"
                break
            time.sleep(0.05)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(code)
        err = proc.stderr.read().decode(errors="replace").strip().splitlines()
        if status == "ok" and proc.returncode != 0:
            last = err[-1] if err else ""
            status = "out of memory" if "MemoryError" in " ".join(err[-3:]) else f"exit {proc.returncode}: {last[:80]}"
        runs.append({"status": status, "seconds": wall, "peak_gb": ru.ru_maxrss / 2**20})
        if status != "ok":
            break
    ok = [r for r in runs if r["status"] == "ok"]
    secs = [r["seconds"] for r in ok]
    return {
        "status": "ok" if len(ok) == len(runs) else runs[-1]["status"],
        "runs": len(runs),
        "min_s": min(secs) if secs else None,
        "median_s": float(np.median(secs)) if secs else None,
        "max_s": max(secs) if secs else None,
        "peak_gb": max(r["peak_gb"] for r in runs),
        "fail_after_s": None if ok and len(ok) == len(runs) else runs[-1]["seconds"],
    }


def exponent(rows: list[dict], key: str, last: int | None = None) -> float | None:
    """Least-squares slope of log(median time) on log(n) at k = 50 (over the ``last`` largest sizes that finished)."""
    pts = [(r["n"], r[key]["median_s"]) for r in rows if r["k"] == 50 and key in r and r[key]["median_s"]]
    pts = pts[-last:] if last else pts
    if len(pts) < 2:
        return None
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def fmt(m: dict) -> str:
    if m["status"] != "ok":
        return f"{m['status']} ({m['fail_after_s']:.0f} s, {m['peak_gb']:.2f} GB)"
    return f"{m['median_s']:.1f} s [{m['min_s']:.1f}, {m['max_s']:.1f}], {m['peak_gb']:.2f} GB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", default="89e164b", help="git revision of the 'before' code (default 89e164b)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of 'after' per size (default 3)")
    ap.add_argument("--before-repeats", type=int, default=1, help="runs of 'before' per size (default 1)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds before a 'before' run is killed")
    ap.add_argument("--mem-limit-gb", type=float, default=12.0, help="address-space cap of a 'before' run")
    ap.add_argument("--skip-before", action="store_true", help="time only this checkout")
    ap.add_argument("--json", type=Path, default=None, help="also write the numbers here")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="analyze-scaling-"))
    after = ROOT / "support"
    before = None if args.skip_before else extract(args.before, work)
    rows = []
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start (shared)", flush=True)
    for n, k in N_SIZES + K_SIZES:
        path = write_file(work, n, k)
        row = {"n": n, "k": k}
        row["after"] = measure(after, path, work / "out-after", args.repeats, 3600, None)
        if before is not None:
            row["before"] = measure(
                before, path, work / "out-before", args.before_repeats, args.timeout, args.mem_limit_gb
            )
        row["load"] = os.getloadavg()[0]
        rows.append(row)
        print(
            f"n={n:>7,} k={k:>5,}  after: {fmt(row['after'])}"
            + (f"   before: {fmt(row['before'])}" if before is not None else "")
            + f"   (load {row['load']:.1f})",
            flush=True,
        )
    print("\n| n | k | after: median [min, max], peak RSS | before | load |\n|---|---|---|---|---|")
    for r in rows:
        b = fmt(r["before"]) if "before" in r else "-"
        print(f"| {r['n']:,} | {r['k']:,} | {fmt(r['after'])} | {b} | {r['load']:.1f} |")
    ea, eb = exponent(rows, "after"), (exponent(rows, "before") if before is not None else None)
    ea2, eb2 = exponent(rows, "after", 2), (exponent(rows, "before", 2) if before is not None else None)
    print(
        f"\ngrowth exponent in n (k = 50, log-log slope of median time; start-up and imports weigh on the small "
        f"sizes): after {ea:.2f} over all sizes, {ea2:.2f} between the two largest"
        + (f"; before {eb:.2f} and {eb2:.2f} over the sizes it finished" if eb is not None and eb2 is not None else "")
    )
    if args.json:
        out = {"rows": rows, "exponent_after": [ea, ea2], "exponent_before": [eb, eb2]}
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
