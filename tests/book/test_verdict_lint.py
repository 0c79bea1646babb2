"""blindspot.book.verdict_lint: no chapter computes an interval, a p-value or a verdict itself."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from blindspot.book.verdict_lint import lint_notebook, lint_source

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "notebooks").glob("*.md")) + [ROOT / "book" / "templates" / "chapter.md"]


def rules(code: str) -> list[str]:
    return [f.rule for f in lint_source(textwrap.dedent(code))]


@pytest.mark.parametrize(
    "code",
    [
        "half = stats.t.ppf(0.975, n - 1) * sd / np.sqrt(n)",  # chapter 64's interval at b85538b
        "p = stats.ttest_rel(a, b).pvalue",
        "lo, hi = np.percentile(boot, [2.5, 97.5])",
        "lo = np.percentile(null, 5)",
        "se = sem(x)",
    ],
)
def test_a_statistic_computed_in_the_notebook_is_found(code):
    assert "statistic" in rules(code)


@pytest.mark.parametrize(
    "code",
    [
        'glue("small_contains", "contains" if lo <= d <= hi else "does not contain")',  # chapter 01 before
        'glue("tri_meets", "meets every hypothesis" if tri.meets_hypotheses else "does not meet every hypothesis")',
        'book = f"fails at t = {ts}" if ts else "holds from the empty set"',
        'word = "weak" if y < median else strong_word',
        """
        if share < 0.1:
            word = "worse than most"
        else:
            word = "about as well as"
        """,
    ],
)
def test_a_verdict_word_picked_in_the_notebook_is_found(code):
    assert "verdict word" in rules(code)


@pytest.mark.parametrize(
    "code",
    [
        'ledger.statement("T1.x", holds=all(g > 0 for g in gaps.values()), evidence=e)',
        'ledger.statement("T1.x", holds=rate <= 0.05, evidence=e)',
        """
        below = bool((mc <= bound).all())
        ledger.statement("T2.x", holds=below, evidence=e)
        """,
        'glue("n_violations", int((checks.delta_H > checks.bound + 1e-9).sum()))',
        'glue("adv", yes_no(exact > iso))',
    ],
)
def test_a_comparison_feeding_a_verdict_is_found(code):
    assert "verdict comparison" in rules(code)


@pytest.mark.parametrize(
    "code",
    [
        'ledger.statement("T1.x", holds=check.frontier_exceeds_full, evidence=check.evidence)',
        'glue("small_contains", verdicts.interval_contains(row.d_eff, row.ci_lo, row.ci_hi))',
        "front = conventions.frontier(t) if conventions.frontier_mask(t).sum() >= MIN_MODELS else t",
        'featured = "extended" if "extended" in suites else next(iter(suites))',
        "if n_front < 5:\n    raise SystemExit",
        "lo, hi = np.percentile(x, [10, 90])",  # a spread shown, not an interval level
        'for s in suites:\n    if s == "livebench":\n        continue',
        'glue("fig-d", figures.d_trends(priors, sweep[sweep.D >= 10]), display=False)',
    ],
)
def test_narration_and_steering_pass(code):
    assert rules(code) == []


@pytest.mark.parametrize(
    "code",
    [
        # chapter 04 before: a table built in the notebook, read back by column name in prognose.verdicts
        """
        closed_table = pd.DataFrame(rows).T
        glue("mc_below", verdicts.monte_carlo_words(closed_table))
        """,
        """
        checks = pd.concat([ind.check_visible_bound(d, m) for d, m in designs], ignore_index=True)
        glue("n_violations", verdicts.bound_violations(checks))
        """,
        """
        appc = pd.DataFrame(appc).T
        row = appc.loc[d]
        ledger.value("x", row["a"], evidence=verdicts.appc_evidence(row))
        """,
        "h7 = verdicts.slopes_within(paper, rate_table=pd.DataFrame(rows).T.round(3))",
        "v = prognose.verdicts.f(pd.DataFrame({'a': [1]}).assign(b=2))",
    ],
)
def test_a_table_built_here_and_read_back_by_a_verdict_is_found(code):
    assert "table contract" in rules(code)


@pytest.mark.parametrize(
    "code",
    [
        "closed = cc.check_closed_forms(seed=seed)\nglue('w', verdicts.monte_carlo_words(closed))",
        "t = pd.DataFrame(rows)\nglue('fig', figures.sampling_error(t), display=False)",  # a figure, not a verdict
        "t = pd.DataFrame(rows)\nv = verdicts.f(t['col'], t.loc[0, 'x'])",  # a column, a cell: the notebook's own
        "t = pd.DataFrame(rows)\nt = lib.result().table\nv = verdicts.f(t)",  # rebound to a library table
    ],
)
def test_a_library_result_or_a_column_handed_to_a_verdict_passes(code):
    assert rules(code) == []


def test_a_comparison_in_an_earlier_cell_is_followed_to_holds(tmp_path):
    nb = tmp_path / "nb.md"
    nb.write_text(
        textwrap.dedent(
            """\
            ---
            jupytext: {text_representation: {extension: .md, format_name: myst}}
            kernelspec: {display_name: Python 3, language: python, name: python3}
            ---
            # T
            ```{code-cell} ipython3
            ok = np.all(np.diff(x) > 0)
            ```
            ```{code-cell} ipython3
            ledger.statement("a", holds=bool(ok), evidence="e")
            ```
            ```{solution-start} ex
            ```
            ```{code-cell} ipython3
            T = 2 * s * stats.norm.ppf(0.95)
            assert abs(T - mine) < 1e-9
            ```
            ```{solution-end}
            ```
            """
        )
    )
    found = lint_notebook(nb)
    assert [f.rule for f in found] == ["verdict comparison"]  # the solution's own computation is not linted


def test_a_table_built_in_an_earlier_cell_is_followed_to_the_verdict(tmp_path):
    nb = tmp_path / "nb.md"
    nb.write_text(
        "---\njupytext: {text_representation: {extension: .md, format_name: myst}}\n---\n# T\n"
        "```{code-cell} ipython3\ncluster = pd.DataFrame(rows).T\n```\n"
        "```{code-cell} ipython3\nanyd = verdicts.rate_holds_any_directions(cluster, ms)\n```\n"
    )
    assert [f.rule for f in lint_notebook(nb)] == ["table contract"]


@pytest.mark.parametrize("chapter", [pytest.param(p, id=p.stem) for p in CHAPTERS])
def test_the_chapter_narrates_and_the_package_decides(chapter):
    found = lint_notebook(chapter)
    assert not found, "the notebook decides for itself; call a tested function of the package instead:\n" + "\n".join(
        map(str, found)
    )
