"""blindspot: the numerics of "The Evaluation Blind Spot", the support package of The Blind Spot Book.

Its subpackages follow the book: :mod:`blindspot.core` (what several parts share: score tables,
spectrum, swap model, coverage, convex bodies, covering radius), then one subpackage per part —
:mod:`blindspot.diagnose` (I), :mod:`blindspot.prognose` (II), :mod:`blindspot.treat` (III),
:mod:`blindspot.tomography` (IV), :mod:`blindspot.perspective` (V, on real data) — and on top
:mod:`blindspot.report` (``blindspot analyze``) and :mod:`blindspot.book` (the build and the ledger).
Imports run downward only: ``core`` imports no part, the parts import ``core`` and :mod:`dkps` but
not each other, and ``report`` and ``book`` may import any part.
"""

__version__ = "0.1.0"
