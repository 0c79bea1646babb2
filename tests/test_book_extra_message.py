"""In the practitioner install (``pip install .``) a command that needs the book's environment says
which extra to install, in one line, exit 2 (it ended in ``ModuleNotFoundError`` before)."""

from __future__ import annotations

import importlib.util

import pytest

from blindspot.cli import main


@pytest.mark.parametrize("argv", [["book", "--quick"], ["book", "--quick", "--no-html"], ["execute", "x.md"]])
@pytest.mark.parametrize("absent", ["jupytext", "papermill", "jupyter_book"])
def test_a_book_command_without_the_books_environment_names_the_extra(monkeypatch, capsys, argv, absent):
    real = importlib.util.find_spec

    def find_spec(name, *a, **k):
        return None if name == absent else real(name, *a, **k)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    if absent == "jupyter_book" and argv[0] != "book" or "--no-html" in argv and absent == "jupyter_book":
        pytest.skip("that command does not need Jupyter Book")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ".[book]" in err and f"blindspot {argv[0]}" in err


def test_the_book_extra_is_declared():
    from pathlib import Path

    import tomllib

    meta = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    extra = meta["project"]["optional-dependencies"]["book"]
    assert {"jupytext", "papermill"} <= {e.split("<")[0].split("=")[0] for e in extra}
