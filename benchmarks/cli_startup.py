"""Start-up of the command: `blindspot --help` and `blindspot analyze --help`, before vs after lazy imports.

Run: .venv/bin/python benchmarks/cli_startup.py [--repeats 5] [--before de5b05d]

Each run is a separate ``python -m blindspot ARGS`` process (wall time from start to exit, the
interpreter's own start-up included), after one warm-up run that is not counted. "Before" runs the
package as it was at ``--before`` (default: de5b05d, the last commit before the parser was built
without the numerics), extracted with ``git archive`` into a temporary folder; "after" runs this
checkout. The table gives min / median / max over ``--repeats`` runs; quote the median (the
machine may be shared: the load average is printed beside it).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = (["--help"], ["analyze", "--help"])


def _times(support: Path, args: list[str], repeats: int) -> list[float]:
    env = {**os.environ, "PYTHONPATH": str(support)}
    cmd = [sys.executable, "-m", "blindspot", *args]
    subprocess.run(cmd, env=env, capture_output=True, check=True)  # warm-up: .pyc files, the disk cache
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, capture_output=True, check=True)
        out.append(time.perf_counter() - t0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--before", default="de5b05d", help="commit to compare with (default de5b05d)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "archive", a.before, "support"], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        rows = []
        for args in COMMANDS:
            for label, support in (("before", Path(tmp) / "support"), ("after", ROOT / "support")):
                t = _times(support, args, a.repeats)
                rows.append((f"blindspot {' '.join(args)}", label, min(t), statistics.median(t), max(t)))
    print(f"load average {os.getloadavg()[0]:.2f}; {a.repeats} runs each, wall seconds")
    print(f"{'command':<26} {'':<7} {'min':>6} {'median':>7} {'max':>6}")
    for cmd, label, lo, med, hi in rows:
        print(f"{cmd:<26} {label:<7} {lo:6.2f} {med:7.2f} {hi:6.2f}")


if __name__ == "__main__":
    main()
