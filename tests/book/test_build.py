"""The build: chapter execution, the parameters guard, folding, the chapter cache, and whole editions.

The pipeline tests execute every chapter in quick mode and render with jupyter-book -W: a chapter
that raises, or that breaks the rendered book, fails them with its name.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import nbformat
import numpy as np
import pytest

from blindspot.book.build import build_book, edition
from blindspot.book.cache import ChapterCache, chapter_key, tree_fingerprint
from blindspot.book.chapters import (
    NotebookError,
    chapter_runs_long,
    check_parameters_cell,
    fold_parameters,
    project_root,
    read_chapter,
    toc_chapters,
)
from blindspot.book.execute import execute_notebook
from blindspot.book.student import solution_count, strip_solutions
from blindspot.cli import main

ROOT = project_root()


def test_every_notebook_is_in_the_toc():
    listed = set(toc_chapters(ROOT))
    sources = {p.stem for p in (ROOT / "notebooks").glob("*.md")}
    assert sources - listed == set(), "notebooks not listed in _toc.yml (they would never be built)"


def _write_nb(path: Path, body: str) -> Path:
    header = textwrap.dedent(
        """\
        ---
        jupytext:
          text_representation:
            extension: .md
            format_name: myst
        kernelspec:
          display_name: Python 3
          language: python
          name: python3
        ---
        """
    )
    path.write_text(header + textwrap.dedent(body))
    return path


def test_failing_notebook_names_itself_and_its_traceback(tmp_path):
    src = _write_nb(
        tmp_path / "boom.md",
        """
        # Boom
        ```{code-cell} ipython3
        :tags: [parameters]
        quick = False
        ```
        ```{code-cell} ipython3
        def inner():
            raise ZeroDivisionError("deliberate")
        inner()
        ```
        """,
    )
    with pytest.raises(NotebookError, match=r"(?s)boom\.md failed in cell.*ZeroDivisionError: deliberate.*inner\(\)"):
        execute_notebook(src, tmp_path / "out.ipynb", {"quick": True}, ROOT)


def test_unparseable_parameter_is_rejected(tmp_path):
    src = _write_nb(
        tmp_path / "params.md",
        """
        # Params
        ```{code-cell} ipython3
        :tags: [parameters]
        quick = False  # a comment with x = 1 in it
        ```
        """,
    )
    with pytest.raises(NotebookError, match=r"cannot parse the parameters \['quick'\]"):
        execute_notebook(src, tmp_path / "out.ipynb", {"quick": True}, ROOT)


def test_injected_values_are_folded_into_the_one_parameters_cell(tmp_path):
    src = _write_nb(
        tmp_path / "fold.md",
        """
        # Fold
        ```{code-cell} ipython3
        :tags: [parameters]
        quick = False  # True in tests
        n = 3  # how many
        ```
        ```{code-cell} ipython3
        print(quick, n)
        ```
        """,
    )
    out = tmp_path / "out.ipynb"
    ex = execute_notebook(src, out, {"quick": True, "unknown": 1}, ROOT)
    nb = nbformat.read(out, as_version=4)
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    assert not any("injected-parameters" in t for t in tags)
    params = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assert params.source.splitlines() == ["quick = True  # True in tests", "n = 3  # how many"]
    assert nb.cells[-1].outputs[0]["text"] == "True 3\n"  # the value injected is the value that ran
    assert not any("blindspot-probe" in t or "blindspot-reset" in t for t in tags)  # the bookkeeping cells are gone
    assert ex.modules == []  # this notebook imported nothing from the support packages


def test_comment_lines_and_wrapped_values_in_the_parameters_cell(tmp_path):
    """A comment on its own line above a parameter (how a chapter keeps a long one under 88 columns) and a
    list wrapped over lines: papermill finds every parameter, the injected value is the one that runs, and
    the folded cell shows it in place of the whole wrapped value, the comment lines kept."""
    src = _write_nb(
        tmp_path / "wrapped.md",
        """
        # Wrapped
        ```{code-cell} ipython3
        :tags: [parameters]
        # named suites or score files: the comment has = signs, a = b
        scores = [
            "a", "b",
            "c",
        ]  # the last line's comment
        # resamples;
        # None: the paper's protocol
        n = None
        quick = False  # True in tests
        ```
        ```{code-cell} ipython3
        print(scores, n, quick)
        ```
        """,
    )
    nb = read_chapter(src)
    assert set(check_parameters_cell(nb, "wrapped")) == {"scores", "n", "quick"}
    out = tmp_path / "out.ipynb"
    execute_notebook(src, out, {"scores": "mine.csv", "quick": True}, ROOT)
    done = nbformat.read(out, as_version=4)
    params = next(c for c in done.cells if "parameters" in c.metadata.get("tags", []))
    assert params.source.splitlines() == [
        "# named suites or score files: the comment has = signs, a = b",
        'scores = "mine.csv"  # the last line\'s comment',
        "# resamples;",
        "# None: the paper's protocol",
        "n = None",
        "quick = True  # True in tests",
    ]
    assert done.cells[-1].outputs[0]["text"] == "mine.csv None True\n"
    compile(params.source, "params", "exec")  # what the reader sees is Python


def test_fold_leaves_a_notebook_without_injection_alone():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]})])
    assert fold_parameters(nb).cells[0].source == "x = 1"


def test_chapter_key_follows_its_inputs(tmp_path):
    reg = tmp_path / "reg.yml"
    base = chapter_key("text", {"quick": True}, reg, "fp")
    assert chapter_key("text", {"quick": True}, reg, "fp") == base
    assert chapter_key("text!", {"quick": True}, reg, "fp") != base
    assert chapter_key("text", {"quick": False}, reg, "fp") != base
    assert chapter_key("text", {"quick": True}, reg, "fp2") != base
    reg.write_text("chapter: reg\n")
    assert chapter_key("text", {"quick": True}, reg, "fp") != base
    f = tmp_path / "scores.csv"
    f.write_text("a")
    k1 = chapter_key("text", {"scores": str(f)}, reg, "fp")
    f.write_text("b")  # same path, new content: a new key
    assert chapter_key("text", {"scores": str(f)}, reg, "fp") != k1
    d = tmp_path / "records"
    d.mkdir()
    (d / "a.json").write_text("1")
    k2 = chapter_key("text", {"scores": [str(d)]}, reg, "fp")
    (d / "b.json").write_text("22")  # an input folder's new file: a new key
    assert chapter_key("text", {"scores": [str(d)]}, reg, "fp") != k2
    ledger = tmp_path / "ledger"  # a folder the build itself writes (ledger_dir) never moves the key
    ledger.mkdir()
    k3 = chapter_key("text", {"ledger_dir": str(ledger)}, reg, "fp")
    (ledger / "01.json").write_text("{}")
    assert chapter_key("text", {"ledger_dir": str(ledger)}, reg, "fp") == k3


def test_the_ledger_chapter_is_keyed_by_the_gathered_ledger_not_its_path(tmp_path):
    """The build rewrites ``ledger.json`` at one path for every your-data book; keyed by that path,
    a second book (DATA=B) reused the ledger chapter executed on the first (DATA=A) and closed on A's summary."""
    reg = tmp_path / "reg.yml"
    out = tmp_path / "_build" / "yours" / "ledger.json"
    out.parent.mkdir(parents=True)
    out.write_text('[{"id": "A"}]')
    rel = {"ledger_file": "_build/yours/ledger.json"}  # as the build passes it: relative to the project root
    k_a = chapter_key("text", rel, reg, "fp", base=tmp_path)
    assert chapter_key("text", rel, reg, "fp", base=tmp_path) == k_a  # same ledger: the cache hits
    out.write_text('[{"id": "B"}]')  # the second book's ledger, same path
    assert chapter_key("text", rel, reg, "fp", base=tmp_path) != k_a
    assert chapter_key("text", {"ledger_file": str(out)}, reg, "fp") != k_a  # absolute path: same content rule


