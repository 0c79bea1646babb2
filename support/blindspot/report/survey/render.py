"""The survey as a self-contained HTML page: ``survey.html`` of ``blindspot survey`` and its Jupyter display.

The page: the frontier rule and the settings, the survey table (few columns), the figure of d_eff
against the number of benchmarks, the figure of whether #1 is resolved, the rest of the numbers, the
completed matrices beside their complete rows and blocks,
what was not computed and why, and what was done with missing cells. Every name from a file is
HTML-escaped; the figures are embedded as base64 PNGs, so the page has no external resource; every
style is scoped to its ``.blindspot-survey`` block, so the same text inside a notebook styles
nothing around it.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from blindspot._version import __version__
from blindspot.diagnose.survey_figures import deff_against_k, leader_resolution
from blindspot.report.advice import RESOLVED

__all__ = ["survey_html", "figure_png"]

_STYLE = """
<style>
.blindspot-survey{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;line-height:1.45;max-width:62rem;
  color:#1b1b1b;background:#fff;padding:0.5rem 1rem}
.blindspot-survey table{border-collapse:collapse;margin:0.6rem 0 1.2rem;font-size:0.9rem}
.blindspot-survey th,.blindspot-survey td{border-bottom:1px solid #ddd;padding:0.25rem 0.6rem;text-align:left;
  vertical-align:top}
.blindspot-survey td.num{text-align:right;font-variant-numeric:tabular-nums}
.blindspot-survey img{max-width:100%;height:auto}
.blindspot-survey .scroll{overflow-x:auto;max-width:100%}
.blindspot-survey .small{font-size:0.85rem;color:#444}
</style>
"""


def figure_png(fig: plt.Figure) -> str:
    """A figure as a base64 PNG (closed afterwards)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight", dpi=110)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


def _table(df: pd.DataFrame) -> str:
    esc = html.escape
    head = "<tr><th>" + esc(str(df.index.name or "")) + "</th>" + "".join(f"<th>{esc(str(c))}</th>" for c in df.columns)
    body = "".join(
        f"<tr><th>{esc(str(i))}</th>" + "".join(f"<td>{esc(str(v))}</td>" for v in row) + "</tr>"
        for i, row in zip(df.index, df.itertuples(index=False))
    )
    return f"<div class='scroll'><table>{head}</tr>{body}</table></div>"


def survey_html(sv: Any) -> str:
    """The text of ``survey.html`` (see the module docstring) of a :class:`blindspot.report.survey.table.Survey`."""
    esc = html.escape
    s = sv.settings
    synthetic = sv.table.index[sv.table["synthetic"].astype(bool)].tolist()
    warn = (
        f"<p><strong>Synthetic stand-ins:</strong> {esc(', '.join(map(str, synthetic)))} are the book's seeded "
        f"synthetic leaderboards, not real data.</p>"
        if synthetic
        else ""
    )
    figs = []
    for title, fig in (
        ("d_eff of each leaderboard against its number of benchmarks", deff_against_k(sv.table)),
        ("Is each leaderboard's #1 resolved?", leader_resolution(sv.table, threshold=RESOLVED)),
    ):
        figs.append(f"<h2>{esc(title)}</h2><img alt='{esc(title)}' src='data:image/png;base64,{figure_png(fig)}'>")
    reasons = sv.reasons[sv.reasons != ""]
    reasons_html = (
        "<h2>Not computed, and why</h2><ul>"
        + "".join(
            f"<li><strong>{esc(str(n))}</strong><ul>"
            + "".join(f"<li>{esc(x)}</li>" for x in r.split(" | "))
            + "</ul></li>"
            for n, r in reasons.items()
        )
        + "</ul>"
        if len(reasons)
        else ""
    )
    handling = sv.handling
    handling_html = (
        "<h2>Missing cells</h2><ul>"
        + "".join(f"<li><strong>{esc(str(n))}</strong>: {esc(str(h))}</li>" for n, h in handling.items())
        + "</ul>"
        if len(handling)
        else ""
    )
    notes = []
    for name, rep in sv.reports.items():
        items = [*rep.warnings, *rep.notes]
        if items:
            notes.append(
                f"<li><strong>{esc(str(name))}</strong><ul>"
                + "".join(f"<li>{esc(x)}</li>" for x in items)
                + "</ul></li>"
            )
    notes_html = "<h2>Notes on the input</h2><ul class='small'>" + "".join(notes) + "</ul>" if notes else ""
    return (
        "<div class='blindspot-survey'>"
        + _STYLE
        + "<h1>The blind spot of your leaderboards</h1>"
        + f"<p>{len(sv.table)} leaderboard(s), each analysed as <code>blindspot analyze</code> analyses one file. "
        f"Frontier: {esc(sv.frontier_rule)}. Bootstrap: {s.get('n_boot')} resamples, seed {s.get('seed')}. "
        f"#1 is resolved when the halves of the benchmarks agree on it in at least {RESOLVED:.0%} of the splits and "
        f"resampling the models keeps it first in at least {RESOLVED:.0%} of the resamples. "
        "A \u2014 is a number not computed (see below why).</p>"
        + warn
        + _table(sv.summary)
        + "".join(figs)
        + "<h2>The other numbers</h2>"
        + _table(sv.details)
        + (
            "<h2>Filled matrices</h2><p>The share of each completed frontier's cells that were filled, and its d_eff "
            "beside the complete rows and the densest complete block; a row whose verdict against the band or the "
            "population changes with the fill is flagged.</p>" + _table(sv.fill)
            if len(sv.fill)
            else ""
        )
        + reasons_html
        + handling_html
        + notes_html
        + f"<p class='small'>blindspot {esc(__version__)}; every number is in survey.csv.</p></div>"
    )
