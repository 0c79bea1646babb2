"""The routing README's findings 1-5, split into the statements they are made of, each judged on its own.

The query-aware routing README of the dkps repository states findings that are several statements at
once ("label-free routing matches task-labelled routing *and* beats static DKPS"); a verdict on the
whole hides which part failed. Each statement here is a :class:`Part`: its words, whether they are
the **original**'s (made testable with the least reading) or the book's **restatement** (a threshold
or an order the README does not state), and its :class:`~blindspot.core.verdict.Verdict`.

A statement decided on the split seeds (a paired difference of two routers, a share of the bracket)
is **statistical**: its test is the seed-paired t-interval that ``dkps`` measures
(:meth:`dkps.routing.mimicry_study.MimicryStudy.difference`), judged by the calibrated rule
(:func:`~blindspot.core.verdict.judge`); where the protocol had choices (the query groupings of a
suite without task labels) the verdict carries its :class:`~blindspot.core.verdict.Robustness`. The
**premise** of query-aware routing (that which model behaves like which changes between kinds of
queries) is measured router-free, against random groupings of the same sizes
(:func:`dkps.routing.diagnostics.agreement_against_random_groups`), never as a function of the
routing error it is the premise of. ``dkps`` measures; the thresholds and the words live here.

References
----------
The query-aware routing README of the dkps repository (findings 1-5 and the HELM paired-core table);
the book's chapter "Routing to a behavioural stand-in".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd

from blindspot.core.verdict import EXACT, LEVEL, STATISTICAL, Robustness, StatTest, Verdict, judge
from dkps.routing.evaluation import Difference
from dkps.routing.unpairing import REGIMES

__all__ = [
    "Part",
    "FINDINGS",
    "HELM",
    "CORRELATION_LIMIT",
    "FLAT_SHARE",
    "FACT_KEEPS",
    "PROFILE_SHARE",
    "claimed_gain",
    "seed_test",
    "premise",
    "family_p_value",
    "premise_absent",
    "premise_word",
    "matches_task",
    "beats_static",
    "profile_worse",
    "profile_near_random",
    "identity",
    "fact_keeps_gain",
    "rf_starves",
    "residual",
    "flat_optimum",
    "cv_lands",
    "no_low_dim",
    "score_pairwise",
    "routing_parts",
    "word",
    "explain",
    "record",
]

#: What each finding says, in the original's words (the README's headings).
FINDINGS = {
    "F1": "label-free query-aware routing matches the task-labelled router and beats static DKPS",
    "F2": "a leaderboard cannot pick a behavioural stand-in",
    "F3": "the pairing story replays at the routing level",
    "F4": "the gap to the oracle is structural, not tunable",
    "F5": "score agreement is pairwise",
    "F6": "per-query contracts need per-query predictors",
    "ladder": "the confidence ladder orders pd-cal above pairdev above qa",
    "hyp": "on fully paired data pd-cal's lead over pairdev vanishes (the book's hypothesis)",
}
#: The README's HELM paired-core table (mean mimicry error, 5 seeds): the size of the claims of findings 1 and 2.
HELM = {"qa": 0.295, "task": 0.299, "static": 0.342, "profile": 0.402, "random": 0.519, "oracle": 0.089}
#: |residual correlation| below which near and far query pairs count as uncorrelated (finding 4).
CORRELATION_LIMIT = 0.05
#: Largest spread of qa's error over the bandwidths 0.125..1, as a share of static - oracle, that is "flat".
FLAT_SHARE = 0.10
#: Share of the paired router's gain over random the factorised router must keep (finding 3).
FACT_KEEPS = 0.70
#: Share of the way from static to random the profile router must lie (finding 2: "closer to random").
PROFILE_SHARE = 0.25
#: Method names a sentence may start with, kept in lower case ("pd-cal", not "Pd-cal").
_METHOD_NAMES = frozenset({"pd-cal", "pairdev", "qa", "rf", "rf-sq"})


class Alternative(Protocol):
    """One grouping of a suite's queries the protocol could have used, measured (duck-typed: see
    :class:`blindspot.perspective.routing_study.GroupingRun`)."""

    name: str
    qa_minus_static: Difference
    profile_share: Difference | None


@dataclass(frozen=True)
class Part:
    """One statement of a finding, with its verdict.

    Attributes
    ----------
    key : str
        ``'<finding>.<part>'``, e.g. ``'F1.beats_static'``.
    statement : str
        The statement in words.
    words : {'original', 'restatement'}
        The README's own words made testable, or the book's restatement (a threshold or an order it adds).
    verdict : Verdict
        Whether it holds (None: not resolved at 95%), the evidence, the basis, test and robustness.
    premise_absent : str
        Empty when the statement is testable; else the measured reason it is not.
    """

    key: str
    statement: str
    words: str
    verdict: Verdict
    premise_absent: str = ""

    @property
    def finding(self) -> str:
        """The finding this part belongs to (``'F1'``, ..., ``'ladder'``, ``'hyp'``)."""
        return self.key.split(".", 1)[0]

    @property
    def holds(self) -> bool | None:
        """The verdict's ``holds``."""
        return self.verdict.holds

    @property
    def evidence(self) -> str:
        """The verdict's evidence."""
        return self.verdict.evidence


