"""``blindspot analyze FILE``: the practitioner recipe on any score matrix, as a report.

Diagnose (d_eff with its bootstrap CI and MP correction), prognose (population radius R, the
exact covering radius omega, delta_vis = 2 R omega, the top-pair gap, top-1/top-2 swap
probabilities, rank equivalence classes, the width-model regime) and treat (the greedy subset for
90% coverage and its stable core), each with a one-line plain-language reading. Writes
``report.html`` (figures embedded) and ``report.json`` (every number) to ``--out`` and prints a
summary table.
"""

from __future__ import annotations

import argparse
import base64
import html
import io
import json
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from blindspot import __version__
from blindspot.core.conventions import aggregate, frontier, population_radius, top_gap
from blindspot.core.coverage import greedy_select
from blindspot.core.data import META_NAMES, ScoreTable, read_frame, table_from_frame
from blindspot.core.spectrum import bootstrap_d_eff, correlation, mp_correction, spectrum
from blindspot.core.swap import p_swap_rescaled, swap_inputs
from blindspot.core.theme import use_theme
from blindspot.diagnose.figures import bootstrap_hist, scree
from blindspot.perspective.completion import complete_matrix
from blindspot.prognose.rank_classes import class_sizes, rank_classes
from blindspot.prognose.visible_radius import visible_radius
from blindspot.prognose.width_model import gap_vs_delta2
from blindspot.treat.figures import core_bars, coverage_curves
from blindspot.treat.stable_core import stable_core

__all__ = ["Finding", "Report", "analyze_table", "prepare_table", "write_report", "add_parser"]

#: Columns whose standard deviations differ by more than this factor are standardised first.
MIXED_SCALE_RATIO = 10.0


@dataclass
class Finding:
    """One reported quantity: a key, a title, the numbers, and a plain-language reading."""

    key: str
    title: str
    values: dict[str, Any]
    reading: str


@dataclass
class Report:
    source: str
    settings: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    figures: dict[str, str] = field(default_factory=dict)  # name -> base64 PNG
    filled_cells: list[tuple[str, str]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "blindspot_version": __version__,
            "settings": self.settings,
            "notes": self.notes,
            "filled_cells": [list(c) for c in self.filled_cells],
            "findings": {
                f.key: {"title": f.title, "values": _jsonable(f.values), "reading": f.reading} for f in self.findings
            },
        }


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return _jsonable(v.tolist())
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float):
        return None if not np.isfinite(v) else round(v, 10)
    return v


def _fig_to_base64(fig) -> str:

    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode()


# ---------------------------------------------------------------------------------------------
# input preparation


def _sniff_layout(
    df: pd.DataFrame, models_col: str | None, benchmarks: list[str] | None
) -> tuple[str | None, list[str] | None, list[str]]:
    """Recognise leaderboard dumps: one row per evaluation (``eval_id``) and raw twins of scores (``b_raw``)."""
    notes: list[str] = []
    cols = [str(c) for c in df.columns]
    if models_col is None and "eval_id" in cols:
        models_col = "eval_id"
        notes.append(
            "rows are evaluations (an 'eval_id' column, as in an Open LLM Leaderboard dump): each row is "
            "keyed by its evaluation id, so a model evaluated twice appears twice"
        )
    if benchmarks is None:
        twins = [c for c in cols if c.endswith("_raw") and c[:-4] in cols]
        if twins:
            benchmarks = [
                c
                for c in cols
                if c not in twins
                and c != models_col
                and c.lower() not in META_NAMES
                and pd.api.types.is_numeric_dtype(df[c])
                and not pd.api.types.is_bool_dtype(df[c])
            ]
            notes.append(
                f"{len(twins)} raw-score twins ({', '.join(twins)}) of the displayed scores were left out; "
                f"name them with --benchmarks to use them instead"
            )
    return models_col, benchmarks, notes


