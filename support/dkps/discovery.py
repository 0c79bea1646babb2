"""The registry of dkps's estimators: every estimator class the package exports, and an example of each.

Adding an estimator is exporting it from :mod:`dkps` (``__all__``); the tests that run on every estimator
(the scikit-learn protocol, fitted attributes documented, update equals a refit, ...) take their list from
:func:`all_estimators` and build each with :func:`example_instance`, so no hand-written list has to change.
"""

from __future__ import annotations

import importlib
import inspect

from .base import BaseEstimator, RefitEstimator

__all__ = ["all_estimators", "example_instance"]


def all_estimators(kind: str | None = None) -> list[tuple[str, type]]:
    """The estimator classes :mod:`dkps` exports, as (name, class) in the order of ``dkps.__all__``.

    Parameters
    ----------
    kind : {None, 'refit'}, optional
        None: every estimator; ``'refit'``: those whose ``update`` is a refit on all records seen so far
        (:class:`~dkps.base.RefitEstimator`: SampleScore, IRT, LRMC).

    Returns
    -------
    list of (str, type)
        Name and class of each estimator.

    Raises
    ------
    ValueError
        An unknown ``kind``.

    References
    ----------
    .. [1] scikit-learn's ``sklearn.utils.discovery.all_estimators``, which this follows.
    .. [2] The Blind Spot Book, ``ARCHITECTURE.md``: the recipe for a new dkps estimator.

    Examples
    --------
    >>> from dkps.discovery import all_estimators
    >>> [name for name, _ in all_estimators()]
    ['PKPS', 'DKPS', 'SampleScore', 'IRT', 'LRMC', 'Ensemble']
    >>> [name for name, _ in all_estimators("refit")]
    ['SampleScore', 'IRT', 'LRMC']
    """
    base = {None: BaseEstimator, "refit": RefitEstimator}.get(kind)
    if base is None:
        raise ValueError(f"kind must be None or 'refit', got {kind!r}")
    package = importlib.import_module("dkps")  # the package face, which imports this module's neighbours
    out = []
    for name in package.__all__:
        obj = getattr(package, name)
        if isinstance(obj, type) and issubclass(obj, base):
            out.append((name, obj))
    return out


def example_instance(cls: type) -> BaseEstimator:
    """An instance of an estimator class with its defaults, its required parameters filled.

    Parameters
    ----------
    cls : type
        A class from :func:`all_estimators`.

    Returns
    -------
    BaseEstimator
        ``cls()``; a meta-estimator (a required ``estimators``) gets ``[PKPS(), LRMC()]``.

    Raises
    ------
    ValueError
        ``cls`` requires a parameter this function does not know how to fill.

    References
    ----------
    .. [1] scikit-learn's estimator checks, which build each estimator the same way.

    Examples
    --------
    >>> from dkps import Ensemble
    >>> from dkps.discovery import example_instance
    >>> example_instance(Ensemble)
    Ensemble(estimators=[PKPS(), LRMC()])
    """
    package = importlib.import_module("dkps")
    fill = {"estimators": lambda: [package.PKPS(), package.LRMC()]}
    required = [n for n, p in inspect.signature(cls).parameters.items() if p.default is inspect.Parameter.empty]
    unknown = sorted(set(required) - set(fill))
    if unknown:
        raise ValueError(f"{cls.__name__} requires {unknown}: say in dkps.discovery.example_instance how to fill it")
    return cls(**{n: fill[n]() for n in required})
