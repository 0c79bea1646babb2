"""``blindspot compare``: are my models really different? Paired tests on per-item results.

:func:`compare` is the one entry of the command and of a notebook (``blindspot.compare(path_or_frame,
...)``). It reads per-item results (:func:`read_items`: an lm-evaluation-harness ``--log_samples``
folder through :func:`dkps.lm_eval_samples.load_records`, an Every Eval Ever instance-level folder
through :func:`dkps.eee.load_records`, a long file or DataFrame through
:mod:`blindspot.data.item_results`), aligns the models on the items they share, and returns a
:class:`Comparison`:

- **two models**: per benchmark the paired difference, its 95% interval, p-value, items and minimum
  detectable effect; Holm-adjusted decisions; macro and micro overall differences
  (:func:`blindspot.prognose.paired_comparison.compare_pair`);
- **more models**: the ranking by micro mean with each adjacent pair tested, Holm over the pairs
  (:func:`blindspot.prognose.paired_comparison.ranking`), and each adjacent pair's differences per
  benchmark;
- with ``reference=`` (any score file or folder ``analyze`` reads): the (top) pair's standardised
  difference split into what the leaderboard's visible directions carry and miss, beside its
  indistinguishability radius (:func:`blindspot.prognose.paired_comparison.visible_split`).

Bad input: items answered by one model only are left out, with a note giving the counts; a benchmark
with no shared item is a row with "—" and its reason; duplicate (model, item) rows are refused, named;
non-binary scores go to the bootstrap, said in the row's note; one model only is refused (one line;
the command exits 2).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from blindspot._version import __version__
from blindspot.core.theme import use_theme
from blindspot.data.item_results import ItemResults, item_frame, read_long_file
from blindspot.data.tables import ScoreTable, read_table
from blindspot.prognose import comparison_words, figures
from blindspot.prognose.paired_comparison import (
    BOOTSTRAP,
    PairComparison,
    Ranking,
    VisibleSplit,
    compare_pair,
    is_binary,
    ranking,
    visible_split,
)
from blindspot.report.options import check_settings
from blindspot.report.output import run_staged, stage_output

__all__ = ["Comparison", "compare", "read_items", "run_cli", "COMPARE_FILES"]

#: The files ``--out`` receives, both or neither.
COMPARE_FILES = ("compare.html", "compare.json")


# -- reading ----------------------------------------------------------------------------------------


def _files_under(paths: Sequence[Path], pattern: str) -> list[Path]:
    out: list[Path] = []
    for p in paths:
        if p.is_dir():
            out += sorted(p.rglob(pattern))
        elif p.match(pattern):
            out.append(p)
    return out


def _dkps_items(records: pd.DataFrame, name: str, source: str, caught: list) -> ItemResults:
    frame, notes = item_frame(
        records.rename(columns={"model_id": "model", "task_id": "benchmark", "query_id": "item"})[
            ["model", "benchmark", "item", "score"]
        ],
        where=name,
    )
    notes = [str(w.message) for w in caught] + notes
    hib: dict = {}
    if "higher_is_better" in records:
        flags = records.groupby("task_id")["higher_is_better"].first()
        hib = {str(t): bool(v) for t, v in flags.items() if v is not None and not pd.isna(v)}
    return ItemResults(frame, name, source, False, tuple(notes), hib)


def read_items(data: str | os.PathLike | Sequence[str | os.PathLike] | pd.DataFrame | ItemResults) -> ItemResults:
    """Per-item results from a folder, file(s), a DataFrame or :class:`~blindspot.data.item_results.ItemResults`.

    A folder (or files) holding ``samples_<task>_<timestamp>.jsonl`` is lm-evaluation-harness
    ``--log_samples`` output (each (model, task) keeps its newest run; the harness's note says how
    many were left out); one holding ``*_samples.jsonl`` or other ``.jsonl`` files is Every Eval Ever
    instance-level data (every instance kept); any other file is a long table with columns model,
    benchmark, item, score.

    Raises
    ------
    ValueError
        A path that does not exist, a folder with no per-item file, and every refusal of the readers
        (duplicates, missing columns, scores that are not numbers).
    """
    if isinstance(data, ItemResults):
        return data
    if isinstance(data, pd.DataFrame):
        frame, notes = item_frame(data, where="the DataFrame")
        return ItemResults(frame, "DataFrame", "a DataFrame", False, tuple(notes))
    raw = [data] if isinstance(data, (str, os.PathLike)) else list(data)
    if not raw:
        raise ValueError("no path given; name a folder of per-item results or a long file")
    paths = [Path(p).expanduser() for p in raw]
    for p, r in zip(paths, raw):
        if not p.exists():
            raise ValueError(f"{str(r)!r} does not exist")
    name = paths[0].name if len(paths) == 1 else f"{paths[0].name} and {len(paths) - 1} more"
    source = ", ".join(map(str, paths))
    lm_eval = [f for f in _files_under(paths, "samples_*.jsonl") if not f.name.endswith("_samples.jsonl")]
    if lm_eval:
        from dkps import lm_eval_samples

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            records = lm_eval_samples.load_records([str(p) for p in paths])
        return _dkps_items(records, name, source, caught)
    if _files_under(paths, "*.jsonl"):
        from dkps import eee

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            records = eee.load_records([str(p) for p in paths], max_queries_per_cell=None)
        return _dkps_items(records, name, source, caught)
    files = [p for p in paths if p.is_file()]
    if len(files) != len(paths):
        raise ValueError(
            f"{source} holds no per-item results (lm-eval samples_*.jsonl, Every Eval Ever *_samples.jsonl); a long "
            f"file needs columns model, benchmark, item, score"
        )
    parts = [read_long_file(p) for p in files]
    if len(parts) == 1:
        return parts[0]
    frame, notes = item_frame(pd.concat([r.frame for r in parts], ignore_index=True), where=name)
    return ItemResults(frame, name, source, False, tuple(n for r in parts for n in r.notes) + tuple(notes))


# -- alignment --------------------------------------------------------------------------------------


def _flip(x: np.ndarray) -> np.ndarray:
    return 1.0 - x if is_binary(x) else -x


def _aligned(
    items: ItemResults, models: list[str], benchmarks: list[str], lower: set[str]
) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, str], list[str]]:
    """Each model's scores on the items every model answered, per benchmark; reasons and notes."""
    f = items.frame
    scores: dict[str, dict[str, np.ndarray]] = {m: {} for m in models}
    reasons: dict[str, str] = {}
    notes: list[str] = []
    for bench in benchmarks:
        g = f[(f["benchmark"] == bench) & f["model"].isin(models)]
        wide = g.pivot(index="item", columns="model", values="score")
        absent = [m for m in models if m not in wide.columns]
        if absent:
            reasons[bench] = f"no item answered by {', '.join(absent)}"
            for m in models:
                scores[m][bench] = np.empty(0)
            continue
        wide = wide[models]
        shared = wide.dropna()
        if shared.empty:
            counts = ", ".join(f"{m}: {int(wide[m].notna().sum())}" for m in models)
            reasons[bench] = f"no item answered by {'both' if len(models) == 2 else 'every'} model ({counts} items)"
        elif len(shared) < len(wide):
            only = ", ".join(f"{m} {int(wide[m].notna().sum()) - len(shared)}" for m in models)
            notes.append(
                f"{bench}: compared on the {len(shared)} items {'both' if len(models) == 2 else 'all'} models answered "
                f"(answered by one side only, left out: {only})"
            )
        for m in models:
            x = shared[m].to_numpy(dtype=float)
            scores[m][bench] = _flip(x) if bench in lower else x
    return scores, reasons, notes


