"""Build the book: jupytext -> papermill (parameters injected) -> jupyter-book.

Each chapter listed in ``_toc.yml`` as ``book/chapters/<stem>`` has its source at
``notebooks/<stem>.md`` (jupytext MyST). The build converts it, executes it with papermill in a
worker process (in parallel on the available cores, with a progress bar), writes the executed
copy to ``<out_root>/book/chapters/<stem>.ipynb``, gathers the ledger, executes the chapters that
read the ledger last, and renders the HTML with ``jupyter-book build -W``.

``out_root`` is the project itself for ``make book``; for quick test builds and for a user's own
data it is a staging folder that receives a copy of the configuration and hand-written pages, so
the main book is left untouched.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from blindspot.book.ledger import gather
import jupytext
import papermill as pm
import nbformat
from tqdm.auto import tqdm

__all__ = ["NotebookError", "BuildResult", "project_root", "toc_chapters", "execute_notebook", "build_book"]

CHAPTER_PREFIX = "book/chapters/"
#: Chapters that read the gathered ledger, so run after all others.
LAST_STEMS = ("99_reproduction_ledger",)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class NotebookError(RuntimeError):
    """A notebook raised while executing; the message names it and carries the cell's traceback."""


@dataclass
class BuildResult:
    out_root: Path
    html: Path | None
    timings: dict[str, float] = field(default_factory=dict)
    ledger: list[dict] = field(default_factory=list)
    seconds: float = 0.0


def project_root() -> Path:
    """The project's root: the folder holding ``_toc.yml`` (this package lives in ``support/``)."""
    here = Path(__file__).resolve().parents[2]
    if (here / "_toc.yml").is_file():
        return here
    cwd = Path.cwd()
    if (cwd / "_toc.yml").is_file():
        return cwd
    raise NotebookError("cannot find the project root (a folder with _toc.yml); run from the project folder")


def _walk_toc(node: object) -> list[str]:
    files: list[str] = []
    if isinstance(node, dict):
        if "file" in node:
            files.append(str(node["file"]))
        for key in ("parts", "chapters", "sections"):
            for child in node.get(key, []) or []:
                files.extend(_walk_toc(child))
    elif isinstance(node, list):
        for child in node:
            files.extend(_walk_toc(child))
    return files


