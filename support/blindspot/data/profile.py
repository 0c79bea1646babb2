"""Each column of a score file profiled once: its cells read as numbers (the one parser of the data floor), and
what the loader's steps ask of a column.

A :class:`ColumnProfile` is made for every column right after the headers are read (:func:`profile_columns`), and
every later step reads it instead of the column: the key rows (:func:`blindspot.data.columns.find_models_column`: is
it text?), the summary rows (:func:`blindspot.data.rows.drop_summary_rows`: its numbers), the roles
(:func:`blindspot.data.columns.classify_columns`) and the scores. A step that leaves rows out takes the profiles of
the rows kept (:meth:`ColumnProfile.take`): each cell's reading (a regular expression per cell, the costly part) is
kept, and only the column's notation is decided again on the rows that remain, so a profile taken on fewer rows is
the profile of the column written with fewer rows.

Numbers written as text are parsed when their notation is unambiguous: percent strings (``61.2%`` -> 61.2),
thousands separators (``1,234.5`` -> 1234.5), decimal commas (``61,2`` -> 61.2) and values with an uncertainty
(``61.2 ± 0.3`` or ``61.2 +/- 0.3`` -> 61.2, the ± part kept apart); a column mixing notations, or whose commas
could be either, is refused with the column named (:func:`parse_number_column`).
"""

from __future__ import annotations

import decimal
import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = [
    "NA_TOKENS",
    "NumberColumn",
    "parse_number_column",
    "is_number_column",
    "ColumnProfile",
    "profile_column",
    "profile_columns",
    "take_rows",
]

#: Cell texts that mean "no value" in a score column (a model may still be *named* "NA").
NA_TOKENS = frozenset(
    {"", "na", "n/a", "nan", "-nan", "null", "none", "<na>", "nat", "#n/a", "#n/a n/a", "#na", "1.#ind", "-1.#ind"}
    | {"1.#qnan", "-1.#qnan", "-", "--", "\u2014"}
)

_NUM = r"(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_PLAIN = re.compile(rf"^[+-]?{_NUM}$")
_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")  # 1,234 or 1,234.5
_DEC_COMMA = re.compile(r"^[+-]?\d+,\d+$")  # 61,2 (also 1,234: ambiguous)
_EU_THOUSANDS = re.compile(r"^[+-]?\d{1,3}(?:\.\d{3})+,\d+$")  # 1.234,5
# 61.2 ± 0.3, 61.2 +/- 0.3, 61.2% ± 0.3%, 61,2 ± 0,3: the value, then its uncertainty
_PLUS_MINUS = re.compile(
    r"^(?P<v>[^\s±]+?)\s*(?P<p>%?)\s*(?:±|\+/-|\+-)\s*(?P<u>\d+(?:[.,]\d+)?(?:[eE][+-]?\d+)?)\s*%?$"
)


@dataclass(frozen=True)
class NumberColumn:
    """A column read as numbers.

    Attributes
    ----------
    values : ndarray of float
        The numbers (NaN for an empty cell or a cell that is not a number).
    bad : ndarray of bool
        Cells that held something that is not a number (as opposed to an empty / NA cell).
    notation : str or None
        ``None`` for ordinary numbers; ``'percent'``, ``'thousands'`` or ``'decimal comma'`` when
        text in that notation was parsed.
    uncertainty : ndarray of float or None
        The ± part of cells written ``61.2 ± 0.3`` (NaN where a cell has none), or None when no cell has one.
    """

    values: np.ndarray
    bad: np.ndarray
    notation: str | None
    uncertainty: np.ndarray | None = None


def _cell_kind(s: str) -> tuple[str, str]:
    """(kind, normalised text) of one non-empty cell: plain / percent / thousands / dec / ambiguous / text."""
    pct = s.endswith("%")
    body = s[:-1].strip() if pct else s
    body = body.replace("\u2212", "-")
    if _PLAIN.match(body):
        kind = "plain"
    elif _THOUSANDS.match(body) and _DEC_COMMA.match(body):
        kind = "ambiguous"  # 1,234: a thousands separator or a decimal comma
    elif _THOUSANDS.match(body):
        kind = "thousands"
    elif _DEC_COMMA.match(body) or _EU_THOUSANDS.match(body):
        kind = "dec"
    else:
        return "text", s
    return ("pct-" + kind if pct else kind), body


