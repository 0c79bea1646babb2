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
from pathlib import PurePath
from typing import Any

import numpy as np

from blindspot._version import __version__

__all__ = ["Finding", "ReportData", "jsonable", "MEASURED", "MODEL", "MIXED", "FIGURES", "QUANTITY_FORMATS"]

MEASURED = "measured on your file"
MODEL = "model (an assumption about what the file does not show)"
MIXED = "measured, and a bound that holds in theory"

#: The report's figures by name, in the order a page shows them: name -> the title the report draws it under
#: (the key of :attr:`ReportData.figures`). A figure the report did not draw on a file is absent from ``figures``.
FIGURES = {
    "coverage": "Greedy coverage curve",
    "core": "Stable core: how often each benchmark is in the greedy subset (top 30)",
    "bootstrap": "Bootstrap distribution of d_eff (frontier)",
    "spectrum": "Eigenvalues of the benchmark correlation matrix",
}

#: The display format of each quantity of :meth:`ReportData.quantities` (a ``format()`` spec; ``""``: as is).
QUANTITY_FORMATS = {
    "source_name": "",
    "n_models": "d",
    "n_benchmarks": "d",
    "d_eff_frontier": ".2f",
    "d_eff_lo": ".2f",
    "d_eff_hi": ".2f",
    "n_sig": "d",
    "d_eff_full": ".2f",
    "radius": ".2f",
    "gap": ".3f",
}

# quantity name -> (finding key, key of the finding's values)
_FROM_FINDINGS = {
    "d_eff_frontier": ("d_eff_frontier", "d_eff"),
    "d_eff_lo": ("d_eff_frontier", "ci_lo"),
    "d_eff_hi": ("d_eff_frontier", "ci_hi"),
    "n_sig": ("d_eff_frontier", "n_sig"),
    "d_eff_full": ("d_eff_full", "d_eff"),
    "radius": ("radius_gap", "R"),
    "gap": ("radius_gap", "delta_2"),
}


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

    def quantities(self) -> dict[str, Any]:
        """The report's headline numbers by name: what a page glues with one call (``glue_result``).

        ``source_name`` (the file's name), ``n_models`` and ``n_benchmarks`` (after the loader's checks),
        ``d_eff_frontier`` with its 95% bootstrap interval ``d_eff_lo``–``d_eff_hi`` and ``n_sig`` (eigenvalues
        above the Marchenko-Pastur edge), ``d_eff_full`` (all models), ``radius`` (the frontier's population
        radius R) and ``gap`` (the top pair's gap delta_2). A quantity whose section was skipped on this file
        is absent. Each is shown with its format in :data:`QUANTITY_FORMATS` (:meth:`displayed`).
        """
        out: dict[str, Any] = {
            "source_name": PurePath(self.source).name,
            "n_models": int(self.settings.get("n_models", 0)),
            "n_benchmarks": len(self.settings.get("benchmarks", [])),
        }
        for name, (key, value) in _FROM_FINDINGS.items():
            f = self.finding(key)
            if f is not None and f.status == "ok" and value in f.values:
                out[name] = f.values[value]
        return out

    def displayed(self) -> dict[str, str]:
        """:meth:`quantities` as text, each in its display format (:data:`QUANTITY_FORMATS`)."""
        return {k: format(v, QUANTITY_FORMATS[k]) for k, v in self.quantities().items()}

    def opening(self) -> str:
        """The report's opening as Markdown: a "Check your input" line per warning, then the advice paragraph."""
        return "\n\n".join([f"**Check your input:** {w}" for w in self.warnings] + [" ".join(self.advice)])

    def readings(self) -> str:
        """Each finding's reading as a Markdown list: its title, its basis (or "skipped") and its reading."""
        return "\n".join(
            f"- **{f.title}** ({f.basis if f.status == 'ok' else 'skipped'}). {f.reading}" for f in self.findings
        )

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
