"""The offloading study on a paired suite: decisions per seed and pool, the gate sweep, the curves
and the quality-router metrics, as tidy frames.

One seed draws one disjoint split (anchors / eval / calA / calB, stratified by task), picks the
flagship from the anchors' scores (or takes it by name), and records every policy's and every
ladder estimator's (substitute, confidence, realized deviation, scores) on the eval and the
calibration queries. The policies calibrate their gate on ``calA ∪ calB``, the ladder's
estimators on ``calB`` (``calA`` is pd-cal's sample). The tolerance ε is set on the scale of the
calibration split: a quantile of the deviation of a uniformly random pool candidate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..threads import single_blas_thread
from .curves import FRACS, policy_curve
from .gate import gate_grid, required_calibration_size
from .offload import (
    CONSTANT_POLICIES,
    PairedSuite,
    argmin_pool,
    decide,
    flagship_deviations,
    ladder_matrices,
    paired_suite,
    policy_matrices,
    pool_mask,
    resolve_flagship,
    split_queries,
)
from .quality_metrics import aiq, quality_router_metrics, strong_share_curve
from .sizes import POOL_CAPS, parse_sizes

__all__ = [
    "Decisions",
    "paired_suite",
    "collect_decisions",
    "gate_sweep",
    "gate_summary",
    "volume_contrast",
    "pair_overlap",
    "retention_frontier",
    "curve_table",
    "quality_table",
]


@dataclass(frozen=True)
class Decisions:
    """Every (seed, pool, method, split, query) decision, and the flagship of each seed."""

    frame: pd.DataFrame
    flagships: dict
    splits: dict
    eps: pd.DataFrame


@single_blas_thread
def collect_decisions(
    suite: PairedSuite,
    seeds: Sequence[int],
    pools: dict[str, float | None] | None = None,
    *,
    flagship: str | None = None,
    n_eval: int = 200,
    n_cal_a: int = 100,
    n_cal_b: int = 100,
    sigma_fraction: float = 0.25,
    eps_quantiles: Sequence[float] = (0.10, 0.25, 0.50),
) -> Decisions:
    """Decisions of every policy and estimator, per seed and pool, on the eval and calibration queries.

    Columns: ``seed, pool, family ('policy' | 'ladder'), method, split ('eval' | 'cal'), query,
    pick, conf, dev, s_sub, s_flag, rand_dev`` (``rand_dev``: the mean deviation over the pool,
    a random candidate's expected deviation). ``eps`` holds ε per (seed, pool) at the
    ``eps_quantiles`` of a random pool candidate's deviation over every (calibration query,
    candidate) pair of ``calA ∪ calB``, so ε is set without the eval queries.
    """
    pools = POOL_CAPS if pools is None else pools
    rows = []
    eps_rows = []
    flags, splits = {}, {}
    for seed in seeds:
        split = split_queries(suite.tasks, seed, n_eval, n_cal_a, n_cal_b)
        f = resolve_flagship(suite, flagship, split.anchors)
        flags[seed] = suite.models[f]
        splits[seed] = split
        flag_dev = flagship_deviations(suite, f)  # (n, m): every deviation from the flagship
        per_family = {
            "policy": {"eval": split.eval, "cal": split.cal},
            "ladder": {"eval": split.eval, "cal": split.cal_b},
        }
        mats = {}
        for fam, by in per_family.items():
            both = np.concatenate([by["eval"], by["cal"]])
            fn = policy_matrices if fam == "policy" else ladder_matrices
            M = fn(suite, split, f, both, sigma_fraction=sigma_fraction, flag_dev=flag_dev)
            ne = by["eval"].size
            for sp, sl in (("eval", slice(0, ne)), ("cal", slice(ne, None))):
                mats[(fam, sp)] = {k: (v if v.shape[0] == 1 else v[sl]) for k, v in M.items()}
        names = np.asarray(suite.models, dtype=object)
        for pool_name, cap in pools.items():
            pool = pool_mask(suite, cap, f)
            members = np.flatnonzero(pool)
            for family, queries_by_split in per_family.items():
                for split_name, queries in queries_by_split.items():
                    C = mats[(family, split_name)]
                    if family == "policy":
                        dec = decide(C, pool, queries.size, seed=seed)
                    else:
                        dec = {name: argmin_pool(M, pool) for name, M in C.items()}
                        dec["oracle"] = (dec["qa-fact"][0], np.full(queries.size, np.nan))
                    dev_all = flag_dev[np.ix_(members, queries)]  # (pool, Q)
                    rand_dev = dev_all.mean(axis=0)
                    if family == "policy" and split_name == "cal":
                        eps_rows += [
                            {"seed": seed, "pool": pool_name, "q": q, "eps": float(np.quantile(dev_all, q))}
                            for q in eps_quantiles
                        ]
                    for method, (pick, conf) in dec.items():
                        dev = flag_dev[pick, queries]
                        if method == "oracle":
                            conf = dev.copy()
                        sc = suite.scores
                        rows.append(
                            pd.DataFrame(
                                {
                                    "seed": seed,
                                    "pool": pool_name,
                                    "family": family,
                                    "method": method,
                                    "split": split_name,
                                    "query": queries,
                                    "pick": names[pick],
                                    "conf": conf,
                                    "dev": dev,
                                    "s_sub": np.nan if sc is None else sc[pick, queries],
                                    "s_flag": np.nan if sc is None else sc[f, queries],
                                    "rand_dev": rand_dev,
                                }
                            )
                        )
    return Decisions(
        frame=pd.concat(rows, ignore_index=True), flagships=flags, splits=splits, eps=pd.DataFrame(eps_rows)
    )


def gate_sweep(
    decisions: Decisions,
    alphas: Sequence[float] = (0.05, 0.10, 0.20),
    rules: Sequence[str] = ("emp", "ucb"),
    *,
    delta: float = 0.10,
    min_prefix: int = 20,
) -> pd.DataFrame:
    """Gate reports for every (seed, pool, method, ε, α, rule), calibrated on each family's split.

    A (rule, α) that needs more calibration queries than the split has
    (:func:`dkps.routing.gate.required_calibration_size`) is reported with ``feasible = False``
    and NaN volume: that gate cannot certify anything.
    """
    fr = decisions.frame
    out = []
    eps_of = {(r.seed, r.pool): [] for r in decisions.eps.itertuples()}
    for r in decisions.eps.itertuples():
        eps_of[(r.seed, r.pool)].append((r.q, r.eps))
    for (seed, pool, family, method), g in fr.groupby(["seed", "pool", "family", "method"], sort=False):
        cal = g[g.split == "cal"]
        ev = g[g.split == "eval"]
        cc, dc = cal["conf"].to_numpy(), cal["dev"].to_numpy()
        ce, de = ev["conf"].to_numpy(), ev["dev"].to_numpy()
        ss, sf = ev["s_sub"].to_numpy(), ev["s_flag"].to_numpy()
        scores = np.isfinite(ss).all() and np.isfinite(sf).all()
        qs = [q for q, _ in eps_of[(seed, pool)]]
        eps = np.array([e for _, e in eps_of[(seed, pool)]])
        base = {"seed": seed, "pool": pool, "family": family, "method": method, "n_cal": cc.size}
        for rule in rules:
            ok = [a for a in alphas if cc.size >= required_calibration_size(a, rule, delta, min_prefix)]
            for a in alphas:
                if a in ok:
                    continue
                for q, e in zip(qs, eps):  # too few calibration queries for this rule: it cannot certify
                    out.append(base | {"q": q, "eps": e, "alpha": a, "rule": rule, "feasible": False,
                                       "volume": np.nan, "violation": np.nan, "meets": False, "retention": np.nan,
                                       "spearman": np.nan, "can_select": method not in CONSTANT_POLICIES,
                                       "population_violation": float((de > e).mean())})  # fmt: skip
            if not ok:
                continue
            reps = gate_grid(
                cc, dc, ce, de, eps, np.asarray(ok), (rule,),
                cal_ids=cal["query"].to_numpy(), eval_ids=ev["query"].to_numpy(),
                delta=delta, min_prefix=min_prefix, seed=int(seed),
                score_sub=ss if scores else None, score_flag=sf if scores else None,
            )  # fmt: skip
            q_of = dict(zip(eps.tolist(), qs))
            for rep in reps:
                out.append(
                    base | {
                        "q": q_of[rep.eps], "eps": rep.eps, "alpha": rep.alpha, "rule": rep.rule, "feasible": True,
                        "volume": rep.volume, "violation": rep.violation,
                        "meets": rep.meets, "retention": rep.retention, "spearman": rep.spearman,
                        "can_select": rep.can_select, "population_violation": rep.population_violation,
                    }
                )  # fmt: skip
    return pd.DataFrame(out)


def curve_table(decisions: Decisions, fracs: np.ndarray = FRACS) -> pd.DataFrame:
    """Deviation and retention against the offloaded share, per (seed, pool, method), on eval."""
    fr = decisions.frame
    ev = fr[fr.split == "eval"]
    out = []
    for (seed, pool, family, method), g in ev.groupby(["seed", "pool", "family", "method"], sort=False):
        cur = policy_curve(g["conf"], g["dev"], g["s_sub"], g["s_flag"], fracs=fracs, seed=int(seed))
        for i, fr_ in enumerate(cur.fracs):
            out.append(
                {
                    "seed": seed, "pool": pool, "family": family, "method": method, "frac": fr_,
                    "deviation": cur.deviation[i], "retention": cur.retention[i],
                }
            )  # fmt: skip
    return pd.DataFrame(out)


def quality_table(decisions: Decisions, flagship_cost: float | None = None) -> pd.DataFrame:
    """RouteLLM's APGR and CPT(50%) and RouterBench's AIQ per (seed, pool, method), on eval.

    The cost of a query is the parsed size of the model that serves it (the flagship's given by
    ``flagship_cost``, else parsed from its name); AIQ is NaN where a served model has no size.
    """
    fr = decisions.frame
    ev = fr[fr.split == "eval"]
    sizes = parse_sizes(sorted(set(ev["pick"]) | set(decisions.flagships.values())))
    out = []
    for (seed, pool, family, method), g in ev.groupby(["seed", "pool", "family", "method"], sort=False):
        m = quality_router_metrics(g["conf"], g["s_sub"], g["s_flag"], seed=int(seed))
        fcost = sizes[decisions.flagships[seed]] if flagship_cost is None else flagship_cost
        cs = np.array([np.nan if sizes[p] is None else sizes[p] for p in g["pick"]], dtype=float)
        if fcost is None or not np.isfinite(cs).all():
            a = float("nan")
        else:
            # the same prefix sums, on costs: the mean cost of serving each offload prefix
            _, cost = strong_share_curve(g["conf"], cs, np.full(len(g), fcost), seed=int(seed))
            _, qual = strong_share_curve(g["conf"], g["s_sub"], g["s_flag"], seed=int(seed))
            a = aiq(cost, qual)
        out.append(
            {
                "seed": seed, "pool": pool, "family": family, "method": method,
                "q_strong": m.q_strong, "q_weak": m.q_weak, "apgr": m.apgr, "cpt50": m.cpt50, "aiq": a,
            }
        )  # fmt: skip
    return pd.DataFrame(out)


def gate_summary(gates: pd.DataFrame, pool: str) -> pd.DataFrame:
    """Mean and spread over seeds of volume, held-out violation and retention, per method and contract.

    Parameters
    ----------
    gates : DataFrame
        :func:`gate_sweep`'s frame (one row per seed, pool, method, ε, α and rule).
    pool : str
        The pool to summarise.

    Returns
    -------
    DataFrame
        One row per ``(family, method, rule, q, alpha)``: ``eps`` (mean over seeds), ``n_cal``, ``feasible``
        (in every seed), ``volume``, ``violation`` and ``violation_sd`` (over seeds), ``retention``,
        ``can_select``, ``population_violation``, ``spearman`` and ``n_seeds``.

    Raises
    ------
    ValueError
        No row of ``pool`` in ``gates``.
    """
    g = gates[gates.pool == pool]
    if g.empty:
        raise ValueError(f"the gate sweep has no row of pool {pool!r}; it has {sorted(set(gates.pool))}")
    keys = ["family", "method", "rule", "q", "alpha"]
    agg = g.groupby(keys, sort=False).agg(
        eps=("eps", "mean"),
        n_cal=("n_cal", "first"),
        feasible=("feasible", "all"),
        volume=("volume", "mean"),
        violation=("violation", "mean"),
        violation_sd=("violation", "std"),
        retention=("retention", "mean"),
        can_select=("can_select", "all"),
        population_violation=("population_violation", "mean"),
        spearman=("spearman", "mean"),
        n_seeds=("seed", "nunique"),
    )
    return agg.reset_index()


def volume_contrast(
    gates: pd.DataFrame, pool: str, a: str, b: str, *, q: float, alpha: float, rule: str = "emp"
) -> tuple[float, float, np.ndarray]:
    """Seed-paired certified-volume difference ``a - b`` of two ladder estimators at one contract.

    Parameters
    ----------
    gates : DataFrame
        :func:`gate_sweep`'s frame.
    pool : str
    a, b : str
        Ladder estimators (e.g. ``'pd-cal'``, ``'pairdev'``).
    q, alpha : float
        The contract: ε at the ``q`` quantile of a random candidate's deviation, budget α.
    rule : str, default='emp'

    Returns
    -------
    tuple
        Mean over seeds, its standard error (NaN with one seed), and the per-seed differences.

    Raises
    ------
    ValueError
        When ``a`` or ``b`` has no volume at that contract.
    """
    g = gates[
        (gates.pool == pool) & (gates.family == "ladder") & np.isclose(gates.q, q) & np.isclose(gates.alpha, alpha)
    ]
    g = g[g.rule == rule].pivot_table(index="seed", columns="method", values="volume")
    for m in (a, b):
        if m not in g.columns:
            raise ValueError(f"no {rule} volume of {m!r} in pool {pool!r} at q={q}, alpha={alpha}")
    d = (g[a] - g[b]).to_numpy()
    se = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else float("nan")
    return float(d.mean()), se, d


def pair_overlap(suite: PairedSuite, anchors: np.ndarray, flagship: int) -> float:
    """Mean share of the anchors that the flagship and each other model both answered.

    1 on a fully paired suite (every anchor is shared, so a pair regression such as pairdev is never
    starved); below 1 when caches differ.

    Parameters
    ----------
    suite : PairedSuite
    anchors : int array
        Anchor query positions.
    flagship : int
        The flagship's index.

    Returns
    -------
    float
    """
    have = np.isfinite(suite.X[:, np.asarray(anchors)]).all(axis=2)  # (n, m_a)
    both = have & have[flagship][None]
    others = np.delete(np.arange(suite.n_models), flagship)
    return float(both[others].mean()) if anchors.size else float("nan")


def retention_frontier(curves: pd.DataFrame, pool: str, method: str, level: float = 0.99) -> float:
    """The largest offloaded share at which a policy's retention, averaged over seeds, is at least ``level``.

    Parameters
    ----------
    curves : DataFrame
        :func:`curve_table`'s frame.
    pool, method : str
    level : float, default=0.99

    Returns
    -------
    float
        The share (0 when no share keeps the level, which happens only with NaN retention).

    Raises
    ------
    ValueError
        No curve of ``method`` in ``pool``.
    """
    c = curves[(curves.pool == pool) & (curves.method == method)]
    if c.empty:
        raise ValueError(f"no curve of {method!r} in pool {pool!r}")
    mean = c.groupby("frac").retention.mean()
    ok = mean[mean >= level]
    return float(ok.index.max()) if len(ok) else 0.0
