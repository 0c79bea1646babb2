"""A table too small for a section: the report runs the other sections and marks it skipped with what it needs."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from blindspot.report.sections import SECTIONS, file_models_for, section_minima
from blindspot.report.width_regime import min_models_width


@pytest.mark.parametrize("n", [3, 4, 8, 20])
def test_small_files_run_what_they_can(tmp_path, clean_frame, analyze, n):
    p = tmp_path / "s.csv"
    clean_frame(n=n, k=6, seed=5).to_csv(p, index=False)
    code, _, err, rep = analyze(p)
    assert code == 0, err
    status = {k: f["status"] for k, f in rep["findings"].items()}
    assert status["d_eff_full"] == "ok"
    need = section_minima(6, 0.5)
    need["rank_classes"] = need["swap"]  # one section, two findings
    for key, f in rep["findings"].items():
        assert (f["status"] == "skipped") == (n < need[key]), (key, n)
        if f["status"] == "skipped":
            assert re.match(r"skipped: needs at least \d+ (frontier )?models", f["reading"])
            assert f["values"]["needs_models"] > f["values"]["has_models"]
    if n < need["width_model"]:
        assert "needs at least 13 frontier models" in rep["findings"]["width_model"]["reading"]
    x = clean_frame(n=n, k=6, seed=5).iloc[:, 1:].to_numpy(float)  # the frontier counted independently
    agg = ((x - x.mean(0)) / x.std(0)).mean(1)
    n_front = int((agg >= np.quantile(agg, 0.5)).sum())
    for key, f in rep["findings"].items():  # a frontier too small to analyse still reports its true size
        if f["status"] == "skipped" and "frontier models" in f["reading"]:
            assert f["values"]["has_models"] == n_front, (key, f["values"])
            assert f"this frontier has {n_front};" in f["reading"]


def test_minima_are_exact(tmp_path, clean_frame, analyze):
    """At the stated minimum every section runs; one model fewer skips the width model."""
    need = section_minima(6, 0.5)["width_model"]
    for n, expect in ((need, "ok"), (need - 1, "skipped")):
        p = tmp_path / f"s{n}.csv"
        clean_frame(n=n, k=6, seed=1).to_csv(p, index=False)
        code, _, _, rep = analyze(p)
        assert code == 0 and rep["findings"]["width_model"]["status"] == expect


def test_frontier_size_rule():
    assert [file_models_for(m, 0.5) for m in (3, 5, 13)] == [5, 9, 25]
    assert file_models_for(13, 0.0) == 13
    assert min_models_width(6) == 13 and min_models_width(2) == 4


def test_readme_gives_the_real_minimum():
    """The README's table of minimum sizes is the one the code enforces."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## Analyse your own leaderboard")[1].split("\n## ")[0]
    for k in (2, 3, 4, 5, 6):
        need = section_minima(k, 0.5)
        full = max(need.values())
        row = re.search(rf"^\| {k}{' or more' if k == 6 else ''} \| (\d+) \| (\d+) \|", section, re.M)
        assert row, f"no README row for k = {k}"
        assert int(row.group(1)) == need["half_split"] and int(row.group(2)) == full, (k, need)
    assert len(SECTIONS) == 9
