"""Reading a score file into a raw frame: formats, delimiters, JSON shapes, indexes, headers.

:func:`read_score_file` turns a ``.csv``/``.tsv``/``.txt``, ``.parquet``, ``.json`` or
``.jsonl`` file into a pandas DataFrame (one row per model, as written) plus notes saying what
was inferred. Every failure is a one-line ``ValueError`` that names the problem, never a parser
traceback:

* **delimiters**: the separator is inferred from the first lines (a ``.csv`` that is really
  tab- or semicolon-separated is read as such, with a note); semicolon files with decimal commas
  (``61,2``) are read with ``decimal=','``; rows whose field counts disagree name the line;
* **headers**: a column name used twice is refused (pandas would rename the second ``b1.1``
  and count it as another benchmark);
* **missing-value words** are *not* applied to the model column: a model called ``NA`` or
  ``None`` keeps its name (score columns treat those words as empty cells later, in
  :mod:`blindspot.data.columns`);
* **JSON shapes**: a list of records, ``{column: [values]}``, ``{model: {benchmark: score}}``,
  pandas' ``to_json`` (``{column: {row: value}}``, and the ``split`` / ``table`` / ``index``
  orients); a key used twice in one object is refused;
* **parquet**: model names stored as the frame's index become a column;
* **file quirks**: Excel's ``sep=;`` first line names the separator; lines starting with ``#``
  are comments, skipped with a note; the bytes are looked at before the name: UTF-16 text is
  decoded, JSON or parquet behind a ``.csv`` name is read as what it is (with a note), gzip data
  is read when the name ends in ``.gz`` (``scores.csv.gz``) and otherwise refused by name, like an
  Excel workbook or a zip archive; a FIFO, a device or a socket is refused as not a regular file.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import stat
import sys
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from blindspot.data import lm_eval_results
from blindspot.data.columns import MODEL_COLUMN_NAMES, name_list
from blindspot.data.format_options import LEVEL
from blindspot.data.identity import json_number
from blindspot.data.raw_frame import RawFrame

__all__ = ["RawFrame", "read_score_file", "detect", "read", "EXTENSIONS", "MODEL_COLUMN_NAMES"]

#: File extension -> how the file is read.
EXTENSIONS = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".json": "json",
    ".jsonl": "jsonl",
}

#: From this size on, reading a delimited file shows a progress bar (when asked to).
PROGRESS_BYTES = 16 << 20

_SEPARATORS = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "vertical bars"}
_EXCEL_SEP = re.compile(r'^\s*"?sep=(.)"?\s*$', re.IGNORECASE)
_DEC_COMMA_CELL = re.compile(r"^\s*[+-]?\d+,\d+\s*%?\s*$")
_DOT_CELL = re.compile(r"^\s*[+-]?\d*\.\d+\s*%?\s*$")


@dataclass(frozen=True)
class _Text:
    """How to read a delimited file's text: its encoding, whether it is gzip, and what to skip."""

    encoding: str = "utf-8-sig"
    gzip: bool = False
    sep: str | None = None  # named by an Excel 'sep=' first line
    skip: tuple[int, ...] = ()  # 0-based line numbers to leave out (the 'sep=' line, comments)


def _open_text(path: Path, how: _Text, errors: str = "strict"):
    if how.gzip:
        return gzip.open(path, "rt", encoding=how.encoding, errors=errors, newline="")
    return open(path, encoding=how.encoding, errors=errors, newline="")


def _is_comment(line: str) -> bool:
    """A line starting with '#' that is not a header or data row whose first cell is '#' ('#,model,...')."""
    s = line.lstrip()
    return s.startswith("#") and (len(s) == 1 or s[1] not in ',;\t|"')


def _layout(path: Path, how: _Text) -> _Text:
    """The 'sep=' line and the comment lines of the file's first megabyte, as lines to skip."""
    with _open_text(path, how, errors="replace") as fh:
        head = fh.read(1 << 20)
    lines = head.splitlines()
    sep, skip = None, []
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is not None and (m := _EXCEL_SEP.match(lines[first])):
        sep = "\t" if m.group(1) == "\t" else m.group(1)
        skip.append(first)
    skip += [i for i, ln in enumerate(lines) if i not in skip and _is_comment(ln)]
    return _Text(how.encoding, how.gzip, sep, tuple(skip))


