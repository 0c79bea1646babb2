"""Settings of the perspective space (PKPS, DKPS): the defaults of the ``*_kwargs`` dicts and their constraints.

``fit`` merges each dict given to the constructor over its defaults and validates the result with
scikit-learn's parameter validation (``validate_parameter_constraints``, the machinery behind an estimator's
``_parameter_constraints``): constructors store their arguments untouched, ``fit`` checks them, and a bad value
raises ``InvalidParameterError`` (a ``ValueError``) naming the key, what is allowed, and the value given.
:class:`Number` is scikit-learn's ``Interval`` that refuses ``True``/``False`` (to Python a bool is an int, never
a count, a size or a bandwidth here).
"""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions, validate_parameter_constraints

from . import kernels

__all__ = [
    "QUERY_DEFAULTS",
    "RESPONSE_DEFAULTS",
    "MDS_DEFAULTS",
    "EMBED_DEFAULTS",
    "DEFAULT_MEMORY_BUDGET_MB",
    "Number",
    "POSITIVE",
    "COUNT",
    "N_JOBS",
    "QUERY_CONSTRAINTS",
    "RESPONSE_CONSTRAINTS",
    "MDS_CONSTRAINTS",
    "merge_settings",
    "check_settings",
    "check_n_jobs",
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


class Number(Interval):
    """scikit-learn's ``Interval`` constraint, refusing booleans: ``Number(Integral, 1, None, closed="left")``."""

    def is_satisfied_by(self, val) -> bool:
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


#: A float > 0 (finite), an int >= 1, and joblib's n_jobs (None, -1 = every core, or an int >= 1; never 0).
POSITIVE = Number(numbers.Real, 0, None, closed="neither")
COUNT = Number(numbers.Integral, 1, None, closed="left")
N_JOBS = [Number(numbers.Integral, None, -1, closed="right"), COUNT, None]


class _Factors(Number):
    """A non-empty sequence of floats > 0 (the query bandwidth grid)."""

    def __init__(self):
        super().__init__(numbers.Real, 0, None, closed="neither")

    def is_satisfied_by(self, val) -> bool:
        if isinstance(val, (str, bytes)):
            return False
        try:
            grid = tuple(val)
        except TypeError:
            return False
        return len(grid) > 0 and all(super(_Factors, self).is_satisfied_by(g) for g in grid)

    def __str__(self) -> str:
        return "a non-empty sequence of positive factors (floats > 0)"


_CHANNEL = {
    "bandwidth_ref": [POSITIVE, None],
    "bandwidth_mult": [POSITIVE],
    "pca_dim": [StrOptions({"elbow"}), COUNT, None],
    "pca_n_elbows": [COUNT],
    "normalize": ["boolean"],
}
QUERY_CONSTRAINTS = {
    "kernel": [StrOptions(set(kernels.QUERY_KERNELS)), callable],
    "bandwidth": [StrOptions({"median", "cv"}), POSITIVE],
    "bandwidth_grid": [_Factors()],
    "cv_k": [COUNT, None],
    **_CHANNEL,
}
RESPONSE_CONSTRAINTS = {
    "kernel": [StrOptions(set(kernels.RESPONSE_KERNELS)), callable],
    "bandwidth": [StrOptions({"median"}), POSITIVE],
    **_CHANNEL,
}
MDS_CONSTRAINTS = {"dim": [COUNT, None], "n_elbows": [COUNT]}


def merge_settings(name: str, given: dict | None, defaults: dict) -> dict:
    """``defaults`` updated with the dict ``given`` to a constructor (None: the defaults).

    Parameters
    ----------
    name : str
        The constructor parameter (``'query_kwargs'``), named in the error.
    given : dict or None
        The user's settings.
    defaults : dict
        Every allowed key with its default.

    Returns
    -------
    dict
        A new dict: the defaults, overridden by ``given``.

    Raises
    ------
    ValueError
        ``given`` is not a dict, or has a key the defaults do not.
    """
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


def check_settings(constraints: dict, settings: dict, caller: str) -> None:
    """Validate a merged settings dict against its constraints (scikit-learn's ``validate_parameter_constraints``).

    Parameters
    ----------
    constraints : dict
        Key -> list of scikit-learn constraints (:data:`QUERY_CONSTRAINTS`, ...).
    settings : dict
        The merged settings.
    caller : str
        Named in the message, e.g. ``"PKPS query_kwargs"``.

    Raises
    ------
    ValueError
        ``InvalidParameterError``: "The 'bandwidth' parameter of PKPS query_kwargs must be ... Got ... instead."
    """
    validate_parameter_constraints(constraints, settings, caller_name=caller)


def check_n_jobs(n_jobs) -> None:
    """Validate joblib's ``n_jobs`` for the functions that take it outside an estimator.

    Parameters
    ----------
    n_jobs : int or None
        None (one job unless a ``joblib.parallel_config`` says otherwise), -1 (every core) or an int >= 1.

    Raises
    ------
    ValueError
        Zero, a bool, a float or a string.
    """
    validate_parameter_constraints({"n_jobs": N_JOBS}, {"n_jobs": n_jobs}, caller_name="dkps")
