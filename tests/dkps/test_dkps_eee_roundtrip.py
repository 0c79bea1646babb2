"""dkps.eee writing side: records -> EEE 0.3.0 runs -> records, schema validity, and fetch_samples
against a local fake of the Hugging Face hub. No network."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dkps.eee import REPO_ID, canonical_records, fetch_samples, load_records, validate_file, write_records

KEY = ["model_id", "task_id", "query_id"]
COLS = ["model_id", "task_id", "query_id", "query", "response", "score", "suite"]
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


def synthetic_records(seed: int = 0) -> pd.DataFrame:
    """Two suites, sub-tasks and a suite-level task, HF-style and bare model ids, unicode text."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in ("org-a/model-1", "org-b/sub/model-2", "bare-model"):
        for suite, tasks in (("bench", ("easy", "hard")), ("other", ("other",))):
            for t in tasks:
                for q in range(4):
                    rows.append(
                        {
                            "model_id": m,
                            "task_id": t,
                            "query_id": str(q),
                            "suite": suite,
                            "query": f"{t} question {q} — ünïcode ✓",
                            "response": f"{m} says {rng.integers(100)}",
                            "score": float(rng.random()),
                        }
                    )
    return pd.DataFrame(rows)


def read_back(root, **kw) -> pd.DataFrame:
    df = load_records(root, model_from="record", max_queries_per_cell=None, **kw)
    return df[COLS].sort_values(KEY).reset_index(drop=True)


def sort(df: pd.DataFrame) -> pd.DataFrame:
    return df[COLS].sort_values(KEY).reset_index(drop=True)


# ------------------------------------------------------------------------------------ round trip
def test_synthetic_round_trip_is_identical(tmp_path):
    R = synthetic_records()
    paths = write_records(R, tmp_path, timestamp=1750000000)
    assert len(paths) == 2 * 6  # an aggregate and a samples file per (suite, model)
    pd.testing.assert_frame_equal(read_back(tmp_path), sort(R))
    # the path form of the ids: developer/model folders, 'unknown' for a bare id, '/' in a name -> '_'
    by_path = load_records(tmp_path, max_queries_per_cell=None)
    assert set(by_path.model_id) == {"org-a/model-1", "org-b/sub_model-2", "unknown/bare-model"}


def test_canonical_form_and_round_trip_of_non_canonical_ids(tmp_path):
    R = pd.DataFrame(
        {
            "model_id": ["m/x", "m/x", "m/x"],
            "task_id": ["coding-easy", "ns/ai2_arc", "ns/ai2_arc/sub"],
            "query_id": [1, 2, 3],
            "query": ["a", "b", "c"],
            "response": ["r", "", "t"],
            "score": ["1", 0, 0.25],
            "suite": ["ns/ai2_arc"] * 3,
        }
    )
    C = canonical_records(R)
    # suite loses '/', tasks lose the suite prefix and are sanitised, the empty response is dropped,
    # ids and scores normalised
    assert C.suite.tolist() == ["ns_ai2_arc"] * 2
    assert C.task_id.tolist() == ["coding_easy", "sub"]
    assert C.query_id.tolist() == ["1", "3"] and C.score.tolist() == [1.0, 0.25]
    pd.testing.assert_frame_equal(canonical_records(C), C)  # idempotent
    write_records(R, tmp_path, timestamp=1)
    with pytest.warns(UserWarning, match="dropped 1 unusable records"):
        back = read_back(tmp_path)
    pd.testing.assert_frame_equal(back, sort(C))


def test_aggregate_matches_its_samples(tmp_path):
    R = synthetic_records(1)
    paths = write_records(R, tmp_path, timestamp="1750000000", source_url="https://example.invalid/bench")
    aggs = [p for p in paths if p.suffix == ".json"]
    for agg_path in aggs:
        agg = json.loads(agg_path.read_text())
        samples = agg_path.with_name(agg_path.stem + "_samples.jsonl")
        payload = samples.read_bytes()
        det = agg["detailed_evaluation_results"]
        assert det["checksum"] == hashlib.sha256(payload).hexdigest()
        assert det["total_rows"] == len(payload.decode().splitlines())
        assert (tmp_path / det["file_path"]) == samples and UUID4.match(agg_path.stem)
        lines = [json.loads(x) for x in payload.decode().splitlines()]
        assert {x["evaluation_id"] for x in lines} == {agg["evaluation_id"]}
        model = agg["model_info"]["id"]
        for res in agg["evaluation_results"]:
            cell = R[(R.model_id == model) & (R.task_id == res["evaluation_result_id"])].score.to_numpy()
            assert res["score_details"]["score"] == pytest.approx(cell.mean(), abs=1e-15)
            unc = res["score_details"]["uncertainty"]
            assert unc["num_samples"] == cell.size
            assert unc["standard_error"]["value"] == pytest.approx(cell.std(ddof=1) / np.sqrt(cell.size))
        for x in lines:
            assert x["evaluation"]["is_correct"] == (x["evaluation"]["score"] > 0.5)


