"""blindspot.core.data: reading, validating and naming score tables."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from blindspot.core import data


def _frame(n=6, k=3, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.normal(50, 10, (n, k)), columns=[f"b{j}" for j in range(k)])
    df.insert(0, "model", [f"m{i}" for i in range(n)])
    df["params_b"] = np.arange(n) + 1.0
    df["type"] = "chat"
    return df


@pytest.mark.parametrize("ext", ["csv", "tsv", "parquet", "json", "jsonl"])
def test_roundtrip_formats_keep_metadata_apart(tmp_path, ext):
    df = _frame()
    p = tmp_path / f"s.{ext}"
    if ext == "csv":
        df.to_csv(p, index=False)
    elif ext == "tsv":
        df.to_csv(p, sep="\t", index=False)
    elif ext == "parquet":
        df.to_parquet(p)
    elif ext == "json":
        p.write_text(json.dumps(df.to_dict(orient="records")))
    else:
        df.to_json(p, orient="records", lines=True)
    t = data.load_scores(p)
    assert t.benchmarks == ["b0", "b1", "b2"]
    assert list(t.meta.columns) == ["params_b", "type"]
    assert list(t.scores.index) == list(df["model"])
    np.testing.assert_allclose(t.values, df[["b0", "b1", "b2"]].to_numpy())
    assert not t.synthetic


def test_json_column_dict(tmp_path):
    df = _frame()
    p = tmp_path / "cols.json"
    p.write_text(json.dumps(df.to_dict(orient="list")))
    assert data.load_scores(p).n_models == 6


def test_non_numeric_cell_names_row_and_column(tmp_path):
    df = _frame().astype({"b1": object})
    df.loc[3, "b1"] = "n/a?"
    p = tmp_path / "s.csv"
    df.to_csv(p, index=False)
    with pytest.raises(ValueError, match=r"non-numeric cell 'n/a\?' at model 'm3' \(data row 4\), column 'b1'"):
        data.load_scores(p)


def test_duplicate_model_names(tmp_path):
    df = _frame()
    df.loc[2, "model"] = "m0"
    p = tmp_path / "s.csv"
    df.to_csv(p, index=False)
    with pytest.raises(ValueError, match="more than once.*'m0'"):
        data.load_scores(p)
    t = data.load_scores(p, duplicates="suffix")
    assert "m0 #2" in t.scores.index and t.n_models == 6
    assert data.load_scores(p, duplicates="first").n_models == 5


def test_constant_column(tmp_path):
    df = _frame()
    df["b2"] = 7.0
    p = tmp_path / "s.csv"
    df.to_csv(p, index=False)
    with pytest.raises(ValueError, match=r"\['b2'\] are constant"):
        data.load_scores(p)


def test_too_few_models_and_benchmarks(tmp_path):
    p = tmp_path / "s.csv"
    _frame(n=2).to_csv(p, index=False)
    with pytest.raises(ValueError, match="2 model row.*at least 3"):
        data.load_scores(p)
    _frame(k=1).to_csv(p, index=False)
    with pytest.raises(ValueError, match="1 numeric score column.*at least 2"):
        data.load_scores(p)


def test_missing_policy(tmp_path):
    df = _frame(n=8)
    df.loc[[1, 5], "b0"] = np.nan
    p = tmp_path / "s.csv"
    df.to_csv(p, index=False)
    with pytest.raises(ValueError, match=r"2 missing score cell\(s\) in 2 model row\(s\).*'m1', 'b0'"):
        data.load_scores(p)
    t = data.load_scores(p, missing="drop-rows")
    assert t.n_models == 6 and any("dropped 2 of 8" in n for n in t.notes)
    kept = data.load_scores(p, missing="keep")
    assert np.isnan(kept.values).sum() == 2
    with pytest.raises(ValueError, match="not a policy"):
        data.load_scores(p, missing="ignore")


def test_absent_empty_unreadable(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        data.load_scores(tmp_path / "nope.csv")
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValueError, match="is empty"):
        data.load_scores(tmp_path / "empty.csv")
    (tmp_path / "bad.parquet").write_text("this is not parquet")
    with pytest.raises(ValueError, match="cannot read score file"):
        data.load_scores(tmp_path / "bad.parquet")
    (tmp_path / "x.xlsx").write_text("a")
    with pytest.raises(ValueError, match="unknown extension"):
        data.load_scores(tmp_path / "x.xlsx")


def test_explicit_columns(tmp_path):
    p = tmp_path / "s.csv"
    _frame().to_csv(p, index=False)
    t = data.load_scores(p, benchmarks=["b2", "b0"])
    assert t.benchmarks == ["b2", "b0"]
    with pytest.raises(ValueError, match=r"benchmark columns \['zz'\] not found"):
        data.load_scores(p, benchmarks=["b0", "zz"])
    with pytest.raises(ValueError, match="models column 'who'"):
        data.load_scores(p, models_col="who")


def test_synthetic_suite_is_seeded_and_flagged():
    a, b, c = data.synthetic_suite(seed=1), data.synthetic_suite(seed=1), data.synthetic_suite(seed=2)
    assert a.synthetic and "SYNTHETIC" in a.describe()
    pd.testing.assert_frame_equal(a.scores, b.scores)
    assert not np.allclose(a.values, c.values)


def test_fallback_without_data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("BLINDSPOT_DATA", str(tmp_path))  # exists but holds no suite files
    t = data.load_suite("extended")
    assert t.synthetic and t.n_benchmarks == 12
    with pytest.raises(ValueError, match="not available"):
        data.load_suite("extended", fallback=False)
    with pytest.raises(ValueError, match="unknown suite"):
        data.load_suite("no-such-suite")
    monkeypatch.setenv("BLINDSPOT_DATA", str(tmp_path / "absent"))
    with pytest.raises(ValueError, match="BLINDSPOT_DATA does not exist"):
        data.resolve_data_dir()


def test_named_suites_shapes(data_dir):
    """The row counts the paper's numbers depend on (spec §0.2)."""
    shapes = {
        name: data.load_suite(name, data_dir=data_dir, fallback=False).scores.shape
        for name in ("ollm_v2", "extended", "livebench", "ollm_v2_full")
    }
    assert shapes == {"ollm_v2": (458, 6), "extended": (295, 12), "livebench": (37, 7), "ollm_v2_full": (4576, 6)}
    epoch = data.load_suite("epoch", data_dir=data_dir)
    assert 0.8 < epoch.missing_fraction < 0.95
