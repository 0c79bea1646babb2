"""blindspot.perspective.alpaca: the AlpacaEval loader, its rules (family, kind, pool) and bad input."""

from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pandas as pd
import pytest
from alpaca_fixture import MODELS, SCORED, TASKS, WIN, make_data_dir, responses

from blindspot.perspective import alpaca
from dkps import DKPS, PKPS, SampleScore, UnknownIdError
from dkps.embed import hash_embed

HASH = dict(embedding_kwargs=dict(provider="hash", model="hash-64"))


# ------------------------------------------------------------------------------------ rules
@pytest.mark.parametrize(
    "model_id, family",
    [
        ("Meta-Llama-3-8B-Instruct", "llama"),
        ("llama-2-70b-chat-hf", "llama"),
        ("gpt4_0613", "gpt"),
        ("gpt-3.5-turbo-0301", "gpt"),
        ("text_davinci_001", "gpt"),
        ("Mixtral-8x7B-Instruct-v0.1", "mistral"),
        ("Mistral-7B-Instruct-v0.2", "mistral"),
        ("bedrock_claude", "claude"),
        ("claude-2.1", "claude"),
        ("tulu-2-dpo-70b-ExPO", "tulu"),
        ("Qwen1.5-72B-Chat", "qwen"),
        ("FuseChat-Gemma-2-9B-Instruct", "fusechat"),
        ("007", "007"),
    ],
)
def test_family_rule(model_id, family):
    assert alpaca.model_family(model_id) == family


def test_family_rule_rejects_bad_ids():
    for bad in ("", "   ", None, 3):
        with pytest.raises(ValueError, match="model_id must be a non-empty string"):
            alpaca.model_family(bad)


@pytest.mark.parametrize(
    "model_id, has, win, kind",
    [
        ("NullModel", True, 76.9, "adversarial"),
        ("gpt4_gamed", True, 3.7, "adversarial"),
        ("claude-2.1_verbose", True, 24.0, "length variant"),
        ("alpaca-7b_concise", True, 2.0, "length variant"),
        ("gpt4_1106_preview", True, 50.0, "reference"),
        ("Snorkel-x-best-of-16", False, 34.9, "no responses"),
        ("bedrock_claude", True, float("nan"), "no leaderboard score"),
        ("zephyr-7b-beta", True, 11.0, "population"),
    ],
)
def test_kind_rule(model_id, has, win, kind):
    assert alpaca.model_kind(model_id, has, win) == kind
    assert kind == "population" or kind in alpaca.EXCLUSION_REASONS


def test_pool_is_the_smallest_hashes_per_task_and_nested():
    q = pd.DataFrame({"task_id": ["a"] * 6 + ["b"] * 2, "query_id": list(range(6)) + [10, 11]})
    pool = alpaca.select_pool(q, 3)
    for t, g in q.groupby("task_id"):
        h = sorted((hashlib.sha1(f"{t}\0{i}".encode()).hexdigest(), str(i)) for i in g.query_id)
        want = [i for _, i in h[:3]]
        assert pool[pool.task_id == t].query_id.tolist() == want  # brute force, in hash order
    assert len(pool[pool.task_id == "b"]) == 2  # a task with fewer queries keeps all
    small = alpaca.select_pool(q, 2)
    assert set(zip(small.task_id, small.query_id)) <= set(zip(pool.task_id, pool.query_id))
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="per_task must be an int"):
            alpaca.select_pool(q, bad)
    with pytest.raises(ValueError, match="need the columns"):
        alpaca.select_pool(q[["task_id"]], 2)


# ------------------------------------------------------------------------------------ loading
def test_loader_reads_the_folder(tmp_path):
    root = make_data_dir(tmp_path)
    d = alpaca.alpaca_eval_data(root)
    assert not d.synthetic and "SYNTHETIC" not in d.describe()
    nq = sum(TASKS.values())
    assert len(d.responses) == len(MODELS) * nq
    assert set(d.responses.columns) >= {"model_id", "task_id", "query_id", "query", "response", "score", "family"}
    assert d.responses.query_id.map(type).eq(str).all()
    np.testing.assert_allclose(d.task_weights.to_numpy(), np.array([3, 2, 3]) / 8)
    m = d.models
    assert m.loc["NullModel", "kind"] == "adversarial" and m.loc["beta-chat_concise", "kind"] == "length variant"
    assert m.loc["gpt4_1106_preview", "kind"] == "reference" and m.loc["ghost-model", "kind"] == "no responses"
    assert d.population == ["alpha-7b", "alpha-13b", "beta-chat", "Gamma-1"]
    assert (
        m.loc["alpha-13b", "win_rate"] == WIN["alpha-13b"] and m.loc["alpha-13b", "lc_win_rate"] == WIN["alpha-13b"] + 1
    )
    assert m.loc["alpha-13b", "family"] == "alpha" == d.responses[d.responses.model_id == "alpha-13b"].family.iloc[0]
    assert set(d.excluded.index) == {"NullModel", "gpt4_1106_preview", "beta-chat_concise"}
    # the same folder given directly, and through $BLINDSPOT_DATA
    assert alpaca.alpaca_eval_data(root / "alpaca_eval_responses").responses.equals(d.responses)


