"""ledger_overview: the gathered ledger's counts by name, its figure and its HTML, as the ledger page shows them."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from blindspot.book import ledger_page as lp
from blindspot.book.ledger_overview import ledger_overview

ROOT = Path(__file__).resolve().parents[2]


def _write(tmp_path: Path, statuses: list[str]) -> Path:
    rows = [
        {"id": f"c{i}", "chapter": "01_effective_dimensionality" if i % 2 else "02_marchenko_pastur", "status": s,
         "kind": "value", "quantity": "q", "where": "", "paper": 1.0, "book": 1.0, "evidence": "", "reading": "",
         "about": "data", "basis": "exact", "test": "", "robustness": ""}
        for i, s in enumerate(statuses)
    ]  # fmt: skip
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(rows))
    return path


def test_the_quantities_count_the_claims_by_status_in_the_pages_order(tmp_path):
    statuses = ["reproduced", "claim fails", "reproduced", "differs"]
    overview = ledger_overview(_write(tmp_path, statuses), ROOT)
    q = overview.quantities()
    assert q["n_claims"] == 4 and q["n_chapters"] == 2
    counts = pd.Series(statuses).value_counts()
    expected = ", ".join(f"{counts[s]} {s}" for s in lp.STATUS_ORDER if s in counts.index)
    assert q["summary"] == expected and q["summary"].count(",") == 2
    assert q["edition"] == "on the paper's data" and not overview.yours and overview.reader_summary(0.9) == ""
    assert "01_effective_dimensionality" in overview.titles and overview.parts


def test_an_absent_ledger_reads_as_no_claims(tmp_path):
    q = ledger_overview(tmp_path / "missing.json", ROOT).quantities()
    assert (q["n_claims"], q["n_chapters"], q["summary"]) == (0, 0, "no claims")


def test_your_data_edition_opens_with_a_summary(tmp_path):
    overview = ledger_overview(_write(tmp_path, ["holds", "fails on your data", "not applicable"]), ROOT)
    assert overview.yours and overview.quantities()["edition"] == "on your leaderboard"
    assert overview.reader_summary(0.9) == lp.reader_summary(overview.ledger, overview.titles, resolved=0.9)
