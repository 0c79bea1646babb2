"""``blindspot analyze``: the practitioner report on any score matrix.

- :mod:`~blindspot.report.analyze` — the sections of the report, its HTML and JSON, the command.
"""
