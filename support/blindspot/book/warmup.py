"""Embed the AlpacaEval chapters' shared pool once, on every core, before the chapters run.

Chapters 60, 64 and 65 embed answers and instructions of one shared instruction pool (chapter 64's
and 65's pool of 64 per task contains chapter 60's 16; chapter 60 adds the unscored models). In a
cold build each chapter would embed its own cache misses while the others run beside it: chapter 60
and 64 both start first (they run longest), so the texts they share were embedded twice, each
chapter on the cores the other chapters left it. Here the build embeds the union once, first, with
one encoder process per core (:func:`blindspot.perspective.pool_embedding.embed_pool`, ``n_jobs=-1``),
into the same cache the chapters read; each chapter then reads every vector back and embeds nothing.

The selection of each chapter's texts is the chapter's own (the functions its notebook calls:
:func:`~blindspot.perspective.alpaca.model_subset`, :func:`~blindspot.perspective.routing_study.pool_models`,
:func:`~blindspot.perspective.offloading.offload_rows`), at the pool sizes of its run parameters in the
claims registry. The step is an optimisation only: a text it misses is embedded by its chapter (the
page says so: "cold: n texts embedded"), and a failure here is reported and left to the chapters.

A chapter takes part by saying so in its front matter: ``blindspot: {embeds: alpaca_eval}``.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from blindspot.book.claims import Registry
from blindspot.book.ledger import Run
from blindspot.perspective import alpaca, offloading, pool_embedding, routing_study

__all__ = ["POOLS", "MAX_TOKENS", "alpaca_eval_texts", "warm_pools"]

#: Word pieces per text: the ``max_tokens`` parameter of the chapters that embed (their default).
MAX_TOKENS = 64


def _rows_60(load, run: Run) -> pd.DataFrame:
    ae = load(run.pool_size)
    n_pop = None if run.n_population == "all" else run.n_population
    return ae.responses[ae.responses.model_id.isin(alpaca.model_subset(ae.models, n_pop))]


def _rows_64(load, run: Run) -> pd.DataFrame:
    if run.responses != "alpaca_eval":  # a reader's response cache: nothing of AlpacaEval's to embed
        return pd.DataFrame()
    ae = load(run.pool_size)
    return ae.responses[ae.responses.model_id.isin(routing_study.pool_models(ae.models))]


def _rows_65(load, run: Run) -> pd.DataFrame:
    return offloading.offload_rows(load(run.pool_size))[0] if run.responses == "alpaca_eval" else pd.DataFrame()


#: Each chapter of the ``alpaca_eval`` pool and the function that selects its texts (as its notebook does).
_SELECT = {
    "60_alpaca_eval_query_efficiency": _rows_60,
    "64_routing_behavioural_stand_in": _rows_64,
    "65_offloading_under_a_contract": _rows_65,
}


def alpaca_eval_texts(stems: Iterable[str], registry: Registry, quick: bool, data_dir=None) -> pd.DataFrame:
    """The distinct ``(query, response)`` texts the chapters ``stems`` embed, at their registry run sizes.

    Empty when the AlpacaEval data are absent (the chapters run on a synthetic stand-in that carries
    its own vectors) or no chapter of ``stems`` embeds AlpacaEval texts.
    """
    loaded: dict[int, alpaca.AlpacaEvalData] = {}

    def load(pool_size: int) -> alpaca.AlpacaEvalData:
        if pool_size not in loaded:
            loaded[pool_size] = alpaca.load_alpaca_eval(data_dir, queries_per_task=pool_size)
        return loaded[pool_size]

    frames = []
    for stem in stems:
        if stem in _SELECT:
            run = Run(stem, dict(registry.chapter(stem).run), quick, {})
            if load(run.pool_size).synthetic:  # the stand-in carries its vectors
                return pd.DataFrame(columns=["query", "response"])
            frames.append(_SELECT[stem](load, run))
    frames = [f[["query", "response"]] for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=["query", "response"])
    return pd.concat(frames, ignore_index=True).drop_duplicates(ignore_index=True)


#: The pools a chapter's front matter may name (``embeds:``), and the function that lists their texts.
POOLS = {"alpaca_eval": alpaca_eval_texts}


def warm_pools(
    pools: dict[str, list[str]],
    registry: Registry,
    quick: bool,
    data_dir=None,
    cache_dir: str | Path | None = None,
    progress: bool = True,
) -> list[pool_embedding.EmbeddingReport]:
    """Embed the texts of each pool (``{pool name: chapters to execute that embed it}``) into the cache.

    Only with the local encoder (with hashing there is nothing to save); on every core. Returns one
    report per pool embedded. An error is printed as a warning and left to the chapters, which embed
    what is still missing themselves.
    """
    unknown = set(pools) - set(POOLS)
    if unknown:
        raise ValueError(f"front matter names unknown embedding pools {sorted(unknown)}; known: {sorted(POOLS)}")
    if not pools or not pool_embedding.local_model_available():
        return []
    reports = []
    for name, stems in pools.items():
        try:
            texts = POOLS[name](stems, registry, quick, data_dir)
            if len(texts) == 0:
                continue
            if progress:
                print(f"embedding the {name} pool of {', '.join(stems)} first, on every core", file=sys.stderr)
            _, rep = pool_embedding.embed_pool(
                texts, max_tokens=MAX_TOKENS, cache_dir=cache_dir, progress=progress, n_jobs=-1
            )
            reports.append(rep)
        except Exception as err:  # noqa: BLE001 - an optimisation: the chapters embed what is missing
            warnings.warn(f"embedding the {name} pool ahead of its chapters failed ({err}); they embed it themselves",
                          RuntimeWarning, stacklevel=2)
    return reports
