"""The reshaping of the book's data directory as code: one builder per reshaped file.

Each builder takes its raw inputs — a mapping from the file's path in its public repository to a
local, checksum-verified copy — and returns the table that :func:`write` stores. The registry
(``blindspot/data/datasets.json``) names the builder and the inputs of every reshaped file;
:mod:`blindspot.data.fetch` downloads, verifies and calls them.

- :mod:`~blindspot.data.sources.ollm` — Open LLM Leaderboard v1 and v2 dumps, and their join;
- :mod:`~blindspot.data.sources.epoch` — the Epoch AI Benchmarking Hub export, long and wide;
- :mod:`~blindspot.data.sources.alpaca` — AlpacaEval responses, judge scores, model table, inventory;
- :mod:`~blindspot.data.sources.psn_irt` — item-level binary responses with a header.

The folder ``provenance/`` holds each data folder's PROVENANCE.md, written beside the data.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from blindspot.data.sources import alpaca, epoch, ollm, psn_irt

__all__ = ["Builder", "BUILDERS", "PROVENANCE_DIR", "write"]

#: The PROVENANCE.md of every data folder (``<folder>.md``) and the data directory's README.md.
PROVENANCE_DIR = Path(__file__).resolve().parent / "provenance"


@dataclass(frozen=True)
class Builder:
    """A reshaped file: the function that makes its table and how the table is written.

    ``parquet`` holds :meth:`pandas.DataFrame.to_parquet` options (the reference copies are zstd);
    ``None`` writes CSV with :meth:`pandas.DataFrame.to_csv` defaults (no index).
    """

    make: Callable[[Mapping[str, Path]], pd.DataFrame]
    parquet: dict | None = field(default=None)


BUILDERS: dict[str, Builder] = {
    "ollm_v2": Builder(ollm.ollm_v2),
    "ollm_v1": Builder(ollm.ollm_v1),
    "ollm_v1v2_joined": Builder(ollm.ollm_v1v2_joined),
    "epoch_long": Builder(epoch.epoch_long),
    "epoch_wide": Builder(epoch.epoch_wide),
    "alpaca_queries": Builder(alpaca.alpaca_queries),
    "alpaca_responses": Builder(
        alpaca.alpaca_responses, {"compression": "zstd", "compression_level": 19, "data_page_size": 8 << 20}
    ),
    "alpaca_scores_ae1": Builder(alpaca.alpaca_scores_ae1, {"compression": "zstd", "compression_level": 1}),
    "alpaca_models": Builder(alpaca.alpaca_models),
    "alpaca_source_files": Builder(alpaca.alpaca_source_files),
    "psn_irt_responses": Builder(psn_irt.psn_irt_responses),
}


def write(frame: pd.DataFrame, builder: Builder, path: Path) -> None:
    """Store a built table at ``path`` as its builder says (CSV, or parquet with the builder's options)."""
    if builder.parquet is None:
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False, **builder.parquet)
