"""The size parser and the size-capped pools: a table of names, and every name AlpacaEval has."""

from __future__ import annotations

import pandas as pd
import pytest

from dkps.routing.sizes import parse_size, pool_members, size_pools

TABLE = [
    ("Mixtral-8x7B-Instruct-v0.1", 56),
    ("vicuna-13b-v1.5", 13),
    ("FuseChat-Llama-3.2-1B-Instruct", 1),
    ("FuseChat-Gemma-2-9B-Instruct", 9),
    ("OpenHermes-2.5-Mistral-7B", 7),
    ("Qwen-14B-Chat", 14),
    ("openbuddy-llama2-70b-v10.1", 70),
    ("gemma-2b-it", 2),
    ("chatglm2-6b", 6),
    ("phi-2", None),
    ("claude-2.1", None),
    ("gpt4_1106_preview", None),
    ("alpaca-farm-ppo-sim-gpt4-20k", None),
    # further cases of the rule: decimals, the largest match, separators, mixtures first
    ("Qwen1.5-1.8B-Chat", 1.8),
    ("LMCocktail-10.7B-v1", 10.7),
    ("GPO-Llama-3-8B-Instruct-GPM-2B", 8),
    ("aligner-2b_claude-3-opus-20240229", 2),
    ("Mixtral-8x22B-Instruct-v0.1", 176),
    ("Mistral-7B+RAHF-DUAL+LoRA", 7),
    ("ghost-8b-beta-disl-0x5", 8),
    ("SPPO-Mistral7B-PairRM", 7),
    ("model-7bit", None),  # b followed by a letter
    ("model-30b2", None),  # b followed by a digit
    ("", None),
]


@pytest.mark.parametrize(("name", "size"), TABLE)
def test_parse_size_table(name, size):
    got = parse_size(name)
    if size is None:
        assert got is None
    else:
        assert got == pytest.approx(size)


def test_parse_size_rejects_non_strings():
    with pytest.raises(ValueError, match="string"):
        parse_size(7)


# The 56 scored AlpacaEval models (58 scored minus NullModel and gpt4_gamed) with the size their
# name says, read by hand.
SCORED = {
    "oasst-sft-pythia-12b": 12, "text_davinci_003": None, "alpaca-7b_concise": 7,
    "falcon-7b-instruct": 7, "phi-2": None, "pythia-12b-mix-sft": 12, "alpaca-7b": 7,
    "chatglm2-6b": 6, "text_davinci_001": None, "alpaca-7b_verbose": 7, "minichat-3b": 3,
    "falcon-40b-instruct": 40, "gemma-2b-it": 2, "alpaca-farm-ppo-sim-gpt4-20k": None,
    "phi-2-sft": None, "alpaca-farm-ppo-human": None, "vicuna-7b": 7, "baize-v2-13b": 13,
    "vicuna-7b-v1.3": 7, "oasst-sft-llama-33b": 33, "vicuna-7b-v1.5": 7, "ultralm-13b": 13,
    "nous-hermes-13b": 13, "minotaur-13b": 13, "vicuna-13b": 13, "wizardlm-13b": 13,
    "openbuddy-falcon-40b-v9": 40, "openbuddy-llama-30b-v7.1": 30,
    "openbuddy-llama2-13b-v11.1": 13, "oasst-rlhf-llama-33b": 33, "vicuna-13b-v1.5": 13,
    "gemma-7b-it": 7, "vicuna-13b-v1.5-togetherai": 13, "gpt-3.5-turbo-1106_concise": None,
    "Qwen-14B-Chat": 14, "jina-chat": None, "openbuddy-llama2-70b-v10.1": 70,
    "gpt35_turbo_instruct": None, "gpt-3.5-turbo-1106": None, "claude-2.1_concise": None,
    "gpt4_0613_concise": None, "gpt-3.5-turbo-0301": None, "humpback-llama2-70b": 70,
    "OpenHermes-2.5-Mistral-7B": 7, "gpt-3.5-turbo-1106_verbose": None,
    "Mixtral-8x7B-Instruct-v0.1_concise": 56, "claude-2.1": None, "claude-instant-1.2": None,
    "claude": None, "claude-2": None, "FuseChat-Llama-3.2-1B-Instruct": 1,
    "gpt4_1106_preview": None, "FuseChat-Llama-3.2-3B-Instruct": 3,
    "FuseChat-Llama-3.1-8B-Instruct": 8, "FuseChat-Qwen-2.5-7B-Instruct": 7,
    "FuseChat-Gemma-2-9B-Instruct": 9,
}  # fmt: skip


