"""Prepare the user's scores for the report: the validated table, missing cells, standardisation.

* :func:`prepare` gets the validated table from the data floor (:func:`blindspot.data.tables.read_table`:
  any format of :mod:`blindspot.data.readers`, a DataFrame or a ScoreTable; the loader's notes say what it
  inferred), and, for ``missing='complete'``, fills the missing cells by low-rank completion of the
  standardised columns only after :func:`blindspot.report.completion_check.check_completion` shows that it
  beats each benchmark's mean on held-out cells.
* :func:`prepare_scores` is :func:`prepare` on what a practitioner's page names (chapter 80): a suite of
  :data:`blindspot.data.SUITES` read from the data directory, a file or folder of scores, or, without the
  data, the seeded synthetic suite written to a CSV file first (so it goes through the same reader and checks
  as a reader's own file) and then marked synthetic.
* :func:`standardise` is the report's one rescaling rule: every column is z-scored (ddof 0) before the
  analysis, whatever the scales. Correlations, d_eff and the z-mean aggregate are unchanged by it; the
  frontier (models whose mean z-score is at least the q-quantile) is then chosen on the mean z-score, so no
  column's units (Elo next to percentages) can pick it, and no threshold on the scales exists at which the
  frontier could flip. The paper's convention, the mean of raw scores, agrees with it when all columns share
  one scale and spread.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np
import pandas as pd

from blindspot.data.format_options import split_source
from blindspot.data.suites import SUITES, resolve_data_dir, synthetic_suite
from blindspot.data.tables import ScoreTable, read_table
from blindspot.perspective.completion import complete_matrix
from blindspot.report.completion_check import CompletionCheck, check_completion
from blindspot.report.options import MISSING_POLICIES

__all__ = [
    "PreparedInput",
    "prepare",
    "prepare_scores",
    "prepare_table",
    "standardise",
    "MISSING_POLICIES",
    "MISSING_HINT",
    "SYNTHETIC_FILE",
]

#: The file name :func:`prepare_scores` writes the synthetic stand-in to, under its scratch folder.
SYNTHETIC_FILE = "synthetic_scores.csv"

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


def prepare_scores(
    scores: str | os.PathLike | Mapping[str, object],
    *,
    data_dir: str | os.PathLike | None = None,
    missing: str = "drop-rows",
    seed: int = 0,
    scratch: str | os.PathLike = "_build",
) -> PreparedInput:
    """Read and check a suite, a file or the synthetic stand-in as ``blindspot analyze`` does (:func:`prepare`).

    Parameters
    ----------
    scores : str, path or mapping
        A suite name of :data:`blindspot.data.SUITES` or a file or folder of scores, alone or with its reading
        options (``{"source": path, "level": "tasks"}``, :func:`blindspot.data.format_options.split_source`).
    data_dir : str or path, optional
        Where a suite is read from (:func:`blindspot.data.resolve_data_dir`: None is ``$BLINDSPOT_DATA``,
        then ``../shared/data``).
    missing : str
        ``"error"``, ``"drop-rows"`` or ``"complete"``: the policy for missing cells.
    seed : int
        Seed of the synthetic stand-in and of the completion.
    scratch : str or path
        The folder the stand-in's CSV file is written to (created if needed).

    Returns
    -------
    PreparedInput
        The raw, checked table (``synthetic=True``, name ``"synthetic"``, when it is the stand-in), the
        notes for the report and the filled cells.

    Raises
    ------
    ValueError
        Anything the reader refuses (see :func:`prepare`).
    """
    scores, options = split_source(scores)
    source: Path | None = None
    if str(scores) in SUITES:
        root = resolve_data_dir(data_dir)
        suite_path = None if root is None else root / SUITES[str(scores)].path
        source = suite_path if suite_path is not None and suite_path.exists() else None
    else:
        source = Path(scores)
    if source is not None:
        return prepare(source, missing=missing, seed=seed, **options)
    source = Path(scratch) / SYNTHETIC_FILE
    source.parent.mkdir(parents=True, exist_ok=True)
    synthetic_suite(seed=seed).scores.reset_index().to_csv(source, index=False)
    prepared = prepare(source, missing=missing, seed=seed)
    table = replace(prepared.table, name="synthetic", source=str(source), synthetic=True)
    return replace(prepared, table=table)


def standardise(table: ScoreTable) -> ScoreTable:
    """Every column z-scored (ddof 0): the report's rescaling rule (see the module docstring)."""
    s = table.scores
    z = (s - s.mean()) / s.std(ddof=0)
    return replace(table, scores=z)
