"""The sentences a comparison of two models says, decided from its numbers (never in a notebook).

:func:`pair_sentence` reads a :class:`~blindspot.prognose.paired_comparison.PairComparison`: which
benchmarks B is better or worse on after Holm's adjustment, which are not resolved, and the overall
difference. :func:`split_sentence` reads a :class:`~blindspot.prognose.paired_comparison.VisibleSplit`:
"these two models differ by X, of which the leaderboard sees Y". :func:`ranking_sentence` counts the
adjacent pairs of a ranking that are resolved. :func:`pair_verdict` is the calibrated statement "B
differs from A overall" with its test and interval.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from blindspot.core.verdict import EXACT, STATISTICAL, StatTest, Verdict, judge, listing
from blindspot.prognose.paired_comparison import PairComparison, PairwiseTests, Ranking, VisibleSplit

__all__ = [
    "pair_sentence",
    "split_sentence",
    "ranking_sentence",
    "pair_verdict",
    "interval_text",
    "unpaired_misses_verdict",
    "pairwise_verdict",
]


def interval_text(estimate: float, interval: tuple[float, float], spec: str = "+.3f") -> str:
    """'+0.012 [+0.004, +0.020]'."""
    return f"{estimate:{spec}} [{interval[0]:{spec}}, {interval[1]:{spec}}]"


def pair_sentence(c: PairComparison) -> str:
    """What the comparison resolves: the benchmarks B is better and worse on (Holm), the unresolved ones,
    and the micro overall difference with its interval."""
    better = [t.benchmark for t, d in zip(c.tests, c.decisions) if d == "better"]
    worse = [t.benchmark for t, d in zip(c.tests, c.decisions) if d == "worse"]
    open_ = [t.benchmark for t, d in zip(c.tests, c.decisions) if d == "not resolved"]
    none = [t.benchmark for t, d in zip(c.tests, c.decisions) if d == "—"]
    parts = []
    if better:
        parts.append(f"{c.model_b} is better than {c.model_a} on {listing(better)}")
    if worse:
        parts.append(f"{c.model_b} is worse than {c.model_a} on {listing(worse)}")
    if open_:
        parts.append(f"the difference is not resolved at {1 - c.alpha:.0%} on {listing(open_)}")
    if none:
        parts.append(f"{listing(none)} could not be compared")
    text = "; ".join(parts) + " (Holm-adjusted across benchmarks)."
    if c.micro is not None:
        text += (
            f" Overall, {c.model_b} - {c.model_a} = {interval_text(c.micro.estimate, c.micro.interval)} per item "
            f"(micro, {c.micro.method}, p = {c.micro.p_value:.2g})"
        )
        if c.macro is not None and c.macro.n_benchmarks > 1:
            text += f" and {interval_text(c.macro.estimate, c.macro.interval)} per benchmark (macro)"
        text += "."
    return "The" + text[3:] if text.startswith("the ") else text  # a model's name keeps its case


def split_sentence(s: VisibleSplit, model_a: str, model_b: str) -> str:
    """'These two models differ by X standardised units, of which the leaderboard's d visible directions
    see Y and miss Z; its indistinguishability radius is R.'"""
    text = (
        f"{model_b} and {model_a} differ by {s.total:.3g} standard deviations of the leaderboard over its "
        f"{len(s.benchmarks)} shared benchmarks, of which its {s.d} visible direction(s) (d_eff = {s.d_eff:.2f}) carry "
        f"{s.visible:.3g} and miss {s.missed:.3g} ({s.share_visible:.0%} of the squared difference is seen)"
    )
    if s.radius is not None:
        text += (
            f"; two models this leaderboard cannot tell apart can be up to 2 R omega = {s.radius:.3g} apart in the same "
            f"units"
        )
    else:
        text += f"; {s.radius_note}"
    return text + "."


def ranking_sentence(r: Ranking) -> str:
    """How many adjacent ranks the data resolve after Holm's adjustment, and which."""
    ok = [f"{s.upper} > {s.lower}" for s in r.steps if s.resolved]
    return (
        f"{r.n_resolved} of {len(r.steps)} adjacent pairs of the ranking are resolved at {1 - r.alpha:.0%} after Holm's "
        f"adjustment" + (f": {listing(ok)}." if ok else ".")
    )


def pair_verdict(c: PairComparison) -> Verdict:
    """'B is better than A' (B - A > 0 per item, micro), judged by the calibrated rule on the micro
    difference's test (:func:`blindspot.core.verdict.judge`): holds when its 95% interval lies above 0,
    fails when it lies at or below 0, else not resolved at 95%.

    Raises
    ------
    ValueError
        No benchmark was compared.
    """
    if c.micro is None:
        raise ValueError("no benchmark was compared: nothing to judge")
    test = c.micro.stat_test()
    evidence = f"{c.model_b} - {c.model_a}: {test.words()}"
    return Verdict(judge(test, ">", 0.0), evidence, book=round(c.micro.estimate, 4), basis=STATISTICAL, test=test)


def pairwise_verdict(pt: PairwiseTests) -> Verdict:
    """'The unpaired z-test misses none of the pairs the paired test resolves' on these items: an exact
    count (no sampling beyond the data themselves), Holm over the pairs for each test."""
    missed = pt.missed
    names = [f"{a} < {b}" for a, b in zip(missed["A"], missed["B"])]
    evidence = (
        f"{len(pt.frame)} pairs on {pt.n_items:,} items: the paired test (exact McNemar) resolves {pt.n_paired}, the "
        f"unpaired z-test {pt.n_unpaired} (Holm over the pairs, {1 - pt.alpha:.0%}); missed by the unpaired test: "
        f"{listing(names)}"
    )
    return Verdict(len(missed) == 0, evidence, book=int(len(missed)), basis=EXACT)


def unpaired_misses_verdict(by_size: pd.DataFrame, items: int) -> Verdict:
    """'At this many items the unpaired test resolves fewer pairs than the paired test': the mean over
    the subsamples of (paired - unpaired) resolved pairs, with its t interval over the draws (Student),
    judged > 0 by the calibrated rule.

    Raises
    ------
    ValueError
        No row of ``by_size`` has that many items, or fewer than two draws.
    """
    rows = by_size[by_size["items"] == items]
    if len(rows) < 2:
        raise ValueError(f"need at least two draws of {items} items, got {len(rows)}")
    d = (rows["n paired"] - rows["n unpaired"]).to_numpy(dtype=float)
    m, se = float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size))
    half = float(stats.t.ppf(0.975, d.size - 1) * se)
    test = StatTest(
        f"paired minus unpaired count of resolved pairs, mean over {d.size} random subsets of {items:,} items, "
        f"t interval",
        m,
        (m - half, m + half),
    )
    evidence = (
        f"of {int(rows['pairs'].iloc[0])} pairs, the paired test resolves {rows['n paired'].mean():.1f} and the unpaired "
        f"{rows['n unpaired'].mean():.1f} on average; {test.words()}"
    )
    return Verdict(judge(test, ">", 0.0), evidence, book=round(m, 2), basis=STATISTICAL, test=test)
