"""Part IV, Geometric tomography: recovering a convex body from m widths (Theorem 3).

- :mod:`~blindspot.tomography.reconstruction` — width reconstruction, its rates and side claims;
- :mod:`~blindspot.tomography.figures` — the figures of Part IV.
"""
