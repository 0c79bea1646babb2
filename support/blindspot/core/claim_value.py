"""What a result hands to the ledger for one claim: a number (:class:`ClaimValue`) or a statement decided by
a verdict (:class:`ClaimStatement`), each with the tables it was computed on.

A study object of a part (``blindspot.<part>.*_study``) knows which of the paper's claims its numbers and
verdicts answer, on which tables they were computed and what evidence belongs beside them. It returns them as
``{claim id: ClaimValue | ClaimStatement}`` in recording order, and the chapter records them in one call::

    ledger.record(study.claims())

The ledger (``blindspot.book.ledger``, :meth:`~blindspot.book.ledger.Ledger.record`) still decides every
status from the registry and the tables' provenance.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from blindspot.core.verdict import Verdict
from blindspot.data.tables import ScoreTable

__all__ = ["ClaimStatement", "ClaimValue", "on_tables"]


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


@dataclass(frozen=True)
class ClaimStatement:
    """A statement the ledger records for one claim: the part's verdict and the tables it was decided on.

    Attributes
    ----------
    verdict : Verdict
        The part's verdict (:mod:`blindspot.core.verdict`: holds, evidence, basis, test, robustness).
    data : ScoreTable, sequence of ScoreTable, or None
        The tables it was decided on; None for a statement about no score table of the registry (a
        construction, a closed form).

    Raises
    ------
    ValueError
        ``verdict`` is not a :class:`~blindspot.core.verdict.Verdict`.
    """

    verdict: Verdict
    data: ScoreTable | Sequence[ScoreTable] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.verdict, Verdict):
            raise ValueError(f"a claim's statement is a Verdict, got {type(self.verdict).__name__}")


Tables = ScoreTable | Sequence[ScoreTable] | None


def on_tables(
    records: Mapping[str, float | tuple[float, str] | Verdict], data: Tables | Callable[[str], Tables]
) -> dict[str, ClaimValue | ClaimStatement]:
    """A study's numbers and verdicts as the ledger's claims, each on its tables.

    Parameters
    ----------
    records : mapping
        Claim id -> a number, a number with its evidence ``(value, evidence)``, or a
        :class:`~blindspot.core.verdict.Verdict`.
    data : tables, or callable
        The tables every claim was computed on, or a function of the claim id giving them.

    Returns
    -------
    dict
        Claim id -> :class:`ClaimValue` or :class:`ClaimStatement`, in the order of ``records``.
    """
    on = data if callable(data) else (lambda _id: data)
    out: dict[str, ClaimValue | ClaimStatement] = {}
    for cid, r in records.items():
        if isinstance(r, Verdict):
            out[cid] = ClaimStatement(r, on(cid))
        elif isinstance(r, tuple):
            out[cid] = ClaimValue(r[0], on(cid), r[1])
        else:
            out[cid] = ClaimValue(r, on(cid))
    return out
