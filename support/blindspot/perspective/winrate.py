"""Predicting a model's AlpacaEval 2 win rate from m of its responses per task (book Part V, real data).

The protocol of the PKPS paper's Table 1, moved from HELM to AlpacaEval:

1. every model answered the same pool of P queries per task (:func:`blindspot.perspective.alpaca.select_pool`);
   :func:`sample_pool` keeps m of them per task — the *same* m for every model (``paired=True``,
   random per seed) or an independent m per (model, task) (``paired=False``, the unpaired case);
2. :func:`target_records` attaches the model-level target :math:`y_i` (the leaderboard win rate or
   LC win rate / 100) as the ``reference_score`` of each of the model's cells;
3. each estimator predicts every (model, task) cell leaving the model (``holdout='model'``) or its
   family (``holdout='family'``) out, and the model's prediction is the task-weighted mean
   :math:`\\hat y_i = \\sum_t w_t \\hat s(i,t) / \\sum_{t:\\,\\hat s\\ \\mathrm{defined}} w_t` with
   :math:`w_t = n_t/\\sum_u n_u`, the share of the suite's queries in task t (so SampleScore is the
   stratified estimate of the per-query mean the leaderboard reports);
4. MAE against :math:`y_i`, in win-rate points (0–100), over models and seeds.

Holding a model out must hide *all* its targets, since its target is one number repeated on every
task. PKPS and DKPS (``whiten=False``) never read the held-out model's targets (the dkps
leakage contract for ``holdout``, see the dkps README).
LRMC reads the model's own targets on other tasks under ``holdout='model'`` (the completion
protocol), which here would be the answer itself; LRMC therefore runs with ``holdout='family'`` and
the family of each model set to the model itself (or to its real family) — with its whole row
hidden, Soft-Impute returns the per-task mean of the other models' targets whatever its λ (a row
with no observed entry stays zero through every soft-thresholded SVD), so λ is not re-selected per
held-out group (``selection='fit'``, exact): LRMC is the know-nothing baseline of this protocol.

The Ensemble is ``Ensemble([PKPS(), SampleScore()], holdout='family', family_fn=g)`` (its members
the PKPS and SampleScore fits of the same records, shared through ``prefit=True``; its fit time
counts theirs) where
:func:`ensemble_groups` maps each model to its held-out group (the model, or its family) and merges
the groups that contain no model with per-response scores into one. For every model whose group
has scores this is exactly the Ensemble with the plain groups, at a fraction of the nested refits:
its group is masked the same way, and its weight is learned on the same out-of-fold cells — those
of other groups' models with a sample score, whose groups and exclusion sets the merge leaves
unchanged (cells without a sample score never enter a weight). The Ensemble is reported for the
models with per-response scores only; on the others it would be its PKPS member, not a blend.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from blindspot.perspective.run_cost import peak_memory_mb
from blindspot.perspective.synthetic_studies import _single_threaded
from dkps.ensemble import Ensemble
from dkps.lrmc import LRMC
from dkps.pkps import DKPS, PKPS
from dkps.records import validate
from dkps.sample_score import SampleScore

__all__ = [
    "METHODS",
    "HOLDOUTS",
    "TARGETS",
    "NO_SCORES_GROUP",
    "sample_pool",
    "target_records",
    "ensemble_groups",
    "aggregate_models",
    "predict_models",
    "WinRateStudy",
    "winrate_study",
]

METHODS = ("SampleScore", "DKPS", "PKPS", "LRMC", "Ensemble")
HOLDOUTS = ("model", "family")
TARGETS = {"win_rate": "AlpacaEval 2 win rate", "lc_win_rate": "length-controlled win rate"}
NO_SCORES_GROUP = "<groups without per-response scores>"


# ------------------------------------------------------------------------------------ sampling
def sample_pool(records: pd.DataFrame, m: int, seed: int, paired: bool = True) -> pd.DataFrame:
    """Keep m queries per (model, task) of the pool in ``records``.

    ``paired=True``: per task, the m queries with the smallest uniform keys drawn once per
    (task, query) — every model keeps the same m. ``paired=False``: keys drawn per row, so each
    (model, task) keeps its own m. Keys come from ``np.random.default_rng(seed)`` in a fixed order,
    so for one seed the samples are nested in m. A cell with fewer than m rows keeps all of them.
    """
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or m < 1:
        raise ValueError(f"m must be an int >= 1, got {m!r}")
    need = [c for c in ("model_id", "task_id", "query_id") if c not in records.columns]
    if need:
        raise ValueError(f"records need the columns {need}")
    rng = np.random.default_rng(seed)
    df = records.reset_index(drop=True)
    if paired:
        keys = df[["task_id", "query_id"]].drop_duplicates().sort_values(["task_id", "query_id"], kind="stable")
        keys = keys.assign(_u=rng.random(len(keys)))
        keys["_r"] = keys.groupby("task_id")["_u"].rank(method="first")
        keep = keys[keys._r <= m][["task_id", "query_id"]]
        out = df.merge(keep, on=["task_id", "query_id"], how="inner", sort=False)
    else:
        order = df.sort_values(["model_id", "task_id", "query_id"], kind="stable").index
        u = np.empty(len(df))
        u[order] = rng.random(len(df))
        r = pd.Series(u).groupby([df.model_id, df.task_id]).rank(method="first").to_numpy()
        out = df[r <= m]
    return out.sort_values(["model_id", "task_id", "query_id"], kind="stable").reset_index(drop=True)


def check_target_and_models(records: pd.DataFrame, models: pd.DataFrame, target: str) -> np.ndarray:
    """The records' model ids, after checking the target name and that every model is in ``models``."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {sorted(TARGETS)}, got {target!r}")
    ids = pd.unique(records.model_id)
    missing = [m for m in ids if m not in models.index]
    if missing:
        raise ValueError(f"models {missing[:5]} are not in the model table")
    return ids


