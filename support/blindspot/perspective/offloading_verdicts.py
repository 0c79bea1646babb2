"""Finding 6, the confidence ladder and the book's paired-data hypothesis, split into parts and judged.

The offloading chapter's verdicts, from a gate sweep (:func:`dkps.routing.offload_study.gate_sweep`):
``dkps`` measures the certified volumes, violations and seed-paired contrasts; the thresholds, the
premises and the words live here. Each function returns one :class:`~blindspot.perspective.routing_verdicts.Part`
whose verdict is exact: a statement over every contract of the sweep (a constant policy that certifies
traffic is a counterexample), or an order of mean volumes.

References
----------
The tolerance-gate table and the confidence ladder (``gap_close``) of the query-aware routing README of the
dkps repository; the book's chapter "Offloading under a contract".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from blindspot.core.verdict import EXACT, Verdict
from dkps.routing.offload import CONSTANT_POLICIES
from dkps.routing.offload_study import gate_summary, volume_contrast

from .routing_verdicts import Part

__all__ = [
    "qualifying_contracts",
    "population",
    "nothing_certified",
    "pdcal_over_pairdev",
    "pairdev_over_qa",
    "hyp_paired",
    "offloading_parts",
    "ladder_volumes",
]

_NONE = "qa certifies no contract within the budget, so the finding has no contract to stand on"


def qualifying_contracts(summary: pd.DataFrame) -> dict[str, list[tuple[float, float]]]:
    """The contracts ``(q, alpha)`` where qa certifies a positive mean volume with a mean held-out violation
    within ``alpha + 2 SE`` across seeds, per rule (``'emp'``, ``'ucb'``): finding 6's premise.

    Parameters
    ----------
    summary : DataFrame
        :func:`dkps.routing.offload_study.gate_summary` of one pool.

    Returns
    -------
    dict
    """
    n_seeds = int(summary.n_seeds.max())
    pol = summary[(summary.family == "policy") & summary.feasible]
    out: dict[str, list[tuple[float, float]]] = {}
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
        out[rule] = cells
    return out


def _constants(summary: pd.DataFrame) -> pd.DataFrame:
    pol = summary[(summary.family == "policy") & summary.feasible]
    return pol[pol.method.isin(CONSTANT_POLICIES)]


def population(summary: pd.DataFrame) -> Part:
    """F6.population: where qa certifies, every constant policy's population violation exceeds the budget."""
    cells = qualifying_contracts(summary)
    every = sorted(set(cells["emp"]) | set(cells["ucb"]))
    const = _constants(summary)
    bad = []
    for qq, a in every:
        c = const[np.isclose(const.q, qq) & np.isclose(const.alpha, a)].groupby("method").population_violation.mean()
        bad += [f"{m} {v:.2f} at q{round(100 * qq)}/{a:.0%}" for m, v in c.items() if not v > a]
    return Part(
        "F6.population",
        "where qa certifies traffic, every constant-confidence policy violates the tolerance more often than the budget",
        "original",
        Verdict(
            bool(every) and not bad,
            f"{len(every)} contract(s) where qa certifies within the budget; constant policies at or under the budget "
            f"there: {', '.join(bad) or 'none'}",
            basis=EXACT,
        ),
        "" if every else _NONE,
    )


def nothing_certified(summary: pd.DataFrame, rule: str) -> Part:
    """F6.nothing_<rule>: under ``rule`` no constant-confidence policy certifies any traffic where qa does."""
    name = {"emp": "empirical", "ucb": "Clopper-Pearson"}[rule]
    cells = qualifying_contracts(summary)[rule]
    const = _constants(summary)
    lucky = []
    for qq, a in cells:
        c = const[(const.rule == rule) & np.isclose(const.q, qq) & np.isclose(const.alpha, a)]
        lucky += [f"{r.method} {r.volume:.2f} at q{round(100 * qq)}/{a:.0%}" for r in c.itertuples() if r.volume > 0]
    return Part(
        f"F6.nothing_{rule}",
        f"under the {name} rule, no constant-confidence policy certifies any traffic where qa does",
        "original",
        Verdict(
            bool(cells) and not lucky,
            f"{len(cells)} contract(s) where qa certifies within the budget; mean volume certified by a constant "
            f"policy there: {', '.join(lucky) or 'none'}",
            basis=EXACT,
        ),
        "" if cells else _NONE,
    )


def ladder_volumes(gates: pd.DataFrame, pools, q: float, alpha: float) -> dict[str, dict[str, float]]:
    """Mean certified volume of pd-cal, pairdev and qa-fact per pool at one contract (empirical rule)."""

    def cell(s: pd.DataFrame, m: str) -> float:
        r = s[(s.method == m) & np.isclose(s.q, q) & np.isclose(s.alpha, alpha) & (s.rule == "emp")]
        return float(r.volume.iloc[0]) if len(r) else float("nan")

    return {p: {m: cell(gate_summary(gates, p), m) for m in ("pd-cal", "pairdev", "qa-fact")} for p in pools}


def _silent(vol: dict, a: str, b: str) -> str:
    """An order of two estimators that both certify nothing says nothing: the pools where that happens."""
    empty = [p for p, v in vol.items() if not (v[a] > 0 or v[b] > 0)]
    name = "qa" if b == "qa-fact" else b
    return (
        f"neither {a} nor {name} certifies any traffic at this contract in the {' and '.join(empty)} pool"
        if empty
        else ""
    )