def _sample_lines(path: Path, how: _Text = _Text(), n: int = 200) -> list[str]:
    with _open_text(path, how, errors="replace") as fh:
        text = fh.read(1 << 20)
    skip = set(how.skip)
    lines = [ln for i, ln in enumerate(text.splitlines()) if ln.strip() and i not in skip]
    if len(text) >= 1 << 20 and lines:
        lines = lines[:-1]  # the last line may be cut
    return lines[:n]


def _field_counts(lines: Sequence[str], sep: str) -> list[int]:
    try:
        return [len(r) for r in csv.reader(io.StringIO("\n".join(lines)), delimiter=sep)]
    except csv.Error:
        return []


def _choose_separator(lines: Sequence[str], expected: str) -> str:
    """The separator that splits every sampled line into the same number (> 1) of fields.

    The extension's separator wins whenever it works; otherwise the consistent one with the most
    fields. When none is consistent, the extension's separator (pandas then names the bad line).
    """
    counts = {s: _field_counts(lines, s) for s in _SEPARATORS}
    ok = {s: c[0] for s, c in counts.items() if c and c[0] > 1 and len(set(c)) == 1}
    if expected in ok:
        return expected
    if ok:
        return max(ok, key=lambda s: ok[s])
    # no consistent separator: prefer one that at least splits the header
    header = {s: c[0] for s, c in counts.items() if c and c[0] > 1}
    if expected in header or not header:
        return expected
    return max(header, key=lambda s: header[s])


def _duplicate_header(names: Sequence[str], where: str) -> None:
    seen: dict[str, int] = {}
    for i, raw in enumerate(names):
        name = str(raw).strip()
        if name == "":
            continue
        if name in seen:
            raise ValueError(
                f"{where}: column header {name!r} appears more than once (columns {seen[name] + 1} and {i + 1}); "
                f"give each column a unique name"
            )
        seen[name] = i


def _read_delimited(path: Path, expected: str, how: _Text = _Text(), progress: bool = False) -> RawFrame:
    how = _layout(path, how)
    lines = _sample_lines(path, how)
    if not lines:
        raise ValueError(f"score file {str(path)!r} has no rows or no columns")
    notes: list[str] = []
    if how.sep is not None:
        sep = how.sep
        notes.append(f"the first line 'sep={sep}' (Excel's) names the separator: read the file with it")
    else:
        sep = _choose_separator(lines, expected)
    comments = [i + 1 for i in how.skip if how.sep is None or i != how.skip[0]]
    if comments:
        shown = ", ".join(map(str, comments[:8])) + (", ..." if len(comments) > 8 else "")
        notes.append(f"skipped {len(comments)} comment line(s) starting with '#' (line {shown})")
    header = next(csv.reader(io.StringIO(lines[0]), delimiter=sep))
    _duplicate_header(header, f"score file {str(path)!r}")
    counts = _field_counts(lines, sep)
    longer = [i for i, c in enumerate(counts) if c > len(header)]
    if longer:  # pandas would silently turn the first column into the index
        i = longer[0]
        raise ValueError(
            f"score file {str(path)!r}: line {i + 1} has {counts[i]} fields where the header has {len(header)} "
            f"(separated by {_SEPARATORS.get(sep, repr(sep))}): a delimiter problem, e.g. decimal commas or unquoted "
            f"commas inside a cell; quote such cells or separate columns with ';' or tabs"
        )
    decimal = "."
    if sep != ",":
        cells = [c for row in csv.reader(io.StringIO("\n".join(lines[1:])), delimiter=sep) for c in row]
        n_comma = sum(bool(_DEC_COMMA_CELL.match(c)) for c in cells)
        n_dot = sum(bool(_DOT_CELL.match(c)) for c in cells)
        if n_comma > 0 and n_dot == 0:
            decimal = ","
    if sep != expected and how.sep is None:
        kind = {",": "comma", "\t": "tab"}.get(expected, repr(expected))
        notes.append(
            f"the file's extension says {kind}-separated, but its columns are separated by {_SEPARATORS[sep]}: "
            f"read it that way" + (" (with decimal commas, e.g. 61,2 = 61.2)" if decimal == "," else "")
        )
    elif decimal == ",":
        notes.append("numbers are written with decimal commas (61,2 = 61.2): read them that way")
    if how.skip:  # leave the 'sep=' and comment lines out of what pandas reads
        with _open_text(path, how) as fh:
            skip = set(how.skip)
            source = io.StringIO("".join(ln for i, ln in enumerate(fh) if i not in skip))
        read = dict(filepath_or_buffer=source)
    else:
        read = dict(filepath_or_buffer=path, encoding=how.encoding, compression="gzip" if how.gzip else None)
    bar = None
    if progress and not how.skip and path.stat().st_size >= PROGRESS_BYTES:  # a bar over the bytes pandas reads
        from tqdm import tqdm  # only for a large file

        fh = open(path, "rb")
        bar = tqdm.wrapattr(
            fh, "read", total=path.stat().st_size, desc=f"reading {path.name}", file=sys.stderr, leave=False
        )
        read["filepath_or_buffer"] = bar.__enter__()
    try:
        df = pd.read_csv(**read, sep=sep, decimal=decimal, keep_default_na=False, na_values=[""])
    except pd.errors.ParserError as exc:
        m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(exc))
        if m:
            raise ValueError(
                f"score file {str(path)!r}: line {m.group(2)} has {m.group(3)} fields where the header has "
                f"{m.group(1)} (separated by {_SEPARATORS.get(sep, repr(sep))}): a delimiter problem, e.g. decimal "
                f"commas or unquoted commas inside a cell; quote such cells or separate columns with ';' or tabs"
            ) from exc
        raise ValueError(f"cannot read score file {str(path)!r}: ParserError: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"cannot read score file {str(path)!r}: it is not {'UTF-16' if '16' in how.encoding else 'UTF-8'} text "
            f"({exc.reason}); save it as UTF-8"
        ) from exc
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
            fh.close()
    if df.shape[1] == 1 and len(lines) > 1:
        notes.append(f"the file has a single column (no {_SEPARATORS.get(sep, repr(sep))} between values)")
    return RawFrame(df, tuple(notes))


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"key {k!r} appears more than once in one JSON object; give each column a unique name")
        out[k] = v
    return out