def _to_float(body: str, comma: str | None) -> float:
    if comma == "thousands":
        return float(body.replace(",", ""))
    if comma == "dec":
        return float(body.replace(".", "").replace(",", "."))
    return float(body)


def _real_column(col: pd.Series, name: str) -> NumberColumn:
    """A complex column as its real numbers when every imaginary part is 0; else a one-line refusal (a score is
    never a complex number's real part, silently)."""
    z = col.to_numpy(dtype=complex)
    if np.any(np.abs(z.imag) > 0):
        k = int(np.flatnonzero(np.abs(z.imag) > 0)[0])
        raise ValueError(
            f"column {name!r} holds complex numbers (e.g. {complex(z[k])!r} in data row {k + 1}); a score is a real "
            f"number: give its real part or its magnitude as the column"
        )
    return NumberColumn(z.real.astype(float), np.zeros(len(col), bool), None)


def _typed_column(col: pd.Series, name: str) -> NumberColumn | None:
    """A column whose dtype decides it (booleans and dates: no numbers; complex: :func:`_real_column`; numbers: as
    they are), else None (text, parsed cell by cell)."""
    if pd.api.types.is_bool_dtype(col.dtype):
        return NumberColumn(np.full(len(col), np.nan), np.asarray(col.notna()), None)
    if pd.api.types.is_complex_dtype(col.dtype):
        return _real_column(col, name)
    if pd.api.types.is_numeric_dtype(col.dtype):
        v = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
        return NumberColumn(v, np.zeros(len(col), bool), None)
    if pd.api.types.is_datetime64_any_dtype(col.dtype) or isinstance(col.dtype, pd.PeriodDtype):
        return NumberColumn(np.full(len(col), np.nan), np.asarray(col.notna()), None)
    return None


@dataclass(frozen=True)
class _Cells:
    """A text column's cells, each read once: numbers given as numbers, cells that are no number, the ± part, and
    each number written as text with its kind (plain, percent, thousands, decimal comma, ambiguous) and its text."""

    values: np.ndarray
    bad: np.ndarray
    unc: np.ndarray
    kind: np.ndarray  # object: the kind of a number written as text, else None
    body: np.ndarray  # object: its normalised text, else None

    def take(self, rows: np.ndarray) -> _Cells:
        return _Cells(self.values[rows], self.bad[rows], self.unc[rows], self.kind[rows], self.body[rows])


def _scan(col: pd.Series) -> _Cells:
    """Read each cell of a text column once (the regular expressions of :func:`_cell_kind`)."""
    n = len(col)
    values, bad, unc = np.full(n, np.nan), np.zeros(n, bool), np.full(n, np.nan)
    kind, body = np.full(n, None, dtype=object), np.full(n, None, dtype=object)
    for i, x in enumerate(col.tolist()):
        if x is None or x is pd.NA or x is pd.NaT:
            continue
        if isinstance(x, (bool, np.bool_)):
            bad[i] = True
            continue
        if isinstance(x, (int, float, np.integer, np.floating, decimal.Decimal)):  # Decimal: from read_sql
            if not np.isnan(float(x)):
                values[i] = float(x)
            continue
        if not isinstance(x, str):
            bad[i] = True
            continue
        s = x.strip()
        if s.lower() in NA_TOKENS:
            continue
        if pm := _PLUS_MINUS.match(s):
            unc[i] = float(pm.group("u").replace(",", "."))
            s = pm.group("v") + pm.group("p")
        k, b = _cell_kind(s)
        if k == "text":
            bad[i] = True
            continue
        kind[i], body[i] = k, b
    return _Cells(values, bad, unc, kind, body)


