"""The ``blindspot`` command: build the book, execute one chapter, analyse a leaderboard.

    blindspot book [--quick | --data FILE] [--only STEM ...] [--student] [--pdf] [--out DIR] [--jobs N]
    blindspot execute notebooks/NN_name.md [--quick] [-p NAME=VALUE ...] [--out DIR]
    blindspot analyze FILE [options]            (see ``blindspot analyze --help``)
    blindspot data fetch [--suites NAME ...] [--dest DIR] [--no-progress]
    blindspot data list

Bad input gets one clear line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tempfile
import time
from pathlib import Path

from blindspot.book.build import build_book, build_pdf
from blindspot.book.chapters import NotebookError, declared_parameters, project_root, read_chapter
from blindspot.book.execute import execute_notebook
from blindspot.data import fetch as datasets
from blindspot.report.analyze import add_parser as add_analyze

__all__ = ["main"]


def _cmd_book(args: argparse.Namespace) -> int:
    if not args.data:  # no data directory here: fetch the paper's data into the cache (offline: one line, synthetic)
        datasets.ensure_data(progress=True)
    res = build_book(
        data=Path(args.data) if args.data else None,
        quick=args.quick,
        only=args.only,
        out=Path(args.out) if args.out else None,
        jobs=args.jobs,
        html=not args.no_html,
        student=args.student and not args.data and not args.quick and not args.no_html,
    )
    slow = sorted(res.timings.items(), key=lambda kv: -kv[1])[:5]
    line = f"executed {len(res.timings)} chapter(s) in {res.seconds:.0f} s"
    if slow:
        line += "; slowest: " + ", ".join(f"{k} {v:.0f}s" for k, v in slow)
    if res.cached:
        line += f"; {len(res.cached)} from the cache"
    print(line)
    for stem, why in res.not_run.items():
        print(f"not run: {stem}: {why.replace('**', '')}")
    counts: dict[str, int] = {}
    for row in res.ledger:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    if counts:
        print("ledger: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    if res.html:
        print(f"book: {res.html / 'index.html'}")
    if res.student_html:
        print(f"student edition: {res.student_html / 'index.html'}")
    if args.pdf:
        print(f"pdf: {build_pdf(source=res.edition.name)}")
    return 0


def _typed(value: str) -> object:
    """A ``-p`` value as papermill's own CLI reads it: a Python literal (``1000``, ``0.5``, ``True``,
    ``None``, ``[1, 2]``) when it is one, else the string itself (a path, a suite name)."""
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value


def _cmd_execute(args: argparse.Namespace) -> int:
    src = Path(args.notebook)
    if not src.is_file():
        print(f"blindspot: error: notebook {args.notebook!r} does not exist", file=sys.stderr)
        return 2
    out_dir = (Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="blindspot-exec-"))).resolve()
    out = out_dir / f"{src.stem}.ipynb"
    params = {"quick": args.quick, "ledger_dir": str(out_dir / "ledger")}
    declared = declared_parameters(read_chapter(src), src.name)
    for item in args.parameter or []:
        name, sep, value = item.partition("=")
        if not sep or not name.isidentifier():
            raise ValueError(f"-p takes NAME=VALUE, got {item!r}")
        if name not in declared:
            raise ValueError(f"{src.name} has no parameter {name!r}; its parameters: {', '.join(declared)}")
        params[name] = _typed(value)
        if isinstance(params[name], str) and Path(value).exists():  # the notebook runs in the project root
            params[name] = str(Path(value).resolve())
    ex = execute_notebook(src.resolve(), out, params, project_root())
    print(f"{src.name}: executed in {ex.seconds:.1f} s -> {out}")
    return 0


def _cmd_data_fetch(args: argparse.Namespace) -> int:
    """Download, verify and reshape; exit 2 on a checksum mismatch (via main), 1 offline, 130 interrupted."""
    try:
        report = datasets.fetch(args.suites, args.dest, progress=not args.no_progress)
    except datasets.DataUnavailableError as exc:
        print(f"blindspot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("blindspot: interrupted; nothing partial was kept (run the fetch again to resume)", file=sys.stderr)
        return 130
    for note in report.notes:
        print(f"blindspot: note: {note}", file=sys.stderr)
    print(report.describe())
    return 0


def _cmd_data_list(args: argparse.Namespace) -> int:
    reg = datasets.load_registry()
    print(f"{'suite':<19} {'book':<4} {'files':>5} {'download':>9}  {'license':<52} description")
    for name, suite in reg.suites.items():
        files = reg.suite_files([name])
        mb = reg.download_bytes(files) / 1e6
        lic = reg.folders[files[0].folder]["license"]
        print(
            f"{name:<19} {'yes' if suite.book else '':<4} {len(files):>5} {mb:>6.1f} MB  {lic:<52} {suite.description}"
        )
    book, every = reg.suite_files(None), reg.suite_files(["all"])
    print(
        f"download: the book's suites {reg.download_bytes(book) / 1e6:.1f} MB, all {reg.download_bytes(every) / 1e6:.1f} MB"
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="blindspot", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("book", help="execute the chapters and build the HTML book")
    b.add_argument("--quick", action="store_true", help="quick parameters (fewer resamples; same logic)")
    b.add_argument("--only", nargs="+", metavar="STEM", help="execute only these chapters")
    b.add_argument("--data", metavar="FILE", help="run every chapter that applies on this score file (_build/yours)")
    b.add_argument("--out", metavar="DIR", help="output folder of the edition (default _build, or _build/<edition>)")
    b.add_argument("--student", action="store_true", help="also render the student edition (no solutions)")
    b.add_argument("--pdf", action="store_true", help="also print the book to PDF with headless Chromium")
    b.add_argument("--jobs", type=int, default=None, help="parallel notebooks (default: cores)")
    b.add_argument("--no-html", action="store_true", help="execute only; skip jupyter-book")
    b.set_defaults(func=_cmd_book)
    e = sub.add_parser("execute", help="execute one notebook source (for authors)")
    e.add_argument("notebook")
    e.add_argument("--quick", action="store_true")
    e.add_argument("--out", metavar="DIR")
    e.add_argument(
        "-p",
        "--parameter",
        action="append",
        metavar="NAME=VALUE",
        help="set a parameter of the notebook (a Python literal such as 1000 or True, else a string)",
    )
    e.set_defaults(func=_cmd_execute)
    add_analyze(sub)
    d = sub.add_parser("data", help="the book's data directory from its public sources")
    dsub = d.add_subparsers(dest="data_command", required=True)
    f = dsub.add_parser("fetch", help="download, verify (sha256) and reshape the data the book reads")
    f.add_argument(
        "--suites",
        nargs="+",
        metavar="NAME",
        help="suites to fetch ('all' for every file; default: what the book reads)",
    )
    f.add_argument("--dest", metavar="DIR", help="data directory to write (default: the user's cache)")
    f.add_argument("--no-progress", action="store_true", help="no progress bar")
    f.set_defaults(func=_cmd_data_fetch)
    ls = dsub.add_parser("list", help="the suites, their download sizes and what they hold")
    ls.set_defaults(func=_cmd_data_list)
    return p


def main(argv: list[str] | None = None) -> int:

    args = build_parser().parse_args(argv)
    t0 = time.perf_counter()
    try:
        code = int(args.func(args) or 0)
        if args.command == "book":
            print(f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        return code
    except NotebookError as exc:
        print(f"blindspot: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"blindspot: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("blindspot: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
