"""``blindspot analyze``: the practitioner report on any score matrix; ``blindspot survey``: many of them side by side;
``blindspot compare``: two or more models item by item.

- :mod:`~blindspot.report.analyze` — :func:`~blindspot.report.analyze.analyze` (``blindspot.analyze``), the one
  entry of the command and of a notebook, and :func:`~blindspot.report.analyze.analyze_table`.
- :mod:`~blindspot.report.options` — the command's options and their checks (argparse only: ``--help`` is fast).
- :mod:`~blindspot.report.prepare` — the table from the data floor, missing cells completed (checked); the
  rescaling rule.
- :mod:`~blindspot.report.input_checks` — warnings about values (mixed units, outliers, scales).
- :mod:`~blindspot.report.completion_check` — whether ``--missing complete`` beats column means.
- :mod:`~blindspot.report.sections` — the sections, their minimum sizes, the ranking table.
- :mod:`~blindspot.report.stability` — #1 under resampling of the models (measured).
- :mod:`~blindspot.report.width_regime` — the width-model diagnostics in linear time.
- :mod:`~blindspot.report.advice` — the opening paragraph.
- :mod:`~blindspot.report.report_data` — the report as data (:class:`~blindspot.report.report_data.ReportData`);
  :mod:`~blindspot.report.render` — HTML and text; :mod:`~blindspot.report.output` — ``--out`` checked first
  (as files, not names), both files or neither, under a lock on the folder;
  :mod:`~blindspot.report.result` — :class:`~blindspot.report.result.AnalysisReport`, what
  :func:`blindspot.analyze` returns (Jupyter HTML, ``save``).
- :mod:`~blindspot.report.survey` — the survey subpackage (``blindspot.survey``, ``blindspot survey``): one row
  per leaderboard, read off the report of each (``rows``); the :class:`~blindspot.report.survey.table.Survey` and
  its inputs (``table``); the paper's statements judged on it (``verdicts``); ``survey.html`` (``render``); the
  command and its options, argparse only (``command``).
- :mod:`~blindspot.report.compare` — :func:`~blindspot.report.compare.compare` (``blindspot.compare``,
  ``blindspot compare``): paired item-level tests of two or more models on per-item results, and its
  :class:`~blindspot.report.compare.Comparison`; :mod:`~blindspot.report.compare_options` (argparse only).
- :mod:`~blindspot.report.two_models_study` — chapter 19's comparisons in one call (a ranking, a close and a
  far pair, paired against unpaired, AlpacaEval, a harness folder).
"""
