"""The routing chapter's study: mimicry tables, bandwidth curve, simulated unpairing and the findings' facts.

A thin layer over :mod:`dkps.routing` for Part V's chapter on routing to a behavioural stand-in.
:func:`suite_from_records` turns vector records (one row per response, every model answering the
same queries) into a :class:`dkps.routing.evaluation.PairedSuite`; :func:`routing_study` runs the
seeds; :func:`findings` turns the computed numbers into the verdict and evidence of each finding of
the query-aware routing README of the dkps repository (findings 1-5).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from dkps.routing import diagnostics, unpairing
from dkps.routing.evaluation import (
    PairedSuite,
    SeedResult,
    evaluate_seeds,
    mimicry_table,
    per_task_table,
    stratified_split,
)
from dkps.routing.localization_bandwidth import CV_FRACTIONS, FRACTIONS
from dkps.routing.localized_geometry import localized_distances, query_sq_distances, rbf_weights
from dkps.routing.rules import nearest_for_all_targets

__all__ = [
    "RoutingStudy",
    "pool_models",
    "suite_from_records",
    "routing_study",
    "findings",
    "EXCLUDED",
    "MIN_TASK_QUERIES",
]

#: models left out of the routing pool: adversarial entries (a constant answer; an attack on the judge)
EXCLUDED = ("NullModel", "gpt4_gamed")
#: Fewest queries a task needs before its residual correlation (finding 4) is computed.
MIN_TASK_QUERIES = 10


def pool_models(models: pd.DataFrame) -> list[str]:
    """The routing pool: the models with per-response judge scores (``n_scored > 0``), minus :data:`EXCLUDED`,
    in the model table's order."""
    if "n_scored" not in models.columns:
        raise ValueError("the model table needs the column 'n_scored' (per-response judge scores)")
    return [m for m in models.index[models["n_scored"] > 0] if m not in EXCLUDED]


def suite_from_records(records: pd.DataFrame) -> PairedSuite:
    """A paired suite from vector records (``response_embedding``, ``query_embedding``; optional ``score``).

    Only queries answered by every model are kept; the query key is ``query_id``.
    """
    need = [c for c in ("model_id", "task_id", "query_id", "response_embedding", "query_embedding") if c not in records]
    if need:
        raise ValueError(f"routing records need the columns {need}")
    fr = records.reset_index(drop=True)
    cols = ["model_id", "task_id", "query_id"] + (["score"] if "score" in fr.columns else [])
    X = np.stack([np.asarray(v, dtype=np.float64) for v in fr.response_embedding])
    U = np.stack([np.asarray(v, dtype=np.float64) for v in fr.query_embedding])
    return PairedSuite.from_frame(fr[cols].astype({"query_id": str}), X, U)


@dataclass
class RoutingStudy:
    """Everything the chapter reports, computed once."""

    suite: PairedSuite
    results: list
    table: pd.DataFrame
    per_task: pd.DataFrame
    unpairing: pd.DataFrame
    residual: pd.DataFrame
    score_disagreement: pd.DataFrame
    score_routing: pd.DataFrame
    query_dims: pd.DataFrame
    rf_identity: bool
    seconds: dict

    @property
    def seeds(self) -> list:
        return [r.seed for r in self.results]

    def error(self, method: str) -> float:
        return float(self.table.set_index("method").loc[method, "error"])

    def per_seed(self, method: str) -> np.ndarray:
        return np.array([np.nanmean(r.errors[method]) for r in self.results])

    def curve(self) -> pd.DataFrame:
        """Mean error +- SE over seeds at each bandwidth fraction (and the brackets)."""
        t = self.table.set_index("method")
        rows = [dict(fraction=f, error=t.loc[f"qa-{f:g}x", "error"], se=t.loc[f"qa-{f:g}x", "se"]) for f in FRACTIONS]
        return pd.DataFrame(rows)


def _query_dim_errors(suite: PairedSuite, results: list, dims, fractions) -> pd.DataFrame:
    """qa error with the query space PCA-reduced (fitted on anchors) to each dimension, best sigma each."""
    rows = []
    for k in dims:
        per_f = {f: [] for f in fractions}
        for r in results:
            sp = stratified_split(suite.tasks, 0.2, r.seed)
            Ua, Ue = diagnostics.query_pca(suite.U[sp.anchor], suite.U[sp.eval], k)
            from dkps.routing.localization_bandwidth import median_anchor_distance

            med = median_anchor_distance(Ua)
            d2 = query_sq_distances(Ue, Ua)
            E = np.sqrt(suite.P[sp.eval])
            n = E.shape[1]
            for f in fractions:
                p, _ = nearest_for_all_targets(localized_distances(suite.P[sp.anchor], rbf_weights(d2, f * med)))
                per_f[f].append(E[np.arange(len(sp.eval))[:, None], np.arange(n)[None, :], p].mean())
        means = {f: float(np.mean(v)) for f, v in per_f.items()}
        best = min(means, key=means.get)
        rows.append(dict(dim=k if k is not None else suite.U.shape[1], best_fraction=best, error=means[best]))
    return pd.DataFrame(rows)


