"""The README's offloading example runs verbatim."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[3] / "support" / "dkps" / "README.md"


def test_offloading_example_runs_verbatim():
    section = README.read_text().split("### Offloading under a contract", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) == 5
    ns: dict = {}
    exec(compile(code, str(README), "exec"), ns)
    gates = ns["gates"]
    assert set(gates.method) >= {"qa", "static", "random", "pd-cal", "pairdev"}
    const = gates[gates.method.isin(["static", "random"])]
    assert not const.can_select.any()
    ok = gates[gates.feasible]
    assert ((ok.volume >= 0) & (ok.volume <= 1)).all()
    assert ns["dec"].flagships == {0: "model_00"}
