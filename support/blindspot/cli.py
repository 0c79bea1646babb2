"""The ``blindspot`` command: build the book, execute one chapter, analyse a leaderboard.

    blindspot book [--quick | --data FILE [--level ...] [--leaderboard NAME] [--lower-is-better NAME ...]] [--only STEM ...] [--student] [--pdf [--paper a4|letter]] [--out DIR] [--jobs N]
    blindspot execute notebooks/NN_name.md [--quick] [-p NAME=VALUE ...] [--out DIR]
    blindspot analyze FILE [options]            (see ``blindspot analyze --help``)
    blindspot survey PATH [PATH ...] [options]  (see ``blindspot survey --help``)
    blindspot compare PATH [PATH ...] [options] (see ``blindspot compare --help``)
    blindspot data fetch [--suites NAME ...] [--dest DIR] [--no-progress]
    blindspot data list

Bad input gets one clear line on stderr and exit status 2, never a traceback. Ctrl-C at any moment,
the first seconds of imports included, gets one line and exit status 130 (SIGTERM: 143), with no
staging folder or partial file left behind: :func:`main` installs its signal handlers before it
imports anything heavy. The parser is built from argparse alone and each subcommand imports what
it needs when it runs, so ``blindspot --help`` and ``blindspot analyze --help`` answer at once.
"""

from __future__ import annotations

# Only what the interpreter has already loaded: a Ctrl-C while this module is imported can come
# only before main() installs its handlers, and every other import waits for main().
import sys

try:
    import _signal as signal  # the C module: `signal` imports enum and functools first (tens of ms under load)
except ImportError:  # not CPython
    import signal  # type: ignore[no-redef]

TYPE_CHECKING = False  # not typing's: importing typing alone takes milliseconds before the handlers are in place
if TYPE_CHECKING:
    import argparse

__all__ = ["Interrupted", "main", "build_parser"]

#: The signals handled as Ctrl-C is: clean up, one line, exit status 128 + the signal's number.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """Raised by the handler of SIGINT or SIGTERM, so that every ``except KeyboardInterrupt`` cleans up.

    ``exit_status`` is 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), as a shell reports
    a process stopped by that signal; ``what`` is the word of the message.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.exit_status = 128 + int(signum)
        self.what = "interrupted" if signum == signal.SIGINT else "stopped by SIGTERM"


#: The stop signals the handlers of :func:`_install_stop_handlers` have received in this run.
_STOPS_SEEN: list[int] = []


def _stopped_behind(exc: BaseException) -> Interrupted | None:
    """The interruption behind ``exc`` when a stop signal arrived before it: code that catches the
    :class:`Interrupted` and raises its own error instead (a compiled module interrupted while it is
    imported reports "ImportError: generic_type: type ... is already registered!") then still ends as
    an interruption, with one line, not with that error's traceback."""
    if not _STOPS_SEEN or isinstance(exc, KeyboardInterrupt):
        return None
    return Interrupted(_STOPS_SEEN[0])


def _raise_if_stopped() -> None:
    """Raise the :class:`Interrupted` of a stop signal whose handler's raise was swallowed.

    Python ignores an exception raised where it cannot propagate: a signal that arrives while a
    weak-reference callback or a ``__del__`` runs (importlib's module-lock callbacks, during the
    imports of the first second) raises there and is only printed ("Exception ignored in ..."), and
    the command would go on to the end as if no Ctrl-C had come. The handler records every signal
    first, so a check at the points of no return (before a report is put in place) still stops."""
    if _STOPS_SEEN:
        raise Interrupted(_STOPS_SEEN[0])


def _install_stop_handlers() -> dict[int, object] | None:
    """Handle SIGINT and SIGTERM (in the main thread; elsewhere Python cannot); return the previous handlers.

    A signal the process was started with ignored stays ignored, as Python itself does for SIGINT.

    The first signal raises :class:`Interrupted` where the program is, so the ``except``/``finally``
    clauses on the way out remove what they staged. A second signal while that clean-up runs stops
    the process at once (the user asked twice), with one line.
    """
    previous = {s: signal.getsignal(s) for s in STOP_SIGNALS}
    seen = _STOPS_SEEN
    seen.clear()

    def handler(signum: int, frame: object) -> None:
        if seen:
            import os

            os.write(2, b"blindspot: interrupted again; stopped without cleaning up\n")
            os._exit(128 + signum)
        seen.append(signum)
        raise Interrupted(signum)

    try:
        for s in STOP_SIGNALS:
            if previous[s] != signal.SIG_IGN:  # ignored as it started (`nohup`, a background job): keep it so
                signal.signal(s, handler)
    except ValueError:  # not the main thread (main() called from a thread): Python's default handling
        return None
    return previous