def test_tree_fingerprint_sees_a_changed_file(tmp_path):
    (tmp_path / "a.csv").write_text("1")
    fp = tree_fingerprint(tmp_path)
    assert tree_fingerprint(tmp_path) == fp
    (tmp_path / "a.csv").write_text("12")
    assert tree_fingerprint(tmp_path) != fp
    assert tree_fingerprint(None) == ""


def test_cache_entry_is_invalidated_by_a_changed_module(tmp_path):
    cache = ChapterCache(tmp_path / "cache")
    nb, mod = tmp_path / "ch.ipynb", tmp_path / "mod.py"
    nb.write_text("{}")
    mod.write_text("x = 1\n")
    cache.store("ch", "k" * 64, nb, None, [str(mod)], 1.5)
    hit = cache.lookup("ch", "k" * 64)
    assert hit is not None and hit.seconds == 1.5 and hit.ledger is None
    assert cache.lookup("ch", "j" * 64) is None  # another key
    mod.write_text("x = 2\n")
    assert cache.lookup("ch", "k" * 64) is None  # the code it imported changed


@pytest.mark.pipeline
def test_quick_book_builds_and_an_unchanged_rebuild_executes_nothing(quick_book):
    res = quick_book
    stems = toc_chapters(ROOT)
    assert (res.html / "index.html").is_file()
    chapters = res.html / edition(ROOT, "quick").chapters
    for stem in stems:
        assert (chapters / f"{stem}.html").is_file(), stem
    ledger = json.loads(res.edition.ledger_file.read_text())
    assert "T1.deff.extended.frontier" in {r["id"] for r in ledger}
    page = (chapters / "99_reproduction_ledger.html").read_text()
    assert "T1.deff.extended.frontier" in page
    # the build embedded the AlpacaEval pool before its chapters: they read every vector from the cache
    # (on a cold cache, as in CI, a chapter whose texts the warm-up missed would say "cold: n texts embedded")
    for stem in ("60_alpaca_eval_query_efficiency", "64_routing_behavioural_stand_in"):
        assert "warm: everything from the cache" in (chapters / f"{stem}.html").read_text(), stem
    again = build_book(quick=True, out=res.edition.out, progress=False, html=False)
    assert again.timings == {} and sorted(again.cached) == sorted(stems)
    assert json.loads(again.edition.ledger_file.read_text()) == ledger