def prepare_table(
    path: str | Path,
    models_col: str | None = None,
    benchmarks: list[str] | None = None,
    missing: str = "error",
    seed: int = 0,
) -> tuple[ScoreTable, list[str], list[tuple[str, str]]]:
    """Read and validate the file; complete missing cells with LRMC when ``missing='complete'``.

    Returns the table, notes for the report, and the (model, benchmark) cells that were filled.
    Mixed scales (e.g. Elo next to percentages) are standardised per column, with a note.
    """
    if missing not in ("error", "drop-rows", "complete"):
        raise ValueError(f"--missing must be error, drop-rows or complete, got {missing!r}")
    df = read_frame(Path(path))
    models_col, benchmarks, notes = _sniff_layout(df, models_col, benchmarks)
    table = table_from_frame(
        df,
        models_col=models_col,
        benchmarks=benchmarks,
        name=Path(path).stem,
        source=str(path),
        missing="keep" if missing == "complete" else missing,
    )  # type: ignore[arg-type]
    notes += list(table.notes)
    filled: list[tuple[str, str]] = []
    if missing == "complete" and np.isnan(table.values).any():
        done = complete_matrix(table.scores, seed=seed)
        mask = table.scores.isna().to_numpy()
        filled = [(table.scores.index[r], table.benchmarks[c]) for r, c in np.argwhere(mask)]
        notes.append(
            f"{len(filled)} missing cell(s) were filled by low-rank matrix completion (dkps LRMC, "
            f"lambda chosen by cross-validation); every filled cell is listed in the report"
        )
        table = table_from_frame(done.reset_index(), models_col="model", name=table.name, source=table.source)
    sds = table.scores.std(ddof=0)
    if sds.max() / sds.min() > MIXED_SCALE_RATIO:
        z = (table.scores - table.scores.mean()) / sds
        notes.append(
            f"column scales differ by a factor {sds.max() / sds.min():.0f} (e.g. Elo beside percentages): every "
            f"column was standardised (z-scored) before analysis; correlations are unaffected, but the frontier "
            f"and aggregates now weigh each benchmark equally"
        )
        table = ScoreTable(z, table.meta, table.name, table.source, table.synthetic, table.notes)
    return table, notes, filled


# ---------------------------------------------------------------------------------------------
# the sections of the recipe


def _diagnose(full: ScoreTable, front: ScoreTable, n_boot: int, seed: int, rep: Report, progress: bool) -> None:

    use_theme()
    for label, t in (("all models", full), ("the frontier", front)):
        sp = spectrum(t)
        boot = bootstrap_d_eff(t, n_boot=n_boot, seed=seed, progress=progress)
        mp = mp_correction(sp)
        key = "d_eff_full" if label == "all models" else "d_eff_frontier"
        rep.findings.append(
            Finding(
                key,
                f"Effective dimensionality, {label} (n = {t.n_models}, k = {t.n_benchmarks})",
                {
                    "d_eff": sp.d_eff,
                    "ci_lo": boot.lo,
                    "ci_hi": boot.hi,
                    "n_boot": n_boot,
                    "eigenvalues": sp.eigenvalues,
                    "mp_edge": mp.lambda_plus,
                    "n_sig": mp.n_sig,
                    "d_eff_mp": mp.d_eff_mp if mp.defined else None,
                },
                f"These {t.n_benchmarks} benchmarks measure about {sp.d_eff:.1f} independent directions among {label} "
                f"(95% CI {boot.lo:.1f}-{boot.hi:.1f}); {mp.n_sig} eigenvalue(s) stand above the noise edge"
                + ("" if mp.defined else ", so the noise-corrected d_eff is undefined")
                + ".",
            )
        )
        if t is front:
            rep.figures["Bootstrap distribution of d_eff (frontier)"] = _fig_to_base64(bootstrap_hist({label: boot}))
    rep.figures["Eigenvalues of the benchmark correlation matrix"] = _fig_to_base64(
        scree({"all models": spectrum(full), "frontier": spectrum(front)})
    )