def _comma(bodies: list[tuple[int, str, str]], name: str) -> str | None:
    """The column's one reading of its commas (``'dec'``, ``'thousands'`` or None), or a refusal naming it."""
    base = {k.removeprefix("pct-") for _, k, _ in bodies}
    if {"thousands", "dec"} <= base:
        raise ValueError(
            f"column {name!r} mixes thousands separators and decimal commas; write its numbers with '.' decimals and no "
            f"separators"
        )
    comma: str | None = None
    if "dec" in base:
        comma = "dec"
    elif "thousands" in base or ("ambiguous" in base and "plain" in base and any("." in b for _, _, b in bodies)):
        comma = "thousands"
    elif "ambiguous" in base:
        ex = next(b for _, k, b in bodies if k.removeprefix("pct-") == "ambiguous")
        raise ValueError(
            f"column {name!r} holds numbers such as {ex!r} whose comma may be a thousands separator or a decimal "
            f"comma; write its numbers with '.' decimals and no separators"
        )
    if comma == "dec" and any(k.removeprefix("pct-") == "plain" and "." in b for _, k, b in bodies):
        raise ValueError(
            f"column {name!r} mixes decimal commas with decimal points; write its numbers with '.' decimals only"
        )
    return comma


def _decide(cells: _Cells, name: str) -> NumberColumn:
    """The column's notation, decided on all its cells (one notation for its commas, percent signs on all or none
    of its numbers), and its numbers."""
    values = cells.values.copy()
    uncertainty = cells.unc.copy() if np.isfinite(cells.unc).any() else None
    bodies = [(int(i), cells.kind[i], cells.body[i]) for i in np.flatnonzero(pd.notna(cells.kind))]
    if not bodies:
        return NumberColumn(values, cells.bad.copy(), None, uncertainty)
    pct = {k.startswith("pct-") for _, k, _ in bodies}
    if pct == {True, False}:
        ex_p = next(b for _, k, b in bodies if k.startswith("pct-"))
        ex_n = next(b for _, k, b in bodies if not k.startswith("pct-"))
        raise ValueError(
            f"column {name!r} mixes percent strings ({ex_p}%) with plain numbers ({ex_n}); write every cell the same way"
        )
    comma = _comma(bodies, name)
    for i, _, b in bodies:
        values[i] = _to_float(b, comma)
    base = {k.removeprefix("pct-") for _, k, _ in bodies}
    notation = None
    if True in pct:
        notation = "percent"
    elif comma == "thousands" and base & {"thousands", "ambiguous"}:
        notation = "thousands"
    elif comma == "dec":
        notation = "decimal comma"
    return NumberColumn(values, cells.bad.copy(), notation, uncertainty)


def parse_number_column(col: pd.Series, name: str = "column") -> NumberColumn:
    """Read one column as numbers, parsing numbers written as text when the notation is clear.

    Numeric dtypes pass through. Text cells are classified as plain numbers, percent strings,
    numbers with thousands separators or with decimal commas; NA tokens (:data:`NA_TOKENS`) are
    missing. The whole column must use one notation for its commas and either all or none of its
    numbers must carry a percent sign.

    Raises
    ------
    ValueError
        Percent strings mixed with plain numbers, thousands separators mixed with decimal commas,
        or commas that could be either (``1,234`` and nothing to decide), with the column named.
    """
    if (typed := _typed_column(col, name)) is not None:
        return typed
    return _decide(_scan(col), name)


def _numeric_share(nc: NumberColumn) -> bool:
    """At least half of the non-empty cells are numbers."""
    n_num = int(np.isfinite(nc.values).sum()) + int(np.isinf(nc.values).sum())
    n_present = n_num + int(nc.bad.sum())
    return n_present > 0 and n_num / n_present >= 0.5


def is_number_column(col: pd.Series, name: str = "column") -> bool:
    """True when at least half of the non-empty cells are numbers (in any notation of :func:`parse_number_column`).

    Booleans and dates are not numbers. A column whose notation is refused counts as numeric (so
    the refusal reaches the user instead of the column being dropped as text).
    """
    return profile_column(col, name).is_number


