"""The your-data edition on leaderboards of other shapes than the paper's.

Every chapter that takes a score file runs on it, or declines it with a sentence that says what it
needs (a ``ValueError`` raised on purpose whose message says what the chapter needs); anything else
(an ``IndexError`` from a loop written for the paper's suites, a ``KeyError``, a ``LinAlgError``, a
library's ``ValueError`` about a degenerate input, NaN handed to the ledger ...) fails the test with
the chapter's name.

The four files together cover 3, 5, 8 and 30 benchmarks, 12 and 300 models, missing cells, and a
0-1 column beside 0-100 ones; each file combines several of these, and each build is the quick
edition without HTML. The 300 x 5 file measures nearly one direction, so greedy reaches 90% coverage
after one benchmark, before the paper's r: the shape on which chapter 14's per-suite loop read the
greedy coverage beyond the point where greedy had stopped (IndexError). The 12 x 30 file has fewer
models than benchmarks (a singular correlation matrix), which stopped chapters 18 and 22.

The four builds take about 130 s together on this project's quiet 2-core machine (measured), so
``make test`` builds all of them; ``BLINDSPOT_SHAPES=few`` builds only the two files that found bugs
(12 x 30 with a missing cell and a 0-1 column, and 300 x 5), for a quicker local run.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from blindspot.book.build import build_book
from blindspot.book.ledger import ABOUT_PAPER, FAILS_ON_YOURS, HOLDS, NOT_APPLICABLE, NOT_RESOLVED
from blindspot.core import coverage
from blindspot.data.synthetic import synthetic_scores

#: name: (models, benchmarks, missing cells, a 0-1 column beside the 0-100 ones, latent factors, noise)
SHAPES = {
    "12x30_missing_unit": (12, 30, 1, True, 3, 0.45),
    "300x5_missing_one_direction": (300, 5, 40, False, 1, 0.2),
    "12x3_missing_unit": (12, 3, 1, True, 3, 0.45),
    "40x8_unit": (40, 8, 0, True, 3, 0.45),
}
#: The files ``make test`` builds (the first two only with BLINDSPOT_SHAPES=few).
BUILT = list(SHAPES)[:2] if os.environ.get("BLINDSPOT_SHAPES") == "few" else list(SHAPES)
#: What a chapter raises when it declines a file on purpose (the message, which says what the chapter needs, is
#: the sentence the reader sees).
DECLINE = "ValueError"


def test_internal_errors_are_told_from_declines():
    boxes = {
        "a": "**Not run on your leaderboard.** This chapter could not use `f.csv`: ValueError: the half-split needs at "
        "least 5 models on the frontier",
        "b": "**Not run on your leaderboard.** This chapter could not use `f.csv`: IndexError: index 3 is out of bounds",
        "c": "**Not run on your leaderboard.** This chapter could not use `f.csv`: ValueError: ledger value nan is not "
        "finite; record a string that says why instead",
        "d": "**Not run on your leaderboard.** This chapter needs more than one score matrix.",
    }
    assert sorted(_internal_errors(boxes)) == ["b", "c"]


def shaped_leaderboard(
    n_models: int,
    n_benchmarks: int,
    n_missing: int,
    unit_column: bool,
    n_factors: int = 3,
    noise: float = 0.45,
    seed: int = 0,
) -> pd.DataFrame:
    """A seeded latent-factor leaderboard (:func:`blindspot.data.synthetic.synthetic_scores`) on the 0-100
    scale, with ``n_missing`` empty cells (none in the first column, so every model keeps a score) and, if
    asked, its last column on the 0-1 scale."""
    S, _ = synthetic_scores(n_models=n_models, n_benchmarks=n_benchmarks, n_factors=n_factors, noise=noise, seed=seed)
    lo, hi = S.min(axis=0), S.max(axis=0)
    scores = pd.DataFrame(100 * (S - lo) / (hi - lo), columns=[f"task_{j:02d}" for j in range(n_benchmarks)])
    if unit_column:
        scores.iloc[:, -1] /= 100
    rng = np.random.default_rng(seed)
    cells = rng.choice(n_models * (n_benchmarks - 1), size=n_missing, replace=False)
    for c in cells:
        scores.iat[c // (n_benchmarks - 1), 1 + c % (n_benchmarks - 1)] = np.nan
    scores.insert(0, "model", [f"m{i:03d}" for i in range(n_models)])
    return scores


def test_shaped_leaderboards_have_the_shapes_they_claim():
    seen = {"benchmarks": set(), "models": set(), "missing": False, "unit": False}
    for n, k, miss, unit, factors, noise in SHAPES.values():
        df = shaped_leaderboard(n, k, miss, unit, factors, noise)
        values = df.drop(columns="model")
        assert values.shape == (n, k) and int(values.isna().sum().sum()) == miss
        assert values.iloc[:, 0].notna().all()
        maxima = values.max()
        assert (maxima.iloc[-1] <= 1.0) == unit and (maxima.iloc[:-1] > 1.0).all()
        seen["benchmarks"].add(k)
        seen["models"].add(n)
        seen["missing"] |= miss > 0
        seen["unit"] |= unit
    assert seen == {"benchmarks": {3, 5, 8, 30}, "models": {12, 40, 300}, "missing": True, "unit": True}
    one = shaped_leaderboard(*SHAPES["300x5_missing_one_direction"]).drop(columns="model").dropna()
    greedy = coverage.greedy_select(np.corrcoef(one.to_numpy().T), target=0.9, r=one.shape[1])
    assert greedy.r_target < 4 <= one.shape[1]  # 90% before the paper's r = 4 (T4.cov_r90.*), with r = 4 there


def _internal_errors(not_run: dict[str, str]) -> dict[str, str]:
    """The chapters that stopped on an error other than a deliberate refusal, with the error."""
    bad = {}
    for stem, box in not_run.items():
        m = re.search(r"could not use `[^`]*`: (.*)", box, re.S)
        if m is None:  # 'This chapter needs ...': a chapter that does not take a score file
            continue
        why = m.group(1).strip()
        name, _, sentence = why.partition(": ")
        if name != DECLINE or not re.search(r"\bneeds?\b", sentence):
            bad[stem] = why[:300]
    return bad


@pytest.mark.pipeline
@pytest.mark.parametrize("shape", BUILT)
def test_your_data_edition_runs_on_every_shape(shape, tmp_path):
    csv = tmp_path / f"{shape}.csv"
    shaped_leaderboard(*SHAPES[shape]).to_csv(csv, index=False)
    res = build_book(data=csv, quick=True, out=tmp_path / "yours", progress=False, html=False)
    assert _internal_errors(res.not_run) == {}
    rows = json.loads(Path(res.edition.ledger_file).read_text())
    assert rows, "the your-data ledger is empty"
    judged = [r for r in rows if r["status"] in (HOLDS, FAILS_ON_YOURS) or r["book"] is not None]
    twice = {k: n for k, n in Counter((r["chapter"], repr(r["book"]), r["evidence"]) for r in judged).items() if n > 1}
    assert twice == {}, "one judgment in several rows"
    ids = Counter((r["chapter"], r["id"]) for r in rows)
    assert max(ids.values()) == 1
    for r in rows:
        if r["about"] == "data":
            assert r["status"] in (HOLDS, FAILS_ON_YOURS, NOT_RESOLVED, NOT_APPLICABLE), r["id"]
        elif r["about"] == "paper":
            assert r["status"] == ABOUT_PAPER, r["id"]
