"""Theorem 4 on several leaderboards in one call: greedy coverage, the exhaustive optimum, and each guarantee.

:func:`greedy_coverage_study` picks benchmarks greedily by the coverage f(T) of Theorem 4 on a featured
leaderboard's frontier (the Extended suite's when given), compares greedy with the exhaustive optimum
(:func:`~blindspot.core.coverage.brute_force_optimum`, k <= :data:`~blindspot.core.coverage.MAX_BRUTE_K`), audits
every slice (all models, frontier) of every leaderboard (:func:`~blindspot.treat.guarantees.greedy_audit`: the
diminishing-returns comparisons, the submodularity ratio gamma, the min-r bound of Theorem 4(c)), measures the
approximation ratio on random 12 x 12 correlation matrices, and adds the 3 x 3 counterexample, the first-step
fact, the tight weighted max-coverage instance, an item-level scale example and the refusals of bad input. The
result gives its numbers by name (:meth:`GreedyCoverageStudy.quantities`), its tables, sentences and figures,
and its ledger records with the data each was decided on (:meth:`GreedyCoverageStudy.records`).

References
----------
The paper's Theorem 4 (a)-(c); Nemhauser, Wolsey & Fisher (1978) for the 1 - 1/e guarantee of greedy under
submodularity; Das & Kempe (2011) for the submodularity ratio gamma and the guarantee 1 - exp(-gamma).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core import conventions, coverage as cv, spectrum
from blindspot.core.claim_value import ClaimStatement, ClaimValue
from blindspot.core.verdict import compare_words
from blindspot.data import synthetic
from blindspot.data.tables import MIN_MODELS, ScoreTable
from blindspot.treat import figures, guarantees, verdicts

__all__ = [
    "FULL_SUITES",
    "tight_max_coverage",
    "tightness_table",
    "GreedyCoverageStudy",
    "greedy_coverage_study",
]

#: The leaderboards whose full populations the ledger records (your first leaderboard stands in for each).
FULL_SUITES = ("ollm_v2", "extended", "livebench")
#: The audit columns shown with the bounds, with the approximation ratios, and with the min-r bound.
BOUND_COLUMNS = ("k", "d_eff", "r_greedy", "r_min", "r_bound_paper", "bound_holds", "min_ratio")
RATIO_COLUMNS = ("violations", "comparisons", "max_violation", "gamma", "guarantee", "min_ratio")
MINR_COLUMNS = ("d_eff", "r_bound_paper", "r_greedy", "r_min", "bound_holds")
_AUDIT_COLUMNS = (
    "min_ratio",
    "violations",
    "comparisons",
    "max_violation",
    "gamma",
    "guarantee",
    "first_step",
    "one_over_d_eff",
    "d_eff_over_k",
)


def tight_max_coverage(kk: int, eps: float = 1e-9) -> tuple[float, float]:
    """Greedy's value and the exhaustive optimum with budget ``kk`` on the tight weighted max-coverage instance.

    The ground set is a kk x kk grid whose row i weighs q^i / kk^2 per element (q = 1 - 1/kk), the rest
    q^kk / kk of each column, and kk extras of weight ``eps``; the sets are the rows G_i (with an extra each)
    and the columns O_i (with their rest). Greedy takes the rows, the optimum the columns, and their ratio is
    1 - (1 - 1/kk)^kk, which tends to 1 - 1/e (Nemhauser, Wolsey & Fisher 1978).

    Raises
    ------
    ValueError
        ``kk`` below 2.
    """
    if kk < 2:
        raise ValueError(f"the instance needs a budget of at least 2, got {kk}")
    q = 1 - 1 / kk
    grid = np.array([[q**i / kk**2] * kk for i in range(kk)])  # element (i, j): row i of G, column j of O
    w = np.concatenate([grid.ravel(), np.full(kk, q**kk / kk), np.full(kk, eps)])  # + the rest of O_j, + extras
    n_grid = kk * kk
    sets = np.zeros((2 * kk, w.size), bool)
    for i in range(kk):
        sets[i, i * kk : (i + 1) * kk] = True  # G_i: row i ...
        sets[i, n_grid + kk + i] = True  # ... and its extra element
        sets[kk + i, i:n_grid:kk] = True  # O_i: column i ...
        sets[kk + i, n_grid + i] = True  # ... and its rest
    chosen: list[int] = []
    for _ in range(kk):
        covered = sets[chosen].any(axis=0) if chosen else np.zeros(w.size, bool)
        gains = [(w * (sets[s] & ~covered)).sum() if s not in chosen else -1.0 for s in range(2 * kk)]
        chosen.append(int(np.argmax(gains)))
    greedy_value = float(w[sets[chosen].any(axis=0)].sum())
    optimum = max(float(w[sets[list(T)].any(axis=0)].sum()) for T in itertools.combinations(range(2 * kk), kk))
    return greedy_value, optimum


def tightness_table(budgets: range = range(2, 7)) -> pd.DataFrame:
    """:func:`tight_max_coverage` for each budget k: greedy, optimum, their ratio and 1 - (1 - 1/k)^k."""
    tight = pd.DataFrame({kk: dict(zip(("greedy", "optimum"), tight_max_coverage(kk))) for kk in budgets}).T
    tight = tight.rename_axis("k")
    tight["greedy / optimum"] = tight["greedy"] / tight["optimum"]
    tight["1 - (1 - 1/k)^k"] = [1 - (1 - 1 / kk) ** kk for kk in tight.index]
    tight["matches 1 - (1 - 1/k)^k"] = (tight["greedy / optimum"] - tight["1 - (1 - 1/k)^k"]).abs() < 1e-6
    return tight


def _refusals(Sigma: np.ndarray, k: int) -> pd.DataFrame:
    """What greedy does with bad input: each case's result, or its one-line ValueError."""
    nonpsd = np.array([[1.0, 0.9, -0.9], [0.9, 1.0, 0.9], [-0.9, 0.9, 1.0]])
    dup_idx = [0, 1, 1] if k == 2 else [0, 1, 2, 1]  # benchmark 2 twice: perfectly correlated columns
    dup = Sigma[np.ix_(dup_idx, dup_idx)]
    cases: dict[str, Callable[[], object]] = {
        "target = 1.2": lambda: cv.greedy_select(Sigma, target=1.2),
        "target = 0": lambda: cv.greedy_select(Sigma, target=0.0),
        f"r = {k + 1} of k = {k}": lambda: cv.greedy_select(Sigma, r=k + 1),
        "non-PSD matrix": lambda: cv.greedy_select(nonpsd),
        "non-PSD, psd='clip'": lambda: cv.greedy_select(nonpsd, psd="clip").frame().to_dict("list"),
        "duplicate benchmark": lambda: cv.greedy_select(dup, target=1.0, r=len(dup_idx)).dependent,
    }
    outcomes = {}
    for label, call in cases.items():
        try:
            outcomes[label] = f"ok: {call()}"
        except ValueError as exc:
            outcomes[label] = f"ValueError: {exc}"
    return pd.Series(outcomes, name="outcome").to_frame()


