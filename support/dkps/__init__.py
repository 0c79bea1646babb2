"""dkps: perspective spaces for black-box model comparison (the book's Part V).

Six estimators with one three-call API — ``fit(records)``, ``predict(records=None, ...)``,
``update(records)`` — plus ``score_table()`` and the catalog attributes:

- :class:`PKPS` (product-kernel perspective space) and :class:`DKPS` (its delta-kernel special
  case, the paired data-kernel perspective space);
- :class:`SampleScore`, :class:`IRT`, :class:`LRMC` (baselines);
- :class:`Ensemble` (a learned blend of two).

``generate_benchmark_data`` makes synthetic records; :mod:`dkps.embed` embeds raw text;
:mod:`dkps.eee` reads Every Eval Ever ``*_samples.jsonl`` runs into records.
"""

from . import eee, embed
from ._version import __version__
from .base import clone
from .ensemble import Ensemble
from .errors import NotFittedError, UnknownIdError
from .irt import IRT
from .lrmc import LRMC
from .pkps import DKPS, PKPS
from .sample_score import SampleScore
from .synthetic import BenchmarkData, generate_benchmark_data

__all__ = [
    "PKPS",
    "DKPS",
    "SampleScore",
    "IRT",
    "LRMC",
    "Ensemble",
    "generate_benchmark_data",
    "BenchmarkData",
    "NotFittedError",
    "UnknownIdError",
    "clone",
    "__version__",
    "eee",
    "embed",
]
