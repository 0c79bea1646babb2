"""A survey goes on past a leaderboard it cannot analyse, and its messages name only its own options."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd

import blindspot
from blindspot.cli import main


def _csv(path: Path, n: int, k: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k)) + rng.normal(size=(n, 1))
    df = pd.DataFrame(X, columns=[f"b{j}" for j in range(k)])
    df.insert(0, "model", [f"m{i:02d}" for i in range(n)])
    df.to_csv(path, index=False)


def _survey_flags() -> set[str]:
    from blindspot.report.survey.command import add_parser

    sub = argparse.ArgumentParser().add_subparsers()
    add_parser(sub, lambda a: 0)
    parser = sub.choices["survey"]
    return {s for a in parser._actions for s in a.option_strings}


def test_a_leaderboard_that_cannot_be_read_is_a_row_with_its_reason_and_the_survey_goes_on(tmp_path, capsys):
    _csv(tmp_path / "good.csv", 40, 5)
    _csv(tmp_path / "two_models.csv", 2, 5, seed=1)
    _csv(tmp_path / "one_bench.csv", 30, 1, seed=2)
    out = tmp_path / "out"
    assert main(["survey", str(tmp_path), "--out", str(out), "--n-boot", "20"]) == 0  # exit 2 before
    table = pd.read_csv(out / "survey.csv", index_col=0)
    assert sorted(table.index) == ["good", "one_bench", "two_models"]
    assert table.loc["good", "d_eff_frontier"] > 1
    for name in ("two_models", "one_bench"):
        assert np.isnan(table.loc[name, "d_eff_frontier"])
        assert "could not be read" in table.loc[name, "not_computed"]
    captured = capsys.readouterr()
    said = captured.out + captured.err + (out / "survey.html").read_text()
    flags = set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", said))
    assert flags <= _survey_flags(), flags - _survey_flags()


def test_records_of_several_eee_leaderboards_are_one_row_each_not_advice_to_use_leaderboard(tmp_path):
    rng = np.random.default_rng(0)
    for board in ("one", "two"):
        X = rng.uniform(0.1, 0.9, size=(30, 4))
        for i in range(30):
            rec = {
                "schema_version": "0.2.0",
                "evaluation_id": f"{board}/m{i}/1700000000",
                "retrieved_timestamp": "1700000000",
                "model_info": {"id": f"org/m{i:02d}", "name": f"m{i:02d}"},
                "evaluation_results": [
                    {"evaluation_name": c, "score_details": {"score": float(v)}} for c, v in zip("abcd", X[i])
                ],
            }
            p = tmp_path / "records" / f"m{i:02d}" / f"{board}.json"  # two levels down: not the store's layout
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(json.dumps(rec))
    sv = blindspot.survey(tmp_path / "records", n_boot=20)  # "pick one with --leaderboard" before
    assert sorted(sv.table.index) == ["one", "two"]
    assert (sv.table["models"] == 30).all()


# ------------------------------------------------------------------------------------------ one declaration
def _parser(command: str) -> argparse.ArgumentParser:
    from blindspot.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def test_analyze_and_survey_take_the_reading_options_from_their_one_declaration():
    """Each reading option is declared once (blindspot.data.format_options); both commands' flags
    and help, and both Python functions' keywords, are made from it."""
    import inspect

    from blindspot.data.format_options import _all_options
    from blindspot.report.analyze import analyze
    from blindspot.report.survey import survey

    for command in ("analyze", "survey"):
        actions = {s: a for a in _parser(command)._actions for s in a.option_strings}
        for o in _all_options():
            assert o.flag in actions, (command, o.flag)
            assert actions[o.flag].help == o.help and actions[o.flag].dest == o.name
    for fn in (analyze, survey):
        assert {o.name for o in _all_options()} <= set(inspect.signature(fn).parameters), fn.__name__


def test_survey_applies_a_reading_option_where_a_format_takes_it(tmp_path):
    test_records_of_several_eee_leaderboards_are_one_row_each_not_advice_to_use_leaderboard(tmp_path)
    _csv(tmp_path / "board.csv", 30, 4)
    sv = blindspot.survey(
        [tmp_path / "records", tmp_path / "board.csv"], n_boot=20, leaderboard="two", lower_is_better=["b0"]
    )
    assert sorted(sv.table.index) == ["board", "records"]  # the CSV is read: --leaderboard is not its option
    assert sv.table.loc["records", "models"] == 30 and sv.reports["board"]


def test_an_option_a_format_does_not_take_is_named_from_its_declaration(tmp_path):
    from blindspot import data

    _csv(tmp_path / "board.csv", 30, 4)
    import pytest

    with pytest.raises(ValueError, match=r"--level \(level=\) applies to other formats"):
        data.load_scores(tmp_path / "board.csv", level="tasks")
