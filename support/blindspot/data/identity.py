"""What a reader decides the same way for every format: a model's identity, a run's time, a JSON flag.

Each reader used to decide these on its own, and each made its own mistakes (issue 51): EEE ids that differ
only in case counted as two models, an ISO-8601 ``retrieved_timestamp`` read as no time at all (the *older*
run kept), a ``"NaN"`` timestamp ending in an ``IndexError``, ``lower_is_better: "true"`` ignored. The rules:

* **model identity** (:func:`model_key`): two ids are one model when they agree after removing surrounding
  whitespace, trailing slashes and case (``pretrained=ORG/M0`` and ``org/m0/`` name one checkpoint: the Hugging
  Face Hub's repository ids are case-insensitive). :func:`merge_ids` names each merged group in a note; the
  first spelling met (in path order) is the one shown;
* **time** (:func:`timestamp`): an epoch number (seconds; milliseconds above 1e11), a numeric string, or any
  ISO-8601 date-time (a date alone, ``Z`` or an offset) -- all as epoch seconds, comparable; anything else
  (missing, ``NaN``, text) is ``None``, which the caller orders before every real time and notes;
* **a JSON flag or number written as a string** (:func:`json_bool`, :func:`json_number`): ``"true"``/``"false"``
  and ``"0.721"`` read as the value they spell, and the caller notes that it did.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import pandas as pd

__all__ = ["model_key", "merge_ids", "timestamp", "json_bool", "json_number"]


def model_key(name: str) -> str:
    """The identity of a model id: without surrounding whitespace, trailing slashes, and in lower case."""
    return str(name).strip().rstrip("/").strip().casefold()


def merge_ids(names: Iterable[str], what: str = "model ids") -> tuple[dict[str, str], str | None]:
    """Each name's canonical spelling (the first met of its :func:`model_key`), and a note naming every merge.

    Parameters
    ----------
    names : iterable of str
        The ids as the source spells them, in the order met (path order).
    what : str
        What they are, for the note.

    Returns
    -------
    dict, str or None
        ``{name: canonical}`` for every name given, and the note (None when nothing was merged).
    """
    first: dict[str, str] = {}
    groups: dict[str, list[str]] = {}
    out: dict[str, str] = {}
    for n in names:
        k = model_key(n)
        first.setdefault(k, str(n).strip().rstrip("/").strip())
        if n not in groups.setdefault(k, []):
            groups[k].append(n)
        out[n] = first[k]
    merged = [g for g in groups.values() if len(g) > 1]
    if not merged:
        return out, None
    shown = "; ".join(" = ".join(repr(x) for x in g) for g in merged[:6]) + (" ..." if len(merged) > 6 else "")
    note = (
        f"{len(merged)} model(s) are written in more than one way ({what} that differ only in case, surrounding "
        f"whitespace or a trailing slash name one model): {shown}; each is counted once, under its first spelling"
    )
    return out, note


def timestamp(value: object) -> float | None:
    """A time as epoch seconds: a number (milliseconds above 1e11), a numeric string, or ISO-8601; else None.

    Examples
    --------
    >>> timestamp("1700000000"), timestamp(1.7e12)
    (1700000000.0, 1700000000.0)
    >>> timestamp("2023-11-14T22:13:20Z")
    1700000000.0
    >>> timestamp("NaN") is None and timestamp(None) is None and timestamp("soon") is None
    True
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        x = float(value)
    elif isinstance(value, str):
        text = value.strip()
        try:
            x = float(text)
        except ValueError:
            try:
                t = pd.Timestamp(text)
            except (ValueError, TypeError, OverflowError):
                return None
            if pd.isna(t):
                return None
            if t.tzinfo is None:
                t = t.tz_localize("UTC")
            return float(t.timestamp())
    else:
        return None
    if not math.isfinite(x):
        return None
    return x / 1000.0 if abs(x) > 1e11 else x


def json_bool(value: object) -> tuple[bool | None, bool]:
    """A JSON flag: ``(value, was_text)``; ``"true"``/``"false"`` (any case, spaces) read as booleans."""
    if isinstance(value, bool):
        return value, False
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true", True
    return None, False


def json_number(value: object) -> tuple[float | None, bool]:
    """A JSON number: ``(value, was_text)``; a string spelling a number (``"0.721"``, ``"inf"``) reads as it."""
    if isinstance(value, bool) or value is None:
        return None, False
    if isinstance(value, (int, float)):
        return float(value), False
    if isinstance(value, str):
        try:
            return float(value.strip()), True
        except ValueError:
            low = value.strip().lower()
            if low in ("infinity", "+infinity"):
                return math.inf, True
            if low == "-infinity":
                return -math.inf, True
            return None, False
    try:
        return float(value), False  # type: ignore[arg-type]  # Decimal, numpy scalars
    except (TypeError, ValueError):
        return None, False
