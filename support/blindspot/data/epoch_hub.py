"""The Epoch AI Benchmarking Hub export as a sparse score table, and a sparse synthetic stand-in.

``epoch_hub/epoch_wide.csv`` (data directory; see its PROVENANCE.md) is a model_version x benchmark
matrix of each benchmark's headline score: 577 models x 49 benchmarks, about 91% of cells missing,
on mixed scales (0-1, 0-100, Elo, minutes). ``eci_score`` (Epoch's capability index), the release
date and the organization are metadata, not benchmarks.

When the file is absent, :func:`load_epoch_hub` returns :func:`sparse_stand_in`: a seeded
latent-factor leaderboard with mixed scales and a release-date missingness pattern, flagged
``synthetic=True`` (its pages then say so and their ledger claims are 'not reproducible here').
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from blindspot.data.suites import SUITES, load, load_suite, resolve_data_dir
from blindspot.data.synthetic import synthetic_scores
from blindspot.data.tables import ScoreTable, load_scores

__all__ = ["HUB", "HUB_FILE", "HUB_META", "load_epoch_hub", "load_paper_epoch", "load_sparse_scores", "sparse_stand_in"]

#: The suite registry's entry for the export: its file, model column and missing-cell policy.
HUB = SUITES["epoch_hub"]
#: Where the export lives inside a data directory (the registry's path).
HUB_FILE = HUB.path
#: Its non-benchmark columns (the registry's model column first).
HUB_META = (HUB.models_col, "release_date", "organization", "eci_score")


def sparse_stand_in(
    n_models: int = 480, n_benchmarks: int = 45, density: float = 0.1, seed: int = 0, name: str = "synthetic sparse"
) -> ScoreTable:
    """A sparse synthetic leaderboard shaped like the Epoch hub (``synthetic=True``).

    Scores: :func:`blindspot.data.synthetic.synthetic_scores` with 4 factors, put on mixed scales (every
    third column a 0-1 accuracy, two Elo-like columns, one positive heavy-tailed column; the rest
    0-100). Missingness: each model i has a release date u_i ~ U(0, 1) and an activity
    a_i ~ Beta(1, 3), each benchmark j a date v_j and a popularity w_j ~ U(0.2, 1); cell (i, j) is
    observed with probability min(1, c a_i w_j exp(-|u_i - v_j| / 0.25)), c set so that about
    ``density`` of the cells are observed. With the defaults about 200 models have >= 5 scores and
    60 have >= 10, as in the hub export.
    """
    if not 0 < density < 1:
        raise ValueError(f"density must be in (0, 1), got {density}")
    S, cols = synthetic_scores(n_models=n_models, n_benchmarks=n_benchmarks, n_factors=4, seed=seed)
    rng = np.random.default_rng(seed + 1)
    Z = (S - S.mean(axis=0)) / S.std(axis=0)
    X = np.empty_like(Z)
    for j in range(n_benchmarks):
        if j % 3 == 0:
            X[:, j] = 1.0 / (1.0 + np.exp(-Z[:, j]))  # an accuracy in (0, 1)
        elif j in (1, 2):
            X[:, j] = 1200.0 + 120.0 * Z[:, j]  # Elo-like
        elif j == 4:
            X[:, j] = 10.0 ** (1.0 + Z[:, j])  # minutes, spanning decades
        else:
            X[:, j] = 50.0 + 15.0 * Z[:, j]
    u, v = rng.random(n_models), rng.random(n_benchmarks)
    w = rng.uniform(0.2, 1.0, n_benchmarks)
    a = rng.beta(1.0, 3.0, n_models)
    p = a[:, None] * w[None, :] * np.exp(-np.abs(u[:, None] - v[None, :]) / 0.25)
    c = density / p.mean()
    obs = rng.random(p.shape) < np.minimum(1.0, c * p)
    index = pd.Index([f"model-{i:04d}" for i in range(n_models)], name="model")
    scores = pd.DataFrame(np.where(obs, X, np.nan), index=index, columns=cols)
    meta = pd.DataFrame({"release": u}, index=index)
    return ScoreTable(
        scores,
        meta,
        name,
        f"synthetic sparse latent-factor suite (seed={seed}, density={density})",
        True,
        (f"{1 - obs.mean():.1%} of score cells are missing (kept as NaN)",),
    )


def load_epoch_hub(data_dir: str | os.PathLike | None = None, seed: int = 0, fallback: bool = True) -> ScoreTable:
    """The hub export (:data:`HUB_FILE`) as a ScoreTable with NaN for missing cells.

    Parameters
    ----------
    data_dir : the data directory (default :func:`blindspot.data.suites.resolve_data_dir`).
    fallback : without the file, return :func:`sparse_stand_in` (``synthetic=True``); with
        ``fallback=False`` a missing file raises ValueError.
    """
    root = resolve_data_dir(data_dir)
    path = root / HUB_FILE if root is not None else None
    if path is None or not path.is_file():
        if not fallback:
            raise ValueError(f"the Epoch hub export is not available: {'no data directory' if root is None else path}")
        return sparse_stand_in(seed=seed, name="synthetic stand-in for epoch_hub")
    head = pd.read_csv(path, nrows=0).columns
    absent = [c for c in HUB_META if c not in head]
    if absent:
        raise ValueError(f"{path} lacks the column(s) {absent}; is it the staged epoch_wide.csv?")
    benchmarks = [c for c in head if c not in HUB_META]
    # the export as it spells its models (3 names occur twice in case, as in the paper's Epoch matrix)
    return load_scores(
        path,
        models_col=HUB.models_col,
        benchmarks=benchmarks,
        missing=HUB.missing,
        name="epoch_hub",
        names_as_written=True,
    )


def load_paper_epoch(data_dir: str | os.PathLike | None = None, seed: int = 0) -> ScoreTable:
    """The paper's merged Epoch file (suite ``'epoch'``, sparse, H.50), or — when it is absent — the
    sparse stand-in :func:`sparse_stand_in` (``synthetic=True``). The generic synthetic fallback of
    :func:`blindspot.data.suites.load_suite` is dense, so it has no gaps for an imputation to fill."""

    table = load_suite("epoch", data_dir=data_dir, seed=seed, missing="keep")
    if table.synthetic:
        return sparse_stand_in(seed=seed, name="synthetic stand-in for the paper's epoch file")
    return table


def load_sparse_scores(
    scores: str | os.PathLike, data_dir: str | os.PathLike | None = None, seed: int = 0
) -> ScoreTable:
    """A chapter's ``scores`` parameter as a score table whose missing cells stay NaN.

    ``'epoch'`` (the paper's merged Epoch file) is read by :func:`load_paper_epoch`, so that without the
    data it falls back to the *sparse* stand-in; any other named suite or score file goes through
    :func:`blindspot.data.suites.load` with ``missing='keep'`` (a dense file simply has no gaps).

    Raises
    ------
    ValueError
        If ``scores`` is neither a named suite nor an existing file, or the file is not a leaderboard.
    """
    if str(scores) == "epoch":
        return load_paper_epoch(data_dir, seed=seed)
    return load(scores, data_dir=data_dir, seed=seed, missing="keep")