@pytest.mark.pipeline
def test_your_data_book_is_built_apart(tmp_path):
    from blindspot.data.suites import synthetic_suite

    csv = tmp_path / "my_scores.csv"
    synthetic_suite(n_models=40, n_benchmarks=5, seed=2).scores.reset_index().to_csv(csv, index=False)
    main_chapters = ROOT / "book" / "chapters"
    before = sorted((p.name, p.stat().st_mtime) for p in main_chapters.glob("*")) if main_chapters.exists() else []
    res = build_book(data=csv, quick=True, out=tmp_path / "yours", progress=False)
    chapters = res.html / edition(ROOT, "yours").chapters
    assert {p.stem for p in chapters.glob("*.html")} == set(toc_chapters(ROOT))
    page = (chapters / "80_your_leaderboard.html").read_text()
    assert "my_scores.csv" in page and "40" in page
    for stem in res.not_run:  # every chapter that did not run says why, in a box
        assert "Not run on your leaderboard" in (chapters / f"{stem}.html").read_text()
    after = sorted((p.name, p.stat().st_mtime) for p in main_chapters.glob("*")) if main_chapters.exists() else []
    assert before == after  # the main book is untouched


@pytest.mark.pipeline
def test_a_second_your_data_book_is_about_the_second_input(tmp_path):
    """``make book DATA=A`` then ``make book DATA=B`` into one output folder: every page and the
    closing summary of B's book are about B (the ledger chapter was cached by the ledger file's path and
    showed A's d_eff)."""
    from blindspot.book.ledger_page import HEADLINES
    from blindspot.data.suites import synthetic_suite

    out = tmp_path / "yours"
    books = {}
    for name, (n, k, seed) in {"alpha_scores.csv": (40, 5, 2), "beta_scores.csv": (31, 9, 7)}.items():
        csv = tmp_path / name
        synthetic_suite(n_models=n, n_benchmarks=k, seed=seed).scores.reset_index().to_csv(csv, index=False)
        res = build_book(data=csv, quick=True, out=out, progress=False)
        rows = {r["id"]: r for r in json.loads(res.edition.ledger_file.read_text())}
        d_eff = next(rows[ids[0]]["book"] for ids in HEADLINES["d_eff"] if ids[0] in rows)
        books[name] = (res, d_eff)
    (res, d_b), (_, d_a) = books["beta_scores.csv"], books["alpha_scores.csv"]
    assert f"{d_a:.1f}" != f"{d_b:.1f}"  # the two inputs are told apart by the headline
    chapters = res.html / edition(ROOT, "yours").chapters
    pages = {p.stem: p.read_text() for p in chapters.glob("*.html")}
    assert "beta_scores.csv" in pages["80_your_leaderboard"]
    assert not [s for s, page in pages.items() if "alpha_scores.csv" in page]  # no page is about the first input
    closing = pages["99_reproduction_ledger"]
    assert f"about {d_b:.1f} on" in closing and f"about {d_a:.1f} on" not in closing


