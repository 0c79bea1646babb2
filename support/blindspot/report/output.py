"""Where the report goes: ``--out`` checked before any work; both files or neither.

:func:`stage_output` runs first, before the score file is read. It refuses (``ValueError``, one
line) an ``--out`` that is an existing file, a dangling symbolic link, lies under a file, has no
parent folder, cannot be written, holds a ``report.html`` or ``report.json`` that is a folder or
read-only, or is the input or a folder in which a report file *is* the input. The comparison is
by the file itself, not by its name: :func:`os.path.samefile` (device and inode) wherever both
exist, so a symbolic link on either side, ``..`` through a linked folder, a hard link, or a name
that differs only in case on a file system that folds case (macOS, Windows) are all the same file;
and for a target that does not exist yet, the fully resolved path (:meth:`pathlib.Path.resolve`).
It then creates the staging folder where the final renames stay on one file system: inside
``--out`` when it exists, beside it otherwise.

:class:`StagedReport` writes ``report.json`` and ``report.html`` into the staging folder, then
:meth:`StagedReport.commit` moves them into place. A new ``--out`` is the staging folder renamed
(one atomic step, both files at once). Into an existing ``--out`` each old file is first moved
aside into the staging folder, then each new file moved in; every step is a rename, so when one
fails the steps done are undone in reverse order and the old pair is back as it was. Either way
the staging folder is then removed. The renames of a commit run under an exclusive lock on the folder that
holds ``--out``, so two runs writing the same ``--out`` at once leave both files of one of them, never one file
of each. Folders are created with the mode the umask gives
(:func:`os.mkdir`'s default), as any other program's.

The same staging writes the pair of ``blindspot survey`` (``survey.html`` and ``survey.csv``):
``stage_output(out, inputs, files=...)`` names the files, :meth:`StagedReport.write_texts` writes them.

:func:`run_staged` is the one way a command computes its result and writes it (``analyze``, ``survey``,
``compare``): a failure at any point discards the staging folder and becomes one line and an exit status.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from blindspot.report.render import to_html

if TYPE_CHECKING:
    from blindspot.report.report_data import ReportData

__all__ = ["REPORT_FILES", "StagedReport", "WriteError", "report_texts", "run_staged", "stage_output"]

T = TypeVar("T")

REPORT_FILES = ("report.html", "report.json")


class WriteError(Exception):
    """The report could not be written; the message says what happened to the files already there."""


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


def _make_staging(where: Path, stem: str) -> Path:
    """A new hidden folder in ``where``, with the umask's mode (unlike :func:`tempfile.mkdtemp`'s 0o700)."""
    for _ in range(100):
        path = where / f".{stem}.{secrets.token_hex(4)}.partial"
        try:
            os.mkdir(path)
        except FileExistsError:
            continue
        return path
    raise FileExistsError(errno.EEXIST, "could not find a free name for the staging folder", str(where))


def report_texts(rep: ReportData) -> dict[str, str]:
    """The two files of ``blindspot analyze``'s report: ``report.json`` and ``report.html``."""
    return {"report.json": rep.to_json(), "report.html": to_html(rep)}


