"""Part I, Diagnose: how many directions a leaderboard measures.

- :mod:`~blindspot.diagnose.tables` — Table 1: d_eff of full and frontier slices with intervals;
- :mod:`~blindspot.diagnose.variance_capture` — Theorem 1(a),(b): variance captured by a subspace;
- :mod:`~blindspot.diagnose.ambient_dimension` — estimating the ambient dimension D;
- :mod:`~blindspot.diagnose.robustness` — d_eff against the frontier threshold and correlation method;
- :mod:`~blindspot.diagnose.subsampling` — d_eff of random halves and subsets of the models (split-half, saturation);
- :mod:`~blindspot.diagnose.null_model` — the one-factor null model;
- :mod:`~blindspot.diagnose.figures` — the figures of Part I.
"""
