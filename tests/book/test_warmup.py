"""The build's embedding step: the pools chapters name, the texts it embeds ahead of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from blindspot.book import warmup
from blindspot.book.chapters import chapter_embeds, project_root, read_chapter, toc_chapters
from blindspot.book.claims import load_registry
from blindspot.data.suites import resolve_data_dir
from blindspot.perspective import alpaca, routing_study

ROOT = project_root()
REGISTRY = load_registry(ROOT)


def test_every_chapter_that_names_a_pool_has_a_text_selection():
    named = {s: chapter_embeds(read_chapter(ROOT / "notebooks" / f"{s}.md")) for s in toc_chapters(ROOT)}
    named = {s: p for s, p in named.items() if p}
    assert set(named.values()) <= set(warmup.POOLS)
    assert sorted(named) == sorted(warmup._SELECT)  # a chapter the step cannot select for would embed alone


def test_an_unknown_pool_is_refused():
    with pytest.raises(ValueError, match="unknown embedding pools"):
        warmup.warm_pools({"not_a_pool": ["x"]}, REGISTRY, quick=True, progress=False)


def test_no_chapter_of_the_pool_means_no_texts():
    assert len(warmup.alpaca_eval_texts(["01_effective_dimensionality"], REGISTRY, quick=True)) == 0


def test_the_synthetic_stand_in_needs_no_embedding(tmp_path, monkeypatch):
    monkeypatch.setenv("BLINDSPOT_DATA", str(tmp_path))  # an empty data folder: the stand-in carries vectors
    assert len(warmup.alpaca_eval_texts(list(warmup._SELECT), REGISTRY, quick=True, data_dir=tmp_path)) == 0


def _have_alpaca() -> bool:
    root = resolve_data_dir()
    return bool(root) and (Path(root) / "alpaca_eval_responses").is_dir()


@pytest.mark.skipif(not _have_alpaca(), reason="needs the AlpacaEval data")
def test_the_union_holds_each_chapters_texts_once():
    texts = warmup.alpaca_eval_texts(list(warmup._SELECT), REGISTRY, quick=True)
    assert not texts.duplicated().any()
    got = set(texts["query"]) | set(texts["response"])
    # chapter 64's own selection (its notebook's lines) at its quick pool size
    pool = REGISTRY.chapter("64_routing_behavioural_stand_in").run["pool_size"]["quick"]
    ae = alpaca.alpaca_eval_data(None, queries_per_task=pool)
    rows = ae.responses[ae.responses.model_id.isin(routing_study.pool_models(ae.models))]
    assert set(rows["query"]) | set(rows["response"]) <= got
    # the larger pool of chapter 60's quick run is not a subset of 64's: the union is larger than either
    only64 = warmup.alpaca_eval_texts(["64_routing_behavioural_stand_in"], REGISTRY, quick=True)
    assert len(texts) > len(only64)
