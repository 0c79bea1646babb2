"""The routing chapter's suites: AlpacaEval's scored models, and Arena-Bench v1 with query clusters for tasks.

A thin layer over :mod:`dkps.routing` for Part V's chapter on routing to a behavioural stand-in.
:func:`suite_from_records` turns vector records (one row per response, every model answering the same
queries) into a :class:`dkps.routing.evaluation.PairedSuite`; :func:`pool_models` is AlpacaEval's routing
pool; :func:`arena_suite` is Arena-Bench v1's, whose prompts carry no topic label, so its "tasks" are
k-means clusters of the query embeddings (:func:`dkps.routing.diagnostics.query_clusters`). The study
itself is :func:`dkps.routing.mimicry_study.run_mimicry_study`, the verdicts
:mod:`blindspot.perspective.routing_verdicts`. Where a suite has no labels, the clustering is a protocol choice:
:func:`arena_groupings` lists the reasonable alternatives and :func:`grouping_runs` measures each (qa - static,
the profile's share, the router-free premise).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from dkps.routing.diagnostics import GroupingContrast, agreement_against_random_groups, query_clusters
from dkps.routing.evaluation import Difference, PairedSuite, evaluate_seeds, paired_difference
from dkps.routing.mimicry_study import MimicryStudy

from . import alpaca, routing_verdicts

__all__ = [
    "pool_models",
    "suite_from_records",
    "arena_suite",
    "premise_frame",
    "EXCLUDED",
    "N_CLUSTERS",
    "CODE_PATTERN",
    "code_or_text",
    "arena_groupings",
    "GroupingRun",
    "grouping_runs",
    "groupings_frame",
    "ALTERNATIVES",
    "table_quantities",
    "premise_quantities",
    "record_original_values",
    "ANALOGUE",
    "FACT_ANALOGUE",
    "EmbeddingOptions",
    "embedding_options",
]

#: models left out of the routing pool: adversarial entries (a constant answer; an attack on the judge)
EXCLUDED = ("NullModel", "gpt4_gamed")
#: Query clusters standing in for tasks on a suite without labels: as many as AlpacaEval's five tasks.
N_CLUSTERS = 5


def pool_models(models: pd.DataFrame) -> list[str]:
    """The routing pool: the models with per-response judge scores, minus :data:`EXCLUDED`.

    Parameters
    ----------
    models : DataFrame
        A model table with the column ``n_scored`` (AlpacaEval's) or ``n_graded`` (Arena-Bench v1's).

    Returns
    -------
    list of str
        In the table's order.

    Raises
    ------
    ValueError
        A table with neither column.
    """
    col = "n_scored" if "n_scored" in models.columns else "n_graded" if "n_graded" in models.columns else None
    if col is None:
        raise ValueError("the model table needs the column 'n_scored' or 'n_graded' (per-response judge scores)")
    return [m for m in models.index[models[col] > 0] if m not in EXCLUDED]


def suite_from_records(records: pd.DataFrame) -> PairedSuite:
    """A paired suite from vector records (``response_embedding``, ``query_embedding``; optional ``score``).

    Parameters
    ----------
    records : DataFrame
        ``model_id, task_id, query_id, response_embedding, query_embedding`` and optionally ``score``.

    Returns
    -------
    PairedSuite
        Only the queries answered by every model (the query key is ``query_id``).

    Raises
    ------
    ValueError
        Missing columns, or no query answered by every model.
    """
    need = [c for c in ("model_id", "task_id", "query_id", "response_embedding", "query_embedding") if c not in records]
    if need:
        raise ValueError(f"routing records need the columns {need}")
    fr = records.reset_index(drop=True)
    cols = ["model_id", "task_id", "query_id"] + (["score"] if "score" in fr.columns else [])
    X = np.stack([np.asarray(v, dtype=np.float64) for v in fr.response_embedding])
    U = np.stack([np.asarray(v, dtype=np.float64) for v in fr.query_embedding])
    return PairedSuite.from_frame(fr[cols].astype({"query_id": str}), X, U)


def arena_suite(records: pd.DataFrame, n_clusters: int = N_CLUSTERS, *, seed: int = 0) -> PairedSuite:
    """Arena-Bench v1's paired suite with k-means query clusters as its tasks.

    The clusters read the query embeddings only (a router may read a new query); they serve as the task
    router's labels, the profile's columns and the strata of the split, as AlpacaEval's source data sets do.

    Parameters
    ----------
    records : DataFrame
        Vector records of one category (:func:`suite_from_records`).
    n_clusters : int, default=5
    seed : int, default=0
        Seed of k-means.

    Returns
    -------
    PairedSuite

    Raises
    ------
    ValueError
        As :func:`suite_from_records` and :func:`dkps.routing.diagnostics.query_clusters`.
    """
    base = suite_from_records(records)
    labels = query_clusters(base.U, n_clusters, seed=seed)
    return PairedSuite(
        X=base.X, U=base.U, tasks=labels, models=base.models, query_ids=base.query_ids, scores=base.scores, P=base.P
    )


def premise_frame(studies: dict, premises: dict) -> pd.DataFrame:
    """The premise of query-aware routing on each suite, for the page (one row per suite).

    Parameters
    ----------
    studies : dict
        ``{suite name: (MimicryStudy, name of its groups)}``, e.g. ``{"AlpacaEval": (study, "tasks")}``.
    premises : dict
        ``{suite name: Verdict}`` (:func:`blindspot.perspective.routing_verdicts.premise`).

    Returns
    -------
    DataFrame
        Columns: models × queries, the groups, the share of targets whose nearest model agrees within and
        between groups, the same for random groups of the same sizes with the permutation p-value, the group
        router's error minus static's with its 95% interval (shown, not used: it is a router), the anchors
        used at 0.25 x the median (Kish's effective number), and whether the premise is present.
    """
    rows = {}
    for name, (study, groups) in studies.items():
        p = study.premise
        c: GroupingContrast = p["contrast"]
        n, m, _ = study.suite.X.shape
        rows[name] = {
            "models × queries": f"{n} × {m}",
            "groups": f"{p['n_groups']} {groups}",
            "same nearest model: within / between": f"{100 * c.within:.1f}% / {100 * c.between:.1f}%",
            "random groups: within / between": f"{100 * np.mean(c.null_within):.1f}% / "
            f"{100 * np.mean(c.null_between):.1f}% (p = {c.p_value:.3f})",
            "group router − static [95% CI]": str(p["group_minus_static"]),
            f"anchors used at {p['fraction']:g}x": f"{p['n_eff']:.0f} of {p['anchors']}",
            "premise": routing_verdicts.premise_word(premises[name]),
        }
    return pd.DataFrame(rows).T.rename_axis("suite")


#: A prompt is "code" when it holds a code fence or names a programming language or a coding term (whole words,
#: any case); every other prompt is "text". The rule reads the prompt only, as a router may.
CODE_PATTERN = re.compile(
    r"```|\b(code|coding|python|javascript|typescript|java|c\+\+|c#|html|css|sql|bash|powershell|regex|api|json|"
    r"function|compile|debug|rust|golang|react|nodejs|node\.js|vba|matlab|haskell|kotlin|swift|php|ruby|perl|"
    r"scala|dockerfile|kubernetes|forth)\b",
    re.IGNORECASE,
)
#: The groupings of Arena-Bench v1's prompts the routing chapter tries: its own first.
ALTERNATIVES = "k-means with k = 5 (seeds 0-4), k = 3 and k = 8 (seed 0), and a code/text split of the prompts"


def code_or_text(prompts) -> np.ndarray:
    """``'code'`` or ``'text'`` per prompt, by :data:`CODE_PATTERN`.

    Parameters
    ----------
    prompts : sequence of str

    Returns
    -------
    ndarray of str
    """
    return np.array(["code" if CODE_PATTERN.search(str(p)) else "text" for p in prompts], dtype=object)


def arena_groupings(suite: PairedSuite, prompts=None) -> dict[str, np.ndarray]:
    """The groupings of a suite without labels: the chapter's k-means clusters and the reasonable alternatives.

    Parameters
    ----------
    suite : PairedSuite
        The suite (its query embeddings are clustered).
    prompts : sequence of str, optional
        The prompts in ``suite.query_ids`` order; with them, a code/text split (:func:`code_or_text`) is added
        when both sides hold at least 10% of the prompts.

    Returns
    -------
    dict
        ``{name: labels}``, the chapter's grouping (k = :data:`N_CLUSTERS`, seed 0) first.
    """
    out = {f"k={N_CLUSTERS} seed {s}": query_clusters(suite.U, N_CLUSTERS, seed=s) for s in range(5)}
    out.update({f"k={k} seed 0": query_clusters(suite.U, k, seed=0) for k in (3, 8) if k < suite.U.shape[0]})
    if prompts is not None:
        lab = code_or_text(prompts)
        if min((lab == "code").mean(), (lab == "text").mean()) >= 0.1:
            out["code/text"] = lab
    return out


@dataclass(frozen=True)
class GroupingRun:
    """One grouping of a suite's queries, measured.

    Attributes
    ----------
    name : str
    labels : ndarray
        A group per query.
    qa_minus_static : Difference
        qa-0.25x - static over the seeds, the split stratified by these groups.
    profile_share : Difference or None
        ``(profile - static) / (random - static)`` with the profile's columns these groups (None: no scores).
    contrast : GroupingContrast
        The router-free premise on these groups.
    """

    name: str
    labels: np.ndarray
    qa_minus_static: Difference
    profile_share: Difference | None
    contrast: GroupingContrast


def grouping_runs(
    suite: PairedSuite, groupings: dict, seeds, *, n_perm: int = 200, own: MimicryStudy | None = None
) -> list[GroupingRun]:
    """Measure each grouping: qa - static and the profile's share over ``seeds``, and the router-free premise.

    Parameters
    ----------
    suite : PairedSuite
    groupings : dict
        ``{name: labels}`` (:func:`arena_groupings`).
    seeds : sequence of int
    n_perm : int, default=200
        Random groupings of the premise's null.
    own : MimicryStudy, optional
        The chapter's study on the first grouping (its numbers are reused, not recomputed).

    Returns
    -------
    list of GroupingRun
    """
    runs = []
    for i, (name, labels) in enumerate(groupings.items()):
        if i == 0 and own is not None:
            study = own
        else:
            s = replace(suite, tasks=np.asarray(labels, dtype=object))
            res = evaluate_seeds(s, tuple(seeds), fractions=(0.25,), cv=False)
            study = MimicryStudy(suite=s, results=res, table=pd.DataFrame(), per_task=pd.DataFrame(), premise={})
        share = study.profile_share() if "profile" in study.results[0].errors else None
        reuse = i == 0 and own is not None and "contrast" in own.premise
        contrast = own.premise["contrast"] if reuse else agreement_against_random_groups(study.suite, n_perm=n_perm)
        runs.append(
            GroupingRun(
                name, np.asarray(labels), paired_difference(study.results, "qa-0.25x", "static"), share, contrast
            )
        )
    return runs


def groupings_frame(runs: list[GroupingRun]) -> pd.DataFrame:
    """The groupings for the page: sizes, the router-free premise, qa - static and the profile's share.

    Parameters
    ----------
    runs : list of GroupingRun

    Returns
    -------
    DataFrame
        Indexed by grouping.
    """
    rows = {}
    for r in runs:
        c = r.contrast
        lo, hi = c.null_interval
        rows[r.name] = {
            "group sizes": ", ".join(str(v) for v in pd.Series(r.labels).value_counts()),
            "within / between": f"{100 * c.within:.1f}% / {100 * c.between:.1f}%",
            "within − between [random groups' 95%]": f"{c.excess:+.3f} [{lo:+.3f}, {hi:+.3f}]",
            "p": f"{c.p_value:.3f}",
            "qa − static [95% CI]": str(r.qa_minus_static),
            "profile share [95% CI]": "—" if r.profile_share is None else str(r.profile_share),
        }
    return pd.DataFrame(rows).T.rename_axis("grouping")


def table_quantities(study: MimicryStudy, prefix: str = "") -> dict[str, object]:
    """The mimicry table's numbers by name, for a page to glue (each from the study's measurements, none recomputed).

    Parameters
    ----------
    study : MimicryStudy
    prefix : str
        Put before every name (``'ar_'`` for a second suite).

    Returns
    -------
    dict
        ``e_<method>``, ``se_<method>``, ``win_<method>`` (method names without '-' and '.', e.g. ``e_qa_025x``);
        ``n_seeds``, ``n_eval``, ``n_decisions``, ``med``; ``best_qa`` and ``e_best_qa``; ``gap_closed`` and
        ``static_closed`` (% of the random-oracle bracket); ``d_qa_static``, ``d_qa_task`` (differences with
        their intervals); ``profile_share`` (%, with scores); ``spread``, ``spread_share`` (% of static -
        oracle) and ``cv_median_f``; with the unpairing study, ``u_<method>_<regime>`` gain ratios (%).
    """
    t = study.table.set_index("method")
    e = t.error
    out: dict[str, object] = {}
    for m in t.index:
        key = m.replace("-", "_").replace(".", "")
        out.update(
            {
                f"e_{key}": float(e[m]),
                f"se_{key}": float(t.loc[m, "se"]),
                f"win_{key}": 100 * float(t.loc[m, "win_vs_static"]),
            }
        )
    b = study.bandwidth_spread()
    best = f"qa-{min(b['grid'], key=b['grid'].get):g}x"
    out.update(
        n_seeds=len(study.results), n_eval=len(study.results[0].eval_queries),
        n_decisions=int(study.results[0].errors["static"].size), med=float(np.mean([r.med for r in study.results])),
        best_qa=best, e_best_qa=float(e[best]), gap_closed=100 * float((e["random"] - e[best]) / (e["random"] - e["oracle"])),
        static_closed=100 * float((e["random"] - e["static"]) / (e["random"] - e["oracle"])),
        d_qa_static=str(study.difference("qa-0.25x", "static")), d_qa_task=str(study.difference("qa-0.25x", "task")),
        spread=b["spread"], spread_share=100 * b["spread"] / b["gap"], cv_median_f=float(np.median(study.cv_fractions())),
    )  # fmt: skip
    if "profile" in t.index:
        out["profile_share"] = 100 * study.profile_share().mean
    if len(study.unpairing):
        u = study.unpairing.set_index(["regime", "method"]).gain_ratio
        out.update(
            {
                f"u_{'fact' if m == 'qa-fact' else 'rf'}_{g[:3]}": 100 * float(u[(g, m)])
                for g in ("independent", "disjoint")
                for m in ("qa-fact", "rf")
            }
        )
    if len(study.residual):
        out.update(near_full=float(study.residual.near.iloc[-1]), far_full=float(study.residual.far.iloc[-1]))
    return {prefix + k: v for k, v in out.items()}


def premise_quantities(study: MimicryStudy, premise_verdict, prefix: str) -> dict[str, object]:
    """The premise's numbers by name for a page: ``<prefix>within``, ``between`` (%, of the suite's groups),
    ``random_within``, ``random_between`` (%, random groups of the same sizes), ``premise_p``, ``group_static``,
    ``neff``, ``anchors`` and ``premise`` (the word)."""
    p = study.premise
    c: GroupingContrast = p["contrast"]
    out = dict(
        within=100 * c.within, between=100 * c.between, random_within=100 * float(np.mean(c.null_within)),
        random_between=100 * float(np.mean(c.null_between)), premise_p=c.p_value, group_static=str(p["group_minus_static"]),
        neff=p["n_eff"], anchors=p["anchors"], premise=routing_verdicts.premise_word(premise_verdict),
    )  # fmt: skip
    return {prefix + k: v for k, v in out.items()}


#: The README's method names and the book's analogue on the paired suite (the factorised ones for EEE's columns).
ANALOGUE = {
    "qa": "qa-0.25x",
    "task": "task",
    "static": "static",
    "random": "random",
    "oracle": "oracle",
    "profile": "profile",
}
FACT_ANALOGUE = dict(ANALOGUE, qa="qa-fact-0.25x", static="static-fact")


def record_original_values(ledger, study: MimicryStudy, data=None) -> None:
    """Record the README's tables (combined pool, HELM/EEE standalone, score routing) with the book's analogue beside
    each: the paired methods for HELM's columns, the factorised ones for EEE's and the combined pool's.

    Parameters
    ----------
    ledger : Ledger
        The routing chapter's ledger.
    study : MimicryStudy
        AlpacaEval's study (with its score diagnostics).
    data : list of ScoreTable, optional
        The synthetic stand-in's table, when it ran.
    """
    e = study.table.set_index("method").error
    for side in ("overall", "helm", "eee"):
        src = FACT_ANALOGUE if side != "helm" else ANALOGUE
        for m in ("oracle", "qa", "task", "static", "random"):
            ledger.value(f"RT.61.{side}.{m}", float(e[src[m]]), data=data)
    for name, src in (("helm", ANALOGUE), ("eee", FACT_ANALOGUE)):
        for m in ("qa", "task", "static", "profile", "random", "oracle"):
            ledger.value(f"RT.62.{name}.{m}", float(e[src[m]]), data=data)
    sr = study.score_routing.mean(numeric_only=True)
    for m in ("oracle", "task", "qa", "static", "random"):
        ledger.value(f"RT.63.eee.{m}", float(sr[m]), data=data)


@dataclass(frozen=True)
class EmbeddingOptions:
    """What embedding other pools would cost at the measured cold rate.

    Attributes
    ----------
    table : DataFrame
        One row per pool (the page's table): ``queries``, ``texts``, ``minutes``, ``new texts beyond <p> per task``
        and ``new minutes`` (beyond the cache the pool of ``base`` leaves).
    base : int
        The pool per task whose cached vectors the others reuse.
    """

    table: pd.DataFrame
    base: int

    def quantities(self, n: int = 4) -> dict[str, object]:
        """``proj_<i>``, ``proj_texts_<i>``, ``proj_new_<i>``, ``proj_new_texts_<i>`` for rows 0..n-1 ("not measured"
        beyond the table)."""
        out: dict[str, object] = {}
        rows = list(self.table.itertuples(index=False))
        for i in range(n):
            if i < len(rows):
                r = self.table.iloc[i]
                out.update({f"proj_{i}": f"{r['minutes']:.1f}", f"proj_texts_{i}": int(r["texts"]),
                            f"proj_new_{i}": f"{r['new minutes']:.1f}",
                            f"proj_new_texts_{i}": int(r[f"new texts beyond {self.base} per task"])})  # fmt: skip
            else:
                out.update({f"{k}_{i}": "not measured" for k in ("proj", "proj_texts", "proj_new", "proj_new_texts")})
        return out


def embedding_options(
    queries: pd.DataFrame | None, pools: tuple[int, int], n_models: int, n_queries: int, cold_rate: float | None
) -> EmbeddingOptions:
    """The cost of embedding the pools a chapter could have chosen, at the measured cold rate (texts per second).

    Parameters
    ----------
    queries : DataFrame or None
        AlpacaEval's instructions (:func:`blindspot.perspective.alpaca.select_pool` reads them); None for a reader's
        own response cache (one row: its pool).
    pools : (int, int)
        The pool per task whose vectors are cached (chapter 60's) and the chapter's.
    n_models : int
        Models answering each instruction (each instruction costs ``n_models + 1`` texts, its own included).
    n_queries : int
        The chapter's instructions.
    cold_rate : float or None
        Texts per second, cold; None (not measured): an empty table.

    Returns
    -------
    EmbeddingOptions
    """
    base, chosen = pools
    cols = ["queries", "texts", "minutes", f"new texts beyond {base} per task", "new minutes"]
    if cold_rate is None:
        return EmbeddingOptions(pd.DataFrame(columns=cols), base)
    per_query = n_models + 1
    if queries is not None:
        n_of = {k: len(alpaca.select_pool(queries, k)) for k in (base, chosen, 2 * chosen)}
        rows = (
            (f"pool {base} per task (Predicting AlpacaEval win rates)", n_of[base]),
            (f"pool {chosen} per task (chosen; Offloading under a contract)", n_of[chosen]),
            (f"pool {2 * chosen} per task", n_of[2 * chosen]),
            ("all instructions", len(queries)),
        )
    else:
        n_of = {base: 0}
        rows = ((f"your pool ({n_queries} queries)", n_queries),)
    table = {}
    for label, q in rows:
        new_q = max(0, q - n_of[base])  # beyond the cache the base pool leaves
        table[label] = [
            q,
            q * per_query,
            q * per_query / cold_rate / 60,
            new_q * per_query,
            new_q * per_query / cold_rate / 60,
        ]
    return EmbeddingOptions(pd.DataFrame.from_dict(table, orient="index", columns=cols), base)