def target_records(records: pd.DataFrame, models: pd.DataFrame, target: str) -> pd.DataFrame:
    """Records with ``reference_score`` = the model's ``target`` / 100 on each of its rows.

    Raises ValueError for an unknown target, a model missing from ``models`` or without a finite target.
    """
    ids = check_target_and_models(records, models, target)
    y = models.loc[ids, target].astype(float)
    bad = y.index[~np.isfinite(y.to_numpy())].tolist()
    if bad:
        raise ValueError(f"models {bad[:5]} have no {target}; keep them out of the regression")
    out = records.copy()
    out["reference_score"] = (y / 100.0).reindex(out.model_id).to_numpy()
    return out


def ensemble_groups(families: Mapping[str, str], scored: set, holdout: str) -> dict:
    """model -> Ensemble group: the model (``holdout='model'``) or its family, with every group
    that has no model in ``scored`` merged into :data:`NO_SCORES_GROUP` (see the module docstring)."""
    if holdout not in HOLDOUTS:
        raise ValueError(f"holdout must be one of {HOLDOUTS}, got {holdout!r}")
    base = {m: (m if holdout == "model" else f) for m, f in families.items()}
    keep = {base[m] for m in families if m in scored}
    return {m: (g if g in keep else NO_SCORES_GROUP) for m, g in base.items()}


def aggregate_models(pred: pd.DataFrame, weights: pd.Series) -> pd.Series:
    r"""Model-level prediction :math:`\sum_t w_t\hat s(i,t)/\sum_{t:\hat s\ \mathrm{defined}} w_t`
    from a cell frame (``model_id, task_id, score_hat``); NaN where no cell is defined."""
    w = weights.reindex(pred.task_id).to_numpy(dtype=float)
    if np.isnan(w).any():
        raise ValueError("pred names tasks without a weight")
    s = pred.score_hat.to_numpy(dtype=float)
    ok = np.isfinite(s)
    num = pd.Series(np.where(ok, w * s, 0.0)).groupby(pred.model_id.to_numpy(), sort=False).sum()
    den = pd.Series(np.where(ok, w, 0.0)).groupby(pred.model_id.to_numpy(), sort=False).sum()
    return (num / den.where(den > 0)).rename("y_hat")


