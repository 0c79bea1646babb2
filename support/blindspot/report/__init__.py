"""``blindspot analyze``: the practitioner report on any score matrix.

- :mod:`~blindspot.report.analyze` — the command and :func:`~blindspot.report.analyze.analyze_table`.
- :mod:`~blindspot.report.reading` — from a score file to the table; the rescaling rule.
- :mod:`~blindspot.report.input_checks` — warnings about values (mixed units, outliers, scales).
- :mod:`~blindspot.report.completion_check` — whether ``--missing complete`` beats column means.
- :mod:`~blindspot.report.sections` — the sections, their minimum sizes, the ranking table.
- :mod:`~blindspot.report.stability` — #1 under resampling of the models (measured).
- :mod:`~blindspot.report.width_regime` — the width-model diagnostics in linear time.
- :mod:`~blindspot.report.advice` — the opening paragraph.
- :mod:`~blindspot.report.findings` — the report as data; :mod:`~blindspot.report.render` — HTML and text;
  :mod:`~blindspot.report.output` — ``--out`` checked first, files staged and renamed into place.
"""
