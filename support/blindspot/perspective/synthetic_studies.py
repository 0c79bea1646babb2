"""Synthetic studies of the book's Part V (a synthetic stand-in for the PKPS paper's HELM Table 1).

- :func:`latent_r2`: how much of the models' latent vectors a geometry recovers;
- :func:`perspective_picture`: one perspective space of synthetic models, with their abilities;
- :func:`pairing_study`: PKPS vs DKPS as the queries of different models stop overlapping;
- :func:`query_efficiency_study`: the six estimators at m queries per cell (the stand-in for the
  paper's Table 1), MAE against the realised full-benchmark score, over seeds.

Every function returns a frozen dataclass of arrays / tidy DataFrames; nothing prints or plots.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, fields
from numbers import Number

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.special import expit
from threadpoolctl import threadpool_limits

from blindspot.core.verdict import compare_words
from dkps.ensemble import Ensemble
from dkps.irt import IRT
from dkps.lrmc import LRMC
from dkps.pkps import DKPS, PKPS
from dkps.sample_score import SampleScore
from dkps.synthetic import generate_benchmark_data, latent_r2, score_records

__all__ = [
    "ability_view",
    "dkps_literature_gap",
    "PerspectivePicture",
    "perspective_picture",
    "PairingStudy",
    "pairing_study",
    "QueryEfficiencyStudy",
    "query_efficiency_study",
    "METHODS",
]

METHODS = ("SampleScore", "IRT", "DKPS", "PKPS", "LRMC", "Ensemble")


def _single_threaded(fn):
    """Run a study with one BLAS thread: its matrices are small, and on a shared 2-core machine
    threaded BLAS on small problems is slower (spin-waiting), not faster."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)

    return wrapper


def ability_view(coords: np.ndarray, ability: np.ndarray) -> tuple[np.ndarray, float]:
    r"""A 2-D view of a perspective space along the direction that best predicts ``ability``.

    Axis 1 is the projection on the unit least-squares direction :math:`\hat b/\|\hat b\|` of the
    centred coordinates (regressing ``ability`` on them); axis 2 is the leading principal
    direction of what is left after removing axis 1. Returns the ``(n, 2)`` view and the
    in-sample :math:`R^2` of the regression.
    """
    X = np.asarray(coords, dtype=float)
    X = X - X.mean(axis=0)
    a = np.asarray(ability, dtype=float) - np.mean(ability)
    b, *_ = np.linalg.lstsq(X, a, rcond=None)
    nb = np.linalg.norm(b)
    if nb == 0:
        raise ValueError("ability is not linearly related to the coordinates at all")
    u = b / nb
    x1 = X @ u
    R = X - np.outer(x1, u)
    _, _, Vt = np.linalg.svd(R, full_matrices=False)
    x2 = R @ Vt[0]
    r2 = 1.0 - float(((a - X @ b) ** 2).sum() / (a**2).sum())
    return np.column_stack([x1, x2]), r2