def _index_to_column(df: pd.DataFrame, what: str) -> tuple[pd.DataFrame, list[str]]:
    """Make the frame's index a column when it holds names (not 0..n-1 row numbers)."""
    idx = df.index
    if isinstance(idx, pd.RangeIndex) and idx.name is None:
        return df.reset_index(drop=True), []
    as_text = pd.Index([str(x) for x in idx])
    if idx.name is None and as_text.equals(pd.Index([str(i) for i in range(len(idx))])):
        return df.reset_index(drop=True), []
    lower = {str(c).strip().lower() for c in df.columns}
    name = idx.name if idx.name is not None else ("model" if not lower & set(MODEL_COLUMN_NAMES) else "index")
    if str(name) in {str(c) for c in df.columns}:
        name = f"{name} (index)"
    df = df.copy()
    df.index = pd.Index(list(idx), name=None)
    df.insert(0, str(name), list(idx))
    df = df.reset_index(drop=True)
    return df, [f"the {what} stores names in its index: read them as the column {str(name)!r}"]


def _nested_orientation(obj: dict) -> tuple[str, str | None]:
    """'columns' ({column: {row: value}}) or 'index' ({model: {benchmark: value}}), and a note when guessed."""
    outer = [str(k) for k in obj]
    inner: list[str] = list(dict.fromkeys(str(k) for v in obj.values() for k in v))
    known = {*MODEL_COLUMN_NAMES, "benchmark"}
    if inner and all(s.isdigit() for s in inner):
        return "columns", None  # pandas' default to_json of a frame with row numbers
    if any(s.strip().lower() in known for s in outer):
        return "columns", None
    if any(s.strip().lower() in known for s in inner):
        return "index", None
    if any(isinstance(x, str) for v in obj.values() for x in v.values()):
        # text values sit in a column of names: the outer keys holding text are columns
        return "columns", None
    if len(inner) > len(outer):
        return "columns", (
            f"read the JSON object {{key: {{key: score}}}} as {{benchmark: {{model: score}}}} ({len(outer)} benchmarks, "
            f"{len(inner)} models: the larger set is taken to be the models); if it is the other way round, "
            f"write it as a list of records"
        )
    return "index", (
        f"read the JSON object {{key: {{key: score}}}} as {{model: {{benchmark: score}}}} ({len(outer)} models, "
        f"{len(inner)} benchmarks); if it is the other way round, write it as a list of records"
    )


