"""The notebook lint: a chapter narrates, the support package decides.

A chapter's code calls the package, glues values into its prose and plots. The verdicts it states (a
ledger statement's ``holds=``, a word such as "holds", "contains", "breaks" glued into a sentence) and
the statistics behind them (a confidence interval, a p-value) come from tested functions of the
package. This module reads a chapter's code cells (jupytext) and reports each place where the notebook
decides for itself:

``statistic``
    an interval or a test computed in the cell: ``stats.t.ppf``, ``norm.isf``, ``ttest_*``,
    ``.interval(...)``, ``sem(...)``, ``.pvalue``, ``mannwhitneyu``/``wilcoxon``/``binomtest``, or a
    percentile/quantile at an interval level (2.5/97.5, 5/95 and their fractions);
``verdict word``
    a conditional expression that picks between two strings (``"holds" if ok else "fails"``), or a
    string picked by a threshold comparison (``"x" if a > b else y``), or an ``if`` on a comparison
    whose branches assign or glue a string;
``verdict comparison``
    a comparison feeding a ledger verdict: inside ``holds=``, or in a name computed in the notebook by
    a comparison and then passed as ``holds=``; or a threshold comparison glued onto the page (a count
    of violations, a share above a bound) or handed to a wording helper (``yes_no(a > b)``);
``table contract``
    a table built in the notebook (``pd.DataFrame(...)``, ``pd.concat(...)``, ``DataFrame.from_dict``, their
    ``.T``, ``.assign``, ``.set_index``, or a row of one, ``built.loc[d]``) handed to a function of a part's
    ``verdicts`` module, which can only read it back by column name: a contract across the notebook
    boundary no test holds. The part returns a result object instead, and the verdict takes the object.

The cells of an exercise's solution (between ``solution-start`` and ``solution-end``) are the reader's
own computation, checked against the package by an assertion, and are not linted. Comparisons that
steer the computation (``if n_front < 5:`` skipping a section, choosing a slice) are not verdicts and
are allowed.

Run ``python -m blindspot.book.verdict_lint [notebook ...]`` (default: every chapter) for a report;
``tests/book/test_verdict_lint.py`` runs it in ``make test``.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import jupytext

__all__ = ["Finding", "lint_source", "lint_notebook", "main"]

_ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
_EQUALITY = (ast.Eq, ast.NotEq)
#: Attribute or function names that compute an interval or a test statistic's p-value.
_STAT_NAMES = {"ppf", "isf", "interval", "sem", "pvalue", "p_value", "mannwhitneyu", "wilcoxon", "binomtest"}
_STAT_PREFIXES = ("ttest",)
_PERCENTILE = {"percentile", "quantile", "nanpercentile", "nanquantile"}
_INTERVAL_LEVELS = {2.5, 97.5, 5.0, 95.0, 0.025, 0.975, 0.05, 0.95}
#: Calls that put a value on the page, and the helpers that word a computed flag (blindspot.core.verdict).
_GLUERS = {"glue"}
_WORDERS = {"yes_no", "number_or", "listing"}
#: Calls that build a table, and the methods that keep a built table a table (or take a row or column of it).
_FRAME_BUILDERS = {"DataFrame", "concat", "from_dict", "from_records"}
_FRAME_KEEPERS = {"T", "assign", "set_index", "reset_index", "round", "sort_values", "copy", "rename"}


@dataclass(frozen=True)
class Finding:
    """One place where a notebook decides for itself."""

    notebook: str
    cell: int  # the code cell's index among the notebook's cells
    line: int  # the line in that cell, from 1
    rule: str  # 'statistic', 'verdict word' or 'verdict comparison'
    code: str  # the offending expression (shortened)

    def __str__(self) -> str:
        return f"{self.notebook} cell {self.cell} line {self.line}: {self.rule}: {self.code}"


def _has_comparison(node: ast.AST, ops: tuple = _ORDERING + _EQUALITY) -> bool:
    return any(isinstance(n, ast.Compare) and any(isinstance(o, ops) for o in n.ops) for n in ast.walk(node))


def _is_text(node: ast.AST) -> bool:
    """A string built in the cell: a literal, an f-string, or a concatenation with one."""
    if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _is_text(node.left) or _is_text(node.right)
    if isinstance(node, ast.IfExp):
        return _is_text(node.body) or _is_text(node.orelse)
    return False


def _numbers(node: ast.AST) -> Iterator[float]:
    for n in ast.walk(node):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            yield float(n.value)


def _is_decision(node: ast.AST) -> bool:
    """An expression whose value is a truth decided by a comparison: ``a > b``, ``a and b <= c``,
    ``not x == y``, ``all(g > 0 for g in gaps)``, ``bool((x <= y).all())``."""
    if isinstance(node, ast.Compare):
        return _has_comparison(node)
    if isinstance(node, ast.BoolOp):
        return any(_is_decision(v) for v in node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return _is_decision(node.operand)
    if isinstance(node, ast.Call) and _call_name(node) in {"bool", "all", "any"}:
        return _has_comparison(node)
    return False


def _is_figure(node: ast.AST) -> bool:
    """A call of a ``figures`` module's function (a comparison in its arguments selects what to draw)."""
    f = node.func if isinstance(node, ast.Call) else None
    while isinstance(f, ast.Attribute):
        if isinstance(f.value, ast.Name) and f.value.id.endswith("figures"):
            return True
        f = f.value
    return False


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else "")


