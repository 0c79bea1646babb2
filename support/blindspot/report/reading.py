"""From a score file to the table the report analyses: layout, missing cells, standardisation.

* :func:`read_input` reads the file with the book's loader (:mod:`blindspot.data`, whose
  notes say what it inferred), recognises leaderboard dumps (one row per evaluation keyed by
  ``eval_id``; raw-score twins such as ``bbh_raw``), applies the missing-cell policy and, for
  ``complete``, fills the missing cells by low-rank completion of the standardised columns only after
  :func:`blindspot.report.completion_check.check_completion` shows that it beats each
  benchmark's mean on held-out cells.
* :func:`standardise` is the report's one rescaling rule: every column is z-scored (ddof 0)
  before the analysis, whatever the scales. Correlations, d_eff and the z-mean aggregate are
  unchanged by it; the frontier (models whose mean score is at least the q-quantile) is then
  chosen on the mean z-score, so no column's units (Elo next to percentages) can pick it, and no
  threshold on the scales exists at which the frontier could flip. The paper's convention, the
  mean of raw scores, agrees with it when all columns share one scale and spread.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from blindspot.data.columns import is_number_column
from blindspot.data.score_files import read_score_file
from blindspot.data.tables import META_NAMES, ScoreTable, table_from_frame
from blindspot.perspective.completion import complete_matrix
from blindspot.report.completion_check import CompletionCheck, check_completion
from blindspot.report.options import MISSING_POLICIES

__all__ = [
    "PreparedInput",
    "read_input",
    "prepare_frame",
    "prepare_table",
    "standardise",
    "check_score_file",
    "MISSING_POLICIES",
]


@dataclass
class PreparedInput:
    """The validated table (raw scores), the notes for the report, the filled cells and the completion check."""

    table: ScoreTable
    notes: list[str]
    filled: list[tuple[str, str]] = field(default_factory=list)
    completion: CompletionCheck | None = None


def _sniff_layout(
    df: pd.DataFrame, models_col: str | None, benchmarks: list[str] | None
) -> tuple[str | None, list[str] | None, list[str]]:
    """Recognise leaderboard dumps: one row per evaluation (``eval_id``) and raw twins of scores (``b_raw``)."""
    notes: list[str] = []
    cols = [str(c) for c in df.columns]
    if models_col is None and "eval_id" in cols:
        models_col = "eval_id"
        notes.append(
            "rows are evaluations (an 'eval_id' column, as in an Open LLM Leaderboard dump): each row is "
            "keyed by its evaluation id, so a model evaluated twice appears twice"
        )
    if benchmarks is None:
        twins = [c for c in cols if c.endswith("_raw") and c[:-4] in cols]
        if twins:
            benchmarks = [
                c
                for c in cols
                if c not in twins
                and c != models_col
                and c.lower() not in META_NAMES
                and not pd.api.types.is_bool_dtype(df[c])
                and is_number_column(df[c], c)
            ]
            notes.append(
                f"{len(twins)} raw-score twins ({', '.join(twins)}) of the displayed scores were left out; "
                f"name them with --benchmarks to use them instead"
            )
    return models_col, benchmarks, notes


def _check_policy(missing: str) -> None:
    if missing not in MISSING_POLICIES:
        raise ValueError(f"--missing must be error, drop-rows or complete, got {missing!r}")


def read_input(
    path: str | Path,
    models_col: str | None = None,
    benchmarks: list[str] | None = None,
    missing: str = "error",
    seed: int = 0,
    exclude_rows: list[str] | None = None,
) -> PreparedInput:
    """Read and validate the score file; with ``missing='complete'`` check and run the completion.

    ``exclude_rows`` names models to leave out (``--exclude-rows``). The table's warnings (cells that
    cannot be scores, rows shifted by a column) reach the top of the report (:func:`blindspot.report.analyze.analyze_table`).

    Raises
    ------
    ValueError
        Anything the loader refuses, an unknown policy, or a completion that does not beat the
        column means on held-out cells (see :func:`~blindspot.report.completion_check.check_completion`).
    """
    _check_policy(missing)  # before the file is read
    raw = read_score_file(Path(path))
    return prepare_frame(
        raw.frame,
        models_col,
        benchmarks,
        missing,
        seed,
        name=Path(path).stem,
        source=str(path),
        notes=raw.notes,
        exclude_rows=exclude_rows,
    )


def prepare_frame(
    frame: pd.DataFrame,
    models_col: str | None = None,
    benchmarks: list[str] | None = None,
    missing: str = "error",
    seed: int = 0,
    *,
    name: str = "scores",
    source: str = "in-memory frame",
    notes: tuple[str, ...] | list[str] = (),
    exclude_rows: list[str] | None = None,
) -> PreparedInput:
    """:func:`read_input` on a frame already read (one row per model, the model names in a column).

    ``notes`` are what the reader inferred; they come first in the report's notes.
    """
    _check_policy(missing)
    models_col, benchmarks, layout = _sniff_layout(frame, models_col, benchmarks)
    table = table_from_frame(
        frame,
        models_col=models_col,
        benchmarks=benchmarks,
        name=name,
        source=source,
        missing="keep" if missing == "complete" else missing,
        notes=tuple(notes),
        exclude_rows=exclude_rows or (),
    )
    notes = layout + list(table.notes)
    if missing != "complete" or not np.isnan(table.values).any():
        return PreparedInput(table, notes)
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
    return PreparedInput(table, notes, filled, chk)


def prepare_table(
    path: str | Path,
    models_col: str | None = None,
    benchmarks: list[str] | None = None,
    missing: str = "error",
    seed: int = 0,
) -> tuple[ScoreTable, list[str], list[tuple[str, str]]]:
    """:func:`read_input` as (table, notes, filled cells): the raw scores, not yet standardised."""
    p = read_input(path, models_col, benchmarks, missing, seed)
    return p.table, p.notes, p.filled


def standardise(table: ScoreTable) -> ScoreTable:
    """Every column z-scored (ddof 0): the report's rescaling rule (see the module docstring)."""
    s = table.scores
    z = (s - s.mean()) / s.std(ddof=0)
    return replace(table, scores=z)


def check_score_file(path: str | Path, missing: str = "drop-rows") -> None:
    """Raise the loader's one-line ``ValueError`` if the file cannot be analysed (``blindspot book --data``)."""
    read_input(path, missing=missing)
