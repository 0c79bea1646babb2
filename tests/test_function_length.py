"""No function in support/ has a body over 80 lines: a longer one is split into named steps.

The body is counted from its first statement after the docstring to its last line (nested functions
included), so a long docstring is never the reason to split a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_BODY = 80

#: Functions being split by other work of this round, each (file under support/, qualified name). Empty this
#: list as they land; a name here that is no longer long fails the test, so the list only shrinks.
ALLOWED: frozenset[tuple[str, str]] = frozenset()


def body_lines(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the first statement after the docstring to the function's last line (0 for a docstring only)."""
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        if isinstance(body[0].value.value, str):
            body = body[1:]
    if not body:
        return 0
    return (fn.end_lineno or fn.lineno) - body[0].lineno + 1


def long_functions(source: str, path: str = "<source>") -> dict[tuple[str, str], int]:
    """{(path, qualified name): body lines} of every function in ``source`` whose body exceeds MAX_BODY."""
    out: dict[tuple[str, str], int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                if (n := body_lines(child)) > MAX_BODY:
                    out[(path, name)] = n
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return out


def _support() -> dict[tuple[str, str], int]:
    found: dict[tuple[str, str], int] = {}
    for p in sorted((ROOT / "support").rglob("*.py")):
        found |= long_functions(p.read_text(), p.relative_to(ROOT / "support").as_posix())
    return found


def test_no_function_body_over_80_lines():
    over = {k: n for k, n in _support().items() if k not in ALLOWED}
    assert not over, "function bodies over 80 lines (split them into named steps): " + ", ".join(
        f"{p}:{name} ({n} lines)" for (p, name), n in sorted(over.items())
    )


def test_the_allow_list_only_holds_functions_still_long():
    done = sorted(ALLOWED - set(_support()))
    assert not done, f"no longer over 80 lines (or gone): remove from ALLOWED: {done}"


def test_the_count_starts_after_the_docstring_and_includes_nested_functions():
    doc = '    """' + "\n".join(["doc"] * 100) + '"""\n'
    short = "def f():\n" + doc + "".join(f"    x{i} = {i}\n" for i in range(MAX_BODY))
    assert long_functions(short) == {}
    long = short + "    def g():\n        return 1\n"
    assert long_functions(long) == {("<source>", "f"): MAX_BODY + 2}
    method = "class A:\n    def m(self):\n" + "".join(f"        y{i} = {i}\n" for i in range(MAX_BODY + 1))
    assert long_functions(method) == {("<source>", "A.m"): MAX_BODY + 1}
