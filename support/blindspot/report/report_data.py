"""The report as data: findings (numbers, a small table, a reading), notes, figures, the ranking.

A :class:`Finding` says whether its numbers are **measured** on the file (a bootstrap, a split of
the benchmarks, a correlation) or come from a **model** of what the file does not show (the
chi-squared swap model assumes the unmeasured directions behave like the measured ones), so the
report can keep the two apart. A section that cannot run on a table this small is a finding with
``status='skipped'`` and a reading that says what it needs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from blindspot._version import __version__

__all__ = ["Finding", "ReportData", "jsonable", "MEASURED", "MODEL", "MIXED"]

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


@dataclass(repr=False)
class ReportData:
    """Everything ``blindspot analyze`` computed, in the order it is shown.

    The data of the report: :meth:`to_json` is the text of ``report.json``, and the main numbers are
    attributes (:attr:`d_eff` and :attr:`d_eff_interval`, the frontier's or, when the frontier is too
    small, all models'). :class:`blindspot.report.result.AnalysisReport`, what :func:`blindspot.analyze`
    returns, adds the HTML, the ranking as a frame and :meth:`~blindspot.report.result.AnalysisReport.save`.
    """

    source: str
    settings: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    figures: dict[str, str] = field(default_factory=dict)  # title -> base64 PNG
    filled_cells: list[tuple[str, str]] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)  # the opening paragraph, sentence by sentence
    ranking: list[dict[str, Any]] = field(default_factory=list)  # the top of the ranking, one dict per model
    warnings: list[str] = field(default_factory=list)  # notes on the input a reader must check
    inputs: list[str] = field(default_factory=list)  # the files it was read from (never overwritten by save)

    def finding(self, key: str) -> Finding | None:
        return next((f for f in self.findings if f.key == key), None)

    def _d_eff_finding(self) -> Finding | None:
        for key in ("d_eff_frontier", "d_eff_full"):
            f = self.finding(key)
            if f is not None and f.status == "ok":
                return f
        return None

    @property
    def d_eff(self) -> float | None:
        """Effective dimensionality (participation ratio) on the frontier; all models' if the frontier section did not run."""
        f = self._d_eff_finding()
        return None if f is None else float(f.values["d_eff"])

    @property
    def d_eff_interval(self) -> tuple[float, float] | None:
        """The 95% bootstrap interval of :attr:`d_eff` (resampling models; widened to contain the point estimate)."""
        f = self._d_eff_finding()
        return None if f is None else (float(f.values["ci_lo"]), float(f.values["ci_hi"]))

    @property
    def d_eff_of(self) -> str | None:
        """Which models :attr:`d_eff` is computed on: ``'frontier'`` or ``'all models'``."""
        f = self._d_eff_finding()
        return None if f is None else ("frontier" if f.key == "d_eff_frontier" else "all models")

    @property
    def top_model(self) -> str | None:
        """The #1 of the ranking (the mean z-score on the frontier)."""
        return str(self.ranking[0]["model"]) if self.ranking else None

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

    def to_json(self) -> str:
        """The text of ``report.json``: every number of the report."""
        return json.dumps(self.as_json(), indent=1, sort_keys=True)

    def __repr__(self) -> str:
        n = self.settings.get("n_models", "?")
        k = len(self.settings.get("benchmarks", []))
        parts = [f"{n} models, {k} benchmarks"]
        if self.d_eff is not None:
            lo, hi = self.d_eff_interval
            parts.append(f"d_eff {self.d_eff:.2f} ({lo:.2f} to {hi:.2f}) on the {self.d_eff_of}")
        if self.top_model is not None:
            parts.append(f"#1 {self.top_model}")
        return f"<blindspot AnalysisReport on {self.source!r}: {'; '.join(parts)}>"


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
