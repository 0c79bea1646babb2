"""Time in the survey of leaderboards: which tables carry release dates, and how d_eff changed between editions.

The survey chapter follows d_eff through time where the data allow: from the first edition of the
Open LLM Leaderboard to the second on the models both evaluated (the two editions' benchmarks are
different, the models the same, so a change in d_eff is the benchmarks'), and, where a table carries
the release date of each model, along it. :func:`release_columns` says which metadata columns hold
release dates; :func:`compare_editions` compares two rows of the survey's table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from blindspot.data.tables import ScoreTable

__all__ = ["release_columns", "releases_sentence", "EditionChange", "compare_editions", "RELEASE_WORDS"]

#: Words of a metadata column's name that mark a date of release or submission.
RELEASE_WORDS = ("release", "date", "submission", "upload", "published")


def release_columns(table: ScoreTable) -> list[str]:
    """The metadata columns of ``table`` that hold dates of release (or submission): a name with one of
    :data:`RELEASE_WORDS` whose non-empty values read as dates (``pandas.to_datetime``) for at least 90% of
    them.

    Parameters
    ----------
    table : ScoreTable

    Returns
    -------
    list of str
        In the order of ``table.meta``; empty when none.
    """
    if not isinstance(table, ScoreTable):
        raise ValueError(f"release_columns takes a ScoreTable, got {type(table).__name__}")
    out = []
    for col in table.meta.columns:
        if not any(w in str(col).lower() for w in RELEASE_WORDS):
            continue
        vals = table.meta[col].dropna()
        if vals.empty:
            continue
        parsed = pd.to_datetime(vals.astype(str), errors="coerce", format="mixed")
        if parsed.notna().mean() >= 0.9:
            out.append(str(col))
    return out


def releases_sentence(columns: dict[str, list[str]]) -> str:
    """Which of the tables carry release dates, in words, from ``{table: release_columns(table)}``."""
    if not columns:
        return "no table was looked at for release dates"
    have = {n: c for n, c in columns.items() if c}
    without = [n for n, c in columns.items() if not c]
    parts = [f"{n} carries {', '.join(c)}" for n, c in have.items()]
    if without:
        verb = "carries" if len(without) == 1 else "carry"
        parts.append(f"{' and '.join(without) if len(without) <= 2 else ', '.join(without)} {verb} no release date")
    return "; ".join(parts)


@dataclass(frozen=True)
class EditionChange:
    """d_eff of one population under two editions' benchmarks.

    Attributes
    ----------
    population : str
        ``'all'`` or ``'frontier'``.
    before, after : float
        d_eff under the first and under the second edition.
    before_interval, after_interval : tuple of float
        Their 95% bootstrap intervals.
    overlap : bool
        Whether the two intervals overlap.
    """

    population: str
    before: float
    after: float
    before_interval: tuple[float, float]
    after_interval: tuple[float, float]
    overlap: bool

    @property
    def change(self) -> float:
        return self.after - self.before

    @property
    def sentence(self) -> str:
        """The change in words (which way, by how much, whether the intervals separate the two)."""
        way = "rises" if self.change > 0 else "falls" if self.change < 0 else "stays"
        who = "all models" if self.population == "all" else "the frontier"
        sep = "the two 95% intervals overlap" if self.overlap else "the two 95% intervals do not overlap"
        return (
            f"on {who}, d_eff {way} from {self.before:.3g} ({self.before_interval[0]:.3g}–{self.before_interval[1]:.3g}) "
            f"to {self.after:.3g} ({self.after_interval[0]:.3g}–{self.after_interval[1]:.3g}); {sep}"
        )


def compare_editions(table: pd.DataFrame, before: str, after: str, population: str = "all") -> EditionChange:
    """Compare d_eff of two rows of the survey's table (two editions' benchmarks on one set of models).

    Parameters
    ----------
    table : DataFrame
        :attr:`blindspot.report.survey.Survey.table`.
    before, after : str
        The two rows (leaderboards).
    population : {'all', 'frontier'}

    Returns
    -------
    EditionChange

    Raises
    ------
    ValueError
        An unknown row or population, or a d_eff not computed on one of them.
    """
    if population not in ("all", "frontier"):
        raise ValueError(f"population is 'all' or 'frontier', got {population!r}")
    for name in (before, after):
        if name not in table.index:
            raise ValueError(f"{name!r} is not a row of the survey; it has {list(table.index)}")
    cols = [f"d_eff_{population}", f"d_eff_{population}_lo", f"d_eff_{population}_hi"]
    vals = {}
    for name in (before, after):
        v = [table.loc[name, c] for c in cols]
        if any(x is None or x is pd.NA or (isinstance(x, float) and math.isnan(x)) for x in v):
            raise ValueError(f"d_eff ({population}) was not computed on {name!r}: {table.loc[name, 'not_computed']}")
        vals[name] = [float(x) for x in v]
    b, a = vals[before], vals[after]
    overlap = b[1] <= a[2] and a[1] <= b[2]
    return EditionChange(population, b[0], a[0], (b[1], b[2]), (a[1], a[2]), bool(overlap))
