"""Records: coercion, validation and the derived per-cell tables.

A *records* argument is one row per cached response. It may be a :class:`pandas.DataFrame`, a list
of dicts, a dict of lists, or a JSON string of either. :func:`coerce` turns any of them into
a fresh DataFrame; :func:`validate` checks every validation rule and returns a :class:`Records` with
normalised columns; :func:`cell_tables` derives the per-cell sample score, reference score and
target.

Every bad input raises before any embedding call or heavy computation. Messages name the column
and the first offending row (0-based position in the records).
"""

from __future__ import annotations

import functools
import json
import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "ID_COLUMNS",
    "SCORE_COLUMNS",
    "Records",
    "CellTables",
    "coerce",
    "validate",
    "parse_cells",
    "cell_tables",
    "default_family",
]

ID_COLUMNS = ("model_id", "task_id", "query_id")
SCORE_COLUMNS = ("score", "sample_score", "reference_score")
DEFAULT_SUITE = "default"


# --------------------------------------------------------------------------------------------
# containers
# --------------------------------------------------------------------------------------------
def _is_list_like(v: Any) -> bool:
    return isinstance(v, (list, tuple, np.ndarray, pd.Series, pd.Index))


def _dict_of_lists_to_frame(d: dict) -> pd.DataFrame:
    lengths = {}
    cols = {}
    for key, val in d.items():
        if not _is_list_like(val):
            raise ValueError(
                f"records given as a dict of lists, but column {key!r} is a scalar "
                f"({type(val).__name__}); give every column as a list of equal length"
            )
        if isinstance(val, np.ndarray) and val.ndim == 2:
            val = list(val)  # a 2-D array of embeddings: one row per record
        elif isinstance(val, (pd.Series, pd.Index)):
            val = val.tolist()
        lengths[key] = len(val)
        cols[key] = list(val)
    if len(set(lengths.values())) > 1:
        raise ValueError(
            f"records given as a dict of lists with unequal lengths {lengths}; every column must have one entry per row"
        )
    n = next(iter(lengths.values()), 0)
    frame = pd.DataFrame(index=pd.RangeIndex(n))
    for key, val in cols.items():
        s = pd.Series(val, dtype=object) if n else pd.Series([], dtype=object)
        frame[key] = s.to_numpy()
    return frame


def _list_of_dicts_to_frame(rows: list) -> pd.DataFrame:
    for pos, r in enumerate(rows):
        if not isinstance(r, dict):
            raise TypeError(
                f"records given as a list, but element {pos} is a {type(r).__name__}, not a dict; "
                "give one dict per response"
            )
    keys: list = []
    seen = set()
    for r in rows:
        for k in r:
            if k not in seen:
                seen.add(k)
                keys.append(k)
    frame = pd.DataFrame(index=pd.RangeIndex(len(rows)))
    for k in keys:
        col = np.empty(len(rows), dtype=object)
        col[:] = [r.get(k, None) for r in rows]
        frame[k] = col
    return frame


def coerce(records: Any) -> pd.DataFrame:
    """Normalise any accepted records container to a fresh DataFrame.

    Parameters
    ----------
    records : DataFrame, list of dict, dict of lists, or str
        A JSON string must decode to a list of objects or an object of arrays.

    Returns
    -------
    pandas.DataFrame
        A new frame (the input is never mutated), row order preserved, unknown columns kept.

    Raises
    ------
    TypeError
        For ``None``, numbers, arrays, or a list holding a non-dict.
    ValueError
        For invalid JSON, a dict of lists with unequal lengths or scalar values, or duplicate
        column names.
    """
    if isinstance(records, pd.DataFrame):
        if records.columns.has_duplicates:
            dup = records.columns[records.columns.duplicated()].tolist()
            raise ValueError(f"records DataFrame has duplicate column names {dup}; rename them")
        return records.reset_index(drop=True).copy()
    if isinstance(records, str):
        try:
            decoded = json.loads(records)
        except json.JSONDecodeError as exc:
            raise ValueError(f"records string is not valid JSON ({exc.msg} at char {exc.pos})") from None
        if isinstance(decoded, list):
            if not all(isinstance(r, dict) for r in decoded):
                raise ValueError("records JSON must be a list of objects or an object of arrays")
            return _list_of_dicts_to_frame(decoded)
        if isinstance(decoded, dict):
            return _dict_of_lists_to_frame(decoded)
        raise ValueError("records JSON must be a list of objects or an object of arrays")
    if isinstance(records, list):
        return _list_of_dicts_to_frame(records)
    if isinstance(records, dict):
        return _dict_of_lists_to_frame(records)
    raise TypeError(
        f"records must be a DataFrame, a list of dicts, a dict of lists or a JSON string, not {type(records).__name__}"
    )


