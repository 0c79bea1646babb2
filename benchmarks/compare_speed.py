"""blindspot compare: two models x 41,871 items x 10,000 resamples (issue 53 asks for under 5 s).

Run: .venv/bin/python benchmarks/compare_speed.py

Three paths of :mod:`blindspot.prognose.paired_comparison`, each best of ``repeats`` (the machine may be
shared), against a baseline in the same run:

1. ``compare_pair`` on binary scores (the real case: ``item_level_psn_irt``, or its synthetic stand-in of the
   same size): the exact McNemar test plus the 10,000-resample stratified bootstrap of the overall differences;
2. the paired bootstrap forced on those binary scores (3 distinct differences: the multinomial-counts path);
3. the paired bootstrap on continuous scores (41,871 distinct differences: the chunked index path);

and the baseline, a Python loop over resamples (``rng.choice`` per resample), timed on 500 resamples and
scaled to 10,000. The bootstrap intervals of the vectorised paths and the loop must agree to Monte Carlo
accuracy.
"""

from __future__ import annotations

import time

import numpy as np

from blindspot.data.item_results import load_psn_irt, synthetic_item_responses
from blindspot.prognose import paired_comparison as pc

N_ITEMS = 41_871


def best(f, repeats: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main(n_boot: int = 10_000, repeats: int = 3) -> None:
    items = load_psn_irt()
    if items.synthetic:
        items = synthetic_item_responses(n_models=2, n_items=N_ITEMS)
    wide = items.frame.pivot(index="item", columns="model", values="score")
    a, b = (wide[m].to_numpy() for m in wide.columns[:2])
    print(f"{items.describe()}; comparing {wide.columns[0]} and {wide.columns[1]} on {a.size:,} items")

    t1, c = best(lambda: pc.compare_pair({"all": a}, {"all": b}, n_boot=n_boot), repeats)
    print(f"1. compare_pair, binary (McNemar + {n_boot:,}-resample overall bootstrap): {t1:.3f} s")
    t2, tb = best(lambda: pc.bootstrap_test(a, b, n_boot=n_boot), repeats)
    print(f"2. paired bootstrap forced on binary scores (counts path): {t2:.3f} s")
    rng = np.random.default_rng(0)
    ac = rng.random(a.size)
    bc = 0.5 * ac + 0.5 * rng.random(a.size)
    t3, tc = best(lambda: pc.bootstrap_test(ac, bc, n_boot=n_boot), repeats)
    print(f"3. paired bootstrap on continuous scores ({np.unique(bc - ac).size:,} distinct; index path): {t3:.3f} s")

    m = 500
    r = np.random.default_rng(1)
    x = bc - ac
    t0 = time.perf_counter()
    loop = np.array([x[r.choice(x.size, x.size)].mean() for _ in range(m)])
    t_loop = (time.perf_counter() - t0) * n_boot / m
    print(f"baseline: a Python loop over resamples, scaled to {n_boot:,}: {t_loop:.1f} s")
    se = loop.std()
    lo, hi = np.quantile(loop, [0.025, 0.975])
    assert abs(tc.interval[0] - lo) < 0.2 * se and abs(tc.interval[1] - hi) < 0.2 * se, (
        "bootstrap disagrees with the loop"
    )
    xb = b - a
    assert abs(tb.se - xb.std(ddof=1) / np.sqrt(xb.size)) < 0.03 * tb.se, "counts path: wrong standard error"
    print(
        f"McNemar: difference {c.tests[0].estimate:+.4f} [{c.tests[0].interval[0]:+.4f}, {c.tests[0].interval[1]:+.4f}], "
        f"bootstrap (counts) [{tb.interval[0]:+.4f}, {tb.interval[1]:+.4f}]; continuous: loop and vectorised intervals "
        f"agree within 0.2 se"
    )
    worst = max(t1, t2, t3)
    print(
        f"slowest path {worst:.2f} s: {'under' if worst < 5 else 'OVER'} the 5 s target; loop/continuous {t_loop / t3:.1f}x"
    )


if __name__ == "__main__":
    main()
