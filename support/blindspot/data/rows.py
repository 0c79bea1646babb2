"""What each row of a score table is, and which cells cannot be scores of their column.

The loader (:mod:`blindspot.data.tables`) asks this module before it judges the columns:

* **summary rows** (a row named ``Average``, ``Total``, ``All models``, or one that is the mean or the
  sum of the other rows in every column) are not models: ranked among them a Total row comes first,
  and it makes a benchmark look like a weighted mean of the others (:func:`row_is_aggregate`,
  :func:`aggregate_rows`);
* **values that cannot be scores of their column** (a negative value in a column otherwise in [0, 1]
  or [0, 100]; a row whose values fit the neighbouring columns, as if shifted one column against the
  header) are named for the table's warnings (:func:`impossible_values`, :func:`shifted_rows`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from blindspot.data.columns import (
    AGGREGATE_WORDS,
    index_like_reason,
    is_meta_name,
    name_list,
    name_words,
)
from blindspot.data.profile import ColumnProfile, profile_columns, take_rows

__all__ = [
    "MEAN_ROW_CHANCE",
    "row_is_aggregate",
    "aggregate_rows",
    "impossible_values",
    "out_of_scale",
    "shifted_rows",
    "drop_summary_rows",
    "row_and_cell_warnings",
]

#: Words of a row name that mark a summary row rather than a model (``Average``, ``Total``, ``All models``).
_ROW_AGGREGATE_WORDS = AGGREGATE_WORDS | {"all", "summary"}
_ROW_GENERIC_WORDS = frozenset({"models", "model", "of", "the", "row", "score", "scores", "systems", "entries"})


def row_is_aggregate(name: str) -> bool:
    """True for a row name that marks a summary row: ``Average``, ``Mean``, ``Total``, ``Sum``, ``Median``,
    ``All models``, ``Overall average``, ... (aggregate words and generic words only, case-insensitive)."""
    w = name_words(name)
    return (
        bool(w)
        and any(x in _ROW_AGGREGATE_WORDS for x in w)
        and all(x in _ROW_AGGREGATE_WORDS | _ROW_GENERIC_WORDS for x in w)
    )


def _decimals(v: np.ndarray, most: int = 8) -> int:
    """The fewest decimals that write every value of v (to 1e-6 of the last digit), at most ``most``."""
    for d in range(most + 1):
        s = v * 10.0**d
        if np.all(np.abs(s - np.round(s)) <= 1e-6 * np.maximum(1.0, np.abs(s)) + 1e-6):
            return d
    return most


#: Largest chance, over all rows of a table, that an ordinary model sits as close to the column means as a
#: rounded mean row does in every column (normal approximation); below it a row that close is a mean row.
MEAN_ROW_CHANCE = 1e-3


def aggregate_rows(X: np.ndarray, min_columns: int = 3) -> list[tuple[int, str]]:
    """Rows of X (n, k) that are the mean or the sum of the other rows in every column, as (row, 'mean' | 'sum').

    A published mean row is the mean of the scores rounded to the d decimals of its column, so it lies
    within 0.6 x 10^-d of the mean of the other rows. A row is judged on its present cells in columns
    with some spread (at least ``min_columns`` of them, and 4 rows), and called a mean row only when
    chance alone is unlikely to put a model that close: n * prod_j 2 tol_j / (sqrt(2 pi) sd_j) below
    :data:`MEAN_ROW_CHANCE` (the density of a normal column at its mean). A sum row equals the sum of
    the others in every column (within n tol_j, the rounding of n terms).
    """
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    if k < min_columns or n < 4:
        return []
    fin = np.isfinite(X)
    Z = np.where(fin, X, 0.0)
    total, count = Z.sum(axis=0), fin.sum(axis=0)
    sd = np.array([X[fin[:, j], j].std() if fin[:, j].sum() > 1 else 0.0 for j in range(k)])
    tol = np.array([0.6 * 10.0 ** -_decimals(X[fin[:, j], j]) if fin[:, j].any() else 0.0 for j in range(k)])
    tol = np.maximum(tol, 1e-9 * np.abs(Z).max(axis=0))
    ratio = 2 * tol / (np.sqrt(2 * np.pi) * np.where(sd > 0, sd, 1.0))
    chance = np.log(np.clip(ratio, 1e-300, 1.0))  # the columns without spread are not judged (below)
    # every row at once (a file of 10^5 models took seconds row by row): row i against the other rows' mean
    valid = fin & (sd > 0)[None, :] & (count >= 3)[None, :]
    enough = valid.sum(axis=1) >= min_columns
    with np.errstate(divide="ignore", invalid="ignore"):
        rest = total[None, :] - Z
        near_mean = np.where(valid, np.abs(X - rest / (count - 1)[None, :]) <= tol[None, :], True).all(axis=1)
    unlikely = np.log(n) + np.where(valid, chance[None, :], 0.0).sum(axis=1) < np.log(MEAN_ROW_CHANCE)
    full = np.where(valid, (count == n)[None, :], True).all(axis=1)
    near_sum = np.where(valid, np.abs(X - rest) <= (tol * n)[None, :], True).all(axis=1)
    mean_rows = enough & near_mean & unlikely
    sum_rows = enough & ~mean_rows & full & near_sum
    return [(int(i), "mean" if mean_rows[i] else "sum") for i in np.flatnonzero(mean_rows | sum_rows)]


def impossible_values(scores: pd.DataFrame, row_names: Sequence[str] | None = None) -> list[str]:
    """Sentences naming the cells that cannot be scores of their column: a negative value in a column whose
    other values all lie in [0, 1] or in [0, 100] (a missing-value code such as -1, or a sign slip).

    Judged on columns with at least 5 non-negative values, of which the negative cells are at most 5%
    (a column with many negative values has a scale of its own). A value further below 0 than twice the
    column's range (-999) is an outlier, detached from the column, which the report names as such
    (:mod:`blindspot.report.input_checks`); it is not named twice.
    """
    names = list(row_names) if row_names is not None else [str(x) for x in scores.index]
    out = []
    for c in scores.columns:
        v = scores[c].to_numpy(dtype=float)
        ok = np.isfinite(v)
        pos = v[ok & (v >= 0)]
        if pos.size < 5 or (top := float(pos.max())) > 100:
            continue
        neg = ok & (v < 0) & (v >= -2 * (top - float(pos.min())))
        if not neg.any() or (ok & (v < 0)).sum() > max(1, 0.05 * ok.sum()):
            continue
        scale = "[0, 1]" if top <= 1 else "[0, 100]"
        rows = [names[i] for i in np.flatnonzero(neg)]
        vals = ", ".join(f"{names[i]!r} = {v[i]:g}" for i in np.flatnonzero(neg)[:5])
        out.append(
            f"column {c!r} has values in {scale} except {len(rows)} negative cell(s) ({vals}): such a value cannot be a "
            f"score of this column (a missing-value code, or a sign slip); leave the row(s) out with --exclude-rows, "
            f"or blank the cells and choose --missing"
        )
    return out


def out_of_scale(scores: pd.DataFrame, scales: Mapping[str, tuple[float, float]]) -> list[str]:
    """Sentences naming the cells outside the range a column declares (EEE's ``min_score``/``max_score``):
    such a value cannot be a score of that column (a unit slip, a missing-value code)."""
    out = []
    for c, (lo, hi) in scales.items():
        if c not in scores.columns:
            continue
        v = scores[c].to_numpy(dtype=float)
        tol = 1e-9 * max(1.0, abs(lo), abs(hi))
        bad = np.flatnonzero(np.isfinite(v) & ((v < lo - tol) | (v > hi + tol)))
        if bad.size:
            cells = ", ".join(f"{scores.index[i]!r} = {v[i]:g}" for i in bad[:5])
            out.append(
                f"column {c!r} declares scores from {lo:g} to {hi:g}, but {bad.size} cell(s) lie outside ({cells}): "
                f"such a value cannot be a score of this column; check the source, or leave the row(s) out with "
                f"--exclude-rows"
            )
    return out


def _robust_location_scale(v: np.ndarray) -> tuple[float, float]:
    v = v[np.isfinite(v)]
    med = float(np.median(v))
    mad = 1.4826 * float(np.median(np.abs(v - med)))
    return med, mad if mad > 0 else float(v.std()) or 1.0


def shifted_rows(X: np.ndarray, min_columns: int = 4) -> list[tuple[int, int]]:
    """Rows of X (n, k) whose values fit the neighbouring columns far better than their own, as (row, shift):
    shift = +1 when each value belongs to the next column (a field is missing before them: the row is
    shifted left), -1 when it belongs to the previous one (an extra field: shifted right).

    Each value is measured in robust standard deviations of a column, z = |x - median| / (1.4826 MAD)
    (Rousseeuw & Croux 1993); a row is shifted when, over its cells that have a neighbour, the median z
    against its own columns exceeds 3 while against the shifted columns it is below 1, and the shifted
    columns fit better in at least 3 cells of 4. Needs ``min_columns`` columns and 10 rows.
    """
    X = np.asarray(X, dtype=float)
    n, k = X.shape
    if k < min_columns or n < 10:
        return []
    loc_scale = [_robust_location_scale(X[:, j]) for j in range(k)]
    med = np.array([m for m, _ in loc_scale])
    sd = np.array([s for _, s in loc_scale])
    found = np.zeros(n, dtype=int)  # 0: not shifted; else the shift (every row at once, +1 tried first)
    for shift in (1, -1):
        js = np.arange(k - 1) if shift == 1 else np.arange(1, k)
        cells = X[:, js]
        ok = np.isfinite(cells)
        z_own = np.where(ok, np.abs(cells - med[js]) / sd[js], np.nan)
        z_shift = np.where(ok, np.abs(cells - med[js + shift]) / sd[js + shift], np.nan)
        has = ok.sum(axis=1) >= min_columns - 1
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows: not judged (``has`` is False)
            own, moved = np.nanmedian(z_own, axis=1), np.nanmedian(z_shift, axis=1)
            better = np.where(ok, z_shift < z_own, False).sum(axis=1) / np.maximum(ok.sum(axis=1), 1)
        hit = has & (own > 3) & (moved < 1) & (better >= 0.75) & (found == 0)
        found[hit] = shift
    return [(int(i), int(found[i])) for i in np.flatnonzero(found)]


def drop_summary_rows(
    df: pd.DataFrame,
    benchmarks: Sequence[str] | None,
    name: str,
    profiles: Mapping[str, ColumnProfile] | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Leave out summary rows (``Average``, ``Total``, ``All models``, or the mean or sum of the other rows in
    every score column), with a note naming each: such a row is not a model, would rank among them (a Total
    row comes first), and would make a benchmark look like a weighted mean of the others.

    The columns are judged on their ``profiles`` (one per column of ``df``, on its rows:
    :func:`blindspot.data.profile.profile_columns`; made here when not given)."""
    by_name = [m for m in df.index if row_is_aggregate(str(m))]
    rest = df.drop(index=by_name)
    profiles = profile_columns(df) if profiles is None else profiles
    kept = take_rows(profiles, ~df.index.isin(by_name)) if by_name else profiles
    if benchmarks is not None:
        cols = [c for c in benchmarks if c in rest.columns]  # an absent one is refused below, by name
    else:
        cols = [
            c
            for c in rest.columns
            if not is_meta_name(c)
            and kept[c].number is not None  # a refused notation reaches the user when the column is classified
            and index_like_reason(c, rest[c], kept[c].number.values) is None
            and kept[c].is_number
        ]
    values = [kept[c].number.values for c in cols if kept[c].number is not None]
    by_value = aggregate_rows(np.column_stack(values)) if values else []
    notes = []
    if by_name:
        notes.append(
            f"left out {len(by_name)} row(s) whose name marks a summary, not a model: {name_list([repr(m) for m in by_name])}"
        )
    if by_value:
        what = [f"{rest.index[i]!r} (the {kind} of the other rows in every score column)" for i, kind in by_value]
        notes.append(f"left out {len(by_value)} aggregate row(s), not models: {name_list(what)}")
    drop = by_name + [rest.index[i] for i, _ in by_value]
    return (df.drop(index=drop) if drop else df), notes


def row_and_cell_warnings(scores: pd.DataFrame) -> list[str]:
    """Warnings about cells that cannot be scores of their column and rows that look shifted by one column."""
    warnings = impossible_values(scores)
    shifted = shifted_rows(scores.to_numpy(dtype=float))
    if shifted:
        rows = [
            f"{scores.index[i]!r} (its values fit the {'next' if d > 0 else 'previous'} columns)" for i, d in shifted
        ]
        warnings.append(
            f"{len(shifted)} row(s) look shifted by one column relative to the header: {name_list(rows)}; check those "
            f"lines of the file (a missing or an extra field), or leave them out with --exclude-rows"
        )
    return warnings