# --------------------------------------------------------------------------------------------
# element checks
# --------------------------------------------------------------------------------------------
def _is_missing(v: Any) -> bool:
    if v is None or v is pd.NA or v is pd.NaT:
        return True
    if isinstance(v, (float, np.floating)) and math.isnan(v):
        return True
    return False


def _all_str(vals: list) -> bool:
    """Every value is a ``str`` (exactly), and none is empty or whitespace-only: the usual column
    of ids or labels, checked on its distinct values."""
    return set(map(type, vals)) == {str} and all(map(str.strip, set(vals)))


def _parse_ids(frame: pd.DataFrame, col: str, *, allow_missing: bool = False) -> list:
    s = frame[col]
    vals = s.tolist()
    if _all_str(vals):
        return vals  # what the loop below returns for such a column, in one pass over distinct values
    out: list = [None] * len(vals)
    if pd.api.types.is_float_dtype(s.dtype) and len(vals):
        na = s.isna().to_numpy()
        if allow_missing and na.all():
            return out
        pos = int(np.flatnonzero(~na)[0]) if allow_missing else (int(np.flatnonzero(na)[0]) if na.any() else 0)
        raise ValueError(
            f"column '{col}': row {pos} has an invalid id {vals[pos]!r} (ids must be non-empty "
            "strings or integers, not null, NaN, bool or float); fix that row"
        )
    for pos, v in enumerate(vals):
        if isinstance(v, str):
            if not v.strip():
                raise ValueError(
                    f"column '{col}': row {pos} has an empty or whitespace-only id; ids must be "
                    "non-empty strings or integers"
                )
            out[pos] = v
        elif isinstance(v, (bool, np.bool_)):
            raise ValueError(f"column '{col}': row {pos} has a bool id ({v!r}); use a string or an integer")
        elif isinstance(v, (int, np.integer)):
            out[pos] = str(int(v))
        elif allow_missing and _is_missing(v):
            out[pos] = None
        else:
            what = "null" if _is_missing(v) else type(v).__name__
            raise ValueError(
                f"column '{col}': row {pos} has an invalid id {v!r} ({what}); ids must be non-empty strings or integers"
            )
    return out


def _parse_scores(frame: pd.DataFrame, col: str) -> np.ndarray:
    s = frame[col]
    if pd.api.types.is_bool_dtype(s.dtype) or pd.api.types.is_numeric_dtype(s.dtype):
        arr = s.to_numpy(dtype=np.float64, na_value=np.nan)
    else:
        vals = s.tolist()
        arr = np.empty(len(vals), dtype=np.float64)
        for pos, v in enumerate(vals):
            if _is_missing(v):
                arr[pos] = np.nan
            elif isinstance(v, (bool, np.bool_)):
                arr[pos] = float(v)
            elif isinstance(v, (int, float, np.integer, np.floating)):
                arr[pos] = float(v)
            elif isinstance(v, str):
                try:
                    arr[pos] = float(v.strip())
                except ValueError:
                    raise ValueError(
                        f"column '{col}': row {pos} is not numeric ({v!r}); scores must be numbers "
                        "(NaN or None for missing)"
                    ) from None
            else:
                raise ValueError(
                    f"column '{col}': row {pos} is not numeric ({type(v).__name__}); scores must be "
                    "numbers (NaN or None for missing)"
                )
    bad = np.flatnonzero(np.isinf(arr))
    if len(bad):
        raise ValueError(f"column '{col}': row {int(bad[0])} is infinite; scores must be finite or NaN")
    return arr


def _uniform_vectors(vals: list) -> bool:
    """Common case: every value is a 1-D float64 ndarray, all of one non-zero length."""
    if not vals or set(map(type, vals)) != {np.ndarray}:
        return False
    shapes = set(map(operator.attrgetter("shape"), vals))
    if len(shapes) != 1 or len(next(iter(shapes))) != 1 or len(vals[0]) == 0:
        return False
    return set(map(operator.attrgetter("dtype"), vals)) == {np.dtype(np.float64)}


_CHUNK_ROWS = 8192


