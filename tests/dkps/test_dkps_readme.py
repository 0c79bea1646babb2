"""The README quick start runs verbatim (spec §15 test 32)."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[2] / "support" / "dkps" / "README.md"


def quick_start_code() -> str:
    text = README.read_text()
    section = text.split("## Quick start", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_quick_start_runs_verbatim():
    ns: dict = {}
    exec(compile(quick_start_code(), str(README), "exec"), ns)
    missing, observed, ens = ns["missing"], ns["observed"], ns["ens"]
    got = {(d["model_id"], d["task_id"]) for d in missing}
    want = {(f"model_{i:02d}", f"task_{t:03d}") for i, t in zip(*np.nonzero(~observed))}
    assert got == want and len(missing) == len(want) == 131
    vals = np.array([d["score_hat"] for d in missing])
    assert np.isfinite(vals).all() and (vals >= 0).all() and (vals <= 1).all()
    assert 0.0 <= ens.weight_ <= 1.0
