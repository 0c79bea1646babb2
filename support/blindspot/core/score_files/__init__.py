"""Moved to :mod:`blindspot.data.score_files`; this alias goes in the next release.

``blindspot.core.score_files`` is the very module object ``blindspot.data.score_files`` (every name, private ones too).
"""

import sys

from blindspot.data import score_files as _moved

sys.modules[__name__] = _moved