def _shared_base(vals: list) -> np.ndarray | None:
    """The caller's own ``(N, d)`` array when ``vals`` (uniform, :func:`_uniform_vectors`) are its
    rows in order, bit for bit (``list(E)`` of an embedding matrix ``E``, as the generator and most
    embedders give): then no copy is needed. Checked in chunks of rows, so the check holds at most
    one chunk's copy; None otherwise."""
    b = vals[0].base
    if not (
        isinstance(b, np.ndarray)
        and b.dtype == np.float64
        and b.ndim == 2
        and b.shape == (len(vals), len(vals[0]))
        and b.flags.c_contiguous
    ):
        return None
    if not all(v.base is b for v in vals):
        return None
    for s in range(0, len(vals), _CHUNK_ROWS):
        chunk = _stack_uniform(vals[s : s + _CHUNK_ROWS])
        if not np.array_equal(chunk.view(np.uint64), b[s : s + _CHUNK_ROWS].view(np.uint64)):
            return None
    return b


def _stack_uniform(vals: list) -> np.ndarray:
    """``np.stack`` of uniform vectors (:func:`_uniform_vectors`), the same values, by
    ``np.fromiter`` with a sub-array dtype (about 1.4x faster at 35k rows of 384)."""
    return np.fromiter(vals, dtype=np.dtype((np.float64, len(vals[0]))), count=len(vals))


def _check_values(stack: np.ndarray, rows: np.ndarray, col: str) -> None:
    """Every vector finite (else the first row with NaN or inf is named), then every squared norm
    within float64 (:func:`_check_magnitude`), in one pass: a row's ``4 ||v||^2`` is finite exactly
    when the row is finite and its norm does not overflow, so only the rows where it is not are
    looked at again."""
    with np.errstate(over="ignore", invalid="ignore"):
        flagged = np.flatnonzero(~np.isfinite(4.0 * np.einsum("ij,ij->i", stack, stack)))
    if flagged.size == 0:
        return
    nonfinite = flagged[~np.isfinite(stack[flagged]).all(axis=1)]
    if nonfinite.size:
        raise ValueError(
            f"column '{col}': row {int(rows[nonfinite[0]])} contains NaN or inf; embeddings must be finite"
        )
    _check_magnitude(stack[flagged], rows[flagged], col)


def _parse_vectors(frame: pd.DataFrame, col: str) -> tuple[list, np.ndarray | None]:
    """Per row: a 1-D float64 ndarray, or None where the vector is missing; and, when every row has
    a vector of one dimension, the ``(N, d)`` float64 matrix of them (row ``i`` equal to vector ``i``,
    bit for bit), else None.

    The matrix is the caller's own array when the vectors are its rows (:func:`_shared_base`: no
    copy, and the vectors are the caller's arrays), else one stack of them (the vectors are then its
    rows). Either way it is read, never written.
    """
    vals = frame[col].tolist()
    if _uniform_vectors(vals):
        M = _shared_base(vals)
        if M is None:
            M = _stack_uniform(vals)
            vals = list(M)
        _check_values(M, np.arange(len(M)), col)
        return vals, M
    out: list = [None] * len(vals)
    by_len: dict[int, list[int]] = {}
    for pos, v in enumerate(vals):
        if _is_missing(v):
            continue
        if isinstance(v, str):
            try:
                v = json.loads(v)
            except json.JSONDecodeError:
                raise ValueError(f"column '{col}': row {pos} is a string that is not a JSON list of numbers") from None
        if isinstance(v, np.ndarray):
            a = v
        elif isinstance(v, (list, tuple)):
            try:
                a = np.asarray(v)
            except ValueError:
                raise ValueError(f"column '{col}': row {pos} is not a 1-D numeric vector") from None
        else:
            raise ValueError(
                f"column '{col}': row {pos} is a {type(v).__name__}; embeddings must be lists, "
                "tuples, arrays or JSON lists of numbers"
            )
        if a.dtype.kind not in "fiu":
            raise ValueError(f"column '{col}': row {pos} is not numeric (dtype {a.dtype}); give numbers")
        if a.ndim != 1:
            raise ValueError(f"column '{col}': row {pos} has shape {a.shape}; embeddings must be 1-D")
        if a.size == 0:
            raise ValueError(f"column '{col}': row {pos} is empty; embeddings need at least one value")
        if a.dtype != np.float64:
            a = a.astype(np.float64)
        out[pos] = a
        by_len.setdefault(a.size, []).append(pos)
    matrix = None
    for idx in by_len.values():
        stack = np.stack([out[p] for p in idx])
        _check_values(stack, np.asarray(idx), col)
        if len(by_len) == 1 and len(idx) == len(vals):
            matrix = stack
    return out, matrix


