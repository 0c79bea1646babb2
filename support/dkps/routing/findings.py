"""The routing work's findings, split into the statements they are made of, each judged on its own.

The query-aware routing README of the dkps repository states six findings and a ladder of confidence
estimators. Each is several statements at once ("label-free routing matches task-labelled routing
*and* beats static DKPS"); a verdict on the whole hides which part failed. Here each finding is cut
into :class:`Part` s, each with

- its statement in words, and whether that is the **original**'s own words (made testable with the
  least reading) or the book's **restatement** (a threshold or an order the README does not state);
- whether it holds on the computed numbers, and the evidence (the numbers that decide it);
- where the statement needs something of the data to be testable at all -- its **premise** -- the
  measured reason it is absent (e.g. *the task-labelled router does not beat static DKPS*): such a
  part that does not hold is *not testable here*, not a failure of the finding.

:func:`routing_parts` judges findings 1-5 from a :class:`dkps.routing.mimicry_study.MimicryStudy`,
:func:`offloading_parts` finding 6, the ladder and the paired-data hypothesis from a gate sweep, and
:func:`explain` says each part in a sentence for a reader. Thresholds are module constants, the same
on every suite.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .evaluation import Difference, paired_difference
from .localization_bandwidth import FRACTIONS
from .offload import CONSTANT_POLICIES
from .offload_study import gate_summary, volume_contrast
from .unpairing import REGIMES

__all__ = [
    "Part",
    "FINDINGS",
    "CORRELATION_LIMIT",
    "FLAT_SHARE",
    "FACT_KEEPS",
    "PROFILE_SHARE",
    "premise_absent",
    "premise_word",
    "routing_parts",
    "offloading_parts",
    "explain",
    "verdict",
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


@dataclass(frozen=True)
class Part:
    """One statement of a finding, judged.

    Attributes
    ----------
    key : str
        ``'<finding>.<part>'``, e.g. ``'F1.beats_static'``.
    statement : str
        The statement in words.
    words : {'original', 'restatement'}
        The README's own words made testable, or the book's restatement (a threshold or an order it adds).
    holds : bool
        Whether the statement holds on the computed numbers.
    evidence : str
        The numbers that decide it.
    premise_absent : str
        Empty when the statement is testable; else the measured reason it is not (a part that does not
        hold is then *not testable here*).
    """

    key: str
    statement: str
    words: str
    holds: bool
    evidence: str
    premise_absent: str = ""

    @property
    def finding(self) -> str:
        """The finding this part belongs to (``'F1'``, ..., ``'ladder'``, ``'hyp'``)."""
        return self.key.split(".", 1)[0]


def verdict(part: Part) -> str:
    """``'holds'``, ``'does not hold'``, or ``'not testable here'`` (it does not hold and its premise is absent).

    Parameters
    ----------
    part : Part
        A judged statement.

    Returns
    -------
    str
    """
    if part.holds:
        return "holds"
    return "not testable here" if part.premise_absent else "does not hold"


def premise_absent(premise: dict, group: str = "task-labelled") -> str:
    """The measured reason query-aware routing cannot beat static on a suite, or '' when it can.

    The premise holds when the router *given* each query's group (``group``: the task labels, or query
    clusters) beats static DKPS, its error difference's 95% interval across seeds below 0.

    Parameters
    ----------
    premise : dict
        :func:`dkps.routing.diagnostics.premise_measures`.
    group : str
        How the page names the groups' router.

    Returns
    -------
    str
        '' when the premise holds, else a clause naming the measurement.
    """
    d: Difference = premise["group_minus_static"]
    if d.below_zero:
        return ""
    return (
        f"the {group} router does not beat static DKPS ({group} - static {d}), and a target's nearest model "
        f"agrees between halves of one group {100 * premise['within']:.1f}% of the time against "
        f"{100 * premise['between']:.1f}% between groups"
    )


def premise_word(premise: dict) -> str:
    """``'present'`` when the group router beats static DKPS (:func:`premise_absent` is empty), else ``'absent'``.

    Parameters
    ----------
    premise : dict
        :func:`dkps.routing.diagnostics.premise_measures`.

    Returns
    -------
    str
    """
    return "absent" if premise_absent(premise) else "present"


def _fmt(x: float) -> str:
    return f"{x:.4f}"


def routing_parts(study, *, group: str = "task-labelled") -> list[Part]:
    """Findings 1-5 split into their parts, judged on one mimicry study.

    Parameters
    ----------
    study : MimicryStudy
        :func:`dkps.routing.mimicry_study.run_mimicry_study` (findings 3-5 need ``diagnose=True``; without its
        diagnostics only the parts of findings 1 and 2 are returned).
    group : str, default='task-labelled'
        The name of the group router (``'query-cluster'`` on a suite without labels).

    Returns
    -------
    list of Part
        ``F1.matches_task``, ``F1.beats_static``, ``F2.profile_worse``, ``F2.profile_near_random`` (when the
        suite has scores), then ``F3.identity``, ``F3.fact_keeps_gain``, ``F3.rf_starves``,
        ``F4.residual``, ``F4.flat_optimum``, ``F4.cv_lands``, ``F4.no_low_dim`` and ``F5.score_pairwise``.

    Raises
    ------
    ValueError
        A study whose table lacks the methods of finding 1.

    References
    ----------
    The query-aware routing README of the dkps repository, findings 1-5; the book's chapter "Routing to a
    behavioural stand-in".
    """
    t = study.table.set_index("method")
    for m in ("qa-0.25x", "task", "static", "random", "oracle"):
        if m not in t.index:
            raise ValueError(f"the mimicry table has no {m!r}; findings 1-5 need it")
    e, se = t.error, t.se
    parts = []
    qt = paired_difference(study.results, "qa-0.25x", "task")
    qs = paired_difference(study.results, "qa-0.25x", "static")
    parts.append(
        Part(
            "F1.matches_task",
            f"label-free routing matches the {group} router",
            "original",
            bool(e["qa-0.25x"] <= e["task"] + se["qa-0.25x"]),
            f"qa-0.25x {_fmt(e['qa-0.25x'])} ± {_fmt(se['qa-0.25x'])}, {group} {_fmt(e['task'])} "
            f"({len(study.results)} seeds); qa - {group} {qt}",
        )
    )
    parts.append(
        Part(
            "F1.beats_static",
            "label-free routing beats static DKPS",
            "restatement",
            qs.below_zero,
            f"qa-0.25x {_fmt(e['qa-0.25x'])}, static {_fmt(e['static'])}; qa - static {qs} (needs the interval "
            f"below 0); best bandwidth {min((f'qa-{f:g}x' for f in FRACTIONS), key=lambda m: e[m])}; "
            f"{study.premise['n_eff']:.0f} of {study.premise['anchors']} anchors effectively used at 0.25x",
            premise_absent(study.premise, group),
        )
    )
    if "profile" in t.index:
        sp = paired_difference(study.results, "static", "profile")
        share = (e["profile"] - e["static"]) / (e["random"] - e["static"])
        parts.append(
            Part(
                "F2.profile_worse",
                "the leaderboard (score-profile) router is clearly worse than static DKPS",
                "original",
                sp.below_zero,
                f"profile {_fmt(e['profile'])}, static {_fmt(e['static'])}; static - profile {sp} (needs the "
                "interval below 0)",
            )
        )
        parts.append(
            Part(
                "F2.profile_near_random",
                f"the profile router lies at least {PROFILE_SHARE:.0%} of the way from static to random",
                "restatement",
                bool(share > PROFILE_SHARE),
                f"(profile - static) / (random - static) = {share:.2f} (random {_fmt(e['random'])})",
            )
        )
    if study.rf_identity is None:
        return parts
    u = study.unpairing.set_index(["regime", "method"])
    ratio_fact = float(u.loc[("independent", "qa-fact"), "gain_ratio"])
    rf = [float(u.loc[(g, "rf"), "gain_ratio"]) for g in REGIMES]
    overlap = float(u.loc[("independent", "qa-fact"), "overlap"])
    parts.append(
        Part(
            "F3.identity",
            "on paired data the regression of the squared error routes exactly as qa",
            "restatement",
            bool(study.rf_identity),
            f"rf-sq picks {'equal' if study.rf_identity else 'differ from'} qa-0.25x's on every decision of seed "
            f"{study.results[0].seed}",
        )
    )
    parts.append(
        Part(
            "F3.fact_keeps_gain",
            f"with independent caches the factorised router keeps at least {FACT_KEEPS:.0%} of the paired gain",
            "restatement",
            bool(ratio_fact >= FACT_KEEPS),
            f"gain(qa-fact) / gain(qa-paired) = {ratio_fact:.2f} with {overlap:.1f} shared anchors per pair "
            "(gain = error(random) - error)",
        )
    )
    parts.append(
        Part(
            "F3.rf_starves",
            "the pair regression loses its gain as the caches stop overlapping",
            "original",
            bool(rf[0] >= rf[1] >= rf[2]),
            f"gain(rf) / gain(qa-paired): aligned {rf[0]:.2f}, independent {rf[1]:.2f}, disjoint {rf[2]:.2f}",
        )
    )
    res = study.residual
    corr = ", ".join(f"d={int(r.dim)}: near {r.near:+.3f} far {r.far:+.3f}" for r in res.itertuples())
    finite = bool(np.isfinite(res.near).all() and np.isfinite(res.far).all()) if len(res) else False
    parts.append(
        Part(
            "F4.residual",
            "beyond the task mean, the error surfaces of nearby and distant queries are uncorrelated",
            "restatement",
            bool(finite and (res.near.abs() < CORRELATION_LIMIT).all() and (res.far.abs() < CORRELATION_LIMIT).all()),
            f"residual correlation {corr or 'not computed (tasks too small)'} (needs |.| < {CORRELATION_LIMIT})",
            "" if finite else "no task has enough queries for the residual correlation",
        )
    )
    grid = {f: float(e[f"qa-{f:g}x"]) for f in FRACTIONS[:4]}
    spread = max(grid.values()) - min(grid.values())
    gap = float(e["static"] - e["oracle"])
    parts.append(
        Part(
            "F4.flat_optimum",
            "qa's error is flat across the bandwidths 0.125-1 x the median",
            "restatement",
            bool(spread <= FLAT_SHARE * gap),
            f"spread {_fmt(spread)} ({100 * spread / gap:.1f}% of static - oracle {_fmt(gap)}; needs at most "
            f"{FLAT_SHARE:.0%}); " + ", ".join(f"qa-{f:g}x {_fmt(v)}" for f, v in grid.items()),
        )
    )
    best_f = min(grid, key=grid.get)
    cv_f = np.array([r.sigma_cv_global / r.med for r in study.results])
    steps = float(np.median(np.abs(np.log2(cv_f / best_f))))
    parts.append(
        Part(
            "F4.cv_lands",
            "cross-validation lands on the best fixed bandwidth (within one factor-2 step)",
            "original",
            bool(steps <= 1 + 1e-9),
            f"best fixed f = {best_f:g}, cv-global median f = {np.median(cv_f):g} ({steps:.1f} steps away)",
        )
    )
    qd = study.query_dims.sort_values("dim")
    full = float(qd.error.iloc[-1])
    wins = bool((qd.error.iloc[:-1] < full - 1e-12).any()) if len(qd) > 1 else False
    parts.append(
        Part(
            "F4.no_low_dim",
            "a low-dimensional query space does not route better than the full one",
            "original",
            not wins,
            "query PCA, best bandwidth each: " + ", ".join(f"d={int(r.dim)}: {_fmt(r.error)}" for r in qd.itertuples()),
        )
    )
    if len(study.score_disagreement):
        sd = study.score_disagreement.mean(numeric_only=True)
        parts.append(
            Part(
                "F5.score_pairwise",
                "for judge-score disagreement, the pair's own history routes better than factorised score estimates",
                "original",
                bool(sd["rfS-0.25x"] < sd["shat-0.25x"] and sd["rfS-task"] < sd["shat-task"]),
                f"mean |s_pick - s_target| over decisions ({len(study.results)} seeds): rfS-0.25x {_fmt(sd['rfS-0.25x'])} vs shat-0.25x {_fmt(sd['shat-0.25x'])}; "
                f"rfS-task {_fmt(sd['rfS-task'])} vs shat-task {_fmt(sd['shat-task'])}; qa-0.25x {_fmt(sd['qa-0.25x'])}, "
                f"random {_fmt(sd['random'])}, oracle {_fmt(sd['oracle'])}",
            )
        )
    return parts


def _cell(summary: pd.DataFrame, method: str, q: float, alpha: float, rule: str, col: str = "volume") -> float:
    r = summary[(summary.method == method) & np.isclose(summary.q, q) & np.isclose(summary.alpha, alpha)]
    r = r[r.rule == rule]
    return float(r[col].iloc[0]) if len(r) else float("nan")


def offloading_parts(
    gates: pd.DataFrame,
    *,
    pool: str = "le13b",
    ladder_pools: tuple = ("le13b", "all"),
    pair_overlap: float = 1.0,
    q: float = 0.5,
    alpha: float = 0.10,
) -> list[Part]:
    """Finding 6, the ladder's order and the paired-data hypothesis, split into parts and judged.

    Finding 6 is judged in ``pool`` over every contract of the sweep where qa certifies a positive mean volume
    with a mean held-out violation within ``alpha + 2 SE`` across seeds (its premise: there must be such a
    contract); the ladder and the hypothesis at ε = the ``q`` quantile and ``alpha``, empirical rule, in
    ``ladder_pools``.

    Parameters
    ----------
    gates : DataFrame
        :func:`dkps.routing.offload_study.gate_sweep`'s frame.
    pool : str, default='le13b'
        The pool of finding 6.
    ladder_pools : tuple of str, default=('le13b', 'all')
        The pools of the ladder's order and of the hypothesis.
    pair_overlap : float, default=1.0
        :func:`dkps.routing.offload_study.pair_overlap` of the suite: pd-cal's lead over pairdev in the original
        is explained by pairdev's starvation on partly unpaired data (overlap below 1).
    q, alpha : float
        The ladder's contract.

    Returns
    -------
    list of Part
        ``F6.population``, ``F6.nothing_emp``, ``F6.nothing_ucb``, ``ladder.pdcal_over_pairdev``,
        ``ladder.pairdev_over_qa``, ``hyp.paired``.

    Raises
    ------
    ValueError
        A pool missing from ``gates``.

    References
    ----------
    The tolerance-gate table and the confidence ladder (``gap_close``) of the query-aware routing README of the
    dkps repository; the book's chapter "Offloading under a contract".
    """
    s = gate_summary(gates, pool)
    n_seeds = int(s.n_seeds.max())
    pol = s[(s.family == "policy") & s.feasible]
    qualifying: dict[str, list[tuple[float, float]]] = {}
    for rule in ("emp", "ucb"):
        cells = []
        for (qq, a), c in pol[pol.rule == rule].groupby(["q", "alpha"]):
            qa = c[c.method == "qa"]
            if qa.empty:
                continue
            qa = qa.iloc[0]
            se = qa.violation_sd / np.sqrt(n_seeds) if n_seeds > 1 and np.isfinite(qa.violation_sd) else 0.0
            if qa.volume > 0 and qa.violation <= a + 2 * se:
                cells.append((float(qq), float(a)))
        qualifying[rule] = cells
    const = pol[pol.method.isin(CONSTANT_POLICIES)]
    all_cells = sorted(set(qualifying["emp"]) | set(qualifying["ucb"]))
    pop_bad = []
    for qq, a in all_cells:
        c = const[np.isclose(const.q, qq) & np.isclose(const.alpha, a)].groupby("method").population_violation.mean()
        pop_bad += [f"{m} {v:.2f} at q{round(100 * qq)}/{a:.0%}" for m, v in c.items() if not v > a]
    none_txt = "qa certifies no contract within the budget, so the finding has no contract to stand on"
    parts = [
        Part(
            "F6.population",
            "where qa certifies traffic, every constant-confidence policy violates the tolerance more often than "
            "the budget",
            "original",
            bool(all_cells) and not pop_bad,
            f"{len(all_cells)} contract(s) where qa certifies within the budget; constant policies at or under "
            f"the budget there: {', '.join(pop_bad) or 'none'}",
            "" if all_cells else none_txt,
        )
    ]
    for rule, name in (("emp", "empirical"), ("ucb", "Clopper-Pearson")):
        cells = qualifying[rule]
        lucky = []
        for qq, a in cells:
            c = const[(const.rule == rule) & np.isclose(const.q, qq) & np.isclose(const.alpha, a)]
            lucky += [
                f"{r.method} {r.volume:.2f} at q{round(100 * qq)}/{a:.0%}" for r in c.itertuples() if r.volume > 0
            ]
        parts.append(
            Part(
                f"F6.nothing_{rule}",
                f"under the {name} rule, no constant-confidence policy certifies any traffic where qa does",
                "original",
                bool(cells) and not lucky,
                f"{len(cells)} contract(s) where qa certifies within the budget; mean volume certified by a constant "
                f"policy there: {', '.join(lucky) or 'none'}",
                "" if cells else none_txt,
            )
        )
    vol = {p: {m: _cell(gate_summary(gates, p), m, q, alpha, "emp") for m in ("pd-cal", "pairdev", "qa-fact")}
           for p in ladder_pools}  # fmt: skip
    vol_txt = "; ".join(
        f"{p}: pd-cal {v['pd-cal']:.2f}, pairdev {v['pairdev']:.2f}, qa {v['qa-fact']:.2f}" for p, v in vol.items()
    )
    where = f"volume at q{round(100 * q)}, alpha {alpha:.0%}: {vol_txt}"

    def silent(a: str, b: str) -> str:
        """An order of two estimators that both certify nothing says nothing: the pools where that happens."""
        empty = [p for p, v in vol.items() if not (v[a] > 0 or v[b] > 0)]
        return (f"neither {a} nor {b if b != 'qa-fact' else 'qa'} certifies any traffic at this contract in the "
                f"{' and '.join(empty)} pool") if empty else ""  # fmt: skip

    paired = pair_overlap >= 1 - 1e-12
    starved = (
        f"every anchor is answered by the flagship and every candidate (pair overlap {pair_overlap:.0%}) and the "
        "calibration sample is drawn from the same queries as the anchors, so pairdev is never starved, which is "
        "how the original explains pd-cal's lead"
    )
    gap1 = silent("pd-cal", "pairdev")
    parts.append(
        Part(
            "ladder.pdcal_over_pairdev",
            "pd-cal, a pair regression on a small calibration sample, certifies at least as much as pairdev on "
            "every anchor",
            "original",
            not gap1 and all(v["pd-cal"] >= v["pairdev"] for v in vol.values()),
            where,
            "; ".join(x for x in (gap1, starved if paired else "") if x),
        )
    )
    gap2 = silent("pairdev", "qa-fact")
    parts.append(
        Part(
            "ladder.pairdev_over_qa",
            "pairdev certifies at least as much as the factorised qa estimator",
            "original",
            not gap2 and all(v["pairdev"] >= v["qa-fact"] for v in vol.values()),
            where,
            gap2,
        )
    )
    hyp = {p: volume_contrast(gates, p, "pd-cal", "pairdev", q=q, alpha=alpha) for p in ladder_pools}
    starve = {p: volume_contrast(gates, p, "pd-cal", "pd30", q=q, alpha=alpha) for p in ladder_pools}
    parts.append(
        Part(
            "hyp.paired",
            "on fully paired data pd-cal does not certify more than pairdev (by more than 2 SE)",
            "restatement",
            not gap1 and all(not (m > 2 * se) for m, se, _ in hyp.values()),
            "; ".join(
                f"{p}: pd-cal - pairdev {m:+.3f} ± {se:.3f}, pd-cal - pd30 {starve[p][0]:+.3f} ± {starve[p][1]:.3f}"
                for p, (m, se, _) in hyp.items()
            ),
            gap1 or ("" if paired else f"the suite is not fully paired (pair overlap {pair_overlap:.0%})"),
        )
    )
    return parts


def explain(parts: list[Part]) -> dict[str, str]:
    """Each part in a sentence for a reader: the statement, its verdict, and the numbers behind it.

    Parameters
    ----------
    parts : list of Part
        From :func:`routing_parts` or :func:`offloading_parts`.

    Returns
    -------
    dict
        ``{part.key: sentence}``, and ``{finding: sentence}`` for each finding present (what it says in the
        original's words, then its parts' verdicts in words).

    References
    ----------
    The book's chapters "Routing to a behavioural stand-in" and "Offloading under a contract".
    """
    out: dict[str, str] = {}
    for p in parts:
        v = verdict(p)
        first = p.statement.split(" ", 1)[0].rstrip(",")
        lead = p.statement if first in _METHOD_NAMES else f"{p.statement[0].upper()}{p.statement[1:]}"
        text = f"{lead}: {v}"
        if v == "not testable here":
            text += f", because {p.premise_absent}. The numbers: {p.evidence}."
        else:
            text += f" ({p.evidence})."
        if p.words == "restatement":
            text += " The threshold or order is the book's restatement, not the original's words."
        out[p.key] = text
    for f in dict.fromkeys(p.finding for p in parts):
        mine = [p for p in parts if p.finding == f]
        said = "; ".join(f"{p.statement} -- {verdict(p)}" for p in mine)
        out[f] = f"{FINDINGS.get(f, f)[0].upper()}{FINDINGS.get(f, f)[1:]}. In parts: {said}."
    return out
