"""``blindspot survey``: the blind spot of many leaderboards side by side, one row per leaderboard.

For each leaderboard: its models, benchmarks and share of missing cells; d_eff on all models and on
the frontier with their bootstrap intervals, and their paired difference; the Marchenko-Pastur count
of signal eigenvalues; how often the halves of its benchmarks agree on #1 and how often #1 stays first
when the models are resampled, and whether #1 is therefore resolved (or decided by a tie); the greedy
number of benchmarks for 90% coverage and its stable core; the indistinguishability radius 2 R omega;
for a completed matrix, what the fill changes.

Where it lives, and why here. Every one of those numbers is what ``blindspot analyze`` reports, read
off its findings; those combine ``core``, ``prognose``, ``treat`` and ``perspective`` (the completion of
sparse leaderboards), and only ``report``, which sits above every part, may import them all. The
part-level pieces are in ``diagnose`` (:mod:`~blindspot.diagnose.survey_blocks`, the densest complete
block; :mod:`~blindspot.diagnose.survey_estimates`, the intervals the statements are judged on;
:mod:`~blindspot.diagnose.survey_statements`, the paper's general statements judged across
leaderboards; :mod:`~blindspot.diagnose.survey_figures`).

Modules
-------
- :mod:`~blindspot.report.survey.rows` — one leaderboard's row (:func:`~blindspot.report.survey.rows.survey_row`,
  the columns :data:`~blindspot.report.survey.rows.COLUMNS`).
- :mod:`~blindspot.report.survey.table` — :class:`~blindspot.report.survey.table.Survey`,
  :func:`~blindspot.report.survey.table.survey` (``blindspot.survey``), ``survey_tables``, the inputs, the editions.
- :mod:`~blindspot.report.survey.verdicts` — the paper's three statements judged on a survey, and every number
  of the survey chapter by name.
- :mod:`~blindspot.report.survey.render` — ``survey.html``.
- :mod:`~blindspot.report.survey.command` — the command's options (argparse only: ``--help`` is fast) and
  :func:`~blindspot.report.survey.command.run_cli`.

The names below are imported from their module on first use, so ``blindspot survey --help`` loads no numerics.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each public name and the module of this package that defines it.
_HOMES = {
    "survey_row": "rows",
    "COLUMNS": "rows",
    "REASON_SEPARATOR": "rows",
    "MIN_MODEL_OBS": "rows",
    "MIN_BENCHMARK_OBS": "rows",
    "too_few_models": "rows",
    "Survey": "table",
    "survey": "table",
    "survey_tables": "table",
    "leader_counts": "table",
    "read_leaderboards": "table",
    "EditionSurvey": "table",
    "edition_survey": "table",
    "SURVEY_FILES": "table",
    "RESOLVED": "table",
    "SurveyVerdicts": "verdicts",
    "survey_verdicts": "verdicts",
    "survey_html": "render",
    "figure_png": "render",
    "run_cli": "command",
    "add_parser": "command",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