def _builds_table(node: ast.AST, tables: set[str]) -> bool:
    """An expression whose value is a table built in the notebook: a builder call, or a table kept as one
    (``built.T``, ``built.assign(...)``, ``built.loc[d]``, ``built["col"]``)."""
    while True:
        if isinstance(node, ast.Name):
            return node.id in tables
        if isinstance(node, ast.Call):
            if _call_name(node) in _FRAME_BUILDERS:
                return True
            node = node.func
        elif isinstance(node, ast.Attribute):
            if node.attr not in _FRAME_KEEPERS:
                return False
            node = node.value
        elif isinstance(node, ast.Subscript):
            # a row (built.loc[d]) keeps the column names; a column or a cell (built["col"], .loc[d, "c"]) does not
            row = isinstance(node.value, ast.Attribute) and node.value.attr in {"loc", "iloc"}
            if not row or isinstance(node.slice, ast.Tuple):
                return False
            node = node.value.value
        else:
            return False


def _is_verdicts_call(node: ast.Call) -> bool:
    """A call of a function of a part's ``verdicts`` module (``verdicts.f(...)``, ``prognose.verdicts.f(...)``)."""
    f = node.func
    return isinstance(f, ast.Attribute) and (
        (isinstance(f.value, ast.Name) and f.value.id.endswith("verdicts"))
        or (isinstance(f.value, ast.Attribute) and f.value.attr == "verdicts")
    )


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _assigns_text(body: Iterable[ast.stmt]) -> bool:
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and n.value is not None and _is_text(n.value):
                return True
            if isinstance(n, ast.Call) and _call_name(n) == "glue" and len(n.args) > 1 and _is_text(n.args[1]):
                return True
    return False