# -- the result -------------------------------------------------------------------------------------


@dataclass(frozen=True, repr=False)
class Comparison:
    """What :func:`blindspot.compare` returns: the paired report (two models) or the ranking (more).

    Attributes
    ----------
    items : ItemResults
        The per-item results read.
    models : tuple of str
        The models compared (two: A then B, every difference is B - A; more: as read).
    pair : PairComparison or None
        The two-model comparison (None with more models).
    ranking : Ranking or None
        The ranking with its adjacent pairs (None with two models).
    split : VisibleSplit or None
        With a reference leaderboard: the (top) pair's difference split by its visible directions.
    notes : tuple of str
        What was done with the input.
    """

    items: ItemResults
    models: tuple[str, ...]
    pair: PairComparison | None
    ranking: Ranking | None
    split: VisibleSplit | None = None
    split_pair: tuple[str, str] | None = None
    reference: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    settings: dict = field(default_factory=dict)

    # tables
    def to_frame(self) -> pd.DataFrame:
        """Two models: one row per benchmark (see :meth:`PairComparison.to_frame`); more: the ranking table."""
        if self.pair is not None:
            return self.pair.to_frame()
        return self.ranking.to_frame()

    def overall_frame(self) -> pd.DataFrame:
        """The macro and micro overall differences (two models), or of each adjacent pair (more)."""
        if self.pair is not None:
            return self.pair.overall_frame()
        frames = [c.overall_frame().assign(pair=f"{c.model_b} - {c.model_a}") for c in self.ranking.comparisons]
        return pd.concat(frames).set_index("pair", append=True).swaplevel() if frames else pd.DataFrame()

    def differences_frame(self) -> pd.DataFrame:
        """Every compared pair's per-benchmark differences: pair, benchmark, difference, low, high, decision."""
        comps = [self.pair] if self.pair is not None else list(self.ranking.comparisons)
        rows = []
        for c in comps:
            f = c.to_frame().reset_index()
            rows.append(
                pd.DataFrame(
                    {
                        "pair": f"{c.model_b} - {c.model_a}",
                        "benchmark": f["benchmark"],
                        "difference": f["difference"],
                        "low": f["low"],
                        "high": f["high"],
                        "decision": f["decision"],
                    }
                )
            )
        return pd.concat(rows, ignore_index=True)

    # words
    @property
    def sentences(self) -> list[str]:
        """The report's sentences: what is resolved, and the split when a reference was given."""
        out = []
        if self.pair is not None:
            out.append(comparison_words.pair_sentence(self.pair))
        else:
            out.append(comparison_words.ranking_sentence(self.ranking))
        if self.split is not None:
            out.append(comparison_words.split_sentence(self.split, *self.split_pair))
        return out

    def figure(self):
        """The differences with their 95% intervals per benchmark (:func:`blindspot.prognose.figures.paired_differences`)."""
        use_theme()
        return figures.paired_differences(self.differences_frame())

    # outputs
    def to_dict(self) -> dict:
        """Every number, JSON-ready."""

        def records(df: pd.DataFrame) -> list[dict]:
            return json.loads(df.reset_index().to_json(orient="records"))

        d: dict = {
            "blindspot": __version__,
            "input": self.items.describe(),
            "models": list(self.models),
            "settings": self.settings,
            "notes": list(self.notes),
            "sentences": self.sentences,
        }
        if self.pair is not None:
            d["benchmarks"] = records(self.pair.to_frame())
            d["overall"] = records(self.pair.overall_frame())
        else:
            d["ranking"] = records(self.ranking.to_frame())
            d["differences"] = records(self.differences_frame())
        if self.split is not None:
            s = self.split
            d["reference"] = {
                "leaderboard": self.reference,
                "pair": list(self.split_pair),
                "benchmarks": list(s.benchmarks),
                "difference_z": [float(v) for v in s.difference],
                "total": s.total,
                "visible": s.visible,
                "missed": s.missed,
                "d": s.d,
                "d_eff": s.d_eff,
                "radius": s.radius,
                "radius_note": s.radius_note,
            }
        return d

    def to_json(self) -> str:
        """The text of ``compare.json``."""
        return json.dumps(self.to_dict(), indent=1)

    def to_csv(self) -> str:
        """Two models: the per-benchmark table with the overall rows; more: the ranking table."""
        if self.pair is not None:
            f = self.pair.to_frame()
            o = self.pair.overall_frame().rename(index=lambda k: f"overall ({k})")
            f = pd.concat(
                [f, o.rename(columns={"items": "n items"})[["n items", "difference", "low", "high", "p", "method"]]]
            )
        else:
            f = self.ranking.to_frame()
        return f.to_csv(float_format="%.6g", lineterminator="\n")

    def to_text(self, width: int = 110) -> str:
        """The terminal table: the input, the sentences, the table(s), the notes."""
        import textwrap

        lines = [self.items.describe(), ""]
        for s in self.sentences:
            lines += textwrap.wrap(s, width=width)
        buf = io.StringIO()
        with pd.option_context("display.width", width, "display.max_columns", 20, "display.precision", 4):
            if self.pair is not None:
                cols = ["n items", "difference", "low", "high", "p (Holm)", "detectable", "decision", "method"]
                buf.write(self.pair.to_frame()[cols].to_string(na_rep="—") + "\n\n")
                buf.write(self.pair.overall_frame().to_string() + "\n")
            else:
                buf.write(self.ranking.to_frame().to_string(na_rep="—") + "\n")
        lines += ["", buf.getvalue().rstrip()]
        if self.notes:
            lines += ["", "Notes"]
            for n in self.notes:
                lines += textwrap.wrap("- " + n, width=width, subsequent_indent="  ")
        return "\n".join(lines)

    def formatted(self, fmt: str) -> str:
        """What ``--format`` prints: ``table``, ``json`` or ``csv``.

        Raises
        ------
        ValueError
            An unknown format.
        """
        if fmt == "table":
            return self.to_text()
        if fmt == "json":
            return self.to_json()
        if fmt == "csv":
            return self.to_csv().rstrip("\n")
        raise ValueError(f"--format must be table, json or csv, got {fmt!r}")

    def to_html(self) -> str:
        """A self-contained HTML page (the figure embedded), its styles scoped to ``.blindspot-compare``."""
        import html

        from blindspot.report.survey.render import figure_png

        esc = html.escape
        style = (
            "<style>.blindspot-compare{font-family:system-ui,sans-serif;max-width:64rem}"
            ".blindspot-compare table{border-collapse:collapse;font-size:0.9rem;margin:0.5rem 0 1rem}"
            ".blindspot-compare th,.blindspot-compare td{border-bottom:1px solid #ddd;padding:0.2rem 0.5rem}"
            ".blindspot-compare img{max-width:100%}</style>"
        )
        parts = [style, "<div class='blindspot-compare'>", f"<p><b>{esc(self.items.describe())}</b></p>"]
        parts += [f"<p>{esc(s)}</p>" for s in self.sentences]
        parts.append(self.to_frame().to_html(na_rep="—", float_format=lambda v: f"{v:.4g}"))
        parts.append(self.overall_frame().to_html(na_rep="—", float_format=lambda v: f"{v:.4g}"))
        parts.append(f"<img alt='differences per benchmark' src='data:image/png;base64,{figure_png(self.figure())}'>")
        if self.notes:
            parts.append("<ul>" + "".join(f"<li>{esc(n)}</li>" for n in self.notes) + "</ul>")
        parts.append("</div>")
        return "".join(parts)

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return self.to_text()

    def save(self, folder: str | os.PathLike) -> tuple[Path, ...]:
        """Write ``compare.html`` and ``compare.json`` into ``folder``, both or neither (as ``--out``).

        Raises
        ------
        ValueError
            ``folder`` is refused; nothing was written.
        """
        staged = stage_output(folder, files=COMPARE_FILES)
        try:
            staged.write_texts({"compare.html": self.to_html(), "compare.json": self.to_json()})
            return staged.commit()
        finally:
            staged.discard()


