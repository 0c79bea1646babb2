"""`blindspot book --data` checks the file with the chapter's loader before building anything."""

from __future__ import annotations

from blindspot.cli import main


def test_book_data_precheck_is_one_line_and_builds_nothing(tmp_path, capsys):
    """Item 10: `blindspot book --data` with a bad file: one error line, exit 2, no build started."""
    bad = tmp_path / "bad.csv"
    bad.write_text("model,b1,b1\na,1,2\nb,2,3\nc,3,1\n")
    out = tmp_path / "book"
    code = main(["book", "--data", str(bad), "--out", str(out), "--no-html"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    errors = [ln for ln in err.strip().splitlines() if ln.startswith("blindspot:")]
    assert len(errors) == 1 and "column header 'b1' appears more than once" in errors[0]
    assert not out.exists()