def test_leaderboard_is_the_population_with_both_win_rates(tmp_path):
    d = alpaca.alpaca_eval_data(make_data_dir(tmp_path))
    board = alpaca.leaderboard(d)
    assert list(board.scores.index) == d.population and board.benchmarks == ["win_rate", "lc_win_rate"]
    assert board.scores.loc["alpha-13b", "win_rate"] == WIN["alpha-13b"] and not board.synthetic
    assert board.source == d.source and board.scores.loc["alpha-13b", "lc_win_rate"] == WIN["alpha-13b"] + 1
    empty = tmp_path / "empty"
    empty.mkdir()
    assert alpaca.leaderboard(alpaca.alpaca_eval_data(empty)).synthetic
    few = d.models.copy()
    few.loc[d.population[1:], "win_rate"] = np.nan
    with pytest.raises(ValueError, match="only 1 population model"):
        alpaca.leaderboard(alpaca.AlpacaEvalData(d.responses, few, d.queries, d.source))


def test_loader_resolves_the_environment_and_falls_back(tmp_path, monkeypatch):
    root = make_data_dir(tmp_path / "data")
    monkeypatch.setenv("BLINDSPOT_DATA", str(root))
    assert not alpaca.alpaca_eval_data().synthetic
    empty = tmp_path / "empty"
    empty.mkdir()
    s = alpaca.alpaca_eval_data(empty)
    assert s.synthetic and "SYNTHETIC" in s.describe()
    assert {"response_embedding", "query_embedding"} <= set(s.responses.columns)
    assert s.models.loc["NullModel", "kind"] == "adversarial" and len(s.population) == 80
    with pytest.raises(FileNotFoundError, match="alpaca_eval_responses"):
        alpaca.alpaca_eval_data(empty, fallback=False)
    with pytest.raises(ValueError, match="does not exist"):
        alpaca.alpaca_eval_data(tmp_path / "nowhere")


def test_loader_reads_only_the_pool_and_the_models_asked_for(tmp_path):
    root = make_data_dir(tmp_path)
    full = alpaca.alpaca_eval_data(root)
    d = alpaca.alpaca_eval_data(root, queries_per_task=2, models=["alpha-7b", "NullModel"])
    pool = alpaca.select_pool(full.queries, 2)
    assert set(zip(d.responses.task_id, d.responses.query_id)) == set(zip(pool.task_id, pool.query_id))
    assert set(d.responses.model_id) == {"alpha-7b", "NullModel"}
    assert len(d.models) == len(full.models)  # the model table keeps every model
    want = full.responses.merge(pool[["task_id", "query_id"]]).query("model_id in ['alpha-7b', 'NullModel']")
    pd.testing.assert_frame_equal(d.responses, want.reset_index(drop=True))


def test_model_subset_is_half_scored_and_keeps_the_adversarial(tmp_path):
    d = alpaca.alpaca_eval_data(make_data_dir(tmp_path))
    sub = alpaca.model_subset(d.models, 3)
    pop = [m for m in sub if d.models.loc[m, "kind"] == "population"]
    assert len(pop) == 3 and sum(m in SCORED for m in pop) == 2 and "NullModel" in sub
    assert alpaca.model_subset(d.models, 3) == sub  # deterministic
    full = alpaca.model_subset(d.models)
    assert set(full) == set(d.population) | {"NullModel", "gpt4_1106_preview", "beta-chat_concise"}
    assert "ghost-model" not in full
    with pytest.raises(ValueError, match="n_population"):
        alpaca.model_subset(d.models, 2)


# ------------------------------------------------------------------------------------ bad input (item 6)
def test_model_without_responses_is_listed_but_cannot_be_predicted(tmp_path):
    d = alpaca.alpaca_eval_data(make_data_dir(tmp_path))
    assert not d.models.loc["ghost-model", "has_responses"]
    assert "ghost-model" not in set(d.responses.model_id)
    assert "ghost-model" not in d.population  # kind 'no responses': kept out with its reason
    recs = d.responses.assign(reference_score=d.models.win_rate.reindex(d.responses.model_id).to_numpy() / 100)
    est = PKPS(**HASH).fit(recs)
    with pytest.raises(UnknownIdError, match="ghost-model"):  # dkps: predict never adds data
        est.predict([{"model_id": "ghost-model"}])
    with pytest.raises(ValueError, match="ghost-model"):
        SampleScore().fit(recs).predict([{"model_id": "ghost-model", "task_id": "koala"}])


