"""A DataFrame handed in by a user (``blindspot.analyze(df)``), read as a file is: into a :class:`RawFrame`.

A frame needs what a file's reader does for a file: model names held in the index become a column (an
unnamed integer index is row numbers, as after ``pd.read_csv``); MultiIndex columns are flattened, their
levels joined by a space, with a note; a MultiIndex of rows is refused with the way forward.
"""

from __future__ import annotations

import pandas as pd

from blindspot.data.raw_frame import RawFrame

__all__ = ["raw_from_dataframe"]


def _flat(name: object) -> str:
    parts = name if isinstance(name, tuple) else (name,)
    return " ".join(str(p).strip() for p in parts if str(p).strip() and not str(p).startswith("Unnamed: "))


def raw_from_dataframe(df: pd.DataFrame, models_col: str | None = None) -> RawFrame:
    """A user's frame as a :class:`RawFrame` (the model names in a column), with notes on what was done.

    Parameters
    ----------
    df : DataFrame
        One row per model; the model names in the index (named, or not integers) or in a column.
    models_col : str, optional
        The column of model names, when the user names it (then the index is left alone).

    Raises
    ------
    ValueError
        A MultiIndex of rows, or an index named as one of the columns.
    """
    notes: list[str] = []
    if isinstance(df.columns, pd.MultiIndex):
        flat = [_flat(c) for c in df.columns]
        notes.append(
            f"the frame's columns have {df.columns.nlevels} levels (a MultiIndex): each name is its levels joined by a "
            f"space (e.g. {flat[0]!r}); flatten them yourself to choose other names"
        )
        df = df.copy()
        df.columns = flat
    idx = df.index
    names_in_index = idx.name is not None or not (
        pd.api.types.is_integer_dtype(idx.dtype) or isinstance(idx, pd.RangeIndex)
    )
    if not names_in_index or (models_col is not None and models_col in map(str, df.columns)):
        return RawFrame(df, tuple(notes), models_col=models_col)
    if isinstance(idx, pd.MultiIndex):
        raise ValueError(
            "the frame has a MultiIndex of rows; give one row per model, with the model names in the index or in a "
            "column (e.g. df.reset_index())"
        )
    name = str(idx.name) if idx.name is not None else "model"
    if name in map(str, df.columns):
        raise ValueError(
            f"the frame's index is named {name!r}, as one of its columns; rename one (the index is taken for the "
            f"model names)"
        )
    return RawFrame(df.rename_axis(name).reset_index(), tuple(notes), models_col=models_col or name)
