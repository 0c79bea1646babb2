"""Build the book: execute the chapters (papermill, in parallel, cached), gather the ledger, render HTML.

Editions share the sources (``_config.yml``, the hand-written pages, ``notebooks/``) and differ by
where their executed chapters and outputs go:

============  ==========================  =====================  =====================================
edition       executed chapters           outputs                what runs
============  ==========================  =====================  =====================================
main          ``book/chapters/``          ``_build/``            every chapter, the paper's protocol
quick         ``book/editions/quick/``    ``_build/quick/``      every chapter, ``quick=True`` (tests)
yours         ``book/editions/yours/``    ``_build/yours/``      every chapter that takes a ``scores``
                                                                 parameter, on your file; the others
                                                                 show what they would need
student       ``book/editions/student/``  ``_build/student/``    the main edition without solutions
============  ==========================  =====================  =====================================

An executed chapter is reused from the cache (:mod:`blindspot.book.cache`) when nothing it depends
on has changed, so an unchanged rebuild executes nothing. The others run side by side
(:mod:`blindspot.book.workers`), each worker on one kernel kept from chapter to chapter and reset
in between (:mod:`blindspot.book.kernel`).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml
from tqdm.auto import tqdm

from blindspot.book.cache import INPUT_PARAMETER, ChapterCache, chapter_key, tree_fingerprint
from blindspot.book.chapters import (
    CHAPTER_PREFIX,
    NotebookError,
    chapter_embeds,
    chapter_needs,
    chapter_runs_long,
    chapter_title,
    declared_parameters,
    project_root,
    read_chapter,
    toc_chapters,
    toc_entries,
)
from blindspot.book.claims import REGISTRY_DIR, load_registry
from blindspot.book.execute import write_if_changed
from blindspot.book.ledger import NOT_APPLICABLE, Claim, gather
from blindspot.book.pdf import compose, print_pdf
from blindspot.book.render import Render, render_many
from blindspot.book.student import strip_solutions
from blindspot.book.warmup import warm_pools
from blindspot.book.workers import ChapterTask, execute_side_by_side
from blindspot.data.format_options import SOURCE_KEY, given_options
from blindspot.data.suites import resolve_data_dir
from blindspot.data.tables import load_scores

__all__ = ["Edition", "BuildResult", "edition", "build_book", "build_pdf"]

#: Chapters that read the gathered ledger, so run after all others.
LAST_STEMS = ("99_reproduction_ledger",)
#: The parameter a chapter declares when it runs on one score matrix (a file or a named suite): the one input
#: parameter the chapter cache keys by its content.
SCORES = INPUT_PARAMETER


@dataclass(frozen=True)
class Edition:
    """Where one edition's executed chapters (``chapters``, relative to the root) and outputs go."""

    name: str
    chapters: str
    out: Path

    @property
    def html(self) -> Path:
        return self.out / "html"

    @property
    def ledger_dir(self) -> Path:
        return self.out / "ledger"

    @property
    def ledger_file(self) -> Path:
        return self.out / "ledger.json"


def edition(root: Path, name: str, out: Path | None = None) -> Edition:
    """The edition ``name`` ('main', 'quick', 'yours', 'student') of the book at ``root``."""
    if name == "main":
        return Edition(name, CHAPTER_PREFIX.rstrip("/"), (out or root / "_build").resolve())
    return Edition(name, f"book/editions/{name}", (out or root / "_build" / name).resolve())


@dataclass
class BuildResult:
    edition: Edition
    html: Path | None
    student_html: Path | None = None
    timings: dict[str, float] = field(default_factory=dict)
    cached: list[str] = field(default_factory=list)
    not_run: dict[str, str] = field(default_factory=dict)
    ledger: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    embedded: list = field(default_factory=list)  # EmbeddingReport of each pool embedded before the chapters