def toc_chapters(root: Path) -> list[str]:
    """Stems of the executed chapters listed in ``_toc.yml`` (entries under ``book/chapters/``), in order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = [toc.get("root", "")] + _walk_toc(toc)
    stems = [f[len(CHAPTER_PREFIX):].removesuffix(".ipynb") for f in files if f.startswith(CHAPTER_PREFIX)]
    for s in stems:
        if not (root / "notebooks" / f"{s}.md").is_file():
            raise NotebookError(f"_toc.yml lists {CHAPTER_PREFIX}{s} but notebooks/{s}.md does not exist")
    return stems


def execute_notebook(src: Path, out: Path, parameters: dict, cwd: Path) -> float:
    """Convert ``src`` (jupytext) and execute it with papermill into ``out``; return seconds taken.

    Only parameters that the notebook's ``parameters`` cell declares are injected.

    Raises
    ------
    NotebookError
        Naming the notebook, with the failing cell's exception and traceback.
    """

    t0 = time.perf_counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        ipynb = Path(tmp) / f"{src.stem}.ipynb"
        jupytext.write(jupytext.read(src), ipynb)
        declared = pm.inspect_notebook(str(ipynb))
        _check_parameters_cell(ipynb, declared, src.name)
        params = {k: v for k, v in parameters.items() if k in declared}
        try:
            pm.execute_notebook(
                str(ipynb), str(out), parameters=params, cwd=str(cwd), kernel_name="python3",
                progress_bar=False, log_output=False, request_save_on_cell_execute=False,
            )
        except pm.PapermillExecutionError as exc:
            tb = _ANSI.sub("", "\n".join(exc.traceback))
            raise NotebookError(
                f"notebook {src.name} failed in cell {exc.exec_count}: {exc.ename}: {exc.evalue}\n{tb}\n"
                f"(executed copy with the error: {out})"
            ) from None
    return time.perf_counter() - t0


def _check_parameters_cell(ipynb: Path, declared: dict, name: str) -> None:
    """Every ``name = value`` line of the parameters cell must be understood by papermill.

    papermill silently skips a line it cannot parse (e.g. one whose comment contains '='), and a
    skipped parameter would then never be injected: fail loudly instead.
    """

    nb = nbformat.read(ipynb, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    if len(cells) != 1:
        raise NotebookError(f"notebook {name} must have exactly one cell tagged 'parameters', found {len(cells)}")
    assigned = re.findall(r"^([A-Za-z_]\w*)\s*=", cells[0].source, flags=re.M)
    missed = [a for a in assigned if a not in declared]
    if missed:
        raise NotebookError(
            f"notebook {name}: papermill cannot parse the parameters {missed} (a comment containing '=' is the usual "
            f"cause); rewrite those lines"
        )


def _run_one(args: tuple[str, str, str, dict, str]) -> tuple[str, float]:
    stem, src, out, params, cwd = args
    return stem, execute_notebook(Path(src), Path(out), params, Path(cwd))


def declares(root: Path, stem: str, parameter: str) -> bool:
    """Whether chapter ``stem`` has ``parameter`` in its parameters cell."""

    with tempfile.TemporaryDirectory() as tmp:
        ipynb = Path(tmp) / f"{stem}.ipynb"
        jupytext.write(jupytext.read(root / "notebooks" / f"{stem}.md"), ipynb)
        return parameter in pm.inspect_notebook(str(ipynb))


def _subset_toc(stems: list[str], caption: str) -> dict:
    """A table of contents holding the introduction and the given chapters only."""
    return {"format": "jb-book", "root": "book/intro",
            "parts": [{"caption": caption, "chapters": [{"file": CHAPTER_PREFIX + s} for s in stems]
                       + [{"file": "book/references"}]}]}


def _stage(root: Path, out_root: Path, toc: dict | None = None) -> None:
    """Copy the configuration and hand-written pages into a staging folder (optionally a smaller toc)."""
    out_root.mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / "_config.yml", out_root / "_config.yml")
    if toc is None:
        shutil.copy2(root / "_toc.yml", out_root / "_toc.yml")
    else:
        (out_root / "_toc.yml").write_text(yaml.safe_dump(toc, sort_keys=False))
    dst = out_root / "book"
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(root / "book", dst, ignore=shutil.ignore_patterns("chapters", "_build"))


def build_book(
    out_root: Path | None = None,
    quick: bool = False,
    only: list[str] | None = None,
    jobs: int | None = None,
    html: bool = True,
    extra_parameters: dict | None = None,
    progress: bool = True,
    root: Path | None = None,
    select_parameter: str | None = None,
) -> BuildResult:
    """Execute the chapters of ``_toc.yml`` and render the book.

    Parameters
    ----------
    out_root : path, optional
        Where executed chapters, the ledger and ``_build/html`` go. Default: the project itself.
    quick : bool
        Inject ``quick=True`` (smaller resample counts, same logic) into every chapter.
    only : list of str, optional
        Execute only these chapter stems (the others keep their last executed copy).
    jobs : int, optional
        Worker processes; default the number of cores.
    html : bool
        Run ``jupyter-book build -W`` after executing.
    extra_parameters : dict, optional
        More papermill parameters (e.g. ``data_file``), injected where a chapter declares them.
    select_parameter : str, optional
        Build only the chapters that declare this parameter (e.g. ``data_file`` for a user's own
        leaderboard), into ``out_root`` with a table of contents of just those chapters.
    """
    t_start = time.perf_counter()
    root = root or project_root()
    out_root = (out_root or root).resolve()
    stems = toc_chapters(root)
    if select_parameter:
        stems = [s for s in stems if declares(root, s, select_parameter)]
        if not stems:
            raise NotebookError(f"no chapter declares the parameter {select_parameter!r}")
        if out_root == root:
            raise NotebookError("a partial book must be built into its own folder (out_root), not the project")
        _stage(root, out_root, _subset_toc(stems, "Your leaderboard"))
    elif out_root != root:
        _stage(root, out_root)
    if only:
        unknown = [s for s in only if s not in stems]
        if unknown:
            raise NotebookError(f"--only names chapters that are not in _toc.yml: {unknown}; chapters are {stems}")
        stems = [s for s in stems if s in only]
    ledger_dir = out_root / "_build" / "ledger"
    if not only and ledger_dir.exists():
        shutil.rmtree(ledger_dir)
    ledger_dir.mkdir(parents=True, exist_ok=True)
    # Chapters run with the project root as working directory: pass paths relative to it, so the
    # injected-parameters cell a reader sees says "_build/ledger", not this machine's folders.
    params = {"quick": bool(quick), "ledger_dir": os.path.relpath(ledger_dir, root),
              "ledger_file": os.path.relpath(out_root / "_build" / "ledger.json", root)}
    params.update(extra_parameters or {})
    first = [s for s in stems if s not in LAST_STEMS]
    last = [s for s in stems if s in LAST_STEMS]
    result = BuildResult(out_root, None)

    def tasks(group: list[str]) -> list[tuple[str, str, str, dict, str]]:
        return [(s, str(root / "notebooks" / f"{s}.md"), str(out_root / CHAPTER_PREFIX / f"{s}.ipynb"),
                 params, str(root)) for s in group]

    jobs = jobs or os.cpu_count() or 1

    bar = tqdm(total=len(stems), desc="executing chapters", unit="nb", disable=not progress)
    try:
        if first:
            with ProcessPoolExecutor(max_workers=min(jobs, len(first))) as pool:
                futures = {pool.submit(_run_one, t): t[0] for t in tasks(first)}
                for fut in as_completed(futures):
                    stem, secs = fut.result()  # re-raises NotebookError with the traceback
                    result.timings[stem] = secs
                    bar.set_postfix_str(f"{stem} {secs:.0f}s")
                    bar.update()
        result.ledger = gather(ledger_dir, out_root / "_build" / "ledger.json")
        for t in tasks(last):
            stem, secs = _run_one(t)
            result.timings[stem] = secs
            bar.update()
    finally:
        bar.close()
    if html:
        exe = Path(sys.executable).with_name("jupyter-book")
        # The whole book is strict (warnings are errors). A partial book (a user's own data) links to
        # chapters it does not contain, so its unresolved cross-references are only reported.
        strict = ["-W", "--keep-going"] if not select_parameter else []
        cmd = [str(exe) if exe.exists() else "jupyter-book", "build", str(out_root), *strict, "-q"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise NotebookError(
                "jupyter-book build failed (warnings are errors):\n" + proc.stdout[-6000:] + proc.stderr[-6000:]
            )
        result.html = out_root / "_build" / "html"
    result.seconds = time.perf_counter() - t_start
    return result
