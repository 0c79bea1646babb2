"""Item-level binary responses of 12 LLMs (the PSN-IRT release) with a header.

The raw ``data/combine.csv`` of ``Joe-Hall-Lee/PSN-IRT`` has no header: 12 rows (models, unnamed)
x 41,871 columns (items, unlabelled) of 0.0 / 1.0. The reshaping adds the header
``model_index, item_0, ..., item_41870`` (``model_index`` = the row's position) and writes the
values as integers 0 / 1. Nothing else changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["COMBINE_RAW", "psn_irt_responses"]

COMBINE_RAW = "data/combine.csv"


def psn_irt_responses(inputs: Mapping[str, Path]) -> pd.DataFrame:
    """``item_level_psn_irt/responses.csv`` from ``data/combine.csv`` (header added, 0/1 integers)."""
    raw = pd.read_csv(inputs[COMBINE_RAW], header=None)
    values = raw.to_numpy(dtype=float)
    if not np.isin(values, (0.0, 1.0)).all():
        raise ValueError(f"{inputs[COMBINE_RAW]} holds values other than 0 and 1; it is not the binary response matrix")
    items = pd.DataFrame(values.astype(int), columns=[f"item_{j}" for j in range(values.shape[1])])
    return pd.concat([pd.DataFrame({"model_index": np.arange(len(items))}), items], axis=1)
