"""Every Eval Ever aggregate folders read into one table per leaderboard (issue 44, item 1).

On the real folders of the data directory (skipped without it): each leaderboard's table equals one built
here from the JSON files with the json module and numpy alone, and the frontier d_eff of ``blindspot
analyze`` equals the participation ratio computed here from them. On records written here: several
leaderboards, repeated runs, lower-is-better, stderr, schema 0.3, entries named *.json that are no file.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import blindspot
from blindspot import data
from blindspot.cli import main

#: The leaderboards' own aggregates, read off the files by hand: a HELM mean (win rate, score), Global MMLU
#: Lite's overall score and its two halves (culturally sensitive / agnostic questions over every language).
AGGREGATES = {
    "helm_lite": {"Mean win rate"},
    "helm_classic": {"Mean win rate"},
    "helm_capabilities": {"Mean score"},
    "helm_instruct": {"Mean win rate"},
    "hfopenllm_v2": set(),
    "global-mmlu-lite": {"Global MMLU Lite", "Culturally Sensitive", "Culturally Agnostic"},
    "livecodebenchpro": set(),
}


def _independent_table(folder: Path) -> pd.DataFrame:
    """model_info.id x evaluation_name from the JSON files: the newest retrieved_timestamp of each model (ties:
    the first file in path order), the leaderboard's aggregates out, scores outside [min_score, max_score] NaN.
    Ids that differ only in case, surrounding whitespace or a trailing slash are one model, shown as first
    spelt in path order (hfopenllm_v2 has two such pairs)."""
    best: dict[str, tuple[float, str, dict]] = {}
    spelling: dict[str, str] = {}
    for path in sorted(str(p) for p in folder.rglob("*.json")):
        rec = json.loads(Path(path).read_text())
        model, ts = rec["model_info"]["id"], float(rec["retrieved_timestamp"])
        key = model.strip().rstrip("/").lower()
        spelling.setdefault(key, model)
        if key not in best or ts > best[key][0]:
            best[key] = (ts, path, rec)
    rows = {}
    for key, (_, _, rec) in best.items():
        model = spelling[key]
        row = {}
        for r in rec["evaluation_results"]:
            v = r["score_details"]["score"]
            lo, hi = r["metric_config"]["min_score"], r["metric_config"]["max_score"]
            row[r["evaluation_name"]] = v if lo <= v <= hi else np.nan
        rows[model] = row
    frame = pd.DataFrame.from_dict(rows, orient="index")
    return frame.drop(columns=sorted(AGGREGATES[folder.name])).sort_index()


def _participation_ratio_of_frontier(X: np.ndarray, q: float = 0.5) -> float:
    """d_eff = (sum lambda)^2 / sum lambda^2 of the correlation matrix of the models whose mean z-score
    (ddof 0) is at least its q-quantile (linear interpolation)."""
    z = (X - X.mean(axis=0)) / X.std(axis=0)
    m = z.mean(axis=1)
    F = X[m >= np.quantile(m, q)]
    lam = np.linalg.eigvalsh(np.corrcoef(F, rowvar=False))
    return float(lam.sum() ** 2 / (lam**2).sum())


@pytest.fixture(scope="module")
def eee_root(data_dir) -> Path:
    root = data_dir / "eee_aggregate"
    if not root.is_dir():
        pytest.skip("no eee_aggregate in the data directory")
    return root


@pytest.mark.parametrize("folder", sorted(AGGREGATES))
def test_each_leaderboard_equals_the_json_and_its_d_eff_an_independent_one(eee_root, folder):
    expected = _independent_table(eee_root / folder)
    table = data.load_scores(eee_root / folder, missing="keep")
    got = table.scores.sort_index()
    assert sorted(got.columns) == sorted(expected.columns)
    pd.testing.assert_frame_equal(got[sorted(got.columns)], expected[sorted(got.columns)], check_names=False)
    suite = data.load(f"eee_{folder.replace('-', '_')}", data_dir=eee_root.parent)
    pd.testing.assert_frame_equal(suite.scores, table.scores)
    assert suite.frontier_rule == "mean z-score"
    rep = blindspot.analyze(eee_root / folder, missing="drop-rows", n_boot=20)
    X = expected.dropna().to_numpy(dtype=float)
    assert rep.settings["n_models"] == X.shape[0]
    if rep.d_eff_of == "frontier":
        assert rep.d_eff == pytest.approx(_participation_ratio_of_frontier(X), rel=1e-9)
    else:  # helm_instruct: 4 models, a frontier of 2 is too small; d_eff of all models
        lam = np.linalg.eigvalsh(np.corrcoef(X, rowvar=False))
        assert rep.d_eff == pytest.approx(lam.sum() ** 2 / (lam**2).sum(), rel=1e-9)


def test_the_store_root_lists_its_leaderboards_and_one_is_picked(eee_root, tmp_path):
    with pytest.raises(ValueError, match=r"holds 7 Every Eval Ever leaderboards: global-mmlu-lite \(24 models x 19"):
        data.load_scores(eee_root)
    t = data.load_scores(eee_root, leaderboard="livecodebenchpro")
    assert t.n_models == 27 and t.name == "livecodebenchpro"
    assert any("7 leaderboards" in n for n in t.notes)
    code = main(["analyze", str(eee_root), "--out", str(tmp_path / "r"), "--quiet", "--n-boot", "20"])
    assert code == 2


def test_repeated_runs_keep_the_newest_with_a_note(eee_root):
    t = data.load_scores(eee_root / "livecodebenchpro")
    note = next(n for n in t.notes if "two or more runs" in n)
    assert note.startswith("2 model(s) have two or more runs")
    # o4-mini's runs: 1760492095 (Medium 0.30985...) and 1770683238 (Medium 0.2923): the newer is kept
    assert t.scores.loc["openai/o4-mini-2025-04-16", "Medium Problems"] == pytest.approx(0.2923)


# ------------------------------------------------------------------------------------------ written here
def _record(board, model, scores, ts="1700000000", schema="0.2.0", lower=(), stderr=None, scale=(0.0, 1.0)):
    results = []
    for name, v in scores.items():
        r = {
            "evaluation_name": name,
            "source_data": {"dataset_name": name, "source_type": "url", "url": ["https://example.invalid"]},
            "metric_config": {
                "lower_is_better": name in lower,
                "score_type": "continuous",
                "min_score": scale[0],
                "max_score": scale[1],
            },
            "score_details": {"score": v},
        }
        if stderr and name in stderr:
            r["score_details"]["uncertainty"] = {"standard_error": {"value": stderr[name]}}
        if schema.startswith("0.3"):
            r["evaluation_result_id"] = f"{board}.{name}"
            r["metric_config"]["metric_id"] = "accuracy"
        results.append(r)
    rec = {
        "schema_version": schema,
        "evaluation_id": f"{board}/{model.replace('/', '_')}/{ts}",
        "retrieved_timestamp": ts,
        "source_metadata": {"source_name": board, "source_type": "documentation"},
        "model_info": {"name": model.split("/")[-1], "id": model, "developer": model.split("/")[0]},
        "evaluation_results": results,
    }
    if schema.startswith("0.3"):
        rec["eval_library"] = {"name": "unknown", "version": "unknown"}
    return rec


def _write(root: Path, rec: dict, name: str = "run.json") -> Path:
    board = rec["evaluation_id"].split("/")[0]
    dev, model = rec["model_info"]["id"].split("/")
    p = root / board / dev / model / name
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(rec))
    return p


def _board(root: Path, board: str, n: int = 12, seed: int = 0, **kw) -> np.ndarray:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.1, 0.9, size=(n, 4))
    for i in range(n):
        _write(root, _record(board, f"org/m{i:02d}", dict(zip("abcd", X[i])), **kw), f"{i:02d}.json")
    return X


def test_lower_is_better_is_flipped_within_its_scale_and_noted(tmp_path):
    X = _board(tmp_path, "bench", lower=("b",), scale=(0.0, 1.0))
    t = data.load_scores(tmp_path / "bench")
    np.testing.assert_allclose(t.scores["b"].to_numpy(), 1.0 - X[:, 1])
    np.testing.assert_allclose(t.scores["a"].to_numpy(), X[:, 0])
    assert any("lower is better on 'b' (0 + 1 - x), as the source declares" in n for n in t.notes)


def test_schema_03_stderr_and_non_files_named_json(tmp_path):
    X = _board(tmp_path, "bench", schema="0.3.0", stderr={"a": 0.01})
    (tmp_path / "bench" / "org" / "notes.json").mkdir()  # a folder named *.json
    os.symlink(tmp_path / "nowhere.json", tmp_path / "bench" / "org" / "dangling.json")
    (tmp_path / "bench" / "manifest.json").write_text(json.dumps({"files": 12}))  # JSON that is no record
    t = data.load_scores(tmp_path / "bench")
    np.testing.assert_allclose(t.scores["a"].to_numpy(), X[:, 0])
    assert t.benchmarks == ["a", "b", "c", "d"]
    assert "a stderr" in t.meta.columns and t.meta["a stderr"].eq(0.01).all()
    assert any("skipped 2 entries named *.json that are not regular files" in n for n in t.notes)
    assert any("not Every Eval Ever records" in n and "manifest.json" in n for n in t.notes)


def test_a_list_of_record_files_and_a_missing_leaderboard(tmp_path):
    _board(tmp_path, "one")
    _board(tmp_path, "two", seed=1)
    files = sorted(str(p) for p in (tmp_path / "one").rglob("*.json"))
    assert data.load_scores(files).n_models == 12
    with pytest.raises(ValueError, match=r"no Every Eval Ever leaderboard 'three' here; the records hold: one \(12"):
        data.load_scores(tmp_path, leaderboard="three")
    with pytest.raises(ValueError, match="applies to other formats"):
        data.load_scores(tmp_path / "one", level="tasks")


def test_copy_of_real_folder_with_a_benchmark_declared_lower_is_better(eee_root, tmp_path):
    """The analysis of a folder whose records declare a benchmark lower-is-better equals that of the folder
    with the benchmark given as 1 - score (same z-scores up to sign: the same report)."""
    src = eee_root / "helm_capabilities"
    flipped = tmp_path / "helm_capabilities"
    shutil.copytree(src, flipped)
    for p in flipped.rglob("*.json"):
        rec = json.loads(p.read_text())
        for r in rec["evaluation_results"]:
            if r["evaluation_name"] == "GPQA":
                r["metric_config"]["lower_is_better"] = True
                r["score_details"]["score"] = 1.0 - r["score_details"]["score"]
        p.write_text(json.dumps(rec))
    a = blindspot.analyze(src, n_boot=20)
    b = blindspot.analyze(flipped, n_boot=20)
    assert b.d_eff == pytest.approx(a.d_eff, rel=1e-9)
    assert b.top_model == a.top_model
    assert any("lower is better on 'GPQA'" in n for n in b.notes)


def test_the_real_schema_03_record_is_read(data_dir):
    """The one real 0.3.0 aggregate record (Every Eval Ever's demo, in eee_samples): one model, one evaluation,
    too small for a table, but read field for field by the reader every table goes through."""
    from blindspot.data import eee_aggregate

    folder = data_dir / "eee_samples" / "v0.3.0_demo"
    if not folder.is_dir():
        pytest.skip("no eee_samples in the data directory")
    raw = eee_aggregate.read([folder])
    assert raw.frame.to_dict("records") == [{"model": "demo-org/demo-model", "demo-source.demo_bench": 0.75}]
    assert raw.name == "demo-source" and raw.scales == {"demo-source.demo_bench": (0.0, 1.0)}
    assert "schema 0.3.0" in raw.notes[0]