def test_bad_data_file_stops_before_any_work(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("model,a,b\nm1,1,x\nm2,2,3\n")
    with pytest.raises(ValueError):
        build_book(data=bad, out=tmp_path / "yours", progress=False, html=False)
    assert not (tmp_path / "yours" / "ledger").exists()


def test_student_edition_is_not_made_from_your_data(tmp_path):
    csv = tmp_path / "mine.csv"
    csv.write_text("model,a,b\nm1,1,2\nm2,2,3\nm3,3,1\n")
    with pytest.raises(ValueError, match="student edition"):
        build_book(data=csv, student=True, out=tmp_path / "yours", progress=False, html=False)
    assert not (tmp_path / "yours").exists()


def test_read_chapter_names_an_unreadable_file(tmp_path):
    with pytest.raises(NotebookError, match="cannot read"):
        read_chapter(tmp_path / "missing.md")


def _solution_notebook() -> nbformat.NotebookNode:
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    return nbformat.v4.new_notebook(
        cells=[
            md(
                "# Ex\n\n````{exercise}\n:label: ex-a\nBy hand.\n````\n\n````{solution} ex-a\n:class: dropdown\n\n"
                "The answer is FORTY-TWO.\n````\n\nText after the solution."
            ),
            md("````{exercise}\n:label: ex-b\nComputed.\n````\n\n```{solution-start} ex-b\n:class: dropdown\n```"),
            code("secret = 6 * 7\nassert secret == 42"),
            md("```{solution-end}\n```\n\n## Summary"),
        ]
    )


def test_strip_solutions_removes_text_and_gated_solutions():
    nb = _solution_notebook()
    assert solution_count(nb) == 2
    out = strip_solutions(nb)
    text = "\n".join(c.source for c in out.cells)
    assert solution_count(out) == 0
    assert "FORTY-TWO" not in text and "secret" not in text and "solution-end" not in text
    assert "By hand." in text and "Computed." in text and "Text after the solution." in text and "## Summary" in text
    assert all(c.cell_type == "markdown" for c in out.cells)  # the gated solution's code went with it
    assert solution_count(nb) == 2  # the input is left alone


@pytest.mark.pipeline
def test_student_edition_holds_no_solution(quick_book):
    quick = ROOT / edition(ROOT, "quick").chapters
    solutions = {s: solution_count(nbformat.read(quick / f"{s}.ipynb", as_version=4)) for s in toc_chapters(ROOT)}
    assert sum(solutions.values()) > 0
    html = quick_book.student_html
    pages = {p.stem: p.read_text() for p in (html / edition(ROOT, "student").chapters).glob("*.html")}
    assert set(pages) == set(toc_chapters(ROOT))
    for stem, page in pages.items():
        assert 'class="solution' not in page and "solution-start" not in page, stem
        if solutions[stem]:
            assert "exercise" in page, stem  # the exercises stay


def test_the_contributing_template_runs(tmp_path):
    """CONTRIBUTING.md's chapter template executes as written, with its registry file (so it stays true)."""
    root = tmp_path / "project"
    (root / "book" / "claims").mkdir(parents=True)
    text = (ROOT / "book" / "templates" / "chapter.md").read_text().replace("NN_template", "99_template")
    src = root / "notebooks" / "99_template.md"
    src.parent.mkdir()
    src.write_text(text)
    claims = (ROOT / "book" / "templates" / "claims.yml").read_text().replace("NN_template", "99_template")
    (root / "book" / "claims" / "99_template.yml").write_text(claims)
    execute_notebook(src, tmp_path / "out.ipynb", {"quick": True, "ledger_dir": str(tmp_path / "ledger")}, root)
    # the notebook does not name itself: the ledger file is named after the file the build executed
    assert "99_template" not in src.read_text().split("```{code-cell}", 1)[1]
    rows = json.loads((tmp_path / "ledger" / "99_template.json").read_text())
    assert [r["id"] for r in rows] == ["NN.deff.extended.frontier", "NN.small"]


def test_execute_command_types_its_parameters_and_refuses_unknown_names(tmp_path, capsys, monkeypatch):
    src = _write_nb(
        tmp_path / "typed.md",
        """
        # Typed
        ```{code-cell} ipython3
        :tags: [parameters]
        quick = False
        n_boot = 10
        data_dir = None
        ```
        ```{code-cell} ipython3
        print(type(n_boot).__name__, n_boot + 1, data_dir)
        ```
        """,
    )
    monkeypatch.chdir(tmp_path)  # relative paths are the caller's, although the notebook runs in the project root
    (tmp_path / "my_data").mkdir()
    assert main(["execute", str(src), "--out", "run", "-p", "n_boot=1000", "-p", "data_dir=my_data"]) == 0
    nb = nbformat.read(tmp_path / "run" / "typed.ipynb", as_version=4)
    assert (
        nb.cells[-1].outputs[0]["text"] == f"int 1001 {tmp_path / 'my_data'}\n"
    )  # a number, and the path made absolute
    assert main(["execute", str(src), "--out", "run", "-p", "nboot=1000"]) == 2  # a typo is refused, not dropped
    assert "has no parameter 'nboot'" in capsys.readouterr().err


def test_the_longest_chapter_is_started_first(tmp_path):
    cache = ChapterCache(tmp_path / "cache")
    assert cache.last_seconds("60_alpaca") is None  # a fresh clone: no history
    nb = tmp_path / "ch.ipynb"
    nb.write_text("{}")
    cache.store("60_alpaca", "k1", nb, None, [], 214.0)
    cache.store("60_alpaca", "k2", nb, None, [], 207.5)  # the newer run replaces the older
    assert cache.last_seconds("60_alpaca") == 207.5
    assert chapter_runs_long(read_chapter(ROOT / "notebooks" / "60_alpaca_eval_query_efficiency.md"))
    assert not chapter_runs_long(read_chapter(ROOT / "notebooks" / "01_effective_dimensionality.md"))


def _eee_boards(root: Path, boards=("one", "two"), n=12) -> dict:
    """Every Eval Ever records of two leaderboards under ``root`` (a folder that needs --leaderboard)."""
    rng = np.random.default_rng(0)
    out = {}
    for board in boards:
        X = rng.uniform(0.1, 0.9, size=(n, 3))
        for i in range(n):
            results = [
                {
                    "evaluation_name": b,
                    "metric_config": {"score_type": "continuous", "min_score": 0.0, "max_score": 1.0},
                    "score_details": {"score": float(X[i, j])},
                }
                for j, b in enumerate("abc")
            ]
            rec = {
                "schema_version": "0.2.0",
                "evaluation_id": f"{board}/org_m{i:02d}/1700000000",
                "retrieved_timestamp": "1700000000",
                "source_metadata": {"source_name": board, "source_type": "documentation"},
                "model_info": {"name": f"m{i:02d}", "id": f"org/m{i:02d}", "developer": "org"},
                "evaluation_results": results,
            }
            p = root / board / "org" / f"m{i:02d}" / "r.json"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(json.dumps(rec))
        out[board] = X
    return out


def test_book_data_takes_the_reading_options_of_analyze_and_hands_them_to_the_chapters(tmp_path):
    from blindspot import data
    from blindspot.book.build import BookBuild
    from blindspot.book.ledger import Run
    from blindspot.cli import build_parser
    from blindspot.data.format_options import given_options, read_option_names

    boards = _eee_boards(tmp_path / "records")
    src = tmp_path / "records"
    book = build_parser().parse_args(
        ["book", "--data", str(src), "--leaderboard", "two", "--lower-is-better", "a", "--lower-is-better", "b"]
    )
    analyze = build_parser().parse_args(["analyze", str(src)])
    assert set(read_option_names()) <= set(vars(book)) and set(read_option_names()) <= set(vars(analyze))
    options = given_options(vars(book))
    assert options == {"leaderboard": "two", "lower_is_better": ["a", "b"]}  # repeated flag: the names add up
    with pytest.raises(ValueError, match="holds 2 Every Eval Ever leaderboards"):  # the file needs the option
        build_book(data=src, out=tmp_path / "yours", progress=False, html=False)
    build = BookBuild(
        ROOT, edition(ROOT, "yours", tmp_path / "yours"), data=src, read_options=options, quick=True, only=None,
        jobs=1, progress=False,
    )  # fmt: skip
    scores = build.params["scores"]
    assert scores == {"source": str(src), "leaderboard": "two", "lower_is_better": ["a", "b"]}
    table = data.load(scores)  # what a chapter reads from its parameter
    assert table.n_models == 12 and list(table.benchmarks) == ["a", "b", "c"]
    np.testing.assert_allclose(table.scores["c"].sort_index(), boards["two"][:, 2])
    np.testing.assert_allclose(table.scores["a"].sort_index(), 1.0 - boards["two"][:, 0])  # flipped in its scale
    assert next(iter(data.load_many(scores).values())).n_models == 12
    # the cache keys the options (another leaderboard is another chapter); a run on it is on your data
    reg = tmp_path / "reg.yml"
    other = {**scores, "leaderboard": "one"}
    assert chapter_key("t", {"scores": scores}, reg, "fp") != chapter_key("t", {"scores": other}, reg, "fp")
    assert Run("80_your_leaderboard", {"scores": {"paper": "arena_categories"}}, True, {"scores": scores}).on_your_data
    with pytest.raises(ValueError, match="apply to a build on your data"):
        build_book(read_options={"level": "tasks"}, out=tmp_path / "q", progress=False, html=False)


def test_book_refuses_a_reading_option_without_data_before_any_work(tmp_path, capsys):
    assert main(["book", "--level", "tasks", "--no-html", "--out", str(tmp_path / "q")]) == 2
    assert "--level applies only to a build on your data: give --data FILE" in capsys.readouterr().err
    assert not (tmp_path / "q").exists()