def lint_source(
    source: str,
    notebook: str = "<cell>",
    cell: int = 0,
    tainted: set[str] | None = None,
    tables: set[str] | None = None,
) -> list[Finding]:
    """The findings in one code cell's source.

    Parameters
    ----------
    source : str
        The cell's code (IPython magics and shell lines are skipped).
    notebook, cell : str, int
        Where the cell is, for the report.
    tainted : set of str, optional
        Names assigned from a comparison in earlier cells of the notebook; updated in place with this
        cell's, so a comparison made in one cell and passed as ``holds=`` in a later one is found.
    tables : set of str, optional
        Names bound to a table built in earlier cells of the notebook; updated in place likewise.

    Returns
    -------
    list of Finding
    """
    tainted = set() if tainted is None else tainted
    tables = set() if tables is None else tables
    lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return []
    text = "\n".join(lines)
    found: list[Finding] = []

    def add(node: ast.AST, rule: str) -> None:
        code = " ".join((ast.get_source_segment(text, node) or "").split())
        found.append(Finding(notebook, cell, getattr(node, "lineno", 0), rule, code[:100]))

    # tables built in this notebook, in the order the statements run (a loop's body after its header)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = {t.id for t in targets if isinstance(t, ast.Name)}
            if _builds_table(node.value, tables):
                tables |= names
            else:
                tables -= names
    for node in ast.walk(tree):
        # names computed by a comparison, in this notebook
        if isinstance(node, ast.Assign) and _is_decision(node.value):
            for t in node.targets:
                tainted |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
        # a table built here, read back by a verdict
        if isinstance(node, ast.Call) and _is_verdicts_call(node):
            for a in [*node.args, *(kw.value for kw in node.keywords)]:
                if _builds_table(a, tables):
                    add(a, "table contract")
        # statistics
        if isinstance(node, ast.Attribute) and (node.attr in _STAT_NAMES or node.attr.startswith(_STAT_PREFIXES)):
            add(node, "statistic")
        elif isinstance(node, ast.Call):
            name = _call_name(node)
            if isinstance(node.func, ast.Name) and (name in _STAT_NAMES or name.startswith(_STAT_PREFIXES)):
                add(node, "statistic")
            elif name in _PERCENTILE and any(v in _INTERVAL_LEVELS for a in node.args[1:] for v in _numbers(a)):
                add(node, "statistic")
            for kw in node.keywords:
                if kw.arg == "holds" and (_has_comparison(kw.value) or _names(kw.value) & tainted):
                    add(kw.value, "verdict comparison")
            if (
                name in _GLUERS
                and len(node.args) > 1
                and not _is_figure(node.args[1])
                and _has_comparison(node.args[1], _ORDERING)
            ):
                add(node.args[1], "verdict comparison")
            elif name in _WORDERS and node.args and _has_comparison(node.args[0], _ORDERING):
                add(node.args[0], "verdict comparison")
        # verdict words
        if isinstance(node, ast.IfExp):
            both = _is_text(node.body) and _is_text(node.orelse)
            either = _is_text(node.body) or _is_text(node.orelse)
            if both or (either and _has_comparison(node.test, _ORDERING)):
                add(node, "verdict word")
        elif isinstance(node, ast.If) and _has_comparison(node.test, _ORDERING):
            if _assigns_text(node.body) or _assigns_text(node.orelse):
                add(node.test, "verdict word")
    # an IfExp inside another is reported once, at the outer one
    outer: list[Finding] = []
    for f in found:
        if not any(o.line == f.line and o.rule == f.rule and f.code in o.code for o in outer):
            outer.append(f)
    return outer


def lint_notebook(path: str | Path) -> list[Finding]:
    """The findings in a chapter's code cells (jupytext source), solutions of exercises excepted."""
    path = Path(path)
    nb = jupytext.read(path)
    tainted: set[str] = set()
    tables: set[str] = set()
    in_solution = False
    found: list[Finding] = []
    for i, c in enumerate(nb.cells):
        if c.cell_type == "markdown":
            if "solution-start" in c.source:
                in_solution = True
            if "solution-end" in c.source:
                in_solution = False
            continue
        if c.cell_type == "code" and not in_solution:
            found.extend(lint_source(c.source, path.stem, i, tainted, tables))
    return found


def main(argv: list[str] | None = None) -> int:
    """Report every finding of the given notebooks (default: ``notebooks/*.md``); status 1 if any."""
    args = sys.argv[1:] if argv is None else argv
    paths = [Path(a) for a in args] or sorted(Path("notebooks").glob("*.md"))
    findings = [f for p in paths for f in lint_notebook(p)]
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