def _placeholder(nb: nbformat.NotebookNode, stem: str, box: str) -> nbformat.NotebookNode:
    """A page in place of a chapter that did not run: its label, its title and a box saying why."""
    label = ""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("("):
            label = cell.source.lstrip().split("\n", 1)[0]
            break
    text = f"{label}\n# {chapter_title(nb) or stem}\n\n:::{{important}}\n{box}\n:::\n"
    out = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(text.lstrip())])
    out.metadata = {k: v for k, v in nb.metadata.items() if k in ("kernelspec", "language_info")}
    return out


def _not_applicable(root: Path, stem: str, why: str, ledger_dir: Path) -> None:
    """Record every registered claim of ``stem`` as not applicable, with the reason."""
    rows = [
        Claim.from_spec(spec, stem, NOT_APPLICABLE, why, paper=spec.paper).as_row()
        for spec in load_registry(root).chapter(stem).claims.values()
    ]
    ledger_dir.mkdir(parents=True, exist_ok=True)
    (ledger_dir / f"{stem}.json").write_text(json.dumps(rows, indent=1))


def _edition_toc(root: Path, ed: Edition) -> Path:
    """The main toc, or a copy for another edition with its chapters' folder (written under ``ed.out``)."""
    if ed.chapters == CHAPTER_PREFIX.rstrip("/"):
        return root / "_toc.yml"
    toc = yaml.safe_load((root / "_toc.yml").read_text())

    for entry in toc_entries(toc):
        f = entry.get("file")
        if isinstance(f, str) and f.startswith(CHAPTER_PREFIX):
            entry["file"] = ed.chapters + "/" + f[len(CHAPTER_PREFIX) :]
    ed.out.mkdir(parents=True, exist_ok=True)
    path = ed.out / "_toc.yml"
    path.write_text(yaml.safe_dump(toc, sort_keys=False))
    return path


def _validate_data_file(data: Path, read_options: Mapping[str, object]) -> None:
    """Read the user's score file once before any work, with its reading options, as the chapters will: bad input
    stops here with one clear line."""
    if not data.exists():
        raise ValueError(f"data file or folder {str(data)!r} does not exist")
    load_scores(data, missing="drop-rows", **read_options)


def scores_parameter(data: Path, read_options: Mapping[str, object]) -> str | dict[str, object]:
    """The ``scores`` the chapters of a build on ``data`` are given: the file's path, or with reading options
    ``{"source": path, <option>: value}`` (read by :func:`blindspot.data.load` and its kin through
    :func:`blindspot.data.format_options.split_source`)."""
    given = given_options(read_options)
    return {SOURCE_KEY: str(data), **given} if given else str(data)


