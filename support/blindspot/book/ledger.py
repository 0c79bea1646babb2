"""The reproduction ledger: every paper number the book recomputes, with its status.

A *claim* is one number (or statement) of the paper: an id, what it is, the paper's value, the
book's value, a tolerance, the data set, a status and, unless it reproduced, the evidence.
Notebooks record claims with :class:`Ledger`; the build gathers every notebook's file into one
``_build/ledger.json`` (:func:`gather`) and the last chapter renders it.

Statuses
--------
reproduced            |book - paper| <= tol on the paper's data
differs               outside the tolerance; the evidence says why
claim fails           the paper's statement is false as stated (counterexample or measurement)
not reproducible here the data are absent (e.g. the synthetic stand-in is in use) or the paper's
                      number depends on something not available
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import pandas as pd

__all__ = ["Claim", "Ledger", "gather", "STATUSES", "REPRODUCED", "DIFFERS", "FAILS", "NOT_HERE"]

REPRODUCED = "reproduced"
DIFFERS = "differs"
FAILS = "claim fails"
NOT_HERE = "not reproducible here"
STATUSES = (REPRODUCED, DIFFERS, FAILS, NOT_HERE)


@dataclass(frozen=True)
class Claim:
    id: str
    quantity: str
    paper: float | str | None
    book: float | str | None
    tol: float | None
    dataset: str
    status: str
    evidence: str
    notebook: str

    def as_row(self) -> dict:
        return asdict(self)


def _number(x: object) -> float | str | None:
    if x is None or isinstance(x, str):
        return x
    try:
        v = float(x)  # numpy scalars, ints
    except (TypeError, ValueError) as exc:
        raise ValueError(f"ledger values must be numbers, strings or None, got {x!r}") from exc
    if not math.isfinite(v):
        raise ValueError(f"ledger value {x!r} is not finite; record a string that says why instead")
    return v


class Ledger:
    """The claims of one notebook.

    Parameters
    ----------
    notebook : str
        The notebook's stem (e.g. ``"01_effective_dimensionality"``).
    out_dir : path
        Where :meth:`save` writes ``<notebook>.json`` (the build passes ``ledger_dir``).
    """

    def __init__(self, notebook: str, out_dir: str | os.PathLike = "_build/ledger") -> None:
        self.notebook = notebook
        self.out_dir = Path(out_dir)
        self.claims: list[Claim] = []

    def claim(
        self,
        id: str,
        quantity: str,
        paper: float | str | None,
        book: float | str | None,
        dataset: str,
        tol: float | None = None,
        status: str | None = None,
        evidence: str = "",
        synthetic: bool = False,
    ) -> Claim:
        """Record one claim and return it.

        The status is decided as follows: ``synthetic=True`` (the book ran on its synthetic stand-in)
        gives 'not reproducible here'; an explicit ``status`` is kept; otherwise two numbers are
        compared with ``tol`` ('reproduced' or 'differs'). Every status but 'reproduced' needs evidence.
        """
        if any(c.id == id for c in self.claims):
            raise ValueError(f"claim id {id!r} recorded twice in {self.notebook}")
        paper, book = _number(paper), _number(book)
        if synthetic:
            status = NOT_HERE
            evidence = ("the data directory was not available, so this page ran on the synthetic stand-in; "
                        + evidence).strip("; ")
        elif status is None:
            if not isinstance(paper, float) or not isinstance(book, float) or tol is None:
                raise ValueError(f"claim {id!r}: give a status, or numeric paper/book values and a tol")
            status = REPRODUCED if abs(book - paper) <= tol + 1e-12 else DIFFERS
        if status not in STATUSES:
            raise ValueError(f"claim {id!r}: status {status!r} is not one of {STATUSES}")
        if status != REPRODUCED and not evidence:
            raise ValueError(f"claim {id!r} has status {status!r}: say why in evidence=")
        c = Claim(id, quantity, paper, book, tol, dataset, status, evidence, self.notebook)
        self.claims.append(c)
        return c

    def frame(self) -> pd.DataFrame:
        """The claims as a table (paper beside book) for display in the notebook."""
        cols = ["id", "quantity", "dataset", "paper", "book", "tol", "status", "evidence"]
        return pd.DataFrame([c.as_row() for c in self.claims], columns=cols + ["notebook"])[cols]

    def save(self) -> Path:
        """Write ``<out_dir>/<notebook>.json`` and return its path."""
        self.out_dir.mkdir(parents=True, exist_ok=True)
        path = self.out_dir / f"{self.notebook}.json"
        path.write_text(json.dumps([c.as_row() for c in self.claims], indent=1))
        return path


def gather(ledger_dir: str | os.PathLike, out_file: str | os.PathLike) -> list[dict]:
    """Collect every ``<notebook>.json`` of ``ledger_dir`` into one JSON list at ``out_file``."""
    rows: list[dict] = []
    for f in sorted(Path(ledger_dir).glob("*.json")):
        rows.extend(json.loads(f.read_text()))
    Path(out_file).parent.mkdir(parents=True, exist_ok=True)
    Path(out_file).write_text(json.dumps(rows, indent=1))
    return rows
