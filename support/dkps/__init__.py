"""dkps: perspective spaces for black-box model comparison (the book's Part V).

Six estimators with one three-call API — ``fit(records)``, ``predict(records=None, ...)``,
``update(records)`` — plus ``score_table()`` and the catalog attributes:

- :class:`PKPS` (product-kernel perspective space) and :class:`DKPS` (its delta-kernel special
  case, the paired data-kernel perspective space);
- :class:`SampleScore`, :class:`IRT`, :class:`LRMC` (baselines);
- :class:`Ensemble` (a learned blend of two).

:func:`all_estimators` lists them (the registry the tests run over). ``generate_benchmark_data`` makes
synthetic records; :mod:`dkps.embed` embeds raw text;
:mod:`dkps.eee` reads Every Eval Ever ``*_samples.jsonl`` runs into records and
:mod:`dkps.lm_eval_samples` lm-evaluation-harness ``--log_samples`` output. The original dkps's
lower-level names are here too: :class:`DataKernelPerspectiveSpace` (the paired DKPS),
:class:`Whitener`, and :mod:`dkps.baselines` (ALS matrix completion and the 1PL functions).
"""

from . import baselines, eee, embed, lm_eval_samples
from ._version import __version__
from .base import clone
from .baselines import (
    irt_estimate_ability,
    irt_fit_difficulties,
    irt_predict,
    matrix_completion_predict,
    max_dense_block,
)
from .discovery import all_estimators
from .ensemble import Ensemble
from .errors import NotFittedError, UnknownIdError
from .irt import IRT
from .legacy import DataKernelPerspectiveSpace
from .lrmc import LRMC
from .pkps import DKPS, PKPS
from .sample_score import SampleScore
from .synthetic import BenchmarkData, generate_benchmark_data
from .whitening import Whitener

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
    "all_estimators",
    "__version__",
    "baselines",
    "eee",
    "embed",
    "lm_eval_samples",
    "DataKernelPerspectiveSpace",
    "Whitener",
    "matrix_completion_predict",
    "max_dense_block",
    "irt_fit_difficulties",
    "irt_estimate_ability",
    "irt_predict",
]