def _f(x: float) -> str:
    return f"{x:.4f}"


def _exact(holds: bool, evidence: str) -> Verdict:
    return Verdict(bool(holds), evidence, basis=EXACT)


# -- the statistical pieces --------------------------------------------------------------------------------
def claimed_gain(table) -> float:
    """The gain of qa over static the original reports on HELM, put on this suite's scale.

    The README's HELM table has qa 0.295 against static 0.342, between random 0.519 and oracle 0.089
    (:data:`HELM`): qa's gain over static is ``(0.342 - 0.295) / (0.519 - 0.089) = 10.9%`` of the bracket
    between a random candidate and the hindsight-best one. The same share of this suite's ``random - oracle`` is
    the gain of the size the original reports, the ``claimed_effect`` of :func:`beats_static` (a MiniLM error
    scale is not HELM's Gemini-and-one-hot one, so the share of the bracket, not the value, is carried over).

    Parameters
    ----------
    table : DataFrame
        A mimicry table (:func:`dkps.routing.evaluation.mimicry_table`) with ``random`` and ``oracle`` rows.

    Returns
    -------
    float
        ``(HELM static - HELM qa) / (HELM random - HELM oracle) * (random - oracle)``.
    """
    e = table.set_index("method").error
    return (HELM["static"] - HELM["qa"]) / (HELM["random"] - HELM["oracle"]) * float(e["random"] - e["oracle"])


def seed_test(d: Difference, what: str) -> StatTest:
    """A seed-paired t-interval as the :class:`~blindspot.core.verdict.StatTest` of a verdict.

    Parameters
    ----------
    d : Difference
        :meth:`dkps.routing.mimicry_study.MimicryStudy.difference` (or ``profile_share``).
    what : str
        The quantity in words (``'qa-0.25x - static'``).

    Returns
    -------
    StatTest

    Raises
    ------
    ValueError
        Fewer than two seeds (no interval).
    """
    if not (math.isfinite(d.lo) and math.isfinite(d.hi)):
        raise ValueError(f"{what}: a statistical verdict needs at least two seeds (got {d.n_seeds})")
    return StatTest(f"{what}, t-interval across {d.n_seeds} split seeds", estimate=d.mean, interval=(d.lo, d.hi))


def family_p_value(contrasts: Mapping[str, object]) -> float:
    r"""The family-wise permutation p-value of the largest standardised excess over the groupings (max-T).

    With :math:`Z_{g,b} = (T_{g,b} - \bar T_g) / s_g` the null excesses of grouping :math:`g` standardised by
    their own mean and spread, :math:`p = (1 + \#\{b: \max_g Z_{g,b} \ge \max_g Z_g\}) / (1 + B)`. The
    groupings' nulls must be aligned permutation by permutation (the same seed and queries, as
    :func:`dkps.routing.diagnostics.agreement_against_random_groups` draws them), so the dependence between
    groupings is kept (Westfall and Young 1993, *Resampling-Based Multiple Testing*, Wiley).

    Parameters
    ----------
    contrasts : mapping of str to GroupingContrast
        Nulls of equal length.

    Returns
    -------
    float
    """
    nulls = np.array([c.null for c in contrasts.values()])
    mu, sd = nulls.mean(axis=1, keepdims=True), nulls.std(axis=1, ddof=1, keepdims=True)
    sd = np.where(sd > 0, sd, 1.0)
    z_null = ((nulls - mu) / sd).max(axis=0)
    z_obs = float(np.max((np.array([c.excess for c in contrasts.values()]) - mu[:, 0]) / sd[:, 0]))
    return float((1 + np.sum(z_null >= z_obs - 1e-12)) / (1 + z_null.size))


