"""How much the routing chapter's verdict on "qa beats static" depends on the protocol choices it departs from.

The chapter routes AlpacaEval on a pool of ``pool_size`` instructions per task, with answers truncated to
64 word pieces and raw MiniLM vectors; the original's protocol uses every instruction, whole answers and an
elbow PCA of queries and responses. :func:`run_sensitivity` recomputes qa-0.25x - static (with its 95%
interval across seeds, :func:`dkps.routing.evaluation.paired_difference`) under each departure:

1. the chapter's protocol (its study, passed in);
2. the original's preprocessing (:func:`dkps.routing.preprocessing.elbow_pca_suite`, fitted on each seed's
   anchors; the error is measured in the preprocessed space, as the original measures it);
3. a seeded subset of ``n_models`` of the pool on the chapter's pool -- the baseline of 4 and 5;
4. that subset on a wider pool (every instruction, or ``wide_pool`` per task);
5. that subset with ``long_tokens`` word pieces.

Rows 4 and 5 embed texts the other chapters do not (the build's warm-up embeds them first, into the same
cache: :func:`sensitivity_texts`); the subset keeps that cost within a cold build's budget.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dkps.routing.evaluation import PairedSuite, evaluate_seeds, paired_difference, stratified_split
from dkps.routing.preprocessing import elbow_pca_suite

from . import alpaca, pool_embedding, routing_study

__all__ = [
    "SensitivityPlan",
    "sensitivity_models",
    "sensitivity_texts",
    "run_sensitivity",
    "sensitivity_frame",
    "sensitivity_quantities",
    "SUBSET_SEED",
]

#: Seed of the model subset of rows 3-5.
SUBSET_SEED = 0


@dataclass(frozen=True)
class SensitivityPlan:
    """The departures measured: the subset size, the wide pool and the long truncation.

    Attributes
    ----------
    pool_size : int
        The chapter's instructions per task.
    n_models : int
        Size of the model subset of rows 3-5.
    wide_pool : int or None
        Instructions per task of row 4 (None: every instruction).
    long_tokens : int
        Word pieces of row 5.
    max_tokens : int
        The chapter's word pieces.
    """

    pool_size: int
    n_models: int
    wide_pool: int | None
    long_tokens: int
    max_tokens: int = 64


def sensitivity_models(pool: list[str], n_models: int, seed: int = SUBSET_SEED) -> list[str]:
    """A seeded subset of the routing pool, sorted by name.

    Parameters
    ----------
    pool : list of str
        The routing pool (:func:`blindspot.perspective.routing_study.pool_models`).
    n_models : int
        How many (at least 3: a target and two candidates).
    seed : int, default=SUBSET_SEED

    Returns
    -------
    list of str

    Raises
    ------
    ValueError
        ``n_models`` below 3 or above the pool's size.
    """
    if isinstance(n_models, (bool, np.bool_)) or not 3 <= int(n_models) <= len(pool):
        raise ValueError(f"n_models must lie in 3..{len(pool)} (the routing pool), got {n_models!r}")
    rng = np.random.default_rng(seed)
    return sorted(np.asarray(sorted(pool), dtype=object)[rng.choice(len(pool), int(n_models), replace=False)])


def _rows(data_dir, per_task: int | None, models: list[str]) -> pd.DataFrame:
    ae = alpaca.alpaca_eval_data(data_dir, queries_per_task=per_task, models=models)
    return ae.responses[ae.responses.model_id.isin(models)].reset_index(drop=True)


def sensitivity_texts(data_dir, plan: SensitivityPlan) -> list[tuple[pd.DataFrame, int]]:
    """The ``(query, response)`` texts rows 4 and 5 embed, each with its word pieces (for the build's warm-up).

    Parameters
    ----------
    data_dir : path or None
    plan : SensitivityPlan

    Returns
    -------
    list of (DataFrame with ``query`` and ``response``, max_tokens)
        Empty when the AlpacaEval data are absent (the synthetic stand-in carries vectors).
    """
    ae = alpaca.alpaca_eval_data(data_dir, queries_per_task=plan.pool_size)
    if ae.synthetic:
        return []
    subset = sensitivity_models(routing_study.pool_models(ae.models), plan.n_models)
    wide = _rows(data_dir, plan.wide_pool, subset)[["query", "response"]]
    long = _rows(data_dir, plan.pool_size, subset)[["query", "response"]]
    return [(wide, plan.max_tokens), (long, plan.long_tokens)]


def _row(label: str, change: str, suite: PairedSuite, results, seconds: float) -> dict:
    d = paired_difference(results, "qa-0.25x", "static")
    return dict(
        protocol=label, change=change, models=len(suite.models), queries=int(suite.X.shape[1]), seeds=len(results),
        qa_minus_static=d.mean, lo=d.lo, hi=d.hi, seconds=seconds,
    )  # fmt: skip


def _subset(suite: PairedSuite, models: list[str]) -> PairedSuite:
    idx = [suite.models.index(m) for m in models]
    return PairedSuite(
        X=suite.X[idx], U=suite.U, tasks=suite.tasks, models=list(models), query_ids=suite.query_ids,
        scores=None if suite.scores is None else suite.scores[idx],
    )  # fmt: skip


def _embedded_suite(data_dir, per_task, models, max_tokens, provider, cache_dir) -> PairedSuite:
    rows = _rows(data_dir, per_task, models)
    rec, _ = pool_embedding.embed_pool(rows, provider=provider, max_tokens=max_tokens, cache_dir=cache_dir,
                                       progress=False)  # fmt: skip
    return routing_study.suite_from_records(rec)


def run_sensitivity(
    suite: PairedSuite,
    results,
    plan: SensitivityPlan,
    *,
    data_dir=None,
    provider: str = "sentence-transformers",
    cache_dir=None,
    texts: bool = True,
) -> pd.DataFrame:
    """qa-0.25x - static with its 95% interval across seeds under each protocol departure.

    Parameters
    ----------
    suite : PairedSuite
        The chapter's suite (its models are the routing pool).
    results : list of SeedResult
        The chapter's mimicry results on ``suite`` (row 1); the other rows use the same seeds.
    plan : SensitivityPlan
    data_dir : path, optional
        Where AlpacaEval is read from for rows 4 and 5.
    provider : str, default='sentence-transformers'
    cache_dir : path, optional
        The embedding cache (rows 4 and 5 read what the warm-up embedded).
    texts : bool, default=True
        Whether the suite comes from texts; False (a suite that carries its own vectors, such as the synthetic
        stand-in) leaves out rows 4 and 5, which re-embed texts.

    Returns
    -------
    DataFrame
        One row per protocol: ``protocol, change, models, queries, seeds, qa_minus_static, lo, hi, seconds``.

    Raises
    ------
    ValueError
        As :func:`sensitivity_models` and the mimicry evaluation.

    References
    ----------
    The query-aware routing README of the dkps repository and its loaders (the original's protocol); the
    book's chapter "Routing to a behavioural stand-in".
    """
    seeds = tuple(r.seed for r in results)
    rows = [_row("the chapter's", "—", suite, results, 0.0)]
    t0 = time.perf_counter()
    pre = []
    for s in seeds:
        split = stratified_split(suite.tasks, 0.2, s)
        pre += evaluate_seeds(elbow_pca_suite(suite, split.anchor), (s,), fractions=(0.25,), cv=False)
    rows.append(_row("the original's preprocessing", "elbow PCA, fitted on anchors", suite,
                     pre, time.perf_counter() - t0))  # fmt: skip
    subset = sensitivity_models(list(suite.models), plan.n_models)
    t0 = time.perf_counter()
    small = _subset(suite, subset)
    rows.append(_row(f"{plan.n_models} of the models", "a seeded subset of the pool", small,
                     evaluate_seeds(small, seeds, fractions=(0.25,), cv=False), time.perf_counter() - t0))  # fmt: skip
    if not texts:
        return pd.DataFrame(rows)
    t0 = time.perf_counter()
    wide = _embedded_suite(data_dir, plan.wide_pool, subset, plan.max_tokens, provider, cache_dir)
    what = "every instruction" if plan.wide_pool is None else f"{plan.wide_pool} instructions per task"
    rows.append(_row(f"{plan.n_models} models, {what}", what, wide,
                     evaluate_seeds(wide, seeds, fractions=(0.25,), cv=False), time.perf_counter() - t0))  # fmt: skip
    t0 = time.perf_counter()
    long = _embedded_suite(data_dir, plan.pool_size, subset, plan.long_tokens, provider, cache_dir)
    rows.append(_row(f"{plan.n_models} models, {plan.long_tokens} word pieces", f"{plan.long_tokens} word pieces", long, evaluate_seeds(long, seeds, fractions=(0.25,), cv=False),
                     time.perf_counter() - t0))  # fmt: skip
    return pd.DataFrame(rows)


def sensitivity_frame(table: pd.DataFrame) -> pd.DataFrame:
    """The sensitivity table for the page: protocol, what changes, size, and qa - static with its interval.

    Parameters
    ----------
    table : DataFrame
        :func:`run_sensitivity`'s frame.

    Returns
    -------
    DataFrame
        Indexed by protocol; differences to four decimals, "—" where an interval needs two seeds.
    """

    def ci(r) -> str:
        if not (np.isfinite(r.lo) and np.isfinite(r.hi)):
            return f"{r.qa_minus_static:+.4f} [—]"
        return f"{r.qa_minus_static:+.4f} [{r.lo:+.4f}, {r.hi:+.4f}]"

    return pd.DataFrame(
        {
            "what changes": table["change"].to_numpy(),
            "models × instructions": [f"{m} × {q}" for m, q in zip(table.models, table.queries)],
            "qa − static [95% CI]": [ci(r) for r in table.itertuples()],
        },
        index=pd.Index(table.protocol, name="protocol"),
    )


def sensitivity_quantities(table: pd.DataFrame) -> dict[str, object]:
    """The sensitivity table's numbers by name for a page: ``rows`` (protocols), ``seconds`` (their total wall time,
    one decimal) and ``range`` (qa - static from its smallest to its largest, four decimals).

    Parameters
    ----------
    table : DataFrame
        :func:`run_sensitivity`'s frame.

    Returns
    -------
    dict
    """
    d = table.qa_minus_static
    return {"rows": len(table), "seconds": f"{table.seconds.sum():.1f}", "range": f"{d.min():+.4f} to {d.max():+.4f}"}