def test_the_newest_written_run_wins(tmp_path):
    R = synthetic_records(2)
    write_records(R, tmp_path, timestamp=100)
    newer = R.assign(score=1.0 - R.score, response=R.response + " (v2)")
    write_records(newer, tmp_path, timestamp=200)
    with pytest.warns(UserWarning, match=f"{len(R)} duplicates resolved to the newest run"):
        back = read_back(tmp_path)
    pd.testing.assert_frame_equal(back, sort(newer))


@pytest.mark.parametrize(
    "change, match",
    [
        (lambda R: R.drop(columns="query"), r"lack the column\(s\) \['query'\]"),
        (lambda R: R.assign(score=np.where(R.index == 3, np.nan, R.score)), r"row 3 .* has no finite score"),
        (lambda R: pd.concat([R, R.iloc[[0]]], ignore_index=True), r"occurs twice"),
        (lambda R: R.assign(response=[None] + R.response.tolist()[1:]), r"column 'response': row 0 is not text"),
        (lambda R: R.assign(model_id=[""] + R.model_id.tolist()[1:]), r"column 'model_id': row 0 is empty"),
        (lambda R: R.drop(columns="suite"), r"no 'suite' column; pass suite="),
        (lambda R: R.iloc[:0], r"zero rows"),
    ],
)
def test_writer_rejects_bad_records(tmp_path, change, match):
    with pytest.raises(ValueError, match=match):
        write_records(change(synthetic_records()), tmp_path)


def test_writer_suite_argument_and_timestamp(tmp_path):
    R = synthetic_records().drop(columns="suite")
    R = R[R.task_id.isin(["easy", "hard"])]
    write_records(R, tmp_path, suite="bench", timestamp=5)
    assert set(read_back(tmp_path).suite) == {"bench"}
    with pytest.raises(ValueError, match="give it once"):
        write_records(R.assign(suite="bench"), tmp_path, suite="bench")
    with pytest.raises(ValueError, match="timestamp must be Unix seconds"):
        write_records(R, tmp_path, suite="bench", timestamp="yesterday")


# ------------------------------------------------------------------------------------ schemas
def _schemas(data_dir: Path) -> Path:
    d = data_dir / "eee_samples" / "schemas"
    if not d.is_dir():
        pytest.skip("the shipped EEE schemas are not present")
    return d


def test_written_files_validate_against_the_shipped_schemas(tmp_path, data_dir):
    schemas = _schemas(data_dir)
    paths = write_records(synthetic_records(), tmp_path, timestamp=1750000000)
    with_url = write_records(
        synthetic_records(5),
        tmp_path / "url",
        timestamp=1,
        source_url="https://example.invalid",
        min_score=0.0,
        max_score=1.0,
    )
    for p in paths + with_url:
        assert validate_file(p, schemas) == [], p
    # the validator does fail: a sample without a score, an aggregate without results
    bad = tmp_path / "bad_samples.jsonl"
    rec = json.loads(paths[1].read_text().splitlines()[0])
    del rec["evaluation"]["score"]
    bad.write_text(json.dumps(rec) + "\n")
    assert any("'score' is a required property" in e for e in validate_file(bad, schemas))
    agg = json.loads(paths[0].read_text())
    del agg["evaluation_results"]
    (tmp_path / "bad.json").write_text(json.dumps(agg))
    assert any("evaluation_results" in e for e in validate_file(tmp_path / "bad.json", schemas))
    with pytest.raises(ValueError, match="schema_dir must hold"):
        validate_file(paths[0], tmp_path)