def _geometry(front: ScoreTable, rep: Report) -> None:
    """R, the exact covering radius omega, delta_vis = 2 R omega and the top gap (Theorem 2; spec §4, §5)."""

    R, gap = population_radius(front), top_gap(front)
    values: dict[str, Any] = {"R": R, "delta_2": gap}
    try:
        pr = visible_radius(front)  # the formula as stated: exact covering radius of +-directions
        values.update({"omega": pr.omega, "delta_vis": pr.delta_vis, "trivial_cap_2R": 2 * R, "d_used": pr.d})
        extra = (
            f" Two models can differ by up to delta_vis = 2R*omega = {pr.delta_vis:.2f} (omega = {pr.omega:.3f} "
            f"rad, exact) and still look alike on every benchmark"
            + (
                ", which exceeds the trivial bound 2R: the geometric bound says nothing here."
                if pr.delta_vis >= 2 * R
                else "."
            )
        )
    except ValueError as exc:  # e.g. directions that do not span: say why instead of a number
        values["omega"] = None
        extra = f" The covering radius is not available: {exc}."
    rep.findings.append(
        Finding(
            "radius_gap",
            "Population radius, indistinguishability radius and top-pair gap (frontier, z-score units)",
            values,
            (
                f"The frontier spans a radius of {R:.2f} standard units, while the top two models differ by {gap:.3f} on "
                f"the aggregate: {R / gap:.0f} times smaller."
                if gap > 0
                else f"The frontier spans a radius of {R:.2f}; the top two models are tied on the aggregate."
            )
            + extra,
        )
    )


def _swap_and_classes(full: ScoreTable, front: ScoreTable, rep: Report, top: int = 20, **_: Any) -> None:
    """Swap probabilities of the top of the ranking and its rank classes (Corollary 1; spec §8, §9)."""

    a = aggregate(front)
    order = np.argsort(-a, kind="stable")
    inp = swap_inputs(front)  # d_eff, sigma_obs = sd(agg) and the leader's gaps, as the paper's code has them
    d, sigma_obs = inp.d_eff, inp.sigma_obs
    D = float(max(front.n_benchmarks, np.floor(d) + 1))  # the paper's choice D = k (spec §7), kept above d
    sigma_h = sigma_obs * np.sqrt((D - d) / d)
    p_pair = np.asarray(p_swap_rescaled(inp.gaps, d, D, sigma_obs))
    p_top2 = float(p_pair[0])
    p_top1 = float(1.0 - np.prod(1.0 - p_pair))
    rep.findings.append(
        Finding(
            "swap",
            f"Swap probabilities at the top (chi-squared model, rescaled; D = {D:g})",
            {
                "p_swap_top2": p_top2,
                "p_leader_overtaken": p_top1,
                "D": D,
                "d_eff": d,
                "sigma_obs": sigma_obs,
                "sigma_h": sigma_h,
                "leader": str(front.scores.index[order[0]]),
                "runner_up": str(front.scores.index[order[1]]),
            },
            f"If the unmeasured directions behave like the measured ones, the top two models swap with probability "
            f"{p_top2:.2f}; the leader is overtaken by someone with probability {p_top1:.2f} (independence approximation)."
            + (" A coin flip: the #1 spot is not resolved by this leaderboard." if p_top2 > 0.4 else ""),
        )
    )
    m = min(top, front.n_models)
    top_idx = order[:m]
    classes = rank_classes(a[top_idx], sigma_h, thr=0.40)
    names = [[str(front.scores.index[top_idx[i]]) for i in c] for c in classes]
    sizes = class_sizes(classes)
    rep.findings.append(
        Finding(
            "rank_classes",
            f"Rank equivalence classes of the top {m} (P(swap) > 0.40 within a class)",
            {"sizes": sizes, "classes": names, "sigma_h": sigma_h},
            f"The top {m} models fall into {len(sizes)} class(es) of sizes {sizes}: the {sizes[0]} models of the first "
            f"class are structurally indistinguishable from one another on this leaderboard.",
        )
    )