# -- the entry --------------------------------------------------------------------------------------


def _names(value: Sequence[str] | str | None) -> list[str] | None:
    if value is None:
        return None
    vals = [value] if isinstance(value, str) else list(value)
    out: list[str] = []
    for v in vals:
        out += [x.strip() for x in str(v).split(",") if x.strip()]
    return out


def compare(
    data: str | os.PathLike | Sequence[str | os.PathLike] | pd.DataFrame | ItemResults,
    models: Sequence[str] | None = None,
    *,
    benchmarks: Sequence[str] | str | None = None,
    lower_is_better: Sequence[str] = (),
    reference: str | os.PathLike | pd.DataFrame | ScoreTable | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
) -> Comparison:
    """Compare models item by item (the module docstring; ``blindspot compare``'s options).

    Parameters
    ----------
    data : path, paths, DataFrame or ItemResults
        Per-item results (:func:`read_items`).
    models : sequence of str, optional
        The models, in order (two: A then B, differences B - A). Default: every model read.
    benchmarks : names, optional
        Only these benchmarks (tasks).
    lower_is_better : names
        Benchmarks whose lower score is better (lm-eval's own flag is used too).
    reference : leaderboard, optional
        A score file, folder, DataFrame or ScoreTable: split the (top) pair's difference by its visible
        directions (:func:`~blindspot.prognose.paired_comparison.visible_split`).
    n_boot : int
        Bootstrap resamples (graded scores, and the overall intervals).
    seed : int
        Seed of every resample.
    alpha : float
        Level of the tests: 95% intervals for 0.05.

    Returns
    -------
    Comparison
        The report: :meth:`Comparison.to_frame`, the sentences, the figure, JSON, CSV and HTML.

    Raises
    ------
    ValueError
        Bad settings, one model only, an unknown model or benchmark, and the readers' refusals.

    References
    ----------
    McNemar (1947), *Psychometrika* 12; Holm (1979), *Scand. J. Statist.* 6; Connor (1987),
    *Biometrics* 43; Efron & Tibshirani (1993), *An Introduction to the Bootstrap*; the book's chapter
    "Your two models" (notebooks/19_your_two_models.md).

    Examples
    --------
    >>> import pandas as pd, blindspot
    >>> df = pd.DataFrame({"model": ["a"] * 4 + ["b"] * 4, "item": list("wxyz") * 2,
    ...                    "score": [1, 0, 1, 0, 1, 1, 1, 0]})
    >>> blindspot.compare(df).pair.tests[0].estimate
    0.25
    """
    check_settings(0.5, n_boot, seed)
    items = read_items(data)
    notes = list(items.notes)
    names = _names(models) or items.models
    if len(set(names)) < 2:
        raise ValueError(
            f"only one model ({names[0]}) in {items.name}; compare needs two or more models"
            if names
            else f"no model in {items.name}"
        )
    if len(set(names)) != len(names):
        raise ValueError("a model is named twice in models=")
    items = items.models_subset(names)
    wanted = _names(benchmarks)
    all_benches = items.benchmarks
    if wanted:
        absent = [b for b in wanted if b not in all_benches]
        if absent:
            raise ValueError(f"benchmark(s) {', '.join(absent)} not in {items.name}; it has {', '.join(all_benches)}")
        all_benches = wanted
    lower = set(_names(lower_is_better) or ())
    unknown = lower - set(all_benches)
    if unknown:
        raise ValueError(f"--lower-is-better names {', '.join(sorted(unknown))}, not a compared benchmark")
    lower |= {b for b, hib in items.higher_is_better.items() if not hib and b in all_benches}
    if lower:
        notes.append(f"lower is better on {', '.join(sorted(lower))}: differences flipped so that positive is better")
    scores, reasons, align_notes = _aligned(items, names, all_benches, lower)
    notes += align_notes
    settings = {"n_boot": int(n_boot), "seed": int(seed), "alpha": float(alpha)}
    pair = rank = None
    if len(names) == 2:
        a, b = names
        pair = compare_pair(scores[a], scores[b], a, b, n_boot=n_boot, seed=seed, alpha=alpha, reasons=reasons)
        boot = [t.benchmark for t in pair.tests if t.compared and t.method == BOOTSTRAP]
        if boot:
            notes.append(f"non-binary scores, so compared by the paired bootstrap: {', '.join(boot)}")
        top = (a, b)
        diff = {t.benchmark: t.estimate for t in pair.tests if t.compared}
    else:
        usable = [bn for bn in all_benches if bn not in reasons]
        if not usable:
            raise ValueError("no benchmark has an item every model answered; compare fewer models (--models)")
        for bn in all_benches:
            if bn in reasons:
                notes.append(f"{bn} left out of the ranking: {reasons[bn]}")
        rank = ranking({m: {bn: scores[m][bn] for bn in usable} for m in names}, n_boot=n_boot, seed=seed, alpha=alpha)
        top = (rank.models[1], rank.models[0])
        c0 = rank.comparisons[0]
        diff = {t.benchmark: t.estimate for t in c0.tests if t.compared}
    split = ref_name = None
    if reference is not None:
        table = reference if isinstance(reference, ScoreTable) else read_table(reference)
        ref_name = table.name
        split = visible_split(diff, table.scores, seed=seed)
        notes.append(
            f"reference leaderboard {table.describe()}: {len(split.benchmarks)} benchmark(s) shared "
            f"({', '.join(split.benchmarks)}); scores taken in its units"
        )
    return Comparison(
        items, tuple(names), pair, rank, split, top if split is not None else None, ref_name, tuple(notes), settings
    )


def run_cli(args: argparse.Namespace, stop_check: Callable[[], None] | None = None) -> int:
    """``blindspot compare PATH ...``: settings and ``--out`` first, then :func:`compare`, then the output.

    Exit status: 0; 2 (through the caller) with one line for bad input; 1 when the files cannot be
    written; 130 on Ctrl-C (143 on SIGTERM), nothing partial left behind.
    """
    check_settings(0.5, args.n_boot, args.seed)
    staged = stage_output(args.out, inputs=tuple(args.path), files=COMPARE_FILES) if args.out else None
    status, res, written = run_staged(
        staged,
        lambda: compare(
            args.path if len(args.path) > 1 else args.path[0],
            args.models,
            benchmarks=args.benchmarks,
            lower_is_better=args.lower_is_better or (),
            reference=args.reference,
            n_boot=args.n_boot,
            seed=args.seed,
        ),
        lambda res: {"compare.html": res.to_html(), "compare.json": res.to_json()},
        "nothing was written",
        stop_check,
    )
    if status:
        return status
    if args.format != "table" or not args.quiet:
        print(res.formatted(args.format))
    if written and not args.quiet:
        print("compare: " + ", ".join(map(str, written)), file=sys.stderr)
    return 0
