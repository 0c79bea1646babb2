"""Part IV, Geometric tomography: recovering a convex body from m widths (Theorem 3).

- :mod:`~blindspot.tomography.reconstruction` — width reconstruction, its rates and side claims;
- :mod:`~blindspot.tomography.harmonic_fit` — the spherical-harmonic fit of widths in D = 3;
- :mod:`~blindspot.tomography.tomography_study` — the chapter's study in one call (rates, witnesses, ledger records);
- :mod:`~blindspot.tomography.figures` — the figures of Part IV.
"""
