"""The code examples of README.md and CONTRIBUTING.md run as written (in a folder holding a my_scores.csv)."""

from __future__ import annotations

import re

import pytest

from blindspot.book.chapters import project_root
from blindspot.data.suites import synthetic_suite

ROOT = project_root()
BLOCKS = [
    (name, i, code)
    for name in ("README.md", "CONTRIBUTING.md")
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", (ROOT / name).read_text(), re.S))
]


@pytest.mark.parametrize("name,i,code", BLOCKS, ids=[f"{n}-{i}" for n, i, _ in BLOCKS])
def test_python_examples_run(name, i, code, tmp_path, monkeypatch):
    synthetic_suite(n_models=40, n_benchmarks=6, seed=1).scores.reset_index().to_csv(
        tmp_path / "my_scores.csv", index=False
    )
    monkeypatch.chdir(tmp_path)
    exec(compile(code, f"{name} example {i}", "exec"), {})


def test_there_are_examples():
    assert any(n == "README.md" for n, _, _ in BLOCKS)
