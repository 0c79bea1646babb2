"""The densest complete block of a sparse leaderboard (blindspot.diagnose.survey_blocks)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from blindspot.diagnose.survey_blocks import densest_complete_block


def _frame(mask: np.ndarray, seed: int = 0) -> pd.DataFrame:
    vals = np.random.default_rng(seed).normal(size=mask.shape)
    return pd.DataFrame(
        np.where(mask, vals, np.nan),
        index=[f"m{i}" for i in range(mask.shape[0])],
        columns=[f"b{j}" for j in range(mask.shape[1])],
    )


def test_a_planted_block_is_found_exactly():
    """A complete 40 x 6 block hidden in a 200 x 20 table observed at 15% elsewhere is the block returned."""
    rng = np.random.default_rng(3)
    mask = rng.random((200, 20)) < 0.15
    rows, cols = rng.choice(200, 40, replace=False), rng.choice(20, 6, replace=False)
    mask[np.ix_(rows, cols)] = True
    block = densest_complete_block(_frame(mask))
    assert set(block.benchmarks) == {f"b{j}" for j in cols}
    assert set(block.models) == {f"m{i}" for i in rows}
    assert block.shape == (40, 6)


@pytest.mark.parametrize("seed", range(6))
def test_the_block_is_complete_and_keeps_its_bounds(seed):
    rng = np.random.default_rng(seed)
    mask = rng.random((60, 10)) < rng.uniform(0.4, 0.9)
    df = _frame(mask, seed)
    block = densest_complete_block(df, models_per_benchmark=3)
    sub = df.loc[list(block.models), list(block.benchmarks)]
    assert sub.notna().all().all()
    n, k = block.shape
    assert k >= 2 and n >= max(3, 3 * k)
    # every model with all of the block's benchmarks observed is in it (the rows are not thinned)
    assert n == int(df[list(block.benchmarks)].notna().all(axis=1).sum())


def test_no_block_with_more_benchmarks_exists_on_small_tables():
    """On these small random tables, brute force over every benchmark subset finds no complete block meeting the
    bound with more benchmarks than the greedy one (an independent check; greedy is not exact in general)."""
    for seed in range(8):
        rng = np.random.default_rng(100 + seed)
        mask = rng.random((30, 7)) < 0.75
        df = _frame(mask, seed)
        block = densest_complete_block(df, models_per_benchmark=2)
        best_k = 0
        for k in range(2, 8):
            for cols in itertools.combinations(range(7), k):
                if mask[:, cols].all(axis=1).sum() >= max(3, 2 * k):
                    best_k = max(best_k, k)
        assert len(block.benchmarks) == best_k


def test_a_dense_table_is_its_own_block():
    df = _frame(np.ones((20, 4), dtype=bool))
    block = densest_complete_block(df)
    assert block.shape == (20, 4) and block.cell_share == 1.0


def test_no_block_raises_with_the_largest_pair():
    mask = np.zeros((10, 4), dtype=bool)
    mask[:, 0] = True
    mask[:2, 1] = True  # at most 2 models share two benchmarks
    with pytest.raises(ValueError, match="at most 2 models share any two benchmarks"):
        densest_complete_block(_frame(mask))


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="takes a DataFrame"):
        densest_complete_block(np.ones((5, 3)))
    with pytest.raises(ValueError, match="bounds"):
        densest_complete_block(_frame(np.ones((5, 3), dtype=bool)), min_models=2)
