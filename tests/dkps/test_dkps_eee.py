"""dkps.eee: the Every Eval Ever adapter on fixture trees. No network."""

from __future__ import annotations

import json
import os
import shutil
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from dkps import PKPS
from dkps.eee import fetch_samples, load_records, record_to_row


def rec(model, sid, text, response, score=None, correct=None, name="gsm", kind="single_turn", **extra):
    r = {
        "schema_version": "0.3.0",
        "evaluation_id": f"gsm/{model}/1",
        "model_id": model,
        "evaluation_name": name,
        "sample_id": sid,
        "interaction_type": kind,
        "input": {"raw": text, "reference": ["x"]},
        "evaluation": {"score": score, "is_correct": correct},
    }
    if kind == "single_turn":
        r["output"] = {"raw": response}
    else:
        r["output"] = None
        r["messages"] = response
    r.update(extra)
    return r


def write_run(root: Path, bench, dev, model, uuid, records, ts=None, mtime=None):
    d = root / "data" / bench / dev / model
    d.mkdir(parents=True, exist_ok=True)
    f = d / f"{uuid}_samples.jsonl"
    f.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    if ts is not None:
        (d / f"{uuid}.json").write_text(json.dumps({"retrieved_timestamp": str(ts)}))
    if mtime is not None:
        os.utime(f, (mtime, mtime))
    return f


@pytest.fixture()
def store(tmp_path):
    qs = [f"q{i}" for i in range(6)]
    old = [rec("Org/Alpha", q, f"question {q}", [f"old {q}"], score=0.0) for q in qs]
    new = [rec("Org/Alpha", q, f"question {q}", [f"first {q}", "second"], score="0.5") for q in qs]
    new.append(dict(new[0], output={"raw": ["duplicate sample id"]}))  # the first occurrence wins
    write_run(tmp_path, "gsm", "org", "alpha", "u-old", old, ts=100)
    write_run(tmp_path, "gsm", "org", "alpha", "u-new", new, ts=200)
    beta = [rec("Org/Beta", q, f"question {q}", [f"beta {q}"], correct="true") for q in qs[:4]]
    beta.append(rec("Org/Beta", "q4", "question q4", [""], score=1.0))  # empty response: dropped
    beta.append(rec("Org/Beta", "q5", "question q5", "plain string", score=None, correct=None))  # NaN score kept
    write_run(tmp_path, "gsm", "org", "beta", "u-b", beta)
    chat = [
        rec(
            "Org/Gamma",
            "c1",
            "chat one",
            [
                {"turn_idx": 2, "role": "assistant", "content": "late"},
                {"turn_idx": 0, "role": "user", "content": "hi"},
                {"turn_idx": 1, "role": "assistant", "content": "early"},
            ],
            score=1,
            kind="multi_turn",
            name="arena-sub",
            metadata={"source_task": "coding-easy"},
        ),
        rec(
            "Org/Gamma",
            "c2",
            "chat two",
            [{"turn_idx": 0, "role": "assistant", "content": "tool call"}],
            score=0,
            kind="agentic",
            name="Arena",
        ),
    ]
    write_run(tmp_path, "arena", "org", "gamma", "u-g", chat)
    return tmp_path


def test_load_records_rules(store):
    with pytest.warns(UserWarning, match="dropped 1 unusable records; 6 duplicates resolved to the newest run"):
        df = load_records(store)
    assert list(df.columns) == [
        "model_id",
        "task_id",
        "query_id",
        "query",
        "response",
        "score",
        "suite",
        "evaluation_id",
        "source_path",
    ]
    alpha = df[df.model_id == "org/alpha"].set_index("query_id")
    assert (alpha.response == [f"first {q}" for q in alpha.index]).all()  # newest run, first list element
    assert (alpha.score == 0.5).all() and len(alpha) == 6  # string score parsed; duplicate dropped
    beta = df[df.model_id == "org/beta"].set_index("query_id")
    assert beta.loc["q0", "score"] == 1.0 and np.isnan(beta.loc["q5", "score"]) and "q4" not in beta.index
    assert beta.loc["q5", "response"] == "plain string"
    gamma = df[df.model_id == "org/gamma"].set_index("query_id")
    assert gamma.loc["c1", "response"] == "early\n\nlate"
    assert gamma.loc["c1", "task_id"] == "coding_easy" and gamma.loc["c2", "task_id"] == "arena"
    assert set(df.suite) == {"gsm", "arena"}
    with pytest.warns(UserWarning, match="6 duplicates resolved to the newest run"):
        by_record = load_records(store / "data" / "gsm" / "org" / "alpha", model_from="record")
    assert set(by_record.model_id) == {"Org/Alpha"}


