"""Helpers for the report tests: a clean synthetic leaderboard and the command run in-process."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from blindspot.cli import main
from blindspot.data.suites import synthetic_suite
from blindspot.report import analyze as analyze_mod


@pytest.fixture
def clean_frame():
    """make(n, k, seed): a synthetic leaderboard as a frame with a 'model' column."""

    def make(n: int = 60, k: int = 6, seed: int = 2) -> pd.DataFrame:
        return synthetic_suite(n_models=n, n_benchmarks=k, seed=seed).scores.reset_index()

    return make


@pytest.fixture
def analyze(tmp_path, capsys):
    """run(path, *args) -> (exit code, stdout, stderr, report dict or None), in-process, quiet."""

    counter = iter(range(10_000))

    def run(path, *args, quiet: bool = True):
        out = tmp_path / f"out{next(counter)}"
        argv = ["analyze", str(path), "--out", str(out), "--n-boot", "60", *args] + (["--quiet"] if quiet else [])
        code = main(argv)
        cap = capsys.readouterr()
        rep = json.loads((out / "report.json").read_text()) if (out / "report.json").exists() else None
        return code, cap.out, cap.err, rep

    return run


@pytest.fixture
def score_file(tmp_path, clean_frame):
    """A clean 40 x 5 score file."""
    p = tmp_path / "scores.csv"
    clean_frame(n=40, k=5).to_csv(p, index=False)
    return p


@pytest.fixture
def no_analysis(monkeypatch):
    """Fail the test if the score file is even read: --out must be refused before that."""

    def boom(*a, **k):
        raise AssertionError("the analysis started before --out was checked")

    monkeypatch.setattr(analyze_mod, "prepare", boom)