def dkps_literature_gap(
    seed: int = 0, n_models: int = 12, n_queries: int = 15, n_replicates: int = 3, dim: int = 6
) -> float:
    r"""Largest :math:`|D^{DKPS}_{ii'} - \|\bar X_i-\bar X_{i'}\|_F/\sqrt m|` on random paired data:
    DKPS with raw vectors against the construction of Acharyya et al. (2024) from replicate means."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_models, n_queries, n_replicates, dim))
    rows = [
        dict(model_id=f"m{i:03d}", task_id="t", query_id=f"q{j}", response_embedding=X[i, j, k])
        for i in range(n_models)
        for j in range(n_queries)
        for k in range(n_replicates)
    ]
    est = DKPS(response_kwargs=dict(pca_dim=None, normalize=False)).fit(rows)
    Xbar = X.mean(axis=2)
    ref = np.sqrt(((Xbar[:, None] - Xbar[None]) ** 2).sum(axis=(2, 3)) / n_queries)
    return float(np.max(np.abs(est.distance_matrix_ - ref)))


def _align(est, ids) -> np.ndarray:
    """Positions of the generator's models in the estimator's sorted model list."""
    return pd.Index(est.model_names_).get_indexer(ids)


@dataclass(frozen=True)
class PerspectivePicture:
    """Coordinates of synthetic models in a PKPS perspective space (in generator order).

    ``ability`` is the latent coordinate on the general-factor axis; ``mean_score`` the models'
    true mean score; ``corr_axis1`` the |correlation| of the first MDS axis with the ability;
    ``r2`` the :func:`latent_r2` of the full coordinates and ``r2_scores`` that of the true score
    matrix; ``view``/``view_r2`` come from :func:`ability_view`.
    """

    coords: np.ndarray
    ability: np.ndarray
    mean_score: np.ndarray
    corr_axis1: float
    r2: float
    r2_scores: float
    n_models: int
    mds_dim: int
    view: np.ndarray
    view_r2: float
    eigenvalues: np.ndarray
    n_tasks: int = 8
    n_queries_per_task: int = 16
    queries_per_cell: int | None = 4
    general_factor: float = 1.5

    def quantities(self) -> dict[str, float | int | str]:
        """The picture's numbers for the prose, by name.

        ``n_models``, ``mds_dim``, ``n_tasks``, ``n_queries_per_task``, ``queries_per_cell`` (omitted when every
        query is answered), ``general_factor``; ``corr_axis1``, ``r2``, ``r2_scores``, ``view_r2`` (the fields
        above); ``r2_word``, "more than" when the coordinates recover more of the latent vectors than the true
        score matrix does (``r2 > r2_scores``), else "no more than".
        """
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        q = {k: v for k, v in values.items() if isinstance(v, Number) and not isinstance(v, bool)}
        q["r2_word"] = compare_words(self.r2, self.r2_scores, "more than", "no more than")
        return q


@_single_threaded
def perspective_picture(
    seed: int = 0,
    n_models: int = 60,
    n_tasks: int = 8,
    n_queries_per_task: int = 16,
    queries_per_cell: int | None = 4,
    general_factor: float = 1.5,
) -> PerspectivePicture:
    """Fit PKPS on factor-model data (:func:`dkps.generate_benchmark_data`, rows for every cell) and
    return its coordinates."""
    bd = generate_benchmark_data(
        n_models=n_models,
        n_tasks=n_tasks,
        n_queries_per_task=n_queries_per_task,
        obs_prob=1.0,
        random_state=seed,
        generative_model="factor",
        queries_per_cell=queries_per_cell,
        general_factor=general_factor,
    )
    data = score_records(bd)
    est = PKPS().fit(data)
    pos = _align(est, bd.params["model_ids"])
    X = est.coords_[pos]
    ability = bd.latent[:, 0]
    mean_score = expit(bd.scores).mean(axis=1)
    corr = float(abs(np.corrcoef(X[:, 0], ability)[0, 1]))
    S = expit(bd.scores)
    view, view_r2 = ability_view(X, ability)
    lam = est._mds[est._h_fit].eigenvalues
    return PerspectivePicture(
        X,
        ability,
        mean_score,
        corr,
        latent_r2(X, bd.latent),
        latent_r2(S, bd.latent),
        n_models,
        est.mds_dim_,
        view,
        view_r2,
        lam,
        n_tasks,
        n_queries_per_task,
        queries_per_cell,
        general_factor,
    )


@dataclass(frozen=True)
class PairingStudy:
    """PKPS vs DKPS as pairing falls. ``runs``: one row per (seed, pool, method) with the latent
    :math:`R^2`, the missing-cell MAE (holdout='model', truth = sigmoid of the true score) and the
    share of model pairs without any shared query; ``summary``: mean and sd over seeds."""

    runs: pd.DataFrame
    summary: pd.DataFrame
    queries_per_cell: int
    n_models: int = 40
    n_tasks: int = 8

    def quantities(self) -> dict[str, float | int]:
        """The study's numbers by name: ``n_models``, ``n_tasks``, ``queries_per_cell``, ``n_seeds``, the smallest
        and largest pools ``pool_lo``/``pool_hi``, ``share_hi`` (the share of shared queries at ``pool_hi``),
        ``r2_{PKPS,DKPS}_{lo,hi}`` (mean latent R^2 at each end) and ``unconnected_DKPS_hi`` (the share of
        DKPS's model pairs with no common query at ``pool_hi``)."""
        s = self.summary.set_index(["pool", "method"])
        lo, hi = int(self.summary.pool.min()), int(self.summary.pool.max())
        r2 = {f"r2_{meth}_{tag}": float(s.loc[(p, meth), "r2_mean"]) for p, tag in ((lo, "lo"), (hi, "hi"))
              for meth in ("PKPS", "DKPS")}  # fmt: skip
        return {
            "n_models": self.n_models, "n_tasks": self.n_tasks, "queries_per_cell": self.queries_per_cell,
            "n_seeds": int(self.runs.seed.nunique()), "pool_lo": lo, "pool_hi": hi,
            "share_hi": self.queries_per_cell / hi, **r2,
            "unconnected_DKPS_hi": float(s.loc[(hi, "DKPS"), "unconnected"]),
        }  # fmt: skip


def _pairing_one(seed: int, P: int, queries_per_cell: int, n_models: int, n_tasks: int, obs_prob: float) -> list[dict]:
    """The rows of one (seed, pool) run of :func:`pairing_study`."""
    rows = []
    bd = generate_benchmark_data(
        n_models=n_models,
        n_tasks=n_tasks,
        n_queries_per_task=P,
        obs_prob=obs_prob,
        random_state=seed,
        generative_model="factor",
        queries_per_cell=queries_per_cell,
    )
    data = score_records(bd)
    truth = expit(bd.scores)
    for name, cls in (("PKPS", PKPS), ("DKPS", DKPS)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            est = cls().fit(data)
        pos = _align(est, bd.params["model_ids"])
        pred = est.predict(as_frame=True)
        mi = pd.Index(bd.params["model_ids"]).get_indexer(pred.model_id)
        ti = pd.Index(bd.params["task_ids"]).get_indexer(pred.task_id)
        err = np.abs(pred.score_hat.to_numpy() - truth[mi, ti])
        rows.append(
            dict(
                seed=seed,
                pool=P,
                share_paired=queries_per_cell / P,
                method=name,
                r2=latent_r2(est.coords_[pos], bd.latent),
                mae=float(np.nanmean(err)),
                unconnected=est.n_unconnected_ / (len(pos) * (len(pos) - 1) / 2),
            )
        )
    return rows


@_single_threaded
def pairing_study(
    pools: Sequence[int] = (4, 8, 16, 32, 64),
    seeds: Sequence[int] = range(4),
    queries_per_cell: int = 4,
    n_models: int = 40,
    n_tasks: int = 8,
    obs_prob: float = 0.6,
    n_jobs: int | None = None,
) -> PairingStudy:
    """Each model answers ``queries_per_cell`` queries per cell drawn from a pool of ``P`` per task;
    the expected share of one model's queries that another also answered is ``m / P``.

    ``n_jobs``: joblib jobs for the (seed, pool) runs; each is seeded on its own and the rows keep
    their order, so the result does not depend on it."""
    for P in pools:
        if P < queries_per_cell:
            raise ValueError(f"pool {P} is smaller than queries_per_cell {queries_per_cell}")
    parts = Parallel(n_jobs=n_jobs)(
        delayed(_pairing_one)(seed, P, queries_per_cell, n_models, n_tasks, obs_prob) for seed in seeds for P in pools
    )
    rows = [r for part in parts for r in part]
    runs = pd.DataFrame(rows)
    summary = runs.groupby(["pool", "share_paired", "method"], as_index=False).agg(
        r2_mean=("r2", "mean"),
        r2_sd=("r2", "std"),
        mae_mean=("mae", "mean"),
        mae_sd=("mae", "std"),
        unconnected=("unconnected", "mean"),
    )
    return PairingStudy(runs, summary, queries_per_cell, n_models, n_tasks)


@dataclass(frozen=True)
class QueryEfficiencyStudy:
    """Query-efficiency stand-in for Table 1. ``runs``: one row per (seed, m, method) with the MAE
    against the realised full-benchmark score over all cells and the share of cells predicted;
    ``summary``: mean, sd and number of seeds per (m, method); ``ordering_holds``: per m, whether
    the measured means follow SampleScore > DKPS > PKPS >= Ensemble (the paper's ordering); the
    last four fields are the generator's settings."""

    runs: pd.DataFrame
    summary: pd.DataFrame
    ordering_holds: dict
    n_models: int = 60
    n_families: int = 15
    n_tasks: int = 8
    pool: int = 32

    def mae(self, method: str, m: int) -> float:
        """Mean MAE over seeds of ``method`` at ``m`` queries per cell."""
        row = self.summary[(self.summary.method == method) & (self.summary.m == m)]
        if row.empty:
            raise ValueError(f"no result for method {method!r} at m = {m}")
        return float(row.mae_mean.iloc[0])

    def best_method(self, m: int) -> str:
        """The method with the lowest mean MAE at ``m``."""
        s = self.summary[self.summary.m == m]
        if s.empty:
            raise ValueError(f"no result at m = {m}")
        return str(s.loc[s.mae_mean.idxmin(), "method"])

    def quantities(self) -> dict[str, float | int | str]:
        """The study's numbers by name: the generator's ``n_models``, ``n_families``, ``n_tasks``, ``pool``;
        ``n_seeds``; ``mae1_<method>`` (mean MAE at m = 1) and ``mae_hi_<method>`` at the largest m,
        ``m_hi``; ``holds_at`` and ``fails_at`` (the m at which the paper's ordering holds, fails: "none" when
        there is none) and ``ens_best_at`` (the m at which the Ensemble has the lowest error)."""
        ms = sorted(int(m) for m in self.summary.m.unique())
        methods = [m for m in METHODS if m in set(self.summary.method)]

        def listing(values: list) -> str:
            return ", ".join(str(v) for v in values) or "none"

        out: dict[str, float | int | str] = {
            "n_models": self.n_models, "n_families": self.n_families, "n_tasks": self.n_tasks, "pool": self.pool,
            "n_seeds": int(self.runs.seed.nunique()), "m_hi": ms[-1],
        }  # fmt: skip
        out |= {f"mae1_{meth}": self.mae(meth, 1) for meth in methods if 1 in ms}
        out |= {f"mae_hi_{meth}": self.mae(meth, ms[-1]) for meth in methods}
        out["holds_at"] = listing([m for m, ok in self.ordering_holds.items() if ok])
        out["fails_at"] = listing([m for m, ok in self.ordering_holds.items() if not ok])
        out["ens_best_at"] = listing([m for m in ms if self.best_method(m) == "Ensemble"])
        return out

    def table(self) -> pd.DataFrame:
        """Methods x m table of 'mean ± sd' strings (sd over seeds), in the order of METHODS."""
        s = self.summary.assign(
            cell=[
                f"{a:.3f} ± {b:.3f}" if np.isfinite(b) else f"{a:.3f}"
                for a, b in zip(self.summary.mae_mean, self.summary.mae_sd)
            ]
        )
        t = s.pivot(index="method", columns="m", values="cell")
        t = t.loc[[m for m in METHODS if m in t.index]]
        t.columns = [f"m = {m}" for m in t.columns]
        return t


def _qe_one(seed: int, m: int, n_models: int, n_families: int, n_tasks: int, pool: int, methods) -> list[dict]:
    bd = generate_benchmark_data(
        n_models=n_models,
        n_families=n_families,
        n_tasks=n_tasks,
        n_queries_per_task=pool,
        obs_prob=1.0,
        queries_per_cell=m,
        binary_scores=True,
        random_state=seed,
        generative_model="factor",
    )
    data = bd.data
    ref = bd.params["reference"]
    cells = pd.DataFrame(
        {"model_id": np.repeat(bd.params["model_ids"], n_tasks), "task_id": np.tile(bd.params["task_ids"], n_models)}
    )
    mi = np.repeat(np.arange(n_models), n_tasks)
    ti = np.tile(np.arange(n_tasks), n_models)
    y = ref[mi, ti]
    makers = {
        "SampleScore": lambda: (SampleScore(), {}),
        "IRT": lambda: (IRT(), {}),
        "DKPS": lambda: (DKPS(), dict(holdout="family")),
        "PKPS": lambda: (PKPS(), dict(holdout="family")),
        "LRMC": lambda: (LRMC(), dict(holdout="family")),
        "Ensemble": lambda: (Ensemble([PKPS(), SampleScore()], mode="cv", holdout="family"), {}),
    }
    out = []
    for name in methods:
        est, kw = makers[name]()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            est.fit(data)
            p = est.predict(cells, as_frame=True, **kw).score_hat.to_numpy()
        ok = np.isfinite(p)
        out.append(
            dict(
                seed=seed,
                m=m,
                method=name,
                mae=float(np.mean(np.abs(p[ok] - y[ok]))) if ok.any() else np.nan,
                coverage=float(ok.mean()),
            )
        )
    return out


@_single_threaded
def query_efficiency_study(
    ms: Sequence[int] = (1, 2, 4, 8),
    seeds: Sequence[int] = range(5),
    n_models: int = 60,
    n_families: int = 15,
    n_tasks: int = 8,
    pool: int = 32,
    methods: Sequence[str] = METHODS,
    n_jobs: int | None = None,
) -> QueryEfficiencyStudy:
    """Run the synthetic stand-in for the PKPS paper's Table 1 protocol: every cell observed with ``m``
    sampled queries, binary per-response scores, the target is the realised mean over the full pool of
    ``pool`` queries; PKPS/DKPS/LRMC predict leave-one-family-out, the Ensemble blends PKPS and
    SampleScore with family-nested weights, SampleScore and IRT read each cell's own m responses.

    ``n_jobs``: joblib jobs for the (seed, m) runs (any joblib backend, Dask's included); every run is
    seeded on its own and the rows keep their order, so the result does not depend on it."""
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise ValueError(f"unknown methods {bad}; choose from {METHODS}")
    runs_rows = Parallel(n_jobs=n_jobs)(
        delayed(_qe_one)(int(seed), int(m), n_models, n_families, n_tasks, pool, methods) for seed in seeds for m in ms
    )
    runs = pd.DataFrame([r for rows in runs_rows for r in rows])
    summary = runs.groupby(["m", "method"], as_index=False, sort=False).agg(
        mae_mean=("mae", "mean"), mae_sd=("mae", "std"), n_seeds=("mae", "size"), coverage=("coverage", "mean")
    )
    holds = {}
    if {"SampleScore", "DKPS", "PKPS", "Ensemble"} <= set(methods):
        for m in ms:
            s = summary[summary.m == m].set_index("method").mae_mean
            holds[int(m)] = bool(s["SampleScore"] > s["DKPS"] > s["PKPS"] >= s["Ensemble"])
    return QueryEfficiencyStudy(runs, summary, holds, n_models, n_families, n_tasks, pool)
