"""Embed the response chapters' texts once, on every core, before the chapters run.

Chapters 60, 64 and 65 embed answers and instructions of one shared AlpacaEval instruction pool
(chapter 64's and 65's pool of 64 per task contains chapter 60's 16; chapter 60 adds the unscored
models); chapters 64 and 65 also embed Arena-Bench v1's answers, and chapter 64 the texts of its
sensitivity table (a subset of models on every instruction, and read to 256 word pieces). In a cold
build each chapter would embed its own cache misses while the others run beside it: chapter 60 and
64 both start first (they run longest), so the texts they share were embedded twice, each chapter on
the cores the other chapters left it. Here the build embeds the union once, first, with one encoder
process per core (:func:`blindspot.perspective.pool_embedding.embed_pool`, ``n_jobs=-1``), into the
same cache the chapters read; each chapter then reads every vector back and embeds nothing.

The selection of each chapter's texts is the chapter's own (the functions its notebook calls:
:func:`~blindspot.perspective.alpaca.model_subset`, :func:`~blindspot.perspective.routing_study.pool_models`,
:func:`~blindspot.perspective.offloading.offload_rows`, :func:`~blindspot.perspective.offloading.arena_offload_rows`,
:func:`~blindspot.perspective.routing_sensitivity.sensitivity_texts`), at the sizes of its run parameters in
the claims registry, each with the word pieces it is read to. The step is an optimisation only: a text it
misses is embedded by its chapter (the page says so: "cold: n texts embedded"), and a failure here is
reported and left to the chapters.

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
from blindspot.perspective import alpaca, arena_bench, offloading, pool_embedding, routing_sensitivity, routing_study

__all__ = ["POOLS", "MAX_TOKENS", "alpaca_eval_texts", "warm_pools"]

#: Word pieces per text: the ``max_tokens`` parameter of the chapters that embed (their default).
MAX_TOKENS = 64


def _arena(data_dir, run: Run) -> arena_bench.ArenaBenchData | None:
    data = arena_bench.arena_bench_data(data_dir, n_prompts=None if run.arena_prompts == "all" else run.arena_prompts)
    return None if data.synthetic else data  # the stand-in carries its vectors


def _rows_60(load, run: Run, data_dir) -> list:
    ae = load(run.pool_size)
    n_pop = None if run.n_population == "all" else run.n_population
    return [(ae.responses[ae.responses.model_id.isin(alpaca.model_subset(ae.models, n_pop))], MAX_TOKENS)]


def _rows_64(load, run: Run, data_dir) -> list:
    if run.responses != "alpaca_eval":  # a reader's response cache: nothing of AlpacaEval's to embed
        return []
    ae = load(run.pool_size)
    out = [(ae.responses[ae.responses.model_id.isin(routing_study.pool_models(ae.models))], MAX_TOKENS)]
    plan = routing_sensitivity.SensitivityPlan(
        run.pool_size, run.sensitivity_models, None if run.wide_pool == "all" else run.wide_pool, run.long_tokens
    )
    out += routing_sensitivity.sensitivity_texts(data_dir, plan)
    arena = _arena(data_dir, run)
    if arena is not None:
        out.append(
            (arena.responses[arena.responses.model_id.isin(routing_study.pool_models(arena.models))], MAX_TOKENS)
        )
    return out


def _rows_65(load, run: Run, data_dir) -> list:
    if run.responses != "alpaca_eval":
        return []
    out = [(offloading.offload_rows(load(run.pool_size))[0], MAX_TOKENS)]
    arena = _arena(data_dir, run)
    if arena is not None:
        out.append((offloading.arena_offload_rows(arena)[0], MAX_TOKENS))
    return out


#: Each chapter of the ``alpaca_eval`` pool and the function that selects its texts (as its notebook does).
_SELECT = {
    "60_alpaca_eval_query_efficiency": _rows_60,
    "64_routing_behavioural_stand_in": _rows_64,
    "65_offloading_under_a_contract": _rows_65,
}


def alpaca_eval_texts(stems: Iterable[str], registry: Registry, quick: bool, data_dir=None) -> pd.DataFrame:
    """The distinct ``(query, response, max_tokens)`` texts the chapters ``stems`` embed, at their registry run sizes.

    Parameters
    ----------
    stems : iterable of str
        Chapters to execute.
    registry : Registry
        The claims registry (the chapters' run parameters).
    quick : bool
        Quick mode's sizes.
    data_dir : path, optional

    Returns
    -------
    DataFrame
        ``query, response, max_tokens``; empty when the AlpacaEval data are absent (the chapters run on a
        synthetic stand-in that carries its own vectors) or no chapter of ``stems`` embeds texts.
    """
    loaded: dict[int, alpaca.AlpacaEvalData] = {}

    def load(pool_size: int) -> alpaca.AlpacaEvalData:
        if pool_size not in loaded:
            loaded[pool_size] = alpaca.alpaca_eval_data(data_dir, queries_per_task=pool_size)
        return loaded[pool_size]

    frames = []
    for stem in stems:
        if stem in _SELECT:
            run = Run(stem, dict(registry.chapter(stem).run), quick, {})
            if load(run.pool_size).synthetic:  # the stand-in carries its vectors
                return pd.DataFrame(columns=["query", "response", "max_tokens"])
            frames += [f[["query", "response"]].assign(max_tokens=k) for f, k in _SELECT[stem](load, run, data_dir)]
    frames = [f for f in frames if len(f)]
    if not frames:
        return pd.DataFrame(columns=["query", "response", "max_tokens"])
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
    report per pool and truncation embedded. An error is printed as a warning and left to the chapters,
    which embed what is still missing themselves.
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
            for tokens, group in texts.groupby("max_tokens", sort=True):
                _, rep = pool_embedding.embed_pool(
                    group[["query", "response"]], max_tokens=int(tokens), cache_dir=cache_dir, progress=progress,
                    n_jobs=-1,
                )  # fmt: skip
                reports.append(rep)
        except Exception as err:
            warnings.warn(
                f"embedding the {name} pool ahead of its chapters failed ({err}); they embed it themselves",
                RuntimeWarning,
                stacklevel=2,
            )
    return reports