def test_scored_sizes_and_pools():
    assert len(SCORED) == 56
    for name, size in SCORED.items():
        assert parse_size(name) == size, name
    pools = size_pools(SCORED, exclude=["FuseChat-Gemma-2-9B-Instruct"])
    assert pools["le3b"] == sorted(
        ["minichat-3b", "gemma-2b-it", "FuseChat-Llama-3.2-1B-Instruct", "FuseChat-Llama-3.2-3B-Instruct"]
    )
    le8 = sorted(n for n, s in SCORED.items() if s is not None and s <= 8)
    assert pools["le8b"] == le8 and len(le8) == 16
    assert "FuseChat-Gemma-2-9B-Instruct" not in pools["le13b"]
    assert len(pools["le13b"]) == 16 + 2 + 9  # the 9B flagship out; two 12B and nine 13B models in
    assert len(pools["all"]) == 55
    unsized = {n for n, s in SCORED.items() if s is None}
    assert len(unsized) == 19
    for pool in ("le3b", "le8b", "le13b"):
        assert not unsized & set(pools[pool])
    assert unsized <= set(pools["all"])
    # pools are nested
    assert set(pools["le3b"]) <= set(pools["le8b"]) <= set(pools["le13b"]) <= set(pools["all"])


def test_every_alpaca_eval_name(data_dir):
    """Every AlpacaEval model name parses; the unsized ones are exactly the closed / size-less names."""
    path = data_dir / "alpaca_eval_responses" / "models.csv"
    if not path.exists():
        pytest.skip("AlpacaEval responses not in the data directory")
    names = pd.read_csv(path)["model_id"].tolist()
    sizes = {n: parse_size(n) for n in names}
    unsized = sorted(n for n, s in sizes.items() if s is None)
    expected_unsized_prefixes = (
        "claude", "gpt", "text_davinci", "jina-chat", "phi-2", "alpaca-farm-", "bedrock_claude",
        "cohere", "gemini-pro", "mistral-large", "mistral-medium", "mistral-orpo", "yi-large",
        "dbrx", "Samba-CoE", "Together-MoA", "TOA", "Shopee-SlimMoA", "Snorkel-Mistral-PairRM-DPO",
        "openpipe-moa", "blendaxai", "Nanbeige-Plus", "NullModel", "FsfairX", "Contextual-KTO",
    )  # fmt: skip
    for n in unsized:
        assert n.startswith(expected_unsized_prefixes), n
    assert len(unsized) == 61
    sized = {n: s for n, s in sizes.items() if s is not None}
    assert min(sized.values()) == 1.0 and max(sized.values()) == 405.0
    assert sized["Meta-Llama-3.1-405B-Instruct-Turbo"] == 405
    assert sized["aligner-2b_qwen1.5-72b-chat"] == 72  # the largest size in the name
    pools = size_pools(names)
    for cap, pool in ((3, "le3b"), (8, "le8b"), (13, "le13b")):
        assert pools[pool] == sorted(n for n, s in sized.items() if s <= cap)
    assert pools["all"] == sorted(names)
    assert not set(unsized) & set(pools["le13b"])


def test_pool_members_exclude_and_bad_cap():
    sizes = {"a-1b": 1.0, "b-7b": 7.0, "c": None}
    assert pool_members(sizes, 7, exclude=["b-7b"]) == ["a-1b"]
    assert pool_members(sizes, None) == ["a-1b", "b-7b", "c"]
    with pytest.raises(ValueError, match="cap"):
        pool_members(sizes, -1)