class StagedReport:
    """A staging folder; :meth:`write` fills it, :meth:`commit` moves both files into ``out``."""

    def __init__(
        self, out: Path, staging: Path, shown: str | None = None, files: tuple[str, ...] = REPORT_FILES
    ) -> None:
        self.out = out
        self.staging = staging
        self.shown = shown if shown is not None else str(out)
        self.files = tuple(files)  # the files the write produces, in the order they are put in place
        self.keep = False  # set when a rename could not be undone: the staging folder then holds old files

    def write(self, rep: ReportData) -> None:
        """Write both files into the staging folder (nothing in ``out`` changes yet).

        Raises
        ------
        WriteError
            A file could not be written (a full disk...); ``out`` is untouched.
        """
        self.write_texts(report_texts(rep))

    def write_texts(self, texts: dict[str, str]) -> None:
        """Write each of :attr:`files` into the staging folder from ``texts`` (file name -> text).

        Raises
        ------
        WriteError
            A file could not be written (a full disk...); ``out`` is untouched.
        """
        if set(texts) != set(self.files):
            raise ValueError(f"the staged files are {list(self.files)}; got texts for {sorted(texts)}")
        for name, text in texts.items():
            try:
                (self.staging / name).write_text(text)
            except OSError as exc:
                raise WriteError(f"could not write {name} ({_reason(exc)}); {self._untouched()}") from exc

    def _untouched(self) -> str:
        if self.out.is_dir():
            return f"the files in {self.shown!r} were left as they were"
        return f"nothing was written to {self.shown!r}"

    def commit(self) -> tuple[Path, Path]:
        """Move the staged files into ``out`` (created if absent); return the HTML and JSON paths.

        Another run committing into the same ``out`` at the same moment waits: the renames run under an
        exclusive lock on the folder that holds ``out`` (:func:`_folder_lock`), so the two files in ``out``
        are always both from one run.

        Raises
        ------
        WriteError
            A rename failed; the renames already done were undone, so ``out`` holds what it held.
        """
        with _folder_lock(self.out.parent):
            return self._commit()

    def _commit(self) -> tuple[Path, Path]:
        if not self.out.exists():
            try:
                os.rename(self.staging, self.out)
            except OSError as exc:
                raise WriteError(f"could not create {self.shown!r} ({_reason(exc)}); nothing was written") from exc
            return tuple(self.out / name for name in self.files)
        aside = self.staging / "replaced"
        os.mkdir(aside)
        done: list[tuple[Path, Path]] = []
        try:
            for name in self.files:
                target = self.out / name
                why = _not_replaceable(target)
                if why:  # checked before the work too; here again, in case it changed meanwhile
                    raise OSError(errno.EEXIST, f"the {name} there {why}")
                if os.path.lexists(target):
                    _move(target, aside / name, done)
                _move(self.staging / name, target, done)
        except OSError as exc:
            undone = _undo(done)
            self.keep = not undone
            what = "left as they were" if undone else f"partly moved: the old files are in {str(aside)!r}"
            raise WriteError(
                f"could not put {name} in place ({_reason(exc)}); the report files in {self.shown!r} were {what}"
            ) from exc
        self.discard()
        return tuple(self.out / name for name in self.files)

    def discard(self) -> None:
        """Remove the staging folder and whatever is in it (unless it holds old files a failed undo left there)."""
        if not self.keep:
            shutil.rmtree(self.staging, ignore_errors=True)


@contextlib.contextmanager
def _folder_lock(folder: Path) -> Iterator[None]:
    """An exclusive advisory lock (``flock``) on ``folder`` for the time of a commit: two runs writing the same
    ``--out`` at once put their pairs in place one after the other, never interleaved. Where ``flock`` is not
    available (Windows) or the folder cannot be opened, no lock is taken."""
    try:
        import fcntl  # POSIX only
    except ImportError:
        yield
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _move(src: Path, dst: Path, done: list[tuple[Path, Path]]) -> None:
    os.rename(src, dst)
    done.append((src, dst))


def _undo(done: list[tuple[Path, Path]]) -> bool:
    """Undo the renames in reverse order; False if one could not be undone (then the staging folder is kept)."""
    ok = True
    for src, dst in reversed(done):
        try:
            os.rename(dst, src)
        except OSError:
            ok = False
    return ok


def _not_replaceable(target: Path) -> str | None:
    """Why a report may not replace ``target`` (a folder, a read-only file), or None."""
    if target.is_dir():
        return "is a folder"
    if target.is_file() and (not os.access(target, os.W_OK) or not target.stat().st_mode & 0o222):
        return "is read-only"  # no write bit at all counts too: root may write anything, but the user said no
    return None


def _under_a_file(p: Path) -> Path | None:
    for parent in [p, *p.parents]:
        if parent.exists() and not parent.is_dir():
            return parent
    return None