@dataclass(frozen=True)
class ItemScale:
    """Greedy on a synthetic item-level correlation matrix: its size, the r reaching the target, the seconds."""

    k: int
    n_models: int
    r_target: int | None
    seconds: float


@dataclass(frozen=True)
class GreedyCoverageStudy:
    """Greedy coverage on a featured frontier, and Theorem 4's guarantees audited on every slice.

    Attributes
    ----------
    suites : dict
        The leaderboards by name; ``slices`` (name, "full" or "frontier") -> table (a frontier needs 3 models).
    featured : str
        The featured leaderboard (the Extended suite when given); ``front`` its frontier (or all its models).
    target : float
        The coverage target.
    r_paper : int
        The paper's r for the target on the Extended frontier (7).
    greedy : GreedyResult
        Greedy on the featured population, run to r = k.
    optimum : BruteForce or None
        The exhaustive optimum (None for k > MAX_BRUTE_K).
    minr : dict
        slice key ("name full") -> MinRCheck; ``audits`` the GreedyAudit of every slice with k <= MAX_BRUTE_K.
    ratios : ndarray
        Greedy / optimum on ``n_random`` random 12 x 12 correlation matrices, by matrix and r.
    singletons : list
        The first-step bound of each random matrix; ``singleton_front`` of the featured population.
    eye : MinRCheck
        The min-r check of the 12 x 12 identity.
    tight : DataFrame
        :func:`tightness_table`.
    items : ItemScale
        The item-level scale example.
    refusals : DataFrame
        Greedy's answers to bad input.
    """

    suites: dict[str, ScoreTable]
    slices: dict[tuple[str, str], ScoreTable]
    featured: str
    front: ScoreTable
    target: float
    r_paper: int
    greedy: cv.GreedyResult
    optimum: cv.BruteForce | None
    minr: dict[str, guarantees.MinRCheck]
    audits: dict[str, guarantees.GreedyAudit]
    ratios: np.ndarray
    singletons: list[guarantees.SingletonBound]
    singleton_front: guarantees.SingletonBound
    eye: guarantees.MinRCheck
    tight: pd.DataFrame
    items: ItemScale
    refusals: pd.DataFrame
    seed: int

    @property
    def Sigma(self) -> np.ndarray:
        """The featured population's correlation matrix."""
        return spectrum.correlation(self.front)

    @property
    def k(self) -> int:
        """Benchmarks of the featured population."""
        return self.front.n_benchmarks

    @property
    def exhaustive(self) -> bool:
        """Whether the 2^k subsets are enumerated (k <= MAX_BRUTE_K)."""
        return self.k <= cv.MAX_BRUTE_K

    @property
    def has_frontier(self) -> bool:
        """Whether the featured leaderboard has a frontier slice."""
        return (self.featured, "frontier") in self.slices

    @property
    def feat_key(self) -> str:
        """The featured population's slice key ("extended frontier", or "name full")."""
        return f"{self.featured} {verdicts.slice_word(self.has_frontier, 'full')}"

    @property
    def r_show(self) -> int:
        """The paper's r, or k when there are fewer benchmarks."""
        return min(self.r_paper, self.k)

    @property
    def audit(self) -> guarantees.GreedyAudit | None:
        """The exhaustive checks of the featured population (None for k > MAX_BRUTE_K)."""
        return self.audits.get(self.feat_key)

    @property
    def worst_random(self) -> np.ndarray:
        """The smallest greedy / optimum ratio over r of each random matrix."""
        return self.ratios.min(axis=1)

    @property
    def decided(self) -> dict[str, guarantees.MinRCheck]:
        """The slices whose min-r bound is decided (the bracket does not straddle it)."""
        return {key: m for key, m in self.minr.items() if m.holds is not None}

    def counterexample(self) -> tuple[float, float]:
        """The 3 x 3 counterexample's gain of benchmark 2 alone, and after benchmark 1."""
        C3 = guarantees.COUNTEREXAMPLE_3X3
        return cv.coverage(C3, [1]), cv.coverage(C3, [0, 1]) - cv.coverage(C3, [0])

    def quantities(self) -> dict[str, float | int | str]:
        """The chapter's numbers and words by name.

        ``featured_label``, ``front_n``, ``front_k``, ``max_brute``, ``ratio_max_k``, ``target_pct``; ``r90_greedy``
        (greedy's r for the target), ``r_show``, ``cov_show`` and ``blind_show`` (coverage and blind spot in % at
        r_show); ``n_random``, ``rand_min_ratio``, ``rand_frac_exact`` (% of (matrix, r) where greedy is optimal),
        ``rand_median_ratio``; ``c3_alone``, ``c3_after``, ``c3_mineig``, ``c3_word``; ``eye_bound``, ``eye_need``;
        ``sb_holds``, ``paper_step_fails``, ``first_ext``, ``inv_deff_ext``, ``deff_k_ext``, ``first_vs_paper``;
        ``n_subsets``; ``k_scale``, ``items_models``, ``items_r90``, ``items_secs``.
        """
        g, worst, sb = self.greedy, self.worst_random, self.singleton_front
        alone, after = self.counterexample()
        cov = g.coverages[self.r_show - 1]
        return {
            "featured_label": f"{self.featured}, {verdicts.slice_word(self.has_frontier)}",
            "front_n": self.front.n_models,
            "front_k": self.k,
            "max_brute": cv.MAX_BRUTE_K,
            "ratio_max_k": guarantees.RATIO_MAX_K,
            "target_pct": 100 * self.target,
            "r90_greedy": g.r_target if g.r_target is not None else "None",
            "r_show": self.r_show,
            "cov_show": cov,
            "blind_show": 100 * (1 - cov),
            "n_random": len(self.ratios),
            "rand_min_ratio": worst.min(),
            "rand_frac_exact": verdicts.share_exact(self.ratios),
            "rand_median_ratio": np.median(worst),
            "c3_alone": alone,
            "c3_after": after,
            "c3_mineig": np.linalg.eigvalsh(guarantees.COUNTEREXAMPLE_3X3)[0],
            "c3_word": compare_words(after, alone, "more", "no more"),
            "eye_bound": self.eye.bound,
            "eye_need": self.eye.r_min,
            "sb_holds": sum(b.holds for b in self.singletons),
            "paper_step_fails": verdicts.paper_step_failures(self.singletons),
            "first_ext": sb.best_single,
            "inv_deff_ext": sb.inv_d_eff,
            "deff_k_ext": sb.paper_first_step,
            "first_vs_paper": verdicts.first_step_word(sb),
            "n_subsets": verdicts.subsets_text(self.k, self.exhaustive),
            "k_scale": self.items.k,
            "items_models": self.items.n_models,
            "items_r90": self.items.r_target if self.items.r_target is not None else "None",
            "items_secs": self.items.seconds,
        }

    # tables
    def steps_table(self) -> pd.DataFrame:
        """Greedy's steps (:meth:`GreedyResult.frame`), with the optimum and its subset at each r when enumerated."""
        steps = self.greedy.frame()
        opt = self.optimum
        if opt is not None:
            steps["optimum"] = opt.values[1:]
            steps["optimal subset"] = [", ".join(opt.names[j] for j in opt.subsets[r]) for r in steps.index]
        return steps

    def audit_table(self) -> pd.DataFrame:
        """One row per slice ("name full", "name frontier"): the min-r check, and the exhaustive audit where run."""
        rows = {}
        for key, m in self.minr.items():
            row = {"k": m.k, "d_eff": m.d_eff, "r_greedy": m.r_greedy, "r_min": m.r_min, "r_bound_paper": m.bound,
                   "bound_holds": m.holds}  # fmt: skip
            if key in self.audits:
                a = self.audits[key].row()
                row.update({c: a[c] for c in _AUDIT_COLUMNS})
            rows[key] = row
        return pd.DataFrame.from_dict(rows, orient="index")

    def bounds_table(self) -> pd.DataFrame:
        """:meth:`audit_table`'s bound columns (k, d_eff, r_greedy, r_min, the paper's bound, holds, min_ratio)."""
        t = self.audit_table()
        return t[[c for c in BOUND_COLUMNS if c in t]]

    def ratio_table(self) -> pd.DataFrame:
        """:meth:`audit_table`'s diminishing-returns and ratio columns, for the audited slices."""
        t = self.audit_table()
        return t[[c for c in RATIO_COLUMNS if c in t]].dropna(how="all")

    def minr_table(self) -> pd.DataFrame:
        """:meth:`audit_table`'s min-r columns."""
        return self.audit_table()[list(MINR_COLUMNS)]

    def random_table(self) -> pd.DataFrame:
        """The smallest greedy / optimum ratio over r on the random matrices: worst, 1% quantile, median, exact share."""
        worst = self.worst_random
        rows = {
            "worst matrix": worst.min(),
            "1% quantile": np.quantile(worst, 0.01),
            "median": np.median(worst),
            "(matrix, r) cases where greedy is optimal (%)": 100 * np.mean(self.ratios > 1 - 1e-9),
        }
        return pd.Series(rows, name="min over r of greedy / optimum").to_frame()

    def counterexample_table(self) -> pd.DataFrame:
        """The 3 x 3 counterexample correlation matrix."""
        labels = ["1", "2", "3"]
        return pd.DataFrame(guarantees.COUNTEREXAMPLE_3X3, index=labels, columns=labels)

    def first_step_table(self) -> pd.DataFrame:
        """The featured population's first step max_j f({j}) beside 1/d_eff and the paper's d_eff/k."""
        sb = self.singleton_front
        rows = {
            "first step max_j f({j})": sb.best_single,
            "1/d_eff": sb.inv_d_eff,
            "d_eff/k (the paper's recursion)": sb.paper_first_step,
        }
        return pd.Series(rows).to_frame("featured population")

    # sentences
    @property
    def exhaustive_note(self) -> str:
        """Why the exhaustive checks are skipped (empty when they run)."""
        if self.exhaustive:
            return ""
        k = self.k
        return (
            f":::{{important}}\n**Exhaustive checks skipped.** This leaderboard has k = {k} benchmarks; the exhaustive "
            f"optimum enumerates 2^k = {2**k:,} subsets and the submodularity checks go over all of them, which this "
            f"page does only up to k = {cv.MAX_BRUTE_K}. Greedy, the min-r bound (bracketed, see (c)) and the one-step "
            "fact still run.\n:::"
        )

    @property
    def exhaustive_text(self) -> str:
        """Greedy against the optimum on the featured population (:func:`~blindspot.treat.verdicts.exhaustive_text`)."""
        return verdicts.exhaustive_text(self.optimum, self.k, self.target, self.r_show, cv.MAX_BRUTE_K)

    @property
    def optimum_text(self) -> str:
        """Greedy against the optimum on every audited slice."""
        return verdicts.greedy_vs_optimum_text(self.audits, cv.MAX_BRUTE_K)

    @property
    def violations_text(self) -> str:
        """How many diminishing-returns comparisons are violated on the featured population, with the largest."""
        k, names, ck = self.k, self.front.benchmarks, self.audit
        if ck is None:
            text = f"With $k$ = {k} the {k * (k - 1) * 2 ** (k - 2):,} comparisons are not enumerated here."
        else:
            v = ck.violations
            text = f"{v.n_violations:,} of the {v.n_total:,} comparisons are violated, by up to {v.max_violation:.3f}."
            if v.example is not None:
                A_ex, x_ex, y_ex, ga, gay = v.example
                text += (
                    f" The largest: after {', '.join(names[j] for j in A_ex) or 'nothing'}, {names[x_ex]} adds "
                    f"{ga:.3f}, but once {names[y_ex]} is in too it adds {gay:.3f}."
                )
        return text + self._extended_example()

    def _extended_example(self) -> str:
        """A short example on the paper's Extended suite (Winogrande after IFEval), else empty."""
        names, Sigma = self.front.benchmarks, self.Sigma
        if "Winogrande" not in names or "IFEval" not in names:
            return ""
        wino, ife = names.index("Winogrande"), names.index("IFEval")
        return (
            f" A simpler one: {names[wino]} alone adds {cv.coverage(Sigma, [wino]):.4f}; after {names[ife]} it "
            f"adds {cv.coverage(Sigma, [ife, wino]) - cv.coverage(Sigma, [ife]):.4f}."
        )

    @property
    def gamma_text(self) -> str:
        """The submodularity ratio gamma of the featured population and the guarantee it gives."""
        ck, names = self.audit, self.front.benchmarks
        if ck is None or ck.ratio is None:
            return f"$\\gamma$ is not computed for $k$ = {self.k} here ($3^k$ pairs)."
        Lg, Sg = ck.ratio.argmin
        return (
            f"Minimised over all {ck.ratio.n_pairs:,} disjoint pairs $(L, S)$ with a positive joint gain, "
            f"$\\gamma$ = {ck.ratio.gamma:.3f} on the featured population (reached at $L$ = "
            f"{', '.join(names[j] for j in Lg) or 'nothing'}, $S$ = {', '.join(names[j] for j in Sg)}), so the valid "
            f"guarantee is $1-e^{{-\\gamma}}$ = {ck.ratio.guarantee:.3f}, against the claimed $1-1/e$ = "
            f"{1 - np.exp(-1):.3f}. The measured ratio is {ck.approximation.min():.4f}."
        )

    @property
    def bound_text(self) -> str:
        """Where the min-r bound fails among the decided slices."""
        return verdicts.bound_fails_text(self.decided)

    # figures
    def coverage_figure(self) -> plt.Figure:
        """Greedy's coverage against r, with the optimum's when enumerated and the target."""
        curves = {"greedy": self.greedy.coverages}
        if self.optimum is not None:
            curves["brute-force optimum"] = self.optimum.values[1:]
        return figures.coverage_curves(curves, target=self.target)

    def ratio_figure(self) -> plt.Figure:
        """The distribution of greedy / optimum on the random matrices, against 1 - 1/e and the featured guarantee."""
        lines = {"1 - 1/e (claimed)": 1 - np.exp(-1)}
        ck = self.audit
        if ck is not None and ck.ratio is not None:
            lines[f"1 - exp(-gamma), {self.feat_key}"] = ck.ratio.guarantee
        return figures.ratio_distribution(self.ratios, lines)

    def gain_pairs_figure(self) -> plt.Figure:
        """Every gain against the same gain after one more benchmark, on the featured population (k <= MAX_BRUTE_K)."""
        if self.audit is None:
            return figures.not_drawn(
                f"k = {self.k} benchmarks; the comparisons need all 2^k subsets (k <= {cv.MAX_BRUTE_K})"
            )
        return figures.gain_pairs(cv.all_subset_coverages(self.Sigma), self.k, seed=self.seed)

    # ledger
    def claims(self, registered: Mapping[str, Any]) -> dict[str, ClaimValue | ClaimStatement]:
        """The chapter's claims in recording order, each on the data it was decided on (for ``Ledger.record``).

        ``registered`` maps the chapter's claim ids to their registry entries (each with a ``paper`` value): the
        paper's r of each full population is read from ``T4.r90.<suite>.full``, and ``T4.cov_r90.<suite>.full`` is
        recorded only when registered.
        """
        g, front, audits = self.greedy, self.front, self.audits
        out: dict[str, ClaimValue | ClaimStatement] = {"T4.r90.ext_frontier": ClaimValue(g.r_target, front)}
        if self.k >= self.r_paper:
            cov = ClaimValue(g.coverages[self.r_paper - 1], front)
            out |= {"T4.cov7.ext_frontier": cov, "T4.blindspot7.ext_frontier": cov}
        audited = [self._slice(key) for key in audits]
        if audits:  # the exhaustive checks: every slice with k <= MAX_BRUTE_K
            alone, after = self.counterexample()
            c3 = guarantees.submodularity_violations(guarantees.COUNTEREXAMPLE_3X3)
            v = verdicts.submodular(audits, alone, after, c3, self.audit, self.feat_key)
            out["T4a.submodular"] = ClaimStatement(v, audited)
            n_random = len(self.ratios)
            out["T4b.inequality"] = ClaimStatement(
                verdicts.greedy_inequality(audits, self.worst_random, n_random), audited
            )
        ck = self.audit
        if ck is not None and ck.ratio is not None:
            evidence = (
                f"gamma = {ck.ratio.gamma:.3f} on {self.feat_key}; the measured greedy/optimum "
                f"ratio is {ck.approximation.min():.4f}"
            )
            out["T4b.guarantee"] = ClaimValue(ck.ratio.guarantee, front, evidence)
        if self.decided:
            v = verdicts.minr_bound(self.decided, self.eye, self.minr, self.feat_key)
            out["T4c.minr_bound"] = ClaimStatement(v, [self._slice(key) for key in self.decided])
        tight = verdicts.tightness(self.tight, audits, self.worst_random, len(self.ratios))
        out["T4.tightness"] = ClaimStatement(tight, None)
        return out | self._full_claims(registered)

    def _slice(self, key: str) -> ScoreTable:
        return {f"{s} {sl}": t for (s, sl), t in self.slices.items()}[key]

    def _full_claims(self, registered: Mapping[str, Any]) -> dict[str, ClaimValue]:
        """All models of each of :data:`FULL_SUITES`; on your data your first leaderboard stands in for each (the
        ledger then holds one row for the three). Greedy runs to the end (r = k), so its coverage at the paper's r
        is there even where the target is reached earlier."""
        out: dict[str, ClaimValue] = {}
        for suite in FULL_SUITES:
            table = self.suites[suite if suite in self.suites else self.featured]
            sel = cv.greedy_select(spectrum.correlation(table), target=self.target, r=table.n_benchmarks)
            if sel.r_target is not None:
                out[f"T4.r90.{suite}.full"] = ClaimValue(sel.r_target, table)
            cov_id = f"T4.cov_r90.{suite}.full"
            r_p = int(registered[f"T4.r90.{suite}.full"].paper)
            if cov_id in registered and r_p <= len(sel.coverages):
                out[cov_id] = ClaimValue(sel.coverages[r_p - 1], table)
        return out

    def statuses(self, recorded: Mapping[str, str]) -> dict[str, str]:
        """The page's status words (r90, t4a, t4b_ineq, t4b, t4c) from the ledger's statuses, or why not checked."""
        skipped = f"not checked (k > {cv.MAX_BRUTE_K})"
        names = {
            "r90": ("T4.r90.ext_frontier", ""),
            "t4a": ("T4a.submodular", skipped),
            "t4b_ineq": ("T4b.inequality", skipped),
            "t4b": ("T4b.guarantee", f"not computed (gamma needs k <= {guarantees.RATIO_MAX_K})"),
            "t4c": ("T4c.minr_bound", "undecided (the bracket straddles the bound)"),
        }
        return {name: recorded.get(claim, why) for name, (claim, why) in names.items()}