def premise(contrasts: Mapping[str, object]) -> Verdict:
    """The premise of query-aware routing, router-free: does some grouping of the queries carry behaviour?

    For each grouping the protocol considers (a suite's task labels; on a suite without labels, its query
    clusters and their alternatives), ``within - between`` nearest-model agreement is tested against random
    groupings of the same sizes (:func:`dkps.routing.diagnostics.agreement_against_random_groups`). No
    router's error enters. The premise is **absent** only where *every* grouping's excess lies inside its
    permutation null at 95% (one-sided p >= 0.05): an absent premise excuses a failed statement, so the
    excuse needs the absence under each reasonable grouping; a single grouping above its null keeps the
    premise. The family-wise max-T p-value (:func:`family_p_value`) is reported beside it.

    Parameters
    ----------
    contrasts : mapping of str to GroupingContrast
        One per grouping, the chapter's own first.

    Returns
    -------
    Verdict
        Statistical; ``holds`` is whether the premise is present; the test is the grouping with the smallest
        p-value.

    Raises
    ------
    ValueError
        No grouping.
    """
    if not contrasts:
        raise ValueError("the premise needs at least one grouping's contrast")
    g = len(contrasts)
    best = min(contrasts, key=lambda n: contrasts[n].p_value)
    c = contrasts[best]
    present = [n for n, x in contrasts.items() if x.p_value < 1 - LEVEL]
    family = family_p_value(contrasts) if g > 1 else c.p_value
    lo, hi = c.null_interval
    test = StatTest(
        f"permutation test of within - between nearest-model agreement against {c.null.size} random groupings of "
        f"the same sizes ({best}, the smallest of {g} grouping(s)' p-values)",
        estimate=c.excess,
        p_value=c.p_value,
    )
    rows = "; ".join(
        f"{n}: {100 * x.within:.1f}% / {100 * x.between:.1f}% (random groups {100 * np.mean(x.null_within):.1f}% / "
        f"{100 * np.mean(x.null_between):.1f}%, p = {x.p_value:.3f})"
        for n, x in contrasts.items()
    )
    evidence = (
        f"a target's nearest model agrees within / between groups: {rows}; above the random groups' 95% in "
        f"{len(present)} of {g} grouping(s) (for {best}: {c.excess:+.3f} against [{lo:+.3f}, {hi:+.3f}])"
        + (f"; family-wise over the {g} groupings (max-T) p = {family:.3f}" if g > 1 else "")
    )
    return Verdict(bool(present), evidence, basis=STATISTICAL, test=test)


def premise_absent(premise_verdict: Verdict) -> str:
    """The measured reason query-aware routing has nothing to find on a suite, or '' when it has.

    Parameters
    ----------
    premise_verdict : Verdict
        :func:`premise`.

    Returns
    -------
    str
    """
    if premise_verdict.holds:
        return ""
    return (
        "under no grouping of the queries does a target's nearest model agree within groups more than random "
        f"groups of the same sizes do ({premise_verdict.evidence})"
    )


def premise_word(premise_verdict: Verdict) -> str:
    """``'present'`` or ``'absent'`` (:func:`premise`)."""
    return "present" if premise_verdict.holds else "absent"


def _robustness(own: bool | None, outcomes: Mapping[str, bool | None], alternatives: str) -> Robustness:
    """Held in how many of ``outcomes`` (the chapter's own among them), and which differ from ``own``."""
    held = sum(v is True for v in outcomes.values())
    flips = tuple(n for n, v in outcomes.items() if v is not own)
    return Robustness(held, len(outcomes), alternatives, flips)


def _words(v: bool | None) -> str:
    return "holds" if v is True else "fails" if v is False else "not resolved"


