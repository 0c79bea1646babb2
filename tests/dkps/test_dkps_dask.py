"""The Dask recipe: the same PKPS code on a dask.distributed cluster, bit-identical to serial.

A ``LocalCluster`` of 2 worker processes (one thread each) stands in for a real cluster; joblib's
Dask backend (``joblib.parallel_config(backend="dask")``) sends the pair sums' blocks of models, and
the geometry's candidate bandwidths, to it.
"""

from __future__ import annotations

import numpy as np
import pytest
from joblib import parallel_config

import dkps.pair_sums as pair_sums
from dkps import PKPS, generate_benchmark_data
from dkps.synthetic import score_records

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0", silence_logs=40
    )
    cl = distributed.Client(cluster)
    yield cl
    cl.close()
    cluster.close()


def test_pkps_fit_and_predict_on_dask_equal_serial_bit_for_bit(client, monkeypatch):
    bd = generate_benchmark_data(d_obs=12, n_models=30, n_tasks=4, n_queries_per_task=8, obs_prob=0.6, random_state=1)
    records = score_records(bd)
    monkeypatch.setattr(pair_sums, "EXACT_UPDATE_BYTES", 0)  # the blocked path, as at scale
    make = lambda: PKPS(memory_budget=0.01, n_jobs=2)  # noqa: E731 - several blocks per fit
    serial = make()
    with parallel_config(backend="sequential"):
        serial.fit(records)
        p_serial = serial.predict(whiten=True)
    on_dask = make()
    with distributed.get_task_stream(client=client) as ts, parallel_config(backend="dask"):
        on_dask.fit(records)
        p_dask = on_dask.predict(whiten=True)
    ran = {t["worker"] for t in ts.data}
    assert len(ts.data) >= 2 and len(ran) >= 1  # the blocks ran on the cluster
    np.testing.assert_array_equal(on_dask._num, serial._num)
    for h in range(len(serial._coords)):  # the geometry's bandwidths ran as jobs too
        np.testing.assert_array_equal(on_dask._distances[h], serial._distances[h])
        np.testing.assert_array_equal(on_dask._coords[h], serial._coords[h])
    np.testing.assert_array_equal(on_dask.distance_matrix_, serial.distance_matrix_)
    # the fit-time bandwidth criterion's candidates ran as jobs too, with the same errors and choice
    assert any("_candidate_state" in str(t["key"]) for t in ts.data)
    assert on_dask.cv_errors_ == serial.cv_errors_ and on_dask.bandwidth_ == serial.bandwidth_
    assert p_dask == p_serial