def _slices(suites: Mapping[str, ScoreTable]) -> dict[tuple[str, str], ScoreTable]:
    slices = {}
    for name, t in suites.items():
        slices[(name, "full")] = t
        if conventions.frontier_mask(t).sum() >= MIN_MODELS:  # a frontier needs 3 models
            slices[(name, "frontier")] = conventions.frontier(t)
    return slices


def _item_scale(k_scale: int, target: float, seed: int) -> ItemScale:
    n_models = max(100, int(0.3 * k_scale))
    S, _ = synthetic.synthetic_scores(n_models=n_models, n_benchmarks=k_scale, n_factors=5, seed=seed)
    C = np.corrcoef(S, rowvar=False)
    t0 = time.perf_counter()
    g = cv.greedy_select(C, target=target)
    return ItemScale(int(k_scale), n_models, g.r_target, time.perf_counter() - t0)


def greedy_coverage_study(
    suites: Mapping[str, ScoreTable],
    *,
    target: float = 0.9,
    r_paper: int = 7,
    n_random: int = 1000,
    k_scale: int = 2000,
    seed: int = 0,
) -> GreedyCoverageStudy:
    """Greedy coverage and Theorem 4's guarantees on the leaderboards, as the greedy-coverage chapter runs them.

    Parameters
    ----------
    suites : mapping name -> ScoreTable
        The leaderboards; the featured one is "extended" when given, else the first.
    target : float
        The coverage target (the paper: 0.9).
    r_paper : int
        The paper's r for the target on the Extended frontier.
    n_random : int
        Random 12 x 12 correlation matrices of the approximation-ratio check.
    k_scale : int
        Benchmarks (columns) of the item-level scale example.
    seed : int
        Seed of the random matrices, the gain-pairs figure and the item-level example.

    Returns
    -------
    GreedyCoverageStudy

    Raises
    ------
    ValueError
        No leaderboard, a target outside (0, 1], or the coverage functions' refusals.
    """
    if not suites:
        raise ValueError("greedy_coverage_study needs at least one leaderboard")
    if not 0 < target <= 1:
        raise ValueError(f"the coverage target must lie in (0, 1], got {target}")
    slices = _slices(suites)
    featured = "extended" if "extended" in suites else next(iter(suites))
    front = slices.get((featured, "frontier"), suites[featured])
    Sigma, k, names = spectrum.correlation(front), front.n_benchmarks, front.benchmarks
    keys = {f"{s} {sl}": t for (s, sl), t in slices.items()}
    R = synthetic.random_correlations(n_random, 12, np.random.default_rng(seed))
    return GreedyCoverageStudy(
        suites=dict(suites),
        slices=slices,
        featured=featured,
        front=front,
        target=float(target),
        r_paper=int(r_paper),
        greedy=cv.greedy_select(Sigma, target=target, r=k, names=names),
        optimum=cv.brute_force_optimum(Sigma, names=names) if k <= cv.MAX_BRUTE_K else None,
        minr={key: guarantees.minr_check(spectrum.correlation(t), target) for key, t in keys.items()},
        audits={
            key: guarantees.greedy_audit(spectrum.correlation(t), t.benchmarks, target)
            for key, t in keys.items()
            if t.n_benchmarks <= cv.MAX_BRUTE_K
        },
        ratios=guarantees.approximation_ratios(R),
        singletons=[guarantees.singleton_bound(S) for S in R],
        singleton_front=guarantees.singleton_bound(Sigma),
        eye=guarantees.minr_check(np.eye(12), target),
        tight=tightness_table(),
        items=_item_scale(k_scale, target, seed),
        refusals=_refusals(Sigma, k),
        seed=int(seed),
    )
