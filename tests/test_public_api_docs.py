"""The public API is documented: numpydoc's validation over every exported name of dkps and the top of blindspot.

What is exported: each name of ``dkps.__all__``, ``dkps.routing.__all__`` and ``blindspot.__all__`` (a module
listed there stands for the names of its own ``__all__``), and each public method a class defines itself (not
the ones it inherits from scikit-learn). Constants are not checked (they carry no docstring of their own).

The checks (``numpydoc.validate.validate``'s codes; the style codes — capitals, full stops, one-line summaries,
See Also, extended summary — are left out):

- GL06 unknown section, GL07 sections out of order, GL08 no docstring, GL10 a reST directive without ``::``;
- SS01 no summary;
- PR01 a parameter not documented, PR02 a documented parameter that does not exist, PR03 parameters out of
  order, PR04 a parameter without a type, PR07 a parameter without a description, PR10 no space before the
  colon;
- RT01 no Returns section (where something is returned), RT03 a return value without a description, YD01 no
  Yields section (a generator).

And three of this project's own, on the exported classes and functions (not on methods or exceptions): a ``References``
section (the paper or the literature, and the book's chapter); a ``Raises`` section where the code raises; an
``Examples`` section for the main entry points (:data:`EXAMPLES_REQUIRED`, run as doctests by ``make test``).
Every fitted attribute of an estimator is listed under ``Attributes`` (:func:`test_every_fitted_attribute_is_listed`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
import types

import numpy as np
import numpydoc.validate
import pytest
from numpydoc.docscrape import NumpyDocString
from sklearn.utils._param_validation import StrOptions

from dkps import IRT, generate_benchmark_data
from dkps.discovery import all_estimators, example_instance
from dkps.synthetic import score_records

CHECKS = frozenset(
    {"GL06", "GL07", "GL08", "GL10", "SS01", "PR01", "PR02", "PR03", "PR04", "PR07", "PR10", "RT01", "RT03", "YD01"}
)
#: The main entry points: an Examples section, run as a doctest.
EXAMPLES_REQUIRED = frozenset({"dkps.PKPS", "dkps.routing.Router", "blindspot.analyze", "blindspot.compare"})
#: Names another package documents: scikit-learn's clone and NotFittedError, re-exported by dkps.
FOREIGN = frozenset({"dkps.clone", "dkps.NotFittedError"})
#: Packages whose docstrings another helper of this round writes: expected to fail until the lead merges theirs.
PENDING: dict[str, str] = {}


def _own_methods(cls: type) -> list[str]:
    """Public methods (not properties) that ``cls`` or a base class inside the same package defines."""
    root = cls.__module__.split(".")[0]
    names = []
    for name in dir(cls):
        if name.startswith("_"):
            continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or owner.__module__.split(".")[0] != root:
            continue
        attr = vars(owner)[name]
        if isinstance(attr, (types.FunctionType, classmethod, staticmethod)):
            names.append(name)
    return names


def _exported(package: str) -> list[tuple[str, bool]]:
    """(import path, is a top-level name) of every documented object ``package`` exports."""
    mod = importlib.import_module(package)
    out: list[tuple[str, bool]] = []
    for name in mod.__all__:
        if name.startswith("__"):
            continue
        obj = getattr(mod, name)
        if isinstance(obj, types.ModuleType):
            out += [(f"{obj.__name__}.{n}", True) for n in obj.__all__ if callable(getattr(obj, n))]
            continue
        if callable(obj):
            out.append((f"{package}.{name}", True))
    more = []
    for path, _ in out:
        obj = _resolve(path)
        if inspect.isclass(obj) and not issubclass(obj, BaseException):
            more += [(f"{path}.{m}", False) for m in _own_methods(obj)]
    return out + more


def _resolve(path: str):
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    raise ImportError(path)


def _params():
    seen: set[int] = set()  # a name exported twice (dkps.irt_predict, dkps.baselines.irt_predict), or a method
    for package in ("dkps", "dkps.routing", "blindspot"):  # inherited (DKPS.fit is PKPS.fit), is checked once
        for path, top in _exported(package):
            pending = next((why for prefix, why in PENDING.items() if path.startswith(prefix)), None)
            obj = inspect.unwrap(_resolve(path))
            if path in FOREIGN or id(obj) in seen:
                continue
            seen.add(id(obj))
            marks = [pytest.mark.xfail(reason=pending, strict=False)] if pending else []
            yield pytest.param(path, top, id=path, marks=marks)


PARAMS = list(_params())


def _raises_itself(obj) -> bool:
    """Whether the function (for a class: its ``fit`` or ``__init__``) holds a ``raise`` of its own."""
    if inspect.isclass(obj):
        obj = getattr(obj, "fit", None) or obj.__init__
    try:
        src = textwrap.dedent(inspect.getsource(inspect.unwrap(obj)))
    except (OSError, TypeError):
        return False
    fn = ast.parse(src).body[0]
    nested = {id(n) for d in ast.walk(fn) if d is not fn and isinstance(d, ast.FunctionDef) for n in ast.walk(d)}
    return any(isinstance(n, ast.Raise) and id(n) not in nested for n in ast.walk(fn))


@pytest.mark.parametrize(("path", "top"), PARAMS)
def test_numpydoc(path: str, top: bool):
    res = numpydoc.validate.validate(path)
    errors = [f"{code} {msg}" for code, msg in res["errors"] if code in CHECKS]
    obj = _resolve(path)
    if top and not (inspect.isclass(obj) and issubclass(obj, BaseException)):  # an exception: its summary says it
        doc = NumpyDocString(inspect.getdoc(obj) or "")
        if not doc["References"]:
            errors.append("no References section (the paper or the literature, and the book's chapter)")
        if _raises_itself(obj) and not doc["Raises"]:
            errors.append("no Raises section, and the code raises")
        if path in EXAMPLES_REQUIRED and not doc["Examples"]:
            errors.append("no Examples section (a main entry point)")
    assert not errors, f"{path}:\n  " + "\n  ".join(errors)


def test_the_check_sees_every_package():
    """The parametrisation is not empty by accident: each package contributes its exports."""
    paths = [p.values[0] for p in PARAMS]
    for name in ("dkps.PKPS", "dkps.PKPS.fit", "dkps.embed.embed_texts", "dkps.eee.load_records", "blindspot.analyze"):
        assert name in paths
    assert any(p.startswith("dkps.routing.") for p in paths)


def _variants(cls: type) -> list:
    """The example instance of ``cls``, once per value of a ``method`` parameter (each sets its own attributes)."""
    methods = [c for c in cls._parameter_constraints.get("method", []) if isinstance(c, StrOptions)]
    if not methods:
        return [example_instance(cls)]
    return [example_instance(cls).set_params(method=m) for m in sorted(methods[0].options)]


@pytest.mark.parametrize("cls", [c for _, c in all_estimators()], ids=[n for n, _ in all_estimators()])
def test_every_fitted_attribute_is_listed(cls: type):
    """Each attribute a fit sets (public, ending in '_', not a parameter) and each such property is under Attributes."""
    records = score_records(
        generate_benchmark_data(
            d_latent=3, d_obs=8, n_models=14, n_tasks=4, n_queries_per_task=6, obs_prob=0.6, random_state=3
        )
    )
    listed = {a.name for a in NumpyDocString(inspect.getdoc(cls))["Attributes"]}
    for est in _variants(cls):
        data = records
        if isinstance(est, IRT):  # a 1PL model reads 0/1 scores
            data = records.assign(score=(np.random.default_rng(0).random(len(records)) < records.score).astype(float))
        est.fit(data)
        params = set(est.get_params(deep=False))
        fitted = {k for k in vars(est) if k.endswith("_") and not k.startswith("_") and k not in params}
        props = {n for n in dir(cls) if n.endswith("_") and not n.startswith("_") and n not in params}
        props = {n for n in props if isinstance(inspect.getattr_static(cls, n), property)}
        assert fitted, "the fit set no attribute: the check would pass vacuously"
        missing = sorted((fitted | props) - listed)
        assert not missing, f"{cls.__name__}: fitted attributes not listed under Attributes: {missing}"