def test_cap_is_a_shared_subset(store):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        df = load_records(store / "data" / "gsm", max_queries_per_cell=2)
    per = df.groupby("model_id").query_id.apply(set)
    assert all(len(s) == 2 for s in per)
    # both models keep the same two queries when they share them (smallest hashes of shared ids)
    assert per["org/alpha"] == per["org/beta"]
    with pytest.raises(ValueError, match="max_queries_per_cell"):
        load_records(store, max_queries_per_cell=0)


def test_outside_the_layout_the_two_parent_folders_name_the_model(tmp_path):
    f = tmp_path / "dev" / "model-1" / "loose_samples.jsonl"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps(rec("Org/Alpha", "q0", "t", ["r"], score=1.0)) + "\n")
    df = load_records(f)
    assert df.model_id.tolist() == ["dev/model-1"] and df.suite.tolist() == ["gsm"]  # suite from evaluation_id
    assert load_records(f, model_from="record").model_id.tolist() == ["Org/Alpha"]
    bad = tmp_path / "bad_samples.jsonl"
    bad.write_text("{not json\n")
    with pytest.raises(ValueError, match="line 1"):
        load_records(bad)
    (tmp_path / "nothing_here").mkdir()
    with pytest.raises(ValueError, match="no \\*_samples.jsonl"):
        load_records(tmp_path / "nothing_here")


def test_record_to_row_fallbacks():
    r = {
        "input": {"raw": "2+2?"},
        "output": {"raw": "4"},
        "evaluation": {"score": "n/a", "is_correct": False},
        "model_id": "m",
        "evaluation_name": "math",
    }
    row = record_to_row(r)
    assert row["suite"] == "math" and row["task_id"] == "math" and row["score"] == 0.0
    assert len(row["query_id"]) == 40  # sha1 of the query text when there is no sample id or hash
    assert record_to_row(dict(r, sample_hash="abc"))["query_id"] == "abc"


def test_records_feed_pkps(store):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        df = load_records(store)
    with pytest.warns(UserWarning, match="not connected"):  # gamma shares no suite with alpha and beta
        est = PKPS(embedding_kwargs=dict(provider="hash", model="hash-32")).fit(df)
    assert est.suite_names_ == ["arena", "gsm"] and len(est.model_names_) == 3


def test_fetch_samples_with_a_mocked_hub(store, tmp_path, monkeypatch):
    files = [str(p.relative_to(store)) for p in sorted(store.rglob("*")) if p.is_file()]
    fetched = []

    class Api:
        def list_repo_files(self, repo_id, repo_type=None, revision=None):
            assert repo_id == "evaleval/EEE_datastore" and repo_type == "dataset"
            return files

    def download(repo_id, filename, repo_type=None, revision=None, cache_dir=None):
        fetched.append(filename)
        target = Path(cache_dir) / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(store / filename, target)
        return str(target)

    monkeypatch.setitem(sys.modules, "huggingface_hub", types.SimpleNamespace(HfApi=Api, hf_hub_download=download))
    out = fetch_samples(["gsm"], dest=tmp_path / "cache")
    names = sorted(Path(p).name for p in out)
    assert names == ["u-b_samples.jsonl", "u-new_samples.jsonl"]  # newest alpha run only
    assert not any(f.endswith("u-old_samples.jsonl") for f in fetched)
    assert len(fetch_samples("all", cache_dir=tmp_path / "c2", newest_only=False)) == 4
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(ImportError, match="huggingface"):
        fetch_samples(["gsm"])


SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "eee_samples"


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared EEE example files are not present")
def test_real_example_files():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        df = load_records(
            [SHARED / "v0.2.1_helm_testruns", SHARED / "v0.3.0_demo"], model_from="record", max_queries_per_cell=None
        )
    assert {"openai/gpt2", "eleutherai/pythia-1b-v0", "demo-org/demo-model"} <= set(df.model_id)
    assert df.response.str.len().gt(0).all() and df["query"].str.len().gt(0).all()
    demo = df[df.model_id == "demo-org/demo-model"].iloc[0]
    assert demo.response == "The answer is 4." and demo.score == 1.0 and demo.suite == "demo-source"


# ------------------------------------------------------------------------------------ schema versions
@pytest.mark.parametrize("version", ["0.2.0", "0.2.1", "0.3.0", "0.3.7", "0.2"])
def test_supported_versions_are_read(tmp_path, version):
    f = write_run(
        tmp_path, "gsm", "org", "alpha", "u1", [rec("Org/Alpha", "q0", "t", ["r"], score=1.0, schema_version=version)]
    )
    assert load_records(f).score.tolist() == [1.0]


