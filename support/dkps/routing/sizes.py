"""Parameter counts parsed from model names, and the size-capped candidate pools built on them.

Cost-aware offloading needs a price for every candidate. Cached evaluation histories rarely carry
one, but open models usually carry their parameter count in their name (``vicuna-13b-v1.5``,
``Mixtral-8x7B-Instruct``), and the routing paper uses that count as the cost proxy: a pool
"≤ 13B" is the set of models whose name says at most 13 billion parameters. Names that say
nothing (``claude-2.1``, ``gpt4_1106_preview``, ``phi-2``) mark closed or unsized models — the
expensive tier — and enter only the unrestricted pool.

The rule, applied to the lower-cased name:

1. a mixture pattern ``<N>x<M>b`` (``8x7b``) gives ``N × M``; the first such match wins;
2. otherwise every number (integer or decimal) directly followed by ``b`` that is not itself
   followed by a letter or a digit (``13b``, ``2.7b-``, ``70b`` at the end) is a candidate, and
   the size is the largest of them (``GPO-Llama-3-8B-Instruct-GPM-2B`` → 8);
3. otherwise the size is unknown (``None``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

__all__ = ["POOL_CAPS", "parse_size", "parse_sizes", "size_pools", "pool_members"]

_MIXTURE = re.compile(r"(\d+)x(\d+(?:\.\d+)?)b(?![a-z0-9])")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)b(?![a-z0-9])")

#: The pools of the AlpacaEval offloading protocol: name -> cap in billions (``None``: no cap).
POOL_CAPS: dict[str, float | None] = {"le3b": 3.0, "le8b": 8.0, "le13b": 13.0, "all": None}


def parse_size(name: str) -> float | None:
    """Parameter count in billions parsed from a model name, or ``None`` when the name has none.

    Parameters
    ----------
    name : str
        A model identifier, e.g. ``"Mixtral-8x7B-Instruct-v0.1"``.

    Returns
    -------
    float or None
        ``N × M`` for a mixture ``NxMb``; else the largest ``<number>b`` not followed by a letter
        or digit; else ``None``.

    Examples
    --------
    >>> parse_size("Mixtral-8x7B-Instruct-v0.1"), parse_size("Qwen1.5-1.8B-Chat"), parse_size("phi-2")
    (56.0, 1.8, None)
    """
    if not isinstance(name, str):
        raise ValueError(f"a model name must be a string, got {type(name).__name__} {name!r}")
    low = name.lower()
    mix = _MIXTURE.search(low)
    if mix is not None:
        return float(mix.group(1)) * float(mix.group(2))
    sizes = [float(m.group(1)) for m in _SIZE.finditer(low)]
    return max(sizes) if sizes else None


def parse_sizes(names: Iterable[str]) -> dict[str, float | None]:
    """:func:`parse_size` of every name, as ``{name: size}`` in the order given."""
    return {n: parse_size(n) for n in names}


def pool_members(sizes: Mapping[str, float | None], cap: float | None, exclude: Iterable[str] = ()) -> list[str]:
    """The models of a size-capped pool, sorted by name.

    Parameters
    ----------
    sizes : mapping
        ``{model: parsed size or None}``, e.g. from :func:`parse_sizes`.
    cap : float or None
        The cap in billions (a model enters if its size is ``≤ cap``); ``None`` means no cap, and
        then unsized models enter too. A capped pool never holds an unsized model.
    exclude : iterable of str
        Models kept out whatever their size (the flagship).
    """
    if cap is not None and not (isinstance(cap, (int, float)) and math.isfinite(cap) and cap > 0):
        raise ValueError(f"a pool cap must be a positive number of billions or None, got {cap!r}")
    out = set(exclude)
    members = [m for m, s in sizes.items() if m not in out and (cap is None or (s is not None and s <= cap))]
    return sorted(members)


def size_pools(
    names: Iterable[str],
    exclude: Iterable[str] = (),
    caps: Mapping[str, float | None] | None = None,
) -> dict[str, list[str]]:
    """The size-capped candidate pools ``{pool name: sorted members}``.

    Parameters
    ----------
    names : iterable of str
        The population's model names.
    exclude : iterable of str
        Models no pool holds (the flagship).
    caps : mapping, optional
        ``{pool name: cap in billions or None}``; default :data:`POOL_CAPS`
        (``le3b``, ``le8b``, ``le13b``, ``all``).
    """
    sizes = parse_sizes(names)
    caps = POOL_CAPS if caps is None else caps
    excl = list(exclude)
    return {pool: pool_members(sizes, cap, excl) for pool, cap in caps.items()}
