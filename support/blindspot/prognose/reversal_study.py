"""Corollary 2 on a leaderboard in one call: one draw's reversals, the H.9 rates, the counterexamples.

:func:`reversal_study` draws models from the top of a leaderboard exactly as the paper's code does
(:mod:`blindspot.prognose.rank_reversal`: ``default_rng(seed)`` for the draws, ``default_rng(7)`` for the
aggregator table), and returns a :class:`ReversalStudy`: every number a page shows by name
(:meth:`ReversalStudy.quantities`), the tables and figures a page shows, and the paper's claims it answers
(:meth:`ReversalStudy.claims`).

References
----------
The paper's Corollary 2 and App. H.9.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core.claim_value import ClaimStatement, ClaimValue
from blindspot.core.conventions import frontier
from blindspot.data.tables import ScoreTable
from blindspot.prognose import figures, rank_reversal as rr, verdicts

__all__ = ["ROW_WISE", "ReversalStudy", "reversal_study"]

#: The row-wise aggregators the z-mean is set against (each scores a model from its own row only).
ROW_WISE = ("mean", "median", "geomean")


@dataclass(frozen=True)
class ReversalStudy:
    """Reversals when one model joins a draw of models from a leaderboard's top.

    Attributes
    ----------
    population : ScoreTable
        The top of the leaderboard the draws come from.
    n_all : int
        Models of the whole leaderboard.
    n_asked : int
        Models per draw asked for; :attr:`n_models` is at most the population's size.
    n_models, n_draws : int
    draw : ndarray
        The first draw's scores (models x benchmarks), sorted by the models' place in the population.
    names : list of str
        Short names of the first draw's models.
    events : DataFrame
        The first draw's reversals (:func:`~blindspot.prognose.rank_reversal.reversal_events`: ``added``,
        ``above_before``, ``below_before``, ...).
    one : ReversalRates
        The first draw's count and d_eff.
    eight : ReversalRates or None
        The same for a first draw of 8 models (the paper's second example; None on a population under 8).
    flip : AdditionFlip
        The first model whose addition reverses a pair, added to the others of the first draw.
    flip_labels : list of str
        The names of :attr:`flip`'s models.
    rates : ReversalRates
        The z-mean's counts over the draws.
    raw : dict of str to ndarray
        Each row-wise aggregator's counts on the same draws.
    aggregators : DataFrame
        :func:`~blindspot.prognose.rank_reversal.aggregator_comparison` (indexed by aggregator).
    two_models, three_models : AdditionFlip
        The counterexamples to the converse (:func:`~.rank_reversal.two_model_counterexample`,
        :func:`~.rank_reversal.converse_counterexample`).
    """

    population: ScoreTable
    n_all: int
    n_asked: int
    n_models: int
    n_draws: int
    draw: np.ndarray
    names: list[str]
    events: pd.DataFrame
    one: rr.ReversalRates
    eight: rr.ReversalRates | None
    flip: rr.AdditionFlip
    flip_labels: list[str]
    rates: rr.ReversalRates
    raw: dict[str, np.ndarray]
    aggregators: pd.DataFrame
    two_models: rr.AdditionFlip
    three_models: rr.AdditionFlip

    @property
    def raw_total(self) -> int:
        """Reversals of the row-wise aggregators on the draws, in total (zero: nothing moves a row's score)."""
        return int(sum(c.sum() for c in self.raw.values()))

    @property
    def n_reaching(self) -> int:
        """Draws whose d_eff reaches n - 1, where Corollary 2's premise no longer holds."""
        return int(np.sum(self.rates.d_effs >= self.n_models - 1))

    @property
    def smaller_draws(self) -> str:
        """A note when the population is smaller than the draws asked for (else empty)."""
        if self.n_models >= self.n_asked:
            return ""
        return (
            f":::{{important}}\nThe top 30% of this leaderboard has only {self.population.n_models} models, fewer "
            f"than the {self.n_asked} per draw the paper uses: each draw below takes {self.n_models}.\n:::"
        )

    def quantities(self) -> dict[str, float | int | str]:
        """The numbers of the study by name.

        ``n_top``, ``n_all``, ``n_models``, ``n_draws``, ``k`` (benchmarks); the first draw's ``one_count`` and
        ``one_deff``; the z-mean's ``mean`` and ``sd`` reversals per draw, ``frac_ge1`` and ``frac_ge3`` (shares
        of draws with at least 1 and 3), ``deff_max``; ``raw_total``; ``n_reaching`` and ``n_minus_1``; the
        counterexamples' ``two_deff``, ``two_n``, ``three_deff``, ``three_n``, ``three_pairs`` (in words) and
        ``two_flips`` (whether the added model "swaps the two models" or "leaves their order").
        """
        r, ce2, ce3 = self.rates, self.two_models, self.three_models
        pairs = ", ".join(f"models {i + 1} and {j + 1}" for i, j in ce3.flipped) or "no pair"
        return {
            "n_top": self.population.n_models, "n_all": self.n_all, "n_models": self.n_models,
            "n_draws": self.n_draws, "k": self.population.n_benchmarks,
            "one_count": len(self.events), "one_deff": float(self.one.d_effs[0]),
            "mean": r.mean, "sd": r.sd, "frac_ge1": r.frac_ge1, "frac_ge3": r.frac_ge3,
            "deff_max": float(r.d_effs.max()), "raw_total": self.raw_total,
            "n_reaching": self.n_reaching, "n_minus_1": self.n_models - 1,
            "two_deff": ce2.d_eff, "two_n": ce2.n, "three_deff": ce3.d_eff, "three_n": ce3.n, "three_pairs": pairs,
            "two_flips": verdicts.flips_word(bool(ce2.flipped)),
        }  # fmt: skip

    def figures(self) -> dict[str, plt.Figure]:
        """The page's figures by name: ``one-flip`` (:meth:`flip_figure`), ``reversal-hist``
        (:meth:`reversal_figure`) and ``converse`` (:meth:`converse_figure`)."""
        return {"one-flip": self.flip_figure(), "reversal-hist": self.reversal_figure(),
                "converse": self.converse_figure()}  # fmt: skip

    def flip_figure(self) -> plt.Figure:
        """The first draw without the model whose addition first reverses a pair: each model's aggregate before
        and after that addition, the reversed pairs in colour."""
        flip = self.flip
        return figures.addition_slope(flip.before, flip.after, self.flip_labels, flip.flipped)

    def reversal_figure(self) -> plt.Figure:
        """The reversal counts per draw: the z-mean's (population-relative) against the raw mean's (the row-wise
        aggregators all count zero)."""
        hist = {
            "z-mean (population-relative)": self.rates.counts,
            "raw mean / median / geometric mean": self.raw["mean"],
        }
        return figures.reversal_hist(hist)

    def converse_figure(self) -> plt.Figure:
        """The three-model counterexample to the converse: each model's aggregate before and after the addition."""
        ce3 = self.three_models
        return figures.addition_slope(
            ce3.before, ce3.after, [f"model {i + 1}" for i in range(len(ce3.before))], ce3.flipped
        )

    def two_models_table(self) -> pd.DataFrame:
        """The two-model counterexample's aggregates: columns ``before`` and ``after adding (100, 100, 2.5)`` (the
        added model's scores), rows ``model 1``, ``model 2``."""
        ce2 = self.two_models
        added = ", ".join(f"{v:g}" for v in rr.two_model_counterexample()[1])
        index = [f"model {i + 1}" for i in range(len(ce2.before))]
        return pd.DataFrame({"before": ce2.before, f"after adding ({added})": ce2.after}, index=index)

    def claims(self) -> dict[str, ClaimValue | ClaimStatement]:
        """The chapter's claims in recording order (for ``Ledger.record``), on the population the draws come from.

        ``H9.mean``, ``H9.sd``, ``H9.ge1``, ``H9.ge3`` (the z-mean's rates) and ``H9.agg.<aggregator>`` (each
        row-wise aggregator's mean reversals, :data:`ROW_WISE`); ``exp4.n12.count``/``.deff`` (the first draw)
        and ``exp4.n8.count``/``.deff`` (a first draw of 8, when the population has 8 models);
        ``C2.premise_literal`` and ``C2.premise`` (:func:`~.verdicts.premise_literal`,
        :func:`~.verdicts.premise_reached`) and ``C2.converse`` (:func:`~.verdicts.converse`, on no table).
        """
        r, top, m = self.rates, self.population, self.n_models
        h9 = {"mean": r.mean, "sd": r.sd, "ge1": r.frac_ge1, "ge3": r.frac_ge3}
        h9 |= {f"agg.{a}": self.aggregators.loc[a, "mean_reversals"] for a in ROW_WISE}
        out: dict[str, ClaimValue | ClaimStatement] = {f"H9.{k}": ClaimValue(v, top) for k, v in h9.items()}
        for n, rates in (("n12", self.one), ("n8", self.eight)):
            if rates is not None:  # a draw of 8 needs 8 models at the top
                out[f"exp4.{n}.count"] = ClaimValue(rates.counts[0], top)
                out[f"exp4.{n}.deff"] = ClaimValue(rates.d_effs[0], top)
        out["C2.premise_literal"] = ClaimStatement(verdicts.premise_literal(r, m, self.n_draws), top)
        reached = verdicts.premise_reached(r, m, self.n_draws, top.n_benchmarks, self.raw_total)
        out["C2.premise"] = ClaimStatement(reached, top)
        out["C2.converse"] = ClaimStatement(verdicts.converse(self.two_models, self.three_models))
        return out


def reversal_study(
    table: ScoreTable, n_models: int = 12, n_draws: int = 200, seed: int = 0, q: float = 0.7, aggregator_seed: int = 7
) -> ReversalStudy:
    """Draw ``n_models`` (at most the population) from ``table``'s top ``1 - q`` ``n_draws`` times, as App. H.9.

    The first draw (``default_rng(seed)``, sorted) is shown model by model; the z-mean's counts and the
    row-wise aggregators' on the same draws; the aggregator table on 100 draws of ``default_rng(aggregator_seed)``.

    Raises
    ------
    ValueError
        A population of fewer than 3 models (see :func:`~blindspot.prognose.rank_reversal.draw_subpopulation`).
    """
    top = frontier(table, q=q)
    m = min(n_models, top.n_models)
    pick = np.sort(rr.draw_subpopulation(top.n_models, m, np.random.default_rng(seed)))
    draw = top.values[pick]
    names = [n.split("/")[-1][:28] for n in top.scores.index[pick]]
    events = rr.reversal_events(draw, names=names)
    x = names.index(events.iloc[0]["added"]) if len(events) else 0
    flip = rr.add_model_flips(np.delete(draw, x, axis=0), draw[x])
    raw = {a: rr.reversal_rates(top, n_models=m, n_draws=n_draws, aggregator=a, seed=seed).counts for a in ROW_WISE}
    return ReversalStudy(
        top,
        table.n_models,
        n_models,
        m,
        n_draws,
        draw,
        names,
        events,
        rr.reversal_rates(top, n_models=m, n_draws=1, seed=seed),
        rr.reversal_rates(top, n_models=8, n_draws=1, seed=seed) if top.n_models >= 8 else None,
        flip,
        [s for i, s in enumerate(names) if i != x],
        rr.reversal_rates(top, n_models=m, n_draws=n_draws, seed=seed),
        raw,
        rr.aggregator_comparison(top, n_models=m, n_draws=100, seed=aggregator_seed),
        rr.add_model_flips(*rr.two_model_counterexample()),
        rr.add_model_flips(*rr.converse_counterexample()),
    )
