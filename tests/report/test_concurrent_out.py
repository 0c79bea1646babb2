"""Two runs writing the same ``--out`` at once: both files or neither, and both from one run.

Two processes stage a report each and commit into one folder at the same moment, the renames slowed down so
that they would interleave; ``report.html`` and ``report.json`` must come from the same run after every round
(before the lock, one round in a few left the HTML of one run beside the JSON of the other).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import sys
import time

import pytest

from blindspot.report import output
from blindspot.report.report_data import ReportData

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock and fork are POSIX")


def _commit_one(out: str, run: str, start: float, delay: float) -> None:
    """A child: stage a report named ``run``, wait for the common start, commit with slowed renames."""
    real_move = output._move

    def slow_move(src, dst, done):
        real_move(src, dst, done)
        time.sleep(0.05)

    output._move = slow_move
    output.to_html = lambda rep: f"<html>{rep.source}</html>"  # the page of this run, cheaply
    staged = output.stage_output(out)
    staged.write(ReportData(run, {"run": run}))
    time.sleep(max(0.0, start - time.time()) + delay)
    staged.commit()


@pytest.mark.parametrize("round_", range(2))
def test_two_runs_into_one_out_leave_one_runs_pair(tmp_path, round_):
    out = tmp_path / "report"
    # a first report in place, so that both runs replace files (the path where their renames could interleave)
    first = output.stage_output(out)
    first.write(ReportData("first", {}))
    first.commit()
    ctx = multiprocessing.get_context("fork")
    start = time.time() + 0.3
    procs = [
        ctx.Process(target=_commit_one, args=(str(out), run, start, 0.025 * i)) for i, run in enumerate(("A", "B"))
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    html = (out / "report.html").read_text()
    source = json.loads((out / "report.json").read_text())["source"]
    assert source in ("A", "B")
    assert html == f"<html>{source}</html>", f"report.html of one run beside report.json of {source}"
    assert sorted(os.listdir(out)) == ["report.html", "report.json"]  # no staging folder left
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".partial")]