class BookBuild:
    """One build of an edition, in four steps: select, restore, execute, render.

    :meth:`select` decides which chapters run (and writes a page for each that does not), :meth:`restore`
    copies the cached chapters back and returns the others with their cache keys, :meth:`execute` runs those
    side by side and caches them, and :meth:`render` makes the HTML. :func:`build_book` calls them in that
    order; ``result`` collects what each step did.
    """

    def __init__(
        self,
        root: Path,
        ed: Edition,
        *,
        data: Path | None,
        read_options: Mapping[str, object] | None = None,
        quick: bool,
        only: list[str] | None,
        jobs: int | None,
        progress: bool,
    ) -> None:
        self.root, self.ed, self.data, self.quick, self.only = root, ed, data, quick, only
        self.jobs, self.progress = jobs, progress
        self.stems = toc_chapters(root)
        if only:
            unknown = [s for s in only if s not in self.stems]
            if unknown:
                raise NotebookError(
                    f"--only names chapters that are not in _toc.yml: {unknown}; chapters are {self.stems}"
                )
        if not only and ed.ledger_dir.exists():
            shutil.rmtree(ed.ledger_dir)
        ed.ledger_dir.mkdir(parents=True, exist_ok=True)
        # Chapters run with the project root as working directory: pass paths relative to it, so the
        # parameters cell a reader sees says "_build/ledger", not this machine's folders.
        self.params: dict = {
            "quick": bool(quick),
            "ledger_dir": os.path.relpath(ed.ledger_dir, root),
            "ledger_file": os.path.relpath(ed.ledger_file, root),
        }
        if data is not None:
            self.params[SCORES] = scores_parameter(data, read_options or {})
        self.chapters_dir = root / ed.chapters
        self.cache = ChapterCache(ed.out / "cache")
        self.data_fp = tree_fingerprint(resolve_data_dir())
        self.result = BuildResult(ed, None)
        self.sources = {s: read_chapter(root / "notebooks" / f"{s}.md") for s in self.stems}
        self.bar = tqdm(total=0, disable=True)  # the progress bar; select() makes the real one

    def _page(self, stem: str, box: str) -> None:
        write_if_changed(_placeholder(self.sources[stem], stem, box), self.chapters_dir / f"{stem}.ipynb")

    def select(self) -> tuple[list[str], list[str]]:
        """The chapters to run, (the others, the ledger chapters that run last); a page for each that does not.

        On a reader's file a chapter without a ``scores`` parameter does not run: its page and its ledger rows
        say why. With ``--only``, a chapter this edition has never executed still gets a page.
        """
        runnable = []
        for s in self.stems:
            if self.data is not None and s not in LAST_STEMS and SCORES not in declared_parameters(self.sources[s], s):
                needs = chapter_needs(self.sources[s]) or "more than one score matrix"
                self.result.not_run[s] = f"**Not run on your leaderboard.** This chapter needs {needs}."
            elif not self.only or s in self.only:
                runnable.append(s)
        for s, why in self.result.not_run.items():
            self._page(s, why)
            _not_applicable(self.root, s, "the chapter does not run on a single score file", self.ed.ledger_dir)
        for s in self.stems:
            if s not in runnable and s not in self.result.not_run and not (self.chapters_dir / f"{s}.ipynb").is_file():
                self._page(
                    s, "**Not executed in this build.** Build the whole book (without `--only`) to see this chapter."
                )
        first = [s for s in runnable if s not in LAST_STEMS]
        last = [s for s in runnable if s in LAST_STEMS]
        self.bar = tqdm(
            total=len(first) + len(last), desc=f"chapters ({self.ed.name})", unit="nb", disable=not self.progress
        )
        return first, last

    def restore(self, group: list[str]) -> list[tuple[str, str]]:
        """(stem, key) of each chapter of ``group`` to execute; the cached ones are restored on the way."""
        todo = []
        for s in group:
            p = {k: v for k, v in self.params.items() if k in declared_parameters(self.sources[s], s)}
            text = (self.root / "notebooks" / f"{s}.md").read_text()
            key = chapter_key(text, p, self.root / REGISTRY_DIR / f"{s}.yml", self.data_fp, base=self.root)
            hit = self.cache.lookup(s, key)
            if hit is None:
                todo.append((s, key))
                continue
            write_if_changed(hit.notebook.read_text(), self.chapters_dir / f"{s}.ipynb")
            if hit.ledger is not None:
                shutil.copy2(hit.ledger, self.ed.ledger_dir / f"{s}.json")
            self.result.cached.append(s)
            self.bar.set_postfix_str(f"{s} (cache)")
            self.bar.update()
        return todo

    def warm(self, todo: list[tuple[str, str]]) -> None:
        """Embed once, on every core, the pools the chapters to execute read (not on a reader's score file)."""
        if self.data is not None:  # the embedding chapters do not run on a reader's score file
            return
        pools: dict[str, list[str]] = {}
        for s, _ in todo:
            if pool := chapter_embeds(self.sources[s]):
                pools.setdefault(pool, []).append(s)
        self.result.embedded = warm_pools(pools, load_registry(self.root), self.quick, progress=self.progress)

    def execute(self, todo: list[tuple[str, str]], on_error: Callable[[str, NotebookError], None] | None) -> None:
        """Run the chapters of ``todo`` side by side, longest first, and cache each that succeeds.

        A failing chapter stops the build, unless ``on_error`` takes it (the 'yours' edition's :meth:`fallback`).
        """
        keys = dict(todo)
        # Longest first, so the slowest chapter does not start last and run alone: the time of its last
        # execution, else the front matter's long_running hint (a fresh clone has no history).
        order = sorted(
            keys, key=lambda s: -(self.cache.last_seconds(s) or (1e9 if chapter_runs_long(self.sources[s]) else 0.0))
        )
        tasks = [
            ChapterTask(s, self.root / "notebooks" / f"{s}.md", self.chapters_dir / f"{s}.ipynb", self.params)
            for s in order
        ]
        # closing(): a failing chapter stops the others before the error leaves (no new chapter starts)
        with closing(execute_side_by_side(tasks, self.jobs or os.cpu_count() or 1, self.root)) as outcomes:
            for stem, ex in outcomes:
                if isinstance(ex, NotebookError):
                    if on_error is None:
                        raise ex
                    on_error(stem, ex)
                    self.bar.update()
                    continue
                ledger = self.ed.ledger_dir / f"{stem}.json"
                self.cache.store(
                    stem,
                    keys[stem],
                    self.chapters_dir / f"{stem}.ipynb",
                    ledger if ledger.is_file() else None,
                    ex.modules,
                    ex.seconds,
                )
                self.result.timings[stem] = ex.seconds
                self.bar.set_postfix_str(f"{stem} {ex.seconds:.0f}s")
                self.bar.update()

    def fallback(self, stem: str, exc: NotebookError) -> None:
        """In the 'yours' edition a chapter that cannot use the file says why and the build goes on."""
        first = str(exc).split("\n", 1)[0]
        why = first.split(": ", 1)[1] if ": " in first else first
        box = f"**Not run on your leaderboard.** This chapter could not use `{self.data.name}`: {why}"
        self.result.not_run[stem] = box
        self._page(stem, box)
        _not_applicable(self.root, stem, f"the chapter could not run on {self.data.name}: {why}", self.ed.ledger_dir)

    def render(self, student: bool) -> None:
        """Render the edition's HTML (and the student edition's, side by side) with jupyter-book."""
        # Your-data pages stand in for chapters that did not run, so links into those chapters (to an exercise,
        # a theorem) have no target there: that edition reports such warnings instead of failing on them.
        ed = self.ed
        editions = [Render(_edition_toc(self.root, ed), ed.html, self.data is None, ed.ledger_file)]
        if student:
            st = _student_chapters(self.root, ed.name, out=ed.out / "student" if ed.name != "main" else None)
            editions.append(Render(_edition_toc(self.root, st), st.html, True, ed.ledger_file))
        htmls = render_many(self.root, editions)
        self.result.html = htmls[0]
        self.result.student_html = htmls[1] if student else None


