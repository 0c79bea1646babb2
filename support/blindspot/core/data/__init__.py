"""Moved to :mod:`blindspot.data.tables` (the score table, a file read into one) and
:mod:`blindspot.data.suites` (the named suites, data directories, ``load``); this alias goes in the next release.
"""

from blindspot.data import suites as _suites, tables as _tables
from blindspot.data.suites import *  # noqa: F403
from blindspot.data.tables import *  # noqa: F403

__all__ = [*_tables.__all__, *_suites.__all__]
