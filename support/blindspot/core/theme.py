"""The book's one figure theme: seaborn style, the colour-blind palette, PNG output for glued figures."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import seaborn as sns

__all__ = ["use_theme", "PALETTE"]


PALETTE = sns.color_palette("colorblind")


def use_theme() -> None:
    """The book's one plotting theme (seaborn whitegrid, colour-blind palette, readable sizes)."""
    sns.set_theme(style="whitegrid", palette="colorblind", context="notebook")
    # numpy >= 2 prints scalars as np.float64(...); glued numbers must print as plain numbers
    np.set_printoptions(legacy="1.25")
    _register_png_formatter()


def _register_png_formatter() -> None:
    """Inside a kernel, give Figure objects a PNG representation (so glued figures render).

    pyplot stays on the Agg backend, so figures are never shown twice: they appear only where a
    cell returns them or a glue:figure directive pastes them.
    """
    try:
        from IPython import get_ipython
        from matplotlib_inline.backend_inline import set_matplotlib_formats
    except ImportError:  # outside Jupyter nothing needs a formatter
        return
    if get_ipython() is not None:
        set_matplotlib_formats("png")
    plt.rcParams.update(
        {"figure.dpi": 110, "savefig.dpi": 110, "figure.figsize": (6.4, 4.0), "axes.titlesize": "medium"}
    )