def _width_regime(full: ScoreTable, front: ScoreTable, rep: Report, **_: Any) -> None:
    """Is the linear width model accurate enough to resolve the top pair? (Proposition 1; spec §12)."""

    n_pc = int(min(5, front.n_benchmarks - 1))
    g = gap_vs_delta2(front, n_pc=n_pc, n_quad_pc=min(3, n_pc))
    rep.findings.append(
        Finding(
            "width_model",
            "Width-model regime (linear vs quadratic fit on the top principal components)",
            {
                "r2_gap_max": g.gap_max,
                "delta_2": g.delta2,
                "top_pair_residual": g.top_pair_residual,
                "resolves_top_pair": g.resolves_top_pair,
            },
            (
                f"The linear width model's error on the top pair ({g.top_pair_residual:.3f}) is below the top gap ({g.delta2:.3f}): the linear "
                "picture is adequate here."
            )
            if g.resolves_top_pair
            else (
                f"The linear width model misjudges the top pair by {g.top_pair_residual:.3f}, more than their gap {g.delta2:.3f}: the ranking at the "
                "top lies inside the model's own error."
            ),
        )
    )


def _treat(
    full: ScoreTable, front: ScoreTable, rep: Report, seed: int = 0, n_boot: int = 1000, target: float = 0.9, **_: Any
) -> None:
    """The greedy benchmark subset reaching 90% coverage and its bootstrap stable core (Theorem 4; spec §14, §15)."""

    res = greedy_select(correlation(front), target=target, names=front.benchmarks)
    r = int(res.r_target)
    chosen = [front.benchmarks[i] for i in res.order[:r]]
    core = stable_core(front, r=r, n_boot=min(n_boot, 500), seed=seed)
    freq = {str(k): float(v) for k, v in core.frequencies.items()}
    rep.findings.append(
        Finding(
            "greedy_subset",
            f"Greedy benchmark subset for {target:.0%} coverage and its stable core",
            {
                "r": r,
                "k": front.n_benchmarks,
                "subset": chosen,
                "coverage": float(res.coverages[r - 1]),
                "stable_core": list(core.core),
                "frequencies": freq,
                "n_boot_core": min(n_boot, 500),
            },
            f"{r} of the {front.n_benchmarks} benchmarks ({', '.join(chosen)}) carry {res.coverages[r - 1]:.0%} of the "
            f"suite's variance; {len(core.core)} of them ({', '.join(core.core) or 'none'}) are picked in at least 90% "
            f"of bootstrap resamples (the stable core). Greedy is a heuristic here: the objective is not submodular.",
        )
    )
    rep.figures["Greedy coverage curve"] = _fig_to_base64(coverage_curves({"greedy": res.coverages}, target=target))
    rep.figures["Stable core: how often each benchmark is in the greedy subset"] = _fig_to_base64(
        core_bars(core.frequencies, 0.9)
    )


SECTIONS: list[Callable[..., None]] = [_swap_and_classes, _width_regime, _treat]


def analyze_table(
    table: ScoreTable,
    frontier_q: float = 0.5,
    n_boot: int = 1000,
    seed: int = 0,
    progress: bool = False,
    notes: list[str] | None = None,
    filled: list[tuple[str, str]] | None = None,
) -> Report:
    """Run the whole recipe on a validated table and return the :class:`Report`."""
    if n_boot < 2:
        raise ValueError(f"--n-boot must be at least 2, got {n_boot}")
    front = frontier(table, frontier_q) if frontier_q > 0 else table
    rep = Report(
        table.source,
        {
            "frontier_q": frontier_q,
            "n_boot": n_boot,
            "seed": seed,
            "n_models": table.n_models,
            "n_frontier": front.n_models,
            "benchmarks": table.benchmarks,
        },
        notes=list(notes or []),
        filled_cells=list(filled or []),
    )
    _diagnose(table, front, n_boot, seed, rep, progress)
    _geometry(front, rep)
    for section in SECTIONS:
        section(table, front, rep, seed=seed, n_boot=n_boot)
    return rep


# ---------------------------------------------------------------------------------------------
# output


