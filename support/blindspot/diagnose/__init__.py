"""Part I, Diagnose: how many directions a leaderboard measures.

- :mod:`~blindspot.diagnose.tables` — Table 1: d_eff of full and frontier slices with intervals;
- :mod:`~blindspot.diagnose.variance_capture` — Theorem 1(a),(b): variance captured by a subspace;
- :mod:`~blindspot.diagnose.ambient_dimension` — estimating the ambient dimension D;
- :mod:`~blindspot.diagnose.robustness` — d_eff against the frontier threshold and correlation method;
- :mod:`~blindspot.diagnose.subsampling` — d_eff of random halves and subsets of the models (split-half, saturation);
- :mod:`~blindspot.diagnose.null_model` — the one-factor null model;
- :mod:`~blindspot.diagnose.peer_deff` — a peer's ED (BenchScope) beside the book's d_eff: population and frontier;
- :mod:`~blindspot.diagnose.survey_blocks`, :mod:`~blindspot.diagnose.survey_estimates`,
  :mod:`~blindspot.diagnose.survey_statements`, :mod:`~blindspot.diagnose.survey_figures` — the part-level pieces
  of the survey of many leaderboards (the densest complete block; the intervals its statements are judged on,
  ties at the top, editions and release dates; the paper's general statements judged across leaderboards by the
  calibrated rule; its figures); the survey itself is :mod:`blindspot.report.survey`;
- :mod:`~blindspot.diagnose.figures` — the figures of Part I.
"""
