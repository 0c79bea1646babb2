"""blindspot.core.claim_value: the value a study hands to the ledger."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.core.claim_value import ClaimValue
from blindspot.data.tables import ScoreTable


def _table() -> ScoreTable:
    return ScoreTable(
        pd.DataFrame(np.eye(3), index=list("abc"), columns=list("xyz")), pd.DataFrame(index=list("abc")), "t", "test"
    )


def test_a_claim_value_keeps_what_the_ledger_needs():
    t = _table()
    v = ClaimValue(np.float64(2.5), t, "because", "t, frontier")
    assert (v.value, v.data, v.evidence, v.dataset) == (2.5, t, "because", "t, frontier")
    assert ClaimValue(1, [t]).evidence == "" and ClaimValue(1, [t]).dataset is None


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "2.5x", None])
def test_a_claim_value_is_a_finite_number(bad):
    with pytest.raises(ValueError, match="claim's value"):
        ClaimValue(bad, _table())


def test_a_claim_statement_is_a_verdict_with_its_tables():
    from blindspot.core.claim_value import ClaimStatement
    from blindspot.core.verdict import Verdict

    t = _table()
    s = ClaimStatement(Verdict(False, "a counterexample"), [t])
    assert s.verdict.holds is False and s.data == [t] and ClaimStatement(Verdict(True, "x")).data is None
    with pytest.raises(ValueError, match="Verdict"):
        ClaimStatement("holds", t)