def test_staged_files_against_the_shipped_schemas(data_dir):
    schemas = _schemas(data_dir)
    staged = data_dir / "eee_samples"
    for p in sorted((staged / "v0.3.0_demo").iterdir()) + sorted((staged / "v0.2.1_helm_testruns").iterdir()):
        assert validate_file(p, schemas) == [], p
    # the 0.2.0 layout fails 0.3.0 (as its PROVENANCE says), yet the adapter reads it
    for p in sorted((staged / "v0.2.0_legacy_ai2_arc").iterdir()):
        errs = validate_file(p, schemas)
        assert any("interactions" in e for e in errs) and any("sample_id: 1 is not of type 'string'" in e for e in errs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            assert len(load_records(p, max_queries_per_cell=None)) >= 3


# ------------------------------------------------------------------------------------ AlpacaEval
def alpaca_slice(data_dir: Path, n_models: int = 5, n_queries: int = 20) -> pd.DataFrame:
    """The first ``n_models`` scored AlpacaEval models (by name) x queries 0..n_queries-1, as records."""
    folder = data_dir / "alpaca_eval_responses"
    if not (folder / "responses.parquet").is_file():
        pytest.skip("the AlpacaEval responses are not present")
    models = pd.read_csv(folder / "models.csv")
    scored = sorted(models.loc[models.n_scored > 0, "model_id"])[:n_models]
    df = pd.read_parquet(
        folder / "responses.parquet",
        columns=["model_id", "task_id", "query_id", "query", "response", "score"],
        filters=[("model_id", "in", scored), ("query_id", "<", n_queries)],
    )
    df = df.dropna(subset=["score"])
    return pd.DataFrame(
        {
            "model_id": df.model_id.astype(str),
            "task_id": df.task_id.astype(str),
            "query_id": df.query_id.astype(str),
            "query": df["query"].astype(str),
            "response": df.response.astype(str),
            "score": df.score.astype(float),
            "suite": "alpaca_eval",
        }
    ).reset_index(drop=True)


def test_alpaca_eval_round_trip_is_identical(tmp_path, data_dir):
    R = alpaca_slice(data_dir)
    assert R.model_id.nunique() == 5 and R.query_id.nunique() == 20 and len(R) == 100
    paths = write_records(R, tmp_path, timestamp=1750000000)
    back = read_back(tmp_path)
    pd.testing.assert_frame_equal(back, sort(R))
    assert (back.score.to_numpy() == sort(R).score.to_numpy()).all()  # bit-identical floats
    schemas = data_dir / "eee_samples" / "schemas"
    if schemas.is_dir():
        assert all(validate_file(p, schemas) == [] for p in paths)


# ------------------------------------------------------------------------------------ fetch_samples
class FakeHub:
    """A local folder tree laid out like the ``evaleval/EEE_datastore`` dataset, served through the two
    ``huggingface_hub`` calls fetch_samples makes; downloads land in an HF-cache-like snapshot tree."""

    def __init__(self, remote: Path):
        self.remote = remote
        self.downloads: list[str] = []
        self.revisions: set = set()

    def HfApi(self):
        return self

    def list_repo_files(self, repo_id, *, revision=None, repo_type=None, token=None):
        assert repo_id == REPO_ID and repo_type == "dataset"
        self.revisions.add(revision)
        return sorted(p.relative_to(self.remote).as_posix() for p in self.remote.rglob("*") if p.is_file())

    def hf_hub_download(self, repo_id, filename, *, repo_type=None, revision=None, cache_dir=None, **_):
        assert repo_id == REPO_ID and repo_type == "dataset"
        self.downloads.append(filename)
        target = Path(cache_dir) / "datasets--evaleval--EEE_datastore" / "snapshots" / (revision or "0" * 40) / filename
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.remote / filename, target)
        return str(target)


@pytest.fixture()
def hub(tmp_path, monkeypatch):
    remote = tmp_path / "remote"
    R = synthetic_records(3)
    write_records(R, remote, timestamp=100)
    write_records(R.assign(score=1 - R.score), remote, timestamp=200)  # a newer run of every (suite, model)
    (remote / "README.md").write_text("the datastore")
    (remote / "data" / "bench" / "stray_samples.jsonl").write_text("")  # outside the layout: never listed
    fake = FakeHub(remote)
    monkeypatch.setitem(
        sys.modules, "huggingface_hub", types.SimpleNamespace(HfApi=fake.HfApi, hf_hub_download=fake.hf_hub_download)
    )
    return fake, R


