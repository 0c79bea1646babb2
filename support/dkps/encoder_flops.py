"""The arithmetic of a BERT-type encoder per text: how many floating-point operations its matrix products cost.

A text of ``l`` word pieces (its special tokens included, after truncation) passes through
``layers`` transformer layers of width ``H`` (``hidden_size``) and feed-forward width ``I``
(``intermediate_size``). Counting a multiply-add as two operations, one layer's matrix products cost
(Vaswani et al. 2017, Attention Is All You Need, section 3; Kaplan et al. 2020, Scaling Laws for
Neural Language Models, section 2.1, Table 1)

.. math::

    \\underbrace{4 \\cdot 2 l H^2}_{Q, K, V, \\text{output}} \\;+\\;
    \\underbrace{2 \\cdot 2 l H I}_{\\text{feed-forward}} \\;+\\;
    \\underbrace{2 \\cdot 2 l^2 H}_{Q K^\\top,\\ \\text{weights} \\cdot V},

so a text costs ``layers * (8 l H^2 + 4 l H I + 4 l^2 H)``, whatever the number of heads (they split
``H``). The embedding lookup, layer norms, softmax, GELU and the pooling are ``O(l H)`` element-wise
work and are not counted; nor is BERT's pooler, which sentence-transformers' mean pooling does not
use. For all-MiniLM-L6-v2 (6 layers, ``H = 384``, ``I = 1536``) that is 1.40 GFLOP at 64 word pieces
and 6.04 GFLOP at 256.

Divided into a measured rate it gives the share of the machine's matrix-product speed an encoder
reaches, and so the most any faster backend could gain (``benchmarks/encoder_speed.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["encoder_flops"]


def _field(config: Any, name: str) -> int:
    value = config.get(name) if isinstance(config, Mapping) else getattr(config, name, None)
    if value is None or int(value) != value or int(value) < 1:
        raise ValueError(f"the encoder configuration needs a positive integer {name!r}, got {value!r}")
    return int(value)


def encoder_flops(lengths: Any, config: Any) -> np.ndarray:
    """Floating-point operations of the matrix products of one forward pass, per text.

    Parameters
    ----------
    lengths : int or array-like of int
        Word pieces of each text as the encoder sees it (special tokens included, after truncation;
        a padded batch costs its longest text's length for every row).
    config : mapping or object
        The encoder's ``num_hidden_layers``, ``hidden_size`` and ``intermediate_size``, as keys or
        attributes (a ``transformers`` configuration works as it is).

    Returns
    -------
    numpy.ndarray of float64
        ``layers * (8 l H^2 + 4 l H I + 4 l^2 H)`` for each length ``l``, in the shape of ``lengths``.

    Raises
    ------
    ValueError
        If a length is negative or not an integer, or the configuration lacks a positive field.
    """
    layers = _field(config, "num_hidden_layers")
    hidden = _field(config, "hidden_size")
    inter = _field(config, "intermediate_size")
    arr = np.asarray(lengths)
    if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and np.all(np.isfinite(arr) & (arr == np.round(arr)))):
        raise ValueError("lengths must be whole numbers of word pieces")
    if np.any(arr < 0):
        raise ValueError("lengths must not be negative")
    l = arr.astype(np.float64)
    return layers * (8.0 * l * hidden**2 + 4.0 * l * hidden * inter + 4.0 * l**2 * hidden)