def build_book(
    root: Path | None = None,
    *,
    data: Path | None = None,
    read_options: Mapping[str, object] | None = None,
    quick: bool = False,
    only: list[str] | None = None,
    out: Path | None = None,
    jobs: int | None = None,
    html: bool = True,
    student: bool = False,
    progress: bool = True,
) -> BuildResult:
    """Execute the chapters of ``_toc.yml`` (reusing cached ones) and render the edition.

    Parameters
    ----------
    root : path, optional
        The project (default: the one this package lives in).
    data : path, optional
        A score file: build the 'yours' edition, every chapter that takes a ``scores`` parameter run on it.
    read_options : mapping, optional
        Its reading options (``level``, ``leaderboard``, ``lower_is_better``, ...: the keywords of
        :func:`blindspot.data.format_options.read_option_names`, as ``blindspot analyze`` takes them), handed to
        every chapter with the file (:func:`scores_parameter`). Only with ``data``.
    quick : bool
        The 'quick' edition: ``quick=True`` injected into every chapter (fewer resamples, same logic).
    only : list of str, optional
        Execute only these chapters; the others keep their last executed copy.
    out : path, optional
        Output folder of the edition (default ``_build`` for the main book, ``_build/<edition>`` otherwise).
    jobs : int, optional
        Parallel notebooks (default: the number of cores).
    html, progress : bool
        Render with jupyter-book; show a progress bar.
    student : bool
        Also render the student edition of this build (its chapters with every solution cut out),
        side by side with the edition itself (``BuildResult.student_html``). Not with ``data``.
    """
    t_start = time.perf_counter()
    root = (root or project_root()).resolve()
    if student and data is not None:
        raise ValueError("the student edition is made from the paper's book, not from a build on your data")
    read_options = given_options(read_options or {})
    if read_options and data is None:
        raise ValueError(f"reading options ({', '.join(read_options)}) apply to a build on your data (--data FILE)")
    if data is not None:
        data = Path(data).resolve()
        _validate_data_file(data, read_options)
    ed = edition(root, "yours" if data is not None else ("quick" if quick else "main"), out)
    build = BookBuild(
        root, ed, data=data, read_options=read_options, quick=quick, only=only, jobs=jobs, progress=progress
    )
    first, last = build.select()
    try:
        todo = build.restore(first)
        build.warm(todo)
        build.execute(todo, build.fallback if data is not None else None)
        build.result.ledger = gather(ed.ledger_dir, ed.ledger_file)
        build.execute(build.restore(last), None)
    finally:
        build.bar.close()
    if html:
        build.render(student)
    build.result.seconds = time.perf_counter() - t_start
    return build.result


