"""Settings of the perspective space (PKPS, DKPS): the defaults of the ``*_kwargs`` dicts and their checks.

``fit`` merges each dict given to the constructor over its defaults and validates the result
(scikit-learn's convention: constructors store their arguments untouched, ``fit`` checks them),
raising ``ValueError`` with the key, the value and what is allowed.
"""

from __future__ import annotations

import numbers

import numpy as np

from . import kernels

__all__ = [
    "QUERY_DEFAULTS",
    "RESPONSE_DEFAULTS",
    "MDS_DEFAULTS",
    "EMBED_DEFAULTS",
    "DEFAULT_MEMORY_BUDGET_MB",
    "merge_settings",
    "check_query_kwargs",
    "check_response_kwargs",
    "check_mds_kwargs",
    "check_n_jobs",
    "check_memory_budget",
]

QUERY_DEFAULTS = dict(
    kernel="rbf",
    bandwidth="cv",
    bandwidth_ref=None,
    bandwidth_grid=(0.03, 0.1, 0.3, 1.0, 3.0),
    bandwidth_mult=1.0,
    cv_k=None,
    pca_dim="elbow",
    pca_n_elbows=2,
    normalize=True,
)
RESPONSE_DEFAULTS = dict(
    kernel="linear",
    bandwidth="median",
    bandwidth_ref=None,
    bandwidth_mult=1.0,
    pca_dim="elbow",
    pca_n_elbows=2,
    normalize=True,
)
MDS_DEFAULTS = dict(dim=8, n_elbows=2)
EMBED_DEFAULTS = dict(provider="google", model=None, api_key=None, cache_dir=None, batch_size=100)
#: Default memory budget (MiB) of one block of model pairs in the pair sums (see :mod:`dkps.pair_sums`).
DEFAULT_MEMORY_BUDGET_MB = 256


def _pos_float(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and np.isfinite(v) and v > 0


def _pos_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 1


def merge_settings(name: str, given: dict | None, defaults: dict) -> dict:
    if given is None:
        return dict(defaults)
    if not isinstance(given, dict):
        raise ValueError(f"{name} must be a dict or None, got {type(given).__name__}")
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        raise ValueError(f"{name} has unknown keys {unknown}; allowed keys are {sorted(defaults)}")
    out = dict(defaults)
    out.update(given)
    return out


def _check_pca(name: str, d: dict) -> None:
    p = d["pca_dim"]
    if not (p is None or p == "elbow" or _pos_int(p)):
        raise ValueError(f"{name}['pca_dim'] must be 'elbow', None or an int >= 1, got {p!r}")
    if not _pos_int(d["pca_n_elbows"]):
        raise ValueError(f"{name}['pca_n_elbows'] must be an int >= 1, got {d['pca_n_elbows']!r}")
    if not isinstance(d["normalize"], bool):
        raise ValueError(f"{name}['normalize'] must be True or False")
    if not _pos_float(d["bandwidth_mult"]):
        raise ValueError(f"{name}['bandwidth_mult'] must be a float > 0, got {d['bandwidth_mult']!r}")
    ref = d["bandwidth_ref"]
    if ref is not None and not _pos_float(ref):
        raise ValueError(f"{name}['bandwidth_ref'] must be None or a float > 0, got {ref!r}")


def check_query_kwargs(d: dict) -> None:
    k = d["kernel"]
    if not (callable(k) or k in kernels.QUERY_KERNELS):
        raise ValueError(f"unknown query kernel {k!r}; use one of {kernels.QUERY_KERNELS} or a callable")
    bw = d["bandwidth"]
    if not (bw in ("median", "cv") or _pos_float(bw)):
        raise ValueError(f"query bandwidth must be 'median', 'cv' or a float > 0, got {bw!r}")
    grid = d["bandwidth_grid"]
    if isinstance(grid, (str, bytes)):
        raise ValueError("query bandwidth_grid must be a sequence of positive factors")
    try:
        grid = tuple(grid)
    except TypeError:
        raise ValueError("query bandwidth_grid must be a sequence of positive factors") from None
    if len(grid) == 0 or not all(_pos_float(g) for g in grid):
        raise ValueError(
            f"query bandwidth_grid must be a non-empty sequence of floats > 0, got {d['bandwidth_grid']!r}"
        )
    cvk = d["cv_k"]
    if cvk is not None and not _pos_int(cvk):
        raise ValueError(f"query cv_k must be None or an int >= 1, got {cvk!r}")
    _check_pca("query_kwargs", d)


def check_response_kwargs(d: dict) -> None:
    k = d["kernel"]
    if not (callable(k) or k in kernels.RESPONSE_KERNELS):
        raise ValueError(f"unknown response kernel {k!r}; use one of {kernels.RESPONSE_KERNELS} or a callable")
    bw = d["bandwidth"]
    if not (bw == "median" or _pos_float(bw)):
        raise ValueError(f"response bandwidth must be 'median' or a float > 0, got {bw!r}")
    _check_pca("response_kwargs", d)


def check_mds_kwargs(d: dict) -> None:
    if not (d["dim"] is None or _pos_int(d["dim"])):
        raise ValueError(f"mds_kwargs['dim'] must be None or an int >= 1, got {d['dim']!r}")
    if not _pos_int(d["n_elbows"]):
        raise ValueError(f"mds_kwargs['n_elbows'] must be an int >= 1, got {d['n_elbows']!r}")


def check_n_jobs(n_jobs) -> None:
    """``n_jobs``: None or a non-zero int (joblib's convention: -1 every core, None one job unless a
    ``joblib.parallel_config`` says otherwise)."""
    if n_jobs is None:
        return
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero int (-1 = every core), got {n_jobs!r}")


def check_memory_budget(mb) -> None:
    """``memory_budget``: MiB for one block of model pairs, a float > 0."""
    if not _pos_float(mb):
        raise ValueError(f"memory_budget must be a number of MiB > 0, got {mb!r}")
