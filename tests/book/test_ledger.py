"""blindspot.book.ledger: statuses, validation and gathering."""

import json

import pytest

from blindspot.book.ledger import DIFFERS, FAILS, NOT_HERE, REPRODUCED, Ledger, gather


def test_status_from_tolerance_and_gather(tmp_path):
    led = Ledger("nb_a", tmp_path)
    assert led.claim("a", "q", 1.88, 1.883, "d", tol=0.005).status == REPRODUCED
    assert led.claim("b", "q", 1.88, 1.90, "d", tol=0.005, evidence="why").status == DIFFERS
    assert led.claim("c", "q", 1.0, 1.0, "d", tol=0.1, synthetic=True).status == NOT_HERE
    assert led.claim("e", "q", "x", "y", "d", status=FAILS, evidence="counterexample").status == FAILS
    led.save()
    Ledger("nb_b", tmp_path).save()
    rows = gather(tmp_path, tmp_path / "all.json")
    assert [r["id"] for r in rows] == ["a", "b", "c", "e"]
    assert json.loads((tmp_path / "all.json").read_text()) == rows
    assert list(led.frame().columns)[:5] == ["id", "quantity", "dataset", "paper", "book"]


def test_validation(tmp_path):
    led = Ledger("nb", tmp_path)
    with pytest.raises(ValueError, match="give a status"):
        led.claim("x", "q", 1.0, 2.0, "d")
    with pytest.raises(ValueError, match="say why"):
        led.claim("y", "q", 1.0, 2.0, "d", tol=0.1)
    with pytest.raises(ValueError, match="not finite"):
        led.claim("z", "q", 1.0, float("nan"), "d", tol=0.1)
    led.claim("w", "q", 1.0, 1.0, "d", tol=0.1)
    with pytest.raises(ValueError, match="twice"):
        led.claim("w", "q", 1.0, 1.0, "d", tol=0.1)
    with pytest.raises(ValueError, match="not one of"):
        led.claim("v", "q", 1.0, 1.0, "d", status="fine", evidence="e")
