"""Part III, Treat: choosing benchmarks, and what the choice guarantees.

- :mod:`~blindspot.treat.guarantees` — Theorem 4 checked: submodularity, greedy's guarantee, the min-r bound;
- :mod:`~blindspot.treat.stable_core` — the bootstrap stable core of greedy selection;
- :mod:`~blindspot.treat.transfer` — does a subset chosen on one population cover another;
- :mod:`~blindspot.treat.subset_objectives` — other selection rules and rank preservation;
- :mod:`~blindspot.treat.radius_from_coverage` — Proposition 3: the indistinguishability radius from coverage;
- :mod:`~blindspot.treat.spectral_weighting` — Proposition 4: the spectral weighting of coverage;
- :mod:`~blindspot.treat.perturbation` — Proposition 5: coverage under a perturbed correlation matrix;
- :mod:`~blindspot.treat.iterative_closure` — Theorem 5: iterative blind-spot closure;
- :mod:`~blindspot.treat.counterfactual` — leave-one-benchmark-out and external evaluations;
- :mod:`~blindspot.treat.selector_comparison` — greedy coverage against random subsets + regression (and the
  other rules), interpolation and extrapolation to the frontier; :mod:`~blindspot.treat.ridge_loo` — its batched
  ridge with leave-one-out penalties;
- the chapters' studies, one call each returning a result with its quantities, tables, figures and ledger
  records: :mod:`~blindspot.treat.greedy_coverage_study` (Theorem 4), :mod:`~blindspot.treat.temporal_transfer_study`
  (App. H.13-H.14), :mod:`~blindspot.treat.bridge_study` (Propositions 3 and 4),
  :mod:`~blindspot.treat.selector_study` (greedy against random subsets);
- :mod:`~blindspot.treat.figures` — the figures of Part III.
"""
