"""The report as data: findings (numbers, a small table, a reading), notes, figures, the ranking.

A :class:`Finding` says whether its numbers are **measured** on the file (a bootstrap, a split of
the benchmarks, a correlation) or come from a **model** of what the file does not show (the
chi-squared swap model assumes the unmeasured directions behave like the measured ones), so the
report can keep the two apart. A section that cannot run on a table this small is a finding with
``status='skipped'`` and a reading that says what it needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from blindspot import __version__

__all__ = ["Finding", "Report", "jsonable", "MEASURED", "MODEL", "MIXED"]

MEASURED = "measured on your file"
MODEL = "model (an assumption about what the file does not show)"
MIXED = "measured, and a bound that holds in theory"


@dataclass
class Finding:
    """One reported quantity.

    Attributes
    ----------
    key, title : str
        Stable identifier (JSON key) and heading.
    values : dict
        Every number of the finding, for ``report.json``.
    reading : str
        A plain-language reading written from the numbers.
    rows : list of (label, value) pairs
        The small table the HTML shows (formatted text).
    basis : str
        :data:`MEASURED`, :data:`MODEL` or :data:`MIXED`.
    status : str
        ``'ok'`` or ``'skipped'`` (then ``reading`` says what the section needs).
    """

    key: str
    title: str
    values: dict[str, Any]
    reading: str
    rows: list[tuple[str, str]] = field(default_factory=list)
    basis: str = MEASURED
    status: str = "ok"


@dataclass
class Report:
    """Everything ``blindspot analyze`` computed, in the order it is shown."""

    source: str
    settings: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    figures: dict[str, str] = field(default_factory=dict)  # title -> base64 PNG
    filled_cells: list[tuple[str, str]] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)  # the opening paragraph, sentence by sentence
    ranking: list[dict[str, Any]] = field(default_factory=list)  # the top of the ranking, one dict per model
    warnings: list[str] = field(default_factory=list)  # notes on the input a reader must check

    def finding(self, key: str) -> Finding | None:
        return next((f for f in self.findings if f.key == key), None)

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "blindspot_version": __version__,
            "settings": jsonable(self.settings),
            "advice": list(self.advice),
            "warnings": list(self.warnings),
            "notes": list(self.notes),
            "filled_cells": [list(c) for c in self.filled_cells],
            "ranking": jsonable(self.ranking),
            "findings": {
                f.key: {
                    "title": f.title,
                    "status": f.status,
                    "basis": f.basis,
                    "values": jsonable(f.values),
                    "reading": f.reading,
                }
                for f in self.findings
            },
        }


def jsonable(v: Any) -> Any:
    """Plain JSON types; floats rounded to 10 significant places, NaN/inf as null."""
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return jsonable(v.tolist())
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        return None if not np.isfinite(v) else round(v, 10)
    return v