def _records(records: list[dict]) -> RawFrame:
    """A list of JSON objects as a frame: nested objects flattened into dotted columns (``scores.mmlu``), lists
    kept as their JSON text (never a cell pandas cannot hash), each said in a note."""
    nested = sorted({k for r in records for k, v in r.items() if isinstance(v, dict)})
    df = pd.json_normalize(records, sep=".") if nested else pd.DataFrame.from_records(records)
    notes = []
    if nested:
        made = [c for c in df.columns if any(c.startswith(f"{k}.") for k in nested)]
        notes.append(
            f"nested JSON object(s) {', '.join(map(repr, nested))} were flattened into columns "
            f"({', '.join(map(repr, made[:8]))}{', ...' if len(made) > 8 else ''})"
        )
    listed = [c for c in df.columns if df[c].map(lambda x: isinstance(x, (list, dict))).any()]
    for c in listed:
        df[c] = df[c].map(lambda x: json.dumps(x) if isinstance(x, (list, dict)) else x)
    if listed:
        notes.append(f"column(s) {', '.join(map(repr, listed))} hold JSON lists: kept as their text (metadata)")
    return RawFrame(df, tuple(notes))


def _read_json(path: Path, how: _Text = _Text()) -> RawFrame:
    """A JSON score file in any of its shapes; numbers written as strings (``"0.721"``) are noted (they are read as
    the values they spell by the table's one parse of each column)."""
    raw = _read_json_shape(path, how)
    texts = [
        str(c)
        for c in raw.frame.columns
        if raw.frame[c].map(lambda x: isinstance(x, str)).any()
        and all(json_number(x)[0] is not None for x in raw.frame[c] if isinstance(x, str) and x.strip())
        and not raw.frame[c].map(lambda x: isinstance(x, (int, float)) and not isinstance(x, bool)).all()
    ]
    if texts:
        note = f'JSON numbers written as strings ("0.721") read as the values they spell: {name_list(texts)}'
        return replace(raw, notes=(*raw.notes, note))
    return raw


def _read_json_shape(path: Path, how: _Text = _Text()) -> RawFrame:
    with _open_text(path, how) as fh:
        obj = json.load(fh, object_pairs_hook=_no_duplicate_keys)
    notes: list[str] = []
    if isinstance(obj, list):
        if not obj:
            raise ValueError(f"score file {str(path)!r} is an empty JSON list")
        if all(isinstance(r, dict) for r in obj):
            return _records(obj)
        raise ValueError(
            f"score file {str(path)!r} is a JSON list whose items are not objects; write one object per model, "
            f'e.g. [{{"model": "a", "bench1": 61.2}}, ...]'
        )
    if not isinstance(obj, dict) or not obj:
        raise ValueError(f"score file {str(path)!r} holds no JSON object or list of models")
    keys = set(obj)
    if {"columns", "data"} <= keys and keys <= {"columns", "data", "index"}:  # pandas orient='split'
        df = pd.DataFrame(obj["data"], columns=obj["columns"], index=obj.get("index"))
        _duplicate_header(df.columns, f"score file {str(path)!r}")
        df, more = _index_to_column(df, "JSON file")
        return RawFrame(df, tuple(more))
    if keys == {"schema", "data"} and isinstance(obj["data"], list):  # pandas orient='table'
        df = pd.DataFrame.from_records(obj["data"])
        return RawFrame(df, ())
    values = list(obj.values())
    if all(isinstance(v, list) for v in values):
        lengths = {len(v) for v in values}
        if len(lengths) != 1:
            raise ValueError(
                f"score file {str(path)!r}: the JSON columns have different lengths {sorted(lengths)}; every column "
                f"needs one value per model"
            )
        return RawFrame(pd.DataFrame(obj), ())
    if all(isinstance(v, dict) for v in values):
        orient, guess = _nested_orientation(obj)
        df = pd.DataFrame.from_dict(obj, orient=orient)
        if guess:
            notes.append(guess)
        df, more = _index_to_column(df, "JSON object")
        return RawFrame(df, tuple(notes + more))
    raise ValueError(
        f"score file {str(path)!r}: unsupported JSON shape (a mix of lists, objects and single values); use a list "
        f"of records, {{column: [values]}} or {{model: {{benchmark: score}}}}"
    )