def test_fetch_then_load_gives_the_newest_runs(hub, tmp_path):
    fake, R = hub
    out = fetch_samples(["bench"], cache_dir=tmp_path / "cache", revision="abc123")
    assert len(out) == 3 and all(Path(p).is_file() and "/snapshots/abc123/data/bench/" in p for p in out)
    assert fake.revisions == {"abc123"}
    assert not any(f.endswith("stray_samples.jsonl") for f in fake.downloads)
    back = read_back(out)
    newest = R.assign(score=1 - R.score)
    pd.testing.assert_frame_equal(back, sort(newest[newest.suite == "bench"]))
    # every run: the aggregates were fetched to rank the two runs, the old samples file never was
    assert sum(f.endswith("_samples.jsonl") for f in fake.downloads) == 3
    everything = fetch_samples("all", dest=tmp_path / "c2", newest_only=False)
    assert len(everything) == 12


def test_fetch_arguments(hub, tmp_path):
    with pytest.warns(UserWarning, match=r"no samples files for \['nope'\]"):
        assert len(fetch_samples(["bench", "nope"], cache_dir=tmp_path / "c")) == 3
    with pytest.raises(ValueError, match="no samples files for"):
        fetch_samples("nope", cache_dir=tmp_path / "c")
    with pytest.raises(ValueError, match="benchmarks must be"):
        fetch_samples([1, 2])
    with pytest.raises(ValueError, match="aliases"):
        fetch_samples("bench", cache_dir=tmp_path / "a", dest=tmp_path / "b")


# ------------------------------------------------------------------------------------ aggregates and survey
def test_load_aggregates_matches_the_written_samples(tmp_path):
    from dkps.eee import load_aggregates

    R = synthetic_records(4)
    write_records(R, tmp_path, timestamp=10)
    agg = load_aggregates(tmp_path)
    cell = R.groupby(["model_id", "task_id"]).score.agg(["mean", "size"])
    got = agg.set_index(["model_id", "evaluation_result_id"]).sort_index()
    assert len(got) == len(cell)
    assert np.allclose(got.score.to_numpy(), cell.loc[got.index, "mean"].to_numpy(), rtol=0, atol=1e-15)
    assert (got.num_samples.to_numpy() == cell.loc[got.index, "size"].to_numpy()).all()
    assert set(agg.suite) == {"bench", "other"} and (agg.lower_is_better == False).all()  # noqa: E712
    other = tmp_path / "not_aggregates"
    other.mkdir()
    (other / "schema.json").write_text(json.dumps({"properties": {}}))  # JSON, but not an aggregate record
    with pytest.raises(ValueError, match="no EEE aggregate"):
        load_aggregates(other)


def test_load_aggregates_rejects_unsupported_versions(tmp_path):
    from dkps.eee import load_aggregates

    write_records(synthetic_records(), tmp_path, timestamp=10)
    f = next(tmp_path.rglob("*.json"))
    doc = json.loads(f.read_text())
    doc["schema_version"] = "0.9.0"
    f.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match="schema_version '0.9.0' is not supported"):
        load_aggregates(f)


def test_survey_files(tmp_path):
    from dkps.eee import survey_files

    write_records(synthetic_records(), tmp_path, timestamp=10)
    bad = tmp_path / "loose" / "future_samples.jsonl"
    bad.parent.mkdir()
    rec = json.loads(next(tmp_path.rglob("*_samples.jsonl")).read_text().splitlines()[0])
    bad.write_text(json.dumps(dict(rec, schema_version="1.0.0")) + "\n")
    s = survey_files(tmp_path).set_index("file")
    assert s.loc["future_samples.jsonl", "records_read"] == 0
    assert "'1.0.0' is not supported" in s.loc["future_samples.jsonl", "read_error"]
    ok = s.drop(index="future_samples.jsonl")
    assert (ok.records_read == ok.rows).all() and (ok.read_error == "").all() and ok.schema_errors.isna().all()


def test_survey_of_the_staged_files(data_dir):
    from dkps.eee import survey_files

    staged = data_dir / "eee_samples"
    if not staged.is_dir():
        pytest.skip("the shared EEE example files are not present")
    s = survey_files(staged, staged / "schemas")
    assert len(s) == 6 and (s.records_read == s.rows).all()
    legacy = s[s.schema_version == "0.2.0"]
    assert (legacy.layout == "0.2.0 (interactions)").all() and (legacy.schema_errors == legacy.rows).all()
    assert (s[s.schema_version != "0.2.0"].schema_errors == 0).all()
