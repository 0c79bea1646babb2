"""The one registry of input formats (issue 44 item 3, issue 47): every reader goes through it, and what the
messages, ``--help`` and the README say about the formats is the registry's."""

from __future__ import annotations

from pathlib import Path

import pytest

from blindspot import data
from blindspot.data import readers
from blindspot.report import options

PROJECT = Path(__file__).resolve().parents[2]


def test_help_and_readme_name_every_format_of_the_registry():
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    for fmt in readers.FORMATS:
        assert fmt.name in readme, fmt.name
        assert fmt.name in options.FORMATS_HELP, fmt.name
    assert "Add an input format" in (PROJECT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_a_folder_of_nothing_known_lists_the_formats(tmp_path):
    (tmp_path / "notes.txt").write_text("nothing")
    with pytest.raises(ValueError, match="holding none of the formats") as exc:
        data.load_scores(tmp_path)
    for fmt in readers.FORMATS:
        assert fmt.name in str(exc.value)


def test_an_option_of_another_format_is_refused(tmp_path):
    p = tmp_path / "s.csv"
    p.write_text("model,a,b\nx,1,2\ny,2,1\nz,3,3\n")
    with pytest.raises(ValueError, match=r"--leaderboard \(leaderboard=\) applies to other formats"):
        data.load_scores(p, leaderboard="helm_lite")


def test_every_reader_of_the_project_uses_the_registry():
    """No second reader: the score-file reader is called from the registry alone."""
    support = PROJECT / "support" / "blindspot"
    callers = [
        p.relative_to(support).as_posix()
        for p in support.rglob("*.py")
        if "read_score_file(" in p.read_text(encoding="utf-8")
    ]
    assert sorted(callers) == ["data/score_files.py"]


def test_the_floor_hands_on_exactly_what_its_modules_export():
    """blindspot.data imports its names lazily (so format_options loads without pandas): the lists agree."""
    from blindspot import data
    from blindspot.data import suites, tables

    assert sorted(data.__all__) == sorted([*tables.__all__, *suites.__all__])
    assert all(getattr(data, n) is getattr(tables if n in tables.__all__ else suites, n) for n in data.__all__)