def routing_study(
    suite: PairedSuite,
    seeds=(0, 1, 2, 3, 4),
    *,
    n_jobs: int | None = None,
    n_pseudo: int = 200,
    query_dims=(2, 8, 40, None),
    min_task_queries: int = MIN_TASK_QUERIES,
) -> RoutingStudy:
    """Run every seed: the mimicry table, per-task table, unpairing, the F4/F5 diagnostics."""
    seconds = {}
    t0 = time.perf_counter()
    results = evaluate_seeds(suite, tuple(seeds), n_jobs=n_jobs, n_pseudo=n_pseudo)
    seconds["mimicry table"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    unp = unpairing.unpairing_study(suite, tuple(seeds))
    seconds["simulated unpairing"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    n_anchor = len(stratified_split(suite.tasks, 0.2, results[0].seed).anchor)
    dims = [k for k in query_dims if k is None or k < min(suite.U.shape[1], n_anchor)]  # a PCA needs more queries
    resid = pd.DataFrame(
        [
            dict(
                dim=k if k is not None else suite.U.shape[1],
                **diagnostics.residual_correlation(suite, n_components=k, min_queries=min_task_queries),
            )
            for k in dims
        ]
    )
    sd, sr = [], []
    for r in results:
        sp = stratified_split(suite.tasks, 0.2, r.seed)
        if suite.scores is not None:
            sd.append(dict(seed=r.seed, **diagnostics.score_disagreement(suite, sp, r.med)))
            sr.append(dict(seed=r.seed, **diagnostics.score_routing(suite, sp, r.med)))
    qd = _query_dim_errors(suite, results, dims, FRACTIONS[:4])
    seconds["diagnostics"] = time.perf_counter() - t0
    # rf-sq, the kernel regression of the squared realised error, is D^2 itself: its picks must equal qa's
    r0 = results[0]
    sp = stratified_split(suite.tasks, 0.2, r0.seed)
    W = rbf_weights(query_sq_distances(suite.U[sp.eval], suite.U[sp.anchor]), 0.25 * r0.med)
    Pa = suite.P[sp.anchor]
    rf_sq = np.einsum("qj,jik->qik", W, Pa)  # the regression written out, not through the router's contraction
    identity = bool(np.array_equal(nearest_for_all_targets(rf_sq)[0], r0.picks["qa-0.25x"]))
    return RoutingStudy(
        suite=suite,
        results=results,
        table=mimicry_table(results),
        per_task=per_task_table(results),
        unpairing=unp,
        residual=resid,
        score_disagreement=pd.DataFrame(sd),
        score_routing=pd.DataFrame(sr),
        query_dims=qd,
        rf_identity=identity,
        seconds=seconds,
    )


def _ci(diff: np.ndarray) -> tuple[float, float, float]:
    """Mean and 95% t-interval across seeds of a per-seed paired difference."""
    m = float(diff.mean())
    if diff.size < 2:
        return m, float("nan"), float("nan")
    h = float(stats.t.ppf(0.975, diff.size - 1) * diff.std(ddof=1) / np.sqrt(diff.size))
    return m, m - h, m + h


def findings(study: RoutingStudy) -> dict:
    """``{id: (holds, evidence)}`` for findings F1-F5, decided from the computed numbers.

    ``out['F4 parts']`` maps each of finding 4's sub-statements to whether it holds.
    """
    out = {}
    t = study.table.set_index("method")
    e = {m: t.loc[m, "error"] for m in t.index}
    se = {m: t.loc[m, "se"] for m in t.index}
    seeds = len(study.results)

    def diff(a, b):
        return np.array([np.nanmean(r.errors[a] - r.errors[b]) for r in study.results])

    # F1
    d_task = _ci(diff("qa-0.25x", "task"))
    d_static = _ci(diff("qa-0.25x", "static"))
    f1 = bool(e["qa-0.25x"] <= e["task"] + se["qa-0.25x"] and d_static[0] < 0)
    out["F1"] = (
        f1,
        f"qa-0.25x {e['qa-0.25x']:.4f} ± {se['qa-0.25x']:.4f}, task {e['task']:.4f}, static {e['static']:.4f} "
        f"({seeds} seeds); qa - task {d_task[0]:+.4f} [95% CI {d_task[1]:+.4f}, {d_task[2]:+.4f}], qa - static "
        f"{d_static[0]:+.4f} [{d_static[1]:+.4f}, {d_static[2]:+.4f}]",
    )
    # F2
    d_sp = _ci(diff("static", "profile"))
    d_qs = _ci(diff("qa-0.25x", "static"))
    share = (e["profile"] - e["static"]) / (e["random"] - e["static"])
    f2 = bool(d_qs[2] < 0 and d_sp[2] < 0 and share > 0.25)
    out["F2"] = (
        f2,
        f"qa-0.25x {e['qa-0.25x']:.4f} < static {e['static']:.4f} < profile {e['profile']:.4f} "
        f"(random {e['random']:.4f}); qa - static 95% CI [{d_qs[1]:+.4f}, {d_qs[2]:+.4f}], static - profile "
        f"[{d_sp[1]:+.4f}, {d_sp[2]:+.4f}]; (profile - static) / (random - static) = {share:.2f} (needs > 0.25)",
    )
    # F3
    u = study.unpairing.set_index(["regime", "method"])
    ratio_fact = float(u.loc[("independent", "qa-fact"), "gain_ratio"])
    rf_ratios = [float(u.loc[(g, "rf"), "gain_ratio"]) for g in unpairing.REGIMES]
    falls = bool(rf_ratios[0] >= rf_ratios[1] >= rf_ratios[2])
    f3 = bool(study.rf_identity and ratio_fact >= 0.7 and falls)
    out["F3"] = (
        f3,
        f"rf-sq picks {'equal' if study.rf_identity else 'differ from'} qa's; independent caches (overlap "
        f"{u.loc[('independent', 'qa-fact'), 'overlap']:.1f} anchors per pair): gain(qa-fact) / gain(qa-paired) = "
        f"{ratio_fact:.2f} (needs >= 0.7); gain(rf) / gain(qa-paired) aligned {rf_ratios[0]:.2f}, independent "
        f"{rf_ratios[1]:.2f}, disjoint {rf_ratios[2]:.2f} ({'falls' if falls else 'does not fall'} with overlap)",
    )
    # F4
    res = study.residual
    corr_ok = bool((res.near.abs() < 0.05).all() and (res.far.abs() < 0.05).all())
    grid = [e[f"qa-{f:g}x"] for f in FRACTIONS[:4]]
    spread = max(grid) - min(grid)
    gap = e["static"] - e["oracle"]
    best_f = FRACTIONS[int(np.argmin(grid))]
    cv_f = np.array([r.sigma_cv_global / r.med for r in study.results])
    steps = np.abs(np.log2(cv_f / best_f))
    cv_ok = bool(np.median(steps) <= 1 + 1e-9)
    lowd = study.query_dims.sort_values("dim")
    full = float(lowd.error.iloc[-1])
    lowd_wins = bool((lowd.error.iloc[:-1] < full - 1e-12).any()) if len(lowd) > 1 else False
    parts = {
        "the residual-correlation threshold": corr_ok,
        "the flat bandwidth optimum": bool(spread <= 0.10 * gap),
        "CV landing near the best fixed bandwidth": cv_ok,
        "no low-dimensional query space winning": not lowd_wins,
    }
    out["F4 parts"] = parts
    f4 = bool(all(parts.values()))
    corr_txt = ", ".join(f"d={int(r.dim)}: near {r.near:+.3f} far {r.far:+.3f}" for r in res.itertuples())
    dims_txt = ", ".join(f"d={int(r.dim)}: {r.error:.4f}" for r in lowd.itertuples())
    out["F4"] = (
        f4,
        f"residual correlation {corr_txt} (needs |.| < 0.05); qa spread over f in 0.125..1 = {spread:.4f} vs 10% of "
        f"static - oracle = {0.1 * gap:.4f}; best fixed f = {best_f:g}, cv-global median f = {np.median(cv_f):g} "
        f"({np.median(steps):.1f} grid steps away); query PCA, best sigma each: {dims_txt}",
    )
    # F5
    if len(study.score_disagreement):
        sd = study.score_disagreement.mean(numeric_only=True)
        f5 = bool(sd["rfS-0.25x"] < sd["shat-0.25x"] and sd["rfS-task"] < sd["shat-task"])
        out["F5"] = (
            f5,
            f"mean |s_pick - s_target| over decisions ({seeds} seeds): rfS-0.25x {sd['rfS-0.25x']:.4f} vs shat-0.25x "
            f"{sd['shat-0.25x']:.4f}; rfS-task {sd['rfS-task']:.4f} vs shat-task {sd['shat-task']:.4f}; qa-0.25x "
            f"{sd['qa-0.25x']:.4f}, random {sd['random']:.4f}, oracle {sd['oracle']:.4f}",
        )
    return out


def cv_fraction_summary(results: list[SeedResult]) -> pd.Series:
    """How often each CV-grid fraction was chosen by cv-global across seeds."""
    f = pd.Series([round(r.sigma_cv_global / r.med, 4) for r in results])
    return f.value_counts().reindex([round(x, 4) for x in CV_FRACTIONS]).fillna(0).astype(int)
