"""Every ``blindspot`` module has a test module of its name, or a row in CONTRIBUTING.md saying where it is tested."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "support" / "blindspot"
SECTION = "## Tests: one test module per module, or where it is tested"


def _modules() -> list[str]:
    """Each module of blindspot as its path under support/blindspot (no ``__init__``, no ``__main__``)."""
    return sorted(
        p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if p.stem not in ("__init__", "__main__")
    )


def _has_own_tests(module: str, test_names: set[str]) -> bool:
    path = Path(module)
    package = path.parts[0] if len(path.parts) > 1 else ""
    return bool({f"test_{path.stem}", f"test_{package}_{path.stem}"} & test_names)


def _rows(text: str | None = None) -> dict[str, list[str]]:
    """CONTRIBUTING's table (or ``text``'s): module -> the test files named for it."""
    text = (ROOT / "CONTRIBUTING.md").read_text() if text is None else text
    assert SECTION in text, f"CONTRIBUTING.md has no section {SECTION!r}"
    body = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in body.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`") and cells[0].endswith(".py`"):
            rows[cells[0].strip("`")] = re.findall(r"`(tests/[^`]+\.py)`", cells[1])
    return rows


def test_every_module_is_tested_under_its_name_or_says_where():
    test_names = {p.stem for p in (ROOT / "tests").rglob("test_*.py")}
    rows = _rows()
    missing = [m for m in _modules() if not _has_own_tests(m, test_names) and m not in rows]
    assert not missing, (
        f"modules with no test module of their name and no row in CONTRIBUTING.md's table: {missing}; "
        "add tests/<package>/test_<name>.py, or a row saying which test module holds the behaviour"
    )


def test_every_row_names_a_module_and_test_files_that_exist():
    rows = _rows()
    assert rows, "CONTRIBUTING.md's table of modules tested elsewhere is empty or unreadable"
    gone = [m for m in rows if not (PACKAGE / m).is_file()]
    assert not gone, f"CONTRIBUTING.md lists modules that do not exist: {gone}"
    no_tests = {m: t for m, t in rows.items() if not t or not all((ROOT / f).is_file() for f in t)}
    assert not no_tests, f"CONTRIBUTING.md names test files that do not exist (or none): {no_tests}"


def test_the_table_is_read_row_by_row_up_to_the_next_section():
    text = (
        f"{SECTION}\n\nprose | with a bar\n\n| module | tested in | why |\n|---|---|---|\n"
        "| `report/x.py` | `tests/report/test_a.py`, `tests/report/test_b.py` | why |\n"
        "| `core/y.py` | `tests/core/test_c.py` | why |\n\n## Next\n\n| `z.py` | `tests/test_z.py` | after |\n"
    )
    assert _rows(text) == {
        "report/x.py": ["tests/report/test_a.py", "tests/report/test_b.py"],
        "core/y.py": ["tests/core/test_c.py"],
    }
