"""The shared numerics of the blind-spot theory: what several parts of the book use.

- :mod:`~blindspot.core.conventions` — the paper's conventions: z-scores, frontier, aggregate, radius, gap;
- :mod:`~blindspot.core.spectrum` — d_eff (participation ratio), Marchenko–Pastur edge, bootstrap;
- :mod:`~blindspot.core.swap` — the chi-squared swap model (Corollary 1);
- :mod:`~blindspot.core.halfsplit` — the half-split swap measurement and its calibration;
- :mod:`~blindspot.core.coverage` — spectral coverage f(T), greedy selection, brute force;
- :mod:`~blindspot.core.convex_bodies` — convex bodies given by support functions;
- :mod:`~blindspot.core.covering` — the angular covering radius of benchmark directions;
- :mod:`~blindspot.core.theme` — the book's figure theme.

The tables these numerics take come from the floor below, :mod:`blindspot.data`; ``core`` imports
no other part of ``blindspot``.
"""
