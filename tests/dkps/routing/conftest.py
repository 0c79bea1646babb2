"""Synthetic paired suites shared by the routing tests (seeded Gaussian responses)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dkps.routing.evaluation import PairedSuite


def make_suite(seed: int = 0, n: int = 8, m: int = 60, d: int = 6, n_tasks: int = 3) -> PairedSuite:
    rng = np.random.default_rng(seed)
    tasks = np.array([f"t{j % n_tasks}" for j in range(m)], dtype=object)
    centers = rng.normal(size=(n_tasks, 4)) * 3
    U = centers[[int(t[1:]) for t in tasks]] + rng.normal(size=(m, 4)) * 0.5
    X = rng.normal(size=(n, m, d))
    scores = rng.random((n, m))
    return PairedSuite(
        X=X,
        U=U,
        tasks=tasks,
        models=[f"m{i}" for i in range(n)],
        query_ids=np.array([f"q{j:03d}" for j in range(m)]),
        scores=scores,
    )


def planted_twins(seed: int = 0):
    """Target T = m0; m1 copies T on task A's queries only, m2 on task B's; m3..m5 are independent."""
    rng = np.random.default_rng(seed)
    n, per, d = 6, 40, 8
    tasks = np.array(["A"] * per + ["B"] * per, dtype=object)
    U = np.concatenate([rng.normal(size=(per, 3)) + [6, 0, 0], rng.normal(size=(per, 3)) - [6, 0, 0]])
    X = rng.normal(size=(n, 2 * per, d))
    X[1, :per] = X[0, :per] + 0.05 * rng.normal(size=(per, d))
    X[2, per:] = X[0, per:] + 0.05 * rng.normal(size=(per, d))
    X[1, per:] += 1.5 * rng.normal(size=(per, d))  # the twins are far off their copied task
    X[2, :per] += 1.5 * rng.normal(size=(per, d))
    qids = np.array([f"q{j:03d}" for j in range(2 * per)])
    return PairedSuite(X=X, U=U, tasks=tasks, models=[f"m{i}" for i in range(n)], query_ids=qids)


def grouped_suite(heterogeneous: bool, seed: int = 0, n: int = 10, per: int = 40, n_groups: int = 4, d: int = 8):
    """Queries in well-separated groups. Heterogeneous: each model's answers centre on a vector drawn per group,
    so which model resembles which changes between groups. Homogeneous: one centre per model for every group."""
    rng = np.random.default_rng(seed)
    m = per * n_groups
    g = np.repeat(np.arange(n_groups), per)
    U = rng.normal(size=(n_groups, 5))[g] * 8 + rng.normal(size=(m, 5))
    centre = rng.normal(size=(n, n_groups if heterogeneous else 1, d))
    X = centre[:, g if heterogeneous else np.zeros(m, dtype=int)] + 0.7 * rng.normal(size=(n, m, d))
    return PairedSuite(
        X=X, U=U, tasks=np.array([f"g{k}" for k in g], dtype=object), models=[f"m{i}" for i in range(n)],
        query_ids=np.array([f"q{j:03d}" for j in range(m)]),
    )  # fmt: skip


def suite_records(suite: PairedSuite, keep: np.ndarray | None = None, scored: bool = False) -> pd.DataFrame:
    """The suite as dkps records, a row per (model, query), models outer: ``keep`` masks the (model, query) rows
    to write (None: all); ``scored`` adds a ``score``, each response's first coordinate."""
    n, m, _ = suite.X.shape
    rows = []
    for i in range(n):
        for j in range(m):
            if keep is not None and not keep[i, j]:
                continue
            row = dict(
                model_id=suite.models[i],
                task_id=suite.tasks[j],
                query_id=suite.query_ids[j],
                response_embedding=suite.X[i, j],
                query_embedding=suite.U[j],
            )
            if scored:
                row["score"] = float(suite.X[i, j, 0])
            rows.append(row)
    return pd.DataFrame(rows)


@pytest.fixture
def records_of():
    return suite_records


@pytest.fixture
def suite_of():
    return make_suite


@pytest.fixture
def twins_of():
    return planted_twins


@pytest.fixture(scope="session")
def grouped_of():
    return grouped_suite