# ------------------------------------------------------------------------------------ one run
def _cells(records: pd.DataFrame) -> pd.DataFrame:
    models = sorted(pd.unique(records.model_id))
    tasks = sorted(pd.unique(records.task_id))
    return pd.DataFrame({"model_id": np.repeat(models, len(tasks)), "task_id": np.tile(tasks, len(models))})


def _quiet(fn: Callable):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn()


def predict_models(
    records: pd.DataFrame,
    weights: pd.Series,
    methods: Sequence[str] = METHODS,
    holdouts: Sequence[str] = HOLDOUTS,
    families: Mapping[str, str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    """Model-level predictions of every method under every holdout, on one set of records.

    ``records`` carry vectors, ``score`` (NaN where unscored), ``reference_score`` and ``family``.

    Returns
    -------
    preds : DataFrame ``method, holdout, model_id, y_hat`` (0–1 scale)
    timings : DataFrame ``method, holdout, fit_s, predict_s`` (a fit shared by both holdouts is
        counted on each of its rows)
    info : dict with ``dkps_unconnected`` (share of model pairs DKPS had to complete by shortest paths)
    """
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise ValueError(f"unknown methods {bad}; choose from {METHODS}")
    bad = [h for h in holdouts if h not in HOLDOUTS]
    if bad:
        raise ValueError(f"unknown holdouts {bad}; choose from {HOLDOUTS}")
    cells = _cells(records)
    fam = families or dict(zip(records.model_id, records.family))
    scored = set(records.model_id[np.isfinite(records.score.to_numpy(dtype=float))])
    out, times, info = [], [], {}
    validated = []  # the records validated once, for the estimators that take them so (SampleScore, LRMC)

    def checked():  # inside the first such fit's timing
        if not validated:
            validated.append(validate(records))
        return validated[0]

    def add(method, holdout, frame, fit_s, pred_s):
        y = aggregate_models(frame, weights)
        out.append(pd.DataFrame({"method": method, "holdout": holdout, "model_id": y.index, "y_hat": y.to_numpy()}))
        times.append(dict(method=method, holdout=holdout, fit_s=fit_s, predict_s=pred_s))

    fitted = {}  # method -> (estimator, fit seconds): the Ensemble's members, fitted once

    def member(name):
        if name not in fitted:
            t0 = time.perf_counter()
            est = SampleScore().fit(checked()) if name == "SampleScore" else _quiet(lambda: PKPS().fit(records))
            fitted[name] = (est, time.perf_counter() - t0)
        return fitted[name]

    for name in methods:
        if name == "SampleScore":
            t0 = time.perf_counter()
            est, _ = member("SampleScore")
            t1 = time.perf_counter()
            p = est.predict(cells, as_frame=True)
            t2 = time.perf_counter()
            for h in holdouts:  # SampleScore reads only the cell's own responses: no holdout
                add(name, h, p, t1 - t0, t2 - t1)
        elif name in ("DKPS", "PKPS"):
            t0 = time.perf_counter()
            est = _quiet(lambda: DKPS().fit(records)) if name == "DKPS" else member("PKPS")[0]
            fit_s = time.perf_counter() - t0
            if name == "DKPS":
                n = len(est.model_names_)
                info["dkps_unconnected"] = est.n_unconnected_ / (n * (n - 1) / 2)
            for h in holdouts:
                t1 = time.perf_counter()
                p = _quiet(lambda: est.predict(cells, holdout=h, as_frame=True))
                add(name, h, p, fit_s, time.perf_counter() - t1)
        elif name == "LRMC":
            t0 = time.perf_counter()
            est = LRMC().fit(checked())
            fit_s = time.perf_counter() - t0
            for h in holdouts:
                f = (lambda m: m) if h == "model" else (lambda m: fam[m])
                t1 = time.perf_counter()
                # selection='fit' is exact here: with the held-out row fully hidden, Soft-Impute's
                # completion of that row is the per-task mean of the other rows for every lambda
                p = _quiet(lambda: est.predict(cells, holdout="family", family_fn=f, selection="fit", as_frame=True))
                add(name, h, p, fit_s, time.perf_counter() - t1)
        elif name == "Ensemble":
            for h in holdouts:
                groups = ensemble_groups(fam, scored, h)
                (pk, pk_s), (ss, ss_s) = member("PKPS"), member("SampleScore")
                t0 = time.perf_counter()
                ens = _quiet(
                    lambda: Ensemble(
                        [pk, ss], mode="cv", holdout="family", family_fn=groups.__getitem__, prefit=True
                    ).fit(checked())
                )
                fit_s = pk_s + ss_s + time.perf_counter() - t0  # as if it fitted its own members
                t1 = time.perf_counter()
                p = _quiet(lambda: ens.predict(cells, as_frame=True))
                pred_s = time.perf_counter() - t1
                mine = p.model_id.isin(scored).to_numpy()
                p = p.assign(score_hat=np.where(mine, p.score_hat, np.nan))
                add(name, h, p, fit_s, pred_s)
    return pd.concat(out, ignore_index=True), pd.DataFrame(times), info


# ------------------------------------------------------------------------------------ study
@dataclass(frozen=True)
class WinRateStudy:
    """Result of :func:`winrate_study`.

    ``runs``: one row per (seed, m, target, holdout, method, model) with ``y`` and ``y_hat``
    (0–1) and ``scored`` (the model has per-response scores). ``summary``: per (target, holdout,
    eval_set, method, m) — ``mae`` (points, mean over models of the seed-averaged absolute error),
    ``se`` (its standard error over models), ``sd_seeds`` (sd of the per-seed MAE), ``n_models``,
    ``n_seeds``, ``coverage`` (share of the set's models with a prediction). ``eval_set`` is
    ``'scored'`` (models with per-response scores: every method is defined) or ``'all'``.
    ``timings``: fit and predict seconds per (method, holdout) at ``m = time_at`` (first seed,
    first target).
    ``connectivity``: per (seed, m) the share of model pairs DKPS completed by shortest paths.
    ``peak_mb``: the largest peak resident set (MiB) of the processes that ran the (seed, m) runs.
    """

    runs: pd.DataFrame
    summary: pd.DataFrame
    timings: pd.DataFrame
    connectivity: pd.DataFrame
    paired: bool
    pool: int
    peak_mb: float = float("nan")

    def _row(self, method, m, target, holdout, eval_set):
        s = self.summary
        r = s[
            (s.method == method) & (s.m == m) & (s.target == target) & (s.holdout == holdout) & (s.eval_set == eval_set)
        ]
        if r.empty:
            raise ValueError(f"no result for {method} at m = {m} ({target}, holdout {holdout}, {eval_set} models)")
        return r.iloc[0]

    def mae(
        self, method: str, m: int, target: str = "win_rate", holdout: str = "family", eval_set: str = "scored"
    ) -> float:
        """Mean absolute error in win-rate points."""
        return float(self._row(method, m, target, holdout, eval_set).mae)

    def se(
        self, method: str, m: int, target: str = "win_rate", holdout: str = "family", eval_set: str = "scored"
    ) -> float:
        return float(self._row(method, m, target, holdout, eval_set).se)

    def difference(
        self, a: str, b: str, m: int, target: str = "win_rate", holdout: str = "family", eval_set: str = "scored"
    ) -> tuple[float, float]:
        """Paired MAE difference ``a - b`` (points) over the models both predict, and its standard error."""
        e = self.model_errors(m, target, holdout, eval_set)
        d = (e[a] - e[b]).dropna()
        if len(d) < 2:
            raise ValueError(f"fewer than 2 models with both {a} and {b}")
        return float(d.mean()), float(d.std(ddof=1) / np.sqrt(len(d)))

    def model_errors(
        self, m: int, target: str = "win_rate", holdout: str = "family", eval_set: str = "scored"
    ) -> pd.DataFrame:
        """Seed-averaged absolute error (points) per model (rows) and method (columns)."""
        r = self.runs
        r = r[(r.m == m) & (r.target == target) & (r.holdout == holdout)]
        if eval_set == "scored":
            r = r[r.scored]
        err = (100 * (r.y_hat - r.y)).abs()
        return r.assign(err=err).groupby(["model_id", "method"]).err.mean().unstack("method")

    def table(
        self, target: str = "win_rate", holdout: str = "family", eval_set: str = "scored", full_coverage: bool = True
    ) -> pd.DataFrame:
        """Methods x m table of 'MAE ± se' (win-rate points; se over models)."""
        s = self.summary
        s = s[(s.target == target) & (s.holdout == holdout) & (s.eval_set == eval_set)]
        if full_coverage:
            s = s[s.coverage >= 1.0]
        cell = [f"{a:.1f} ± {b:.1f}" for a, b in zip(s.mae, s.se)]
        t = s.assign(cell=cell).pivot(index="method", columns="m", values="cell")
        t = t.loc[[m for m in METHODS if m in t.index]]
        t.columns = [f"m = {m}" for m in t.columns]
        return t


def _summarise(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    r = runs.assign(err=(100 * (runs.y_hat - runs.y)).abs())
    for eval_set in ("scored", "all"):
        d = r[r.scored] if eval_set == "scored" else r
        if d.empty:
            continue
        for key, g in d.groupby(["target", "holdout", "method", "m"], sort=False):
            per_model = g.groupby("model_id").err.mean()
            n_all = per_model.size
            e = per_model.dropna()
            per_seed = g.groupby("seed").err.mean()
            rows.append(
                dict(
                    zip(["target", "holdout", "method", "m"], key),
                    eval_set=eval_set,
                    mae=float(e.mean()) if len(e) else np.nan,
                    se=float(e.std(ddof=1) / np.sqrt(len(e))) if len(e) > 1 else np.nan,
                    sd_seeds=float(per_seed.std(ddof=1)) if len(per_seed) > 1 else 0.0,
                    n_models=int(len(e)),
                    n_seeds=int(g.seed.nunique()),
                    coverage=float(len(e) / n_all) if n_all else np.nan,
                )
            )
    return pd.DataFrame(rows)


@_single_threaded
def _job(seed: int, m: int, records, models, weights, targets, holdouts, methods, paired, families):
    """One (seed, m) of the study: every target, holdout and method on one sample."""
    sample = sample_pool(records, m, seed, paired=paired)
    scored = set(sample.model_id[np.isfinite(sample.score.to_numpy(dtype=float))])
    out, first_times, first_info = [], None, {}
    for target in targets:
        recs = target_records(sample, models, target)
        preds, times, info = predict_models(recs, weights, methods, holdouts, families)
        preds = preds.assign(seed=seed, m=m, target=target)
        preds["y"] = (models[target].astype(float) / 100.0).reindex(preds.model_id).to_numpy()
        preds["scored"] = preds.model_id.isin(scored).to_numpy()
        out.append(preds)
        if first_times is None:
            first_times, first_info = times, info
    return out, first_times, first_info, peak_memory_mb()


def _job_at(i: int, seed: int, m: int, **args):
    """:func:`_job` tagged with its place ``i`` in the study's list of runs (they finish in any order)."""
    return i, _job(seed, m, **args)


@_single_threaded
def winrate_study(
    records: pd.DataFrame,
    models: pd.DataFrame,
    weights: pd.Series,
    ms: Sequence[int] = (1, 2, 4, 8),
    seeds: Sequence[int] = range(3),
    targets: Sequence[str] = tuple(TARGETS),
    holdouts: Sequence[str] = HOLDOUTS,
    methods: Sequence[str] = METHODS,
    paired: bool = True,
    time_at: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    n_jobs: int = 1,
) -> WinRateStudy:
    """The query-efficiency experiment on a pool of embedded responses (see the module docstring).

    Parameters
    ----------
    records : vector records of the pool for the population models (``model_id, task_id, query_id,
        response_embedding, query_embedding, score, family``)
    models : the model table (index model_id; columns ``win_rate``, ``lc_win_rate``, 0–100)
    weights : task weights :math:`w_t` (index task_id)
    ms, seeds : queries per task and seeds; in the paired design a sample of the whole pool is the
        same for every seed, so such an m runs once
    targets, holdouts, methods : what to run
    paired : the same m queries for every model (True) or independent ones (False)
    time_at : the m at which fit/predict times are recorded (default: the largest m)
    progress : optional ``progress(done, total)`` after each (seed, m)
    n_jobs : worker processes for the (seed, m) runs (joblib; 1 = in this process). Every run is
        seeded on its own, so the result does not depend on ``n_jobs``; the recorded times do
        (runs in parallel share the machine).
    """
    bad = [t for t in targets if t not in TARGETS]
    if bad:
        raise ValueError(f"unknown targets {bad}; choose from {sorted(TARGETS)}")
    if len(pd.unique(records.model_id)) < 3:
        raise ValueError("the study needs the responses of at least 3 models")
    pool = int(records.groupby("task_id").query_id.nunique().min())
    ms = [int(m) for m in ms]
    time_at = max(ms) if time_at is None else int(time_at)
    seeds = [int(s) for s in seeds]
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs == 0 or n_jobs < -1:
        raise ValueError(f"n_jobs must be an int >= 1 (or -1 for every core), got {n_jobs!r}")
    fam = dict(zip(records.model_id, records.family))
    jobs = [(s, m) for m in ms for s in (seeds[:1] if paired and m >= pool else seeds)]
    args = dict(
        records=records,
        models=models,
        weights=weights,
        targets=tuple(targets),
        holdouts=tuple(holdouts),
        methods=tuple(methods),
        paired=paired,
        families=fam,
    )
    if n_jobs == 1:
        done = ((i, _job(seed, m, **args)) for i, (seed, m) in enumerate(jobs))
    else:
        # Largest m first (a run's cost grows with m), so that no worker runs a long one alone at the end.
        start = sorted(range(len(jobs)), key=lambda i: (-jobs[i][1], i))
        done = Parallel(n_jobs=n_jobs, return_as="generator_unordered")(
            delayed(_job_at)(i, *jobs[i], **args) for i in start
        )
    by_job = {}
    for k, (i, result) in enumerate(done):
        by_job[i] = result
        if progress is not None:
            progress(k + 1, len(jobs))
    runs, timing_rows, conn, peak = [], [], [], 0.0
    for i, (seed, m) in enumerate(jobs):  # in the order of `jobs` however they ran: the same study as one process
        preds, times, info, mb = by_job.pop(i)
        runs.extend(preds)
        peak = max(peak, mb)
        if m == time_at and seed == seeds[0]:
            timing_rows.append(times.assign(m=m))
        if info:
            conn.append(dict(seed=seed, m=m, **info))
    runs = pd.concat(runs, ignore_index=True)
    cols = ["seed", "m", "target", "holdout", "method", "model_id", "scored", "y", "y_hat"]
    runs = runs[cols]
    timings = pd.concat(timing_rows, ignore_index=True) if timing_rows else pd.DataFrame()
    return WinRateStudy(runs, _summarise(runs), timings, pd.DataFrame(conn), bool(paired), pool, peak)
