"""Per-item results as one long table: (model, benchmark, item, score), one row per answer.

A comparison of two models item by item (``blindspot compare``) reads what each model scored on
each item. This module is the ground floor of it: a long file or DataFrame with those four columns
(the names below are recognised, in any case), the item-level data of the book's data directory —
the 12-model binary matrix of ``item_level_psn_irt`` (see its PROVENANCE.md) and AlpacaEval's
per-instruction judge scores (``alpaca_eval_responses``) — and seeded synthetic stand-ins when they
are absent. (The lm-evaluation-harness and Every Eval Ever folders are read by :mod:`dkps`, one floor
up, in :mod:`blindspot.report.compare`.)

Every refusal is a one-line ``ValueError``: a missing column, a score that is not a number, and a
duplicate (model, benchmark, item), named.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from blindspot.data.response_stores import ALPACA_DIR, AlpacaEvalStore
from blindspot.data.suites import resolve_data_dir
from blindspot.data.tables import PAPER_RULE, ScoreTable

__all__ = [
    "ITEM_COLUMNS",
    "COLUMN_NAMES",
    "ItemResults",
    "item_frame",
    "read_long_file",
    "wide_to_long",
    "load_psn_irt",
    "load_alpaca_judgements",
    "synthetic_item_responses",
    "PSN_IRT_DIR",
    "ALPACA_DIR",
]

#: The four columns of the long table.
ITEM_COLUMNS = ("model", "benchmark", "item", "score")
#: The column names recognised for each (case-insensitive), first match wins.
COLUMN_NAMES = {
    "model": ("model", "model_id", "model_name", "models", "system"),
    "benchmark": ("benchmark", "task", "task_id", "task_name", "dataset", "subset", "suite"),
    "item": ("item", "item_id", "query_id", "doc_id", "instance_id", "question_id", "sample_id", "id"),
    "score": ("score", "correct", "is_correct", "acc", "accuracy", "value", "result"),
}
#: Where the book's item-level data live inside the data directory.
PSN_IRT_DIR = "item_level_psn_irt"
#: What the benchmark is called when the input has no benchmark column.
ONE_BENCHMARK = "all items"


@dataclass(frozen=True)
class ItemResults:
    """A validated long table of per-item scores and where it came from.

    Attributes
    ----------
    frame : DataFrame
        Columns ``model, benchmark, item, score`` (str, str, str, float), no duplicate (model,
        benchmark, item), no missing score.
    name : str
        A short name for captions.
    source : str
        Where the scores came from (a path, or the synthetic generator and its seed).
    synthetic : bool
        True for a seeded stand-in, not data.
    notes : tuple of str
        What the reader did (rows dropped, a benchmark assumed, runs left out).
    higher_is_better : dict
        Benchmarks whose source says lower is better map to False (e.g. lm-eval's perplexities).
    """

    frame: pd.DataFrame
    name: str
    source: str
    synthetic: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)
    higher_is_better: dict = field(default_factory=dict)

    @property
    def models(self) -> list[str]:
        """The models, in order of first appearance."""
        return list(dict.fromkeys(self.frame["model"]))

    @property
    def benchmarks(self) -> list[str]:
        """The benchmarks, in order of first appearance."""
        return list(dict.fromkeys(self.frame["benchmark"]))

    def describe(self) -> str:
        """One line: models, benchmarks, items and provenance."""
        kind = "SYNTHETIC data" if self.synthetic else "data"
        n_items = self.frame.groupby("benchmark")["item"].nunique().sum()
        return (
            f"{self.name}: {len(self.models)} models x {len(self.benchmarks)} benchmark(s), {n_items:,} items, "
            f"{len(self.frame):,} scores ({kind}; {self.source})"
        )

    def table(self) -> ScoreTable:
        """The per-(model, benchmark) mean scores as a :class:`~blindspot.data.tables.ScoreTable` (a leaderboard)."""
        means = self.frame.pivot_table(index="model", columns="benchmark", values="score", aggfunc="mean", sort=False)
        means.index.name = "model"
        return ScoreTable(
            means.astype(float),
            pd.DataFrame(index=means.index),
            self.name,
            self.source,
            self.synthetic,
            notes=self.notes,
            frontier_rule=PAPER_RULE if self.synthetic else ScoreTable.frontier_rule,
        )

    def wide(self, benchmark: str | None = None) -> pd.DataFrame:
        """Items x models of one benchmark (default: the only one), the items every model answered.

        Raises
        ------
        ValueError
            No benchmark named while there are several, or an unknown one.
        """
        benches = self.benchmarks
        if benchmark is None:
            if len(benches) != 1:
                raise ValueError(f"name a benchmark: the results hold {len(benches)} ({', '.join(benches[:6])})")
            benchmark = benches[0]
        if benchmark not in benches:
            raise ValueError(f"no benchmark {benchmark!r}; the results hold {', '.join(benches[:6])}")
        g = self.frame[self.frame["benchmark"] == benchmark]
        return g.pivot(index="item", columns="model", values="score")[self.models].dropna()

    def models_subset(self, models: list[str]) -> ItemResults:
        """The rows of the named models only (an unknown name is refused, with the models there are)."""
        absent = [m for m in models if m not in set(self.frame["model"])]
        if absent:
            raise ValueError(
                f"model(s) {', '.join(map(repr, absent))} not in the results; they hold {', '.join(self.models[:12])}"
            )
        f = self.frame[self.frame["model"].isin(models)]
        return ItemResults(
            f.reset_index(drop=True), self.name, self.source, self.synthetic, self.notes, self.higher_is_better
        )


def _pick(columns: list[str], role: str) -> str | None:
    lower = {c.lower(): c for c in columns}
    for name in COLUMN_NAMES[role]:
        if name in lower:
            return lower[name]
    return None


def item_frame(
    df: pd.DataFrame, where: str = "the table", benchmark: str | None = None
) -> tuple[pd.DataFrame, list[str]]:
    """The long table (``model, benchmark, item, score``) of a DataFrame, and the notes on what was done.

    Columns are found by the names of :data:`COLUMN_NAMES`. Without a benchmark column every row is
    one benchmark (``benchmark``, default "all items"), said in a note. Rows with no score are dropped
    and counted in a note.

    Raises
    ------
    ValueError
        No model, item or score column (the message lists the columns there are); a score that is
        not a number; a duplicate (model, benchmark, item), the first ones named.
    """
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"per-item results must be a table, got {type(df).__name__}")
    cols = [str(c) for c in df.columns]
    df = df.set_axis(cols, axis=1)
    found = {role: _pick(cols, role) for role in ITEM_COLUMNS}
    absent = [r for r in ("model", "item", "score") if found[r] is None]
    if absent:
        raise ValueError(
            f"{where} has no {' / '.join(absent)} column; per-item results need columns model, benchmark, item, "
            f"score (it has: {', '.join(cols[:12])}{', ...' if len(cols) > 12 else ''})"
        )
    notes = []
    out = pd.DataFrame(
        {
            "model": df[found["model"]].astype(str).to_numpy(),
            "benchmark": (
                df[found["benchmark"]].astype(str).to_numpy() if found["benchmark"] else (benchmark or ONE_BENCHMARK)
            ),
            "item": df[found["item"]].astype(str).to_numpy(),
        }
    )
    if not found["benchmark"]:
        notes.append(
            f"{where} has no benchmark column: every item counted as one benchmark, {benchmark or ONE_BENCHMARK!r}"
        )
    raw = df[found["score"]]
    score = pd.to_numeric(raw.map(lambda v: float(v) if isinstance(v, bool) else v), errors="coerce")
    bad = score.isna() & raw.notna()
    if bad.any():
        first = raw[bad].iloc[0]
        raise ValueError(
            f"{where}: {int(bad.sum())} score(s) in column {found['score']!r} are not numbers (the first: {first!r})"
        )
    out["score"] = score.to_numpy(dtype=float)
    if not np.isfinite(out["score"].dropna()).all():
        raise ValueError(f"{where}: column {found['score']!r} holds infinite scores")
    missing = out["score"].isna()
    if missing.any():
        notes.append(f"{int(missing.sum())} row(s) with no score left out")
        out = out[~missing].reset_index(drop=True)
    dup = out.duplicated(["model", "benchmark", "item"], keep=False)
    if dup.any():
        keys = out.loc[dup, ["model", "benchmark", "item"]].drop_duplicates().head(3)
        named = "; ".join(f"({m}, {b}, {i})" for m, b, i in keys.itertuples(index=False))
        n = int(out.loc[dup].duplicated(["model", "benchmark", "item"]).sum())
        raise ValueError(
            f"{where} holds {n} duplicate (model, benchmark, item) row(s), e.g. {named}: keep one score per model "
            f"and item"
        )
    if out.empty:
        raise ValueError(f"{where} holds no scored item")
    return out, notes


def read_long_file(path: str | os.PathLike) -> ItemResults:
    """Read a long file of per-item results: CSV, TSV, parquet, JSON or JSON lines (also gzipped CSV/TSV).

    Raises
    ------
    ValueError
        A path that does not exist or cannot be parsed, and the refusals of :func:`item_frame`.
    """
    p = Path(path).expanduser()
    if not p.is_file():
        raise ValueError(f"{str(path)!r} is not a file")
    suffixes = [s.lower() for s in p.suffixes]
    try:
        if ".parquet" in suffixes:
            df = pd.read_parquet(p)
        elif ".jsonl" in suffixes:
            df = pd.read_json(p, lines=True)
        elif ".json" in suffixes:
            df = pd.read_json(p)
        elif ".tsv" in suffixes or ".tab" in suffixes:
            df = pd.read_csv(p, sep="\t")
        else:
            df = pd.read_csv(p, sep=None, engine="python")
    except (ValueError, OSError, pd.errors.ParserError) as exc:
        raise ValueError(f"{p.name}: cannot be read as a table of per-item results ({exc})") from exc
    frame, notes = item_frame(df, where=p.name, benchmark=None)
    return ItemResults(frame, p.stem, str(p), False, tuple(notes))


def wide_to_long(df: pd.DataFrame, model_col: str, benchmark: str = ONE_BENCHMARK) -> pd.DataFrame:
    """A wide matrix (one row per model, one column per item) as the long table, one benchmark.

    Raises
    ------
    ValueError
        No column ``model_col``.
    """
    if model_col not in df.columns:
        raise ValueError(f"no column {model_col!r}; the columns start {', '.join(map(str, df.columns[:5]))}")
    long = df.melt(id_vars=[model_col], var_name="item", value_name="score")
    long = long.rename(columns={model_col: "model"})
    long.insert(1, "benchmark", benchmark)
    long["model"] = long["model"].astype(str)
    return long


def synthetic_item_responses(n_models: int = 12, n_items: int = 4000, seed: int = 0) -> ItemResults:
    """Seeded binary responses from a two-parameter IRT model (a stand-in for ``item_level_psn_irt``).

    :math:`P(\\text{model } i \\text{ right on item } j) = \\sigma(a_j(\\theta_i - b_j))`, abilities
    :math:`\\theta` spread evenly on [-1, 1.5] (so neighbouring models are close), difficulties
    :math:`b_j \\sim N(0, 1.5^2)` and discriminations :math:`a_j \\sim \\mathrm{LogNormal}(0, 0.3)`
    (Lord 1980). One benchmark; models ``model-00`` ... in no particular order.
    """
    if n_models < 2 or n_items < 2:
        raise ValueError(f"need at least 2 models and 2 items, got {n_models} and {n_items}")
    rng = np.random.default_rng(seed)
    theta = rng.permutation(np.linspace(-1.0, 1.5, n_models))
    b = rng.normal(0, 1.5, n_items)
    a = np.exp(rng.normal(0, 0.3, n_items))
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b[None, :])))
    x = (rng.random(p.shape) < p).astype(float)
    wide = pd.DataFrame(x, columns=[f"item_{j}" for j in range(n_items)])
    wide.insert(0, "model", [f"model-{i:02d}" for i in range(n_models)])
    frame = wide_to_long(wide, "model")
    source = f"synthetic 2PL item responses (seed={seed}, {n_models} models x {n_items} items)"
    return ItemResults(frame, "synthetic item responses", source, True)


def load_psn_irt(data_dir: str | os.PathLike | None = None, fallback: bool = True, seed: int = 0) -> ItemResults:
    """The 12 models x 41,871 binary items of ``item_level_psn_irt/responses.csv`` as the long table.

    The release names neither the models nor the items' benchmarks (its PROVENANCE.md), so the models
    are ``model 0`` ... ``model 11`` (the row order) and every item is one benchmark, "all items".
    Without a data directory (or without the folder), the seeded stand-in of
    :func:`synthetic_item_responses` when ``fallback``.

    Raises
    ------
    ValueError
        The folder is absent and ``fallback`` is False; the file is not the binary matrix.
    """
    root = resolve_data_dir(data_dir)
    path = None if root is None else root / PSN_IRT_DIR / "responses.csv"
    if path is None or not path.is_file():
        if not fallback:
            raise ValueError(f"no {PSN_IRT_DIR}/responses.csv in the data directory ({root}); run blindspot data fetch")
        return synthetic_item_responses(seed=seed)
    # 12 rows of 41,872 fields: split by hand (pandas' parser takes seconds on a file this wide)
    lines = path.read_text().splitlines()
    header = lines[0].split(",")
    try:
        values = np.array([line.split(",") for line in lines[1:]], dtype=float)
    except ValueError as exc:
        raise ValueError(f"{path} is not a rectangular table of numbers ({exc})") from exc
    if header[0] != "model_index" or values.shape[1] != len(header):
        raise ValueError(f"{path} is not the response matrix (header model_index, item_0, ...)")
    if not np.isin(values[:, 1:], (0.0, 1.0)).all():
        raise ValueError(f"{path} holds values other than 0 and 1; it is not the binary response matrix")
    n_models, n_items = values.shape[0], values.shape[1] - 1
    frame = pd.DataFrame(
        {
            "model": np.repeat([f"model {int(i)}" for i in values[:, 0]], n_items),
            "benchmark": ONE_BENCHMARK,
            "item": np.tile(np.array(header[1:], dtype=object), n_models),
            "score": values[:, 1:].ravel(),
        }
    )
    note = "the release names neither the models nor the items' benchmarks: models by row, every item one benchmark"
    return ItemResults(frame, "item_level_psn_irt", str(path), False, (note,))


def load_alpaca_judgements(
    data_dir: str | os.PathLike | None = None, fallback: bool = True, seed: int = 0
) -> ItemResults:
    """AlpacaEval 2.0's per-instruction judge scores (``alpaca_eval_responses/responses.parquet``).

    One row per (model, instruction) that the judge scored: ``score`` in [0, 1] is the judge's weighted
    preference for the model's answer over the reference's (PROVENANCE.md); the benchmark is the
    instruction's AlpacaEval subset (``helpful_base``, ``koala``, ``oasst``, ``selfinstruct``,
    ``vicuna``). Only the models with judge scores are kept. Without the data, a seeded stand-in
    (two models, continuous scores on five subsets) when ``fallback``.

    Raises
    ------
    ValueError
        The file is absent and ``fallback`` is False.
    """
    root = resolve_data_dir(data_dir)
    path = None if root is None else root / ALPACA_DIR / "responses.parquet"
    if path is None or not path.is_file():
        if not fallback:
            raise ValueError(
                f"no {ALPACA_DIR}/responses.parquet in the data directory ({root}); run blindspot data fetch"
            )
        rng = np.random.default_rng(seed)
        subsets = ("helpful_base", "koala", "oasst", "selfinstruct", "vicuna")
        n = 160
        ease = rng.normal(size=n)
        rows = []
        for name, shift in (("synthetic-a", 0.0), ("synthetic-b", 0.25), ("synthetic-c", 0.3)):
            s = 1 / (1 + np.exp(-(ease + shift + rng.normal(size=n))))
            rows += [(name, subsets[q % 5], str(q), float(v)) for q, v in enumerate(s)]
        frame = pd.DataFrame(rows, columns=list(ITEM_COLUMNS))
        return ItemResults(frame, "synthetic judgements", f"synthetic judge scores (seed={seed})", True)
    df = AlpacaEvalStore(path.parent).responses(columns=("model_id", "task_id", "query_id", "score"))
    df = df.dropna(subset=["score"])
    frame, notes = item_frame(df, where="alpaca_eval_responses")
    return ItemResults(frame, "AlpacaEval 2.0 judgements", str(path), False, tuple(notes))