# -- finding 1 ------------------------------------------------------------------------------------------------
def matches_task(study, group: str = "task-labelled") -> Part:
    """F1.matches_task: qa's shortfall against the group router is smaller than the gain at stake.

    Read as non-inferiority: the 95% interval of ``qa-0.25x - group`` lies below :func:`claimed_gain` (qa is
    not worse than the group router by as much as the gain the original attributes to localisation).

    Parameters
    ----------
    study : MimicryStudy
        :func:`dkps.routing.mimicry_study.run_mimicry_study`.
    group : str
        The group router's name: ``'task-labelled'``, or ``'query-cluster'`` on a suite without labels
        (then both routers are label-free, which the statement says).

    Returns
    -------
    Part
    """
    d = study.difference("qa-0.25x", "task")
    margin = claimed_gain(study.table)
    test = seed_test(d, f"qa-0.25x - {group} router")
    e = study.table.set_index("method").error
    label_free = group != "task-labelled"
    statement = f"label-free routing matches the {group} router" + (
        " (two label-free routers: it says nothing about task labels)" if label_free else ""
    )
    return Part(
        "F1.matches_task",
        statement,
        "original",
        Verdict(
            judge(test, "<", margin),
            f"qa-0.25x {_f(e['qa-0.25x'])}, {group} {_f(e['task'])}; qa - {group} {d} (matches: the interval below "
            f"the gain at stake, {margin:.4f})"
            + ("; the groups are query clusters, not task labels" if label_free else ""),
            basis=STATISTICAL,
            test=test,
        ),
    )


def beats_static(study, premise_verdict: Verdict, alternatives: Sequence[Alternative] = (), *, what: str = "") -> Part:
    """F1.beats_static: the 95% interval of ``qa-0.25x - static`` lies below 0.

    Judged by :func:`~blindspot.core.verdict.judge` with the gain the original reports on HELM
    (:func:`claimed_gain`) as the claimed effect: the claim fails only where the interval lies above 0 and the
    test could detect that gain. Its premise is :func:`premise` (router-free). With ``alternatives`` (the
    groupings the protocol could have used; their splits are stratified by their groups), the verdict carries
    its robustness across them.

    Parameters
    ----------
    study : MimicryStudy
    premise_verdict : Verdict
        :func:`premise` of the suite.
    alternatives : sequence of GroupingRun, optional
        The chapter's grouping first, then the alternatives.
    what : str
        What was varied, in words (for the robustness).

    Returns
    -------
    Part
    """
    d = study.difference("qa-0.25x", "static")
    gain = claimed_gain(study.table)
    test = seed_test(d, "qa-0.25x - static")
    holds = judge(test, "<", 0.0, claimed_effect=gain)
    e = study.table.set_index("method").error
    excluded = "excluded" if d.lo > -gain else "not excluded"
    evidence = (
        f"qa-0.25x {_f(e['qa-0.25x'])}, static {_f(e['static'])}; qa - static {d}; a gain of the size the original "
        f"reports on HELM ({gain:.4f} on this scale) is {excluded}; "
        f"{study.premise['n_eff']:.0f} of {study.premise['anchors']} anchors effectively used at 0.25x"
    )
    robust = None
    if alternatives:
        out = {
            a.name: judge(seed_test(a.qa_minus_static, "qa - static"), "<", 0.0, claimed_effect=gain)
            for a in alternatives
        }
        robust = _robustness(holds, out, what or ", ".join(out))
        evidence += "; across groupings: " + ", ".join(
            f"{a.name} {a.qa_minus_static} ({_words(out[a.name])})" for a in alternatives
        )
    return Part(
        "F1.beats_static",
        "label-free routing beats static DKPS",
        "restatement",
        Verdict(holds, evidence, basis=STATISTICAL, test=test, robustness=robust),
        premise_absent(premise_verdict),
    )


# -- finding 2 ------------------------------------------------------------------------------------------------
def profile_worse(study) -> Part:
    """F2.profile_worse: the 95% interval of ``static - profile`` lies below 0 (the leaderboard router is worse)."""
    d = study.difference("static", "profile")
    test = seed_test(d, "static - profile")
    e = study.table.set_index("method").error
    return Part(
        "F2.profile_worse",
        "the leaderboard (score-profile) router is clearly worse than static DKPS",
        "original",
        Verdict(
            judge(test, "<", 0.0),
            f"profile {_f(e['profile'])}, static {_f(e['static'])}; static - profile {d} (needs the interval below 0)",
            basis=STATISTICAL,
            test=test,
        ),
    )


