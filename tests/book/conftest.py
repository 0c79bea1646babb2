"""The quick edition of the book, built once per test session and shared by the pipeline tests."""

from __future__ import annotations

import pytest

from blindspot.book.build import build_book


@pytest.fixture(scope="session")
def quick_book(tmp_path_factory):
    """Every chapter executed in quick mode and rendered with jupyter-book -W, with its student edition
    (the BuildResult)."""
    return build_book(quick=True, out=tmp_path_factory.mktemp("quick"), student=True, progress=False)
