"""The Open LLM Leaderboard dumps (v1 and v2) reshaped from the CSV export, and their join.

The raw files are ``csv/huggingface_v1.csv`` and ``csv/huggingface_v2.csv`` of
``fboulnois/llm-leaderboard-csv`` (a CSV export of the Hugging Face leaderboards, MPL-2.0). The
reshaping renames and reorders columns and never changes a value:

- v2: ``id`` -> ``eval_id``; ``evaluations_<b>_normalized_score`` -> ``<b>`` (the leaderboard's 0-100
  score) and ``evaluations_<b>_value`` -> ``<b>_raw`` (the 0-1 accuracy), with ``math`` named
  ``math_lvl5``; the ``model_``, ``features_`` and ``metadata_`` prefixes dropped (``params_billions``
  -> ``params_b``, ``co2_cost`` -> ``co2_cost_kg``); the six constant ``evaluations_<b>_name``
  labels dropped (checked constant). Rows keep their order: one row per evaluation.
- v1: ``t`` -> ``type_symbol``, ``model`` -> ``model_name``, ``date`` -> ``submission_datetime``.
- join: within each dump the row with the highest leaderboard ``average`` per model (stable sort,
  first kept), then an inner join of v1 ``fullname`` with v2 ``model_name``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pandas as pd

__all__ = ["V1_RAW", "V2_RAW", "V1_BENCHMARKS", "V2_BENCHMARKS", "ollm_v1", "ollm_v2", "ollm_v1v2_joined"]

V2_RAW = "csv/huggingface_v2.csv"
V1_RAW = "csv/huggingface_v1.csv"
#: v2 benchmark names in the export -> in the data directory.
V2_NAMES = {
    "ifeval": "ifeval",
    "bbh": "bbh",
    "math": "math_lvl5",
    "gpqa": "gpqa",
    "musr": "musr",
    "mmlu_pro": "mmlu_pro",
}
V2_BENCHMARKS = tuple(V2_NAMES.values())
V1_BENCHMARKS = ("mmlu", "hellaswag", "arc", "truthfulqa", "winogrande", "gsm8k")

V2_COLUMNS = (
    ("eval_id", "id"),
    ("model_name", "model_name"),
    ("model_sha", "model_sha"),
    ("precision", "model_precision"),
    ("model_type", "model_type"),
    ("weight_type", "model_weight_type"),
    ("architecture", "model_architecture"),
    ("params_b", "metadata_params_billions"),
    ("upload_date", "metadata_upload_date"),
    ("submission_date", "metadata_submission_date"),
    ("average", "model_average_score"),
    *((out, f"evaluations_{b}_normalized_score") for b, out in V2_NAMES.items()),
    *((f"{out}_raw", f"evaluations_{b}_value") for b, out in V2_NAMES.items()),
    ("has_chat_template", "model_has_chat_template"),
    ("is_not_available_on_hub", "features_is_not_available_on_hub"),
    ("is_merged", "features_is_merged"),
    ("is_moe", "features_is_moe"),
    ("is_flagged", "features_is_flagged"),
    ("is_official_provider", "features_is_official_provider"),
    ("generation", "metadata_generation"),
    ("base_model", "metadata_base_model"),
    ("hub_license", "metadata_hub_license"),
    ("hub_hearts", "metadata_hub_hearts"),
    ("co2_cost_kg", "metadata_co2_cost"),
)
V1_COLUMNS = (
    ("model_name", "model"),
    ("fullname", "fullname"),
    ("precision", "precision"),
    ("type", "type"),
    ("type_symbol", "t"),
    ("weight_type", "weight_type"),
    ("architecture", "architecture"),
    ("params_b", "params_b"),
    ("submission_datetime", "date"),
    ("average", "average"),
    *((b, b) for b in V1_BENCHMARKS),
    ("merged", "merged"),
    ("hub_license", "hub_license"),
    ("hub_hearts", "hub_hearts"),
    ("available_on_the_hub", "available_on_the_hub"),
    ("model_sha", "model_sha"),
    ("flagged", "flagged"),
    ("moe", "moe"),
    ("url", "url"),
)


def _read(path: Path, columns: tuple[tuple[str, str], ...], what: str) -> pd.DataFrame:
    raw = pd.read_csv(path)
    absent = [src for _, src in columns if src not in raw.columns]
    if absent:
        raise ValueError(f"{path} is not the {what} export: it lacks the column(s) {absent}")
    return raw


def ollm_v2(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``ollm_v2/ollm_v2.csv`` from ``csv/huggingface_v2.csv`` (renamed and reordered columns)."""
    raw = _read(inputs[V2_RAW], V2_COLUMNS, "Open LLM Leaderboard v2")
    for b in V2_NAMES:
        labels = raw[f"evaluations_{b}_name"].dropna().unique()
        if len(labels) > 1:
            raise ValueError(
                f"evaluations_{b}_name is not constant in {inputs[V2_RAW]} ({list(labels)[:3]}); cannot drop it"
            )
    return pd.DataFrame({out: raw[src] for out, src in V2_COLUMNS})


def ollm_v1(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``ollm_v1/ollm_v1.csv`` from ``csv/huggingface_v1.csv`` (renamed and reordered columns)."""
    raw = _read(inputs[V1_RAW], V1_COLUMNS, "Open LLM Leaderboard v1")
    return pd.DataFrame({out: raw[src] for out, src in V1_COLUMNS})


def _best_per_model(df: pd.DataFrame, key: str) -> pd.DataFrame:
    """The row with the highest ``average`` of each ``key`` (stable sort: the first of ties)."""
    return df.sort_values("average", ascending=False, kind="stable").drop_duplicates(key, keep="first")


def ollm_v1v2_joined(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``ollm_v1v2_joined/ollm_v1v2_joined.csv``: the best row of each model in v1 and in v2, inner-joined
    on the exact Hugging Face repository id (v1 ``fullname`` = v2 ``model_name``); 12 benchmarks."""
    v1 = _best_per_model(ollm_v1(inputs), "fullname")
    v2 = _best_per_model(ollm_v2(inputs), "model_name")
    left = v1[["fullname", "precision", "params_b", "average", *V1_BENCHMARKS]].rename(
        columns={
            "fullname": "model_name",
            "precision": "v1_precision",
            "params_b": "v1_params_b",
            "average": "v1_average",
        }
    )
    right = v2[
        ["model_name", "precision", "params_b", "model_type", "submission_date", "average", *V2_BENCHMARKS]
    ].rename(
        columns={
            "precision": "v2_precision",
            "params_b": "v2_params_b",
            "model_type": "v2_model_type",
            "submission_date": "v2_submission_date",
            "average": "v2_average",
        }
    )
    joined = left.merge(right, on="model_name", how="inner")
    order = [
        "model_name",
        "v1_precision",
        "v2_precision",
        "v1_params_b",
        "v2_params_b",
        "v2_model_type",
        "v2_submission_date",
        "v1_average",
        "v2_average",
        *V1_BENCHMARKS,
        *V2_BENCHMARKS,
    ]
    return joined[order].reset_index(drop=True)