def profile_near_random(study, alternatives: Sequence[Alternative] = (), *, what: str = "") -> Part:
    """F2.profile_near_random: ``(profile - static) / (random - static)`` above :data:`PROFILE_SHARE`.

    The share per seed (:meth:`dkps.routing.mimicry_study.MimicryStudy.profile_share`) with its t-interval;
    with ``alternatives`` (groupings that give the profile its columns), the robustness across them, and the
    count of groupings whose point estimate falls short (a borderline share shows as such).

    Parameters
    ----------
    study : MimicryStudy
    alternatives : sequence of GroupingRun, optional
    what : str
        What was varied, in words.

    Returns
    -------
    Part
    """
    s = study.profile_share()
    test = seed_test(s, "(profile - static) / (random - static)")
    holds = judge(test, ">", PROFILE_SHARE)
    e = study.table.set_index("method").error
    evidence = f"(profile - static) / (random - static) = {s} against {PROFILE_SHARE} (random {_f(e['random'])})"
    robust = None
    alts = [a for a in alternatives if a.profile_share is not None]
    if alts:
        out = {a.name: judge(seed_test(a.profile_share, "share"), ">", PROFILE_SHARE) for a in alts}
        short = [a.name for a in alts if a.profile_share.mean <= PROFILE_SHARE]
        robust = _robustness(holds, out, what or ", ".join(out))
        evidence += (
            "; across groupings: "
            + ", ".join(f"{a.name} {a.profile_share.mean:.3f}" for a in alts)
            + f"; the point estimate is at or below {PROFILE_SHARE} in {len(short)} of {len(alts)}"
            + (f" ({', '.join(short)})" if short else "")
        )
    return Part(
        "F2.profile_near_random",
        f"the profile router lies at least {PROFILE_SHARE:.0%} of the way from static to random",
        "restatement",
        Verdict(holds, evidence, basis=STATISTICAL, test=test, robustness=robust),
    )


# -- finding 3 ------------------------------------------------------------------------------------------------
def identity(study) -> Part:
    """F3.identity: on paired data rf-sq's picks equal qa-0.25x's on every decision of the first seed (exact)."""
    same = bool(study.rf_identity)
    return Part(
        "F3.identity",
        "on paired data the regression of the squared error routes exactly as qa",
        "restatement",
        _exact(
            same,
            f"rf-sq picks {'equal' if same else 'differ from'} qa-0.25x's on every decision of seed {study.seeds[0]}",
        ),
    )


def fact_keeps_gain(study) -> Part:
    """F3.fact_keeps_gain: with independent caches, gain(qa-fact) / gain(qa-paired) >= :data:`FACT_KEEPS`."""
    u = study.unpairing.set_index(["regime", "method"])
    ratio = float(u.loc[("independent", "qa-fact"), "gain_ratio"])
    overlap = float(u.loc[("independent", "qa-fact"), "overlap"])
    return Part(
        "F3.fact_keeps_gain",
        f"with independent caches the factorised router keeps at least {FACT_KEEPS:.0%} of the paired gain",
        "restatement",
        _exact(
            ratio >= FACT_KEEPS,
            f"gain(qa-fact) / gain(qa-paired) = {ratio:.2f} with {overlap:.1f} shared anchors per pair "
            "(gain = error(random) - error)",
        ),
    )


def rf_starves(study) -> Part:
    """F3.rf_starves: gain(rf) / gain(qa-paired) does not rise from aligned to independent to disjoint caches."""
    u = study.unpairing.set_index(["regime", "method"])
    rf = [float(u.loc[(g, "rf"), "gain_ratio"]) for g in REGIMES]
    return Part(
        "F3.rf_starves",
        "the pair regression loses its gain as the caches stop overlapping",
        "original",
        _exact(
            rf[0] >= rf[1] >= rf[2],
            f"gain(rf) / gain(qa-paired): aligned {rf[0]:.2f}, independent {rf[1]:.2f}, disjoint {rf[2]:.2f}",
        ),
    )