def _check_magnitude(stack: np.ndarray, rows: np.ndarray, col: str) -> None:
    """Refuse vectors whose squared distances overflow float64: the kernels compute
    :math:`\\|u-v\\|^2 = \\|u\\|^2 + \\|v\\|^2 - 2\\langle u, v\\rangle`, at most :math:`4\\max\\|u\\|^2`."""
    with np.errstate(over="ignore", invalid="ignore"):
        big = ~np.isfinite(4.0 * np.einsum("ij,ij->i", stack, stack))
    if big.any():
        i = int(np.flatnonzero(big)[0])
        raise ValueError(
            f"column '{col}': row {int(rows[i])} has values up to {np.abs(stack[i]).max():.3g}, too large for the "
            "kernels (its squared norm overflows float64); rescale the embeddings, e.g. divide by their largest norm"
        )


def _parse_text(frame: pd.DataFrame, col: str) -> list:
    vals = frame[col].tolist()
    if set(map(type, vals)) == {str}:
        return vals
    out: list = [None] * len(vals)
    for pos, v in enumerate(vals):
        if _is_missing(v):
            continue
        if not isinstance(v, str):
            raise ValueError(f"column '{col}': row {pos} is a {type(v).__name__}, not a str; give text")
        out[pos] = v
    return out


def _parse_labels(frame: pd.DataFrame, col: str) -> list:
    vals = frame[col].tolist()
    if _all_str(vals):
        return vals
    out: list = [None] * len(vals)
    for pos, v in enumerate(vals):
        if _is_missing(v):
            raise ValueError(f"column '{col}': row {pos} is null; give a value for every row or drop the column")
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (str, int, np.integer)):
            raise ValueError(f"column '{col}': row {pos} has {v!r}; labels must be strings")
        v = str(v)
        if not v.strip():
            raise ValueError(f"column '{col}': row {pos} is empty; labels must be non-empty strings")
        out[pos] = v
    return out


def default_family(model_id: str) -> str:
    """Family of a model without a ``family`` column: its developer prefix, the original dkps's rule.

    The text before the first '/' ('allenai/olmo-3' -> 'allenai'); without a '/', the text before
    the first '_' ('openai_gpt-4' -> 'openai'); without either, the whole id. Ids such as the
    generator's ``model_00`` therefore all fall in one family, 'model': give a ``family`` column
    (or ``family_fn``) when the ids carry no developer prefix.
    """
    if "/" in model_id:
        return model_id.split("/", 1)[0]
    return model_id.split("_", 1)[0]


# --------------------------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------------------------
@dataclass
class Records:
    """Validated records.

    Attributes
    ----------
    frame : DataFrame
        Columns ``model_id, task_id, query_id, suite, family`` (str) and ``score, sample_score,
        reference_score`` (float64, NaN = missing), RangeIndex in input order.
    response_vectors, query_vectors : list
        Per row, a 1-D float64 array or ``None`` (to be embedded from the text).
    response_text, query_text : list
        Per row, a str or ``None``.
    response_matrix, query_matrix : ndarray or None
        When every row has a vector of one dimension: the ``(N, d)`` float64 matrix whose row ``i``
        is vector ``i`` bit for bit (one array instead of ``N``; possibly the caller's own array,
        so it is only read), else None. :meth:`stacked` reads rows through it.
    """

    frame: pd.DataFrame
    response_vectors: list
    response_text: list
    query_vectors: list
    query_text: list
    has_suite: bool = False
    has_family: bool = False
    has_query_column: bool = False
    response_column: str = "response_embedding"  # the input column the response vectors came from
    response_matrix: np.ndarray | None = field(default=None, repr=False)
    query_matrix: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.frame)

    def stacked(self, which: str, idx: np.ndarray) -> np.ndarray:
        """The ``which`` ('response' or 'query') vectors of rows ``idx`` as one ``(len(idx), d)``
        array, equal bit for bit to ``np.stack`` of them: the matrix itself when ``idx`` is every
        row in order (no copy: read it, never write it), else a copy of its rows."""
        M = self.response_matrix if which == "response" else self.query_matrix
        vecs = self.response_vectors if which == "response" else self.query_vectors
        idx = np.asarray(idx, dtype=int)
        if M is None:
            return np.stack([vecs[i] for i in idx])
        if len(idx) == len(M) and (len(idx) == 0 or (idx == np.arange(len(M))).all()):
            return M
        return np.take(M, idx, axis=0)

    @functools.cached_property
    def key_codes(self) -> np.ndarray:
        """Per row, the code of its query key ``(task_id, query_id)``: 0, 1, ... in order of first
        appearance (:func:`key_codes`)."""
        return key_codes(self.frame)

    def take(self, idx: np.ndarray) -> Records:
        idx = np.asarray(idx, dtype=int)
        return Records(
            frame=self.frame.iloc[idx].reset_index(drop=True),
            response_vectors=[self.response_vectors[i] for i in idx],
            response_text=[self.response_text[i] for i in idx],
            query_vectors=[self.query_vectors[i] for i in idx],
            query_text=[self.query_text[i] for i in idx],
            has_suite=self.has_suite,
            has_family=self.has_family,
            has_query_column=self.has_query_column,
            response_column=self.response_column,
            response_matrix=None if self.response_matrix is None else np.take(self.response_matrix, idx, axis=0),
            query_matrix=None if self.query_matrix is None else np.take(self.query_matrix, idx, axis=0),
        )