def _student_chapters(root: Path, source: str, out: Path | None = None) -> Edition:
    """Write the student edition's chapters: those of ``source``, every solution cut out."""
    main, ed = edition(root, source), edition(root, "student", out)
    for s in toc_chapters(root):
        src = root / main.chapters / f"{s}.ipynb"
        if not src.is_file():
            raise NotebookError(f"the student edition needs the executed main chapters: {src} is missing (make book)")
        write_if_changed(strip_solutions(nbformat.read(src, as_version=4)), root / ed.chapters / f"{s}.ipynb")
    return ed


def build_pdf(root: Path | None = None, source: str = "main", paper: str = "a4", out: Path | None = None) -> Path:
    """A printable PDF of a built edition: its HTML pages in reading order, printed by headless Chromium.

    Nothing is executed or rendered: the edition must have been built (``blindspot book``). Writes
    ``<edition output>/pdf/book-<paper>.pdf`` (``_build/pdf/book-a4.pdf`` for the main book) and returns
    it; when the pages have not changed since that file was printed, it is returned as it is.

    Parameters
    ----------
    root : path, optional
        The project (default: the one this package lives in).
    source : str
        The edition ('main', 'quick', 'yours', 'student').
    paper : {'a4', 'letter'}
        The paper size.
    out : path, optional
        The edition's output folder, when it was built with ``--out``.

    Raises
    ------
    NotebookError
        When the edition has not been built, or Chromium is missing or fails.
    """
    root = (root or project_root()).resolve()
    ed = edition(root, source, out)
    if not (ed.html / "index.html").is_file():
        raise NotebookError(f"the {source} edition has not been built ({ed.html} is missing): run blindspot book first")
    page, pdf = ed.out / "pdf" / f"book-{paper}.html", ed.out / "pdf" / f"book-{paper}.pdf"
    compose(ed.html, _edition_toc(root, ed), page, paper)  # rewritten only when a page changed
    if pdf.is_file() and pdf.stat().st_mtime >= page.stat().st_mtime:
        return pdf
    return print_pdf(page, pdf)
