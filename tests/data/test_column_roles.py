"""No silent column or row roles: each choice the loader makes is said in the notes, or warned about.

Each test damages a clean leaderboard in one realistic way (a qualified aggregate column, a summary
row, integer or 0/1 metadata, a near-copy of a benchmark, values that cannot be scores) and checks
what the loader makes of it: the right benchmarks and models, and a note or a warning naming the
column or the row. Where the loader leaves something out, ``benchmarks=`` keeps it.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.data import table_from_frame
from blindspot.data.columns import metadata_values_reason
from blindspot.data.rows import aggregate_rows, row_is_aggregate, shifted_rows


def _clean(n: int = 60, k: int = 5, seed: int = 3) -> pd.DataFrame:
    """A leaderboard with one general factor, scores in [0, 100] written with one decimal."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((n, 1))
    S = np.clip(50 + 12 * (0.8 * g + 0.6 * rng.standard_normal((n, k))), 0, 100).round(1)
    df = pd.DataFrame(S, columns=[f"bench_{j + 1}" for j in range(k)])
    df.insert(0, "model", [f"model-{i:03d}" for i in range(n)])
    return df


BENCH = [f"bench_{j + 1}" for j in range(5)]


@pytest.mark.parametrize("name", ["overall_hard", "avg_chat", "mean (norm)", "median", "score_total"])
def test_qualified_aggregate_column_is_left_out_with_a_note(name):
    df = _clean()
    df[name] = df[BENCH[:3]].mean(axis=1) + np.random.default_rng(0).normal(0, 2, len(df))  # not an exact mean
    t = table_from_frame(df)
    assert t.benchmarks == BENCH
    assert any(name in n and "aggregate" in n for n in t.notes), t.notes
    kept = table_from_frame(df, benchmarks=[*BENCH, name])  # --benchmarks keeps it
    assert kept.benchmarks == [*BENCH, name]


@pytest.mark.parametrize("label", ["Average", "Total", "Mean", "All models", "overall average"])
def test_summary_row_by_name_is_left_out(label):
    df = _clean()
    row = df[BENCH].sum() if label == "Total" else df[BENCH].mean()
    df.loc[len(df)] = [label, *row.round(1)]
    t = table_from_frame(df)
    assert label not in t.scores.index and t.n_models == 60
    assert t.benchmarks == BENCH  # a Total row used to make a benchmark look like a weighted mean of the others
    assert any(repr(label) in n and "summary" in n for n in t.notes), t.notes


@pytest.mark.parametrize("kind", ["mean", "sum"])
def test_summary_row_by_value_is_left_out(kind):
    """A row that is the mean (rounded as published) or the sum of the others, under a model-like name."""
    df = _clean()
    row = df[BENCH].mean().round(1) if kind == "mean" else df[BENCH].sum().round(1)
    df.loc[len(df)] = ["leaderboard", *row]
    t = table_from_frame(df)
    assert "leaderboard" not in t.scores.index and t.n_models == 60
    assert any("'leaderboard'" in n and kind in n for n in t.notes), t.notes


def test_no_summary_row_found_in_a_clean_table():
    rng = np.random.default_rng(5)
    for decimals, k in [(0, 3), (0, 6), (1, 3), (2, 6)]:  # integers in three columns: the widest tolerance
        for _ in range(20):
            X = np.clip(50 + 15 * rng.standard_normal((300, k)), 0, 100).round(decimals)
            assert aggregate_rows(X) == []
    assert not any(row_is_aggregate(m) for m in ["all-MiniLM-L6", "Mistral-7B", "mean-teacher-v2", "Llama 3 70B"])


@pytest.mark.parametrize(
    "column,values",
    [
        ("is_open", lambda rng, n: rng.integers(0, 2, n)),
        ("release", lambda rng, n: rng.integers(1, 5, n)),
        ("shots", lambda rng, n: rng.choice([0, 5, 25], n)),
        ("yr", lambda rng, n: rng.integers(2019, 2026, n)),
    ],
)
def test_integer_and_binary_metadata_is_kept_apart(column, values):
    df = _clean()
    df[column] = values(np.random.default_rng(1), len(df))
    t = table_from_frame(df)
    assert t.benchmarks == BENCH and column in t.meta.columns
    assert any(column in n and "metadata" in n and "--benchmarks" in n for n in t.notes), t.notes
    assert table_from_frame(df, benchmarks=[*BENCH, column]).benchmarks == [*BENCH, column]


def test_integer_scores_with_many_values_stay_benchmarks():
    """Integer-valued benchmarks (Elo, percent correct written as integers) keep their role."""
    df = _clean()
    df["elo"] = (1000 + 4 * df["bench_1"] + np.random.default_rng(2).normal(0, 20, len(df))).round(0)
    df[BENCH] = df[BENCH].round(0)
    assert table_from_frame(df).benchmarks == [*BENCH, "elo"]
    assert metadata_values_reason(np.arange(40.0)) is None


@pytest.mark.parametrize(
    "copy",
    [
        lambda x: x.round(0),  # a rounded copy
        lambda x: x / 100 + 0.001 * np.sin(np.arange(len(x))),  # a normalised copy with a little noise
        lambda x: (x + 3.0).round(0),  # an offset, rounded copy
    ],
)
def test_near_copy_is_left_out(copy):
    df = _clean()
    df["bench_1_copy"] = copy(df["bench_1"].to_numpy())
    r = np.corrcoef(df["bench_1"], df["bench_1_copy"])[0, 1]
    assert 0.999 < r < 1 - 1e-9  # a near-copy, not an exact one
    t = table_from_frame(df)
    assert t.benchmarks == BENCH
    assert any("bench_1_copy" in n and "near-copy" in n for n in t.notes), t.notes


