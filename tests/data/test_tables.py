"""blindspot.data: reading, validating and naming score tables."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, event, given, settings, strategies as st

from blindspot import data


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


def test_suite_folder_is_the_folder_itself_or_under_the_data_directory(tmp_path, monkeypatch):
    suite = tmp_path / "data" / "my_suite"
    suite.mkdir(parents=True)
    assert data.suite_folder(tmp_path / "data", "my_suite", "marker.txt") is None  # no marker yet
    (suite / "marker.txt").write_text("x")
    assert data.suite_folder(tmp_path / "data", "my_suite", "marker.txt") == suite.resolve()
    assert data.suite_folder(suite, "my_suite", "marker.txt") == suite.resolve()  # the folder itself
    assert data.suite_folder(tmp_path / "data", "other_suite", "marker.txt") is None
    monkeypatch.setenv("BLINDSPOT_DATA", str(tmp_path / "data"))
    assert data.suite_folder(None, "my_suite", "marker.txt") == suite.resolve()
    with pytest.raises(ValueError, match="does not exist"):
        data.suite_folder(tmp_path / "absent", "my_suite", "marker.txt")


def test_named_suites_shapes(data_dir):
    """The row counts the paper's numbers depend on (the paper's data sets)."""
    shapes = {
        name: data.load_suite(name, data_dir=data_dir, fallback=False).scores.shape
        for name in ("ollm_v2", "extended", "livebench", "ollm_v2_full")
    }
    assert shapes == {"ollm_v2": (458, 6), "extended": (295, 12), "livebench": (37, 7), "ollm_v2_full": (4576, 6)}
    epoch = data.load_suite("epoch", data_dir=data_dir)
    assert 0.8 < epoch.missing_fraction < 0.95


# ---------------------------------------------------------------------------------------------
# hostile but realistic files (issue 15): each is read right with a note, or refused in one line


def _clean(n=40, k=6, seed=2):
    t = data.synthetic_suite(n_models=n, n_benchmarks=k, seed=seed)
    return t.scores.reset_index()


def _same_scores(t, clean):
    assert t.benchmarks == [c for c in clean.columns if c != "model"]
    np.testing.assert_allclose(t.values, clean.drop(columns="model").to_numpy(), rtol=1e-12)
    assert list(t.scores.index) == list(clean["model"])


def test_pandas_index_column_is_left_out_with_a_note(tmp_path):
    clean = _clean()
    p = tmp_path / "s.csv"
    clean.to_csv(p)  # pandas' default writes the row numbers as 'Unnamed: 0'
    t = data.load_scores(p)
    _same_scores(t, clean)
    assert any("row numbers" in n and "Unnamed: 0" in n for n in t.notes)


@pytest.mark.parametrize("name", ["id", "rank", "row_id", "#"])
def test_id_columns_are_left_out(tmp_path, name):
    clean = _clean()
    d = clean.copy()
    d.insert(1, name, np.arange(1000, 1040) * 7)  # not consecutive: recognised by its name
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    t = data.load_scores(p)
    _same_scores(t, clean)
    assert any(repr(name) in n and "row numbers" in n for n in t.notes)


def test_unnamed_consecutive_integers_and_dates_are_left_out(tmp_path):
    clean = _clean()
    d = clean.copy()
    d["order"] = np.random.default_rng(0).permutation(40) + 1  # a shuffled 1..n: a row number by value
    d["released"] = pd.date_range("2023-01-01", periods=40, freq="W")
    p = tmp_path / "s.parquet"
    d.to_parquet(p, index=False)
    t = data.load_scores(p)
    _same_scores(t, clean)
    note = next(n for n in t.notes if "row numbers" in n)
    assert "'order'" in note and "'released'" in note and "dates" in note


def test_integer_scores_are_not_row_numbers(tmp_path):
    d = _clean()
    d["bench_06"] = np.round(d["bench_06"]).astype(int)  # integer scores with repeats: a benchmark
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    assert "bench_06" in data.load_scores(p).benchmarks


def test_percent_and_thousands_strings_are_parsed_with_a_note(tmp_path):
    clean = _clean()
    clean["bench_03"] = clean["bench_03"] * 100  # thousands
    d = clean.copy()
    d["bench_02"] = [f"{x}%" for x in d["bench_02"]]
    d["bench_03"] = [f"{x:,}" for x in d["bench_03"]]
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    t = data.load_scores(p)
    _same_scores(t, clean)
    assert any("percent strings" in n and "bench_02" in n for n in t.notes)
    assert any("thousands separators" in n and "bench_03" in n for n in t.notes)


def test_ambiguous_or_mixed_number_text_is_refused_with_the_column(tmp_path):
    d = _clean(n=10)
    p = tmp_path / "s.csv"
    d["bench_02"] = "1,234"
    d.loc[:, "bench_02"] = [f"{i},{100 + i:03d}" for i in range(10)]
    d.to_csv(p, index=False)
    with pytest.raises(ValueError, match="column 'bench_02' holds numbers such as '0,100' whose comma may be"):
        data.load_scores(p)
    d = _clean(n=10).astype({"bench_04": object})
    d.loc[:4, "bench_04"] = [f"{x}%" for x in d.loc[:4, "bench_04"]]
    d.to_csv(p, index=False)
    with pytest.raises(ValueError, match="column 'bench_04' mixes percent strings"):
        data.load_scores(p)


def test_aggregate_columns_are_left_out(tmp_path):
    clean = _clean()
    b = [c for c in clean.columns if c != "model"]
    d = clean.copy()
    d["mean_win_rate"] = d[b].rank().mean(axis=1) / len(d)  # HELM's aggregate: by its name
    d["headline"] = 0.3 * d["bench_01"] + 0.5 * d["bench_04"] + 0.2 * d["bench_05"] + 1.0  # by fit
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    t = data.load_scores(p)
    _same_scores(t, clean)
    note = next(n for n in t.notes if "aggregates" in n)
    assert "'mean_win_rate'" in note and "'headline' (a weighted mean of bench_01, bench_04, bench_05" in note


def test_one_factor_suite_has_no_false_aggregate():
    """Benchmarks that measure one thing (d_eff near 1) fit each other well, but none is an aggregate."""
    rng = np.random.default_rng(7)
    g = rng.normal(size=(300, 1))
    X = g @ rng.uniform(0.9, 1.0, (1, 12)) + 0.03 * rng.normal(size=(300, 12))
    df = pd.DataFrame(X, columns=[f"c{j}" for j in range(12)])
    df.insert(0, "model", [f"m{i}" for i in range(300)])
    t = data.table_from_frame(df)
    assert t.n_benchmarks == 12 and not t.notes
    from blindspot.core.spectrum import d_eff

    assert d_eff(t) < 1.05  # the regime where every column is nearly reproduced by the others


def test_copy_of_a_column_is_left_out():
    d = _clean()
    d["bench_01_fraction"] = d["bench_01"] / 100
    t = data.table_from_frame(d)
    assert "bench_01_fraction" not in t.benchmarks
    assert any("exact copy, up to scale, of 'bench_01'" in n for n in t.notes)


@pytest.mark.parametrize("twin", ["bench_01_raw", "bench_01 Raw", "raw bench_01", "Bench_01 (raw)"])
def test_raw_twin_is_left_out_by_its_name(twin):
    """A raw twin named with a space or a prefix ('BBH Raw') was analysed as a benchmark; even a raw score that
    is no affine copy of the displayed one (a normalisation that clips at zero) is one benchmark counted twice."""
    d = _clean()
    rng = np.random.default_rng(3)
    d[twin] = np.clip(d["bench_01"], 40, None) + rng.normal(0, 2, len(d))  # not a copy: the fit would keep it
    t = data.table_from_frame(d)
    assert twin not in t.benchmarks
    assert any("raw-score twins" in n and twin in n for n in t.notes)


def test_duplicate_headers_are_refused(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("model,b1,b1,b2\na,1,2,3\nb,2,3,1\nc,3,1,2\nd,0,5,1\n")
    with pytest.raises(ValueError, match=r"column header 'b1' appears more than once \(columns 2 and 3\)"):
        data.load_scores(p)
    p = tmp_path / "s.json"
    p.write_text('[{"model": "a", "b1": 1, "b1": 2, "b2": 3}]')
    with pytest.raises(ValueError, match="key 'b1' appears more than once"):
        data.load_scores(p)
    df = pd.DataFrame([["a", 1, 2], ["b", 2, 1], ["c", 3, 3]], columns=["model", "b1", "b1"])
    with pytest.raises(ValueError, match="column header 'b1' appears more than once"):
        data.table_from_frame(df)


def test_models_named_na_and_none_keep_their_names(tmp_path):
    d = _clean(n=10)
    d.loc[0, "model"], d.loc[1, "model"] = "NA", "None"
    d.loc[2, "bench_03"] = np.nan
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    t = data.load_scores(p, missing="keep")
    assert list(t.scores.index[:2]) == ["NA", "None"]
    assert np.isnan(t.scores.iloc[2]["bench_03"])  # an empty score cell is still missing
    p.write_text(p.read_text().replace(",,", ",NA,"))  # a score written 'NA' is missing, too
    assert np.isnan(data.load_scores(p, missing="keep").scores.iloc[2]["bench_03"])


def test_long_format_gets_a_hint(tmp_path):
    long = _clean(n=10).melt(id_vars="model", var_name="benchmark", value_name="score")
    p = tmp_path / "long.csv"
    long.to_csv(p, index=False)
    with pytest.raises(
        ValueError, match=r"long format.*pivot_table\(index='model', columns='benchmark', values='score'\)"
    ):
        data.load_scores(p)


@pytest.mark.parametrize("variant", ["semicolon-decimal-comma", "tsv-named-csv", "semicolon-named-tsv"])
def test_delimiter_problems_are_read_with_a_note(tmp_path, variant):
    clean = _clean()
    p = tmp_path / ("s.tsv" if variant.endswith("tsv") else "s.csv")
    sep = "\t" if variant.startswith("tsv") else ";"
    clean.to_csv(p, sep=sep, decimal="," if "decimal" in variant else ".", index=False)
    t = data.load_scores(p)
    _same_scores(t, clean)
    assert any("separated by" in n for n in t.notes)
    if "decimal" in variant:
        assert any("decimal commas" in n for n in t.notes)


def test_unequal_field_counts_name_the_line(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("model,b1,b2\na,61,2,3.5\nb,1,2\nc,3,1\n")  # a decimal comma in a comma file
    with pytest.raises(ValueError, match="line 2 has 4 fields where the header has 3.*delimiter problem"):
        data.load_scores(p)


@pytest.mark.parametrize("shape", ["records", "nested-model", "pandas-default", "pandas-model-index", "split", "table"])
def test_natural_json_shapes(tmp_path, shape):
    clean = _clean(n=12, k=4)
    p = tmp_path / "s.json"
    wide = clean.set_index("model")
    if shape == "records":
        p.write_text(json.dumps(clean.to_dict(orient="records")))
    elif shape == "nested-model":
        p.write_text(json.dumps({m: row.to_dict() for m, row in wide.iterrows()}))
    elif shape == "pandas-default":
        clean.to_json(p, double_precision=15)
    elif shape == "pandas-model-index":
        wide.to_json(p, double_precision=15)
    elif shape == "split":
        wide.to_json(p, orient="split", double_precision=15)
    else:
        clean.to_json(p, orient="table", double_precision=15)
    t = data.load_scores(p)
    _same_scores(t, clean)


def test_parquet_with_model_names_as_index(tmp_path):
    clean = _clean()
    p = tmp_path / "s.parquet"
    clean.set_index("model").to_parquet(p)
    t = data.load_scores(p)
    _same_scores(t, clean)
    assert any("index" in n for n in t.notes)


# ---------------------------------------------------------------------------------------------
# property: whatever the frame, the loader returns a valid table or raises one ValueError line

_HOSTILE_CELLS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**20), 10**20),
    st.sampled_from(["61.2%", "1,234.5", "1,234", "61,2", "NA", "None", "-", "x", "", " 3.5 ", "1e400", "True", "−2"]),
    st.text(max_size=4),
    st.none(),
    st.booleans(),
)


@st.composite
def _hostile_frames(draw):
    """A plausible score frame (unique model names, numeric columns), then random damage."""
    n = draw(st.integers(0, 12))
    k = draw(st.integers(1, 5))
    names = ["model"] + [f"b{j}" for j in range(k)]
    cols = [[f"m{i}" for i in range(n)]]
    for _ in range(k):
        cols.append(draw(st.lists(st.floats(-1e3, 1e3), min_size=n, max_size=n)))
    for _ in range(draw(st.integers(0, 3))):  # damage
        what = draw(st.sampled_from(["nan", "cell", "dup-header", "text-col", "int-col", "dup-name", "drop-model"]))
        j = draw(st.integers(0, len(cols) - 1))
        if what == "nan" and n:
            cols[j][draw(st.integers(0, n - 1))] = float("nan")
        elif what == "cell" and n:
            cols[j][draw(st.integers(0, n - 1))] = draw(_HOSTILE_CELLS)
        elif what == "dup-header":
            names[j] = names[draw(st.integers(0, len(cols) - 1))]
        elif what == "text-col":
            names.append(draw(st.sampled_from(["type", "notes", "id", "mean", "", "Unnamed: 0", "score"])))
            cols.append([draw(st.sampled_from(["a", "b", "NA", "None", "1", "2.5%"])) for _ in range(n)])
        elif what == "int-col":
            names.append(draw(st.sampled_from(["rank", "order", "b9", "avg"])))
            cols.append(list(range(n)) if draw(st.booleans()) else [draw(st.integers(0, 3)) for _ in range(n)])
        elif what == "dup-name" and n > 1:
            cols[0][1] = cols[0][0]
        elif what == "drop-model" and len(cols) > 1:
            del names[0], cols[0]
    df = pd.DataFrame(dict(enumerate(cols)))
    df.columns = names
    return df


def _valid_or_value_error(load):
    try:
        t = load()
    except ValueError as exc:
        assert "\n" not in str(exc)
        return "error"
    v = t.scores.to_numpy(dtype=float)
    assert t.scores.index.is_unique and t.n_models >= 3 and t.n_benchmarks >= 2
    assert not np.isinf(v).any()
    assert (np.nanstd(v, axis=0) > 1e-12).all()
    assert set(t.meta.columns).isdisjoint(t.benchmarks)
    return "table"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_hostile_frames(), st.sampled_from(["error", "drop-rows", "keep"]))
def test_property_frames_give_a_table_or_one_value_error(df, missing):
    outcome = _valid_or_value_error(lambda: data.table_from_frame(df, missing=missing))
    event(outcome)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_hostile_frames(), st.sampled_from(["csv", "tsv", "json", "jsonl", "parquet"]))
def test_property_files_give_a_table_or_one_value_error(tmp_path_factory, df, fmt):
    p = tmp_path_factory.mktemp("prop") / f"s.{fmt}"
    try:  # some damaged frames cannot be written in every format (e.g. parquet needs unique names)
        if fmt in ("csv", "tsv"):
            df.to_csv(p, sep="," if fmt == "csv" else "\t", index=False)
        elif fmt == "json":
            p.write_text(df.to_json(orient="records"))
        elif fmt == "jsonl":
            df.to_json(p, orient="records", lines=True)
        else:
            df.to_parquet(p)
    except (ValueError, TypeError, OverflowError, ImportError) as exc:
        assume(not isinstance(exc, ImportError))
        assume(False)
    event(_valid_or_value_error(lambda: data.load_scores(p, missing="keep")))


def test_all_columns_copies_of_one_are_kept_with_a_note():
    """Rows that are multiples of one vector: every column is a scaled copy; dropping them would leave one."""
    X = np.outer(np.linspace(1, 3, 12), [1.0, 2.0, 3.0, 5.0])
    df = pd.DataFrame(X, columns=list("abcd"))
    df.insert(0, "model", [f"m{i}" for i in range(12)])
    t = data.table_from_frame(df)
    assert t.benchmarks == list("abcd")
    assert any("measure one thing" in n for n in t.notes)


def test_describe_counts_benchmarks_and_names_a_single_column():
    t = data.synthetic_suite(n_models=12, n_benchmarks=4, seed=0)
    assert f"{t.n_models} models x 4 benchmarks" in t.describe()
    one = t.columns(t.benchmarks[:1])
    assert f"12 models x one column, {t.benchmarks[0]!r}" in one.describe() and "1 benchmarks" not in one.describe()


def test_the_floor_hands_on_exactly_what_tables_and_suites_export_and_loads_them_lazily():
    import subprocess
    import sys

    from blindspot.data import suites, tables

    assert data.__all__ == [*tables.__all__, *suites.__all__]  # derived from their __all__, never restated
    assert all(getattr(data, n) is getattr(tables if n in tables.__all__ else suites, n) for n in data.__all__)
    code = "import sys, blindspot.data; assert 'pandas' not in sys.modules; print(len(blindspot.data.__all__))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(out.stdout) == len(data.__all__)
