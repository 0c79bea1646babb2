"""Common file quirks get a message, or are read right with a note: Excel's ``sep=`` line, ``#`` comments,
gzip / xlsx / JSON / UTF-16 bytes behind a ``.csv`` name, a FIFO or a device, ``61.2 ± 0.3`` cells.

The property: where the loader can read the file, the table equals that of the clean file.
"""

from __future__ import annotations

import gzip
import io
import os
import zipfile

import numpy as np
import pandas as pd
import pytest

from blindspot.data import load_scores
from blindspot.data.score_files import read_score_file


def _clean(n: int = 30, k: int = 4, seed: int = 6) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((n, 1))
    S = (50 + 12 * (0.8 * g + 0.6 * rng.standard_normal((n, k)))).round(1)
    df = pd.DataFrame(S, columns=[f"bench_{j + 1}" for j in range(k)])
    df.insert(0, "model", [f"model-{i:03d}" for i in range(n)])
    return df


def _csv(df: pd.DataFrame, sep: str = ",") -> str:
    return df.to_csv(index=False, sep=sep)


@pytest.fixture
def reference(tmp_path):
    p = tmp_path / "clean.csv"
    p.write_text(_csv(_clean()))
    return load_scores(p)


def _same(t, ref):
    pd.testing.assert_frame_equal(t.scores, ref.scores)


@pytest.mark.parametrize("sep", [";", ",", "\t"])
def test_excel_sep_line_names_the_separator(tmp_path, reference, sep):
    p = tmp_path / "s.csv"
    p.write_text(f"sep={sep}\n" + _csv(_clean(), sep))
    t = load_scores(p)
    _same(t, reference)
    assert any("sep=" in n for n in t.notes), t.notes


def test_comment_lines_are_skipped_with_a_note(tmp_path, reference):
    body = _csv(_clean()).splitlines()
    lines = [
        "# exported from the leaderboard on 2024-05-01",
        "#columns: model, scores",
        *body[:5],
        "# a note",
        *body[5:],
    ]
    p = tmp_path / "s.csv"
    p.write_text("\n".join(lines) + "\n")
    t = load_scores(p)
    _same(t, reference)
    assert any("3 comment line(s)" in n and "1, 2, 8" in n for n in t.notes), t.notes


def test_a_header_cell_named_hash_is_not_a_comment(tmp_path, reference):
    d = _clean()
    d.insert(0, "#", np.arange(1, len(d) + 1))
    p = tmp_path / "s.csv"
    p.write_text(_csv(d))
    _same(load_scores(p), reference)


def test_gzip_behind_a_csv_name_is_refused_by_name(tmp_path, reference):
    p = tmp_path / "s.csv"
    p.write_bytes(gzip.compress(_csv(_clean()).encode()))
    with pytest.raises(ValueError, match=r"gzip data.*s\.csv\.gz.*unpack") as e:
        read_score_file(p)
    assert "delimiter" not in str(e.value)
    q = tmp_path / "s.csv.gz"  # named as what it is, it is read
    q.write_bytes(p.read_bytes())
    _same(load_scores(q), reference)


def test_xlsx_behind_a_csv_name_is_refused_by_name(tmp_path):
    p = tmp_path / "s.csv"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:  # the layout of an .xlsx: a zip with xl/ parts
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/workbook.xml", "<workbook/>")
    p.write_bytes(buf.getvalue())
    with pytest.raises(ValueError, match=r"Excel workbook \(\.xlsx\).*save the sheet as CSV"):
        read_score_file(p)


def test_json_behind_a_csv_name_is_read_as_json(tmp_path, reference):
    p = tmp_path / "s.csv"
    p.write_text(_clean().to_json(orient="records"))
    t = load_scores(p)
    _same(t, reference)
    assert any("holds JSON" in n for n in t.notes), t.notes


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le"])
def test_utf16_text_is_decoded(tmp_path, reference, encoding):
    p = tmp_path / "s.csv"
    p.write_bytes(_csv(_clean()).encode(encoding))  # Excel's "Unicode text" export; with or without a BOM
    t = load_scores(p)
    _same(t, reference)
    assert any("UTF-16" in n for n in t.notes), t.notes


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_fifo_is_refused_as_not_a_regular_file(tmp_path):
    p = tmp_path / "pipe.csv"
    os.mkfifo(p)
    with pytest.raises(ValueError, match="not a regular file.*FIFO"):
        read_score_file(p)  # without blocking on open


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_device_is_refused_as_not_a_regular_file():
    with pytest.raises(ValueError, match="not a regular file.*device"):
        read_score_file("/dev/null")


@pytest.mark.parametrize("pm", [" ± ", " +/- ", "±"])
def test_plus_minus_cells_are_parsed_and_the_uncertainty_kept(tmp_path, reference, pm):
    d = _clean()
    err = np.round(np.linspace(0.1, 0.9, len(d)), 1)
    d["bench_2"] = [f"{v}{pm}{e}" for v, e in zip(d["bench_2"], err)]
    p = tmp_path / "s.csv"
    p.write_text(_csv(d))
    t = load_scores(p)
    _same(t, reference)
    np.testing.assert_allclose(t.meta["bench_2 ±"].to_numpy(), err)
    assert any("bench_2" in n and "uncertainty" in n for n in t.notes), t.notes
