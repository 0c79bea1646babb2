"""A number a result hands to the ledger for one claim: what a study's ``claims()`` returns.

A study object of a part (``blindspot.<part>.*_study``) knows which of the paper's claims its numbers
answer, on which tables they were computed and what evidence belongs beside them. It returns them as
``{claim id: ClaimValue}``, and the chapter records them in one loop::

    for claim_id, v in study.claims().items():
        ledger.value(claim_id, v.value, data=v.data, evidence=v.evidence, dataset=v.dataset)

The ledger (``blindspot.book.ledger``) still decides every status from the registry.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from blindspot.data.tables import ScoreTable

__all__ = ["ClaimValue"]


@dataclass(frozen=True)
class ClaimValue:
    """A value the ledger records for one claim.

    Attributes
    ----------
    value : float
        The book's number (finite).
    data : ScoreTable, sequence of ScoreTable, or None
        The tables it was computed on (the ledger reads their provenance: paper, synthetic or yours); None when
        the claim rests on no score table of the registry.
    evidence : str
        What the reader should see beside it (how it was computed, what it rests on).
    dataset : str or None
        Where exactly it was computed, when that is narrower than the tables' names.

    Raises
    ------
    ValueError
        A value that is not a finite number.
    """

    value: float
    data: ScoreTable | Sequence[ScoreTable] | None
    evidence: str = ""
    dataset: str | None = None

    def __post_init__(self) -> None:
        try:
            v = float(self.value)
        except (TypeError, ValueError):
            raise ValueError(f"a claim's value must be a number, got {self.value!r}") from None
        if not math.isfinite(v):
            raise ValueError(f"a claim's value must be finite, got {v}")
