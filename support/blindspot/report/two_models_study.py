"""Chapter 19's comparisons in one call: a ranking, a close and a far pair, paired against unpaired, AlpacaEval.

:func:`two_models_study` runs :func:`blindspot.compare` on per-item results the way the chapter "Your two
models" reads them: the ranking of every model of a right/wrong item matrix (the pooled exact McNemar test
of each adjacent pair, Holm over the steps); the **close** and the **far** pair (the pairs whose shares of
right answers lie closest and furthest apart, B the higher); every pair tested paired and unpaired on all
items and on random item subsets of benchmark size (:func:`~blindspot.prognose.paired_comparison.resolution_by_size`);
the top pair of a graded matrix (AlpacaEval's judge scores, the paired bootstrap stratified by subset); and,
when an lm-evaluation-harness ``--log_samples`` folder is given, its models ranked against the harness's own
results as the reference leaderboard. The result gives its numbers by name (:meth:`TwoModelsStudy.quantities`),
its tables, its figures, and its statements as verdicts (:meth:`TwoModelsStudy.verdicts`).

References
----------
McNemar (1947) for the exact paired test of right/wrong scores, Connor (1987) for the detectable difference
and the items needed, Efron & Tibshirani (1993) for the paired bootstrap, Holm (1979) for the adjustment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot.core.verdict import Verdict
from blindspot.data.item_results import ItemResults
from blindspot.data.tables import ScoreTable, read_table
from blindspot.prognose import comparison_words as words, figures, paired_comparison as pc
from blindspot.report.compare import Comparison, compare

__all__ = [
    "SUBSET_SIZES",
    "FIGURE_SUBSET",
    "PAIR_COLUMNS",
    "ALPACA_COLUMNS",
    "TwoModelsStudy",
    "two_models_study",
]

#: Item-subset sizes of the paired-against-unpaired table (a benchmark's worth of items).
SUBSET_SIZES = (100, 200, 500, 1000, 2000)
#: Items of the random subset on which every pair's two p-values are drawn (and of the unpaired verdict).
FIGURE_SUBSET = 1000
#: The columns of a pair's table the chapter shows (of :meth:`PairComparison.to_frame`).
PAIR_COLUMNS = ("n items", "difference", "low", "high", "p", "detectable", "decision")
#: The columns of the AlpacaEval pair's table (graded scores: the Holm-adjusted p).
ALPACA_COLUMNS = ("n items", "difference", "low", "high", "p (Holm)", "decision")


@dataclass(frozen=True)
class TwoModelsStudy:
    """Paired comparisons of models on per-item results (chapter 19).

    Attributes
    ----------
    psn, alpaca : ItemResults
        The right/wrong item matrix and the graded judge scores.
    board : Comparison
        Every model of ``psn`` ranked, adjacent pairs tested.
    pairs : PairwiseTests
        Every pair of ``psn`` on all items, paired and unpaired.
    close, far : Comparison
        The pairs whose shares of right answers lie closest and furthest apart (B the higher).
    by_size : DataFrame
        :func:`~blindspot.prognose.paired_comparison.resolution_by_size` on :data:`SUBSET_SIZES`.
    at_subset : PairwiseTests
        Every pair on one random subset of :data:`FIGURE_SUBSET` items.
    alpaca_pair : Comparison
        The two models of ``alpaca`` with the highest mean judge score (B the highest).
    harness : Comparison or None
        The ``--log_samples`` folder's models against its own results (None without the folder).
    samples : str
        The folder asked for.
    n_draws : int
        Random item subsets per size.
    """

    psn: ItemResults
    alpaca: ItemResults
    board: Comparison
    pairs: pc.PairwiseTests
    close: Comparison
    far: Comparison
    by_size: pd.DataFrame
    at_subset: pc.PairwiseTests
    alpaca_pair: Comparison
    harness: Comparison | None
    samples: str
    n_draws: int

    def quantities(self) -> dict[str, int | str]:
        """The chapter's numbers and sentences by name.

        ``psn_items`` (items, with thousands separators), ``psn_steps`` (adjacent pairs of the ranking),
        ``psn_ranking`` (how many of them are resolved, a sentence); ``close_pair``, ``far_pair`` ("B vs
        A"), ``close_text``, ``far_text`` (the micro difference with its test), ``close_detectable`` (the
        difference the close pair's items detect with 80% power, 4 decimals), ``close_discordance``,
        ``far_discordance`` (3 decimals), ``close_needed`` (items to resolve the close pair's difference);
        ``n_draws``; ``n_missed_1000`` (pairs only the paired test resolves on the subset); ``ae_models``,
        ``ae_top`` (the highest-scoring AlpacaEval model), ``ae_sentence``; ``harness_items`` (most items of
        a task, "—" without the folder) and ``harness_ranking``.
        """
        close, far = self.pairs.closest, self.pairs.furthest
        return {
            "psn_items": f"{len(self.psn.wide()):,}",
            "psn_steps": len(self.board.ranking.steps),
            "psn_ranking": words.ranking_sentence(self.board.ranking),
            "close_pair": f"{close.B} vs {close.A}",
            "far_pair": f"{far.B} vs {far.A}",
            "close_text": self.close.pair.micro.describe(),
            "far_text": self.far.pair.micro.describe(),
            "close_detectable": f"{self.close.pair.tests[0].detectable:.4f}",
            "close_discordance": f"{close.discordance:.3f}",
            "far_discordance": f"{far.discordance:.3f}",
            "close_needed": f"{pc.items_needed(close.difference, close.discordance):,}",
            "n_draws": self.n_draws,
            "n_missed_1000": len(self.at_subset.missed),
            "ae_models": len(self.alpaca.models),
            "ae_top": self.alpaca_pair.models[1],
            "ae_sentence": words.pair_sentence(self.alpaca_pair.pair),
            "harness_items": self._harness_items(),
            "harness_ranking": (
                "(not run here: no samples folder)."
                if self.harness is None
                else words.ranking_sentence(self.harness.ranking)
            ),
        }

    def _harness_items(self) -> int | str:
        if self.harness is None:
            return "—"
        return int(self.harness.items.frame.groupby("benchmark")["item"].nunique().max())

    # tables
    def pair_table(self, which: str) -> pd.DataFrame:
        """The close or the far pair's row per benchmark: :data:`PAIR_COLUMNS` of its comparison's table.

        Raises
        ------
        ValueError
            ``which`` is neither "close" nor "far".
        """
        if which not in ("close", "far"):
            raise ValueError(f"which must be 'close' or 'far', got {which!r}")
        return getattr(self, which).to_frame()[list(PAIR_COLUMNS)]

    def resolution_table(self) -> pd.DataFrame:
        """Mean pairs resolved by the paired and the unpaired test (after Holm), by subset size ("items")."""
        return self.by_size.groupby("items")[["n paired", "n unpaired"]].mean()

    def alpaca_table(self) -> pd.DataFrame:
        """The AlpacaEval pair's row per subset: :data:`ALPACA_COLUMNS` of its comparison's table."""
        return self.alpaca_pair.to_frame()[list(ALPACA_COLUMNS)]

    @property
    def harness_note(self) -> str:
        """Why the harness section shows nothing (else empty)."""
        if self.harness is not None:
            return ""
        return f":::{{note}}\nNo `--log_samples` folder at `{self.samples}`.\n:::"

    # figures
    def detectable_figure(self) -> plt.Figure:
        """The detectable difference against the number of items at the close pair's discordance.

        :func:`~blindspot.prognose.paired_comparison.mcnemar_detectable` on 60 log-spaced sizes from 100 to
        100,000 items, the close and far pairs marked at their items and differences.
        """
        close, far = self.pairs.closest, self.pairs.furthest
        ns = np.unique(np.logspace(2, 5, 60).astype(int))
        curve = np.array([pc.mcnemar_detectable(int(k), close.discordance) for k in ns], dtype=float)
        marks = {
            "close pair": (self.close.pair.tests[0].n_items, close.difference),
            "far pair": (self.far.pair.tests[0].n_items, far.difference),
        }
        return figures.detectable_curve(ns, curve, marks)

    def unpaired_figure(self) -> plt.Figure:
        """Every pair's paired p-value against its unpaired one, on the :data:`FIGURE_SUBSET`-item subset."""
        f = self.at_subset.frame
        return figures.paired_vs_unpaired(f["p paired"].to_numpy(), f["p unpaired"].to_numpy())

    def alpaca_figure(self) -> plt.Figure:
        """The AlpacaEval pair's difference per subset with its interval (:meth:`Comparison.figure`)."""
        return self.alpaca_pair.figure()

    # statements
    def verdicts(self) -> dict[str, Verdict]:
        """The chapter's statements by claim id, each judged by its test (:mod:`~blindspot.prognose.comparison_words`).

        ``YTM.far_pair.differs``, ``YTM.close_pair.differs`` (the pair's micro difference), ``YTM.unpaired.all_items``
        (every pair on all items), ``YTM.unpaired.benchmark_size`` (the unpaired test's misses on
        :data:`FIGURE_SUBSET` items) and ``YTM.alpaca.top_pair``.
        """
        return {
            "YTM.far_pair.differs": words.pair_verdict(self.far.pair),
            "YTM.close_pair.differs": words.pair_verdict(self.close.pair),
            "YTM.unpaired.all_items": words.pairwise_verdict(self.pairs),
            "YTM.unpaired.benchmark_size": words.unpaired_misses_verdict(self.by_size, FIGURE_SUBSET),
            "YTM.alpaca.top_pair": words.pair_verdict(self.alpaca_pair.pair),
        }

    def stand_in(self, claim_id: str) -> list[ScoreTable] | None:
        """The synthetic stand-in a claim was computed on (None on real data), for the ledger to see.

        The item data are not named score suites, so the claims carry no suite; the ledger still has to
        see a stand-in, to mark them "not reproducible here".
        """
        items = self.alpaca if claim_id.startswith("YTM.alpaca") else self.psn
        return [items.table()] if items.synthetic else None


def _binary_columns(wide: pd.DataFrame) -> dict[str, np.ndarray]:
    return {m: wide[m].to_numpy() for m in wide.columns}


def two_models_study(
    psn: ItemResults,
    alpaca: ItemResults,
    samples: str | os.PathLike | None = None,
    *,
    n_boot: int = 2000,
    n_draws: int = 20,
    seed: int = 0,
) -> TwoModelsStudy:
    """Rank, pair and compare models on per-item results, as chapter 19 does.

    Parameters
    ----------
    psn : ItemResults
        Right/wrong scores of several models on the same items (one benchmark).
    alpaca : ItemResults
        Graded scores of at least two models, by subset.
    samples : path, optional
        An lm-evaluation-harness ``--log_samples`` folder; compared (against its own results, one column
        per task) when it is a folder.
    n_boot : int
        Bootstrap resamples of every comparison.
    n_draws : int
        Random item subsets per size of :data:`SUBSET_SIZES`.
    seed : int
        Seed of every comparison and of every subset.

    Returns
    -------
    TwoModelsStudy

    Raises
    ------
    ValueError
        Fewer than two models, non-binary ``psn`` scores, or the comparisons' own refusals.
    """
    wide = psn.wide()
    pairs = pc.pairwise_tests(_binary_columns(wide))
    close, far = pairs.closest, pairs.furthest
    subset = wide.sample(n=FIGURE_SUBSET, random_state=seed)
    top2 = alpaca.table().scores.mean(axis=1).nlargest(2).index
    harness = None
    if samples is not None and Path(samples).is_dir():
        reference = read_table(samples, level="tasks")
        harness = compare(samples, reference=reference, n_boot=n_boot, seed=seed)
    return TwoModelsStudy(
        psn=psn,
        alpaca=alpaca,
        board=compare(psn, n_boot=n_boot, seed=seed),
        pairs=pairs,
        close=compare(psn, [close.A, close.B], n_boot=n_boot, seed=seed),
        far=compare(psn, [far.A, far.B], n_boot=n_boot, seed=seed),
        by_size=pc.resolution_by_size(_binary_columns(wide), sizes=SUBSET_SIZES, n_draws=n_draws, seed=seed),
        at_subset=pc.pairwise_tests(_binary_columns(subset)),
        alpaca_pair=compare(alpaca, [top2[1], top2[0]], n_boot=n_boot, seed=seed),
        harness=harness,
        samples=str(samples),
        n_draws=int(n_draws),
    )