# -- finding 4 ------------------------------------------------------------------------------------------------
def residual(study) -> Part:
    """F4.residual: |near| and |far| residual correlation below :data:`CORRELATION_LIMIT` at every query dimension."""
    res = study.residual
    corr = ", ".join(f"d={int(r.dim)}: near {r.near:+.3f} far {r.far:+.3f}" for r in res.itertuples())
    finite = bool(np.isfinite(res.near).all() and np.isfinite(res.far).all()) if len(res) else False
    small = finite and bool((res.near.abs() < CORRELATION_LIMIT).all() and (res.far.abs() < CORRELATION_LIMIT).all())
    return Part(
        "F4.residual",
        "beyond the task mean, the error surfaces of nearby and distant queries are uncorrelated",
        "restatement",
        _exact(
            small, f"residual correlation {corr or 'not computed (tasks too small)'} (needs |.| < {CORRELATION_LIMIT})"
        ),
        "" if finite else "no task has enough queries for the residual correlation",
    )


def flat_optimum(study) -> Part:
    """F4.flat_optimum: qa's spread over the bandwidths 0.125-1 is at most :data:`FLAT_SHARE` of static - oracle."""
    b = study.bandwidth_spread()
    return Part(
        "F4.flat_optimum",
        "qa's error is flat across the bandwidths 0.125-1 x the median",
        "restatement",
        _exact(
            b["spread"] <= FLAT_SHARE * b["gap"],
            f"spread {_f(b['spread'])} ({100 * b['spread'] / b['gap']:.1f}% of static - oracle {_f(b['gap'])}; needs at "
            f"most {FLAT_SHARE:.0%}); " + ", ".join(f"qa-{f:g}x {_f(v)}" for f, v in b["grid"].items()),
        ),
    )


def cv_lands(study) -> Part:
    """F4.cv_lands: cv-global's median fraction is within one factor-2 step of the best fixed bandwidth."""
    grid = study.bandwidth_spread()["grid"]
    best = min(grid, key=grid.get)
    cv_f = study.cv_fractions()
    steps = float(np.median(np.abs(np.log2(cv_f / best))))
    return Part(
        "F4.cv_lands",
        "cross-validation lands on the best fixed bandwidth (within one factor-2 step)",
        "original",
        _exact(
            steps <= 1 + 1e-9,
            f"best fixed f = {best:g}, cv-global median f = {np.median(cv_f):g} ({steps:.1f} steps away)",
        ),
    )


def no_low_dim(study) -> Part:
    """F4.no_low_dim: no PCA-reduced query space routes with a lower mean error than the full one."""
    qd = study.query_dims.sort_values("dim")
    full = float(qd.error.iloc[-1])
    wins = bool((qd.error.iloc[:-1] < full - 1e-12).any()) if len(qd) > 1 else False
    return Part(
        "F4.no_low_dim",
        "a low-dimensional query space does not route better than the full one",
        "original",
        _exact(
            not wins,
            "query PCA, best bandwidth each: " + ", ".join(f"d={int(r.dim)}: {_f(r.error)}" for r in qd.itertuples()),
        ),
    )


# -- finding 5 ------------------------------------------------------------------------------------------------
def score_pairwise(study) -> Part:
    """F5.score_pairwise: rfS routes judge-score disagreement better than shat, localised and by task."""
    sd = study.score_disagreement.mean(numeric_only=True)
    return Part(
        "F5.score_pairwise",
        "for judge-score disagreement, the pair's own history routes better than factorised score estimates",
        "original",
        _exact(
            sd["rfS-0.25x"] < sd["shat-0.25x"] and sd["rfS-task"] < sd["shat-task"],
            f"mean |s_pick - s_target| over decisions ({len(study.results)} seeds): rfS-0.25x {_f(sd['rfS-0.25x'])} vs "
            f"shat-0.25x {_f(sd['shat-0.25x'])}; rfS-task {_f(sd['rfS-task'])} vs shat-task {_f(sd['shat-task'])}; "
            f"qa-0.25x {_f(sd['qa-0.25x'])}, random {_f(sd['random'])}, oracle {_f(sd['oracle'])}",
        ),
    )


