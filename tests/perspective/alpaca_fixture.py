"""A tiny AlpacaEval-shaped data folder for the tests (same files and columns as the real one)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

TASKS = {"helpful_base": 3, "koala": 2, "vicuna": 3}
MODELS = ["alpha-7b", "alpha-13b", "beta-chat", "Gamma-1", "NullModel", "gpt4_1106_preview", "beta-chat_concise"]
SCORED = {"alpha-7b", "beta-chat", "NullModel", "gpt4_1106_preview"}
WIN = {
    "alpha-7b": 10.0,
    "alpha-13b": 20.0,
    "beta-chat": 30.0,
    "Gamma-1": 40.0,
    "NullModel": 77.0,
    "gpt4_1106_preview": 50.0,
    "beta-chat_concise": 25.0,
    "ghost-model": 12.0,
}


def queries() -> pd.DataFrame:
    rows, q = [], 0
    for t, n in TASKS.items():
        for _ in range(n):
            rows.append(dict(query_id=q, task_id=t, query=f"instruction number {q} about {t}"))
            q += 1
    return pd.DataFrame(rows)


def responses(empty_for: tuple | None = ("Gamma-1", 0)) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    rows = []
    for _, q in queries().iterrows():
        for m in MODELS:
            text = (
                "same garbage string" if m == "NullModel" else f"{m} answers {q['query']} with care {rng.integers(5)}"
            )
            if empty_for is not None and (m, q.query_id) == empty_for:
                text = ""
            sc = float(rng.random()) if m in SCORED else np.nan
            rows.append(
                dict(
                    model_id=m,
                    task_id=q.task_id,
                    query_id=np.int32(q.query_id),
                    query=q["query"],
                    response=text,
                    score=sc,
                    preference=sc + 1,
                    generator=m,
                )
            )
    return pd.DataFrame(rows).sort_values(["query_id", "model_id"]).reset_index(drop=True)


def models() -> pd.DataFrame:
    rows = []
    for m in MODELS + ["ghost-model"]:
        has = m != "ghost-model"
        rows.append(
            dict(
                model_id=m,
                has_outputs=has,
                n_responses=sum(TASKS.values()) if has else 0,
                n_null_or_empty_response=1 if m == "Gamma-1" else 0,
                n_scored=sum(TASKS.values()) if m in SCORED else 0,
                score_mean=np.nan,
                in_leaderboard=True,
                win_rate=WIN[m],
                length_controlled_winrate=WIN[m] + 1.0,
                avg_length=100.0,
                mode="dev" if m.endswith("_concise") else "community",
            )
        )
    return pd.DataFrame(rows)


def make_data_dir(root: Path, resp: pd.DataFrame | None = None, nested: bool = True) -> Path:
    """Write the fixture; returns the data directory (the parent of alpaca_eval_responses/ if nested)."""
    folder = root / "alpaca_eval_responses" if nested else root
    folder.mkdir(parents=True, exist_ok=True)
    queries().to_csv(folder / "queries.csv", index=False)
    models().to_csv(folder / "models.csv", index=False)
    (responses() if resp is None else resp).to_parquet(folder / "responses.parquet", index=False)
    return root
