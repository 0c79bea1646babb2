"""Part II, Prognose: how far apart models that look alike can be, and how often rankings swap.

- :mod:`~blindspot.prognose.indistinguishability` — Theorem 2: the indistinguishability bound;
- :mod:`~blindspot.prognose.visible_radius` — the practitioner formula 2R·omega (Table 2);
- :mod:`~blindspot.prognose.statistical_radius` — geometric against bootstrap radius;
- :mod:`~blindspot.prognose.rank_classes` — rank equivalence classes;
- :mod:`~blindspot.prognose.anisotropic_swap` — Proposition 2: swaps under an anisotropic hidden covariance;
- :mod:`~blindspot.prognose.rank_reversal` — Corollary 2: rank reversal when a model is added;
- :mod:`~blindspot.prognose.width_model` — Proposition 1: the width model and its linearisation;
- :mod:`~blindspot.prognose.domination` — the Shephard / domination corollary;
- :mod:`~blindspot.prognose.paired_comparison` — two models item by item: McNemar, the paired bootstrap, the
  detectable difference, Holm, the ranking of adjacent pairs, the split by a leaderboard's visible directions;
- :mod:`~blindspot.prognose.comparison_words` — the sentences and verdicts of such a comparison;
- :mod:`~blindspot.prognose.figures` — the figures of Part II.
"""
