"""A decided statement and the words a page says about it.

The chapters narrate; the package decides. Each part's ``verdicts`` module turns computed results into
a :class:`Verdict` (whether a statement of the paper holds, and the evidence built from the values that
decided it, which the chapter hands to its ledger) or into the words a chapter glues into a sentence.
The helpers here format what several parts say the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Verdict", "number_or", "listing", "yes_no", "compare_words"]

#: What a page says where a number was not computed (a section that does not apply to the data).
NOT_COMPUTED = "not computed"


@dataclass(frozen=True)
class Verdict:
    """A statement decided from computed values.

    Attributes
    ----------
    holds : bool
        Whether the statement holds under the registry's reading of it.
    evidence : str
        The computed values that decided it, in words (the ledger shows it beside the status).
    book : float or str, optional
        The book's value to show beside the statement (``Ledger.statement(book=...)``), if any.
    """

    holds: bool
    evidence: str
    book: float | str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "holds", bool(self.holds))


def number_or(value: float | None, spec: str = ".2f", missing: str = NOT_COMPUTED) -> str:
    """``value`` formatted with ``spec``, or ``missing`` when there is no value (None or NaN).

    Parameters
    ----------
    value : float or None
        The computed number, None when it was not computed.
    spec : str
        A format specification (``".2f"``, ``".0f"``, ``".1%"``).
    missing : str
        What to say instead of a number.

    Returns
    -------
    str
    """
    if value is None or value != value:  # NaN
        return missing
    return format(value, spec)


def listing(items: Iterable[object], empty: str = "none", sep: str = ", ") -> str:
    """The items joined by ``sep``, or ``empty`` when there are none."""
    text = sep.join(str(x) for x in items)
    return text or empty


def yes_no(flag: bool) -> str:
    """'yes' or 'no' for a computed flag (a table cell)."""
    return "yes" if flag else "no"


def compare_words(a: float, b: float, above: str = "above", below: str = "below") -> str:
    """``above`` when ``a > b``, else ``below`` (e.g. 'more often than' / 'less often than')."""
    return above if a > b else below
