"""The README quick start runs verbatim."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "support" / "dkps" / "README.md"
READMES = {README: "## Quick start", ROOT / "README.md": "## Perspective spaces in five lines"}


def quick_start_code(path: Path = README) -> str:
    text = path.read_text()
    section = text.split(READMES[path], 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_project_readme_carries_the_same_quick_start():
    assert quick_start_code(ROOT / "README.md") == quick_start_code(README)


@pytest.mark.parametrize("path", list(READMES), ids=["dkps-README", "project-README"])
def test_quick_start_runs_verbatim(path):
    ns: dict = {}
    exec(compile(quick_start_code(path), str(path), "exec"), ns)
    missing, observed, ens = ns["missing"], ns["observed"], ns["ens"]
    got = {(d["model_id"], d["task_id"]) for d in missing}
    want = {(f"model_{i:02d}", f"task_{t:03d}") for i, t in zip(*np.nonzero(~observed))}
    assert got == want and len(missing) == len(want) == 131
    vals = np.array([d["score_hat"] for d in missing])
    assert np.isfinite(vals).all() and (vals >= 0).all() and (vals <= 1).all()
    assert 0.0 <= ens.weight_ <= 1.0