def key_codes(frame: pd.DataFrame) -> np.ndarray:
    """Per row of a validated frame, the code of its ``(task_id, query_id)`` pair: rows share a code
    exactly when they share the pair, and codes are numbered in order of first appearance."""
    if len(frame) == 0:
        return np.zeros(0, dtype=np.int64)
    t, _ = pd.factorize(frame.task_id)
    q, qu = pd.factorize(frame.query_id)
    codes, _ = pd.factorize(t.astype(np.int64) * len(qu) + q)
    return codes.astype(np.int64, copy=False)


def first_rows(codes: np.ndarray) -> np.ndarray:
    """The first row of each code, for codes numbered in order of first appearance (:func:`key_codes`):
    a row is a first appearance exactly when its code exceeds every earlier one."""
    if len(codes) == 0:
        return np.zeros(0, dtype=np.int64)
    prev = np.maximum.accumulate(np.concatenate([[-1], codes[:-1]]))
    return np.flatnonzero(codes > prev)


def _first_row_of(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


def check_frame_consistency(frame: pd.DataFrame) -> None:
    """Group checks on a validated frame (also run on old + new rows in ``update``).

    Raises ValueError when ``sample_score``/``reference_score`` vary within a cell, a task has two
    suites, or a model has two families.
    """
    if len(frame) == 0:
        return
    cell = frame.groupby(["model_id", "task_id"], sort=False)
    for col in ("sample_score", "reference_score"):
        v = frame[col].to_numpy()
        if np.isnan(v).all():
            continue
        first = cell[col].transform("first").to_numpy()  # first non-NaN value of the cell
        bad = ~np.isnan(v) & ~np.isclose(v, first, rtol=1e-9, atol=0.0)
        if bad.any():
            pos = _first_row_of(bad)
            raise ValueError(
                f"column '{col}': row {pos} — the value varies within cell "
                f"({frame.model_id.iat[pos]!r}, {frame.task_id.iat[pos]!r}); it must be constant per "
                "(model_id, task_id) cell"
            )
    for key, col, what in (("task_id", "suite", "suites"), ("model_id", "family", "families")):
        first = frame.groupby(key, sort=False)[col].transform("first").to_numpy()
        bad = frame[col].to_numpy() != first
        if bad.any():
            pos = _first_row_of(bad)
            raise ValueError(
                f"column '{col}': row {pos} — {key} {frame[key].iat[pos]!r} appears with two {what}; "
                f"each {key} must belong to exactly one"
            )


def validate(
    records: Any,
    *,
    require_query: bool = False,
    allow_empty: bool = False,
) -> Records:
    """Coerce and validate records.

    Parameters
    ----------
    records : any container accepted by :func:`coerce`
    require_query : bool
        True for PKPS with a non-delta query kernel: every row needs ``query_embedding`` or
        ``query``.
    allow_empty : bool
        Accept zero rows (``update`` is then a no-op). ``fit`` passes False.

    Returns
    -------
    Records

    Raises
    ------
    TypeError, ValueError
        Bad columns, ids, scores, vectors or texts. Messages name the column and the first offending row.
    """
    df = coerce(records)
    n = len(df)
    if n == 0 and not allow_empty:
        raise ValueError("records have zero rows; give at least one response")
    for col in ID_COLUMNS:
        if col not in df.columns:
            raise ValueError(f"records have no '{col}' column; it is required")
    ids = {col: _parse_ids(df, col) for col in ID_COLUMNS}

    resp_col = (
        "response_embedding"
        if "response_embedding" in df.columns
        else ("embedding" if "embedding" in df.columns else None)
    )
    if resp_col is None and "response" not in df.columns:
        raise ValueError("records need a 'response_embedding' (or 'embedding') column or a 'response' column")
    rvec, rmat = _parse_vectors(df, resp_col) if resp_col else ([None] * n, None)
    rtxt = _parse_text(df, "response") if "response" in df.columns else [None] * n
    for pos in range(n) if rmat is None else ():  # with a matrix, every row has a vector
        if rvec[pos] is None and rtxt[pos] is None:
            raise ValueError(
                f"column '{resp_col or 'response'}': row {pos} has neither a response embedding nor "
                "response text; give one of them"
            )
    has_q = "query_embedding" in df.columns or "query" in df.columns
    qvec, qmat = _parse_vectors(df, "query_embedding") if "query_embedding" in df.columns else ([None] * n, None)
    qtxt = _parse_text(df, "query") if "query" in df.columns else [None] * n
    if require_query and qmat is None:
        for pos in range(n):
            if qvec[pos] is None and qtxt[pos] is None:
                raise ValueError(
                    f"column 'query_embedding': row {pos} has neither a query embedding nor query text, "
                    "which the query kernel needs; give one, or use DKPS (query_kwargs kernel='delta')"
                )
    scores = {}
    for col in SCORE_COLUMNS:
        scores[col] = _parse_scores(df, col) if col in df.columns else np.full(n, np.nan)
    has_suite = "suite" in df.columns
    suite = _parse_labels(df, "suite") if has_suite else [DEFAULT_SUITE] * n
    has_family = "family" in df.columns
    if has_family:
        family = _parse_labels(df, "family")
    else:
        fam = {m: default_family(m) for m in set(ids["model_id"])}
        family = [fam[m] for m in ids["model_id"]]

    frame = pd.DataFrame(
        {
            "model_id": pd.Series(ids["model_id"], dtype=object),
            "task_id": pd.Series(ids["task_id"], dtype=object),
            "query_id": pd.Series(ids["query_id"], dtype=object),
            "suite": pd.Series(suite, dtype=object),
            "family": pd.Series(family, dtype=object),
            "score": scores["score"],
            "sample_score": scores["sample_score"],
            "reference_score": scores["reference_score"],
        }
    )
    check_frame_consistency(frame)
    out = Records(
        frame, rvec, rtxt, qvec, qtxt, has_suite, has_family, has_q, resp_col or "response_embedding", rmat, qmat
    )
    _check_dims(out)
    _check_queries(out)
    return out


def _check_dims(rec: Records) -> None:
    """Within one suite every response (and every query) embedding has one dimension."""
    suites = rec.frame.suite.tolist()
    for vecs, col, M in (
        (rec.response_vectors, "response_embedding", rec.response_matrix),
        (rec.query_vectors, "query_embedding", rec.query_matrix),
    ):
        if M is not None:
            continue  # one matrix: one dimension for every row
        dim: dict[str, int] = {}
        for pos, v in enumerate(vecs):
            if v is None:
                continue
            d = dim.setdefault(suites[pos], v.size)
            if d != v.size:
                raise ValueError(
                    f"column '{col}': row {pos} has dimension {v.size} but suite {suites[pos]!r} "
                    f"already has dimension {d}; one suite needs one embedding dimension"
                )


def check_informative(rec: Records, queries: bool) -> None:
    """For the perspective spaces: refuse a suite whose every response embedding (or, with
    ``queries``, every query embedding) is all zeros — they carry no information (every distance
    would be 0), which is what a broken embedder returns. The baselines never read embeddings."""
    suites = rec.frame.suite.tolist()
    _check_informative(rec.response_vectors, suites, rec.response_column, rec.response_matrix)
    if queries:
        _check_informative(rec.query_vectors, suites, "query_embedding", rec.query_matrix)


def _check_informative(vecs: list, suites: list, col: str, matrix: np.ndarray | None = None) -> None:
    if matrix is not None and len(matrix):  # every row has a vector: one pass over the matrix
        codes, names = pd.factorize(pd.Series(suites, dtype=object))
        nonzero = np.bincount(codes, weights=matrix.any(axis=1).astype(float), minlength=len(names)) > 0
        firsts = first_rows(codes)
        for c in np.flatnonzero(~nonzero):
            raise ValueError(
                f"column '{col}': every embedding of suite {names[c]!r} is all zeros (first row {int(firsts[c])}); "
                "they carry no information — check the embedder's output"
            )
        return
    first: dict = {}
    nonzero: set = set()
    for pos, v in enumerate(vecs):
        if v is None:
            continue
        first.setdefault(suites[pos], pos)
        if suites[pos] not in nonzero and v.any():
            nonzero.add(suites[pos])
    for s_, pos in first.items():
        if s_ not in nonzero:
            raise ValueError(
                f"column '{col}': every embedding of suite {s_!r} is all zeros (first row {pos}); "
                "they carry no information — check the embedder's output"
            )


def _check_queries(rec: Records, known: dict | None = None) -> None:
    """The same (task_id, query_id) must carry one query embedding and one query text.

    Embeddings agree when ``np.allclose(v, first, rtol=1e-6, atol=1e-8)``. ``known`` maps query
    keys to ``(vector or None, text or None)`` from earlier records (used by ``update``).
    """
    n = len(rec)
    if n == 0:
        return
    tasks = rec.frame.task_id.to_numpy()
    qids = rec.frame.query_id.to_numpy()
    codes = rec.key_codes
    n_keys = int(codes.max()) + 1
    if rec.query_matrix is not None:
        has_v = np.ones(n, dtype=bool)
        dims = np.full(n, rec.query_matrix.shape[1])
    else:
        has_v = np.array([v is not None for v in rec.query_vectors])
        dims = np.array([rec.query_vectors[i].size for i in np.flatnonzero(has_v)], dtype=int)
    if has_v.any():
        vidx = np.flatnonzero(has_v)
        first_dim = np.full(n_keys, -1)
        first_dim[codes[vidx][::-1]] = dims[::-1]
        bad_dim = dims != first_dim[codes[vidx]]
        for d in np.unique(dims):
            sub = vidx[dims == d]
            V = rec.stacked("query", sub)
            c = codes[sub]
            uc, first = np.unique(c, return_index=True)
            ref_row = first[np.searchsorted(uc, c)]  # row of V holding the key's first vector
            ok = np.empty(len(sub), dtype=bool)
            for s in range(0, len(sub), _CHUNK_ROWS):  # exact copies (the usual case) need no tolerance test
                e = min(len(sub), s + _CHUNK_ROWS)
                ok[s:e] = (V[s:e] == V[ref_row[s:e]]).all(axis=1)
            if not ok.all():
                ok[~ok] = np.isclose(V[~ok], V[ref_row[~ok]], rtol=1e-6, atol=1e-8).all(axis=1)
            bad_dim[dims == d] |= ~ok
        if bad_dim.any():
            pos = int(vidx[np.flatnonzero(bad_dim)[0]])
            raise ValueError(
                f"column 'query_embedding': row {pos} gives query ({tasks[pos]!r}, {qids[pos]!r}) a "
                "different embedding than an earlier row; one query must have one embedding"
            )
    has_t = np.array([t is not None for t in rec.query_text])
    if has_t.any():
        tidx = np.flatnonzero(has_t)
        txt = pd.Series([rec.query_text[i] for i in tidx], dtype=object)
        first_txt = txt.groupby(codes[tidx], sort=False).transform("first").to_numpy()
        bad = txt.to_numpy() != first_txt
        if bad.any():
            pos = int(tidx[np.flatnonzero(bad)[0]])
            raise ValueError(
                f"column 'query': row {pos} gives query ({tasks[pos]!r}, {qids[pos]!r}) a different text "
                "than an earlier row; one query must have one text"
            )
    if known:
        for pos in range(n):
            got = known.get((tasks[pos], qids[pos]))
            if got is None:
                continue
            v, t = rec.query_vectors[pos], rec.query_text[pos]
            v0, t0 = got
            if v is not None and v0 is not None and (v.size != v0.size or not np.allclose(v, v0, rtol=1e-6, atol=1e-8)):
                raise ValueError(
                    f"column 'query_embedding': row {pos} gives query ({tasks[pos]!r}, {qids[pos]!r}) a "
                    "different embedding than the fitted records; one query must have one embedding"
                )
            if t is not None and t0 is not None and t != t0:
                raise ValueError(
                    f"column 'query': row {pos} gives query ({tasks[pos]!r}, {qids[pos]!r}) a different "
                    "text than the fitted records; one query must have one text"
                )


def concat(a: Records, b: Records) -> Records:
    """Rows of ``a`` then ``b`` (used by ``update`` and by refits on the concatenation)."""
    return Records(
        frame=pd.concat([a.frame, b.frame], ignore_index=True),
        response_vectors=a.response_vectors + b.response_vectors,
        response_text=a.response_text + b.response_text,
        query_vectors=a.query_vectors + b.query_vectors,
        query_text=a.query_text + b.query_text,
        has_suite=a.has_suite or b.has_suite,
        has_family=a.has_family or b.has_family,
        has_query_column=a.has_query_column or b.has_query_column,
        response_matrix=_concat_matrix(a.response_matrix, b.response_matrix),
        query_matrix=_concat_matrix(a.query_matrix, b.query_matrix),
    )


def _concat_matrix(a: np.ndarray | None, b: np.ndarray | None) -> np.ndarray | None:
    if a is None or b is None or a.shape[1] != b.shape[1]:
        return None
    return np.concatenate([a, b])


# --------------------------------------------------------------------------------------------
# predict cells
# --------------------------------------------------------------------------------------------
def parse_cells(cells: Any) -> list[tuple[str, str | None]]:
    """(model_id, task_id or None) pairs from any records container with a ``model_id`` column.

    A missing or ``None`` task expands to every task later. Other columns are ignored.
    """
    df = coerce(cells)
    if len(df) == 0 and len(df.columns) == 0:
        raise ValueError(
            "predict got no cells (an empty container); give cells with a 'model_id' (and 'task_id') column, "
            "or None for the default cells"
        )
    if "model_id" not in df.columns:
        raise ValueError("cells need a 'model_id' column")
    models = _parse_ids(df, "model_id")
    if "task_id" in df.columns:
        tasks = _parse_ids(df, "task_id", allow_missing=True)
    else:
        tasks = [None] * len(models)
    return list(zip(models, tasks))


# --------------------------------------------------------------------------------------------
# derived per-cell tables
# --------------------------------------------------------------------------------------------
@dataclass
class CellTables:
    """Per-cell arrays (models x tasks), NaN where undefined.

    ``sample``: ``sample_score`` if given, else the mean of the non-NaN ``score`` values.
    ``reference``: the cell's ``reference_score``. ``target``: reference if defined, else sample.
    ``n_responses``: rows per cell; ``n_scored``: rows with a non-NaN score.
    """

    sample: np.ndarray
    reference: np.ndarray
    target: np.ndarray
    n_responses: np.ndarray
    n_scored: np.ndarray
    score_sum: np.ndarray = field(repr=False, default=None)


def cell_tables(frame: pd.DataFrame, model_names: Sequence[str], task_names: Sequence[str]) -> CellTables:
    """Derive the per-cell quantities on the ``model_names x task_names`` grid."""
    n, T = len(model_names), len(task_names)
    mi = pd.Index(model_names).get_indexer(frame.model_id)
    ti = pd.Index(task_names).get_indexer(frame.task_id)
    if (mi < 0).any() or (ti < 0).any():
        raise ValueError("internal: records mention ids outside the catalog")
    flat = mi * T + ti
    size = n * T
    n_resp = np.bincount(flat, minlength=size).astype(float)
    sc = frame.score.to_numpy(dtype=float)
    ok = ~np.isnan(sc)
    n_sc = np.bincount(flat[ok], minlength=size).astype(float)
    s_sum = np.bincount(flat[ok], weights=sc[ok], minlength=size)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n_sc > 0, s_sum / np.maximum(n_sc, 1), np.nan)

    def _const(col: str) -> np.ndarray:
        v = frame[col].to_numpy(dtype=float)
        out = np.full(size, np.nan)
        okv = ~np.isnan(v)
        # constant within cell (validated); first non-NaN value per cell
        cells, first = np.unique(flat[okv], return_index=True)
        out[cells] = v[okv][first]
        return out

    ss_over = _const("sample_score")
    sample = np.where(~np.isnan(ss_over), ss_over, mean)
    ref = _const("reference_score")
    target = np.where(~np.isnan(ref), ref, sample)
    shape = (n, T)
    return CellTables(
        sample=sample.reshape(shape),
        reference=ref.reshape(shape),
        target=target.reshape(shape),
        n_responses=n_resp.reshape(shape),
        n_scored=n_sc.reshape(shape),
        score_sum=s_sum.reshape(shape),
    )


