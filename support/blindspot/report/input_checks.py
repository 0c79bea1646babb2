"""Checks on the values of a score table that a reader must see before trusting the numbers.

None of these changes the analysis (every column is standardised anyway, see
:func:`blindspot.report.prepare.standardise`); each returns a sentence for the report's warnings:

* **mixed scales within one column** (:func:`mixed_unit_columns`): some rows written as
  fractions (0-1) and others as percentages (0-100). Signature: every value in [0, 100], a
  substantial group at or below 1 and another above it, the fractions times 100 landing inside
  the range of the percentages, and almost nothing just above 1 (a column of genuine
  percentages with some scores below 1% runs continuously through 1).
* **outliers** (:func:`outlier_cells`): values more than :data:`OUTLIER_Z` robust standard
  deviations from the column's median, with the robust sd = 1.4826 MAD (the normal-consistent
  median absolute deviation; Rousseeuw & Croux 1993, JASA 88:1273), and detached from the rest
  of the column by more than twice its range: typical of missing-value codes such as -999 or of
  a unit slip (1e6), not of the long tail of a skewed benchmark.
* **scales that differ between columns** (:func:`scale_ratio`): the ratio of the largest to the
  smallest column standard deviation (Elo beside percentages). Reported for information only:
  the rescaling rule does not depend on it, so nothing flips at a threshold.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["OUTLIER_Z", "mixed_unit_columns", "outlier_cells", "scale_ratio", "distribution_warnings"]

#: Robust z beyond which a value is reported as an outlier.
OUTLIER_Z = 10.0


def mixed_unit_columns(scores: pd.DataFrame) -> list[str]:
    """Sentences naming the columns whose values look like fractions and percentages mixed."""
    out = []
    for c in scores.columns:
        v = scores[c].to_numpy(dtype=float)
        v = v[np.isfinite(v)]
        n = v.size
        if n < 10 or v.min() < 0 or v.max() > 100:
            continue
        low, high = v[v <= 1.0], v[v > 1.0]
        if min(low.size, high.size) < max(3, 0.1 * n):
            continue
        just_above = int(((v > 1.0) & (v <= 2.0)).sum())
        upper_low = int((low > 0.5).sum())
        q10, q90 = np.quantile(high, [0.1, 0.9])
        if q10 <= 100 * np.median(low) <= q90 and just_above <= 0.2 * max(upper_low, 1):
            out.append(
                f"column {str(c)!r} looks like a mix of fractions and percentages: {low.size} of its {n} values are "
                f"between 0 and 1 (median {np.median(low):.2f}) and {high.size} between 1 and 100 (median "
                f"{np.median(high):.1f}), with {just_above} between 1 and 2; if some rows are on a 0-1 scale, multiply "
                f"them by 100 (the analysis below uses the values as written)"
            )
    return out


def outlier_cells(scores: pd.DataFrame, z: float = OUTLIER_Z, show: int = 3) -> list[str]:
    """Sentences naming the columns with values far outside the rest of their column.

    A value is an outlier when it lies more than ``z`` robust sds (1.4826 MAD) from the median
    *and* is separated from every other value by more than twice the range of the others (a
    detached point such as -999 below scores of 20-80, not the long tail of a skewed benchmark).
    """
    out = []
    for c in scores.columns:
        col = scores[c]
        v = col.to_numpy(dtype=float)
        ok = np.isfinite(v)
        if ok.sum() < 10:
            continue
        med = np.median(v[ok])
        mad = 1.4826 * np.median(np.abs(v[ok] - med))
        if mad <= 0:
            continue
        rz = np.where(ok, np.abs(v - med) / mad, 0.0)
        cand = rz > z
        if not cand.any() or cand.sum() > 0.1 * ok.sum():
            continue
        bulk = v[ok & ~cand]
        span = bulk.max() - bulk.min()
        gap = np.where(v > bulk.max(), v - bulk.max(), bulk.min() - v)
        bad = np.flatnonzero(cand & (gap > 2 * span))
        if bad.size:
            worst = bad[np.argsort(-rz[bad], kind="stable")][:show]
            cells = ", ".join(f"{v[i]:g} at {col.index[i]!r}" for i in worst)
            out.append(
                f"column {str(c)!r} has {bad.size} value(s) far outside the rest of the column ({bulk.min():.4g} to "
                f"{bulk.max():.4g}): {cells}; a missing-value code or a unit slip? They are analysed as scores"
            )
    return out


def scale_ratio(scores: pd.DataFrame) -> float:
    """Largest over smallest column standard deviation (ddof 0)."""
    sd = scores.std(ddof=0, skipna=True).to_numpy(dtype=float)
    sd = sd[np.isfinite(sd) & (sd > 0)]
    return float(sd.max() / sd.min()) if sd.size else 1.0


def distribution_warnings(scores: pd.DataFrame) -> list[str]:
    """Every warning about the values of ``scores`` (mixed units within a column, outliers)."""
    return mixed_unit_columns(scores) + outlier_cells(scores)
