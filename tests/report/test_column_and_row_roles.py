"""Row and column roles, through the command: a summary row is not ranked, and cells that cannot be scores are
warned about at the top of the report, with --exclude-rows to act."""

from __future__ import annotations

import numpy as np


def _bounded(clean_frame):
    d = clean_frame(n=60)
    b = [c for c in d.columns if c != "model"]
    d[b] = d[b].clip(0, 100).round(1)
    return d, b


def test_total_row_is_not_ranked_first(tmp_path, clean_frame, analyze):
    d, b = _bounded(clean_frame)
    d.loc[len(d)] = ["Total", *d[b].sum().round(1)]
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    code, _, _, rep = analyze(p)
    assert code == 0
    assert rep["ranking"][0]["model"] != "Total" and "Total" not in [r["model"] for r in rep["ranking"]]
    assert rep["settings"]["benchmarks"] == b  # no benchmark taken for a weighted mean of the others
    assert any("'Total'" in n for n in rep["notes"])


def test_negative_cell_is_warned_and_exclude_rows_acts(tmp_path, clean_frame, analyze):
    d, b = _bounded(clean_frame)
    d.loc[5, b[1]] = -1.0
    p = tmp_path / "s.csv"
    d.to_csv(p, index=False)
    code, out, _, rep = analyze(p, quiet=False)
    assert code == 0
    name = d.loc[5, "model"]
    assert any(b[1] in w and repr(name) in w and "--exclude-rows" in w for w in rep["warnings"]), rep["warnings"]
    code, _, _, rep = analyze(p, "--exclude-rows", name)
    assert code == 0 and rep["warnings"] == [] and rep["settings"]["n_models"] == 59
    assert any("--exclude-rows" in n and repr(name) in n for n in rep["notes"])
    code, _, err, _ = analyze(p, "--exclude-rows", "nobody")
    assert code == 2 and "nobody" in err and len(err.strip().splitlines()) == 1
    assert np.isfinite(d[b].to_numpy()).all()
