"""The benchmark's bound on a 2-worker fit: the best makespan of a step's jobs, and the sum over steps."""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import numpy as np
import pytest

_spec = importlib.util.spec_from_file_location(
    "pkps_scaling", Path(__file__).resolve().parents[1] / "benchmarks" / "pkps_scaling.py"
)
pkps_scaling = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(pkps_scaling)


def _partition(d):
    """Two workers' best makespan as a partition: the least max(sum(S), total - sum(S)) over subsets S."""
    total = sum(d)
    return min(max(sum(c), total - sum(c)) for r in range(len(d) + 1) for c in itertools.combinations(d, r))


@pytest.mark.parametrize("seed", range(20))
def test_two_worker_makespan_equals_the_best_partition(seed):
    rng = np.random.default_rng(seed)
    d = list(rng.uniform(0.1, 3.0, size=int(rng.integers(1, 9))))
    got = pkps_scaling.best_makespan(d, workers=2)
    assert got == pytest.approx(_partition(d))
    assert max(d) <= got + 1e-12 and sum(d) / 2 <= got + 1e-12


def test_three_workers_and_known_cases():
    assert pkps_scaling.best_makespan([1.0] * 5, workers=2) == 3.0
    assert pkps_scaling.best_makespan([3, 2, 2, 1], workers=2) == 4
    assert pkps_scaling.best_makespan([3, 3, 2, 2, 2], workers=3) == 5
    assert pkps_scaling.best_makespan([], workers=2) == 0.0
    with pytest.raises(ValueError, match="too many"):
        pkps_scaling.best_makespan([1.0] * 17)


def test_steps_are_runs_of_the_same_kind_and_the_client_is_the_rest():
    jobs = [("pair sums", 2.0), ("pair sums", 2.0), ("geometry", 1.0), ("geometry", 1.0), ("geometry", 1.0)]
    best, client, steps = pkps_scaling.schedule_bound(10.0, jobs)
    assert client == 3.0
    assert steps == [("pair sums", 2, 4.0, 2.0), ("geometry", 3, 3.0, 2.0)]
    assert best == 7.0


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="VmHWM is Linux's")
def test_peak_memory_is_the_process_own_not_its_parents():
    """A worker spawned by a process that holds 300 MB reports its own peak, not the parent's
    (``ru_maxrss`` survives ``exec``; the benchmark reads ``VmHWM``)."""
    import subprocess
    import sys

    held = np.ones(300 * 2**20 // 8)  # touched: 300 MB resident in this process
    script = Path(pkps_scaling.__file__).as_posix()
    code = f"import runpy; print(runpy.run_path({script!r})['_rss_mb']())"
    child = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert pkps_scaling._rss_mb() >= 300 and held.sum() > 0
    assert child < 200  # a fresh interpreter with numpy: tens of MB


def test_client_steps_are_timed_without_changing_the_fit(monkeypatch):
    """Each of the client's named steps is timed in a fit, all of them within the fit's wall time,
    and the timed fit gives the untimed fit's bits."""
    import time

    import dkps.pkps
    from dkps import PKPS, generate_benchmark_data
    from dkps.synthetic import score_records

    for name, _ in pkps_scaling.CLIENT_STEPS:  # undone after the test
        owner, attr = pkps_scaling._client_step_owner(dkps.pkps, name)
        monkeypatch.setattr(owner, attr, getattr(owner, attr))
    bd = generate_benchmark_data(d_obs=8, n_models=12, n_tasks=3, n_queries_per_task=4, random_state=0)
    records = score_records(bd)
    plain = PKPS().fit(records)
    spent: dict = {}
    pkps_scaling._timed_client_steps(dkps.pkps, spent)
    t = time.perf_counter()
    timed = PKPS().fit(records)
    wall = time.perf_counter() - t
    assert set(spent) == {label for _, label in pkps_scaling.CLIENT_STEPS}
    assert all(v > 0 for v in spent.values()) and sum(spent.values()) < wall
    np.testing.assert_array_equal(timed.distance_matrix_, plain.distance_matrix_)
