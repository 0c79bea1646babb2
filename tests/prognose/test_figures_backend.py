"""blindspot.prognose.figures keeps pyplot headless, so a glued figure is not also shown as a cell output."""

from __future__ import annotations

import os
import subprocess
import sys


def test_importing_the_figures_switches_an_inline_backend_to_agg():
    """In a kernel pyplot starts on matplotlib-inline's backend, which flushes every open figure at the end of a
    cell: a figure glued with display=False then appeared twice on the page (once as output, once glued)."""
    code = (
        "import matplotlib; matplotlib.use('module://matplotlib_inline.backend_inline'); "
        "import matplotlib.pyplot; import blindspot.prognose.figures; print(matplotlib.get_backend())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ, check=True)
    assert out.stdout.strip().lower() == "agg"