@dataclass(frozen=True)
class ColumnProfile:
    """One column, read once: what every step of the loader asks of it.

    Attributes
    ----------
    name : str
        The column's header.
    dtype : numpy or pandas dtype
        Its dtype as read (booleans and dates are never numbers; a column of a number dtype needs no parsing).
    present : ndarray of bool
        Cells that hold something (not NA).
    number : NumberColumn or None
        Its cells as numbers (:func:`parse_number_column`), None when its notation is refused.
    error : str or None
        The refusal of its notation (raised when the column is used as numbers, :meth:`numbers`).
    cells : _Cells or None
        A text column's cells as read, so that :meth:`take` decides its notation again on fewer rows without
        reading a cell twice.
    """

    name: str
    dtype: object
    present: np.ndarray
    number: NumberColumn | None
    error: str | None = None
    cells: _Cells | None = None

    @property
    def n_rows(self) -> int:
        """The number of rows."""
        return int(self.present.size)

    @property
    def is_bool(self) -> bool:
        """A boolean column (a flag, never a score)."""
        return bool(pd.api.types.is_bool_dtype(self.dtype))

    @property
    def is_number(self) -> bool:
        """At least half of its non-empty cells are numbers (:func:`is_number_column`); a refused notation counts
        as numeric, so that the refusal reaches the user."""
        if self.is_bool or pd.api.types.is_datetime64_any_dtype(self.dtype):
            return False
        if pd.api.types.is_numeric_dtype(self.dtype):
            return bool(self.present.any())
        return True if self.number is None else _numeric_share(self.number)

    @property
    def is_text(self) -> bool:
        """A column of text: neither a number, a boolean nor a date column (a candidate for the model names)."""
        return not (self.is_bool or pd.api.types.is_datetime64_any_dtype(self.dtype)) and not self.is_number

    def numbers(self) -> NumberColumn:
        """Its cells as numbers.

        Raises
        ------
        ValueError
            Its notation is refused (:func:`parse_number_column`'s message).
        """
        if self.number is None:
            raise ValueError(self.error)
        return self.number

    def take(self, rows: np.ndarray) -> ColumnProfile:
        """The profile of the rows ``rows`` (positions or a boolean mask): the cells as read, the notation decided
        again on them."""
        present = self.present[rows]
        if self.cells is not None:
            cells = self.cells.take(rows)
            try:
                return ColumnProfile(self.name, self.dtype, present, _decide(cells, self.name), None, cells)
            except ValueError as exc:
                return ColumnProfile(self.name, self.dtype, present, None, str(exc), cells)
        if self.number is None:
            return ColumnProfile(self.name, self.dtype, present, None, self.error)
        nc = self.number
        unc = None if nc.uncertainty is None else nc.uncertainty[rows]
        return ColumnProfile(
            self.name, self.dtype, present, NumberColumn(nc.values[rows], nc.bad[rows], nc.notation, unc)
        )


def profile_column(col: pd.Series, name: str | None = None) -> ColumnProfile:
    """The profile of one column: its cells read once (:func:`parse_number_column`)."""
    name = str(col.name) if name is None else name
    present = np.asarray(col.notna(), dtype=bool)
    try:
        typed = _typed_column(col, name)
    except ValueError as exc:  # complex numbers with an imaginary part
        return ColumnProfile(name, col.dtype, present, None, str(exc))
    if typed is not None:
        return ColumnProfile(name, col.dtype, present, typed)
    cells = _scan(col)
    try:
        return ColumnProfile(name, col.dtype, present, _decide(cells, name), None, cells)
    except ValueError as exc:
        return ColumnProfile(name, col.dtype, present, None, str(exc), cells)


def profile_columns(df: pd.DataFrame) -> dict[str, ColumnProfile]:
    """Every column of ``df`` profiled once, by its (string) header."""
    return {str(c): profile_column(df[c], str(c)) for c in df.columns}


def take_rows(profiles: Mapping[str, ColumnProfile], rows: np.ndarray) -> dict[str, ColumnProfile]:
    """The profiles of the rows ``rows`` (positions or a boolean mask) of every column."""
    return {c: p.take(rows) for c, p in profiles.items()}