def test_negative_value_in_a_bounded_column_is_warned_about():
    df = _clean()
    df.loc[7, "bench_2"] = -1.0  # a missing-value code
    t = table_from_frame(df)
    assert len(t.warnings) == 1
    assert "bench_2" in t.warnings[0] and "'model-007'" in t.warnings[0] and "[0, 100]" in t.warnings[0]
    assert table_from_frame(_clean()).warnings == ()
    out = table_from_frame(df, exclude_rows=["model-007"])
    assert "model-007" not in out.scores.index and out.warnings == ()
    assert any("model-007" in n and "exclude" in n for n in out.notes)


def test_exclude_rows_names_an_unknown_model():
    with pytest.raises(ValueError, match="not model names"):
        table_from_frame(_clean(), exclude_rows=["no-such-model"])


def _distinct_columns(n: int = 60, seed: int = 4) -> pd.DataFrame:
    """Benchmarks on distinct scales (as on a real leaderboard), so a shifted row stands out."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((n, 1))
    locs = np.array([15.0, 35.0, 55.0, 75.0, 92.0])
    S = (locs + 3 * (0.7 * g + 0.7 * rng.standard_normal((n, 5)))).round(1)
    df = pd.DataFrame(S, columns=BENCH)
    df.insert(0, "model", [f"model-{i:03d}" for i in range(n)])
    return df


def test_row_shifted_by_one_column_is_warned_about():
    df = _distinct_columns()
    good = df.loc[11, BENCH].to_numpy()
    df.loc[11, BENCH] = [*good[1:], np.nan]  # a field missing: each value sits one column to the left
    t = table_from_frame(df, missing="keep")
    assert any("shifted" in w and "'model-011'" in w for w in t.warnings), t.warnings
    with pytest.raises(ValueError, match="shifted"):  # the missing-cell refusal names the shifted row too
        table_from_frame(df)
    assert table_from_frame(_distinct_columns()).warnings == ()
    assert shifted_rows(_clean()[BENCH].to_numpy()) == []


def test_skew_is_scipys_and_does_not_overflow_on_huge_values():
    import warnings

    from scipy import stats

    from blindspot.data.columns import _skew

    rng = np.random.default_rng(0)
    v = rng.lognormal(size=50)
    assert _skew(v) == pytest.approx(stats.skew(v, bias=True), rel=1e-12)
    huge = np.array([7e102] + [0.0] * 10)  # as hypothesis found (6.2e102): the cube overflowed
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _skew(huge) == pytest.approx(stats.skew(huge / 1e102, bias=True), rel=1e-12)
        assert _skew(huge * 1e-200) == pytest.approx(_skew(huge), rel=1e-12)


def test_each_rule_of_the_table_gives_its_role_and_the_first_that_holds_decides():
    """One column per rule of COLUMN_RULES, each found by its rule (and only the benchmarks kept)."""
    import pandas as pd

    from blindspot.data.columns import COLUMN_RULES, ColumnFacts, classify_columns, column_rule
    from blindspot.data.profile import profile_columns

    rng = np.random.default_rng(4)
    n = 30
    df = pd.DataFrame(
        {
            "mmlu": rng.uniform(0, 1, n),
            "mmlu_stderr": rng.uniform(0, 0.01, n),
            "declared": rng.uniform(0, 1, n),
            "bbh": rng.uniform(0, 1, n),
            "bbh_raw": rng.uniform(0, 1, n),
            "released": pd.date_range("2024-01-01", periods=n),
            "is_open": rng.random(n) < 0.5,
            "org": [f"org{i % 3}" for i in range(n)],
            "average": rng.uniform(0, 1, n),
            "rank": rng.permutation(n) + 1,
            "params": rng.uniform(1, 70, n),
            "avg_chat": rng.uniform(0, 1, n),
            "shots": rng.integers(0, 3, n),
            "gsm8k": rng.uniform(0, 1, n),
        }
    )
    want = {
        "mmlu": "benchmark",
        "mmlu_stderr": "uncertainty of a score",
        "declared": "aggregate the source declares",
        "bbh": "benchmark",
        "bbh_raw": "raw twin of a displayed score",
        "released": "dates",
        "is_open": "flag or empty column",
        "org": "text",
        "average": "aggregate by its name",
        "rank": "row number, id or rank",
        "params": "metadata by its name",
        "avg_chat": "aggregate word with a qualifier",
        "shots": "metadata by its values",
        "gsm8k": "benchmark",
    }
    assert {r.name for r in COLUMN_RULES} == set(want.values())  # every rule is met by one column
    profiles = profile_columns(df)
    declared = {"declared": "the source's own mean"}
    for c in df.columns:
        rule, _ = column_rule(ColumnFacts(c, df[c], profiles[c], list(df.columns), declared, ()))
        assert rule.name == want[c], c
    benchmarks, parsed, notes = classify_columns(df, "t", declared)
    assert benchmarks == ["mmlu", "bbh", "gsm8k"] and set(parsed) == set(benchmarks)
    text = " ".join(notes)
    for c in df.columns:
        assert c in text or c in benchmarks or want[c] == "flag or empty column", c