#: What a command that builds or executes chapters needs beyond the practitioner's install (``pip install .``).
BOOK_EXTRA = "pip install '.[book]' from a clone (or pip install -r requirements.txt, the book's pinned environment)"


def _book_modules(command: str) -> None:
    """One line (exit 2) naming the extra to install when the book's environment is missing, before any work."""
    import importlib.util

    absent = [
        m for m in ("jupytext", "papermill", "nbformat", "nbclient", "yaml") if importlib.util.find_spec(m) is None
    ]
    if absent:
        raise ValueError(
            f"blindspot {command} needs the book's environment, which this install lacks ({', '.join(absent)}): "
            f"{BOOK_EXTRA}"
        )


def _cmd_book(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    _book_modules("book")
    from blindspot.data.format_options import given_options

    read_options = given_options(vars(args))
    if read_options and not args.data:  # before any download or chapter
        flags = ", ".join("--" + k.replace("_", "-") for k in read_options)
        verb = "applies" if len(read_options) == 1 else "apply"
        raise ValueError(f"{flags} {verb} only to a build on your data: give --data FILE (or leave it out)")
    if not args.no_html:
        import importlib.util

        if importlib.util.find_spec("jupyter_book") is None:
            raise ValueError(
                f"blindspot book renders with Jupyter Book, which this install lacks (--no-html executes the chapters "
                f"without it): {BOOK_EXTRA}"
            )
    from blindspot.book.build import build_book, build_pdf
    from blindspot.data import fetch as datasets

    _raise_if_stopped()  # a Ctrl-C that those imports swallowed
    if not args.data:  # no data directory here: fetch the paper's data into the cache (offline: one line, synthetic)
        datasets.ensure_data(progress=True)
    _raise_if_stopped()  # before minutes of chapters start
    res = build_book(
        data=Path(args.data) if args.data else None,
        read_options=read_options,
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
    for rep in res.embedded:
        if rep.cold:
            line += f"; first embedded {rep.n_embedded} texts in {rep.seconds:.0f} s ({rep.texts_per_second:.0f}/s)"
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
        t0 = time.perf_counter()
        pdf = build_pdf(source=res.edition.name, paper=args.paper, out=Path(args.out) if args.out else None)
        print(f"pdf: {pdf} ({time.perf_counter() - t0:.0f} s)")
    return 0


def _typed(value: str) -> object:
    """A ``-p`` value as papermill's own CLI reads it: a Python literal (``1000``, ``0.5``, ``True``,
    ``None``, ``[1, 2]``) when it is one, else the string itself (a path, a suite name)."""
    import ast

    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value


def _cmd_execute(args: argparse.Namespace) -> int:
    import tempfile
    from pathlib import Path

    _book_modules("execute")
    from blindspot.book.chapters import declared_parameters, project_root, read_chapter
    from blindspot.book.execute import execute_notebook

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


def _cmd_analyze(args: argparse.Namespace) -> int:
    from blindspot.report.analyze import run_cli  # numpy, pandas, matplotlib: only now

    _raise_if_stopped()  # a Ctrl-C that those imports swallowed
    return run_cli(args, stop_check=_raise_if_stopped)


def _cmd_survey(args: argparse.Namespace) -> int:
    from blindspot.report.survey.command import run_cli  # imports the numerics when it runs

    _raise_if_stopped()  # a Ctrl-C that those imports swallowed
    return run_cli(args, stop_check=_raise_if_stopped)


def _cmd_compare(args: argparse.Namespace) -> int:
    from blindspot.report.compare import run_cli  # numpy, pandas, scipy: only now

    _raise_if_stopped()  # a Ctrl-C that those imports swallowed
    return run_cli(args, stop_check=_raise_if_stopped)


def _cmd_data_fetch(args: argparse.Namespace) -> int:
    """Download, verify and reshape; exit 2 on a checksum mismatch (via main), 1 offline, 130 interrupted."""
    from blindspot.data import fetch as datasets

    try:
        _raise_if_stopped()  # a Ctrl-C that the imports swallowed
        report = datasets.fetch(args.suites, args.dest, progress=not args.no_progress, stop_check=_raise_if_stopped)
    except datasets.DataUnavailableError as exc:
        print(f"blindspot: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt as exc:
        what = getattr(exc, "what", "interrupted")
        print(f"blindspot: {what}; nothing partial was kept (run the fetch again to resume)", file=sys.stderr)
        return getattr(exc, "exit_status", 130)
    for note in report.notes:
        print(f"blindspot: note: {note}", file=sys.stderr)
    print(report.describe())
    return 0


def _cmd_data_list(args: argparse.Namespace) -> int:
    from blindspot.data import fetch as datasets

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
    """The whole command line, built from argparse alone (no numerics, no book machinery)."""
    import argparse

    from blindspot.data.format_options import add_read_options
    from blindspot.report.compare_options import add_parser as add_compare
    from blindspot.report.options import add_parser as add_analyze
    from blindspot.report.survey.command import add_parser as add_survey

    p = argparse.ArgumentParser(prog="blindspot", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("book", help="execute the chapters and build the HTML book")
    b.add_argument("--quick", action="store_true", help="quick parameters (fewer resamples; same logic)")
    b.add_argument("--only", nargs="+", metavar="STEM", help="execute only these chapters")
    b.add_argument("--data", metavar="FILE", help="run every chapter that applies on this score file (_build/yours)")
    add_read_options(b)  # --lower-is-better, --leaderboard, --level for --data: from their one declaration
    b.add_argument("--out", metavar="DIR", help="output folder of the edition (default _build, or _build/<edition>)")
    b.add_argument("--student", action="store_true", help="also render the student edition (no solutions)")
    b.add_argument("--pdf", action="store_true", help="also print the book to PDF with headless Chromium")
    b.add_argument("--paper", choices=("a4", "letter"), default="a4", help="the PDF's paper size (default a4)")
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
    add_analyze(sub, _cmd_analyze)
    add_survey(sub, _cmd_survey)
    add_compare(sub, _cmd_compare)
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


def _is_notebook_error(exc: BaseException) -> bool:
    """Whether ``exc`` is the book's :class:`~blindspot.book.chapters.NotebookError` (without importing the book)."""
    chapters = sys.modules.get("blindspot.book.chapters")
    return chapters is not None and isinstance(exc, chapters.NotebookError)


def main(argv: list[str] | None = None) -> int:
    """Run the command; return its exit status (0, 1 failure, 2 bad input, 130 Ctrl-C, 143 SIGTERM).

    Called without ``argv`` (the installed ``blindspot`` script, ``python -m blindspot``) the process
    ends with ``main``: once it has its exit status, a late Ctrl-C or SIGTERM is ignored (the command's
    work is done; before, one arriving while the interpreter shut down killed it with status -2 after a
    complete report). Called with ``argv`` (tests, other programs) it puts the previous handlers back.
    """
    previous = None
    try:  # from the first instruction: an interrupt before the handlers are in place is caught too
        previous = _install_stop_handlers()
        return _main(argv)
    except KeyboardInterrupt as exc:  # anywhere: during the imports, the parsing, a subcommand
        print(f"blindspot: {getattr(exc, 'what', 'interrupted')}", file=sys.stderr)
        return getattr(exc, "exit_status", 130)
    except Exception as exc:
        stop = _stopped_behind(exc)
        if stop is None:
            raise
        print(f"blindspot: {stop.what}", file=sys.stderr)
        return stop.exit_status
    finally:
        if previous is not None:
            for s, h in previous.items():
                signal.signal(s, h if argv is not None else signal.SIG_IGN)


def _main(argv: list[str] | None) -> int:
    import time

    args = build_parser().parse_args(argv)
    t0 = time.perf_counter()
    try:
        code = int(args.func(args) or 0)
        if args.command == "book":
            print(f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
        return code
    except ValueError as exc:
        stop = _stopped_behind(exc)
        if stop is not None:
            raise stop from exc
        print(f"blindspot: error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        if _is_notebook_error(exc):
            print(f"blindspot: {exc}", file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())