def test_empty_response_is_kept_embedded_and_scored(tmp_path):
    d = alpaca.alpaca_eval_data(make_data_dir(tmp_path))
    row = d.responses[(d.responses.model_id == "Gamma-1") & (d.responses.query_id == "0")]
    assert row.response.tolist() == [""]
    np.testing.assert_array_equal(hash_embed([""], 64), np.zeros((1, 64)))  # dkps.embed: zero vector
    est = DKPS(**HASH).fit(d.responses.assign(reference_score=0.5))  # dkps.records accepts "" (only missing text fails)
    assert est.n_responses_.loc["Gamma-1", "helpful_base"] == 3
    with pytest.warns(UserWarning, match="dropped 1 empty responses"):
        dropped = alpaca.alpaca_eval_data(tmp_path, empty="drop")
    assert len(dropped.responses) == len(d.responses) - 1 and (dropped.responses.response != "").all()
    # a scored empty response counts in the cell's sample score like any other
    r = responses(empty_for=("alpha-7b", 0))
    d2 = alpaca.alpaca_eval_data(make_data_dir(tmp_path / "b", r))
    cell = d2.responses[(d2.responses.model_id == "alpha-7b") & (d2.responses.task_id == "helpful_base")]
    ss = SampleScore().fit(d2.responses).sample_scores_.loc["alpha-7b", "helpful_base"]
    assert "" in cell.response.tolist() and ss == pytest.approx(cell.score.mean())
    with pytest.raises(ValueError, match="empty must be"):
        alpaca.alpaca_eval_data(tmp_path, empty="skip")


def test_non_text_and_missing_responses_raise_with_the_row(tmp_path):
    r = responses()
    r["response"] = np.arange(len(r))  # a whole column of ints (parquet cannot mix types)
    with pytest.raises(ValueError, match=r"column 'response': row 0 \(model .*\) is a int, not a str"):
        alpaca.alpaca_eval_data(make_data_dir(tmp_path / "a", r))
    r = responses()
    r.loc[5, "response"] = None
    with pytest.raises(ValueError, match="is missing"):
        alpaca.alpaca_eval_data(make_data_dir(tmp_path / "b", r))
    # the records layer (dkps.records) says the same, before any embedding call
    d = alpaca.alpaca_eval_data(make_data_dir(tmp_path / "c"))
    recs = d.responses.astype({"response": object})
    recs.loc[3, "response"] = 42

    def boom(texts):
        raise AssertionError("nothing may be embedded before validation")

    with pytest.raises(ValueError, match="column 'response': row 3 is a int, not a str"):
        PKPS(embedding_kwargs=dict(provider=boom)).fit(recs)


def test_query_id_under_two_tasks_is_two_queries(tmp_path):
    """dkps.records: the query key is (task_id, query_id); DKPS pairs nothing across tasks."""
    rng = np.random.default_rng(1)
    rows = []
    for m in ("a", "b", "c"):
        for t, q in (("t1", "q0"), ("t2", "q0"), ("t1", "q1")):
            rows.append(
                dict(model_id=m, task_id=t, query_id=q, response_embedding=rng.normal(size=5), reference_score=0.5)
            )
    df = pd.DataFrame(rows)
    base = DKPS(response_kwargs=dict(pca_dim=None, normalize=False)).fit(df)
    renamed = df.assign(query_id=np.where(df.task_id == "t2", "zz", df.query_id))
    other = DKPS(response_kwargs=dict(pca_dim=None, normalize=False)).fit(renamed)
    np.testing.assert_allclose(
        base.distance_matrix_, other.distance_matrix_, atol=1e-12
    )  # renaming t2's q0 changes nothing
    merged = df.assign(task_id="t1")  # if the task were ignored, q0 would be one query answered twice
    wrong = DKPS(response_kwargs=dict(pca_dim=None, normalize=False)).fit(merged)
    assert np.abs(wrong.distance_matrix_ - base.distance_matrix_).max() > 1e-3
    # the loader keeps such rows as they are: two queries, and the pool treats the pairs separately
    r = responses()
    r.loc[r.query_id == 0, "task_id"] = np.where(
        r.loc[r.query_id == 0, "model_id"] == "alpha-7b", "koala", "helpful_base"
    )
    d = alpaca.alpaca_eval_data(make_data_dir(tmp_path, r))
    keys = set(zip(d.responses.task_id, d.responses.query_id))
    assert ("koala", "0") in keys and ("helpful_base", "0") in keys
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        est = DKPS(**HASH).fit(d.responses)
    assert est.n_responses_.loc["alpha-7b", "koala"] == 3 and est.n_responses_.loc["alpha-13b", "koala"] == 2
