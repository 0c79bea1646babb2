"""Shared fixtures: the data directory (or None) and small synthetic matrices; every test's figures closed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from blindspot.data.suites import resolve_data_dir
from blindspot.data.synthetic import random_correlations
from dkps import embed

# Tests embed into throw-away caches; the local encoder's ONNX export (named by the weights' checksum,
# so never stale) is made once, in the user's default cache folder, instead of once per test.
os.environ.setdefault("DKPS_ONNX_DIR", str(embed.onnx_folder()))


@pytest.fixture(autouse=True)
def _close_figures():
    """Close the figures a test drew: pyplot keeps every figure until closed, and a worker that runs many
    figure-drawing tests in a row otherwise reaches matplotlib's "more than 20 figures" warning, which
    pyproject turns into an error for blindspot's code (and which depends on the order xdist deals tests)."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


@pytest.fixture(scope="session")
def data_dir():
    """The real data directory, or skip the test when there is none."""
    d = resolve_data_dir()
    if d is None:
        pytest.skip("no data directory (set BLINDSPOT_DATA or place ../shared/data)")
    return d


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def random_corr():
    """make(rng, k, n_factors=None): a random k x k correlation matrix, from
    :func:`~blindspot.data.synthetic.random_correlations`, or with ``n_factors`` normal factors plus noise."""

    def make(rng: np.random.Generator, k: int, n_factors: int | None = None) -> np.ndarray:
        if n_factors is None:
            return random_correlations(1, k, rng)[0]
        L = rng.normal(size=(k, n_factors))
        W = L @ L.T + np.diag(rng.uniform(0.1, 1.0, k))
        d = np.sqrt(np.diag(W))
        return W / d[:, None] / d[None, :]

    return make


@pytest.fixture
def swallowed_ctrl_c():
    """run(setup, argv, env, cwd): ``main(argv)`` in a new Python after ``setup``, a script in which
    calling ``Swallowed()`` sends the process a SIGINT from a ``__del__``, where the handler's
    :class:`blindspot.cli.Interrupted` is raised and Python only prints "Exception ignored" (as for a
    Ctrl-C during importlib's weak-reference callbacks). Returns the finished process, after checking
    that the swallowing happened. SIGINT starts with its default handling, as at a terminal."""

    def run(setup: str, argv: list[str], env: dict, cwd: Path) -> subprocess.CompletedProcess:
        code = (
            "import signal, sys\n"
            "from blindspot.cli import main\n"
            "class Swallowed:\n"
            "    def __del__(self):\n"
            "        signal.raise_signal(signal.SIGINT)\n"
            f"{setup}\n"
            f"sys.exit(main({argv!r}))\n"
        )
        res = subprocess.run(
            [sys.executable, "-c", code],
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=300,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        assert "Exception ignored" in res.stderr, res.stderr  # the swallowing really happened
        return res

    return run
