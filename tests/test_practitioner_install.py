"""A practitioner's install: the wheel alone, without the book's environment.

The package is built as a wheel and installed with pip into a fresh virtual environment that has none of
the book's requirements (pip takes the scientific stack from the package index, as a user's pip does); then
``blindspot analyze`` runs on a file, ``blindspot.analyze`` on a DataFrame, and a PKPS fit on generated data
with precomputed embeddings. Neither Jupyter Book nor torch may be there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.pipeline

SCRIPT = textwrap.dedent(
    """
    import importlib.util, json, sys
    import numpy as np, pandas as pd
    import blindspot
    from dkps import PKPS, generate_benchmark_data

    out = {"absent": [m for m in ("jupyter_book", "torch", "papermill") if importlib.util.find_spec(m) is None]}
    rng = np.random.default_rng(0)
    f = rng.normal(size=(40, 2))
    board = pd.DataFrame(f @ rng.normal(size=(2, 5)) + rng.normal(0, 0.3, (40, 5)),
                         index=[f"m{i:02d}" for i in range(40)], columns=[f"b{j}" for j in range(5)])
    rep = blindspot.analyze(board, n_boot=50)
    out["api_d_eff"] = rep.d_eff
    data, scores, observed, _, _ = generate_benchmark_data(
        d_latent=3, d_obs=8, n_models=12, n_tasks=4, n_queries_per_task=6, obs_prob=0.7, random_state=0)
    mi = data.model_id.str[6:].astype(int); ti = data.task_id.str[5:].astype(int)
    data["score"] = 1 / (1 + np.exp(-scores[mi, ti]))
    pred = PKPS().fit(data).predict()
    hats = np.array([p["score_hat"] for p in pred])
    out["pkps_predictions"] = len(pred)
    out["pkps_missing_cells"] = 12 * 4 - len(data[["model_id", "task_id"]].drop_duplicates())
    out["pkps_in_range"] = bool(np.all((hats > 0) & (hats < 1)))  # weighted means of scores in (0, 1)
    print(json.dumps(out))
    """
)


def _run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)
    assert res.returncode == 0, f"{' '.join(map(str, cmd))}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    return res


def test_the_wheel_alone_analyzes_and_fits(tmp_path):
    wheels = tmp_path / "wheels"
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(wheels),
            str(PROJECT),
        ]
    )
    (wheel,) = wheels.glob("blindspot_book-*.whl")
    env_dir = tmp_path / "fresh"
    _run([sys.executable, "-m", "venv", str(env_dir)])
    py = env_dir / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    _run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)], env=env)
    board = tmp_path / "scores.csv"
    board.write_text(
        "model,a,b,c\n"
        + "\n".join(f"m{i},{50 + i % 7 * 3 + i},{40 + i * 2 % 11},{60 - i % 5 * 4 + i}" for i in range(20))
    )
    cli = _run(
        [str(env_dir / "bin" / "blindspot"), "analyze", str(board), "--out", str(tmp_path / "r"), "--n-boot", "50"],
        env=env,
    )
    assert (tmp_path / "r" / "report.html").is_file() and "d_eff" in cli.stdout
    res = _run([str(py), "-c", SCRIPT], env=env, cwd=tmp_path)
    got = json.loads(res.stdout.strip().splitlines()[-1])
    assert got["absent"] == ["jupyter_book", "torch", "papermill"]
    assert 1.0 <= got["api_d_eff"] <= 5.0
    assert got["pkps_predictions"] == got["pkps_missing_cells"] > 0  # one prediction per unobserved cell
    assert got["pkps_in_range"]
