"""width_study: App. H.10 and H.15 on a leaderboard in one call, equal to the width_model calls it wraps."""

from __future__ import annotations

import numpy as np
import pytest

from blindspot.core.conventions import frontier
from blindspot.data.suites import synthetic_suite
from blindspot.prognose import width_model as wm
from blindspot.prognose.width_study import width_study


def test_the_study_equals_its_parts():
    table = synthetic_suite(n_models=80, n_benchmarks=8, seed=3)
    study = width_study(table, n_pc=5, n_quad_pc=3, seed=0)
    front = frontier(table)
    assert (study.n_pc, study.n_quad_pc) == (5, 3) and study.fewer_note == ""
    direct = wm.summarise(wm.linearisation_diagnostics(front, 5, 3, front.benchmarks))
    q = study.quantities()
    assert q["frontier_r2_min"] == pytest.approx(direct.r2_min) and q["frontier_r2_min_b"] == direct.r2_min_benchmark
    noise = wm.lipschitz_constants(np.random.default_rng(0).normal(size=table.values.shape))
    assert q["L_noise_max"] == pytest.approx(noise.max()) and q["L_max"] == study.lipschitz["full"].max()
    assert q["fr_ratio"] == pytest.approx(q["fr_resid"] / q["fr_delta2"]) and q["n_bench"] == front.n_benchmarks
    assert set(study.gap_table().columns) == {"full", "frontier"}


def test_a_small_frontier_uses_fewer_components_and_says_so():
    study = width_study(synthetic_suite(n_models=14, n_benchmarks=8, seed=1), n_pc=5, n_quad_pc=3)
    assert study.n_pc < 5 and study.front.n_models > 1 + study.n_pc + study.n_quad_pc * (study.n_quad_pc + 1) // 2
    assert "principal components (the paper: 5)" in study.fewer_note


def test_the_claims_are_the_summaries_and_name_truthfulqa_only_when_present():
    table = synthetic_suite(n_models=80, n_benchmarks=8, seed=3)
    study = width_study(table, n_pc=5, n_quad_pc=3, seed=0)
    values = study.claims()
    full = wm.summarise(wm.linearisation_diagnostics(table, 5, 3, table.benchmarks))
    assert values["H15.r2_min"].value == pytest.approx(full.r2_min) and values["H15.r2_min"].data is study.table
    assert values["H15.median_from"].value == pytest.approx(full.r2_median)
    assert values["H10.L_max"].value == pytest.approx(wm.lipschitz_constants(table, table.benchmarks).max())
    assert values["H15.front_r2_min"].data is study.front and "H15.truthfulqa_r2" not in values
    renamed = table.scores.rename(columns={table.benchmarks[0]: "TruthfulQA"})
    other = width_study(type(table)(renamed, table.meta, table.name, table.source, True), n_pc=5, n_quad_pc=3)
    tq = other.claims()["H15.truthfulqa_r2"]
    assert (tq.value, tq.data) == (other.diagnostics["frontier"].loc["TruthfulQA", "r2_lin"], other.front)
