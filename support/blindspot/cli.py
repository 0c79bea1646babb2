"""The ``blindspot`` command: build the book, execute one chapter, analyse a leaderboard.

    blindspot book [--quick] [--only STEM ...] [--data FILE] [--out DIR] [--jobs N]
    blindspot execute notebooks/NN_name.md [--quick] [--out DIR]
    blindspot analyze FILE [options]            (see ``blindspot analyze --help``)

Bad input gets one clear line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from blindspot.book.build import NotebookError, build_book, execute_notebook, project_root
from blindspot.report.analyze import add_parser as add_analyze
from blindspot.report.reading import check_score_file

__all__ = ["main"]


def _cmd_book(args: argparse.Namespace) -> int:

    root = project_root()
    extra: dict = {}
    out = Path(args.out).resolve() if args.out else None
    if args.data:
        data = Path(args.data).resolve()
        if not data.is_file():
            print(f"blindspot: error: data file {args.data!r} does not exist", file=sys.stderr)
            return 2
        check_score_file(data)  # the chapter's own loader: a bad file is one line and exit 2, before any build
        extra["data_file"] = str(data)
        out = out or (root / "_build" / "yours")
    res = build_book(
        out_root=out,
        quick=args.quick,
        only=args.only,
        jobs=args.jobs,
        html=not args.no_html,
        extra_parameters=extra,
        select_parameter="data_file" if args.data else None,
    )
    slow = sorted(res.timings.items(), key=lambda kv: -kv[1])[:5]
    print(
        f"executed {len(res.timings)} chapter(s) in {res.seconds:.0f} s; slowest: "
        + ", ".join(f"{k} {v:.0f}s" for k, v in slow)
    )
    counts: dict[str, int] = {}
    for row in res.ledger:
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    if counts:
        print("ledger: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
    if res.html:
        print(f"book: {res.html / 'index.html'}")
    return 0


def _cmd_execute(args: argparse.Namespace) -> int:

    src = Path(args.notebook)
    if not src.is_file():
        print(f"blindspot: error: notebook {args.notebook!r} does not exist", file=sys.stderr)
        return 2
    out_dir = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="blindspot-exec-"))
    out = out_dir / f"{src.stem}.ipynb"
    params = {"quick": args.quick, "ledger_dir": str(out_dir / "ledger")}
    secs = execute_notebook(src.resolve(), out, params, project_root())
    print(f"{src.name}: executed in {secs:.1f} s -> {out}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="blindspot", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("book", help="execute the chapters and build the HTML book")
    b.add_argument("--quick", action="store_true", help="quick parameters (fewer resamples; same logic)")
    b.add_argument("--only", nargs="+", metavar="STEM", help="execute only these chapters")
    b.add_argument("--data", metavar="FILE", help="rebuild the 'Your leaderboard' part on this score file")
    b.add_argument("--out", metavar="DIR", help="build into this folder instead of the project")
    b.add_argument("--jobs", type=int, default=None, help="parallel notebooks (default: cores)")
    b.add_argument("--no-html", action="store_true", help="execute only; skip jupyter-book")
    b.set_defaults(func=_cmd_book)
    e = sub.add_parser("execute", help="execute one notebook source (for authors)")
    e.add_argument("notebook")
    e.add_argument("--quick", action="store_true")
    e.add_argument("--out", metavar="DIR")
    e.set_defaults(func=_cmd_execute)
    add_analyze(sub)
    return p


def main(argv: list[str] | None = None) -> int:

    args = build_parser().parse_args(argv)
    t0 = time.perf_counter()
    try:
        return int(args.func(args) or 0)
    except NotebookError as exc:
        print(f"blindspot: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"blindspot: error: {exc}", file=sys.stderr)
        return 2
    finally:
        if getattr(args, "command", None) == "book":
            print(f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
