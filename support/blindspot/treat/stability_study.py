"""Proposition 5 and Theorem 5 on leaderboards in one call: transfer, random perturbations, greedy closure.

* :func:`transfer_study`: a greedy subset chosen on the first leaderboard's frontier, evaluated on the
  second's, on the benchmarks they share (:func:`~blindspot.treat.transfer.cross_suite_transfer`, App. H.18),
  with Proposition 5's bounds on that pair (:func:`~blindspot.treat.perturbation.stability_check`).
* :func:`violation_study`: Proposition 5's bound and its corrections on random correlation pairs, independent
  and sampled (:func:`~blindspot.treat.perturbation.stability_violations`).

Each returns a frozen result with its numbers by name (``quantities()``) and its tables.

References
----------
The paper's Proposition 5 and App. H.18.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

import pandas as pd

from blindspot.core import conventions, spectrum
from blindspot.data.tables import MIN_MODELS, ScoreTable
from blindspot.treat import perturbation
from blindspot.treat.transfer import CrossSuiteTransfer, cross_suite_transfer

__all__ = ["frontiers", "TransferStudy", "transfer_study", "ViolationStudy", "violation_study"]


def frontiers(suites: Mapping[str, ScoreTable]) -> dict[str, ScoreTable]:
    """Each suite's frontier, or the suite itself when its frontier has fewer than ``MIN_MODELS`` models."""
    return {
        name: conventions.frontier(t) if conventions.frontier_mask(t).sum() >= MIN_MODELS else t
        for name, t in suites.items()
    }


@dataclass(frozen=True)
class TransferStudy:
    """A greedy subset transferred from a source frontier to a target one, on their shared benchmarks.

    Attributes
    ----------
    source, target : ScoreTable
        The frontiers (``target`` None with one leaderboard).
    shared : list of str
        The benchmarks both have, in the source's order.
    r : int
        The subset's size.
    transfer : CrossSuiteTransfer or None
        None when it cannot run (one leaderboard, fewer than 2 shared benchmarks, or r not below them).
    """

    source: ScoreTable
    target: ScoreTable | None
    shared: list[str]
    r: int
    transfer: CrossSuiteTransfer | None

    @property
    def pair(self) -> list[ScoreTable]:
        """The two frontiers restricted to the shared benchmarks (empty when the transfer did not run)."""
        return [] if self.transfer is None else [self.source.columns(self.shared), self.target.columns(self.shared)]

    def table(self) -> pd.DataFrame | None:
        """The transfer's coverages, retention and operator norms, one column ``value``."""
        tr = self.transfer
        if tr is None:
            return None
        return pd.Series(
            {"transferred coverage": tr.transferred, "native coverage": tr.native, "retention": tr.retention,
             "||Sigma_src - Sigma_tgt||_op": tr.op_norm_full,
             "||P_T (Sigma_src - Sigma_tgt) P_T||_op": tr.op_norm_restricted}
        ).to_frame("value")  # fmt: skip

    def bounds(self) -> pd.DataFrame | None:
        """Proposition 5's stated bound and its two corrections on this pair, with the source subset's projector:
        columns ``f_src(T)``, ``f_tgt(T), fixed P_T``, ``perturbation``, ``margin``, ``lower bound``, ``holds``."""
        if self.transfer is None:
            return None
        src, tgt = (spectrum.correlation(t) for t in self.pair)
        T = [self.shared.index(b) for b in self.transfer.source_subset]
        rows = {b: asdict(perturbation.stability_check(src, tgt, T, "fixed", b)) for b in ("paper", "rank", "nuclear")}
        t = pd.DataFrame(rows).T[["f", "f_prime", "perturbation", "margin", "rhs", "holds"]]
        return t.rename(columns={"f": "f_src(T)", "f_prime": "f_tgt(T), fixed P_T", "rhs": "lower bound"})

    def summary(self) -> str | None:
        """The transfer in words (None when it did not run)."""
        tr, src, tgt, r = self.transfer, self.source, self.target, self.r
        if tr is None:
            return None
        return (
            f"The {src.name}'s greedy top {r} ({', '.join(tr.source_subset)}) covers {tr.transferred:.3f} of the "
            f"{tgt.name}'s correlation on the {len(self.shared)} shared benchmarks; the {tgt.name}'s own greedy top "
            f"{r} ({', '.join(tr.target_subset)}) covers {tr.native:.3f}: a retention of {100 * tr.retention:.1f}%. "
            f"The unrestricted operator norm of the difference is {tr.op_norm_full:.3f}; the restricted norm that "
            f"Proposition 5 uses, with $P_T$ from the source subset's columns, is {tr.op_norm_restricted:.3f}."
        )


def transfer_study(source: ScoreTable, target: ScoreTable | None, r: int = 4) -> TransferStudy:
    """The greedy top ``r`` of ``source`` evaluated on ``target`` over their shared benchmarks, when it can run."""
    shared = [b for b in source.benchmarks if target is not None and b in target.benchmarks]
    can = target is not None and len(shared) >= 2 and r < len(shared)
    tr = cross_suite_transfer(source.columns(shared), target.columns(shared), r=r) if can else None
    return TransferStudy(source, target, shared, r, tr)


@dataclass(frozen=True)
class ViolationStudy:
    """Proposition 5's bounds on random pairs of correlation matrices, per ensemble.

    Attributes
    ----------
    by_kind : dict of str to StabilityViolations
        ``"independent"`` and ``"sample"`` -> the violations of each bound and projector.
    n_pairs, k : int
    """

    by_kind: dict[str, perturbation.StabilityViolations]
    n_pairs: int
    k: int

    def table(self) -> pd.DataFrame:
        """The two ensembles' tables, stacked (first level ``pairs``)."""
        return pd.concat({kind: v.table for kind, v in self.by_kind.items()}, names=["pairs"])

    def quantities(self) -> dict[str, float | int]:
        """Percentages of violations (``paper_fixed_pct``, ``paper_own_pct``, ``paper_sample_pct``,
        ``own_rank_pct``), the worst shortfall ``paper_fixed_max``, and over both ensembles the counts
        ``rank_fixed_n`` and ``rank_two_sided`` of the corrected bound with a fixed projector; ``n_pairs``."""
        vi, vs = self.by_kind["independent"], self.by_kind["sample"]
        two_sided = vi.table.loc[("fixed", "rank"), "n_two_sided"] + vs.table.loc[("fixed", "rank"), "n_two_sided"]
        return {
            "n_pairs": self.n_pairs, "paper_fixed_pct": 100 * vi.fraction("fixed", "paper"),
            "paper_own_pct": 100 * vi.fraction("own", "paper"),
            "paper_fixed_max": vi.table.loc[("fixed", "paper"), "max_violation"],
            "paper_sample_pct": 100 * vs.fraction("fixed", "paper"),
            "rank_fixed_n": vi.count("fixed", "rank") + vs.count("fixed", "rank"),
            "rank_two_sided": int(two_sided), "own_rank_pct": 100 * vs.fraction("own", "rank"),
        }  # fmt: skip


def violation_study(n_pairs: int = 2000, k: int = 6, seed: int = 0) -> ViolationStudy:
    """``n_pairs`` random (Sigma, Sigma', T) of size ``k`` per ensemble, independent and sampled, seeded ``seed``."""
    kinds = ("independent", "sample")
    return ViolationStudy(
        {kind: perturbation.stability_violations(n_pairs, k, seed, kind) for kind in kinds}, n_pairs, k
    )
