"""Writing the report: --out is checked before any work, and the report appears whole or not at all (nothing half-written)."""

from __future__ import annotations

import errno
import json
import os

from blindspot.cli import main
from blindspot.report import analyze as analyze_mod, output


def _cases(tmp_path, score_file):
    a_file = tmp_path / "a_file.txt"
    a_file.write_text("x")
    return {
        "an existing file": (a_file, "is an existing file"),
        "a path under a file": (a_file / "report", "which is a file, not a folder"),
        "a nonexistent parent": (tmp_path / "no" / "such" / "dir", "does not exist; create it first"),
        "the input file itself": (score_file, "is an existing file|would overwrite the input file"),
        "a read-only place": ("/proc/blindspot-report", "cannot write in"),
    }


def test_bad_out_is_refused_before_the_analysis(tmp_path, score_file, capsys, no_analysis):
    for name, (out, message) in _cases(tmp_path, score_file).items():
        code = main(["analyze", str(score_file), "--out", str(out), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2, (name, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in err, (name, err)
        import re

        assert re.search(message, lines[0]), (name, lines[0])


def test_out_folder_holding_the_input_is_refused(tmp_path, score_file, capsys, no_analysis):
    target = tmp_path / "report.json"
    target.write_text(score_file.read_text())
    code = main(["analyze", str(target), "--out", str(tmp_path), "--quiet"])
    assert code == 2 and "would overwrite the input file" in capsys.readouterr().err


def _leftovers(parent):
    return sorted(p.name for p in parent.iterdir() if p.name.endswith(".partial"))


def test_full_disk_leaves_no_partial_report(tmp_path, score_file, capsys, monkeypatch):
    def html_cut_short(rep):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output, "to_html", html_cut_short)
    out = tmp_path / "rep"
    code = main(["analyze", str(score_file), "--out", str(out), "--n-boot", "20", "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "No space left on device" in err and "Traceback" not in err
    assert not out.exists() and _leftovers(tmp_path) == []


def test_full_disk_keeps_an_existing_report_whole(tmp_path, score_file, capsys, monkeypatch):
    out = tmp_path / "rep"
    assert main(["analyze", str(score_file), "--out", str(out), "--n-boot", "20", "--quiet"]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    monkeypatch.setattr(output, "to_html", lambda rep: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space")))
    assert main(["analyze", str(score_file), "--out", str(out), "--n-boot", "30", "--quiet"]) == 1
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert _leftovers(tmp_path) == []
    capsys.readouterr()


def test_interrupt_exits_130_with_one_line_and_no_files(tmp_path, score_file, capsys, monkeypatch):
    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(analyze_mod, "analyze_table", interrupted)
    out = tmp_path / "rep"
    code = main(["analyze", str(score_file), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 130 and err.strip() == "blindspot: interrupted; no report was written"
    assert not out.exists() and _leftovers(tmp_path) == []


def test_bad_input_after_out_check_leaves_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("model,a,b\nx,1,2\n")
    out = tmp_path / "rep"
    assert main(["analyze", str(bad), "--out", str(out), "--quiet"]) == 2
    assert not out.exists() and _leftovers(tmp_path) == []
    capsys.readouterr()


def test_report_files_appear_together(tmp_path, score_file, capsys):
    out = tmp_path / "rep"
    assert main(["analyze", str(score_file), "--out", str(out), "--n-boot", "20", "--quiet"]) == 0
    assert sorted(os.listdir(out)) == ["report.html", "report.json"]
    json.loads((out / "report.json").read_text())
    assert (out / "report.html").read_text().rstrip().endswith("</html>")
    assert _leftovers(tmp_path) == []
    capsys.readouterr()
