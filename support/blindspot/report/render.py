"""The report as a self-contained HTML page, as terminal text and as a summary frame.

Every name and string from the file is HTML-escaped; figures are embedded as base64 PNGs, so the
page has no external resource. The order of the page: what this means for your leaderboard,
warnings about the input, notes on the input, the top of the ranking, then each finding as a
small table with its reading and whether it is measured or a model.
"""

from __future__ import annotations

import html
import json
import textwrap

import pandas as pd

from blindspot._version import __version__
from blindspot.report.report_data import ReportData, jsonable

__all__ = ["to_html", "summary_text", "summary_frame", "ranking_frame"]


def ranking_frame(rep: ReportData) -> pd.DataFrame:
    """The top of the ranking as a frame (rank, model, aggregate, class, P(overtaken), #1 share)."""
    if not rep.ranking:
        return pd.DataFrame()
    df = pd.DataFrame(rep.ranking).set_index("rank")
    return df.rename(
        columns={
            "aggregate": "aggregate (z)",
            "gap_to_next": "gap to next",
            "rank_class": "rank class (model)",
            "p_overtaken_model": "P(overtaken) (model)",
            "overtaken_share_measured": "overtaken when models are resampled (measured)",
        }
    )


def _fmt(v, spec: str) -> str:
    return "" if v is None else format(v, spec)


def _ranking_html(rep: ReportData) -> str:
    if not rep.ranking:
        return ""
    esc = html.escape
    head = (
        "<tr><th>rank</th><th>model</th><th>aggregate (z)</th><th>gap to next</th><th>rank class<br><small>model"
        "</small></th><th>P(overtaken by a model ranked below)<br><small>model</small></th><th>overtaken by a model "
        "ranked below, in resamples of the models<br><small>measured</small></th></tr>"
    )
    body = "".join(
        f"<tr><td>{r['rank']}</td><td>{esc(str(r['model']))}</td><td>{_fmt(r['aggregate'], '.3f')}</td>"
        f"<td>{_fmt(r['gap_to_next'], '.3f')}</td><td>{_fmt(r['rank_class'], 'd')}</td>"
        f"<td>{_fmt(r['p_overtaken_model'], '.2f')}</td><td>{_fmt(r['overtaken_share_measured'], '.0%')}</td></tr>"
        for r in rep.ranking
    )
    return (
        "<h2>The top of the ranking</h2><p>Models ranked by the mean z-score over the benchmarks, on the frontier. "
        "Columns marked <em>model</em> come from the chi-squared model of unmeasured directions; the column marked "
        f"<em>measured</em> comes from resampling the models of your file.</p><table>{head}{body}</table>"
    )


def to_html(rep: ReportData) -> str:
    """The page ``report.html`` holds; every style is scoped to its ``.blindspot-report`` block, so the same
    text shown inside a notebook (:meth:`AnalysisReport._repr_html_`) styles the report and nothing around it."""
    esc = html.escape
    advice = " ".join(esc(s) for s in rep.advice) or "No section could run on this table."
    warnings = (
        "<div class='warn'><h2>Check your input</h2><ul>"
        + "".join(f"<li>{esc(w)}</li>" for w in rep.warnings)
        + "</ul></div>"
        if rep.warnings
        else ""
    )
    notes = "".join(f"<li>{esc(n)}</li>" for n in rep.notes) or "<li>none</li>"
    sections = []
    for f in rep.findings:
        rows = "".join(f"<tr><th>{esc(a)}</th><td>{esc(b)}</td></tr>" for a, b in f.rows)
        badge = "skipped" if f.status == "skipped" else esc(f.basis)
        sections.append(
            f"<section><h3>{esc(f.title)}</h3><p class='basis'>{badge}</p>"
            + (f"<table class='kv'>{rows}</table>" if rows and f.status == "ok" else "")
            + f"<p>{esc(f.reading)}</p></section>"
        )
    figs = "\n".join(
        f'<figure><img alt="{esc(k)}" src="data:image/png;base64,{v}"/><figcaption>{esc(k)}</figcaption></figure>'
        for k, v in rep.figures.items()
    )
    filled = ""
    if rep.filled_cells:
        items = "".join(f"<li>{esc(m)} / {esc(b)}</li>" for m, b in rep.filled_cells)
        filled = (
            f"<h2>Filled cells ({len(rep.filled_cells)})</h2><p>These cells were missing and were "
            f"completed by LRMC; numbers above use them.</p><ul class='cols'>{items}</ul>"
        )
    settings = esc(json.dumps(jsonable({k: v for k, v in rep.settings.items() if k != "benchmarks"})))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Blind-spot report: {esc(rep.source)}</title>