def routing_parts(
    study,
    premise_verdict: Verdict,
    *,
    group: str = "task-labelled",
    alternatives: Sequence[Alternative] = (),
    what: str = "",
) -> list[Part]:
    """Findings 1-5 split into their parts, each judged on one mimicry study.

    Parameters
    ----------
    study : MimicryStudy
        :func:`dkps.routing.mimicry_study.run_mimicry_study` (findings 3-5 need ``diagnose=True``; without its
        diagnostics only findings 1 and 2 are judged).
    premise_verdict : Verdict
        :func:`premise` of the suite.
    group : str, default='task-labelled'
        The group router's name (``'query-cluster'`` on a suite without labels).
    alternatives : sequence of GroupingRun, optional
        The groupings the protocol could have used (the chapter's own first): findings 1 and 2's robustness.
    what : str
        What the alternatives vary, in words.

    Returns
    -------
    list of Part
        ``F1.matches_task``, ``F1.beats_static``, ``F2.profile_worse`` and ``F2.profile_near_random`` (a suite
        with scores), then ``F3.*``, ``F4.*`` and ``F5.score_pairwise`` (with diagnostics).

    Raises
    ------
    ValueError
        A table without the methods of finding 1, or fewer than two seeds.
    """
    t = study.table.set_index("method")
    for m in ("qa-0.25x", "task", "static", "random", "oracle"):
        if m not in t.index:
            raise ValueError(f"the mimicry table has no {m!r}; findings 1-5 need it")
    parts = [matches_task(study, group), beats_static(study, premise_verdict, alternatives, what=what)]
    if "profile" in t.index:
        parts += [profile_worse(study), profile_near_random(study, alternatives, what=what)]
    if study.rf_identity is None:
        return parts
    parts += [f(study) for f in (identity, fact_keeps_gain, rf_starves, residual, flat_optimum, cv_lands, no_low_dim)]
    if len(study.score_disagreement):
        parts.append(score_pairwise(study))
    return parts


# -- words and the ledger ------------------------------------------------------------------------------------
def word(part: Part) -> str:
    """``'holds'``, ``'does not hold'``, ``'not resolved at 95%'``, or ``'not testable here'`` (it does not hold
    and its premise is absent)."""
    if part.holds is None:
        return "not resolved at 95%"
    if part.holds:
        return "holds"
    return "not testable here" if part.premise_absent else "does not hold"


def explain(parts: Sequence[Part]) -> dict[str, str]:
    """Each part in a sentence for a reader: the statement, its verdict, the numbers and the test behind it.

    Parameters
    ----------
    parts : sequence of Part

    Returns
    -------
    dict
        ``{part.key: sentence}``, and ``{finding: sentence}`` for each finding present.
    """
    out: dict[str, str] = {}
    for p in parts:
        v = word(p)
        first = p.statement.split(" ", 1)[0].rstrip(",")
        lead = p.statement if first in _METHOD_NAMES else f"{p.statement[0].upper()}{p.statement[1:]}"
        text = f"{lead}: {v}"
        text += (
            f", because {p.premise_absent}. The numbers: {p.evidence}."
            if v == "not testable here"
            else f" ({p.evidence})."
        )
        if p.verdict.test is not None and p.verdict.basis == STATISTICAL:
            text += f" Test: {p.verdict.test.words()}."
        if p.verdict.robustness is not None:
            text += f" Robustness: {p.verdict.robustness.words()}."
        if p.words == "restatement":
            text += " The threshold or order is the book's restatement, not the original's words."
        out[p.key] = text
    for f in dict.fromkeys(p.finding for p in parts):
        said = "; ".join(f"{p.statement} -- {word(p)}" for p in parts if p.finding == f)
        head = FINDINGS.get(f, f)
        out[f] = f"{head[0].upper()}{head[1:]}. In parts: {said}."
    return out


def record(ledger, parts: Sequence[Part], prefix: str, data=None) -> pd.DataFrame:
    """Record every part in a chapter's ledger (:meth:`blindspot.book.ledger.Ledger.verdict`).

    Parameters
    ----------
    ledger : Ledger
    parts : sequence of Part
    prefix : str
        The claims' id prefix (``'RT.'``, ``'RT.arena.'``).
    data : ScoreTable or list, optional
        The table the parts were computed from (the synthetic stand-in's, so the ledger knows).

    Returns
    -------
    DataFrame
        Indexed by claim id: ``words`` (original or restatement), ``status``, ``basis`` and ``robustness``.
    """
    rows = {}
    for p in parts:
        c = ledger.verdict(prefix + p.key, p.verdict, data=data, premise_absent=p.premise_absent)
        rows[c.id] = dict(words=p.words, status=c.status, basis=c.basis, robustness=c.robustness)
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("claim")
