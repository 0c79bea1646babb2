"""The Epoch AI Benchmarking Hub export (one CSV per benchmark) as a long table and a wide matrix.

The raw files are Epoch's ``benchmark_data/*.csv`` (one file per benchmark, file stem = benchmark;
``epoch_capabilities_index.csv`` holds Epoch's capability index, ECI). Each file has a
``Model version`` column followed by the benchmark's headline score.

- long (:func:`epoch_long`): one row per source row (fully empty rows dropped), with the benchmark,
  the model version, which column was taken as the score and its value, and the descriptive columns
  where the file has them. The headline score is the first column after ``Model version`` that is
  not ``Scaffold``, ``Tools`` or ``Agent`` (``mean_score`` for Epoch's own runs).
- wide (:func:`epoch_wide`): model version x benchmark matrix of the headline score over the rows
  that have a model version and a score. Where a model has several rows for one benchmark (scaffolds,
  shot counts, runs) the maximum is taken: a selection, no value is changed. ``eci_score`` is kept
  as metadata, with the release date and organization of the model's first row that has a date.
  Rows sorted by model version, benchmark columns by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath

import pandas as pd

__all__ = ["ECI", "LONG_COLUMNS", "epoch_long", "epoch_wide", "headline_column"]

#: The file of Epoch's capability index (metadata in the wide matrix, not a benchmark).
ECI = "epoch_capabilities_index"
#: Columns that may sit between ``Model version`` and the score: never the score.
NOT_SCORES = ("Scaffold", "Tools", "Agent")
#: Output column -> the source column it is copied from (absent in a file: empty).
DESCRIPTIVE = {
    "release_date": "Release date",
    "organization": "Organization",
    "name": "Name",
    "display_name": "Display name",
    "scaffold": "Scaffold",
    "agent": "Agent",
    "tools": "Tools",
    "shots": "Shots",
}
LONG_COLUMNS = ("benchmark", "model_version", "score_column", "score", *DESCRIPTIVE)


def headline_column(columns: list[str], where: str = "the file") -> str:
    """The headline score column: the first column after ``Model version`` not in :data:`NOT_SCORES`."""
    if "Model version" not in columns:
        raise ValueError(f"{where} has no 'Model version' column; is it an Epoch benchmark CSV?")
    after = columns[columns.index("Model version") + 1 :]
    score = next((c for c in after if c not in NOT_SCORES), None)
    if score is None:
        raise ValueError(f"{where} has no score column after 'Model version'")
    return score


def _benchmark(source_path: str) -> str:
    return PurePosixPath(source_path).stem


def epoch_long(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``epoch_hub/epoch_long.csv``: every source row, files in name order, rows in file order."""
    parts = []
    for source_path in sorted(inputs, key=_benchmark):
        raw = pd.read_csv(inputs[source_path])
        score = headline_column(list(raw.columns), str(inputs[source_path]))
        keep = ~raw.isna().all(axis=1).to_numpy()
        raw = raw.loc[keep]
        empty = pd.Series(pd.NA, index=raw.index, dtype=object)
        part = pd.DataFrame(
            {
                "benchmark": _benchmark(source_path),
                "model_version": raw["Model version"],
                "score_column": score,
                "score": raw[score],
                **{out: raw[src] if src in raw.columns else empty for out, src in DESCRIPTIVE.items()},
            }
        )
        parts.append(part)
    if not parts:
        raise ValueError("no Epoch benchmark CSV was given")
    return pd.concat(parts, ignore_index=True)


def epoch_wide(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``epoch_hub/epoch_wide.csv``: the model x benchmark matrix of headline scores (max over repeats)."""
    long = epoch_long(inputs)
    long = long[long.model_version.notna()]
    scored = long[(long.benchmark != ECI) & long.score.notna()]
    wide = scored.pivot_table(index="model_version", columns="benchmark", values="score", aggfunc="max")
    wide.columns.name = None
    dated = long[long.release_date.notna()].groupby("model_version")[["release_date", "organization"]].first()
    eci = long[long.benchmark == ECI].groupby("model_version")["score"].max()
    meta = pd.DataFrame(
        {
            "release_date": dated["release_date"].reindex(wide.index),
            "organization": dated["organization"].reindex(wide.index),
            "eci_score": eci.reindex(wide.index),
        },
        index=wide.index,
    )
    out = pd.concat([meta, wide], axis=1)
    out.index.name = "model_version"
    return out.reset_index()