def _sniff(path: Path, head: bytes) -> tuple[str | None, str | None, _Text]:
    """What the first bytes say the file is: (kind or None, a note, how to read its text).

    Raises ValueError for data that is no score file in any form this reader knows (an Excel workbook,
    a zip archive, gzip behind a name without ``.gz``, other binary data), naming what it is.
    """
    where = f"score file {str(path)!r}"
    gz = path.suffix.lower() == ".gz"
    if head.startswith(b"\x1f\x8b"):
        if gz:
            return None, None, _Text(gzip=True)
        raise ValueError(
            f"{where} holds gzip data, not text: name it {path.name}.gz (e.g. scores.csv.gz) to read it as it is, "
            f"or unpack it (gunzip)"
        )
    if gz:
        raise ValueError(f"{where} ends in .gz but is not gzip data; remove the .gz from its name")
    if head.startswith(b"PK\x03\x04"):
        try:
            with zipfile.ZipFile(path) as z:
                names = z.namelist()
        except zipfile.BadZipFile:
            names = []
        if any(n.startswith("xl/") for n in names):
            raise ValueError(
                f"{where} is an Excel workbook (.xlsx), not CSV text: save the sheet as CSV (File > Save As > CSV "
                f"UTF-8), or read it with pandas.read_excel and write it with to_csv"
            )
        raise ValueError(f"{where} is a zip archive, not a score file: unpack it and give the score file inside")
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        raise ValueError(f"{where} is an Excel 97-2003 workbook (.xls), not CSV text: save the sheet as CSV UTF-8")
    if head.startswith(b"PAR1"):
        return (
            "parquet",
            f"the file holds parquet data (not what its name {path.suffix!r} says): read it as parquet",
            _Text(),
        )
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, "the file is UTF-16 text: decoded as such", _Text(encoding="utf-16")
    for encoding, zeros in (("utf-16-le", head[1::2]), ("utf-16-be", head[0::2])):  # no BOM: ASCII has one 0 byte
        if len(head) >= 8 and zeros.count(0) >= 0.75 * len(zeros):
            return None, "the file is UTF-16 text: decoded as such", _Text(encoding=encoding)
    if b"\x00" in head:
        raise ValueError(f"{where} holds binary data, not text: give a CSV, TSV, parquet or JSON file")
    return None, None, _Text()


def _looks_like_json(path: Path, how: _Text) -> bool:
    with _open_text(path, how, errors="replace") as fh:
        start = fh.read(256).lstrip("\ufeff \t\r\n")
    return start.startswith(("{", "["))


