"""blindspot: the numerics of "The Evaluation Blind Spot", the support package of The Blind Spot Book.

Its subpackages follow the book: :mod:`blindspot.data` at the bottom (where files become tables: the
score table, loading, column roles, named suites, ``data fetch``, synthetic leaderboards), then
:mod:`blindspot.core` (the numerics several parts share: spectrum, swap model, coverage, convex bodies,
covering radius), then one subpackage per part —
:mod:`blindspot.diagnose` (I), :mod:`blindspot.prognose` (II), :mod:`blindspot.treat` (III),
:mod:`blindspot.tomography` (IV), :mod:`blindspot.perspective` (V, on real data) — and on top
:mod:`blindspot.report` (``blindspot analyze``) and :mod:`blindspot.book` (the build and the ledger).
Imports run downward only: ``data`` imports nothing else of ``blindspot``, ``core`` only ``data``, the parts import ``core`` and :mod:`dkps` but
not each other, and ``report`` and ``book`` may import any part.

At the top level, :func:`analyze` is the practitioner report in a notebook
(``blindspot.analyze(frame_or_path, **options)``, the options of ``blindspot analyze``). It is
imported on first use, so ``import blindspot`` stays cheap (no numpy, pandas or matplotlib).
:func:`survey` is the same for several leaderboards side by side (``blindspot.survey(paths_or_tables)``,
``blindspot survey``), imported on first use too, and :func:`compare` paired tests of models on per-item
results (``blindspot.compare(path_or_frame, models)``, ``blindspot compare``).

This face sits on the top floor: nothing inside ``blindspot`` imports it (the version lives in
:mod:`blindspot._version`), a contract of ``lint-imports`` (``pyproject.toml``) says so.
"""

from __future__ import annotations

from blindspot._version import __version__

__all__ = ["__version__", "analyze", "survey", "compare"]

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (the command's first milliseconds)
if TYPE_CHECKING:
    from blindspot.report.analyze import analyze
    from blindspot.report.compare import compare
    from blindspot.report.survey import survey


def __getattr__(name: str) -> object:
    if name == "analyze":  # PEP 562: the numerics load when the function is first asked for
        from blindspot.report.analyze import analyze

        return analyze
    if name == "survey":
        from blindspot.report.survey import survey

        return survey
    if name == "compare":
        from blindspot.report.compare import compare

        return compare
    raise AttributeError(f"module 'blindspot' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "analyze", "survey", "compare"])
