"""The survey's figures (blindspot.diagnose.survey_figures): what they draw, and the label spacing."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from blindspot.diagnose import survey_figures
from blindspot.diagnose.survey_figures import _separate


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "k_analysed": [6, 6, 12, 3, 16],
            "d_eff_frontier": [2.9, 2.6, 4.8, 1.3, np.nan],
            "d_eff_frontier_lo": [2.7, 2.5, 4.2, 1.1, np.nan],
            "d_eff_frontier_hi": [3.1, 2.7, 5.2, 1.6, np.nan],
            "d_eff_all": [1.9, 1.8, 2.1, 1.5, 1.2],
            "d_eff_all_lo": [1.8, 1.7, 2.0, 1.3, 1.1],
            "d_eff_all_hi": [2.0, 1.9, 2.2, 1.7, 1.3],
            "top1_halves_agree": [0.0, 0.3, 0.95, np.nan, 0.7],
            "top1_kept_share": [1.0, 0.99, 0.97, 0.95, np.nan],
        },
        index=["a", "b", "c", "d", "e"],
    )


@pytest.mark.parametrize("seed", range(5))
def test_separate_keeps_the_order_and_the_gap_and_moves_nothing_already_spaced(seed):
    y = np.random.default_rng(seed).normal(size=12)
    out = _separate(y, 0.3)
    order = np.argsort(y, kind="stable")
    assert (np.diff(out[order]) >= 0.3 - 1e-12).all()
    spaced = np.arange(6) * 1.0
    assert _separate(spaced, 0.5) == pytest.approx(spaced)
    # the least-squares placement keeps the mean of a block that had to move
    assert _separate(np.zeros(3), 1.0) == pytest.approx([-1.0, 0.0, 1.0])


def test_deff_against_k_draws_every_point_and_the_reference_lines():
    fig = survey_figures.deff_against_k(_frame(), labels={"a": "A"})
    ax = fig.axes[0]
    texts = {t.get_text() for t in ax.texts}
    assert {"A", "b", "c", "d", "e"} <= texts  # e has only its all-models point, still labelled
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[:3] == ["the paper's 3–5", "$d_{\\mathrm{eff}} = k$", "$d_{\\mathrm{eff}} = 1$"]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    plt.close(fig)


def test_leader_resolution_marks_the_resolved_rows():
    fig = survey_figures.leader_resolution(_frame())
    ax = fig.axes[0]
    ticks = {t.get_text(): t.get_fontweight() for t in ax.get_yticklabels()}
    assert set(ticks) == {"a", "b", "c", "d"}  # e: #1 not measured
    assert ticks["c"] == "bold" and ticks["d"] == "bold"  # d: not split, kept 95%
    assert ticks["a"] == "normal" and ticks["b"] == "normal"
    plt.close(fig)


def test_figures_refuse_a_frame_that_is_not_the_survey():
    with pytest.raises(ValueError, match="pass Survey.table"):
        survey_figures.deff_against_k(pd.DataFrame({"x": [1]}))
