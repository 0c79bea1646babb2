"""App. H.40 and H.47 on a leaderboard in one call: where sigma_h comes from, and the rank classes it gives.

:func:`rank_class_study` splits a leaderboard's frontier into its first ("visible") and second ("hidden")
half of benchmarks, calibrates sigma_h as App. H.40 does (:func:`~.rank_classes.anisotropic_calibration`),
and partitions the top models by the gap rule under the rule the paper states and the rule its code runs
(:func:`~.rank_classes.compare_rules`). The result gives its numbers by name
(:meth:`RankClassStudy.quantities`) and the tables a page shows.

References
----------
The paper's App. H.40 and H.47.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from blindspot.core.claim_value import ClaimStatement, ClaimValue
from blindspot.core.conventions import aggregate, frontier
from blindspot.data.tables import ScoreTable
from blindspot.prognose import rank_classes as rc, verdicts

__all__ = ["RankClassStudy", "rank_class_study"]


@dataclass(frozen=True)
class RankClassStudy:
    """The H.40 calibration and the H.47 rank classes of a leaderboard's frontier.

    Attributes
    ----------
    table, front : ScoreTable
        The leaderboard and its frontier.
    n_asked, n_top : int
        Models asked to partition, and partitioned (at most the frontier).
    thr : float
        A pair with P(swap) above it is indistinguishable.
    calibration : AnisoCalibration
    sigma_h : float
        sigma_iso to three decimals (as the paper's code hard-codes it).
    aggregates : ndarray
        The frontier's z-mean aggregate.
    names : list of str
        The top models, best first.
    comparison : RuleComparison
        The classes under the stated rule (``correct``) and the code's (``author``).
    """

    table: ScoreTable
    front: ScoreTable
    n_asked: int
    n_top: int
    thr: float
    calibration: rc.AnisoCalibration
    sigma_h: float
    aggregates: np.ndarray
    names: list[str]
    comparison: rc.RuleComparison

    @property
    def top_scores(self) -> np.ndarray:
        """The aggregates of the top models, best first."""
        return self.aggregates[np.argsort(-self.aggregates, kind="stable")[: self.n_top]]

    @property
    def threshold(self) -> float:
        """The gap T below which two models are indistinguishable, 2 sigma_h Phi^{-1}(1 - thr)."""
        return rc.gap_threshold(self.sigma_h, self.thr)

    @property
    def smaller_note(self) -> str:
        """A note when the frontier has fewer models than asked (else empty)."""
        if self.n_top >= self.n_asked:
            return ""
        return (
            f":::{{important}}\nThe frontier has only {self.front.n_models} models, fewer than the {self.n_asked} "
            f"the partition asks for: this page partitions all {self.n_top} of them.\n:::"
        )

    def calibration_table(self) -> pd.Series:
        """App. H.40's calibration as one labelled column: ``sigma_iso``, ``sqrt(n/(n-1))``, ``sigma_aniso``,
        ``pairs``, ``empirical disagreement``, ``isotropic prediction``, ``anisotropic prediction``."""
        cal = self.calibration
        return pd.Series(
            {
                "sigma_iso": cal.sigma_iso,
                "sqrt(n/(n-1))": cal.ddof_artifact,
                "sigma_aniso": cal.sigma_aniso,
                "pairs": cal.n_pairs,
                "empirical disagreement": cal.empirical,
                "isotropic prediction": cal.iso_pred,
                "anisotropic prediction": cal.aniso_pred,
            }
        )

    def partition(self) -> pd.DataFrame:
        """One row per top model (indexed by rank): ``model``, ``aggregate``, ``class (stated rule)``,
        ``class (paper's code)``, ``P(swap) with its class leader``."""
        cmp, a = self.comparison, self.top_scores
        good = {i: c + 1 for c, m in enumerate(cmp.correct) for i in m}
        bad = {i: c + 1 for c, m in enumerate(cmp.author) for i in m}
        P = rc.pairwise_swap(a, self.sigma_h)
        t = pd.DataFrame(
            {"model": self.names, "aggregate": a, "class (stated rule)": [good[i] for i in range(self.n_top)],
             "class (paper's code)": [bad[i] for i in range(self.n_top)],
             "P(swap) with its class leader": [P[i, cmp.correct[good[i] - 1][0]] for i in range(self.n_top)]}
        )  # fmt: skip
        t.index = np.arange(1, self.n_top + 1)
        return t

    def sensitivity(self, tops: tuple[int, ...] = (30, 40, 60)) -> pd.DataFrame:
        """The class sizes for the top m models (the partition's and ``tops``, up to the frontier) under
        sigma_iso and sigma_aniso: columns ``top m``, ``sigma_h``, ``threshold``, ``class sizes``."""
        rows = []
        for m in sorted({self.n_top, *tops}):
            if m > self.front.n_models:
                continue
            am = self.aggregates[np.argsort(-self.aggregates, kind="stable")[:m]]
            for label, s in (("sigma_iso", self.sigma_h), ("sigma_aniso", self.calibration.sigma_aniso)):
                sizes = rc.class_sizes(rc.rank_classes(am, s, self.thr))
                rows.append({"top m": m, "sigma_h": label, "threshold": rc.gap_threshold(s, self.thr),
                             "class sizes": sizes})  # fmt: skip
        return pd.DataFrame(rows)

    def quantities(self) -> dict[str, float | int | str]:
        """The numbers by name: the populations (``n_front``, ``n_all``, ``n_top``), the split (``k_vis``,
        ``k_hid``, ``vis_names``, ``hid_names``), the calibration (``sigma_iso``, ``sigma_aniso``, ``ddof``,
        ``cal_empirical``, ``cal_iso``, ``cal_aniso``, ``cal_pairs``), the partition (``T``, ``sigma_h``,
        ``thr``, ``sizes_good``, ``sizes_bad``, ``n_good``) and their words (``sigma_same``: whether sigma_iso
        is the same number as sqrt(n/(n-1)); ``rules_agree``: whether the two rules "agree" or "disagree")."""
        f, cal, cmp = self.front, self.calibration, self.comparison
        k = f.n_benchmarks
        good, bad = rc.class_sizes(cmp.correct), rc.class_sizes(cmp.author)
        return {
            "n_front": f.n_models, "n_all": self.table.n_models, "n_top": self.n_top,
            "k_vis": k // 2, "k_hid": k - k // 2,
            "vis_names": ", ".join(f.benchmarks[: k // 2]), "hid_names": ", ".join(f.benchmarks[k // 2 :]),
            "sigma_iso": cal.sigma_iso, "sigma_aniso": cal.sigma_aniso, "ddof": cal.ddof_artifact,
            "cal_empirical": cal.empirical, "cal_iso": cal.iso_pred, "cal_aniso": cal.aniso_pred,
            "cal_pairs": cal.n_pairs, "T": self.threshold, "sigma_h": self.sigma_h, "thr": self.thr,
            "sizes_good": " + ".join(map(str, good)), "sizes_bad": " + ".join(map(str, bad)), "n_good": len(good),
            "sigma_same": verdicts.same_number_word(cal.sigma_iso, cal.ddof_artifact),
            "rules_agree": verdicts.agree_word(verdicts.rules_agree(cmp)),
        }  # fmt: skip

    def claims(self, registry: Mapping[str, Any] | None = None) -> dict[str, ClaimValue | ClaimStatement]:
        """The chapter's claims in recording order, all on the frontier (for ``Ledger.record``).

        ``H40.sigma_iso``, ``H40.sigma_aniso``, ``H40.empirical``, ``H40.iso_pred``, ``H40.aniso_pred`` (the
        calibration), ``H40.sigma_meaning`` (:func:`~.verdicts.sigma_meaning`) and ``H47.n_classes`` (classes
        under the stated rule); with the paper's ``registry`` (claim id -> entry with a ``paper`` value, None on
        a leaderboard other than the paper's) also ``H47.sizes`` (the paper's "a+b+..." against the stated
        rule's sizes) and ``H47.families`` (its comma-separated families in the top class).
        """
        f, cal, cmp = self.front, self.calibration, self.comparison
        values = {"sigma_iso": cal.sigma_iso, "sigma_aniso": cal.sigma_aniso, "empirical": cal.empirical,
                  "iso_pred": cal.iso_pred, "aniso_pred": cal.aniso_pred}  # fmt: skip
        out: dict[str, ClaimValue | ClaimStatement] = {f"H40.{k}": ClaimValue(v, f) for k, v in values.items()}
        out["H40.sigma_meaning"] = ClaimStatement(verdicts.sigma_meaning(cal, f.n_models), f)
        out["H47.n_classes"] = ClaimValue(len(cmp.correct), f)
        if registry is None:
            return out
        paper_sizes = [int(x) for x in registry["H47.sizes"].paper.split("+")]
        good, bad = rc.class_sizes(cmp.correct), rc.class_sizes(cmp.author)
        sizes = verdicts.class_sizes_match(good, bad, paper_sizes, cmp, self.thr)
        out["H47.sizes"] = ClaimStatement(sizes, f)
        families = [s.strip() for s in registry["H47.families"].paper.split(",")]
        present = rc.families_present([self.names[i] for i in cmp.correct[0]], families)
        in_code = rc.families_present([self.names[i] for i in cmp.author[0]], families)
        out["H47.families"] = ClaimStatement(verdicts.families_present(present, in_code), f)
        return out


def rank_class_study(table: ScoreTable, top: int = 20, thr: float = 0.40) -> RankClassStudy:
    """Calibrate sigma_h on ``table``'s frontier (first half of the benchmarks visible, the rest hidden) and
    partition its best ``top`` models (at most the frontier) at swap-probability threshold ``thr``."""
    front = frontier(table)
    k = front.n_benchmarks
    n_top = min(top, front.n_models)
    cal = rc.anisotropic_calibration(front, visible=list(range(k // 2)), hidden=list(range(k // 2, k)), top=n_top)
    sigma_h = round(cal.sigma_iso, 3)  # the paper's code hard-codes sigma_iso to three decimals
    agg = aggregate(front)
    idx = np.argsort(-agg, kind="stable")[:n_top]
    cmp = rc.compare_rules(agg[idx], sigma_h, thr)
    return RankClassStudy(table, front, top, n_top, thr, cal, sigma_h, agg, list(front.scores.index[idx]), cmp)
