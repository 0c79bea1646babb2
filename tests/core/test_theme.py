"""blindspot.core.theme: how numbers and tables print on a page."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from blindspot.core.theme import MISSING, format_number, frame_html


@pytest.mark.parametrize(
    "value, text",
    [
        (0.9107349733, "0.9107"),
        (1.8830798891, "1.883"),
        (123.0645, "123.1"),
        (3987.47, "3987"),
        (13416.4, "13,416"),
        (24737.0, "24,737"),
        (7.0, "7"),
        (-2.0, "-2"),
        (0.0, "0"),
        (0.0165481272, "0.01655"),
        (4.44e-16, "4.44e-16"),
        (1.0e7, "1e7"),
        (9999.5, "10,000"),
        (np.float32(0.5), "0.5"),
        (np.int64(135168), "135,168"),
        (2024, "2024"),
        (float("nan"), MISSING),
        (None, MISSING),
        (pd.NA, MISSING),
        (True, "True"),
        ("robust", "robust"),
    ],
)
def test_format_number(value, text):
    assert format_number(value) == text


def test_format_number_keeps_four_significant_figures():
    rng = np.random.default_rng(0)
    for v in rng.lognormal(0, 3, 200):
        text = format_number(v)
        if 1e-3 <= v < 1e4 and not float(text.replace(",", "")).is_integer():
            assert len(text.replace(".", "").replace("-", "").lstrip("0")) <= 4
            assert abs(float(text) - v) <= 5e-4 * abs(v) + 1e-12  # within half a unit of the 4th figure


def test_a_data_table_prints_short_numbers_and_a_dash_in_its_own_box():
    frame = pd.DataFrame({"x": [1.234567, np.nan, 24737.0], "label": ["a", None, "c" * 80]}, index=["r1", "r2", "r3"])
    html = frame_html(frame)
    assert html.startswith('<div class="bs-scroll">') and html.endswith("</div>")
    assert "<td>1.235</td>" in html and "<td>24,737</td>" in html
    assert html.count(f"<td>{MISSING}</td>") == 2 and "NaN" not in html and "None" not in html
    assert "c" * 80 in html  # a long cell is wrapped by the page, never cut