<style>
.blindspot-report {{ font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem;
color: #222; }}
.blindspot-report table {{ border-collapse: collapse; width: 100%; margin: .5rem 0; }}
.blindspot-report td, .blindspot-report th {{ border-bottom: 1px solid #ddd; padding: .35rem; vertical-align: top;
text-align: left; }} .blindspot-report th {{ background: #f4f4f4; font-weight: 600; }}
.blindspot-report table.kv th {{ width: 45%; }} .blindspot-report figure {{ display: inline-block; margin: 1rem; }}
.blindspot-report img {{ max-width: 34rem; }} .blindspot-report .cols {{ columns: 3; }}
.blindspot-report code {{ background: #f4f4f4; }}
.blindspot-report .advice {{ background: #eef5ff; padding: .8rem 1rem; border-left: 4px solid #2a6fd6; }}
.blindspot-report .warn {{ background: #fff4e5; padding: .3rem 1rem; border-left: 4px solid #e08a00; }}
.blindspot-report .basis {{ color: #555; font-size: .85rem; margin: 0; }}
</style></head><body><div class="blindspot-report">
<h1>Blind-spot report</h1>
<p>Source: <code>{esc(rep.source)}</code> ({len(rep.settings.get("benchmarks", []))} benchmarks). Settings: {settings}.
Produced by <code>blindspot analyze</code> {__version__}; every number is also in <code>report.json</code>.</p>
<div class="advice"><h2>What this means for your leaderboard</h2><p>{advice}</p></div>
{warnings}
<h2>Notes on the input</h2><ul>{notes}</ul>
{_ranking_html(rep)}
<h2>Findings</h2>
{"".join(sections)}
<h2>Figures</h2>
{figs}
{filled}
</div></body></html>
"""


def summary_frame(rep: ReportData) -> pd.DataFrame:
    """A short table: one row per finding, its title, basis and reading."""
    return pd.DataFrame(
        [
            {"quantity": f.title, "basis": "skipped" if f.status == "skipped" else f.basis, "reading": f.reading}
            for f in rep.findings
        ]
    )


def summary_text(rep: ReportData, width: int = 100) -> str:
    """The terminal summary: the advice, warnings, notes, the top 5, then each finding's reading."""

    def wrap(s: str, indent: str = "  ") -> list[str]:
        return textwrap.wrap(s, width=width, initial_indent=indent, subsequent_indent=indent)

    lines = [f"Blind-spot report for {rep.source}", "", "What this means for your leaderboard"]
    lines += wrap(" ".join(rep.advice) or "No section could run on this table.")
    if rep.warnings:
        lines += ["", "Check your input"]
        for w in rep.warnings:
            lines += wrap("- " + w)
    if rep.notes:
        lines += ["", "Notes on the input"]
        for n in rep.notes:
            lines += wrap("- " + n)
    if rep.ranking:
        lines += ["", "Top of the ranking (overtaken by a model ranked below: P from the model | share measured)"]
        for r in rep.ranking[:5]:
            lines.append(
                f"  {r['rank']:>2}. {str(r['model'])[:48]:<48} class {_fmt(r['rank_class'], 'd') or '-':>2}  "
                f"P {_fmt(r['p_overtaken_model'], '.2f') or '-':>4} | measured "
                f"{_fmt(r['overtaken_share_measured'], '.0%') or '-':>4}"
            )
    for f in rep.findings:
        lines += ["", f.title]
        lines += wrap(f.reading)
    return "\n".join(lines)
