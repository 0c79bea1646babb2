"""What a reader hands to the table builder: the frame as read, and what the format itself says about it.

Every input format (:mod:`blindspot.data.readers`) returns a :class:`RawFrame`: one row per model as the
source has it, the notes saying what the reader inferred, and what the format declares beyond the numbers
(the model column, the columns whose lower scores are better, each column's declared scale, the columns
that hold another column's standard error, the source's own aggregates). The table builder
(:func:`blindspot.data.tables.table_from_raw`) honours each of them and says so in the table's notes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pandas as pd

__all__ = ["RawFrame"]


@dataclass(frozen=True)
class RawFrame:
    """A score source as read, with what its format declares.

    Attributes
    ----------
    frame : DataFrame
        One row per model as the source has it (the model names in a column).
    notes : tuple of str
        What the reader inferred, for the table's notes.
    models_col : str or None
        The column of model names when the format names it (else it is detected).
    lower_is_better : tuple of str
        Columns whose lower scores are better, as the format declares (EEE's ``lower_is_better``, a
        harness metric whose ``higher_is_better`` is false).
    scales : mapping of str to (float, float)
        The declared range of a column's scores (EEE's ``min_score``/``max_score``): scores outside it are
        named in the table's warnings, and a lower-is-better column is flipped within it.
    uncertainty : mapping of str to str
        Score column -> the column of the frame holding its standard error (kept as metadata).
    aggregates : mapping of str to str
        Columns the source itself marks as summaries of the others (a leaderboard's ``Mean score``), with
        the reason: left out of the benchmarks unless named.
    name : str or None
        A name for the table (a leaderboard's folder) when the path's stem would not say it.
    format : str
        The key of the reader that read it (:data:`blindspot.data.readers.FORMATS`).
    """

    frame: pd.DataFrame
    notes: tuple[str, ...] = ()
    models_col: str | None = None
    lower_is_better: tuple[str, ...] = ()
    scales: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    uncertainty: Mapping[str, str] = field(default_factory=dict)
    aggregates: Mapping[str, str] = field(default_factory=dict)
    name: str | None = None
    format: str = "file"
