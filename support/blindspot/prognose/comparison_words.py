"""The sentences a comparison of two models says, decided from its numbers (never in a notebook).

:func:`pair_sentence` reads a :class:`~blindspot.prognose.paired_comparison.PairComparison`: which
benchmarks B is better or worse on after Holm's adjustment, which are not resolved, and the overall
difference. :func:`split_sentence` reads a :class:`~blindspot.prognose.paired_comparison.VisibleSplit`:
"these two models differ by X, of which the leaderboard sees Y". :func:`ranking_sentence` counts the
adjacent pairs of a ranking that are resolved. :func:`pair_verdict` is the calibrated statement "B
differs from A overall" with its test and interval.
"""

from __future__ import annotations

from blindspot.core.verdict import Verdict, listing
from blindspot.prognose.paired_comparison import PairComparison, Ranking, VisibleSplit

__all__ = ["pair_sentence", "split_sentence", "ranking_sentence", "pair_verdict", "interval_text"]


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
    return text[0].upper() + text[1:]


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
    """'B and A differ overall' judged on the micro difference's test (holds: p <= alpha, so its interval
    excludes 0 for the McNemar and bootstrap tests used), with the evidence naming the test and interval.

    Raises
    ------
    ValueError
        No benchmark could be compared.
    """
    if c.micro is None:
        raise ValueError("no benchmark was compared: nothing to judge")
    m = c.micro
    holds = m.p_value <= c.alpha
    evidence = (
        f"{c.model_b} - {c.model_a} = {interval_text(m.estimate, m.interval)} per item over {m.n_items:,} shared items "
        f"({m.method}, p = {m.p_value:.2g})"
    )
    return Verdict(holds, evidence, book=round(m.estimate, 4))
