"""The book's one look: seaborn style, the colour-blind palette, PNG output for glued figures, and how
numbers and tables print on a page (3–4 significant figures, "—" for a missing value, wide tables in
a box of their own that scrolls)."""

from __future__ import annotations

import math
import numbers

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

__all__ = ["use_theme", "PALETTE", "MISSING", "format_number", "frame_html", "not_drawn"]


PALETTE = sns.color_palette("colorblind")
#: What a page prints for a value that is missing or does not apply (never "NaN" or "None").
MISSING = "—"
#: Significant figures of a number on a page.
SIGNIFICANT = 4


def format_number(value: object, digits: int = SIGNIFICANT) -> str:
    """A value as a page prints it: a number to ``digits`` significant figures, "—" when missing.

    Other numbers keep ``digits`` significant figures (``0.910734`` -> ``"0.9107"``, ``123.06`` ->
    ``"123.1"``), in scientific notation only below 0.001 or from one million on (``4.44e-16``);
    whole numbers print whole, and numbers of 10,000 or more to the unit with thousands separators
    (``24737.0`` -> ``"24,737"``, ``13416.4`` -> ``"13,416"``, a year stays ``2024``). ``None``, NaN and ``pd.NA`` print as :data:`MISSING`;
    anything else (a string, a bool) prints as ``str(value)``.

    Parameters
    ----------
    value : object
        A number (Python or numpy), a missing value, or anything else.
    digits : int
        Significant figures (default 4).

    Returns
    -------
    str
    """
    if value is None or value is pd.NA or value is pd.NaT:
        return MISSING
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return _whole(int(value))
    if isinstance(value, numbers.Real):
        v = float(value)
        if math.isnan(v):
            return MISSING
        if math.isinf(v):
            return "∞" if v > 0 else "−∞"
        a = abs(v)
        if v != 0 and (a >= 1e6 or a < 1e-3):
            return f"{v:.{digits}g}".replace("e+0", "e").replace("e-0", "e-").replace("e+", "e")
        rounded = float(f"{v:.{digits}g}")
        if rounded.is_integer() or a >= 1e4:
            return _whole(round(v) if a >= 1e4 else int(rounded))
        return f"{rounded:.{digits}g}"
    return str(value)


def _whole(n: int) -> str:
    """A whole number: thousands separated from 10,000 on (a year stays 2024)."""
    return f"{n:,}" if abs(n) >= 10_000 else str(n)


def frame_html(frame: pd.DataFrame) -> str:
    """A DataFrame as the book's pages show it: numbers by :func:`format_number`, missing values as "—",
    in a box that scrolls sideways when the table is wider than the text column.

    pandas' own HTML (``DataFrame._repr_html_``) prints six decimals and "NaN"; this is what
    :func:`use_theme` registers for DataFrames in a notebook. A DataFrame subclass with its own
    ``_repr_html_`` (the ledger's Paper-vs-book table) keeps it.

    Parameters
    ----------
    frame : DataFrame

    Returns
    -------
    str
        HTML: a ``div.bs-scroll`` holding pandas' table.
    """
    own = type(frame)._repr_html_
    if own is not pd.DataFrame._repr_html_:
        return frame._repr_html_()
    with pd.option_context("display.max_colwidth", None):  # a cell is wrapped by the page, never cut with "..."
        body = frame.to_html(
            formatters=[format_number] * frame.shape[1],
            na_rep=MISSING,
            max_rows=pd.get_option("display.max_rows"),
            max_cols=pd.get_option("display.max_columns"),
            show_dimensions=pd.get_option("display.show_dimensions") is True,
            notebook=True,
            escape=True,
        )
    return f'<div class="bs-scroll">{body}</div>'


def not_drawn(reason: str) -> plt.Figure:
    """A small figure that says why a figure of the chapter was not drawn on this data (e.g. k > 16).

    A chapter glues it in place of the figure, so the page keeps its figure, its caption and its
    cross-reference, and the reader sees the reason, not a missing image.

    Parameters
    ----------
    reason : str
        Why the figure was not drawn.

    Returns
    -------
    Figure

    Raises
    ------
    ValueError
        On an empty reason.
    """
    if not str(reason).strip():
        raise ValueError("say why the figure was not drawn (a non-empty reason)")
    fig, ax = plt.subplots(figsize=(6.0, 1.2))
    ax.axis("off")
    ax.text(0.5, 0.5, f"Not drawn on this leaderboard: {reason}", ha="center", va="center", wrap=True, fontsize=9)
    return fig


def use_theme() -> None:
    """The book's one plotting theme (seaborn whitegrid, colour-blind palette, readable sizes) and its
    display of numbers and tables in a notebook (:func:`frame_html`)."""
    # pyplot draws off screen: a figure shows where a cell returns it or a glue:figure directive pastes
    # it, never a second time because pyplot was used in the cell (the inline backend's flush)
    plt.switch_backend("agg")
    sns.set_theme(style="whitegrid", palette="colorblind", context="notebook")
    # numpy >= 2 prints scalars as np.float64(...); glued numbers must print as plain numbers
    np.set_printoptions(legacy="1.25")
    pd.set_option("display.precision", SIGNIFICANT)
    pd.set_option("display.max_colwidth", None)  # a cell is wrapped by the page, never cut with "..."
    _register_formatters()


def _register_formatters() -> None:
    """Inside a kernel, give Figure objects a PNG representation (so glued figures render) and DataFrames
    the book's HTML (:func:`frame_html`)."""
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # outside Jupyter nothing needs a formatter
        return
    shell = get_ipython()
    if shell is not None:
        set_matplotlib_formats("png")
        shell.display_formatter.formatters["text/html"].for_type(pd.DataFrame, frame_html)
    plt.rcParams.update(
        {"figure.dpi": 110, "savefig.dpi": 110, "figure.figsize": (6.4, 4.0), "axes.titlesize": "medium"}
    )
