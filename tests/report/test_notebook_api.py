"""``blindspot.analyze`` in a notebook: the same analysis as the command line.

It takes a frame (models in the index or in a column), a path or a ScoreTable, with the command's
options and checks; the report it returns is the one ``blindspot analyze`` writes (the same
report.json and report.html), shows itself as that HTML in a real Jupyter kernel, and saves itself
with the command's both-or-neither writer.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
import numpy as np
import pandas as pd
import pytest
from nbclient import NotebookClient

import blindspot
from blindspot.cli import main
from blindspot.data.tables import table_from_frame

ROOT = Path(__file__).resolve().parents[2]
N_BOOT = 20


@pytest.fixture(scope="module")
def frame():
    from blindspot.data.suites import synthetic_suite

    return synthetic_suite(n_models=30, n_benchmarks=4, seed=3).scores  # models in the index


@pytest.fixture(scope="module")
def rep(frame):
    return blindspot.analyze(frame, n_boot=N_BOOT)


def _numbers(doc: dict) -> dict:
    """What report.json computed (the settings, the ranking, every finding), not what it says about the input."""
    return {k: doc[k] for k in ("settings", "ranking", "findings", "advice")}


def test_the_command_line_and_the_function_give_one_report(tmp_path, frame, rep, capsys):
    path = tmp_path / "scores.csv"
    frame.reset_index().to_csv(path, index=False)
    out = tmp_path / "rep"
    assert main(["analyze", str(path), "--out", str(out), "--n-boot", str(N_BOOT), "--quiet"]) == 0
    capsys.readouterr()
    written = json.loads((out / "report.json").read_text())
    assert _numbers(written) == _numbers(json.loads(rep.to_json()))
    from_path = blindspot.analyze(path, n_boot=N_BOOT)
    assert from_path.to_json() == (out / "report.json").read_text()
    assert from_path.to_html() == (out / "report.html").read_text()


def test_a_frame_a_model_column_and_a_score_table_are_the_same_input(frame, rep):
    with_column = blindspot.analyze(frame.reset_index(), n_boot=N_BOOT)
    as_table = blindspot.analyze(table_from_frame(frame.reset_index()), n_boot=N_BOOT)
    for other in (with_column, as_table):
        assert _numbers(other.as_json()) == _numbers(rep.as_json())
    assert rep.top_model == as_table.top_model


def test_the_main_numbers_are_plain_attributes(rep):
    d_eff = rep.finding("d_eff_frontier").values["d_eff"]
    assert rep.d_eff == pytest.approx(d_eff) and rep.d_eff_of == "frontier"
    lo, hi = rep.d_eff_interval
    assert lo <= rep.d_eff <= hi
    table = rep.ranking_table
    assert isinstance(table, pd.DataFrame) and list(table.index[:3]) == [1, 2, 3]
    assert table["model"].iloc[0] == rep.top_model
    assert np.all(np.diff(table["aggregate (z)"].to_numpy()) <= 0)  # ranked by the aggregate
    assert "d_eff" in repr(rep) and "base64" not in repr(rep)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"n_boot": 1}, "--n-boot must be between 2 and 100,000"),
        ({"frontier": 1.0}, r"--frontier must be in \[0, 1\)"),
        ({"seed": -1}, "--seed must be a non-negative integer"),
        ({"missing": "guess"}, "--missing must be error, drop-rows or complete"),
        ({"benchmarks": "bench_01,nope"}, "benchmark columns \\['nope'\\] not found"),
    ],
)
def test_the_same_checks_as_the_command(frame, options, message):
    with pytest.raises(ValueError, match=message):
        blindspot.analyze(frame, **options)


def test_a_frame_with_a_missing_cell_is_refused_as_the_file_is(frame):
    holed = frame.copy()
    holed.iloc[2, 1] = np.nan
    with pytest.raises(ValueError, match="missing"):
        blindspot.analyze(holed, n_boot=N_BOOT)


def test_not_a_table_is_refused_in_one_line():
    with pytest.raises(ValueError, match="takes a DataFrame"):
        blindspot.analyze([[1, 2], [3, 4]])


def test_save_writes_both_files_as_the_command(tmp_path, rep):
    html, js = rep.save(tmp_path / "saved")
    assert html.read_text() == rep._repr_html_() and js.read_text() == rep.to_json()
    assert sorted(os.listdir(tmp_path / "saved")) == ["report.html", "report.json"]


def test_save_refuses_a_report_file_that_is_a_folder_and_replaces_nothing(tmp_path, rep):
    out = tmp_path / "saved"
    out.mkdir()
    (out / "report.json").write_text("old")
    (out / "report.html").mkdir()
    with pytest.raises(ValueError, match="report.html there is a folder"):
        rep.save(out)
    assert (out / "report.json").read_text() == "old"
    assert not [p for p in tmp_path.rglob("*.partial")]


def test_save_never_overwrites_the_file_it_was_read_from(tmp_path, frame):
    path = tmp_path / "report.json"
    frame.reset_index().to_json(path, orient="records")
    before = path.read_bytes()
    from_file = blindspot.analyze(path, n_boot=N_BOOT)
    with pytest.raises(ValueError, match="would overwrite the input file"):
        from_file.save(tmp_path)
    assert path.read_bytes() == before


def test_the_html_is_one_self_contained_page_scoped_to_the_report(rep):
    page = rep._repr_html_()
    assert page.startswith("<!doctype html>") and "data:image/png;base64," in page
    assert "http://" not in page and "https://" not in page and "<script" not in page
    css = page[page.index("<style>") + 7 : page.index("</style>")]
    rules = [r.split("{")[0].strip() for r in css.split("}") if "{" in r]
    assert rules and all(sel.strip().startswith(".blindspot-report") for r in rules for sel in r.split(",")), rules


def test_in_a_real_kernel_the_cell_shows_the_html_report(tmp_path):
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(
                "import blindspot\n"
                "from blindspot.data.suites import synthetic_suite\n"
                "frame = synthetic_suite(n_models=30, n_benchmarks=4, seed=3).scores\n"
                f"blindspot.analyze(frame, n_boot={N_BOOT})"
            )
        ],
        metadata={"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
    )
    env_path = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "support"), *([env_path] if env_path else [])])
    try:  # the kernel inherits this process's environment: this worktree's support packages
        NotebookClient(
            nb, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(tmp_path)}}
        ).execute()
    finally:
        if env_path is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = env_path
    outputs = nb.cells[0].outputs
    results = [o for o in outputs if o.output_type == "execute_result"]
    assert results, outputs
    html = results[0].data["text/html"]
    assert "<h1>Blind-spot report</h1>" in html and "What this means for your leaderboard" in html
    assert "data:image/png;base64," in html
    assert results[0].data["text/plain"].startswith("<blindspot AnalysisReport on")
