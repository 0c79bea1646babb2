"""blindspot.perspective.routing_figures: the routing chapter's figures draw the study's own numbers."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from blindspot.perspective import alpaca, routing_figures, routing_study
from dkps.routing.mimicry_study import run_mimicry_study


@pytest.fixture(scope="module")
def study():
    ae = alpaca.synthetic_alpaca_eval(queries_per_task=12)
    rows = ae.responses[ae.responses.model_id.isin(routing_study.pool_models(ae.models))]
    return run_mimicry_study(routing_study.suite_from_records(rows), (0, 1), n_pseudo=30, query_dims=(2, None))


def test_the_bracket_bars_are_the_study_errors(study):
    fig = routing_figures.bandwidth_curve(study)
    bars = fig.axes[1]
    names = [t.get_text() for t in bars.get_yticklabels()]
    widths = [p.get_width() for p in bars.patches]
    t = study.table.set_index("method")
    assert names[0] == "oracle" and names[-1] == "random"
    assert np.allclose(widths, [t.loc[n, "error"] for n in names])
    # the curve's points are the study's curve, in the same order
    line = fig.axes[0].lines[0]
    assert np.allclose(line.get_ydata(), study.curve().error.to_numpy())
    plt.close(fig)


def test_the_unpairing_bars_are_the_gain_ratios(study):
    fig = routing_figures.unpairing_figure(study)
    u = study.unpairing
    regimes = list(dict.fromkeys(u.regime))
    heights = [p.get_height() for p in fig.axes[0].patches]
    expected = [
        float(u[(u.regime == g) & (u.method == m)].gain_ratio.iloc[0])
        for m in ("qa-fact", "task-fact", "static-fact", "rf")
        for g in regimes
    ]
    assert np.allclose(heights, expected)
    plt.close(fig)
