"""Shared docstring text of dkps: the sections every estimator's docstrings repeat, and shared References.

An estimator's docstring (the class's or a method's) names a shared section on a line of its own,
``%(catalog_attributes)s``; :meth:`dkps.base.BaseEstimator.__init_subclass__` writes the section there,
indented as that line (:func:`fill_sections`). A module whose functions cite the same sources decorates them
with :func:`references`, which appends the numpydoc ``References`` section.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import TypeVar

__all__ = ["SECTIONS", "fill_sections", "references"]

F = TypeVar("F", bound=Callable)

#: The fitted attributes every dkps estimator has: written into each estimator's ``Attributes`` section where a
#: line of its docstring says ``%(catalog_attributes)s`` (:meth:`BaseEstimator.__init_subclass__`).
CATALOG_ATTRIBUTES = """model_names_ : list of str
    The models, sorted (the rows of every table below).
task_names_ : list of str
    The tasks, sorted (the columns).
suite_names_ : list of str
    The suites (benchmarks) the tasks belong to, sorted.
task_suite_ : dict
    Task id -> its suite.
families_ : dict
    Model id -> its family (the records' ``family`` column, else the id's prefix), for ``holdout='family'``.
sample_scores_ : DataFrame
    Per (model, task) the cell's ``sample_score`` if given, else the mean of its scores; NaN if none.
reference_scores_ : DataFrame
    Per (model, task) the cell's ``reference_score``; NaN if none.
targets_ : DataFrame
    Per (model, task) the regression target: the reference score, else the sample score.
n_responses_ : DataFrame
    Per (model, task) the number of response rows."""


#: The ``records`` parameter of ``fit`` and ``update``.
RECORDS_PARAM = """records : DataFrame, list of dict, dict of lists, or Records
    One row per response: ``model_id``, ``task_id``, ``query_id``, a response (``embedding`` vector or
    ``response`` text), optional ``score``/``sample_score``/``reference_score``, ``suite``, ``family``,
    ``query_embedding``/``query`` (any container :func:`dkps.records.validate` accepts, or the
    :class:`~dkps.records.Records` it returned)."""
#: The ``records`` and ``cells`` parameters of ``predict``.
CELLS_PARAMS = """records : DataFrame, list of dict, or None
    The cells to predict: rows with ``model_id`` and optionally ``task_id`` (a model alone stands for all
    its tasks); None: the estimator's default cells (:meth:`default_cells`).
cells : DataFrame, list of dict, or None
    The same, by keyword (give the cells once)."""
#: The ``as_frame`` parameter and the Returns section of ``predict``.
PREDICT_RETURNS = """as_frame : bool, default False
    Return a DataFrame instead of a list of dicts.

Returns
-------
list of dict or DataFrame
    One entry per requested cell, in order: ``model_id``, ``task_id``, ``score_hat``."""
#: The Returns section of ``fit`` and ``update``.
RETURNS_SELF = """Returns
-------
self
    The fitted estimator."""
#: ``Parameters`` (records) and ``Returns`` (self) of ``fit`` and ``update``.
RECORDS_TO_SELF = "Parameters\n----------\n" + RECORDS_PARAM + "\n\n" + RETURNS_SELF
#: The ``Raises`` of an ``update`` that refits or updates every member.
UPDATE_RAISES = """Raises
------
NotFittedError
    Before ``fit``.
ValueError
    Records that :func:`dkps.records.validate` refuses, or that contradict the ones seen."""
#: ``Parameters``, ``Returns`` and ``Raises`` of a ``predict`` that takes only the cells.
CELLS_PREDICT = (
    "Parameters\n----------\n"
    + CELLS_PARAMS
    + "\n"
    + PREDICT_RETURNS
    + """

Raises
------
NotFittedError
    Before ``fit``.
ValueError
    Cells naming unknown models or tasks."""
)

#: Every shared section, by the name a docstring line gives it.
SECTIONS = {
    "catalog_attributes": CATALOG_ATTRIBUTES,
    "records_param": RECORDS_PARAM,
    "cells_params": CELLS_PARAMS,
    "predict_returns": PREDICT_RETURNS,
    "returns_self": RETURNS_SELF,
    "records_to_self": RECORDS_TO_SELF,
    "update_raises": UPDATE_RAISES,
    "cells_predict": CELLS_PREDICT,
}


def fill_sections(doc: str | None, sections: dict) -> str | None:
    """``doc`` with each line ``%(name)s`` replaced by ``sections[name]``, indented as that line.

    Parameters
    ----------
    doc : str or None
        A docstring.
    sections : dict
        Name -> text (unindented).

    Returns
    -------
    str or None
        The docstring filled in (None stays None).
    """
    if not doc:
        return doc
    for name, text in sections.items():
        mark = f"%({name})s"
        for line in [ln for ln in doc.splitlines() if ln.strip() == mark]:
            indent = line[: len(line) - len(line.lstrip())]
            doc = doc.replace(line, indent + text.replace("\n", "\n" + indent))
    return doc


def references(*refs: str) -> Callable[[F], F]:
    """Decorator: append a numpydoc ``References`` section citing ``refs`` to the function's docstring.

    Parameters
    ----------
    *refs : str
        One reference each (numbered ``.. [1]``, ``.. [2]``, ... in order); a line break continues it.

    Returns
    -------
    callable
        The decorator (it returns the function itself, its ``__doc__`` extended).
    """

    def decorate(func: F) -> F:
        items = "\n".join(f".. [{i}] " + ref.replace("\n", "\n   ") for i, ref in enumerate(refs, 1))
        func.__doc__ = inspect.cleandoc(func.__doc__ or "") + "\n\nReferences\n----------\n" + items
        return func

    return decorate