def _html(rep: Report) -> str:
    esc = html.escape
    rows = "\n".join(
        f"<tr><td>{esc(f.title)}</td><td>{esc(_short(f.values))}</td><td>{esc(f.reading)}</td></tr>"
        for f in rep.findings
    )
    notes = "".join(f"<li>{esc(n)}</li>" for n in rep.notes) or "<li>none</li>"
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
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Blind-spot report: {esc(rep.source)}</title>
<style>
body {{ font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; }}
table {{ border-collapse: collapse; width: 100%; }} td, th {{ border-bottom: 1px solid #ddd; padding: .4rem;
vertical-align: top; text-align: left; }} th {{ background: #f4f4f4; }} figure {{ display: inline-block; margin: 1rem; }}
img {{ max-width: 34rem; }} .cols {{ columns: 3; }} code {{ background: #f4f4f4; }}
</style></head><body>
<h1>Blind-spot report</h1>
<p>Source: <code>{esc(rep.source)}</code>. Settings: {esc(json.dumps(_jsonable(rep.settings)))}.
Produced by <code>blindspot analyze</code> {__version__}; every number is also in <code>report.json</code>.</p>
<h2>Notes on the input</h2><ul>{notes}</ul>
<h2>Findings</h2>
<table><tr><th>quantity</th><th>values</th><th>what it means</th></tr>
{rows}
</table>
<h2>Figures</h2>
{figs}
{filled}
</body></html>
"""


def _short(values: dict[str, Any]) -> str:
    parts = []
    for k, v in values.items():
        if isinstance(v, (list, tuple, np.ndarray)) and len(v) > 6:
            continue
        if isinstance(v, (float, np.floating)):
            parts.append(f"{k} = {v:.4g}")
        else:
            parts.append(f"{k} = {v}")
    return "; ".join(parts)


def summary_frame(rep: Report) -> pd.DataFrame:
    """A short table for the terminal: one row per finding, its title and reading."""
    return pd.DataFrame([{"quantity": f.title, "reading": f.reading} for f in rep.findings])


def summary_text(rep: Report, width: int = 100) -> str:
    """The terminal summary: each finding's title, then its reading wrapped and indented."""

    lines = [f"Blind-spot report for {rep.source}"]
    for f in rep.findings:
        lines.append(f"\n{f.title}")
        lines.extend(textwrap.wrap(f.reading, width=width, initial_indent="  ", subsequent_indent="  "))
    return "\n".join(lines)


def write_report(rep: Report, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``report.html`` and ``report.json`` into ``out_dir``; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    j, h = out / "report.json", out / "report.html"
    j.write_text(json.dumps(rep.as_json(), indent=1, sort_keys=True))
    h.write_text(_html(rep))
    return h, j


# ---------------------------------------------------------------------------------------------
# command line


def add_parser(sub: argparse._SubParsersAction) -> None:
    a = sub.add_parser(
        "analyze",
        help="the practitioner report on a score file (HTML + JSON)",
        description="Analyse a leaderboard: d_eff, indistinguishability, swap risk, rank classes, "
        "greedy benchmark subset. Writes report.html and report.json.",
    )
    a.add_argument("file", help="score file: CSV, TSV, parquet or JSON; one row per model")
    a.add_argument(
        "--frontier",
        type=float,
        default=0.5,
        metavar="Q",
        help="analyse the models whose mean score is >= the Q-quantile (default 0.5; 0 = all models)",
    )
    a.add_argument("--models-col", default=None, help="column with model names (default: detected)")
    a.add_argument("--benchmarks", default=None, help="comma-separated score columns (default: all numeric)")
    a.add_argument(
        "--missing",
        choices=("error", "drop-rows", "complete"),
        default="error",
        help="missing cells: fail (default), drop those rows, or complete them with LRMC",
    )
    a.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples (default 1000)")
    a.add_argument("--seed", type=int, default=0, help="seed of every random step (default 0)")
    a.add_argument("--out", default="blindspot-report", help="output folder (default ./blindspot-report)")
    a.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    a.set_defaults(func=run_cli)


def run_cli(args: argparse.Namespace) -> int:
    benchmarks = [b.strip() for b in args.benchmarks.split(",")] if args.benchmarks else None
    if not 0 <= args.frontier < 1:
        raise ValueError(f"--frontier must be in [0, 1), got {args.frontier}")
    table, notes, filled = prepare_table(args.file, args.models_col, benchmarks, args.missing, args.seed)
    rep = analyze_table(
        table, args.frontier, args.n_boot, args.seed, progress=not args.quiet, notes=notes, filled=filled
    )
    h, j = write_report(rep, args.out)
    if not args.quiet:
        print(summary_text(rep))
        print(f"report: {h}\nnumbers: {j}", file=sys.stderr)
    return 0