@pytest.mark.parametrize("version", ["0.4.0", "1.0.0", "0.1.2", "1.1"])
def test_unsupported_version_is_rejected_by_name(tmp_path, version):
    recs = [
        rec("Org/Alpha", "q0", "t", ["r"], score=1.0),
        rec("Org/Alpha", "q1", "t", ["r"], score=1.0, schema_version=version),
    ]
    f = write_run(tmp_path, "gsm", "org", "alpha", "u1", recs)
    with pytest.raises(
        ValueError,
        match=rf"u1_samples\.jsonl, line 2: EEE schema_version '{version}' is not "
        r"supported; dkps.eee reads 0\.2\.x, 0\.3\.x",
    ):
        load_records(f)
    with pytest.raises(ValueError, match="is not a version string"):
        record_to_row(rec("m", "q", "t", ["r"], schema_version="v-next"))


def test_directory_search_finds_legacy_instance_files(tmp_path):
    legacy = tmp_path / "instance_level_data"
    legacy.mkdir()
    r = rec(
        "ollama/qwen",
        1,
        "q",
        None,
        score=1.0,
        kind="multi_turn",
        schema_version="0.2.0",
        evaluation_id="ai2_arc_ollama_qwen_2e4e",
        name="allenai/ai2_arc",
    )
    r["interactions"] = [
        {"turn_idx": 0, "role": "user", "content": "q"},
        {"turn_idx": 1, "role": "assistant", "content": "ANSWER: A"},
    ]
    del r["messages"]
    (legacy / "ai2_arc_ollama_qwen.Format.jsonl").write_text(json.dumps(r) + "\n")
    (legacy / "unrelated.jsonl").write_text(json.dumps({"foo": 1}) + "\n")  # not an EEE file: ignored
    df = load_records(tmp_path, model_from="record")
    assert df.response.tolist() == ["ANSWER: A"] and df.query_id.tolist() == ["1"]
    # a 0.2.0 evaluation_id names the run, not the benchmark: the suite is the evaluation name
    assert df.suite.tolist() == ["allenai/ai2_arc"] and df.task_id.tolist() == ["allenai/ai2_arc"]


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared EEE example files are not present")
def test_every_staged_layout_is_read():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        arc = load_records(SHARED / "v0.2.0_legacy_ai2_arc", max_queries_per_cell=None)
        helm = load_records(SHARED / "v0.2.1_helm_testruns", max_queries_per_cell=None)
    # 0.2.0: both models answer ARC items 1-3 and land in one suite and task, so they pair
    assert set(arc.suite) == {"allenai/ai2_arc"} and set(arc.task_id) == {"allenai/ai2_arc"}
    per = arc.groupby("model_id").query_id.apply(set)
    assert per["anthropic/claude-sonnet-4-0"] & per["ollama/qwen2.5-0.5b"] == {"1", "2", "3"}
    assert len(arc) == 8 and arc.response.str.len().gt(0).all()
    # 0.2.1: evaluation_id "None_samples" is not a suite; each file is its benchmark, so gpt2 keeps both runs
    assert set(helm.suite) == {"mmlu", "hellaswag", "narrativeqa"}
    assert helm.groupby(["model_id", "suite"]).size().to_dict() == {
        ("eleutherai/pythia-1b-v0", "hellaswag"): 10,
        ("openai/gpt2", "mmlu"): 10,
        ("openai/gpt2", "narrativeqa"): 5,
    }


def test_original_record_rules():
    base = {"model_id": "d/m", "sample_id": "task_a:0", "input": {"raw": "q?"}, "output": {"raw": ["ans"]}}
    row = record_to_row({**base, "evaluation": {"score": "0.5"}})
    assert row["task_id"] == "task_a" and row["response"] == "ans" and row["score"] == 0.5  # sample_id prefix
    assert record_to_row({**base, "metadata": {"source_task": "a b-c"}})["task_id"] == "a_b_c"  # sanitised
    assert record_to_row({**base, "output": {"raw": []}}) is None  # no response: unusable
    assert record_to_row({**base, "input": {"raw": ""}}) is None  # no query
    assert record_to_row({**base, "model_id": None}) is None  # no model
    assert record_to_row({**base, "model_id": None}, "dev/model")["model_id"] == "dev/model"


def test_task_ids_are_global_and_a_task_takes_its_main_suite(tmp_path):
    for bench, n in (("b1", 3), ("b2", 1)):
        recs = [rec("Org/Alpha", f"t:{q}", "x", ["r"], score=1.0) for q in range(n)]
        write_run(tmp_path, bench, "org", "alpha", "u", recs)
    with pytest.warns(UserWarning, match="1 duplicates resolved"):  # t:0 sent under b1 and b2
        df = load_records(tmp_path)
    assert set(df.task_id) == {"t"} and set(df.suite) == {"b1"}  # b1 holds most of task t's rows
    assert len(df) == 3  # t:0 of b2 is the same (model, task, query) as t:0 of b1: one row kept
