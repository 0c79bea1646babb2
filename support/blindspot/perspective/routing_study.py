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

from . import routing_verdicts

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
        contrast = agreement_against_random_groups(study.suite, n_perm=n_perm)
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