def _same(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file: by device and inode when both exist, else by resolved path."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return a.resolve() == b.resolve()


def stage_output(
    out: str | os.PathLike, inputs: tuple[str | os.PathLike, ...] = (), files: tuple[str, ...] = REPORT_FILES
) -> StagedReport:
    """Validate ``--out`` against ``inputs`` and create the staging folder (see the module docstring).

    ``files`` are the names the write will put in ``out`` (the report's pair by default).

    Raises
    ------
    ValueError
        One line saying what is wrong with ``--out`` and what to do.
    """
    raw = str(out)
    both = " and ".join(files)
    if raw.strip() == "":
        raise ValueError(f"--out is empty; name a folder for {both}")
    given = Path.cwd() / Path(out).expanduser()  # absolute, '..' kept: it means the parent on disk, after links
    if given.is_symlink() and not given.exists():
        raise ValueError(
            f"--out {raw!r} is a symbolic link to {os.readlink(given)!r}, which does not exist; remove the link or "
            f"name another folder"
        )
    p = Path(os.path.realpath(given))  # where the files would really go
    blocker = _under_a_file(p)
    if blocker is not None and blocker == p:
        for src in inputs:
            if _same(p, Path(src).expanduser()):
                raise ValueError(
                    f"--out {raw!r} would overwrite the input file {str(src)!r} (it is that file); name a folder"
                )
        raise ValueError(f"--out {raw!r} is an existing file; name a folder ({both} go inside it)")
    if blocker is not None:
        raise ValueError(f"--out {raw!r} lies under {str(blocker)!r}, which is a file, not a folder")
    for src in inputs:
        s = Path(os.path.abspath(Path(src).expanduser()))
        for name in files:
            if _same(p / name, s):
                raise ValueError(
                    f"--out {raw!r} would overwrite the input file {str(src)!r} (its {name} is that file); choose "
                    f"another folder"
                )
    parent = p.parent
    if not parent.is_dir():
        raise ValueError(f"--out {raw!r}: the folder {str(parent)!r} does not exist; create it first")
    if p.exists() and not os.access(p, os.W_OK | os.X_OK):
        raise ValueError(f"--out {raw!r} is a folder you cannot write to")
    if p.exists():
        for name in files:
            why = _not_replaceable(p / name)
            if why:
                raise ValueError(
                    f"--out {raw!r}: the {name} there {why}, and a report never replaces it; nothing was written (move "
                    f"it away or choose another folder)"
                )
    where = p if p.is_dir() else parent
    try:
        staging = _make_staging(where, p.name)
    except OSError as exc:
        raise ValueError(f"--out {raw!r}: cannot write in {str(where)!r} ({_reason(exc)})") from exc
    return StagedReport(p, staging, raw, tuple(files))


def run_staged(
    staged: StagedReport | None,
    compute: Callable[[], T],
    texts: Callable[[T], dict[str, str]],
    nothing: str,
    stop_check: Callable[[], None] | None = None,
) -> tuple[int, T | None, tuple[Path, ...]]:
    """Compute a command's result, write its files into the staging folder and put them in place.

    Whatever stops it (a file that cannot be written, Ctrl-C or SIGTERM, memory, a folder removed under
    it) discards the staging folder, prints one line ending in ``nothing`` and gives the exit status: 1 for
    a write, memory or file-system failure, the signal's status (130 on Ctrl-C, 143 on SIGTERM) for a stop.
    Any other exception is re-raised after the staging folder is removed (the caller turns bad input into
    one line and exit 2).

    Parameters
    ----------
    staged : StagedReport or None
        The staging of :func:`stage_output` (None: compute only, nothing written).
    compute : callable
        The command's work; its value is the result.
    texts : callable
        The result's files: file name -> text (:meth:`StagedReport.write_texts`).
    nothing : str
        What the user is told was not written ("no report was written").
    stop_check : callable, optional
        Run just before the files are put in place; raises :class:`KeyboardInterrupt` for a stop signal
        whose exception was swallowed on the way.

    Returns
    -------
    tuple
        ``(0, result, written paths)``, or ``(exit status, None, ())`` after a failure.
    """
    try:
        result = compute()
        written: tuple[Path, ...] = ()
        if staged is not None:
            staged.write_texts(texts(result))
            if stop_check is not None:
                stop_check()
            written = tuple(staged.commit())
        return 0, result, written
    except WriteError as exc:  # a full disk, a report file that is a folder: one line, nothing replaced
        status, line = 1, f"blindspot: error: {exc}"
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM (see blindspot.cli.Interrupted)
        status = getattr(exc, "exit_status", 128 + signal.SIGINT)
        line = f"blindspot: {getattr(exc, 'what', 'interrupted')}; {nothing}"
    except MemoryError:
        status, line = 1, f"blindspot: error: ran out of memory; {nothing}"
    except OSError as exc:  # a folder removed under us...
        status, line = 1, f"blindspot: error: {exc.strerror or exc}; {nothing}"
    except BaseException:
        if staged is not None:
            staged.discard()
        raise
    if staged is not None:
        staged.discard()
    print(line, file=sys.stderr)
    return status, None, ()
