"""Prepare the user's scores for the report: the validated table, missing cells, standardisation.

* :func:`prepare` gets the validated table from the data floor (:func:`blindspot.data.tables.read_table`:
  any format of :mod:`blindspot.data.readers`, a DataFrame or a ScoreTable; the loader's notes say what it
  inferred), and, for ``missing='complete'``, fills the missing cells by low-rank completion of the
  standardised columns only after :func:`blindspot.report.completion_check.check_completion` shows that it
  beats each benchmark's mean on held-out cells.
* :func:`standardise` is the report's one rescaling rule: every column is z-scored (ddof 0) before the
  analysis, whatever the scales. Correlations, d_eff and the z-mean aggregate are unchanged by it; the
  frontier (models whose mean z-score is at least the q-quantile) is then chosen on the mean z-score, so no
  column's units (Elo next to percentages) can pick it, and no threshold on the scales exists at which the
  frontier could flip. The paper's convention, the mean of raw scores, agrees with it when all columns share
  one scale and spread.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from blindspot.data.tables import ScoreTable, read_table
from blindspot.perspective.completion import complete_matrix
from blindspot.report.completion_check import CompletionCheck, check_completion
from blindspot.report.options import MISSING_POLICIES

__all__ = ["PreparedInput", "prepare", "prepare_table", "standardise", "MISSING_POLICIES", "MISSING_HINT"]

#: The missing-cell policies the report accepts, as its message suggests them.
MISSING_HINT = (
    "choose a missing-cell policy: missing='drop-rows' (--missing drop-rows) drops those rows, missing='complete' "
    "(--missing complete) fills them by low-rank completion, checked by cross-validation"
)


@dataclass
class PreparedInput:
    """The validated table (raw scores), the notes for the report, the filled cells and the completion check."""

    table: ScoreTable
    notes: list[str]
    filled: list[tuple[str, str]] = field(default_factory=list)
    completion: CompletionCheck | None = None
    inputs: list[str] = field(default_factory=list)


def prepare(
    data: str | os.PathLike | Sequence[str | os.PathLike] | pd.DataFrame | ScoreTable,
    *,
    models_col: str | None = None,
    benchmarks: Sequence[str] | None = None,
    benchmarks_split_commas: bool = False,
    missing: str = "error",
    seed: int = 0,
    exclude_rows: Sequence[str] | None = None,
    lower_is_better: Sequence[str] = (),
    leaderboard: str | None = None,
    level: str | None = None,
    progress: bool = False,
) -> PreparedInput:
    """Read and validate the scores; with ``missing='complete'`` check and run the completion.

    ``exclude_rows`` names models to leave out (``--exclude-rows``). The table's warnings (cells that
    cannot be scores, rows shifted by a column) reach the top of the report
    (:func:`blindspot.report.analyze.analyze_table`).

    Raises
    ------
    ValueError
        Anything the loader refuses, an unknown policy, or a completion that does not beat the
        column means on held-out cells (see :func:`~blindspot.report.completion_check.check_completion`).
    """
    if missing not in MISSING_POLICIES:
        raise ValueError(f"--missing must be error, drop-rows or complete, got {missing!r}")
    table = read_table(
        data,
        models_col=models_col,
        benchmarks=benchmarks,
        missing="keep" if missing == "complete" else missing,
        exclude_rows=exclude_rows or (),
        lower_is_better=lower_is_better,
        leaderboard=leaderboard,
        level=level,
        progress=progress,
        missing_hint=MISSING_HINT,
        benchmarks_split_commas=benchmarks_split_commas,
    )
    inputs = [] if isinstance(data, (pd.DataFrame, ScoreTable)) else [os.fspath(p) for p in _as_list(data)]
    notes = list(table.notes)
    if missing != "complete" or not np.isnan(table.values).any():
        return PreparedInput(table, notes, inputs=inputs)
    # complete on standardised columns (the report's rescaling rule), so that no benchmark's units
    # dominate the low-rank fit or its error; the errors are then in units of each column's sd
    mu, sd = table.scores.mean(), table.scores.std(ddof=0)
    z = (table.scores - mu) / sd
    chk = check_completion(z, seed=seed)
    done = complete_matrix(z, seed=seed) * sd + mu
    mask = table.scores.isna().to_numpy()
    filled = [(str(table.scores.index[r]), table.benchmarks[c]) for r, c in np.argwhere(mask)]
    notes.append(
        f"{len(filled)} missing cell(s) ({1 - chk.observed_share:.1%} of the table) were filled by low-rank matrix "
        f"completion of the standardised columns (dkps LRMC, lambda chosen by cross-validation); on held-out observed "
        f"cells it predicts with RMSE {chk.rmse_completion:.2f} standard deviations against "
        f"{chk.rmse_column_mean:.2f} for each benchmark's mean ({chk.n_folds}-fold cross-validation). Every filled "
        f"cell is listed in the report"
    )
    table = replace(table, scores=done.astype(float))
    return PreparedInput(table, notes, filled, chk, inputs)


def _as_list(data: object) -> list:
    return [data] if isinstance(data, (str, os.PathLike)) else list(data)  # type: ignore[arg-type]


def prepare_table(
    path: str | os.PathLike,
    models_col: str | None = None,
    benchmarks: list[str] | None = None,
    missing: str = "error",
    seed: int = 0,
) -> tuple[ScoreTable, list[str], list[tuple[str, str]]]:
    """:func:`prepare` as (table, notes, filled cells): the raw scores, not yet standardised (chapter 80)."""
    p = prepare(Path(path), models_col=models_col, benchmarks=benchmarks, missing=missing, seed=seed)
    return p.table, p.notes, p.filled


def standardise(table: ScoreTable) -> ScoreTable:
    """Every column z-scored (ddof 0): the report's rescaling rule (see the module docstring)."""
    s = table.scores
    z = (s - s.mean()) / s.std(ddof=0)
    return replace(table, scores=z)
