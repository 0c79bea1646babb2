"""The report reads as advice and keeps what the file shows apart from what the model assumes."""

from __future__ import annotations

import numpy as np
import pandas as pd

from blindspot.core.conventions import frontier
from blindspot.core.halfsplit import half_split_exhaustive
from blindspot.data.tables import table_from_frame
from blindspot.report.analyze import analyze_table
from blindspot.report.prepare import standardise
from blindspot.report.report_data import MEASURED, MODEL


def test_advice_comes_first_and_separates_model_from_measurement(tmp_path, clean_frame, analyze):
    p = tmp_path / "s.csv"
    clean_frame().to_csv(p, index=False)
    code, out, _, rep = analyze(p, quiet=False)
    assert code == 0
    text = " ".join(rep["advice"])
    assert "independent directions" in text and "Its #1," in text
    assert "is resolved" in text or "is not resolved" in text
    assert "not a measurement" in text
    f = rep["findings"]
    assert f["swap"]["basis"] == MODEL and f["rank_classes"]["basis"] == MODEL
    assert f["half_split"]["basis"] == MEASURED and f["leader_bootstrap"]["basis"] == MEASURED
    assert f["swap"]["reading"].startswith("Model, not measurement")
    assert out.index("What this means for your leaderboard") < out.index("Effective dimensionality")
    html_text = next(tmp_path.glob("out*/report.html")).read_text()
    assert html_text.index("What this means") < html_text.index("<h2>Findings</h2>")
    assert "rank class" in html_text and "P(overtaken by a model ranked below)" in html_text
    assert "<table class='kv'>" in html_text and "{'" not in html_text  # small tables, no dict dumps


def test_ranking_table(tmp_path, clean_frame, analyze):
    p = tmp_path / "s.csv"
    clean_frame().to_csv(p, index=False)
    _, _, _, rep = analyze(p)
    rk = rep["ranking"]
    assert [r["rank"] for r in rk] == list(range(1, 11))
    assert all(rk[i]["aggregate"] >= rk[i + 1]["aggregate"] for i in range(9))
    assert rk[0]["model"] == rep["findings"]["swap"]["values"]["leader"]
    assert rk[0]["p_overtaken_model"] == rep["findings"]["swap"]["values"]["p_leader_overtaken"]
    assert all(r["rank_class"] >= 1 for r in rk)
    assert rk[0]["overtaken_share_measured"] == 1 - rep["findings"]["leader_bootstrap"]["values"]["leader_first_share"]


def test_half_split_is_the_books_measurement_on_the_frontier(clean_frame):
    t = table_from_frame(clean_frame(n=50, k=8))
    rep = analyze_table(t, n_boot=40)
    ref = half_split_exhaustive(frontier(standardise(t), 0.5).values)  # C(8, 4) = 70 splits: all of them
    v = rep.finding("half_split").values
    assert v["exhaustive"] and v["n_splits"] == 70
    assert v["top1_disagree"] == ref.top1_swap_rate and v["top5_any_change"] == ref.frac_top5_any


def test_one_direction_reads_as_any_one_will_do():
    """Arena-like: every benchmark measures the same thing (d_eff about 1)."""
    rng = np.random.default_rng(4)
    g = rng.normal(size=(120, 1))
    X = 1000 + 80 * (g @ rng.uniform(0.9, 1.0, (1, 10)) + 0.12 * rng.normal(size=(120, 10)))
    df = pd.DataFrame(X, columns=[f"cat{j}" for j in range(10)])
    df.insert(0, "model", [f"m{i}" for i in range(120)])
    rep = analyze_table(table_from_frame(df), n_boot=60)
    v = rep.finding("greedy_subset").values
    assert v["any_one_will_do"] and v["single_coverage_min"] > 0.8
    assert "any one of them will do" in rep.finding("greedy_subset").reading
    assert "not that the choice is unstable" in rep.finding("greedy_subset").reading
    assert any("Any one of these benchmarks will do" in s for s in rep.advice)
