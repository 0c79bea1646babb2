"""``--out`` is safe: nothing of the user's is overwritten, and the report is both files or neither.

``--out`` is compared with the input by the file itself (symbolic links either side, ``..`` through a
linked folder, hard links, a case-folding file system), refused in one line before any work; a report
file that is a folder or read-only is never replaced; a rename that fails halfway is undone; new
folders follow the umask; SIGINT and SIGTERM leave no staging folder.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from blindspot.cli import main
from blindspot.report import analyze as analyze_mod, output

ROOT = Path(__file__).resolve().parents[2]


def _signals_as_at_a_terminal() -> None:
    """A job started in the background inherits SIGINT ignored (and keeps it so): give the child the default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(scope="module")
def a_report(tmp_path_factory):
    """One real report (analysed once), handed out instead of analysing again in the write tests."""
    from blindspot.data.suites import synthetic_suite

    t = synthetic_suite(n_models=30, n_benchmarks=4, seed=5)
    return analyze_mod.analyze_table(t, n_boot=20)


@pytest.fixture
def quick_analysis(monkeypatch, a_report):
    monkeypatch.setattr(analyze_mod, "analyze_table", lambda *a, **k: a_report)


def _refused(capsys, argv, needle):
    code = main([*argv, "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert needle in err, err
    return err


def _leftovers(*folders):
    return sorted(p.name for f in folders if f.is_dir() for p in f.iterdir() if p.name.endswith(".partial"))


# --- item 2: the input is never a target ----------------------------------------------------------


def test_input_reached_through_a_symlink_is_not_overwritten(tmp_path, score_file, capsys, no_analysis):
    out = tmp_path / "out"
    out.mkdir()
    data = out / "report.json"
    data.write_bytes(score_file.read_bytes())
    link = tmp_path / "my_scores.csv"
    link.symlink_to(data)  # the user's file, through a link: --out/report.json *is* the data
    _refused(capsys, ["analyze", str(link), "--out", str(out)], "would overwrite the input file")
    assert data.read_bytes() == score_file.read_bytes()


def test_out_as_a_symlink_to_the_inputs_folder_is_refused(tmp_path, score_file, capsys, no_analysis):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    data = data_dir / "report.html"
    data.write_bytes(score_file.read_bytes())
    out = tmp_path / "out_link"
    out.symlink_to(data_dir, target_is_directory=True)
    _refused(capsys, ["analyze", str(data), "--out", str(out)], "would overwrite the input file")


def test_dotdot_through_a_linked_folder_is_resolved(tmp_path, score_file, capsys, no_analysis):
    real = tmp_path / "data"
    (real / "sub").mkdir(parents=True)
    data = real / "report.json"
    data.write_bytes(score_file.read_bytes())
    (tmp_path / "lnk").symlink_to(real / "sub", target_is_directory=True)
    out = f"{tmp_path}/lnk/.."  # names tmp_path textually, but is data/ on disk
    _refused(capsys, ["analyze", str(data), "--out", out], "would overwrite the input file")


def test_a_hard_link_to_the_input_is_the_input(tmp_path, score_file, capsys, no_analysis):
    out = tmp_path / "out"
    out.mkdir()
    os.link(score_file, out / "report.json")
    _refused(capsys, ["analyze", str(score_file), "--out", str(out)], "would overwrite the input file")


def _case_folding(monkeypatch, root: Path):
    """Make os.stat/os.lstat under ``root`` look names up without case, as on macOS' or Windows' file systems."""
    real_stat, real_lstat = os.stat, os.lstat

    def exists(p):
        try:
            real_lstat(p)
        except OSError:
            return False
        return True

    def fold(path):
        p = Path(os.fsdecode(path)) if not isinstance(path, int) else None
        if p is None or root not in p.parents or exists(p):
            return path
        cur = Path(p.anchor)
        for part in p.parts[1:]:
            try:
                match = next(n for n in os.listdir(cur) if n.lower() == part.lower())
            except (StopIteration, OSError):
                return path
            cur = cur / match
        return os.fspath(cur)

    monkeypatch.setattr(os, "stat", lambda p, *a, **k: real_stat(fold(p), *a, **k))
    monkeypatch.setattr(os, "lstat", lambda p, *a, **k: real_lstat(fold(p), *a, **k))


def test_a_name_that_differs_in_case_on_a_case_folding_file_system(tmp_path, score_file, capsys, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    data = out / "Report.JSON"  # on a case-folding disk this is the file report.json names
    data.write_bytes(score_file.read_bytes())
    monkeypatch.setattr(analyze_mod, "prepare", lambda *a, **k: pytest.fail("analysis started"))
    _case_folding(monkeypatch, tmp_path)
    assert os.path.samefile(out / "report.json", data)  # the simulation holds
    _refused(capsys, ["analyze", str(data), "--out", str(out)], "would overwrite the input file")


def test_a_dangling_symlink_as_out_is_refused_before_the_work(tmp_path, score_file, capsys, no_analysis):
    out = tmp_path / "gone"
    out.symlink_to(tmp_path / "nowhere")
    _refused(capsys, ["analyze", str(score_file), "--out", str(out)], "which does not exist")
    assert out.is_symlink() and _leftovers(tmp_path) == []


# --- item 3: both files or neither -------------------------------------------------------------


def _old_report(out: Path) -> dict[str, bytes]:
    out.mkdir(exist_ok=True)
    (out / "report.json").write_text('{"old": true}')
    (out / "report.html").write_text("<html>old</html>")
    return {p.name: p.read_bytes() for p in out.iterdir()}


def test_report_html_that_is_a_folder_keeps_the_old_json(tmp_path, score_file, capsys, quick_analysis):
    out = tmp_path / "rep"
    out.mkdir()
    (out / "report.json").write_text('{"old": true}')
    (out / "report.html").mkdir()
    err = _refused(capsys, ["analyze", str(score_file), "--out", str(out)], "report.html there is a folder")
    assert "nothing was written" in err
    assert (out / "report.json").read_text() == '{"old": true}' and (out / "report.html").is_dir()
    assert _leftovers(tmp_path, out) == []


def test_a_read_only_report_file_is_not_replaced(tmp_path, score_file, capsys, quick_analysis):
    out = tmp_path / "rep"
    before = _old_report(out)
    os.chmod(out / "report.html", 0o444)
    _refused(capsys, ["analyze", str(score_file), "--out", str(out)], "report.html there is read-only")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_rename_failing_halfway_is_undone(tmp_path, score_file, capsys, monkeypatch, quick_analysis):
    """The second new file cannot be put in place: the first is taken back and the old pair restored."""
    out = tmp_path / "rep"
    before = _old_report(out)
    moved_in = []

    def failing_second(real):
        def move(src, dst, *a, **k):
            if ".partial" in str(src) and Path(dst).parent == out:  # a file moved from staging into --out
                moved_in.append(dst)
                if len(moved_in) == 2:
                    raise OSError(errno.EIO, "Input/output error", str(dst))
            return real(src, dst, *a, **k)

        return move

    monkeypatch.setattr(os, "rename", failing_second(os.rename))
    monkeypatch.setattr(os, "replace", failing_second(os.replace))
    code = main(["analyze", str(score_file), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "Input/output error" in err and "left as they were" in err, err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert _leftovers(tmp_path, out) == []


def test_a_full_disk_on_the_second_file_replaces_neither(tmp_path, score_file, capsys, monkeypatch, quick_analysis):
    out = tmp_path / "rep"
    before = _old_report(out)
    real_write = Path.write_text

    def full_on_html(self, text, *a, **k):
        if self.name == "report.html":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, text, *a, **k)

    monkeypatch.setattr(Path, "write_text", full_on_html)
    code = main(["analyze", str(score_file), "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 1 and "No space left on device" in err and "left as they were" in err, err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert _leftovers(tmp_path, out) == []


def test_new_folders_and_files_follow_the_umask(tmp_path, score_file, capsys, quick_analysis):
    old = os.umask(0o027)
    try:
        out = tmp_path / "rep"
        assert main(["analyze", str(score_file), "--out", str(out), "--quiet"]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o750
    assert {stat.S_IMODE((out / n).stat().st_mode) for n in output.REPORT_FILES} == {0o640}
    capsys.readouterr()


def test_the_staging_folder_of_an_existing_out_is_inside_it(tmp_path, score_file, capsys, monkeypatch, quick_analysis):
    """The staging folder goes inside an existing --out, so its parent need not be writable (nor on its disk)."""
    out = tmp_path / "rep"
    _old_report(out)
    staged = []
    real = output._make_staging
    monkeypatch.setattr(output, "_make_staging", lambda where, stem: staged.append(where) or real(where, stem))
    assert main(["analyze", str(score_file), "--out", str(out), "--quiet"]) == 0
    assert staged == [out] and (out / "report.json").read_text() != '{"old": true}'
    capsys.readouterr()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_during_the_work_leaves_no_staging_folder(tmp_path, score_file, sig):
    out = tmp_path / "rep"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "support")}
    cmd = [
        sys.executable,
        "-m",
        "blindspot",
        "analyze",
        str(score_file),
        "--out",
        str(out),
        "--n-boot",
        "100000",
        "--quiet",
    ]
    proc = subprocess.Popen(
        cmd,
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_signals_as_at_a_terminal,
    )
    deadline = time.monotonic() + 120
    while not _leftovers(tmp_path) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _leftovers(tmp_path), "the staging folder never appeared"
    time.sleep(0.5)  # inside the analysis
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + sig, err
    assert err.strip().count("\n") == 0 and "Traceback" not in err and "no report was written" in err, err
    assert _leftovers(tmp_path) == [] and not out.exists()


def test_run_staged_turns_every_stop_into_one_line_and_no_staging_folder(tmp_path, capsys):
    """The one write path of analyze, survey and compare: each failure discards the staging folder, prints
    one line ending in what was not written, and gives its exit status; success puts both files in place."""

    class Stop(KeyboardInterrupt):
        exit_status, what = 143, "stopped by SIGTERM"

    def raising(exc):
        def compute():
            raise exc

        return compute

    texts = lambda _: {"report.html": "<p>x</p>", "report.json": "{}"}  # noqa: E731
    cases = {
        "write": (output.WriteError("could not write report.html (disk full)"), 1, "disk full"),
        "signal": (Stop(), 143, "stopped by SIGTERM; nothing written"),
        "memory": (MemoryError(), 1, "ran out of memory; nothing written"),
        "os": (OSError(errno.ENOENT, "No such file or directory"), 1, "No such file or directory; nothing written"),
    }
    for name, (exc, status, said) in cases.items():
        out = tmp_path / name
        staged = output.stage_output(out)
        got = output.run_staged(staged, raising(exc), texts, "nothing written")
        err = capsys.readouterr().err
        assert got == (status, None, ()), name
        assert err.count("\n") == 1 and said in err, (name, err)
        assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")], name
    with pytest.raises(ZeroDivisionError):  # anything else is the caller's (bad input: one line, exit 2)
        output.run_staged(output.stage_output(tmp_path / "bad"), raising(ZeroDivisionError()), texts, "x")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
    status, result, written = output.run_staged(output.stage_output(tmp_path / "ok"), lambda: 7, texts, "x")
    assert (status, result) == (0, 7) and sorted(p.name for p in written) == ["report.html", "report.json"]
    assert (tmp_path / "ok" / "report.json").read_text() == "{}"
    assert output.run_staged(None, lambda: 3, texts, "x") == (0, 3, ())
