"""Offloading under a contract on AlpacaEval: the suite, the study and its summary tables.

Builds the paired suite of the scored AlpacaEval models (the 58 with per-response judge scores
minus the adversarial ``NullModel`` and ``gpt4_gamed``) on a shared instruction pool, embedded
with ``dkps.embed`` through the same cache as the other AlpacaEval chapters, runs
:mod:`dkps.routing.offload_study` over seeds and pools, and condenses its frames into the tables of the
chapter. Without the data, a labelled synthetic stand-in (sized model names, planted behavioural
twins) runs the same code.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from blindspot.data.response_stores import read_response_file
from blindspot.data.tables import ScoreTable
from dkps.routing.diagnostics import query_clusters
from dkps.routing.offload import PairedSuite, paired_suite
from dkps.routing.offload_study import (
    collect_decisions,
    curve_table,
    gate_summary,
    gate_sweep,
    quality_table,
    volume_contrast,
)

from . import alpaca, arena_bench, pool_embedding
from .routing_study import N_CLUSTERS

__all__ = [
    "EXCLUDED",
    "ALPHAS",
    "DELTA",
    "OffloadSuite",
    "scored_models",
    "load_offload_suite",
    "offload_rows",
    "arena_offload_rows",
    "load_arena_offload_suite",
    "ARENA_POOLS",
    "MIN_GRADED_SHARE",
    "synthetic_offload_suite",
    "split_sizes",
    "run_study",
    "gate_table",
    "gate_pivot",
    "curve_points",
    "ladder_contrast",
    "gate_cell",
    "record_original_values",
    "study_quantities",
    "hypothesis_table",
    "hypothesis_quantities",
]

#: Scored models kept out of the pool: the adversarial/synthetic entries of the leaderboard.
EXCLUDED = ("NullModel", "gpt4_gamed")
#: Violation budgets of the tolerance gate (the routing paper's tolerance-gate table).
ALPHAS = (0.05, 0.10, 0.20)
#: Clopper–Pearson level of the ``ucb`` rule: the bound holds with probability ``1 − DELTA``.
DELTA = 0.10
#: Arena-Bench v1's pools: its names give sizes for few open models (three at most 13B), so two pools.
ARENA_POOLS = {"le13b": 13.0, "all": None}
#: An Arena-Bench v1 model enters the offloading suite when the judge graded at least this share of its answers.
MIN_GRADED_SHARE = 0.95


@dataclass(frozen=True)
class OffloadSuite:
    """The paired suite and where it came from (``synthetic`` as for the book's score tables)."""

    suite: PairedSuite
    source: str
    synthetic: bool = False
    notes: tuple = field(default_factory=tuple)
    n_dropped_queries: int = 0
    embedding: object = None

    def score_table(self) -> ScoreTable:
        """Mean anchor-free score per model and task as a score table carrying the provenance
        (what :mod:`blindspot.book.ledger` reads to tell real data from the synthetic stand-in)."""
        s = self.suite
        tasks = sorted(set(s.tasks))
        S = s.scores if s.scores is not None else np.zeros((s.n_models, s.n_queries))
        with np.errstate(invalid="ignore"):
            cols = {t: np.nanmean(S[:, s.tasks == t], axis=1) for t in tasks}
        frame = pd.DataFrame(cols, index=pd.Index(s.models, name="model"))
        return ScoreTable(frame, pd.DataFrame(index=frame.index), "offloading", self.source, self.synthetic, self.notes)

    def describe(self) -> str:
        kind = "SYNTHETIC data" if self.synthetic else "data"
        s = self.suite
        return f"{s.n_models} models x {s.n_queries} queries in {len(set(s.tasks))} tasks ({kind}; {self.source})"


def scored_models(models: pd.DataFrame) -> list[str]:
    """The models with per-response judge scores, minus :data:`EXCLUDED`, sorted."""
    have = models.index[models["n_scored"] > 0]
    return sorted(m for m in have if m not in EXCLUDED)


def synthetic_offload_suite(seed: int = 0, n_queries: int = 400, d: int = 16) -> OffloadSuite:
    """A labelled synthetic stand-in: 12 sized models, a flagship, and a behavioural twin per task.

    The flagship ``flag-70b`` scores best; ``twin-a-7b`` copies it on task ``t0``, ``twin-b-13b``
    on ``t1``, ``twin-c-3b`` on ``t2`` (with noise); the others answer independently. The closed
    ``api-model`` has no size.
    """
    rng = np.random.default_rng(seed)
    names = (
        "api-model", "flag-70b", "m-1b", "m-2b", "m-3b", "m-7b", "m-8b", "m-13b",
        "twin-a-7b", "twin-b-13b", "twin-c-3b", "m-30b",
    )  # fmt: skip
    models = tuple(sorted(names))
    n = len(models)
    tasks = np.array([f"t{j % 4}" for j in range(n_queries)], dtype=object)
    centers = rng.normal(size=(4, 8)) * 2
    U = centers[[int(t[1]) for t in tasks]] + rng.normal(size=(n_queries, 8))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    X = rng.normal(size=(n, n_queries, d))
    f = models.index("flag-70b")
    S = np.clip(rng.normal(0.3, 0.1, (n, n_queries)), 0, 1)
    S[f] = np.clip(rng.normal(0.7, 0.1, n_queries), 0, 1)
    for twin, task in (("twin-a-7b", "t0"), ("twin-b-13b", "t1"), ("twin-c-3b", "t2")):
        i = models.index(twin)
        on = tasks == task
        X[i, on] = X[f, on] + rng.normal(0, 0.4, (on.sum(), d))
        S[i, on] = np.clip(S[f, on] + rng.normal(0, 0.05, on.sum()), 0, 1)
    X /= np.linalg.norm(X, axis=2, keepdims=True)
    suite = PairedSuite(models, X, U, tasks, np.arange(n_queries).astype(str), S)
    return OffloadSuite(suite, "synthetic stand-in (planted twins)", synthetic=True)


def load_offload_suite(
    data_dir=None,
    *,
    pool_size: int = 16,
    responses: str = "alpaca_eval",
    provider: str | None = None,
    max_tokens: int | None = 64,
    cache_dir=None,
    seed: int = 0,
) -> OffloadSuite:
    """The paired suite of the scored AlpacaEval models on the shared pool (or a reader's records).

    Parameters
    ----------
    data_dir : path, optional
        The data directory (as :func:`blindspot.perspective.alpaca.alpaca_eval_data`).
    pool_size : int
        Instructions per task (the shared pool of :func:`blindspot.perspective.alpaca.select_pool`,
        so a larger pool is a superset of a smaller one and reuses its cached vectors).
    responses : str
        ``"alpaca_eval"``, or the path of a reader's records file (parquet or CSV in the
        ``dkps`` records format, with ``score`` and either embeddings or texts).
    provider, max_tokens, cache_dir
        Embedding settings (``provider=None``: the local MiniLM when installed, else hashing).
    """
    provider = pool_embedding.provider_or_default(provider)
    if responses != "alpaca_eval":
        path = str(responses)
        fr = read_response_file(path)
        rec, rep = pool_embedding.embed_pool(fr, provider=provider, max_tokens=max_tokens, cache_dir=cache_dir)
        return OffloadSuite(paired_suite(rec), path, embedding=rep)
    ae = alpaca.alpaca_eval_data(data_dir, queries_per_task=pool_size, seed=seed)
    if ae.synthetic:
        return synthetic_offload_suite(seed)
    rows, n_dropped = offload_rows(ae)
    rec, rep = pool_embedding.embed_pool(
        rows[["model_id", "task_id", "query_id", "query", "response", "score"]],
        provider=provider,
        max_tokens=max_tokens,
        cache_dir=cache_dir,
    )
    suite = paired_suite(rec)
    return OffloadSuite(suite, ae.source, notes=tuple(ae.notes), n_dropped_queries=n_dropped, embedding=rep)


def offload_rows(ae: alpaca.AlpacaEvalData) -> tuple[pd.DataFrame, int]:
    """The response rows of :func:`scored_models` on the instructions every one of them answered, and the
    number of instructions dropped because some model did not answer them."""
    keep = scored_models(ae.models)
    rows = ae.responses[ae.responses.model_id.isin(keep)]
    counts = rows.groupby(["task_id", "query_id"]).model_id.nunique()
    full = counts[counts == len(keep)].index
    key = pd.MultiIndex.from_frame(rows[["task_id", "query_id"]])
    return rows[key.isin(full)].reset_index(drop=True), int((counts < len(keep)).sum())


def arena_offload_rows(data: arena_bench.ArenaBenchData) -> tuple[pd.DataFrame, int]:
    """Arena-Bench v1's rows for offloading: models graded on at least :data:`MIN_GRADED_SHARE` of the prompts,
    on the prompts every one of them has a grade for; and the number of prompts dropped.

    Retention needs the served model's grade and the flagship's on every held-out prompt. Llama-2-70b-chat
    (its answers were regenerated after the judging: most of its judgments grade another answer) and
    vicuna-33b-v1.3 fall below the share, as do the models without grades.

    Parameters
    ----------
    data : ArenaBenchData

    Returns
    -------
    (DataFrame, int)
        The rows (``model_id, task_id, query_id, score`` and the texts or vectors) and the prompts dropped.

    Raises
    ------
    ValueError
        Fewer than 3 models reach the share.
    """
    share = data.models.n_graded / data.models.n_answers
    keep = sorted(share.index[share >= MIN_GRADED_SHARE])
    if len(keep) < 3:
        raise ValueError(f"{data.name}: only {len(keep)} model(s) are graded on {MIN_GRADED_SHARE:.0%} of the prompts")
    rows = data.responses[data.responses.model_id.isin(keep)]
    graded = rows.groupby("query_id").score.apply(lambda s: bool(s.notna().all()))
    full = graded.index[graded.to_numpy()]
    out = rows[rows.query_id.isin(full)].reset_index(drop=True)
    return out, int((~graded).sum())


def load_arena_offload_suite(
    data_dir=None,
    *,
    n_prompts: int | None = None,
    provider: str | None = None,
    max_tokens: int | None = 64,
    cache_dir=None,
    seed: int = 0,
) -> OffloadSuite:
    """Arena-Bench v1's paired suite for offloading (:func:`arena_offload_rows`), embedded through the shared cache.

    Parameters
    ----------
    data_dir : path, optional
        As :func:`blindspot.perspective.arena_bench.arena_bench_data`; without the folder, its synthetic stand-in.
    n_prompts : int, optional
        A fixed subset of the prompts (:func:`blindspot.perspective.arena_bench.arena_bench_data`); None: all.
    provider, max_tokens, cache_dir
        Embedding settings (``provider=None``: the local MiniLM when installed, else hashing).
    seed : int, default=0
        Seed of the synthetic stand-in.

    Returns
    -------
    OffloadSuite
        Scores are the judge's grades 1-10; the tasks are query clusters
        (:func:`blindspot.perspective.routing_study.arena_suite`'s rule), as in the routing chapter.

    Raises
    ------
    ValueError
        As :func:`arena_offload_rows`.
    """
    provider = pool_embedding.provider_or_default(provider)
    data = arena_bench.arena_bench_data(data_dir, n_prompts=n_prompts, seed=seed)
    rows, n_dropped = arena_offload_rows(data)
    cols = ["model_id", "task_id", "query_id", "score"]
    cols += ["response_embedding", "query_embedding"] if data.synthetic else ["query", "response"]
    rec, rep = pool_embedding.embed_pool(rows[cols], provider=provider, max_tokens=max_tokens, cache_dir=cache_dir)
    s = paired_suite(rec)
    s = dataclasses.replace(s, tasks=query_clusters(s.U, N_CLUSTERS, seed=0))  # the prompts carry no topic label
    return OffloadSuite(s, data.source, synthetic=data.synthetic, notes=tuple(data.notes),
                        n_dropped_queries=n_dropped, embedding=rep)  # fmt: skip


def split_sizes(n_queries: int, eval_share: float = 0.25, cal_share: float = 0.25) -> tuple[int, int, int]:
    """(eval, calA, calB) sizes: a quarter of the pool for eval, a quarter split into calA and calB.

    On the full AlpacaEval pool (about 795 queries) this is the routing paper's scaled protocol:
    about 200 eval, 100 + 100 calibration and 395 anchors. On the book's shared pool of 64 per
    task (320 queries) it is 80 eval, 40 + 40 calibration and 160 anchors (32 per task).
    """
    n_eval = int(round(eval_share * n_queries))
    n_cal = int(round(cal_share * n_queries))
    return n_eval, n_cal // 2, n_cal - n_cal // 2


def run_study(
    data: OffloadSuite,
    seeds,
    *,
    flagship: str | None = None,
    pools: dict | None = None,
    alphas=ALPHAS,
    rules=("emp", "ucb"),
    min_prefix: int = 20,
    delta: float = DELTA,
) -> dict:
    """Decisions, the gate sweep, the curves and the quality-router metrics of one flagship."""
    n_eval, n_a, n_b = split_sizes(data.suite.n_queries)
    dec = collect_decisions(data.suite, list(seeds), pools, flagship=flagship, n_eval=n_eval, n_cal_a=n_a, n_cal_b=n_b)
    gates = gate_sweep(dec, alphas, rules, delta=delta, min_prefix=min_prefix)
    return {
        "decisions": dec,
        "gates": gates,
        "curves": curve_table(dec),
        "quality": quality_table(dec),
        "sizes": (n_eval, n_a, n_b),
    }


#: Mean and spread over seeds per method and contract (:func:`dkps.routing.offload_study.gate_summary`).
gate_table = gate_summary


def gate_pivot(table: pd.DataFrame, methods) -> pd.DataFrame:
    """The gate table for the page: rows (rule, method), columns (ε quantile, α), cells
    ``volume · violation ± sd · retention`` ("—" where the rule needs more calibration queries,
    † on a constant-confidence policy)."""
    t = table[table.method.isin(methods)].copy()

    def fmt(r) -> str:
        if not r.feasible or not np.isfinite(r.volume):
            return "—"
        mark = "" if r.can_select else " †"
        return f"{r.volume:.2f} · {r.violation:.2f}±{0.0 if np.isnan(r.violation_sd) else r.violation_sd:.2f} · {r.retention:.3f}{mark}"

    t["cell"] = [fmt(r) for r in t.itertuples()]
    t["eps"] = [f"q{int(round(100 * q))}" for q in t.q]
    out = t.pivot_table(index=["rule", "method"], columns=["eps", "alpha"], values="cell", aggfunc="first")
    order = [m for m in methods if m in set(t.method)]
    return out.reindex(pd.MultiIndex.from_product([sorted(set(t.rule)), order], names=["rule", "method"]))


def curve_points(curves: pd.DataFrame, pool: str, fracs=(0.1, 0.2, 0.4, 0.6)) -> pd.DataFrame:
    """Mean deviation at matched offload fractions (methods x fractions), mean over seeds."""
    c = curves[(curves.pool == pool) & (curves.family == "policy")]
    c = c[np.isclose(c.frac.to_numpy()[:, None], np.asarray(fracs)[None]).any(1)]
    return c.groupby(["method", "frac"]).deviation.mean().unstack("frac")


#: Seed-paired volume difference of two ladder estimators (:func:`dkps.routing.offload_study.volume_contrast`).
ladder_contrast = volume_contrast


def gate_cell(
    gates: pd.DataFrame,
    method: str,
    q: float = 0.5,
    alpha: float = 0.10,
    rule: str = "emp",
    col: str = "volume",
    pool: str = "le13b",
) -> float:
    """One cell of the gate table: a method's mean ``col`` over seeds at one contract, rule and pool.

    Parameters
    ----------
    gates : DataFrame
        :func:`dkps.routing.offload_study.gate_sweep`'s frame.
    method, rule, col, pool : str
    q, alpha : float
        The contract (ε quantile, violation budget).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        No such cell.
    """
    t = gate_table(gates, pool)
    r = t[(t.method == method) & np.isclose(t.q, q) & np.isclose(t.alpha, alpha) & (t.rule == rule)]
    if r.empty:
        raise ValueError(f"the gate table of pool {pool!r} has no {method!r} at q={q}, alpha={alpha}, rule {rule!r}")
    return float(r[col].iloc[0])


def record_original_values(ledger, res: dict, data=None) -> None:
    """Record the routing README's offloading numbers (ladder volumes and retention, deviation curves, population
    violation, frontiers) with the book's AlpacaEval analogue beside each.

    Parameters
    ----------
    ledger : Ledger
        The offloading chapter's ledger.
    res : dict
        :func:`run_study`'s result.
    data : list of ScoreTable, optional
        The synthetic stand-in's table, when it ran.
    """
    from dkps.routing.offload_study import retention_frontier

    g = res["gates"]
    for k, m in {"qa": "qa-fact", "pd-cal": "pd-cal", "pairdev": "pairdev", "oracle": "oracle"}.items():
        for p in ("le13b", "all"):
            ledger.value(f"OF.64.volume.{k}.{p}", gate_cell(g, m, pool=p), data=data,
                         evidence=f"book: {m} at eps = q50, alpha = 0.10")  # fmt: skip
        ledger.value(f"OF.64.retention.{k}", gate_cell(g, m, pool="all", col="retention"), data=data,
                     evidence="book: unrestricted pool")  # fmt: skip
    ledger.value(
        "OF.64.violation.pd-cal", gate_cell(g, "pd-cal", col="violation"), data=data, evidence="book: <= 13B pool"
    )
    points = curve_points(res["curves"], "le13b")
    for pol in ("qa", "lead", "static", "random"):
        for frac in (10, 20, 40, 60):
            ledger.value(f"OF.65.deviation.{pol}.f{frac}", float(points.loc[pol, frac / 100]), data=data,
                         evidence="book: AlpacaEval, MiniLM deviations")  # fmt: skip
    ledger.value("OF.66.population.lead", gate_cell(g, "lead", col="population_violation"), data=data,
                 evidence="book: at eps = q50")  # fmt: skip
    cur = res["curves"]
    for m in ("qa-score", "cascade"):
        ledger.value(f"OF.66.{m.replace('-', '_')}.frontier", retention_frontier(cur, "le13b", m), data=data,
                     evidence="book: <= 13B pool")  # fmt: skip
    full = cur[(cur.pool == "all") & (cur.method == "task") & np.isclose(cur.frac, 1.0)].retention.mean()
    ledger.value("OF.66.unrestricted.full", float(full), data=data, evidence="book: task policy, unrestricted pool")


def study_quantities(data: OffloadSuite, res: dict, seed: int) -> dict[str, object]:
    """The offloading study's numbers by name for a page: the suite, the flagship, the splits and the pools.

    Parameters
    ----------
    data : OffloadSuite
    res : dict
        :func:`run_study`'s result.
    seed : int
        The seed whose flagship and pools the page shows.

    Returns
    -------
    dict
        ``n_models``, ``n_queries``, ``flagship``, ``flagship_size``, ``flag_stable``, ``n_eval``, ``n_cal``,
        ``n_cal_b``, ``n_anchors``, ``n_seeds``, ``n_le13``, ``n_unsized``.
    """
    from dkps.routing.sizes import parse_size, size_pools

    from .verdicts import same_each_seed

    s, dec = data.suite, res["decisions"]
    flag = dec.flagships[seed]
    n_eval, n_a, n_b = res["sizes"]
    return dict(
        n_models=s.n_models, n_queries=s.n_queries, flagship=flag, flagship_size=str(parse_size(flag)),
        flag_stable=same_each_seed(dec.flagships), n_eval=n_eval, n_cal=n_a + n_b, n_cal_b=n_b,
        n_anchors=s.n_queries - n_eval - n_a - n_b, n_seeds=len(dec.flagships),
        n_le13=len(size_pools(s.models, exclude=[flag])["le13b"]), n_unsized=sum(parse_size(m) is None for m in s.models),
    )  # fmt: skip


def hypothesis_table(
    gates: pd.DataFrame, q: float = 0.5, alpha: float = 0.10, pools: tuple[str, str] = ("le13b", "all")
) -> pd.DataFrame:
    """The book's paired-data hypothesis, measured: seed-paired volume contrasts pd-cal - pairdev and pd-cal - pd30
    (a pair regression starved to 30 anchors) with their SEs, per pool (:func:`ladder_contrast`).

    Parameters
    ----------
    gates : DataFrame
        :func:`dkps.routing.offload_study.gate_sweep`'s frame.
    q, alpha : float
        The contract.
    pools : (str, str)
        The capped pool and the unrestricted one.

    Returns
    -------
    DataFrame
        Indexed by pool (``le13b``, ``all``): ``pd-cal - pairdev``, ``SE``, ``pd-cal - pd30``, ``SE (pd30)``, and
        ``pairdev - pd30``, ``SE (cost)``.
    """
    rows = {}
    for p in pools:
        h = ladder_contrast(gates, p, "pd-cal", "pairdev", q=q, alpha=alpha)
        st = ladder_contrast(gates, p, "pd-cal", "pd30", q=q, alpha=alpha)
        c = ladder_contrast(gates, p, "pairdev", "pd30", q=q, alpha=alpha)
        rows[p] = {"pd-cal - pairdev": h[0], "SE": h[1], "pd-cal - pd30": st[0], "SE (pd30)": st[1],
                   "pairdev - pd30": c[0], "SE (cost)": c[1]}  # fmt: skip
    return pd.DataFrame.from_dict(rows, orient="index")


def hypothesis_quantities(table: pd.DataFrame) -> dict[str, float]:
    """:func:`hypothesis_table`'s numbers by the page's names: ``hyp13``/``hyp13_se``, ``hypall``/``hypall_se``,
    ``starved13``/``starved13_se`` and ``cost13``/``cost13_se`` (``13``: the table's first, capped pool)."""
    t = table.rename(index={table.index[0]: "le13b", table.index[-1]: "all"})
    return dict(
        hyp13=t.loc["le13b", "pd-cal - pairdev"], hyp13_se=t.loc["le13b", "SE"], hypall=t.loc["all", "pd-cal - pairdev"],
        hypall_se=t.loc["all", "SE"], starved13=t.loc["le13b", "pd-cal - pd30"], starved13_se=t.loc["le13b", "SE (pd30)"],
        cost13=t.loc["le13b", "pairdev - pd30"], cost13_se=t.loc["le13b", "SE (cost)"],
    )  # fmt: skip
