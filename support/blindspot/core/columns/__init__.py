"""Moved to :mod:`blindspot.data.columns`; this alias goes in the next release.

``blindspot.core.columns`` is the very module object ``blindspot.data.columns`` (every name, private ones too).
"""

import sys

from blindspot.data import columns as _moved

sys.modules[__name__] = _moved