def _where(vol: dict, q: float, alpha: float) -> str:
    txt = "; ".join(
        f"{p}: pd-cal {v['pd-cal']:.2f}, pairdev {v['pairdev']:.2f}, qa {v['qa-fact']:.2f}" for p, v in vol.items()
    )
    return f"volume at q{round(100 * q)}, alpha {alpha:.0%}: {txt}"


def pdcal_over_pairdev(vol: dict, pair_overlap: float, q: float, alpha: float) -> Part:
    """ladder.pdcal_over_pairdev: pd-cal certifies at least as much as pairdev in every pool; its premise is a
    pairdev that can be starved (pair overlap below 1), the original's explanation of pd-cal's lead."""
    gap = _silent(vol, "pd-cal", "pairdev")
    starved = (
        f"every anchor is answered by the flagship and every candidate (pair overlap {pair_overlap:.0%}) and the "
        "calibration sample is drawn from the same queries as the anchors, so pairdev is never starved, which is "
        "how the original explains pd-cal's lead"
    )
    paired = pair_overlap >= 1 - 1e-12
    return Part(
        "ladder.pdcal_over_pairdev",
        "pd-cal, a pair regression on a small calibration sample, certifies at least as much as pairdev on every anchor",
        "original",
        Verdict(not gap and all(v["pd-cal"] >= v["pairdev"] for v in vol.values()), _where(vol, q, alpha), basis=EXACT),
        "; ".join(x for x in (gap, starved if paired else "") if x),
    )


def pairdev_over_qa(vol: dict, q: float, alpha: float) -> Part:
    """ladder.pairdev_over_qa: pairdev certifies at least as much as the factorised qa estimator in every pool."""
    gap = _silent(vol, "pairdev", "qa-fact")
    return Part(
        "ladder.pairdev_over_qa",
        "pairdev certifies at least as much as the factorised qa estimator",
        "original",
        Verdict(
            not gap and all(v["pairdev"] >= v["qa-fact"] for v in vol.values()), _where(vol, q, alpha), basis=EXACT
        ),
        gap,
    )


def hyp_paired(gates: pd.DataFrame, vol: dict, pools, pair_overlap: float, q: float, alpha: float) -> Part:
    """hyp.paired: on fully paired data pd-cal does not certify more than pairdev by more than 2 SE."""
    hyp = {p: volume_contrast(gates, p, "pd-cal", "pairdev", q=q, alpha=alpha) for p in pools}
    starve = {p: volume_contrast(gates, p, "pd-cal", "pd30", q=q, alpha=alpha) for p in pools}
    gap = _silent(vol, "pd-cal", "pairdev")
    paired = pair_overlap >= 1 - 1e-12
    return Part(
        "hyp.paired",
        "on fully paired data pd-cal does not certify more than pairdev (by more than 2 SE)",
        "restatement",
        Verdict(
            not gap and all(not (m > 2 * se) for m, se, _ in hyp.values()),
            "; ".join(
                f"{p}: pd-cal - pairdev {m:+.3f} ± {se:.3f}, pd-cal - pd30 {starve[p][0]:+.3f} ± {starve[p][1]:.3f}"
                for p, (m, se, _) in hyp.items()
            ),
            basis=EXACT,
        ),
        gap or ("" if paired else f"the suite is not fully paired (pair overlap {pair_overlap:.0%})"),
    )


def offloading_parts(
    gates: pd.DataFrame,
    *,
    pool: str = "le13b",
    ladder_pools: tuple = ("le13b", "all"),
    pair_overlap: float = 1.0,
    q: float = 0.5,
    alpha: float = 0.10,
    ladder: bool = True,
) -> list[Part]:
    """Finding 6, the ladder's order and the paired-data hypothesis, split into parts and judged.

    Finding 6 is judged in ``pool`` over every contract of the sweep where qa certifies (its premise:
    :func:`qualifying_contracts`); the ladder and the hypothesis at ε = the ``q`` quantile and ``alpha``,
    empirical rule, in ``ladder_pools``.

    Parameters
    ----------
    gates : DataFrame
        :func:`dkps.routing.offload_study.gate_sweep`'s frame.
    pool : str, default='le13b'
        The pool of finding 6.
    ladder_pools : tuple of str, default=('le13b', 'all')
        The pools of the ladder's order and of the hypothesis.
    pair_overlap : float, default=1.0
        :func:`dkps.routing.offload_study.pair_overlap` of the suite.
    q, alpha : float
        The ladder's contract.
    ladder : bool, default=True
        Also judge the ladder and the hypothesis (False: finding 6 only).

    Returns
    -------
    list of Part
        ``F6.population``, ``F6.nothing_emp``, ``F6.nothing_ucb`` and, with ``ladder``,
        ``ladder.pdcal_over_pairdev``, ``ladder.pairdev_over_qa``, ``hyp.paired``.

    Raises
    ------
    ValueError
        A pool missing from ``gates``.
    """
    s = gate_summary(gates, pool)
    parts = [population(s), nothing_certified(s, "emp"), nothing_certified(s, "ucb")]
    if not ladder:
        return parts
    vol = ladder_volumes(gates, ladder_pools, q, alpha)
    return parts + [
        pdcal_over_pairdev(vol, pair_overlap, q, alpha),
        pairdev_over_qa(vol, q, alpha),
        hyp_paired(gates, vol, ladder_pools, pair_overlap, q, alpha),
    ]