def mask_targets(tables: CellTables, mask: np.ndarray) -> CellTables:
    """Hide the target of the cells in ``mask`` (models x tasks bool) — for out-of-fold weights and the leakage tests.

    Where the cell has a reference score only the reference is hidden (the per-response scores are
    evidence, not the target); where it has none, the target *is* the sample score, so the sample
    score is hidden too.
    """
    mask = np.asarray(mask, dtype=bool)
    has_ref = ~np.isnan(tables.reference)
    ref = np.where(mask, np.nan, tables.reference)
    sample = np.where(mask & ~has_ref, np.nan, tables.sample)
    target = np.where(~np.isnan(ref), ref, sample)
    return CellTables(
        sample=sample,
        reference=ref,
        target=target,
        n_responses=tables.n_responses,
        n_scored=np.where(mask & ~has_ref, 0.0, tables.n_scored),
        score_sum=np.where(mask & ~has_ref, 0.0, tables.score_sum),
    )


def frame_family_map(frame: pd.DataFrame, family_fn: Callable[[str], str] | None = None) -> dict:
    """model_id -> family, from the validated frame or a user ``family_fn``."""
    first = frame.drop_duplicates("model_id")
    if family_fn is None:
        return dict(zip(first.model_id, first.family))
    return {m: str(family_fn(m)) for m in first.model_id}
