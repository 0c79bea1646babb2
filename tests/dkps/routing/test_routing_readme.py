"""The README's Routing example runs verbatim."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[3] / "support" / "dkps" / "README.md"


def test_routing_example_runs_verbatim():
    section = README.read_text().split("## Routing", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(code.strip().splitlines()) <= 6
    ns: dict = {}
    exec(compile(code, str(README), "exec"), ns)
    routes = ns["routes"]
    assert len(routes) == 4 and (routes.pick != "model_00").all()
    assert (routes.expected_deviation <= routes.distance + 1e-12).all()
