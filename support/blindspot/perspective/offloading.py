"""Offloading under a contract on AlpacaEval: the suite, the study and its summary tables.

Builds the paired suite of the scored AlpacaEval models (the 58 with per-response judge scores
minus the adversarial ``NullModel`` and ``gpt4_gamed``) on a shared instruction pool, embedded
with ``dkps.embed`` through the same cache as the other AlpacaEval chapters, runs
:mod:`dkps.routing.offload_study` over seeds and pools, and condenses its frames into the tables of the
chapter. Without the data, a labelled synthetic stand-in (sized model names, planted behavioural
twins) runs the same code.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from blindspot.data.tables import ScoreTable
from dkps.routing.offload import PairedSuite, paired_suite
from dkps.routing.offload_study import collect_decisions, curve_table, gate_sweep, quality_table

from . import alpaca, pool_embedding

__all__ = [
    "EXCLUDED",
    "ALPHAS",
    "DELTA",
    "OffloadSuite",
    "scored_models",
    "load_offload_suite",
    "offload_rows",
    "synthetic_offload_suite",
    "split_sizes",
    "run_study",
    "gate_table",
    "gate_pivot",
    "curve_points",
    "ladder_contrast",
]

#: Scored models kept out of the pool: the adversarial/synthetic entries of the leaderboard.
EXCLUDED = ("NullModel", "gpt4_gamed")
#: Violation budgets of the tolerance gate (the routing paper's tolerance-gate table).
ALPHAS = (0.05, 0.10, 0.20)
#: Clopper–Pearson level of the ``ucb`` rule: the bound holds with probability ``1 − DELTA``.
DELTA = 0.10


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
        The data directory (as :func:`blindspot.perspective.alpaca.load_alpaca_eval`).
    pool_size : int
        Instructions per task (the shared pool of :func:`blindspot.perspective.alpaca.select_pool`,
        so a larger pool is a superset of a smaller one and reuses its cached vectors).
    responses : str
        ``"alpaca_eval"``, or the path of a reader's records file (parquet or CSV in the
        ``dkps`` records format, with ``score`` and either embeddings or texts).
    provider, max_tokens, cache_dir
        Embedding settings (``provider=None``: the local MiniLM when installed, else hashing).
    """
    provider = provider or ("sentence-transformers" if pool_embedding.local_model_available() else "hash")
    if responses != "alpaca_eval":
        path = str(responses)
        fr = pd.read_parquet(path) if path.endswith(".parquet") else pd.read_csv(path)
        rec, rep = pool_embedding.embed_pool(fr, provider=provider, max_tokens=max_tokens, cache_dir=cache_dir)
        return OffloadSuite(paired_suite(rec), path, embedding=rep)
    ae = alpaca.load_alpaca_eval(data_dir, queries_per_task=pool_size, seed=seed)
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


def gate_table(gates: pd.DataFrame, pool: str) -> pd.DataFrame:
    """Mean and spread over seeds of volume, held-out violation and retention, per method and contract."""
    g = gates[gates.pool == pool]
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
    )
    return agg.reset_index()


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


def ladder_contrast(gates: pd.DataFrame, pool: str, a: str, b: str, *, q: float, alpha: float, rule: str = "emp"):
    """Seed-paired volume difference ``a − b`` at one contract: mean, SE, and the per-seed values."""
    g = gates[
        (gates.pool == pool) & (gates.family == "ladder") & np.isclose(gates.q, q) & np.isclose(gates.alpha, alpha)
    ]
    g = g[g.rule == rule].pivot_table(index="seed", columns="method", values="volume")
    d = (g[a] - g[b]).to_numpy()
    se = float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else float("nan")
    return float(d.mean()), se, d