def read_score_file(path: str | Path, progress: bool = False) -> RawFrame:
    """Read a score file into a raw frame and notes; ``ValueError`` (never a parser traceback) if it cannot be read.

    ``progress`` shows a bar over the bytes read for a delimited file of :data:`PROGRESS_BYTES` or more."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"score file {str(path)!r} does not exist")
    if path.is_dir():
        raise ValueError(f"score file {str(path)!r} is a directory, not a file")
    mode = path.stat().st_mode
    if not stat.S_ISREG(mode):
        what = "a FIFO (named pipe)" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        raise ValueError(
            f"score file {str(path)!r} is not a regular file but {what}: save the scores to a file and give its path"
        )
    if path.stat().st_size == 0:
        raise ValueError(f"score file {str(path)!r} is empty")
    suffixes = [x.lower() for x in path.suffixes[-2:]]
    suffix = suffixes[-2] if suffixes[-1:] == [".gz"] and len(suffixes) == 2 else path.suffix.lower()
    if suffix not in EXTENSIONS:
        raise ValueError(
            f"cannot read {str(path)!r}: unknown extension {suffix!r} (use .csv, .tsv, .parquet, .json or .jsonl, "
            f"or any of them with .gz)"
        )
    kind = EXTENSIONS[suffix]
    with open(path, "rb") as fh:
        head = fh.read(64)
    sniffed, note, how = _sniff(path, head)
    if how.gzip and kind == "parquet":
        raise ValueError(f"score file {str(path)!r}: parquet is compressed inside; remove the .gz and unpack it")
    if sniffed == kind:
        note = None  # a parquet file named .parquet
    elif sniffed is not None:
        kind = sniffed
    elif kind in ("csv", "tsv") and _looks_like_json(path, how):
        kind = "json"
        note = f"the file holds JSON, not what its name {suffix!r} says: read it as JSON"
    notes = (note,) if note else ()
    try:
        if kind in ("csv", "tsv"):
            raw = _read_delimited(path, "," if kind == "csv" else "\t", how, progress)
        elif kind == "parquet":
            df, more = _index_to_column(pd.read_parquet(path), "parquet file")
            raw = RawFrame(df, tuple(more))
        elif kind == "jsonl":
            with _open_text(path, how) as fh:
                rows = [json.loads(line) for line in fh if line.strip()]
            if not rows or not all(isinstance(r, dict) for r in rows):
                raise ValueError(f"score file {str(path)!r}: every line of a .jsonl file must be one JSON object")
            raw = _records(rows)
        else:
            raw = _read_json(path, how)
    except ValueError as exc:
        msg = " ".join(str(exc).split())
        if msg.startswith(("score file", "cannot read")):
            raise
        if msg.startswith("key "):
            raise ValueError(f"score file {str(path)!r}: {msg}") from exc
        raise ValueError(f"cannot read score file {str(path)!r}: {type(exc).__name__}: {msg}") from exc
    except Exception as exc:  # parser errors of pandas / pyarrow / json, all reported the same way
        msg = " ".join(str(exc).split())
        raise ValueError(f"cannot read score file {str(path)!r}: {type(exc).__name__}: {msg}") from exc
    df = raw.frame
    if df.shape[0] == 0 or df.shape[1] == 0:
        raise ValueError(f"score file {str(path)!r} has no rows or no columns")
    return RawFrame(df, notes + raw.notes)


def detect(paths: Sequence[Path]) -> bool:
    """One path that is not a folder: the score file reader takes any single file and says what is wrong with it."""
    return len(paths) == 1 and not paths[0].is_dir()


def _flat_model_column(frame: pd.DataFrame) -> str | None:
    """The model column of a flattened harness results table, when its runs do not name their model
    (``config.model_args``, ``model_name``): the first of :data:`MODEL_COLUMN_NAMES` among its own columns."""
    if {"config.model_args", "model_name"} & {str(c) for c in frame.columns}:
        return None
    lower = {str(c).strip().lower(): c for c in frame.columns if "." not in str(c)}
    return next((lower[n] for n in MODEL_COLUMN_NAMES if n in lower), None)


def _as_lm_eval_table(raw: RawFrame, path: Path, level: str | None) -> RawFrame | None:
    """A score file that is lm-evaluation-harness results flattened by ``pandas.json_normalize`` (one row per run,
    columns ``results.<task>.<metric,filter>``), read by the harness reader's rules
    (:func:`blindspot.data.lm_eval_results.frame_from_runs`: a group and its subtasks never both, one metric per
    task); None when it is no such table."""
    models_col = _flat_model_column(raw.frame)
    runs = lm_eval_results.runs_from_table(raw.frame, path, models_col)
    if runs is None:
        return None
    if models_col is None and not ({"config.model_args", "model_name"} & {str(c) for c in raw.frame.columns}):
        raise ValueError(
            f"score file {str(path)!r} holds lm-evaluation-harness results flattened into columns "
            f"(results.<task>.<metric>) but names no model: give it a config.model_args, model_name or model column"
        )
    what = f"{len(runs)} run(s), the rows of a table flattened by pandas.json_normalize"
    out = lm_eval_results.frame_from_runs(runs, level, what)
    if not any(str(c).startswith("group_subtasks.") for c in raw.frame.columns):
        note = (
            "the table keeps no group_subtasks columns: a task named <group>_<name> beside a task <group> is taken "
            "as its subtask"
        )
        out = replace(out, notes=(*out.notes, note))
    return replace(out, notes=(*raw.notes, *out.notes))


def read(paths: Sequence[Path], progress: bool = False, level: str | None = None, **_: object) -> RawFrame:
    """:func:`read_score_file` on the one path (the registry's entry for score files); a file of flattened
    lm-evaluation-harness results is read by the harness reader's rules, at ``level``.

    Raises
    ------
    ValueError
        What :func:`read_score_file` refuses; ``level`` given for a file that is not harness results.
    """
    raw = read_score_file(paths[0], progress)
    table = _as_lm_eval_table(raw, paths[0], level)
    if table is not None:
        return table
    if level is not None:
        raise ValueError(
            f"{LEVEL.said()} applies to other formats; {str(paths[0])!r} is read as a score file (it holds no "
            f"lm-evaluation-harness results columns, results.<task>.<metric>)"
        )
    return raw
