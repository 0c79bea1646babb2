"""Chapter 60's m-sweep and chapter 64's routing study, before vs after the speed-ups of issue 25, same results.

Run: BLINDSPOT_DATA=... DKPS_CACHE_DIR=... .venv/bin/python benchmarks/study_speed.py [--before 4c1beaf]
     [--repeats 2] [--only winrate|routing]

Each study runs as in its chapter on the real AlpacaEval pool (chapter 60: ``winrate_study`` on the
16-query pool of the population models, m = 1, 2, 4, 8, 16, seeds 0-2; chapter 64:
``routing_study`` on the 64-query pool, seeds 0-4), serially (``n_jobs=1``) with one BLAS thread
(``OMP_NUM_THREADS=1``), in a fresh process per run. "Before" runs the ``support`` tree of
``--before`` (default 4c1beaf, the last commit before these changes, extracted with ``git archive``),
"after" this checkout, alternately, so both see the same machine. Timed: the study call only (the
embedding is read from the cache ``DKPS_CACHE_DIR`` before the clock starts; a cold cache embeds
first, untimed). Reported: wall and CPU seconds, min / median over ``--repeats``.

Every run pickles its results (chapter 60: the ``runs``, ``summary`` and ``connectivity`` frames;
chapter 64: every field but the timings and the premise, which older trees do not measure) and the script asserts that "after" equals "before" bit
for bit (``pandas.testing.assert_frame_equal(check_exact=True)``, ``np.array_equal``).
"""

from __future__ import annotations

import argparse
import os
import pickle
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import dataclasses, pickle, sys, time
import numpy as np
from blindspot.perspective import alpaca, pool_embedding
which, out = sys.argv[1], sys.argv[2]
if which == "winrate":
    from blindspot.perspective import winrate
    ae = alpaca.alpaca_eval_data(None, queries_per_task=16)
    keep = alpaca.model_subset(ae.models, None)
    population = set(ae.population)
    rows = ae.responses[ae.responses.model_id.isin(keep)].reset_index(drop=True)
else:
    from blindspot.perspective import routing_study
    ae = alpaca.alpaca_eval_data(None, queries_per_task=64)
    scored = ae.models.index[ae.models.n_scored > 0]
    rows = ae.responses[ae.responses.model_id.isin([m for m in scored if m not in routing_study.EXCLUDED])]
    rows = rows.reset_index(drop=True)
if ae.synthetic:
    sys.exit("no AlpacaEval data: set BLINDSPOT_DATA")
provider = "sentence-transformers" if pool_embedding.local_model_available() else "hash"
records, _ = pool_embedding.embed_pool(rows, provider=provider, max_tokens=64, progress=False)
if which == "winrate":
    recs = records[records.model_id.isin([m for m in keep if m in population])].reset_index(drop=True)
    t, c = time.perf_counter(), time.process_time()
    st = winrate.winrate_study(recs, ae.models, ae.task_weights, ms=(1, 2, 4, 8, 16), seeds=range(3), n_jobs=1)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    result = dict(runs=st.runs, summary=st.summary, connectivity=st.connectivity)
else:
    suite = routing_study.suite_from_records(records)
    try:  # the study moved to dkps.routing.mimicry_study (and measures the premise too); older trees have it here
        from dkps.routing.mimicry_study import run_mimicry_study as study_of
    except ImportError:
        study_of = routing_study.routing_study
    t, c = time.perf_counter(), time.process_time()
    st = study_of(suite, range(5), n_jobs=1)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    result = {f.name: getattr(st, f.name) for f in dataclasses.fields(st) if f.name not in ("seconds", "suite", "premise")}
    result["results"] = [dataclasses.asdict(r) for r in st.results]
with open(out, "wb") as f:
    pickle.dump(dict(wall=wall, cpu=cpu, result=result), f)
"""


def support_at(rev: str, dest: Path) -> Path:
    """The ``support`` tree of ``rev`` (git archive), for the "before" runs."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "support"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest / "support"


def run(which: str, support: Path, out: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(support), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    env["MKL_NUM_THREADS"] = "1"
    subprocess.run([sys.executable, "-c", CHILD, which, str(out)], env=env, check=True)
    with open(out, "rb") as f:
        return pickle.load(f)


def same(a, b, path="result") -> None:
    """Assert ``a`` and ``b`` are equal bit for bit (frames, arrays, containers, scalars)."""
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b, check_exact=True, obj=path)
    elif isinstance(a, pd.Series):
        pd.testing.assert_series_equal(a, b, check_exact=True, obj=path)
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), path
    elif isinstance(a, dict):
        assert list(a) == list(b), path
        for k in a:
            same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b), path
    else:
        assert type(a) is type(b) and a == b, (path, a, b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="4c1beaf")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--only", choices=("winrate", "routing"))
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="study-speed-"))
    before = support_at(args.before, work)
    rows = []
    for which in [args.only] if args.only else ["winrate", "routing"]:
        times = {"before": [], "after": []}
        for r in range(args.repeats):
            got = {}
            for label, support in (("before", before), ("after", ROOT / "support")):
                got[label] = run(which, support, work / f"{which}-{label}-{r}.pkl")
                times[label].append((got[label]["wall"], got[label]["cpu"]))
            same(got["after"]["result"], got["before"]["result"])
        for label, t in times.items():
            w, c = np.array(t).T
            rows.append(
                dict(study=which, code=label, wall_min=w.min(), wall_median=np.median(w), cpu_median=np.median(c))
            )
        print(f"{which}: after == before, bit for bit ({args.repeats} runs each)", flush=True)
    table = pd.DataFrame(rows).round(1)
    print(table.to_string(index=False))
    print("load average:", os.getloadavg())


if __name__ == "__main__":
    main()
