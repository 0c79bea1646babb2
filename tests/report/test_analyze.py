"""`blindspot analyze` end to end: the report, determinism, and every bad input's one-line error."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from blindspot.cli import main
from blindspot.data.suites import synthetic_suite


@pytest.fixture
def score_file(tmp_path):
    t = synthetic_suite(n_models=60, n_benchmarks=6, seed=3)
    df = t.scores.reset_index()
    df["params_b"] = np.linspace(1, 70, len(df))
    p = tmp_path / "scores.csv"
    df.to_csv(p, index=False)
    return p


def _run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def _report(out_dir):
    return json.loads((out_dir / "report.json").read_text())


def test_report_written_and_deterministic(score_file, tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        code, _, _ = _run(["analyze", str(score_file), "--out", str(out), "--n-boot", "50", "--quiet"], capsys)
        assert code == 0
    ja, jb = _report(a), _report(b)
    assert ja == jb
    assert (a / "report.html").read_text() == (b / "report.html").read_text()
    f = ja["findings"]
    assert f["d_eff_frontier"]["values"]["ci_lo"] <= f["d_eff_frontier"]["values"]["ci_hi"]
    assert 1 <= f["d_eff_full"]["values"]["d_eff"] <= 6
    assert ja["settings"]["n_frontier"] == 30
    assert "data:image/png;base64," in (a / "report.html").read_text()
    code, _, _ = _run(
        ["analyze", str(score_file), "--out", str(tmp_path / "c"), "--n-boot", "50", "--quiet", "--seed", "1"], capsys
    )
    jc = _report(tmp_path / "c")
    assert jc["findings"]["d_eff_frontier"]["values"]["ci_lo"] != f["d_eff_frontier"]["values"]["ci_lo"]


def _bad_files(tmp_path):
    good = synthetic_suite(n_models=10, n_benchmarks=3, seed=0).scores.reset_index()
    cases = {}
    (tmp_path / "empty.csv").write_text("")
    cases["empty"] = (tmp_path / "empty.csv", "is empty")
    cases["absent"] = (tmp_path / "absent.csv", "does not exist")
    p = tmp_path / "text.csv"
    pd.DataFrame({"model": ["a", "b", "c"], "note": ["x", "y", "z"]}).to_csv(p, index=False)
    cases["no numeric"] = (p, "0 numeric score column")
    p = tmp_path / "two.csv"
    good.head(2).to_csv(p, index=False)
    cases["two models"] = (p, "2 model row")
    p = tmp_path / "one_bench.csv"
    good[["model", "bench_01"]].to_csv(p, index=False)
    cases["one benchmark"] = (p, "1 numeric score column")
    p = tmp_path / "dup.csv"
    d = good.copy()
    d.loc[1, "model"] = d.loc[0, "model"]
    d.to_csv(p, index=False)
    cases["duplicates"] = (p, "more than once")
    p = tmp_path / "const.csv"
    d = good.copy()
    d["bench_02"] = 5.0
    d.to_csv(p, index=False)
    cases["constant"] = (p, "constant")
    p = tmp_path / "missing.csv"
    d = good.copy()
    d.loc[[2, 4], "bench_03"] = np.nan
    d.to_csv(p, index=False)
    cases["missing"] = (p, r"2 missing score cell\(s\) in 2 model row\(s\)")
    return cases


def _one_error_line(code, err, pattern, expect_code=2):
    lines = err.strip().splitlines()
    assert code == expect_code, (code, err)
    assert len(lines) == 1 and lines[0].startswith("blindspot:"), err
    assert "Traceback" not in err
    assert pd.Series([lines[0]]).str.contains(pattern).all(), lines[0]
    return lines[0]


def test_bad_inputs_exit_2_with_one_line(tmp_path, capsys):
    for _, (path, message) in _bad_files(tmp_path).items():
        code, _, err = _run(["analyze", str(path), "--out", str(tmp_path / "o"), "--quiet"], capsys)
        _one_error_line(code, err, message)
        assert not (tmp_path / "o").exists()


def test_console_script_runs(score_file, tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "blindspot", "analyze", str(score_file), "--out", str(tmp_path / "o"), "--n-boot", "20"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert "What this means for your leaderboard" in proc.stdout
    assert "Effective dimensionality" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "blindspot", "analyze", str(tmp_path / "nope.csv")], capture_output=True, text=True
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1


def test_leaderboard_dump_layout(tmp_path, capsys):
    """An Open LLM Leaderboard dump: rows keyed by eval_id, raw-score twins left out, metadata ignored."""
    t = synthetic_suite(n_models=30, n_benchmarks=3, seed=4)
    df = t.scores.reset_index().rename(columns={"model": "model_name"})
    df["model_name"] = ["org/m"] * 2 + [f"org/m{i}" for i in range(28)]  # a model evaluated twice
    df.insert(0, "eval_id", [f"e{i}" for i in range(30)])
    for b in ("bench_01", "bench_02", "bench_03"):
        df[f"{b}_raw"] = df[b] / 100
    df["hub_hearts"] = np.arange(30)
    p = tmp_path / "dump.csv"
    df.to_csv(p, index=False)
    code, out, _ = _run(["analyze", str(p), "--out", str(tmp_path / "o"), "--n-boot", "20"], capsys)
    assert code == 0
    rep = _report(tmp_path / "o")
    assert rep["settings"]["benchmarks"] == ["bench_01", "bench_02", "bench_03"]
    assert rep["settings"]["n_models"] == 30
    assert any("raw-score twins" in n for n in rep["notes"])
    assert "Greedy benchmark subset" in out
